"""Kinds for estimators and learners whose budget is random (hk12 §4: GenEst, AESVR).

:class:`ExactWithSampling` — kind "exact" (:class:`~theorycheck.kinds.exact.Exact`) whose table
may also hold sampled rows (``part == "sampled"``), each a pooled sample of i.i.d. values in a
known range [``low``, ``high``] given by ``n``, ``mean``, ``var`` and either
``target`` (the statement E X = target, :func:`theorycheck.stats.decide_mean_equals`) or ``bound``
(E X ≤ bound, :func:`theorycheck.stats.decide_at_most` on the empirical Bernstein interval).
Each sampled row is decided at δ/R (R sampled rows, union bound), so a true statement FAILs with
probability ≤ δ; a row may carry its own ``resolution`` (absolute), else the parameter is used.
The exact rows are decided as in the exact kind (no error rate).

  Hooks: those of :class:`~theorycheck.kinds.exact.Exact`; ``sampled_what``: the sentence the
  sampled rows assert. Parameters: ``delta``, ``resolution`` (:data:`SAMPLED_PARAMETERS`).

:class:`RateWithBudget` — kind "rate" (:class:`~theorycheck.kinds.rate.Rate`) plus a budget in
expectation: each run reports ``queries_n``, ``queries_mean`` and ``queries_var``, the moments of
the per-example number of queries capped at ``queries_cap(p)`` (the cap only lowers the mean, so a
true "E ≤ budget" stays true); they are pooled over all runs and E ≤ ``budget(p)`` is decided by
:func:`theorycheck.stats.decide_at_most` on the empirical Bernstein interval at level δ (the
examples' counts must be i.i.d.). The verdict combines the rate parts and this part.

  Hooks: those of Rate, ``budget(p)``, ``queries_cap(p)``, ``budget_what``.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from .. import stats
from ..validation import Probability, Resolution
from .exact import Exact
from .rate import Rate

__all__ = ["SAMPLED_PARAMETERS", "ExactWithSampling", "RateWithBudget"]

SAMPLED_PARAMETERS = {"delta": Probability(), "resolution": Resolution()}


class ExactWithSampling(Exact):
    sampled_what: ClassVar[str] = "the sampled mean"

    def exact_rows(self, table):
        return table[table["part"] != "sampled"] if "part" in table else table

    def scope(self, p, table):
        return (f"Exact: {len(table)} rows computed exactly (no error rate); sampled rows decided at level "
                f"δ = {p['delta']:g} in all (union bound).")

    def extra_decisions(self, p, table):
        rows = table[table["part"] == "sampled"] if "part" in table else table.iloc[0:0]
        if rows.empty:
            return [], {}
        level = p["delta"] / len(rows)
        verdicts, worst = [], None
        for _, r in rows.iterrows():
            res = r["resolution"] if "resolution" in r and r["resolution"] == r["resolution"] else p["resolution"]
            if "target" in r and r["target"] == r["target"]:
                interval, dec, _ = stats.decide_mean_equals(int(r["n"]), float(r["mean"]), float(r["var"]),
                                                            float(r["low"]), float(r["high"]), float(r["target"]),
                                                            level, float(res))
            else:
                interval = stats.bernstein_from_moments(int(r["n"]), float(r["mean"]), float(r["var"]),
                                                        float(r["low"]), float(r["high"]), level)
                dec = stats.decide_at_most(interval, float(r["bound"]), float(res))
            verdicts.append(dec.verdict)
            if worst is None or (dec.verdict == stats.FAIL) > (worst[0] == stats.FAIL) or (
                    dec.verdict == stats.INCONCLUSIVE and worst[0] == stats.PASS):
                worst = (dec.verdict, f"{self.name_row(r)}: {dec.reason}")
        verdict = stats.combine(verdicts)
        counts = {v: verdicts.count(v) for v in set(verdicts)}
        text = (f"{self.sampled_what}: {len(rows)} sampled rows, each at level δ/{len(rows)} = {level:.3g} "
                f"(false-FAIL rate ≤ δ = {p['delta']:g}); verdicts {counts}; shown: {worst[1]}")
        return [(verdict, text)], {"delta": p["delta"]}


class RateWithBudget(Rate):
    budget_what: ClassVar[str] = "queries per example"

    def budget(self, p) -> float:
        raise NotImplementedError

    def queries_cap(self, p) -> float:
        raise NotImplementedError

    def decide(self, p, table):
        evidence = super().decide(p, table)
        n, mean, var = stats.pool_moments(table["queries_n"], table["queries_mean"], table["queries_var"])
        interval = stats.bernstein_from_moments(n, mean, var, 0.0, self.queries_cap(p), p["delta"])
        dec = stats.decide_at_most(interval, self.budget(p), p["resolution"])
        text = (f"\nBudget: E[{self.budget_what}] ≤ {self.budget(p):g}: {dec.verdict}. Mean {mean:.4g} over {n} "
                f"examples, empirical Bernstein interval [{interval.low:.4g}, {interval.high:.4g}] at δ = "
                f"{p['delta']:g} on counts capped at {self.queries_cap(p):g} (false-FAIL rate ≤ δ). {dec.reason}.")
        verdict = stats.combine([evidence.verdict, dec.verdict]) if evidence.verdict != stats.FAIL else stats.FAIL
        notes = [*evidence.notes, f"Measured {self.budget_what}: {mean:.4g}, interval [{interval.low:.4g}, "
                                  f"{interval.high:.4g}] (level δ = {p['delta']:g})."]
        return dataclasses.replace(evidence, verdict=verdict, decision=evidence.decision + text, notes=notes)
