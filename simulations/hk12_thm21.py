"""hk12 Theorem 2.1 (cbss11's Theorem 1 restated per example) as an experiment on cbss11's P_j: learners that read
at most k attributes of each example need Ω(d/(kε)) examples, with the constant of cbss11's proof.

The claim reuses :class:`simulations.cbss11_lower_bound.Theorem1` (the kind
:class:`theorycheck.kinds.lower_bound.AttributesNeeded`) and counts examples instead of attributes."""

from __future__ import annotations

import math

from simulations.cbss11_lower_bound import Theorem1
from theorycheck.bounds.lower_bounds import cbss11_thm1_attributes
from theorycheck.claims import Defect, Hypothesis, register
from theorycheck.kinds.lower_bound import AttributesNeeded
from theorycheck.validation import Names

_DEFECTS = "tests.defects_lower_bounds:"


@register
class Theorem21(Theorem1):
    id = "hk12.thm2.1"
    no_space = ("its decision is the smallest m at which each learner succeeds, found by a sequential search over "
                "m at every (d, ε) of the grid its slope needs; one point of (d, ε, k) is already a quick "
                "profile's run (not a trial of a few CPU seconds), so it is searched by its declared grids and "
                "the full profile, not by `theorycheck search`")
    title = "Learners reading at most k attributes per example need ½⌊d/(96ε)⌋/k examples on P_j"
    reference = "Theorem 2.1 (cbss11's Theorem 1, restated per example)"
    statement = (
        "For 0 < ε < 1/16, k ≥ 1 and d > 4k, on cbss11's P_j (x ∈ {±1}^d, y = ±1, w* = 2√ε·e_j with ‖w*‖₁ ≤ 1) "
        "any learner that reads at most k attributes of each example sees at least ½⌊d/(96ε)⌋/k examples before "
        "its excess risk is below ε: Ω(d/(kε)).")
    hypotheses = ("0 < ε < 1/16, d > 4k", "‖x‖∞ ≤ 1, y ∈ {±1}, ‖w*‖₁ ≤ 1 (P_j with p = √ε)",
                  "every learner reads at most k attributes per example, k = k_budget + 1 (hk12's learners read "
                  "k_budget + 1)", "the good coordinate j is hidden from the learner (uniform on [d])")
    interpretation = (
        "hk12 quotes cbss11's Theorem 1 (Cesa-Bianchi et al.) without its constant; the constant is taken from "
        "cbss11: ½⌊d/(96ε)⌋ attributes, so at most k per example means at least ½⌊d/(96ε)⌋/k examples. A run "
        "violates the theorem when it is ε-good after fewer examples than that; since it read at most k per example, "
        "it then read fewer than ½⌊d/(96ε)⌋ attributes, so the probability the theorem allows is cbss11.thm1's "
        "(its interpretation gives the calibrated form for learners that succeed only with some probability). "
        "Learners: AER, AERR and AELR at budget k_budget (k_budget + 1 reads per example at most) and cbss11.thm1's "
        "`search` (k_budget reads); the bandit learner reads every attribute and is not a k-attribute learner, so "
        "it is not run. The per-example budget is checked on every fit (reads ≤ k·m, k = k_budget + 1), as a "
        "hypothesis. The paths keep d > 4k. The learners, success rule and excess are cbss11.thm1's; counts are "
        "examples (m at the first budget from which a run stays ε-good), rates are fitted on them.")
    parameters = {**Theorem1.parameters, "learners": Names("aer", "aerr", "aelr", "search")}
    bound_label = "bound ½⌊d/(96ε)⌋/k examples"
    order_label = "order d/ε (k fixed)"
    count_label = "examples seen"
    count_unit = "examples"
    base = {**Theorem1.base, "learners": ("aer", "aerr", "aelr", "search"), "k": 2}
    profiles = {
        "quick": {"d_grid": (16, 32, 64), "eps": 1 / 32, "eps_grid": (1 / 20, 1 / 32, 1 / 48), "d": 16,
                  "extra_d": 2048, "extra_eps": (1 / 32,), "repetitions": 64, "rate_repetitions": 2,
                  "max_cells": 400_000},
        "full": {"d_grid": (16, 32, 64, 128), "eps": 1 / 32, "eps_grid": (1 / 20, 1 / 32, 1 / 48, 1 / 64),
                 "d": 32, "extra_d": 4096, "extra_eps": (1 / 32, 1 / 8192), "repetitions": 96,
                 "rate_repetitions": 12, "max_cells": 20_000_000},
    }
    defects = (
        Defect("a learner that reads 2k attributes per example and reports k (more than k per example, unseen)",
               {"aer": _DEFECTS + "HalfReportedGoodFeature"}, overrides={"rate_repetitions": "0", "learners": "aer"},
               idea=True),
        Defect("a learner that reads the hidden j (one attribute per example, O(1/ε) examples whatever d)",
               {"aer": _DEFECTS + "CheatingGoodFeature", "instance": _DEFECTS + "leaky_good_feature"},
               overrides={"rate_repetitions": "0", "learners": "aer"}),
    )
    power_scope = ("catches only cheats: its bound (0.5–3.5 examples on quick's d and ε grids) lies far below every "
                   "honest learner's count (the best 61.8× above it on quick, seed 0), so no honest learner, however "
                   "slow, can FAIL it")
    power = (
        "It catches only cheats: at the constant 1/192 of cbss11's proof the bound is ½⌊d/(96ε)⌋/k examples (0.5 to "
        "3.5 on quick's d and ε grids), and the best honest learner (`search`) needs 61.8 times that at d = 16 and "
        "416 times at d = 32 (quick, seed 0: the ratio grows with d), so it cannot bind on any honest learner within "
        "the grids (a d where it would, within a small factor, would need an honest learner "
        "within a small factor of the information-theoretic optimum, which none of AER, AERR, AELR or `search` is). "
        "A learner that reads more attributes per example than it reports (2k read, k reported) FAILs at its first "
        "fit, from the reads observed through a watched view of X; one that reads the hidden j is caught at d = 2048, "
        "where ½⌊d/(96ε)⌋/k examples exceed the O(1/ε) it needs. The constant 1/192 keeps every honest learner far "
        "from the bound (cbss11.thm1's power): only a learner far better than `search`, a cheat or an under-count "
        "can FAIL it; a learner that is slow but honest is invisible to it, and its fitted exponents show it.")

    def paths(self, p):
        return AttributesNeeded.paths(self, p)

    def k_read(self, p) -> int:
        return p["k"] + 1

    def counted(self, m, n_read):
        return m

    def order(self, d, eps):
        return d / eps

    def bound(self, p, d, eps):
        return float(cbss11_thm1_attributes(d, eps)) / self.k_read(p)

    def measure(self, p, task, subjects, seed):
        out = super().measure(p, task, subjects, seed)
        k = self.k_read(p)
        over = [f"{r['learner']} at m = {r['m']}: {r['attributes']} reads" for r in out.rows
                if r["attributes"] > k * r["m"]]
        out.hypotheses.append(Hypothesis(f"every learner read at most k = {k} attributes per example (reads ≤ k·m)",
                                         not over, ", ".join(over[:4])))
        return out

    def point_hypotheses(self, p, design, d, eps):
        k = self.k_read(p)
        return [*super().point_hypotheses(p, design, d, eps),
                Hypothesis("Theorem 2.1's range: d > 4k and ‖w*‖₁ = 2√ε ≤ 1", d > 4 * k and 2 * math.sqrt(eps) <= 1,
                           f"d = {d}, k = {k}, ε = {eps:g}")]
