"""cbss11 Lemma 11 (AER's gradient estimate is unbiased): PASS as built, FAIL with planted
defects in the exact law and in the sampler, and agreement with independent computations."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from proofs.cbss11 import _aer_estimate_moments, _estimate_moments, lemma11_mc_instance
from theorycheck import estimators as est
from theorycheck.claims import discover
from theorycheck.rng import kernel_state, next_weighted_index, sample_without_replacement
from theorycheck.runner import run_claims
from theorycheck.validation import ParameterError

ID = "cbss11.lemma11"
# Small Monte-Carlo settings for planted defects that run through the Python-level sampler.
SMALL_MC = {"mc_samples": 50_000, "mc_repetitions": 2}


def _run(tmp_path, subjects=None, **overrides):
    claim = discover()[ID]
    (record,) = run_claims([claim], overrides={k: str(v) for k, v in overrides.items()},
                           subjects=subjects, out=tmp_path, progress=False)
    return record


# ---------------------------------------------------------------------- planted defects
def distribution_weight_d(w, x, y, k):
    """v_j = d·x_j instead of (2/k)·d·x_j: unbiased only for k = 2."""
    return [(p, tuple(g_i * F(k, 2) for g_i in g)) for p, g in est.aer_gradient_estimate_distribution(w, x, y, k)]


def reference_distribution(w, x, y, k, *, power=1):
    """Slow, obviously-correct law of eqs. (6)–(8): every subset C and every *ordered* sequence
    of the k/2 draws, with P(i) ∝ |w_i|**power (power=1 is the paper; power=2 is a defect that
    keeps the weight ‖w‖₁·sgn(w_i))."""
    w, x, y = [F(a) for a in w], [F(a) for a in x], F(y)
    d, half = len(x), k // 2
    l1 = sum(abs(a) for a in w)
    weights = [abs(a) ** power for a in w]
    total = sum(weights)
    out = []
    subsets = list(itertools.combinations(range(d), half))
    sequences = list(itertools.product(range(d), repeat=half)) if total else [()]
    for subset in subsets:
        v = [F(0)] * d
        for j in subset:
            v[j] = F(2, k) * d * x[j]
        for seq in sequences:
            prob = F(1, len(subsets))
            for i in seq:
                prob *= weights[i] / total
            if prob == 0:
                continue
            y_hat = sum((F(2, k) * l1 * ((w[i] > 0) - (w[i] < 0)) * x[i] for i in seq), F(0))
            out.append((prob, tuple(2 * (y_hat - y) * vj for vj in v)))
    return out


def distribution_squared_sampling(w, x, y, k):
    """ŷ drawn with P(i) ∝ w_i² but weighted as if P(i) = |w_i|/‖w‖₁: biased."""
    return reference_distribution(w, x, y, k, power=2)


def _sampler(weight_factor=1.0, without_replacement=False):
    """A Python sampler of eqs. (6)–(8) with optional defects: v scaled by ``weight_factor``;
    the k/2 draws of ŷ made without replacement (the reading of the prose before eq. (7))."""

    def estimate(w, x, y, k, *, rng_state):
        w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
        d, half = x.shape[0], k // 2
        subset = np.empty(d, dtype=np.int64)
        sample_without_replacement(rng_state, d, half, subset)
        available = np.abs(w)
        l1 = float(available.sum())
        y_hat = 0.0
        for _ in range(half if l1 > 0 else 0):
            i = int(next_weighted_index(rng_state, np.cumsum(available)))
            y_hat += (2.0 / k) * np.sign(w[i]) * l1 * x[i]
            if without_replacement:
                available = available.copy()
                available[i] = 0.0
                if available.sum() == 0:
                    break
        g = np.zeros(d)
        chosen = subset[:half]
        g[chosen] = 2.0 * (y_hat - y) * weight_factor * (2.0 / k) * d * x[chosen]
        return g, len(set(chosen.tolist()))

    return estimate


sampler_without_replacement = _sampler(without_replacement=True)
sampler_half_weight = _sampler(weight_factor=0.5)


def sampler_weight_d(w, x, y, k, *, rng_state):
    """Weight d instead of 2d/k: values outside the range that eqs. (6)–(8) allow."""
    g, n = est.aer_gradient_estimate(w, x, y, k, rng_state=rng_state)
    return g * (k / 2), n


# ---------------------------------------------------------------------- as built
def test_lemma11_passes_exactly_and_by_monte_carlo(tmp_path):
    record = _run(tmp_path)
    assert record["verdict"] == "PASS", record["decision"]
    assert record["delta"] == pytest.approx(1e-3)
    assert "Exact part: PASS" in record["decision"] and "PASS: every interval contains" in record["decision"]
    summary = pd.read_csv(tmp_path / record["summary_file"])
    mc = summary[summary["part"] == "mc"]
    assert len(mc) == 50 and mc["contains_gradient"].all()
    assert (mc["half_width"] <= 0.1).all()
    exact = summary[summary["part"] == "exact"]
    # every even k ≤ 2d for d = 1..4
    expected = [(d, k) for d in range(1, 5) for k in range(2, 2 * d + 1, 2)]
    assert sorted(zip(exact["d"], exact["k"], strict=True)) == expected
    assert (exact["max_abs_bias"] == 0).all()
    # the w = 0 instance is present at every d
    table = pd.read_csv(tmp_path / record["table_file"])
    assert {"w = 0", "x = 0", "y = 0"} <= set(table["family"].dropna())


def test_lemma11_exact_part_only(tmp_path):
    record = _run(tmp_path, mc_repetitions=0)
    assert record["verdict"] == "PASS"
    assert record["delta"] is None  # no stochastic part, no error rate
    assert record["observed"] == 0.0


# ---------------------------------------------------------------------- planted defects
def test_lemma11_weight_d_distribution_fails_exactly(tmp_path):
    record = _run(tmp_path, {"distribution": distribution_weight_d}, mc_repetitions=0)
    assert record["verdict"] == "FAIL"
    assert "Exact part: FAIL" in record["decision"] and "≠ gradient" in record["decision"]
    table = pd.read_csv(tmp_path / record["table_file"])
    # unbiased exactly when k = 2 (the factor k/2 is 1), biased for some instance at every k ≥ 4
    assert table[table["k"] == 2]["unbiased"].all()
    for k in range(4, 9, 2):
        assert not table[table["k"] == k]["unbiased"].all()


def test_lemma11_squared_sampling_distribution_fails_exactly(tmp_path):
    record = _run(tmp_path, {"distribution": distribution_squared_sampling}, mc_repetitions=0, d_max=3)
    assert record["verdict"] == "FAIL"


def test_lemma11_without_replacement_sampler_fails_by_monte_carlo(tmp_path):
    """The prose's 'without replacement' reading of eq. (7): biased; caught by the MC part."""
    record = _run(tmp_path, {"estimate": sampler_without_replacement}, **SMALL_MC)
    assert record["verdict"] == "FAIL", record["decision"]
    assert "Exact part: PASS" in record["decision"]
    assert "intervals exclude the gradient" in record["decision"]


def test_lemma11_half_weight_sampler_fails_by_monte_carlo(tmp_path):
    record = _run(tmp_path, {"estimate": sampler_half_weight}, **SMALL_MC)
    assert record["verdict"] == "FAIL"


def test_lemma11_correct_python_sampler_passes(tmp_path):
    """The defect-free Python sampler (same code path as the defects) passes: the FAILs above
    come from the defects, not from the Python path."""
    record = _run(tmp_path, {"estimate": _sampler()}, **SMALL_MC)
    assert record["verdict"] == "PASS", record["decision"]


def test_lemma11_out_of_range_sampler_gets_no_pass(tmp_path):
    record = _run(tmp_path, {"estimate": sampler_weight_d}, **SMALL_MC)
    assert record["verdict"] == "INCONCLUSIVE"
    assert "outside the range" in record["decision"]


# ---------------------------------------------------------------------- independent checks
INSTANCES = [
    ([F(1, 2), F(-1, 3), F(0)], [F(2), F(-1, 2), F(3, 4)], F(1, 4)),
    ([F(0), F(0)], [F(1), F(-2, 3)], F(2)),
    ([F(1), F(-2), F(1, 2), F(3)], [F(1, 2), F(1), F(0), F(-1, 3)], F(-1)),
]


@pytest.mark.parametrize(("w", "x", "y"), INSTANCES)
def test_library_law_agrees_with_ordered_enumeration(w, x, y):
    d = len(x)
    for k in range(2, 2 * d + 1, 2):
        fast = est.aer_gradient_estimate_distribution(w, x, y, k)
        slow = reference_distribution(w, x, y, k)
        assert sum(p for p, _ in fast) == 1 == sum(p for p, _ in slow)
        for i in range(d):
            assert sum(p * g[i] for p, g in fast) == sum(p * g[i] for p, g in slow)
            assert sum(p * g[i] ** 2 for p, g in fast) == sum(p * g[i] ** 2 for p, g in slow)
        grad = 2 * (sum(a * b for a, b in zip(w, x, strict=True)) - y)
        assert tuple(sum(p * g[i] for p, g in fast) for i in range(d)) == tuple(grad * v for v in x)


def test_squared_sampling_defect_is_really_biased():
    w, x, y = INSTANCES[0]
    law = distribution_squared_sampling(w, x, y, 2)
    mean0 = sum(p * g[0] for p, g in law)
    assert mean0 != 2 * (sum(a * b for a, b in zip(w, x, strict=True)) - y) * x[0]


def test_jitted_and_python_paths_draw_the_same_estimates():
    """The built-in subject runs through a jitted loop; any other subject through its public
    signature. With the same stream both give the same sums."""
    w, x, y = lemma11_mc_instance(12, 4, 0)
    a = _aer_estimate_moments(w, x, y, 4, 3000, kernel_state(np.random.SeedSequence(5)))
    b = _estimate_moments(est.aer_gradient_estimate, w, x, y, 4, 3000, kernel_state(np.random.SeedSequence(5)))
    for u, v in zip(a[:3], b[:3], strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)
    assert a[3] == b[3] <= 4


def test_mc_instance_is_fixed_by_seed_and_shape():
    w, x, y = lemma11_mc_instance(50, 10, 0)
    w2, x2, y2 = lemma11_mc_instance(50, 10, 0)
    assert np.array_equal(w, w2) and np.array_equal(x, x2) and y == y2
    assert math.isclose(np.abs(w).sum(), 1.0) and w[0] == 0.5 and x[0] == 1.0
    assert np.abs(x).max() <= 1 and abs(y) <= 1 and (w == 0).any()


@pytest.mark.parametrize("setting", [{"mc_k": "3"}, {"mc_k": "0"}, {"d_max": "9"}, {"delta": "2"}])
def test_lemma11_rejects_bad_parameters(setting):
    with pytest.raises(ParameterError):
        discover()[ID].params_for("quick", setting)
