"""``theorycheck conform``: the built-in and an independent correct implementation pass; each
planted defect of the conformance issue fails the check meant to catch it; the CLI, the Python
API and the pytest plugin expose it."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from theorycheck import cli, conformance
from theorycheck.algorithms import AELR, AERR
from theorycheck.conformance import ALGORITHMS, conform
from theorycheck.validation import ParameterError

from . import conformance_learners as mine

pytest_plugins = ["pytester"]
SPEC = ALGORITHMS["AERR"]


def _seed(i):
    return np.random.SeedSequence(i)


@pytest.mark.parametrize(("algorithm", "learner"), [("AERR", AERR), ("AELR", AELR), ("AERR", mine.MyAERR)])
def test_correct_implementations_conform(algorithm, learner):
    result = conform(algorithm, learner, claims=False)
    assert result.verdict == "PASS", result.text()
    assert [c.name for c in result.checks] == ["estimator", "behaviour", "attributes"]
    assert all("false-FAIL rate" in c.decision for c in result.checks)


@pytest.mark.parametrize("defect", [mine.NoFactorD, mine.AELRInnerProduct])
def test_a_biased_or_differently_distributed_estimate_fails_the_estimator_check(defect):
    check = conformance._estimator_check(SPEC, defect, 2, 1.0, 0.5, 3000, 1e-3, _seed(1))
    assert check.verdict == "FAIL", check.decision
    assert "never takes" in check.decision or "probability" in check.decision


def test_reading_everything_while_reporting_k_plus_1_fails_the_audit():
    check = conformance._audit_check(mine.ReadsEverything, 2, 1.0, 0.5, _seed(2))
    assert check.verdict == "FAIL" and "read attributes it did not report" in check.decision


def test_a_biased_inner_product_draw_fails_the_behaviour_check():
    check = conformance._behaviour_check(SPEC, mine.AbsDraw, AERR, 2, 1.0, 150, 1e-3, _seed(3))
    assert check.verdict == "FAIL", check.decision


def test_checks_a_learner_cannot_take_are_inconclusive_not_pass():
    class NoPath(mine.MyAERR):
        def __init__(self, k=1, B=1.0, eta=None, random_state=None):
            super().__init__(k, B, eta, random_state)

    assert conformance._estimator_check(SPEC, NoPath, 2, 1.0, 0.5, 10, 1e-3, _seed(4)).verdict == "INCONCLUSIVE"
    assert conformance._audit_check(NoPath, 2, 1.0, 0.5, _seed(4)).verdict == "INCONCLUSIVE"


def test_bad_requests_fail_before_any_work():
    with pytest.raises(ParameterError, match="unknown algorithm"):
        conform("SGD", AERR)
    with pytest.raises(ParameterError, match="delta"):
        conform("AERR", AERR, delta=2.0)
    assert cli.main(["conform", "AERR", "--subject", "learner=nowhere:Nothing"]) == 2


def test_the_cli_writes_the_result_and_exits_1_on_failure(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "userlearners.py").write_text(inspect.getsource(mine))
    status = cli.main(["conform", "AERR", "--subject", "learner=userlearners:NoFactorD", "--no-claims",
                       "--out", str(tmp_path / "out")])
    assert status == 1
    captured = capsys.readouterr()
    assert "FAIL: userlearners.NoFactorD against AERR" in captured.out
    assert "estimator FAIL" in captured.err
    stored = json.loads((tmp_path / "out" / "conform-AERR.json").read_text())
    assert stored["verdict"] == "FAIL" and stored["learner"] == "userlearners.NoFactorD"


def test_the_python_api_returns_results_with_html():
    import theorycheck

    (result,) = theorycheck.verify("cbss11.lemma7")
    assert result.verdict == "PASS" and bool(result)
    assert "<b>PASS</b>" in result._repr_html_()


def test_a_users_pytest_file_runs_with_the_plugin(pytester):
    pytester.makepyfile(userlearners=inspect.getsource(mine))
    pytester.makepyfile(test_user="""
        from userlearners import MyAERR, NoFactorD

        def test_mine_conforms(assert_conforms):
            assert_conforms("AERR", learner=MyAERR, claims=False)

        def test_the_defect_does_not(assert_conforms):
            assert_conforms("AERR", learner=NoFactorD, claims=False)
    """)
    outcome = pytester.runpytest_subprocess("-q")  # the plugin comes from the pytest11 entry point
    outcome.assert_outcomes(passed=1, failed=1)
    assert "never takes" in outcome.stdout.str()  # the failure shows the decision text
