"""Exact checks of Kukliansky & Shamir (ICML 2015), distribution-dependent sampling: Lemma 3.2 with
eqs. (1)–(2), Lemma 4.2 with eq. (3), Lemma 4.3, and the improvement ratios ρ of §5.

The two sampling lemmas are about an expectation over the data *and* the sampling, so they are
checked on finite-support designs (rational atoms (P(x, y), x, y)): every atom's law is enumerated
by the subject `distribution` (the q-general estimate, :mod:`theorycheck.estimators`) and mixed
with the atoms' probabilities, all in rationals."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from theorycheck import estimators as est
from theorycheck.bounds import ks15 as bounds
from theorycheck.claims import Defect, Hypothesis, Measurement, Plot, register
from theorycheck.generators.decaying import decaying_bounded_design, decaying_design
from theorycheck.kinds.exact import Exact, dot, fmt, law_moments, random_rational, rational_unit_vector
from theorycheck.kinds.sampling import SamplingLaw, objective_max, objective_sum
from theorycheck.protocols import Contract, EstimatorLaw, Function
from theorycheck.spaces import Int, Real, Space
from theorycheck.validation import Grid, Integer, Number, ParameterError, Positive

D = "tests.defects_ks15_proofs:"
ZERO, ONE = Fraction(0), Fraction(1)


@register
class Lemma3_2(SamplingLaw):
    id = "ks15.lemma3.2"
    space = Space(
        dims={"d_max": Int(1, 4), "designs": Int(1, 4), "atoms": Int(1, 4), "weights": Int(0, 3),
              "random_q": Int(0, 3), "spread": Int(2, 12), "B": Real(0.25, 4.0, log=True)},
        why=("the lemma's ∀ q, w in the ball of radius B and discrete laws of x: every d ≤ d_max (and every "
             "budget) is enumerated in each trial, so the space's axes are the enumeration's size and the random "
             "rational instances (how many, how spread); ranges up to the full profile's"))
    title = "GAERR's second moment for any q (eq. (1)), Lemma 3.2's bound, and q ∝ √E[x²] minimises it (eq. (2))"
    reference = "Lemma 3.2 (proof in Appendix C.2) with eqs. (1) and (2)"
    statement = (
        "For GAERR's estimate with k draws from any q (q_i > 0 where E[x_i²] > 0): E‖x̃_r‖₂² = Σ s_i/q_i with "
        "s = E[x²] (eq. (1)); E‖g̃‖₂² ≤ 4B²(E‖x̃_r‖₂²/k + 1) when ‖x‖₂ ≤ 1, |y| ≤ B and ‖w‖₂ ≤ B (Lemma 3.2); "
        "and q ∝ √s minimises Σ s_i/q_i over the simplex, with value ‖s‖_{1/2} (eq. (2))."
    )
    hypotheses = ("‖x‖₂ ≤ 1 and |y| ≤ B on every atom of the design", "‖w‖₂ ≤ B", "1 ≤ k ≤ d",
                  "q a probability vector with q_i > 0 wherever s_i > 0")
    interpretation = (
        "Expectations over D are over finite designs with rational atoms: random atoms, atoms with a zero-moment "
        "attribute, the §5.1 family at small d (independent Bernoulli(1/i) attributes scaled by 1/⌈√d⌉ so that "
        "‖x‖₂ ≤ 1, y = ⟨w*, x⟩) and the extremal pair ±x with ‖x‖₂ = 1, y = ±B. For each design, q ranges over "
        "uniform, random, uniform on the support, ∝ s, ≈ √s (rounded to a rational), and adversarial ones (mass "
        "1/(1000d) on the largest moment, half the mass on a zero-moment attribute, 1 − (d − 1)/1024 on one "
        "attribute); w over 0, a vertex, random points of the ball and the extremal w = −Bx (⟨w,x⟩ = −B). The "
        "subject `distribution` is GAERR's law (q-general, j ∝ w_j², at w = 0 φ̃ = −y with no draw); the law of one "
        "draw x̃_r is the estimate's at w = 0, y = −1, k = 1 (then φ̃ = 1). Derived and checked as well: the "
        "average of k draws has E[x̃_i²] = s_i/(kq_i) + (1 − 1/k)s_i, and E‖g̃‖² = E_D[E[φ̃²|x,y]·E[‖x̃‖²|x]] with "
        "E[φ̃²|x,y] = ‖w‖₂²Σ_{w_j≠0}x_j² − 2y⟨w,x⟩ + y² ≤ 4B² (x̃ and φ̃ are independent given x); a subject breaking "
        "them is not Algorithm 1's estimator. Eq. (2) is checked on vectors s = r² (rational r, so q ∝ √s is "
        "rational) against the subject `optimal_q`: value ‖s‖_{1/2} exactly, the first-order (KKT) conditions, and "
        "no q tried (the families above and the perturbations q* ± t(e_i − e_j)) does better, strictly when q ≠ q*."
    )
    subjects = {"distribution": est.gaerr_gradient_estimate_distribution, "optimal_q": bounds.ridge_q_exact}
    protocols = {"distribution": Contract(EstimatorLaw, call=("q",)), "optimal_q": Contract(Function, call=("s",))}
    parameters = {"d_max": Integer(1, 5), "designs": Integer(0), "atoms": Integer(1, 8), "weights": Integer(0),
                  "random_q": Integer(0), "vectors": Integer(0), "optimum_d": Integer(1, 12), "spread": Integer(2),
                  "B": Positive()}
    base = {"d_max": 3, "designs": 1, "atoms": 3, "weights": 1, "random_q": 1, "vectors": 4, "optimum_d": 6,
            "spread": 6, "B": 1.0}
    profiles = {"quick": {}, "full": {"d_max": 4, "designs": 4, "atoms": 4, "weights": 3, "random_q": 3,
                                      "vectors": 20, "optimum_d": 10, "spread": 12, "B": 1.5}}
    ball = "l2"
    checks = {
        "law": "every atom's law is a probability distribution (mass 1, none negative)",
        "unbiased": "E[g̃ | x, y] = (⟨w,x⟩ − y)x on every atom, as rational vectors",
        "datapoint": "eq. (1): E‖x̃_r‖₂² = Σ s_i/q_i exactly",
        "average": "the average of k draws: E[x̃_i²] = s_i/(kq_i) + (1 − 1/k)s_i (our derivation)",
        "within_bound": "Lemma 3.2: E‖g̃‖₂² ≤ 4B²(E‖x̃_r‖₂²/k + 1)",
        "identity": "the subject is Algorithm 1's estimator: E‖g̃‖₂² = E_D[E[φ̃²|x,y]·E[‖x̃‖²|x]] (our derivation)",
        "q_star": "the subject `optimal_q` returns a probability vector",
        "optimal_value": "eq. (2): Σ s_i/q*_i = ‖s‖_{1/2} exactly",
        "first_order": "first-order (KKT) conditions at q*: s_i/q*_i² is the same for every i with s_i > 0, and "
                       "q*_i = 0 where s_i = 0",
        "not_beaten": "Σ s_i/q*_i ≤ Σ s_i/q_i for every q tried, strictly when q ≠ q*",
    }
    case_columns = ("d", "family", "q_name", "w_name", "k", "q")
    details = {"within_bound": ("functional", "bound"), "optimal_value": ("value", "target"),
               "datapoint": ("datapoint_moment", "target"), "not_beaten": ("value", "target")}
    worst = {"within_bound": "ratio"}
    defects = (
        Defect("importance weight 1/q'_i with q' uniform ≠ q", {"distribution": D + "gaerr_law_mismatched_weights"}),
        Defect("inner-product probabilities left unnormalised (p_j = w_j²)",
               {"distribution": D + "gaerr_law_unnormalised_inner"}),
        Defect("q ∝ s used where q ∝ √s is optimal", {"optimal_q": D + "ridge_q_proportional_to_s"}, idea=True),
        Defect("inner draw j ∝ |w_j|·c_j with c = (1, 2, …): unbiased, but not Algorithm 1's estimator",
               {"distribution": D + "gaerr_law_improved_inner"}),
    )
    power = (
        "Every outcome of every atom's law is enumerated in rationals, so a bias on one atom, an eq. (1) value off "
        "by any amount for one q, or one (design, q, w, k) above the bound is a FAIL; the adversarial q make Σ s_i/q_i "
        "large, where the bound is nearly tight (ratio 1 − 1/(M + k) on the extremal pair, M = E‖x̃_r‖²). An unbiased "
        "estimator with another inner-product law is caught by the identity (not by the bound, which it may meet). "
        "For eq. (2), any q* off √s/Σ√s by any amount fails the value and the first-order conditions exactly; "
        "families of s beyond those listed (and d beyond optimum_d) are out of reach."
    )
    plot = Plot(x="q_name", y="max_ratio", theory="bound_ratio", hue="family", kind="point",
                xlabel="sampling distribution q", ylabel="max E‖g̃‖²/(4B²(E‖x̃_r‖²/k + 1))",
                theory_label="Lemma 3.2's bound (ratio 1)")

    # ------------------------------------------------------------------ claim-specific hooks
    def functional(self, second) -> Fraction:
        return sum(second, ZERO)

    def phi_second_moment(self, w, x, y) -> Fraction:  # E[φ̃²] for j ∝ w_j²
        return dot(w, w) * sum((b * b for a, b in zip(w, x, strict=True) if a), ZERO) - 2 * y * dot(w, x) + y * y

    def datapoint_holds(self, s, q, second) -> bool:
        return sum(second, ZERO) == objective_sum(s, q)

    def target_value(self, s):
        return sum((bounds.rational_sqrt(v) for v in s), ZERO) ** 2

    def first_order(self, s, q) -> bool:
        ratios = {v / (w * w) for v, w in zip(s, q, strict=True) if v and w}
        return len(ratios) == 1 and all(w > 0 if v else w == 0 for v, w in zip(s, q, strict=True))

    def bound(self, B, k, datapoint_moment):
        return bounds.lemma32_bound_exact(B, k, datapoint_moment)

# ---------------------------------------------------------------------- Lemma 4.2
@register
class Lemma4_2(Lemma3_2):
    id = "ks15.lemma4.2"
    space = Space(
        dims={"d_max": Int(1, 4), "designs": Int(1, 4), "atoms": Int(1, 4), "weights": Int(0, 3),
              "random_q": Int(0, 3), "spread": Int(2, 12), "B": Real(0.25, 4.0, log=True)},
        why=("the lemma's ∀ q, w in the ball of radius B and discrete laws of x: every d ≤ d_max (and every "
             "budget) is enumerated in each trial, so the space's axes are the enumeration's size and the random "
             "rational instances (how many, how spread); ranges up to the full profile's"))
    title = "GAELR's coordinate second moments for any q (eq. (3)) and Lemma 4.2's bound"
    reference = "Lemma 4.2 (proof in Appendix C.11) with eq. (3)"
    statement = (
        "For GAELR's estimate with k draws from any q (q_i > 0 where E[x_i²] > 0): E[x̃_r[i]²] = s_i/q_i with "
        "s = E[x²] (eq. (3)), and ‖E g̃²‖∞ ≤ 4B²(‖E x̃_r²‖∞/k + 1) when ‖x‖∞ ≤ 1, |y| ≤ B and ‖w‖₁ ≤ B."
    )
    hypotheses = ("‖x‖∞ ≤ 1 and |y| ≤ B on every atom of the design", "‖w‖₁ ≤ B", "1 ≤ k ≤ d",
                  "q a probability vector with q_i > 0 wherever s_i > 0")
    interpretation = (
        "As for ks15.lemma3.2, on finite designs meeting the L∞ hypotheses (random atoms with ±1 and 0 entries, a "
        "zero-moment attribute, the §5.1 family with independent Bernoulli(1/i) attributes unscaled, the extremal "
        "pair ±x with x ∈ {±1}^d, y = ±B), the same families of q, and w ∈ {0, a vertex, random points of the L1 "
        "ball, the extremal −(B/d)x}. The subject `distribution` is GAELR's unclipped law (Algorithm 3 of the "
        "supplement: j ∝ |w_j|, φ̃ = ‖w‖₁·sign(w_j)·x_j − y); the lemma bounds the unclipped g̃. ‖E g̃²‖∞ is the "
        "largest coordinate of E_{D,A}[g̃²]. Derived and checked: E[x̃_i²] = s_i/(kq_i) + (1 − 1/k)s_i and "
        "E[g̃_i²] = E_D[E[φ̃²|x,y]·E[x̃_i²|x]] with E[φ̃²|x,y] = ‖w‖₁Σ|w_j|x_j² − 2y⟨w,x⟩ + y² ≤ 4B². The "
        "minimiser of the bound over q is ks15.lemma4.3."
    )
    subjects = {"distribution": est.gaelr_gradient_estimate_distribution}
    protocols = {"distribution": Contract(EstimatorLaw, call=("q",))}
    parameters = {k: v for k, v in Lemma3_2.parameters.items() if k not in ("vectors", "optimum_d")}
    base = {k: v for k, v in Lemma3_2.base.items() if k not in ("vectors", "optimum_d")}
    profiles = {"quick": {}, "full": {k: v for k, v in Lemma3_2.profiles["full"].items()
                                      if k not in ("vectors", "optimum_d")}}
    ball = "l1"
    checks = {**{k: Lemma3_2.checks[k] for k in ("law", "unbiased", "average")},
              "datapoint": "eq. (3): E[x̃_r[i]²] = s_i/q_i exactly, for every i",
              "within_bound": "Lemma 4.2: ‖E g̃²‖∞ ≤ 4B²(‖E x̃_r²‖∞/k + 1)",
              "identity": "the subject is GAELR's estimator: E[g̃_i²] = E_D[E[φ̃²|x,y]·E[x̃_i²|x]] (our derivation)"}
    defects = (
        Defect("importance weight 1/q'_i with q' uniform ≠ q", {"distribution": D + "gaelr_law_mismatched_weights"},
               idea=True),
        Defect("inner-product probabilities left unnormalised (p_j = |w_j|)",
               {"distribution": D + "gaelr_law_unnormalised_inner"}),
        Defect("one draw of the k (unbiased, too noisy)", {"distribution": D + "gaelr_law_one_draw"}),
    )
    power = Lemma3_2.power.split(" For eq. (2)")[0].replace("E‖x̃_r‖²", "‖E x̃_r²‖∞").replace("eq. (1)", "eq. (3)")
    plot = Plot(x="q_name", y="max_ratio", theory="bound_ratio", hue="family", kind="point",
                xlabel="sampling distribution q", ylabel="max ‖E g̃²‖∞/(4B²(‖E x̃_r²‖∞/k + 1))",
                theory_label="Lemma 4.2's bound (ratio 1)")

    def functional(self, second):
        return max(second)

    def phi_second_moment(self, w, x, y):  # E[φ̃²] for j ∝ |w_j|
        l1 = sum((abs(a) for a in w), ZERO)
        return l1 * sum((abs(a) * b * b for a, b in zip(w, x, strict=True)), ZERO) - 2 * y * dot(w, x) + y * y

    def datapoint_holds(self, s, q, second):
        return second == tuple(v / w if v else ZERO for v, w in zip(s, q, strict=True))

    def cases(self, p):
        return [{"part": "design", "d": d} for d in range(1, p["d_max"] + 1)]


# ---------------------------------------------------------------------- Lemma 4.3
@register
class Lemma4_3(Lemma3_2):
    observed_label = ("the smallest relative excess (value/best − 1) of another sampling distribution's second "
                      "moment over the optimum's, over the cases (≥ 0 when the optimum is one)")
    id = "ks15.lemma4.3"
    space = Space(
        dims={"vectors": Int(0, 30), "optimum_d": Int(1, 14), "random_q": Int(0, 6), "spread": Int(2, 20)},
        why=("the lemma's ∀ E[x²] and q in the simplex (random rational vectors: how many, their dimension, their "
             "spread)"))
    title = "q ∝ E[x²] minimises max_i E[x_i²]/q_i over the simplex, with value ‖E[x²]‖₁"
    reference = "Lemma 4.3 (proof in Appendix C.12)"
    statement = (
        "Over probability vectors q, max_i s_i/q_i (the ‖E x̃_r²‖∞ of eq. (3)) is minimised by q_i = s_i/Σ_j s_j, "
        "where it equals ‖s‖₁; every other q does strictly worse."
    )
    hypotheses = ("s ≥ 0 with at least one positive entry", "q ranges over the probability simplex")
    interpretation = (
        "For every d ≤ optimum_d and rational s (random with zeros, ties, all equal, one dominant, one tiny), the "
        "subject `optimal_q` is checked exactly: it is a probability vector, max_i s_i/q*_i = ‖s‖₁, and the ratios "
        "are equalised (s_i/q*_i = ‖s‖₁ wherever s_i > 0, q*_i = 0 where s_i = 0). Optimality by the equalisation "
        "argument, checked on every q tried (uniform, random, uniform on the support, ≈ √s, adversarial ones and "
        "the perturbations q* ± t(e_i − e_j)): since both sum to 1, a q ≠ q* has some i with q_i < q*_i, hence "
        "s_i > 0 and s_i/q_i > ‖s‖₁; that coordinate is exhibited, and max_i s_i/q_i > ‖s‖₁ follows. Conventions: "
        "0/0 terms are 0; s_i > 0 with q_i = 0 gives +∞."
    )
    subjects = {"optimal_q": bounds.lasso_q_exact}
    protocols = {"optimal_q": Contract(Function, call=("s",))}
    parameters = {"vectors": Integer(0), "optimum_d": Integer(1, 16), "random_q": Integer(0), "spread": Integer(2)}
    base = {"vectors": 6, "optimum_d": 8, "random_q": 2, "spread": 6}
    profiles = {"quick": {}, "full": {"vectors": 30, "optimum_d": 14, "random_q": 6, "spread": 20}}
    ball = "l1"
    objective = staticmethod(objective_max)
    checks = {
        "q_star": Lemma3_2.checks["q_star"],
        "optimal_value": "max_i s_i/q*_i = ‖s‖₁ exactly",
        "first_order": "equalisation at q*: s_i/q*_i = ‖s‖₁ for every i with s_i > 0, and q*_i = 0 where s_i = 0",
        "not_beaten": "max_i s_i/q*_i ≤ max_i s_i/q_i for every q tried, strictly when q ≠ q*",
        "witness": "every q tried with q ≠ q* has an i with q_i < q*_i and s_i/q_i > ‖s‖₁ (the equalisation argument)",
    }
    case_columns = ("d", "family", "s", "q_name", "q")
    details = {"optimal_value": ("value", "target"), "not_beaten": ("value", "target")}
    worst = {}
    defects = (
        Defect("q ∝ √s (the Ridge choice) for the Lasso objective", {"optimal_q": D + "lasso_q_square_root"},
               idea=True),
        Defect("q = s, not normalised", {"optimal_q": D + "lasso_q_unnormalised"}),
    )
    power = (
        "Values are exact rationals, so a q* that is off s/Σs by any amount on one tried s fails the value and the "
        "equalisation check, and one q tried that does as well as q* (or better) fails optimality; vectors s outside "
        "the listed families and d > optimum_d are out of reach."
    )
    plot = Plot(x="q_name", y="min_excess", hue="family", kind="point", logy=True, xlabel="q tried",
                ylabel="min over s of max_i s_i/q_i / ‖s‖₁ − 1")

    def target_value(self, s):
        return sum(s, ZERO)

    def first_order(self, s, q):
        total = sum(s, ZERO)
        return all((w > 0 and v / w == total) if v else w == 0 for v, w in zip(s, q, strict=True))

    def witness(self, s, q_star, q, best):
        if q == q_star:
            return {"witness": None}
        return {"witness": any(w < a and v > 0 and (w == 0 or v / w > best)
                               for v, w, a in zip(s, q, q_star, strict=True))}

    def cases(self, p):
        return [{"part": "optimum", "d": d} for d in range(1, p["optimum_d"] + 1)]

    def summarize(self, p, table):
        return (table[table["q_name"] != "q*"].groupby(["family", "q_name"], as_index=False, sort=False)
                .agg(rows=("d", "size"), min_excess=("excess", "min")))

    def headline(self, p, table):
        excess = table["excess"].dropna()
        return (float(excess.min()), 0.0, None) if len(excess) else (None, None, None)

    def findings(self, p, table):
        return self.optimum_findings(table)


# ---------------------------------------------------------------------- ρ (§5)
PUBLISHED = {("ridge", 0.0): "1", ("ridge", -0.5): "0.91", ("ridge", -1.0): "0.55", ("ridge", -2.0): "0.05",
             ("lasso", 0.0): "1", ("lasso", -0.5): "0.086", ("lasso", -1.0): "0.014", ("lasso", -2.0): "0.0033"}
ULP = Fraction(1, 2 ** 53)


def rho_enclosure(setting: str, d: int, alpha: float, digits: int) -> tuple[Fraction, Fraction]:
    """Exact rational bounds on ρ for the §5.1 family. ρ is invariant under s → c·s, so the projection
    (a common factor) drops out: ρ_Ridge = (Σ i^{α/2})²/(d·Σ i^α), ρ_Lasso = Σ i^α/d (max_i i^α = 1)."""
    lo, hi = bounds.power_sum_enclosure(d, Fraction(str(alpha)), digits)
    if setting == "lasso":
        return lo / d, hi / d
    rlo, rhi = bounds.power_sum_enclosure(d, Fraction(str(alpha)) / 2, digits)
    return rlo * rlo / (d * hi), rhi * rhi / (d * lo)


def float_tolerance(d: int) -> Fraction:
    """A priori relative error of ρ computed in float64 from the family's s: (3d + 10)u to first order
    (rounding of s, square roots, two sums of d terms, the square and the division), taken as (4d + 16)u."""
    return (4 * d + 16) * ULP


@register
class Rho(Exact):
    observed_label = ('the largest relative error of the computed ρ against its exact value, over the cases '
                      '(the bound is the rounding allowance)')
    id = "ks15.rho"
    no_space = ("its statement is the value of ρ on the paper's one family (d = 500 and its α), beside the "
                "published numbers: a fixed instance with no free quantity")
    title = "The improvement ratios ρ_Ridge and ρ_Lasso of the decaying family, exactly, beside the published ones"
    reference = "§5 (definition of the improvement ratios), §5.1 and the captions of Figures 1 and 2"
    statement = (
        "For s = E[x²], ρ_Ridge = ‖s‖_{1/2}/(d·E‖x‖²) and ρ_Lasso = ‖s‖₁/(d·‖s‖∞) lie in [1/d, 1], equal 1 exactly "
        "when all second moments are equal, and on the §5.1 family (u_i = i^α projected onto the unit L2 or L∞ "
        "ball, independent Bernoulli(u_i) attributes) decrease as |α| grows; at d = 500 and α ∈ {0, −0.5, −1, −2} "
        "the paper prints ρ_Ridge = 1, 0.91, 0.55, 0.05 and ρ_Lasso = 1, 0.086, 0.014, 0.0033."
    )
    hypotheses = ("α ≤ 0 dyadic (−p/2^j), so that Σ i^α and Σ i^{α/2} can be enclosed in rationals",
                  "E‖x‖² = Σ_i E[x_i²] (true for every distribution; for the family, Σ u_i)")
    interpretation = (
        "For Bernoulli(u_i) attributes s_i = E[x_i²] = u_i. Both ratios are invariant under s → c·s, so the "
        "projection onto the ball (a common factor: u/‖u‖₂ for Ridge; none for Lasso, as i^α ≤ 1) drops out, and "
        "ρ_Ridge = (Σ i^{α/2})²/(d·Σ i^α), ρ_Lasso = Σ i^α/d. These sums are enclosed in rationals with integer "
        "roots (bounds.power_sum_enclosure, width ~d·10^−digits), so every property below is decided exactly. The "
        "subjects are the registered designs (`design`, the family as printed, and `variant`, the version meeting "
        "‖x‖ ≤ 1 and |y| ≤ B that the bound claims use: x_i = √(u_i/Σu)·Bernoulli(½) for Ridge, so s ∝ u and ρ is "
        "the same) and the formulas (`rho_ridge`, with the design's own E‖x‖², and `rho_lasso`): ρ computed from the "
        "design's float64 moments must agree with the enclosure to the a priori float64 error (4d + 16)·2^−53 "
        "(relative). The formulas are also checked on random rational vectors (Ridge on s = r², where ‖s‖_{1/2} = "
        "(Σ r_i)² is rational) against exact values. The published values are compared at their printed "
        "precision, outside the verdict; where one is not the rounding of the exact value, ρ is also computed from "
        "the second moments of `sample_seeds` samples of m examples of the design (each m of `sample_m`), as it "
        "would be from data, and reported beside them."
    )
    subjects = {"design": decaying_design, "variant": decaying_bounded_design, "rho_ridge": bounds.rho_ridge,
                "rho_lasso": bounds.rho_lasso}
    protocols = {"design": Contract(Function, call=("d", "alpha", "setting")),
                 "variant": Contract(Function, call=("d", "alpha", "setting")),
                 "rho_ridge": Contract(Function, call=("s", "expected_sq_norm")),
                 "rho_lasso": Contract(Function, call=("s",))}
    parameters = {"d": Integer(2), "alphas": Grid(Number(high=0.0), distinct=2), "digits": Integer(10, 200),
                  "vectors": Integer(0), "vector_d": Integer(1, 200), "spread": Integer(2),
                  "sample_m": Grid(Integer(2), distinct=1), "sample_seeds": Integer(0)}
    base = {"d": 500, "digits": 30, "sample_seeds": 5}
    profiles = {"quick": {"alphas": (0.0, -0.5, -1.0, -2.0), "vectors": 20, "vector_d": 8, "spread": 20,
                          "sample_m": (20_000,)},
                "full": {"alphas": (0.0, -0.25, -0.5, -0.75, -1.0, -1.5, -2.0, -3.0, -4.0), "vectors": 300,
                         "vector_d": 40, "spread": 100, "sample_m": (20_000, 200_000)}}
    checks = {
        "agrees": "the subject's ρ lies within the exact value's enclosure widened by the float64 error bound "
                  "(4d + 16)·2^−53 (relative)",
        "in_range": "1/d ≤ ρ ≤ 1 (exact)",
        "equality": "ρ = 1 exactly if and only if all second moments are equal (exact)",
        "decreasing": "on the family, ρ at α is strictly below ρ at the next larger α of the grid (exact)",
    }
    case_columns = ("setting", "part", "design", "alpha", "s")
    details = {"agrees": ("subject", "exact")}
    defects = (
        Defect("ρ_Ridge with Σ√s_i in place of (Σ√s_i)²", {"rho_ridge": D + "rho_ridge_unsquared"}),
        Defect("ρ_Ridge from AERR's moment term Σ s_i/q_i at q uniform (d·‖s‖₁) in place of its minimum ‖s‖_{1/2}",
               {"rho_ridge": D + "rho_ridge_uniform_q"}, idea=True),
        Defect("ρ_Lasso normalised by ‖s‖₂ instead of ‖s‖∞", {"rho_lasso": D + "rho_lasso_two_norm"}),
        Defect("a design whose second moments are i^{α/2} (a standard deviation for the second moment)",
               {"design": D + "design_standard_deviation"}),
    )
    power = (
        "The exact values are rational enclosures of width ~d·10^−digits, so a subject off by more than the float64 "
        "error bound (~10^−13 relative at d = 500) on one α or one random vector FAILs, and the properties (range, "
        "equality case, monotonicity in α) are decided without rounding. The comparison with the published numbers "
        "cannot fail the claim: it is reported in the notes, beside ρ computed from sampled moments."
    )
    plot = Plot(x="alpha", y="rho", theory="published", hue="series", kind="line", logy=True, xlabel="α",
                ylabel="ρ (exact)", theory_label="published (captions of Figures 1 and 2)")

    def check_params(self, params):
        for a in params["alphas"]:
            if Fraction(str(a)).denominator & (Fraction(str(a)).denominator - 1):
                raise ParameterError(f"each value of alphas must be dyadic (−p/2^j, e.g. −0.75), got {a}")

    def cases(self, p):
        exact = [{"setting": s, "part": part} for s in ("ridge", "lasso") for part in ("family", "random")]
        return exact + [{"setting": s, "part": "sampled", "alpha": a} for s, a in self.off_published(p)]

    def off_published(self, p) -> list[tuple[str, float]]:
        """The (setting, α) of the grid whose published ρ is not the rounding of the exact value."""
        if not p["sample_seeds"]:
            return []
        return [(s, float(a)) for (s, a), printed in PUBLISHED.items() if float(a) in map(float, p["alphas"])
                and not self.published(printed, *rho_enclosure(s, p["d"], a, p["digits"]))["published_agrees"]]

    def evaluate(self, p, case, subjects, rng):
        setting, d = case["setting"], p["d"]
        if case["part"] == "random":
            return self.random_rows(p, setting, subjects, rng)
        if case["part"] == "sampled":
            return self.sampled_rows(p, setting, case["alpha"], subjects, rng)
        rows = []
        for name in ("design", "variant"):
            previous = None
            for alpha in sorted(p["alphas"], reverse=True):
                lo, hi = rho_enclosure(setting, d, alpha, p["digits"])
                design = subjects[name](d, alpha, setting=setting)
                s = np.asarray(design.second_moments, dtype=float)
                value = self.subject_rho(subjects, setting, s, float(design.expected_sq_norm))
                printed = PUBLISHED.get((setting, float(alpha))) if name == "design" else None
                rows.append({"setting": setting, "part": "family", "design": name, "alpha": float(alpha),
                             "rho": float((lo + hi) / 2), "exact": f"{float(lo):.15g}", "subject": value,
                             "enclosure": "exact rational" if lo == hi else
                             f"rational enclosure of width {float(hi - lo):.1e}",
                             **self.agreement(value, lo, hi, d), "in_range": Fraction(1, d) <= lo and hi <= 1,
                             "equality": (lo == hi == 1) if alpha == 0 else hi < 1,
                             "decreasing": None if previous is None else hi < previous,
                             **self.published(printed, lo, hi)})
                previous = lo
        return rows

    def sampled_rows(self, p, setting, alpha, subjects, rng, chunk=5000):
        """ρ from the second moments of samples of m examples of the design (drawn in chunks)."""
        design, rows = subjects["design"](p["d"], alpha, setting=setting), []
        for m in p["sample_m"]:
            for seed in range(p["sample_seeds"]):
                total = np.zeros(p["d"])
                for start in range(0, m, chunk):
                    X, _ = design.sample(min(chunk, m - start), rng)
                    total += (X * X).sum(axis=0)
                s = total / m
                rows.append({"setting": setting, "part": "sampled", "alpha": alpha, "m": m, "sample": seed,
                             "sampled_rho": self.subject_rho(subjects, setting, s, float(s.sum()))})
        return rows

    def exact_rows(self, table):
        return table[table["part"] != "sampled"]

    def subject_rho(self, subjects, setting, s, expected_sq_norm):
        if setting == "ridge":
            return float(subjects["rho_ridge"](s, expected_sq_norm))
        return float(subjects["rho_lasso"](s))

    def agreement(self, value, lo, hi, d):
        tol = float_tolerance(d)
        ok = value == value and lo * (1 - tol) <= Fraction(value) <= hi * (1 + tol)
        return {"agrees": ok, "relative_error": abs(value / float((lo + hi) / 2) - 1)}

    def published(self, printed, lo, hi):
        if printed is None:
            return {"published": None}
        places = len(printed.split(".")[1]) if "." in printed else 0
        rounded = round(lo, places), round(hi, places)
        return {"published": float(printed), "printed": printed,
                "rounded": str(float(rounded[0])) if rounded[0] == rounded[1] else "undetermined",
                "published_agrees": rounded[0] == rounded[1] == Fraction(printed),
                "truncation_agrees": math.floor(lo * 10 ** places) == math.floor(hi * 10 ** places)
                == Fraction(printed) * 10 ** places,
                "relative_difference": float(Fraction(printed) / ((lo + hi) / 2) - 1)}

    def random_rows(self, p, setting, subjects, rng):
        rows = []
        for index in range(p["vectors"]):
            d = int(rng.integers(1, p["vector_d"] + 1))
            shape = ("all equal", "one positive", "random")[index % 3]
            r = [ONE] * d if shape == "all equal" else [ONE] + [ZERO] * (d - 1) if shape == "one positive" else \
                [random_rational(rng, p["spread"], 0, 1) for _ in range(d)]
            r = r if any(r) else [ONE, *r[1:]]
            s = [v * v for v in r] if setting == "ridge" else r
            exact = (sum(r) ** 2 / (d * sum(s)) if setting == "ridge" else sum(s) / (d * max(s)))
            value = self.subject_rho(subjects, setting, np.array([float(v) for v in s]), float(sum(s)))
            rows.append({"setting": setting, "part": "random", "alpha": None, "s": fmt(s), "exact": str(exact),
                         "subject": value, **self.agreement(value, exact, exact, d),
                         "in_range": Fraction(1, d) <= exact <= 1,
                         "equality": (exact == 1) == (len(set(s)) == 1)})
        return rows

    def summarize(self, p, table):
        family = table[table["part"] == "family"]
        cols = [c for c in ("setting", "design", "alpha", "rho", "exact", "subject", "relative_error", "published",
                            "rounded", "published_agrees", "relative_difference") if c in family]
        series = family["setting"] + ", " + family["design"].map({"design": "as printed", "variant": "variant"})
        return family[cols].assign(series=series.to_numpy()).reset_index(drop=True)

    def headline(self, p, table):
        err = float(table["relative_error"].max())
        tol = float(float_tolerance(max(p["d"], p["vector_d"])))
        return err, tol, err / tol

    def findings(self, p, table):
        family = table[(table["part"] == "family") & table["published"].notna()]
        lines = []
        for _, row in family.iterrows():
            verdict = ("agrees at the printed precision" if row["published_agrees"] else
                       f"DIFFERS: the exact value rounds to {row['rounded']}"
                       + (", the printed value is its truncation" if row["truncation_agrees"] else ""))
            lines.append(f"ρ_{row['setting'].capitalize()} at α = {row['alpha']:g}, d = {p['d']}: exact "
                         f"{row['exact']}, published {row['printed']} ({verdict}; published/exact − 1 = "
                         f"{row['relative_difference']:+.3%}).")
        sampled = table[table["part"] == "sampled"] if "sampled_rho" in table else table[:0]
        for (setting, alpha, m), part in sampled.groupby(["setting", "alpha", "m"], sort=False):
            row = family[(family["setting"] == setting) & (family["alpha"] == alpha)].iloc[0]
            printed = row["printed"]
            places = len(printed.split(".")[1]) if "." in printed else 0
            values = part["sampled_rho"].astype(float)
            rounded = sum(round(Fraction(v), places) == Fraction(printed) for v in values)
            cut = sum(math.floor(Fraction(v) * 10 ** places) == Fraction(printed) * 10 ** places for v in values)
            lines.append(f"ρ_{setting.capitalize()} at α = {alpha:g} computed from sampled second moments, as data "
                         f"would give it ({len(values)} samples of m = {int(m)} examples of the design): "
                         f"{values.min():.4g}–{values.max():.4g}, beside the exact {row['exact']} and the published "
                         f"{printed}; at the printed precision {rounded} of the {len(values)} round to {printed} and "
                         f"{cut} truncate to it (the exact value rounds to {row['rounded']}).")
        return lines


# ---------------------------------------------------------------------- the improved inner product (after eq. (2))
def square_moment_designs(rng, d: int, spread: int) -> list[tuple[str, list]]:
    """Finite designs in the unit L2 ball whose second moments are squares of rationals (so that √E[x_j²], hence
    the improved p, is rational), label 0: independent signs x_j = ±r_j (s_j = r_j²); one attribute at a time,
    x = ±r_j·e_j with probability u_j² (u a rational unit vector: s_j = u_j²r_j²); the first with r_d = 0."""
    r = rational_unit_vector(rng, d, spread)
    signs = [(Fraction(1, 2**d), tuple(e * v for e, v in zip(bits, r, strict=True)), ZERO)
             for bits in itertools.product((1, -1), repeat=d)]
    u, radii = rational_unit_vector(rng, d, spread), [random_rational(rng, spread, 0, 1) for _ in range(d)]
    single = [(u[j] * u[j] / 2, tuple(e * radii[j] if i == j else ZERO for i in range(d)), ZERO)
              for j in range(d) if u[j] for e in (1, -1)]
    out = [("independent signs", signs), ("one attribute at a time", single)]
    if d > 1:
        out.append(("independent signs, x_d = 0", [(pr, (*x[:-1], ZERO), y) for pr, x, y in signs]))
    return out


def phi_second_moment_formula(w, s, p):
    """Σ_j w_j²s_j/p_j over the j with w_j·s_j ≠ 0 (the second moment of (w_j/p_j)·x_j over the data and j ~ p);
    None (+∞) when p_j = 0 at such a j."""
    terms = [(a * a * v, pj) for a, v, pj in zip(w, s, p, strict=True) if a and v]
    if any(pj == 0 for _, pj in terms):
        return None
    return sum((c / pj for c, pj in terms), ZERO)


@register
class ImprovedInner(Exact):
    observed_label = ("the smallest relative excess (value/best − 1) of another sampling distribution's second "
                      "moment over the optimum's, over the cases (≥ 0 when the optimum is one)")
    id = "ks15.improved-inner"
    space = Space(
        dims={"d_max": Int(1, 5), "weights": Int(1, 6), "random_p": Int(1, 6), "spread": Int(2, 16)},
        why=("the statement's ∀ w and second moments: every d ≤ d_max (and every budget) is enumerated in each "
             "trial, so the space's axes are the enumeration's size and the random rational instances (how many, "
             "how spread); ranges up to the full profile's"))
    title = "p_j ∝ |w_j|·√E[x_j²] minimises the inner-product estimate's second moment: (Σ|w_j|√E[x_j²])²"
    reference = "§3, the paragraph after eq. (2) (the 'improved inner product estimation' of §5)"
    statement = (
        "For the estimate (w_j/p_j)·x_j of ⟨w, x⟩ with j drawn from p, the second moment over the data and the draw "
        "is Σ_j w_j²E[x_j²]/p_j; over probability vectors p it is minimised by p_j ∝ |w_j|·√E[x_j²], with value "
        "(Σ_j |w_j|√E[x_j²])², and every other p (Algorithm 1's p ∝ w_j², GAELR's ∝ |w_j|, uniform) does strictly "
        "worse unless it coincides with it."
    )
    hypotheses = ("E[x_j²] known (the known-moment scenario of §3.1)", "‖x‖₂ ≤ 1 on every atom",
                  "p a probability vector")
    interpretation = (
        "The paper states the optimal p without proof ('the same strategy as for eq. (2)'); what p minimises is the "
        "variance of the estimate, which differs from its second moment by E[⟨w, x⟩]², independent of p, so the "
        "second moment is checked. On finite designs whose moments s = E[x²] are squares of rationals (independent "
        "signs ±r_j; one attribute at a time ±r_j·e_j with probability u_j²; the first with an attribute that is "
        "always 0), label 0, and predictors w (random rationals in the unit ball, one with a zero entry, equal "
        "magnitudes, a vertex), the subject `improved` (w, s) → p is checked exactly: a probability vector, value "
        "(Σ|w_j|√s_j)², first-order conditions (w_j²s_j/p_j² the same wherever w_j·s_j ≠ 0, p_j = 0 elsewhere), and "
        "no p tried does as well (Algorithm 1's ∝ w², GAELR's ∝ |w|, uniform, ∝ |w|·s, random ones, the "
        "perturbations p* ± t(e_i − e_j)). The second-moment formula is tied to the estimator itself: the subject "
        "`distribution` (GAERR's law with inner weights c_j = (d + 2)·p_j/|w_j|, so that j ~ p; the scale, which "
        "p does not see, shows an estimator that forgets to normalise) is enumerated on every atom "
        "(k = 1, q uniform, y = 0: E‖g̃‖² = E[φ̃²]·d‖x‖², x̃ and j independent), and its E[φ̃²] must equal "
        "Σ w_j²s_j/p_j for every p tried that puts no mass where w_j = 0 (the estimator cannot draw such j). "
        "Conventions: 0/0 terms are 0; p_j = 0 where w_j·s_j ≠ 0 is +∞."
    )
    subjects = {"improved": bounds.improved_inner_p_exact, "distribution": est.gaerr_gradient_estimate_distribution}
    protocols = {"improved": Contract(Function, call=("w", "s"),
                                      types="w and s are tuples of Fractions (s entries squares of rationals); "
                                            "returns a probability vector, read as Fractions"),
                 "distribution": Contract(EstimatorLaw, call=("q", "inner_weights"))}
    parameters = {"d_max": Integer(1, 5), "weights": Integer(0), "random_p": Integer(0), "spread": Integer(2)}
    profiles = {"quick": {"d_max": 3, "weights": 2, "random_p": 2, "spread": 6},
                "full": {"d_max": 5, "weights": 6, "random_p": 6, "spread": 16}}
    checks = {
        "p_star": "the subject `improved` returns a probability vector",
        "optimal_value": "Σ w_j²s_j/p*_j = (Σ|w_j|√s_j)² exactly",
        "first_order": "w_j²s_j/p*_j² is the same wherever w_j·s_j ≠ 0, and p*_j = 0 elsewhere",
        "not_beaten": "Σ w_j²s_j/p*_j ≤ Σ w_j²s_j/p_j for every p tried, strictly when p ≠ p* (unless every "
                      "w_j·s_j is 0: then every p gives 0)",
        "identity": "the estimator's E[φ̃²] (enumerated) = Σ w_j²s_j/p_j for every p it can draw from",
    }
    case_columns = ("d", "family", "w", "p_name")
    details = {"optimal_value": ("value", "target"), "not_beaten": ("value", "best"),
               "identity": ("enumerated", "value")}
    defects = (
        Defect("p ∝ |w_j| (the second moments ignored: GAELR's p)", {"improved": D + "improved_p_abs_w"}, idea=True),
        Defect("p ∝ |w_j|·E[x_j²] (no square root)", {"improved": D + "improved_p_no_root"}),
        Defect("estimator weighted w_j/p_j with p_j unnormalised",
               {"distribution": D + "gaerr_law_inner_unnormalised"}),
    )
    power = (
        "Every value is an exact rational, so a p* off |w|√s/Σ|w|√s by any amount on one instance with unequal "
        "|w_j|√s_j fails the value and the first-order conditions; GAELR's p ∝ |w| is caught wherever the moments "
        "on the support of w are unequal (not on designs with equal moments, where it is optimal). An estimator whose "
        "second moment is not Σ w_j²s_j/p_j (unnormalised weights) fails the identity. Designs whose moments are not "
        "squares of rationals, and d > d_max, are out of reach."
    )
    plot = Plot(x="p_name", y="min_excess", hue="family", kind="point", logy=True, xlabel="p tried",
                ylabel="min over w of Σw²s/p over its optimum − 1")

    def cases(self, p):
        return [{"d": d} for d in range(1, p["d_max"] + 1)]

    def evaluate(self, p, case, subjects, rng):
        d, rows, met = case["d"], [], True
        for family, atoms in square_moment_designs(rng, d, p["spread"]):
            met &= sum(a[0] for a in atoms) == 1 and all(dot(x, x) <= 1 for _, x, _ in atoms)
            s = tuple(sum((pr * x[i] * x[i] for pr, x, _ in atoms), ZERO) for i in range(d))
            ws = [("vertex", tuple(ONE if i == 0 else ZERO for i in range(d))),
                  ("equal magnitudes", tuple(Fraction(1 if i % 2 else -1, d) for i in range(d)))]
            ws += [("random", tuple(random_rational(rng, p["spread"], -1, 1) / d for _ in range(d)))
                   for _ in range(p["weights"])]
            if d > 1:
                ws.append(("a zero entry", (*ws[-1][1][:-1], ZERO)))
            for w_name, w in ws:
                rows += self.instance_rows(p, rng, d, family, atoms, s, w_name, w, subjects)
        return Measurement(rows, [Hypothesis("‖x‖₂ ≤ 1 on every atom and each design's probabilities sum to 1",
                                             met, f"d = {d}")])

    def instance_rows(self, p, rng, d, family, atoms, s, w_name, w, subjects):
        c = [abs(a) * bounds.rational_sqrt(v) for a, v in zip(w, s, strict=True)]
        target = sum(c, ZERO) ** 2
        p_star = tuple(Fraction(v) for v in subjects["improved"](w, s))
        good = len(p_star) == d and all(v >= 0 for v in p_star) and sum(p_star, ZERO) == 1
        best = phi_second_moment_formula(w, s, p_star) if good else None
        base = {"d": d, "family": family, "w_name": w_name, "w": fmt(w), "s": fmt(s), "target": str(target)}
        live = [j for j in range(d) if w[j] and s[j]]
        ratios = {w[j] * w[j] * s[j] / (p_star[j] * p_star[j]) for j in live if good and p_star[j]}
        first = good and len(ratios) <= 1 and all(p_star[j] > 0 if j in live else p_star[j] == 0 for j in range(d))
        rows = [{**base, "p_name": "p*", "p": fmt(p_star), "value": str(best), "p_star": good,
                 "optimal_value": best == target, "first_order": first if live else None,
                 "identity": self.identity(atoms, w, p_star, best, subjects) if good else None}]
        if best is None:
            return rows
        tried = [("∝ w² (Algorithm 1)", [a * a for a in w]), ("∝ |w| (GAELR)", [abs(a) for a in w]),
                 ("uniform", [ONE] * d), ("∝ |w|·s", [abs(a) * v for a, v in zip(w, s, strict=True)])]
        tried += [("random", [Fraction(int(rng.integers(1, p["spread"] + 1))) for _ in range(d)])
                  for _ in range(p["random_p"])]
        if live:
            t = min(p_star[j] for j in live) / 7
            tried += [("p* + t(e_i − e_j)", [v + (t if a == i else -t if a == j else 0) for a, v in enumerate(p_star)])
                      for i, j in itertools.permutations(live, 2)][:6]
        for name, raw in tried:
            total = sum(raw, ZERO)
            if total == 0:
                continue
            q = tuple(v / total for v in raw)
            value = phi_second_moment_formula(w, s, q)
            beaten = value is not None and (value < best or (value == best and q != p_star and bool(live)))
            rows.append({**base, "p_name": name, "p": fmt(q), "value": str(value), "best": str(best),
                         "not_beaten": not beaten,
                         "excess": None if value is None or q == p_star or best == 0 else float(value / best - 1),
                         "identity": self.identity(atoms, w, q, value, subjects)})
        return rows

    def identity(self, atoms, w, q, value, subjects):
        """E[φ̃²] of the subject's law with j ~ q (inner weights ∝ q_j/|w_j|) against Σ w_j²s_j/q_j; None where the
        estimator cannot draw from q (mass where w_j = 0, or no mass where w_j·x_j can be non-zero)."""
        d = len(w)
        if value is None or any(v and not a for v, a in zip(q, w, strict=True)) or not any(w):
            return None
        inner = tuple((d + 2) * v / abs(a) if a else ZERO for v, a in zip(q, w, strict=True))  # any scale: p
        moment = ZERO
        for pr, x, _ in atoms:
            norm = dot(x, x)
            if not norm:
                continue
            law = subjects["distribution"](w, x, ZERO, 1, None, inner)
            moment += pr * sum(law_moments(law, d).second, ZERO) / (d * norm)
        return moment == value

    def summarize(self, p, table):
        tried = table[table["p_name"] != "p*"]
        return (tried.groupby(["family", "p_name"], as_index=False, sort=False)
                .agg(rows=("d", "size"), min_excess=("excess", "min"), max_excess=("excess", "max")))

    def headline(self, p, table):
        excess = table["excess"].dropna() if "excess" in table else []
        return (float(excess.min()), 0.0, None) if len(excess) else (None, None, None)

    def findings(self, p, table):
        notes = []
        for name in ("∝ w² (Algorithm 1)", "∝ |w| (GAELR)", "uniform"):
            part = table[(table["p_name"] == name)].dropna(subset=["excess"])
            if len(part):
                worst = part.loc[part["excess"].idxmax()]
                notes.append(f"{name}: its second moment exceeds the optimum by a factor up to "
                             f"{1 + worst['excess']:.4g} ({worst['family']}, w = {worst['w']}, s = {worst['s']}), at "
                             f"least {1 + part['excess'].min():.4g}.")
        return notes
