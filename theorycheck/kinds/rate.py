"""Kind "rate": a quantity falls at least as fast as a stated power along paths of a grid.

A claim of the form "quantity = O(x^a)" whose constant the paper does not give (cbss11
Theorem 6: Baseline's excess risk is c·(dB/k)²√(ln(d/δ)/m) for some c): along each path of a
grid (m at fixed d and k, say) the log–log slope of the mean quantity against x must be at most
the exponent a. Each grid point is run ``repetitions`` times with fresh samples and fresh
randomness, and each path is decided by :func:`theorycheck.stats.decide_slope_at_most`, the one
rate test: the least-squares slope of log(mean) on log x with a percentile-bootstrap interval at
level δ/P for P decided paths (union bound). FAIL if the interval lies above a, PASS if its upper
end is ≤ a + resolution. The bootstrap's level is asymptotic, not a finite-sample guarantee, and
every decision says so. A finite grid refutes a rate only by extrapolation: a slope above a over
the range means the quantity would cross c·x^a for every c.

Hooks a claim provides:

* ``paths(p) -> [(name, grid, exponent), ...]``: ``grid`` lists the points as dicts, each with
  the abscissa ``"x"`` and whatever ``run`` needs (m, k, design...); ``exponent`` is the
  largest slope the statement allows, or None for a path that is measured and reported but not
  decided (information, or evidence for an erratum);
* ``run(p, task, subjects, streams) -> float | dict``: the quantity at one grid point for one
  repetition; ``streams`` is (kernel state for the sample, int ``random_state`` for the
  subject). A dict holds ``"value"`` and may hold ``"trivial"`` (the trivial learner's value on
  the same task), ``"holds"`` (whether the theorem's pathwise conclusion held on this run),
  ``"hypotheses"`` (a list of Hypothesis) and any other columns.

Optional: ``conclusion`` (the sentence ``holds`` refers to: one run where it fails is a certain
FAIL, :func:`theorycheck.stats.decide_always`); ``notes(p, table, fits)`` and
``errata_evidence(p, table, fits)`` (``fits`` maps each path to its SlopeFit or None);
``xlabel``, ``ylabel``. When runs report ``"trivial"``, the trivial learner's values are decided
the same way; if it does not FAIL, the instance is vacuous (never PASS).

Parameters every rate claim declares: ``repetitions``, ``delta``, ``resolution``.

The figure draws, per path against x/x₀, the mean quantity at each level, the fan between the
lines through the centroid with the two ends of the slope interval (the interval that decides),
the claimed power through the same centroid, and the trivial learner's means.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Measurement, Plot
from ..validation import Integer, Probability, Resolution
from .learners import streams

__all__ = ["Rate"]


class Rate(Claim):
    kind = "rate"
    conclusion: str = ""
    xlabel: str = "x / x₀ (each path relative to its first level)"
    ylabel: str = "mean of the measured quantity"
    parameters = {"repetitions": Integer(2), "delta": Probability(), "resolution": Resolution(zero=True)}

    # ------------------------------------------------------------------ hooks
    def paths(self, p) -> list[tuple[str, list[dict], float | None]]:
        raise NotImplementedError

    def run(self, p, task, subjects, streams):
        raise NotImplementedError

    def notes(self, p, table, fits) -> list[str]:
        return []

    def errata_evidence(self, p, table, fits) -> dict:
        return {}

    # ------------------------------------------------------------------ machinery
    def tasks(self, p):
        return [{"path": name, "level": i, **point, "repetition": r}
                for name, grid, _ in self.paths(p) for i, point in enumerate(grid)
                for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        out = self.run(p, task, subjects, streams(seed))
        out = dict(out) if isinstance(out, dict) else {"value": out}
        hyps = out.pop("hypotheses", [])
        return Measurement([{**task, **out}], hyps)

    def decide(self, p, table):
        paths = self.paths(p)
        decided = [name for name, _, exponent in paths if exponent is not None]
        level = p["delta"] / max(1, len(decided))
        verdicts, trivial_verdicts, lines, records, fits = [], [], [], [], {}
        first = trivial_slope = None
        for name, _, exponent in paths:
            part = table[table["path"] == name]
            x, y = part["x"].to_numpy(dtype=np.float64), part["value"].to_numpy(dtype=np.float64)
            fit, dec = stats.decide_slope_at_most(x, y, math.inf if exponent is None else exponent, level,
                                                  p["resolution"])
            fits[name] = fit
            if exponent is None:
                lines.append(f"- {name} (reported, not decided): " + (
                    f"slope {fit.slope:.3f}, interval [{fit.low:.3f}, {fit.high:.3f}]" if fit else dec.reason) + ".")
            else:
                verdicts.append(dec.verdict)
                lines.append(f"- {name} (claimed slope ≤ {exponent:g}): {dec.verdict}. {dec.reason}.")
                if first is None:
                    first = (fit, exponent)
            if "trivial" in part and exponent is not None:
                t_fit, t_dec = stats.decide_slope_at_most(x, part["trivial"].to_numpy(dtype=np.float64), exponent,
                                                          level, p["resolution"])
                trivial_verdicts.append(t_dec.verdict)
                if trivial_slope is None and t_fit is not None:
                    trivial_slope = t_fit.slope
            records += self._levels(name, part, fit, exponent)
        if self.conclusion and "holds" in table:
            broken = int((~table["holds"].astype(bool)).sum())
            always = stats.decide_always(broken, len(table), self.conclusion, "relative 1e-9")
            verdicts.append(always.verdict)
            lines.append(f"- conclusion: {always.verdict}. {always.reason}.")
        text = (f"Rate test: per path, the least-squares slope of log(mean) on log x with a percentile-bootstrap "
                f"interval (runs resampled within each level) at level δ/{len(decided)} = {level:.3g}; FAIL if it "
                f"lies above the claimed exponent, PASS if its upper end is ≤ exponent + resolution "
                f"{p['resolution']:g}. The bootstrap's level is asymptotic, not a finite-sample guarantee, so "
                f"δ = {p['delta']:g} is the asymptotic false-FAIL rate.\n" + "\n".join(lines))
        vacuous = bool(trivial_verdicts) and stats.combine(trivial_verdicts) != stats.FAIL
        if vacuous:
            text += ("\nThe instance is vacuous: the trivial learner, which returns its starting point, meets every "
                     "decided rate too, so the check could not have failed.")
        fit, exponent = first if first else (None, None)
        errata = self.errata_evidence(p, table, fits)
        notes = [*self.notes(p, table, fits),
                 *(f"Paper erratum, shown on this run ({key}): {text}" for key, text in errata.items())]
        return Evidence(
            verdict=stats.combine(verdicts), observed=fit.slope if fit else None, theory=exponent,
            interval=(fit.low, fit.high) if fit else None,
            delta=p["delta"], decision=text, summary=pd.DataFrame(records), notes=notes, errata=errata,
            trivial=trivial_slope, vacuous=vacuous,
            plot=Plot(x="x_rel", y="mean", low="low", high="high", theory="theory", hue="path", logx=True,
                      logy=True, xlabel=self.xlabel, ylabel=self.ylabel,
                      trivial="trivial" if "trivial" in table else None, theory_label="claimed power (slope)",
                      band_label=f"lines with the ends of the {100 * (1 - level):.4g}% bootstrap slope interval "
                                 "(decides; asymptotic level)"))

    @staticmethod
    def _levels(name, part, fit, exponent):
        """Per-level rows of the summary: means, and the fan of the slope interval through the
        centroid of (log x, log mean)."""
        groups = part.groupby("x", sort=True)
        xs = np.array([x for x, _ in groups], dtype=np.float64)
        means = np.array([g["value"].mean() for _, g in groups], dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            lx, ly = np.log(xs), np.log(means)
        cx, cy = lx.mean(), ly.mean()
        rows = []
        for j, (x, g) in enumerate(groups):
            def line(s, j=j):
                return float(np.exp(cy + s * (lx[j] - cx))) if s is not None and np.isfinite(cy) else math.nan
            ends = (line(fit.low), line(fit.high)) if fit else (math.nan, math.nan)
            rows.append({"path": name, "x": float(x), "x_rel": float(x / xs[0]), "mean": float(means[j]),
                         "runs": len(g), "fit": line(fit.slope) if fit else math.nan,
                         "low": min(ends), "high": max(ends), "theory": line(exponent),
                         "trivial": float(g["trivial"].mean()) if "trivial" in g else math.nan})
        return rows
