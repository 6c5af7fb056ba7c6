"""Monte-Carlo claims of Sabato & Kalai (ICML 2013), Feature multi-selection among subjective
features: VarEst and the external covariance estimate (sk13.varest), the convergence of the
projected objectives (sk13.thm3.1) and the experiments of §4 (sk13.exp). Every judgment is
simulated (generators/crowds.py): no offline copy of the paper's crowd data exists."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd

from theorycheck.algorithms.sk13 import (
    AveragesSelector,
    CopiesSelector,
    CrowdAverageSelector,
    FullSelector,
    ScoringSelector,
    external_covariance,
    repeat_vectors,
    var_est,
)
from theorycheck.bounds.sk13 import hoeffding_radius, scoring_limit, smallest_eigenvalue
from theorycheck.claims import Defect, Hypothesis, Plot, register
from theorycheck.generators.crowds import binary_object_law, correlated_crowd, crowd, diagonal_crowd, table1_crowd
from theorycheck.kinds.comparison import PairedComparison
from theorycheck.kinds.exact import FLOAT_UNIT
from theorycheck.kinds.rate import Rate
from theorycheck.kinds.sampled import SAMPLED_PARAMETERS, ExactWithSampling
from theorycheck.protocols import Contract, Function, MultiSelector, ProjectingSelector
from theorycheck.spaces import Int, Space
from theorycheck.stats import DIRECTION, SUPERIOR
from theorycheck.validation import Grid, Integer, ParameterError, Positive, Probability

D = "tests.defects_sk13:"
_FEW = {"m_grid": "8000", "batches": "60"}  # the defect runs: one consistency level
_READS = (" Reads are not observed here (no watched view, unlike the claims of the other papers that count "
          "attributes): sk13's budget B limits the judgments bought for each test object, which the claim counts "
          "from the chosen r and the costs; the training set, k judgments of every feature of every object, is "
          "given whole to every selector by design (§3), and no statement of the paper bounds what a selector "
          "reads of it.")
_SIMULATED = " Simulated judgments (generators/crowds.py): no offline copy of the paper's crowd data exists."


def _in_range(sample) -> Hypothesis:
    top = max(float(np.abs(sample.J).max()), float(np.abs(sample.y).max()))
    return Hypothesis("all judgments and labels lie in [−1, 1] (Theorem 3.1)", top <= 1.0 + 1e-12,
                      f"largest |value| drawn: {top:.15g}")


# ---------------------------------------------------------------------- VarEst
#: the binary crowd of the exact part (two correlated features, dyadic loadings)
LAW_LOADINGS = ((0.5, 0.25, 0.0), (0.25, 0.0, -0.625))
#: the crowd of the consistency part: four correlated features, one real-valued
CONSISTENCY = {"scales": (0.6, 0.5, 0.45, 0.4), "rho": 0.4, "beta": (0.3, 0.2, -0.2, 0.1),
               "spread": (0.0, 0.0, 0.0, 0.4), "binary": (True, True, True, False)}


@register
class VarEst(ExactWithSampling):
    id = "sk13.varest"
    space = Space(
        dims={"n_max": Int(2, 6), "instances": Int(1, 12)},
        why=("VarEst's ∀ n and variances: every n ≤ n_max enumerated with random rational instances"))
    title = "VarEst is unbiased for v[a]; the external covariance estimate is consistent"
    reference = "§3.1, eq. (2) and the estimate σ²[a] = E_k[X̄[a]²] − v[a]/k; Algorithm 1 lines 5, 7 and 10"
    statement = ("VarEst (1/(n − 1) times the sum of squared deviations) is unbiased, so v̂[a] is an unbiased "
                 "estimate of the internal variance v[a]; (1/m)Σ x̄_i x̄_iᵀ − Diag(v̂)/k is unbiased for Σ and "
                 "converges to it as m grows.")
    hypotheses = ("k ≥ 2 judgments per feature", "judgments conditionally independent given the object",
                  "judgments in [−1, 1] (for the consistency radius)")
    interpretation = (
        "Exact part: (1) for every n ≤ n_max, random rational laws (1 to 3 atoms in [−1, 1], a point mass "
        "included) and every n-tuple of draws, E[VarEst] = Var in Fractions (subject `var_est` on a list of "
        "Fractions); (2) on a binary crowd with correlated features (Σ not diagonal) and k ∈ {2, 3, 4}, the law "
        "of one object's k judgments per feature is enumerated: E[VarEst(X[a](1..k))] = v[a] exactly, and the "
        "subject `covariance` (Alg. 1 line 10 before MakePSD) applied to that one object has expectation Σ "
        "entry by entry, within the rounding 2(k + 4)u·2 of its float output. Consistency (sampled rows): the "
        "per-object terms of each entry of Σ̂ lie in [−1, 1] (the diagonal term x̄² − VarEst/k is the mean of "
        "the k(k − 1) products of distinct judgments), so by Hoeffding P(|Σ̂_ab − Σ_ab| > ε_m) ≤ δ_c/E with "
        "ε_m = 2√(log(2E/δ_c)/(2m)) for the E = d(d + 1)/2 entries; for each m of the grid, `batches` "
        "independent training sets of m objects are drawn and the frequency of any entry outside ε_m must be "
        "≤ δ_c (decided on the empirical Bernstein interval of the indicators, δ/R per row). A Σ̂ biased by "
        "more than ε_m (e.g. without the −Diag(v̂)/k correction, bias v/k) violates on nearly every batch."
        + _SIMULATED)
    subjects = {"var_est": var_est, "covariance": external_covariance}
    protocols = {"var_est": Contract(Function, call=("values",)), "covariance": Contract(Function, call=("J",))}
    parameters = {"n_max": Integer(2, 6), "instances": Integer(1), "m_grid": Grid(Integer(10), distinct=1),
                  "batches": Integer(10), "delta_claim": Probability(), **SAMPLED_PARAMETERS}
    base = {"delta": 1e-3, "resolution": 0.05, "delta_claim": 0.05}
    profiles = {"quick": {"n_max": 4, "instances": 4, "m_grid": (500, 2000, 8000), "batches": 300},
                "full": {"n_max": 6, "instances": 12, "m_grid": (250, 1000, 4000, 16000, 64000), "batches": 1000}}
    checks = {"unbiased": "E[VarEst(α₁, …, α_n)] = Var[α] exactly",
              "v_unbiased": "E[VarEst of one object's k judgments of a] = v[a] exactly",
              "sigma_unbiased": "E[Σ̂ from one object] = Σ (float rounding 2(k + 4)u·2)"}
    case_columns = ("part", "n", "k", "instance", "m")
    details = {"unbiased": ("expectation", "variance"), "sigma_unbiased": ("largest_error",)}
    sampled_what = "Consistency: P(some entry of Σ̂ is farther than ε_m from Σ) ≤ δ_c"
    defects = (
        Defect("VarEst with 1/n", {"var_est": D + "var_est_biased"}, overrides=_FEW, idea=True),
        Defect("Σ̂ without the −Diag(v̂)/k correction", {"covariance": D + "covariance_uncorrected"}, overrides=_FEW),
    )
    power = ("The exact part enumerates every outcome, so any bias of VarEst or of Σ̂ (from one object) beyond "
             "float rounding FAILs. The consistency rows detect a systematic error of Σ̂ larger than the Hoeffding "
             "radius ε_m (0.05 at m = 8000 on quick): a bias that vanishes faster than 1/√m is not seen there.")
    plot = Plot(x="m", y="mean", theory="bound", low="low", high="high", kind="point", logx=True,
                xlabel="objects m per training set", ylabel="frequency of an entry outside ε_m",
                theory_label="δ_c", band_label="empirical Bernstein interval (δ/R)")

    def cases(self, p):
        return ([{"part": "law", "n": n} for n in range(2, p["n_max"] + 1)]
                + [{"part": "crowd", "k": k} for k in (2, 3, 4)]
                + [{"part": "sampled", "m": m} for m in p["m_grid"]])

    def evaluate(self, p, case, subjects, rng):
        return getattr(self, "_" + case["part"])(p, case, subjects, rng)

    def _law(self, p, case, subjects, rng):
        n, rows = case["n"], []
        for i in range(p["instances"] + 1):
            size = 1 if i == 0 else int(rng.integers(1, 4))
            atoms = [Fraction(int(rng.integers(-8, 9)), 8) for _ in range(size)]
            weights = [Fraction(int(rng.integers(1, 5))) for _ in range(size)]
            probs = [w / sum(weights) for w in weights]
            mean = sum((q * a for q, a in zip(probs, atoms, strict=True)), Fraction(0))
            variance = sum((q * (a - mean) ** 2 for q, a in zip(probs, atoms, strict=True)), Fraction(0))
            expectation = Fraction(0)
            for idx in itertools.product(range(size), repeat=n):
                q = Fraction(1)
                for j in idx:
                    q *= probs[j]
                expectation += q * Fraction(subjects["var_est"]([atoms[j] for j in idx]))
            rows.append({"part": "law", "n": n, "instance": i, "atoms": size, "expectation": str(expectation),
                         "variance": str(variance), "unbiased": expectation == variance})
        return rows

    def _crowd(self, p, case, subjects, rng):
        k = case["k"]
        A = [[Fraction(x) for x in row] for row in LAW_LOADINGS]
        sigma = [[sum((A[a][j] * A[c][j] for j in range(3)), Fraction(0)) for c in range(2)] for a in range(2)]
        v = [1 - sigma[a][a] for a in range(2)]
        e_v, e_sigma = [Fraction(0)] * 2, [[Fraction(0)] * 2 for _ in range(2)]
        for q, judgments, _ in binary_object_law(LAW_LOADINGS, (0.0, 0.0), 0.0, (k, k)):
            for a in range(2):
                e_v[a] += q * Fraction(subjects["var_est"]([Fraction(x) for x in judgments[a]]))
            J = np.array([[[float(x) for x in judgments[a]] for a in range(2)]])
            est = np.asarray(subjects["covariance"](J), dtype=np.float64)
            for a, c in itertools.product(range(2), repeat=2):
                e_sigma[a][c] += q * Fraction(float(est[a, c]))
        err = max(abs(e_sigma[a][c] - sigma[a][c]) for a in range(2) for c in range(2))
        return [{"part": "crowd", "k": k, "v_unbiased": e_v == v, "largest_error": float(err),
                 "sigma_unbiased": err <= 2 * (k + 4) * FLOAT_UNIT * 2}]

    def _sampled(self, p, case, subjects, rng):
        c = correlated_crowd(**{k: np.array(v) if isinstance(v, tuple) else v for k, v in CONSISTENCY.items()})
        m, d = case["m"], c.d
        entries = d * (d + 1) // 2
        eps = hoeffding_radius(2.0, m, p["delta_claim"] / entries)
        hits, worst = [], 0.0
        for _ in range(p["batches"]):
            s = c.sample(m, 2, rng)
            err = np.abs(np.asarray(subjects["covariance"](s.J), dtype=np.float64) - c.Sigma)
            worst = max(worst, float(err.max()))
            hits.append(float(err.max() > eps))
        hits = np.array(hits)
        return [{"part": "sampled", "m": m, "n": hits.size, "mean": float(hits.mean()),
                 "var": float(hits.var(ddof=1)), "low": 0.0, "high": 1.0, "bound": p["delta_claim"],
                 "epsilon": eps, "largest_entry_error": worst}]

    def summarize(self, p, table):
        exact = self.exact_rows(table)
        parts = [exact.groupby("part", as_index=False).agg(rows=("part", "size"),
                                                          **{c: (c, "all") for c in self.checks if c in exact})]
        sampled = table[table["part"] == "sampled"]
        if not sampled.empty:
            parts.append(sampled[["part", "m", "n", "mean", "epsilon", "largest_entry_error", "bound"]])
        return pd.concat(parts, ignore_index=True)

    def figure(self, p, table):
        return None


# ---------------------------------------------------------------------- Theorem 3.1
def _rate_crowds(p):
    diag = diagonal_crowd(np.array([0.9, 0.7, 0.6, 0.5]), np.array([0.3, -0.25, 0.2, 0.15]),
                          spread=np.array([0.0, 0.0, 0.0, 0.4]), binary=np.array([True, True, True, False]),
                          noise=0.2, name="diagonal")
    corr = correlated_crowd(np.array([0.65, 0.6, 0.55, 0.4]), p["rho"], np.array([0.3, -0.25, 0.2, 0.15]),
                            spread=np.array([0.0, 0.0, 0.0, 0.4]), binary=np.array([True, True, True, False]),
                            noise=0.2, name="correlated")
    return {"diagonal": diag, "correlated": corr}


#: path name -> (selector subject, crowd, target); the last path also reports Scoring's distance to E[Y²] − ℓ(r)
PATHS = {
    "Full, diagonal Σ": ("full", "diagonal", "gain"),
    "Full, correlated Σ": ("full", "correlated", "gain"),
    "Scoring, diagonal Σ": ("scoring", "diagonal", "gain"),
    "Scoring, correlated Σ, against its limit (eq. (1) with diag Σ)": ("scoring", "correlated", "limit"),
}
_TARGETS: dict = {}


def _targets(p, which):
    """Per crowd: the r ∈ R_B, E[Y²] − ℓ(r) and Scoring's limit for each (cached per process)."""
    key = (which, p["B"], p["rho"])
    if key not in _TARGETS:
        c = _rate_crowds(p)[which]
        rs = list(repeat_vectors(c.d, p["B"]))
        _TARGETS[key] = (c, rs, np.array([c.gain(r) for r in rs]),
                         np.array([scoring_limit(r, c.b, c.Sigma, c.v) for r in rs]),
                         smallest_eigenvalue(c.Sigma, p["B"]))
    return _TARGETS[key]


@register
class Theorem31(Rate):
    id = "sk13.thm3.1"
    no_space = ("a rate: its statement is a fitted slope over a grid of m, and the search has no margin for a "
                "slope yet (issue 52 item 2, not built)")
    title = "sup_{r ∈ R_B} |obĵ(r) − (E[Y²] − ℓ(r))| falls like 1/√m (Full; Scoring when Σ is diagonal)"
    reference = "Theorem 3.1 (proof in Appendix A.2)"
    statement = ("With judgments and labels in [−1, 1], uniformly over r ∈ R_B the Full objective obĵ_f(r) is "
                 "within O(B̄³ ln(Bd/δ)/(λ²√m)) of E[Y²] − ℓ(r), and, when Σ is diagonal, the Scoring objective "
                 "obĵ_s(r) within O(ln(Bd/δ)/(λ²√m)).")
    hypotheses = ("judgments and labels in [−1, 1]", "k ≥ 2", "λ = min_{r ∈ R_B} λ_min(sub_r Σ) > 0",
                  "Σ diagonal (for the Scoring rate against E[Y²] − ℓ(r))")
    interpretation = (
        "The theorem gives the rate, not the constant, so the check is a rate: along m (k = 2 judgments, d = 4, "
        "B = `B`), the mean over repetitions of the supremum over all of R_B (every r enumerated) of |obĵ(r) − "
        "target(r)|, with the exact target from the crowd's moments, must have log–log slope ≤ −1/2. Crowds: "
        "'diagonal' (independent features, three binary and one real-valued) and 'correlated' (one shared "
        "factor, Σ[a, a'] = ρ·s_a s_a'). Paths: Full on both; Scoring on the diagonal crowd; and, since eq. (1) "
        "needs Σ diagonal, Scoring on the correlated crowd against what it converges to instead, eq. (1) with "
        "Σ's diagonal (bounds.sk13.scoring_limit), decided at −1/2; the same runs' distance to E[Y²] − ℓ(r) is "
        "reported in the notes: it tends to a constant (the price of the zero-correlation assumption). The subjects "
        "are run with fit_intercept=False (Algorithm 1 as printed; the crowds have zero means). The trivial "
        "estimate obĵ ≡ 0 is measured beside: its deviation does not fall, so the instance is not vacuous. Whether "
        "Scoring converges faster than Full on the diagonal crowd is reported in the notes (ratio of the means "
        "per level), not decided: the theorem compares worst-case bounds." + _SIMULATED)
    subjects = {"full": FullSelector, "scoring": ScoringSelector}
    protocols = {name: Contract(ProjectingSelector, init=("budget", "costs", "fit_intercept"))
                 for name in ("full", "scoring")}
    parameters = {**Rate.parameters, "m_grid": Grid(Integer(20)), "B": Integer(1, 8), "rho": Probability()}
    base = {"delta": 1e-3, "rho": 0.5}
    profiles = {"quick": {"m_grid": (500, 2000, 8000, 32000, 128000), "B": 4, "repetitions": 10, "resolution": 0.2},
                "full": {"m_grid": (1000, 4000, 16000, 64000, 256000), "B": 6, "repetitions": 30, "resolution": 0.1},
                "paper": {"m_grid": (1000, 4000, 16000, 64000, 256000, 1024000), "B": 6, "repetitions": 30,
                          "resolution": 0.1}}
    xlabel = "m / m₀ (objects in the training set)"
    ylabel = "mean of sup_r |obĵ(r) − target(r)|"
    defects = (
        Defect("Full's Σ̂ without the −Diag(v̂)/k correction", {"full": D + "FullUncorrected"},
               overrides={"repetitions": "4", "m_grid": "500,4000,32000"}, idea=True),
        Defect("Scoring's v̂ from VarEst with 1/n", {"scoring": D + "ScoringBiasedVarEst"},
               overrides={"repetitions": "4", "m_grid": "500,4000,32000"}),
    )
    power = ("An estimator with a bias that does not vanish (a missing correction, a biased VarEst) makes the "
             "supremum level off at the bias, so the fitted slope is far above −1/2 (FAIL) once m is large "
             "enough for the bias to dominate the 1/√m term; a bias smaller than the deviation at the largest m "
             "is not seen. The slope interval is a bootstrap at an asymptotic level.")

    def paths(self, p):
        return [(name, [{"x": m, "m": m} for m in p["m_grid"]], -0.5) for name in PATHS]

    def run(self, p, task, subjects, streams):
        who, which, target = PATHS[task["path"]]
        c, rs, gains, limits, lam = _targets(p, which)
        sample = c.sample(task["m"], 2, streams[0])
        sel = subjects[who](budget=p["B"], costs=None, fit_intercept=False).fit(sample.J, sample.y)
        values = np.array([float(sel.objective(r)) for r in rs])
        goal = gains if target == "gain" else limits
        hyps = [_in_range(sample), Hypothesis("λ = min_r λ_min(sub_r Σ) > 0", lam > 0, f"λ = {lam:.4g}"),
                Hypothesis("Σ diagonal where Scoring is checked against E[Y²] − ℓ(r)",
                           not (who == "scoring" and target == "gain") or c.is_diagonal)]
        return {"value": float(np.abs(values - goal).max()), "trivial": float(np.abs(goal).max()),
                "from_gain": float(np.abs(values - gains).max()), "lambda": lam, "hypotheses": hyps}

    def notes(self, p, table, fits):
        full = table[table["path"] == "Full, diagonal Σ"].groupby("m")["value"].mean()
        score = table[table["path"] == "Scoring, diagonal Σ"].groupby("m")["value"].mean()
        off = table[table["path"].str.startswith("Scoring, correlated")].groupby("m")["from_gain"].mean()
        ratio = ", ".join(f"m = {m}: {full[m] / score[m]:.3g}" for m in full.index if m in score.index)
        return [f"Diagonal Σ: mean deviation of Full / of Scoring per level (> 1: Scoring converges faster): "
                f"{ratio} (reported, not decided).",
                "Correlated Σ: Scoring's deviation from E[Y²] − ℓ(r) per level: "
                + ", ".join(f"m = {m}: {v:.4g}" for m, v in off.items())
                + " — it levels off: Scoring converges to eq. (1) with diag Σ, not to the projected gain."]


# ---------------------------------------------------------------------- §4 experiments
OPPONENTS = {"scoring": ("Scoring", ScoringSelector), "averages": ("Averages", AveragesSelector),
             "copies": ("Copies", CopiesSelector), "average": ("the crowd's average estimate", CrowdAverageSelector)}

#: Table 1 as printed: (attribute, v̂[a]/σ̂[a], b̂[a]/σ̂[a] for height); the two numerical estimates cost 4
TABLE1 = (("male", 0.39, 0.15), ("female", 0.45, -0.15), ("outdoors", 0.45, 0.0), ("wearing-glasses", 0.52, -0.01),
          ("near-water", 0.61, 0.0), ("wearing-long-sleeves", 0.63, 0.02), ("wearing-shorts", 0.68, 0.01),
          ("looking-at-the-camera", 0.7, -0.01), ("smiling", 0.71, -0.04), ("has-beard", 0.79, 0.08),
          ("long-hair", 0.87, -0.08), ("facing-sideways-(profile)", 0.89, 0.01), ("hands-on-hips", 0.9, -0.04),
          ("heavy", 0.9, -0.02), ("dark-hair", 1.13, -0.02), ("thin", 1.16, 0.01),
          ("wearing-dark-colors", 1.17, -0.01), ("wearing-light-colors", 1.2, -0.01),
          ("can-see-a-lot-of-skin", 1.21, -0.05), ("standing-straight", 1.22, 0.06),
          ("weight (numerical)", 1.24, 0.04), ("wearing-colorful-clothes", 1.36, -0.04),
          ("over-50-years-old", 1.38, 0.01), ("over-30-years-old", 1.43, 0.04), ("over-40-years-old", 1.44, 0.02),
          ("wearing-fancy-clothes", 1.56, -0.06), ("wearing-a-dress", 1.67, -0.05),
          ("wearing-nice-clothes", 1.69, -0.05), ("attractive", 1.72, -0.04), ("height (numerical)", 1.73, 0.16),
          ("fair-hair", 1.77, -0.05), ("beautiful", 1.8, -0.07), ("tall", 1.81, 0.12), ("dark-skin", 2.21, -0.03),
          ("fair-skin", 2.38, -0.04), ("short", 2.43, -0.09), ("wearing-baggy-clothes", 2.59, 0.03),
          ("over-20-years-old", 3.09, 0.05), ("good-posture", 3.26, 0.02))
NUMERICAL = ("weight (numerical)", "height (numerical)")


def published_crowd():
    """A diagonal-Σ crowd with Table 1's published statistics for height prediction.

    Feature a has a latent value μ[a] = s[a]·z[a] (z[a] = ±1, independent: Σ = Diag(s²)). A binary
    attribute (judgments ±1, v = 1 − s²) takes the s with v/σ = (1 − s²)/s = Table 1's 'var' ρ;
    a numerical estimate (real-valued, uniform judgment noise of half-width 1 − s, cost 4) the s
    with (1 − s)²/(3s) = ρ, the largest scale that keeps its judgments in [−1, 1]. Label weights
    β[a] = λ·h[a]/s[a] give b[a]/σ[a] = λ·h[a], h Table 1's 'height' column. The label's scale is
    not published: we read h as correlations with a standardised label (noise η = √(1 − Σh²)), and
    λ = 1/(Σ|h| + η) keeps |Y| ≤ 1 (Theorem 3.1's range), which rescales every RMSE by λ.
    """
    names = tuple(n for n, _, _ in TABLE1)
    rho, h = np.array([x for _, x, _ in TABLE1]), np.array([x for _, _, x in TABLE1])
    numerical = np.array([n in NUMERICAL for n in names])
    s = np.where(numerical, ((2 + 3 * rho) - np.sqrt((2 + 3 * rho) ** 2 - 4)) / 2, (np.sqrt(rho**2 + 4) - rho) / 2)
    eta = float(np.sqrt(1 - (h**2).sum()))
    lam = 1 / (np.abs(h).sum() + eta)
    return crowd(np.diag(s), beta=lam * h / s, spread=np.where(numerical, 1 - s, 0.0), binary=~numerical,
                 noise=lam * eta, costs=np.where(numerical, 4, 1), names=names, name="Table 1 (published statistics)")


_MEAN_WHY = ("§4 averages the test error over 50 random splits (line 241): the mean of the paired RMSE difference "
             "over runs (Student t interval), the median beside it")
_CROWDS: dict = {}


def _crowd(which, noise):
    key = (which, noise)
    if key not in _CROWDS:
        _CROWDS[key] = table1_crowd(noise) if which == "designed" else published_crowd()
    return _CROWDS[key]


@register
class Experiments(PairedComparison):
    id = "sk13.exp"
    no_space = ("§4's experiments (the paper's crowd data and budgets), beside its figures: a comparison in the "
                "paper's fixed setting, and the search has no margin for a comparison yet")
    title = "Full beats the baselines (Averages, Copies, the crowd's average) in test RMSE; Scoring reported; Fig. 8"
    reference = "§4, Figures 3–7 (test error against budget), Table 1, and Figure 8 (k against m at fixed m·k)"
    statement = ("On crowds mixing useful and useless, stable and noisy features, the Full algorithm's test RMSE is "
                 "lower than that of the baselines Averages, Copies and the crowd's averaged numerical estimate at "
                 "every budget; Scoring is usually somewhat worse than Full and sometimes better at small samples; "
                 "and at a fixed total number of training judgments, k = 2 judgments per feature (more objects) "
                 "gives a lower loss than a larger k.")
    hypotheses = ("every selector spends at most the budget B per test object (judgment costs counted)",)
    interpretation = (
        "Two crowds. 'designed': generators.crowds.table1_crowd, modelled on the mix of Table 1 (male/female useful "
        "and stable, tall/short useful and noisy, gender proxies, useless stable and useless noisy attributes, and "
        "one numerical height estimate, real-valued, costing 4 binary judgments as in §4), budgets `budgets`. "
        "'Table 1': published_crowd, the 39 attributes of Table 1 with their printed v̂/σ̂ and height b̂/σ̂ in a "
        "diagonal-Σ crowd (see its docstring: the label scale is not published, so the label is read as "
        "standardised and shrunk into [−1, 1]), budgets `table1_budgets`. Each repetition draws a "
        "fresh training set of `m` objects with k = 2 judgments (a random split of an unlimited pool; the paper "
        "used 50 splits of 880 photos); every selector runs with fit_intercept=True (§3.4; Full centres, see "
        "sk13.invariance for why not the constant feature) and the costs; the "
        "chosen r is topped up on the training set (the first min(k, r[a]) judgments kept, the rest drawn "
        "fresh) and the final predictor is least squares on the averages; its test RMSE is computed exactly "
        "from the crowd's moments (an infinite test set drawn with r). The crowd's average (§4, height and "
        "weight): the height estimate alone, ⌊B/4⌋ judgments averaged; our simulated estimates are not in the "
        "label's units, so the prediction is the least-squares affine map of that average (the final predictor "
        "every selector gets). Per budget, crowd and opponent, 'Full is best' is decided on "
        "D = RMSE(opponent) − RMSE(Full) (full: group-sequential, 50 repetitions, then 100 and 200 for the settings "
        "still undecided) by the mean of D, the estimand of §4, which averages the test error over 50 splits (line "
        "241): the Student t interval of the mean (D is a difference of exact RMSEs of least-squares predictors "
        "fitted on 700 objects, a smooth function of the sample; the runs where both buy the same judgments give "
        "D = 0 exactly, which a mean counts as no difference, as an average over splits does; the t interval's "
        "central-limit approximation is good at 30–200 runs), with the median's exact interval and the share of "
        "runs where Full is better reported beside it. The question is the direction §4 states against the "
        "baselines Averages, Copies and the crowd's average (line 287: \"the full algorithm achieved better test "
        "error than the baselines\": no magnitude): REPRODUCED when the interval lies above 0, "
        "REVERSED below 0, NEGLIGIBLE inside (−ε, ε), UNDECIDED otherwise. ε (0.005 in RMSE on the designed "
        "crowd, 1% of the label's standard deviation on the Table 1 crowd, `table1_margin` × λ-scaled "
        "sd, 0.0037) is the margin of a replaced selector judged against the reference implementation on the same "
        "sample and seeds (non-inferiority: a subject's RMSE above the reference's by more than ε in the median "
        "FAILs). Scoring: §4 says it was \"usually somewhat worse\" than Full and \"sometimes better\" when "
        "the sample was small, which no single setting can contradict, so each Scoring setting is a reported "
        "two-sided finding (the same mean: REPRODUCED — Full better, REVERSED — Scoring "
        "better), not decided; one more such setting, on the designed crowd at `small_m` = 100 "
        "objects and B = `small_budget`, looks where §4 says Scoring was sometimes better. What the crowd with "
        "Table 1's statistics shows at B = 10: "
        "Full against Averages goes the other way on most runs that differ (quick, seeds 0–3, 120 runs each: 2p − 1 "
        "from −0.17 to −0.28, i.e. Full better in 36–42% of them, UNDECIDED each time; before the conditional sign "
        "test the median read it as TIED, Full worse in 19 of 30 runs on seed 0); the full profile's 200 runs "
        "decide it (docs/results.md). A REVERSED there would be a simulation finding about this crowd (Table 1 "
        "prints only v̂/σ̂ and b̂/σ̂, not the covariances), not a non-reproduction of §4. Figure 8: at a total "
        "of `fig8_total` training judgments, Full with k = 2 on total/(2d) objects against k = 4 on total/(4d) "
        "objects (paired: the k = 4 set is the first half of the k = 2 set's objects with two more judgments), "
        "budget `fig8_budget`, designed crowd; measured the same way (RMSE(k = 4) − RMSE(k = 2)) and reported with "
        "its sign-test interval but not decided: on this simulated crowd the median favours k = 2 (by about 0.02 in "
        "RMSE at 60 against 30 objects) while about a quarter of the repetitions go the other way, more than 30–50 "
        "repetitions can resolve at the claim's error rate. Its caption speaks of "
        "training loss; the test RMSE is what its conclusion (choose a small k) is about." + _READS + _SIMULATED)
    labels = ("Full (k = 2)", "the other selector (or k = 4)")
    #: §4 averages the test error over 50 splits (line 241): the mean of the paired difference decides (Student t
    #: interval), the median beside it
    statistic = "t"
    #: the crowds are ours (simulated; no offline copy of the paper's data): a result against §4 with the
    #: reference selectors is a simulation finding
    designed = True
    subjects = {"full": FullSelector, "scoring": ScoringSelector, "averages": AveragesSelector,
                "copies": CopiesSelector, "average": CrowdAverageSelector}
    protocols = {**{name: Contract(MultiSelector, init=("budget", "costs", "fit_intercept")) for name in subjects},
                 "average": Contract(MultiSelector, init=("budget", "costs", "fit_intercept", "feature"))}
    parameters = {**PairedComparison.parameters, "max_repetitions": Integer(2), "m": Integer(20),
                  "budgets": Grid(Integer(1), distinct=1), "table1_budgets": Grid(Integer(1), distinct=1),
                  "table1_margin": Positive(), "small_m": Integer(20), "small_budget": Integer(1),
                  "fig8_total": Integer(100), "fig8_budget": Integer(1),
                  "noise": Positive()}
    base = {"delta": 1e-3, "resolution": 0.005, "margin": 0.005, "table1_margin": 0.01, "m": 700, "noise": 0.25,
            "small_m": 100, "small_budget": 10, "fig8_budget": 20}
    profiles = {"quick": {"repetitions": 30, "max_repetitions": 120, "budgets": (10, 30), "table1_budgets": (10,),
                          "fig8_total": 12 * 2 * 60},
                "full": {"repetitions": 50, "max_repetitions": 200, "budgets": (5, 10, 20, 30, 40),
                         "table1_budgets": (5, 10, 20, 30, 40), "fig8_total": 12 * 2 * 60}}
    defects = (Defect("Full whose greedy steps take the second-best feature", {"full": D + "SecondBestFull"},
                      idea=True),
               Defect("Full that may buy only the numerical estimates (the crowd average's choice)",
                      {"full": D + "FullEstimatesOnly"}))
    power = ("A replaced Full is judged against the reference Full on the same samples and seeds, per budget, crowd "
             "and opponent: a Full whose RMSE is above the reference's by more than ε in the median FAILs (a greedy "
             "step that takes the second-best feature, a Full that buys only the estimates). It cannot see a "
             "difference from the reference below ε. With the reference implementations, a baseline that beats "
             "Full on most runs that differ is REVERSED (NOT REPRODUCED: a simulation finding on our crowds, not a "
             "non-reproduction of the paper). Scoring's findings are reported only.")

    def check_params(self, p):
        if p["fig8_total"] < 4 * 12 * 10:
            raise ParameterError("fig8_total must allow at least 10 objects with k = 4 (4·d·10 judgments)")
        if p["fig8_total"] % (4 * 12):
            raise ParameterError("fig8_total must be a multiple of 4·d = 48 (whole objects for k = 2 and k = 4)")

    def settings(self, p):
        out = []
        for which, budgets in (("designed", p["budgets"]), ("table1", p["table1_budgets"])):
            c = _crowd(which, p["noise"])
            margin = p["margin"] if which == "designed" else p["table1_margin"] * float(np.sqrt(c.y_variance))
            prefix = "" if which == "designed" else "Table 1 crowd, "
            out += [{"crowd": which, "budget": B, "opponent": o, "label": f"{prefix}B = {B}: Full vs {OPPONENTS[o][0]}",
                     "relation": SUPERIOR, "question": DIRECTION, "margin": margin, "decides": o != "scoring",
                     "paper": "\"the full algorithm achieved better test error than the baselines\"" if o != "scoring"
                     else "Scoring \"usually somewhat worse\" than Full, \"sometimes better\" at small samples",
                     "sentence": "§4, lines 241 and 287" if o != "scoring" else "§4, line 287",
                     "source": "convention", "estimand": _MEAN_WHY,
                     "derivation": "ε bounds NEGLIGIBLE only (a direction): a convention (0.005 in RMSE, or 1% of "
                                   "the label's sd on the Table 1 crowd)",
                     "why": "a bare \"better\": a direction, decided on the mean of the paired RMSE difference (§4 "
                            "averages over 50 splits)"
                     if o != "scoring" else "\"usually\" and \"sometimes\" admit either sign in any one setting: "
                                            "reported on every profile"}
                    for B in budgets for o in OPPONENTS]
        small = {"crowd": "designed", "budget": p["small_budget"], "opponent": "scoring", "m": p["small_m"],
                 "relation": SUPERIOR, "question": DIRECTION, "decides": False, "sentence": "§4, line 287",
                 "source": "convention", "estimand": _MEAN_WHY,
                 "why": "§4's \"sometimes better\" at small samples admits either sign: reported on every profile",
                 "label": f"small sample (m = {p['small_m']}), B = {p['small_budget']}: Full vs Scoring"}
        fig8 = {"crowd": "designed", "budget": p["fig8_budget"], "opponent": "k=4", "decides": False,
                "question": DIRECTION, "sentence": "§4, line 303 and Figure 8's caption (line 313)",
                "source": "convention", "estimand": _MEAN_WHY,
                "why": "Figure 8's caption speaks of training loss at settings we cannot match; its conclusion (a "
                       "small k) is reported on every profile",
                "label": f"Fig. 8: total {p['fig8_total']} judgments, k = 2 vs k = 4 (Full, B = {p['fig8_budget']})"}
        return [*out, small, fig8]

    def budget(self, p):
        return max(max(p["budgets"]), max(p["table1_budgets"]), p["small_budget"], p["fig8_budget"])

    def run(self, p, task, subjects, data_state, seeds):
        c = _crowd(task["crowd"], p["noise"])
        B = task["budget"]
        fig8 = task["opponent"] == "k=4"
        m = p["fig8_total"] // (2 * c.d) if fig8 else task.get("m", p["m"])
        mu, y = c.objects(m, data_state)
        J = c.judge(mu, 4 if fig8 else 2, data_state)
        if fig8:
            runs = [(subjects["full"], J[:, :, :2], mu, y), (subjects["full"], J[: m // 2], mu[: m // 2], y[: m // 2])]
        else:
            runs = [(subjects["full"], J, mu, y), (subjects[task["opponent"]], J, mu, y)]
        out = {}
        for tag, (cls, Jt, mut, yt), seed in zip("ab", runs, seeds, strict=True):
            extra = {"feature": c.names.index("height (numerical)")} if cls is subjects["average"] else {}
            sel = cls(budget=B, costs=c.costs, fit_intercept=True, **extra).fit(Jt, yt)
            r = np.asarray(sel.r_, dtype=np.int64)
            sel.fit_predictor(c.means(mut, r, seed, J=Jt), yt)
            out[f"loss_{tag}"] = float(np.sqrt(c.risk(sel.coef_, sel.intercept_, r)))
            out[f"attributes_{tag}"] = int(c.costs @ r)
            out[f"r_{tag}"] = str(r.tolist())
            out[f"spent_{tag}"] = int(c.costs @ r)
        out["hypotheses"] = [Hypothesis(f"both selectors spend at most B = {B} per test object",
                                        max(out["spent_a"], out["spent_b"]) <= B,
                                        f"spent {out['spent_a']} and {out['spent_b']}")]
        return out
