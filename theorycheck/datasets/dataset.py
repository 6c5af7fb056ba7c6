"""What every loader returns: :class:`Dataset`, a binary task as ±1-labelled arrays with where it came from."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Dataset"]


@dataclass(frozen=True, eq=False)
class Dataset:
    """A binary task: ``X`` float64 (n, d) with entries in [0, 1], ``y`` float64 (n,) in {−1, +1}.

    ``name``: short id; ``description``: one paragraph for a report (source, transform, labels,
    and whether it stands in for a paper's data); ``source``: the package or generator it came
    from; ``stand_in``: it replaces a data set of a paper; ``shape``: the image shape, if any.
    """

    X: np.ndarray
    y: np.ndarray
    name: str
    description: str
    source: str
    stand_in: bool = False
    shape: tuple[int, ...] | None = field(default=None)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])
