"""The command-line contract: outputs, exit statuses, determinism, offline report."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance_learners import MyAERR
from tests.conftest import NOT_REPRODUCED_ON_QUICK, UNDECIDED_ON_QUICK, quick_cache, run_quick
from theorycheck.claims import Defect, discover
from theorycheck.cli import main

CBSS = ["cbss11.lemma7", "cbss11.thm2", "cbss11.thm3"]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_json_has_the_first_claims(capsys):
    status, out, _ = run(capsys, "list", "--json")
    assert status == 0
    items = json.loads(out)
    ids = {item["id"] for item in items}
    assert set(CBSS) <= ids
    for item in items:
        assert {"id", "paper", "kind", "title", "reference"} <= set(item)
        assert item["id"].startswith(item["paper"] + ".")


def test_list_by_paper_and_unknown_paper(capsys):
    status, out, _ = run(capsys, "list", "--paper", "cbss11")
    assert status == 0 and all(line.startswith("cbss11.") for line in out.splitlines())
    status, _, err = run(capsys, "list", "--paper", "nope")
    assert status == 2 and "unknown paper" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "no.such.claim"], "no claim matches"),
        (["verify", "cbss11.thm2", "--set", "k=0"], "k must be at least 1"),
        (["verify", "cbss11.thm2", "--set", "k=21"], "must not exceed d"),
        (["verify", "cbss11.thm2", "--set", "d=1"], "d must be at least 2"),
        (["verify", "cbss11.thm2", "--set", "k"], "malformed --set"),
        (["verify", "cbss11.thm2", "--set", "k=two"], "must be an integer"),
        (["verify", "cbss11.thm2", "--set", "nonsense=3"], "no selected claim has a parameter"),
        (["verify", "cbss11.thm3", "--set", "c=1.5", "k=5"], "c·k must be an integer"),
        (["verify", "--profile", "huge"], "invalid choice"),
        (["verify", "cbss11.thm2", "--jobs", "0"], "--jobs"),
        (["verify", "cbss11.lemma7", "--subject", "subset_average=no.such:thing"], "cannot load subject"),
        (["show", "cbss11.*"], "not a glob"),
        (["report", "--out", "/nonexistent/place"], "no stored results"),
        (["errata", "--paper", "nope"], "unknown paper"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_usage_exits_2_with_one_line(capsys, tmp_path, argv, message):
    status, _, err = run(capsys, *argv, *(["--out", str(tmp_path)] if argv[0] == "verify" else []))
    assert status == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert not (tmp_path / "index.html").exists()


def _summary_without_timings(text):
    summary = json.loads(text)
    summary.pop("wall_seconds")
    for claim in summary["claims"]:
        claim.pop("seconds")
    summary.pop("environment")
    return summary


def test_verify_quick_passes_and_is_deterministic_across_jobs(capsys, tmp_path):
    status1, out1, _ = run(capsys, "verify", *CBSS, "--json", "--no-cache", "--out", str(tmp_path / "a"))
    status2, out2, _ = run(capsys, "verify", *CBSS, "--json", "--jobs", "2", "--no-cache",
                           "--out", str(tmp_path / "b"))
    assert status1 == 0 and status2 == 0
    s1, s2 = _summary_without_timings(out1), _summary_without_timings(out2)
    assert [c["verdict"] for c in s1["claims"]] == ["PASS"] * 3
    assert s1 == s2
    # Re-running into the same folder (now from the cache) gives the same summary too.
    _, out3, _ = run(capsys, "verify", *CBSS, "--json", "--jobs", "2", "--out", str(tmp_path / "a"))
    assert _summary_without_timings(out3) == s1
    claim = s1["claims"][1]
    assert {"id", "verdict", "observed", "theory", "ratio", "delta", "params"} <= set(claim)
    # Files the contract promises.
    for name in ["index.html", "summary.json", *(f"{c}.html" for c in CBSS),
                 *(f"tables/{c}.csv" for c in CBSS)]:
        assert (tmp_path / "a" / name).exists(), name
    # A different seed gives different measurements.
    _, out3, _ = run(capsys, "verify", "cbss11.thm2", "--json", "--seed", "7", "--out", str(tmp_path / "c"))
    assert json.loads(out3)["claims"][0]["observed"] != s1["claims"][1]["observed"]


def test_report_is_offline_and_rerenders(capsys, tmp_path):
    status, _, _ = run(capsys, "verify", *CBSS, "--quiet", "--out", str(tmp_path))
    assert status == 0
    (tmp_path / "index.html").unlink()
    status, _, _ = run(capsys, "report", "--out", str(tmp_path))
    assert status == 0 and (tmp_path / "index.html").exists()
    pages = list(tmp_path.glob("*.html"))
    assert len(pages) == len(CBSS) + 2  # the claims, the index and the errata page
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, page
        # Every reference stays inside the folder.
        for ref in re.findall(r'(?:href|src)="([^"]+)"', text):
            if ref.startswith("#"):
                continue
            assert not ref.startswith(("/", "//")) and ":" not in ref, ref
            assert (tmp_path / ref).exists(), ref
    page = (tmp_path / "cbss11.thm2.html").read_text(encoding="utf-8")
    for needle in ["Theorem 2", "Hypotheses", "<svg", "How the verdict was decided", "numba", "seed"]:
        assert needle in page


def test_errata_without_stored_results_is_not_an_error(capsys, tmp_path):
    status, out, err = run(capsys, "errata", "--out", str(tmp_path / "never-run"))
    assert status == 0 and not err
    status, out, _ = run(capsys, "errata", "--out", str(tmp_path / "never-run"), "--json")
    assert status == 0 and all(item["evidence"] is None for item in json.loads(out))


def test_show_prints_statement_and_last_verdict(capsys, tmp_path):
    run(capsys, "verify", "cbss11.lemma7", "--quiet", "--out", str(tmp_path))
    status, out, _ = run(capsys, "show", "cbss11.lemma7", "--out", str(tmp_path))
    assert status == 0
    assert "Lemma 7" in out and "quick:" in out and "Last verdict: PASS" in out


def test_planted_defect_through_the_cli_exits_1(capsys, tmp_path):
    status, out, err = run(capsys, "verify", "cbss11.lemma7", "--quiet", "--out", str(tmp_path),
                           "--subject", "subset_average=tests.defects:subset_average_wrong_normaliser")
    assert status == 1
    assert out.startswith("FAIL") and "summary of 1 claim: 1 FAIL" in out
    assert len(err.splitlines()) == 1 and err.startswith("theorycheck: cbss11.lemma7: FAIL: ")
    result = json.loads((tmp_path / "results" / "cbss11.lemma7.json").read_text())
    assert result["subjects"]["subset_average"].endswith("subset_average_wrong_normaliser")


def test_summary_states_family_wise_error(capsys, tmp_path):
    run(capsys, "verify", *CBSS, "--quiet", "--out", str(tmp_path))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["family_wise_delta"] == pytest.approx(2e-3)
    # each claim's share of it: the exact lemma has none, the two lower bounds half each
    assert [row["delta_share"] for row in summary["claims"]] == [None, pytest.approx(0.5), pytest.approx(0.5)]
    index = (tmp_path / "index.html").read_text()
    assert "union bound" in index and index.count("50.0%") == 2 and "cbss11.thm2 (0.001, 50%)" in index




PAPERS = ("cbss11", "hk12", "ks15", "reyzin11", "sk13")


@pytest.mark.parametrize("claim_id", [cid for cid in discover() if cid.split(".", 1)[0] in PAPERS])
def test_every_claim_on_quick(capsys, tmp_path, shared_runs, claim_id):
    """Every claim of the papers on quick through `verify`, one claim per test (so pytest-xdist spreads them
    over the cores): PASS, or the allowances of UNDECIDED_ON_QUICK and NOT_REPRODUCED_ON_QUICK (with exit
    status 0 when the registry records every finding against the paper, 4 otherwise), its page, and the
    evidence of its errata. The tasks are the session's shared run (tests.conftest.quick_cache), which is
    what CI runs of every claim on quick; `verify` decides it again from them here."""
    quick_cache(claim_id, tmp_path, shared_runs)
    status, out, _ = run(capsys, "verify", claim_id, "--json", "--quiet", "--out", str(tmp_path))
    (summary,) = json.loads(out)["claims"]
    verdict = summary["verdict"]
    record = json.loads((tmp_path / "results" / f"{claim_id}.json").read_text())
    if verdict == "INCONCLUSIVE":
        assert claim_id in UNDECIDED_ON_QUICK, record["decision"]
    elif verdict == "NOT REPRODUCED":
        assert claim_id in NOT_REPRODUCED_ON_QUICK, record["decision"]
        against = {f["finding"] for f in record["findings"] if f["against"]}
        assert against, record["findings"]  # a result against the paper with the reference implementations
    else:
        assert verdict == "PASS", record["decision"]
    new = [f for f in record["findings"] if f.get("against") and not f.get("recorded")]
    assert status == {"PASS": 0, "INCONCLUSIVE": 3, "NOT REPRODUCED": 4 if new else 0}[verdict], (status, new)
    assert (tmp_path / f"{claim_id}.html").exists()
    missing = {e.key for e in discover()[claim_id].errata} - set(record["errata_evidence"])
    assert not missing, missing


# Beyond cbss11's Exact and LowerBound claims (the test above runs three of them with one and two workers):
# a claim of every other kind, the cheapest of its kind with more than one task (a claim of one task runs in
# the calling process whatever --jobs says), of every paper, the sequential ones (which ask for more tasks
# after seeing some: hk12.exp-mnist, reyzin11.deterministic, sk13.exp) included, each run with two workers
# and no cache and compared with the session's one-worker run. Not every claim: that doubled the CPU time of
# CI, and what two workers could change (the gathering, seeding and extension of tasks) is the kind's.
ACROSS_JOBS = ("cbss11.lemma9", "cbss11.thm6", "hk12.exp-mnist", "hk12.lemma3.2", "hk12.lemma3.3", "hk12.lemma3.6",
               "hk12.thm2.2", "hk12.thm3.1", "ks15.fig1", "ks15.lemma4.3", "ks15.thm3.3", "reyzin11.balls-bins",
               "reyzin11.cor3", "reyzin11.deterministic", "reyzin11.table6", "sk13.varest", "sk13.exp")


@pytest.mark.parametrize("claim_id", ACROSS_JOBS)
def test_claims_are_deterministic_across_jobs(capsys, tmp_path, shared_runs, claim_id):
    _, out, _ = run(capsys, "verify", claim_id, "--json", "--quiet", "--jobs", "2", "--no-cache",
                    "--out", str(tmp_path / "2"))
    (two,) = _summary_without_timings(out)["claims"]
    run_quick(claim_id, tmp_path / "1", shared_runs)
    (one,) = _summary_without_timings((tmp_path / "1" / "summary.json").read_text())["claims"]
    assert two == one
    tables = sorted(p.name for p in (tmp_path / "1" / "tables").glob("*.csv"))
    assert tables == sorted(p.name for p in (tmp_path / "2" / "tables").glob("*.csv"))
    for name in tables:
        assert (tmp_path / "1" / "tables" / name).read_bytes() == (tmp_path / "2" / "tables" / name).read_bytes(), name


def test_index_keeps_earlier_results_apart_from_the_run(capsys, tmp_path):
    run(capsys, "verify", "cbss11.lemma7", "cbss11.thm3", "--quiet", "--out", str(tmp_path))
    status, _, _ = run(capsys, "verify", "cbss11.thm2", "--quiet", "--out", str(tmp_path))
    assert status == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [c["id"] for c in summary["claims"]] == ["cbss11.thm2"]
    index = (tmp_path / "index.html").read_text()
    head, earlier = index.split("Earlier results in this folder")
    assert "cbss11.thm2.html" in head and "cbss11.lemma7.html" not in head
    assert "cbss11.lemma7.html" in earlier and "cbss11.thm3.html" in earlier


@pytest.mark.parametrize(("argv", "message"), [
    (["--out", ""], "--out must name a folder"),
    (["--out", "A_FILE"], "is not a folder"),
    (["--out", "/proc/theorycheck-cannot-be-here"], "cannot be written"),
    (["--seed", "-1"], "--seed must be a non-negative integer"),
    (["--set", "functions=2", "functions=3"], "gives functions twice"),
    (["--jobs", "100000"], "exceeds the"),
])
def test_bad_verify_inputs_exit_2_before_any_work(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "A_FILE").write_text("not a folder")
    before = sorted(p.name for p in tmp_path.iterdir())
    argv = [a.replace("A_FILE", str(tmp_path / "A_FILE")) for a in argv]
    status, out, err = run(capsys, "verify", "cbss11.lemma7", "--quiet", *(["--out", str(tmp_path / "r")]
                                                                       if "--out" not in argv else []), *argv)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_generated_files_follow_the_umask(capsys, tmp_path):
    """Files are written with the mode the umask gives (0644 usually), not mkstemp's 0600."""
    import os

    umask = os.umask(0o022)
    os.umask(umask)
    status, _, _ = run(capsys, "verify", "cbss11.lemma7", "--quiet", "--out", str(tmp_path))
    assert status == 0
    for path in (tmp_path / "index.html", tmp_path / "summary.json", tmp_path / "results" / "cbss11.lemma7.json"):
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path


def test_a_paper_without_claims_says_so(capsys, monkeypatch):
    from theorycheck import cli

    listing = cli.claim_listing()
    without = {**listing, "claims": [c for c in listing["claims"] if c["paper"] != "sk13"]}
    monkeypatch.setattr(cli, "claim_listing", lambda claims_modules=(): without)
    status, out, _ = run(capsys, "list", "--paper", "sk13")
    assert status == 0 and out.startswith("sk13 has no claims yet") and "cbss11" in out


def test_list_is_served_from_the_cache_without_importing_the_claims(tmp_path):
    probe = ("import sys; from theorycheck.cli import main; main(['list']); "
             "print('heavy:', sorted(m for m in ('scipy.stats', 'pandas', 'sklearn', 'proofs') if m in sys.modules))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    second = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.splitlines()[:-1] == second.stdout.splitlines()[:-1]  # the same listing
    assert "heavy: ['pandas', 'proofs', 'scipy.stats', 'sklearn']" in first.stdout  # built it: imported all
    assert second.stdout.splitlines()[-1] == "heavy: []"
    assert len(list((tmp_path / "theorycheck").glob("listing-*.json"))) == 1


# ------------------------------------------------------------------ exit statuses and the summary

@pytest.mark.parametrize(("verdicts", "status"), [
    (["PASS", "PASS"], 0),
    ([], 0),
    (["PASS", "INCONCLUSIVE"], 3),
    (["INCONCLUSIVE", "FAIL"], 1),
    (["PASS", "SUBJECT-ERROR"], 1),
    (["INCONCLUSIVE", "ERROR"], 1),
])
def test_exit_status_tells_failed_from_undecided(verdicts, status):
    from theorycheck.verdicts import ExitCode, exit_status

    assert ExitCode.UNDECIDED == 3
    assert exit_status(verdicts) == status


def test_an_undecided_claim_exits_3_and_the_summary_says_why(capsys, tmp_path):
    """hk12 Lemma 3.7 at η = 0.3/(2G) clips nothing, so it cannot fail there: vacuous, INCONCLUSIVE."""
    status, out, err = run(capsys, "verify", "hk12.lemma3.7", "--quiet", "--out", str(tmp_path),
                           "--set", "eta_factors=0.3", "repetitions=2", "designs=sparse")
    assert status == 3 and out.startswith("INCONCLUSIVE")
    assert "summary of 1 claim: 1 INCONCLUSIVE" in out
    assert "hk12.lemma3.7: INCONCLUSIVE: " in out
    assert err == ""  # stderr names failures only


def test_a_passing_run_exits_0_and_prints_the_counts(capsys, tmp_path):
    status, out, _ = run(capsys, "verify", "cbss11.lemma7", "--quiet", "--out", str(tmp_path))
    assert status == 0
    tail = out.split(f"report: {tmp_path}")[1]
    assert "summary of 1 claim: 1 PASS" in tail and "found by this run: none" in tail
    assert "undecided" not in tail
    status, out, _ = run(capsys, "verify", "cbss11.lemma7", "--quiet", "--json", "--out", str(tmp_path))
    assert status == 0 and "summary of" not in out  # --json prints summary.json only
    json.loads(out)


def test_help_documents_the_exit_statuses(capsys):
    for argv in (["--help"], ["verify", "--help"], ["conform", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        text = capsys.readouterr().out
        assert "exit status" in text and "INCONCLUSIVE" in text, argv
        assert all(f"\n  {code}  " in text for code in "0123"), argv


def _subcommands():
    from theorycheck.cli import build_parser

    parser = build_parser()
    (choices,) = [a for a in parser._actions if a.dest == "command"]
    return parser, choices


def test_every_subcommand_has_help_a_description_and_examples_that_parse(capsys):
    """`theorycheck --help` lists every subcommand with a line of help; each subcommand's --help has a
    description, help for every option and argument (report --out and show's id included), and an
    examples section whose every command line the parser accepts."""
    import shlex

    parser, choices = _subcommands()
    listed = {a.dest: a.help for a in choices._choices_actions}
    assert set(listed) == set(choices.choices) == {"list", "verify", "search", "clean", "report", "show", "conform",
                                                             "errata", "new"}
    for name, sub in choices.choices.items():
        assert listed[name], name
        assert sub.description and len(sub.description.split()) >= 8, name
        for action in sub._actions:
            assert action.help, (name, action.dest)
        with pytest.raises(SystemExit):
            main([name, "--help"])
        text = capsys.readouterr().out
        examples = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        commands = [line.strip() for line in examples if line.startswith("  theorycheck ")]
        assert len(commands) >= 2 and len(commands) * 2 == len(examples), name  # each with what it does
        for command in commands:
            argv = shlex.split(command)[1:]
            assert argv[0] == name and parser.parse_args(argv).command == name, command


def test_the_defaults_are_one_statement_in_help_readme_api_and_nox(capsys):
    """One set of defaults: quick profile, seed 0, one job, reports/; said in --help and in the README, and
    what the parser, the Python API and the nox session do."""
    import inspect
    from pathlib import Path

    import theorycheck
    from theorycheck.cli import DEFAULTS

    parser, choices = _subcommands()
    for name in ("verify", "conform"):
        args = parser.parse_args([name, *(["AERR", "--subject", "learner=m:A"] if name == "conform" else [])])
        assert (args.profile, args.seed, args.jobs, args.out) == ("quick", 0, 1, "reports"), name
    for name in ("clean", "report", "show", "errata"):
        sub = choices.choices[name]
        assert sub.get_default("out") == "reports", name
    for api in (theorycheck.verify, theorycheck.conform):
        params = inspect.signature(api).parameters
        assert params["jobs"].default == 1 and params["profile"].default == "quick", api
    with pytest.raises(SystemExit):
        main(["--help"])
    assert " ".join(DEFAULTS.split()) in " ".join(capsys.readouterr().out.split())
    root = Path(__file__).resolve().parents[1]
    readme = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    assert ("The defaults are the same for every command and for the Python API: the quick profile, base seed 0 "
            "and one job") in readme
    nox = (root / "noxfile.py").read_text(encoding="utf-8")
    assert '["--profile", "full"] if not _given(session.posargs, "--profile")' in nox
    assert '["--jobs", "-1"] if not _given(session.posargs, "--jobs")' in nox


def _record(cid, verdict, findings=None, **extra):
    return {"id": cid, "verdict": verdict, "decision": f"{verdict} because of the test\nmore", "errata": [],
            "errata_evidence": {}, **({"findings": findings} if findings is not None else {}), **extra}


def _finding(text, outcome, needs=None):
    finding = {"finding": text, "relation": "<=", "margin": 0.05, "estimate": 0.053, "low": -0.064,
               "high": 0.285, "outcome": outcome, "decides": True, "runs": 20, "cap": 60}
    return finding if needs is None else {**finding, "needs": needs}


def test_the_summary_of_synthetic_records(monkeypatch):
    """Counts by verdict, the errata with run evidence, and the findings left undecided."""
    from theorycheck import errata, session

    monkeypatch.setattr(errata, "discover", dict)  # no registry: the records declare their errata
    declared = [{"key": "tab1", "where": "Table 1", "printed": "c", "holds": "d"},
                {"key": "unseen", "where": "Lemma 9", "printed": "e", "holds": "f"}]
    missed = [{"key": "fig2", "where": "Figure 2", "printed": "a", "ours": "b", "tried": "c"}]
    records = [
        _record("p.pass", "PASS", [_finding("A below B at 100", "UNDECIDED", "more splits")]),
        _record("p.fig", "INCONCLUSIVE", [
            _finding("A below B at 500", "REPRODUCED"),
            _finding("A below B at 2000", "UNDECIDED", "about 60 splits would decide it"),
            {**_finding("A below B at 12108", "TIED"), "designed": True},
            {**_finding("A below C at 500", "DIFFERENT"), "decides": False}],
            errata=declared, non_reproductions=missed,
            errata_evidence={"fig2": "0 of 20 splits", "tab1": "twice the printed value"}),
        _record("p.lemma", "INCONCLUSIVE"),
        _record("p.thm", "FAIL", [{**_finding("C above D", "REVERSED"), "versus": "reference"}]),
        _record("p.exp", "NOT REPRODUCED", [{**_finding("E above F", "REVERSED"), "against": True, "recorded": True,
                                             "known": "fig3"}]),
        _record("p.broken", "ERROR"),
    ]
    lines = session.verify_summary(records, "nowhere")
    print("\n".join(lines))
    assert lines == [
        "",
        "summary of 6 claims: 1 PASS, 1 FAIL, 1 NOT REPRODUCED, 2 INCONCLUSIVE, 1 ERROR",
        "found by this run: 1 erratum and 1 non-reproduction:",
        "  p.fig [tab1] erratum: Table 1",
        "  p.fig [fig2] non-reproduction: Figure 2",
        "findings whose outcome is not REPRODUCED, in the claims that are not PASS:",
        "  p.fig: A below B at 2000: UNDECIDED, 0.053 in [-0.064, 0.285]",
        "      would decide it: about 60 splits would decide it",
        "  p.fig: A below B at 12108: TIED, 0.053 in [-0.064, 0.285] (a simulation finding on an instance of ours, "
        "not a non-reproduction of the paper: INCONCLUSIVE)",
        "  p.fig: A below C at 500: DIFFERENT, 0.053 in [-0.064, 0.285] (reported, not decided: it does not count "
        "toward the verdict)",
        "  p.lemma: INCONCLUSIVE: INCONCLUSIVE because of the test",
        "  p.thm: C above D: REVERSED, 0.053 in [-0.064, 0.285] (the replaced subject against its reference: FAIL)",
        "  p.exp: E above F: REVERSED, 0.053 in [-0.064, 0.285] (against the paper: NOT REPRODUCED, recorded as "
        "fig3)",
    ]


def test_the_summary_stays_on_one_screen(monkeypatch):
    from theorycheck import errata, session

    monkeypatch.setattr(errata, "discover", dict)
    declared = [{"key": f"e{i}", "where": f"Table {i}", "printed": "a", "holds": "b"} for i in range(12)]
    findings = [_finding(f"A below B at {n}", "UNDECIDED", "more runs") for n in range(10)]
    records = [_record("p.many", "INCONCLUSIVE", findings, errata=declared,
                       errata_evidence={e["key"]: "seen" for e in declared}),
               *(_record(f"p.other{i}", "INCONCLUSIVE") for i in range(3))]
    lines = session.verify_summary(records, "somewhere")
    start = lines.index("findings whose outcome is not REPRODUCED, in the claims that are not PASS:")
    undecided, found = lines[start + 1:], lines[3:start]
    assert len(undecided) == 15 and undecided[-1] == "  … and 6 more (see the claims' pages)"
    assert undecided[:2] == ["  p.many: A below B at 0: UNDECIDED, 0.053 in [-0.064, 0.285]",
                             "      would decide it: more runs"]
    assert lines[2] == "found by this run: 12 errata and 0 non-reproductions:"
    assert len(found) == 8 and found[-1] == "  … and 5 more (theorycheck errata --out somewhere)"


def test_the_verify_session_accepts_undecided():
    """`nox -s verify` fails on FAIL, errors and bad usage only: exit status 3 (undecided) passes."""
    import ast
    from pathlib import Path

    tree = ast.parse((Path(__file__).parents[1] / "noxfile.py").read_text(encoding="utf-8"))
    session = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "verify")
    (call,) = [node for node in ast.walk(session) if isinstance(node, ast.Call)
               and ast.unparse(node.func) == "session.run" and "verify" in ast.unparse(node)]
    codes = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}["success_codes"]
    assert codes == [0, 3]


class NoPathAERR(MyAERR):
    """An AERR whose constructor takes no ``record_trajectory``: the estimator check cannot run (its reads are
    observed instead of reported)."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None):
        super().__init__(k, B, eta, random_state)


def test_conform_exits_3_when_a_check_it_could_not_run_is_not_optional(capsys, tmp_path):
    args = ["conform", "AERR", "--subject", f"learner={__name__}:NoPathAERR", "--no-claims", "--quiet", "--out",
            str(tmp_path)]
    status, out, err = run(capsys, *args)
    assert status == 3 and out.startswith("INCONCLUSIVE on 3 of 5 checks"), out
    assert "[PASS] behaviour" in out and "[NOT RUN] estimator" in out
    assert "NOT RUN: estimator, step" in err and "estimator NOT RUN: the learner cannot be built" in err
    status, out, err = run(capsys, *args, "--optional", "estimator,step")
    assert status == 0 and out.startswith("PASS on 3 of 5 checks"), out
    # no cause: nothing to fix
    assert "NOT RUN, optional: estimator, step" in err and len(err.splitlines()) == 1


def test_power_idea_runs_only_the_defect_that_removes_the_papers_idea(capsys, tmp_path):
    claim = discover()["cbss11.lemma9"]
    [idea] = [d for d in claim.defects if d.idea]
    assert len(claim.defects) > 1  # so running all of them would differ
    status, _, _ = run(capsys, "verify", claim.id, "--power-idea", "--quiet", "--out", str(tmp_path))
    assert status == 0
    runs = json.loads((tmp_path / "results" / f"{claim.id}.json").read_text())["power_runs"]
    assert [(r["name"], r["verdict"]) for r in runs] == [(idea.name, "FAIL")]


def test_a_defect_whose_settings_do_not_fit_the_profile_is_not_run_and_says_why():
    from theorycheck.session import planted_defects

    class Narrow(type(discover()["hk12.thm3.1"])):  # a defect sized for quick: d = 40, below full's largest k
        defects = (Defect("importance weight d/k missing, at d = 40",
                          {"learner": "tests.defects_bounds:MissingScaleAERR"}, overrides={"d": "40"}, idea=True),)

    claim = Narrow()
    [(_, defect, subjects, why_not)] = planted_defects([claim], "full", {}, idea_only=True)
    assert defect.idea and subjects is None
    assert "do not fit the full profile" in why_not and "k_grid" in why_not
    [(_, _, subjects, why_not)] = planted_defects([claim], "quick", {}, idea_only=True)
    assert subjects and why_not is None


def test_show_and_list_say_where_each_claim_is_declared():
    """Every claim's ``source`` names a file (from its top-level package's folder) whose line opens its class."""
    from theorycheck.claims import discover

    for claim in discover().values():
        path, _, line = claim.describe()["source"].rpartition(":")
        module = sys.modules[type(claim).__module__]
        root = Path(module.__file__).resolve()
        for _ in type(claim).__module__.split("."):
            root = root.parent
        text = (root / path).read_text().splitlines()[int(line) - 1]
        assert text.lstrip().startswith(f"class {type(claim).__name__}"), (claim.id, path, line, text)
