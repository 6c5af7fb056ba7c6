"""Feature multi-selection (Sabato & Kalai, ICML 2013): how many judgments of each feature to buy.

Training data is an array ``J`` of shape (m, d, k): k ≥ 2 judgments of each of d features for
each of m labelled objects, and labels ``y`` (m,). A selector chooses a repeat vector r ∈ R_B
(r[a] judgments of feature a, total cost Σ costs[a]·r[a] ≤ B) and, once the training set has
been topped up to r judgments (see :meth:`theorycheck.generators.crowds.Crowd.means`), fits the
final predictor by least squares on the averages X̄ (§4).

==========================  ==================================================================
object                      paper
==========================  ==================================================================
:func:`var_est`             VarEst, eq. (2): the unbiased variance of n ≥ 2 values (1/(n − 1))
:func:`crowd_statistics`    Alg. 1 lines 3–5 (x̄, b̂, v̂) and the second moment of x̄
:func:`external_variance`   Alg. 1 line 7: σ̂²[a] = max{0, (1/m)Σ x̄_i[a]² − v̂[a]/k}
:func:`external_covariance` Alg. 1 line 10 before MakePSD: (1/m)Σ x̄_i x̄_iᵀ − Diag(v̂)/k
:func:`make_psd`            §3.4, MakePSD: nearest PSD matrix in Frobenius norm (Higham 1988)
:func:`scoring_objective`   eq. (1) / Alg. 1 line 8: Σ_{r[a]>0} b[a]²/(σ²[a] + v[a]/r[a])
:func:`full_objective`      Alg. 1 lines 11–12: sub_r(b)ᵀ sub_r(Σ + Diag(v/r))⁺ sub_r(b)
:func:`r_loss`              Appendix A.2: the r-loss ℓ_r(w, S) (Lemma A.2: unbiased for ℓ(w, D_r))
:func:`greedy_repeats`      Alg. 1 lines 14–18 (with per-feature costs)
:func:`brute_force_repeats` the maximum over all of R_B (the reference of Theorem 3.2)
:class:`ScoringSelector`    Alg. 1, Scoring (§3.1)
:class:`FullSelector`       Alg. 1, Full (§3.2)
:class:`AveragesSelector`   §4 baseline 'Averages' (Isola et al. 2011): forward selection on
                            the k-averages, r[a] ∈ {0, k}
:class:`CopiesSelector`     §4 baseline 'Copies': forward selection over the k·d single
                            judgments, r[a] = copies of a selected
:class:`CrowdAverageSelector` §4 baseline for height and weight: the crowd's numerical estimate
                            alone, ⌊B/cost⌋ judgments averaged
==========================  ==================================================================

Normalisation (the one thing to know when comparing with a closed form). With
``fit_intercept=False`` (the default) the selectors compute exactly Algorithm 1 as printed:
x̄_i[a] = (1/k)Σ_j J[i, a, j], b̂ = (1/m)Σ_i y_i x̄_i, v̂[a] = (1/m)Σ_i VarEst(J[i, a, :]),
σ̂²[a] = max{0, (1/m)Σ_i x̄_i[a]² − v̂[a]/k}, Σ̂ = MakePSD((1/m)Σ_i x̄_i x̄_iᵀ − Diag(v̂)/k),
no centring and no bias feature (the paper's zero-mean assumption, §2). With
``fit_intercept=True`` (§3.4: a free constant feature), the averages x̄_i and the labels are
first centred by their empirical means over the m objects (v̂ is unchanged: VarEst is
shift-invariant), the same formulas are applied to the centred data, and the final predictor
has an intercept; for Full this is the constant feature's Schur complement, so the objective
omits the constant ȳ², which changes no choice. Greedy ties go to the lowest feature index;
with costs, each step takes the largest objective gain per unit cost among the features still
affordable (with unit costs: Alg. 1 line 16 exactly, B steps).
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Rational

import numpy as np
from sklearn.base import BaseEstimator

from ..validation import ParameterError, check_int, check_matrix

__all__ = ["AveragesSelector", "CopiesSelector", "CrowdAverageSelector", "CrowdStatistics", "FullSelector",
           "ScoringSelector", "brute_force_repeats", "crowd_statistics", "external_covariance", "external_variance",
           "full_objective", "greedy_repeats", "make_psd", "r_loss", "repeat_vectors", "scoring_objective",
           "solve_exact", "var_est"]


# ---------------------------------------------------------------------- eq. (2)
def var_est(values, axis: int = -1):
    """VarEst(α₁, …, α_n) = (1/(n − 1))·Σ_j (α_j − ᾱ)², eq. (2), along ``axis``.

    Float arrays are reduced with NumPy; a sequence of :class:`fractions.Fraction` (or ints) is
    computed exactly and returns a Fraction. Needs n ≥ 2 values.
    """
    if isinstance(values, list | tuple) and values and all(isinstance(v, Rational) for v in values):
        n = len(values)
        if n < 2:
            raise ParameterError(f"VarEst needs at least 2 values, got {n}")
        mean = sum(map(Fraction, values), Fraction(0)) / n
        return sum(((Fraction(v) - mean) ** 2 for v in values), Fraction(0)) / (n - 1)
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[axis] < 2:
        raise ParameterError(f"VarEst needs at least 2 values along axis {axis}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError("VarEst got NaN or infinite values")
    return arr.var(axis=axis, ddof=1)


# ---------------------------------------------------------------------- Alg. 1, lines 3–10
class CrowdStatistics:
    """The estimates of Algorithm 1 from (J, y): ``xbar`` (m, d), ``b`` (b̂), ``v`` (v̂),
    ``second`` ((1/m)Σ x̄x̄ᵀ), ``k``, ``m``, and the empirical means used when centring."""

    def __init__(self, xbar, y, v, k, x_mean, y_mean):
        self.xbar, self.y, self.v, self.k = xbar, y, v, int(k)
        self.m = xbar.shape[0]
        self.x_mean, self.y_mean = x_mean, y_mean
        self.b = xbar.T @ y / self.m
        self.second = xbar.T @ xbar / self.m


def _check_training(J, y=None):
    J = check_matrix("J", J, ndim=3)
    m, d, k = J.shape
    if m < 1 or d < 1:
        raise ParameterError(f"J must hold at least one object and one feature, got shape {J.shape}")
    if k < 2:
        raise ParameterError(f"Algorithm 1 needs k ≥ 2 judgments of every feature (VarEst), got k = {k}")
    if y is None:
        return J, None
    y = check_matrix("y", y, ndim=1)
    if y.shape[0] != m:
        raise ParameterError(f"y has {y.shape[0]} labels for {m} objects")
    return J, y


def crowd_statistics(J, y=None, *, centre: bool = False) -> CrowdStatistics:
    """Alg. 1 lines 3–5 on training data J (m, d, k) and labels y (m,) (zeros when omitted);
    ``centre`` subtracts the empirical means of x̄ and y first (§3.4)."""
    J, y = _check_training(J, y)
    y = np.zeros(J.shape[0]) if y is None else y
    xbar = J.mean(axis=2)
    v = var_est(J, axis=2).mean(axis=0)
    x_mean, y_mean = xbar.mean(axis=0), float(y.mean())
    if centre:
        xbar, y = xbar - x_mean, y - y_mean
    return CrowdStatistics(xbar, y, v, J.shape[2], x_mean, y_mean)


def external_variance(J, *, centre: bool = False) -> np.ndarray:
    """σ̂²[a] = max{0, (1/m)Σ_i x̄_i[a]² − v̂[a]/k} (Alg. 1 line 7)."""
    s = crowd_statistics(J, centre=centre)
    return np.maximum(0.0, np.diag(s.second) - s.v / s.k)


def external_covariance(J, *, centre: bool = False, psd: bool = False) -> np.ndarray:
    """(1/m)Σ_i x̄_i x̄_iᵀ − Diag(v̂)/k (Alg. 1 line 10), through :func:`make_psd` when ``psd``."""
    s = crowd_statistics(J, centre=centre)
    raw = s.second - np.diag(s.v / s.k)
    return make_psd(raw) if psd else raw


# ---------------------------------------------------------------------- §3.4, MakePSD
def make_psd(A) -> np.ndarray:
    """The PSD matrix nearest to A in Frobenius norm (Higham 1988, Theorem 2.1).

    For a symmetric A = U D Uᵀ it is U max(D, 0) Uᵀ (§3.4); for any square A, the nearest
    symmetric PSD matrix is that of the symmetric part (A + Aᵀ)/2, which is what is returned.
    """
    A = check_matrix("A", A)
    if A.shape[0] != A.shape[1]:
        raise ParameterError(f"MakePSD needs a square matrix, got shape {A.shape}")
    if A.shape[0] == 0:
        return A.copy()
    S = 0.5 * (A + A.T)
    vals, vecs = np.linalg.eigh(S)
    out = (vecs * np.maximum(vals, 0.0)) @ vecs.T
    return 0.5 * (out + out.T)


# ---------------------------------------------------------------------- objectives
def _is_exact(*arrays) -> bool:
    return any(isinstance(a, list | tuple) and a and isinstance(a[0], Fraction) for a in arrays)


def scoring_objective(r, b, sigma2, v):
    """The Scoring objective, eq. (1) (Alg. 1 line 8): Σ_{a: r[a] > 0} b[a]²/(σ²[a] + v[a]/r[a]).

    A term whose denominator is 0 counts as 0 (§3.1). With the population b, σ² = diag Σ and v
    it is E[Y²] − ℓ(r) when Σ is diagonal; with Algorithm 1's estimates it is obĵ_s(r). Exact
    when b, σ², v are sequences of Fractions (returns a Fraction), float otherwise.
    """
    if _is_exact(b, sigma2, v):
        total = Fraction(0)
        for ra, ba, sa, va in zip(r, b, sigma2, v, strict=True):
            if ra > 0:
                den = Fraction(sa) + Fraction(va) / int(ra)
                total += Fraction(ba) ** 2 / den if den != 0 else Fraction(0)
        return total
    r = np.asarray(r)
    b, sigma2, v = (np.asarray(x, dtype=np.float64) for x in (b, sigma2, v))
    on = r > 0
    den = sigma2[on] + v[on] / r[on]
    num = b[on] ** 2
    safe = den > 0
    return float(np.sum(num[safe] / den[safe]))


def solve_exact(M, c):
    """x with M x = c for a non-singular rational M (Gauss–Jordan in Fractions); raises
    ZeroDivisionError when M is singular."""
    n = len(c)
    aug = [[Fraction(M[i][j]) for j in range(n)] + [Fraction(c[i])] for i in range(n)]
    for col in range(n):
        piv = next((i for i in range(col, n) if aug[i][col] != 0), None)
        if piv is None:
            raise ZeroDivisionError("singular matrix")
        aug[col], aug[piv] = aug[piv], aug[col]
        p = aug[col][col]
        aug[col] = [x / p for x in aug[col]]
        for i in range(n):
            if i != col and aug[i][col] != 0:
                f = aug[i][col]
                aug[i] = [x - f * y for x, y in zip(aug[i], aug[col], strict=True)]
    return [aug[i][n] for i in range(n)]


def full_objective(r, b, Sigma, v):
    """The Full objective, Alg. 1 lines 11–12: sub_r(b)ᵀ M_r⁺ sub_r(b) with
    M_r = sub_r(Σ + Diag(v[1]/r[1], …, v[d]/r[d])) (pseudo-inverse, so singular M_r is allowed).

    With the population b, Σ, v it is E[Y²] − ℓ(r) for any Σ; with Algorithm 1's estimates
    (Σ = MakePSD(…)) it is obĵ_f(r). Exact with Fractions when M_r is non-singular.
    """
    on = [a for a, ra in enumerate(r) if ra > 0]
    if not on:
        return Fraction(0) if _is_exact(b, v) else 0.0
    if _is_exact(b, v):
        M = [[Fraction(Sigma[i][j]) + (Fraction(v[i]) / int(r[i]) if i == j else 0) for j in on] for i in on]
        c = [Fraction(b[i]) for i in on]
        return sum((x * y for x, y in zip(c, solve_exact(M, c), strict=True)), Fraction(0))
    r = np.asarray(r)
    b, v, Sigma = np.asarray(b, dtype=np.float64), np.asarray(v, dtype=np.float64), np.asarray(Sigma, dtype=np.float64)
    idx = np.asarray(on)
    M = Sigma[np.ix_(idx, idx)] + np.diag(v[idx] / r[idx])
    c = b[idx]
    vals, vecs = np.linalg.eigh(0.5 * (M + M.T))
    keep = vals > max(vals.max(initial=0.0), 0.0) * len(idx) * np.finfo(float).eps
    proj = vecs[:, keep].T @ c
    return float(np.sum(proj**2 / vals[keep]))


def r_loss(w, r, J, y):
    """ℓ_r(w, S): the r-loss of Appendix A.2 averaged over the training set S = (J, y).

    For one object with k[i] ≥ 2 judgments x[i](1..k[i]) of each feature i, average x̄[i] and
    label y, ℓ_r(w, x, y) = (⟨Z_r w, x̄⟩ − y)² + Σ_{i: r[i] > 0} w[i]²·VarEst(x[i](·))·(1/r[i] − 1/k[i]),
    with Z_r the 0/1 diagonal of r > 0; ℓ_r(w, S) is its mean over the m objects. Lemma A.2:
    its expectation over S is ℓ(w, D_r), the loss of w on objects judged r[i] times.

    ``J`` is either a float array (m, d, k) (the same k for every feature) or, for exact
    arithmetic, a sequence of m objects, each a sequence of d sequences of judgments (Fractions or
    ints; feature i may hold its own number k[i] ≥ 2 of them); then ``w`` and ``y`` are rationals
    and a Fraction is returned.
    """
    if isinstance(J, list | tuple):
        m = len(J)
        if m < 1 or len(y) != m:
            raise ParameterError(f"r_loss needs at least one object and one label per object, got {m} and {len(y)}")
        d = len(w)
        if len(r) != d or any(int(x) < 0 for x in r) or any(len(obj) != d for obj in J):
            raise ParameterError(f"r_loss: w, r and every object must have the same number {d} of features")
        total = Fraction(0)
        for obj, label in zip(J, y, strict=True):
            pred = sum((Fraction(w[i]) * sum(map(Fraction, obj[i]), Fraction(0)) / len(obj[i])
                        for i in range(d) if r[i] > 0), Fraction(0))
            total += (pred - Fraction(label)) ** 2
            for i in range(d):
                if r[i] > 0:
                    spread = Fraction(1, int(r[i])) - Fraction(1, len(obj[i]))
                    total += Fraction(w[i]) ** 2 * var_est(list(obj[i])) * spread
        return total / m
    J, y = _check_training(J, y)
    m, d, k = J.shape
    w = check_matrix("w", w, ndim=1)
    r = np.asarray(r)
    if w.shape != (d,) or r.shape != (d,) or np.any(r < 0):
        raise ParameterError(f"r_loss: w and r must be {d}-vectors, r ≥ 0; got shapes {w.shape} and {r.shape}")
    on = r > 0
    z = np.where(on, w, 0.0)
    correction = np.where(on, z**2 * (1.0 / np.maximum(r, 1) - 1.0 / k), 0.0)
    return float(np.mean((J.mean(axis=2) @ z - y) ** 2 + var_est(J, axis=2) @ correction))


# ---------------------------------------------------------------------- greedy and brute force
def _costs(costs, d):
    if costs is None:
        return np.ones(d, dtype=np.int64)
    c = np.asarray(costs)
    if c.shape != (d,) or not np.all(np.mod(c, 1) == 0) or np.any(c < 1):
        raise ParameterError(f"costs must be {d} positive integers, got {costs!r}")
    return c.astype(np.int64)


def greedy_repeats(objective, d: int, budget: int, costs=None):
    """Alg. 1 lines 14–18: start at r = 0 and repeatedly add the judgment that increases
    ``objective`` the most (per unit cost), while some feature is affordable.

    Returns (r, path): the final repeat vector (int64 array) and the features added in order.
    ``objective(r)`` may return floats or Fractions (then the choice is exact). Ties go to the
    lowest index. With unit costs this is exactly B steps of line 16.
    """
    d = check_int("d", d, low=1)
    budget = check_int("budget", budget, low=0)
    c = _costs(costs, d)
    r = np.zeros(d, dtype=np.int64)
    path, left = [], budget
    current = objective(r)
    while True:
        best, best_gain, best_value = -1, None, None
        for a in range(d):
            if c[a] > left:
                continue
            r[a] += 1
            value = objective(r)
            r[a] -= 1
            gain = (value - current) / int(c[a]) if c[a] != 1 else value - current
            if best_gain is None or gain > best_gain:
                best, best_gain, best_value = a, gain, value
        if best < 0:
            return r, path
        r[best] += 1
        left -= int(c[best])
        path.append(best)
        current = best_value


def repeat_vectors(d: int, budget: int, costs=None):
    """Every r ∈ R_B = {r ∈ ℕ^d : Σ costs[a]·r[a] ≤ B} (r = 0 included)."""
    d = check_int("d", d, low=1)
    budget = check_int("budget", budget, low=0)
    c = _costs(costs, d)

    def rec(a, left):
        if a == d:
            yield ()
            return
        for n in range(left // int(c[a]) + 1):
            for rest in rec(a + 1, left - n * int(c[a])):
                yield (n, *rest)

    for r in rec(0, budget):
        yield np.array(r, dtype=np.int64)


def brute_force_repeats(objective, d: int, budget: int, costs=None):
    """(r, value): a maximiser of ``objective`` over all of R_B (first in lexicographic order)."""
    best, best_value = None, None
    for r in repeat_vectors(d, budget, costs):
        value = objective(r)
        if best_value is None or value > best_value:
            best, best_value = r, value
    return best, best_value


# ---------------------------------------------------------------------- selectors
class _Selector(BaseEstimator):
    """Shared parts: validation, the final least-squares predictor on the averages."""

    def __init__(self, budget: int = 10, costs=None, fit_intercept: bool = False):
        self.budget = budget
        self.costs = costs
        self.fit_intercept = fit_intercept

    def _validate(self, J, y):
        J, y = _check_training(J, y)
        check_int("budget", self.budget, low=0)
        if not isinstance(self.fit_intercept, bool | np.bool_):
            raise ParameterError(f"fit_intercept must be true or false, got {self.fit_intercept!r}")
        self.n_features_in_, self.k_ = J.shape[1], J.shape[2]
        self.costs_ = _costs(self.costs, J.shape[1])
        return J, y

    def fit_predictor(self, means, y):
        """Least squares (minimum norm) on the averages ``means`` (m, d) of the training set
        topped up to ``r_`` judgments; features with r_[a] = 0 get coefficient 0. Sets ``coef_``
        and ``intercept_`` (0 unless ``fit_intercept``). Returns self."""
        if not hasattr(self, "r_"):
            raise ParameterError("call fit(J, y) first: the predictor uses the chosen r_")
        means = check_matrix("means", means)
        y = check_matrix("y", y, ndim=1)
        if means.shape != (y.shape[0], self.n_features_in_):
            raise ParameterError(f"means must have shape ({y.shape[0]}, {self.n_features_in_}), got {means.shape}")
        on = self.r_ > 0
        X = means[:, on]
        x0, y0 = (X.mean(axis=0), float(y.mean())) if self.fit_intercept else (np.zeros(X.shape[1]), 0.0)
        w = np.linalg.lstsq(X - x0, y - y0, rcond=None)[0] if on.any() else np.zeros(0)
        self.coef_ = np.zeros(self.n_features_in_)
        self.coef_[on] = w
        self.intercept_ = float(y0 - w @ x0)
        return self

    def predict(self, means):
        """⟨coef_, x̄⟩ + intercept_ for averages ``means`` (n, d) taken with repeat vector r_."""
        means = check_matrix("means", means)
        if means.shape[1] != self.n_features_in_:
            raise ParameterError(f"means must have {self.n_features_in_} columns, got {means.shape[1]}")
        return means @ self.coef_ + self.intercept_


class ScoringSelector(_Selector):
    """Algorithm 1, Scoring (§3.1): greedy maximisation of obĵ_s (eq. (1) with Alg. 1's
    estimates), which Theorem 3.2 says is optimal over R_B.

    Parameters: ``budget`` B, ``costs`` (per-feature judgment costs, default 1),
    ``fit_intercept`` (False: Alg. 1 as printed; True: §3.4's centring and bias feature; see the
    module docstring). After ``fit(J, y)``: ``r_``, ``path_`` (features added in order),
    ``b_``, ``v_``, ``sigma2_`` (the estimates) and ``objective(r)`` = obĵ_s(r).
    """

    def fit(self, J, y):
        J, y = self._validate(J, y)
        s = crowd_statistics(J, y, centre=self.fit_intercept)
        self.b_, self.v_ = s.b, s.v
        self.sigma2_ = np.maximum(0.0, np.diag(s.second) - s.v / s.k)
        self.r_, self.path_ = self._greedy(self.objective)
        return self

    def _greedy(self, objective):
        return greedy_repeats(objective, self.n_features_in_, self.budget, self.costs_)

    def objective(self, r) -> float:
        """obĵ_s(r) = Σ_{r[a]>0} b̂[a]²/(σ̂²[a] + v̂[a]/r[a]) (Alg. 1 line 8)."""
        return scoring_objective(r, self.b_, self.sigma2_, self.v_)


class FullSelector(ScoringSelector):
    """Algorithm 1, Full (§3.2): greedy maximisation of obĵ_f(r) = sub_r(b̂)ᵀ M_r⁺ sub_r(b̂) with
    Σ̂ = MakePSD((1/m)Σ x̄x̄ᵀ − Diag(v̂)/k). Same parameters as :class:`ScoringSelector`, and
    ``intercept`` (used when ``fit_intercept``): "centre" (the default) centres x̄ and y and works
    on the d × d matrix, as Scoring does; "constant" is §3.4's construction for Full: a free
    feature x̄[0] ≡ 1 (v̂[0] = 0, always selected, no cost) is prepended and MakePSD is applied to
    the (d + 1) × (d + 1) matrix, with no centring. After ``fit``: ``r_``, ``path_``, ``b_``,
    ``v_``, ``Sigma_`` (of size d + 1, index 0 the constant, with "constant") and
    ``objective(r)`` for r ∈ ℕ^d."""

    def __init__(self, budget: int = 10, costs=None, fit_intercept: bool = False, intercept: str = "centre"):
        super().__init__(budget=budget, costs=costs, fit_intercept=fit_intercept)
        self.intercept = intercept

    def fit(self, J, y):
        J, y = self._validate(J, y)
        if self.intercept not in ("centre", "constant"):
            raise ParameterError(f"intercept must be 'centre' or 'constant', got {self.intercept!r}")
        self.constant_ = bool(self.fit_intercept) and self.intercept == "constant"
        s = crowd_statistics(J, y, centre=bool(self.fit_intercept) and not self.constant_)
        if self.constant_:
            x = np.column_stack([np.ones(s.m), s.xbar])
            self.b_, self.v_, second = x.T @ s.y / s.m, np.r_[0.0, s.v], x.T @ x / s.m
        else:
            self.b_, self.v_, second = s.b, s.v, s.second
        self.Sigma_ = make_psd(second - np.diag(self.v_ / s.k))
        self.r_, self.path_ = self._greedy(self.objective)
        return self

    def objective(self, r) -> float:
        """obĵ_f(r) (Alg. 1 lines 11–12); with the constant feature, of (1, r)."""
        if getattr(self, "constant_", False):
            r = np.r_[1, np.asarray(r, dtype=np.int64)]
        return full_objective(r, self.b_, self.Sigma_, self.v_)


def _forward_selection(columns, y, cost, budget, intercept):
    """Greedy forward least squares: add the affordable column that lowers the training residual
    sum of squares most per unit cost, until none is affordable (or none lowers it). Returns the
    chosen column indices in order."""
    X = columns - columns.mean(axis=0) if intercept else columns.copy()
    res = y - y.mean() if intercept else y.copy()
    n, p = X.shape
    chosen, left = [], budget
    Q = np.zeros((n, 0))
    free = np.ones(p, dtype=bool)
    scale = max(float(np.abs(X).max(initial=0.0)), 1.0) * np.sqrt(n)
    while True:
        allowed = free & (cost <= left)
        if not allowed.any():
            return chosen
        U = X - Q @ (Q.T @ X) if Q.shape[1] else X
        norms = np.einsum("ij,ij->j", U, U)
        ok = allowed & (norms > (1e-10 * scale) ** 2)
        if not ok.any():
            return chosen
        gain = np.where(ok, (U.T @ res) ** 2 / np.where(ok, norms, 1.0), -np.inf) / cost
        j = int(np.argmax(gain))
        q = U[:, j] / np.sqrt(norms[j])
        Q = np.column_stack([Q, q])
        res = res - q * (q @ res)
        chosen.append(j)
        free[j] = False
        left -= int(cost[j])


class AveragesSelector(_Selector):
    """§4 baseline 'Averages' (the predictive feature selection of Isola et al. 2011): average
    the k judgments, then add features one at a time by forward least squares on the training
    set; a selected feature costs k judgments (r[a] = k). Sets ``r_`` and ``path_``."""

    def fit(self, J, y):
        J, y = self._validate(J, y)
        k = J.shape[2]
        chosen = _forward_selection(J.mean(axis=2), y, self.costs_ * k, self.budget, self.fit_intercept)
        self.path_ = chosen
        self.r_ = np.zeros(J.shape[1], dtype=np.int64)
        self.r_[chosen] = k
        return self


class CopiesSelector(_Selector):
    """§4 baseline 'Copies': each of the k judgments of a feature is its own column (k·d
    columns); forward least squares picks columns, and r[a] is the number of copies of feature a
    picked (each costs costs[a]). Sets ``r_`` and ``path_`` (the features of the columns)."""

    def fit(self, J, y):
        J, y = self._validate(J, y)
        m, d, k = J.shape
        columns = J.reshape(m, d * k)  # column a·k + j is judgment j of feature a
        chosen = _forward_selection(columns, y, np.repeat(self.costs_, k), self.budget, self.fit_intercept)
        self.path_ = [j // k for j in chosen]
        self.r_ = np.bincount(np.asarray(self.path_, dtype=np.int64), minlength=d).astype(np.int64)
        return self


class CrowdAverageSelector(_Selector):
    """§4 baseline for height and weight: average only the crowd's numerical estimates of the
    label (feature ``feature``), as many as the budget buys (⌊B/costs[feature]⌋, so B/4 when a
    numerical judgment costs 4), and nothing else. The prediction is the final least-squares
    predictor on that one average (with ``fit_intercept``, an affine map of it), as for every
    selector. Sets ``r_`` and ``path_``."""

    def __init__(self, budget: int = 10, costs=None, fit_intercept: bool = False, feature: int = -1):
        super().__init__(budget=budget, costs=costs, fit_intercept=fit_intercept)
        self.feature = feature

    def fit(self, J, y):
        J, y = self._validate(J, y)
        d = J.shape[1]
        a = check_int("feature", self.feature, low=-d, high=d - 1) % d
        self.r_ = np.zeros(d, dtype=np.int64)
        self.r_[a] = self.budget // int(self.costs_[a])
        self.path_ = [a] * int(self.r_[a])
        return self
