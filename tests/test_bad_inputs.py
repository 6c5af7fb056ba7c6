"""The bad-input catalogue: every rejected input exits 2 with one line on stderr, no traceback,
before any work, and leaves every file under --out as it was (here a folder holding an earlier
run, compared byte for byte and by modification time)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from theorycheck.cli import main

T31, T34 = "hk12.thm3.1", "hk12.thm3.4"

CASES = [
    # selection
    (["verify", "no.such"], "no claim matches"),
    (["verify", "zz*"], "no claim matches"),
    (["show", "no.such"], "no claim matches"),
    (["show", "hk12.*"], "not a glob"),
    (["list", "--paper", "nope"], "unknown paper"),
    (["errata", "--paper", "nope"], "unknown paper"),
    (["frobnicate"], "invalid choice"),
    # --set, one rule of each type
    (["verify", T31, "--set", "k=0"], "k must be at least 1"),
    (["verify", T31, "--set", "k=5"], "must not exceed d"),
    (["verify", T31, "--set", "k=1.5"], "must be an integer"),
    (["verify", T31, "--set", "d=abc"], "must be an integer"),
    (["verify", T31, "--set", "B=-1"], "B must be > 0"),
    (["verify", T31, "--set", "B=nan"], "finite number"),
    (["verify", T31, "--set", "B=inf"], "finite number"),
    (["verify", T31, "--set", "delta=0"], "delta must be >= 1e-12"),
    (["verify", T31, "--set", "delta=1.5"], "delta must be < 1"),
    (["verify", T31, "--set", "noise=2"], "noise must be <= 1"),
    (["verify", T31, "--set", "designs=nope"], "unknown designs"),
    (["verify", T31, "--set", "designs="], "malformed --set"),
    (["verify", T34, "--set", "eta_rule=sometimes"], "must be one of"),
    (["verify", T31, "--set", "m_grid=1,x"], "comma-separated list"),
    (["verify", T31, "--set", "repetitions=1"], "at least 2"),
    (["verify", "cbss11.thm6", "--set", "ks=0,1"], "at least 2"),
    (["verify", "cbss11.lemma8", "--set", "s=100"], "must not exceed d"),
    (["verify", T31, "--set", "=3"], "malformed --set"),
    (["verify", T31, "--set", "k"], "malformed --set"),
    (["verify", T31, "--set", "learner=3"], "no selected claim has a parameter named learner"),
    (["verify", T31, "--set", "k=1", "k=2"], "gives k twice"),
    # profile, jobs, seed
    (["verify", T31, "--profile", "huge"], "invalid choice"),
    (["verify", T31, "--jobs", "0"], "--jobs"),
    (["verify", T31, "--jobs", str(-(os.cpu_count() or 1) - 1)], "--jobs"),  # −1 is every core, −2 all but one
    (["verify", T31, "--jobs", "abc"], "invalid int value"),
    (["verify", T31, "--jobs", "100000"], "exceeds the"),
    (["verify", T31, "--seed", "-1"], "non-negative"),
    (["verify", T31, "--seed", "x"], "invalid int value"),
    # subjects
    (["verify", T31, "--subject", "learner=theorycheck.algorithms"], "module:attribute"),
    (["verify", T31, "--subject", "learner=theorycheck.algorithms:NoSuch"], "cannot load subject"),
    (["verify", T31, "--subject", "learner=no.such.module:Thing"], "cannot load subject"),
    (["verify", T31, "--subject", "learner=numpy:array"], "does not follow BudgetedLearner"),
    (["verify", T31, "--subject", "nosuch=theorycheck.algorithms:AERR"], "no selected claim has a subject"),
    (["verify", T31, "--subject", "learner="], "malformed --subject"),
    # resources, and parameters that overflow what is derived from them
    (["verify", T31, "--set", "repetitions=1000000000"], "tasks: their measurements need about"),
    (["verify", "cbss11.thm2", "--set", "repetitions=1000000000"], "and this machine has"),
    (["verify", "cbss11.thm3", "--set", "c=1e308"], "c must be at most 1e+100 in magnitude"),
    (["verify", "cbss11.thm3", "--set", "c=1e99"], "c·k = 5e+99 must not exceed d"),
    (["verify", "cbss11.lemma9", "--set", "B=1e308"], "B must be at most 1e+100 in magnitude"),
    (["verify", "hk12.lemma3.5", "--set", "B=-1e308"], "B must be > 0"),
    (["verify", "ks15.fewer-attributes", "--set", "d=1000000000000000000000"], "d must be at most 9223372036854775807"),
    # every parameter bounded: the smallest δ and resolution a decision can use, int64, and one task's cost
    (["verify", T31, "--set", "delta=1e-308"], "delta must be >= 1e-12"),
    (["verify", T31, "--set", "delta=5e-324"], "delta must be >= 1e-12"),
    (["verify", T31, "--set", "delta=-0.0"], "delta must be >= 1e-12, got -0.0"),
    (["verify", "cbss11.thm2", "--set", "delta=1e-308"], "delta must be >= 1e-12"),
    (["verify", T31, "--set", "resolution=1e-320"], "resolution must be >= 1e-12"),
    (["verify", "cbss11.A.2", "--set", f"spread={10**30}"], "spread must be at most 9223372036854775807"),
    (["verify", "cbss11.lemma8", "--set", f"d={2**63}"], "d must be at most 9223372036854775807"),
    (["verify", "ks15.thm4.1", "--set", "s=-1"], "s must be at least 1"),
    (["verify", "reyzin11.balls-bins", "--set", f"runs={10**12}"], "runs=1000000000000 makes one task hold about"),
    (["verify", "cbss11.thm2", "--set", f"d={10**12}"], "d=1000000000000 makes one task hold about"),
    (["verify", "cbss11.lemma8", "--set", f"d={10**9}"], "d=1000000000 makes one task"),
    (["verify", "cbss11.thm2", "--set", f"examples={10**15}"], "makes one task hold about 8.0 PB"),
    (["verify", "cbss11.lemma11", "--set", f"mc_samples={10**12}"], "makes one task hold about 8.0 TB"),
    (["verify", "cbss11.lemma7", "--set", f"functions={10**9}"], "past the limit of 1 hour per task"),
    (["verify", "cbss11.lemma11", "--set", f"instances={10**9}"], "past the limit of 1 hour per task"),
    (["verify", "sk13.makepsd", "--set", f"starts={10**6}"], "past the limit of 1 hour per task"),
    (["verify", "reyzin11.balls-bins", "--set", f"k_points={10**9}"], "past the limit of 1 hour per task"),
    (["verify", T31, "--scheduler", "nonsense"], "is not the address of a Dask scheduler"),
    (["verify", T31, "--scheduler", "http://host:8786"], "is not the address of a Dask scheduler"),
    (["verify", T31, "--scheduler", "tcp://host:99999"], "is not the address of a Dask scheduler"),
]


def _state(folder):
    return {p.relative_to(folder).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def earlier_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("earlier")
    assert main(["verify", "cbss11.lemma7", "--quiet", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_rejected_before_any_work(capsys, earlier_run, argv, message):
    capsys.readouterr()
    before = _state(earlier_run)
    out_flag = ["--out", str(earlier_run)] if argv[0] in ("verify", "report") else []
    status = main([*argv, *out_flag, *(["--quiet"] if argv[0] == "verify" else [])])
    out, err = capsys.readouterr()
    assert status == 2
    assert message in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and out == ""
    assert _state(earlier_run) == before  # nothing written, nothing half-written


BROKEN_MODULES = {
    "raises_at_import": "raise RuntimeError('no licence server')\n",
    "bad_syntax": "def f(:\n",
}


@pytest.mark.parametrize(("spec", "message"), [
    ("learner=raises_at_import:AERR", "importing raises_at_import raised RuntimeError: no licence server"),
    ("learner=bad_syntax:AERR", "importing bad_syntax raised SyntaxError"),
    ("learner=:AERR", "'' is not an absolute module name"),
    ("learner=.relative:AERR", "'.relative' is not an absolute module name"),
])
def test_a_subject_module_that_cannot_load_is_one_line(capsys, tmp_path, monkeypatch, spec, message):
    for name, source in BROKEN_MODULES.items():
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status = main(["verify", T31, "--subject", spec, "--out", str(tmp_path / "out"), "--quiet"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "", err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ids": 5}, "ids must be a claim id"),
    ({"ids": ["cbss11.lemma7", 3]}, "ids must be a claim id"),
    ({"profile": "huge"}, "profile must be one of"),
    ({"subjects": ["learner"]}, "subjects must be a dict"),
    ({"params": {1: 2}}, "params must be a dict"),
    ({"seed": -1}, "seed must be a non-negative int"),
    ({"seed": "0"}, "seed must be a non-negative int"),
    ({"jobs": 0}, "jobs must be a positive number of workers"),
    ({"out": 3.5}, "out must be a folder path"),
    ({"out": "FILE"}, "is not a folder"),
    ({"out": "DANGLING"}, "is a symbolic link to"),
    ({"out": "RESULTS-A-FILE"}, "results is a file where a folder is expected"),
])
def test_the_python_api_rejects_bad_arguments_with_one_sentence(tmp_path, kwargs, message):
    import theorycheck
    from theorycheck.validation import ParameterError

    if kwargs.get("out") == "FILE":
        (tmp_path / "a-file").write_text("x", encoding="utf-8")
        kwargs = {"out": tmp_path / "a-file"}
    elif kwargs.get("out") == "DANGLING":
        kwargs = {"out": _dangling(tmp_path)}
    elif kwargs.get("out") == "RESULTS-A-FILE":
        kwargs = {"out": _inside("file", "results")(tmp_path)}
    with pytest.raises(ParameterError, match=message) as caught:
        theorycheck.verify(**{"ids": "cbss11.lemma7", **kwargs})
    assert len(str(caught.value).splitlines()) == 1


# ------------------------------------------------------------------ stored files read through one schema
def _damage(folder, what):
    """Damage one stored file of the run in ``folder`` the way a hand edit or a bad disk would."""
    import json

    result = folder / "results" / "cbss11.lemma7.json"
    summary = folder / "summary.json"
    record = json.loads(result.read_text())
    rows = json.loads(summary.read_text())
    if what.startswith("result:"):
        field, value = what.split(":", 1)[1].split("=")
        if value == "<missing>":
            record.pop(field)
        else:
            record[field] = json.loads(value)
        result.write_text(json.dumps(record))
    elif what.startswith("summary:"):
        change = what.split(":", 1)[1]
        if change == "row without id":
            rows["claims"][0].pop("id")
        elif change == "row a number":
            rows["claims"][0] = 5
        elif change == "no environment":
            rows.pop("environment")
        summary.write_text(json.dumps(rows))
    elif what == "table missing":
        (folder / record["summary_file"]).unlink()
    elif what == "table binary":
        (folder / record["summary_file"]).write_bytes(b"\xff\xfe\x00\x01garbage\x00")


DAMAGES = ["result:profile=<missing>", "result:environment=<missing>", 'result:environment={"packages": 3}',
           "result:decision=<missing>", 'result:seconds="12"', "result:replaced=[1]", 'result:plot="x"',
           "result:errata_evidence=[1]", "result:findings=[3]", "summary:row without id", "summary:row a number",
           "summary:no environment", "table missing", "table binary"]


@pytest.mark.parametrize("what", DAMAGES)
def test_a_damaged_stored_file_never_ends_in_a_traceback(earlier_run, tmp_path, capsys, what):
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(earlier_run, folder)
    _damage(folder, what)
    capsys.readouterr()
    for argv in (["show", "cbss11.lemma7"], ["report"], ["errata", "--json"]):
        status = main([*argv, "--out", str(folder)])
        _, err = capsys.readouterr()
        assert "Traceback" not in err
        assert status in (0, 2), (argv, err)
        assert all(line.startswith("theorycheck: ") for line in err.splitlines()), err
        if status == 2:
            assert argv == ["report"] and what.startswith("summary:") and len(err.splitlines()) == 1, err


# ------------------------------------------------------------------ the environment, checked up front
def _long_name(tmp_path):
    return tmp_path / ("a" * 300)


def _past_path_max(tmp_path):
    return tmp_path.joinpath(*["b" * 200] * 25)


def _dangling(tmp_path):
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    return tmp_path / "link"


def _dangling_on_the_way(tmp_path):
    return _dangling(tmp_path) / "sub"


def _file_on_the_way(tmp_path):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    return tmp_path / "a-file" / "sub"


def _inside(kind, name):
    def setup(tmp_path):
        out = tmp_path / "out"
        (out / name).parent.mkdir(parents=True)
        if kind == "file":
            (out / name).write_text("x", encoding="utf-8")
        else:
            (out / name).mkdir()
        return out
    return setup


def _linked_out(name):
    """``out/<name>`` a symbolic link to a folder outside ``out`` (as ``out/results`` → /etc)."""
    def setup(tmp_path):
        out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
        elsewhere.mkdir()
        (out / name).parent.mkdir(parents=True)
        (out / name).symlink_to(elsewhere, target_is_directory=True)
        return out
    return setup


#: (case, setup, message, the commands that refuse it: report writes only matplotlib's cache, and knows no claim
#: before it reads)
ENVIRONMENT = [
    ("a name past NAME_MAX", _long_name, "(NAME_MAX)", "verify report"),
    ("a path past PATH_MAX", _past_path_max, "(PATH_MAX)", "verify report"),
    ("a dangling link", _dangling, "is a symbolic link to", "verify report"),
    ("a dangling link on the way", _dangling_on_the_way, "is a symbolic link to", "verify report"),
    ("a file on the way", _file_on_the_way, "is not a folder", "verify report"),
    ("out/results a file", _inside("file", "results"), "results is a file where a folder is expected", "verify report"),
    ("out/.cache a file", _inside("file", ".cache"), ".cache is a file where a folder is expected", "verify report"),
    ("out/tables a file", _inside("file", "tables"), "tables is a file where a folder is expected", "verify"),
    ("out/summary.json a folder", _inside("folder", "summary.json"), "summary.json is a folder where a file",
     "verify report"),
    ("out/index.html a folder", _inside("folder", "index.html"), "index.html is a folder where a file",
     "verify report"),
    ("the claim's result a folder", _inside("folder", "results/cbss11.lemma7.json"), "is a folder where a file",
     "verify"),
    ("the claim's page a folder", _inside("folder", "cbss11.lemma7.html"), "is a folder where a file", "verify"),
    ("out/results a link out of it", _linked_out("results"), "results is a symbolic link to", "verify report"),
    ("out/.cache a link out of it", _linked_out(".cache"), ".cache is a symbolic link to", "verify report"),
    ("the claim's cache a link out of it", _linked_out(".cache/cbss11.lemma7"), "outside the output folder",
     "verify"),
    ("a cached run a link out of it", _linked_out(".cache/cbss11.lemma7/0123456789abcdef0123"),
     "outside the output folder", "verify"),
]
ENVIRONMENT_CASES = [(command, *case[1:3]) for case in ENVIRONMENT for command in case[3].split()]
ENVIRONMENT_IDS = [f"{command} {case[0]}" for case in ENVIRONMENT for command in case[3].split()]


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize(("command", "setup", "message"), ENVIRONMENT_CASES, ids=ENVIRONMENT_IDS)
def test_an_output_folder_the_run_cannot_use_is_one_line_before_any_work(tmp_path, capsys, command, setup, message):
    out = setup(tmp_path)
    before = _files(tmp_path)
    argv = ["verify", "cbss11.lemma7", "--quiet"] if command == "verify" else ["report"]
    status = main([*argv, "--out", str(out)])
    printed, err = capsys.readouterr()
    assert status == 2 and printed == "", err
    # one short line, whatever the length of the temporary folder's path it names
    assert message in err and len(err.strip().splitlines()) == 1 and len(err.replace(str(tmp_path), "")) < 400, err
    assert _files(tmp_path) == before  # nothing created, no probe left behind


@pytest.mark.parametrize(("fault", "message"), [
    ("fsync", "No space left on device"),  # a full disk, found when the probe is flushed
    ("mkstemp", "Read-only file system"),  # a read-only one, found when the probe is created
])
@pytest.mark.parametrize("command", ["verify", "report", "calibrate"])
def test_an_output_folder_the_disk_refuses_is_one_line_before_any_work(earlier_run, tmp_path, capsys, monkeypatch,
                                                                       fault, message, command):
    import errno
    import os
    import shutil
    import tempfile

    from theorycheck.calibrate import main as calibrate

    folder = tmp_path / "run"
    shutil.copytree(earlier_run, folder)
    before = _state(folder)
    code = errno.ENOSPC if fault == "fsync" else errno.EROFS

    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os if fault == "fsync" else tempfile, fault, refuse)
    argv = {"verify": ["verify", "cbss11.lemma7", "--quiet"], "report": ["report"], "calibrate": ["cbss11.lemma7"]}
    status = (calibrate if command == "calibrate" else main)([*argv[command], "--out", str(folder)])
    monkeypatch.undo()
    printed, err = capsys.readouterr()
    assert status == 2 and printed == "", err
    assert message in err and "cannot be written" in err and len(err.strip().splitlines()) == 1, err
    assert _state(folder) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_an_output_folder_without_write_permission_is_one_line(tmp_path, capsys):
    out = tmp_path / "locked"
    out.mkdir(mode=0o500)
    try:
        status = main(["verify", "cbss11.lemma7", "--quiet", "--out", str(out / "sub")])
    finally:
        out.chmod(0o700)
    _, err = capsys.readouterr()
    assert status == 2 and "Permission denied" in err and len(err.strip().splitlines()) == 1, err


# ------------------------------------------------------------------ standard output that cannot take the output
def _theorycheck(*argv, stdout, env=None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "theorycheck", *argv], stdout=stdout, stderr=subprocess.PIPE,
                          env={**os.environ, **(env or {})}, timeout=300)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_stdout_is_one_line_and_a_non_zero_exit():
    with open("/dev/full", "w") as full:
        done = _theorycheck("list", stdout=full)
    err = done.stderr.decode()
    assert done.returncode == 2 and "cannot write to standard output: No space left on device" in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv", [["list"], ["list", "--json"], ["errata"]])
def test_a_closed_stdout_ends_quietly_as_sigpipe_would(argv):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written, as `| head -c1` leaves it
    try:
        done = _theorycheck(*argv, stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 141 and done.stderr == b"", done.stderr.decode()


def test_a_terminal_that_cannot_encode_the_output_gets_ascii_spellings(tmp_path):
    import subprocess

    for argv in (["list"], ["show", "cbss11.lemma7"], ["errata"]):
        done = _theorycheck(*argv, stdout=subprocess.PIPE, env={"PYTHONIOENCODING": "ascii"})
        assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
        text = done.stdout.decode("ascii")  # nothing but ASCII, and the common symbols spelt, not escaped
        assert not [ch for ch in "·…≤≥δε—−→‖" if ch.encode("ascii", "backslashreplace").decode() in text], text
    assert "δ ≤ 1 · é, ‖w‖₂".encode("ascii", "theorycheck-ascii") == b"delta <= 1 . e, ||w||2"


# ------------------------------------------------------------------ resource guards
def test_the_resource_guards_name_the_estimate_and_the_limit(tmp_path):
    from theorycheck.run.plan import MAX_RUN_SECONDS, check_resources
    from theorycheck.validation import ParameterError

    with pytest.raises(ParameterError, match=r"need about .* of memory and this machine has .* available"):
        check_resources([("a.claim", 1e15, 0.0)], tmp_path)
    cores = os.cpu_count() or 1
    slow = MAX_RUN_SECONDS * cores * 2 / 1000  # seconds per task: 1000 tasks take twice the limit
    with pytest.raises(ParameterError, match=r"1,000 tasks .* about 14 days on the .* past the limit of 7 days"):
        check_resources([("a.claim", 1000, slow), ("b.claim", 0, 1.0)], tmp_path)
    check_resources([("a.claim", 1000, slow / 4)], tmp_path)  # half the limit: accepted


def test_force_runs_a_plan_the_guards_refuse(tmp_path, capsys, monkeypatch):
    import theorycheck.run.plan as plan

    monkeypatch.setattr(plan, "MAX_RUN_SECONDS", 1e-9)
    argv = ["verify", "cbss11.lemma7", "--quiet", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "past the limit of" in err and "--force" in err and len(err.strip().splitlines()) == 1, err
    assert not tmp_path.joinpath("results").exists()
    assert main([*argv, "--force"]) == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["--jobs", "0"], "jobs must be a positive number of workers"),
    (["--jobs", "100000"], "exceeds the"),
    (["--out", "FILE"], "is not a folder"),
    (["--out", "FILE/sub"], "is not a folder"),
    (["--seeds", "0"], "--seeds must be at least 1"),
    (["--seeds", "x"], "invalid int value"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["no.such"], "no claim matches"),
])
def test_calibrate_rejects_bad_arguments_in_one_line(tmp_path, capsys, argv, message):
    from theorycheck.calibrate import main as calibrate

    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    argv = [arg.replace("FILE", str(tmp_path / "a-file")) for arg in argv]
    out = [] if "--out" in argv else ["--out", str(tmp_path / "sweep")]
    status = calibrate([*argv, *out, *([] if argv[0] == "no.such" else ["cbss11.lemma7"])])
    printed, err = capsys.readouterr()
    assert status == 2 and printed == "" and message in err and len(err.strip().splitlines()) == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_an_empty_selection_is_refused_not_every_claim():
    """`theorycheck.verify([])` (and so `assert_verifies([])`) names no claim: a usage error, not a run of all."""
    import theorycheck
    from theorycheck.validation import ParameterError

    with pytest.raises(ParameterError, match="empty"):
        theorycheck.verify([])


def test_an_unreachable_scheduler_is_one_line_within_the_connect_timeout(tmp_path, capsys):
    import time

    from theorycheck.run.execute import SCHEDULER_TIMEOUT

    pytest.importorskip("distributed")
    start = time.monotonic()
    status = main(["verify", "cbss11.lemma7", "--scheduler", "tcp://127.0.0.1:1", "--out", str(tmp_path / "out"),
                   "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and time.monotonic() - start < SCHEDULER_TIMEOUT, err
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--seed", "-1"], "--seed must be a non-negative integer"),
    (["--jobs", "0"], "jobs must be a positive number of workers"),
])
def test_conform_rejects_bad_arguments_in_one_line(tmp_path, capsys, argv, message):
    status = main(["conform", "AERR", "--subject", "learner=theorycheck.algorithms:AERR", *argv,
                   "--out", str(tmp_path / "out"), "--quiet"])
    printed, err = capsys.readouterr()
    assert status == 2 and printed == "" and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": -1}, "seed must be a non-negative int"),
    ({"seed": "0"}, "seed must be a non-negative int"),
    ({"jobs": 0}, "jobs must be a positive number of workers"),
    ({"jobs": 1.5}, "jobs must be an int"),
])
def test_the_python_conform_rejects_bad_arguments_with_one_sentence(kwargs, message):
    import theorycheck
    from theorycheck.algorithms import AERR
    from theorycheck.validation import ParameterError

    with pytest.raises(ParameterError, match=message):
        theorycheck.conform("AERR", AERR, **kwargs)


@pytest.mark.parametrize("stored", ["[1, 2]", '{"papers": 3}', '{"papers": ["x"], "claims": [5]}',
                                    '{"papers": ["x"], "claims": [{"id": 1}]}'])
def test_a_listing_cache_of_the_wrong_shape_is_made_again(tmp_path, capsys, monkeypatch, stored):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert main(["list"]) == 0
    expected = capsys.readouterr().out
    [cached] = (tmp_path / "theorycheck").glob("listing-*.json")
    cached.write_text(stored, encoding="utf-8")
    assert main(["list"]) == 0
    printed, err = capsys.readouterr()
    assert printed == expected and err == "", err


def _state_and_parent(pid):
    """(state letter, parent pid) of a process from /proc, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1])


def _children(pid):
    return [int(p.name) for p in Path("/proc").glob("[0-9]*") if (_state_and_parent(p.name) or ("", 0))[1] == pid]


def _running(pid):
    return (_state_and_parent(pid) or ("Z", 0))[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_terminated_run_removes_its_temporary_folder_and_ends_its_workers(tmp_path):
    """SIGTERM ends a --jobs 2 run as Ctrl-C does: exit 128 + 15, no theorycheck-running-* folder left in
    $TMPDIR, no worker left running."""
    import signal
    import subprocess
    import sys
    import time

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    run = subprocess.Popen([sys.executable, "-m", "theorycheck", "verify", "ks15.fig2", "--jobs", "2", "--quiet",
                            "--out", str(tmp_path / "out")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env={**os.environ, "TMPDIR": str(temporary)})
    try:
        deadline = time.monotonic() + 120
        # the folder is made just before the pool starts its workers: wait for both
        while (not (list(temporary.glob("theorycheck-running-*")) and _children(run.pid))
               and time.monotonic() < deadline):
            time.sleep(0.2)
        workers = _children(run.pid)
        assert list(temporary.glob("theorycheck-running-*")) and workers
        run.send_signal(signal.SIGTERM)
        status = run.wait(timeout=60)
    finally:
        run.kill()
    err = run.stderr.read().decode()
    assert status == 128 + signal.SIGTERM and "ended by SIGTERM" in err, err
    assert not list(temporary.glob("theorycheck-running-*"))
    time.sleep(1)
    assert not [pid for pid in workers if _running(pid)]
