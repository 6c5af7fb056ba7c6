"""The library's AERR and AELR against literal NumPy implementations at d = 784 (k = 56)."""

from __future__ import annotations

import numpy as np
import pytest
import workloads as W

from theorycheck.algorithms import AELR, AERR
from theorycheck.bounds.hk12 import thm31_eta, thm34_eta


@pytest.fixture(scope="module")
def mnist_sized():
    return W.hypercube(W.NUMPY_M, W.NUMPY_D, seed=2)


def _pair(learner, X, y):
    m, d = X.shape
    if learner == "AERR":
        eta = thm31_eta(d, W.NUMPY_K, m)
        return (lambda: AERR(k=W.NUMPY_K, eta=eta, random_state=0).fit(X, y).coef_,
                lambda: W.numpy_aerr(X, y, W.NUMPY_K, 1.0, eta, np.random.default_rng(0)))
    eta = thm34_eta(d, W.NUMPY_K, m, 1.0, "theorem")
    return (lambda: AELR(k=W.NUMPY_K, eta=eta, random_state=0).fit(X, y).coef_,
            lambda: W.numpy_aelr(X, y, W.NUMPY_K, 1.0, eta, np.random.default_rng(0)))


@pytest.mark.parametrize("learner", ["AERR", "AELR"])
@pytest.mark.parametrize("implementation", ["kernel", "numpy"])
def test_kernel_against_numpy(benchmark, mnist_sized, learner, implementation):
    X, y = mnist_sized
    fast, slow = _pair(learner, X, y)
    benchmark.group = f"{learner}, d = {W.NUMPY_D}, k = {W.NUMPY_K}, m = {W.NUMPY_M}: kernel against NumPy"
    wbar = benchmark.pedantic(fast if implementation == "kernel" else slow, rounds=3, iterations=1)
    assert wbar.shape == (W.NUMPY_D,) and np.all(np.isfinite(wbar))
    W.per_example(benchmark, X.shape[0])
