"""Tests of theorycheck.generators.lower_bounds: cbss11's P_j and hk12's sparse rows."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest

from theorycheck.bounds.lower_bounds import cbss11_thm1_attributes, hk12_aerr_attributes, hk12_thm22_order
from theorycheck.generators import GoodFeature, SparseRows, good_feature, sparse_rows
from theorycheck.generators.lower_bounds import (
    DENSE_LIMIT,
    good_feature_cell,
    good_feature_label,
    good_feature_law,
    sparse_rows_cell,
    sparse_rows_slot,
)
from theorycheck.population import constrained_optimum, risk
from theorycheck.protocols import Design
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError

DELTA = 1e-6  # false-fail rate of each Monte-Carlo assertion (normal approximation, union bound inside)


def _state(*key: int) -> np.ndarray:
    return kernel_state(np.random.SeedSequence([20110826, *key]))


def _z(m: int) -> float:
    """Two-sided normal quantile for m simultaneous tests at total level DELTA."""
    return NormalDist().inv_cdf(1 - DELTA / (2 * m))


# --------------------------------------------------------------------------------------
# a reference of the module's hash, in Python integers
# --------------------------------------------------------------------------------------

_G = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _words(key, t):
    seed = _mix(key ^ _mix(((t + 1) * _G) & _MASK))
    return lambda s: _mix((seed + (s + 1) * _G) & _MASK)


def _reference_good(design, key, t, i):
    word = _words(key, t)
    y = 1.0 if word(0) >> 63 else -1.0
    threshold = design.threshold if i == design.j else 2**52
    return (y if (word(i + 1) >> 11) < threshold else -y), y


def _reference_position(design, key, t):
    word = _words(key, t)
    limit = 2**64 - (2**64 % design.k)
    s = 0
    while word(s) >= limit:
        s += 1
    return word(s) % design.k


# --------------------------------------------------------------------------------------
# construction, hidden parameters, protocol, errors
# --------------------------------------------------------------------------------------


def test_good_feature_construction():
    g = good_feature(50, 0.01, j=7)
    assert isinstance(g, GoodFeature) and isinstance(g, Design)
    assert g.j == 7 and g.threshold == 2**52 + round(0.1 * 2**53)
    assert g.p_exact == Fraction(g.threshold - 2**52, 2**53) and float(g.p_exact) == g.p
    assert abs(g.p - 0.1) <= 2.0**-54
    assert good_feature(8, p=0.25).p == 0.25 and good_feature(8, p=0.25).eps == 0.0625
    # j from the seed: deterministic, uniform-ish, and in range
    js = [good_feature(10, 0.01, j_seed=s).j for s in range(200)]
    assert js == [good_feature(10, 0.01, j_seed=s).j for s in range(200)] and set(js) == set(range(10))
    np.testing.assert_array_equal(g.w_star, np.where(np.arange(50) == 7, 2 * g.p, 0.0))
    assert g.risk_star == pytest.approx(1 - 4 * g.p**2, abs=1e-15)


def test_sparse_rows_construction_and_rounding():
    s = sparse_rows(100, 0.3)  # 1/0.09 = 11.1…: ceil 12, floor 11
    assert isinstance(s, SparseRows) and isinstance(s, Design)
    assert s.k == 12 and sparse_rows(100, 0.3, rounding="floor").k == 11
    assert sparse_rows(100, 0.25).k == 16 and sparse_rows(100, 0.25).eps_k == 0.25
    assert s.eps_k <= s.eps and sparse_rows(100, 0.3, rounding="floor").eps_k >= 0.3
    assert np.all(np.diff(s.support) > 0) and s.support.min() >= 0 and s.support.max() < 100
    assert set(np.unique(s.signs)) <= {-1.0, 1.0}
    t = sparse_rows(10, support=[7, 2, 5], signs=[1, -1, -1])
    np.testing.assert_array_equal(t.support, [2, 5, 7])
    np.testing.assert_array_equal(t.signs, [-1, -1, 1])  # each sign stays with its index
    np.testing.assert_array_equal(t.signed_support, [0, 0, -1, 0, 0, -1, 0, 1, 0, 0])
    a, b = sparse_rows(1000, k=40, T_seed=1), sparse_rows(1000, k=40, T_seed=2)
    assert not np.array_equal(a.support, b.support)
    np.testing.assert_array_equal(a.support, sparse_rows(1000, k=40, T_seed=1).support)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: good_feature(0, 0.01), "d must be at least 1"),
        (lambda: good_feature(5), "exactly one"),
        (lambda: good_feature(5, 0.01, p=0.1), "exactly one"),
        (lambda: good_feature(5, 0.3), "eps"),
        (lambda: good_feature(5, 0.01, j=5), "j"),
        (lambda: good_feature(5, p=1e-17), "resolution"),
        (lambda: sparse_rows(5, 0.1), "do not fit"),
        (lambda: sparse_rows(5), "give eps"),
        (lambda: sparse_rows(5, 0.5, k=4), "not both"),
        (lambda: sparse_rows(5, 0.5, rounding="up"), "rounding"),
        (lambda: sparse_rows(5, support=[1, 1]), "distinct"),
        (lambda: sparse_rows(5, support=[1, 2], signs=[1, 0]), "±1"),
        (lambda: good_feature(5, 0.01).risk(np.zeros(4)), "d=5"),
        (lambda: good_feature(5, 0.01).optimum("l3", 1.0), "norm"),
        (lambda: good_feature(DENSE_LIMIT + 1, 0.01).second_moment, "closed forms"),
        (lambda: sparse_rows(DENSE_LIMIT + 1, 0.5).moments, "closed forms"),
        (lambda: good_feature(5, 0.01).attributes(1, [0], [5]), "cols"),
        (lambda: sparse_rows(5, 0.5).attributes(1, [-1], [0]), "rows"),
        (lambda: good_feature(5, 0.01).satisfies("l3", 1.0), "norm"),
    ],
)
def test_errors(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_hypotheses():
    g = good_feature(9, 0.01)
    assert g.satisfies("l1", 1.0) and not g.satisfies("l1", 0.5) and not g.satisfies("l2", 10.0)
    assert g.x_bound_l2 == 3.0 and any("‖x‖₂" in v for v in g.violations("l2", 1.0))
    assert good_feature(1, 0.01).satisfies("l2", 1.0)
    s = sparse_rows(30, 0.5)
    assert s.satisfies("l2", 1.0) and s.satisfies("l1", 1.0) and not s.satisfies("l2", 0.9)


# --------------------------------------------------------------------------------------
# on demand == sample; the reference hash
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("design", [good_feature(13, 0.01, j=4), sparse_rows(13, k=5, T_seed=3),
                                    sparse_rows(16, k=8, T_seed=4)], ids=["good", "sparse-k5", "sparse-k8"])
def test_sample_equals_attributes_on_demand(design):
    n = 400
    state = _state(1)
    key = design.draw_key(state.copy())
    X, y = design.sample(n, state)
    rows, cols = np.arange(n)[:, None], np.arange(design.d)[None, :]
    np.testing.assert_array_equal(design.attributes(key, rows, cols), X)
    np.testing.assert_array_equal(design.labels(key, np.arange(n)), y)
    X2, y2 = design.rows(key, 60, start=200)
    np.testing.assert_array_equal(X2, X[200:260])
    np.testing.assert_array_equal(y2, y[200:260])
    rng = np.random.default_rng(0)
    for t, i in zip(rng.integers(0, n, 60), rng.integers(0, design.d, 60), strict=True):
        t, i = int(t), int(i)
        assert design.attribute(key, t, i) == X[t, i]
        assert design.label(key, t) == y[t]
        if isinstance(design, GoodFeature):
            assert (X[t, i], y[t]) == _reference_good(design, key, t, i)
            assert good_feature_cell(np.uint64(key), t, i, design.j, design.threshold) == X[t, i]
            assert good_feature_label(np.uint64(key), t) == y[t]
        else:
            q = _reference_position(design, key, t)
            assert sparse_rows_slot(np.uint64(key), t, design.k, design.limit) == q
            assert X[t, i] == (design.signs[q] if design.support[q] == i else 0.0)
            assert sparse_rows_cell(np.uint64(key), t, i, design.support, design.signs, design.limit) == X[t, i]
    if isinstance(design, SparseRows):
        cols_nz, vals = design.nonzero(key, np.arange(n))
        np.testing.assert_array_equal(X[np.arange(n), cols_nz], vals)
        assert np.all(np.count_nonzero(X, axis=1) == 1) and np.all(y == 1.0)


def test_random_state_convention():
    for design in (good_feature(6, 0.01), sparse_rows(6, k=3)):
        np.testing.assert_array_equal(design.sample(20, 7)[0], design.sample(20, np.random.SeedSequence(7))[0])
        state = _state(2)
        first, second = design.sample(30, state)[0], design.sample(30, state)[0]
        assert not np.array_equal(first, second)
        state = _state(2)
        keys = design.draw_key(state), design.draw_key(state)
        np.testing.assert_array_equal(design.rows(keys[1], 30)[0], second)


def test_large_d_on_demand_without_matrices():
    """d = 10⁶: single attributes, risk and excess risk in O(d), no d×d matrix anywhere."""
    d = 10**6
    g, s = good_feature(d, 0.01, j=123_456), sparse_rows(d, 0.01, T_seed=5)
    t = np.arange(5000)
    assert set(np.unique(g.attributes(3, t, (t * 7919) % d))) <= {-1.0, 1.0}
    good = g.attributes(3, t, np.full_like(t, g.j)) * g.labels(3, t)
    # E[x_j y] = 2p = 0.2 and Var ≤ 1: a z-test at DELTA
    assert abs(good.mean() - 2 * g.p) <= _z(1) / math.sqrt(t.size)
    assert g.excess_risk(g.w_star) == 0.0 and g.excess_risk(np.zeros(d)) == pytest.approx(4 * g.p**2, rel=1e-12)
    cols, vals = s.nonzero(11, t)
    assert np.all(np.isin(cols, s.support)) and s.k == 10_000
    assert s.attributes(11, t, cols).tolist() == vals.tolist()
    assert s.excess_risk(s.w_star, "l2", 1.0) == pytest.approx(0.0, abs=1e-15)
    assert s.excess_risk(np.zeros(d), "l2", 1.0) == pytest.approx(1 - s.risk_star, rel=1e-12)


# --------------------------------------------------------------------------------------
# Monte Carlo against the declared moments (z-tests with the exact variances)
# --------------------------------------------------------------------------------------


def _good_check(design: GoodFeature, X, y) -> bool:
    """P(x_i = y) = ½ + p·1{i=j}; E[y] = 0; E[x_i x_l] = 0 (i < l): z-tests at total level DELTA."""
    n, d = X.shape
    agree = (X == y[:, None]).mean(axis=0)
    q = 0.5 + design.p * (np.arange(d) == design.j)
    iu = np.triu_indices(d, 1)
    cross = ((X[:, :, None] * X[:, None, :])[:, iu[0], iu[1]]).mean(axis=0)
    z = _z(d + 1 + iu[0].size)
    ok = np.all(np.abs(agree - q) <= z * np.sqrt(q * (1 - q) / n))
    ok &= abs(y.mean()) <= z / math.sqrt(n)
    # E[x_i x_l] = 0 and x_i x_l = ±1 for i ≠ l (one of them may be j: still E = 0, Var = 1)
    ok &= bool(np.all(np.abs(cross) <= z / math.sqrt(n)))
    return bool(ok)


def _sparse_check(design: SparseRows, X, y) -> bool:
    """Each position of T has frequency 1/k, E[x] = r_T/k, E[x_i²] = 1{i∈T}/k; y = 1: z-tests."""
    n, d = X.shape
    k = design.k
    z = _z(2 * d)
    mean, sq = X.mean(axis=0), (X * X).mean(axis=0)
    on = np.zeros(d, dtype=bool)
    on[design.support] = True
    ok = np.all(np.abs(sq - on / k) <= z * np.sqrt(on * (1 / k) * (1 - 1 / k) / n))  # off T: exactly 0
    ok &= np.all(np.abs(mean - design.mean) <= z * np.sqrt(on * (1 / k) * (1 - 1 / k) / n))
    return bool(ok and np.all(y == 1.0))


@pytest.mark.parametrize("p", [0.05, 0.25])
def test_good_feature_monte_carlo(p):
    design = good_feature(8, p=p, j=5)
    X, y = design.sample(200_000, _state(3, int(p * 100)))
    assert _good_check(design, X, y)
    assert np.allclose(np.abs(X), 1.0) and set(np.unique(y)) == {-1.0, 1.0}


@pytest.mark.parametrize("k", [3, 7, 16])
def test_sparse_rows_monte_carlo(k):
    design = sparse_rows(20, k=k, T_seed=k)
    X, y = design.sample(200_000, _state(4, k))
    assert _sparse_check(design, X, y)


def test_monte_carlo_checks_can_fail():
    """Planted defects, same n and level: a good feature with bias 0.04 declared as 0.05; the good
    feature at another coordinate; sparse rows from another T."""
    declared = good_feature(8, p=0.05, j=5)
    X, y = good_feature(8, p=0.04, j=5).sample(200_000, _state(5))
    assert not _good_check(declared, X, y)
    X, y = good_feature(8, p=0.05, j=2).sample(200_000, _state(6))
    assert not _good_check(declared, X, y)
    declared = sparse_rows(20, k=7, T_seed=1)
    X, y = sparse_rows(20, k=7, T_seed=2).sample(200_000, _state(7))
    assert not _sparse_check(declared, X, y)


def test_sparse_rows_position_frequencies():
    """q_t uniform on 0..k−1 for k not a power of two (the rejection step): z-test per cell."""
    k, n = 7, 300_000
    q = sparse_rows(50, k=k).positions(99, np.arange(n))
    freq = np.bincount(q, minlength=k) / n
    assert np.all(np.abs(freq - 1 / k) <= _z(k) * math.sqrt((1 / k) * (1 - 1 / k) / n))


# --------------------------------------------------------------------------------------
# closed-form risk against the exact law (Fractions) and against theorycheck.population
# --------------------------------------------------------------------------------------


def _law_risk(law, w):
    """E[(⟨w, x⟩ − y)²] over an exact law, in Fractions."""
    total = Fraction(0)
    for prob, x, y in law:
        items = x.items() if isinstance(x, dict) else enumerate(x)
        total += prob * (sum(w[i] * v for i, v in items) - y) ** 2
    return total


def _rational_ws(d, count, seed):
    rng = np.random.default_rng(seed)
    return [[Fraction(int(a), int(b)) for a, b in zip(rng.integers(-12, 13, d), rng.integers(1, 9, d), strict=True)]
            for _ in range(count)]


@pytest.mark.parametrize("d", [1, 3, 5])
def test_good_feature_risk_against_exact_law(d):
    design = good_feature(d, p=0.125, j=d - 1)  # p dyadic: the realised bias is exactly 1/8
    assert design.p_exact == Fraction(1, 8)
    law = design.law()
    assert sum(prob for prob, _, _ in law) == 1 and len(law) == 2 ** (d + 1)
    for w in _rational_ws(d, 25, d):
        exact = _law_risk(law, w)
        assert exact == sum(v * v for v in w) - 4 * design.p_exact * w[design.j] + 1  # cbss11 A.2, exactly
        assert design.risk(np.array(w, dtype=float)) == pytest.approx(float(exact), rel=1e-13, abs=1e-13)
        assert design.risk(np.array(w, dtype=float), half=True) == pytest.approx(float(exact) / 2, rel=1e-13)


def test_good_feature_law_helper():
    law = good_feature_law(2, 0, "1/4")
    assert sum(prob for prob, _, _ in law) == 1
    # P(x_0 = y) = 3/4, P(x_1 = y) = 1/2
    assert sum(prob for prob, x, y in law if x[0] == y) == Fraction(3, 4)
    assert sum(prob for prob, x, y in law if x[1] == y) == Fraction(1, 2)
    with pytest.raises(ParameterError):
        good_feature_law(2, 0, "3/4")


@pytest.mark.parametrize("k", [1, 4, 9])
def test_sparse_rows_risk_against_exact_law(k):
    design = sparse_rows(12, k=k, T_seed=k)
    law = design.law()
    assert sum(prob for prob, _, _ in law) == 1 and len(law) == k
    for w in _rational_ws(12, 25, 100 + k):
        exact = _law_risk(law, w)
        assert exact == sum((1 - int(r) * w[i]) ** 2 for i, r in zip(design.support, design.signs, strict=True)) / k
        assert design.risk(np.array(w, dtype=float)) == pytest.approx(float(exact), rel=1e-13, abs=1e-13)


@pytest.mark.parametrize("design", [good_feature(6, 0.01, j=2), good_feature(6, p=0.3, j=0),
                                    sparse_rows(9, k=4, T_seed=1), sparse_rows(9, k=9, T_seed=2)],
                         ids=["good-small-p", "good-large-p", "sparse-k4", "sparse-k9"])
def test_closed_forms_against_population_module(design):
    rng = np.random.default_rng(3)
    W = rng.normal(size=(20, design.d))
    np.testing.assert_allclose(design.risk(W), risk(W, design.moments), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(design.risk(W, half=True), risk(W, design.moments, half=True), rtol=1e-12, atol=1e-12)
    for norm in ("l2", "l1"):
        for B in (0.1, 0.5, 1.0, 3.0):
            w_ref, _ = constrained_optimum(design.moments, B, norm=norm)
            w_opt, value = design.optimum(norm, B)
            assert value == pytest.approx(float(risk(w_ref, design.moments)), abs=1e-9)
            assert np.linalg.norm(w_opt, ord=2 if norm == "l2" else 1) <= B * (1 + 1e-12)
            assert design.risk(w_opt) == pytest.approx(value, abs=1e-15)
            assert design.excess_risk(w_ref, norm, B) == pytest.approx(0.0, abs=1e-9)
    w_free, value = design.optimum()
    assert design.risk(w_free) == pytest.approx(value, abs=1e-15)
    assert np.all(design.excess_risk(W) >= -1e-12)


def test_sparse_rows_optimum_and_text_vector():
    """k = 1/ε²: the unit-ball optimum is ε·r_T with risk (1 − ε)² (hk12 B.4); with the ceiling the
    text's ε·r_T has norm ≥ 1."""
    s = sparse_rows(500, 0.1)
    assert s.k == 100 and s.risk_star == pytest.approx(0.81, abs=1e-15)
    np.testing.assert_allclose(s.w_star, 0.1 * s.signed_support, rtol=1e-15)
    s = sparse_rows(500, 0.07)
    text = s.eps * s.signed_support
    assert np.linalg.norm(text) >= 1.0 and s.risk(text) == pytest.approx((1 - 0.07) ** 2, abs=1e-12)
    assert s.risk_star >= (1 - 0.07) ** 2 and s.mass_on_support(s.w_star) == 1.0
    assert s.mass_on_support(np.zeros(500)) == 1.0


def test_identify():
    g = good_feature(30, 0.01, j=17)
    assert g.identify(g.w_star) == 17
    w = np.full(30, 0.099)
    w[17] = 0.101  # excess = 29·0.099² + 0.099² ≥ ε, but argmax still 17
    assert g.identify(w) == 17


def test_bounds_values():
    assert cbss11_thm1_attributes(4, Fraction(1, 32)) == Fraction(math.floor(Fraction(4 * 32, 96)), 2)
    assert cbss11_thm1_attributes(1000, 0.01) == Fraction(math.floor(Fraction(1000) / (96 * Fraction(0.01))), 2)
    assert cbss11_thm1_attributes(1000, Fraction(1, 100)) == Fraction(1041, 2)
    with pytest.raises(ParameterError):
        cbss11_thm1_attributes(3, 0.01)
    with pytest.raises(ParameterError):
        cbss11_thm1_attributes(10, 1 / 16)
    assert hk12_thm22_order(100, 0.1) == pytest.approx(10_000)
    assert hk12_aerr_attributes(100, 0.1, 1) == pytest.approx(2 * 32 * 100 / 0.01)
    assert hk12_aerr_attributes(100, 0.1, 1, half=False) == pytest.approx(4 * hk12_aerr_attributes(100, 0.1, 1))


def test_law_enumeration_is_exhaustive():
    """The GoodFeature law enumerates {±1}^(d+1) once each."""
    law = good_feature_law(3, 1, Fraction(1, 10))
    points = {(x, y) for _, x, y in law}
    assert points == {(x, y) for x in itertools.product((-1, 1), repeat=3) for y in (-1, 1)}
