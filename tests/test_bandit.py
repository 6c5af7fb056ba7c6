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

from theorycheck.algorithms import SequentialSearch, SuccessiveElimination
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


# ---------------------------------------------------------------------- SequentialSearch (told P_j's form)
def search_reference(X, y, k, p, reject, accept, state):
    """Wald's test on the coordinates, literally: k slots, each reads its coordinate once per example; a
    coordinate goes at a test ratio ≤ −reject (its slot takes the next free coordinate, cyclically, afresh),
    one is accepted at a total ratio ≥ accept; else the largest total ratio, ties at random."""
    m, d = X.shape
    total, test = [0.0] * d, [0.0] * d
    slots = list(range(k))
    pointer, n_read = k % d, 0
    for t in range(m):
        for s in range(k):
            i = slots[s]
            step = math.log(1 + 2 * p) if X[t, i] * y[t] > 0 else math.log(1 - 2 * p)
            total[i] += step
            test[i] += step
            n_read += 1
            if total[i] >= accept:
                return i, n_read, i
            if test[i] <= -reject:
                free = [c for c in [(pointer + c) % d for c in range(d)] if c not in slots or c == i]
                slots[s] = free[0]
                test[free[0]] = 0.0
                pointer = (free[0] + 1) % d
    best, ties = 0, 0
    for i in range(d):
        if ties == 0 or total[i] > total[best]:
            best, ties = i, 1
        elif total[i] == total[best]:
            ties += 1
            if next_uniform(state) * ties < 1.0:
                best = i
    return best, n_read, -1


@pytest.mark.parametrize("m, d, k, eps, alpha, beta", [
    (300, 8, 3, 1 / 32, 0.05, 0.5), (200, 5, 5, 1 / 20, 0.1, 0.2), (40, 12, 1, 1 / 17, 0.05, 0.5),
    (1, 3, 2, 1 / 32, 0.05, 0.5), (2000, 30, 4, 1 / 64, 0.01, 0.3),
])
def test_search_kernel_matches_reference(m, d, k, eps, alpha, beta):
    design = good_feature(d, eps, j_seed=5)
    X, y = design.sample(m, 12)
    seed = np.random.SeedSequence(8)
    est = SequentialSearch(k=k, eps=eps, alpha=alpha, beta=beta, random_state=kernel_state(seed)).fit(X, y)
    best, n_read, accepted = search_reference(X, y, k, math.sqrt(eps), math.log(1 / beta), math.log(d / alpha),
                                              kernel_state(seed))
    expected = np.zeros(d)
    expected[best] = 2 * math.sqrt(eps)
    np.testing.assert_array_equal(est.coef_, expected)
    assert (est.n_attributes_seen_, est.accepted_) == (n_read, accepted)
    assert est.n_attributes_seen_ <= k * m


def test_search_finds_the_good_feature_and_reads_k_per_example():
    """On P_j it accepts j (excess 0) with at most k distinct reads per example, observed through a watched view."""
    from theorycheck.observe import observed_call

    for seed in range(5):
        design = good_feature(64, 1 / 32, j_seed=seed)
        X, y = design.sample(4000, seed)
        est, read, _ = observed_call(SequentialSearch(k=4, eps=1 / 32, random_state=0).fit, X, y)
        assert est.accepted_ == design.j and design.excess_risk(est.coef_) < 1e-12  # w = 2p·e_j up to p's rounding
        assert read.sum() == 0  # the kernel reads the raw buffer: its count is audited by the reference above
        assert est.n_attributes_seen_ < 0.25 * X.size


@pytest.mark.parametrize("kwargs", [{"k": 0}, {"k": 9}, {"eps": None}, {"eps": 0.25}, {"alpha": 1.0},
                                    {"beta": 0.0}, {"B": 0.0}])
def test_search_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        SequentialSearch(**{"k": 2, "eps": 1 / 32, **kwargs}).fit(np.ones((3, 8)), np.ones(3))
