"""Planted defects of the cbss11 Lasso claims (Lemmas 8–10, Theorems 6 and 12).

Each is importable by the command line, e.g.
``theorycheck verify cbss11.lemma8 --subject estimates=tests.defects_regression:estimates_all_pairs``,
and the claims declare them as their ``defects`` (tests/test_power.py runs every one).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from theorycheck.algorithms.aer import AER
from theorycheck.algorithms.baseline import Baseline, baseline_estimates
from theorycheck.projections import project_l1_ball
from theorycheck.rng import as_kernel_state, next_index, next_weighted_index, sample_without_replacement

# ----------------------------------------------------------------------------- estimates (Lemmas 8–10)


def estimates_all_pairs(X, y, k, random_state=None):
    """Figure 1's sampling with the unbiased constants, except that the off-diagonal weight
    2d(d−1)/k² is added for every ordered pair of distinct attributes of C instead of the pairs of
    I×J: E[Ā_rs] = 2(k−1)/k·X_rs, biased by (k−2)/k·X_rs (invisible when the attributes are
    independent, since then X_rs ≈ 0)."""
    _, v, ybar, n = baseline_estimates(X, y, k, random_state=random_state)
    rng = np.random.default_rng(random_state)
    m, d = X.shape
    C = np.argsort(rng.random((m, d)), axis=1)[:, :k]
    vals = np.take_along_axis(X, C, axis=1)
    A = np.zeros(d * d)
    for a in range(k):
        A += np.bincount(C[:, a] * (d + 1), weights=(d / k) * vals[:, a] ** 2, minlength=d * d)
        for b in range(k):
            if a != b:
                A += np.bincount(C[:, a] * d + C[:, b], weights=2.0 * d * (d - 1) / k**2 * vals[:, a] * vals[:, b],
                                 minlength=d * d)
    return A.reshape(d, d) / m, v, ybar, n


def estimates_single_attribute_v(X, y, k, random_state=None):
    """v_t = d·x_c e_c for one uniformly drawn attribute c: unbiased, but the terms 2y_t v_t range
    over [−2dB, 2dB] instead of the [−2dB/k, 2dB/k] Lemma 9's Hoeffding step uses."""
    A, _, ybar, n = baseline_estimates(X, y, k, random_state=random_state)
    m, d = X.shape
    c = np.random.default_rng(random_state).integers(0, d, m)
    v = np.bincount(c, weights=2.0 * y * d * X[np.arange(m), c], minlength=d) / m
    return A, v, ybar, n


def estimates_unscaled_A(X, y, k, random_state=None):
    """Ā without its (d/k)² importance weight: E[Ā] = (k/d)²·X, biased."""
    A, v, ybar, n = baseline_estimates(X, y, k, random_state=random_state)
    return A * (k / X.shape[1]) ** 2, v, ybar, n


def estimates_figure_constants(X, y, k, random_state=None):
    """Figure 1's printed constants: zero diagonal, off-diagonal mean d/(d−1)·x_r x_s."""
    return baseline_estimates(X, y, k, estimator="figure", random_state=random_state)


def estimates_unscaled_v(X, y, k, random_state=None):
    """v̄ without its d/k factor: E[v̄] = (k/d)·x̄."""
    A, v, ybar, n = baseline_estimates(X, y, k, random_state=random_state)
    return A, v * (k / X.shape[1]), ybar, n


def estimates_overreporting(X, y, k, random_state=None):
    """Correct estimates, but reports one attribute more per example than allowed."""
    A, v, ybar, _ = baseline_estimates(X, y, k, random_state=random_state)
    return A, v, ybar, (k + 1) * X.shape[0]


# ----------------------------------------------------------------------------- Baseline (Theorem 6)


class BaselineZeros(Baseline):
    """Fits, then returns w = 0 (the trivial learner)."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = np.zeros_like(self.coef_)
        return self


class BaselineNeverMoves(Baseline):
    """A stopping rule that is always met: the minimiser stops at its starting point."""

    def fit(self, X, y):
        tol, self.tol = self.tol, 1e300
        try:
            return super().fit(X, y)
        finally:
            self.tol = tol


class BaselineIdentityCovariance(Baseline):
    """cbss11 footnote 3: assume E[xxᵀ] = I, so ŵ = projection of v̄/2 on the L1 ball. Consistent
    only when the attributes are uncorrelated."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = project_l1_ball(self.v_bar_ / 2.0, self.B)
        return self


class BaselineUnscaledV(Baseline):
    """Minimises wᵀĀw − (k/d)·wᵀv̄: the linear term without its d/k factor (rescaling y by k/d
    rescales v̄ and leaves Ā unchanged)."""

    def fit(self, X, y):
        super().fit(X, y)
        scaled = np.asarray(y) * (self.k / X.shape[1])
        inner = Baseline(k=self.k, B=self.B, random_state=self.random_state).fit(X, scaled)
        self.coef_ = inner.coef_
        return self


class BaselineOutsideBall(Baseline):
    """Rescales its output onto the sphere of radius 1.1·B: outside the ball it minimises over."""

    def fit(self, X, y):
        super().fit(X, y)
        size = float(np.abs(self.coef_).sum())
        if size > 0:
            self.coef_ = self.coef_ * (1.1 * self.B / size)
        return self


# ----------------------------------------------------------------------------- AER (Theorem 12)


class AERZeros(AER):
    """Fits, then returns w = 0 (the trivial learner)."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = np.zeros_like(self.coef_)
        return self


class AERNeverMoves(AER):
    """Computes its steps but they vanish (λ = 1e300), so w stays at w₁ = 0."""

    def fit(self, X, y):
        lam, self.lam = self.lam, 1e300
        try:
            return super().fit(X, y)
        finally:
            self.lam = lam


class AERNoProjection(AER):
    """Figure 2 without the projection (11) on the L1 ball."""

    def fit(self, X, y):
        radius, self.B = self.B, 1e300  # the kernel uses B only in the projection step
        try:
            return super().fit(X, y)
        finally:
            self.B = radius


class AEROverRegularised(AER):
    """λ one hundred times the prescribed value."""

    def fit(self, X, y):
        lam, self.lam = self.lam, 100.0 * self.lam
        try:
            return super().fit(X, y)
        finally:
            self.lam = lam


class AERSmallLambda(AER):
    """λ ten times smaller than prescribed (not a defect for Theorem 12's bound)."""

    def fit(self, X, y):
        lam, self.lam = self.lam, self.lam / 10.0
        try:
            return super().fit(X, y)
        finally:
            self.lam = lam


@njit(cache=True)
def _project_l1(w, radius):
    """Euclidean projection on the L1 ball, in place (Duchi et al. 2008, by sorting)."""
    if np.abs(w).sum() <= radius:
        return
    u = np.sort(np.abs(w))[::-1]
    total = 0.0
    theta = 0.0
    for j in range(u.shape[0]):
        total += u[j]
        t = (total - radius) / (j + 1)
        if u[j] > t:
            theta = t
    for i in range(w.shape[0]):
        w[i] = np.sign(w[i]) * max(abs(w[i]) - theta, 0.0)


@njit(cache=True)
def _aer_unsigned(X, y, k, lam, B, state):
    """cbss11 Figure 2 with ŷ = Σ (2/k)‖w‖₁ x_i: the factor sgn(w_i) of eq. (7) is dropped."""
    m, d = X.shape
    half = k // 2
    w = np.zeros(d)
    wbar = np.zeros(d)
    perm = np.empty(d, dtype=np.int64)
    cumulative = np.empty(d)
    for t in range(m):
        sample_without_replacement(state, d, half, perm)
        l1 = 0.0
        for i in range(d):
            l1 += abs(w[i])
            cumulative[i] = l1
        yhat = 0.0
        for _ in range(half):
            if l1 > 0.0:
                yhat += (2.0 / k) * l1 * X[t, next_weighted_index(state, cumulative)]
            else:
                next_index(state, d)
        step = t + 1.0
        coef = 2.0 / (lam * step) * (yhat - y[t])
        for i in range(d):
            w[i] *= 1.0 - 1.0 / step
        for r in range(half):
            w[perm[r]] -= coef * (2.0 / k) * d * X[t, perm[r]]
        _project_l1(w, B)
        wbar += w
    return wbar / m, m * k


class AERUnsigned(AER):
    """AER whose estimate ŷ of ⟨w, x⟩ drops sgn(w_i): it estimates ⟨|w|, x⟩, wrong as soon as w has
    a negative weight."""

    def fit(self, X, y):
        X, y = np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)
        state = as_kernel_state(self.random_state)
        wbar, n_read = _aer_unsigned(X, y, int(self.k), float(self.lam), float(self.B), state)
        self.coef_, self.intercept_, self.n_attributes_seen_, self.n_features_in_ = wbar, 0.0, int(n_read), X.shape[1]
        return self
