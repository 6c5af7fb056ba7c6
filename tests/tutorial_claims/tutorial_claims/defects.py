"""Planted defects: each removes the idea its claim's bound rests on, so the claim must FAIL."""

from __future__ import annotations

import numpy as np


def unweighted_mean(values, weights) -> float:
    """The importance weight dropped: the plain mean of f under the proposal q, not under p."""
    return float(np.mean(np.asarray(values, dtype=np.float64)))


def constant_step(gradients, radius: float):
    """Online gradient descent with η_t = 1 for every t instead of 1/√t."""
    gradients = np.asarray(gradients, dtype=np.float64)
    x = np.zeros(gradients.shape[1])
    iterates = np.empty_like(gradients)
    for t, g in enumerate(gradients):
        iterates[t] = x
        x = x - g
        norm = np.linalg.norm(x)
        if norm > radius:
            x *= radius / norm
    return iterates


def no_projection(gradients, radius: float):
    """Online gradient descent that never projects back onto the ball."""
    gradients = np.asarray(gradients, dtype=np.float64)
    steps = gradients / np.sqrt(np.arange(1, len(gradients) + 1))[:, None]
    return np.vstack([np.zeros((1, gradients.shape[1])), -np.cumsum(steps, axis=0)[:-1]])
