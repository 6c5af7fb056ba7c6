"""Honest statistics for a search: its maximum is optimistic, so it is never the evidence.

The :data:`TOP` best trials (a FAIL first, then by margin; distinct points) are run again as ``theorycheck
verify CLAIM --set … --seed S`` would run them: the claim's own decision at the profile's budget and δ, on a
fresh stream (``S = stream_seed(seed, "confirm", i)``, disjoint from every trial's), with the subjects'
conformance checks as verify runs them. Only a confirmed FAIL is a counterexample; the trial streams are never
counted. False-FAIL rate: each confirmation is one run of the claim at its own δ, so the chance that a search
of a true statement ends FAIL is at most TOP·δ (union bound), whatever the number of trials.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from ..stats import FAIL
from .engine import Study, Trial, _spec, run_point, stream_seed

#: the candidates confirmed on a fresh stream
TOP = 3


@dataclass
class Confirmation:
    """One candidate run again on a fresh stream."""

    trial: Trial
    seed: int
    overrides: dict[str, str]
    command: str
    verdict: str
    ratio: float | None
    observed: float | None
    theory: float | None
    interval: list | None
    delta: float | None
    vacuous: bool
    headline: str
    decision: str
    seconds: float
    #: the replaced subject failed its conformance checks, so the claim did not run here: FAIL, but about the
    #: subject, not this point
    nonconforming: bool = False


def candidates(trials: list[Trial], top: int = TOP) -> list[Trial]:
    """The ``top`` best complete trials at distinct points: a FAIL before any other verdict, then by margin."""
    done = sorted((t for t in trials if t.state == "complete"),
                  key=lambda t: (t.verdict == FAIL, t.margin if t.margin is not None else -1.0, -t.number),
                  reverse=True)
    chosen, seen = [], set()
    for trial in done:
        key = tuple(sorted(trial.point.items()))
        if key not in seen:
            seen.add(key)
            chosen.append(trial)
        if len(chosen) == top:
            break
    return chosen


def confirmation_seeds(study: Study, count: int) -> list[int]:
    """``count`` seeds of the confirmation stream that no trial used and that differ from the base seed."""
    used = {t.seed for t in study.trials if t.seed is not None} | {study.seed}
    seeds, index = [], 0
    while len(seeds) < count:
        seed = stream_seed(study.seed, "confirm", index)
        index += 1
        if seed not in used:
            seeds.append(seed)
            used.add(seed)
    return seeds


def command(study: Study, overrides: dict[str, str], seed: int) -> str:
    """The command that reproduces a confirmation."""
    words = ["theorycheck", "verify", study.claim.id]
    if study.profile != "quick":
        words += ["--profile", study.profile]
    words += ["--set", *(f"{k}={v}" for k, v in overrides.items())]
    if study.subjects:
        words += ["--subject", *(f"{k}={_spec(v)}" for k, v in sorted(study.subjects.items()))]
    words += [f"--claims {m}" for m in study.claims_modules]
    words += ["--seed", str(seed)]
    return " ".join(shlex.quote(w) if not w.startswith("--claims ") else w for w in words)


def confirm(study: Study, *, conformance: bool = True) -> list[Confirmation]:
    """Run the search's :func:`candidates` again on the confirmation stream (see the module docstring)."""
    chosen = candidates(study.trials)
    out = []
    for i, (trial, seed) in enumerate(zip(chosen, confirmation_seeds(study, len(chosen)), strict=True)):
        overrides = {**study.overrides, **study.space.overrides(trial.point)}
        folder = study.folder / study.claim.id / f"confirm-{i}"
        kept: dict[str, Any] = run_point(study.job(seed, overrides, folder, conformance=conformance, isolate=None,
                                                   remove=False))
        out.append(Confirmation(trial=trial, seed=seed, overrides=overrides, command=command(study, overrides, seed),
                                verdict=kept["verdict"], ratio=kept["ratio"], observed=kept["observed"],
                                theory=kept["theory"], interval=kept["interval"], delta=kept["delta"],
                                vacuous=bool(kept["vacuous"]), headline=kept["headline"], decision=kept["decision"],
                                seconds=float(kept["cpu"]), nonconforming=bool(kept["nonconforming"])))
    return out
