"""Planted defects for the sk13 claims, named by their ``defects`` declarations as
``tests.defects_sk13:NAME`` and run by tests/test_power.py."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorycheck.algorithms import sk13 as alg
from theorycheck.generators import crowds


# ---------------------------------------------------------------------- eq. (1)
def eq1_times_r(r, b, sigma2, v):
    """σ² + v·r in the denominator (the power of r inverted)."""
    return alg.scoring_objective(r, b, sigma2, [x * max(int(n), 1) ** 2 for x, n in zip(v, r, strict=True)]
                                 if isinstance(v, list) else np.asarray(v) * np.maximum(np.asarray(r), 1) ** 2)


class _QuietCrowd(crowds.Crowd):
    @property
    def v(self):
        true = super().v
        return np.where(self.binary, true, true / 3.0)


def loud_crowd(scales, beta, **kwargs):
    """A diagonal crowd that declares v = s²/9 for its real-valued features (true: s²/3)."""
    c = crowds.diagonal_crowd(scales, beta, **kwargs)
    return _QuietCrowd(*[getattr(c, f) for f in ("loadings", "offset", "spread", "binary", "beta", "beta0", "noise",
                                                 "costs", "names", "name")])


# ---------------------------------------------------------------------- Lemma A.2
def _r_loss(w, r, J, y, *, correction=True, mask=True, support_index=False):
    """ℓ_r(w, S) in Fractions with one part changed (the defects below)."""
    d, total = len(w), Fraction(0)
    on = [i for i in range(d) if r[i] > 0]
    for obj, label in zip(J, y, strict=True):
        means = [sum(map(Fraction, obj[i]), Fraction(0)) / len(obj[i]) for i in range(d)]
        total += (sum((Fraction(w[i]) * means[i] for i in (on if mask else range(d))), Fraction(0)) - label) ** 2
        if correction:
            for j, i in enumerate(on):
                wi = Fraction(w[j] if support_index else w[i])
                total += wi**2 * alg.var_est(list(obj[i])) * (Fraction(1, int(r[i])) - Fraction(1, len(obj[i])))
    return total / len(J)


def r_loss_uncorrected(w, r, J, y):
    """ℓ_r without the correction term: the plain squared loss of Z_r w on the k-averages."""
    return _r_loss(w, r, J, y, correction=False)


def r_loss_misindexed(w, r, J, y):
    """ℓ_r whose correction gives the j-th feature of the support the weight w[j] (an index into
    sub_r(w) read as a feature index)."""
    return _r_loss(w, r, J, y, support_index=True)


def r_loss_unmasked(w, r, J, y):
    """ℓ_r that predicts with w, not Z_r w (features left out by r still weigh in)."""
    return _r_loss(w, r, J, y, mask=False)


# ---------------------------------------------------------------------- VarEst and Σ̂
def var_est_biased(values, axis=-1):
    """VarEst with 1/n (the biased variance) in place of 1/(n − 1)."""
    if isinstance(values, list | tuple):
        n = len(values)
        return alg.var_est(values) * Fraction(n - 1, n)
    arr = np.asarray(values, dtype=np.float64)
    return arr.var(axis=axis)


def covariance_uncorrected(J, *, centre=False, psd=False):
    """(1/m)Σ x̄x̄ᵀ without the − Diag(v̂)/k correction."""
    s = alg.crowd_statistics(J, centre=centre)
    return alg.make_psd(s.second) if psd else s.second


# ---------------------------------------------------------------------- greedy
def second_best_greedy(objective, d, budget, costs=None):
    """Greedy whose every step takes the feature with the second-largest gain (when d ≥ 2)."""
    r = np.zeros(d, dtype=np.int64)
    path = []
    for _ in range(budget):
        values = []
        for a in range(d):
            r[a] += 1
            values.append(objective(r))
            r[a] -= 1
        order = sorted(range(d), key=lambda a: values[a], reverse=True)
        a = order[1] if d > 1 else order[0]
        r[a] += 1
        path.append(a)
    return r, path


def short_greedy(objective, d, budget, costs=None):
    """Greedy that stops one step early."""
    return alg.greedy_repeats(objective, d, max(budget - 1, 0), costs)


class SecondBestScoring(alg.ScoringSelector):
    def _greedy(self, objective):
        return second_best_greedy(objective, self.n_features_in_, self.budget)


class SecondBestFull(alg.FullSelector):
    def _greedy(self, objective):
        if np.all(self.costs_ == 1):
            return second_best_greedy(objective, self.n_features_in_, self.budget)
        # spend the same budget, but on the runner-up of each step
        return _runner_up(objective, self.n_features_in_, self.budget, self.costs_)


class FullEstimatesOnly(alg.FullSelector):
    """Full whose greedy may buy only the costliest features (the numerical estimates)."""

    def _greedy(self, objective):
        costs = np.where(self.costs_ < self.costs_.max(), self.budget + 1, self.costs_)
        return alg.greedy_repeats(objective, self.n_features_in_, self.budget, costs)


def _runner_up(objective, d, budget, costs):
    r = np.zeros(d, dtype=np.int64)
    path, left = [], budget
    current = objective(r)
    while True:
        gains = []
        for a in range(d):
            if costs[a] > left:
                continue
            r[a] += 1
            gains.append(((objective(r) - current) / costs[a], a))
            r[a] -= 1
        if not gains:
            return r, path
        gains.sort(reverse=True)
        a = gains[1][1] if len(gains) > 1 else gains[0][1]
        r[a] += 1
        left -= int(costs[a])
        path.append(a)
        current = objective(r)


# ---------------------------------------------------------------------- Theorem 3.1
class FullUncorrected(alg.FullSelector):
    """Full whose Σ̂ lacks the − Diag(v̂)/k correction."""

    def fit(self, J, y):
        J, y = self._validate(J, y)
        s = alg.crowd_statistics(J, y, centre=self.fit_intercept)
        self.b_, self.v_ = s.b, s.v
        self.Sigma_ = alg.make_psd(s.second)
        self.r_, self.path_ = self._greedy(self.objective)
        return self


class FullNoBias(alg.FullSelector):
    """Full that ignores fit_intercept: no constant feature and no centring."""

    def fit(self, J, y):
        self.fit_intercept = False
        return super().fit(J, y)


class ScoringBiasedVarEst(alg.ScoringSelector):
    """Scoring whose v̂ uses VarEst with 1/n."""

    def fit(self, J, y):
        J, y = self._validate(J, y)
        s = alg.crowd_statistics(J, y, centre=self.fit_intercept)
        k = J.shape[2]
        self.v_ = s.v * (k - 1) / k
        self.b_ = s.b
        self.sigma2_ = np.maximum(0.0, np.diag(s.second) - self.v_ / k)
        self.r_, self.path_ = self._greedy(self.objective)
        return self


# ---------------------------------------------------------------------- MakePSD
def psd_absolute(A):
    """U|D|Uᵀ: PSD, but not the nearest."""
    A = np.asarray(A, dtype=np.float64)
    vals, vecs = np.linalg.eigh(0.5 * (A + A.T))
    return (vecs * np.abs(vals)) @ vecs.T


def psd_lower(A):
    """Eigen-clipping of the matrix numpy's eigh reads (its lower triangle), not of (A + Aᵀ)/2."""
    vals, vecs = np.linalg.eigh(np.asarray(A, dtype=np.float64))
    return (vecs * np.maximum(vals, 0.0)) @ vecs.T
