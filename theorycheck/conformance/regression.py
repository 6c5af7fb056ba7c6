"""cbss11's and hk12's regressors: AERR and AELR (hk12 §3), AER and Baseline (cbss11). Each is checked by the
regressors' checks (:mod:`.checks`): the parameters, the exact law of its estimate, the step, the behaviour
against the built-in, and the reads audit."""

from __future__ import annotations

import numpy as np

from .. import estimators
from ..bounds import hk12 as bounds_hk12
from .core import Spec


def _uniform(keywords: dict, d: int) -> np.ndarray:
    """hk12's data-point draws: uniform over the d attributes."""
    return np.full(d, 1.0 / d)


SPECS: dict[str, Spec] = {
    "AERR": Spec("theorycheck.algorithms:AERR",
                 law=lambda w, x, y, k, o: estimators.aerr_gradient_estimate_distribution(w, x, y, k),
                 setting="ridge", params_from="hk12.thm3.1", norm="l2", start_in_ball=True, draw_law=_uniform,
                 theorem_step=(lambda d, k, m, B, o: bounds_hk12.thm31_eta(d, k, m), "Theorem 3.1's η = √(k/(2dm))")),
    "AELR": Spec("theorycheck.algorithms:AELR",
                 law=lambda w, x, y, k, o: estimators.aelr_gradient_estimate_distribution(w, x, y, k),
                 setting="lasso", params_from="hk12.thm3.4", norm="l1", draw_law=_uniform,
                 theorem_step=(lambda d, k, m, B, o: bounds_hk12.thm34_eta(d, k, m, B, "theorem"),
                               "Theorem 3.4's η = (1/(4B²))√(2k log(2d)/(5md))")),
    "AER": Spec("theorycheck.algorithms:AER",
                law=lambda w, x, y, k, o: estimators.aer_gradient_estimate_distribution(w, x, y, k),
                setting="lasso", params_from="hk12.thm3.4", norm="l1", extra_reads=0, step=None, k=4,
                # Theorem 12's λ keeps AER's iterates far inside the ball; at λ = 0.3 the constraint is active
                designs=("mixed", "boundary", ("boundary", {"lam": 0.3}))),
    "Baseline": Spec("theorycheck.algorithms:Baseline",
                     law=lambda w, x, y, k, o: estimators.baseline_estimate_distribution(x, k),
                     setting="lasso", params_from="hk12.thm3.4", norm="l1", extra_reads=0, draws="estimates",
                     step=None),
}
