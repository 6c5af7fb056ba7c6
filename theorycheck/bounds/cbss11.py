"""Right-hand sides of the theorems of Cesa-Bianchi, Shalev-Shwartz & Shamir (JMLR 2011)."""

from __future__ import annotations

import math


def thm2_k_active_risk(d: int, k: int) -> float:
    """Theorem 2: every k-active predictor has risk ≥ 1 − k/d on the construction."""
    return 1.0 - k / d


def thm3_k_active_risk(c: float, k: int) -> float:
    """Theorem 3: every k-active predictor has risk ≥ (1 − 1/c)/(ck) when ‖w*‖₀ = ck."""
    return (1.0 - 1.0 / c) / (c * k)


# ---------------------------------------------------------------------------------------
# Section 5 (Baseline, Figure 1) and section 6 (AER, Figure 2). Natural logarithms; the
# squared loss (⟨w, x⟩ − y)² without the ½; ‖x‖∞ ≤ 1, |y| ≤ B, w in the L1 ball of radius B.


def lemma8_deviation(d: int, k: int, m: int, delta: float) -> float:
    """Lemma 8: max_{r,s} |Ā_rs − X_rs| ≤ (d/k)² √((8/m) ln(2d²/δ)) with probability ≥ 1 − δ.

    Hoeffding on each entry (range [−2(d/k)², 2(d/k)²]) and a union bound over d² entries.
    """
    return (d / k) ** 2 * math.sqrt(8.0 / m * math.log(2.0 * d * d / delta))


def lemma9_deviation(d: int, k: int, B: float, m: int, delta: float) -> float:
    """Lemma 9: ‖v̄ − x̄‖∞ ≤ (dB/k) √((8/m) ln(2d/δ)) with probability ≥ 1 − δ, where
    v̄ = (1/m) Σ 2y_t v_t and x̄ = (1/m) Σ 2y_t x_t."""
    return d * B / k * math.sqrt(8.0 / m * math.log(2.0 * d / delta))


def lemma10_deviation(d: int, k: int, B: float, m: int, delta: float) -> float:
    """Lemma 10: sup_{‖w‖₁ ≤ B} |L̃_S(w) − L_S(w)| ≤ (Bd/k)² √((32/m) ln(2d²/δ)) with
    probability > 1 − δ."""
    return (B * d / k) ** 2 * math.sqrt(32.0 / m * math.log(2.0 * d * d / delta))


def lemma_delta_star(deviation: float, *, lemma: int, d: int, k: int, m: int, B: float = 1.0) -> float:
    """The δ at which a lemma's bound equals ``deviation`` (its bound solved for δ).

    A repetition whose deviation is ``deviation`` satisfies the lemma's bound for every
    δ ≤ δ*; the lemmas say P(δ* < δ) ≤ δ for every δ. Values above 1 mean the deviation is
    below the bound at every δ < 1.
    """
    if lemma == 8:
        exponent = m * deviation**2 * (k / d) ** 4 / 8.0
        scale = 2.0 * d * d
    elif lemma == 9:
        exponent = m * deviation**2 * (k / (d * B)) ** 2 / 8.0
        scale = 2.0 * d
    elif lemma == 10:
        exponent = m * deviation**2 * (k / (B * d)) ** 4 / 32.0
        scale = 2.0 * d * d
    else:
        raise ValueError(f"lemma must be 8, 9 or 10, got {lemma}")
    return scale * math.exp(-exponent)


def thm6_rate(d: int, k: int, B: float, m: int, delta: float) -> float:
    """Theorem 6 without its unspecified constant c: (dB/k)² √(ln(d/δ)/m).

    Baseline's excess risk is at most c times this with probability ≥ 1 − δ.
    """
    return (d * B / k) ** 2 * math.sqrt(math.log(d / delta) / m)


def thm12_excess(d: int, k: int, B: float, m: int, delta: float) -> float:
    """Theorem 12 with the constants its proof ends with:
    16 d B² √(ln m/(k m)) + 4 B² √(2 ln(1/δ)/m), with probability ≥ 1 − δ.

    The proof reaches the constant 16 with λ = 16 d √(ln m/(k m)); see
    :func:`thm12_regret_constant` for the constant another λ gives.
    """
    return 16.0 * d * B * B * math.sqrt(math.log(m) / (k * m)) + 4.0 * B * B * math.sqrt(
        2.0 * math.log(1.0 / delta) / m
    )


def thm12_regret_constant(lam_constant: float) -> float:
    """The constant C of C·d B² √(ln m/(k m)) that Theorem 12's proof gives for
    λ = lam_constant · d √(ln m/(k m)): 128/lam_constant + lam_constant/2.

    The proof bounds the regret by 128 (dB)² ln m/(λk) + mλB²/2; λ = 16 d √(ln m/(km)) (the
    proof's choice, which minimises it) gives 16, the theorem's λ = 12 d √(ln m/(mk)) gives
    50/3 ≈ 16.67.
    """
    return 128.0 / lam_constant + lam_constant / 2.0
