"""AERR, Attribute Efficient Ridge Regression (hk12 Algorithm 1, Theorem 3.1).

Online gradient descent on the L2 ball {‖w‖₂ ≤ B} for the loss ½(⟨w,x⟩ − y)², with the
gradient estimate g̃ = φ̃ x̃ of lines 3–10: x̃ = (d/k) Σ_r x[i_r] e_{i_r} from k independent
uniform coordinates, and φ̃ = ‖w‖² x[j]/w[j] − y from one coordinate j drawn with
probability w_j²/‖w‖². The output is w̄ = (1/m) Σ_{t=1}^m w_t (line 14: the iterates
*before* each update, w_1 included).

Per-example cost O(k log d), independent of d:

* w = s·u (lazy scale): the gradient step touches at most k entries of u, and the
  projection of line 12 only multiplies s;
* a sum-tree over u_j² gives ‖w‖² = s²·(root) and draws j ∝ w_j² in O(log d);
* the running average is lazy: Σ_t w_t[i] = Σ over the periods where u_i is constant of
  u_i · (sum of s over that period), with a prefix sum of s (kept in double-double
  arithmetic, so that a difference of two prefix values is accurate even after s has
  shrunk) and, per coordinate, the prefix value at its last change;
* when s falls below 1e-12 it is folded into u and the prefix restarts (an O(d) step). With
  the theorem's small η the projection shrinks s by a factor close to 1, so this is rare;
  only with very large steps (η‖g̃‖ ≫ B) can it happen every few examples.

With ``record_trajectory=True`` the same kernel also writes the path (w_t, g̃_t, φ̃_t and the
coordinates drawn) into arrays of m rows, O(d) per example, for the pathwise checks of Lemma
3.2 on small runs; without it those arrays are empty and untouched.

Interpretations: line 1 leaves w_1 ≠ 0 with ‖w_1‖ ≤ B arbitrary; by default
w_1 = 10⁻³·(B/√d)·𝟏 (‖w_1‖₂ = 10⁻³ B, so the run effectively starts at the origin, where
OGD is usually started); ``w_init`` overrides it (e.g. a warm start). If w_t = 0 ever occurs,
⟨w_t, x_t⟩ = 0 is known without reading anything, so φ̃ = −y and no j is drawn (line 8 is
undefined there).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..bounds.hk12 import thm31_eta
from ..rng import cumulative_sums, guide_table, next_guided_index, next_index, next_uniform
from ..validation import ParameterError, check_matrix
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
    check_recording,
    check_step,
    fit_data,
    reads_guard,
    state_from,
)

__all__ = ["AERR", "ridge_start", "run_gaerr", "trajectory_buffers"]



def trajectory_buffers(record, m: int, d: int, k: int, *, extra: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Zeroed arrays for a recorded path (or empty ones when ``record`` is false): ``w``,
    ``g`` and each name in ``extra`` of shape (m, d); ``phi`` (m,); ``coordinates`` (m, k);
    ``j`` (m,). Refuses (ParameterError) paths of more than 10⁷ entries per array."""
    check_recording(record, m * d, "m·d")
    rows, cols = (m, d) if record else (0, 0)
    out = {name: np.zeros((rows, cols)) for name in ("w", "g", *extra)}
    out["phi"] = np.zeros(rows)
    out["coordinates"] = np.zeros((rows, k if record else 0), dtype=np.int64)
    out["j"] = np.zeros(rows, dtype=np.int64)
    return out


@njit(cache=True)
def _gaerr_kernel(X, y, k, eta, B, w1, state, q_cumulative, q, inner_weight, inner_draws,
                  moment_counts, moment_sums, record, rec_w, rec_g, rec_phi, rec_idx, rec_j, bad):
    """GAERR (ks15 Algorithm 1; hk12 Algorithm 1 when q is uniform) with lazy scaling.

    Returns (w_bar, n_attributes_read, n_renormalise).

    * ``q_cumulative``: partial sums of q for the k data-point draws; empty: uniform draws
      (:func:`next_index`, the stream AERR has always used). ``q``: q itself (empty with the
      uniform q); a draw of i has importance weight 1/q_i (d for the uniform q).
    * ``inner_weight``: empty: j ∝ w_j² (line 8); else j ∝ |w_j|·c_j with c = inner_weight
      (ks15's "improved inner product"), kept in a second sum-tree.
    * ``inner_draws``: φ̃ averages that many independent inner-product draws.
    * ``moment_counts``/``moment_sums`` (length d, or empty to skip): each data-point draw of
      i adds 1 and x[i]² (ks15 Algorithm 2's phase-1 statistics, when AERR runs in phase 1).
    * With ``record`` true, row t of the output arrays receives the path (see
      :func:`trajectory_buffers`; ``rec_j`` keeps the first inner-product draw); with
      ``record`` false they may be empty and are not touched.
    """
    m, d = X.shape
    size = _tree_size(d)
    tree = _tree_new(size, d)  # leaves u_j²
    improved = inner_weight.shape[0] > 0
    weighted = q_cumulative.shape[0] > 0
    uniform = float(d)  # 1/q_i for the uniform q
    guide = guide_table(q_cumulative)  # O(1) draws from the fixed q
    moments = moment_counts.shape[0] > 0
    tree2 = _tree_new(size, d) if improved else np.zeros(0)  # leaves |u_j|·c_j
    # coordinate i: u_i, Σ_t w_t[i] up to the prefix value at u_i's last change, and that
    # prefix value (hi, lo), in entries 4i + _VALUE, _SUM, _LAST_HI, _LAST_LO
    st = _coordinate_state(w1)
    s = 1.0
    for i in range(d):
        tree[size + i] = w1[i] * w1[i]
        if improved:
            tree2[size + i] = abs(w1[i]) * inner_weight[i]
    _tree_rebuild(tree, size)
    if improved:
        _tree_rebuild(tree2, size)
    hi = 0.0  # Σ of s over the iterates so far, as the double-double hi + lo
    lo = 0.0
    stamp = np.full(d, -1, dtype=np.int64)
    idx = np.empty(k, dtype=np.int64)
    ahead = np.empty(k, dtype=np.int64)  # the next example's data-point draws (see below)
    for r in range(k):
        ahead[r] = next_guided_index(state, q_cumulative, guide) if weighted else next_index(state, d)
    nodes = np.empty(k, dtype=np.int64)  # scratch of _tree_refresh
    xs = np.empty(k)
    inner_x = np.empty(inner_draws)  # the inner-product draws' values and attributes
    inner_j = np.empty(inner_draws, dtype=np.int64)
    n_read = 0
    n_renorm = 0
    far = d >= PREFETCH_STATE_FROM
    for t in range(m):
        hi, lo = _prefix_add(hi, lo, s)  # w_t = s·u enters the average
        if record:
            for i in range(d):
                rec_w[t, i] = s * st[4 * i + _VALUE]
        # lines 3-7: k draws from q, x̃ = (1/k) Σ_r x[i_r]/q_{i_r} e_{i_r}
        for r in range(k):
            i = ahead[r]
            idx[r] = i
            xs[r] = X[t, i]
            if stamp[i] != t:
                stamp[i] = t
                n_read += 1
            if moments:
                moment_counts[i] += 1.0
                moment_sums[i] += xs[r] * xs[r]
        # lines 8-9: φ̃ = (w_j/p_j) x[j] − y, averaged over the inner-product draws
        total = tree2[1] if improved else tree[1]
        j = -1
        n_inner = 0
        if total > 0.0:
            est = 0.0
            n_inner = inner_draws
            for draw in range(inner_draws):
                jj = _tree_draw(tree2 if improved else tree, size, next_uniform(state))
                if j < 0:
                    j = jj
                xj = X[t, jj]
                inner_x[draw] = xj
                inner_j[draw] = jj
                if stamp[jj] != t:
                    stamp[jj] = t
                    n_read += 1
                if improved:  # w_j/p_j = s·sign(u_j)·Σ|u|c / c_j
                    est += s * math.copysign(total, st[4 * jj + _VALUE]) * xj / inner_weight[jj]
                else:  # w_j/p_j = s·‖u‖²/u_j
                    est += s * total * xj / st[4 * jj + _VALUE]
            phi = est - y[t] if inner_draws == 1 else est / inner_draws - y[t]
        else:  # w_t = 0 (or its support carries no second moment): ⟨w_t, x_t⟩ = 0 is known
            phi = -y[t]
        if not (_all_finite(xs, k) and _all_finite(inner_x, n_inner)):  # in the order read
            _note_non_finite(t, xs, idx, k, bad)
            _note_non_finite(t, inner_x, inner_j, n_inner, bad)
        # example t+1's data-point draws come next in the stream: made now, their reads (and at
        # large d the state they will update) are prefetched and arrive while example t updates
        if t + 1 < m:
            for r in range(k):
                i = next_guided_index(state, q_cumulative, guide) if weighted else next_index(state, d)
                ahead[r] = i
                _prefetch(X, t + 1, i)
                if far:
                    _prefetch_entry(stamp, i)
                    _prefetch_entry(st, 4 * i)
                    _prefetch_entry(tree, size + i)
                    _prefetch_entry(tree, (size + i) // _BLOCK)
        if record:
            rec_phi[t] = phi
            rec_j[t] = j
            for r in range(k):
                rec_idx[t, r] = idx[r]
                rec_g[t, idx[r]] += phi * (1.0 / q[idx[r]] if weighted else uniform) / k * xs[r]  # g̃_t = φ̃ x̃_t
        # lines 10-11: v = w − η φ̃ x̃, i.e. u_i −= (η φ̃ / (q_i k s)) x[i] per draw
        step = eta * phi * uniform / (k * s)  # the uniform q's factor: one division per example
        for r in range(k):
            i = idx[r]
            b = 4 * i
            u = st[b + _VALUE]
            st[b + _SUM] += u * ((hi - st[b + _LAST_HI]) + (lo - st[b + _LAST_LO]))
            st[b + _LAST_HI] = hi
            st[b + _LAST_LO] = lo
            u -= (eta * phi * (1.0 / q[i]) / (k * s) if weighted else step) * xs[r]
            st[b + _VALUE] = u
            tree[size + i] = u * u
            if improved:
                tree2[size + i] = abs(u) * inner_weight[i]
        _tree_refresh(tree, size, idx, k, nodes)
        if improved:
            _tree_refresh(tree2, size, idx, k, nodes)
        # line 12: w = v·B/max(‖v‖, B)
        norm_v = s * math.sqrt(tree[1])
        if norm_v > B:
            s *= B / norm_v
        if s < 1e-12:  # fold the scale into u, restart the prefix sum
            for i in range(d):
                b = 4 * i
                u = st[b + _VALUE]
                st[b + _SUM] += u * ((hi - st[b + _LAST_HI]) + (lo - st[b + _LAST_LO]))
                st[b + _LAST_HI] = 0.0
                st[b + _LAST_LO] = 0.0
                u *= s
                st[b + _VALUE] = u
                tree[size + i] = u * u
                if improved:
                    tree2[size + i] = abs(u) * inner_weight[i]
            _tree_rebuild(tree, size)
            if improved:
                _tree_rebuild(tree2, size)
            hi = 0.0
            lo = 0.0
            s = 1.0
            n_renorm += 1
    wbar = np.empty(d)
    for i in range(d):
        b = 4 * i
        wbar[i] = (st[b + _SUM] + st[b + _VALUE] * ((hi - st[b + _LAST_HI]) + (lo - st[b + _LAST_LO]))) / m
    return wbar, n_read, n_renorm


_EMPTY = np.zeros(0)


def run_gaerr(X, y, k, eta, B, w1, state, *, q=None, inner_weight=None, inner_draws=1, moments=None,
              record=None):
    """Call the GAERR kernel on validated inputs. ``q`` None means uniform (AERR's stream);
    ``moments`` is None or a pair (counts, sums) of length-d arrays updated in place;
    ``record`` the dict of :func:`trajectory_buffers` (None: not recorded)."""
    q_cumulative = _EMPTY if q is None else cumulative_sums(q)
    counts, sums = moments if moments is not None else (_EMPTY, _EMPTY)
    rec = record if record is not None else trajectory_buffers(False, 0, 0, k)
    bad = reads_guard()
    out = _gaerr_kernel(X, y, k, eta, B, w1, state, q_cumulative, _EMPTY if q is None else q,
                        _EMPTY if inner_weight is None else inner_weight, int(inner_draws), counts, sums,
                        record is not None, rec["w"], rec["g"], rec["phi"], rec["coordinates"], rec["j"], bad)
    check_reads(X, bad)
    return out


def ridge_start(w_init, d: int, B: float) -> np.ndarray:
    """w_1 for the Ridge learners: 10⁻³·(B/√d)·𝟏 when ``w_init`` is None (line 1 leaves it
    arbitrary, non-zero and in the ball), else ``w_init`` validated (d entries, finite, non-zero,
    ‖w_init‖₂ ≤ B)."""
    if w_init is None:
        return np.full(d, 1e-3 * B / math.sqrt(d))
    w1 = np.array(check_matrix("w_init", w_init, ndim=1), dtype=np.float64)
    if w1.shape[0] != d:
        raise ParameterError(f"w_init must have n_features = {d} entries, got {w1.shape[0]}")
    norm = float(np.linalg.norm(w1))
    if norm == 0.0 or norm > B * (1.0 + 1e-12):
        raise ParameterError(f"w_init must be non-zero with ‖w_init‖₂ ≤ B = {B}, got norm {norm}")
    return w1


class AERR(BudgetedRegressor):
    """Attribute Efficient Ridge Regression (hk12 Algorithm 1).

    Reads at most k + 1 attributes of each example: k coordinates drawn independently and
    uniformly (the data-point estimate x̃, lines 3–7) and one coordinate j drawn with
    probability w_j²/‖w‖² (the inner-product estimate, lines 8–9). ``n_attributes_seen_``
    counts the distinct coordinates read per example (fewer than k + 1 when draws collide),
    summed over examples. Per-example time is O(k log d).

    Parameters
    ----------
    k : int, default 1
        hk12's k: 1 ≤ k ≤ d; the learner reads k + 1 attributes per example.
    B : float, default 1.0
        Radius of the L2 ball (line 12).
    eta : float or None, default None
        Step size; None: Theorem 3.1's η = √(k/(2 d m)) with m = n_samples.
    w_init : array_like of shape (d,) or None, default None
        w_1 (line 1: non-zero, ‖w_1‖₂ ≤ B). None: w_1 = 10⁻³·(B/√d)·𝟏.
    random_state : None, int, SeedSequence or Generator
    record_trajectory : bool, default False
        Keep the path in ``trajectory_`` (for pathwise checks of Lemma 3.2 on the exact run;
        memory m·d floats per array, so for small m only: m·d ≤ 10⁷).

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
        w̄ = (1/m) Σ_{t=1}^m w_t (line 14).
    intercept_ : float
        Always 0.0.
    eta_ : float
        Step size used.
    n_attributes_seen_ : int
        Distinct attributes read per example, summed (≤ (k + 1)·m).
    n_renormalisations_ : int
        How many times the lazy scale was folded back into the weights.
    trajectory_ : dict of numpy arrays, only with ``record_trajectory=True``
        ``w`` (m, d): the iterates w_t, each before its update (w[0] = w_1);
        ``g`` (m, d): the estimated gradients g̃_t = φ̃_t x̃_t used in line 11 (AERR does not
        clip, so ``g_tilde`` is the same array); ``phi`` (m,): φ̃_t; ``coordinates`` (m, k):
        the uniform draws i_{t,r} of lines 3–7; ``j`` (m,): the draw of line 8 (−1 when
        w_t = 0 and nothing was drawn); ``eta``, ``B``: the step size and radius used.
    n_features_in_ : int
    """

    def __init__(self, k=1, B=1.0, eta=None, w_init=None, random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.eta = eta
        self.w_init = w_init
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def fit(self, X, y=None):
        """Run one pass of AERR over (X, y) in row order.

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
        eta = thm31_eta(d, k, m) if self.eta is None else check_step("eta", self.eta)
        w1 = ridge_start(self.w_init, d, B)
        record = trajectory_buffers(self.record_trajectory, m, d, k)
        wbar, n_read, n_renorm = run_gaerr(X, y, k, eta, B, w1, state_from(self.random_state),
                                           record=record if self.record_trajectory else None)
        if self.record_trajectory:
            self.trajectory_ = {**record, "g_tilde": record["g"], "eta": float(eta), "B": float(B)}
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.eta_ = float(eta)
        self.n_attributes_seen_ = int(n_read)
        self.n_renormalisations_ = int(n_renorm)
        return self
