"""Kind "comparison": algorithm A beats algorithm B at an equal attribute budget.

A claim of the form "at the same number of observed attributes, A's loss is lower than B's"
(ks15's DDAERR against AERR, a learner against its full-information counterpart at equal
attributes). Runs are paired: repetition r gives A and B the same sample (the same data
stream), and each its own algorithm randomness, so the per-run difference D = loss_B − loss_A
cancels the sample's variation. With losses in [0, upper], D lies in [−upper, upper], and
"E[D] ≥ margin" is decided by :func:`theorycheck.stats.decide_mean_at_least` on D + upper
(empirical Bernstein, false-FAIL rate ≤ δ).

Hooks a claim provides:

* ``subjects = {"a": ..., "b": ...}`` and ``labels = ("A's name", "B's name")``;
* ``run(p, task, subjects, data_state, seeds) -> dict`` with keys ``loss_a``, ``loss_b``,
  ``attributes_a``, ``attributes_b`` (attributes each read in all); ``data_state`` is one
  kernel state that both contenders' samples must come from (draw the sample once and give it
  to both), ``seeds`` a pair of ints for the contenders' own randomness;
* ``upper(p) -> float``: an almost-sure upper end of both losses;
* ``budget(p) -> int``: the attribute budget both must respect (the hypothesis "equal
  budget" is checked on every run from the counts).

Optional: ``margin`` (parameter, default 0: A at least as good as B) and ``settings(p)``, a
list of task dicts (one comparison per setting, e.g. per m), all of which must hold.
Parameters every comparison declares: ``repetitions``, ``delta``, ``resolution``.
"""

from __future__ import annotations

import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot
from ..rng import kernel_state
from ..validation import Integer, Number, Positive, Probability


class PairedComparison(Claim):
    kind = "comparison"
    labels: tuple[str, str] = ("A", "B")
    parameters = {"repetitions": Integer(2), "delta": Probability(), "resolution": Positive(),
                  "margin": Number()}

    # ------------------------------------------------------------------ hooks
    def run(self, p, task, subjects, data_state, seeds) -> dict:
        raise NotImplementedError

    def upper(self, p) -> float:
        raise NotImplementedError

    def budget(self, p) -> int:
        raise NotImplementedError

    def settings(self, p) -> list[dict]:
        return [{}]

    # ------------------------------------------------------------------ machinery
    def tasks(self, p):
        return [{**s, "setting": i, "repetition": r}
                for i, s in enumerate(self.settings(p)) for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        data, a_seed, b_seed = seed.spawn(3)
        out = self.run(p, task, subjects, kernel_state(data),
                       (int(a_seed.generate_state(1)[0]), int(b_seed.generate_state(1)[0])))
        budget = self.budget(p)
        over = {k: out[f"attributes_{k}"] for k in ("a", "b") if out[f"attributes_{k}"] > budget}
        row = {**task, **out, "difference": out["loss_b"] - out["loss_a"], "budget": budget}
        hyp = Hypothesis("both contenders read at most the same attribute budget", not over,
                         "; ".join(f"{self.labels['ab'.index(k)]} read {v} > {budget}" for k, v in over.items()))
        return Measurement([row], [hyp])

    def decide(self, p, table):
        upper = float(self.upper(p))
        settings = sorted(set(table["setting"]))
        per_delta = p["delta"] / len(settings)
        margin = float(p.get("margin", 0.0))
        records, lines, verdicts = [], [], []
        for s in settings:
            part = table[table["setting"] == s]
            shifted = part["difference"].to_numpy() + upper
            n, mean = len(shifted), float(shifted.mean())
            var = float(shifted.var(ddof=1)) if n > 1 else 0.0
            interval, dec, hint = stats.decide_mean_at_least(n, mean, var, 2 * upper, margin + upper,
                                                             per_delta, p["resolution"])
            verdicts.append(dec.verdict)
            lines.append(f"- setting {s}: {dec.verdict}. {dec.reason}" + (f"; {hint}" if hint else ""))
            records.append({"setting": s, "loss_a": float(part["loss_a"].mean()),
                            "loss_b": float(part["loss_b"].mean()), "difference": mean - upper,
                            "low": interval.low - upper, "high": interval.high - upper,
                            "margin": margin, "runs": n, "verdict": dec.verdict})
        summary = pd.DataFrame(records)
        a, b = self.labels
        text = (f"Claim: at an equal attribute budget, E[loss of {b} − loss of {a}] ≥ {margin:g} in every "
                f"setting. Paired runs (same sample for both); per setting an empirical Bernstein interval "
                f"at δ/{len(settings)} = {per_delta:.3g} on the difference in [−{upper:g}, {upper:g}]; FAIL if "
                f"it lies below the margin (false-FAIL rate ≤ δ = {p['delta']:g}, union bound), PASS if its "
                f"lower end is within the resolution {p['resolution']:g} of it.\n" + "\n".join(lines))
        return Evidence(verdict=stats.combine(verdicts), observed=float(summary["difference"].min()),
                        theory=margin, delta=p["delta"], decision=text, summary=summary,
                        plot=Plot(x="setting", y="difference", low="low", high="high", theory="margin",
                                  kind="point", ylabel=f"loss of {b} − loss of {a}",
                                  band_label=f"{100 * (1 - per_delta):.4g}% empirical Bernstein interval (decides)",
                                  theory_label="margin claimed"))
