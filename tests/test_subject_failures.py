"""A replaced subject that fails is a verdict, visible everywhere, and stops its claim early.

- output that breaks the theorem's conclusion (non-finite w̄) is FAIL with the reason;
- a subject that raises, or lacks an attribute the claim reads, is SUBJECT-ERROR, not ERROR;
- the claim's other tasks are not run after such a failure;
- the replaced subject is named in the record, in summary.json and on stderr;
- a user's subject runs in a worker process even with one job: one that exits, segfaults or hangs past its
  time limit is SUBJECT-ERROR naming it and the task, on verify and conform; a module that exits at import
  is one line and exit status 2;
- a value the subject's contract excludes is SUBJECT-ERROR naming it, not ERROR;
- the cache key covers the user's modules the subject calls.

(The tests that count fits run the subject in this process, ``isolate=False``, where the count is seen.) The
AERR subclasses replace AERR, so ``verify`` first checks them against AERR (conformance): the first tests turn
that off to test what the claim itself does with them; ``test_conformance_stops_them_before_the_claim_runs``
tests that conformance stops them first.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from theorycheck import cli
from theorycheck.algorithms import AERR
from theorycheck.cli import main

CLAIM = "hk12.thm3.1"
FITS: list[int] = []


class NaNAERR(AERR):
    """Returns a non-finite w̄ (like an AERR whose importance weights do not match its draws)."""

    def fit(self, X, y):
        FITS.append(1)
        super().fit(X, y)
        self.coef_ = np.full_like(self.coef_, np.nan)
        return self


class RaisingAERR(AERR):
    def fit(self, X, y):
        FITS.append(1)
        raise ValueError("planted: my fit is broken")


class NoCoefAERR(AERR):
    def fit(self, X, y):
        FITS.append(1)
        super().fit(X, y)
        del self.coef_
        return self


def test_non_finite_output_is_fail_with_the_reason(run_claim):
    FITS.clear()
    record = run_claim(CLAIM, subjects={"learner": NaNAERR}, isolate=False, conformance=False)
    assert record["verdict"] == "FAIL"
    assert "breaks the theorem's conclusion" in record["decision"] and "non-finite" in record["decision"]
    assert len(FITS) == 1  # the first fit decides; the other repetitions and tasks are not run


def test_a_subject_that_raises_is_a_subject_error_not_a_harness_error(run_claim):
    FITS.clear()
    record = run_claim(CLAIM, subjects={"learner": RaisingAERR}, isolate=False, conformance=False)
    assert record["verdict"] == "SUBJECT-ERROR"
    first = record["decision"].splitlines()[0]
    assert "RaisingAERR" in first and "planted: my fit is broken" in first and "in fit" in first
    assert len(FITS) == 1


def test_a_missing_attribute_fails_after_the_first_fit(run_claim):
    FITS.clear()
    record = run_claim(CLAIM, subjects={"learner": NoCoefAERR}, isolate=False, conformance=False)
    assert record["verdict"] == "SUBJECT-ERROR"
    assert "has no attribute 'coef_'" in record["decision"].splitlines()[0]
    assert len(FITS) == 1


def test_the_replaced_subject_is_recorded_and_the_cause_printed(tmp_path, capsys):
    status = cli.main(["verify", CLAIM, "--subject", f"learner={__name__}:RaisingAERR",
                       "--out", str(tmp_path), "--quiet"])
    assert status == 1
    err = capsys.readouterr().err
    assert f"{CLAIM}: the subject failed:" in err and "planted: my fit is broken" in err
    row = json.loads((tmp_path / "summary.json").read_text())["claims"][0]
    assert row["replaced"] == {"learner": f"{__name__}.RaisingAERR"}
    assert row["verdict"] == "SUBJECT-ERROR" and "planted: my fit is broken" in row["headline"]
    page = (tmp_path / f"{CLAIM}.html").read_text()
    assert f"--subject learner={__name__}:RaisingAERR" in page
    index = (tmp_path / "index.html").read_text()
    assert "replaced by" in index and "RaisingAERR" in index
    cli.main(["show", CLAIM, "--out", str(tmp_path)])
    assert f"of a replaced subject: learner = {__name__}.RaisingAERR" in capsys.readouterr().out


def test_the_built_in_subject_is_not_marked_replaced(run_claim):
    record = run_claim("cbss11.lemma7")
    assert record["replaced"] == {} and record["verdict"] == "PASS"


def test_conformance_stops_them_before_the_claim_runs(run_claim):
    """With conformance (the default): a non-finite w̄ fails its behaviour check (FAIL, the claim's tasks not run).
    A fit that raises, or a coef_ that is missing, judges nothing in conformance (the subject may not support its
    instance): the claim runs, and the subject's error there is SUBJECT-ERROR, with the cause."""
    record = run_claim(CLAIM, subjects={"learner": NaNAERR})
    assert record["verdict"] == "FAIL" and record["n_tasks"] > 0 and record["seconds"] == 0.0
    assert "Conformance FAIL" in record["decision"] and "not finite" in record["decision"]
    for subject, words in ((RaisingAERR, "planted: my fit is broken"), (NoCoefAERR, "coef_")):
        record = run_claim(CLAIM, subjects={"learner": subject})
        first = record["decision"].splitlines()[0]
        assert record["verdict"] == "SUBJECT-ERROR" and words in first, first


# ---------------------------------------------------------------------- subjects that end their process
CHEAP = "cbss11.lemma7"
ENDINGS = {"exit0": ("exit status 0",), "sysexit3": ("called sys.exit(3)",), "segfault": ("signal SIGSEGV",),
           "hang": ("did not finish task", "within 2 s")}


def _one_line_naming(err: str, *words: str) -> None:
    assert "Traceback" not in err and "Fatal Python error" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and all(word in lines[0] for word in words), err


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("how", list(ENDINGS))
def test_verify_a_subject_that_ends_its_process_is_subject_error(tmp_path, capsys, how, jobs):
    subject = f"tests.dying_subjects.average_{how}"
    status = main(["verify", CHEAP, "--subject", f"subset_average={subject.rpartition('.')[0]}:average_{how}",
                   "--jobs", jobs, "--task-timeout", "2", "--quiet", "--out", str(tmp_path)])
    printed, err = capsys.readouterr()
    assert status == 1 and printed.startswith("SUBJECT-ERROR"), printed + err
    _one_line_naming(err, "the subject failed", f"subset_average ({subject})", "task", *ENDINGS[how])
    assert json.loads((tmp_path / "summary.json").read_text())["claims"][0]["verdict"] == "SUBJECT-ERROR"
    assert not list(tmp_path.rglob("task-*.json"))  # nothing cached
    assert (tmp_path / f"{CHEAP}.html").exists()


CONFORM_ENDINGS = {"exit0": "ended its worker with exit status 0", "sysexit3": "called sys.exit(3)",
                   "segfault": "ended its worker with signal SIGSEGV", "hang": "did not finish within 2 s"}


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("how", list(CONFORM_ENDINGS))
def test_conform_a_learner_that_ends_its_process_fails(tmp_path, capsys, how, jobs):
    status = main(["conform", "AERR", "--subject", f"learner=tests.dying_subjects:AERR_{how}", "--jobs", jobs,
                   "--task-timeout", "2", "--quiet", "--out", str(tmp_path)])
    printed, err = capsys.readouterr()
    assert status == 1 and printed.startswith("FAIL"), printed + err
    _one_line_naming(err, "conform AERR: FAIL", "process FAIL: the learner", f"tests.dying_subjects.AERR_{how}",
                     CONFORM_ENDINGS[how])
    assert json.loads((tmp_path / "conform-AERR.json").read_text())["verdict"] == "FAIL"
    assert not list(tmp_path.rglob("task-*.json")) and not (tmp_path / ".cache" / "conformance").exists()


@pytest.mark.parametrize("command", ["verify", "conform"])
@pytest.mark.parametrize(("source", "ending"), [("import os\nos._exit(0)\n", "ended its worker with exit status 0"),
                                                ("import sys\nsys.exit(3)\n", "called sys.exit(3)")])
def test_a_subject_module_that_exits_at_import_is_one_line(tmp_path, capsys, monkeypatch, command, source, ending):
    module = f"ends_at_import_{abs(hash(source)) % 10**6}"
    (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv = (["verify", CHEAP, "--subject", f"subset_average={module}:f", "--quiet"] if command == "verify" else
            ["conform", "AERR", "--subject", f"learner={module}:f", "--quiet"])
    status = main([*argv, "--out", str(tmp_path / "out")])
    printed, err = capsys.readouterr()
    assert status == 2 and printed == "", err
    _one_line_naming(err, f"cannot load subject '{module}:f': importing {module} {ending}")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_a_task_timeout_out_of_range_is_one_line(tmp_path, capsys, value):
    status = main(["verify", CHEAP, "--task-timeout", value, "--quiet", "--out", str(tmp_path)])
    _, err = capsys.readouterr()
    assert status == 2 and "--task-timeout must be" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "results").exists()


# ---------------------------------------------------------------------- outputs the contract excludes
@pytest.mark.parametrize(("name", "shown"), [("nan", "returned nan (float)"), ("inf", "returned inf (float)"),
                                             ("none", "returned None (NoneType)"), ("text", "returned '1/2' (str)"),
                                             ("array", "(ndarray of shape (2,))"), ("float", "returned 0.5 (float)")])
def test_an_output_the_contract_excludes_is_subject_error_naming_it(run_claim, name, shown):
    from tests import dying_subjects

    record = run_claim(CHEAP, {"subset_average": getattr(dying_subjects, f"average_returns_{name}")})
    first = record["decision"].splitlines()[0]
    assert record["verdict"] == "SUBJECT-ERROR", record["decision"]
    assert f"subset_average (tests.dying_subjects.average_returns_{name})" in first and shown in first, first
    assert "its contract asks for their average as a fractions.Fraction or an int" in first


class TextCoefAERR(AERR):
    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = "w"
        return self


def test_a_coef_that_is_not_numbers_is_subject_error_naming_it(tmp_path):
    from theorycheck.claims import discover
    from theorycheck.run import run_claims

    (record,) = run_claims([discover()[CLAIM]], subjects={"learner": TextCoefAERR}, out=tmp_path, progress=False)
    first = record["decision"].splitlines()[0]
    assert record["verdict"] == "SUBJECT-ERROR", record["decision"]
    assert f"subject learner ({__name__}.TextCoefAERR) set coef_ to 'w' (str)" in first, first
    assert "its contract asks for a float array of shape (d,)" in first


# ---------------------------------------------------------------------- the cache sees the helpers
HELPER = "from fractions import Fraction\n\ndef mean(values):\n    return sum(values, Fraction(0)) / {}\n"


def test_editing_a_helper_the_subject_calls_turns_the_next_verdict(tmp_path, capsys, monkeypatch):
    package = tmp_path / "edited_helper_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "helper.py").write_text(HELPER.format("len(values)"), encoding="utf-8")
    (package / "subject.py").write_text("from .helper import mean\n\ndef average(values):\n    return mean(values)\n",
                                        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv = ["verify", CHEAP, "--subject", "subset_average=edited_helper_pkg.subject:average", "--quiet",
            "--out", str(tmp_path / "out")]
    assert main(argv) == 0, capsys.readouterr().err
    (package / "helper.py").write_text(HELPER.format("(len(values) + 1)"), encoding="utf-8")  # now wrong
    os.utime(package / "helper.py", ns=(1, 1))  # another modification time, whatever the clock's resolution
    assert main(argv) == 1, capsys.readouterr().out  # no cached PASS: the edited helper runs, and fails
    record = json.loads((tmp_path / "out" / "results" / f"{CHEAP}.json").read_text())
    assert record["verdict"] == "FAIL" and record["tasks_from_cache"] == 0


def test_the_cache_key_covers_the_loaded_modules_of_the_subjects_package():
    from tests import dying_subjects
    from theorycheck import estimators
    from theorycheck.run.provenance import user_modules

    files = user_modules(dying_subjects.average_exit0)
    assert any(path.endswith("tests/dying_subjects.py") for path in files)
    assert not any("/theorycheck/" in path or "site-packages" in path for path in files)
    assert user_modules(estimators.subset_average) == {}  # built in: code_version covers it
