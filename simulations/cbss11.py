"""Monte-Carlo claims of Cesa-Bianchi, Shalev-Shwartz & Shamir (JMLR 2011): the k-active lower
bounds, as :class:`theorycheck.kinds.lower_bound.LowerBound` claims."""

from __future__ import annotations

import numpy as np

from theorycheck.algorithms.k_active import DEFAULT_PREDICTORS
from theorycheck.bounds.cbss11 import thm2_k_active_risk, thm3_k_active_risk
from theorycheck.claims import Defect, Hypothesis, register
from theorycheck.generators.hypercube import sparse_l1_instance, uniform_l2_instance
from theorycheck.kinds.lower_bound import LowerBound
from theorycheck.spaces import Choice, Constraint, Int, Space, at_most
from theorycheck.validation import Budget, Integer, Number, ParameterError

_DEFECTS = "tests.defects_bounds:"
_BASE = {"delta": 1e-3, "resolution": 0.02}
# a predictor over its budget broke the contract the bound speaks about: FAIL, with the over-budget count
_PEEKER = Defect("reads k + 1 attributes", {"predictors": _DEFECTS + "PEEKER"})
_OCCASIONAL_PEEKER = Defect("reads k + 1 attributes on 1% of the examples",
                            {"predictors": _DEFECTS + "OCCASIONAL_PEEKER"})


def thm2_instance(params):
    """Theorem 2's construction: x uniform on {±1}^d, w* = (1/√d)·𝟏."""
    return uniform_l2_instance(params["d"])


def thm3_instance(params):
    """Theorem 3's construction: x uniform on {±1}^d, ck equal weights 1/(ck)."""
    return sparse_l1_instance(params["d"], round(params["c"] * params["k"]))


@register
class Theorem2(LowerBound):
    id = "cbss11.thm2"
    space = Space(
        dims={"d": Int(2, 200, log=True), "k": Int(1, 200, log=True)},
        constraints=(at_most("k", "d"),),
        why=("the theorem's ∀ d and k ≤ d, bounded by a quick trial's cost"))
    title = "k-active prediction under an L2 constraint: risk ≥ 1 − k/d"
    reference = "Theorem 2"
    statement = (
        "With x uniform on {±1}^d and y = ⟨w*, x⟩ for w* = (1/√d)·𝟏 (so ‖w*‖₂ = 1 and L_D(w*) = 0), every "
        "predictor that reads at most k attributes of a test example, chosen adaptively or not, has squared-loss "
        "risk at least 1 − k/d.")
    hypotheses = ("‖w*‖₂ = 1", "L_D(w*) = 0", "the predictor is k-active", "1 ≤ k ≤ d")
    interpretation = (
        "Risk is E[(ŷ − y)²] (cbss11's convention). The predictors are given w*; the built-in ones read the first "
        "k, a random k, or an adaptively chosen k attributes and predict the partial sum of ⟨w*, x⟩, the "
        "conditional mean, so each reaches the bound exactly and the margin measures only noise.")
    theory_label = "lower bound 1 − k/d"
    subjects = {"predictors": DEFAULT_PREDICTORS, "instance": thm2_instance}
    parameters = {**LowerBound.parameters, "d": Integer(2), "k": Budget()}
    base = _BASE
    profiles = {"quick": {"d": 20, "k": 5, "examples": 200_000, "repetitions": 4},
                "full": {"d": 200, "k": 20, "examples": 200_000, "repetitions": 10}}
    defects = (
        Defect("construction with w* = e_1", {"instance": _DEFECTS + "spiked_instance"}, idea=True),
        Defect("dependent (copied) attributes", {"instance": _DEFECTS + "copied_attributes_instance",
                                                 "predictors": _DEFECTS + "SCALED_FIRST"}),
        _PEEKER,
        _OCCASIONAL_PEEKER,
    )
    power = ("Catches any predictor or construction whose risk falls below 1 − k/d by more than the resolution "
             "(2% of the bound): a weight concentrated on one attribute, dependent attributes; and a predictor that "
             "reads more than k attributes on any example, even 1% of them (it is not k-active: FAIL, with the count "
             "of examples over budget).")

    def bound(self, p):
        return thm2_k_active_risk(p["d"], p["k"])

    def instance_hypotheses(self, inst, p):
        norm = float(np.linalg.norm(inst.w_star))
        return [Hypothesis("‖w*‖₂ = 1", abs(norm - 1) <= 1e-12, f"‖w*‖₂ = {norm:.15g}")]


@register
class Theorem3(LowerBound):
    id = "cbss11.thm3"
    space = Space(
        dims={"d": Int(2, 200, log=True), "k": Int(1, 64, log=True), "c": Choice(("1.5", "2.0", "3.0", "4.0", "8.0"))},
        constraints=(Constraint("c·k ≤ d", lambda p: float(p["c"]) * p["k"] <= p["d"]),),
        why=("the theorem's ∀ d, k and c > 1 with c·k an integer ≤ d (c from a few values, so that c·k is often "
             "an integer), bounded by a quick trial's cost"))
    title = "k-active prediction under an L1 constraint: risk ≥ (1 − 1/c)/(ck)"
    reference = "Theorem 3"
    statement = (
        "With x uniform on {±1}^d and y = ⟨w*, x⟩ for w* with ck equal weights 1/(ck) (‖w*‖₁ = 1, ‖w*‖₀ = ck, "
        "c > 1), every k-active predictor has squared-loss risk at least (1 − 1/c)/(ck).")
    hypotheses = ("‖w*‖₁ = 1", "‖w*‖₀ = ck with c > 1", "L_D(w*) = 0", "the predictor is k-active")
    interpretation = ("c·k must be an integer no larger than d. Predictions are the partial sums of ⟨w*, x⟩ over the "
                      "attributes read, which attains the bound; the summary shows how close each predictor comes.")
    theory_label = "lower bound (1 − 1/c)/(ck)"
    subjects = {"predictors": DEFAULT_PREDICTORS, "instance": thm3_instance}
    parameters = {**LowerBound.parameters, "d": Integer(2), "k": Budget(), "c": Number(1.0, None, open="low")}
    base = _BASE
    profiles = {"quick": {"d": 30, "k": 5, "c": 2.0, "examples": 100_000, "repetitions": 4},
                "full": {"d": 300, "k": 20, "c": 2.5, "examples": 200_000, "repetitions": 10}}
    defects = (
        Defect("ck non-zero weights, half the mass on one", {"instance": _DEFECTS + "unequal_sparse_instance"},
               idea=True),
        Defect("dependent (copied) attributes", {"instance": _DEFECTS + "copied_sparse_instance",
                                                 "predictors": _DEFECTS + "SCALED_FIRST"}),
        _PEEKER,
        _OCCASIONAL_PEEKER,
    )
    power = ("Catches any predictor or construction whose risk falls below (1 − 1/c)/(ck) by more than 2% of it: "
             "unequal weights, dependent attributes; and a predictor that reads more than k attributes on any example, "
             "even 1% of them (not k-active: FAIL with the count of examples over budget).")

    def check_params(self, p):
        support = p["c"] * p["k"]
        if support > p["d"]:  # first: a c so large that c·k is infinite has no integer part
            raise ParameterError(f"c·k = {support:g} must not exceed d = {p['d']}")
        if abs(support - round(support)) > 1e-9:
            raise ParameterError(f"c·k must be an integer (the number of non-zero weights), got {support:g}")

    def bound(self, p):
        return thm3_k_active_risk(p["c"], p["k"])

    def instance_hypotheses(self, inst, p):
        l1, nnz, ck = float(np.abs(inst.w_star).sum()), int(np.count_nonzero(inst.w_star)), round(p["c"] * p["k"])
        return [Hypothesis("‖w*‖₁ = 1", abs(l1 - 1) <= 1e-12, f"‖w*‖₁ = {l1:.15g}"),
                Hypothesis("‖w*‖₀ = ck", nnz == ck, f"‖w*‖₀ = {nnz}, ck = {ck}")]
