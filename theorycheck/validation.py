"""Argument checks shared by every public function.

Each check raises :class:`ParameterError` with one readable sentence; the command line turns
it into a one-line message and exit status 2.
"""

from __future__ import annotations

import math
import os
import tempfile
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from .errors import ParameterError as ParameterError  # defined in theorycheck.errors, importable from here as ever


def check_int(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int, or raise if it is not an integer in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if low is not None and value < low:
        raise ParameterError(f"{name} must be at least {low}, got {value}")
    if high is not None and value > high:
        raise ParameterError(f"{name} must be at most {high}, got {value}")
    return value


def check_real(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    strict_low: bool = False,
    strict_high: bool = False,
) -> float:
    """Return ``value`` as a finite float inside the given (open or closed) interval."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ParameterError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ParameterError(f"{name} must be finite, got {value}")
    if low is not None and (value <= low if strict_low else value < low):
        raise ParameterError(f"{name} must be {'>' if strict_low else '>='} {low}, got {value}")
    if high is not None and (value >= high if strict_high else value > high):
        raise ParameterError(f"{name} must be {'<' if strict_high else '<='} {high}, got {value}")
    return value


def check_budget(k, d, *, name: str = "k", low: int = 1) -> tuple[int, int]:
    """Check an attribute budget: d ≥ 1 and low ≤ k ≤ d."""
    d = check_int("d", d, low=1)
    k = check_int(name, k, low=low)
    if k > d:
        raise ParameterError(f"{name} must not exceed d (the number of attributes): {name}={k}, d={d}")
    return k, d


def check_delta(delta) -> float:
    """A confidence parameter δ in (0, 1)."""
    return check_real("delta", delta, low=0.0, high=1.0, strict_low=True, strict_high=True)


def check_matrix(name: str, X, *, ndim: int = 2) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 array of the given rank with finite entries."""
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ParameterError(f"{name} must be numeric: {err}") from None
    if arr.ndim != ndim:
        raise ParameterError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} contains NaN or infinite values")
    return np.ascontiguousarray(arr)


# ---------------------------------------------------------------------------------------
# declared parameter rules (the shape of scikit-learn's ``_parameter_constraints``)
#
# A claim declares ``parameters = {"d": Integer(2), "k": Budget(), "delta": Probability(), ...}``
# and :func:`validate` checks a whole profile against it in one place, before any work. Rules
# that relate several parameters beyond a budget stay in the claim's ``check_params``.


class Rule:
    """One declared rule for a parameter: :meth:`check` returns the value or raises."""

    def check(self, name: str, value, params: dict):
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


#: the largest integer a parameter may take: sizes, counts and seeds go into NumPy's int64 arrays and
#: numba's int64 loops, where a larger value wraps around or raises inside the built-in subjects
INT64_MAX = 2**63 - 1


class Integer(Rule):
    """An integer in [low, high]; a missing end is ±:data:`INT64_MAX`."""

    def __init__(self, low: int | None = None, high: int | None = None) -> None:
        self.low, self.high = low, high

    def check(self, name, value, params):
        low = -INT64_MAX if self.low is None else self.low
        return check_int(name, value, low=low, high=INT64_MAX if self.high is None else self.high)

    def describe(self):
        lo = "−∞" if self.low is None else self.low
        hi = "2⁶³ − 1" if self.high is None else self.high
        return f"integer in [{lo}, {hi}]"


#: the largest magnitude a Number rule without a bound of its own accepts: products of three such
#: values (B³, B²·d...) stay finite in floating point, where 1e308 overflows at once
LARGEST = 1e100
#: the smallest magnitude other than 0 a Number rule accepts, for the same reason: 1/x, 1/x² and x³ stay
#: finite and non-zero, where 1e-320 (a subnormal) makes them infinite or 0
SMALLEST = 1e-100
#: the smallest error rate δ (and resolution) a decision can use: log(1/δ), the samples it asks for and
#: the discrepancies it resolves stay well inside double precision; a smaller one is refused, not rounded
SMALLEST_DECIDABLE = 1e-12


class Number(Rule):
    """A finite number in an interval; ``open`` names the open ends ("low", "high", "both"). A missing
    end is ±:data:`LARGEST`, so that the quantities derived from the value stay finite."""

    def __init__(self, low: float | None = None, high: float | None = None, *, open: str = "") -> None:
        self.low, self.high, self.open = low, high, open

    def check(self, name, value, params):
        value = check_real(name, value, low=self.low, high=self.high,
                           strict_low=self.open in ("low", "both"), strict_high=self.open in ("high", "both"))
        if abs(value) > LARGEST:
            raise ParameterError(f"{name} must be at most {LARGEST:g} in magnitude (the quantities derived from it "
                                 f"would overflow), got {value:g}")
        if value and abs(value) < SMALLEST:
            raise ParameterError(f"{name} must be 0 or at least {SMALLEST:g} in magnitude (the quantities derived "
                                 f"from it would overflow), got {value:g}")
        return value + 0.0  # -0.0 is 0.0

    def describe(self):
        left = "(" if self.open in ("low", "both") else "["
        right = ")" if self.open in ("high", "both") else "]"
        lo = "−∞" if self.low is None else self.low
        hi = "∞" if self.high is None else self.high
        return f"number in {left}{lo}, {hi}{right}"


class Positive(Number):
    """A finite number > 0."""

    def __init__(self) -> None:
        super().__init__(0.0, None, open="low")


class Probability(Number):
    """An error rate δ in [:data:`SMALLEST_DECIDABLE`, 1)."""

    def __init__(self) -> None:
        super().__init__(SMALLEST_DECIDABLE, 1.0, open="high")


class Resolution(Number):
    """The smallest discrepancy a decision must resolve: a finite number in [:data:`SMALLEST_DECIDABLE`,
    ``high``], or 0 too where ``zero`` (a claim that also decides exactly)."""

    def __init__(self, high: float | None = None, *, zero: bool = False) -> None:
        super().__init__(0.0 if zero else SMALLEST_DECIDABLE, high)
        self.zero = zero

    def check(self, name, value, params):
        value = super().check(name, value, params)
        if value and value < SMALLEST_DECIDABLE:
            raise ParameterError(f"{name} must be 0 or at least {SMALLEST_DECIDABLE:g} (the smallest discrepancy a "
                                 f"decision can resolve), got {value:g}")
        return value

    def describe(self):
        return ("0 or " if self.zero else "") + f"number in [{SMALLEST_DECIDABLE:g}, {self.high or '∞'}]"


class Budget(Rule):
    """An attribute budget: an integer with low ≤ k ≤ params[of] (the rule 1 ≤ k ≤ d, once).

    ``even`` asks for an even budget (cbss11's Figures 1 and 2 split k in two halves).
    """

    def __init__(self, of: str = "d", *, low: int = 1, even: bool = False) -> None:
        self.of, self.low, self.even = of, low, even

    def check(self, name, value, params):
        k = check_int(name, value, low=self.low)
        if self.even and k % 2:
            raise ParameterError(f"{name} must be even (the budget is split in two halves), got {k}")
        top = params.get(self.of)
        if top is not None and k > top:
            raise ParameterError(f"{name} must not exceed {self.of} (the number of attributes): {name}={k}, "
                                 f"{self.of}={top}")
        return k

    def describe(self):
        return f"{'even ' if self.even else ''}integer budget, {self.low} ≤ value ≤ {self.of}"


class Options(Rule):
    """One of a fixed set of strings."""

    def __init__(self, *choices: str) -> None:
        self.choices = choices

    def check(self, name, value, params):
        if value not in self.choices:
            raise ParameterError(f"{name} must be one of {', '.join(self.choices)}, got {value!r}")
        return value

    def describe(self):
        return "one of " + ", ".join(self.choices)


class Names(Rule):
    """A non-empty list of distinct names drawn from ``choices`` (e.g. designs)."""

    def __init__(self, *choices: str, allow_empty: bool = False) -> None:
        self.choices, self.allow_empty = choices, allow_empty

    def check(self, name, value, params):
        value = tuple(value)
        if not value and not self.allow_empty:
            raise ParameterError(f"{name} must list at least one name")
        if len(set(value)) != len(value):
            raise ParameterError(f"{name} must not repeat a name, got {','.join(map(str, value))}")
        unknown = [v for v in value if v not in self.choices]
        if unknown:
            raise ParameterError(f"unknown {name} {', '.join(map(repr, unknown))}; known: {', '.join(self.choices)}")
        return value

    def describe(self):
        return "list of names among " + ", ".join(self.choices)


class Grid(Rule):
    """A list of values, each checked by ``item``, with at least ``distinct`` distinct values."""

    def __init__(self, item: Rule, *, distinct: int = 3) -> None:
        self.item, self.distinct = item, distinct

    def check(self, name, value, params):
        values = tuple(self.item.check(f"each value of {name}", v, params) for v in value)
        if len(set(values)) < self.distinct:
            raise ParameterError(f"{name} needs at least {self.distinct} distinct values, got "
                                 f"{','.join(map(str, values))}")
        return values

    def describe(self):
        return f"list of at least {self.distinct} distinct values, each an {self.item.describe()}"


class Flag(Rule):
    """True or false."""

    def check(self, name, value, params):
        if not isinstance(value, bool | np.bool_):
            raise ParameterError(f"{name} must be true or false, got {value!r}")
        return bool(value)

    def describe(self):
        return "true or false"


def default_rule(name: str, value) -> Rule | None:
    """The rule of a parameter that a claim declares none for, from its name and its profile's value:
    an error rate (``delta``, ``delta_*``, ``*_delta``) or a resolution by name, else any int64 integer or
    any number within :data:`LARGEST`, or a list of them. None for the other types (strings, flags)."""
    if isinstance(value, tuple):
        item = default_rule(name, value[0]) if value else None
        return None if item is None else Grid(item, distinct=1)
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, Integral):
        return Integer()
    if isinstance(value, Real):
        words = name.split("_")
        if "delta" in words:
            return Probability()
        return Resolution(zero=True) if "resolution" in words else Number()
    return None


def validate(rules: dict[str, Rule], params: dict) -> None:
    """Check every parameter of ``params`` against its declared rule, or against :func:`default_rule` when
    it has none (budgets after the sizes they refer to). Raises :class:`ParameterError` naming the first bad
    value."""
    rules = {**{name: default_rule(name, value) for name, value in params.items()}, **rules}
    order = sorted((name for name in rules if rules[name] is not None),
                   key=lambda name: isinstance(rules[name], Budget | Grid))
    for name in order:
        if name in params:
            rules[name].check(name, params[name], params)


# ---------------------------------------------------------------------------------------
# the output folder, checked before any work


#: bytes that the files written under an output folder add to its path, at most (a cached task's
#: ``.cache/<claim>/<key>/.task-<r>.json.<pid>.<random>.tmp`` with a claim id of up to 60 characters)
OUTPUT_PATH_ROOM = 160
#: bytes written (and removed) to show that the output folder can be written and has room
PROBE_BYTES = 64 * 1024


def check_output_folder(path, *, option: str = "--out", files=(), folders=()) -> Path:
    """The output folder ``path`` as a Path, checked before any work: a path the system can hold
    (no component past NAME_MAX, no file under it past PATH_MAX), no dangling symbolic link on the
    way, a folder (or one that can be created) into which a probe of :data:`PROBE_BYTES` can be
    written, and none of ``folders`` (relative paths) a file nor any of ``files`` a folder."""
    if not isinstance(path, str | os.PathLike):
        raise ParameterError(f"{option} must be a folder path, got {path!r}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(f"{option} must name a folder, got an empty path")
    what = f"{option} {text if len(text) <= 80 else text[:40] + '…' + text[-20:]!r}"
    absolute = os.path.abspath(text)
    name_max, path_max = _path_limit("PC_NAME_MAX", 255), _path_limit("PC_PATH_MAX", 4096)
    long = next((part for part in Path(absolute).parts if len(os.fsencode(part)) > name_max), None)
    if long is not None:
        raise ParameterError(f"{what} has a name of {len(os.fsencode(long))} bytes ({long[:16]}…); the file "
                             f"system allows at most {name_max} (NAME_MAX)")
    if len(os.fsencode(absolute)) + OUTPUT_PATH_ROOM > path_max:
        raise ParameterError(f"{what} is {len(os.fsencode(absolute))} bytes long: with the {OUTPUT_PATH_ROOM} bytes "
                             f"its files add, paths would pass the system's limit of {path_max} (PATH_MAX)")
    out = Path(text)
    for step in (out, *out.parents):
        if step.is_symlink() and not step.exists():
            raise ParameterError(f"{what}: {step} is a symbolic link to {os.readlink(step)}, which does not exist")
    existing = next((step for step in (out, *out.parents) if step.exists()), Path("."))
    if not existing.is_dir():
        raise ParameterError(f"{what} is not a folder (a file {existing} exists" +
                             (")" if existing == out else " on the way)"))
    for name in folders:
        inner = out / name
        if (inner.is_symlink() or inner.exists()) and not inner.is_dir():
            raise ParameterError(f"{what}: {inner} is a file where a folder is expected (remove or rename it)")
    for name in files:
        if (out / name).is_dir():
            raise ParameterError(f"{what}: {out / name} is a folder where a file is expected (remove or rename it)")
    escape = _link_out_of(out, folders, {str(Path(name).parent) for name in files})
    if escape is not None:
        raise ParameterError(f"{what}: {escape} is a symbolic link to {os.readlink(escape)}, outside the output "
                             "folder, and a run writes only inside it (remove the link)")
    try:
        _probe(existing)
    except OSError as err:
        raise ParameterError(f"{what} cannot be written: {err.strerror or err} (a probe of {PROBE_BYTES // 1024} "
                             f"KiB in {existing})") from None
    return out


#: how deep below each folder a run writes into :func:`_link_out_of` looks for links to folders
#: (``.cache/<claim>/<key>``, ``.power/<claim>/<defect>``: 2; one more for good measure)
LINK_DEPTH = 3


def _link_out_of(out: Path, folders, ways) -> Path | None:
    """The first symbolic link that a write would follow out of ``out``: on the way to one of ``folders``
    or ``ways`` (relative to ``out``), or a link to a folder at most :data:`LINK_DEPTH` levels inside one
    of ``folders`` that exists (a cached run, a planted-defect run); None when there is none. A file
    that is a link is replaced, not followed, and ``out`` itself may be a link: the user named it."""
    root = os.path.realpath(out)

    def outside(path) -> bool:
        target = os.path.realpath(path)
        return target != root and not target.startswith(root.rstrip(os.sep) + os.sep)

    for name in (*folders, *ways):
        step = out
        for part in Path(name).parts:
            step = step / part
            if step.is_symlink() and outside(step):
                return step
    for name in folders:
        top = out / name
        for folder, dirs, _ in os.walk(top) if top.is_dir() and not top.is_symlink() else ():
            for entry in dirs:
                if os.path.islink(os.path.join(folder, entry)) and outside(os.path.join(folder, entry)):
                    return Path(folder, entry)
            if len(Path(folder).relative_to(top).parts) + 1 >= LINK_DEPTH:
                dirs.clear()
    return None


def _path_limit(name: str, default: int) -> int:
    try:
        return int(os.pathconf("/", name))
    except (OSError, ValueError):
        return default


def _probe(folder: Path) -> None:
    """Write :data:`PROBE_BYTES` to a new file in ``folder``, flush them to the disk, remove it."""
    fd, name = tempfile.mkstemp(prefix=".theorycheck-probe-", dir=folder)
    try:
        os.write(fd, bytes(PROBE_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(name)


def check_jobs(jobs: int, option: str = "--jobs") -> int:
    """The number of parallel workers that ``jobs`` asks for, as joblib reads it: a positive count (at most the
    machine's cores), or a negative one counted back from every core (−1: all of them, −2: all but one).
    The one place a ``--jobs`` becomes a count: every pool is made with what this returns, never with ``jobs``."""
    import os

    cores = os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise ParameterError(f"{option} must be an int (-1: every core); got {jobs!r}")
    if jobs == 0 or jobs < -cores:
        raise ParameterError(f"{option} must be a positive number of workers, or -1 (every core) down to -{cores} "
                             f"(one core), got {jobs}")
    if jobs > cores:
        raise ParameterError(f"{option} {jobs} exceeds the {cores} cores of this machine; use at most {cores} "
                             "(or -1 for all of them)")
    return jobs if jobs > 0 else cores + 1 + jobs
