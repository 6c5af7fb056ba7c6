"""``theorycheck search``: where a claim's statement breaks, and how tight it is at its worst.

A claim declares the space its statement quantifies over (:mod:`.space`); the search runs optuna's TPE over
it, one run of the claim per trial on a stream of its own (:mod:`.engine`), then confirms its best candidates
on a fresh stream with the claim's own decision (:mod:`.confirm`), and writes a page (:mod:`.page`). See
docs/search.md.
"""

from __future__ import annotations

import math
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..spaces import Choice, Constraint, Int, Real, Space, at_most, even, space_of
from ..stats import FAIL
from ..validation import ParameterError
from .confirm import Confirmation, confirm
from .engine import DEFAULT_TRIALS, Trial, make_study, margin, parse_budget, run_study, stream_seed
from .shrink import Shrunk

__all__ = [
    "Choice",
    "Constraint",
    "Int",
    "Real",
    "SearchResult",
    "Space",
    "at_most",
    "even",
    "margin",
    "search",
    "space_of",
    "stream_seed",
]

#: exit statuses: no counterexample, a confirmed counterexample (or no trial could run)
EXIT_NONE, EXIT_FOUND = 0, 1


@dataclass
class SearchResult:
    """What one search found: its trials, the confirmations of its best candidates, and the verdict
    (FAIL: a confirmed counterexample; otherwise none found in ``len(trials)`` trials)."""

    claim_id: str
    kind: str
    profile: str
    seed: int
    trials: list[Trial]
    confirmations: list[Confirmation]
    default_ratio: float | None = None
    files: dict[str, Path] = field(default_factory=dict)
    #: for each confirmation (by index) at a point where one of the claim's recorded errata applies, its key
    recorded: dict[int, str] = field(default_factory=dict)
    #: the confirmed counterexample shrunk toward the smallest integer parameters (:mod:`.shrink`), when one was
    #: confirmed
    shrunk: Shrunk | None = None

    @property
    def counterexample(self) -> Confirmation | None:
        """The first confirmed counterexample (a FAIL of the claim's own decision at a point)."""
        return next((c for c in self.confirmations if c.verdict == FAIL and not c.nonconforming), None)

    @property
    def nonconforming(self) -> Confirmation | None:
        """A confirmation the claim did not run because the replaced subject failed its conformance checks."""
        return next((c for c in self.confirmations if c.nonconforming), None)

    @property
    def verdict(self) -> str:
        return FAIL if self.counterexample is not None or self.nonconforming else "NO COUNTEREXAMPLE"

    @property
    def tightest(self) -> Confirmation | None:
        """The confirmation with the largest margin (ratio observed/bound for a bound)."""
        rated = [c for c in self.confirmations if margin(self.kind, vars(c)) is not None]
        return max(rated, key=lambda c: margin(self.kind, vars(c))) if rated else None

    @property
    def new_counterexample(self) -> Confirmation | None:
        """A confirmed counterexample that no recorded erratum of the claim explains."""
        return next((c for i, c in enumerate(self.confirmations)
                     if c.verdict == FAIL and not c.nonconforming and i not in self.recorded), None)

    @property
    def exit_status(self) -> int:
        """1 for a new confirmed counterexample (or when no trial could run); 0 otherwise, a recorded erratum's
        counterexample rediscovered included (as verify counts a recorded non-reproduction)."""
        ran = any(t.state == "complete" for t in self.trials)
        failed = self.new_counterexample is not None or self.nonconforming is not None
        return EXIT_FOUND if failed or not ran else EXIT_NONE

    def counts(self) -> dict[str, int]:
        states = ("complete", "infeasible", "error", "running")
        return {s: sum(t.state == s for t in self.trials) for s in states}

    def lines(self) -> list[str]:
        """The summary a person reads: the verdict first."""
        n = self.counts()
        tally = (f"{len(self.trials)} trials ({n['complete']} run, {n['infeasible']} infeasible, {n['error']} "
                 f"without a margin)")
        found = self.new_counterexample or self.counterexample
        if self.nonconforming is not None:
            bad = self.nonconforming
            out = [f"{self.claim_id}: FAIL: the replaced subject is not the paper's algorithm (its conformance checks, "
                   "run before the claim as verify runs them, failed), so no point of the space was confirmed; the "
                   "trials ran the claim without them.", f"  {bad.headline}", f"  reproduce: {bad.command}"]
        elif found is not None:
            point = ", ".join(f"{k}={v}" for k, v in found.trial.point.items())
            key = self.recorded.get(self.confirmations.index(found))
            known = (f" It is the recorded erratum [{key}] (`theorycheck errata`), rediscovered by the search."
                     if key else "")
            out = [f"{self.claim_id}: FAIL: a counterexample at {point}, confirmed on a fresh stream "
                   f"(seed {found.seed}, the claim's own decision at δ = {_g(found.delta)}).{known}",
                   f"  {found.headline}", f"  reproduce: {found.command}"]
            out += self._shrunk_lines()
        elif n["complete"] == 0:
            out = [f"{self.claim_id}: no trial could be run ({tally}); see the page"]
        else:
            out = [f"{self.claim_id}: no counterexample in {tally}."]
        best = self.tightest
        if best is not None:
            point = ", ".join(f"{k}={v}" for k, v in best.trial.point.items())
            # an exact claim's headline number is its own (a bias, a ratio to a bound): its FAIL, not the number, is
            # the counterexample
            which = "largest confirmed headline value" if self.kind == "exact" else "tightest confirmed ratio"
            value = margin(self.kind, vars(best)) if self.kind == "exact" else best.ratio
            interval = (f", interval [{_g(best.interval[0])}, {_g(best.interval[1])}] against theory "
                        f"{_g(best.theory)}" if best.interval else "")
            default = f" (default instance: {_g(self.default_ratio)})" if self.default_ratio is not None else ""
            out.append(f"  {which}: {_g(value)}{default} at {point}{interval}; verdict there {best.verdict}")
        deltas = [c.delta for c in self.confirmations if c.delta]
        shrunk = self.shrunk
        if shrunk is not None and shrunk.delta and shrunk.seed not in {c.seed for c in self.confirmations}:
            deltas.append(shrunk.delta)  # the shrunk point's own confirmation
        rate = (f"≤ {_g(sum(deltas))} (the sum of the {len(deltas)} confirmations' δ, union bound)" if deltas else
                "0: the confirmations' decisions are exact (no error rate)")
        out.append(f"  false-FAIL rate of this search {rate}; the search's own trials are never counted as evidence")
        for name, path in self.files.items():
            out.append(f"  {name}: {path}")
        return out


    def _shrunk_lines(self) -> list[str]:
        s = self.shrunk
        if s is None:
            return []
        point = ", ".join(f"{k}={v}" for k, v in s.point.items())
        if s.point == s.start:
            return [f"  shrunk: no smaller failing point in {s.calls} runs over its integer parameters"]
        if not s.confirmed:
            return [f"  shrunk: the smallest failing point found ({point}, {s.calls} runs) was not confirmed on a "
                    f"fresh stream (verdict {s.verdict}); the counterexample stays as found"]
        return [f"  shrunk to {point} ({s.calls} runs over its integer parameters), confirmed on a fresh stream "
                f"(seed {s.seed}):", *(f"    {line}" for line in s.failures or [s.headline]),
                f"    reproduce: {s.command}"]


def _g(value) -> str:
    return "—" if value is None or (isinstance(value, float) and not math.isfinite(value)) else f"{value:.4g}"


def search(claim_id: str, *, profile: str = "quick", seed: int = 0, budget: Any = DEFAULT_TRIALS,
           params: dict[str, Any] | None = None, subjects: dict[str, Any] | None = None, jobs: int = 1,
           out: str | Path = "reports", progress: bool = False, conformance: bool = True, claims=(),
           page: bool = True, shrink: bool = True) -> SearchResult:
    """Search ``claim_id``'s declared space for a counterexample and its worst-case margin.

    ``budget``: trials (an int, or "40") or CPU seconds ("600s"); ``params``: ``--set`` values applied at every
    point (not a searched parameter); ``subjects``: as verify's (name to object or "module:attr"); ``jobs``:
    trials in parallel; ``conformance``: check a replaced subject against the paper's algorithm before each
    confirmation, as verify does. The study is stored in ``<out>/search/<claim>.db`` and resumes from it. Raises
    ParameterError (exit status 2 on the command line) for a claim without a space and for bad arguments, before
    any work."""
    from ..claims import PROFILES, load_claims, select
    from ..session import load_subject

    if profile not in PROFILES:
        raise ParameterError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    trials, seconds = parse_budget(budget)
    load_claims(list(claims))
    if not isinstance(claim_id, str) or any(ch in claim_id for ch in "*?["):
        raise ParameterError("search takes one claim id, not a glob")
    [claim] = select([claim_id])
    specs = {k: v for k, v in (subjects or {}).items()}
    for name, value in specs.items():
        if name not in claim.subjects:
            raise ParameterError(f"{claim.id} has no subject named {name} (has {', '.join(claim.subjects)})")
        if isinstance(value, str):
            load_subject(value)  # a spec that does not load is a usage error now, not in a trial
    sets = {k: ",".join(map(str, v)) if isinstance(v, tuple | list) else str(v) for k, v in (params or {}).items()}
    study = make_study(claim, profile=profile, seed=seed, overrides=sets, subjects=specs, out=out,
                       claims_modules=tuple(claims))
    run_study(study, trials=trials, seconds=seconds, jobs=jobs, progress=progress)
    confirmations = confirm(study, conformance=conformance)
    recorded = {i: key for i, c in enumerate(confirmations)
                if (key := study.space.erratum_at({**study.overrides, **c.trial.point})) is not None}
    result = SearchResult(claim.id, claim.kind, profile, seed, study.trials, confirmations,
                          default_ratio=_default_ratio(Path(out), claim, profile), recorded=recorded)
    found = result.new_counterexample or result.counterexample
    if shrink and found is not None:
        from .confirm import confirmation_seeds
        from .shrink import shrink as shrink_point

        result.shrunk = shrink_point(study, found, confirm_seed=confirmation_seeds(study, len(confirmations) + 1)[-1])
    if page:
        from .page import write_page

        result.files = write_page(study, result)
    return result


def _default_ratio(out: Path, claim, profile: str) -> float | None:
    """The ratio of the default instance: the last verify stored in ``out``, if it ran the profile's own
    parameters with the built-in subjects (None otherwise)."""
    import json

    from ..run.store import load_result

    record = load_result(out, claim.id)
    defaults = json.loads(json.dumps(claim.profile(profile), default=list))
    if (record and record.get("profile") == profile and not record.get("replaced")
            and json.loads(json.dumps(record.get("params"), default=list)) == defaults):
        return record.get("ratio")
    return None



class _Callable(types.ModuleType):
    """``theorycheck.search`` is this package and, called, :func:`search`: ``theorycheck.search("hk12.thm3.1")``."""

    def __call__(self, *args, **kwargs) -> SearchResult:
        return search(*args, **kwargs)


sys.modules[__name__].__class__ = _Callable
