"""The **parameters** check of a regressor: its own step size (and, for Algorithm 1, w₁) against the theorem's."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import stats
from ..validation import ParameterError
from .core import Check, Spec, _not_run

#: the k of the parameters check's fits for a learner given as a class: at k = 3 (d = 12, m = 300 or 2) the rules of
#: hk12 and ks15 and a rule that forgets k or d all differ (at k = 1 an η without k is the right one)
PARAMETERS_K = 3


def _parameters_check(spec: Spec, make, own: dict[str, Any], seed, fixed_k: int | None = None) -> Check:
    """The learner's own step size (and, for Algorithm 1, w₁) against the theorem's: from a parameter that
    fixes η, from the η the fitted learner reports (``eta_``, or ``trajectory_['eta']``), or, for AERR, from
    two one-dimensional runs, where Algorithm 1 is deterministic. Exact (rounding: 10⁻⁹ relative)."""
    if spec.theorem_step is None or spec.step is None:
        return _not_run("parameters", f"{spec.no_step}, so the learner's defaults were not compared with the paper's")
    theorem_rule, rule_name = spec.theorem_step
    m, d = 300, 12
    mine = {name: value for name, value in own.items() if value is not None}  # None: the learner has none of its own
    options = {name: value for name, value in spec.options(d).items() if name not in mine}

    def rule(d_, k_, m_, B_):  # at the options the learner ran with: its own where it has them, else the runs'
        defaults = spec.options(d_)
        return theorem_rule(d_, k_, m_, B_, {**defaults, **{n: v for n, v in mine.items() if n in defaults}})

    base = {**{key: value for key, value in (("k", 2), ("B", 1.0)) if key not in own}, **options}
    if fixed_k is not None:  # a class: its fits at k = fixed_k, not its default k
        base["k"] = fixed_k
    k, B = int(base["k"] if "k" in base else own["k"]), float(own.get("B", base.get("B")))
    given = own.get(spec.step)
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
    if spec.law is None or spec.draws != "gradient" or spec.lead:
        return None, "no eta_ after fit"
    return _probed_step(spec, make, {**base, "k": k}, X, y, state)


def _probed_step(spec: Spec, make, base: dict, X, y, state: int):
    """η of a plain learner read from its first step (:mod:`.probe`): fits on the first one and two examples give
    w_1 and w_2, and η is a number with w_1 − w_2 = η g̃ (L2; the EG± inversion for L1) for an estimate g̃ the
    paper's law takes at w_1. Estimates that share a direction (the same draws with another j) give several such
    numbers; the random states are read until one number is common to all (at most :data:`_PROBE_STATES`). The
    two-example fit sets η for m = 2."""
    from .estimator import _law_rows
    from .probe import etas_from_first_step, iterates

    d, k, B = X.shape[1], int(base["k"]), float(base.get("B", 1.0))
    common: list[float] | None = None
    for s in range(state, state + _PROBE_STATES):
        try:
            w = iterates(make, base, s, X, y, steps=2)
        except Exception as err:
            return None, f"no eta_ after fit, and a fit on one or two examples raised {type(err).__name__}: {err}"
        outcomes = _law_rows(spec, w[0], X[0], float(y[0]), k, {**spec.options(d), **base})
        found = etas_from_first_step(w[0], w[1], outcomes, spec.norm, B)
        common = found if common is None else [a for a in common if any(math.isclose(a, b, rel_tol=1e-9)
                                                                          for b in found)]
        if not common:
            return None, (f"no eta_ after fit, and no one η makes its first steps at d = {d}, k = {k} (random states "
                          f"{state} to {s}) η times estimates the paper's law takes (the estimator check says which)")
        if len(common) == 1 and s > state:
            break
    if len(common) != 1:
        return None, f"no eta_ after fit, and its first steps leave several η possible ({common[:3]})"
    return (d, k, 2, common[0]), (f"read from its first step on two examples at d = {d}, k = {k} (w̄ of fits on one "
                                  "and two examples; the one η for which w_1 − w_2 is η times an estimate of the "
                                  f"paper's law at each of up to {_PROBE_STATES} random states)")


#: random states the parameters check reads a plain learner's first step at, at most
_PROBE_STATES = 8
