"""Planted defects of the reyzin11 claims, importable as `--subject NAME=tests.defects_reyzin11:ATTR`.

Each is the library's subject changed in one way (a law, a sampler, a budget rule, a bound), so
that the claims' power tables can be checked by tests/test_power.py."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numba import njit

from theorycheck.algorithms import AdaBoostDeterministic, AdaBoostRS, AdaBoostRSAC, SamplePath
from theorycheck.kinds.ensemble import vote_law
from theorycheck.rng import as_generator, next_sign, next_weighted_index


# ------------------------------------------------------------------------------ exact laws
def ac_law_uncorrected(alpha, votes, costs, tau):
    """Algorithm 3 drawing ∝ α (no division by the cost) but voting ±c(h)."""
    total = sum((Fraction(a) for a in alpha), Fraction(0))
    return vote_law([Fraction(a) / total for a in alpha], [Fraction(c) for c in costs], votes, tau)


def ac_law_unit_votes(alpha, votes, costs, tau):
    """Algorithm 3 drawing ∝ α/c but voting ±1 (no importance weight)."""
    weights = [Fraction(a) / Fraction(c) for a, c in zip(alpha, costs, strict=True)]
    return vote_law([w / sum(weights) for w in weights], [Fraction(1)] * len(alpha), votes, tau)


def rs_law_uniform(alpha, votes, tau):
    """Algorithm 2 drawing uniformly over the hypotheses."""
    return vote_law([Fraction(1, len(alpha))] * len(alpha), [Fraction(1)] * len(alpha), votes, tau)


def unsampled_without_replacement(q, k):
    """k draws without replacement among the bins of positive probability: n − min(k, n₊) left."""
    positive = sum(1 for v in q if Fraction(v) > 0)
    return [(Fraction(1), len(q) - min(k, positive))]


def unsampled_ignores_q(q, k):
    """The uniform law whatever q is."""
    from theorycheck.kinds.ensemble import unsampled_law

    return unsampled_law([Fraction(1, len(q))] * len(q), k)


def hoeffding_constant_4(B, theta):
    """Corollary 3's term with Hoeffding's constant 4 instead of 8: e^{−Bθ²/4}."""
    return math.exp(-B * theta * theta / 4.0)


# ------------------------------------------------------------------------------ samplers (via the law the kernels use)
class ACSamplerUncorrected(AdaBoostRSAC):
    """Draws ∝ α (declares the correct ∝ α/c law), votes ±c(h)."""

    def _law(self, costs):
        c, _, _, inc = super()._law(costs)
        p = self._normalised(self.alphas_)
        return c, p, np.ascontiguousarray(np.cumsum(p)), inc


class ACDeclaresUncorrected(AdaBoostRSAC):
    """Samples correctly but declares the uncorrected law ∝ α."""

    def sampling_probabilities(self, costs=None):
        return self._normalised(self.alphas_)

    def _law(self, costs):
        c = self._costs(costs)
        p = self._normalised(self.alphas_ / c[self.features_])
        return c, p, np.ascontiguousarray(np.cumsum(p)), np.ascontiguousarray(c[self.features_])


class ACUnitVotes(AdaBoostRSAC):
    """Draws ∝ α/c but every draw votes ±1."""

    def _law(self, costs):
        c, p, cumulative, inc = super()._law(costs)
        return c, p, cumulative, np.ones_like(inc)


class RSUniformStumps(AdaBoostRS):
    """Draws (and declares) the uniform law over its stumps."""

    def sampling_probabilities(self, costs=None):
        self._costs(costs)
        return np.full(self.alphas_.shape, 1.0 / self.alphas_.size)


class RSSquaredAlpha(AdaBoostRS):
    """Draws ∝ α² while declaring ∝ α."""

    def _law(self, costs):
        c, _, _, inc = super()._law(costs)
        p = self._normalised(self.alphas_ ** 2)
        return c, p, np.ascontiguousarray(np.cumsum(p)), inc


class RSAlphaVotes(AdaBoostRS):
    """Draws ∝ α and weights each vote by α again (α² in all)."""

    def _law(self, costs):
        c, p, cumulative, _ = super()._law(costs)
        return c, p, cumulative, np.ascontiguousarray(self.alphas_.astype(np.float64))


class RSCountsRepeats(AdaBoostRS):
    """Reports every draw as a feature examined (repeats counted again)."""

    def sample_path(self, X, taus, costs=None, random_state=None):
        path = super().sample_path(X, taus, costs=costs, random_state=random_state)
        return SamplePath(path.taus, path.votes, np.broadcast_to(path.taus, path.n_features.shape).copy(), path.cost)


class RSFrozenAfter100(AdaBoostRS):
    """Stops adding to the vote after 100 draws (its path keeps the vote of draw 100)."""

    def sample_path(self, X, taus, costs=None, random_state=None):
        taus = np.asarray(taus, dtype=np.int64)
        inner = np.unique(np.minimum(taus, 100))
        path = super().sample_path(X, inner, costs=costs, random_state=random_state)
        at = np.searchsorted(inner, np.minimum(taus, 100))
        return SamplePath(taus, path.votes[:, at], path.n_features[:, at], path.cost[:, at])


class RSPathReadsAll(AdaBoostRS):
    """Its sample path also evaluates every stump on every example (the full vote, kept aside), while it reports
    only the features its draws examined."""

    def sample_path(self, X, taus, costs=None, random_state=None):
        path = super().sample_path(X, taus, costs=costs, random_state=random_state)
        X = self._check_X(X, finite=False)
        self.full_votes_ = (np.where(X[:, self.features_] > self.thresholds_, 1.0, -1.0)
                            * self.polarities_) @ self.vote_weights_
        return path


class ACUniformAfterFirst(AdaBoostRSAC):
    """The first draw follows the AC law, every later one is uniform over the stumps."""

    def sample_path(self, X, taus, costs=None, random_state=None):
        X = self._check_X(X, finite=False)  # it reads the features it draws, below, and reports them
        taus = np.asarray(taus, dtype=np.int64)
        c, p, _, inc = self._law(costs)
        rng = as_generator(random_state if random_state is not None else self.random_state)
        n, top, T = X.shape[0], int(taus[-1]), self.alphas_.size
        draws = rng.integers(0, T, size=(n, top))
        draws[:, 0] = rng.choice(T, size=n, p=p)
        f = self.features_[draws]
        h = np.where(X[np.arange(n)[:, None], f] > self.thresholds_[draws], 1.0, -1.0) * self.polarities_[draws]
        votes = np.cumsum(h * inc[draws], axis=1)[:, taus - 1]
        first = np.zeros(f.shape, dtype=bool)  # the draws that examine a feature for the first time in their row
        for e in range(n):
            first[e, np.unique(f[e], return_index=True)[1]] = True
        n_features = np.cumsum(first, axis=1)[:, taus - 1]
        cost = np.cumsum(np.where(first, c[f], 0.0), axis=1)[:, taus - 1]
        return SamplePath(taus, votes, n_features, cost)


# ------------------------------------------------------------------------------ budget rules (Python loops)
@njit(cache=True)
def _planted_kernel(X, features, thresholds, polarities, cumulative, increments, fcost, maxc, budget, relevant,
                    n_relevant, vote_weights, count_repeats, while_under, state):
    """Algorithms 2/3's loop with one planted change to the budget rule (count_repeats: a repeated
    feature is charged again; while_under: the loop runs while k < B). An exhausted row takes the full
    vote's sign, from the features already examined (as the library's kernel)."""
    n, d = X.shape
    taus = np.zeros(n, dtype=np.int64)
    n_feat = np.zeros(n, dtype=np.int64)
    spent = np.zeros(n)
    votes = np.zeros(n)
    preds = np.zeros(n)
    ties = np.zeros(n, dtype=np.bool_)
    exhausted = np.zeros(n, dtype=np.bool_)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(max(1, n * n_relevant), dtype=np.int64)
    stamp = np.full(d, -1, dtype=np.int64)
    nnz = 0
    for e in range(n):
        k = 0.0
        paid = 0.0
        v = 0.0
        tau = 0
        seen = 0
        while (k < budget) if while_under else (k + maxc < budget):
            if seen == n_relevant and not count_repeats:
                exhausted[e] = True
                break
            if tau == 10_000_000:
                break
            i = next_weighted_index(state, cumulative)
            j = features[i]
            if stamp[j] != e:
                stamp[j] = e
                k += fcost[j]
                paid += fcost[j]
                indices[nnz] = j
                nnz += 1
                n_feat[e] += 1
                if relevant[j]:
                    seen += 1
            elif count_repeats:
                k += fcost[j]
            if X[e, j] > thresholds[i]:
                v += increments[i] * polarities[i]
            else:
                v -= increments[i] * polarities[i]
            tau += 1
        taus[e] = tau
        spent[e] = paid
        votes[e] = v
        indptr[e + 1] = nnz
        if exhausted[e]:
            v = 0.0
            for i in range(features.shape[0]):
                if vote_weights[i] != 0.0:
                    v += vote_weights[i] * polarities[i] * (1.0 if X[e, features[i]] > thresholds[i] else -1.0)
        sign = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
        if sign == 0.0:
            ties[e] = True
            sign = next_sign(state)
        preds[e] = sign
    return preds, taus, n_feat, spent, votes, indptr, indices[:nnz].copy(), ties, exhausted


def _sampled_predict(model, X, budget, costs, random_state, *, count_repeats=False, while_under=False):
    if budget is None:
        return model._full_predict(X)
    X = model._check_X(X, finite=False)  # the features examined are checked after the loop, as the library does
    c, p, cumulative, inc = model._law(costs)
    relevant = np.zeros(model.n_features_in_, dtype=np.bool_)
    relevant[model.features_[p > 0.0]] = True
    preds, taus, n_feat, spent, votes, indptr, indices, ties, exhausted = _planted_kernel(
        X, model.features_, model.thresholds_, model.polarities_, cumulative, inc, c,
        float(c[model.features_].max()), float(budget), relevant, int(relevant.sum()),
        np.ascontiguousarray(model.vote_weights_), count_repeats, while_under, model._state(random_state))
    model._check_examined(X, indptr, indices)
    model._record(float(budget), c, taus, n_feat, spent, votes, indptr, indices, ties)
    model.exhausted_, model.capped_ = exhausted, np.zeros(X.shape[0], dtype=np.bool_)
    return model.classes_[(preds > 0).astype(np.int64)]


class RSCountsRepeatsBudget(AdaBoostRS):
    """AdaBoostRS whose budget check charges a repeated feature again."""

    def predict(self, X, budget=None, costs=None, random_state=None):
        return _sampled_predict(self, X, budget, costs, random_state, count_repeats=True)


class ACCountsRepeatsBudget(AdaBoostRSAC):
    """AdaBoostRS_AC whose budget check charges a repeated feature again (spends less)."""

    def predict(self, X, budget=None, costs=None, random_state=None):
        return _sampled_predict(self, X, budget, costs, random_state, count_repeats=True)


class ACLoopWhileUnderBudget(AdaBoostRSAC):
    """AdaBoostRS_AC whose loop runs while k < B (the last draw may go over)."""

    def predict(self, X, budget=None, costs=None, random_state=None):
        return _sampled_predict(self, X, budget, costs, random_state, while_under=True)


@njit(cache=True)
def _overshoot_kernel(X, features, thresholds, polarities, alphas, order, fcost, budget, state):
    """§6's greedy rule, but a stump is taken whenever k ≤ B before its feature is added."""
    n, d = X.shape
    T = order.shape[0]
    taken = np.zeros(n, dtype=np.int64)
    n_feat = np.zeros(n, dtype=np.int64)
    cost = np.zeros(n)
    votes = np.zeros(n)
    preds = np.zeros(n)
    ties = np.zeros(n, dtype=np.bool_)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(max(1, n * min(d, T)), dtype=np.int64)
    stamp = np.full(d, -1, dtype=np.int64)
    nnz = 0
    for e in range(n):
        k = 0.0
        v = 0.0
        for r in range(T):
            i = order[r]
            j = features[i]
            if stamp[j] != e:
                if k > budget:
                    continue
                stamp[j] = e
                k += fcost[j]
                indices[nnz] = j
                nnz += 1
                n_feat[e] += 1
            if X[e, j] > thresholds[i]:
                v += alphas[i] * polarities[i]
            else:
                v -= alphas[i] * polarities[i]
            taken[e] += 1
        cost[e] = k
        votes[e] = v
        indptr[e + 1] = nnz
        if v > 0.0:
            preds[e] = 1.0
        elif v < 0.0:
            preds[e] = -1.0
        else:
            ties[e] = True
            preds[e] = next_sign(state)
    return preds, taken, n_feat, cost, votes, indptr, indices[:nnz].copy(), ties


class DeterministicOvershoot(AdaBoostDeterministic):
    """Takes a stump whenever k ≤ B before adding its feature (may end over budget)."""

    def predict(self, X, budget=None, costs=None, random_state=None):
        if budget is None:
            return self._full_predict(X)
        X = self._check_X(X, finite=False)
        c = self._costs(costs)
        preds, taken, n_feat, cost, votes, indptr, indices, ties = _overshoot_kernel(
            X, self.features_, self.thresholds_, self.polarities_, self.alphas_,
            np.ascontiguousarray(self.order(c)), c, float(budget), self._state(random_state))
        self._check_examined(X, indptr, indices)
        self._record(float(budget), c, taken, n_feat, cost, votes, indptr, indices, ties)
        self.exhausted_ = self.capped_ = np.zeros(X.shape[0], dtype=np.bool_)
        return self.classes_[(preds > 0).astype(np.int64)]


class _FullVoteTies:
    """Breaks a sampled vote of 0 by the sign of the full vote Σ α_t h_t(x): it evaluates every stump on every
    example, and reports (``n_features_examined_``, ``examined``) only the features its draws examined."""

    def predict(self, X, budget=None, costs=None, random_state=None):
        pred = super().predict(X, budget=budget, costs=costs, random_state=random_state)
        if budget is None:
            return pred
        X = self._check_X(X, finite=False)
        full = (np.where(X[:, self.features_] > self.thresholds_, 1.0, -1.0) * self.polarities_) @ self.vote_weights_
        tied = self.votes_ == 0.0
        pred[tied & (full > 0)] = self.classes_[1]
        pred[tied & (full < 0)] = self.classes_[0]
        return pred


class RSFullVoteTies(_FullVoteTies, AdaBoostRS):
    """AdaBoostRS whose ties are broken by the full vote (reads every stump's feature, reports the drawn ones)."""


class ACFullVoteTies(_FullVoteTies, AdaBoostRSAC):
    """AdaBoostRS_AC whose ties are broken by the full vote (reads every stump's feature, reports the drawn ones)."""


class DeterministicHides(AdaBoostDeterministic):
    """Reports only the first feature it examined on each row."""

    def examined(self, row):
        return super().examined(row)[:1]


# ------------------------------------------------------------------------------ training (Algorithm 1)
class RSUnitAlpha(AdaBoostRS):
    """AdaBoostRS trained as usual, then every α set to 1 (the samplers draw its stumps uniformly)."""

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight)
        self.alphas_ = np.ones_like(self.alphas_)
        self.perfect_ = False
        self.vote_weights_ = self._normalised(self.alphas_)
        return self


class RSBudgetOneLess(AdaBoostRS):
    """AdaBoostRS that reads its budget as B − 1."""

    def predict(self, X, budget=None, costs=None, random_state=None):
        return super().predict(X, budget=None if budget is None else budget - 1, costs=costs,
                               random_state=random_state)
