"""Exact checks of lemmas of Cesa-Bianchi, Shalev-Shwartz & Shamir (JMLR 2011)."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import numpy as np

from theorycheck import estimators as est
from theorycheck.claims import Defect, Erratum, Plot, register
from theorycheck.kinds.exact import (
    LAW_PARAMETERS,
    MC_PARAMETERS,
    Exact,
    ExactLaw,
    check_mc_budget,
    dot,
    random_fraction,
)
from theorycheck.protocols import Contract, EstimatorLaw, Function, GradientEstimator, Output
from theorycheck.spaces import Int, Space
from theorycheck.validation import Integer

D = "tests.defects_exact:"
SMALL_MC = {"mc_samples": "10000", "mc_repetitions": "1"}  # planted samplers are drawn call by call, in Python


@register
class Lemma7(Exact):
    observed_label = "the largest absolute difference between the lemma's two sides over the cases enumerated"
    id = "cbss11.lemma7"
    space = Space(
        dims={"n_max": Int(1, 12), "functions": Int(1, 10), "spread": Int(1, 1000, log=True)},
        why=("the lemma's ∀ n, k ≤ n and f: every n ≤ n_max is enumerated, the functions are random rationals "
             "(how many, how spread)"))
    title = "Averaging over a uniform k-subset is unbiased"
    reference = "Lemma 7"
    statement = (
        "For any finite set C of n elements and any f: C → ℝ, the mean of f over a k-subset "
        "drawn uniformly from all k-subsets of C has expectation equal to the mean of f over C."
    )
    hypotheses = ("1 ≤ k ≤ n", "C' uniform over the C(n, k) subsets of size k")
    interpretation = (
        "For each n ≤ n_max, every k ≤ n and several rational f (random ones, f with ties, constant f), the "
        "expectation is computed by enumerating all C(n, k) subsets with weight 1/C(n, k), applying the subject "
        "(the per-subset average) to each, and compared with (1/n)Σf as rational numbers, not within a tolerance."
    )
    subjects = {"subset_average": est.subset_average}
    protocols = {"subset_average": Contract(
        Function, call=("values",),
        types="receives values, a list of fractions.Fraction (f on the subset), and must return their average "
              "as a Fraction (or an int): the expectation is compared exactly, so a float would be rounded.",
        returns=Output("exact", "their average as a fractions.Fraction or an int"))}
    parameters = {"n_max": Integer(1, 16), "functions": Integer(1), "spread": Integer(1)}
    profiles = {"quick": {"n_max": 7, "functions": 3, "spread": 50},
                "full": {"n_max": 12, "functions": 10, "spread": 1000}}
    checks = {"exact_equal": "E[average of f over a uniform k-subset] = mean of f over C"}
    case_columns = ("n", "k", "family", "f")
    details = {"exact_equal": ("expectation", "mean_of_f")}
    defects = (
        Defect("sum divided by k + 1", {"subset_average": D + "subset_average_k_plus_1"}, idea=True),
        Defect("average over the distinct values only", {"subset_average": D + "subset_average_distinct"}),
    )
    power = (
        "Every case with n ≤ n_max is enumerated, so any per-subset average whose expectation differs from the "
        "mean of f in one of them FAILs, even by 10⁻⁹ at one k; the families with ties and constant f catch "
        "averages that mishandle repeated values, which random rationals almost never have. An error that "
        "appears only for sets larger than n_max is out of reach."
    )
    plot = Plot(x="n", y="max_abs_difference", theory="theory", kind="point", xlabel="n = |C|",
                ylabel="max |E[subset average] − mean f|", theory_label="Lemma 7: difference 0")

    def cases(self, p):
        return [{"n": n} for n in range(1, p["n_max"] + 1)]

    def evaluate(self, p, case, subjects, rng):
        n, average = case["n"], subjects["subset_average"]
        functions = [("random", [random_fraction(rng, p["spread"]) for _ in range(n)]) for _ in range(p["functions"])]
        functions += [("ties", [Fraction(int(v)) for v in rng.integers(-1, 2, n)]),
                      ("constant", [random_fraction(rng, p["spread"])] * n)]
        rows = []
        for family, f in functions:
            target = sum(f, Fraction(0)) / n
            for k in range(1, n + 1):
                subsets = list(itertools.combinations(range(n), k))
                expectation = sum((Fraction(average([f[i] for i in s])) for s in subsets), Fraction(0)) / len(subsets)
                rows.append({"n": n, "k": k, "family": family, "f": "(" + ", ".join(map(str, f)) + ")",
                             "subsets": len(subsets), "expectation": str(expectation), "mean_of_f": str(target),
                             "abs_difference": float(abs(expectation - target)), "exact_equal": expectation == target})
        return rows

    def summarize(self, p, table):
        return (table.groupby("n", as_index=False)
                .agg(cases=("k", "size"), subsets=("subsets", "sum"), max_abs_difference=("abs_difference", "max"))
                .assign(theory=0.0))

    def headline(self, p, table):
        return float(table["abs_difference"].max()), 0.0, None


@register
class Lemma11(ExactLaw):
    id = "cbss11.lemma11"
    space = Space(
        dims={"d_max": Int(1, 5), "instances": Int(0, 8), "spread": Int(1, 30, log=True)},
        fixed={"mc_repetitions": "0"},
        why=("the lemma's ∀ w, x, y, d and even k ≤ 2d: every d ≤ d_max (and every budget) is enumerated in each "
             "trial, so the space's axes are the enumeration's size and the random rational instances (how many, "
             "how spread); ranges up to the full profile's; the Monte-Carlo part (a check of the sampler, not of "
             "the ∀) is off"))
    title = "AER's gradient estimate 2(ŷ − y)v is unbiased"
    reference = "Lemma 11 (Section 6, eqs. (6)–(8), Figure 2)"
    statement = (
        "For any w, x ∈ ℝ^d, y ∈ ℝ and even k ≥ 2, the estimate 2(ŷ − y)v, with v = (2/k)·d·Σ_{j∈C} x_j e_j "
        "for a uniform (k/2)-subset C and ŷ = (2/k)·‖w‖₁·Σ_s sgn(w_{i_s}) x_{i_s} over k/2 draws "
        "P(i) = |w_i|/‖w‖₁, has expectation 2(⟨w,x⟩ − y)x, the gradient of (⟨w,x⟩ − y)²."
    )
    hypotheses = ("k even, 2 ≤ k ≤ 2d (so that C has k/2 ≤ d elements)",
                  "C independent of the draws i_1, ..., i_{k/2}")
    interpretation = (
        "ŷ's k/2 draws are made with replacement, as in the Figure 2 box (see the erratum). Eq. (7) prints a stray "
        "e_{j_s} (ŷ is a scalar) and the lemma's loss misses its square. At w = 0 every term of ŷ is 0. Exact part: "
        "for every d ≤ d_max and even k ≤ 2d, on instances with no hypothesis (w = 0, x = 0, y = 0, zeros, equal "
        "|w_i| with mixed signs, random rationals), the subject `distribution` must be a law with mean exactly "
        "2(⟨w,x⟩ − y)x. Monte Carlo: the subject `estimate` is drawn mc_samples × mc_repetitions times on one "
        "instance (‖w‖₁ = 1 with half the mass on w_0, mixed signs and zeros; x ∈ [−1, 1]^d; y ∈ [−1, 1]), on the "
        "range |g_i| ≤ 2(‖w‖₁‖x‖∞ + |y|)(2d/k)|x_i| that eqs. (6)–(8) imply."
    )
    subjects = {"distribution": est.aer_gradient_estimate_distribution, "estimate": est.aer_gradient_estimate}
    protocols = {"distribution": Contract(EstimatorLaw),
                 "estimate": Contract(GradientEstimator, call=("random_state",))}
    parameters = {**{k: LAW_PARAMETERS[k] for k in ("d_max", "instances", "spread")}, **MC_PARAMETERS}
    base = {"delta": 5e-4}
    profiles = {
        "quick": {"d_max": 4, "instances": 3, "spread": 9, "mc_d": 50, "mc_k": 10, "mc_samples": 200_000,
                  "mc_repetitions": 2, "resolution": 0.1},
        "full": {"d_max": 6, "instances": 8, "spread": 30, "mc_d": 200, "mc_k": 20, "mc_samples": 1_000_000,
                 "mc_repetitions": 8, "resolution": 0.05},
    }
    target_name = "2(⟨w,x⟩ − y)x"
    sampler = "estimate"
    readings = {"eq7-replacement": (functools.partial(est.aer_gradient_estimate_distribution, replacement=False),
                                    "the prose's reading, with ŷ's k/2 indices drawn without replacement,")}
    errata = (Erratum(
        "eq7-replacement", "Section 6, the sentence before eq. (7), with Lemma 11",
        "the k/2 indices of ŷ are picked from [d] without replacement, according to the distribution defined by w, "
        "and the gradient estimate (8) built on that ŷ is unbiased",
        "with that reading Lemma 11 is false: ŷ, hence the gradient estimate, is in general biased once k ≥ 4 (e.g. "
        "when the |w_i| differ); the indices must be drawn with replacement, as the box of Figure 2 does",
        "counterexample",
        "d = 2, k = 4, w = (1, 1/2), x = (0, 1), y = 0: the two indices drawn without replacement are always {1, 2}, "
        "so ŷ = (2/k)‖w‖₁(x₁ + x₂) = 3/4 on every draw while ⟨w, x⟩ = 1/2, and E[2(ŷ − y)v] = (0, 3/2) ≠ (0, 1) = "
        "2(⟨w, x⟩ − y)x. The claim enumerates the law of this reading exactly on every case it runs."),)
    defects = (
        Defect("v without the factor d", {"distribution": D + "aer_law_without_d"}, overrides={"d_max": "3"},
               idea=True),
        Defect("ŷ drawn without replacement (exact law)", {"distribution": D + "aer_law_without_replacement"},
               overrides={"d_max": "3"}),
        Defect("ŷ drawn without replacement (sampler)", {"estimate": D + "aer_sampler_without_replacement"},
               overrides=SMALL_MC),
        Defect("v scaled by k/2 (sampler)", {"estimate": D + "aer_sampler_weight_d"}, overrides=SMALL_MC),
        Defect("C drawn with replacement", {"distribution": D + "aer_law_c_with_replacement"}, caught=False,
               overrides={"d_max": "3"},
               why="still unbiased (each draw of C is an unbiased one-attribute estimate of x); Lemma 11 states only "
                   "unbiasedness and this claim checks no second moment"),
    )
    power = (
        "The exact part catches any law whose mean differs from 2(⟨w,x⟩ − y)x on one enumerated instance (a missing "
        "factor, wrong sampling weights, ŷ without replacement). The Monte-Carlo part checks the sampler itself: a "
        "draw outside the range eqs. (6)–(8) allow is a certain FAIL, and a bias of about twice the resolution on "
        "one coordinate is caught with probability ≥ 1 − δ. An estimator that is unbiased but is not eqs. (6)–(8) "
        "(C drawn with replacement) satisfies the lemma and is not caught."
    )

    def budgets(self, d):
        return range(2, 2 * d + 1, 2)

    def target(self, w, x, y):
        return tuple(2 * (dot(w, x) - y) * v for v in x)

    def check_params(self, p):
        check_mc_budget(p, even=True)

    def mc_instance(self, d, k, seed):
        rng = np.random.default_rng([seed, d, k, 11])
        w = rng.choice([-1.0, 1.0], size=d) * rng.random(d) ** 3
        w[(rng.random(d) < 0.25) | (np.arange(d) == 0)] = 0.0
        w *= 0.5 / np.abs(w).sum() if np.abs(w).sum() > 0 else 0.0
        w[0] = 0.5 if np.abs(w).sum() > 0 else 1.0
        x = rng.uniform(-1.0, 1.0, size=d)
        x[rng.random(d) < 0.1] = 0.0
        x[0] = 1.0
        return w, x, float(rng.uniform(-1.0, 1.0))

    def mc_range(self, w, x, y, d, k):
        return 2 * (np.abs(w).sum() * np.abs(x).max() + abs(y)) * (2.0 * d / k) * np.abs(x)
