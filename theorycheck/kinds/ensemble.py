"""Kinds for voting ensembles that predict on a feature budget (Reyzin 2011, "Boosting on a budget").

The subjects are fitted ensembles (contract :data:`SAMPLED_ENSEMBLE` or :data:`BUDGETED_ENSEMBLE`,
protocols :class:`~theorycheck.protocols.BudgetedEnsemble`): AdaBoost's stumps and weights α_t, and
a prediction that samples stumps from the weighted vote (Algorithms 2 and 3) or takes them in a
fixed order (§6). The draws of those procedures do not depend on the example, only on α and the
feature costs, so one fitted ensemble serves every claim; it is trained once per process on a
fixed split of a dataset (:func:`fitted`) and reused.

Four bases, one per kind of evidence:

:class:`SampledFrequency` (kind "frequency") — "P(event) ≤ target" in each cell of a grid (a cell
    is e.g. a test example of margin θ and a number of draws B, with target e^{−Bθ²/8}). Each
    trial runs the subject once with fresh draws; a cell's violations are i.i.d. Bernoulli(p_cell)
    and are decided by :func:`theorycheck.stats.decide_frequency_at_most` (exact Clopper–Pearson)
    at δ/G for G cells (union bound: false-FAIL rate ≤ δ/2). Tightness (frequency/target) is
    reported per cell.

    Required hooks: ``count(p, task, subjects, seed) -> list[dict] | Measurement`` — rows with the
    ``cell_columns``, ``violations``, ``trials`` and ``target`` (the bound for that cell), plus any
    columns to show; ``event`` (a sentence: what a violation is) and ``bound_name``.
    Optional: ``cell_columns`` (default ("dataset", "cell")), ``x``/``hue`` (the figure),
    ``notes(p, table)``, ``errata_evidence(p, table)``, ``tasks(p)`` (default: one per dataset and
    chunk of trials; each returns counts for every cell). Parameters: ``datasets``, ``chunks``,
    ``trials`` (per cell and chunk), ``delta``, ``resolution`` (:data:`FREQUENCY_PARAMETERS`).

    :class:`SignConvergence` is the form Propositions 4 and 6 take: the cell of level ℓ is "the
    sampled vote disagrees with the full vote at τ_x(ℓ) draws with probability ≤ e^{−ℓ}", τ_x(ℓ) from
    Hoeffding and the example's drift (hook ``drift``); see its docstring.

:class:`ExactAndSampled` (kind "exact") — :class:`~theorycheck.kinds.exact.Exact` cases enumerated
    in rationals (part "exact", hooks ``exact_cases`` and ``evaluate``), plus Monte-Carlo rows on
    fitted ensembles (part "sampled", hook ``sample(p, task, subjects, seed)``), each row one
    tested quantity: ``relation`` "equals" (:func:`~theorycheck.stats.decide_mean_equals`),
    "at_least" (:func:`~theorycheck.stats.decide_mean_at_least`) — both on the pooled ``n``,
    ``mean``, ``var`` of values in the almost-sure range [``low``, ``high``], at δ/R for R such
    rows (union bound) — or "always" (``violations`` of ``runs``, a pathwise statement, decided by
    :func:`~theorycheck.stats.decide_always`). ``target`` is the value compared against, ``what``
    the sentence. The verdict combines the exact checks and those parts (:func:`stats.combine`).

:class:`BudgetComparison` (kind "comparison", a :class:`~theorycheck.kinds.comparison.PairedComparison`)
    — two budgeted predictors at the same budget and the same feature costs, paired per trial.
    Who wins is reported per setting (the interval of the paired difference, never a verdict);
    the verdict is pathwise: on every test example each contender spends at most the budget
    (recomputed from the features it reports, not from its own total) and its vote does not
    change when every feature it did not report is overwritten (it read only what it reports).
    Hook: ``budgets(p)``, and the base's ``settings``, ``labels``. The budget is not a hypothesis
    here (as it is in the base) but the claim itself: a contender over budget is a FAIL.

:class:`BudgetTables` (kind "reproduction", a :class:`~theorycheck.kinds.reproduction.Reproduction`)
    — a paper's tables re-run on stand-in data, the published numbers beside ours. Each published
    point that decides is compared with the median over trials of our per-trial value (a
    distribution-free order-statistic interval, :func:`theorycheck.stats.decide_median_within`,
    since numbers of samples have no almost-sure bound), at δ split over the points; points whose
    dict has ``"decides": False`` are reported with the same interval. Findings that compare two
    contenders (``paired``: (label, column a, column b, strict)) are decided by the sign test
    (:func:`~theorycheck.stats.decide_median_at_least`) on the paired per-trial differences.
    Hooks: ``reproduce(p, task, subjects, seed) -> list[dict]`` (rows with ``table``, the key
    columns and ``value``), ``published``, ``keys``, ``tolerance``, ``tolerance_reason``,
    ``paired(p)``, ``tables(p, table) -> (summary, notes)``.

The exact reference laws of the paper's procedures (Algorithms 2 and 3 after τ draws, and the
number of features left unexamined by k draws) are here too, in rational arithmetic.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Measurement, Plot
from ..observe import counted_call
from ..protocols import BudgetedEnsemble, Contract, SampledEnsemble
from ..validation import Integer, Names, Number, ParameterError, Positive, Probability, Resolution
from .comparison import PairedComparison, against_verdict, finding_record, replaced_names
from .exact import Exact
from .reproduction import Reproduction

__all__ = [
    "BUDGETED_ENSEMBLE",
    "DATASET_NAMES",
    "DATA_PARAMETERS",
    "FREQUENCY_PARAMETERS",
    "SAMPLED_ENSEMBLE",
    "BudgetComparison",
    "BudgetTables",
    "ExactAndSampled",
    "SampledFrequency",
    "SignConvergence",
    "ac_vote_law",
    "budgeted_predict",
    "certified_below_exp",
    "data_errors",
    "data_split",
    "feature_costs",
    "fitted",
    "int_seed",
    "rs_vote_law",
    "sampled_path",
    "unavailable",
    "unsampled_law",
    "vote_law",
]

#: the datasets of theorycheck.datasets (kept here so that the rules need not import the loaders)
DATASET_NAMES = ("mnist35", "ocr17", "ocr49", "breast_cancer", "digits49", "synthetic", "census", "splice")

#: an ensemble that samples from its vote (Algorithms 2–3), constructed as Ensemble(n_estimators=T)
SAMPLED_ENSEMBLE = Contract(SampledEnsemble, init=("n_estimators",), call=("budget", "costs", "random_state"))
#: an ensemble that predicts on a budget (only predict and examined are used)
BUDGETED_ENSEMBLE = Contract(BudgetedEnsemble, init=("n_estimators",), call=("budget", "costs", "random_state"))

DATA_PARAMETERS = {"datasets": Names(*DATASET_NAMES), "rounds": Integer(1), "n_train": Integer(10),
                   "n_test": Integer(1), "split_seed": Integer(0)}
FREQUENCY_PARAMETERS = {**DATA_PARAMETERS, "chunks": Integer(1), "trials": Integer(1), "delta": Probability(),
                        "resolution": Resolution(1.0, zero=True)}


# ---------------------------------------------------------------------- exact reference laws
def vote_law(probabilities, increments, votes, tau: int) -> list[tuple[Fraction, Fraction]]:
    """The law of v_τ = Σ_{s ≤ τ} increment_{i_s}·h_{i_s}(x) for τ i.i.d. draws i_s ~ probabilities,
    as [(probability, value)] in rationals (values merged, sorted)."""
    steps: dict[Fraction, Fraction] = {}
    for prob, inc, h in zip(probabilities, increments, votes, strict=True):
        if prob:
            steps[Fraction(inc) * h] = steps.get(Fraction(inc) * h, Fraction(0)) + Fraction(prob)
    law = {Fraction(0): Fraction(1)}
    for _ in range(tau):
        nxt: dict[Fraction, Fraction] = {}
        for v, pv in law.items():
            for step, ps in steps.items():
                nxt[v + step] = nxt.get(v + step, Fraction(0)) + pv * ps
        law = nxt
    return sorted((pv, v) for v, pv in law.items())


def ac_vote_law(alpha, votes, costs, tau: int) -> list[tuple[Fraction, Fraction]]:
    """Algorithm 3 (AdaBoostRS_AC) after τ draws, exactly: p(i) = (α_i/c(h_i))/Σ_t(α_t/c(h_t)), each
    draw adds c(h_i)·h_i(x). ``costs`` are the c(h_i), one per hypothesis."""
    weights = [Fraction(a) / Fraction(c) for a, c in zip(alpha, costs, strict=True)]
    total = sum(weights, Fraction(0))
    return vote_law([w / total for w in weights], [Fraction(c) for c in costs], votes, tau)


def rs_vote_law(alpha, votes, tau: int) -> list[tuple[Fraction, Fraction]]:
    """Algorithm 2 (AdaBoostRS) after τ draws, exactly: p(i) = α_i/Σα, each draw adds h_i(x)."""
    total = sum((Fraction(a) for a in alpha), Fraction(0))
    return vote_law([Fraction(a) / total for a in alpha], [Fraction(1)] * len(alpha), votes, tau)


def unsampled_law(q, k: int) -> list[tuple[Fraction, int]]:
    """The law of the number of bins never hit by k i.i.d. draws from q (bins with q_j = 0
    included), exactly, by dynamic programming over the set of bins hit."""
    q = [Fraction(v) for v in q]
    n = len(q)
    law = {frozenset(): Fraction(1)}
    for _ in range(k):
        nxt: dict[frozenset, Fraction] = {}
        for hit, prob in law.items():
            for j, qj in enumerate(q):
                if qj:
                    key = hit | {j}
                    nxt[key] = nxt.get(key, Fraction(0)) + prob * qj
        law = nxt
    out: dict[int, Fraction] = {}
    for hit, prob in law.items():
        out[n - len(hit)] = out.get(n - len(hit), Fraction(0)) + prob
    return sorted((prob, count) for count, prob in out.items())


def exp_neg_bounds(x: Fraction, terms: int) -> tuple[Fraction, Fraction]:
    """Rational (lower, upper) bounds on e^{−x} for x ≥ 0 from its alternating Taylor series: a
    partial sum ending on an odd power is below, one ending on an even power above (the terms
    decrease in size once j > x, which ``terms`` must exceed)."""
    if x < 0:
        raise ValueError("x must be ≥ 0")
    total, term, sums = Fraction(0), Fraction(1), []
    for j in range(terms + 1):
        total += term
        sums.append(total)
        term = -term * x / (j + 1)
    last = terms if terms % 2 == 1 else terms - 1
    return sums[last], sums[last - 1]


def certified_below_exp(value: Fraction, scale: Fraction, x: Fraction, *, max_terms: int = 400) -> bool | None:
    """Whether value ≤ scale·e^{−x}, certified in rationals (True/False), or None when the series
    up to ``max_terms`` cannot tell (the two sides agree to its precision)."""
    if x == 0:
        return value <= scale
    terms = 2 * (int(x) + 8) + 1
    while terms <= max_terms:
        low, high = exp_neg_bounds(x, terms)
        if value <= scale * low:
            return True
        if value > scale * high:
            return False
        terms = 2 * terms + 1
    return None


# ---------------------------------------------------------------------- data and fitted ensembles
def unavailable(err: Exception) -> str:
    return f"{type(err).__name__}: {err}"


def _data_errors() -> tuple[type[Exception], ...]:
    try:
        from ..datasets import DataUnavailable
    except ImportError:  # the loaders are not installed: every dataset is unavailable
        return (ImportError,)
    return (DataUnavailable, ImportError)


@functools.lru_cache(maxsize=16)
def _split(name: str, n_train: int, n_test: int, split_seed: int):
    from ..datasets import load_dataset

    data = load_dataset(name)
    X, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y, dtype=np.float64)
    n = X.shape[0]
    if n_train + n_test > n:  # small data: at most half to train on, the rest to test (never overlapping)
        n_train = min(n_train, n // 2)
        n_test = min(n_test, n - n_train)
    order = np.random.default_rng([split_seed, 9]).permutation(n)
    train, test = order[:n_train], order[n_train:n_train + n_test]
    info = {"dataset": name, "description": getattr(data, "description", name),
            "stand_in": bool(getattr(data, "stand_in", False)), "n_train": int(n_train), "n_test": int(n_test),
            "n_features": int(X.shape[1])}
    return X[train], y[train], X[test], y[test], info


def data_split(name: str, n_train: int, n_test: int, split_seed: int):
    """(X_train, y_train, X_test, y_test, info): the fixed split of dataset ``name`` that :func:`fitted`
    trains and tests on (disjoint rows, a permutation seeded by ``split_seed``; at most half of a small
    data set to train on). Cached per process."""
    return _split(name, n_train, n_test, split_seed)


_FITTED: dict[Any, Any] = {}


def fitted(cls, name: str, p: dict):
    """(model, X_train, y_train, X_test, y_test, info): ``cls(n_estimators=rounds)`` fitted on a
    fixed split (``split_seed``) of dataset ``name``, cached per process. Raises the loaders'
    DataUnavailable (or ImportError) when the data is missing: callers turn it into an
    unavailable row (INCONCLUSIVE), never a crash."""
    key = (cls, name, p["rounds"], p["n_train"], p["n_test"], p["split_seed"])
    if key not in _FITTED:
        if len(_FITTED) > 24:
            _FITTED.clear()
        Xtr, ytr, Xte, yte, info = _split(name, p["n_train"], p["n_test"], p["split_seed"])
        model = cls(n_estimators=p["rounds"]).fit(Xtr, ytr)
        info = {**info, "rounds_built": int(getattr(model, "n_estimators_", p["rounds"])),
                "full_error": float(np.mean(model.predict(Xte) != yte))}
        _FITTED[key] = (model, Xtr, ytr, Xte, yte, info)
    return _FITTED[key]


def budgeted_predict(model, X, *, who: str, **kwargs):
    """``model.predict(X, **kwargs)`` (a budgeted prediction) with the features it reads held to those it reports:
    a replaced predictor runs on a watched view of X (:func:`theorycheck.observe.counted_call`) and raises
    :class:`theorycheck.claims.SubjectFailure` (a FAIL, exact) when it is seen to read more entries of a test
    example than its ``n_features_examined_`` says. The built-in predictors are called as they are (their
    kernels' counters are audited by the tests). Returns the predictions."""
    pred, _ = counted_call(model.predict, X, reported=lambda _: int(np.sum(model.n_features_examined_)),
                           per_example=lambda _: model.n_features_examined_, who=who, **kwargs)
    return pred


def sampled_path(model, X, taus, *, who: str, **kwargs):
    """``model.sample_path(X, taus, **kwargs)`` with the features it reads held to those it reports: as
    :func:`budgeted_predict`, the report being each row's distinct features examined by the last τ
    (``n_features[:, -1]``). Returns the :class:`~theorycheck.algorithms.SamplePath`."""
    path, _ = counted_call(model.sample_path, X, taus, reported=lambda path: int(np.sum(path.n_features[:, -1])),
                           per_example=lambda path: path.n_features[:, -1], who=who, **kwargs)
    return path


def data_errors():
    """The exceptions that mean "this dataset is not installed"."""
    return _data_errors()


def feature_costs(d: int, low: float, high: float, rng: np.random.Generator) -> np.ndarray:
    """Costs drawn i.i.d. uniform on (low, high] (never 0: the box divides by them)."""
    return low + (high - low) * (1.0 - rng.random(d))


def int_seed(seed: np.random.SeedSequence) -> int:
    return int(seed.generate_state(1)[0])


# ---------------------------------------------------------------------- frequency
class SampledFrequency(Claim):
    kind = "frequency"
    cell_columns: ClassVar[tuple[str, ...]] = ("dataset", "cell")
    event: ClassVar[str] = "the event"
    bound_name: ClassVar[str] = "the bound"
    x: ClassVar[str] = "cell"
    hue: ClassVar[str | None] = "dataset"
    logy: ClassVar[bool] = True
    parameters = FREQUENCY_PARAMETERS

    def count(self, p, task, subjects, seed):
        raise NotImplementedError

    def notes(self, p, table) -> list[str]:
        return []

    def errata_evidence(self, p, table) -> dict[str, str]:
        return {}

    def tasks(self, p):
        return [{"dataset": name, "chunk": c} for name in p["datasets"] for c in range(p["chunks"])]

    def measure(self, p, task, subjects, seed):
        try:
            result = self.count(p, task, subjects, seed)
        except data_errors() as err:
            return Measurement([{**task, "unavailable": unavailable(err)}])
        return result if isinstance(result, Measurement) else Measurement(list(result))

    def decide(self, p, table):
        missing = table[table["unavailable"].notna()] if "unavailable" in table else table.iloc[0:0]
        counted = table[table["unavailable"].isna()] if "unavailable" in table else table
        keys = list(self.cell_columns)
        verdicts, lines, records, hints = [], [], [], []
        for name, part in missing.groupby("dataset"):
            verdicts.append(stats.INCONCLUSIVE)
            lines.append(f"- {name}: INCONCLUSIVE. The data is not available ({part['unavailable'].iloc[0]}).")
        cells = list(counted.groupby(keys, sort=False)) if len(counted) else []
        level = p["delta"] / max(len(cells), 1)
        for key, part in cells:
            key = key if isinstance(key, tuple) else (key,)
            n, v = int(part["trials"].sum()), int(part["violations"].sum())
            target = float(part["target"].max())
            if part["target"].nunique() > 1:
                raise ValueError(f"{self.id}: cell {key} has several targets")
            dec, hint = stats.decide_frequency_at_most(v, v, n, target, level, p["resolution"], f"trials: {self.event}")
            iv = stats.binomial_interval(v, n, level)
            name = ", ".join(f"{c} = {k}" for c, k in zip(keys, key, strict=True))
            verdicts.append(dec.verdict)
            if dec.verdict != stats.PASS or len(lines) < 40:
                lines.append(f"- {name}: {dec.verdict}. {dec.reason}.")
            if hint:
                hints.append(f"{name}: {hint}")
            shown = {c: part[c].iloc[0] for c in part.columns
                     if c not in (*keys, "violations", "trials", "target", "chunk", "unavailable")
                     and part[c].nunique(dropna=False) == 1}
            records.append({**dict(zip(keys, key, strict=True)), **shown, "trials": n, "violations": v,
                            "frequency": v / n, "low": iv.low, "high": iv.high, "target": target,
                            "tightness": (v / n) / target if target > 0 else math.inf, "verdict": dec.verdict})
        summary = pd.DataFrame(records)
        text = (f"Claim: in every cell, P({self.event}) ≤ {self.bound_name}. Per cell, the violations over "
                f"independent trials are decided by an exact Clopper–Pearson interval at δ/{len(cells)} = {level:.3g} "
                f"(union bound over the cells): FAIL if it lies above the cell's bound (false-FAIL rate ≤ δ/2 = "
                f"{p['delta'] / 2:g}), PASS if its upper end is ≤ bound + resolution {p['resolution']:g}; a dataset "
                "that is not installed is INCONCLUSIVE.\n" + "\n".join(lines))
        errata = self.errata_evidence(p, counted) if len(counted) else {}
        notes = [*self.notes(p, counted)] if len(counted) else []
        observed = interval = None
        if len(summary):
            worst = summary.loc[summary["tightness"].idxmax()]
            notes.append(f"Tightness (observed frequency / bound): median {summary['tightness'].median():.3g}, largest "
                         f"{worst['tightness']:.3g} (cell " + ", ".join(f"{c} = {worst[c]}" for c in keys) + ").")
            observed = float(worst["tightness"])
            if worst["target"] > 0:  # the tightest cell's Clopper–Pearson interval, over its bound
                interval = (worst["low"] / worst["target"], worst["high"] / worst["target"])
        notes += [f"Paper erratum, shown on this run ({k}): {t}" for k, t in errata.items()] + hints[:5]
        return Evidence(verdict=stats.combine(verdicts), observed=observed, theory=1.0 if len(summary) else None,
                        ratio=observed, interval=interval, delta=p["delta"], decision=text, summary=summary,
                        notes=notes, errata=errata,
                        plot=Plot(x=self.x, y="frequency", theory="target", low="low", high="high", hue=self.hue,
                                  kind="point", logy=self.logy, ylabel=f"frequency of {self.event}",
                                  theory_label=f"bound {self.bound_name}",
                                  band_label=f"Clopper–Pearson interval at level δ/{len(cells)} (decides)"))


# ---------------------------------------------------------------------- exact and sampled
class ExactAndSampled(Exact):
    sampled_parameters: ClassVar[dict] = {**DATA_PARAMETERS, "delta": Probability(), "resolution": Resolution()}

    def exact_cases(self, p) -> list[dict[str, Any]]:
        raise NotImplementedError

    def sample(self, p, task, subjects, seed) -> list[dict] | Measurement:
        raise NotImplementedError

    def cases(self, p):
        return ([{"part": "exact", **c} for c in self.exact_cases(p)]
                + [{"part": "sampled", "dataset": name} for name in p["datasets"]])

    def measure(self, p, task, subjects, seed):
        if task["part"] != "sampled":
            result = super().measure(p, task, subjects, seed)
            for row in result.rows:
                row.setdefault("part", "exact")
            return result
        try:
            result = self.sample(p, task, subjects, seed)
        except data_errors() as err:
            return Measurement([{**task, "unavailable": unavailable(err)}])
        return result if isinstance(result, Measurement) else Measurement(list(result))

    def exact_rows(self, table):
        return table[table["part"] == "exact"]

    def sampled_rows(self, table):
        return table[table["part"] == "sampled"]

    def summarize(self, p, table) -> pd.DataFrame:
        exact = super().summarize(p, self.exact_rows(table))
        return pd.concat([exact, self.sampled_summary(p, table).assign(part="sampled")], ignore_index=True)

    def sampled_summary(self, p, table) -> pd.DataFrame:
        rows = self.sampled_rows(table)
        if "unavailable" in rows:
            rows = rows[rows["unavailable"].isna()]
        return decide_sampled_rows(p, rows)[0]

    def extra_decisions(self, p, table):
        rows = self.sampled_rows(table)
        parts = []
        if "unavailable" in rows:
            for _, row in rows[rows["unavailable"].notna()].iterrows():
                parts.append((stats.INCONCLUSIVE, f"Sampled part on {row['dataset']}: the data is not available "
                                                  f"({row['unavailable']})."))
            rows = rows[rows["unavailable"].isna()]
        if len(rows):
            parts += decide_sampled_rows(p, rows)[1]
        return parts, {"delta": p["delta"]}


def decide_sampled_rows(p, rows) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """Decide every sampled row (see :class:`ExactAndSampled`); returns (summary, parts)."""
    if rows.empty or "relation" not in rows:
        return pd.DataFrame(), []
    tested = rows[rows["relation"].isin(["equals", "at_least"])]
    level = p["delta"] / max(len(tested), 1)
    records, parts = [], []
    for _, row in rows.iterrows():
        record = {c: row[c] for c in ("dataset", "what", "relation", "target", "mean") if c in row}
        for c in ("k", "tau", "example", "cell"):
            if c in row and row[c] == row[c] and row[c] is not None:
                record[c] = row[c]
        if row["relation"] == "always":
            slack = row["slack"] if isinstance(row.get("slack"), str) else ""
            dec = stats.decide_always(int(row["violations"]), int(row["runs"]), row["what"], slack)
            record.update(verdict=dec.verdict, low=math.nan, high=math.nan, runs=int(row["runs"]))
        else:
            n, mean, var = int(row["n"]), float(row["mean"]), float(row["var"])
            lo, hi, target = float(row["low"]), float(row["high"]), float(row["target"])
            if row["relation"] == "equals":
                iv, dec, _ = stats.decide_mean_equals(n, mean, var, lo, hi, target, level, p["resolution"])
            else:  # E ≥ target, on values shifted into [0, hi − lo]
                iv, dec, _ = stats.decide_mean_at_least(n, mean - lo, var, hi - lo, target - lo, level,
                                                        p["resolution"])
                iv = stats.Interval(mean, iv.low + lo, iv.high + lo, iv.delta, iv.method, n)
            record.update(verdict=dec.verdict, low=iv.low, high=iv.high, runs=n)
        records.append(record)
        parts.append((record["verdict"], f"{row['dataset']}: {row['what']}: {dec.reason}"))
    summary = pd.DataFrame(records)
    # one line per verdict class, so a page is not thousands of lines long
    out = []
    for verdict in (stats.FAIL, stats.INCONCLUSIVE, stats.PASS):
        chosen = [t for v, t in parts if v == verdict]
        if chosen:
            head = (f"{len(chosen)} sampled checks {verdict} (each at δ/{len(tested)} = {level:.3g} where it is a "
                    "mean; union bound)")
            out.append((verdict, head + ": " + " | ".join(chosen[:6]) + (" | …" if len(chosen) > 6 else "")))
    return summary, out


# ---------------------------------------------------------------------- comparison at equal budget
class BudgetComparison(PairedComparison):
    """See the module docstring. ``run`` is the kind's: for the setting's dataset and budget, one
    trial draws feature costs (``cost_low``, ``cost_high``), predicts the test set with both
    contenders at the same budget and costs (each with its own stream), and records their test
    errors, the largest cost each spent (recomputed from the features it reports), and whether
    its votes survive overwriting the features it did not report."""

    labels = ("a", "b")
    parameters = {**PairedComparison.parameters, **DATA_PARAMETERS, "cost_low": Number(0.0), "cost_high": Positive()}

    def budgets(self, p) -> tuple[float, ...]:
        raise NotImplementedError

    def settings(self, p):
        return [{"dataset": name, "budget": float(b), "label": f"{name}, B = {b:g}", "decides": False,
                 "sentence": "§6, line 417 (the second open problem)",
                 "paper": "the deterministic top-α/c rule \"sometimes outperforms\" the sampling approach",
                 "why": "\"sometimes\" admits either winner in any one setting: reported, never decided"}
                for name in p["datasets"] for b in self.budgets(p)]

    def upper(self, p):
        return 1.0

    def budget(self, p):
        return math.inf

    def check_params(self, p):
        if not p["cost_high"] > p["cost_low"]:
            raise ParameterError("cost_high must exceed cost_low")

    def measure(self, p, task, subjects, seed):
        data, a_seed, b_seed = seed.spawn(3)
        try:
            out = self.contest(p, task, subjects, np.random.default_rng(data), (int_seed(a_seed), int_seed(b_seed)))
        except data_errors() as err:
            return Measurement([{**task, "unavailable": unavailable(err), "loss_a": math.nan, "loss_b": math.nan,
                                 "difference": 0.0}])
        return Measurement([{**task, **out, "difference": out["loss_b"] - out["loss_a"]}])

    def contest(self, p, task, subjects, rng, seeds) -> dict:
        B = task["budget"]
        models = {who: fitted(subjects[who], task["dataset"], p) for who in "ab"}
        _, _, _, Xte, yte, info = models["a"]
        costs = feature_costs(Xte.shape[1], p["cost_low"], p["cost_high"], rng)  # the same costs for both
        out = {"examples": int(Xte.shape[0]), "full_error": info["full_error"]}
        for who, seed in zip("ab", seeds, strict=True):
            model = models[who][0]
            pred = budgeted_predict(model, Xte, who=self.labels["ab".index(who)], budget=B, costs=costs,
                                    random_state=seed)
            spent = np.array([costs[np.unique(model.examined(i))].sum() for i in range(Xte.shape[0])])
            out[f"loss_{who}"] = float(np.mean(pred != yte))
            out[f"spent_max_{who}"] = float(spent.max())
            out[f"over_{who}"] = int((spent > B * (1 + 1e-12)).sum())
            out[f"samples_{who}"] = float(np.mean(model.n_samples_))
            out[f"unreported_reads_{who}"] = int(self.unreported_reads(model, Xte, B, costs, seed))
        return out

    @staticmethod
    def unreported_reads(model, X, B, costs, seed) -> int:
        """Examples whose vote changes when every feature the contender did not report as examined is
        set to +10³⁰⁰ in one copy and −10³⁰⁰ in another (the same stream: the same draws). 0 for a contender
        that reads only what it reports (its draws do not depend on the example)."""
        model.predict(X, budget=B, costs=costs, random_state=seed)
        base = model.votes_.copy()
        seen = np.zeros(X.shape, dtype=bool)
        for i in range(X.shape[0]):
            seen[i, model.examined(i)] = True
        changed = np.zeros(X.shape[0], dtype=bool)
        for fill in (1e300, -1e300):  # beyond every threshold, on either side
            model.predict(np.where(seen, X, fill), budget=B, costs=costs, random_state=seed)
            changed |= model.votes_ != base
        return int(changed.sum())

    def decide(self, p, table):
        missing = table[table["unavailable"].notna()] if "unavailable" in table else table.iloc[0:0]
        done = table[table["unavailable"].isna()] if "unavailable" in table else table
        a, b = self.labels
        parts, lines = [], []
        for name in sorted(set(missing["dataset"])):
            parts.append(stats.INCONCLUSIVE)
            lines.append(f"- {name}: INCONCLUSIVE, the data is not available "
                         f"({missing[missing['dataset'] == name]['unavailable'].iloc[0]}).")
        for who, label in (("a", a), ("b", b)):
            if len(done):
                over = int(done[f"over_{who}"].sum())
                reads = int(done[f"unreported_reads_{who}"].sum())
                runs = int(done["examples"].sum())
                for dec in (stats.decide_always(over, runs, f"{label} spends at most B (cost of the distinct features "
                                                            "it reports, recomputed) on every test example",
                                                "relative 1e-12"),
                            stats.decide_always(reads, runs, f"{label}'s vote is unchanged when every feature it did "
                                                             "not report is overwritten by ±10³⁰⁰")):
                    parts.append(dec.verdict)
                    lines.append(f"- {dec.verdict}: {dec.reason}.")
        evidence = super().decide(p, done) if len(done) else None
        text = ("Verdict: pathwise budget checks only (who wins is reported per setting, never decided).\n"
                + "\n".join(lines))
        if evidence is not None:
            summary = evidence.summary.assign(**{
                f"spent_max_{w}": [float(done[done["setting"] == s][f"spent_max_{w}"].max())
                                   for s in evidence.summary["setting"]] for w in "ab"})
            summary["winner"] = np.where(summary["high"] < 0, b, np.where(summary["low"] > 0, a, "neither (interval "
                                                                                                  "contains 0)"))
            summary["verdict"] = "reported"
            what = "median" if self.statistic == "median" else "mean"
            text += (f"\n\nWho wins, per setting (reported, not decided): the {what} over trials of the paired "
                     f"difference (error of {b}) − (error of {a}), with its interval at level {p['delta']:g} "
                     f"({'order statistics, the sign test' if what == 'median' else 'empirical Bernstein'}):\n"
                     + "\n".join(f"- {r['label']}: {r['difference']:+.4g} in [{r['low']:.4g}, {r['high']:.4g}] "
                                  f"(mean errors {a} {r['loss_a']:.4g}, {b} {r['loss_b']:.4g}): {r['winner']} "
                                  f"{'wins' if not str(r['winner']).startswith('neither') else ''}"
                                  for _, r in summary.iterrows()))
            plot, findings = evidence.plot, evidence.findings
        else:
            summary, plot, findings = pd.DataFrame(), None, []
        return Evidence(verdict=stats.combine(parts), observed=None, theory=None, delta=p["delta"], decision=text,
                        summary=summary, plot=plot, notes=self.notes(p, done) if len(done) else [], findings=findings)

    def notes(self, p, table) -> list[str]:
        return []


# ---------------------------------------------------------------------- tables beside the paper's
class BudgetTables(Reproduction):
    """See the module docstring."""

    parameters = {**Reproduction.parameters, "repetitions": Integer(2)}

    def tasks(self, p):
        """One task per data set (the claim's ``datasets`` parameter) and repetition."""
        return [{"dataset": name, "repetition": r} for name in p["datasets"] for r in range(p["repetitions"])]

    def points(self, p) -> list[dict]:
        """The published points of this run (default: ``published``)."""
        return list(self.published)

    def paired(self, p) -> list[dict]:
        """Findings decided on paired per-trial values, one dict each: ``label``, ``table``, ``better`` and
        ``worse`` (columns), ``decides``, ``side`` ("paper": the paper's statement, against it NOT
        REPRODUCED with the reference implementations on the paper's data; "ours": this project's
        statement, e.g. an erratum's evidence, against it FAIL), ``relation`` (superior: worse − better
        above 0, a direction; non-inferior: not below −ε), ``margin`` ε, ``statistic`` ("median" or "t",
        the mean where the paper averages over trials), ``dataset``, ``sentence``, ``paper``, ``why``."""
        return []

    def designed_data(self, name: str) -> bool:
        """Whether data set ``name`` is this project's stand-in, not the paper's: a result against the paper
        there is a simulation finding (INCONCLUSIVE), never a non-reproduction."""
        return False

    def tables(self, p, table) -> tuple[pd.DataFrame, list[str]]:
        return pd.DataFrame(), []

    def measure(self, p, task, subjects, seed):
        try:
            rows = self.reproduce(p, task, subjects, seed)
        except data_errors() as err:
            return Measurement([{**task, "table": "unavailable", "unavailable": unavailable(err)}])
        replaced = ",".join(replaced_names(self, subjects))
        return Measurement([{**row, "repetition": task["repetition"], "replaced": replaced} for row in rows])

    def outcome_verdict(self, outcome: str, side: str, dataset: str, reference: bool) -> str:
        """What a finding's outcome makes of the claim: against the paper's statement NOT REPRODUCED with the
        reference implementations on the paper's data (INCONCLUSIVE on a stand-in, FAIL with a replaced
        subject); against this project's own statement (an erratum's evidence) FAIL."""
        if outcome not in stats.AGAINST:
            return stats.OUTCOME_VERDICT[outcome]
        return against_verdict(reference, self.designed_data(dataset)) if side == "paper" else stats.FAIL

    def decide(self, p, table):
        keys = list(self.keys)
        points = [pt for pt in self.points(p) if all(k in pt for k in keys)]
        deciding = [pt for pt in points if pt.get("decides", True)]
        findings = self.paired(p)
        count = len(deciding) + sum(1 for f in findings if f.get("decides", True))
        level = p["delta"] / max(count, 1)
        reference = self.with_reference(table)
        verdicts, lines, records, found = [], [], [], []
        if "unavailable" in table:
            for msg in sorted(set(table["unavailable"].dropna())):
                lines.append(f"- not available: {msg}")
        for point in points:
            mask = pd.Series(True, index=table.index)
            for k in keys:
                mask &= table[k] == point[k] if k in table else False
            values = (table.loc[mask, "value"].dropna().to_numpy(dtype=np.float64) if "value" in table
                      else np.zeros(0))
            decides = point.get("decides", True)
            name = ", ".join(f"{k} = {point[k]}" for k in keys)
            tol = point.get("tolerance", self.tolerance)
            if values.size == 0:
                if decides:
                    verdicts.append(stats.INCONCLUSIVE)
                lines.append(f"- {name}: not reproduced (no run, e.g. data missing)")
                records.append({**{k: point[k] for k in keys}, "published": point["value"], "ours": None,
                                "verdict": "not run"})
                continue
            # an equivalence of our median with the published value, within ± the tolerance
            res = stats.decide_sequential(values - point["value"], stats.EQUIVALENT, tol, level, (values.size,))
            iv = res.interval
            verdict = self.outcome_verdict(res.outcome, point.get("side", "paper"), point.get("dataset", ""),
                                           reference)
            if decides:
                verdicts.append(verdict)
            shown = (f"median {iv.estimate + point['value']:.4g} in [{iv.low + point['value']:.4g}, "
                     f"{iv.high + point['value']:.4g}] against published {point['value']:g} ± {tol:g}")
            lines.append(f"- {name}{'' if decides else ' (reported, not decided)'}: {res.outcome} — "
                         f"{stats.MEANING[res.outcome]}. {shown}")
            records.append({**{k: point[k] for k in keys}, "published": point["value"], "ours": float(values.mean()),
                            "median": iv.estimate + point["value"], "low": iv.low + point["value"],
                            "high": iv.high + point["value"], "tolerance": tol,
                            "verdict": verdict if decides else f"{res.outcome} (reported)"})
            found.append(self._record(f"{name}: within ±{tol:g} of the published {point['value']:g}", res,
                                      stats.EQUIVALENT, tol, decides,
                                      {"estimand": "our value − the published one: the median over trials "
                                                   "(order statistics, exact)", **point}, "median", reference))
        for f in findings:
            decides, label = f.get("decides", True), f["label"]
            part = table[table["table"] == f["table"]] if "table" in table else table.iloc[0:0]
            if not len(part) or f["better"] not in part or f["worse"] not in part:
                if decides:
                    verdicts.append(stats.INCONCLUSIVE)
                lines.append(f"- {label}: INCONCLUSIVE, not run")
                continue
            part = part.sort_values("repetition")
            diff = (part[f["worse"]] - part[f["better"]]).to_numpy(dtype=np.float64)
            relation, statistic = f.get("relation", stats.SUPERIOR), f.get("statistic", "median")
            res = stats.decide_sequential(diff, relation, f["margin"], level, (diff.size,), statistic=statistic)
            verdict = self.outcome_verdict(res.outcome, f.get("side", "paper"), f.get("dataset", ""), reference)
            if decides:
                verdicts.append(verdict)
            role = "" if decides else " (reported, not decided)"
            lines.append(f"- {label}{role}: {res.outcome} — {stats.MEANING[res.outcome]}. {res.reason}")
            iv = res.interval
            records.append({"finding": label + role, "median": iv.estimate, "low": iv.low, "high": iv.high,
                            "verdict": verdict if decides else f"{res.outcome} (reported)"})
            found.append(self._record(label, res, relation, f["margin"], decides, f, statistic, reference, diff))
        summary, notes = self.tables(p, table)
        text = (f"Published points that decide: {len(deciding)}; findings: {len(findings)}; each at δ/{count} = "
                f"{level:.3g} (union bound). A published point: an equivalence of our median over "
                f"{p['repetitions']} trials (order-statistic interval) with published ± tolerance: REPRODUCED inside, "
                f"DIFFERENT wholly outside. A finding: the paired per-trial difference worse − better in its relation "
                f"(a direction: REPRODUCED above 0, REVERSED below 0, NEGLIGIBLE inside (−ε, ε); a non-inferiority: "
                f"REPRODUCED when not below −ε), on its estimand (the median, or the mean where the paper averages "
                f"over trials). Against the paper's statement: NOT REPRODUCED with the reference implementations on "
                f"the paper's data, INCONCLUSIVE on a stand-in (a simulation finding), FAIL with a replaced subject; "
                f"against this project's own statement (an erratum's evidence): FAIL. Tolerance: "
                f"{self.tolerance_reason}\n" + "\n".join(lines))
        decided = pd.DataFrame(records)
        return Evidence(verdict=stats.combine(verdicts), observed=None, theory=None, delta=p["delta"], decision=text,
                        summary=summary if len(summary) else decided, notes=[*notes, *self.point_notes(decided)],
                        errata=self.errata_evidence(p, table), findings=found,
                        plot=self.figure(p, table))

    def _record(self, label, res, relation, margin, decides, f, statistic, reference, values=None) -> dict:
        """One finding's record (:func:`finding_record`) with its data set's side: a stand-in's is designed."""
        beside = None
        if statistic != "median" and values is not None:
            beside = stats.median_interval(values, res.interval.delta)
        out = finding_record(label, res, relation, margin, decides, statistic=statistic, paper=f.get("paper", ""),
                             why=f.get("why", ""), sentence=f.get("sentence", ""),
                             source=f.get("source", stats.CONVENTION), derivation=f.get("derivation", ""),
                             estimand=f.get("estimand", ""), beside=beside)
        designed = self.designed_data(f.get("dataset", ""))
        out["designed"] = designed
        out["side"] = f.get("side", "paper")
        out["against"] = bool(out["against"] and reference and not designed and out["side"] == "paper")
        out["recorded"] = bool(f.get("known")) and f.get("known") in {n.key for n in self.non_reproductions}
        out["known"] = f.get("known", "")
        return out

    def point_notes(self, decided) -> list[str]:
        if decided.empty:
            return []
        parts = []
        for _, r in decided.iterrows():
            row = r.to_dict()
            name = ", ".join(f"{k} = {row[k]}" for k in (*self.keys, "finding") if isinstance(row.get(k), str | float)
                             and row.get(k) == row.get(k))
            if row.get("median") is None or row.get("median") != row.get("median"):
                parts.append(f"{name}: not run → {row.get('verdict')}")
                continue
            head = f"published {row['published']:g}, ours (median) " if row.get("published") == row.get(
                "published") and row.get("published") is not None else "median "
            parts.append(f"{name}: {head}{row['median']:.4g} in [{row['low']:.4g}, {row['high']:.4g}] → "
                         f"{row['verdict']}")
        return ["Published points and findings: " + "; ".join(parts)]

    def errata_evidence(self, p, table) -> dict[str, str]:
        return {}

    def figure(self, p, table):
        return None


class SignConvergence(SampledFrequency):
    """Propositions 4 and 6: sign(v_τ) → sign of the full vote. A quantitative form is decided: per
    draw, the increment X = s·inc(h)·h(x) (s the full vote's sign) has mean μ_x > 0 and lies in a
    range of width w_x, so Hoeffding gives P(sign v_τ ≠ s) ≤ P(Σ X ≤ 0) ≤ exp(−2τμ_x²/w_x²), which is
    ≤ e^{−ℓ} at τ_x(ℓ) = ⌈ℓ·w_x²/(2μ_x²)⌉. Each trial draws a test example uniformly among those whose
    normalised drift 2μ_x/w_x is at least ``theta_min`` and runs the subject to τ_x(ℓ) for every level ℓ;
    the cell of level ℓ is "P(disagreement at τ_x(ℓ)) ≤ e^{−ℓ}" (a vote of 0 counts as a disagreement).
    The bound → 0 as ℓ (so τ) grows, for every such example.

    Hook: ``drift(p, model, X, costs) -> (s, μ, w)`` per test example; ``costs(p, rng, d)`` (None for
    unit costs). Parameters: ``levels``, ``theta_min`` besides :data:`FREQUENCY_PARAMETERS`."""

    cell_columns = ("dataset", "level")
    x = "level"
    event = "sign(v_τ) ≠ sign of the full vote at τ = τ_x(ℓ)"
    bound_name = "e^(−ℓ)"

    def drift(self, p, model, X, costs):
        raise NotImplementedError

    def costs(self, p, rng, d):
        return None

    def count(self, p, task, subjects, seed):
        model, _, _, Xte, _, _ = fitted(subjects["ensemble"], task["dataset"], p)
        rng = np.random.default_rng(seed)
        costs = self.costs(p, rng, Xte.shape[1])
        s, mu, w = self.drift(p, model, Xte, costs)
        eligible = np.flatnonzero((s != 0) & (w > 0) & (2 * mu >= p["theta_min"] * w))
        levels = np.asarray(p["levels"], dtype=np.float64)
        if eligible.size == 0:
            return Measurement([{"dataset": task["dataset"], "unavailable": f"no test example has drift ≥ "
                                 f"{p['theta_min']:g}"}])
        picks = rng.choice(eligible, size=p["trials"])
        examples, counts = np.unique(picks, return_counts=True)
        miss = np.zeros(len(levels), dtype=np.int64)
        mean_tau = np.zeros(len(levels))
        for i, n in zip(examples, counts, strict=True):
            taus = np.ceil(levels * w[i] ** 2 / (2 * mu[i] ** 2)).astype(np.int64)
            order = np.unique(taus)
            path = self.sample(model, np.repeat(Xte[i:i + 1], n, axis=0), order, costs, int_seed(seed.spawn(1)[0]))
            at = np.searchsorted(order, taus)
            miss += (s[i] * path.votes[:, at] <= 0).sum(axis=0)
            mean_tau += n * taus
        rows = [{"dataset": task["dataset"], "level": float(lv), "violations": int(miss[c]), "trials": int(p["trials"]),
                 "target": float(np.exp(-lv)), "mean_tau": float(mean_tau[c] / p["trials"]),
                 "eligible": int(eligible.size), "test_examples": len(s)} for c, lv in enumerate(levels)]
        return rows

    @staticmethod
    def sample(model, X, taus, costs, seed):
        return sampled_path(model, X, taus, who="the ensemble", costs=costs, random_state=seed)

    def notes(self, p, table):
        out = []
        for name, part in table.groupby("dataset"):
            first = part.iloc[0]
            out.append(f"{name}: {int(first['eligible'])} of {int(first['test_examples'])} test examples have drift "
                       f"2μ/w ≥ {p['theta_min']:g} and are tested (the rest need more draws than the profile allows); "
                       "mean τ per level: " + ", ".join(f"ℓ = {r['level']:g}: {r['mean_tau']:.0f}"
                                                        for _, r in part.drop_duplicates("level").iterrows()) + ".")
        return out
