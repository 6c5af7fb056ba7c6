"""The papers' randomized gradient estimators as stand-alone units.

Three estimators of the gradient of the square loss on one example (x, y), each reading only
a few attributes of x:

* :func:`aer_gradient_estimate` — cbss11, Figure 2 and eqs. (6)–(8), Lemma 11; it estimates
  the gradient 2(⟨w,x⟩ − y)x of cbss11's loss (⟨w,x⟩ − y)².
* :func:`aerr_gradient_estimate` — hk12, Algorithm 1 (AERR), lines 3–10;
* :func:`aelr_gradient_estimate` — hk12, Algorithm 2 (AELR), lines 4–11; both estimate the
  gradient (⟨w,x⟩ − y)x of hk12's loss ½(⟨w,x⟩ − y)².

Each comes in three forms:

1. a private jitted kernel ``_xxx_kernel(w, x, y, k, state, out) -> int`` that draws one
   estimate with the explicit xoroshiro128+ ``state`` of :mod:`theorycheck.rng`, writes it
   into ``out`` (length d) and returns the number of distinct attributes of x it read. The
   learners call these kernels from their own jitted loops; they cost O(d) per call (they
   build the sampling table from scratch), which is what a reference unit should do;
2. a public function ``xxx(w, x, y, k, *, random_state) -> (estimate, n_attributes_read)``,
   which follows the one random-number convention of :mod:`theorycheck.rng` (an int, a
   SeedSequence, a Generator, or a kernel state advanced in place so that successive calls
   continue one stream). It carries two attributes for callers that draw many estimates:
   ``xxx.kernel``, the jitted kernel of form 1 (for other jitted loops: a learner, a test),
   and ``xxx.moments(w, x, y, k, n, *, random_state) -> SampleMoments``, n draws summed in
   one jitted loop (the same draws as n calls of ``xxx`` on the same stream);
3. a public function ``xxx_distribution(w, x, y, k)`` that enumerates every outcome of the
   estimator's internal randomness and returns ``[(probability, estimate), ...]`` in exact
   rational arithmetic (:class:`fractions.Fraction`), so unbiasedness and moment identities
   can be checked exactly. Draws made with replacement are enumerated as multisets, with
   the multinomial coefficient folded into the probability (the estimate depends on the
   draws only through their multiset); outcomes of probability zero are left out; equal
   estimates coming from different outcomes are not merged.

:func:`subset_average` is the per-subset mean that cbss11's Lemma 7 averages (the building
block of its Baseline estimates).

Helpers: :func:`squared_loss_gradient` (the exact target of each estimator),
:func:`distribution_mean`, :func:`distribution_second_moment`, and the clipping step of
AELR (:func:`clip_estimate`, :func:`clip_distribution`).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from numbers import Rational, Real
from typing import NamedTuple

import numpy as np
from numba import njit

from .rng import as_kernel_state, next_index, next_weighted_index, sample_without_replacement
from .validation import ParameterError, check_int, check_matrix, check_real

__all__ = [
    "SampleMoments",
    "aelr_gradient_estimate",
    "aelr_gradient_estimate_distribution",
    "aer_gradient_estimate",
    "aer_gradient_estimate_distribution",
    "aerr_gradient_estimate",
    "aerr_gradient_estimate_distribution",
    "baseline_estimate_distribution",
    "clip_distribution",
    "clip_estimate",
    "distribution_mean",
    "distribution_second_moment",
    "gaelr_gradient_estimate",
    "gaelr_gradient_estimate_distribution",
    "gaerr_conditional_second_moment",
    "gaerr_gradient_estimate",
    "gaerr_gradient_estimate_distribution",
    "squared_loss_gradient",
    "subset_average",
]

#: Largest number of outcomes an exact enumeration may produce.
MAX_OUTCOMES = 200_000

# --------------------------------------------------------------------------------------------
# jitted kernels
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _aer_gradient_kernel(w, x, y, k, state, out):
    """One draw of cbss11's estimate 2(ŷ − y)v (Figure 2); returns the attributes read."""
    d = x.shape[0]
    half = k // 2
    seen = np.zeros(d, dtype=np.bool_)
    subset = np.empty(d, dtype=np.int64)
    # v: a uniformly random (k/2)-subset C of [d], v_j = (2/k)·d·x_j on C (eq. (6)).
    sample_without_replacement(state, d, half, subset)
    for s in range(half):
        seen[subset[s]] = True
    n_read = half
    # ŷ: k/2 independent draws i with P(i) = |w_i|/‖w‖₁, ŷ += (2/k)·sgn(w_i)·‖w‖₁·x_i.
    cumulative = np.empty(d)
    l1 = 0.0
    for i in range(d):
        l1 += abs(w[i])
        cumulative[i] = l1
    y_hat = 0.0
    if l1 > 0.0:  # at w = 0 the box's uniform draws all add sgn(0) = 0: nothing to read
        for _ in range(half):
            i = next_weighted_index(state, cumulative)
            while w[i] == 0.0:  # only reachable through rounding at the top end
                i -= 1
            if not seen[i]:
                seen[i] = True
                n_read += 1
            sign = 1.0 if w[i] > 0.0 else -1.0
            y_hat += (2.0 / k) * sign * l1 * x[i]
    coef = 2.0 * (y_hat - y)
    for i in range(d):
        out[i] = 0.0
    for s in range(half):
        j = subset[s]
        out[j] = coef * ((2.0 / k) * d * x[j])
    return n_read


@njit(cache=True)
def _hk12_gradient_kernel(w, x, y, k, state, out, power):
    """hk12's g̃ = φ̃·x̃ with the inner-product draw ∝ |w_j|**power (2: AERR, 1: AELR)."""
    d = x.shape[0]
    seen = np.zeros(d, dtype=np.bool_)
    n_read = 0
    for i in range(d):
        out[i] = 0.0
    # x̃ = (1/k) Σ_r d·x[i_r] e_{i_r}, i_r uniform and independent.
    for _ in range(k):
        i = next_index(state, d)
        if not seen[i]:
            seen[i] = True
            n_read += 1
        out[i] += d * x[i]
    # φ̃: one draw j with p_j = |w_j|^power / Σ|w|^power.
    cumulative = np.empty(d)
    total = 0.0
    for i in range(d):
        a = abs(w[i])
        total += a * a if power == 2 else a
        cumulative[i] = total
    if total > 0.0:
        j = next_weighted_index(state, cumulative)
        while w[j] == 0.0:  # only reachable through rounding at the top end
            j -= 1
        if not seen[j]:
            n_read += 1
        if power == 2:
            phi = total * x[j] / w[j] - y
        else:
            phi = total * (1.0 if w[j] > 0.0 else -1.0) * x[j] - y
    else:  # w = 0: ⟨w, x⟩ = 0 exactly, no draw and no attribute needed
        phi = -y
    for i in range(d):
        out[i] = phi * (out[i] / k)
    return n_read


@njit(cache=True)
def _aerr_gradient_kernel(w, x, y, k, state, out):
    """One draw of hk12's AERR estimate (Algorithm 1, lines 3–10); returns attributes read."""
    return _hk12_gradient_kernel(w, x, y, k, state, out, 2)


@njit(cache=True)
def _aelr_gradient_kernel(w, x, y, k, state, out):
    """One draw of hk12's AELR estimate (Algorithm 2, lines 4–11); returns attributes read."""
    return _hk12_gradient_kernel(w, x, y, k, state, out, 1)


@njit(cache=True)
def _clip_inplace(g, c):
    """Overwrite g with clip(g, c) = max(min(g, c), −c) coordinate-wise (hk12 Alg. 2, l. 13)."""
    for i in range(g.shape[0]):
        if g[i] > c:
            g[i] = c
        elif g[i] < -c:
            g[i] = -c


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def _vector(name: str, v) -> np.ndarray:
    if isinstance(v, (int, float, complex, np.generic)):  # np.asarray would make it 1-D
        raise ParameterError(f"{name} must be a 1-D array, got the scalar {v!r}")
    return check_matrix(name, v, ndim=1)


def _check_read_finite(estimate: np.ndarray) -> None:
    """A NaN or infinite attribute among those an estimator read shows in its estimate: refuse it then
    (the estimators read a few attributes, so they do not check the others)."""
    if not np.all(np.isfinite(estimate)):
        raise ParameterError("x has a NaN or infinite value among the attributes the estimate read")


def _check_example(w, x, y, finite_x: bool = True) -> tuple[np.ndarray, np.ndarray, float]:
    """(w, x, y) validated; ``finite_x`` False leaves x's values unread (a caller that reads a few
    attributes checks those it reads)."""
    if finite_x:
        x = _vector("x", x)
    elif isinstance(x, (int, float, complex, np.generic)) or np.ndim(x) != 1:
        raise ParameterError(f"x must be a 1-D array, got {x!r}")
    else:
        try:
            x = np.ascontiguousarray(x, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ParameterError(f"x must be numeric: {err}") from None
    w = _vector("w", w)
    if x.shape[0] == 0:
        raise ParameterError("x must have at least one attribute")
    if w.shape != x.shape:
        raise ParameterError(
            f"w and x must have the same length, got {w.shape[0]} and {x.shape[0]}"
        )
    y = check_real("y", y)
    return w, x, y


def _check_aer_budget(k, d: int) -> int:
    k = check_int("k", k, low=2, high=2 * d)
    if k % 2:
        raise ParameterError(f"k must be even for AER (k/2 attributes per estimate), got {k}")
    return k


def _check_hk12_budget(k, d: int) -> int:
    return check_int("k", k, low=1, high=d)


def _exact_scalar(name: str, value) -> Fraction:
    if isinstance(value, bool):
        raise ParameterError(f"{name} must be a number, got {value!r}")
    if isinstance(value, Rational):
        return Fraction(value)
    if isinstance(value, Real):
        value = float(value)
        if not math.isfinite(value):
            raise ParameterError(f"{name} must be finite, got {value}")
        return Fraction(value)  # exact binary value of the float
    raise ParameterError(f"{name} must be an int, a Fraction or a float, got {value!r}")


def _exact_example(w, x, y) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...], Fraction]:
    vecs = []
    for name, vec in (("x", x), ("w", w)):
        if isinstance(vec, np.ndarray) and vec.ndim != 1:
            raise ParameterError(f"{name} must have 1 dimension(s), got shape {vec.shape}")
        try:
            items = list(vec)
        except TypeError:
            raise ParameterError(f"{name} must be a sequence of numbers, got {vec!r}") from None
        vecs.append(tuple(_exact_scalar(f"{name}[{i}]", v) for i, v in enumerate(items)))
    xs, ws = vecs
    if not xs:
        raise ParameterError("x must have at least one attribute")
    if len(ws) != len(xs):
        raise ParameterError(f"w and x must have the same length, got {len(ws)} and {len(xs)}")
    return ws, xs, _exact_scalar("y", y)


def _check_outcome_count(count: int) -> None:
    if count > MAX_OUTCOMES:
        raise ParameterError(
            f"exact enumeration would produce {count} outcomes (limit {MAX_OUTCOMES}); "
            "use a smaller d or k"
        )


def _sign(v: Fraction) -> int:
    return (v > 0) - (v < 0)


# --------------------------------------------------------------------------------------------
# exact enumeration helpers
# --------------------------------------------------------------------------------------------


def _multisets(weights: tuple[Fraction, ...], n_draws: int):
    """Yield (probability, counts) over multisets of n_draws i.i.d. draws ∝ ``weights``."""
    total = sum(weights)
    support = [i for i, a in enumerate(weights) if a != 0]
    probs = {i: weights[i] / total for i in support}
    for combo in itertools.combinations_with_replacement(support, n_draws):
        counts: dict[int, int] = {}
        for i in combo:
            counts[i] = counts.get(i, 0) + 1
        coef = math.factorial(n_draws)
        prob = Fraction(1)
        for i, c in counts.items():
            coef //= math.factorial(c)
            prob *= probs[i] ** c
        yield coef * prob, counts


def _hk12_distribution(ws, xs, y, k, power):
    d = len(xs)
    n_data = math.comb(d + k - 1, k)
    weights = tuple(abs(a) ** power for a in ws)
    total = sum(weights)
    support = [j for j in range(d) if weights[j] != 0]
    _check_outcome_count(n_data * max(len(support), 1))
    # φ̃ outcomes (hk12 Alg. 1 l. 8–9 / Alg. 2 l. 9–10).
    if total == 0:
        phis = [(Fraction(1), -y)]
    elif power == 2:
        phis = [(weights[j] / total, total * xs[j] / ws[j] - y) for j in support]
    else:
        phis = [(weights[j] / total, total * _sign(ws[j]) * xs[j] - y) for j in support]
    result = []
    uniform = tuple(Fraction(1) for _ in range(d))
    for p_data, counts in _multisets(uniform, k):
        x_tilde = [Fraction(0)] * d
        for i, c in counts.items():
            x_tilde[i] = Fraction(c * d, k) * xs[i]
        for p_phi, phi in phis:
            result.append((p_data * p_phi, tuple(phi * v for v in x_tilde)))
    return result


# --------------------------------------------------------------------------------------------
# public API: cbss11 AER
# --------------------------------------------------------------------------------------------


def aer_gradient_estimate(w, x, y, k, *, random_state) -> tuple[np.ndarray, int]:
    """Draw cbss11's unbiased estimate of the gradient 2(⟨w,x⟩ − y)x of (⟨w,x⟩ − y)².

    cbss11 Figure 2 (inner loops), eqs. (6)–(8), Lemma 11. With half = k/2:

    * v: a uniformly random half-subset C of [d], drawn without replacement;
      v_j = (2/k)·d·x_j for j in C, 0 elsewhere (eq. (6)).
    * ŷ: half independent draws i (with replacement, as in the Figure 2 box) with
      P(i) = |w_i|/‖w‖₁; ŷ = Σ (2/k)·sgn(w_i)·‖w‖₁·x_i (eq. (7)). At w = 0 the box draws i
      uniformly but every term is sgn(0)·0 = 0, so ŷ = 0 and nothing is drawn or read.
    * estimate 2(ŷ − y)·v (eq. (8)).

    Parameters
    ----------
    w, x : array_like, shape (d,)
        Current predictor and the example's attributes (finite).
    y : float
        The example's label.
    k : int
        Attribute budget, even, 2 ≤ k ≤ 2d (the subset C needs k/2 ≤ d).
    random_state : int, SeedSequence, Generator or kernel state
        The randomness (:mod:`theorycheck.rng`); a kernel state (``uint64[2]``) is advanced in
        place, so successive calls continue one stream.

    Returns
    -------
    estimate : numpy.ndarray, shape (d,)
        The gradient estimate (non-zero only on C).
    n_attributes_read : int
        Distinct attributes of x read: |C ∪ {i_1, ..., i_{k/2}}| ≤ min(k, d).
    """
    w, x, y = _check_example(w, x, y, finite_x=False)  # only the attributes drawn are read
    k = _check_aer_budget(k, x.shape[0])
    state = as_kernel_state(random_state)
    out = np.empty(x.shape[0])
    n_read = _aer_gradient_kernel(w, x, y, k, state, out)
    _check_read_finite(out)
    return out, int(n_read)


def aer_gradient_estimate_distribution(w, x, y, k, *, replacement: bool = True
                                       ) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Exact distribution of :func:`aer_gradient_estimate` (cbss11 Figure 2, eqs. (6)–(8)).

    Enumerates every half-subset C (probability 1/binom(d, k/2)) and every multiset of the
    k/2 with-replacement draws of ŷ (multinomial probability under P(i) = |w_i|/‖w‖₁), in
    exact arithmetic. Inputs may be ints, Fractions or floats (floats are taken at their
    exact binary value). The mean of the result is 2(⟨w,x⟩ − y)x (Lemma 11).

    ``replacement=False`` gives instead the law under the reading of the prose before eq. (7),
    which draws the k/2 indices of ŷ *without* replacement (each draw ∝ |w_i| over the indices
    not drawn yet; once every i with w_i ≠ 0 is drawn, the remaining draws add nothing). That
    reading is biased; it is here so that the erratum can be shown exactly, not to be used.

    Returns
    -------
    list of (Fraction, tuple of Fraction)
        (probability, estimate) pairs; the probabilities sum to exactly 1.
    """
    ws, xs, y = _exact_example(w, x, y)
    d = len(xs)
    k = _check_aer_budget(k, d)
    half = k // 2
    weights = tuple(abs(a) for a in ws)
    l1 = sum(weights)
    support = [i for i, a in enumerate(weights) if a != 0]
    if replacement:
        n_yhat = math.comb(len(support) + half - 1, half) if l1 else 1
    else:
        n_yhat = math.perm(len(support), min(half, len(support)))
    _check_outcome_count(math.comb(d, half) * n_yhat)
    if l1 == 0:
        y_hats = [(Fraction(1), Fraction(0))]
    elif replacement:
        y_hats = [
            (p, Fraction(2, k) * l1 * sum(c * _sign(ws[i]) * xs[i] for i, c in counts.items()))
            for p, counts in _multisets(weights, half)
        ]
    else:
        y_hats = []
        for order in itertools.permutations(support, min(half, len(support))):
            p, left = Fraction(1), l1
            for i in order:
                p *= weights[i] / left
                left -= weights[i]
            y_hats.append((p, Fraction(2, k) * l1 * sum(_sign(ws[i]) * xs[i] for i in order)))
    p_subset = Fraction(1, math.comb(d, half))
    result = []
    for subset in itertools.combinations(range(d), half):
        v = [Fraction(0)] * d
        for j in subset:
            v[j] = Fraction(2, k) * d * xs[j]
        for p_y, y_hat in y_hats:
            coef = 2 * (y_hat - y)
            result.append((p_subset * p_y, tuple(coef * vj for vj in v)))
    return result


# --------------------------------------------------------------------------------------------
# public API: hk12 AERR and AELR
# --------------------------------------------------------------------------------------------


def aerr_gradient_estimate(w, x, y, k, *, random_state) -> tuple[np.ndarray, int]:
    """Draw hk12's AERR estimate g̃ of the gradient (⟨w,x⟩ − y)x of ½(⟨w,x⟩ − y)².

    hk12 Algorithm 1, lines 3–10:

    * lines 3–7: k indices i_1..i_k drawn uniformly and independently (with replacement; the
      box says "pick uniformly" for each r), x̃ = (1/k)·Σ_r d·x[i_r]·e_{i_r};
    * lines 8–9: one index j with probability w_j²/‖w‖₂², φ̃ = ‖w‖₂²·x_j/w_j − y;
    * line 10: g̃ = φ̃·x̃.

    Only the squared norm ‖w‖₂² appears (no square root), so the estimate is rational in
    w, x, y and the exact distribution needs no special inputs. Line 1 requires w₁ ≠ 0 and
    line 8 is undefined at w = 0; there we use ⟨0, x⟩ = 0 exactly, i.e. φ̃ = −y with no draw
    and no extra attribute read, which keeps g̃ unbiased.

    Parameters
    ----------
    w, x : array_like, shape (d,)
        Current predictor and the example's attributes (finite).
    y : float
        The example's label.
    k : int
        Number of uniform draws for x̃, 1 ≤ k ≤ d (the estimator reads k + 1 attributes).
    random_state : int, SeedSequence, Generator or kernel state
        The randomness (:mod:`theorycheck.rng`); a kernel state (``uint64[2]``) is advanced in
        place, so successive calls continue one stream.

    Returns
    -------
    estimate : numpy.ndarray, shape (d,)
        g̃ (line 10).
    n_attributes_read : int
        Distinct attributes read, |{i_1, ..., i_k, j}| ≤ min(k + 1, d) (≤ k at w = 0).
    """
    w, x, y = _check_example(w, x, y, finite_x=False)  # only the attributes drawn are read
    k = _check_hk12_budget(k, x.shape[0])
    state = as_kernel_state(random_state)
    out = np.empty(x.shape[0])
    n_read = _aerr_gradient_kernel(w, x, y, k, state, out)
    _check_read_finite(out)
    return out, int(n_read)


def aerr_gradient_estimate_distribution(w, x, y, k) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Exact distribution of :func:`aerr_gradient_estimate` (hk12 Algorithm 1, lines 3–10).

    Enumerates every multiset of the k uniform draws (multinomial probability / d^k) and
    every j with w_j ≠ 0 (probability w_j²/‖w‖₂²), in exact arithmetic; ‖w‖₂ enters only
    squared, so everything is rational. At w = 0, φ̃ = −y (see
    :func:`aerr_gradient_estimate`). The mean is (⟨w,x⟩ − y)x (hk12 Lemma 3.3).

    Returns
    -------
    list of (Fraction, tuple of Fraction)
        (probability, g̃) pairs; the probabilities sum to exactly 1.
    """
    ws, xs, y = _exact_example(w, x, y)
    k = _check_hk12_budget(k, len(xs))
    return _hk12_distribution(ws, xs, y, k, 2)


def aelr_gradient_estimate(w, x, y, k, *, random_state) -> tuple[np.ndarray, int]:
    """Draw hk12's AELR estimate g̃ of the gradient (⟨w,x⟩ − y)x of ½(⟨w,x⟩ − y)².

    hk12 Algorithm 2, lines 4–11:

    * lines 4–8: x̃ exactly as in AERR (k uniform draws with replacement, weight d/k);
    * lines 9–10: one index j with probability |w_j|/‖w‖₁, φ̃ = ‖w‖₁·sign(w_j)·x_j − y;
    * line 11: g̃ = φ̃·x̃.

    This function returns the *unclipped* g̃, the unbiased estimate. The algorithm then
    updates with ḡ = clip(g̃, 1/η) coordinate-wise (line 13): apply :func:`clip_estimate`
    (or :func:`clip_distribution` for the exact law). The squares g̃² appear only in the
    analysis (Lemmas 3.5–3.6, bound on ‖E g̃²‖∞): see :func:`distribution_second_moment`.
    AELR starts at w₁ = 0 (line 3 with z⁺ = z⁻ = 1), where line 9 is undefined; there we use
    ⟨0, x⟩ = 0 exactly, i.e. φ̃ = −y with no draw and no extra attribute read.

    Parameters
    ----------
    w, x : array_like, shape (d,)
        Current predictor and the example's attributes (finite).
    y : float
        The example's label.
    k : int
        Number of uniform draws for x̃, 1 ≤ k ≤ d (the estimator reads k + 1 attributes).
    random_state : int, SeedSequence, Generator or kernel state
        The randomness (:mod:`theorycheck.rng`); a kernel state (``uint64[2]``) is advanced in
        place, so successive calls continue one stream.

    Returns
    -------
    estimate : numpy.ndarray, shape (d,)
        The unclipped g̃ (line 11).
    n_attributes_read : int
        Distinct attributes read, |{i_1, ..., i_k, j}| ≤ min(k + 1, d) (≤ k at w = 0).
    """
    w, x, y = _check_example(w, x, y, finite_x=False)  # only the attributes drawn are read
    k = _check_hk12_budget(k, x.shape[0])
    state = as_kernel_state(random_state)
    out = np.empty(x.shape[0])
    n_read = _aelr_gradient_kernel(w, x, y, k, state, out)
    _check_read_finite(out)
    return out, int(n_read)


def aelr_gradient_estimate_distribution(w, x, y, k) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Exact distribution of :func:`aelr_gradient_estimate` (hk12 Algorithm 2, lines 4–11).

    Enumerates every multiset of the k uniform draws and every j with w_j ≠ 0 (probability
    |w_j|/‖w‖₁), in exact arithmetic. At w = 0, φ̃ = −y. The mean is (⟨w,x⟩ − y)x. The law
    of the clipped ḡ of line 13 is ``clip_distribution(result, eta)``.

    Returns
    -------
    list of (Fraction, tuple of Fraction)
        (probability, unclipped g̃) pairs; the probabilities sum to exactly 1.
    """
    ws, xs, y = _exact_example(w, x, y)
    k = _check_hk12_budget(k, len(xs))
    return _hk12_distribution(ws, xs, y, k, 1)


# --------------------------------------------------------------------------------------------
# many draws in one jitted loop
# --------------------------------------------------------------------------------------------


class SampleMoments(NamedTuple):
    """Sums over n draws of an estimate: per-coordinate Σg, Σg², max |g|, and the largest
    number of attributes one draw read."""

    n: int
    total: np.ndarray
    squares: np.ndarray
    largest: np.ndarray
    max_read: int


@njit(cache=True)
def _draw_moments(which, w, x, y, k, n, state):
    d = x.shape[0]
    out = np.empty(d)
    total, squares, largest = np.zeros(d), np.zeros(d), np.zeros(d)
    max_read = 0
    for _ in range(n):
        if which == 0:
            n_read = _aer_gradient_kernel(w, x, y, k, state, out)
        else:
            n_read = _hk12_gradient_kernel(w, x, y, k, state, out, which)
        max_read = max(max_read, n_read)
        for i in range(d):
            v = out[i]
            total[i] += v
            squares[i] += v * v
            largest[i] = max(largest[i], abs(v))
    return total, squares, largest, max_read


def _equip(sampler, kernel, which: int, check_budget) -> None:
    """Give a public sampler its ``kernel`` and ``moments`` attributes (module docstring)."""

    def moments(w, x, y, k, n, *, random_state) -> SampleMoments:
        w, x, y = _check_example(w, x, y)
        k = check_budget(k, x.shape[0])
        n = check_int("n", n, low=1)
        total, squares, largest, max_read = _draw_moments(which, w, x, y, k, n, as_kernel_state(random_state))
        return SampleMoments(n, total, squares, largest, int(max_read))

    moments.__doc__ = (f"n draws of :func:`{sampler.__name__}` summed in one jitted loop: the same draws as n "
                       "calls on the same stream; returns :class:`SampleMoments`.")
    moments.__qualname__ = f"{sampler.__name__}.moments"
    sampler.kernel = kernel
    sampler.moments = moments


_equip(aer_gradient_estimate, _aer_gradient_kernel, 0, _check_aer_budget)
_equip(aerr_gradient_estimate, _aerr_gradient_kernel, 2, _check_hk12_budget)
_equip(aelr_gradient_estimate, _aelr_gradient_kernel, 1, _check_hk12_budget)


def subset_average(values) -> Fraction:
    """(1/k)·Σ_{c ∈ C'} f(c) for the values f(c) on one k-subset C': the per-subset mean that
    cbss11's Lemma 7 averages over uniform subsets (exact for Fractions)."""
    values = list(values)
    if not values:
        raise ParameterError("subset_average needs at least one value")
    return sum(values, Fraction(0)) / len(values)


# --------------------------------------------------------------------------------------------
# clipping, targets and moments
# --------------------------------------------------------------------------------------------


def clip_estimate(g, eta) -> np.ndarray:
    """AELR's clipped gradient ḡ[i] = clip(g[i], 1/η) = max(min(g[i], 1/η), −1/η).

    hk12 Algorithm 2, line 13 (clip defined in Section 3.2). Returns a new array.

    Parameters
    ----------
    g : array_like, shape (d,)
        A gradient estimate, e.g. from :func:`aelr_gradient_estimate`.
    eta : float
        Step size η > 0; the clip threshold is 1/η.
    """
    eta = check_real("eta", eta, low=0.0, strict_low=True)
    out = np.array(_vector("g", g), dtype=np.float64, copy=True)
    _clip_inplace(out, 1.0 / eta)
    return out


def clip_distribution(distribution, eta) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Exact law of clip(g̃, 1/η) (hk12 Algorithm 2, line 13) given the exact law of g̃.

    ``eta`` may be an int, a Fraction or a float (taken at its exact binary value); the
    result is exact, so E[ḡ] − E[g̃] (the clipping bias of hk12 Lemma 3.7) can be computed
    exactly.
    """
    eta = _exact_scalar("eta", eta)
    if eta <= 0:
        raise ParameterError(f"eta must be > 0, got {eta}")
    c = 1 / eta
    return [(p, tuple(max(min(v, c), -c) for v in g)) for p, g in distribution]


def distribution_mean(distribution) -> tuple[Fraction, ...]:
    """E[estimate] = Σ p·estimate for a list of (probability, estimate) pairs, exactly."""
    if not distribution:
        raise ParameterError("distribution must contain at least one outcome")
    d = len(distribution[0][1])
    mean = [Fraction(0)] * d
    for p, g in distribution:
        for i in range(d):
            mean[i] += p * g[i]
    return tuple(mean)


def distribution_second_moment(distribution) -> tuple[Fraction, ...]:
    """Coordinate-wise E[estimate[i]²], exactly (the vector E g̃² of hk12 Lemmas 3.6–3.7).

    Its sum is E‖g̃‖₂² (hk12 Lemma 3.3) and its maximum is ‖E g̃²‖∞.
    """
    if not distribution:
        raise ParameterError("distribution must contain at least one outcome")
    d = len(distribution[0][1])
    moment = [Fraction(0)] * d
    for p, g in distribution:
        for i in range(d):
            moment[i] += p * g[i] * g[i]
    return tuple(moment)


def squared_loss_gradient(w, x, y, *, paper: str) -> tuple[Fraction, ...]:
    """The exact gradient each estimator targets, in Fractions.

    ``paper="cbss11"``: 2(⟨w,x⟩ − y)x, the gradient of (⟨w,x⟩ − y)² (cbss11 Section 6).
    ``paper="hk12"``: (⟨w,x⟩ − y)x, the gradient of ½(⟨w,x⟩ − y)² (hk12 Section 3).
    """
    factors = {"cbss11": 2, "hk12": 1}
    if paper not in factors:
        raise ParameterError(f"paper must be 'cbss11' or 'hk12', got {paper!r}")
    ws, xs, y = _exact_example(w, x, y)
    residual = sum(a * b for a, b in zip(ws, xs, strict=True)) - y
    return tuple(factors[paper] * residual * v for v in xs)


# --------------------------------------------------------------------------------------------
# ks15: GAERR and GAELR, the data-point estimate drawn from any q
# --------------------------------------------------------------------------------------------
# Kukliansky & Shamir (2015), Algorithm 1 (GAERR) lines 3–10 and Algorithm 3 (GAELR, NOTES.md):
# x̃ = (1/k)·Σ_r x[i_r]/q_{i_r}·e_{i_r} with i_r ~ q independent; one inner-product draw j with
# p_j ∝ w_j² (GAERR) or |w_j| (GAELR), or ∝ |w_j|·c_j with c = ``inner_weights`` (the "improved
# inner product", c = √E[x²]); φ̃ = (w_j/p_j)·x[j] − y; g̃ = φ̃·x̃. Attributes with q_i = 0 (or
# |w_j|c_j = 0) are never drawn, so the estimate is unbiased only if x_i = 0 almost surely there.
# At w = 0 (or when every |w_j|c_j is 0) φ̃ = −y with no draw. With q uniform and no c these are
# hk12's AERR and AELR estimates.


@njit(cache=True)
def _inner_weight(w, c, j, power):
    a = abs(w[j])
    if c.shape[0]:
        return a * c[j]
    return a * a if power == 2 else a


@njit(cache=True)
def _ks15_gradient_kernel(w, x, y, k, q, c, state, out, power):
    """ks15's g̃ = φ̃·x̃ (see the block comment): x̃ from k draws ∝ q with weight 1/(k·q_i), j ∝ the
    inner weights (|w_j|**power, or |w_j|·c_j when c is not empty); returns the attributes read."""
    d = x.shape[0]
    seen = np.zeros(d, dtype=np.bool_)
    cumulative = np.empty(d)
    n_read, total = 0, 0.0
    for i in range(d):
        out[i] = 0.0
        total += q[i]
        cumulative[i] = total
    for _ in range(k):
        i = next_weighted_index(state, cumulative)
        while q[i] == 0.0:  # only reachable through rounding at the top end
            i -= 1
        if not seen[i]:
            seen[i] = True
            n_read += 1
        out[i] += x[i] / q[i]
    total = 0.0
    for i in range(d):
        total += _inner_weight(w, c, i, power)
        cumulative[i] = total
    phi = -y  # w = 0 (or no positive inner weight): ⟨w, x⟩ taken as 0, no draw
    if total > 0.0:
        j = next_weighted_index(state, cumulative)
        while _inner_weight(w, c, j, power) == 0.0:
            j -= 1
        if not seen[j]:
            n_read += 1
        phi = w[j] * (total / _inner_weight(w, c, j, power)) * x[j] - y
    for i in range(d):
        out[i] = phi * (out[i] / k)
    return n_read


@njit(cache=True)
def _gaerr_gradient_kernel(w, x, y, k, q, c, state, out):
    """One draw of ks15's GAERR estimate (Algorithm 1, lines 3–10); returns attributes read."""
    return _ks15_gradient_kernel(w, x, y, k, q, c, state, out, 2)


@njit(cache=True)
def _gaelr_gradient_kernel(w, x, y, k, q, c, state, out):
    """One draw of ks15's GAELR estimate (Algorithm 3, unclipped); returns attributes read."""
    return _ks15_gradient_kernel(w, x, y, k, q, c, state, out, 1)


@njit(cache=True)
def _draw_moments_q(power, w, x, y, k, q, c, n, state):
    d = x.shape[0]
    out = np.empty(d)
    total, squares, largest = np.zeros(d), np.zeros(d), np.zeros(d)
    max_read = 0
    for _ in range(n):
        max_read = max(max_read, _ks15_gradient_kernel(w, x, y, k, q, c, state, out, power))
        for i in range(d):
            total[i] += out[i]
            squares[i] += out[i] * out[i]
            largest[i] = max(largest[i], abs(out[i]))
    return total, squares, largest, max_read


def _check_sampling(q, inner_weights, d: int) -> tuple[np.ndarray, np.ndarray]:
    """q (None: uniform) a probability vector of length d; inner_weights None or ≥ 0 of length d."""
    vecs = []
    for name, v in (("q", q), ("inner_weights", inner_weights)):
        if v is None:
            vecs.append(np.full(d, 1.0 / d) if name == "q" else np.empty(0))
            continue
        v = _vector(name, v)
        if v.shape[0] != d or (v < 0).any():
            raise ParameterError(f"{name} must have {d} entries (one per attribute), all ≥ 0")
        vecs.append(v)
    if abs(vecs[0].sum() - 1.0) > 1e-9:
        raise ParameterError(f"q must sum to 1 (a probability vector), got Σq = {vecs[0].sum():.12g}")
    return vecs[0], vecs[1]


def _exact_sampling(q, inner_weights, d: int):
    """The exact counterparts: q (None: uniform 1/d) rational, ≥ 0, summing to exactly 1."""
    qs = (Fraction(1, d),) * d if q is None else tuple(_exact_scalar(f"q[{i}]", v) for i, v in enumerate(q))
    cs = None if inner_weights is None else tuple(_exact_scalar(f"inner_weights[{i}]", v)
                                                  for i, v in enumerate(inner_weights))
    for name, v in (("q", qs), ("inner_weights", cs or ())):
        if (v or name == "q") and (len(v) != d or min(v) < 0):
            raise ParameterError(f"{name} must have {d} entries (one per attribute), all ≥ 0")
    if sum(qs) != 1:
        raise ParameterError(f"q must sum to exactly 1 in rational arithmetic (pass Fractions), got {sum(qs)}")
    return qs, cs


def _ks15_distribution(ws, xs, y, k, qs, cs, power):
    d = len(xs)
    weights = tuple(abs(a) * cs[j] if cs is not None else abs(a) ** power for j, a in enumerate(ws))
    total = sum(weights)
    support = [j for j in range(d) if weights[j] != 0]
    _check_outcome_count(math.comb(sum(1 for v in qs if v) + k - 1, k) * max(len(support), 1))
    phis = [(weights[j] / total, ws[j] * total / weights[j] * xs[j] - y) for j in support] or [(Fraction(1), -y)]
    result = []
    for p_data, counts in _multisets(qs, k):
        x_tilde = [Fraction(0)] * d
        for i, c in counts.items():
            x_tilde[i] = c * xs[i] / (k * qs[i])
        result += [(p_data * p_phi, tuple(phi * v for v in x_tilde)) for p_phi, phi in phis]
    return result


def gaerr_gradient_estimate(w, x, y, k, q=None, *, inner_weights=None, random_state) -> tuple[np.ndarray, int]:
    """Draw ks15's GAERR estimate g̃ of the gradient (⟨w,x⟩ − y)x (Algorithm 1, lines 3–10).

    * lines 3–7: k indices i_r drawn independently from q (with replacement),
      x̃ = (1/k)·Σ_r x[i_r]/q_{i_r}·e_{i_r};
    * lines 8–9: one index j with p_j = w_j²/‖w‖₂² (or, with ``inner_weights`` c, p_j ∝ |w_j|·c_j,
      the "improved inner product" after eq. (2)), φ̃ = (w_j/p_j)·x[j] − y;
    * line 10: g̃ = φ̃·x̃.

    Parameters
    ----------
    w, x : array_like, shape (d,)
        Current predictor and the example's attributes (finite).
    y : float
        The example's label.
    k : int
        Number of draws for x̃, 1 ≤ k ≤ d (the estimator reads k + 1 attributes).
    q : array_like, shape (d,), optional
        The sampling distribution of the k draws (≥ 0, Σq = 1 within 1e-9); None is uniform
        (hk12's AERR). Attributes with q_i = 0 are never drawn (unbiased only if x_i = 0 there).
    inner_weights : array_like, shape (d,), optional
        c ≥ 0 for p_j ∝ |w_j|·c_j; None gives Algorithm 1's p_j ∝ w_j².
    random_state : int, SeedSequence, Generator or kernel state
        The randomness (:mod:`theorycheck.rng`); a kernel state is advanced in place.

    Returns
    -------
    estimate : numpy.ndarray, shape (d,)
    n_attributes_read : int
        Distinct attributes read, |{i_1, ..., i_k, j}| ≤ k + 1 (≤ k when there is no draw j).
    """
    w, x, y = _check_example(w, x, y)
    k = _check_hk12_budget(k, x.shape[0])
    q, c = _check_sampling(q, inner_weights, x.shape[0])
    out = np.empty(x.shape[0])
    n_read = _gaerr_gradient_kernel(w, x, y, k, q, c, as_kernel_state(random_state), out)
    return out, int(n_read)


def gaelr_gradient_estimate(w, x, y, k, q=None, *, inner_weights=None, random_state) -> tuple[np.ndarray, int]:
    """Draw ks15's GAELR estimate g̃ (Algorithm 3 of the supplement, NOTES.md): x̃ as in
    :func:`gaerr_gradient_estimate`, j with p_j = |w_j|/‖w‖₁ (or ∝ |w_j|·c_j), φ̃ = (w_j/p_j)·x[j] − y
    (= ‖w‖₁·sign(w_j)·x[j] − y), g̃ = φ̃·x̃. Returns the *unclipped* g̃ (the algorithm updates with
    clip(g̃, 1/η): :func:`clip_estimate`). Parameters and returns as for GAERR."""
    w, x, y = _check_example(w, x, y)
    k = _check_hk12_budget(k, x.shape[0])
    q, c = _check_sampling(q, inner_weights, x.shape[0])
    out = np.empty(x.shape[0])
    n_read = _gaelr_gradient_kernel(w, x, y, k, q, c, as_kernel_state(random_state), out)
    return out, int(n_read)


def gaerr_gradient_estimate_distribution(w, x, y, k, q=None, inner_weights=None
                                         ) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Exact law of :func:`gaerr_gradient_estimate`: every multiset of the k draws from q
    (multinomial probability) and every j with a positive inner weight, in rationals. q must sum
    to exactly 1 (Fractions; None is uniform). With q uniform and no inner weights it is
    :func:`aerr_gradient_estimate_distribution`. Returns (probability, g̃) pairs."""
    ws, xs, y = _exact_example(w, x, y)
    k = _check_hk12_budget(k, len(xs))
    return _ks15_distribution(ws, xs, y, k, *_exact_sampling(q, inner_weights, len(xs)), 2)


def gaelr_gradient_estimate_distribution(w, x, y, k, q=None, inner_weights=None
                                         ) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Exact law of :func:`gaelr_gradient_estimate` (unclipped; clip with :func:`clip_distribution`).
    With q uniform and no inner weights it is :func:`aelr_gradient_estimate_distribution`."""
    ws, xs, y = _exact_example(w, x, y)
    k = _check_hk12_budget(k, len(xs))
    return _ks15_distribution(ws, xs, y, k, *_exact_sampling(q, inner_weights, len(xs)), 1)


def _equip_q(sampler, kernel, power: int) -> None:
    """``kernel`` and ``moments(w, x, y, k, q, n, *, inner_weights=None, random_state)`` for a ks15 sampler."""

    def moments(w, x, y, k, q, n, *, inner_weights=None, random_state) -> SampleMoments:
        w, x, y = _check_example(w, x, y)
        k = _check_hk12_budget(k, x.shape[0])
        q, c = _check_sampling(q, inner_weights, x.shape[0])
        n = check_int("n", n, low=1)
        total, squares, largest, max_read = _draw_moments_q(power, w, x, y, k, q, c, n,
                                                            as_kernel_state(random_state))
        return SampleMoments(n, total, squares, largest, int(max_read))

    moments.__doc__ = (f"n draws of :func:`{sampler.__name__}` summed in one jitted loop: the same draws as n "
                       "calls on the same stream; returns :class:`SampleMoments`.")
    moments.__qualname__ = f"{sampler.__name__}.moments"
    sampler.kernel = kernel
    sampler.moments = moments


_equip_q(gaerr_gradient_estimate, _gaerr_gradient_kernel, 2)
_equip_q(gaelr_gradient_estimate, _gaelr_gradient_kernel, 1)


def gaerr_conditional_second_moment(X, y, W, q, k, c) -> np.ndarray:
    """E_A[‖g̃_t‖² | w_t, x_t, y_t] for each row t of (X, y, W) (a recorded path: W[t] = w_t), for GAERR's
    estimate with k draws from q and the inner-product draw ∝ w² (c None) or ∝ |w|·c:
    E_A‖x̃‖²·E_A φ̃² (the two estimates use independent draws).

    E_A‖x̃‖² = (1/k)Σ_{q_i>0} x_i²/q_i + (1 − 1/k)Σ_{q_i>0} x_i² (k i.i.d. draws from q);
    E_A φ̃² = Σ_{p_j>0} (w_j x_j)²/p_j − 2y⟨w, x⟩ + y², with p_j = w_j²/‖w‖² (line 8), where the sum is
    ‖w‖²Σ_{w_j≠0} x_j², or p_j ∝ |w_j|c_j (improved inner product), where it is (Σ|w_l|c_l)·Σ |w_j|x_j²/c_j.
    """
    live = q > 0
    x2 = X * X
    datapoint = (x2[:, live] / q[live]).sum(axis=1) / k + (1.0 - 1.0 / k) * x2[:, live].sum(axis=1)
    if c is None:
        first = (W * W).sum(axis=1) * np.where(W != 0.0, x2, 0.0).sum(axis=1)
    else:
        a = np.abs(W) * c
        safe = np.where(c > 0.0, c, 1.0)
        first = a.sum(axis=1) * np.where(a > 0.0, np.abs(W) * x2 / safe, 0.0).sum(axis=1)
    return datapoint * (first - 2.0 * y * (W * X).sum(axis=1) + y * y)


# --------------------------------------------------------------------------------------------
# cbss11 Baseline: the law of one example's estimates (A_t, v_t)
# --------------------------------------------------------------------------------------------


def baseline_estimate_distribution(x, k, *, estimator: str = "unbiased"
                                   ) -> list[tuple[Fraction, tuple[Fraction, ...]]]:
    """Exact law of one example's estimates (A_t, v_t) in cbss11 Figure 1 (Lemmas 7–9).

    The example's k attributes C are a uniform k-subset read in uniformly random order; I is the
    first k/2 of them and J the rest, so every ordered split (I, J) of every C has probability
    1/(binom(d, k)·binom(k, k/2)). Then v_t = (d/k)·Σ_{c∈C} x_c e_c (E v_t = x) and A_t has
    c·x_i x_j at (i, j) and (j, i) for (i, j) ∈ I×J, with c = 2d(d − 1)/k² and (d/k)·x_c² on the
    diagonal for c ∈ C (``estimator="unbiased"``, E A_t = x xᵀ, the corrected constants of
    :class:`theorycheck.algorithms.Baseline`), or the printed c = 2(d/k)² and a zero diagonal
    (``estimator="figure"``, biased). Inputs as for the other laws (ints, Fractions or floats at
    their exact binary value).

    Returns
    -------
    list of (Fraction, tuple of Fraction)
        (probability, (A_t in row-major order, then v_t)) pairs, d² + d entries each; the
        probabilities sum to exactly 1. Equal outcomes from different splits are not merged.
    """
    if estimator not in ("unbiased", "figure"):
        raise ParameterError(f"estimator must be 'unbiased' or 'figure', got {estimator!r}")
    if isinstance(x, np.ndarray) and x.ndim != 1:
        raise ParameterError(f"x must have 1 dimension(s), got shape {x.shape}")
    try:
        xs = tuple(_exact_scalar(f"x[{i}]", v) for i, v in enumerate(list(x)))
    except TypeError:
        raise ParameterError(f"x must be a sequence of numbers, got {x!r}") from None
    d = len(xs)
    if d == 0:
        raise ParameterError("x must have at least one attribute")
    k = check_int("k", k, low=2, high=d)
    if k % 2:
        raise ParameterError(f"k must be even for Baseline (cbss11 Figure 1 splits C in halves), got {k}")
    half = k // 2
    splits = math.comb(d, k) * math.comb(k, half)
    _check_outcome_count(splits)
    scale_v = Fraction(d, k)
    scale_off = Fraction(2 * d * (d - 1), k * k) if estimator == "unbiased" else 2 * scale_v * scale_v
    p = Fraction(1, splits)
    result = []
    for subset in itertools.combinations(range(d), k):
        for first in itertools.combinations(subset, half):
            second = [c for c in subset if c not in first]
            A = [[Fraction(0)] * d for _ in range(d)]
            v = [Fraction(0)] * d
            for c in subset:
                v[c] = scale_v * xs[c]
                if estimator == "unbiased":
                    A[c][c] = scale_v * xs[c] * xs[c]
            for i in first:
                for j in second:
                    A[i][j] = A[j][i] = scale_off * xs[i] * xs[j]
            result.append((p, tuple(a for row in A for a in row) + tuple(v)))
    return result
