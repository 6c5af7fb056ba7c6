"""cbss11 Lemmas 8–10 and Theorems 6 and 12 (Baseline and AER): PASS as built, the errata's
evidence, vacuity, parameter rejections, the frequency kind's decisive interval and the L1-ball
supremum against brute force. The planted defects are in tests/defects_regression.py and run by
tests/test_power.py."""

import math

import numpy as np
import pandas as pd
import pytest

from tests.conftest import run_one, run_quick
from tests.defects_regression import AERZeros, estimates_overreporting
from theorycheck import stats
from theorycheck.algorithms.aer import AER
from theorycheck.algorithms.baseline import Baseline, baseline_estimates
from theorycheck.bounds.cbss11 import (
    lemma8_deviation,
    lemma9_deviation,
    lemma10_deviation,
    lemma_delta_star,
    thm12_excess,
    thm12_regret_constant,
)
from theorycheck.claims import discover
from theorycheck.generators.registry import build_design, lasso_design
from theorycheck.kinds.frequency import order_statistic_interval
from theorycheck.kinds.learners import excess_risk
from theorycheck.population import l1_ball_sup_abs_quadratic
from theorycheck.validation import ParameterError

CLAIMS = ["cbss11.lemma8", "cbss11.lemma9", "cbss11.lemma10", "cbss11.thm6", "cbss11.thm12"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory, shared_runs):
    """Each claim run once on its quick profile, on demand (its tasks from the session's shared run)."""
    records = {}

    def get(claim_id):
        if claim_id not in records:
            out = tmp_path_factory.mktemp(claim_id.replace(".", "_"))
            records[claim_id] = (run_quick(claim_id, out, shared_runs), out)
        return records[claim_id]

    return get


# ----------------------------------------------------------------------------- bounds


def test_bound_functions_match_the_paper_formulas():
    d, k, m, B, delta = 10, 4, 5000, 2.0, 0.05
    assert lemma8_deviation(d, k, m, delta) == pytest.approx(
        (d / k) ** 2 * math.sqrt(8 / m * math.log(2 * d * d / delta)))
    assert lemma9_deviation(d, k, B, m, delta) == pytest.approx(d * B / k * math.sqrt(8 / m * math.log(2 * d / delta)))
    assert lemma10_deviation(d, k, B, m, delta) == pytest.approx(
        (B * d / k) ** 2 * math.sqrt(32 / m * math.log(2 * d * d / delta)))
    assert thm12_excess(d, k, B, m, delta) == pytest.approx(
        16 * d * B * B * math.sqrt(math.log(m) / (k * m)) + 4 * B * B * math.sqrt(2 * math.log(1 / delta) / m))
    for lemma, f in ((8, lambda dl: lemma8_deviation(d, k, m, dl)), (9, lambda dl: lemma9_deviation(d, k, B, m, dl)),
                     (10, lambda dl: lemma10_deviation(d, k, B, m, dl))):
        assert lemma_delta_star(f(0.01), lemma=lemma, d=d, k=k, m=m, B=B) == pytest.approx(0.01)
    assert thm12_regret_constant(16.0) == 16.0
    assert thm12_regret_constant(12.0) == pytest.approx(50 / 3)


# ----------------------------------------------------------------------------- L1-ball supremum


def _brute_force_sup(E, e, c, B, rng, n=200_000):
    """|q| on random points of the ball and of its faces (vertices, edges, ...)."""
    d = e.shape[0]
    E = 0.5 * (E + E.T)
    pts = [np.zeros(d)] + [s * B * np.eye(d)[i] for i in range(d) for s in (-1.0, 1.0)]
    P = rng.standard_exponential((n, d)) * rng.choice([-1.0, 1.0], size=(n, d))
    P *= (B * rng.uniform(0, 1, size=(n, 1)) ** (1 / d)) / np.abs(P).sum(axis=1, keepdims=True)
    sparse = P.copy()
    sparse[rng.uniform(size=sparse.shape) < 0.5] = 0.0
    norms = np.abs(sparse).sum(axis=1, keepdims=True)
    sparse = np.where(norms > 0, sparse * B / np.where(norms > 0, norms, 1), 0.0)
    W = np.vstack([np.array(pts), P, sparse])
    return float(np.abs(np.einsum("ij,jk,ik->i", W, E, W) - W @ e + c).max())


@pytest.mark.parametrize("seed", range(6))
def test_sup_is_exact_and_brackets_brute_force(seed):
    rng = np.random.default_rng(seed)
    d = 2 + seed % 3
    E, e, c, B = rng.normal(size=(d, d)), rng.normal(size=d), float(rng.normal()) * 0.1, 1.5
    lower, upper, exact, w = l1_ball_sup_abs_quadratic(E, e, c, B)
    assert exact and lower <= upper
    assert np.abs(w).sum() <= B * (1 + 1e-12)
    Es = 0.5 * (E + E.T)
    assert abs(float(w @ Es @ w - w @ e + c)) == pytest.approx(lower)
    brute = _brute_force_sup(E, e, c, B, rng)
    assert brute <= upper + 1e-12
    assert lower - brute <= 0.02 * lower  # random points come close to the exact supremum
    holder = B * B * min(np.abs(Es).max(), np.linalg.norm(Es, 2)) + B * np.abs(e).max() + abs(c)
    assert upper <= holder + 1e-12
    lo2, up2, exact2, _ = l1_ball_sup_abs_quadratic(E, e, c, B, max_face_dim=1)
    assert lo2 <= lower + 1e-12 and up2 == pytest.approx(holder) and not exact2


def test_sup_on_a_grid_in_two_dimensions():
    rng = np.random.default_rng(11)
    g = np.linspace(-1.0, 1.0, 801)
    u, v = np.meshgrid(g, g)
    keep = np.abs(u) + np.abs(v) <= 1.0
    W = np.stack([u[keep], v[keep]], axis=1)
    for _ in range(5):
        E, e = rng.normal(size=(2, 2)), rng.normal(size=2)
        lower, _, _, _ = l1_ball_sup_abs_quadratic(E, e, 0.0, 1.0)
        brute = np.abs(np.einsum("ij,jk,ik->i", W, 0.5 * (E + E.T), W) - W @ e).max()
        assert brute <= lower + 1e-12 and lower - brute < 1e-4


def test_sup_of_indefinite_form_is_not_at_a_vertex():
    """q(w) = 2w₁w₂ is 0 at every vertex and B²/2 at the edge midpoints."""
    lower, upper, exact, w = l1_ball_sup_abs_quadratic(np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros(2), 0.0, 2.0)
    assert exact and lower == pytest.approx(2.0) and upper == pytest.approx(2.0, rel=1e-8)
    assert np.abs(w) == pytest.approx([1.0, 1.0])


def test_sup_rejects_bad_input():
    with pytest.raises(ParameterError):
        l1_ball_sup_abs_quadratic(np.eye(3), np.zeros(2), 0.0, 1.0)
    with pytest.raises(ParameterError):
        l1_ball_sup_abs_quadratic(np.eye(2), np.zeros(2), 0.0, 0.0)


# ----------------------------------------------------------------------------- the frequency kind


@pytest.mark.parametrize("seed", range(20))
def test_order_statistic_interval_decides_as_clopper_pearson(seed):
    """The interval drawn in the figure lies above the bound exactly when the test FAILs and
    below it exactly when it PASSes."""
    rng = np.random.default_rng(seed)
    n, target, delta, bound = int(rng.integers(5, 200)), 0.1, 1e-3, 1.0
    lower = rng.uniform(0.0, 1.0 + rng.uniform(0, 0.5), n)
    upper = lower + rng.uniform(0.0, 0.1, n)
    low, high = order_statistic_interval(lower, upper, target, delta, 0.0)
    dec, _ = stats.decide_frequency_at_most(int((lower > bound).sum()), int((upper > bound).sum()), n, target,
                                            delta, 0.0, "")
    assert (low > bound) == (dec.verdict == "FAIL")
    assert (high <= bound) == (dec.verdict == "PASS")


# ----------------------------------------------------------------------------- as built


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_claims_pass_as_built(quick, claim_id):
    record, _ = quick(claim_id)
    assert record["verdict"] == "PASS", record["decision"]
    assert all(h["met"] for h in record["hypothesis_checks"])
    assert not record["vacuous"]
    if claim_id != "cbss11.thm6":
        assert 0 < record["ratio"] < 1


def test_lemma8_theory_is_the_printed_bound_and_the_erratum_has_evidence(quick):
    record, out = quick("cbss11.lemma8")
    p = record["params"]
    assert record["theory"] == pytest.approx((p["d"] / p["k"]) ** 2 * math.sqrt(8 / p["m"] * math.log(
        2 * p["d"] ** 2 / p["delta_lemma"])))
    table = pd.read_csv(out / record["table_file"])
    assert (table["violation_certain"] == (table["deviation"] > table["bound"])).all()
    assert (table["printed_deviation"] > table["bound"]).all()  # Figure 1 as printed: zero diagonal
    n = p["repetitions"]
    assert record["errata_evidence"]["figure1-constants"].count(f"a violation in {n} of {n} repetitions") == 2


def test_thm12_trivial_learner(quick):
    record, out = quick("cbss11.thm12")
    assert record["trivial"] > record["theory"] > record["observed"]
    table = pd.read_csv(out / record["table_file"])
    assert table["trivial_violation"].all() and table["conclusion_holds"].all()
    assert record["errata"] == [] and record["errata_evidence"] == {}  # λ 12d against 16d: no false statement


def test_thm6_reports_the_fixed_m_slope_and_uses_the_bootstrap(quick):
    record, _ = quick("cbss11.thm6")
    assert record["observed"] < -0.5
    assert "asymptotic" in record["decision"] and "bootstrap" in record["decision"]
    assert any(note.startswith("Slope of the mean excess risk in d/k at fixed m") for note in record["notes"])
    assert record["trivial"] == pytest.approx(0.0, abs=1e-9)  # the trivial learner's slope in m


def test_the_quick_and_full_thm12_instances_are_not_vacuous():
    """The trivial learner (w = 0) exceeds the bound on every design of both profiles."""
    claim = discover()["cbss11.thm12"]
    for profile in ("quick", "full"):
        p = claim.params_for(profile)
        bound = thm12_excess(p["d"], p["k"], p["B"], p["m"], p["delta_bound"])
        for name in p["designs"]:
            assert excess_risk(np.zeros(p["d"]), build_design("lasso", name, p), p["B"]) > bound, (profile, name)


def test_a_vacuous_instance_never_passes(tmp_path):
    """At d = 4 the mixed design's L(0) − L(w*) = 0.3 is below the bound: the learner that returns
    zeros meets it, so the claim says vacuous instead of PASS."""
    record = run_one("cbss11.thm12", tmp_path, subjects={"learner": AERZeros}, d=4, designs="mixed",
                     conformance=False)
    assert record["verdict"] == "INCONCLUSIVE" and record["vacuous"]
    assert "vacuous" in record["decision"]


def test_lemma_with_overreporting_subject_gets_no_pass(tmp_path):
    record = run_one("cbss11.lemma8", tmp_path, subjects={"estimates": estimates_overreporting}, repetitions=20)
    assert record["verdict"] == "INCONCLUSIVE"
    broken = [h for h in record["hypothesis_checks"] if not h["met"]]
    assert broken and "attributes" in broken[0]["statement"]


def test_lemma_too_few_repetitions_is_inconclusive(tmp_path):
    record = run_one("cbss11.lemma9", tmp_path, repetitions=20)
    assert record["verdict"] == "INCONCLUSIVE"
    assert any("trials" in n for n in record["notes"])


def test_lemma10_large_d_uses_certified_bounds(tmp_path):
    """Beyond exact_max_d the supremum is bracketed; the default estimates still PASS because
    even the Hölder upper bound is below the lemma's bound."""
    record = run_one("cbss11.lemma10", tmp_path, d=12, k=4, m=20000, exact_max_d=6)
    assert record["verdict"] == "PASS", record["decision"]
    table = pd.read_csv(tmp_path / record["table_file"])
    assert (table["sup_method"] == "bounds").all()
    assert (table["deviation"] <= table["deviation_upper"]).all()


# ----------------------------------------------------------------------------- parameters


@pytest.mark.parametrize("claim_id", CLAIMS)
@pytest.mark.parametrize("override", [{"k": "0"}, {"k": "3"}, {"k": "100"}, {"B": "0"}, {"B": "-1"},
                                      {"delta": "1.5"}, {"designs": "gaussian"}, {"noise": "2"}])
def test_check_params_rejects(claim_id, override):
    claim = discover()[claim_id]
    with pytest.raises(ParameterError):
        claim.params_for("quick", override)


def test_check_params_rejects_claim_specific_values():
    registry = discover()
    for claim_id, override in (("cbss11.lemma8", {"delta_lemma": "0"}), ("cbss11.lemma10", {"exact_max_d": "30"}),
                               ("cbss11.thm6", {"ms": "100,100,200"}), ("cbss11.thm6", {"ks": "8,3,2"}),
                               ("cbss11.thm6", {"m0": "1000000"}), ("cbss11.thm12", {"m": "2"}),
                               ("cbss11.lemma9", {"s": "17"}), ("cbss11.thm12", {"delta_bound": "0.95",
                                                                                 "resolution": "0.1"})):
        with pytest.raises(ParameterError):
            registry[claim_id].params_for("quick", override)


def test_quick_profiles_are_decisive_by_construction():
    """0 violations in each design's quick repetitions already give a Clopper–Pearson upper end
    below the claimed probability at level δ/G (so PASS is reachable), and 20 of 20 FAIL."""
    for claim_id in ("cbss11.lemma8", "cbss11.lemma9", "cbss11.lemma10", "cbss11.thm12"):
        p = discover()[claim_id].params_for("quick")
        target, level = p.get("delta_lemma", p.get("delta_bound")), p["delta"] / len(p["designs"])
        assert stats.binomial_interval(0, p["repetitions"], level).high <= target
        assert stats.binomial_interval(20, 20, level).low > target


def test_subjects_are_replaceable_by_name():
    registry = discover()
    for claim_id in ("cbss11.lemma8", "cbss11.lemma9", "cbss11.lemma10"):
        assert registry[claim_id].subjects == {"estimates": baseline_estimates, "design": lasso_design}
    assert registry["cbss11.thm6"].subjects == {"learner": Baseline, "design": lasso_design}
    assert registry["cbss11.thm12"].subjects == {"learner": AER, "design": lasso_design}
