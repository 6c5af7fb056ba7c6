"""Kind "exact": every outcome enumerated in rational arithmetic, so a verdict has no error rate.

Two base classes.

:class:`Exact` — a statement checked case by case. The claim enumerates cases (one task per
point of a grid, e.g. n or d); each row it returns carries boolean *check* columns. Every check
is decided by :func:`theorycheck.stats.decide_exact` (FAIL on any failing row, no error rate)
and the verdict is :func:`theorycheck.stats.combine` of them.

  Required hooks
    ``checks``: dict column → the sentence it asserts (``{"exact_equal": "E[average] = mean of f"}``).
        A row leaves a check empty (None) where it does not apply.
    ``cases(p) -> list[dict]``: the tasks; each gets its own random stream.
    ``evaluate(p, case, subjects, rng) -> list[dict] | Measurement``: the rows of one case
        (``rng`` is a NumPy Generator on the task's stream).
  Optional hooks
    ``case_columns``: the columns that name a failing row in the decision (default: "case").
    ``details``: dict check → columns shown beside a failing row (e.g. the mean and the target).
    ``worst``: dict check → column; the failing row shown is the one where it is largest.
    ``summarize(p, table) -> DataFrame``: the page's table (default: per case, the number of
        rows and of failures of each check).
    ``findings(p, table) -> list[str]``: notes (tightness, signals that are not part of the verdict).
    ``headline(p, table) -> (observed, theory, ratio)``: the numbers beside the verdict.
    ``plot``: a :class:`~theorycheck.claims.Plot` over the summary, or ``figure(p, table)``.
    ``erratum_checks``: dict erratum key → (column that checks what holds, column that checks
        what is printed, or None); the default ``errata_evidence`` turns the counts into the
        evidence text of each declared erratum. Override ``errata_evidence(p, table)`` for more.
  For kinds built on this one: ``extra_decisions(p, table)`` adds parts to the verdict (and
  Evidence fields such as ``delta``), ``exact_rows(table)`` selects the rows the checks read.

:class:`ExactLaw` — a randomized estimator's complete law, in rationals. The subject
``distribution`` (contract :class:`~theorycheck.protocols.EstimatorLaw`) returns
``[(probability, estimate), ...]``; for every instance and every budget the law must be a
probability distribution (sum 1, no negative mass), its mean must equal the target exactly and,
if the claim declares a moment functional, the functional must be ≤ its bound exactly; the
tightness (largest functional/bound) is reported.

  Required hooks
    ``target(w, x, y) -> tuple[Fraction]``: the mean the law must have; ``target_name``.
  Optional hooks
    ``budgets(d)``: the budgets k checked at dimension d (default every 1 ≤ k ≤ d).
    ``ball``: None (any rational w, x, y), "l2" (‖x‖₂ ≤ 1, ‖w‖₂ ≤ B, |y| ≤ B) or "l1"
        (‖x‖∞ ≤ 1, ‖w‖₁ ≤ B, |y| ≤ B): the hypotheses, checked exactly on every instance, and
        the default instance families (:func:`ball_instances`, :func:`free_instances`).
    ``instances(rng, d, B, p) -> [(family, w, x, y)]`` and ``hypotheses_met(w, x, y, B)``,
        to replace those defaults.
    ``functional(moments) -> Fraction`` with ``functional_name``, ``functional_bound(B, d, k)``
        and ``bound_name``; ``sup_ratio(d, k)``, the supremum of functional/bound if derived.
    ``identities``: dict column → sentence, extra checks computed by
        ``identity(w, x, y, d, k, moments, B) -> dict`` (which may add columns that are not checks,
        e.g. a printed form for an erratum). An identity is our derivation about the paper's
        estimator, so its failure means the subject is not that estimator: a FAIL.
    ``readings``: dict erratum key → (law, description): another reading of the paper's text,
        enumerated on the same instances; whether it is unbiased is the erratum's evidence.
  Monte-Carlo part (optional; when ``sampler`` names a subject with the contract
  :class:`~theorycheck.protocols.GradientEstimator`, called with ``random_state``)
    ``mc_instance(d, k, seed) -> (w, x, y)`` (floats) and ``mc_range(w, x, y, d, k)``, per
    coordinate the largest |g_i| the paper's estimator can produce there. The sampler is drawn
    ``mc_samples`` × ``mc_repetitions`` times (through ``sampler.moments`` when it has one, see
    :mod:`theorycheck.estimators`); a draw outside the range is a certain FAIL (the subject is
    not the paper's estimator); otherwise each coordinate's mean is decided by
    :func:`theorycheck.stats.decide_mean_equals` at δ/d (union bound: a true lemma FAILs with
    probability ≤ δ).
  Learner part (optional; when ``learner`` names a subject with the contract
  :data:`~theorycheck.kinds.pathwise.TRAJECTORY_LEARNER`): the estimates a learner computed in its
  own kernel, on the path it took. For each design in ``learner_designs`` (the registry's
  "ridge" designs for ``ball = "l2"``, "lasso" for "l1") and each of ``learner_runs`` runs, the
  learner is built with ``learner_eta(d, k, m, B)`` and ``record_trajectory=True`` and fitted on
  m = ``learner_m`` fresh examples; Z_t = g̃_t − target(w_t, x_t, y_t) must then have conditional
  mean 0 given the past and (x_t, y_t). Range (for an estimate φ̃·x̃ with x̃ from k uniform draws
  weighted d/k): x̃_i = (d/k)·N_i·x_i with N_i ∈ {0, …, k}, so x̃_i lies between 0 and d·x_i, and
  φ̃ lies in [φ_lo, φ_hi], the extremes of ``phi_values(w_t, x_t, y_t)`` (−y_t when w_t = 0); so
  g̃_t,i lies in the hull of {0, d·x_i·φ_lo, d·x_i·φ_hi}, known before the draws (predictable). A
  recorded g̃_t,i outside it is a certain FAIL; otherwise each Z_t,i is divided by its range's
  width W_t,i, and two sums per coordinate and run, Σ_t Z_t,i/W_t,i and Σ_t sign(target_t,i)·
  Z_t,i/W_t,i (the second adds up a scale error in the estimate), are decided by
  :func:`theorycheck.stats.decide_martingale_mean_zero` at ``learner_delta`` (Azuma–Hoeffding,
  union bound over every sum) with ``learner_resolution``, the per-step bias in units of W.
  Hook: ``learner_eta``. Parameters: :data:`LEARNER_PARAMETERS`.
  Parameters: ``d_max``, ``instances``, ``spread`` and, if used, ``B`` and ``adversarial``
  (rules in :data:`LAW_PARAMETERS`); the Monte-Carlo part adds :data:`MC_PARAMETERS`.
  Figure: the largest functional/bound per (d, k), one series per d, beside the bound (ratio
  1); without a functional, the Monte-Carlo residuals with the intervals that decide them (the
  summary then lists them per coordinate); without either, the largest bias per (d, k).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot, SubjectFailure
from ..estimators import SampleMoments
from ..generators.registry import build_design, design_names
from ..observe import counted_call
from ..rng import kernel_state
from ..stats import FAIL
from ..validation import Budget, Integer, Names, ParameterError, Positive, Probability, Resolution
from .pathwise import Path

Vector = tuple[Fraction, ...]
Instance = tuple[str, Vector, Vector, Fraction]  # (family, w, x, y)

LAW_PARAMETERS = {"d_max": Integer(1, 7), "instances": Integer(0), "adversarial": Integer(0),
                  "spread": Integer(1), "B": Positive()}
MC_PARAMETERS = {"mc_d": Integer(1), "mc_k": Integer(1), "mc_samples": Integer(2), "mc_repetitions": Integer(0),
                 "delta": Probability(), "resolution": Resolution()}
LEARNER_PARAMETERS = {"learner_d": Integer(1), "learner_k": Budget(of="learner_d"), "learner_m": Integer(1),
                      "learner_runs": Integer(0), "learner_noise": Probability(), "learner_rho": Probability(),
                      "learner_delta": Probability(), "learner_resolution": Resolution()}
SETTING = {"l2": "ridge", "l1": "lasso"}


def learner_designs(ball: str):
    """The rule of ``learner_designs``: names of the registry's designs for the ball's setting."""
    return Names(*design_names(SETTING[ball]))


def fmt(v) -> str:
    return "(" + ", ".join(str(a) for a in v) + ")"


def as_fraction(value) -> Fraction:
    """A parameter given as a float (B = 1.5) as the rational it was typed as."""
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def dot(a, b) -> Fraction:
    return sum((u * v for u, v in zip(a, b, strict=True)), Fraction(0))


def _missing(value) -> bool:
    """True for a cell with no value (None or NaN), as a table joining several parts' cases has."""
    return value is None or (isinstance(value, float) and math.isnan(value))


class Exact(Claim):
    kind = "exact"
    checks: ClassVar[dict[str, str]] = {}
    case_columns: ClassVar[tuple[str, ...]] = ("case",)
    details: ClassVar[dict[str, tuple[str, ...]]] = {}
    worst: ClassVar[dict[str, str]] = {}
    erratum_checks: ClassVar[dict[str, tuple[str, str | None]]] = {}
    plot: ClassVar[Plot | None] = None

    # ------------------------------------------------------------------ hooks
    def cases(self, p) -> list[dict[str, Any]]:
        raise NotImplementedError

    def evaluate(self, p, case, subjects, rng):
        raise NotImplementedError

    def summarize(self, p, table) -> pd.DataFrame:
        keys = [c for c in self.cases(p)[0] if c in table]
        failed = pd.DataFrame({f"{c}_failures": table[c].map(lambda v: v is not None and v == v and not bool(v))
                               for c in self.checks if c in table}).astype(int)
        merged = pd.concat([table[keys], failed.assign(rows=1)], axis=1)
        return merged.groupby(keys, as_index=False).sum() if keys else merged.sum().to_frame().T

    def findings(self, p, table) -> list[str]:
        return []

    def headline(self, p, table):
        return None, None, None

    def figure(self, p, table):
        return self.plot

    def scope(self, p, table) -> str:
        return f"Exact: {len(table)} cases enumerated in rational arithmetic (no error rate)."

    def errata_evidence(self, p, table) -> dict[str, str]:
        out = {}
        for key, (holds, printed) in self.erratum_checks.items():
            ok = table[holds].dropna().astype(bool)
            text = f"Checked exactly on this run: what holds instead is confirmed in {int(ok.sum())} of {len(ok)} cases"
            if printed is not None:
                pr = table[printed].dropna().astype(bool)
                text += f"; the printed form holds in {int(pr.sum())} of {len(pr)}"
                if not pr.all():
                    text += f" (first case where it fails: {self.name_row(table.loc[pr[~pr].index[0]])})"
            out[key] = text + "."
        return out

    # ------------------------------------------------------------------ machinery
    def tasks(self, p):
        return self.cases(p)

    def measure(self, p, task, subjects, seed):
        result = self.evaluate(p, task, subjects, np.random.default_rng(seed))
        return result if isinstance(result, Measurement) else Measurement(list(result))

    def name_row(self, row, check: str | None = None) -> str:
        """The case a row is about and, for a failing check, its details ("a = 1 ≠ b = 2" for a pair). A case
        column with no value in this row (a table that joins cases of several parts) is left out, never "= nan"."""
        case = ", ".join(f"{c} = {row[c]}" for c in self.case_columns if c in row.index and not _missing(row[c]))
        shown = [f"{c} = {row[c]}" for c in self.details.get(check, ()) if c in row.index]
        return case + (": " + (" ≠ " if len(shown) == 2 else ", ").join(shown) if shown else "")

    def decide_checks(self, table) -> list[tuple[str, str]]:
        """One (verdict, sentence) per declared check, by :func:`stats.decide_exact`."""
        out = []
        for col, what in self.checks.items():
            values = table[col].dropna().astype(bool) if col in table else pd.Series(dtype=bool)
            decision = stats.decide_exact(int((~values).sum()), len(values), what)
            text = decision.reason
            if decision.verdict == FAIL:
                bad = table.loc[values[~values].index]
                by = self.worst.get(col)
                row = bad.loc[bad[by].idxmax()] if by in bad and bad[by].notna().any() else bad.iloc[0]
                text += f"; {'worst' if by else 'first'}: {self.name_row(row, col)}"
            out.append((decision.verdict, text))
        return out

    def extra_decisions(self, p, table) -> tuple[list[tuple[str, str]], dict[str, Any]]:
        """Further parts of the verdict (a kind's own, e.g. Monte Carlo) and Evidence fields."""
        return [], {}

    def exact_rows(self, table) -> pd.DataFrame:
        return table

    def decide(self, p, table):
        exact = self.exact_rows(table)
        parts = self.decide_checks(exact)
        more, fields = self.extra_decisions(p, table)
        parts += more
        verdict = stats.combine(v for v, _ in parts)
        lines = [self.scope(p, exact)] + [f"[{v}] {t}" for v, t in parts]
        lines.append("Verdict: FAIL if any part fails, PASS if every part passes (stats.combine).")
        observed, theory, ratio = self.headline(p, table)
        fields = {"observed": observed, "theory": theory, "ratio": ratio, **fields}
        return Evidence(verdict=verdict, decision="\n".join(lines), summary=self.summarize(p, table),
                        notes=self.findings(p, table), plot=self.figure(p, table),
                        errata={k: v for k, v in self.errata_evidence(p, exact).items()
                                if k in {e.key for e in self.errata}}, **fields)


# ---------------------------------------------------------------------- exact laws
@dataclass(frozen=True)
class LawMoments:
    """Exact moments of a law: total mass, any negative mass, mean and coordinate-wise E g²."""

    total: Fraction
    negative: bool
    mean: Vector
    second: Vector
    outcomes: int


def law_moments(distribution, d: int) -> LawMoments:
    total, negative = Fraction(0), False
    mean, second = [Fraction(0)] * d, [Fraction(0)] * d
    for prob, g in distribution:
        prob = Fraction(prob)
        if len(g) != d:
            raise ValueError(f"the law returned an estimate of length {len(g)}, expected {d}")
        negative |= prob < 0
        total += prob
        for i in range(d):
            gi = Fraction(g[i])
            mean[i] += prob * gi
            second[i] += prob * gi * gi
    return LawMoments(total, negative, tuple(mean), tuple(second), len(distribution))


def sample_moments(estimate, w, x, y, k, n, random_state, *, batch: bool = True, chunk: int = 4096) -> SampleMoments:
    """n draws of ``estimate(w, x, y, k, *, random_state) -> (g, attributes read)`` summed per
    coordinate. Through ``estimate.moments`` when it has one and ``batch`` (one jitted loop, the
    same draws), otherwise call by call on the same stream."""
    if batch and callable(getattr(estimate, "moments", None)):
        return estimate.moments(w, x, y, k, n, random_state=random_state)
    d = len(x)
    total, squares, largest, max_read, done = np.zeros(d), np.zeros(d), np.zeros(d), 0, 0
    while done < n:
        block = np.empty((min(chunk, n - done), d))
        for t in range(block.shape[0]):  # reads held to those observed, for a replaced estimate
            (g, n_read), _ = counted_call(lambda v: estimate(w, v, y, k, random_state=random_state), x,
                                          reported=lambda out: out[1], subject=estimate, who="the estimate subject")
            block[t] = g
            max_read = max(max_read, int(n_read))
        if not np.all(np.isfinite(block)):
            raise SubjectFailure("the estimate subject returned NaN or infinite values")
        total += block.sum(axis=0)
        squares += (block * block).sum(axis=0)
        largest = np.maximum(largest, np.abs(block).max(axis=0))
        done += block.shape[0]
    return SampleMoments(n, total, squares, largest, max_read)


class ExactLaw(Exact):
    @property  # type: ignore[misc]
    def observed_label(self) -> str:  # the headline of :meth:`headline`, in words
        if self.functional is not None:
            return f"the largest ratio of {self.functional_name} to {self.bound_name} over the cases enumerated"
        return f"the largest absolute bias of the estimate of {self.target_name} over the cases"

    target_name: ClassVar[str] = "the gradient"
    ball: ClassVar[str | None] = None
    functional_name: ClassVar[str] = ""
    bound_name: ClassVar[str] = ""
    identities: ClassVar[dict[str, str]] = {}
    readings: ClassVar[dict[str, tuple[Any, str]]] = {}
    sampler: ClassVar[str | None] = None
    learner: ClassVar[str | None] = None
    case_columns = ("d", "k", "family", "w", "x", "y")
    details = {"unbiased": ("mean", "target"), "within_bound": ("functional", "bound", "ratio")}
    worst = {"within_bound": "ratio"}

    # ------------------------------------------------------------------ hooks
    def target(self, w, x, y) -> Vector:
        raise NotImplementedError

    def budgets(self, d: int):
        return range(1, d + 1)

    functional = None  # functional(moments) -> Fraction

    def functional_bound(self, B, d, k) -> Fraction:
        raise NotImplementedError

    def sup_ratio(self, d, k):
        return None

    def identity(self, w, x, y, d, k, moments, B) -> dict[str, Any]:
        return {}

    def instances(self, rng, d, B, p) -> list[Instance]:
        if self.ball is None:
            return free_instances(rng, d, p["spread"], p["instances"])
        return ball_instances(rng, d, B, p, self.ball)

    def hypotheses_met(self, w, x, y, B) -> bool:
        return ball_hypotheses(w, x, y, B, self.ball)

    def mc_instance(self, d, k, seed):
        raise NotImplementedError

    def mc_range(self, w, x, y, d, k) -> np.ndarray:
        raise NotImplementedError

    def learner_eta(self, d, k, m, B) -> float:
        raise NotImplementedError

    def phi_values(self, w, x, y) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------ declared checks
    @property
    def checks(self) -> dict[str, str]:  # type: ignore[override]
        out = {"probability_sum_is_1": "the law is a probability distribution (mass 1, none negative)",
               "unbiased": f"E[estimate] = {self.target_name}, as a rational vector"}
        if self.functional is not None:
            out["within_bound"] = f"{self.functional_name} ≤ {self.bound_name}"
        return {**out, **self.identities}

    # ------------------------------------------------------------------ tasks
    def cases(self, p):
        exact = [{"part": "exact", "d": d} for d in range(1, p["d_max"] + 1)]
        mc = [{"part": "mc", "repetition": r} for r in range(p["mc_repetitions"])] if self.sampler else []
        runs = [{"part": "learner", "design": name, "run": r} for name in p["learner_designs"]
                for r in range(p["learner_runs"])] if self.learner else []
        return exact + mc + runs

    def measure(self, p, task, subjects, seed):
        if task["part"] == "mc":
            return self.measure_mc(p, task, subjects[self.sampler], seed)
        if task["part"] == "learner":
            return self.measure_learner(p, task, subjects[self.learner], seed)
        return super().measure(p, task, subjects, seed)

    def estimate_range(self, W, X, y):
        """Per step and coordinate, the hull of {0, d·x_i·φ_lo, d·x_i·φ_hi} that g̃_t,i lies in
        (see the module docstring), from the iterates W (m, d) and the data."""
        d = X.shape[1]
        lo, hi = np.empty(len(y)), np.empty(len(y))
        for t in range(len(y)):
            phi = self.phi_values(W[t], X[t], y[t])
            phi = phi if phi.size else np.array([-y[t]])
            lo[t], hi[t] = phi.min(), phi.max()
        ends = np.stack([np.zeros_like(X), d * X * lo[:, None], d * X * hi[:, None]])
        return ends.min(axis=0), ends.max(axis=0)

    def measure_learner(self, p, task, learner, seed):
        d, k, m, B = p["learner_d"], p["learner_k"], p["learner_m"], float(p["B"])
        design = build_design(SETTING[self.ball], task["design"], {"d": d, "B": B, "noise": p["learner_noise"],
                                                                    "rho": p["learner_rho"], "s": max(1, d // 2)})
        data_seq, algo_seq = seed.spawn(2)
        X, y = design.sample(m, kernel_state(data_seq))
        eta = float(self.learner_eta(d, k, m, B))
        model = learner(k=k, B=B, eta=eta, random_state=int(algo_seq.generate_state(1)[0]), record_trajectory=True)
        model.fit(X, y)
        path = Path.from_learner(model, m, d)
        target = ((path.w * X).sum(axis=1) - y)[:, None] * X
        lo, hi = self.estimate_range(path.w, X, y)
        g = path.g_tilde
        slack = 1e-9 * np.maximum(np.abs(lo), np.abs(hi)) + 1e-300
        excess = np.maximum(g - hi, lo - g)
        width = hi - lo
        scaled = np.where(width > 0, (g - target) / np.where(width > 0, width, 1.0), 0.0)
        size = np.sqrt((X * X).sum(axis=1)).max() if self.ball == "l2" else np.abs(X).max()
        norm = BALLS[self.ball][0]
        hyps = [Hypothesis(  # the step the learner took is not the lemma's business, only its estimates
            f"{norm} ≤ 1 and |y| ≤ B on every example drawn (design {task['design']})",
            bool(size <= 1 + 1e-12 and np.abs(y).max() <= B * (1 + 1e-12)),
            f"max {norm} {size:.15g}, max |y| {np.abs(y).max():.15g}, B = {B:g}")]
        rows = []
        for statistic, weight in (("plain", 1.0), ("aligned", np.sign(target))):
            sums = (weight * scaled).sum(axis=0)
            rows += [{"part": "learner", "design": task["design"], "run": task["run"], "coordinate": i,
                      "statistic": statistic, "sum": float(sums[i]), "steps": m,
                      "outside": int((excess[:, i] > slack[:, i]).sum()) if statistic == "plain" else 0,
                      "max_excess": float(excess[:, i].max())} for i in range(d)]
        return Measurement(rows, hyps)

    def evaluate(self, p, case, subjects, rng):
        law, d = subjects["distribution"], case["d"]
        B = as_fraction(p.get("B", 1))
        instances = self.instances(rng, d, B, p)
        rows, met = [], True
        for index, (family, w, x, y) in enumerate(instances):
            met &= self.ball is None or self.hypotheses_met(w, x, y, B)
            target = tuple(self.target(w, x, y))
            for k in self.budgets(d):
                m = law_moments(law(w, x, y, k), d)
                row = {"part": "exact", "d": d, "k": k, "instance": index, "family": family,
                       "w": fmt(w), "x": fmt(x), "y": str(y), "outcomes": m.outcomes,
                       "probability_sum_is_1": m.total == 1 and not m.negative, "unbiased": m.mean == target,
                       "max_abs_bias": float(max(abs(a - b) for a, b in zip(m.mean, target, strict=True))),
                       "mean": fmt(m.mean), "target": fmt(target)}
                if self.functional is not None:
                    value, bound = self.functional(m), Fraction(self.functional_bound(B, d, k))
                    sup = self.sup_ratio(d, k)
                    row.update(functional=str(value), bound=str(bound), within_bound=value <= bound,
                               ratio=float(value / bound), sup_ratio=None if sup is None else float(sup))
                row.update(self.identity(w, x, y, d, k, m, B))
                for key, (reading, _) in self.readings.items():
                    rm = law_moments(reading(w, x, y, k), d)
                    row[f"reading_{key}"] = rm.mean == target
                    row[f"reading_{key}_mean"] = fmt(rm.mean)
                rows.append(row)
        hyps = [] if self.ball is None else [Hypothesis(
            BALLS[self.ball][2] + " on every instance (checked exactly)", met,
            f"{len(instances)} instances at d = {d}")]
        return Measurement(rows, hyps)

    def measure_mc(self, p, task, estimate, seed):
        d, k, n = p["mc_d"], p["mc_k"], p["mc_samples"]
        w, x, y = self.mc_instance(d, k, int(seed.entropy))
        m = sample_moments(estimate, w, x, y, k, n, kernel_state(seed))
        mean = m.total / n
        var = np.maximum(m.squares - n * mean * mean, 0.0) / (n - 1)
        exact = [Fraction(float(a)) for a in w], [Fraction(float(a)) for a in x], Fraction(float(y))
        target, limit = self.target(*exact), self.mc_range(w, x, y, d, k)
        return Measurement([{
            "part": "mc", "repetition": task["repetition"], "coordinate": i, "x_i": float(x[i]), "w_i": float(w[i]),
            "samples": n, "mean": float(mean[i]), "var": float(var[i]), "max_abs": float(m.largest[i]),
            "range": float(limit[i]), "gradient": float(target[i]), "max_read": int(m.max_read)} for i in range(d)])

    # ------------------------------------------------------------------ verdict
    def exact_rows(self, table):
        exact = table[table["part"] == "exact"] if "part" in table else table
        return exact.astype({"d": int, "k": int, "instance": int})

    def scope(self, p, table):
        ks = sorted(set(table["k"])) if len(table) else []
        return (f"Exact: {len(table)} cases (every d ≤ {p['d_max']}, budgets k ∈ {{{', '.join(map(str, ks))}}}"
                + (f", B = {p['B']:g}" if "B" in p else "") + f"; {int(table['outcomes'].sum())} outcomes of "
                "the subject's law enumerated in rationals, no error rate).")

    def mc_part(self, p, table):
        """(per-coordinate summary, decisions) of the Monte-Carlo part, or (None, [])."""
        mc = table[table["part"] == "mc"] if self.sampler and "part" in table else table.iloc[0:0]
        return decide_unbiased_coordinates(p, mc) if len(mc) else (None, [])

    def learner_part(self, p, table) -> list[tuple[str, str]]:
        """The learner part's decision (see the module docstring), or []."""
        runs = table[table["part"] == "learner"] if self.learner and "part" in table else table.iloc[0:0]
        if not len(runs):
            return []
        what = (f"Learner (the subject `{self.learner}`, d = {p['learner_d']}, k = {p['learner_k']}, "
                f"{p['learner_m']} steps per run, {p['learner_runs']} run(s) on each of "
                f"{', '.join(p['learner_designs'])}): its recorded g̃_t − {self.target_name} at w_t, a martingale, "
                "summed per coordinate (plain, and aligned with the sign of the target)")
        dec, ratios, _ = stats.decide_martingale_mean_zero(
            runs["sum"], runs["steps"], p["learner_delta"], p["learner_resolution"], what,
            outside=int(runs["outside"].sum()))
        worst = runs.iloc[int(np.argmax(ratios))]
        text = dec.reason + (f"; worst: design {worst['design']}, run {int(worst['run'])}, coordinate "
                             f"{int(worst['coordinate'])}, {worst['statistic']} sum {worst['sum']:.4g}")
        if runs["outside"].sum():
            bad = runs.loc[runs["max_excess"].idxmax()]
            text += (f"; e.g. design {bad['design']}, coordinate {int(bad['coordinate'])}: a g̃_t,i "
                     f"{bad['max_excess']:.4g} beyond the range the paper's estimator allows")
        return [(dec.verdict, text + ".")]

    def extra_decisions(self, p, table):
        summary, parts = self.mc_part(p, table)
        learner = self.learner_part(p, table)
        delta = (p["delta"] if summary is not None else 0.0) + (p["learner_delta"] if learner else 0.0)
        return parts + learner, ({"delta": delta} if summary is not None or learner else {})

    def summarize(self, p, table):
        exact = self.exact_rows(table)
        agg = {"cases": ("instance", "size"), "outcomes": ("outcomes", "sum"), "max_abs_bias": ("max_abs_bias", "max")}
        agg.update({c: (c, "all") for c in self.checks if c in exact})
        if self.functional is not None:
            agg.update(max_ratio=("ratio", "max"), sup_ratio=("sup_ratio", "first"))
        summary = exact.groupby(["d", "k"], as_index=False).agg(**agg).assign(part="exact", bound_ratio=1.0)
        summary.insert(0, "series", [f"d = {d}" for d in summary["d"]])
        # the Monte-Carlo intervals join the summary when they are the figure (no functional to draw)
        mc = self.mc_part(p, table)[0] if self.functional is None else None
        return pd.concat([mc, summary], ignore_index=True) if mc is not None else summary

    def findings(self, p, table):
        exact = self.exact_rows(table)
        if self.functional is None or exact.empty:
            return []
        by_family = exact.groupby("family")["ratio"].max()
        return ["Tightness: the largest " + self.functional_name + "/(" + self.bound_name + ") found per family: "
                + ", ".join(f"{f}: {v:.4g}" for f, v in by_family.items()) + "."]

    def headline(self, p, table):
        exact = self.exact_rows(table)
        if self.functional is not None:
            worst = float(exact["ratio"].max())
            return worst, 1.0, worst
        summary = self.mc_part(p, table)[0]
        if summary is not None and exact["unbiased"].astype(bool).all():
            return float((summary["mean"] - summary["gradient"]).abs().max()), 0.0, None
        return float(exact["max_abs_bias"].max()), 0.0, None

    def figure(self, p, table):
        if self.functional is not None:
            return Plot(x="k", y="max_ratio", theory="bound_ratio", hue="series", xlabel="budget k",
                        ylabel=f"max {self.functional_name} / ({self.bound_name})",
                        theory_label=f"the lemma's bound {self.bound_name} (ratio 1)")
        if self.mc_part(p, table)[0] is not None:
            return Plot(x="coordinate", y="mean", theory="gradient", low="low", high="high", kind="residual",
                        xlabel="coordinate i (Monte-Carlo instance)", ylabel="mean of g_i − exact gradient",
                        band_label=f"interval that decides, per coordinate at level δ/d (δ = {p['delta']:g}; "
                                   "empirical Bernstein ∩ Hoeffding)", theory_label="exact gradient (residual 0)")
        return Plot(x="k", y="max_abs_bias", hue="series", kind="point", ylabel="max |E[estimate] − target|")

    def errata_evidence(self, p, table):
        out = super().errata_evidence(p, table)
        for key, (_, description) in self.readings.items():
            ok = table[f"reading_{key}"].astype(bool)
            text = (f"Enumerated exactly on this run's {len(ok)} cases: {description} is biased in {int((~ok).sum())} "
                    f"of them, while the subject's law is unbiased in {int(table['unbiased'].astype(bool).sum())}")
            if not ok.all():
                row = table.loc[ok[~ok].index[0]]
                text += (f" (first: {self.name_row(row)}: mean {row[f'reading_{key}_mean']} ≠ "
                         f"{self.target_name} {row['target']})")
            out[key] = text + "."
        return out


def decide_unbiased_coordinates(p, mc) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The Monte-Carlo part: pooled moments per coordinate; a draw outside the range the paper's
    estimator allows is a certain FAIL; every other coordinate by stats.decide_mean_equals at δ/d."""
    d = int(mc["coordinate"].max()) + 1
    records, decisions, hints, outside = [], [], [], []
    for i, part in mc.groupby("coordinate"):
        n, mean, var = stats.pool_moments(part["samples"], part["mean"], part["var"])
        grad, r, largest = float(part["gradient"].iloc[0]), float(part["range"].iloc[0]), float(part["max_abs"].max())
        record = {"part": "mc", "coordinate": int(i), "x_i": float(part["x_i"].iloc[0]), "gradient": grad,
                  "mean": mean, "samples": n, "range": r, "max_abs": largest, "in_range": largest <= r * (1 + 1e-9)}
        if record["in_range"]:
            interval, decision, hint = stats.decide_mean_equals(n, mean, var, -r, r, grad, p["delta"] / d,
                                                                p["resolution"])
            record.update(low=interval.low, high=interval.high, half_width=interval.half_width,
                          contains_gradient=interval.low <= grad <= interval.high, verdict=decision.verdict)
            decisions.append(decision)
            hints += [hint] if hint else []
        else:
            outside.append(record)
        records.append(record)
    summary = pd.DataFrame(records)
    n = int(summary["samples"].iloc[0])
    head = (f"Monte Carlo (d = {p['mc_d']}, k = {p['mc_k']}, {n} draws of the subject `estimate`, at most "
            f"{int(mc['max_read'].max())} attributes read per draw)")
    ranged = stats.decide_always(len(outside), d, "the range |g_i| ≤ r_i that the paper's estimator allows")
    range_text = ranged.reason.replace(" runs", " coordinates").replace("every run", "every draw")
    range_text += " (a draw outside it shows that the subject is not the paper's estimator)"
    if outside:
        worst = max(outside, key=lambda r: r["max_abs"] - r["range"])
        range_text += f"; e.g. coordinate {worst['coordinate']}: |g_i| = {worst['max_abs']:.6g} > {worst['range']:.6g}"
    parts = [(ranged.verdict, f"{head}: {range_text}.")]
    if decisions:
        verdicts = [dec.verdict for dec in decisions]
        inside = summary.dropna(subset=["low"])
        missed = inside[~inside["contains_gradient"].astype(bool)]
        text = (f"{head}: per coordinate, E[g_i] = exact gradient decided by an empirical Bernstein ∩ Hoeffding "
                f"interval at δ/d = {p['delta'] / d:.3g} (union bound over {len(decisions)} coordinates: total δ = "
                f"{p['delta']:g}); {len(missed)} intervals exclude the gradient, "
                f"{verdicts.count(stats.INCONCLUSIVE)} are wider than the resolution {p['resolution']:g}; "
                f"largest half-width {inside['half_width'].max():.3g}")
        if len(missed):
            bad = missed.loc[(missed["mean"] - missed["gradient"]).abs().idxmax()]
            text += (f"; worst coordinate {int(bad['coordinate'])}: mean {bad['mean']:.6g} in [{bad['low']:.6g}, "
                     f"{bad['high']:.6g}] but the gradient is {bad['gradient']:.6g}")
        elif hints:
            text += "; " + max(hints, key=len)
        parts.append((stats.combine(verdicts), text + "."))
    return summary, parts


# ---------------------------------------------------------------------- rational instances
BALLS = {  # name: (x norm, w norm, hypothesis text)
    "l2": ("‖x‖₂", "‖w‖₂", "‖x‖₂ ≤ 1, ‖w‖₂ ≤ B and |y| ≤ B"),
    "l1": ("‖x‖∞", "‖w‖₁", "‖x‖∞ ≤ 1, ‖w‖₁ ≤ B and |y| ≤ B"),
}


def ball_hypotheses(w, x, y, B, ball) -> bool:
    if ball == "l2":
        return dot(x, x) <= 1 and dot(w, w) <= B * B and abs(y) <= B
    if ball == "l1":
        return max(abs(v) for v in x) <= 1 and sum(abs(a) for a in w) <= B and abs(y) <= B
    return True


def random_rational(rng, spread: int, low=-1, high=1) -> Fraction:
    """A rational p/q in [low, high] with 1 ≤ q ≤ spread."""
    q = int(rng.integers(1, spread + 1))
    lo, hi = math.ceil(Fraction(low) * q), math.floor(Fraction(high) * q)
    return Fraction(int(rng.integers(lo, hi + 1)), q)


def random_fraction(rng, spread: int) -> Fraction:
    """p/q with |p| ≤ spread and 1 ≤ q ≤ spread (no hypothesis on its size)."""
    return Fraction(int(rng.integers(-spread, spread + 1)), int(rng.integers(1, spread + 1)))


def rational_unit_vector(rng, d: int, spread: int) -> Vector:
    """A rational point of the unit sphere of ℝ^d (inverse stereographic projection of a random
    rational t ∈ ℚ^{d−1}: (2t, |t|² − 1)/(1 + |t|²)), coordinates shuffled."""
    if d == 1:
        return (Fraction(1 if rng.random() < 0.5 else -1),)
    t = [random_rational(rng, spread, -2, 2) for _ in range(d - 1)]
    n2 = sum(v * v for v in t)
    point = [2 * v / (1 + n2) for v in t] + [(n2 - 1) / (1 + n2)]
    rng.shuffle(point)
    return tuple(point)


def _zero_some(rng, v, rate: float) -> Vector:
    return tuple(Fraction(0) if rng.random() < rate else a for a in v)


def _radius(rng, spread: int) -> Fraction:
    """1 with probability 1/3 (the boundary of the ball), else a random rational in [0, 1]."""
    return Fraction(1) if rng.random() < 1 / 3 else random_rational(rng, spread, 0, 1)


def _label(rng, B: Fraction, spread: int) -> Fraction:
    u = rng.random()
    return B if u < 0.2 else -B if u < 0.4 else Fraction(0) if u < 0.5 else B * random_rational(rng, spread)


def _basis(d: int, j: int, scale=1) -> Vector:
    return tuple(Fraction(scale) if i == j else Fraction(0) for i in range(d))


def random_ball_instance(rng, d: int, B: Fraction, spread: int, ball: str) -> Instance:
    """Random (w, x, y) meeting the ball's hypotheses, often on the boundary, with zero
    coordinates and sometimes w = 0."""
    if ball == "l2":
        x = _zero_some(rng, tuple(_radius(rng, spread) * v for v in rational_unit_vector(rng, d, spread)), 0.2)
        w = _zero_some(rng, tuple(B * _radius(rng, spread) * v for v in rational_unit_vector(rng, d, spread)), 0.2)
    else:
        x = tuple(Fraction(1 if u < 0.15 else -1) if u < 0.3 else Fraction(0) if u < 0.45
                  else random_rational(rng, spread) for u in rng.random(d))
        v = _zero_some(rng, tuple(random_rational(rng, spread) for _ in range(d)), 0.25)
        l1 = sum(abs(a) for a in v)
        w = tuple(B * _radius(rng, spread) * a / l1 for a in v) if l1 else v
    if rng.random() < 0.1:
        w = (Fraction(0),) * d
    return "random", w, x, _label(rng, B, spread)


def generic_instances(d: int, B: Fraction, ball: str) -> list[Instance]:
    """Two fixed instances with distinct |w_j|, mixed signs and x ∉ {0, ±1}^d, so that a wrong
    sampling law cannot hide behind equal weights or |x_j| = 1 (Σ|a| ≥ ‖a‖₂, so dividing by
    the L1 norm lands inside either ball)."""
    raw_w = [Fraction((-1) ** j * (j + 1)) for j in range(d)]
    raw_x = [Fraction((-1) ** (j // 2), j + 2) for j in range(d)]
    w = tuple(B * a / sum(abs(v) for v in raw_w) for a in raw_w)
    x = tuple(a / sum(abs(v) for v in raw_x) for a in raw_x) if ball == "l2" else tuple(raw_x)
    return [("generic", w, x, B / 3), ("generic", tuple(reversed(w)), x, -B)]


def boundary_instances(rng, d: int, B: Fraction, spread: int, count: int, ball: str) -> list[Instance]:
    """The family that maximises the second moment: ‖x‖ = 1 and ⟨w, x⟩ = −B with y = B (so
    |⟨w, x⟩ − y| = 2B, its largest value), its mirror image, and a small grid of unit x,
    w ∈ {±B·x-like, ±B·e_j, 0} and y ∈ {−B, 0, B}."""
    out: list[Instance] = []
    for c in range(count + 1):
        if ball == "l2":
            x = _basis(d, 0) if c == 0 else rational_unit_vector(rng, d, spread)
            w = tuple(-B * a for a in x)
        else:  # x ∈ {±1}^d, w = −B·(sign(x) ∘ p) for p in the simplex
            x = tuple(Fraction(1) if c == 0 or rng.random() < 0.5 else Fraction(-1) for _ in range(d))
            raw = [Fraction(1)] + [Fraction(0)] * (d - 1) if c == 0 else \
                [Fraction(int(rng.integers(0, spread + 1))) for _ in range(d)]
            raw = raw if sum(raw) else [Fraction(1), *raw[1:]]
            w = tuple(-B * a / sum(raw) * b for a, b in zip(raw, x, strict=True))
        out += [("adversarial", w, x, B), ("adversarial", tuple(-a for a in w), x, -B)]
    if ball == "l2":
        xs = [_basis(d, 0)] + [tuple(list(v) + [Fraction(0)] * (d - len(v))) for v in
                               ([Fraction(3, 5), Fraction(4, 5)], [Fraction(2, 3), Fraction(-2, 3), Fraction(1, 3)],
                                [Fraction(1, 2)] * 4) if len(v) <= d]
        scale = B
    else:
        xs = [(Fraction(1),) * d, tuple(Fraction((-1) ** i) for i in range(d)), (Fraction(1, 2),) * d, _basis(d, 0)]
        scale = B / d
    for x in xs:
        for w in (tuple(scale * a for a in x), tuple(-scale * a for a in x), _basis(d, 0, B), _basis(d, d - 1, -B),
                  (Fraction(0),) * d):
            out += [("grid", w, x, y) for y in (-B, Fraction(0), B)]
    return out


def ball_instances(rng, d: int, B: Fraction, p, ball: str) -> list[Instance]:
    """p["instances"] random instances, the generic pair, and the boundary family with
    p["adversarial"] random members plus its grid."""
    return ([random_ball_instance(rng, d, B, p["spread"], ball) for _ in range(p["instances"])]
            + generic_instances(d, B, ball) + boundary_instances(rng, d, B, p["spread"], p["adversarial"], ball))


def free_instances(rng, d: int, spread: int, count: int) -> list[Instance]:
    """Instances with no hypothesis: w = 0, x = 0, y = 0, zeros in w and x, equal |w_i| with
    mixed signs, and ``count`` random rational ones (|p| ≤ spread, 1 ≤ q ≤ spread)."""
    def rand():
        return tuple(random_fraction(rng, spread) for _ in range(d))

    def zeroed(v):
        return _zero_some(rng, v, 0.3)

    y = random_fraction(rng, spread)
    zero = (Fraction(0),) * d
    cases = [("w = 0", zero, rand(), y), ("x = 0", rand(), zero, y), ("y = 0", rand(), rand(), Fraction(0)),
             ("zeros in w and x", zeroed(rand()), zeroed(rand()), y),
             ("equal |w_i|, mixed signs", tuple(Fraction(3, 2) * (1 if u < 0.5 else -1) for u in rng.random(d)),
              rand(), y)]
    return cases + [("random", zeroed(rand()), rand(), random_fraction(rng, spread))
                    for _ in range(count)]


def check_mc_budget(p, *, even: bool) -> None:
    """The Monte-Carlo budget rule a declared rule cannot express alone (k ≤ 2d, k even)."""
    if even and (p["mc_k"] % 2 or p["mc_k"] > 2 * p["mc_d"]):
        raise ParameterError(f"mc_k must be even and at most 2·mc_d (k/2 attributes per half), got {p['mc_k']}")


# ---------------------------------------------------------------------- floats against exact values
#: unit round-off of float64
FLOAT_UNIT = Fraction(1, 2**53)


def float_close(value: float, exact: Fraction, scale: Fraction, n: int) -> bool:
    """|value − exact| ≤ γ·scale with γ = 2(n + 4)u: a float sum of n + 3 products of exactly
    representable terms of total magnitude ``scale`` is that close (standard summation bound)."""
    return abs(Fraction(value) - exact) <= 2 * (n + 4) * FLOAT_UNIT * scale


def dyadic_vector(rng, n: int, spread: int) -> list[Fraction]:
    """Entries a/2^b with |a| ≤ 2^b·spread/4, b ≤ 6 (exactly representable as floats)."""
    out = []
    for _ in range(n):
        b = int(rng.integers(0, 7))
        top = max(1, (2**b * spread) // 4)
        out.append(Fraction(int(rng.integers(-top, top + 1)), 2**b))
    return out
