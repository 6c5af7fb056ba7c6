"""hk12 §3's regret lemmas: the learners' recorded paths, the right-hand sides and ranges, the two
kinds (pathwise, in expectation) and the four claims on quick."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from tests.defects_regret import AELRWrongSign, LiteralAELR, LiteralAERR
from theorycheck import stats
from theorycheck.algorithms import AELR, AERR
from theorycheck.bounds.hk12 import lemma33_second_moment
from theorycheck.bounds.hk12_regret import (
    lemma32_rhs,
    lemma32_rhs_sharp,
    lemma36_range,
    lemma37_range,
    second_moment_sharp,
)
from theorycheck.claims import discover
from theorycheck.estimators import aelr_gradient_estimate_distribution, distribution_second_moment
from theorycheck.validation import ParameterError

CLAIMS = ("hk12.lemma3.2", "hk12.lemma3.5", "hk12.lemma3.6", "hk12.lemma3.7")


def _data(m, d, seed, l2=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(m, d))
    y = np.clip(X @ rng.normal(size=d) / d + 0.3 * rng.normal(size=m), -1.0, 1.0)
    return (X / math.sqrt(d) if l2 else X), y


# ----------------------------------------------------------------------------- recorded paths
@pytest.mark.parametrize(("k", "eta", "B"), [(1, 0.05, 1.0), (3, 0.2, 2.0), (2, 30.0, 1e-3)])
def test_aerr_path_is_the_literal_algorithm(k, eta, B):
    """Same random_state, same draws: the kernel's recorded path is Algorithm 1's, step by step
    (the last case folds the lazy scale back into the weights)."""
    X, y = _data(300, 9, seed=1, l2=True)
    fast = AERR(k=k, B=B, eta=eta, random_state=5, record_trajectory=True).fit(X, y)
    slow = LiteralAERR(k=k, B=B, eta=eta, random_state=5, record_trajectory=True).fit(X, y)
    for key in ("w", "g", "phi", "coordinates", "j"):
        np.testing.assert_allclose(fast.trajectory_[key], slow.trajectory_[key], rtol=1e-9, atol=1e-12 * max(B, 1))
    assert fast.n_attributes_seen_ == slow.n_attributes_seen_
    assert (B < 1e-2) == (fast.n_renormalisations_ > 0)


@pytest.mark.parametrize(("k", "eta"), [(1, 0.3), (4, 0.05), (2, 1.0)])
def test_aelr_path_is_the_literal_algorithm(k, eta):
    X, y = _data(400, 7, seed=2)
    if eta == 1.0:  # a label out of reach: θ drifts by up to 1 per step and the kernel moves its reference
        X, y = np.ones((1200, 2)), np.full(1200, 100.0)
    fast = AELR(k=k, B=1.5, eta=eta, random_state=9, record_trajectory=True).fit(X, y)
    slow = LiteralAELR(k=k, B=1.5, eta=eta, random_state=9, record_trajectory=True).fit(X, y)
    for key in ("w", "g", "g_tilde", "p", "phi", "coordinates", "j"):
        np.testing.assert_allclose(fast.trajectory_[key], slow.trajectory_[key], rtol=1e-9, atol=1e-12)
    assert (eta == 1.0) == (fast.n_rescales_ > 0)
    assert np.all(np.abs(fast.trajectory_["g"]) <= 1 / eta)
    np.testing.assert_array_equal(np.clip(fast.trajectory_["g_tilde"], -1 / eta, 1 / eta), fast.trajectory_["g"])


@pytest.mark.parametrize("cls", [AERR, AELR])
def test_recording_changes_nothing(cls):
    """The fast path (no recording) returns the same w̄ for the same random_state, and the path
    averages to it (line 14 / line 18)."""
    X, y = _data(500, 6, seed=3, l2=cls is AERR)
    plain = cls(k=2, random_state=11).fit(X, y)
    recorded = cls(k=2, random_state=11, record_trajectory=True).fit(X, y)
    assert not hasattr(plain, "trajectory_")
    np.testing.assert_array_equal(plain.coef_, recorded.coef_)
    assert plain.n_attributes_seen_ == recorded.n_attributes_seen_
    path = recorded.trajectory_
    np.testing.assert_allclose(path["w"].mean(axis=0), recorded.coef_, rtol=1e-10, atol=1e-14)
    assert path["eta"] == recorded.eta_ and path["B"] == 1.0
    assert path["w"].shape == path["g"].shape == (500, 6) and path["coordinates"].shape == (500, 2)
    if cls is AELR:
        p = path["p"]
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
        np.testing.assert_allclose(p[:, :6] - p[:, 6:], path["w"], atol=1e-14)


def test_record_flag_is_validated():
    X, y = _data(20, 3, seed=4)
    with pytest.raises(ParameterError):
        AELR(record_trajectory="yes").fit(X, y)
    with pytest.raises(ParameterError, match="small runs"):
        AERR(record_trajectory=True).fit(np.zeros((10_001, 1000)), np.zeros(10_001))


# ----------------------------------------------------------------------------- right-hand sides and ranges
def test_sharp_second_moment_is_valid_and_attained():
    """4B²(d + k − 1)/k bounds ‖E g̃²‖∞ of AELR's estimator (exact law, in rationals) on every
    example with ‖x‖∞ ≤ 1, |y| ≤ B, ‖w‖₁ ≤ B, and is attained at w = B·e_1, x = 𝟏, y = −B; it is at
    most Lemma 3.8's 8B²d/k."""
    B = Fraction(3, 2)
    for d, k in [(3, 1), (3, 2), (4, 3)]:
        bound = Fraction(4) * B * B * (d + k - 1) / k
        assert float(bound) == pytest.approx(second_moment_sharp(d, k, float(B)))
        assert second_moment_sharp(d, k, 1.5) <= lemma33_second_moment(d, k, 1.5)
        rng = np.random.default_rng(d * 10 + k)
        cases = [((B,) + (Fraction(0),) * (d - 1), (Fraction(1),) * d, -B)]
        for _ in range(5):
            w = [Fraction(int(v), 8) for v in rng.integers(-8, 9, size=d)]
            scale = sum(abs(v) for v in w) or Fraction(1)
            w = [v * B / scale for v in w]
            x = [Fraction(int(v), 4) for v in rng.integers(-4, 5, size=d)]
            cases.append((tuple(w), tuple(x), B * Fraction(int(rng.integers(-4, 5)), 4)))
        worst = [max(distribution_second_moment(aelr_gradient_estimate_distribution(w, x, y, k)))
                 for w, x, y in cases]
        assert all(v <= bound for v in worst)
        assert worst[0] == bound


def test_lemma36_range_holds_on_exponential_weights():
    """The regret of EG± against its best vertex is ≥ 0 and ≤ B(log 2d/η + ηm·c²) on any path,
    including the wrong-sign learner's lower end (its regret is larger, never negative)."""
    X, y = _data(300, 5, seed=6)
    for cls, eta in [(LiteralAELR, 0.05), (LiteralAELR, 0.8), (AELRWrongSign, 0.05)]:
        for seed in range(5):
            path = cls(k=2, B=1.0, eta=eta, random_state=seed, record_trajectory=True).fit(X, y).trajectory_
            regret = float((path["g"] * path["w"]).sum()) + np.abs(path["g"].sum(axis=0)).max()
            lo, hi = lemma36_range(5, 1.0, eta, 300)
            assert lo - 1e-9 <= regret
            if cls is LiteralAELR:
                assert regret <= hi + 1e-9


def test_lemma37_range_and_rhs():
    assert lemma37_range(32, 1.0, 1 / 64.0, 10)[1] == 0.0  # 1/η = 2Bd: nothing can be clipped
    lo, hi = lemma37_range(32, 1.0, 1 / 40.0, 10)
    assert hi == -lo == pytest.approx(10 * 2 * (64 - 40))
    assert lemma32_rhs_sharp(4.0, 0.5, 8.0) == pytest.approx(lemma32_rhs(1.0, 0.5, 8.0))  # ‖w_1 − w‖ = 2B


# ----------------------------------------------------------------------------- the kinds' decisions
def test_pathwise_decision():
    claim = discover()["hk12.lemma3.5"]
    rows = [{"setting": 0, "label": "s", "run": r, "check": name, "lhs": 1.0, "rhs": 2.0, "scale": 3.0,
             "ceiling": 5.0 if name == "Lemma 3.5" else math.nan, "output_gap": 0.0}
            for r in range(4) for name in claim.inequalities]
    table = pd.DataFrame(rows)
    p = claim.profile("quick")
    assert claim.decide(p, table).verdict == stats.PASS
    within = table.copy()
    within.loc[0, "lhs"] = 2.0 + 1e-10  # beyond the rhs, within the rounding slack 1e-9·3
    assert claim.decide(p, within).verdict == stats.PASS
    beyond = table.copy()
    beyond.loc[0, "lhs"] = 2.0 + 1e-8
    evidence = claim.decide(p, beyond)
    assert evidence.verdict == stats.FAIL and "1 of 4 runs" in evidence.decision
    moved = table.copy()
    moved.loc[moved["run"] == 2, "output_gap"] = 1e-6  # w̄ is not the mean of the recorded path
    evidence = claim.decide(p, moved)
    assert evidence.verdict == stats.FAIL and "violated on 1 of 4 runs" in evidence.decision
    vacuous = table.assign(ceiling=np.where(table["check"] == "Lemma 3.5", 1.5, math.nan))
    evidence = claim.decide(p, vacuous)
    assert evidence.verdict == stats.INCONCLUSIVE and "vacuous" in evidence.decision


def test_expected_inequality_member_decisions():
    rng = np.random.default_rng(0)
    fine = rng.uniform(0.0, 0.5, 400)
    assert stats.decide_mean_in_range_at_most(fine, 1.0, 0.0, 3.0, 1e-3, 0.1)["verdict"] == stats.PASS
    above = rng.uniform(1.5, 2.0, 400)
    assert stats.decide_mean_in_range_at_most(above, 1.0, 0.0, 3.0, 1e-3, 0.1)["verdict"] == stats.FAIL
    breach = rng.uniform(4.0, 5.0, 400)  # above the almost-sure range: only FAIL can be decided
    out = stats.decide_mean_in_range_at_most(breach, 1.0, 0.0, 3.0, 1e-3, 0.1)
    assert out["verdict"] == stats.FAIL and "not the paper's algorithm" in out["reason"]
    low = rng.uniform(-2.0, 0.2, 400)  # below the range: only PASS can be decided
    assert stats.decide_mean_in_range_at_most(low, 1.0, 0.0, 3.0, 1e-3, 0.1)["verdict"] == stats.PASS
    assert stats.decide_mean_in_range_at_most(above - 5.0, 1.0, 0.0, 3.0, 1e-3, 0.1)["verdict"] != stats.FAIL


# ----------------------------------------------------------------------------- the claims
@pytest.mark.parametrize("claim_id", CLAIMS)
def test_quick_passes(run_claim, claim_id):
    record = run_claim(claim_id)
    assert record["verdict"] == "PASS", record["decision"][:3000]
    assert 0 < record["ratio"] <= 1.0


def test_lemma37_decides_both_forms(run_claim):
    record = run_claim("hk12.lemma3.7")
    assert "printed (w* = 0)" in record["decision"] and "corrected (2d vertices)" in record["decision"]
    assert record["errata"] == [] and record["errata_evidence"] == {}  # the printed form is true


def test_lemma37_vacuous_where_nothing_can_be_clipped(run_claim):
    """At η = 0.3/(2G) with d = 32, 1/η > 2Bd ≥ |g̃_t[i]|: nothing is ever clipped, the range is {0}
    and the lemma cannot fail, so the verdict is never PASS."""
    record = run_claim("hk12.lemma3.7", eta_factors="0.3", repetitions=10, designs="sparse")
    assert record["verdict"] == "INCONCLUSIVE" and "vacuous" in record["decision"]


def test_subject_without_a_recorded_path_is_refused(run_claim):
    class NoPath(AERR):
        def __init__(self, k=1, B=1.0, eta=None, random_state=None):
            super().__init__(k=k, B=B, eta=eta, random_state=random_state)

    with pytest.raises(ParameterError, match="record_trajectory"):
        run_claim("hk12.lemma3.2", subjects={"learner": NoPath})


def test_parameters_are_validated(run_claim):
    with pytest.raises(ParameterError):
        run_claim("hk12.lemma3.7", eta_factors="1.5")
    with pytest.raises(ParameterError):
        run_claim("hk12.lemma3.6", k=9)
    for claim_id in CLAIMS:
        claim = discover()[claim_id]
        for profile in ("quick", "full"):
            claim.params_for(profile)
        assert len(claim.settings(claim.profile("full"))) >= 2



def test_a_path_without_its_radius_relies_on_the_ball_check():
    """A user's learner need not record B: the hypothesis then requires every recorded iterate in the
    (L2) ball of the given B; a recorded B must match."""
    from theorycheck.kinds.pathwise import Path

    X, y = _data(30, 4, 1, l2=True)
    model = AERR(k=1, B=1.0, eta=0.1, random_state=0, record_trajectory=True).fit(X, y)
    path = Path.from_learner(model, 30, 4)
    assert path.checks(0.1, 1.0)[0].met
    assert not path.checks(0.1, 2.0)[0].met  # recorded B = 1, given 2
    del model.trajectory_["B"]
    unrecorded = Path.from_learner(model, 30, 4)
    (hypothesis,) = unrecorded.checks(0.1, 2.0)
    assert hypothesis.met and "B not recorded" in hypothesis.detail
    assert not unrecorded.checks(0.1, 1e-4)[0].met  # iterates outside the ball of the given B
    assert not unrecorded.checks(0.2, 1.0)[0].met  # the step size is still compared (eta_)
