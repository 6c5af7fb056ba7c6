"""Tests of theorycheck.projections against slow, obviously-correct references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from theorycheck.projections import (
    project_l1_ball,
    project_l1_ball_inplace,
    project_l2_ball,
    project_l2_ball_inplace,
    project_simplex,
    project_simplex_inplace,
)
from theorycheck.validation import ParameterError

# ------------------------------------------------------------------------------------------
# slow references
# ------------------------------------------------------------------------------------------


def _bisect_level(values, target, lo, hi):
    """θ in [lo, hi] with Σ max(values − θ, 0) = target, by bisection (the left side is
    continuous and non-increasing in θ)."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if sum(max(v - mid, 0.0) for v in values) > target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def ref_l2(w, r):
    n = math.sqrt(sum(v * v for v in w))
    return np.array(w, dtype=float) * (1.0 if n <= r else r / n)


def ref_l1(w, r):
    mags = [abs(v) for v in w]
    if sum(mags) <= r:
        return np.array(w, dtype=float)
    theta = _bisect_level(mags, r, 0.0, max(mags))
    return np.array([math.copysign(max(abs(v) - theta, 0.0), v) for v in w])


def ref_simplex(v, z):
    theta = _bisect_level(list(v), z, min(v) - z, max(v))
    return np.array([max(a - theta, 0.0) for a in v])


def _tol(w, r):
    return 1e-9 * (1.0 + r + float(np.max(np.abs(w))))


# ------------------------------------------------------------------------------------------
# strategies: general floats, tie-heavy values, zeros, d = 1
# ------------------------------------------------------------------------------------------

_general = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)
_ties = st.sampled_from([0.0, 0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0])
vectors = st.integers(1, 8).flatmap(
    lambda d: arrays(np.float64, d, elements=st.one_of(_general, _ties))
)
radii = st.floats(1e-3, 30.0, allow_nan=False, allow_infinity=False)


def _random_feasible(rng, d, kind, r, n=64):
    """n random points of the feasible set (interior, boundary and vertices mixed)."""
    if kind == "simplex":
        pts = rng.dirichlet(np.full(d, 0.5), size=n) * r
        pts[: min(d, n)] = np.eye(d)[: min(d, n)] * r  # the vertices
        return pts
    g = rng.standard_normal((n, d))
    norm = np.abs(g).sum(axis=1) if kind == "l1" else np.linalg.norm(g, axis=1)
    scale = rng.uniform(0.0, 1.0, size=n) ** (1.0 / d)
    scale[: n // 4] = 1.0  # some points on the boundary
    return g / norm[:, None] * scale[:, None] * r


# ------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------

CASES = [
    ("l2", project_l2_ball, ref_l2),
    ("l1", project_l1_ball, ref_l1),
    ("simplex", project_simplex, ref_simplex),
]


@pytest.mark.parametrize(("kind", "project", "reference"), CASES)
@settings(max_examples=150, deadline=None)
@given(w=vectors, r=radii)
def test_matches_reference(kind, project, reference, w, r):
    p = project(w, r)
    np.testing.assert_allclose(p, reference(list(w), r), rtol=0, atol=_tol(w, r))


@pytest.mark.parametrize(("kind", "project", "reference"), CASES)
@settings(max_examples=100, deadline=None)
@given(w=vectors, r=radii, seed=st.integers(0, 2**32 - 1))
def test_feasible_and_variational_inequality(kind, project, reference, w, r, seed):
    p = project(w, r)
    tol = _tol(w, r) * (1.0 + r)
    if kind == "l2":
        assert np.linalg.norm(p) <= r + tol
    elif kind == "l1":
        assert np.abs(p).sum() <= r + tol
    else:
        assert np.all(p >= 0.0)
        assert abs(p.sum() - r) <= tol * len(w)
    # P(w) is the projection iff ⟨w − P(w), u − P(w)⟩ ≤ 0 for every feasible u.
    u = _random_feasible(np.random.default_rng(seed), len(w), kind, r)
    scale = (1.0 + np.abs(w).max()) * (1.0 + r) * len(w)
    assert np.max((u - p) @ (w - p)) <= 1e-9 * scale


@pytest.mark.parametrize("project", [project_l2_ball, project_l1_ball])
@settings(max_examples=50, deadline=None)
@given(w=vectors, r=radii)
def test_identity_inside_the_ball(project, w, r):
    inside = w * (0.999 * r / max(np.abs(w).sum(), 1e-300))  # ‖·‖₂ ≤ ‖·‖₁ < r
    np.testing.assert_array_equal(project(inside, r), inside)


def test_l1_ball_matches_the_sort_based_level_on_long_sparse_vectors():
    """The L1-ball kernel finds θ by Michelot's active-set iteration; the simplex projection of |w|
    sorts (Duchi et al.). On vectors outside the ball, long and mostly zero (as AER's iterates),
    both threshold at the same θ up to rounding, and the result is feasible."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        d = int(rng.integers(2, 800))
        w = rng.standard_normal(d) * (rng.random(d) < rng.uniform(0.02, 0.9))
        w[rng.integers(d)] = 3.0  # never all zero
        if rng.random() < 0.3:
            w[: d // 2] = np.round(w[: d // 2], 1)  # ties
        r = float(rng.uniform(0.001, 0.999)) * np.abs(w).sum()
        expected = np.where(w < 0.0, -1.0, 1.0) * project_simplex(np.abs(w), r)
        got = project_l1_ball(w, r)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * (1.0 + np.abs(w).max()))
        assert np.abs(got).sum() <= r * (1 + 1e-12)
        assert np.all(got * w >= 0.0)


def test_known_values():
    np.testing.assert_allclose(project_l2_ball([3.0, 4.0], 1.0), [0.6, 0.8])
    np.testing.assert_allclose(project_l1_ball([3.0, -1.0, 0.5], 2.0), [2.0, 0.0, 0.0])
    np.testing.assert_allclose(project_l1_ball([1.0, -1.0, 1.0], 1.5), [0.5, -0.5, 0.5])
    np.testing.assert_allclose(project_simplex([0.2, 0.9, -1.0]), [0.15, 0.85, 0.0])
    np.testing.assert_allclose(project_simplex([5.0], 2.0), [2.0])
    np.testing.assert_allclose(project_simplex([0.0, 0.0, 0.0, 0.0]), [0.25] * 4)
    np.testing.assert_array_equal(project_l1_ball([0.0, 0.0], 1.0), [0.0, 0.0])
    assert not np.signbit(project_l1_ball([-0.1, 5.0], 1.0)).any()  # no −0.0


def test_public_functions_copy_and_kernels_work_in_place():
    w = np.array([3.0, -4.0, 1.0])
    before = w.copy()
    project_l1_ball(w, 1.0)
    project_l2_ball(w, 1.0)
    project_simplex(w, 1.0)
    np.testing.assert_array_equal(w, before)
    for kernel, public in [
        (project_l2_ball_inplace, project_l2_ball),
        (project_l1_ball_inplace, project_l1_ball),
        (project_simplex_inplace, project_simplex),
    ]:
        buf = np.zeros(6)
        buf[::2] = before  # a strided view, as a learner's loop might pass
        assert kernel(buf[::2], 1.5) is None
        np.testing.assert_array_equal(buf[::2], public(before, 1.5))
        np.testing.assert_array_equal(buf[1::2], 0.0)


@pytest.mark.parametrize("project", [project_l2_ball, project_l1_ball, project_simplex])
@pytest.mark.parametrize(
    ("w", "r"),
    [
        ([1.0, 2.0], 0.0),
        ([1.0, 2.0], -1.0),
        ([1.0, 2.0], float("nan")),
        ([1.0, 2.0], float("inf")),
        ([1.0, 2.0], "1"),
        ([1.0, 2.0], True),
        ([1.0, float("nan")], 1.0),
        ([1.0, float("inf")], 1.0),
        ([[1.0, 2.0]], 1.0),
        (3.0, 1.0),
        ([], 1.0),
        (["a", "b"], 1.0),
    ],
)
def test_bad_input_raises(project, w, r):
    with pytest.raises(ParameterError):
        project(w, r)
