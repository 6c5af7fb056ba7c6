"""cbss11 Lemma 7 and Theorems 2–3: PASS as built, FAIL with planted defects, and agreement
with independent computations."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from theorycheck.algorithms.k_active import DEFAULT_PREDICTORS, AttributeOracle
from theorycheck.claims import discover
from theorycheck.generators.hypercube import sparse_l1_instance, uniform_l2_instance
from theorycheck.rng import kernel_state
from theorycheck.runner import run_claims

from . import defects


def _run(claim_id, tmp_path, subjects=None, **overrides):
    claim = discover()[claim_id]
    (record,) = run_claims([claim], overrides={k: str(v) for k, v in overrides.items()},
                           subjects=subjects, out=tmp_path, progress=False)
    return record


def test_lemma7_passes_exactly(tmp_path):
    record = _run("cbss11.lemma7", tmp_path)
    assert record["verdict"] == "PASS" and record["observed"] == 0.0


def test_lemma7_planted_wrong_normaliser_fails(tmp_path):
    record = _run("cbss11.lemma7", tmp_path, {"subset_average": defects.subset_average_wrong_normaliser})
    assert record["verdict"] == "FAIL"
    assert "≠" in record["decision"]


def test_lemma7_off_by_one_only_in_one_case_is_caught(tmp_path):
    def average_but_wrong_for_k_3(values):
        base = sum(values, Fraction(0)) / len(values)
        return base + Fraction(1, 10**9) if len(values) == 3 else base

    record = _run("cbss11.lemma7", tmp_path, {"subset_average": average_but_wrong_for_k_3})
    assert record["verdict"] == "FAIL"


@pytest.mark.parametrize(("d", "k"), [(4, 1), (5, 2), (6, 6)])
def test_k_active_predictors_attain_bound_exactly_by_enumeration(d, k):
    """Slow reference: every x in {±1}^d with probability 2^-d, risk computed in Fractions."""
    inst = uniform_l2_instance(d)
    rng = np.random.default_rng(0)
    X = np.array(list(itertools.product([-1.0, 1.0], repeat=d)))
    y = X @ inst.w_star
    for predictor in DEFAULT_PREDICTORS[::2]:  # deterministic ones: first k, adaptive
        oracle = AttributeOracle(X)
        pred = predictor.predict(oracle, k, inst.w_star, rng)
        assert oracle.counts().max() <= k
        risk = Fraction(0)
        for p, t in zip(pred, y, strict=True):
            # (pred − y)·√d is an integer: exact arithmetic.
            risk += Fraction(round((p - t) ** 2 * d), d)
        assert risk / len(X) == Fraction(d - k, d)


def test_hypercube_sampler_moments():
    inst = sparse_l1_instance(6, 3)
    X, y = inst.sample(200_000, kernel_state(np.random.SeedSequence(1)))
    assert set(np.unique(X)) == {-1.0, 1.0}
    assert np.allclose(X @ inst.w_star, y)
    # Hoeffding at δ = 1e-6 per entry, entries in [-1, 1]: 2·√(ln(2e6)/(2n)) ≈ 0.012.
    assert np.abs(X.T @ X / len(X) - inst.second_moment).max() < 0.012
    assert inst.best_k_active_risk(2) == pytest.approx(1 / 9)


@pytest.mark.parametrize(("d", "k"), [(13, 4), (37, 11), (9, 1)])
def test_thm2_agrees_with_independent_computation(tmp_path, d, k):
    record = _run("cbss11.thm2", tmp_path, d=d, k=k)
    assert record["verdict"] == "PASS"
    assert record["theory"] == pytest.approx((d - k) / d, abs=1e-15)
    # Exact risk of the partial-sum predictors is (d − k)/d; each observed value must lie
    # within its own confidence interval of it (δ = 1e-3 each).
    import pandas as pd

    summary = pd.read_csv(tmp_path / record["summary_file"])
    assert ((summary["low"] <= (d - k) / d) & ((d - k) / d <= summary["high"])).all()


def test_thm2_planted_dependent_attributes_fail(tmp_path):
    record = _run("cbss11.thm2", tmp_path, {"instance": defects.copied_attributes_instance,
                                            "predictors": defects.SCALED_FIRST})
    assert record["verdict"] == "FAIL"
    assert record["observed"] < 1e-12


def test_thm2_predictor_reading_too_much_gets_no_pass(tmp_path):
    record = _run("cbss11.thm2", tmp_path, {"predictors": defects.PEEKER})
    assert record["verdict"] == "INCONCLUSIVE"
    broken = [h for h in record["hypothesis_checks"] if not h["met"]]
    assert broken and "k-active" in broken[0]["statement"]


def test_thm3_passes_and_fails_with_planted_defect(tmp_path):
    record = _run("cbss11.thm3", tmp_path / "ok")
    assert record["verdict"] == "PASS"
    assert record["theory"] == pytest.approx((1 - 1 / 2) / (2 * 5))

    def copied_sparse(p):
        inst = defects.CopiedAttributes(sparse_l1_instance(p["d"], round(p["c"] * p["k"])).w_star)
        return inst

    record = _run("cbss11.thm3", tmp_path / "bad", {"instance": copied_sparse, "predictors": defects.SCALED_FIRST})
    assert record["verdict"] == "FAIL"


def test_thm3_other_parameters(tmp_path):
    record = _run("cbss11.thm3", tmp_path, d=12, k=4, c=1.25)
    assert record["verdict"] == "PASS"
    assert record["theory"] == pytest.approx(0.2 / 5)


def test_random_k_reads_a_uniform_k_subset():
    from theorycheck import stats
    from theorycheck.algorithms.k_active import RandomK

    d, k, n = 4, 2, 60_000
    X = np.ones((n, d))
    oracle = AttributeOracle(X)
    RandomK().predict(oracle, k, np.full(d, 0.5), np.random.default_rng(0))
    seen = oracle._seen
    assert (seen.sum(axis=1) == k).all()
    subsets = list(itertools.combinations(range(d), k))
    codes = seen @ (1 << np.arange(d))
    for subset in subsets:
        hits = int((codes == sum(1 << j for j in subset)).sum())
        # Exact binomial interval, δ = 1e-6 per subset (union bound over 6 subsets).
        iv = stats.binomial_interval(hits, n, 1e-6)
        assert iv.low <= 1 / len(subsets) <= iv.high, (subset, hits)
