"""Synthetic regression instances with exact population moments.

Every instance here is a :class:`Design`: a distribution of (x, y) with

* declared almost-sure bounds on ‖x‖₂, ‖x‖∞ and |y| (the hypotheses of the Ridge and
  Lasso theorems: hk12 AERR needs ‖x‖₂ ≤ 1 and |y| ≤ B; cbss11 Baseline/AER and hk12 AELR
  need ‖x‖∞ ≤ 1 and |y| ≤ B, with the same B as the radius of the norm ball);
* the exact population moments Σ = E[xxᵀ], c = E[xy] and E[y²] in closed form, so that the
  population risk L(w) = wᵀΣw − 2wᵀc + E[y²] of any w is exact (see
  :mod:`theorycheck.population`);
* a sampler :meth:`Design.sample` backed by one jitted kernel that takes an explicit
  xoroshiro128+ state (:func:`theorycheck.rng.kernel_state`).

All designs share one generative model, the "latent sign" model::

    z ~ Rademacher,  ε_1, ..., ε_d i.i.d.,  ξ ~ Rademacher  (all independent)
    x_i = α·z + β·ε_i
    y   = ⟨w*, x⟩ + σ·ξ

where ε_i is Rademacher (E ε_i² = 1) or uniform on [−1, 1] (E ε_i² = 1/3). Hence, with
v = E ε_i²,

    E[x_i x_j] = α² + β²·v·[i = j],    E[x y] = Σ w*,    E[y²] = w*ᵀ Σ w* + σ²,

and |x_i| ≤ |α| + |β|, ‖x‖₂ ≤ √d·(|α| + |β|) (both attained when every ε_i = z),
|y| ≤ |⟨w*, x⟩| + σ. The constructors choose α, β, w* and σ = noise·B so that
|⟨w*, x⟩| ≤ B·(1 − noise) and therefore |y| ≤ B almost surely.

The bounds hold in exact arithmetic; sampled floating-point rows meet them up to a few
units in the last place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit

from ..rng import as_kernel_state, next_sign, next_uniform
from ..validation import ParameterError, check_budget, check_int, check_matrix, check_real

__all__ = [
    "Design",
    "correlated_design",
    "product_sign_design",
    "sparse_lasso_design",
]

_NORMS = ("l2", "linf")
_X_DISTS = ("sign", "uniform")


# --------------------------------------------------------------------------------------
# kernel
# --------------------------------------------------------------------------------------


@njit(cache=True)
def _sample_latent_sign(state, shared, own, uniform_own, w, noise_amp, X, y):
    """Fill X (n×d) and y (n) with draws of the latent-sign model.

    Stream order per row: z (only if shared ≠ 0), ε_1..ε_d, ξ (only if noise_amp ≠ 0).
    """
    n, d = X.shape
    for t in range(n):
        z = next_sign(state) if shared != 0.0 else 0.0
        acc = 0.0
        for i in range(d):
            if uniform_own:
                e = 2.0 * next_uniform(state) - 1.0
            else:
                e = next_sign(state)
            v = shared * z + own * e
            X[t, i] = v
            acc += w[i] * v
        if noise_amp != 0.0:
            acc += noise_amp * next_sign(state)
        y[t] = acc


# --------------------------------------------------------------------------------------
# the Design object
# --------------------------------------------------------------------------------------


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Design:
    """A distribution of (x, y) with exact moments and almost-sure bounds.

    Attributes
    ----------
    name : str
        Short identifier of the construction (e.g. ``"product_sign"``).
    d : int
        Number of attributes.
    second_moment : ndarray, shape (d, d)
        Σ = E[xxᵀ] (read-only).
    cross_moment : ndarray, shape (d,)
        c = E[x·y] (read-only).
    y_second_moment : float
        E[y²].
    x_bound_l2, x_bound_linf : float
        Almost-sure bounds on ‖x‖₂ and ‖x‖∞ (both attained by the support).
    y_bound : float
        Almost-sure bound on |y|; equals the constructor's B.
    w_star : ndarray or None
        The vector that generates y = ⟨w*, x⟩ + noise (read-only).
    params : dict
        The constructor's arguments, for reports and cache keys.

    Notes
    -----
    Build instances with the constructors of this module rather than directly.
    """

    name: str
    d: int
    second_moment: np.ndarray
    cross_moment: np.ndarray
    y_second_moment: float
    x_bound_l2: float
    x_bound_linf: float
    y_bound: float
    w_star: np.ndarray | None
    params: dict[str, Any] = field(default_factory=dict)
    _shared: float = field(default=0.0, repr=False)
    _own: float = field(default=1.0, repr=False)
    _uniform: bool = field(default=False, repr=False)
    _noise_amp: float = field(default=0.0, repr=False)

    @property
    def moments(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The tuple (Σ, c, E[y²]) accepted by :mod:`theorycheck.population`."""
        return self.second_moment, self.cross_moment, self.y_second_moment

    def sample(self, n, random_state) -> tuple[np.ndarray, np.ndarray]:
        """Draw n i.i.d. examples.

        Parameters
        ----------
        n : int
            Number of examples, n ≥ 1.
        random_state : kernel state (ndarray of uint64, shape (2,)), int, SeedSequence or Generator
            A kernel state from :func:`theorycheck.rng.kernel_state` is advanced in place, so
            successive calls continue the same stream; anything else seeds a fresh state
            (see :func:`theorycheck.rng.as_kernel_state`).

        Returns
        -------
        X : ndarray, shape (n, d)
        y : ndarray, shape (n,)
        """
        n = check_int("n", n, low=1)
        state = as_kernel_state(random_state)
        X = np.empty((n, self.d), dtype=np.float64)
        y = np.empty(n, dtype=np.float64)
        w = self.w_star if self.w_star is not None else np.zeros(self.d)
        _sample_latent_sign(state, self._shared, self._own, self._uniform, w, self._noise_amp, X, y)
        return X, y

    def support(
        self, *, max_atoms: int = 1 << 16
    ) -> tuple[np.ndarray, np.ndarray, tuple[Fraction, ...]]:
        """Every atom of the (finite) distribution of (x, y) with its exact probability.

        Only for designs whose per-coordinate noise is a sign; this is what exact checks
        (expectations in :class:`fractions.Fraction`) enumerate. Atoms are listed once per
        outcome of the underlying signs (z, ε_1..ε_d, ξ), so the same point may repeat.

        Parameters
        ----------
        max_atoms : int
            Refuse (ParameterError) to list more atoms than this.

        Returns
        -------
        X : ndarray, shape (m, d)
        y : ndarray, shape (m,)
        prob : tuple of Fraction, length m, summing to 1
        """
        max_atoms = check_int("max_atoms", max_atoms, low=1)
        if self._uniform:
            raise ParameterError(
                f"design {self.name!r} has continuous attributes and no finite support"
            )
        n_bits = self.d + (self._shared != 0.0) + (self._noise_amp != 0.0)
        if 2**n_bits > max_atoms:
            raise ParameterError(
                f"design {self.name!r} has 2**{n_bits} atoms, more than max_atoms={max_atoms}"
            )
        m = 2**n_bits
        codes = np.arange(m)[:, None] >> np.arange(n_bits)[None, :] & 1
        signs = 2.0 * codes - 1.0
        col = 0
        if self._shared != 0.0:
            z = signs[:, 0]
            col = 1
        else:
            z = np.zeros(m)
        eps = signs[:, col : col + self.d]
        X = self._shared * z[:, None] + self._own * eps
        w = self.w_star if self.w_star is not None else np.zeros(self.d)
        y = X @ w
        if self._noise_amp != 0.0:
            y = y + self._noise_amp * signs[:, -1]
        prob = (Fraction(1, m),) * m
        return X, y, prob

    def satisfies(self, norm: str, B) -> bool:
        """Whether the design meets the hypotheses of the Ridge (``norm="l2"``: ‖x‖₂ ≤ 1,
        |y| ≤ B) or Lasso (``norm="l1"``: ‖x‖∞ ≤ 1, |y| ≤ B) theorems for radius B."""
        B = check_real("B", B, low=0.0, strict_low=True)
        if norm == "l2":
            x_ok = self.x_bound_l2 <= 1.0 + 1e-12
        elif norm == "l1":
            x_ok = self.x_bound_linf <= 1.0 + 1e-12
        else:
            raise ParameterError(f"norm must be 'l2' (Ridge) or 'l1' (Lasso), got {norm!r}")
        return bool(x_ok and self.y_bound <= B * (1.0 + 1e-12))


# --------------------------------------------------------------------------------------
# constructors
# --------------------------------------------------------------------------------------


def _check_common(d, B, noise):
    d = check_int("d", d, low=1)
    B = check_real("B", B, low=0.0, strict_low=True)
    noise = check_real("noise", noise, low=0.0, high=1.0)
    return d, B, noise


def _check_choice(name, value, choices):
    if value not in choices:
        options = ", ".join(map(repr, choices))
        raise ParameterError(f"{name} must be one of {options}, got {value!r}")
    return value


def _direction(w, d, dual_norm_ord):
    """The user's w (or all-equal) rescaled to unit norm of order dual_norm_ord."""
    if w is None:
        w = np.ones(d)
    else:
        w = check_matrix("w", w, ndim=1)
        if w.shape[0] != d:
            raise ParameterError(f"w must have length d={d}, got {w.shape[0]}")
    size = float(np.linalg.norm(w, ord=dual_norm_ord))
    if size == 0.0:
        raise ParameterError("w must not be the zero vector (it gives the direction of w*)")
    return w / size


def _listed(w):
    return None if w is None else [float(v) for v in np.ravel(w)]


def _build(
    name, d, *, shared_sq, own_sq, own_var, shared, own, uniform, w, noise_amp, B, norm, params
):
    # Σ = α²·11ᵀ + β²·v·I ; c = Σ w ; E[y²] = wᵀΣw + σ²
    sigma = np.full((d, d), shared_sq)
    sigma[np.diag_indices(d)] += own_sq * own_var
    cross = shared_sq * w.sum() + own_sq * own_var * w
    y2 = shared_sq * w.sum() ** 2 + own_sq * own_var * float(w @ w) + noise_amp**2
    # Every construction scales x so that the bound of the declared norm is exactly 1:
    # max ‖x‖∞ = |α| + |β| and max ‖x‖₂ = √d·(|α| + |β|) (all ε_i = z); the other bound
    # follows in exact arithmetic (the floats α, β may be off by an ulp).
    if norm == "l2":
        bound_l2, bound_linf = 1.0, 1.0 / math.sqrt(d)
    else:
        bound_l2, bound_linf = math.sqrt(d), 1.0
    return Design(
        name=name,
        d=d,
        second_moment=_frozen(sigma),
        cross_moment=_frozen(cross),
        y_second_moment=float(y2),
        x_bound_l2=bound_l2,
        x_bound_linf=bound_linf,
        y_bound=B,
        w_star=_frozen(w),
        params=params,
        _shared=float(shared),
        _own=float(own),
        _uniform=bool(uniform),
        _noise_amp=float(noise_amp),
    )


def product_sign_design(d, *, norm: str = "l2", B=1.0, noise=0.0, w=None) -> Design:
    """Independent sign attributes with a dense linear target.

    x is uniform on {±1}^d, scaled by 1/√d when ``norm="l2"`` (so ‖x‖₂ = 1 exactly) and
    unscaled when ``norm="linf"`` (‖x‖∞ = 1). y = ⟨w*, x⟩ + noise·B·ξ with ξ a Rademacher
    sign. w* points along ``w`` (all-equal by default) with ‖w*‖₂ = B(1 − noise) for
    ``"l2"`` and ‖w*‖₁ = B(1 − noise) for ``"linf"``; by Hölder |⟨w*, x⟩| ≤ B(1 − noise),
    so |y| ≤ B, and w* lies in the matching ball of radius B.

    Moments: Σ = I/d (``"l2"``) or I (``"linf"``), c = Σw*, E[y²] = w*ᵀΣw* + (noise·B)².
    Σ is invertible, so w* is the constrained optimum and its risk is (noise·B)².

    Parameters
    ----------
    d : int
        Number of attributes, d ≥ 1.
    norm : {"l2", "linf"}
        Which norm of x is bounded by 1 (Ridge or Lasso setting).
    B : float
        Radius of the norm ball and bound on |y|, B > 0.
    noise : float
        Fraction of B given to the label noise, 0 ≤ noise ≤ 1.
    w : array_like of shape (d,), optional
        Direction of w* (rescaled as above); must not be zero.

    Returns
    -------
    Design
    """
    d, B, noise = _check_common(d, B, noise)
    norm = _check_choice("norm", norm, _NORMS)
    ord_ = 2 if norm == "l2" else 1
    w_star = _direction(w, d, ord_) * (B * (1.0 - noise))
    own_sq = 1.0 / d if norm == "l2" else 1.0
    return _build(
        "product_sign",
        d,
        shared_sq=0.0,
        own_sq=own_sq,
        own_var=1.0,
        shared=0.0,
        own=math.sqrt(own_sq),
        uniform=False,
        w=w_star,
        noise_amp=noise * B,
        B=B,
        norm=norm,
        params={"d": d, "norm": norm, "B": B, "noise": noise, "w": _listed(w)},
    )


def sparse_lasso_design(d, s, *, B=1.0, noise=0.0, x_dist: str = "sign") -> Design:
    """Independent bounded attributes with an s-sparse target (the Lasso setting).

    x is uniform on {±1}^d (``x_dist="sign"``) or on [−1, 1]^d (``x_dist="uniform"``), so
    ‖x‖∞ ≤ 1. w* has its s non-zeros on the first s coordinates, each equal to
    B(1 − noise)/s, so ‖w*‖₁ = B(1 − noise) and |⟨w*, x⟩| ≤ B(1 − noise). y = ⟨w*, x⟩ +
    noise·B·ξ with ξ a Rademacher sign, so |y| ≤ B.

    Moments: Σ = v·I with v = 1 (signs) or 1/3 (uniform), c = v·w*,
    E[y²] = v‖w*‖₂² + (noise·B)². w* is the constrained optimum over the L1 ball of radius B.

    Parameters
    ----------
    d : int
        Number of attributes, d ≥ 1.
    s : int
        Number of non-zeros of w*, 1 ≤ s ≤ d.
    B : float
        Radius of the L1 ball and bound on |y|, B > 0.
    noise : float
        Fraction of B given to the label noise, 0 ≤ noise ≤ 1.
    x_dist : {"sign", "uniform"}
        Distribution of each attribute.

    Returns
    -------
    Design
    """
    d, B, noise = _check_common(d, B, noise)
    s, d = check_budget(s, d, name="s")
    x_dist = _check_choice("x_dist", x_dist, _X_DISTS)
    w_star = np.zeros(d)
    w_star[:s] = B * (1.0 - noise) / s
    uniform = x_dist == "uniform"
    return _build(
        "sparse_lasso",
        d,
        shared_sq=0.0,
        own_sq=1.0,
        own_var=1.0 / 3.0 if uniform else 1.0,
        shared=0.0,
        own=1.0,
        uniform=uniform,
        w=w_star,
        noise_amp=noise * B,
        B=B,
        norm="linf",
        params={"d": d, "s": s, "B": B, "noise": noise, "x_dist": x_dist},
    )


def correlated_design(d, *, rho, norm: str = "l2", B=1.0, noise=0.0, w=None) -> Design:
    """Equicorrelated sign attributes: x_i = κ(√ρ·z + √(1−ρ)·ε_i).

    z and ε_1..ε_d are independent Rademacher signs, so every pair of attributes has
    correlation ρ. The scale is κ = 1/(√ρ + √(1−ρ)) for ``norm="linf"`` (‖x‖∞ ≤ 1) and
    κ = 1/(√d(√ρ + √(1−ρ))) for ``norm="l2"`` (‖x‖₂ ≤ 1); both bounds are attained when every
    ε_i = z. w* and the noise are as in :func:`product_sign_design`, so |y| ≤ B.

    Moments: Σ = κ²(ρ·11ᵀ + (1−ρ)·I), c = Σw*, E[y²] = w*ᵀΣw* + (noise·B)². At ρ = 1 all
    attributes coincide and Σ has rank one (a test case for singular Σ).

    Parameters
    ----------
    d : int
        Number of attributes, d ≥ 1.
    rho : float
        Correlation between attributes, 0 ≤ rho ≤ 1.
    norm : {"l2", "linf"}
        Which norm of x is bounded by 1.
    B : float
        Radius of the norm ball and bound on |y|, B > 0.
    noise : float
        Fraction of B given to the label noise, 0 ≤ noise ≤ 1.
    w : array_like of shape (d,), optional
        Direction of w* (rescaled to ‖w*‖₂ or ‖w*‖₁ = B(1 − noise)); must not be zero.

    Returns
    -------
    Design
    """
    d, B, noise = _check_common(d, B, noise)
    rho = check_real("rho", rho, low=0.0, high=1.0)
    norm = _check_choice("norm", norm, _NORMS)
    a, b = math.sqrt(rho), math.sqrt(1.0 - rho)
    kappa_sq = 1.0 / (a + b) ** 2
    if norm == "l2":
        kappa_sq /= d
    kappa = math.sqrt(kappa_sq)
    ord_ = 2 if norm == "l2" else 1
    w_star = _direction(w, d, ord_) * (B * (1.0 - noise))
    return _build(
        "correlated",
        d,
        shared_sq=rho * kappa_sq,
        own_sq=(1.0 - rho) * kappa_sq,
        own_var=1.0,
        shared=kappa * a,
        own=kappa * b,
        uniform=False,
        w=w_star,
        noise_amp=noise * B,
        B=B,
        norm=norm,
        params={"d": d, "rho": rho, "norm": norm, "B": B, "noise": noise, "w": _listed(w)},
    )
