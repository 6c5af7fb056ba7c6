"""Planted defects for the lower-bound experiments (simulations/cbss11_lower_bound.py, simulations/hk12_lower_bound.py).

* Learners that cheat by reading the hidden part of the instance. ``leaky_good_feature`` and
  ``leaky_sparse_rows`` build the claims' instances and keep the last one in this module, where
  :class:`CheatingGoodFeature` (cbss11 Theorem 1) and :class:`CheatingSparseRows` (hk12 Theorem
  2.2) read it. A task builds its instance and fits its learners in the same process, so the
  learner always sees the instance of its own task.
* ``label_copy_feature``: a generator whose good feature carries the wrong bias (½ instead of
  √ε: x_j = y on every example), with its risk computed consistently for that bias.
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
