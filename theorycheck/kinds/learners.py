"""What the sampled kinds share when a claim runs a learner on designs of the registry.

Each repetition draws a fresh sample from a design (built by the claim's ``design`` subject and
cached per process), fits the subject with its own stream, and measures the exact excess risk
of its output against the constrained optimum (also cached). The hypotheses of the Ridge and
Lasso theorems are checked through the design (:meth:`Design.satisfies`) and on the sample, and
the attribute budget from the count the learner reports, held to be at least the reads observed
(:func:`theorycheck.observe.counted_fit`: a learner that reads more than it reports FAILs).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import population
from ..claims import Hypothesis, SubjectFailure
from ..observe import counted_fit
from ..protocols import Contract, Function, coef_vector
from ..rng import kernel_state

__all__ = ["DESIGN_CONTRACT", "budget_hypothesis", "design_for", "excess_risk", "fit_learner", "optimum_for",
           "output_in_ball", "sample_hypotheses", "streams"]

#: the contract of a ``design`` subject: a function (params, name) -> Design
DESIGN_CONTRACT = Contract(Function, call=("params", "name"))
# ---------------------------------------------------------------------- shared by the sampled kinds
def streams(seed: np.random.SeedSequence) -> tuple[np.ndarray, int]:
    """(kernel state for the sample, int ``random_state`` for the subject) from a task's seed."""
    data, own = seed.spawn(2)
    return kernel_state(data), int(own.generate_state(1)[0])


_DESIGNS: dict[Any, Any] = {}


def _key(builder, p: dict, name: str, extra=()):
    return (id(builder), name, tuple(sorted((k, v) for k, v in p.items() if not isinstance(v, list))), extra)


def design_for(subjects: dict, p: dict, name: str):
    """The design ``name`` built by the ``design`` subject from ``p`` (cached per process)."""
    key = _key(subjects["design"], p, name)
    if key not in _DESIGNS:
        if len(_DESIGNS) > 64:
            _DESIGNS.clear()
        _DESIGNS[key] = subjects["design"](p, name)
    return _DESIGNS[key]


_OPTIMA: dict[Any, Any] = {}


def optimum_for(design, B: float, norm: str = "l1"):
    """:func:`theorycheck.population.constrained_optimum` of ``design`` over the ball of radius B,
    cached per process (designs from :func:`design_for` are cached, so this solves once)."""
    key = (id(design), float(B), norm)
    if key not in _OPTIMA or _OPTIMA[key][0] is not design:
        if len(_OPTIMA) > 64:
            _OPTIMA.clear()
        _OPTIMA[key] = (design, population.constrained_optimum(design, B, norm=norm))
    return _OPTIMA[key][1]


def excess_risk(coef, design, B: float, norm: str = "l1") -> float:
    """Exact excess risk (cbss11's loss, without the ½) of ``coef`` over the ball; +∞ when
    ``coef`` is not finite."""
    if not np.all(np.isfinite(coef)):
        return math.inf
    return float(population.excess_risk(coef, design, B, norm=norm, optimum=optimum_for(design, B, norm)))


def sample_hypotheses(design, X, y, B: float, *, norm: str = "l1", labels: bool = True) -> list[Hypothesis]:
    """The Lasso (``norm="l1"``: ‖x‖∞ ≤ 1) or Ridge (``"l2"``: ‖x‖₂ ≤ 1) hypotheses, |y| ≤ B when
    ``labels``: checked through the design itself (:meth:`Design.satisfies`) and on the sample."""
    sup = "∞" if norm == "l1" else "₂"
    x_max = float(np.max(np.abs(X)) if norm == "l1" else np.max(np.linalg.norm(X, axis=1)))
    hyps = [Hypothesis(f"‖x_t‖{sup} ≤ 1 for every drawn example", x_max <= 1.0 + 1e-12,
                       f"max ‖x_t‖{sup} = {x_max:.15g}")]
    if labels:
        y_max = float(np.max(np.abs(y)))
        hyps.append(Hypothesis("|y_t| ≤ B for every drawn example", y_max <= B * (1.0 + 1e-12),
                               f"max |y_t| = {y_max:.15g}, B = {B:g}"))
        hyps.append(Hypothesis(f"the design satisfies ‖x‖{sup} ≤ 1 and |y| ≤ B (Design.satisfies)",
                               bool(design.satisfies(norm, B)), getattr(design, "name", "")))
    return hyps


def budget_hypothesis(n_read, k: int, m: int, who: str = "the subject") -> Hypothesis:
    """At most k attributes read per example, from the count the subject reports."""
    return Hypothesis("at most k attributes read per example (count reported by the subject ≤ k·m)",
                      n_read is not None and 0 <= n_read <= k * m,
                      f"{who} reports {n_read} attributes read for m = {m} examples (k·m = {k * m})")


def fit_learner(cls, X, y, **params):
    """Build ``cls(**params)``, fit it through :func:`theorycheck.observe.counted_fit`, and return
    (estimator, coef_ as a float vector, attributes read or None): the count it reports, which may
    not be smaller than the reads observed (else :class:`SubjectFailure`). Convergence warnings are
    recorded by the claims, not raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est, reads = counted_fit(cls(**params), X, y, who=f"the learner {getattr(cls, '__name__', cls)}")
    coef = coef_vector(est)
    if coef.shape != (X.shape[1],):
        raise SubjectFailure(f"the learner's coef_ has shape {coef.shape}, expected ({X.shape[1]},)")
    return est, coef, reads.count


def output_in_ball(coef, B: float, norm: str = "l1") -> bool:
    """Whether ``coef`` lies in the ball of radius B (relative rounding allowance 1e-9)."""
    size = float(np.abs(coef).sum() if norm == "l1" else np.linalg.norm(coef))
    return bool(size <= B * (1.0 + 1e-9))


