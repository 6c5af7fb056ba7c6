"""The two hard distributions of the lower bounds, with attributes on demand and exact moments.

* :class:`GoodFeature`, cbss11 Appendix A.1 (the distribution P_j of Theorem 1): y is uniform
  on ±1; given y the attributes are independent, x_i = y with probability ½ + p·1{i = j} and
  −y otherwise, for a hidden "good" coordinate j and a bias p = √ε. Since x_i² = 1,
  E[x_i | y] = 2p·y·1{i = j} and, for i ≠ l, E[x_i x_l] = E[E[x_i | y]·E[x_l | y]] = 0 (at most
  one of them is j), the moments are

      Σ = E[xxᵀ] = I,   c = E[xy] = 2p·e_j,   E[y²] = 1,

  and the risk of any w (cbss11's squared loss, no ½) is L(w) = ‖w‖² − 4p·w_j + 1
  (cbss11 §A.2), i.e. L(w) − L(w*) = ‖w − w*‖² with w* = 2p·e_j and L(w*) = 1 − 4p².
  ‖w*‖₂ = ‖w*‖₁ = 2p; over a ball {‖w‖ ≤ B} (L2 or L1) the optimum is min(B, 2p)·e_j (the
  projection of w* onto the ball, because Σ = I; for a 1-sparse non-negative vector both
  projections shrink the one entry). Hypotheses: ‖x‖∞ = 1 and |y| = 1, so the Lasso setting
  (cbss11 §5–6, hk12 §3.2) holds for every B ≥ 1; ‖x‖₂ = √d, so the Ridge setting (‖x‖₂ ≤ 1)
  fails as soon as d ≥ 2.

* :class:`SparseRows`, hk12 Appendix B.2: a hidden set T of k coordinates with Rademacher signs
  r_i; an example is x = r_i·e_i for i uniform on T and its label is always 1. With
  1_T the indicator of T and r_T the vector with entries r_i on T (0 elsewhere),

      Σ = diag(1_T)/k,   c = r_T/k,   E[y²] = 1,

  and L(w) = (1/k)·Σ_{i∈T} (1 − r_i w_i)² (the text's loss, no ½). Coordinates outside T never
  appear. Over the L2 ball of radius B the optimum is min(B/√k, 1)·r_T (by symmetry and
  convexity), with risk (1 − min(B/√k, 1))²; over the L1 ball, min(B/k, 1)·r_T with risk
  (1 − min(B/k, 1))². hk12 takes k = 1/ε² and B = 1, so the optimum is ε·r_T with risk (1 − ε)²
  (Lemma B.4). Rounding: given ε, k = ⌈1/ε²⌉ by default (``rounding="floor"`` for ⌊1/ε²⌋),
  and the instance is exact for ε_k = 1/√k (``eps_k``): ε_k = ε iff 1/ε² is an integer; with
  the ceiling ε_k ≤ ε, the text's vector ε·r_T has norm ε√k ≥ 1 (outside the unit ball unless
  equal) and the in-ball optimum ε_k·r_T has risk (1 − ε_k)² ≥ (1 − ε)². Hypotheses: ‖x‖₂ = 1,
  |y| = 1: the Ridge setting holds for every B ≥ 1, and ‖x‖∞ = 1, so the Lasso setting too.

Both classes follow :class:`theorycheck.protocols.Design` (``sample``, ``satisfies``,
``violations``, the declared bounds ``x_bound_l2``, ``x_bound_linf``, ``y_bound``). Neither
builds a d×d matrix unless asked: ``risk``, ``optimum`` and ``excess_risk`` are closed forms in
O(d) (GoodFeature) or O(k + d) (SparseRows) per vector, and they are what a claim should use
instead of :mod:`theorycheck.population` (whose ``risk``/``excess_risk`` need the dense Σ).
For small d (≤ ``DENSE_LIMIT``) ``second_moment`` and ``moments`` return the dense matrices, so
the closed forms can be checked against the population module; for larger d they raise.

Attributes on demand. As in :mod:`.decaying`, every random bit is a counter-based hash
(SplitMix64's finaliser) of (key, t, slot): example t of key has the seed
h_t = mix(key ⊕ mix((t + 1)·γ)) and slot s the word mix(h_t + (s + 1)·γ), γ = 0x9E3779B97F4A7C15.

* GoodFeature: slot 0 gives y_t (its top bit); slot i + 1 gives attribute i, which equals y_t iff
  the word's top 53 bits, as an integer, are below the threshold 2^52 (i ≠ j) or 2^52 + P (i = j),
  P = round(p·2^53). So P(x_i = y) is exactly ½ + 1{i = j}·P/2^53, and the design's ``p`` is the
  realised bias P/2^53 (a dyadic rational, exact in binary; ``p_exact`` is the Fraction), within
  2^−54 of the requested one. One attribute costs one hash for y_t and one for x_{t,i}.
* SparseRows: slots 0, 1, 2, ... are words tried in turn until one falls below the largest
  multiple of k under 2^64 (rejection, fewer than 2 words on average); that word mod k is the
  position q_t of the row in T (exactly uniform). Attribute i of example t is r_{T[q_t]} if
  i = T[q_t] and 0 otherwise: O(1), plus a comparison.

``sample(n, random_state)`` draws one key from ``random_state`` (one xoroshiro128+ output; a kernel
state advances, so successive calls give independent data) and returns rows t = 0..n−1 of that key:
``sample(n, s) == rows(key, n)`` and every entry equals ``attribute(key, t, i)``.
The jitted scalar functions ``good_feature_label``, ``good_feature_cell``, ``sparse_rows_slot``
and ``sparse_rows_cell`` can be called from other numba kernels (a learner that reads attributes
one at a time over an unbounded stream of examples, for d too large to build rows).

The hidden parameter (``j``, or ``support``/``signs``) is public, for tests and for the planted
learner that cheats by reading it; a learner under test must only see sampled attributes.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit

from ..rng import as_generator, as_kernel_state, next_u64
from ..validation import ParameterError, check_int, check_matrix, check_real
from .decaying import _row_seed, _word, counter_index  # the counter-based words of the decaying designs, shared

__all__ = ["DENSE_LIMIT", "GoodFeature", "SparseBlocks", "SparseRows", "good_feature", "good_feature_cell",
           "good_feature_label", "good_feature_law", "hidden_signs_law", "law_gradient", "law_moments", "law_risk",
           "sparse_rows", "sparse_rows_cell", "sparse_rows_law", "sparse_rows_slot"]

DENSE_LIMIT = 4096  # largest d for which second_moment / moments build the dense matrices
_U64 = np.uint64
_HALF_53 = 2**52  # threshold of a fair coin on 53-bit integers
_SCALE_53 = 2**53
_KEY_MAX = 2**64 - 1


# --------------------------------------------------------------------------------------
# counter-based words (the convention of .decaying) and the jitted cells
# --------------------------------------------------------------------------------------


@njit(cache=True)
def good_feature_label(key, t):
    """y_t ∈ {−1, +1} of example t of ``key`` (uint64) in the GoodFeature design."""
    return 1.0 if (_word(_row_seed(key, t), 0) >> _U64(63)) == _U64(1) else -1.0


@njit(cache=True)
def good_feature_cell(key, t, i, j, threshold):
    """x_{t,i} of the GoodFeature design with good coordinate j and threshold 2^52 + P (an int)."""
    seed = _row_seed(key, t)
    y = 1.0 if (_word(seed, 0) >> _U64(63)) == _U64(1) else -1.0
    top = np.int64(_word(seed, i + 1) >> _U64(11))
    limit = np.int64(threshold) if i == j else np.int64(4503599627370496)  # 2^52
    return y if top < limit else -y


@njit(cache=True)
def sparse_rows_slot(key, t, k, limit):
    """Position q_t ∈ {0..k−1} in T of example t of ``key``: words ≥ ``limit`` are rejected, with
    ``limit`` = 2^64 − (2^64 mod k) as uint64 (0 stands for 2^64, when k is a power of two)."""
    seed = _row_seed(key, t)
    s = 0
    while True:
        w = _word(seed, s)
        if limit == _U64(0) or w < limit:
            return np.int64(w % _U64(k))
        s += 1


@njit(cache=True)
def sparse_rows_cell(key, t, i, support, signs, limit):
    """x_{t,i} of the SparseRows design: signs[q] if i = support[q] for q = q_t, else 0."""
    q = sparse_rows_slot(key, t, support.shape[0], limit)
    return signs[q] if support[q] == i else 0.0


@njit(cache=True)
def _good_rows(key, rows, d, j, threshold, X, y):
    for r in range(rows.shape[0]):
        t = rows[r]
        seed = _row_seed(key, t)
        lab = 1.0 if (_word(seed, 0) >> _U64(63)) == _U64(1) else -1.0
        y[r] = lab
        if X.shape[0] > 0:
            for i in range(d):
                top = np.int64(_word(seed, i + 1) >> _U64(11))
                limit = np.int64(threshold) if i == j else np.int64(4503599627370496)
                X[r, i] = lab if top < limit else -lab


@njit(cache=True)
def _good_cells(key, rows, cols, j, threshold, out):
    for r in range(rows.shape[0]):
        out[r] = good_feature_cell(key, rows[r], cols[r], j, threshold)


@njit(cache=True)
def _sparse_positions(key, rows, k, limit, out):
    for r in range(rows.shape[0]):
        out[r] = sparse_rows_slot(key, rows[r], k, limit)


@njit(cache=True)
def _sparse_cells(key, rows, cols, support, signs, limit, out):
    for r in range(rows.shape[0]):
        out[r] = sparse_rows_cell(key, rows[r], cols[r], support, signs, limit)


# --------------------------------------------------------------------------------------
# shared plumbing
# --------------------------------------------------------------------------------------


def _frozen(a, dtype=np.float64) -> np.ndarray:
    a = np.array(a, dtype=dtype, copy=True)
    a.setflags(write=False)
    return a


def _stack(w, d: int) -> tuple[np.ndarray, bool]:
    arr = np.asarray(w, dtype=np.float64)
    if arr.ndim not in (1, 2):
        raise ParameterError(f"w must have shape (d,) or (r, d), got {arr.ndim} dimension(s)")
    single = arr.ndim == 1
    arr = check_matrix("w", arr.reshape(1, -1) if single else arr, ndim=2)
    if arr.shape[1] != d:
        raise ParameterError(f"w must have d={d} entries per vector, got shape {np.shape(w)}")
    return arr, single


def _norm_radius(norm, B):
    if norm is None and B is None:
        return None, None
    if norm not in ("l2", "l1"):
        raise ParameterError(f"norm must be 'l2' or 'l1' (or None with B None), got {norm!r}")
    return norm, check_real("B", B, low=0.0, strict_low=True)


class _OnDemand:
    """Key handling and index validation shared by the two designs."""

    d: int

    def draw_key(self, random_state) -> int:
        """One 64-bit key from ``random_state`` (a kernel state advances by one output)."""
        return int(next_u64(as_kernel_state(random_state)))

    def sample(self, n, random_state) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. examples, dense: ``rows(draw_key(random_state), n)`` (X (n, d), y (n,))."""
        n = check_int("n", n, low=1)
        return self.rows(self.draw_key(random_state), n)

    def _index(self, key, rows, cols=None):
        return counter_index(key, rows, cols, self.d)

    def attribute(self, key, t, i) -> float:
        """Attribute i of example t of ``key`` in O(1): the value ``rows(key, t + 1)[0][t, i]`` holds."""
        return float(self.attributes(key, check_int("t", t, low=0), check_int("i", i, low=0, high=self.d - 1)))

    def label(self, key, t) -> float:
        """The label of example t of ``key`` (O(1))."""
        return float(self.labels(key, check_int("t", t, low=0)))

    def satisfies(self, norm: str, B) -> bool:
        """Whether the Ridge (``"l2"``) or Lasso (``"l1"``) hypotheses hold for radius B."""
        return not self.violations(norm, B)

    def violations(self, norm: str, B) -> tuple[str, ...]:
        """The hypotheses of the Ridge (‖x‖₂ ≤ 1, |y| ≤ B) or Lasso (‖x‖∞ ≤ 1, |y| ≤ B) setting that
        fail for radius B, one sentence each (empty if none)."""
        B = check_real("B", B, low=0.0, strict_low=True)
        if norm not in ("l2", "l1"):
            raise ParameterError(f"norm must be 'l2' (Ridge) or 'l1' (Lasso), got {norm!r}")
        out = []
        if norm == "l2" and self.x_bound_l2 > 1.0:
            out.append(f"‖x‖₂ = {self.x_bound_l2:.6g} > 1 on every example")
        if norm == "l1" and self.x_bound_linf > 1.0:
            out.append(f"‖x‖∞ = {self.x_bound_linf:.6g} > 1")
        if self.y_bound > B:
            out.append(f"|y| = {self.y_bound:g} > B = {B:g}")
        return tuple(out)

    @property
    def moments(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(Σ, c, E[y²]) for :mod:`theorycheck.population`, only for d ≤ DENSE_LIMIT (else use ``risk``)."""
        return self.second_moment, self.cross_moment, self.y_second_moment


# --------------------------------------------------------------------------------------
# cbss11 A.1: the good-feature distribution P_j
# --------------------------------------------------------------------------------------


def good_feature_law(d: int, j: int, p) -> list[tuple[Fraction, tuple[int, ...], int]]:
    """The complete law of P_j in exact arithmetic: [(probability, x, y)] over {±1}^d × {±1}
    (2^(d+1) points), for a rational bias p (a Fraction, int or str such as "1/8")."""
    d = check_int("d", d, low=1, high=16)
    j = check_int("j", j, low=0, high=d - 1)
    p = Fraction(p)
    if not 0 <= p <= Fraction(1, 2):
        raise ParameterError(f"p must lie in [0, 1/2], got {p}")
    law = []
    half = Fraction(1, 2)
    for y in (-1, 1):
        for x in itertools.product((-1, 1), repeat=d):
            prob = half
            for i, v in enumerate(x):
                agree = half + (p if i == j else 0)
                prob *= agree if v == y else 1 - agree
            law.append((prob, x, y))
    return law


def law_moments(law, d: int) -> tuple[Fraction, Fraction, dict[tuple[int, int], Fraction], list[Fraction], Fraction]:
    """Exact moments of a finite law [(probability, x, y)] (x a sequence or a dict {i: x_i} of its
    non-zero entries): (total mass, smallest probability, Σ = E[xxᵀ] as a dict {(i, l): value} of its
    non-zero entries, c = E[xy], E[y²]); the risk of any w is then wᵀΣw − 2cᵀw + E[y²] exactly."""
    total, smallest, e_y2 = Fraction(0), None, Fraction(0)
    sigma: dict[tuple[int, int], Fraction] = {}
    cross = [Fraction(0)] * d
    for prob, x, y in law:
        prob, y = Fraction(prob), Fraction(y)
        items = [(int(i), Fraction(v)) for i, v in (x.items() if isinstance(x, dict) else enumerate(x)) if v]
        total += prob
        smallest = prob if smallest is None else min(smallest, prob)
        e_y2 += prob * y * y
        for i, v in items:
            cross[i] += prob * v * y
            for m, u in items:
                sigma[i, m] = sigma.get((i, m), Fraction(0)) + prob * v * u
    sigma = {key: value for key, value in sigma.items() if value}
    return total, (Fraction(0) if smallest is None else smallest), sigma, cross, e_y2


def law_risk(sigma, cross, e_y2, w) -> Fraction:
    """wᵀΣw − 2cᵀw + E[y²] in Fractions, from :func:`law_moments` (the exact risk of w)."""
    return (sum((w[i] * value * w[m] for (i, m), value in sigma.items() if w[i] and w[m]), Fraction(0))
            - 2 * sum((ci * wi for ci, wi in zip(cross, w, strict=True) if ci and wi), Fraction(0)) + e_y2)


def law_gradient(sigma, cross, w) -> list[Fraction]:
    """∇L(w) = 2(Σw − c) in Fractions, from :func:`law_moments`."""
    out = [-2 * ci for ci in cross]
    for (i, m), value in sigma.items():
        if w[m]:
            out[i] += 2 * value * w[m]
    return out


@dataclass(frozen=True, eq=False)
class GoodFeature(_OnDemand):
    """cbss11's P_j (Appendix A.1): y uniform on ±1, x_i = y w.p. ½ + p·1{i = j}, else −y.

    Attributes
    ----------
    name : str
        ``"good_feature"``.
    d : int
    j : int
        The hidden good coordinate (0-based).
    p : float
        The realised bias P/2^53 (exact in binary); ``p_exact`` is the same as a Fraction.
    eps : float
        The ε the design was built for (p = √ε unless p was given; then ε = p²).
    threshold : int
        2^52 + P, the 53-bit threshold of the good coordinate.
    w_star : ndarray (d,)
        2p·e_j, the unconstrained minimiser (O(d) memory).
    risk_star : float
        L(w*) = 1 − 4p².
    x_bound_l2, x_bound_linf, y_bound : float
        √d, 1, 1.
    params : dict
    """

    name: str
    d: int
    j: int
    p: float
    eps: float
    threshold: int
    params: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ moments
    @property
    def p_exact(self) -> Fraction:
        return Fraction(self.threshold - _HALF_53, _SCALE_53)

    @property
    def w_star(self) -> np.ndarray:
        w = np.zeros(self.d)
        w[self.j] = 2.0 * self.p
        return w

    @property
    def risk_star(self) -> float:
        return 1.0 - 4.0 * self.p * self.p

    @property
    def mean(self) -> np.ndarray:
        """E[x] = 0 (each x_i is a fair sign once y is averaged out)."""
        return np.zeros(self.d)

    @property
    def second_moments(self) -> np.ndarray:
        """E[x_i²] = 1."""
        return np.ones(self.d)

    @property
    def cross_moment(self) -> np.ndarray:
        """c = E[xy] = 2p·e_j."""
        return self.w_star

    y_second_moment = 1.0
    x_bound_linf = 1.0
    y_bound = 1.0

    @property
    def x_bound_l2(self) -> float:
        return math.sqrt(self.d)

    @property
    def second_moment(self) -> np.ndarray:
        """Σ = I (dense; only for d ≤ DENSE_LIMIT — use :meth:`risk` otherwise)."""
        if self.d > DENSE_LIMIT:
            raise ParameterError(f"GoodFeature.second_moment is the d×d identity; d={self.d} > {DENSE_LIMIT}: "
                                 "use GoodFeature.risk / excess_risk (closed forms) instead of theorycheck.population")
        return np.eye(self.d)

    def law(self) -> list[tuple[Fraction, tuple[int, ...], int]]:
        """The exact law of the realised design (small d only), see :func:`good_feature_law`."""
        return good_feature_law(self.d, self.j, self.p_exact)

    # ------------------------------------------------------------------ risk
    def risk(self, w, *, half=False):
        """L(w) = ‖w‖² − 4p·w_j + 1 (cbss11 §A.2; half=True gives ½ of it). w: (d,) or (r, d)."""
        W, single = _stack(w, self.d)
        out = np.einsum("ri,ri->r", W, W) - 4.0 * self.p * W[:, self.j] + 1.0
        out = 0.5 * out if half else out
        return float(out[0]) if single else out

    def optimum(self, norm=None, B=None, *, half=False) -> tuple[np.ndarray, float]:
        """(w, L(w)) minimising the risk over R^d (norm = B = None) or over {‖w‖_norm ≤ B}:
        min(B, 2p)·e_j for both balls (Σ = I, so the optimum is w*'s projection)."""
        norm, B = _norm_radius(norm, B)
        a = 2.0 * self.p if B is None else min(B, 2.0 * self.p)
        w = np.zeros(self.d)
        w[self.j] = a
        value = a * a - 4.0 * self.p * a + 1.0
        return w, (0.5 * value if half else value)

    def excess_risk(self, w, norm=None, B=None, *, half=False):
        """L(w) − L(a·e_j), a the optimum's entry (see :meth:`optimum`), as
        Σ_{i≠j} w_i² + (w_j − 2p)² − (a − 2p)² (no cancellation of the constant 1); float or (r,)."""
        W, single = _stack(w, self.d)
        a = self.optimum(norm, B)[0][self.j]
        col = W[:, self.j]
        out = np.einsum("ri,ri->r", W, W) - col * col + (col - 2.0 * self.p) ** 2 - (a - 2.0 * self.p) ** 2
        out = 0.5 * out if half else out
        return float(out[0]) if single else out

    def identify(self, w) -> int:
        """argmax_i |w_i|: the coordinate cbss11 §A.2 reads off an ε-good w (p = √ε)."""
        W, _ = _stack(w, self.d)
        return int(np.argmax(np.abs(W[0])))

    # ------------------------------------------------------------------ sampling
    def rows(self, key, n, start=0) -> tuple[np.ndarray, np.ndarray]:
        """Examples t = start..start+n−1 of ``key`` (dense, O(nd))."""
        key = check_int("key", key, low=0, high=_KEY_MAX)
        n = check_int("n", n, low=1)
        start = check_int("start", start, low=0)
        X = np.empty((n, self.d))
        y = np.empty(n)
        _good_rows(_U64(key), np.arange(start, start + n, dtype=np.int64), self.d, self.j, self.threshold, X, y)
        return X, y

    def attributes(self, key, rows, cols) -> np.ndarray:
        """Attribute cols[r] of example rows[r] of ``key`` (broadcast), O(1) each."""
        key, shape, (r, c) = self._index(key, rows, cols)
        out = np.empty(r.shape[0])
        _good_cells(key, r, c, self.j, self.threshold, out)
        return out.reshape(shape)

    def labels(self, key, rows) -> np.ndarray:
        """y_t for t in ``rows`` (O(1) each)."""
        key, shape, (r,) = self._index(key, rows)
        y = np.empty(r.shape[0])
        _good_rows(key, r, self.d, self.j, self.threshold, np.empty((0, self.d)), y)
        return y.reshape(shape)


def good_feature(d, eps=None, *, p=None, j=None, j_seed=0) -> GoodFeature:
    """cbss11's P_j for accuracy ε (p = √ε) or for a given bias p.

    Parameters
    ----------
    d : int
        d ≥ 1 (Theorem 1 asks d ≥ 4).
    eps : float, optional
        ε ∈ (0, ¼] (Theorem 1 asks ε < 1/16); p = √ε. Exactly one of eps and p.
    p : float, optional
        The bias, 0 < p ≤ ½; then ε = p².
    j : int, optional
        The good coordinate (0-based); drawn uniformly from ``j_seed`` when None.
    j_seed : int
        Seed of j.
    """
    d = check_int("d", d, low=1)
    if (eps is None) == (p is None):
        raise ParameterError("give exactly one of eps (p = √ε) and p")
    if p is None:
        eps = check_real("eps", eps, low=0.0, high=0.25, strict_low=True)
        p_req = math.sqrt(eps)
    else:
        p_req = check_real("p", p, low=0.0, high=0.5, strict_low=True)
        eps = p_req * p_req
    j_seed = check_int("j_seed", j_seed, low=0)
    j = int(as_generator(j_seed).integers(d)) if j is None else check_int("j", j, low=0, high=d - 1)
    bias = round(p_req * _SCALE_53)
    if bias < 1:
        raise ParameterError(f"p = {p_req:g} is below the generator's resolution 2^-53")
    params = {"d": d, "eps": float(eps), "p": float(p_req), "j": j, "j_seed": j_seed}
    return GoodFeature(name="good_feature", d=d, j=j, p=bias / _SCALE_53, eps=float(eps), threshold=_HALF_53 + bias,
                       params=params)


# --------------------------------------------------------------------------------------
# hk12 Appendix B.1: the hidden-sign arrays of Fact B.2 and Corollary B.3
# --------------------------------------------------------------------------------------


def hidden_signs_law(d, k=1, order="injection") -> list[tuple[Fraction, tuple[tuple[int, ...], ...]]]:
    """The exact law of hk12's k×d array (Appendix B.1): row j is r_j·e_{T[j]}, the r_j independent
    Rademacher signs, T a uniform set of k distinct coordinates. ``order="injection"``: T[j] is a
    uniformly random ordering of T (the rows' positions are exchangeable); ``order="sorted"``: T[j]
    is the j-th smallest element of T (the text's words read literally). k = 1 is Fact B.2's array.
    Returns [(probability, rows)], every outcome equally likely."""
    d, k = check_int("d", d, low=1), check_int("k", k, low=1)
    if k > d:
        raise ParameterError(f"k must be at most d (k distinct coordinates), got k = {k}, d = {d}")
    if order not in ("injection", "sorted"):
        raise ParameterError(f"order must be 'injection' or 'sorted', got {order!r}")
    positions = (list(itertools.permutations(range(d), k)) if order == "injection"
                 else list(itertools.combinations(range(d), k)))
    mass = Fraction(1, len(positions) * 2**k)
    return [(mass, tuple(tuple(r if c == pos else 0 for c in range(d)) for pos, r in zip(where, signs, strict=True)))
            for where in positions for signs in itertools.product((1, -1), repeat=k)]


# --------------------------------------------------------------------------------------
# hk12 Appendix B: Rademacher sparse rows
# --------------------------------------------------------------------------------------


def sparse_rows_law(support, signs) -> list[tuple[Fraction, dict[int, int], int]]:
    """The exact law of the sparse-rows design: [(1/k, {i: r_i}, 1) for i in T] (x as its one
    non-zero entry)."""
    k = len(support)
    return [(Fraction(1, k), {int(i): int(r)}, 1) for i, r in zip(support, signs, strict=True)]


@dataclass(frozen=True, eq=False)
class SparseRows(_OnDemand):
    """hk12's sparse-rows instance (Appendix B.2): x = r_i·e_i for i uniform on T, y = 1.

    Attributes
    ----------
    name : str
        ``"sparse_rows"``.
    d, k : int
        Dimension and |T|.
    eps : float
        The requested ε (k = ⌈1/ε²⌉ or ⌊1/ε²⌋ unless k was given; then ε = 1/√k).
    eps_k : float
        1/√k, the ε for which the instance is exact (see the module docstring).
    support : ndarray (k,) int64
        T, sorted (the hidden set).
    signs : ndarray (k,)
        r_i for i in ``support``, ±1.
    limit : numpy.uint64
        The rejection threshold 2^64 − (2^64 mod k) (0 stands for 2^64).
    w_star : ndarray (d,)
        The optimum over the unit L2 ball, ε_k·r_T (O(d) memory).
    risk_star : float
        (1 − ε_k)².
    x_bound_l2, x_bound_linf, y_bound : float
        1, 1, 1.
    params : dict
    """

    name: str
    d: int
    k: int
    eps: float
    support: np.ndarray
    signs: np.ndarray
    limit: Any
    params: dict[str, Any] = field(default_factory=dict)

    x_bound_l2 = 1.0
    x_bound_linf = 1.0
    y_bound = 1.0
    y_second_moment = 1.0

    @property
    def eps_k(self) -> float:
        return 1.0 / math.sqrt(self.k)

    @property
    def signed_support(self) -> np.ndarray:
        """r_T as a dense (d,) vector (±1 on T, 0 elsewhere)."""
        v = np.zeros(self.d)
        v[self.support] = self.signs
        return v

    @property
    def w_star(self) -> np.ndarray:
        return self.optimum("l2", 1.0)[0]

    @property
    def risk_star(self) -> float:
        return (1.0 - self.eps_k) ** 2

    @property
    def mean(self) -> np.ndarray:
        """E[x] = r_T/k."""
        return self.signed_support / self.k

    @property
    def second_moments(self) -> np.ndarray:
        """E[x_i²] = 1{i ∈ T}/k."""
        return np.abs(self.signed_support) / self.k

    @property
    def cross_moment(self) -> np.ndarray:
        """c = E[xy] = r_T/k."""
        return self.signed_support / self.k

    @property
    def second_moment(self) -> np.ndarray:
        """Σ = diag(1_T)/k (dense; only for d ≤ DENSE_LIMIT — use :meth:`risk` otherwise)."""
        if self.d > DENSE_LIMIT:
            raise ParameterError(f"SparseRows.second_moment is diagonal; d={self.d} > {DENSE_LIMIT}: "
                                 "use SparseRows.risk / excess_risk (closed forms) instead of theorycheck.population")
        return np.diag(self.second_moments)

    def law(self) -> list[tuple[Fraction, dict[int, int], int]]:
        """The exact law (k points), see :func:`sparse_rows_law`."""
        return sparse_rows_law(self.support, self.signs)

    # ------------------------------------------------------------------ risk
    def risk(self, w, *, half=False):
        """L(w) = (1/k)·Σ_{i∈T} (1 − r_i w_i)² (hk12 App. B; half=True gives ½). O(k) per vector."""
        W, single = _stack(w, self.d)
        gap = 1.0 - W[:, self.support] * self.signs[None, :]
        out = np.einsum("ri,ri->r", gap, gap) / self.k
        out = 0.5 * out if half else out
        return float(out[0]) if single else out

    def optimum(self, norm=None, B=None, *, half=False) -> tuple[np.ndarray, float]:
        """(w, L(w)) minimising the risk over R^d (the minimum-norm minimiser r_T) or over
        {‖w‖_norm ≤ B}: a·r_T with a = min(B/√k, 1) (L2) or min(B/k, 1) (L1); L = (1 − a)²."""
        norm, B = _norm_radius(norm, B)
        if B is None:
            a = 1.0
        else:
            a = min(B / math.sqrt(self.k), 1.0) if norm == "l2" else min(B / self.k, 1.0)
        value = (1.0 - a) ** 2
        return a * self.signed_support, (0.5 * value if half else value)

    def excess_risk(self, w, norm=None, B=None, *, half=False):
        """L(w) − (1 − a)², a as in :meth:`optimum`, as (1/k)·Σ_{i∈T} (a − s_i)(2 − a − s_i) with
        s_i = r_i w_i (no cancellation at the optimum); float or (r,)."""
        W, single = _stack(w, self.d)
        a = self.optimum(norm, B)[0][self.support[0]] * self.signs[0]
        s_T = W[:, self.support] * self.signs[None, :]
        out = np.einsum("ri,ri->r", a - s_T, 2.0 - a - s_T) / self.k
        out = 0.5 * out if half else out
        return float(out[0]) if single else out

    def mass_on_support(self, w) -> float:
        """Σ_{i∈T} w_i² / ‖w‖² (hk12 Lemma B.5's first consequence), 1 for w = 0. Computed as
        on/(on + off) from the sums on T and off T, so a w supported on T gives exactly 1 (two
        dot products of different lengths may round differently)."""
        W, _ = _stack(w, self.d)
        outside = np.ones(self.d, dtype=bool)
        outside[self.support] = False
        on = float(W[0, self.support] @ W[0, self.support])
        off = float(W[0, outside] @ W[0, outside])
        return 1.0 if on + off == 0.0 else on / (on + off)

    # ------------------------------------------------------------------ sampling
    def positions(self, key, rows) -> np.ndarray:
        """q_t ∈ {0..k−1}: example t is signs[q_t]·e_{support[q_t]} (O(1) each)."""
        key, shape, (r,) = self._index(key, rows)
        out = np.empty(r.shape[0], dtype=np.int64)
        _sparse_positions(key, r, self.k, self.limit, out)
        return out.reshape(shape)

    def nonzero(self, key, rows) -> tuple[np.ndarray, np.ndarray]:
        """(column, value) of the one non-zero attribute of each example in ``rows`` (a sparse view
        of the rows; a learner that uses it has read every attribute of the row)."""
        q = self.positions(key, rows)
        return self.support[q], self.signs[q]

    def rows(self, key, n, start=0) -> tuple[np.ndarray, np.ndarray]:
        """Examples t = start..start+n−1 of ``key`` (dense, O(nd))."""
        n = check_int("n", n, low=1)
        start = check_int("start", start, low=0)
        cols, vals = self.nonzero(key, np.arange(start, start + n, dtype=np.int64))
        X = np.zeros((n, self.d))
        X[np.arange(n), cols] = vals
        return X, np.ones(n)

    def attributes(self, key, rows, cols) -> np.ndarray:
        """Attribute cols[r] of example rows[r] of ``key`` (broadcast), O(1) each."""
        key, shape, (r, c) = self._index(key, rows, cols)
        out = np.empty(r.shape[0])
        _sparse_cells(key, r, c, self.support, self.signs, self.limit, out)
        return out.reshape(shape)

    def labels(self, key, rows) -> np.ndarray:
        """Always 1."""
        _, shape, _ = self._index(key, rows)
        return np.ones(shape)


def sparse_rows(d, eps=None, *, k=None, rounding="ceil", support=None, signs=None, T_seed=0) -> SparseRows:
    """hk12's sparse-rows instance for accuracy ε (k = ⌈1/ε²⌉ by default) or for a given k.

    Parameters
    ----------
    d : int
        d ≥ k.
    eps : float, optional
        ε ∈ (0, 1]; k = ⌈1/ε²⌉ (``rounding="ceil"``) or ⌊1/ε²⌋ (``"floor"``). Exactly one of
        eps and k (unless ``support`` is given, which fixes k).
    k : int, optional
        |T| directly (then ε = 1/√k).
    support, signs : array_like, optional
        T (distinct indices in 0..d−1) and r (±1); drawn from ``T_seed`` when None (T uniform
        among k-subsets, r independent Rademacher).
    T_seed : int
        Seed of T and r.
    """
    d = check_int("d", d, low=1)
    if support is not None:
        support = np.asarray(support)
        if support.ndim != 1 or support.dtype.kind not in "iu":
            raise ParameterError("support must be a 1-d array of integers")
        if k is not None and k != support.shape[0]:
            raise ParameterError(f"k={k} but support has {support.shape[0]} entries")
        k = int(support.shape[0])
    if eps is not None and k is not None:
        raise ParameterError("give eps or k (or support), not both")
    if eps is None and k is None:
        raise ParameterError("give eps (k = ⌈1/ε²⌉) or k")
    if k is None:
        eps = check_real("eps", eps, low=0.0, high=1.0, strict_low=True)
        if rounding not in ("ceil", "floor"):
            raise ParameterError(f"rounding must be 'ceil' or 'floor', got {rounding!r}")
        exact = Fraction(1) / Fraction(eps) ** 2  # the float ε as an exact rational
        k = math.ceil(exact) if rounding == "ceil" else max(1, math.floor(exact))
    else:
        k = check_int("k", k, low=1)
        eps = 1.0 / math.sqrt(k)
    if k > d:
        raise ParameterError(f"k = {k} coordinates do not fit in d = {d}")
    T_seed = check_int("T_seed", T_seed, low=0)
    gen = as_generator(T_seed)
    if support is None:
        support = np.sort(gen.choice(d, size=k, replace=False))
    elif support.min() < 0 or support.max() >= d or np.unique(support).shape[0] != k:
        raise ParameterError(f"support must hold {k} distinct indices in 0..{d - 1}")
    if signs is None:
        signs = np.where(gen.random(k) < 0.5, -1.0, 1.0)
    else:
        signs = check_matrix("signs", signs, ndim=1)
        if signs.shape[0] != k or not np.all(np.abs(signs) == 1.0):
            raise ParameterError(f"signs must be {k} entries of ±1")
    order = np.argsort(support, kind="stable")  # keep each sign with its index
    support, signs = support[order], signs[order]
    limit = _U64((2**64 - (2**64 % k)) % 2**64)
    params = {"d": d, "eps": float(eps), "k": k, "rounding": rounding, "T_seed": T_seed}
    return SparseRows(name="sparse_rows", d=d, k=k, eps=float(eps), support=_frozen(support, np.int64),
                      signs=_frozen(signs), limit=limit, params=params)


@dataclass(frozen=True)
class SparseBlocks:
    """A vector w for the sparse-rows instance at any k (even k = 10^12), described by blocks of
    equal coordinates, with exact (Fraction) risk and norms.

    ``on``: blocks (count, s) of coordinates of T with r_i·w_i = s (the signed value the risk
    sees); ``off``: blocks (count, v) of coordinates outside T with w_i = v. k = Σ counts of
    ``on``. Everything hk12 Lemma B.5 talks about depends on w only through these blocks:
    L(w) = (1/k)·Σ count·(1 − s)² (no ½), ‖w‖₂² = Σ count·s² + Σ count·v².
    """

    on: tuple[tuple[int, Fraction], ...]
    off: tuple[tuple[int, Fraction], ...] = ()

    @property
    def k(self) -> int:
        return sum(c for c, _ in self.on)

    def risk(self) -> Fraction:
        return sum((c * (1 - s) ** 2 for c, s in self.on), Fraction(0)) / self.k

    def weight_on(self) -> Fraction:
        """Σ_{i∈T} w_i²."""
        return sum((c * s * s for c, s in self.on), Fraction(0))

    def weight_off(self) -> Fraction:
        """Σ_{i∉T} w_i²."""
        return sum((c * v * v for c, v in self.off), Fraction(0))

    def norm2(self) -> Fraction:
        return self.weight_on() + self.weight_off()

    def aligned_sum(self) -> Fraction:
        """Σ_{i∈T} r_i w_i."""
        return sum((c * s for c, s in self.on), Fraction(0))

    def count_on(self, threshold, *, strict=False) -> int:
        """#{i ∈ T: |w_i| ≥ threshold} (> with ``strict``)."""
        return sum(c for c, s in self.on if (abs(s) > threshold if strict else abs(s) >= threshold))

    def count_off(self, threshold, *, strict=True) -> int:
        """#{i ∉ T: |w_i| > threshold} (≥ without ``strict``)."""
        return sum(c for c, v in self.off if (abs(v) > threshold if strict else abs(v) >= threshold))

    def dense(self, design: SparseRows) -> list[Fraction]:
        """The vector itself on a concrete design (small d): blocks fill T in order, then the
        coordinates outside T in increasing order."""
        if self.k != design.k:
            raise ParameterError(f"the blocks cover k = {self.k} coordinates of T, the design has k = {design.k}")
        outside = [i for i in range(design.d) if i not in set(design.support.tolist())]
        if sum(c for c, _ in self.off) > len(outside):
            raise ParameterError("more off-T coordinates than the design has")
        w = [Fraction(0)] * design.d
        pos = 0
        for c, s in self.on:
            for q in range(pos, pos + c):
                w[int(design.support[q])] = s * int(design.signs[q])
            pos += c
        pos = 0
        for c, v in self.off:
            for q in range(pos, pos + c):
                w[outside[q]] = v
            pos += c
        return w
