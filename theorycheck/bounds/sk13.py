"""Closed forms of Sabato & Kalai (ICML 2013): eq. (1), the projected loss, Scoring's limit.

Every function is exact when given Fractions (sequences, or nested sequences for matrices) and
float otherwise; none draws anything.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..algorithms.sk13 import full_objective, scoring_objective
from ..validation import ParameterError, check_delta, check_int, check_real

__all__ = ["eq1_gain", "hoeffding_radius", "projected_loss", "scoring_limit", "smallest_eigenvalue"]


def eq1_gain(r, b, sigma2, v):
    """The right-hand side of eq. (1): Σ_{a: r[a] > 0} b[a]²/(σ²[a] + v[a]/r[a]), which equals
    E[Y²] − ℓ(r) when the external covariance Σ is diagonal (σ² its diagonal)."""
    return scoring_objective(r, b, sigma2, v)


def projected_loss(r, b, Sigma, v, y_second_moment):
    """ℓ(r) = E[Y²] − sub_r(b)ᵀ sub_r(Σ_r)⁺ sub_r(b) with Σ_r = Z_r Σ Z_r + V_r (Lemma A.1 and
    the display before §3.1); for any Σ."""
    return y_second_moment - full_objective(r, b, Sigma, v)


def scoring_limit(r, b, Sigma, v):
    """What Scoring's objective tends to as m → ∞ for any Σ: eq. (1) with σ² = diag Σ (the
    estimates b̂, v̂ and σ̂² are consistent whatever the correlations)."""
    exact = isinstance(b, list | tuple) and b and isinstance(b[0], Fraction)
    diag = [Sigma[a][a] for a in range(len(b))] if exact else np.diag(np.asarray(Sigma, dtype=np.float64))
    return scoring_objective(r, b, diag, v)


def hoeffding_radius(width: float, m: int, delta: float) -> float:
    """ε with P(|mean of m i.i.d. values in a range of ``width``  − its expectation| > ε) ≤ δ:
    width·√(log(2/δ)/(2m)) (Hoeffding, two-sided)."""
    width = check_real("width", width, low=0.0)
    m = check_int("m", m, low=1)
    return width * math.sqrt(math.log(2.0 / check_delta(delta)) / (2.0 * m))


def smallest_eigenvalue(Sigma, budget: int) -> float:
    """λ of Theorem 3.1: min over r ∈ R_B of λ_min(sub_r(Σ)); by eigenvalue interlacing, the
    minimum over the supports of size exactly min(B, d)."""
    S = np.asarray(Sigma, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ParameterError(f"Sigma must be square, got shape {S.shape}")
    d = S.shape[0]
    size = min(check_int("budget", budget, low=1), d)
    from itertools import combinations

    return float(min(np.linalg.eigvalsh(S[np.ix_(c, c)])[0] for c in combinations(range(d), size)))
