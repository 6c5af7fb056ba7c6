"""Monte-Carlo claims and experiments of Reyzin (ICML 2011), Boosting on a budget: Corollary 3's
sampling step, Propositions 4 and 6, the §5 experiments (Tables 3–6, Figures 1–2) and §6's
deterministic alternative, on ensembles AdaBoost trained on real (stand-in) and synthetic data."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pandas as pd

from theorycheck import stats
from theorycheck.algorithms import AdaBoostDeterministic, AdaBoostRS, AdaBoostRSAC
from theorycheck.claims import (
    Claim,
    Defect,
    Erratum,
    Evidence,
    Hypothesis,
    Measurement,
    NonReproduction,
    Plot,
    register,
)
from theorycheck.kinds.ensemble import (
    BUDGETED_ENSEMBLE,
    DATA_PARAMETERS,
    SAMPLED_ENSEMBLE,
    BudgetComparison,
    BudgetTables,
    SampledFrequency,
    SignConvergence,
    budgeted_predict,
    data_errors,
    data_split,
    feature_costs,
    fitted,
    int_seed,
    sampled_path,
    unavailable,
)
from theorycheck.protocols import Contract, Function
from theorycheck.spaces import Choice, Int, Real, Space
from theorycheck.stats import NON_INFERIOR, SUPERIOR
from theorycheck.validation import Grid, Integer, Number, Positive, Probability, Resolution

D = "tests.defects_reyzin11:"
ALL = ("breast_cancer", "digits49", "synthetic", "ocr17", "ocr49", "census", "splice")


def hoeffding_vote_bound(B, theta):
    """Corollary 3's sampling term: P(a vote of B draws has margin ≤ θ/2) ≤ e^{−Bθ²/8}."""
    return math.exp(-B * theta * theta / 8.0)


def _two_sided(B: int, theta: float) -> float:
    """P(|U − Bθ| ≥ Bθ/2) for U = 2K − B, K ~ Binomial(B, (1 + θ)/2): the event the proof bounds."""
    from scipy.stats import binom

    k = np.arange(B + 1)
    hit = np.abs(2 * k - B - B * theta) >= B * theta / 2 - 1e-12
    return float(binom.pmf(k[hit], B, (1 + theta) / 2).sum())


@register
class Cor3(SampledFrequency):
    id = "reyzin11.cor3"
    space = Space(
        dims={"datasets": Choice(("breast_cancer", "synthetic", "digits49")), "rounds": Int(10, 500, log=True),
              "thetas": Real(0.05, 0.5, log=True)},
        why=("the corollary's ∀ ensembles (AdaBoost's on three data sets, after 10 to 500 rounds) and margins θ; "
             "B's grid stays the profile's"))
    title = "A vote of B sampled stumps falls below margin θ/2 with probability ≤ e^(−Bθ²/8)"
    reference = "Corollary 3 (the sampling step of its proof), Theorem 2"
    statement = (
        "For a test example whose full-vote margin is θ > 0, the vote of B hypotheses drawn i.i.d. with p ∝ α "
        "(Algorithm 2's draws) has margin at most θ/2 with probability at most e^(−Bθ²/8)."
    )
    hypotheses = ("θ > 0 (the example's margin under the full vote)", "B draws, fixed in advance",
                  "draws i.i.d. from p(i) = α_i/Σα")
    interpretation = (
        "Only the sampling step of the corollary is checkable: the margin bound (Theorem 1) it is combined with has "
        "unstated constants (Õ). The step is one-sided Hoeffding: each draw votes y·h ∈ {−1, +1} with mean θ, so "
        "P(U ≤ Bθ/2) ≤ exp(−2(Bθ/2)²/(4B)). Per dataset, AdaBoost is trained (`rounds` rounds, fixed split); for each "
        "θ of `thetas`, among the test examples whose margin lies within 10% of θ the one whose unweighted vote "
        "(the mean of y·h over the stumps, what uniform draws would estimate) is lowest is taken — where drawing ∝ α "
        "matters most; the closest positive margin when none lies within 10% — its actual "
        "margin θ_x is the one used, and `trials` × `chunks` independent votes of B draws (the subject's sample_path, "
        "for every B of `B_grid` along one path, up to the first B with Bθ²/8 ≥ s_max, beyond which the bound is "
        "too small for any profile to resolve) are compared with θ_x/2; the bound comes from the subject `bound`. "
        "A cell is (dataset, θ, B)."
    )
    subjects = {"ensemble": AdaBoostRS, "bound": hoeffding_vote_bound}
    protocols = {"ensemble": SAMPLED_ENSEMBLE, "bound": Contract(Function, call=("B", "theta"))}
    parameters = {**SampledFrequency.parameters, "thetas": Grid(Number(0.0, 1.0, open="both"), distinct=1),
                  "B_grid": Grid(Integer(1), distinct=2), "s_max": Positive()}
    base = {"datasets": ("breast_cancer", "synthetic"), "rounds": 500, "n_train": 1000, "n_test": 2000,
            "split_seed": 0, "chunks": 1, "trials": 10_000, "delta": 5e-4, "resolution": 2e-3, "thetas": (0.15, 0.3),
            "B_grid": (1, 4, 16, 64, 256, 1024), "s_max": 6.0}
    profiles = {"quick": {}, "full": {"datasets": ALL, "chunks": 2, "trials": 20_000, "n_test": 5000,
                                      "thetas": (0.05, 0.1, 0.2, 0.3, 0.5),
                                      "B_grid": (1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096)}}
    cell_columns = ("dataset", "theta", "B")
    x = "B"
    hue = "theta"
    event = "a vote of B draws has margin ≤ θ/2"
    bound_name = "e^(−Bθ²/8)"
    errata = (Erratum(
        "two-sided", "Theorem 2 (Hoeffding) and the display in the proof of Corollary 3",
        "P[|S − E S| > t] ≤ exp(−2t²/Σ(b_i − a_i)²), and P[|U − E U| ≥ Bθ/2] ≤ e^(−Bθ²/8)",
        "the two-sided bound carries a factor 2 (2·exp(·)); the one-sided P[U − E U ≤ −Bθ/2] ≤ e^(−Bθ²/8) holds and "
        "is all the corollary needs",
        "counterexample",
        "Theorem 2: one X ∈ {0, 1} with P = ½ and t = ¼ has |S − E S| = ½ > t surely, probability 1 > e^(−1/8). "
        "Corollary 3's display: with B = 1 and a vote of mean θ ≤ 2/3, |U − θ| ≥ 1 − θ ≥ θ/2 on both outcomes, "
        "probability 1 > e^(−θ²/8). The claim also computes the two-sided probability exactly (binomial law) at "
        "each of its cells."),)
    defects = (
        Defect("Hoeffding constant 4 instead of 8 (bound e^(−Bθ²/4))", {"bound": D + "hoeffding_constant_4"}),
        Defect("sampler drawing uniformly over the stumps", {"ensemble": D + "RSUniformStumps"}, idea=True),
        Defect("sampler whose votes are weighted by α again (α² in all)", {"ensemble": D + "RSAlphaVotes"}),
    )
    power = (
        "Per cell, a violation frequency above e^(−Bθ²/8) by a factor the Clopper–Pearson interval resolves is a FAIL: "
        "with 10⁴ trials the cells with Bθ²/8 ≈ 3 separate the true tail (≈ 10⁻²) from e^(−2·3), so a Hoeffding "
        "constant of 4 is caught; a sampler that shifts the vote's mean downwards by more than θ/2 is caught, which is "
        "what uniform draws do on the examples chosen wherever AdaBoost's α are far from uniform (synthetic: "
        "unweighted votes below 0 at margins 0.15 and 0.3; on breast_cancer the α are nearly uniform and the two "
        "votes agree to a few hundredths). The "
        "bound is loose (tightness is reported), so a sampler that is wrong but still concentrates above θ/2 passes."
    )

    def count(self, p, task, subjects, seed):
        model, _, _, Xte, yte, info = fitted(subjects["ensemble"], task["dataset"], p)
        margins = model.margins(Xte, yte)
        signed = np.where(yte == model.classes_[1], 1.0, -1.0)
        unweighted = (signed[:, None] * model.hypothesis_outputs(Xte)).mean(axis=1)
        positive = np.flatnonzero(margins > 0)
        rows = []
        for grid, stream in zip(p["thetas"], seed.spawn(len(p["thetas"])), strict=True):
            near = positive[np.abs(margins[positive] - grid) <= 0.1 * grid]
            i = (int(near[np.argmin(unweighted[near])]) if len(near)
                 else int(positive[np.argmin(np.abs(margins[positive] - grid))]))
            theta = float(margins[i])
            # B beyond the first with Bθ²/8 ≥ s_max adds cells whose bound no profile can resolve
            Bs = sorted(set(p["B_grid"]))
            stop = next((k for k, B in enumerate(Bs) if B * theta * theta / 8 >= p["s_max"]), len(Bs) - 1)
            Bs = np.array(Bs[:stop + 1], dtype=np.int64)
            path = sampled_path(model, np.repeat(Xte[i:i + 1], p["trials"], axis=0), Bs, who="the ensemble",
                                random_state=int_seed(stream))
            y = 1.0 if yte[i] == model.classes_[1] else -1.0
            votes = y * path.votes / Bs
            for c, B in enumerate(Bs):
                rows.append({"dataset": task["dataset"], "theta": round(theta, 6), "theta_grid": grid, "B": int(B),
                             "example": i, "violations": int((votes[:, c] <= theta / 2 + 1e-12).sum()),
                             "two_sided": int((np.abs(votes[:, c] - theta) >= theta / 2 - 1e-12).sum()),
                             "trials": int(p["trials"]), "target": float(subjects["bound"](B=int(B), theta=theta)),
                             "printed_two_sided": hoeffding_vote_bound(int(B), theta),
                             "exact_two_sided": _two_sided(int(B), theta)})
        hyps = [Hypothesis("every chosen example has a positive margin θ under the full vote", bool(len(positive)),
                           f"{len(positive)} positive margins on {info['dataset']}")]
        return Measurement(rows, hyps)

    def errata_evidence(self, p, table):
        cells = table.drop_duplicates(["dataset", "theta", "B"])
        exceed = cells[cells["exact_two_sided"] > cells["printed_two_sided"]]
        seen = table.groupby(["dataset", "theta", "B"], as_index=False)[["two_sided", "trials"]].sum()
        seen = seen.merge(table.drop_duplicates(["dataset", "theta", "B"])[["dataset", "theta", "B",
                                                                           "printed_two_sided"]])
        over = seen[seen["two_sided"] / seen["trials"] > seen["printed_two_sided"]]
        text = (f"Computed exactly (binomial law of the vote) at this run's cells: the two-sided probability exceeds "
                f"the printed e^(−Bθ²/8) in {len(exceed)} of {len(cells)} cells")
        if len(exceed):
            r = exceed.iloc[0]
            text += (f" (e.g. B = {int(r['B'])}, θ = {r['theta']:.3g}: {r['exact_two_sided']:.4g} > "
                     f"{r['printed_two_sided']:.4g})")
        text += (f"; observed two-sided frequencies above it in {len(over)} cells, while the one-sided frequencies "
                 "(the corollary's event) stay below it.")
        return {"two-sided": text}


class _Convergence(SignConvergence):
    parameters = {**SignConvergence.parameters, "levels": Grid(Positive(), distinct=2), "theta_min": Number(0.0, 2.0,
                                                                                                            open="low")}


@register
class Prop4(_Convergence):
    id = "reyzin11.prop4"
    space = Space(
        dims={"datasets": Choice(("breast_cancer", "synthetic", "digits49")), "rounds": Int(10, 500, log=True),
              "theta_min": Real(0.005, 0.2, log=True)},
        why=("the proposition's ∀ ensembles (AdaBoost's on three data sets, after 10 to 500 rounds) and margins ≥ "
             "θ_min"))
    title = "AdaBoostRS's sampled vote agrees with the full vote as τ grows"
    reference = "Proposition 4"
    statement = (
        "For every example whose full vote is not 0, sign(v_τ) of Algorithm 2 converges almost surely to the sign of "
        "Σ_t α_t h_t(x) as the number τ of draws grows."
    )
    hypotheses = ("Σ α_t h_t(x) ≠ 0", "draws i.i.d. from p(i) = α_i/Σα, each voting h_i(x) ∈ {−1, +1}")
    interpretation = (
        "A limit cannot be observed in finitely many draws; what is decided is the quantitative statement the law of "
        "large numbers argument rests on: with θ_x the example's |margin|, P(sign v_τ ≠ sign F(x)) ≤ e^(−τθ_x²/2) "
        "(Hoeffding, each draw in [−1, 1] with mean θ_x), which tends to 0. At level ℓ every tested example is run "
        "to τ_x(ℓ) = ⌈2ℓ/θ_x²⌉ draws, where the bound is ≤ e^(−ℓ); examples with θ_x < theta_min are left out "
        "(their τ would be too large) and counted. Trials draw examples uniformly, so each level's disagreements "
        "are i.i.d. Bernoulli with mean ≤ e^(−ℓ) when the claim holds."
    )
    subjects = {"ensemble": AdaBoostRS}
    protocols = {"ensemble": SAMPLED_ENSEMBLE}
    base = {"datasets": ("synthetic",), "rounds": 500, "n_train": 1000, "n_test": 2000, "split_seed": 0,
            "chunks": 1, "trials": 3000, "delta": 5e-4, "resolution": 5e-3, "levels": (1.0, 2.0, 4.0, 8.0),
            "theta_min": 0.02}
    profiles = {"quick": {}, "full": {"datasets": ALL, "chunks": 2, "trials": 10_000, "n_test": 5000,
                                      "levels": (1.0, 2.0, 4.0, 8.0, 12.0)}}
    defects = (
        Defect("sampler drawing uniformly over the stumps", {"ensemble": D + "RSUniformStumps"}, idea=True),
        Defect("sampler drawing ∝ α² ", {"ensemble": D + "RSSquaredAlpha"}),
        Defect("sampler that stops voting after 100 draws", {"ensemble": D + "RSFrozenAfter100"}),
    )
    power = (
        "A sampler that converges to another vote (uniform or ∝ α² draws) disagrees with the full vote on a fixed "
        "share of the examples at every τ, far above e^(−ℓ) at the larger levels: a FAIL when that share is "
        "resolvable with the trials given. Examples whose margin is below theta_min are not tested, so a defect "
        "confined to them is missed, and so is one that appears only beyond the largest τ."
    )

    errata = (Erratum(
        "budget-direction", "§3.1, the sentence before Algorithm 2",
        "the budget B is assumed larger than the number of (relevant) features, because with a smaller B the full "
        "AdaBoost vote could be used instead",
        "B must be smaller than the number of relevant features (as §4 assumes: low enough that the full vote is "
        "out of reach): with B > n + max n(h), "
        "Algorithm 2's loop condition k + max n(h) < B holds forever once the n relevant features are examined "
        "(k ≤ n), so the printed loop never stops, and with B ≥ n the full vote is affordable anyway",
        "derivation",
        "The full vote examines all n relevant features, so in the case the sentence sends to it (B not above n, "
        "e.g. B < n) it exceeds the budget; and since Algorithm 2 counts k ≤ n distinct features, its condition "
        "k + max n(h) < B never fails once B > n + max n(h), so the loop the assumption licenses does not end. The "
        "claim's run shows the latter at B = n + 2 on its test examples."),)

    def drift(self, p, model, X, costs):
        F = model.decision_function(X)
        alpha = np.asarray(model.alphas_, dtype=np.float64)
        return np.sign(F), np.abs(F) / alpha.sum(), np.full(len(F), 2.0)

    def count(self, p, task, subjects, seed):
        rows = super().count(p, task, subjects, seed)
        if isinstance(rows, Measurement):
            return rows
        model, _, _, Xte, _, _ = fitted(subjects["ensemble"], task["dataset"], p)
        relevant = int(np.unique(model.features_[model.sampling_probabilities() > 0]).size)
        model.predict(Xte[:200], budget=relevant + 2, random_state=int_seed(seed))
        share = float(np.mean(model.exhausted_))
        return [{**row, "relevant_features": relevant, "exhausted_beyond": share} for row in rows]

    def errata_evidence(self, p, table):
        if "exhausted_beyond" not in table:
            return {}
        parts = [f"{name}: n = {int(part['relevant_features'].iloc[0])} relevant features; at B = n + 2 the printed "
                 f"loop would run forever on {100 * float(part['exhausted_beyond'].mean()):.0f}% of 200 test examples "
                 "(every relevant feature examined with k + 1 < B still true; the subject stops there and uses the "
                 "full vote)" for name, part in table.groupby("dataset")]
        return {"budget-direction": "; ".join(parts) + "."}


@register
class Prop6(_Convergence):
    id = "reyzin11.prop6"
    space = Space(
        dims={"datasets": Choice(("breast_cancer", "synthetic", "digits49")), "rounds": Int(10, 500, log=True),
              "theta_min": Real(0.005, 0.2, log=True)},
        why=("the proposition's ∀ ensembles (AdaBoost's on three data sets, after 10 to 500 rounds) and margins ≥ "
             "θ_min"))
    title = "AdaBoostRS_AC's sampled vote agrees with the full vote as τ grows"
    reference = "Proposition 6"
    statement = (
        "For every example whose full vote is not 0, sign(v_τ) of Algorithm 3 converges almost surely to the sign of "
        "Σ_t α_t h_t(x) as the number τ of draws grows."
    )
    hypotheses = ("Σ α_t h_t(x) ≠ 0", "feature costs c_j > 0 (§4: c_j ≥ 1)",
                  "draws i.i.d. with p(i) ∝ α_i/c(h_i), each adding c(h_i)·h_i(x)")
    interpretation = (
        "As for Proposition 4, the quantitative form is decided: an AC draw adds s·c(h)·h(x) (s the full vote's sign), "
        "with mean μ_x = |Σαh|/Σ(α/c) (Theorem 5) and range of width w_x = max_t s·c_t h_t(x) − min_t s·c_t h_t(x), so "
        "P(sign v_τ ≠ s) ≤ exp(−2τμ_x²/w_x²) ≤ e^(−ℓ) at τ_x(ℓ) = ⌈ℓ w_x²/(2μ_x²)⌉. Costs are drawn U(cost_low, "
        "cost_high] per trial batch; the default [1, 4] meets §4's hypothesis c_j ≥ 1 (with costs near 0 the drift "
        "2μ/w of most examples is too small for a feasible τ). Examples with drift 2μ_x/w_x < theta_min are left out "
        "and counted."
    )
    subjects = {"ensemble": AdaBoostRSAC}
    protocols = {"ensemble": SAMPLED_ENSEMBLE}
    parameters = {**_Convergence.parameters, "cost_low": Number(0.0), "cost_high": Positive()}
    base = {**Prop4.base, "cost_low": 1.0, "cost_high": 4.0}
    profiles = {"quick": {}, "full": {**Prop4.profiles["full"]}}
    defects = (
        Defect("sampler drawing ∝ α without the cost correction", {"ensemble": D + "ACSamplerUncorrected"}, idea=True),
        Defect("sampler with unweighted votes ±1", {"ensemble": D + "ACUnitVotes"}),
    )
    power = Prop4.power.replace("uniform or ∝ α² draws", "draws ∝ α with votes ±c, or ∝ α/c with votes ±1")

    def check_params(self, p):
        super().check_params(p)
        if not p["cost_high"] > p["cost_low"]:
            from theorycheck.validation import ParameterError
            raise ParameterError("cost_high must exceed cost_low")

    def costs(self, p, rng, d):
        return feature_costs(d, p["cost_low"], p["cost_high"], rng)

    def drift(self, p, model, X, costs):
        F = model.decision_function(X)
        alpha = np.asarray(model.alphas_, dtype=np.float64)
        hc = costs[model.features_]
        s = np.sign(F)
        steps = s[:, None] * model.hypothesis_outputs(X) * hc
        return s, np.abs(F) / np.sum(alpha / hc), steps.max(axis=1) - steps.min(axis=1)


# ---------------------------------------------------------------------- Algorithm 1 and Table 2
_U = 2.0 ** -53  # unit round-off of float64


def replay_adaboost(H: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 replayed on a fixed sequence of base classifiers: H (m, T) holds h_t(x_i) ∈ {−1, +1}
    on the training rows, y (m,) the labels ±1. Returns (ε_t, α*_t): the weighted error of h_t under
    D_t and its closed-form α*_t = ½ ln((1 + γ_t)/(1 − γ_t)) = ½ ln((1 − ε_t)/ε_t), with D_1 uniform and
    D_{t+1} ∝ D_t·exp(−α*_t y h_t). Stops after a round with ε_t = 0 (α* = ∞) or ε_t ≥ ½ (no edge)."""
    m, T = H.shape
    D = np.full(m, 1.0 / m)
    eps, alpha = [], []
    for t in range(T):
        e = math.fsum(D[H[:, t] != y])
        eps.append(e)
        if e <= 0.0:
            alpha.append(math.inf)
            break
        alpha.append(0.5 * math.log((1.0 - e) / e) if e < 0.5 else -math.inf)
        if e >= 0.5:
            break
        D = D * np.exp(-alpha[-1] * y * H[:, t])
        D /= math.fsum(D)
    return np.array(eps), np.array(alpha)


def replay_tolerance(m: int, T: int) -> float:
    """Worst-case float64 disagreement of two correct runs of Algorithm 1 in α (and in ε relative):
    a round's update moves each D(i) by a relative ≤ (m + 4)u (exp, product, a normalising sum of m
    terms), compounding to ≤ T(m + 4)u over T rounds; ε inherits it (a sum of positives adds ≤ mu) and
    |δα| ≤ |δε|/(2ε(1 − ε)) ≤ (relative δε)/(2(1 − ε)) ≤ relative δε for ε ≤ ½. Two runs (the subject's
    and the replay): twice that, doubled again for the log's own rounding."""
    return 4.0 * T * (m + 8) * _U


@functools.lru_cache(maxsize=8)
def _sklearn_samme(name: str, rounds: int, n_train: int, n_test: int, split_seed: int):
    """scikit-learn's AdaBoostClassifier with depth-1 trees (SAMME) on the split `fitted` uses: its
    test predictions and the scikit-learn version."""
    import inspect

    import sklearn
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    Xtr, ytr, Xte, _, _ = data_split(name, n_train, n_test, split_seed)
    extra = {"algorithm": "SAMME"} if "algorithm" in inspect.signature(AdaBoostClassifier).parameters else {}
    model = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1, random_state=0), n_estimators=rounds,
                               random_state=0, **extra).fit(Xtr, ytr)
    return model.predict(Xte), sklearn.__version__


@register
class Alg1(Claim):
    id = "reyzin11.alg1"
    no_space = ("its statement is about AdaBoost's ensemble on the paper's fixed real data sets and Table 2's "
                "printed errors: no free quantity to search")
    kind = "exact"
    title = "The ensemble AdaBoostRS samples from is AdaBoost's (Algorithm 1), and Table 2's errors"
    reference = "Algorithm 1, §5.2 and Table 2"
    statement = (
        "The ensemble the samplers are handed is AdaBoost's: each round's weight is α_t = ½ ln((1 + γ_t)/(1 − γ_t)) "
        "for the edge γ_t = 1 − 2ε_t of its stump under D_t, D being updated by exp(−α_t y h_t(x)) and normalised; "
        "its full vote agrees with scikit-learn's AdaBoost (SAMME, depth-1 trees) on the same data; and on census "
        "and splice its test error is Table 2's (18.3%, 8.1%) within 3 percentage points."
    )
    hypotheses = ("stumps as base classifiers, 500 rounds, 1 000 training examples (Table 1)",
                  "every round's stump has an edge γ_t > 0 under D_t (Algorithm 1's weak learning)")
    interpretation = (
        "Replay: from the subject's own stumps h_t on the training rows, Algorithm 1 is run again (D_1 uniform, "
        "ε_t = Σ_{h_t(x_i) ≠ y_i} D_t(i) summed exactly with fsum, α*_t in closed form, D_{t+1} from α*_t), and every "
        "|α_t − α*_t| (and, where the subject reports them, |ε_t − ε*_t|) must be ≤ 4T(m + 8)·2⁻⁵³, a worst-case "
        "bound on the rounding by which two correct float64 runs can differ (see replay_tolerance); the check is "
        "pathwise, no error rate. Which stump the weak learner picks is not constrained (the paper only says "
        "'decision stumps'). Cross-check: scikit-learn's AdaBoostClassifier(DecisionTreeClassifier(max_depth=1)), "
        "SAMME (its only algorithm from 1.8 on, a weight ln((1 − ε)/ε) = 2α_t: the same sign), fitted on the same "
        "training rows; its weak learner splits by weighted Gini, not weighted error, so the two ensembles differ "
        "in some stumps; fixed before running, the two votes must agree on at least 90% of examples (the "
        "Clopper–Pearson interval of the test agreement at δ/k: PASS when its lower end is ≥ 0.9, FAIL when its "
        "upper end is below). Table 2: the full vote's test error, Clopper–Pearson at δ/k, must lie within ±3 "
        "points of the paper's (about 5 standard errors of a 5 000- or 2 175-example test estimate, leaving room "
        "for another random 1 000 training examples and our binarisation of census): PASS inside, FAIL outside, "
        "INCONCLUSIVE straddling; decided on census and splice only (the ocr stand-ins' errors are reported). k "
        "counts the interval decisions."
    )
    subjects = {"ensemble": AdaBoostRS}
    protocols = {"ensemble": SAMPLED_ENSEMBLE}
    parameters = {**DATA_PARAMETERS, "delta": Probability(), "agreement": Probability(), "window": Positive()}
    base = {"datasets": ("splice",), "rounds": 500, "n_train": 1000, "n_test": 5000, "split_seed": 0,
            "delta": 5e-4, "agreement": 0.9, "window": 3.0}
    profiles = {"quick": {}, "full": {"datasets": ("census", "splice", "ocr17", "ocr49", "synthetic")}}
    defects = (Defect("AdaBoostRS whose α are all 1", {"ensemble": D + "RSUnitAlpha"}, idea=True),)
    power = (
        "Any subject whose α are not Algorithm 1's closed form for its own stumps (all 1, a reweighting by 2α, a "
        "wrong edge) is caught on the first round that differs by more than the rounding bound (≈ 2·10⁻¹⁰ at "
        "m = 1 000, T = 500). A wrong weak learner (a poor stump each round) is not caught by the replay, only by the "
        "agreement with scikit-learn if it moves more than 10% of the votes, and by Table 2 if it moves the error "
        "by more than 3 points."
    )

    def tasks(self, p):
        return [{"dataset": name} for name in p["datasets"]]

    def measure(self, p, task, subjects, seed):
        name = task["dataset"]
        try:
            model, Xtr, ytr, Xte, yte, info = fitted(subjects["ensemble"], name, p)
            sk_pred, sk_version = _sklearn_samme(name, p["rounds"], p["n_train"], p["n_test"], p["split_seed"])
        except data_errors() as err:
            return Measurement([{**task, "unavailable": unavailable(err)}])
        y = np.where(ytr == model.classes_[1], 1.0, -1.0)
        H = model.hypothesis_outputs(Xtr)
        eps, alpha = replay_adaboost(H, y)
        got = np.asarray(model.alphas_, dtype=np.float64)
        T = len(got)
        both = min(T, len(alpha))
        with np.errstate(invalid="ignore"):
            gap = np.where(got[:both] == alpha[:both], 0.0, np.abs(got[:both] - alpha[:both]))
        reported = getattr(model, "errors_", None)
        eps_gap = (np.abs(np.asarray(reported[:both]) - eps[:both]) / np.maximum(eps[:both], 1e-300)
                   if reported is not None else np.zeros(0))
        tol = replay_tolerance(len(y), T)
        pred = model.predict(Xte)
        paper = TABLE2.get(STANDS_FOR.get(name) or "", None)
        return Measurement([{
            "dataset": name, "rounds": T, "replayed": len(alpha), "tolerance": tol,
            "alpha_gap_max": float(gap.max()) if both else math.inf,
            "rounds_off": int((gap > tol).sum()) + abs(T - len(alpha)),
            "first_off": int(np.argmax(gap > tol)) + 1 if (gap > tol).any() else 0,
            "eps_gap_max": float(eps_gap.max()) if eps_gap.size else None,
            "eps_off": int((eps_gap > tol).sum()), "no_edge": int((eps[:both] >= 0.5).sum()),
            "alpha_first": float(got[0]), "alpha_star_first": float(alpha[0]),
            "n_test": len(yte), "wrong": int((pred != yte).sum()), "sk_wrong": int((sk_pred != yte).sum()),
            "agree": int((pred == sk_pred).sum()), "sklearn": sk_version, "paper_error_pct": paper,
            "stand_in": bool(info["stand_in"]), "features_used": int(np.unique(model.features_).size),
        }])

    def decide(self, p, table):
        missing = table[table["unavailable"].notna()] if "unavailable" in table else table.iloc[0:0]
        done = table[table["unavailable"].isna()] if "unavailable" in table else table
        verdicts, lines, rows = [], [], []
        for _, r in missing.iterrows():
            verdicts.append(stats.INCONCLUSIVE)
            lines.append(f"- {r['dataset']}: INCONCLUSIVE, the data is not available ({r['unavailable']}).")
        def published(r):
            return None if r["stand_in"] or pd.isna(r["paper_error_pct"]) else float(r["paper_error_pct"])

        k = max(len(done) + sum(published(r) is not None for _, r in done.iterrows()), 1)
        level = p["delta"] / k
        for _, r in done.iterrows():
            name = r["dataset"]
            replay = stats.decide_always(int(r["rounds_off"]) + int(r["eps_off"]) + int(r["no_edge"]),
                                         int(r["rounds"]), f"{name}: α_t = ½ ln((1 − ε_t)/ε_t) for the replayed ε_t "
                                         "(and ε_t < ½, and the reported ε_t)", f"{r['tolerance']:.2g}")
            agree_iv = stats.binomial_interval(int(r["agree"]), int(r["n_test"]), level)
            agree = stats.decide_at_least(agree_iv, p["agreement"], 0.0)
            err_iv = stats.binomial_interval(int(r["wrong"]), int(r["n_test"]), level)
            parts = [replay, agree]
            paper = published(r)
            if paper is not None:
                lo, hi = (paper - p["window"]) / 100, (paper + p["window"]) / 100
                parts.append(stats.decide_mean_within(err_iv, lo, hi))
            for dec in parts:
                verdicts.append(dec.verdict)
            lines.append(f"- {name}: replay {replay.verdict} ({replay.reason}; largest |α_t − α*_t| = "
                         f"{r['alpha_gap_max']:.3g}, first round off: {int(r['first_off']) or 'none'}, α_1 = "
                         f"{r['alpha_first']:.6g} against α*_1 = {r['alpha_star_first']:.6g}); agreement with "
                         f"scikit-learn {r['sklearn']} SAMME ≥ {p['agreement']:g}: {agree.verdict} ({agree.reason})"
                         + (f"; Table 2 {paper}% ± {p['window']:g}: {parts[2].verdict} ({parts[2].reason})"
                            if paper is not None else "; Table 2: reported, not decided"))
            rows.append({"dataset": name, "rounds": int(r["rounds"]), "max |α−α*|": r["alpha_gap_max"],
                         "tolerance": r["tolerance"], "replay": replay.verdict,
                         "agreement": agree_iv.estimate, "agreement_low": agree_iv.low, "agreement_verdict":
                         agree.verdict, "error_pct": 100 * err_iv.estimate, "error_low_pct": 100 * err_iv.low,
                         "error_high_pct": 100 * err_iv.high, "sklearn_error_pct": 100 * r["sk_wrong"] / r["n_test"],
                         "paper_error_pct": r["paper_error_pct"], "table2": parts[2].verdict if paper is not None
                         else "reported", "features_used": int(r["features_used"])})
        text = (f"Per dataset: the replay of Algorithm 1 (pathwise, rounding bound), the agreement with scikit-learn "
                f"(Clopper–Pearson at δ/{k} = {level:.3g}) and, on census and splice, Table 2's error within "
                f"±{p['window']:g} points (Clopper–Pearson at δ/{k}).\n" + "\n".join(lines))
        notes = ["Table 2 (AdaBoost's test error, %), ours beside the paper's: " + "; ".join(
            f"{x['dataset']} {x['error_pct']:.2f} [{x['error_low_pct']:.2f}, {x['error_high_pct']:.2f}]"
            + (f" (paper {x['paper_error_pct']:g})" if x["paper_error_pct"] == x["paper_error_pct"]
               and x["paper_error_pct"] is not None else "") + f", scikit-learn SAMME {x['sklearn_error_pct']:.2f}"
            for x in rows)] if rows else []
        return Evidence(verdict=stats.combine(verdicts), observed=None, theory=None, delta=p["delta"],
                        decision=text, summary=pd.DataFrame(rows), notes=notes)


# ---------------------------------------------------------------------- §5 experiments
TABLE3 = {"census": (15, 77, 211, 637), "splice": (97, 205, 421, 823), "ocr17": (178, 244, 339, 505),
          "ocr49": (167, 296, 694, 1020)}
TABLE4 = {"census": (10.0, 29.2, 40.8, 48.5), "splice": (26.8, 38.9, 52.7, 61.5), "ocr17": (16.4, 18.4, 19.9, 20.6),
          "ocr49": (21.6, 26.4, 31.3, 32.3)}
TABLE2 = {"census": 18.3, "splice": 8.1, "ocr17": 0.8, "ocr49": 6.5}
TABLE5 = {("census", 11): (32.2, 32.8), ("census", 21): (25.5, 26.4), ("splice", 11): (25.7, 27.0),
          ("splice", 21): (19.2, 20.4), ("ocr17", 11): (9.2, 10.5), ("ocr17", 21): (3.5, 4.3),
          ("ocr49", 11): (27.4, 28.3), ("ocr49", 21): (20.2, 21.4)}  # (AC, RS)
TABLE6 = {("census", 11): (26.2, 20.7), ("census", 21): (45.7, 41.3), ("splice", 11): (33.8, 20.6),
          ("splice", 21): (56.2, 40.0), ("ocr17", 11): (29.4, 20.6), ("ocr17", 21): (49.3, 40.5),
          ("ocr49", 11): (33.6, 21.1), ("ocr49", 21): (55.7, 40.3)}
RELATIVE = (1.0, 0.5, 0.25, 0.1)
#: the paper's dataset each of ours stands in for (None: no counterpart)
STANDS_FOR = {"ocr17": "ocr17", "ocr49": "ocr49", "mnist35": None, "breast_cancer": None, "digits49": None,
              "synthetic": None, "census": "census", "splice": "splice"}


def _rs_tau(budget: int) -> float:
    """The paper's AdaBoostRS τ at this budget, averaged over its four datasets (Table 6)."""
    return float(np.mean([TABLE6[(d, budget)][1] for d in ("census", "splice", "ocr17", "ocr49")]))


#: Table 1's numbers of features: no ensemble of the paper's can use more
PAPER_FEATURES = {"census": 130, "splice": 239, "ocr17": 402, "ocr49": 402}


def renewal_count(t: int, terms: int = 400) -> Fraction:
    """A rational lower bound on E[N(t)], N(t) = min{j : U_1 + … + U_j ≥ t} for i.i.d. U[0, 1] and an
    integer t ≥ 1: Σ_{k < terms} P(S_k < t) with the Irwin–Hall law at t (the dropped terms are ≥ 0;
    past k ≈ 3t they are below 10⁻³⁰). ≈ 2t + 2/3."""
    total = Fraction(0)
    for k in range(terms):
        prob = Fraction(1) if k == 0 else sum(Fraction((-1) ** i * math.comb(k, i) * (t - i) ** k)
                                              for i in range(min(t, k) + 1)) / math.factorial(k)
        total += prob
        if k > 3 * t and prob < Fraction(1, 10 ** 30):
            break
    return total


def printed_tau_lower_bound(B: int, n: int) -> Fraction:
    """Algorithm 2 as printed (a feature charged on its first examination), feature costs i.i.d.
    U[0, 1], an ensemble over at most n features: E[τ] ≥ f_n(E[N(B − 1)]), f_n(j) = Σ_{i < j} n/(n − i)
    extended linearly between integers (the derivation is on reyzin11.table6's erratum)."""
    x = renewal_count(B - 1)
    j = int(x)
    return sum((Fraction(n, n - i) for i in range(j)), Fraction(0)) + (x - j) * Fraction(n, n - j)


def every_draw_tau(model, n: int, B: float, costs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """τ of Algorithm 2 (or 3) when every draw is charged (a repeated feature pays again), for n
    examples: draws from the model's sampling_probabilities(costs) (∝ α, or ∝ α/c for AdaBoostRS_AC),
    k += c(h) per draw, while k + max c(h) < B (the number of draws does not depend on x)."""
    c = costs[model.features_]
    p = model.sampling_probabilities(costs)
    target = B - c.max()
    width = int(4 * B / max(c.mean(), 1e-3)) + 64
    taus = np.zeros(n, dtype=np.int64)
    todo = np.arange(n)
    spent = np.zeros(n)
    while todo.size:
        draws = rng.choice(c.size, size=(todo.size, width), p=p)
        run = spent[todo, None] + np.cumsum(c[draws], axis=1)
        hit = run >= target
        done = hit.any(axis=1)
        taus[todo[done]] += np.argmax(hit[done], axis=1) + 1
        taus[todo[~done]] += width
        spent[todo[~done]] = run[~done, -1]
        todo = todo[~done]
    return taus


@register
class Table6(BudgetTables):
    id = "reyzin11.table6"
    no_space = ("Table 6 re-run on the paper's data set (census) and budgets, beside its printed numbers: no free "
                "quantity to search")
    title = "Table 6's AdaBoostRS τ: Algorithm 2 as printed against every draw charged"
    reference = "Algorithm 2, §5.4 and Table 6"
    statement = (
        "With feature costs i.i.d. U[0, 1] and budgets 11 and 21, AdaBoostRS takes slightly less than twice the "
        "budget in samples, each adding 0.5 to the cost in expectation (§5.4's reading of Table 6): the published "
        "τ are those of a rule that charges every draw, not those of Algorithm 2 as printed, which charges a feature "
        "only on its first examination."
    )
    hypotheses = ("AdaBoost with stumps, 500 rounds, 1 000 training examples",
                  "feature costs i.i.d. U[0, 1], fresh each trial", "the budgets of Table 6's rows, 11 and 21")
    unchecked = ("they are the paper's experimental setting, not conditions of a theorem: the run builds it from the "
                 "parameters rounds, n_train and budgets and draws the costs itself, so it holds on both profiles; a "
                 "--set that changes those parameters leaves Table 6's setting, and the comparison with its numbers "
                 "then means nothing.")
    interpretation = (
        "Both rules run on the same ensemble and costs: 'printed' is the subject's own predict (its n_samples_: "
        "Algorithm 2's loop, a repeated feature free), 'every draw' draws ∝ α and adds c(h) on every draw (a repeat "
        "pays again), while k + max c(h) < B. Per trial the mean τ over the test examples is one value; a trial "
        "draws fresh costs for each of `cost_blocks` blocks of the test set (as reyzin11.exp: the mean estimated is "
        "the paper's, the spread between trials, which the α-weighted cost of a few heavy features makes large, "
        "smaller). The finding, "
        "fixed before running: on census and splice (the paper's own data) at B = 11 and 21, (a) every-draw τ is "
        "within ±1.5 of the published τ and (b) printed τ exceeds the published τ by more than 1.5 — the sign-test "
        "interval of the median over trials must lie inside published ± 1.5 for (a) and above published + 1.5 for "
        "(b). ±1.5 is reyzin11.exp's tolerance on the same numbers (their spread over the four datasets is "
        "20.6–21.1 and 40.0–41.3). The ocr stand-ins are reported beside their rows, not decided. The printed rule's "
        "lower bound f_n(E[N(B − 1)]) (the erratum's derivation) is shown beside each row with the paper's n. "
        "AdaBoostRS_AC's τ under both rules (draws ∝ α/c, each charged c(h) in the every-draw rule; the first "
        "`ac_repetitions` trials, fewer than 50: with costs near 0 its loops are long) are reported beside the paper's "
        "AC column, not decided; where every feature of positive probability has been examined the printed loop "
        "stops and the full vote decides (the library's documented choice), which can leave its τ below the "
        "every-draw rule's (ocr17)."
    )
    subjects = {"rs": AdaBoostRS, "ac": AdaBoostRSAC}
    protocols = {"rs": SAMPLED_ENSEMBLE, "ac": SAMPLED_ENSEMBLE}
    parameters = {**BudgetTables.parameters, **DATA_PARAMETERS, "budgets": Grid(Positive(), distinct=1),
                  "delta": Probability(), "resolution": Resolution(zero=True), "cost_blocks": Integer(1),
                  "ac_repetitions": Integer(0)}
    base = {"datasets": ("census",), "rounds": 500, "n_train": 1000, "n_test": 400, "split_seed": 0,
            "repetitions": 40, "budgets": (11.0, 21.0), "delta": 1e-3, "resolution": 0.0, "cost_blocks": 20,
            "ac_repetitions": 2}
    profiles = {"quick": {}, "full": {"datasets": ("census", "splice", "ocr17", "ocr49"), "n_test": 5000,
                                      "repetitions": 50, "cost_blocks": 25, "ac_repetitions": 10}}
    keys = ("table", "dataset", "budget", "algorithm")
    tolerance = 1.5
    tolerance_reason = ("±1.5 samples, reyzin11.exp's tolerance on the same published τ (their spread over the four "
                        "datasets is 20.6–21.1 at B = 11 and 40.0–41.3 at B = 21).")
    errata = (Erratum(
        "printed-rule", "Table 6 (AdaBoostRS column) against Algorithm 2 and §3.3",
        "AdaBoostRS's τ: census 20.7 / 41.3, splice 20.6 / 40.0, ocr17 20.6 / 40.5, ocr49 21.1 / 40.3 at B = 11 / 21, "
        "for Algorithm 2, whose features 'only contribute to the budget upon their first examination' (§5.3)",
        "Algorithm 2 as printed takes in expectation at least f_n(E[N(B − 1)]) samples with n Table 1's number of "
        "features: census ≥ 22.4 / 48.5, splice ≥ 21.6 / 44.5, ocr ≥ 21.2 / 42.8; the published τ are the renewal "
        "count 2(B − max c) + 2/3 ≈ 20.7 / 40.7 of a rule charging every draw (§5.4's 'adds 0.5 … on each round')",
        "derivation",
        "Costs are i.i.d. U[0, 1] and AdaBoostRS's draws ignore them, so the costs of the features in order of first "
        "examination are i.i.d. U[0, 1] and independent of the draws; the loop stops at the draw that brings the "
        "distinct features' cost to B − max c ≥ B − 1, so τ = T_J, T_j the draw at which the j-th distinct feature "
        "appears and J ≥ N(B − 1) independent of (T_j). With S_i the first i distinct features, the wait for a new "
        "one has mean 1/(1 − q(S_i)); a swap of two labels shows a heavier feature is at least as likely in S_i, so "
        "E q(S_i) ≥ i/n (Chebyshev's sum inequality), and Jensen gives E[T_j] ≥ Σ_{i<j} n/(n − i) = f_n(j), convex "
        "in j: E[τ] ≥ f_n(E[N(B − 1)]). E[N(t)] = Σ_k P(S_k < t) (Irwin–Hall) is 20.67 (t = 10) and 40.67 (t = 20); "
        "f_n is decreasing in n, so n = Table 1's count bounds every ensemble of the paper. Computed in rationals "
        "by printed_tau_lower_bound; the bound exceeds the published τ in 7 of the 8 cells (ocr49 at B = 11: 21.19 "
        "against 21.1 is within the published rounding)."),)
    non_reproductions = (NonReproduction(
        "ac-tau", "Table 6, AdaBoostRS_AC column",
        "AdaBoostRS_AC's τ 26.2 / 45.7 (census), 33.8 / 56.2 (splice), 29.4 / 49.3 (ocr17), 33.6 / 55.7 (ocr49) at "
        "B = 11 / 21, with costs U[0, 1]",
        "several times more samples under either rule (the run's numbers are under this key): drawing ∝ α/c favours "
        "the nearly free features that costs U[0, 1] put near 0, and E[1/c] is infinite for c ~ U[0, 1]",
        "Algorithm 3 as printed (a feature charged on its first examination) and every draw charged c(h), on the "
        "same ensembles and costs as the AdaBoostRS columns (which the every-draw rule reproduces), full profile: 50 "
        "trials of 5 000 (splice 2 175) test examples; the numbers of each run are on this page."),)
    defects = (
        Defect("AdaBoostRS whose budget check charges every draw (a repeated feature again)",
               {"rs": D + "RSCountsRepeatsBudget"}, idea=True),
        Defect("AdaBoostRS reading the budget as B − 1", {"rs": D + "RSBudgetOneLess"}, caught=True,
               why="caught by the conformance to AdaBoostRS run before the claim (its sampling check); the claim's "
                   "own test alone does not catch it: it takes about 2 fewer samples, still well above the published "
                   "τ + 1.5 on census"),
    )
    power = (
        "(b) catches a subject whose budget loop charges every draw (its τ falls to the published values), and (a) "
        "a claim-side every-draw rule that drifted from the renewal count. A printed-rule subject whose τ moves by "
        "less than its distance to the published τ (≈ 5 at B = 21 on census) passes."
    )

    def points(self, p):
        pts = []
        for name in p["datasets"]:
            paper = STANDS_FOR.get(name)
            if paper is None:
                continue
            real = name in ("census", "splice")
            for B in p["budgets"]:
                pub = TABLE6[(paper, 11 if B <= 11 else 21)][1]
                pts.append({"table": "tau", "dataset": name, "budget": float(B), "algorithm": "every draw",
                            "value": pub, "decides": real, "side": "ours", "sentence": "§5, Table 6 (line 400)",
                            "paper": f"Table 6: AdaBoostRS τ = {pub:g}",
                            "derivation": "±1.5 samples: a convention between the published τ's spread over the "
                                          "four data sets (0.5 and 1.3) and the renewal count's step per unit of "
                                          "budget (2)",
                            "why": "(a) the erratum's explanation (a rule charging every draw gives the published τ): "
                                   "this project's statement, decided on the paper's data, reported on the "
                                   "stand-ins" if real else "a stand-in for the paper's data: reported"})
        return pts

    def designed_data(self, name):
        return name not in ("census", "splice")

    def paired(self, p):
        return [{"label": f"{name}, B = {B:g}: Algorithm 2 as printed takes more than the published τ + 1.5 samples",
                 "table": f"above:{name}:{B:g}", "better": "published_plus", "worse": "printed",
                 "decides": name in ("census", "splice"), "side": "ours", "relation": SUPERIOR, "margin": 0.1,
                 "statistic": "median", "dataset": name, "sentence": "Algorithm 2 and §5.3, against Table 6",
                 "paper": "Algorithm 2 charges a feature on its first examination only",
                 "derivation": "ε = 0.1 samples bounds NEGLIGIBLE only (a direction): a convention",
                 "why": "(b) the erratum's evidence (this project's statement): decided on the paper's data, reported "
                        "on the stand-ins" if name in ("census", "splice") else "a stand-in: reported"}
                for name in p["datasets"] if STANDS_FOR.get(name) for B in p["budgets"]]

    def reproduce(self, p, task, subjects, seed):
        name = task["dataset"]
        model, _, _, Xte, _, _ = fitted(subjects["rs"], name, p)
        rng = np.random.default_rng(seed)
        blocks = np.array_split(np.arange(Xte.shape[0]), p["cost_blocks"])
        costs = [feature_costs(Xte.shape[1], 0.0, 1.0, rng) for _ in blocks]  # fresh costs per block
        paper = STANDS_FOR.get(name)
        ac = fitted(subjects["ac"], name, p)[0] if task["repetition"] < p["ac_repetitions"] else None
        rows = []
        for B in p["budgets"]:
            printed = every = ac_printed = ac_every = 0.0
            for block, c in zip(blocks, costs, strict=True):
                budgeted_predict(model, Xte[block], who="AdaBoostRS", budget=B, costs=c,
                                 random_state=int_seed(seed.spawn(1)[0]))
                printed += float(np.sum(model.n_samples_)) / Xte.shape[0]
                every += float(np.sum(every_draw_tau(model, len(block), B, c, rng))) / Xte.shape[0]
                if ac is not None:
                    budgeted_predict(ac, Xte[block], who="AdaBoostRS_AC", budget=B, costs=c,
                                     random_state=int_seed(seed.spawn(1)[0]))
                    ac_printed += float(np.sum(ac.n_samples_)) / Xte.shape[0]
                    ac_every += float(np.sum(every_draw_tau(ac, len(block), B, c, rng))) / Xte.shape[0]
            if ac is not None:
                rows += [{"table": "tau_ac", "dataset": name, "budget": float(B), "algorithm": rule, "value": v}
                         for rule, v in (("printed", ac_printed), ("every draw", ac_every))]
            pub = TABLE6[(paper, 11 if B <= 11 else 21)][1] if paper else None
            rows += [{"table": "tau", "dataset": name, "budget": float(B), "algorithm": "printed", "value": printed},
                     {"table": "tau", "dataset": name, "budget": float(B), "algorithm": "every draw", "value": every}]
            if pub is not None:
                rows.append({"table": f"above:{name}:{B:g}", "dataset": name, "budget": float(B), "printed": printed,
                             "published_plus": pub + self.tolerance})
        return rows

    def tables(self, p, table):
        taus = table[table["table"] == "tau"] if "table" in table else table.iloc[0:0]
        frames = []
        for (name, B), part in (taus.groupby(["dataset", "budget"]) if len(taus) else ()):
            paper = STANDS_FOR.get(name)
            row_B = 11 if B <= 11 else 21
            acs = table[(table["table"] == "tau_ac") & (table["dataset"] == name) & (table["budget"] == B)]
            frames.append({"dataset": name, "budget": B, "trials": int(part["repetition"].nunique()),
                           "tau_printed": part[part["algorithm"] == "printed"]["value"].mean(),
                           "tau_every_draw": part[part["algorithm"] == "every draw"]["value"].mean(),
                           "paper_tau": TABLE6[(paper, row_B)][1] if paper else None,
                           "ac_tau_printed": acs[acs["algorithm"] == "printed"]["value"].mean(),
                           "ac_tau_every_draw": acs[acs["algorithm"] == "every draw"]["value"].mean(),
                           "paper_ac_tau": TABLE6[(paper, row_B)][0] if paper else None,
                           "printed_lower_bound_paper_n": float(printed_tau_lower_bound(row_B, PAPER_FEATURES[paper]))
                           if paper else None})
        notes = ["Table 6, AdaBoostRS's τ under both budget rules beside the paper's: " + "; ".join(
            f"{f['dataset']} B = {f['budget']:g}: printed {f['tau_printed']:.1f}, every draw {f['tau_every_draw']:.1f}"
            + (f", paper {f['paper_tau']:g} (printed rule's lower bound at the paper's n: "
               f"{f['printed_lower_bound_paper_n']:.2f})" if f["paper_tau"] else "")
            + f"; AdaBoostRS_AC printed {f['ac_tau_printed']:.1f}, every draw {f['ac_tau_every_draw']:.1f}"
            + (f", paper {f['paper_ac_tau']:g}" if f["paper_ac_tau"] else "") for f in frames)
            + " (AdaBoostRS_AC's columns are reported, not decided: the finding was declared for AdaBoostRS)."]
        notes = notes if frames else []
        return pd.DataFrame(frames), notes

    def errata_evidence(self, p, table):
        cells = [(d, B, TABLE6[(d, B)][1], float(printed_tau_lower_bound(B, PAPER_FEATURES[d])))
                 for d in PAPER_FEATURES for B in (11, 21)]
        text = "; ".join(f"{d} B = {B}: ≥ {lb:.2f} vs {pub:g}" for d, B, pub, lb in cells)
        acs = table[table["table"] == "tau_ac"] if "table" in table else table.iloc[0:0]
        ours = "; ".join(f"{name} B = {B:g}: printed {part[part['algorithm'] == 'printed']['value'].mean():.1f}, "
                         f"every draw {part[part['algorithm'] == 'every draw']['value'].mean():.1f} (paper "
                         f"{TABLE6[(STANDS_FOR[name], 11 if B <= 11 else 21)][0]:g})"
                         for (name, B), part in (acs.groupby(["dataset", "budget"]) if len(acs) else ())
                         if STANDS_FOR.get(name))
        return {"printed-rule": f"Lower bound on Algorithm 2's E[τ] at Table 1's n against the published τ: {text}.",
                "ac-tau": f"AdaBoostRS_AC's mean τ in this run: {ours or 'not run'}."}


@register
class Experiments(BudgetTables):
    id = "reyzin11.exp"
    no_space = ("§5's experiments re-run on the paper's data sets and budgets, beside its printed tables and "
                "figures: no free quantity to search")
    title = "§5 re-run: error against samples (Fig. 1–2), Tables 3–4, and AdaBoostRS_AC against AdaBoostRS (Tables 5–6)"
    reference = "§5, Figures 1–2, Tables 2–6"
    statement = (
        "With AdaBoost run for 500 rounds: AdaBoostRS's error falls roughly exponentially to AdaBoost's as samples "
        "grow (Fig. 1–2) using a fraction of the features (Tables 3–4); with feature costs U[0, 1] and budgets 11 "
        "and 21, averaged over 50 trials, AdaBoostRS takes slightly less than twice the budget in samples, each "
        "adding 0.5 to the cost in expectation, and AdaBoostRS_AC takes more samples and errs less (Tables 5–6)."
    )
    hypotheses = ("AdaBoost with decision stumps, 500 rounds",
                  "feature costs i.i.d. U[0, 1], new ones each trial (and for each of `cost_blocks` blocks of the "
                  "test set within a trial)",
                  "each trial predicts the whole test set, one fresh draw sequence per example")
    interpretation = (
        "census and splice are the paper's UCI data sets (theorycheck.datasets.uci: census binarised to 129 "
        "indicators against the paper's 130, splice 240 against 239; 1 000 training examples, 5 000 and 2 175 test, "
        "Table 1). The NIST ocr data are not available offline; stand-ins (named in every table): "
        "ocr17 and ocr49 are rebuilt from MNIST (2×2 pooling to 14×14, four grey levels) for the paper's ocr17/ocr49; "
        "digits49 (scikit-learn) and synthetic (binary features) have no counterpart; breast_cancer is not run here "
        "(its 285 test examples resolve errors only in steps of 0.35%, and AdaBoost uses 28 features, all examined "
        "well before B = 21). 'Relative error "
        "r' (Tables 3–4) is read as error ≤ (1 + r)·AdaBoost's error (100% = twice AdaBoost's), the first τ of a fine "
        "grid where the mean error over `curve_repetitions` paths reaches it; a vote of 0 counts as half an error. "
        "Table 5's caption says budgets 10 and 20, its rows 11 and 21 (as Table 6): all four are run. A trial draws "
        "fresh costs for each of `cost_blocks` blocks of the test set (the paper draws one set per trial; the means "
        "estimated are the same, the spread between trials smaller, which the sign tests need). The paper "
        "explains Table 6's AdaBoostRS τ by each sample adding 0.5 (a U[0, 1] cost) to the budget, i.e. every sample "
        "examining a new feature; then AdaBoostRS stops after the renewal count 2(B − max c) + 2/3 ≈ 20.7 (B = 11) of "
        "features, whatever the data, which is what its four datasets show (20.6–21.1). Algorithm 2 as printed "
        "lets a repeated feature pass free, so its τ is larger on any data (reyzin11.table6 derives the bound and "
        "records the published τ as an erratum against the printed rule); the data-independent quantity, "
        "the number of distinct features AdaBoostRS examines (the samples "
        "that pay), is what is compared with the published τ. Decided, per dataset: (a) at B = 11 that number is "
        "within the tolerance of the paper's τ (mean of its four datasets); (b) it is closer to it at B = 11 than at "
        "B = 10 (Table 5's rows, not its caption; paired per trial, a direction on the median); at B = 11 and 21, "
        "(c) AdaBoostRS_AC takes more samples than AdaBoostRS (a direction on the median over trials: Table 6 "
        "averages over 50, but τ_AC has no finite mean, E[1/c] being infinite for U[0, 1] costs) and (d) Table 5's "
        "finding, "
        "'AdaBoostRS_AC outperforms AdaBoostRS', a superiority with four outcomes (theorycheck.stats.classify) on the "
        "mean over trials of the paired per-trial error difference RS − AC (Table 5 averages over 50 trials: t "
        "interval, the median beside it; δ/4 split over the deciding "
        "findings) with ε = half the paper's own effect in that row (Table 5: census 0.6 / 0.9, splice 1.3 / 1.2, "
        "ocr17 1.3 / 0.8, ocr49 0.9 / 1.2 points at B = 11 / 21, so ε = 0.3–0.65 points): TIED means the effect is "
        "surely below half the published one; decided on census, splice, ocr17 and ocr49 at B = 11 and 21 (the "
        "stand-ins included, as the paper states it of all four; on a stand-in (ocr17, ocr49 rebuilt from MNIST, "
        "designed) a result against the paper is a simulation finding, INCONCLUSIVE, never NOT REPRODUCED), "
        "reported on the other sets with ε = 0.5 point; "
        "(e) Table 3's last column, which is also Figure 1's 'asymptotes to AdaBoost's error' (ocr17) and Figure 2 "
        "(splice): after tau_max draws (more than the paper's largest entry, 1 020) AdaBoostRS's error exceeds "
        "AdaBoost's full vote by at most 10% of the latter, decided from the (example, path) pairs of the curves by "
        "Clopper–Pearson bounds on the pairs above and below the full vote (δ/4 split over census, splice, ocr17 "
        "and ocr49), reported on the other sets (the full profile draws a curve in each of its 50 trials: a first run "
        "with 5 left splice, ocr17 and ocr49 undecided, intervals 0.4–1.8 points wide, with the rule unchanged). "
        "The points and (a)–(c) share the other δ/2. "
        "At B = 20/21 the renewal count (≈ 41) nears the number "
        "of features some stand-in ensembles use, where it stops being data-independent: the same comparisons there, "
        "τ itself, the rest of Tables 3–4 and the figures' slopes are reported beside the paper's numbers, not "
        "decided. The ocr stand-ins have 196 features against the paper's 402: Table 4's percentages are of "
        "different totals, so the table also gives counts (the paper's percentages times 402 beside ours times "
        "196)."
    )
    subjects = {"rs": AdaBoostRS, "ac": AdaBoostRSAC}
    protocols = {"rs": SAMPLED_ENSEMBLE, "ac": SAMPLED_ENSEMBLE}
    parameters = {**BudgetTables.parameters, **DATA_PARAMETERS, "budgets": Grid(Positive(), distinct=2),
                  "curve_repetitions": Integer(0), "tau_max": Integer(2), "resolution": Resolution(zero=True),
                  "delta": Probability(), "cost_blocks": Integer(1)}
    base = {"datasets": ("synthetic",), "rounds": 500, "n_train": 1000, "n_test": 1000, "split_seed": 0,
            "repetitions": 50, "budgets": (10.0, 11.0, 20.0, 21.0), "curve_repetitions": 2, "tau_max": 2000,
            "resolution": 0.01, "delta": 1e-3, "cost_blocks": 10}
    profiles = {"quick": {}, "full": {"datasets": ("census", "splice", "ocr17", "ocr49", "synthetic", "digits49"),
                                      "n_test": 5000, "curve_repetitions": 50, "tau_max": 4000, "cost_blocks": 25}}
    keys = ("table", "dataset", "budget", "algorithm")
    tolerance = 1.5
    tolerance_reason = (
        "±1.5 features around the paper's AdaBoostRS τ at B = 11 (20.75, the mean of its four datasets, Table 6). "
        "Its datasets spread over 20.6–21.1; the renewal count 2(B − max c) + 2/3 moves with max c (the dearest "
        "feature the ensemble uses, ≈ 1 − 1/(features + 1)) by a few tenths; one budget step moves it by 2, so ±1.5 "
        "still tells B = 10 from B = 11. Points beside Table 6's own rows (stand-ins) are reported with ±1.5 too.")
    defects = (
        Defect("AdaBoostRS whose budget check counts repeated features", {"rs": D + "RSCountsRepeatsBudget"}),
        Defect("AdaBoostRS_AC sampling ∝ α (no cost correction), on census", {"ac": D + "ACSamplerUncorrected"},
               overrides={"datasets": "census", "curve_repetitions": "0"}, idea=True),
        Defect("AdaBoostRS whose vote stops changing after 100 draws, on census", {"rs": D + "RSFrozenAfter100"},
               overrides={"datasets": "census", "repetitions": "2", "n_test": "5000", "cost_blocks": "2"}),
        Defect("AdaBoostRS_AC whose loop runs while k < B (over budget)", {"ac": D + "ACLoopWhileUnderBudget"},
               caught=True, why="caught by the conformance to AdaBoostRS_AC run before the claim (its sampling and "
                                "attributes checks); the claim's own test alone does not catch it: it takes even more "
                                "samples than AdaBoostRS_AC and errs no more; spending is "
                                "checked by reyzin11.deterministic, not here"),
        Defect("AdaBoostRS that breaks a tied vote by the full vote (reads every stump's feature, reports the "
               "drawn ones)", {"rs": D + "RSFullVoteTies"},
               overrides={"repetitions": "2", "curve_repetitions": "0", "cost_blocks": "2"}),
    )
    power = (
        "Decided points catch a budget rule that changes how many features AdaBoostRS pays for by more than the "
        "tolerance (charging a repeated feature again, reading B as 10), and an AdaBoostRS_AC that does not take more "
        "samples than AdaBoostRS, or whose error reverses Table 5's finding on census (sampling ∝ α without the cost "
        "correction: REVERSED), and an AdaBoostRS whose vote stops approaching AdaBoost's (one frozen after 100 "
        "draws, on census: (e) FAILs). A replaced predictor seen to read more features of a test example than it "
        "reports (through a watched view of X: one that breaks ties by the full vote) FAILs at its first prediction, "
        "exactly. Error differences "
        "below the resolution, everything at B = 20/21 but (c)–(d), and Tables 3–4 are reported, not decided: our "
        "data are not the paper's."
    )

    def points(self, p):
        pts = []
        for name in p["datasets"]:
            paper = STANDS_FOR.get(name)
            for B in p["budgets"]:
                row_B = 11 if B <= 11 else 21
                pts.append({"table": "features", "dataset": name, "budget": float(B), "algorithm": "AdaBoostRS",
                            "value": _rs_tau(row_B), "decides": B == 11.0, "side": "ours",
                            "sentence": "§5, lines 398 and 400 (Table 6)",
                            "paper": "each sample adds 0.5 to the cost: τ slightly less than twice the budget",
                            "derivation": "±1.5 features: a convention (one unit of budget moves the renewal count "
                                          "by 2, the published τ spread over 0.5)",
                            "why": "(a) the data-independent count that explains Table 6 (this project's reading): "
                                   "decided at B = 11 on every data set (it does not depend on the data), reported "
                                   "elsewhere" if B == 11.0 else "B ≠ 11: reported"})
                if paper:
                    for a, label in ((1, "AdaBoostRS"), (0, "AdaBoostRS_AC")):
                        pts.append({"table": "tau", "dataset": name, "budget": float(B), "algorithm": label,
                                    "value": TABLE6[(paper, row_B)][a], "decides": False, "side": "paper",
                                    "sentence": "§5, Table 6 (line 400)",
                                    "why": "τ itself: Algorithm 2 as printed differs from the published τ "
                                           "(reyzin11.table6's erratum), so reported"})
        return pts

    def designed_data(self, name):
        return name not in ("census", "splice")

    def paired(self, p):
        out = []
        rows = {"side": "ours", "relation": SUPERIOR, "margin": 0.1, "statistic": "median",
                "sentence": "Table 5's caption (line 386) against its rows and Table 6 (budgets 11 and 21)",
                "paper": "Table 5's caption says budgets 10 and 20, its rows and Table 6 say 11 and 21",
                "derivation": "ε = 0.1 feature bounds NEGLIGIBLE only (a direction): a convention"}
        for name in p["datasets"]:
            out.append({**rows, "label": f"{name}: AdaBoostRS's features examined are closer to the paper's τ at "
                                         "B = 11 than at B = 10", "table": f"budgets:{name}",
                        "better": "distance_11", "worse": "distance_10", "decides": True, "dataset": name,
                        "why": "(b) this project's reading of the budgets (rows, not caption): decided"})
            out.append({**rows, "label": f"{name}: the same at B = 21 against B = 20", "table": f"budgets:{name}",
                        "better": "distance_21", "worse": "distance_20", "decides": False, "dataset": name,
                        "why": "at B = 20/21 the renewal count nears the features some ensembles use: reported"})
            for B in (11.0, 21.0):
                out.append({"label": f"{name}, B = {B:g}: AdaBoostRS_AC takes more samples than AdaBoostRS",
                            "table": f"pair:{name}:{B:g}", "better": "tau_rs", "worse": "tau_ac", "decides": True,
                            "side": "paper", "relation": SUPERIOR, "margin": 0.1, "statistic": "median",
                            "dataset": name, "sentence": "§5, line 398 (Table 6, line 400)",
                            "paper": "AdaBoostRS_AC \"is able to use significantly more samples\"",
                            "derivation": "ε = 0.1 samples bounds NEGLIGIBLE only (a direction): a convention",
                            "estimand": "the median of the paired per-trial difference, not the mean Table 6 "
                                        "averages: with U[0, 1] costs E[1/c] is infinite, so τ_AC has no finite mean "
                                        "and no interval for one is calibrated (issue 53 first declared the mean with "
                                        "a t interval; corrected after a quick run for this reason, not its outcome)",
                            "why": "(c) \"significantly more\": the direction decides (its size is Table 6's, "
                                   "which Algorithm 2 as printed does not reach: reyzin11.table6); on a stand-in a "
                                   "result against it is a simulation finding"})
        return out

    def error_findings(self, p):
        """(label, table, margin, decides) of Table 5's "AdaBoostRS_AC outperforms AdaBoostRS" per dataset and
        budget 11, 21: ε is half the paper's effect in that row (0.5 point where the paper has no row)."""
        out = []
        for name in p["datasets"]:
            paper = STANDS_FOR.get(name)
            for B in (11.0, 21.0):
                ac, rs = TABLE5[(paper, int(B))] if paper else (None, None)
                margin = (rs - ac) / 200 if paper else 0.005
                out.append((f"{name}, B = {B:g}: AdaBoostRS_AC errs less than AdaBoostRS (Table 5)",
                            f"pair:{name}:{B:g}", margin, paper is not None))
        return out

    def reach_findings(self, table, level):
        """Table 3's last column (and Figures 1–2's "asymptotes to AdaBoost's error"): after ``tau_max``
        draws, AdaBoostRS's error exceeds AdaBoost's full vote by at most 10% of the latter. Per
        (example, path) pair the excess e = err_sampled − err_full lies in {−1, −½, 0, ½, 1} (a tied
        vote is half an error); with A pairs above 0, W of them at 1, and Z below 0, the mean of e is at
        most A/N and at least (W − Z)/N. The pairs are independent given the ensemble (fresh draws per
        example and path), so A, W and Z are sums of independent Bernoullis, whose tails are no heavier
        than a binomial's with the same mean (Hoeffding 1956, Theorem 4). Two bounds on the mean of e,
        each at ``level``/2, the tighter one used: Clopper–Pearson on those counts (``level``/6 each:
        tight when few pairs differ, as on data AdaBoost nearly separates), and the empirical
        Bernstein interval of e itself (tight when the differences cancel). PASS if the upper bound
        is within 10% of AdaBoost's error, FAIL if the lower bound is beyond it, else INCONCLUSIVE."""
        out = []
        reach = table[table["table"] == "reach"] if "table" in table else table.iloc[0:0]
        for name, part in (reach.groupby("dataset") if len(reach) else ()):
            n, above, whole, below = (int(part[c].sum()) for c in ("examples", "above", "whole", "below"))
            full = float(part["full_error"].iloc[0])
            bound = 0.1 * full
            counted = stats.pool_moments(part["examples"], part["mean"], part["var"])
            spread = stats.bernstein_from_moments(*counted, -1.0, 1.0, level / 2)
            high = min(stats.binomial_interval(above, n, level / 6).high, spread.high)
            low = max(stats.binomial_interval(whole, n, level / 6).low
                      - stats.binomial_interval(below, n, level / 6).high, spread.low)
            outcome = stats.classify(-high, -low, stats.NON_INFERIOR, bound) if bound > 0 else (
                stats.REPRODUCED if high <= 0 else stats.REVERSED if low > 0 else stats.UNDECIDED)
            paper = STANDS_FOR.get(name)
            out.append((name, paper is not None, outcome,
                        f"{name}, τ = {int(part['tau'].iloc[0])}: AdaBoostRS's error exceeds AdaBoost's "
                        f"({100 * full:.2f}%) by a mean in [{100 * low:.3f}, {100 * high:.3f}] points over {n} "
                        f"example-paths (Clopper–Pearson and empirical Bernstein, δ = {level:.3g}), against 10% of "
                        f"AdaBoost's error, {100 * bound:.3f} points: {outcome}"
                        + (f" (Table 3: the paper's {paper} reached 10% at {TABLE3[paper][3]} samples)" if paper
                           else " (no counterpart in the paper: reported, not decided)"),
                        stats.Interval(-(low + high) / 2, -high, -low, level, "Clopper–Pearson ∩ empirical Bernstein "
                                       "on the excess error, negated (positive when AdaBoostRS is closer)", n),
                        bound))
        return out

    def decide(self, p, table):
        evidence = super().decide({**p, "delta": p["delta"] / 2}, table)
        found = self.error_findings(p)
        level = p["delta"] / 4 / max(sum(f[3] for f in found), 1)
        verdicts, findings, lines = [evidence.verdict], [], []
        for label, name, margin, decides in found:
            part = table[table["table"] == name] if "table" in table else table.iloc[0:0]
            if not len(part) or "err_rs" not in part:
                if decides:
                    verdicts.append(stats.INCONCLUSIVE)
                lines.append(f"- {label}: UNDECIDED, not run")
                continue
            diff = (part.sort_values("repetition")["err_rs"] - part.sort_values("repetition")["err_ac"]).to_numpy()
            if diff.size < stats.min_samples_median(level):
                if decides:
                    verdicts.append(stats.INCONCLUSIVE)
                lines.append(f"- {label}: UNDECIDED, {diff.size} trials (the sign test needs "
                             f"{stats.min_samples_median(level)})")
                continue
            # Table 5 prints the gap: a magnitude, ε = half of it; Table 5 averages over 50 trials: the mean
            dataset = name.split(":")[1]
            result = stats.decide_sequential(diff, stats.SUPERIOR, margin, level, (diff.size,),
                                             question=stats.MAGNITUDE, statistic="t")
            if decides:
                verdicts.append(self.outcome_verdict(result.outcome, "paper", dataset, self.with_reference(table)))
            paper = STANDS_FOR.get(dataset)
            key = (paper, int(float(name.split(":")[2]))) if paper else None
            f = {"dataset": dataset, "sentence": "§5, line 382 and Table 5 (line 386)",
                 "source": "printed" if key else "convention",
                 "paper": f"\"AdaBoostRSAC outperforms AdaBoostRS\"; Table 5: AC {TABLE5[key][0]}%, RS "
                          f"{TABLE5[key][1]}%" if key else "",
                 "derivation": f"ε = half Table 5's printed gap in this row, ({TABLE5[key][1]} − {TABLE5[key][0]})/2 "
                               f"points = {margin:.4g}" if key else "no row in Table 5: ε = 0.5 point, a convention",
                 "estimand": "Table 5 averages the error over 50 trials: the mean of the paired per-trial "
                             "difference RS − AC (each trial's error a mean over thousands of test examples, so the t "
                             "interval's normal approximation is good), the median beside it",
                 "why": ("Table 5 prints the gap: a magnitude, ε = half of it"
                         + ("; on a stand-in for the paper's data a result against it is a simulation finding"
                            if self.designed_data(dataset) else "")) if decides
                 else "no counterpart in Table 5: reported"}
            findings.append(self._record(label, result, stats.SUPERIOR, margin, decides, f, "t",
                                         self.with_reference(table), diff))
            lines.append(f"- {label}{'' if decides else ' (reported, not decided)'}: {result.outcome}. {result.reason}")
        reach = self.reach_findings(table, p["delta"] / 4 / max(sum(d in STANDS_FOR and STANDS_FOR[d] is not None
                                                                    for d in p["datasets"]), 1))
        for name, decides, outcome, _, interval, bound in reach:
            if decides:
                verdicts.append(self.outcome_verdict(outcome, "paper", name, self.with_reference(table)))
            result = stats.SequentialResult(outcome, stats.OUTCOME_VERDICT[outcome], interval, interval.n,
                                            (interval.n,), False, "", "", stats.DIRECTION)
            f = {"dataset": name, "sentence": "§5, line 363 and Table 3's 10% column; Figures 1–2",
                 "source": "printed", "paper": "AdaBoostRS's error reaches within 10% of AdaBoost's",
                 "derivation": f"ε = 10% of AdaBoost's error (Table 3's column) = {bound:.4g}",
                 "estimand": "the mean excess error over (example, path) pairs after tau_max draws, bounded by "
                             "Clopper–Pearson and empirical Bernstein (exact)",
                 "why": "(e) decided on the paper's data and stand-ins with a row in Table 3 (on a stand-in a result "
                        "against it is a simulation finding)" if decides else "no counterpart in Table 3: reported"}
            findings.append(self._record(f"{name}: AdaBoostRS's error within 10% of AdaBoost's after tau_max draws",
                                         result, NON_INFERIOR, bound, decides, f, "mean",
                                         self.with_reference(table)))
        evidence.verdict = stats.combine(verdicts)
        evidence.findings = [*evidence.findings, *findings]
        evidence.decision += ("\n\nTable 5's finding (a magnitude, ε = half the paper's effect, zone [ε/2, ε]: "
                              "REPRODUCED above ε/2, TIED below ε, REVERSED below 0; NOT REPRODUCED with the reference "
                              "implementations on the paper's data, INCONCLUSIVE on a stand-in (a simulation "
                              "finding); the mean over trials "
                              f"of the paired difference RS − AC (Table 5 averages over 50 trials; t interval, the "
                              f"median beside it) at δ/4 split, {level:.3g} each):\n"
                              + "\n".join(lines)
                              + "\n\nTable 3's 10% column and Figures 1–2 (AdaBoostRS's error reaches AdaBoost's; δ/4 "
                              "split over the paper's data sets run):\n"
                              + "\n".join(f"- {line}" for _, _, _, line, _, _ in reach))
        return evidence

    def check_params(self, p):
        missing = {10.0, 11.0, 20.0, 21.0} - set(p["budgets"])
        if missing:
            from theorycheck.validation import ParameterError
            raise ParameterError("budgets must include 10, 11, 20 and 21 (Table 5's two readings)")

    def upper(self, p):
        return math.inf

    def reproduce(self, p, task, subjects, seed):
        name, r = task["dataset"], task["repetition"]
        rs, _, _, Xte, yte, info = fitted(subjects["rs"], name, p)
        ac = fitted(subjects["ac"], name, p)[0]
        rng = np.random.default_rng(seed)
        blocks = np.array_split(np.arange(Xte.shape[0]), p["cost_blocks"])
        costs = [feature_costs(Xte.shape[1], 0.0, 1.0, rng) for _ in blocks]  # fresh costs per block of examples
        rows, across = [], {"table": f"budgets:{name}", "dataset": name}
        for B in p["budgets"]:
            pair = {"table": f"pair:{name}:{B:g}", "dataset": name, "budget": float(B)}
            for label, model in (("AdaBoostRS", rs), ("AdaBoostRS_AC", ac)):
                got = {"wrong": 0.0, "tau": 0.0, "features": 0.0, "exhausted": 0.0, "spent": 0.0}
                for block, c in zip(blocks, costs, strict=True):
                    pred = budgeted_predict(model, Xte[block], who=label, budget=B, costs=c,
                                            random_state=int_seed(seed.spawn(1)[0]))
                    got["wrong"] += float(np.sum(pred != yte[block]))
                    got["tau"] += float(np.sum(model.n_samples_))
                    got["features"] += float(np.sum(model.n_features_examined_))
                    got["exhausted"] += float(np.sum(model.exhausted_))
                    got["spent"] = max(got["spent"], float(np.max(model.cost_spent_)))
                n = Xte.shape[0]
                err, tau, examined = got["wrong"] / n, got["tau"] / n, got["features"] / n
                short = "rs" if label == "AdaBoostRS" else "ac"
                pair.update({f"tau_{short}": tau, f"err_{short}": err, f"features_{short}": examined,
                             f"exhausted_{short}": got["exhausted"] / n, f"spent_max_{short}": got["spent"]})
                rows += [{"table": table, "dataset": name, "budget": float(B), "algorithm": label, "value": value}
                         for table, value in (("tau", tau), ("error", err), ("features", examined))]
            across[f"distance_{B:g}"] = abs(pair["features_rs"] - _rs_tau(11 if B <= 11 else 21))
            rows.append(pair)
        rows.append(across)
        if r < p["curve_repetitions"]:
            taus = np.unique(np.concatenate([np.arange(1, 65), np.geomspace(64, p["tau_max"], 60).round()])).astype(
                np.int64)
            path = sampled_path(rs, Xte, taus, who="AdaBoostRS", random_state=int_seed(seed.spawn(1)[0]))
            y = np.where(yte == rs.classes_[1], 1.0, -1.0)
            signed = y[:, None] * path.votes
            err = np.mean(np.where(signed < 0, 1.0, np.where(signed == 0, 0.5, 0.0)), axis=0)
            pct = 100.0 * np.mean(path.n_features, axis=0) / Xte.shape[1]
            full = rs.decision_function(Xte) * y
            err_last = np.where(signed[:, -1] < 0, 1.0, np.where(signed[:, -1] == 0, 0.5, 0.0))
            excess = err_last - np.where(full < 0, 1.0, np.where(full == 0, 0.5, 0.0))
            rows.append({"table": "reach", "dataset": name, "tau": int(taus[-1]), "examples": int(y.size),
                         "above": int(np.sum(excess > 0)), "whole": int(np.sum(excess >= 1.0)),
                         "below": int(np.sum(excess < 0)), "mean": float(excess.mean()),
                         "var": float(excess.var(ddof=1)),
                         "full_error": info["full_error"]})
            rows += [{"table": "curve", "dataset": name, "tau": int(t), "value": float(e), "features_pct": float(f),
                      "full_error": info["full_error"], "features_total": int(Xte.shape[1]),
                      "features_used": int(np.unique(rs.features_).size)}
                     for t, e, f in zip(taus, err, pct, strict=True)]
        return rows

    # -------------------------------------------------------------- the tables, beside the paper's
    def tables(self, p, table):
        notes, frames = [], []
        curve = table[table["table"] == "curve"] if "table" in table else table.iloc[0:0]
        for name, part in (curve.groupby("dataset") if len(curve) else ()):
            mean = part.groupby("tau", as_index=False).agg(error=("value", "mean"), features_pct=("features_pct",
                                                                                                  "mean"))
            full = float(part["full_error"].iloc[0])
            total = int(part["features_total"].iloc[0])
            paper = STANDS_FOR.get(name)
            cells = []
            for r, rel in enumerate(RELATIVE):
                hit = mean[mean["error"] <= (1 + rel) * full + 1e-12]
                tau = int(hit["tau"].iloc[0]) if len(hit) else None
                pct = float(hit["features_pct"].iloc[0]) if len(hit) else None
                frames.append({"table": "3-4", "dataset": name, "relative": f"{int(rel * 100)}%", "samples": tau,
                               "features_pct": pct, "adaboost_error_pct": 100 * full,
                               "paper_samples": TABLE3[paper][r] if paper else None,
                               "paper_features_pct": TABLE4[paper][r] if paper else None,
                               "features_count": None if pct is None else round(pct * total / 100, 1),
                               "paper_features_count": (round(TABLE4[paper][r] * PAPER_FEATURES[paper] / 100, 1)
                                                        if paper else None)})
                cells.append(f"{int(rel * 100)}%: {tau if tau else '>' + str(p['tau_max'])} samples, "
                             f"{pct:.1f}% features" if pct is not None else f"{int(rel * 100)}%: not reached")
            tail = mean[mean["tau"] >= mean["tau"].max() / 4]
            excess = np.clip(mean["error"].to_numpy() - full, 1e-6, None)
            slope = float(np.polyfit(mean["tau"].to_numpy(dtype=float)[:64], np.log(excess[:64]), 1)[0])
            notes.append(f"Tables 3–4, {name}" + (f" (stand-in for the paper's {paper})" if paper else " (no "
                         "counterpart in the paper)") + f": AdaBoost error {100 * full:.2f}% (paper's Table 2: "
                         + (f"{TABLE2[paper]}%" if paper else "—") + "); " + "; ".join(cells)
                         + (". Paper: " + ", ".join(f"{int(100 * r)}%: {s} samples, {f}%" for r, s, f in
                                                     zip(RELATIVE, TABLE3[paper], TABLE4[paper], strict=True))
                            if paper else "")
                         + f". Figure 1–2: the excess error over AdaBoost's falls like exp({slope:.3g}·τ) over τ ≤ 64; "
                         f"at τ ≥ {int(tail['tau'].min())} it is {100 * float(tail['error'].mean() - full):.2f} "
                         "percentage points on average.")
            frames += [{"table": "figure", "dataset": name, "tau": int(t), "error_pct": 100 * float(e),
                        "features_pct": float(f), "adaboost_error_pct": 100 * full}
                       for t, e, f in zip(mean["tau"], mean["error"], mean["features_pct"], strict=True)]
        pairs = table[table["table"].astype(str).str.startswith("pair:")] if "table" in table else table.iloc[0:0]
        for (name, B), part in (pairs.groupby(["dataset", "budget"]) if len(pairs) else ()):
            paper = STANDS_FOR.get(name)
            key = (paper, 11 if B in (10.0, 11.0) else 21) if paper else None
            frames.append({"table": "5-6", "dataset": name, "budget": B, "trials": len(part),
                           "error_ac_pct": 100 * part["err_ac"].mean(), "error_rs_pct": 100 * part["err_rs"].mean(),
                           "tau_ac": part["tau_ac"].mean(), "tau_rs": part["tau_rs"].mean(),
                           "spent_max_rs": part["spent_max_rs"].max(), "spent_max_ac": part["spent_max_ac"].max(),
                           "features_rs": part["features_rs"].mean(), "features_ac": part["features_ac"].mean(),
                           "exhausted_rs": part["exhausted_rs"].mean(), "exhausted_ac": part["exhausted_ac"].mean(),
                           "paper_error_ac_pct": TABLE5[key][0] if key else None,
                           "paper_error_rs_pct": TABLE5[key][1] if key else None,
                           "paper_tau_ac": TABLE6[key][0] if key else None,
                           "paper_tau_rs": TABLE6[key][1] if key else (_rs_tau(11 if B <= 11 else 21))})
        six = [f for f in frames if f["table"] == "5-6"]
        if six:
            notes.append("Tables 5–6 (ours beside the paper's; paper rows only for stand-ins, AdaBoostRS's τ beside "
                         "the "
                         "mean of the paper's four datasets otherwise): " + "; ".join(
                             f"{f['dataset']} B = {f['budget']:g}: error AC {f['error_ac_pct']:.1f}% / RS "
                             f"{f['error_rs_pct']:.1f}%" + (f" (paper {f['paper_error_ac_pct']} / "
                                                             f"{f['paper_error_rs_pct']})" if f['paper_error_ac_pct']
                                                            else "")
                             + f", τ AC {f['tau_ac']:.1f} / RS {f['tau_rs']:.1f} (paper "
                             + (f"{f['paper_tau_ac']} / " if f['paper_tau_ac'] else "RS ")
                             + f"{f['paper_tau_rs']:.4g}), distinct features RS {f['features_rs']:.1f}" for f in six)
                         + ".")
        return pd.DataFrame(frames), notes

    def figure(self, p, table):
        return Plot(x="tau", y="error_pct", theory="adaboost_error_pct", hue="dataset", kind="line", logx=True,
                    xlabel="samples τ (Fig. 1–2)", ylabel="AdaBoostRS error (%)",
                    theory_label="AdaBoost's full vote")


@register
class Deterministic(BudgetComparison):
    id = "reyzin11.deterministic"
    no_space = ("a comparison on the paper's data sets and budgets (§6's open problem, asked of its setting), and "
                "the search has no margin for a comparison yet")
    title = "AdaBoostRS_AC against §6's deterministic top-α/c rule at equal budget"
    reference = "§6 (second open problem), Algorithm 3"
    statement = (
        "At the same budget and feature costs, AdaBoostRS_AC and the deterministic rule that takes the stumps of "
        "largest α/c(h) both spend at most the budget on every example; which one errs less is reported per dataset "
        "and budget (§6 says only that the deterministic rule 'sometimes outperforms' sampling, without theory)."
    )
    hypotheses = ("costs i.i.d. U(cost_low, cost_high] per trial, the same for both", "the same budget B for both")
    interpretation = (
        "No verdict rests on who wins: per (dataset, budget) the paired difference of test errors (deterministic − "
        "AC, per trial) is reported with its order-statistic (sign-test) interval for the median and a winner where "
        "the interval excludes 0. The "
        "verdict is pathwise, on every test example of every trial: the cost of the distinct features each reports "
        "as examined (recomputed from the costs, a repeated feature counted once) is ≤ B, and its vote is unchanged "
        "when every feature it did not report is overwritten by +10³⁰⁰ and by −10³⁰⁰ (beyond every threshold, with "
        "the same random stream), so it "
        "read no more than it reports. The deterministic rule is AdaBoostDeterministic's 'greedy' reading (a stump "
        "that does not fit is skipped); Algorithm 3's loop keeps k + max c(h) < B, so it stops with budget unspent."
    )
    subjects = {"a": AdaBoostRSAC, "b": AdaBoostDeterministic}
    protocols = {"a": BUDGETED_ENSEMBLE, "b": BUDGETED_ENSEMBLE}
    labels = ("AdaBoostRS_AC", "deterministic top-α/c")
    statistic = "median"
    parameters = {**BudgetComparison.parameters, "budgets": Grid(Positive(), distinct=1)}
    base = {"datasets": ("breast_cancer", "synthetic"), "rounds": 500, "n_train": 1000, "n_test": 1000,
            "split_seed": 0, "repetitions": 16, "delta": 1e-3, "resolution": 0.01, "margin": 0.01, "cost_low": 0.0,
            "cost_high": 1.0, "budgets": (11.0, 21.0)}
    profiles = {"quick": {}, "full": {"datasets": ALL,
                                      "repetitions": 16, "n_test": 2000},
                "paper": {"datasets": ALL,
                          "repetitions": 30, "n_test": 2000}}
    defects = (
        Defect("AdaBoostRS_AC whose loop runs while k < B", {"a": D + "ACLoopWhileUnderBudget"}, idea=True),
        Defect("deterministic rule that takes a stump when k ≤ B before adding it",
               {"b": D + "DeterministicOvershoot"}),
        Defect("deterministic rule that reports only the first feature examined", {"b": D + "DeterministicHides"}),
        Defect("AdaBoostRS_AC whose budget check counts repeated features", {"a": D + "ACCountsRepeatsBudget"},
               caught=True, why="caught by the conformance to AdaBoostRS_AC run before the claim (its sampling "
                                "check); the claim's own test alone does not catch it: it spends less than allowed, "
                                "which the budget check permits; its error shows it"),
        Defect("AdaBoostRS_AC that breaks a tied vote by the full vote (reads every stump's feature, reports the "
               "drawn ones; its recorded vote is the sampled one, so overwriting unreported features leaves it)",
               {"a": D + "ACFullVoteTies"}, overrides={"repetitions": "2"}),
    )
    power = (
        "One example over budget, or one vote that depends on a feature the contender did not report, is a certain "
        "FAIL, and so is a replaced contender seen to read, through a watched view of X, more features of a test "
        "example than it reports (one that breaks ties by the full vote: its recorded vote does not move when the "
        "unreported features are overwritten, but its reads are observed). A contender that spends less than "
        "allowed (a budget check counting repeated features) passes: the "
        "claim is an upper bound on spending. Who wins is not decided, so no defect that only changes accuracy is "
        "caught here."
    )

    def budgets(self, p):
        return tuple(p["budgets"])
