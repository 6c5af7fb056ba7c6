"""Assertions for your own test suite (the pytest plugin makes them fixtures too)::

    from theorycheck.testing import assert_conforms, assert_verifies

    def test_my_aerr_conforms():
        assert_conforms("AERR", learner=MyAERR, profile="quick")

    def test_my_aerr_meets_theorem_3_1():
        assert_verifies("hk12.thm3.1", learner=MyAERR)

A failure raises AssertionError with the decision text of every check or claim that did not pass.
Both run the sessions of :mod:`theorycheck.session` through the Python API, as ``theorycheck verify`` and
``theorycheck conform`` do: ``assert_verifies(..., power=True)`` also runs the claims' planted defects, and
``out=`` keeps the report.
"""

from __future__ import annotations

from typing import Any

from . import api
from .verdicts import Verdict

__all__ = ["assert_conforms", "assert_verifies"]


def assert_conforms(algorithm: str, *, learner, profile: str = "quick", seed: int = 0, claims: bool = True,
                    **options: Any) -> None:
    """Fail unless ``learner`` conforms to ``algorithm`` (see :mod:`theorycheck.conformance`).
    A check that ran and is INCONCLUSIVE fails too, and so does one the learner cannot take (NOT RUN) unless
    ``optional=("estimator", ...)`` names it."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    result = api.conform(algorithm, learner, profile=profile, seed=seed, claims=claims, **options)
    if result.verdict != Verdict.PASS:
        raise AssertionError(result.text())


def assert_verifies(ids, *, profile: str = "quick", seed: int = 0, params: dict | None = None,
                    power: bool = False, power_idea: bool = False, out=None, jobs: int = 1,
                    scheduler: str | None = None, task_timeout: float | None = None, **subjects: Any) -> None:
    """Fail unless every claim in ``ids`` is PASS with the given subjects (``learner=MyAERR``); with ``power``
    (or ``power_idea``), also unless each planted defect run gets the verdict its claim declares. ``out``,
    ``jobs``, ``scheduler`` and ``task_timeout`` (seconds one task of your subject may take) are those of
    :func:`theorycheck.verify`."""
    __tracebackhide__ = True
    results = api.verify(ids, profile=profile, seed=seed, params=params, subjects=subjects or None, power=power,
                         power_idea=power_idea, out=out, jobs=jobs, scheduler=scheduler, task_timeout=task_timeout)
    failed = [f"{r.verdict} {r.id}:\n{r.decision}" for r in results if r.verdict != Verdict.PASS]
    if results.power_unlike:
        failed.append("planted defects not caught as their claims declare: " + "; ".join(results.power_unlike))
    if failed:
        raise AssertionError("\n\n".join(failed))
