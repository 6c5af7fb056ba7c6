"""Does *your* implementation do what the paper's algorithm does? Six checks per algorithm.

``conform("AERR", learner=MyAERR)`` (or ``theorycheck conform AERR --subject learner=mod:MyAERR``;
a class, or an instance run with its own parameters, see :func:`configured`) runs, for a
regressor of the papers (:data:`ALGORITHMS`: AERR, AELR, AER, Baseline, AESVR and ks15's GAERR,
DDAERR, TwoPhaseDDAERR, GAELR, DDAELR, TwoPhaseDDAELR) the checks below; the algorithms of another
shape bring their own (:attr:`Spec.checks`): sk13's Scoring and Full (**objective**: the chosen r
against Algorithm 1's objective, its greedy and, for Scoring, the brute-force maximum; exact),
reyzin11's AdaBoostRS and AdaBoostRS_AC (**training**: α against Algorithm 1's closed form, exact;
**sampling**: the law of the features examined and the prediction against its exact law given the
learner's ensemble, at δ; **attributes**: every prediction's cost below the budget, exact) and hk12's
GenEst, a function (**estimator**: the joint law of (φ̂, queries), at δ; **attributes**: the reads
observed against the queries reported, exact). For the regressors:

1. **claims**: every claim that has the built-in class as any of its subjects (``learner``,
   ``aer``, ``uniform``, ...), with yours in each such place. The quick profile runs the lemmas
   only (cheap for any learner; :func:`claims_for`); the theorems, rates, lower bounds and
   experiments fit the learner millions of times and run at the full profile, and at quick the
   behaviour check (4.) stands in for them;
2. **parameters**: the learner's own defaults (a class) or configuration (an instance) against the
   theorem's: η (fixed in the parameters, read from ``eta_`` after fit, or for AERR from two fits at
   d = k = 1 where Algorithm 1 is deterministic) and w₁ in the ball; exact;
3. **estimator**: the law of your estimate against the paper's exact law. Your learner runs R
   times on one example shown twice (m = 2; the two-phase learners see it m₁ more times first)
   and records its path; step 1 (at w₁) and step 2 (at each distinct w₂ your runs reach) give
   i.i.d. draws of g̃ whose exact law :mod:`theorycheck.estimators` enumerates (ks15's learners at
   a non-uniform q: given, ∝ √s or ∝ s for the known moments s, and for the two-phase learners,
   with smoothing 0, ∝ |x| or ∝ x² from phase 1; Baseline, a batch method with no per-step
   gradient: each example's estimates (A_t, v_t) of x xᵀ and x, whose law does not depend on
   anything learnt). Each outcome's count gets an exact two-sided binomial test at δ/(number of
   tests) (Bonferroni), and an outcome outside the law's support fails outright, at the first run
   that shows it: false-FAIL rate ≤ δ. This is stronger than unbiasedness and than any moment
   bound: a biased estimate, or one with another second moment, moves probability off the support
   or between outcomes;
3′. **step**: the first recorded step against the algorithm's update given the recorded draw, at an η where
   the projection (L2) or the clip at 1/η (L1) binds on the example (:func:`_step_check`); exact;
4. **behaviour**: w̄ must lie in the algorithm's ball (the theorems' conclusion; exact), and the
   excess risk of w̄ over seeds on registered designs, yours against the built-in's, is compared
   by the exact two-sample Kolmogorov–Smirnov test at δ/(designs) each;
5. **attributes**: an independent audit of the reads, observed rather than reported. ``fit`` gets a
   watched view of X (:mod:`theorycheck.observe`) that logs every entry whose value leaves it; every
   entry not observed read is then replaced by NaN and a refit with the same random state must return
   the same w̄ bit for bit (a read the view missed and that mattered cannot pass); no example may have
   more attributes read than the algorithm's budget (:attr:`Spec.extra_reads`: k + 1 for hk12's and
   ks15's learners, k for cbss11's), and ``n_attributes_seen_`` may not be smaller than the count
   observed. When the refit differs (a compiled kernel on the raw buffer, ...), the view was defeated
   and the reads the path reports (``read``, an (m, r) index array padded with −1, or ``coordinates``
   and ``j``) are audited the same way. A learner that rejects NaN up front (or crashes on one) gets
   noise in [−1, 1]/√d instead.

A learner whose ``fit`` raises gets FAIL with the cause. A check the learner cannot take (no
``record_trajectory``, no path, a defeated view and no reported reads) is NOT RUN
(``Check.ran`` False) with the reason, and counts as INCONCLUSIVE unless ``optional`` names it; a
check with nothing to check for the algorithm (no step-size rule declared, no exact law) is NOT
APPLICABLE and left out; nothing run is INCONCLUSIVE, never PASS. The verdict line
(:meth:`Conformance.summary`) says which checks it rests on. Every check that is not PASS carries its
most specific cause (``Check.cause``); :meth:`Conformance.first_cause` picks the most specific check
(:data:`SPECIFICITY`). A ``k``, ``B`` or ``eta`` the built-in refuses, and claims estimated to take
longer than :data:`CLAIMS_LIMIT` on the learner, raise :class:`ParameterError` before any work.

Allowed interpretations are parameters: both learners get the same ``k``, ``B``, ``eta`` (where
the algorithm has one) and the options the :class:`Spec` lists (q, second moments, m₁, ...),
and the built-in's defaults for the rest; the result lists them.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from . import estimators, stats
from .bounds import hk12 as bounds_hk12
from .claims import discover, subject_name
from .validation import ParameterError, check_jobs, check_real

__all__ = ["ALGORITHMS", "CHECKS", "Check", "Conformance", "Spec", "claims_for", "configured", "conform"]


# ---------------------------------------------------------------------- the algorithms
def _fractions(q) -> tuple[Fraction, ...]:
    """q (floats, ≥ 0) normalised in exact arithmetic: the law of the draws an ideal sampler makes
    from the float q a learner is given (the two differ by rounding only)."""
    exact = [Fraction(float(v)) for v in q]
    total = sum(exact)
    return tuple(v / total for v in exact)


def _rising(d: int) -> np.ndarray:
    """A skewed sampling distribution q_i ∝ i + 1 (no attribute left out)."""
    q = np.arange(1.0, d + 1.0)
    return q / q.sum()


def _ks15_law(power: int, q_of: Callable[[np.ndarray, dict], np.ndarray]):
    """The exact law of GAERR's (power 2) or GAELR's (power 1, unclipped) g̃ with q = q_of(x, options)."""
    law = (estimators.gaerr_gradient_estimate_distribution if power == 2
           else estimators.gaelr_gradient_estimate_distribution)
    return lambda w, x, y, k, options: law(w, x, y, k, _fractions(q_of(x, options)))


def _no_options(d: int) -> dict:
    return {}


@dataclass(frozen=True)
class Spec:
    """What conformance needs to know about one algorithm of the papers."""

    builtin: str  # "module:attr"
    law: Any = None  # (w, x, y, k, options) -> [(probability, outcome)], or None (then ``no_law`` says why)
    setting: str = "ridge"  # "ridge" or "lasso": the designs of the behaviour check
    params_from: str = "hk12.thm3.1"  # a claim whose quick parameters build the designs
    norm: str = "l2"  # "l2" or "l1": the ball of the theorems' conclusion
    extra_reads: int = 1  # the budget: at most k + extra_reads attributes read per example
    #: an algorithm that is not a regressor fit(X, y) -> coef_ brings its own checks: (make, own parameters or
    #: None, profile's budget, δ, SeedSequence) -> (assumed, [Check]); then ``names`` lists them (after claims)
    checks: Callable[..., tuple[dict, list]] | None = None
    names: tuple[str, ...] = ("parameters", "estimator", "step", "behaviour", "attributes")
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
    #: the theorem's step size (d, k, m, B) -> η and its name, for the parameters check; None: not declared here
    theorem_step: tuple[Callable[[int, int, int, float], float], str] | None = None
    start_in_ball: bool = False  # w̄ of a one-example fit is w_1, which must lie in the ball (line 1)
    no_law: str = "no exact law of this algorithm's estimate is available here, so nothing was checked"

    def budget(self, k: int) -> int:
        return k + self.extra_reads

    def budget_text(self) -> str:
        return "k" if self.extra_reads == 0 else f"k + {self.extra_reads}"


def _moments(d: int) -> np.ndarray:
    """Second moments s_i ∝ (i + 1)², so that q ∝ √s and q ∝ s are both far from uniform."""
    return (np.arange(1.0, d + 1.0) / d) ** 2


def _design_q(design) -> dict:
    return {"q": _rising(np.asarray(design.second_moment).shape[0])}


def _design_moments(design) -> dict:
    return {"second_moments": np.diag(np.asarray(design.second_moment, dtype=np.float64)).copy()}


_KS15 = {"designs": ("decaying_bounded", "boundary"), "design_params": {"alpha": -2.0, "d": 32}}
_TWO_PHASE_LEAD = 30  # phase-1 showings; P(some attribute never drawn) ≤ d(1 − 1/d)^{30(k+1)}, stated in the decision
#: the two-phase learners' smoothing ε in the estimator and step runs: 13ε/6 = 1/16, of the size of the example's x_i²,
#: so that q with and without the smoothing term differ (at ε = 0 a learner that drops the term cannot show)
_SMOOTHING = 6.0 / (13.0 * 16.0)


def _two_phase_options(d: int) -> dict:
    return {"m1": _TWO_PHASE_LEAD, "smoothing": _SMOOTHING}


def _smoothed(x: np.ndarray, options: dict) -> np.ndarray:
    """A_i + 13ε/6 of the two-phase learners after phase 1 on the example shown m₁ times (A_i = x_i², exactly)."""
    return x * x + 13.0 * options["smoothing"] / 6.0

ALGORITHMS: dict[str, Spec] = {
    "AERR": Spec("theorycheck.algorithms:AERR", lambda w, x, y, k, o: estimators.aerr_gradient_estimate_distribution(
        w, x, y, k), "ridge", "hk12.thm3.1", "l2", start_in_ball=True,
        theorem_step=(lambda d, k, m, B: bounds_hk12.thm31_eta(d, k, m), "Theorem 3.1's η = √(k/(2dm))")),
    "AELR": Spec("theorycheck.algorithms:AELR", lambda w, x, y, k, o: estimators.aelr_gradient_estimate_distribution(
        w, x, y, k), "lasso", "hk12.thm3.4", "l1",
        theorem_step=(lambda d, k, m, B: bounds_hk12.thm34_eta(d, k, m, B, "theorem"),
                      "Theorem 3.4's η = (1/(4B²))√(2k log(2d)/(5md))")),
    "AER": Spec("theorycheck.algorithms:AER", lambda w, x, y, k, o: estimators.aer_gradient_estimate_distribution(
        w, x, y, k), "lasso", "hk12.thm3.4", "l1", extra_reads=0, step=None, k=4,
        # Theorem 12's λ keeps AER's iterates far inside the ball; at λ = 0.3 the constraint is active
        designs=("mixed", "boundary", ("boundary", {"lam": 0.3}))),
    "Baseline": Spec("theorycheck.algorithms:Baseline", lambda w, x, y, k, o: estimators.baseline_estimate_distribution(
        x, k), "lasso", "hk12.thm3.4", "l1", extra_reads=0, draws="estimates", step=None),
    "GAERR": Spec("theorycheck.algorithms:GAERR", _ks15_law(2, lambda x, o: o["q"]), "ridge", "ks15.thm3.3", "l2",
                  options=lambda d: {"q": _rising(d)}, design_options=_design_q, **_KS15),
    "DDAERR": Spec("theorycheck.algorithms:DDAERR", _ks15_law(2, lambda x, o: np.sqrt(o["second_moments"])), "ridge",
                   "ks15.thm3.3", "l2", options=lambda d: {"second_moments": _moments(d)},
                   design_options=_design_moments, **_KS15),
    "TwoPhaseDDAERR": Spec("theorycheck.algorithms:TwoPhaseDDAERR", _ks15_law(2, lambda x, o: np.sqrt(_smoothed(x, o))),
                           "ridge", "ks15.thm3.3", "l2", options=_two_phase_options, shared=(), lead=_TWO_PHASE_LEAD,
                           **_KS15),
    "GAELR": Spec("theorycheck.algorithms:GAELR", _ks15_law(1, lambda x, o: o["q"]), "lasso", "ks15.thm4.4", "l1",
                  options=lambda d: {"q": _rising(d)}, design_options=_design_q, **_KS15),
    "DDAELR": Spec("theorycheck.algorithms:DDAELR", _ks15_law(1, lambda x, o: o["second_moments"]), "lasso",
                   "ks15.thm4.4", "l1", options=lambda d: {"second_moments": _moments(d)},
                   design_options=_design_moments, **_KS15),
    "TwoPhaseDDAELR": Spec("theorycheck.algorithms:TwoPhaseDDAELR", _ks15_law(1, _smoothed), "lasso", "ks15.thm4.4",
                           "l1", options=_two_phase_options, shared=(), lead=_TWO_PHASE_LEAD, **_KS15),
}

PROFILES = {  # runs of the estimator check, seeds of the behaviour check, claims' profile, exact instances
    "quick": {"runs": 3000, "seeds": 150, "claims": "quick", "instances": 40},
    "full": {"runs": 20000, "seeds": 600, "claims": "full", "instances": 200},
}


#: the checks, in the order they are reported; ``optional`` names from these
CHECKS = ("claims", "parameters", "estimator", "step", "behaviour", "attributes", "objective", "training", "sampling")
#: the checks from the most specific to the least: the cause printed first is that of the first check here that is
#: not PASS (an exact law or audit points at the bug; behaviour compares outcomes; a claim is a theorem's verdict)
SPECIFICITY = ("attributes", "estimator", "step", "parameters", "objective", "training", "sampling", "behaviour",
               "claims")


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
        return "NOT RUN (optional)" if c.name in self.optional else "NOT RUN"

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
        return next(iter(failed + undecided + [(c, "NOT RUN") for c in ordered if c.name in missing]), None)

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


#: the longest claims check :func:`conform` starts without ``force``, in seconds of CPU time per worker
CLAIMS_LIMIT = 600.0


def conform(algorithm: str, learner, *, profile: str = "quick", seed: int = 0, delta: float = 1e-3,
            k: int | None = None, B: float | None = None, eta: float | None = None, claims: bool = True, out=None,
            jobs: int = 1, progress: bool = False, optional: tuple[str, ...] | list[str] = (),
            require: tuple[str, ...] | list[str] = (), force: bool = False, isolate: bool | None = None,
            task_timeout: float | None = None) -> Conformance:
    """Check ``learner`` (a class with the built-in's constructor keywords, or an instance) against ``algorithm``.

    A class is run with ``k``, ``B`` and ``eta`` (None: the algorithm's defaults, :attr:`Spec.k` (4 for AER,
    so that both the k/2-subset of v and the k/2 independent draws of ŷ have more than one element; 2 for
    the others), B = 1 and η = 0.5), and the built-in's fitted η is passed to it in the behaviour check. An
    instance is run as configured: its own k, B and η unless given here (η None: its own rule), and the
    built-in gets its η when it is a number. Either way the **parameters** check compares the learner's
    own defaults (a class's) or configuration (an instance's) with the paper's: the theorem's η and w₁.
    The result's ``steps`` says which η each run used. Each stochastic check runs at ``delta`` (so the whole
    run at ≤ 4·delta, by the union bound). ``claims=False`` skips the paper's claims (the slow part).
    ``out``: folder for the claims' report (a temporary one when None). ``jobs``: parallel workers of the
    claims (1, the default, as everywhere in theorycheck; −1: every core); ``progress``: a progress bar of the
    claims on stderr.

    Every check of the algorithm counts: one the learner cannot take (NOT RUN) makes the verdict
    INCONCLUSIVE unless ``optional`` names it (names of :data:`CHECKS`); a check with nothing to check for
    this algorithm (no step-size rule declared, no exact law, no gradient step, no claim) is NOT APPLICABLE
    and left out. ``require`` is deprecated: every check is now required unless optional.

    Before any work, a learner other than the built-in is timed on the claims' fits (:func:`_claims_seconds`);
    a claims check estimated past :data:`CLAIMS_LIMIT` raises :class:`ParameterError` unless ``force``.

    ``isolate`` (None: unless the learner is one of theorycheck's own): run the checks in a worker process,
    so a learner that exits, aborts, segfaults or runs past ``task_timeout`` seconds (None:
    :data:`~theorycheck.runner.CONFORMANCE_SECONDS`) is a FAIL of the check named "process", and the claims
    are not run; the claims run their tasks in workers too, each within ``task_timeout`` (None: the profile's
    :data:`~theorycheck.runner.TASK_SECONDS`)."""
    if algorithm not in ALGORITHMS:
        raise ParameterError(f"unknown algorithm {algorithm!r}; conformance knows {', '.join(ALGORITHMS)}")
    if profile not in PROFILES:
        raise ParameterError(f"unknown profile {profile!r}; use quick or full")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed must be a non-negative int; got {seed!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise ParameterError(f"jobs must be an int (-1: all cores); got {jobs!r}")
    check_jobs(jobs)
    spec = ALGORITHMS[algorithm]
    names = ("claims", *spec.names)
    for what, given in (("optional", optional), ("required", require)):
        unknown = [name for name in given if name not in names]
        if unknown:
            raise ParameterError(f"unknown check {unknown[0]!r} named {what}; the checks of {algorithm} are "
                                 f"{', '.join(names)}")
    if require:
        warnings.warn("require= is deprecated: every check is now required; name the checks allowed not to run in "
                      "optional=", DeprecationWarning, stacklevel=2)
        both = [name for name in require if name in optional]
        if both:
            raise ParameterError(f"the check {both[0]!r} is named both required and optional")
        if "claims" in require and not claims:
            raise ParameterError("requiring the claims check while skipping the claims (--no-claims) cannot be met")
    delta = check_real("delta", delta, low=0.0, high=1.0, strict_low=True, strict_high=True)
    if task_timeout is not None:
        task_timeout = check_real("--task-timeout", task_timeout, low=0.1, high=1e7)
    _, own, name = configured(learner, spec.function)
    budget = PROFILES[profile]
    if spec.checks is not None and (k, B, eta) != (None, None, None):
        raise ParameterError(f"k, B and eta are not parameters of {algorithm}'s conformance")
    subject = learner if own is None else type(learner)
    places, skipped = claims_for(algorithm, budget["claims"]) if claims else ({}, [])
    from .runner import CONFORMANCE_SECONDS, _isolated, own_code

    isolated = isolate if isolate is not None else not own_code(learner)
    if places and not force and subject is not _load(spec.builtin):
        estimate = (_isolated(_claims_estimate, algorithm, subject, places, budget["claims"], seed,
                              CLAIMS_LIMIT * _workers(jobs),
                              seconds=CONFORMANCE_SECONDS if task_timeout is None else task_timeout) if isolated else
                    _claims_estimate(algorithm, subject, places, budget["claims"], seed, CLAIMS_LIMIT * _workers(jobs)))
        if isinstance(estimate, str):  # the learner ended the worker that timed it: the checks below say so
            estimate = None
        if estimate is not None and estimate[0] / _workers(jobs) > CLAIMS_LIMIT:
            raise ParameterError(
                f"the claims check would take about {_duration(estimate[0] / _workers(jobs))} with this learner "
                f"({estimate[1]}{' on each of ' + str(_workers(jobs)) + ' workers' if _workers(jobs) > 1 else ''}), "
                f"past the limit of {_duration(CLAIMS_LIMIT)}: pass --no-claims (claims=False) to check the rest, "
                "or --force (force=True) to run them")
    notes = []
    if own is not None:
        notes.append(f"the instance is run with its own parameters; the claims build their own "
                     f"{type(learner).__name__} with the parameters each claim states")
    if isolated:
        outcome = _isolated(_checks, algorithm, learner, k, B, eta, profile, delta, seed,
                            seconds=CONFORMANCE_SECONDS if task_timeout is None else task_timeout)
    else:
        outcome = _checks(algorithm, learner, k, B, eta, profile, delta, seed)
    if isinstance(outcome, str):  # the learner ended the worker that checked it
        cause = f"the learner {name} {outcome} while it was checked against {algorithm}"
        decision = (f"{cause[0].upper()}{cause[1:]}: the checks ran in a worker process of their own, so this ended "
                    "them, not theorycheck; none of them could give a verdict.")
        notes.append("claims: not run, the learner ended the process of the other checks")
        return Conformance(algorithm, name, {}, [Check("process", stats.FAIL, decision, cause=cause)], delta, notes,
                           tuple(optional))
    assumed, checks = outcome
    if claims:
        if places or not skipped:
            checks.insert(0, _claims_check(spec, subject, places, skipped, budget["claims"], seed, out, jobs,
                                           progress, "claims" not in optional, task_timeout))
        else:  # nothing at this profile: no check, and a note of what --profile full would run
            notes.append(f"claims: none at the quick profile. {_skipped_text(skipped)}")
    inapplicable = {"claims": not places and not skipped}
    if spec.checks is None:
        inapplicable.update(parameters=spec.theorem_step is None or spec.step is None, estimator=spec.law is None,
                            step=spec.step is None or spec.draws != "gradient")
    return Conformance(algorithm, name, assumed, checks, delta, notes, tuple(optional),
                       tuple(c.name for c in checks if not c.ran and inapplicable.get(c.name)),
                       _step_sizes(spec, own, assumed) if spec.checks is None else "",
                       () if claims else ("claims",))


def _step_sizes(spec: Spec, own: dict | None, assumed: dict) -> str:
    """Which step size each run of :func:`_regression_checks` used, in one sentence ("" without a step size)."""
    if spec.step is None:
        return ""
    eta = assumed.get(spec.step)
    used = f"η = {eta:g}" if isinstance(eta, int | float) else "η: your learner's own rule"
    parts = [f"{used} in the estimator and attribute runs (yours alone: the law is exact)"]
    if spec.draws == "gradient":
        parts.append(f"η = {_STEP_ETA[spec.norm]:g} in the step runs (where the "
                     f"{'projection' if spec.norm == 'l2' else 'clip'} binds)")
    if own is None:
        parts.append("in the behaviour runs yours gets the built-in's fitted η (its theorem's rule)"
                     if "eta" in spec.shared else "in the behaviour runs both use their own rule")
    else:
        mine = own.get(spec.step)
        theirs = eta if isinstance(eta, int | float) else None
        parts.append("in the behaviour runs yours keeps " + (f"its η = {mine:g}" if isinstance(mine, int | float)
                                                               else "its own rule")
                     + ", the built-in gets " + (f"η = {theirs:g}" if theirs is not None else "its theorem's rule"))
    if spec.theorem_step is not None:
        parts.append("the parameters check reads your learner's own " + ("default" if own is None else "η"))
    return "; ".join(parts)


def _workers(jobs: int) -> int:
    import os

    cores = os.cpu_count() or 1
    return cores if jobs < 0 else max(1, min(jobs, cores))


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _probe(spec: Spec, builtin, calls: list):
    """The built-in, or a copy of it, that appends to ``calls`` the data of each fit (with the keywords it was built
    with) or the arguments of each call."""
    if spec.function:
        def counted(*args, **kwargs):
            calls.append((args, kwargs))
            return builtin(*args, **kwargs)
        return counted

    class Counted(builtin):  # type: ignore[valid-type,misc]
        def __new__(cls, *args, **kwargs):  # keeps the keywords the claim built it with
            made = super().__new__(cls)
            made._probe_keywords = kwargs
            return made

        def fit(self, X, y, *args, **kwargs):
            calls.append(((X, y, *args), {"keywords": self._probe_keywords, "fit": kwargs}))
            return super().fit(X, y, *args, **kwargs)
    return Counted


_PROBE_ROWS = 2000  # the examples of the fit on which a learner is timed


def _claims_seconds(spec: Spec, learner, places: dict[str, tuple[str, ...]], profile: str,
                    seed: int, limit: float = math.inf) -> tuple[float, str] | None:
    """(CPU seconds, how they were found) the claims check should take with ``learner``, or None when no claim
    could be estimated. Tasks of each claim (all of them, or up to 8 spread over its list when they are costly:
    about 2 s of the built-in's shipped cost per claim) run with a copy of the built-in that keeps the data of its
    fits (a function subject: the arguments of its calls). ``learner`` is timed on the first 2000 examples of the
    largest of those fits (the faster of two, unless the first took 0.5 s) or on 20 of those calls, and its time
    per example (per call) is multiplied by the examples (calls) of all the claim's tasks. It counts ``fit`` (the
    calls) only, and a claim that adds tasks as it goes (a sequential design) can take longer: an estimate of the
    order, not a bound. Stops once past ``limit``."""
    import time

    from .protocols import check_subject
    from .runner import _mean_cost, task_seed

    builtin = _load(spec.builtin)
    claims = discover()
    total, counted, timed = 0.0, 0, []
    for cid, subjects in places.items():
        claim = claims[cid]
        try:
            for subject in subjects:
                check_subject(cid, subject, learner, claim.protocols.get(subject))
        except ParameterError:
            continue  # the claims check will not run it
        calls: list[tuple[tuple, dict]] = []
        probe = _probe(spec, builtin, calls)
        params = claim.params_for(profile)
        try:
            tasks = claim.tasks(params)
            sample = min(len(tasks), 8, max(1, int(2.0 / _mean_cost({}, claim, profile))))
            chosen = sorted({round(i * (len(tasks) - 1) / max(sample - 1, 1)) for i in range(sample)})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for r in chosen:
                    claim.measure(params, tasks[r], {**claim.subjects, **dict.fromkeys(subjects, probe)},
                                  task_seed(seed, cid, r))
        except Exception:  # the claim cannot be run this way: not estimated (the claims check says what it does)
            continue
        if not calls:
            continue
        share = len(tasks) / len(chosen)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if spec.function:
                    some = calls[:: max(1, len(calls) // 20)][:20]
                    start = time.process_time()
                    for args, kwargs in some:
                        learner(*args, **kwargs)
                    total += (time.process_time() - start) / len(some) * len(calls) * share
                else:
                    (X, y, *rest), kwargs = max(calls, key=lambda call: len(call[0][0]))
                    X, y = X[:_PROBE_ROWS], y[:_PROBE_ROWS]  # an online learner's time grows with m
                    seconds = []
                    while len(seconds) < 2 and sum(seconds) < 0.5:  # a compiled learner's first fit compiles it
                        start = time.process_time()
                        learner(**kwargs["keywords"]).fit(X, y, *rest, **kwargs["fit"])
                        seconds.append(time.process_time() - start)
                    total += min(seconds) / max(len(X), 1) * sum(len(args[0]) for args, _ in calls) * share
        except Exception:
            continue
        counted += round(len(calls) * share)
        timed.append(cid)
        if total > limit:
            break
    if not timed:
        return None
    unit = "calls" if spec.function else "fits"
    return total, (f"{counted:,} {unit} in {', '.join(timed)}, timed on {'20 calls' if spec.function else 'one fit'} "
                   "of yours; CPU time of your learner alone")


def _claims_estimate(algorithm: str, learner, places, profile: str, seed: int, limit: float):
    """:func:`_claims_seconds` by the algorithm's name (what a worker process is given)."""
    return _claims_seconds(ALGORITHMS[algorithm], learner, places, profile, seed, limit)


def _checks(algorithm: str, learner, k, B, eta, profile: str, delta: float, seed: int):
    """(assumed, checks) of ``learner`` against ``algorithm``: every check of :func:`conform` but the claims."""
    spec = ALGORITHMS[algorithm]
    make, own, _ = configured(learner, spec.function)
    if spec.checks is not None:
        return spec.checks(make, own, PROFILES[profile], delta, np.random.SeedSequence(seed))
    return _regression_checks(spec, make, own, k, B, eta, PROFILES[profile], delta, seed)


def _regression_checks(spec: Spec, make, own, k, B, eta, budget, delta, seed):
    """(assumed, checks) of a regressor fit(X, y) -> coef_: parameters, estimator, behaviour, attributes."""
    if own is None:
        k = spec.k if k is None else k
        B = 1.0 if B is None else B
        eta = 0.5 if eta is None else eta
    else:
        k = own.get("k", spec.k) if k is None else k
        B = own.get("B", 1.0) if B is None else B
        eta = own.get(spec.step) if eta is None and spec.step else eta
    builtin = _load(spec.builtin)
    rng = np.random.SeedSequence(seed)
    s_est, s_beh, s_aud, s_par, s_step = rng.spawn(5)
    X, y = np.vstack([_EXAMPLE_X] * (spec.lead + 2)), np.full(spec.lead + 2, _EXAMPLE_Y)
    with warnings.catch_warnings():  # a k, B or eta the algorithm refuses: ParameterError before any work
        warnings.simplefilter("ignore")
        builtin(**_keywords(spec, k, B, eta, X.shape[1])).fit(X, y)
    assumed = {"k": k, "B": B, **({spec.step: eta if eta is not None else "its own rule"} if spec.step else {}),
               **{name: _shown(v) for name, v in spec.options(len(_EXAMPLE_X)).items()}}
    run = {
        "parameters": lambda: _parameters_check(spec, make, own if own is not None else _defaults(make), s_par),
        "estimator": lambda: _estimator_check(spec, make, k, B, eta, budget["runs"], delta, s_est),
        "step": lambda: _step_check(spec, make, k, B, s_step),
        "behaviour": lambda: _behaviour_check(spec, make, builtin, k, B, budget["seeds"], delta, s_beh, eta=eta,
                                              as_configured=own is not None),
        "attributes": lambda: _audit_check(make, k, B, eta, s_aud, spec),
    }
    return assumed, [run[name]() for name in spec.names]


# ---------------------------------------------------------------------- 1. the paper's claims
def claims_for(algorithm: str, profile: str = "quick") -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """The claims conformance runs for ``algorithm``: {claim id: the names of its subjects that are the
    built-in class}, and the ids left out at this profile.

    The quick profile runs the lemmas (statements about one step or about the path, cheap for any
    learner) and leaves out the rest: theorems, rates, lower bounds and experiments run the learner
    millions of times (hk12.thm3.1's quick profile alone fits it on 3.6·10⁷ examples), and the
    reproductions on real data cannot decide at quick. The full profile runs them all."""
    builtin = _load(ALGORITHMS[algorithm].builtin)
    claims = discover()
    places = {cid: tuple(name for name, obj in c.subjects.items() if obj is builtin) for cid, c in claims.items()}
    places = {cid: names for cid, names in places.items() if names}
    skipped = [cid for cid in places if profile == "quick" and not claims[cid].reference.startswith("Lemma")]
    return {cid: names for cid, names in places.items() if cid not in skipped}, skipped


def _claims_check(spec: Spec, learner, places: dict[str, tuple[str, ...]], skipped: list[str], profile: str,
                  seed: int, out, jobs: int = 1, progress: bool = False, required: bool = False,
                  task_timeout: float | None = None) -> Check:
    """The claims, with ``learner`` in each place of the built-in. A claim whose contract the learner does not
    meet, or that stops on it before any verdict (a path it does not record), is not run, with its reason; the
    check is not run when no claim ran. Never raises a usage error once claims have started."""
    import tempfile
    from pathlib import Path

    from .protocols import check_subject
    from .runner import run_claims

    if not places and not skipped:
        return _not_run("claims", "no claim has this algorithm as a subject")
    claims = discover()
    refused: dict[str, str] = {}  # a learner without what a claim's contract needs: that claim cannot run
    for cid, names in places.items():
        for name in names:
            try:
                check_subject(cid, name, learner, claims[cid].protocols.get(name))
            except ParameterError as err:
                refused.setdefault(cid, str(err))
    run = [claims[cid] for cid in places if cid not in refused]
    names = {name for c in run for name in places[c.id]}
    builtin = _load(spec.builtin)
    if all(c.subjects[name] is builtin for c in run for name in names if name in c.subjects):
        groups = [run] if run else []  # one mapping {name: learner} serves every claim: one run, one report
    else:
        by_names: dict[tuple, list] = {}
        for c in run:
            by_names.setdefault(places[c.id], []).append(c)
        groups = list(by_names.values())
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(out) if out is not None else Path(tmp)
        for i, group in enumerate(groups):
            mapping = {name: learner for c in group for name in places[c.id]}
            folder = root if len(groups) == 1 else root / f"claims-{i + 1}"
            try:
                records += run_claims(group, profile=profile, seed=seed, subjects=mapping, out=folder, jobs=jobs,
                                      progress=progress, conformance=False, task_timeout=task_timeout)
            except ParameterError as err:  # the learner stopped a claim before any verdict (no path, ...)
                if len(group) == 1:
                    refused[group[0].id] = str(err).splitlines()[0]
                    continue
                for c in group:  # one at a time, so that the others still report (finished tasks are cached)
                    try:
                        records += run_claims([c], profile=profile, seed=seed, subjects=mapping, out=folder,
                                              jobs=jobs, progress=progress, conformance=False,
                                              task_timeout=task_timeout)
                    except ParameterError as one:
                        refused[c.id] = str(one).splitlines()[0]
    verdicts = [r["verdict"] if r["verdict"] in (stats.PASS, stats.FAIL, stats.INCONCLUSIVE) else stats.FAIL
                for r in records] + [stats.INCONCLUSIVE] * (len(refused) if required else 0)
    listed = "; ".join([f"{r['id']} {r['verdict']}" for r in records]
                       + [f"{cid} not run: {why}" for cid, why in refused.items()])
    later = f" {_skipped_text(skipped)}" if skipped else ""
    details = {"claims": {r["id"]: r["verdict"] for r in records}, "skipped": skipped, "refused": refused}
    if not records:
        return _not_run("claims", f"no claim could run on this learner: {listed or 'none'}.{later}", details)
    verdict = stats.combine(verdicts)
    worst = next((r for r in records if r["verdict"] not in (stats.PASS, stats.INCONCLUSIVE)),
                 next((r for r in records if r["verdict"] != stats.PASS), None))
    why = f" First failure: {_record_cause(worst)}" if worst and worst["verdict"] != stats.INCONCLUSIVE else ""
    cause = (f"{worst['id']} {worst['verdict']}: {_record_cause(worst)}" if worst else
             f"{next(iter(refused))} not run: {next(iter(refused.values()))}" if refused and required else "")
    return Check("claims", verdict, f"{len(records)} claims ({profile} profile): {listed}.{why}{later}", details,
                 cause=cause)


def _record_cause(record: dict) -> str:
    """The most specific reason a claim is not PASS: a hypothesis the run broke (e.g. "η used 0.00707107
    (given 0.005)"), else the findings not reproduced, else the first line of its decision."""
    from .runner import headline

    broken = [h for h in record.get("hypothesis_checks") or [] if not h.get("met")]
    if broken:
        return "; ".join(f"{h['statement']}: {h['detail']}" if h.get("detail") else h["statement"] for h in broken)
    findings = [f for f in record.get("findings") or [] if f.get("outcome") not in (None, "REPRODUCED")]
    if findings:
        return "; ".join(f"{f.get('finding', '?')}: {f['outcome']}" for f in findings[:3])
    return headline(record.get("decision"))


def _skipped_text(skipped: list[str]) -> str:
    return ("Not run at the quick profile (--profile full runs them): " + ", ".join(skipped) + ". They fit the "
            "learner up to millions of times; at quick, the behaviour check stands in for them: it compares the "
            "law of your excess risk with the built-in's, whose theorems `theorycheck verify` checks.")


# ---------------------------------------------------------------------- 1b. the parameters against the paper's
def _parameters_check(spec: Spec, make, own: dict[str, Any], seed) -> Check:
    """The learner's own step size (and, for Algorithm 1, w₁) against the theorem's: from a parameter that
    fixes η, from the η the fitted learner reports (``eta_``, or ``trajectory_['eta']``), or, for AERR, from
    two one-dimensional runs, where Algorithm 1 is deterministic. Exact (rounding: 10⁻⁹ relative)."""
    if spec.theorem_step is None or spec.step is None:
        return _not_run("parameters", "no step-size rule of the paper is declared here for this algorithm, so the "
                        "learner's defaults were not compared with the paper's")
    rule, rule_name = spec.theorem_step
    base = {key: value for key, value in (("k", 2), ("B", 1.0)) if key not in own}
    k, B = int(own.get("k", base.get("k"))), float(own.get("B", base.get("B")))
    given = own.get(spec.step)
    m, d = 300, 12
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(m, d)) / math.sqrt(d)
    y = np.clip(X @ rng.normal(size=d) + 0.1 * rng.normal(size=m), -B, B)
    try:
        theory = rule(d, k, m, B)
    except ParameterError as err:  # the learner's own k or B outside the theorem's range: nothing to compare
        return _not_run("parameters", f"the theorem's η is not defined at the learner's k = {k}, B = {B:g} "
                        f"(d = {d}): {err}")
    state = int(seed.generate_state(1)[0])
    rows, causes = [], []
    if given is not None:
        try:
            value = float(given)
        except (TypeError, ValueError):
            return _not_run("parameters", f"{spec.step} = {given!r} is neither a number nor None (a rule at fit), "
                            "so it was not compared with the paper's")
        rows.append(f"{spec.step} = {value:.6g} is fixed in the learner's parameters; {rule_name} = {theory:.6g} at "
                    f"d = {d}, m = {m}, k = {k}, B = {B:g}, and changes with m")
        causes.append(f"{spec.step} fixed at {value:.6g}; the theorem's is {theory:.6g} at d = {d}, m = {m}, k = {k}")
    else:
        used, how = _step_used(spec, make, base, X, y, state)
        if used is None:
            return _not_run("parameters", f"the learner's η is set at fit and it does not say which it used ({how})")
        d_used, k_used, m_used, value = used
        try:
            theory = rule(d_used, k_used, m_used, B)
        except ParameterError as err:
            return _not_run("parameters", f"the theorem's η is not defined at d = {d_used}, k = {k_used}: {err}")
        ok = math.isclose(value, theory, rel_tol=1e-9)
        rows.append(f"η used {value:.8g} ({how}); {rule_name} = {theory:.8g} at d = {d_used}, m = {m_used}, "
                    f"k = {k_used}, B = {B:g}")
        if not ok:
            causes.append(f"η used {value:.8g} ({how}), the theorem's is {theory:.8g} (d = {d_used}, m = {m_used}, "
                          f"k = {k_used})")
    if spec.start_in_ball:  # Algorithm 1, line 1: w₁ ≠ 0, ‖w₁‖₂ ≤ B; on one example w̄ = w₁
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                w1 = np.asarray(make(**base, random_state=state).fit(X[:1], y[:1]).coef_, dtype=np.float64)
        except Exception as err:  # the subject's failure, with its cause
            return Check("parameters", stats.FAIL, f"fitting one example raised {type(err).__name__}: {err}",
                         cause=f"fit on one example raised {type(err).__name__}: {err}", raised=True)
        norm = float(np.linalg.norm(w1))
        rows.append(f"w₁ (w̄ of a one-example fit) has ‖w₁‖₂ = {norm:.3g}" + (
            " (line 1 asks w₁ ≠ 0; at w = 0 the paper's φ̃ is −y, the limit, which the estimator law covers: noted, "
            "not failed)" if norm == 0.0 else ""))
        if not norm <= B * (1.0 + 1e-12):
            causes.append(f"‖w₁‖₂ = {norm:.6g} > B = {B:g} (Algorithm 1, line 1)")
    rows.append(f"B = {B:g} as configured (the theorems take B from the data, |y| ≤ B: nothing to compare)")
    text = "; ".join(rows) + ". Exact (rounding: 10⁻⁹ relative), no false-FAIL rate."
    if causes:
        return Check("parameters", stats.FAIL, text, cause="; ".join(causes))
    return Check("parameters", stats.PASS, text)


def _step_used(spec: Spec, make, base: dict, X, y, state) -> tuple[tuple[int, int, int, float] | None, str]:
    """((d, k, m, η) the learner used, how it was found) or (None, why not)."""
    m, d = X.shape
    k = int(base.get("k", 0)) or None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make(**base, random_state=state).fit(X, y)
    except Exception as err:
        return None, f"its fit raised {type(err).__name__}: {err}"
    k = int(getattr(model, "k", k or spec.k))
    for where, value in (("eta_", getattr(model, "eta_", None)),
                         ("trajectory_['eta']", (getattr(model, "trajectory_", None) or {}).get("eta"))):
        if isinstance(value, int | float | np.floating) and math.isfinite(float(value)):
            return (d, k, m, float(value)), f"as the fitted learner reports in {where}"
    if not spec.start_in_ball:
        return None, "no eta_ after fit"
    return _one_dimensional_step(make, base, float(base.get("B", getattr(model, "B", 1.0))), state)


def _one_dimensional_step(make, base: dict, B: float, state: int):
    """Algorithm 1 at d = k = 1 is deterministic: x̃ = x and φ̃ = w₁x − y (−y at w₁ = 0). On x = 1, y = B/2,
    one example gives w̄ = w₁ and two give w̄ = (w₁ + w₂)/2, so η = (w₁ − w₂)/g̃₁ when w₂ is inside the ball.
    Two random states must agree, else the learner is not Algorithm 1 at d = 1 and nothing is inferred."""
    keywords = {**base, "k": 1}
    X, y = np.ones((2, 1)), np.full(2, B / 2.0)
    values = []
    for s in (state, state + 1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                w1 = float(np.ravel(make(**keywords, random_state=s).fit(X[:1], y[:1]).coef_)[0])
                mean = float(np.ravel(make(**keywords, random_state=s).fit(X, y).coef_)[0])
        except Exception as err:
            return None, f"no eta_ after fit, and a run at d = 1 raised {type(err).__name__}: {err}"
        w2 = 2.0 * mean - w1
        g = w1 - B / 2.0 if w1 != 0.0 else -B / 2.0
        if abs(w2) >= B * (1.0 - 1e-12) or g == 0.0:
            return None, "no eta_ after fit, and the run at d = 1 projected its step, so η cannot be read from it"
        values.append((w1 - w2) / g)
    if not math.isclose(values[0], values[1], rel_tol=1e-9):
        return None, ("no eta_ after fit, and at d = 1 two random states gave different steps, which Algorithm 1 "
                      "cannot: η cannot be read from it")
    return (1, 1, 2, values[0]), "read from two fits at d = k = 1, where Algorithm 1 is deterministic: η = (w₁ − w₂)/g̃₁"


# ---------------------------------------------------------------------- 2. the estimator's law
_EXAMPLE_X = np.array([0.5, -0.25, 0.375, 0.125])  # dyadic, so the exact law is exact in floats too
_EXAMPLE_Y = 0.25


def _show(values) -> list[float]:
    return [float(v) for v in values]


def _law(spec: Spec, key, k: int, options: dict) -> tuple[np.ndarray, list[Fraction]]:
    """The paper's law of one recorded draw at ``key`` (w, or () for Baseline) on the example: its
    distinct outcomes (rows, as floats) and their exact probabilities."""
    law: dict[tuple, Fraction] = {}
    w = np.array(key) if len(key) else np.zeros(len(_EXAMPLE_X))
    for prob, g in spec.law(w, _EXAMPLE_X, _EXAMPLE_Y, k, options):
        outcome = tuple(float(v) for v in g)
        law[outcome] = law.get(outcome, Fraction(0)) + prob
    return np.array(list(law)), list(law.values())


def _outcome(outcomes: np.ndarray, g: np.ndarray) -> int:
    """The index of the law's outcome that ``g`` is (up to rounding: 10⁻⁹ relative), or −1."""
    if g.shape != outcomes.shape[1:]:
        return -1
    gap = np.abs(outcomes - g).max(axis=1)
    best = int(np.argmin(gap))
    return best if gap[best] <= 1e-9 * (1.0 + np.abs(outcomes[best]).max()) else -1


def _fitted(name: str, learner, keywords: dict, state: int, X, y):
    """(the learner fitted with ``record_trajectory=True``, None), or (None, a Check): not run when it cannot be
    built with these keywords, FAIL when its fit raises (a subject's failure is a verdict)."""
    try:
        model = learner(**keywords, random_state=state, record_trajectory=True)
    except Exception as err:  # TypeError for a missing keyword, or its own refusal of one: it cannot take this check
        return None, _not_run(name, "the learner cannot be built with record_trajectory=True and "
                              f"{', '.join(keywords)}, so nothing was checked: {type(err).__name__}: {err}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
    except Exception as err:  # the subject's failure, with its cause
        why = f"your learner's fit raised {type(err).__name__}: {err}"
        return None, Check(name, stats.FAIL, f"{why} (on {X.shape[0]} examples, d = {X.shape[1]}, random_state = "
                           f"{state})", cause=why, raised=True)
    return model, None


def _recorded_draws(spec: Spec, path: dict, rows: int) -> list[tuple[tuple, np.ndarray]]:
    """(key, draw) for each recorded step: (w_t, g̃_t) for the online learners, ((), (A_t, v_t))
    for Baseline, whose per-example estimates do not depend on anything learnt."""
    if spec.draws == "estimates":
        A = np.asarray(path["A"], dtype=np.float64)
        v = np.asarray(path["v"], dtype=np.float64)
        return [((), np.concatenate([A[t].ravel(), v[t]])) for t in range(rows)]
    g = np.asarray(path["g_tilde"] if "g_tilde" in path else path["g"], dtype=np.float64)
    w = np.asarray(path["w"], dtype=np.float64)
    return [(tuple(w[t].tolist()), g[t]) for t in range(rows)]


def _estimator_check(spec: Spec, learner, k, B, eta, runs, delta, seed) -> Check:
    if spec.law is None:
        return _not_run("estimator", spec.no_law)
    rows = 2
    X = np.vstack([_EXAMPLE_X] * (spec.lead + rows))
    y = np.full(spec.lead + rows, _EXAMPLE_Y)
    keywords = _keywords(spec, k, B, eta, X.shape[1])
    laws: dict[tuple, tuple[np.ndarray, list[Fraction]]] = {}  # key -> the law's outcomes and probabilities
    counts: dict[tuple, np.ndarray] = {}
    seeds = seed.generate_state(runs, dtype=np.uint32)
    wanted = ("'A' and 'v'" if spec.draws == "estimates" else "'w' and 'g'")
    what = "the estimates (A_t, v_t)" if spec.draws == "estimates" else "g̃"
    for r in range(runs):
        model, failed = _fitted("estimator", learner, keywords, int(seeds[r]), X, y)
        if failed is not None:
            return failed
        try:
            draws = _recorded_draws(spec, model.trajectory_, rows)
        except (TypeError, AttributeError, KeyError, IndexError, ValueError) as err:
            return _not_run("estimator", f"the learner does not record its path (record_trajectory=True, trajectory_ "
                            f"with {wanted} for each example): {type(err).__name__}: {err}")
        for key, draw in draws:  # given w_t, the draws of step t are fresh
            if key not in laws:
                laws[key] = _law(spec, key, k, keywords)
                counts[key] = np.zeros(len(laws[key][1]), dtype=np.int64)
            index = _outcome(laws[key][0], draw)
            if index < 0:  # fail at the first impossible value, without running the rest
                where = f"at w = {_show(key)}, " if key else ""
                cause = f"{where}{what} took the value {_show(draw)}, which the paper's estimator never takes there"
                return Check("estimator", stats.FAIL, f"run {r + 1}: {cause}; exact, no false-FAIL rate",
                             {"w": _show(key), "outcome": _show(draw)}, cause=cause)
            counts[key][index] += 1
    groups = laws
    tests = [(key, laws[key][0][i], int(counts[key][i]), int(counts[key].sum()), float(p))
             for key in laws for i, p in enumerate(laws[key][1])]  # (key, outcome, count, n, p)
    from scipy.stats import binomtest

    level = delta / max(len(tests), 1)
    worst = min(tests, key=lambda t: binomtest(t[2], t[3], t[4]).pvalue)
    pvalue = binomtest(worst[2], worst[3], worst[4]).pvalue
    n_max = max(t[3] for t in tests)
    z = math.sqrt(2.0 * math.log(2.0 / level))
    resolution = z * math.sqrt(0.25 / n_max)
    d = X.shape[1]
    missed = d * (1.0 - 1.0 / d) ** (spec.lead * (k + 1))
    lead = (f" The first {spec.lead} showings of the example are phase 1 (q from its estimates A_i = x_i², exact once "
            f"every attribute is drawn; a run leaves one undrawn with probability ≤ d(1 − 1/d)^(m₁(k+1)) = "
            f"{missed:.1g}, which adds at most {runs * missed:.1g} to the false-FAIL rate)." if spec.lead else "")
    calibration = (f"exact two-sided binomial tests of {len(tests)} outcome probabilities over {len(groups)} "
                   f"distinct {'w' if spec.draws == 'gradient' else 'law'}, each at δ/{len(tests)} (Bonferroni; "
                   f"false-FAIL rate ≤ {delta:g}); it detects a probability off by about {resolution:.2g} at the "
                   f"best-sampled {'w' if spec.draws == 'gradient' else 'law'} (Hoeffding).{lead}")
    if pvalue <= level:
        where = f"at w = {_show(worst[0])} " if worst[0] else ""
        cause = (f"{where}the outcome {_show(worst[1])} came {worst[2]} times in {worst[3]} draws; the paper's "
                 f"estimator gives it probability {worst[4]:.4g} (p = {pvalue:.2g} ≤ {level:.2g})")
        return Check("estimator", stats.FAIL, f"{cause}. {calibration}", {"tests": len(tests)}, cause=cause)
    return Check("estimator", stats.PASS,
                 f"{runs} runs: every value of {what} is one the paper's estimator takes, with frequencies "
                 f"consistent with its law (smallest p = {pvalue:.2g} > {level:.2g}). {calibration}",
                 {"tests": len(tests), "groups": len(groups)})


# ---------------------------------------------------------------------- the step
#: the step sizes of the step check: large enough that the projection on the L2 ball, and the clip of g̃ at 1/η of
#: the L1 learners, bind on the example (|g̃_i| reaches 1/8 there), so that a step that skips either shows
_STEP_ETA = {"l2": 2.0, "l1": 16.0}
_STEP_RUNS = 200


def _step_check(spec: Spec, learner, k, B, seed) -> Check:
    """The first step of the recorded path against the algorithm's update, given the learner's own recorded draw.

    For the L2 learners (AERR, ks15's Ridge learners) w₂ = Π(w₁ − η g̃₁), the projection on the ball of radius B;
    for the L1 learners (AELR, ks15's Lasso learners) ḡ₁ = clip(g̃₁, 1/η) coordinate-wise (line 13 of hk12's
    Algorithm 2) and w₂ = B(p⁺ − p⁻) with p^± ∝ exp(∓η ḡ₁) from the uniform start (w₁ = 0). Deterministic given the
    draw, so exact up to rounding (10⁻⁹ relative): a step with another η, without the projection or the clip, with
    the clip applied to each draw before repeated coordinates are summed, or with the unclipped g̃ fails."""
    if spec.step is None or spec.draws != "gradient":
        return _not_run("step", "this algorithm's update is not one gradient step of a given η (AER steps with its "
                        "λ-regularised rule, Baseline solves a batch problem), so no step was checked")
    eta = _STEP_ETA[spec.norm]
    rows = 2
    X = np.vstack([_EXAMPLE_X] * (spec.lead + rows))
    y = np.full(spec.lead + rows, _EXAMPLE_Y)
    keywords = {**_keywords(spec, k, B, eta, X.shape[1])}
    clipped = 0
    for r, state in enumerate(seed.generate_state(_STEP_RUNS, dtype=np.uint32)):
        model, failed = _fitted("step", learner, keywords, int(state), X, y)
        if failed is not None:
            return failed
        try:
            path = model.trajectory_
            w = np.asarray(path["w"], dtype=np.float64)[:rows]
            g = np.asarray(path["g"], dtype=np.float64)[0]
            g_tilde = np.asarray(path["g_tilde"], dtype=np.float64)[0] if "g_tilde" in path else g
        except (TypeError, AttributeError, KeyError, IndexError, ValueError) as err:
            return _not_run("step", "the learner does not record its path (record_trajectory=True, trajectory_ with "
                            f"'w' and 'g' for each example): {type(err).__name__}: {err}")
        if w.shape != (rows, len(_EXAMPLE_X)) or g.shape != (len(_EXAMPLE_X),):
            return _not_run("step", f"the recorded path has w of shape {w.shape} and g of shape {g.shape}, not one "
                            f"row of {len(_EXAMPLE_X)} per example")
        if spec.norm == "l2":
            expected = w[0] - eta * g_tilde
            size = float(np.linalg.norm(expected))
            expected = expected * (B / size) if size > B else expected
            rule = f"w₂ = Π(w₁ − η g̃₁) at η = {eta:g}"
        else:
            bar = np.clip(g_tilde, -1.0 / eta, 1.0 / eta)
            clipped += bool(np.any(bar != g_tilde))
            if not np.allclose(g, bar, rtol=1e-9, atol=1e-12):
                cause = (f"run {r + 1}: the recorded ḡ₁ = {_show(g)} is not clip(g̃₁, 1/η) = {_show(bar)} for the "
                         f"recorded g̃₁ = {_show(g_tilde)} at η = {eta:g} (line 13 clips the summed estimate)")
                return Check("step", stats.FAIL, cause + "; exact, no false-FAIL rate", cause=cause)
            if np.any(w[0] != 0.0):
                return _not_run("step", f"w₁ = {_show(w[0])}, not the uniform start w₁ = 0 from which the step is "
                                "computed here, so no step was checked")
            up, down = np.exp(-eta * bar), np.exp(eta * bar)
            expected = B * (up - down) / (up.sum() + down.sum())
            rule = f"w₂ = B(p⁺ − p⁻), p^± ∝ exp(∓η clip(g̃₁, 1/η)) at η = {eta:g}"
        if not np.allclose(w[1], expected, rtol=1e-9, atol=1e-12):
            cause = (f"run {r + 1}: after the recorded draw g̃₁ = {_show(g_tilde)}, w₂ = {_show(w[1])}, where the "
                     f"algorithm's step gives {_show(expected)} ({rule})")
            return Check("step", stats.FAIL, cause + "; exact, no false-FAIL rate", cause=cause)
    binding = (f"; the clip bound in {clipped} of the {_STEP_RUNS} runs" if spec.norm == "l1" else "")
    return Check("step", stats.PASS, f"{_STEP_RUNS} runs on the example at η = {eta:g}: every first step is the "
                 f"algorithm's ({rule}) given the recorded draw{binding}; exact, no false-FAIL rate")


# ---------------------------------------------------------------------- 3. behaviour over seeds
def _behaviour_check(spec: Spec, learner, builtin, k, B, seeds, delta, seed, eta=None,
                     as_configured: bool = False) -> Check:
    """``as_configured``: the learner keeps its own step size, and the built-in gets ``eta`` when it is a number
    (else its theorem's); otherwise the learner gets the built-in's fitted values (:attr:`Spec.shared`)."""
    from scipy.stats import ks_2samp

    from .generators.registry import build_design
    from .kinds.learners import excess_risk, output_in_ball
    from .rng import kernel_state

    params = {**discover()[spec.params_from].profile("quick"), **spec.design_params}
    names = spec.designs
    m = 400
    rows, verdicts, raised = [], [], False
    for entry, child in zip(names, seed.spawn(len(names)), strict=True):
        name, fixed = (entry, {}) if isinstance(entry, str) else entry
        design = build_design(spec.setting, name, params)
        extra = {**spec.design_options(design), **fixed}
        if fixed:
            name += " (" + ", ".join(f"{key} = {value}" for key, value in fixed.items()) + ")"
        risks = {"yours": [], "built-in": []}
        outside = 0
        for s in child.spawn(seeds):
            data, algo = s.spawn(2)
            X, y = design.sample(m, kernel_state(data))
            state = int(algo.generate_state(1)[0])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                own = {spec.step: eta} if as_configured and spec.step and eta is not None else {}
                reference = builtin(k=k, B=B, random_state=state, **extra, **own).fit(X, y)
                same = {} if as_configured else {key: getattr(reference, key + "_") for key in spec.shared
                                                 if hasattr(reference, key + "_") and key not in extra}
                try:
                    coef = np.asarray(learner(k=k, B=B, random_state=state, **extra, **same).fit(X, y).coef_,
                                      dtype=np.float64)
                except Exception as err:  # the subject's failure is a verdict, with its cause
                    verdicts.append(stats.FAIL)
                    rows.append(f"{name}: your learner raised {type(err).__name__}: {err}")
                    raised = True
                    break
            if coef.shape != (X.shape[1],):
                verdicts.append(stats.FAIL)
                rows.append(f"{name}: your coef_ has shape {coef.shape}, not ({X.shape[1]},)")
                break
            outside += bool(np.all(np.isfinite(coef))) and not output_in_ball(coef, B, spec.norm)
            risks["yours"].append(excess_risk(coef, design, B, spec.norm))
            risks["built-in"].append(excess_risk(np.asarray(reference.coef_), design, B, spec.norm))
        else:
            a, b = np.array(risks["yours"]), np.array(risks["built-in"])
            ball = f"‖w̄‖{'₂' if spec.norm == 'l2' else '₁'} ≤ B"
            if not np.all(np.isfinite(a)):
                verdicts.append(stats.FAIL)
                rows.append(f"{name}: {int(np.sum(~np.isfinite(a)))} of {seeds} of your w̄ are not finite")
                continue
            if outside:
                verdicts.append(stats.FAIL)
                rows.append(f"{name}: {outside} of {seeds} of your w̄ lie outside the ball {ball} (B = {B:g}), "
                            "which the theorems' w̄ never does (exact)")
                continue
            test = ks_2samp(a, b, method="exact")
            level = delta / len(names)
            verdicts.append(stats.FAIL if test.pvalue <= level else stats.PASS)
            rows.append(f"{name}: every w̄ in the ball {ball}; median excess risk {np.median(a):.4g} (yours) vs "
                        f"{np.median(b):.4g} (built-in), KS D = {test.statistic:.3f}, p = {test.pvalue:.2g}")
    resolution = math.sqrt(-math.log((delta / len(names)) / 2.0) * 2.0 / seeds)  # Dvoretzky–Kiefer–Wolfowitz
    failed = [row for row, v in zip(rows, verdicts, strict=False) if v == stats.FAIL]
    return Check("behaviour", stats.combine(verdicts), cause=failed[0] if failed else "", raised=raised,
                 decision="; ".join(rows) + f". Exact two-sample Kolmogorov–Smirnov tests on {seeds} seeds × {m} "
                 f"examples per design, each at δ/{len(names)} (false-FAIL rate ≤ {delta:g}); they detect distribution "
                 f"functions apart by about {resolution:.2f} (DKW).")


# ---------------------------------------------------------------------- 4. the attribute audit
def _reported_reads(path: dict, m: int, d: int) -> np.ndarray:
    """The (example, attribute) pairs a path names as read: ``read`` (m, r) padded with −1, or
    ``coordinates`` (m, r) and ``j`` (m,) (−1: none). Raises KeyError when it names neither,
    ValueError when it does not cover the m examples or names an attribute outside 0..d−1."""
    if "read" in path:
        columns = [np.asarray(path["read"], dtype=np.int64)]
    else:
        coords = np.asarray(path["coordinates"], dtype=np.int64)
        columns = [coords, np.asarray(path["j"], dtype=np.int64).reshape(-1, 1)]
    read = np.zeros((m, d), dtype=bool)
    rows = np.arange(m)
    for block in columns:
        if block.ndim != 2 or block.shape[0] != m:
            raise ValueError(f"the path has {block.shape[0] if block.ndim else 0} rows of reads for the {m} examples "
                             "(a path that leaves examples out cannot be audited)")
        if np.any(block >= d) or np.any(block < -1):
            raise IndexError(f"the path names attribute indices outside 0..{d - 1} (−1 meaning none)")
        for r in range(block.shape[1]):
            col = block[:, r]
            read[rows[col >= 0], col[col >= 0]] = True
    return read


def _audit_check(learner, k, B, eta, seed, spec: Spec | None = None) -> Check:
    """The reads observed through a watched view of X (:mod:`theorycheck.observe`), confirmed by a refit
    with every entry not observed read blanked; when the view cannot see the reads, the reads the learner
    reports in its path, confirmed the same way; when it reports none, not run."""
    spec = spec or ALGORITHMS["AERR"]
    rng = np.random.default_rng(seed)
    m, d = 300, 12
    X = rng.uniform(-1.0, 1.0, size=(m, d)) / math.sqrt(d)
    y = np.clip(X @ rng.normal(size=d) + 0.1 * rng.normal(size=m), -B, B)
    state = int(seed.generate_state(1)[0])
    keywords = _keywords(spec, k, B, eta, d)
    observed = _observed_audit(learner, keywords, state, X, y, rng, spec.budget(k), spec)
    if isinstance(observed, Check):
        return observed
    fallback = _reported_audit(learner, keywords, state, X, y, rng, spec.budget(k), spec)
    prefix = f"The view of X could not see the reads: {observed}. "
    if fallback.ran:
        fallback.decision = prefix + "The reads the learner reports were audited instead: " + fallback.decision
        return fallback
    return _not_run("attributes", prefix + "Nor could the reads it reports be audited: " + fallback.decision)


def _refit(learner, keywords, state, X, y, read, rng):
    """(w̄ of a refit on X with every entry outside ``read`` blanked, "NaN" or "noise"): NaN first, noise in
    [−1, 1]/√d when the learner refuses or crashes on NaN. Raises what the noise refit raises."""
    blanked = np.where(read, X, np.nan)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(learner(**keywords, random_state=state).fit(blanked, y).coef_), "NaN"
    except Exception:  # it refused NaN up front, or read one and crashed: noise decides
        noise = rng.uniform(-1.0, 1.0, size=X.shape) / math.sqrt(X.shape[1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(learner(**keywords, random_state=state).fit(np.where(read, X, noise), y).coef_), "noise"


def _observed_audit(learner, keywords, state, X, y, rng, budget, spec: Spec) -> Check | str:
    """The audit from the reads observed; a string (why) when the view could not see them."""
    from .observe import observed_fit

    m = X.shape[0]
    try:
        model = learner(**keywords, random_state=state)
    except Exception as err:
        return f"the learner cannot be built with {', '.join(keywords)}: {type(err).__name__}: {err}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, read, bulk = observed_fit(model, X, y)
        coef = np.asarray(model.coef_, dtype=np.float64)
    except Exception as err:  # a kernel that refuses the view, ...: the plain fit decides whether it is a failure
        return f"its fit on the watched view raised {type(err).__name__}: {err}"
    try:
        again, how = _refit(learner, keywords, state, X, y, read, rng)
    except Exception as err:
        return f"the refit with every entry not observed read replaced (by NaN, then by noise) raised " \
               f"{type(err).__name__}: {err}"
    if not np.array_equal(again, coef):
        return (f"with every entry not observed read ({int((~read).sum())} of {read.size}) replaced by {how}, the "
                "refit with the same random state returned another w̄: the learner reads X by a route the view "
                "does not see (a compiled kernel on the raw buffer, a copy made outside NumPy's conversion "
                "functions, ...) or its fit is not reproducible")
    per = read.sum(axis=1)
    most, total = int(per.max()), int(read.sum())
    reported = getattr(model, "n_attributes_seen_", None)
    text = (f"observed through a watched view of X: {total} entries read in {m} examples (at most {most} in one "
            f"example; the budget is {spec.budget_text()} = {budget} per example); every entry not observed read "
            f"replaced by {how} and refitted with the same random state: w̄ bit for bit the same, so no read that "
            "matters escaped the view")
    reported_text = "" if reported is None else f"; n_attributes_seen_ = {int(reported)}"
    if most > budget:
        over = int(np.sum(per > budget))
        cause = (f"{over} of {m} examples had more than {spec.budget_text()} = {budget} attributes read (up to {most})"
                 + (f"; whole-array reads: {', '.join(bulk)}" if bulk else "") + reported_text)
        return Check("attributes", stats.FAIL, f"{text}. {cause} (exact)", {"observed": True}, cause=cause)
    if reported is not None and int(reported) < total:
        cause = f"n_attributes_seen_ = {int(reported)}, fewer than the {total} distinct entries observed read"
        return Check("attributes", stats.FAIL, f"{text}. {cause} (exact)", {"observed": True}, cause=cause)
    return Check("attributes", stats.PASS, f"{text}{reported_text}; no example exceeds the budget (exact: no "
                 "false-FAIL rate)", {"observed": True})


def _reported_audit(learner, keywords, state, X, y, rng, budget, spec: Spec) -> Check:
    m, d = X.shape
    model, failed = _fitted("attributes", learner, keywords, state, X, y)
    if failed is not None:
        return failed
    try:
        read = _reported_reads(model.trajectory_, m, d)
    except (TypeError, AttributeError, KeyError) as err:
        return _not_run("attributes", "the learner does not say which attributes it read (trajectory_ with 'read', "
                        "or 'coordinates' and 'j', under record_trajectory=True), so nothing was audited: "
                        f"{type(err).__name__}: {err}")
    except ValueError as err:
        return _not_run("attributes", f"{err}, so nothing was audited")
    except IndexError as err:
        return Check("attributes", stats.FAIL, str(err), cause=str(err))
    reported = getattr(model, "n_attributes_seen_", None)
    if reported is not None and int(reported) != int(read.sum()):
        cause = (f"n_attributes_seen_ = {reported}, but the path names {int(read.sum())} distinct (example, "
                 "attribute) pairs")
        return Check("attributes", stats.FAIL, cause, cause=cause)
    try:
        again, how = _refit(learner, keywords, state, X, y, read, rng)
    except Exception as err:  # the same learner fitted X itself: its failure here is a verdict
        cause = (f"the refit on X with every unread entry replaced (by NaN, then by noise) raised "
                 f"{type(err).__name__}: {err}")
        return Check("attributes", stats.FAIL, cause, cause=cause, raised=True)
    same = np.array_equal(again, np.asarray(model.coef_))
    most = int(read.sum(axis=1).max())
    text = (f"{int(read.sum())} attributes read in {m} examples (at most {most} in one example; the budget is "
            f"{spec.budget_text()} = {budget} per example, ≤ {budget * m} in all); every other entry of X replaced by "
            f"{how} and refitted with the same random state: w̄ ")
    if not same:
        cause = "w̄ changed when the entries the path does not name were blanked: the learner read attributes it " \
                "did not report"
        return Check("attributes", stats.FAIL, text + "changed, so the learner read attributes it did not report "
                     "(exact: no false-FAIL rate)", cause=cause)
    if most > budget:
        cause = f"{int(np.sum(read.sum(axis=1) > budget))} examples had more than {spec.budget_text()} = {budget} " \
                "attributes read"
        return Check("attributes", stats.FAIL, text + f"is unchanged, but {cause} (exact)", cause=cause)
    return Check("attributes", stats.PASS, text + "is bit-for-bit the same, and no example exceeds the budget "
                 "(exact: no false-FAIL rate)")


# ---------------------------------------------------------------------- sk13: Scoring and Full
def _crowd_instance(rng, m: int = 30, d: int = 4, k: int = 3):
    """Training judgments J (m, d, k) and labels y: correlated objects x ~ N(0, LLᵀ), each feature judged k
    times with its own noise level in [0.2, 2], y a noisy linear function of x."""
    L = np.eye(d) + rng.normal(size=(d, d)) / math.sqrt(d)
    x = rng.normal(size=(m, d)) @ L.T
    J = x[:, :, None] + rng.uniform(0.2, 2.0, size=d)[None, :, None] * rng.normal(size=(m, d, k))
    return J, x @ rng.normal(size=d) + 0.1 * rng.normal(size=m)


def _selection_checks(which: str):
    """The checks of sk13's Scoring or Full: the r a learner chooses, against Algorithm 1's objective."""

    def checks(make, own, profile, delta, seed):
        from .algorithms import sk13

        budget = int(own.get("budget", 6)) if own is not None else 6
        keywords = {} if own is not None else {"budget": budget}
        n = profile["instances"]
        rng = np.random.default_rng(seed)
        worst, optimal, failures = None, 0, 0
        for i in range(n):
            J, y = _crowd_instance(rng)
            s = sk13.crowd_statistics(J, y)
            if which == "Scoring":
                sigma2 = np.maximum(0.0, np.diag(s.second) - s.v / s.k)
                objective = lambda r, s=s, sigma2=sigma2: sk13.scoring_objective(r, s.b, sigma2, s.v)  # noqa: E731
            else:
                Sigma = sk13.make_psd(s.second - np.diag(s.v / s.k))
                objective = lambda r, s=s, Sigma=Sigma: sk13.full_objective(r, s.b, Sigma, s.v)  # noqa: E731
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = np.asarray(make(**keywords).fit(J, y).r_)
            except Exception as err:  # the subject's failure is a verdict, with its cause
                cause = f"instance {i + 1}: your learner raised {type(err).__name__}: {err}"
                return {"budget": budget}, [Check("objective", stats.FAIL, cause, cause=cause, raised=True)]
            if r.shape != (J.shape[1],) or np.any(r < 0) or np.any(r != np.round(r)) or r.sum() > budget:
                cause = (f"instance {i + 1}: r_ = {r.tolist()} is not a vector of {J.shape[1]} non-negative integers "
                         f"with Σ r ≤ B = {budget}")
                return {"budget": budget}, [Check("objective", stats.FAIL, cause, cause=cause)]
            r = r.astype(np.int64)
            greedy, _ = sk13.greedy_repeats(objective, J.shape[1], budget)
            best, best_value = sk13.brute_force_repeats(objective, J.shape[1], budget)
            value, reference = objective(r), objective(greedy)
            optimal += math.isclose(reference, best_value, rel_tol=1e-9, abs_tol=1e-12)
            wrong = not math.isclose(value, reference, rel_tol=1e-9, abs_tol=1e-12)
            if which == "Scoring":  # Theorem 3.2: the greedy r is a maximiser over R_B
                wrong = wrong or not math.isclose(value, best_value, rel_tol=1e-9, abs_tol=1e-12)
            if wrong:
                failures += 1
                worst = worst or (f"instance {i + 1}: your r = {r.tolist()} has objective {value:.6g}; Algorithm 1's "
                                  f"greedy takes r = {greedy.tolist()} ({reference:.6g}), the maximum over R_B is "
                                  f"{best_value:.6g} at r = {best.tolist()}")
        name = "Σ b̂²/(σ̂² + v̂/r) (eq. (1))" if which == "Scoring" else "sub_r(b̂)ᵀ sub_r(Σ̂ + Diag(v̂/r))⁺ sub_r(b̂)"
        text = (f"{n} instances (m = 30 objects, d = 4 correlated features with their own noise, k = 3 judgments, "
                f"B = {budget}): the objective of your r_, {name} from Algorithm 1's estimates, against that of "
                f"Algorithm 1's greedy r (lines 14–18), equal up to rounding (10⁻⁹ relative)"
                + (", and against the maximum over all of R_B, which Theorem 3.2 says the greedy attains" if
                   which == "Scoring" else f"; the greedy attains the maximum over R_B on {optimal} of {n} (Full's "
                   "greedy is not claimed optimal)") + ". Exact: no false-FAIL rate")
        if failures:
            cause = f"{failures} of {n} instances: {worst}"
            return {"budget": budget}, [Check("objective", stats.FAIL, f"{text}. {cause}", cause=cause)]
        return {"budget": budget}, [Check("objective", stats.PASS, f"{text}; every r_ has the greedy's objective")]

    return checks


ALGORITHMS.update({
    "Scoring": Spec("theorycheck.algorithms.sk13:ScoringSelector", checks=_selection_checks("Scoring"),
                    names=("objective",)),
    "Full": Spec("theorycheck.algorithms.sk13:FullSelector", checks=_selection_checks("Full"), names=("objective",)),
})


# ---------------------------------------------------------------------- reyzin11: AdaBoostRS and AdaBoostRS_AC
_STUMPS = ("features_", "thresholds_", "polarities_", "alphas_")
_BOOST_COSTS = np.array([1.0, 2.0, 0.5, 1.0])  # dyadic, so that sums of votes ±c are exact in floats


def _boosting_data(rng, m: int = 80, d: int = 4):
    """A training set with no perfect stump: y = sign(⟨β, x⟩ + noise) on x uniform in [−1, 1]^d."""
    X = rng.uniform(-1.0, 1.0, size=(m, d))
    y = np.where(X @ np.array([1.0, -0.8, 0.6, 0.4])[:d] + 0.6 * rng.normal(size=m) > 0.0, 1.0, -1.0)
    return X, y


def _stump_outputs(ensemble, X) -> np.ndarray:
    """h_t(x) = s_t if x[j_t] > θ_t else −s_t for every row of X and stump t, shape (n, T)."""
    features, thresholds, polarities, _ = ensemble
    return np.where(X[:, features] > thresholds, 1.0, -1.0) * polarities


def _vote_law(h, features, p, increments, fcost, budget, tail: float = 1e-13):
    """The exact law of Algorithms 2/3 on one example given the ensemble: {(mask of the features examined,
    sign of v): probability} and the mass left when the loop is cut (≤ ``tail``). Draws i ~ p while
    k + max c(h) < B, k the cost of the distinct features examined; when every feature of positive probability
    is examined and the loop could not end, the full vote's sign is taken (§3.1; the built-in's rule)."""
    maxc = float(fcost[features].max())
    relevant = 0
    for i in np.flatnonzero(p > 0):
        relevant |= 1 << int(features[i])
    full = float(np.sign(np.sum(p * h)))

    def cost(mask):
        return sum(float(fcost[j]) for j in range(len(fcost)) if mask >> j & 1)

    out: dict[tuple[int, float], float] = {}
    active = {(0, 0.0): 1.0}
    if maxc >= budget:
        return {(0, 0.0): 1.0}, 0.0
    draws = [(int(i), 1 << int(features[i]), float(p[i]), float(increments[i] * h[i])) for i in np.flatnonzero(p > 0)]
    while active and sum(active.values()) > tail:
        nxt: dict[tuple[int, float], float] = {}
        for (mask, v), q in active.items():
            for _, bit, prob, step in draws:
                key = (mask | bit, v + step)
                if cost(key[0]) + maxc < budget and key[0] != relevant:
                    nxt[key] = nxt.get(key, 0.0) + q * prob
                else:
                    sign = full if cost(key[0]) + maxc < budget else float(np.sign(key[1]))
                    out[(key[0], sign)] = out.get((key[0], sign), 0.0) + q * prob
        active = nxt
    return out, sum(active.values())


def _training_check(ensemble, X, y) -> Check:
    """Algorithm 1's closed form on the learner's own stumps: D₁ uniform, ε_t the D_t-mass of the mistakes of
    h_t, α_t = ½ ln((1 − ε_t)/ε_t), D_{t+1} ∝ D_t exp(−α_t y h_t(x)). Exact (rounding: 10⁻⁹ relative)."""
    H = _stump_outputs(ensemble, X)
    alphas = ensemble[3]
    D = np.full(X.shape[0], 1.0 / X.shape[0])
    text = (f"{len(alphas)} rounds on {X.shape[0]} training examples (d = {X.shape[1]}, no perfect stump): each of "
            "your α_t against Algorithm 1's ½ ln((1 − ε_t)/ε_t), ε_t the weight under D_t of h_t's mistakes, D_t "
            "rebuilt from your stumps. Exact (rounding: 10⁻⁹ relative), no false-FAIL rate")
    for t in range(len(alphas)):
        eps = float(D[H[:, t] != y].sum())
        if not 0.0 < eps < 0.5:
            cause = (f"round {t + 1}: your stump (feature {int(ensemble[0][t])}, θ = {float(ensemble[1][t]):.4g}) has "
                     f"weighted error ε = {eps:.4g} under D_t; Algorithm 1 adds only weak hypotheses (0 < ε < ½)")
            return Check("training", stats.FAIL, f"{text}. {cause}", cause=cause)
        alpha = 0.5 * math.log((1.0 - eps) / eps)
        if not math.isclose(float(alphas[t]), alpha, rel_tol=1e-9, abs_tol=1e-12):
            cause = (f"round {t + 1}: α_t = {float(alphas[t]):.8g}, but ε_t = {eps:.8g} under D_t gives "
                     f"½ ln((1 − ε_t)/ε_t) = {alpha:.8g}")
            return Check("training", stats.FAIL, f"{text}. {cause}", cause=cause)
        D = D * np.exp(-alpha * y * H[:, t])
        D /= D.sum()
    return Check("training", stats.PASS, text + "; every α_t is the closed form")


def _interval_pvalue(count: int, n: int, low: float, high: float) -> float:
    """The two-sided exact binomial p-value of ``count`` in ``n`` against a probability known to lie in
    [low, high] (the nearer end; 1 inside)."""
    from scipy.stats import binomtest

    if count < n * low:
        return float(binomtest(count, n, min(low, 1.0)).pvalue)
    if count > n * high:
        return float(binomtest(count, n, min(high, 1.0)).pvalue)
    return 1.0


def _predicted(model, Xrep, keywords):
    """(predictions, the features examined per row or None, how they were found, the bulk reads): observed
    through a watched view and confirmed by predicting again with every entry not read blanked; else the
    examined features the learner reports (``examined(row)``, the built-in's); else None."""
    from .observe import observed_call

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            preds, read, bulk = observed_call(model.predict, Xrep, **keywords)
            preds = np.asarray(preds, dtype=np.float64)
            try:
                again = model.predict(np.where(read, Xrep, np.nan), **keywords)
            except Exception:  # it refused NaN (or read one and crashed): noise decides
                noise = np.random.default_rng(1).uniform(-1.0, 1.0, size=Xrep.shape)
                again = model.predict(np.where(read, Xrep, noise), **keywords)
            if np.array_equal(np.asarray(again, dtype=np.float64), preds):
                return preds, read, "observed through a watched view of X (confirmed by a blanked re-prediction)", bulk
        except Exception:  # a compiled kernel that refuses the view, ...: predict plainly
            pass
        preds = np.asarray(model.predict(Xrep, **keywords), dtype=np.float64)
    if callable(getattr(model, "examined", None)):
        read = np.zeros(Xrep.shape, dtype=bool)
        for row in range(Xrep.shape[0]):
            read[row, np.asarray(model.examined(row), dtype=np.int64)] = True
        return preds, read, "as the learner reports them (examined(row)); the view of X could not see them", []
    return preds, None, "not observable (the view of X could not see the reads, and the learner reports none)", []


def _boosting_checks(cost_aware: bool):
    """The checks of AdaBoostRS (``cost_aware`` False: p ∝ α, votes ±1) or AdaBoostRS_AC (p ∝ α/c, votes ±c)."""

    def checks(make, own, profile, delta, seed):
        s_train, s_test, s_state = seed.spawn(3)
        X, y = _boosting_data(np.random.default_rng(s_train))
        d = X.shape[1]
        T = 8
        costs = _BOOST_COSTS[:d] if cost_aware else np.ones(d)
        budget = 3.5 if cost_aware else 3.0
        keywords = {"budget": budget, **({"costs": costs} if cost_aware else {})}
        state = int(s_state.generate_state(1)[0])
        assumed = {"n_estimators": own.get("n_estimators", T) if own is not None else T, "budget": budget,
                   "costs": costs.tolist()}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = (make(random_state=state) if own is not None else
                         make(n_estimators=T, random_state=state)).fit(X, y)
        except Exception as err:  # the subject's failure is a verdict, with its cause
            cause = f"your learner's fit raised {type(err).__name__}: {err}"
            return assumed, [Check("training", stats.FAIL, cause, cause=cause, raised=True)]
        try:
            ensemble = tuple(np.asarray(getattr(model, name)) for name in _STUMPS)
            ensemble = (ensemble[0].astype(np.int64), ensemble[1].astype(np.float64),
                        ensemble[2].astype(np.float64), ensemble[3].astype(np.float64))
            if len({a.shape for a in ensemble}) != 1 or ensemble[0].ndim != 1 or not ensemble[0].size:
                raise ValueError("the four arrays must be 1-D, non-empty and of one length")
        except (AttributeError, TypeError, ValueError) as err:
            why = ("the learner does not expose its stumps as features_, thresholds_, polarities_ and alphas_ "
                   f"(h_t(x) = s_t if x[j_t] > θ_t else −s_t), so neither its training nor its sampling law could be "
                   f"checked: {type(err).__name__}: {err}")
            return assumed, [_not_run("training", why), _not_run("sampling", why)]
        return assumed, [_training_check(ensemble, X, y),
                         *_sampling_checks(model, ensemble, keywords, costs, budget, cost_aware, profile["runs"],
                                           delta, np.random.default_rng(s_test))]

    return checks


def _sampling_checks(model, ensemble, keywords, costs, budget, cost_aware, runs, delta, rng) -> list[Check]:
    """The law of (features examined, prediction) on three test examples, each predicted ``runs`` times, against
    the exact law given the learner's ensemble; and the budget of every prediction (cost < B)."""
    features, _, _, alphas = ensemble
    weights = alphas / costs[features] if cost_aware else alphas.copy()
    p = weights / weights.sum()
    increments = costs[features] if cost_aware else np.ones(len(alphas))
    points = rng.uniform(-1.0, 1.0, size=(3, len(costs)))
    tests, over, shown, how_all = [], [], [], set()
    for e, x in enumerate(points):
        h = _stump_outputs(ensemble, x[None, :])[0]
        law, tail = _vote_law(h, features, p, increments, costs, budget)
        Xrep = np.repeat(x[None, :], runs, axis=0)
        try:
            preds, read, how, bulk = _predicted(model, Xrep, keywords)
        except Exception as err:
            cause = f"your learner's predict raised {type(err).__name__}: {err}"
            return [Check("sampling", stats.FAIL, cause, cause=cause)]
        how_all.add(how)
        if preds.shape != (runs,) or not np.all(np.isin(preds, (-1.0, 1.0))):
            cause = f"predict returned {preds[:5].tolist()}…, not one label ±1 per row"
            return [Check("sampling", stats.FAIL, cause, cause=cause)]
        masks = None
        if read is not None:
            masks = read @ (1 << np.arange(len(costs)))
            spent = read @ costs
            if np.any(spent >= budget):
                over.append(f"example {e + 1}: {int(np.sum(spent >= budget))} of {runs} predictions read features "
                            f"costing up to {spent.max():g} ≥ B = {budget:g}"
                            + (f" (whole-array reads: {', '.join(bulk)})" if bulk else ""))
        bins: dict = {}
        for (mask, sign), prob in law.items():
            for label in (-1.0, 1.0):
                key = (mask, label) if masks is not None else label
                low, high = bins.get(key, (0.0, 0.0))
                add = prob if sign == label else (prob if sign == 0.0 else 0.0)
                bins[key] = (low + (prob if sign == label else 0.0), high + add)
        keys = list(zip(masks.tolist(), preds.tolist(), strict=True)) if masks is not None else preds.tolist()
        counts: dict = {}
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
        for key, count in counts.items():
            if key not in bins:  # a set of features the budget rule never stops at (or a label no vote gives)
                what = (f"the features {[j for j in range(len(costs)) if key[0] >> j & 1]} examined and the "
                        f"prediction {key[1]:+g}" if masks is not None else f"the prediction {key:+g}")
                cause = (f"example {e + 1}: {what} came {count} times; the budget rule and the sampling law given "
                         "your ensemble never give it")
                return [Check("sampling", stats.FAIL, f"{cause} (exact, no false-FAIL rate)", cause=cause),
                        *_budget_check(over, how_all, budget)]
        tests += [(e, key, counts.get(key, 0), low, high + tail) for key, (low, high) in bins.items()]
        shown.append(len(law))
    level = delta / max(len(tests), 1)
    pvalues = [_interval_pvalue(count, runs, low, high) for _, _, count, low, high in tests]
    worst = int(np.argmin(pvalues))
    law_text = "p ∝ α/c(h), votes ±c(h)" if cost_aware else "p ∝ α, votes ±1"
    resolution = math.sqrt(2.0 * math.log(2.0 / level) * 0.25 / runs)
    seen = not any("not observable" in how for how in how_all)
    text = (f"3 test examples, each predicted {runs} times under B = {budget:g} (costs {costs.tolist()}); outcomes "
            f"{'(features examined, prediction)' if seen else 'prediction'} "
            f"against their exact law given your ensemble ({law_text}, draws while k + max c(h) < B; a tie v = 0 may "
            f"go either way, so its mass is allowed to either label): {len(tests)} exact two-sided binomial tests, "
            f"each at δ/{len(tests)} (Bonferroni; false-FAIL rate ≤ {delta:g}); they detect a probability off by "
            f"about {resolution:.2g} (Hoeffding). Features examined: {'; '.join(sorted(how_all))}")
    if pvalues[worst] <= level:
        e, key, count, low, high = tests[worst]
        what = (f"(features {[j for j in range(len(costs)) if key[0] >> j & 1]}, prediction {key[1]:+g})"
                if isinstance(key, tuple) else f"the prediction {key:+g}")
        cause = (f"example {e + 1}: {what} came {count} times in {runs}; the law given your ensemble gives it "
                 f"probability {low:.4g}" + (f" to {high:.4g}" if high > low + 1e-12 else "")
                 + f" (p = {pvalues[worst]:.2g} ≤ {level:.2g})")
        return [Check("sampling", stats.FAIL, f"{text}. {cause}", cause=cause), *_budget_check(over, how_all, budget)]
    return [Check("sampling", stats.PASS, f"{text}. Smallest p = {pvalues[worst]:.2g} > {level:.2g}"),
            *_budget_check(over, how_all, budget)]


def _budget_check(over: list[str], how: set[str], budget: float) -> list[Check]:
    if any("not observable" in h for h in how):
        return [_not_run("attributes", "the features a prediction examines could not be seen (a compiled kernel on "
                         "the raw buffer, and no examined(row)), so the budget was not audited")]
    text = (f"the cost of the features each prediction read ({'; '.join(sorted(how))}) against the box's guarantee "
            f"k < B = {budget:g} (before the last draw k + max c(h) < B). Exact: no false-FAIL rate")
    if over:
        return [Check("attributes", stats.FAIL, f"{text}. {over[0]}", cause=over[0])]
    return [Check("attributes", stats.PASS, text + "; every prediction within it")]


ALGORITHMS.update({
    "AdaBoostRS": Spec("theorycheck.algorithms:AdaBoostRS", checks=_boosting_checks(False),
                       names=("training", "sampling", "attributes")),
    "AdaBoostRS_AC": Spec("theorycheck.algorithms:AdaBoostRSAC", checks=_boosting_checks(True),
                          names=("training", "sampling", "attributes")),
})


# ---------------------------------------------------------------------- hk12 §4: GenEst and AESVR
#: Procedure 3's instance: dyadic, ‖x‖₂ ≤ 1, ‖w‖₂ ≤ B = 1 (N = 4, ν₀ = 4), f′ a polynomial of degree 3 ≤ ν₀
_GENEST = (np.array([0.5, -0.25, 0.125, 0.25]), np.array([0.5, 0.25, -0.375, 0.125]), 0.25,
           np.array([0.5, 1.0, -0.5, 0.25]), 1.0)
_GENEST_AUDITED = 300  # draws whose reads are observed


def _genest_law() -> dict[tuple[float, int], float]:
    """{(φ̂, queries): probability} of Procedure 3 on :data:`_GENEST`: the exact law for n ≤ 3, and for n > 3
    (φ̂ = 0, aₙ = 0) the queries the procedure still makes: n up to ν₀, n·N beyond (to n = 63; 2⁻⁶⁴ left)."""
    w, x, y, coefficients, B = _GENEST
    N, nu = estimators.genest_threshold(B)
    law: dict[tuple[float, int], float] = {}
    for prob, value, queries in estimators.genest_distribution(w, x, y, coefficients, B):
        if queries >= 0:  # the lumped tail (−1) is replaced by its parts below
            key = (float(value), int(queries))
            law[key] = law.get(key, 0.0) + float(prob)
    for n in range(len(coefficients), 64):
        key = (0.0, n if n <= nu else n * N)
        law[key] = law.get(key, 0.0) + 2.0 ** -(n + 1)
    return law


def _genest_checks(make, own, profile, delta, seed):
    """GenEst: the joint law of (φ̂, queries) against Procedure 3's, and the reads observed against the queries."""
    from scipy.stats import binomtest

    from .observe import observed_call

    w, x, y, coefficients, B = _GENEST
    runs = profile["runs"]
    law = _genest_law()
    keys = list(law)
    values = np.array([k[0] for k in keys])
    counts = np.zeros(len(keys), dtype=np.int64)
    seeds = seed.generate_state(runs, dtype=np.uint32)
    assumed = {"w": w.tolist(), "x": x.tolist(), "y": y, "coefficients": coefficients.tolist(), "B": B}
    over, defeated, audited = [], "", 0
    for r in range(runs):
        call = lambda xv, r=r: make(w.copy(), xv, y, coefficients.copy(), B, random_state=int(seeds[r]))  # noqa: E731
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if r < _GENEST_AUDITED and not defeated:
                    (value, queries), read, bulk = observed_call(call, x)
                    try:
                        again = call(np.where(read, x, np.nan))
                    except Exception:  # it refused NaN, or read one and crashed: noise decides
                        again = call(np.where(read, x, np.random.default_rng(r).uniform(-0.5, 0.5, x.shape)))
                    if (float(again[0]), int(again[1])) != (float(value), int(queries)):
                        defeated = (f"draw {r + 1}: with every attribute not observed read blanked, the same random "
                                    "state gave another (φ̂, queries): the function reads x by a route the view does "
                                    "not see (a compiled kernel on the raw buffer, ...)")
                    else:
                        audited += 1
                        if int(read.sum()) > int(queries):
                            bulk_text = f" (whole-array reads: {', '.join(bulk)})" if bulk else ""
                            over.append(f"draw {r + 1}: {int(read.sum())} distinct attributes read, {int(queries)} "
                                        f"queries reported{bulk_text}")
                else:
                    value, queries = call(x)
            value, queries = float(value), int(queries)
        except Exception as err:  # the subject's failure is a verdict, with its cause
            cause = f"draw {r + 1}: your function raised {type(err).__name__}: {err}"
            return assumed, [Check("estimator", stats.FAIL, cause, cause=cause)]
        gap = np.where([k[1] == queries for k in keys], np.abs(values - value), np.inf)
        best = int(np.argmin(gap))
        if not gap[best] <= 1e-9 * (1.0 + abs(values[best])):
            cause = (f"draw {r + 1}: (φ̂, queries) = ({value:.6g}, {queries}), which Procedure 3 never gives on this "
                     "instance")
            return assumed, [Check("estimator", stats.FAIL, f"{cause}; exact, no false-FAIL rate", cause=cause),
                             _genest_audit(over, defeated, audited)]
        counts[best] += 1
    level = delta / len(keys)
    pvalues = [binomtest(int(c), runs, p).pvalue if p > 0 else 1.0 for c, p in zip(counts, law.values(), strict=True)]
    worst = int(np.argmin(pvalues))
    resolution = math.sqrt(2.0 * math.log(2.0 / level) * 0.25 / runs)
    text = (f"{runs} draws on one example (d = 4, B = 1: N = 4, ν₀ = 4; f′ of degree 3): the joint law of (φ̂, number "
            f"of queries) against Procedure 3's exact law ({len(keys)} outcomes, the queries of n > 3 included: n up "
            f"to ν₀, n·N beyond), exact two-sided binomial tests each at δ/{len(keys)} (Bonferroni; false-FAIL rate "
            f"≤ {delta:g}); they detect a probability off by about {resolution:.2g} (Hoeffding)")
    checks = [_genest_audit(over, defeated, audited)]
    if pvalues[worst] <= level:
        value, queries = keys[worst]
        cause = (f"(φ̂, queries) = ({value:.6g}, {queries}) came {int(counts[worst])} times in {runs}; Procedure 3 "
                 f"gives it probability {list(law.values())[worst]:.4g} (p = {pvalues[worst]:.2g} ≤ {level:.2g})")
        return assumed, [Check("estimator", stats.FAIL, f"{text}. {cause}", cause=cause), *checks]
    return assumed, [Check("estimator", stats.PASS, f"{text}. Smallest p = {pvalues[worst]:.2g} > {level:.2g}"),
                     *checks]


def _genest_audit(over: list[str], defeated: str, audited: int) -> Check:
    if defeated:
        return _not_run("attributes", f"the reads could not be observed: {defeated}")
    text = (f"the attributes of x read in {audited} draws, observed through a watched view and confirmed by a call "
            "with every other attribute blanked, against the queries the function reports (a repeated query "
            "counts again, so distinct reads ≤ queries). Exact: no false-FAIL rate")
    if over:
        return Check("attributes", stats.FAIL, f"{text}. {over[0]}", cause=over[0])
    return Check("attributes", stats.PASS, text + "; no draw read more than it reported")


ALGORITHMS.update({
    "GenEst": Spec("theorycheck.estimators:genest", checks=_genest_checks, names=("estimator", "attributes"),
                   function=True),
    "AESVR": Spec("theorycheck.algorithms:AESVR", names=("estimator", "behaviour"),
                  options=lambda d: {"eps": 0.5}, design_options=lambda design: {"eps": 0.5},
                  no_law="AESVR's φ̃ averages two GenEst draws of a 60-term series (erf): its law has no finite "
                         "enumeration here; GenEst's own law is checked by `theorycheck conform GenEst`"),
})


# ---------------------------------------------------------------------- inside verify
def algorithm_places(claim) -> dict[str, str]:
    """{subject name: algorithm of :data:`ALGORITHMS`} for the subjects of ``claim`` that are one of the papers'
    algorithms as built in (``learner`` of hk12.thm3.1 is AERR, ``dd`` of ks15.fig1 is DDAERR, ...)."""
    builtins = {_load(spec.builtin): name for name, spec in ALGORITHMS.items()}
    return {name: builtins[obj] for name, obj in claim.subjects.items() if _hashable(obj) and obj in builtins}


def _hashable(obj) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def replaced_algorithms(claim, subjects: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """{subject name: (algorithm, the subject in its place)} for each of ``claim``'s algorithms that ``subjects``
    replaces by something other than the built-in."""
    return {name: (algorithm, subjects[name]) for name, algorithm in algorithm_places(claim).items()
            if name in subjects and subjects[name] is not claim.subjects[name]}


def in_verify(algorithm: str, subject, profile: str, seed: int, delta: float = 1e-3) -> dict[str, Any]:
    """The conformance of a subject that ``verify`` runs in ``algorithm``'s place, as a record (JSON-ready).

    Every check of :func:`conform` but the claims (verify is running them): the parameters, the exact law of
    the estimator along the recorded path, the behaviour against the built-in, the reads audit (and for the
    algorithms of another shape, their own checks). Its ``verdict`` is FAIL when a check that ran failed: a
    learner that is not the paper's algorithm cannot PASS a theorem about that algorithm. The verify profile
    ``quick`` runs conform's quick budget, ``full`` and ``paper`` its full one. A subject that conform cannot
    take at all (an instance that cannot be cloned, ...) gets every check NOT RUN with the reason."""
    budget = "quick" if profile == "quick" else "full"
    try:
        result = conform(algorithm, subject, profile=budget, seed=seed, delta=delta, claims=False,
                         isolate=False)  # verify runs this in a worker already
    except ParameterError as err:
        why = str(err).splitlines()[0]
        return {"algorithm": algorithm, "subject": subject_name(subject), "verdict": stats.INCONCLUSIVE,
                "delta": delta, "profile": budget, "checks": [
                    {"name": "conformance", "verdict": stats.INCONCLUSIVE, "ran": False, "decision": why,
                     "cause": why}]}
    return {"algorithm": algorithm, "subject": subject_name(subject), "verdict": result.verdict, "delta": delta,
            "profile": budget, "checks": [{"name": c.name, "verdict": c.verdict, "ran": c.ran, "decision": c.decision,
                                           "cause": c.cause, "raised": c.raised} for c in result.checks
                                          if c.name not in result.inapplicable]}


def verify_text(record: dict[str, Any]) -> str:
    """One paragraph of an in-verify conformance record for the claim's page: which checks ran and how they
    ended, and which could not run (never a plain PASS when one could not)."""
    ran = [c for c in record["checks"] if c["ran"] and not c.get("raised")]
    not_run = [c for c in record["checks"] if not c["ran"] or c.get("raised")]
    verdict = stats.FAIL if any(c["verdict"] == stats.FAIL for c in ran) else stats.PASS if ran else "nothing ran"
    head = (f"Conformance of {record['subject']} to {record['algorithm']} ({record['profile']} budget, each "
            f"stochastic check at δ = {record['delta']:g}): {verdict}")
    parts = [head + (f" on {len(ran)} of {len(record['checks'])} checks; NOT RUN: "
                     + ", ".join(c["name"] for c in not_run) if not_run else "") + "."]
    parts += [f"[{c['verdict']}] {c['name']}: " + (c["cause"] if c["verdict"] != stats.PASS and c["cause"] else
                                                   c["decision"]) for c in ran]
    parts += [f"[NOT RUN] {c['name']}: " + (f"{c['cause']} on this check's instance, so it judged nothing (the claim "
                                             "runs on its own)" if c.get("raised") else c["decision"]) for c in not_run]
    return "\n".join(parts)
