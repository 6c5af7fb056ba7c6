"""Tests of theorycheck.generators.designs: bounds, exact moments, sampler."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from theorycheck.generators.designs import (
    Design,
    correlated_design,
    product_sign_design,
    sparse_lasso_design,
)
from theorycheck.rng import kernel_state, next_sign
from theorycheck.validation import ParameterError

DELTA = 1e-6  # false-fail rate of every Monte-Carlo assertion in this file
REL = 1e-12  # floating-point slack on a.s. bounds that hold in exact arithmetic


def _state(*key: int) -> np.ndarray:
    return kernel_state(np.random.SeedSequence([20240611, *key]))


def _designs(d: int) -> list[Design]:
    """A representative set of every construction at dimension d."""
    out = [
        product_sign_design(d, norm="l2"),
        product_sign_design(d, norm="linf", B=2.5, noise=0.3),
        product_sign_design(d, norm="l2", B=0.7, noise=0.5, w=np.arange(1.0, d + 1) - d / 2),
        sparse_lasso_design(d, max(1, d // 2), B=1.5, noise=0.2),
        correlated_design(d, rho=0.0, norm="linf"),
        correlated_design(d, rho=0.4, norm="l2", B=3.0, noise=0.25),
        correlated_design(d, rho=0.9, norm="linf", B=0.5, noise=0.1),
        correlated_design(d, rho=1.0, norm="l2", noise=0.5),
    ]
    if d > 1:
        out.append(sparse_lasso_design(d, d, noise=0.0, B=4.0))
    return out


ALL_D6 = [*_designs(6), sparse_lasso_design(6, 2, B=2.0, noise=0.4, x_dist="uniform")]


def _ids(designs):
    return [f"{i}-{dz.name}-{dz.params.get('norm', 'linf')}" for i, dz in enumerate(designs)]


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: product_sign_design(0), "d must be at least 1"),
        (lambda: product_sign_design(2.5), "d must be an integer"),
        (lambda: product_sign_design(3, B=0.0), "B must be >"),
        (lambda: product_sign_design(3, B=-1.0), "B must be >"),
        (lambda: product_sign_design(3, B=float("nan")), "B must be finite"),
        (lambda: product_sign_design(3, noise=1.5), "noise must be <="),
        (lambda: product_sign_design(3, noise=-0.1), "noise must be >="),
        (lambda: product_sign_design(3, norm="l3"), "norm must be one of"),
        (lambda: product_sign_design(3, w=[1.0, 2.0]), "w must have length d=3"),
        (lambda: product_sign_design(3, w=[0.0, 0.0, 0.0]), "zero vector"),
        (lambda: product_sign_design(3, w=[0.0, np.inf, 1.0]), "NaN or infinite"),
        (lambda: sparse_lasso_design(3, 4), "s must not exceed d"),
        (lambda: sparse_lasso_design(3, 0), "s must be at least 1"),
        (lambda: sparse_lasso_design(3, 1, x_dist="gauss"), "x_dist must be one of"),
        (lambda: correlated_design(3, rho=1.2), "rho must be <="),
        (lambda: correlated_design(3, rho=-0.2), "rho must be >="),
        (lambda: correlated_design(3, rho=float("inf")), "rho must be finite"),
    ],
)
def test_constructor_errors(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_sample_errors():
    design = product_sign_design(3)
    with pytest.raises(ParameterError, match="n must be at least 1"):
        design.sample(0, _state(0))
    with pytest.raises(ParameterError, match="uint64"):
        design.sample(5, np.zeros(2, dtype=np.int64))
    with pytest.raises(ParameterError, match="random_state must be"):
        design.sample(5, "12345")
    with pytest.raises(ParameterError, match="all zeros"):
        design.sample(5, np.zeros(2, dtype=np.uint64))
    with pytest.raises(ParameterError, match="no finite support"):
        sparse_lasso_design(3, 1, x_dist="uniform").support()
    with pytest.raises(ParameterError, match="more than max_atoms"):
        product_sign_design(20).support()
    with pytest.raises(ParameterError, match="norm must be"):
        design.satisfies("linf", 1.0)


def test_sample_takes_every_form_of_random_state():
    """The one convention: an int seeds a fresh stream; a kernel state is advanced in place."""
    design = correlated_design(4, rho=0.3)
    X_int, _ = design.sample(6, 7)
    X_seq, _ = design.sample(6, np.random.SeedSequence(7))
    assert np.array_equal(X_int, X_seq)
    state = _state(1)
    first, _ = design.sample(3, state)
    second, _ = design.sample(3, state)
    both, _ = design.sample(6, _state(1))
    assert np.array_equal(np.vstack([first, second]), both)


def test_design_is_immutable():
    design = correlated_design(3, rho=0.5)
    with pytest.raises(AttributeError):
        design.d = 4
    with pytest.raises(ValueError, match="read-only"):
        design.second_moment[0, 0] = 2.0
    with pytest.raises(ValueError, match="read-only"):
        design.w_star[0] = 2.0


# --------------------------------------------------------------------------------------
# bound arithmetic: the declared bounds imply the hypotheses, and are attained
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("design", ALL_D6, ids=_ids(ALL_D6))
def test_bound_arithmetic(design):
    d, B = design.d, design.y_bound
    assert B == design.params["B"]
    noise = design.params["noise"]
    # norm relations ‖x‖∞ ≤ ‖x‖₂ ≤ √d‖x‖∞ are consistent with the declared bounds
    assert design.x_bound_linf <= design.x_bound_l2 * (1 + REL)
    assert design.x_bound_l2 <= math.sqrt(d) * design.x_bound_linf * (1 + REL)
    # the norm each construction targets is bounded by exactly 1
    targeted = design.params.get("norm", "linf")
    assert (design.x_bound_l2 if targeted == "l2" else design.x_bound_linf) == 1.0
    # Hölder: |y| ≤ min(‖w*‖₂‖x‖₂, ‖w*‖₁‖x‖∞) + noise·B ≤ B
    w = design.w_star
    signal = min(
        np.linalg.norm(w, 2) * design.x_bound_l2, np.linalg.norm(w, 1) * design.x_bound_linf
    )
    assert signal <= B * (1 - noise) * (1 + REL)
    assert signal + noise * B <= B * (1 + REL)
    # w* lies in the ball of radius B that the theorems compare with, and the design meets
    # the data hypotheses of its setting (‖x‖∞ ≤ ‖x‖₂, so an l2 design also meets Lasso's)
    if targeted == "l2":
        assert np.linalg.norm(w, 2) <= B * (1 + REL)
        assert design.satisfies("l2", B) and design.satisfies("l1", B)
    else:
        assert np.linalg.norm(w, 1) <= B * (1 + REL)
        assert design.satisfies("l1", B)
        assert design.satisfies("l2", B) == (d == 1)
    assert not design.satisfies("l2", 0.5 * B) and not design.satisfies("l1", 0.5 * B)
    # the moments are those of a distribution (joint second moment is PSD) and respect
    # the bounds: tr Σ = E‖x‖² ≤ bound², E[y²] ≤ B²
    joint = np.block(
        [
            [design.second_moment, design.cross_moment[:, None]],
            [design.cross_moment[None, :], np.array([[design.y_second_moment]])],
        ]
    )
    assert np.linalg.eigvalsh(joint)[0] >= -1e-12
    assert np.trace(design.second_moment) <= design.x_bound_l2**2 * (1 + REL)
    assert design.y_second_moment <= B**2 * (1 + REL)


@pytest.mark.parametrize("design", ALL_D6, ids=_ids(ALL_D6))
def test_samples_respect_bounds(design):
    X, y = design.sample(50_000, _state(1, design.d))
    assert X.shape == (50_000, design.d) and y.shape == (50_000,)
    assert np.all(np.isfinite(X)) and np.all(np.isfinite(y))
    assert np.max(np.linalg.norm(X, axis=1)) <= design.x_bound_l2 * (1 + REL)
    assert np.max(np.abs(X)) <= design.x_bound_linf * (1 + REL)
    assert np.max(np.abs(y)) <= design.y_bound * (1 + REL)
    # y is the declared linear function plus noise of amplitude noise·B exactly
    residual = np.abs(y - X @ design.w_star)
    amp = design.params["noise"] * design.y_bound
    np.testing.assert_allclose(residual, amp, atol=1e-12 * max(1.0, design.y_bound))


# --------------------------------------------------------------------------------------
# exact moments by enumeration (tiny d, all sign patterns, fractions.Fraction)
# --------------------------------------------------------------------------------------

TINY = [dz for d in (1, 2, 3, 4) for dz in _designs(d)]


def _exact_moments(X, y, prob):
    """E[xxᵀ], E[xy], E[y²] over the atoms, in exact rational arithmetic."""
    d = X.shape[1]
    Xf = [[Fraction(float(v)) for v in row] for row in X]
    yf = [Fraction(float(v)) for v in y]
    sigma = [
        [sum(p * r[i] * r[j] for p, r in zip(prob, Xf, strict=True)) for j in range(d)]
        for i in range(d)
    ]
    cross = [sum(p * r[i] * t for p, r, t in zip(prob, Xf, yf, strict=True)) for i in range(d)]
    y2 = sum(p * t * t for p, t in zip(prob, yf, strict=True))
    return sigma, cross, y2


@pytest.mark.parametrize("design", TINY, ids=_ids(TINY))
def test_moments_exact_enumeration(design):
    X, y, prob = design.support()
    assert sum(prob) == 1
    sigma, cross, y2 = _exact_moments(X, y, prob)
    # The atoms are floats (1/√d is irrational), so the exact expectation of the
    # float-valued atoms may differ from the closed form by rounding only.
    scale = design.x_bound_linf * max(design.x_bound_linf, design.y_bound)
    tol = 1e-14 * max(scale, design.y_bound**2)
    d = design.d
    for i in range(d):
        assert abs(float(cross[i] - Fraction(design.cross_moment[i]))) <= tol
        for j in range(d):
            assert abs(float(sigma[i][j] - Fraction(design.second_moment[i, j]))) <= tol
    assert abs(float(y2 - Fraction(design.y_second_moment))) <= tol
    # every declared bound is attained by some atom (tight) and never exceeded
    assert np.max(np.linalg.norm(X, axis=1)) == pytest.approx(design.x_bound_l2, rel=REL)
    assert np.max(np.abs(X)) == pytest.approx(design.x_bound_linf, rel=REL)
    if design.w_star is not None and np.all(design.w_star == design.w_star[0]):
        assert np.max(np.abs(y)) == pytest.approx(design.y_bound, rel=REL)
    assert np.max(np.abs(y)) <= design.y_bound * (1 + REL)


TINY_34 = [dz for dz in TINY if dz.d >= 3]


@pytest.mark.parametrize("design", TINY_34, ids=_ids(TINY_34))
def test_sampler_hits_exactly_the_support(design):
    """Every sampled row is an atom, and every atom (probability ≥ 1/64) is sampled.

    P(some atom of probability ≥ 1/64 is missed in 5000 rows) ≤ 64·(63/64)^5000 < 1e-30.
    """
    X_atoms, y_atoms, _ = design.support()
    atoms = {tuple(np.round(np.append(x, t), 12)) for x, t in zip(X_atoms, y_atoms, strict=True)}
    X, y = design.sample(5000, _state(2, design.d))
    seen = {tuple(np.round(np.append(x, t), 12)) for x, t in zip(X, y, strict=True)}
    assert seen == atoms


# --------------------------------------------------------------------------------------
# exact moments by Monte Carlo (Hoeffding at level DELTA)
# --------------------------------------------------------------------------------------


def _hoeffding_tolerances(design, n):
    """Half-widths t such that all the empirical moments lie within t of the truth with
    probability ≥ 1 − DELTA.

    Hoeffding: for the mean of n i.i.d. variables in [a, b],
    P(|mean − E| ≥ t) ≤ 2·exp(−2nt²/(b − a)²). The statistics are the m = d(d+1)/2 + d + 1
    distinct entries of xxᵀ (in [−L², L²], L = the bound on ‖x‖∞), x_i·y (in [−LB, LB]) and
    y² (in [0, B²]). A union bound at DELTA/m each gives t = (b − a)·√(log(2m/DELTA)/(2n)).
    """
    d, L, B = design.d, design.x_bound_linf, design.y_bound
    m = d * (d + 1) // 2 + d + 1
    root = math.sqrt(math.log(2 * m / DELTA) / (2 * n))
    return 2 * L * L * root, 2 * L * B * root, B * B * root


def _moment_check(design, X, y):
    n = y.shape[0]
    t_xx, t_xy, t_yy = _hoeffding_tolerances(design, n)
    err_xx = np.max(np.abs(X.T @ X / n - design.second_moment))
    err_xy = np.max(np.abs(X.T @ y / n - design.cross_moment))
    err_yy = abs(y @ y / n - design.y_second_moment)
    return err_xx <= t_xx and err_xy <= t_xy and err_yy <= t_yy


@pytest.mark.parametrize("design", ALL_D6, ids=_ids(ALL_D6))
def test_moments_monte_carlo(design):
    X, y = design.sample(200_000, _state(3, design.d))
    assert _moment_check(design, X, y)


def test_monte_carlo_check_can_fail():
    """Planted defect: samples of a design whose correlation differs from the declared one
    (ρ = 0.3 against ρ = 0.5) must be rejected at the same n and δ."""
    declared = correlated_design(6, rho=0.5, norm="linf")
    X, y = correlated_design(6, rho=0.3, norm="linf").sample(200_000, _state(4))
    assert not _moment_check(declared, X, y)
    # and a wrong noise level: E[y²] off by (0.5² − 0.3²)·B² = 0.16
    declared = product_sign_design(6, norm="linf", noise=0.3)
    X, y = product_sign_design(6, norm="linf", noise=0.5).sample(200_000, _state(5))
    assert not _moment_check(declared, X, y)


# --------------------------------------------------------------------------------------
# sampler: determinism and agreement with a slow reference
# --------------------------------------------------------------------------------------


def test_sampler_is_deterministic_and_streams_continue():
    design = correlated_design(4, rho=0.3, noise=0.2)
    a = design.sample(100, _state(6))
    b = design.sample(100, _state(6))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    state = _state(6)
    first = design.sample(50, state)
    second = design.sample(50, state)
    np.testing.assert_array_equal(np.vstack([first[0], second[0]]), a[0])
    # a SeedSequence is accepted and gives the same stream as its kernel state
    seq = np.random.SeedSequence([20240611, 6])
    np.testing.assert_array_equal(design.sample(100, seq)[0], a[0])


def _reference_sample(design, n, state):
    """Slow, obviously-correct sampler of the latent-sign model (signs only)."""
    X = np.zeros((n, design.d))
    y = np.zeros(n)
    for t in range(n):
        z = next_sign(state) if design._shared != 0.0 else 0.0
        for i in range(design.d):
            X[t, i] = design._shared * z + design._own * next_sign(state)
        y[t] = sum(design.w_star[i] * X[t, i] for i in range(design.d))
        if design._noise_amp != 0.0:
            y[t] += design._noise_amp * next_sign(state)
    return X, y


@pytest.mark.parametrize("design", _designs(3), ids=_ids(_designs(3)))
def test_sampler_matches_reference(design):
    X, y = design.sample(40, _state(7))
    X_ref, y_ref = _reference_sample(design, 40, _state(7))
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_allclose(y, y_ref, rtol=0, atol=1e-14)


# --------------------------------------------------------------------------------------
# closed forms of the constructions
# --------------------------------------------------------------------------------------


def test_closed_forms():
    d = 5
    design = product_sign_design(d, norm="l2", B=2.0, noise=0.25)
    np.testing.assert_allclose(design.second_moment, np.eye(d) / d, rtol=1e-15)
    np.testing.assert_allclose(design.w_star, np.full(d, 1.5 / math.sqrt(d)), rtol=1e-15)
    np.testing.assert_allclose(design.cross_moment, design.w_star / d, rtol=1e-15)
    assert design.y_second_moment == pytest.approx(1.5**2 / d + 0.5**2, rel=1e-15)

    design = sparse_lasso_design(d, 2, B=2.0, noise=0.5, x_dist="uniform")
    np.testing.assert_allclose(design.second_moment, np.eye(d) / 3, rtol=1e-15)
    np.testing.assert_array_equal(design.w_star, [0.5, 0.5, 0, 0, 0])
    assert design.y_second_moment == pytest.approx(0.5 / 3 + 1.0, rel=1e-15)

    design = correlated_design(d, rho=0.36, norm="linf")
    kappa2 = 1 / (0.6 + 0.8) ** 2
    expected = kappa2 * (0.36 * np.ones((d, d)) + 0.64 * np.eye(d))
    np.testing.assert_allclose(design.second_moment, expected, rtol=1e-14)
    corr = design.second_moment[0, 1] / design.second_moment[0, 0]
    assert corr == pytest.approx(0.36, rel=1e-14)
    assert np.linalg.matrix_rank(correlated_design(d, rho=1.0).second_moment) == 1
    assert design.moments[0] is design.second_moment
