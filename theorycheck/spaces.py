"""The space a claim's statement quantifies over, declared beside the claim.

A claim that can be searched sets ``space = Space(...)``: the parameters its statement says "for every" of,
each with a range (:class:`Int`, :class:`Real`, log scale where the paper's quantities vary by orders of
magnitude) or a set of choices (:class:`Choice`), the constraints its hypotheses put between them
(:func:`at_most`, :class:`Constraint`), and ``fixed``: ``--set`` values applied at every point (the parts of
a claim that a point does not need, e.g. a rate grid). A point is a dict {parameter: value}; it maps to the
claim's ``--set`` overrides with :meth:`Space.overrides`, and a point that breaks a constraint, or that the
claim's own parameter rules refuse, is infeasible: it is never run, and never a counterexample.

The space is part of the declaration, fixed from the paper before any search (decide before you look); its
comment says what bounds the ranges (a trial's cost on the quick profile).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .validation import ParameterError


@dataclass(frozen=True)
class Int:
    """An integer in [low, high], sampled on a log scale when ``log``."""

    low: int
    high: int
    log: bool = False

    def __post_init__(self) -> None:
        if not (isinstance(self.low, int) and isinstance(self.high, int)) or self.low > self.high:
            raise TypeError(f"Int needs integers low ≤ high, got {self.low!r}, {self.high!r}")
        if self.log and self.low < 1:
            raise TypeError("Int on a log scale needs low ≥ 1")

    def text(self) -> str:
        return f"integer in [{self.low}, {self.high}]" + (", log scale" if self.log else "")

    def contains(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high


@dataclass(frozen=True)
class Real:
    """A real number in [low, high], sampled on a log scale when ``log``."""

    low: float
    high: float
    log: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low > self.high:
            raise TypeError(f"Real needs finite low ≤ high, got {self.low!r}, {self.high!r}")
        if self.log and self.low <= 0:
            raise TypeError("Real on a log scale needs low > 0")

    def text(self) -> str:
        return f"real in [{self.low:g}, {self.high:g}]" + (", log scale" if self.log else "")

    def contains(self, value: Any) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and self.low <= value <= self.high


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (strings, as ``--set`` takes them; a design name, a rule)."""

    options: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.options or not all(isinstance(o, str) and o for o in self.options):
            raise TypeError("Choice needs one or more non-empty strings")

    def text(self) -> str:
        return "one of " + ", ".join(self.options)

    def contains(self, value: Any) -> bool:
        return value in self.options


Dimension = Int | Real | Choice


@dataclass(frozen=True)
class Constraint:
    """A hypothesis tying parameters together: ``holds(point)`` is True where it is met. ``statement`` is
    what `theorycheck show` prints (e.g. "k ≤ d")."""

    statement: str
    holds: Callable[[Mapping[str, Any]], bool]


def at_most(small: str, large: str, factor: float = 1.0) -> Constraint:
    """``small ≤ factor · large`` (k ≤ d; k ≤ 2d with ``factor`` 2)."""
    where = large if factor == 1 else f"{factor:g}·{large}"
    return Constraint(f"{small} ≤ {where}", lambda p: p[small] <= factor * p[large])


def even(name: str) -> Constraint:
    """``name`` is even (AER's and Baseline's budgets)."""
    return Constraint(f"{name} even", lambda p: p[name] % 2 == 0)


@dataclass(frozen=True)
class Space:
    """What a claim's statement quantifies over (see the module docstring).

    ``dims``: parameter name → :class:`Int`, :class:`Real` or :class:`Choice`; ``constraints``: the
    hypotheses between them; ``fixed``: ``--set`` values every point gets; ``why``: a sentence on where the
    ranges come from and what bounds them (the paper's quantifier, a trial's cost)."""

    dims: Mapping[str, Dimension]
    constraints: tuple[Constraint, ...] = ()
    fixed: Mapping[str, str] = field(default_factory=dict)
    why: str = ""
    #: the claim's recorded errata that make its printed statement false in part of the space: erratum key →
    #: where it applies. A confirmed counterexample there is reported as that erratum, rediscovered (not a new
    #: finding: exit status 0); anywhere else it is new
    errata: Mapping[str, Constraint] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.dims:
            raise TypeError("a Space needs at least one dimension")
        clash = sorted(set(self.dims) & set(self.fixed))
        if clash:
            raise TypeError(f"a Space cannot both search and fix {', '.join(clash)}")

    def check(self, parameters: Mapping[str, Any], claim_id: str, errata=()) -> None:
        """Raise TypeError when the space names a parameter the claim's profiles do not have, or an erratum the
        claim does not record (at registration, so a misspelt space fails at import, never in a search)."""
        unknown = sorted((set(self.dims) | set(self.fixed)) - set(parameters))
        if unknown:
            raise TypeError(f"{claim_id}: its space names parameters no profile has: {', '.join(unknown)}")
        unrecorded = sorted(set(self.errata) - {e.key for e in errata})
        if unrecorded:
            raise TypeError(f"{claim_id}: its space names errata the claim does not record: {', '.join(unrecorded)}")

    def erratum_at(self, point: Mapping[str, Any]) -> str | None:
        """The key of the recorded erratum that applies at ``point``, if one does."""
        return next((key for key, where in self.errata.items() if where.holds(point)), None)

    def broken(self, point: Mapping[str, Any]) -> list[str]:
        """The statements of the constraints ``point`` breaks (empty: feasible as far as the space says;
        the claim's own parameter rules are checked when the point is planned)."""
        out = [f"{name} = {point.get(name)!r} outside {dim.text()}" for name, dim in self.dims.items()
               if not dim.contains(point.get(name))]
        return out or [c.statement for c in self.constraints if not c.holds(point)]

    def overrides(self, point: Mapping[str, Any]) -> dict[str, str]:
        """The ``--set`` values of ``point``: the fixed ones, then the point's, as the command line spells them."""
        missing = sorted(set(self.dims) - set(point))
        if missing:
            raise ParameterError(f"the point gives no value for {', '.join(missing)}")
        return {**self.fixed, **{name: _spelled(point[name]) for name in self.dims}}

    def lines(self) -> list[str]:
        """What `theorycheck show` prints, one line each."""
        out = [f"{name}: {dim.text()}" for name, dim in self.dims.items()]
        out += [f"constraint: {c.statement}" for c in self.constraints]
        if self.fixed:
            out.append("fixed at every point: " + " ".join(f"{k}={v}" for k, v in self.fixed.items()))
        out += [f"recorded erratum [{key}] where {where.statement}" for key, where in self.errata.items()]
        return out


def _spelled(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)  # round-trips exactly through float(text)
    return str(value)


def space_of(claim) -> Space | None:
    """The declared space of ``claim`` (a claim or its class), or None."""
    space = getattr(claim if isinstance(claim, type) else type(claim), "space", None)
    if space is not None and not isinstance(space, Space):
        raise TypeError(f"{claim.id}: space must be a theorycheck.search.Space")
    return space
