"""Time per example against the dimension, measured at the end of a verify run (issue 13's
scaling figure).

:func:`measure_scaling` fits AERR, AELR and DDAERR (k = 10) on streaming hypercube designs
(:func:`theorycheck.generators.streaming.hypercube_stream`: x uniform on {±1/√d}^d, a one-sparse
w*, no matrix and no row is ever built) at each d, and times the public ``fit``. Each learner
is fitted once on a tiny stream first, so numba's compilation is not timed; each time is the
least of ``repeats`` fits. The figure is what the papers' attribute count predicts when it is
honest: a learner that reads k + 1 attributes of an example should not take time growing with d,
and the curve shows how far memory traffic (the sum-tree and the per-coordinate state, O(d)
memory) bends it. ``benchmarks/table.py`` measures the same workload more thoroughly.
"""

from __future__ import annotations

import os
import time

__all__ = ["LEARNERS", "measure_scaling"]

#: the learners timed, by name in :mod:`theorycheck.algorithms`
LEARNERS = ("AERR", "AELR", "DDAERR")


def _learner(name: str, d: int, k: int):
    import numpy as np

    from . import algorithms

    if name == "DDAERR":
        return algorithms.DDAERR(k=k, B=1.0, second_moments=np.full(d, 1.0 / d), random_state=0)
    return getattr(algorithms, name)(k=k, B=1.0, random_state=0)


def measure_scaling(dims=(100, 1_000, 10_000, 100_000), *, m: int = 20_000, k: int = 10,
                    repeats: int = 3) -> dict:
    """Time per example (µs) of each learner's ``fit`` on a stream of ``m`` examples at each d.

    Returns ``{"rows": [{"learner", "d", "m", "us_per_example"}], "k", "load"}`` where
    ``load`` is the 1-minute load average before the measurement (the timings are only as quiet
    as the machine was)."""
    from .generators.streaming import hypercube_stream

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rows = []
    for name in LEARNERS:
        _learner(name, 16, k).fit(hypercube_stream(64, 16, s=1, B=0.5, noise=0.0, random_state=1))
        for d in dims:
            design = hypercube_stream(m, d, s=1, B=0.5, noise=0.0, random_state=0)
            best = float("inf")
            for _ in range(repeats):
                learner = _learner(name, d, k)
                start = time.perf_counter()
                learner.fit(design)
                best = min(best, time.perf_counter() - start)
            rows.append({"learner": name, "d": int(d), "m": int(m), "us_per_example": best / m * 1e6})
    return {"rows": rows, "k": k, "load": load}
