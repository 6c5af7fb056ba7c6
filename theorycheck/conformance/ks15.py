"""ks15's samplers: GAERR and GAELR (a given q), DDAERR and DDAELR (q from the known second moments) and the
two-phase learners (q estimated in a phase 1). Regressors, checked as the others (:mod:`.checks`); what is their
own is the law of g̃ at a non-uniform q, and the options that make q far from uniform."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from .. import estimators
from ..bounds import ks15 as bounds_ks15
from .core import Spec


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


#: Theorems 3.3 and 4.4 state η from the known second moments s = E[x²] the learner is given
_THM33_STEP = (lambda d, k, m, B, o: bounds_ks15.thm33_eta(o["second_moments"], k, m),
               "Theorem 3.3's η = 1/√(m(‖s‖_{1/2}/k + 1))")
_THM44_STEP = (lambda d, k, m, B, o: bounds_ks15.thm44_eta(o["second_moments"], k, m, B),
               "Theorem 4.4's η = (1/(2B))√(log(2d)/(5m(‖s‖₁/k + 1)))")
#: why GAERR, GAELR and the two-phase learners have no rule to compare with
_ANY_STEP = ("Theorems 3.1 and 4.1 of Kukliansky & Shamir hold for any step size (4.1: any η ≤ 1/(2G)), so no "
             "step-size rule of the paper exists for the generic learners")
_PHASE_STEP = ("Theorems 3.4 and 4.5 set η from the phase-1 estimate A the learner computes, which this check "
               "cannot see (ks15.thm3.4 and thm4.5 recompute A from the recorded draws)")


def _two_phase_options(d: int) -> dict:
    return {"m1": _TWO_PHASE_LEAD, "smoothing": _SMOOTHING}


def _smoothed(x: np.ndarray, options: dict) -> np.ndarray:
    """A_i + 13ε/6 of the two-phase learners after phase 1 on the example shown m₁ times (A_i = x_i², exactly)."""
    return x * x + 13.0 * options["smoothing"] / 6.0

SPECS: dict[str, Spec] = {
    "GAERR": Spec("theorycheck.algorithms:GAERR", law=_ks15_law(2, lambda x, o: o["q"]), setting="ridge",
                  params_from="ks15.thm3.3", norm="l2", options=lambda d: {"q": _rising(d)},
                  design_options=_design_q, no_step=_ANY_STEP,
                  draw_law=lambda o, d: np.asarray(o["q"], dtype=np.float64), **_KS15),
    "DDAERR": Spec("theorycheck.algorithms:DDAERR", law=_ks15_law(2, lambda x, o: np.sqrt(o["second_moments"])),
                   setting="ridge", params_from="ks15.thm3.3", norm="l2",
                   options=lambda d: {"second_moments": _moments(d)}, design_options=_design_moments,
                   theorem_step=_THM33_STEP,
                   draw_law=lambda o, d: np.sqrt(np.asarray(o["second_moments"], dtype=np.float64)), **_KS15),
    "TwoPhaseDDAERR": Spec("theorycheck.algorithms:TwoPhaseDDAERR",
                           law=_ks15_law(2, lambda x, o: np.sqrt(_smoothed(x, o))), setting="ridge",
                           params_from="ks15.thm3.3", norm="l2", options=_two_phase_options, shared=(),
                           lead=_TWO_PHASE_LEAD, no_step=_PHASE_STEP, **_KS15),
    "GAELR": Spec("theorycheck.algorithms:GAELR", law=_ks15_law(1, lambda x, o: o["q"]), setting="lasso",
                  params_from="ks15.thm4.4", norm="l1", options=lambda d: {"q": _rising(d)},
                  design_options=_design_q, no_step=_ANY_STEP,
                  draw_law=lambda o, d: np.asarray(o["q"], dtype=np.float64), **_KS15),
    "DDAELR": Spec("theorycheck.algorithms:DDAELR", law=_ks15_law(1, lambda x, o: o["second_moments"]),
                   setting="lasso", params_from="ks15.thm4.4", norm="l1",
                   options=lambda d: {"second_moments": _moments(d)}, design_options=_design_moments,
                   theorem_step=_THM44_STEP,
                   draw_law=lambda o, d: np.asarray(o["second_moments"], dtype=np.float64), **_KS15),
    "TwoPhaseDDAELR": Spec("theorycheck.algorithms:TwoPhaseDDAELR", law=_ks15_law(1, _smoothed), setting="lasso",
                           params_from="ks15.thm4.4", norm="l1", options=_two_phase_options, shared=(),
                           lead=_TWO_PHASE_LEAD, no_step=_PHASE_STEP, **_KS15),
}
