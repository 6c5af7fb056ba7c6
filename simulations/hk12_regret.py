"""The regret lemmas of Hazan & Koren (ICML 2012), §3: checked on the paths AERR and AELR take.

Lemmas 3.2 and 3.5 hold on every run (:class:`theorycheck.kinds.pathwise.Pathwise`); Lemmas 3.6
and 3.7 in expectation (:class:`theorycheck.kinds.pathwise.ExpectedInequality`). Every check reads
the learner's own recorded trajectory (``record_trajectory=True``).
"""

from __future__ import annotations

import numpy as np

from theorycheck.algorithms import AELR, AERR
from theorycheck.bounds.hk12 import thm31_eta, thm34_eta
from theorycheck.bounds.hk12_regret import (
    lemma32_rhs,
    lemma32_rhs_sharp,
    lemma35_rhs,
    lemma36_range,
    lemma36_rhs,
    lemma37_eta_max,
    lemma37_range,
    lemma37_rhs,
    second_moment_sharp,
)
from theorycheck.claims import Defect, register
from theorycheck.generators.registry import design_names, lasso_design, ridge_design
from theorycheck.kinds.pathwise import ExpectedInequality, Pathwise
from theorycheck.search import Choice, Int, Real, Space, at_most
from theorycheck.validation import Budget, Grid, Integer, Names, Number, ParameterError, Positive

_DEFECTS = "tests.defects_regret:"
_RULES = {"d": Integer(1), "k": Budget(), "B": Positive(), "m": Integer(1), "noise": Number(0, 1), "rho": Number(0, 1)}
_LASSO = {**_RULES, "s": Budget(), "designs": Names(*design_names("lasso")), "eta_rules": Names("theorem", "max")}
_SUBJECTS = ("Subjects: `learner`, built as learner(k=, B=, eta=, random_state=int, record_trajectory=True), whose "
             "fit sets coef_ and trajectory_ (w_t, the gradients used, AELR's p_t); `design`, (params, name) → a "
             "Design of the registry. ")
_G = ("G² = 4B²(d + k − 1)/k, the bound on ‖E_t g̃_t²‖∞ that Appendix A.5 computes before loosening it to "
      "Lemma 3.8's 8B²d/k; it holds for every design with ‖x‖∞ ≤ 1 and |y| ≤ B, and the smaller G makes the check "
      "stronger. ")


def _lasso_settings(p, rules):
    g2 = second_moment_sharp(p["d"], p["k"], p["B"])
    eta = {"theorem": thm34_eta(p["d"], p["k"], p["m"], p["B"], "theorem"), "max": lemma37_eta_max(g2)}
    return [{"design": name, "eta": eta[rule], "label": f"{name}, η {rule}", "G2": g2}
            for name in p["designs"] for rule in rules]


@register
class Lemma32(Pathwise):
    id = "hk12.lemma3.2"
    title = "AERR: OGD regret with the estimated gradients, on every run"
    reference = "Lemma 3.2, eq. (4) (and its proof, Zinkevich 2003)"
    statement = ("On every run of AERR, for every ‖w‖₂ ≤ B: Σ_t g̃_tᵀ(w_t − w) ≤ 2B²/η + (η/2)Σ_t ‖g̃_t‖², where w_t "
                 "are the iterates (each in the ball) and g̃_t the gradient estimates the updates used.")
    hypotheses = ("‖w_1‖₂ ≤ B (checked with every iterate, in 'iterates in the ball')",
                  "the learner used the η and B it was given")
    interpretation = (
        "Checked at the worst comparator of each run: w = −B·Σg̃/‖Σg̃‖ for eq. (4) as printed; for the form its "
        "proof gives, ‖w_1 − w‖²/(2η) in place of 2B²/η, the maximiser of the difference, the projection of "
        "w_1 − ηΣg̃ onto the ball. Without projections that form is an identity up to −‖w_{m+1} − w‖²/(2η), so it is "
        "tight to rounding whenever the iterates stay inside the ball. Lemma 3.2 is pure algebra on the updates: it "
        "needs no hypothesis on the data. Step sizes: Theorem 3.1's η = √(k/(2dm)) times each factor of "
        "eta_factors. " + _SUBJECTS)
    subjects = {"learner": AERR, "design": ridge_design}
    inequalities = {"eq. (4)": "Σ g̃ᵀ(w_t − w) ≤ 2B²/η + (η/2)Σ‖g̃_t‖² at the worst w",
                    "proof of (4)": "Σ g̃ᵀ(w_t − w) ≤ ‖w_1 − w‖²/(2η) + (η/2)Σ‖g̃_t‖² at the worst w",
                    "iterates in the ball": "max_t ‖w_t‖₂ ≤ B (Algorithm 1, line 12)"}
    parameters = {**Pathwise.parameters, **_RULES, "designs": Names(*design_names("ridge")),
                  "eta_factors": Grid(Positive(), distinct=1)}
    base = {"k": 1, "B": 1.0, "noise": 0.2, "rho": 0.9, "designs": ("boundary", "correlated_mixed", "mixed"),
            "eta_factors": (1.0, 10.0), "rounding": 1e-9}
    profiles = {"quick": {"d": 10, "m": 2000, "repetitions": 50},
                "full": {"d": 100, "k": 10, "m": 20000, "repetitions": 100}}
    # Eq. (4) is algebra on the updates of projected OGD: it holds on every run, for every d, 1 ≤ k ≤ d, m, B > 0,
    # every data set (the ridge designs) and every constant step η > 0, here Theorem 3.1's η times a factor over
    # four decades. Ranges bounded by a quick trial's cost (50 runs of one design: about 3 CPU s at d = 64,
    # m = 20000).
    space = Space(
        dims={"d": Int(2, 64, log=True), "k": Int(1, 64, log=True), "m": Int(100, 20000, log=True),
              "B": Real(0.25, 4.0, log=True), "eta_factors": Real(0.01, 100.0, log=True),
              "designs": Choice(design_names("ridge")), "rho": Real(0.0, 1.0), "noise": Real(0.0, 1.0)},
        constraints=(at_most("k", "d"),),
        why="the lemma's ∀ runs, d, k ≤ d, m, B, data and η, bounded by a quick trial's cost")
    defects = (
        Defect("no projection (line 12 dropped)", {"learner": _DEFECTS + "AERRNoProjection"}),
        Defect("gradient ascent (step along +g̃)", {"learner": _DEFECTS + "AERRAscent"}),
        Defect("steps 2η, reports η", {"learner": _DEFECTS + "AERRDoubleStep"}),
        Defect("never moves (computes each step, applies none)", {"learner": _DEFECTS + "AERRFrozen"},
               idea=True),
        Defect("returns w_1, not the average of its path", {"learner": _DEFECTS + "AERRReturnsStart"}),
    )
    power = (
        "Catches a sign error in the step and a learner that does not move (the regret grows linearly), a step "
        "larger than the η it reports (the form from the proof is tight: its (η/2)Σ‖g̃‖² is then too small) and a "
        "missing projection, but the last only through 'iterates in the ball': the regret inequality itself holds "
        "for unprojected gradient descent, so it cannot see one. A learner that returns anything but the mean of "
        "its path fails the check every run makes. It says nothing about the gradient estimate: Lemma 3.2 holds "
        "for any vectors g̃_t (that is Lemma 3.3's job).")

    def settings(self, p):
        base = thm31_eta(p["d"], p["k"], p["m"])
        return [{"design": name, "eta": c * base, "label": f"{name}, η×{c:g}"}
                for name in p["designs"] for c in p["eta_factors"]]

    def sides(self, p, s, path):
        w, g, B, eta = path.w, path.g, float(p["B"]), s["eta"]
        total, sq, played = g.sum(axis=0), float((g * g).sum()), (g * w).sum(axis=1)
        size = float(np.linalg.norm(total))
        worst = -B * total / size if size > 0 else np.zeros_like(total)
        v = w[0] - eta * total
        far = v * B / max(float(np.linalg.norm(v)), B)
        printed, sharp = lemma32_rhs(B, eta, sq), lemma32_rhs_sharp(float(((w[0] - far) ** 2).sum()), eta, sq)
        return {"eq. (4)": (played.sum() - total @ worst, printed, np.abs(played - g @ worst).sum() + printed),
                "proof of (4)": (played.sum() - total @ far, sharp, np.abs(played - g @ far).sum() + sharp),
                "iterates in the ball": (np.linalg.norm(w, axis=1).max(), B, B)}

    def ceiling(self, p, s, path):
        top = 2.0 * float(p["B"]) * float(np.linalg.norm(path.g, axis=1).sum())
        return {"eq. (4)": top, "proof of (4)": top}


@register
class Lemma35(Pathwise):
    id = "hk12.lemma3.5"
    space = Space(
        dims={"d": Int(2, 64, log=True), "k": Int(1, 64, log=True), "m": Int(100, 5000, log=True),
              "B": Real(0.25, 4.0, log=True), "s": Int(1, 64, log=True), "designs": Choice(design_names("lasso")),
              "rho": Real(0.0, 1.0), "noise": Real(0.0, 1.0)},
        constraints=(at_most("k", "d"), at_most("s", "d")),
        why=("the lemma's ∀ runs, d, k ≤ d, m, B and data (the lasso designs), bounded by a quick trial's cost"))
    title = "AELR: second-order multiplicative-weights regret, on every run"
    reference = "Lemma 3.5 (via Lemma A.1, after Clarkson et al. 2010)"
    statement = ("On every run of AELR, with p_t = (z⁺_t, z⁻_t)/‖(z⁺_t, z⁻_t)‖₁ and ḡ'_t = (ḡ_t, −ḡ_t): Σ_t p_tᵀḡ'_t ≤ "
                 "min_i Σ_t ḡ'_t[i] + log(2d)/η + η Σ_t p_tᵀ(ḡ'_t)², where ḡ_t is the clipped gradient estimate the "
                 "update used.")
    hypotheses = ("the learner used the η and B it was given, and w_t = B(p⁺_t − p⁻_t)",)
    interpretation = (
        "Lemma A.1 needs ḡ'_t ≥ −1/η, which Algorithm 2's clipping (line 13) ensures; it is checked as the second "
        "inequality. Like Lemma 3.2 this is algebra on the updates and needs no hypothesis on the data. Step sizes: "
        "'theorem' is Theorem 3.4's stated η, 'max' the largest Lemma 3.7 allows, 1/(2G) with " + _G + _SUBJECTS)
    subjects = {"learner": AELR, "design": lasso_design}
    inequalities = {"Lemma 3.5": "Σ p_tᵀḡ'_t − min_i Σ ḡ'_t[i] ≤ log(2d)/η + ηΣ p_tᵀ(ḡ'_t)²",
                    "clipped": "max_{t,i} |ḡ_t[i]| ≤ 1/η (Algorithm 2, line 13; Lemma A.1 needs ḡ' ≥ −1/η)"}
    parameters = {**Pathwise.parameters, **_LASSO}
    base = {"k": 1, "B": 1.0, "noise": 0.2, "rho": 0.9, "s": 2, "designs": ("label_bound", "mixed", "sparse"),
            "eta_rules": ("theorem", "max"), "rounding": 1e-9}
    profiles = {"quick": {"d": 16, "m": 1000, "repetitions": 50},
                "full": {"d": 64, "k": 4, "m": 10000, "repetitions": 200}}
    defects = (
        Defect("EG± with the wrong sign", {"learner": _DEFECTS + "AELRWrongSign"}),
        Defect("never moves (computes each step, applies none)", {"learner": _DEFECTS + "AELRFrozen"},
               idea=True),
        Defect("no clipping (line 13 dropped)", {"learner": _DEFECTS + "AELRNoClip"}),
        Defect("biased estimate: importance weight d² instead of d", {"learner": _DEFECTS + "AELRSquaredWeight"},
               caught=True, why="caught by the conformance to AELR run before the claim (its estimator and behaviour "
                                "checks); the claim's own test alone does not catch it: a regret bound holds for any "
                                "sequence of clipped losses, whatever their law"),
    )
    power = (
        "Catches an update with the wrong sign and a learner that does not move (both make the regret against the "
        "best vertex grow linearly) and a missing clip (directly). Like any regret bound it is blind to the "
        "gradient estimate: a biased or noisier ḡ_t is still a sequence of losses the inequality holds for.")

    def settings(self, p):
        return _lasso_settings(p, p["eta_rules"])

    def sides(self, p, s, path):
        if path.p is None:
            raise ParameterError("Lemma 3.5 needs the learner's distributions p_t (trajectory_['p'], shape (m, 2d))")
        eta, d = s["eta"], path.g.shape[1]
        gp = np.concatenate([path.g, -path.g], axis=1)
        played, best = (path.p * gp).sum(axis=1), float(gp.sum(axis=0).min())
        rhs = lemma35_rhs(d, eta, float((path.p * gp * gp).sum()))
        return {"Lemma 3.5": (played.sum() - best, rhs, np.abs(played).sum() + abs(best) + rhs),
                "clipped": (float(np.abs(path.g).max()), 1.0 / eta, 1.0 / eta)}

    def ceiling(self, p, s, path):
        return {"Lemma 3.5": 2.0 * float(np.abs(path.g).max(axis=1).sum())}


@register
class Lemma36(ExpectedInequality):
    id = "hk12.lemma3.6"
    space = Space(
        dims={"d": Int(2, 64, log=True), "k": Int(1, 64, log=True), "m": Int(100, 5000, log=True),
              "B": Real(0.25, 4.0, log=True), "s": Int(1, 64, log=True), "designs": Choice(design_names("lasso")),
              "rho": Real(0.0, 1.0), "noise": Real(0.0, 1.0)},
        constraints=(at_most("k", "d"), at_most("s", "d")),
        why=("the lemma's ∀ d, k ≤ d, m, B and data (the lasso designs), bounded by a quick trial's cost"))
    title = "AELR: expected regret on the clipped linear losses ≤ B(log(2d)/η + ηG²m)"
    reference = "Lemma 3.6"
    statement = ("If ‖E_t g̃_t²‖∞ ≤ G² for all t, then for every ‖w*‖₁ ≤ B, AELR's iterates satisfy "
                 "E Σ_t ḡ_tᵀw_t ≤ E Σ_t ḡ_tᵀw* + B(log(2d)/η + ηG²m).")
    hypotheses = ("‖x‖∞ ≤ 1 and |y| ≤ B almost surely (then ‖E_t g̃_t²‖∞ ≤ G² = 4B²(d + k − 1)/k)",
                  "the learner used the η and B it was given")
    interpretation = (
        "Checked in the stronger form Appendix A.3 proves: the comparator may depend on the run, so each run "
        "contributes sup over the ball of Σ ḡ_tᵀ(w_t − w) = Σ ḡ_tᵀw_t + B‖Σ ḡ_t‖∞; this implies the statement for "
        "every fixed w*. " + _G + "Its almost-sure range: ≥ 0 (the regret of exponential weights against their best "
        "coordinate is never negative) and ≤ B(log(2d)/η + ηm·min(1/η, 2Bd)²) (Lemma 3.5 on every path); see "
        "theorycheck.bounds.hk12_regret.lemma36_range. Step sizes as in hk12.lemma3.5. " + _SUBJECTS)
    subjects = {"learner": AELR, "design": lasso_design}
    data_norm = "l1"
    inequalities = {"worst comparator": "E sup_{‖w‖₁≤B} Σ ḡ_tᵀ(w_t − w) ≤ B(log(2d)/η + ηG²m)"}
    parameters = {**ExpectedInequality.parameters, **_LASSO}
    base = {"k": 1, "B": 1.0, "noise": 0.2, "rho": 0.9, "s": 2, "eta_rules": ("theorem", "max"), "delta": 1e-3,
            "resolution": 0.1}
    profiles = {"quick": {"d": 4, "m": 1000, "designs": ("label_bound", "mixed"), "repetitions": 200},
                "full": {"d": 8, "m": 5000, "designs": ("label_bound", "mixed", "sparse", "correlated_mixed"),
                         "repetitions": 500}}
    defects = (
        Defect("EG± with the wrong sign", {"learner": _DEFECTS + "AELRWrongSign"}),
        Defect("never moves (computes each step, applies none)", {"learner": _DEFECTS + "AELRFrozen"},
               idea=True),
        Defect("biased estimate: importance weight d² instead of d", {"learner": _DEFECTS + "AELRSquaredWeight"},
               caught=True, why="caught by the conformance to AELR run before the claim (its estimator and behaviour "
                                "checks); the claim's own test alone does not catch it: at quick's d = 4 the weight "
                                "d² only scales the estimate by 4 and clipping caps it: "
                                "the regret rises from about 0.7 to 0.85 of the bound, still below it"),
    )
    power = (
        "Catches an update with the wrong sign and a learner that does not move: at d = 4 the bound's G ∝ √d is "
        "small enough that a regret growing like m·B² exceeds it (at large d it would not: the bound grows with "
        "G while such a regret does not). A biased or inflated gradient estimate is caught only when its second "
        "moment beats G² by more than the slack of Lemma 3.5 (observed regret/bound about 0.7 at η 'theorem').")

    def settings(self, p):
        return _lasso_settings(p, p["eta_rules"])

    def lhs(self, p, s, path):
        return {"worst comparator": [float((path.g * path.w).sum()) + float(p["B"]) * np.abs(path.g.sum(0)).max()]}

    def rhs(self, p, s, family):
        return lemma36_rhs(p["d"], p["B"], s["eta"], s["G2"], p["m"])

    def range(self, p, s, family):
        return lemma36_range(p["d"], p["B"], s["eta"], p["m"])


@register
class Lemma37(ExpectedInequality):
    id = "hk12.lemma3.7"
    space = Space(
        dims={"d": Int(2, 64, log=True), "k": Int(1, 64, log=True), "m": Int(100, 5000, log=True),
              "B": Real(0.25, 4.0, log=True), "s": Int(1, 64, log=True), "designs": Choice(design_names("lasso")),
              "rho": Real(0.0, 1.0), "noise": Real(0.0, 1.0), "eta_factors": Real(0.01, 1.0, log=True)},
        constraints=(at_most("k", "d"), at_most("s", "d")),
        why=("the lemma's ∀ d, k ≤ d, m, B, data and 0 < η ≤ 1/(2G) (a factor ≤ 1 of the largest η), bounded by a "
             "quick trial's cost"))
    title = "AELR: the clipping costs at most 4BηG²m in expectation"
    reference = "Lemma 3.7 (Appendix A.4, Lemma A.2); corrected in Kukliansky & Shamir (2015), supplement"
    statement = ("If ‖E_t g̃_t²‖∞ ≤ G² for all t and 0 < η ≤ 1/(2G), AELR's iterates satisfy E Σ_t g̃_tᵀw_t ≤ "
                 "E Σ_t ḡ_tᵀw_t + 4BηG²m (as printed); corrected: E Σ_t g̃_tᵀ(w_t − w*) ≤ E Σ_t ḡ_tᵀ(w_t − w*) + "
                 "4BηG²m for every ‖w*‖₁ ≤ B.")
    hypotheses = ("‖x‖∞ ≤ 1 and |y| ≤ B almost surely", "η ≤ 1/(2G) (each eta_factor ≤ 1)",
                  "the learner used the η and B it was given")
    interpretation = (
        "Both forms are checked. The corrected one must hold for every fixed w*; its left-hand side is linear in w*, "
        "so the worst fixed w* is one of the 2d vertices ±B·e_i, and all of them are tested (union bound); w* = 0 "
        "is the printed form. " + _G + "η = c/(2G) for each c of eta_factors: at Theorem 3.4's smaller η no "
        "coordinate of g̃ can exceed 1/η (|g̃_t[i]| ≤ 2Bd) and the lemma holds trivially, so only η near 1/(2G) tests "
        "it; c = 1 clips the paper's estimator most often, c = 1/2 leaves less room to an estimator that clips too "
        "much. Almost-sure range: ±m·2B(2Bd − 1/η) (theorycheck.bounds.hk12_regret.lemma37_range). " + _SUBJECTS)
    subjects = {"learner": AELR, "design": lasso_design}
    data_norm = "l1"
    inequalities = {"printed (w* = 0)": "E Σ (g̃_t − ḡ_t)ᵀw_t ≤ 4BηG²m",
                    "corrected (2d vertices)": "E Σ (g̃_t − ḡ_t)ᵀ(w_t − w*) ≤ 4BηG²m at each w* = ±B·e_i"}
    parameters = {**ExpectedInequality.parameters, **_RULES, "s": Budget(), "designs": Names(*design_names("lasso")),
                  "eta_factors": Grid(Number(0, 1, open="low"), distinct=1)}
    base = {"k": 1, "B": 1.0, "noise": 0.2, "rho": 0.9, "s": 2, "eta_factors": (1.0, 0.5), "delta": 1e-3,
            "resolution": 0.1}
    profiles = {"quick": {"d": 32, "m": 200, "designs": ("label_bound", "sparse"), "repetitions": 400},
                "full": {"d": 64, "m": 400, "designs": ("label_bound", "sparse", "mixed", "correlated_mixed"),
                         "repetitions": 1000}}
    defects = (
        Defect("biased estimate: importance weight d² instead of d", {"learner": _DEFECTS + "AELRSquaredWeight"},
               idea=True),
        Defect("never moves (computes each step, applies none)", {"learner": _DEFECTS + "AELRFrozen"}, caught=True,
               why="caught by the conformance to AELR run before the claim (its behaviour check); the claim's own "
                   "test alone does not catch it: Lemma 3.7 bounds the bias of clipping the estimator, whatever "
                   "iterates in the ball it is "
                   "evaluated at, so a learner that does not move satisfies it (rightly)"),
        Defect("returns w_1, not the average of its path", {"learner": _DEFECTS + "AELRReturnsStart"}),
    )
    power = (
        "Lemma 3.7 is about the estimator and its clipping, not about learning: it catches an estimator whose "
        "second moment exceeds G² enough for clipping to remove more than 4BηG² per step (an importance weight d² "
        "instead of d), and no defect of the update (only a learner whose w̄ is not the mean of its path, by the "
        "check every run makes). It is loose: the clipping bias observed is a few hundredths "
        "of the bound, because G² grows like d while the bias of the paper's estimator does not.")

    def settings(self, p):
        g2 = second_moment_sharp(p["d"], p["k"], p["B"])
        return [{"design": name, "eta": c * lemma37_eta_max(g2), "G2": g2, "label": f"{name}, η = {c:g}/(2G)"}
                for name in p["designs"] for c in p["eta_factors"]]

    def lhs(self, p, s, path):
        cut = path.g_tilde - path.g
        printed, column = float((cut * path.w).sum()), cut.sum(axis=0) * float(p["B"])
        return {"printed (w* = 0)": [printed], "corrected (2d vertices)": np.concatenate([printed - column,
                                                                                           printed + column])}

    def rhs(self, p, s, family):
        return lemma37_rhs(p["B"], s["eta"], s["G2"], p["m"])

    def range(self, p, s, family):
        return lemma37_range(p["d"], p["B"], s["eta"], p["m"])
