"""Monte-Carlo claims of Cesa-Bianchi, Shalev-Shwartz & Shamir (JMLR 2011)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from theorycheck import stats
from theorycheck.algorithms.k_active import DEFAULT_PREDICTORS, AttributeOracle
from theorycheck.bounds.cbss11 import thm2_k_active_risk, thm3_k_active_risk
from theorycheck.claims import Claim, Evidence, Hypothesis, Measurement, Plot, register
from theorycheck.generators.hypercube import sparse_l1_instance, uniform_l2_instance
from theorycheck.rng import kernel_state
from theorycheck.validation import ParameterError, check_budget, check_delta, check_int, check_real

_CHUNK = 20_000


class _KActiveLowerBound(Claim):
    """Shared machinery of Theorems 2 and 3: every k-active predictor's risk ≥ bound.

    Each task draws ``examples`` test points in chunks; every predictor sees each chunk
    through an AttributeOracle. Predictions are clipped to [−max|y|, max|y|], which can only
    lower the squared loss (y lies in that interval), so the clipped risk is still bounded
    below by the theorem and each loss lies in [0, (2 max|y|)²], the range the empirical
    Bernstein interval needs.
    """

    kind = "bound"

    def instance(self, p):
        raise NotImplementedError

    def bound(self, p) -> float:
        raise NotImplementedError

    def instance_hypotheses(self, inst, p) -> list[Hypothesis]:
        return []

    def tasks(self, p):
        return [{"repetition": r} for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        inst = subjects["instance"](p)
        predictors = subjects["predictors"]
        k = p["k"]
        child_data, child_pred = seed.spawn(2)
        state = kernel_state(child_data)
        rng = np.random.default_rng(child_pred)
        y_max = inst.y_bound
        acc = {pr.name: [] for pr in predictors}
        max_read = dict.fromkeys(acc, 0)
        residual = 0.0
        remaining = p["examples"]
        while remaining > 0:
            n = min(_CHUNK, remaining)
            remaining -= n
            X, y = inst.sample(n, state)
            residual = max(residual, float(np.abs(X @ inst.w_star - y).max()))
            for pr in predictors:
                oracle = AttributeOracle(X)
                pred = np.clip(np.asarray(pr.predict(oracle, k, inst.w_star, rng), dtype=float), -y_max, y_max)
                if pred.shape != y.shape or not np.all(np.isfinite(pred)):
                    raise ValueError(f"predictor {pr.name!r} returned {pred.shape} finite={np.isfinite(pred).all()}")
                loss = (pred - y) ** 2
                acc[pr.name].append((n, float(loss.mean()), float(loss.var(ddof=1))))
                max_read[pr.name] = max(max_read[pr.name], int(oracle.counts().max()))
        rows = []
        for name, parts in acc.items():
            count, mean, var = stats.pool_moments(*zip(*parts, strict=True))
            rows.append({"repetition": task["repetition"], "predictor": name, "examples": count,
                         "mean_loss": mean, "var_loss": var, "max_attributes_read": max_read[name],
                         "loss_upper": (2 * y_max) ** 2, "best_k_active_risk": inst.best_k_active_risk(k)})
        hyps = [
            Hypothesis("L_D(w*) = 0 (y = ⟨w*, x⟩ on every drawn example)", residual <= 1e-9,
                       f"max |y − ⟨w*, x⟩| = {residual:.2e}"),
            Hypothesis(f"every predictor is k-active (reads ≤ k = {k} attributes per example)",
                       max(max_read.values()) <= k,
                       ", ".join(f"{n}: {c}" for n, c in max_read.items())),
            *self.instance_hypotheses(inst, p),
        ]
        return Measurement(rows, hyps)

    def decide(self, p, table):
        bound = self.bound(p)
        loss_upper = float(table["loss_upper"].max())
        names = list(dict.fromkeys(table["predictor"]))
        per_delta = p["delta"] / len(names)
        resolution = p["resolution"] * bound
        records, decisions, hints = [], [], []
        for name in names:
            part = table[table["predictor"] == name]
            n, mean, var = stats.pool_moments(part["examples"], part["mean_loss"], part["var_loss"])
            interval = stats.bernstein_from_moments(n, mean, var, 0.0, loss_upper, per_delta)
            dec = stats.decide_at_least(interval, bound, resolution)
            decisions.append((name, dec))
            if dec.verdict == stats.INCONCLUSIVE:
                need = stats.bernstein_samples_needed(var, loss_upper, per_delta, resolution)
                hints.append(f"{name}: about {need} examples in all (now {n}) would make the "
                             f"interval narrower than the resolution; raise `examples` or `repetitions`.")
            records.append({"predictor": name, "risk": mean, "low": interval.low, "high": interval.high,
                            "bound": bound, "margin": mean - bound, "examples": n, "verdict": dec.verdict})
        summary = pd.DataFrame(records)
        verdicts = {d.verdict for _, d in decisions}
        verdict = stats.FAIL if stats.FAIL in verdicts else (
            stats.PASS if verdicts == {stats.PASS} else stats.INCONCLUSIVE)
        observed = float(summary["risk"].min())
        text = (
            f"Claim: every predictor's risk ≥ {bound:.6g}. For each of {len(names)} predictors, an "
            f"empirical Bernstein interval at δ/{len(names)} = {per_delta:.3g} on the mean loss "
            f"(losses in [0, {loss_upper:.4g}]); FAIL if an interval lies below the bound, "
            f"PASS if every lower end is ≥ bound − {p['resolution']:g}·bound = {bound - resolution:.6g}. "
            f"False-FAIL rate ≤ δ = {p['delta']:g} (union bound over predictors).\n"
            + "\n".join(f"- {name}: {d.verdict}. {d.reason}" for name, d in decisions)
        )
        notes = [f"Exact risk of the best k-active predictor on this instance: "
                 f"{table['best_k_active_risk'].iloc[0]:.6g} (the bound is tight when it equals {bound:.6g}). "
                 f"Smallest margin observed: {summary['margin'].min():+.3g}.", *hints]
        return Evidence(verdict=verdict, observed=observed, theory=bound, ratio=observed / bound if bound > 0 else None,
                        delta=p["delta"], decision=text, summary=summary, notes=notes,
                        plot=Plot(x="predictor", y="risk", low="low", high="high", theory="bound",
                                  kind="point", ylabel="risk of the k-active predictor"))

    def _check_common(self, p):
        check_delta(p["delta"])
        check_int("examples", p["examples"], low=2)
        check_int("repetitions", p["repetitions"], low=1)
        check_real("resolution", p["resolution"], low=0.0, strict_low=True)


def _thm2_instance(p):
    return uniform_l2_instance(p["d"])


@register
class Theorem2(_KActiveLowerBound):
    id = "cbss11.thm2"
    title = "k-active prediction under an L2 constraint: risk ≥ 1 − k/d"
    reference = "Theorem 2"
    statement = (
        "With x uniform on {±1}^d and y = ⟨w*, x⟩ for w* = (1/√d)·1 (so ‖w*‖₂ = 1 and "
        "L_D(w*) = 0), every predictor that reads at most k attributes of a test example, "
        "chosen adaptively or not, has squared-loss risk at least 1 − k/d."
    )
    hypotheses = ("‖w*‖₂ = 1", "L_D(w*) = 0", "the predictor is k-active", "1 ≤ k ≤ d")
    interpretation = (
        "Risk is the expected squared loss (ŷ − y)² (cbss11's convention). The predictors are "
        "given w*; the built-in ones read the first k, a random k, or an adaptively chosen k "
        "attributes and predict the partial sum of ⟨w*, x⟩, which is the conditional mean, so "
        "each reaches the bound exactly and the margin measures nothing but noise. A user's "
        "predictor replaces the subject `predictors` (see theorycheck.algorithms.k_active)."
    )
    subjects = {"predictors": DEFAULT_PREDICTORS, "instance": _thm2_instance}
    profiles = {
        "quick": {"d": 20, "k": 5, "examples": 200_000, "repetitions": 4, "delta": 1e-3, "resolution": 0.02},
        "full": {"d": 200, "k": 20, "examples": 200_000, "repetitions": 10, "delta": 1e-3, "resolution": 0.02},
    }

    def check_params(self, p):
        check_int("d", p["d"], low=2)
        check_budget(p["k"], p["d"])
        self._check_common(p)

    def bound(self, p):
        return thm2_k_active_risk(p["d"], p["k"])

    def instance_hypotheses(self, inst, p):
        norm = float(np.linalg.norm(inst.w_star))
        return [Hypothesis("‖w*‖₂ = 1", abs(norm - 1) <= 1e-12, f"‖w*‖₂ = {norm:.15g}")]


def _thm3_instance(p):
    return sparse_l1_instance(p["d"], round(p["c"] * p["k"]))


@register
class Theorem3(_KActiveLowerBound):
    id = "cbss11.thm3"
    title = "k-active prediction under an L1 constraint: risk ≥ (1 − 1/c)/(ck)"
    reference = "Theorem 3"
    statement = (
        "With x uniform on {±1}^d and y = ⟨w*, x⟩ for w* with ck equal weights 1/(ck) "
        "(‖w*‖₁ = 1, ‖w*‖₀ = ck, c > 1), every k-active predictor has squared-loss risk at "
        "least (1 − 1/c)/(ck)."
    )
    hypotheses = ("‖w*‖₁ = 1", "‖w*‖₀ = ck with c > 1", "L_D(w*) = 0", "the predictor is k-active")
    interpretation = (
        "c·k must be an integer no larger than d. Predictions are the partial sums of "
        "⟨w*, x⟩ over the attributes read, which attains the bound; the summary shows how "
        "close each predictor comes."
    )
    subjects = {"predictors": DEFAULT_PREDICTORS, "instance": _thm3_instance}
    profiles = {
        "quick": {"d": 30, "k": 5, "c": 2.0, "examples": 100_000, "repetitions": 4, "delta": 1e-3, "resolution": 0.02},
        "full": {
            "d": 300, "k": 20, "c": 2.5, "examples": 200_000, "repetitions": 10, "delta": 1e-3, "resolution": 0.02,
        },
    }

    def check_params(self, p):
        check_int("d", p["d"], low=2)
        check_budget(p["k"], p["d"])
        c = check_real("c", p["c"], low=1.0, strict_low=True)
        support = c * p["k"]
        if abs(support - round(support)) > 1e-9:
            raise ParameterError(f"c·k must be an integer (the number of non-zero weights), got {support:g}")
        if round(support) > p["d"]:
            raise ParameterError(f"c·k = {round(support)} must not exceed d = {p['d']}")
        self._check_common(p)

    def bound(self, p):
        return thm3_k_active_risk(p["c"], p["k"])

    def instance_hypotheses(self, inst, p):
        l1 = float(np.abs(inst.w_star).sum())
        nnz = int(np.count_nonzero(inst.w_star))
        ck = round(p["c"] * p["k"])
        return [Hypothesis("‖w*‖₁ = 1", abs(l1 - 1) <= 1e-12, f"‖w*‖₁ = {l1:.15g}"),
                Hypothesis("‖w*‖₀ = ck", nnz == ck, f"‖w*‖₀ = {nnz}, ck = {ck}")]
