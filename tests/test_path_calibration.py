"""Calibration of the path check (issue 55 item 1): correct learners on the claims' own fits are not failed across 20
seeds.

For each claim below, :func:`theorycheck.conformance.path.path_record` checks the built-in learner, and the
independent NumPy learners of :mod:`tests.defects_users` (UsersOnline, UsersAELR, UsersDDAERR), in the claim's
learner's place at the quick profile, seeds 0..19. The update and estimate checks are exact; the law's two KS tests
are at δ/2 = 5·10⁻⁴ each, so 20 seeds fail a correct learner with probability at most 20·10⁻³ = 2% per case. The
NumPy learners run on the claims shrunk (``SHRUNK``) to keep their Python loops short. Marked ``slow``: set
THEORYCHECK_SLOW=1 to run it (``-s`` prints the FAIL count and the CPU time per call).
"""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

import pytest

from theorycheck.claims import discover
from theorycheck.conformance.path import path_record
from theorycheck.conformance.verify import algorithm_places
from theorycheck.run.plan import plan_claims

SEEDS = range(20)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("THEORYCHECK_SLOW") != "1",
                       reason="minutes: set THEORYCHECK_SLOW=1 to run the path check's calibration"),
]

#: the claims' quick instances shrunk for the NumPy learners (their loops run at Python speed)
SHRUNK = {"hk12.thm3.1": {"m": "3000", "m_grid": "2000,3000,4000", "dk_m": "2000"},
          "hk12.thm3.4": {"m": "3000", "m_grid": "2000,3000,4000", "dk_m": "2000"},
          "ks15.thm3.3": {"m": "3000", "m_grid": "2000,3000,4000", "dk_m": "2000", "paired_m": "1500"}}

_BUILT_IN = {"hk12.thm3.1": "AERR", "hk12.thm3.4": "AELR", "ks15.thm3.3": "DDAERR", "ks15.thm4.4": "DDAELR",
             "ks15.thm3.1": "GAERR", "ks15.thm4.1": "GAELR"}
_NUMPY = {"hk12.thm3.1": "UsersOnline", "hk12.thm3.4": "UsersAELR", "ks15.thm3.3": "UsersDDAERR"}
CASES = ([(claim, f"theorycheck.algorithms:{name}", False) for claim, name in _BUILT_IN.items()]
         + [(claim, f"tests.defects_users:{name}", True) for claim, name in _NUMPY.items()])


def params_of(claim_id: str, shrunk: bool) -> dict:
    overrides = SHRUNK.get(claim_id, {}) if shrunk else {}
    (plan,) = plan_claims([discover()[claim_id]], profile="quick", seed=0, overrides=overrides, subjects=None,
                          out=Path("."), force=True)
    return plan.params


@pytest.mark.parametrize(("claim_id", "learner", "shrunk"), CASES,
                         ids=[f"{c}-{b.rpartition(':')[2]}" for c, b, _ in CASES])
def test_correct_learners_pass_the_path_check_over_20_seeds(claim_id, learner, shrunk):
    module, _, name = learner.partition(":")
    subject = getattr(importlib.import_module(module), name)
    claim = discover()[claim_id]
    params = params_of(claim_id, shrunk)
    algorithm = algorithm_places(claim)["learner"]
    failed, seconds = [], []
    for seed in SEEDS:
        start = time.process_time()
        record = path_record(algorithm, subject, claim, params, {**claim.subjects, "learner": subject}, "learner",
                             seed)
        seconds.append(time.process_time() - start)
        assert record["ran"], record["decision"]
        if record["verdict"] == "FAIL":
            failed.append(f"seed {seed}: {record['decision']}")
    print(f"\n{claim_id} with {learner}: {len(failed)} FAIL in {len(SEEDS)} seeds, "
          f"{sum(seconds) / len(seconds):.1f} CPU s per call (max {max(seconds):.1f} s)")
    assert not failed, "\n\n".join(failed)
