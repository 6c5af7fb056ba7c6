"""Tests of theorycheck.estimators: exact laws, Monte-Carlo agreement, attribute counts,
planted defects and input validation."""

from __future__ import annotations

import itertools
import math
import zlib
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from scipy import stats

from theorycheck import estimators as est
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError

from . import naive

DELTA = 1e-6  # false-fail rate of each stochastic assertion below
N_DRAWS = 200_000

# name -> (sampler, exact law, jitted kernel, paper of the loss, budgets allowed for d)
ESTIMATORS = {
    "aer": (
        est.aer_gradient_estimate,
        est.aer_gradient_estimate_distribution,
        est.aer_gradient_estimate.kernel,
        "cbss11",
        lambda d: range(2, 2 * d + 1, 2),
    ),
    "aerr": (
        est.aerr_gradient_estimate,
        est.aerr_gradient_estimate_distribution,
        est.aerr_gradient_estimate.kernel,
        "hk12",
        lambda d: range(1, d + 1),
    ),
    "aelr": (
        est.aelr_gradient_estimate,
        est.aelr_gradient_estimate_distribution,
        est.aelr_gradient_estimate.kernel,
        "hk12",
        lambda d: range(1, d + 1),
    ),
}

# Small rational instances (w, x, y): zeros in w, w = 0, negative weights, d = 1 ... 5.
INSTANCES = [
    ([F(1, 2), F(-1, 3)], [F(2), F(-1, 2)], F(1, 4)),
    ([F(3, 5), F(4, 5), F(0)], [F(1, 3), F(-1), F(2)], F(-1, 2)),
    ([F(0), F(0), F(0)], [F(1), F(-2, 3), F(1, 7)], F(2)),
    ([F(2)], [F(-3, 4)], F(1, 3)),
    ([F(1), F(0), F(-2), F(1, 2)], [F(1, 2), F(1), F(0), F(-1, 3)], F(0)),
    ([F(-1, 4), F(1, 4), F(0), F(1), F(-1)], [F(1), F(1, 2), F(-1), F(0), F(2, 3)], F(5, 6)),
]


def _merge(dist):
    merged: dict[tuple, F] = {}
    for p, g in dist:
        merged[g] = merged.get(g, F(0)) + p
    return merged


def _as_float(vec):
    return np.array([float(v) for v in vec])


# ------------------------------------------------------------------------------------------
# (1) exact laws: total mass 1, mean = the paper's gradient
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("instance", INSTANCES)
def test_exact_distribution_is_unbiased(name, instance):
    _, law, _, paper, budgets = ESTIMATORS[name]
    w, x, y = instance
    target = est.squared_loss_gradient(w, x, y, paper=paper)
    for k in budgets(len(x)):
        dist = law(w, x, y, k)
        assert all(isinstance(p, F) and p > 0 for p, _ in dist)
        assert all(isinstance(v, F) for _, g in dist for v in g)
        assert sum(p for p, _ in dist) == 1
        assert est.distribution_mean(dist) == target


fractions = st.fractions(min_value=-3, max_value=3, max_denominator=6)


@pytest.mark.parametrize("name", list(ESTIMATORS))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_exact_unbiasedness_random_instances(name, data):
    _, law, _, paper, budgets = ESTIMATORS[name]
    d = data.draw(st.integers(1, 3))
    w = data.draw(st.lists(st.one_of(st.just(F(0)), fractions), min_size=d, max_size=d))
    x = data.draw(st.lists(fractions, min_size=d, max_size=d))
    y = data.draw(fractions)
    k = data.draw(st.sampled_from(list(budgets(d))))
    dist = law(w, x, y, k)
    assert sum(p for p, _ in dist) == 1
    assert est.distribution_mean(dist) == est.squared_loss_gradient(w, x, y, paper=paper)


def test_float_and_int_inputs_are_taken_exactly():
    dist = est.aerr_gradient_estimate_distribution([0.5, 0.25], [1, 3], 0.1, 1)
    target = est.squared_loss_gradient([0.5, 0.25], [1, 3], 0.1, paper="hk12")
    assert est.distribution_mean(dist) == target
    assert target[0] == (F(1, 2) + F(3, 4) - F(0.1)) * 1  # 0.1 at its binary value


def test_second_moment_and_clipping_are_exact():
    w, x, y = INSTANCES[1]
    dist = est.aelr_gradient_estimate_distribution(w, x, y, 2)
    m2 = est.distribution_second_moment(dist)
    assert m2 == tuple(sum(p * g[i] ** 2 for p, g in dist) for i in range(3))
    big = max(abs(v) for _, g in dist for v in g)
    # a clip threshold above every value changes nothing; a small one biases the mean
    assert est.clip_distribution(dist, 1 / (big + 1)) == dist
    clipped = est.clip_distribution(dist, F(2))
    assert all(abs(v) <= F(1, 2) for _, g in clipped for v in g)
    assert est.distribution_mean(clipped) != est.distribution_mean(dist)
    np.testing.assert_array_equal(est.clip_estimate([3.0, -0.2, -7.0], 0.5), [2.0, -0.2, -2.0])


# ------------------------------------------------------------------------------------------
# the jitted kernels, driven from one jitted loop
# ------------------------------------------------------------------------------------------


@njit
def _draw_many(kernel, w, x, y, k, state, n):
    out = np.empty((n, x.shape[0]))
    reads = np.empty(n, dtype=np.int64)
    for t in range(n):
        reads[t] = kernel(w, x, y, k, state, out[t])
    return out, reads


# Monte-Carlo instances: (name, w, x, y, k); several distinct outcomes each, w with a zero.
MC_CASES = [
    ("aer", [F(1, 2), F(-1, 4), F(0), F(1)], [F(1), F(-1, 2), F(1, 4), F(3, 4)], F(1, 2), 4),
    ("aerr", [F(1, 2), F(-1, 4), F(0), F(1)], [F(1), F(-1, 2), F(1, 4), F(3, 4)], F(1, 2), 2),
    ("aelr", [F(1, 2), F(-1, 4), F(0), F(1)], [F(1), F(-1, 2), F(1, 4), F(3, 4)], F(1, 2), 2),
    ("aelr", [F(0), F(0), F(0)], [F(1), F(-1, 2), F(1, 4)], F(1, 2), 2),
]
MC_IDS = [f"{c[0]}-{i}" for i, c in enumerate(MC_CASES)]
_draw_cache: dict = {}


def _draws(name, w, x, y, k, seed=20120626):
    key = (name, tuple(w), tuple(x), y, k, seed)
    if key not in _draw_cache:
        kernel = ESTIMATORS[name][2]
        # the stream depends only on the case, never on the order in which tests run
        state = kernel_state(np.random.SeedSequence([seed, zlib.crc32(repr(key).encode())]))
        _draw_cache[key] = _draw_many(
            kernel, _as_float(w), _as_float(x), float(y), k, state, N_DRAWS
        )
    return _draw_cache[key]


def _bernstein_radius(dist, n, delta):
    """Per-coordinate half-width t_i such that P(some |mean_i − μ_i| ≥ t_i) ≤ delta.

    Bernstein: for i.i.d. X with |X − μ| ≤ M and variance σ², P(|X̄ − μ| ≥ t) ≤
    2·exp(−n t² / (2σ² + 2Mt/3)). Setting the right side to delta/d (union bound over the d
    coordinates), L = log(2d/delta), and solving n t² − (2ML/3) t − 2σ²L = 0 gives
    t = (2ML/3 + sqrt((2ML/3)² + 8nσ²L)) / (2n). σ² and M are computed exactly from the law.
    """
    mean = est.distribution_mean(dist)
    m2 = est.distribution_second_moment(dist)
    d = len(mean)
    log_term = math.log(2 * d / delta)
    radius = []
    for i in range(d):
        var = float(m2[i] - mean[i] ** 2)
        bound = float(max(abs(g[i] - mean[i]) for _, g in dist))
        a = 2 * bound * log_term / 3
        radius.append((a + math.sqrt(a * a + 8 * n * var * log_term)) / (2 * n))
    return np.array(radius)


@pytest.mark.parametrize("case", MC_CASES, ids=MC_IDS)
def test_kernel_mean_matches_exact_mean(case):
    name, w, x, y, k = case
    dist = ESTIMATORS[name][1](w, x, y, k)
    out, _ = _draws(name, w, x, y, k)
    radius = _bernstein_radius(dist, N_DRAWS, DELTA)
    deviation = np.abs(out.mean(axis=0) - _as_float(est.distribution_mean(dist)))
    assert np.all(deviation <= radius + 1e-12), (deviation, radius)


def _atom_counts(out, atoms):
    """Match every draw to the exact atom it equals (up to rounding); return the counts."""
    floats = [_as_float(g) for g in atoms]
    for a, b in itertools.combinations(floats, 2):  # atoms must be distinguishable
        assert np.max(np.abs(a - b)) > 1e-6
    counts = np.zeros(len(atoms), dtype=np.int64)
    matched = np.zeros(out.shape[0], dtype=bool)
    for j, atom in enumerate(floats):
        hit = np.all(np.abs(out - atom) <= 1e-9 * (1.0 + np.abs(atom)), axis=1)
        counts[j] = hit.sum()
        matched |= hit
    assert matched.all(), "the kernel produced a value outside the exact support"
    return counts


@pytest.mark.parametrize("case", MC_CASES, ids=MC_IDS)
def test_kernel_outcome_frequencies_match_exact_law(case):
    name, w, x, y, k = case
    merged = _merge(ESTIMATORS[name][1](w, x, y, k))
    atoms = list(merged)
    out, _ = _draws(name, w, x, y, k)
    counts = _atom_counts(out, atoms)
    # Exact two-sided binomial interval per atom at level DELTA / (number of atoms):
    # by the union bound all counts fall inside with probability ≥ 1 − DELTA.
    level = 1 - DELTA / len(atoms)
    for atom, count in zip(atoms, counts, strict=True):
        lo, hi = stats.binom.interval(level, N_DRAWS, float(merged[atom]))
        assert lo <= count <= hi, (atom, count, float(merged[atom]) * N_DRAWS)


# ------------------------------------------------------------------------------------------
# (4) attribute counts
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", MC_CASES, ids=MC_IDS)
def test_attribute_count_within_budget(case):
    name, w, x, y, k = case
    _, reads = _draws(name, w, x, y, k)
    budget = k if name == "aer" else k + 1
    assert reads.max() <= min(budget, len(x))
    assert reads.min() >= (k // 2 if name == "aer" else 1)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_attribute_count_is_exact(name):
    """With one non-zero weight w_{j0} and every x_i ≠ 0, the attributes read are exactly
    the support of the estimate plus j0 (when j0 is not already in it)."""
    sampler, _, _, _, _ = ESTIMATORS[name]
    d, j0 = 6, 4
    x = np.array([0.5, -1.0, 0.25, 2.0, -0.75, 1.5])
    w = np.zeros(d)
    w[j0] = 0.5
    state = kernel_state(np.random.SeedSequence(7))
    for k in (2, 4, 6):
        for _ in range(200):
            g, n_read = sampler(w, x, 10.0, k, random_state=state)  # y chosen so φ̃ ≠ 0
            support = set(np.flatnonzero(g))
            assert n_read == len(support | {j0})
            if name == "aer":
                assert len(support) == k // 2
            g0, n0 = sampler(np.zeros(d), x, 1.0, k, random_state=state)  # w = 0: no extra read
            assert n0 == len(set(np.flatnonzero(g0)))


def test_public_function_is_reproducible_and_advances_state():
    w, x = [0.5, -0.25, 0.0, 1.0], [1.0, -0.5, 0.25, 0.75]
    for sampler, *_ in ESTIMATORS.values():
        a = kernel_state(np.random.SeedSequence(3))
        b = kernel_state(np.random.SeedSequence(3))
        ga, na = sampler(w, x, 0.5, 2, random_state=a)
        gb, nb = sampler(w, x, 0.5, 2, random_state=b)
        np.testing.assert_array_equal(ga, gb)
        assert na == nb
        assert not np.array_equal(a, kernel_state(np.random.SeedSequence(3)))


# ------------------------------------------------------------------------------------------
# (5) planted defects: independent slow enumerations (ordered draws) with optional bugs
# ------------------------------------------------------------------------------------------


def _ordered_law(name, w, x, y, k, defect=None):
    """The slow references of tests/naive.py (ordered draws, a different route from the module's
    multisets), with one planted bug when ``defect`` is given."""
    if name == "aer":
        knobs = {"weight_d": {"v_weight": lambda d, k: F(d)}, "no_sign": {"signed": False}}.get(defect, {})
        return naive.aer_law(w, x, y, k, **knobs)
    knobs = {"weight_d": {"weight": lambda d, k: F(d)}, "abs_for_square": {"sample_power": 1}}.get(defect, {})
    return naive.hk12_law(w, x, y, k, power=2 if name == "aerr" else 1, **knobs)


DEFECT_INSTANCE = INSTANCES[5]  # d = 5, weights of unequal magnitude, both signs, x ≠ 0 there

DEFECTS = [
    ("aer", 4, "weight_d"),  # v_j = d·x_j instead of (2/k)·d·x_j
    ("aer", 2, "no_sign"),  # ŷ drops sgn(w_i)
    ("aerr", 2, "weight_d"),  # x̃ with weight d instead of d/k
    ("aerr", 1, "abs_for_square"),  # samples ∝ |w_j| but weights as if ∝ w_j²
    ("aelr", 3, "weight_d"),
]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_independent_enumeration_agrees(name):
    w, x, y = DEFECT_INSTANCE
    for k in (2, 4) if name == "aer" else (1, 2):
        assert _merge(_ordered_law(name, w, x, y, k)) == _merge(ESTIMATORS[name][1](w, x, y, k))


@pytest.mark.parametrize(("name", "k", "defect"), DEFECTS)
def test_exact_check_catches_planted_defect(name, k, defect):
    w, x, y = DEFECT_INSTANCE
    target = est.squared_loss_gradient(w, x, y, paper=ESTIMATORS[name][3])
    bad = _ordered_law(name, w, x, y, k, defect)
    assert sum(p for p, _ in bad) == 1  # still a probability law ...
    assert est.distribution_mean(bad) != target  # ... but biased: the exact check fails


@pytest.mark.parametrize(("name", "defect"), [("aer", "weight_d"), ("aerr", "weight_d")])
def test_monte_carlo_tolerance_would_reject_a_defect(name, defect):
    """The calibrated Monte-Carlo tolerance has power: the planted defect's mean lies
    outside it (so a kernel with that bug would fail test_kernel_mean_matches_exact_mean)."""
    _, w, x, y, k = next(c for c in MC_CASES if c[0] == name)
    assert k >= (4 if name == "aer" else 2)  # below that the defect is not a defect
    dist = ESTIMATORS[name][1](w, x, y, k)
    out, _ = _draws(name, w, x, y, k)
    radius = _bernstein_radius(dist, N_DRAWS, DELTA)
    bad_mean = _as_float(est.distribution_mean(_ordered_law(name, w, x, y, k, defect)))
    assert np.any(np.abs(out.mean(axis=0) - bad_mean) > radius)


# ------------------------------------------------------------------------------------------
# (6) bad inputs
# ------------------------------------------------------------------------------------------

GOOD = ([0.5, -0.25, 0.0], [1.0, 2.0, -1.0], 0.5)


def _state():
    return kernel_state(np.random.SeedSequence(0))


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize(
    ("w", "x", "y", "k"),
    [
        (GOOD[0], GOOD[1], GOOD[2], 0),
        (GOOD[0], GOOD[1], GOOD[2], 7),
        (GOOD[0], GOOD[1], GOOD[2], 2.0),
        (GOOD[0], GOOD[1], GOOD[2], True),
        (GOOD[0][:2], GOOD[1], GOOD[2], 2),
        (GOOD[0], [1.0, float("nan"), 0.0], GOOD[2], 2),
        ([0.5, float("inf"), 0.0], GOOD[1], GOOD[2], 2),
        (GOOD[0], GOOD[1], float("nan"), 2),
        (GOOD[0], GOOD[1], "1", 2),
        (GOOD[0], [[1.0, 2.0, -1.0]], GOOD[2], 2),
        (GOOD[0], ["a", "b", "c"], GOOD[2], 2),
        ([], [], GOOD[2], 2),
        (0.5, 1.0, GOOD[2], 2),
    ],
)
def test_bad_inputs_raise(name, w, x, y, k):
    sampler, law, *_ = ESTIMATORS[name]
    with pytest.raises(ParameterError):
        sampler(w, x, y, k, random_state=_state())
    with pytest.raises(ParameterError):
        law(w, x, y, k)


def test_budget_rules_per_paper():
    w, x, y = GOOD
    state = _state()
    with pytest.raises(ParameterError, match="even"):
        est.aer_gradient_estimate(w, x, y, 3, random_state=state)
    est.aer_gradient_estimate(w, x, y, 6, random_state=state)  # k/2 = d is allowed
    with pytest.raises(ParameterError):
        est.aer_gradient_estimate(w, x, y, 8, random_state=state)
    est.aerr_gradient_estimate(w, x, y, 3, random_state=state)  # k = d is allowed
    with pytest.raises(ParameterError):
        est.aerr_gradient_estimate(w, x, y, 4, random_state=state)


@pytest.mark.parametrize(
    "bad_state",
    [
        np.zeros(2, dtype=np.uint64),
        np.ones(3, dtype=np.uint64),
        np.ones(2, dtype=np.int64),
        [1, 2],
        -1,
        "seed",
        True,
    ],
)
def test_bad_random_state_raises(bad_state):
    for sampler, *_ in ESTIMATORS.values():
        with pytest.raises(ParameterError):
            sampler(*GOOD, 2, random_state=bad_state)
        with pytest.raises(ParameterError):
            sampler.moments(*GOOD, 2, 10, random_state=bad_state)


def test_read_only_kernel_state_raises():
    state = kernel_state(np.random.SeedSequence(0))
    state.flags.writeable = False
    with pytest.raises(ParameterError):
        est.aerr_gradient_estimate(*GOOD, 2, random_state=state)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_every_form_of_random_state_is_accepted(name):
    """One convention (theorycheck.rng): an int, a SeedSequence and a Generator each seed a fresh
    stream (the same int gives the same draw); a kernel state is advanced in place."""
    sampler = ESTIMATORS[name][0]
    a, _ = sampler(*GOOD, 2, random_state=7)
    b, _ = sampler(*GOOD, 2, random_state=7)
    np.testing.assert_array_equal(a, b)
    sampler(*GOOD, 2, random_state=np.random.SeedSequence(7))
    sampler(*GOOD, 2, random_state=np.random.default_rng(7))
    sampler(*GOOD, 2, random_state=None)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_moments_are_the_same_draws_as_single_calls(name):
    """``sampler.moments`` sums n draws in one jitted loop: the same draws as n calls on one stream."""
    sampler = ESTIMATORS[name][0]
    w, x, y = [0.5, -0.25, 0.0, 1.0], [1.0, -0.5, 0.25, 0.75], 0.5
    m = sampler.moments(w, x, y, 2, 500, random_state=kernel_state(np.random.SeedSequence(9)))
    state = kernel_state(np.random.SeedSequence(9))
    draws = [sampler(w, x, y, 2, random_state=state) for _ in range(500)]
    g = np.array([d[0] for d in draws])
    assert m.n == 500 and m.max_read == max(d[1] for d in draws)
    np.testing.assert_allclose(m.total, g.sum(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(m.squares, (g * g).sum(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(m.largest, np.abs(g).max(axis=0))


def test_without_replacement_reading_is_a_biased_law():
    """The erratum of cbss11.lemma11: ŷ's draws without replacement give a law (mass 1) that is
    biased, and the library agrees with the slow reference on it."""
    w, x, y = [F(1), F(-2), F(1, 2)], [F(1), F(1, 3), F(-1)], F(1, 2)
    law = est.aer_gradient_estimate_distribution(w, x, y, 4, replacement=False)
    assert sum(p for p, _ in law) == 1
    assert est.distribution_mean(law) != est.squared_loss_gradient(w, x, y, paper="cbss11")
    slow = naive.aer_law(w, x, y, 4, y_replacement=False)
    assert est.distribution_mean(law) == est.distribution_mean(slow)
    assert est.aer_gradient_estimate_distribution(w, x, y, 2, replacement=False) == \
        est.aer_gradient_estimate_distribution(w, x, y, 2)  # one draw: nothing to replace


def test_subset_average():
    assert est.subset_average([F(1), F(2), F(4)]) == F(7, 3)
    with pytest.raises(ParameterError):
        est.subset_average([])


def test_other_bad_inputs():
    with pytest.raises(ParameterError):
        est.squared_loss_gradient(*GOOD, paper="hk11")
    with pytest.raises(ParameterError):
        est.clip_estimate([1.0], 0.0)
    with pytest.raises(ParameterError):
        est.clip_distribution([(F(1), (F(1),))], -1)
    with pytest.raises(ParameterError):
        est.distribution_mean([])
    with pytest.raises(ParameterError, match="outcomes"):
        est.aerr_gradient_estimate_distribution([1] * 12, [1] * 12, 0, 12)
