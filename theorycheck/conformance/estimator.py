"""The **estimator** check of a regressor (the law of its recorded estimate against the paper's exact law, at δ)
and its **step** check (the first recorded step against the algorithm's update given the recorded draw, exact)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .. import stats
from .core import Check, Spec, _fitted, _keywords, _not_run, _unrecorded

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


def _law_rows(spec: Spec, w, x, y: float, k: int, options: dict) -> np.ndarray:
    """The distinct outcomes of the paper's law of one estimate at (w, x, y), as float rows."""
    return np.array(list(dict.fromkeys(tuple(float(v) for v in g) for _, g in spec.law(w, x, y, k, options))))


def _outcome(outcomes: np.ndarray, g: np.ndarray) -> int:
    """The index of the law's outcome that ``g`` is (up to rounding: 10⁻⁹ relative), or −1."""
    if g.shape != outcomes.shape[1:]:
        return -1
    gap = np.abs(outcomes - g).max(axis=1)
    best = int(np.argmin(gap))
    return best if gap[best] <= 1e-9 * (1.0 + np.abs(outcomes[best]).max()) else -1


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
    probed = False  # a learner that records no path: its first two steps read from w̄ (:mod:`.probe`)
    probeable = spec.draws == "gradient" and spec.lead == 0 and bool(spec.step) and eta is not None
    for r in range(runs):
        if not probed:
            model, failed = _fitted("estimator", learner, keywords, int(seeds[r]), X, y)
            if failed is not None and not (r == 0 and probeable and failed.details.get("unrecorded")):
                return failed
            try:
                if failed is not None:
                    raise AttributeError(failed.decision)
                draws = _recorded_draws(spec, model.trajectory_, rows)
            except (TypeError, AttributeError, KeyError, IndexError, ValueError) as err:
                if not (r == 0 and probeable):
                    return _unrecorded("estimator", "the learner does not record its path (record_trajectory=True, "
                                       f"trajectory_ with {wanted} for each example): {type(err).__name__}: {err}")
                probed = True
        if probed:
            draws, failed = _probed_draws(spec, learner, keywords, int(seeds[r]), k, B, eta)
            if failed is not None:
                return failed
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
    if probed:
        calibration += (" The learner records no path: each run's first two steps were read from three fits on its "
                        "first 1, 2 and 3 examples at one random state (w_t from w̄, g̃_t from the step at the η "
                        "given; :mod:`theorycheck.conformance.probe`).")
    return Check("estimator", stats.PASS,
                 f"{runs} runs: every value of {what} is one the paper's estimator takes, with frequencies "
                 f"consistent with its law (smallest p = {pvalue:.2g} > {level:.2g}). {calibration}",
                 {"tests": len(tests), "groups": len(groups)})


def _probed_draws(spec: Spec, learner, keywords: dict, state: int, k, B, eta):
    """([(key, g̃)] of the first two steps of a plain learner on the example, or [], and None) or (None, a Check):
    FAIL when its fit raises, NOT RUN when its steps cannot be read from w̄."""
    from .probe import Unidentified, iterates, key, steps_of

    X, y = np.vstack([_EXAMPLE_X] * 3), np.full(3, _EXAMPLE_Y)
    try:
        w = iterates(learner, keywords, state, X, y)
        steps = steps_of(w, spec.norm, float(B), float(eta))
    except Unidentified as err:
        return None, _unrecorded("estimator", f"the learner records no path, and its steps could not be read from "
                                 f"w̄ (fits on 1, 2 and 3 examples at random_state = {state}): {err}")
    except Exception as err:  # the subject's failure, with its cause
        why = f"your learner's fit raised {type(err).__name__}: {err}"
        return None, Check("estimator", stats.FAIL, f"{why} (a fit on 1 to 3 examples, random_state = {state})",
                           cause=why, raised=True)
    return [(key(w_t), g) for w_t, g in steps], None


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
            return _unrecorded("step", "the learner does not record its path (record_trajectory=True, trajectory_ "
                               f"with 'w' and 'g' for each example): {type(err).__name__}: {err}")
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
