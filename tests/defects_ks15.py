"""Planted defects of the ks15 bound claims (ks15.thm3.1, 3.3, 3.4, 4.1, 4.4, 4.5), importable as
`--subject learner=tests.defects_ks15:ATTR`.

Each is a subclass of the library's learner that differs in one way: its q (still unbiased), its
phase 1, its label, or whether it moves. The defects of the estimator itself (draws and importance
weights from different distributions, unnormalised improved inner-product probabilities) replace the
kernel by a literal GAERR (Algorithm 1 written out, no lazy scaling or sum-trees) or GAELR (Algorithm 3)
with that one thing changed; with the defaults (uniform q) it is GAERR or GAELR, draw for draw."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from theorycheck.algorithms import DDAELR, DDAERR, GAELR, GAERR, TwoPhaseDDAELR, TwoPhaseDDAERR
from theorycheck.algorithms.aerr import ridge_start, trajectory_buffers
from theorycheck.rng import next_weighted_index

_EMPTY = np.zeros(0)


def _with(model, fit, X, y, **params):
    """Call ``fit`` with some parameters of ``model`` temporarily replaced."""
    saved = {name: getattr(model, name) for name in params}
    for name, value in params.items():
        setattr(model, name, value)
    try:
        return fit(X, y)
    finally:
        for name, value in saved.items():
            setattr(model, name, value)


# ------------------------------------------------------------------------------ sampling, weights, inner product
@njit(cache=True)
def _literal_gaerr(X, y, k, eta, B, w1, state, q_cumulative, q_weight, c, normalise, rec_w, rec_g, rec_phi, rec_idx,
                   rec_j):
    """Algorithm 1 written out (no lazy scaling, no sum-trees), recording every step. The k data-point
    draws follow ``q_cumulative`` and are weighted by ``q_weight`` (the real learner ties both to q);
    j ∝ w_j² (``c`` empty) or ∝ |w_j|·c_j; with ``normalise`` false, φ̃ divides by the unnormalised
    weight of j instead of its probability."""
    m, d = X.shape
    w = w1.copy()
    acc = np.zeros(d)
    weights = np.empty(d)
    stamp = np.full(d, -1, dtype=np.int64)
    n_read = 0
    for t in range(m):
        acc += w
        rec_w[t] = w
        xt = np.zeros(d)
        for r in range(k):
            i = next_weighted_index(state, q_cumulative)
            rec_idx[t, r] = i
            if stamp[i] != t:
                stamp[i] = t
                n_read += 1
            xt[i] += X[t, i] * q_weight[i] / k
        total = 0.0
        for j in range(d):
            weights[j] = w[j] * w[j] if c.shape[0] == 0 else abs(w[j]) * c[j]
            total += weights[j]
        if total > 0.0:
            jj = next_weighted_index(state, np.cumsum(weights))
            if stamp[jj] != t:
                stamp[jj] = t
                n_read += 1
            p = weights[jj] / total if normalise else weights[jj]
            phi = w[jj] / p * X[t, jj] - y[t]
        else:
            jj = -1
            phi = -y[t]
        rec_j[t] = jj
        rec_phi[t] = phi
        g = phi * xt
        rec_g[t] = g
        v = w - eta * g
        size = math.sqrt((v * v).sum())
        w = v * (B / max(size, B))
    return acc / m, n_read


class _Literal:
    """Runs :func:`_literal_gaerr` in place of the library's kernel, with the draws' law, their
    importance weights and the inner product's normalisation chosen by the subclass."""

    _normalise = True

    def _draws_and_weights(self, q, d):
        q = np.full(d, 1.0 / d) if q is None else q
        return np.cumsum(q), 1.0 / q

    def _run(self, X, y, k, eta, B, start, state, q, inner, draws, moments=None, record=True):
        m, d = X.shape
        cumulative, weight = self._draws_and_weights(q, d)
        rec = trajectory_buffers(True, m, d, k)
        wbar, n_read = _literal_gaerr(X, y, k, eta, B, start, state, cumulative, weight,
                                      _EMPTY if inner is None else inner, self._normalise,
                                      rec["w"], rec["g"], rec["phi"], rec["coordinates"], rec["j"])
        if record and self.record_trajectory:
            self.trajectory_ = {**rec, "g_tilde": rec["g"], "eta": float(eta), "B": float(B)}
        return wbar, n_read, 0


class _MismatchedWeights(_Literal):
    """Draws the data-point attributes from q but weights each draw by d, the weight of uniform draws."""

    def _draws_and_weights(self, q, d):
        return super()._draws_and_weights(q, d)[0], np.full(d, float(d))


class _UniformDraws(_Literal):
    """Draws the data-point attributes uniformly but weights each draw by the declared 1/q_i."""

    def _draws_and_weights(self, q, d):
        return super()._draws_and_weights(None, d)[0], super()._draws_and_weights(q, d)[1]


class MismatchedWeightsGAERR(_MismatchedWeights, GAERR):
    """GAERR whose importance weights are those of uniform draws (d) while it draws from q."""


class UniformDrawsGAERR(_UniformDraws, GAERR):
    """GAERR that draws uniformly but weights by the declared 1/q_i."""


@njit(cache=True)
def _literal_gaelr(X, y, k, eta, B, theta, state, q_cumulative, q_weight, record, rec_w, rec_g, rec_gt, rec_phi,
                   rec_idx, rec_j):
    """GAELR (ks15 Algorithm 3) written out densely: k data-point draws from q weighted q_weight[i] each, one
    inner-product draw j ∝ |w_j| (none while w = 0), ḡ = clip(φ̃·x̃, 1/η), θ ← θ − ηḡ with z± = e^{±θ}, so
    w = B·(z⁺ − z⁻)/(‖z⁺‖₁ + ‖z⁻‖₁). With ``record``, row t of the rec_ arrays receives w_t, ḡ_t, g̃_t, φ̃_t,
    the draws and j (−1 for none), as the library's kernel records them. Returns (w̄, distinct attributes read)."""
    m, d = X.shape
    theta = theta.copy()
    w, wsum, cum, xt = np.zeros(d), np.zeros(d), np.empty(d), np.zeros(d)
    idx = np.empty(k, dtype=np.int64)
    stamp = np.full(d, -1)
    n_read = 0
    for t in range(m):
        top = np.abs(theta).max()
        plus, minus = np.exp(theta - top), np.exp(-theta - top)
        w[:] = B * (plus - minus) / (plus + minus).sum()
        wsum += w
        for r in range(k):
            i = next_weighted_index(state, q_cumulative)
            idx[r] = i
            if stamp[i] != t:
                stamp[i] = t
                n_read += 1
        phi = -y[t]
        j = -1
        total = np.abs(w).sum()
        if total > 0.0:
            cum[:] = np.cumsum(np.abs(w))
            j = next_weighted_index(state, cum)
            phi += math.copysign(total, w[j]) * X[t, j]
            if stamp[j] != t:
                stamp[j] = t
                n_read += 1
        xt[:] = 0.0
        for r in range(k):
            i = idx[r]
            xt[i] += q_weight[i] * X[t, i] / k
        if record:
            rec_w[t] = w
            rec_phi[t] = phi
            rec_j[t] = j
            rec_idx[t] = idx
        for i in range(d):
            if xt[i] != 0.0:
                g = phi * xt[i]
                clipped = min(max(g, -1.0 / eta), 1.0 / eta)
                if record:
                    rec_gt[t, i] = g
                    rec_g[t, i] = clipped
                theta[i] -= eta * clipped
    return wsum / m, n_read


class MismatchedWeightsGAELR(GAELR):
    """GAELR that draws the data-point attributes from q but weighs each draw by d, the importance weight of uniform
    draws: x̃ is then biased (E[x̃_i] = d·q_i·x_i), unless q is uniform. It records its path as GAELR does."""

    def _run(self, X, y, k, eta, B, start, state, q, inner, draws, moments=None, record=True):
        m, d = X.shape
        q = np.full(d, 1.0 / d) if q is None else q
        keep = record and bool(self.record_trajectory)
        rec = trajectory_buffers(keep, m, d, k, extra=("g_tilde",))
        wbar, n_read = _literal_gaelr(X, y, k, eta, B, start, state, np.cumsum(q), np.full(d, float(d)), keep,
                                      rec["w"], rec["g"], rec["g_tilde"], rec["phi"], rec["coordinates"], rec["j"])
        if keep:
            self.trajectory_ = {**rec, "eta": float(eta), "B": float(B)}
        return wbar, n_read, 0


class MismatchedWeightsDDAERR(_MismatchedWeights, DDAERR):
    """DDAERR drawing from q ∝ √s with the uniform weight d."""


class UnnormalisedInnerGAERR(_Literal, GAERR):
    """GAERR whose improved inner-product estimate divides by |w_j|·c_j, not by the probability
    |w_j|·c_j/Σ|w_l|c_l (so φ̃ + y estimates ⟨w, x⟩/Σ|w_l|c_l). Without inner_weights it is GAERR."""

    _normalise = False


class UniformQDDAERR(DDAERR):
    """DDAERR whose q is uniform (AERR's draws) whatever the second moments; η as given. The defect that removes
    ks15's idea from Theorem 3.3's learner."""

    _weights = staticmethod(np.ones_like)


class UniformQDDAELR(DDAELR):
    """DDAELR whose q is uniform (AELR's draws) whatever the second moments; η as given (Theorem 4.4's idea
    removed)."""

    _weights = staticmethod(np.ones_like)


class OwnStepAERR(UniformQDDAERR):
    """Plain AERR: uniform q and hk12 Theorem 3.1's own η = √(k/(2dm)), whatever η and moments it is given."""

    def fit(self, X, y):
        m, d = np.shape(X)
        return _with(self, super().fit, X, y, eta=math.sqrt(self.k / (2.0 * d * m)))


class LassoQDDAERR(DDAERR):
    """DDAERR with the Lasso's q ∝ s (still unbiased: weights 1/q for that q)."""

    _weights = staticmethod(lambda s: s)


class RidgeQDDAELR(DDAELR):
    """DDAELR with the Ridge's q ∝ √s (still unbiased)."""

    _weights = staticmethod(np.sqrt)


# ------------------------------------------------------------------------------ learners that do not learn
class StillGAERR(GAERR):
    """Computes every step with a step size of 10⁻³⁰⁰ (so the iterates never move) while reporting
    the η it was given, as its trajectory and eta_ say."""

    def fit(self, X, y):
        super_fit = super().fit
        _with(self, super_fit, X, y, eta=1e-300)
        m, d = np.shape(X)
        given = math.sqrt(self.k / (2.0 * d * m)) if self.eta is None else float(self.eta)
        self.eta_ = given
        if getattr(self, "trajectory_", None) is not None:
            self.trajectory_["eta"] = given
        return self


class _Still:
    """Fits (reads the same attributes) and then returns its starting point w_1."""

    def fit(self, X, y):
        super().fit(X, y)
        d = np.shape(X)[1]
        self.coef_ = ridge_start(None, d, self.B) if self._norm == "l2" else np.zeros(d)
        return self


class StillDDAERR(_Still, DDAERR):
    """DDAERR that returns w_1."""


class StillTwoPhaseDDAERR(_Still, TwoPhaseDDAERR):
    """Two-Phased DDAERR that returns w_1."""


class StillGAELR(_Still, GAELR):
    """GAELR that returns w_1 = 0."""


class StillDDAELR(_Still, DDAELR):
    """DDAELR that returns w_1 = 0."""


class StillTwoPhaseDDAELR(_Still, TwoPhaseDDAELR):
    """Two-Phased DDAELR that returns w_1 = 0."""


class _NegatedLabel:
    """Reads the label with the wrong sign (converges to −w*)."""

    def fit(self, X, y):
        return super().fit(X, -np.asarray(y, dtype=np.float64))


class NegatedLabelDDAERR(_NegatedLabel, DDAERR):
    """DDAERR reading −y."""


class NegatedLabelGAELR(_NegatedLabel, GAELR):
    """GAELR reading −y."""


# ------------------------------------------------------------------------------ phase 1
class NoSmoothingTwoPhaseDDAERR(TwoPhaseDDAERR):
    """Phase 2's q ∝ √A and H = ‖2A‖_{1/2}: the smoothing term ε of Algorithm 2 dropped."""

    def fit(self, X, y):
        return _with(self, super().fit, X, y, smoothing=0.0)


class NoSmoothingTwoPhaseDDAELR(TwoPhaseDDAELR):
    """Phase 2's q ∝ A: the smoothing term ε of Algorithm 4 dropped."""

    def fit(self, X, y):
        return _with(self, super().fit, X, y, smoothing=0.0)


class FirstExampleMomentsTwoPhaseDDAERR(TwoPhaseDDAERR):
    """Phase 1 reads every draw from the first example (an index slip: x_1 in place of x_t), so A
    estimates that example's x², not E[x²]. Phase 2 is untouched."""

    def fit(self, X, y):
        X = np.array(X, dtype=np.float64)
        m1 = max(1, X.shape[0] // 10) if self.m1 is None else int(self.m1)
        X[1:m1] = X[0]
        return super().fit(X, y)
