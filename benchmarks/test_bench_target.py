"""Time to a target excess risk on the decaying-moment family (ks15 §5.1, bounded Ridge variant,
α = −2) at d = 10⁵: DDAERR reading k + 1 attributes per example against scikit-learn's
SGDRegressor reading all d, over the same sample. The m each needs (the least m of a √2 grid
whose one pass reaches ε) is found first, untimed; the benchmark times that one pass."""

from __future__ import annotations

import pytest
import workloads as W

from theorycheck.algorithms import DDAERR


@pytest.fixture(scope="module")
def decaying():
    stream = W.DecayingStream(W.TARGET_D)
    stream.check_against_registry()
    X, y = stream.sample(W.TARGET_M_MAX, seed=11)
    dd, sg = W.time_to_target(stream, X, y, repeats=1)
    return stream, X, y, dd, sg


def test_ddaerr_to_target(benchmark, decaying):
    stream, X, y, dd, _ = decaying
    if dd.m is None:
        pytest.fail(f"DDAERR did not reach ε = {W.TARGET_EPSILON} within m = {X.shape[0]} examples")
    k, s, m = W.ddaerr_k(stream), stream.second_moments, dd.m
    benchmark.group = f"time to excess risk ≤ {W.TARGET_EPSILON}, decaying α = {stream.alpha}, d = {stream.d:.0e}"
    benchmark.extra_info["attributes_read"] = dd.attributes
    est = benchmark.pedantic(lambda: DDAERR(k=k, second_moments=s, random_state=0).fit(X[:m], y[:m]),
                             rounds=3, iterations=1)
    assert stream.excess(est.coef_) <= W.TARGET_EPSILON
    W.per_example(benchmark, m)


def test_sgdregressor_to_target(benchmark, decaying):
    stream, X, y, _, sg = decaying
    if sg.m is None:
        pytest.fail(f"SGDRegressor did not reach ε = {W.TARGET_EPSILON} within m = {X.shape[0]} examples")
    m = sg.m
    benchmark.group = f"time to excess risk ≤ {W.TARGET_EPSILON}, decaying α = {stream.alpha}, d = {stream.d:.0e}"
    benchmark.extra_info["attributes_read"] = sg.attributes
    est = benchmark.pedantic(lambda: W.sgd().partial_fit(X[:m], y[:m]), rounds=3, iterations=1)
    assert stream.excess(est.coef_) <= W.TARGET_EPSILON
    W.per_example(benchmark, m)
