"""Calibration of ``theorycheck conform``: correct learners are not failed across 20 seeds.

For every algorithm conformance knows, the built-in (class, or GenEst's function) is checked against
itself by ``conform(name, builtin, claims=False, seed=s)`` for s = 0..19, and the independent NumPy
learners of :mod:`tests.conformance_learners` (MyAERR, MyAER, MyScoring, MyFull, MyAdaBoostRS,
MyAdaBoostRSAC, my_genest, MyAESVR, written from the papers' boxes, and the plain AERR with and without
its two recording lines) against theirs; the test asserts that no run gives FAIL (each stochastic
check's false-FAIL rate is at most δ = 10⁻³, and the parameters, objective, training, budget and audit
checks are exact, so 20 seeds fail a correct learner with probability at most 20·3·10⁻³ = 6%; a FAIL
here is a bug until shown otherwise). With the built-in against itself the behaviour check compares
identical runs, so the estimator law and the audit are what is calibrated there; the independent
learners calibrate the two-sample behaviour tests too.

It took 18 minutes on two shared cores, so it is marked ``slow`` and is skipped unless the
environment variable THEORYCHECK_SLOW=1 is set (the CI runs every test, slow ones included, and
has no room for it): ``THEORYCHECK_SLOW=1 python -m pytest tests/test_conformance_calibration.py -s``
prints the FAIL count and the mean time per ``conform`` call of each algorithm.
"""

from __future__ import annotations

import importlib
import os
import time

import pytest

from theorycheck.conformance import ALGORITHMS, conform

from . import conformance_learners as mine

SEEDS = range(20)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("THEORYCHECK_SLOW") != "1",
                       reason="about ten minutes: set THEORYCHECK_SLOW=1 to run the conformance calibration"),
]

CASES = [(name, spec.builtin) for name, spec in ALGORITHMS.items()] + [
    ("AERR", "tests.conformance_learners:MyAERR"), ("AER", "tests.conformance_learners:MyAER"),
    ("AERR", "tests.conformance_learners:PlainAERR"), ("AERR", "tests.conformance_learners:RecordedAERR"),
    ("Scoring", "tests.conformance_learners:MyScoring"), ("Full", "tests.conformance_learners:MyFull"),
    ("AdaBoostRS", "tests.conformance_learners:MyAdaBoostRS"),
    ("AdaBoostRS_AC", "tests.conformance_learners:MyAdaBoostRSAC"),
    ("GenEst", "tests.conformance_learners:my_genest"), ("AESVR", "tests.conformance_learners:MyAESVR"),
    # plain learners (no path): the estimator check probes them as black boxes (issue 55 item 4)
    ("AERR", "tests.defects_users:PlainAERRByHand"), ("AELR", "tests.defects_users:PlainAELRByHand")]


@pytest.mark.parametrize(("algorithm", "learner"), CASES, ids=[f"{a}-{b.rpartition(':')[2]}" for a, b in CASES])
def test_correct_learners_are_not_failed_over_20_seeds(algorithm, learner):
    module, _, name = learner.partition(":")
    subject = (getattr(mine, name) if module == "tests.conformance_learners" else
               getattr(importlib.import_module(module), name))
    failed, seconds = [], []
    for seed in SEEDS:
        start = time.perf_counter()
        result = conform(algorithm, subject, claims=False, seed=seed)
        seconds.append(time.perf_counter() - start)
        if result.verdict == "FAIL":
            failed.append(f"seed {seed}:\n{result.text()}")
    print(f"\n{algorithm} with {learner}: {len(failed)} FAIL in {len(SEEDS)} seeds, "
          f"{sum(seconds) / len(seconds):.1f} s per conform call (max {max(seconds):.1f} s)")
    assert not failed, "\n\n".join(failed)
