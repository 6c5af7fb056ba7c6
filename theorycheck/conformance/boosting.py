"""reyzin11's boosting, AdaBoostRS and AdaBoostRS_AC: α against Algorithm 1's closed form (**training**, exact),
the law of the features examined and of the prediction given the learner's ensemble (**sampling**, at δ), and
every prediction's cost below the budget (**attributes**, exact)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import stats
from .core import Check, Spec, _not_run

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
    from ..observe import observed_call

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


SPECS: dict[str, Spec] = {
    "AdaBoostRS": Spec("theorycheck.algorithms:AdaBoostRS", checks=_boosting_checks(False),
                       names=("training", "sampling", "attributes")),
    "AdaBoostRS_AC": Spec("theorycheck.algorithms:AdaBoostRSAC", checks=_boosting_checks(True),
                          names=("training", "sampling", "attributes")),
}
