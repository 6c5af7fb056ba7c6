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
def _eg_kernel(X, y, eta, B):
    """EG± with exact gradients, in log space: w = B sinh θ / Σ cosh θ, θ = log z⁺.
    Returns (w_bar, n_attributes_read)."""
    m, d = X.shape
    theta = np.zeros(d)
    w = np.zeros(d)
    wsum = np.zeros(d)
    for t in range(m):
        ref = 0.0
        for i in range(d):
            if abs(theta[i]) > ref:
                ref = abs(theta[i])
        norm = 0.0
        for i in range(d):
            a = abs(theta[i])
            big = math.exp(a - ref)
            mag = big * (-math.expm1(-2.0 * a))
            w[i] = mag if theta[i] > 0.0 else -mag
            norm += big * (1.0 + math.exp(-2.0 * a))
        resid = -y[t]
        for i in range(d):
            w[i] *= B / norm
            wsum[i] += w[i]
            resid += w[i] * X[t, i]
        for i in range(d):
            theta[i] -= eta * resid * X[t, i]
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
