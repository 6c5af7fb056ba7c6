"""Right-hand sides of hk12 §4 (support-vector regression with limited observation).

* Lemma 4.1 (GenEst, Procedure 3): expected number of attributes ≤ 3 (:data:`GENEST_QUERIES`);
  second moment ≤ (4B)^{2ν}·2·(f′₊(1))² with ν = 2·log₂⌈4B²⌉ and f′₊(1) = Σ|aₙ| (the last line of
  the proof in Appendix A.6, :func:`lemma41_second_moment_bound`).
* Claim 4.2: sup_x |f_ε(x) − |x|_δ| ≤ ε (:func:`claim42_bound`); the exact supremum is ε/√π
  (:func:`claim42_sup`, our derivation: ρ(u) − |u| is even, decreasing in |u| and equals 1/√π at 0).
* Theorem 4.4: AESVR reads at most k + 6 attributes per example in expectation
  (:func:`thm44_queries_bound`); its output is 2ε-accurate for the δ-insensitive loss once the
  smoothed problem is ε-accurate, at the rate exp(O(log²(B/ε)))·√(d/(km)) (:data:`THM44_EXPONENT`).
"""

from __future__ import annotations

import math

from ..validation import check_int, check_real

__all__ = ["GENEST_QUERIES", "THM44_EXPONENT", "aesvr_eta", "claim42_bound", "claim42_sup",
           "lemma41_second_moment_bound", "thm44_queries_bound"]

#: Lemma 4.1: E[attributes read by GenEst] ≤ 3.
GENEST_QUERIES = 3.0
#: Theorem 4.4's proof: the smoothed excess risk is O(m^-1/2) at fixed d, k, B, ε.
THM44_EXPONENT = -0.5


def lemma41_second_moment_bound(B, abs_coefficient_sum) -> float:
    """The proof's bound on E φ̂²: (4B)^{2ν}·2·(f′₊(1))², ν = 2·log₂⌈4B²⌉ (Appendix A.6)."""
    B = check_real("B", B, low=0.0, strict_low=True)
    s = check_real("abs_coefficient_sum", abs_coefficient_sum, low=0.0)
    nu = 2.0 * math.log2(max(1, math.ceil(4.0 * B * B)))
    return (4.0 * B) ** (2.0 * nu) * 2.0 * s * s


def claim42_bound(eps) -> float:
    """Claim 4.2: sup_x |f_ε(x) − |x|_δ| ≤ ε."""
    return check_real("eps", eps, low=0.0, strict_low=True)


def claim42_sup(eps) -> float:
    """The exact supremum ε/√π, reached at x = 0 when δ = 0 (f_ε(0) = ε·E|Z| with Z ~ N(0, ½), ρ′ = erf). At
    x = ±δ only one side of the kink is smoothed, so there the gap tends to ε/(2√π) as δ/ε → ∞, half of it."""
    return check_real("eps", eps, low=0.0, strict_low=True) / math.sqrt(math.pi)


def thm44_queries_bound(k) -> float:
    """Theorem 4.4: at most k + 6 attributes per example in expectation (k for x̃, ≤ 3 per GenEst)."""
    return float(check_int("k", k, low=1) + 6)


def aesvr_eta(d, k, m, B, phi_second_moment=1.0) -> float:
    """OGD's step 2B/(G√m) (diameter 2B) with G² = Φ²·2d/k (E‖x̃‖² ≤ (d + k − 1)/k ≤ 2d/k for ‖x‖ ≤ 1,
    Lemma 3.3) and Φ² a bound on E φ̃²: η = B·√(2k/(dm))/Φ. The theorem leaves η "properly tuned"."""
    d, k, m = check_int("d", d, low=1), check_int("k", k, low=1), check_int("m", m, low=1)
    B = check_real("B", B, low=0.0, strict_low=True)
    phi2 = check_real("phi_second_moment", phi_second_moment, low=0.0, strict_low=True)
    return B * math.sqrt(2.0 * k / (d * m)) / math.sqrt(phi2)
