"""hk12 §4: GenEst (Procedure 3), the smoothed loss, AESVR (Algorithm 4) and their claims."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import erf
from sklearn.base import clone
from sklearn.svm import LinearSVR

from proofs.hk12_svr import capped_example_queries, capped_expected_queries, literal_expected_queries
from simulations.hk12_svr import smoothed_risk, svr_instance
from theorycheck import genest as est
from theorycheck.algorithms import AESVR
from theorycheck.algorithms.aesvr import (
    insensitive_loss,
    rho,
    smoothed_loss,
    smoothed_loss_derivative,
    smoothed_loss_second_derivative,
)
from theorycheck.bounds.hk12_svr import lemma41_second_moment_bound
from theorycheck.rng import as_kernel_state, next_index, next_uniform, next_weighted_index
from theorycheck.validation import ParameterError

W = np.array([0.5, -0.4, 0.45])
X = np.array([0.35, 0.3, -0.25])
Y = 0.3


# ---------------------------------------------------------------------- literal references


def literal_genest(w, x, y, coef, B, state):
    """Procedure 3 line by line, in Python, on the same stream as the kernel."""
    N = max(1, math.ceil(4 * Fraction(str(B)) ** 2))
    n = 0
    while next_uniform(state) < 0.5:  # line 2
        n += 1
    cumulative = np.cumsum(w * w)
    sq = float(w @ w)
    thetas, queries = [], 0
    first_branch = n <= 2 * math.log2(N)  # line 3
    for _ in range(n):
        draws = 1 if first_branch else N
        values = []
        for _s in range(draws):  # lines 5 / 10
            j = next_weighted_index(state, cumulative)
            values.append(sq * x[j] / w[j])
            queries += 1
        thetas.append(sum(values) / draws - y)  # lines 6 / 11
    a = coef[n] if n < len(coef) else 0.0
    return 2.0 ** (n + 1) * a * math.prod(thetas), queries  # line 14


def literal_aesvr(X, y, k, eta, B, delta, eps, w1, coef, gB, state):
    m, d = X.shape
    w, acc, per = w1.copy(), np.zeros(d), []
    for t in range(m):
        acc += w
        idx = [next_index(state, d) for _ in range(k)]
        xp = X[t] / eps
        e1, q1 = literal_genest(w, xp, (y[t] + delta) / eps, coef, gB, state)
        e2, q2 = literal_genest(w, xp, (y[t] - delta) / eps, coef, gB, state)
        phi = 0.5 * (e1 + e2)
        per.append(k + q1 + q2)
        for i in idx:
            w[i] -= eta * phi * (d / k) * X[t, i]
        nrm = np.linalg.norm(w)
        if nrm > B:
            w *= B / nrm
    return acc / m, np.array(per)


# ---------------------------------------------------------------------- GenEst


@pytest.mark.parametrize("B", [0.5, 1.0, 3.0])
def test_genest_kernel_replays_literal(B):
    coef = est.taylor_rho_prime(40)
    s1, s2 = as_kernel_state(11), as_kernel_state(11)
    for _ in range(3000):
        a = est.genest(W, X, Y, coef, B, random_state=s1)
        b = literal_genest(W, X, Y, coef, B, s2)
        assert a[1] == b[1]
        assert a[0] == pytest.approx(b[0], rel=1e-12, abs=1e-300)


def test_threshold_exact():
    for B in (0.5, 1, 1.5, 2, 3, 10, 100):
        N, nu = est.genest_threshold(B)
        assert N == math.ceil(4 * B * B)
        assert nu == max(n for n in range(200) if n <= 2 * math.log2(N) + 1e-12)


@pytest.mark.parametrize("B", [0.5, 1.0, 2.0, 3.0, 10.0, 1000.0])
def test_expected_queries_exact_and_at_most_3(B):
    N, nu = est.genest_threshold(B)
    value = est.genest_expected_queries(B)
    partial, tail = literal_expected_queries(N, nu, nu + 300)
    assert partial <= value <= partial + tail
    assert value <= 3


def test_polynomial_law_mean_and_moments():
    w, x, y = [Fraction(1, 2), Fraction(-1, 3), Fraction(1, 4)], [Fraction(1, 3), Fraction(1, 4), Fraction(-1, 2)], \
        Fraction(1, 5)
    coefs = [Fraction(1), Fraction(-2), Fraction(1, 2), Fraction(3)]
    law = est.genest_distribution(w, x, y, coefs, 1)
    theta = sum(a * b for a, b in zip(w, x, strict=True)) - y
    assert sum(p for p, *_ in law) == 1
    mean = sum(p * e for p, e, _ in law)
    assert mean == sum(a * theta**n for n, a in enumerate(coefs))
    second = sum(p * e * e for p, e, _ in law)
    m = est.genest_moments([float(v) for v in w], [float(v) for v in x], float(y), [float(a) for a in coefs], 1.0)
    assert m.mean == pytest.approx(float(mean), rel=1e-12)
    assert m.second_moment == pytest.approx(float(second), rel=1e-12)
    # the sampled mean agrees with the exact law (5 standard errors)
    n = 400_000
    s = est.genest.moments(np.array(w, float), np.array(x, float), float(y), np.array(coefs, float), 1.0, n,
                           random_state=3)
    sd = math.sqrt(float(second - mean * mean) / n)
    assert abs(s.total / n - float(mean)) <= 5 * sd


@pytest.mark.parametrize("name,make,f", [("exp", est.taylor_exp, np.exp), ("sin", est.taylor_sin, np.sin),
                                         ("erf", est.taylor_rho_prime, erf)])
def test_moments_mean_is_derivative_and_sampled(name, make, f):
    coef = make(40)
    m = est.genest_moments(W, X, Y, coef, 1.0)
    assert m.mean == pytest.approx(f(m.theta), abs=1e-14)
    n = 400_000
    s = est.genest.moments(W, X, Y, coef, 1.0, n, random_state=7)
    sd = math.sqrt((m.second_moment - m.mean**2) / n)
    assert abs(s.total / n - m.mean) <= 5 * sd
    assert s.squares / n == pytest.approx(m.second_moment, rel=0.1)


@pytest.mark.parametrize("B", [1.0, 2.0, 3.0])
def test_sampled_queries_match_exact(B):
    N, nu = est.genest_threshold(B)
    n = 400_000
    s = est.genest.moments(W, X, Y, est.taylor_rho_prime(40), B, n, random_state=9, cap=64)
    exact = float(capped_expected_queries(N, nu, 64))
    sd = math.sqrt(max(s.queries_squares / n - (s.queries / n) ** 2, 1e-12) / n)
    assert abs(s.queries / n - exact) <= 5 * sd


def test_genest_at_zero_w_reads_nothing():
    _, q = est.genest(np.zeros(3), X, Y, est.taylor_exp(), 1.0, random_state=1)
    assert q == 0
    assert est.genest_expected_queries(1.0, w_is_zero=True) == 0


def test_second_moment_erratum():
    """The printed bound fails for erf at θ = 2B, B = 3 (exact moments of a truncated series,
    a lower bound of the full one)."""
    coef = est.taylor_rho_prime(40)
    m = est.genest_moments(np.array([3.0, 0.0]), np.array([1.0, 0.0]), -3.0, coef, 3.0)
    assert m.theta == 6.0
    assert m.second_moment > lemma41_second_moment_bound(3.0, np.abs(coef).sum())


def test_coefficients():
    a = est.taylor_rho_prime(30)
    x = np.linspace(-1, 1, 11)
    assert np.allclose(np.polynomial.polynomial.polyval(x, a), erf(x), atol=1e-15)
    assert np.allclose(np.polynomial.polynomial.polyval(x, est.taylor_sin(30)), np.sin(x), atol=1e-15)
    assert np.allclose(np.polynomial.polynomial.polyval(x, est.taylor_exp(30)), np.exp(x), rtol=1e-15)


# ---------------------------------------------------------------------- the smoothed loss


def test_smoothed_loss_derivatives_and_gap():
    r = np.linspace(-3, 3, 2001)
    delta, eps = 0.3, 0.2
    h = 1e-5
    num = (smoothed_loss(r + h, delta, eps) - smoothed_loss(r - h, delta, eps)) / (2 * h)
    assert np.allclose(num, smoothed_loss_derivative(r, delta, eps), atol=1e-8)
    num2 = (smoothed_loss_derivative(r + h, delta, eps) - smoothed_loss_derivative(r - h, delta, eps)) / (2 * h)
    assert np.allclose(num2, smoothed_loss_second_derivative(r, delta, eps), atol=1e-6)
    gap = smoothed_loss(r, delta, eps) - insensitive_loss(r, delta)
    assert gap.min() >= -1e-15 and gap.max() <= eps / math.sqrt(math.pi) + 1e-15
    assert rho(0.0) == pytest.approx(1 / math.sqrt(math.pi))


# ---------------------------------------------------------------------- AESVR


@pytest.mark.parametrize("eps", [1.0, 0.5])
def test_aesvr_kernel_replays_literal(eps):
    rng = np.random.default_rng(0)
    Xd = rng.normal(size=(150, 4)) / 2.5
    yd = np.clip(Xd @ np.array([0.5, -0.3, 0.2, 0.1]) + 0.1 * rng.normal(size=150), -1, 1)
    model = AESVR(k=2, B=1.0, delta=0.1, eps=eps, random_state=5).fit(Xd, yd)
    from theorycheck.rng import as_kernel_state as aks
    state = aks(5)
    w1 = np.full(4, 1e-3 / 2)
    wbar, per = literal_aesvr(Xd, yd, 2, model.eta_, 1.0, 0.1, eps, w1, est.taylor_rho_prime(60), 2.0 / eps, state)
    assert np.allclose(model.coef_, wbar, rtol=1e-10, atol=1e-13)
    assert np.array_equal(model.queries_per_example_, per)
    assert model.n_attributes_seen_ == per.sum()


def test_aesvr_sklearn_and_validation():
    rng = np.random.default_rng(1)
    Xd, yd = rng.normal(size=(40, 3)) / 2, rng.uniform(-1, 1, 40)
    model = AESVR(k=1, random_state=0)
    assert clone(model).get_params() == model.get_params()
    assert model.fit(Xd, yd).predict(Xd).shape == (40,)
    for bad in ({"delta": 2.0}, {"eps": 0.0}, {"k": 5}, {"n_terms": 0}):
        with pytest.raises(ParameterError):
            AESVR(**bad).fit(Xd, yd)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_exact_optimum_beats_linear_svr():
    X_, y_, inst = svr_instance(4, 24, 1.0, 0.3, 1.0, 0.1)
    svr = LinearSVR(epsilon=0.1, C=1e4, fit_intercept=False, loss="epsilon_insensitive", max_iter=200_000,
                    tol=1e-10).fit(X_, y_)
    risk = float(np.mean(insensitive_loss(X_ @ svr.coef_ - y_, 0.1)))
    assert inst["min_plain"] <= risk + 1e-12
    assert risk - inst["min_plain"] < 1e-2  # LinearSVR's C-regularised dual solution is near the LP optimum
    assert inst["min_smooth"] <= smoothed_risk(X_, y_, np.zeros(4), 1.0, 0.1)


def test_instance_bounds_every_excess_in_the_ball_and_is_not_vacuous():
    rng = np.random.default_rng(5)
    for d in (4, 8, 16):
        X_, y_, inst = svr_instance(d, 48, 1.0, 0.05, 0.5, 0.1)
        assert inst["data_ok"]
        for _ in range(200):
            w = rng.normal(size=d)
            w *= rng.uniform() ** (1 / d) / np.linalg.norm(w)
            excess = float(np.mean(insensitive_loss(X_ @ w - y_, 0.1))) - inst["min_plain"]
            assert -1e-9 <= excess <= inst["upper"]
        start = np.full(d, 1e-3 / math.sqrt(d))
        assert float(np.mean(insensitive_loss(X_ @ start - y_, 0.1))) - inst["min_plain"] > 0.5 + 0.1


@pytest.mark.parametrize(("B", "k", "cap"), [(2.0, 1, 256), (4.0, 2, 256), (4.0, 1, 40), (16.0, 3, 2000)])
def test_capped_example_queries_matches_the_double_sum(B, k, cap):
    N, nu = est.genest_threshold(B)
    q = [n if n <= nu else n * N for n in range(70)]
    literal = sum(min(k + q[a] + q[b], cap) / 2.0 ** (a + b + 2) for a in range(70) for b in range(70))
    assert float(capped_example_queries(N, nu, k, cap)) == pytest.approx(literal, rel=1e-12)


def test_capped_example_queries_tends_to_the_uncapped_expectation():
    N, nu = est.genest_threshold(4.0)
    exact = 1 + 2 * est.genest_expected_queries(4.0)
    assert exact - float(capped_example_queries(N, nu, 1, 100_000)) < 1e-9


# ---------------------------------------------------------------------- the claims


@pytest.mark.parametrize("claim_id", ["hk12.lemma4.1", "hk12.claim4.2", "hk12.claim4.3", "hk12.thm4.4"])
def test_claims_pass_quick(run_claim, claim_id):
    assert run_claim(claim_id)["verdict"] == "PASS"


def test_long_series_and_large_arguments_do_not_overflow():
    a = est.taylor_rho_prime(800)
    assert np.all(np.isfinite(a)) and a[1] == pytest.approx(2 / math.sqrt(math.pi))
    m = est.genest_moments(np.array([1.0, 0.0]), np.array([1.5, 0.0]), -1.5, a, 2.0)
    assert m.mean == pytest.approx(erf(3.0), abs=1e-10)
    # θ = 16: the float series of the mean cancels catastrophically (documented), but nothing raises
    m = est.genest_moments(np.array([1.0, 0.0]), np.array([8.0, 0.0]), -8.0, a, 16.0)
    assert m.second_moment > 1e100


def test_aesvr_passes_sklearn_checks():
    """All of scikit-learn's checks but check_estimators_nan_inf, which plants one NaN that AESVR may never read
    (X is checked where it is read, as the other attribute-efficient learners: see the test below)."""
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(AESVR(), on_fail=None)
    assert [r["check_name"] for r in results if r["status"] == "failed"] in ([], ["check_estimators_nan_inf"])


def test_aesvr_checks_x_where_it_reads_it():
    """No pass over X in fit: a watched view sees no read by the built-in's validation (its kernel's reads are
    its counter's, audited above). One NaN planted at (t, j) either raises naming example t (a uniform draw or
    GenEst's estimate met it) or, never read, leaves the fit bit for bit the clean one; both happen."""
    from theorycheck.observe import observed_call

    rng = np.random.default_rng(2)
    Xd = rng.normal(size=(60, 6)) / 3.0
    yd = np.clip(Xd @ np.array([0.5, -0.3, 0.2, 0.1, 0.0, 0.0]), -1, 1)
    clean, read, bulk = observed_call(lambda v: AESVR(k=1, eps=0.5, random_state=3).fit(v, yd), Xd)
    assert not read.any() and not bulk
    outcomes = set()
    for t, j in itertools.product((0, 17, 59), range(6)):
        bad = Xd.copy()
        bad[t, j] = np.nan
        try:
            coef = AESVR(k=1, eps=0.5, random_state=3).fit(bad, yd).coef_
        except ParameterError as err:
            assert f"example {t}" in str(err)
            outcomes.add("raised")
        else:
            np.testing.assert_array_equal(coef, clean.coef_)
            outcomes.add("unread")
    assert outcomes == {"raised", "unread"}


@pytest.mark.parametrize("cells_k", [(1,), (1, 9)])
def test_thm44_rejects_unpaired_cells_before_any_run(run_claim, cells_k):
    with pytest.raises(ParameterError, match="cells_d and cells_k"):
        run_claim("hk12.thm4.4", cells_k=cells_k)
