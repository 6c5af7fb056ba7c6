"""Kinds "pathwise" and "in expectation": inequalities checked on the exact path a learner took.

A regret lemma speaks about the iterates w_t and the gradient estimates the algorithm actually
used. Both kinds here therefore run the subject learner with ``record_trajectory=True`` on a
fresh sample and read its ``trajectory_`` (see :class:`Path`), so the check is on that path and
not on a re-implementation of it. On every run both kinds also check that the learner returns the
average of the iterates it recorded (AERR line 14, AELR line 18): the lemmas speak of those
iterates, so one run where w̄ is not their mean (beyond 10⁻⁹·max(B, 1)) is a certain FAIL; this
is what exposes a learner that reports one path and returns another (e.g. its starting point).

:class:`Pathwise` (kind "pathwise"): inequalities lhs ≤ rhs that hold on *every* run (Lemma
3.2's OGD regret, Lemma 3.5's multiplicative-weights regret, "every iterate lies in the ball").
One violation beyond the stated rounding slack is a certain FAIL
(:func:`theorycheck.stats.decide_always`); the page reports the tightness lhs/rhs (median, 90%
quantile, maximum over runs). An optional ``ceiling`` says how large the left-hand side could
have been on the run (e.g. Σ 2B‖g̃_t‖ for any iterates in the ball): a check whose ceiling never
exceeds its right-hand side could not have failed there, is *vacuous*, and is never PASS.

:class:`ExpectedInequality` (kind "bound"): inequalities E[lhs] ≤ rhs over repeated runs (Lemmas
3.6 and 3.7). The claim gives an almost-sure range [lo, hi] of the left-hand side for the
paper's algorithm under the hypotheses (derived in its docstring); X = lhs − rhs then lies in
[lo − rhs, hi − rhs] and "E[X] ≤ 0" is decided by :func:`theorycheck.stats.decide_mean_at_most` on
the shifted variable X − (lo − rhs) ∈ [0, hi − lo] (empirical Bernstein ∩ Anderson), at δ split
by the union bound over settings and members (a family may have several members, e.g. one per
comparator). A run outside [lo, hi] shows that the subject is not the paper's algorithm; it is
reported, and the decision then uses only the end of the range that still holds: Anderson's
lower confidence end needs only lo (so FAIL stays possible after values above hi) and its upper
end only hi (so PASS stays possible after values below lo). A setting with hi ≤ rhs cannot fail
(the range alone proves the inequality): it is vacuous and never PASS. The resolution is
relative: PASS needs the upper end of the interval for E[lhs] to be ≤ (1 + resolution)·rhs.

Hooks (both kinds):

required
    ``settings(p) -> list[dict]``: each with ``design`` (a name for the ``design`` subject),
    ``eta`` (the step size passed to the learner) and ``label`` (a short text);
    ``inequalities``: dict name → one-line statement of each checked inequality (Pathwise) or
    family (ExpectedInequality);
    Pathwise: ``sides(p, setting, path) -> {name: (lhs, rhs, scale)}`` with ``scale`` the
    magnitude the rounding slack is relative to (e.g. Σ_t |terms| + rhs);
    ExpectedInequality: ``lhs(p, setting, path) -> {family: array of member values}``,
    ``rhs(p, setting, family) -> float`` and ``range(p, setting, family) -> (lo, hi)``.
optional
    ``run(p, setting, subjects, seed) -> Path`` (default: fit ``subjects["learner"]`` on
    ``m = p["m"]`` examples of the design ``setting["design"]`` built from ``p`` updated by
    ``setting.get("design_params", {})``, see :meth:`run`; the :class:`Path` then also carries the
    sample ``X``, ``y``, the ``design``, the learner's other recorded arrays in ``extra`` and the
    keywords it was built with in ``params``);
    ``learner_params(p, setting, design) -> dict``: further keywords for the learner, which may
    depend on the design (e.g. GAERR's ``q`` from its second moments; default
    ``setting.get("params", {})``);
    ``data_norm`` ("l2", "l1" or None): the data hypotheses ‖x‖ ≤ 1, |y| ≤ B are checked on every
    sample when the lemma needs them; ``ceiling(p, setting, path) -> {name: value}`` (Pathwise);
    ``consistency = {name: statement}`` with ``path_checks(p, setting, path) -> {name: relative
    deviation}``: checks that the recorded path is the algorithm's (e.g. the recorded estimate is
    the paper's estimator for the draws the learner recorded, the iterates follow the update rule);
    one run beyond 10⁻⁹ is a certain FAIL, like the output check;
    ``errata_evidence(p, table, parts) -> {key: text}`` (ExpectedInequality: ``parts`` is the
    summary table);
    ExpectedInequality: ``reported(p, setting, path) -> {name: value}``, numbers measured on each
    run whose means per setting are noted (never decided); ``path_range(p, setting, path,
    family) -> (lo, hi)`` when the almost-sure range depends on the design drawn from (default
    None: ``range`` gives it); ``trivial = True``
    also evaluates ``lhs`` on the path of the learner that never moves (:meth:`Path.still`, same
    sample) and runs it through the same test: a setting where it would not FAIL is vacuous and
    never PASS (as the bound kind's trivial learner). :func:`excess_and_range` gives the exact
    ½-loss excess risk of an output and its largest value over the ball, from the design.
parameters
    ``repetitions`` (runs per setting), ``delta`` (ExpectedInequality), ``resolution``
    (ExpectedInequality, relative), ``rounding`` (Pathwise, relative slack).

Subjects: ``learner``, a class built as ``learner(k=, B=, eta=, random_state=int,
record_trajectory=True)`` whose ``fit`` sets ``coef_`` and ``trajectory_`` (a mapping with at
least ``w`` and ``g``, both (m, d); optionally ``g_tilde`` and ``p``), and ``design``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot, SubjectFailure
from ..population import constrained_optimum, excess_risk
from ..protocols import BudgetedLearner, Contract, Function, coef_vector
from ..rng import kernel_state
from ..validation import Integer, ParameterError, Positive, Probability, Resolution
from .bound import consistency_part, excess_range
from .learners import design_for

__all__ = ["TRAJECTORY_LEARNER", "ExpectedInequality", "Path", "Pathwise", "excess_and_range"]

#: the contract of a learner whose path a lemma is checked on
TRAJECTORY_LEARNER = Contract(BudgetedLearner, init=("k", "B", "eta", "random_state", "record_trajectory"))
DESIGN = Contract(Function, call=("params", "name"))
_BATCH = 25  # runs per task: one random stream and one cache file per batch
_CONSISTENCY = 1e-9  # relative slack of the consistency checks of a recorded path
_OPTIMA: dict[Any, Any] = {}


def excess_and_range(design, coef, B: float, norm: str) -> tuple[float, float]:
    """(L(w̄) − L(w*), its almost-sure upper end over the ball) for the ½-loss, w* the minimiser over
    the ball of radius B (``norm`` "l2" or "l1"), from the design's exact moments; the optimum is
    cached per design object (:func:`theorycheck.kinds.learners.design_for` caches designs)."""
    key = (id(design), float(B), norm)
    if key not in _OPTIMA or _OPTIMA[key][0] is not design:
        if len(_OPTIMA) > 64:
            _OPTIMA.clear()
        moments = (np.asarray(design.second_moment, dtype=np.float64),
                   np.asarray(design.cross_moment, dtype=np.float64), float(design.y_second_moment))
        optimum = constrained_optimum(moments, B, norm=norm, half=True)
        _OPTIMA[key] = (design, moments, optimum, excess_range(norm, moments, B, optimum[0]))
    _, moments, optimum, top = _OPTIMA[key]
    value = float(excess_risk(np.asarray(coef, dtype=np.float64), moments, B, norm=norm, half=True, optimum=optimum))
    return value, top


@dataclass(frozen=True)
class Path:
    """One run of a learner, as it recorded it: iterates ``w`` (m, d), the gradients ``g`` its
    update used (clipped, for AELR), the unclipped estimates ``g_tilde``, AELR's distributions
    ``p`` (m, 2d) or None, the step size and radius it used, and its returned ``coef``."""

    w: np.ndarray
    g: np.ndarray
    g_tilde: np.ndarray
    p: np.ndarray | None
    eta: float
    B: float
    coef: np.ndarray
    #: the sample the path was run on, the design it came from, the learner's other recorded
    #: arrays (e.g. GAERR's ``phi``, ``coordinates``, ``j``) and the fitted learner; set by
    #: :meth:`_PathRuns.run`
    X: np.ndarray | None = None
    y: np.ndarray | None = None
    design: Any = None
    extra: dict = field(default_factory=dict)
    model: Any = None
    #: the keywords the learner was built with beyond k, B, eta, random_state, record_trajectory
    params: dict = field(default_factory=dict)

    @classmethod
    def from_learner(cls, model, m: int, d: int) -> Path:
        path = getattr(model, "trajectory_", None)
        if path is None or "w" not in path or "g" not in path:
            raise ParameterError(f"the learner {type(model).__name__} does not record its path: with "
                                 "record_trajectory=True, fit must set trajectory_ with 'w' and 'g'")
        arrays = {key: np.asarray(path[key], dtype=np.float64) for key in ("w", "g")}
        arrays["g_tilde"] = np.asarray(path.get("g_tilde", path["g"]), dtype=np.float64)
        for key, value in arrays.items():
            if value.shape != (m, d) or not np.all(np.isfinite(value)):
                raise SubjectFailure(f"the learner's trajectory_['{key}'] must be a finite ({m}, {d}) array; got "
                                     f"shape {value.shape}, finite={bool(np.isfinite(value).all())}")
        probs = path.get("p")
        extra = {key: np.asarray(value) for key, value in path.items()
                 if key not in ("w", "g", "g_tilde", "p", "eta", "B")}
        return cls(**arrays, p=None if probs is None else np.asarray(probs, dtype=np.float64),
                   eta=float(path.get("eta", getattr(model, "eta_", math.nan))),
                   B=float(path.get("B", math.nan)), coef=coef_vector(model),
                   extra=extra, model=model)

    def still(self) -> Path:
        """The path of the trivial learner on the same sample: it never moves (w_t = w_1 for every t,
        no step, w̄ = w_1) and records no draws."""
        w = np.broadcast_to(self.w[0], self.w.shape)
        zero = np.zeros_like(self.g)
        return Path(w=w, g=zero, g_tilde=zero, p=None if self.p is None else np.broadcast_to(self.p[0], self.p.shape),
                    eta=self.eta, B=self.B, coef=self.w[0].copy(), X=self.X, y=self.y, design=self.design,
                    params=self.params)

    @property
    def output_gap(self) -> float:
        """max_i |(1/m)Σ_t w_t[i] − w̄[i]|: 0 up to rounding when the learner returns the average of
        the iterates it recorded (AERR line 14, AELR line 18)."""
        return float(np.abs(self.w.mean(axis=0) - self.coef).max())

    def checks(self, eta: float, B: float) -> list[Hypothesis]:
        """Hypotheses on the recorded path: the learner used the given η and B, and (AELR) each p_t
        is a distribution with w_t = B(p_t[:d] − p_t[d:])."""
        if math.isnan(self.B):  # not recorded: every recorded iterate must lie in the L2 ball of the given B
            largest = float(np.linalg.norm(self.w, axis=1).max())  # (an L1 ball lies inside it: never a false alarm)
            radius = largest <= B * (1.0 + 1e-9)
            used = f"B not recorded in trajectory_ (given {B:g}; the largest ‖w_t‖₂ recorded is {largest:.6g})"
        else:
            radius, used = math.isclose(self.B, B, rel_tol=1e-12), f"B used {self.B:g} (given {B:g})"
        out = [Hypothesis("the learner used the step size and radius it was given",
                          math.isclose(self.eta, eta, rel_tol=1e-12) and radius,
                          f"η used {self.eta:.6g} (given {eta:.6g}), {used}")]
        if self.p is not None:
            d = self.w.shape[1]
            gap = float(np.abs(B * (self.p[:, :d] - self.p[:, d:]) - self.w).max())
            mass = float(np.abs(self.p.sum(axis=1) - 1.0).max())
            ok = gap <= _CONSISTENCY * B and mass <= _CONSISTENCY and float(self.p.min()) >= 0.0
            out.append(Hypothesis("each p_t is a distribution on the 2d signed vertices and w_t = B(p⁺_t − p⁻_t)",
                                  ok, f"largest |B(p⁺ − p⁻) − w| {gap:.3g}, largest |Σp − 1| {mass:.3g}"))
        return out


class _PathRuns(Claim):
    """Settings × batches of runs; each run is one recorded path (shared by both kinds)."""

    protocols = {"learner": TRAJECTORY_LEARNER, "design": DESIGN}
    inequalities: dict[str, str] = {}
    data_norm: str | None = None
    #: checks that the recorded path is the algorithm's (name -> statement), see path_checks
    consistency: dict[str, str] = {}

    def settings(self, p) -> list[dict]:
        raise NotImplementedError

    def learner_params(self, p, setting, design) -> dict:
        """Further keywords for the learner on this setting (e.g. GAERR's ``q``, computed from the
        design's moments); default ``setting.get("params", {})``."""
        return dict(setting.get("params", {}))

    def path_checks(self, p, setting, path: Path) -> dict[str, float]:
        """For each name of :attr:`consistency`, the largest relative deviation of the recorded path
        from what the algorithm would have done with the draws it recorded (0 up to rounding)."""
        return {}

    def run(self, p, setting, subjects, seed: np.random.SeedSequence) -> tuple[Path, list[Hypothesis]]:
        """Fit the learner on a fresh sample of m examples with fresh randomness and its path
        recorded; returns the path and the hypotheses checked on this run."""
        design = design_for(subjects, {**p, **setting.get("design_params", {})}, setting["design"])
        data_seq, algo_seq = seed.spawn(2)
        X, y = design.sample(p["m"], kernel_state(data_seq))
        m, d = X.shape
        params = self.learner_params(p, setting, design)
        model = subjects["learner"](k=p["k"], B=p["B"], eta=setting["eta"],
                                    random_state=int(algo_seq.generate_state(1)[0]), record_trajectory=True, **params)
        model.fit(X, y)
        path = replace(Path.from_learner(model, m, d), X=X, y=y, design=design, params=params)
        hyps = path.checks(setting["eta"], float(p["B"]))
        if self.data_norm is not None:
            B = float(p["B"])
            size = np.sqrt((X * X).sum(axis=1)).max() if self.data_norm == "l2" else np.abs(X).max()
            name = "‖x‖₂" if self.data_norm == "l2" else "‖x‖∞"
            hyps += [Hypothesis(f"{name} ≤ 1 and |y| ≤ B on every example drawn",
                                bool(size <= 1 + 1e-12 and np.abs(y).max() <= B * (1 + 1e-12)),
                                f"max {name} {size:.15g}, max |y| {np.abs(y).max():.15g}, B = {B:g}"),
                     Hypothesis(f"the design declares {name} ≤ 1 and |y| ≤ B almost surely",
                                bool(design.satisfies(self.data_norm, B)), f"design {setting['design']}")]
        return path, hyps

    def tasks(self, p):
        return [{"setting": i, "first": start, "reps": min(_BATCH, p["repetitions"] - start)}
                for i in range(len(self.settings(p))) for start in range(0, p["repetitions"], _BATCH)]

    def measure(self, p, task, subjects, seed):
        setting = self.settings(p)[task["setting"]]
        rows, hyps = [], {}
        for r, child in enumerate(seed.spawn(task["reps"])):
            path, checked = self.run(p, setting, subjects, child)
            for h in checked:  # keep the first broken instance of each hypothesis
                if h.statement not in hyps or (hyps[h.statement].met and not h.met):
                    hyps[h.statement] = h
            base = {"setting": task["setting"], "label": setting["label"], "run": task["first"] + r,
                    "output_gap": path.output_gap / max(float(p["B"]), 1.0),
                    **{f"check:{name}": float(v) for name, v in self.path_checks(p, setting, path).items()}}
            rows += [{**base, **row} for row in self.path_rows(p, setting, path)]
        return Measurement(rows, list(hyps.values()))

    def path_rows(self, p, setting, path: Path) -> list[dict]:
        raise NotImplementedError

    @staticmethod
    def output_check(table) -> tuple[str, str]:
        """The learner returns the average of the path it recorded (AERR line 14, AELR line 18), on
        every run: the lemmas speak of those iterates, so a learner whose w̄ is not their mean is not
        the algorithm they are about. One run off by more than 10⁻⁹·max(B, 1) is a certain FAIL."""
        runs = table.drop_duplicates(["setting", "run"])
        dec = stats.decide_always(int((runs["output_gap"] > _CONSISTENCY).sum()), len(runs),
                                  "w̄ = (1/m)Σ_t w_t for the recorded iterates (line 14 / line 18)",
                                  slack=f"{_CONSISTENCY:g}·max(B, 1)")
        return dec.verdict, f"- {dec.verdict}: {dec.reason}."

    def consistency_parts(self, table) -> list[tuple[str, str]]:
        """Each declared consistency check on every run: one run whose recorded path deviates by
        more than 10⁻⁹ (relative) from the algorithm's definition is a certain FAIL."""
        runs = table.drop_duplicates(["setting", "run"])
        return [consistency_part(runs, name, text, ("label", "setting"), "- ")
                for name, text in self.consistency.items()]


class Pathwise(_PathRuns):
    """Inequalities that must hold on every run (see the module docstring)."""

    kind = "pathwise"
    parameters = {"repetitions": Integer(1), "rounding": Positive()}

    def sides(self, p, setting, path: Path) -> dict[str, tuple[float, float, float]]:
        raise NotImplementedError

    def ceiling(self, p, setting, path: Path) -> dict[str, float]:
        return {}

    def path_rows(self, p, setting, path):
        tops = self.ceiling(p, setting, path)
        return [{"check": name, "lhs": float(lhs), "rhs": float(rhs), "scale": float(scale),
                 "ceiling": float(tops.get(name, math.nan))}
                for name, (lhs, rhs, scale) in self.sides(p, setting, path).items()]

    def decide(self, p, table):
        rounding = float(p["rounding"])
        table = table.assign(violated=table["lhs"] - table["rhs"] > rounding * table["scale"],
                             ratio=table["lhs"] / table["rhs"].where(table["rhs"] > 0))
        lines, verdicts, records = [], [], []
        for name, text in self.inequalities.items():
            part = table[table["check"] == name]
            dec = stats.decide_always(int(part["violated"].sum()), len(part), f"{name} ({text})",
                                      slack=f"{rounding:g} × the magnitude of its terms")
            verdict, reason = dec.verdict, dec.reason
            ceilings = part["ceiling"].dropna()
            if verdict == stats.PASS and len(ceilings) == len(part) and (ceilings <= part["rhs"]).all():
                verdict = stats.INCONCLUSIVE
                reason += ("; vacuous: on every run even the largest left-hand side any iterates could give "
                           "stays below the right-hand side, so the check could not have failed")
            elif len(ceilings):
                reason += f"; it could have failed on {int((ceilings > part['rhs']).sum())} of {len(part)} runs"
            verdicts.append(verdict)
            lines.append(f"- {verdict}: {reason}.")
            for label, sub in part.groupby("label", sort=False):
                ratio = sub["ratio"].dropna()
                records.append({"check": name, "setting": label, "runs": len(sub),
                                "violations": int(sub["violated"].sum()),
                                "worst excess": float((sub["lhs"] - sub["rhs"]).max()),
                                "median": float(ratio.median()) if len(ratio) else math.nan,
                                "q90": float(ratio.quantile(0.9)) if len(ratio) else math.nan,
                                "max": float(ratio.max()) if len(ratio) else math.nan, "theory": 1.0})
        verdict, line = self.output_check(table)
        verdicts.append(verdict)
        lines.append(line)
        for verdict, line in self.consistency_parts(table):
            verdicts.append(verdict)
            lines.append(line)
        summary = pd.DataFrame(records)
        summary["point"] = summary["setting"] + " · " + summary["check"]
        head = summary[summary["check"] == next(iter(self.inequalities))]
        tight = "; ".join(f"{r['setting']} · {r['check']}: median {r['median']:.3g}, 90% {r['q90']:.3g}, "
                          f"max {r['max']:.3g}" for _, r in summary.iterrows())
        text = ("Pathwise: every run must satisfy each inequality; one violation beyond the rounding slack "
                f"{rounding:g} × (magnitude of its terms) is a certain FAIL, with no error rate.\n" + "\n".join(lines)
                + f"\nTightness lhs/rhs over the runs: {tight}.")
        worst = float(head["max"].max()) if len(head) else None
        return Evidence(verdict=stats.combine(verdicts), observed=worst, theory=1.0, ratio=worst, delta=0.0,
                        decision=text, summary=summary,
                        plot=Plot(x="point", y="median", low="q90", high="max", theory="theory", kind="point",
                                  ylabel="lhs / rhs over the runs", xlabel="setting · inequality",
                                  band_label="90% quantile to maximum of lhs/rhs over the runs (decides: every "
                                             "run must stay ≤ 1 up to rounding)",
                                  theory_label="rhs (ratio 1)"))


class ExpectedInequality(_PathRuns):
    """E[lhs] ≤ rhs over repeated runs, on a known almost-sure range (see the module docstring)."""

    kind = "bound"
    parameters = {"repetitions": Integer(2), "delta": Probability(), "resolution": Resolution()}
    #: also evaluate lhs on the path of the learner that never moves (:meth:`Path.still`)
    trivial: bool = False

    def lhs(self, p, setting, path: Path) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def rhs(self, p, setting, family) -> float:
        raise NotImplementedError

    def range(self, p, setting, family) -> tuple[float, float]:
        raise NotImplementedError

    def path_range(self, p, setting, path: Path, family) -> tuple[float, float] | None:
        """The almost-sure range when it depends on the design the run was drawn from (e.g. the
        largest excess risk over the ball); None: :meth:`range` gives it."""
        return None

    def errata_evidence(self, p, table, parts) -> dict[str, str]:
        return {}

    def reported(self, p, setting, path: Path) -> dict[str, float]:
        """Numbers measured on each run beside the left-hand side (their means per setting are noted
        on the page; they take no part in the decision)."""
        return {}

    def path_rows(self, p, setting, path):
        still = self.lhs(p, setting, path.still()) if self.trivial else {}
        shown = self.reported(p, setting, path)
        rows = []
        for family, values in self.lhs(p, setting, path).items():
            span = self.path_range(p, setting, path, family)
            for j, v in enumerate(np.atleast_1d(values)):
                row = {"family": family, "member": j, "lhs": float(v), **{f"reported:{k}": x for k, x in shown.items()}}
                if span is not None:
                    row["range_low"], row["range_high"] = float(span[0]), float(span[1])
                if self.trivial:
                    row["trivial"] = float(np.atleast_1d(still[family])[j])
                rows.append(row)
        return rows

    def decide(self, p, table):
        settings = self.settings(p)
        members = table.groupby(["setting", "family"])["member"].nunique()
        per = float(p["delta"]) / int(members.sum())
        records, lines, verdicts = [], [], []
        for (i, family), count in members.items():
            setting = settings[int(i)]
            part = table[(table["setting"] == i) & (table["family"] == family)]
            bound = float(self.rhs(p, setting, family))
            if "range_low" in part and part["range_low"].notna().all():
                lo, hi = float(part["range_low"].min()), float(part["range_high"].max())
            else:
                lo, hi = (float(v) for v in self.range(p, setting, family))
            results = []
            for _, g in part.groupby("member"):
                x = g["lhs"].to_numpy()
                if hi <= bound and x.max() <= hi + 1e-9 * max(abs(hi), 1.0):
                    results.append({"mean": float(x.mean()), "low": lo, "high": hi, "hint": None,
                                    "verdict": stats.INCONCLUSIVE,
                                    "reason": f"vacuous: the almost-sure range of the left-hand side, [{lo:.4g}, "
                                              f"{hi:.4g}], lies below the right-hand side {bound:.4g}, so no run of "
                                              f"the paper's algorithm could have shown a violation"})
                else:
                    results.append(stats.decide_mean_in_range_at_most(x, bound, lo, hi, per,
                                                                      float(p["resolution"]) * bound))
                if "trivial" in g and g["trivial"].notna().all():
                    self._trivial_test(results[-1], g["trivial"].to_numpy(), bound, lo, hi, per,
                                       float(p["resolution"]) * bound)
            worst = max(results, key=lambda r: r["mean"])
            verdict = stats.combine(r["verdict"] for r in results)
            failing = [r for r in results if r["verdict"] == stats.FAIL]
            shown = failing[0] if failing and verdict == stats.FAIL else worst
            verdicts.append(verdict)
            lines.append(f"- {setting['label']} · {family} ({count} member{'s' if count > 1 else ''}, worst shown): "
                         f"{verdict}. {shown['reason']}" + (f"; {shown['hint']}" if shown.get("hint") else ""))
            records.append({"setting": setting["label"], "family": family, "members": int(count),
                            "runs": len(part) // int(count), "rhs": bound, "range low": lo, "range high": hi,
                            "mean lhs": worst["mean"], "ratio": worst["mean"] / bound,
                            "low": worst["low"] / bound, "high": worst["high"] / bound,
                            "theory": 1.0, "resolution": 1.0 + float(p["resolution"]), "verdict": verdict,
                            "point": f"{setting['label']} · {family}",
                            **({"trivial": worst["trivial"] / bound, "vacuous": worst["vacuous"]}
                               if "trivial" in worst else {})})
        verdict, line = self.output_check(table)
        verdicts.append(verdict)
        lines.append(line)
        for verdict, line in self.consistency_parts(table):
            verdicts.append(verdict)
            lines.append(line)
        summary = pd.DataFrame(records)
        text = (f"In expectation: for each setting and family, E[lhs] ≤ rhs is decided on lhs shifted into [0, width] "
                f"by its almost-sure range (empirical Bernstein ∩ Anderson), at δ = {p['delta']:g} split over "
                f"{int(members.sum())} tests ({per:.3g} each): FAIL when the interval lies above rhs, PASS when its "
                f"upper end is ≤ (1 + {p['resolution']:g})·rhs. The table gives E[lhs] and its interval in units of "
                f"rhs.\n"
                + "\n".join(lines))
        worst_ratio = float(summary["ratio"].max())
        notes = []
        reported = [c for c in table.columns if c.startswith("reported:")]
        if reported:
            means = table.drop_duplicates(["setting", "run"]).groupby("label", sort=False)[reported].mean()
            notes.append("Measured on the runs (means, reported only): " + "; ".join(
                f"{label}: " + ", ".join(f"{c.removeprefix('reported:')} {row[c]:.4g}" for c in reported)
                for label, row in means.iterrows()) + ".")
        has_trivial = "trivial" in summary
        if has_trivial:
            text += ("\nThe learner that never moves (w_t = w_1, w̄ = w_1) is evaluated on the same samples and goes "
                     "through the same test; a setting where it would not FAIL is vacuous and never PASS.")
        return Evidence(verdict=stats.combine(verdicts), observed=worst_ratio, theory=1.0, ratio=worst_ratio,
                        delta=float(p["delta"]), decision=text, summary=summary, notes=notes,
                        errata=self.errata_evidence(p, table, summary),
                        trivial=float(summary["trivial"].min()) if has_trivial else None,
                        vacuous=bool(summary["vacuous"].any()) if has_trivial else False,
                        plot=Plot(x="point", y="ratio", low="low", high="high", theory="theory",
                                  resolution="resolution", kind="point", xlabel="setting · family",
                                  ylabel="E[lhs] / rhs (worst member)", trivial="trivial" if has_trivial else None,
                                  band_label=f"interval that decides, level 1 − {per:.2g} per test, in units of rhs",
                                  theory_label="rhs (ratio 1)"))

    @staticmethod
    def _trivial_test(result: dict, values, bound, lo, hi, delta, resolution) -> None:
        """Run the trivial learner's values through the same test; where it would not FAIL, the
        setting is vacuous and its PASS becomes INCONCLUSIVE."""
        t = stats.decide_mean_in_range_at_most(values, bound, lo, hi, delta, resolution)
        vacuous = t["verdict"] != stats.FAIL
        result.update(trivial=float(np.mean(values)), vacuous=vacuous)
        if vacuous:
            text = (f"; VACUOUS: the learner that never moves (mean {t['mean'] / bound:.4g}·rhs) would not FAIL "
                    f"the same test ({t['verdict']})")
            if result["verdict"] == stats.PASS:
                result["verdict"] = stats.INCONCLUSIVE
                text += ", so no PASS"
        else:
            text = (f"; not vacuous: the learner that never moves (mean {t['mean'] / bound:.4g}·rhs) would FAIL "
                    f"(its interval starts at {t['low'] / bound:.4g}·rhs)")
        result["reason"] = result["reason"] + text
