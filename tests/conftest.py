"""Fixtures shared by every test: the registry and ``run_claim``."""

from __future__ import annotations

import importlib

import pytest

from theorycheck.claims import discover
from theorycheck.runner import run_claims


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


def run_one(claim_id: str, out, *, subjects=None, profile: str = "quick", seed: int = 0, **overrides) -> dict:
    """Run one claim into ``out`` and return its record. ``subjects`` values may be objects or
    ``module:attr`` specs (as on the command line); ``overrides`` are ``--set`` values."""
    loaded = {name: load_subject(obj) if isinstance(obj, str) else obj for name, obj in (subjects or {}).items()}
    (record,) = run_claims([discover()[claim_id]], profile=profile, seed=seed,
                           overrides={k: str(v) if not isinstance(v, tuple) else ",".join(map(str, v))
                                      for k, v in overrides.items()},
                           subjects=loaded or None, out=out, progress=False)
    return record


@pytest.fixture
def run_claim(tmp_path):
    """``run_claim(claim_id, subjects=None, profile="quick", **overrides) -> record``, with the
    output in a fresh temporary folder."""

    def run(claim_id: str, subjects=None, profile: str = "quick", **overrides) -> dict:
        return run_one(claim_id, tmp_path, subjects=subjects, profile=profile, **overrides)

    return run
