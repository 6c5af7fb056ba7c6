"""Conformance inside ``verify``: which subjects of a claim are the papers' algorithms, the checks of a subject
that replaces one (every check but the claims, which verify runs) as a record, and its paragraph on the page;
:func:`check_replaced` runs them on a run's plans before any task, so the engine (:mod:`theorycheck.run`) never
calls conformance."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

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


def in_verify(algorithm: str, subject, profile: str, seed: int, delta: float = 1e-3) -> dict[str, Any]:
    """The conformance of a subject that ``verify`` runs in ``algorithm``'s place, as a record (JSON-ready).

    Every check of :func:`conform` but the claims (verify is running them): the parameters, the exact law of
    the estimator along the recorded path, the behaviour against the built-in, the reads audit (and for the
    algorithms of another shape, their own checks). Its ``verdict`` is FAIL when a check that ran failed: a
    learner that is not the paper's algorithm cannot PASS a theorem about that algorithm. The verify profile
    ``quick`` runs conform's quick budget, ``full`` and ``paper`` its full one. A subject that conform cannot
    take at all (an instance that cannot be cloned, ...) gets every check NOT RUN with the reason."""
    budget = "quick" if profile == "quick" else "full"
    try:
        result = conform_checks(algorithm, subject, profile=budget, seed=seed,
                                delta=delta)  # conform without the claims, in this process: verify's worker
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
    parts += [f"[NOT RUN] {c['name']}: " + (f"{c['cause']} on this check's instance, so it judged nothing (the claim "
                                             "runs on its own)" if c.get("raised") else c["decision"]) for c in not_run]
    hint = recording_hint([c for c in not_run if not c.get("raised")])
    return "\n".join([*parts, *([f"To run them: {hint}"] if hint else [])])


def check_replaced(plans: list[Plan], *, profile: str, seed: int, out: Path, use_cache: bool = True,
                   progress: bool = False, seconds: float | None = None) -> None:
    """Check each subject that runs in the place of one of the papers' algorithms against that algorithm
    (:func:`in_verify`, in a worker process of its own for at most ``seconds``, :data:`CONFORMANCE_SECONDS` by
    default), once per (algorithm, subject) and cached under ``out/.cache/conformance``; store the records in each
    plan (``Plan.conformance``, with their paragraph in ``Plan.conformance_text``) and refuse a plan whose subject
    failed (``Plan.refused``), so that its tasks are not run: no measurement can make a learner that is not the
    paper's algorithm pass the paper's theorem about it."""
    checked: dict[str, dict[str, Any]] = {}
    for plan in plans:
        plan.conformance = []
        for name, (algorithm, subject) in replaced_algorithms(plan.claim, plan.subjects).items():
            text = json.dumps([algorithm, _subject_fingerprint(subject), profile, seed, code_version()])
            key = hashlib.sha256(text.encode()).hexdigest()[:20]
            if key not in checked:
                path = Path(out) / ".cache" / "conformance" / f"{key}.json"
                record = read_conformance(path) if use_cache else None
                if record is None:
                    if progress:
                        print(f"theorycheck: checking {subject_name(subject)} against {algorithm} (conformance) "
                              "before the claims that run it", file=sys.stderr)
                    record = _isolated(with_depends, in_verify, algorithm, subject, profile, seed,
                                       seconds=CONFORMANCE_SECONDS if seconds is None else seconds)
                    if isinstance(record, str):  # the subject ended the process that checked it: not cached
                        record = {"died": f"subject {name} ({subject_name(subject)}) {record} while it was checked "
                                          f"against {algorithm} (conformance)"}
                    else:
                        write_json(path, sealed(record))
                        record.pop("depends", None)
                checked[key] = record
            if "died" in checked[key]:
                plan.refused = TaskError("subject", checked[key]["died"], "no Python stack: the worker process ended")
                break
            plan.conformance.append({"place": name, **checked[key]})
        plan.conformance_text = "\n\n".join(verify_text(c) for c in plan.conformance)
        failed = [c for c in plan.conformance if _failing(c)]
        if failed and plan.refused is None:
            first = _failing(failed[0])[0]
            plan.refused = TaskError("conformance", f"subject {failed[0]['place']} ({failed[0]['subject']}) is not "
                                     f"{failed[0]['algorithm']}: its {first['name']} check failed: "
                                     f"{first['cause'] or first['decision']}",
                                     "\n\n".join(verify_text(c) for c in failed))


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
