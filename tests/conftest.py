"""Fixtures shared by every test: the registry, ``run_claim`` and the session's shared quick runs; and
``--fast``, the development lane (``nox -s tests -- --fast``), which is not what CI runs."""

from __future__ import annotations

import fcntl
import importlib
import os
import shutil
from pathlib import Path

import pytest

from theorycheck.claims import discover
from theorycheck.session import verify_claims


@pytest.fixture(scope="session")
def registry():
    return discover()


def load_subject(spec: str):
    """The object named by ``module:attr`` (as ``--subject`` takes it)."""
    module_name, _, attr = spec.partition(":")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def run_one(claim_id: str, out, *, subjects=None, profile: str = "quick", seed: int = 0, isolate=None,
            conformance: bool = True, **overrides) -> dict:
    """Run one claim into ``out`` and return its record. ``subjects`` values may be objects or
    ``module:attr`` specs (as on the command line); ``overrides`` are ``--set`` values; ``isolate`` and
    ``conformance`` as :func:`~theorycheck.session.verify_claims` takes them (``isolate=False``: a user's subject runs
    in this process; ``conformance=False``: no conformance first, to test what the claim itself does with it)."""
    loaded = {name: load_subject(obj) if isinstance(obj, str) else obj for name, obj in (subjects or {}).items()}
    (record,) = verify_claims([discover()[claim_id]], profile=profile, seed=seed,
                              overrides={k: str(v) if not isinstance(v, tuple) else ",".join(map(str, v))
                                         for k, v in overrides.items()},
                              subjects=loaded or None, out=out, progress=False, isolate=isolate,
                              conformance=conformance)
    return record


@pytest.fixture(scope="session")
def shared_runs(tmp_path_factory) -> Path:
    """The folder of the session's shared quick runs, one for all the xdist workers (the parent of a
    worker's own temporary root is the session's)."""
    root = tmp_path_factory.getbasetemp()
    return (root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root) / "quick-runs"


def quick_cache(claim_id: str, out, shared: Path) -> None:
    """Put into ``out`` the task cache of the claim's run on quick at seed 0 with its default subjects,
    computed once per test session: the first caller, in whichever worker, runs the claim into
    ``shared/<claim>`` under a lock, and every caller gets a copy of that run's cache (the cache
    ``verify`` resumes from). A run into ``out`` then decides the claim again from the stored tasks
    and writes its files there: a run like any other, without the work."""
    home = shared / claim_id
    home.mkdir(parents=True, exist_ok=True)
    with open(shared / f"{claim_id}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (home / "results" / f"{claim_id}.json").exists():
            run_one(claim_id, home)
    shutil.copytree(home / ".cache", Path(out) / ".cache", dirs_exist_ok=True)


def run_quick(claim_id: str, out, shared: Path) -> dict:
    """:func:`run_one` of the claim on quick at seed 0 with its default subjects, from :func:`quick_cache`."""
    quick_cache(claim_id, out, shared)
    return run_one(claim_id, out)


@pytest.fixture
def run_claim(tmp_path, shared_runs):
    """``run_claim(claim_id, subjects=None, profile="quick", **overrides) -> record``, with the
    output in a fresh temporary folder. A run with nothing but the claim id is :func:`run_quick`'s."""

    def run(claim_id: str, subjects=None, profile: str = "quick", isolate=None, conformance: bool = True,
            **overrides) -> dict:
        if not subjects and profile == "quick" and not overrides:
            return run_quick(claim_id, tmp_path, shared_runs)
        return run_one(claim_id, tmp_path, subjects=subjects, profile=profile, isolate=isolate,
                       conformance=conformance, **overrides)

    return run


# Claims the quick profile cannot decide at seed 0 (too few pairs or splits of real data, and magnitudes
# whose indifference zone [ε/2, ε] needs intervals narrower than ε/2; 20 repetitions of ks15's figures for
# their growth and two-phase orderings; sk13's Table-1 crowd at B = 10, where Full and Averages differ on
# every run but Full wins only about 36% of them over quick's 120: its interval still reaches 0; the full
# profile is sized to decide them): INCONCLUSIVE is allowed for these and only these, never an error.
UNDECIDED_ON_QUICK = {"cbss11.exp-mnist", "hk12.exp-mnist", "ks15.exp-mnist", "ks15.fig1", "ks15.fig2", "sk13.exp"}
# Claims whose quick run at seed 0 is NOT REPRODUCED (a deciding finding against the paper with the reference
# implementations), since issue 53's declarations: cbss11.exp-mnist (Ridge < Lasso TIED and AER against Lasso
# REVERSED against the printed margins, recorded as 'lasso' and 'aer-table') and hk12.exp-mnist (AELR "almost 10
# times better" than an online Lasso solver, ε = log 10: TIED, 0.078 in [0.023, 0.133]; not in the registry until
# the full profile's seeds 0 and 1 show it, exit status 4). (Before the experiments issue, ks15.exp-mnist and
# sk13.exp FAILed here through TIED findings: a "considerably better" DDAELR 2–4% better than AELR at 100
# examples, below the papers' sizes and now reported; sk13's bare "better" is a direction, where an interval
# inside ±ε is NEGLIGIBLE.)
NOT_REPRODUCED_ON_QUICK: set[str] = {"cbss11.exp-mnist", "hk12.exp-mnist"}


# ---------------------------------------------------------------------- the fast lane
#: ``--fast`` runs these modules whole: the library's units (kernels against their references, estimators,
#: designs, projections, statistics, the runner on toy claims, the docs' numbers), none of which runs a claim
FAST_MODULES = (
    "test_algorithms.py", "test_bandit.py", "test_boosting.py", "test_datasets.py", "test_docs_numbers.py",
    "test_errata.py", "test_estimators.py", "test_findings_declared.py", "test_generators.py",
    "test_kinds_comparison_reproduction.py", "test_ks15_algorithms.py", "test_ks15_generators.py", "test_lint.py",
    "test_lower_bound_generators.py", "test_population.py", "test_projections.py", "test_protocols.py",
    "test_runner.py", "test_sk13_algorithms.py", "test_sk13_generators.py", "test_stats.py", "test_streaming.py",
)
#: and, of the tests parametrized by ``claim_id`` (every claim through ``verify``, its planted defects, ...),
#: those of this fixed sample: a claim of each paper and of each main kind (exact, bound, frequency, rate,
#: lower bound, sampling law), among the cheapest of its kind on quick
FAST_CLAIMS = ("cbss11.lemma7", "cbss11.thm2", "hk12.thm3.1", "ks15.lemma3.2", "reyzin11.thm5", "sk13.thm3.1")


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true",
                     help="the development lane: the unit modules whole and the claim-parametrized tests of a "
                          "fixed sample of claims (tests/conftest.py: FAST_MODULES, FAST_CLAIMS); not what CI runs")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--fast"):
        return
    keep, drop = [], []
    for item in items:
        claim = getattr(item, "callspec", None) and item.callspec.params.get("claim_id")
        fast = item.path.name in FAST_MODULES if claim is None else claim in FAST_CLAIMS
        (keep if fast else drop).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep

