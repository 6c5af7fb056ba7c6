"""Planted defects for the regret lemmas of hk12 §3 (``hk12.lemma3.2``, ``3.5``, ``3.6``, ``3.7``).

Each defect is a literal transcription of Algorithm 1 (AERR) or Algorithm 2 (AELR), dense and
O(d) per example, with one thing wrong, and it records its path the way the library's learners
do (``record_trajectory=True`` sets ``trajectory_``), so the claims check the path the defect
actually took. Importable by the CLI as ``--subject learner=tests.defects_regret:NAME``.

:class:`LiteralAERR` and :class:`LiteralAELR` (no defect) draw their random numbers in the same
order as the library's kernels, so with the same ``random_state`` they must take the same path:
``tests/test_hk12_regret.py`` checks the recorded trajectories against them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from theorycheck.bounds.hk12 import thm31_eta, thm34_eta
from theorycheck.rng import as_kernel_state, next_index, next_weighted_index


@njit(cache=True)
def _literal_aerr(X, y, k, eta, B, w1, project, step, state, W, G, PHI, IDX, J):
    """Algorithm 1 with w_{t+1} = Π(w_t − step·η·g̃_t) (no Π when ``project`` is false)."""
    m, d = X.shape
    w = w1.copy()
    seen = np.full(d, -1)
    n_read = 0
    for t in range(m):
        W[t] = w
        xt = np.zeros(d)
        for r in range(k):
            i = next_index(state, d)
            IDX[t, r] = i
            xt[i] += d * X[t, i] / k
            if seen[i] != t:
                seen[i] = t
                n_read += 1
        sq = (w * w).sum()
        J[t] = -1
        if sq > 0.0:
            j = next_weighted_index(state, np.cumsum(w * w))
            J[t] = j
            if seen[j] != t:
                seen[j] = t
                n_read += 1
            phi = sq * X[t, j] / w[j] - y[t]
        else:
            phi = -y[t]
        PHI[t] = phi
        G[t] = phi * xt
        v = w - step * eta * G[t]
        norm = math.sqrt((v * v).sum())
        w = v * B / max(norm, B) if project else v
    return n_read


@njit(cache=True)
def _literal_aelr(X, y, k, eta, B, direction, clip, weight, state, W, G, GT, P, PHI, IDX, J):
    """Algorithm 2 in log space (θ = log z⁺ = −log z⁻) with θ ← θ − direction·η·ḡ_t, importance
    weight ``weight`` on x̃ (d in the paper) and clipping at 1/η when ``clip``."""
    m, d = X.shape
    theta = np.zeros(d)
    seen = np.full(d, -1)
    n_read = 0
    for t in range(m):
        top = np.abs(theta).max()
        zp = np.exp(theta - top)
        zm = np.exp(-theta - top)
        total = zp.sum() + zm.sum()
        P[t, :d] = zp / total
        P[t, d:] = zm / total
        w = B * (P[t, :d] - P[t, d:])
        W[t] = w
        xt = np.zeros(d)
        for r in range(k):
            i = next_index(state, d)
            IDX[t, r] = i
            xt[i] += weight * X[t, i] / k
            if seen[i] != t:
                seen[i] = t
                n_read += 1
        l1 = np.abs(w).sum()
        J[t] = -1
        if l1 > 0.0:
            j = next_weighted_index(state, np.cumsum(np.abs(w)))
            J[t] = j
            if seen[j] != t:
                seen[j] = t
                n_read += 1
            phi = l1 * (1.0 if w[j] > 0.0 else -1.0) * X[t, j] - y[t]
        else:
            phi = -y[t]
        PHI[t] = phi
        GT[t] = phi * xt
        G[t] = np.minimum(np.maximum(GT[t], -1.0 / eta), 1.0 / eta) if clip else GT[t]
        theta = theta - direction * eta * G[t]
    return n_read


class _Literal:
    """The constructor and ``fit`` shared by the literal learners (scikit-learn style)."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.eta = eta
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def fit(self, X, y):
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        m, d = X.shape
        eta = self._default_eta(d, self.k, m) if self.eta is None else float(self.eta)
        path = {"w": np.zeros((m, d)), "g": np.zeros((m, d)), "g_tilde": np.zeros((m, d)),
                "phi": np.zeros(m), "coordinates": np.zeros((m, self.k), dtype=np.int64),
                "j": np.zeros(m, dtype=np.int64)}
        self.n_attributes_seen_ = int(self._run(X, y, eta, float(self.B), as_kernel_state(self.random_state), path))
        self.coef_ = path["w"].mean(axis=0)
        self.intercept_ = 0.0
        self.eta_ = eta
        self.n_features_in_ = d
        if self.record_trajectory:
            self.trajectory_ = {**path, "eta": eta, "B": float(self.B)}
        return self


class LiteralAERR(_Literal):
    """hk12 Algorithm 1 as printed (w_1 = 10⁻³·(B/√d)·𝟏, as the library's AERR)."""

    project = True
    step = 1.0  # the step taken is step·η·g̃ (the step reported is η)

    @staticmethod
    def _default_eta(d, k, m):
        return thm31_eta(d, k, m)

    def _run(self, X, y, eta, B, state, path):
        d = X.shape[1]
        w1 = np.full(d, 1e-3 * B / math.sqrt(d))
        n_read = _literal_aerr(X, y, self.k, eta, B, w1, self.project, self.step, state, path["w"], path["g"],
                               path["phi"], path["coordinates"], path["j"])
        path["g_tilde"] = path["g"]
        return n_read


class LiteralAELR(_Literal):
    """hk12 Algorithm 2 as printed (w_1 = 0), recording p_t as well."""

    direction = 1.0  # +1: z⁺ ← z⁺·exp(−ηḡ), as line 14
    clip = True

    @staticmethod
    def _default_eta(d, k, m):
        return thm34_eta(d, k, m, 1.0, "theorem")

    def _weight(self, d):
        return float(d)

    def _run(self, X, y, eta, B, state, path):
        m, d = X.shape
        path["p"] = np.zeros((m, 2 * d))
        return _literal_aelr(X, y, self.k, eta, B, self.direction, self.clip, self._weight(d), state, path["w"],
                             path["g"], path["g_tilde"], path["p"], path["phi"], path["coordinates"], path["j"])


# ------------------------------------------------------------------------------- the defects
class AERRNoProjection(LiteralAERR):
    """Skips line 12 (the projection onto the ball): the iterates leave the ball."""

    project = False


class AERRAscent(LiteralAERR):
    """Steps along +g̃ (gradient ascent): the regret of Lemma 3.2 grows linearly."""

    step = -1.0


class AERRDoubleStep(LiteralAERR):
    """Steps 2η but reports η: the (η/2)Σ‖g̃‖² term of Lemma 3.2 is too small for its path."""

    step = 2.0


class AERRFrozen(LiteralAERR):
    """Computes every step and applies none: w_t = w_1 throughout."""

    step = 0.0


class AELRWrongSign(LiteralAELR):
    """EG± with the wrong sign (z⁺ ← z⁺·exp(+ηḡ), z⁻ ← z⁻·exp(−ηḡ)): it moves towards the worst
    vertex, and the regret of Lemmas 3.5 and 3.6 grows linearly."""

    direction = -1.0


class AELRFrozen(LiteralAELR):
    """Computes every step and applies none: w_t = 0 throughout."""

    direction = 0.0


class AELRNoClip(LiteralAELR):
    """Skips line 13: updates with the unclipped g̃ (and records it as the ḡ it used)."""

    clip = False


class AELRSquaredWeight(LiteralAELR):
    """A biased gradient estimate: the importance weight of x̃ is d² instead of d (so E x̃ = d·x
    and E g̃² grows like d³ instead of d): clipping cuts much more than Lemma 3.7 allows."""

    def _weight(self, d):
        return float(d * d)


class AERRReturnsStart(LiteralAERR):
    """Runs Algorithm 1 and records its path, but returns w_1 instead of the average (line 14)."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = np.full(np.shape(X)[1], 1e-3 * float(self.B) / math.sqrt(np.shape(X)[1]))
        return self


class AELRReturnsStart(LiteralAELR):
    """Runs Algorithm 2 and records its path, but returns w_1 = 0 instead of the average (line 18)."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = np.zeros(np.shape(X)[1])
        return self
