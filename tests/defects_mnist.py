"""Planted defects for the MNIST experiments (simulations/mnist.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from theorycheck.algorithms import DDAERR
from theorycheck.datasets import load_mnist_pair


def shuffled_labels(a, b, *, split="all", source="auto"):
    """The pair's images with their labels permuted (a fixed permutation): no pixel predicts the label."""
    data = load_mnist_pair(a, b, split=split, source=source)
    y = np.random.default_rng(12).permutation(np.asarray(data.y))
    return replace(data, y=y, description=data.description + " LABELS SHUFFLED (planted defect).")


class UniformMomentsDDAERR(DDAERR):
    """DDAERR told that every second moment is equal (its q uniform, its improved inner product ∝ |w_j|):
    ks15's idea removed, the improved inner product kept."""

    keep_improved_inner = True

    def fit(self, X, y=None):
        moments, improved = self.second_moments, self.improved_inner
        self.second_moments = np.ones(np.shape(X)[1])
        self.improved_inner = improved and self.keep_improved_inner
        try:
            return super().fit(X, y)
        finally:
            self.second_moments, self.improved_inner = moments, improved


class UniformMomentsPlainInnerDDAERR(UniformMomentsDDAERR):
    """DDAERR with uniform moments and without the improved inner product (q uniform, j ∝ w_j²): AERR's draws."""

    keep_improved_inner = False
