"""pytest plugin (registered through the ``pytest11`` entry point): the fixtures ``assert_conforms``
and ``assert_verifies`` (the functions of :mod:`theorycheck.testing`, which drive the sessions of
:mod:`theorycheck.session` as the command line does), ``theorycheck_search`` (:func:`theorycheck.search` on a
claim's declared space, its study in the test's temporary folder), ``--theorycheck-profile`` to run them on another
profile than the one a test names, and ``--theorycheck-power`` to run every planted defect of the claims
that ``assert_verifies`` checks (as ``theorycheck verify --power``)."""

from __future__ import annotations

import functools

import pytest

from . import testing


def pytest_addoption(parser):
    group = parser.getgroup("theorycheck")
    group.addoption("--theorycheck-profile", choices=("quick", "full"), default=None,
                    help="profile for assert_conforms/assert_verifies fixtures (default: what each test passes)")
    group.addoption("--theorycheck-power", action="store_true", default=False,
                    help="assert_verifies also runs each planted defect of its claims and fails unless each gets "
                         "the verdict its claim declares (as theorycheck verify --power)")


def _with_options(func, **chosen):
    chosen = {name: value for name, value in chosen.items() if value not in (None, False)}
    if not chosen:
        return func

    @functools.wraps(func)
    def run(*args, **kwargs):
        return func(*args, **{**kwargs, **chosen})

    return run


@pytest.fixture
def assert_conforms(request):
    """``assert_conforms("AERR", learner=MyAERR)``: see :func:`theorycheck.testing.assert_conforms`."""
    return _with_options(testing.assert_conforms,
                         profile=request.config.getoption("--theorycheck-profile"))


@pytest.fixture
def assert_verifies(request):
    """``assert_verifies("hk12.thm3.1", learner=MyAERR)``: see :func:`theorycheck.testing.assert_verifies`."""
    return _with_options(testing.assert_verifies,
                         profile=request.config.getoption("--theorycheck-profile"),
                         power=request.config.getoption("--theorycheck-power"))


@pytest.fixture
def theorycheck_search(request, tmp_path):
    """``theorycheck_search("hk12.thm3.1", learner=MyAERR, budget=8)``: search the claim's declared space with
    the given subjects (by name, as ``assert_verifies`` takes them) and return the
    :class:`~theorycheck.search.SearchResult`; ``result.counterexample`` is the confirmed counterexample, if any
    (``result.shrunk`` its shrunk form), ``result.lines()`` the summary. Keywords ``budget`` (trials, or CPU
    seconds as "60s"), ``profile``, ``seed``, ``params`` (``--set`` values at every point), ``jobs`` and ``out``
    (default: the test's temporary folder) are :func:`theorycheck.search`'s."""
    from . import search

    chosen = request.config.getoption("--theorycheck-profile")

    def run(claim_id: str, *, budget=8, profile: str = "quick", seed: int = 0, params=None, jobs: int = 1,
            out=None, **subjects):
        return search.search(claim_id, profile=chosen or profile, seed=seed, budget=budget, params=params,
                             subjects=subjects or None, jobs=jobs, out=tmp_path / "search" if out is None else out)

    return run
