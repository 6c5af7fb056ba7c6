"""Fixtures of the benchmark suite (``nox -s bench``; not collected by ``nox -s tests``, whose
testpaths are ``tests``). The workloads themselves live in ``workloads.py``, shared with
``table.py``; this folder is on sys.path under pytest's default import mode."""

from __future__ import annotations

import pytest
import workloads as W


@pytest.fixture(scope="session", autouse=True)
def _compiled():
    """Numba compilation (or loading its cache) happens here, before any timing."""
    W.warm_up()


@pytest.fixture(scope="module", params=W.D_GRID, ids=lambda d: f"d={d:.0e}")
def hypercube(request):
    """(X, y) with x uniform on {±1/√d}^d and m = W.m_for(d) examples (1.6 GB at most; one d at a time)."""
    d = request.param
    return W.hypercube(W.m_for(d), d)

