"""Time per example of the public ``fit`` against d (k = 10, x uniform on {±1/√d}^d, y = sign(x₁)/2):
on an m×d matrix, and through a streaming design of the same law (no matrix, no row: the learner
reads the attributes it draws from ``hypercube_stream``, m = W.M_STREAM at every d)."""

from __future__ import annotations

import pytest
import workloads as W


@pytest.mark.parametrize("learner", list(W.LEARNERS))
def test_fit_against_d(benchmark, hypercube, learner):
    X, y = hypercube
    m, d = X.shape
    make = W.LEARNERS[learner]
    benchmark.group = f"fit, k = {W.K}, d = {d:.0e}, m = {m}"
    est = benchmark.pedantic(lambda: make(d, W.K, 0).fit(X, y), rounds=3, iterations=1)
    assert est.n_attributes_seen_ <= (W.K + 1) * m
    W.per_example(benchmark, m)


@pytest.mark.parametrize("learner", list(W.LEARNERS))
@pytest.mark.parametrize("d", W.D_GRID, ids=lambda d: f"d={d:.0e}")
def test_fit_through_stream(benchmark, d, learner):
    design = W.hypercube_streaming(W.M_STREAM, d)
    make = W.LEARNERS[learner]
    benchmark.group = f"fit through a streaming design, k = {W.K}, d = {d:.0e}, m = {W.M_STREAM}"
    est = benchmark.pedantic(lambda: make(d, W.K, 0).fit(design), rounds=3, iterations=1)
    assert est.n_attributes_seen_ <= (W.K + 1) * W.M_STREAM
    W.per_example(benchmark, W.M_STREAM)


def test_memory_floor_against_d(benchmark, hypercube):
    X, y = hypercube
    m, d = X.shape
    benchmark.group = f"fit, k = {W.K}, d = {d:.0e}, m = {m}"
    w = benchmark.pedantic(lambda: W.floor_fit(X, y), rounds=3, iterations=1)
    assert w.shape == (d,) and w.any()
    W.per_example(benchmark, m)


@pytest.mark.parametrize("d", W.D_GRID, ids=lambda d: f"d={d:.0e}")
def test_memory_floor_through_stream(benchmark, d):
    design = W.hypercube_streaming(W.M_STREAM, d)
    benchmark.group = f"fit through a streaming design, k = {W.K}, d = {d:.0e}, m = {W.M_STREAM}"
    w = benchmark.pedantic(lambda: W.floor_fit(design), rounds=3, iterations=1)
    assert w.shape == (d,) and w.any()
    W.per_example(benchmark, W.M_STREAM)
