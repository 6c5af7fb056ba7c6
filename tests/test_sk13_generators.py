"""The sk13 crowd generator: kernels against the exact law (binary crowds), moments, bad inputs."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from theorycheck.generators.crowds import (
    binary_object_law,
    correlated_crowd,
    crowd,
    diagonal_crowd,
    table1_crowd,
)
from theorycheck.validation import ParameterError

A = np.array([[0.5, 0.25, 0.0], [0.25, 0.0, -0.625]])
BETA = np.array([0.5, -0.25])


def _exact(reps, noise=0.25):
    """Slow reference: E[X̄X̄ᵀ], E[X̄Y], E[Y²] by enumerating every outcome of one object."""
    second, cross, y2 = np.zeros((2, 2), dtype=object), np.zeros(2, dtype=object), Fraction(0)
    second[:] = Fraction(0)
    cross[:] = Fraction(0)
    for q, judgments, y in binary_object_law(A, BETA, noise, reps):
        xbar = [sum(j, Fraction(0)) / len(j) for j in judgments]
        second += q * np.outer(xbar, xbar)
        cross += q * np.array(xbar) * y
        y2 += q * y * y
    return second, cross, y2


def test_exact_law_matches_the_declared_moments():
    c = crowd(A, beta=BETA, noise=0.25)
    for reps in ((1, 1), (2, 3), (4, 1)):
        second, cross, y2 = _exact(reps)
        np.testing.assert_allclose(second.astype(float), c.sigma_r(np.array(reps)), atol=1e-15)
        np.testing.assert_allclose(cross.astype(float), c.b, atol=1e-15)
        assert float(y2) == pytest.approx(c.y_second_moment, abs=1e-15)


def test_kernel_frequencies_match_the_exact_law():
    """Monte Carlo of the jitted kernels against the enumerated law of the sums of judgments."""
    c = crowd(A, beta=BETA, noise=0.25)
    reps = np.array([2, 1])
    law = {}
    for q, judgments, y in binary_object_law(A, BETA, 0.25, reps):
        key = (sum(judgments[0]), sum(judgments[1]), y)
        law[key] = law.get(key, 0) + q
    n = 200_000
    mu, y = c.objects(n, 7)
    sums = c.judgment_sums(mu, reps, 8)
    keys = list(zip(sums[:, 0].round().astype(int), sums[:, 1].round().astype(int), y, strict=True))
    counts = {}
    for k in keys:
        kk = (Fraction(int(k[0])), Fraction(int(k[1])), Fraction(k[2]))
        counts[kk] = counts.get(kk, 0) + 1
    assert set(counts) <= set(law)
    for key, q in law.items():  # 5-sigma binomial band per outcome
        p = float(q)
        assert abs(counts.get(key, 0) / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12, key


def test_real_valued_judgments_have_the_declared_internal_variance():
    c = diagonal_crowd(np.array([0.5, 0.6]), np.array([0.3, 0.2]), spread=np.array([0.4, 0.0]),
                       binary=np.array([False, True]))
    s = c.sample(100_000, 3, 3)
    v_hat = s.J.var(axis=2, ddof=1).mean(axis=0)
    np.testing.assert_allclose(v_hat, c.v, atol=0.01)
    assert np.abs(s.J).max() <= 1.0 and np.abs(s.y).max() <= 1.0


def test_streams_are_reproducible_and_continue():
    c = table1_crowd()
    a, b = c.sample(50, 2, 5), c.sample(50, 2, 5)
    np.testing.assert_array_equal(a.J, b.J)
    state = np.array([1, 2], dtype=np.uint64)
    first = c.objects(3, state)[1]
    assert not np.array_equal(first, c.objects(3, state)[1])


def test_top_up_keeps_the_training_judgments():
    c = table1_crowd()
    s = c.sample(20, 2, 1)
    r = np.zeros(c.d, dtype=np.int64)
    r[0], r[1] = 1, 2
    means = c.means(s.mu, r, 2, J=s.J)
    np.testing.assert_array_equal(means[:, 0], s.J[:, 0, 0])
    np.testing.assert_array_equal(means[:, 1], s.J[:, 1, :2].mean(axis=1))
    assert np.all(means[:, 2:] == 0)


def test_projected_loss_with_pseudo_inverse_and_bias():
    c = correlated_crowd(np.array([0.6, 0.6]), 1.0, np.array([0.3, 0.3]), noise=0.1)
    assert c.projected_loss(np.array([0, 0])) == pytest.approx(c.y_second_moment)
    assert c.projected_loss(np.array([3, 3])) <= c.projected_loss(np.array([1, 1])) + 1e-12
    w, b0 = c.optimal_predictor(np.array([2, 1]), bias=True)
    assert c.risk(w, b0, np.array([2, 1])) == pytest.approx(c.projected_loss(np.array([2, 1]), bias=True))


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"loadings": np.array([[0.9, 0.2]]), "beta": [0.1]}, "judged"),
    ({"loadings": np.array([[0.5]]), "beta": [0.1], "spread": [0.2]}, "binary"),
    ({"loadings": np.array([[0.5]]), "beta": [2.5]}, "labels"),
    ({"loadings": np.array([[0.5]]), "beta": [0.1, 0.2]}, "length"),
    ({"loadings": np.array([[np.nan]]), "beta": [0.1]}, "NaN"),
    ({"loadings": np.array([[0.5]]), "beta": [0.1], "costs": [0]}, "costs"),
])
def test_bad_inputs(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        crowd(kwargs.pop("loadings"), **kwargs)


def test_bad_repeat_vectors():
    c = table1_crowd()
    with pytest.raises(ParameterError):
        c.projected_loss(np.ones(3, dtype=int))
    with pytest.raises(ParameterError):
        c.sigma_r(-np.ones(c.d, dtype=int))
