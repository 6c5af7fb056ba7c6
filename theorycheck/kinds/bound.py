"""Kind "bound": a mean over designs is at most a right-hand side, with the trivial learner beside it.

:class:`MeanBound` decides "E[value] ≤ rhs" on every design. Each design gets
``repetitions`` independent runs (in batches of :attr:`MeanBound.batch`, one random stream and
one cache file per batch); a run is one observation in a known almost-sure range
[lower, upper]. Per design, :func:`theorycheck.stats.decide_mean_at_most` (empirical Bernstein ∩
Anderson) decides at δ·share/(number of designs): FAIL when the interval lies above the bound,
PASS when its upper end is ≤ bound + resolution, INCONCLUSIVE otherwise. Parts combine with
:func:`theorycheck.stats.combine`; the family-wise false-FAIL rate is ≤ δ by the union bound.

Power is part of the verdict. When the rows carry a ``trivial`` column (the value of the
trivial learner, the one that returns its starting point, computed exactly), the same test is
applied to it: as many copies of that value as the subject had runs. A design where that test
would not FAIL is *vacuous*: a learner that never moves would have met the bound there, so the
check could not have failed, and the design can never PASS (it is INCONCLUSIVE and the decision
says so). :class:`RiskBound` always computes the trivial learner.

Hooks of :class:`MeanBound` (benchopt-style):

required
    ``batch_rows(p, task, subjects, seed) -> Measurement``: run ``task["reps"]`` runs of design
    ``task["design"]``; each row has ``part`` (``"bound"``), ``design``, ``value``, ``upper`` (an
    almost-sure upper end of the value) and ``bound`` (the right-hand side).
optional
    rows may add ``lower`` (almost-sure lower end, default 0) and ``trivial``;
    ``design_names(p)`` (default ``p["designs"]``); ``more_tasks(p)``, other task dicts (any
    ``part``); ``mean_share(p)``, the share of δ the means get (default 1); ``certain(p, table)``,
    pathwise conclusions as (parts, designs to leave untested); ``more_parts(p, table, delta,
    excluded)``, further (verdict or None, line) parts and notes with the rest of δ;
    ``errata_evidence(p, table)``, evidence text per declared erratum key; ``more_notes(p,
    table)``; ``figure_xlabel(p)``. Class attributes: ``quantity`` and ``theory_label`` (texts),
    ``relative_resolution`` (resolution × |bound|, default True), ``carry`` (row columns copied
    into the summary).
parameters
    ``designs``, ``repetitions``, ``delta``, ``resolution``.

:class:`RiskBound` is the bound on a budgeted learner's expected excess risk over a norm ball
(hk12 Theorems 3.1 and 3.4, ks15's Ridge and Lasso bounds). Each run draws a fresh training set
of m examples from a named design of the registry (setting "ridge" for ``norm = "l2"``,
"lasso" for ``"l1"``), fits the learner with fresh randomness and the theorem's η, and records
the exact population excess risk of w̄ (½-loss, against the minimiser over the ball,
:mod:`theorycheck.population`). Parts:

* the conclusion "w̄ lies in the ball" on every run (:func:`theorycheck.stats.decide_always`: one
  violation beyond rounding is a certain FAIL);
* (a) the bound at m, per design, as above, with the trivial learner starting at ``start``;
* (b) the bound along ``m_grid``: at each m, the same mean test, FAIL only ("consistent"
  otherwise; few runs per m rarely resolve a PASS), δ/2 split over designs and values of m. The
  slope of log E against log m from the one rate test, :func:`theorycheck.stats.decide_slope_at_most`
  (percentile bootstrap, asymptotic level), is reported beside it and never decides: the theorem
  bounds E by C·m^(−1/2) at every m, not the local slope, and a correct learner whose excess risk
  is c/√m − c′/m has a local slope above −1/2 everywhere (AERR on 'boundary' at d = 100 shows a
  slope of −0.488 with a bootstrap interval entirely above −1/2 while it sits at 0.17 of the bound);
* (c) the scaling in d/k at ``dk_m`` over ``k_grid``: a fitted slope, reported only;
* witnesses of declared errata (``witnesses``), outside the verdict, into ``Evidence.errata``.

Hooks of :class:`RiskBound`: required ``norm`` ("l2" or "l1"), ``bound(p, d, k, m)``,
``eta(p, d, k, m)``, ``start(p, d)`` (the trivial learner's w_1); optional
``bound_for_eta(p, d, k, m, eta)`` (what the proof gives for another η), ``extra_hypotheses(p,
d, m)``, ``more_notes(p, table)``, ``witnesses = {erratum key: {form: parameter overrides with a
"design"}}`` (with the parameter ``witness_repetitions``). Subjects: ``learner`` (a
:class:`~theorycheck.protocols.BudgetedLearner` class built as learner(k=, B=, eta=,
random_state=int)) and ``design`` ((params, name) → a Design). Parameters (rules declared
here): d, k, B, noise, rho, m, repetitions, designs, rate_designs, m_grid, rate_repetitions,
k_grid, dk_m, dk_repetitions, delta, resolution.

Optional hooks for distribution-dependent learners and bounds (ks15; the hk12 claims use none):

* ``design_grid = {design name: (design parameter, claim parameter)}``: part (a) runs that design
  once per value of the claim's grid parameter (e.g. ``{"decaying_bounded": ("alpha", "alphas")}``
  gives one design per α, labelled "decaying_bounded α=−2"); :meth:`RiskBound.variants` lists
  them (override it for anything else).
* ``design_quantities(p, design) -> dict``: quantities of the design built for a run (e.g. its
  second moments ``diag E[xxᵀ]``), merged into the parameters that ``bound``, ``bounds``,
  ``eta``, ``start``, ``bound_for_eta``, ``learner_params`` and ``extra_hypotheses`` see, so a
  right-hand side or step size may depend on the distribution (a key may not shadow a parameter).
* ``learner_params(p, design) -> dict``: further keywords for the learner (e.g.
  ``second_moments=``); declare them in the claim's ``protocols`` as well.
* ``reported(p, d, k, m) -> dict``: numbers written into every row beside the bound (e.g. another
  paper's bound on the same instance); name them in ``carry`` to show them in the summary.
* ``eta`` may return None: the learner then chooses its own step size (data-dependent, as the
  two-phase learners' η from their phase-1 estimates) and reports it as ``eta_``.
* ``bounds(p, d, k, m) -> {form: rhs}``: several right-hand sides of one theorem checked on the
  same runs (one row per form, labelled "design · form"; default ``{"": bound(p, d, k, m)}``).
  The mean tests split δ over every (design, form) pair.
* ``events = {name: statement}`` with ``event(p, name, design, model, X, y) -> (certain,
  possible, value)`` and ``event_target(p, name)`` (the probability with which the theorem allows
  the event's *violation*): a supporting fact that holds with probability ≥ 1 − target over the
  learner's own randomness and the sample (e.g. ks15 Theorem 3.4's sandwich of H). It gets its own
  runs: ``event_repetitions`` runs per design of ``event_variants(p)`` (part (a)'s unless overridden) of
  ``event_length(p)`` examples (short runs when the
  fact needs only the learner's first phase), each fitted as in part (a); ``certain``/``possible``
  say whether the run surely/possibly violates it; an optional fourth element, a dict of numbers, is
  added to the run's row (for a claim's own ``event_parts``). With ``event_record = True`` the event
  runs build the learner with ``record_trajectory=True`` when it takes that keyword (a learner that
  does not is built without it: the event then sees no ``trajectory_`` and must say so). Per event and design,
  :func:`theorycheck.stats.decide_frequency_at_most` (Clopper–Pearson) decides "P(violation) ≤
  target": FAIL when the certain count's interval lies above the target, PASS when the possible
  count's upper end is ≤ target·(1 + resolution). ``value`` is reported (its extremes).
* ``consistency = {name: statement}`` with ``path_errors(p, model, X, y) -> {name: deviation}``:
  the first batch of part (a)'s runs on each design builds the learner with
  ``record_trajectory=True`` and measures how far the path it recorded is from the algorithm's
  definition for the draws it recorded (e.g. ks15 Theorem 4.1's estimate φ̃·x̃ with the declared
  q); a deviation beyond 10⁻⁹ (relative) on one run is a certain FAIL
  (:func:`theorycheck.stats.decide_always`), like the ball conclusion. (Recording a path costs
  about twice the run, so the other batches run without it.)

δ is split evenly between part (a), part (b) (when it runs) and the events (when declared), and
within each part by the union bound.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot, SubjectFailure
from ..generators.registry import design_names, lasso_design, ridge_design
from ..observe import counted_fit
from ..population import constrained_optimum, excess_risk
from ..protocols import BudgetedLearner, Contract, Function, coef_vector, missing_keywords
from ..rng import kernel_state
from ..validation import Budget, Grid, Integer, Names, Number, ParameterError, Positive, Probability, Resolution

__all__ = ["MeanBound", "RiskBound", "excess_range"]

_SLACK = 1e-9  # relative rounding slack: "w̄ in the ball" and the range checks
_CONSISTENCY = 1e-9  # relative: a recorded path against the algorithm's definition


def _level(delta: float) -> str:
    return f"{100 * (1 - delta):.6g}%"


def _g(value) -> str:
    return "—" if value is None or not np.isfinite(value) else f"{value:.4g}"


class MeanBound(Claim):
    """A mean over designs is at most a right-hand side (see the module docstring for the hooks)."""

    kind = "bound"
    batch: ClassVar[int] = 25
    quantity: ClassVar[str] = "E[value]"
    theory_label: ClassVar[str] = "bound"
    relative_resolution: ClassVar[bool] = True
    carry: ClassVar[tuple[str, ...]] = ()
    parameters = {"repetitions": Integer(2), "delta": Probability(), "resolution": Resolution()}

    # ------------------------------------------------------------------ hooks
    def batch_rows(self, p, task, subjects, seed) -> Measurement:
        raise NotImplementedError

    def design_names(self, p) -> tuple[str, ...]:
        return tuple(p["designs"])

    def more_tasks(self, p) -> list[dict]:
        return []

    def mean_share(self, p) -> float:
        return 1.0

    def certain(self, p, table) -> tuple[list[tuple[str, str]], set]:
        return [], set()

    def more_parts(self, p, table, delta, excluded) -> tuple[list[tuple[str | None, str]], list[str]]:
        return [], []

    def errata_evidence(self, p, table) -> dict[str, str]:
        return {}

    def more_notes(self, p, table) -> list[str]:
        return []

    def figure_xlabel(self, p) -> str:
        return "design"

    # ------------------------------------------------------------------ machinery
    def batches(self, part: str, design: str, reps: int, **fields) -> list[dict]:
        """Task dicts for ``reps`` runs of ``design`` in batches of :attr:`batch`."""
        return [{"part": part, "design": design, **fields, "first": start, "reps": min(self.batch, reps - start)}
                for start in range(0, reps, self.batch)]

    def tasks(self, p):
        out = [t for name in self.design_names(p) for t in self.batches("bound", name, p["repetitions"])]
        return out + self.more_tasks(p)

    def measure(self, p, task, subjects, seed):
        return self.batch_rows(p, task, subjects, seed)

    def resolution_for(self, p, bound: float) -> float:
        return float(p["resolution"]) * (abs(bound) if self.relative_resolution else 1.0)

    def decide_designs(self, p, table, delta_each: float, excluded=frozenset()):
        """Decide every design of the ``"bound"`` rows of ``table`` at ``delta_each``: returns
        (summary records, parts as (verdict, line), notes)."""
        main = table[table["part"] == "bound"]
        records, parts, notes = [], [], []
        for name in dict.fromkeys(main["design"]):
            rows = main[main["design"] == name]
            first = rows.iloc[0]
            lower = float(rows["lower"].min()) if "lower" in rows else 0.0
            upper, bound = float(rows["upper"].max()), float(first["bound"])
            values = rows["value"].to_numpy(dtype=float)
            res = self.resolution_for(p, bound)
            mean = float(values.mean())
            rec: dict[str, Any] = {"design": name, **{c: first[c] for c in self.carry if c in rows},
                                   "runs": len(values), "mean": mean, "bound": bound, "pass_line": bound + res,
                                   "ratio": mean / bound if bound > 0 else None, "lower": lower, "upper": upper,
                                   "low": math.nan, "high": math.nan, "trivial": math.nan, "trivial_ratio": None,
                                   "vacuous": False}
            if name in excluded:
                rec["verdict"] = "not tested"
                parts.append((None, f"- {name}: not tested (a certain failure above leaves its range unknown)."))
                records.append(rec)
                continue
            iv, dec, hint = stats.decide_mean_at_most(values - lower, upper - lower, bound - lower, delta_each, res)
            rec.update(low=iv.low + lower, high=iv.high + lower)
            verdict, reason = dec.verdict, dec.reason
            trivial_text = ""
            if "trivial" in rows and np.isfinite(float(first["trivial"])):
                tv = float(first["trivial"])
                tiv, tdec, _ = stats.decide_mean_at_most(np.full(len(values), tv - lower), upper - lower,
                                                         bound - lower, delta_each, res)
                vacuous = tdec.verdict != stats.FAIL
                rec.update(trivial=tv, trivial_ratio=tv / bound if bound > 0 else None, vacuous=vacuous)
                if vacuous:
                    trivial_text = (f" VACUOUS: the trivial learner (value {tv:.4g}) run through the same test "
                                    f"gives [{tiv.low + lower:.4g}, {tiv.high + lower:.4g}], which does not lie above "
                                    f"the bound, so a learner that never moves would not FAIL here.")
                    if verdict == stats.PASS:
                        verdict = stats.INCONCLUSIVE
                        reason = f"no PASS on a vacuous design; the test alone said PASS: {reason}"
                else:
                    trivial_text = (f" Not vacuous: the trivial learner's value {tv:.4g} ({tv / bound:.3g} × the "
                                    f"bound) would FAIL the same test (its interval starts at {tiv.low + lower:.4g}).")
            rec["verdict"] = verdict
            parts.append((verdict, f"- {name}: {verdict}. {reason}.{trivial_text}"))
            if hint:
                notes.append(f"{name}: {hint}; raise `repetitions`.")
            records.append(rec)
        return records, parts, notes

    def decide(self, p, table):
        delta = float(p["delta"])
        names = list(dict.fromkeys(table.loc[table["part"] == "bound", "design"]))
        share = self.mean_share(p)
        each = delta * share / max(len(names), 1)
        certain_parts, excluded = self.certain(p, table)
        records, parts, notes = self.decide_designs(p, table, each, excluded)
        more, more_notes = self.more_parts(p, table, delta * (1.0 - share), excluded)
        every = [*certain_parts, *parts, *more]
        verdict = stats.combine(v for v, _ in every if v is not None)
        summary = pd.DataFrame(records)
        tested = [r for r in records if r["verdict"] != "not tested" and r["ratio"] is not None]
        head = max(tested, key=lambda r: r["ratio"]) if tested else None
        has_trivial = "trivial" in table
        res_text = (f"{p['resolution']:g} × the bound" if self.relative_resolution else f"{p['resolution']:g}")
        text = (
            f"Claim: {self.quantity} ≤ {self.theory_label} on each of {len(names)} design(s). Per design, the interval "
            f"that decides is the empirical Bernstein ∩ Anderson interval at level {_level(each)} (δ = {each:.3g}) on "
            f"the runs' values in their almost-sure range (column `upper`): FAIL if it lies above the bound, PASS if "
            f"its upper end is ≤ bound + resolution ({res_text}), INCONCLUSIVE otherwise. "
            + ("The trivial learner's exact value goes through the same test with as many runs; a design where it "
               "would not FAIL is vacuous and never PASS. " if has_trivial else "")
            + f"Parts combine as FAIL if any fails, PASS if all pass. Family-wise false-FAIL rate ≤ δ = {delta:g} "
            f"(union bound).\n" + "\n".join(line for _, line in every)
        )
        return Evidence(
            verdict=verdict,
            observed=head["mean"] if head else None,
            theory=head["bound"] if head else None,
            ratio=head["ratio"] if head else None,
            interval=(head["low"], head["high"]) if head else None,
            trivial=head["trivial"] if head and has_trivial else None,
            vacuous=any(r["vacuous"] for r in records),
            delta=delta,
            decision=text,
            summary=summary,
            notes=[*notes, *more_notes, *self.more_notes(p, table)],
            errata=self.errata_evidence(p, table),
            plot=Plot(x="design", y="mean", low="low", high="high", theory="bound", resolution="pass_line",
                      trivial="trivial" if has_trivial else None, kind="point", logy=True,
                      band_label=f"{_level(each)} interval that decides (empirical Bernstein ∩ Anderson)",
                      theory_label=self.theory_label, xlabel=self.figure_xlabel(p), ylabel=self.quantity),
        )


# ---------------------------------------------------------------------- a learner's excess risk
def draw_repetition(design, m: int, child, norm: str) -> tuple[np.ndarray, np.ndarray, float, float, int]:
    """One repetition of a risk bound: ``m`` examples of ``design`` from the first child of the
    repetition's seed ``child``, and the learner's integer seed from the second; returns (X, y, the
    largest ‖x‖ (‖·‖₂ for ``norm`` "l2", ‖·‖∞ otherwise), the largest |y|, the learner's seed)."""
    data_seq, algo_seq = child.spawn(2)
    X, y = design.sample(m, kernel_state(data_seq))
    size_x = float(np.sqrt(np.einsum("ij,ij->i", X, X).max())) if norm == "l2" else float(np.abs(X).max())
    return X, y, size_x, float(np.abs(y).max()), int(algo_seq.generate_state(1)[0])


def excess_range(norm: str, moments, B: float, w_opt: np.ndarray) -> float:
    """An almost-sure upper end of L(w) − L(w*) over the ball (½-loss), w* the minimiser.

    L1: a convex function is largest over the L1 ball at a vertex ±B·e_i, so the maximum over
    the 2d vertices is exact. L2: with Δ = w − w*, L(w) − L(w*) = ⟨g*, Δ⟩ + ½ΔᵀΣΔ where
    g* = Σw* − E[xy]; since ‖Δ‖₂ ≤ B + ‖w*‖₂ this is at most ‖g*‖(B + ‖w*‖) + ½λ_max(Σ)(B + ‖w*‖)².
    Both are at most 2B² (|⟨w, x⟩| ≤ B on the ball, so ½(⟨w, x⟩ − y)² ≤ ½(2B)²).
    """
    sigma, c, _ = moments
    if norm == "l1":
        d = c.shape[0]
        vertices = np.concatenate([B * np.eye(d), -B * np.eye(d)])
        top = float(np.max(excess_risk(vertices, moments, B, norm="l1", half=True, optimum=(w_opt, None))))
    else:
        reach = B + float(np.linalg.norm(w_opt))
        diagonal = np.count_nonzero(sigma) == np.count_nonzero(np.diag(sigma))  # λ_max without an O(d³) solve
        lam_max = float(np.diag(sigma).max()) if diagonal else float(np.linalg.eigvalsh(sigma)[-1])
        top = float(np.linalg.norm(sigma @ w_opt - c)) * reach + 0.5 * lam_max * reach * reach
    return min(top, 2.0 * B * B)


def consistency_part(runs, name: str, text: str, where: tuple[str, str], lead: str) -> tuple[str, str]:
    """The check ``name`` of a recorded path on every run of ``runs`` (column ``check:<name>``): one
    run whose path deviates from the algorithm's by more than 10⁻⁹ (relative), or by NaN, is a
    certain FAIL. ``where`` is (column, word) naming the setting of the worst run."""
    column = f"check:{name}"
    if column not in runs:
        raise RuntimeError(f"the path checks did not return the declared consistency check {name!r}")
    dev = runs[column].to_numpy(dtype=float)
    bad = ~(dev <= _CONSISTENCY)
    dec = stats.decide_always(int(bad.sum()), len(runs), f"{name} ({text})", slack=f"{_CONSISTENCY:g} relative")
    line = f"{lead}{dec.verdict}{'.' if lead.endswith(': ') else ':'} {dec.reason}"
    if bad.any():
        worst = runs.iloc[int(np.nanargmax(np.where(np.isnan(dev), np.inf, dev)))]
        line += f"; worst relative deviation {worst[column]:.3g} ({where[1]} {worst[where[0]]}, run {worst['run']})"
    return dec.verdict, line + "."


_SETTING = {"l2": ("ridge", "‖x‖₂", "‖w̄‖₂", ridge_design), "l1": ("lasso", "‖x‖∞", "‖w̄‖₁", lasso_design)}
_SYMBOL = {"alpha": "α"}  # how a design parameter of design_grid is written in a label


class RiskBound(MeanBound):
    """A budgeted learner's expected excess risk over a norm ball (see the module docstring)."""

    norm: ClassVar[str]
    quantity = "E[L(w̄)] − L(w*)"
    carry = ("d", "k", "m")
    rate: ClassVar[float] = -0.5
    witnesses: ClassVar[dict[str, dict[str, dict]]] = {}
    #: design name -> (design parameter, grid parameter of the claim): one design per grid value
    design_grid: ClassVar[dict[str, tuple[str, str]]] = {}
    #: supporting events checked at a frequency (name -> statement); see the module docstring
    events: ClassVar[dict[str, str]] = {}
    #: event runs build the learner with record_trajectory=True (when it takes it); see the module docstring
    event_record: ClassVar[bool] = False
    #: checks that part (a)'s recorded paths are the algorithm's (name -> statement); see path_errors
    consistency: ClassVar[dict[str, str]] = {}
    protocols = {"learner": Contract(BudgetedLearner, init=("k", "B", "eta", "random_state")),
                 "design": Contract(Function, call=("params", "name"))}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "norm" not in cls.__dict__:
            return
        setting, *_, default_design = _SETTING[cls.norm]
        names = design_names(setting)
        rules = {"d": Integer(2), "k": Budget(), "B": Positive(), "noise": Number(0.0, 1.0), "rho": Number(0.0, 1.0),
                 "m": Integer(1), "repetitions": Integer(2), "designs": Names(*names),
                 "rate_designs": Names(*names, allow_empty=True), "m_grid": Grid(Integer(1)),
                 "rate_repetitions": Integer(0), "k_grid": Grid(Budget()), "dk_m": Integer(1),
                 "dk_repetitions": Integer(0), "delta": Probability(), "resolution": Resolution()}
        if cls.witnesses:
            rules["witness_repetitions"] = Integer(0)
        if cls.events:
            rules["event_repetitions"] = Integer(0)
        cls.parameters = {**rules, **cls.__dict__.get("parameters", {})}
        cls.subjects = {"design": default_design, **cls.__dict__.get("subjects", {})}

    # ------------------------------------------------------------------ hooks
    def bound(self, p, d: int, k: int, m: int) -> float:
        raise NotImplementedError

    def eta(self, p, d: int, k: int, m: int) -> float:
        raise NotImplementedError

    def start(self, p, d: int) -> np.ndarray:
        raise NotImplementedError

    def bound_for_eta(self, p, d: int, k: int, m: int, eta: float) -> float:
        return math.nan

    def extra_hypotheses(self, p, d: int, m: int) -> list[Hypothesis]:
        return []

    def bounds(self, p, d: int, k: int, m: int) -> dict[str, float]:
        return {"": self.bound(p, d, k, m)}

    def design_quantities(self, p, design) -> dict[str, Any]:
        return {}

    def learner_params(self, p, design) -> dict[str, Any]:
        return {}

    def reported(self, p, d: int, k: int, m: int) -> dict[str, float]:
        return {}

    def event(self, p, name: str, design, model, X, y) -> tuple:
        """(certain, possible, value) or (certain, possible, value, {column: number})."""
        raise NotImplementedError

    def event_target(self, p, name: str) -> float:
        raise NotImplementedError

    def event_length(self, p) -> int:
        return int(p["m"])

    def path_errors(self, p, model, X, y) -> dict[str, float]:
        """For each name of :attr:`consistency`, the largest relative deviation of the path the
        learner recorded (built with ``record_trajectory=True`` in part (a)) from what the algorithm
        would have done with the draws it recorded: 0 up to rounding."""
        return {}

    def variants(self, p) -> list[dict]:
        """Part (a)'s designs: dicts with ``label`` (the design column), ``design`` (the name the
        ``design`` subject builds) and ``fixed`` (parameter overrides): one per name of
        ``designs``, or one per grid value for the names in :attr:`design_grid`."""
        out = []
        for name in p["designs"]:
            if name in self.design_grid:
                key, grid = self.design_grid[name]
                out += [{"label": f"{name} {_SYMBOL.get(key, key)}={v:g}", "design": name, "fixed": {key: v}}
                        for v in p[grid]]
            else:
                out.append({"label": name, "design": name, "fixed": {}})
        return out

    def event_variants(self, p) -> list[dict]:
        """The designs the events run on (as :meth:`variants`): part (a)'s by default."""
        return self.variants(p)

    # ------------------------------------------------------------------ parameters and tasks
    def check_params(self, p):
        for name, (_, grid) in self.design_grid.items():
            if name in p["designs"] and grid not in p:
                raise ParameterError(f"design {name} needs the grid parameter {grid}")
        stray = [name for name in p["rate_designs"] if name not in p["designs"]]
        if stray and p["rate_repetitions"] > 0:
            raise ParameterError(f"rate_designs must be among designs ({', '.join(p['designs'])}), got "
                                 f"{', '.join(stray)}")
        for part in ("rate", "dk"):
            if p[f"{part}_repetitions"] == 1:
                raise ParameterError(f"{part}_repetitions must be 0 (skip that part) or at least 2")

    def figure_xlabel(self, p):
        return f"design (d = {p['d']}, k = {p['k']}, m = {p['m']}, B = {p['B']:g})"

    def mean_share(self, p):
        return 1.0 / (1 + self._rate_on(p) + self._events_on(p))

    @staticmethod
    def _rate_on(p) -> bool:
        return p["rate_repetitions"] > 0 and len(p["rate_designs"]) > 0

    def _events_on(self, p) -> bool:
        return bool(self.events) and p.get("event_repetitions", 0) > 0

    @staticmethod
    def _task_fields(variant: dict) -> dict:
        """What a task adds for a variant: nothing for a plain registry design (the hk12 tasks)."""
        if variant["label"] == variant["design"] and not variant["fixed"]:
            return {}
        return {"name": variant["design"], "fixed": dict(variant["fixed"])}

    def tasks(self, p):
        out = [t for v in self.variants(p) for t in self.batches("bound", v["label"], p["repetitions"],
                                                                    **self._task_fields(v))]
        return out + self.more_tasks(p)

    def more_tasks(self, p):
        out = []
        if self._events_on(p):
            for name in self.events:
                for v in self.event_variants(p):
                    out += self.batches("event", v["label"], p["event_repetitions"], event=name,
                                        m=int(self.event_length(p)), **self._task_fields(v))
        if self._rate_on(p):
            for name in p["rate_designs"]:
                for m in sorted(set(p["m_grid"])):
                    out += self.batches("rate", name, p["rate_repetitions"], m=int(m))
        if p["dk_repetitions"] > 0:
            for name in p["designs"]:
                for k in sorted(set(p["k_grid"])):
                    out += self.batches("scaling", name, p["dk_repetitions"], m=int(p["dk_m"]), k=int(k))
        for key, forms in self.witnesses.items():
            for form, changes in forms.items():
                fixed = {n: v for n, v in changes.items() if n != "design"}
                out += self.batches("witness", changes["design"], p.get("witness_repetitions", 0),
                                    key=key, form=form, fixed=fixed)
        return out

    # ------------------------------------------------------------------ one batch of runs
    def batch_rows(self, p, task, subjects, seed):
        q = {**p, **task.get("fixed", {})}
        B = float(q["B"])
        m, k = int(task.get("m", q["m"])), int(task.get("k", q["k"]))
        design = subjects["design"](q, task.get("name", task["design"]))
        moments = (np.asarray(design.second_moment, dtype=np.float64),
                   np.asarray(design.cross_moment, dtype=np.float64), float(design.y_second_moment))
        d = moments[1].shape[0]
        if k > d:
            raise ParameterError(f"k={k} exceeds the design's dimension d={d}")
        extra = self.design_quantities(q, design)
        shadowed = sorted(set(extra) & set(q))
        if shadowed:
            raise RuntimeError(f"design_quantities shadows the parameters {', '.join(shadowed)}")
        q.update(extra)
        optimum = constrained_optimum(moments, B, norm=self.norm, half=True)
        top = excess_range(self.norm, moments, B, optimum[0])
        trivial = float(excess_risk(self.start(q, d), moments, B, norm=self.norm, half=True, optimum=optimum))
        trivial = min(max(trivial, 0.0), top)
        eta = self.eta(q, d, k, m)
        forms = self.bounds(q, d, k, m) if task["part"] == "bound" else {"": self.bound(q, d, k, m)}
        for_eta = math.nan if eta is None else self.bound_for_eta(q, d, k, m, eta)
        params = self.learner_params(q, design)
        shown = self.reported(q, d, k, m)
        ord_ = 2 if self.norm == "l2" else 1
        _, x_name, _, _ = _SETTING[self.norm]
        rows, x_max, y_max, over = [], 0.0, 0.0, []
        record = bool(self.consistency) and task["part"] == "bound" and task["first"] == 0
        record = record or (self.event_record and task["part"] == "event"
                            and not missing_keywords(subjects["learner"], ("record_trajectory",)))
        for r, child in enumerate(seed.spawn(task["reps"])):
            X, y, size_x, size_y, own = draw_repetition(design, m, child, self.norm)
            x_max, y_max = max(x_max, size_x), max(y_max, size_y)
            model = subjects["learner"](k=k, B=B, eta=eta, random_state=own, **params,
                                        **({"record_trajectory": True} if record else {}))
            model, _ = counted_fit(model, X, y)  # a learner that reads more than it reports FAILs here
            checks = {f"check:{name}": float(v) for name, v in self.path_errors(q, model, X, y).items()} \
                if record else {}
            w = coef_vector(model, "learner")
            if w.shape != (d,) or not np.all(np.isfinite(w)):
                problem = "non-finite values" if w.shape == (d,) else f"shape {w.shape}, not ({d},)"
                raise SubjectFailure(f"the learner's w̄ (coef_) has {problem}, on repetition {r} "
                                     f"({m} examples, d = {d})")
            size = float(np.linalg.norm(w, ord=ord_))
            in_ball = size <= B * (1.0 + _SLACK)
            value = float(excess_risk(w, moments, B, norm=self.norm, half=True, optimum=optimum))
            if in_ball:
                if value < -_SLACK * top or value > top * (1.0 + _SLACK):
                    raise RuntimeError(f"excess risk {value:.6g} outside [0, {top:.6g}] for w̄ in the ball: "
                                       "inaccurate optimum or range")
                value = min(max(value, 0.0), top)
            seen = getattr(model, "n_attributes_seen_", None)
            if seen is None:
                over = ["the learner does not report n_attributes_seen_"]
            elif int(seen) > (k + 1) * m:
                over = [f"read {int(seen)} > (k+1)·m = {(k + 1) * m} attributes (k={k}, m={m})"]
            reported = getattr(model, "eta_", None)
            row = {"part": task["part"], "design": task["design"], "key": task.get("key"),
                   "form": task.get("form"), "d": d, "k": k, "m": m, "B": B, "run": task["first"] + r,
                   "value": value, "upper": top, "trivial": trivial, "in_ball": bool(in_ball),
                   "norm_w": size, "attributes": -1 if seen is None else int(seen),
                   "eta": math.nan if eta is None else eta,
                   "eta_reported": math.nan if reported is None else float(reported), "bound_for_eta": for_eta,
                   "recorded": record, **shown, **checks}
            if task["part"] == "event":
                certain, possible, measured, *more = self.event(q, task["event"], design, model, X, y)
                rows.append({**row, "event": task["event"], "bound": math.nan, "copy": 0,
                             "violation_certain": bool(certain), "violation_possible": bool(possible or certain),
                             "event_value": float(measured), **(more[0] if more else {})})
                continue
            for copy, (form, bound) in enumerate(forms.items()):
                label = f"{task['design']} · {form}" if form else task["design"]
                rows.append({**row, "design": label, "variant": task["design"], "bound": float(bound), "copy": copy})
        satisfies = getattr(design, "satisfies", None)
        hyps = [
            Hypothesis(f"{x_name} ≤ 1 on every example drawn", x_max <= 1.0 + 1e-12, f"max {x_name} = {x_max:.15g}"),
            Hypothesis("|y| ≤ B on every example drawn", y_max <= B * (1.0 + 1e-12),
                       f"max |y| = {y_max:.15g}, B = {B:g}"),
            Hypothesis(f"the design declares {x_name} ≤ 1 and |y| ≤ B almost surely (Design.satisfies)",
                       bool(satisfies(self.norm, B)) if satisfies else False,
                       "" if satisfies else "the design has no satisfies(norm, B)"),
            Hypothesis("the learner reads at most k + 1 attributes per example (n_attributes_seen_ ≤ (k+1)·m)",
                       not over, "; ".join(over)),
            *self.extra_hypotheses(q, d, m),
        ]
        return Measurement(rows, hyps)

    # ------------------------------------------------------------------ decision
    def certain(self, p, table):
        runs = table[table["part"] != "witness"]
        if "copy" in runs:  # one row per run (several forms repeat a run)
            runs = runs[runs["copy"] == 0]
        out = runs[~runs["in_ball"].astype(bool)]
        _, _, ball, _ = _SETTING[self.norm]
        dec = stats.decide_always(len(out), len(runs), f"the conclusion {ball} ≤ B", slack=f"{_SLACK:g}·B")
        line = f"- Ball: {dec.verdict}. {dec.reason}."
        if len(out):
            worst = out.loc[out["norm_w"].idxmax()]
            line += (f" Largest norm {worst['norm_w']:.6g} > B = {p['B']:g} (design {worst['design']}, "
                     f"m = {worst['m']}).")
        bound_rows = table[table["part"] == "bound"]
        left = set(out["design"])  # a design whose w̄ left the ball: every form of it goes untested
        excluded = {label for label in bound_rows["design"]
                    if any(label == name or label.startswith(f"{name} · ") for name in left)}
        return [(dec.verdict, line), *self.consistency_parts(runs[runs["part"] == "bound"])], left | excluded

    def consistency_parts(self, runs) -> list[tuple[str, str]]:
        """Each declared consistency check on the recorded runs of part (a)."""
        if not self.consistency:
            return []
        recorded = runs[runs["recorded"].astype(bool)]
        return [consistency_part(recorded, name, text, ("design", "design"), "- Path: ")
                for name, text in self.consistency.items()]

    def more_parts(self, p, table, delta, excluded):
        parts, notes = [], []
        if self._events_on(p):
            share = delta / (1 + self._rate_on(p))
            delta -= share
            more, more_notes = self.event_parts(p, table[table["part"] == "event"], share)
            parts += more
            notes += more_notes
        rate = table[table["part"] == "rate"]
        names = list(dict.fromkeys(rate["design"]))
        if not names:
            parts.append((None, "- (b) the bound along m: not run (rate_repetitions = 0 or no rate_designs)."))
        for name in names:
            rows = rate[rate["design"] == name]
            if name in excluded:
                parts.append((None, f"- (b) {name}: not tested (w̄ left the ball)."))
                continue
            levels = sorted(set(rows["m"]))
            each = delta / (len(names) * len(levels))
            listed, above = [], []
            for m in levels:
                r = rows[rows["m"] == m]
                bound = float(r["bound"].iloc[0])
                iv, dec, _ = stats.decide_mean_at_most(r["value"].to_numpy(dtype=float), float(r["upper"].max()),
                                                       bound, each, self.resolution_for(p, bound))
                listed.append(f"m = {m}: {r['value'].mean():.3g} (bound {bound:.3g})")
                if dec.verdict == stats.FAIL:
                    above.append(f"m = {m} (interval [{iv.low:.4g}, {iv.high:.4g}])")
            word = f"FAIL at {', '.join(above)}" if above else "consistent"
            _, slope = stats.decide_slope_at_most(rows["m"], rows["value"], self.rate, delta, float(p["resolution"]))
            parts.append((stats.FAIL if above else None, (
                f"- (b) {name}, the bound at each m of the grid: {word}. FAIL only ({len(r)} runs per m, each at "
                f"δ = {each:.3g}, empirical Bernstein ∩ Anderson). Means: {', '.join(listed)}. Reported only: "
                f"{slope.reason}; the theorem bounds E at every m by C·m^(−1/2) but not the local slope, which a "
                f"correct learner may have above −1/2 (c/√m − c′/m has one everywhere).")))
        scaling = table[table["part"] == "scaling"]
        for name in dict.fromkeys(scaling["design"]):
            rows = scaling[scaling["design"] == name]
            x = rows["d"].to_numpy(dtype=float) / rows["k"].to_numpy(dtype=float)
            if len(np.unique(x)) >= 3 and rows.groupby("k")["value"].mean().min() > 0:
                fit = stats.bootstrap_slope(x, rows["value"].to_numpy(dtype=float), float(p["delta"]))
                notes.append(f"(c) {name}: slope of the mean excess risk against d/k at m = {int(rows['m'].iloc[0])}: "
                             f"{fit.slope:.3f} (bootstrap interval [{fit.low:.3f}, {fit.high:.3f}], asymptotic); the "
                             f"bound grows as (d/k)^(1/2). Reported only: at fixed m the theorem bounds the curve, not "
                             f"its slope.")
        main = table[table["part"] == "bound"]
        bound_rows = main.groupby("variant" if "variant" in main else "design")["upper"].first()
        notes.insert(0, "Almost-sure range of the excess risk per design (kinds.bound.excess_range): "
                     + ", ".join(f"{n}: {v:.4g}" for n, v in bound_rows.items()) + ".")
        etas = table[["eta", "eta_reported"]].dropna()
        if len(etas) and not np.allclose(etas["eta"], etas["eta_reported"], rtol=1e-12, atol=0.0):
            notes.append("The learner reports a step size eta_ different from the one the claim passed "
                         f"(e.g. {etas['eta_reported'].iloc[0]:.6g} instead of {etas['eta'].iloc[0]:.6g}).")
        return parts, notes

    def event_parts(self, p, rows, delta):
        """Each event on each design: "P(violation) ≤ target" by Clopper–Pearson at δ split over
        the (event, design) pairs (false-FAIL rate ≤ δ/2 in all)."""
        pairs = list(rows.groupby(["event", "design"], sort=False))
        each = delta / max(len(pairs), 1)
        parts, notes = [], []
        for (name, label), part in pairs:
            target = float(self.event_target(p, name))
            n = len(part)
            certain, possible = int(part["violation_certain"].sum()), int(part["violation_possible"].sum())
            dec, hint = stats.decide_frequency_at_most(certain, possible, n, target, each,
                                                       float(p["resolution"]) * target, "runs violate it")
            values = part["event_value"].to_numpy(dtype=float)
            parts.append((dec.verdict, (
                f"- event '{name}' ({self.events[name]}), {label}, {n} runs of m = {int(part['m'].iloc[0])}: "
                f"{dec.verdict}. Claimed violation probability ≤ {target:g}; {dec.reason} (PASS needs the upper "
                f"end ≤ {target:g}·(1 + resolution)). Measured value: min {values.min():.4g}, median "
                f"{float(np.median(values)):.4g}, max {values.max():.4g}.")))
            if hint:
                notes.append(f"event '{name}', {label}: {hint}; raise `event_repetitions`.")
        return parts, notes

    def errata_evidence(self, p, table):
        out = {}
        runs = table[table["part"] == "witness"]
        for key, forms in self.witnesses.items():
            rows = runs[runs["key"] == key]
            if rows.empty:
                continue
            each = float(p["delta"]) / 2
            texts, above = [], []
            for form in forms:
                part = rows[rows["form"] == form]
                vals, bound = part["value"].to_numpy(dtype=float), float(part["bound"].iloc[0])
                iv, dec, _ = stats.decide_mean_at_most(vals, float(part["upper"].iloc[0]), bound, each,
                                                      self.resolution_for(p, bound))
                above.append(dec.verdict == stats.FAIL)
                side = ("lies entirely ABOVE the stated bound" if above[-1] else
                        "lies below the stated bound" if iv.high <= bound else "straddles the stated bound")
                eta, trivial = float(part["eta"].iloc[0]), float(part["trivial"].iloc[0])
                texts.append(f"with the {form} η = {eta:.3g}, mean excess risk {vals.mean():.4g} against the stated "
                             f"bound {bound:.4g} (ratio {vals.mean() / bound:.3g}; trivial learner {trivial:.4g}); its "
                             f"{_level(each)} interval [{iv.low:.4g}, {iv.high:.4g}] {side}")
            first = next(iter(forms.values()))
            where = ", ".join(f"{n} = {v:g}" for n, v in first.items() if isinstance(v, int | float))
            verdict = ("So the statement as printed fails, while the other form does not." if above[0]
                       and not any(above[1:]) else "This run does not separate the forms decisively.")
            out[key] = (f"Shown on this run (outside the verdict), design {first['design']} with {where}, "
                        f"{len(rows) // len(forms)} runs per form: " + "; ".join(texts) + ". " + verdict)
        return out

    def decide(self, p, table):
        evidence = super().decide(p, table)
        # cbss11's convention has no ½: every excess risk, its range and the trivial value double.
        main = table[table["part"] != "witness"]
        doubled = main.assign(value=2 * main["value"], upper=2 * main["upper"], trivial=2 * main["trivial"])
        other = MeanBound.decide(self, p, doubled)
        same = "the same verdict" if other.verdict == evidence.verdict else "a DIFFERENT verdict"
        evidence.notes.insert(0, (
            f"Loss convention: hk12's ½(⟨w, x⟩ − y)². Under cbss11's (⟨w, x⟩ − y)², against the same right-hand "
            f"side, every excess risk doubles: the verdict would be {other.verdict} ({same}), worst observed/bound "
            f"{_g(other.ratio)} instead of {_g(evidence.ratio)}."))
        return evidence
