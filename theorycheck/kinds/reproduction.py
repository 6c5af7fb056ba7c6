"""Kind "reproduction": a paper's figure or table re-run, our numbers beside the published ones.

Published numbers are usually read off a plot, on data or splits we cannot reproduce exactly,
so each reproduction states a tolerance and the reason for it. Per published point, our value
is the mean over repetitions with an interval (:func:`theorycheck.stats.bounded_mean_interval`
on values in [0, upper], at δ split over the points): FAIL when the whole interval lies outside
published ± tolerance (false-FAIL rate ≤ δ if the paper's number is within the tolerance of
the truth), PASS when it lies inside, INCONCLUSIVE otherwise.

Hooks a claim provides:

* ``published``: a list of dicts, each with the key columns of one point and ``value``;
* ``keys``: the names of the key columns (e.g. ("algorithm", "m"));
* ``tolerance`` (absolute) and ``tolerance_reason`` (why that tolerance; a sentence);
* ``reproduce(p, task, subjects, random_state) -> list[dict]``: one repetition, rows with the
  key columns and ``value``; when ``value`` is itself a mean of ``n`` terms that are i.i.d.
  given the repetition (a test error over a held-out set), rows may also carry ``n`` and
  ``var`` (their unbiased variance): each repetition then gets an empirical Bernstein interval
  for its own conditional mean at δ/(points·repetitions), and the interval for the average over
  repetitions is the average of those intervals (valid by the union bound). Without them, the
  repetitions themselves are the sample, which needs many repetitions to be narrow;
* ``upper(p) -> float``: an almost-sure upper end of ``value`` (e.g. 1 for an error rate).

Parameters every reproduction declares: ``repetitions``, ``delta``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Measurement, Plot
from ..validation import Integer, Probability


class Reproduction(Claim):
    kind = "reproduction"
    published: list[dict] = []
    keys: tuple[str, ...] = ()
    tolerance: float = 0.0
    tolerance_reason: str = ""
    parameters = {"repetitions": Integer(1), "delta": Probability()}

    def reproduce(self, p, task, subjects, random_state) -> list[dict]:
        raise NotImplementedError

    def upper(self, p) -> float:
        raise NotImplementedError

    def tasks(self, p):
        return [{"repetition": r} for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        rows = self.reproduce(p, task, subjects, int(seed.generate_state(1)[0]))
        return Measurement([{**row, "repetition": task["repetition"]} for row in rows])

    def decide(self, p, table):
        keys = list(self.keys)
        per_delta = p["delta"] / max(len(self.published), 1)
        upper = float(self.upper(p))
        records, verdicts = [], []
        for point in self.published:
            mask = pd.Series(True, index=table.index)
            for key in keys:
                mask &= table[key] == point[key]
            values = table.loc[mask, "value"].to_numpy()
            low_ok, high_ok = point["value"] - self.tolerance, point["value"] + self.tolerance
            if values.size == 0:
                verdicts.append(stats.INCONCLUSIVE)
                records.append({**{k: point[k] for k in keys}, "published": point["value"], "ours": None,
                                "low": None, "high": None, "verdict": "not reproduced"})
                continue
            part = table.loc[mask]
            if {"n", "var"} <= set(part.columns):
                each = [stats.bernstein_from_moments(int(n), float(v), float(s2), 0.0, upper, per_delta / len(part))
                        for n, v, s2 in zip(part["n"], part["value"], part["var"], strict=True)]
                iv = stats.Interval(float(values.mean()), float(np.mean([e.low for e in each])),
                                    float(np.mean([e.high for e in each])), per_delta,
                                    "average of per-repetition empirical Bernstein intervals", int(part["n"].sum()))
            else:
                iv = stats.bounded_mean_interval(values, upper, per_delta)
            verdict = stats.decide_mean_within(iv, low_ok, high_ok).verdict
            verdicts.append(verdict)
            records.append({**{k: point[k] for k in keys}, "published": point["value"], "ours": iv.estimate,
                            "low": iv.low, "high": iv.high, "tolerance": self.tolerance, "verdict": verdict})
        summary = pd.DataFrame(records)
        text = (f"Our value beside each of the {len(self.published)} published numbers: the mean over "
                f"{p['repetitions']} repetitions with an interval at δ/{len(self.published)} = {per_delta:.3g} "
                f"(the average of per-repetition empirical Bernstein intervals when each value is a mean of "
                f"i.i.d. terms, otherwise empirical Bernstein ∩ Anderson over the repetitions, on [0, {upper:g}]). "
                f"FAIL if an interval lies entirely outside "
                f"published ± {self.tolerance:g}, PASS if every interval lies inside. Tolerance: "
                f"{self.tolerance_reason}")
        x = keys[-1] if keys else "published"
        return Evidence(verdict=stats.combine(verdicts), observed=None, theory=None, delta=p["delta"],
                        decision=text, summary=summary,
                        plot=Plot(x=x, y="ours", low="low", high="high", theory="published",
                                  hue=keys[0] if len(keys) > 1 else None, kind="line",
                                  band_label="interval of our mean (decides)", theory_label="published"))
