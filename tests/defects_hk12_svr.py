"""Planted defects for hk12 §4 (hk12.lemma4.1, claim4.2, claim4.3, thm4.4), named by the claims'
``defects`` declarations as ``tests.defects_hk12_svr:NAME`` and run by tests/test_power.py."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import erf

from theorycheck import genest as est
from theorycheck.algorithms import AESVR
from theorycheck.bounds.hk12_svr import aesvr_eta
from theorycheck.rng import as_kernel_state, next_index, next_uniform, next_weighted_index

# ---------------------------------------------------------------------- Claim 4.2


def smoothed_without_exp(r, delta, eps):
    """ρ(u) = u·erf(u): the e^{−u²}/√π term dropped (no longer convex)."""
    r = np.asarray(r, dtype=np.float64)
    rho = lambda u: u * erf(u)  # noqa: E731
    return 0.5 * eps * rho((r - delta) / eps) + 0.5 * eps * rho((r + delta) / eps) - delta


def smoothed_double(r, delta, eps):
    """ε·ρ instead of (ε/2)·ρ: grows like 2|x|."""
    r = np.asarray(r, dtype=np.float64)
    rho = lambda u: u * erf(u) + np.exp(-u * u) / math.sqrt(math.pi)  # noqa: E731
    return eps * rho((r - delta) / eps) + eps * rho((r + delta) / eps) - delta


def half_eps_bound(eps):
    """The bound ε/2 (below the exact supremum ε/√π)."""
    return eps / 2


# ---------------------------------------------------------------------- Claim 4.3


def rho_prime_sign_error(n_terms=60):
    """a_{2n+1} with (−1)^{n+1}."""
    return -est.taylor_rho_prime(n_terms)


def rho_prime_without_2n_plus_1(n_terms=60):
    """a_{2n+1} = (2/√π)(−1)ⁿ/n! (the factor 1/(2n + 1) missing)."""
    a = est.taylor_rho_prime(n_terms)
    for m in range(1, n_terms, 2):
        a[m] *= m
    return a


# ---------------------------------------------------------------------- Lemma 4.1


@njit(cache=True)
def _planted_kernel(w, x, y, coef, N, nu, state, weight_shift):
    """Procedure 3 with the weight 2^(n+1−weight_shift) and the threshold ``nu`` as given."""
    d = x.shape[0]
    cumulative = np.empty(d)
    sq = 0.0
    for i in range(d):
        sq += w[i] * w[i]
        cumulative[i] = sq
    n = 0
    while next_uniform(state) < 0.5:
        n += 1
    reps = 1 if n <= nu else N
    product = 1.0
    queries = 0
    for _ in range(n):
        total = 0.0
        if sq > 0.0:
            for _s in range(reps):
                j = next_weighted_index(state, cumulative)
                while w[j] == 0.0:
                    j -= 1
                total += sq * x[j] / w[j]
                queries += 1
        product *= total / reps - y
    a_n = coef[n] if n < coef.shape[0] else 0.0
    return 2.0 ** (n + 1 - weight_shift) * a_n * product, queries


@njit(cache=True)
def _planted_draws(w, x, y, coef, N, nu, n, cap, state, weight_shift):
    total = squares = queries = queries_sq = 0.0
    max_q = 0
    for _ in range(n):
        e, q = _planted_kernel(w, x, y, coef, N, nu, state, weight_shift)
        total += e
        squares += e * e
        qc = min(q, cap)
        queries += qc
        queries_sq += qc * qc
        max_q = max(max_q, q)
    return total, squares, queries, queries_sq, max_q


def _planted(weight_shift, small_threshold):
    def threshold(B):
        N, nu = est.genest_threshold(B)
        return (N, N.bit_length() - 1) if small_threshold else (N, nu)

    def estimate(w, x, y, coefficients, B, *, random_state):
        N, nu = threshold(B)
        e, q = _planted_kernel(np.asarray(w, float), np.asarray(x, float), float(y), np.asarray(coefficients, float),
                               N, nu, as_kernel_state(random_state), weight_shift)
        return float(e), int(q)

    def moments(w, x, y, coefficients, B, n, *, random_state, cap=2**62):
        N, nu = threshold(B)
        out = _planted_draws(np.asarray(w, float), np.asarray(x, float), float(y), np.asarray(coefficients, float),
                             N, nu, n, cap, as_kernel_state(random_state), weight_shift)
        return est.GenEstSample(n, float(out[0]), float(out[1]), float(out[2]), float(out[3]), int(out[4]))

    estimate.moments = moments
    return estimate


#: weight 2ⁿ instead of 2ⁿ⁺¹: the mean is halved
genest_half_weight = _planted(1, False)
#: threshold ⌊log₂N⌋ instead of ⌊2·log₂N⌋: many more second-branch rounds of N queries
genest_small_threshold = _planted(0, True)


def expected_queries_small_threshold(B):
    """1 + (N − 1)(r + 1)/2^r with r = ⌊log₂N⌋ + 1."""
    N, _ = est.genest_threshold(B)
    r = N.bit_length()
    from fractions import Fraction
    return 1 + Fraction((N - 1) * (r + 1), 2**r)


def law_sign_error(w, x, y, coefficients, B):
    """The exact law of GenEst with every coefficient negated."""
    return est.genest_distribution(w, x, y, [-a for a in coefficients], B)


# ---------------------------------------------------------------------- Theorem 4.4


class AESVRSmallThreshold(AESVR):
    """AESVR whose GenEst takes the second branch beyond ⌊log₂N⌋."""

    _threshold = staticmethod(lambda B: (est.genest_threshold(B)[0], est.genest_threshold(B)[0].bit_length() - 1))


class AESVRSignError(AESVR):
    """AESVR with eq. (7)'s coefficients negated: it estimates −f_ε′ and climbs the risk."""

    _coefficients = staticmethod(lambda n_terms: -est.taylor_rho_prime(n_terms))


@njit(cache=True)
def _genest_read_at_zero(w, x, y, coef, N, nu, state):
    """Procedure 3 whose first branch reads one attribute even when n = 0 (a loop run at least once); the
    read is not used, so the estimate is unchanged and E[queries] grows by Pr[n = 0] = 1/2."""
    e, q = _planted_kernel(w, x, y, coef, N, nu, state, 0)
    if q == 0:
        cumulative = np.cumsum(w * w)
        if cumulative[-1] > 0.0:
            next_weighted_index(state, cumulative)
            q = 1
    return e, q


@njit(cache=True)
def _aesvr_extra_kernel(X, y, k, eta, B, delta, eps, w1, coef, N, nu, state, per_example):
    """Algorithm 4 as in theorycheck.algorithms.aesvr, with :func:`_genest_read_at_zero` as GenEst."""
    m, d = X.shape
    w = w1.copy()
    acc = np.zeros(d)
    idx = np.empty(k, dtype=np.int64)
    total = 0
    for t in range(m):
        acc += w
        for r in range(k):
            idx[r] = next_index(state, d)
        xp = X[t] / eps
        e_plus, q_plus = _genest_read_at_zero(w, xp, (y[t] + delta) / eps, coef, N, nu, state)
        e_minus, q_minus = _genest_read_at_zero(w, xp, (y[t] - delta) / eps, coef, N, nu, state)
        phi = 0.5 * (e_plus + e_minus)
        per_example[t] = k + q_plus + q_minus
        total += per_example[t]
        for r in range(k):
            w[idx[r]] -= eta * phi * (d / k) * X[t, idx[r]]
        norm = math.sqrt(np.sum(w * w))
        if norm > B:
            w *= B / norm
    return acc / m, total


class AESVRExtraRead(AESVR):
    """AESVR whose GenEst reads one unused attribute when n = 0: one extra attribute per example in
    expectation (two calls, each with Pr[n = 0] = 1/2), the same iterates' law otherwise."""

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
        m, d = X.shape
        eta = aesvr_eta(d, self.k, m, self.B) if self.eta is None else self.eta
        N, nu = est.genest_threshold(2.0 * self.B / self.eps)
        per = np.zeros(m, dtype=np.int64)
        wbar, total = _aesvr_extra_kernel(X, y, self.k, eta, self.B, self.delta, self.eps,
                                          np.full(d, 1e-3 * self.B / math.sqrt(d)), est.taylor_rho_prime(self.n_terms),
                                          N, nu, as_kernel_state(self.random_state), per)
        self.coef_, self.intercept_, self.eta_, self.n_features_in_ = wbar, 0.0, float(eta), d
        self.n_attributes_seen_, self.queries_per_example_ = int(total), per
        return self


class AESVRNeverMoves(AESVR):
    """The trivial learner: runs Algorithm 4 (same reads) but returns its start w₁."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = np.full(self.coef_.shape[0], 1e-3 * self.B / math.sqrt(self.coef_.shape[0]))
        return self
