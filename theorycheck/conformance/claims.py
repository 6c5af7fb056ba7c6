"""The **claims** check: the paper's claims about the algorithm, run with the learner in each place of the
built-in (:func:`claims_for` says which), and the estimate of their time on the learner before any work."""

from __future__ import annotations

import math
import warnings

from .. import stats
from ..claims import discover
from ..validation import ParameterError
from .core import Check, Spec, _load, _not_run
from .registry import ALGORITHMS


def claims_for(algorithm: str, profile: str = "quick") -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """The claims conformance runs for ``algorithm``: {claim id: the names of its subjects that are the
    built-in class}, and the ids left out at this profile.

    The quick profile runs the lemmas (statements about one step or about the path, cheap for any
    learner) and leaves out the rest: theorems, rates, lower bounds and experiments run the learner
    millions of times (hk12.thm3.1's quick profile alone fits it on 3.6·10⁷ examples), and the
    reproductions on real data cannot decide at quick. The full profile runs them all."""
    builtin = _load(ALGORITHMS[algorithm].builtin)
    claims = discover()
    places = {cid: tuple(name for name, obj in c.subjects.items() if obj is builtin) for cid, c in claims.items()}
    places = {cid: names for cid, names in places.items() if names}
    skipped = [cid for cid in places if profile == "quick" and not claims[cid].reference.startswith("Lemma")]
    return {cid: names for cid, names in places.items() if cid not in skipped}, skipped


def _claims_check(spec: Spec, learner, places: dict[str, tuple[str, ...]], skipped: list[str], profile: str,
                  seed: int, out, jobs: int = 1, progress: bool = False, required: bool = False,
                  task_timeout: float | None = None) -> Check:
    """The claims, with ``learner`` in each place of the built-in. A claim whose contract the learner does not
    meet, or that stops on it before any verdict (a path it does not record), is not run, with its reason; the
    check is not run when no claim ran. Never raises a usage error once claims have started."""
    import tempfile
    from pathlib import Path

    from ..protocols import check_subject
    from ..run import run_claims

    if not places and not skipped:
        return _not_run("claims", "no claim has this algorithm as a subject")
    claims = discover()
    refused: dict[str, str] = {}  # a learner without what a claim's contract needs: that claim cannot run
    for cid, names in places.items():
        for name in names:
            try:
                check_subject(cid, name, learner, claims[cid].protocols.get(name))
            except ParameterError as err:
                refused.setdefault(cid, str(err))
    run = [claims[cid] for cid in places if cid not in refused]
    names = {name for c in run for name in places[c.id]}
    builtin = _load(spec.builtin)
    if all(c.subjects[name] is builtin for c in run for name in names if name in c.subjects):
        groups = [run] if run else []  # one mapping {name: learner} serves every claim: one run, one report
    else:
        by_names: dict[tuple, list] = {}
        for c in run:
            by_names.setdefault(places[c.id], []).append(c)
        groups = list(by_names.values())
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(out) if out is not None else Path(tmp)
        for i, group in enumerate(groups):
            mapping = {name: learner for c in group for name in places[c.id]}
            folder = root if len(groups) == 1 else root / f"claims-{i + 1}"
            try:
                records += run_claims(group, profile=profile, seed=seed, subjects=mapping, out=folder, jobs=jobs,
                                      progress=progress, task_timeout=task_timeout)
            except ParameterError as err:  # the learner stopped a claim before any verdict (no path, ...)
                if len(group) == 1:
                    refused[group[0].id] = str(err).splitlines()[0]
                    continue
                for c in group:  # one at a time, so that the others still report (finished tasks are cached)
                    try:
                        records += run_claims([c], profile=profile, seed=seed, subjects=mapping, out=folder,
                                              jobs=jobs, progress=progress, task_timeout=task_timeout)
                    except ParameterError as one:
                        refused[c.id] = str(one).splitlines()[0]
    verdicts = [r["verdict"] if r["verdict"] in (stats.PASS, stats.FAIL, stats.INCONCLUSIVE) else stats.FAIL
                for r in records] + [stats.INCONCLUSIVE] * (len(refused) if required else 0)
    listed = "; ".join([f"{r['id']} {r['verdict']}" for r in records]
                       + [f"{cid} not run: {why}" for cid, why in refused.items()])
    later = f" {_skipped_text(skipped)}" if skipped else ""
    details = {"claims": {r["id"]: r["verdict"] for r in records}, "skipped": skipped, "refused": refused}
    if not records:
        return _not_run("claims", f"no claim could run on this learner: {listed or 'none'}.{later}", details)
    verdict = stats.combine(verdicts)
    worst = next((r for r in records if r["verdict"] not in (stats.PASS, stats.INCONCLUSIVE)),
                 next((r for r in records if r["verdict"] != stats.PASS), None))
    why = f" First failure: {_record_cause(worst)}" if worst and worst["verdict"] != stats.INCONCLUSIVE else ""
    cause = (f"{worst['id']} {worst['verdict']}: {_record_cause(worst)}" if worst else
             f"{next(iter(refused))} not run: {next(iter(refused.values()))}" if refused and required else "")
    return Check("claims", verdict, f"{len(records)} claims ({profile} profile): {listed}.{why}{later}", details,
                 cause=cause)


def _record_cause(record: dict) -> str:
    """The most specific reason a claim is not PASS: a hypothesis the run broke (e.g. "η used 0.00707107
    (given 0.005)"), else the findings not reproduced, else the first line of its decision."""
    from ..verdicts import headline

    broken = [h for h in record.get("hypothesis_checks") or [] if not h.get("met")]
    if broken:
        return "; ".join(f"{h['statement']}: {h['detail']}" if h.get("detail") else h["statement"] for h in broken)
    findings = [f for f in record.get("findings") or [] if f.get("outcome") not in (None, "REPRODUCED")]
    if findings:
        return "; ".join(f"{f.get('finding', '?')}: {f['outcome']}" for f in findings[:3])
    return headline(record.get("decision"))


def _skipped_text(skipped: list[str]) -> str:
    return ("Not run at the quick profile (--profile full runs them): " + ", ".join(skipped) + ". They fit the "
            "learner up to millions of times; at quick, the behaviour check stands in for them: it compares the "
            "law of your excess risk with the built-in's, whose theorems `theorycheck verify` checks.")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _probe(spec: Spec, builtin, calls: list):
    """The built-in, or a copy of it, that appends to ``calls`` the data of each fit (with the keywords it was built
    with) or the arguments of each call."""
    if spec.function:
        def counted(*args, **kwargs):
            calls.append((args, kwargs))
            return builtin(*args, **kwargs)
        return counted

    class Counted(builtin):  # type: ignore[valid-type,misc]
        def __new__(cls, *args, **kwargs):  # keeps the keywords the claim built it with
            made = super().__new__(cls)
            made._probe_keywords = kwargs
            return made

        def fit(self, X, y, *args, **kwargs):
            calls.append(((X, y, *args), {"keywords": self._probe_keywords, "fit": kwargs}))
            return super().fit(X, y, *args, **kwargs)
    return Counted


_PROBE_ROWS = 2000  # the examples of the fit on which a learner is timed


def _claims_seconds(spec: Spec, learner, places: dict[str, tuple[str, ...]], profile: str,
                    seed: int, limit: float = math.inf) -> tuple[float, str] | None:
    """(CPU seconds, how they were found) the claims check should take with ``learner``, or None when no claim
    could be estimated. Tasks of each claim (all of them, or up to 8 spread over its list when they are costly:
    about 2 s of the built-in's shipped cost per claim) run with a copy of the built-in that keeps the data of its
    fits (a function subject: the arguments of its calls). ``learner`` is timed on the first 2000 examples of the
    largest of those fits (the faster of two, unless the first took 0.5 s) or on 20 of those calls, and its time
    per example (per call) is multiplied by the examples (calls) of all the claim's tasks. It counts ``fit`` (the
    calls) only, and a claim that adds tasks as it goes (a sequential design) can take longer: an estimate of the
    order, not a bound. Stops once past ``limit``."""
    import time

    from ..protocols import check_subject
    from ..run.plan import _mean_cost
    from ..run.provenance import task_seed

    builtin = _load(spec.builtin)
    claims = discover()
    total, counted, timed = 0.0, 0, []
    for cid, subjects in places.items():
        claim = claims[cid]
        try:
            for subject in subjects:
                check_subject(cid, subject, learner, claim.protocols.get(subject))
        except ParameterError:
            continue  # the claims check will not run it
        calls: list[tuple[tuple, dict]] = []
        probe = _probe(spec, builtin, calls)
        params = claim.params_for(profile)
        try:
            tasks = claim.tasks(params)
            sample = min(len(tasks), 8, max(1, int(2.0 / _mean_cost({}, claim, profile))))
            chosen = sorted({round(i * (len(tasks) - 1) / max(sample - 1, 1)) for i in range(sample)})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for r in chosen:
                    claim.measure(params, tasks[r], {**claim.subjects, **dict.fromkeys(subjects, probe)},
                                  task_seed(seed, cid, r))
        except Exception:  # the claim cannot be run this way: not estimated (the claims check says what it does)
            continue
        if not calls:
            continue
        share = len(tasks) / len(chosen)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if spec.function:
                    some = calls[:: max(1, len(calls) // 20)][:20]
                    start = time.process_time()
                    for args, kwargs in some:
                        learner(*args, **kwargs)
                    total += (time.process_time() - start) / len(some) * len(calls) * share
                else:
                    (X, y, *rest), kwargs = max(calls, key=lambda call: len(call[0][0]))
                    X, y = X[:_PROBE_ROWS], y[:_PROBE_ROWS]  # an online learner's time grows with m
                    seconds = []
                    while len(seconds) < 2 and sum(seconds) < 0.5:  # a compiled learner's first fit compiles it
                        start = time.process_time()
                        learner(**kwargs["keywords"]).fit(X, y, *rest, **kwargs["fit"])
                        seconds.append(time.process_time() - start)
                    total += min(seconds) / max(len(X), 1) * sum(len(args[0]) for args, _ in calls) * share
        except Exception:
            continue
        counted += round(len(calls) * share)
        timed.append(cid)
        if total > limit:
            break
    if not timed:
        return None
    unit = "calls" if spec.function else "fits"
    return total, (f"{counted:,} {unit} in {', '.join(timed)}, timed on {'20 calls' if spec.function else 'one fit'} "
                   "of yours; CPU time of your learner alone")


def _claims_estimate(algorithm: str, learner, places, profile: str, seed: int, limit: float):
    """:func:`_claims_seconds` by the algorithm's name (what a worker process is given)."""
    return _claims_seconds(ALGORITHMS[algorithm], learner, places, profile, seed, limit)
