"""One verification session and one conformance session, which every front end drives.

``theorycheck verify`` and ``theorycheck conform`` (:mod:`theorycheck.cli`), the Python API
(:func:`theorycheck.verify`, :func:`theorycheck.conform`) and the pytest plugin (``assert_verifies``,
``assert_conforms``, :mod:`theorycheck.testing`) only turn their arguments into Python values, make a session
here, and show what it returns: what a run checks, runs, writes and concludes is decided in this module alone,
as pytest's ``Session`` serves its command line and its Python callers alike.

A :class:`Verification` goes through four steps, one method each:

1. **validate** (the constructor): the claim ids or globs, the profile, the subjects, the parameters, the seed,
   the jobs or the Dask scheduler, the output folder and the power options; anything wrong raises
   :class:`~theorycheck.validation.ParameterError`, in one line, before any work;
2. :meth:`~Verification.plan`: the planted defects to run (``power``, ``power_idea``) and every claim's tasks,
   with the resource guard (:func:`theorycheck.run.plan.plan_claims`) refusing a plan past the machine's memory,
   disk or time unless ``force``;
3. :meth:`~Verification.run`: each subject that replaces one of the papers' algorithms checked against that
   algorithm (conformance, :func:`~theorycheck.conformance.verify.check_replaced`), then the claims, each result
   stored and its page rendered as soon as it is decided, then the planted defects;
4. :meth:`~Verification.finish`: the scaling measurement, the report, the summary lines and the exit status.

:meth:`~Verification.execute` runs steps 2 to 4. A :class:`Conformation` is the session of one algorithm's
conformance checks: validate (the constructor), :meth:`~Conformation.run`, :meth:`~Conformation.finish`.

The exit status of a verification (:func:`theorycheck.verdicts.run_exit_status`, or
:attr:`~theorycheck.verdicts.ExitCode.FAILED` when a planted defect is not caught as its claim declares) and of a
conformation (:func:`theorycheck.verdicts.exit_status`) is an :class:`~theorycheck.verdicts.ExitCode`; bad usage
raises ParameterError before any work (:attr:`~theorycheck.verdicts.ExitCode.USAGE`).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .validation import ParameterError, check_jobs, check_real
from .verdicts import FAILING, NOT_RUN, ExitCode, Verdict, exit_status, headline, run_exit_status, unrecorded

#: how the command line spells the sessions' arguments, for its messages (Python callers see the keywords)
COMMAND_LINE = {"params": "--set", "subjects": "--subject", "seed": "--seed", "jobs": "--jobs",
                "scheduler": "--scheduler", "out": "--out", "power": "--power", "optional": "--optional",
                "task_timeout": "--task-timeout"}

#: lines of the summary's list of undecided findings before "… and N more"
SUMMARY_FINDING_LINES = 15
#: lines of the summary's list of errata before "… and N more"
SUMMARY_ERRATA_LINES = 8
#: the address schemes of a Dask scheduler (distributed's comm backends)
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def vacuous_why(record: dict) -> str:
    """Why a result is vacuous, in a few words, for one line of output."""
    if record.get("vacuous_reason"):
        return "the statistic is constant" if "constant" in record["vacuous_reason"] else "see its page"
    return "the trivial learner meets the bound too"


def load_subject(spec: str):
    """The object named by ``module:attr``; modules are also looked up in the current folder,
    as ``python -m`` would, so a user's file beside them loads without setting PYTHONPATH. A module
    of the user's is imported first in a process of its own, so one that exits cannot end this run; once it is
    imported here, the built-in claims run in workers of their own (:func:`theorycheck.run.execute.expose`)."""
    module_name, sep, attr = spec.partition(":")
    if not sep:
        raise ParameterError(f"subject {spec!r} must be given as module:attribute")
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", module_name):
        raise ParameterError(f"subject {spec!r}: {module_name!r} is not an absolute module name (dotted, like "
                             "mypkg.mymodule)")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    first = module_name not in sys.modules and module_name.split(".", 1)[0] not in ("theorycheck", "proofs",
                                                                                      "simulations")
    if first:
        from .run.probe import expose, import_in_worker

        ended = import_in_worker(module_name)
        if ended is not None:
            raise ParameterError(f"cannot load subject {spec!r}: importing {module_name} {ended}")
        expose(module_name)
    where = os.getcwd()
    try:
        obj = importlib.import_module(module_name)
    except Exception as err:  # a user's module that fails to import, for whatever reason: one line
        raise ParameterError(f"cannot load subject {spec!r}: importing {module_name} raised "
                             f"{type(err).__name__}: {err}") from None
    finally:
        if os.getcwd() != where:  # a module that changed the folder at import: --out stays where the user meant
            os.chdir(where)
    try:
        for part in attr.split("."):
            obj = getattr(obj, part)
    except AttributeError as err:
        raise ParameterError(f"cannot load subject {spec!r}: {err}") from None
    return obj


def check_scheduler(address: str, option: str = "--scheduler") -> None:
    """A Dask scheduler's address before any work: Dask installed, SCHEME://HOST:PORT (or HOST:PORT), and
    something listening there (:func:`theorycheck.run.execute.reach_scheduler`); ``option`` names it in messages."""
    from importlib.util import find_spec

    if not isinstance(address, str):
        raise ParameterError(f"{option} must be the address of a Dask scheduler, got {address!r}")
    scheme, sep, rest = address.strip().partition("://")
    if not sep:
        scheme, rest = "tcp", address.strip()
    host, colon, port = rest.rpartition(":")
    if (scheme not in SCHEDULER_SCHEMES or not colon or not re.fullmatch(r"[\w.-]+|\[[0-9a-fA-F:.]+\]", host)
            or not port.isdigit() or not 0 < int(port) < 65536):
        raise ParameterError(f"{option} {address!r} is not the address of a Dask scheduler: expected "
                             f"SCHEME://HOST:PORT with SCHEME one of {', '.join(SCHEDULER_SCHEMES)} "
                             "(e.g. tcp://10.0.0.5:8786)")
    if find_spec("distributed") is None:
        raise ParameterError(f"{option} needs Dask: pip install 'theorycheck[dask]'")
    from .run.execute import reach_scheduler

    reach_scheduler(address)


def planted_defects(claims, profile: str, overrides: dict[str, str], *, idea_only: bool = False,
                    option: str = "--power") -> list[tuple]:
    """(claim, defect, its subjects loaded or None, why it cannot run) for every defect the claims declare
    (``idea_only``: only those marked ``idea``, which remove the paper's idea). A defect whose module cannot
    be loaded is a usage error before any work (the built-in claims' defects live in the repository's
    tests/ folder, so power runs start from the repository); one whose settings do not fit this
    profile's parameters (a size chosen for quick, say) is not run, and its power entry says why."""
    planted = []
    for claim in claims:
        for defect in claim.defects:
            if idea_only and not defect.idea:
                continue
            try:
                claim.params_for(profile, {**overrides, **defect.overrides})
            except ParameterError as err:
                planted.append((claim, defect, None, f"its settings {defect.overrides} do not fit the {profile} "
                                                     f"profile ({err})"))
                continue
            try:
                subjects = {name: load_subject(spec) for name, spec in defect.subjects.items()}
            except ParameterError as err:
                raise ParameterError(f"{option}: {claim.id}'s planted defect {defect.name!r}: {err} (run from the "
                                     "folder that holds its module, for the built-in claims the repository)") from None
            planted.append((claim, defect, subjects, None))
    return planted


def _is_names(value) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) for k in value)


def verify_claims(claims, *, conformance: bool = True, **keywords) -> list[dict]:
    """:func:`theorycheck.run.run_claims` of ``claims`` with the same ``keywords``, each subject that replaces one
    of the papers' algorithms first checked against that algorithm (``conformance``): what a verification runs,
    without its pages, planted defects and summary lines. A claim whose subject fails conformance is FAIL and its
    tasks are not run: no measurement can make a learner that is not the paper's algorithm pass the paper's theorem
    about it. ``conformance=False`` runs the claims without it (``theorycheck conform`` runs the same checks
    itself, and the tests of what a claim alone does with a subject)."""
    import inspect

    from .conformance.verify import check_replaced
    from .run import run_claims
    from .run.plan import plan_claims

    if not conformance:
        return run_claims(claims, **keywords)
    call = inspect.signature(run_claims).bind(claims, **keywords)
    call.apply_defaults()
    given = call.arguments
    check_jobs(given["jobs"])
    timeout = given["task_timeout"]
    if timeout is not None:
        timeout = check_real("--task-timeout", timeout, low=0.1, high=1e7)
    out = Path(given["out"])
    if given["plans"] is None:
        given["plans"] = plan_claims(claims, profile=given["profile"], seed=given["seed"],
                                     overrides=given["overrides"] or {}, subjects=given["subjects"], out=out,
                                     force=given["force"])
    check_replaced(given["plans"], profile=given["profile"], seed=given["seed"], out=out, use_cache=given["use_cache"],
                   progress=given["progress"], seconds=timeout)
    return run_claims(*call.args, **call.kwargs)


class Verification:
    """One run of claims, from the request to the exit status (see the module's docstring for the steps).

    The constructor validates the request: ``ids`` (ids or shell globs, None for every claim), ``profile``,
    ``subjects`` (name to object, or to a ``"module:attr"`` string loaded as the command line's ``--subject``),
    ``params`` (name to value; a list or tuple is a grid), ``seed``, ``jobs`` (−1: every core) or ``scheduler``
    (a Dask scheduler's address; excludes ``jobs`` other than 1), ``out`` (the report folder; None: a temporary
    one, removed by :meth:`close`, and no pages), ``power`` (also run every planted defect the claims declare)
    or ``power_idea`` (only the defects that remove the paper's idea), ``cache`` (reuse stored tasks),
    ``scaling`` (time the learners against d for the report; None: for the full and paper profiles), ``force``
    (run a plan the resource guard refuses), ``task_timeout`` (seconds one task of a user's subject may run) and
    ``progress`` (a progress bar and notes on stderr). ``names`` spells the arguments in messages (the command
    line passes :data:`COMMAND_LINE`, so that they say ``--seed`` where Python callers read ``seed``).

    After :meth:`finish`: ``records`` (one result record per claim, as stored in ``results/<id>.json``, with
    ``power_runs`` when the defects ran), ``summary`` (``summary.json``), ``index`` (index.html, None without
    ``out``), ``lines`` (the summary a person reads), ``messages`` (one line per claim that failed or did not
    reproduce, and one for planted defects not as declared), ``power_unlike`` (each planted defect whose verdict
    is not the one its claim declares, as ``"<id> [<defect>]: <verdict>"``) and ``exit_status``."""

    #: seconds between two renderings of the index while claims finish (a claim's page is rendered at once)
    render_interval = 20.0

    def __init__(self, ids: str | list[str] | None = None, *, profile: str = "quick",
                 subjects: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None, seed: int = 0,
                 jobs: int = 1, scheduler: str | None = None, out: str | Path | None = None, power: bool = False,
                 power_idea: bool = False, cache: bool = True, scaling: bool | None = None, force: bool = False,
                 task_timeout: float | None = None, progress: bool = False, names: Mapping[str, str] | None = None):
        #: the wall clock of the whole session starts here, before the claims are imported and planned (the
        #: runner's clock starts at the first task: a run served from the cache spends most of its time outside it)
        self._started = time.perf_counter()
        from .claims import PROFILES, select
        from .run.store import check_run_folder

        def name(argument):
            return (names or {}).get(argument, argument)

        if not (ids is None or isinstance(ids, str)
                or (isinstance(ids, list | tuple) and all(isinstance(i, str) for i in ids))):
            raise ParameterError(f"ids must be a claim id or glob, a list of them, or None; got {ids!r}")
        if profile not in PROFILES:
            raise ParameterError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
        for argument, value in (("subjects", subjects), ("params", params)):
            if value is not None and not _is_names(value):
                raise ParameterError(f"{name(argument)} must be a dict keyed by name; got {value!r}")
        for argument, value in (("power", power), ("power_idea", power_idea), ("cache", cache), ("force", force),
                                ("progress", progress), ("scaling", scaling)):
            if not isinstance(value, bool) and not (argument == "scaling" and value is None):
                raise ParameterError(f"{name(argument)} must be true or false; got {value!r}")
        workers = check_jobs(jobs, name("jobs"))
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ParameterError(f"{name('seed')} must be a non-negative integer, got {seed!r}")
        if task_timeout is not None:
            task_timeout = check_real(name("task_timeout"), task_timeout, low=0.1, high=1e7)
        if scheduler is not None and jobs != 1:
            raise ParameterError(f"{name('jobs')} and {name('scheduler')} exclude each other: the cluster's workers "
                                 "run the tasks")
        if scheduler is not None:
            check_scheduler(scheduler, name("scheduler"))
        self.params = {k: ",".join(map(str, v)) if isinstance(v, tuple | list) else str(v)
                       for k, v in (params or {}).items()}
        self.subjects = {k: load_subject(v) if isinstance(v, str) else v for k, v in (subjects or {}).items()}
        from .run.execute import check_sendable

        check_sendable(self.subjects)
        patterns = [ids] if isinstance(ids, str) else None if ids is None else list(ids)
        if patterns == []:  # an empty selection is not "every claim" (None is)
            raise ParameterError(f"{name('ids')} is empty: name at least one claim id or glob, or pass None for "
                                 "every claim")
        self.claims = select(patterns)
        self.kept = out is not None  # a temporary folder gets no pages
        if out is None:
            self._tmp = tempfile.mkdtemp(prefix="theorycheck-")
            out = self._tmp
        else:
            self._tmp = None
            check_run_folder(out, self.claims, power=power or power_idea, option=name("out"))
        self.out, self._shown = Path(out), os.fspath(out)  # messages name the folder as the caller wrote it
        self.profile, self.seed, self.jobs, self.scheduler = profile, seed, workers, scheduler
        self.power, self.power_idea, self.cache, self.force = power, power_idea, cache, force
        self.task_timeout, self.progress, self._name = task_timeout, progress, name
        self.scaling = self.kept and (scaling if scaling is not None else profile != "quick")
        self.planted: list[tuple] = []
        self.plans: list | None = None
        self.records: list[dict] = []
        self.summary: dict | None = None
        self.index: Path | None = None
        self.lines: list[str] = []
        self.messages: list[str] = []
        self.power_unlike: list[str] = []
        self.exit_status: int | None = None
        self._rendered: set[str] = set()
        self._last_render = -float("inf")
        self._env: dict | None = None

    # ---------------------------------------------------------------- the steps

    def plan(self) -> None:
        """Load the planted defects to run and plan every claim's tasks; the resource guard refuses a plan past
        the machine's memory, disk or time (unless ``force``), and a defect that cannot be loaded is a usage
        error, both before any work."""
        from .run.plan import plan_claims

        if self.power or self.power_idea:
            self.planted = planted_defects(self.claims, self.profile, self.params, idea_only=not self.power,
                                           option=self._name("power"))
        self.plans = plan_claims(self.claims, profile=self.profile, seed=self.seed, overrides=self.params,
                                 subjects=self.subjects, out=self.out, force=self.force)

    def _session_wall(self) -> float | None:
        """Store the session's wall time so far (imports, planning, the run, power runs, scaling) as the run's
        ``wall_seconds`` in summary.json, which the index shows; return the runner's (the tasks' alone)."""
        from .run.store import write_json

        path = self.out / "summary.json"
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        tasks = summary.get("wall_seconds")
        write_json(path, {**summary, "wall_seconds": time.perf_counter() - self._started})
        return tasks if isinstance(tasks, int | float) else None

    def run(self) -> list[dict]:
        """Check each subject that replaces one of the papers' algorithms against that algorithm (a claim whose
        subject fails it is FAIL and its tasks are not run), run the claims (each result stored, and its page
        rendered, as soon as it is decided), then each planted defect on the same profile and seed; return the
        records."""
        from .conformance.verify import check_replaced
        from .run import run_claims

        if self.plans is None:
            self.plan()
        check_replaced(self.plans, profile=self.profile, seed=self.seed, out=self.out, use_cache=self.cache,
                       progress=self.progress, seconds=self.task_timeout)
        self.records = run_claims(
            self.claims, profile=self.profile, seed=self.seed, overrides=self.params, subjects=self.subjects,
            jobs=self.jobs, out=self.out, use_cache=self.cache, progress=self.progress, scheduler=self.scheduler,
            on_finish=self._pages if self.kept else None, force=self.force, task_timeout=self.task_timeout,
            plans=self.plans)
        if self.planted:
            self._run_defects()
        return self.records

    def finish(self) -> int:
        """Measure the scaling (if asked), render the report (with ``out``), read the summary, and set the
        summary ``lines``, the ``messages`` and the ``exit_status``, which it returns."""
        from . import report
        from .run.store import STORAGE_ERRNOS, NotWritten

        records, out, name = self.records, self._shown, self._name
        if self.scaling:
            self._measure_scaling()
        tasks_wall = self._session_wall()
        if self.kept:
            fresh = None if self.planted else {r["id"] for r in records} - self._rendered  # power adds to pages
            try:
                self.index = report.render(out, all_pages=False, pages=fresh)
            except OSError as err:
                if err.errno not in STORAGE_ERRNOS:
                    raise
                raise NotWritten(err.errno, f"cannot write {err.filename}: {err.strerror}; the results of the run "
                                            f"are stored in {out}/results, but its report was not rendered: the "
                                            f"index is the last complete one (`theorycheck report --out {out}` "
                                            "renders it once there is room)") from err
        self.summary = json.loads((self.out / "summary.json").read_text(encoding="utf-8"))
        lines = []
        for r in records:
            ratio = "" if r.get("ratio") is None else f"  observed/bound={r['ratio']:.3g}"
            vacuous = f"  vacuous ({vacuous_why(r)})" if r.get("vacuous") else ""
            lines.append(f"{r['verdict']:<13} {r['id']:<22} {r['seconds']:8.2f}s CPU{ratio}{vacuous}")
        from .report import duration

        lines.append(f"wall time {duration(time.perf_counter() - self._started)} from the start of the session to its "
                     f"report" + (f", {duration(tasks_wall)} of it running the claims' tasks" if tasks_wall is not None
                                  else "") + " (the per-claim figures are CPU time, summed over tasks)")
        if self.index is not None:
            lines.append(f"report: {self.index}")
        lines += verify_summary(records, out)
        runs = [(r["id"], p) for r in records for p in r.get("power_runs") or [] if p["verdict"] != NOT_RUN]
        unfit = [f"{r['id']} [{p['name']}]" for r in records for p in r.get("power_runs") or []
                 if p["verdict"] == NOT_RUN]
        self.power_unlike = unlike = [f"{cid} [{p['name']}]: {p['verdict']}" for cid, p in runs
                                      if (p["verdict"] == Verdict.FAIL) != p["declared_caught"]]
        if runs:
            lines.append(f"planted defects run ({name('power')}): {len(runs)}, {len(runs) - len(unlike)} as declared"
                         + (f"; not as declared: {'; '.join(unlike)}" if unlike else ""))
        if unfit:
            lines.append(f"planted defects not run, their settings do not fit the {self.profile} profile (see the "
                         f"claims' pages): {'; '.join(unfit)}")
        self.lines, self.messages = lines, []
        for r in records:  # why each claim failed, in one line
            if r["verdict"] == Verdict.NOT_REPRODUCED:
                new = unrecorded(r)
                keys = sorted({f.get("known") for f in r.get("findings") or [] if f.get("against") and f.get("known")})
                said = (f"new, not in the registry: {'; '.join(f.get('finding', '?') for f in new)}" if new else
                        f"recorded non-reproduction{'s' * (len(keys) != 1)} {', '.join(keys)} recurred")
                self.messages.append(f"theorycheck: {r['id']}: {Verdict.NOT_REPRODUCED} ({said}; profile "
                                     f"{r.get('profile')}, seed {r.get('seed')}; see {out}/{r['id']}.html)")
            if r["verdict"] in FAILING:
                decision = r.get("decision") or ""
                if decision.startswith("Not finished: "):  # a skeleton of `theorycheck new`: the line says what
                    self.messages.append(f"theorycheck: {r['id']}: {decision}")
                    continue
                what = {Verdict.FAIL: Verdict.FAIL, Verdict.SUBJECT_ERROR: "the subject failed",
                        Verdict.ERROR: "the check itself raised"}
                self.messages.append(f"theorycheck: {r['id']}: {what[r['verdict']]}: "
                                     f"{headline(decision, r['verdict'])} (see {out}/{r['id']}.html)")
        if unlike:  # a planted defect that does not do what its claim declares: the power table is wrong
            self.messages.append(f"theorycheck: planted defects not as declared (exit status 1): {'; '.join(unlike)}")
        self.exit_status = ExitCode.FAILED if unlike else run_exit_status(records)
        return self.exit_status

    def execute(self) -> int:
        """:meth:`plan`, :meth:`run` and :meth:`finish`; return the exit status."""
        self.plan()
        self.run()
        return self.finish()

    def close(self) -> None:
        """Remove the temporary folder of a session without ``out`` (nothing otherwise)."""
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> Verification:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---------------------------------------------------------------- what the steps do

    def _say(self, line: str) -> None:
        if self.progress:
            print(line, file=sys.stderr)

    def _pages(self, records: list[dict]) -> None:
        """Called by the runner each time a claim is decided: render its page at once, and the index (with a
        partial summary.json) at most every :attr:`render_interval` seconds, so that a run stopped at any
        moment leaves a readable report of the claims it finished."""
        from . import report
        from .run.provenance import environment
        from .run.store import STORAGE_ERRNOS, write_summary

        if time.monotonic() - self._last_render < self.render_interval:
            return
        self._env = self._env or environment()
        new = {r["id"] for r in records} - self._rendered
        try:
            write_summary(self.out, records, profile=self.profile, seed=self.seed, env=self._env,
                          unfinished=len(self.claims) - len(records))
            report.render(self.out, all_pages=False, pages=new)
        except Exception as err:  # the run goes on; the report at its end renders (or fails) as always
            if isinstance(err, OSError) and err.errno in STORAGE_ERRNOS:
                raise  # the disk is full or read-only: the run stops, saying what it stored
            print(f"theorycheck: warning: the report could not be rendered during the run ({type(err).__name__}: "
                  f"{err}); it is rendered at the end", file=sys.stderr)
            self.render_interval = float("inf")
            return
        self._rendered |= new
        self._last_render = time.monotonic()

    def _run_defects(self) -> None:
        """Run each planted defect on the profile and seed of the run (in ``<out>/.power``, so the cache
        serves a re-run) and store its verdict in its claim's result as ``power_runs``."""
        from .run.provenance import code_version
        from .run.store import write_json

        runs: dict[str, list[dict]] = {}
        for n, (claim, defect, subjects, why_not) in enumerate(self.planted, 1):
            entry = {"name": defect.name, "declared_caught": defect.caught, "profile": self.profile,
                     "code_version": code_version()}
            if why_not is not None:
                runs.setdefault(claim.id, []).append({**entry, "verdict": NOT_RUN, "headline": f"not run: {why_not}"})
                continue
            self._say(f"planted defect {n}/{len(self.planted)}: {claim.id} with {defect.name}")
            folder = self.out / ".power" / claim.id / re.sub(r"[^A-Za-z0-9._-]", "_", defect.name)
            [record] = verify_claims([claim], profile=self.profile, seed=self.seed,
                                     overrides={**self.params, **defect.overrides}, subjects=subjects,
                                     jobs=self.jobs, out=folder, use_cache=self.cache, progress=False,
                                     scheduler=self.scheduler, force=self.force)
            runs.setdefault(claim.id, []).append({**entry, "verdict": record["verdict"],
                                                  "headline": headline(record.get("decision"), record["verdict"])})
        for record in self.records:
            if record["id"] in runs:
                record["power_runs"] = runs[record["id"]]
                path = self.out / "results" / f"{record['id']}.json"
                stored = json.loads(path.read_text(encoding="utf-8"))
                write_json(path, {**stored, "power_runs": runs[record["id"]]})

    def _measure_scaling(self) -> None:
        """Time the learners against d (:mod:`theorycheck.scaling`) and store it beside the summary."""
        import datetime

        from .run.store import write_json
        from .scaling import measure_scaling

        self._say("measuring time per example against d for the report (about 10 s; --no-scaling skips it)")
        data = measure_scaling()
        data["profile"] = self.profile
        data["measured"] = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        write_json(self.out / "scaling.json", data)


def verify_summary(records: list[dict], out: Path | str) -> list[str]:
    """The summary lines of a verification after the per-claim lines: the count of each verdict, the errata
    and non-reproductions this run found evidence for, and what is left undecided with what would
    decide it. Errata come from :func:`theorycheck.errata.gather` on these records, so earlier
    results stored in ``out`` do not count."""
    order = [*Verdict, *sorted({r["verdict"] for r in records} - set(Verdict))]
    counts = [(v, sum(r["verdict"] == v for r in records)) for v in order]
    lines = ["", f"summary of {len(records)} claim{'s' * (len(records) != 1)}: "
             + ", ".join(f"{n} {v}" for v, n in counts if n)]
    return lines + _errata_lines(records, out) + _undecided_lines(records)


def _errata_lines(records: list[dict], out: Path | str) -> list[str]:
    """The errata and non-reproductions that the claims of this run attached evidence to."""
    from .errata import gather

    items = [item for item in gather(out, records={r["id"]: r for r in records}) if item["evidence"] is not None]
    if not items:
        return ["errata and non-reproductions found by this run: none"]
    kinds = [item.get("type", "erratum") for item in items]
    errata, others = kinds.count("erratum"), len(kinds) - kinds.count("erratum")
    lines = [f"found by this run: {errata} {'erratum' if errata == 1 else 'errata'} and "
             f"{others} non-reproduction{'s' * (others != 1)}:"]
    shown = len(items) if len(items) <= SUMMARY_ERRATA_LINES else SUMMARY_ERRATA_LINES - 1
    lines += [f"  {item['claim']} [{item['key']}] {kind}: {item['where']}"
              for item, kind in list(zip(items, kinds, strict=True))[:shown]]
    if shown < len(items):
        lines.append(f"  … and {len(items) - shown} more (theorycheck errata --out {out})")
    return lines


def _finding_lines(claim_id: str, finding: dict) -> list[str]:
    """One finding whose outcome is not REPRODUCED: what, its outcome and interval, and what that outcome makes
    of the claim, in the words of its page (:func:`theorycheck.report.findings_legend`); then what would decide
    it."""
    def number(x):
        return "?" if x is None else f"{x:.3g}"

    where = ""
    if finding.get("low") is not None or finding.get("high") is not None:
        where = f", {number(finding.get('estimate'))} in [{number(finding.get('low'))}, {number(finding.get('high'))}]"
    lines = [f"  {claim_id}: {finding.get('finding', '?')}: {finding.get('outcome', '?')}{where}"
             f"{_what_it_makes(finding)}"]
    if finding.get("needs"):
        lines.append(f"      would decide it: {finding['needs']}")
    return lines


def _what_it_makes(finding: dict) -> str:
    """What a finding's outcome makes of its claim, as a tail of its summary line ("" for a deciding UNDECIDED)."""
    from .stats import AGAINST

    outcome, decides = finding.get("outcome"), finding.get("decides", True)
    if not decides:
        return " (reported, not decided: it does not count toward the verdict)"
    if outcome not in AGAINST:
        return ""
    if finding.get("versus") == "reference":
        return " (the replaced subject against its reference: FAIL)"
    if finding.get("designed"):
        return " (a simulation finding on an instance of ours, not a non-reproduction of the paper: INCONCLUSIVE)"
    return " (against the paper: NOT REPRODUCED" + (f", recorded as {finding['known']})" if finding.get("recorded")
                                                    else ")")


def _undecided_lines(records: list[dict]) -> list[str]:
    """For each claim that is not PASS, its findings whose outcome is not REPRODUCED, deciding ones first, each
    with what it makes of the claim (and for an INCONCLUSIVE claim with none to show, its headline), within
    SUMMARY_FINDING_LINES lines."""

    entries = []
    for r in records:
        if r["verdict"] == Verdict.PASS:
            continue
        shown = [f for f in r.get("findings") or [] if f.get("outcome") != "REPRODUCED"]
        shown.sort(key=lambda f: not f.get("decides", True))
        entries += [_finding_lines(r["id"], f) for f in shown]
        if not shown and r["verdict"] == Verdict.INCONCLUSIVE:
            why = headline(r.get("decision"), Verdict.INCONCLUSIVE)
            entries.append([f"  {r['id']}: {Verdict.INCONCLUSIVE}: {why}"])
    if not entries:
        return []
    body: list[str] = []
    for i, entry in enumerate(entries):
        room = SUMMARY_FINDING_LINES - (i + 1 < len(entries))  # keep a line for "… and N more"
        if len(body) + len(entry) > room:
            body.append(f"  … and {len(entries) - i} more (see the claims' pages)")
            break
        body += entry
    return ["findings whose outcome is not REPRODUCED, in the claims that are not PASS:", *body]


#: the keywords of theorycheck.conformance.conform that a Conformation passes through (``**options``)
_CONFORM_OPTIONS = {"delta", "k", "B", "eta", "require", "isolate"}


class Conformation:
    """One conformance session: ``learner`` checked against ``algorithm`` (:func:`theorycheck.conformance.conform`,
    whose keywords ``options`` passes on: ``delta``, ``k``, ``B``, ``eta``, ``isolate``, ``require``).

    The constructor validates the request: ``algorithm`` (a key of :data:`theorycheck.conformance.ALGORITHMS`),
    ``learner`` (a class or an instance, or a ``"module:attr"`` string loaded as ``--subject`` is), ``profile``,
    ``seed``, ``claims`` (run the paper's claims with the learner), ``jobs``, ``optional`` (checks the learner may
    fail to take), ``force``, ``task_timeout`` and ``out`` (None: a temporary folder for the claims, and no files
    kept). ``names`` spells the arguments in messages, as for :class:`Verification`.

    :meth:`run` runs the checks; :meth:`finish` writes ``conform-<ALGORITHM>.json`` and ``.html`` and the claims'
    report into ``out`` (when given), and sets ``result`` (the :class:`~theorycheck.conformance.Conformance`),
    ``line`` (one line: which checks ran, how they ended, and the first cause of a verdict other than PASS) and
    ``exit_status``."""

    def __init__(self, algorithm: str, learner, *, profile: str = "quick", seed: int = 0, claims: bool = True,
                 out: str | Path | None = None, jobs: int = 1, progress: bool = False, optional=(),
                 force: bool = False, task_timeout: float | None = None, names: Mapping[str, str] | None = None,
                 **options: Any):
        from .conformance import ALGORITHMS, CHECKS, configured
        from .run.store import check_run_folder

        def name(argument):
            return (names or {}).get(argument, argument)

        unknown = sorted(set(options) - _CONFORM_OPTIONS)
        if unknown:
            raise ParameterError(f"conform takes no keyword {', '.join(map(repr, unknown))}; its options are "
                                 f"{', '.join(sorted(_CONFORM_OPTIONS))}")
        if algorithm not in ALGORITHMS:
            raise ParameterError(f"unknown algorithm {algorithm!r}; conformance knows {', '.join(ALGORITHMS)}")
        if isinstance(optional, str) or not all(isinstance(check, str) for check in optional):
            raise ParameterError(f"{name('optional')} must be a list of check names; got {optional!r}")
        unknown = [check for check in optional if check not in CHECKS]
        if unknown:
            raise ParameterError(f"{name('optional')}: unknown check {unknown[0]!r}; the checks are "
                                 f"{', '.join(CHECKS)}")
        for argument, value in (("claims", claims), ("progress", progress), ("force", force)):
            if not isinstance(value, bool):
                raise ParameterError(f"{name(argument)} must be true or false; got {value!r}")
        self.learner = load_subject(learner) if isinstance(learner, str) else learner
        if options.get("isolate") is not False:
            from .run.execute import check_sendable

            check_sendable({"learner": self.learner})
        configured(self.learner, ALGORITHMS[algorithm].function)  # not clonable: one line, no work
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ParameterError(f"{name('seed')} must be a non-negative integer, got {seed!r}")
        workers = check_jobs(jobs, name("jobs"))
        if out is not None:
            out = check_run_folder(out, option=name("out"),
                                   files=[f"conform-{algorithm}.json", f"conform-{algorithm}.html"])
        self.algorithm, self.out, self.profile, self.seed = algorithm, out, profile, seed
        self.keywords = dict(profile=profile, seed=seed, claims=claims, out=out, jobs=workers, progress=progress,
                             optional=list(optional), force=force, task_timeout=task_timeout, **options)
        self.result = None
        self.line = ""
        self.exit_status: int | None = None

    def run(self):
        """Run the checks (:func:`theorycheck.conformance.conform`); return the result."""
        from .conformance import conform

        self.result = conform(self.algorithm, self.learner, **self.keywords)
        return self.result

    def finish(self) -> int:
        """Write the result's files into ``out`` (when given), set ``line`` and return the ``exit_status``."""
        from .run.store import write_atomic, write_json

        result = self.result
        if self.out is not None:  # from here on the work is done: nothing below may end in a usage error
            write_json(self.out / f"conform-{self.algorithm}.json",
                       {"algorithm": result.algorithm, "learner": result.learner, "verdict": result.verdict,
                        "assumed": result.assumed, "delta": result.delta, "profile": self.profile,
                        "seed": self.seed, "summary": result.summary(), "optional": list(result.optional),
                        "not_applicable": list(result.inapplicable), "steps": result.steps,
                        "checks": [vars(c) for c in result.checks], "notes": result.notes})
            claims = next((c for c in result.checks if c.name == "claims"), None)
            claims_report = bool(claims and claims.details.get("claims"))
            if claims_report:
                from . import report

                try:
                    report.render(self.out, all_pages=False)  # the claims' pages and index.html, which the page links
                except (ParameterError, OSError) as err:
                    claims_report = False
                    result.notes.append(f"the claims' report could not be written: {err}")
            write_atomic(self.out / f"conform-{self.algorithm}.html", result.page(claims_report=claims_report))
        self.line = f"theorycheck: conform {self.algorithm}: {result.summary()}"
        first = result.first_cause()
        if first is not None:
            check, state = first
            self.line += f"; {check.name} {state}: " + (check.cause or check.decision).splitlines()[0]
            if state == NOT_RUN and check.details.get("unrecorded"):
                from .conformance.core import recording_hint

                self.line += ". " + recording_hint(result.not_run)
        self.exit_status = exit_status([result.verdict])
        return self.exit_status

    def execute(self) -> int:
        """:meth:`run` and :meth:`finish`; return the exit status."""
        self.run()
        return self.finish()
