"""AER, Attribute Efficient Regression (cbss11 Figure 2, Theorem 12).

Pegasos on the square loss with the gradient estimate 2(ŷ − y)v of eq. (8), followed by the
Euclidean projection (11) onto the L1 ball of radius B; the output is the average of the
iterates after each update.

Interpretations:

* **Draws for ŷ.** Eq. (7)'s prose says the k/2 indices j_s are drawn "without replacement"
  according to P(i) = |w_i|/‖w‖₁, while the printed Figure 2 draws them independently (with
  replacement) in a loop; the box wins, and independent draws are also what Lemma 11's
  unbiasedness argument uses. When w = 0 the box draws uniformly; those draws are made (to
  keep the random stream of the box) but sgn(0) = 0 makes their terms vanish, so their
  attributes are not read.
* **λ.** Theorem 12 states λ = 12 d √(log m / (m k)); its proof concludes with
  λ = 16 d √(log m / (k m)). ``lam=None`` uses the theorem's value, ``lam="proof"`` the
  proof's; log is natural; m = n_samples at fit time (so m ≥ 2 is needed for a positive λ).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..projections import _project_l1_ball_inplace
from ..rng import next_index, next_weighted_index, sample_without_replacement
from ..validation import ParameterError, check_int
from ._common import (
    BudgetedRegressor,
    _checked,
    check_radius,
    check_reads,
    check_recording,
    check_step,
    fit_data,
    reads_guard,
    state_from,
)

__all__ = ["AER", "aer_buffers", "aer_lambda"]



@njit(cache=True)
def _aer_kernel(X, y, k, lam, B, state, bad, record, rec_w, rec_g, rec_read, rec_subset, rec_draws):
    """cbss11 Figure 2. Returns (w_bar, n_attributes_read).

    With ``record`` true, row t of the ``rec_*`` arrays receives the path (see :func:`aer_buffers`);
    with ``record`` false they may be empty and are not touched. Recording changes no arithmetic."""
    m, d = X.shape
    half = k // 2
    w = np.zeros(d)
    wbar = np.zeros(d)
    perm = np.empty(d, dtype=np.int64)
    vals = np.empty(half)
    cumulative = np.empty(d)
    stamp = np.full(d, -1, dtype=np.int64)
    n_read = 0
    for t in range(m):
        n_row = 0  # distinct attributes of example t read so far
        if record:
            for i in range(d):
                rec_w[t, i] = w[i]
        # v = (2/k) d Σ_{j∈C} x_j e_j, C a uniform k/2-subset (eq. (6))
        sample_without_replacement(state, d, half, perm)
        for r in range(half):
            c = perm[r]
            vals[r] = (2.0 / k) * d * _checked(X[t, c], t, c, bad)
            if stamp[c] != t:
                stamp[c] = t
                n_read += 1
                if record:
                    rec_read[t, n_row] = c
                n_row += 1
            if record:
                rec_subset[t, r] = c
        # ŷ = Σ_r (2/k) sgn(w_i) ‖w‖₁ x_i, i ~ |w_i|/‖w‖₁ independently (eq. (7))
        l1 = 0.0
        for i in range(d):
            l1 += abs(w[i])
            cumulative[i] = l1
        yhat = 0.0
        for draw in range(half):
            if l1 > 0.0:
                i = next_weighted_index(state, cumulative)
                if stamp[i] != t:
                    stamp[i] = t
                    n_read += 1
                    if record:
                        rec_read[t, n_row] = i
                    n_row += 1
                if record:
                    rec_draws[t, draw] = i
                sgn = 1.0 if w[i] > 0.0 else -1.0
                yhat += (2.0 / k) * sgn * l1 * _checked(X[t, i], t, i, bad)
            else:
                next_index(state, d)  # uniform draw of the box; its term is sgn(0)·… = 0
                if record:
                    rec_draws[t, draw] = -1
        # w ← (1 − 1/t) w − (2/(λ t)) (ŷ − y) v, then project on the L1 ball (eqs. (10)-(11))
        step = t + 1.0
        shrink = 1.0 - 1.0 / step
        for i in range(d):
            w[i] *= shrink
        coef = 2.0 / (lam * step) * (yhat - y[t])
        if record:  # the gradient estimate 2(ŷ − y)v of eq. (8)
            for r in range(half):
                rec_g[t, perm[r]] = 2.0 * (yhat - y[t]) * vals[r]
        for r in range(half):
            c = perm[r]
            w[c] -= coef * vals[r]
        _project_l1_ball_inplace(w, B)
        for i in range(d):
            wbar[i] += w[i]
    for i in range(d):
        wbar[i] /= m
    return wbar, n_read


def aer_buffers(record, m: int, d: int, k: int) -> dict[str, np.ndarray]:
    """Arrays for AER's recorded path (empty ones when ``record`` is false): ``w`` and ``g`` of
    shape (m, d) (zeros); ``read`` (m, k), the distinct attributes read from each example in the
    order read, padded with −1; ``subset`` (m, k/2), the coordinates C of v (eq. (6)); ``draws``
    (m, k/2), the draws i of ŷ (eq. (7)), −1 where w_t = 0 made their terms vanish unread.
    Refuses (ParameterError) paths of more than 10⁷ entries per array."""
    check_recording(record, m * d, "m·d")
    rows, cols = (m, d) if record else (0, 0)
    half = k // 2 if record else 0
    return {"w": np.zeros((rows, cols)), "g": np.zeros((rows, cols)),
            "read": np.full((rows, k if record else 0), -1, dtype=np.int64),
            "subset": np.zeros((rows, half), dtype=np.int64), "draws": np.full((rows, half), -1, dtype=np.int64)}


def aer_lambda(d, m, k, which="theorem") -> float:
    """The regularisation parameter of cbss11 Theorem 12.

    Parameters
    ----------
    d, m, k : int
        Dimension, number of examples, attribute budget.
    which : {"theorem", "proof"}
        ``"theorem"``: λ = 12 d √(log m/(m k)) (statement of Theorem 12);
        ``"proof"``: λ = 16 d √(log m/(k m)) (choice made in its proof).

    Returns
    -------
    float
    """
    d = check_int("d", d, low=1)
    m = check_int("m", m, low=1)
    k = check_int("k", k, low=1)
    const = {"theorem": 12.0, "proof": 16.0}.get(which)
    if const is None:
        raise ParameterError(f"which must be 'theorem' or 'proof', got {which!r}")
    if m < 2:
        raise ParameterError(
            f"AER's prescribed lam = {const:g}·d·√(log m/(m k)) is 0 for n_samples = {m}; "
            "pass lam explicitly or use at least 2 samples"
        )
    return const * d * math.sqrt(math.log(m) / (m * k))


class AER(BudgetedRegressor):
    """Attribute Efficient Regression: Pegasos with estimated gradients (cbss11 Figure 2).

    Reads at most k attributes of each example: k/2 distinct coordinates chosen uniformly
    without replacement (for v, eq. (6)) and k/2 coordinates drawn independently with
    probability |w_i|/‖w‖₁ (for ŷ, eq. (7)); none of the latter when w = 0 (first example).
    ``n_attributes_seen_`` counts the distinct coordinates read per example, summed over
    examples: k/2 ≤ count ≤ k per example (fewer than k when draws collide).

    Parameters
    ----------
    k : int, default 2
        Local budget; even, 2 ≤ k and k/2 ≤ d.
    B : float, default 1.0
        Radius of the L1 ball of the projection step (11).
    lam : float, "proof" or None, default None
        Pegasos regularisation λ > 0. None: Theorem 12's λ = 12 d √(log m/(m k));
        "proof": the proof's λ = 16 d √(log m/(k m)); m = n_samples.
    random_state : None, int, SeedSequence or Generator
    record_trajectory : bool, default False
        Keep the path in ``trajectory_`` (for the conformance checks on small runs: m·d ≤ 10⁷
        floats per array). The recorded run computes the same w̄, bit for bit.

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
        w̄ = (1/m) Σ_t w_{t+1}, the average of the iterates after each update (Figure 2).
    intercept_ : float
        Always 0.0.
    lam_ : float
        λ actually used.
    n_attributes_seen_ : int
        Distinct attributes read per example, summed over examples (≤ k·m).
    trajectory_ : dict of numpy arrays, only with ``record_trajectory=True``
        ``w`` (m, d): the iterates w_t, each before its update (w[0] = w_1 = 0); ``g`` (m, d):
        the gradient estimates 2(ŷ_t − y_t)v_t of eq. (8) (``g_tilde`` is the same array);
        ``read`` (m, k): the distinct attributes read from example t, padded with −1 (their
        number per row sums to ``n_attributes_seen_``); ``subset`` (m, k/2): the coordinates C
        of v_t; ``draws`` (m, k/2): the draws of ŷ_t (−1 where w_t = 0); ``lam``, ``B``.
    n_features_in_ : int
    """

    def __init__(self, k=2, B=1.0, lam=None, random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.lam = lam
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def fit(self, X, y):
        """Run one pass of AER over (X, y) in row order.

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
        k = check_int("k", self.k, low=2)
        if k % 2:
            raise ParameterError(f"k must be even (cbss11 Figure 2 uses k/2 + k/2 attributes), got {k}")
        if k // 2 > d:
            raise ParameterError(f"k/2={k // 2} exceeds the number of attributes d (n_features = {d})")
        B = check_radius(self.B)
        if self.lam is None:
            lam = aer_lambda(d, m, k, "theorem")
        elif isinstance(self.lam, str):
            if self.lam != "proof":
                raise ParameterError(f"lam must be a positive number, 'proof' or None, got {self.lam!r}")
            lam = aer_lambda(d, m, k, "proof")
        else:
            lam = check_step("lam", self.lam)
        rec = aer_buffers(self.record_trajectory, m, d, k)
        bad = reads_guard()
        wbar, n_read = _aer_kernel(X, y, k, lam, B, state_from(self.random_state), bad, bool(self.record_trajectory),
                                   rec["w"], rec["g"], rec["read"], rec["subset"], rec["draws"])
        check_reads(X, bad)
        if self.record_trajectory:
            self.trajectory_ = {**rec, "g_tilde": rec["g"], "lam": float(lam), "B": float(B)}
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.lam_ = float(lam)
        self.n_attributes_seen_ = int(n_read)
        return self
