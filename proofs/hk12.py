"""Exact checks of lemmas of Hazan & Koren (ICML 2012), Linear regression with limited observation:
Lemma 3.3 (AERR's gradient estimate), Lemma 3.8 (AELR's) and Lemma A.2 (the clipping bias)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from theorycheck import estimators as est
from theorycheck.algorithms import AELR, AERR
from theorycheck.bounds.hk12 import clipping_bias_bound, gradient_second_moment_bound, thm31_eta, thm34_eta
from theorycheck.claims import Defect, Erratum, Hypothesis, Measurement, Plot, register
from theorycheck.kinds import exact as kind
from theorycheck.kinds.exact import LAW_PARAMETERS, MC_PARAMETERS, Exact, ExactLaw, as_fraction, dot, random_rational
from theorycheck.kinds.pathwise import TRAJECTORY_LEARNER
from theorycheck.protocols import Contract, EstimatorLaw, Function, GradientEstimator, Output
from theorycheck.spaces import Int, Real, Space
from theorycheck.validation import Budget, Grid, Integer, Positive

D = "tests.defects_exact:"
SMALL = {"d_max": "3"}  # the planted laws enumerate every ordered draw, slowly


@register
class Lemma3_3(ExactLaw):
    id = "hk12.lemma3.3"
    space = Space(
        dims={"d_max": Int(1, 5), "instances": Int(0, 25), "adversarial": Int(0, 4), "spread": Int(1, 12),
              "B": Real(0.25, 4.0, log=True)},
        fixed={"mc_repetitions": "0", "learner_runs": "0"},
        why=("the lemma's ∀ w in the ball of radius B, x, y, d and k ≤ d: every d ≤ d_max (and every budget) is "
             "enumerated in each trial, so the space's axes are the enumeration's size and the random rational "
             "instances (how many, how spread); ranges up to the full profile's; the sampler and learner parts "
             "(checks of an implementation, not of the ∀) are off"))
    title = "AERR's gradient estimate is unbiased and E‖g̃‖₂² ≤ 8B²d/k"
    reference = "Lemma 3.3 (proof in Appendix A.1)"
    statement = (
        "For the AERR estimate g̃ = φ̃·x̃ (x̃ from k uniform draws with weight d/k, φ̃ from one draw j ∝ w_j² with "
        "φ̃ = ‖w‖₂²x_j/w_j − y), E g̃ = (⟨w,x⟩ − y)x, and when ‖x‖₂ ≤ 1, |y| ≤ B and ‖w‖₂ ≤ B, E‖g̃‖₂² ≤ 8B²d/k."
    )
    hypotheses = ("‖x‖₂ ≤ 1", "|y| ≤ B", "‖w‖₂ ≤ B (w is projected onto the L2 ball)", "1 ≤ k ≤ d")
    interpretation = (
        "Algorithm 1, lines 3–10, as printed: the k draws i_r are uniform and independent (with replacement), j is "
        "drawn once. At w = 0 (excluded by line 1, reachable after a projection) φ̃ = −y with no draw. The loss is "
        "½(⟨w,x⟩ − y)², so the target is (⟨w,x⟩ − y)x. The lemma's proof is said to be in the authors' longer "
        "technical report, which is not available; the text does contain one (Appendix A.1), and its eq. (9) is "
        "wrong (see the erratum). Instances: random rational ones "
        "meeting the hypotheses (points of the rational unit sphere scaled by rational radii, with zeros and "
        "w = 0), two generic ones (distinct |w_j|, mixed signs), the boundary family ‖x‖₂ = 1, ⟨w,x⟩ = −B, y = B "
        "and a small grid; every d ≤ d_max and every k ≤ d. Derived (x̃ and φ̃ independent): E‖g̃‖₂² = E[φ̃²]·"
        "(d + k − 1)/k·‖x‖₂² exactly, and E[φ̃²] ≤ 4B², so the supremum of the ratio to 8B²d/k is (d + k − 1)/(2d) "
        "< 1: the bound is loose by 2d/(d + k − 1). That identity is checked too and FAILs the claim: it is our "
        "derivation about Algorithm 1's estimator, so a subject that breaks it is not that estimator (even if it is "
        "unbiased and within the bound), and the lemma is about that estimator. Monte Carlo: the sampler `estimate` "
        "(the kernel a learner would run) is drawn on one instance (‖x‖₂ = 1, ‖w‖₂ = 0.9 with |w_j| ∈ [0.5, 1.5]·c, "
        "mixed signs), on the range |g_i| ≤ max_j |φ_j|·d·|x_i| the estimator allows, as for cbss11.lemma11. "
        "Learner: the subject `learner` (AERR, with Theorem 3.1's η) is run with its path recorded on adversarial "
        "ridge designs; its own g̃_t must be unbiased given the past along that path, a martingale statement "
        "decided by Azuma–Hoeffding on the predictable range of the kernel (the range is finite on each step but "
        "not uniformly: φ̃ can be as large as ‖w‖₂²|x_j|/|w_j|). The second moment is not checked along the path: "
        "its range is not bounded by anything near 8B²d/k, so no calibrated test of it there has power."
    )
    subjects = {"distribution": est.aerr_gradient_estimate_distribution, "estimate": est.aerr_gradient_estimate,
                "learner": AERR}
    protocols = {"distribution": Contract(EstimatorLaw),
                 "estimate": Contract(GradientEstimator, call=("random_state",)), "learner": TRAJECTORY_LEARNER}
    parameters = {**{k: LAW_PARAMETERS[k] for k in ("d_max", "instances", "adversarial", "spread", "B")},
                  **MC_PARAMETERS, "mc_k": Budget(of="mc_d"), **kind.LEARNER_PARAMETERS,
                  "learner_designs": kind.learner_designs("l2")}
    base = {"d_max": 4, "instances": 6, "adversarial": 2, "spread": 6, "B": 1.0, "mc_d": 20, "mc_k": 4,
            "mc_samples": 100_000, "mc_repetitions": 2, "delta": 5e-4, "resolution": 0.05,
            "learner_designs": ("mixed", "correlated_mixed"), "learner_d": 5, "learner_k": 1, "learner_m": 40_000,
            "learner_runs": 1, "learner_noise": 0.1, "learner_rho": 0.5, "learner_delta": 5e-4,
            "learner_resolution": 0.05}
    profiles = {"quick": {}, "full": {"d_max": 6, "instances": 25, "adversarial": 4, "spread": 12, "B": 1.5,
                                      "mc_d": 100, "mc_k": 10, "mc_samples": 1_000_000, "mc_repetitions": 4,
                                      "learner_m": 100_000, "learner_runs": 4}}
    ball = "l2"
    sampler = "estimate"
    learner = "learner"
    target_name = "(⟨w,x⟩ − y)x"
    functional_name = "E‖g̃‖₂²"
    bound_name = "8B²d/k"
    identities = {"identity": "the subject is Algorithm 1's estimator: E‖g̃‖₂² = E[φ̃²]·(d + k − 1)/k·‖x‖₂², the "
                              "value derived for lines 3–10"}
    erratum_checks = {"eq9": ("identity", "printed_eq9")}
    errata = (Erratum(
        "eq9", "Appendix A.1, eq. (9) (proof of Lemma 3.3)", "E‖x̃‖₂² = (2d + k − 1)/(2k)·‖x‖₂²",
        "E‖x̃‖₂² = (d + k − 1)/k·‖x‖₂² for Algorithm 1's k draws with replacement (as Appendix A.5 has it for Lemma "
        "3.8); the two agree only at k = 1, and both are ≤ 2d/k, so the lemma's conclusion stands",
        "counterexample",
        "d = 4, k = 2, x = e₁: x̃ is 4e₁ with probability 1/16 and 2e₁ with probability 6/16 (0 otherwise), so "
        "E‖x̃‖₂² = 16/16 + 4·6/16 = 5/2, while eq. (9) gives 9/4. The claim enumerates the law exactly; the printed "
        "identity fails on every case with k ≥ 2 and x ≠ 0."),)
    defects = (
        Defect("x̃ without the factor d", {"distribution": D + "aerr_law_without_d"}, overrides=SMALL, idea=True),
        Defect("j drawn ∝ |w_j| with weight ‖w‖₂²/w_j", {"distribution": D + "aerr_law_abs_sampling"}, overrides=SMALL),
        Defect("one draw of the k (unbiased, too noisy)", {"distribution": D + "aerr_law_one_draw"}),
        Defect("x̃ drawn without replacement (unbiased, within the bound)",
               {"distribution": D + "aerr_law_x_without_replacement"}, overrides=SMALL),
        Defect("sampler with x̃ weighted d instead of d/k", {"estimate": D + "aerr_sampler_weight_d"}),
        Defect("learner whose x̃ lacks the weight d/k", {"learner": D + "AERRWithoutWeight"}),
        Defect("learner run with η·k/d (its estimates are Algorithm 1's)", {"learner": "tests.defects_bounds:"
                                                                                    "MissingScaleAERR"},
               caught=True, why="caught by the conformance to AERR run before the claim (its parameters and behaviour "
                                "checks); the claim's own test alone does not catch it: its g̃_t are the paper's "
                                "(only its step is smaller), which is all Lemma 3.3 is about"),
    )
    power = (
        "Every outcome of the subject's law is enumerated on every instance, so a bias on one instance, or a second "
        "moment above 8B²d/k on one (the boundary family attains the supremum (d + k − 1)/(2d) of the ratio), is a "
        "FAIL. Since the bound is loose by 2d/(d + k − 1), a noisier or quieter but unbiased estimator could pass it; "
        "the identity check catches those (x̃ without replacement). The Monte-Carlo part checks the sampler itself "
        "(a draw out of range is a certain FAIL; a bias of about twice the resolution on one coordinate is caught with "
        "probability ≥ 1 − δ). The learner part reads the learner's own estimates on its path: a learner whose "
        "estimate is biased by a fixed factor (x̃ without d/k) is caught; a per-step bias below the resolution (in "
        "units of the step's range, which for AERR can be far wider than the typical estimate) is not."
    )

    def target(self, w, x, y):
        return tuple((dot(w, x) - y) * v for v in x)

    def functional(self, m):
        return sum(m.second, Fraction(0))

    def functional_bound(self, B, d, k):
        return gradient_second_moment_bound(B, d, k)

    def sup_ratio(self, d, k):
        return Fraction(d + k - 1, 2 * d)

    def phi_second_moment(self, w, x, y):  # E[(‖w‖₂²x_j/w_j)²] = ‖w‖₂²·Σ_{w_j ≠ 0} x_j²
        return dot(w, w) * sum((b * b for a, b in zip(w, x, strict=True) if a), Fraction(0)) - 2 * y * dot(w, x) + y * y

    def identity(self, w, x, y, d, k, m, B):
        base, value = self.phi_second_moment(w, x, y) * dot(x, x), self.functional(m)
        return {"identity": value == Fraction(d + k - 1, k) * base,
                "printed_eq9": value == Fraction(2 * d + k - 1, 2 * k) * base}

    def phi_values(self, w, x, y):  # every value φ̃ can take (j with w_j ≠ 0)
        return (w @ w) * x[w != 0] / w[w != 0] - y

    def mc_instance(self, d, k, seed):
        rng = np.random.default_rng([seed, d, k, 33])
        x = rng.uniform(-1.0, 1.0, d) * (rng.random(d) > 0.1)
        w, y = rng.choice([-1.0, 1.0], d) * rng.uniform(0.5, 1.5, d), float(rng.uniform(-0.9, 0.9))
        if self.ball == "l2":
            return 0.9 * w / np.linalg.norm(w), x / np.linalg.norm(x), y
        return 0.9 * w / np.abs(w).sum(), x / np.abs(x).max(), y

    def mc_range(self, w, x, y, d, k):  # |x̃_i| ≤ d·|x_i| (all k draws on i)
        return np.abs(self.phi_values(w, x, y)).max() * d * np.abs(x)

    def learner_eta(self, d, k, m, B):
        return thm31_eta(d, k, m)


@register
class Lemma3_8(Lemma3_3):
    id = "hk12.lemma3.8"
    space = Space(
        dims={"d_max": Int(1, 5), "instances": Int(0, 25), "adversarial": Int(0, 4), "spread": Int(1, 12),
              "B": Real(0.25, 4.0, log=True)},
        fixed={"mc_repetitions": "0", "learner_runs": "0"},
        why=("the lemma's ∀ w in the ball of radius B, x, y, d and k ≤ d: every d ≤ d_max (and every budget) is "
             "enumerated in each trial, so the space's axes are the enumeration's size and the random rational "
             "instances (how many, how spread); ranges up to the full profile's; the sampler and learner parts "
             "(checks of an implementation, not of the ∀) are off"))
    title = "AELR's gradient estimate is unbiased and ‖E g̃²‖∞ ≤ 8B²d/k"
    reference = "Lemma 3.8 (proof in Appendix A.5)"
    statement = (
        "For the AELR estimate g̃ = φ̃·x̃ (x̃ as in AERR, φ̃ from one draw j ∝ |w_j| with φ̃ = ‖w‖₁·sign(w_j)·x_j − y), "
        "E g̃ = (⟨w,x⟩ − y)x, and when ‖x‖∞ ≤ 1, |y| ≤ B and ‖w‖₁ ≤ B, every coordinate has E[g̃_i²] ≤ 8B²d/k."
    )
    hypotheses = ("‖x‖∞ ≤ 1", "|y| ≤ B", "‖w‖₁ ≤ B", "1 ≤ k ≤ d")
    interpretation = (
        "Algorithm 2, lines 4–11 (the unclipped g̃). The lemma prints ‖E_t[g̃_t]²‖∞; Lemmas 3.6–3.7 need "
        "‖E_t[g̃_t²]‖∞, so that is what is checked (the printed form, true but weaker, follows from it). At w = 0 "
        "(AELR's start) φ̃ = −y with no draw. Instances: random rational ones (‖x‖∞ ≤ 1 with ±1 and 0 entries, w "
        "rescaled to ‖w‖₁ ≤ B, often = B), the boundary family x ∈ {±1}^d, ⟨w,x⟩ = −B, y = B, two generic ones and "
        "a small grid; every d ≤ d_max and k ≤ d. Derived: ‖E g̃²‖∞ = E[φ̃²]·(d + k − 1)/k·max_i x_i², with "
        "E[φ̃²] = ‖w‖₁Σ|w_j|x_j² − 2y⟨w,x⟩ + y² ≤ 4B²; the supremum of the ratio is (d + k − 1)/(2d). As for "
        "Lemma 3.3, that identity FAILs a subject that breaks it, and the sampler `estimate` is drawn by Monte Carlo "
        "(‖x‖∞ = 1, ‖w‖₁ = 0.9). Learner: AELR (Theorem 3.4's η) on adversarial lasso designs, its unclipped g̃_t "
        "checked along its path as for Lemma 3.3; there |φ̃| ≤ 2B, so every range is at most 2Bd|x_i|."
    )
    subjects = {"distribution": est.aelr_gradient_estimate_distribution, "estimate": est.aelr_gradient_estimate,
                "learner": AELR}
    parameters = {**Lemma3_3.parameters, "learner_designs": kind.learner_designs("l1")}
    base = {**Lemma3_3.base, "learner_designs": ("mixed", "label_bound"), "learner_m": 10_000}
    profiles = {"quick": {}, "full": {**Lemma3_3.profiles["full"], "learner_m": 40_000}}
    ball = "l1"
    functional_name = "‖E g̃²‖∞"
    identities = {"identity": "the subject is Algorithm 2's estimator: ‖E g̃²‖∞ = E[φ̃²]·(d + k − 1)/k·max_i x_i², "
                              "the value derived for lines 4–11"}
    erratum_checks = {}
    errata = ()
    defects = (
        Defect("sign(w_j) dropped", {"distribution": D + "aelr_law_no_sign"}, overrides=SMALL),
        Defect("j drawn ∝ w_j² with weight ‖w‖₁·sign(w_j)", {"distribution": D + "aelr_law_squared_sampling"},
               overrides=SMALL),
        Defect("the clipped ḡ (η = 1) given as g̃", {"distribution": D + "aelr_law_clipped"}),
        Defect("one draw of the k (unbiased, too noisy)", {"distribution": D + "aelr_law_one_draw"}),
        Defect("sampler with x̃ weighted d instead of d/k", {"estimate": D + "aelr_sampler_weight_d"}),
        Defect("learner whose x̃ lacks the weight d/k", {"learner": D + "AELRWithoutWeight"}, idea=True),
    )
    power = Lemma3_3.power.replace("x̃ without replacement", "x̃ without replacement, or AERR's φ̃")

    def functional(self, m):
        return max(m.second)

    def phi_second_moment(self, w, x, y):  # E[(‖w‖₁ sign(w_j) x_j)²] = ‖w‖₁·Σ|w_j|x_j²
        l1 = sum(abs(a) for a in w)
        return l1 * sum((abs(a) * b * b for a, b in zip(w, x, strict=True)), Fraction(0)) - 2 * y * dot(w, x) + y * y

    def phi_values(self, w, x, y):
        return np.abs(w).sum() * np.sign(w[w != 0]) * x[w != 0] - y

    def learner_eta(self, d, k, m, B):
        return thm34_eta(d, k, m, B, "theorem")

    def identity(self, w, x, y, d, k, m, B):
        base = self.phi_second_moment(w, x, y) * max(v * v for v in x)
        return {"identity": self.functional(m) == Fraction(d + k - 1, k) * base,
                "printed_within_bound": max(a * a for a in m.mean) <= gradient_second_moment_bound(B, d, k)}


# ---------------------------------------------------------------------- Lemma A.2
BANDS = ((Fraction(1, 2), "|EX| ≤ C/2 (premise)"), (Fraction(7, 8), "C/2 < |EX| ≤ 7C/8"),
         (Fraction(1), "7C/8 < |EX| < C"), (None, "|EX| ≥ C"))


def band_of(mean: Fraction, C: Fraction) -> str:
    r = abs(mean) / C
    return BANDS[0][1] if r <= Fraction(1, 2) else BANDS[1][1] if r <= Fraction(7, 8) else \
        BANDS[2][1] if r < 1 else BANDS[3][1]


def with_mean(atoms, probs, mean) -> list[tuple[Fraction, Fraction]]:
    """The law (probs, atoms) shifted to have the given mean exactly."""
    shift = mean - sum((p * a for p, a in zip(probs, atoms, strict=True)), Fraction(0))
    return [(p, a + shift) for p, a in zip(probs, atoms, strict=True)]


def two_point_law(mean: Fraction, p: Fraction, a: Fraction) -> list[tuple[Fraction, Fraction]]:
    """Mass p at a and 1 − p at the point that makes the mean exact."""
    return [(p, a), (1 - p, (mean - p * a) / (1 - p))]


def lemma_a2_laws(rng, C: Fraction, p) -> list[tuple[str, list]]:
    """The search: random laws, two-point laws with one heavy tail (the extremal family: mass q at
    C + s(C − μ); at μ = C/2 the ratio |bias|/(2Var/C) is largest at 3C/2), far tails, both tails,
    a lattice grid, point masses, and laws that break the premise |E X| ≤ C/2."""
    spread, out = p["spread"], []

    def random_law(mean):
        size = int(rng.integers(1, p["max_support"] + 1))
        probs = [Fraction(int(rng.integers(1, spread + 1))) for _ in range(size)]
        return with_mean([C * random_rational(rng, spread, -4, 4) for _ in range(size)],
                         [q / sum(probs) for q in probs], mean)

    out += [("random", random_law(C / 2 * random_rational(rng, spread))) for _ in range(p["random_laws"])]
    qs = [Fraction(1, 2**e) for e in range(1, p["tail_depth"] + 1)]
    scales = [Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4), Fraction(16)]
    for mean in (C / 2, -C / 2, Fraction(0), C / 4, -3 * C / 8):
        for q, s in itertools.product(qs, scales):
            a = C + s * (C - mean)
            out += [("two-point tail", two_point_law(mean, q, a)),
                    ("two-point tail", [(w, -v) for w, v in two_point_law(-mean, q, a)])]
        for far, q in itertools.product((10, 100, 1000), (Fraction(1, 10), Fraction(1, 1000))):
            rest = [C * random_rational(rng, spread, Fraction(-1, 2), Fraction(1, 2)) for _ in range(3)]
            out.append(("far tail", with_mean([far * C, *rest], [q] + [(1 - q) / 3] * 3, mean)))
        out += [("both tails", with_mean([3 * C / 2, -2 * C, Fraction(0)], [q, q / 2, 1 - 3 * q / 2], mean))
                for q in qs[:4]]
        out.append(("point mass", [(Fraction(1), mean)]))
    lattice = [C * Fraction(i, 8) for i in range(-16, 17)]
    grid_qs = (Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 16), Fraction(15, 16))
    for (a, b), q in itertools.product(itertools.combinations(lattice, 2), grid_qs):
        inside = abs(q * a + (1 - q) * b) <= C / 2
        out.append(("two-point grid" if inside else "premise broken: two-point grid", [(q, a), (1 - q, b)]))
    for frac in (Fraction(5, 8), Fraction(3, 4), Fraction(7, 8), Fraction(15, 16), Fraction(63, 64), Fraction(1),
                 Fraction(3, 2), Fraction(2)):
        mean = frac * C
        out += [("premise broken: two-point", two_point_law(mean, q, C + s * (abs(C - mean) or C)))
                for q, s in itertools.product(qs, scales)]
        out.append(("premise broken: point mass", [(Fraction(1), mean)]))
    means = [C * random_rational(rng, spread, Fraction(1, 2), 3) for _ in range(p["random_laws"])]
    return out + [("premise broken: random", random_law(m)) for m in means if m > C / 2]


@register
class LemmaA2(Exact):
    observed_label = 'the largest |E clip(X, C) − E X| over 2·Var[X]/C, over the cases with |E X| ≤ C/2'
    id = "hk12.lemmaA.2"
    space = Space(
        dims={"C": Real(0.375, 7.0, log=True), "random_laws": Int(0, 1000), "max_support": Int(1, 8),
              "spread": Int(1, 40)},
        why=("the lemma's ∀ C > 0 and laws with |E X| ≤ C/2 (random rational laws: how many, their support, their "
             "spread), up to the full profile's"))
    title = "Clipping bias: |E clip(X, C) − E X| ≤ 2·Var[X]/C when |E X| ≤ C/2"
    reference = "Lemma A.2 (Appendix A.4, used for Lemma 3.7); restated in ks15's supplement"
    statement = (
        "For a random variable X and C > 0 with |E X| ≤ C/2, the clipped variable clip(X, C) = max(−C, min(C, X)) "
        "satisfies |E clip(X, C) − E X| ≤ 2·Var[X]/C."
    )
    hypotheses = ("C > 0", "|E X| ≤ C/2", "X has finite variance")
    interpretation = (
        "Checked exactly on finite laws with rational atoms and probabilities: random supports shifted to a random "
        "mean in [−C/2, C/2], two-point laws with one heavy tail (the extremal family), a lattice grid of two-point "
        "laws on (C/8)ℤ ∩ [−2C, 2C], mass far in one tail, both tails, point masses, and laws that break the premise "
        "(reported by band of |E X|/C, outside the verdict). The subject `clip` is AELR's clip(g, 1/η) with η = 1/C, "
        "`bias_bound` the right-hand side 2·Var/C. Derived: for |E X| < C, (x − μ)² ≥ 4(C − μ)(x − C) gives "
        "|bias| ≤ Var/(4(C − |E X|)), hence ≤ Var/(2C) under the premise; any clip at C obeys it, so it is checked "
        "too, as a test that the subject is a clip at C."
    )
    subjects = {"clip": est.clip_distribution, "bias_bound": clipping_bias_bound}
    protocols = {"clip": Contract(Function, call=("distribution", "eta"),
                                  types="distribution is a list of (Fraction probability, tuple of Fraction value); "
                                        "eta a Fraction; it returns the clipped law in the same form, exactly.",
                                  returns=Output("law")),
                 "bias_bound": Contract(Function, call=("variance", "C"),
                                        types="variance and C are Fractions; the bound is read as a Fraction.")}
    parameters = {"C": Grid(Positive(), distinct=1), "random_laws": Integer(0), "max_support": Integer(1, 20),
                  "spread": Integer(1), "tail_depth": Integer(1, 40)}
    profiles = {
        "quick": {"C": (1.0, 2.5), "random_laws": 60, "max_support": 5, "spread": 12, "tail_depth": 8},
        "full": {"C": (1.0, 0.375, 2.5, 7.0), "random_laws": 1000, "max_support": 8, "spread": 40, "tail_depth": 14},
    }
    checks = {
        "within_bound": "|E clip(X, C) − E X| ≤ bias_bound(Var X, C) on every law with |E X| ≤ C/2",
        "sharp": "the subject `clip` is a clip at C: |E clip(X, C) − E X| ≤ Var X/(4(C − |E X|)) on every law with "
                 "|E X| < C (our derivation: every clip at C obeys it)",
    }
    case_columns = ("C", "family", "law_text")
    details = {"within_bound": ("mean", "variance", "bias", "bound"), "sharp": ("mean", "variance", "bias")}
    worst = {"within_bound": "excess_over_C"}
    defects = (
        Defect("clip at C/2", {"clip": D + "clip_at_half"}, idea=True),
        Defect("bound with constant 1/4", {"bias_bound": D + "bias_bound_quarter"}),
        Defect("bound with constant 1", {"bias_bound": D + "bias_bound_one"}, caught=False,
               why="not a defect of the statement: every constant ≥ 1/2 holds (the sharp one is 1/2)"),
        Defect("clip from above only", {"clip": D + "clip_above_only"}, caught=False,
               why="its bias is −E(X − C)⁺, within both the lemma's and the sharp bound; what it breaks, "
                   "|ḡ| ≤ 1/η, is not part of Lemma A.2"),
    )
    power = (
        "Each law's bias, variance and bound are exact rationals, so one law meeting the premise where the "
        "inequality fails is a FAIL; the search includes the extremal two-point family, where the ratio comes "
        "within (1 − 2^-tail_depth) of its supremum 1/4. Because of that factor 4, a bound with any constant ≥ 1/2 "
        "passes, and a wrong clip passes the lemma unless its bias exceeds 2Var/C; the sharp check catches clips "
        "whose bias exceeds Var/(4(C − |E X|)) (clip at C/2). A clip that clips only from above is not caught."
    )
    plot = Plot(x="family", y="max_finite_ratio", theory="paper_bound_ratio", kind="point", hue="band", logy=True,
                ylabel="max |E clip(X,C) − E X| / (2 Var X / C)", theory_label="Lemma A.2: ratio 1")

    def cases(self, p):
        return [{"C": c} for c in p["C"]]

    def evaluate(self, p, case, subjects, rng):
        C, rows = as_fraction(case["C"]), []
        for index, (family, law) in enumerate(lemma_a2_laws(rng, C, p)):
            mean = sum((q * a for q, a in law), Fraction(0))
            var = sum((q * (a - mean) ** 2 for q, a in law), Fraction(0))
            clipped = subjects["clip"]([(q, (a,)) for q, a in law], 1 / C)
            bias = sum((Fraction(q) * Fraction(g[0]) for q, g in clipped), Fraction(0)) - mean
            bound, premise = Fraction(subjects["bias_bound"](var, C)), abs(mean) <= C / 2
            ratio = float(abs(bias) / bound) if bound > 0 else (0.0 if bias == 0 else None)
            rows.append({
                "C": float(C), "law": index, "family": family, "mean": str(mean), "variance": str(var),
                "bias": str(bias), "bound": str(bound), "band": band_of(mean, C), "premise": premise,
                "violated": abs(bias) > bound, "ratio": ratio, "excess_over_C": float((abs(bias) - bound) / C),
                "within_bound": abs(bias) <= bound if premise else None,
                "sharp": abs(bias) <= var / (4 * (C - abs(mean))) if abs(mean) < C else None,
                "law_text": "; ".join(f"{q}@{a}" for q, a in law) if len(law) <= 4 else f"{len(law)} atoms"})
        return Measurement(rows, [Hypothesis("C > 0", C > 0, f"C = {C}")])

    def summarize(self, p, table):
        order = {name: rank for rank, (_, name) in enumerate(BANDS)}
        return (table.assign(unbounded=table["ratio"].isna(), rank=table["band"].map(order))
                .groupby(["rank", "band", "family"], as_index=False)
                .agg(premise=("premise", "all"), laws=("law", "size"), violations=("violated", "sum"),
                     unbounded_cases=("unbounded", "sum"), max_finite_ratio=("ratio", "max"),
                     max_excess_over_C=("excess_over_C", "max"))
                .drop(columns="rank").assign(paper_bound_ratio=1.0))

    def headline(self, p, table):
        inside = table[table["premise"].astype(bool)]
        bad = inside[inside["violated"].astype(bool)]
        if len(bad):
            observed = float("inf") if bad["ratio"].isna().any() else float(bad["ratio"].max())
        else:
            observed = float(inside["ratio"].max()) if inside["ratio"].notna().any() else None
        return observed, 1.0, observed if observed is not None and observed != float("inf") else None

    def findings(self, p, table):
        inside = table[table["premise"].astype(bool)]
        notes = []
        if inside["ratio"].notna().any():
            worst = inside.loc[inside["ratio"].idxmax()]
            notes.append(f"Tightness: the largest |bias|/(2Var/C) under the premise is {worst['ratio']:.6g} "
                         f"({worst['family']}, C = {worst['C']:g}: {worst['law_text']}); its supremum is 1/4.")
        for _, name in BANDS[1:]:
            part = table[table["band"] == name]
            if len(part):
                fails = part[part["violated"].astype(bool)]
                text = f"Premise broken, {name} (not part of the verdict): {len(part)} laws, {len(fails)} violate"
                if len(fails):
                    w = fails.loc[fails["excess_over_C"].idxmax()]
                    text += f" (worst: C = {w['C']:g}, {w['law_text']}; bias {w['bias']} against bound {w['bound']})"
                notes.append(text + ".")
        return notes
