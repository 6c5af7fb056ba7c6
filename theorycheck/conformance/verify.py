"""Conformance inside ``verify``: which subjects of a claim are the papers' algorithms, the checks of a subject
that replaces one (every check but the claims, which verify runs) as a record, and its paragraph on the page;
:func:`check_replaced` runs them on a run's plans before any task, so the engine (:mod:`theorycheck.run`) never
calls conformance."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import stats
from ..claims import subject_name
from ..run.depends import with_depends
from ..run.execute import CONFORMANCE_SECONDS, _isolated
from ..run.plan import Plan, TaskError
from ..run.provenance import _subject_fingerprint, code_version
from ..run.store import sealed, unsealed, write_json
from ..validation import ParameterError
from .checks import conform_checks
from .core import _load, recording_hint
from .registry import ALGORITHMS


def algorithm_places(claim) -> dict[str, str]:
    """{subject name: algorithm of :data:`ALGORITHMS`} for the subjects of ``claim`` that are one of the papers'
    algorithms as built in (``learner`` of hk12.thm3.1 is AERR, ``dd`` of ks15.fig1 is DDAERR, ...)."""
    builtins = {_load(spec.builtin): name for name, spec in ALGORITHMS.items()}
    return {name: builtins[obj] for name, obj in claim.subjects.items() if _hashable(obj) and obj in builtins}


def _hashable(obj) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def replaced_algorithms(claim, subjects: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """{subject name: (algorithm, the subject in its place)} for each of ``claim``'s algorithms that ``subjects``
    replaces by something other than the built-in."""
    return {name: (algorithm, subjects[name]) for name, algorithm in algorithm_places(claim).items()
            if name in subjects and subjects[name] is not claim.subjects[name]}


def in_verify(algorithm: str, subject, profile: str, seed: int, delta: float = 1e-3,
              at: dict[str, Any] | None = None) -> dict[str, Any]:
    """The conformance of a subject that ``verify`` runs in ``algorithm``'s place, as a record (JSON-ready).

    Every check of :func:`conform` but the claims (verify is running them): the parameters, the exact law of
    the estimator along the recorded path, the behaviour against the built-in, the reads audit (and for the
    algorithms of another shape, their own checks). Its ``verdict`` is FAIL when a check that ran failed: a
    learner that is not the paper's algorithm cannot PASS a theorem about that algorithm. The verify profile
    ``quick`` runs conform's quick budget, ``full`` and ``paper`` its full one. A subject that conform cannot
    take at all (an instance that cannot be cloned, ...) gets every check NOT RUN with the reason. ``at``: the
    claim's own k and B (:func:`claim_point`), where :func:`check_replaced` re-runs the checks a subject raised on."""
    budget = "quick" if profile == "quick" else "full"
    try:
        result = conform_checks(algorithm, subject, profile=budget, seed=seed, delta=delta,
                                **(at or {}))  # conform without the claims, in this process: verify's worker
    except ParameterError as err:
        why = str(err).splitlines()[0]
        return {"algorithm": algorithm, "subject": subject_name(subject), "verdict": stats.INCONCLUSIVE,
                "delta": delta, "profile": budget, "checks": [
                    {"name": "conformance", "verdict": stats.INCONCLUSIVE, "ran": False, "decision": why,
                     "cause": why}]}
    return {"algorithm": algorithm, "subject": subject_name(subject), "verdict": result.verdict, "delta": delta,
            "profile": budget, "checks": [{"name": c.name, "verdict": c.verdict, "ran": c.ran, "decision": c.decision,
                                           "cause": c.cause, "raised": c.raised,
                                           "unrecorded": bool(c.details.get("unrecorded"))} for c in result.checks
                                          if c.name not in result.inapplicable]}


def verify_text(record: dict[str, Any]) -> str:
    """One paragraph of an in-verify conformance record for the claim's page: which checks ran and how they
    ended, and which could not run (never a plain PASS when one could not)."""
    ran = [c for c in record["checks"] if c["ran"] and not c.get("raised")]
    not_run = [c for c in record["checks"] if not c["ran"] or c.get("raised")]
    verdict = stats.FAIL if any(c["verdict"] == stats.FAIL for c in ran) else stats.PASS if ran else "nothing ran"
    head = (f"Conformance of {record['subject']} to {record['algorithm']} ({record['profile']} budget, each "
            f"stochastic check at δ = {record['delta']:g}): {verdict}")
    parts = [head + (f" on {len(ran)} of {len(record['checks'])} checks; NOT RUN: "
                     + ", ".join(c["name"] for c in not_run) if not_run else "") + "."]
    parts += [f"[{c['verdict']}] {c['name']}: " + (c["cause"] if c["verdict"] != stats.PASS and c["cause"] else
                                                   c["decision"]) for c in ran]
    parts += [f"[NOT RUN] {c['name']}: " + (f"{c['cause']} on this check's instance" + (
        f", and at the claim's own parameters: {c['again']}" if c.get("again") else "") + ", so it judged nothing"
        if c.get("raised") else c["decision"]) for c in not_run]
    if record.get("unjudged"):
        parts.append(f"Not judged: {', '.join(u['name'] for u in record['unjudged'])} (the subject raised, or "
                     "nothing could run): the claim's verdict with this subject is at best INCONCLUSIVE, never PASS.")
    hint = recording_hint([c for c in not_run if not c.get("raised")])
    return "\n".join([*parts, *([f"To run them: {hint}"] if hint else [])])


def check_replaced(plans: list[Plan], *, profile: str, seed: int, out: Path, use_cache: bool = True,
                   progress: bool = False, seconds: float | None = None) -> None:
    """Check each subject that runs in the place of one of the papers' algorithms against that algorithm
    (:func:`in_verify`, in a worker process of its own for at most ``seconds``, :data:`CONFORMANCE_SECONDS` by
    default), once per (algorithm, subject) and cached under ``out/.cache/conformance``; store the records in each
    plan (``Plan.conformance``, with their paragraph in ``Plan.conformance_text``) and refuse a plan whose subject
    failed (``Plan.refused``), so that its tasks are not run: no measurement can make a learner that is not the
    paper's algorithm pass the paper's theorem about it.

    Nothing escapes by raising: the checks a subject raised on (on conformance's own instance) are re-run at the
    claim's own k and B (:func:`claim_point`); those it raises on there too, or a subject conformance cannot take at
    all, are listed in the record's ``unjudged``, and the claim's verdict with that subject is then at best
    INCONCLUSIVE (:func:`theorycheck.verdicts.capped`)."""
    cached = _Cached(Path(out), profile, seed, use_cache, progress, CONFORMANCE_SECONDS if seconds is None else seconds)
    for plan in plans:
        plan.conformance = []
        for name, (algorithm, subject) in replaced_algorithms(plan.claim, plan.subjects).items():
            record = cached.record(algorithm, subject, name, None)
            if "died" not in record and _raised(record):
                point = claim_point(plan.params)
                again = cached.record(algorithm, subject, name, point) if point else None
                record = _rerun(record, again, point)
            if "died" not in record:
                path = cached.path(algorithm, subject, name, plan)
                if "died" in path:
                    record = path
                elif path:  # the subject's own fits in this claim, every step (issue 55 item 1)
                    failed = path["verdict"] == stats.FAIL and not path.get("raised")
                    record = {**record, "checks": [*record["checks"], path],
                              "verdict": stats.FAIL if failed else record["verdict"]}
            if "died" in record:
                plan.refused = TaskError("subject", record["died"], "no Python stack: the worker process ended")
                break
            record = {**record, "unjudged": _unjudged(record)}
            plan.conformance.append({"place": name, **record})
        plan.conformance_text = "\n\n".join(verify_text(c) for c in plan.conformance)
        failed = [c for c in plan.conformance if _failing(c)]
        if failed and plan.refused is None:
            first = _failing(failed[0])[0]
            plan.refused = TaskError("conformance", f"subject {failed[0]['place']} ({failed[0]['subject']}) is not "
                                     f"{failed[0]['algorithm']}: its {first['name']} check failed: "
                                     f"{first['cause'] or first['decision']}",
                                     "\n\n".join(verify_text(c) for c in failed))


class _Cached:
    """The conformance records of one run: computed once per (algorithm, subject, point) in a worker of their own,
    and stored under ``out/.cache/conformance`` (a subject that ended its worker is not stored)."""

    def __init__(self, out: Path, profile: str, seed: int, use_cache: bool, progress: bool, seconds: float):
        self.out, self.profile, self.seed, self.use_cache = out, profile, seed, use_cache
        self.progress, self.seconds = progress, seconds
        self.records: dict[str, dict[str, Any]] = {}

    def record(self, algorithm: str, subject, name: str, point: dict[str, Any] | None) -> dict[str, Any]:
        """The conformance record of ``subject`` in ``algorithm``'s place (:func:`in_verify`), at the claim's
        ``point`` when given, or {"died": why}."""
        where = f" at the claim's {_point_text(point)}" if point else ""
        return self._computed(
            [algorithm, _subject_fingerprint(subject), self.profile, self.seed, code_version()]
            + ([point] if point else []), read_conformance,
            f"checking {subject_name(subject)} against {algorithm} (conformance){where} before the claims that run it",
            f"subject {name} ({subject_name(subject)}) {{how}} while it was checked against {algorithm} (conformance)",
            in_verify, algorithm, subject, self.profile, self.seed, 1e-3, point)

    def path(self, algorithm: str, subject, name: str, plan: Plan) -> dict[str, Any]:
        """The path check of ``subject`` on ``plan``'s own fits (:func:`~.path.path_record`), cached per claim and
        parameters: a check's record, {} when the algorithm has no gradient step, or {"died": why}."""
        from .path import path_record

        return self._computed(
            [algorithm, _subject_fingerprint(subject), self.profile, self.seed, code_version(), "path",
             plan.claim.id, json.dumps(plan.params, sort_keys=True, default=repr)], _read_json,
            f"checking {subject_name(subject)} against {algorithm} on {plan.claim.id}'s own fits (conformance: "
            "every step)",
            f"subject {name} ({subject_name(subject)}) {{how}} while its fits in {plan.claim.id} were checked against "
            f"{algorithm} (conformance: path)",
            path_record, algorithm, subject, plan.claim, plan.params, plan.subjects, name, self.seed)

    def _computed(self, identity: list, read: Callable[[Path], dict | None], announce: str, died: str, function,
                  *args) -> dict[str, Any]:
        """``function(*args)`` run once per ``identity`` in a worker of its own (:func:`_isolated`) and stored under
        ``out/.cache/conformance``, or read back from there with ``read``; ``announce`` is printed before it runs
        (with progress) and ``died`` (its ``{how}`` filled in) is the record of a subject that ended its worker,
        which is not stored."""
        key = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:20]
        if key not in self.records:
            file = self.out / ".cache" / "conformance" / f"{key}.json"
            record = read(file) if self.use_cache else None
            if record is None:
                if self.progress:
                    print(f"theorycheck: {announce}", file=sys.stderr)
                record = _isolated(with_depends, function, *args, seconds=self.seconds)
                if isinstance(record, str):  # the subject ended the process that checked it: not cached
                    record = {"died": died.replace("{how}", record, 1)}
                else:
                    write_json(file, sealed(record))
                    record.pop("depends", None)
            self.records[key] = record
        return self.records[key]


def _read_json(path: Path) -> dict | None:
    """A stored path record, or None when absent, damaged, edited by hand (its checksum) or stale (what it read)."""
    try:
        record, _ = unsealed(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def claim_point(params: dict[str, Any]) -> dict[str, Any]:
    """The claim's own k and B (those of its parameters that are a single number), where the checks a subject
    raised on are re-run; {} when the claim states neither."""
    point: dict[str, Any] = {}
    k, B = params.get("k"), params.get("B")
    if isinstance(k, int | np.integer) and not isinstance(k, bool) and k > 0:
        point["k"] = int(k)
    if isinstance(B, int | float | np.floating) and not isinstance(B, bool) and float(B) > 0:
        point["B"] = float(B)
    return point


def _point_text(point: dict[str, Any]) -> str:
    return ", ".join(f"{key} = {value:g}" for key, value in point.items())


def _raised(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The checks of a record on which the subject raised."""
    return [c for c in record.get("checks", []) if c.get("raised")]


def _rerun(first: dict[str, Any], again: dict[str, Any] | None, point: dict[str, Any]) -> dict[str, Any]:
    """``first`` with each check the subject raised on replaced by its re-run at the claim's ``point`` (``again``),
    each saying so; a check it raised on again stays raised, and so does every one when there is no re-run (the
    claim states no k or B, or the subject ended the re-run's worker)."""
    if again is None or "died" in again:
        why = ("the claim states no k or B to re-run it at" if again is None else again["died"])
        return {**first, "checks": [{**c, "again": why} if c.get("raised") else c for c in first["checks"]]}
    rerun = {c["name"]: c for c in again["checks"]}
    checks = []
    for c in first["checks"]:
        if c.get("raised") and c["name"] in rerun:
            second = rerun[c["name"]]
            note = (f"re-run at the claim's {_point_text(point)} after the subject raised on conformance's own "
                    f"instance ({c['cause']})")
            checks.append({**second, "decision": f"{second['decision']} [{note}]",
                           "again": second["cause"] if second.get("raised") else ""})
        else:
            checks.append(c)
    verdict = (stats.FAIL if any(c["verdict"] == stats.FAIL and not c.get("raised") for c in checks) else
               first["verdict"])
    return {**first, "verdict": verdict, "checks": checks, "point": point}


def _unjudged(record: dict[str, Any]) -> list[dict[str, str]]:
    """[{name, why}] of the checks that judged nothing because the subject raised on them (on conformance's own
    instance and at the claim's own parameters), or of the whole conformance when none could run on the subject."""
    raised = [{"name": c["name"], "why": c["cause"] + (f"; at the claim's own parameters: {c['again']}"
                                                       if c.get("again") else "")} for c in _raised(record)]
    judged = [c for c in record.get("checks", []) if c["ran"] and not c.get("raised")]
    if not judged:
        why = "; ".join(f"{c['name']}: {c['cause'] or c['decision']}" for c in record.get("checks", []))
        return raised or [{"name": "conformance", "why": f"no check could run on the subject ({why})"}]
    return raised


def _failing(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The checks of a conformance record that failed on the subject's behaviour; a check where the subject raised
    (on conformance's own instance, which it may not support) judges nothing: the claim runs and says what the
    subject does on the claim's instance."""
    return [c for c in record["checks"] if c["ran"] and c["verdict"] == stats.FAIL and not c.get("raised")]


def read_conformance(path: Path) -> dict | None:
    """A stored conformance record, or None when absent, not of the shape :func:`check_replaced` writes, its checksum
    does not match (damaged or edited by hand) or a file or environment variable it depends on changed since."""
    try:
        record, _ = unsealed(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    shaped = (isinstance(record, dict) and isinstance(record.get("checks"), list)
              and all(isinstance(c, dict) and {"name", "verdict", "ran", "decision", "cause"} <= set(c)
                      for c in record["checks"])
              and {"algorithm", "subject", "verdict", "delta", "profile"} <= set(record))
    return record if shaped else None
