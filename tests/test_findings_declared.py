"""Every finding of the papers' experiments, with the side it is on (deciding or reported), the question it
asks (direction, magnitude, or a non-inferiority or equivalence), its ε and where ε comes from (printed:
derived from the paper's numbers; convention: this project's), and its estimand, as declared. The listing is
the test: a finding that changes side, question, margin or estimand changes this file too, in the same commit,
where a reviewer sees it; no finding is on one side on one profile and on the other on another; every
experiment claim and every one of its findings is listed; and no magnitude decides on a conventional ε
(issue 53: a non-reproduction never rests on a convention alone). Declarations only: nothing runs."""

from __future__ import annotations

import math

import pytest

from theorycheck.claims import built_in, discover
from theorycheck.kinds.comparison import Equivalent, Grows, LearningCurves, Ordered, PairedComparison
from theorycheck.kinds.ensemble import BudgetTables
from theorycheck.kinds.reproduction import RealDataExperiment

D, R = "decides", "reported"
DIR, MAG, NI, EQ = "direction", "magnitude", "non-inferior", "equivalent"
P, C = "printed", "convention"
#: the ε of a finding whose ε is derived per row of a printed table (reyzin11's Table 5: half of each row's gap)
ROW = "per row"
_LOG = {"ridge-lasso": math.log(0.222 / 0.110), "aer-lasso": math.log(0.320 / 0.222),
        "aer-baseline": math.log(0.812 / 0.320), "ten": math.log(10.0)}

#: (claim, finding) -> (side, question, ε, ε's source, statistic)
DECLARED = {
    ("cbss11.exp-mnist", "Ridge < Lasso"): (D, MAG, _LOG["ridge-lasso"], P, "median"),
    ("cbss11.exp-mnist", "AER not much worse than Lasso"): (D, NI, _LOG["aer-lasso"], P, "median"),
    ("cbss11.exp-mnist", "AER < Baseline"): (D, MAG, _LOG["aer-baseline"], P, "median"),
    ("hk12.exp-mnist", "Figure 1: AELR < AER"): (D, DIR, 0.1, C, "t"),
    ("hk12.exp-mnist", "Figure 1: AELR < AER, by 10%"): (R, MAG, 0.1, C, "t"),
    ("hk12.exp-mnist", "Figure 1: AELR < AER, below the papers' sizes"): (R, DIR, 0.1, C, "t"),
    ("hk12.exp-mnist", "Figure 2: AERR < AER"): (D, DIR, 0.1, C, "t"),
    ("hk12.exp-mnist", "Figure 2: AERR < AER, by 10%"): (R, MAG, 0.1, C, "t"),
    ("hk12.exp-mnist", "AELR almost 10 times better than online Lasso"): (D, MAG, _LOG["ten"], P, "t"),
    ("ks15.exp-mnist", "Figure 3: DDAERR < AERR"): (D, DIR, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 3: DDAERR < AERR, by 10%"): (R, MAG, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 3: DDAERR < AERR, below the papers' sizes"): (R, DIR, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 3: DDAERR ≤ Two-Phased"): (R, DIR, 0.05, C, "t"),
    ("ks15.exp-mnist", "Figure 3: Two-Phased ≤ AERR"): (R, DIR, 0.05, C, "t"),
    ("ks15.exp-mnist", "Figure 3: DDAERR similar to online Ridge"): (R, EQ, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 3: DDAERR < online Ridge at the smallest budget"): (D, DIR, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 4: DDAELR < AELR"): (D, DIR, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 4: DDAELR < AELR, by 10%"): (R, MAG, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 4: DDAELR < AELR, below the papers' sizes"): (R, DIR, 0.1, C, "t"),
    ("ks15.exp-mnist", "Figure 4: DDAELR ≤ Two-Phased"): (R, DIR, 0.05, C, "t"),
    ("ks15.exp-mnist", "Figure 4: Two-Phased ≤ AELR"): (R, DIR, 0.05, C, "t"),
    ("ks15.exp-mnist", "Figure 4: DDAELR comparable with online Lasso"): (R, NI, 0.1, C, "t"),
    **{("ks15.exp-mnist", f"Figure 4: DDAELR's variance smaller than {who}'s"): (R, DIR, 1e-3, C, "variance")
       for who in ("AELR", "Two-Phased DDAELR", "online Lasso", "offline Lasso")},
    # ks15.fig1 (Ridge) and ks15.fig2 (Lasso) declare the same findings: see _FIGURES below
    ("ks15.fewer-attributes", "ρ_Ridge ≤ rho_small"): (D, DIR, 1.0, C, "median"),
    ("ks15.fewer-attributes", "ρ_Ridge > rho_small"): (R, DIR, 1.0, C, "median"),
    ("sk13.exp", "Full vs a baseline"): (D, DIR, None, C, "t"),
    ("sk13.exp", "Full vs Scoring"): (R, DIR, None, C, "t"),
    ("sk13.exp", "small sample: Full vs Scoring"): (R, DIR, None, C, "t"),
    ("sk13.exp", "Fig. 8"): (R, DIR, None, C, "t"),
    ("reyzin11.deterministic", "who wins, per data set and budget"): (R, DIR, 0.01, C, "median"),
    # reyzin11: by data set kind (the paper's data, a stand-in rebuilt from MNIST, no counterpart)
    **{("reyzin11.table6", f"{{data}}, B = {B}: every-draw τ within ±1.5 of Table 6 [paper's data]"): (
        D, EQ, 1.5, C, "median") for B in (11, 21)},
    ("reyzin11.table6", "{data}, B = 11: every-draw τ within ±1.5 of Table 6 [stand-in]"): (R, EQ, 1.5, C, "median"),
    ("reyzin11.table6", "{data}, B = 21: every-draw τ within ±1.5 of Table 6 [stand-in]"): (R, EQ, 1.5, C, "median"),
    ("reyzin11.table6", "{data}, B = 11: Algorithm 2 as printed takes more than the published τ + 1.5 samples "
                        "[paper's data]"): (D, DIR, 0.1, C, "median"),
    ("reyzin11.table6", "{data}, B = 21: Algorithm 2 as printed takes more than the published τ + 1.5 samples "
                        "[paper's data]"): (D, DIR, 0.1, C, "median"),
    ("reyzin11.table6", "{data}, B = 11: Algorithm 2 as printed takes more than the published τ + 1.5 samples "
                        "[stand-in]"): (R, DIR, 0.1, C, "median"),
    ("reyzin11.table6", "{data}, B = 21: Algorithm 2 as printed takes more than the published τ + 1.5 samples "
                        "[stand-in]"): (R, DIR, 0.1, C, "median"),
}
_EXP = "reyzin11.exp"
for kind in ("paper's data", "stand-in", "no counterpart"):
    DECLARED[(_EXP, f"{{data}}, B = 11: features examined within ±1.5 of Table 6's mean τ [{kind}]")] = (
        D, EQ, 1.5, C, "median")
    for B in (10, 20, 21):
        DECLARED[(_EXP, f"{{data}}, B = {B}: features examined within ±1.5 of Table 6's mean τ [{kind}]")] = (
            R, EQ, 1.5, C, "median")
    DECLARED[(_EXP, f"{{data}}: AdaBoostRS's features examined are closer to the paper's τ at B = 11 than at "
                    f"B = 10 [{kind}]")] = (D, DIR, 0.1, C, "median")
    DECLARED[(_EXP, f"{{data}}: the same at B = 21 against B = 20 [{kind}]")] = (R, DIR, 0.1, C, "median")
    for B in (11, 21):
        DECLARED[(_EXP, f"{{data}}, B = {B}: AdaBoostRS_AC takes more samples than AdaBoostRS [{kind}]")] = (
            D, DIR, 0.1, C, "median")  # τ_AC has no finite mean: E[1/c] is infinite for U[0, 1] costs
        paper = kind != "no counterpart"
        DECLARED[(_EXP, f"{{data}}, B = {B}: AdaBoostRS_AC errs less than AdaBoostRS (Table 5) [{kind}]")] = (
            (D, MAG, ROW, P, "t") if paper else (R, MAG, 0.005, C, "t"))
    DECLARED[(_EXP, f"{{data}}: AdaBoostRS's error within 10% of AdaBoost's after tau_max draws [{kind}]")] = (
        (D, NI, ROW, P, "mean") if kind != "no counterpart" else (R, NI, ROW, P, "mean"))
for paper_kind in ("paper's data", "stand-in"):
    for B in (10, 11, 20, 21):
        for who in ("AdaBoostRS", "AdaBoostRS_AC"):
            DECLARED[(_EXP, f"{{data}}, B = {B}: {who}'s τ within ±1.5 of Table 6 [{paper_kind}]")] = (
                R, EQ, 1.5, C, "median")

#: ks15 §5.1's two figures: one set of findings, declared once for both
_FIGURES = {
    "dd ≈ uniform": (D, EQ, 0.1, C, "t"), "dd over uniform grows": (D, DIR, 0.05, C, "t"),
    "dd over uniform, α = -2": (D, DIR, 0.1, C, "t"), "dd over uniform, α = -2, size": (R, MAG, 0.1, C, "t"),
    "two_phase over uniform, α = -1": (D, DIR, 0.05, C, "t"), "two_phase over uniform, α = -2": (D, DIR, 0.05, C, "t"),
    "two_phase over uniform, α = -0.5": (R, DIR, 0.05, C, "t"),
    **{f"dd over two_phase, α = {a}": (R, DIR, 0.05, C, "t") for a in ("-0.5", "-1", "-2")},
}
DECLARED.update({(cid, key): value for cid in ("ks15.fig1", "ks15.fig2") for key, value in _FIGURES.items()})

EXPERIMENTS = (RealDataExperiment, LearningCurves, PairedComparison, BudgetTables)


def _question(relation: str, question: str) -> str:
    return question if relation == "superior" else relation


def _data_kind(name: str) -> str:
    from simulations.reyzin11 import STANDS_FOR

    return "paper's data" if name in ("census", "splice") else "stand-in" if STANDS_FOR.get(name) else "no counterpart"


def declared_findings(claim, profile: str) -> dict[str, tuple]:
    """The findings of one claim on one profile, as (side, question, ε, source, statistic) by the keys of
    DECLARED; a key that occurs several times (a finding at several prefixes, panels or data sets) must be
    on one side each time."""
    p = claim.profile(profile)
    out: dict[str, set] = {}

    def add(key, side, question, margin, source, statistic):
        out.setdefault(key, set()).add((side, question, margin, source, statistic))

    if isinstance(claim, RealDataExperiment):
        paper = {i for i, m in enumerate(p["prefixes"]) if m >= 500}
        for f in claim.findings(p):
            if not f.at:
                continue
            small = f.scope == "curve" and f.at != (-1,) and not set(f.at) & paper
            key = f.label + (", below the papers' sizes" if small else "")
            add(key, D if f.decides else R, _question(f.relation, f.question), f.margin, f.source,
                f.kind_of_estimate)
    elif isinstance(claim, LearningCurves):
        for f in claim.findings(p):
            side = D if f.decides else R
            if isinstance(f, Equivalent):
                add(f"{f.a} ≈ {f.b}", side, EQ, f.margin, f.source, claim.statistic)
            elif isinstance(f, Grows):
                add(f"{f.better} over {f.worse} grows", side, DIR, f.margin, f.source, claim.statistic)
            else:
                assert isinstance(f, Ordered)
                for panel in f.panels:
                    size = ", size" if f.question == MAG else ""
                    add(f"{f.better} over {f.worse}, {panel}{size}", side, _question(f.relation, f.question),
                        f.margin, f.source, claim.statistic)
    elif isinstance(claim, PairedComparison):
        for s in claim.settings(p):
            label = s.get("label", "")
            if claim.id == "ks15.fewer-attributes":
                key = "ρ_Ridge ≤ rho_small" if s["rho"] <= p["rho_small"] else "ρ_Ridge > rho_small"
                margin = p["margin"]
            elif claim.id == "reyzin11.deterministic":
                key, margin = "who wins, per data set and budget", p["margin"]
            else:
                key = ("Fig. 8" if label.startswith("Fig. 8") else "small sample: Full vs Scoring"
                       if label.startswith("small") else "Full vs Scoring" if label.endswith("Scoring")
                       else "Full vs a baseline")
                margin = None
            add(key, D if s.get("decides", True) else R, _question(s.get("relation", claim.relation),
                                                                   s.get("question", claim.question)),
                margin, s.get("source", C), claim.statistic)
    elif isinstance(claim, BudgetTables):
        for pt in claim.points(p):
            name = pt["dataset"]
            what = ("features examined within ±1.5 of Table 6's mean τ" if pt["table"] == "features"
                    else "every-draw τ within ±1.5 of Table 6" if claim.id == "reyzin11.table6"
                    else f"{pt['algorithm']}'s τ within ±1.5 of Table 6")
            add(f"{{data}}, B = {pt['budget']:g}: {what} [{_data_kind(name)}]", D if pt.get("decides", True) else R,
                EQ, pt.get("tolerance", claim.tolerance), pt.get("source", C), "median")
        for f in claim.paired(p):
            label = f["label"].replace(f["dataset"], "{data}", 1)
            add(f"{label} [{_data_kind(f['dataset'])}]", D if f.get("decides", True) else R,
                _question(f.get("relation", "superior"), f.get("question", DIR)), f["margin"], f.get("source", C),
                f.get("statistic", "median"))
        if claim.id == _EXP:
            for label, table, margin, decides in claim.error_findings(p):
                name = table.split(":")[1]
                add(f"{label.replace(name, '{data}', 1)} [{_data_kind(name)}]", D if decides else R, MAG,
                    ROW if decides else margin, P if decides else C, "t")
            for name in p["datasets"]:  # (e): decided where Table 3 has a counterpart
                from simulations.reyzin11 import STANDS_FOR

                add(f"{{data}}: AdaBoostRS's error within 10% of AdaBoost's after tau_max draws [{_data_kind(name)}]",
                    D if STANDS_FOR.get(name) else R, NI, ROW, P, "mean")
    for key, sides in out.items():
        assert len(sides) == 1, f"{claim.id} {key!r} on {profile}: on several sides {sides}"
    return {key: next(iter(sides)) for key, sides in out.items()}


EMPIRICAL = sorted({cid for cid, _ in DECLARED})


def test_every_experiment_claim_is_listed():
    """A claim of an experiment kind that this file does not list fails: its findings are not declared here."""
    experiments = {cid for cid, c in discover().items() if isinstance(c, EXPERIMENTS) and built_in(c)}
    assert experiments - set(EMPIRICAL) == set(), experiments - set(EMPIRICAL)


@pytest.mark.parametrize("claim_id", EMPIRICAL)
def test_every_finding_is_declared_on_one_side_the_same_on_every_profile(claim_id):
    claim = discover()[claim_id]
    expected = {f: v for (cid, f), v in DECLARED.items() if cid == claim_id}
    seen: dict[str, tuple] = {}
    for profile in ("quick", "full"):
        found = declared_findings(claim, profile)
        for key, value in found.items():
            assert key in expected, f"{claim_id}: an undeclared finding {key!r} {value} on {profile}"
            assert value == pytest.approx(expected[key]) if all(isinstance(v, float) for v in (value[2],
                                                                                               expected[key][2])) \
                else value == expected[key], f"{claim_id} {key!r} on {profile}: {value}, declared {expected[key]}"
            assert seen.setdefault(key, value) == value
    missing = set(expected) - set(seen)
    assert not missing, f"{claim_id}: declared here but not run on quick or full: {missing}"


@pytest.mark.parametrize("claim_id", EMPIRICAL)
def test_no_magnitude_decides_on_a_conventional_epsilon(claim_id):
    """A magnitude decides only with an ε derived from the paper's printed numbers: a non-reproduction never
    rests on a convention alone (the declarations refuse it too; this reads what each profile declares)."""
    claim = discover()[claim_id]
    for profile in ("quick", "full"):
        for key, (side, question, _, source, _) in declared_findings(claim, profile).items():
            assert not (side == D and question == MAG and source != P), f"{claim_id} {key!r} on {profile}"


@pytest.mark.parametrize("claim_id", [c for c in EMPIRICAL if isinstance(discover()[c], RealDataExperiment)])
def test_the_real_data_findings_cite_the_paper_and_say_why(claim_id):
    claim = discover()[claim_id]
    for profile in ("quick", "full"):
        for f in claim.findings(claim.profile(profile)):
            assert f.paper.strip(), f"{claim_id} {f.label}: which words of the paper does it read?"
            assert f.sentence.strip().startswith(("§", "none")), f"{claim_id} {f.label}: its section and line?"
            assert f.why.strip(), f"{claim_id} {f.label}: why this side, question and ε?"
            if f.source == P:
                assert f.derivation.strip(), f"{claim_id} {f.label}: how does ε follow from the printed numbers?"


def test_a_magnitude_with_a_conventional_epsilon_cannot_be_declared_to_decide():
    from theorycheck.kinds.reproduction import Ordering

    with pytest.raises(ValueError, match="conventional"):
        Ordering("x", "a", "b", margin=0.1, question=MAG, source=C)
    with pytest.raises(ValueError, match="printed"):
        Ordered("a", "b", ("p",), margin=0.1, question=MAG)
    Ordering("x", "a", "b", margin=0.1, question=MAG, source=C, decides=False, why="reported")  # may report


def test_a_finding_record_carries_sentence_question_epsilon_source_and_estimand():
    """The results JSON of a finding: the paper's sentence, its question, ε with its source and derivation,
    the estimand, and the median beside a decided mean."""
    import numpy as np

    from theorycheck import stats
    from theorycheck.kinds.comparison import finding_record

    values = np.random.default_rng(0).normal(0.3, 0.1, 30)
    res = stats.decide_sequential(values, stats.SUPERIOR, 0.1, 0.01, (30,), statistic="t")
    record = finding_record("f", res, stats.SUPERIOR, 0.1, True, statistic="t", sentence="§5, line 372",
                            source=P, derivation="ε = log 10", beside=stats.median_interval(values, 0.01))
    assert (record["sentence"], record["question"], record["margin"], record["epsilon_source"]) == (
        "§5, line 372", DIR, 0.1, P)
    assert record["estimand"] == stats.ESTIMANDS["t"] and record["outcome"] == stats.REPRODUCED
    assert record["beside"]["low"] < record["beside"]["estimate"] < record["beside"]["high"]
