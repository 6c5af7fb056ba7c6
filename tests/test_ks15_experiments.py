"""The experiment claims of ks15 (simulations/ks15_experiments.py), their kind machinery
(theorycheck.kinds.comparison: LearningCurves, the median statistic of PairedComparison,
GrowingSample, attributes_to_target) and the sign-test functions of theorycheck.stats.

The claims' verdicts on their planted defects are tests/test_power.py's job; these tests stay fast
(toy claims on d = 20, small overrides)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.conftest import run_one
from tests.defects_ks15_experiments import (
    DDAERRFullInner,
    TwoPhaseDDAERRShiftedMoments,
    _LiteralDDAERR,
)
from theorycheck import stats
from theorycheck.algorithms import DDAERR, OnlineGradientDescent, TwoPhaseDDAERR
from theorycheck.bounds.ks15 import half_norm, rho_lasso, rho_ridge
from theorycheck.claims import discover
from theorycheck.generators.decaying import decaying_profile
from theorycheck.generators.registry import build_design, ridge_design
from theorycheck.kinds.comparison import (
    Equivalent,
    GrowingSample,
    Grows,
    LearningCurves,
    Ordered,
    PairedComparison,
    attributes_to_target,
)
from theorycheck.population import risk
from theorycheck.rng import kernel_state
from theorycheck.run import run_claims
from theorycheck.validation import Integer, ParameterError

IDS = ("ks15.fig1", "ks15.fig2", "ks15.fewer-attributes")


# ---------------------------------------------------------------------- the sign test
@pytest.mark.parametrize("n", [1, 5, 16, 20, 41])
@pytest.mark.parametrize("delta", [0.5, 0.05, 1e-3])
def test_median_interval_uses_the_binomial_order_statistics(n, delta):
    x = np.arange(n, dtype=float)  # x_(i) = i − 1
    iv = stats.median_interval(x[::-1], delta)
    cdf = sps.binom.cdf(np.arange(n + 1), n, 0.5)
    ell = max((j + 1 for j in range(n + 1) if cdf[j] <= delta / 2), default=0)
    if ell == 0:
        assert (iv.low, iv.high) == (-math.inf, math.inf)
        assert n < stats.min_samples_median(delta)
    else:
        assert (iv.low, iv.high) == (ell - 1, n - ell)
        assert sps.binom.cdf(ell - 1, n, 0.5) <= delta / 2 < sps.binom.cdf(ell, n, 0.5)
        assert n >= stats.min_samples_median(delta)


def test_median_interval_covers_at_its_level_for_a_discrete_law():
    rng = np.random.default_rng(7)
    delta, n, trials = 0.1, 15, 1500
    misses = 0
    for _ in range(trials):  # P(X = 0) = 0.5 exactly: both 0 and 1 are medians; the interval must hold 0 or 1
        iv = stats.median_interval(rng.integers(0, 2, n) * 1.0, delta)
        misses += not (iv.low <= 0.0 <= iv.high or iv.low <= 1.0 <= iv.high)
    assert misses / trials <= delta + 3 * math.sqrt(delta / trials)


def test_decide_median_at_least_and_within():
    shifted = np.linspace(1.0, 2.0, 40)
    assert stats.decide_median_at_least(shifted, 0.0, 1e-3, 0.0)[1].verdict == stats.PASS
    assert stats.decide_median_at_least(-shifted, 0.0, 1e-3, 0.0)[1].verdict == stats.FAIL
    assert stats.decide_median_at_least(shifted - 1.5, 0.0, 1e-3, 0.1)[1].verdict == stats.INCONCLUSIVE
    few = stats.decide_median_at_least([1.0, 2.0], 0.0, 1e-3, 0.0)
    assert few[1].verdict == stats.INCONCLUSIVE and "values" in few[2]
    with_inf = np.r_[np.full(30, math.inf), -np.ones(3)]
    assert stats.decide_median_at_least(with_inf, 0.0, 1e-3, 0.0)[1].verdict == stats.PASS
    assert stats.decide_median_within(shifted - 1.5, -1.0, 1.0, 1e-3)[1].verdict == stats.PASS
    assert stats.decide_median_within(shifted + 5, -1.0, 1.0, 1e-3)[1].verdict == stats.FAIL
    with pytest.raises(ParameterError):
        stats.median_interval([1.0, math.nan], 0.1)


# ---------------------------------------------------------------------- kind helpers
def test_growing_sample_hands_out_the_rows_of_one_sample():
    design = build_design("ridge", "decaying", {"d": 12, "alpha": -1.0, "w_seed": 3})
    state = kernel_state(np.random.SeedSequence(11))
    grown = GrowingSample(design, state)
    X5, _ = grown.rows(5)
    X40, y40 = grown.rows(40)
    Xall, yall = design.sample(40, state.copy())
    assert np.array_equal(X40, Xall) and np.array_equal(y40, yall) and np.array_equal(X5, Xall[:5])

    class Fresh:  # draws new rows on every call: cannot be grown
        def sample(self, n, random_state):
            return np.random.default_rng().random((n, 2)), np.zeros(n)

    grower = GrowingSample(Fresh(), state)
    grower.rows(3)
    with pytest.raises(ParameterError, match="shorter call"):
        grower.rows(10)


def test_attributes_to_target_is_a_first_passage_and_censors():
    values = {16: (0.5, 10), 32: (0.1, 20), 64: (0.3, 40), 128: (0.05, 80)}
    hit = attributes_to_target(values.__getitem__, [128, 16, 64, 32], 0.2)
    assert hit == {"m": 32, "attributes": 20, "value": 0.1}
    miss = attributes_to_target(values.__getitem__, [16, 32], 0.01)
    assert miss["m"] is None and miss["attributes"] == 20


# ---------------------------------------------------------------------- toy claims of the two kinds
class Zero:
    """Returns w = 0 and reads nothing."""

    def __init__(self, B=1.0, eta=None):
        self.B, self.eta = B, eta

    def fit(self, X, y):
        self.coef_ = np.zeros(X.shape[1])
        self.n_attributes_seen_ = 0
        return self


class ToyCurves(LearningCurves):
    id = "ks15.toy-curves"
    title = "toy"
    statement = "OGD beats the zero predictor, more so when the moments decay"
    reference = "none"
    contenders = {"good": "OGD", "same": "OGD again", "zero": "zero"}
    subjects = {"good": OnlineGradientDescent, "same": OnlineGradientDescent, "zero": Zero,
                "design": ridge_design}
    base = {"repetitions": 12, "pilots": 2, "delta": 0.05, "resolution": 0.05, "tie": 0.0, "tie_ratio": 0.0,
            "budgets": (400, 2000), "d": 20}
    profiles = {"quick": {}, "full": {}}

    def panels(self, p):
        return [{"panel": f"α = {a:g}", "alpha": a} for a in (0.0, -2.0)]

    def instance(self, p, panel, subjects, seed):
        return subjects["design"]({"d": p["d"], "alpha": panel["alpha"], "w_seed": seed % 2**63}, "decaying")

    def examples(self, p, name, budget, design):
        return budget // design.d

    def grid(self, p, name):
        return (0.001, 0.01, 0.1) if name != "zero" else (None,)

    def learner(self, p, name, subject, design, m, value, random_state):
        return subject(eta=value) if name == "zero" else subject(B=float(np.linalg.norm(design.w_star)), eta=value)

    def findings(self, p):
        return [Ordered("good", "zero", ("α = 0", "α = -2")), Equivalent("good", "same", "α = 0", 1e-9),
                Grows("good", "zero", ("α = 0", "α = -2"), decides=False)]


def _run(claim, tmp_path, subjects=None, **overrides):
    (record,) = run_claims([claim], subjects=subjects, out=tmp_path, progress=False,
                           overrides={k: str(v) for k, v in overrides.items()})
    return record


def test_learning_curves_decide_their_findings(tmp_path):
    record = _run(ToyCurves(), tmp_path)
    assert record["verdict"] == "PASS", record["decision"]
    assert "(reported, not decided)" in record["decision"]
    assert "δ/3" in record["decision"]  # the reported finding is left out of the split of δ
    table = pd.read_csv(tmp_path / record["table_file"])
    assert set(table["algorithm"]) == {"good", "same", "zero"}
    assert (table["attributes"] <= table["budget"]).all()
    # repetition r shares its instance across panels; pilots are disjoint from it
    seeds = table.groupby("repetition")["instance_seed"].nunique()
    assert (seeds == 1).all()
    assert all(h["met"] for h in record["hypothesis_checks"])
    # the tuned step of the identical contenders is the same, and so are their errors
    both = table[table["algorithm"].isin(["good", "same"])].pivot_table(
        index=["panel", "repetition", "budget"], columns="algorithm", values="value")
    assert np.array_equal(both["good"], both["same"])


def test_learning_curves_fail_a_reversed_ordering(tmp_path):
    record = _run(ToyCurves(), tmp_path, subjects={"good": Zero, "zero": OnlineGradientDescent})
    assert record["verdict"] == "FAIL", record["decision"]
    assert {f["outcome"] for f in record["findings"] if f["relation"] == "superior" and f["decides"]} == {"REVERSED"}


def test_learning_curves_tuning_keeps_the_most_conservative_tie(tmp_path):
    loose = _run(ToyCurves(), tmp_path / "a", tie=1e6)  # every value ties: the first of the grid wins
    table = pd.read_csv(tmp_path / "a" / loose["table_file"])
    assert (table.loc[table["algorithm"] == "good", "value"] == 0.001).all()


class ToyMedian(PairedComparison):
    id = "ks15.toy-median"
    title = "toy"
    statement = "attributes to a target: a beats b where it decides"
    reference = "none"
    statistic = "median"
    labels = ("a", "b")
    subjects = {"a": None, "b": None}
    base = {"repetitions": 30, "delta": 0.01, "resolution": 0.05, "margin": 1.0}
    profiles = {"quick": {}, "full": {}}

    def settings(self, p):
        return [{"label": "decides", "gap": 3.0}, {"label": "reported", "gap": -3.0, "decides": False},
                {"label": "censored", "gap": math.inf}]

    def budget(self, p):
        return 10**6

    def run(self, p, task, subjects, data_state, seeds):
        noise = np.random.default_rng(seeds[0]).normal()
        return {"loss_a": 10.0 + noise, "loss_b": 10.0 + noise + task["gap"], "attributes_a": 5, "attributes_b": 7}


def test_paired_median_decides_only_its_deciding_settings(tmp_path):
    record = _run(ToyMedian(), tmp_path)
    assert record["verdict"] == "PASS", record["decision"]
    assert "reported, not decided): REVERSED" in record["decision"]
    summary = pd.read_csv(tmp_path / record["summary_file"])
    assert list(summary["verdict"]) == ["REPRODUCED", "REVERSED (reported)", "REPRODUCED"]
    assert [f["decides"] for f in record["findings"]] == [True, False, True]


class ToySequential(ToyMedian):
    id = "ks15.toy-sequential"
    parameters = {**ToyMedian.parameters, "max_repetitions": Integer(1)}
    base = {"repetitions": 12, "max_repetitions": 96, "delta": 0.01, "resolution": 0.05, "margin": 0.2}

    def settings(self, p):
        return [{"label": "clear", "gap": 5.0}, {"label": "small", "gap": 0.8}]

    def run(self, p, task, subjects, data_state, seeds):
        noise = np.random.default_rng(seeds[1]).normal()  # in the difference, unlike ToyMedian's
        return {"loss_a": 10.0, "loss_b": 10.0 + noise + task["gap"], "attributes_a": 5, "attributes_b": 7}


def test_paired_comparison_adds_repetitions_only_where_undecided(tmp_path):
    """Looks at 12, 24, 48, 96: the clear setting decides at the first look and gets no more runs;
    the small one (gap 0.8 against noise of sd 1) gets repetitions in groups until it decides."""
    record = _run(ToySequential(), tmp_path)
    clear, small = record["findings"]
    assert clear["outcome"] == "REPRODUCED" and clear["runs"] == 12
    assert small["outcome"] == "REPRODUCED" and small["runs"] in (24, 48, 96)
    assert record["n_tasks"] == 12 + small["runs"]
    again = _run(ToySequential(), tmp_path)  # from the cache, the same rounds
    assert again["findings"] == record["findings"] and again["tasks_from_cache"] == record["n_tasks"]


# ---------------------------------------------------------------------- the claims' declarations
@pytest.mark.parametrize("cid", IDS)
def test_profiles_validate_and_describe(cid):
    claim = discover()[cid]
    for profile in ("quick", "full"):
        claim.params_for(profile)
    info = claim.describe()
    assert info["interpretation"] and info["power"] and any(d["caught"] for d in info["defects"])


def test_figure_parameters_are_checked():
    claim = discover()["ks15.fig1"]
    with pytest.raises(ParameterError, match="start at 0"):
        claim.params_for("quick", {"alphas": "-1,-2,-3"})
    with pytest.raises(ParameterError, match="among alphas"):
        claim.params_for("quick", {"two_phase_over_uniform": "-3"})
    with pytest.raises(ParameterError, match="contenders"):
        claim.params_for("quick", {"contenders": "dd,uniform"})


@pytest.mark.parametrize(("cid", "rho"), [("ks15.fig1", rho_ridge), ("ks15.fig2", rho_lasso)])
def test_panels_print_rho_beside_the_published_value(cid, rho):
    claim = discover()[cid]
    p = claim.params_for("full")
    setting = "ridge" if cid == "ks15.fig1" else "lasso"
    for panel, note in zip(claim.panels(p), claim.notes(p), strict=True):
        assert panel["rho"] == rho(decaying_profile(500, panel["alpha"], setting))
        assert f"{panel['rho']:.4g}" in note and f"published {panel['rho_published']:g}" in note


def test_figure_findings_follow_decide_alike_on_every_profile():
    """No rule after the data: the four findings decide on quick as on full (only the panels differ): coincide,
    grows (two steps on full), significant (a direction) and two-phase over uniform (two panels); DD over the
    two-phase learner is reported (no sentence of §5.1 orders them)."""
    for cid in ("ks15.fig1", "ks15.fig2"):
        claim = discover()[cid]
        quick, full = claim.params_for("quick"), claim.params_for("full")
        assert sum(f.intervals() for f in claim.findings(full) if f.decides) == 1 + 2 + 1 + 2
        assert [type(f) for f in claim.findings(quick) if f.decides] == [type(f) for f in claim.findings(full)
                                                                          if f.decides]
        assert any(isinstance(f, Equivalent) and f.decides for f in claim.findings(quick))


def test_fewer_attributes_runs_and_reports_the_sweep(tmp_path):
    record = run_one("ks15.fewer-attributes", tmp_path, repetitions=4, alphas=(-2.0, 0.0), d=60, m_max=1024)
    summary = pd.read_csv(tmp_path / record["summary_file"])
    assert summary["verdict"].iloc[1].endswith("(reported)")  # ρ = 1 > rho_small: reported only
    table = pd.read_csv(tmp_path / record["table_file"])
    s = build_design("ridge", "decaying_bounded", {"d": 60, "alpha": -2.0, "B": 1.0, "noise": 0.1}).second_moments
    assert (table.loc[table["alpha"] == -2.0, "k"] == math.ceil(half_norm(s))).all()
    reached = table.dropna(subset=["m_b"])
    assert len(reached) and (reached["attributes_b"] == 60 * reached["m_b"]).all()  # OGD reads every attribute


# ---------------------------------------------------------------------- the planted defects
def _fit(learner, m=3000, alpha=-2.0, seed=0):
    design = build_design("ridge", "decaying_bounded", {"d": 30, "alpha": alpha, "B": 1.0, "noise": 0.1})
    X, y = design.sample(m, seed)
    est = learner.fit(X, y)
    return est, float(risk(est.coef_, design, half=True)) - float(risk(np.zeros(30), design, half=True)), m


def test_the_literal_kernel_without_a_defect_learns_like_ddaerr():
    design = build_design("ridge", "decaying_bounded", {"d": 30, "alpha": -2.0, "B": 1.0, "noise": 0.1})
    s = design.second_moments
    ours = np.mean([_fit(_LiteralDDAERR(k=3, second_moments=s, random_state=r), seed=r)[1] for r in range(8)])
    theirs = np.mean([_fit(DDAERR(k=3, second_moments=s, random_state=r), seed=r)[1] for r in range(8)])
    assert ours < 0 and theirs < 0  # both improve on w = 0
    assert abs(ours - theirs) <= 0.25 * abs(theirs)


def test_full_inner_defect_counts_every_attribute():
    design = build_design("ridge", "decaying_bounded", {"d": 30, "alpha": -2.0, "B": 1.0, "noise": 0.1})
    est, _, m = _fit(DDAERRFullInner(k=3, second_moments=design.second_moments, random_state=1), m=200)
    assert est.n_attributes_seen_ == 30 * m


def test_shifted_moments_defect_rolls_the_phase_one_estimate():
    kwargs = {"k": 3, "smoothing": 0.0, "random_state": 5}
    right, _, _ = _fit(TwoPhaseDDAERR(**kwargs), m=400)
    wrong, _, _ = _fit(TwoPhaseDDAERRShiftedMoments(**kwargs), m=400)
    assert np.array_equal(np.roll(right.moments_estimate_, 1), wrong.moments_estimate_)
    expected = np.sqrt(np.roll(right.moments_estimate_, 1))
    assert np.allclose(wrong.q_, expected / expected.sum())
