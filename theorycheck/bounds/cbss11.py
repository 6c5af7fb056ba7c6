"""Right-hand sides of the theorems of Cesa-Bianchi, Shalev-Shwartz & Shamir (JMLR 2011)."""

from __future__ import annotations


def thm2_k_active_risk(d: int, k: int) -> float:
    """Theorem 2: every k-active predictor has risk ≥ 1 − k/d on the construction."""
    return 1.0 - k / d


def thm3_k_active_risk(c: float, k: int) -> float:
    """Theorem 3: every k-active predictor has risk ≥ (1 − 1/c)/(ck) when ‖w*‖₀ = ck."""
    return (1.0 - 1.0 / c) / (c * k)
