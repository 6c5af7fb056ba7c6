"""The lower-bound proof claims (cbss11.A.2, cbss11.A.5-A.6, hk12.lemmaB.4, hk12.lemmaB.5): PASS as
built, the failing part named under planted defects, the exact tools they rest on, and the errata."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from proofs import hk12_lower_bound as lb
from theorycheck.bounds.lower_bounds import (
    HK12_DELTA,
    cbss11_thm1_attributes,
    ge_sqrt,
    hk12_lemmaB5_premise,
    le_plus_sqrt,
    neg_log1m_enclosure,
    sqrt_at_least,
    sqrt_below,
)
from theorycheck.claims import discover
from theorycheck.generators.lower_bounds import SparseBlocks, law_moments, law_risk, sparse_rows
from theorycheck.validation import ParameterError

from . import defects_lower_bounds_proofs as bad
from .conftest import run_one

IDS = ("cbss11.A.2", "cbss11.A.5-A.6", "hk12.lemmaB.4", "hk12.lemmaB.5")


# ---------------------------------------------------------------------- the exact tools


def test_log_enclosure_brackets_the_logarithm():
    for q in [F(0), F(1, 1000), F(1, 7), F(1, 4), F(1, 2), F(3, 4), F(99, 100)]:
        lo, hi = neg_log1m_enclosure(q, 60)
        assert lo <= hi and float(lo) <= -math.log1p(-float(q)) * (1 + 1e-15) + 1e-300
        assert -math.log1p(-float(q)) <= float(hi) * (1 + 1e-15)
    lo, hi = neg_log1m_enclosure(F(1, 2), 40)
    assert hi - lo < F(1, 2**40)
    with pytest.raises(ParameterError):
        neg_log1m_enclosure(F(1))


def test_square_root_tools():
    rng = np.random.default_rng(1)
    for _ in range(300):
        a, b, c, e = (F(int(rng.integers(-50, 51)), int(rng.integers(1, 20))) for _ in range(4))
        c, e = abs(c), abs(e)
        assert le_plus_sqrt(a, b, c, e) == (float(a) <= float(b) + float(c) * math.sqrt(float(e)) + 1e-12) or \
            abs(float(a) - float(b) - float(c) * math.sqrt(float(e))) < 1e-9
        assert ge_sqrt(a, c, e) == sqrt_at_least(a / c, e) if c else True
    for b in (F(2), F(1, 3), F(10**12 + 7, 9), F(0)):
        r = sqrt_below(b, 25)
        assert r * r <= b < (r + F(1, 10**25)) ** 2
    assert le_plus_sqrt(3, 1, 1, 4) and not le_plus_sqrt(3, 1, 1, F(399, 100))  # 3 ≤ 1 + √4


def test_sparse_blocks_agree_with_the_generator_law():
    design = sparse_rows(15, k=9, T_seed=3)
    w = SparseBlocks(((4, F(1, 3)), (5, F(-1, 2))), ((3, F(2, 5)),))
    dense = w.dense(design)
    _, _, sigma, c, e_y2 = law_moments(design.law(), design.d)
    assert law_risk(sigma, c, e_y2, dense) == w.risk() == (4 * F(2, 3) ** 2 + 5 * F(3, 2) ** 2) / 9
    assert sum(v * v for v in dense) == w.norm2() and w.count_on(F(1, 3)) == 9 and w.count_off(F(2, 5)) == 0
    assert design.risk(np.array([float(v) for v in dense])) == pytest.approx(float(w.risk()), rel=1e-14)


def test_smallest_aligned_multiple_is_at_the_premise_edge():
    m = 10**6
    eps = F(1, m)
    level = hk12_lemmaB5_premise(eps)
    c = lb.smallest_aligned(level, eps)
    assert (1 - c * eps) ** 2 <= level < (1 - (c - F(1, 10**30)) * eps) ** 2
    # c ≈ 1 − δ + ε(1 − δ)²/2, so 1 − c² ≈ 2δ − ε: the off-T weight the 'rest' erratum is about
    assert float(1 - c * c) == pytest.approx(2 * float(HK12_DELTA) - float(eps), rel=1e-3)


# ---------------------------------------------------------------------- the claims as built


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each claim run once on the quick profile: id → (record, output folder)."""
    out = {}
    for claim_id in IDS:
        folder = tmp_path_factory.mktemp(claim_id.replace(".", "_"))
        out[claim_id] = (run_one(claim_id, folder), folder)
    return out


@pytest.mark.parametrize("claim_id", IDS)
def test_claims_pass_quick_and_declare_valid_full_profiles(claim_id, built):
    record, _ = built[claim_id]
    assert record["verdict"] == "PASS", record["decision"]
    claim = discover()[claim_id]
    claim.params_for("full")  # validates
    assert claim.describe()["defects"] and any(d.caught for d in claim.defects)


def test_a2_grid_shows_the_factor_two_slack(built):
    record, folder = built["cbss11.A.2"]
    assert record["observed"] == 2.0  # identification first fails at excess exactly 2ε (the tie p(e_j + e_i))
    table = pd.read_csv(folder / record["table_file"])
    grid = table[table["family"].str.startswith("grid")]
    assert (grid["premise_points"] > 0).all() and grid["first_failure_ratio"].eq(2.0).all()


def test_a56_findings_and_threshold(built):
    record, folder = built["cbss11.A.5-A.6"]
    notes = " ".join(record["notes"])
    assert "0.5828" in notes and "4.7" in notes  # root of 3q/2 = −ln(1 − q); 192/40.5
    table = pd.read_csv(folder / record["table_file"])
    chain = table[table["case"] == "chain"]
    for _, row in chain.iterrows():  # the bound column is the library's value at that point
        assert row["bound"] == float(cbss11_thm1_attributes(int(row["d"]), F(row["p_exact"]) ** 2))


def test_b5_errata_evidence(built):
    record, _ = built["hk12.lemmaB.5"]
    evidence = record["errata_evidence"]
    assert "the printed form holds in" in evidence["rest"] and "first case where it fails" in evidence["rest"]
    assert "m ∈ [100000, 1000000] only" in evidence["chain"]
    assert evidence["ball"].startswith("7 of the 7")
    assert record["observed"] < 2 * float(HK12_DELTA)


# ---------------------------------------------------------------------- planted defects name the failing part


@pytest.mark.parametrize(("claim_id", "subjects", "failing"), [
    ("cbss11.A.2", {"generator": bad.good_feature_half_bias}, "the subject's law is P_j"),
    ("cbss11.A.2", {"generator": bad.good_feature_loose_readout}, "identify(w) = j"),
    ("cbss11.A.5-A.6", {"attributes_bound": bad.attributes_bound_no_half}, "attributes_bound(d, ε)"),
    ("hk12.lemmaB.4", {"generator": bad.sparse_rows_unsigned}, "E[(⟨w*, x⟩ − y)²] = (1 − ε)²"),
    ("hk12.lemmaB.5", {"premise_level": bad.premise_level_10_delta}, "Σ_{i∈T} w_i² ≥ (1 − 2δ)"),
])
def test_defects_fail_the_right_part(run_claim, claim_id, subjects, failing):
    record = run_claim(claim_id, subjects)
    assert record["verdict"] == "FAIL"
    assert any(line.startswith("[FAIL]") and failing in line for line in record["decision"].splitlines()), \
        record["decision"]


def test_a2_rejects_p_the_generator_cannot_realise():
    claim = discover()["cbss11.A.2"]
    with pytest.raises(ParameterError, match="multiple of 2"):
        claim.params_for("quick", {"p": "0.1,0.2"})
    with pytest.raises(ParameterError):
        claim.params_for("quick", {"p": "0.25,0.125"})  # ε = 1/16 is outside Theorem 1's range
