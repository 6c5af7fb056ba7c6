"""A user's code never runs in theorycheck's own process, and a run that is interrupted ends (issue 57, items 1, 2).

- the matrix: ``verify`` and ``conform`` on the command line and ``theorycheck.verify`` in Python, at ``--jobs`` 1
  and 2, with a subject that does not pickle or raises a BaseException (its own, or a KeyboardInterrupt), and in
  Python one that calls os._exit(0) or sleeps past ``task_timeout`` (the command line's are
  tests/test_subject_failures.py's): never exit status 0 or 3, one line naming the subject, nothing cached;
- a ``--subject`` or ``--claims`` module that calls os._exit(0) or sys.exit(0), segfaults or raises
  KeyboardInterrupt at import: one line, exit status 2, no output folder, the module never imported here;
- Ctrl-C and SIGTERM while a subject hangs (in a task; in verify's conformance, whose worker conform's checks use
  too): the process ends within 5 s with 130 or 143 and none of its descendants survives; a second Ctrl-C ends it
  at once;
- a subject module that patches numpy.linalg.eigh at import leaves the built-in sk13.makepsd PASS, and its cache
  clean for a later plain run.

The subjects are in tests/hostile_subjects.py. The matrix runs the command line in this process (``cli.main``), as
tests/test_subject_failures.py does, so that the workers are reused from one case to the next: each case that ends
a worker pays for a fresh one (about 2.5 s of CPU), and each signal test for a process of its own.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import theorycheck
from theorycheck.cli import main
from theorycheck.validation import ParameterError
from theorycheck.verdicts import ExitCode, Verdict

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
CHEAP = "cbss11.lemma7"
HOSTILE = "tests.hostile_subjects"

#: what each subject does, and the words its one line must hold
WORDS = {"locked": "does not pickle", "base": "Planted: planted BaseException",
         "interrupt": "KeyboardInterrupt: the subject's own", "genexit": "GeneratorExit: a generator's own",
         "exit0": "exit status 0", "sleep": "within 1 s"}
AVERAGE = {"locked": "locked_average", "base": "average_base", "interrupt": "average_interrupt",
           "genexit": "average_genexit", "exit0": "average_exit0", "sleep": "average_sleep"}
LEARNER = {"locked": "locked_aerr", "base": "AERR_base", "interrupt": "AERR_interrupt", "genexit": "AERR_genexit",
           "exit0": "AERR_exit0", "sleep": "AERR_sleep"}


def _one_line(err: str, *words: str) -> str:
    assert "Traceback" not in err and "Fatal Python error" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and all(word in lines[0] for word in words), err
    return lines[0]


def _nothing_cached(out: Path) -> None:
    assert not list(out.rglob("task-*.json")), sorted(out.rglob("task-*.json"))
    assert not (out / ".cache" / "conformance").exists() or not list((out / ".cache" / "conformance").iterdir())


def _timeout(how: str) -> str:
    """1 s for the subject that sleeps; for the others, time enough for conform's checks to reach their fit."""
    return "1" if how == "sleep" else "120"


# ---------------------------------------------------------------------- the matrix
#: a subject that ends its worker (os._exit, a signal, sys.exit, a hang past --task-timeout) at --jobs 1 and 2, on
#: verify and conform, is tests/test_subject_failures.py's matrix (which checks that nothing is cached too): here
#: the failures that used to send a task back into this process, and the API's front door
LIVE = ("locked", "base", "interrupt", "genexit")


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("how", LIVE)
def test_verify_a_hostile_subject_is_one_line_and_never_runs_here(tmp_path, capsys, how, jobs):
    out = tmp_path / "out"
    subject = f"{HOSTILE}:{AVERAGE[how]}"
    status = main(["verify", CHEAP, "--subject", f"subset_average={subject}", "--jobs", str(jobs),
                   "--task-timeout", _timeout(how), "--quiet", "--out", str(out)])
    printed, err = capsys.readouterr()
    if how == "locked":  # refused before any work
        assert status == ExitCode.USAGE and printed == "", printed + err
        _one_line(err, "subject subset_average (tests.hostile_subjects.LockedAverage)", WORDS[how])
        assert not out.exists()
        return
    assert status == ExitCode.FAILED and printed.startswith(Verdict.SUBJECT_ERROR), printed + err
    _one_line(err, "the subject failed", f"subset_average ({HOSTILE}.average_{how})", "task", WORDS[how])
    _nothing_cached(out)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("how", LIVE)
def test_conform_a_hostile_learner_is_one_line_and_never_runs_here(tmp_path, capsys, how, jobs):
    """``--no-claims``: the claims' time estimate runs the learner in the same kind of worker (:func:`_isolated`)
    before the checks; left out, a learner that ends its worker ends one worker, not two."""
    out = tmp_path / "out"
    status = main(["conform", "AERR", "--subject", f"learner={HOSTILE}:{LEARNER[how]}", "--jobs", str(jobs),
                   "--no-claims", "--task-timeout", _timeout(how), "--quiet", "--out", str(out)])
    printed, err = capsys.readouterr()
    if how == "locked":
        assert status == ExitCode.USAGE and printed == "", printed + err
        _one_line(err, "subject learner (tests.hostile_subjects.LockedAERR)", WORDS[how])
        assert not out.exists()
        return
    assert status == ExitCode.FAILED and printed.startswith(Verdict.FAIL), printed + err
    _one_line(err, "conform AERR: FAIL", "process FAIL: the learner", f"{HOSTILE}.AERR_{how}",
              "did not finish within 1 s" if how == "sleep" else WORDS[how])
    _nothing_cached(out)


#: the API drives the session the command line drives: a subject that ends its worker, at --jobs 1
API_CASES = [(how, jobs) for how in LIVE for jobs in (1, 2)] + [("exit0", 1), ("sleep", 1)]


@pytest.mark.parametrize(("how", "jobs"), API_CASES)
def test_the_api_a_hostile_subject_is_subject_error_and_never_runs_here(tmp_path, how, jobs):
    from tests import hostile_subjects

    out = tmp_path / "out"
    subject = getattr(hostile_subjects, AVERAGE[how])
    if how == "locked":
        with pytest.raises(ParameterError, match="does not pickle"):
            theorycheck.verify(CHEAP, subjects={"subset_average": subject}, jobs=jobs, out=out)
        assert not out.exists()
        return
    results = theorycheck.verify(CHEAP, subjects={"subset_average": subject}, jobs=jobs, out=out,
                                 task_timeout=float(_timeout(how)))
    assert results.exit_status == ExitCode.FAILED and results[0].verdict == Verdict.SUBJECT_ERROR
    assert len(results.messages) == 1 and "\n" not in results.messages[0], results.messages
    assert f"subset_average ({HOSTILE}.average_{how})" in results.messages[0] and "task" in results.messages[0]
    assert WORDS[how] in results.messages[0], results.messages
    _nothing_cached(out)


#: the pytest plugin: each hostile subject at --jobs 1 and 2 (one of them at each for the slower ones)
PLUGIN_CASES = [(how, jobs) for how in ("base", "interrupt", "genexit", "exit0") for jobs in (1, 2)] + [
    ("sleep", 2), ("locked", 1)]


def test_the_pytest_plugin_a_hostile_subject_fails_its_test_and_the_session_goes_on(pytester, monkeypatch):
    """Under the plugin's assert_verifies, in a pytest session of the user's own: each hostile subject fails its
    own test with the one-line cause (never exit 0 mid-session, never the user's Ctrl-C), and the test after them
    still runs and passes."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    lines = ["from tests import hostile_subjects as h", ""]
    for how, jobs in PLUGIN_CASES:
        lines += [f"def test_{how}_at_{jobs}(assert_verifies, tmp_path):",
                  f"    assert_verifies({CHEAP!r}, subset_average=h.{AVERAGE[how]}, jobs={jobs}, "
                  f"task_timeout={_timeout(how)}, out=tmp_path)", ""]
    lines += ["def test_after_them():", "    assert True", ""]
    pytester.makepyfile(test_hostile="\n".join(lines))
    outcome = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    outcome.assert_outcomes(passed=1, failed=len(PLUGIN_CASES))
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED
    text = outcome.stdout.str()
    for how, jobs in PLUGIN_CASES:
        assert f"FAILED test_hostile.py::test_{how}_at_{jobs}" in text, text[-3000:]
        assert WORDS[how] in text, (how, text[-3000:])
    # each failure's own section (not the short summary, whose lines the terminal's width may cut) names the verdict
    said = [line for line in text.splitlines()
            if line.startswith("E ") and f"AssertionError: {Verdict.SUBJECT_ERROR} {CHEAP}:" in line]
    assert len(said) == len(PLUGIN_CASES) - 1, text[-3000:]  # the one that does not pickle is refused before


AT_IMPORT = {"os._exit(0)": ("import os\nos._exit(0)\n", "ended its worker with exit status 0"),
             "sys.exit(0)": ("import sys\nsys.exit(0)\n", "called sys.exit(0)"),
             "segfault": ("import ctypes\nctypes.string_at(0)\n", "ended its worker with signal SIGSEGV"),
             "KeyboardInterrupt": ("raise KeyboardInterrupt\n", "raised KeyboardInterrupt")}


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("where", ["verify --subject", "verify --claims", "conform --subject", "api subjects"])
@pytest.mark.parametrize("what", list(AT_IMPORT))
def test_a_module_that_ends_its_process_at_import_is_one_line(tmp_path, capsys, monkeypatch, what, where, jobs):
    source, ending = AT_IMPORT[what]
    module = f"ends_at_import_{list(AT_IMPORT).index(what)}_{where.replace(' ', '_').replace('-', '')}"
    (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "out"
    if where == "api subjects":
        with pytest.raises(ParameterError, match=re.escape(f"importing {module} {ending}")):
            theorycheck.verify(CHEAP, subjects={"subset_average": f"{module}:f"}, jobs=jobs, out=out)
        assert not out.exists() and module not in sys.modules
        return
    argv = {"verify --subject": ["verify", CHEAP, "--subject", f"subset_average={module}:f"],
            "verify --claims": ["verify", f"{module}.x", "--claims", module],
            "conform --subject": ["conform", "AERR", "--subject", f"learner={module}:f"]}[where]
    status = main([*argv, "--jobs", str(jobs), "--quiet", "--out", str(out)])
    printed, err = capsys.readouterr()
    assert status == ExitCode.USAGE and printed == "", printed + err
    _one_line(err, module, ending)
    assert not out.exists() and module not in sys.modules


# ---------------------------------------------------------------------- a user's module that patches numpy
EIGH = """import os
from fractions import Fraction

import numpy as np

os.chdir("elsewhere")

_true = np.linalg.eigh


def _shifted(a, *args, **kwargs):
    values, vectors = _true(a, *args, **kwargs)
    return values + 1.0, vectors


np.linalg.eigh = _shifted


def average(values):
    return sum(values, Fraction(0)) / len(values)
"""


def test_a_subject_module_that_patches_eigh_leaves_the_built_ins_and_their_cache_alone(tmp_path, capsys,
                                                                                       monkeypatch):
    """sk13.makepsd's built-in make_psd calls numpy.linalg.eigh: in a process where that is shifted by 1, the
    projection is off by far more than the claim's tolerance (FAIL, as the run before this change gave, and cached).
    Run beside a claim whose subject comes from the patching module, sk13.makepsd runs in workers where the module
    was never imported: PASS; a later run served from that run's cache, eigh restored, is PASS too. The module also
    changes the folder at import: the relative --out is still the one the command was given in. (In this
    process, the command line in it: the test restores eigh and forgets the import at its end.)"""
    import numpy as np

    (tmp_path / "patches_eigh.py").write_text(EIGH, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(np.linalg, "eigh", np.linalg.eigh)  # restored at the end of the test
    out = tmp_path / "out"
    try:
        status = main(["verify", "sk13.makepsd", CHEAP, "--subject", "subset_average=patches_eigh:average",
                       "--quiet", "--json", "--out", "out"])
        printed = capsys.readouterr().out
        assert np.linalg.eigh.__module__ == "patches_eigh"  # the module did patch this process
    finally:
        sys.modules.pop("patches_eigh", None)
    assert status == ExitCode.OK, printed
    verdicts = {c["id"]: c["verdict"] for c in json.loads(printed)["claims"]}
    assert verdicts == {"sk13.makepsd": Verdict.PASS, CHEAP: Verdict.PASS}, verdicts
    assert list((out / ".cache" / "sk13.makepsd").rglob("task-*.json"))
    assert not (tmp_path / "elsewhere" / "out").exists()
    monkeypatch.undo()  # eigh restored, nothing imported
    assert np.linalg.eigh.__module__ != "patches_eigh"
    results = theorycheck.verify("sk13.makepsd", out=out)
    assert results[0].verdict == Verdict.PASS and results[0].record["tasks_from_cache"] > 0


def test_a_users_import_keeps_the_built_ins_apart_for_one_command_only(tmp_path, monkeypatch):
    """Within a command (or API call) that imported a user's module the built-in claims run apart; after it, and
    for a module imported by the caller (a test session, a notebook), they run where the caller runs them: the
    caller's process is the caller's, and the built-in claims run there at --jobs 1 as before."""
    from theorycheck.run import execute, probe
    from theorycheck.session import load_subject

    (tmp_path / "mine_once.py").write_text("def average(x):\n    return x\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        load_subject("mine_once:average")  # outside any command: the caller's own import
        assert probe.exposed() == frozenset()
        with probe.guarded():
            probe.expose("mine_twice")
            with probe.guarded():  # a call within a call (the API inside a command) keeps the outer one's record
                pass
            assert probe.exposed() == {"mine_twice"}
            assert execute.isolation_of([], 1.0).apart
        assert probe.exposed() == frozenset() and not execute.isolation_of([], 1.0).apart
    finally:
        sys.modules.pop("mine_once", None)


# ---------------------------------------------------------------------- interruption
def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        try:
            children = [int(c) for t in Path(f"/proc/{todo.pop()}/task").iterdir()
                        for c in (t / "children").read_text().split()]
        except OSError:
            continue
        found += children
        todo += children
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False


#: conform's checks run in the worker verify's conformance runs in (:func:`theorycheck.run.execute._isolated`)
HUNG = {"task": ["verify", CHEAP, "--subject", f"subset_average={HOSTILE}:average_sleep"],
        "conformance in verify": ["verify", "hk12.thm3.1", "--subject", f"learner={HOSTILE}:AERR_sleep"]}


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
@pytest.mark.parametrize(("where", "sent", "twice"), [("task", signal.SIGINT, True),
                                                      ("conformance in verify", signal.SIGTERM, False)])
def test_ctrl_c_or_sigterm_during_a_hung_subject_ends_the_run_and_its_workers(tmp_path, where, sent, twice):
    """The subject sleeps for an hour in its worker; the signal comes once the worker has run 3 s. The run ends
    within 5 s with 128 + the signal's number, and none of the processes it started (workers, loky's resource
    trackers) is alive 3 s later. A second Ctrl-C right after the first ends the process at once."""
    run = subprocess.Popen([sys.executable, "-m", "theorycheck", *HUNG[where], "--quiet", "--out",
                            str(tmp_path / "out")], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline, started = time.monotonic() + 120, None
        while time.monotonic() < deadline and (started is None or time.monotonic() - started < 3):
            if started is None and any("popen_loky_posix" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")
                                       for p in _descendants(run.pid) if _alive(p)):
                started = time.monotonic()
            time.sleep(0.1)
        children = _descendants(run.pid)
        assert started is not None and children, "no worker started"
        sent_at = time.monotonic()
        run.send_signal(sent)
        if twice:
            time.sleep(0.05)
            run.send_signal(sent)
        err = run.communicate(timeout=30)[1]
        took = time.monotonic() - sent_at
    finally:
        run.kill()
    assert took < 5, took
    assert run.returncode in (128 + sent, -sent), (run.returncode, err)
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and any(map(_alive, children)):
        time.sleep(0.1)
    assert not [pid for pid in children if _alive(pid)]
