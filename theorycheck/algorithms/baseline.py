"""The Baseline learner of Cesa-Bianchi, Shalev-Shwartz and Shamir (cbss11, Figure 1).

A Lasso fitted to an unbiased estimate of the empirical square loss: from each example it
reads k attributes chosen uniformly without replacement, builds estimates A_t of x xᵀ and
v_t of x, averages them, and minimises the estimated loss over the L1 ball of radius B.

Interpretations (cbss11 section 5):

* **Sign of the linear term.** Figure 1 and Lemma 10 write the estimated loss as
  wᵀĀw + wᵀv̄ + ȳ with v̄ = (1/m) Σ 2 y_t v_t, but (⟨w,x⟩ − y)² = wᵀxxᵀw − 2y xᵀw + y², so
  the linear term must be subtracted. ``v_bar_`` is the paper's v̄ (Lemma 9's quantity) and
  the minimised function is L̃(w) = wᵀĀw − wᵀv̄ + ȳ.
* **The estimate of x xᵀ.** As printed, Figure 1 splits the k sampled coordinates C into
  halves I, J and adds 2(d/k)² x_i x_j to A_ij and A_ji for (i, j) ∈ I×J. That matrix has a
  zero diagonal and off-diagonal mean d/(d−1)·x_r x_s, so it is *not* unbiased, contrary to
  the proof of Lemma 8. ``estimator="unbiased"`` (the default) keeps the figure's sampling
  (same coordinates, same split) and fixes the constants: 2d(d−1)/k² off the diagonal and
  (d/k) x_c² on the diagonal for c ∈ C; then E[A_t] = x xᵀ exactly (Lemma 7 applied to pairs
  and to singletons) and every entry still lies in [−2(d/k)², 2(d/k)²] when ‖x‖∞ ≤ 1, as
  Lemma 8 needs. ``estimator="figure"`` reproduces the printed constants (useful to show
  the bias).
* **The random split.** C comes from a partial Fisher–Yates shuffle, which returns the k
  coordinates in uniformly random order; I is the first k/2 of them and J the rest, which
  is a uniformly random split and costs no extra random draws.
* **Minimisation.** Ā need not be positive semi-definite, so L̃ may be non-convex. We run
  monotone accelerated projected gradient (FISTA with a function-value restart, step
  1/(2‖Ā‖₂), exact L1-ball projections of Duchi et al. 2008). If Ā is PSD (convex
  problem) one start at w = 0 suffices; otherwise the search is started from 0 and from
  ``n_restarts`` random points of the L1 sphere and the best end point is kept. Each run
  stops when the Frank–Wolfe gap gᵀw + B‖g‖∞ (g = ∇L̃(w)), which is ≥ 0 and vanishes exactly
  at KKT points, is below ``tol`` times B‖v̄‖∞ + 2B²‖Ā‖₂. In the non-convex case the result
  is a KKT point, the best one found, not a certified global minimum.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit
from sklearn.exceptions import ConvergenceWarning

from ..projections import _project_l1_ball_inplace
from ..rng import next_sign, next_uniform, sample_without_replacement
from ..validation import ParameterError, check_int, check_matrix, check_real
from ._common import (
    BudgetedRegressor,
    _checked,
    check_radius,
    check_reads,
    check_recording,
    fit_data,
    reads_guard,
    state_from,
)

__all__ = ["Baseline", "baseline_buffers", "baseline_estimates", "baseline_objective"]

_ESTIMATORS = ("unbiased", "figure")


@njit(cache=True)
def _baseline_estimates(X, y, k, literal_figure, state, bad, record, rec_A, rec_v, rec_read):
    """Sums of cbss11 Figure 1's per-example estimates, divided by m.

    Returns (A_bar, v_bar, y_bar, n_attributes). v_bar = (1/m) Σ 2 y_t v_t as in Figure 1. With
    ``record`` true, row t of ``rec_A`` (m, d, d), ``rec_v`` (m, d) and ``rec_read`` (m, k) receives
    example t's estimates A_t, v_t (E v_t = x_t) and the coordinates C it read, in their random order;
    with ``record`` false they may be empty and are not touched. Recording changes no arithmetic.
    """
    m, d = X.shape
    half = k // 2
    scale_v = d / k
    if literal_figure:
        scale_off = 2.0 * (d / k) * (d / k)
    else:
        scale_off = 2.0 * d * (d - 1.0) / (k * k)
    A = np.zeros((d, d))
    v = np.zeros(d)
    ysq = 0.0
    perm = np.empty(d, dtype=np.int64)
    xs = np.empty(k)
    n_read = 0
    for t in range(m):
        sample_without_replacement(state, d, k, perm)  # C = perm[:k], random order
        for r in range(k):
            xs[r] = _checked(X[t, perm[r]], t, perm[r], bad)
            n_read += 1
            if record:
                rec_read[t, r] = perm[r]
        yt = y[t]
        for r in range(k):
            c = perm[r]
            v[c] += 2.0 * yt * scale_v * xs[r]
            if record:
                rec_v[t, c] = scale_v * xs[r]
            if not literal_figure:
                A[c, c] += scale_v * xs[r] * xs[r]
                if record:
                    rec_A[t, c, c] = scale_v * xs[r] * xs[r]
        for a in range(half):  # I = perm[:k/2], J = perm[k/2:k]
            i = perm[a]
            for b in range(half, k):
                j = perm[b]
                val = scale_off * xs[a] * xs[b]
                A[i, j] += val
                A[j, i] += val
                if record:
                    rec_A[t, i, j] = val
                    rec_A[t, j, i] = val
        ysq += yt * yt
    for i in range(d):
        v[i] /= m
        for j in range(d):
            A[i, j] /= m
    return A, v, ysq / m, n_read


@njit(cache=True)
def _matvec(A, w, out):
    d = w.shape[0]
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += A[i, j] * w[j]
        out[i] = s


@njit(cache=True)
def _quad_value(w, Aw, v):
    """wᵀAw − wᵀv (the estimated loss without its constant ȳ)."""
    f = 0.0
    for i in range(w.shape[0]):
        f += w[i] * (Aw[i] - v[i])
    return f


@njit(cache=True)
def _fw_gap(w, Aw, v, B):
    """Frank–Wolfe gap gᵀw + B‖g‖∞ with g = 2Aw − v: ≥ 0 on the ball, 0 iff KKT."""
    gw = 0.0
    gmax = 0.0
    for i in range(w.shape[0]):
        g = 2.0 * Aw[i] - v[i]
        gw += g * w[i]
        if abs(g) > gmax:
            gmax = abs(g)
    return gw + B * gmax


@njit(cache=True)
def _baseline_minimise(A, v, B, lipschitz, n_starts, max_iter, tol_abs, state):
    """Minimise wᵀAw − wᵀv over ‖w‖₁ ≤ B from ``n_starts`` starting points (0 first, then
    uniform-ish points of the L1 sphere). Returns (w, value, gap, iterations, converged)."""
    d = v.shape[0]
    best_w = np.zeros(d)
    best_f = np.inf
    best_gap = np.inf
    best_conv = False
    total_iter = 0
    w = np.empty(d)
    Aw = np.empty(d)
    z = np.empty(d)
    Az = np.empty(d)
    wn = np.empty(d)
    Awn = np.empty(d)
    step = 1.0 / lipschitz
    for s in range(n_starts):
        if s == 0:
            for i in range(d):
                w[i] = 0.0
        else:
            total = 0.0
            for i in range(d):
                e = -np.log(1.0 - next_uniform(state))
                w[i] = e * next_sign(state)
                total += e
            for i in range(d):
                w[i] *= B / total
        _matvec(A, w, Aw)
        f = _quad_value(w, Aw, v)
        gap = _fw_gap(w, Aw, v, B)
        converged = gap <= tol_abs
        for i in range(d):
            z[i] = w[i]
            Az[i] = Aw[i]
        tk = 1.0
        it = 0
        while not converged and it < max_iter:
            it += 1
            for i in range(d):
                wn[i] = z[i] - step * (2.0 * Az[i] - v[i])
            _project_l1_ball_inplace(wn, B)
            _matvec(A, wn, Awn)
            fn = _quad_value(wn, Awn, v)
            if fn > f:  # momentum overshot: plain projected-gradient step from w (a descent step)
                for i in range(d):
                    wn[i] = w[i] - step * (2.0 * Aw[i] - v[i])
                _project_l1_ball_inplace(wn, B)
                _matvec(A, wn, Awn)
                fn = _quad_value(wn, Awn, v)
                tk = 1.0
            tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * tk * tk))
            beta = (tk - 1.0) / tn
            for i in range(d):
                z[i] = wn[i] + beta * (wn[i] - w[i])
                Az[i] = Awn[i] + beta * (Awn[i] - Aw[i])
                w[i] = wn[i]
                Aw[i] = Awn[i]
            f = fn
            tk = tn
            gap = _fw_gap(w, Aw, v, B)
            converged = gap <= tol_abs
        total_iter += it
        if f < best_f:
            best_f = f
            best_gap = gap
            best_conv = converged
            for i in range(d):
                best_w[i] = w[i]
    return best_w, best_f, best_gap, total_iter, best_conv


def _check_even_budget(k, d) -> int:
    k = check_int("k", k, low=2)
    if k % 2:
        raise ParameterError(f"k must be even (cbss11 Figure 1 splits the k attributes in halves), got {k}")
    if k > d:
        raise ParameterError(f"k={k} exceeds the number of attributes d (n_features = {d})")
    return k


def _check_estimator_name(estimator) -> bool:
    if estimator not in _ESTIMATORS:
        raise ParameterError(f"estimator must be one of {_ESTIMATORS}, got {estimator!r}")
    return estimator == "figure"


def baseline_estimates(X, y, k, *, estimator="unbiased", random_state=None):
    """The averaged loss estimates of cbss11 Figure 1, without any optimisation.

    Reads exactly k distinct attributes (chosen uniformly without replacement) of each
    example, plus its label.

    Parameters
    ----------
    X : array_like, shape (m, d)
        Finite training inputs.
    y : array_like, shape (m,)
        Finite labels.
    k : int
        Attributes read per example; even, 2 ≤ k ≤ d (cbss11 Figure 1, "local budget").
    estimator : {"unbiased", "figure"}, default "unbiased"
        ``"figure"``: the constants printed in Figure 1 (zero diagonal, biased off-diagonal
        by d/(d−1)); ``"unbiased"``: the same sampling with constants making E[A_t] = x xᵀ
        (see the module docstring).
    random_state : None, int, SeedSequence or Generator
        Seed; :class:`Baseline` with the same seed computes the same estimates.

    Returns
    -------
    A_bar : numpy.ndarray, shape (d, d)
        Ā = (1/m) Σ A_t, symmetric (Lemma 8's matrix).
    v_bar : numpy.ndarray, shape (d,)
        v̄ = (1/m) Σ 2 y_t v_t with E[v_t] = x_t (Lemma 9's vector).
    y_bar : float
        ȳ = (1/m) Σ y_t².
    n_attributes : int
        Attributes read: k·m.

    X's values are checked where they are read, as the learners do: a non-finite attribute the
    estimates read raises :class:`ParameterError`; no pass over all of X is made.
    """
    try:
        X = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ParameterError(f"X must be numeric: {err}") from None
    if X.ndim != 2:
        raise ParameterError(f"X must have 2 dimension(s), got shape {X.shape}")
    y = check_matrix("y", y, ndim=1)
    m, d = X.shape
    if m < 1 or d < 1:
        raise ParameterError(f"X must have at least one row and one column, got shape {X.shape}")
    if y.shape[0] != m:
        raise ParameterError(f"X and y have different numbers of rows: {m} and {y.shape[0]}")
    k = _check_even_budget(k, d)
    literal = _check_estimator_name(estimator)
    rec = baseline_buffers(False, 0, 0, k)
    bad = reads_guard()
    A, v, ybar, n_read = _baseline_estimates(X, y, k, literal, state_from(random_state), bad, False,
                                             rec["A"], rec["v"], rec["read"])
    check_reads(X, bad)
    return A, v, float(ybar), int(n_read)




def baseline_buffers(record, m: int, d: int, k: int) -> dict[str, np.ndarray]:
    """Arrays for Baseline's recorded estimates (empty ones when ``record`` is false): ``A``
    (m, d, d) and ``v`` (m, d), zeros; ``read`` (m, k), −1. Refuses (ParameterError) more than 10⁷
    entries in ``A``."""
    check_recording(record, m * d * d, "m·d²")
    if not record:
        m = d = k = 0
    return {"A": np.zeros((m, d, d)), "v": np.zeros((m, d)), "read": np.full((m, k), -1, dtype=np.int64)}


def baseline_objective(w, A_bar, v_bar, y_bar) -> float:
    """The estimated loss L̃(w) = wᵀĀw − wᵀv̄ + ȳ (cbss11 Figure 1, sign of v̄ corrected)."""
    w = np.asarray(w, dtype=np.float64)
    return float(w @ A_bar @ w - w @ v_bar + y_bar)


class Baseline(BudgetedRegressor):
    """Loss-estimate Lasso with k attributes per example (cbss11 Figure 1, Theorem 6).

    Reads exactly k distinct attributes of each training example (uniform k-subset, without
    replacement) and its label: ``n_attributes_seen_ == k * n_samples``.

    Parameters
    ----------
    k : int, default 2
        Local budget: attributes read per example; even, 2 ≤ k ≤ d.
    B : float, default 1.0
        Radius of the L1 ball {‖w‖₁ ≤ B} over which the estimated loss is minimised.
    estimator : {"unbiased", "figure"}, default "unbiased"
        Constants of the estimate of x xᵀ; see the module docstring (the printed figure is
        biased: zero diagonal, off-diagonal scaled by d/(d−1)).
    n_restarts : int, default 10
        Extra random starting points, used only when Ā is not PSD (non-convex problem).
    max_iter : int, default 10000
        Iterations per start of the accelerated projected gradient.
    tol : float, default 1e-9
        Stop when the Frank–Wolfe (KKT) gap is ≤ tol·(B‖v̄‖∞ + 2B²‖Ā‖₂).
    random_state : None, int, SeedSequence or Generator
        Seed of the attribute sampling (and of the random restarts).
    record_trajectory : bool, default False
        Keep each example's estimates in ``trajectory_`` (for the conformance checks on small
        runs: m·d² ≤ 10⁷). The recorded run computes the same ŵ, bit for bit.

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
        ŵ, the minimiser found of L̃ over the L1 ball.
    intercept_ : float
        Always 0.0.
    A_bar_, v_bar_, y_bar_ :
        Ā, v̄ = (1/m) Σ 2 y_t v_t and ȳ (Lemmas 8–10).
    objective_ : float
        L̃(coef_) = coef_ᵀĀcoef_ − coef_ᵀv̄ + ȳ.
    kkt_gap_ : float
        Frank–Wolfe gap at coef_ (0 at a KKT point).
    converged_ : bool
        Whether the kept run met the KKT tolerance.
    convex_ : bool
        Whether Ā was found PSD (smallest eigenvalue ≥ −1e-12·‖Ā‖₂).
    n_iter_ : int
        Iterations summed over all starts.
    n_attributes_seen_ : int
        k·m, counted in the kernel.
    trajectory_ : dict of numpy arrays, only with ``record_trajectory=True``
        Baseline is a batch method: it has no per-step gradient, so its path is the per-example
        estimates Ā and v̄ average. ``A`` (m, d, d): A_t, the estimate of x_t x_tᵀ; ``v`` (m, d): v_t,
        the estimate of x_t (v̄ = (1/m) Σ 2 y_t v_t); ``read`` (m, k): the k coordinates C read from
        example t, in their random order (I is the first k/2, J the rest).
    n_features_in_ : int
    """

    def __init__(self, k=2, B=1.0, estimator="unbiased", n_restarts=10, max_iter=10000, tol=1e-9, random_state=None,
                 record_trajectory=False):
        self.k = k
        self.B = B
        self.estimator = estimator
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def fit(self, X, y):
        """Estimate the loss from k attributes per example and minimise it over the L1 ball.

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
        k = _check_even_budget(self.k, d)
        B = check_radius(self.B)
        literal = _check_estimator_name(self.estimator)
        n_restarts = check_int("n_restarts", self.n_restarts, low=0)
        max_iter = check_int("max_iter", self.max_iter, low=1)
        tol = check_real("tol", self.tol, low=0.0)

        rec = baseline_buffers(self.record_trajectory, X.shape[0], d, k)
        state = state_from(self.random_state)
        bad = reads_guard()
        A, v, ybar, n_read = _baseline_estimates(X, y, k, literal, state, bad, bool(self.record_trajectory),
                                                 rec["A"], rec["v"], rec["read"])
        check_reads(X, bad)
        if self.record_trajectory:
            self.trajectory_ = rec
        eig = np.linalg.eigvalsh(A)
        spectral = float(np.max(np.abs(eig)))
        convex = bool(eig[0] >= -1e-12 * spectral)
        vmax = float(np.max(np.abs(v)))
        lipschitz = max(2.0 * spectral, 1e-12 * vmax / B, 1e-300)
        tol_abs = tol * (B * vmax + B * B * 2.0 * spectral)
        n_starts = 1 if convex else 1 + n_restarts
        w, fval, gap, n_iter, conv = _baseline_minimise(A, v, B, lipschitz, n_starts, max_iter, tol_abs, state)
        if not conv:
            warnings.warn(
                f"Baseline: KKT gap {gap:.3g} above tolerance {tol_abs:.3g} after max_iter="
                f"{max_iter} iterations; increase max_iter or tol",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.A_bar_ = A
        self.v_bar_ = v
        self.y_bar_ = float(ybar)
        self.coef_ = w
        self.intercept_ = 0.0
        self.objective_ = float(fval + ybar)
        self.kkt_gap_ = float(gap)
        self.converged_ = bool(conv)
        self.convex_ = convex
        self.n_iter_ = int(n_iter)
        self.n_attributes_seen_ = int(n_read)
        return self
