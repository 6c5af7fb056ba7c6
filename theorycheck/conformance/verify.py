"""Conformance inside ``verify``: which subjects of a claim are the papers' algorithms, the checks of a subject
that replaces one (every check but the claims, which verify runs) as a record, and its paragraph on the page."""

from __future__ import annotations

from typing import Any

from .. import stats
from ..claims import subject_name
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
