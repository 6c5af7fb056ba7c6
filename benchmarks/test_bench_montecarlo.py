"""Monte-Carlo repetitions on 1 and 2 processes: ``run_claims`` on one stochastic claim with
many independent tasks (quick profile, no cache). A first run on 2 processes, untimed, starts the
worker pool and loads the compiled kernels in the workers."""

from __future__ import annotations

import pytest
import workloads as W


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    out = tmp_path_factory.mktemp("montecarlo")
    assert W.monte_carlo_tasks() >= 4
    W.monte_carlo(2, out=str(out))
    return str(out)


@pytest.mark.parametrize("jobs", [1, 2])
def test_monte_carlo(benchmark, pool, jobs):
    benchmark.group = f"run_claims({W.MC_CLAIM}, quick, {W.monte_carlo_tasks()} tasks)"
    benchmark.pedantic(W.monte_carlo, args=(jobs,), kwargs={"out": pool}, rounds=2, iterations=1)
