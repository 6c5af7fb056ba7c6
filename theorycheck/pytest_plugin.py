"""pytest plugin (registered through the ``pytest11`` entry point): the fixtures ``assert_conforms``
and ``assert_verifies`` (the functions of :mod:`theorycheck.testing`), and ``--theorycheck-profile``
to run them on another profile than the one a test names."""

from __future__ import annotations

import functools

import pytest

from . import testing


def pytest_addoption(parser):
    parser.getgroup("theorycheck").addoption(
        "--theorycheck-profile", choices=("quick", "full"), default=None,
        help="profile for assert_conforms/assert_verifies fixtures (default: what each test passes)")


def _with_profile(func, config):
    chosen = config.getoption("--theorycheck-profile")
    if chosen is None:
        return func

    @functools.wraps(func)
    def run(*args, **kwargs):
        return func(*args, **{**kwargs, "profile": chosen})

    return run


@pytest.fixture
def assert_conforms(request):
    """``assert_conforms("AERR", learner=MyAERR)``: see :func:`theorycheck.testing.assert_conforms`."""
    return _with_profile(testing.assert_conforms, request.config)


@pytest.fixture
def assert_verifies(request):
    """``assert_verifies("hk12.thm3.1", learner=MyAERR)``: see :func:`theorycheck.testing.assert_verifies`."""
    return _with_profile(testing.assert_verifies, request.config)
