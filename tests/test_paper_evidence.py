"""Each regression bound states its loss convention and what the other convention would give;
pages show the evidence of the paper errata found."""

import re

import pytest

from tests.conftest import run_quick


@pytest.mark.parametrize(("claim_id", "factor"), [("hk12.thm3.1", 2.0), ("hk12.thm3.4", 2.0)])
def test_hk12_bounds_report_the_doubled_convention(claim_id, factor, tmp_path, shared_runs):
    record = run_quick(claim_id, tmp_path, shared_runs)
    note = record["notes"][0]
    assert note.startswith("Loss convention: hk12's ½")
    other, ours = map(float, re.search(r"observed/bound ([\d.e+-]+) instead of ([\d.e+-]+?)\.?$", note).groups())
    assert other == pytest.approx(factor * ours, rel=1e-2)


def test_cbss11_thm12_reports_the_halved_convention(tmp_path, shared_runs):
    record = run_quick("cbss11.thm12", tmp_path, shared_runs)
    assert record["notes"][0].startswith("Loss convention: cbss11's (⟨w, x⟩ − y)²")


def test_lemma8_page_shows_figure_1_as_printed_is_biased(tmp_path, shared_runs):
    record = run_quick("cbss11.lemma8", tmp_path, shared_runs)
    assert record["verdict"] == "PASS"
    note = record["errata_evidence"]["figure1-constants"]
    counts = re.findall(r"a violation in (\d+) of (\d+) repetitions", note)
    assert len(counts) == len(record["params"]["designs"])
    assert all(int(v) == int(n) == record["params"]["repetitions"] for v, n in counts)
