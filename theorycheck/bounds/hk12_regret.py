"""Right-hand sides of the regret lemmas of Hazan & Koren (ICML 2012), §3, and the almost-sure
ranges the in-expectation checks need.

Notation of the paper: g̃_t is the gradient estimate of example t, ḡ_t = clip(g̃_t, 1/η) its
clipped version (AELR), w_t the iterate before update t, p_t = (z⁺_t, z⁻_t)/‖(z⁺_t, z⁻_t)‖₁
AELR's distribution over the 2d signed vertices (so w_t = B(p_t[:d] − p_t[d:])), ḡ'_t =
(ḡ_t, −ḡ_t), B the radius, m the number of examples, log natural.

* Lemma 3.2 (AERR, pathwise): Σ g̃_tᵀ(w_t − w) ≤ 2B²/η + (η/2)Σ‖g̃_t‖² for ‖w‖₂ ≤ B
  (:func:`lemma32_rhs`); its proof (the OGD telescoping) gives ‖w_1 − w‖²/(2η) in place of
  2B²/η (:func:`lemma32_rhs_sharp`), which is never larger when ‖w_1‖, ‖w‖ ≤ B.
* Lemma 3.5 (AELR, pathwise): Σ p_tᵀḡ'_t ≤ min_i Σ ḡ'_t[i] + log(2d)/η + ηΣ p_tᵀ(ḡ'_t)²
  (:func:`lemma35_rhs` is the part without the minimum).
* Lemma 3.6 (AELR, in expectation): E Σ ḡ_tᵀ(w_t − w*) ≤ B(log(2d)/η + ηG²m)
  (:func:`lemma36_rhs`) when ‖E_t g̃_t²‖∞ ≤ G².
* Lemma 3.7 (AELR, in expectation, 0 < η ≤ 1/(2G)): E Σ (g̃_t − ḡ_t)ᵀw_t ≤ 4BηG²m as printed;
  Kukliansky & Shamir's supplement states it with (w_t − w*) for every ‖w*‖₁ ≤ B, the form
  the proof of Theorem 3.4 adds to Lemma 3.6 (:func:`lemma37_rhs`, the same for both).

G. Lemma 3.8 gives G² = 8B²d/k (:func:`theorycheck.bounds.hk12.lemma33_second_moment`). Its
proof (Appendix A.5) first computes E_t[x̃_t[i]²] = ((d + k − 1)/k)·x_t[i]² and E_t[φ̃_t²] ≤
(‖w_t‖₁ + |y_t|)² ≤ 4B², so G² = 4B²(d + k − 1)/k (:func:`second_moment_sharp`) is also valid
for every design with ‖x‖∞ ≤ 1 and |y| ≤ B; it is at most 8B²d/k, so checking the lemmas with
it is the stronger check (their right-hand sides grow with G).
"""

from __future__ import annotations

import math

from ..validation import ParameterError, check_int, check_real

__all__ = [
    "lemma32_rhs",
    "lemma32_rhs_sharp",
    "lemma35_rhs",
    "lemma36_range",
    "lemma36_rhs",
    "lemma37_eta_max",
    "lemma37_range",
    "lemma37_rhs",
    "second_moment_sharp",
]


def _positive(name, value) -> float:
    return check_real(name, value, low=0.0, strict_low=True)


def second_moment_sharp(d, k, B) -> float:
    """G² = 4B²(d + k − 1)/k: a bound on ‖E_t g̃_t²‖∞ for AELR's estimator whenever ‖x‖∞ ≤ 1
    and |y| ≤ B (Appendix A.5 before its last loosening; ≤ Lemma 3.8's 8B²d/k)."""
    d = check_int("d", d, low=1)
    k = check_int("k", k, low=1)
    if k > d:
        raise ParameterError(f"k must not exceed d: k={k}, d={d}")
    return 4.0 * _positive("B", B) ** 2 * (d + k - 1) / k


def lemma32_rhs(B, eta, sum_sq) -> float:
    """Lemma 3.2, eq. (4): 2B²/η + (η/2)·Σ_t ‖g̃_t‖₂² (``sum_sq`` is the sum)."""
    eta = _positive("eta", eta)
    return 2.0 * _positive("B", B) ** 2 / eta + 0.5 * eta * float(sum_sq)


def lemma32_rhs_sharp(dist_sq, eta, sum_sq) -> float:
    """The bound the proof of Lemma 3.2 gives: ‖w_1 − w‖²/(2η) + (η/2)·Σ_t ‖g̃_t‖₂², with
    ``dist_sq`` = ‖w_1 − w‖₂² (the OGD telescoping; projections only decrease distances)."""
    eta = _positive("eta", eta)
    return float(dist_sq) / (2.0 * eta) + 0.5 * eta * float(sum_sq)


def lemma35_rhs(d, eta, weighted_sq) -> float:
    """Lemma 3.5 without the minimum: log(2d)/η + η·Σ_t p_tᵀ(ḡ'_t)² (``weighted_sq`` is the sum)."""
    d = check_int("d", d, low=1)
    eta = _positive("eta", eta)
    return math.log(2.0 * d) / eta + eta * float(weighted_sq)


def lemma36_rhs(d, B, eta, G2, m) -> float:
    """Lemma 3.6: B·(log(2d)/η + η·G²·m)."""
    d = check_int("d", d, low=1)
    m = check_int("m", m, low=1)
    eta = _positive("eta", eta)
    return _positive("B", B) * (math.log(2.0 * d) / eta + eta * _positive("G2", G2) * m)


def lemma37_rhs(B, eta, G2, m) -> float:
    """Lemma 3.7 (printed and corrected forms alike): 4·B·η·G²·m."""
    m = check_int("m", m, low=1)
    return 4.0 * _positive("B", B) * _positive("eta", eta) * _positive("G2", G2) * m


def lemma37_eta_max(G2) -> float:
    """The largest step size Lemma 3.7 allows: η = 1/(2G)."""
    return 1.0 / (2.0 * math.sqrt(_positive("G2", G2)))


def _estimate_cap(d, B) -> float:
    """|g̃_t[i]| ≤ 2Bd for AELR's estimator: |x̃_t[i]| ≤ (d/k)·k·|x_t[i]| ≤ d (all k draws on i)
    and |φ̃_t| ≤ ‖w_t‖₁‖x_t‖∞ + |y_t| ≤ 2B."""
    return 2.0 * _positive("B", B) * check_int("d", d, low=1)


def lemma36_range(d, B, eta, m) -> tuple[float, float]:
    """Almost-sure range of sup_{‖w‖₁≤B} Σ_t ḡ_tᵀ(w_t − w) for AELR under the hypotheses.

    Lower end 0: the supremum is B·(Σ_t p_tᵀḡ'_t − min_i Σ_t ḡ'_t[i]), the regret of the
    exponential weights z_t against their best coordinate, and that is never negative: by
    Jensen, log‖z_{t+1}‖₁ − log‖z_t‖₁ = log Σ_i p_t[i]e^{−ηḡ'_t[i]} ≥ −η p_tᵀḡ'_t, so
    log‖z_{m+1}‖₁ − log 2d ≥ −ηΣ_t p_tᵀḡ'_t, while log‖z_{m+1}‖₁ ≤ log 2d − η·min_i Σ_t ḡ'_t[i].
    Upper end: Lemma 3.5 holds on every path, and p_tᵀ(ḡ'_t)² ≤ c² with c = min(1/η, 2Bd)
    (clipping, and :func:`_estimate_cap`), so the supremum is ≤ B(log(2d)/η + η·m·c²).
    """
    d = check_int("d", d, low=1)
    m = check_int("m", m, low=1)
    eta = _positive("eta", eta)
    c = min(1.0 / eta, _estimate_cap(d, B))
    return 0.0, _positive("B", B) * (math.log(2.0 * d) / eta + eta * m * c * c)


def lemma37_range(d, B, eta, m) -> tuple[float, float]:
    """Almost-sure range of Σ_t (g̃_t − ḡ_t)ᵀ(w_t − w*) for AELR under the hypotheses, for any
    ‖w*‖₁ ≤ B (w* = 0 gives the printed form): each step is at most ‖g̃_t − ḡ_t‖∞·‖w_t − w*‖₁ ≤
    (2Bd − 1/η)₊·2B in absolute value (clipping at 1/η removes at most |g̃_t[i]| − 1/η, and
    |g̃_t[i]| ≤ 2Bd); the range is ±m times that. When 2Bd ≤ 1/η no coordinate can ever be
    clipped and the range is {0}: the lemma then holds trivially."""
    m = check_int("m", m, low=1)
    eta = _positive("eta", eta)
    top = m * 2.0 * _positive("B", B) * max(_estimate_cap(d, B) - 1.0 / eta, 0.0)
    return -top, top
