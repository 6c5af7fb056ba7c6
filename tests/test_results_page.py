"""docs/results.md is generated from runs' JSON (theorycheck.report.results_page), on a small fixture: two
runs of one claim on the full profile, seeds 0 and 1. Nothing runs a claim."""

from __future__ import annotations

import json

import pytest

from theorycheck.report.results_page import against_everywhere, load_runs, main, results_markdown


def _finding(name, outcome, against, estimate, *, decides=True, known=""):
    return {"finding": name, "relation": "superior", "question": "direction", "margin": 0.1,
            "epsilon_source": "convention", "derivation": "", "sentence": "§5, line 372", "statistic": "t",
            "estimand": "the mean of the paired effect", "estimate": estimate, "low": estimate - 0.01,
            "high": estimate + 0.01, "outcome": outcome, "decides": decides, "against": against, "known": known,
            "versus": "paper"}


def _run(folder, seed, findings):
    (folder / "results").mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({"claims": [{"id": "x.exp"}], "profile": "full", "seed": seed}))
    (folder / "results" / "x.exp.json").write_text(json.dumps(
        {"id": "x.exp", "verdict": "NOT REPRODUCED", "profile": "full", "seed": seed, "findings": findings}))
    return folder


@pytest.fixture
def runs(tmp_path):
    a = _run(tmp_path / "s0", 0, [_finding("A < B", "REVERSED", True, -0.3, known="k"),
                                  _finding("C < D", "REVERSED", True, -0.2),
                                  _finding("E < F", "REPRODUCED", False, 0.2)])
    b = _run(tmp_path / "s1", 1, [_finding("A < B", "REVERSED", True, -0.31, known="k"),
                                  _finding("C < D", "UNDECIDED", False, -0.05),
                                  _finding("E < F", "REPRODUCED", False, 0.21)])
    return [a, b]


def test_a_non_reproduction_needs_every_seed_against_the_paper(runs):
    found = against_everywhere(load_runs(runs), "full")
    assert [(f["claim"], f["finding"], f["known"]) for f in found] == [("x.exp", "A < B", "k")]


def test_the_page_lists_every_finding_with_its_sentence_question_epsilon_and_each_run(runs, tmp_path):
    out = tmp_path / "results.md"
    assert main([*map(str, runs), "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "python -m theorycheck.report.results_page" in page  # the command that regenerates it
    rows = [line for line in page.splitlines() if line.startswith("| A < B") or line.startswith("| C < D")]
    assert len(rows) == 2 and "§5, line 372" in rows[0] and "0.1 (convention)" in rows[0]
    assert "REVERSED, -0.3 in" in rows[0] and "REVERSED, -0.31 in" in rows[0]
    assert "UNDECIDED" in rows[1]
    assert "`x.exp`: A < B (registry key `k`)" in page and "C < D (" not in page.split("Non-reproductions")[1]


def test_a_folder_without_a_summary_is_refused(tmp_path):
    assert main([str(tmp_path)]) == 2
    with pytest.raises(Exception, match="no run folder"):
        results_markdown([], "cmd")


def test_a_finding_recorded_after_the_runs_gets_the_key_its_declaration_now_gives():
    from theorycheck.report.results_page import registered

    assert registered("hk12.exp-mnist", "AELR almost 10 times better than online Lasso (prefix -1)", "full") == \
        "online-lasso"
    assert registered("ks15.exp-mnist", "Figure 3: DDAERR < online Ridge at the smallest budget (prefix 0)",
                      "full") == "fig3-online"
    assert registered("ks15.exp-mnist", "Figure 4: DDAELR < AELR (prefix 0)", "full") == ""  # fig4-start withdrawn
    assert registered("no.such-claim", "anything", "full") == ""
