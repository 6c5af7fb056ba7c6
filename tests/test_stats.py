"""Calibrated statistics: coverage, agreement between forms, slope recovery."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from theorycheck import stats
from theorycheck.validation import ParameterError


def test_hoeffding_coverage_on_bernoulli():
    # 2000 intervals at δ = 0.1 on Bernoulli(0.3), n = 50: the failure count is
    # Binomial(2000, ≤ 0.1); the exact 1e-6 upper quantile of Binomial(2000, 0.1) bounds it.
    rng = np.random.default_rng(0)
    misses = sum(
        not (iv.low <= 0.3 <= iv.high)
        for iv in (stats.hoeffding_interval(rng.random(50) < 0.3, 0, 1, 0.1) for _ in range(2000))
    )
    assert misses <= sps.binom.ppf(1 - 1e-6, 2000, 0.1)


def test_bernstein_is_tighter_for_small_variance_and_moment_form_agrees():
    rng = np.random.default_rng(1)
    x = rng.random(10_000) * 0.01
    hb = stats.hoeffding_interval(x, 0, 1, 0.01)
    bb = stats.bernstein_interval(x, 0, 1, 0.01)
    assert bb.half_width < hb.half_width
    mb = stats.bernstein_from_moments(x.size, x.mean(), x.var(ddof=1), 0, 1, 0.01)
    assert mb.low == pytest.approx(bb.low) and mb.high == pytest.approx(bb.high)


def test_pool_moments_matches_concatenation():
    rng = np.random.default_rng(2)
    parts = [rng.normal(size=n) for n in (5, 17, 40)]
    n, mean, var = stats.pool_moments([p.size for p in parts], [p.mean() for p in parts],
                                      [p.var(ddof=1) for p in parts])
    allx = np.concatenate(parts)
    assert n == allx.size and mean == pytest.approx(allx.mean()) and var == pytest.approx(allx.var(ddof=1))


def test_clopper_pearson_matches_scipy():
    iv = stats.binomial_interval(7, 40, 0.05)
    ref = sps.binomtest(7, 40).proportion_ci(confidence_level=0.95, method="exact")
    assert iv.low == pytest.approx(ref.low) and iv.high == pytest.approx(ref.high)
    assert stats.binomial_interval(0, 10, 0.05).low == 0.0


def test_samples_needed_formulas_invert_the_intervals():
    n = stats.samples_for_resolution(0.01, 1.0, 1e-3)
    assert 1.0 * math.sqrt(math.log(2 / 1e-3) / (2 * n)) <= 0.01
    n = stats.bernstein_samples_needed(0.5, 10.0, 1e-3, 0.02)
    iv = stats.bernstein_from_moments(n, 0.0, 0.5, -5.0, 5.0, 1e-3)
    assert iv.half_width <= 0.02 + 1e-12
    iv = stats.bernstein_from_moments(n // 2, 0.0, 0.5, -5.0, 5.0, 1e-3)
    assert iv.half_width > 0.02


def test_decisions_are_three_way():
    iv = stats.Interval(1.0, 0.9, 1.1, 0.01, "t", 10)
    assert stats.decide_at_most(iv, 0.8, 0.0).verdict == stats.FAIL
    assert stats.decide_at_most(iv, 1.2, 0.0).verdict == stats.PASS
    assert stats.decide_at_most(iv, 1.0, 0.01).verdict == stats.INCONCLUSIVE
    assert stats.decide_at_least(iv, 1.2, 0.0).verdict == stats.FAIL
    assert stats.decide_at_least(iv, 0.8, 0.0).verdict == stats.PASS
    assert stats.decide_at_least(iv, 1.0, 0.05).verdict == stats.INCONCLUSIVE


def test_loglog_slope_recovers_rate():
    x = np.array([100, 300, 1000, 3000, 10000.0])
    rng = np.random.default_rng(3)
    y = 2.0 * x**-0.5 * np.exp(rng.normal(0, 0.02, x.size))
    fit = stats.loglog_slope(x, y, 0.01)
    assert fit.low <= -0.5 <= fit.high and fit.high - fit.low < 0.2
    xs = np.repeat(x, 30)
    ys = 2.0 * xs**-0.5 * np.exp(rng.normal(0, 0.1, xs.size))
    boot = stats.bootstrap_slope(xs, ys, 0.01, n_boot=500)
    assert boot.low <= -0.5 <= boot.high


def test_bad_input_is_rejected():
    with pytest.raises(ParameterError):
        stats.hoeffding_interval([0.5, 2.0], 0, 1, 0.1)
    with pytest.raises(ParameterError):
        stats.hoeffding_interval([0.5], 0, 1, 1.5)
    with pytest.raises(ParameterError):
        stats.loglog_slope([1, 2], [1, 2], 0.1)
