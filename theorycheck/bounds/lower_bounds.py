"""Right-hand sides of the two lower bounds and the algebra of their proofs.

cbss11 Theorem 1 (squared loss without ½, ‖x‖∞ ≤ 1, |y| ≤ 1): for d ≥ 4 and ε ∈ (0, 1/16), on
the good-feature distribution P_j with p = √ε, any learner that outputs w with
L(w) − L(w*) < ε for every j must see k ≥ ½⌊d/(96ε)⌋ attributes (:func:`cbss11_thm1_attributes`).
The proof (Appendix A.4–A.6) compares the reward T/2 + (T − k)p of the bandit strategy built
from the learner (eq. 13) with the Auer et al. (2003) upper bound
T/2 + p(T/d + T·√(−(T/d)·ln(1 − 4p²))) and its relaxation T/2 + p(T/d + T·√(6Tp²/d)) (eq. 14,
from −ln(1 − q) ≤ (3/2)q on [0, ¼]), solves for k ≥ T(1 − 1/d − √(6Tp²/d)) and takes
T = ⌊d/(96p²)⌋. The pieces are :func:`cbss11_reward_lower`, :func:`cbss11_reward_upper`,
:func:`cbss11_reward_upper_relaxed`, :func:`cbss11_k_from_rewards`, :func:`cbss11_horizon`.

hk12 Theorem 2.2 / B.1 (loss (⟨w, x⟩ − y)² in Appendix B, ‖x‖₂ ≤ 1, ‖w‖₂ ≤ 1): for
ε = Ω(1/√d), any learner needs Ω(d/ε²) observed attributes (Ω(d/(kε²)) examples at k per
example) to reach an O(ε)-approximate solution. The text gives no constant: :func:`hk12_thm22_order`
is the order d/ε² with constant 1, to be compared with measured counts through exponents and a
printed constant. Lemma B.4 (:func:`hk12_lemmaB4_risk`) and Lemma B.5's thresholds
(:func:`hk12_lemmaB5_premise`, δ = 1/100000) are the proof's exact constants.

For comparison with the lower bounds, :func:`hk12_aerr_attributes` is the number of attributes
after which Theorem 3.1's guarantee for AERR (½-loss excess 4B²√(2d/(km)), (k + 1) attributes per
example) falls to ε; the order is d/ε², matching hk12's lower bound.

Everything is exact where the inputs are: a float ε is read as the rational it represents.
Two exact tools serve the proof checks: :func:`neg_log1m_enclosure` (rational bounds on
−ln(1 − q)) and :func:`sqrt_at_least` / :func:`sqrt_below` (comparisons with square roots and
rational approximations of them, by integer square roots; :func:`le_plus_sqrt`, :func:`ge_sqrt`).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..validation import ParameterError, check_int, check_real

__all__ = [
    "HK12_DELTA",
    "cbss11_horizon",
    "cbss11_k_from_rewards",
    "cbss11_log_relaxation",
    "cbss11_reward_lower",
    "cbss11_reward_upper",
    "cbss11_reward_upper_relaxed",
    "cbss11_thm1_attributes",
    "ge_sqrt",
    "hk12_aerr_attributes",
    "hk12_lemmaB4_risk",
    "hk12_lemmaB5_premise",
    "hk12_thm22_order",
    "le_plus_sqrt",
    "neg_log1m_enclosure",
    "sqrt_at_least",
    "sqrt_below",
]

HK12_DELTA = Fraction(1, 100000)  # the δ of hk12 Lemma B.5


def _rational(name: str, value, *, low=None, high=None, strict_low=False, strict_high=False) -> Fraction:
    if isinstance(value, Fraction):
        x = value
    else:
        x = Fraction(check_real(name, value))
    if low is not None and (x < low or (strict_low and x == low)):
        raise ParameterError(f"{name} must be {'>' if strict_low else '≥'} {low}, got {x}")
    if high is not None and (x > high or (strict_high and x == high)):
        raise ParameterError(f"{name} must be {'<' if strict_high else '≤'} {high}, got {x}")
    return x


# --------------------------------------------------------------------------------------
# cbss11 Theorem 1
# --------------------------------------------------------------------------------------


def cbss11_thm1_attributes(d, eps) -> Fraction:
    """½⌊d/(96ε)⌋, Theorem 1's lower bound on the attributes a learner must see (d ≥ 4,
    0 < ε < 1/16); exact (a Fraction, an integer or a half-integer)."""
    d = check_int("d", d, low=4)
    eps = _rational("eps", eps, low=0, high=Fraction(1, 16), strict_low=True, strict_high=True)
    return Fraction(math.floor(Fraction(d) / (96 * eps)), 2)


def cbss11_log_relaxation(q) -> Fraction:
    """(3/2)q, the upper bound on −ln(1 − q) for q ∈ [0, ¼] that turns Auer et al.'s bound into (14)."""
    return Fraction(3, 2) * Fraction(q)


def cbss11_horizon(d, p2) -> int:
    """T = ⌊d/(96p²)⌋, the horizon the proof picks (A.6)."""
    d = check_int("d", d, low=1)
    p2 = _rational("p2", p2, low=0, strict_low=True)
    return math.floor(Fraction(d) / (96 * p2))


def cbss11_reward_lower(T, k, p) -> Fraction:
    """Eq. (13): the reward k/2 + (T − k)(½ + p) = T/2 + (T − k)p of the strategy that learns from
    k pulls and then always pulls the identified arm (exact for rational p)."""
    T, k, p = Fraction(T), Fraction(k), Fraction(p)
    return T / 2 + (T - k) * p


def cbss11_reward_upper(T, d, p) -> float:
    """Auer et al.'s bound as used in (14): T/2 + p(T/d + T·√(−(T/d)·ln(1 − 4p²))) (float)."""
    T, d, p = float(T), float(d), float(p)
    return T / 2 + p * (T / d + T * math.sqrt(-(T / d) * math.log1p(-4 * p * p)))


def cbss11_reward_upper_relaxed(T, d, p) -> float:
    """The right side of (14): T/2 + p(T/d + T·√(6Tp²/d)) (float)."""
    T, d, p = float(T), float(d), float(p)
    return T / 2 + p * (T / d + T * math.sqrt(6 * T * p * p / d))


def cbss11_k_from_rewards(T, d, p2) -> float:
    """k ≥ T(1 − 1/d − √(6Tp²/d)), (13) ≤ (14) solved for k (float; p² = ``p2``)."""
    T, d, p2 = float(T), float(d), float(p2)
    return T * (1 - 1 / d - math.sqrt(6 * T * p2 / d))


# --------------------------------------------------------------------------------------
# hk12 Theorem 2.2 / Appendix B
# --------------------------------------------------------------------------------------


def hk12_thm22_order(d, eps) -> float:
    """d/ε², the order of Theorem B.1 (attributes; no constant in the text)."""
    d = check_int("d", d, low=1)
    eps = check_real("eps", eps, low=0.0, strict_low=True)
    return d / (eps * eps)


def hk12_lemmaB4_risk(eps) -> Fraction:
    """(1 − ε)², Lemma B.4's risk of w* = ε·r_T (k = 1/ε², loss without ½)."""
    eps = _rational("eps", eps, low=0, high=1, strict_low=True)
    return (1 - eps) ** 2


def hk12_lemmaB5_premise(eps, delta=HK12_DELTA) -> Fraction:
    """1 − 2(1 − δ)ε, the risk level below which Lemma B.5 concludes (δ = 1/100000)."""
    eps = _rational("eps", eps, low=0, strict_low=True)
    delta = _rational("delta", delta, low=0, high=1)
    return 1 - 2 * (1 - delta) * eps


def hk12_aerr_attributes(d, eps, k, B=1.0, *, half=True) -> float:
    """Attributes (k + 1)·m after which hk12 Theorem 3.1's AERR guarantee 4B²√(2d/(km)) (½-loss)
    is ≤ ε: m = 32B⁴d/(kε²). With ``half=False`` ε is a full-loss excess (twice the ½-loss one),
    so m = 128B⁴d/(kε²)."""
    d = check_int("d", d, low=1)
    k = check_int("k", k, low=1)
    eps = check_real("eps", eps, low=0.0, strict_low=True)
    B = check_real("B", B, low=0.0, strict_low=True)
    factor = 32.0 if half else 128.0
    return (k + 1) * factor * B**4 * d / (k * eps * eps)


# --------------------------------------------------------------------------------------
# exact tools
# --------------------------------------------------------------------------------------


def neg_log1m_enclosure(q, terms: int = 40) -> tuple[Fraction, Fraction]:
    """Rationals lo ≤ −ln(1 − q) ≤ hi for a rational 0 ≤ q < 1.

    −ln(1 − q) = Σ_{n≥1} qⁿ/n; the partial sum S_M of the first M = ``terms`` terms is a lower
    bound (every term is ≥ 0) and the tail is at most q^{M+1}/((M + 1)(1 − q)) (a geometric series
    dominating Σ_{n>M} qⁿ/n), so hi = S_M + that. At q = ½ and M = 40 the width is below 2^−40;
    closer to 1, more terms are needed for the same width.
    """
    q = Fraction(q)
    if not 0 <= q < 1:
        raise ParameterError(f"q must lie in [0, 1), got {q}")
    terms = check_int("terms", terms, low=1)
    total, power = Fraction(0), Fraction(1)
    for n in range(1, terms + 1):
        power *= q
        total += power / n
    tail = power * q / ((terms + 1) * (1 - q))
    return total, total + tail


def sqrt_at_least(a, b) -> bool:
    """Whether a ≥ √b, exactly, for rationals a and b ≥ 0."""
    a, b = Fraction(a), Fraction(b)
    if b < 0:
        raise ParameterError(f"b must be ≥ 0, got {b}")
    return a >= 0 and a * a >= b


def le_plus_sqrt(a, b, c, e) -> bool:
    """a ≤ b + c·√e exactly, for rationals with c ≥ 0 and e ≥ 0 (by squaring)."""
    gap = Fraction(a) - Fraction(b)
    return gap <= 0 or (c > 0 and gap * gap <= Fraction(c) ** 2 * Fraction(e))


def ge_sqrt(lhs, c, e) -> bool:
    """lhs ≥ c·√e exactly, for rationals with c ≥ 0 and e ≥ 0."""
    lhs = Fraction(lhs)
    return lhs >= 0 and lhs * lhs >= Fraction(c) ** 2 * Fraction(e)


def sqrt_below(b, digits: int = 30) -> Fraction:
    """A rational r with r ≤ √b < r + 10^−digits, for a rational b ≥ 0 (integer square roots)."""
    b = Fraction(b)
    if b < 0:
        raise ParameterError(f"b must be ≥ 0, got {b}")
    scale = 10**digits
    # ⌊√(b)·scale⌋ = ⌊√(⌊b·scale²⌋)⌋ since ⌊√⌊x⌋⌋ = ⌊√x⌋ for x ≥ 0
    return Fraction(math.isqrt(math.floor(b * scale * scale)), scale)
