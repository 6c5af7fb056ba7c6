"""Monte-Carlo checks of hk12 §4: Lemma 4.1 (GenEst: unbiased, ≤ 3 attributes in expectation,
finite second moment; its exact parts come from proofs/hk12_svr.py) and Theorem 4.4 (AESVR)."""

from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog, minimize
from scipy.special import erf

from proofs.hk12_svr import (
    ERRATUM_SECOND,
    U,
    capped_example_queries,
    capped_expected_queries,
    literal_expected_queries,
    polynomial_instances,
    second_moment_rows,
)
from theorycheck import genest as est
from theorycheck import stats
from theorycheck.algorithms import AESVR
from theorycheck.algorithms.aesvr import insensitive_loss, smoothed_loss, smoothed_loss_derivative
from theorycheck.bounds.hk12_svr import (
    GENEST_QUERIES,
    THM44_EXPONENT,
    lemma41_second_moment_bound,
    thm44_queries_bound,
)
from theorycheck.claims import Defect, Erratum, Hypothesis, register
from theorycheck.kinds.exact import dot
from theorycheck.kinds.sampled import SAMPLED_PARAMETERS, ExactWithSampling, RateWithBudget
from theorycheck.observe import counted_fit
from theorycheck.protocols import BudgetedLearner, Contract, Function
from theorycheck.spaces import Int, Real, Space
from theorycheck.validation import Grid, Integer, ParameterError, Positive

D = "tests.defects_hk12_svr:"
FUNCTIONS = {"exp": (est.taylor_exp, np.exp), "sin": (est.taylor_sin, np.sin), "erf": (est.taylor_rho_prime, erf)}
#: (w, x, y) with ‖x‖₂ ≤ 1, ‖w‖₂ ≤ 1, |y| ≤ 1, mixed signs and |w_j| not small (a bounded range)
SAMPLED_INSTANCES = (((0.5, -0.4, 0.45), (0.35, 0.3, -0.25), 0.3),
                     ((-0.45, 0.55, 0.4), (-0.5, 0.1, 0.3), -0.6),
                     ((0.6, 0.45, -0.5), (0.2, -0.3, -0.4), 0.0))


@register
class Lemma4_1(ExactWithSampling):
    observed_label = 'the largest expected number of attributes GenEst reads per call, over the cases'
    id = "hk12.lemma4.1"
    space = Space(
        dims={"B": Real(0.5, 100.0, log=True), "laws": Int(1, 60)},
        why=("the lemma's ∀ B and laws of x (random laws: how many), up to the full profile's B; θ/B's grid stays "
             "the profile's"))
    title = "GenEst is unbiased for f′(⟨w,x⟩ − y), reads ≤ 3 attributes in expectation, finite second moment"
    reference = "Lemma 4.1 and Procedure 3 (§4.1); proof in Appendix A.6"
    statement = ("For analytic f with f′ = Σ aₙtⁿ, GenEst's φ̂ has E φ̂ = f′(⟨w,x⟩ − y); if ‖x‖₂ ≤ 1, ‖w‖₂ ≤ B, "
                 "|y| ≤ B and Σ|aₙ| < ∞, then E φ̂² ≤ exp(O(log²B)), and GenEst reads at most 3 attributes of x in "
                 "expectation.")
    hypotheses = ("‖x‖₂ ≤ 1, ‖w‖₂ ≤ B, |y| ≤ B", "Σ|aₙ| < ∞ (f′'s series converges absolutely on |t| ≤ 1)")
    interpretation = (
        "Procedure 3 as printed (see theorycheck.genest: N = ⌈4B²⌉, n ≤ ⌊log₂N²⌋ takes the first branch, "
        "queries counted with repetition). Exact parts (rationals): the complete law of `distribution` for random "
        "polynomial f′ of degree ≤ 3 (so every n with aₙ ≠ 0 takes the first branch) has mass 1 and mean Σaₙθⁿ; "
        "`expected_queries(B)` equals the term-by-term sum Σ Pr[n]·queries(n) (within its exact tail) and is ≤ 3 "
        "for every B of the grid; `moments` (the series for E φ̂ and E φ̂²) has mean f′(θ) by numpy/scipy within "
        "rounding, and a finite second moment ≤ 2Σaₙ²(8B² + ½)ⁿ (our derivation, on w = B·e₁, x = e₁, θ = tB for "
        "t ∈ theta_over_B) — the printed exp(O(log²B)) form is reported as an erratum, not decided. Sampled: "
        "`estimate` is drawn mc_samples times on three fixed instances for f′ ∈ {exp, sin, erf} (their first 40 "
        "coefficients: a polynomial, whose range max_n 2ⁿ⁺¹|aₙ|Mⁿ with M = max_j |‖w‖²x_j/w_j − y| is finite); "
        "each mean must equal Σaₙθⁿ (decide_mean_equals, empirical Bernstein ∩ Hoeffding), and on the first "
        "instance, for each B, the mean of min(queries, cap) must equal its exact value (the query law)."
    )
    subjects = {"distribution": est.genest_distribution, "expected_queries": est.genest_expected_queries,
                "moments": est.genest_moments, "estimate": est.genest}
    protocols = {"distribution": Contract(Function, call=("w", "x", "y", "coefficients", "B")),
                 "expected_queries": Contract(Function, call=("B",)),
                 "moments": Contract(Function, call=("w", "x", "y", "coefficients", "B")),
                 "estimate": Contract(Function, call=("w", "x", "y", "coefficients", "B", "random_state"))}
    parameters = {"B": Grid(Positive(), distinct=1), "laws": Integer(1), "theta_over_B": Grid(Positive()),
                  "mc_samples": Integer(100), "cap": Integer(2), **SAMPLED_PARAMETERS}
    base = {"delta": 1e-3, "resolution": 0.05, "cap": 64, "theta_over_B": (0.25, 1.0, 2.0)}
    profiles = {"quick": {"B": (0.5, 1.0, 2.0, 3.0), "laws": 12, "mc_samples": 400_000},
                "full": {"B": (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 100.0), "laws": 60, "mc_samples": 2_000_000}}
    checks = {"law_mass": "the exact law has total mass 1 and no negative mass",
              "law_unbiased": "the exact law's mean is Σ aₙθⁿ = f′(θ)",
              "queries_exact": "expected_queries(B) equals Σ_n Pr[n]·queries(n)",
              "queries_at_most_3": "E[queries] ≤ 3",
              "series_mean": "moments' mean equals f′(θ) computed by numpy/scipy (within rounding)",
              "finite": "E φ̂² is finite",
              "within_corrected": "E φ̂² ≤ 2Σaₙ²(8B² + ½)ⁿ (our derivation; what holds)"}
    case_columns = ("part", "B", "function", "instance")
    details = {"law_unbiased": ("mean", "target"), "queries_exact": ("expected_queries", "literal"),
               "queries_at_most_3": ("expected_queries",), "series_mean": ("mean", "target")}
    sampled_what = "GenEst's sampled mean = Σaₙθⁿ and mean capped queries = exact"
    errata = (ERRATUM_SECOND,)
    erratum_checks = {"second-moment": ("within_corrected", "within_printed")}
    defects = (
        Defect("geometric weight 2ⁿ instead of 2ⁿ⁺¹", {"estimate": D + "genest_half_weight"}, idea=True),
        Defect("threshold log₂N instead of 2·log₂N", {"estimate": D + "genest_small_threshold"}),
        Defect("expected queries with threshold log₂N", {"expected_queries": D + "expected_queries_small_threshold"}),
        Defect("law with a sign error in the coefficients", {"distribution": D + "law_sign_error"}),
    )
    power = ("Exact parts: any error in the law's mean or mass, in the expected number of queries, or in the "
             "series is a FAIL. Sampled: a bias larger than the interval's half-width (≈ 0.01–0.04 on quick's "
             "4·10⁵ draws on these instances) or a change in the law of the number of queries below the cap is "
             "caught; a defect confined to large n (probability 2^-n) is not seen in the sampled rows.")

    def cases(self, p):
        return ([{"part": "law"}, {"part": "queries"}, {"part": "second"}, {"part": "series"}]
                + [{"part": "sampled", "instance": i} for i in range(len(SAMPLED_INSTANCES))])

    def evaluate(self, p, case, subjects, rng):
        return getattr(self, "_" + case["part"])(p, case, subjects, rng)

    def _law(self, p, case, subjects, rng):
        rows = []
        for i, (w, x, y, coefs) in enumerate(polynomial_instances(rng, 3, p["laws"], Fraction(1))):
            law = subjects["distribution"](w, x, y, coefs, 1)
            theta = dot(w, x) - y
            mean = sum((Fraction(q) * Fraction(e) for q, e, *_ in law), Fraction(0))
            target = sum((a * theta**n for n, a in enumerate(coefs)), Fraction(0))
            rows.append({"part": "law", "instance": i, "mean": str(mean), "target": str(target),
                         "law_mass": sum(Fraction(q) for q, *_ in law) == 1 and all(q >= 0 for q, *_ in law),
                         "law_unbiased": mean == target})
        return rows

    def _queries(self, p, case, subjects, rng):
        rows = []
        for B in p["B"]:
            N, nu = est.genest_threshold(B)
            value = Fraction(subjects["expected_queries"](B))
            partial, tail = literal_expected_queries(N, nu, nu + 200)
            rows.append({"part": "queries", "B": B, "N": N, "expected_queries": float(value),
                         "literal": float(partial), "queries_exact": partial <= value <= partial + tail,
                         "queries_at_most_3": value <= GENEST_QUERIES})
        return rows

    def _second(self, p, case, subjects, rng):
        coefs = {name: make(40) for name, (make, _) in FUNCTIONS.items()}
        return [{"part": "second", **r} for B in p["B"] for r in second_moment_rows(subjects["moments"], B,
                                                                                       p["theta_over_B"], coefs)]

    def _series(self, p, case, subjects, rng):
        rows = []
        for i, (w, x, y) in enumerate(SAMPLED_INSTANCES):
            for name, (make, f) in FUNCTIONS.items():
                coef = make(40)
                m = subjects["moments"](np.array(w), np.array(x), y, coef, 1.0)
                theta = float(np.dot(w, x)) - y
                scale = float(np.sum(np.abs(coef) * abs(theta) ** np.arange(40)))
                rows.append({"part": "series", "instance": i, "function": name, "mean": m.mean,
                             "target": float(f(theta)),
                             "series_mean": abs(m.mean - f(theta)) <= 48 * U * scale + 2 * U})
        return rows

    def _sampled(self, p, case, subjects, rng):
        i = case["instance"]
        w, x, y = np.array(SAMPLED_INSTANCES[i][0]), np.array(SAMPLED_INSTANCES[i][1]), SAMPLED_INSTANCES[i][2]
        theta = float(w @ x) - y
        M = float(np.max(np.abs((w @ w) * x / w - y)))
        seed = int(rng.integers(2**62))
        rows = []
        for name, (make, _) in FUNCTIONS.items():
            coef = make(40)
            s = draw(subjects["estimate"], w, x, y, coef, 1.0, p["mc_samples"], seed, p["cap"])
            seed += 1
            half = max(2.0 ** (n + 1) * abs(a) * M**n for n, a in enumerate(coef))
            rows.append({"part": "sampled", "instance": i, "function": name, "n": s.n, "mean": s.total / s.n,
                         "var": variance(s.n, s.total, s.squares), "low": -half, "high": half,
                         "target": float(np.polynomial.polynomial.polyval(theta, coef)), "bound": math.nan})
        if i == 0:
            for B in p["B"]:
                s = draw(subjects["estimate"], w, x, y, FUNCTIONS["erf"][0](40), B, p["mc_samples"], seed, p["cap"])
                seed += 1
                N, nu = est.genest_threshold(B)
                rows.append({"part": "sampled", "instance": i, "function": "queries", "B": B, "n": s.n,
                             "mean": s.queries / s.n, "var": variance(s.n, s.queries, s.queries_squares), "low": 0.0,
                             "high": float(p["cap"]), "target": float(capped_expected_queries(N, nu, p["cap"])),
                             "bound": math.nan})
        return rows

    def headline(self, p, table):
        q = table[table["part"] == "queries"]
        worst = float(q["expected_queries"].max())
        return worst, GENEST_QUERIES, worst / GENEST_QUERIES

    def findings(self, p, table):
        q = table[table["part"] == "queries"]
        s = table[(table["part"] == "sampled") & (table["function"] == "queries")]
        out = ["E[queries] exactly: " + ", ".join(f"B = {b:g} (N = {int(n)}): {e:.6g}" for b, n, e in
                                                 zip(q["B"], q["N"], q["expected_queries"], strict=True)) + "."]
        out.append("Sampled mean of min(queries, cap) vs exact: " + ", ".join(
            f"B = {b:g}: {m:.4f} vs {t:.4f}" for b, m, t in zip(s["B"], s["mean"], s["target"], strict=True)) + ".")
        sec = table[table["part"] == "second"]
        bad = sec[~sec["within_printed"].astype(bool)]
        out.append(f"Exact E φ̂²: largest {sec['second_moment'].max():.3g}; printed bound (4B)^(2ν)·2(f′₊(1))² fails "
                   f"in {len(bad)} of {len(sec)} cases" + (f" (e.g. {bad.iloc[-1]['function']}, B = "
                   f"{bad.iloc[-1]['B']:g}, θ = {bad.iloc[-1]['theta']:g}: {bad.iloc[-1]['second_moment']:.3g} > "
                   f"{bad.iloc[-1]['printed_bound']:.3g})" if len(bad) else "") + ".")
        return out


def draw(estimate, w, x, y, coef, B, n, seed, cap):
    """n draws of the subject (through its ``moments`` when it has one) as an est.GenEstSample. A plain
    function gets a fresh integer seed per draw (one it cannot advance in place, as a kernel state is)."""
    if hasattr(estimate, "moments"):
        return estimate.moments(w, x, y, coef, B, n, random_state=np.random.SeedSequence(seed), cap=cap)
    seeds = np.random.SeedSequence(seed).generate_state(n, dtype=np.uint32)
    vals = [estimate(w, x, y, coef, B, random_state=int(s)) for s in seeds]
    e = np.array([v[0] for v in vals])
    q = np.minimum(np.array([v[1] for v in vals], dtype=np.float64), cap)
    return est.GenEstSample(n, float(e.sum()), float((e * e).sum()), float(q.sum()), float((q * q).sum()),
                            int(max(v[1] for v in vals)))


def variance(n, total, squares):
    return max(0.0, (squares - total * total / n) / (n - 1))


M_PATH = "smoothed excess vs m"
BE_PATH = "smoothed excess vs B/ε (reported)"
ACCURACY = "accuracy"


@register
class Thm4_4(RateWithBudget):
    id = "hk12.thm4.4"
    no_space = ("a rate: its statement is a fitted slope over a grid of m, and the search has no margin for a "
                "slope yet (issue 52 item 2, not built)")
    title = "AESVR: E L(w̄) ≤ L(w*) + ε at m = O(d/k)·exp(O(log²(B/ε))), with k + 6 attributes per example"
    reference = "Theorem 4.4 and Algorithm 4 (§4.2), with its proof"
    statement = ("If ‖x‖₂ ≤ 1 and |y| ≤ B almost surely, AESVR (η tuned) on m = O(d/k)·exp(O(log²(B/ε))) examples "
                 "returns w̄ with E L(w̄) ≤ L(w*) + ε (2ε in the proof) for the δ-insensitive risk L and every "
                 "‖w*‖₂ ≤ B, and queries at most k + 6 attributes per example in expectation.")
    hypotheses = ("‖x‖₂ ≤ 1 and |y| ≤ B", "‖w*‖₂ ≤ B", "0 ≤ δ ≤ B")
    interpretation = (
        "No constant of (8) is printed: the theorem says that for some C₁, C₂, m = C₁(d/k)·exp(C₂log²(B/ε)) "
        "examples give E L(w̄) − L(w*) ≤ ε; the proof gives E L^ε(w̄) − min L^ε ≤ exp(O(log²(B/ε)))·√(d/(km)) "
        "for the smoothed risk L^ε (OGD with G² = E φ̃²·E‖x̃‖², E φ̃² from Lemma 4.1 at B′ = 2B/ε), then "
        "Claim 4.2 (0 ≤ L^ε − L ≤ ε/√π, our derivation) turns an ε-accurate smoothed solution into a 2ε-accurate "
        "one. The distribution is uniform on `points` fixed examples in d dimensions whose labels follow a signal "
        "of norm 0.95B along 𝟏/√d (|y| ≤ B, ‖x‖ ≤ 1/1.05), so that the learner that never moves is far from "
        "accurate. Decided, at B/ε = 2 (ε = `eps` < B): (o) on every run w̄ lies in the ball; (i) the rate: the "
        "mean smoothed excess falls with m at "
        "slope ≤ −1/2 (d, k of the base; bootstrap slope test, asymptotic level); (ii) the accuracy conclusion "
        "at the stated m, with its growth in d and k: for each cell (d, k) of cells_d × cells_k (paired), "
        "accuracy_runs runs at m = m0·d/k must have mean δ-insensitive excess ≤ ε (the theorem's ε, not the "
        "proof's 2ε), decided one-sided (empirical Bernstein ∩ Anderson on [0, B·mean‖x‖ + mean|y| − L_LP], "
        "level δ/(cells), resolution `resolution`); the excess is taken against L_LP, the exact minimum over "
        "all w (scipy's linprog), which is ≤ the minimum over the ball, so the measured excess can only be too "
        "large; a cell where the learner that returns its start w₁ has excess ≤ ε + resolution makes the "
        "instance vacuous (never PASS); (iii) the budget: the per-example queries Q (k uniform draws + the two "
        "GenEst calls) on the rate path, capped at `cap`, have mean ≤ the exact E[min(Q, cap)] of Procedure 3 at "
        "B′ = 2B/ε (capped_example_queries, a Fraction; uncapped it is k + 2·E[GenEst queries] ≤ k + 6 by Lemma "
        "4.1), empirical Bernstein over all examples (i.i.d.: each count depends only on fresh draws). Reported, "
        "not decided (the constants "
        "are not printed, so no finite run can contradict them): the smoothed and plain excess at m = m0·d/k "
        "for each B/ε of B_over_eps, and the implied constant mean·√(km/d). The erratum's evidence is E φ̃² "
        "computed exactly (genest_moments) at the LP optimum for each B/ε, with these runs. AESVR's default η "
        "is B√(2k/(dm)) and GenEst's B is 2B/ε, as the proof's bounds on the scaled inputs.")
    subjects = {"learner": AESVR}
    protocols = {"learner": Contract(BudgetedLearner, init=("k", "B", "delta", "eps", "random_state"))}
    xlabel = "m / m₀"
    ylabel = "mean smoothed excess risk L^ε(w̄) − min L^ε"
    parameters = {**RateWithBudget.parameters, "d": Integer(1, 32), "k": Integer(1), "B": Positive(),
                  "eps": Positive(), "insensitive": Positive(), "points": Integer(2), "m": Grid(Integer(1)),
                  "cap": Integer(8), "noise": Positive(), "m0": Integer(1), "accuracy_runs": Integer(2),
                  "cells_d": Grid(Integer(1, 32), distinct=1), "cells_k": Grid(Integer(1), distinct=1),
                  "B_over_eps": Grid(Positive(), distinct=2)}
    base = {"d": 4, "k": 1, "B": 1.0, "eps": 0.5, "insensitive": 0.1, "points": 48, "noise": 0.05, "cap": 256,
            "delta": 1e-3, "resolution": 0.1, "m0": 4000}
    profiles = {"quick": {"m": (250, 1000, 4000, 16000), "repetitions": 8, "accuracy_runs": 64,
                          "cells_d": (4, 8), "cells_k": (1, 1), "B_over_eps": (1.0, 2.0, 4.0, 8.0)},
                "full": {"m": (250, 1000, 4000, 16000, 64000), "repetitions": 30, "accuracy_runs": 128,
                         "cells_d": (4, 8, 8, 16, 16), "cells_k": (1, 1, 2, 2, 4),
                         "B_over_eps": (1.0, 2.0, 4.0, 8.0)}}
    errata = (Erratum(
        "phi-second-moment", "Theorem 4.4, proof (E_t[φ̃_t²] = exp(O(log²(B/ε))))",
        "E_t[φ̃_t²] = exp(O(log²(B/ε))) by Lemma 4.1, so m = O(d/k)·exp(O(log²(B/ε)))",
        "Lemma 4.1's second-moment bound does not hold (see hk12.lemma4.1): GenEst's arguments are θ/ε with θ up to "
        "order B, and E φ̃² grows like exp(Θ(B²/ε²)); the sample complexity the proof supports is "
        "O(d/k)·exp(O(B²/ε²))",
        "derivation",
        "At w_t = B·e₁, x = e₁, y = −B every draw of GenEst returns θ± = (2B ∓ δ)/ε exactly, so E φ̂² ≥ "
        "2·2^{2n+1}a_{2n+1}²θ^{4n+2} for every n; with ρ′'s a_{2n+1} = (2/√π)(−1)ⁿ/(n!(2n + 1)) and n = ⌊θ²⌋ (n! ≤ "
        "θ^{2n}) this is ≥ (16/π)·4ⁿθ²/(2n + 1)², and E φ̃² ≥ E φ̂₊²/4 (erf(θ±) > 0): exp(Θ(B²/ε²)), beyond every "
        "exp(O(log²(B/ε))). Computed exactly (genest_moments, 800 terms of eq. (7)) at that point with δ = 0.1, "
        "the printed constant of Lemma 4.1's proof at B′ = 2B/ε, (4B′)^{2ν}·2(Σ|aₙ|)², fails from B/ε = 4: log E "
        "φ̃² ≥ 271.7 against log 112.6 (B/ε = 2: 62.1 against 68.2; B/ε = 8: beyond float range against 168.1). "
        "The claim's instance shows the same growth, exactly and in runs: log E φ̃² at its LP "
        "optimum is −1.75, −0.29, 3.93, 25.9 at B/ε = 1, 2, 4, 8, i.e. 2.9 per unit of log²(B/ε) from 2 to 4 but "
        "9.1 from 4 to 8 (not O(log²(B/ε))), 0.35 and 0.46 per unit of B²/ε². The runs do not add to this: "
        "the library's AESVR steps with an η that takes Φ² = 1, not the exact E φ̃², and at that η it has mean "
        "excess 0.0022, 0.18, 0.56 at B/ε = 2, 4, 8 (m = 16 000, d = 4, k = 1; seeds 0 and 1 alike), but with "
        "η/10 it reaches 0.047 < ε = 0.25 at B/ε = 4; with η tuned from the exact E φ̃² at the optimum the mean "
        "excess first falls below ε at m = 16, 64, 1 024, 16 384 for B/ε = 2, 3, 4, 5 (point estimates), which "
        "fits both exp(O(log²(B/ε))) and exp(Θ(B²/ε²)) growth (160 runs per cell cannot bracket m_needed "
        "closely: the excess is known only to lie in [0, 1.66]). The derivation is the basis."),)
    defects = (
        Defect("GenEst threshold log₂N (budget)", {"learner": D + "AESVRSmallThreshold"}),
        Defect("eq. (7) with a sign error (ascent)", {"learner": D + "AESVRSignError"}),
        Defect("GenEst reads one extra attribute per example in expectation", {"learner": D + "AESVRExtraRead"},
               idea=True),
        Defect("the learner that never moves (returns w₁)", {"learner": D + "AESVRNeverMoves"}),
    )
    power = ("The budget part is compared with its exact value, so a mean above it by more than the interval's "
             "half-width (≈ 0.07 on quick) FAILs: one extra attribute per example is caught. The accuracy part "
             "FAILs a learner whose mean excess at m = m0·d/k exceeds ε by more than its interval (the learner "
             "that never moves has excess > ε + resolution on every cell, else the instance is vacuous); the rate "
             "part catches a smoothed excess that does not fall like m^-1/2 (e.g. ascent). The growth in B/ε is "
             "reported, not decided: the constants of (8) are not printed.")

    def paths(self, p):
        if len(p["cells_d"]) != len(p["cells_k"]) or any(k > d for d, k in zip(p["cells_d"], p["cells_k"],
                                                                                  strict=False)):
            raise ParameterError("cells_d and cells_k must have the same length, with each k ≤ its d")
        top = p["m0"] * p["d"] // p["k"]
        return [(M_PATH, [{"x": float(m), "m": m} for m in p["m"]], THM44_EXPONENT),
                (BE_PATH, [{"x": float(r), "m": top, "eps": p["B"] / r} for r in p["B_over_eps"]], None)]

    def tasks(self, p):
        rate = super().tasks(p)  # paths() first: it validates the cells
        return rate + [{"path": ACCURACY, "level": i, "x": d / k, "m": p["m0"] * d // k, "d": d, "k": k,
                        "repetition": r} for i, (d, k) in enumerate(zip(p["cells_d"], p["cells_k"], strict=True))
                       for r in range(p["accuracy_runs"])]

    def budget(self, p):
        N, nu = est.genest_threshold(2 * p["B"] / p["eps"])
        return float(capped_example_queries(N, nu, p["k"], p["cap"]))

    def queries_cap(self, p):
        return float(p["cap"])

    def run(self, p, task, subjects, streams):
        d, k, eps = task.get("d", p["d"]), task.get("k", p["k"]), task.get("eps", p["eps"])
        X, y, inst = svr_instance(d, p["points"], p["B"], p["noise"], eps, p["insensitive"])
        data, seed = streams
        idx = np.random.default_rng(data).integers(0, len(y), task["m"])
        model, _ = counted_fit(subjects["learner"](k=k, B=p["B"], delta=p["insensitive"], eps=eps, random_state=seed),
                               X[idx], y[idx], per_example="queries_per_example_")
        w, w1 = model.coef_, np.full(d, 1e-3 * p["B"] / math.sqrt(d))
        smooth = smoothed_risk(X, y, w, eps, p["insensitive"]) - inst["min_smooth"]
        plain = float(np.mean(insensitive_loss(X @ w - y, p["insensitive"]))) - inst["min_plain"]
        counted = task["path"] == M_PATH  # the budget is decided on the rate path (one k, one ε)
        q = np.minimum(np.asarray(model.queries_per_example_, dtype=np.float64), p["cap"])
        # w̄ lies in the ball (line 14 averages projected iterates), where the excess is in [0, upper]; a subject
        # that leaves the ball FAILs (decide), so clipping its excess to the range changes no verdict
        return {"value": max(smooth, 1e-300), "plain_excess": min(max(plain, 0.0), inst["upper"]), "eps": eps,
                "d": d, "k": k,
                "trivial": smoothed_risk(X, y, w1, eps, p["insensitive"]) - inst["min_smooth"],
                "trivial_plain": float(np.mean(insensitive_loss(X @ w1 - y, p["insensitive"]))) - inst["min_plain"],
                "upper": inst["upper"], "queries_n": len(q) if counted else 0,
                "queries_mean": float(q.mean()) if counted else 0.0,
                "queries_var": float(q.var(ddof=1)) if counted else 0.0, "norm": float(np.linalg.norm(w)),
                "in_ball": bool(np.linalg.norm(w) <= p["B"] * (1 + 1e-9)),
                "hypotheses": [Hypothesis("‖x‖₂ ≤ 1, |y| ≤ B", inst["data_ok"])]}

    def decide(self, p, table):
        ev = super().decide(p, table)
        acc = table[table["path"] == ACCURACY]
        groups = list(acc.groupby(["d", "k"], sort=False))
        level = p["delta"] / len(groups)
        verdicts, lines, vacuous = [], [], False
        for (d, k), g in groups:
            _, dec, _ = stats.decide_mean_at_most(g["plain_excess"].to_numpy(), float(g["upper"].iloc[0]),
                                                  p["eps"], level, p["resolution"])
            trivial = float(g["trivial_plain"].iloc[0])
            vacuous |= trivial <= p["eps"] + p["resolution"]
            verdicts.append(dec.verdict)
            lines.append(f"- d = {d}, k = {k}, m = {p['m0'] * d // k}: {dec.verdict}. {dec.reason}; the trivial "
                         f"learner's excess {trivial:.4g}.")
        text = (f"\nAccuracy at m = m0·d/k (m0 = {p['m0']}): mean δ-insensitive excess ≤ ε = {p['eps']:g} per "
                f"cell, each at level δ/{len(groups)} = {level:.3g} (finite-sample; false-FAIL rate ≤ δ):\n"
                + "\n".join(lines))
        if vacuous:
            text += "\nVacuous: on some cell the trivial learner's excess is ≤ ε + resolution."
        ball = stats.decide_always(int((~table["in_ball"].astype(bool)).sum()), len(table),
                                   "‖w̄‖₂ ≤ B (Algorithm 4 returns an average of projected iterates)", "relative 1e-9")
        text += f"\nOutput in the ball: {ball.verdict}. {ball.reason}."
        verdict = stats.combine([ev.verdict, *verdicts, ball.verdict])
        return dataclasses.replace(ev, verdict=verdict, decision=ev.decision + text, vacuous=ev.vacuous or vacuous)

    def errata_evidence(self, p, table, fits):
        coef = est.taylor_rho_prime(800)
        parts = []
        for r in p["B_over_eps"]:
            eps = p["B"] / r
            X, y, _ = svr_instance(p["d"], p["points"], p["B"], p["noise"], eps, p["insensitive"])
            w = lp_solution(X, y, p["insensitive"])
            second = []
            for xi, yi in zip(X, y, strict=True):
                plus, minus = (est.genest_moments(w, xi / eps, (yi + s * p["insensitive"]) / eps, coef,
                                                  2 * p["B"] / eps) for s in (1.0, -1.0))
                second.append(0.25 * (plus.second_moment + minus.second_moment) + 0.5 * plus.mean * minus.mean)
            # the worst case of the hypotheses (w = B·e₁, x = e₁, y = −B): E φ̃² ≥ (E φ̂₊² + E φ̂₋²)/4 − 1/2
            # since E φ̂₊·E φ̂₋ = erf(θ₊)·erf(θ₋) ≥ −1; against the proof's (4B′)^{2ν}·2(Σ|aₙ|)² at B′ = 2B/ε
            worst = sum(est.genest_moments(np.array([p["B"]]), np.array([1 / eps]), (-p["B"] + s * p["insensitive"])
                                           / eps, coef, 2 * p["B"] / eps).second_moment for s in (1.0, -1.0)) / 4 - 0.5
            printed = lemma41_second_moment_bound(2 * p["B"] / eps, float(np.sum(np.abs(coef))))
            runs = table[(table["path"] == BE_PATH) & np.isclose(table["eps"], eps)]
            log_worst = f"{math.log(worst):.4g}" if worst < math.inf else "709 (float overflow)"
            parts.append(f"B/ε = {r:g}: log E φ̃² = {math.log(np.mean(second)):.3g} at w_LP, ≥ {log_worst} at the "
                         f"worst case of the hypotheses "
                         f"(the proof's printed bound: {math.log(printed):.4g}; log²(B/ε) = "
                         f"{math.log(r) ** 2:.3g}, B²/ε² = {r * r:.3g}); at m = {p['m0'] * p['d'] // p['k']} the "
                         f"mean plain excess is {runs['plain_excess'].mean():.3g} (ε = {eps:g}), the trivial "
                         f"learner's {runs['trivial_plain'].mean():.3g}")
        return {"phi-second-moment": "Exact E φ̃² (mean over the instance's points, at the exact optimum w_LP, "
                                     "series of 800 terms) and AESVR's runs: " + "; ".join(parts) + "."}

    def notes(self, p, table, fits):
        fit = fits.get(M_PATH)
        g = table[table["path"] == M_PATH].groupby("m")
        be = table[table["path"] == BE_PATH].groupby("x")
        return [f"Slope of the mean smoothed excess against m: {fit.slope:.3f} (interval [{fit.low:.3f}, "
                f"{fit.high:.3f}]); the theorem's rate is −0.5." if fit else "No slope fitted.",
                "Mean δ-insensitive excess per m: " + ", ".join(f"m = {m}: {v['plain_excess'].mean():.4g}"
                                                                for m, v in g) + f" (ε = {p['eps']:g}).",
                f"Exact expected queries per example: k + 2·E[GenEst queries at B′ = 2B/ε] = "
                f"{p['k'] + 2 * float(est.genest_expected_queries(2 * p['B'] / p['eps'])):.6g}, capped at "
                f"{p['cap']}: {self.budget(p):.6g} (what is decided); Theorem 4.4's bound k + 6 = "
                f"{thm44_queries_bound(p['k']):g}.",
                "Per B/ε at m = m0·d/k (reported): " + ", ".join(
                    f"B/ε = {r:g}: smoothed excess {v['value'].mean():.3g}, implied constant "
                    f"{v['value'].mean() * math.sqrt(p['k'] * v['m'].iloc[0] / p['d']):.3g}, plain excess "
                    f"{v['plain_excess'].mean():.3g} vs ε = {p['B'] / r:g}" for r, v in be) + "."]


def smoothed_risk(X, y, w, eps, insensitive):
    return float(np.mean(smoothed_loss(X @ w - y, insensitive, eps)))


@functools.lru_cache(maxsize=16)
def svr_instance(d, points, B, noise, eps, insensitive):
    """The finite instance (fixed seed) and its exact optima. Each x is s·u + 0.2·z/√d with u = 𝟏/√d,
    |s| uniform on [0.8, 1] with a random sign and z standard normal, scaled to ‖x‖ ≤ 1/1.05; the labels are
    ⟨0.95B·u, x⟩ plus noise, clipped to [−B, B]. Optima: the LP for the δ-insensitive risk over all w
    (slacks ξ_i ≥ ±(⟨w,x_i⟩ − y_i) − δ; at most the minimum over the ball) and SLSQP for the smoothed risk
    on the ball; ``upper`` bounds the δ-insensitive excess of every w in the ball."""
    rng = np.random.default_rng(20120626 + d + points)
    u = np.full(d, 1.0 / math.sqrt(d))
    s = rng.choice([-1.0, 1.0], size=points) * rng.uniform(0.8, 1.0, size=points)
    X = s[:, None] * u + 0.2 * rng.normal(size=(points, d)) / math.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * 1.05
    y = np.clip(X @ (0.95 * B * u) + noise * rng.normal(size=points), -B, B)
    w_lp, lp = lp_solution(X, y, insensitive, full=True)
    f = lambda w: smoothed_risk(X, y, w, eps, insensitive)  # noqa: E731
    grad = lambda w: X.T @ smoothed_loss_derivative(X @ w - y, insensitive, eps) / points  # noqa: E731
    start = w_lp * min(1.0, B / np.linalg.norm(w_lp))
    res = minimize(f, start, jac=grad, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda w: B * B - w @ w, "jac": lambda w: -2 * w}],
                   options={"ftol": 1e-14, "maxiter": 500})
    min_smooth = min(float(res.fun), f(w_lp)) if np.linalg.norm(w_lp) <= B else float(res.fun)
    upper = B * float(np.mean(np.linalg.norm(X, axis=1))) + float(np.mean(np.abs(y))) - float(lp.fun)
    return X, y, {"min_plain": float(lp.fun), "min_smooth": min_smooth, "upper": upper,
                  "lp_norm": float(np.linalg.norm(w_lp)),
                  "data_ok": bool(np.all(np.linalg.norm(X, axis=1) <= 1.0) and np.all(np.abs(y) <= B))}


def lp_solution(X, y, insensitive, full=False):
    """A minimiser of the empirical δ-insensitive risk, exactly (the LP: w free, slacks ξ_i ≥ 0,
    ξ_i ≥ ±(⟨w,x_i⟩ − y_i) − δ, minimise the mean of ξ)."""
    n, d = X.shape
    c = np.concatenate([np.zeros(d), np.full(n, 1.0 / n)])
    A = np.block([[X, -np.eye(n)], [-X, -np.eye(n)]])
    b = np.concatenate([y + insensitive, -y + insensitive])
    lp = linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] * d + [(0, None)] * n, method="highs")
    return (lp.x[:d], lp) if full else lp.x[:d]
