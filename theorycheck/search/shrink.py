"""Shrinking a confirmed counterexample toward the smallest sizes, as Hypothesis shrinks a failing example.

A confirmed counterexample found by the search is rarely the smallest one: TPE proposes large d as readily as
small. :func:`shrink` hands the point's integer parameters (d, k, m, d_max, instances, …) to Hypothesis's
``find``, over the box between each parameter's lower end and its value at the counterexample (the reals and
choices stay where they were found), with the condition "feasible, and the claim FAILs there". Each call of the
condition is one run of the claim on the shrink stream (``stream_seed(seed, "shrink", n)``), at most
``max_calls`` of them; Hypothesis tries the smallest point first, then random ones, then shrinks the first that
fails. The smallest point found is then run once more with the claim's own decision on a fresh seed of the
confirmation stream: only a FAIL there is reported as the shrunk counterexample (for an exact claim the
decision has no error rate; for any other, that run adds its δ to the search's false-FAIL rate).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..spaces import Int
from ..stats import FAIL
from .engine import Study, feasibility, run_point, stream_seed

#: runs of the claim the shrink may make (each a few CPU seconds on quick), besides the final confirmation
MAX_CALLS = 24


@dataclass
class Shrunk:
    """The smallest counterexample found from a confirmed one, and its confirmation on a fresh seed."""

    start: dict[str, Any]
    point: dict[str, Any]
    calls: int
    seed: int
    verdict: str
    command: str
    headline: str
    #: the false-FAIL rate of the final confirmation (None: an exact decision)
    delta: float | None = None
    #: the failing parts of the confirmation's decision ("[FAIL] …; first: d = 2, k = 4, …")
    failures: list[str] = field(default_factory=list)

    @property
    def confirmed(self) -> bool:
        return self.verdict == FAIL


def shrink(study: Study, found, *, confirm_seed: int, max_calls: int = MAX_CALLS) -> Shrunk:
    """Shrink ``found`` (a :class:`~theorycheck.search.confirm.Confirmation` that FAILed) over its point's integer
    parameters; see the module docstring. ``confirm_seed``: the fresh seed of the final confirmation (not run
    when no smaller point fails: the counterexample's own confirmation stands)."""
    point = found.trial.point
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    from .confirm import command

    integers = {name: dim for name, dim in study.space.dims.items() if isinstance(dim, Int)}
    seen: dict[tuple, bool] = {}
    calls = 0

    def fails(candidate: dict[str, Any]) -> bool:
        nonlocal calls
        key = tuple(sorted(candidate.items()))
        if key in seen:
            return seen[key]
        if feasibility(study, candidate):
            seen[key] = False
            return False
        if calls >= max_calls:  # the budget is spent: nothing further counts as failing (not cached)
            return False
        seed = stream_seed(study.seed, "shrink", calls)
        calls += 1
        folder = study.folder / study.claim.id / f"shrink-{calls}"
        kept = run_point(study.job(seed, {**study.overrides, **study.space.overrides(candidate)}, folder))
        seen[key] = kept.get("verdict") == FAIL and not kept.get("nonconforming")
        return seen[key]

    smallest = dict(point)
    if integers:
        box = st.fixed_dictionaries({name: st.integers(dim.low, max(dim.low, point[name]))
                                     for name, dim in integers.items()}).map(lambda ints: {**point, **ints})
        rules = settings(max_examples=max(4, max_calls // 2), database=None, deadline=None,
                         phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck))
        try:
            smallest = find(box, fails, settings=rules, random=random.Random(study.seed))
        except NoSuchExample:  # no smaller failing point within the calls: the counterexample stays as found
            smallest = dict(point)
    if smallest == point:
        return Shrunk(start=dict(point), point=dict(point), calls=calls, seed=found.seed, verdict=found.verdict,
                      command=found.command, headline=found.headline, delta=found.delta,
                      failures=_failures(found.decision))
    overrides = {**study.overrides, **study.space.overrides(smallest)}
    folder = study.folder / study.claim.id / "shrunk"
    kept = run_point(study.job(confirm_seed, overrides, folder, conformance=True, isolate=None, remove=False))
    return Shrunk(start=dict(point), point=smallest, calls=calls, seed=confirm_seed, verdict=kept["verdict"],
                  command=command(study, overrides, confirm_seed), headline=kept["headline"], delta=kept["delta"],
                  failures=_failures(kept.get("decision")))


def _failures(decision: str | None) -> list[str]:
    return [line for line in (decision or "").splitlines() if line.startswith(f"[{FAIL}]")]
