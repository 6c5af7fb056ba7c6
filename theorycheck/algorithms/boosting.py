"""Boosting on a budget (reyzin11): AdaBoost with decision stumps, AdaBoostRS, AdaBoostRS_AC and
the deterministic rule of §6.

Training is Algorithm 1 (AdaBoost) with decision stumps; prediction under a feature budget B
samples hypotheses from the final vote (Algorithm 2, AdaBoostRS; Algorithm 3, AdaBoostRS_AC).

Stumps. Stump t reads one feature: ``h_t(x) = s_t if x[j_t] > θ_t else −s_t`` with polarity
s_t ∈ {−1, +1} (x ≤ θ goes "left", as in scikit-learn's trees). Thresholds are the midpoints
between consecutive distinct training values of the feature (scikit-learn's rule), so a binary
feature gives exactly two stumps (θ = ½, s = ±1): 2n stumps on n binary features (§3.2).

Weak learner. Algorithm 1 only says "train base learner using D_t". ``criterion="error"`` (the
default) takes the stump of largest edge γ = Σ_i D_t(i) y_i h(x_i), i.e. of smallest weighted
error ε = (1 − γ)/2; ties, meaning edges within 1e-12 of each other (summation order alone can
move an edge by a few ulps, so finer comparisons would depend on row order), go to the first in
the order (feature, threshold ascending, polarity +1 then −1). ``criterion="gini"`` takes the split of scikit-learn's
``DecisionTreeClassifier(max_depth=1)`` (weighted Gini impurity) with leaves labelled by
weighted majority (a stump whose two leaves agree is constant, recorded with θ = −∞); with
``weight_floor=np.finfo(float).eps`` (scikit-learn clips D at machine ε before every round)
it is the scikit-learn-reproducing mode used by the cross-check in tests/test_boosting.py.

α and the two degenerate edges, handled explicitly:

* α_t = ½ ln((1 − ε_t)/ε_t), with ε_t = Σ_{i: h_t(x_i) ≠ y_i} D_t(i) summed over the mistakes
  (Algorithm 1's ½ ln((1 + γ_t)/(1 − γ_t)), computed without cancellation).
* γ_t = 1 (ε_t = 0, α infinite): the stump is kept with ``alphas_[t] = inf`` and boosting stops
  (D_{t+1} is undefined). The ensemble is then its limit: all sampling probability on that
  stump, margins y·h_t(x), ``decision_function`` ±∞ with the sign of h_t(x). With D of full
  support this can only happen at round 1 (a stump perfect under D_t is perfect on the data).
  γ_t = −1 cannot occur: the reversed stump would have γ = +1 and is searched too.
* γ_t ≤ 0 (ε_t ≥ ½, no stump has an edge): the stump is not added and boosting stops
  (:class:`ParameterError` if that happens at round 1).

Sampling (Algorithms 2 and 3), per test example, exactly as printed: k = 0, F = ∅, τ = 0,
v = 0; **while k + max_i c(h_i) < B**: draw i ~ p, add the cost of the features of h_i not in
F to k (a feature already examined costs nothing again), F ← F ∪ F_{h_i}, v ← v ± (1 for RS,
c(h_i) for AC), τ ← τ + 1; predict sign(v). c(h) is the cost of the stump's feature (1 when no
costs are given); the max runs over every hypothesis of the ensemble. AdaBoostRS ignores the
costs when sampling (p ∝ α, §4's first paragraph); AdaBoostRS_AC samples p ∝ α/c(h).

Beyond the box (documented choices):

* a tie v_τ = 0 (including τ = 0 when max c(h) ≥ B) is broken by a fair coin drawn from the
  same stream after the example's draws (``ties_``);
* when every feature that has positive probability has been examined, k can no longer grow and
  the printed loop would never end (§3.1 assumes B below the number of relevant features): the
  loop stops and the full vote's sign is predicted, every feature it needs being known
  (``exhausted_``; §3.1: "otherwise, the full AdaBoost vote can simply be used");
* a safety cap of ``max_samples`` draws per example (``capped_``; the sampled vote then decides):
  with very cheap features AdaBoostRS_AC can draw free repeats for a long time.

Budget guarantee: before the last draw k < B − max c(h), and a draw adds at most max c(h), so
``cost_spent_ < B`` on every example (deterministic rule: ``cost_spent_ ≤ B``).

Randomness follows :mod:`theorycheck.rng`: one ``random_state`` (int, SeedSequence, Generator or
a ``uint64[2]`` kernel state advanced in place), one stream for all examples in row order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..rng import guide_table, next_guided_index, next_sign
from ..validation import ParameterError, check_int, check_real
from ._common import state_from

__all__ = ["AdaBoostDeterministic", "AdaBoostRS", "AdaBoostRSAC", "AdaBoostStumps", "SamplePath"]

_CRITERIA = {"error": 0, "gini": 1}
_TIE = 1e-12  # edges closer than this are a tie for criterion="error" (γ ∈ [−1, 1])

# ----------------------------------------------------------------------------------------
# training kernels


@njit(cache=True)
def _best_stump(X, order, y, D, criterion):
    """The stump chosen under distribution D: (feature, threshold, polarity).

    ``order[j]`` lists the rows sorted by feature j (stable). criterion 0: largest edge
    γ = Σ D y h; criterion 1: scikit-learn's weighted Gini split with majority leaves.
    Returns feature −1 when no feature takes two distinct values.
    """
    m, d = X.shape
    pos_total = 0.0
    neg_total = 0.0
    for i in range(m):
        if y[i] > 0:
            pos_total += D[i]
        else:
            neg_total += D[i]
    signed_total = pos_total - neg_total
    best = -np.inf
    best_j = -1
    best_thr = 0.0
    best_pol = 1
    for j in range(d):
        rows = order[j]
        pos_left = 0.0
        neg_left = 0.0
        for r in range(m - 1):
            i = rows[r]
            if y[i] > 0:
                pos_left += D[i]
            else:
                neg_left += D[i]
            a = X[i, j]
            b = X[rows[r + 1], j]
            if b <= a:  # not between two distinct values
                continue
            thr = a / 2.0 + b / 2.0
            if thr == b or thr == np.inf:
                thr = a
            if criterion == 0:
                # h = +1 right of thr: γ = Σ_right D y − Σ_left D y; edges within _TIE of the best
                # are ties (rounding cannot order them reliably) and the first one stays
                gamma = signed_total - 2.0 * (pos_left - neg_left)
                if gamma > best + _TIE:
                    best, best_j, best_thr, best_pol = gamma, j, thr, 1
                if -gamma > best + _TIE:
                    best, best_j, best_thr, best_pol = -gamma, j, thr, -1
            else:
                w_left = pos_left + neg_left
                pos_right = pos_total - pos_left
                neg_right = neg_total - neg_left
                w_right = pos_right + neg_right
                score = 0.0
                if w_left > 0.0:
                    score += (pos_left * pos_left + neg_left * neg_left) / w_left
                if w_right > 0.0:
                    score += (pos_right * pos_right + neg_right * neg_right) / w_right
                if score > best:
                    best, best_j = score, j
                    left = 1 if pos_left > neg_left else -1
                    right = 1 if pos_right > neg_right else -1
                    if left != right:
                        best_thr, best_pol = thr, right
                    else:  # both leaves vote alike: a constant stump
                        best_thr, best_pol = -np.inf, right
    return best_j, best_thr, best_pol


@njit(cache=True)
def _adaboost_kernel(X, y, D0, order, n_rounds, criterion, floor):
    """Algorithm 1. Returns (features, thresholds, polarities, alphas, edges, errors,
    training errors, rounds built, perfect)."""
    m = X.shape[0]
    features = np.empty(n_rounds, dtype=np.int64)
    thresholds = np.empty(n_rounds)
    polarities = np.empty(n_rounds, dtype=np.int64)
    alphas = np.empty(n_rounds)
    edges = np.empty(n_rounds)
    errors = np.empty(n_rounds)
    train_err = np.empty(n_rounds)
    D = D0.copy()
    vote = np.zeros(m)
    h = np.empty(m)
    built = 0
    perfect = False
    for t in range(n_rounds):
        if floor > 0.0:  # scikit-learn's clip (never on weights that started at 0), renormalised
            total = 0.0
            for i in range(m):
                if D0[i] > 0.0 and D[i] < floor:
                    D[i] = floor
                total += D[i]
            for i in range(m):
                D[i] /= total
        j, thr, pol = _best_stump(X, order, y, D, criterion)
        if j < 0:
            break
        eps = 0.0  # D-mass of the mistakes
        right = 0.0  # D-mass of the rest
        for i in range(m):
            h[i] = pol if X[i, j] > thr else -pol
            if h[i] != y[i]:
                eps += D[i]
            else:
                right += D[i]
        if eps >= right:  # γ ≤ 0: no edge, stop without adding the stump
            break
        features[t] = j
        thresholds[t] = thr
        polarities[t] = pol
        edges[t] = (right - eps) / (right + eps)  # γ_t (exactly 1 for a perfect stump)
        errors[t] = eps / (right + eps)  # ε_t = (1 − γ_t)/2
        built = t + 1
        if eps == 0.0:  # γ = 1: α infinite; the vote is h_t from now on
            alphas[t] = np.inf
            perfect = True
            train_err[t] = 0.0
            break
        alpha = 0.5 * np.log(right / eps)
        alphas[t] = alpha
        mistakes = 0
        for i in range(m):
            vote[i] += alpha * h[i]
            pred = 1.0 if vote[i] > 0.0 else -1.0
            if pred != y[i]:
                mistakes += 1
        train_err[t] = mistakes / m
        z = 0.0
        for i in range(m):
            D[i] = D[i] * np.exp(-alpha * y[i] * h[i])
            z += D[i]
        for i in range(m):
            D[i] /= z
    return (features[:built], thresholds[:built], polarities[:built], alphas[:built], edges[:built],
            errors[:built], train_err[:built], built, perfect)


# ----------------------------------------------------------------------------------------
# prediction kernels


@njit(cache=True)
def _sampled_predict_kernel(X, features, thresholds, polarities, cumulative, increments, fcost, maxc, budget,
                            relevant, n_relevant, vote_weights, max_samples, state):
    """Algorithms 2/3 for every row of X in order. Returns (predictions ±1, τ, features
    examined, cost, votes, CSR indptr, CSR indices, ties, exhausted, capped).

    ``relevant[j]``: feature j is read by a stump of positive probability (``n_relevant`` of them).
    An exhausted row predicts the sign of the full vote Σ vote_weights_i h_i(x), which reads only
    features already examined (a stump of weight 0 is skipped).
    """
    n = X.shape[0]
    d = X.shape[1]
    taus = np.zeros(n, dtype=np.int64)
    n_feat = np.zeros(n, dtype=np.int64)
    cost = np.zeros(n)
    votes = np.zeros(n)
    preds = np.zeros(n)
    ties = np.zeros(n, dtype=np.bool_)
    exhausted = np.zeros(n, dtype=np.bool_)
    capped = np.zeros(n, dtype=np.bool_)
    indptr = np.zeros(n + 1, dtype=np.int64)
    n_used = 0  # distinct features of the ensemble: at most that many are examined per row
    used = np.zeros(d, dtype=np.bool_)
    for i in range(features.shape[0]):
        if not used[features[i]]:
            used[features[i]] = True
            n_used += 1
    indices = np.empty(max(1, n * n_used), dtype=np.int64)
    stamp = np.full(d, -1, dtype=np.int64)
    guide = guide_table(cumulative)
    nnz = 0
    for e in range(n):
        k = 0.0
        v = 0.0
        tau = 0
        seen_relevant = 0
        while k + maxc < budget:
            if seen_relevant == n_relevant:  # k cannot grow any more: the printed loop never ends
                exhausted[e] = True
                break
            if tau == max_samples:
                capped[e] = True
                break
            i = next_guided_index(state, cumulative, guide)
            j = features[i]
            if stamp[j] != e:
                stamp[j] = e
                k += fcost[j]
                indices[nnz] = j
                nnz += 1
                n_feat[e] += 1
                if relevant[j]:
                    seen_relevant += 1
            if X[e, j] > thresholds[i]:
                v += increments[i] * polarities[i]
            else:
                v -= increments[i] * polarities[i]
            tau += 1
        taus[e] = tau
        cost[e] = k
        votes[e] = v
        indptr[e + 1] = nnz
        if exhausted[e]:
            v = 0.0
            for i in range(features.shape[0]):
                if vote_weights[i] != 0.0:
                    if X[e, features[i]] > thresholds[i]:
                        v += vote_weights[i] * polarities[i]
                    else:
                        v -= vote_weights[i] * polarities[i]
        sign = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)
        if sign == 0.0:
            ties[e] = True
            sign = next_sign(state)
        preds[e] = sign
    return preds, taus, n_feat, cost, votes, indptr, indices[:nnz].copy(), ties, exhausted, capped


@njit(cache=True)
def _sample_path_kernel(X, features, thresholds, polarities, cumulative, increments, fcost, checkpoints, state):
    """max(checkpoints) draws per row, no budget; records (vote, distinct features, their cost)
    after each checkpoint τ, and the features each row examined (CSR indptr, indices)."""
    n = X.shape[0]
    d = X.shape[1]
    c = checkpoints.shape[0]
    total = checkpoints[c - 1]
    votes = np.zeros((n, c))
    n_feat = np.zeros((n, c), dtype=np.int64)
    cost = np.zeros((n, c))
    stamp = np.full(d, -1, dtype=np.int64)
    used = np.zeros(d, dtype=np.bool_)
    n_used = 0
    for i in range(features.shape[0]):
        if not used[features[i]]:
            used[features[i]] = True
            n_used += 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(max(1, n * min(n_used, total)), dtype=np.int64)
    nnz = 0
    guide = guide_table(cumulative)
    for e in range(n):
        k = 0.0
        v = 0.0
        count = 0
        nxt = 0
        for tau in range(1, total + 1):
            i = next_guided_index(state, cumulative, guide)
            j = features[i]
            if stamp[j] != e:
                stamp[j] = e
                k += fcost[j]
                count += 1
                indices[nnz] = j
                nnz += 1
            if X[e, j] > thresholds[i]:
                v += increments[i] * polarities[i]
            else:
                v -= increments[i] * polarities[i]
            if tau == checkpoints[nxt]:
                votes[e, nxt] = v
                n_feat[e, nxt] = count
                cost[e, nxt] = k
                nxt += 1
        indptr[e + 1] = nnz
    return votes, n_feat, cost, indptr, indices[:nnz].copy()


@njit(cache=True)
def _deterministic_kernel(X, features, thresholds, polarities, alphas, order, fcost, budget, prefix, state):
    """§6: hypotheses in the given order (α/c decreasing), each taken when its new cost fits."""
    n = X.shape[0]
    d = X.shape[1]
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
            new = 0.0 if stamp[j] == e else fcost[j]
            if k + new > budget:
                if prefix:
                    break
                continue
            if stamp[j] != e:
                stamp[j] = e
                k += new
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


# ----------------------------------------------------------------------------------------
# estimators


@dataclass(frozen=True)
class SamplePath:
    """Votes of the sampling procedure at chosen numbers of draws (no budget).

    ``votes[e, c]`` is v_τ of row e after τ = ``taus[c]`` draws; ``n_features[e, c]`` the
    distinct features examined by then and ``cost[e, c]`` their total cost.
    """

    taus: np.ndarray
    votes: np.ndarray
    n_features: np.ndarray
    cost: np.ndarray


class AdaBoostStumps(ClassifierMixin, BaseEstimator):
    """AdaBoost with decision stumps (reyzin11 Algorithm 1; see the module docstring).

    Parameters
    ----------
    n_estimators : int, default 500
        Rounds T (the paper's §5 uses 500); fewer are built when boosting stops early.
    criterion : {"error", "gini"}, default "error"
        The weak learner: the stump of smallest weighted error (the paper), or scikit-learn's
        depth-1 tree split (weighted Gini), for cross-checking.
    weight_floor : float, default 0.0
        Clip D_t(i) from below at this value before each round (scikit-learn uses machine ε);
        0 is Algorithm 1.

    Attributes
    ----------
    classes_ : numpy.ndarray, shape (2,)
        ``classes_[0]`` plays −1, ``classes_[1]`` plays +1.
    n_estimators_ : int
        Rounds built (≤ n_estimators).
    features_, thresholds_, polarities_ : numpy.ndarray, shape (T,)
        Stump t is ``polarities_[t] if x[features_[t]] > thresholds_[t] else −polarities_[t]``.
    alphas_ : numpy.ndarray, shape (T,)
        α_t; the last is ``inf`` when ``perfect_``.
    edges_, errors_ : numpy.ndarray, shape (T,)
        γ_t = Σ D_t y h_t and ε_t = Σ_{mistakes} D_t.
    training_errors_ : numpy.ndarray, shape (T,)
        Training 0-1 error of sign(Σ_{s≤t} α_s h_s) after each round (a vote of 0 counts as −1).
    vote_weights_ : numpy.ndarray, shape (T,)
        α_t / Σ α (one-hot on the infinite α when ``perfect_``): AdaBoostRS's p(i).
    perfect_ : bool
        The last round had γ = 1 (α infinite).
    n_features_in_ : int
    """

    def __init__(self, n_estimators=500, criterion="error", weight_floor=0.0):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.weight_floor = weight_floor

    # -- training ------------------------------------------------------------------------

    def fit(self, X, y, sample_weight=None):
        """Run Algorithm 1 on (X, y).

        Parameters
        ----------
        X : array_like, shape (m, n_features)
        y : array_like, shape (m,)
            Exactly two classes.
        sample_weight : array_like, shape (m,), optional
            D_1 ∝ sample_weight (non-negative, not all 0); uniform by default. Rows of weight 0
            are dropped (they carry no mass; kept, they would only move thresholds), so
            ``training_errors_`` counts the rows of positive weight.

        Returns
        -------
        self
        """
        T = check_int("n_estimators", self.n_estimators, low=1)
        if self.criterion not in _CRITERIA:
            raise ParameterError(f"criterion must be 'error' or 'gini', got {self.criterion!r}")
        floor = check_real("weight_floor", self.weight_floor, low=0.0, high=1.0, strict_high=True)
        try:
            X, y = validate_data(self, X, y, dtype=np.float64, order="C", ensure_all_finite=True)
            check_classification_targets(y)
            D0 = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        except ParameterError:
            raise
        except ValueError as err:
            raise ParameterError(str(err)) from None
        classes, y_idx = np.unique(y, return_inverse=True)
        if classes.shape[0] > 2:
            raise ParameterError(f"Only binary classification is supported: y has {classes.shape[0]} classes")
        if classes.shape[0] < 2:
            raise ParameterError("y has 1 class; AdaBoost needs exactly 2")
        ys = np.where(y_idx == 1, 1.0, -1.0)
        keep = D0 > 0.0  # rows of weight 0 carry no mass in Algorithm 1: dropped (they would move thresholds)
        if not keep.any():
            raise ParameterError("sample_weight must not be all zero")
        if not keep.all():
            X, ys, D0 = np.ascontiguousarray(X[keep]), ys[keep], D0[keep]
        D0 = np.ascontiguousarray(D0 / D0.sum())
        order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
        feats, thrs, pols, alphas, edges, errors, train_err, built, perfect = _adaboost_kernel(
            X, ys, D0, order, T, _CRITERIA[self.criterion], floor)
        if built == 0:
            raise ParameterError("no stump has a positive edge on the training data (every feature is constant "
                                 "or the weighted classes are balanced on every split)")
        self.classes_ = classes
        self.features_ = feats
        self.thresholds_ = thrs
        self.polarities_ = pols
        self.alphas_ = alphas
        self.edges_ = edges
        self.errors_ = errors
        self.training_errors_ = train_err
        self.n_estimators_ = int(built)
        self.perfect_ = bool(perfect)
        self.vote_weights_ = self._normalised(alphas)
        return self

    def _normalised(self, weights):
        if self.perfect_:
            out = np.zeros_like(weights)
            out[-1] = 1.0
            return out
        return weights / weights.sum()

    # -- the full vote -------------------------------------------------------------------

    def _check_X(self, X, finite: bool = True):
        """X validated; ``finite`` False leaves the values unread (a budgeted prediction checks those it reads)."""
        check_is_fitted(self, "alphas_")
        try:
            return validate_data(self, X, reset=False, dtype=np.float64, order="C", ensure_all_finite=finite)
        except ValueError as err:
            raise ParameterError(str(err)) from None

    def hypothesis_outputs(self, X):
        """h_t(x) ∈ {−1, +1} for every row and stump, shape (n, T)."""
        X = self._check_X(X)
        right = X[:, self.features_] > self.thresholds_
        return np.where(right, 1.0, -1.0) * self.polarities_

    def decision_function(self, X):
        """The full weighted vote Σ_t α_t h_t(x) (±inf with the sign of h_T(x) when ``perfect_``)."""
        H = self.hypothesis_outputs(X)
        if self.perfect_:
            return np.inf * H[:, -1]
        return H @ self.alphas_

    def _signed(self, y):
        y = np.asarray(y)
        known = np.isin(y, self.classes_)
        if not known.all():
            raise ParameterError(f"y has labels outside classes_ {list(self.classes_)}")
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def margins(self, X, y):
        """margin(x, y) = y Σ α_t h_t(x) / Σ α_t ∈ [−1, 1] (reyzin11 §3.2); y in ``classes_``."""
        ys = self._signed(y)
        return ys * (self.hypothesis_outputs(X) @ self.vote_weights_)

    def _full_predict(self, X):
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(np.int64)]

    def predict(self, X):
        """Class of sign(Σ α_t h_t(x)); a vote of 0 goes to ``classes_[0]`` (scikit-learn's rule)."""
        return self._full_predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class _BudgetedBoost(AdaBoostStumps):
    """Shared prediction machinery of the budgeted predictors (not public)."""

    def __init__(self, n_estimators=500, criterion="error", weight_floor=0.0, max_samples=10**6, random_state=None):
        super().__init__(n_estimators=n_estimators, criterion=criterion, weight_floor=weight_floor)
        self.max_samples = max_samples
        self.random_state = random_state

    # hooks: the sampling law
    _cost_aware = False

    def _costs(self, costs):
        check_is_fitted(self, "alphas_")
        if costs is None:
            return np.ones(self.n_features_in_)
        c = np.asarray(costs, dtype=np.float64)
        if c.shape != (self.n_features_in_,):
            raise ParameterError(f"costs must have one entry per feature ({self.n_features_in_}), got shape {c.shape}")
        if not np.all(np.isfinite(c)) or not np.all(c > 0.0):
            raise ParameterError("costs must be finite and > 0")
        return np.ascontiguousarray(c)

    def hypothesis_costs(self, costs=None):
        """c(h_i) = cost of the feature stump i reads, shape (T,)."""
        return self._costs(costs)[self.features_]

    def sampling_probabilities(self, costs=None):
        """p(i) of the box: α_i/Σα (AdaBoostRS) or (α_i/c(h_i))/Σ(α/c(h)) (AdaBoostRS_AC)."""
        hc = self.hypothesis_costs(costs)
        return self._normalised(self.alphas_ / hc) if self._cost_aware else self._normalised(self.alphas_)

    def vote_increments(self, costs=None):
        """|change of v| per draw of stump i: 1 (AdaBoostRS) or c(h_i) (AdaBoostRS_AC)."""
        hc = self.hypothesis_costs(costs)
        return hc.copy() if self._cost_aware else np.ones_like(hc)

    def _law(self, costs):
        c = self._costs(costs)
        p = self.sampling_probabilities(c)
        return c, p, np.ascontiguousarray(np.cumsum(p)), np.ascontiguousarray(self.vote_increments(c))

    def _state(self, random_state):
        return state_from(self.random_state if random_state is None else random_state)

    def predict(self, X, budget=None, costs=None, random_state=None):
        """Predict with the full vote (``budget=None``) or by sampling under budget B.

        Parameters
        ----------
        X : array_like, shape (n, n_features_in_)
        budget : float > 0 or None
            B; None predicts with the full vote (no attribute of the evidence is set).
        costs : array_like, shape (n_features_in_,), optional
            Feature costs, finite and > 0; all 1 by default.
        random_state : optional
            Overrides the constructor's random_state for this call (int, SeedSequence,
            Generator or kernel state advanced in place).

        Returns
        -------
        numpy.ndarray, shape (n,), labels from ``classes_``
        """
        if budget is None:
            return self._full_predict(X)
        X = self._check_X(X, finite=False)  # an attribute not examined is not read, not even to validate it
        B = check_real("budget", budget, low=0.0, strict_low=True)
        max_samples = check_int("max_samples", self.max_samples, low=1)
        c, p, cumulative, inc = self._law(costs)
        maxc = float(c[self.features_].max())
        relevant = np.zeros(self.n_features_in_, dtype=np.bool_)
        relevant[self.features_[p > 0.0]] = True
        preds, taus, n_feat, cost, votes, indptr, indices, ties, exhausted, capped = _sampled_predict_kernel(
            X, self.features_, self.thresholds_, self.polarities_, cumulative, inc, c, maxc, B, relevant,
            int(relevant.sum()), np.ascontiguousarray(self.vote_weights_), max_samples, self._state(random_state))
        self._check_examined(X, indptr, indices)
        self._record(B, c, taus, n_feat, cost, votes, indptr, indices, ties)
        self.exhausted_ = exhausted
        self.capped_ = capped
        return self.classes_[(preds > 0).astype(np.int64)]

    @staticmethod
    def _check_examined(X, indptr, indices):
        """Raise ParameterError when a feature examined (CSR ``indptr``/``indices`` per row) is not finite: a
        budgeted prediction validates the entries it reads and no other (one advanced index of X)."""
        rows = np.repeat(np.arange(X.shape[0]), np.diff(indptr))
        bad = ~np.isfinite(X[rows, indices])
        if bad.any():
            first = int(np.argmax(bad))
            raise ParameterError(f"X has a non-finite value at example {int(rows[first])}, feature "
                                 f"{int(indices[first])}, which the prediction examined")

    def _record(self, B, c, taus, n_feat, cost, votes, indptr, indices, ties):
        self.budget_ = B
        self.costs_ = c
        self.n_samples_ = taus
        self.n_features_examined_ = n_feat
        self.cost_spent_ = cost
        self.votes_ = votes
        self.examined_indptr_ = indptr
        self.examined_indices_ = indices
        self.ties_ = ties

    def examined(self, row):
        """The features examined on test row ``row`` by the last budgeted predict, in order."""
        check_is_fitted(self, "examined_indptr_")
        return self.examined_indices_[self.examined_indptr_[row]:self.examined_indptr_[row + 1]]

    def sample_path(self, X, taus, costs=None, random_state=None):
        """The box's draws without a budget: v_τ and the features examined at each τ in ``taus``.

        The first τ draws are those :meth:`predict` makes with the same stream.

        Parameters
        ----------
        X : array_like, shape (n, n_features_in_)
        taus : sequence of int
            Strictly increasing positive numbers of draws.
        costs, random_state : as in :meth:`predict`

        Returns
        -------
        SamplePath
        """
        X = self._check_X(X, finite=False)  # the features examined are checked after the draws, and no other is read
        checkpoints = np.asarray(taus)
        if checkpoints.ndim != 1 or checkpoints.size == 0 or not np.issubdtype(checkpoints.dtype, np.integer):
            raise ParameterError("taus must be a non-empty 1-D sequence of integers")
        checkpoints = checkpoints.astype(np.int64)
        if checkpoints[0] < 1 or np.any(np.diff(checkpoints) <= 0):
            raise ParameterError("taus must be positive and strictly increasing")
        c, _, cumulative, inc = self._law(costs)
        votes, n_feat, cost, indptr, indices = _sample_path_kernel(
            X, self.features_, self.thresholds_, self.polarities_, cumulative, inc, c,
            np.ascontiguousarray(checkpoints), self._state(random_state))
        self._check_examined(X, indptr, indices)
        return SamplePath(checkpoints, votes, n_feat, cost)


class AdaBoostRS(_BudgetedBoost):
    """AdaBoostRS (reyzin11 Algorithm 2): AdaBoost, then per test example sample stumps ∝ α
    until the budget rule stops, and predict the sign of the unweighted vote.

    With ``costs`` the sampling still ignores them (§4, first paragraph); they only count
    against the budget. Parameters as :class:`AdaBoostStumps`, plus:

    Parameters
    ----------
    max_samples : int, default 10**6
        Safety cap on draws per example (``capped_``).
    random_state : None, int, SeedSequence, Generator or kernel state
        The stream of the draws (overridden by ``predict(..., random_state=...)``).

    Attributes
    ----------
    (after fit) as :class:`AdaBoostStumps`.
    (after a budgeted predict, one entry per row)
    n_samples_ : int64 array, τ;  n_features_examined_ : int64 array;  cost_spent_ : float array;
    votes_ : float array, v_τ;  examined_indptr_, examined_indices_ : CSR of the features examined
    in order of first examination;  ties_, exhausted_, capped_ : bool arrays;
    budget_ : float;  costs_ : float array (n_features_in_,).
    """


class AdaBoostRSAC(_BudgetedBoost):
    """AdaBoostRS_AC (reyzin11 Algorithm 3): like :class:`AdaBoostRS`, but stumps are sampled
    ∝ α_i/c(h_i) and each vote counts ±c(h_i) (importance weighting, Theorem 5); with equal
    costs it has AdaBoostRS's law. Parameters and attributes as :class:`AdaBoostRS`."""

    _cost_aware = True


class AdaBoostDeterministic(_BudgetedBoost):
    """The deterministic rule of reyzin11 §6: take stumps in decreasing α_t/c(h_t) (ties: lower
    t first) while the budget allows, and predict the sign of Σ α_t h_t(x) over those taken.

    A stump is taken when the cost of its not yet examined feature fits, k + new ≤ B (a known
    feature costs 0). ``rule="greedy"`` skips a stump that does not fit and scans on;
    ``rule="prefix"`` stops at the first one that does not fit. ``cost_spent_ ≤ B`` always.
    A vote of 0 is broken by a fair coin from random_state. ``n_samples_`` counts the stumps
    taken; ``exhausted_``/``capped_`` are always False. Other attributes as :class:`AdaBoostRS`.
    """

    def __init__(self, n_estimators=500, criterion="error", weight_floor=0.0, rule="greedy", random_state=None):
        AdaBoostStumps.__init__(self, n_estimators=n_estimators, criterion=criterion, weight_floor=weight_floor)
        self.rule = rule
        self.random_state = random_state

    def order(self, costs=None):
        """Indices of the stumps in decreasing α/c(h) (stable: ties keep the lower index first)."""
        ratio = self.alphas_ / self.hypothesis_costs(costs)
        return np.argsort(-ratio, kind="stable")

    def predict(self, X, budget=None, costs=None, random_state=None):
        """As :meth:`AdaBoostRS.predict`, with §6's deterministic choice of stumps."""
        if budget is None:
            return self._full_predict(X)
        if self.rule not in ("greedy", "prefix"):
            raise ParameterError(f"rule must be 'greedy' or 'prefix', got {self.rule!r}")
        X = self._check_X(X, finite=False)  # the features taken are checked after, and no other is read
        B = check_real("budget", budget, low=0.0, strict_low=True)
        c = self._costs(costs)
        order = np.ascontiguousarray(self.order(c))
        preds, taken, n_feat, cost, votes, indptr, indices, ties = _deterministic_kernel(
            X, self.features_, self.thresholds_, self.polarities_, self.alphas_, order, c, B,
            self.rule == "prefix", self._state(random_state))
        self._check_examined(X, indptr, indices)
        self._record(B, c, taken, n_feat, cost, votes, indptr, indices, ties)
        self.exhausted_ = np.zeros(X.shape[0], dtype=np.bool_)
        self.capped_ = np.zeros(X.shape[0], dtype=np.bool_)
        return self.classes_[(preds > 0).astype(np.int64)]

    def sample_path(self, X, taus, costs=None, random_state=None):
        """Not defined for the deterministic rule."""
        raise ParameterError("AdaBoostDeterministic draws nothing; sample_path is for AdaBoostRS / AdaBoostRSAC")
