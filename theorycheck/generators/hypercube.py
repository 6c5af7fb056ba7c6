"""The lower-bound construction of cbss11 Theorems 2 and 3.

x is uniform on {±1}^d (independent Rademacher attributes) and y = ⟨w*, x⟩ exactly, so
L_D(w*) = 0. The population moments are exact: E[xxᵀ] = I, E[xy] = w*, E[y²] = ‖w*‖₂².
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..rng import as_kernel_state, next_sign
from ..validation import check_int


@njit(cache=True)
def _sample_rademacher(state, n, d, w, X, y):
    for t in range(n):
        acc = 0.0
        for j in range(d):
            s = next_sign(state)
            X[t, j] = s
            acc += w[j] * s
        y[t] = acc


@dataclass(frozen=True)
class HypercubeInstance:
    """x uniform on {±1}^d, y = ⟨w*, x⟩ (noiseless)."""

    w_star: np.ndarray

    @property
    def d(self) -> int:
        return self.w_star.shape[0]

    @property
    def y_bound(self) -> float:
        """max |y| over the support: ‖w*‖₁."""
        return float(np.abs(self.w_star).sum())

    @property
    def second_moment(self) -> np.ndarray:
        return np.eye(self.d)

    @property
    def cross_moment(self) -> np.ndarray:
        return self.w_star.copy()

    @property
    def y_second_moment(self) -> float:
        return float(self.w_star @ self.w_star)

    name = "hypercube"

    @property
    def x_bound_l2(self) -> float:
        return float(np.sqrt(self.d))

    @property
    def x_bound_linf(self) -> float:
        return 1.0

    @property
    def moments(self) -> tuple[np.ndarray, np.ndarray, float]:
        return self.second_moment, self.cross_moment, self.y_second_moment

    def satisfies(self, norm: str, B) -> bool:
        """The Design protocol's hypotheses check: ‖x‖ ≤ 1 in the norm's dual and |y| ≤ B.
        Attributes are ±1, so only the Lasso setting (``norm="l1"``, ‖x‖∞ ≤ 1) can hold."""
        x_ok = self.x_bound_linf <= 1.0 if norm == "l1" else self.x_bound_l2 <= 1.0
        return bool(x_ok and self.y_bound <= float(B) * (1.0 + 1e-12))

    def sample(self, n: int, random_state) -> tuple[np.ndarray, np.ndarray]:
        """Draw n examples with the jitted kernel; a kernel-state ``random_state`` is advanced
        in place (see :func:`theorycheck.rng.as_kernel_state`)."""
        n = check_int("n", n, low=1)
        X = np.empty((n, self.d))
        y = np.empty(n)
        _sample_rademacher(as_kernel_state(random_state), n, self.d, self.w_star, X, y)
        return X, y

    def best_k_active_risk(self, k: int) -> float:
        """Exact risk of the best k-active predictor: the mass of w*² outside its k largest
        entries (read those, predict their part of ⟨w*, x⟩; the rest has mean 0)."""
        k = check_int("k", k, low=0)
        tail = np.sort(self.w_star**2)[: max(self.d - k, 0)]
        return float(tail.sum())


def uniform_l2_instance(d: int) -> HypercubeInstance:
    """cbss11 Theorem 2: w* = (1/√d)·1, so ‖w*‖₂ = 1."""
    d = check_int("d", d, low=1)
    return HypercubeInstance(np.full(d, 1.0 / np.sqrt(d)))


def sparse_l1_instance(d: int, support: int) -> HypercubeInstance:
    """cbss11 Theorem 3: ``support`` = ck leading weights equal to 1/(ck), so ‖w*‖₁ = 1."""
    d = check_int("d", d, low=1)
    support = check_int("support", support, low=1, high=d)
    w = np.zeros(d)
    w[:support] = 1.0 / support
    return HypercubeInstance(w)
