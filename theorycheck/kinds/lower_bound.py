"""Kind "lower-bound": every subject must respect "risk ≥ rhs" (cbss11 Theorems 2 and 3).

The subjects are a tuple of k-active predictors (:class:`theorycheck.protocols.KActivePredictor`)
and the instance they are tested on. Each task draws ``examples`` test points from the instance
in chunks; every predictor sees each chunk only through a
:class:`theorycheck.algorithms.k_active.AttributeOracle`, which counts the attributes it reveals
(the hypothesis "the predictor is k-active" is checked from those counts). Randomness reaches a
predictor as one ``random_state``, a kernel state advanced in place (the one convention of
:mod:`theorycheck.rng`). Predictions are clipped to [−max|y|, max|y|], which can only lower the
squared loss (y lies in that interval), so the clipped risk is still bounded below by the
theorem and each loss lies in [0, (2 max|y|)²].

Per predictor, :func:`theorycheck.stats.decide_mean_at_least` on the pooled (count, mean,
variance) of the losses decides at δ/(number of predictors): FAIL when the interval lies below
the bound, PASS when its lower end is ≥ bound − resolution·bound, INCONCLUSIVE otherwise; parts
combine with :func:`theorycheck.stats.combine`. A lower bound on every predictor has no trivial
learner to compare with: the power comes from planted defects that beat the bound.

Hooks: required ``bound(p) -> float``; optional ``instance_hypotheses(instance, p)`` (checks on
the instance built) and ``theory_label``. Subjects: ``predictors`` (a tuple) and ``instance``
((params) → an instance with ``sample(n, random_state)``, ``w_star``, ``y_bound`` and, for the
notes, ``best_k_active_risk(k)``). Parameters: ``k``, ``examples``, ``repetitions``, ``delta``,
``resolution``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from .. import stats
from ..algorithms.k_active import AttributeOracle
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot
from ..protocols import Contract, Function, KActivePredictor
from ..rng import kernel_state
from ..validation import Integer, Positive, Probability

__all__ = ["LowerBound"]


class LowerBound(Claim):
    """Every k-active predictor's risk is at least the bound (see the module docstring)."""

    kind = "lower-bound"
    chunk: ClassVar[int] = 20_000
    theory_label: ClassVar[str] = "lower bound"
    protocols = {"predictors": Contract(KActivePredictor, call=("oracle", "k", "w_star", "random_state"), each=True),
                 "instance": Contract(Function, call=("params",))}
    parameters = {"examples": Integer(2), "repetitions": Integer(1), "delta": Probability(), "resolution": Positive()}

    # ------------------------------------------------------------------ hooks
    def bound(self, p) -> float:
        raise NotImplementedError

    def instance_hypotheses(self, inst, p) -> list[Hypothesis]:
        return []

    # ------------------------------------------------------------------ machinery
    def tasks(self, p):
        return [{"repetition": r} for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        inst = subjects["instance"](p)
        predictors, k = subjects["predictors"], p["k"]
        data_seq, pred_seq = seed.spawn(2)
        data_state, pred_state = kernel_state(data_seq), kernel_state(pred_seq)
        y_max = float(inst.y_bound)
        parts = {pr.name: [] for pr in predictors}
        most = dict.fromkeys(parts, 0)
        residual, remaining = 0.0, p["examples"]
        while remaining > 0:
            n = min(self.chunk, remaining)
            remaining -= n
            X, y = inst.sample(n, data_state)
            residual = max(residual, float(np.abs(X @ inst.w_star - y).max()))
            for pr in predictors:
                oracle = AttributeOracle(X)
                pred = np.clip(np.asarray(pr.predict(oracle, k, inst.w_star, pred_state), dtype=float), -y_max, y_max)
                if pred.shape != y.shape or not np.all(np.isfinite(pred)):
                    raise ValueError(f"predictor {pr.name!r} returned {pred.shape} finite={np.isfinite(pred).all()}")
                loss = (pred - y) ** 2
                parts[pr.name].append((n, float(loss.mean()), float(loss.var(ddof=1))))
                most[pr.name] = max(most[pr.name], int(oracle.counts().max()))
        rows = []
        for name, chunks in parts.items():
            count, mean, var = stats.pool_moments(*zip(*chunks, strict=True))
            rows.append({"repetition": task["repetition"], "predictor": name, "examples": count, "mean_loss": mean,
                         "var_loss": var, "max_attributes_read": most[name], "loss_upper": (2 * y_max) ** 2,
                         "best_k_active_risk": inst.best_k_active_risk(k) if hasattr(inst, "best_k_active_risk")
                         else float("nan")})
        hyps = [
            Hypothesis("L_D(w*) = 0 (y = ⟨w*, x⟩ on every drawn example)", residual <= 1e-9,
                       f"max |y − ⟨w*, x⟩| = {residual:.2e}"),
            Hypothesis(f"every predictor is k-active (reads ≤ k = {k} attributes per example)",
                       max(most.values()) <= k, ", ".join(f"{n}: {c}" for n, c in most.items())),
            *self.instance_hypotheses(inst, p),
        ]
        return Measurement(rows, hyps)

    def decide(self, p, table):
        bound = float(self.bound(p))
        upper = float(table["loss_upper"].max())
        names = list(dict.fromkeys(table["predictor"]))
        each = p["delta"] / len(names)
        resolution = p["resolution"] * bound
        records, lines, notes = [], [], []
        for name in names:
            part = table[table["predictor"] == name]
            n, mean, var = stats.pool_moments(part["examples"], part["mean_loss"], part["var_loss"])
            iv, dec, hint = stats.decide_mean_at_least(n, mean, var, upper, bound, each, resolution)
            lines.append((dec.verdict, f"- {name}: {dec.verdict}. {dec.reason}"))
            if hint:
                notes.append(f"{name}: {hint}; raise `examples` or `repetitions`.")
            records.append({"predictor": name, "risk": mean, "low": iv.low, "high": iv.high, "bound": bound,
                            "pass_line": bound - resolution, "margin": mean - bound, "examples": n,
                            "verdict": dec.verdict})
        summary = pd.DataFrame(records)
        observed = float(summary["risk"].min())
        level = f"{100 * (1 - each):.6g}%"
        text = (f"Claim: every predictor's risk ≥ {bound:.6g}. For each of {len(names)} predictor(s), the interval "
                f"that decides is the empirical Bernstein interval at level {level} (δ/{len(names)} = {each:.3g}) on "
                f"the mean loss (losses in [0, {upper:.4g}]): FAIL if it lies below the bound, PASS if its lower end "
                f"is ≥ bound − {p['resolution']:g}·bound = {bound - resolution:.6g}, INCONCLUSIVE otherwise. "
                f"False-FAIL rate ≤ δ = {p['delta']:g} (union bound over predictors).\n"
                + "\n".join(line for _, line in lines))
        best = table["best_k_active_risk"].iloc[0]
        notes.insert(0, f"Exact risk of the best k-active predictor on this instance: {best:.6g} (the bound is tight "
                        f"when it equals {bound:.6g}). Smallest margin observed: {summary['margin'].min():+.3g}.")
        return Evidence(verdict=stats.combine(v for v, _ in lines), observed=observed, theory=bound,
                        ratio=observed / bound if bound > 0 else None, delta=p["delta"], decision=text,
                        summary=summary, notes=notes,
                        plot=Plot(x="predictor", y="risk", low="low", high="high", theory="bound",
                                  resolution="pass_line", kind="point", theory_label=self.theory_label,
                                  band_label=f"{level} interval that decides (empirical Bernstein)",
                                  xlabel="k-active predictor", ylabel="risk E[(ŷ − y)²]"))
