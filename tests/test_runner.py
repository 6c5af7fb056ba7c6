"""Runner: seeds, cache, resume after an interruption, failures never cached."""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from theorycheck import stats
from theorycheck.claims import Claim, Evidence, Measurement
from theorycheck.run import run_claims
from theorycheck.run.provenance import cache_key, task_seed

CALLS: list[int] = []
INTERRUPT_AT = [-1]


class Counting(Claim):
    """A toy claim: each task draws one uniform number; can be told to break at a task. It counts its calls in
    this process (CALLS), so the tests run it here (``isolate=False``), as a built-in claim runs at --jobs 1: a
    claim defined outside theorycheck would otherwise run in a worker process."""

    id = "cbss11.toy"
    title = "toy"
    statement = "toy"
    reference = "none"
    kind = "bound"
    profiles = {"quick": {"tasks": 5, "error_at": -1}, "full": {"tasks": 5, "error_at": -1}}

    def tasks(self, p):
        return [{"i": i} for i in range(p["tasks"])]

    def measure(self, p, task, subjects, seed):
        CALLS.append(task["i"])
        if task["i"] == INTERRUPT_AT[0]:
            raise KeyboardInterrupt
        if task["i"] == p["error_at"]:
            raise RuntimeError("planted crash")
        return Measurement([{"i": task["i"], "u": float(np.random.default_rng(seed).random())}])

    def decide(self, p, table):
        return Evidence(verdict=stats.PASS, observed=float(table["u"].mean()), theory=None, decision="toy")


def _leftovers(out):
    return [p for p in out.rglob("*") if p.name.endswith(".tmp")]


def test_task_seeds_depend_only_on_seed_claim_and_repetition():
    a = task_seed(3, "cbss11.thm2", 4).generate_state(4)
    assert np.array_equal(a, task_seed(3, "cbss11.thm2", 4).generate_state(4))
    for other in [task_seed(4, "cbss11.thm2", 4), task_seed(3, "cbss11.thm3", 4), task_seed(3, "cbss11.thm2", 5)]:
        assert not np.array_equal(a, other.generate_state(4))


def test_interrupted_run_resumes_from_stored_tasks(tmp_path):
    claim = Counting()
    CALLS.clear()
    INTERRUPT_AT[0] = 3  # outside the parameters, so both runs share one cache key
    try:
        with pytest.raises(KeyboardInterrupt):
            run_claims([claim], out=tmp_path, progress=False, isolate=False)
    finally:
        INTERRUPT_AT[0] = -1
    assert CALLS == [0, 1, 2, 3]
    assert not (tmp_path / "summary.json").exists()
    assert not (tmp_path / "results").exists()
    assert not _leftovers(tmp_path)
    key_dir = tmp_path / ".cache" / claim.id / cache_key(claim, claim.params_for("quick"), 0, {})
    assert sorted(p.name for p in key_dir.iterdir()) == ["task-0.json", "task-1.json", "task-2.json"]

    CALLS.clear()
    (record,) = run_claims([claim], out=tmp_path, progress=False, isolate=False)
    assert CALLS == [3, 4]  # the stored tasks are not run again
    assert record["tasks_from_cache"] == 3 and record["verdict"] == "PASS"
    assert json.loads((tmp_path / "summary.json").read_text())["claims"][0]["verdict"] == "PASS"
    CALLS.clear()
    (fresh,) = run_claims([claim], out=tmp_path / "fresh", progress=False, isolate=False)
    assert fresh["observed"] == record["observed"]  # resuming changes nothing


def test_failures_are_never_cached(tmp_path):
    claim = Counting()
    CALLS.clear()
    (record,) = run_claims([claim], overrides={"error_at": "2"}, out=tmp_path, progress=False, isolate=False)
    assert record["verdict"] == "ERROR" and "planted crash" in record["decision"]
    CALLS.clear()
    (record,) = run_claims([claim], overrides={"error_at": "2"}, out=tmp_path, progress=False, isolate=False)
    assert CALLS == [2]  # only the failed task is tried again
    assert record["verdict"] == "ERROR"


def test_cache_hit_recomputes_nothing_and_gives_the_same_result(tmp_path):
    claim = Counting()
    CALLS.clear()
    (first,) = run_claims([claim], out=tmp_path, progress=False, isolate=False)
    assert CALLS == [0, 1, 2, 3, 4]
    CALLS.clear()
    (second,) = run_claims([claim], out=tmp_path, progress=False, isolate=False)
    assert CALLS == [] and second["observed"] == first["observed"]
    CALLS.clear()
    (third,) = run_claims([claim], out=tmp_path, progress=False, use_cache=False, isolate=False)
    assert len(CALLS) == 5 and third["observed"] == first["observed"]
    CALLS.clear()
    (other,) = run_claims([claim], out=tmp_path, progress=False, seed=1, isolate=False)
    assert len(CALLS) == 5 and other["observed"] != first["observed"]


def test_cache_key_tracks_subject_source():
    claim = Counting()

    def a(x):
        return x

    def b(x):
        return x + 1

    p = claim.params_for("quick")
    assert cache_key(claim, p, 0, {"f": a}) != cache_key(claim, p, 0, {"f": b})
    assert cache_key(claim, p, 0, {"f": a}) == cache_key(claim, p, 0, {"f": a})
    assert cache_key(claim, p, 0, {"f": a}) != cache_key(claim, dict(p, tasks=6), 0, {"f": a})


def test_evidence_tables_are_csv(tmp_path):
    run_claims([Counting()], out=tmp_path, progress=False, isolate=False)
    table = pd.read_csv(tmp_path / "tables" / "cbss11.toy.csv")
    assert list(table.columns) == ["i", "u"] and len(table) == 5


class Rejecting(Counting):
    """Finds, on the instance it builds, a value the claim rejects."""

    id = "cbss11.toy-rejecting"

    def measure(self, p, task, subjects, seed):
        from theorycheck.validation import ParameterError

        raise ParameterError("k=7 exceeds the design's dimension d=5")


def test_a_parameter_error_inside_measure_is_a_usage_error_not_a_crash(tmp_path):
    from theorycheck.validation import ParameterError

    with pytest.raises(ParameterError, match=r"cbss11\.toy-rejecting: k=7 exceeds"):
        run_claims([Rejecting()], out=tmp_path, progress=False, isolate=False)
    assert not list(tmp_path.glob(".cache/**/task-*.json"))


class Vacuous(Counting):
    id = "cbss11.toy-vacuous"

    def decide(self, p, table):
        return Evidence(verdict=stats.PASS, observed=0.1, theory=1.0, decision="mean ≤ bound", trivial=0.5,
                        vacuous=True)


def test_a_vacuous_instance_is_never_pass(tmp_path):
    (record,) = run_claims([Vacuous()], out=tmp_path, progress=False, isolate=False)
    assert record["verdict"] == stats.INCONCLUSIVE
    assert "vacuous" in record["decision"] and record["vacuous"] and record["trivial"] == 0.5


class Declared(Counting):
    id = "cbss11.toy-declared"
    from theorycheck.validation import Budget, Integer

    parameters = {"tasks": Integer(1), "d": Integer(1), "k": Budget()}
    base = {"tasks": 2, "error_at": -1, "d": 4, "k": 2}
    profiles = {"quick": {}, "full": {"tasks": 3}}


@pytest.mark.parametrize(("overrides", "message"), [
    ({"k": "5"}, "k must not exceed d"), ({"k": "0"}, "k must be at least 1"), ({"tasks": "0"}, "tasks must be"),
])
def test_declared_rules_are_checked_before_any_work(tmp_path, overrides, message):
    from theorycheck.validation import ParameterError

    CALLS.clear()
    with pytest.raises(ParameterError, match=message):
        run_claims([Declared()], overrides=overrides, out=tmp_path, progress=False, isolate=False)
    assert CALLS == []


def test_profiles_list_only_what_differs_from_the_base():
    assert Declared().profile("full") == {"tasks": 3, "error_at": -1, "d": 4, "k": 2}
    assert Declared().profile("quick")["tasks"] == 2


@pytest.mark.parametrize("damage", [b"{}", b"null", b"[1, 2]", b'{"rows": 3}', b"\xff\xfe not utf-8", b"{trunc"])
def test_a_damaged_cache_entry_is_recomputed_with_a_warning(tmp_path, capsys, damage):
    (first,) = run_claims([Counting()], out=tmp_path, progress=False, isolate=False)
    (entry,) = list(tmp_path.glob(".cache/**/task-0.json"))
    entry.write_bytes(damage)
    CALLS.clear()
    (again,) = run_claims([Counting()], out=tmp_path, progress=False, isolate=False)
    assert CALLS == [0]  # only the damaged task ran again
    assert again["observed"] == first["observed"]
    err = capsys.readouterr().err
    assert "is damaged; it is recomputed" in err and str(entry) in err


def test_a_damaged_result_is_left_out_of_the_report(tmp_path, capsys):
    from theorycheck import report
    from theorycheck.run.store import load_result

    run_claims([Counting()], out=tmp_path, progress=False, isolate=False)
    run_claims([Vacuous()], out=tmp_path, progress=False, isolate=False)
    (tmp_path / "results" / "cbss11.toy.json").write_text('{"id": "cbss11.toy", "verd')
    assert load_result(tmp_path, "cbss11.toy") is None
    report.render(tmp_path, registry={})
    assert "is damaged" in capsys.readouterr().err
    (tmp_path / "summary.json").write_text("{")
    from theorycheck.validation import ParameterError

    with pytest.raises(ParameterError, match=r"summary\.json is damaged"):
        report.render(tmp_path, registry={})


def test_the_cache_keeps_the_run_just_used_and_the_three_most_recent_others(tmp_path):
    import os

    from theorycheck.run.store import CACHE_KEPT_PER_CLAIM, prune_cache

    claim = tmp_path / ".cache" / "cbss11.lemma7"
    runs = [claim / f"{i:020d}" for i in range(7)]
    for age, run in enumerate(runs):
        (run).mkdir(parents=True)
        (run / "task-0.json").write_text("{}")
        os.utime(run, (1_000_000 - age * 1000, 1_000_000 - age * 1000))  # runs[0] the newest
    prune_cache(runs[-1])  # the oldest is the one this run used
    kept = sorted(p.name for p in claim.iterdir())
    assert len(kept) == CACHE_KEPT_PER_CLAIM
    assert kept == sorted([runs[-1].name, *(r.name for r in runs[:CACHE_KEPT_PER_CLAIM - 1])])


def test_clean_removes_the_cache_and_keeps_the_report(tmp_path, capsys):
    from theorycheck.cli import main

    assert main(["verify", "cbss11.lemma7", "--quiet", "--out", str(tmp_path)]) == 0
    assert (tmp_path / ".cache").is_dir()
    capsys.readouterr()
    assert main(["clean", "--out", str(tmp_path)]) == 0
    assert "MB of cached tasks" in capsys.readouterr().out
    assert not (tmp_path / ".cache").exists() and (tmp_path / "index.html").exists()
    assert main(["verify", "cbss11.lemma7", "--quiet", "--out", str(tmp_path)]) == 0  # recomputed


def test_every_claim_has_a_shipped_cost_per_task_for_the_first_runs_progress_bar():
    """theorycheck/costs.json weights the progress bar of a run with no history of its own (so its
    ETA means something from the first minute); benchmarks/costs.py refreshes it from a run."""
    from theorycheck.claims import built_in, discover
    from theorycheck.run.plan import COSTS_FILE

    costs = json.loads(COSTS_FILE.read_text(encoding="utf-8"))
    claims = {cid for cid, claim in discover().items() if built_in(claim)}
    wanted = {f"{cid}|{profile}" for cid in claims for profile in ("quick", "full")}
    assert not wanted - set(costs), sorted(wanted - set(costs))
    assert all(isinstance(v, float | int) and v > 0 for v in costs.values())
    assert {key.split("|")[0] for key in costs} <= claims, "entries of claims that no longer exist"


def test_the_headline_of_a_verdict_that_is_not_pass_gives_its_reason_not_the_method():
    from theorycheck.verdicts import headline

    decision = ("The method: each finding is REPRODUCED, TIED, REVERSED or UNDECIDED (INCONCLUSIVE).\n"
                "- budget 10: REPRODUCED. median 0.2 in [0.1, 0.3]\n"
                "- budget 20: UNDECIDED. median 0.1 in [-0.1, 0.3]; needs 40 runs\n")
    assert headline(decision) == headline(decision, "PASS") == decision.splitlines()[0]
    assert headline(decision, "INCONCLUSIVE").startswith("budget 20: UNDECIDED.")
    assert headline(decision, "FAIL") == decision.splitlines()[0]  # no line says why: the first line
    assert headline("No verdict: the instance is vacuous.\n- x: FAIL", "INCONCLUSIVE").startswith("No verdict")
    assert len(headline(decision.replace("budget 20", "x" * 400), "INCONCLUSIVE")) <= 240
    reported = "Method.\n- a (reported, not decided): REVERSED. x\n- b: TIED. median 0 in [0, 0]\n"
    assert headline(reported, "FAIL").startswith("b: TIED")  # the finding that decides comes first


def test_compile_time_counts_numba_compilation_and_not_cached_calls():
    from numba import njit
    from numba.core import event

    from theorycheck.run.execute import CompileTime

    @njit
    def twice(x):
        return 2 * x

    first, second = CompileTime(), CompileTime()
    with event.install_listener("numba:compile", first):
        twice(1.0)
    with event.install_listener("numba:compile", second):
        twice(2.0)
    assert first.seconds > 0.01 and second.seconds == 0.0


def test_time_left_is_a_range_from_the_work_left_the_cpu_per_expected_second_and_the_measured_share():
    from types import SimpleNamespace

    from theorycheck.run.execute import TimeLeft

    eta = TimeLeft(share=0.5)  # half a core, say two workers on two cores beside six busy processes
    bar = SimpleNamespace(n=0.0, total=1000.0, format_dict={"elapsed": 10.0})
    assert eta.left(bar) == "about 16–67 min left"  # before any task returns: half to twice 1000 s at 0.5
    eta.task(seconds=5.0, compiling=4.0, expected=1.0)
    eta.task(seconds=15.0, compiling=6.0, expected=9.0)
    for elapsed, cpu in [(0, 0), (60, 120), (120, 150)]:  # two cores, then a load takes three quarters
        eta.sample(elapsed, cpu)
    # 1.0 CPU s per expected second without compilation, 2.0 with it (70/60 and 1.0 drawn towards the
    # reference machine by a weight of 50); shares 150/120 over the run and 30/60 over the last minute:
    # 990 * 1.0 / 1.25 = 792 s to 990 * 2.0 / 0.5 = 3960 s
    assert eta.range(10.0, 1000.0, 120.0) == pytest.approx((792.0, 3960.0))
    assert eta.left(SimpleNamespace(n=10.0, total=1000.0, format_dict={"elapsed": 120.0})) == "about 13–66 min left"
    steady = TimeLeft(share=2.0)
    steady.task(seconds=10.0, compiling=0.0, expected=10.0)
    for elapsed, cpu in [(0, 0), (60, 120), (120, 240)]:
        steady.sample(elapsed, cpu)
    assert steady.left(SimpleNamespace(n=10.0, total=1000.0, format_dict={"elapsed": 120.0})) == "about 8 min left"
    assert TimeLeft.for_machine(-1).share > 0


def test_time_left_holds_the_actual_time_beside_a_load_and_narrows_as_compilation_is_paid():
    """A synthetic run: 600 expected seconds of one-second tasks at 1.5 CPU seconds each, the first 20 also
    compiling for 2 s, on a machine that gives the run 1.2 CPU seconds a second (two workers beside a hog)."""
    from theorycheck.run.execute import TimeLeft

    eta, cpu, elapsed, widths = TimeLeft(share=2.0), 0.0, 0.0, []
    eta.sample(0.0, 0.0)
    for done in range(1, 601):
        compiling = 2.0 if done <= 20 else 0.0
        cpu += 1.5 + compiling
        elapsed = cpu / 1.2
        eta.task(1.5 + compiling, compiling, 1.0)
        eta.sample(elapsed, cpu)
        short, long = eta.range(done, 600.0, elapsed)
        if elapsed >= 10 and done < 600:
            assert short <= (600 - done) * 1.5 / 1.2 <= long * (1 + 1e-9), done
            widths.append(long / short)
    assert widths[0] > 1.25 and widths[-1] < 1.1  # a range at first, one number once compilation is a small part


def _replay(tasks, priced: bool, untimed=frozenset()):
    """Replay one worker running ``tasks`` (claim, expected seconds, CPU seconds) in order at a full core, with a
    reading every 2 s and at each return, priced claim by claim as _run_round prices them (or, ``priced`` False,
    at the run's one measure); yield (elapsed, true time left, words, short end, long end)."""
    from types import SimpleNamespace

    from theorycheck.run.execute import TimeLeft

    eta, clock, done = TimeLeft(share=1.0), 0.0, 0.0
    eta.sample(0.0, 0.0)
    total, finish = sum(e for _, e, _ in tasks), sum(c for _, _, c in tasks)
    for r, (claim, expected, cpu) in enumerate(tasks):
        for t in [*np.arange(clock + 2.0, clock + cpu, 2.0), clock + cpu]:
            returned = t == clock + cpu
            if returned:
                eta.task(cpu, 0.0, expected, claim=claim)
                done += expected
            work: dict[int, float] = {}
            for c, e, _ in tasks[r + returned:]:
                work[c] = work.get(c, 0.0) + e
            eta.sample(t, t)
            bar = SimpleNamespace(n=done, total=total, format_dict={"elapsed": t})
            args = (work, untimed) if priced else ()
            short, long = eta.range(done, total, t, *args)
            yield t, finish - t, eta.left(bar, *args), short, long
        clock += cpu


def test_time_left_with_a_slow_replaced_subject_never_tells_under_half_the_truth_after_the_first_minute():
    """70 one-second tasks of the built-ins, then a replaced subject twenty times slower than the reference's
    costs (10 tasks), then 20 more built-in tasks: every reading after the first minute either is a range whose
    long end reaches half the true time left and whose short end is under twice it, or says "at least" a time
    not longer than the truth (while the subject is not timed). The run's one measure, as before, tells under
    half the truth for minutes."""
    tasks = [(0, 1.0, 1.0)] * 70 + [(1, 1.0, 20.0)] * 10 + [(2, 1.0, 1.0)] * 20
    readings = [r for r in _replay(tasks, priced=True, untimed={1}) if r[0] >= 60]
    for t, truth, words, short, long in readings:
        if "not timed yet" in words:
            assert short <= truth * (1 + 1e-9) and words.startswith("at least"), (t, truth, words)
        else:
            assert long >= truth / 2 and short <= 2 * truth, (t, truth, words)
    lower = [w for *_, w, _, _ in readings if "not timed yet" in w]
    assert 0 < len(lower) < len(readings) / 5  # until the subject's first task returns
    unpriced = [r for r in _replay(tasks, priced=False) if r[0] >= 60]
    assert sum(long < truth / 2 for _, truth, _, _, long in unpriced) > len(unpriced) / 4


def test_time_left_formats_a_range_rounded_outwards_or_one_number():
    from theorycheck.run.execute import span

    assert span(100, 400) == "about 1–7 min left"
    assert span(200, 240) == "about 4 min left"
    assert span(40, 250) == "under 5 min left"
    assert span(20, 30) == "about 20–30 s left"
    assert span(3000, 9000) == "about 0.5–2.5 h left"
    assert span(7000, 8000) == "about 2 h left"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_runs_cpu_counts_its_live_workers():
    import subprocess

    from theorycheck.run.execute import process_tree_cpu

    before = process_tree_cpu()
    burn = "import time\nwhile time.process_time() < 0.3: pass\nprint(flush=True)\ntime.sleep(30)"
    worker = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE)
    try:
        worker.stdout.readline()  # it has burnt 0.3 CPU seconds and sleeps, alive
        assert process_tree_cpu() - before >= 0.25
    finally:
        worker.kill()
        worker.wait()


# ---------------------------------------------------------------------- family-wise error
#: the reproductions and comparisons of the papers' experiments: their δ is budgeted apart (issue 42, item 8)
EMPIRICAL = ("cbss11.exp-mnist", "hk12.exp-mnist", "ks15.exp-mnist", "ks15.fig1", "ks15.fig2",
             "ks15.fewer-attributes", "reyzin11.exp", "reyzin11.table6", "reyzin11.deterministic", "sk13.exp")
#: the family-wise error a run of every built-in claim may state, per profile
FAMILY_WISE = {"quick": 0.10, "full": 0.05}
#: the share of it left to the other claims (bounds, rates, lower bounds, frequencies, sampled laws)
NON_EMPIRICAL = 0.035


def declared_delta(claim, profile: str) -> float:
    """The δ a claim's decision reports (Evidence.delta) on a profile, read from its parameters as
    `theorycheck list` prints them: ``delta``, plus ``learner_delta`` where an exact law also decides
    a learner's estimates (hk12.lemma3.3, hk12.lemma3.8 add both). A ``delta`` that is not a number
    is a parameter of the statement, not an error rate (hk12.claim4.2's grid of insensitivities), and
    a claim without one decides exactly or pathwise: 0."""
    p = claim.profile(profile)
    delta = p.get("delta")
    if isinstance(delta, bool) or not isinstance(delta, int | float):
        return 0.0
    return float(delta) + float(p.get("learner_delta", 0.0))


def _built_in():
    from theorycheck.claims import built_in, discover

    return [claim for claim in discover().values() if built_in(claim)]


def test_declared_delta_mirrors_what_the_decisions_report():
    from theorycheck.claims import discover

    registry = discover()
    assert declared_delta(registry["hk12.claim4.2"], "quick") == 0.0
    lemma = registry["hk12.lemma3.3"].profile("quick")
    assert declared_delta(registry["hk12.lemma3.3"], "quick") == pytest.approx(lemma["delta"] + lemma["learner_delta"])
    assert declared_delta(registry["hk12.lemma3.2"], "full") == 0.0  # pathwise: no error rate
    assert set(EMPIRICAL) <= set(registry)


@pytest.mark.parametrize("profile", sorted(FAMILY_WISE))
def test_the_claims_other_than_the_experiments_keep_their_share_of_the_family_wise_error(profile):
    deltas = {c.id: declared_delta(c, profile) for c in _built_in() if c.id not in EMPIRICAL}
    assert sum(deltas.values()) <= NON_EMPIRICAL, sorted(deltas.items(), key=lambda kv: -kv[1])[:8]


@pytest.mark.parametrize("profile", sorted(FAMILY_WISE))
def test_a_run_of_every_claim_states_a_family_wise_error_a_user_can_trust(profile):
    deltas = {c.id: declared_delta(c, profile) for c in _built_in()}
    assert sum(deltas.values()) <= FAMILY_WISE[profile], sorted(deltas.items(), key=lambda kv: -kv[1])[:8]


def test_summary_gives_each_claims_share_of_the_family_wise_error(tmp_path):
    from theorycheck.run.store import write_summary

    records = [{"id": "a", "verdict": "PASS", "delta": 0.003}, {"id": "b", "verdict": "PASS", "delta": 0.001},
               {"id": "c", "verdict": "PASS", "delta": None}, {"id": "d", "verdict": "PASS", "delta": 0.0}]
    summary = write_summary(tmp_path, records, profile="quick", seed=0, env={})
    assert summary["family_wise_delta"] == pytest.approx(0.004)
    shares = {row["id"]: row["delta_share"] for row in json.loads((tmp_path / "summary.json").read_text())["claims"]}
    assert shares == {"a": pytest.approx(0.75), "b": pytest.approx(0.25), "c": None, "d": 0.0}
