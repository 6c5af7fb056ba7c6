"""benchmarks/compare_results.py, the check that a refactoring left a run's results alone: it finds a difference
planted in a copy of a run folder (a result's field, a finding nested in it, a table's digit, a missing result)
and ignores only the fields it lists (times, provenance). No claim runs: the folder is written here."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "compare_results.py"
_spec = importlib.util.spec_from_file_location("compare_results", _PATH)
compare_results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_results)


def _run_folder(folder: Path) -> Path:
    """A run folder of two claims, shaped as verify writes it."""
    for cid, verdict in (("toy.a", "PASS"), ("toy.b", "INCONCLUSIVE")):
        record = {"id": cid, "verdict": verdict, "observed": 0.1, "seconds": 1.5, "code_version": "abc",
                  "environment": {"cpus": 2}, "tasks_from_cache": 0, "table_file": f"tables/{cid}.csv",
                  "findings": [{"finding": "A beats B", "outcome": "REPRODUCED", "low": 0.01, "high": 0.2}]}
        (folder / "results").mkdir(parents=True, exist_ok=True)
        (folder / "tables").mkdir(exist_ok=True)
        (folder / "results" / f"{cid}.json").write_text(json.dumps(record), encoding="utf-8")
        (folder / "tables" / f"{cid}.csv").write_text("m,risk\n10,0.25\n20,0.125\n", encoding="utf-8")
    summary = {"claims": [{"id": "toy.a", "verdict": "PASS", "seconds": 1.5}], "counts": {"PASS": 1},
               "wall_seconds": 3.0, "code_version": "abc", "profile": "quick", "seed": 0}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return folder


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def runs(tmp_path):
    before = _run_folder(tmp_path / "before")
    after = tmp_path / "after"
    shutil.copytree(before, after)
    return before, after


def test_a_copy_has_no_difference_and_times_and_provenance_are_ignored(runs, capsys):
    before, after = runs
    assert compare_results.main([str(before), str(after)]) == 0
    _edit(after / "results" / "toy.a.json", lambda r: r.update(seconds=9.0, code_version="def", tasks_from_cache=4,
                                                                environment={"cpus": 64}))
    _edit(after / "summary.json", lambda s: s.update(wall_seconds=99.0, code_version="def"))
    assert compare_results.main([str(before), str(after)]) == 0
    assert "0 differences" in capsys.readouterr().out


@pytest.mark.parametrize("plant, expected", [
    (lambda a: _edit(a / "results" / "toy.b.json", lambda r: r.update(verdict="PASS")),
     "toy.b: verdict: 'INCONCLUSIVE' -> 'PASS'"),
    (lambda a: _edit(a / "results" / "toy.a.json", lambda r: r["findings"][0].update(high=0.2000000001)),
     "toy.a: findings[0].high: 0.2 -> 0.2000000001"),
    (lambda a: _edit(a / "results" / "toy.a.json", lambda r: r.update(new_field=1)),
     "toy.a: new_field: '<absent>' -> 1"),
    (lambda a: (a / "tables" / "toy.a.csv").write_text("m,risk\n10,0.25\n20,0.126\n", encoding="utf-8"),
     "toy.a: tables/toy.a.csv line 3: '20,0.125' -> '20,0.126'"),
    (lambda a: (a / "results" / "toy.b.json").unlink(), "toy.b: results file: True -> False"),
    (lambda a: _edit(a / "summary.json", lambda s: s["counts"].update(PASS=2)), "summary.json: counts.PASS: 1 -> 2"),
])
def test_a_planted_difference_is_reported(runs, capsys, plant, expected):
    before, after = runs
    plant(after)
    assert compare_results.main([str(before), str(after)]) == 1
    out = capsys.readouterr().out
    assert expected in out, out


def test_a_folder_without_results_is_refused(tmp_path, runs):
    before, _ = runs
    (tmp_path / "empty").mkdir()
    assert compare_results.main([str(before), str(tmp_path / "empty")]) == 2


def test_ids_compare_only_the_claims_chosen(runs):
    before, after = runs
    (after / "results" / "toy.b.json").unlink()  # a run of toy.a alone
    _edit(after / "summary.json", lambda s: s.update(counts={"PASS": 1, "FAIL": 0}))
    assert compare_results.main([str(before), str(after), "--ids", "toy.a"]) == 0
    _edit(after / "results" / "toy.a.json", lambda r: r.update(observed=0.2))
    assert compare_results.main([str(before), str(after), "--ids", "toy.*"]) == 1
