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
from ..rng import next_index, next_uniform
from ..validation import ParameterError, check_matrix
from ._common import (
    BudgetedRegressor,
    _prefix_add,
    _tree_draw,
    _tree_rebuild,
    _tree_set,
    _tree_size,
    check_lasso_budget,
    check_radius,
    check_step,
    fit_data,
    state_from,
)

__all__ = ["AERR", "trajectory_buffers"]

_MAX_RECORDED = 10_000_000  # entries of one (m, d) trajectory array


def trajectory_buffers(record, m: int, d: int, k: int, *, extra: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Zeroed arrays for a recorded path (or empty ones when ``record`` is false): ``w``,
    ``g`` and each name in ``extra`` of shape (m, d); ``phi`` (m,); ``coordinates`` (m, k);
    ``j`` (m,). Refuses (ParameterError) paths of more than 10⁷ entries per array."""
    if not isinstance(record, bool | np.bool_):
        raise ParameterError(f"record_trajectory must be True or False, got {record!r}")
    if record and m * d > _MAX_RECORDED:
        raise ParameterError(f"record_trajectory is for small runs: m·d = {m * d} exceeds {_MAX_RECORDED}")
    rows, cols = (m, d) if record else (0, 0)
    out = {name: np.zeros((rows, cols)) for name in ("w", "g", *extra)}
    out["phi"] = np.zeros(rows)
    out["coordinates"] = np.zeros((rows, k if record else 0), dtype=np.int64)
    out["j"] = np.zeros(rows, dtype=np.int64)
    return out


@njit(cache=True)
def _aerr_kernel(X, y, k, eta, B, w1, state, record, rec_w, rec_g, rec_phi, rec_idx, rec_j):
    """hk12 Algorithm 1 with lazy scaling. Returns (w_bar, n_attributes_read, n_renormalise).

    With ``record`` true, row t of the output arrays receives the path (see :func:`trajectory_buffers`
    for their shapes); with ``record`` false they may be empty and are not touched, so the
    fast path only pays one branch per example."""
    m, d = X.shape
    size = _tree_size(d)
    tree = np.zeros(2 * size)  # leaves u_j²
    u = w1.copy()
    s = 1.0
    for i in range(d):
        tree[size + i] = u[i] * u[i]
    _tree_rebuild(tree, size)
    acc = np.zeros(d)  # Σ_t w_t[i] up to the prefix value (plast_hi + plast_lo)[i]
    plast_hi = np.zeros(d)
    plast_lo = np.zeros(d)
    hi = 0.0  # Σ of s over the iterates so far, as the double-double hi + lo
    lo = 0.0
    stamp = np.full(d, -1, dtype=np.int64)
    idx = np.empty(k, dtype=np.int64)
    xs = np.empty(k)
    n_read = 0
    n_renorm = 0
    for t in range(m):
        hi, lo = _prefix_add(hi, lo, s)  # w_t = s·u enters the average
        if record:
            for i in range(d):
                rec_w[t, i] = s * u[i]
        # lines 3-7: k uniform coordinates, x̃ = (1/k) Σ_r d x[i_r] e_{i_r}
        for r in range(k):
            i = next_index(state, d)
            idx[r] = i
            xs[r] = X[t, i]
            if stamp[i] != t:
                stamp[i] = t
                n_read += 1
        # lines 8-9: j ∝ w_j², φ̃ = ‖w‖² x[j]/w[j] − y = s ‖u‖² x[j]/u[j] − y
        usq = tree[1]
        if usq > 0.0:
            j = _tree_draw(tree, size, next_uniform(state))
            xj = X[t, j]
            if stamp[j] != t:
                stamp[j] = t
                n_read += 1
            phi = s * usq * xj / u[j] - y[t]
        else:
            j = -1
            phi = -y[t]
        if record:
            rec_phi[t] = phi
            rec_j[t] = j
            for r in range(k):
                rec_idx[t, r] = idx[r]
                rec_g[t, idx[r]] += phi * d / k * xs[r]  # g̃_t = φ̃ x̃_t (repeated draws add up)
        # lines 10-11: v = w − η φ̃ x̃, i.e. u_i −= (η φ̃ d / (k s)) x[i] per draw
        coef = eta * phi * d / (k * s)
        for r in range(k):
            i = idx[r]
            acc[i] += u[i] * ((hi - plast_hi[i]) + (lo - plast_lo[i]))
            plast_hi[i] = hi
            plast_lo[i] = lo
            u[i] -= coef * xs[r]
            _tree_set(tree, size, i, u[i] * u[i])
        # line 12: w = v·B/max(‖v‖, B)
        norm_v = s * math.sqrt(tree[1])
        if norm_v > B:
            s *= B / norm_v
        if s < 1e-12:  # fold the scale into u, restart the prefix sum
            for i in range(d):
                acc[i] += u[i] * ((hi - plast_hi[i]) + (lo - plast_lo[i]))
                plast_hi[i] = 0.0
                plast_lo[i] = 0.0
                u[i] *= s
                tree[size + i] = u[i] * u[i]
            _tree_rebuild(tree, size)
            hi = 0.0
            lo = 0.0
            s = 1.0
            n_renorm += 1
    wbar = np.empty(d)
    for i in range(d):
        wbar[i] = (acc[i] + u[i] * ((hi - plast_hi[i]) + (lo - plast_lo[i]))) / m
    return wbar, n_read, n_renorm


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

    def fit(self, X, y):
        """Run one pass of AERR over (X, y) in row order.

        Parameters
        ----------
        X : array_like, shape (m, d)
        y : array_like, shape (m,)

        Returns
        -------
        self
        """
        X, y = fit_data(self, X, y)
        m, d = X.shape
        k = check_lasso_budget(self.k, d)
        B = check_radius(self.B)
        eta = thm31_eta(d, k, m) if self.eta is None else check_step("eta", self.eta)
        if self.w_init is None:
            w1 = np.full(d, 1e-3 * B / math.sqrt(d))
        else:
            w1 = np.array(check_matrix("w_init", self.w_init, ndim=1), dtype=np.float64)
            if w1.shape[0] != d:
                raise ParameterError(f"w_init must have n_features = {d} entries, got {w1.shape[0]}")
            norm = float(np.linalg.norm(w1))
            if norm == 0.0 or norm > B * (1.0 + 1e-12):
                raise ParameterError(f"w_init must be non-zero with ‖w_init‖₂ ≤ B = {B}, got norm {norm}")
        record = trajectory_buffers(self.record_trajectory, m, d, k)
        wbar, n_read, n_renorm = _aerr_kernel(X, y, k, eta, B, w1, state_from(self.random_state),
                                              bool(self.record_trajectory), record["w"], record["g"],
                                              record["phi"], record["coordinates"], record["j"])
        if self.record_trajectory:
            self.trajectory_ = {**record, "g_tilde": record["g"], "eta": float(eta), "B": float(B)}
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.eta_ = float(eta)
        self.n_attributes_seen_ = int(n_read)
        self.n_renormalisations_ = int(n_renorm)
        return self
