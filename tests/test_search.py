"""`theorycheck search` (issue 52): declared spaces, the study that resumes to the same result, the confirmation
on a fresh stream, and its power on two planted defects (tests/search_planted.py) that PASS verify on the
default quick instance and break above d = 16."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import theorycheck
from tests.search_campaign import CAMPAIGN
from theorycheck.claims import discover
from theorycheck.cli import main
from theorycheck.search import Choice, Int, Real, Space, at_most, even, space_of, stream_seed
from theorycheck.search.confirm import TOP, candidates, command, confirmation_seeds
from theorycheck.search.engine import BATCH, make_study, parse_budget, run_study

#: the claims with a declared space, and the parameters each searches (decided from the papers' statements)
SEARCHED = {"hk12.thm3.1": {"d", "k", "m", "B", "designs", "rho", "noise"},
            "hk12.thm3.4": {"d", "k", "m", "B", "s", "designs", "rho", "noise"},
            "cbss11.lemma8": {"d", "k", "m", "delta_lemma", "designs", "rho", "noise"},
            "hk12.lemma3.2": {"d", "k", "m", "B", "eta_factors", "designs", "rho", "noise"},
            "cbss11.lemma9": {"d", "k", "m", "B", "delta_lemma", "designs", "rho", "noise"}}
PLANTED = "estimates=tests.search_planted:estimates_weighted_twice_above_16"


def test_the_declared_spaces_are_the_statements_quantifiers():
    registry = discover()
    for claim_id, names in SEARCHED.items():
        space = space_of(registry[claim_id])
        assert set(space.dims) == names
        assert "k ≤ d" in [c.statement for c in space.constraints]
        assert space.why
    assert space_of(registry["cbss11.thm6"]) is None and registry["cbss11.thm6"].no_space


def test_a_point_maps_to_the_claims_set_overrides_and_a_broken_hypothesis_is_infeasible():
    space = Space({"d": Int(2, 64, log=True), "k": Int(2, 64), "B": Real(0.25, 2.0), "designs": Choice(("a", "b"))},
                  constraints=(at_most("k", "d"), even("k")), fixed={"rate_repetitions": "0"})
    point = {"d": 8, "k": 4, "B": 0.1 + 0.2, "designs": "b"}
    overrides = space.overrides(point)
    assert overrides == {"rate_repetitions": "0", "d": "8", "k": "4", "B": "0.30000000000000004", "designs": "b"}
    assert float(overrides["B"]) == point["B"]  # a real round-trips exactly through --set
    assert space.broken(point) == []
    assert space.broken({**point, "k": 10}) == ["k ≤ d"]
    assert space.broken({**point, "k": 3}) == ["k even"]
    assert space.broken({**point, "d": 65, "k": 4}) == ["d = 65 outside integer in [2, 64], log scale"]
    with pytest.raises(TypeError, match="both search and fix"):
        Space({"d": Int(2, 4)}, fixed={"d": "3"})
    with pytest.raises(TypeError, match="log scale needs low"):
        Real(0.0, 1.0, log=True)


def test_a_space_naming_a_parameter_the_claim_lacks_fails_at_registration():
    from theorycheck.claims import register
    from theorycheck.kinds.exact import Exact

    class Misspelt(Exact):
        id = "hk12.misspelt-space"
        profiles = {"quick": {"n_max": 2}, "full": {"n_max": 3}}
        space = Space({"dd": Int(2, 4)})

    with pytest.raises(TypeError, match="no profile has: dd"):
        register(Misspelt)


def test_show_prints_the_space_and_search_refuses_a_claim_without_one(capsys):
    assert main(["show", "cbss11.lemma8", "--out", os.devnull + "-none"]) == 0
    shown = capsys.readouterr().out
    assert "Search space" in shown and "constraint: k ≤ d" in shown and "constraint: k even" in shown
    assert main(["show", "cbss11.thm6", "--out", os.devnull + "-none"]) == 0
    assert "Search space: none declared" in capsys.readouterr().out
    assert main(["search", "cbss11.thm6"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "theorycheck: error: cbss11.thm6 declares no search space (see `theorycheck show cbss11.thm6`)"]


@pytest.mark.parametrize("argv, message", [
    (["search", "hk12.thm3.1", "--set", "d=3"], "--set d: the search varies it"),
    (["search", "hk12.thm3.1", "--budget", "0"], "--budget must be"),
    (["search", "hk12.thm3.1", "--budget", "ten"], "--budget must be"),
    (["search"], "name the claims to search, or --all"),
    (["search", "hk12.thm3.1", "--all"], "name the claims to search, or --all"),
    (["search", "--all", "--subject", "nosuch=m:x"], "no claim with a search space has the subjects nosuch"),
    (["search", "hk12.thm3.1", "--subject", "learner=nosuchmodule:X"], "cannot load subject"),
])
def test_bad_usage_is_one_line_and_status_2_before_any_work(argv, message, capsys, tmp_path):
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "search").exists()


def test_budget_is_trials_or_cpu_seconds():
    assert parse_budget("40") == (40, None)
    assert parse_budget(12) == (12, None)
    assert parse_budget("600s") == (None, 600.0)


def test_the_search_and_confirmation_streams_are_disjoint_from_each_other_and_from_verify():
    trial_seeds = {stream_seed(0, "search", n) for n in range(200)}
    confirm_seeds = {stream_seed(0, "confirm", i) for i in range(10)}
    assert len(trial_seeds) == 200 and not trial_seeds & confirm_seeds and 0 not in trial_seeds | confirm_seeds
    assert stream_seed(1, "search", 0) != stream_seed(0, "search", 0)


def _study(out, **sets):
    claim = discover()["cbss11.lemma8"]
    return make_study(claim, profile="quick", seed=0, overrides={"repetitions": "10", **sets}, subjects={}, out=out)


def test_a_stopped_search_resumes_to_the_same_trials_and_jobs_do_not_change_them(tmp_path):
    """An uninterrupted search at --jobs 2, and one stopped after 5 trials (mid-batch, as a kill leaves it: the
    rest of its batch asked and stored as running) and resumed at --jobs 1, end with the same trials."""
    whole = _study(tmp_path / "whole")
    run_study(whole, trials=8, seconds=None, jobs=2)
    cut = _study(tmp_path / "cut")
    run_study(cut, trials=8, seconds=None, jobs=1, stop_after=5)
    assert any(t.state == "running" for t in cut.trials)
    resumed = _study(tmp_path / "cut")
    run_study(resumed, trials=8, seconds=None, jobs=1)
    assert sum(t.state == "complete" for t in whole.trials) >= 8 and len(whole.trials) % BATCH == 0

    def seen(study):
        return [(t.number, t.state, t.point, t.seed, t.margin, t.verdict) for t in study.trials]

    assert seen(resumed) == seen(whole)
    assert [t.number for t in candidates(resumed.trials)] == [t.number for t in candidates(whole.trials)]
    seeds = confirmation_seeds(resumed, TOP)
    assert not set(seeds) & {t.seed for t in resumed.trials}
    text = command(resumed, {"d": "4", "k": "2"}, seeds[0])
    assert text == f"theorycheck verify cbss11.lemma8 --set d=4 k=2 --seed {seeds[0]}"


def test_search_finds_and_confirms_a_learner_wrong_only_above_d_16(tmp_path):
    """The planted estimator PASSes cbss11.lemma8 on the default quick instance (d = 8, as the first run shows);
    the search of 16 trials (20 repetitions a trial, and a confirmation) finds a point where it fails and a fresh
    stream confirms it."""
    from tests.search_planted import estimates_weighted_twice_above_16
    from theorycheck.session import verify_claims

    claim = discover()["cbss11.lemma8"]
    [default] = verify_claims([claim], profile="quick", seed=0, out=tmp_path / "v",
                              subjects={"estimates": estimates_weighted_twice_above_16}, progress=False,
                              isolate=False)
    assert default["verdict"] == "PASS"
    result = theorycheck.search("cbss11.lemma8", subjects={"estimates": PLANTED.split("=", 1)[1]}, budget=16,
                                params={"repetitions": 20}, out=tmp_path)
    found = result.counterexample
    assert result.verdict == "FAIL" and result.exit_status == 1 and found is not None
    assert found.trial.point["d"] > 16 and not space_of(claim).broken(found.trial.point)
    assert found.seed not in {t.seed for t in result.trials}
    assert f"--seed {found.seed}" in found.command and PLANTED in found.command
    assert result.lines()[0].startswith("cbss11.lemma8: FAIL: a counterexample at d=")
    # shrunk toward the smallest d, k, m that still fail, and confirmed again: the defect starts above d = 16
    shrunk = result.shrunk
    assert shrunk.confirmed and 17 <= shrunk.point["d"] <= found.trial.point["d"]
    assert shrunk.point["m"] <= found.trial.point["m"] and not space_of(claim).broken(shrunk.point)
    assert (tmp_path / "search" / "cbss11.lemma8.html").read_text().count("FAIL") >= 1


def test_search_finds_a_statement_wrong_only_above_the_default_d(tmp_path):
    """planted.lemma8-d8 ((8/k)² for (d/k)²) PASSes verify at its default d = 8; the command line's search finds
    and confirms a counterexample, exit status 1."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    common = ["--claims", "tests.search_planted", "--out", str(tmp_path), "--quiet"]
    verify = subprocess.run([sys.executable, "-m", "theorycheck", "verify", "planted.lemma8-d8", *common],
                            capture_output=True, text=True, env=env, timeout=600)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    run = subprocess.run([sys.executable, "-m", "theorycheck", "search", "planted.lemma8-d8", *common, "--set",
                          "repetitions=20", "--budget", "16"], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.startswith("planted.lemma8-d8: FAIL: a counterexample at d=")
    assert "reproduce: theorycheck verify planted.lemma8-d8 --set repetitions=20 d=" in run.stdout


@pytest.mark.slow
def test_the_reference_aerr_meets_theorem_31_wherever_the_search_looks(tmp_path):
    """hk12.thm3.1 with the built-in AERR: 8 trials (100 runs a design) and 3 confirmations find no
    counterexample; the tightest confirmed ratio is reported with its instance."""
    result = theorycheck.search("hk12.thm3.1", budget=8, params={"repetitions": 100}, out=tmp_path)
    assert result.verdict == "NO COUNTEREXAMPLE" and result.exit_status == 0
    assert len(result.confirmations) == TOP and result.tightest is not None
    assert all(c.verdict != "FAIL" for c in result.confirmations)
    assert "tightest confirmed ratio" in "\n".join(result.lines())


def test_a_point_the_resource_guard_refuses_is_infeasible_not_an_error(tmp_path):
    """A point whose plan the runner's resource guard refuses (here: a trial's tasks past the machine's time, as
    the guard estimates it from repetitions) is infeasible, stored as such, and the search goes on."""
    from theorycheck.search.engine import run_point

    study = _study(tmp_path, repetitions=str(10**9))
    kept = run_point(study.job(1, {**study.overrides, "d": "8", "k": "4"}, tmp_path / "t"))
    assert set(kept) == {"infeasible"} and "the plan has" in kept["infeasible"]


def test_a_counterexample_where_a_recorded_erratum_applies_is_that_erratum_and_exit_status_0():
    from theorycheck.search import SearchResult
    from theorycheck.search.confirm import Confirmation
    from theorycheck.search.engine import Trial

    space = space_of(discover()["hk12.thm3.4"])
    assert space.erratum_at({"B": 4.0}) == "eta" and space.erratum_at({"B": 4.0, "eta_rule": "proof"}) is None
    assert space.erratum_at({"B": 0.5}) is None
    with pytest.raises(TypeError, match="errata the claim does not record: nosuch"):
        Space({"B": Real(0.5, 2.0)}, errata={"nosuch": at_most("B", "B")}).check({"B": 1.0}, "x.y", ())
    trial = Trial(number=3, point={"d": 17, "B": 15.0}, state="complete", seed=7, margin=1.5, verdict="FAIL")
    fail = Confirmation(trial=trial, seed=11, overrides={}, command="theorycheck verify …", verdict="FAIL", ratio=1.5,
                        observed=105.0, theory=70.0, interval=[91.0, 144.0], delta=1e-3, vacuous=False,
                        headline="label_bound: FAIL.", decision="", seconds=1.0)
    recorded = SearchResult("hk12.thm3.4", "bound", "quick", 0, [trial], [fail], recorded={0: "eta"})
    assert recorded.verdict == "FAIL" and recorded.exit_status == 0 and "recorded erratum [eta]" in recorded.lines()[0]
    new = SearchResult("hk12.thm3.4", "bound", "quick", 0, [trial], [fail])
    assert new.exit_status == 1 and "recorded erratum" not in new.lines()[0]


@pytest.mark.parametrize("planted", [p for p in CAMPAIGN if p.claims is None and discover()[p.claim].kind == "exact"],
                         ids=lambda p: p.claim)
def test_the_campaigns_exact_defects_pass_the_default_and_fail_in_their_region(planted, tmp_path):
    """benchmarks/search_power.py's premise, on its cheap (exact) defects: each PASSes verify at the claim's default
    quick instance, where a search starts blind, and FAILs at a point of the region where it is written wrong."""
    from theorycheck.session import load_subject

    subjects = {name: load_subject(spec) for name, spec in planted.subjects.items()}
    default, wrong = (theorycheck.verify(planted.claim, subjects=subjects, params={**planted.overrides, **at},
                                         out=tmp_path / str(i))[0] for i, at in enumerate(({}, planted.fails_at)))
    assert default.verdict == "PASS", default.record["decision"][:1500]
    assert wrong.verdict == "FAIL", wrong.record["decision"][:1500]
