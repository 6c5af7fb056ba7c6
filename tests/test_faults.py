"""SIGKILL at the worst moments of `theorycheck verify`: after each, the next run finishes, no
temporary file is left, and the results and report equal those of an uninterrupted run.

A SIGKILL cannot be caught, so these tests kill the process for real: from outside while a task
computes, and from inside (a driver replaces the atomic writer by one that writes half the file
to its temporary name and then sends itself SIGKILL) while a cached task, a result, the summary
or a page of the report is being written.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ARGS = ["verify", "cbss11.thm2", "cbss11.lemma7", "--set", "repetitions=8", "examples=40000", "--quiet"]

DRIVER = '''
import fnmatch, os, signal, sys, tempfile
from pathlib import Path
import theorycheck.report as report
import theorycheck.run.store as store
from theorycheck.cli import main

pattern, argv = sys.argv[1], sys.argv[2:]
real = store.write_atomic

def dying(path, data):
    path = Path(path)
    if fnmatch.fnmatch(path.as_posix(), pattern):
        path.parent.mkdir(parents=True, exist_ok=True)
        raw = data if isinstance(data, bytes) else data.encode("utf-8")
        fd, _ = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
        os.write(fd, raw[: len(raw) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    real(path, data)

store.write_atomic = dying
report.write_atomic = dying
sys.exit(main(argv))
'''

_TIMING = re.compile(r"(&lt; )?\d+(\.\d+)?( (min|h) \d+)? (s|min)\b")


def _run(out: Path, *extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theorycheck", *ARGS, "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=600)


def _snapshot(out: Path) -> dict:
    """Everything a user reads, with times (which differ between runs) taken out."""
    summary = json.loads((out / "summary.json").read_text())
    summary.pop("wall_seconds")
    summary.pop("environment")
    for claim in summary["claims"]:
        claim.pop("seconds")
    results = {}
    for path in sorted((out / "results").glob("*.json")):
        record = json.loads(path.read_text())
        for key in ("seconds", "tasks_from_cache", "environment"):
            record.pop(key)
        results[path.name] = record
    pages = {p.name: _TIMING.sub("T", p.read_text()) for p in sorted(out.glob("*.html"))}
    tables = {p.name: p.read_text() for p in sorted((out / "tables").glob("*.csv"))}
    return {"summary": summary, "results": results, "pages": pages, "tables": tables}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("uninterrupted")
    done = _run(out)
    assert done.returncode in (0, 1, 3) and "Traceback" not in done.stderr, done.stderr
    return {**_snapshot(out), "status": done.returncode}


def _check_recovery(out: Path, reference: dict) -> None:
    rerun = _run(out)
    assert rerun.returncode == reference["status"], rerun.stderr
    assert "Traceback" not in rerun.stderr
    assert not list(out.rglob("*.tmp")), "a killed writer's temporary file was left behind"
    got = {**_snapshot(out), "status": rerun.returncode}
    assert got == reference, _difference(reference, got)


def _difference(a: dict, b: dict) -> str:
    """The first differing lines of each differing entry, for the failure message."""
    import difflib

    lines = []
    for part in a:
        for name in sorted(set(a[part]) | set(b[part])) if isinstance(a[part], dict) else [None]:
            x = a[part].get(name) if name else a[part]
            y = b[part].get(name) if name else b[part]
            if x != y:
                diff = difflib.unified_diff(json.dumps(x, indent=1, default=str).splitlines(),
                                            json.dumps(y, indent=1, default=str).splitlines(), lineterm="", n=0)
                lines += [f"{part} {name}:", *(line[:200] for line in list(diff)[2:12])]
    return "\n".join(lines)


@pytest.mark.parametrize("target", [
    "*/.cache/cbss11.thm2/*/task-3.json",  # while a finished task is stored
    "*/results/cbss11.thm2.json",  # while a result is written
    "*/summary.json",  # while the summary is written
    "*/cbss11.thm2.html",  # while the report is rendered
    "*/index.html",
])
def test_sigkill_while_writing(tmp_path, reference, target):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    out = tmp_path / "out"
    killed = subprocess.run([sys.executable, str(script), target, *ARGS, "--out", str(out)],
                            capture_output=True, text=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert list(out.rglob("*.tmp")), "the injected fault did not fire"
    _check_recovery(out, reference)


def test_sigkill_during_a_task(tmp_path, reference):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "theorycheck", *ARGS, "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cache = out / ".cache" / "cbss11.thm2"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(cache.rglob("task-*.json"))) < 2:
        time.sleep(0.005)
    proc.kill()
    assert proc.wait(timeout=60) == -signal.SIGKILL
    if (out / "summary.json").exists():  # the report of the claims finished before the kill, and says so
        partial = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert partial["unfinished"] >= 1 and len(partial["claims"]) + partial["unfinished"] == 2
        assert (out / "index.html").exists()
    _check_recovery(out, reference)



# ---------------------------------------------------------------------- a disk that fills during a run
@pytest.mark.parametrize(("target", "nth"), [
    ("*/.cache/cbss11.lemma8/*/.task-0.json.*", 1),  # the first task of the second claim
    ("*/results/.cbss11.lemma8.json.*", 1),  # its result
    ("*/.summary.json.*", 1),  # the summary written as the run goes, after the first claim
    ("*/.index.html.*", 1),  # the index rendered as the run goes
    ("*/.index.html.*", 2),  # the index rendered at the end, every result stored
])
def test_a_disk_that_fills_during_a_run_leaves_the_last_report_and_says_what_was_not_written(
        tmp_path, capsys, monkeypatch, target, nth):
    import errno
    import fnmatch
    import os

    from theorycheck.cli import main
    from theorycheck.run.store import read_result, read_summary

    out = tmp_path / "out"
    argv = ["verify", "cbss11.lemma7", "cbss11.lemma8", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    report = {p.name: p.read_bytes() for p in out.glob("*.html")}
    real_fsync = os.fsync

    seen = []

    def full(fd):  # the disk is full when the nth such file's bytes reach it: the real writer fails as it would
        if fnmatch.fnmatch(os.readlink(f"/proc/self/fd/{fd}"), target):
            seen.append(fd)
            if len(seen) == nth:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    status = main([*argv, "--seed", "1"])
    monkeypatch.undo()
    _, err = capsys.readouterr()
    assert status == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    refused = target.split("/")[-1].lstrip(".").removesuffix(".*")
    assert f"cannot write {out}" in err and refused in err and "No space left on device" in err, err
    if nth == 2:
        assert "the results of the run are stored" in err and "its report was not rendered" in err, err
    else:
        assert "the run stopped" in err and "cbss11.lemma8 were not" in err and "report in" in err, err
    assert not list(out.rglob("*.tmp")), "a failed write left its temporary file"
    for name, before in report.items():  # each page is the earlier run's or this run's, whole
        page = (out / name).read_bytes()
        assert page == before or page.rstrip().endswith(b"</html>"), name
    assert read_summary(out / "summary.json") is not None
    assert all(read_result(p) is not None for p in (out / "results").glob("*.json"))
    assert main([*argv, "--seed", "1"]) == 0  # with room again, the run finishes


# ---------------------------------------------------------------------- subjects that kill their worker
def test_a_subject_that_kills_its_worker_is_subject_error_and_the_other_claims_finish(tmp_path, capsys):
    from theorycheck.cli import main

    out = tmp_path / "out"
    status = main(["verify", "cbss11.thm2", "cbss11.thm3", "cbss11.lemma7", "--subject",
                   "instance=tests.dying_subjects:dying_instance", "--jobs", "2", "--quiet", "--out", str(out)])
    printed, err = capsys.readouterr()
    assert status == 1, err
    verdicts = {line.split()[1]: line.split()[0] for line in printed.splitlines() if line.startswith(("PASS", "SUB"))}
    assert verdicts == {"cbss11.thm2": "SUBJECT-ERROR", "cbss11.thm3": "SUBJECT-ERROR", "cbss11.lemma7": "PASS"}
    assert "Traceback" not in err and "Fatal Python error" not in err
    assert all(line.startswith("theorycheck: ") for line in err.splitlines()), err
    thm2 = json.loads((out / "results" / "cbss11.thm2.json").read_text())["decision"]
    thm3 = json.loads((out / "results" / "cbss11.thm3.json").read_text())["decision"]
    assert "subject instance (tests.dying_subjects.dying_instance) killed the worker" in thm2
    assert "signal SIGSEGV" in thm2 and "dying_subjects.py" in thm2  # the stack the fatal signal reported
    assert "exit status 3" in thm3
