"""The **behaviour** check of a regressor: w̄ in the algorithm's ball, and the law of its excess risk over seeds
against the built-in's (exact two-sample Kolmogorov–Smirnov tests)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import stats
from ..claims import discover
from .core import Check, Spec


def _behaviour_check(spec: Spec, learner, builtin, k, B, seeds, delta, seed, eta=None,
                     as_configured: bool = False) -> Check:
    """``as_configured``: the learner keeps its own step size, and the built-in gets ``eta`` when it is a number
    (else its theorem's); otherwise the learner gets the built-in's fitted values (:attr:`Spec.shared`)."""
    from scipy.stats import ks_2samp

    from ..generators.registry import build_design
    from ..kinds.learners import excess_risk, output_in_ball
    from ..rng import kernel_state

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
