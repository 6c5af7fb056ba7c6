"""The sk13 algorithms: VarEst, MakePSD against scipy, greedy against brute force, selectors."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import minimize

from theorycheck.algorithms.sk13 import (
    AveragesSelector,
    CopiesSelector,
    CrowdAverageSelector,
    FullSelector,
    ScoringSelector,
    brute_force_repeats,
    crowd_statistics,
    external_covariance,
    full_objective,
    greedy_repeats,
    make_psd,
    r_loss,
    repeat_vectors,
    scoring_objective,
    var_est,
)
from theorycheck.generators.crowds import diagonal_crowd, table1_crowd
from theorycheck.validation import ParameterError


def test_var_est_is_exactly_unbiased_on_a_small_law():
    atoms, probs = (Fraction(-1), Fraction(1, 2), Fraction(1)), (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))
    mean = sum(a * p for a, p in zip(atoms, probs, strict=True))
    var = sum(p * (a - mean) ** 2 for a, p in zip(atoms, probs, strict=True))
    for n in (2, 3, 4):
        e = sum(np.prod([probs[i] for i in idx]) * var_est([atoms[i] for i in idx])
                for idx in itertools.product(range(3), repeat=n))
        assert e == var


def test_var_est_float_and_errors():
    x = np.array([[1.0, -1.0, 0.5], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(var_est(x), x.var(axis=1, ddof=1))
    with pytest.raises(ParameterError):
        var_est(np.array([1.0]))
    with pytest.raises(ParameterError):
        var_est([Fraction(1)])


def _scipy_nearest_psd(A, rng):
    n = A.shape[0]
    best = None
    for _ in range(4):
        res = minimize(lambda f: float(((f.reshape(n, n) @ f.reshape(n, n).T - A) ** 2).sum()), rng.normal(size=n * n),
                       method="BFGS", options={"gtol": 1e-12})
        L = res.x.reshape(n, n)
        value = float(np.linalg.norm(L @ L.T - A))
        best = value if best is None else min(best, value)
    return best


@pytest.mark.parametrize("seed", range(4))
def test_make_psd_against_scipy(seed):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(4, 4))
    A = 0.5 * (M + M.T)
    X = make_psd(A)
    assert np.linalg.eigvalsh(X)[0] >= -1e-12
    assert np.linalg.norm(A - X) <= _scipy_nearest_psd(A, rng) + 1e-6
    np.testing.assert_allclose(make_psd(X), X, atol=1e-12)  # identity on PSD inputs
    np.testing.assert_allclose(make_psd(A + np.triu(M, 1) - np.triu(M, 1).T), X, atol=1e-12)  # symmetric part


def test_make_psd_errors():
    with pytest.raises(ParameterError):
        make_psd(np.ones((2, 3)))
    with pytest.raises(ParameterError):
        make_psd(np.array([[np.inf]]))


def test_greedy_scoring_equals_brute_force_exactly():
    rng = np.random.default_rng(0)
    for _ in range(30):
        d, B = int(rng.integers(1, 5)), int(rng.integers(1, 6))
        b = [Fraction(int(rng.integers(-4, 5)), 4) for _ in range(d)]
        s2 = [Fraction(int(rng.integers(0, 5)), 4) for _ in range(d)]
        v = [Fraction(int(rng.integers(0, 5)), 4) for _ in range(d)]

        def obj(r, b=b, s2=s2, v=v):
            return scoring_objective(r, b, s2, v)
        r, path = greedy_repeats(obj, d, B)
        assert int(r.sum()) == B == len(path)
        assert obj(r) == brute_force_repeats(obj, d, B)[1]


def test_scoring_objective_closed_form_and_zero_terms():
    b, s2, v = np.array([0.5, -0.2, 0.3]), np.array([0.25, 0.0, 0.1]), np.array([0.5, 0.0, 0.2])
    r = np.array([2, 3, 0])
    assert scoring_objective(r, b, s2, v) == pytest.approx(0.25 / (0.25 + 0.25))  # 0/0 term counts 0


def test_full_objective_equals_scoring_for_diagonal_sigma():
    b, s2, v = [Fraction(1, 2), Fraction(-1, 3)], [Fraction(1, 4), Fraction(1, 2)], [Fraction(1, 2), Fraction(1)]
    S = [[s2[0], 0], [0, s2[1]]]
    for r in repeat_vectors(2, 4):
        assert full_objective(r, b, S, v) == scoring_objective(r, b, s2, v)
    Sf = np.array([[0.25, 0.0], [0.0, 0.5]])
    assert full_objective(np.array([1, 2]), np.array([0.5, -1 / 3]), Sf, np.array([0.5, 1.0])) == pytest.approx(
        float(scoring_objective([1, 2], b, s2, v)))


def test_repeat_vectors_with_costs():
    rs = list(repeat_vectors(2, 5, costs=[1, 4]))
    assert all(r[0] + 4 * r[1] <= 5 for r in rs) and len(rs) == 6 + 2


def test_statistics_follow_algorithm_one():
    rng = np.random.default_rng(1)
    J, y = rng.normal(size=(30, 3, 2)), rng.normal(size=30)
    s = crowd_statistics(J, y)
    xbar = J.mean(axis=2)
    np.testing.assert_allclose(s.b, (xbar * y[:, None]).mean(axis=0))
    np.testing.assert_allclose(s.v, ((J[:, :, 0] - J[:, :, 1]) ** 2 / 2).mean(axis=0))
    np.testing.assert_allclose(external_covariance(J), xbar.T @ xbar / 30 - np.diag(s.v / 2))
    sel = ScoringSelector(budget=4).fit(J, y)
    sigma2 = np.maximum(0, (xbar**2).mean(axis=0) - s.v / 2)
    r = np.array([1, 2, 1])
    on = r > 0
    assert sel.objective(r) == pytest.approx(float(np.sum(s.b[on] ** 2 / (sigma2[on] + s.v[on] / r[on]))))


@pytest.mark.parametrize("cls", [FullSelector, ScoringSelector, AveragesSelector, CopiesSelector])
def test_selectors_respect_the_budget_and_predict(cls):
    c = table1_crowd()
    s = c.sample(200, 2, 3)
    sel = cls(budget=15, costs=c.costs, fit_intercept=True).fit(s.J, s.y)
    assert int(c.costs @ sel.r_) <= 15
    sel.fit_predictor(c.means(s.mu, sel.r_, 4, J=s.J), s.y)
    assert np.all(sel.coef_[sel.r_ == 0] == 0)
    assert sel.predict(c.means(s.mu, sel.r_, 5)).shape == (200,)


def test_full_selects_well_on_a_diagonal_crowd():
    c = diagonal_crowd(np.array([0.9, 0.3, 0.5]), np.array([0.5, 0.0, 0.3]), noise=0.1)
    s = c.sample(20_000, 2, 0)
    for cls in (FullSelector, ScoringSelector):
        sel = cls(budget=4).fit(s.J, s.y)
        assert sel.r_[1] == 0


def test_selector_errors():
    with pytest.raises(ParameterError, match="k ≥ 2"):
        ScoringSelector(budget=3).fit(np.zeros((5, 2, 1)), np.zeros(5))
    with pytest.raises(ParameterError, match="labels"):
        FullSelector(budget=3).fit(np.zeros((5, 2, 2)), np.zeros(4))
    with pytest.raises(ParameterError, match="costs"):
        FullSelector(budget=3, costs=[1, 0]).fit(np.zeros((5, 2, 2)), np.zeros(5))
    with pytest.raises(ParameterError, match="fit"):
        ScoringSelector(budget=3).fit_predictor(np.zeros((5, 2)), np.zeros(5))


def test_r_loss_float_matches_the_exact_form_and_the_matrix_form():
    """Float r_loss on an (m, d, k) array = the exact path on the same dyadic data = the paper's
    matrix form wᵀΣ̂_r w − 2wᵀZ_r b̂ + yᵀy/m (Appendix A.2, before Lemma A.1)."""
    rng = np.random.default_rng(5)
    m, d, k = 7, 3, 3
    J = rng.integers(-4, 5, size=(m, d, k)) / 4.0
    y = rng.integers(-4, 5, size=m) / 4.0
    w = rng.integers(-8, 9, size=d) / 4.0
    for r in ([0, 1, 4], [2, 0, 0], [3, 3, 3], [0, 0, 0]):
        exact = r_loss([Fraction(x) for x in w], r, [[[Fraction(x) for x in J[i, a]] for a in range(d)]
                                                   for i in range(m)], [Fraction(x) for x in y])
        z = np.diag(np.array(r) > 0).astype(float)
        s = crowd_statistics(J, y)
        v_r = np.diag(np.where(np.array(r) > 0, s.v / np.maximum(r, 1), 0.0))
        sigma_r = z @ (s.second - np.diag(s.v / k) + v_r) @ z
        matrix = w @ sigma_r @ w - 2 * w @ z @ s.b + y @ y / m
        assert r_loss(w, np.array(r), J, y) == pytest.approx(float(exact), abs=1e-12)
        assert matrix == pytest.approx(float(exact), abs=1e-12)
    with pytest.raises(ParameterError):
        r_loss(w, np.array([1, -1, 0]), J, y)
    with pytest.raises(ParameterError):
        r_loss(w[:2], np.array([1, 1]), J, y)


def test_full_constant_feature_is_centring_plus_ybar_squared_when_nothing_is_clipped():
    """Without clipping, the constant feature's Schur complement is the centred estimate: obĵ_f
    with the constant = ȳ² + obĵ_f with centring, for every r, and the same r is chosen."""
    c = diagonal_crowd(np.array([0.8, 0.6, 0.5]), np.array([0.3, -0.2, 0.25]), noise=0.1)
    s = c.sample(20000, 2, np.random.default_rng(2))
    y = s.y + 0.3
    const = FullSelector(budget=4, fit_intercept=True, intercept="constant").fit(s.J + 0.25, y)
    centre = FullSelector(budget=4, fit_intercept=True, intercept="centre").fit(s.J + 0.25, y)
    assert np.linalg.eigvalsh(const.Sigma_)[0] > 0 and const.Sigma_.shape == (4, 4)
    for r in repeat_vectors(3, 4):
        assert const.objective(r) == pytest.approx(y.mean() ** 2 + centre.objective(r), abs=1e-12)
    np.testing.assert_array_equal(const.r_, centre.r_)
    with pytest.raises(ParameterError):
        FullSelector(budget=2, fit_intercept=True, intercept="mean").fit(s.J[:10], y[:10])


def test_crowd_average_buys_what_the_budget_allows_of_one_feature():
    c = table1_crowd()
    s = c.sample(200, 2, np.random.default_rng(1))
    a = c.names.index("height (numerical)")
    for B, expected in ((3, 0), (4, 1), (10, 2), (30, 7)):
        sel = CrowdAverageSelector(budget=B, costs=c.costs, fit_intercept=True, feature=a).fit(s.J, s.y)
        assert sel.r_[a] == expected and sel.r_.sum() == expected and c.costs @ sel.r_ <= B
    with pytest.raises(ParameterError):
        CrowdAverageSelector(budget=4, feature=12).fit(s.J, s.y)


def test_published_crowd_has_table_1s_ratios():
    """The Table 1 crowd of sk13.exp: v/σ equals the printed 'var' and b/σ is the printed 'height'
    column times one label scale λ, for all 39 attributes; judgments and labels stay in [−1, 1]."""
    from simulations.sk13 import TABLE1, published_crowd

    c = published_crowd()
    sd = np.sqrt(np.diag(c.Sigma))
    np.testing.assert_allclose(c.v / sd, [v for _, v, _ in TABLE1], rtol=1e-12)
    h = np.array([x for _, _, x in TABLE1])
    lam = (c.b / sd)[np.argmax(np.abs(h))] / h[np.argmax(np.abs(h))]
    np.testing.assert_allclose(c.b / sd, lam * h, atol=1e-15)
    assert c.is_diagonal and c.label_bound <= 1 + 1e-12 and c.judgment_bound <= 1 + 1e-12
    assert c.names == tuple(n for n, _, _ in TABLE1) and c.costs[c.names.index("height (numerical)")] == 4
