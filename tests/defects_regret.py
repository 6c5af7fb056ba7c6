"""Planted defects for the regret lemmas of hk12 §3 (``hk12.lemma3.2``, ``3.5``, ``3.6``, ``3.7``).

Each defect is a small, literal NumPy transcription of Algorithm 1 (AERR) or Algorithm 2 (AELR)
with one thing wrong, and it records its path the way the library's learners do
(``record_trajectory=True`` sets ``trajectory_``), so the claims check the path the defect
actually took. Importable by the CLI as ``--subject learner=tests.defects_regret:NAME``.

The literal learners without a defect (:class:`LiteralAERR`, :class:`LiteralAELR`) are also the
slow references the tests compare the recorded paths of the jitted kernels with, in law.
"""

from __future__ import annotations

import math

import numpy as np

from theorycheck.bounds.hk12 import thm31_eta, thm34_eta
from theorycheck.rng import as_generator


class _Literal:
    """Shared constructor and bookkeeping; subclasses implement ``_run``."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.eta = eta
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def fit(self, X, y):
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        m, d = X.shape
        eta = self._default_eta(d, self.k, m) if self.eta is None else float(self.eta)
        rng = as_generator(self.random_state)
        path = {"w": np.zeros((m, d)), "g": np.zeros((m, d)), "g_tilde": np.zeros((m, d)),
                "phi": np.zeros(m), "coordinates": np.zeros((m, self.k), dtype=np.int64),
                "j": np.full(m, -1, dtype=np.int64)}
        extra, n_read = self._run(X, y, eta, float(self.B), rng, path)
        path.update(extra)
        self.coef_ = path["w"].mean(axis=0)
        self.intercept_ = 0.0
        self.eta_ = eta
        self.n_attributes_seen_ = n_read
        self.n_features_in_ = d
        if self.record_trajectory:
            self.trajectory_ = {**path, "eta": eta, "B": float(self.B)}
        return self

    def _estimate(self, x, yt, w, weights, rng, path, t):
        """Lines 3–10 (AERR) / 4–11 (AELR): g̃ = φ̃ x̃; ``weights`` are the inner-product
        sampling weights (w² or |w|). Returns (g̃, attributes read)."""
        d, k = x.shape[0], self.k
        idx = rng.integers(0, d, size=k)
        xt = np.zeros(d)
        for i in idx:
            xt[i] += self._weight(d) * x[i] / k
        read = set(int(i) for i in idx)
        if weights.sum() > 0.0:
            j = int(rng.choice(d, p=weights / weights.sum()))
            read.add(j)
            phi = self._inner(w, j, x) - yt
            path["j"][t] = j
        else:
            phi = -yt
        path["phi"][t] = phi
        path["coordinates"][t] = idx
        return phi * xt, len(read)

    def _weight(self, d):
        return d


class LiteralAERR(_Literal):
    """hk12 Algorithm 1 as printed (w_1 = 10⁻³·(B/√d)·𝟏, as the library's AERR)."""

    project = True
    direction = 1.0  # +1: descent
    step_factor = 1.0  # the step taken is step_factor·η, the step reported η

    @staticmethod
    def _default_eta(d, k, m):
        return thm31_eta(d, k, m)

    @staticmethod
    def _inner(w, j, x):
        return float(w @ w) * x[j] / w[j]

    def _run(self, X, y, eta, B, rng, path):
        m, d = X.shape
        w = np.full(d, 1e-3 * B / math.sqrt(d))
        n_read = 0
        for t in range(m):
            path["w"][t] = w
            g, read = self._estimate(X[t], y[t], w, w * w, rng, path, t)
            n_read += read
            path["g"][t] = path["g_tilde"][t] = g
            v = w - self.direction * self.step_factor * eta * g
            w = v * B / max(float(np.linalg.norm(v)), B) if self.project else v
        return {}, n_read


class LiteralAELR(_Literal):
    """hk12 Algorithm 2 as printed, in log space (θ = log z⁺ = −log z⁻)."""

    direction = 1.0  # +1: z⁺ ← z⁺·exp(−ηḡ), as line 14
    clip = True

    @staticmethod
    def _default_eta(d, k, m):
        return thm34_eta(d, k, m, 1.0, "theorem")

    @staticmethod
    def _inner(w, j, x):
        return float(np.abs(w).sum()) * math.copysign(1.0, w[j]) * x[j]

    def _run(self, X, y, eta, B, rng, path):
        m, d = X.shape
        theta = np.zeros(d)
        p = np.zeros((m, 2 * d))
        n_read = 0
        for t in range(m):
            top = float(np.abs(theta).max())
            zp, zm = np.exp(theta - top), np.exp(-theta - top)
            total = zp.sum() + zm.sum()
            p[t, :d], p[t, d:] = zp / total, zm / total
            w = B * (p[t, :d] - p[t, d:])
            path["w"][t] = w
            g, read = self._estimate(X[t], y[t], w, np.abs(w), rng, path, t)
            n_read += read
            path["g_tilde"][t] = g
            gbar = np.clip(g, -1.0 / eta, 1.0 / eta) if self.clip else g
            path["g"][t] = gbar
            theta = theta - self.direction * eta * gbar
        return {"p": p}, n_read


# ------------------------------------------------------------------------------- the defects
class AERRNoProjection(LiteralAERR):
    """Skips line 12 (the projection onto the ball): Lemma 3.2's iterates leave the ball."""

    project = False


class AERRAscent(LiteralAERR):
    """Steps along +g̃ (gradient ascent): the regret of Lemma 3.2 grows linearly."""

    direction = -1.0


class AERRDoubleStep(LiteralAERR):
    """Steps 2η but reports η: the (η/2)Σ‖g̃‖² term of Lemma 3.2 is too small for its path."""

    step_factor = 2.0


class AELRWrongSign(LiteralAELR):
    """EG± with the wrong sign (z⁺ ← z⁺·exp(+ηḡ), z⁻ ← z⁻·exp(−ηḡ)): it moves towards the
    worst vertex, and the regret of Lemmas 3.5 and 3.6 grows linearly."""

    direction = -1.0


class AELRSquaredWeight(LiteralAELR):
    """A biased gradient estimate: the importance weight of x̃ is d² instead of d (so E x̃ = d·x
    and E g̃² grows like d³ instead of d): clipping cuts much more than Lemma 3.7 allows."""

    def _weight(self, d):
        return d * d


class AELRNoClip(LiteralAELR):
    """Skips line 13: updates with the unclipped g̃ (and records it as the ḡ it used)."""

    clip = False


class AERRFrozen(LiteralAERR):
    """Computes every step and applies none: w_t = w_1 throughout."""

    step_factor = 0.0


class AELRFrozen(LiteralAELR):
    """Computes every step and applies none: w_t = 0 throughout."""

    direction = 0.0
