"""The study: optuna's TPE over a claim's declared space, each trial one run of the claim at a point.

Determinism. A trial's parameters depend only on (base seed, trial number) and the trials finished before
its batch: trials are asked :data:`BATCH` at a time, TPE is seeded afresh for every trial from the search's
own stream, and no trial of a batch is run before the whole batch is asked. So ``--jobs`` changes how fast
a search runs, never what it finds; and a search stopped anywhere (Ctrl-C, kill -9) resumes from its
storage (``<out>/search/<claim>.db``, SQLite) to the same trials and the same result: the trials left
running are run again at the parameters stored for them, with the same seed.

Streams. Trial n runs the claim with base seed ``stream_seed(seed, "search", n)``; the confirmations
(:mod:`theorycheck.search.confirm`) use ``stream_seed(seed, "confirm", i)``. Both derive from the base seed
through a SeedSequence with a tag of their own, so they are disjoint from each other and from verify's
streams at the base seed (a collision is checked for, and skipped).
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..spaces import Choice, Int, Real, Space, space_of
from ..stats import FAIL, PASS
from ..validation import ParameterError, check_jobs

#: trials asked together: the parameters of a batch depend only on the batches before it (and the seed)
BATCH = 4
#: trials of TPE's random start (its n_startup_trials), before it models the objective
STARTUP = 8
#: the default budget: trials that run (infeasible points are not counted; a batch is always run whole)
DEFAULT_TRIALS = 24
#: at most this many points asked per trial of the budget (a space whose points are nearly all infeasible ends)
MAX_ASKED = 20
#: the record fields a trial keeps (the rest of a result record stays in its run folder, which is removed)
KEPT = ("verdict", "ratio", "observed", "theory", "interval", "vacuous", "delta", "seconds")


def stream_seed(base_seed: int, tag: str, index: int) -> int:
    """The base seed (a 32-bit integer, as ``verify --seed`` takes it) of stream ``tag``'s run ``index``."""
    from ..run.provenance import claim_hash

    sequence = np.random.SeedSequence(base_seed, spawn_key=(claim_hash(f"search:{tag}"), index))
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


def margin(kind: str, record: Mapping[str, Any]) -> float | None:
    """The claim's own margin on one result record: what the search maximises (larger is nearer a violation).

    bound, frequency, pathwise: ``ratio`` = observed / bound (the claim's headline quantity over its right-hand
    side; > 1 where the statement is contradicted). exact: ``observed``, the largest exact discrepancy (any
    non-zero one is a counterexample), 0 for a PASS of a claim that reports no number. lower-bound: 1 /
    ``ratio`` (the statement is ratio ≥ 1). A record without the field (ERROR, a FAIL raised by the subject's
    output) has no margin."""
    if kind == "exact":
        value = record.get("observed")
        if value is None and record.get("verdict") == PASS:
            value = 0.0  # an exact claim with no headline number: PASS is no discrepancy on any case enumerated
    elif kind == "lower-bound":
        ratio = record.get("ratio")
        value = None if not ratio else 1.0 / ratio
    else:
        value = record.get("ratio")
    return None if value is None or not math.isfinite(value) else float(value)


#: the kinds whose margin :func:`margin` knows
SEARCHABLE_KINDS = ("bound", "frequency", "pathwise", "exact", "lower-bound")


def parse_budget(text: Any) -> tuple[int | None, float | None]:
    """``--budget``: an integer number of trials ("40"), or CPU seconds with an ``s`` ("600s"); returns
    (trials, seconds), one of them None."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(f"--budget must be a number of trials (40) or CPU seconds (600s), got {text!r}")
    body = text.strip().lower()
    try:
        if body.endswith("s"):
            seconds = float(body[:-1])
            if not math.isfinite(seconds) or seconds <= 0:
                raise ValueError
            return None, seconds
        trials = int(body)
        if trials < 1:
            raise ValueError
        return trials, None
    except ValueError:
        raise ParameterError(f"--budget must be a number of trials ≥ 1 (40) or CPU seconds > 0 (600s), "
                             f"got {text!r}") from None


def _suggest(trial, name: str, dim) -> Any:
    if isinstance(dim, Int):
        return trial.suggest_int(name, dim.low, dim.high, log=dim.log)
    if isinstance(dim, Real):
        return trial.suggest_float(name, dim.low, dim.high, log=dim.log)
    if isinstance(dim, Choice):
        return trial.suggest_categorical(name, list(dim.options))
    raise TypeError(f"unknown dimension {dim!r}")


def _sampler(seed: int, number: int):
    import optuna

    return optuna.samplers.TPESampler(seed=stream_seed(seed, "sampler", number), n_startup_trials=STARTUP)


def run_point(job: dict[str, Any]) -> dict[str, Any]:
    """Run one point (in this process or a pool's worker): the claim through ``verify_claims`` at the point's
    overrides and seed, in its own folder (removed afterwards); returns the kept fields of its record."""
    from ..claims import load_claims, select
    from ..session import load_subject, verify_claims
    from ..verdicts import headline

    load_claims(job["claims_modules"])
    [claim] = select([job["claim"]])
    subjects = {k: load_subject(v) if isinstance(v, str) else v for k, v in job["subjects"].items()}
    folder = Path(job["out"])
    start = time.process_time()
    try:
        [record] = verify_claims([claim], profile=job["profile"], seed=job["seed"], overrides=job["overrides"],
                                 subjects=subjects, jobs=job["jobs"], out=folder, progress=False,
                                 conformance=job["conformance"], isolate=job["isolate"], force=job["force"])
    except ParameterError as err:  # the resource guard (or a rule only the plan checks) refuses the point
        shutil.rmtree(folder, ignore_errors=True)
        return {"infeasible": str(err).splitlines()[0]}
    kept = {k: record.get(k) for k in KEPT}
    # a replaced subject that failed its conformance checks: the claim was not run at the point (verify's FAIL)
    kept["nonconforming"] = any(c.get("verdict") == FAIL for c in record.get("conformance") or [])
    kept["headline"] = headline(record.get("decision"), record.get("verdict"))
    kept["decision"] = record.get("decision", "")
    kept["cpu"] = float(record.get("seconds") or 0.0) or time.process_time() - start
    if job["remove"]:
        shutil.rmtree(folder, ignore_errors=True)
    return kept


@dataclass
class Trial:
    """One trial as the search reports it."""

    number: int
    point: dict[str, Any]
    state: str  # "complete", "infeasible", "error", "running"
    seed: int | None = None
    margin: float | None = None
    verdict: str | None = None
    ratio: float | None = None
    interval: list | None = None
    vacuous: bool = False
    seconds: float = 0.0
    why: str = ""


@dataclass
class Study:
    """A search's study over one claim: the claim, its space, where it is stored, and its trials."""

    claim: Any
    space: Space
    profile: str
    seed: int
    overrides: dict[str, str]
    subjects: dict[str, Any]
    out: Path
    claims_modules: tuple[str, ...] = ()
    trials: list[Trial] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.out / "search"

    @property
    def storage_url(self) -> str:
        return f"sqlite:///{(self.folder / f'{self.claim.id}.db').resolve()}"

    @property
    def name(self) -> str:
        subjects = ",".join(f"{k}={_spec(v)}" for k, v in sorted(self.subjects.items()))
        sets = ",".join(f"{k}={v}" for k, v in sorted(self.overrides.items()))
        return f"{self.claim.id}|{self.profile}|seed={self.seed}|set={sets}|subjects={subjects}"

    def job(self, seed: int, overrides: dict[str, str], folder: Path, *, jobs: int = 1, conformance: bool = False,
            isolate: bool | None = False, remove: bool = True, force: bool = False) -> dict[str, Any]:
        return {"claim": self.claim.id, "claims_modules": list(self.claims_modules), "profile": self.profile,
                "seed": seed, "overrides": overrides, "subjects": self.subjects, "out": str(folder), "jobs": jobs,
                "conformance": conformance, "isolate": isolate, "remove": remove, "force": force}


def _spec(obj: Any) -> str:
    from ..claims import subject_name

    return obj if isinstance(obj, str) else subject_name(obj)


def open_study(study: Study):
    """The optuna study of ``study`` in its SQLite storage, created or loaded (``load_if_exists``)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study.folder.mkdir(parents=True, exist_ok=True)
    storage = optuna.storages.RDBStorage(study.storage_url, engine_kwargs={"connect_args": {"timeout": 60}})
    _write_ahead(storage.engine)
    return optuna.create_study(study_name=study.name, storage=storage, direction="maximize", load_if_exists=True,
                               sampler=_sampler(study.seed, 0))


def _write_ahead(engine) -> None:
    """SQLite in write-ahead mode with synchronous=NORMAL: a commit no longer waits for the disk (each took
    about 12 ms, more than a cheap trial's work), and a killed process still loses nothing it committed; only
    a crash of the machine itself may lose the last trials, which are then run again."""
    from sqlalchemy import event

    def pragmas(connection, _record):
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    event.listen(engine, "connect", pragmas)
    engine.dispose()  # connections opened before the listener get the pragmas when they are opened again


def feasibility(study: Study, point: Mapping[str, Any]) -> str:
    """Why ``point`` is infeasible (a constraint of the space, or the claim's own parameter rules); "" if it is
    feasible."""
    broken = study.space.broken(point)
    if broken:
        return "breaks " + "; ".join(broken)
    try:
        study.claim.params_for(study.profile, {**study.overrides, **study.space.overrides(point)})
    except ParameterError as err:
        return str(err).splitlines()[0]
    return ""


def run_study(study: Study, *, trials: int | None, seconds: float | None, jobs: int = 1, progress: bool = False,
              stop_after: int | None = None) -> None:
    """Run the study until it holds ``trials`` finished trials (or, with ``seconds``, until the finished trials'
    CPU seconds reach it, a batch at a time), resuming what its storage holds; fills ``study.trials``.

    ``stop_after``: stop after running that many trials in this call (tests use it to stop a search midway, as
    a kill would)."""
    from optuna.trial import TrialState

    jobs = check_jobs(jobs)
    optuna_study = open_study(study)
    ran = 0
    bar = _bar(progress, trials)
    try:
        while True:
            existing = optuna_study.get_trials(deepcopy=False)
            finished = [t for t in existing if t.state != TrialState.RUNNING]
            spent = sum(t.user_attrs.get("run", {}).get("cpu", 0.0) for t in finished)
            running = [t for t in existing if t.state == TrialState.RUNNING]
            asked = len(existing)
            ran_count = sum(t.state in (TrialState.COMPLETE, TrialState.FAIL) for t in finished)
            if bar is not None:  # a whole batch may run past the budget: the bar's total follows, never passed
                bar.total = max(bar.total or 0, ran_count) if trials is not None else None
                bar.n = ran_count
                bar.set_postfix_str(f"{spent:.0f} CPU s, {asked - len(running) - ran_count} infeasible")
                bar.refresh()
            # a batch whose asks were cut short is completed before any of it runs (its parameters then depend
            # on the same history as in an uninterrupted run); a new batch only once the last one has run
            size = (BATCH - asked % BATCH) % BATCH
            if not running:
                if trials is not None and (ran_count >= trials or asked >= MAX_ASKED * trials):
                    break
                if seconds is not None and (spent >= seconds or asked >= MAX_ASKED * max(seconds, 1.0)):
                    break
                size = size or BATCH
            for _ in range(size):
                optuna_study.sampler = _sampler(study.seed, len(optuna_study.get_trials(deepcopy=False)))
                trial = optuna_study.ask()
                for name, dim in study.space.dims.items():
                    _suggest(trial, name, dim)
            pending = sorted((t for t in optuna_study.get_trials(deepcopy=False) if t.state == TrialState.RUNNING),
                             key=lambda t: t.number)
            if stop_after is not None:
                pending = pending[: max(stop_after - ran, 0)]
                if not pending:
                    break
            _run_batch(study, optuna_study, pending, jobs)
            ran += len(pending)
    finally:
        if bar is not None:
            bar.close()
    study.trials = [_trial_of(t) for t in optuna_study.get_trials(deepcopy=False)]


def _run_batch(study: Study, optuna_study, pending, jobs: int) -> None:
    from optuna.trial import Trial as OptunaTrial
    from optuna.trial import TrialState

    calls = []
    for frozen in pending:
        point = dict(frozen.params)
        handle = OptunaTrial(optuna_study, frozen._trial_id)
        why = feasibility(study, point)
        if why:
            handle.set_user_attr("infeasible", why)
            optuna_study.tell(handle, state=TrialState.PRUNED)
            continue
        seed = stream_seed(study.seed, "search", frozen.number)
        folder = study.folder / study.claim.id / f"trial-{frozen.number}"
        overrides = {**study.overrides, **study.space.overrides(point)}
        calls.append((handle, seed, study.job(seed, overrides, folder)))
    for (handle, seed, _), kept in zip(calls, _map(run_point, [job for *_, job in calls], jobs), strict=True):
        if "infeasible" in kept:
            handle.set_user_attr("infeasible", kept["infeasible"])
            optuna_study.tell(handle, state=TrialState.PRUNED)
            continue
        handle.set_user_attr("run", {"seed": seed, **{k: v for k, v in kept.items() if k != "decision"}})
        value = margin(study.claim.kind, kept)
        if value is None and kept["verdict"] == FAIL:
            value = math.inf  # a certain failure (the subject's output broke the conclusion): above any ratio
        if value is None:
            handle.set_user_attr("error", kept["headline"] or kept["verdict"])
            optuna_study.tell(handle, state=TrialState.FAIL)
        else:
            optuna_study.tell(handle, min(value, 1e300))


def _map(function, jobs_list: list, jobs: int) -> list:
    """``function`` over ``jobs_list``, in this process at ``jobs`` 1, else in loky's reusable pool (kept warm
    across batches, so compiled kernels are reused). A point run in this process runs a user's code in workers
    (``isolate`` None), never here; one run in the pool runs it in that worker."""
    if jobs <= 1 or len(jobs_list) <= 1:
        return [function({**job, "isolate": None if job["isolate"] is False else job["isolate"]})
                for job in jobs_list]
    import os

    from joblib.externals.loky import get_reusable_executor

    from ..run.execute import worker_start

    # the same workers as verify's (the same start, so loky reuses them rather than starting others)
    executor = get_reusable_executor(max_workers=jobs, reuse=True, initializer=worker_start, initargs=(os.getpid(),))
    return list(executor.map(function, jobs_list))


def _trial_of(frozen) -> Trial:
    from optuna.trial import TrialState

    attrs = {**frozen.user_attrs, **frozen.user_attrs.get("run", {})}
    state = {TrialState.COMPLETE: "complete", TrialState.PRUNED: "infeasible", TrialState.FAIL: "error"}.get(
        frozen.state, "running")
    return Trial(number=frozen.number, point=dict(frozen.params), state=state, seed=attrs.get("seed"),
                 margin=frozen.value if state == "complete" else None, verdict=attrs.get("verdict"),
                 ratio=attrs.get("ratio"), interval=attrs.get("interval"), vacuous=bool(attrs.get("vacuous")),
                 seconds=float(attrs.get("cpu") or 0.0),
                 why=attrs.get("infeasible", "") or attrs.get("error", "") or attrs.get("headline", ""))


def _bar(progress: bool, total: int | None):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="trials", unit="trial", dynamic_ncols=True,
                bar_format="{desc}: {n_fmt}/{total_fmt} |{bar}| {elapsed}<{remaining} {postfix}")


def make_study(claim, *, profile: str, seed: int, overrides: Mapping[str, str] | None,
               subjects: Mapping[str, Any] | None, out: Path | str, claims_modules=()) -> Study:
    """Validate a search's request and return its :class:`Study` (nothing run): the claim must declare a space,
    ``overrides`` (``--set``, applied at every point) must not name a searched parameter."""
    space = space_of(claim)
    if space is None:
        raise ParameterError(f"{claim.id} declares no search space (see `theorycheck show {claim.id}`)")
    if claim.kind not in SEARCHABLE_KINDS:
        raise ParameterError(f"{claim.id}: the search has no margin for claims of kind {claim.kind} yet")
    overrides = dict(overrides or {})
    searched = sorted(set(overrides) & set(space.dims))
    if searched:
        raise ParameterError(f"--set {', '.join(searched)}: the search varies it; leave it out")
    unknown = sorted(set(overrides) - set(claim.profile(profile)))
    if unknown:
        raise ParameterError(f"{claim.id} has no parameter named {', '.join(unknown)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"--seed must be a non-negative integer, got {seed!r}")
    return Study(claim=claim, space=space, profile=profile, seed=seed, overrides={**space.fixed, **overrides},
                 subjects=dict(subjects or {}), out=Path(out), claims_modules=tuple(claims_modules))
