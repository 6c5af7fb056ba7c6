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


# ---------------------------------------------------------------------- comparisons: four outcomes, sequential


@pytest.mark.parametrize(("low", "high", "relation", "question", "outcome"), [
    (-0.3, -0.01, "superior", "direction", "REVERSED"), (0.01, 0.3, "superior", "direction", "REPRODUCED"),
    (-0.05, 0.08, "superior", "direction", "NEGLIGIBLE"), (-0.05, 0.2, "superior", "direction", "UNDECIDED"),
    (0.001, 0.05, "superior", "direction", "REPRODUCED"),  # above 0 comes before inside (−ε, ε)
    # a magnitude: the zone is [ε/2, ε]; above ε/2 reproduces it, below ε ties it, below 0 reverses it
    (0.06, 0.3, "superior", "magnitude", "REPRODUCED"), (0.001, 0.05, "superior", "magnitude", "TIED"),
    (0.007, 0.038, "superior", "magnitude", "TIED"), (-0.002, 0.038, "superior", "magnitude", "TIED"),
    (0.06, 0.09, "superior", "magnitude", "REPRODUCED"), (0.02, 0.2, "superior", "magnitude", "UNDECIDED"),
    (-0.3, -0.01, "superior", "magnitude", "REVERSED"),
    (-0.09, 0.3, "non-inferior", "direction", "REPRODUCED"), (-0.5, -0.2, "non-inferior", "direction", "REVERSED"),
    (-0.2, 0.1, "non-inferior", "direction", "UNDECIDED"), (-0.05, 0.05, "equivalent", "direction", "REPRODUCED"),
    (0.2, 0.4, "equivalent", "direction", "DIFFERENT"), (0.05, 0.2, "equivalent", "direction", "UNDECIDED"),
])
def test_classify_gives_the_declared_outcome(low, high, relation, question, outcome):
    assert stats.classify(low, high, relation, 0.1, question) == outcome
    assert stats.OUTCOME_VERDICT[outcome] == {"REPRODUCED": "PASS", "UNDECIDED": "INCONCLUSIVE",
                                              "NEGLIGIBLE": "INCONCLUSIVE"}.get(outcome, "FAIL")
    assert outcome.split()[0] in stats.rule_text(relation, 0.1, question) or outcome == "UNDECIDED"


def test_an_interval_narrower_than_the_margin_decides_a_direction_and_half_of_it_a_magnitude():
    rng = np.random.default_rng(3)
    for _ in range(2000):
        low = rng.uniform(-1, 1)
        assert stats.classify(low, low + 0.099, "superior", 0.1) != "UNDECIDED"
        assert stats.classify(low, low + 0.049, "superior", 0.1, "magnitude") != "UNDECIDED"
    with pytest.raises(ParameterError, match="relation"):
        stats.classify(0, 1, "better", 0.1)
    with pytest.raises(ParameterError, match="margin"):
        stats.classify(0, 1, "superior", 0.0)
    with pytest.raises(ParameterError, match="question"):
        stats.classify(0, 1, "superior", 0.1, "size")


def test_the_conditional_sign_test_leaves_out_ties():
    """sk13's case: 11 of 30 runs tie; Full wins 15 of the 19 that differ. The median sits on the atom
    at 0, the conditional sign test reads the 19."""
    d = np.r_[np.zeros(11), np.full(15, 0.01), np.full(4, -0.01)]
    iv = stats.sign_interval(d, 0.05)
    assert iv.n == 19 and iv.estimate == pytest.approx(2 * 15 / 19 - 1)
    cp = stats.binomial_interval(15, 19, 0.05)
    assert (iv.low, iv.high) == pytest.approx((2 * cp.low - 1, 2 * cp.high - 1))
    assert stats.decide_sequential(np.r_[np.zeros(11), np.ones(40)], "superior", 0.01, 0.01, (51,),
                                   statistic="sign").outcome == "REPRODUCED"
    assert stats.decide_sequential(np.zeros(30), "superior", 0.01, 0.01, (30,), statistic="sign").outcome == "UNDECIDED"
    with pytest.raises(ParameterError, match="direction"):
        stats.decide_sequential(d, "superior", 0.01, 0.05, (30,), statistic="sign", question="magnitude")


def test_looks_double_up_to_the_cap():
    assert stats.looks(20, 40) == (20, 40)
    assert stats.looks(10, 80) == (10, 20, 40, 80)
    assert stats.looks(12, 30) == (12, 24, 30)
    assert stats.looks(20, 20) == (20,)
    with pytest.raises(ParameterError):
        stats.looks(30, 20)


def _normal(mu, sd=1.0):
    return lambda rng, n: rng.normal(mu, sd, n)


def _skewed(mu):
    """A discrete, skewed law with median mu (ties and an atom at the median)."""
    return lambda rng, n: mu + rng.choice([-1.0, 0.0, 0.0, 3.0], size=n)


@pytest.mark.parametrize("law", ["normal", "skewed"])
def test_sequential_design_is_calibrated(law):
    """Type-I error of the group-sequential sign test over 1 000 sequential runs each, at δ = 0.2
    (large enough to measure): at the boundary of the superiority claim (median effect = ε) the
    outcomes against it (TIED, REVERSED) stay within δ/2; with no effect (median 0), REPRODUCED
    stays within δ/2. The bound allows 3 binomial standard errors of Monte-Carlo slack."""
    delta, margin, trials, schedule = 0.2, 0.5, 1000, stats.looks(10, 80)
    make = _normal if law == "normal" else _skewed
    slack = 3 * math.sqrt(delta / 2 * (1 - delta / 2) / trials)
    at_margin = stats.simulate_sequential(schedule, delta, "superior", margin, make(margin), trials, seed=1)
    against = at_margin["rates"]["TIED"] + at_margin["rates"]["REVERSED"]
    null = stats.simulate_sequential(schedule, delta, "superior", margin, make(0.0), trials, seed=2)
    print(f"\n{law}: looks {schedule}, δ = {delta}: false TIED/REVERSED at the margin {against:.3f}, false "
          f"REPRODUCED at no effect {null['rates']['REPRODUCED']:.3f} (each ≤ δ/2 = {delta / 2}); expected n "
          f"{at_margin['expected_n']:.1f} and {null['expected_n']:.1f}")
    assert against <= delta / 2 + slack
    assert null["rates"]["REPRODUCED"] <= delta / 2 + slack


def test_sequential_design_stops_early_on_a_clear_effect():
    schedule = stats.looks(10, 80)
    clear = stats.simulate_sequential(schedule, 0.05, "superior", 0.1, _normal(1.0, 0.2), 200, seed=4)
    assert clear["rates"]["REPRODUCED"] == 1.0 and clear["expected_n"] == 10
    res = stats.decide_sequential(np.full(80, 0.02), "superior", 0.1, 0.05, schedule)
    assert res.outcome == "REPRODUCED" and res.look == 10 and not res.more
    # an undecided finding asks for the next look, and at the cap says what would decide it
    noisy = np.random.default_rng(5).normal(0.05, 1.0, 80)
    first = stats.decide_sequential(noisy[:10], "superior", 0.1, 0.05, schedule)
    assert first.outcome == "UNDECIDED" and first.more and "n = 20" in first.needs
    last = stats.decide_sequential(noisy, "superior", 0.1, 0.05, schedule)
    assert last.outcome == "UNDECIDED" and not last.more and "cap 80" in last.needs and "width" in last.needs


def test_sequential_mean_uses_the_range():
    x = np.random.default_rng(6).uniform(0.2, 0.6, 64)
    res = stats.decide_sequential(x, "superior", 0.1, 0.05, stats.looks(16, 64), statistic="mean",
                                  value_range=(-1.0, 1.0))
    assert res.outcome == "REPRODUCED" and res.interval.low > 0
    with pytest.raises(ParameterError, match="range"):
        stats.decide_sequential(x, "superior", 0.1, 0.05, (64,), statistic="mean")


def test_min_effect_median_shrinks_like_one_over_root_n():
    a, b = stats.min_effect_median(25, 0.05, 1.0), stats.min_effect_median(100, 0.05, 1.0)
    assert a == pytest.approx(2 * b)
    assert a == pytest.approx(sps.norm.ppf(0.975) * math.sqrt(math.pi / 2 / 25))


# ------------------------------------------------------------------------------ the law of recorded draws
def _draws(rng, laws, n):
    return np.array([rng.multinomial(n, law) for law in laws], dtype=float)


def test_draws_follow_their_own_laws_rarely_fails():
    """Each run with its own law (as a law recomputed from the run's first phase): over 300 trials at δ = 0.05
    the false-FAIL rate is at most δ; Bonferroni and Bernstein are conservative, so the count is far below."""
    rng = np.random.default_rng(3)
    fails = 0
    for _ in range(300):
        laws = rng.dirichlet(np.full(4, 0.7), size=30)
        fails += stats.decide_draws_follow(_draws(rng, laws, 40), laws, 0.05, "law").verdict == stats.FAIL
    assert fails <= 15  # 15 is the mean at a rate of exactly δ; a fixed seed, so the run is reproducible


def test_draws_law_sees_a_missed_category_in_one_run_and_a_repeated_distortion():
    rng = np.random.default_rng(4)
    laws = np.tile([0.55, 0.25, 0.15, 0.05], (50, 1))
    assert stats.decide_draws_follow(_draws(rng, laws, 200), laws, 1e-3, "law").verdict == stats.PASS
    missed = _draws(rng, laws, 200)
    missed[7] = rng.multinomial(200, [0.0, 0.5, 0.3, 0.2])  # one run never draws a category of probability 0.55
    dec = stats.decide_draws_follow(missed, laws, 1e-3, "law")
    assert dec.verdict == stats.FAIL and "run 7 drew category 0 0 times" in dec.reason
    root = np.sqrt(laws) / np.sqrt(laws).sum(axis=1, keepdims=True)  # q ∝ √ where ∝ is declared, every run
    dec = stats.decide_draws_follow(_draws(rng, root, 40), laws, 1e-3, "law")
    assert dec.verdict == stats.FAIL
    impossible = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 1.0]])  # run 1 draws a category of probability 0
    assert stats.decide_draws_follow(impossible, np.tile([0.5, 0.5, 0.0], (2, 1)), 0.1, "law").verdict == stats.FAIL


def test_draws_law_without_draws_is_undecided_and_shapes_are_checked():
    assert stats.decide_draws_follow(np.zeros((3, 2)), np.full((3, 2), 0.5), 0.1, "law").verdict == stats.INCONCLUSIVE
    with pytest.raises(ParameterError):
        stats.decide_draws_follow(np.zeros((3, 2)), np.full((3, 3), 0.5), 0.1, "law")


def test_the_t_interval_of_a_mean_covers_at_its_level_on_normal_values():
    """stats.mean_t_interval (the estimand of a paper that averages over splits): on normal values it is
    exact, so over 1 500 samples of 20 its miss rate at δ = 0.05 is within ±2.7 binomial sd of 0.05 (a
    doubled δ lies far outside); a sample with an infinite value gives the whole line (UNDECIDED), never a
    decision."""
    rng = np.random.default_rng(0)
    x = rng.normal(0.3, 1.0, size=(1500, 20))
    misses = sum(not (iv.low <= 0.3 <= iv.high) for iv in (stats.mean_t_interval(row, 0.05) for row in x))
    assert 0.035 * 1500 < misses < 0.065 * 1500, misses
    assert stats.mean_t_interval([1.0, np.inf, 2.0], 0.05).high == np.inf
    res = stats.decide_sequential([0.2, 0.3, np.inf, 0.1], stats.SUPERIOR, 0.1, 0.05, (4,), statistic="t")
    assert res.outcome == stats.UNDECIDED
