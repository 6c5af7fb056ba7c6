"""Tests of the lower-bound experiments: the kind AttributesNeeded and the claims cbss11.thm1 and
hk12.thm2.2 (simulations/cbss11_lower_bound.py, simulations/hk12_lower_bound.py). The planted defects
run in tests/test_power.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from theorycheck.bounds.lower_bounds import cbss11_horizon, cbss11_thm1_attributes
from theorycheck.claims import discover
from theorycheck.kinds.lower_bound import AttributesNeeded
from theorycheck.validation import ParameterError


@pytest.fixture(scope="module")
def thm1():
    return discover()["cbss11.thm1"]


@pytest.fixture(scope="module")
def thm22():
    return discover()["hk12.thm2.2"]


def test_levels_are_geometric_and_capped(thm1):
    p = {**thm1.params_for("quick"), "m_start": 2, "m_ratio": 2.0, "max_cells": 1000}
    assert thm1.levels(p, 10) == [2, 4, 8, 16, 32, 64]
    assert thm1.levels(p, 2000) == [1]  # one example does not fit: the one level allowed
    p["m_ratio"] = 1.1  # ceilings that repeat are dropped, so the levels increase strictly
    levels = thm1.levels(p, 10)
    assert levels == sorted(set(levels)) and levels[-1] <= 100


def _run(rows):
    return pd.DataFrame([{"d": 8, "eps": 0.1, "learner": "a", "repetition": r, "rate": True, "level": lv,
                          "attributes": a, "success": s} for r, lv, a, s in rows])


def test_first_passage_stays_and_brackets():
    table = _run([(0, 0, 10, False), (0, 1, 20, True), (0, 2, 40, False), (0, 3, 80, True), (0, 4, 160, True),
                  (1, 0, 10, True), (1, 1, 20, True),
                  (2, 0, 10, False), (2, 1, 20, False)])
    runs = AttributesNeeded.first_passage(table).set_index("repetition")
    # run 0 is good at level 1, bad again at level 2: its first passage is level 3 (40, 80]
    assert runs.loc[0, "reached"] and runs.loc[0, "count"] == 80 and runs.loc[0, "below"] == 40
    assert runs.loc[1, "count"] == 10 and runs.loc[1, "below"] == 0
    assert not runs.loc[2, "reached"] and math.isnan(runs.loc[2, "count"]) and runs.loc[2, "last"] == 20


@pytest.mark.parametrize("d, eps", [(6, 0.06), (16, 1 / 32), (64, 1 / 20), (2048, 1 / 32), (4096, 1 / 8192)])
def test_violation_probability_is_the_proofs(thm1, d, eps):
    """P(success with fewer than T/2 attributes) ≤ 2(1/d + √(−(T/d)·ln(1 − 4ε))), and the relaxation
    −ln(1 − q) ≤ 3q/2 of (14) puts it under ½ + 2/d (so the printed bound follows for a learner that
    always succeeds)."""
    p = thm1.params_for("quick")
    T = cbss11_horizon(d, eps)
    assert thm1.bound(p, d, eps) == float(cbss11_thm1_attributes(d, eps)) == T / 2
    expected = 2 * (1 / d + math.sqrt(-(T / d) * math.log(1 - 4 * eps)))
    assert thm1.violation_probability(p, d, eps) == pytest.approx(expected, rel=1e-12)
    assert expected <= 0.5 + 2 / d


def test_violation_probability_without_a_horizon(thm1):
    assert cbss11_horizon(4, 0.06) == 0 and thm1.violation_probability({}, 4, 0.06) == 1.0


def test_success_needs_identification(thm1):
    design = thm1.subjects["instance"](d=32, eps=1 / 32, seed=3)
    w = design.w_star.copy()
    assert thm1.success({}, design, 1 / 32, w, design.excess_risk(w))
    assert not thm1.success({}, design, 1 / 32, np.zeros(32), design.excess_risk(np.zeros(32)))


def test_hk12_target_is_half_the_trivial_excess(thm22):
    design = thm22.subjects["instance"](d=64, eps=0.25, seed=1)
    trivial = thm22.excess({}, design, np.zeros(64))
    assert trivial == pytest.approx(2 * 0.25 - 0.25**2)
    # a·r_T has excess (1 − a)² − (1 − ε)²; it succeeds iff that is ≤ (2ε − ε²)/2
    for a, ok in ((0.05, False), (0.25, True)):
        w = a * design.signed_support
        assert thm22.success({}, design, 0.25, w, thm22.excess({}, design, w)) is ok


def test_rate_repetitions_cannot_exceed_repetitions(thm1):
    with pytest.raises(ParameterError):
        thm1.params_for("quick", {"rate_repetitions": "30"})


def test_tightness_is_the_smallest_mean_first_passage_over_the_bound(thm1):
    """The page's observed/bound: per (point, learner) the mean first-passage count over the rate runs divided by
    the bound, the smallest over the pairs where every run reached ε (a mean, never the luckiest run)."""
    import pandas as pd

    p = {**thm1.params_for("quick"), "learners": ("search", "bandit"), "d_grid": (16, 32, 64), "eps_grid": (0.03125,),
         "d": 16, "tight_d": 16, "tight_eps": 0.03125, "extra_eps": ()}
    rows = []
    # (learner, d, [(attributes, success) per level] per run): first passages 50 and 30 (mean 40) for search at
    # d = 16; bandit at d = 32 reaches in one run only (no mean); at d = 64 it reaches in both (60, 100: mean 80)
    runs = [("search", 16, [[(10, False), (50, True), (90, True)], [(30, True), (60, True)]]),
            ("bandit", 32, [[(20, True)], [(20, False), (40, False)]]),
            ("bandit", 64, [[(60, True), (70, True)], [(40, False), (100, True)]])]
    for name, d, paths in runs:
        for rep, levels in enumerate(paths):
            rows += [{"d": d, "eps": 0.03125, "repetition": rep, "rate": True, "learner": name, "level": lv,
                      "m": lv + 1, "attributes": a, "excess": 0.0, "success": ok, "violation": False}
                     for lv, (a, ok) in enumerate(levels)]
    rows += [{"d": d, "eps": 0.03125, "repetition": 0, "rate": False, "learner": name, "level": 0, "m": 1,
              "attributes": 100, "excess": 1.0, "success": False, "violation": False}  # the bound tests need a run
             for name, d in (("search", 32), ("search", 64), ("bandit", 16))]
    evidence = thm1.decide(p, pd.DataFrame(rows))
    candidates = [(40 / thm1.bound(p, 16, 0.03125), 40.0), (80 / thm1.bound(p, 64, 0.03125), 80.0)]
    ratio, observed = min(candidates)
    assert evidence.ratio == pytest.approx(ratio) and evidence.observed == pytest.approx(observed)
    summary = evidence.summary.dropna(subset=["over_bound"])
    # search at d = 16 lies on all three paths (d at ε = 1/32, 1/ε at d = 16, the tightness point)
    assert sorted(zip(summary["learner"], summary["d"], strict=True)) == [("bandit", 64)] + [("search", 16)] * 3


def test_small_run_end_to_end(run_claim):
    record = run_claim("cbss11.thm1", learners="bandit", d_grid="8,16,32", eps_grid="0.05,0.03125,0.02",
                       d="16", extra_eps="0.03125", extra_d="64", repetitions="20", rate_repetitions="3")
    assert record["verdict"] == "PASS"
    assert "bandit: fitted exponents" in " ".join(record["notes"])


def test_hk12_small_run_end_to_end(run_claim):
    record = run_claim("hk12.thm2.2", learners="full", d_grid="16,32,64", eps_grid="0.5,0.35355339059327373,0.25",
                       d="16", eps="0.5", repetitions="3", rate_repetitions="3", k="4")
    assert record["verdict"] == "INCONCLUSIVE"  # only aerr's slopes are decided, and aerr is not run
    assert "full: fitted exponents" in " ".join(record["notes"])
