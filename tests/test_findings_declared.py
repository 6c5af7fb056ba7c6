"""Every finding of the papers' experiments, with the side it is on (deciding or reported), the question
it asks (direction or magnitude) and its ε, as declared. The listing is the test: a finding that changes
side, question or margin changes this file too, in the same commit, where a reviewer sees it; and no
finding is on one side on one profile and on the other on another."""

from __future__ import annotations

import pytest

from theorycheck.claims import discover
from theorycheck.kinds.comparison import Grows, LearningCurves, Ordered, PairedComparison
from theorycheck.kinds.reproduction import RealDataExperiment

D, R = "decides", "reported"
DIR, MAG = "direction", "magnitude"

#: (claim, finding) -> (side, question, ε); for a setting-wise comparison the finding is the setting's label
#: pattern (its budget or α varies by profile, its rule does not)
DECLARED = {
    ("cbss11.exp-mnist", "Ridge < Lasso"): (D, MAG, 0.1),
    ("cbss11.exp-mnist", "Lasso < AER"): (D, MAG, 0.1),
    ("cbss11.exp-mnist", "AER < Baseline"): (D, MAG, 0.25),
    ("hk12.exp-mnist", "Figure 1: AELR < AER"): (D, MAG, 0.1),
    ("hk12.exp-mnist", "Figure 1: AELR < AER, below the papers' sizes"): (R, MAG, 0.1),
    ("hk12.exp-mnist", "Figure 2: AERR < AER"): (D, MAG, 0.1),
    ("ks15.exp-mnist", "Figure 3: DDAERR < AERR"): (D, MAG, 0.1),
    ("ks15.exp-mnist", "Figure 3: DDAERR < AERR, below the papers' sizes"): (R, MAG, 0.1),
    ("ks15.exp-mnist", "Figure 3: DDAERR ≤ Two-Phased"): (R, DIR, 0.05),
    ("ks15.exp-mnist", "Figure 3: Two-Phased ≤ AERR"): (R, DIR, 0.05),
    ("ks15.exp-mnist", "Figure 4: DDAELR < AELR"): (D, MAG, 0.1),
    ("ks15.exp-mnist", "Figure 4: DDAELR < AELR, below the papers' sizes"): (R, MAG, 0.1),
    ("ks15.exp-mnist", "Figure 4: DDAELR ≤ Two-Phased"): (R, DIR, 0.05),
    ("ks15.exp-mnist", "Figure 4: Two-Phased ≤ AELR"): (R, DIR, 0.05),
    # ks15.fig1 (Ridge) and ks15.fig2 (Lasso) declare the same findings: see _FIGURES below
    ("ks15.fewer-attributes", "ρ_Ridge ≤ rho_small"): (D, DIR, 1.0),
    ("ks15.fewer-attributes", "ρ_Ridge > rho_small"): (R, DIR, 1.0),
    ("sk13.exp", "Full vs a baseline"): (D, DIR, None),
    ("sk13.exp", "Full vs Scoring"): (R, DIR, None),
    ("sk13.exp", "small sample: Full vs Scoring"): (R, DIR, None),
    ("sk13.exp", "Fig. 8"): (R, DIR, None),
}
#: ks15 §5.1's two figures: one set of findings, declared once for both
_FIGURES = {
    "coincide": (D, "equivalent", 0.1), "grows": (D, DIR, 0.05), "significant": (D, MAG, 0.1),
    "dd over two-phase, α = -2": (D, MAG, 0.05), "dd over two-phase, α = -1": (R, MAG, 0.05),
    "dd over two-phase, α = -0.5": (R, MAG, 0.05), "two-phase over uniform, α = -1": (D, MAG, 0.05),
    "two-phase over uniform, α = -2": (D, MAG, 0.05), "two-phase over uniform, α = -0.5": (R, MAG, 0.05),
}
DECLARED.update({(cid, key): value for cid in ("ks15.fig1", "ks15.fig2") for key, value in _FIGURES.items()})


def _curves_key(claim, f) -> str:
    if isinstance(f, Ordered):
        if f.better == "dd" and f.worse == "uniform":
            return "significant"
        return "dd over two-phase" if f.better == "dd" else "two-phase over uniform"
    return "grows" if isinstance(f, Grows) else "coincide"


def declared_findings(claim, profile: str) -> dict[str, tuple]:
    """The findings of one claim on one profile, as (side, question, ε) by the keys of DECLARED; a key that
    occurs several times (a finding at several prefixes or panels) must be on one side each time."""
    p = claim.profile(profile)
    out: dict[str, set] = {}

    def add(key, side, question, margin):
        out.setdefault(key, set()).add((side, question, margin))

    if isinstance(claim, RealDataExperiment):
        paper = {i for i, m in enumerate(p["prefixes"]) if m >= 500}
        for f in claim.findings(p):
            if not f.at:
                continue
            small = f.scope == "curve" and f.at != (-1,) and not set(f.at) & paper
            key = f.label + (", below the papers' sizes" if small else "")
            add(key, D if f.decides else R, f.question, f.margin)
    elif isinstance(claim, LearningCurves):
        for f in claim.findings(p):
            question = "equivalent" if not isinstance(f, Ordered | Grows) else getattr(f, "question", DIR)
            key = _curves_key(claim, f)
            if key in ("dd over two-phase", "two-phase over uniform"):
                for panel in f.panels:  # decided in the panels the profile names, reported in the others
                    add(f"{key}, {panel}", D if f.decides else R, question, f.margin)
            else:
                add(key, D if f.decides else R, question, f.margin)
    elif isinstance(claim, PairedComparison):
        for s in claim.settings(p):
            label = s.get("label", "")
            if claim.id == "ks15.fewer-attributes":
                key = "ρ_Ridge ≤ rho_small" if s["rho"] <= p["rho_small"] else "ρ_Ridge > rho_small"
                margin = p["margin"]
            else:
                key = ("Fig. 8" if label.startswith("Fig. 8") else "small sample: Full vs Scoring"
                       if label.startswith("small") else "Full vs Scoring" if label.endswith("Scoring")
                       else "Full vs a baseline")
                margin = None
            add(key, D if s.get("decides", True) else R, s.get("question", claim.question), margin)
    for key, sides in out.items():
        assert len(sides) == 1, f"{claim.id} {key!r} on {profile}: on both sides {sides}"
    return {key: next(iter(sides)) for key, sides in out.items()}


EMPIRICAL = sorted({cid for cid, _ in DECLARED})


@pytest.mark.parametrize("claim_id", EMPIRICAL)
def test_every_finding_is_declared_on_one_side_the_same_on_every_profile(claim_id):
    claim = discover()[claim_id]
    expected = {f: v for (cid, f), v in DECLARED.items() if cid == claim_id}
    seen: dict[str, tuple] = {}
    for profile in ("quick", "full"):
        found = declared_findings(claim, profile)
        for key, value in found.items():
            assert key in expected, f"{claim_id}: an undeclared finding {key!r} {value} on {profile}"
            assert value == expected[key], f"{claim_id} {key!r} on {profile}: {value}, declared {expected[key]}"
            assert seen.setdefault(key, value) == value
    assert set(seen) == set(expected), (claim_id, set(expected) - set(seen))  # each runs on quick or on full


@pytest.mark.parametrize("claim_id", [c for c in EMPIRICAL if isinstance(discover()[c], RealDataExperiment)])
def test_the_real_data_findings_say_why_and_quote_the_paper(claim_id):
    claim = discover()[claim_id]
    for profile in ("quick", "full"):
        for f in claim.findings(claim.profile(profile)):
            assert f.paper.strip(), f"{claim_id} {f.label}: which words of the paper does it read?"
            assert f.why.strip(), f"{claim_id} {f.label}: why this side, question and ε?"
