"""Run claims: plan them, run their tasks, decide each claim and store its result.

The package, from the ground up:

- :mod:`~theorycheck.run.provenance`: the code version, the machine, the seeds and the cache keys;
- :mod:`~theorycheck.run.store`: what a run writes (atomically) and how it is read back, through one schema;
- :mod:`~theorycheck.run.plan`: each claim's plan, the resource guards and the expected cost of each task;
- :mod:`~theorycheck.run.execute`: the tasks in this process, in worker processes or on Dask, in rounds, with the
  progress bar;
- :mod:`~theorycheck.run.record`: a claim's result record, from its tasks' measurements;
- here, :func:`run_claims`, which drives them.

Cache. Each finished task is stored as JSON under ``<out>/.cache/<claim>/<key>/task-<r>.json``, where the key
(:func:`~theorycheck.run.provenance.cache_key`) hashes the claim, its parameters, the seed, the subjects and the
code version. The verdict is recomputed from the stored measurements, so nothing but raw measurements is cached,
and a task that raised is never stored. An interrupted run resumes from the tasks already stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ..claims import Claim
from ..validation import check_jobs, check_real
from .execute import (
    TASK_SECONDS,
    TimeLeft,
    _dask_client,
    _extensions,
    _run_round,
    check_sendable,
    isolation_of,
)
from .plan import Plan, TaskError, _write_timings, plan_claims, read_timings
from .provenance import environment
from .record import _finish
from .store import (
    STORAGE_ERRNOS,
    NotWritten,
    _from_cache,
    _store_result,
    prune_cache,
    remove_orphans,
    write_summary,
)


def run_claims(
    claims: list[Claim],
    *,
    profile: str = "quick",
    seed: int = 0,
    overrides: dict[str, str] | None = None,
    subjects: dict[str, Any] | None = None,
    jobs: int = 1,
    out: Path | str = "reports",
    use_cache: bool = True,
    progress: bool = True,
    scheduler: str | None = None,
    on_finish: Callable[[list[dict[str, Any]]], None] | None = None,
    force: bool = False,
    task_timeout: float | None = None,
    isolate: bool | None = None,
    plans: list[Plan] | None = None,
) -> list[dict[str, Any]]:
    """Run ``claims`` and write their results under ``out``; return the result records.

    ``plans``: what :func:`plan_claims` made of the same claims, overrides, subjects, profile, seed and ``out``
    beforehand (a session plans first, so that its resource guard refuses a plan before any work); None: plan here.

    A claim with a user's subject runs its tasks in worker processes, even at ``jobs`` 1 (see the module's
    Isolation; ``isolate`` True: every claim's, False: none at ``jobs`` 1); ``task_timeout``: the seconds one
    of its tasks may take before it is SUBJECT-ERROR (None: :data:`TASK_SECONDS` of the profile).

    ``scheduler``: the address of a Dask distributed scheduler (``tcp://host:8786``) that runs the
    tasks instead of local processes (``jobs`` is then ignored). Each task's seed is derived as
    always, so the results are those of a local run; this process keeps the cache and writes every
    file. The workers must be able to import theorycheck and any replaced subject.

    ``on_finish``, if given, is called with the records finished so far (in the claims' order)
    each time a claim is decided before the end of the run, e.g. to render its page at once.

    ``force`` runs a plan that :func:`check_resources` refuses (more tasks, memory, disk or time than
    the machine holds).

    A plan refused before the run (``Plan.refused``: a subject that is not the paper's algorithm it replaces, found
    by :func:`theorycheck.session.verify_claims`, which checks them first) runs no task and gets its verdict from
    the refusal."""
    jobs = check_jobs(jobs)  # a count of workers from here on (−1 is every core, −2 all but one)
    if task_timeout is not None:
        task_timeout = check_real("--task-timeout", task_timeout, low=0.1, high=1e7)
    out = Path(out)
    if out.exists():
        remove_orphans(out)
    if isolate is not False:
        check_sendable(subjects or {})
    if plans is None:
        plans = plan_claims(
            claims, profile=profile, seed=seed, overrides=overrides or {}, subjects=subjects, out=out, force=force
        )
    stored: dict[tuple[int, int], dict] = {}
    client = None
    errors: dict[int, TaskError] = {i: plan.refused for i, plan in enumerate(plans) if plan.refused is not None}
    isolation = isolation_of(plans, TASK_SECONDS.get(profile, TASK_SECONDS["full"]) if task_timeout is None
                             else task_timeout, isolate)
    history = read_timings(out)
    ran: set[tuple[int, int]] = set()
    bar = tqdm(
        total=0,
        desc="work",
        unit="s",
        disable=not progress,
        mininterval=0.5,
        smoothing=0,  # the rate over the whole run: tasks finish in lumps, a moving average jumps
        dynamic_ncols=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}",
    )
    eta = TimeLeft.for_machine(jobs, local=scheduler is None)
    start = time.perf_counter()
    env = environment()
    finished: dict[int, dict[str, Any]] = {}

    def finish(i: int, final: bool = False) -> None:
        """Decide claim i and store its result as soon as its last task is in (a sequential claim's
        only after the rounds), so a stopped run leaves the results of the claims it finished."""
        plan = plans[i]
        if i in finished or not (final or (i not in errors and type(plan.claim).extend is Claim.extend
                                           and all((i, r) in stored for r in range(len(plan.tasks))))):
            return
        payloads = [stored.get((i, r)) for r in range(len(plan.tasks))]
        record = _finish(plan, payloads, errors.get(i), seed=seed, profile=profile, env=env)
        record["tasks_from_cache"] = sum((i, r) not in ran for r in range(len(plan.tasks)))
        _store_result(out, plan, record)
        finished[i] = record
        if on_finish is not None and not final:
            on_finish([finished[j] for j in sorted(finished)])

    try:
        wanted = [(i, r) for i, plan in enumerate(plans) for r in range(len(plan.tasks)) if i not in errors]
        try:
            # a sequential claim (one that overrides Claim.extend) may ask for more tasks after seeing
            # the ones it has: run in rounds until no claim asks for more
            while wanted:
                pending = [key for key in wanted if not _from_cache(plans, key, stored, use_cache)]
                ran |= set(pending)
                for i in sorted({i for i, _ in wanted}):
                    finish(i)
                if pending and client is None and scheduler is not None:
                    client = _dask_client(scheduler)
                _run_round(plans, pending, stored, errors, history, profile, seed, jobs, client, bar, eta, finish,
                           isolation)
                wanted = _extensions(plans, stored, errors)
        finally:
            bar.close()
            if client is not None:
                client.close()
        wall = time.perf_counter() - start
        _write_timings(out, history, plans, stored, profile)
        for plan in plans:
            prune_cache(plan.cache_dir)
        for i in range(len(plans)):
            finish(i, final=True)
        records = [finished[i] for i in range(len(plans))]
        write_summary(out, records, profile=profile, seed=seed, env=env, wall_seconds=wall)
        return records
    except OSError as err:  # the disk is full or read-only: say what was stored before it, and what was not
        if err.errno not in STORAGE_ERRNOS:
            raise
        raise NotWritten(err.errno, _not_written(err, out, plans, finished)) from err


def _not_written(err: OSError, out: Path, plans: list[Plan], finished: dict[int, dict]) -> str:
    """One line: the file the disk refused, the claims whose results this run stored before it and
    those it did not, and that the report is still the last complete one."""
    def ids(indices):
        names = [plans[i].claim.id for i in indices]
        return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")

    missing = [i for i in range(len(plans)) if i not in finished]
    stored = (f"the results of {ids(sorted(finished))} were stored before it" if finished
              else "no result was stored")
    lost = f"those of {ids(missing)} were not" if missing else "the summary was not"
    report = (f"the report in {out} is whole and shows what was finished before it" if (out / "index.html").exists()
              else f"there is no report in {out} yet")
    return (f"cannot write {err.filename}: {err.strerror}; the run stopped: {stored}, {lost}; {report}, and the "
            "finished tasks are kept for the next run")
