"""One place per concept: the verdict words, their rules and the exit statuses live in theorycheck/verdicts.py
(the report's templates may spell them); the library's other modules name them through the enum, and the docs,
the command line's help and the API read the same values."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from theorycheck.verdicts import NOT_RUN, ExitCode, Verdict, exit_status, judged, run_exit_status, stopped

ROOT = Path(__file__).resolve().parents[1]
WORDS = {*(v.value for v in Verdict), NOT_RUN}


def verdict_literals(path: Path) -> list[str]:
    """``line: 'WORD'`` for every string literal of ``path`` that is a whole verdict word (docstrings aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [f"{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in WORDS and id(node) not in docstrings]


LIBRARY = sorted(p for p in (ROOT / "theorycheck").rglob("*.py") if p != ROOT / "theorycheck" / "verdicts.py")


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_verdict_word_is_spelt_outside_verdicts_py(path):
    assert verdict_literals(path) == [], "use theorycheck.verdicts.Verdict (or NOT_RUN) instead"


def test_the_rule_catches_a_verdict_literal(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""PASS in a docstring is prose."""\n\ndef f(r):\n    """FAIL here too."""\n'
                     '    return r["verdict"] == "NOT REPRODUCED" or r.get("v", "ERROR") or f"{r}: PASS"\n')
    assert verdict_literals(probe) == ["5: 'NOT REPRODUCED'", "5: 'ERROR'"]


def test_the_verdicts_are_the_words_stored_and_in_the_reports_order():
    assert list(Verdict) == ["PASS", "FAIL", "NOT REPRODUCED", "INCONCLUSIVE", "SUBJECT-ERROR", "ERROR"]
    assert json.dumps({Verdict.SUBJECT_ERROR: [Verdict.NOT_REPRODUCED]}) == '{"SUBJECT-ERROR": ["NOT REPRODUCED"]}'
    assert f"{Verdict.FAIL:<6}|{Verdict.PASS}" == "FAIL  |PASS" and str(Verdict.ERROR) == "ERROR"
    assert f"{ {Verdict.PASS: 13} } {[Verdict.INCONCLUSIVE]}" == "{'PASS': 13} ['INCONCLUSIVE']"  # as decisions print
    assert [v for v in Verdict if v.failed] == [Verdict.FAIL, Verdict.SUBJECT_ERROR, Verdict.ERROR]
    assert all(v.meaning and re.fullmatch(r"#[0-9a-f]{6}", v.colour) and v.marker for v in Verdict)


def test_the_docs_list_the_verdicts_and_exit_codes_of_the_enums():
    text = (ROOT / "docs" / "verdicts.md").read_text(encoding="utf-8")
    table = text.split("## Verdicts", 1)[1].split("\n## ", 1)[0]
    verdicts = re.findall(r"^\| \*\*([A-Z -]+)\*\* \|", table, flags=re.M)
    assert verdicts == [v.value for v in Verdict]
    exits = text.split("## Exit codes", 1)[1]
    codes = {int(c) for c in re.findall(r"^\| (\d+) \|", exits, flags=re.M)}
    assert codes == {int(c) for c in ExitCode}


def test_the_help_prints_every_exit_code_with_its_text():
    from theorycheck.cli import build_parser

    verify = build_parser()._subparsers._group_actions[0].choices["verify"].format_help()
    for code in ExitCode:
        assert re.search(rf"^  {int(code)}  ", verify, flags=re.M), code
        assert " ".join(code.verify.split()[:6]) in " ".join(verify.split()), code


def test_the_exit_status_rules():
    assert run_exit_status([]) == ExitCode.OK
    assert run_exit_status([{"verdict": "PASS"}, {"verdict": "INCONCLUSIVE"}]) == ExitCode.UNDECIDED
    new = {"verdict": "NOT REPRODUCED", "findings": [{"against": True, "recorded": None}]}
    recorded = {"verdict": "NOT REPRODUCED", "findings": [{"against": True, "recorded": "key"}]}
    assert run_exit_status([new, {"verdict": "INCONCLUSIVE"}]) == ExitCode.NOT_REPRODUCED
    assert run_exit_status([recorded]) == ExitCode.OK
    assert run_exit_status([new, {"verdict": "SUBJECT-ERROR"}]) == ExitCode.FAILED
    assert exit_status(["PASS", "INCONCLUSIVE"]) == ExitCode.UNDECIDED and exit_status(["ERROR"]) == ExitCode.FAILED
    assert isinstance(run_exit_status([]), int) and ExitCode.PIPE == 141


def test_the_rules_that_make_a_claims_verdict():
    assert judged("PASS", "held", vacuous=True)[0] == Verdict.INCONCLUSIVE
    verdict, decision = judged("PASS", "held", vacuous=True, vacuous_reason="the statistic is constant")
    assert decision.startswith("No verdict: the instance is vacuous, because the statistic is constant.")
    assert judged("FAIL", "broken", vacuous=True) == (Verdict.FAIL, "broken")  # a vacuous FAIL still fails
    verdict, decision = judged("FAIL", "broken", broken=["‖x‖₂ ≤ 1 (max 1.5)"])
    assert verdict == Verdict.INCONCLUSIVE and "breaks the hypotheses ‖x‖₂ ≤ 1 (max 1.5)" in decision
    assert judged("PASS", "held") == (Verdict.PASS, "held")
    kinds = {kind: stopped(kind, "cause", "trace")[0] for kind in ("conformance", "failure", "subject",
                                                                   "unfinished", "harness")}
    assert kinds == {"conformance": Verdict.FAIL, "failure": Verdict.FAIL, "subject": Verdict.SUBJECT_ERROR,
                     "unfinished": Verdict.ERROR, "harness": Verdict.ERROR}


def test_one_exception_base():
    from theorycheck.errors import ParameterError, TheorycheckError
    from theorycheck.validation import ParameterError as Validation

    assert Validation is ParameterError and issubclass(ParameterError, TheorycheckError)
    assert issubclass(ParameterError, ValueError)  # callers that caught ValueError still do
