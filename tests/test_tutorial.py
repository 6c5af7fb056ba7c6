"""The tutorial's package (tests/tutorial_claims, docs/tutorial.md), installed like a user's package and
found through its entry point: every command treats its two claims like the built-in ones, each PASSes,
each planted defect FAILs, the pages cite its papers, the re-run command works, and a design whose
statistic is constant is flagged vacuous (INCONCLUSIVE, never PASS)."""

import json
import os
import shlex
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

import theorycheck
from theorycheck import CLAIMS_ENTRY_POINTS

IDS = ("hoeffding63.thm2-iw", "zinkevich03.thm1")
CITATIONS = {"hoeffding63": "Hoeffding (JASA 1963), Probability inequalities for sums of bounded random variables",
             "zinkevich03": "Zinkevich (ICML 2003), Online convex programming and generalized infinitesimal "
                            "gradient ascent"}


@pytest.fixture(scope="module", autouse=True)
def installed():
    points = {p.value for p in entry_points(group=CLAIMS_ENTRY_POINTS)}
    assert "tutorial_claims.claims" in points, ("the tutorial's package is not installed: pip install --no-deps -e "
                                                "tests/tutorial_claims (the noxfile's tests session does)")


def theorycheck_cli(folder, *args):
    return subprocess.run([sys.executable, "-m", "theorycheck", *args], cwd=folder, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(folder / "cache")})


def test_the_tutorial_end_to_end_through_the_cli(tmp_path):
    listed = theorycheck_cli(tmp_path, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    ours = {c["id"]: c for c in json.loads(listed.stdout) if c["id"] in IDS}
    assert set(ours) == set(IDS) and {c["citation"] for c in ours.values()} == set(CITATIONS.values())
    shown = theorycheck_cli(tmp_path, "show", "zinkevich03.thm1")
    assert shown.returncode == 0 and "Theorem 1 of Zinkevich (ICML 2003)" in " ".join(shown.stdout.split())

    good = theorycheck_cli(tmp_path, "verify", *IDS, "--out", "good", "--quiet", "--power")
    assert good.returncode == 0 and "2 PASS" in good.stdout, good.stdout + good.stderr
    assert "planted defects run (--power): 3, 3 as declared" in good.stdout
    for claim_id in IDS:
        page = (tmp_path / "good" / f"{claim_id}.html").read_text(encoding="utf-8")
        assert f"of {CITATIONS[claim_id.split('.')[0]]}." in page
        assert "declared, not run" not in page.split("run (--power)", 1)[1].split("</table>", 1)[0]

    bad = theorycheck_cli(tmp_path, "verify", "zinkevich03.thm1", "--out", "bad", "--quiet",
                          "--subject", "learner=tutorial_claims.defects:constant_step")
    assert bad.returncode == 1 and "1 FAIL" in bad.stdout, bad.stdout + bad.stderr
    page = (tmp_path / "bad" / "zinkevich03.thm1.html").read_text(encoding="utf-8")
    rerun = page.split("Re-run this claim alone: <code>", 1)[1].split("</code>", 1)[0]
    again = theorycheck_cli(tmp_path, *shlex.split(rerun)[1:], "--out", "again", "--quiet")
    assert again.returncode == 1 and "1 FAIL" in again.stdout, rerun + again.stdout + again.stderr

    (tmp_path / "bad" / "zinkevich03.thm1.html").unlink()
    assert theorycheck_cli(tmp_path, "report", "--out", "bad").returncode == 0
    assert CITATIONS["zinkevich03"] in (tmp_path / "bad" / "zinkevich03.thm1.html").read_text(encoding="utf-8")
    errata = theorycheck_cli(tmp_path, "errata", "--paper", "hoeffding63", "--out", "good")
    assert errata.returncode == 0, errata.stderr


@pytest.mark.parametrize(("subjects", "verdict"), [
    ({}, "PASS"),
    ({"estimate": "tutorial_claims.defects:unweighted_mean"}, "FAIL"),
])
def test_the_python_api_sees_the_tutorials_claims(subjects, verdict):
    import importlib

    loaded = {name: getattr(importlib.import_module(spec.split(":")[0]), spec.split(":")[1])
              for name, spec in subjects.items()}
    (result,) = theorycheck.verify("hoeffding63.thm2-iw", subjects=loaded)
    assert result.verdict == verdict, result.decision
    assert result.record["citation"] == CITATIONS["hoeffding63"]


def test_a_design_with_a_constant_statistic_is_vacuous(tmp_path):
    """'matched' has p = q and a constant f: every estimate is the same number, whatever the estimator."""
    run = theorycheck_cli(tmp_path, "verify", "hoeffding63.thm2-iw", "--set", "designs=matched,shifted",
                          "--out", "r", "--quiet")
    assert run.returncode == 3 and "1 INCONCLUSIVE" in run.stdout, run.stdout + run.stderr
    assert "vacuous (the statistic is constant)" in run.stdout
    record = json.loads((tmp_path / "r" / "results" / "hoeffding63.thm2-iw.json").read_text(encoding="utf-8"))
    assert record["vacuous"] and "the deviation is constant on matched" in record["vacuous_reason"]
    assert record["decision"].startswith("No verdict: the instance is vacuous, because the deviation is constant")
    assert "- matched: PASS." in record["decision"] and "- shifted: PASS." in record["decision"]  # the test alone
    page = (tmp_path / "r" / "hoeffding63.thm2-iw.html").read_text(encoding="utf-8")
    assert "Vacuous instance.</b> The check could not have failed here: the deviation is constant" in page
    # the defect the claim exists to catch goes unseen on that design alone: it is the same estimate
    alone = theorycheck_cli(tmp_path, "verify", "hoeffding63.thm2-iw", "--set", "designs=matched", "--out", "d",
                            "--quiet", "--subject", "estimate=tutorial_claims.defects:unweighted_mean")
    assert alone.returncode == 3 and "1 INCONCLUSIVE" in alone.stdout, alone.stdout + alone.stderr


def test_a_constant_deviation_above_the_bound_still_fails():
    """Vacuity never hides a violation: an estimator that always answers 1 is off by 0.5 on 'matched' in every
    repetition, a violation with probability one."""
    def always_one(values, weights):
        return 1.0

    (result,) = theorycheck.verify("hoeffding63.thm2-iw", subjects={"estimate": always_one},
                                   params={"designs": ("matched",)})
    assert result.verdict == "FAIL" and result.record["vacuous"], result.decision
    assert "the deviation is constant on matched (deviation 0.5 in all 300 repetitions)" in result.decision


def test_a_frequency_bound_hook_can_read_the_design():
    """``bound(p, design)``: a right-hand side that depends on the design (here W = max p/q of the design itself,
    not the parameter W) is computed per task from the design the task samples."""
    import math

    import numpy as np
    from tutorial_claims.claims import ImportanceHoeffding

    class DesignsOwnW(ImportanceHoeffding):
        def bound(self, p, design):
            return float(design.weights.max()) * math.sqrt(math.log(2 / p["delta_lemma"]) / (2 * p["m"]))

    claim = DesignsOwnW()
    p = claim.params_for("quick", {})
    for task in claim.tasks(p)[:: p["repetitions"]]:
        [row] = claim.measure(p, task, claim.subjects, np.random.SeedSequence(0)).rows
        weights = {"shifted": 2.0, "tilted": 20 / 11}[task["design"]]
        assert row["bound"] == weights * math.sqrt(math.log(2 / p["delta_lemma"]) / (2 * p["m"]))
