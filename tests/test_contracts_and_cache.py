"""A subject's outputs are checked against its contract, whatever the claim; a cached result is served only while
what its subject read is unchanged; nothing is written through a link (issue 57 items 3, 4, 5 and 6).

- every contract of every claim refuses a stand-in that returns (or sets) what it excludes, naming the subject
  (a unit test over the declarations: no claim runs); a few such subjects run end to end: SUBJECT-ERROR, not ERROR;
- the four stale-cache cases (a helper imported lazily, a helper on sys.path outside the subject's package, a data
  file the subject reads, an environment variable it reads) re-run after the change; a hand-edited task or
  conformance record is not trusted; a task file replaced by a folder is recomputed;
- links: a link planted in the report's matplotlib cache, a dangling link in ``new --package`` and a ``.cache``
  that is a link are refused or removed as links, never followed.
"""

from __future__ import annotations

import inspect
import json
import math
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import run_one
from theorycheck.claims import discover
from theorycheck.protocols import BadOutput, Contract, EstimatorLaw, Function, GradientEstimator, watched


# ---------------------------------------------------------------------- every contract checks its outputs
def _bad_standin(contract: Contract):
    """Something following ``contract``'s protocol whose every declared member returns NaN and sets text."""
    if contract.protocol in (Function, EstimatorLaw, GradientEstimator):
        return lambda *args, **kwargs: math.nan
    members = {m for m in contract.outputs if m != "__call__"}

    def member(self, *args, **kwargs):
        for attr in ("coef_", "n_attributes_seen_", "r_", "intercept_"):
            setattr(self, attr, "text")
        return math.nan

    cls = type("Bad", (), {"__init__": lambda self, **kw: None, "name": "bad", **dict.fromkeys(members, member)})
    return (cls(),) if contract.each else cls


def _contracts():
    for cid, claim in discover().items():
        for name, contract in claim.protocols.items():
            if isinstance(contract, Contract):
                yield cid, name, contract


def test_every_contract_refuses_a_bad_output_naming_its_subject():
    seen = 0
    for cid, name, contract in _contracts():
        subject = watched(_bad_standin(contract), contract, name)
        calls = ([subject] if callable(subject) and not inspect.isclass(subject) else
                 [getattr(one, m) for one in subject for m in contract.outputs] if contract.each else
                 [getattr(subject(), m) for m in contract.outputs])
        assert calls, (cid, name)
        for call in calls:
            with pytest.raises(BadOutput) as caught:
                call(np.zeros((2, 2)), np.zeros(2))
            assert caught.value.subject == name, (cid, name)
            seen += 1
    assert seen > 80


def test_make_psd_refuses_every_bad_return_of_the_issue_on_its_declaration():
    from tests.bad_returns import PSD_RETURNED

    psd = discover()["sk13.makepsd"].protocols["make_psd"].outputs["__call__"]
    assert psd.flaw(np.eye(2), {"A": np.ones((2, 2))}) is None
    flaws = {name: psd.flaw(value, {"A": np.ones((2, 2))}) for name, value in PSD_RETURNED.items()}
    assert all(flaws.values()), flaws
    assert psd.flaw(np.eye(3), {"A": np.ones((2, 2))}) == "an array of shape (3, 3) for A of shape (2, 2)"


def test_good_outputs_pass_and_a_finite_coef_of_any_shape_is_the_claims_to_judge():
    law = Contract(EstimatorLaw).outputs["__call__"]
    assert law.check([(Fraction(1, 2), (1,)), (Fraction(1, 2), (-1,))]) is not None
    with pytest.raises(BadOutput, match="not a finite real number"):
        law.check([("1/2", 0)], "law")
    fitted = dict(Contract(Function).outputs)
    assert fitted["__call__"].flaw({"a": [1.0, Fraction(1, 3)], "b": np.arange(3)}) is None
    assert fitted["__call__"].flaw(10 ** 400) == "a number too large for a float"
    from theorycheck.protocols import BudgetedLearner

    (_, coef), _ = Contract(BudgetedLearner).outputs["fit"].sets
    assert coef.flaw(np.full(3, np.nan)) is None and coef.flaw("w") is not None


@pytest.mark.parametrize(("claim", "subject", "settings", "words"), [
    ("sk13.makepsd", "make_psd=tests.bad_returns:psd_returns_nan", {"n_max": 2, "instances": 1, "starts": 1},
     "values that are not finite"),
    ("reyzin11.balls-bins", "law=tests.bad_returns:law_with_nan", {"n_max": 2, "k_max": 1}, "not finite"),
    ("cbss11.lemma7", "subset_average=tests.bad_returns:average_huge", {}, "too large for a float"),
])
def test_a_bad_output_runs_to_subject_error_naming_the_subject(tmp_path, claim, subject, settings, words):
    name, spec = subject.split("=")
    record = run_one(claim, tmp_path, subjects={name: spec}, **settings)
    first = record["decision"].splitlines()[0]
    assert record["verdict"] == "SUBJECT-ERROR", record["decision"]
    assert f"subject {name} ({spec.replace(':', '.')})" in first and words in first, first


# ---------------------------------------------------------------------- the cache knows what a subject read
STALE = {
    # case: (files {relative path: text}, the subject's module, the change that makes it wrong)
    "lazy helper": ({"lazy_pkg/__init__.py": "", "lazy_pkg/helper.py": "SHIFT = 0\n",
                     "lazy_pkg/subject.py": "def average(values):\n    from . import helper\n"
                                            "    return sum(values) / len(values) + helper.SHIFT\n"},
                    "lazy_pkg.subject", ("lazy_pkg/helper.py", "SHIFT = 1\n")),
    "helper elsewhere on the path": ({"elsewhere/shift_helper.py": "SHIFT = 0\n",
                                      "own_pkg/__init__.py": "", "own_pkg/subject.py":
                                      "import shift_helper\n\ndef average(values):\n"
                                      "    return sum(values) / len(values) + shift_helper.SHIFT\n"},
                                     "own_pkg.subject", ("elsewhere/shift_helper.py", "SHIFT = 1\n")),
    "data file": ({"data_pkg/__init__.py": "", "data_pkg/shift.txt": "0",
                   "data_pkg/subject.py": "from pathlib import Path\n\ndef average(values):\n"
                                          "    shift = int((Path(__file__).parent / 'shift.txt').read_text())\n"
                                          "    return sum(values) / len(values) + shift\n"},
                  "data_pkg.subject", ("data_pkg/shift.txt", "1")),
    "environment variable": ({"env_pkg/__init__.py": "", "env_pkg/subject.py":
                              "import os\n\ndef average(values):\n"
                              "    return sum(values) / len(values) + int(os.environ.get('TC_TEST_SHIFT', '0'))\n"},
                             "env_pkg.subject", None),
}


@pytest.mark.parametrize("case", list(STALE))
def test_a_change_to_what_the_subject_read_re_runs_it(tmp_path, monkeypatch, case):
    files, module, change = STALE[case]
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("TC_TEST_SHIFT", raising=False)
    subjects = {"subset_average": f"{module}:average"}
    first = run_one("cbss11.lemma7", tmp_path / "out", subjects=subjects)
    assert first["verdict"] == "PASS", first["decision"]
    if case == "lazy helper":  # unchanged: served from the cache (once is enough)
        again = run_one("cbss11.lemma7", tmp_path / "out", subjects=subjects)
        assert again["verdict"] == "PASS" and again["tasks_from_cache"] > 0
    if change is None:
        monkeypatch.setenv("TC_TEST_SHIFT", "1")
    else:
        (tmp_path / change[0]).write_text(change[1], encoding="utf-8")
        os.utime(tmp_path / change[0], ns=(1, 1))  # another modification time, whatever the clock's resolution
    changed = run_one("cbss11.lemma7", tmp_path / "out", subjects=subjects)
    assert changed["tasks_from_cache"] == 0 and changed["verdict"] == "FAIL", changed["decision"]


def test_a_hand_edited_or_folder_task_record_is_recomputed(tmp_path, capsys):
    first = run_one("cbss11.lemma7", tmp_path, subjects={"subset_average": "tests.user_subjects:subset_average"})
    tasks = sorted((tmp_path / ".cache" / "cbss11.lemma7").rglob("task-*.json"))
    assert first["verdict"] == "PASS" and tasks
    stored = json.loads(tasks[0].read_text(encoding="utf-8"))
    stored["rows"][0] = {**stored["rows"][0], "seconds_note": "edited"}
    tasks[0].write_text(json.dumps(stored), encoding="utf-8")  # valid JSON, the runner's shape: only the seal tells
    tasks[-1].unlink()
    tasks[-1].mkdir()  # a folder in a task file's place
    again = run_one("cbss11.lemma7", tmp_path, subjects={"subset_average": "tests.user_subjects:subset_average"})
    err = capsys.readouterr().err
    assert again["verdict"] == "PASS" and again["tasks_from_cache"] == len(tasks) - 1 - (len(tasks) > 1)
    assert f"the cached task {tasks[0]} is damaged" in err and tasks[-1].is_file()


def test_a_hand_edited_conformance_record_is_not_trusted(tmp_path):
    from theorycheck.conformance.verify import read_conformance
    from theorycheck.run.store import sealed

    record = {"algorithm": "AERR", "subject": "x.Y", "verdict": "PASS", "delta": 1e-3, "profile": "quick",
              "checks": [{"name": "law", "verdict": "PASS", "ran": True, "decision": "", "cause": ""}],
              "depends": {"files": {}, "env": ["TC_TEST_UNSET"]}}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(sealed(record)), encoding="utf-8")
    assert read_conformance(path)["verdict"] == "PASS"
    edited = json.loads(path.read_text(encoding="utf-8"))
    edited["verdict"] = "FAIL"
    path.write_text(json.dumps(edited), encoding="utf-8")
    assert read_conformance(path) is None
    os.environ["TC_TEST_SHIFT_SET"] = "a"
    try:
        path.write_text(json.dumps(sealed({**record, "depends": {"files": {}, "env": ["TC_TEST_SHIFT_SET"]}})),
                        encoding="utf-8")  # sealed with the value it has now
        assert read_conformance(path) is not None
        os.environ["TC_TEST_SHIFT_SET"] = "b"
        assert read_conformance(path) is None
    finally:
        os.environ.pop("TC_TEST_SHIFT_SET", None)


# ---------------------------------------------------------------------- nothing written through a link
def test_matplotlib_writes_its_cache_in_a_private_folder_not_through_a_planted_link(tmp_path, monkeypatch):
    """Before matplotlib is imported, the report points MPLCONFIGDIR at a fresh private folder, where matplotlib
    writes: a link planted at <out>/.cache/matplotlib/fontlist-*.json was written through. The kept font list is
    copied in (not a link) and back at exit, replacing the link. (This process may have imported matplotlib: its
    module is set aside while the report decides; the exit is called by hand.)"""
    import atexit
    import sys

    from theorycheck.report import private_matplotlib

    target = tmp_path / "outside.json"
    kept = tmp_path / "out" / ".cache" / "matplotlib"
    kept.mkdir(parents=True)
    (kept / "fontlist-v1.json").symlink_to(target)
    (kept / "fontlist-v2.json").write_text("kept", encoding="utf-8")
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    monkeypatch.delitem(sys.modules, "matplotlib", raising=False)
    registered = []
    monkeypatch.setattr(atexit, "register", registered.append)
    private_matplotlib(tmp_path / "out")
    folder = os.environ["MPLCONFIGDIR"]
    assert "theorycheck-matplotlib-" in folder and sorted(os.listdir(folder)) == ["fontlist-v2.json"]
    (Path(folder) / "fontlist-v1.json").write_text("written by matplotlib", encoding="utf-8")
    (keep,) = registered
    keep()
    assert not target.exists() and not (kept / "fontlist-v1.json").is_symlink()
    assert (kept / "fontlist-v1.json").read_text() == "written by matplotlib" and not os.path.exists(folder)
    monkeypatch.setenv("MPLCONFIGDIR", "/mine")  # the user's own choice is kept
    private_matplotlib(tmp_path / "out")
    assert os.environ["MPLCONFIGDIR"] == "/mine"


def test_new_refuses_a_dangling_link_and_an_overlong_id(tmp_path):
    from theorycheck.scaffold import new_claim
    from theorycheck.validation import ParameterError

    target = tmp_path / "elsewhere" / "planted.py"
    (tmp_path / "mine_x.py").symlink_to(target)
    with pytest.raises(ParameterError, match="a link"):
        new_claim("exact", "mine.x", tmp_path)
    assert not target.exists() and not (tmp_path / "test_mine_x.py").exists()
    with pytest.raises(ParameterError, match="characters long"):
        new_claim("exact", "mine." + "x" * 300, tmp_path)


def test_clean_removes_a_linked_cache_as_a_link(tmp_path, capsys):
    from theorycheck.cli import main

    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".cache").symlink_to(kept)
    assert main(["clean", "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert not (tmp_path / "out" / ".cache").is_symlink() and (kept / "precious.txt").read_text() == "mine"


# ---------------------------------------------------------------------- tracebacks that are one line now
def test_a_nan_or_huge_duration_in_timings_is_ignored(tmp_path):
    from theorycheck.run.plan import read_timings

    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "timings.json").write_text('{"a|quick": [NaN], "b|quick": [1e308], "c|quick": [0.5]}',
                                                      encoding="utf-8")
    assert read_timings(tmp_path) == {"c|quick": [0.5]}


def test_conform_with_an_unknown_keyword_is_a_parameter_error():
    from theorycheck import api
    from theorycheck.validation import ParameterError

    with pytest.raises(ParameterError, match="takes no keyword 'bogus_kw'"):
        api.conform("AERR", "theorycheck.algorithms:AERR", bogus_kw=1)


@pytest.mark.parametrize("says", [b"", b"\xff" * 64], ids=["never speaks", "garbage"])
def test_a_port_that_is_no_dask_scheduler_is_one_parameter_error_in_time(tmp_path, monkeypatch, says):
    import socket
    import threading
    import time

    from theorycheck.run import execute, run_claims
    from theorycheck.validation import ParameterError

    server = socket.create_server(("127.0.0.1", 0))
    held = []

    def serve():
        while True:
            conn, _ = server.accept()
            held.append(conn)
            if says:
                conn.sendall(says)

    threading.Thread(target=serve, daemon=True).start()
    monkeypatch.setattr(execute, "SCHEDULER_TIMEOUT", 2)
    start = time.monotonic()
    with pytest.raises(ParameterError, match="Dask scheduler"):
        run_claims([discover()["cbss11.lemma7"]], scheduler=f"tcp://127.0.0.1:{server.getsockname()[1]}",
                   out=tmp_path, progress=False)
    assert time.monotonic() - start < 10
    server.close()


def test_what_a_subject_prints_stays_out_of_stdout(tmp_path, monkeypatch, capfd):
    """What a subject prints, from Python or C, goes to stderr: stdout carries only the run's own output (--json).
    The subject's module is new on sys.path, so its worker starts now, with this test's captured descriptors."""
    (tmp_path / "printing_subject.py").write_text(
        "import os\n\ndef average(values):\n    print('a subject print')\n"
        "    os.write(1, b'a subject write to fd 1\\n')\n    return sum(values) / len(values)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    record = run_one("cbss11.lemma7", tmp_path / "out", subjects={"subset_average": "printing_subject:average"})
    out, err = capfd.readouterr()
    assert record["verdict"] == "PASS", record["decision"]
    assert "a subject" not in out and "a subject print" in err and "a subject write to fd 1" in err, (out, err)
