"""k-active predictors (cbss11 §4): predict from at most k attributes of each test example,
where the i-th attribute may be chosen after seeing the first i − 1.

A predictor reads attributes only through an :class:`AttributeOracle`, which records every
(example, attribute) pair revealed; the claims take the per-example counts as evidence that
the predictor was k-active. The interface a user's own predictor implements
(:class:`theorycheck.protocols.KActivePredictor`)::

    class MyPredictor:
        name = "mine"
        def predict(self, oracle, k, w_star, random_state): -> np.ndarray of n predictions

``w_star`` is the optimal linear predictor, which the theorems let the predictor know.
``random_state`` follows the one convention of :mod:`theorycheck.rng` (an int, a SeedSequence,
a Generator, or a kernel state advanced in place); :func:`theorycheck.rng.as_generator` turns
it into a NumPy Generator.
"""

from __future__ import annotations

import numpy as np

from ..rng import as_generator


class AttributeOracle:
    """Reveals attributes of a batch of examples one (row, column) pair at a time."""

    def __init__(self, X: np.ndarray) -> None:
        self._X = X
        self._seen = np.zeros(X.shape, dtype=bool)

    @property
    def n(self) -> int:
        return self._X.shape[0]

    @property
    def d(self) -> int:
        return self._X.shape[1]

    def reveal(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Values x[rows[i], cols[i]]; each pair is recorded as read."""
        rows = np.asarray(rows, dtype=np.intp)
        cols = np.asarray(cols, dtype=np.intp)
        self._seen[rows, cols] = True
        return self._X[rows, cols]

    def reveal_column(self, j: int) -> np.ndarray:
        """Attribute j of every example."""
        return self.reveal(np.arange(self.n), np.full(self.n, j))

    def counts(self) -> np.ndarray:
        """Number of distinct attributes read, per example."""
        return self._seen.sum(axis=1)


def _support_order(w_star: np.ndarray) -> np.ndarray:
    """Attributes by decreasing |w*_j| (ties by index): the ones worth reading first."""
    return np.argsort(-np.abs(w_star), kind="stable")


class FirstK:
    """Reads the k attributes with the largest |w*_j| and predicts their part of ⟨w*, x⟩."""

    name = "fixed first k"

    def predict(self, oracle, k, w_star, random_state):
        order = _support_order(w_star)[:k]
        pred = np.zeros(oracle.n)
        for j in order:
            pred += w_star[j] * oracle.reveal_column(int(j))
        return pred


class RandomK:
    """Reads a uniformly random k-subset of the support of w* (all of it if smaller)."""

    name = "random k"

    def predict(self, oracle, k, w_star, random_state):
        support = np.flatnonzero(w_star)
        take = min(k, support.size)
        keys = as_generator(random_state).random((oracle.n, support.size))
        # The positions of the `take` smallest keys form a uniform random subset (linear time).
        chosen = support[np.argpartition(keys, take - 1, axis=1)[:, :take]]
        rows = np.repeat(np.arange(oracle.n), take)
        values = oracle.reveal(rows, chosen.ravel()).reshape(oracle.n, take)
        return (values * w_star[chosen]).sum(axis=1)


class Adaptive:
    """Chooses each next attribute from the values already seen: while the partial
    prediction is ≥ 0 it reads the next attribute from the front of the support, otherwise
    from the back. Predicts the partial sum of ⟨w*, x⟩ over what it read."""

    name = "adaptive"

    def predict(self, oracle, k, w_star, random_state):
        support = _support_order(w_star)[: np.count_nonzero(w_star)]
        take = min(k, support.size)
        n = oracle.n
        rows = np.arange(n)
        front = np.zeros(n, dtype=np.intp)
        back = np.full(n, support.size - 1, dtype=np.intp)
        pred = np.zeros(n)
        for _ in range(take):
            use_front = pred >= 0
            pos = np.where(use_front, front, back)
            cols = support[pos]
            pred += w_star[cols] * oracle.reveal(rows, cols)
            front += use_front
            back -= ~use_front
        return pred


DEFAULT_PREDICTORS = (FirstK(), RandomK(), Adaptive())
