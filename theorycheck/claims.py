"""Claim, Evidence and the registry.

A claim is one statement of one paper. It is declared as a small class (the shape of
benchopt's Objective/Solver plugins): class attributes describe it, and three methods say how
it is checked:

* :meth:`Claim.tasks` lists independent units of work (one repetition, one grid point...);
* :meth:`Claim.measure` runs one task with its own random stream and returns a
  :class:`Measurement` (tidy rows plus the hypotheses checked on the instance it built);
* :meth:`Claim.decide` turns the table of all rows into :class:`Evidence` with a verdict.

The runner owns seeds, caching and parallelism, so a claim never sees run order or job count.
Claims are found by importing every module of the ``proofs`` and ``simulations`` packages, the
modules named by the ``theorycheck.claims`` entry points of installed packages, and the modules a
command names with ``--claims`` (:func:`load_claims`). A claim's id is ``<paper>.<item>``; a paper
outside the five built-in ones is declared once with :func:`declare_paper`.
"""

from __future__ import annotations

import contextlib
import fnmatch
import importlib
import inspect
import os
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .entry_points import CLAIMS_ENTRY_POINTS
from .validation import ParameterError, Rule, validate
from .verdicts import DECIDED

KINDS = ("exact", "bound", "frequency", "pathwise", "rate", "lower-bound", "comparison", "reproduction")
#: run profiles: quick (CI), full (the default evidence), paper (paper-scale sweeps; falls back to full)
PROFILES = ("quick", "full", "paper")
PAPERS = {
    "cbss11": (
        "Cesa-Bianchi, Shalev-Shwartz, Shamir (JMLR 2011), Efficient learning with partially observed attributes"
    ),
    "hk12": "Hazan, Koren (ICML 2012), Linear regression with limited observation",
    "ks15": (
        "Kukliansky, Shamir (ICML 2015), Attribute efficient linear regression with distribution-dependent sampling"
    ),
    "reyzin11": "Reyzin (ICML 2011), Boosting on a budget",
    "sk13": "Sabato, Kalai (ICML 2013), Feature multi-selection among subjective features",
}
#: the five papers' keys, which a user's claims cannot declare again
RESERVED_PAPERS = frozenset(PAPERS)
ENTRY_POINTS = CLAIMS_ENTRY_POINTS
_PAPER_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
_ID = re.compile(r"^([a-z][a-z0-9_]*)\.[A-Za-z0-9][A-Za-z0-9.\-]*$")


class SubjectFailure(Exception):
    """Raised by a kind when a subject's output breaks the theorem's conclusion outright: it is not
    finite, has the wrong shape, or lies outside the feasible set; or when the subject reports fewer
    attributes than it was observed to read (:func:`theorycheck.observe.counted_fit`). The runner makes it a FAIL whose
    reason is this message, and runs no more tasks of that claim."""


class Unfinished(NotImplementedError):
    """Raised by a hook that is not written yet, e.g. ``raise Unfinished("bound(p)", "return the right-hand
    side at the parameters p")`` (the skeletons of ``theorycheck new`` do). The runner makes the claim ERROR
    with one line naming what to write, and no traceback; a hook a kind requires and a claim does not define
    (the kind's own ``raise NotImplementedError``) is reported the same way."""

    def __init__(self, hook: str, what: str = "") -> None:
        self.hook, self.what = hook, what
        super().__init__(f"{hook}: {what}" if what else hook)


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a theorem, checked on the instance actually built."""

    statement: str
    met: bool
    detail: str = ""


#: how an erratum meets the standard (see :class:`Erratum`)
ERRATUM_BASES = ("counterexample", "derivation", "run")


@dataclass(frozen=True)
class Erratum:
    """A statement of a paper that is false, established by a claim and declared beside it.

    The standard: the statement is shown false exactly, by a counterexample or a derivation
    (exact enumeration in rational arithmetic counts as either), or a run on an instance that
    meets the paper's hypotheses contradicts it decisively and a second run on a fresh seed, not
    used to find it, confirms that. A number we fail to reach is not an erratum but a
    :class:`NonReproduction`.

    ``key`` is short and unique within the claim (errata and non-reproductions together);
    ``where`` locates the statement ("Theorem 3.4, statement"); ``printed`` says what the paper
    prints and ``holds`` what holds instead. ``basis`` is one of :data:`ERRATUM_BASES` and
    ``evidence`` says in a sentence or two what meets the standard: the counterexample, the
    derivation or the enumeration the claim runs, or the runs with their seeds. The evidence of
    one run is the text the claim's decision attaches under the same key (:attr:`Evidence.errata`).
    """

    key: str
    where: str
    printed: str
    holds: str
    basis: str
    evidence: str

    def __post_init__(self) -> None:
        if self.basis not in ERRATUM_BASES:
            raise ValueError(f"erratum {self.key!r}: basis must be one of {ERRATUM_BASES}, got {self.basis!r}")
        if not self.evidence.strip():
            raise ValueError(f"erratum {self.key!r}: state the evidence that meets the standard")


@dataclass(frozen=True)
class NonReproduction:
    """A published number or ordering that our implementation does not reach.

    It is not a claim that the paper is wrong: ``printed`` is what the paper reports, ``ours``
    what our runs give, ``tried`` what was done to reach it (grids and their edges, protocols,
    profiles). ``key`` and ``where`` are as for :class:`Erratum`; a run's evidence goes under the
    same key in :attr:`Evidence.errata`.
    """

    key: str
    where: str
    printed: str
    ours: str
    tried: str
    #: the runs that found it and confirmed it on a fresh seed (profile and seeds), so that a recurrence
    #: is recognised as recorded (exit status 0) and a new result against the paper is not (4)
    seeds: str = ""

    def __post_init__(self) -> None:
        for name in ("where", "printed", "ours", "tried"):
            if not getattr(self, name).strip():
                raise ValueError(f"non-reproduction {self.key!r}: {name} is empty")


@dataclass(frozen=True)
class Defect:
    """A planted defect in a claim's subject, declared with the claim (its power table).

    ``subjects`` maps subject names to ``module:attribute`` specs (resolved only by the tests,
    so the library never imports them); ``overrides`` are ``--set`` values the defect needs.
    ``caught`` says whether the quick profile turns the verdict to FAIL; when it does not,
    ``why`` gives the reason. The tests run every declared defect and assert exactly this, so
    the power section of each page is the tests' own result. ``idea`` marks the defect that
    removes the paper's idea (uniform q in a distribution-dependent learner, an under-counted read
    against a lower bound, ...): the power atlas of the index reports its verdict per claim.
    """

    name: str
    subjects: dict[str, str]
    caught: bool = True
    why: str = ""
    overrides: dict[str, str] = field(default_factory=dict)
    idea: bool = False


@dataclass
class Measurement:
    """What one task produced: tidy rows and the hypotheses it checked."""

    rows: list[dict[str, Any]]
    hypotheses: list[Hypothesis] = field(default_factory=list)


@dataclass(frozen=True)
class Plot:
    """Declarative figure over the columns of :attr:`Evidence.summary`.

    ``y`` is the observed value, ``theory`` the theoretical one; ``low``/``high`` give the
    interval the decision uses (labelled by ``band_label``); ``hue`` separates series. ``kind`` is
    "line" (x numeric), "point" (x categorical) or "residual" (y − theory with its interval, for
    many coordinates at once).
    """

    x: str
    y: str
    theory: str | None = None
    low: str | None = None
    high: str | None = None
    hue: str | None = None
    logx: bool = False
    logy: bool = False
    kind: str = "line"
    xlabel: str | None = None
    ylabel: str | None = None
    #: what the low/high band is, e.g. "99.9% interval that decides (empirical Bernstein ∩ Anderson)"
    band_label: str | None = None
    #: what the theory column is, e.g. "bound 4B²√(2d/(km))"
    theory_label: str | None = None
    #: column with the trivial learner's value (drawn as its own line), if any
    trivial: str | None = None
    #: column with the largest value the decision still calls PASS (bound + resolution), if any
    resolution: str | None = None


@dataclass
class Evidence:
    """The outcome of a claim: verdict, headline numbers, tables and the decision rule."""

    verdict: str
    observed: float | None
    theory: float | None
    decision: str
    delta: float | None = None
    ratio: float | None = None
    #: the interval that decides around ``observed``, in its units, when the headline number has one
    #: (the tightness atlas draws it over the bound, so a point right of the line that PASSes is read right)
    interval: tuple[float, float] | None = None
    summary: pd.DataFrame | None = None
    plot: Plot | None = None
    notes: list[str] = field(default_factory=list)
    #: evidence from this run for the claim's declared errata and non-reproductions, by key
    errata: dict[str, str] = field(default_factory=dict)
    #: the trivial learner's value beside the bound, for claims about learners
    trivial: float | None = None
    #: True when the check could not have failed on this instance (the trivial learner also meets the
    #: bound, or the statistic is constant): such an instance is never PASS
    vacuous: bool = False
    #: why the instance is vacuous, as a clause ("the statistic is constant on design X");
    #: empty means the trivial learner also meets the bound
    vacuous_reason: str = ""
    #: a comparison's findings, one dict each: ``finding``, ``relation``, ``margin``, ``estimate``,
    #: ``low``, ``high``, ``outcome`` (stats.OUTCOMES), ``decides``, ``runs``, ``cap``, ``needs``
    findings: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.verdict not in DECIDED:
            raise ValueError(f"unknown verdict {self.verdict!r}")


def _coerce(name: str, default: Any, text: str) -> Any:
    """Parse ``text`` with the type of ``default`` (the profile's value fixes the type)."""
    try:
        if isinstance(default, bool):
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            value = float(text)
            if not np.isfinite(value):
                raise ValueError
            return value
        if isinstance(default, tuple):
            return tuple(_coerce(name, default[0], part) for part in text.split(","))
        return str(text)
    except (ValueError, IndexError):
        kinds = {bool: "true or false", int: "an integer", float: "a finite number", str: "a string"}
        kind = "a comma-separated list" if isinstance(default, tuple) else kinds.get(type(default), "a value")
        raise ParameterError(f"parameter {name} must be {kind}, got {text!r}") from None


class Claim:
    """Base class of every claim. Subclasses set the class attributes and the methods."""

    id: ClassVar[str]
    title: ClassVar[str]
    statement: ClassVar[str]
    reference: ClassVar[str]
    kind: ClassVar[str]
    hypotheses: ClassVar[tuple[str, ...]] = ()
    #: why the run checks none of the hypotheses on the instance it builds, in a sentence, for a claim
    #: whose measurements check none of them (its page says so; without it, a generic line)
    unchecked: ClassVar[str] = ""
    interpretation: ClassVar[str] = ""
    subjects: ClassVar[dict[str, Any]] = {}
    #: the protocol each subject follows (theorycheck.protocols); checked before any work
    protocols: ClassVar[dict[str, Any]] = {}
    #: declared rules of the parameters (theorycheck.validation), checked in one place
    parameters: ClassVar[dict[str, Rule]] = {}
    #: parameters shared by every profile; ``profiles`` lists only what differs
    base: ClassVar[dict[str, Any]] = {}
    profiles: ClassVar[dict[str, dict[str, Any]]] = {}
    errata: ClassVar[tuple[Erratum, ...]] = ()
    non_reproductions: ClassVar[tuple[NonReproduction, ...]] = ()
    defects: ClassVar[tuple[Defect, ...]] = ()
    #: what the claim can catch and what it cannot, in a sentence or two
    power: ClassVar[str] = ""
    #: where its power is limited in kind, a short phrase the power atlas prints under the claim (e.g. a bound no
    #: honest learner comes near: "catches only cheats"); "" when no such limit is declared
    power_scope: ClassVar[str] = ""
    #: True when the claim's observed/theory ratio must be at least 1 (a lower bound, or the slack of
    #: an implication), so the tightness atlas draws it on the "≥" side of the line
    ratio_at_least: ClassVar[bool] = False
    #: the space its statement quantifies over (a theorycheck.spaces.Space), which `theorycheck search` explores;
    #: None: not declared yet
    space: ClassVar[Any] = None
    #: why the claim declares no space, in a sentence (a fixed real dataset, a statement with no free quantity,
    #: a kind the search has no margin for); a claim of the five papers declares a space or this
    no_space: ClassVar[str] = ""
    #: what the headline number ``observed`` is, as a noun phrase ("the largest ratio of E‖g̃‖₂² to 8B²d/k
    #: over the cases"), so that a page says what is observed, not only its value; a kind whose headline is
    #: always the same quantity declares it for its claims
    observed_label: ClassVar[str] = ""

    # ------------------------------------------------------------------ declared API
    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    def check_params(self, params: dict[str, Any]) -> None:
        """Raise :class:`ParameterError` for values the declared rules cannot express (rules that
        tie several parameters together); the declared :attr:`parameters` are checked first."""

    def profile(self, name: str) -> dict[str, Any]:
        """The parameters of profile ``name``: the shared :attr:`base` updated by the profile.

        ``paper`` is optional: a claim whose paper-scale run does not fit the full profile's
        time budget declares it; every other claim runs its full profile there."""
        if name == "paper" and name not in self.profiles:
            name = "full"
        if name not in self.profiles:
            raise ParameterError(f"{self.id} has no profile {name!r} (has {sorted(self.profiles)})")
        return {**self.base, **self.profiles[name]}

    def tasks(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Independent units of work; each gets its own random stream."""
        return [{}]

    def measure(self, params, task, subjects, seed: np.random.SeedSequence) -> Measurement:
        raise NotImplementedError

    def decide(self, params, table: pd.DataFrame) -> Evidence:
        raise NotImplementedError

    def extend(self, params, table: pd.DataFrame, tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Further tasks, asked for after the measurements so far (``table``, from ``tasks``): the
        hook of a group-sequential design (:func:`theorycheck.stats.decide_sequential`). The runner
        calls it after each round until it returns none; task r keeps its own stream whatever the
        round, so the result does not depend on how the rounds fall. Default: a fixed design."""
        return []

    # ------------------------------------------------------------------ helpers
    def params_for(self, profile: str, overrides: dict[str, str] | None = None) -> dict[str, Any]:
        """The profile's parameters with ``overrides`` (strings from ``--set``) applied."""
        params = self.profile(profile)
        try:
            for name, text in (overrides or {}).items():
                if name in params:
                    params[name] = _coerce(name, params[name], text)
            validate(self.parameters, params)
            self.check_params(params)
        except ParameterError as err:
            raise ParameterError(f"{self.id}: {err}") from None
        return params

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "paper": self.paper,
            "citation": PAPERS.get(self.paper, ""),
            "module": type(self).__module__,
            "source": declared_at(type(self)),
            "kind": self.kind,
            "title": self.title,
            "reference": self.reference,
            "statement": self.statement,
            "hypotheses": list(self.hypotheses),
            "unchecked": self.unchecked,
            "interpretation": self.interpretation,
            "subjects": {name: subject_name(obj) for name, obj in self.subjects.items()},
            "protocols": {name: getattr(proto, "__name__", str(proto)) for name, proto in self.protocols.items()},
            "profiles": {k: {n: _jsonable(v) for n, v in self.profile(k).items()} for k in self.profiles},
            "errata": [dict(vars(e)) for e in self.errata],
            "non_reproductions": [dict(vars(n)) for n in self.non_reproductions],
            "defects": [{"name": d.name, "caught": d.caught, "why": d.why, "idea": d.idea} for d in self.defects],
            "power": self.power,
            "ratio_at_least": self.ratio_at_least or self.kind == "lower-bound",
            "space": None if self.space is None else self.space.lines(),
            "no_space": self.no_space,
            "observed_label": self.observed_label,
        }


def declared_at(cls: type) -> str:
    """Where ``cls`` is declared, as ``path:line`` with the path from the folder that holds its top-level package
    (``simulations/hk12_regret.py:40``; a user's ``mypackage/claims.py:12``); its module's name where there is
    no source file."""
    try:
        path, (lines, line) = Path(inspect.getsourcefile(cls)), inspect.getsourcelines(cls)
        line += next((n for n, text in enumerate(lines) if text.lstrip().startswith("class ")), 0)  # past decorators
    except (OSError, TypeError):
        return cls.__module__
    top = sys.modules.get(cls.__module__.partition(".")[0])
    top_file = getattr(top, "__file__", None)
    if top_file is not None:
        root = Path(top_file).resolve().parent
        root = root.parent if root.name == cls.__module__.partition(".")[0] else root
        with contextlib.suppress(ValueError):
            path = path.resolve().relative_to(root)
    return f"{path.as_posix()}:{line}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def subject_name(obj: Any) -> str:
    """A readable, stable name for a subject (function, class, instance or a tuple of them)."""
    if isinstance(obj, tuple | list):
        return "(" + ", ".join(subject_name(o) for o in obj) + ")"
    module = getattr(obj, "__module__", None) or type(obj).__module__
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{module}.{name}"


# ---------------------------------------------------------------------- registry
_REGISTRY: dict[str, Claim] = {}
_DISCOVERED = False


def register(cls: type[Claim]) -> type[Claim]:
    """Class decorator: validate the declaration and add one instance to the registry."""
    match = _ID.match(getattr(cls, "id", None) or "")
    if match is None:
        raise TypeError(f"claim id {getattr(cls, 'id', None)!r} is not of the form <paper>.<item> (paper: "
                        "lower-case letters, digits and _, starting with a letter; item: letters, digits, '.' "
                        "and '-')")
    if match.group(1) not in PAPERS:
        raise TypeError(f"claim id {cls.id!r}: its paper {match.group(1)!r} is not declared; call "
                        f"theorycheck.declare_paper({match.group(1)!r}, 'Authors (Venue Year), Title') in the "
                        "module before its claims")
    if cls.kind not in KINDS:
        raise TypeError(f"{cls.id}: kind must be one of {KINDS}")
    for needed in ("quick", "full"):
        if needed not in cls.profiles:
            raise TypeError(f"{cls.id}: missing the {needed!r} profile")
    quick, full = {**cls.base, **cls.profiles["quick"]}, {**cls.base, **cls.profiles["full"]}
    paper = {**cls.base, **cls.profiles.get("paper", cls.profiles["full"])}
    if not set(quick) == set(full) == set(paper):
        raise TypeError(f"{cls.id}: the quick, full (and paper) profiles must declare the same parameters")
    unknown = sorted(set(cls.profiles) - set(PROFILES))
    if unknown:
        raise TypeError(f"{cls.id}: unknown profiles {unknown} (profiles are {PROFILES})")
    undeclared = sorted(set(cls.parameters) - set(quick))
    if undeclared:
        raise TypeError(f"{cls.id}: rules for parameters no profile has: {', '.join(undeclared)}")
    keys = [e.key for e in (*cls.errata, *cls.non_reproductions)]
    if len(set(keys)) != len(keys):
        raise TypeError(f"{cls.id}: the keys of its errata and non-reproductions must be unique")
    if not all(isinstance(e, Erratum) for e in cls.errata):
        raise TypeError(f"{cls.id}: errata must be Erratum declarations")
    if not all(isinstance(n, NonReproduction) for n in cls.non_reproductions):
        raise TypeError(f"{cls.id}: non_reproductions must be NonReproduction declarations")
    if cls.space is not None and cls.no_space:
        raise TypeError(f"{cls.id}: declares both a space and no_space (a reason for having none)")
    if cls.space is not None:
        from .spaces import space_of

        space_of(cls).check(quick, cls.id, cls.errata)
    if cls.id in _REGISTRY and type(_REGISTRY[cls.id]) is not cls:
        raise TypeError(f"claim id {cls.id} registered twice")
    _REGISTRY[cls.id] = cls()
    return cls


def declare_paper(key: str, citation: str) -> str:
    """Declare the paper that claims ``<key>.<item>`` check, with the citation their pages show
    (e.g. ``"Doe, Roe (COLT 2027), A bound on sampled gradients"``); returns ``key``.

    Call it once, in the module that registers the claims, before them. Declaring a key again
    with the same citation does nothing (a module may be imported twice); the five built-in
    papers' keys are reserved."""
    if not isinstance(key, str) or not _PAPER_KEY.match(key):
        raise TypeError(f"paper key {key!r} must be lower-case letters, digits and _, starting with a letter")
    if not isinstance(citation, str) or not citation.strip():
        raise TypeError(f"paper {key!r}: the citation must be a non-empty string")
    if key in RESERVED_PAPERS:
        raise TypeError(f"paper key {key!r} is reserved for the built-in paper {PAPERS[key]}")
    if PAPERS.get(key, citation) != citation:
        raise TypeError(f"paper {key!r} is already declared as {PAPERS[key]!r}")
    PAPERS[key] = citation
    return key


def load_claims(modules) -> None:
    """Import the claims modules named in ``modules`` (dotted names; the current folder is searched
    too, as ``python -m`` would). A module that cannot be imported, that exits, aborts or hangs when a process
    of its own imports it first, or whose declarations are invalid, is a :class:`ParameterError` naming it."""
    discover()
    for name in modules or ():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", name):
            raise ParameterError(f"--claims {name!r} is not a module name (dotted, like mypkg.claims)")
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        if name not in sys.modules:  # first in a process of its own: one that exits there cannot end this run
            from .run.probe import expose, import_in_worker

            ended = import_in_worker(name)
            if ended is not None:
                raise ParameterError(f"cannot import the claims module {name!r}: importing it {ended}")
            expose(name)
        where = os.getcwd()
        try:
            _import_claims(name, f"claims module {name!r}")
        finally:
            if os.getcwd() != where:  # a module that changed the folder at import: --out stays where it was meant
                os.chdir(where)


def _import_claims(name: str, what: str) -> None:
    try:
        importlib.import_module(name)
    except Exception as err:  # any failure of a user's module, reported in one line
        reason = f"{type(err).__name__}: {err}".splitlines()[0]
        raise ParameterError(f"cannot import the {what}: {reason}") from None


def discover() -> dict[str, Claim]:
    """Import every module of ``proofs`` and ``simulations`` and of the installed packages'
    ``theorycheck.claims`` entry points, and return the registry."""
    global _DISCOVERED
    if not _DISCOVERED:
        _DISCOVERED = True
        for package_name in ("proofs", "simulations"):
            package = importlib.import_module(package_name)
            for info in pkgutil.iter_modules(package.__path__):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{package_name}.{info.name}")
        from importlib.metadata import entry_points

        for point in entry_points(group=ENTRY_POINTS):
            _import_claims(point.value.partition(":")[0],
                           f"claims module {point.value!r} of the entry point {point.name!r} ({ENTRY_POINTS})")
    return dict(sorted(_REGISTRY.items(), key=lambda item: natural_key(item[0])))


def built_in(claim: Claim) -> bool:
    """True for the claims of the five papers shipped with theorycheck."""
    return type(claim).__module__.split(".", 1)[0] in ("proofs", "simulations")


def natural_key(claim_id: str) -> tuple:
    """Sort key that puts lemma7 before lemma10 and thm3.1 before thm3.10."""
    return tuple(int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", claim_id))


def select(patterns: list[str] | None, paper: str | None = None) -> list[Claim]:
    """Claims whose id matches any pattern (exact id or shell glob, case-insensitive); all when
    none given."""
    registry = discover()
    if paper is not None and paper not in PAPERS:
        raise ParameterError(f"unknown paper {paper!r}; known papers: {', '.join(PAPERS)}")
    chosen: list[Claim] = []
    for pattern in patterns or ["*"]:
        hits = [c for cid, c in registry.items() if fnmatch.fnmatchcase(cid.lower(), pattern.lower())]
        if not hits:
            raise ParameterError(
                f"no claim matches {pattern!r}; run `theorycheck list` to see the ids"
            )
        chosen.extend(h for h in hits if h not in chosen)
    if paper is not None:
        chosen = [c for c in chosen if c.paper == paper]
    return chosen
