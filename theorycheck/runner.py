"""Run claims: profiles, seeds, cache, parallel execution, progress, atomic output.

Seeds. Task ``r`` of claim ``c`` under base seed ``s`` draws from
``SeedSequence(s, spawn_key=(h(c), r))`` where ``h`` is a fixed hash of the claim id, so a
stream never depends on run order, on ``--jobs`` or on which other claims run.

Cache. Each finished task is stored as JSON under
``<out>/.cache/<claim>/<key>/task-<r>.json``, where the key hashes the claim id, its
parameters, the seed, the subjects (name and source, and the source of the user's modules each
may call, :func:`user_modules`) and the code version (every source file of theorycheck, proofs and
simulations, plus the versions of the numeric libraries). The
verdict is recomputed from the stored measurements, so nothing but raw measurements is
cached, and a task that raised is never stored. An interrupted run resumes from the tasks
already stored.

Isolation. A claim with a user's subject (one not defined in theorycheck, proofs or simulations) runs
its tasks in a worker process even at ``--jobs 1`` (loky's, started once and reused), so a subject
that exits, aborts, segfaults or runs past its time limit (:data:`TASK_SECONDS`) is SUBJECT-ERROR
naming it and the task, and the run goes on; the built-in subjects run in this process.

Output. ``<out>/results/<id>.json``, ``<out>/tables/<id>.csv`` (measurements),
``<out>/tables/<id>.summary.csv`` and ``<out>/summary.json``; every file is written to a
temporary name in the same folder and renamed into place.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import inspect
import json
import math
import os
import platform
import re
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numba.core import event as numba_event
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from . import stats
from .claims import PROFILES, Claim, Evidence, Hypothesis, Measurement, SubjectFailure, Unfinished, subject_name
from .protocols import BadOutput, check_subject
from .validation import ParameterError, check_jobs, check_real

ERROR = "ERROR"
#: the verdict of a claim whose subject raised (or lacked an attribute the claim needs): the
#: implementation under test failed, not the harness
SUBJECT_ERROR = "SUBJECT-ERROR"
_LIBRARIES = ("numpy", "scipy", "numba", "pandas", "scikit-learn", "matplotlib", "seaborn")


# ---------------------------------------------------------------------- atomic files
#: the errors of a write that the disk refuses: full, over quota, read-only, file too large
STORAGE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG)


class NotWritten(OSError):
    """A write under the output folder was refused by the disk (:data:`STORAGE_ERRNOS`) during a
    run; its text says in one line which file, what the run had stored before it and what not."""

    def __str__(self) -> str:
        return self.strerror


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half. A
    write that the disk refuses (:data:`STORAGE_ERRNOS`) raises OSError naming ``path``."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = "wb" if isinstance(data, bytes) else "w"
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=_TMP, dir=path.parent)
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600; a report is for sharing
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and err.errno in STORAGE_ERRNOS:
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


_TMP = ".tmp"
_UMASK: int | None = None


def remove_orphans(out: Path) -> list[Path]:
    """Delete the temporary files that a killed writer left under ``out`` (``.<name>.<pid>.*.tmp``
    whose process no longer runs; a SIGKILL leaves no chance to clean up) and return them."""
    removed = []
    for tmp in Path(out).rglob(f".*{_TMP}"):
        parts = tmp.name.split(".")
        pid = next((int(p) for p in reversed(parts[:-2]) if p.isdigit()), None)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        tmp.unlink(missing_ok=True)
        removed.append(tmp)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _umask() -> int:
    """The process's umask (read once: reading it means setting it)."""
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def write_json(path: Path, obj: Any, *, sort_keys: bool = True) -> None:
    """Write ``obj`` as JSON, atomically. A cached task keeps its keys in order (``sort_keys=False``):
    its rows' keys become the table's columns, which must not depend on whether a task came from
    the cache."""
    write_atomic(path, json.dumps(obj, indent=2, sort_keys=sort_keys, default=_json_default) + "\n")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# ---------------------------------------------------------------------- versions and seeds
def library_versions() -> dict[str, str]:
    versions = {}
    for name in ("theorycheck", *_LIBRARIES):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def environment() -> dict[str, Any]:
    """The machine and package versions, printed on every report page."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "cpus": os.cpu_count(),
        "packages": library_versions(),
    }


_CODE_VERSION: str | None = None


def code_version() -> str:
    """Hash of every source file the claims can depend on, and of the library versions."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        import proofs
        import simulations

        digest = hashlib.sha256()
        for root in (Path(__file__).parent, Path(proofs.__file__).parent, Path(simulations.__file__).parent):
            for path in sorted(root.rglob("*")):
                if path.suffix in (".py", ".html", ".css") and "__pycache__" not in path.parts:
                    digest.update(str(path.relative_to(root.parent)).encode())
                    digest.update(path.read_bytes())
        digest.update(json.dumps(library_versions(), sort_keys=True).encode())
        _CODE_VERSION = digest.hexdigest()[:16]
    return _CODE_VERSION


def claim_hash(claim_id: str) -> int:
    return int.from_bytes(hashlib.sha256(claim_id.encode()).digest()[:8], "little")


def task_seed(base_seed: int, claim_id: str, repetition: int) -> np.random.SeedSequence:
    """The random stream of one task: a function of (base seed, claim id, repetition) only."""
    return np.random.SeedSequence(base_seed, spawn_key=(claim_hash(claim_id), repetition))


def _subject_fingerprint(obj: Any) -> str:
    """Name and source hash of a subject, so editing your own implementation invalidates
    its cached measurements (instances are fingerprinted by their class and attributes), and the
    source of the user's modules it may call (:func:`user_modules`), so editing a helper does too."""
    if isinstance(obj, tuple | list):
        return "[" + ",".join(_subject_fingerprint(o) for o in obj) + "]"
    is_code = inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)
    try:
        source = inspect.getsource(obj if is_code else type(obj))
    except (OSError, TypeError):
        source = getattr(obj, "__name__", "") or type(obj).__qualname__
    if not is_code:
        source += repr(sorted((k, repr(v)) for k, v in vars(obj).items())) if hasattr(obj, "__dict__") else ""
    source += json.dumps(sorted(user_modules(obj).items()))
    return subject_name(obj) + ":" + hashlib.sha256(source.encode()).hexdigest()[:12]


#: the packages whose every source file :func:`code_version` hashes: a subject defined there is built in
OWN_PACKAGES = ("theorycheck", "proofs", "simulations")


def _module_of(obj: Any) -> str:
    return getattr(obj, "__module__", None) or type(obj).__module__ or ""


def own_code(obj: Any) -> bool:
    """Whether ``obj`` (a function, class or instance, or a tuple of them) is defined in theorycheck, proofs or
    simulations: a built-in subject, which may run in this process (:func:`code_version` covers its source)."""
    if isinstance(obj, tuple | list):
        return all(own_code(o) for o in obj)
    return _module_of(obj).split(".", 1)[0] in OWN_PACKAGES


def user_modules(obj: Any) -> dict[str, str]:
    """{file: hash of its source} of the user's modules that ``obj`` may call: every loaded module whose file lies
    in the folder of obj's top-level package (or, for a module that is a single file, in its folder), leaving out
    installed packages (site-packages) and theorycheck's own, which :func:`code_version` covers. Empty for a
    built-in subject. Editing a helper the subject calls changes it, so its cached tasks are not served again."""
    if isinstance(obj, tuple | list):
        return {path: digest for o in obj for path, digest in user_modules(o).items()}
    top = _module_of(obj).split(".", 1)[0]
    file = getattr(sys.modules.get(top), "__file__", None)
    if top in OWN_PACKAGES or not file:
        return {}
    inside = str(_resolved(file).parent) + os.sep
    found = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            continue
        name = getattr(module, "__name__", "") or ""
        path = _resolved(path)
        if (str(path).startswith(inside) and name.split(".", 1)[0] not in OWN_PACKAGES
                and not {"site-packages", "dist-packages"} & set(path.parts)):
            found[str(path)] = _source_hash(path)
    return dict(sorted(found.items()))


@functools.cache
def _resolved(file: str) -> Path:
    """``Path(file).resolve()``, once per file name: :func:`user_modules` looks at every loaded module on every
    subject it fingerprints, and resolving them all each time cost a tenth of a second per call."""
    return Path(file).resolve()


_SOURCE_HASHES: dict[tuple[str, int, int], str] = {}


def _source_hash(path: Path) -> str:
    """sha256 of a file's bytes, remembered while its size and modification time stay the same."""
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in _SOURCE_HASHES:
            _SOURCE_HASHES[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return _SOURCE_HASHES[key]
    except OSError:
        return "unreadable"


def cache_key(claim: Claim, params: dict, seed: int, subjects: dict) -> str:
    payload = {
        "claim": claim.id,
        "class": subject_name(type(claim)),
        "params": params,
        "seed": seed,
        "subjects": {k: _subject_fingerprint(v) for k, v in sorted(subjects.items())},
        "code": code_version(),
    }
    text = json.dumps(payload, sort_keys=True, default=_json_default)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


# ---------------------------------------------------------------------- running
@dataclass
class Plan:
    """One claim ready to run: its parameters, subjects and cache folder."""

    claim: Claim
    params: dict[str, Any]
    subjects: dict[str, Any]
    tasks: list[dict[str, Any]]
    cache_dir: Path
    #: the conformance records of the subjects that replace one of the papers' algorithms (:func:`_conform_replaced`)
    conformance: list[dict[str, Any]] = field(default_factory=list)


#: seconds one task of a user's subject may run in its worker before it counts as hanging (SUBJECT-ERROR), by
#: profile: about a hundred times the costliest built-in task of the profile (theorycheck/costs.json), so a slow
#: pure-Python learner still finishes; ``--task-timeout SECONDS`` (``task_timeout=``) sets another limit
TASK_SECONDS = {"quick": 600.0, "full": 3600.0, "paper": 4 * 3600.0}
#: seconds past a task's limit before this process ends a worker that did not end itself (a hang in C code)
_GRACE = 30.0


@dataclass(frozen=True)
class Isolation:
    """The plans (by index) whose tasks run in worker processes even at ``--jobs 1`` (those with a user's
    subject), their tasks' time limit in seconds, and the source hashes of the user's modules the workers
    import (:func:`user_modules`; an edit since the workers started restarts them)."""

    plans: frozenset[int] = frozenset()
    seconds: float = TASK_SECONDS["quick"]
    code: tuple[tuple[str, str], ...] = ()


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
    """``subjects``, with each replaced function whose contract says what it returns (``Contract.returns``)
    wrapped so that every value it returns is checked before the claim uses it (:class:`BadOutput`)."""
    watched = dict(subjects)
    for name, subject in subjects.items():
        returns = getattr(claim.protocols.get(name), "returns", None)
        if (returns is not None and subject is not claim.subjects.get(name) and callable(subject)
                and not inspect.isclass(subject)):
            watched[name] = _checking(subject, returns, name)
    return watched


def _checking(subject: Callable, returns, name: str) -> Callable:
    @functools.wraps(subject)
    def call(*args, **kwargs):
        return returns.check(subject(*args, **kwargs), name)

    return call


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


@dataclass(frozen=True)
class TaskError:
    """Why a task produced no measurement: ``kind`` is "failure" (the subject's output broke the
    theorem's conclusion), "subject" (the subject raised), "conformance" (a subject in the place of one of
    the papers' algorithms is not that algorithm, :func:`_conform_replaced`), "unfinished" (a hook is not
    written yet, :func:`unwritten_hook`) or "harness" (the check itself raised)."""

    kind: str
    cause: str
    trace: str


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text[:300]}" if text else type(err).__name__


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


def check_run_folder(text, claims=(), *, power: bool = False, option: str = "--out", files=()) -> Path:
    """The output folder of a run of ``claims``, checked before any work (see
    :func:`theorycheck.validation.check_output_folder`): the files the run writes are not folders, and
    the folders it writes into are not files. ``power``: the planted defects' runs go in ``.power``."""
    from .validation import check_output_folder

    files = ["summary.json", "index.html", "errata.html", "scaling.json", *files]
    folders = ["results", "tables", ".cache", *([".power"] if power else [])]
    for claim in claims:
        files += [f"results/{claim.id}.json", f"tables/{claim.id}.csv", f"tables/{claim.id}.summary.csv",
                  f"{claim.id}.html"]
        folders.append(f".cache/{claim.id}")
    return check_output_folder(text, option=option, files=files, folders=folders)


def plan_claims(
    claims: list[Claim],
    *,
    profile: str,
    seed: int,
    overrides: dict[str, str],
    subjects: dict[str, Any] | None,
    out: Path,
    force: bool = False,
) -> list[Plan]:
    """Resolve parameters and subjects, and check that the plan fits the machine (:func:`check_resources`,
    unless ``force``); raise ParameterError before anything runs."""
    if profile not in PROFILES:
        raise ParameterError(f"unknown profile {profile!r}; use one of {', '.join(PROFILES)}")
    known = set().union(*(c.profile(profile) for c in claims)) if claims else set()
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ParameterError(
            f"no selected claim has a parameter named {', '.join(unknown)}; "
            f"known: {', '.join(sorted(known))}"
        )
    plans = []
    history = _read_timings(out)
    costs: dict[str, float] = {}  # CPU seconds per task, scaled with the sizes set
    for claim in claims:
        try:
            params = claim.params_for(profile, overrides)
        except (OverflowError, MemoryError) as err:  # a value whose derived quantities leave the floats
            raise _too_large(claim, overrides, err) from None
        chosen = dict(claim.subjects)
        for name, obj in (subjects or {}).items():
            if name in chosen:
                check_subject(claim.id, name, obj, claim.protocols.get(name))
                chosen[name] = obj
        estimate, sizes = _growth(claim, profile, params)
        scale = max((ratio for _, ratio in sizes.values()), default=1.0)
        costs[claim.id] = _mean_cost(history, claim, profile) * scale
        if not force:  # a plan grown by --set: refused before its tasks are built
            check_task(claim.id, sizes, _mean_cost(history, claim, profile))
            if estimate is not None:
                check_resources([(claim.id, estimate, costs[claim.id])], out, scaled=bool(sizes))
        key = cache_key(claim, params, seed, chosen)
        try:
            tasks = claim.tasks(params)
        except (OverflowError, MemoryError, ValueError) as err:
            if not overrides:
                raise
            raise _too_large(claim, overrides, err) from None
        plans.append(Plan(claim, params, chosen, tasks, out / ".cache" / claim.id / key))
    if subjects and not any(name in p.claim.subjects for p in plans for name in subjects):
        raise ParameterError(f"no selected claim has a subject named {', '.join(sorted(subjects))}")
    if not force:
        check_resources([(p.claim.id, len(p.tasks), costs[p.claim.id]) for p in plans], out,
                        scaled=any(costs[p.claim.id] > _mean_cost(history, p.claim, profile) for p in plans))
    return plans


def _too_large(claim: Claim, overrides: dict[str, str], err: Exception) -> ParameterError:
    """The usage error of --set values that the claim's rules let through but its plan cannot hold."""
    given = ", ".join(f"{name}={value}" for name, value in overrides.items())
    return ParameterError(f"{claim.id}: {given} cannot be planned: a quantity derived from them is out of range "
                          f"({_one_line(err)}); choose smaller values")


#: bytes that one task's measurements take, in memory while the run holds them and on the disk in the cache
#: (about 5 kB of JSON per task on the quick profile, doubled)
TASK_BYTES = 10_000
#: the longest run the guards let start without --force, in seconds of all the machine's cores
MAX_RUN_SECONDS = 7 * 86400


def check_resources(plan: list[tuple[str, float, float]], out: Path, *, scaled: bool = False) -> None:
    """Refuse (ParameterError) a plan, given as (claim id, number of tasks, CPU seconds per task), whose
    measurements would not fit in the memory available or on the disk of ``out``, or whose CPU time
    spread over every core (or its longest task, which runs on one) would pass :data:`MAX_RUN_SECONDS`;
    each message names the estimate and the limit. ``scaled`` says the costs per task were scaled with
    sizes set above their profile's (:func:`_growth`). ``--force`` (``force=True``) skips it."""
    tasks = sum(n for _, n, _ in plan)
    seconds = sum(n * cost for _, n, cost in plan)
    biggest = max(plan, key=lambda item: item[1] * max(item[2], 1e-9), default=("", 0, 0.0))[0]
    what = f"the plan has {tasks:,.0f} tasks" + (f" (most of them {biggest}'s)" if len(plan) > 1 else "")
    memory, disk = _available_memory(), _free_disk(out)
    if memory is not None and tasks * TASK_BYTES > memory:
        raise ParameterError(f"{what}: their measurements need about {_size(tasks * TASK_BYTES)} of memory and this "
                             f"machine has {_size(memory)} available; lower the parameters, or pass --force")
    if disk is not None and tasks * TASK_BYTES > disk:
        raise ParameterError(f"{what}: their cache needs about {_size(tasks * TASK_BYTES)} and {out} has "
                             f"{_size(disk)} free; lower the parameters, or pass --force")
    cores = os.cpu_count() or 1
    longest = max((cost for _, _, cost in plan), default=0.0)
    if max(seconds / cores, longest) > MAX_RUN_SECONDS:
        source = "their measured cost per task" + (", scaled with the sizes set" if scaled else "")
        raise ParameterError(f"{what}: about {max(seconds / cores, longest) / 86400:,.0f} days on the {cores} cores "
                             f"(from {source}), past the limit of {MAX_RUN_SECONDS // 86400} days; lower the "
                             "parameters, or pass --force")


#: bytes of one value of the arrays a task builds (float64, int64)
VALUE_BYTES = 8
#: the longest task the guards let start without --force, in CPU seconds: a task is what a run stores and
#: resumes from, so an interrupted run loses the tasks it was running (the shipped profiles' longest mean
#: cost per task is under a minute)
MAX_TASK_SECONDS = 3600


def check_task(claim_id: str, sizes: dict[str, tuple[int, float]], cost: float) -> None:
    """Refuse (ParameterError) sizes set so large that one task cannot fit in the memory available or
    would pass :data:`MAX_TASK_SECONDS`. ``sizes`` (name: (value, ratio to the profile's), from
    :func:`_growth`) are the least a task does: working on n of something (attributes, examples,
    samples...) it holds an array of n values (:data:`VALUE_BYTES` each) and takes at least ratio times
    ``cost``, its CPU seconds per task at the profile's values, for the largest ratio."""
    if not sizes:
        return
    memory = _available_memory()
    name, (value, _) = max(sizes.items(), key=lambda item: item[1][0])
    if memory is not None and value * VALUE_BYTES > memory:
        raise ParameterError(f"{claim_id}: {name}={value} makes one task hold about {_size(value * VALUE_BYTES)} "
                             f"(an array of {name} values) and this machine has {_size(memory)} available; lower "
                             f"{name}, or pass --force")
    name, (value, ratio) = max(sizes.items(), key=lambda item: item[1][1])
    if ratio * cost > MAX_TASK_SECONDS:
        raise ParameterError(f"{claim_id}: {name}={value} makes one task take about {_duration(ratio * cost)} (its "
                             f"cost per task, {cost:.3g} s, times {ratio:,.0f}), past the limit of "
                             f"{_duration(MAX_TASK_SECONDS)} per task; lower {name}, or pass --force")


def _duration(seconds: float) -> str:
    for unit, length in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= length:
            return f"{seconds / length:,.1f} {unit}" if seconds != length else f"1 {unit[:-1]}"
    return f"{seconds:.0f} seconds"


def _growth(claim: Claim, profile: str, params: dict[str, Any]) -> tuple[float | None, dict[str, tuple[int, float]]]:
    """What the integer parameters set above their profile's values do to the plan, found without building
    its tasks: (how many tasks, the sizes of one task). A parameter is *grown* when it (or a list's largest
    value) is more than twice its profile's; seeds are not sizes. The tasks are counted at the profile's
    value v and at v + max(v, 64): a parameter that changes the count (repetitions, a grid) extends it
    linearly (exact for repetitions and grids); one that does not is a size of each task, given as
    name: (value, value / v), which :func:`check_task` and the cost per task scale with. The count
    is None when no parameter is grown, or it cannot be found this way (the tasks are then built and
    counted); a parameter that cannot be classified is then taken as a size."""
    def integer(value):
        return isinstance(value, int) and not isinstance(value, bool)

    def largest(value):
        if isinstance(value, tuple) and value and all(integer(v) for v in value):
            return max(value)
        return value if integer(value) else None

    base = claim.profile(profile)
    grown = {name: largest(value) for name, value in params.items()
             if not name.endswith("seed") and largest(value) is not None and largest(base.get(name)) is not None
             and largest(base[name]) >= 0 and largest(value) > 2 * max(largest(base[name]), 1)}
    if not grown:
        return None, {}
    sizes = {name: (value, value / max(largest(base[name]), 1)) for name, value in grown.items()}
    counted = [name for name in grown if integer(params[name])]
    start = {**params, **{name: base[name] for name in grown}}
    try:
        n0 = max(len(claim.tasks(start)), 1)
        estimate = float(n0)
        for name in counted:
            step = max(base[name], 64)  # wider than a batch of repetitions, so a batched count grows too
            n1 = len(claim.tasks({**start, name: base[name] + step}))
            if n1 != n0:
                del sizes[name]
                estimate *= max(1.0, (n0 + (n1 - n0) * (grown[name] - base[name]) / step) / n0)
    except Exception:  # a claim whose tasks() needs the other parameters to agree: count by building them
        return None, sizes
    return estimate, sizes


def _mean_cost(history, claim: Claim, profile: str) -> float:
    """CPU seconds per task of ``claim``: measured in an earlier run in this folder, else shipped, else 1."""
    times = history.get(f"{claim.id}|{profile}")
    if times:
        return float(np.mean(times))
    if profile == "paper" and "paper" not in claim.profiles:
        profile = "full"
    return _shipped_costs().get(f"{claim.id}|{profile}", 1.0)


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError, IndexError):
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, AttributeError):
            return None


def _free_disk(out: Path) -> int | None:
    existing = next((p for p in (out, *out.parents) if p.exists()), Path("."))
    try:
        stat = os.statvfs(existing)
    except (OSError, AttributeError):
        return None
    return stat.f_bavail * stat.f_frsize


def _size(n: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return ""


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
    conformance: bool = True,
    task_timeout: float | None = None,
    isolate: bool | None = None,
    plans: list[Plan] | None = None,
) -> list[dict[str, Any]]:
    """Run ``claims`` and write their results under ``out``; return the result records.

    ``plans``: what :func:`plan_claims` made of the same claims, overrides, subjects, profile, seed and ``out``
    beforehand (a session plans first, so that its resource guard refuses a plan before any work); None: plan here.

    A claim with a user's subject runs its tasks in worker processes, even at ``jobs`` 1 (see the module's
    Isolation; ``isolate`` True: every claim's, False: none at ``jobs`` 1); ``task_timeout``: the seconds one
    of its tasks may take before it is SUBJECT-ERROR (None: :data:`TASK_SECONDS` of the profile), and the
    limit of its conformance checks (None: :data:`CONFORMANCE_SECONDS`).

    ``scheduler``: the address of a Dask distributed scheduler (``tcp://host:8786``) that runs the
    tasks instead of local processes (``jobs`` is then ignored). Each task's seed is derived as
    always, so the results are those of a local run; this process keeps the cache and writes every
    file. The workers must be able to import theorycheck and any replaced subject.

    ``on_finish``, if given, is called with the records finished so far (in the claims' order)
    each time a claim is decided before the end of the run, e.g. to render its page at once.

    ``force`` runs a plan that :func:`check_resources` refuses (more tasks, memory, disk or time than
    the machine holds).

    ``conformance``: check every subject that replaces one of the papers' algorithms against that algorithm
    first (:func:`_conform_replaced`); a claim whose subject fails it is FAIL and its tasks are not run.
    ``theorycheck conform`` turns it off for the claims it runs, having run the same checks itself."""
    jobs = check_jobs(jobs)  # a count of workers from here on (−1 is every core, −2 all but one)
    if task_timeout is not None:
        task_timeout = check_real("--task-timeout", task_timeout, low=0.1, high=1e7)
    out = Path(out)
    if out.exists():
        remove_orphans(out)
    if plans is None:
        plans = plan_claims(
            claims, profile=profile, seed=seed, overrides=overrides or {}, subjects=subjects, out=out, force=force
        )
    stored: dict[tuple[int, int], dict] = {}
    client = None
    errors: dict[int, TaskError] = {}
    if conformance:
        _conform_replaced(plans, profile, seed, out, use_cache, errors, progress,
                          seconds=CONFORMANCE_SECONDS if task_timeout is None else task_timeout)
    isolation = isolation_of(plans, TASK_SECONDS.get(profile, TASK_SECONDS["full"]) if task_timeout is None
                             else task_timeout, isolate)
    history = _read_timings(out)
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


def _from_cache(plans, key, stored, use_cache: bool) -> bool:
    """Load task ``key`` from the cache into ``stored``; False when it must be run."""
    i, r = key
    path = plans[i].cache_dir / f"task-{r}.json"
    if use_cache and path.exists():
        payload = _read_cached_task(path)
        if payload is not None:
            stored[key] = payload
            return True
    return False


def _conform_replaced(plans: list[Plan], profile: str, seed: int, out: Path, use_cache: bool,
                      errors: dict[int, TaskError], progress: bool, seconds: float | None = None) -> None:
    """Check each subject that runs in the place of one of the papers' algorithms against that algorithm
    (:func:`theorycheck.conformance.in_verify`), once per (algorithm, subject) and cached under
    ``out/.cache/conformance``; store the records in each plan and mark a plan whose subject failed with a
    "conformance" error, so that its tasks are not run: no measurement can make a learner that is not the
    paper's algorithm pass the paper's theorem about it."""
    from .conformance.verify import in_verify, replaced_algorithms, verify_text

    checked: dict[str, dict[str, Any]] = {}
    for i, plan in enumerate(plans):
        for name, (algorithm, subject) in replaced_algorithms(plan.claim, plan.subjects).items():
            text = json.dumps([algorithm, _subject_fingerprint(subject), profile, seed, code_version()])
            key = hashlib.sha256(text.encode()).hexdigest()[:20]
            if key not in checked:
                path = out / ".cache" / "conformance" / f"{key}.json"
                record = _read_conformance(path) if use_cache else None
                if record is None:
                    if progress:
                        print(f"theorycheck: checking {subject_name(subject)} against {algorithm} (conformance) "
                              "before the claims that run it", file=sys.stderr)
                    record = _isolated(in_verify, algorithm, subject, profile, seed,
                                       seconds=CONFORMANCE_SECONDS if seconds is None else seconds)
                    if isinstance(record, str):  # the subject ended the process that checked it: not cached
                        record = {"died": f"subject {name} ({subject_name(subject)}) {record} while it was checked "
                                          f"against {algorithm} (conformance)"}
                    else:
                        write_json(path, record)
                checked[key] = record
            if "died" in checked[key]:
                errors[i] = TaskError("subject", checked[key]["died"], "no Python stack: the worker process ended")
                break
            plan.conformance.append({"place": name, **checked[key]})
        failed = [c for c in plan.conformance if _failing(c)]
        if failed and i not in errors:
            first = _failing(failed[0])[0]
            errors[i] = TaskError("conformance", f"subject {failed[0]['place']} ({failed[0]['subject']}) is not "
                                  f"{failed[0]['algorithm']}: its {first['name']} check failed: "
                                  f"{first['cause'] or first['decision']}",
                                  "\n\n".join(verify_text(c) for c in failed))


def _failing(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The checks of a conformance record that failed on the subject's behaviour; a check where the subject raised
    (on conformance's own instance, which it may not support) judges nothing: the claim runs and says what the
    subject does on the claim's instance."""
    return [c for c in record["checks"] if c["ran"] and c["verdict"] == stats.FAIL and not c.get("raised")]


#: seconds a subject's conformance may take in its worker before it counts as hanging
CONFORMANCE_SECONDS = 1800.0


def _isolated(function, *args, seconds: float = CONFORMANCE_SECONDS):
    """``function(*args)`` in a worker process of its own (loky's, started once and reused), so that a subject
    that exits, aborts, segfaults or hangs cannot end the run: its result, or a few words saying how the worker
    ended (an exit status, a signal, sys.exit, or not finished within ``seconds``, counted in the worker)."""
    from concurrent.futures import TimeoutError as Timeout

    from joblib.externals.loky.process_executor import TerminatedWorkerError

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
        except Timeout:
            executor.shutdown(wait=False, kill_workers=True)
            return late
    return outcome.text if isinstance(outcome, _Exited) else outcome


@dataclass(frozen=True)
class _Exited:
    text: str


def _exits_reported(stack: str, seconds: float, function, *args):
    """``function(*args)`` in a worker, or an :class:`_Exited` when it raised SystemExit (which loky would re-raise
    in the parent). A fatal signal's report goes to the file ``stack``, not to the terminal the run shares, and so
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
        finally:
            faulthandler.cancel_dump_traceback_later()
            faulthandler.enable() if enabled else faulthandler.disable()


def _read_conformance(path: Path) -> dict | None:
    """A stored conformance record, or None when absent or not of the shape :func:`_conform_replaced` writes."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    shaped = (isinstance(record, dict) and isinstance(record.get("checks"), list)
              and all(isinstance(c, dict) and {"name", "verdict", "ran", "decision", "cause"} <= set(c)
                      for c in record["checks"])
              and {"algorithm", "subject", "verdict", "delta", "profile"} <= set(record))
    return record if shaped else None


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
    bar.total = round((bar.total or 0) + sum(cost.values()), 1)
    bar.refresh()
    if pending:
        bar.set_postfix_str(plans[pending[0][0]].claim.id, refresh=False)
    calls = [(i, (plans[i].claim, plans[i].params, plans[i].tasks[r], plans[i].subjects, seed, r))
             for i, r in pending]
    done: set[tuple[int, int]] = set()
    for i, (r, payload, error) in _execute(calls, jobs, skip=errors, client=client, isolation=isolation):
        if isinstance(error, ParameterError):
            raise error
        finished = {(i, r)}
        if error is not None and i not in errors:
            errors[i] = error
            if error.kind != "harness":  # the subject failed: its other tasks cannot change that
                finished |= {key for key in pending if key[0] == i}
        new = finished - done
        done |= new
        if payload is not None:
            eta.task(payload["seconds"], payload.get("compile_seconds", 0.0), cost[(i, r)])
        # never past the total: the costs are rounded as they are added, so their sum may pass it by a hair
        bar.update(min(round(sum(cost[key] for key in new), 1), max(bar.total - bar.n, 0)))
        running = next((plans[j].claim.id for j, q in pending if (j, q) not in done), plans[i].claim.id)
        bar.set_postfix_str(f"{eta.left(bar)}, running {running}", refresh=False)
        if error is not None:
            continue
        stored[(i, r)] = payload
        write_json(plans[i].cache_dir / f"task-{r}.json", payload, sort_keys=False)
        finish(i)


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

    def task(self, seconds: float, compiling: float, expected: float) -> None:
        """A task returned: its CPU seconds, the part of them spent compiling, and its expected seconds."""
        self.cpu += seconds
        self.compiling += min(compiling, seconds)
        self.expected += expected

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

    def range(self, done: float, total: float, elapsed: float) -> tuple[float, float]:
        """The shortest and the longest time left, in seconds."""
        left, shares = max(total - done, 0.0), self.shares(elapsed)
        if self.expected <= 0:
            return left / max(shares) / 2, 2 * left / min(shares)
        weight = min(self.weight_cap, self.weight_fraction * total)
        work, spent = self.cpu - self.compiling, self.cpu
        short = min(work / self.expected, (work + weight) / (self.expected + weight))
        long = max(spent / self.expected, (spent + weight) / (self.expected + weight))
        return left * short / max(shares), left * long / min(shares)

    def left(self, bar) -> str:
        """The progress bar's words for the time left, after sampling the run's CPU."""
        elapsed = bar.format_dict["elapsed"]
        if self._cpu is not None and (now := self._cpu()) is not None:
            self.sample(elapsed, now)
        return span(*self.range(bar.n, bar.total, elapsed), spread=self.spread)


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
    pids, todo = [], [os.getpid()]
    while todo:  # a tree: each process is listed once, by its parent's threads
        try:
            children = [int(c) for thread in Path(f"/proc/{todo.pop()}/task").iterdir()
                        for c in (thread / "children").read_text().split()]
        except OSError:  # ended meanwhile, or a kernel without the children files
            continue
        pids += children
        todo += children
    for pid in pids:
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


# ---------------------------------------------------------------------- timings for the progress bar
_TIMINGS = "timings.json"


def _read_timings(out: Path) -> dict[str, list[float]]:
    """Seconds per task of earlier runs, keyed "claim|profile" (a damaged file counts as none)."""
    try:
        data = json.loads((out / ".cache" / _TIMINGS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, list) and all(isinstance(x, int | float) for x in v)}


#: CPU seconds per task of every built-in claim on the quick and full profiles, measured on the
#: reference machine (2 cores) and refreshed with ``python benchmarks/costs.py REPORTS``
COSTS_FILE = Path(__file__).with_name("costs.json")


@functools.cache
def _shipped_costs() -> dict[str, float]:
    try:
        data = json.loads(COSTS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float) and v > 0} if isinstance(data, dict) \
        else {}


def _expected_seconds(history, plan: Plan, r: int, profile: str) -> float:
    """The expected CPU cost of task r: its own time in an earlier run with as many tasks, else the
    claim's mean time per task in that run, else the shipped mean per task (the paper profile,
    when the claim declares none of its own, is its full profile), else the median shipped cost. Only ratios matter:
    the progress bar's rate, measured as the run goes, turns them into the machine's seconds."""
    times = history.get(f"{plan.claim.id}|{profile}")
    if times:
        return max(float(times[r] if len(times) == len(plan.tasks) else np.mean(times)), 0.01)
    shipped = _shipped_costs()
    if profile == "paper" and "paper" not in plan.claim.profiles:
        profile = "full"
    return max(shipped.get(f"{plan.claim.id}|{profile}", _typical_cost(profile)), 0.01)


@functools.cache
def _typical_cost(profile: str) -> float:
    """The median shipped cost per task on ``profile`` (1 s if none), for a claim that ships none (a
    user's): a guess of the right order, where a flat 1 s made a package of cheap claims weigh more
    than all the built-in ones together."""
    costs = [v for k, v in _shipped_costs().items() if k.endswith(f"|{profile}")]
    return float(np.median(costs)) if costs else 1.0


def _work_seconds(payload: dict) -> float | None:
    seconds = payload.get("seconds")
    compiling = payload.get("compile_seconds", 0.0)
    if not isinstance(seconds, int | float):
        return None
    return max(float(seconds) - (compiling if isinstance(compiling, int | float) else 0.0), 0.0)


def _write_timings(out: Path, history, plans, stored, profile: str) -> None:
    for i, plan in enumerate(plans):
        # without the time spent compiling, which a run on a warm numba cache does not pay
        times = [_work_seconds(stored.get((i, r), {})) for r in range(len(plan.tasks))]
        if times and all(isinstance(t, int | float) for t in times):
            history[f"{plan.claim.id}|{profile}"] = [round(float(t), 4) for t in times]
    write_json(out / ".cache" / _TIMINGS, history)


#: cached runs kept per claim: the one just used and the most recently used others (another
#: profile, seed or subject); older ones, e.g. of an earlier code version, are deleted
CACHE_KEPT_PER_CLAIM = 4


def prune_cache(used: Path) -> None:
    """Mark ``used`` as just used and delete its claim's cached runs beyond CACHE_KEPT_PER_CLAIM."""
    if not used.is_dir():
        return
    os.utime(used)
    runs = [p for p in used.parent.iterdir() if p.is_dir() and len(p.name) == 20 and p != used]
    runs.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in runs[CACHE_KEPT_PER_CLAIM - 1:]:
        shutil.rmtree(stale, ignore_errors=True)


def _read_cached_task(path: Path) -> dict | None:
    """A stored task, or None (with a one-line warning) when the file is unreadable or not of the
    shape the runner writes, so that a damaged cache is recomputed rather than trusted."""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # ValueError covers bad JSON and bytes that are not UTF-8
        payload = None
    shaped = (isinstance(payload, dict) and isinstance(payload.get("rows"), list)
              and all(isinstance(row, dict) for row in payload["rows"])
              and isinstance(payload.get("hypotheses"), list)
              and all(isinstance(h, dict) and {"statement", "met"} <= set(h) for h in payload["hypotheses"])
              and isinstance(payload.get("seconds"), int | float))
    if not shaped:
        print(f"theorycheck: warning: the cached task {path} is damaged; it is recomputed", file=sys.stderr)
        return None
    return payload


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
    """A client of the Dask scheduler at ``address``; ParameterError when Dask is not installed or
    the scheduler cannot be reached (before any task runs)."""
    try:
        from distributed import Client
    except ImportError:
        raise ParameterError("--scheduler needs Dask: pip install 'theorycheck[dask]'") from None
    reach_scheduler(address)
    try:
        return Client(address, timeout=f"{SCHEDULER_TIMEOUT}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ParameterError(f"cannot reach the Dask scheduler at {address!r}: {_one_line(err)}") from None


def _execute(calls, jobs: int, skip, client=None, isolation: Isolation = Isolation()):
    """Yield (plan index, task result) as tasks finish: in-process, in worker processes, or on a Dask
    cluster through ``client``. The tasks of the plans in ``isolation`` always run in a worker (one at
    ``jobs`` 1), the others in-process at ``jobs`` 1. Tasks of a plan whose subject has failed (a
    non-harness error in ``skip``) are not started."""
    def wanted(i):
        return i not in skip or skip[i].kind == "harness"

    if client is not None:
        from distributed import as_completed

        futures = {client.submit(_tagged, i, args, pure=False): i for i, args in calls}
        for future in as_completed(list(futures), loop=client.loop):
            if future.cancelled():
                continue
            yield future.result()
            for other, i in futures.items():  # a failed subject: drop its tasks not yet run
                if not wanted(i) and not other.done():
                    other.cancel()
        return

    pool = jobs > 1 and len(calls) > 1  # every task in the workers
    for i, args in [] if pool else [(i, args) for i, args in calls if i not in isolation.plans]:
        if wanted(i):
            yield i, _run_task(*args)
    away = calls if pool else [(i, args) for i, args in calls if i in isolation.plans]
    if away:
        yield from _in_workers(away, jobs, wanted, isolation)


def _in_workers(calls, jobs: int, wanted, isolation: Isolation):
    """Yield (plan index, task result) of ``calls`` run in ``jobs`` worker processes, at most ``jobs`` at a time.

    A worker that dies (an exit, a signal, a task of an isolated plan past its time limit, which faulthandler
    ends after writing its stack) ends only its task: alone in flight, that task is the culprit; else each task
    that was running runs again alone, and the one whose worker dies again is (:func:`_alone`). A subject that
    cannot be sent to a worker (it does not pickle) runs in this process, with a warning."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from joblib.externals.loky.process_executor import BrokenProcessPool, TerminatedWorkerError

    queue = list(reversed(calls))
    running: dict[Any, tuple[int, tuple, float]] = {}  # future: (plan index, task arguments, when submitted)
    with tempfile.TemporaryDirectory(prefix="theorycheck-running-") as watch:
        executor = _workers(jobs, dict(isolation.code))
        while queue or running:
            while queue and len(running) < jobs:
                i, args = queue.pop()
                if not wanted(i):
                    continue
                limit = isolation.seconds if i in isolation.plans else None
                try:
                    running[executor.submit(_tagged, i, args, watch, limit)] = (i, args, time.monotonic())
                except BrokenProcessPool:  # a worker died since the last wait: the tasks in flight end with it
                    queue.append((i, args))
                    if not running:
                        executor = _workers(jobs, dict(isolation.code))
                    break
            if not running:  # nothing wanted was left, or a fresh pool takes the rest
                continue
            limited = [t for _, (i, _, t) in running.items() if i in isolation.plans]
            patience = min(limited) + isolation.seconds + _GRACE - time.monotonic() if limited else None
            done, _ = wait(running, timeout=None if patience is None else max(patience, 0.0),
                           return_when=FIRST_COMPLETED)
            if not done:  # a worker past its limit that faulthandler could not end: end every worker
                executor.shutdown(wait=False, kill_workers=True)
                for i, args, started in running.values():
                    if i in isolation.plans and time.monotonic() - started > isolation.seconds:
                        yield i, _ended(i, args, watch, _late(args, isolation.seconds))
                    else:
                        queue.append((i, args))
                running.clear()
                executor = _workers(jobs, dict(isolation.code))
                continue
            if any(isinstance(f.exception(), TerminatedWorkerError) for f in done):
                done, _ = wait(running, timeout=60)  # the pool is broken: every task in flight ends with it
            dead, lost = [], []
            for future in done:
                i, args, _ = running.pop(future)
                err = future.exception()
                if err is None:
                    yield future.result()
                else:
                    (dead if isinstance(err, TerminatedWorkerError) else lost).append((i, args, err))
            for i, args, err in lost:  # never ran in the worker (a subject it cannot unpickle): here, unprotected
                if not wanted(i):
                    continue
                print(f"theorycheck: warning: task {args[5]} of {args[0].id} cannot run in a worker process "
                      f"({_one_line(err)}); it runs in this process", file=sys.stderr)
                yield i, _run_task(*args)
            for i, args, err in dead:
                if not wanted(i):  # its claim has failed already (another of its tasks, just yielded)
                    continue
                limit = isolation.seconds if i in isolation.plans else None
                yield i, (_ended(i, args, watch, _how(err, watch, i, args, limit)) if len(dead) == 1 or
                          _timed_out(watch, i, args) else _alone(i, args, watch, limit))
            if dead or lost:  # the pool is broken: the tasks still in flight run again in a fresh one
                queue.extend((i, args) for i, args, _ in running.values())
                running.clear()
                executor = _workers(jobs, dict(isolation.code))


def _tagged(i, args, watch: str | None = None, limit: float | None = None):
    """Run task ``args`` of claim ``i`` in a worker. With ``watch`` (a folder), a file ``<i>-<r>`` there marks the
    task as running and receives its Python stack if a fatal signal ends the worker, or when the task runs past
    ``limit`` seconds (then faulthandler ends the worker, with exit status 1)."""
    if watch is None:
        return i, _run_task(*args)
    import faulthandler

    marker, enabled = Path(watch) / f"{i}-{args[5]}", faulthandler.is_enabled()
    with open(marker, "w", encoding="utf-8") as fh:
        faulthandler.enable(file=fh)
        if limit is not None:
            faulthandler.dump_traceback_later(limit, exit=True, file=fh)
        try:
            result = _run_task(*args)
        finally:
            faulthandler.cancel_dump_traceback_later()
            faulthandler.enable() if enabled else faulthandler.disable()
    marker.unlink()
    return i, result


def _alone(i, args, watch: str, limit: float | None):
    """Task ``args`` of claim ``i`` run alone in a worker: its result, or when its worker dies again a subject error
    naming how the worker ended (signal, exit status or time limit) and the stack it was in."""
    from concurrent.futures import TimeoutError as Timeout

    from joblib.externals.loky.process_executor import TerminatedWorkerError

    executor = _workers(1)
    try:
        _, result = executor.submit(_tagged, i, args, watch, limit).result(
            timeout=None if limit is None else limit + _GRACE)
        return result
    except TerminatedWorkerError as err:
        return _ended(i, args, watch, _how(err, watch, i, args, limit))
    except Timeout:
        executor.shutdown(wait=False, kill_workers=True)
        return _ended(i, args, watch, _late(args, limit))


def _timed_out(watch: str, i, args) -> bool:
    """Whether faulthandler ended the worker of task ``args`` of claim ``i`` at its time limit."""
    marker = Path(watch) / f"{i}-{args[5]}"
    return marker.exists() and marker.read_text(encoding="utf-8", errors="replace").startswith("Timeout (")


def _how(err: BaseException, watch: str, i, args, limit: float | None) -> str:
    """What the subject of task ``args`` of claim ``i`` did to its worker: ran past its time limit, or ended it
    (a signal or an exit status)."""
    if limit is not None and _timed_out(watch, i, args):
        return _late(args, limit)
    return f"killed the worker running task {args[5]}: {_ending(err)}"


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
    stack = marker.read_text(encoding="utf-8", errors="replace") if marker.exists() else ""
    replaced = {n: s for n, s in subjects.items() if s is not claim.subjects.get(n)} or subjects
    who = ", ".join(f"{n} ({subject_name(s)})" for n, s in replaced.items())
    return r, None, TaskError("subject", f"subject {who} {how}",
                              stack or "no Python stack: the process ended without a fatal-signal report")


#: what the reusable workers started with: this process's folder and sys.path, and the source hashes of the
#: user's modules they were sent
_WORKER_STATE: dict[str, Any] = {"where": None, "code": {}}


def _workers(n: int, code: dict[str, str] | None = None):
    """loky's reusable executor with ``n`` worker processes, started once and reused by every run of this
    process; started afresh when this process's folder or sys.path changed since (a worker would not find the
    user's modules), or one of the user's modules in ``code`` ({file: source hash}) was edited (a worker would
    run its old code)."""
    from joblib.externals.loky import get_reusable_executor

    # loky ends a worker between two tasks when its memory has grown by a few hundred MB (its leak guard: a task
    # that loads a real data set does) and starts another one, with this warning; no task is lost, so the user is
    # not told
    warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given to the executor",
                            category=UserWarning)
    code, where = code or {}, [os.getcwd(), *sys.path]
    known = _WORKER_STATE["code"]
    stale = (_WORKER_STATE["where"] not in (None, where)
             or any(known.get(path, digest) != digest for path, digest in code.items()))
    if stale:
        known.clear()
    known.update(code)
    _WORKER_STATE["where"] = where
    return get_reusable_executor(max_workers=n, reuse=not stale, kill_workers=stale)


def isolation_of(plans: list[Plan], seconds: float, isolate: bool | None = None) -> Isolation:
    """The :class:`Isolation` of ``plans``: those with a subject not defined in theorycheck, proofs or
    simulations (:func:`own_code`) run in workers, with ``seconds`` per task (``isolate`` True: every plan,
    False: none)."""
    foreign = [i for i, plan in enumerate(plans)
               if (isolate if isolate is not None else not all(own_code(s) for s in plan.subjects.values()))]
    code = {path: digest for i in foreign for s in plans[i].subjects.values() for path, digest in
            user_modules(s).items()}
    return Isolation(frozenset(foreign), seconds, tuple(sorted(code.items())))


#: seconds a user's module may take to import in its worker before it counts as hanging
IMPORT_SECONDS = 600.0


def import_in_worker(module: str, seconds: float = IMPORT_SECONDS) -> str | None:
    """Import ``module`` in a worker process first (:func:`_isolated`), so a module that exits, aborts or hangs
    at import cannot end this process: None when the import returned (or raised, which the caller's own
    import reports), else how it ended the worker, in a few words."""
    outcome = _isolated(_imports, module, seconds=seconds)
    return outcome if isinstance(outcome, str) else None


def _imports(module: str) -> None:
    import importlib

    try:
        importlib.import_module(module)
    except Exception:  # reported by the caller's own import, in one line
        pass


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
    if error is not None and error.kind == "conformance":
        decision = ("A subject in the place of one of the papers' algorithms is first checked against that "
                    "algorithm (conformance); a learner that is not the paper's algorithm cannot pass the paper's "
                    f"theorem about it, so the claim's tasks were not run.\nConformance FAIL: the {error.cause}"
                    f"\n\n{error.trace}")
        record.update(verdict=stats.FAIL, decision=decision, seconds=0.0)
        return record
    if error is not None and error.kind == "failure":
        decision = (f"The subject's output breaks the theorem's conclusion: {error.cause}\n"
                    "The claim's other tasks were not run: no measurement can undo this.")
        record.update(verdict=stats.FAIL, decision=decision, seconds=0.0)
        return record
    if error is not None and error.kind == "unfinished":
        record.update(verdict=ERROR, decision=_not_finished(claim, error.cause), seconds=0.0)
        return record
    if error is not None and error.kind == "subject":
        decision = (f"The {error.cause}\nThe implementation under test failed, not the harness; the "
                    f"claim's other tasks were not run.\n\n{error.trace}")
        record.update(verdict=SUBJECT_ERROR, decision=decision, seconds=0.0)
        return record
    if error is not None or any(p is None for p in payloads):
        message = "The check itself raised an exception:\n" + (error.trace if error else "missing task")
        record.update(verdict=ERROR, decision=message, seconds=0.0)
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
            record.update(verdict=ERROR, decision=_not_finished(claim, missing), seconds=0.0)
            return record
        message = "Deciding raised an exception:\n" + traceback.format_exc(limit=8)
        record.update(verdict=ERROR, decision=message, seconds=0.0)
        return record
    verdict, decision = evidence.verdict, evidence.decision
    if evidence.vacuous and verdict == stats.PASS:
        verdict = stats.INCONCLUSIVE
        reason = evidence.vacuous_reason or ("the trivial learner (which returns its starting point) also meets "
                                             "the bound, so the check could not have failed here")
        decision = (f"No verdict: the instance is vacuous, because {reason}. "
                    f"For the record, the test alone said: {decision}")
    broken = [h for h in hyps if not h.met]
    if broken:
        verdict = stats.INCONCLUSIVE
        names = "; ".join(f"{h.statement} ({h.detail})" if h.detail else h.statement for h in broken)
        decision = (
            f"No verdict: the instance built breaks the hypotheses {names}, so the theorem "
            f"says nothing about it. For the record, the test alone said: {decision}"
        )
    if plan.conformance:  # every check it ran passed (else the claim was not run): say which ran, and which could not
        from .conformance.verify import verify_text

        decision += "\n\n" + "\n\n".join(verify_text(c) for c in plan.conformance)
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


def _store_result(out: Path, plan: Plan, record: dict[str, Any]) -> None:
    table = record.pop("_table", None)
    summary = record.pop("_summary", None)
    cid = plan.claim.id
    if table is not None:
        write_atomic(out / "tables" / f"{cid}.csv", table.to_csv(index=False))
        record["table_file"] = f"tables/{cid}.csv"
    if summary is not None:
        write_atomic(out / "tables" / f"{cid}.summary.csv", summary.to_csv(index=False))
        record["summary_file"] = f"tables/{cid}.summary.csv"
    write_json(out / "results" / f"{cid}.json", record)


def write_summary(out: Path, records, *, profile: str, seed: int, env,
                  wall_seconds: float | None = None, unfinished: int = 0) -> dict[str, Any]:
    """Write ``summary.json``: one row per claim (``seconds`` is CPU time, summed over the claim's
    tasks; ``headline`` the first line of its decision; ``delta_share`` its δ over the run's sum of
    δ, its share of the family-wise error) and the run's wall time; during a run, ``unfinished``
    counts the selected claims not decided yet."""
    keys = ("id", "paper", "citation", "title", "reference", "kind", "verdict", "observed", "theory",
            "ratio", "ratio_at_least", "trivial", "vacuous", "vacuous_reason", "delta", "params", "subjects",
            "replaced", "seconds", "profile", "seed")
    stochastic = [r["delta"] for r in records if r.get("delta") is not None]
    shares = stats.delta_shares(r.get("delta") for r in records)
    summary = {
        "claims": [{**{k: r.get(k) for k in keys}, "delta_share": share,
                    "headline": headline(r.get("decision"), r.get("verdict"))}
                   for r, share in zip(records, shares, strict=True)],
        "wall_seconds": wall_seconds,
        "unfinished": unfinished,
        "profile": profile,
        "seed": seed,
        "family_wise_delta": stats.union_delta(stochastic),
        "family_wise_method": (
            "union bound (Bonferroni) over the stochastic claims of this run: the probability "
            "that any true claim is marked FAIL is at most the sum of their δ; each claim's share (delta_share) is its "
            "δ over that sum"
        ),
        "counts": {v: sum(r["verdict"] == v for r in records) for v in (*_verdicts(), SUBJECT_ERROR, ERROR)},
        "code_version": code_version(),
        "environment": env,
    }
    write_json(out / "summary.json", summary)
    return summary


#: the words that say why a verdict is not PASS, as the decisions write them
_REASONS = {stats.FAIL: ("FAIL", "TIED", "REVERSED", "DIFFERENT"),
            stats.NOT_REPRODUCED: ("NOT REPRODUCED", "TIED", "REVERSED", "DIFFERENT"),
            stats.INCONCLUSIVE: ("No verdict", "INCONCLUSIVE", "UNDECIDED")}


def headline(decision, verdict: str | None = None) -> str:
    """One line of a decision, without list markers, at most 240 characters: the first line, or for
    a FAIL or INCONCLUSIVE verdict the first later line that gives the reason (the first line of a
    decision usually states the method), cut around the word that says it. Every cut falls between
    words, marked "…" (:func:`_clip`: a line whose last 120 characters of room hold no space is kept
    whole rather than cut inside a word)."""
    if not isinstance(decision, str):
        return ""
    lines = [line.strip().lstrip("-• ").strip() for line in decision.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if first.startswith("No verdict"):
        verdict = None
    later = lines[1:] if verdict in _REASONS else []
    # a finding that decides before one that is only reported
    for line in [*(x for x in later if "reported" not in x), *(x for x in later if "reported" in x)]:
        found = [line.find(word) for word in _REASONS[verdict] if word in line]
        if found:
            start = max(0, min(found) - 120)
            if start and not line[start - 1].isspace():  # begin at a word, never inside one
                start = next((j + 1 for j in range(start, min(found)) if line[j].isspace()), min(found))
            label = line.split(":", 1)[0] + ": … " if start and ":" in line[:min(40, start)] else "…" if start else ""
            return _clip(label + line[start:], 240)
    return _clip(first, 240)


def _clip(text: str, limit: int) -> str:
    """``text`` whole when it has at most ``limit`` characters, else cut after its last whole word that fits,
    with "…"; a text with no space in the second half of that room is kept whole rather than cut inside a word."""
    if len(text) <= limit:
        return text
    room = text[:limit]
    space = max(room.rfind(" "), room.rfind("\n"))
    return text if space < limit // 2 else room[:space].rstrip(" ,;:—–-") + "…"


def _verdicts():
    return (stats.PASS, stats.FAIL, stats.NOT_REPRODUCED, stats.INCONCLUSIVE)


def load_result(out: Path | str, claim_id: str) -> dict[str, Any] | None:
    """The stored result of ``claim_id``, or None when there is none or it cannot be read (then
    with a one-line warning)."""
    from .stored import read_result

    path = Path(out) / "results" / f"{claim_id}.json"
    return read_result(path) if path.exists() else None
