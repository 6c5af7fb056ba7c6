"""hk12 Theorems 3.1 (AERR) and 3.4 (AELR): PASS as built on non-vacuous instances, no PASS where
the trivial learner would also meet the bound, the paper's step-size misprint in Theorem 3.4 as
an erratum with its evidence, parameter rejections, and agreement of the library's learners with
an independent, literal implementation of Algorithms 1 and 2. The planted defects are declared
beside the claims and run by tests/test_power.py."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.defects_bounds import StillAERR
from theorycheck import stats
from theorycheck.algorithms import AELR, AERR
from theorycheck.bounds.hk12 import (
    lemma33_second_moment,
    thm31_bound_for_eta,
    thm31_eta,
    thm31_excess_risk,
    thm34_bound_for_eta,
    thm34_eta,
    thm34_excess_risk,
)
from theorycheck.claims import discover
from theorycheck.cli import main
from theorycheck.generators.designs import correlated_design, sparse_lasso_design
from theorycheck.generators.registry import lasso_design, ridge_design
from theorycheck.kinds.bound import excess_range
from theorycheck.population import constrained_optimum, excess_risk
from theorycheck.rng import kernel_state
from theorycheck.stats import anderson_interval, slope_box
from theorycheck.stats import bounded_mean_interval as mean_interval
from theorycheck.validation import ParameterError

# The parts (b) rate and (c) d/k scaling and the erratum's witness runs are switched off where a
# test is about part (a) alone, to keep the file fast.
NO_GRIDS = {"rate_repetitions": 0, "dk_repetitions": 0}


def _lines(record, prefix):
    return [line for line in record["decision"].splitlines() if line.startswith(prefix)]


# ------------------------------------------------------------------------------ bounds
def test_bound_values_and_step_sizes():
    d, k, m, B = 37, 5, 1234, 1.7
    assert thm31_excess_risk(d, k, m, B) == pytest.approx(4 * B * B * math.sqrt(2 * d / (k * m)), rel=1e-15)
    assert thm34_excess_risk(d, k, m, B) == pytest.approx(
        4 * B * B * math.sqrt(10 * d * math.log(2 * d) / (k * m)), rel=1e-15)
    assert lemma33_second_moment(d, k, B) == pytest.approx(8 * B * B * d / k)
    # the proofs' general-η bounds meet the stated ones at the proofs' η
    assert thm31_bound_for_eta(d, k, m, B, thm31_eta(d, k, m)) == pytest.approx(thm31_excess_risk(d, k, m, B))
    stated = thm34_excess_risk(d, k, m, B)
    assert thm34_bound_for_eta(d, k, m, B, thm34_eta(d, k, m, B, "proof")) == pytest.approx(stated)
    # ... and the theorem's printed η (proof's / B) is only entitled to (B + 1/B)/2 times it
    assert thm34_bound_for_eta(d, k, m, B, thm34_eta(d, k, m, B, "theorem")) == pytest.approx(
        (B + 1 / B) / 2 * stated)
    assert thm34_eta(d, k, m, 1.0, "theorem") == thm34_eta(d, k, m, 1.0, "proof")
    # outside η ≤ 1/(2G) the proof of Theorem 3.4 says nothing
    g = math.sqrt(lemma33_second_moment(d, k, B))
    assert thm34_bound_for_eta(d, k, m, B, 0.51 / g) == math.inf
    with pytest.raises(ParameterError):
        thm31_excess_risk(5, 6, 10, 1.0)
    with pytest.raises(ParameterError):
        thm34_excess_risk(5, 2, 10, 0.0)


# ------------------------------------------------------------------------------ statistics
def test_anderson_and_mean_interval_cover_and_help_concentrated_values():
    rng = np.random.default_rng(3)
    values = rng.beta(50, 50, size=40) * 0.2 + 0.7  # concentrated near 0.8 in [0, 2]
    ander = anderson_interval(values, 0.0, 2.0, 1e-3)
    bern = stats.bernstein_interval(values, 0.0, 2.0, 1e-3)
    assert ander.low <= 0.8 <= ander.high and bern.low <= 0.8 <= bern.high
    assert ander.low > bern.low  # no range term in Anderson's lower end
    both = mean_interval(values, 2.0, 1e-3)
    assert both.low == max(anderson_interval(values, 0, 2, 5e-4).low, stats.bernstein_interval(values, 0, 2, 5e-4).low)
    assert both.low <= values.mean() <= both.high
    # a point mass: ε = √(ln(2/δ)/(2n)) of the mass is given away on each side
    n, delta = 50, 1e-2
    eps = math.sqrt(math.log(2 / delta) / (2 * n))
    iv = anderson_interval(np.full(n, 1.0), 0.0, 4.0, delta)
    assert iv.low == pytest.approx(1.0 - eps) and iv.high == pytest.approx(1.0 + 3.0 * eps)
    with pytest.raises(ParameterError):
        anderson_interval([0.5, 3.0], 0.0, 2.0, 0.1)


def test_slope_box_is_exact_on_points_and_brackets_the_fit():
    ms = np.array([1e3, 4e3, 16e3, 64e3])
    means = 3.0 * ms**-0.7
    points = [stats.Interval(v, v, v, 0.1, "point", 1) for v in means]
    low, high = slope_box(ms, points)
    assert low == pytest.approx(-0.7) and high == pytest.approx(-0.7)
    wide = [stats.Interval(v, 0.5 * v, 2.0 * v, 0.1, "x", 1) for v in means]
    low, high = slope_box(ms, wide)
    assert low < -0.7 < high
    zero = [stats.Interval(v, 0.0, 2.0 * v, 0.1, "x", 1) for v in means]
    assert slope_box(ms, zero)[0] == -math.inf


# ------------------------------------------------------------------------------ designs and ranges
def test_boundary_design_has_the_active_constraint_it_claims():
    d, B = 9, 1.3
    design = ridge_design({"d": d, "B": B, "noise": 0.0}, "boundary")
    w, risk = constrained_optimum(design, B, norm="l2", half=True)
    target = np.zeros(d)
    target[0] = B
    np.testing.assert_allclose(w, target, atol=1e-12)
    assert risk == pytest.approx(0.5 * B * B * (1 - 1 / math.sqrt(d)) ** 2, rel=1e-12)
    X, y = design.sample(1000, kernel_state(np.random.SeedSequence(0)))
    assert np.allclose(np.abs(y), B, rtol=1e-12) and np.allclose(np.linalg.norm(X, axis=1), 1.0)
    assert design.satisfies("l2", B)


@pytest.mark.parametrize("norm", ["l2", "l1"])
def test_excess_risk_range_holds_over_the_ball(norm):
    """The range used by the intervals: 0 ≤ L(w) − L(w*) ≤ range ≤ 2B² for every w in the ball
    (checked on random points of the ball and its boundary, and on the vertices for L1)."""
    p = {"d": 7, "B": 1.4, "noise": 0.2, "rho": 0.8, "s": 2}
    make, names = (ridge_design, ("boundary", "correlated", "mixed")) if norm == "l2" else (
        lasso_design, ("sparse", "label_bound", "correlated", "mixed"))
    rng = np.random.default_rng(5)
    for name in names:
        design = make(p, name)
        w_opt, risk = constrained_optimum(design, p["B"], norm=norm, half=True)
        top = excess_range(norm, design.moments, p["B"], w_opt)
        assert top <= 2 * p["B"] ** 2
        W = rng.standard_normal((4000, 7))
        W /= np.linalg.norm(W, ord=2 if norm == "l2" else 1, axis=1)[:, None]
        W *= p["B"] * rng.uniform(0, 1, size=(4000, 1)) ** 0.2
        if norm == "l1":
            W = np.concatenate([W, p["B"] * np.eye(7), -p["B"] * np.eye(7)])
        values = excess_risk(W, design, p["B"], norm=norm, half=True, optimum=(w_opt, risk))
        assert values.min() >= -1e-12 and values.max() <= top * (1 + 1e-12)
        if norm == "l1":
            assert values.max() == pytest.approx(top)  # attained at a vertex


# ------------------------------------------------------------------------------ PASS as built, never vacuous
@pytest.mark.parametrize("claim_id", ["hk12.thm3.1", "hk12.thm3.4"])
def test_quick_profile_passes_on_instances_that_are_not_vacuous(run_claim, tmp_path, claim_id):
    record = run_claim(claim_id)
    assert record["verdict"] == "PASS", record["decision"]
    assert 0 < record["ratio"] < 1
    assert all(h["met"] for h in record["hypothesis_checks"])
    assert not record["vacuous"] and record["trivial"] > record["theory"]
    summary = pd.read_csv(tmp_path / record["summary_file"])
    assert (summary["verdict"] == "PASS").all() and not summary["vacuous"].any()
    # the trivial learner would FAIL on every design, which is what makes the PASS mean something
    assert (summary["trivial"] > summary["bound"]).all()
    assert len(_lines(record, "- (b)")) == len(record["params"]["rate_designs"])
    assert all(": consistent." in line and "Reported only: slope" in line for line in _lines(record, "- (b)"))
    plot = record["plot"]
    assert plot["low"] == "low" and plot["trivial"] == "trivial" and "decides" in plot["band_label"]
    # the band drawn is the deciding interval: every PASS has its upper end under the edge of PASS
    assert (summary["high"] <= summary["pass_line"]).all()


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("claim_id", ["hk12.thm3.1", "hk12.thm3.4"])
def test_no_profile_is_vacuous_by_construction(claim_id, full):
    """The trivial learner's exact value on each design of the profile, against the bound at the
    profile's m: the same test the claim runs must FAIL it (a point mass of that value, as many
    runs as the profile has)."""
    claim = discover()[claim_id]
    p = claim.params_for("full" if full else "quick")
    n_designs = len(p["designs"])
    each = p["delta"] * claim.mean_share(p) / n_designs
    for name in p["designs"]:
        design = claim.subjects["design"](p, name)
        optimum = constrained_optimum(design, p["B"], norm=claim.norm, half=True)
        top = excess_range(claim.norm, design.moments, p["B"], optimum[0])
        trivial = excess_risk(claim.start(p, p["d"]), design, p["B"], norm=claim.norm, half=True, optimum=optimum)
        bound = claim.bound(p, p["d"], p["k"], p["m"])
        _, dec, _ = stats.decide_mean_at_most(np.full(p["repetitions"], trivial), top, bound, each,
                                              p["resolution"] * bound)
        assert dec.verdict == "FAIL", (claim_id, name, trivial, bound)


def test_vacuous_instance_never_passes(run_claim):
    """The issue's example: at d = 10, k = 1, m = 2000 the bound 0.4 exceeds L(w_1) − L(w*) ≈ 0.27
    on 'boundary', so a learner that never moves meets it: the correct AERR gets no PASS there,
    and the learner that never moves gets no PASS either."""
    params = dict(designs="boundary", d=10, k=1, m=2000, repetitions=100, **NO_GRIDS)
    record = run_claim("hk12.thm3.1", **params)
    assert record["verdict"] == "INCONCLUSIVE" and record["vacuous"]
    assert "VACUOUS" in record["decision"] and "PASS" in record["decision"]
    still = run_claim("hk12.thm3.1", {"learner": StillAERR}, conformance=False, **params)  # the claim itself
    assert still["verdict"] != "PASS" and still["vacuous"]


def test_thm31_rate_part_fails_on_a_plateau(run_claim):
    """Part (b) alone: with the label read with the wrong sign the excess risk sits far above the
    bound at every m of the grid (a slope of about 0, reported beside it)."""
    record = run_claim("hk12.thm3.1", {"learner": "tests.defects_bounds:NegatedLabelAERR"}, conformance=False,
                       designs="correlated",
                       rate_designs="correlated", repetitions=10, rate_repetitions=15, dk_repetitions=0)
    assert record["verdict"] == "FAIL"
    (line,) = _lines(record, "- (b) correlated")
    assert ": FAIL at m = 12500" in line and "m = 100000 (interval" in line and "asymptotic" in line


def test_thm31_projection_dropped_leaves_the_ball_for_certain(run_claim):
    record = run_claim("hk12.thm3.1", {"learner": "tests.defects_bounds:NoProjectionAERR"}, conformance=False,
                       designs="boundary",
                       repetitions=10, **NO_GRIDS)
    assert record["verdict"] == "FAIL"
    (line,) = _lines(record, "- Ball")
    assert "violated on 10 of 10 runs" in line and "certain" in line


# ------------------------------------------------------------------------------ the paper's misprint
def test_thm34_erratum_evidence_shows_the_printed_step_size_failing(run_claim):
    """Theorem 3.4 prints η = (1/(4B²))√(2k log(2d)/(5md)); its proof uses 1/(4B) in front. With
    B = 16 the printed η is 16 times too small: the run is still near w_1 = 0 and the mean excess
    risk is about twice the stated bound; with the proof's η the same instance sits at ≈ 2.5% of it."""
    claim = discover()["hk12.thm3.4"]
    assert [(e.key, e.basis) for e in claim.errata] == [("eta", "run")]
    record = run_claim("hk12.thm3.4", repetitions=2, **NO_GRIDS)
    text = record["errata_evidence"]["eta"]
    printed, proof = text.split("; with the proof's")
    assert "lies entirely ABOVE the stated bound" in printed
    assert "ABOVE" not in proof
    assert "So the statement as printed fails" in text


def test_thm34_as_printed_fails_for_large_B(run_claim):
    record = run_claim("hk12.thm3.4", designs="sparse", d=8, k=4, s=1, B=16.0, m=100000, repetitions=20,
                       witness_repetitions=0, **NO_GRIDS)
    assert record["verdict"] == "FAIL", record["decision"]
    assert all(h["met"] for h in record["hypothesis_checks"])
    assert record["ratio"] > 1.5
    assert any("eta_rule=proof" in note for note in record["notes"])


# ------------------------------------------------------------------------------ parameters
@pytest.mark.parametrize("claim_id", ["hk12.thm3.1", "hk12.thm3.4"])
@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"k": "0"}, "k must be at least 1"),
        ({"k": "11", "d": "10"}, "must not exceed d"),
        ({"B": "0"}, "B must be > 0"),
        ({"B": "-1.5"}, "B must be > 0"),
        ({"delta": "1"}, "delta"),
        ({"designs": "nope"}, "unknown designs"),
        ({"k_grid": "1,2,99"}, "k_grid"),
        ({"m_grid": "100,100,200"}, "3 distinct"),
        ({"rate_repetitions": "1"}, "rate_repetitions"),
    ],
)
def test_thm3_parameters_rejected(claim_id, overrides, message):
    with pytest.raises(ParameterError, match=message):
        discover()[claim_id].params_for("quick", overrides)


def test_thm34_specific_rejections():
    claim = discover()["hk12.thm3.4"]
    with pytest.raises(ParameterError, match="log 2d"):
        claim.params_for("quick", {"m": "2"})
    with pytest.raises(ParameterError, match="eta_rule"):
        claim.params_for("quick", {"eta_rule": "guess"})
    with pytest.raises(ParameterError, match="rate_designs"):
        claim.params_for("quick", {"rate_designs": "correlated", "designs": "sparse"})


def test_thm3_cli_rejects_k_zero_with_status_2(capsys, tmp_path):
    assert main(["verify", "hk12.thm3.1", "--set", "k=0", "--out", str(tmp_path)]) == 2
    assert "k must be at least 1" in capsys.readouterr().err


# ------------------------------------------------------------------------------ independent implementation
def _draw(cum, u):
    return int(np.searchsorted(cum, u * cum[-1], side="right"))


def reference_aerr(X, y, k, B, eta, rng):
    """hk12 Algorithm 1, line by line, in plain numpy. Line 1 (w_1 arbitrary, non-zero, in the
    ball) takes the library's documented choice 10⁻³·(B/√d)·𝟏."""
    m, d = X.shape
    w = np.full(d, 1e-3 * B / math.sqrt(d))
    total = np.zeros(d)
    for t in range(m):
        total += w  # line 14 averages w_1, ..., w_m
        x_tilde = np.zeros(d)
        for _ in range(k):  # lines 3–7
            i = int(rng.integers(d))
            x_tilde[i] += d * X[t, i] / k
        sq = float(w @ w)
        if sq > 0:  # lines 8–9
            j = min(_draw(np.cumsum(w * w), rng.random()), d - 1)
            phi = sq * X[t, j] / w[j] - y[t]
        else:
            phi = -y[t]
        v = w - eta * phi * x_tilde  # lines 10–11
        w = v * B / max(float(np.linalg.norm(v)), B)  # line 12
    return total / m


def reference_aelr(X, y, k, B, eta, rng):
    """hk12 Algorithm 2, line by line. At w = 0 (t = 1) line 9 is undefined; ⟨w, x⟩ = 0 is
    known without reading, so φ̃ = −y (the library's documented choice). z± are rescaled by a
    common factor after each step, which leaves w unchanged and avoids overflow."""
    m, d = X.shape
    zp, zm = np.ones(d), np.ones(d)
    total = np.zeros(d)
    for t in range(m):
        w = (zp - zm) * B / (zp.sum() + zm.sum())  # line 3
        total += w
        x_tilde = np.zeros(d)
        for _ in range(k):  # lines 4–8
            i = int(rng.integers(d))
            x_tilde[i] += d * X[t, i] / k
        l1 = float(np.abs(w).sum())
        if l1 > 0:  # lines 9–10
            j = min(_draw(np.cumsum(np.abs(w)), rng.random()), d - 1)
            phi = l1 * np.sign(w[j]) * X[t, j] - y[t]
        else:
            phi = -y[t]
        g_bar = np.clip(phi * x_tilde, -1.0 / eta, 1.0 / eta)  # lines 11–13
        zp, zm = zp * np.exp(-eta * g_bar), zm * np.exp(eta * g_bar)  # lines 14–15
        scale = zp.sum() + zm.sum()
        zp, zm = zp / scale, zm / scale
    return total / m


def _excess_samples(design, B, norm, m, fit, seeds):
    optimum = constrained_optimum(design, B, norm=norm, half=True)
    out = []
    for s in seeds:
        X, y = design.sample(m, kernel_state(np.random.SeedSequence([s, 0])))
        out.append(excess_risk(fit(X, y, s), design, B, norm=norm, half=True, optimum=optimum))
    return np.array(out)


def _same_distribution(a, b, top, delta):
    """Two-sample comparison at level δ: a KS test at δ/2 and the two mean intervals
    (Bernstein ∩ Anderson, δ/4 each) must overlap. Under 'same distribution' the chance that
    either check rejects is ≤ δ."""
    ks = sps.ks_2samp(a, b)
    ia, ib = mean_interval(a, top, delta / 4), mean_interval(b, top, delta / 4)
    return ks.pvalue > delta / 2 and ia.low <= ib.high and ib.low <= ia.high, ks.pvalue


def test_aerr_matches_literal_algorithm_1_in_distribution():
    design = correlated_design(6, rho=0.5, norm="l2", B=1.5, noise=0.3)
    B, k, m = 1.5, 2, 1500
    eta = thm31_eta(6, k, m)
    lib = _excess_samples(design, B, "l2", m,
                          lambda X, y, s: AERR(k=k, B=B, eta=eta, random_state=s).fit(X, y).coef_, range(50))
    ref = _excess_samples(design, B, "l2", m,
                          lambda X, y, s: reference_aerr(X, y, k, B, eta, np.random.default_rng(s)), range(50, 100))
    same, p = _same_distribution(lib, ref, 2 * B * B, 1e-3)
    assert same, f"KS p-value {p:.3g}, means {lib.mean():.4g} vs {ref.mean():.4g}"
    # the comparison has power: the literal algorithm without the d/k weight is told apart
    bad = _excess_samples(design, B, "l2", m,
                          lambda X, y, s: reference_aerr(X, y, k, B, eta * k / 6, np.random.default_rng(s)),
                          range(100, 150))
    assert not _same_distribution(lib, bad, 2 * B * B, 1e-3)[0]


def test_aelr_matches_literal_algorithm_2_in_distribution():
    design = sparse_lasso_design(6, 2, B=1.5, noise=0.3, x_dist="uniform")
    B, k, m = 1.5, 2, 1500
    eta = thm34_eta(6, k, m, B, "theorem")
    lib = _excess_samples(design, B, "l1", m,
                          lambda X, y, s: AELR(k=k, B=B, eta=eta, random_state=s).fit(X, y).coef_, range(50))
    ref = _excess_samples(design, B, "l1", m,
                          lambda X, y, s: reference_aelr(X, y, k, B, eta, np.random.default_rng(s)), range(50, 100))
    same, p = _same_distribution(lib, ref, 2 * B * B, 1e-3)
    assert same, f"KS p-value {p:.3g}, means {lib.mean():.4g} vs {ref.mean():.4g}"
