"""Tests of theorycheck.generators.decaying: the decaying-moment family of ks15 §5.1."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest

from theorycheck.generators import build_design, design_names
from theorycheck.generators.decaying import decaying_bounded_design, decaying_design, decaying_profile, printed_w_star
from theorycheck.population import constrained_optimum, excess_risk
from theorycheck.protocols import Design
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError

DELTA = 1e-6  # false-fail rate of each Monte-Carlo assertion (asymptotic: normal approximation)
REL = 1e-12  # floating-point slack on a.s. bounds that hold in exact arithmetic
ALPHAS = (0.0, -0.5, -1.0, -2.0)
NORM = {"ridge": "l2", "lasso": "l1"}


def _state(*key: int) -> np.ndarray:
    return kernel_state(np.random.SeedSequence([20150706, *key]))


def _spec(setting, d, alpha, bounded):
    """(p, a) of x_i = a_i·Bernoulli(p_i), written from ks15 §5.1 and the module's docstring."""
    u = np.array([i**alpha for i in range(1, d + 1)], dtype=float)
    if setting == "ridge" and math.sqrt(float(u @ u)) > 1:
        u = u / math.sqrt(float(u @ u))
    if bounded and setting == "ridge":
        return np.full(d, 0.5), np.sqrt(u / u.sum())
    return u, np.ones(d)


def _designs(d):
    out = []
    for setting in ("ridge", "lasso"):
        for alpha in (0.0, -1.0, -2.0):
            out.append(decaying_design(d, alpha, setting=setting, w_seed=d))
        out.append(decaying_bounded_design(d, -1.0, setting=setting))
        out.append(decaying_bounded_design(d, -0.5, setting=setting, B=2.0, noise=0.3))
        out.append(decaying_bounded_design(d, -2.0, setting=setting, noise=0.1, direction="seeded", w_seed=4))
    return out


def _ids(designs):
    return [f"{dz.name}-{dz.setting}-a{dz.alpha}-n{dz.noise_amp}" for dz in designs]


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: decaying_design(5, 0.5), "alpha must be <= 0"),
        (lambda: decaying_bounded_design(5, 1e-9), "alpha must be <= 0"),
        (lambda: decaying_design(0), "d must be at least 1"),
        (lambda: decaying_bounded_design(0, setting="lasso"), "d must be at least 1"),
        (lambda: decaying_design(5, float("nan")), "alpha must be finite"),
        (lambda: decaying_design(5, setting="l2"), "setting must be"),
        (lambda: decaying_design(5, w_seed=-1), "w_seed must be"),
        (lambda: decaying_bounded_design(5, noise=1.0), "noise must be <"),
        (lambda: decaying_bounded_design(5, noise=-0.1), "noise must be >="),
        (lambda: decaying_bounded_design(5, B=0.0), "B must be >"),
        (lambda: decaying_bounded_design(5, direction="up"), "direction must be"),
        (lambda: decaying_bounded_design(5, direction=[1.0, 2.0]), "length d=5"),
        (lambda: decaying_bounded_design(3, direction=[0.0, 0.0, 0.0]), "zero vector"),
        (lambda: build_design("ridge", "decaying", {"d": 5, "B": 1.0, "noise": 0.0, "alpha": 2.0}), "alpha"),
        (lambda: build_design("lasso", "decaying_bounded", {"d": 5, "B": 1.0, "noise": 1.0}), "noise"),
    ],
)
def test_constructor_errors(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_on_demand_errors():
    design = decaying_design(4)
    with pytest.raises(ParameterError, match="key must be"):
        design.attribute(-1, 0, 0)
    with pytest.raises(ParameterError, match="key must be"):
        design.rows(2**64, 3)
    with pytest.raises(ParameterError, match="i must be at most 3"):
        design.attribute(5, 0, 4)
    with pytest.raises(ParameterError, match="cols must lie"):
        design.attributes(5, [0, 1], [0, 4])
    with pytest.raises(ParameterError, match="rows must be non-negative"):
        design.labels(5, [-1])
    with pytest.raises(ParameterError, match="rows must be integers"):
        design.labels(5, [0.5])
    with pytest.raises(ParameterError, match="n must be at least 1"):
        design.sample(0, 1)
    with pytest.raises(ParameterError, match="norm must be"):
        design.satisfies("linf", 1.0)


# --------------------------------------------------------------------------------------
# closed forms, and exact moments by enumeration over {0,1}^d (Fractions)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("setting", ["ridge", "lasso"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_printed_family_closed_forms(setting, alpha):
    d = 30
    design = decaying_design(d, alpha, setting=setting, w_seed=11)
    u, _ = _spec(setting, d, alpha, bounded=False)
    np.testing.assert_allclose(design.profile, u, rtol=1e-14)
    np.testing.assert_array_equal(design.profile, decaying_profile(d, alpha, setting))
    np.testing.assert_allclose(design.mean, u, rtol=1e-14)
    np.testing.assert_allclose(design.second_moments, u, rtol=1e-14)
    np.testing.assert_allclose(design.second_moment, np.outer(u, u) + np.diag(u - u * u), rtol=1e-14, atol=1e-16)
    w = design.w_star
    assert set(np.unique(w)) <= ({-1.0, 1.0} if setting == "ridge" else {-1.0, 0.0, 1.0})
    np.testing.assert_allclose(design.cross_moment, design.second_moment @ w, rtol=1e-13, atol=1e-15)
    assert design.y_second_moment == pytest.approx(w @ design.second_moment @ w, rel=1e-13)
    assert design.expected_sq_norm == pytest.approx(u.sum(), rel=1e-14)
    assert design.alpha == alpha and design.moments[0] is design.second_moment
    # each repeat draws its own w*, reproducibly
    assert np.array_equal(w, decaying_design(d, alpha, setting=setting, w_seed=11).w_star)
    assert not np.array_equal(w, decaying_design(d, alpha, setting=setting, w_seed=12).w_star)


def test_printed_w_star_frequencies():
    """Ridge signs are fair and Lasso's −1/0/1 have probabilities 0.15/0.7/0.15 (z-tests at DELTA)."""
    d = 200_000
    z = NormalDist().inv_cdf(1 - DELTA / 8)
    ridge, lasso = printed_w_star(d, "ridge", 5), printed_w_star(d, "lasso", 5)  # the draw decaying_design(d, ...) uses
    assert np.array_equal(decaying_design(50, setting="lasso", w_seed=5).w_star, printed_w_star(50, "lasso", 5))
    for values, target, p in ((ridge, 1.0, 0.5), (lasso, -1.0, 0.15), (lasso, 0.0, 0.7), (lasso, 1.0, 0.15)):
        assert abs(np.mean(values == target) - p) <= z * math.sqrt(p * (1 - p) / d)


def _enumerate(design, p, a):
    """Exact E[x], E[xxᵀ], E[xy], E[y²] and the ranges of ‖x‖₂², |x_i|, y, over every b ∈ {0,1}^d
    (and ξ = ±1 when there is noise), with the float parameters read as exact rationals."""
    d = design.d
    P = [Fraction(float(v)) for v in p]
    A = [Fraction(float(v)) for v in a]
    W = [Fraction(float(v)) for v in design.w_star]
    sig = Fraction(design.noise_amp)
    noises = (-sig, sig) if sig else (Fraction(0),)
    mean = [Fraction(0)] * d
    xx = [[Fraction(0)] * d for _ in range(d)]
    xy = [Fraction(0)] * d
    y2 = total = Fraction(0)
    norms, ys = [], []
    for bits in itertools.product((0, 1), repeat=d):
        prob = Fraction(1)
        for b, q in zip(bits, P, strict=True):
            prob *= q if b else 1 - q
        if prob == 0:
            continue
        x = [ai * b for ai, b in zip(A, bits, strict=True)]
        norms.append(sum(v * v for v in x))
        for xi in noises:
            pr = prob / len(noises)
            y = sum((wi * v for wi, v in zip(W, x, strict=True)), Fraction(0)) + xi
            ys.append(y)
            total += pr
            y2 += pr * y * y
            for i in range(d):
                mean[i] += pr * x[i]
                xy[i] += pr * x[i] * y
                for j in range(d):
                    xx[i][j] += pr * x[i] * x[j]
    return total, mean, xx, xy, y2, max(norms), max(ys), min(ys)


TINY = [dz for d in (1, 2, 4, 5) for dz in _designs(d)]


@pytest.mark.parametrize("design", TINY, ids=[f"d{dz.d}-{i}" for dz, i in zip(TINY, _ids(TINY), strict=True)])
def test_moments_exact_enumeration(design):
    p, a = _spec(design.setting, design.d, design.alpha, design.name == "decaying_bounded")
    np.testing.assert_allclose(design.probs, p, rtol=1e-15)
    np.testing.assert_allclose(design.values, a, rtol=1e-15)
    total, mean, xx, xy, y2, max_sq_norm, y_max, y_min = _enumerate(design, design.probs, design.values)
    assert total == 1
    scale = max(1.0, design.y_bound) ** 2
    tol = 1e-14 * scale
    for i in range(design.d):
        assert abs(float(mean[i]) - design.mean[i]) <= tol
        assert abs(float(xx[i][i]) - design.second_moments[i]) <= tol
        assert abs(float(xy[i]) - design.cross_moment[i]) <= tol
        for j in range(design.d):
            assert abs(float(xx[i][j]) - design.second_moment[i, j]) <= tol
    assert abs(float(y2) - design.y_second_moment) <= tol
    # the declared bounds are never exceeded, and attained
    assert math.sqrt(max_sq_norm) == pytest.approx(design.x_bound_l2, rel=REL)
    assert float(max(abs(y_max), abs(y_min))) <= design.y_bound * (1 + REL)
    assert (float(y_min), float(y_max)) == pytest.approx(
        (design.y_range[0] - design.noise_amp, design.y_range[1] + design.noise_amp), rel=REL, abs=1e-15)
    if design.name == "decaying":
        assert float(max(abs(y_max), abs(y_min))) == design.y_bound


# --------------------------------------------------------------------------------------
# exact moments by Monte Carlo: z-tests with the exact variance, union bound at DELTA
# --------------------------------------------------------------------------------------


def _statistics(X, y):
    """Per-example statistics: x_i x_j (i ≤ j), x_i y, y² — as columns."""
    iu = np.triu_indices(X.shape[1])
    return np.hstack([(X[:, :, None] * X[:, None, :])[:, iu[0], iu[1]], X * y[:, None], (y * y)[:, None]])


def _exact_stat_moments(design):
    """E and Var of each statistic of :func:`_statistics`, by float enumeration of the support."""
    d = design.d
    bits = np.array(list(itertools.product((0.0, 1.0), repeat=d)))
    prob = np.prod(np.where(bits == 1.0, design.probs, 1.0 - design.probs), axis=1)
    X = bits * design.values
    y = X @ design.w_star
    if design.noise_amp:
        X, prob = np.vstack([X, X]), np.concatenate([prob, prob]) / 2
        y = np.concatenate([y - design.noise_amp, y + design.noise_amp])
    S = _statistics(X, y)
    mean = prob @ S
    return mean, np.maximum(prob @ (S * S) - mean**2, 0.0)  # a constant statistic has variance 0


def _z_check(design, X, y, mean, var):
    n = y.shape[0]
    S = _statistics(X, y)
    z = NormalDist().inv_cdf(1 - DELTA / (2 * S.shape[1]))
    return bool(np.all(np.abs(S.mean(axis=0) - mean) <= z * np.sqrt(var / n) + 1e-15))


MC = _designs(6)


@pytest.mark.parametrize("design", MC, ids=_ids(MC))
def test_moments_monte_carlo(design):
    mean, var = _exact_stat_moments(design)
    d = design.d
    iu = np.triu_indices(d)
    # the enumerated means are the declared moments
    np.testing.assert_allclose(mean[: iu[0].size], design.second_moment[iu], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(mean[iu[0].size : -1], design.cross_moment, rtol=1e-13, atol=1e-15)
    X, y = design.sample(200_000, _state(1, d))
    assert _z_check(design, X, y, mean, var)


def test_monte_carlo_check_can_fail():
    """Planted defects: data from α = −0.8 against the declared α = −1, and a bounded design's
    noise 0.3 against the declared 0.2, are rejected at the same n and DELTA."""
    declared = decaying_design(6, -1.0, setting="lasso", w_seed=6)
    X, y = decaying_design(6, -0.8, setting="lasso", w_seed=6).sample(200_000, _state(2))
    assert not _z_check(declared, X, y, *_exact_stat_moments(declared))
    declared = decaying_bounded_design(6, -1.0, noise=0.2)
    X, y = decaying_bounded_design(6, -1.0, noise=0.3).sample(200_000, _state(3))
    assert not _z_check(declared, X, y, *_exact_stat_moments(declared))


@pytest.mark.parametrize("design", [decaying_design(60, -1.0), decaying_bounded_design(60, -2.0, setting="lasso")],
                         ids=["printed-ridge", "bounded-lasso"])
def test_mean_and_second_moments_monte_carlo_at_larger_d(design):
    """E[x_i] and E[x_i²] at d = 60, z-tests with the exact variances a²p(1−p) and a⁴p(1−p)."""
    n = 100_000
    X, _ = design.sample(n, _state(4))
    p, a = design.probs, design.values
    z = NormalDist().inv_cdf(1 - DELTA / (4 * design.d))
    assert np.all(np.abs(X.mean(axis=0) - design.mean) <= z * np.sqrt(a**2 * p * (1 - p) / n) + 1e-15)
    assert np.all(np.abs((X * X).mean(axis=0) - design.second_moments) <= z * np.sqrt(a**4 * p * (1 - p) / n) + 1e-15)


# --------------------------------------------------------------------------------------
# attributes on demand
# --------------------------------------------------------------------------------------

_G = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _reference_attribute(design, key, t, i):
    """The hash of the module docstring, in Python integers."""
    seed = _mix(key ^ _mix(((t + 1) * _G) & _MASK))
    word = _mix((seed + (i + 1) * _G) & _MASK)
    return design.values[i] if (word >> 11) * 2.0**-53 < design.probs[i] else 0.0


@pytest.mark.parametrize("design", _designs(7), ids=_ids(_designs(7)))
def test_sample_equals_attributes_on_demand(design):
    n = 300
    state = _state(5)
    key = design.draw_key(state.copy())
    X, y = design.sample(n, state)
    rows, cols = np.arange(n)[:, None], np.arange(design.d)[None, :]
    np.testing.assert_array_equal(design.attributes(key, rows, cols), X)
    np.testing.assert_array_equal(design.labels(key, np.arange(n)), y)
    np.testing.assert_allclose(y, X @ design.w_star, rtol=0, atol=design.noise_amp * (1 + 1e-12) + 1e-15)
    rng = np.random.default_rng(0)
    for t, i in zip(rng.integers(0, n, 40), rng.integers(0, design.d, 40), strict=True):
        assert design.attribute(key, int(t), int(i)) == X[t, i] == _reference_attribute(design, key, int(t), int(i))
        assert design.label(key, int(t)) == y[t]
    X2, y2 = design.rows(key, 50, start=100)
    np.testing.assert_array_equal(X2, X[100:150])
    np.testing.assert_array_equal(y2, y[100:150])


def test_random_state_convention():
    design = decaying_bounded_design(5, -1.0, noise=0.2)
    np.testing.assert_array_equal(design.sample(20, 7)[0], design.sample(20, np.random.SeedSequence(7))[0])
    state = _state(6)
    first = design.sample(10, state)[0]
    second = design.sample(10, state)[0]
    assert not np.array_equal(first, second)  # a kernel state moves on: fresh keys, fresh data
    state = _state(6)
    keys = design.draw_key(state), design.draw_key(state)
    np.testing.assert_array_equal(design.rows(keys[1], 10)[0], second)


# --------------------------------------------------------------------------------------
# hypotheses, ratios, the trivial learner, the registry
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("setting", ["ridge", "lasso"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_hypotheses(setting, alpha):
    norm, B = NORM[setting], 1.5
    bounded = decaying_bounded_design(40, alpha, setting=setting, B=B, noise=0.25)
    assert bounded.satisfies(norm, B) and not bounded.violations(norm, B)
    assert not bounded.satisfies(norm, 0.5 * B)
    if setting == "ridge":
        assert bounded.satisfies("l1", B)  # ‖x‖∞ ≤ ‖x‖₂ ≤ 1
    X, y = bounded.sample(20_000, _state(7))
    assert np.max(np.linalg.norm(X, axis=1)) <= bounded.x_bound_l2 * (1 + REL)
    assert np.max(np.abs(X)) <= bounded.x_bound_linf * (1 + REL) and bounded.x_bound_linf <= 1.0
    assert np.max(np.abs(y)) <= B * (1 + REL)
    assert np.linalg.norm(bounded.w_star, 2 if setting == "ridge" else 1) == pytest.approx(B * 0.75, rel=1e-14)
    printed = decaying_design(500, alpha, setting=setting, w_seed=0)
    reasons = printed.violations(norm, 1.0)
    assert not printed.satisfies(norm, 1.0) and reasons
    assert any("|y| reaches" in r for r in reasons)
    assert any("‖x‖₂ reaches" in r for r in reasons) == (setting == "ridge")
    assert printed.x_bound_l2 == pytest.approx(math.sqrt(500), rel=1e-14)
    assert printed.y_bound == max(abs(printed.y_range[0]), abs(printed.y_range[1]))


def _rho_ridge(s, expected_sq_norm):
    return np.sqrt(s).sum() ** 2 / (s.shape[0] * expected_sq_norm)


def _rho_lasso(s):
    return s.sum() / (s.shape[0] * s.max())


@pytest.mark.parametrize("alpha", ALPHAS)
def test_ratios_agree(alpha):
    d = 500
    for setting in ("ridge", "lasso"):
        printed = decaying_design(d, alpha, setting=setting)
        bounded = decaying_bounded_design(d, alpha, setting=setting, noise=0.1)
        np.testing.assert_allclose(bounded.second_moments / bounded.second_moments[0],
                                   printed.second_moments / printed.second_moments[0], rtol=1e-13)
        assert printed.expected_sq_norm == pytest.approx(printed.second_moments.sum(), rel=1e-14)
        assert bounded.expected_sq_norm == pytest.approx(np.trace(bounded.second_moment), rel=1e-14)
        assert _rho_ridge(bounded.second_moments, bounded.expected_sq_norm) == pytest.approx(
            _rho_ridge(printed.second_moments, printed.expected_sq_norm), rel=1e-12)
        assert _rho_lasso(bounded.second_moments) == pytest.approx(_rho_lasso(printed.second_moments), rel=1e-12)
    assert decaying_bounded_design(d, alpha).expected_sq_norm == pytest.approx(0.5, rel=1e-14)


@pytest.mark.parametrize("setting", ["ridge", "lasso"])
@pytest.mark.parametrize("d", [20, 100])
@pytest.mark.parametrize("alpha", [0.0, -1.0, -2.0])
def test_trivial_learner_is_far(setting, d, alpha):
    """The ½-loss excess risk of w = 0 against the constrained optimum is ½w*ᵀΣw* (w* is
    optimal), and of order B²: at least B²(1 − noise)²/16 for the default directions."""
    B, noise, norm = 2.0, 0.2, NORM[setting]
    design = decaying_bounded_design(d, alpha, setting=setting, B=B, noise=noise)
    w = design.w_star
    _, best = constrained_optimum(design, B, norm=norm, half=True)
    assert best == pytest.approx(0.5 * (noise * B) ** 2, rel=1e-9, abs=1e-12)
    trivial = excess_risk(np.zeros(d), design, B, norm=norm, half=True)
    assert trivial == pytest.approx(0.5 * w @ design.second_moment @ w, rel=1e-9)
    assert trivial >= (B * (1 - noise)) ** 2 / 16
    if setting == "ridge":
        v = design.values**2
        assert trivial == pytest.approx((B * (1 - noise)) ** 2 * (1 + v @ v) / 8, rel=1e-9)


def test_registry():
    for setting in ("ridge", "lasso"):
        assert {"decaying", "decaying_bounded"} <= set(design_names(setting))
        p = {"d": 12, "B": 1.0, "noise": 0.1, "rho": 0.3, "s": 2}
        printed = build_design(setting, "decaying", p)
        bounded = build_design(setting, "decaying_bounded", p)
        assert isinstance(printed, Design) and isinstance(bounded, Design)
        assert printed.alpha == bounded.alpha == -1.0 and printed.params["w_seed"] == 0
        assert bounded.noise_amp == pytest.approx(0.1) and printed.noise_amp == 0.0
        other = build_design(setting, "decaying", {**p, "alpha": -2.0, "w_seed": 3})
        assert other.alpha == -2.0 and other.params["w_seed"] == 3
        assert not printed.satisfies(NORM[setting], 1.0) and bounded.satisfies(NORM[setting], 1.0)


# ------------------------------------------------------------------------------ the spiked design (ks15 part d)
@pytest.mark.parametrize("setting", ["ridge", "lasso"])
def test_spiked_law_by_enumeration(setting):
    """Every sign pattern of (x_1..x_d, ξ) has probability 2^−(d+1): the exact moments, the bounds and the ks15
    norms of the registered 'spiked' design, written from its definition."""
    d, B, noise, tail = 4, 1.3, 0.2, 0.03
    design = build_design(setting, "spiked", {"d": d, "B": B, "noise": noise, "tail": tail})
    lead = math.sqrt(1 - tail) if setting == "ridge" else 1.0
    scale = np.array([lead] + [math.sqrt(tail / (d - 1))] * (d - 1))
    atoms = np.array(list(itertools.product((-1.0, 1.0), repeat=d + 1)))
    X = atoms[:, :d] * scale
    y = B * (1 - noise) * X[:, 0] + noise * B * atoms[:, d]
    np.testing.assert_allclose(design.second_moment, X.T @ X / len(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(design.cross_moment, X.T @ y / len(X), rtol=1e-12, atol=1e-15)
    assert math.isclose(design.y_second_moment, float(y @ y) / len(X), rel_tol=1e-12)
    assert np.abs(y).max() <= B * (1 + REL) and design.satisfies(NORM[setting], B)
    size = np.sqrt((X * X).sum(1)) if setting == "ridge" else np.abs(X).max(1)
    assert np.all(np.abs(size - 1.0) <= REL)
    s = np.diag(design.second_moment)
    if setting == "ridge":
        assert math.isclose(float(np.sqrt(s).sum() ** 2), (lead + math.sqrt((d - 1) * tail)) ** 2, rel_tol=1e-12)
    else:
        assert math.isclose(float(s.sum()), 1 + tail, rel_tol=1e-12)
    w_opt, _ = constrained_optimum(design, B, norm=NORM[setting], half=True)
    np.testing.assert_allclose(w_opt, [B * (1 - noise)] + [0.0] * (d - 1), atol=1e-12)
    Xs, _ = design.sample(50, _state(7))
    assert set(np.unique(np.abs(Xs[:, 0]))) == {lead} and np.all(np.isin(np.abs(Xs[:, 1:]), scale[1:]))


@pytest.mark.parametrize(("setting", "tail"), [("ridge", 1.0), ("ridge", 0.0), ("lasso", 4.0), ("lasso", -0.1)])
def test_spiked_rejects_a_tail_outside_its_range(setting, tail):
    with pytest.raises(ParameterError, match="tail"):
        build_design(setting, "spiked", {"d": 4, "B": 1.0, "noise": 0.0, "tail": tail})
