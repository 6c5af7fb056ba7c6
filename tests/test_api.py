"""The Python API and the pytest plugin drive the sessions that the command line drives
(:mod:`theorycheck.session`): the same planted defects, pages, files, summary and exit status."""

import json
import os
from pathlib import Path

import pytest

import theorycheck
from theorycheck import testing
from theorycheck.claims import Defect, discover
from theorycheck.cli import main
from theorycheck.session import COMMAND_LINE, Verification
from theorycheck.validation import ParameterError

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
#: one of the cheapest claims, with two planted defects, both caught
CLAIM = "cbss11.lemma7"


def _written(folder: Path) -> list[str]:
    """Every file a run wrote under ``folder``, as paths relative to it (the cache's task files included; not
    matplotlib's font cache, which the first report of a process writes there)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and not p.relative_to(folder).as_posix().startswith(".cache/matplotlib/"))


def _verdicts(folder: Path) -> dict:
    """The stored verdicts of the run in ``folder``: each result's, and each planted defect's."""
    stored = {}
    for path in sorted((folder / "results").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        stored[record["id"]] = (record["verdict"], [(p["name"], p["verdict"], p["declared_caught"])
                                                    for p in record.get("power_runs") or []])
    return stored


def test_the_python_api_runs_the_planted_defects_and_writes_the_pages_of_the_command_line(tmp_path, capsys):
    results = theorycheck.verify([CLAIM], power=True, out=tmp_path / "api")
    status = main(["verify", CLAIM, "--power", "--quiet", "--out", str(tmp_path / "cli")])
    printed = capsys.readouterr().out.splitlines()
    assert status == results.exit_status == 0
    api, cli = _verdicts(tmp_path / "api"), _verdicts(tmp_path / "cli")
    assert api == cli and [v for _, v, _ in api[CLAIM][1]] == ["FAIL", "FAIL"]  # both defects ran, both caught
    assert _written(tmp_path / "api") == _written(tmp_path / "cli")
    assert f"{CLAIM}.html" in _written(tmp_path / "api") and results.report == tmp_path / "api" / "index.html"
    page = (tmp_path / "api" / f"{CLAIM}.html").read_text(encoding="utf-8")
    assert all(defect.name in page for defect in discover()[CLAIM].defects)
    [result] = results
    assert result.verdict == "PASS" and len(result.record["power_runs"]) == 2
    # the summary is the command line's, apart from the times and the folder's name
    same = [line for line in results.summary.splitlines() if not line.startswith(("PASS", "wall time", "report:"))]
    assert same == [line.replace("(--power)", "(power)") for line in printed
                    if not line.startswith(("PASS", "wall time", "report:"))]
    assert "planted defects run (power): 2, 2 as declared" in same and results.messages == []


def test_without_out_the_session_leaves_nothing_behind(monkeypatch):
    made = []
    original = Verification.close

    def close(self):
        made.append(self.out)
        original(self)

    monkeypatch.setattr(Verification, "close", close)
    results = theorycheck.verify(CLAIM, power_idea=True)
    [result] = results
    assert [p["verdict"] for p in result.record["power_runs"]] == ["FAIL"] and results.report is None
    assert result.evidence is not None and not made[0].exists()


def test_a_defect_not_caught_as_declared_fails_the_session_and_assert_verifies(monkeypatch):
    claim = discover()[CLAIM]
    [idea] = [d for d in claim.defects if d.idea]
    monkeypatch.setattr(type(claim), "defects", (Defect(idea.name, idea.subjects, caught=False, idea=True),))
    results = theorycheck.verify(CLAIM, power_idea=True)
    assert results.exit_status == 1 and results.power_unlike == [f"{CLAIM} [{idea.name}]: FAIL"]
    assert results.messages[-1].startswith("theorycheck: planted defects not as declared")
    with pytest.raises(AssertionError, match="not caught as their claims declare"):
        testing.assert_verifies(CLAIM, power_idea=True)


def test_the_plugin_runs_the_planted_defects(pytester, tmp_path, monkeypatch):
    out = tmp_path / "out"
    pytester.makepyfile(test_user=f"""
        def test_lemma7_with_its_defects(assert_verifies):
            assert_verifies({CLAIM!r}, out={str(out)!r})
    """)
    # the built-in claims' defects live in tests/, importable from the repository
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    outcome = pytester.runpytest_subprocess("-q", "--theorycheck-power")
    outcome.assert_outcomes(passed=1)
    [(verdict, runs)] = _verdicts(out).values()
    assert verdict == "PASS" and [v for _, v, _ in runs] == ["FAIL", "FAIL"]
    assert (out / f"{CLAIM}.html").exists()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"power": "yes"}, "power must be true or false"),
    ({"scheduler": "nowhere", "jobs": -1}, "jobs and scheduler exclude each other"),
    ({"scheduler": 5}, "scheduler must be the address of a Dask scheduler"),
    ({"task_timeout": 0}, "task_timeout must be >= 0.1"),
])
def test_the_session_refuses_bad_arguments_before_any_work(tmp_path, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        theorycheck.verify(CLAIM, out=tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()


def test_the_command_line_names_its_options_in_the_sessions_messages():
    with pytest.raises(ParameterError, match=r"^--seed must be a non-negative integer, got -1$"):
        Verification(CLAIM, seed=-1, names=COMMAND_LINE)
    with pytest.raises(ParameterError, match=r"^seed must be a non-negative integer, got -1$"):
        Verification(CLAIM, seed=-1)


def test_the_python_conform_writes_the_files_of_the_command_line(tmp_path, capsys):
    from theorycheck.algorithms import AERR

    result = theorycheck.conform("AERR", AERR, claims=False, out=tmp_path / "api")
    status = main(["conform", "AERR", "--subject", "learner=theorycheck.algorithms:AERR", "--no-claims", "--quiet",
                   "--out", str(tmp_path / "cli")])
    assert status == 0 and result.verdict == "PASS" and result.text() == capsys.readouterr().out.rstrip("\n")
    assert _written(tmp_path / "api") == _written(tmp_path / "cli") == ["conform-AERR.html", "conform-AERR.json"]
    api, cli = (json.loads((tmp_path / name / "conform-AERR.json").read_text()) for name in ("api", "cli"))
    assert (api["verdict"], api["summary"]) == (cli["verdict"], cli["summary"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"claims": "no"}, "claims must be true or false"),
    ({"optional": "estimator"}, "optional must be a list of check names"),
    ({"optional": ["nothing"]}, "optional: unknown check 'nothing'"),
    ({"learner": "nosuch.module:Learner"}, "cannot load subject 'nosuch.module:Learner'"),
])
def test_the_conformance_session_refuses_bad_arguments_before_any_work(tmp_path, kwargs, message):
    from theorycheck.algorithms import AERR

    kwargs = {"learner": AERR, **kwargs}
    with pytest.raises(ParameterError, match=message):
        theorycheck.conform("AERR", out=tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()
