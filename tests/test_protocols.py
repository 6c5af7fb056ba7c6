"""Subject contracts: what is missing is named, before any work, with exit status 2."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from theorycheck.algorithms import AERR
from theorycheck.claims import discover
from theorycheck.protocols import BudgetedLearner, Contract, EstimatorLaw, KActivePredictor, check_subject
from theorycheck.validation import ParameterError


class NoFit:
    def __init__(self, k=1, B=1.0, eta=None, random_state=None):
        pass


class NoEta:
    def __init__(self, k=1, B=1.0, random_state=None):
        pass

    def fit(self, X, y):
        return self


class Predictor:
    name = "p"

    def predict(self, oracle, k, w_star, random_state):
        return np.zeros(oracle.n)


def law(w, x, y, k):
    return []


LEARNER = Contract(BudgetedLearner, init=("k", "B", "eta", "random_state"))


def test_a_conforming_learner_has_nothing_missing():
    assert LEARNER.missing(AERR) == []


@pytest.mark.parametrize(("obj", "needs"), [
    (NoFit, "'fit'"), (NoEta, "eta="), (AERR(), "a class"),
])
def test_what_a_learner_lacks_is_named(obj, needs):
    missing = LEARNER.missing(obj)
    assert missing and any(needs in m for m in missing), missing


def test_tuples_of_predictors_and_laws():
    predictors = Contract(KActivePredictor, call=("oracle", "k", "w_star", "random_state"), each=True)
    assert predictors.missing((Predictor(),)) == []
    assert predictors.missing(Predictor()) == ["a non-empty tuple of objects"]
    assert predictors.missing((object(),))
    assert Contract(EstimatorLaw, call=("w", "x", "y", "k")).missing(law) == []
    assert Contract(EstimatorLaw).missing(42) == ["to be callable"]


def test_check_subject_raises_one_line():
    with pytest.raises(ParameterError, match="does not follow BudgetedLearner: it needs attribute or method 'fit'"):
        check_subject("hk12.thm3.1", "learner", NoFit, LEARNER)


def test_signature_names_the_protocol_and_its_methods():
    text = LEARNER.signature()
    assert text.startswith("BudgetedLearner") and "fit(" in text and "eta=" in text


def test_every_claim_declares_a_contract_for_each_subject():
    missing = {c.id: sorted(set(c.subjects) - set(c.protocols)) for c in discover().values()}
    assert not {k: v for k, v in missing.items() if v}, missing


def test_every_default_subject_follows_its_own_contract():
    for claim in discover().values():
        for name, obj in claim.subjects.items():
            assert claim.protocols[name].missing(obj) == [], (claim.id, name)


@pytest.mark.parametrize("claim_id", ["hk12.thm3.1", "cbss11.thm12"])
def test_cli_refuses_a_nonconforming_subject_before_any_work(claim_id, tmp_path):
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "theorycheck", "verify", claim_id, "--quiet", "--out", str(tmp_path),
         "--subject", "learner=tests.test_protocols:NoFit"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "fit" in proc.stderr
    assert not (tmp_path / "results").exists()  # nothing ran
    assert time.perf_counter() - start < 60


def test_exact_subjects_say_what_they_receive_and_return(capsys):
    from theorycheck.cli import main

    assert main(["show", "cbss11.lemma7"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Types: receives values, a list of fractions.Fraction" in text
