"""Full-information comparators: the same online methods with exact gradients.

* :class:`OnlineGradientDescent`: projected OGD on {‖w‖₂ ≤ B} (Zinkevich 2003), the
  full-information counterpart of AERR (hk12 Algorithm 1 with g̃ replaced by g).
* :class:`ExponentiatedGradient`: EG± on {‖w‖₁ ≤ B} (Kivinen & Warmuth 1997), the
  full-information counterpart of AELR (hk12 Algorithm 2 with g̃ replaced by g, no clipping).
* :func:`sklearn_baselines`: configured scikit-learn regressors without intercept.

Both online learners read all d attributes of every example (``n_attributes_seen_ = m·d``),
use the loss ½(⟨w,x⟩ − y)², start at w_1 = 0 and output w̄ = (1/m) Σ_{t=1}^m w_t.

Default step sizes, from the hk12 proofs with the full-information gradient bound:

* OGD: the proof of hk12 Theorem 3.1 takes η = 2B/(G√m); with ‖x‖₂ ≤ 1 and |y| ≤ B the exact
  gradient has ‖g‖₂ ≤ 2B, so η = 1/√m;
* EG±: hk12's Lemma 3.6 bound B(log(2d)/η + ηG²m), minimised at η = (1/G)√(log(2d)/m), with
  ‖x‖∞ ≤ 1, |y| ≤ B giving ‖g‖∞ ≤ 2B: η = (1/(2B))√(log(2d)/m).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from sklearn.linear_model import LassoCV, RidgeCV, SGDRegressor

from ..projections import _project_l2_ball_inplace
from ._common import BudgetedRegressor, check_radius, check_step, fit_data

__all__ = ["ExponentiatedGradient", "OnlineGradientDescent", "sklearn_baselines"]


@njit(cache=True)
def _ogd_kernel(X, y, eta, B):
    """Projected OGD with exact gradients. Returns (w_bar, n_attributes_read)."""
    m, d = X.shape
    w = np.zeros(d)
    wsum = np.zeros(d)
    for t in range(m):
        resid = -y[t]
        for i in range(d):
            wsum[i] += w[i]
            resid += w[i] * X[t, i]
        for i in range(d):
            w[i] -= eta * resid * X[t, i]
        _project_l2_ball_inplace(w, B)
    for i in range(d):
        wsum[i] /= m
    return wsum, m * d


@njit(cache=True)
def _eg_rescale(theta, D, C):
    """Set D_i = e^{−r}·2 sinh θ_i and C_i = e^{−r}·2 cosh θ_i for the reference r = max|θ|
    (so the largest C_i is about 1); returns r."""
    r = 0.0
    for i in range(theta.shape[0]):
        r = max(r, abs(theta[i]))
    for i in range(theta.shape[0]):
        _eg_set(theta, D, C, i, r)
    return r


@njit(cache=True)
def _eg_set(theta, D, C, i, r):
    a = abs(theta[i])
    big = math.exp(a - r)
    e2 = math.expm1(-2.0 * a)  # e^{−2|θ|} − 1, exact near θ = 0
    D[i] = -big * e2 if theta[i] > 0.0 else big * e2
    C[i] = big * (2.0 + e2)


@njit(cache=True)
def _eg_kernel(X, y, eta, B):
    """EG± with exact gradients, in log space: θ_i = log z⁺_i = −log z⁻_i and
    w = B·sinh θ / Σ cosh θ. Returns (w_bar, n_attributes_read).

    Each coordinate keeps D_i ∝ 2 sinh θ_i and C_i ∝ 2 cosh θ_i, both scaled by e^{−r} for a
    reference r, so w = B·D/ΣC does not depend on r. An example changes θ_i only where x_i ≠ 0,
    and only those coordinates pay the two transcendentals (on MNIST about a fifth of the pixels);
    the sums over all d are plain multiply-adds. r moves to max|θ| (O(d) transcendentals, rare)
    when an updated |θ_i| exceeds r + 300 or when ΣC falls below 10⁻²⁰⁰, so nothing overflows and
    the largest terms never underflow."""
    m, d = X.shape
    theta = np.zeros(d)
    D = np.zeros(d)
    C = np.zeros(d)
    r = _eg_rescale(theta, D, C)
    wsum = np.zeros(d)
    for t in range(m):
        norm = 0.0
        for i in range(d):
            norm += C[i]
        if norm < 1e-200:
            r = _eg_rescale(theta, D, C)
            norm = 0.0
            for i in range(d):
                norm += C[i]
        scale = B / norm
        resid = -y[t]
        for i in range(d):
            w = D[i] * scale
            wsum[i] += w
            resid += w * X[t, i]
        far = False
        for i in range(d):
            x = X[t, i]
            if x != 0.0:
                theta[i] -= eta * resid * x
                if abs(theta[i]) - r > 300.0:
                    far = True
                else:
                    _eg_set(theta, D, C, i, r)
        if far:
            r = _eg_rescale(theta, D, C)
    for i in range(d):
        wsum[i] /= m
    return wsum, m * d


class OnlineGradientDescent(BudgetedRegressor):
    """Projected online gradient descent on the L2 ball with full gradients.

    Reads all d attributes of every example: ``n_attributes_seen_ = m·d``.

    Parameters
    ----------
    B : float, default 1.0
        Radius of the L2 ball.
    eta : float or None, default None
        Step size; None: η = 1/√m (hk12 proof of Theorem 3.1 with G = 2B).

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
        w̄ = (1/m) Σ_{t=1}^m w_t.
    intercept_ : float
        Always 0.0.
    eta_ : float
    n_attributes_seen_ : int
    n_features_in_ : int
    """

    def __init__(self, B=1.0, eta=None):
        self.B = B
        self.eta = eta

    def fit(self, X, y):
        """One pass of projected OGD over (X, y) in row order; returns self."""
        X, y = fit_data(self, X, y, all_finite=True)
        m, _ = X.shape
        B = check_radius(self.B)
        eta = 1.0 / math.sqrt(m) if self.eta is None else check_step("eta", self.eta)
        wbar, n_read = _ogd_kernel(X, y, eta, B)
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.eta_ = float(eta)
        self.n_attributes_seen_ = int(n_read)
        return self


class ExponentiatedGradient(BudgetedRegressor):
    """EG± on the L1 ball with full gradients (Kivinen & Warmuth 1997).

    Reads all d attributes of every example: ``n_attributes_seen_ = m·d``.

    Parameters
    ----------
    B : float, default 1.0
        Radius of the L1 ball.
    eta : float or None, default None
        Step size; None: η = (1/(2B))√(log(2d)/m).

    Attributes
    ----------
    coef_ : numpy.ndarray, shape (d,)
        w̄ = (1/m) Σ_{t=1}^m w_t.
    intercept_ : float
        Always 0.0.
    eta_ : float
    n_attributes_seen_ : int
    n_features_in_ : int
    """

    def __init__(self, B=1.0, eta=None):
        self.B = B
        self.eta = eta

    def fit(self, X, y):
        """One pass of EG± over (X, y) in row order; returns self."""
        X, y = fit_data(self, X, y, all_finite=True)
        m, d = X.shape
        B = check_radius(self.B)
        if self.eta is None:
            eta = math.sqrt(math.log(2.0 * d) / m) / (2.0 * B)
        else:
            eta = check_step("eta", self.eta)
        wbar, n_read = _eg_kernel(X, y, eta, B)
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.eta_ = float(eta)
        self.n_attributes_seen_ = int(n_read)
        return self


def sklearn_baselines(random_state=0) -> dict:
    """Fresh, unfitted scikit-learn full-information regressors, all without intercept.

    Parameters
    ----------
    random_state : int or None, default 0
        Seed of SGDRegressor's shuffling and of LassoCV's coordinate selection.

    Returns
    -------
    dict
        ``"ridge"``: RidgeCV over 25 log-spaced α in [1e-6, 1e6];
        ``"lasso"``: LassoCV with a path of 50 α, 5-fold CV;
        ``"sgd"``: SGDRegressor (squared error, no penalty, inverse-scaling rate).
    """
    return {
        "ridge": RidgeCV(alphas=np.logspace(-6, 6, 25), fit_intercept=False),
        "lasso": LassoCV(alphas=50, cv=5, fit_intercept=False, random_state=random_state),
        "sgd": SGDRegressor(
            loss="squared_error",
            penalty=None,
            fit_intercept=False,
            learning_rate="invscaling",
            max_iter=1000,
            tol=1e-6,
            random_state=random_state,
        ),
    }
