"""cbss11 Lemma 7 on the exact kind, and the kind's own decision rules."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pandas as pd

from theorycheck import estimators as est
from theorycheck.kinds.exact import Exact

from . import defects_exact as bad
from . import naive


def test_lemma7_passes_exactly(run_claim, tmp_path):
    record = run_claim("cbss11.lemma7")
    assert record["verdict"] == "PASS" and record["observed"] == 0.0 and record["delta"] is None
    table = pd.read_csv(tmp_path / record["table_file"])
    assert {"random", "ties", "constant"} == set(table["family"])
    cases = sorted(set(zip(table["n"], table["k"], strict=True)))
    assert cases == [(n, k) for n in range(1, 8) for k in range(1, n + 1)]


def test_lemma7_wrong_normaliser_fails(run_claim):
    record = run_claim("cbss11.lemma7", {"subset_average": bad.subset_average_k_plus_1})
    assert record["verdict"] == "FAIL" and "≠ mean_of_f" in record["decision"]


def test_lemma7_distinct_values_defect_is_caught_by_ties(run_claim, tmp_path):
    record = run_claim("cbss11.lemma7", {"subset_average": bad.subset_average_distinct})
    assert record["verdict"] == "FAIL"
    table = pd.read_csv(tmp_path / record["table_file"])
    assert not table[table["family"] == "ties"]["exact_equal"].all()
    assert table[table["family"] == "constant"]["exact_equal"].all()  # one distinct value: still right


def test_lemma7_off_by_a_billionth_at_one_k_is_caught(run_claim):
    def wrong_at_3(values):
        base = sum(values, F(0)) / len(values)
        return base + F(1, 10**9) if len(values) == 3 else base

    assert run_claim("cbss11.lemma7", {"subset_average": wrong_at_3})["verdict"] == "FAIL"


def test_subset_expectation_by_hand():
    f = [F(1), F(2), F(6)]
    for k in (1, 2, 3):
        assert naive.subsets_expectation(f, k, est.subset_average) == 3
    assert naive.subsets_expectation(f, 2, bad.subset_average_k_plus_1) == 2


class _Toy(Exact):
    id = "cbss11.toy"
    checks = {"a": "a holds", "b": "b holds"}
    case_columns = ("case",)
    details = {"b": ("left", "right")}

    def cases(self, p):
        return [{"case": 0}]


def test_exact_kind_ignores_checks_that_do_not_apply_and_names_the_failing_case():
    toy = _Toy()
    table = pd.DataFrame({"case": [0, 1, 2], "a": [True, None, True], "b": [True, False, None],
                          "left": [1, 2, 3], "right": [1, 5, 3]})
    (va, ta), (vb, tb) = toy.decide_checks(table)
    assert va == "PASS" and "all 2 cases" in ta
    assert vb == "FAIL" and "1 of 2 cases" in tb and "case = 1: left = 2 ≠ right = 5" in tb
    evidence = toy.decide({}, table.assign(case=np.zeros(3, dtype=int)))
    assert evidence.verdict == "FAIL" and evidence.summary["b_failures"].iloc[0] == 1
