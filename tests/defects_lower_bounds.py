"""Planted defects for the lower-bound experiments (simulations/cbss11_lower_bound.py, simulations/hk12_lower_bound.py).

* Learners that cheat by reading the hidden part of the instance. ``leaky_good_feature`` and
  ``leaky_sparse_rows`` build the claims' instances and keep the last one in this module, where
  :class:`CheatingGoodFeature` (cbss11 Theorem 1) and :class:`CheatingSparseRows` (hk12 Theorem
  2.2) read it. A task builds its instance and fits its learners in the same process, so the
  learner always sees the instance of its own task.
* ``label_copy_feature``: a generator whose good feature carries the wrong bias (½ instead of
  √ε: x_j = y on every example), with its risk computed consistently for that bias.
* Learners that under-report their reads by 2× (issue 30): :class:`HalfReportedGoodFeature`
  (cbss11 Theorem 1) and :class:`HalfReportedRidge` (hk12 Theorem 2.2) read 2k uniformly random
  distinct attributes of each example in plain NumPy and report k per example. Only a count observed
  from the reads themselves catches them.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from theorycheck.generators.lower_bounds import good_feature, sparse_rows
from theorycheck.rng import as_generator

_LAST: dict[str, object] = {}


def leaky_good_feature(d, eps, seed):
    """The claim's P_j, remembered for the cheating learner."""
    _LAST["good_feature"] = good_feature(d, eps, j_seed=seed)
    return _LAST["good_feature"]


def leaky_sparse_rows(d, eps, seed):
    """The claim's sparse-rows instance, remembered for the cheating learner."""
    _LAST["sparse_rows"] = sparse_rows(d, k=round(1.0 / eps**2), T_seed=seed)
    return _LAST["sparse_rows"]


def label_copy_feature(d, eps, seed):
    """P_j with the wrong bias: the good feature copies the label (p = ½ instead of √ε)."""
    return good_feature(d, p=0.5, j_seed=seed)


class CheatingGoodFeature(RegressorMixin, BaseEstimator):
    """Reads only attribute j of each example (j taken from the instance): w = mean(x_j y)·e_j,
    m attributes in all, enough for excess < ε after O(1/ε) examples whatever d."""

    def __init__(self, k=1, B=1.0, random_state=None):
        self.k = k
        self.B = B
        self.random_state = random_state

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        j = _LAST["good_feature"].j
        coef = np.zeros(X.shape[1])
        coef[j] = float(np.clip(np.mean(X[:, j] * y), -self.B, self.B))
        self.coef_, self.intercept_, self.n_attributes_seen_ = coef, 0.0, int(X.shape[0])
        return self


class CheatingSparseRows(RegressorMixin, BaseEstimator):
    """Knows T: scans the coordinates of T of each example in a random order until it meets the
    non-zero one, and learns its sign; w = r_i/√k on the coordinates found. Its count, about
    k ln 2 examples of k/2 reads each to find half of T, does not depend on d."""

    def __init__(self, k=1, B=1.0, random_state=None):
        self.k = k
        self.B = B
        self.random_state = random_state

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        inst = _LAST["sparse_rows"]
        rng = as_generator(self.random_state)
        support, reads, found = inst.support, 0, {}
        for t in range(X.shape[0]):
            for i in rng.permutation(support):
                reads += 1
                if X[t, i] != 0.0:
                    found[int(i)] = float(np.sign(X[t, i]))
                    break
        coef = np.zeros(X.shape[1])
        for i, sign in found.items():
            coef[i] = sign / math.sqrt(support.shape[0])
        self.coef_, self.intercept_, self.n_attributes_seen_ = coef, 0.0, reads
        return self


class _HalfReported(RegressorMixin, BaseEstimator):
    """Reads 2k distinct uniformly random attributes of each example (one advanced index of X) and
    estimates c_i = E[x_i y] without bias, (d/2k)·mean_t(x_ti·y_t) over the reads; reports k·m reads,
    half of what it read. The output is the subclass's use of c."""

    def __init__(self, k=1, B=1.0, random_state=None):
        self.k = k
        self.B = B
        self.random_state = random_state

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        reads = min(2 * self.k, d)
        cols = np.argpartition(as_generator(self.random_state).random((m, d)), reads - 1, axis=1)[:, :reads]
        values = X[np.arange(m)[:, None], cols]
        c = np.zeros(d)
        np.add.at(c, cols, values * y[:, None])
        self.coef_ = self._output(c * d / (reads * m))
        self.intercept_, self.n_attributes_seen_ = 0.0, int(self.k * m)
        return self


class HalfReportedGoodFeature(_HalfReported):
    """On P_j: w = c_ĵ·e_ĵ at ĵ = argmax |c_i| (clipped to [−B, B]); E[x_j y] = 2√ε = w*_j."""

    def _output(self, c):
        w = np.zeros_like(c)
        j = int(np.argmax(np.abs(c)))
        w[j] = float(np.clip(c[j], -self.B, self.B))
        return w


class HalfReportedRidge(_HalfReported):
    """On the sparse rows: w = B·c/‖c‖ (in the ball); c ∝ r on T, so its direction is the optimum's."""

    def _output(self, c):
        norm = float(np.linalg.norm(c))
        return c * (self.B / norm) if norm > 0 else c
