"""Learners written the way a user would write them (plain NumPy, their own random generator), to
check ``theorycheck conform``: one correct AERR and copies with the defects the conformance issue
lists. None shares code or random streams with theorycheck.algorithms."""

from __future__ import annotations

import math

import numpy as np


class MyAERR:
    """hk12 Algorithm 1 from the paper: k uniform draws for x̃ (weight d/k), one j ∝ w_j² for φ̃,
    projected gradient step, average of the iterates."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, record_trajectory=False):
        self.k, self.B, self.eta, self.random_state, self.record_trajectory = k, B, eta, random_state, record_trajectory

    # the parts a defect changes
    x_weight = None  # None: d/k (the paper)

    def inner(self, rng, w, x, y):
        """(φ̃, j read) of lines 8–9."""
        sq = float(w @ w)
        if sq == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=w * w / sq))
        return sq * x[j] / w[j] - y, j

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        eta = self.eta if self.eta is not None else B * math.sqrt(2 * k / (d * m)) / 2  # unused by conform
        rng = np.random.default_rng(self.random_state)
        w = np.zeros(d)
        ws, gs, coords, js = [], [], [], []
        n_read = 0
        for t in range(m):
            x = X[t]
            idx = rng.integers(0, d, size=k)
            xt = np.zeros(d)
            weight = d / k if self.x_weight is None else self.x_weight
            for i in idx:
                xt[i] += weight * x[i]
            phi, j = self.inner(rng, w, x, y[t])
            g = phi * xt
            ws.append(w.copy())
            gs.append(g)
            coords.append(idx)
            js.append(j)
            n_read += len(set(idx.tolist()) | ({j} if j >= 0 else set()))
            v = w - eta * g
            w = v * B / max(np.linalg.norm(v), B)
        self.coef_ = np.mean(ws, axis=0)
        self.n_attributes_seen_ = n_read
        self.eta_ = eta
        if self.record_trajectory:
            self.trajectory_ = {"w": np.array(ws), "g": np.array(gs), "coordinates": np.array(coords),
                                "j": np.array(js)}
        return self


class NoFactorD(MyAERR):
    """x̃ without the factor d: its gradient is biased by 1/d."""

    x_weight = 1.0


class ReadsEverything(MyAERR):
    """Uses the exact ⟨w, x⟩ (all d attributes) but records and counts only k + 1."""

    def inner(self, rng, w, x, y):
        sq = float(w @ w)
        if sq == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=w * w / sq))
        return float(w @ x) - y, j


class AbsDraw(MyAERR):
    """Draws j ∝ |w_j| but weights by ‖w‖²/w_j as if it had drawn ∝ w_j²: biased."""

    def inner(self, rng, w, x, y):
        l1 = float(np.abs(w).sum())
        if l1 == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=np.abs(w) / l1))
        return float(w @ w) * x[j] / w[j] - y, j


class AELRInnerProduct(MyAERR):
    """AELR's inner-product draw (j ∝ |w_j|, φ̃ = ‖w‖₁ sign(w_j) x_j − y): unbiased, another law."""

    def inner(self, rng, w, x, y):
        l1 = float(np.abs(w).sum())
        if l1 == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=np.abs(w) / l1))
        return l1 * np.sign(w[j]) * x[j] - y, j
