"""Tests of theorycheck.population: exact risk, constrained optimum, excess risk."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from theorycheck.generators.designs import (
    correlated_design,
    product_sign_design,
    sparse_lasso_design,
)
from theorycheck.population import constrained_optimum, excess_risk, risk
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError

DELTA = 1e-6  # false-fail rate of every Monte-Carlo assertion in this file


def _random_problem(seed: int, d: int, rank: int | None = None, *, in_range: bool = True):
    """A random PSD Σ of the given rank, c = Σ·w_true (+ a null-space part if not
    in_range), and s large enough for (Σ, c, s) to be a valid moment triple when in_range."""
    rng = np.random.default_rng(seed)
    rank = d if rank is None else rank
    A = rng.normal(size=(d, rank)) * rng.uniform(0.2, 3.0, size=rank)
    sigma = A @ A.T / rank
    w_true = rng.normal(size=d)
    c = sigma @ w_true
    if not in_range:
        null = np.linalg.svd(A)[0][:, rank:]
        c = c + null @ rng.normal(size=d - rank)
    s = float(w_true @ sigma @ w_true) + rng.uniform(0.1, 1.0)
    return sigma, c, s, w_true


def _ball_norm(w, norm):
    return float(np.linalg.norm(w, 2 if norm == "l2" else 1))


def _scale(moments, B):
    sigma, c, s = moments
    return max(s, 2 * B * np.max(np.abs(c)), B * B * np.max(np.diag(sigma)))


def _fw_gap(moments, w, B, norm):
    """Frank–Wolfe gap ⟨g, w⟩ + B‖g‖_* (dual norm) with g = ∇L(w); it is ≥ L(w) − min over
    the ball and is 0 exactly at the KKT points."""
    sigma, c, _ = moments
    g = 2 * (sigma @ w - c)
    dual = np.linalg.norm(g, 2) if norm == "l2" else np.max(np.abs(g))
    return float(g @ w + B * dual)


def _slsqp(moments, B, norm, seed=0):
    """Reference optimum with scipy's SLSQP, made exactly feasible afterwards.

    The L1 ball is written smoothly with w = u − v, u, v ≥ 0, Σ(u + v) ≤ B.
    """
    sigma, c, s = moments
    d = c.shape[0]

    def f(w):
        return float(w @ sigma @ w - 2 * w @ c + s)

    rng = np.random.default_rng(seed)
    opts = {"ftol": 1e-15, "maxiter": 2000}
    if norm == "l2":
        cons = {"type": "ineq", "fun": lambda w: B * B - w @ w, "jac": lambda w: -2 * w}
        res = minimize(
            f,
            rng.normal(size=d) * B / (4 * math.sqrt(d)),
            jac=lambda w: 2 * (sigma @ w - c),
            method="SLSQP",
            constraints=[cons],
            options=opts,
        )
        w = res.x
        n2 = np.linalg.norm(w)
        return w * min(1.0, B / n2) if n2 > 0 else w

    def g(z):
        return f(z[:d] - z[d:])

    def jac(z):
        gw = 2 * (sigma @ (z[:d] - z[d:]) - c)
        return np.concatenate([gw, -gw])

    cons = {"type": "ineq", "fun": lambda z: B - z.sum(), "jac": lambda z: -np.ones(2 * d)}
    res = minimize(
        g,
        np.full(2 * d, B / (4 * d)),
        jac=jac,
        method="SLSQP",
        constraints=[cons],
        bounds=[(0, None)] * (2 * d),
        options=opts,
    )
    w = res.x[:d] - res.x[d:]
    n1 = np.abs(w).sum()
    return w * min(1.0, B / n1) if n1 > 0 else w


# --------------------------------------------------------------------------------------
# risk
# --------------------------------------------------------------------------------------


def test_risk_formula_and_conventions():
    sigma, c, s, _ = _random_problem(0, 4)
    w = np.array([0.3, -1.0, 0.5, 2.0])
    expected = w @ sigma @ w - 2 * w @ c + s
    assert risk(w, (sigma, c, s)) == pytest.approx(expected, rel=1e-14)
    assert risk(w, (sigma, c, s), half=True) == pytest.approx(expected / 2, rel=1e-14)
    W = np.stack([w, -w, np.zeros(4)])
    out = risk(W, (sigma, c, s))
    assert out.shape == (3,)
    np.testing.assert_allclose(out, [risk(v, (sigma, c, s)) for v in W], rtol=1e-14)
    assert out[2] == s
    design = correlated_design(3, rho=0.2, B=2.0, noise=0.3)
    assert risk(design.w_star, design) == pytest.approx((0.3 * 2.0) ** 2, rel=1e-12)
    assert risk(design.w_star, design.moments) == risk(design.w_star, design)
    assert isinstance(risk(design.w_star, design), float)


def test_risk_against_monte_carlo():
    """L(w) against the sample mean of (⟨w, x⟩ − y)² over n draws, for 5 vectors w.

    |⟨w, x⟩ − y| ≤ ‖w‖₂·X₂ + B where X₂ bounds ‖x‖₂, so each squared loss lies in
    [0, R²], R = ‖w‖₂·X₂ + B; Hoeffding with a union bound over the 5 vectors gives the
    half-width R²·√(log(2·5/δ)/(2n)) at level δ.
    """
    design = correlated_design(5, rho=0.6, norm="linf", B=1.5, noise=0.2)
    n = 200_000
    X, y = design.sample(n, kernel_state(np.random.SeedSequence(77)))
    rng = np.random.default_rng(5)
    W = np.vstack([design.w_star, np.zeros(5), rng.normal(size=(3, 5)) * 0.4])
    exact = risk(W, design)
    for w, value in zip(W, exact, strict=True):
        R = np.linalg.norm(w) * design.x_bound_l2 + design.y_bound
        tol = R * R * math.sqrt(math.log(2 * len(W) / DELTA) / (2 * n))
        assert abs(np.mean((X @ w - y) ** 2) - value) <= tol


# --------------------------------------------------------------------------------------
# constrained optimum: references and KKT
# --------------------------------------------------------------------------------------

CASES = [
    # (seed, d, rank, in_range, radius factor relative to the unconstrained ‖w_true‖)
    (1, 4, None, True, 2.0),  # interior
    (2, 6, None, True, 0.3),  # boundary
    (3, 10, None, True, 0.6),  # boundary, larger d
    (4, 8, 3, True, 0.4),  # singular Σ, boundary
    (5, 8, 3, True, 50.0),  # singular Σ, interior (a flat direction)
    (6, 7, 2, False, 0.5),  # singular Σ with c off its range (optimum on the boundary)
    (7, 1, None, True, 0.5),  # d = 1
    (8, 9, 9, True, 1.0),  # near the boundary
]


@pytest.mark.parametrize("norm", ["l2", "l1"])
@pytest.mark.parametrize(("seed", "d", "rank", "in_range", "factor"), CASES)
def test_constrained_optimum_against_slsqp_and_kkt(seed, d, rank, in_range, factor, norm):
    sigma, c, s, w_true = _random_problem(seed, d, rank, in_range=in_range)
    moments = (sigma, c, s)
    B = factor * _ball_norm(w_true, norm)
    w, value = constrained_optimum(moments, B, norm=norm)
    scale = _scale(moments, B)
    # feasible, value consistent, and a KKT point (zero duality gap up to rounding)
    assert _ball_norm(w, norm) <= B * (1 + 1e-12)
    assert value == pytest.approx(risk(w, moments), rel=1e-14, abs=1e-14 * scale)
    assert _fw_gap(moments, w, B, norm) <= 1e-11 * scale
    # never worse than SLSQP's (feasible) answer, and close to it
    ref = min(risk(_slsqp(moments, B, norm, seed=k), moments) for k in range(2))
    assert value <= ref + 1e-11 * scale
    assert ref - value <= 1e-6 * scale
    # with Σ invertible the minimiser is unique, so the vectors agree too
    if rank is None or rank == d:
        cond = np.linalg.cond(sigma)
        np.testing.assert_allclose(w, _slsqp(moments, B, norm), atol=1e-5 * B * cond)


@pytest.mark.parametrize("norm", ["l2", "l1"])
def test_interior_and_boundary_structure(norm):
    sigma, c, s, w_true = _random_problem(11, 5)
    inside = _ball_norm(w_true, norm) * 1.5
    w, value = constrained_optimum((sigma, c, s), inside, norm=norm)
    np.testing.assert_allclose(w, w_true, rtol=1e-9, atol=1e-12)
    assert value == pytest.approx(s - w_true @ sigma @ w_true, rel=1e-12)
    w, _ = constrained_optimum((sigma, c, s), 0.2 * _ball_norm(w_true, norm), norm=norm)
    assert _ball_norm(w, norm) == pytest.approx(0.2 * _ball_norm(w_true, norm), rel=1e-12)


def test_closed_forms_with_identity_covariance():
    """Σ = I: the L2 optimum is c·min(1, B/‖c‖₂); the L1 optimum is the soft-thresholding
    of c at the level θ with Σ max(|c_i| − θ, 0) = B."""
    c = np.array([3.0, -1.0, 0.5, 0.0, -2.0])
    moments = (np.eye(5), c, 20.0)
    w, value = constrained_optimum(moments, 2.0, norm="l2")
    np.testing.assert_allclose(w, c * 2.0 / np.linalg.norm(c), rtol=1e-14, atol=1e-15)
    assert value == pytest.approx(4.0 - 2 * 2.0 * np.linalg.norm(c) + 20.0, rel=1e-14)
    # B = 3: θ solves (3 − θ) + (2 − θ) = 3 → θ = 1
    w, _ = constrained_optimum(moments, 3.0, norm="l1")
    np.testing.assert_allclose(w, [2.0, 0.0, 0.0, 0.0, -1.0], atol=1e-13)
    w, _ = constrained_optimum(moments, 100.0, norm="l1")
    np.testing.assert_allclose(w, c, atol=1e-13)


@pytest.mark.parametrize("norm", ["l2", "l1"])
def test_zero_and_rank_one_covariance(norm):
    # Σ = 0: a linear objective, minimised at the point of the ball most aligned with c
    c = np.array([0.5, -2.0, 1.0])
    w, value = constrained_optimum((np.zeros((3, 3)), c, 5.0), 2.0, norm=norm)
    if norm == "l2":
        np.testing.assert_allclose(w, 2.0 * c / np.linalg.norm(c), rtol=1e-14)
    else:
        np.testing.assert_allclose(w, [0.0, -2.0, 0.0], rtol=1e-14)
    assert value == pytest.approx(5.0 - 2 * w @ c, rel=1e-14)
    # c = 0: w = 0 is optimal
    w, value = constrained_optimum((np.eye(3), np.zeros(3), 1.0), 1.0, norm=norm)
    np.testing.assert_array_equal(w, 0.0)
    assert value == 1.0


@pytest.mark.parametrize(
    "design",
    [
        product_sign_design(7, norm="l2", B=2.0, noise=0.3),
        product_sign_design(7, norm="linf", B=0.5, noise=0.1),
        sparse_lasso_design(9, 3, B=1.5, noise=0.2),
        sparse_lasso_design(9, 3, B=1.5, noise=0.2, x_dist="uniform"),
        correlated_design(6, rho=0.5, norm="l2", B=1.0, noise=0.4),
        correlated_design(6, rho=1.0, norm="linf", B=1.0, noise=0.4),  # Σ of rank one
    ],
    ids=["prod-l2", "prod-linf", "sparse", "sparse-unif", "corr", "corr-rank1"],
)
def test_design_optimum_is_w_star(design):
    """Every design has w* in its ball and c = Σw*, so w* is optimal with risk (noise·B)²."""
    norm = "l2" if design.params.get("norm") == "l2" else "l1"
    B = design.y_bound
    w, value = constrained_optimum(design, B, norm=norm)
    expected = (design.params["noise"] * B) ** 2
    assert value == pytest.approx(expected, rel=1e-10, abs=1e-13)
    assert risk(w, design, half=True) == pytest.approx(expected / 2, rel=1e-10, abs=1e-13)
    np.testing.assert_allclose(w, design.w_star, atol=1e-9)


def test_larger_ill_conditioned_problem():
    rng = np.random.default_rng(3)
    d = 60
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    sigma = (Q * np.logspace(0, -8, d)) @ Q.T
    w_true = rng.normal(size=d)
    moments = (sigma, sigma @ w_true, float(w_true @ sigma @ w_true) + 0.1)
    for norm in ("l2", "l1"):
        B = 0.3 * _ball_norm(w_true, norm)
        w, _ = constrained_optimum(moments, B, norm=norm)
        assert _ball_norm(w, norm) <= B * (1 + 1e-12)
        assert _fw_gap(moments, w, B, norm) <= 1e-11 * _scale(moments, B)


# --------------------------------------------------------------------------------------
# excess risk
# --------------------------------------------------------------------------------------


def test_excess_risk_values_and_vectorisation():
    sigma, c, s, w_true = _random_problem(21, 6)
    moments = (sigma, c, s)
    B = 0.5 * np.linalg.norm(w_true)
    w_opt, value = constrained_optimum(moments, B, norm="l2")
    rng = np.random.default_rng(0)
    W = rng.normal(size=(4, 6)) * 0.1
    out = excess_risk(W, moments, B, norm="l2")
    assert out.shape == (4,)
    np.testing.assert_allclose(out, risk(W, moments) - value, rtol=1e-9, atol=1e-12)
    again = excess_risk(W, moments, B, norm="l2", optimum=(w_opt, value), half=True)
    np.testing.assert_allclose(again, out / 2, rtol=1e-14)
    assert excess_risk(w_opt, moments, B, norm="l2") == pytest.approx(0.0, abs=1e-13)
    assert isinstance(excess_risk(W[0], moments, B, norm="l2"), float)


def test_excess_risk_detects_a_wrong_optimum():
    """Planted defect: "project the unconstrained minimiser onto the ball" is not the
    constrained optimum when Σ is anisotropic; its excess risk must be clearly positive."""
    sigma = np.diag([10.0, 0.1])
    w_true = np.array([1.0, 1.0])
    moments = (sigma, sigma @ w_true, 20.0)
    naive = w_true / np.linalg.norm(w_true) * 0.5
    assert excess_risk(naive, moments, 0.5, norm="l2") > 1e-3
    naive_l1 = w_true / 2 * 0.5
    assert excess_risk(naive_l1, moments, 0.5, norm="l1") > 1e-3


@st.composite
def _feasible_problem(draw):
    d = draw(st.integers(1, 6))
    rank = draw(st.integers(1, d))
    seed = draw(st.integers(0, 2**32 - 1))
    norm = draw(st.sampled_from(["l2", "l1"]))
    radius = draw(st.floats(0.05, 10.0))
    sigma, c, s, _ = _random_problem(seed, d, rank, in_range=draw(st.booleans()) or rank == d)
    rng = np.random.default_rng(seed + 1)
    W = rng.normal(size=(5, d)) * rng.exponential(size=(5, 1))
    norms = np.linalg.norm(W, 2 if norm == "l2" else 1, axis=1)
    fractions = rng.uniform(0, 1, size=5) ** (1 / d)
    fractions[0] = 1.0  # one point on the sphere itself
    W = W * (radius * fractions / np.maximum(norms, 1e-300))[:, None]
    return (sigma, c, s), radius, norm, W


@settings(max_examples=60, deadline=None, database=None)
@given(_feasible_problem())
def test_excess_risk_is_nonnegative_on_the_ball(problem):
    moments, B, norm, W = problem
    out = excess_risk(W, moments, B, norm=norm)
    assert np.all(out >= -1e-10 * _scale(moments, B))


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def test_parameter_errors():
    sigma, c, s, _ = _random_problem(0, 3)
    good = (sigma, c, s)
    with pytest.raises(ParameterError, match="B must be >"):
        constrained_optimum(good, 0.0)
    with pytest.raises(ParameterError, match="B must be finite"):
        constrained_optimum(good, float("nan"))
    with pytest.raises(ParameterError, match="norm must be"):
        constrained_optimum(good, 1.0, norm="linf")
    with pytest.raises(ParameterError, match="tol must be >"):
        constrained_optimum(good, 1.0, tol=0.0)
    with pytest.raises(ParameterError, match="symmetric"):
        constrained_optimum((sigma + np.triu(np.ones((3, 3)), 1), c, s), 1.0)
    with pytest.raises(ParameterError, match="positive semi-definite"):
        constrained_optimum((-sigma, c, s), 1.0)
    with pytest.raises(ParameterError, match="square"):
        risk(np.zeros(3), (np.zeros((3, 2)), c, s))
    with pytest.raises(ParameterError, match="E\\[xy\\] must have length"):
        risk(np.zeros(3), (sigma, c[:2], s))
    with pytest.raises(ParameterError, match="E\\[y\\^2\\] must be >="):
        risk(np.zeros(3), (sigma, c, -1.0))
    with pytest.raises(ParameterError, match="NaN or infinite"):
        risk(np.array([0.0, np.nan, 1.0]), good)
    with pytest.raises(ParameterError, match="w must have d=3"):
        risk(np.zeros(4), good)
    with pytest.raises(ParameterError, match="moments must be a Design or a tuple"):
        risk(np.zeros(3), {"sigma": sigma})
    with pytest.raises(ParameterError, match="outside"):
        excess_risk(np.zeros(3), good, 1.0, norm="l2", optimum=(np.ones(3), 0.0))
    with pytest.raises(ParameterError, match="shape \\(d,\\) or \\(r, d\\)"):
        risk(np.zeros((2, 3, 3)), good)
    with pytest.raises(ParameterError, match="w must be numeric"):
        risk(["a", "b", "c"], good)


@pytest.mark.parametrize("norm", ["l2", "l1"])
@pytest.mark.parametrize("B", [0.05, 0.5, 20.0])
def test_diagonal_covariance_takes_its_own_decomposition(norm, B):
    """A diagonal Σ (with a zero variance) skips the eigen-solver: its optimum is the general path's, which the same
    problem in rotated coordinates (Σ' = RΣRᵀ, c' = Rc, rotation-invariant for L2) or with an off-diagonal entry of
    10⁻³⁰⁰ (numerically the same problem, through eigh, for L1) takes; and kinds.bound.excess_range's λ_max is the
    largest diagonal entry."""
    from theorycheck.kinds.bound import excess_range

    rng = np.random.default_rng(5)
    d = 7
    sigma = np.diag(rng.random(d))
    sigma[3, 3] = 0.0
    c = rng.standard_normal(d)
    c[3] = 0.0
    w, value = constrained_optimum((sigma, c, 4.0), B, norm=norm)
    if norm == "l2":
        R, _ = np.linalg.qr(rng.standard_normal((d, d)))
        w_ref, ref = constrained_optimum((R @ sigma @ R.T, R @ c, 4.0), B, norm=norm)
        np.testing.assert_allclose(R @ w, w_ref, atol=1e-12)
    else:
        nudged = sigma.copy()
        nudged[0, 1] = nudged[1, 0] = 1e-300
        w_ref, ref = constrained_optimum((nudged, c, 4.0), B, norm=norm)
        np.testing.assert_allclose(w, w_ref, atol=1e-10)
    assert value == pytest.approx(ref, rel=1e-12, abs=1e-14)
    top = excess_range("l2", (sigma, c, 4.0), B, w)
    reach = B + float(np.linalg.norm(w))
    expected = float(np.linalg.norm(sigma @ w - c)) * reach + 0.5 * float(np.linalg.eigvalsh(sigma)[-1]) * reach**2
    assert top == pytest.approx(min(expected, 2 * B * B), rel=1e-12)
