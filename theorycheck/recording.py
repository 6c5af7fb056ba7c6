"""Record your learner's path in two lines, so that conformance and the lemmas can read it.

The estimator-law check of ``theorycheck conform`` and the pathwise lemmas (hk12.lemma3.2,
hk12.lemma3.3, ...) need what a learner did at each step: the iterate w_t, the estimate g̃_t its update
used, the attributes it read, and the step size. :class:`RecordsPath` adds that to a plain learner::

    from theorycheck.recording import RecordsPath

    class MyAERR(RecordsPath):                                 # 1. inherit
        ...
        def fit(self, X, y):
            ...
            for t in range(m):
                ...
                self.record(w=w, g=g, read=[*idx, j], eta=eta)   # 2. once per step, before the update
                w = ...

It gives the constructor a keyword-only ``record_trajectory=False`` (shown by ``inspect.signature`` and
kept by ``get_params``), and wraps ``fit``: with ``record_trajectory=True`` the calls of :meth:`record`
during one fit become ``trajectory_``, a dict of arrays with one row per call (``read`` padded with −1
into an (m, r) int array of the distinct attributes of each step; ``eta`` and ``B``, when the same
number at every call, a float); with ``record_trajectory=False`` :meth:`record` returns at once and
nothing is kept. Values are copied when recorded, so later in-place updates of ``w`` do not change the
path.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

__all__ = ["TWO_LINES", "RecordsPath"]

#: the two lines that give a plain learner a recorded path, for the messages of the checks that need one
TWO_LINES = ("two lines make them run: `class MyLearner(RecordsPath):` (from theorycheck.recording import "
             "RecordsPath; it adds record_trajectory to the constructor) and `self.record(w=w, g=g, read=[...], "
             "eta=eta)` in fit, once per step, before the update (docs/conformance.md, 'Two-line path recording')")


class RecordsPath:
    """Mixin: ``self.record(**values)`` at each step; ``trajectory_`` after ``fit(record_trajectory=True)``."""

    _steps: list[dict[str, Any]] | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__init__" in vars(cls):
            cls.__init__ = _with_keyword(vars(cls)["__init__"])
        if "fit" in vars(cls):
            cls.fit = _recording(vars(cls)["fit"])

    def record(self, **values) -> None:
        """Keep ``values`` (arrays, index lists, numbers) as this step's row of ``trajectory_``."""
        if self._steps is not None:
            self._steps.append({key: np.array(value, copy=True) for key, value in values.items()})


def _with_keyword(init):
    signature = inspect.signature(init)
    if "record_trajectory" in signature.parameters:
        return init

    @functools.wraps(init)
    def __init__(self, *args, record_trajectory=False, **kwargs):
        init(self, *args, **kwargs)
        self.record_trajectory = record_trajectory

    params = list(signature.parameters.values())
    extra = inspect.Parameter("record_trajectory", inspect.Parameter.KEYWORD_ONLY, default=False)
    at = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    __init__.__signature__ = signature.replace(parameters=[*params[:at], extra, *params[at:]])
    return __init__


def _recording(fit):
    @functools.wraps(fit)
    def wrapped(self, *args, **kwargs):
        outer = self._steps is not None  # a subclass's fit calling super().fit: the outer call keeps the path
        if not outer:
            self._steps = [] if getattr(self, "record_trajectory", False) else None
        try:
            result = fit(self, *args, **kwargs)
            if not outer and self._steps is not None:
                self.trajectory_ = _stacked(self._steps)
        finally:
            if not outer:
                self._steps = None
        return result

    return wrapped


def _stacked(steps: list[dict[str, Any]]) -> dict[str, Any]:
    path: dict[str, Any] = {}
    for key in dict.fromkeys(k for step in steps for k in step):
        values = [step[key] for step in steps if key in step]
        if key in ("eta", "B") and all(v.ndim == 0 for v in values) and len({float(v) for v in values}) == 1:
            path[key] = float(values[0])
        elif key == "read":
            rows = [np.unique(np.asarray(v, dtype=np.int64).ravel()) for v in values]
            read = np.full((len(rows), max((len(r) for r in rows), default=0)), -1, dtype=np.int64)
            for t, row in enumerate(rows):
                read[t, :len(row)] = row
            path[key] = read
        else:
            path[key] = np.stack(values)
    return path
