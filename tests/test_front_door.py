"""The README's two commands, run as written (through nox) on a cheap selection, and ``--jobs -1`` on every
execution path a claim can take: a built-in subject in the pool, a user's subject isolated in workers, the
scikit-learn comparators of the experiments (loky's executor) and the MNIST data."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from theorycheck.validation import ParameterError, check_jobs

ROOT = Path(__file__).parents[1]
NOX = shutil.which("nox")
needs_nox = pytest.mark.skipif(NOX is None, reason="nox is not installed (CI installs it: .ci/run)")


def test_negative_jobs_count_back_from_every_core_as_joblib_reads_them():
    cores = os.cpu_count() or 1
    assert check_jobs(-1) == cores
    assert check_jobs(1) == 1
    assert check_jobs(cores) == cores
    assert check_jobs(-cores) == 1
    if cores > 1:
        assert check_jobs(-2) == cores - 1
    for bad in (0, -cores - 1, cores + 1, 1.5, True, "2"):
        with pytest.raises(ParameterError, match="--jobs"):
            check_jobs(bad)


def _run(command: list[str], timeout: float) -> subprocess.CompletedProcess:
    # pip's byte-compilation of every installed module (half of a fresh environment's CPU) is skipped; Python
    # compiles what it imports anyway. Nothing else differs from the command a user types.
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PIP_NO_COMPILE": "1"})


@needs_nox
def test_nox_verify_as_written_runs_every_execution_path_at_jobs_minus_one(tmp_path):
    """``nox -s verify`` presets ``--jobs -1``; one claim per execution path: a built-in in the pool
    (cbss11.lemma8), a scikit-learn comparator on MNIST (ks15.exp-mnist, loky's executor) and a user's subject
    (cbss11.lemma7 with a subset mean written in tests/, isolated in workers). The run must reach its summary
    with every claim decided: no claim's path may reject ``--jobs -1``."""
    selection = ["cbss11.lemma8", "ks15.exp-mnist", "cbss11.lemma7"]
    done = _run([NOX, "-s", "verify", "--", "--profile", "quick", *selection,
                 "--subject", "subset_average=tests.user_subjects:subset_average", "--out", str(tmp_path)], timeout=900)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert "ValueError" not in log and "Traceback" not in log, log[-3000:]
    assert "--jobs -1" in log  # the preset reached the command
    for claim in selection:
        assert (tmp_path / "results" / f"{claim}.json").exists(), log[-3000:]
    assert "summary of 3 claims" in log, log[-3000:]


@needs_nox
def test_nox_tests_fast_as_written_runs():
    """The development lane, as the README writes it, on one unit module (the whole lane is not CI's to pay).
    ``-R`` (reuse the environment, skip the installs): under CI this runs inside ``nox -s tests`` itself, whose
    environment was installed a moment ago and is in use by the other test workers, so it is not reinstalled
    under them; elsewhere it creates the environment as usual."""
    done = _run([NOX, "-R", "-s", "tests", "--", "--fast", "tests/test_projections.py", "-q", "-p", "no:cacheprovider"],
                timeout=900)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert " passed" in log and " failed" not in log, log[-3000:]
