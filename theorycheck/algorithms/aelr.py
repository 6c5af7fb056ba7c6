"""AELR, Attribute Efficient Lasso Regression (hk12 Algorithm 2, Theorem 3.4).

EG± on the L1 ball of radius B for the loss ½(⟨w,x⟩ − y)²: w_t = B(z⁺ − z⁻)/(‖z⁺‖₁ + ‖z⁻‖₁)
(line 3), gradient estimate g̃ = φ̃ x̃ with x̃ from k independent uniform coordinates
(lines 4–8) and φ̃ = ‖w‖₁ sign(w[j]) x[j] − y from one coordinate j drawn with probability
|w_j|/‖w‖₁ (lines 9–10); each coordinate of g̃ is clipped to [−1/η, 1/η] (line 13, no square
term in the box) and z^± ← z^± exp(∓η ḡ) (lines 14–15). Output w̄ = (1/m) Σ_{t=1}^m w_t
(line 18: the iterates *before* each update; w_1 = 0 is included).

Numerics. z⁺ and z⁻ start at 𝟏 and are multiplied by reciprocal factors, so z⁻ = 1/z⁺
coordinate-wise. The kernel stores θ = log z⁺ only: w_i = B sinh θ_i / Σ_j cosh θ_j, which
cannot overflow however long the run. Leaves e^{|θ_i|−M}(1 − e^{−2|θ_i|}) (for |w_i|) and
e^{|θ_i|−M}(1 + e^{−2|θ_i|}) (for the normaliser) live in two sum-trees with a common
reference M; the common factor e^{−M} cancels in w. Only the ≤ k sampled coordinates of θ
change per example; the average is kept lazily with a prefix sum of 1/(normaliser) in
double-double arithmetic (differences of prefix values stay accurate when the normaliser
grows). The reference is moved to max|θ| (an O(d) rescale, which also restarts the prefix
sum) when the normaliser has grown by 10¹² since the last rescale or fallen below 1e-250;
clipping bounds every change of θ_i by 1 per example, so this happens at most once every
~27/k examples, and in practice only when the weights concentrate sharply. Per-example time
O(k log d), independent of d, between rescales.

With ``record_trajectory=True`` the same kernel also writes the path (w_t, p_t, ḡ_t, g̃_t, φ̃_t
and the coordinates drawn) into arrays of m rows, O(d) per example, for the checks of Lemmas
3.5–3.7 on small runs; without it those arrays are empty and untouched.

Interpretations: w_1 = 0, where line 9 is undefined; then ⟨w_1, x_1⟩ = 0 is known without
reading, so φ̃ = −y and no j is drawn (as ks15's supplement does for GAELR). Clipping applies
to g̃[i] after summing repeated draws of the same coordinate, as the box clips the
coordinates of g̃. Step size: Theorem 3.4 states η = (1/(4B²))√(2k log(2d)/(5md)); its proof
chooses η = (1/G)√(log(2d)/(5m)) with G = 2B√(2d/k), i.e. (1/(4B))√(2k log(2d)/(5md)). The
two agree for B = 1. ``eta=None`` uses the theorem's value, ``eta="proof"`` the proof's;
log is natural; the theorem assumes m ≥ log 2d.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..bounds.hk12 import thm34_eta
from ..rng import cumulative_sums, guide_table, next_guided_index, next_index, next_uniform
from ..validation import ParameterError
from ._common import (
    _BLOCK,
    _LAST_HI,
    _LAST_LO,
    _SUM,
    _VALUE,
    PREFETCH_STATE_FROM,
    BudgetedRegressor,
    _all_finite,
    _coordinate_state,
    _note_non_finite,
    _prefetch,
    _prefetch_entry,
    _prefix_add,
    _tree_draw,
    _tree_new,
    _tree_rebuild,
    _tree_refresh,
    _tree_size,
    check_lasso_budget,
    check_radius,
    check_reads,
    check_step,
    fit_data,
    reads_guard,
    state_from,
)
from .aerr import trajectory_buffers

__all__ = ["AELR", "lasso_buffers", "run_gaelr", "theta_for"]


@njit(cache=True)
def _aelr_leaves(theta_i, ref):
    """(|sinh θ|, cosh θ) times 2e^{−ref}, computed without overflow or cancellation."""
    a = abs(theta_i)
    big = math.exp(a - ref)
    small = math.exp(-2.0 * a)
    return big * (-math.expm1(-2.0 * a)), big * (1.0 + small)


@njit(cache=True)
def _aelr_rescale(st, d, abs_tree, norm_tree, size, hi, lo):
    """Flush every lazy average, move the reference to max|θ| and rebuild both trees (``st``: the
    interleaved state of :func:`_gaelr_kernel`). Returns the new reference."""
    ref = 0.0
    for i in range(d):
        b = 4 * i
        theta = st[b + _VALUE]
        sgn = 1.0 if theta > 0.0 else -1.0
        st[b + _SUM] += sgn * abs_tree[size + i] * ((hi - st[b + _LAST_HI]) + (lo - st[b + _LAST_LO]))
        st[b + _LAST_HI] = 0.0
        st[b + _LAST_LO] = 0.0
        if abs(theta) > ref:
            ref = abs(theta)
    previous = np.nan
    a = c = 0.0
    for i in range(d):
        theta = st[4 * i + _VALUE]
        if theta != previous:
            a, c = _aelr_leaves(theta, ref)
            previous = theta
        abs_tree[size + i] = a
        norm_tree[size + i] = c
    _tree_rebuild(abs_tree, size)
    _tree_rebuild(norm_tree, size)
    return ref


@njit(cache=True)
def _gaelr_kernel(X, y, k, eta, B, theta0, state, q_cumulative, q, inner_weight, inner_draws,
                  moment_counts, moment_sums, record, rec_w, rec_g, rec_gt, rec_p, rec_phi, rec_idx, rec_j, bad):
    """GAELR (ks15 Algorithm 3; hk12 Algorithm 2 when q is uniform) in log space with k-sparse
    updates. Returns (w_bar, n_attributes_read, n_rescale).

    ``theta0`` is the starting θ = log z⁺ (zeros: w_1 = 0). ``q_cumulative`` (empty: uniform
    draws), ``q`` (empty with the uniform q; a draw of i weighs 1/q_i), ``inner_weight`` (empty:
    j ∝ |w_j|; else j ∝ |w_j|·c_j, in a third sum-tree), ``inner_draws`` and ``moment_counts``/``moment_sums`` as in
    :func:`theorycheck.algorithms.aerr._gaerr_kernel`. With ``record`` true, row t of the output
    arrays receives the path (w_t, ḡ_t, g̃_t, p_t, φ̃_t, the draws); with ``record`` false they may
    be empty and are not touched (one branch per example on the fast path)."""
    m, d = X.shape
    size = _tree_size(d)
    # coordinate i: θ_i = log z⁺_i = −log z⁻_i, Σ_t sign(θ_i)·leaf_i/normaliser_t up to the prefix
    # value at θ_i's last change, and that prefix value (hi, lo), in entries 4i + _VALUE, _SUM,
    # _LAST_HI, _LAST_LO
    st = _coordinate_state(theta0)
    improved = inner_weight.shape[0] > 0
    weighted = q_cumulative.shape[0] > 0
    uniform = float(d)  # 1/q_i for the uniform q
    guide = guide_table(q_cumulative)  # O(1) draws from the fixed q
    moments = moment_counts.shape[0] > 0
    ref = 0.0
    for i in range(d):
        ref = max(ref, abs(theta0[i]))
    abs_tree = _tree_new(size, d)
    norm_tree = _tree_new(size, d)
    imp_tree = _tree_new(size, d) if improved else np.zeros(0)  # leaves |sinh θ_i|·c_i (times 2e^{−ref})
    previous = np.nan
    a0 = c0 = 0.0
    for i in range(d):
        if theta0[i] != previous:  # equal θ_i share their leaves (w_1 = 0: one evaluation for all d)
            a0, c0 = _aelr_leaves(theta0[i], ref)
            previous = theta0[i]
        abs_tree[size + i] = a0
        norm_tree[size + i] = c0
        if improved:
            imp_tree[size + i] = a0 * inner_weight[i]
    _tree_rebuild(abs_tree, size)
    _tree_rebuild(norm_tree, size)
    if improved:
        _tree_rebuild(imp_tree, size)
    hi = 0.0  # Σ_t 1/normaliser_t as the double-double hi + lo
    lo = 0.0
    norm_at_rescale = norm_tree[1]
    stamp = np.full(d, -1, dtype=np.int64)
    mult = np.zeros(d, dtype=np.int64)
    distinct = np.empty(k, dtype=np.int64)
    nodes = np.empty(k, dtype=np.int64)  # scratch of _tree_refresh
    ahead = np.empty(k, dtype=np.int64)  # the next example's data-point draws (see below)
    for r in range(k):
        ahead[r] = next_guided_index(state, q_cumulative, guide) if weighted else next_index(state, d)
    xs = np.empty(k)
    inner_x = np.empty(inner_draws)  # the inner-product draws' values and attributes
    inner_j = np.empty(inner_draws, dtype=np.int64)
    clip = 1.0 / eta
    n_read = 0
    n_rescale = 0
    far = d >= PREFETCH_STATE_FROM
    for t in range(m):
        norm_total = norm_tree[1]
        abs_total = abs_tree[1]
        hi, lo = _prefix_add(hi, lo, 1.0 / norm_total)  # w_t enters the average
        if record:  # w_t = B(p⁺ − p⁻), p± = e^{±θ}/Σ 2cosh θ = e^{±θ − ref}/normaliser
            for i in range(d):
                theta = st[4 * i + _VALUE]
                sgn = 1.0 if theta > 0.0 else -1.0
                rec_w[t, i] = B * sgn * abs_tree[size + i] / norm_total
                rec_p[t, i] = math.exp(theta - ref) / norm_total
                rec_p[t, d + i] = math.exp(-theta - ref) / norm_total
        # lines 4-8: k draws from q (repeats are summed)
        nd = 0
        for r in range(k):
            i = ahead[r]
            if record:
                rec_idx[t, r] = i
            if stamp[i] != t:
                stamp[i] = t
                n_read += 1
                mult[i] = 0
                distinct[nd] = i
                xs[nd] = X[t, i]
                nd += 1
            mult[i] += 1
            if moments:
                moment_counts[i] += 1.0
                moment_sums[i] += X[t, i] * X[t, i]
        # lines 9-10: φ̃ = (w_j/p_j) x[j] − y, averaged over the inner-product draws
        total = imp_tree[1] if improved else abs_total
        j = -1
        n_inner = 0
        if total > 0.0:
            est = 0.0
            n_inner = inner_draws
            for draw in range(inner_draws):
                jj = _tree_draw(imp_tree if improved else abs_tree, size, next_uniform(state))
                if j < 0:
                    j = jj
                if stamp[jj] != t:
                    stamp[jj] = t
                    n_read += 1
                sgn = 1.0 if st[4 * jj + _VALUE] > 0.0 else -1.0
                xj = X[t, jj]
                inner_x[draw] = xj
                inner_j[draw] = jj
                if improved:  # w_j/p_j = B·sign(w_j)·Σ|leaf|c / (normaliser·c_j)
                    est += B * total / (norm_total * inner_weight[jj]) * sgn * xj
                else:  # w_j/p_j = ‖w‖₁·sign(w_j)
                    est += B * abs_total / norm_total * sgn * xj
            phi = est - y[t] if inner_draws == 1 else est / inner_draws - y[t]
        else:
            phi = -y[t]
        if not (_all_finite(xs, nd) and _all_finite(inner_x, n_inner)):  # in the order read
            _note_non_finite(t, xs, distinct, nd, bad)
            _note_non_finite(t, inner_x, inner_j, n_inner, bad)
        # example t+1's data-point draws come next in the stream: made now, their reads are
        # prefetched and arrive while example t updates
        if t + 1 < m:
            for r in range(k):
                i = next_guided_index(state, q_cumulative, guide) if weighted else next_index(state, d)
                ahead[r] = i
                _prefetch(X, t + 1, i)
                if far:  # and the state they will update (see PREFETCH_STATE_FROM)
                    _prefetch_entry(stamp, i)
                    _prefetch_entry(mult, i)
                    _prefetch_entry(st, 4 * i)
                    _prefetch_entry(abs_tree, size + i)
                    _prefetch_entry(norm_tree, size + i)
                    _prefetch_entry(abs_tree, (size + i) // _BLOCK)
                    _prefetch_entry(norm_tree, (size + i) // _BLOCK)
        if record:
            rec_phi[t] = phi
            rec_j[t] = j
        # lines 11-16: ḡ = clip(φ̃ x̃, 1/η) on the sampled coordinates, θ −= η ḡ
        per_draw = uniform / k  # the uniform q's 1/(q_i k), hoisted
        for c in range(nd):
            i = distinct[c]
            g = phi * ((1.0 / q[i]) / k if weighted else per_draw) * xs[c] * mult[i]
            if record:
                rec_gt[t, i] = g
            if g > clip:
                g = clip
            elif g < -clip:
                g = -clip
            if record:
                rec_g[t, i] = g
            b = 4 * i
            theta = st[b + _VALUE]
            sgn = 1.0 if theta > 0.0 else -1.0
            st[b + _SUM] += sgn * abs_tree[size + i] * ((hi - st[b + _LAST_HI]) + (lo - st[b + _LAST_LO]))
            st[b + _LAST_HI] = hi
            st[b + _LAST_LO] = lo
            theta -= eta * g
            st[b + _VALUE] = theta
            a, cc = _aelr_leaves(theta, ref)
            abs_tree[size + i] = a
            norm_tree[size + i] = cc
            if improved:
                imp_tree[size + i] = a * inner_weight[i]
        _tree_refresh(abs_tree, size, distinct, nd, nodes)
        _tree_refresh(norm_tree, size, distinct, nd, nodes)
        if improved:
            _tree_refresh(imp_tree, size, distinct, nd, nodes)
        if norm_tree[1] > 1e12 * norm_at_rescale or norm_tree[1] < 1e-250:
            ref = _aelr_rescale(st, d, abs_tree, norm_tree, size, hi, lo)
            if improved:
                for i in range(d):
                    imp_tree[size + i] = abs_tree[size + i] * inner_weight[i]
                _tree_rebuild(imp_tree, size)
            hi = 0.0
            lo = 0.0
            norm_at_rescale = norm_tree[1]
            n_rescale += 1
    wbar = np.empty(d)
    for i in range(d):
        b = 4 * i
        sgn = 1.0 if st[b + _VALUE] > 0.0 else -1.0
        since = (hi - st[b + _LAST_HI]) + (lo - st[b + _LAST_LO])
        wbar[i] = B * (st[b + _SUM] + sgn * abs_tree[size + i] * since) / m
    return wbar, n_read, n_rescale


_EMPTY = np.zeros(0)


def lasso_buffers(record, m: int, d: int, k: int) -> dict[str, np.ndarray]:
    """The recorded-path arrays of the Lasso learners: those of :func:`trajectory_buffers` plus
    ``g_tilde`` (m, d) and ``p`` (m, 2d)."""
    out = trajectory_buffers(record, m, d, k, extra=("g_tilde",))
    out["p"] = np.zeros((m, 2 * d) if record else (0, 0))
    return out


def run_gaelr(X, y, k, eta, B, theta0, state, *, q=None, inner_weight=None, inner_draws=1, moments=None,
              record=None):
    """Call the GAELR kernel on validated inputs (see :func:`theorycheck.algorithms.aerr.run_gaerr`);
    ``theta0`` is the starting log z⁺ (zeros for w_1 = 0, :func:`theta_for` for a warm start)."""
    q_cumulative = _EMPTY if q is None else cumulative_sums(q)
    counts, sums = moments if moments is not None else (_EMPTY, _EMPTY)
    rec = record if record is not None else lasso_buffers(False, 0, 0, k)
    bad = reads_guard()
    out = _gaelr_kernel(X, y, k, eta, B, theta0, state, q_cumulative, _EMPTY if q is None else q,
                        _EMPTY if inner_weight is None else inner_weight, int(inner_draws), counts, sums,
                        record is not None, rec["w"], rec["g"], rec["g_tilde"], rec["p"], rec["phi"],
                        rec["coordinates"], rec["j"], bad)
    check_reads(X, bad)
    return out


def theta_for(w, B: float) -> np.ndarray:
    """The log-weights θ (z⁺ = e^θ, z⁻ = e^{−θ}) whose EG± iterate B·sinh θ/Σ cosh θ equals w.

    Needs ‖w‖₁ < B. With a = w/B and N = Σ_j cosh θ_j, sinh θ_i = a_i·N, so N solves
    N = Σ_j √(1 + a_j² N²); the right side minus N is convex in N, positive at N = d and
    negative beyond d/(1 − ‖a‖₁), so the root is unique and bisection finds it.
    """
    a = np.asarray(w, dtype=np.float64) / B
    total = float(np.abs(a).sum())
    if not total < 1.0:
        raise ParameterError(f"a warm start needs ‖w‖₁ < B = {B:g}, got {total * B:.17g}")
    d = a.shape[0]
    lo, hi = float(d), d / (1.0 - total) + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.sqrt(1.0 + (a * mid) ** 2).sum() > mid:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return np.arcsinh(a * 0.5 * (lo + hi))


class AELR(BudgetedRegressor):
    """Attribute Efficient Lasso Regression (hk12 Algorithm 2).

    Reads at most k + 1 attributes of each example: k coordinates drawn independently and
    uniformly (lines 4–7) and one coordinate j drawn with probability |w_j|/‖w‖₁ (line 9;
    not drawn on the first example, where w_1 = 0). ``n_attributes_seen_`` counts the
    distinct coordinates read per example, summed over examples. Per-example time
    O(k log d).

    Parameters
    ----------
    k : int, default 1
        hk12's k: 1 ≤ k ≤ d; the learner reads k + 1 attributes per example.
    B : float, default 1.0
        Radius of the L1 ball.
    eta : float, "proof" or None, default None
        Step size; None: Theorem 3.4's η = (1/(4B²))√(2k log(2d)/(5md)); "proof": the
        proof's η = (1/(4B))√(2k log(2d)/(5md)); m = n_samples. Gradients are clipped at 1/η.
    random_state : None, int, SeedSequence or Generator
    record_trajectory : bool, default False
        Keep the path in ``trajectory_`` (for pathwise checks of Lemmas 3.5–3.7 on the exact
        run; memory m·d floats per array, so for small m only: m·d ≤ 10⁷).

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
        w̄ = (1/m) Σ_{t=1}^m w_t (line 18).
    intercept_ : float
        Always 0.0.
    eta_ : float
        Step size used.
    n_attributes_seen_ : int
        Distinct attributes read per example, summed (≤ (k + 1)·m).
    n_rescales_ : int
        How many times the log-space reference was moved (O(d) each).
    trajectory_ : dict of numpy arrays, only with ``record_trajectory=True``
        ``w`` (m, d): the iterates w_t of line 3 (w[0] = w_1 = 0); ``p`` (m, 2d): the
        distributions p_t = (z⁺_t, z⁻_t)/(‖z⁺_t‖₁ + ‖z⁻_t‖₁) of §3.2.1, so that
        w_t = B(p_t[:d] − p_t[d:]); ``g`` (m, d): the clipped ḡ_t of line 13 that the update
        used; ``g_tilde`` (m, d): the unclipped g̃_t = φ̃_t x̃_t of line 11; ``phi`` (m,): φ̃_t;
        ``coordinates`` (m, k): the uniform draws i_{t,r} of lines 4–7; ``j`` (m,): the draw
        of line 9 (−1 on w_t = 0, where nothing is drawn); ``eta``, ``B``.
    n_features_in_ : int
    """

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.eta = eta
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def fit(self, X, y=None):
        """Run one pass of AELR over (X, y) in row order.

        Parameters
        ----------
        X : array_like, shape (m, d), or a streaming design
            A :class:`~theorycheck.generators.streaming.StreamingDesign` is read on demand: the
            attributes the learner draws and the labels are produced from its key, and no row is
            built (m = its ``n_samples``).
        y : array_like, shape (m,); None (the default) with a streaming design, which carries its labels

        Returns
        -------
        self
        """
        X, y = fit_data(self, X, y, stream=True)
        m, d = X.shape
        k = check_lasso_budget(self.k, d)
        B = check_radius(self.B)
        if self.eta is None:
            eta = thm34_eta(d, k, m, B, "theorem")
        elif isinstance(self.eta, str):
            if self.eta != "proof":
                raise ParameterError(f"eta must be a positive number, 'proof' or None, got {self.eta!r}")
            eta = thm34_eta(d, k, m, B, "proof")
        else:
            eta = check_step("eta", self.eta)
        record = lasso_buffers(self.record_trajectory, m, d, k)
        wbar, n_read, n_rescale = run_gaelr(X, y, k, eta, B, np.zeros(d), state_from(self.random_state),
                                            record=record if self.record_trajectory else None)
        if self.record_trajectory:
            self.trajectory_ = {**record, "eta": float(eta), "B": float(B)}
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.eta_ = float(eta)
        self.n_attributes_seen_ = int(n_read)
        self.n_rescales_ = int(n_rescale)
        return self
