"""Planted defects for the MNIST experiments (simulations/mnist.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from theorycheck.datasets import load_mnist_pair


def shuffled_labels(a, b, *, split="all", source="auto"):
    """The pair's images with their labels permuted (a fixed permutation): no pixel predicts the label."""
    data = load_mnist_pair(a, b, split=split, source=source)
    y = np.random.default_rng(12).permutation(np.asarray(data.y))
    return replace(data, y=y, description=data.description + " LABELS SHUFFLED (planted defect).")
