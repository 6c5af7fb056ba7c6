"""Running the tasks: in this process, in worker processes or on a Dask cluster, in rounds (a sequential claim
asks for more tasks after seeing some), with the progress bar and its time left.

Isolation. A claim with a user's code (a subject, or the claim itself, not defined in theorycheck, proofs or
simulations) runs its tasks in a worker process even at ``--jobs 1`` (loky's, started once and reused), so a
subject that exits, aborts, segfaults, raises any BaseException or runs past its time limit (:data:`TASK_SECONDS`)
is SUBJECT-ERROR naming it and the task, and the run goes on; nothing of it ever runs again in this process (a
subject that cannot be sent to a worker is refused before any work, :func:`check_sendable`). The built-in claims
run in this process at ``--jobs 1``, unless a user's module was imported into it
(:func:`~theorycheck.run.probe.expose`): then they run in workers of their own that never load a user's code, as
they do at any ``--jobs`` beside a user's claim.

Interruption. Ctrl-C or SIGTERM while tasks run in workers ends the workers (SIGTERM, then SIGKILL after
:data:`KILL_GRACE` seconds) before the interruption goes on up; a worker whose parent died ends itself.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import math
import os
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from numba.core import event as numba_event
from threadpoolctl import threadpool_limits

from ..claims import Claim, Measurement, SubjectFailure, Unfinished, subject_name
from ..protocols import BadOutput, watched
from ..validation import ParameterError
from . import depends
from .plan import Plan, TaskError, _expected_seconds, _one_line, _timed
from .probe import exposed
from .provenance import _json_default, _source_hash, own_code, task_seed, user_modules
from .store import write_task

#: seconds one task of a user's subject may run in its worker before it counts as hanging (SUBJECT-ERROR), by
#: profile: about a hundred times the costliest built-in task of the profile (theorycheck/costs.json), so a slow
#: pure-Python learner still finishes; ``--task-timeout SECONDS`` (``task_timeout=``) sets another limit
TASK_SECONDS = {"quick": 600.0, "full": 3600.0, "paper": 4 * 3600.0}


#: seconds past a task's limit before this process ends a worker that did not end itself (a hang in C code)
_GRACE = 30.0

#: seconds a worker has to end after SIGTERM (the run was interrupted) before it gets SIGKILL
KILL_GRACE = 1.0

@dataclass(frozen=True)
class Isolation:
    """The plans (by index) whose tasks run in worker processes even at ``--jobs 1`` (those with a user's
    code), their tasks' time limit in seconds, and the source hashes of the user's modules the workers
    import (:func:`user_modules`; an edit since the workers started restarts them). ``clean``: the other plans'
    workers are a pool of their own, which never loads a user's code; ``apart``: the other plans run there even at
    ``--jobs 1`` (a user's module was imported into this process, :func:`~theorycheck.run.probe.expose`);
    ``uncached``: plans whose tasks run in this process after a user's module was imported into it, whose
    measurements are not stored."""

    plans: frozenset[int] = frozenset()
    seconds: float = TASK_SECONDS["quick"]
    code: tuple[tuple[str, str], ...] = ()
    clean: bool = False
    apart: bool = False
    uncached: frozenset[int] = frozenset()


class CompileTime(numba_event.Listener):
    """The CPU time of this thread spent compiling numba kernels (outermost compilations only; a kernel
    compiled while another compiles is inside it). A first run on a fresh machine compiles, later runs
    load the kernels from numba's cache: the progress bar leaves this time out of the machine's rate."""

    def __init__(self):
        self.seconds = 0.0
        self._depth = 0

    def on_start(self, event):
        if self._depth == 0:
            self._start = time.thread_time()
        self._depth += 1

    def on_end(self, event):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.thread_time() - self._start


def _run_task(claim: Claim, params, task, subjects, seed: int, repetition: int):
    """Run one task; never raises (a worker's exception would abort the whole pool).

    The task runs with one BLAS thread, in a worker as in this process: a matrix product split over
    another number of threads may round differently, and results must not depend on ``--jobs``.
    A task's ``seconds`` is the CPU time of the thread that ran it (BLAS is held to that thread), so a
    loaded machine or a worker running other tasks beside it does not inflate it."""
    start = time.thread_time()
    compiling = CompileTime()
    try:
        with threadpool_limits(limits=1), numba_event.install_listener("numba:compile", compiling):
            result = claim.measure(params, task, _watched(claim, subjects), task_seed(seed, claim.id, repetition))
        if not isinstance(result, Measurement):
            raise TypeError(f"{claim.id}.measure must return a Measurement")
        payload = {
            "rows": result.rows,
            "hypotheses": [asdict(h) for h in result.hypotheses],
            "seconds": time.thread_time() - start,
            "compile_seconds": compiling.seconds,
        }
        # Round-trip through JSON now, so a cached and a fresh run see identical values.
        return repetition, json.loads(json.dumps(payload, default=_json_default)), None
    except ParameterError as err:  # a value the claim rejects, found on the instance: usage, not a crash
        return repetition, None, ParameterError(f"{claim.id}: {err}")
    except SubjectFailure as err:
        return repetition, None, TaskError("failure", str(err), "")
    except BadOutput as err:  # a value the subject's contract excludes: the subject failed, not the check
        name = err.subject if err.subject in subjects else _owner(err.source, subjects)
        who = f"subject {name} ({subject_name(subjects[name])})" if name is not None else "a subject"
        return repetition, None, TaskError("subject", f"{who} {err}", traceback.format_exc(limit=8))
    except (Exception, SystemExit) as err:  # sys.exit() in a subject ends its task, not the run
        trace = traceback.format_exc(limit=8)
        missing = unwritten_hook(err, claim)
        if missing is not None:
            return repetition, None, TaskError("unfinished", missing, "")
        if isinstance(err, SystemExit):
            culprit = _culprit(err, subjects, f"called sys.exit({err.code!r}) in task {repetition}")
            if culprit is not None:
                return repetition, None, TaskError("subject", culprit.rstrip(":"), trace)
        culprit = _culprit(err, subjects)
        if culprit is None:
            return repetition, None, TaskError("harness", f"{type(err).__name__}: {err}", trace)
        return repetition, None, TaskError("subject", f"{culprit} {_one_line(err)}", trace)


def _watched(claim: Claim, subjects: dict[str, Any]) -> dict[str, Any]:
    """``subjects``, each replaced one wrapped so that what it returns and sets is checked against its contract
    (:func:`~theorycheck.protocols.watched`) before the claim uses it (:class:`BadOutput`)."""
    return {name: subject if subject is claim.subjects.get(name) else watched(subject, claim.protocols.get(name), name)
            for name, subject in subjects.items()}


def unwritten_hook(err: BaseException, claim: Claim) -> str | None:
    """What a claim has still to write, when ``err`` says so: an :class:`~theorycheck.claims.Unfinished`
    raised anywhere (its message), or the bare NotImplementedError of a kind's required hook that the
    claim does not override ("bound(p), a hook of ViolationFrequency"); None for any other exception."""
    if isinstance(err, Unfinished):
        return str(err)
    if type(err) is not NotImplementedError or err.__traceback__ is None:
        return None
    tb = err.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    for cls in type(claim).__mro__:
        if getattr(cls.__dict__.get(code.co_name), "__code__", None) is code:
            args = inspect.signature(cls.__dict__[code.co_name]).parameters
            shown = ", ".join(name for name in list(args)[1:])
            return f"{code.co_name}({shown}), a hook {cls.__name__} requires"
    return None


def _not_finished(claim: Claim, what: str) -> str:
    where = inspect.getsourcefile(type(claim)) or type(claim).__module__
    return f"Not finished: fill in {what} (in {where}), then run the claim again."


def _owner(obj, subjects: dict[str, Any]) -> str | None:
    """The name of the subject that ``obj`` is, or is an instance of (None when none is)."""
    for name, subject in subjects.items():
        for one in subject if isinstance(subject, tuple | list) else (subject,):
            if (inspect.isclass(one) and isinstance(obj, one)) or obj is one:
                return name
    return None


def _culprit(err: BaseException, subjects: dict[str, Any], did: str = "raised") -> str | None:
    """Which subject an exception came from, as "subject NAME (module.qualname) raised at WHERE:" (``did`` in
    place of "raised") or "subject NAME (...) has no attribute X:", or None when no subject is on its path
    (the harness raised).

    An exception is the subject's when it passed through a method of an instance of a subject class,
    through a subject function, or (AttributeError) names a subject instance as the object it looked
    in: a ``coef_`` the learner never set."""
    if isinstance(err, AttributeError) and getattr(err, "obj", None) is not None:
        name = _owner(err.obj, subjects)
        if name is not None:
            return f"subject {name} ({subject_name(subjects[name])}) has no attribute {err.name!r}:"
    found, tb, last = None, err.__traceback__, None
    while tb is not None:
        frame = tb.tb_frame
        if found is None and "self" in frame.f_code.co_varnames:
            found = _owner(frame.f_locals.get("self"), subjects)
        if found is None:
            found = next((n for n, s in subjects.items() if getattr(s, "__code__", None) is frame.f_code), None)
        tb, last = tb.tb_next, tb
    if found is None:
        return None
    where = f"{Path(last.tb_frame.f_code.co_filename).name}:{last.tb_lineno} in {last.tb_frame.f_code.co_name}"
    return f"subject {found} ({subject_name(subjects[found])}) {did} at {where}:"


#: seconds a subject's conformance may take in its worker before it counts as hanging
CONFORMANCE_SECONDS = 1800.0


def _isolated(function, *args, seconds: float = CONFORMANCE_SECONDS):
    """``function(*args)`` in a worker process of its own (loky's, started once and reused), so that a subject
    that exits, aborts, segfaults or hangs cannot end the run: its result, or a few words saying how the worker
    ended (an exit status, a signal, sys.exit, or not finished within ``seconds``, counted in the worker)."""
    import pickle
    from concurrent.futures import TimeoutError as Timeout

    from joblib.externals.loky.process_executor import BrokenProcessPool, TerminatedWorkerError

    executor = _workers(1)
    late = f"did not finish within {seconds:g} s"
    with tempfile.TemporaryDirectory(prefix="theorycheck-running-") as watch:
        stack = Path(watch) / "stack"
        try:
            outcome = executor.submit(_exits_reported, str(stack), seconds, function, *args).result(
                timeout=seconds + _GRACE)
        except TerminatedWorkerError as err:
            if stack.exists() and stack.read_text(encoding="utf-8", errors="replace").startswith("Timeout ("):
                return late
            found = re.search(r"exit codes of the workers are \{(\w+)\((-?\d+)\)", str(err))
            return (f"ended its worker with signal {found.group(1)}" if found and int(found.group(2)) < 0 else
                    f"ended its worker with exit status {found.group(2)}" if found else "ended its worker")
        except (pickle.PicklingError, BrokenProcessPool) as err:  # never run here instead: user code runs in workers
            return f"could not be sent to a worker process ({_one_line(err)})"
        except Timeout:
            end_workers(executor)
            return late
        except BaseException:  # Ctrl-C or SIGTERM: the worker ends with the run
            end_workers(executor)
            raise
    return outcome.text if isinstance(outcome, _Exited) else outcome


@dataclass(frozen=True)
class _Exited:
    text: str


def _exits_reported(stack: str, seconds: float, function, *args):
    """``function(*args)`` in a worker, or an :class:`_Exited` when it raised SystemExit or another BaseException that
    is not an Exception (which loky would re-raise in the parent: a KeyboardInterrupt would read as the user's
    Ctrl-C there). A fatal signal's report goes to the file ``stack``, not to the terminal the run shares, and so
    does the stack after ``seconds``, when faulthandler ends the worker."""
    import faulthandler

    enabled = faulthandler.is_enabled()
    with open(stack, "w", encoding="utf-8") as fh:
        faulthandler.enable(file=fh)
        faulthandler.dump_traceback_later(seconds, exit=True, file=fh)
        try:
            return function(*args)
        except SystemExit as err:
            return _Exited(f"called sys.exit({err.code!r})")
        except Exception:
            raise
        except BaseException as err:
            return _Exited(f"raised {_one_line(err)}")
        finally:
            faulthandler.cancel_dump_traceback_later()
            faulthandler.enable() if enabled else faulthandler.disable()


def _run_round(plans, pending, stored, errors, history, profile, seed, jobs, client, bar, eta, finish,
               isolation: Isolation = Isolation()) -> None:
    """Run the ``pending`` tasks, store each as it finishes, advance the progress bar and call
    ``finish(i)`` after each task of claim i."""
    cost = {key: _expected_seconds(history, plans[key[0]], key[1], profile) for key in pending}
    # cheapest claims first, so that the first minutes finish many claims and the report fills up
    # from the start; the costliest claim comes last, its tasks sharing the workers
    total: dict[int, float] = {}
    for (i, _), seconds in cost.items():
        total[i] = total.get(i, 0.0) + seconds
    pending = sorted(pending, key=lambda key: (total[key[0]], key))
    if client is None and not (jobs > 1 and len(pending) > 1):  # _execute runs the isolated plans' tasks last
        pending.sort(key=lambda key: key[0] in isolation.plans)
    bar.total = round((bar.total or 0) + sum(cost.values()), 1)
    bar.refresh()
    if pending:
        bar.set_postfix_str(plans[pending[0][0]].claim.id, refresh=False)
    calls = [(i, (plans[i].claim, plans[i].params, plans[i].tasks[r], plans[i].subjects, seed, r))
             for i, r in pending]
    done: set[tuple[int, int]] = set()
    lock, ticking = threading.Lock(), threading.Event()
    # a replaced subject's claim, or one with no time of its own (a user's), is untimed until a task returns
    untimed = frozenset(i for i, _ in pending if plans[i].replaced or not _timed(history, plans[i], profile))

    def reading() -> str:
        """The time left, priced claim by claim (:meth:`TimeLeft.range`), and the claim running."""
        work: dict[int, float] = {}
        for key in pending:
            if key not in done:
                work[key[0]] = work.get(key[0], 0.0) + cost[key]
        claim = next((plans[i].claim.id for i, r in pending if (i, r) not in done), plans[pending[-1][0]].claim.id)
        return f"{eta.left(bar, work, untimed)}, running {claim}"

    def tick() -> None:  # a reading every two seconds, so a slow task does not freeze the time left
        while not ticking.wait(2.0):
            with lock:
                bar.set_postfix_str(reading())

    ticker = threading.Thread(target=tick, name="theorycheck-time-left", daemon=True)
    ticker.start()
    try:
        for i, (r, payload, error) in _execute(calls, jobs, skip=errors, client=client, isolation=isolation):
            if isinstance(error, ParameterError):
                raise error
            finished = {(i, r)}
            if error is not None and i not in errors:
                errors[i] = error
                if error.kind != "harness":  # the subject failed: its other tasks cannot change that
                    finished |= {key for key in pending if key[0] == i}
            with lock:
                new = finished - done
                done |= new
                if payload is not None:
                    eta.task(payload["seconds"], payload.get("compile_seconds", 0.0), cost[(i, r)], claim=i)
                # never past the total: the costs are rounded as they are added, so their sum may pass it by a hair
                bar.update(min(round(sum(cost[key] for key in new), 1), max(bar.total - bar.n, 0)))
                bar.set_postfix_str(reading(), refresh=False)
            if error is not None:
                continue
            stored[(i, r)] = payload
            _WORKER_STATE["code"].update(payload.get("depends", {}).get("files", {}))  # a worker holds them loaded
            _WORKER_STATE["read"].update(payload.get("depends", {}).get("env", ()))
            if i not in isolation.uncached:  # a built-in run here after a user's module was imported
                write_task(plans[i].cache_dir / f"task-{r}.json", payload)
            finish(i)
    finally:
        ticking.set()
        ticker.join()


class TimeLeft:
    """The time left: the expected work left, times the CPU this machine needs per expected second,
    divided by the CPU this run gets per second of wall time (its share of the machine). Shown as a range
    when the two ends differ by more than ``spread`` ("about 3–6 min left").

    The work left is in expected seconds (shipped costs or this folder's history). The CPU per expected
    second is measured on the tasks that returned (thread time, which load does not inflate): without
    numba's compilation at the short end (a run compiles each kernel once), with as large a part of
    compilation as so far at the long end; each end also takes in the measure drawn towards 1 (the reference
    machine's) by ``weight`` expected seconds, so the first few tasks widen the range, not narrow it. The
    share is the CPU time of this process and its workers (:func:`process_tree_cpu`) against wall time, over the
    whole run and over the last ``window`` seconds: the larger gives the short end, the smaller the long
    end, so a load that comes or goes widens the range instead of pulling one number along. Before the
    first task returns the CPU per expected second is unknown, and the range is half to twice the time at
    the share (at first the prior: the workers' fair share of the machine beside the load it started under)."""

    #: the reference machine's weight, 5% of the run's expected work and at most two minutes; the window of
    #: the recent share, in seconds; the largest ratio of the two ends shown as one number
    weight_fraction, weight_cap, window, spread = 0.05, 120.0, 60.0, 1.25

    def __init__(self, share: float, cpu: Callable[[], float | None] | None = None):
        self.share = share
        self._cpu = cpu
        self.cpu = self.compiling = self.expected = 0.0
        self.samples: list[tuple[float, float]] = []  # (elapsed, CPU seconds of the run)
        self.claims: dict[int, list] = {}  # claim: [CPU, compiling, expected seconds, tasks] of its returned tasks
        if cpu is not None and (now := cpu()) is not None:
            self.samples.append((0.0, now))

    @classmethod
    def for_machine(cls, workers: int, local: bool = True) -> TimeLeft:
        """For ``workers`` local workers; ``local=False`` for tasks on a cluster, whose CPU this process
        cannot see: the share is then the returned tasks' CPU against the elapsed time."""
        cores = os.cpu_count() or 1
        workers = min(workers if workers > 0 else cores, cores)
        others = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        return cls(share=workers * cores / max(cores, others + workers), cpu=process_tree_cpu if local else None)

    def task(self, seconds: float, compiling: float, expected: float, claim: int | None = None) -> None:
        """A task returned: its CPU seconds, the part of them spent compiling, its expected seconds, and the
        claim it belongs to (whose own speed then prices that claim's work left, see :meth:`range`)."""
        self.cpu += seconds
        self.compiling += min(compiling, seconds)
        self.expected += expected
        if claim is not None:
            own = self.claims.setdefault(claim, [0.0, 0.0, 0.0, 0])
            own[0] += seconds
            own[1] += min(compiling, seconds)
            own[2] += expected
            own[3] += 1

    def sample(self, elapsed: float, cpu: float) -> None:
        """The run's CPU seconds at ``elapsed`` seconds."""
        self.samples.append((elapsed, cpu))

    def shares(self, elapsed: float) -> list[float]:
        """The measured shares, over the run and over the last ``window`` seconds, each once it spans 10 s
        (without samples: the returned tasks' CPU over the elapsed time); the prior until one is measured."""
        if not self.samples:
            found = [self.cpu / elapsed] if elapsed >= 10 else []
        else:
            t1, c1 = self.samples[-1]
            recent = next(s for s in self.samples if s[0] >= t1 - self.window)
            found = [(c1 - c) / (t1 - t) for t, c in (self.samples[0], recent) if t1 - t >= 10]
        return [s for s in found if s > 0] or [self.share]

    def range(self, done: float, total: float, elapsed: float, work: dict[int, float] | None = None,
              untimed=frozenset()) -> tuple[float, float]:
        """The shortest and the longest time left, in seconds.

        Without ``work`` every expected second left is priced at the run's CPU per expected second. With
        ``work`` (the expected seconds left of each claim, summing to ``total - done``), a claim with returned
        tasks is priced at its own measure (a replaced subject ten times slower than the reference makes its
        claim's work ten times longer, whatever the other claims measured), drawn towards the run's by one of
        its tasks; a claim without is priced from the fastest claim measured to the run's longest measure. A
        claim in ``untimed`` (a replaced subject's, or one with no time of its own) has no expected speed until
        one of its tasks returns: until then its work counts nothing at the short end, which then bounds the
        time left only from below (:meth:`left` says "at least")."""
        return self._priced(done, total, elapsed, work, untimed)[:2]

    def _priced(self, done, total, elapsed, work, untimed) -> tuple[float, float, bool]:
        """:meth:`range`, and whether its short end is only a lower bound (an untimed claim has work left)."""
        left, shares = max(total - done, 0.0), self.shares(elapsed)
        spent, compiling, expected = self.cpu, self.compiling, self.expected
        timed = {claim: own for claim, own in self.claims.items() if claim not in untimed}
        if work is not None:  # the machine's measure from the claims of known speed only: a slow subject is its own
            spent, compiling, expected = (sum(own[n] for own in timed.values()) for n in range(3))
        if expected <= 0:
            short, long = 0.5, 2.0
        else:
            weight = min(self.weight_cap, self.weight_fraction * total)
            short = min((spent - compiling) / expected, (spent - compiling + weight) / (expected + weight))
            long = max(spent / expected, (spent + weight) / (expected + weight))
        if work is None:
            return left * short / max(shares), left * long / min(shares), False
        if timed:  # a claim not measured yet may be as fast as the fastest measured
            short = min(short, min((c - k) / e for c, k, e, _ in timed.values()))
        low = high = 0.0
        bound = False
        for claim, seconds in work.items():
            own, lo, hi = self.claims.get(claim), short, long
            if own is not None:
                cpu, compiling, expected, tasks = own
                one = expected / tasks  # the prior: one more task at the run's measure
                lo = (cpu - compiling + one * short) / (expected + one)
                hi = max(cpu / expected, (cpu + one * long) / (expected + one))
            elif claim in untimed and seconds > 0:
                bound, lo = True, 0.0
            low, high = low + seconds * lo, high + seconds * hi
        return low / max(shares), high / min(shares), bound

    def left(self, bar, work: dict[int, float] | None = None, untimed=frozenset()) -> str:
        """The progress bar's words for the time left, after sampling the run's CPU: a range ("about 3–6 min
        left"), or "at least 4 min left (…)" while an untimed claim (a replaced subject's) has work left and
        none of its tasks has returned: how much slower or faster than the reference it is, is not known yet."""
        elapsed = bar.format_dict["elapsed"]
        if self._cpu is not None and (now := self._cpu()) is not None:
            self.sample(elapsed, now)
        short, long, bound = self._priced(bar.n, bar.total, elapsed, work, untimed)
        if bound:
            return ", ".join(filter(None, [at_least(short), "a subject not timed yet"]))
        return span(short, long, spread=self.spread)


def at_least(short: float) -> str:
    """A lower bound on the time left in words, rounded down ("at least 4 min left"); empty under 5 s."""
    if short < 90:
        return f"at least {5 * math.floor(short / 5)} s left" if short >= 5 else ""
    if short < 5400:
        return f"at least {math.floor(short / 60)} min left"
    return f"at least {math.floor(short / 1800) / 2:g} h left"


def span(short: float, long: float, *, spread: float = 1.25) -> str:
    """A time left in words: "about 3–6 min left" from the shortest and the longest, in seconds, or one
    number (their geometric mean) when the longest is within ``spread`` of the shortest. Seconds below
    90 s (in fives), minutes below 90 min, half hours above; a range's ends rounded outwards."""
    if long <= short * spread:
        middle = math.sqrt(short * long)
        if middle < 90:
            return f"about {max(5, 5 * round(middle / 5))} s left"
        return f"about {round(middle / 60)} min left" if middle < 5400 else f"about {round(middle / 1800) / 2:g} h left"
    unit, size, step = ("s", 1, 5) if long < 90 else ("min", 60, 1) if long < 5400 else ("h", 3600, 0.5)
    lo, hi = step * math.floor(short / size / step), step * math.ceil(long / size / step)
    return f"about {lo:g}–{hi:g} {unit} left" if lo > 0 else f"under {hi:g} {unit} left"


def process_tree_cpu() -> float | None:
    """The CPU seconds (user and system) of this process, of its children that ended and of its live
    descendants (the workers), read from ``/proc``; None where there is no ``/proc``."""
    if not os.path.exists("/proc/self/stat"):
        return None
    now = os.times()
    total, tick = now.user + now.system + now.children_user + now.children_system, os.sysconf("SC_CLK_TCK")
    for pid in descendants(os.getpid()):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime and stime, fields 14 and 15 of stat
    return total


def _extensions(plans, stored, errors) -> list[tuple[int, int]]:
    """The tasks that sequential claims add after this round (appended to their plans), as keys."""
    keys = []
    for i, plan in enumerate(plans):
        if i in errors or type(plan.claim).extend is Claim.extend:
            continue
        payloads = [stored.get((i, r)) for r in range(len(plan.tasks))]
        if any(p is None for p in payloads):
            continue
        table = pd.DataFrame([row for p in payloads for row in p["rows"]])
        more = list(plan.claim.extend(plan.params, table, list(plan.tasks)))
        keys += [(i, len(plan.tasks) + j) for j in range(len(more))]
        plan.tasks.extend(more)
    return keys


#: seconds a Dask scheduler has to accept a connection (and then to answer the client) before a run gives up
SCHEDULER_TIMEOUT = 10


def reach_scheduler(address: str) -> None:
    """ParameterError, in one line, unless a TCP connection to the host and port of ``address``
    (SCHEME://HOST:PORT or HOST:PORT) opens within :data:`SCHEDULER_TIMEOUT`: an address where nothing
    listens is refused at once, before any work, rather than after the client's retries. Schemes that
    are not carried over TCP (``ucx``, ``inproc``) are left to the client."""
    import socket

    scheme, sep, rest = address.strip().partition("://")
    if sep and scheme not in ("tcp", "tls", "ws", "wss"):
        return
    host, _, port = (rest if sep else scheme).rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=SCHEDULER_TIMEOUT).close()
    except (OSError, ValueError) as err:
        why = (f"no answer within {SCHEDULER_TIMEOUT} s" if isinstance(err, TimeoutError)
               else getattr(err, "strerror", None) or _one_line(err))
        raise ParameterError(f"cannot reach the Dask scheduler at {address!r}: {why}") from None


def _dask_client(address: str):
    """A client of the Dask scheduler at ``address``; ParameterError when Dask is not installed, or the scheduler
    cannot be reached, does not answer as a Dask scheduler or does not answer at all, within
    :data:`SCHEDULER_TIMEOUT` seconds in all (before any task runs). The client is made in a thread of its own, so
    a port that accepts and never speaks cannot hold the run past that time."""
    try:
        from distributed import Client
    except ImportError:
        raise ParameterError("--scheduler needs Dask: pip install 'theorycheck[dask]'") from None
    deadline = time.monotonic() + SCHEDULER_TIMEOUT
    reach_scheduler(address)
    made: dict[str, Any] = {}

    def connect():
        try:
            made["client"] = Client(address, timeout=f"{SCHEDULER_TIMEOUT}s", set_as_default=False)
        except BaseException as err:  # garbage from the port can raise anything, MemoryError included
            made["error"] = err

    thread = threading.Thread(target=connect, name="theorycheck-dask-connect", daemon=True)
    thread.start()
    thread.join(max(deadline - time.monotonic(), 1.0))
    if thread.is_alive():
        raise ParameterError(f"cannot reach the Dask scheduler at {address!r}: no Dask answer within "
                             f"{SCHEDULER_TIMEOUT} s (is a Dask scheduler listening there?)")
    if "error" in made:
        raise ParameterError(f"cannot reach the Dask scheduler at {address!r}: {_one_line(made['error'])}") from None
    return made["client"]


def _execute(calls, jobs: int, skip, client=None, isolation: Isolation = Isolation()):
    """Yield (plan index, task result) as tasks finish: in-process, in worker processes, or on a Dask
    cluster through ``client``. The tasks of the plans in ``isolation`` always run in a worker (one at
    ``jobs`` 1), the others in-process at ``jobs`` 1 (unless ``isolation.apart``), in a pool of their own when
    ``isolation.clean``. Tasks of a plan whose subject has failed (a non-harness error in ``skip``) are not
    started."""
    def wanted(i):
        return i not in skip or skip[i].kind == "harness"

    if client is not None:
        from distributed import as_completed

        futures = {client.submit(_tagged, i, args, pure=False): (i, args) for i, args in calls}
        for future in as_completed(list(futures), loop=client.loop):
            if future.cancelled():
                continue
            try:
                result = future.result()
            except Exception as err:  # the subject killed the workers it ran on (KilledWorker), and no other error
                if type(err).__name__ != "KilledWorker":
                    raise
                i, args = futures[future]
                result = i, _ended(i, args, "", f"killed the Dask workers running task {args[5]} ({_one_line(err)})")
            yield result
            for other, (i, _) in futures.items():  # a failed subject: drop its tasks not yet run
                if not wanted(i) and not other.done():
                    other.cancel()
        return

    theirs = [(i, args) for i, args in calls if i in isolation.plans]
    ours = [(i, args) for i, args in calls if i not in isolation.plans]
    if ours and (isolation.apart or (jobs > 1 and len(ours) > 1)):
        yield from _in_workers(ours, jobs, wanted, isolation, _clean_workers if isolation.clean else _workers)
    else:
        for i, args in ours:
            if wanted(i):
                yield i, _run_task(*args)
    if theirs:
        yield from _in_workers(theirs, jobs, wanted, isolation)


def _in_workers(calls, jobs: int, wanted, isolation: Isolation, pool=None):
    """Yield (plan index, task result) of ``calls`` run in ``jobs`` worker processes of ``pool`` (a function of the
    count of workers and the user's code, :func:`_workers` by default), at most ``jobs`` at a time.

    A worker that dies (an exit, a signal, a task of an isolated plan past its time limit, which faulthandler
    ends after writing its stack), or a task that cannot reach its worker (it does not pickle, or not unpickle
    there), ends only its task, as a subject error: alone in flight (or with tasks of its own claim alone), that
    task is the culprit; else each task that was running runs again alone, and the one whose worker dies again is
    (:func:`_alone`). No task ever runs in this
    process instead. Whatever ends this generator early (Ctrl-C, SIGTERM, a usage error) ends the workers."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from joblib.externals.loky.process_executor import BrokenProcessPool

    pool = pool or _workers
    queue = list(reversed(calls))
    running: dict[Any, tuple[int, tuple, float]] = {}  # future: (plan index, task arguments, when submitted)
    executor = None  # started when a task is wanted, and again after a death
    with tempfile.TemporaryDirectory(prefix="theorycheck-running-") as watch:
        try:
            while queue or running:
                while queue and len(running) < jobs:
                    i, args = queue.pop()
                    if not wanted(i):
                        continue
                    limit = isolation.seconds if i in isolation.plans else None
                    executor = executor or pool(jobs, dict(isolation.code))
                    try:
                        running[executor.submit(_tagged, i, args, watch, limit)] = (i, args, time.monotonic())
                    except BrokenProcessPool:  # a worker died since the last wait: the tasks in flight end with it
                        queue.append((i, args))
                        if not running:
                            executor = None
                        break
                if not running:  # nothing wanted was left, or a fresh pool takes the rest
                    continue
                limited = [t for _, (i, _, t) in running.items() if i in isolation.plans]
                patience = min(limited) + isolation.seconds + _GRACE - time.monotonic() if limited else None
                done, _ = wait(running, timeout=None if patience is None else max(patience, 0.0),
                               return_when=FIRST_COMPLETED)
                if not done:  # a worker past its limit that faulthandler could not end: end every worker
                    end_workers(executor)
                    for i, args, started in running.values():
                        if i in isolation.plans and time.monotonic() - started > isolation.seconds:
                            yield i, _ended(i, args, watch, _late(args, isolation.seconds))
                        else:
                            queue.append((i, args))
                    running.clear()
                    executor = None
                    continue
                if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
                    done, _ = wait(running, timeout=60)  # the pool is broken: every task in flight ends with it
                failed = []
                for future in done:
                    i, args, _ = running.pop(future)
                    err = future.exception()
                    if err is None:
                        yield future.result()
                    else:
                        failed.append((i, args, err))
                culprits = {i for i, _, _ in failed}  # tasks of one claim only: its subject is the culprit
                # the task that ran out of time first, then one whose worker wrote a fatal signal's report: of two
                # tasks of one claim in flight, loky ends the second worker when the first dies, with no report
                failed.sort(key=lambda f: (not _timed_out(watch, f[0], f[1]), not _reported(watch, f[0], f[1])))
                for i, args, err in failed:
                    if not wanted(i):  # its claim has failed already (another of its tasks, just yielded)
                        continue
                    limit = isolation.seconds if i in isolation.plans else None
                    yield i, (_ended(i, args, watch, _how(err, watch, i, args, limit)) if len(culprits) == 1 or
                              _timed_out(watch, i, args) else _alone(i, args, watch, limit, pool))
                if failed:  # the pool may be broken: the tasks still in flight run again in a fresh one
                    queue.extend((i, args) for i, args, _ in running.values())
                    running.clear()
                    end_workers(executor)
                    executor = None
        except BaseException:
            if executor is not None and (running or queue):  # interrupted: no worker outlives the run
                end_workers(executor)
            raise


def _tagged(i, args, watch: str | None = None, limit: float | None = None):
    """Run task ``args`` of claim ``i`` in a worker. With ``watch`` (a folder), a file ``<i>-<r>`` there marks the
    task as running and receives its Python stack if a fatal signal ends the worker, or when the task runs past
    ``limit`` seconds (then faulthandler ends the worker, with exit status 1). A BaseException that is not an
    Exception (KeyboardInterrupt, GeneratorExit, a subject's own) ends the task as a subject error, never the worker
    nor the run."""
    depends.start()  # this is a worker: record what the task reads (no-op after the first task)
    if watch is None:
        with contextlib.redirect_stdout(sys.stderr):  # what a subject prints is not this run's output (--json)
            return i, _recorded(_guarded(args))
    import faulthandler

    marker, enabled = _marker(watch, i, args), faulthandler.is_enabled()
    with open(marker, "w", encoding="utf-8") as fh:
        faulthandler.enable(file=fh)
        if limit is not None:
            faulthandler.dump_traceback_later(limit, exit=True, file=fh)
        try:
            with contextlib.redirect_stdout(sys.stderr):
                result = _guarded(args)
        finally:
            faulthandler.cancel_dump_traceback_later()
            faulthandler.enable() if enabled else faulthandler.disable()
    marker.unlink()
    return i, _recorded(result)


def _worker_started() -> None:
    """What a local worker process does first: record what its tasks read (:func:`depends.start`) and send what
    they print, from Python or from C, to stderr: the run's stdout carries only its own output (``--json``)."""
    depends.start()
    sys.stdout.flush()
    os.dup2(2, 1)


def _recorded(result):
    """A task's result with what its worker has read so far (:func:`depends.recorded`), stored beside it."""
    r, payload, error = result
    return r, payload if payload is None else {**payload, "depends": depends.recorded()}, error


def _guarded(args):
    """:func:`_run_task` in a worker, where any BaseException it lets through ends its task as a subject error."""
    try:
        return _run_task(*args)
    except BaseException as err:
        claim, subjects, r = args[0], args[3], args[5]
        trace = traceback.format_exc(limit=8)
        culprit = _culprit(err, subjects)
        if culprit is not None:
            return r, None, TaskError("subject", f"{culprit} {_one_line(err)} (task {r})", trace)
        who = _replaced(claim, subjects)
        return r, None, TaskError("subject", f"subject {who} raised {_one_line(err)} in task {r}", trace)


def _replaced(claim: Claim, subjects: dict[str, Any]) -> str:
    """The subjects that replace the claim's own (all of them when none does), as "name (module.qualname), ..."."""
    replaced = {n: s for n, s in subjects.items() if s is not claim.subjects.get(n)} or subjects
    return ", ".join(f"{n} ({subject_name(s)})" for n, s in replaced.items())


def _alone(i, args, watch: str, limit: float | None, pool=None):
    """Task ``args`` of claim ``i`` run alone in a worker (of ``pool``): its result, or when its worker dies again
    (or the task cannot reach it) a subject error naming how the worker ended (signal, exit status or time limit)
    and the stack it was in."""
    from concurrent.futures import TimeoutError as Timeout

    from joblib.externals.loky.process_executor import BrokenProcessPool

    executor = (pool or _workers)(1, None)
    try:
        _, result = executor.submit(_tagged, i, args, watch, limit).result(
            timeout=None if limit is None else limit + _GRACE)
        return result
    except Timeout:
        end_workers(executor)
        return _ended(i, args, watch, _late(args, limit))
    except (BrokenProcessPool, Exception) as err:  # a death, or a task that never reached its worker
        return _ended(i, args, watch, _how(err, watch, i, args, limit))
    except BaseException:
        end_workers(executor)
        raise


def _marker(watch: str, i, args) -> Path:
    """The file in ``watch`` that marks task ``args`` of claim ``i`` as running and receives its worker's report."""
    return Path(watch) / f"{i}-{args[5]}"


def _reported(watch: str, i, args) -> bool:
    """Whether the worker of task ``args`` of claim ``i`` wrote a report (a fatal signal's stack, or a time limit's)
    before it ended."""
    try:
        return _marker(watch, i, args).stat().st_size > 0
    except OSError:
        return False


def _timed_out(watch: str, i, args) -> bool:
    """Whether faulthandler ended the worker of task ``args`` of claim ``i`` at its time limit."""
    marker = _marker(watch, i, args)
    return marker.exists() and marker.read_text(encoding="utf-8", errors="replace").startswith("Timeout (")


def _how(err: BaseException, watch: str, i, args, limit: float | None) -> str:
    """What the subject of task ``args`` of claim ``i`` did to its worker: ran past its time limit, ended it
    (a signal or an exit status), or could not reach it (it does not pickle, or not unpickle there)."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    if limit is not None and _timed_out(watch, i, args):
        return _late(args, limit)
    if isinstance(err, TerminatedWorkerError):
        return f"killed the worker running task {args[5]}: {_ending(err)}"
    cause = err.__cause__ if err.__cause__ is not None and "un-serialize" in str(err) else err
    return (f"could not be sent to a worker process for task {args[5]} ({_one_line(cause)}); a user's subject runs "
            "only in workers, so the task did not run")


def _late(args, limit: float) -> str:
    return f"did not finish task {args[5]} within {limit:g} s (the task's time limit; --task-timeout sets another)"


def _ending(err: BaseException) -> str:
    """The signal or exit status that ended a worker, from loky's TerminatedWorkerError."""
    found = re.search(r"exit codes of the workers are \{(\w+)\((-?\d+)\)", str(err))
    if not found:
        return "an unknown cause"
    name, code = found.group(1), int(found.group(2))
    if code < 0:
        return f"signal {name}" + (" (as the out-of-memory killer sends)" if name == "SIGKILL" else "")
    return f"exit status {code} (an exit called inside the task)"


def _ended(i, args, watch: str, how: str):
    """The result of task ``args`` of claim ``i`` whose worker ended: a subject error naming the replaced
    subjects, ``how`` (what they did, naming the task), and the stack faulthandler wrote."""
    claim, subjects, r = args[0], args[3], args[5]
    marker = Path(watch) / f"{i}-{r}"
    stack = marker.read_text(encoding="utf-8", errors="replace") if watch and marker.exists() else ""
    return r, None, TaskError("subject", f"subject {_replaced(claim, subjects)} {how}",
                              stack or "no Python stack: the process ended without a fatal-signal report")


def end_workers(executor) -> None:
    """End ``executor``'s worker processes and the processes they started: SIGTERM, then SIGKILL to those still
    alive after :data:`KILL_GRACE` seconds (a subject may ignore SIGTERM); then shut the executor down."""
    pids = [process.pid for process in list(getattr(executor, "_processes", {}).values())]
    pids += [child for pid in pids for child in descendants(pid)]
    for sent in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sent)
            except OSError:
                pass
        deadline = time.monotonic() + KILL_GRACE
        while time.monotonic() < deadline and any(map(_alive, pids)):
            time.sleep(0.02)
        if not any(map(_alive, pids)):
            break
    try:
        executor.shutdown(wait=False, kill_workers=True)
    except Exception:  # a pool already broken or shut down
        pass


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, which only waits for its parent to read its status, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return not Path("/proc").exists()


def descendants(pid: int) -> list[int]:
    """The live descendants of process ``pid``, read from ``/proc`` (none where there is no ``/proc``)."""
    found, todo = [], [pid]
    while todo:  # a tree: each process is listed once, by its parent's threads
        try:
            children = [int(c) for thread in Path(f"/proc/{todo.pop()}/task").iterdir()
                        for c in (thread / "children").read_text().split()]
        except OSError:  # ended meanwhile, or a kernel without the children files
            continue
        found += children
        todo += children
    return found


def worker_start(parent: int) -> None:
    """Each worker's first step: Ctrl-C is the run's to handle (it ends the workers), not a subject's to see; and a
    worker whose parent died (SIGKILL, say) ends itself at once, whatever its task is doing, rather than live on as
    an orphan."""
    _worker_started()
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, name="theorycheck-parent", daemon=True).start()


#: what the reusable workers started with: this process's folder and sys.path, and the source hashes of the
#: user's modules they were sent
_WORKER_STATE: dict[str, Any] = {"where": None, "code": {}, "environ": {}, "read": set()}


def _workers(n: int, code: dict[str, str] | None = None):
    """loky's reusable executor with ``n`` worker processes, started once and reused by every run of this
    process; started afresh when this process's folder or sys.path changed since (a worker would not find the
    user's modules), an environment variable a worker has read changed (it would read the old value), or one of
    the user's modules in ``code`` ({file: source hash}) or a file a worker has read
    (:mod:`~theorycheck.run.depends`) was edited (a worker would run its old code). Workers record what they read
    from their start."""
    from joblib.externals.loky import get_reusable_executor

    # loky ends a worker between two tasks when its memory has grown by a few hundred MB (its leak guard: a task
    # that loads a real data set does) and starts another one, with this warning; no task is lost, so the user is
    # not told
    warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given to the executor",
                            category=UserWarning)
    code, where = code or {}, [os.getcwd(), *sys.path]
    known, started = _WORKER_STATE["code"], _WORKER_STATE["environ"]
    stale = (_WORKER_STATE["where"] not in (None, where)
             or any(known.get(path, digest) != digest for path, digest in code.items())
             or any(_source_hash(Path(path)) != digest for path, digest in known.items())
             or any(os.environ.get(name) != started.get(name) for name in _WORKER_STATE["read"]))
    if stale or _WORKER_STATE["where"] is None:
        _WORKER_STATE["environ"] = dict(os.environ)  # what the workers (re)started now inherit
    if stale:
        known.clear()
    known.update(code)
    _WORKER_STATE["where"] = where
    return get_reusable_executor(max_workers=n, reuse=not stale, kill_workers=stale, initializer=worker_start,
                                 initargs=(os.getpid(),))


#: the pool of the built-in claims' tasks, apart from the user's code (:func:`_clean_workers`)
_CLEAN: dict[str, Any] = {"executor": None}


def _clean_workers(n: int, code: dict[str, str] | None = None):
    """A pool of ``n`` worker processes for the built-in claims alone, kept for the next run of this process: its
    workers never unpickle a user's subject, so whatever a user's module patches at import (numpy.linalg.eigh,
    say) never reaches a built-in claim. ``code`` is ignored (no user's code runs there)."""
    from joblib.externals.loky.process_executor import ProcessPoolExecutor

    executor = _CLEAN["executor"]
    if (executor is None or executor._flags.broken or executor._flags.shutdown or executor._max_workers != n
            or executor._initargs != (os.getpid(),)):
        if executor is not None:
            end_workers(executor)
        executor = _CLEAN["executor"] = ProcessPoolExecutor(max_workers=n, timeout=300, initializer=worker_start,
                                                            initargs=(os.getpid(),))
    return executor


def isolation_of(plans: list[Plan], seconds: float, isolate: bool | None = None) -> Isolation:
    """The :class:`Isolation` of ``plans``: those with a claim or a subject not defined in theorycheck, proofs or
    simulations (:func:`own_code`) run in workers, with ``seconds`` per task (``isolate`` True: every plan,
    False: none); the others in a pool of their own, and there even at ``--jobs 1`` once a user's module was
    imported into this process (:func:`~theorycheck.run.probe.expose`). ``isolate`` False runs everything as told,
    but a built-in plan run in this process after such an import is not cached."""
    def users(plan):
        return not (own_code(plan.claim) and all(own_code(s) for s in plan.subjects.values()))

    foreign = [i for i, plan in enumerate(plans) if (isolate if isolate is not None else users(plan))]
    code = {path: digest for i in foreign for s in (plans[i].claim, *plans[i].subjects.values())
            for path, digest in user_modules(s).items()}
    uncached = frozenset(i for i, plan in enumerate(plans) if isolate is False and exposed() and not users(plan))
    return Isolation(frozenset(foreign), seconds, tuple(sorted(code.items())), clean=isolate is not False,
                     apart=isolate is not False and bool(exposed()), uncached=uncached)


def check_sendable(subjects: Mapping[str, Any]) -> None:
    """:class:`ParameterError`, in one line, for a user's subject that cannot be sent to a worker process (it does
    not pickle, as loky pickles it): a user's subject runs only there, never in this process."""
    from joblib.externals.loky.backend.reduction import dumps

    for name, subject in subjects.items():
        if own_code(subject):
            continue
        try:
            dumps(subject)
        except Exception as err:
            raise ParameterError(f"subject {name} ({subject_name(subject)}) cannot be sent to a worker process, where "
                                 f"a user's subject runs: it does not pickle ({_one_line(err)}); pass its class, or "
                                 "an instance or function that pickles") from None
