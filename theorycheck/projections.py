"""Exact Euclidean projections onto the feasible sets of the papers' learners.

* L2 ball {u : ‖u‖₂ ≤ r}: the last step of AERR (hk12 Algorithm 1, line 12).
* L1 ball {u : ‖u‖₁ ≤ r}: the projection step (11) of AER (cbss11 Figure 2), its threshold
  by Michelot's active-set iteration (no sort; a few O(d) passes in practice).
* Simplex {u ≥ 0 : Σu = z}: by the sort-based exact method of Duchi, Shalev-Shwartz, Singer
  and Chandra (ICML 2008), O(d log d).

Each projection is a private jitted kernel that overwrites a 1-D float64 array (for use inside
the learners' jitted loops) and a public function that validates its inputs and returns a new
array. Results are exact up to floating-point rounding: the L1 norm of an L1-ball projection,
or the sum of a simplex projection, may differ from the radius by a few ulps times d.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .validation import ParameterError, check_matrix, check_real

__all__ = [
    "project_l1_ball",
    "project_l1_ball_inplace",
    "project_l2_ball",
    "project_l2_ball_inplace",
    "project_simplex",
    "project_simplex_inplace",
]


@njit(cache=True)
def _project_l2_ball_inplace(w, radius):
    """Overwrite ``w`` with its projection onto {‖u‖₂ ≤ radius} (rescale if outside)."""
    sq = 0.0
    for i in range(w.shape[0]):
        sq += w[i] * w[i]
    norm = np.sqrt(sq)
    if norm > radius:
        scale = radius / norm
        for i in range(w.shape[0]):
            w[i] *= scale


@njit(cache=True)
def _soft_threshold_level(mags, z):
    """The level θ with Σ max(mags_i − θ, 0) = z for non-negative ``mags`` (Duchi et al.
    2008, Figure 1): sort decreasingly, ρ = the largest j with
    μ_j − (Σ_{r≤j} μ_r − z)/j > 0, θ = (Σ_{r≤ρ} μ_r − z)/ρ."""
    mu = np.sort(mags)[::-1]
    csum = 0.0
    theta = 0.0
    for j in range(mu.shape[0]):
        csum += mu[j]
        level = (csum - z) / (j + 1)
        if mu[j] - level > 0.0:
            theta = level
    return theta


@njit(cache=True)
def _project_simplex_inplace(v, z):
    """Overwrite ``v`` with its projection onto {u ≥ 0, Σu = z} (z > 0)."""
    theta = _soft_threshold_level(v, z)
    for i in range(v.shape[0]):
        v[i] = max(v[i] - theta, 0.0)


@njit(cache=True)
def _project_l1_ball_inplace(w, radius):
    """Overwrite ``w`` with its projection onto {‖u‖₁ ≤ radius} (radius > 0): identity inside the
    ball, otherwise soft-thresholding of |w| at the level θ with Σ max(|w_i| − θ, 0) = radius,
    keeping the signs.

    θ by Michelot's algorithm (1986; Condat 2016, §2): θ = (Σ_A |w_i| − radius)/|A| over the
    active set A, which starts as the nonzero coordinates and drops those with |w_i| ≤ θ until
    none drops. θ only grows, so it ends after at most d rounds, and after a few in practice;
    each round is a pass over A, with no sort (AER projects at every step, and its iterates are
    sparse once the ball is active: a projection zeroes coordinates and a step fills k/2). The
    level is the sort-based one of Duchi et al. (2008) up to the order of summation."""
    d = w.shape[0]
    mags = np.empty(d)
    n = 0
    l1 = 0.0
    for i in range(d):
        a = abs(w[i])
        l1 += a
        if a > 0.0:
            mags[n] = a
            n += 1
    if l1 <= radius or n == 0:  # n = 0 with l1 > radius only for NaN input, which the caller reports
        return
    theta = (l1 - radius) / n
    while True:
        kept = 0
        total = 0.0
        for j in range(n):
            if mags[j] > theta:
                mags[kept] = mags[j]
                kept += 1
                total += mags[j]
        if kept == n or kept == 0:  # kept = 0 only for non-finite input (radius > 0)
            break
        n = kept
        theta = (total - radius) / n
    for i in range(d):
        shrunk = max(abs(w[i]) - theta, 0.0)
        if shrunk == 0.0:
            w[i] = 0.0  # never -0.0
        elif w[i] < 0.0:
            w[i] = -shrunk
        else:
            w[i] = shrunk


#: The jitted in-place kernels, public for use inside other kernels (the learners call them on
#: their own buffers): no validation, the argument is overwritten with its projection.
project_l2_ball_inplace = _project_l2_ball_inplace
project_l1_ball_inplace = _project_l1_ball_inplace
project_simplex_inplace = _project_simplex_inplace


def _prepared(name: str, w) -> np.ndarray:
    if isinstance(w, (int, float, complex, np.generic)):  # np.asarray would make it 1-D
        raise ParameterError(f"{name} must be a 1-D array, got the scalar {w!r}")
    arr = check_matrix(name, w, ndim=1)
    if arr.shape[0] == 0:
        raise ParameterError(f"{name} must have at least one entry")
    return np.array(arr, dtype=np.float64, copy=True)


def project_l2_ball(w, radius) -> np.ndarray:
    """Euclidean projection onto the L2 ball of the given radius.

    Parameters
    ----------
    w : array_like, shape (d,)
        Finite vector.
    radius : float
        Ball radius, positive and finite (B in hk12 Algorithm 1, line 12).

    Returns
    -------
    numpy.ndarray
        ``w · radius / max(‖w‖₂, radius)``, a new array (hk12 Algorithm 1, line 12).
    """
    radius = check_real("radius", radius, low=0.0, strict_low=True)
    out = _prepared("w", w)
    _project_l2_ball_inplace(out, radius)
    return out


def project_l1_ball(w, radius) -> np.ndarray:
    """Euclidean projection onto the L1 ball of the given radius.

    The step (11) of cbss11's AER (Figure 2): soft-thresholding of |w| at the level θ found by
    Michelot's active-set iteration (a few passes over the nonzero coordinates, no sort; see
    Condat 2016), signs restored as in Duchi, Shalev-Shwartz, Singer and Chandra (ICML 2008,
    their Section 4).

    Parameters
    ----------
    w : array_like, shape (d,)
        Finite vector.
    radius : float
        Ball radius, positive and finite (B in cbss11 eq. (11)).

    Returns
    -------
    numpy.ndarray
        argmin over ‖u‖₁ ≤ radius of ‖u − w‖₂, a new array; ``w`` itself (copied) when it
        already lies in the ball.
    """
    radius = check_real("radius", radius, low=0.0, strict_low=True)
    out = _prepared("w", w)
    _project_l1_ball_inplace(out, radius)
    return out


def project_simplex(v, z=1.0) -> np.ndarray:
    """Euclidean projection onto the scaled simplex {u ≥ 0, Σu = z}.

    Duchi, Shalev-Shwartz, Singer and Chandra (ICML 2008), Figure 1: u = max(v − θ, 0) with
    θ chosen so that the result sums to z.

    Parameters
    ----------
    v : array_like, shape (d,)
        Finite vector (any sign).
    z : float, default 1.0
        Total mass, positive and finite.

    Returns
    -------
    numpy.ndarray
        The projection, a new array.
    """
    z = check_real("z", z, low=0.0, strict_low=True)
    out = _prepared("v", v)
    _project_simplex_inplace(out, z)
    return out
