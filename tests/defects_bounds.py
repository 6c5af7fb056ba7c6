"""Planted defects of the bound and lower-bound claims (hk12.thm3.1, hk12.thm3.4, cbss11.thm2,
cbss11.thm3), importable as `--subject NAME=tests.defects_bounds:ATTR`.

Each is a subclass or a small stand-in of the library's subject that differs in one way, so
that the claims' power tables (the ``defects`` declared beside each claim) can be checked."""

from __future__ import annotations

import math

import numpy as np

from theorycheck.algorithms import AELR, AERR
from theorycheck.bounds.hk12 import thm31_eta, thm34_eta
from theorycheck.generators.hypercube import HypercubeInstance, sparse_l1_instance, uniform_l2_instance


# ------------------------------------------------------------------------------ learners
def _aerr_start(model, d):
    return np.full(d, 1e-3 * model.B / math.sqrt(d)) if model.w_init is None else np.asarray(model.w_init, float)


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


def _aelr_eta(model, m, d):
    if isinstance(model.eta, int | float):
        return float(model.eta)
    return thm34_eta(d, model.k, m, model.B, "theorem" if model.eta is None else model.eta)


class ZeroLearner:
    """Returns w̄ = 0 without reading anything."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None):
        self.k, self.B, self.eta, self.random_state = k, B, eta, random_state

    def fit(self, X, y):
        self.coef_ = np.zeros(np.shape(X)[1])
        self.n_attributes_seen_ = 0
        return self


class StillAERR(AERR):
    """Computes every step (it reads the same attributes) but never applies one: every iterate is
    w_1, so w̄ = w_1, the trivial learner."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = _aerr_start(self, np.shape(X)[1]).copy()
        return self


class StillAELR(AELR):
    """AELR whose multiplicative update is computed and discarded: w̄ = w_1 = 0."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = np.zeros(np.shape(X)[1])
        return self


class TenfoldEtaAERR(AERR):
    """Steps ten times larger than the η it is given."""

    def fit(self, X, y):
        m, d = np.shape(X)
        return _with(self, super().fit, X, y, eta=10.0 * (thm31_eta(d, self.k, m) if self.eta is None else self.eta))


class TenfoldEtaAELR(AELR):
    """Steps (and clips at) ten times the η it is given."""

    def fit(self, X, y):
        m, d = np.shape(X)
        return _with(self, super().fit, X, y, eta=10.0 * _aelr_eta(self, m, d))


class MissingScaleAELR(AELR):
    """AELR's x̃ without the importance weight d/k. Then η·clip((k/d)·g̃, 1/η) = η'·clip(g̃, 1/η')
    with η' = η·k/d: exactly AELR run with η·k/d."""

    def fit(self, X, y):
        m, d = np.shape(X)
        return _with(self, super().fit, X, y, eta=_aelr_eta(self, m, d) * self.k / d)


class MissingScaleAERR(AERR):
    """x̃ = Σ_r x[i_r]·e_{i_r}, without the importance weight d/k of lines 5–7. The update
    v = w − η·φ̃·x̃ is linear in x̃, so this is exactly AERR run with η·k/d."""

    def fit(self, X, y):
        m, d = np.shape(X)
        return _with(self, super().fit, X, y, eta=(thm31_eta(d, self.k, m) if self.eta is None else self.eta)
                     * self.k / d)


class FirstAttributesAERR(AERR):
    """A biased data-point estimate that drops every sampled coordinate outside the first k, so the
    learner converges to the best predictor on those k."""

    def fit(self, X, y):
        X = np.array(X, dtype=np.float64)
        X[:, self.k:] = 0.0
        return super().fit(X, y)


class NoProjectionAERR(AERR):
    """Line 12 (the projection onto the L2 ball) dropped: a ball so large that the projection never
    acts, with w_1 and η those of the real radius."""

    def fit(self, X, y):
        m, d = np.shape(X)
        eta = thm31_eta(d, self.k, m) if self.eta is None else self.eta
        return _with(self, super().fit, X, y, B=1e300, w_init=_aerr_start(self, d), eta=eta)


class NegatedLabelAERR(AERR):
    """Reads the label with the wrong sign (converges to −w*)."""

    def fit(self, X, y):
        return super().fit(X, -np.asarray(y, dtype=np.float64))


class GreedyAERR(AERR):
    """Reports reading every attribute of every example: not attribute-efficient."""

    def fit(self, X, y):
        super().fit(X, y)
        self.n_attributes_seen_ = int(np.size(X))
        return self


# ------------------------------------------------------------------------------ k-active prediction
class CopiedAttributes(HypercubeInstance):
    """Every attribute is a copy of the first: reading one attribute reveals y exactly."""

    def sample(self, n, random_state):
        X, _ = super().sample(n, random_state)
        X[:] = X[:, :1]
        return X, X @ self.w_star


def copied_attributes_instance(params):
    """Theorem 2's w* on copied attributes (the attributes are not independent)."""
    return CopiedAttributes(uniform_l2_instance(params["d"]).w_star)


def copied_sparse_instance(params):
    """Theorem 3's w* on copied attributes."""
    return CopiedAttributes(sparse_l1_instance(params["d"], round(params["c"] * params["k"])).w_star)


def spiked_instance(params):
    """A construction bug for Theorem 2: w* = e_1 (still ‖w*‖₂ = 1), so one attribute gives y."""
    w = np.zeros(params["d"])
    w[0] = 1.0
    return HypercubeInstance(w)


def unequal_sparse_instance(params):
    """A construction bug for Theorem 3: ck non-zero weights summing to 1, but half the mass on the
    first one (the theorem needs ck equal weights)."""
    ck = round(params["c"] * params["k"])
    w = np.zeros(params["d"])
    w[0] = 0.5
    w[1:ck] = 0.5 / (ck - 1)
    return HypercubeInstance(w)


class ScaledFirst:
    """Knows the attributes are copies and predicts y from the first one."""

    name = "scaled first attribute"

    def predict(self, oracle, k, w_star, random_state):
        return oracle.reveal_column(0) * w_star.sum()


class Peeker:
    """Reads k + 1 attributes: not k-active."""

    name = "peeker"

    def predict(self, oracle, k, w_star, random_state):
        pred = np.zeros(oracle.n)
        for j in range(min(k + 1, oracle.d)):
            pred += w_star[j] * oracle.reveal_column(j)
        return pred


class OccasionalPeeker:
    """The partial sum over the first k attributes, plus attribute k + 1 on about 1% of the examples (every
    hundredth, from a fresh NumPy stream's offset): over budget on a few examples only."""

    name = "occasional peeker"

    def predict(self, oracle, k, w_star, random_state):
        pred = np.zeros(oracle.n)
        for j in range(min(k, oracle.d)):
            pred += w_star[j] * oracle.reveal_column(j)
        if k < oracle.d:
            start = int(np.random.default_rng(oracle.n).integers(100))
            rows = np.arange(start, oracle.n, 100)
            pred[rows] += w_star[k] * oracle.reveal(rows, np.full(len(rows), k))
        return pred


PEEKER = (Peeker(),)
OCCASIONAL_PEEKER = (OccasionalPeeker(),)
SCALED_FIRST = (ScaledFirst(),)
