"""A claim's result record, assembled from its tasks' measurements (or the error that stopped them) and
decided by the claim, by the rules of :mod:`theorycheck.verdicts`.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from ..claims import Evidence, Hypothesis, subject_name
from ..verdicts import Verdict, capped, judged, stopped
from .execute import _not_finished, unwritten_hook
from .plan import Plan, TaskError
from .provenance import code_version


def _merge_hypotheses(payloads) -> list[Hypothesis]:
    merged: dict[str, Hypothesis] = {}
    for payload in payloads:
        for h in payload["hypotheses"]:
            old = merged.get(h["statement"])
            if old is None or (old.met and not h["met"]):
                merged[h["statement"]] = Hypothesis(h["statement"], bool(h["met"]), h.get("detail", ""))
    return list(merged.values())


def _finish(plan: Plan, payloads, error, *, seed, profile, env) -> dict[str, Any]:
    claim = plan.claim
    record: dict[str, Any] = {
        **{k: v for k, v in claim.describe().items() if k != "profiles"},
        "subjects": {name: subject_name(obj) for name, obj in plan.subjects.items()},
        "replaced": {name: subject_name(obj) for name, obj in plan.subjects.items()
                     if obj is not claim.subjects.get(name)},
        "params": plan.params,
        "profile": profile,
        "seed": seed,
        "code_version": code_version(),
        "environment": env,
        "observed": None,
        "theory": None,
        "ratio": None,
        "interval": None,
        "trivial": None,
        "vacuous": False,
        "vacuous_reason": "",
        "errata_evidence": {},
        "findings": [],
        "delta": None,
        "notes": [],
        "hypothesis_checks": [],
        "plot": None,
        "n_tasks": len(plan.tasks),
        "conformance": plan.conformance,
    }
    if error is not None or any(p is None for p in payloads):  # the tasks stopped: the error decides
        error = error or TaskError("harness", "", "missing task")
        cause = _not_finished(claim, error.cause) if error.kind == "unfinished" else error.cause
        verdict, decision = stopped(error.kind, cause, error.trace)
        record.update(verdict=verdict, decision=decision, seconds=0.0)
        return record
    start = time.thread_time()
    rows = [row for p in payloads for row in p["rows"]]
    table = pd.DataFrame(rows)
    hyps = _merge_hypotheses(payloads)
    try:
        evidence = claim.decide(plan.params, table)
        if not isinstance(evidence, Evidence):
            raise TypeError(f"{claim.id}.decide must return Evidence")
    except Exception as err:
        missing = unwritten_hook(err, claim)
        if missing is not None:
            record.update(verdict=Verdict.ERROR, decision=_not_finished(claim, missing), seconds=0.0)
            return record
        message = "Deciding raised an exception:\n" + traceback.format_exc(limit=8)
        record.update(verdict=Verdict.ERROR, decision=message, seconds=0.0)
        return record
    broken = [f"{h.statement} ({h.detail})" if h.detail else h.statement for h in hyps if not h.met]
    verdict, decision = judged(evidence.verdict, evidence.decision, vacuous=evidence.vacuous,
                               vacuous_reason=evidence.vacuous_reason, broken=broken)
    verdict, decision = capped(verdict, decision, replaced=record["replaced"], conformance=plan.conformance)
    if plan.conformance:  # every check it ran passed (else the claim was not run): say which ran, and which could not
        decision += "\n\n" + plan.conformance_text
    record.update(
        verdict=verdict,
        decision=decision,
        observed=_finite_or_none(evidence.observed),
        theory=_finite_or_none(evidence.theory),
        ratio=_finite_or_none(evidence.ratio),
        interval=None if evidence.interval is None else [_finite_or_none(v) for v in evidence.interval],
        delta=evidence.delta,
        notes=list(evidence.notes),
        errata_evidence=dict(evidence.errata),
        trivial=_finite_or_none(evidence.trivial),
        vacuous=bool(evidence.vacuous),
        vacuous_reason=evidence.vacuous_reason if evidence.vacuous else "",
        findings=[{k: _finite_or_none(v) if isinstance(v, float) else v for k, v in f.items()}
                  for f in evidence.findings],
        hypothesis_checks=[asdict(h) for h in hyps],
        plot=asdict(evidence.plot) if evidence.plot is not None else None,
        seconds=sum(p["seconds"] for p in payloads) + time.thread_time() - start,
        _table=table,
        _summary=evidence.summary,
    )
    return record


def _finite_or_none(value):
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None
