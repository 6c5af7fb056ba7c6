"""The sk13 claims: declarations, profiles and their quick verdicts (the planted defects run in
tests/test_power.py)."""

from __future__ import annotations

import pytest

from theorycheck.claims import discover

IDS = ("sk13.eq1", "sk13.lemmaA.2", "sk13.varest", "sk13.thm3.1", "sk13.thm3.2", "sk13.makepsd", "sk13.invariance",
       "sk13.exp")


@pytest.mark.parametrize("claim_id", IDS)
def test_declared_with_profiles_and_defects(claim_id):
    claim = discover()[claim_id]
    for profile in ("quick", "full"):
        claim.params_for(profile)
    assert any(d.caught for d in claim.defects)
    assert all(d.subjects and all(s.startswith("tests.defects_sk13:") or ":" in s for s in d.subjects.values())
               for d in claim.defects)


@pytest.mark.parametrize("claim_id", ("sk13.eq1", "sk13.lemmaA.2", "sk13.thm3.2", "sk13.makepsd", "sk13.varest",
                                      "sk13.invariance"))
def test_quick_verdict_passes(claim_id, run_claim):
    assert run_claim(claim_id)["verdict"] == "PASS"


def test_thm32_reports_the_full_search(run_claim):
    record = run_claim("sk13.thm3.2", full_instances="4", d_max="2", B_max="3")
    assert any("Full objective" in note for note in record["notes"])


def test_invariance_records_the_erratum_and_the_counterexample(run_claim):
    record = run_claim("sk13.invariance", m_grid="2000", instances="1")
    assert "constant-shift" in record["errata_evidence"]
    assert any("TINY_J" in note and "[2, 0] → [0, 2]" in note for note in record["notes"])
