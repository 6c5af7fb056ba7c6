"""Successive elimination over coordinates: a purpose-built bandit learner for a 1-sparse w*.

cbss11's lower bound (Theorem 1, Appendix A.3–A.6) turns a learner into a best-arm bandit: each
coordinate i is an arm, and reading attribute i of an example is a pull whose reward is
x_i·y. On the good-feature distribution P_j (A.1) the mean reward is E[x_i y] = 2p·1{i = j} and
w* = 2p·e_j, so a learner "as good as the structure allows" is a best-arm identification
algorithm followed by an estimate of one coefficient. This one is successive elimination
(Even-Dar, Mannor and Mansour 2006) on |E[x_i y]|:

* the arms still active are read in a cycle, at most k of them per example (each at most once
  per example, so ``n_attributes_seen_`` counts distinct attributes); a pass ends the example it
  completes, so that no attribute of an example is read twice after an elimination;
* after every full pass each active arm has n samples of x_i·y; with the Hoeffding radius
  r_n = scale·√(2 ln(4 d n²/δ)/n) (values in [−scale, scale]; a union bound over the d arms and
  every n, since Σ 1/n² ≤ 2), an arm is dropped when |ĉ_i| + r_n < max_l |ĉ_l| − r_n. With
  probability ≥ 1 − δ the arm of largest |E[x_i y]| is never dropped;
* once one arm is left it alone is read, one attribute per example, refining its estimate;
* the output is w = clip(ĉ_I/ŝ_I, −B, B)·e_I for the active arm I of largest ĉ_i²/ŝ_i (the
  largest drop in risk a single coordinate gives; ŝ_i is the mean of x_i², 1 on ±1 data), ties
  broken uniformly at random with the estimator's own stream.

The data the learner gets is a dense X for scikit-learn compatibility; the kernel touches only
the attributes it counts. Per example it costs O(k); each pass ends with an O(active) check.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..rng import next_uniform
from ..validation import check_int, check_real
from ._common import (
    BudgetedRegressor,
    _checked,
    check_lasso_budget,
    check_radius,
    check_reads,
    fit_data,
    reads_guard,
    state_from,
)

__all__ = ["SequentialSearch", "SuccessiveElimination"]


@njit(cache=True)
def _elimination_kernel(X, y, k, delta, scale, B, state, bad):
    """Returns (coef, n_attributes_read, active arms (sorted), samples per arm)."""
    m, d = X.shape
    active = np.arange(d)
    n_active = d
    sums = np.zeros(d)  # Σ x_i y over arm i's samples
    squares = np.zeros(d)  # Σ x_i²
    counts = np.zeros(d, dtype=np.int64)
    pos = 0
    n_read = 0
    for t in range(m):
        reads = min(k, n_active)
        for _ in range(reads):
            i = active[pos]
            x = _checked(X[t, i], t, i, bad)
            sums[i] += x * y[t]
            squares[i] += x * x
            counts[i] += 1
            n_read += 1
            pos += 1
            if pos == n_active:  # a full pass: every active arm has the same count n
                pos = 0
                if n_active > 1:
                    n = counts[active[0]]
                    rad = scale * math.sqrt(2.0 * math.log(4.0 * d * n * n / delta) / n)
                    best = 0.0
                    for r in range(n_active):
                        best = max(best, abs(sums[active[r]]) / n)
                    kept = 0
                    for r in range(n_active):
                        a = active[r]
                        if abs(sums[a]) / n + rad >= best - rad:
                            active[kept] = a
                            kept += 1
                    n_active = kept
                break  # a pass ends its example
    # read-out: the active arm of largest ĉ²/ŝ, ties uniformly at random (reservoir)
    coef = np.zeros(d)
    best_arm = -1
    best_score = -1.0
    ties = 0
    for r in range(n_active):
        a = active[r]
        if counts[a] == 0:
            continue
        score = 0.0 if squares[a] == 0.0 else sums[a] * sums[a] / (squares[a] * counts[a])
        if score > best_score:
            best_arm, best_score, ties = a, score, 1
        elif score == best_score:
            ties += 1
            if next_uniform(state) * ties < 1.0:
                best_arm = a
    if best_arm >= 0 and squares[best_arm] > 0.0:
        coef[best_arm] = min(B, max(-B, sums[best_arm] / squares[best_arm]))
    return coef, n_read, np.sort(active[:n_active]), counts


class SuccessiveElimination(BudgetedRegressor):
    """Best-arm identification over coordinates, then one coefficient (see the module docstring).

    Parameters
    ----------
    k : int or None, default None
        Attributes read per example, at most (the active arms are read in a cycle); None: every
        active arm of each example (a global-budget learner, the setting of cbss11 Theorem 1).
    B : float, default 1.0
        The output's one non-zero entry is clipped to [−B, B] (it lies in every ball of radius B).
    delta : float, default 0.05
        Confidence of the elimination: with probability ≥ 1 − δ the best arm is never dropped.
    scale : float, default 1.0
        A bound on |x_i·y| (1 on ±1 data), the range of the Hoeffding radius.
    random_state : None, int, SeedSequence, Generator or kernel state
        Breaks ties of the read-out.

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
        One non-zero entry at most.
    intercept_ : float
        Always 0.0.
    n_attributes_seen_ : int
        Attributes read (each at most once per example), counted in the kernel.
    active_ : numpy.ndarray
        The arms not eliminated, sorted.
    samples_ : numpy.ndarray, shape (d,)
        Samples of x_i·y read per arm.
    n_features_in_ : int
    """

    def __init__(self, k=None, B=1.0, delta=0.05, scale=1.0, random_state=None):
        self.k = k
        self.B = B
        self.delta = delta
        self.scale = scale
        self.random_state = random_state

    def fit(self, X, y):
        """Run successive elimination over the rows of X in order.

        Parameters
        ----------
        X : array_like, shape (m, d)
        y : array_like, shape (m,)

        Returns
        -------
        self
        """
        X, y = fit_data(self, X, y)
        d = X.shape[1]
        k = d if self.k is None else check_int("k", self.k, low=1)
        B = check_radius(self.B)
        delta = check_real("delta", self.delta, low=0.0, high=1.0, strict_low=True, strict_high=True)
        scale = check_real("scale", self.scale, low=0.0, strict_low=True)
        bad = reads_guard()
        coef, n_read, active, counts = _elimination_kernel(X, y, int(min(k, d)), delta, scale, B,
                                                           state_from(self.random_state), bad)
        check_reads(X, bad)
        self.coef_ = coef
        self.intercept_ = 0.0
        self.n_attributes_seen_ = int(n_read)
        self.active_ = active
        self.samples_ = counts
        return self


@njit(cache=True)
def _search_kernel(X, y, k, p, reject, accept, state, bad):
    """Returns (coef index, n_attributes_read, accepted arm or −1, log-likelihood ratios)."""
    m, d = X.shape
    up = math.log(1.0 + 2.0 * p)  # log-likelihood ratio of x_i·y = +1 (good arm against a fair one)
    down = math.log(1.0 - 2.0 * p)  # ... of x_i·y = −1
    total = np.zeros(d)  # over all of the arm's reads
    test = np.zeros(d)  # over the reads of its current test
    held = np.zeros(d, dtype=np.bool_)
    slots = np.empty(k, dtype=np.int64)
    pointer = 0
    for s in range(k):  # k ≤ d: the first k arms
        slots[s] = pointer
        held[pointer] = True
        pointer = (pointer + 1) % d
    accepted = -1
    n_read = 0
    for t in range(m):
        if accepted >= 0:
            break
        for s in range(k):
            i = slots[s]
            x = _checked(X[t, i], t, i, bad)
            step = up if x * y[t] > 0.0 else down
            total[i] += step
            test[i] += step
            n_read += 1
            if total[i] >= accept:
                accepted = i
                break
            if test[i] <= -reject:  # rejected: the slot takes the next arm no slot holds, its test afresh
                held[i] = False
                for c in range(d):
                    cand = (pointer + c) % d
                    if not held[cand]:
                        slots[s] = cand
                        held[cand] = True
                        test[cand] = 0.0
                        pointer = (cand + 1) % d
                        break
    if accepted >= 0:
        return accepted, n_read, accepted, total
    best, ties = 0, 0  # the posterior mode (uniform prior on j), ties uniformly at random (reservoir)
    for i in range(d):
        if ties == 0 or total[i] > total[best]:
            best, ties = i, 1
        elif total[i] == total[best]:
            ties += 1
            if next_uniform(state) * ties < 1.0:
                best = i
    return best, n_read, -1, total


class SequentialSearch(BudgetedRegressor):
    """A learner that knows the form of cbss11's P_j (Appendix A.1) and searches for its good coordinate.

    On P_j, y is uniform on ±1 and x_i = y with probability ½ + p·1{i = j}, p = √ε, so w* = 2p·e_j and the
    learner needs only j. It runs Wald's sequential probability-ratio test on the coordinates, k at a time: each
    of k slots tests one coordinate, reading it once per example (k attributes per example, each at most once);
    a read adds ln(1 + 2p) to the coordinate's log-likelihood ratio (good against fair) when x_i·y = +1 and
    ln(1 − 2p) otherwise. A coordinate whose ratio over its current test falls to −ln(1/β) is rejected and its
    slot takes the next coordinate no slot holds, in cyclic order (a coordinate rejected by mistake is tested
    afresh on the next cycle); one whose ratio over all its reads reaches ln(d/α) is accepted, and reading stops.
    The output is 2p·e_I (clipped to [−B, B]) for the accepted coordinate, or else for the posterior mode
    (largest total ratio: the most likely j under a uniform prior, given every read), ties uniformly at random.

    This is the strongest learner for P_j written here for cbss11.thm1's tightness: it is told p, reads k
    attributes per example and spends them on the search alone. Its data must be ±1 (x_i·y > 0 is read as
    agreement).

    Parameters
    ----------
    k : int, default 1
        Attributes read per example (1 ≤ k ≤ d).
    eps : float
        The ε of P_j (0 < ε < 1/4): p = √ε.
    B : float, default 1.0
        The output's one non-zero entry is clipped to [−B, B].
    alpha : float, default 0.05
        Acceptance threshold ln(d/α): a fair coordinate is accepted with probability ≤ α/d per test (Wald).
    beta : float, default 0.5
        Rejection threshold ln(1/β): the good coordinate is rejected with probability ≤ β per test (Wald). A
        rejected good coordinate costs one more cycle, so the search costs about (½ + β/(1 − β))·ln(1/β) reads
        per fair coordinate and per unit of information; 0.5 minimises that factor.
    random_state : None, int, SeedSequence, Generator or kernel state
        Breaks ties of the posterior mode.

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
    intercept_ : float
        Always 0.0.
    n_attributes_seen_ : int
        Attributes read, counted in the kernel.
    accepted_ : int
        The coordinate accepted, −1 when none was (the output is then the posterior mode).
    log_ratios_ : numpy.ndarray, shape (d,)
        Each coordinate's total log-likelihood ratio.
    n_features_in_ : int
    """

    def __init__(self, k=1, eps=None, B=1.0, alpha=0.05, beta=0.5, random_state=None):
        self.k = k
        self.eps = eps
        self.B = B
        self.alpha = alpha
        self.beta = beta
        self.random_state = random_state

    def fit(self, X, y):
        """Search the rows of X in order (see the class docstring); returns self."""
        X, y = fit_data(self, X, y)
        d = X.shape[1]
        k = check_lasso_budget(self.k, d)
        eps = check_real("eps", self.eps, low=0.0, high=0.25, strict_low=True, strict_high=True)
        B = check_radius(self.B)
        alpha = check_real("alpha", self.alpha, low=0.0, high=1.0, strict_low=True, strict_high=True)
        beta = check_real("beta", self.beta, low=0.0, high=1.0, strict_low=True, strict_high=True)
        p = math.sqrt(eps)
        bad = reads_guard()
        best, n_read, accepted, ratios = _search_kernel(X, y, k, p, math.log(1.0 / beta), math.log(d / alpha),
                                                        state_from(self.random_state), bad)
        check_reads(X, bad)
        self.coef_ = np.zeros(d)
        self.coef_[best] = min(B, 2.0 * p)
        self.intercept_ = 0.0
        self.n_attributes_seen_ = int(n_read)
        self.accepted_ = int(accepted)
        self.log_ratios_ = ratios
        return self
