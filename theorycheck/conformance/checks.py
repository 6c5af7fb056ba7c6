"""The checks of one learner against one algorithm, every check but the claims: the request validated, the
algorithm's own checks or the regressors' five (parameters, estimator, step, behaviour, attributes) in order,
and the verdict built from them. :func:`conform_checks` runs them in this process, as ``verify`` does on a
subject in an algorithm's place (it runs the claims itself); :func:`~theorycheck.conformance.conform` adds the
claims and a worker process of their own."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..validation import ParameterError, check_jobs, check_real
from .audit import _audit_check
from .behaviour import _behaviour_check
from .core import BUDGETS, Check, Conformance, Spec, _defaults, _keywords, _load, _shown, configured
from .estimator import _EXAMPLE_X, _EXAMPLE_Y, _STEP_ETA, _estimator_check, _step_check
from .parameters import PARAMETERS_K, _parameters_check
from .recording import _recording_check
from .registry import ALGORITHMS


def _checks(algorithm: str, learner, k, B, eta, profile: str, delta: float, seed: int):
    """(assumed, checks) of ``learner`` against ``algorithm``: every check of :func:`conform` but the claims."""
    spec = ALGORITHMS[algorithm]
    make, own, _ = configured(learner, spec.function)
    if spec.checks is not None:
        return spec.checks(make, own, BUDGETS[profile], delta, np.random.SeedSequence(seed))
    return _regression_checks(spec, make, own, k, B, eta, BUDGETS[profile], delta, seed)


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
    s_est, s_beh, s_aud, s_par, s_step, s_rec = rng.spawn(6)
    X, y = np.vstack([_EXAMPLE_X] * (spec.lead + 2)), np.full(spec.lead + 2, _EXAMPLE_Y)
    with warnings.catch_warnings():  # a k, B or eta the algorithm refuses: ParameterError before any work
        warnings.simplefilter("ignore")
        builtin(**_keywords(spec, k, B, eta, X.shape[1])).fit(X, y)
    assumed = {"k": k, "B": B, **({spec.step: eta if eta is not None else "its own rule"} if spec.step else {}),
               **{name: _shown(v) for name, v in spec.options(len(_EXAMPLE_X)).items()}}
    run = {
        "parameters": lambda: _parameters_check(spec, make, own if own is not None else _defaults(make), s_par,
                                                fixed_k=None if own is not None else PARAMETERS_K),
        "estimator": lambda: _estimator_check(spec, make, k, B, eta, budget["runs"], delta, s_est),
        "step": lambda: _step_check(spec, make, k, B, s_step),
        "recording": lambda: _recording_check(spec, make, B, s_rec),
        "behaviour": lambda: _behaviour_check(spec, make, builtin, k, B, budget["seeds"], delta, s_beh, eta=eta,
                                              as_configured=own is not None),
        "attributes": lambda: _audit_check(make, k, B, eta, s_aud, spec),
    }
    return assumed, [run[name]() for name in spec.names]


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


def _validated(algorithm: str, learner, *, profile: str, seed: int, jobs: int, delta: float, optional, require,
               claims: bool, task_timeout: float | None, k, B, eta) -> tuple[Spec, float, float | None, Any, str]:
    """(spec, delta, task_timeout, the learner's own parameters or None, its name) of a request of
    :func:`~theorycheck.conformance.conform`, checked before any work; raises :class:`ParameterError`."""
    if algorithm not in ALGORITHMS:
        raise ParameterError(f"unknown algorithm {algorithm!r}; conformance knows {', '.join(ALGORITHMS)}")
    if profile not in BUDGETS:
        raise ParameterError(f"unknown profile {profile!r}; use quick or full")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed must be a non-negative int; got {seed!r}")
    check_jobs(jobs, "jobs")
    spec = ALGORITHMS[algorithm]
    names = ("claims", *spec.names)
    for what, given in (("optional", optional), ("required", require)):
        unknown = [name for name in given if name not in names]
        if unknown:
            raise ParameterError(f"unknown check {unknown[0]!r} named {what}; the checks of {algorithm} are "
                                 f"{', '.join(names)}")
    if require:
        warnings.warn("require= is deprecated: every check is now required; name the checks allowed not to run in "
                      "optional=", DeprecationWarning, stacklevel=3)
        both = [name for name in require if name in optional]
        if both:
            raise ParameterError(f"the check {both[0]!r} is named both required and optional")
        if "claims" in require and not claims:
            raise ParameterError("requiring the claims check while skipping the claims (--no-claims) cannot be met")
    delta = check_real("delta", delta, low=0.0, high=1.0, strict_low=True, strict_high=True)
    if task_timeout is not None:
        task_timeout = check_real("--task-timeout", task_timeout, low=0.1, high=1e7)
    _, own, name = configured(learner, spec.function)
    if spec.checks is not None and (k, B, eta) != (None, None, None):
        raise ParameterError(f"k, B and eta are not parameters of {algorithm}'s conformance")
    return spec, delta, task_timeout, own, name


def _notes(learner, own: dict | None) -> list[str]:
    """The notes every result starts with: an instance runs with its own parameters."""
    notes = []
    if own is not None:
        notes.append(f"the instance is run with its own parameters; the claims build their own "
                     f"{type(learner).__name__} with the parameters each claim states")
    return notes


def _result(algorithm: str, spec: Spec, name: str, own: dict | None, assumed: dict, checks: list[Check],
            delta: float, notes: list[str], optional, claims: bool, places: dict, skipped: list[str]) -> Conformance:
    """The verdict over ``checks``: a check with nothing to check for the algorithm is left out as NOT
    APPLICABLE (no claim, no step-size rule declared, no exact law, no gradient step)."""
    inapplicable = {"claims": not places and not skipped}
    if spec.checks is None:
        inapplicable.update(parameters=spec.theorem_step is None or spec.step is None, estimator=spec.law is None,
                            step=spec.step is None or spec.draws != "gradient",
                            # a learner that cannot record has no recorded fit to differ from its plain one
                            recording=any(c.name == "recording" and c.details.get("cannot_record") for c in checks))
    return Conformance(algorithm, name, assumed, checks, delta, notes, tuple(optional),
                       tuple(c.name for c in checks if not c.ran and inapplicable.get(c.name)),
                       _step_sizes(spec, own, assumed) if spec.checks is None else "",
                       () if claims else ("claims",))


def conform_checks(algorithm: str, learner, *, profile: str = "quick", seed: int = 0, delta: float = 1e-3,
                   k: int | None = None, B: float | None = None) -> Conformance:
    """What :func:`~theorycheck.conformance.conform` gives with ``claims=False, isolate=False``: every check but
    the claims, in this process, with the algorithm's default k, B and η (``k``, ``B``: those of a claim, where
    ``verify`` re-runs the checks a subject raised on). ``verify`` runs it in the worker that checks a subject in an
    algorithm's place, and runs the claims itself."""
    spec, delta, _, own, name = _validated(algorithm, learner, profile=profile, seed=seed, jobs=1, delta=delta,
                                           optional=(), require=(), claims=False, task_timeout=None, k=k, B=B,
                                           eta=None)
    assumed, checks = _checks(algorithm, learner, k, B, None, profile, delta, seed)
    return _result(algorithm, spec, name, own, assumed, checks, delta, _notes(learner, own), (), False, {}, [])
