"""Exact checks of Reyzin (ICML 2011), Boosting on a budget: Theorem 5 (AdaBoostRS_AC's vote is
unbiased) and the balls-and-bins count of §3.3, each enumerated in rationals on small instances
and checked by Monte Carlo on ensembles AdaBoost trained on real data."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorycheck.algorithms import AdaBoostRS, AdaBoostRSAC
from theorycheck.claims import Defect, Hypothesis, Measurement, Plot, register
from theorycheck.kinds.ensemble import (
    SAMPLED_ENSEMBLE,
    ExactAndSampled,
    ac_vote_law,
    certified_below_exp,
    feature_costs,
    fitted,
    int_seed,
    rs_vote_law,
    sampled_path,
    unsampled_law,
)
from theorycheck.protocols import Contract, Function, Output
from theorycheck.spaces import Int, Space
from theorycheck.validation import Grid, Integer, Number, Positive

D = "tests.defects_reyzin11:"
ALL = ("breast_cancer", "digits49", "synthetic", "ocr17", "ocr49", "census", "splice")


def _rational(rng, low: int, high: int, q_max: int) -> Fraction:
    q = int(rng.integers(1, q_max + 1))
    return Fraction(int(rng.integers(low * q, high * q + 1)), q)


def _positive(rng, spread: int) -> Fraction:
    return Fraction(int(rng.integers(1, spread + 1)), int(rng.integers(1, spread + 1)))


def _mean(law) -> Fraction:
    return sum((Fraction(pr) * Fraction(v) for pr, v in law), Fraction(0))


def _sign(v) -> int:
    return (v > 0) - (v < 0)


@register
class Thm5(ExactAndSampled):
    observed_label = 'the largest absolute bias of the estimate over the cases enumerated'
    id = "reyzin11.thm5"
    space = Space(
        dims={"T_max": Int(1, 5), "tau_max": Int(1, 5), "instances": Int(0, 10), "spread": Int(1, 12)},
        why=("the theorem's ∀ T, τ and ensembles: every (T, τ) up to (T_max, tau_max) enumerated with random "
             "rational ensembles"))
    title = "AdaBoostRS_AC's vote is an unbiased estimate of the scaled full vote"
    reference = "Theorem 5 (and its proof), Algorithm 3"
    statement = (
        "For every example x and every number τ ≥ 1 of draws, the vote v_τ of Algorithm 3 (hypotheses drawn with "
        "p(i) ∝ α_i/c(h_i), each adding ±c(h_i)) has E[v_τ] = τ·Σ_t α_t h_t(x) / Σ_t (α_t/c(h_t)), so its "
        "expectation has the sign of the full AdaBoost vote."
    )
    hypotheses = ("α_t > 0", "feature costs c_j > 0 (§4 assumes c_j ≥ 1; the experiments draw them from [0, 1])",
                  "τ fixed in advance (the theorem's statement)")
    interpretation = (
        "The theorem states only the sign; its proof derives the expectation itself, which is what is checked "
        "(the sign follows). τ is fixed, as stated; under the budget rule τ is a stopping time and Wald's identity "
        "gives E[v_τ] = E[τ]·(the same per-draw mean), not checked here. Exact part: for every T ≤ T_max and "
        "τ ≤ tau_max, on random rational ensembles (α_t = p/q, votes ±1, stump costs ≥ 1 and in (0, 1]), ensembles "
        "whose full vote is 0, equal costs and one lumpy α, the subject `ac_law` (the law of v_τ in rationals) must "
        "be a distribution whose mean is exactly the value above; `rs_law` (Algorithm 2, p ∝ α, votes ±1) must have "
        "mean τ·Σαh/Σα (the proof of Corollary 3: each draw has mean the margin); and with equal costs c the AC law "
        "must be the RS law scaled by c (§4: 'if all costs are equal, AdaBoostRS_AC becomes AdaBoostRS'). Sampled "
        "part, per dataset: the subject `ensemble` (AdaBoostRS_AC) is trained (`rounds` rounds of AdaBoost with "
        "stumps on a fixed split), feature costs are drawn U(cost_low, cost_high]; (i) the one-draw law the subject "
        "declares, Σ_i p(i)·inc(i)·h_i(x), must equal Σα h/Σ(α/c) on every test example up to rounding (pathwise); "
        "(ii) its sampler is run `mc_samples` times on `mc_examples` test examples (those of smallest |margin| "
        "and random others), and at each τ of `mc_taus` the mean of v_τ/τ must equal Σαh/Σ(α/c) "
        "(stats.decide_mean_equals on the range [min_t c(h_t)h_t(x), max_t c(h_t)h_t(x)] of one draw, at δ over "
        "the number of such tests); a v_τ/τ outside that range is a certain FAIL."
    )
    subjects = {"ac_law": ac_vote_law, "rs_law": rs_vote_law, "ensemble": AdaBoostRSAC}
    protocols = {"ac_law": Contract(Function, call=("alpha", "votes", "costs", "tau"), returns=Output("law")),
                 "rs_law": Contract(Function, call=("alpha", "votes", "tau"), returns=Output("law")),
                 "ensemble": SAMPLED_ENSEMBLE}
    parameters = {"T_max": Integer(1, 6), "tau_max": Integer(1, 6), "instances": Integer(0), "spread": Integer(1),
                  **ExactAndSampled.sampled_parameters, "mc_examples": Integer(1), "mc_samples": Integer(2),
                  "mc_taus": Grid(Integer(1), distinct=1), "cost_low": Number(0.0), "cost_high": Positive()}
    base = {"T_max": 4, "tau_max": 4, "instances": 4, "spread": 7, "datasets": ("breast_cancer",), "rounds": 500,
            "n_train": 1000, "n_test": 2000, "split_seed": 0, "mc_examples": 6, "mc_samples": 20_000,
            "mc_taus": (1, 8, 64), "cost_low": 0.0, "cost_high": 1.0, "delta": 5e-4, "resolution": 0.02}
    profiles = {"quick": {}, "full": {"T_max": 5, "tau_max": 5, "instances": 10, "spread": 12,
                                      "datasets": ALL,
                                      "n_test": 5000, "mc_examples": 12, "mc_samples": 50_000}}
    checks = {"law": "the subjects' laws are probability distributions (mass 1, none negative)",
              "unbiased": "E[v_τ] of AdaBoostRS_AC = τ·Σα_t h_t(x)/Σ(α_t/c(h_t)) (Theorem 5's proof), in rationals",
              "sign": "sign E[v_τ] = sign Σ α_t h_t(x) (Theorem 5's statement)",
              "rs_unbiased": "E[v_τ] of AdaBoostRS = τ·Σα_t h_t(x)/Σα_t (Algorithm 2; proof of Corollary 3)",
              "equal_costs": "with equal costs c, the AC law is the RS law scaled by c (§4)"}
    case_columns = ("T", "tau", "family", "alpha", "votes", "costs")
    details = {"unbiased": ("mean", "target"), "rs_unbiased": ("rs_mean", "rs_target"),
               "sign": ("mean", "target")}
    defects = (
        Defect("AC law sampling ∝ α without the cost correction (votes ±c)", {"ac_law": D + "ac_law_uncorrected"}),
        Defect("AC law with unweighted votes ±1", {"ac_law": D + "ac_law_unit_votes"}),
        Defect("RS law sampling uniformly", {"rs_law": D + "rs_law_uniform"}, idea=True),
        Defect("sampler drawing ∝ α without the cost correction (declared law correct)",
               {"ensemble": D + "ACSamplerUncorrected"}),
        Defect("declared one-draw law ∝ α (sampler correct)", {"ensemble": D + "ACDeclaresUncorrected"}),
        Defect("sampler whose draws after the first ignore α", {"ensemble": D + "ACUniformAfterFirst"}),
    )
    power = (
        "Every outcome of the subjects' laws is enumerated on every instance, so a bias of any size on one of them is "
        "a FAIL (sampling ∝ α with votes ±c, or ∝ α/c with votes ±1, are biased as soon as two costs differ). On the "
        "trained ensemble, a sampler whose per-draw mean is off by more than about twice the resolution on one of the "
        "tested examples and τ is caught with probability ≥ 1 − δ; a bias confined to examples not tested, or to draws "
        "beyond the largest τ, is not. Ensembles with T > T_max are out of reach of the exact part."
    )
    plot = Plot(x="tau", y="mean", theory="target", low="low", high="high", hue="what", kind="point",
                xlabel="τ (draws)", ylabel="mean of v_τ/τ", theory_label="Σαh/Σ(α/c)",
                band_label="interval that decides (empirical Bernstein ∩ Hoeffding)")

    def exact_cases(self, p):
        return [{"T": T} for T in range(1, p["T_max"] + 1)]

    def ensembles(self, rng, T, p):
        out = []
        for _ in range(p["instances"]):
            alpha = tuple(_positive(rng, p["spread"]) for _ in range(T))
            votes = tuple(int(v) for v in rng.choice([-1, 1], T))
            out.append(("costs ≥ 1", alpha, votes, tuple(_rational(rng, 1, 4, p["spread"]) for _ in range(T))))
            out.append(("costs in (0, 1]", alpha, votes,
                        tuple(Fraction(int(rng.integers(1, p["spread"] + 1)), p["spread"]) for _ in range(T))))
        if T >= 2:
            alpha = tuple(Fraction(1) for _ in range(T))
            votes = tuple((-1) ** t for t in range(T)) if T % 2 == 0 else (1, 1, *(-1 for _ in range(T - 2)))
            alpha = alpha if T % 2 == 0 else (Fraction(T - 2, 2), Fraction(T - 2, 2), *alpha[2:])
            out.append(("full vote 0", alpha, votes, tuple(Fraction(t + 1) for t in range(T))))
        costs = (Fraction(3, 2),) * T
        out.append(("equal costs", tuple(Fraction(t + 1, T) for t in range(T)), tuple((-1) ** t for t in range(T)),
                    costs))
        out.append(("lumpy α, costly", (Fraction(7),) + (Fraction(1, 5),) * (T - 1), (-1,) + (1,) * (T - 1),
                    (Fraction(5),) + (Fraction(1),) * (T - 1)))
        return out

    def evaluate(self, p, case, subjects, rng):
        T, rows = case["T"], []
        for family, alpha, votes, costs in self.ensembles(rng, T, p):
            full = sum((a * h for a, h in zip(alpha, votes, strict=True)), Fraction(0))
            scale = sum((a / c for a, c in zip(alpha, costs, strict=True)), Fraction(0))
            for tau in range(1, p["tau_max"] + 1):
                ac = subjects["ac_law"](alpha=alpha, votes=votes, costs=costs, tau=tau)
                rs = subjects["rs_law"](alpha=alpha, votes=votes, tau=tau)
                target, rs_target = tau * full / scale, tau * full / sum(alpha, Fraction(0))
                mean, rs_mean = _mean(ac), _mean(rs)
                c0 = costs[0]
                equal = subjects["ac_law"](alpha=alpha, votes=votes, costs=(c0,) * T, tau=tau)
                scaled = sorted((Fraction(pr), c0 * Fraction(v)) for pr, v in rs)
                rows.append({
                    "T": T, "tau": tau, "family": family, "alpha": ", ".join(map(str, alpha)),
                    "votes": ", ".join(map(str, votes)), "costs": ", ".join(map(str, costs)),
                    "outcomes": len(ac), "mean": str(mean), "target": str(target), "rs_mean": str(rs_mean),
                    "rs_target": str(rs_target), "abs_bias": float(abs(mean - target)),
                    "law": all(sum((Fraction(pr) for pr, _ in law), Fraction(0)) == 1 and
                               all(Fraction(pr) >= 0 for pr, _ in law) for law in (ac, rs, equal)),
                    "unbiased": mean == target, "sign": _sign(mean) == _sign(full), "rs_unbiased": rs_mean == rs_target,
                    "equal_costs": sorted((Fraction(pr), Fraction(v)) for pr, v in equal) == scaled})
        return rows

    def sample(self, p, task, subjects, seed):
        model, _, _, Xte, yte, info = fitted(subjects["ensemble"], task["dataset"], p)
        rng = np.random.default_rng(seed)
        costs = feature_costs(Xte.shape[1], p["cost_low"], p["cost_high"], rng)
        H = model.hypothesis_outputs(Xte)
        alpha, hc = np.asarray(model.alphas_, dtype=np.float64), costs[model.features_]
        mu = (H @ alpha) / np.sum(alpha / hc)  # Σαh/Σ(α/c): the per-draw mean Theorem 5's proof gives
        declared = H @ (model.sampling_probabilities(costs) * model.vote_increments(costs))
        slack = 1e-9 * np.abs(H * (alpha / np.sum(alpha / hc))).sum(axis=1) + 1e-300
        off = np.abs(declared - mu) > slack
        rows = [{"part": "sampled", "dataset": task["dataset"], "relation": "always", "violations": int(off.sum()),
                 "runs": len(mu), "slack": "relative 1e-9", "what": "the one-draw law the subject declares "
                 "(sampling_probabilities × vote_increments) has mean Σαh/Σ(α/c) on every test example"}]
        margins = np.abs(model.margins(Xte, yte))
        chosen = list(np.argsort(margins)[: p["mc_examples"] // 2])
        rest = [i for i in rng.permutation(len(margins)) if i not in chosen]
        chosen += rest[: p["mc_examples"] - len(chosen)]
        taus = np.array(sorted(set(p["mc_taus"])), dtype=np.int64)
        X = np.repeat(Xte[chosen], p["mc_samples"], axis=0)
        path = sampled_path(model, X, taus, who="the ensemble", costs=costs, random_state=int_seed(seed))
        per_draw = H[chosen] * hc
        for e, i in enumerate(chosen):
            lo, hi = float(per_draw[e].min()), float(per_draw[e].max())
            block = path.votes[e * p["mc_samples"]:(e + 1) * p["mc_samples"]] / taus
            outside = int(((block < lo - 1e-9) | (block > hi + 1e-9)).sum())
            rows.append({"part": "sampled", "dataset": task["dataset"], "relation": "always", "violations": outside,
                         "runs": int(block.size), "what": f"v_τ/τ within the range of one draw (example {i})",
                         "example": int(i)})
            for c, tau in enumerate(taus):
                v = np.clip(block[:, c], lo, hi)
                rows.append({"part": "sampled", "dataset": task["dataset"], "relation": "equals", "example": int(i),
                             "tau": int(tau), "n": int(v.size), "mean": float(v.mean()), "var": float(v.var(ddof=1)),
                             "low": lo, "high": hi if hi > lo else lo + 1e-12, "target": float(mu[i]),
                             "what": f"E[v_τ/τ] = Σαh/Σ(α/c) (example {i}, margin {float(margins[i]):.3g}, τ = {tau})"})
        hyps = [Hypothesis("every α_t of the trained ensemble is positive and finite",
                           bool(np.all(alpha > 0) and np.all(np.isfinite(alpha))), info["dataset"])]
        return Measurement(rows, hyps)

    def headline(self, p, table):
        exact = self.exact_rows(table)
        return float(exact["abs_bias"].max()), 0.0, None

    def findings(self, p, table):
        exact = self.exact_rows(table)
        return [f"Exact part: {len(exact)} (ensemble, τ) cases, up to {int(exact['outcomes'].max())} outcomes of v_τ "
                f"each; largest |E[v_τ] − target| {float(exact['abs_bias'].max()):.3g}."]


@register
class BallsBins(ExactAndSampled):
    id = "reyzin11.balls-bins"
    space = Space(
        dims={"n_max": Int(1, 5), "k_max": Int(0, 8), "instances": Int(0, 6), "spread": Int(1, 10)},
        why=("the inequality's ∀ n, k and α-weights: every (n, k) up to (n_max, k_max) enumerated with random "
             "rational weights"))
    title = "Features left unexamined: n(1 − 1/n)^k ≤ n·e^(−k/n), and α-weighted draws leave at least as many"
    reference = "§3.3 (Balls and bins)"
    statement = (
        "After k draws uniform over n features, the expected number of features never drawn is n(1 − 1/n)^k ≤ "
        "n·e^(−k/n); for any other distribution over the features it is Σ_j (1 − q_j)^k ≥ n(1 − 1/n)^k, so the "
        "uniform distribution is the most pessimistic case, and AdaBoostRS's α-weighted draws leave at least as "
        "many of its n features unexamined as uniform draws over them would."
    )
    hypotheses = ("k i.i.d. draws", "n ≥ 1 features; for the comparison, n = the features with positive probability")
    interpretation = (
        "§3.3 states the uniform count and bound, then that non-uniform α 'only improves the situation, as it is not "
        "hard to see that the uniform distribution on features is the most pessimistic case' (by convexity of "
        "q ↦ (1 − q)^k). Exact part: for n ≤ n_max and 0 ≤ k ≤ k_max, the subject `law` (the law of the number of "
        "features never hit by k draws from q) is enumerated in rationals for q uniform, random rational q, and q with "
        "zeros; its mean must equal Σ_j (1 − q_j)^k and be ≥ n(1 − 1/n)^k; for uniform q, n(1 − 1/n)^k ≤ n·e^(−k/n) "
        "(certified with rational bounds on e^(−x)) and, at k = n ≥ 2, at least n/4 remain (the 'constant fraction'). "
        "Sampled part, per dataset: the subject `ensemble` (AdaBoostRS, costs ignored in sampling) is trained; q_j = "
        "Σ_{t: feature(h_t) = j} p(t) from its declared probabilities; n is the number of features with q_j > 0. "
        "Its sampler is run `runs` times for k = 1 … k_factor·n draws (a geometric grid), and the number U_k of "
        "those n features not examined is compared: (i) E[U_k] = Σ_j (1 − q_j)^k (the subject draws by its declared "
        "law) and "
        "(ii) E[U_k] ≥ n(1 − 1/n)^k (what was claimed), each by an interval on values in [0, n] at δ over the number "
        "of tests. The paper's bound n·e^(−k/n), and the same comparison over all d features of the data, are reported."
    )
    subjects = {"law": unsampled_law, "ensemble": AdaBoostRS}
    protocols = {"law": Contract(Function, call=("q", "k"), returns=Output("law")),
                 "ensemble": SAMPLED_ENSEMBLE}
    parameters = {"n_max": Integer(1, 6), "k_max": Integer(0, 10), "instances": Integer(0), "spread": Integer(1),
                  **ExactAndSampled.sampled_parameters, "runs": Integer(2), "k_points": Integer(2),
                  "k_factor": Positive()}
    base = {"n_max": 4, "k_max": 6, "instances": 2, "spread": 6, "datasets": ("breast_cancer",), "rounds": 500,
            "n_train": 1000, "n_test": 2000, "split_seed": 0, "runs": 10_000, "k_points": 8, "k_factor": 3.0,
            "delta": 5e-4, "resolution": 0.25}
    profiles = {"quick": {}, "full": {"n_max": 5, "k_max": 8, "instances": 6, "spread": 10, "runs": 50_000,
                                      "datasets": ALL}}
    checks = {"law": "the law is a probability distribution",
              "formula": "E[unsampled] = Σ_j (1 − q_j)^k exactly (n(1 − 1/n)^k for uniform q)",
              "uniform_bound": "uniform q: n(1 − 1/n)^k ≤ n·e^(−k/n), certified",
              "uniform_least": "E[unsampled] ≥ n(1 − 1/n)^k for every q (uniform is the most pessimistic case)",
              "constant_fraction": "uniform q, k = n ≥ 2: at least n/4 features unsampled in expectation"}
    case_columns = ("n", "k", "family", "q")
    details = {"formula": ("mean", "target"), "uniform_least": ("mean", "uniform")}
    defects = (
        Defect("law of draws without replacement", {"law": D + "unsampled_without_replacement"}),
        Defect("law that ignores q (always uniform)", {"law": D + "unsampled_ignores_q"}, idea=True),
        Defect("sampler whose feature count counts repeated draws", {"ensemble": D + "RSCountsRepeats"}),
        Defect("sampler drawing ∝ α² (declared law ∝ α)", {"ensemble": D + "RSSquaredAlpha"}),
        Defect("sampler that also evaluates every stump on every example (reads every feature of the ensemble, "
               "reports the drawn ones)", {"ensemble": D + "RSPathReadsAll"}),
        Defect("sampler drawing uniformly over its stumps, declaring so", {"ensemble": D + "RSUniformStumps"},
               caught=False, why="uniform draws over the stumps are a law the claim allows: (ii) holds for every "
                                 "distribution, and (i) compares with the law the subject declares"),
    )
    power = (
        "The exact part enumerates every outcome, so a law with another mean on one instance is a FAIL (draws "
        "without replacement leave n − k, below the formula). On data, comparison (ii) FAILs a sampler that examines "
        "clearly more features than any law could (e.g. counting a repeated feature again), and (i) a sampler whose "
        "draws do not follow the law it declares, by more than about twice the resolution in expected features; a "
        "sampler that follows another legitimate law (uniform over stumps) and says so cannot be told apart. A "
        "replaced sampler seen to read more features of an example than its path reports (through a watched view "
        "of X) FAILs at its first path, exactly."
    )
    plot = Plot(x="k", y="mean", theory="target", low="low", high="high", hue="what", kind="line", logx=True,
                xlabel="k (draws)", ylabel="features not examined", theory_label="compared value",
                band_label="interval that decides")

    def exact_cases(self, p):
        return [{"n": n} for n in range(1, p["n_max"] + 1)]

    def evaluate(self, p, case, subjects, rng):
        n, rows = case["n"], []
        families = [("uniform", tuple(Fraction(1, n) for _ in range(n)))]
        for _ in range(p["instances"]):
            raw = [_positive(rng, p["spread"]) for _ in range(n)]
            families.append(("random", tuple(r / sum(raw) for r in raw)))
        if n >= 2:
            raw = [Fraction(0)] + [_positive(rng, p["spread"]) for _ in range(n - 1)]
            families.append(("with a zero", tuple(r / sum(raw) for r in raw)))
        uniform_target = {k: n * (1 - Fraction(1, n)) ** k for k in range(p["k_max"] + 1)}
        for family, q in families:
            for k in range(p["k_max"] + 1):
                law = subjects["law"](q=q, k=k)
                mass = sum((Fraction(pr) for pr, _ in law), Fraction(0))
                mean = sum((Fraction(pr) * c for pr, c in law), Fraction(0))
                target = sum(((1 - qj) ** k for qj in q), Fraction(0))
                row = {"n": n, "k": k, "family": family, "q": ", ".join(map(str, q)), "mean": str(mean),
                       "target": str(target), "uniform": str(uniform_target[k]),
                       "law": mass == 1 and all(Fraction(pr) >= 0 for pr, _ in law), "formula": mean == target,
                       "uniform_least": mean >= uniform_target[k], "uniform_bound": None, "constant_fraction": None,
                       "ratio_to_exp_bound": None}
                if family == "uniform":
                    certified = certified_below_exp(mean, Fraction(n), Fraction(k, n))
                    row["uniform_bound"] = bool(certified)
                    row["ratio_to_exp_bound"] = float(mean) / (n * np.exp(-k / n))
                    if k == n and n >= 2:
                        row["constant_fraction"] = mean >= Fraction(n, 4)
                rows.append(row)
        return rows

    def sample(self, p, task, subjects, seed):
        model, _, _, Xte, _, info = fitted(subjects["ensemble"], task["dataset"], p)
        prob = np.asarray(model.sampling_probabilities(), dtype=np.float64)
        q = np.bincount(model.features_, weights=prob, minlength=Xte.shape[1])
        q_pos = q[q > 0]
        n, d = int(q_pos.size), int(Xte.shape[1])
        top = max(2, int(np.ceil(p["k_factor"] * n)))
        ks = np.unique(np.geomspace(1, top, p["k_points"]).round().astype(np.int64))
        X = Xte[np.arange(p["runs"]) % Xte.shape[0]]
        path = sampled_path(model, X, ks, who="the ensemble", random_state=int_seed(seed))
        rows = []
        for c, k in enumerate(ks):
            left = (n - path.n_features[:, c]).astype(np.float64)
            outside = int(((left < 0) | (left > n)).sum())
            left = np.clip(left, 0.0, n)
            exact = float(np.sum((1.0 - q_pos) ** k))
            uniform = n * (1.0 - 1.0 / n) ** k
            common = {"part": "sampled", "dataset": task["dataset"], "k": int(k), "n": int(left.size),
                      "mean": float(left.mean()), "var": float(left.var(ddof=1)), "low": 0.0, "high": float(n),
                      "features_used": n, "features_all": d, "paper_bound": n * np.exp(-k / n),
                      "all_features_uniform": d * (1.0 - 1.0 / d) ** k, "all_features_left": float(d - n) + exact}
            rows.append({**common, "relation": "equals", "target": exact,
                         "what": "E[U_k] = Σ_j (1 − q_j)^k (the subject's declared law)"})
            rows.append({**common, "relation": "at_least", "target": uniform,
                         "what": f"E[U_k] ≥ n(1 − 1/n)^k, n = {n} features used (uniform worst case)"})
            rows.append({"part": "sampled", "dataset": task["dataset"], "relation": "always", "violations": outside,
                         "runs": int(left.size), "k": int(k),
                         "what": f"between 0 and n = {n} features of the ensemble unexamined after k = {k} draws"})
        return Measurement(rows, [Hypothesis("the ensemble has at least one feature with positive probability", n > 0,
                                             info["dataset"])])

    def findings(self, p, table):
        rows = self.sampled_rows(table)
        if "relation" not in rows:
            return []
        rows = rows[rows["relation"] == "at_least"]
        out = []
        for name, part in rows.groupby("dataset"):
            last = part.loc[part["k"].idxmax()]
            out.append(f"{name}: after k = {int(last['k'])} draws over n = {int(last['features_used'])} features used "
                       f"(of {int(last['features_all'])}), {last['mean']:.3g} remain unexamined on average, against "
                       f"n(1 − 1/n)^k = {last['target']:.3g} for uniform draws and the paper's bound n·e^(−k/n) = "
                       f"{last['paper_bound']:.3g} (ratio {last['mean'] / max(last['paper_bound'], 1e-300):.3g}); over "
                       f"all {int(last['features_all'])} features {last['all_features_left']:.4g} expected against "
                       f"{last['all_features_uniform']:.4g} for uniform draws over all of them.")
        return out
