"""AESVR, Attribute Efficient Support-Vector Regression (hk12 Algorithm 4, Theorem 4.4).

The δ-insensitive loss |r|_δ = max(|r| − δ, 0) is smoothed (hk12 §4.2) into
f_ε(r) = (ε/2)ρ((r − δ)/ε) + (ε/2)ρ((r + δ)/ε) − δ with ρ(u) = u·erf(u) + e^{−u²}/√π, whose
derivative is f_ε′(r) = ½[erf((r − δ)/ε) + erf((r + δ)/ε)] (ρ′ = erf, Claim 4.3). AESVR is AERR
(Algorithm 1) with lines 8–9 replaced: x′ = x/ε, y± = (y ± δ)/ε and
φ̃ = ½[GenEst(w, x′, y⁺) + GenEst(w, x′, y⁻)] with the coefficients of eq. (7); the gradient
estimate is g̃ = φ̃·x̃ (x̃ from k uniform draws of x, weight d/k), followed by the projected step
onto {‖w‖₂ ≤ B}; the output is the average of the iterates w_t before each update (line 14).

Interpretations. GenEst's B (line 1 of Procedure 3) is the bound of Lemma 4.1's hypotheses for
the scaled inputs; the proof of Theorem 4.4 bounds ‖x′‖₂ ≤ 1/ε and |y±| ≤ 2B/ε, so the default
is 2B/ε (``genest_B`` overrides it). The series of eq. (7) is used up to ``n_terms`` coefficients
(beyond, aₙ = 0); the truncation changes f_ε′ by less than the first omitted term. "Attributes
read" counts queries of x: k uniform draws plus GenEst's queries (a coordinate drawn twice is
counted twice), the count Theorem 4.4's "k + 6 in expectation" refers to. Per-example time is
O(d) (the projection and GenEst's sampling table), which suits the small instances this is
checked on. The default step is :func:`~theorycheck.bounds.hk12_svr.aesvr_eta` with Φ² = 1.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import erf

from ..bounds.hk12_svr import aesvr_eta
from ..genest import _genest_kernel, genest_threshold, taylor_rho_prime
from ..rng import next_index
from ..validation import ParameterError, check_int, check_real
from ._common import (
    BudgetedRegressor,
    _checked,
    check_lasso_budget,
    check_radius,
    check_reads,
    check_step,
    fit_data,
    reads_guard,
    state_from,
)
from .aerr import ridge_start

__all__ = ["AESVR", "insensitive_loss", "rho", "smoothed_loss", "smoothed_loss_derivative",
           "smoothed_loss_second_derivative"]


def rho(u):
    """ρ(u) = u·erf(u) + e^{−u²}/√π (hk12 §4.2)."""
    u = np.asarray(u, dtype=np.float64)
    return u * erf(u) + np.exp(-u * u) / math.sqrt(math.pi)


def insensitive_loss(r, delta):
    """|r|_δ = max(|r| − δ, 0)."""
    return np.maximum(np.abs(np.asarray(r, dtype=np.float64)) - delta, 0.0)


def smoothed_loss(r, delta, eps):
    """f_ε(r) = (ε/2)ρ((r − δ)/ε) + (ε/2)ρ((r + δ)/ε) − δ."""
    r = np.asarray(r, dtype=np.float64)
    return 0.5 * eps * rho((r - delta) / eps) + 0.5 * eps * rho((r + delta) / eps) - delta


def smoothed_loss_derivative(r, delta, eps):
    """f_ε′(r) = ½[erf((r − δ)/ε) + erf((r + δ)/ε)]."""
    r = np.asarray(r, dtype=np.float64)
    return 0.5 * (erf((r - delta) / eps) + erf((r + delta) / eps))


def smoothed_loss_second_derivative(r, delta, eps):
    """f_ε″(r) = (e^{−((r−δ)/ε)²} + e^{−((r+δ)/ε)²})/(ε√π) > 0: f_ε is strictly convex."""
    r = np.asarray(r, dtype=np.float64)
    return (np.exp(-((r - delta) / eps) ** 2) + np.exp(-((r + delta) / eps) ** 2)) / (eps * math.sqrt(math.pi))


@njit(cache=True)
def _aesvr_kernel(X, y, k, eta, B, delta, eps, w1, coef, N, nu, state, per_example, bad):
    """Algorithm 4 on AERR's structure; returns (w̄, total queries). ``per_example[t]`` receives
    the queries of example t. Only the attributes drawn and queried are read: the k draws are checked
    finite where read (``bad``, see :func:`._common.reads_guard`), GenEst's queries on its estimate
    (a non-finite attribute queried makes it non-finite; noted as attribute −1)."""
    m, d = X.shape
    w = w1.copy()
    acc = np.zeros(d)
    idx = np.empty(k, dtype=np.int64)
    total = 0
    for t in range(m):
        for i in range(d):
            acc[i] += w[i]
        # lines 3-7: k uniform draws, x̃ = (d/k) Σ_r x[i_r] e_{i_r}
        for r in range(k):
            idx[r] = next_index(state, d)
        # lines 8-9 replaced (Algorithm 4, line 2): GenEst on x/ε, each queried attribute scaled as it is read
        e_plus, q_plus = _genest_kernel(w, X[t], (y[t] + delta) / eps, coef, N, nu, state, eps)
        e_minus, q_minus = _genest_kernel(w, X[t], (y[t] - delta) / eps, coef, N, nu, state, eps)
        phi = 0.5 * (e_plus + e_minus)
        if bad[0] < 0 and not np.isfinite(phi):
            bad[0] = t
            bad[1] = -1
        queries = k + q_plus + q_minus
        per_example[t] = queries
        total += queries
        # lines 10-12: w ← Π_B(w − η φ̃ x̃)
        for r in range(k):
            i = idx[r]
            w[i] -= eta * phi * (d / k) * _checked(X[t, i], t, i, bad)
        norm = 0.0
        for i in range(d):
            norm += w[i] * w[i]
        norm = math.sqrt(norm)
        if norm > B:
            for i in range(d):
                w[i] *= B / norm
    wbar = np.empty(d)
    for i in range(d):
        wbar[i] = acc[i] / m
    return wbar, total


class AESVR(BudgetedRegressor):
    """Attribute Efficient SVR (hk12 Algorithm 4).

    Reads k + (GenEst's queries, twice) attributes per example: random in number, at most
    k + 6 in expectation (Theorem 4.4; exactly k + 2·E[GenEst queries], see
    :func:`theorycheck.genest.genest_expected_queries`).

    Parameters
    ----------
    k : int, default 1
        Uniform draws for x̃ (1 ≤ k ≤ d).
    B : float, default 1.0
        Radius of the L2 ball.
    delta : float, default 0.1
        Width of the insensitive zone, 0 ≤ δ ≤ B.
    eps : float, default 1.0
        Smoothing accuracy ε > 0.
    eta : float or None
        Step size; None: :func:`~theorycheck.bounds.hk12_svr.aesvr_eta` (Φ² = 1).
    genest_B : float or None
        Procedure 3's B for the scaled inputs; None: 2B/ε (Theorem 4.4's proof).
    n_terms : int, default 60
        Coefficients of eq. (7) used (aₙ = 0 beyond).
    w_init : array_like or None
        w_1; None: 10⁻³·(B/√d)·𝟏 (as AERR).
    random_state : None, int, SeedSequence or Generator

    Attributes
    ----------
    coef_ : numpy.ndarray
        w̄, the average of the iterates.
    intercept_ : float
        0.0.
    eta_ : float
    n_attributes_seen_ : int
        Queries of x over all examples.
    queries_per_example_ : numpy.ndarray of int, shape (m,)
        Queries of each example.
    n_features_in_ : int
    """

    #: Procedure 3's (N, ν₀) for a bound, and eq. (7)'s coefficients (class-level, so that a
    #: planted variant can replace one piece of the algorithm)
    _threshold = staticmethod(genest_threshold)
    _coefficients = staticmethod(taylor_rho_prime)

    def __init__(self, k=1, B=1.0, delta=0.1, eps=1.0, eta=None, genest_B=None, n_terms=60, w_init=None,
                 random_state=None):
        self.k = k
        self.B = B
        self.delta = delta
        self.eps = eps
        self.eta = eta
        self.genest_B = genest_B
        self.n_terms = n_terms
        self.w_init = w_init
        self.random_state = random_state

    def fit(self, X, y):
        """Run one pass of Algorithm 4 over (X, y) in row order; returns self."""
        X, y = fit_data(self, X, y)  # X is checked where it is read (the k draws; GenEst's queries on its estimate)
        m, d = X.shape
        k = check_lasso_budget(self.k, d)
        B = check_radius(self.B)
        delta = check_real("delta", self.delta, low=0.0)
        if delta > B:
            raise ParameterError(f"delta must be ≤ B = {B}, got {delta}")
        eps = check_real("eps", self.eps, low=0.0, strict_low=True)
        eta = aesvr_eta(d, k, m, B) if self.eta is None else check_step("eta", self.eta)
        gB = 2.0 * B / eps if self.genest_B is None else check_real("genest_B", self.genest_B, low=0.0,
                                                                       strict_low=True)
        N, nu = self._threshold(gB)
        coef = np.asarray(self._coefficients(check_int("n_terms", self.n_terms, low=1)), dtype=np.float64)
        w1 = ridge_start(self.w_init, d, B)
        per = np.zeros(m, dtype=np.int64)
        bad = reads_guard()
        wbar, total = _aesvr_kernel(X, y, k, eta, B, delta, eps, w1, coef, N, nu, state_from(self.random_state),
                                    per, bad)
        if bad[0] >= 0 and bad[1] < 0:
            raise ParameterError(f"X has a non-finite value among the attributes GenEst read at example "
                                 f"{int(bad[0])} (its estimate is not finite); X must be finite where it is read")
        check_reads(X, bad)
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.eta_ = float(eta)
        self.genest_B_ = float(gB)
        self.n_attributes_seen_ = int(total)
        self.queries_per_example_ = per
        return self
