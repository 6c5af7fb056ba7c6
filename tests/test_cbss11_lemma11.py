"""cbss11 Lemma 11 (AER's gradient estimate is unbiased): PASS as built, FAIL with planted
defects in the exact law and in the sampler, and agreement with independent computations."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from theorycheck import estimators as est
from theorycheck import stats
from theorycheck.claims import discover
from theorycheck.kinds.exact import sample_moments
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError

from . import defects_exact as bad
from . import naive

ID = "cbss11.lemma11"
SMALL_MC = {"mc_samples": 10_000, "mc_repetitions": 1, "resolution": 0.5}  # Python samplers run call by call


def test_lemma11_passes_exactly_and_by_monte_carlo(run_claim, tmp_path):
    record = run_claim(ID)
    assert record["verdict"] == "PASS", record["decision"]
    assert record["delta"] == pytest.approx(5e-4)
    assert record["decision"].count("[PASS]") == 4
    summary = pd.read_csv(tmp_path / record["summary_file"])
    mc = summary[summary["part"] == "mc"]
    assert len(mc) == 50 and mc["contains_gradient"].all() and mc["in_range"].all()
    assert (mc["half_width"] <= 0.1).all()
    exact = summary[summary["part"] == "exact"]
    expected = [(d, k) for d in range(1, 5) for k in range(2, 2 * d + 1, 2)]  # every even k ≤ 2d
    assert sorted(zip(exact["d"], exact["k"], strict=True)) == expected
    assert (exact["max_abs_bias"] == 0).all()
    table = pd.read_csv(tmp_path / record["table_file"])
    assert {"w = 0", "x = 0", "y = 0", "equal |w_i|, mixed signs"} <= set(table["family"].dropna())
    # the erratum's evidence: the prose's reading is biased on some instances of this run
    assert "biased in" in record["errata_evidence"]["eq7-replacement"]
    assert not table["reading_eq7-replacement"].dropna().astype(bool).all()


def test_lemma11_exact_part_only(run_claim):
    record = run_claim(ID, mc_repetitions=0)
    assert record["verdict"] == "PASS"
    assert record["delta"] is None  # no stochastic part, no error rate
    assert record["observed"] == 0.0


def test_law_without_d_fails_exactly(run_claim, tmp_path):
    record = run_claim(ID, {"distribution": bad.aer_law_without_d}, mc_repetitions=0)
    assert record["verdict"] == "FAIL"
    assert "[FAIL] E[estimate] = 2(⟨w,x⟩ − y)x" in record["decision"] and "≠ target" in record["decision"]
    table = pd.read_csv(tmp_path / record["table_file"])
    assert table[table["d"] == 1]["unbiased"].all()  # the missing factor is d: harmless at d = 1
    assert not table[table["d"] == 3]["unbiased"].all()


def test_squared_sampling_law_fails_exactly(run_claim):
    def squared(w, x, y, k):
        return naive.aer_law(w, x, y, k, sample_power=2)

    record = run_claim(ID, {"distribution": squared}, mc_repetitions=0, d_max=3)
    assert record["verdict"] == "FAIL"


def test_without_replacement_sampler_fails_by_monte_carlo(run_claim):
    """The prose's 'without replacement' reading of eq. (7): biased; caught by the MC part."""
    record = run_claim(ID, {"estimate": bad.aer_sampler_without_replacement}, **SMALL_MC)
    assert record["verdict"] == "FAIL", record["decision"]
    assert "[PASS] E[estimate]" in record["decision"]  # the exact part sees the built-in law
    mc = record["decision"].split("[FAIL] Monte Carlo")[1]
    assert "intervals exclude the gradient" in mc and not mc.split(";")[1].strip().startswith("0 intervals")


def test_half_weight_sampler_fails_by_monte_carlo(run_claim):
    """v at half weight: a bias of half the gradient, smaller than the defects above, so more draws."""
    record = run_claim(ID, {"estimate": naive.aer_sampler(v_factor=0.5)}, **{**SMALL_MC, "mc_samples": 40_000})
    assert record["verdict"] == "FAIL"


def test_correct_python_sampler_passes(run_claim):
    """The defect-free Python sampler (same code path as the defects) passes: the FAILs above
    come from the defects, not from the Python path."""
    record = run_claim(ID, {"estimate": naive.aer_sampler()}, **SMALL_MC)
    assert record["verdict"] == "PASS", record["decision"]


def test_out_of_range_sampler_is_not_the_papers_estimator(run_claim):
    record = run_claim(ID, {"estimate": bad.aer_sampler_weight_d}, **SMALL_MC)
    assert record["verdict"] == "FAIL"
    assert "[FAIL] Monte Carlo" in record["decision"] and "is violated on" in record["decision"]


# ---------------------------------------------------------------------- independent checks
INSTANCES = [
    ([F(1, 2), F(-1, 3), F(0)], [F(2), F(-1, 2), F(3, 4)], F(1, 4)),
    ([F(0), F(0)], [F(1), F(-2, 3)], F(2)),
    ([F(1), F(-2), F(1, 2), F(3)], [F(1, 2), F(1), F(0), F(-1, 3)], F(-1)),
]


@pytest.mark.parametrize(("w", "x", "y"), INSTANCES)
def test_library_law_agrees_with_ordered_enumeration(w, x, y):
    d = len(x)
    grad = est.squared_loss_gradient(w, x, y, paper="cbss11")
    for k in range(2, 2 * d + 1, 2):
        fast, slow = est.aer_gradient_estimate_distribution(w, x, y, k), naive.aer_law(w, x, y, k)
        assert sum(p for p, _ in fast) == 1 == sum(p for p, _ in slow)
        assert est.distribution_mean(fast) == est.distribution_mean(slow) == grad
        assert est.distribution_second_moment(fast) == est.distribution_second_moment(slow)
        prose = est.aer_gradient_estimate_distribution(w, x, y, k, replacement=False)
        assert est.distribution_mean(prose) == est.distribution_mean(naive.aer_law(w, x, y, k, y_replacement=False))


def test_c_with_replacement_is_unbiased_so_not_caught():
    """The declared not-caught defect really satisfies Lemma 11's statement."""
    w, x, y = INSTANCES[2]
    law = bad.aer_law_c_with_replacement(w, x, y, 4)
    assert est.distribution_mean(law) == est.squared_loss_gradient(w, x, y, paper="cbss11")
    assert est.distribution_second_moment(law) != est.distribution_second_moment(naive.aer_law(w, x, y, 4))


def test_batch_and_call_by_call_draw_the_same_estimates():
    """The built-in subject is drawn through its ``moments`` batch; any other subject call by
    call. With the same stream both give the same sums."""
    w, x, y = discover()[ID].mc_instance(12, 4, 0)
    a = sample_moments(est.aer_gradient_estimate, w, x, y, 4, 3000, kernel_state(np.random.SeedSequence(5)))
    b = sample_moments(est.aer_gradient_estimate, w, x, y, 4, 3000, kernel_state(np.random.SeedSequence(5)),
                       batch=False, chunk=700)
    for u, v in zip(a[1:4], b[1:4], strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)
    assert a.max_read == b.max_read <= 4


def test_mc_instance_is_fixed_by_seed_and_shape():
    claim = discover()[ID]
    w, x, y = claim.mc_instance(50, 10, 0)
    w2, x2, y2 = claim.mc_instance(50, 10, 0)
    assert np.array_equal(w, w2) and np.array_equal(x, x2) and y == y2
    assert math.isclose(np.abs(w).sum(), 1.0) and w[0] == 0.5 and x[0] == 1.0
    assert np.abs(x).max() <= 1 and abs(y) <= 1 and (w == 0).any() and (w < 0).any()


def test_decide_mean_equals():
    """The Monte-Carlo decision: FAIL when the interval excludes the value, PASS when it holds it
    within the resolution, INCONCLUSIVE when too wide; a zero range compares exactly."""
    n, var = 10_000, 0.25
    _, dec, _ = stats.decide_mean_equals(n, 0.5, var, -1.0, 1.0, 0.0, 1e-3, 0.1)
    assert dec.verdict == stats.FAIL
    interval, dec, _ = stats.decide_mean_equals(n, 0.01, var, -1.0, 1.0, 0.0, 1e-3, 0.1)
    assert dec.verdict == stats.PASS and interval.low < 0 < interval.high
    _, dec, hint = stats.decide_mean_equals(100, 0.01, var, -1.0, 1.0, 0.0, 1e-3, 0.01)
    assert dec.verdict == stats.INCONCLUSIVE and "samples" in hint
    assert stats.decide_mean_equals(n, 0.0, 0.0, 0.0, 0.0, 0.0, 1e-3, 0.1)[1].verdict == stats.PASS


@pytest.mark.parametrize("setting", [{"mc_k": "3"}, {"mc_k": "0"}, {"mc_k": "102"}, {"d_max": "9"}, {"delta": "2"}])
def test_lemma11_rejects_bad_parameters(setting):
    with pytest.raises(ParameterError):
        discover()[ID].params_for("quick", setting)
