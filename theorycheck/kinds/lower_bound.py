"""Kind "lower-bound": two classes.

* :class:`LowerBound`: every k-active predictor's risk is ≥ rhs (cbss11 Theorems 2 and 3).
* :class:`AttributesNeeded`: learners need at least so many attributes on a hard distribution
  (cbss11 Theorem 1, hk12 Theorem 2.2); its docstring lists its hooks.

LowerBound (cbss11 Theorems 2 and 3).

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

import math
from typing import ClassVar

import numpy as np
import pandas as pd

from .. import stats
from ..algorithms.k_active import AttributeOracle
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot, SubjectFailure
from ..protocols import Contract, Function, KActivePredictor, missing_keywords
from ..rng import kernel_state
from ..validation import Integer, Number, Probability, Resolution
from .learners import fit_learner

__all__ = ["AttributesNeeded", "LowerBound"]


class LowerBound(Claim):
    """Every k-active predictor's risk is at least the bound (see the module docstring)."""

    kind = "lower-bound"
    chunk: ClassVar[int] = 20_000
    theory_label: ClassVar[str] = "lower bound"
    protocols = {"predictors": Contract(KActivePredictor, call=("oracle", "k", "w_star", "random_state"), each=True),
                 "instance": Contract(Function, call=("params",))}
    parameters = {"examples": Integer(2), "repetitions": Integer(1), "delta": Probability(), "resolution": Resolution()}

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
        over = dict.fromkeys(parts, 0)  # examples on which the predictor read more than k attributes
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
                    raise SubjectFailure(f"predictor {pr.name!r} returned predictions of shape {pred.shape}, "
                                         f"finite={bool(np.isfinite(pred).all())}; expected {y.shape}, finite")
                loss = (pred - y) ** 2
                parts[pr.name].append((n, float(loss.mean()), float(loss.var(ddof=1))))
                reads = oracle.counts()
                most[pr.name] = max(most[pr.name], int(reads.max()))
                over[pr.name] += int((reads > k).sum())
        broke = [name for name, count in over.items() if count]
        if broke:  # the predictor broke the contract the bound is about: its failure, not the instance's
            raise SubjectFailure("; ".join(
                f"predictor {name!r} read more than k = {k} attributes on {over[name]} of {p['examples']} examples "
                f"(up to {most[name]} on one): it is not k-active, the budget the lower bound speaks about"
                for name in broke))
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
        lowest = summary.loc[summary["risk"].idxmin()]
        observed = float(lowest["risk"])
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
                        ratio=observed / bound if bound > 0 else None, interval=(lowest["low"], lowest["high"]),
                        delta=p["delta"], decision=text, summary=summary, notes=notes,
                        plot=Plot(x="predictor", y="risk", low="low", high="high", theory="bound",
                                  resolution="pass_line", kind="point", theory_label=self.theory_label,
                                  band_label=f"{level} interval that decides (empirical Bernstein)",
                                  xlabel="k-active predictor", ylabel="risk E[(ŷ − y)²]"))



class AttributesNeeded(Claim):
    """Attributes a learner observes before its excess risk first stays ≤ ε, on a hard distribution.

    cbss11 Theorem 1 and hk12 Theorem 2.2: on a distribution built for accuracy ε in dimension d
    (the ``instance`` subject; its hidden part is drawn afresh for every repetition), no learner
    reaches excess risk ε with fewer than ``bound(p, d, eps)`` observed attributes. Each learner
    (a subject following :class:`theorycheck.protocols.BudgetedLearner`) is measured at each grid
    point (d, ε) on one stream of examples:

    * Budget levels. The learner is fitted afresh on the first m_ℓ = ⌈m_start·ratio^ℓ⌉ examples
      (m_ℓ·d ≤ ``max_cells``, the memory of the dense rows, grown geometrically from the
      instance's rows on demand), each fit with ``learner_params`` for that m (the theorems' step
      sizes depend on m); its exact excess risk comes from the instance's closed form. Each level
      is a learner with a fixed budget, which is what the bound speaks about. The attributes are
      the count the learner reports (``n_attributes_seen_``), held to the reads observed: a learner
      other than the built-ins is fitted on a watched view of X and FAILs outright when it reports
      fewer attributes than it was seen to read (:func:`theorycheck.observe.counted_fit`).
    * First passage. The count at the first level from which every later fitted level succeeds
      (``success``), confirmed on ``confirm`` consecutive levels: the true first-passage count
      lies in (count one level below, count], both reported; the rates use the upper end. A run
      that does not get there by ``max_cells`` is censored (count > its last level's). Only the
      first ``rate_repetitions`` repetitions of the path points run that far.
    * The lower bound (when ``bound`` gives a constant). A violation at a level is a success with
      fewer attributes than the bound. Every repetition fits the levels until its count reaches
      the bound (later levels have more examples, hence more attributes). The theorem bounds the
      probability of a violation at each fixed level by ``violation_probability`` (for a learner
      that always succeeds this forces count ≥ bound, the printed form); per (grid point,
      learner, level) :func:`theorycheck.stats.decide_frequency_at_most` (Clopper–Pearson, exact)
      decides at δ_b/(levels fixed in advance · learners · points), a union bound. With no
      violation a level is PASS once ``repetitions`` make the interval for 0 clear the target.
    * Rates. Per path (d at fixed ε, 1/ε at fixed d) and learner: the least-squares slope of
      log(mean first-passage count) on log x with a percentile-bootstrap interval
      (:func:`theorycheck.stats.decide_slope_at_most`, asymptotic level), over the points where
      every run reached ε. Learners and axes named in ``exponents`` are decided two-sided: FAIL
      when the interval lies above ``high`` or (the same test against 1/x) below ``low``; PASS
      when it lies within [low − resolution, high + resolution]. The others are reported beside
      ``order_exponents``, the exponents of the bound's order.

    * Tightness (when ``bound`` gives a constant). Per point and learner, the mean first-passage count
      over the bound (``over_bound`` in the summary, where every rate run reached ε); the claim's
      observed/bound ratio is the smallest of them: the factor between the bound and the learner that
      comes closest to it, reported, not decided.

    The verdict combines the lower-bound tests and the decided slopes (δ split evenly between the
    two families when both exist).

    Hooks (required): ``paths(p) -> [(name, axis, [(d, eps), ...])]``, axis "d" or "1/ε";
    ``learner_params(p, name, d, eps, m) -> dict`` (constructor keywords; ``random_state`` is
    added); ``excess(p, design, w) -> float``; ``success(p, design, eps, w, excess) -> bool``;
    ``order(d, eps) -> float``. Optional: ``bound(p, d, eps) -> float | None`` with
    ``violation_probability(p, d, eps) -> float``; ``extra_points(p)`` (points for the lower-bound
    test only); ``exponents(p) -> {learner: {axis: (low, high)}}``; ``point_hypotheses(p,
    design, d, eps)``; ``output_check`` (a sentence) with ``output_ok(p, design, w) -> bool``;
    ``order_exponents``, ``order_label``, ``bound_label``; ``counted(m, n_read)`` (what is counted:
    the attributes by default, or the examples). Subjects: ``instance``, (d=, eps=,
    seed=) → a design with ``draw_key(random_state)`` and ``rows(key, n, start)``; one
    BudgetedLearner per name in the parameter ``learners``. Parameters: ``learners``,
    ``repetitions``, ``rate_repetitions``, ``delta``, ``resolution``, ``slope_resolution``,
    ``m_start``, ``m_ratio``, ``max_cells``, ``confirm``.
    """

    kind = "lower-bound"
    order_exponents: ClassVar[dict[str, float]] = {"d": 1.0, "1/ε": 1.0}
    order_label: ClassVar[str] = "order"
    bound_label: ClassVar[str] = "lower bound"
    output_check: ClassVar[str] = ""
    count_label: ClassVar[str] = "attributes observed"
    count_unit: ClassVar[str] = "attributes"
    parameters = {"repetitions": Integer(1), "rate_repetitions": Integer(0), "delta": Probability(),
                  "resolution": Resolution(zero=True), "slope_resolution": Resolution(zero=True), "m_start": Integer(1),
                  "m_ratio": Number(1.0, open="low"), "max_cells": Integer(1000), "confirm": Integer(1)}

    # ------------------------------------------------------------------ hooks
    def paths(self, p):
        """Default: a path in d at ε = p["eps"] over p["d_grid"], and one in 1/ε at d = p["d"] over p["eps_grid"]."""
        return [(f"d at ε = {p['eps']:g}", "d", [(d, p["eps"]) for d in p["d_grid"]]),
                (f"1/ε at d = {p['d']}", "1/ε", [(p["d"], e) for e in p["eps_grid"]])]

    def extra_points(self, p):
        return []

    def learner_params(self, p, name, d, eps, m) -> dict:
        raise NotImplementedError

    def excess(self, p, design, w) -> float:
        raise NotImplementedError

    def success(self, p, design, eps, w, excess) -> bool:
        return excess <= eps

    def order(self, d, eps) -> float:
        raise NotImplementedError

    def bound(self, p, d, eps):
        return None

    def violation_probability(self, p, d, eps) -> float:
        raise NotImplementedError

    def exponents(self, p) -> dict:
        return {}

    def point_hypotheses(self, p, design, d, eps) -> list[Hypothesis]:
        return []

    def output_ok(self, p, design, w) -> bool:
        return True

    def counted(self, m: int, n_read: int) -> float:
        """What the bound and the rates count at a fit on m examples that read n_read attributes (default: the
        attributes; a claim about examples returns m)."""
        return n_read

    # ------------------------------------------------------------------ machinery
    def check_params(self, params):
        from ..validation import ParameterError

        if params["rate_repetitions"] > params["repetitions"]:
            raise ParameterError("rate_repetitions must not exceed repetitions")

    def points(self, p) -> list[tuple[int, float, bool]]:
        """(d, eps, on a path) of every grid point, in a fixed order."""
        seen: dict[tuple[int, float], bool] = {}
        for _, _, pts in self.paths(p):
            for d, eps in pts:
                seen[(int(d), float(eps))] = True
        for d, eps in self.extra_points(p):
            seen.setdefault((int(d), float(eps)), False)
        return [(d, eps, on_path) for (d, eps), on_path in seen.items()]

    def levels(self, p, d) -> list[int]:
        """The budget levels m_ℓ at dimension d, fixed in advance."""
        cap = max(1, p["max_cells"] // d)
        out, level = [], 0
        while (m := math.ceil(p["m_start"] * p["m_ratio"] ** level - 1e-9)) <= cap:
            if not out or m > out[-1]:
                out.append(m)
            level += 1
        return out or [cap]

    def tasks(self, p):
        return [{"d": d, "eps": eps, "repetition": r, "rate": bool(on_path and r < p["rate_repetitions"])}
                for d, eps, on_path in self.points(p) for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        d, eps = task["d"], task["eps"]
        inst_seq, data_seq, own_seq = seed.spawn(3)
        design = subjects["instance"](d=d, eps=eps, seed=int(inst_seq.generate_state(1)[0]))
        key = design.draw_key(kernel_state(data_seq))
        bound = self.bound(p, d, eps)
        levels = self.levels(p, d)
        X, y = np.empty((0, d)), np.empty(0)
        rows, reported, outside = [], True, []
        for name, lseed in zip(p["learners"], own_seq.spawn(len(p["learners"])), strict=True):
            state = int(lseed.generate_state(1)[0])
            streak = 0
            for level, m in enumerate(levels):
                if m > X.shape[0]:  # grow the rows geometrically: rows of the one key, so one stream
                    size = min(levels[-1], max(m, 2 * X.shape[0]))
                    X_new, y_new = design.rows(key, size - X.shape[0], start=X.shape[0])
                    X, y = np.concatenate([X, X_new]), np.concatenate([y, y_new])
                kwargs = self.learner_params(p, name, d, eps, m)
                if not missing_keywords(subjects[name].__init__, ("random_state",)):
                    kwargs["random_state"] = state
                _, coef, n_read = fit_learner(subjects[name], X[:m], y[:m], **kwargs)
                if n_read is None or not 0 <= n_read <= m * d:
                    reported = False
                    n_read = m * d if n_read is None else max(0, n_read)
                excess = float(self.excess(p, design, coef)) if np.all(np.isfinite(coef)) else math.inf
                good = bool(self.success(p, design, eps, coef, excess))
                if self.output_check and not self.output_ok(p, design, coef):
                    outside.append(f"{name} at m = {m}")
                streak = streak + 1 if good else 0
                counted = self.counted(m, int(n_read))
                rows.append({"d": d, "eps": eps, "repetition": task["repetition"], "rate": task["rate"],
                             "learner": name, "level": level, "m": m, "attributes": int(n_read), "counted": counted,
                             "excess": excess, "success": good,
                             "violation": bool(good and bound is not None and counted < bound)})
                if (bound is None or counted >= bound) and (not task["rate"] or streak >= p["confirm"]):
                    break
        hyps = [Hypothesis("every learner reports the attributes it read (0 ≤ n_attributes_seen_ ≤ m·d)", reported,
                           "" if reported else "a learner reported no count or an impossible one")]
        if self.output_check:
            hyps.append(Hypothesis(self.output_check, not outside, ", ".join(outside[:5])))
        return Measurement(rows, hyps + list(self.point_hypotheses(p, design, d, eps)))

    # ------------------------------------------------------------------ decision
    @staticmethod
    def first_passage(table: pd.DataFrame) -> pd.DataFrame:
        """Per (point, learner, repetition) of the rate runs: ``count`` (the first-passage count,
        upper end), ``below`` (one level below: the lower end) and ``reached``; a censored run has
        ``last``, the count of its last level."""
        out = []
        rate = table[table["rate"].astype(bool)]
        for (d, eps, name, rep), run in rate.groupby(["d", "eps", "learner", "repetition"], sort=False):
            run = run.sort_values("level")
            good = run["success"].to_numpy(dtype=bool)
            counts = run["counted" if "counted" in run else "attributes"].to_numpy(dtype=np.float64)
            first = good.size
            while first > 0 and good[first - 1]:
                first -= 1
            reached = first < good.size
            out.append({"d": d, "eps": eps, "learner": name, "repetition": rep, "reached": reached,
                        "count": counts[first] if reached else math.nan,
                        "below": (counts[first - 1] if first > 0 else 0.0) if reached else math.nan,
                        "last": counts[-1]})
        return pd.DataFrame(out, columns=["d", "eps", "learner", "repetition", "reached", "count", "below", "last"])

    def _bound_tests(self, p, table, delta):
        """The lower-bound decisions: (verdicts, text, worst frequency per point and learner)."""
        points = [(d, eps) for d, eps, _ in self.points(p) if self.bound(p, d, eps) is not None]
        names = list(p["learners"])
        tests = sum(len(self.levels(p, d)) for d, _ in points) * len(names)
        each = delta / tests
        verdicts, fails, worst = [], [], {}
        for d, eps in points:
            bound, target = float(self.bound(p, d, eps)), float(self.violation_probability(p, d, eps))
            for name in names:
                part = table[(table["d"] == d) & (table["eps"] == eps) & (table["learner"] == name)]
                trials = int(part["repetition"].nunique())
                by_level = part.groupby("level")["violation"].sum()
                for level in range(len(self.levels(p, d))):
                    count = int(by_level.get(level, 0))
                    dec, _ = stats.decide_frequency_at_most(count, count, trials, target, each, p["resolution"],
                                                            f"runs ε-good with fewer {self.count_unit} than the bound")
                    verdicts.append(dec.verdict)
                    if count >= worst.get((d, eps, name), (-1,))[0]:
                        worst[(d, eps, name)] = (count, trials, level, target, bound)
                    if dec.verdict == stats.FAIL:
                        fails.append(f"{name} at d = {d}, ε = {eps:g}, level {level}: {dec.reason}")
        counts = {v: verdicts.count(v) for v in (stats.PASS, stats.FAIL, stats.INCONCLUSIVE)}
        targets = sorted({round(w[3], 4) for w in worst.values()})
        text = (f"Lower bound: {tests} tests (grid points × learners × budget levels fixed in advance). Each is a "
                f"Clopper–Pearson decision at δ_b/{tests} = {each:.3g} that the frequency of runs that are ε-good "
                f"with fewer {self.count_unit} than the bound is at most the probability the theorem allows at one "
                f"budget "
                f"({', '.join(f'{t:g}' for t in targets)}) + resolution {p['resolution']:g}: {counts[stats.PASS]} "
                f"PASS, {counts[stats.FAIL]} FAIL, {counts[stats.INCONCLUSIVE]} INCONCLUSIVE. False-FAIL rate ≤ "
                f"δ_b = {delta:g} (exact, union bound).")
        if fails:
            more = f"\n  - … and {len(fails) - 6} more" if len(fails) > 6 else ""
            text += "\n  - " + "\n  - ".join(fails[:6]) + more
        return verdicts, text, worst

    def _slopes(self, p, runs):
        """Summary rows per (learner, path, point) and the slope fits {(learner, axis): record}."""
        records, fits = [], {}
        for path, axis, pts in self.paths(p):
            x0 = float(pts[0][0]) if axis == "d" else 1.0 / float(pts[0][1])
            for name in p["learners"]:
                xs, ys, full_levels = [], [], []
                for d, eps in pts:
                    part = runs[(runs["d"] == d) & (runs["eps"] == float(eps)) & (runs["learner"] == name)]
                    x = float(d) if axis == "d" else 1.0 / float(eps)
                    full = len(part) > 0 and bool(part["reached"].all())
                    bound, order = self.bound(p, d, eps), float(self.order(d, eps))
                    mean = float(part["count"].mean()) if full else math.nan
                    records.append({"series": f"{name}, {path}", "learner": name, "path": path, "d": int(d),
                                    "eps": float(eps), "x": x, "x_rel": x / x0, "runs": len(part),
                                    "reached": int(part["reached"].sum()), "count": mean,
                                    "low": float(part["below"].mean()) if full else math.nan, "high": mean,
                                    "censored_above": math.nan if full or not len(part) else float(part["last"].min()),
                                    "bound": float(bound) if bound is not None else order, "order": order,
                                    "constant": mean / order,
                                    **({"over_bound": mean / float(bound)} if bound else {})})
                    if full:
                        xs += [x] * len(part)
                        ys += list(part["count"])
                        full_levels.append(x)
                if len(full_levels) >= 3:
                    xs_a, ys_a = np.asarray(xs), np.asarray(ys)
                    fit, _ = stats.decide_slope_at_most(xs_a, ys_a, math.inf, p["delta"], 0.0)
                    fits[(name, axis)] = {"fit": fit, "x": xs_a, "y": ys_a, "path": path,
                                          "points": len(full_levels), "of": len(pts)}
        return pd.DataFrame(records), fits

    def decide(self, p, table):
        names = list(p["learners"])
        has_bound = any(self.bound(p, d, eps) is not None for d, eps, _ in self.points(p))
        decided = {n: axes for n, axes in self.exponents(p).items() if n in names}
        n_slopes = sum(len(axes) for axes in decided.values())
        delta_family = p["delta"] / max(1, int(has_bound) + int(n_slopes > 0))
        verdicts, lines, notes = [], [], []
        worst = {}
        if has_bound:
            bound_verdicts, text, worst = self._bound_tests(p, table, delta_family)
            verdicts += bound_verdicts
            lines.append(text)
        runs = self.first_passage(table)
        summary, fits = self._slopes(p, runs)
        if n_slopes:
            level = delta_family / (2 * n_slopes)
            lines.append(f"Rates: two one-sided percentile-bootstrap tests per decided slope, each at level "
                         f"δ_s/{2 * n_slopes} = {level:.3g}, on the first-passage counts (upper ends); the "
                         f"bootstrap's level is asymptotic, so δ_s = {delta_family:g} is an asymptotic false-FAIL "
                         "rate.")
            for name, axes in decided.items():
                for axis, (lo, hi) in axes.items():
                    rec = fits.get((name, axis))
                    if rec is None:
                        verdicts.append(stats.INCONCLUSIVE)
                        lines.append(f"- {name}, slope in {axis}: INCONCLUSIVE (fewer than three points of the path "
                                     "where every run reached ε; raise max_cells)")
                        continue
                    _, upper = stats.decide_slope_at_most(rec["x"], rec["y"], hi, level, p["slope_resolution"])
                    _, lower = stats.decide_slope_at_most(1.0 / rec["x"], rec["y"], -lo, level,
                                                          p["slope_resolution"])
                    verdict = stats.combine([upper.verdict, lower.verdict])
                    verdicts.append(verdict)
                    lines.append(f"- {name}, slope of the count in {axis} (claimed in [{lo:g}, {hi:g}], resolution "
                                 f"{p['slope_resolution']:g}): {verdict}. Above: {upper.reason}. Below (slope against "
                                 f"1/x ≤ {-lo:g}): {lower.reason}.")
        notes += self._notes(p, runs, summary, fits, worst)
        observed = theory = ratio = None
        reached = runs[runs["reached"]]
        if has_bound and len(reached) and "over_bound" in summary and summary["over_bound"].notna().any():
            # the tightness: the smallest factor between the bound and a learner's mean first-passage count, over the
            # (point, learner) pairs where every run reached ε (a mean, not the luckiest run)
            best = summary.loc[summary["over_bound"].idxmin()]
            ratio, observed, theory = float(best["over_bound"]), float(best["count"]), float(best["bound"])
        elif n_slopes:
            name = next(iter(decided))
            axis = next(iter(decided[name]))
            if (name, axis) in fits:
                observed, theory = fits[(name, axis)]["fit"].slope, float(decided[name][axis][1])
        return Evidence(verdict=stats.combine(verdicts), observed=observed, theory=theory, ratio=ratio,
                        delta=p["delta"], decision="\n".join(lines), summary=summary, notes=notes,
                        plot=Plot(x="x_rel", y="count", low="low", high="high", theory="bound", hue="series",
                                  logx=True, logy=True, kind="line", theory_label=self.bound_label,
                                  xlabel="d / d₀ and (1/ε) / (1/ε₀): each path relative to its first point",
                                  ylabel=f"{self.count_label} before success stays (first passage)",
                                  band_label="bracket of the first-passage count: (one level below, the level], "
                                             "means over the runs"))

    def _notes(self, p, runs, summary, fits, worst) -> list[str]:
        notes = []
        for name in p["learners"]:
            part = summary[summary["learner"] == name]
            if not len(part):
                continue
            slopes, within = [], True
            for axis, order_exp in self.order_exponents.items():
                rec = fits.get((name, axis))
                if rec is None:
                    within = False
                    on_path = part[part["path"] == next((n for n, a, _ in self.paths(p) if a == axis), "")]
                    full = int(((on_path["runs"] == on_path["reached"]) & (on_path["runs"] > 0)).sum())
                    slopes.append(f"in {axis}: no fit (every run reached ε at {full} of {len(on_path)} points)")
                    continue
                fit = rec["fit"]
                meets = fit.low <= order_exp + p["slope_resolution"]
                within &= meets
                slopes.append(f"in {axis}: {fit.slope:.2f} [{fit.low:.2f}, {fit.high:.2f}] on {rec['points']}/"
                              f"{rec['of']} points (the {self.order_label} has {order_exp:g})")
            constants = part["constant"].dropna()
            censored = part[part["count"].isna() & (part["runs"] > 0)]
            text = (f"{name}: fitted exponents of the first-passage count " + "; ".join(slopes)
                    + f" ({100 * (1 - p['delta']):.4g}% percentile-bootstrap intervals, asymptotic).")
            if len(constants):
                text += (f" count/{self.order_label} = {constants.min():.3g} to {constants.max():.3g} over the points "
                         "where every run reached ε.")
            if "over_bound" in part and part["over_bound"].notna().any():
                best = part.loc[part["over_bound"].idxmin()]
                text += (f" Mean count/bound (the factor between the bound and this learner): smallest "
                         f"{best['over_bound']:.3g}, at d = {int(best['d'])}, ε = {best['eps']:g} (bound "
                         f"{best['bound']:g}).")
            if len(censored):
                text += (f" Not reached by every run within m·d ≤ {p['max_cells']} at {len(censored)} point(s) "
                         f"(count above {censored['censored_above'].min():.3g} there).")
            text += (f" Within a constant factor of the {self.order_label}: "
                     + ("yes (every exponent interval reaches the order's)." if within else "no."))
            notes.append(text)
        if worst:
            closest = max(worst.items(), key=lambda kv: kv[1][0] / max(1, kv[1][1]))
            (d, eps, name), (count, trials, level, target, bound) = closest
            notes.append(f"Largest frequency of a violation: {count}/{trials} runs of {name} at d = {d}, ε = {eps:g} "
                         f"(level {level}; the bound is {bound:g} {self.count_unit}, the allowed probability "
                         f"{target:.3g}).")
        return notes
