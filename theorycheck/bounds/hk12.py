"""Right-hand sides of the Ridge and Lasso theorems of Hazan & Koren (ICML 2012).

Conventions of the paper: the loss is ½(⟨w, x⟩ − y)², the learner reads k + 1 attributes of
each example (k ≥ 1 for the data-point estimate, one more for the inner product), m is the
number of training examples, d the dimension and B the radius of the norm ball (and the bound
on |y|). ``log`` is natural.

* Theorem 3.1 (AERR, L2 ball, ‖x‖₂ ≤ 1): with η = √(k/(2dm)),
  E[L(w̄)] − L(w*) ≤ 4B²√(2d/(km)).
* Theorem 3.4 (AELR, L1 ball, ‖x‖∞ ≤ 1, m ≥ log 2d): with the stated η,
  E[L(w̄)] − L(w*) ≤ 4B²√(10 d log(2d)/(km)).

Both proofs go through a bound for a general step size, which is what a run with another η
(or the theorem's η for B ≠ 1 in Theorem 3.4, see :func:`thm34_eta`) is entitled to:

* Theorem 3.1's proof: Lemma 3.2 (OGD regret, diameter 2B) and Lemma 3.3 (G² ≤ 8B²d/k)
  give E[L(w̄)] − L(w*) ≤ 2B²/(ηm) + ηG²/2 (:func:`thm31_bound_for_eta`);
* Theorem 3.4's proof: Lemmas 3.6–3.8 give B(log(2d)/(ηm) + 5ηG²) for 0 < η ≤ 1/(2G)
  (:func:`thm34_bound_for_eta`; the same expression as Theorem 4.1 of Kukliansky & Shamir
  2015, whose supplement corrects Lemma 3.7 without changing the constant 5).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..validation import ParameterError, check_int, check_real

__all__ = [
    "lemma33_second_moment",
    "thm31_bound_for_eta",
    "thm31_eta",
    "thm31_excess_risk",
    "thm34_bound_for_eta",
    "thm34_eta",
    "thm34_excess_risk",
]


def _dkm(d, k, m) -> tuple[int, int, int]:
    d = check_int("d", d, low=1)
    k = check_int("k", k, low=1)
    if k > d:
        raise ParameterError(f"k must not exceed d (the number of attributes): k={k}, d={d}")
    m = check_int("m", m, low=1)
    return d, k, m


def _radius(B) -> float:
    return check_real("B", B, low=0.0, strict_low=True)


def lemma33_second_moment(d, k, B) -> float:
    """G² = 8B²d/k: Lemma 3.3 (AERR, max_t E‖g̃_t‖₂²) and Lemma 3.8 (AELR, ‖E g̃_t²‖∞)."""
    d = check_int("d", d, low=1)
    k = check_int("k", k, low=1)
    return 8.0 * _radius(B) ** 2 * d / k


def thm31_eta(d, k, m) -> float:
    """Theorem 3.1's step size η = √(k/(2dm)) (the proof's 2B/(G√m) with G² = 8B²d/k)."""
    d, k, m = _dkm(d, k, m)
    return math.sqrt(k / (2.0 * d * m))


def thm31_excess_risk(d, k, m, B) -> float:
    """Theorem 3.1: E[L(w̄)] − min_{‖w‖₂≤B} L(w) ≤ 4B²√(2d/(km)) for AERR with
    η = √(k/(2dm)), when ‖x‖₂ ≤ 1 and |y| ≤ B almost surely."""
    d, k, m = _dkm(d, k, m)
    return 4.0 * _radius(B) ** 2 * math.sqrt(2.0 * d / (k * m))


def thm31_bound_for_eta(d, k, m, B, eta) -> float:
    """What the proof of Theorem 3.1 gives for a step size η: 2B²/(ηm) + ηG²/2, G² = 8B²d/k.

    Equals :func:`thm31_excess_risk` at η = :func:`thm31_eta`; for η = c·√(k/(2dm)) it is
    (c + 1/c)/2 times that value.
    """
    d, k, m = _dkm(d, k, m)
    B = _radius(B)
    eta = check_real("eta", eta, low=0.0, strict_low=True)
    return 2.0 * B * B / (eta * m) + eta * lemma33_second_moment(d, k, B) / 2.0


def thm34_eta(d, k, m, B, which: str = "theorem") -> float:
    """Theorem 3.4's step size.

    ``which="theorem"``: η = (1/(4B²))·√(2k log(2d)/(5md)), as the theorem states it.
    ``which="proof"``: η = (1/G)·√(log(2d)/(5m)) with G = 2B√(2d/k), the proof's choice,
    which is (1/(4B))·√(2k log(2d)/(5md)). The two agree only for B = 1; the proof's choice
    is the one that makes B·(log(2d)/(ηm) + 5ηG²) equal to the stated bound.
    """
    d, k, m = _dkm(d, k, m)
    B = _radius(B)
    root = math.sqrt(2.0 * k * math.log(2.0 * d) / (5.0 * m * d))
    if which == "theorem":
        return root / (4.0 * B * B)
    if which == "proof":
        return root / (4.0 * B)
    raise ParameterError(f"which must be 'theorem' or 'proof', got {which!r}")


def thm34_excess_risk(d, k, m, B) -> float:
    """Theorem 3.4: E[L(w̄)] − min_{‖w‖₁≤B} L(w) ≤ 4B²√(10 d log(2d)/(km)) for AELR, when
    ‖x‖∞ ≤ 1, |y| ≤ B almost surely and m ≥ log 2d."""
    d, k, m = _dkm(d, k, m)
    return 4.0 * _radius(B) ** 2 * math.sqrt(10.0 * d * math.log(2.0 * d) / (k * m))


def thm34_bound_for_eta(d, k, m, B, eta) -> float:
    """What the proof of Theorem 3.4 gives for a step size η: B(log(2d)/(ηm) + 5ηG²) with
    G² = 8B²d/k, valid for 0 < η ≤ 1/(2G); ``math.inf`` outside that range (the proof says
    nothing there).

    Equals :func:`thm34_excess_risk` at the proof's η; at the theorem's stated η (the proof's
    divided by B) it is (B + 1/B)/2 times the stated bound.
    """
    d, k, m = _dkm(d, k, m)
    B = _radius(B)
    eta = check_real("eta", eta, low=0.0, strict_low=True)
    g2 = lemma33_second_moment(d, k, B)
    if eta > 1.0 / (2.0 * math.sqrt(g2)):
        return math.inf
    return B * (math.log(2.0 * d) / (eta * m) + 5.0 * eta * g2)


# Exact right-hand sides: with Fraction inputs they return Fractions, for the exact claims.
def gradient_second_moment_bound(B: Fraction, d: int, k: int) -> Fraction:
    """8B²d/k: hk12 Lemma 3.3 (bound on E‖g̃‖₂²) and Lemma 3.8 (bound on ‖E g̃²‖∞)."""
    return 8 * B * B * d / Fraction(k)


def clipping_bias_bound(variance: Fraction, C: Fraction) -> Fraction:
    """2·Var[X]/C: the right-hand side of hk12 Lemma A.2 (restated in ks15's supplement)."""
    return 2 * variance / C
