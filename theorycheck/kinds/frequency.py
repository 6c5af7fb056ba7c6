"""Kind "frequency": a deviation exceeds its bound with probability at most δ_claim.

A claim of the form "with probability ≥ 1 − δ_claim, deviation ≤ rhs", where the probability is
over the sample and the subject's own randomness (cbss11 Lemmas 8–10 about Baseline's loss
estimates, Theorem 12 about AER's excess risk). Each repetition draws a fresh sample of size
``m`` from a design, runs the subject once with fresh randomness and measures the deviation.
A statement that holds for every fixed sample also holds for a random one, so the violation
indicators are i.i.d. Bernoulli(p) with p ≤ δ_claim, and per design the verdict is
:func:`theorycheck.stats.decide_frequency_at_most` (exact Clopper–Pearson) at δ/G for G designs
(union bound: the false-FAIL rate of the claim is ≤ δ/2). A deviation known only up to an
interval (a supremum bracketed by certified bounds) gives a *certain* violation when its lower
end exceeds the bound and a *possible* one when its upper end does; a non-finite value is a
certain violation.

Hooks a claim provides:

* ``bound(p) -> float``: the right-hand side at the profile's parameters; or ``bound(p, design) -> float``
  when it depends on the design, e.g. an empirical-Bernstein form through the variance the design knows
  exactly::

      def bound(self, p, design):
          sigma2 = float(design.variance)  # the design's exact variance of one draw
          t = math.log(2 / p["delta_lemma"])
          return math.sqrt(2 * sigma2 * t / p["m"]) + 2 * p["B"] * t / (3 * p["m"])

  (the machinery calls it with the task's design when the hook takes two arguments);
* ``run(p, X, y, subjects, random_state) -> (outputs, attributes read)``: run the subject on
  the sample (``random_state`` is an int, the subject's own stream);
* ``deviation(p, design, X, y, outputs) -> (lower, upper, extra columns)``: the measured
  quantity (``design`` gives exact population moments where the deviation needs them).

Optional hooks and attributes:

* ``trivial(p, X, y) -> outputs``: the trivial learner's outputs (the one that returns its
  starting point), measured beside the subject on every repetition and decided the same way.
  On a design where it does not FAIL, the instance is vacuous (``Evidence.vacuous``), so the
  claim never gives PASS there; its values are drawn in the figure and given in
  ``Evidence.trivial`` (the smallest of its per-design medians);
* ``conclusion`` (a sentence) with ``holds(p, outputs) -> bool``: a conclusion of the theorem
  that must hold on every run, such as "the output lies in the L1 ball"; one run where it
  fails is a certain FAIL (:func:`theorycheck.stats.decide_always`);
* ``delta_star(p, deviation) -> float``: the δ at which the bound equals the deviation;
* ``printed(p, X, y, random_state) -> dict``: columns measured with the paper's construction
  as printed, on the same sample and draws (evidence for an erratum, not in the verdict);
* ``errata_evidence(p, table) -> dict`` (erratum key -> text) and ``notes(p, table) -> list``;
* ``hypotheses_for(p, design, X, y)``: by default :meth:`Design.satisfies` for ``norm`` and B,
  and the drawn sample's ‖x‖ and (when ``uses_labels``) |y|; none when ``norm`` is None;
* ``target`` (the parameter that holds δ_claim, default "delta_lemma"), ``budget`` (the
  budget parameter, "k": the hypothesis "at most k attributes read per example" is checked on the
  count ``run`` returns; None for a claim without an attribute budget, whose ``run`` may return
  None as the count), ``norm`` ("l1": ‖x‖∞ ≤ 1, "l2", or None for a claim outside the papers'
  setting, which then declares no B), ``uses_labels``, ``ylabel``, ``logy``.

Subjects: the claim's subject(s) and ``design``, a function (params, name) -> design. A design
needs only ``sample(n, random_state) -> (X, y)`` (``random_state`` a kernel state, see
:func:`theorycheck.rng.as_generator`); the moments and ``satisfies`` of
:class:`theorycheck.protocols.Design` only where the claim's own hooks read them. The papers'
claims use the registry's (:func:`theorycheck.generators.registry.lasso_design`), which read d, B,
s, rho and noise from the parameters; a claim with designs of its own declares none of those.
Parameters every frequency claim declares: ``designs``, ``m``, ``repetitions``, ``delta``,
``resolution`` and its target.

A design on which the deviation (both ends) takes one value in every repetition is *vacuous*: its
repetitions are one observation repeated, not independent trials, so the Clopper–Pearson test
would count evidence that is not there. The decision names such designs, ``Evidence.vacuous`` is
set (with :attr:`Evidence.vacuous_reason`), and the runner turns a PASS into INCONCLUSIVE; a FAIL
stands, since a deviation above the bound in every repetition is a violation with probability one.

The figure shows, per design, the deviation's quantiles (tightness) beside the bound, and the
(1 − δ_claim)-quantile with its distribution-free order-statistic interval at level δ/G: that
interval lies above the bound exactly when the Clopper–Pearson test FAILs and below it exactly
when it PASSes, so it is the interval that decides.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot
from ..validation import Integer, ParameterError, Probability, Resolution
from .learners import budget_hypothesis, design_for, sample_hypotheses, streams

__all__ = ["ViolationFrequency", "constant", "order_statistic_interval"]

_QUANTILES = (("median", 0.5), ("90%", 0.9), ("99%", 0.99), ("max", 1.0))


def _largest_count(n: int, delta: float, accept) -> int:
    """The largest c in [−1, n] with accept(c) true, for accept monotone (true then false)."""
    low, high = -1, n + 1  # accept(low) assumed true, accept(high) false
    while high - low > 1:
        mid = (low + high) // 2
        if accept(mid):
            low = mid
        else:
            high = mid
    return low


def constant(values) -> bool:
    """Whether every entry of ``values`` is the same number (all NaN counts as constant too)."""
    values = np.asarray(values, dtype=np.float64)
    return bool(np.all(values == values[0]) or np.all(np.isnan(values)))


def order_statistic_interval(lower, upper, target: float, delta: float, resolution: float):
    """The interval for the (1 − target)-quantile of the deviation that decides exactly as
    :func:`theorycheck.stats.decide_frequency_at_most`: its low end exceeds the bound iff at least
    c_fail certain violations were seen (c_fail the smallest count whose Clopper–Pearson lower end
    is above ``target``), its high end is below the bound iff at most c_pass possible violations
    were (c_pass the largest count whose upper end is ≤ target + resolution). ±∞ when no count
    decides."""
    lo = np.sort(np.asarray(lower, dtype=np.float64))[::-1]
    hi = np.sort(np.asarray(upper, dtype=np.float64))[::-1]
    n = lo.size
    c_fail = _largest_count(n, delta, lambda c: c >= 0 and stats.binomial_interval(c, n, delta).low <= target) + 1
    c_pass = _largest_count(n, delta, lambda c: c < 0 or stats.binomial_interval(c, n, delta).high
                            <= target + resolution)
    low = float(lo[c_fail - 1]) if c_fail <= n else -math.inf
    high = float(hi[c_pass]) if 0 <= c_pass < n else (math.inf if c_pass < 0 else -math.inf)
    return low, high


class ViolationFrequency(Claim):
    kind = "frequency"
    target: str = "delta_lemma"
    budget: str | None = "k"
    norm: str | None = "l1"
    uses_labels: bool = True
    conclusion: str = ""
    ylabel: str = "deviation"
    logy: bool = False
    parameters = {"m": Integer(1), "repetitions": Integer(1), "delta": Probability(),
                  "resolution": Resolution(zero=True)}

    # ------------------------------------------------------------------ hooks
    def bound(self, p) -> float:
        raise NotImplementedError

    def run(self, p, X, y, subjects, random_state):
        raise NotImplementedError

    def deviation(self, p, design, X, y, outputs):
        raise NotImplementedError

    trivial = None  # optional hook: trivial(p, X, y) -> outputs

    def holds(self, p, outputs) -> bool:
        return True

    def delta_star(self, p, deviation) -> float | None:
        return None

    def printed(self, p, X, y, random_state) -> dict:
        return {}

    def errata_evidence(self, p, table) -> dict:
        return {}

    def notes(self, p, table) -> list[str]:
        return []

    def hypotheses_for(self, p, design, X, y) -> list[Hypothesis]:
        if self.norm is None:
            return []
        return sample_hypotheses(design, X, y, p["B"], norm=self.norm, labels=self.uses_labels)

    # ------------------------------------------------------------------ machinery
    def check_params(self, p):
        if self.budget is not None and self.budget not in p:
            raise ParameterError(f"the attribute budget {self.budget!r} is not a parameter; a claim without an "
                                 "attribute budget sets budget = None")
        if self.norm is not None and "B" not in p:
            raise ParameterError(f"norm = {self.norm!r} checks |y| ≤ B, and B is not a parameter; a claim outside "
                                 "that setting sets norm = None")
        if p[self.target] + p["resolution"] >= 1.0:
            raise ParameterError(f"{self.target} + resolution must be below 1")

    def tasks(self, p):
        return [{"design": name, "repetition": r} for name in p["designs"] for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        design = design_for(subjects, p, task["design"])
        data, own = streams(seed)
        X, y = design.sample(p["m"], data)
        outputs, n_read = self.run(p, X, y, subjects, own)
        lower, upper, extra = self.deviation(p, design, X, y, outputs)
        bound = float(self.bound(p, design) if _takes_design(self.bound) else self.bound(p))
        row = {**task, "deviation": float(lower), "deviation_upper": float(upper), "bound": bound,
               "violation_certain": not lower <= bound, "violation_possible": not upper <= bound, **extra}
        star = self.delta_star(p, float(lower))
        if star is not None:
            row["delta_star"] = star
        if self.conclusion:
            row["conclusion_holds"] = bool(self.holds(p, outputs))
        if self.trivial is not None:
            t_low, _, _ = self.deviation(p, design, X, y, self.trivial(p, X, y))
            row["trivial"] = float(t_low)
            row["trivial_violation"] = not t_low <= bound
        row.update(self.printed(p, X, y, own))
        hyps = list(self.hypotheses_for(p, design, X, y))
        if self.budget is not None:
            hyps.append(budget_hypothesis(n_read, p[self.budget], p["m"]))
        return Measurement([row], hyps)

    def decide(self, p, table):
        names = list(dict.fromkeys(table["design"]))
        level = p["delta"] / len(names)
        target, res = p[self.target], p["resolution"]
        bound = float(table["bound"].iloc[0])
        verdicts, lines, hints, records, vacuous_on, constant_on = [], [], [], [], [], []
        for name in names:
            part = table[table["design"] == name]
            n = len(part)
            certain, possible = int(part["violation_certain"].sum()), int(part["violation_possible"].sum())
            dec, hint = stats.decide_frequency_at_most(certain, possible, n, target, level, res,
                                                       "repetitions violate the bound")
            verdicts.append(dec.verdict)
            lines.append(f"- {name}: {dec.verdict}. {dec.reason}.")
            if hint:
                hints.append(f"{name}: {hint}.")
            trivial_q = {}
            if "trivial" in part:
                tv = part["trivial"].to_numpy(dtype=np.float64)
                count = int(part["trivial_violation"].sum())
                t_dec, _ = stats.decide_frequency_at_most(count, count, n, target, level, 0.0, "")
                if t_dec.verdict != stats.FAIL:
                    vacuous_on.append(f"{name} (the trivial learner violates the bound in only {count} of {n} "
                                      f"repetitions, median {float(np.median(tv)):.4g} against {bound:.4g})")
                trivial_q = {q: float(np.quantile(tv, q)) for _, q in _QUANTILES}
            dev = part["deviation"].to_numpy(dtype=np.float64)
            if n > 1 and constant(dev) and constant(part["deviation_upper"].to_numpy(dtype=np.float64)):
                constant_on.append(f"{name} (deviation {dev[0]:.6g} in all {n} repetitions)")
            for label, q in _QUANTILES:
                value = float(np.quantile(dev, q))
                records.append({"design": name, "quantile": label, "deviation": value, "bound": bound,
                                "ratio": value / bound, "low": math.nan, "high": math.nan,
                                "trivial": trivial_q.get(q, math.nan)})
            low, high = order_statistic_interval(dev, part["deviation_upper"], target, level, res)
            records.append({"design": name, "quantile": f"1−{self.target} (decides)",
                            "deviation": float(np.quantile(dev, 1.0 - target)), "bound": bound,
                            "ratio": float(np.quantile(dev, 1.0 - target)) / bound, "low": low, "high": high,
                            "trivial": (float(np.quantile(part["trivial"], 1.0 - target))
                                        if "trivial" in part else math.nan),
                            "violations": certain, "possible": possible, "runs": n, "verdict": dec.verdict})
        if self.conclusion:
            broken = int((~table["conclusion_holds"].astype(bool)).sum())
            always = stats.decide_always(broken, len(table), self.conclusion, "relative 1e-9")
            verdicts.append(always.verdict)
            lines.append(f"- conclusion: {always.verdict}. {always.reason}.")
        verdict = stats.combine(verdicts)
        summary = pd.DataFrame(records)
        text = (
            f"Claim: P(deviation > {bound:.6g}) ≤ {self.target} = {target:g} on every design. Each design's "
            f"{self.target}-frequency of violations is tested with an exact Clopper–Pearson interval at level "
            f"δ/{len(names)} = {level:.3g} (union bound over the designs): FAIL if the interval of the certain "
            f"violations lies above {target:g} (false-FAIL rate ≤ δ/2 = {p['delta'] / 2:g}), PASS if the upper end "
            f"for the possible ones is ≤ {target:g} + resolution {res:g}." + (
                f" The conclusion \"{self.conclusion}\" must hold on every run." if self.conclusion else "")
            + "\n" + "\n".join(lines))
        if vacuous_on:
            text += ("\nThe instance is vacuous on " + "; ".join(vacuous_on) + ": the trivial learner, which "
                     "returns its starting point, also meets the bound there, so the check could not have failed.")
        reason = ""
        if constant_on:
            reason = ("the deviation is constant on " + "; ".join(constant_on) + ": those repetitions are one "
                      "observation repeated, not independent trials, so they are no evidence about a probability")
            text += f"\nThe instance is vacuous: {reason}."
            if vacuous_on:
                reason += "; and the trivial learner also meets the bound on " + "; ".join(vacuous_on)
        vacuous = bool(vacuous_on or constant_on)
        dev_all = table["deviation"].to_numpy(dtype=np.float64)
        errata = self.errata_evidence(p, table)
        notes = [*self.notes(p, table),
                 *(f"Paper erratum, shown on this run ({key}): {text}" for key, text in errata.items()),
                 f"Tightness: deviation/bound has median {float(np.median(dev_all)) / bound:.3g} and maximum "
                 f"{float(np.max(dev_all)) / bound:.3g} over {len(table)} repetitions."]
        if "delta_star" in table:
            notes.append(f"The smallest δ* (the δ at which the worst repetition meets the bound with equality; "
                         f"≥ 1 means at every δ) is {table['delta_star'].min():.3g}, against {self.target} = "
                         f"{target:g}.")
        notes += hints
        trivial = None
        if "trivial" in table:
            trivial = min(float(table[table["design"] == n]["trivial"].median()) for n in names)
        observed = float(np.max(dev_all))
        return Evidence(
            verdict=verdict, observed=observed, theory=bound, ratio=observed / bound, delta=p["delta"],
            decision=text, summary=summary, notes=notes, errata=errata,
            trivial=trivial, vacuous=vacuous, vacuous_reason=reason,
            plot=Plot(x="quantile", y="deviation", low="low", high="high", theory="bound", hue="design",
                      kind="point", logy=self.logy, ylabel=self.ylabel, trivial="trivial" if trivial is not None
                      else None, theory_label=f"bound ({self.reference})",
                      band_label=(f"order-statistic interval of the 1−{self.target} quantile at level "
                                  f"{level:.3g} (decides; equivalent to the Clopper–Pearson test)")))


def _takes_design(hook) -> bool:
    """Whether a ``bound`` hook takes the design after the parameters (``bound(p, design)``)."""
    import inspect

    try:
        params = [q for q in inspect.signature(hook).parameters.values()
                  if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return False
    return len(params) >= 2
