"""cbss11 Lemma 7 and Theorems 2–3: PASS as built, agreement with independent computations, and
the k-active predictors' random-number convention. The planted defects of Theorems 2 and 3 are
declared beside the claims and run by tests/test_power.py."""

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from theorycheck import stats
from theorycheck.algorithms.k_active import DEFAULT_PREDICTORS, AttributeOracle, RandomK
from theorycheck.generators.hypercube import sparse_l1_instance, uniform_l2_instance
from theorycheck.rng import kernel_state

from . import defects


def test_lemma7_passes_exactly(run_claim):
    record = run_claim("cbss11.lemma7")
    assert record["verdict"] == "PASS" and record["observed"] == 0.0


def test_lemma7_planted_wrong_normaliser_fails(run_claim):
    record = run_claim("cbss11.lemma7", {"subset_average": defects.subset_average_wrong_normaliser})
    assert record["verdict"] == "FAIL"
    assert "≠" in record["decision"]


def test_lemma7_off_by_one_only_in_one_case_is_caught(run_claim):
    def average_but_wrong_for_k_3(values):
        base = sum(values, Fraction(0)) / len(values)
        return base + Fraction(1, 10**9) if len(values) == 3 else base

    record = run_claim("cbss11.lemma7", {"subset_average": average_but_wrong_for_k_3})
    assert record["verdict"] == "FAIL"


@pytest.mark.parametrize(("d", "k"), [(4, 1), (5, 2), (6, 6)])
def test_thm2_k_active_predictors_attain_bound_exactly_by_enumeration(d, k):
    """Slow reference: every x in {±1}^d with probability 2^-d, risk computed in Fractions."""
    inst = uniform_l2_instance(d)
    X = np.array(list(itertools.product([-1.0, 1.0], repeat=d)))
    y = X @ inst.w_star
    for predictor in DEFAULT_PREDICTORS[::2]:  # deterministic ones: first k, adaptive
        oracle = AttributeOracle(X)
        pred = predictor.predict(oracle, k, inst.w_star, 0)
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
def test_thm2_agrees_with_independent_computation(run_claim, tmp_path, d, k):
    record = run_claim("cbss11.thm2", d=d, k=k)
    assert record["verdict"] == "PASS"
    assert record["theory"] == pytest.approx((d - k) / d, abs=1e-15)
    # Exact risk of the partial-sum predictors is (d − k)/d; each observed value must lie
    # within its own confidence interval of it (δ = 1e-3 each).
    summary = pd.read_csv(tmp_path / record["summary_file"])
    assert ((summary["low"] <= (d - k) / d) & ((d - k) / d <= summary["high"])).all()
    assert record["plot"]["band_label"].endswith("interval that decides (empirical Bernstein)")


@pytest.mark.parametrize(("predictors", "over"), [("PEEKER", "200000 of 200000"), ("OCCASIONAL_PEEKER", "2000 of")])
def test_thm2_predictor_reading_too_much_fails_with_its_count(run_claim, predictors, over):
    """A predictor over its budget broke the contract the bound is about (issue 55 item 6): FAIL naming how many
    examples it read more than k attributes on, even when that is 1% of them."""
    record = run_claim("cbss11.thm2", {"predictors": f"tests.defects_bounds:{predictors}"})
    assert record["verdict"] == "FAIL", record["decision"]
    assert f"read more than k = 5 attributes on {over}" in record["decision"], record["decision"]


def test_thm3_passes_on_quick_and_other_parameters(run_claim):
    record = run_claim("cbss11.thm3")
    assert record["verdict"] == "PASS"
    assert record["theory"] == pytest.approx((1 - 1 / 2) / (2 * 5))
    record = run_claim("cbss11.thm3", d=12, k=4, c=1.25)
    assert record["verdict"] == "PASS"
    assert record["theory"] == pytest.approx(0.2 / 5)


class _RecordingOracle(AttributeOracle):
    """An oracle that also keeps the (row, column) pairs revealed, in order."""

    def __init__(self, X):
        super().__init__(X)
        self.pairs = []

    def reveal(self, rows, cols):
        self.pairs.append((np.asarray(rows).copy(), np.asarray(cols).copy()))
        return super().reveal(rows, cols)


def _subsets(random_state, d=4, k=2, n=60_000):
    oracle = _RecordingOracle(np.ones((n, d)))
    RandomK().predict(oracle, k, np.full(d, 0.5), random_state)
    codes = np.zeros(n, dtype=np.int64)
    for rows, cols in oracle.pairs:
        np.add.at(codes, rows, 1 << cols)
    return codes


def test_random_k_reads_a_uniform_k_subset():
    d, k = 4, 2
    codes = _subsets(0, d, k)
    subsets = list(itertools.combinations(range(d), k))
    assert set(np.unique(codes)) == {sum(1 << j for j in s) for s in subsets}
    for subset in subsets:
        hits = int((codes == sum(1 << j for j in subset)).sum())
        # Exact binomial interval, δ = 1e-6 per subset (union bound over 6 subsets).
        iv = stats.binomial_interval(hits, codes.size, 1e-6)
        assert iv.low <= 1 / len(subsets) <= iv.high, (subset, hits)


def test_random_k_follows_the_random_state_convention():
    """An int or a SeedSequence reproduces the draws; a kernel state is advanced in place, so two
    calls with the same state array continue one stream."""
    assert np.array_equal(_subsets(7, n=200), _subsets(7, n=200))
    assert np.array_equal(_subsets(np.random.SeedSequence(3), n=200), _subsets(np.random.SeedSequence(3), n=200))
    state = kernel_state(np.random.SeedSequence(5))
    before = state.copy()
    first, second = _subsets(state, n=200), _subsets(state, n=200)
    assert not np.array_equal(state, before) and not np.array_equal(first, second)
