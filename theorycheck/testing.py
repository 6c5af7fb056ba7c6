"""Assertions for your own test suite (the pytest plugin makes them fixtures too)::

    from theorycheck.testing import assert_conforms, assert_verifies

    def test_my_aerr_conforms():
        assert_conforms("AERR", learner=MyAERR, profile="quick")

    def test_my_aerr_meets_theorem_3_1():
        assert_verifies("hk12.thm3.1", learner=MyAERR)

A failure raises AssertionError with the decision text of every check or claim that did not pass.
"""

from __future__ import annotations

from typing import Any

from . import api

__all__ = ["assert_conforms", "assert_verifies"]


def assert_conforms(algorithm: str, *, learner, profile: str = "quick", seed: int = 0, claims: bool = True,
                    **options: Any) -> None:
    """Fail unless ``learner`` conforms to ``algorithm`` (see :mod:`theorycheck.conformance`).
    A check that ran and is INCONCLUSIVE fails too, and so does one the learner cannot take (NOT RUN) unless
    ``optional=("estimator", ...)`` names it."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    result = api.conform(algorithm, learner, profile=profile, seed=seed, claims=claims, **options)
    if result.verdict != "PASS":
        raise AssertionError(result.text())


def assert_verifies(ids, *, profile: str = "quick", seed: int = 0, params: dict | None = None,
                    **subjects: Any) -> None:
    """Fail unless every claim in ``ids`` is PASS with the given subjects (``learner=MyAERR``)."""
    __tracebackhide__ = True
    results = api.verify(ids, profile=profile, seed=seed, params=params, subjects=subjects or None)
    failed = [r for r in results if r.verdict != "PASS"]
    if failed:
        raise AssertionError("\n\n".join(f"{r.verdict} {r.id}:\n{r.decision}" for r in failed))
