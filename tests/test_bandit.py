"""Tests of theorycheck.algorithms.bandit (successive elimination over coordinates).

The jitted kernel is compared with a literal, slow reference written below (plain Python lists,
one example and one arm at a time) that draws its tie-breaks from the same jitted generator on a
copy of the same state, so the two agree exactly: coefficients, counts, active arms, samples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from theorycheck.algorithms import SuccessiveElimination
from theorycheck.generators.lower_bounds import good_feature
from theorycheck.rng import kernel_state, next_uniform
from theorycheck.validation import ParameterError


def reference(X, y, k, delta, scale, B, state):
    """Successive elimination, literally: arms read in a cycle, at most k per example, each pass
    ends its example; after a pass an arm goes when |ĉ_i| + r_n < max |ĉ| − r_n."""
    m, d = X.shape
    active = list(range(d))
    sums, squares, counts = [0.0] * d, [0.0] * d, [0] * d
    pos, n_read = 0, 0
    for t in range(m):
        for _ in range(min(k, len(active))):
            i = active[pos]
            sums[i] += X[t, i] * y[t]
            squares[i] += X[t, i] ** 2
            counts[i] += 1
            n_read += 1
            pos += 1
            if pos == len(active):
                pos = 0
                if len(active) > 1:
                    n = counts[active[0]]
                    radius = scale * math.sqrt(2 * math.log(4 * d * n * n / delta) / n)
                    best = max(abs(sums[a]) / n for a in active)
                    active = [a for a in active if abs(sums[a]) / n + radius >= best - radius]
                break
    coef = np.zeros(d)
    best_arm, best_score, ties = -1, -1.0, 0
    for a in active:
        if counts[a] == 0:
            continue
        score = 0.0 if squares[a] == 0 else sums[a] ** 2 / (squares[a] * counts[a])
        if score > best_score:
            best_arm, best_score, ties = a, score, 1
        elif score == best_score:
            ties += 1
            if next_uniform(state) * ties < 1.0:
                best_arm = a
    if best_arm >= 0 and squares[best_arm] > 0:
        coef[best_arm] = min(B, max(-B, sums[best_arm] / squares[best_arm]))
    return coef, n_read, sorted(active), counts


@pytest.mark.parametrize("m, d, k, delta, scale, B", [
    (40, 6, 6, 0.05, 1.0, 1.0),
    (300, 8, 3, 0.2, 1.0, 1.0),
    (500, 5, 2, 0.5, 0.5, 0.3),
    (7, 9, 4, 0.05, 1.0, 1.0),
    (1, 3, 10, 0.05, 1.0, 1.0),
])
def test_kernel_matches_reference(m, d, k, delta, scale, B):
    design = good_feature(d, p=0.35, j_seed=3)
    X, y = design.sample(m, 11)
    X = X * np.random.default_rng(5).choice([0.5, 1.0], size=X.shape)  # unequal second moments too
    seed = np.random.SeedSequence(7)
    est = SuccessiveElimination(k=k, B=B, delta=delta, scale=scale, random_state=kernel_state(seed)).fit(X, y)
    coef, n_read, active, counts = reference(X, y, k, delta, scale, B, kernel_state(seed))
    np.testing.assert_array_equal(est.coef_, coef)
    assert est.n_attributes_seen_ == n_read
    assert est.active_.tolist() == active
    assert est.samples_.tolist() == counts


def test_ties_are_broken_at_random():
    X = np.ones((4, 5))
    y = np.ones(4)
    chosen = {int(np.flatnonzero(SuccessiveElimination(random_state=s).fit(X, y).coef_)[0]) for s in range(40)}
    assert chosen == set(range(5))


def test_counts_distinct_reads_within_budget():
    design = good_feature(50, 1 / 64, j_seed=1)
    X, y = design.sample(400, 2)
    for k in (1, 7, 50):
        est = SuccessiveElimination(k=k, random_state=0).fit(X, y)
        assert est.n_attributes_seen_ <= k * X.shape[0]
        assert est.n_attributes_seen_ == int(est.samples_.sum())


def test_finds_the_good_feature():
    """On P_j with a strong bias the elimination keeps j alone and w ≈ 2p·e_j."""
    design = good_feature(64, p=0.25, j_seed=4)
    X, y = design.sample(2000, 9)
    est = SuccessiveElimination(random_state=0).fit(X, y)
    assert est.active_.tolist() == [design.j]
    assert design.identify(est.coef_) == design.j
    assert design.excess_risk(est.coef_) < 0.01
    # once alone, j is read once per example: far fewer than d per example overall
    assert est.n_attributes_seen_ < 0.5 * X.size


def test_output_is_clipped():
    X = np.ones((10, 3))
    y = 5.0 * np.ones(10)
    est = SuccessiveElimination(B=0.5, scale=5.0, random_state=0).fit(X, y)
    assert np.abs(est.coef_).max() == 0.5


@pytest.mark.parametrize("kwargs", [{"k": 0}, {"B": 0.0}, {"delta": 1.0}, {"delta": 0.0}, {"scale": -1.0}])
def test_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        SuccessiveElimination(**kwargs).fit(np.ones((3, 2)), np.ones(3))


@parametrize_with_checks([SuccessiveElimination(random_state=0)], expected_failed_checks=lambda _: {
    "check_estimators_nan_inf": "X is checked where it is read; the planted NaN may be unread"})
def test_sklearn_compatible(estimator, check):
    check(estimator)
