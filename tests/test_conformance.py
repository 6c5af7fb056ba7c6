"""``theorycheck conform``: the built-in and an independent correct implementation pass; each
planted defect of the conformance issue fails the check meant to catch it; the CLI, the Python
API and the pytest plugin expose it."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from theorycheck import algorithms, cli, conformance
from theorycheck.algorithms import AELR, AER, AERR, Baseline
from theorycheck.claims import discover
from theorycheck.conformance import ALGORITHMS, claims_for, conform
from theorycheck.validation import ParameterError

from . import conformance_learners as mine
from . import defects_ks15

pytest_plugins = ["pytester"]
SPEC = ALGORITHMS["AERR"]


def _seed(i):
    return np.random.SeedSequence(i)


@pytest.mark.parametrize(("algorithm", "learner"), [("AERR", AERR), ("AELR", AELR), ("AERR", mine.MyAERR),
                                                    ("AER", AER), ("Baseline", Baseline), ("AER", mine.MyAER)])
def test_correct_implementations_conform(algorithm, learner):
    result = conform(algorithm, learner, claims=False)
    assert result.verdict == "PASS", result.text()
    assert [c.name for c in result.checks] == ["estimator", "behaviour", "attributes"]
    assert all("false-FAIL rate" in c.decision for c in result.checks)


@pytest.mark.parametrize("algorithm", ["GAERR", "DDAERR", "TwoPhaseDDAERR", "GAELR", "DDAELR", "TwoPhaseDDAELR"])
def test_the_ks15_learners_conform_with_a_non_uniform_q(algorithm):
    result = conform(algorithm, getattr(algorithms, algorithm), claims=False)
    verdicts = {c.name: c.verdict for c in result.checks}
    assert verdicts["estimator"] == verdicts["behaviour"] == "PASS", result.text()
    assert "q" in result.assumed or "second_moments" in result.assumed or "m1" in result.assumed
    assert verdicts["attributes"] == "PASS", result.text()  # the two-phase paths' ``read`` covers phase 1


@pytest.mark.parametrize(("algorithm", "learner"), [("AER", AER), ("Baseline", Baseline)])
def test_recording_the_path_changes_nothing(algorithm, learner):
    rng = np.random.default_rng(5)
    X, y = rng.uniform(-1.0, 1.0, size=(200, 10)), rng.uniform(-1.0, 1.0, size=200)
    for k in (2, 4, 6):
        plain = learner(k=k, random_state=9).fit(X, y)
        recorded = learner(k=k, random_state=9, record_trajectory=True).fit(X, y)
        assert np.array_equal(plain.coef_, recorded.coef_)  # bit for bit
        read = recorded.trajectory_["read"]
        assert read.shape == (200, k) and int((read >= 0).sum()) == plain.n_attributes_seen_
    assert not hasattr(plain, "trajectory_")


@pytest.mark.parametrize("learner", [algorithms.TwoPhaseDDAERR, algorithms.TwoPhaseDDAELR])
def test_the_two_phase_paths_name_the_reads_of_both_phases(learner):
    rng = np.random.default_rng(6)
    X, y = rng.uniform(-1.0, 1.0, size=(200, 10)) / np.sqrt(10), rng.uniform(-1.0, 1.0, size=200)
    for k in (1, 3):
        plain = learner(k=k, m1=40, random_state=4).fit(X, y)
        recorded = learner(k=k, m1=40, random_state=4, record_trajectory=True).fit(X, y)
        assert np.array_equal(plain.coef_, recorded.coef_)
        read = recorded.trajectory_["read"]
        assert read.shape[0] == 200 and int((read >= 0).sum()) == plain.n_attributes_seen_
        assert all(len(set(row[row >= 0])) == int((row >= 0).sum()) for row in read)  # distinct per row
    warm = learner(k=1, m1=40, warm_start=True, random_state=4, record_trajectory=True).fit(X, y)
    assert "read" not in warm.trajectory_  # the warm start's phase 1 is not recorded: no partial audit


def test_the_claims_check_takes_every_claim_with_the_algorithm_as_any_subject():
    places, skipped = claims_for("AER", "full")
    assert places == {"cbss11.thm1": ("aer",), "cbss11.thm12": ("learner",), "cbss11.exp-mnist": ("aer",),
                      "hk12.exp-mnist": ("aer",)} and not skipped
    places, skipped = claims_for("DDAERR", "full")
    assert places["ks15.fig1"] == ("dd",) and places["ks15.fewer-attributes"] == ("a",)
    assert places["ks15.exp-mnist"] == ("dd_ridge",) and not skipped
    for algorithm in ALGORITHMS:  # the quick profile keeps the lemmas and leaves out the rest
        quick, later = claims_for(algorithm)
        assert set(quick) | set(later) == set(claims_for(algorithm, "full")[0]), algorithm
        assert all(discover()[cid].reference.startswith("Lemma") for cid in quick), algorithm
    assert set(claims_for("AERR")[0]) == {"hk12.lemma3.2", "hk12.lemma3.3"}
    assert set(claims_for("AELR")[0]) == {"hk12.lemma3.5", "hk12.lemma3.6", "hk12.lemma3.7", "hk12.lemma3.8"}
    assert claims_for("AER") == ({}, ["cbss11.exp-mnist", "cbss11.thm1", "cbss11.thm12", "hk12.exp-mnist"])


def test_quick_conformance_runs_the_lemmas_and_writes_a_page(tmp_path):
    status = cli.main(["conform", "AERR", "--subject", "learner=theorycheck.algorithms:AERR", "--quiet",
                       "--jobs", "1", "--out", str(tmp_path)])
    assert status == 0
    stored = json.loads((tmp_path / "conform-AERR.json").read_text())
    claims = next(c for c in stored["checks"] if c["name"] == "claims")
    assert claims["details"]["claims"] == {"hk12.lemma3.2": "PASS", "hk12.lemma3.3": "PASS"}
    assert "hk12.thm3.1" in claims["details"]["skipped"] and "behaviour check stands in" in claims["decision"]
    page = (tmp_path / "conform-AERR.html").read_text()
    assert "Conformance to AERR" in page and "index.html" in page and page.count("PASS") >= 5
    assert (tmp_path / "index.html").exists() and (tmp_path / "hk12.lemma3.2.html").exists()  # the linked report
    result = conform("AER", AER, out=tmp_path / "aer")  # no lemma about AER: no claims check, and a note
    assert result.verdict == "PASS" and "claims" not in [c.name for c in result.checks]
    assert "cbss11.thm12" in result.notes[0] and "cbss11.thm12" in result.text()


@pytest.mark.parametrize(("algorithm", "defect", "check"), [
    ("AER", mine.AERTwiceTheBall, "behaviour"),
    ("AER", mine.AERReadsEverything, "attributes"),
    ("AER", mine.AERReadsOneMore, "attributes"),
    ("Baseline", mine.BaselineDiagonalDminus1, "estimator"),
])
def test_each_planted_aer_and_baseline_defect_fails(algorithm, defect, check):
    result = conform(algorithm, defect, claims=False)
    assert result.verdict == "FAIL", result.text()
    assert next(c for c in result.checks if c.name == check).verdict == "FAIL", result.text()


def test_reading_one_attribute_beyond_the_budget_fails_even_when_reported():
    check = conformance._audit_check(mine.AERReadsOneMore, 4, 1.0, 0.5, _seed(6), ALGORITHMS["AER"])
    assert check.verdict == "FAIL" and "more than k = 4 attributes read" in check.decision, check.decision


@pytest.mark.parametrize(("algorithm", "defect"), [("GAERR", defects_ks15.UniformDrawsGAERR),
                                                   ("GAERR", defects_ks15.MismatchedWeightsGAERR),
                                                   ("DDAERR", defects_ks15.LassoQDDAERR)])
def test_the_ks15_laws_catch_what_the_risk_claims_cannot(algorithm, defect):
    """Draws from uniform with 1/q weights, and q ∝ E[x²] for the Ridge learner, pass ks15.thm3.1 and
    ks15.thm3.3 (declared caught=False there); their estimates have another law."""
    check = conformance._estimator_check(ALGORITHMS[algorithm], defect, 2, 1.0, 0.5, 3000, 1e-3, _seed(7))
    assert check.verdict == "FAIL", check.decision


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


def test_baselines_law_is_unbiased_and_the_printed_constants_are_not():
    from fractions import Fraction

    from theorycheck.estimators import baseline_estimate_distribution, distribution_mean

    x = [Fraction(1, 2), Fraction(-1, 4), Fraction(3, 8), Fraction(1, 8), Fraction(-3, 4)]
    d = len(x)
    for k in (2, 4):
        law = baseline_estimate_distribution(x, k)
        assert sum(p for p, _ in law) == 1
        mean = distribution_mean(law)
        assert mean[: d * d] == tuple(a * b for a in x for b in x) and mean[d * d:] == tuple(x)  # Lemmas 7–9
        printed = distribution_mean(baseline_estimate_distribution(x, k, estimator="figure"))
        assert printed[1] == Fraction(d, d - 1) * x[0] * x[1] and printed[0] == 0  # the erratum: biased

    class PrintedFigure(Baseline):
        def __init__(self, k=2, B=1.0, random_state=None, record_trajectory=False):
            super().__init__(k=k, B=B, estimator="figure", random_state=random_state,
                             record_trajectory=record_trajectory)

    check = conformance._estimator_check(ALGORITHMS["Baseline"], PrintedFigure, 2, 1.0, 0.5, 100, 1e-3, _seed(8))
    assert check.verdict == "FAIL" and "never takes" in check.decision


def test_a_learner_that_raises_gets_fail_with_its_cause():
    class Raises(mine.MyAER):
        def fit(self, X, y):
            raise RuntimeError("boom")

    for check in (conformance._estimator_check(ALGORITHMS["AER"], Raises, 4, 1.0, 0.5, 10, 1e-3, _seed(9)),
                  conformance._audit_check(Raises, 4, 1.0, 0.5, _seed(9), ALGORITHMS["AER"])):
        assert check.verdict == "FAIL" and "RuntimeError: boom" in check.decision
