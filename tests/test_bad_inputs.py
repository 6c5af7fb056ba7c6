"""The bad-input catalogue: every rejected input exits 2 with one line on stderr, no traceback,
before any work, and leaves every file under --out as it was (here a folder holding an earlier
run, compared byte for byte and by modification time)."""

from __future__ import annotations

import hashlib

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
    (["verify", T31, "--set", "delta=0"], "delta must be > 0"),
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
    (["verify", T31, "--jobs", "-2"], "--jobs"),
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
    ({"jobs": 0}, "--jobs must be a positive number or -1"),
    ({"out": 3.5}, "out must be a folder path"),
    ({"out": "FILE"}, "is not a folder"),
])
def test_the_python_api_rejects_bad_arguments_with_one_sentence(tmp_path, kwargs, message):
    import theorycheck
    from theorycheck.validation import ParameterError

    if kwargs.get("out") == "FILE":
        (tmp_path / "a-file").write_text("x", encoding="utf-8")
        kwargs = {"out": tmp_path / "a-file"}
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
