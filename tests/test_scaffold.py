"""`theorycheck new KIND ID`: the skeleton imports and runs, ends in one "Not finished" line naming the
next hook until it is filled in, then PASSes and its planted defect FAILs; bad input is one line, status 2."""

import json
import os
import subprocess
import sys

import pytest

from theorycheck import cli
from theorycheck.scaffold import SCAFFOLDS


def theorycheck(folder, *args):
    return subprocess.run([sys.executable, "-m", "theorycheck", *args], cwd=folder, capture_output=True, text=True,
                          timeout=300)


def new(capsys, monkeypatch, folder, *argv):
    """`theorycheck new` in this process (it imports no claim): (status, stdout, stderr)."""
    monkeypatch.chdir(folder)
    status = cli.main(["new", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("kind", list(SCAFFOLDS))
def test_a_skeleton_runs_and_names_the_next_hook_to_write(tmp_path, capsys, monkeypatch, kind):
    status, _, err = new(capsys, monkeypatch, tmp_path, kind, "mine.lemma-1")
    assert status == 0, err
    assert (tmp_path / "mine_lemma_1.py").exists() and (tmp_path / "test_mine_lemma_1.py").exists()
    run = theorycheck(tmp_path, "verify", "mine.lemma-1", "--claims", "mine_lemma_1", "--out", "r", "--quiet")
    assert run.returncode == 1, run.stdout + run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("theorycheck: mine.lemma-1: Not finished: fill in ") and "mine_lemma_1.py" in line
    record = json.loads((tmp_path / "r" / "results" / "mine.lemma-1.json").read_text(encoding="utf-8"))
    assert record["verdict"] == "ERROR" and "Traceback" not in record["decision"]
    if kind != "frequency":  # the generated test fails the same way for every kind: run it once
        return
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_mine_lemma_1.py"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert tests.returncode == 1 and "2 failed" in tests.stdout and "Not finished" in tests.stdout, tests.stdout


def test_a_kinds_hook_left_undefined_is_named_too(tmp_path):
    (tmp_path / "bare.py").write_text(
        "import theorycheck\nfrom theorycheck.claims import register\n"
        "from theorycheck.kinds.frequency import ViolationFrequency\n"
        "theorycheck.declare_paper('bare', 'Doe (2027), Bare')\n"
        "class S:\n    def sample(self, n, random_state):\n        return [0.5] * n, None\n"
        "@register\nclass Bare(ViolationFrequency):\n"
        "    id, title, reference, statement = 'bare.x', 't', 'r', 's'\n"
        "    subjects = {'design': lambda params, name: S()}\n    budget = norm = None\n"
        "    parameters = {**ViolationFrequency.parameters}\n"
        "    base = {'designs': ('a',), 'delta_lemma': 0.1, 'delta': 0.01, 'resolution': 0.0}\n"
        "    profiles = {'quick': {'m': 3, 'repetitions': 2}, 'full': {'m': 3, 'repetitions': 2}}\n",
        encoding="utf-8")
    run = theorycheck(tmp_path, "verify", "bare.x", "--claims", "bare", "--out", "r", "--quiet")
    assert run.returncode == 1
    assert "Not finished: fill in run(p, X, y, subjects, random_state), a hook ViolationFrequency requires" \
        in run.stderr, run.stderr


# what a user writes into the frequency skeleton: Hoeffding's bound for the mean of m uniform draws
FILLED = {
    'raise Unfinished("subject(X)", "e.g. return sum(X) / len(X)")': "return sum(X) / len(X)",
    'raise Unfinished("planted_defect(X)", "a wrong subject the claim must catch")': "return sum(X) / len(X) + 0.2",
    'raise Unfinished("bound(p)", "the right-hand side at the parameters p (m, delta_lemma...)")':
        'import math\n        return math.sqrt(math.log(2 / p["delta_lemma"]) / (2 * p["m"]))',
    'raise Unfinished("deviation(p, design, X, y, outputs)", "the measured deviation as (lower, upper, {}); "\n'
    '                         "lower = upper when it is known exactly")':
        "return abs(outputs - 0.5), abs(outputs - 0.5), {}",
    'raise Unfinished("hypotheses_for(p, design, X, y)", "the statement\'s hypotheses checked on the sample, "\n'
    '                         "a list of theorycheck.claims.Hypothesis(statement, met, detail)")':
        "from theorycheck.claims import Hypothesis\n"
        "        return [Hypothesis('0 <= x <= 1', bool(min(X) >= 0 and max(X) <= 1))]",
}


def test_a_filled_in_frequency_skeleton_passes_and_catches_its_defect(tmp_path, capsys, monkeypatch):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    status, out, err = new(capsys, monkeypatch, tmp_path, "frequency", "mine.hoeffding", "--package", "mypkg")
    assert status == 0 and "--claims mypkg.mine_hoeffding" in out, out + err
    path = package / "mine_hoeffding.py"
    source = path.read_text(encoding="utf-8")
    for hole, code in FILLED.items():
        assert hole in source, hole
        source = source.replace(hole, code)
    path.write_text(source, encoding="utf-8")
    good = theorycheck(tmp_path, "verify", "mine.hoeffding", "--claims", "mypkg.mine_hoeffding", "--out", "r",
                       "--quiet", "--power")
    assert good.returncode == 0 and "1 PASS" in good.stdout, good.stdout + good.stderr
    assert "planted defects run (--power): 1, 1 as declared" in good.stdout
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "mypkg/test_mine_hoeffding.py"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout
    # and without pytest, as `nox -s verify`'s environment has none: the command `new` printed
    (command,) = [line.split("   ")[0] for line in out.splitlines() if line.startswith("then: python -m ")]
    assert command == "then: python -m mypkg.test_mine_hoeffding"
    blocker = tmp_path / "no-pytest"
    for name in ("pytest", "_pytest"):
        (blocker / name).mkdir(parents=True)
        (blocker / name / "__init__.py").write_text("raise ImportError('no pytest here')\n", encoding="utf-8")
    plain = subprocess.run([sys.executable, "-m", "mypkg.test_mine_hoeffding"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300, env={**os.environ, "PYTHONPATH": f"{blocker}{os.pathsep}{tmp_path}"})
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert plain.stdout.splitlines() == ["test_mine_hoeffding_passes: passed",
                                         "test_mine_hoeffding_catches_its_planted_defect: passed"], plain.stdout


@pytest.mark.parametrize(("argv", "message"), [
    (["new", "bogus", "mine.x"], "no skeleton for kind 'bogus'"),
    (["new", "comparison", "mine.x"], "no skeleton for kind 'comparison'"),
    (["new", "frequency", "mine"], "is not of the form <paper>.<item>"),
    (["new", "frequency", "Mine.x"], "is not of the form <paper>.<item>"),
    (["new", "frequency", "hk12.mine"], "paper key 'hk12' is reserved"),
    (["new", "frequency", "mine.x", "--package", "nowhere"], "--package 'nowhere' is not a folder"),
    (["new", "frequency", "mine.x"], "exists; `theorycheck new` never overwrites a file"),
])
def test_bad_input_is_one_line_and_status_2(tmp_path, capsys, monkeypatch, argv, message):
    if "overwrites" in message:
        (tmp_path / "test_mine_x.py").write_text("# mine\n", encoding="utf-8")
    status, _, err = new(capsys, monkeypatch, tmp_path, *argv[1:])
    assert status == 2, err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "mine_x.py").exists()
    if "overwrites" in message:
        assert (tmp_path / "test_mine_x.py").read_text(encoding="utf-8") == "# mine\n"


def test_new_has_an_example_in_its_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["new", "--help"])
    assert exit_.value.code == 0 and "theorycheck new frequency mypaper.lemma1" in capsys.readouterr().out


@pytest.mark.parametrize(("line", "message"), [
    ("budget = None", "norm = 'l1' checks |y| ≤ B, and B is not a parameter; a claim outside that setting sets "
                      "norm = None"),
    ("norm = None", "the attribute budget 'k' is not a parameter; a claim without an attribute budget sets "
                    "budget = None"),
])
def test_a_frequency_claim_outside_the_papers_setting_is_told_what_to_declare(tmp_path, line, message):
    (tmp_path / "half.py").write_text(
        "import theorycheck\nfrom theorycheck.claims import register\n"
        "from theorycheck.kinds.frequency import ViolationFrequency\n"
        "theorycheck.declare_paper('half', 'Doe (2027), Half')\n"
        "@register\nclass Half(ViolationFrequency):\n"
        f"    id, title, reference, statement = 'half.x', 't', 'r', 's'\n    {line}\n"
        "    base = {'designs': ('a',), 'delta_lemma': 0.1, 'delta': 0.01, 'resolution': 0.0}\n"
        "    profiles = {'quick': {'m': 3, 'repetitions': 2}, 'full': {'m': 3, 'repetitions': 2}}\n",
        encoding="utf-8")
    run = theorycheck(tmp_path, "verify", "half.x", "--claims", "half", "--out", "r", "--quiet")
    assert run.returncode == 2 and message in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert not (tmp_path / "r").exists()


def test_a_skeleton_declares_the_space_its_statement_quantifies_over(tmp_path, capsys, monkeypatch):
    """Each skeleton declares a search space (or, for a rate, why it has none) and `theorycheck show` prints it."""
    for kind in SCAFFOLDS:
        folder = tmp_path / kind
        folder.mkdir()
        assert new(capsys, monkeypatch, folder, kind, "mine.lemma-1")[0] == 0
        source = (folder / "mine_lemma_1.py").read_text(encoding="utf-8")
        assert ("    no_space = " if kind == "rate" else "    space = Space(") in source
    shown = theorycheck(tmp_path / "frequency", "show", "mine.lemma-1", "--claims", "mine_lemma_1", "--out", "r")
    assert shown.returncode == 0, shown.stderr
    assert "- m: integer in [10, 1000], log scale" in shown.stdout and "- delta_lemma: real in" in shown.stdout
