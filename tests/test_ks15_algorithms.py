"""Tests of the ks15 learners (theorycheck.algorithms.ks15).

As in tests/test_algorithms.py, every kernel is compared with a slow, literal reference that
follows the boxes line by line and consumes the same random stream (the same jitted generators
of theorycheck.rng, in the same order, on a copy of the same state).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from theorycheck.algorithms import (
    AELR,
    AERR,
    DDAELR,
    DDAERR,
    GAELR,
    GAERR,
    TwoPhaseDDAELR,
    TwoPhaseDDAERR,
    phase_one_moments,
)
from theorycheck.algorithms.aelr import theta_for
from theorycheck.bounds import ks15 as bounds
from theorycheck.rng import kernel_state, next_index, next_weighted_index
from theorycheck.validation import ParameterError


def _state(seed):
    return kernel_state(np.random.SeedSequence(seed))


def _data(m, d, seed, decay=1.0):
    """Rows with ‖x‖₂ ≤ 1 whose second moments decay like i^(−decay); |y| ≤ 1."""
    rng = np.random.default_rng(seed)
    scale = np.arange(1, d + 1) ** (-decay / 2)
    X = rng.uniform(-1.0, 1.0, size=(m, d)) * scale
    X /= np.sqrt((scale**2).sum())
    y = np.clip(X @ rng.normal(size=d) + 0.1 * rng.normal(size=m), -1.0, 1.0)
    return X, y


# ---------------------------------------------------------------------------------------
# literal references


def _draw_datapoint(x, k, q, state):
    d = x.shape[0]
    xt, read = np.zeros(d), set()
    for _ in range(k):
        i = next_index(state, d) if q is None else next_weighted_index(state, np.cumsum(q))
        xt[i] += x[i] * (d if q is None else 1.0 / q[i])
        read.add(i)
    return xt / k, read


def _inner(w, x, y, weights, draws, state, read):
    total = weights.sum()
    if total <= 0:
        return -y
    est = 0.0
    for _ in range(draws):
        j = next_weighted_index(state, np.cumsum(weights))
        read.add(j)
        est += w[j] / (weights[j] / total) * x[j]
    return est / draws - y


def ref_gaerr(X, y, k, eta, B, w1, state, q=None, c=None, draws=1):
    """ks15 Algorithm 1 literally (plus the inner-product options); (w̄, attributes read)."""
    w = np.array(w1, dtype=float)
    iterates, n_read = [], 0
    for t in range(X.shape[0]):
        iterates.append(w.copy())
        x = X[t]
        xt, read = _draw_datapoint(x, k, q, state)
        weights = w**2 if c is None else np.abs(w) * c
        phi = _inner(w, x, y[t], weights, draws, state, read)
        v = w - eta * phi * xt
        w = v * B / max(np.linalg.norm(v), B)
        n_read += len(read)
    return np.mean(iterates, axis=0), n_read


def ref_gaelr(X, y, k, eta, B, theta0, state, q=None, c=None, draws=1):
    """ks15 Algorithm 3 (supplement) literally, z± rescaled by a common factor after each step."""
    zp, zm = np.exp(theta0), np.exp(-theta0)
    iterates, n_read = [], 0
    for t in range(X.shape[0]):
        w = (zp - zm) * B / (zp.sum() + zm.sum())
        iterates.append(w)
        x = X[t]
        xt, read = _draw_datapoint(x, k, q, state)
        weights = np.abs(w) if c is None else np.abs(w) * c
        phi = _inner(w, x, y[t], weights, draws, state, read)
        g = np.clip(phi * xt, -1.0 / eta, 1.0 / eta)
        zp, zm = zp * np.exp(-eta * g), zm * np.exp(eta * g)
        top = max(zp.max(), zm.max())
        zp, zm = zp / top, zm / top
        n_read += len(read)
    return np.mean(iterates, axis=0), n_read


def ref_phase_one(X, draws, state):
    d = X.shape[1]
    counts, sums, n_read = np.zeros(d), np.zeros(d), 0
    for x in X:
        read = set()
        for _ in range(draws):
            i = next_index(state, d)
            counts[i] += 1
            sums[i] += x[i] ** 2
            read.add(i)
        n_read += len(read)
    return counts, sums, n_read


# ---------------------------------------------------------------------------------------
# the general learners against the references


def test_uniform_q_is_aerr_and_aelr_draw_for_draw():
    X, y = _data(300, 9, seed=1)
    for seed in range(3):
        a, g = AERR(k=3, random_state=seed).fit(X, y), GAERR(k=3, random_state=seed).fit(X, y)
        assert np.array_equal(a.coef_, g.coef_) and a.n_attributes_seen_ == g.n_attributes_seen_
        a, g = AELR(k=3, B=2.0, random_state=seed).fit(X, y), GAELR(k=3, B=2.0, random_state=seed).fit(X, y)
        assert np.array_equal(a.coef_, g.coef_) and a.n_attributes_seen_ == g.n_attributes_seen_


@pytest.mark.parametrize("improved", [False, True])
@pytest.mark.parametrize("draws", [1, 3])
def test_gaerr_matches_reference(improved, draws):
    m, d, k, eta, B = 200, 7, 2, 0.2, 1.0
    X, y = _data(m, d, seed=2)
    rng = np.random.default_rng(5)
    q = rng.dirichlet(np.ones(d))
    c = rng.uniform(0.1, 1.0, d) if improved else None
    w1 = np.linspace(-1.0, 1.0, d) / 4
    model = GAERR(k=k, B=B, eta=eta, q=q, inner_weights=c, inner_draws=draws, w_init=w1,
                  random_state=11).fit(X, y)
    wbar, n_read = ref_gaerr(X, y, k, eta, B, w1, _state(11), q=q, c=c, draws=draws)
    np.testing.assert_allclose(model.coef_, wbar, rtol=1e-9, atol=1e-12)
    assert model.n_attributes_seen_ == n_read <= (k + draws) * m


@pytest.mark.parametrize("improved", [False, True])
@pytest.mark.parametrize("draws", [1, 2])
def test_gaelr_matches_reference(improved, draws):
    m, d, k, eta, B = 250, 6, 3, 0.3, 2.0
    X, y = _data(m, d, seed=3)
    rng = np.random.default_rng(6)
    q = rng.dirichlet(np.ones(d))
    c = rng.uniform(0.1, 1.0, d) if improved else None
    model = GAELR(k=k, B=B, eta=eta, q=q, inner_weights=c, inner_draws=draws, random_state=12).fit(X, y)
    wbar, n_read = ref_gaelr(X, y, k, eta, B, np.zeros(d), _state(12), q=q, c=c, draws=draws)
    np.testing.assert_allclose(model.coef_, wbar, rtol=1e-9, atol=1e-12)
    assert model.n_attributes_seen_ == n_read <= (k + draws) * m


def test_gaelr_warm_start_is_the_given_iterate():
    d, B = 5, 1.5
    w = np.array([0.3, -0.2, 0.0, 0.5, -0.4])
    X, y = _data(40, d, seed=4)
    model = GAELR(k=2, B=B, eta=1e-12, w_init=w, random_state=0, record_trajectory=True).fit(X, y)
    np.testing.assert_allclose(model.trajectory_["w"][0], w, rtol=1e-12, atol=1e-15)
    wbar, _ = ref_gaelr(X, y, 2, 0.05, B, theta_for(w, B), _state(9))
    fast = GAELR(k=2, B=B, eta=0.05, w_init=w, random_state=9).fit(X, y)
    np.testing.assert_allclose(fast.coef_, wbar, rtol=1e-9, atol=1e-12)
    with pytest.raises(ParameterError):
        GAELR(B=1.0, w_init=np.array([0.6, 0.4, 0, 0, 0])).fit(X, y)  # ‖w‖₁ = B: no finite θ


def test_zero_probability_attributes_are_never_read():
    m, d = 300, 6
    X, y = _data(m, d, seed=5)
    q = np.array([0.5, 0.5, 0, 0, 0, 0])
    model = GAERR(k=2, q=q, inner_weights=np.array([1.0, 1.0, 0, 0, 0, 0]), w_init=np.full(d, 0.1),
                  random_state=1, record_trajectory=True).fit(X, y)
    assert set(np.unique(model.trajectory_["coordinates"])) <= {0, 1}
    assert set(np.unique(model.trajectory_["j"])) <= {0, 1}


def test_gradient_estimate_unbiased_for_any_q():
    """E[g̃_1] = (⟨w_1, x⟩ − y)·x for q far from uniform, with the improved inner product: the
    mean of 40 000 recorded first steps is within 5 standard errors on each coordinate (a
    two-sided z-test; the chance of a false alarm is below 10⁻⁵ over the d coordinates)."""
    n = 40_000
    x, y = np.array([[0.5, -0.3, 0.2, 0.6]]), np.array([0.4])
    w1 = np.array([0.2, -0.5, 0.1, 0.3])
    q = np.array([0.1, 0.2, 0.3, 0.4])
    c = np.array([1.0, 0.2, 3.0, 0.5])
    gs = np.array([GAERR(k=2, eta=0.1, q=q, inner_weights=c, w_init=w1, random_state=s,
                         record_trajectory=True).fit(x, y).trajectory_["g"][0] for s in range(n)])
    target = (w1 @ x[0] - y[0]) * x[0]
    z = (gs.mean(axis=0) - target) / (gs.std(axis=0, ddof=1) / math.sqrt(n))
    assert np.all(np.abs(z) < 5.0), z


# ---------------------------------------------------------------------------------------
# distribution-dependent and two-phase learners


def test_ddaerr_and_ddaelr_use_the_optimal_q_and_the_theorems_eta():
    m, d, k = 400, 8, 2
    X, y = _data(m, d, seed=7)
    s = (X**2).mean(axis=0)
    ridge = DDAERR(k=k, second_moments=s, random_state=0).fit(X, y)
    np.testing.assert_allclose(ridge.q_, np.sqrt(s) / np.sqrt(s).sum())
    assert ridge.eta_ == pytest.approx(1 / math.sqrt(m * (np.sqrt(s).sum() ** 2 / k + 1)))
    assert ridge.eta_ == bounds.thm33_eta(s, k, m)  # the learner's shortcut is the bound's formula, bit for bit
    same = GAERR(k=k, q=ridge.q_, eta=ridge.eta_, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ridge.coef_, same.coef_)
    lasso = DDAELR(k=k, second_moments=s, random_state=0).fit(X, y)
    np.testing.assert_allclose(lasso.q_, s / s.sum())
    assert lasso.eta_ == bounds.thm44_eta(s, k, m, 1.0)
    improved = DDAERR(k=k, second_moments=s, improved_inner=True, eta=0.1, random_state=3).fit(X, y)
    wbar, _ = ref_gaerr(X, y, k, 0.1, 1.0, np.full(d, 1e-3 / math.sqrt(d)), _state(3), q=ridge.q_, c=np.sqrt(s))
    np.testing.assert_allclose(improved.coef_, wbar, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls", [TwoPhaseDDAERR, TwoPhaseDDAELR])
def test_two_phase_matches_reference(cls):
    m, d, k, m1, delta, eta = 300, 6, 2, 60, 0.1, 0.05
    X, y = _data(m, d, seed=8)
    model = cls(k=k, m1=m1, delta=delta, eta=eta, random_state=13).fit(X, y)
    state = _state(13)
    counts, sums, read1 = ref_phase_one(X[:m1], k + 1, state)
    A = np.divide(sums, counts, out=np.zeros(d), where=counts > 0)
    np.testing.assert_allclose(model.moments_estimate_, A)
    ridge = cls is TwoPhaseDDAERR
    eps = d * math.log(2 * d / delta) / ((k + 1) * m1)
    eps = eps if ridge else min(eps, 1.0)
    assert model.epsilon_ == pytest.approx(eps)
    weights = np.sqrt(A + 13 * eps / 6) if ridge else A + 13 * eps / 6
    q = weights / weights.sum()
    np.testing.assert_allclose(model.q_, q)
    if ridge:
        wbar, read2 = ref_gaerr(X[m1:], y[m1:], k, eta, 1.0, np.full(d, 1e-3 / math.sqrt(d)), state, q=q)
        assert model.H_ == pytest.approx(np.sqrt(2 * A + 10 * eps / 3).sum() ** 2)
    else:
        wbar, read2 = ref_gaelr(X[m1:], y[m1:], k, eta, 1.0, np.zeros(d), state, q=q)
    np.testing.assert_allclose(model.coef_, wbar, rtol=1e-9, atol=1e-12)
    assert model.n_attributes_seen_ == read1 + read2
    assert (model.m1_, model.m2_) == (m1, m - m1)


def test_two_phase_defaults_and_experiment_settings():
    m, d, k = 1000, 6, 2
    X, y = _data(m, d, seed=9)
    model = TwoPhaseDDAERR(k=k, random_state=0).fit(X, y)
    assert model.m1_ == m // 10
    expected = bounds.thm34_eta(d, k, model.m1_, model.m2_, 0.1, model.H_)
    assert model.eta_ == pytest.approx(expected)
    lasso = TwoPhaseDDAELR(k=k, random_state=0).fit(X, y)
    assert lasso.eta_ == pytest.approx(bounds.thm45_eta(lasso.moments_estimate_, d, k, lasso.m1_, lasso.m2_, 0.1, 1.0))
    exp = TwoPhaseDDAERR(k=k, smoothing=0.0, warm_start=True, improved_inner=True, inner_draws=2,
                         eta=0.05, random_state=4).fit(X, y)
    assert exp.epsilon_ == 0.0
    assert exp.n_attributes_seen_ <= (k + 2) * m
    # phase 1 is AERR: its uniform data-point draws give the moment estimate, its output the start
    state = _state(4)
    aerr = GAERR(k=k, inner_draws=2, eta=math.sqrt(k / (2 * d * 100)), random_state=state).fit(X[:100], y[:100])
    phase2 = GAERR(k=k, q=exp.q_, inner_weights=np.sqrt(exp.moments_estimate_), inner_draws=2, eta=0.05,
                   w_init=aerr.coef_, random_state=state).fit(X[100:], y[100:])
    np.testing.assert_allclose(exp.coef_, phase2.coef_, rtol=1e-12)
    assert exp.n_attributes_seen_ == aerr.n_attributes_seen_ + phase2.n_attributes_seen_


def test_two_phase_lasso_improved_inner_uses_root_moments_and_eta1():
    """Both two-phase learners draw the improved inner product ∝ |w_j|·√(A_j + 13ε/6), the estimate of
    √E[x_j²] (the Lasso q uses A + 13ε/6 itself); eta1 sets the phase-1 learner's step."""
    m, d, k = 600, 6, 2
    X, y = _data(m, d, seed=11)
    exp = TwoPhaseDDAELR(k=k, smoothing=0.0, warm_start=True, eta1=0.2, improved_inner=True, eta=0.05,
                         random_state=4).fit(X, y)
    state = _state(4)
    aelr = GAELR(k=k, eta=0.2, random_state=state).fit(X[:60], y[:60])
    phase2 = GAELR(k=k, q=exp.q_, inner_weights=np.sqrt(exp.moments_estimate_), eta=0.05, w_init=aelr.coef_,
                   random_state=state).fit(X[60:], y[60:])
    np.testing.assert_allclose(exp.coef_, phase2.coef_, rtol=1e-12)
    np.testing.assert_allclose(exp.q_, exp.moments_estimate_ / exp.moments_estimate_.sum())


def test_phase_one_moments_matches_reference():
    X, _ = _data(50, 5, seed=10)
    counts, sums, n_read = phase_one_moments(X, 3, random_state=_state(2))
    ref = ref_phase_one(X, 3, _state(2))
    np.testing.assert_array_equal(counts, ref[0])
    np.testing.assert_allclose(sums, ref[1])
    assert n_read == ref[2]


_X, _Y = _data(20, 4, seed=0)


@pytest.mark.parametrize(
    "estimator",
    [
        GAERR(q=np.array([0.5, 0.5, 0.5, -0.5])),
        GAERR(q=np.array([0.3, 0.3, 0.3, 0.3])),
        GAERR(q=np.ones(3) / 3),
        GAERR(inner_weights=np.array([1.0, -1.0, 1.0, 1.0])),
        GAERR(inner_draws=0),
        GAELR(w_init=np.ones(4)),
        DDAERR(),
        DDAERR(second_moments=np.zeros(4)),
        DDAELR(second_moments=np.array([1.0, np.nan, 1.0, 1.0])),
        DDAERR(second_moments=np.ones(4), improved_inner="yes"),
        TwoPhaseDDAERR(m1=20),
        TwoPhaseDDAERR(m1=0),
        TwoPhaseDDAERR(delta=1.5),
        TwoPhaseDDAELR(smoothing=-1.0),
        TwoPhaseDDAELR(warm_start=1),
        TwoPhaseDDAERR(warm_start=True, eta1=0.0),
    ],
)
def test_bad_inputs_raise_parameter_error(estimator):
    with pytest.raises(ParameterError):
        estimator.fit(_X, _Y)


# check_estimators_nan_inf plants one NaN the learner may never read; X is checked where it is read
# (tests/test_algorithms.py::test_non_finite_attributes_* shows what happens instead)
@parametrize_with_checks([GAERR(), GAELR(), TwoPhaseDDAERR(), TwoPhaseDDAELR()], expected_failed_checks=lambda _: {
    "check_estimators_nan_inf": "X is checked where it is read; the planted NaN may be unread"})
def test_sklearn_compatible(estimator, check):
    check(estimator)
