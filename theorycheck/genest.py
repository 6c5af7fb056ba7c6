"""hk12 §4.1's GenEst (Procedure 3): an unbiased estimate of f′(⟨w,x⟩ − y) for an analytic f, from a random
number of attribute queries; with the Taylor coefficients of the functions its claims use (:func:`taylor_exp`,
:func:`taylor_sin`, :func:`taylor_rho_prime`). Split from :mod:`theorycheck.estimators` (the linear learners'
gradient estimates), whose validation and exact-arithmetic helpers it shares.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numba import njit

from .estimators import _check_example, _check_outcome_count, _exact_example, _exact_scalar, _multisets
from .rng import as_kernel_state, next_uniform, next_weighted_index
from .validation import ParameterError, check_int, check_matrix

__all__ = [
    "GenEstMoments",
    "GenEstSample",
    "genest",
    "genest_distribution",
    "genest_expected_queries",
    "genest_moments",
    "genest_threshold",
    "taylor_exp",
    "taylor_rho_prime",
    "taylor_sin",
]

#
# Three forms, as above: the jitted kernel ``_genest_kernel(w, x, y, coef, N, nu, state, scale=1) ->
# (estimate, queries)``; the public :func:`genest` with ``random_state``; and the exact law
# :func:`genest_distribution` (rational, for a polynomial f′ whose degree keeps every n in the
# first branch, so that the geometric randomness is finite), with :func:`genest_moments`, the
# exact mean, second moment and expected number of queries of any coefficient sequence
# (series summed in floats, the expected queries in rationals).
#
# Interpretations. Line 1's B is the bound of the lemma's hypotheses (‖x‖₂ ≤ 1, ‖w‖₂ ≤ B,
# |y| ≤ B); the caller passes it (AESVR passes 2B/ε, the bound on its scaled inputs). Line 3's
# threshold n ≤ 2·log₂N is compared exactly: n ≤ ν₀ := ⌊log₂ N²⌋. "Attributes read" counts the
# queries of x (n in the first branch, n·N in the second; a coordinate drawn twice is counted
# twice), which is what the lemma's proof counts. At w = 0, ⟨w,x⟩ = 0 is known: θ̃_r = −y with no
# query. Coefficients beyond the supplied ones are 0 (a polynomial f′), but lines 4–12 still read
# the attributes, as printed.


@njit(cache=True)
def _genest_kernel(w, x, y, coef, N, nu, state, scale=1.0):
    """One draw of Procedure 3 on x/scale (each attribute queried is divided when read: AESVR's x/ε without
    reading the others); returns (φ̂, number of queries of x)."""
    d = x.shape[0]
    cumulative = np.empty(d)
    sq = 0.0
    for i in range(d):
        sq += w[i] * w[i]
        cumulative[i] = sq
    n = 0  # line 2: Pr[n] = 2^-(n+1), the number of fair-coin heads before the first tail
    while next_uniform(state) < 0.5:
        n += 1
    reps = 1 if n <= nu else N  # lines 3-13: one draw per factor, or the mean of N
    product = 1.0
    queries = 0
    for _ in range(n):
        total = 0.0
        if sq > 0.0:
            for _s in range(reps):
                j = next_weighted_index(state, cumulative)
                while w[j] == 0.0:  # only reachable through rounding at the top end
                    j -= 1
                total += sq * (x[j] / scale) / w[j]
                queries += 1
        product *= total / reps - y
    a_n = coef[n] if n < coef.shape[0] else 0.0
    return 2.0 ** (n + 1) * a_n * product, queries


def genest_threshold(B) -> tuple[int, int]:
    """(N, ν₀) of Procedure 3 for the bound B: N = ⌈4B²⌉ (line 1) and ν₀ = ⌊2·log₂ N⌋, the
    largest n taking the first branch (line 3), both computed exactly."""
    b = _exact_scalar("B", B)
    if b <= 0:
        raise ParameterError(f"B must be > 0, got {B!r}")
    N = max(1, math.ceil(4 * b * b))
    return N, (N * N).bit_length() - 1


def _coefficients(coefficients) -> np.ndarray:
    coef = np.array(check_matrix("coefficients", coefficients, ndim=1), dtype=np.float64)
    if coef.shape[0] == 0:
        raise ParameterError("coefficients must have at least one entry")
    return coef


def genest(w, x, y, coefficients, B, *, random_state) -> tuple[float, int]:
    """One draw of hk12's GenEst (Procedure 3): an unbiased estimate of f′(⟨w,x⟩ − y) where
    f′(t) = Σ_n coefficients[n]·tⁿ, reading a random number of attributes of x.

    ``B`` is the bound of Lemma 4.1's hypotheses (it sets N = ⌈4B²⌉ and the threshold). Returns
    (estimate, number of queries of x). ``random_state``: the one convention of
    :mod:`theorycheck.rng`. ``genest.kernel`` is the jitted kernel; ``genest.moments(..., n,
    random_state=..., cap=...)`` draws n estimates in one jitted loop and returns a
    :class:`GenEstSample`."""
    w, x, y = _check_example(w, x, y, finite_x=False)  # the attributes it queries, and no other, are read
    coef = _coefficients(coefficients)
    N, nu = genest_threshold(B)
    est, queries = _genest_kernel(w, x, y, coef, N, nu, as_kernel_state(random_state))
    if not math.isfinite(est):
        raise ParameterError("x has a NaN or infinite value among the attributes GenEst read")
    return float(est), int(queries)


@njit(cache=True)
def _genest_draws(w, x, y, coef, N, nu, n, cap, state):
    total = squares = 0.0
    queries = queries_sq = 0.0
    max_queries = 0
    for _ in range(n):
        e, q = _genest_kernel(w, x, y, coef, N, nu, state)
        total += e
        squares += e * e
        qc = min(q, cap)
        queries += qc
        queries_sq += qc * qc
        max_queries = max(max_queries, q)
    return total, squares, queries, queries_sq, max_queries


class GenEstSample(NamedTuple):
    """Sums over n draws of GenEst: Σφ̂, Σφ̂², Σ min(queries, cap), Σ min(queries, cap)² and the
    largest number of queries of one draw."""

    n: int
    total: float
    squares: float
    queries: float
    queries_squares: float
    max_queries: int


def _genest_moments_sampled(w, x, y, coefficients, B, n, *, random_state, cap=2**62) -> GenEstSample:
    """n draws of :func:`genest` summed in one jitted loop (the same draws as n calls on the same
    stream); the queries are capped at ``cap`` in the two query sums."""
    w, x, y = _check_example(w, x, y)
    coef = _coefficients(coefficients)
    N, nu = genest_threshold(B)
    n = check_int("n", n, low=1)
    cap = check_int("cap", cap, low=1)
    out = _genest_draws(w, x, y, coef, N, nu, n, cap, as_kernel_state(random_state))
    return GenEstSample(n, float(out[0]), float(out[1]), float(out[2]), float(out[3]), int(out[4]))


genest.kernel = _genest_kernel
genest.moments = _genest_moments_sampled


class GenEstMoments(NamedTuple):
    """Exact moments of GenEst's law: the mean Σ aₙθⁿ, the second moment Σ 2ⁿ⁺¹aₙ²sₙⁿ (sₙ = E θ̃_r²
    in n's branch), the expected number of queries (a Fraction) and θ = ⟨w,x⟩ − y."""

    mean: float
    second_moment: float
    expected_queries: Fraction
    theta: float


def genest_expected_queries(B, *, w_is_zero: bool = False) -> Fraction:
    """E[queries] of GenEst, exactly: Σ_{n≤ν₀} n/2ⁿ⁺¹ + N·Σ_{n>ν₀} n/2ⁿ⁺¹ = 1 + (N − 1)(r + 1)/2^r
    with r = ν₀ + 1 (from Σ_{n≥r} n/2ⁿ⁺¹ = (r + 1)/2^r); 0 when w = 0 (nothing is read)."""
    if w_is_zero:
        return Fraction(0)
    N, nu = genest_threshold(B)
    r = nu + 1
    return 1 + Fraction((N - 1) * (r + 1), 2**r)


def _power(base: float, n: int, log_factor: float) -> float:
    """exp(log_factor)·baseⁿ for base > 0 through logarithms: inf on overflow, 0 on underflow,
    never an OverflowError."""
    exponent = log_factor + n * math.log(base)
    return math.exp(exponent) if exponent < 709.0 else math.inf


def genest_moments(w, x, y, coefficients, B) -> GenEstMoments:
    """The exact moments of :func:`genest` (the supplied coefficients are f′'s, all later ones
    0): E φ̂ = Σ aₙθⁿ and E φ̂² = Σ 2ⁿ⁺¹aₙ²sₙⁿ with s₁ = Σ_j (w_j²/‖w‖²)(‖w‖²x_j/w_j − y)² in the
    first branch and θ² + (s₁ − θ²)/N in the second (independent factors), summed in floats
    (through logarithms, so a huge term gives inf, never an error). The mean's alternating series
    cancels catastrophically for large |θ| (erf: beyond |θ| ≈ 4 the float sum is inaccurate)."""
    w, x, y = _check_example(w, x, y)
    coef = _coefficients(coefficients)
    N, nu = genest_threshold(B)
    theta = float(w @ x) - y
    sq = float(w @ w)
    if sq > 0.0:
        nz = w != 0.0
        s1 = float(np.sum(w[nz] ** 2 / sq * (sq * x[nz] / w[nz] - y) ** 2))
    else:
        s1 = theta * theta
    sN = theta * theta + (s1 - theta * theta) / N
    mean = second = 0.0
    for n, a in enumerate(coef):
        if a == 0.0:
            continue
        log_a = math.log(abs(a))
        if n == 0 or abs(theta) <= 1.0:
            mean += a * theta**n
        elif theta != 0.0:
            mean += math.copysign(_power(abs(theta), n, log_a), a * (theta if n % 2 else 1.0))
        s = s1 if n <= nu else sN
        if n == 0:
            second += 2.0 * a * a
        elif s > 0.0:
            second += 2.0 * _power(2.0 * s, n, 2.0 * log_a)
    return GenEstMoments(mean, second, genest_expected_queries(B, w_is_zero=sq == 0.0), theta)


def genest_distribution(w, x, y, coefficients, B) -> list[tuple[Fraction, Fraction, int]]:
    """GenEst's complete law in rationals, ``[(probability, estimate, queries), ...]``, for a
    polynomial f′ (finitely many ``coefficients``, rationals) of degree ≤ ν₀, so that every n
    carrying a non-zero coefficient takes the first branch and is enumerated (draws as
    multisets). All n beyond the degree give φ̂ = 0; they are lumped into one outcome of
    probability 2^-(D+1) (D the degree) whose ``queries`` is −1 (their number is the tail
    E[queries | n > D], reported by :func:`genest_expected_queries`)."""
    ws, xs, yv = _exact_example(w, x, y)
    coefs = [_exact_scalar("coefficient", a) for a in coefficients]
    N, nu = genest_threshold(B)
    D = len(coefs) - 1
    if D > nu:
        raise ParameterError(f"the exact law needs degree ≤ ν₀ = {nu} (got {D}): the second branch reads N = {N} "
                             "attributes per factor, too many outcomes")
    sq = sum((v * v for v in ws), Fraction(0))
    support = [j for j, v in enumerate(ws) if v != 0]
    probs = tuple(ws[j] * ws[j] / sq for j in support) if sq else ()
    values = tuple(sq * xs[j] / ws[j] - yv for j in support) if sq else ()
    out: list[tuple[Fraction, Fraction, int]] = []
    for n in range(D + 1):
        pn = Fraction(1, 2 ** (n + 1))
        if not sq or n == 0:
            out.append((pn, 2 ** (n + 1) * coefs[n] * (-yv) ** n, 0))
            continue
        _check_outcome_count(len(support) ** n)
        for weight, counts in _multisets(probs, n):
            prod = Fraction(1)
            for i, c in counts.items():
                prod *= values[i] ** c
            out.append((pn * weight, 2 ** (n + 1) * coefs[n] * prod, n))
    out.append((Fraction(1, 2 ** (D + 1)), Fraction(0), -1))
    return out


# Taylor coefficients of f′ for three analytic f′ (the lemma's examples and eq. (7))


def _inverse_factorials(n_terms: int) -> np.ndarray:
    """1/n! for n < n_terms, by the float recursion (underflows to 0 instead of overflowing)."""
    n_terms = check_int("n_terms", n_terms, low=1)
    out = np.empty(n_terms)
    value = 1.0
    for n in range(n_terms):
        if n:
            value /= n
        out[n] = value
    return out


def taylor_exp(n_terms: int = 40) -> np.ndarray:
    """Coefficients of f′ = exp: aₙ = 1/n!."""
    return _inverse_factorials(n_terms)


def taylor_sin(n_terms: int = 40) -> np.ndarray:
    """Coefficients of f′ = sin: a_{2n+1} = (−1)ⁿ/(2n + 1)!, even ones 0."""
    inv = _inverse_factorials(n_terms)
    return np.array([0.0 if n % 2 == 0 else (-1.0) ** (n // 2) * inv[n] for n in range(len(inv))])


def taylor_rho_prime(n_terms: int = 60) -> np.ndarray:
    """Coefficients of ρ′ = erf (hk12 eq. (7)): a_{2n} = 0, a_{2n+1} = (2/√π)(−1)ⁿ/(n!(2n + 1))."""
    n_terms = check_int("n_terms", n_terms, low=1)
    inv = _inverse_factorials(n_terms // 2 + 1)
    out = np.zeros(n_terms)
    for m in range(1, n_terms, 2):
        n = m // 2
        out[m] = 2.0 / math.sqrt(math.pi) * (-1.0) ** n * inv[n] / (2 * n + 1)
    return out
