"""ks15's risk-bound claims (Theorems 3.1, 3.3, 3.4, 4.1, 4.4, 4.5): the readings they rest on (the
conditional second moment G²_run of Theorem 3.1, its almost-sure range, the path checks, the two
forms of the two-phase theorems, the sandwich event), the kinds' hooks they use, no profile vacuous by
construction, and PASS on quick. The planted defects are declared beside the claims and run by
tests/test_power.py."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from simulations.ks15 import sampling_rule
from tests.defects_ks15 import MismatchedWeightsGAERR, UniformQDDAELR, UniformQDDAERR, UnnormalisedInnerGAERR
from theorycheck import stats
from theorycheck.algorithms import DDAELR, DDAERR, GAERR, TwoPhaseDDAELR, TwoPhaseDDAERR
from theorycheck.bounds.ks15 import half_norm, phase1_epsilon, thm34_bound_always, thm34_sandwich
from theorycheck.claims import discover
from theorycheck.estimators import gaerr_conditional_second_moment, gaerr_gradient_estimate_distribution
from theorycheck.generators.registry import lasso_design, ridge_design
from theorycheck.kinds.bound import excess_range
from theorycheck.kinds.pathwise import Path
from theorycheck.population import constrained_optimum, excess_risk
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError

CLAIMS = ("ks15.thm3.1", "ks15.thm3.3", "ks15.thm3.4", "ks15.thm4.1", "ks15.thm4.4", "ks15.thm4.5")
RISK = CLAIMS[1:]


def _claim(claim_id):
    return discover()[claim_id]


# ------------------------------------------------------------------------------ Theorem 3.1's G²_run
@pytest.mark.parametrize("improved", [False, True])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_conditional_second_moment_is_the_exact_law(k, improved):
    """G_t² = E_A[‖g̃_t‖² | w_t, x_t, y_t] against the exact law of GAERR's estimate (every outcome of
    the k draws from q and of the inner-product draw, in rationals: theorycheck.estimators)."""
    rng = np.random.default_rng(k + 10 * improved)
    d = 3
    for _ in range(4):
        w = [Fraction(int(v), 7) for v in rng.integers(-7, 8, size=d)]
        w[int(rng.integers(d))] = Fraction(0)  # an attribute the inner product never draws
        if not any(w):
            w[0] = Fraction(1, 3)
        x = [Fraction(int(v), 9) for v in rng.integers(-5, 6, size=d)]
        y = Fraction(int(rng.integers(-9, 10)), 9)
        raw = [int(v) for v in rng.integers(1, 6, size=d)]
        q = [Fraction(v, sum(raw)) for v in raw]
        c = [Fraction(int(v), 4) for v in rng.integers(1, 5, size=d)] if improved else None
        law = gaerr_gradient_estimate_distribution(w, x, y, k, q, c)
        exact = sum(prob * sum(g * g for g in vector) for prob, vector in law)
        got = gaerr_conditional_second_moment(np.array([x], dtype=float), np.array([float(y)]),
                                              np.array([w], dtype=float), np.array(q, dtype=float), k,
                                              None if c is None else np.array(c, dtype=float))[0]
        assert got == pytest.approx(float(exact), rel=1e-12)


def test_second_moment_range_holds_at_its_worst_points():
    """G_t² ≤ Φ·(1/(k·min q) + 1) over the ball and the hypotheses, with equality approached at
    x = e_argmin q, y = −B, w = B·e_argmin q (line 8's p)."""
    rng = np.random.default_rng(0)
    d, B = 6, 1.7
    for k in (1, 3):
        q = rng.dirichlet(np.ones(d))
        c = np.sqrt(rng.uniform(0.01, 1.0, size=d))
        top = 1.0 / (k * q.min()) + 1.0
        phi_plain = 4 * B * B
        phi_improved = B * B * ((np.linalg.norm(c) / c.min() + 1.0) / 2 + 3.0)
        W = rng.normal(size=(4000, d))
        W *= B * rng.uniform(0, 1, size=(4000, 1)) ** 0.2 / np.linalg.norm(W, axis=1, keepdims=True)
        X = rng.normal(size=(4000, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True) / rng.uniform(0, 1, size=(4000, 1)) ** 0.2
        y = B * rng.choice([-1.0, 1.0], size=4000)
        assert gaerr_conditional_second_moment(X, y, W, q, k, None).max() <= phi_plain * top
        assert gaerr_conditional_second_moment(X, y, W, q, k, c).max() <= phi_improved * top
        i = int(q.argmin())
        e = np.eye(d)[i]
        worst = gaerr_conditional_second_moment(e[None], np.array([-B]), B * e[None], q, k, None)[0]
        assert worst == pytest.approx(phi_plain * (1.0 / (k * q[i]) + 1.0 - 1.0 / k))


def test_realised_second_moment_matches_the_conditional_one_on_recorded_paths():
    """The tower property the reading rests on: E[(1/m)Σ‖g̃_t‖²] = E[G²_run] for the learner's own
    recorded estimates (a check that the formula describes the library's estimator)."""
    design = ridge_design({"d": 5, "B": 1.0, "noise": 0.1, "alpha": -1.0}, "decaying_bounded")
    s = np.diag(design.second_moment)
    diffs, scale = [], []
    for seed in range(300):
        X, y = design.sample(200, kernel_state(np.random.SeedSequence([7, seed])))
        for c in (None, np.sqrt(s)):
            model = GAERR(k=2, eta=0.05, q=sampling_rule("rising", s), inner_weights=c, random_state=seed,
                          record_trajectory=True).fit(X, y)
            g2 = gaerr_conditional_second_moment(X, y, model.trajectory_["w"], sampling_rule("rising", s), 2, c)
            realised = (model.trajectory_["g"] ** 2).sum(axis=1)
            diffs.append(realised.mean() - g2.mean())
            scale.append(g2.mean())
    diffs = np.array(diffs)
    assert abs(diffs.mean()) < 5 * diffs.std(ddof=1) / math.sqrt(len(diffs))
    assert abs(diffs.mean()) < 0.05 * np.mean(scale)


def test_path_checks_accept_the_learner_and_reject_the_defects():
    claim = _claim("ks15.thm3.1")
    p = claim.params_for("quick")
    design = ridge_design({**p, "alpha": -2.0}, "decaying_bounded")
    s = np.diag(design.second_moment)
    X, y = design.sample(400, kernel_state(np.random.SeedSequence(3)))
    cases = [("rising", GAERR, False), ("sqrt_improved", GAERR, False), ("rising", MismatchedWeightsGAERR, True),
             ("sqrt_improved", UnnormalisedInnerGAERR, True)]
    for rule, cls, broken in cases:
        setting = {"eta": 0.02, "q_rule": rule}
        params = claim.learner_params(p, setting, design)
        model = cls(k=1, B=1.0, eta=0.02, random_state=5, record_trajectory=True, **params).fit(X, y)
        path = replace(Path.from_learner(model, *X.shape), X=X, y=y, design=design, params=params)
        checks = claim.path_checks(p, setting, path)
        assert checks["update"] <= 1e-9
        assert (checks["estimate"] > 1e-9) == broken, (rule, cls.__name__, checks)
        # the learner that never moves: its path is constant and returns w_1
        still = path.still()
        assert np.array_equal(still.coef, path.w[0]) and np.all(still.w == path.w[0]) and not still.g.any()
    assert s.shape == (p["d"],)


# ------------------------------------------------------------------------------ the two-phase readings
def test_two_phase_forms_and_expectation_reading():
    claim = _claim("ks15.thm3.4")
    p = claim.params_for("quick")
    s = np.diag(ridge_design({**p, "alpha": -2.0}, "decaying_bounded").second_moment)
    q = {**p, "second_moments": s}
    d, k, m = p["d"], p["k"], p["m"]
    forms = claim.bounds(q, d, k, m)
    always = thm34_bound_always(d, k, m - p["m1"], p["B"])
    whp = claim.whp(q, d, k, m)
    delta = p["delta_phase1"]
    assert forms["w.p. 1"] == always
    assert forms["w.p. ≥ 1−δ, in expectation"] == pytest.approx((1 - delta) * min(whp, always) + delta * always)
    assert forms["w.p. ≥ 1−δ, in expectation"] <= always
    lasso = _claim("ks15.thm4.5")
    lp = lasso.params_for("quick")
    lq = {**lp, "second_moments": np.ones(lp["d"])}
    lforms = lasso.bounds(lq, lp["d"], lp["k"], lp["m"])
    assert lforms["w.p. ≥ 1−δ, in expectation"] < lforms["w.p. 1"]  # the moment form improves here


def test_sandwich_event_uses_the_theorems_epsilon():
    """The event's H is Theorem 3.4's ‖2A + (10/3)ε‖_{1/2} at ε = d log(2d/δ)/((k+1)m₁), A from the recorded phase-1
    draws: the library's own H_ for its own draws, below the sandwich's lower end when every recorded draw is of
    the attribute of smallest moment (the other A_i are then 0)."""
    claim = _claim("ks15.thm3.4")
    p = claim.params_for("quick")
    design = ridge_design({**p, "alpha": -2.0}, "decaying_bounded")
    s = np.diag(design.second_moment)
    q = {**p, "second_moments": s}
    X, y = design.sample(p["m1"] + 10, kernel_state(np.random.SeedSequence(4)))
    model = TwoPhaseDDAERR(k=p["k"], B=1.0, m1=p["m1"], delta=p["delta_phase1"], random_state=2,
                           record_trajectory=True).fit(X, y)
    eps = phase1_epsilon(p["d"], p["k"], p["m1"], p["delta_phase1"])
    assert model.epsilon_ == pytest.approx(eps)
    certain, possible, ratio, _ = claim.event(q, "sandwich", design, model, X, y)
    assert not certain and not possible and ratio == pytest.approx(model.H_ / half_norm(s), rel=1e-12)
    low, _ = thm34_sandwich(s, p["d"], eps)
    last = p["d"] - 1
    one = {"phase1_draws": np.full((p["m1"], p["k"] + 1), last, dtype=np.int64),
           "coordinates": np.zeros((10, p["k"]), dtype=np.int64)}
    certain, possible, ratio, _ = claim.event(q, "sandwich", design, SimpleNamespace(trajectory_=one), X, y)
    assert certain and possible and ratio < 1
    H = half_norm(np.r_[np.zeros(last), 2.0 * np.mean(X[: p["m1"], last] ** 2)] + 10.0 * eps / 3.0)
    assert ratio * half_norm(s) == pytest.approx(H, rel=1e-12) and H < low


# ------------------------------------------------------------------------------ the kinds' hooks
def test_hk12_tasks_are_unchanged_by_the_new_hooks():
    claim = discover()["hk12.thm3.1"]
    tasks = claim.tasks(claim.params_for("quick"))
    bound = [t for t in tasks if t["part"] == "bound"]
    assert bound and all(set(t) == {"part", "design", "first", "reps"} for t in bound)


def test_design_grid_and_variants():
    claim = _claim("ks15.thm4.1")
    p = claim.params_for("quick", {"designs": "decaying_bounded,label_bound", "alphas": "-1,-2"})
    labels = [v["label"] for v in claim.variants(p)]
    assert labels == [f"{d}, q {r}" for d in ("decaying_bounded α=-1", "decaying_bounded α=-2", "label_bound")
                      for r in p["q_rules"]]
    tasks = [t for t in claim.tasks(p) if t["part"] == "bound"]
    assert {t["fixed"]["alpha"] for t in tasks if t["name"] == "decaying_bounded"} == {-1.0, -2.0}


@pytest.mark.parametrize(("claim_id", "profile"), [(c, p) for c in RISK for p in ("quick", "full")]
                         + [pytest.param("ks15.thm3.3", "paper", marks=pytest.mark.slow)])  # 'spiked' at d = 4000
def test_no_profile_is_vacuous_by_construction(claim_id, profile):
    """On every design and form of the profile, the same test the claim runs must FAIL the trivial
    learner's exact value (a point mass, as many runs as the profile has)."""
    claim = _claim(claim_id)
    p = claim.params_for(profile)
    rows = []
    for v in claim.variants(p):
        q = {**p, **v["fixed"]}
        design = claim.subjects["design"](q, v["design"])
        d = design.cross_moment.shape[0]
        q.update(claim.design_quantities(q, design))
        optimum = constrained_optimum(design, p["B"], norm=claim.norm, half=True)
        top = excess_range(claim.norm, design.moments, p["B"], optimum[0])
        trivial = excess_risk(claim.start(q, d), design, p["B"], norm=claim.norm, half=True, optimum=optimum)
        forms = claim.bounds(q, d, q["k"], q["m"]).items()  # a variant may fix its own k and m
        rows += [(v["label"], form, bound, trivial, top) for form, bound in forms]
    each = p["delta"] * claim.mean_share(p) / len(rows)
    for label, form, bound, trivial, top in rows:
        _, dec, _ = stats.decide_mean_at_most(np.full(p["repetitions"], trivial), top, bound, each,
                                              p["resolution"] * bound)
        assert dec.verdict == "FAIL", (claim_id, label, form, trivial, bound)


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_full_profile_is_valid(claim_id):
    claim = _claim(claim_id)
    assert claim.tasks(claim.params_for("full"))
    assert claim.describe()["profiles"]["full"]


# ------------------------------------------------------------------------------ verdicts
@pytest.mark.parametrize("claim_id", ["ks15.thm3.3", "ks15.thm4.1"])
def test_quick_passes_and_is_not_vacuous(run_claim, tmp_path, claim_id):
    record = run_claim(claim_id)
    assert record["verdict"] == "PASS", record["decision"]
    assert all(h["met"] for h in record["hypothesis_checks"])
    assert not record["vacuous"] and record["trivial"] > record["theory"]
    summary = pd.read_csv(tmp_path / record["summary_file"])
    assert (summary["verdict"] == "PASS").all() and (summary["trivial"] > summary["bound"]).all()


def test_thm31_quick_passes_with_its_checks(run_claim):
    record = run_claim("ks15.thm3.1")
    assert record["verdict"] == "PASS", record["decision"]
    assert "not vacuous: the learner that never moves" in record["decision"]
    assert record["decision"].count("- PASS: ") == 3  # output, estimate, update


def test_thm33_reports_the_ratio_to_hk12(run_claim, tmp_path):
    record = run_claim("ks15.thm3.3", repetitions=20)
    summary = pd.read_csv(tmp_path / record["summary_file"])
    p = record["params"]
    for _, row in summary.iterrows():
        assert row["ratio to hk12"] == pytest.approx(row["bound"] / row["hk12 bound"])
        assert row["ratio to hk12"] <= 1.0
    assert any("Against hk12 Theorem 3.1" in n for n in record["notes"])
    assert p["d"] == summary["d"].iloc[0]


def test_sandwich_part_alone_fails_without_smoothing(run_claim):
    """Conformance off, phase 1 too short to see every attribute: the sandwich on H recomputed from the recorded
    draws keeps the smoothing and holds; the law of the draws sees phase 2 never drawing what phase 1 missed."""
    record = run_claim("ks15.thm3.4", {"learner": "tests.defects_ks15:NoSmoothingTwoPhaseDDAERR"}, m1=1, m=400,
                       repetitions=2, designs="boundary", event_repetitions=40, conformance=False)
    assert record["verdict"] == "FAIL"
    (line,) = [x for x in record["decision"].splitlines() if x.startswith("- event 'sandwich'")]
    assert ": FAIL." not in line and "0/40 runs violate it" in line
    (law,) = [x for x in record["decision"].splitlines() if x.startswith("- the law of the draws")]
    assert ": FAIL." in law and "Phase 2: phase 2's data-point draws follow q ∝ √(A + 13ε/6)" in law
    assert " fails: run " in law.split("Phase 2:")[1]  # one run alone rejects: phase 2 piles onto what phase 1 saw


@pytest.mark.parametrize(("claim_id", "overrides"), [
    ("ks15.thm3.4", {"m1": 20000}), ("ks15.thm4.5", {"m1": 60000}), ("ks15.thm4.4", {"m": 1}),
    ("ks15.thm3.1", {"q_rules": "nonsense"}), ("ks15.thm3.3", {"alphas": "0.5"}),
    ("ks15.thm3.3", {"paired_tail": "1"}), ("ks15.thm4.4", {"paired_tail": "0"}), ("ks15.thm3.4", {"tail": "1"}),
    ("ks15.thm3.4", {"spiked_m1": "49000"}), ("ks15.thm4.5", {"designs": "spiked", "spiked_k": "5"})])
def test_parameters_are_validated(claim_id, overrides):
    with pytest.raises(ParameterError):
        _claim(claim_id).params_for("quick", {k: str(v) for k, v in overrides.items()})


# ------------------------------------------------------------------------------ part (d): DD against uniform q
@pytest.mark.parametrize(("learner", "defect"), [(DDAERR, UniformQDDAERR), (DDAELR, UniformQDDAELR)])
def test_part_d_reference_is_the_uniform_learner_draw_for_draw(learner, defect):
    """The reference (the DD learner told that every moment is equal) is the uniform-q defect draw for draw, and
    the DD learner on unequal moments is not."""
    setting = ridge_design if learner is DDAERR else lasso_design
    design = setting({"d": 30, "B": 1.0, "noise": 0.1, "tail": 1e-3}, "spiked")
    X, y = design.sample(400, kernel_state(np.random.SeedSequence(3)))
    s = np.diag(design.second_moment)
    kw = {"k": 1, "B": 1.0, "eta": 0.01, "random_state": 11}
    reference = learner(second_moments=np.ones(30), **kw).fit(X, y)
    np.testing.assert_array_equal(defect(second_moments=s, **kw).fit(X, y).coef_, reference.coef_)
    assert not np.array_equal(learner(second_moments=s, **kw).fit(X, y).coef_, reference.coef_)


@pytest.mark.parametrize("claim_id", ["ks15.thm3.3", "ks15.thm4.4"])
@pytest.mark.parametrize("overrides", [{}, {"rate_repetitions": "4", "rate_designs": "boundary"}])
def test_part_d_takes_its_share_of_delta(claim_id, overrides):
    claim = _claim(claim_id)
    if claim_id == "ks15.thm4.4" and overrides:
        overrides = {**overrides, "rate_designs": "label_bound"}
    p = claim.params_for("quick", overrides)
    parts = 1 + claim._rate_on(p) + claim._events_on(p) + claim._paired_on(p)
    assert claim.mean_share(p) == pytest.approx(1 / parts)
    assert claim._paired_delta(p) == pytest.approx(p["delta"] / parts)


@pytest.mark.parametrize("claim_id", ["ks15.thm3.3", "ks15.thm4.4"])
def test_part_d_reproduces_for_the_dd_learner(run_claim, claim_id):
    record = run_claim(claim_id, repetitions=2, designs="label_bound" if claim_id == "ks15.thm4.4" else "boundary")
    (finding,) = record["findings"]
    assert finding["outcome"] == "REPRODUCED" and finding["low"] > 0, record["decision"]
    claim, p = _claim(claim_id), record["params"]
    q = {**p, "d": p["paired_d"], "noise": p["paired_noise"], "tail": p["paired_tail"]}
    q.update(claim.design_quantities(q, claim.subjects["design"](q, "spiked")))
    bound = claim.bound(q, p["paired_d"], p["k"], p["paired_m"])
    assert finding["margin"] == pytest.approx(p["margin"] * bound, rel=1e-12)


@pytest.mark.parametrize(("claim_id", "profile"), [("ks15.thm3.4", "quick"), ("ks15.thm3.4", "full"),
                                                   ("ks15.thm4.5", "full")])
def test_spiked_variant_is_where_the_moment_bound_decides(claim_id, profile):
    """The 'spiked' variant runs at its own (d, k, m₁, m), and there the w.p. ≥ 1 − δ form is the smaller one."""
    claim = _claim(claim_id)
    p = claim.params_for(profile)
    (v,) = [v for v in claim.variants(p) if v["design"] == "spiked"]
    q = {**p, **v["fixed"]}
    design = claim.subjects["design"](q, "spiked")
    q.update(claim.design_quantities(q, design))
    d = design.cross_moment.shape[0]
    assert (d, q["k"], q["m1"], q["m"]) == (p["spiked_d"], p["spiked_k"], p["spiked_m1"], p["spiked_m"])
    assert claim.whp(q, d, q["k"], q["m"]) < claim.always(q, d, q["k"], q["m"])
    events = [t for t in claim.tasks(p) if t["part"] == "event" and t.get("name") == "spiked"]
    assert all(t["m"] == p["spiked_m1"] + p["event_m2"] for t in events)


# ------------------------------------------------------------------------------ Theorem 4.5's premise, from the draws
def _silent(learner):
    """The library's two-phase ``learner``, keeping no record of its draws (its q_ and H_ are still reported)."""

    class Silent(learner):
        def fit(self, X, y=None):
            super().fit(X, y)
            self.__dict__.pop("trajectory_", None)
            return self

    Silent.__name__ = Silent.__qualname__ = f"_Silent{learner.__name__}"
    return Silent


_SilentTwoPhaseDDAELR = _silent(TwoPhaseDDAELR)


def test_premise_is_recomputed_from_the_recorded_draws_not_the_reports():
    """On unequal moments the event's A and q are Algorithm 4's on the learner's recorded phase-1 draws (they equal
    the library's own A and q, multiplicities included), and what the learner reports changes nothing."""
    claim = _claim("ks15.thm4.5")
    p = claim.params_for("quick")
    design = lasso_design({**p, "alpha": -2.0}, "decaying_bounded")
    q = {**p, **claim.design_quantities(p, design)}
    X, y = design.sample(p["m1"] + p["event_m2"], kernel_state(np.random.SeedSequence(5)))
    model = TwoPhaseDDAELR(k=p["k"], B=1.0, m1=p["m1"], delta=p["delta_phase1"], random_state=3,
                           record_trajectory=True).fit(X, y)
    certain, possible, ratio, extra = claim.event(q, "premise", design, model, X, y)
    d = p["d"]
    assert not certain and not possible and 0 < ratio < 1
    assert np.allclose([extra[f"law2_{i}"] for i in range(d)], model.q_, rtol=1e-12, atol=0)
    assert sum(extra[f"draws1_{i}"] for i in range(d)) == p["m1"] * (p["k"] + 1)
    assert sum(extra[f"draws2_{i}"] for i in range(d)) == p["event_m2"] * p["k"]
    model.q_, model.H_ = np.array([1.0, 0.0, 0.0, 0.0]), 1e-9  # reports that would break the premise
    assert claim.event(q, "premise", design, model, X, y) == (certain, possible, ratio, extra)
    assert claim.event(q, "premise", design, _SilentTwoPhaseDDAELR(k=p["k"], m1=p["m1"]).fit(X, y), X, y)[3] == {
        "draws_recorded": 0.0}


def test_premise_without_recorded_draws_is_not_run_and_never_passes(run_claim):
    record = run_claim("ks15.thm4.5", {"learner": _SilentTwoPhaseDDAELR}, isolate=False, conformance=False,
                       event_repetitions=20)
    assert record["verdict"] == "INCONCLUSIVE", record["decision"]
    lines = [x for x in record["decision"].splitlines() if x.startswith("- event 'premise'")]
    assert len(lines) == 2 and all(": NOT RUN." in x for x in lines)
    assert not any(": FAIL." in x or ": INCONCLUSIVE." in x for x in record["decision"].splitlines()
                   if x.startswith("- ") and "event" not in x)  # everything else decided: the NOT RUN is why


@pytest.mark.parametrize(("learner", "overrides", "where"), [
    ("SqrtDrawsTwoPhaseDDAELR", {"m": 5100}, ("decaying_bounded α=-2",)),
    ("UnsmoothedDrawsTwoPhaseDDAELR", {"m1": 1, "m": 400}, ("label_bound", "decaying_bounded α=-2"))])
def test_a_learner_reporting_one_q_and_drawing_another_fails_the_claim_itself(run_claim, learner, overrides, where):
    """Conformance off: the claim's own law of the draws sees the q the learner sampled from. q ∝ √(A + 13ε/6) is
    uniform on 'label_bound' (equal moments), so only the unequal design sees it."""
    record = run_claim("ks15.thm4.5", {"learner": f"tests.defects_users:{learner}"}, conformance=False,
                       rate_repetitions=0, dk_repetitions=0, repetitions=2, event_repetitions=40, **overrides)
    assert record["verdict"] == "FAIL", record["decision"]
    laws = {x.split(", ", 1)[1].split(":")[0]: x for x in record["decision"].splitlines()
            if x.startswith("- the law of the draws")}
    assert {label for label, x in laws.items() if ": FAIL." in x} == set(where), laws
    assert all("Phase 2: phase 2's data-point draws follow" in laws[label] and " fails: " in laws[label]
               for label in where)


# ------------------------------------------------------------------------------ Theorem 3.4's sandwich, from the draws
_SilentTwoPhaseDDAERR = _silent(TwoPhaseDDAERR)


def test_sandwich_is_recomputed_from_the_recorded_draws_not_the_reports():
    """On unequal moments the event's A, H and q are Algorithm 2's on the learner's recorded phase-1 draws (they equal
    the library's own, multiplicities included), and what the learner reports changes nothing."""
    claim = _claim("ks15.thm3.4")
    p = claim.params_for("quick")
    design = ridge_design({**p, "alpha": -2.0}, "decaying_bounded")
    s = np.diag(design.second_moment)
    q = {**p, "second_moments": s}
    X, y = design.sample(p["m1"] + p["event_m2"], kernel_state(np.random.SeedSequence(5)))
    model = TwoPhaseDDAERR(k=p["k"], B=1.0, m1=p["m1"], delta=p["delta_phase1"], random_state=3,
                           record_trajectory=True).fit(X, y)
    certain, possible, ratio, extra = claim.event(q, "sandwich", design, model, X, y)
    d = p["d"]
    assert not certain and not possible and ratio == pytest.approx(model.H_ / half_norm(s), rel=1e-12)
    assert np.allclose([extra[f"law2_{i}"] for i in range(d)], model.q_, rtol=1e-12, atol=0)
    assert sum(extra[f"draws1_{i}"] for i in range(d)) == p["m1"] * (p["k"] + 1)
    assert sum(extra[f"draws2_{i}"] for i in range(d)) == p["event_m2"] * p["k"]
    model.q_, model.H_ = np.r_[1.0, np.zeros(d - 1)], 1e-9  # reports that would break the sandwich
    assert claim.event(q, "sandwich", design, model, X, y) == (certain, possible, ratio, extra)
    silent = _SilentTwoPhaseDDAERR(k=p["k"], m1=p["m1"]).fit(X, y)
    assert claim.event(q, "sandwich", design, silent, X, y)[3] == {"draws_recorded": 0.0}


def test_sandwich_without_recorded_draws_is_not_run_and_never_passes(run_claim):
    record = run_claim("ks15.thm3.4", {"learner": _SilentTwoPhaseDDAERR}, isolate=False, conformance=False,
                       repetitions=20, event_repetitions=10)
    assert record["verdict"] == "INCONCLUSIVE", record["decision"]
    lines = [x for x in record["decision"].splitlines() if x.startswith("- event 'sandwich'")]
    assert len(lines) == 3 and all(": NOT RUN." in x and "never from the H_ and q_" in x for x in lines)
    assert not any(x.startswith("- the law of the draws") for x in record["decision"].splitlines())


@pytest.mark.parametrize(("learner", "verdict"),
                         [("UsersTwoPhaseDDAERR", "PASS"), ("LassoDrawsTwoPhaseDDAERR", "FAIL")])
def test_a_ridge_learner_reporting_one_q_and_drawing_another_fails_the_claim_itself(run_claim, learner, verdict):
    """Conformance off: the claim's own law of the draws sees the q the NumPy learner sampled from. Written from
    Algorithm 2 the learner's law PASSes; drawing by q ∝ A + 13ε/6 while reporting √(A + 13ε/6) FAILs it on
    unequal moments, and the sandwich, on the recomputed H, is never violated (40 runs are too few to PASS it)."""
    record = run_claim("ks15.thm3.4", {"learner": f"tests.defects_users:{learner}"}, conformance=False,
                       repetitions=2, m=2100, alphas="-2", designs="decaying_bounded", event_repetitions=40)
    lines = record["decision"].splitlines()
    (law,) = [x for x in lines if x.startswith("- the law of the draws")]
    (sandwich,) = [x for x in lines if x.startswith("- event 'sandwich'")]
    assert ": FAIL." not in sandwich and "0/40 runs violate it" in sandwich, sandwich
    assert f": {verdict}." in law, law
    if verdict == "FAIL":
        assert record["verdict"] == "FAIL" and " fails: " in law.split("Phase 2:")[1]
        assert "Phase 1: phase 1's draws are uniform (Algorithm 2) holds" in law
