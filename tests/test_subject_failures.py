"""A replaced subject that fails is a verdict, visible everywhere, and stops its claim early.

- output that breaks the theorem's conclusion (non-finite w̄) is FAIL with the reason;
- a subject that raises, or lacks an attribute the claim reads, is SUBJECT-ERROR, not ERROR;
- the claim's other tasks are not run after such a failure;
- the replaced subject is named in the record, in summary.json and on stderr.

These subjects replace AERR, so ``verify`` first checks them against AERR (conformance): the first tests turn that
off to test what the claim itself does with them; the last ones test that conformance stops them first.
"""

from __future__ import annotations

import json

import numpy as np

from theorycheck import cli
from theorycheck.algorithms import AERR

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
    record = run_claim(CLAIM, subjects={"learner": NaNAERR}, conformance=False)
    assert record["verdict"] == "FAIL"
    assert "breaks the theorem's conclusion" in record["decision"] and "non-finite" in record["decision"]
    assert len(FITS) == 1  # the first fit decides; the other repetitions and tasks are not run


def test_a_subject_that_raises_is_a_subject_error_not_a_harness_error(run_claim):
    FITS.clear()
    record = run_claim(CLAIM, subjects={"learner": RaisingAERR}, conformance=False)
    assert record["verdict"] == "SUBJECT-ERROR"
    first = record["decision"].splitlines()[0]
    assert "RaisingAERR" in first and "planted: my fit is broken" in first and "in fit" in first
    assert len(FITS) == 1


def test_a_missing_attribute_fails_after_the_first_fit(run_claim):
    FITS.clear()
    record = run_claim(CLAIM, subjects={"learner": NoCoefAERR}, conformance=False)
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
    """With conformance (the default): a non-finite w̄ fails its behaviour check (FAIL, the claim's tasks not run);
    a fit that raises, or a coef_ that is missing, is the subject's error (SUBJECT-ERROR), with the cause."""
    record = run_claim(CLAIM, subjects={"learner": NaNAERR})
    assert record["verdict"] == "FAIL" and record["n_tasks"] > 0 and record["seconds"] == 0.0
    assert "Conformance FAIL" in record["decision"] and "not finite" in record["decision"]
    for subject, words in ((RaisingAERR, "planted: my fit is broken"), (NoCoefAERR, "coef_")):
        record = run_claim(CLAIM, subjects={"learner": subject})
        first = record["decision"].splitlines()[0]
        assert record["verdict"] == "SUBJECT-ERROR" and "conformance" in first and words in first, first
