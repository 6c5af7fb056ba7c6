"""cbss11 Theorem 1 as an experiment: attributes needed on the good-feature distribution P_j.

The claim is :class:`theorycheck.kinds.lower_bound.AttributesNeeded`: learners are fitted on
a growing grid of budgets, on instances whose hidden part is drawn afresh per repetition, and the
attributes they observe before their exact excess risk stays ≤ ε are compared with the bound and
its order (see the kind's docstring for how a count is measured and decided).
"""

from __future__ import annotations

import math

from theorycheck.algorithms import AELR, AER, AERR, SequentialSearch, SuccessiveElimination
from theorycheck.bounds.hk12 import thm31_eta
from theorycheck.bounds.lower_bounds import (
    cbss11_horizon,
    cbss11_reward_upper,
    cbss11_thm1_attributes,
)
from theorycheck.claims import Defect, Hypothesis, register
from theorycheck.generators.lower_bounds import good_feature
from theorycheck.kinds.lower_bound import AttributesNeeded
from theorycheck.protocols import BudgetedLearner, Contract, Function
from theorycheck.validation import Budget, Grid, Integer, Names, Number

_DEFECTS = "tests.defects_lower_bounds:"
_LEARNER = Contract(BudgetedLearner, init=("k", "B", "random_state"))
_INSTANCE = Contract(Function, call=("d", "eps", "seed"))


def cbss11_instance(d, eps, seed):
    """cbss11's P_j (Appendix A.1) with p = √ε and the good coordinate j uniform from ``seed``."""
    return good_feature(d, eps, j_seed=seed)



@register
class Theorem1(AttributesNeeded):
    id = "cbss11.thm1"
    no_space = ("its decision is the smallest m at which each learner succeeds, found by a sequential search over "
                "m at every (d, ε) of the grid its slope needs; one point of (d, ε, k) is already a quick "
                "profile's run (not a trial of a few CPU seconds), so it is searched by its declared grids and "
                "the full profile, not by `theorycheck search`")
    title = "Learners need at least ½⌊d/(96ε)⌋ attributes on the good-feature distribution P_j"
    reference = "Theorem 1 (proof: Appendix A)"
    statement = (
        "For d ≥ 4 and 0 < ε < 1/16, on P_j (y uniform on ±1, x_i = y with probability ½ + √ε·1{i = j}) any "
        "learner that outputs w with L(w) − L(w*) < ε must observe at least ½⌊d/(96ε)⌋ attributes.")
    hypotheses = ("d ≥ 4", "0 < ε < 1/16", "the good coordinate j is hidden from the learner (uniform on [d])",
                  "every learner reports the attributes it read")
    interpretation = (
        "Loss (⟨w,x⟩ − y)² without ½; excess risk exact, ‖w − 2p·e_j‖². Success at a budget: excess < ε and "
        "argmax|w_i| = j (A.2: the first implies the second). The proof's strategy (A.4) reads the learner's "
        "attributes as bandit pulls (N of them) and then pulls argmax|w_i|; with Auer et al.'s bound (14) and j "
        "uniform this gives, for any learner with a fixed budget, E[(T − N)⁺·1{success}] ≤ T/d + "
        "T·√(−(T/d)·ln(1 − 4ε)) for T = ⌊d/(96ε)⌋, so P(success with N < T/2) ≤ 2/d + 2√(−(T/d)·ln(1 − 4ε)) "
        "≈ 0.41 + 2/d: the calibrated form of 'k ≥ T/2' for learners that succeed only with some probability "
        "(for one that always succeeds it is the printed bound). Learners at budget k: AER and AELR over the L1 "
        "ball of radius B = 1 (|y| ≤ B holds, ‖w*‖₁ = 2√ε ≤ 1) with their theorems' λ and η; AERR on x/√d "
        "(so that ‖x‖₂ ≤ 1) over the L2 ball of radius √d, run as η/d on x with B = 1, the same iterates; the "
        "bandit learner (successive elimination over coordinates, every active arm of each example); and the "
        "strongest learner written for P_j, `search` (SequentialSearch: told the construction's form and ε, it runs "
        "Wald's sequential test on the coordinates, k reads per example, and outputs 2√ε·e of the coordinate it "
        "accepts or finds most likely, so its excess is 0 once j is found). DDAERR is not run: every E[x_i²] is 1 "
        "on P_j, so its q is uniform and it is AERR. Tightness: per point and learner the mean first-passage "
        "count over the bound, reported, not decided; the page's observed/bound is the smallest. Besides the two "
        "paths, one point is run to success for the tightness, `tight_d`, `tight_eps` = 512, 1/16.5, chosen before "
        "this claim's run from a pilot of `search` alone (80 runs per point, mean count/bound 81–146 over d ∈ "
        "{128, …, 2048} and ε ∈ [1/20, 1/16.5], no point clearly best: the factor hardly moves in d once the "
        "acceptance cost ln(d/α) is amortised, and is smallest near ε = 1/16, where the floor ⌊d/(96ε)⌋ loses "
        "nothing at d = 512). Subjects: `instance` (d=, eps=, seed=) → a design; `aer`, `aerr`, `aelr`, `bandit`, "
        "`search`: BudgetedLearner classes (`search` also takes eps=).")
    subjects = {"instance": cbss11_instance, "aer": AER, "aerr": AERR, "aelr": AELR, "bandit": SuccessiveElimination,
                "search": SequentialSearch}
    protocols = {"instance": _INSTANCE, "aer": _LEARNER, "aelr": _LEARNER, "bandit": _LEARNER,
                 "aerr": Contract(BudgetedLearner, init=("k", "B", "eta", "random_state")),
                 "search": Contract(BudgetedLearner, init=("k", "eps", "B", "random_state"))}
    parameters = {**AttributesNeeded.parameters, "learners": Names("aer", "aerr", "aelr", "bandit", "search"),
                  "k": Budget("d", even=True, low=2), "d": Integer(4), "eps": Number(0.0, 0.0625, open="both"),
                  "d_grid": Grid(Integer(4)), "eps_grid": Grid(Number(0.0, 0.0625, open="both")),
                  "extra_d": Integer(4), "extra_eps": Grid(Number(0.0, 0.0625, open="both"), distinct=0),
                  "tight_d": Integer(4), "tight_eps": Number(0.0, 0.0625, open="both")}
    bound_label = "bound ½⌊d/(96ε)⌋"
    order_label = "order d/ε"
    base = {"learners": ("aer", "aerr", "aelr", "bandit", "search"), "k": 8, "delta": 1e-3, "resolution": 0.05,
            "slope_resolution": 0.25, "m_start": 2, "m_ratio": 2**0.5, "confirm": 2, "tight_d": 512,
            "tight_eps": 1 / 16.5}
    profiles = {
        "quick": {"d_grid": (8, 16, 32, 64), "eps": 1 / 32, "eps_grid": (1 / 20, 1 / 32, 1 / 48, 1 / 64), "d": 16,
                  "extra_d": 2048, "extra_eps": (1 / 32,), "repetitions": 24, "rate_repetitions": 6,
                  "max_cells": 4_000_000},
        "full": {"d_grid": (8, 16, 32, 64, 128), "eps": 1 / 32, "eps_grid": (1 / 20, 1 / 32, 1 / 48, 1 / 64, 1 / 96),
                 "d": 32, "extra_d": 4096, "extra_eps": (1 / 32, 1 / 8192), "repetitions": 40, "rate_repetitions": 12,
                 "max_cells": 20_000_000},
    }
    defects = (
        Defect("a learner that reads the hidden j (O(1/ε) attributes whatever d)",
               {"bandit": _DEFECTS + "CheatingGoodFeature", "instance": _DEFECTS + "leaky_good_feature"},
               overrides={"rate_repetitions": "0", "learners": "bandit"}),
        Defect("a generator whose good feature copies the label (bias ½ instead of √ε)",
               {"instance": _DEFECTS + "label_copy_feature"},
               overrides={"rate_repetitions": "0", "learners": "bandit", "extra_eps": "0.03125,0.0001220703125"}),
        Defect("a learner that reads 2k attributes per example and reports k (the under-count that beats a bound)",
               {"aer": _DEFECTS + "HalfReportedGoodFeature"}, overrides={"rate_repetitions": "0", "learners": "aer"},
               idea=True),
        Defect("AERR in numba that records its path but computes ⟨w, x⟩ from all d attributes on the raw array",
               {"aerr": "tests.defects_users:CompiledExactInnerAERR"},
               overrides={"rate_repetitions": "0", "learners": "aerr"}),
    )
    power = (
        "Catches a learner that beats the bound: one that reads the hidden j (caught at d = 2048, where ½⌊d/(96ε)⌋ "
        "exceeds its O(1/ε) count) and a generator whose good feature is too strong (a copy of the label: caught at "
        "d = 2048, ε = 1/8192, added to quick for that defect and part of full, where the bound exceeds the "
        "d·O(log d) reads that finding j then takes). A learner that reports fewer attributes than it reads (2k "
        "read, k reported) FAILs at its first fit, from the reads observed through a watched view of X: the count "
        "the bound is compared with is never only the learner's word (built-in learners excepted: their kernels "
        "read the raw buffer, and their counters are audited by the test suite). The "
        "constant 1/192 keeps every honest learner far from the bound: on quick (seed 0) the strongest learner here, "
        "`search` (told P_j's form), needs 91 times the bound at best (its mean first-passage count at d = 64, "
        "ε = 1/32; 101 times at the tightness point d = 512, ε = 1/16.5), the bandit learner 273 times, AERR "
        "3.9·10³, AELR 1.0·10⁴ and AER 1.7·10⁴ times; on full, 87 (search at d = 32, ε = 1/48; 139 at the "
        "tightness point), 401, 4.6·10³, 9.5·10³ and 1.8·10⁴ (each learner's smallest factor is in the notes, the "
        "smallest of all is the page's observed/bound). The factor of a point is a mean over few runs (6 on quick, "
        "12 on full) and spreads widely: where j falls in the search's scan order, and whether its test rejects it "
        "once (probability ≤ β = ½, one more cycle), decide most of the count; on quick with seed 1 the tightness "
        "point gives 33 and the paths' points 43–218. The tightness point was chosen from the search's stopping "
        "counts; on seed 0 its factor came out no smaller than on the paths' points, so the smallest factor is "
        "taken over every point (a minimum of noisy means, which leans low). A search must test about "
        "d/2 fair coordinates, each needing a few "
        "reads at bias √ε, so no learner can come much nearer: the gap is the theorem's constant, not a weak "
        "learner. Only a learner about 90 times better than `search` on P_j (a cheat, an under-count, an "
        "instance too easy) can FAIL the bound; a defect that slows learning or leaves it correct but "
        "inefficient is invisible to it, and the reported exponents and factors show it instead.")

    def extra_points(self, p):
        return [(p["extra_d"], e) for e in p["extra_eps"]]

    def paths(self, p):
        point = (p["tight_d"], p["tight_eps"])
        return [*super().paths(p), (f"tightness point d = {point[0]}, ε = {point[1]:.4g}", "point", [point])]

    def learner_params(self, p, name, d, eps, m):
        if name == "bandit":
            return {"k": d, "B": 1.0}
        if name == "search":
            return {"k": p["k"], "eps": eps, "B": 1.0}
        if name == "aerr":
            return {"k": p["k"], "B": 1.0, "eta": thm31_eta(d, p["k"], m) / d}
        return {"k": p["k"], "B": 1.0}

    def excess(self, p, design, w):
        return design.excess_risk(w)

    def success(self, p, design, eps, w, excess):
        return excess < eps and design.identify(w) == design.j

    def order(self, d, eps):
        return d / eps

    def bound(self, p, d, eps):
        return float(cbss11_thm1_attributes(d, eps))

    def violation_probability(self, p, d, eps):
        T, bias = cbss11_horizon(d, eps), math.sqrt(eps)
        if T < 1:  # the bound is 0 attributes: no run can fall below it
            return 1.0
        per_pull = (cbss11_reward_upper(T, d, bias) - T / 2) / (bias * T)  # 1/d + √(−(T/d) ln(1 − 4ε))
        return min(1.0, per_pull * T / (T - self.bound(p, d, eps)))

    def point_hypotheses(self, p, design, d, eps):
        return [Hypothesis("Theorem 1's range: d ≥ 4 and 0 < ε < 1/16", d >= 4 and 0 < eps < 1 / 16,
                           f"d = {d}, ε = {eps:g}")]
