"""sk13's selectors, Scoring and Full: the r a learner chooses, against Algorithm 1's objective (exact)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import stats
from .core import Check, Spec


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
        from ..algorithms import sk13

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


SPECS: dict[str, Spec] = {
    "Scoring": Spec("theorycheck.algorithms.sk13:ScoringSelector", checks=_selection_checks("Scoring"),
                    names=("objective",)),
    "Full": Spec("theorycheck.algorithms.sk13:FullSelector", checks=_selection_checks("Full"), names=("objective",)),
}
