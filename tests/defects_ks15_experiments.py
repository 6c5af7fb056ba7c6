"""Planted defects for the experiment claims of ks15 (``ks15.fig1``, ``ks15.fig2``,
``ks15.fewer-attributes``).

Each defect subclasses the library's learner and overrides one thing: the kernel call (a
literal, dense O(d)-per-example transcription of GAERR, ks15 Algorithm 1, with one step wrong),
the rule that turns the moments into q, or the phase-2 weights of a two-phase learner. Importable
by the CLI as ``--subject dd=tests.defects_ks15_experiments:NAME``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from theorycheck.algorithms import DDAELR, DDAERR, TwoPhaseDDAELR, TwoPhaseDDAERR
from theorycheck.rng import next_weighted_index


@njit(cache=True)
def _literal_gaerr(X, y, k, eta, B, w1, state, q, q_weight, c, square, inner_draws, normalise, exact_inner):
    """GAERR written densely: k data-point draws from q, the inner product from j ∝ w_j² (``square``,
    Algorithm 1) or j ∝ |w_j|·c_j (the improved inner product).

    ``q_weight[i]`` is the importance weight of a data-point draw of i (1/q_i when correct);
    ``normalise`` false leaves p_j (w_j² or |w_j|·c_j) unnormalised in w_j/p_j; ``exact_inner``
    computes ⟨w, x⟩ from every attribute (and counts them). Returns (w̄, distinct attributes read).
    """
    m, d = X.shape
    w = w1.copy()
    wsum = np.zeros(d)
    q_cum = np.cumsum(q)
    cum = np.empty(d)
    idx = np.empty(k, dtype=np.int64)
    stamp = np.full(d, -1)
    n_read = 0
    for t in range(m):
        wsum += w
        for r in range(k):
            i = next_weighted_index(state, q_cum)
            idx[r] = i
            if stamp[i] != t:
                stamp[i] = t
                n_read += 1
        if exact_inner:
            phi = -y[t]
            for i in range(d):
                phi += w[i] * X[t, i]
                if stamp[i] != t:
                    stamp[i] = t
                    n_read += 1
        else:
            total = 0.0
            for i in range(d):
                total += w[i] * w[i] if square else abs(w[i]) * c[i]
                cum[i] = total
            est = 0.0
            if total > 0.0:
                for _ in range(inner_draws):
                    j = next_weighted_index(state, cum)
                    p = w[j] * w[j] if square else abs(w[j]) * c[j]
                    if normalise:
                        p /= total
                    est += w[j] / p * X[t, j]
                    if stamp[j] != t:
                        stamp[j] = t
                        n_read += 1
            phi = est / inner_draws - y[t]
        for r in range(k):  # v = w − η φ̃ x̃ with x̃ = (1/k) Σ_r weight_i x[i] e_i
            i = idx[r]
            w[i] -= eta * phi * q_weight[i] * X[t, i] / k
        norm = math.sqrt((w * w).sum())
        if norm > B:
            w *= B / norm
    return wsum / m, n_read


class _LiteralDDAERR(DDAERR):
    """DDAERR whose kernel is :func:`_literal_gaerr`; subclasses set the three switches."""

    uniform_weights = False
    normalise = True
    exact_inner = False

    def _run(self, X, y, k, eta, B, start, state, q, inner, draws, moments=None, record=True):
        d = X.shape[1]
        weight = np.full(d, float(d)) if self.uniform_weights else np.where(q > 0, 1.0 / np.maximum(q, 1e-300), 0.0)
        c = np.ones(d) if inner is None else inner
        wbar, n_read = _literal_gaerr(X, y, k, eta, B, start, state, q, weight, c, inner is None, draws,
                                      self.normalise, self.exact_inner)
        return wbar, n_read, 0


class DDAERRMismatchedWeights(_LiteralDDAERR):
    """Draws i ∝ √E[x_i²] but weighs each draw by d, the importance weight of uniform sampling
    (x̃ is then biased: E[x̃_i] = d·q_i·x_i)."""

    uniform_weights = True


class DDAERRUnnormalisedInner(_LiteralDDAERR):
    """The inner-product estimate w_j/p_j·x_j with p_j left unnormalised: w_j² instead of
    w_j²/‖w‖² (Algorithm 1), or |w_j|·√E[x_j²] instead of that over Σ|w|·√E[x²] (the improved
    inner product), so φ̃ is biased."""

    normalise = False


class DDAERRFullInner(_LiteralDDAERR):
    """Computes ⟨w, x⟩ exactly from every attribute (and counts them): d + k attributes per
    example instead of k + 1."""

    exact_inner = True


class DDAELRReversedQ(DDAELR):
    """DDAELR with q_i ∝ E[x_{d+1−i}²], the moments in reverse order (an indexing slip): the weights
    1/q_i match q, so the estimate stays unbiased, but it samples the wrong attributes."""

    _weights = staticmethod(lambda s: np.array(s[::-1]))


class TwoPhaseDDAERRShiftedMoments(TwoPhaseDDAERR):
    """Phase 1 credits the estimate of attribute i − 1 to attribute i (cyclically): q, H and the
    improved inner product of phase 2 all use moments of the wrong attributes."""

    def _moment_estimate(self, counts, sums):
        return np.roll(super()._moment_estimate(counts, sums), 1)


class TwoPhaseDDAELRShiftedMoments(TwoPhaseDDAELR):
    """The Lasso two-phase learner with the phase-1 moments shifted by one attribute."""

    def _moment_estimate(self, counts, sums):
        return np.roll(super()._moment_estimate(counts, sums), 1)


class TwoPhaseDDAERRNoSmoothing(TwoPhaseDDAERR):
    """Phase 2 samples ∝ √A, without the smoothing term 13ε/6 of Algorithm 2."""

    def _weights(self, A, eps):
        return np.sqrt(A)


class _IgnoresMoments:
    """Forgets the second moments it is given: q uniform and the inner product j ∝ w_j², i.e. the uniform learner
    (AERR/AELR) under the DD learner's name, at the step size it is given."""

    def fit(self, X, y):
        d = np.shape(X)[1]
        saved = self.second_moments, self.improved_inner
        self.second_moments, self.improved_inner = np.ones(d), False
        try:
            return super().fit(X, y)
        finally:
            self.second_moments, self.improved_inner = saved


class DDAERRIgnoresMoments(_IgnoresMoments, DDAERR):
    """DDAERR that samples as AERR does, whatever E[x²]: ks15's idea removed."""


class DDAELRIgnoresMoments(_IgnoresMoments, DDAELR):
    """DDAELR that samples as AELR does, whatever E[x²]: ks15's idea removed."""
