"""What the tutorial's claims are about: an importance-weighted mean and online gradient descent.

These are the *subjects*: a claim receives them through its ``subjects`` and never hard-wires
them, so ``--subject estimate=mymodule:my_estimate`` checks another implementation against the
same bound. The planted defects are in :mod:`tutorial_claims.defects`.
"""

from __future__ import annotations

import numpy as np


def importance_weighted_mean(values, weights) -> float:
    """Estimate E_p[f] from draws x_1..x_m of a proposal q: (1/m) Σ_t f(x_t) p(x_t)/q(x_t), given the
    values f(x_t) and the weights p(x_t)/q(x_t) of the draws."""
    return float(np.mean(np.asarray(values, dtype=np.float64) * np.asarray(weights, dtype=np.float64)))


def online_gradient_descent(gradients, radius: float):
    """Zinkevich's greedy projection on linear losses ⟨g_t, x⟩ over the ball ‖x‖₂ ≤ ``radius``:
    x_1 = 0 and x_{t+1} = P(x_t − η_t g_t) with η_t = 1/√t. Returns the iterates x_1..x_T, (T, n)."""
    gradients = np.asarray(gradients, dtype=np.float64)
    x = np.zeros(gradients.shape[1])
    iterates = np.empty_like(gradients)
    for t, g in enumerate(gradients, start=1):
        iterates[t - 1] = x
        x = x - g / np.sqrt(t)
        norm = np.linalg.norm(x)
        if norm > radius:
            x *= radius / norm
    return iterates
