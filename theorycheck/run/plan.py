"""What a run will do before it does it: each claim's plan (parameters, subjects, tasks, cache folder), the
resource guards that refuse a plan past the machine's memory, disk or time, and the expected cost of each task
(this folder's timings, else the shipped costs) that weights the progress bar.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..claims import PROFILES, Claim
from ..protocols import check_subject
from ..validation import ParameterError
from .provenance import cache_key
from .store import write_json


@dataclass
class Plan:
    """One claim ready to run: its parameters, subjects and cache folder."""

    claim: Claim
    params: dict[str, Any]
    subjects: dict[str, Any]
    tasks: list[dict[str, Any]]
    cache_dir: Path
    #: the conformance records of the subjects that replace one of the papers' algorithms, and their paragraph for
    #: the claim's decision (:func:`theorycheck.conformance.verify.check_replaced`, which a session runs first)
    conformance: list[dict[str, Any]] = field(default_factory=list)
    conformance_text: str = ""
    #: why the plan's tasks are not run, found before the run (a subject that is not the paper's algorithm)
    refused: TaskError | None = None

    @property
    def replaced(self) -> list[str]:
        """The names of the subjects this run puts in place of the claim's own (``--subject``)."""
        return [name for name, subject in self.subjects.items() if subject is not self.claim.subjects.get(name)]


@dataclass(frozen=True)
class TaskError:
    """Why a task produced no measurement: ``kind`` is "failure" (the subject's output broke the
    theorem's conclusion), "subject" (the subject raised), "conformance" (a subject in the place of one of
    the papers' algorithms is not that algorithm, :func:`~theorycheck.conformance.verify.check_replaced`),
    "unfinished" (a hook is not written yet, :func:`~theorycheck.run.execute.unwritten_hook`) or "harness" (the
    check itself raised)."""

    kind: str
    cause: str
    trace: str


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text[:300]}" if text else type(err).__name__


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
    history = read_timings(out)
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


_TIMINGS = "timings.json"


def read_timings(out: Path) -> dict[str, list[float]]:
    """Seconds per task of earlier runs, keyed "claim|profile" (a damaged file counts as none, and an entry that is
    not a list of durations between 0 s and a year, NaN and 1e308 among them, as no entry)."""
    try:
        data = json.loads((out / ".cache" / _TIMINGS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, list)
            and all(isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x <= _YEAR for x in v)}


_YEAR = 365 * 86400.0


#: CPU seconds per task of every built-in claim on the quick and full profiles, measured on the
#: reference machine (2 cores) and refreshed with ``python benchmarks/costs.py REPORTS``
COSTS_FILE = Path(__file__).parents[1] / "costs.json"


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


def _timed(history, plan: Plan, profile: str) -> bool:
    """Whether :func:`_expected_seconds` knows plan's claim's own time (an earlier run, or a shipped cost)."""
    shipped = f"{plan.claim.id}|{'full' if profile == 'paper' and 'paper' not in plan.claim.profiles else profile}"
    return bool(history.get(f"{plan.claim.id}|{profile}")) or shipped in _shipped_costs()


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
