"""The common core of conformance: what one algorithm is (:class:`Spec`), one check's outcome (:class:`Check`),
the verdict over them (:class:`Conformance`), the budgets of the profiles, and the handling of a learner given
as a class, an instance or a function (:func:`configured`)."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np

from .. import stats
from ..claims import subject_name
from ..validation import ParameterError
from ..verdicts import NOT_RUN


def _no_options(d: int) -> dict:
    return {}


@dataclass(frozen=True)
class Spec:
    """What conformance needs to know about one algorithm of the papers."""

    builtin: str  # "module:attr"
    _: KW_ONLY  # every other field by its name
    law: Any = None  # (w, x, y, k, options) -> [(probability, outcome)], or None (then ``no_law`` says why)
    setting: str = "ridge"  # "ridge" or "lasso": the designs of the behaviour check
    params_from: str = "hk12.thm3.1"  # a claim whose quick parameters build the designs
    norm: str = "l2"  # "l2" or "l1": the ball of the theorems' conclusion
    extra_reads: int = 1  # the budget: at most k + extra_reads attributes read per example
    #: an algorithm that is not a regressor fit(X, y) -> coef_ brings its own checks: (make, own parameters or
    #: None, profile's budget, δ, SeedSequence) -> (assumed, [Check]); then ``names`` lists them (after claims)
    checks: Callable[..., tuple[dict, list]] | None = None
    names: tuple[str, ...] = ("parameters", "estimator", "step", "recording", "behaviour", "attributes")
    function: bool = False  # the subject is a function (GenEst), not a class or an instance
    draws: str = "gradient"  # what the estimator check reads: "gradient" (w_t, g̃_t) or "estimates" (A_t, v_t)
    step: str | None = "eta"  # the step-size keyword the estimator and audit runs pass (None: the default)
    options: Callable[[int], dict] = _no_options  # further keywords of every run, from d
    design_options: Callable[[Any], dict] = lambda design: {}  # further keywords of the behaviour runs
    designs: tuple = ("mixed", "boundary")  # design names, or (name, keywords both learners get there)
    design_params: dict = field(default_factory=dict)  # added to params_from's quick parameters
    shared: tuple[str, ...] = ("eta", "lam")  # fitted values of the built-in passed to yours (eta_ → eta=)
    lead: int = 0  # rows of the example shown before the two recorded steps (a phase 1)
    k: int = 2  # the default budget of conform
    #: the theorem's step size (d, k, m, B, options) -> η and its name, for the parameters check (``options``: the
    #: keywords of :attr:`options` at d, e.g. the second moments a distribution-dependent rule reads); None: the
    #: paper states no rule for this algorithm, and ``no_step`` says why
    theorem_step: tuple[Callable[[int, int, int, float, dict], float], str] | None = None
    no_step: str = "no step-size rule of the paper is declared here for this algorithm"
    start_in_ball: bool = False  # w̄ of a one-example fit is w_1, which must lie in the ball (line 1)
    no_law: str = "no exact law of this algorithm's estimate is available here, so nothing was checked"
    #: q, the law of the data-point draws of a run with these keywords at d (each draw weighted 1/(k q_i)), for the
    #: path check; None: not known to the checks (learnt in a phase 1), and the path check reads the steps only
    draw_law: Callable[[dict, int], np.ndarray] | None = None

    def budget(self, k: int) -> int:
        return k + self.extra_reads

    def budget_text(self) -> str:
        return "k" if self.extra_reads == 0 else f"k + {self.extra_reads}"


BUDGETS = {  # by profile: runs of the estimator check, seeds of the behaviour check, claims' profile, exact instances
    "quick": {"runs": 3000, "seeds": 150, "claims": "quick", "instances": 40},
    "full": {"runs": 20000, "seeds": 600, "claims": "full", "instances": 200},
}


#: the checks, in the order they are reported; ``optional`` names from these
CHECKS = ("claims", "parameters", "estimator", "step", "recording", "behaviour", "attributes", "objective", "training",
          "sampling")
#: the checks from the most specific to the least: the cause printed first is that of the first check here that is
#: not PASS (an exact law or audit points at the bug; behaviour compares outcomes; a claim is a theorem's verdict)
SPECIFICITY = ("attributes", "estimator", "step", "recording", "parameters", "objective", "training", "sampling",
               "behaviour", "claims")


@dataclass
class Check:
    """One check: its verdict, its decision, and ``cause``, the most specific reason of a verdict that is not
    PASS (one line). ``ran`` False: the learner could not take this check, or it does not apply to the algorithm
    (``decision`` says why); :class:`Conformance` says how it counts."""

    name: str
    verdict: str
    decision: str
    details: dict[str, Any] = field(default_factory=dict)
    ran: bool = True
    cause: str = ""
    raised: bool = False  # failed because the learner raised (``verify`` reports that as SUBJECT-ERROR)


def _not_run(name: str, why: str, details: dict | None = None) -> Check:
    return Check(name, stats.INCONCLUSIVE, why, details or {}, ran=False, cause=why)


def _unrecorded(name: str, why: str) -> Check:
    """Not run because the learner records no path: :data:`theorycheck.recording.TWO_LINES` would make it run."""
    return _not_run(name, why, {"unrecorded": True})


def recording_hint(checks) -> str:
    """One sentence naming the checks that did not run for want of a recorded path and the two lines that make
    them run ("" when there are none); ``checks`` are :class:`Check` or their stored dicts."""
    from ..recording import TWO_LINES

    def unrecorded(c):
        details = c.get("details") if isinstance(c, dict) else c.details
        return bool((details or {}).get("unrecorded")) or (isinstance(c, dict) and bool(c.get("unrecorded")))

    names = [c["name"] if isinstance(c, dict) else c.name for c in checks if unrecorded(c)]
    if not names:
        return ""
    return (f"The {' and '.join(names)} check{'s' * (len(names) > 1)} need{'s' * (len(names) == 1)} the learner's "
            f"path, which it does not record: {TWO_LINES}; the lemmas about the path run then too.")


@dataclass
class Conformance:
    """The result of :func:`conform`: one :class:`Check` per check and the combined verdict.

    The verdict combines every check (FAIL if any failed, PASS if all passed). A check the learner could not
    take (``ran`` False) counts as INCONCLUSIVE unless ``optional`` names it; one in ``inapplicable`` has
    nothing to check for this algorithm (no step-size rule declared, no exact law, no gradient step) and is
    left out. Nothing ran: INCONCLUSIVE. ``steps`` says which step size each run used; ``skipped`` names the
    checks the caller left out (the claims, with ``claims=False``)."""

    algorithm: str
    learner: str
    assumed: dict[str, Any]
    checks: list[Check]
    delta: float
    notes: list[str] = field(default_factory=list)
    optional: tuple[str, ...] = ()
    inapplicable: tuple[str, ...] = ()
    steps: str = ""
    skipped: tuple[str, ...] = ()

    @property
    def not_run(self) -> list[Check]:
        """The checks the learner could not take (not those that do not apply to the algorithm)."""
        return [c for c in self.checks if not c.ran and c.name not in self.inapplicable]

    @property
    def verdict(self) -> str:
        if not any(c.ran for c in self.checks):
            return stats.INCONCLUSIVE
        return stats.combine(c.verdict if c.ran else stats.INCONCLUSIVE for c in self.checks
                             if c.ran or c.name not in (*self.optional, *self.inapplicable))

    def _label(self, c: Check) -> str:
        if c.ran:
            return c.verdict
        if c.name in self.inapplicable:
            return "NOT APPLICABLE"
        return f"{NOT_RUN} (optional)" if c.name in self.optional else NOT_RUN

    def summary(self) -> str:
        """The verdict and which checks it rests on, in one line: "PASS on 3 of 6 checks (parameters, behaviour,
        attributes); NOT RUN: claims, estimator, step"."""
        counted = [c for c in self.checks if c.name not in self.inapplicable]
        ran = [c.name if c.verdict == stats.PASS else f"{c.name} {c.verdict}" for c in counted if c.ran]
        line = f"{self.verdict} on {len(ran)} of {len(counted)} checks" + (f" ({', '.join(ran)})" if ran else "")
        missing = [c.name for c in self.not_run if c.name not in self.optional]
        allowed = [c.name for c in self.not_run if c.name in self.optional]
        if missing:
            line += "; NOT RUN: " + ", ".join(missing)
        if allowed:
            line += "; NOT RUN, optional: " + ", ".join(allowed)
        if self.skipped:
            line += "; skipped: " + ", ".join(self.skipped)
        inapplicable = [c.name for c in self.checks if c.name in self.inapplicable]
        if inapplicable:
            line += f"; not applicable to {self.algorithm}: " + ", ".join(inapplicable)
        return line

    def first_cause(self) -> tuple[Check, str] | None:
        """(check, label) of the most specific reason the verdict is not PASS: the first FAIL in the order of
        :data:`SPECIFICITY`, else the first INCONCLUSIVE, else the first check not run that counts; None on PASS."""
        rank = {name: i for i, name in enumerate(SPECIFICITY)}
        ordered = sorted(self.checks, key=lambda c: rank.get(c.name, len(rank)))
        missing = {c.name for c in self.not_run if c.name not in self.optional}
        failed = [(c, c.verdict) for c in ordered if c.ran and c.verdict not in (stats.PASS, stats.INCONCLUSIVE)]
        undecided = [(c, c.verdict) for c in ordered if c.ran and c.verdict == stats.INCONCLUSIVE]
        return next(iter(failed + undecided + [(c, NOT_RUN) for c in ordered if c.name in missing]), None)

    def _settings(self) -> str:
        shown = ", ".join(f"{key} = {value}" for key, value in self.assumed.items() if not self.steps or key != "eta")
        return "; ".join(part for part in (shown, self.steps, f"each check at δ = {self.delta:g}") if part)

    def text(self) -> str:
        lines = [self.summary(), f"  {self.learner} against {self.algorithm}: {self._settings()}"]
        for c in self.checks:
            if c.ran:
                lines.append(f"  [{c.verdict}] {c.name}: {c.decision}")
                if c.verdict != stats.PASS and c.cause:
                    lines.append(f"      cause: {c.cause}")
        if self.not_run:
            lines.append("  not run (each counts as INCONCLUSIVE unless optional=/--optional names it):")
            lines += [f"  [{self._label(c)}] {c.name}: {c.decision}" for c in self.not_run]
            hint = recording_hint(self.not_run)
            if hint:
                lines.append(f"  to run them: {hint}")
        lines += [f"  [NOT APPLICABLE] {c.name}: {c.decision}" for c in self.checks if c.name in self.inapplicable]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        def row(c: Check) -> str:
            label = self._label(c)
            css = (c.verdict if c.ran else "muted" if c.name in self.inapplicable else
                   "NOT" if c.name in self.optional else stats.INCONCLUSIVE)
            cell = (f"<span class='muted'>{label}</span>" if css == "muted" else
                    f"<span class='verdict {css}'>{label}</span>")
            cause = f"<p><b>cause</b>: {escape(c.cause)}</p>" if c.ran and c.cause and c.verdict != stats.PASS else ""
            return f"<tr><td>{c.name}</td><td>{cell}</td><td>{cause}{escape(c.decision)}</td></tr>"

        rows = "".join(row(c) for c in self.checks)
        first, rest = self.summary().split(" ", 1)
        return (f"<p><span class='verdict {self.verdict}'>{first}</span> {escape(rest)}</p>"
                f"<p><code>{escape(self.learner)}</code> against {self.algorithm}: "
                f"{escape(self._settings())}. A check marked NOT RUN could not be taken by this "
                "learner and counts as INCONCLUSIVE unless named optional; NOT APPLICABLE: nothing to check for this "
                "algorithm.</p>"
                f"<table><tr><th>check</th><th>verdict</th><th>decision</th></tr>{rows}</table>"
                + (f"<p><b>To run them:</b> {escape(hint)}</p>" if (hint := recording_hint(self.not_run)) else "")
                + "".join(f"<p>{escape(note)}</p>" for note in self.notes))

    def page(self, claims_report: bool = False) -> str:
        """A standalone HTML page of the result (``theorycheck conform`` writes conform-ALGORITHM.html);
        ``claims_report``: link the claims' report (index.html) in the same folder."""
        from importlib.resources import files

        style = files("theorycheck.report").joinpath("templates/style.css").read_text(encoding="utf-8")
        link = "<p><a href='index.html'>the claims' report</a></p>" if claims_report else ""
        return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>conformance of "
                f"{self.algorithm} — theorycheck</title><style>{style}</style></head><body>"
                f"<h1>Conformance to {self.algorithm}</h1>{self._repr_html_()}{link}</body></html>\n")


def _load(spec: str):
    module, _, attr = spec.partition(":")
    return getattr(__import__(module, fromlist=[attr]), attr)


def _keywords(spec: Spec, k: int, B: float, eta: float | None, d: int) -> dict[str, Any]:
    """The constructor keywords of the estimator and audit runs (random_state and record_trajectory aside);
    ``eta`` None: none, the learner's own rule."""
    step = {spec.step: eta} if spec.step and eta is not None else {}
    return {"k": k, "B": B, **step, **spec.options(d)}


def _shown(value) -> Any:
    if isinstance(value, np.ndarray):
        return [round(float(v), 6) for v in value]
    return value


def _constructor(cls) -> list[inspect.Parameter]:
    try:
        params = inspect.signature(cls.__init__).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p for p in params if p.name != "self" and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                                   inspect.Parameter.KEYWORD_ONLY)]


def configured(learner, function: bool = False) -> tuple[Callable[..., Any], dict[str, Any] | None, str]:
    """(make, parameters, name) of a learner given as a class or as an instance (or, with ``function``, a
    function such as a GenEst, which is its own ``make``).

    A class is its own ``make``, with no parameters of its own (None). An instance is cloned as
    scikit-learn does: its parameters are ``get_params(deep=False)`` when it has that method, else the
    attributes named like its constructor's arguments; ``make(**keywords)`` builds a new, unfitted one with
    those parameters and ``keywords`` on top. Raises :class:`ParameterError` when an argument is not stored."""
    if function:
        if inspect.isclass(learner) or not callable(learner):
            raise ParameterError(f"{subject_name(learner)} is not a function: this algorithm's subject is a function")
        return learner, None, subject_name(learner)
    if inspect.isclass(learner):
        return learner, None, subject_name(learner)
    cls = type(learner)
    if not hasattr(learner, "fit"):
        raise ParameterError(f"the learner {subject_name(cls)} has no fit method")
    if callable(getattr(learner, "get_params", None)):
        params = dict(learner.get_params(deep=False))
    else:
        missing = [p.name for p in _constructor(cls) if not hasattr(learner, p.name)]
        if missing:
            raise ParameterError(f"cannot clone the instance of {subject_name(cls)}: it does not keep its constructor "
                                 f"argument{'s' * (len(missing) > 1)} {', '.join(missing)} as attributes of the same "
                                 "name (scikit-learn's convention); pass the class, or give it get_params()")
        params = {p.name: getattr(learner, p.name) for p in _constructor(cls)}

    def make(**keywords):
        return cls(**{**params, **keywords})

    shown = ", ".join(f"{key}={value!r}" for key, value in params.items())
    return make, params, f"{subject_name(cls)}({shown})"


def _defaults(cls) -> dict[str, Any]:
    return {p.name: p.default for p in _constructor(cls) if p.default is not inspect.Parameter.empty}


def _fitted(name: str, learner, keywords: dict, state: int, X, y):
    """(the learner fitted with ``record_trajectory=True``, None), or (None, a Check): not run when it cannot be
    built with these keywords, FAIL when its fit raises (a subject's failure is a verdict)."""
    try:
        model = learner(**keywords, random_state=state, record_trajectory=True)
    except Exception as err:  # TypeError for a missing keyword, or its own refusal of one: it cannot take this check
        return None, (_unrecorded if name in ("estimator", "step") else _not_run)(
            name, f"the learner cannot be built with record_trajectory=True and {', '.join(keywords)}, so nothing "
            f"was checked: {type(err).__name__}: {err}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
    except Exception as err:  # the subject's failure, with its cause
        why = f"your learner's fit raised {type(err).__name__}: {err}"
        return None, Check(name, stats.FAIL, f"{why} (on {X.shape[0]} examples, d = {X.shape[1]}, random_state = "
                           f"{state})", cause=why, raised=True)
    return model, None
