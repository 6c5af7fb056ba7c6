"""Kind "comparison": one learner against another, paired over seeds, and a paper's learning-curve
figure decided by its stated findings.

:class:`PairedComparison` — "A's loss is lower than B's" (at an equal attribute budget, or any
other paired loss such as the attributes each needs to reach a target). Runs are paired:
repetition r gives A and B the same sample (the same data stream), and each its own algorithm
randomness, so the per-run difference D = loss_B − loss_A cancels the sample's variation.

Each setting states the relation the paper claims of A against B (``relation``, superior by
default; a setting's dict may name its own) with its margin ε (parameter ``margin``), and is
decided by :func:`theorycheck.stats.decide_sequential` into four outcomes: REPRODUCED (PASS),
TIED or REVERSED (FAIL: findings against the paper; DIFFERENT for an equivalence), UNDECIDED
(INCONCLUSIVE). A claim that declares ``max_repetitions`` runs group-sequentially: repetitions in
groups (looks ``repetitions``, doubling, up to the cap) for the deciding settings still undecided
(:meth:`PairedComparison.extend`).

* ``statistic = "mean"`` (default): with losses in [0, upper], D lies in [−upper, upper]: the
  empirical Bernstein ∩ Anderson interval of E[D].
* ``statistic = "median"``: for losses with no useful almost-sure range (they may be +∞, e.g.
  a target never reached), the order-statistic (sign-test) interval of a median of D, exact for
  every law. D = +∞ − (+∞) counts as a tie (D = 0).

Hooks a claim provides:

* ``subjects = {"a": ..., "b": ...}`` and ``labels = ("A's name", "B's name")``;
* ``run(p, task, subjects, data_state, seeds) -> dict`` with keys ``loss_a``, ``loss_b``,
  ``attributes_a``, ``attributes_b`` (attributes each read in all), and any further columns
  for the table (and optionally ``hypotheses``, a list of :class:`~theorycheck.claims.Hypothesis`
  checked on the instance the run built); ``data_state`` is one kernel state that both contenders' samples must come
  from (draw the sample once and give it to both, e.g. through :class:`GrowingSample`),
  ``seeds`` a pair of ints for the contenders' own randomness;
* ``upper(p) -> float`` (``statistic = "mean"`` only): an almost-sure upper end of both losses;
* ``budget(p) -> int``: the attribute budget neither may exceed (the hypothesis is checked on
  every run from the counts).

Optional: ``settings(p)``, a list of task dicts (one comparison per setting, e.g. per m).
Every setting decides unless its dict has ``"decides": False``: such a setting is measured and
reported with its outcome (at the same level), but left out of the verdict and of the split of
δ (e.g. where the claim says nothing and the page only reports where an advantage disappears);
``"label"`` names a setting on the page, ``"relation"`` and ``"margin"`` its own relation.
Parameters every comparison declares: ``repetitions``, ``delta``, ``resolution``, ``margin`` (ε > 0).
:func:`attributes_to_target` measures "attributes read until a target is reached" for ``run``.

:class:`LearningCurves` — a paper's figure of learning curves (error against attributes seen,
one panel per setting, several learners), re-run with each learner's hyperparameter tuned on
pilot instances, and decided by the findings the paper states about it (:class:`Equivalent`,
:class:`Ordered`, :class:`Grows`), each a median test on paired per-repetition statistics; see
its docstring.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import sklearn

from .. import population, stats
from ..claims import Claim, Evidence, Hypothesis, Measurement, Plot
from ..observe import counted_fit
from ..protocols import coef_vector
from ..rng import kernel_state
from ..validation import Grid, Integer, Number, ParameterError, Positive, Probability, Resolution
from ..verdicts import Verdict

__all__ = ["Equivalent", "GrowingSample", "Grows", "LearningCurves", "Ordered", "PairedComparison",
           "attributes_to_target"]


def finding_record(what: str, result: stats.SequentialResult, relation: str, margin: float, decides: bool, *,
                   paper: str = "", known: str = "", statistic: str = "median", why: str = "",
                   versus: str = "paper", sentence: str = "", source: str = stats.CONVENTION,
                   derivation: str = "", estimand: str = "", beside: stats.Interval | None = None) -> dict:
    """One finding as :attr:`Evidence.findings` stores it: the paper's sentence it reads (``sentence``:
    section and line of the text in the papers folder; ``paper``: its words in brief), the relation and
    question claimed, ε with its source (``source``: "printed" or "convention"; ``derivation``: how ε
    follows from the printed numbers), the estimand and why (``estimand``; default the statistic's), the
    interval reached, the outcome and, while undecided, what would decide it; ``beside`` an interval of
    another estimand reported with it (the median beside a decided mean). ``versus`` is "paper" for a
    finding the paper states and "reference" for a replaced subject judged against the reference
    implementation; ``against`` marks an outcome against the paper (TIED, REVERSED, DIFFERENT),
    ``known`` the key of the claim's recorded non-reproduction, if any."""
    iv = result.interval
    needs = result.needs
    if not decides and result.more:  # a reported finding never asks for runs of its own
        needs = f"reported only: no more runs are drawn for it (width {iv.high - iv.low:.3g} at n = {result.look})"
    out = {"finding": what, "relation": relation, "question": result.question, "margin": float(margin),
           "epsilon_source": source, "derivation": derivation, "sentence": sentence,
           "statistic": statistic, "estimand": estimand or stats.ESTIMANDS.get(statistic, statistic),
           "estimate": float(iv.estimate), "low": float(iv.low), "high": float(iv.high),
           "outcome": result.outcome, "meaning": stats.MEANING[result.outcome], "decides": bool(decides),
           "runs": int(result.look), "cap": int(result.schedule[-1]), "needs": needs, "paper": paper,
           "known": known, "why": why, "versus": versus,
           "against": bool(decides and versus == "paper" and result.outcome in stats.AGAINST)}
    if beside is not None:
        out["beside"] = {"estimand": beside.method, "estimate": float(beside.estimate), "low": float(beside.low),
                         "high": float(beside.high)}
    return out


def replaced_names(claim: Claim, subjects: dict) -> list[str]:
    """The subjects of this run that are not the claim's reference implementations (its defaults)."""
    return sorted(n for n, s in subjects.items() if s is not type(claim).subjects.get(n))


def against_verdict(reference: bool, designed: bool = False) -> str:
    """What a deciding finding against the paper makes of the claim: NOT REPRODUCED when every
    subject it involves is the paper's reference implementation (a finding about the paper), FAIL
    when one is replaced (a finding about the subject). On an instance this project designed (a
    simulated crowd, a synthetic stand-in for data we do not have) the reference implementations'
    result is a simulation finding, never a non-reproduction of the paper: INCONCLUSIVE."""
    if reference:
        return stats.INCONCLUSIVE if designed else stats.NOT_REPRODUCED
    return stats.FAIL


class PairedComparison(Claim):
    kind = "comparison"
    labels: tuple[str, str] = ("A", "B")
    #: "mean" (empirical Bernstein on bounded losses) or "median" (sign test, any losses)
    statistic: str = "mean"
    #: the relation the paper claims of A against B (stats.RELATIONS), unless a setting names its own
    relation: str = stats.SUPERIOR
    #: the question the paper's words ask of a superiority (stats.QUESTIONS), unless a setting names its own
    question: str = stats.DIRECTION
    #: the subjects that are contenders (a replaced one is judged against its reference); None: every subject
    contender_subjects: tuple[str, ...] | None = None
    #: True when the instances are this project's design (simulated crowds, synthetic stand-ins): a result
    #: against the paper with the reference implementations is then a simulation finding (INCONCLUSIVE)
    designed: bool = False
    #: a claim that declares ``max_repetitions`` (the cap, with its own rule) runs group-sequentially
    parameters = {"repetitions": Integer(2), "delta": Probability(), "resolution": Resolution(), "margin": Positive()}

    # ------------------------------------------------------------------ hooks
    def run(self, p, task, subjects, data_state, seeds) -> dict:
        raise NotImplementedError

    def upper(self, p) -> float:
        raise NotImplementedError

    def budget(self, p) -> int:
        raise NotImplementedError

    def settings(self, p) -> list[dict]:
        return [{}]

    # ------------------------------------------------------------------ machinery
    def tasks(self, p):
        return [{**s, "setting": i, "repetition": r}
                for i, s in enumerate(self.settings(p)) for r in range(p["repetitions"])]

    def _swapped(self, subjects) -> list[str]:
        """The replaced subjects that are contenders (judged against their reference implementations)."""
        mine = replaced_names(self, subjects)
        return [n for n in mine if self.contender_subjects is None or n in self.contender_subjects]

    def measure(self, p, task, subjects, seed):
        data, a_seed, b_seed = seed.spawn(3)
        state = kernel_state(data)
        seeds = (int(a_seed.generate_state(1)[0]), int(b_seed.generate_state(1)[0]))
        out = self.run(p, task, subjects, state.copy(), seeds)
        swapped = self._swapped(subjects)
        if swapped:
            # the same run with the reference implementations in the replaced places: the same sample
            # (a copy of the same data stream) and the same seeds; each contender's loss is compared
            # with its reference's, valid whether or not the streams coincide
            reference = self.run(p, task, {**subjects, **{n: type(self).subjects[n] for n in swapped}}, state.copy(),
                                 seeds)
            reference.pop("hypotheses", None)
            out["reference_loss_a"], out["reference_loss_b"] = reference["loss_a"], reference["loss_b"]
            for k in ("a", "b"):
                with np.errstate(invalid="ignore"):
                    gap = reference[f"loss_{k}"] - out[f"loss_{k}"]
                out[f"against_reference_{k}"] = 0.0 if math.isnan(gap) else gap
        out["replaced"] = ",".join(swapped)
        extra = list(out.pop("hypotheses", []))
        budget = self.budget(p)
        over = {k: out[f"attributes_{k}"] for k in ("a", "b") if out[f"attributes_{k}"] > budget}
        diff = out["loss_b"] - out["loss_a"]
        row = {**task, **out, "difference": 0.0 if math.isnan(diff) else diff, "budget": budget}
        hyp = Hypothesis("both contenders read at most the same attribute budget", not over,
                         "; ".join(f"{self.labels['ab'.index(k)]} read {v} > {budget}" for k, v in over.items()))
        return Measurement([row], [hyp, *extra])

    def _schedule(self, p) -> tuple[int, ...]:
        first = p["repetitions"]
        return stats.looks(first, max(first, p.get("max_repetitions", first)))

    def _assess(self, p, table) -> dict[int, stats.SequentialResult]:
        """Each setting's sequential result, from its repetitions in the order they were drawn."""
        if self.statistic not in stats.STATISTICS:
            raise ParameterError(f"{self.id}: statistic must be one of {', '.join(stats.STATISTICS)}, got "
                                 f"{self.statistic!r}")
        declared = self.settings(p)
        _, level = self._levels(p, table)
        upper = float(self.upper(p)) if self.statistic == "mean" else None
        out = {}
        for s in sorted(set(table["setting"])):
            part = table[table["setting"] == s].sort_values("repetition")
            values = part["difference"].to_numpy(dtype=np.float64)
            relation = declared[s].get("relation", self.relation)
            margin = float(declared[s].get("margin", p["margin"]))
            question = declared[s].get("question", self.question)
            statistic = self.statistic
            if statistic == "sign" and (relation != stats.SUPERIOR or question != stats.DIRECTION):
                statistic = "median"  # the conditional sign test answers a direction only
            out[s] = stats.decide_sequential(values, relation, margin, level, self._schedule(p),
                                             statistic=statistic, question=question,
                                             value_range=None if upper is None else (-upper, upper))
        return out

    def _against_reference(self, p, table, level) -> dict[tuple[int, str], stats.SequentialResult]:
        """Per deciding setting and side, a replaced contender against its reference implementation:
        non-inferiority of loss_reference − loss_subject (positive when the subject is better) with the
        setting's ε, by the median (the mean for a claim that decides means)."""
        if "against_reference_a" not in table:
            return {}
        declared = self.settings(p)
        upper = None if self.statistic != "mean" else float(self.upper(p))
        out = {}
        for s in sorted(set(table["setting"])):
            if not declared[s].get("decides", True):
                continue
            part = table[table["setting"] == s].sort_values("repetition")
            margin = float(declared[s].get("margin", p["margin"]))
            for side in ("a", "b"):
                values = part[f"against_reference_{side}"].to_numpy(dtype=np.float64)
                out[(s, side)] = stats.decide_sequential(
                    values, stats.NON_INFERIOR, margin, level, self._schedule(p),
                    statistic="mean" if upper is not None else "median",
                    value_range=None if upper is None else (-upper, upper))
        return out

    def _swapped_in(self, table) -> bool:
        return "replaced" in table and bool(len(table)) and bool(str(table["replaced"].iloc[0]))

    def _levels(self, p, table) -> tuple[int, float]:
        """The number of deciding intervals and the level of each: the deciding settings, or with a
        replaced contender the two sides of each against the reference."""
        deciding = [s for s in self.settings(p) if s.get("decides", True)]
        count = len(deciding) * (2 if self._swapped_in(table) else 1)
        return count, p["delta"] / max(count, 1)

    def extend(self, p, table, tasks):
        """More repetitions of the deciding settings that are undecided, up to the next look."""
        declared, results = self.settings(p), self._assess(p, table)
        _, level = self._levels(p, table)
        pending = {s for (s, _), res in self._against_reference(p, table, level).items() if res.more}
        if not self._swapped_in(table):
            pending |= {s for s, res in results.items() if declared[s].get("decides", True) and res.more}
        more = []
        for s in sorted(pending):
            have = results[s].look if s in results else 0
            schedule = self._schedule(p)
            nxt = next((n for n in schedule if n > have), None)
            if nxt is not None:
                more += [{**declared[s], "setting": s, "repetition": r} for r in range(have, nxt)]
        return more

    def decide(self, p, table):
        declared = self.settings(p)
        swapped = self._swapped_in(table)
        deciding = [i for i, s in enumerate(declared) if s.get("decides", True)]
        count, per_delta = self._levels(p, table)
        results = self._assess(p, table)
        versus = self._against_reference(p, table, per_delta)
        median = self.statistic == "median"
        a, b = self.labels
        records, lines, verdicts, found = [], [], [], []
        for s, res in results.items():
            part = table[table["setting"] == s]
            decides = s in deciding and not swapped
            name = declared[s].get("label", f"setting {s}")
            relation = declared[s].get("relation", self.relation)
            margin = float(declared[s].get("margin", p["margin"]))
            verdict = res.verdict
            if decides and res.outcome in stats.AGAINST:
                verdict = against_verdict(True, self.designed)
            if decides:
                verdicts.append(verdict)
            role = "" if decides else (" (reported: a replaced subject, judged against the reference below)"
                                       if swapped and s in deciding else " (reported, not decided)")
            if decides and self.designed and res.outcome in stats.AGAINST:
                role = " (a simulation finding on an instance of ours, not a non-reproduction of the paper)"
            lines.append(f"- {name}{role}: {res.outcome} — {stats.MEANING[res.outcome]}. {res.reason}"
                         + (f"; needs {res.needs}" if res.needs else ""))
            agg = "median" if median or self.statistic == "sign" else "mean"
            iv = res.interval
            records.append({"setting": s, "label": name, "loss_a": float(part["loss_a"].agg(agg)),
                            "loss_b": float(part["loss_b"].agg(agg)), "difference": iv.estimate, "low": iv.low,
                            "high": iv.high, "relation": relation, "margin": margin, "runs": res.look,
                            "outcome": res.outcome,
                            "verdict": (stats.NOT_REPRODUCED if verdict == stats.NOT_REPRODUCED else res.outcome)
                            if decides else f"{res.outcome} (reported)"})
            beside = None
            if self.statistic != "median":
                values = part.sort_values("repetition")["difference"].to_numpy(dtype=np.float64)[:res.look]
                beside = stats.median_interval(values, per_delta / len(res.schedule))
                lines[-1] += (f"; the median beside it: {beside.estimate:.4g} in [{beside.low:.4g}, "
                              f"{beside.high:.4g}]")
            found.append(finding_record(name, res, relation, margin, decides, statistic=self.statistic,
                                        paper=declared[s].get("paper", ""), why=declared[s].get("why", ""),
                                        sentence=declared[s].get("sentence", ""),
                                        source=declared[s].get("source", stats.CONVENTION),
                                        derivation=declared[s].get("derivation", ""),
                                        estimand=declared[s].get("estimand", ""), beside=beside))
            found[-1]["designed"] = self.designed
            found[-1]["against"] = bool(found[-1]["against"] and not self.designed)
            found[-1]["recorded"] = bool(declared[s].get("known") in {n.key for n in self.non_reproductions})
            found[-1]["known"] = declared[s].get("known", "")
        for (s, side), res in versus.items():
            name = declared[s].get("label", f"setting {s}")
            who = self.labels["ab".index(side)]
            what = f"{name}: {who}, the replaced subject against the reference implementation"
            verdicts.append(res.verdict)
            lines.append(f"- {what}: {res.outcome} — {stats.MEANING[res.outcome]}. {res.reason} (loss of the reference "
                         "− loss of the subject, same sample and seeds; positive when the subject is better)"
                         + (f"; needs {res.needs}" if res.needs else ""))
            iv = res.interval
            records.append({"setting": s, "label": what, "difference": iv.estimate, "low": iv.low, "high": iv.high,
                            "relation": stats.NON_INFERIOR, "margin": float(declared[s].get("margin", p["margin"])),
                            "runs": res.look, "outcome": res.outcome,
                            "verdict": res.outcome})
            found.append(finding_record(what, res, stats.NON_INFERIOR, float(declared[s].get("margin", p["margin"])),
                                        True, versus="reference", statistic="mean" if self.statistic == "mean"
                                        else "median", why="a replaced subject is judged against the reference"))
        summary = pd.DataFrame(records)
        schedule = self._schedule(p)
        design = (f"{schedule[0]} paired runs per setting" if len(schedule) == 1 else
                  f"group-sequential: looks at {', '.join(map(str, schedule))} paired runs, more only for a deciding "
                  f"setting still undecided, each look at 1/{len(schedule)} of the setting's level (union bound over "
                  "the looks, valid whenever the design stops)")
        interval = {"median": "the order-statistic (sign-test) interval of the median, which needs no range",
                    "sign": "the conditional sign test (Clopper–Pearson on P(D > 0 | D ≠ 0) over the runs where the "
                            "two differ, as 2p − 1: a tie says nothing about which is better), which needs no range",
                    "mean": "the empirical Bernstein ∩ Anderson interval of the mean on the losses' range "
                            "[−upper, upper]",
                    "t": "the Student t interval of the mean (asymptotic; the claim says why its values allow it), "
                         "the median's exact interval beside it"}[self.statistic]
        rules = sorted({stats.rule_text(d.get("relation", self.relation), float(d.get("margin", p["margin"])),
                                        d.get("question", self.question)) for d in (declared[i] for i in deciding)})
        text = (f"Claim: the paired effect (loss of {b} − loss of {a}) in every setting that decides, in the relation "
                f"and question the paper's words state with margin ε. Paired runs (the same sample for both); "
                f"{design}; per interval {interval} at δ/{count} = {per_delta:.3g} (false-FAIL rate ≤ δ = "
                f"{p['delta']:g}, union bound). Rules: {'; '.join(rules)}. With the reference implementations a "
                f"deciding result against the paper (TIED, REVERSED, DIFFERENT) makes the claim "
                + ("INCONCLUSIVE: the instances are this project's design, so it is a simulation finding, not a "
                   "non-reproduction of the paper" if self.designed else str(Verdict.NOT_REPRODUCED)) + "; with a "
                "replaced contender the paper's settings are reported and each side is judged against its reference "
                "implementation on the same sample and seeds (non-inferiority with the setting's ε: FAIL when the "
                "subject is worse by more than ε).\n" + "\n".join(lines))
        observed = summary.loc[summary["setting"].isin(deciding), "difference"] if len(summary) else summary
        return Evidence(verdict=stats.combine(verdicts), observed=float(observed.min()) if len(observed) else None,
                        theory=0.0, delta=p["delta"], decision=text, summary=summary, findings=found,
                        plot=Plot(x="label", y="difference", low="low", high="high", theory="margin",
                                  kind="point", xlabel="setting", ylabel=f"loss of {b} − loss of {a}",
                                  band_label={"median": "order-statistic interval of the median",
                                              "sign": "conditional sign test's interval of 2p − 1",
                                              "mean": "empirical Bernstein interval",
                                              "t": "Student t interval of the mean"}[self.statistic]
                                  + " at the last look (decides)", theory_label="margin ε"))


class GrowingSample:
    """The first n examples of one stream of a design, drawn only as far as they are needed.

    ``rows(n)`` returns (X[:n], y[:n]); when more rows are needed than drawn so far, the sample is
    redrawn from a copy of the original kernel state with at least twice as many rows, so the
    rows already handed out stay the same (checked: the design's sampler must give the rows of a
    shorter call first, as the registry's designs do). The cost is at most twice the rows used.
    """

    def __init__(self, design, state: np.ndarray) -> None:
        self.design, self.state = design, np.array(state, copy=True)
        self.X = self.y = None

    def rows(self, n: int):
        have = 0 if self.X is None else self.X.shape[0]
        if n > have:
            X, y = self.design.sample(max(n, 2 * have), self.state.copy())
            if have and not (np.array_equal(X[:have], self.X) and np.array_equal(y[:have], self.y)):
                raise ParameterError("the design's sampler does not give the rows of a shorter call first, so a "
                                     "sample cannot be grown; draw the largest sample at once")
            self.X, self.y = X, y
        return self.X[:n], self.y[:n]


def attributes_to_target(fit, sizes, target: float) -> dict:
    """The first size m of ``sizes`` (ascending) at which ``fit(m) -> (value, attributes read)``
    has value ≤ target: a dict with ``m``, ``attributes`` (those read by that run) and ``value``;
    when no size reaches the target, ``m`` is None and ``attributes`` those of the largest run
    (the measurement is then censored: more than every size tried)."""
    value, read = math.inf, 0
    for m in sorted(sizes):
        value, read = fit(m)
        if value <= target:
            return {"m": int(m), "attributes": int(read), "value": float(value)}
    return {"m": None, "attributes": int(read), "value": float(value)}


# ---------------------------------------------------------------------- learning curves


@dataclass(frozen=True)
class Equivalent:
    """Contenders ``a`` and ``b`` coincide in panel ``panel``: a median of err_b − err_a (in the
    units of the error) lies in [−margin, margin]."""

    a: str
    b: str
    panel: str
    margin: float
    decides: bool = True
    #: the paper's sentence (section and lines), its words in brief, ε's source and derivation, and why
    #: this side, question and ε (see :class:`theorycheck.kinds.reproduction.Ordering`)
    sentence: str = ""
    paper: str = ""
    source: str = stats.CONVENTION
    derivation: str = ""
    why: str = ""

    def intervals(self) -> int:
        return 1


@dataclass(frozen=True)
class Ordered:
    """``better`` against ``worse`` in each of ``panels``, on a median of log(err_worse/err_better),
    in the relation the paper states: ``superior`` ("better", "significantly better") or
    ``non-inferior`` ("at least as good", "between"), with its margin ε in log units."""

    better: str
    worse: str
    panels: tuple[str, ...]
    relation: str = stats.SUPERIOR
    margin: float = 0.1
    decides: bool = True
    #: a superiority's question: "direction" (a bare "better") or "magnitude" ("significantly better")
    question: str = stats.DIRECTION
    #: the paper's sentence (section and lines), its words in brief, ε's source and derivation, and why
    #: this side, question and ε (see :class:`theorycheck.kinds.reproduction.Ordering`)
    sentence: str = ""
    paper: str = ""
    source: str = stats.CONVENTION
    derivation: str = ""
    why: str = ""

    def __post_init__(self):
        stats.check_relation(self.relation, self.margin, self.question)
        if self.decides and self.question == stats.MAGNITUDE and self.source != stats.PRINTED:
            raise ValueError(f"{self.better} over {self.worse}: a magnitude decides only with an ε derived from the "
                             "paper's printed numbers")

    def intervals(self) -> int:
        return len(self.panels)


@dataclass(frozen=True)
class Grows:
    """The advantage of ``better`` over ``worse``, log(err_worse/err_better) per repetition, grows
    along ``panels`` (in order): for each consecutive pair, a median of advantage(next) −
    advantage(previous), repetitions paired by index, is positive (a superiority with margin ε)."""

    better: str
    worse: str
    panels: tuple[str, ...]
    margin: float = 0.05
    decides: bool = True
    #: the paper's sentence (section and lines), its words in brief, ε's source and derivation, and why
    #: this side, question and ε (see :class:`theorycheck.kinds.reproduction.Ordering`)
    sentence: str = ""
    paper: str = ""
    source: str = stats.CONVENTION
    derivation: str = ""
    why: str = ""

    def intervals(self) -> int:
        return len(self.panels) - 1


def _log(err: np.ndarray) -> np.ndarray:
    return np.log(np.clip(np.asarray(err, dtype=np.float64), 1e-300, 1e300))


class LearningCurves(Claim):
    """A figure of learning curves, re-run and decided by the findings the paper states about it.

    Each task is one panel (e.g. one value of a design parameter). In a panel, every contender's
    hyperparameter (a step size, a penalty) is first tuned from a grid, separately for each
    attribute budget, by the mean error over ``pilots`` pilot instances: the grid lists its values
    from the most conservative to the boldest (small steps first, large penalties first), and the
    first whose mean is at most (1 + ``tie_ratio``)·best + ``tie`` wins, best being the smallest
    mean (in the manner of the one-standard-error rule of cross-validation, with stated tolerances
    instead of a standard error: a bolder value must earn its risk). Then ``repetitions``
    evaluation instances are drawn, each with its own instance seed (e.g. its own w*) and its own
    sample, and every contender runs on a prefix of that one sample (the rows its budget allows)
    with its own random stream, at every budget. Repetition r takes its instance seed, its sample
    and the contenders' streams from one stream shared by every panel (a function of the base
    seed, the claim and r only), so panels differ only by their parameters (common random
    numbers) and comparisons across panels, as :class:`Grows` makes, are paired on the same
    instance seed. Pilot instances come from the panel's own stream; their instance seeds are
    checked to differ from the evaluation ones. The error of each run is computed exactly from the
    design's moments (default: L(w̄)/L(0), the population loss over the zero predictor's; hook
    ``error``).

    The verdict rests on the claim's findings at the largest budget, each a median test on
    per-repetition statistics (:func:`theorycheck.stats.median_interval`: order statistics, exact
    for every law, no range needed, since the errors have no useful almost-sure bound), with δ
    split evenly over all the intervals the findings need (union bound):

    * :class:`Equivalent` — an equivalence with its margin on err_b − err_a;
    * :class:`Ordered` — its relation (superior or non-inferior) and margin on log(err_worse/err_better);
    * :class:`Grows` — a superiority with its margin on advantage(next panel) − advantage(previous panel);

    each read by :func:`theorycheck.stats.classify` into REPRODUCED, TIED, REVERSED, DIFFERENT or
    UNDECIDED (fixed n: one look).

    A finding built with ``decides=False`` is measured and shown at the same level, but left out
    of the verdict and of the split of δ (e.g. where the profile's budget cannot resolve it).

    Logarithms of ratios make panels of different difficulty comparable (an advantage by a
    factor); the equivalence uses differences, which stay meaningful when both errors are near 0.
    The summary (and the figure) give per panel, contender and budget the mean error ± 1 sd over
    the repetitions, as papers draw them; the verdict uses medians, as said.

    Hooks a claim provides:

    * ``contenders``: {subject name: label}, the learners (the order of the legend);
    * ``panels(p) -> list[dict]``: one dict per panel with ``"panel"`` (its label, which findings
      name) and any further columns for the tables (e.g. ``alpha``, a ratio and its published value);
    * ``instance(p, panel, subjects, seed) -> design``: the design of one instance (exact moments
      and ``sample(n, random_state)``), from an integer instance seed;
    * ``examples(p, name, budget, design) -> int``: the rows contender ``name`` may read within an
      attribute budget;
    * ``grid(p, name) -> tuple``: its candidate hyperparameters (one value: no tuning);
    * ``learner(p, name, subject, design, m, value, random_state)``: an unfitted estimator whose
      ``fit(X, y)`` sets ``coef_`` and (if it counts them) ``n_attributes_seen_``; one that does not
      count is charged every attribute of every row it was given;
    * ``findings(p) -> list``: the findings that decide.

    Optional: ``error(p, design, coefs)`` (one error per row of a stack of outputs) and
    ``notes(p) -> list[str]`` (lines printed under the decision).
    Parameters: ``repetitions``, ``pilots``, ``tie``, ``tie_ratio``, ``delta``, ``resolution`` (of
    :class:`Ordered` and :class:`Grows`, in log units), ``budgets`` (attribute budgets, the x-axis)
    and ``contenders`` (a subset of the declared ones to run).
    """

    kind = "comparison"
    contenders: dict[str, str] = {}
    #: the estimand of every finding: "t" (the mean of the paired statistic, Student t interval, where the
    #: paper plots means over repetitions) or "median" (order statistics, exact); ``estimand`` says why
    statistic: str = "median"
    estimand: str = ""
    parameters = {"repetitions": Integer(1), "pilots": Integer(1), "delta": Probability(),
                  "resolution": Resolution(zero=True), "tie": Number(0.0, None), "tie_ratio": Number(0.0, None),
                  "budgets": Grid(Integer(1), distinct=1)}

    # ------------------------------------------------------------------ hooks
    def panels(self, p) -> list[dict]:
        raise NotImplementedError

    def instance(self, p, panel, subjects, seed):
        raise NotImplementedError

    def examples(self, p, name, budget, design) -> int:
        raise NotImplementedError

    def grid(self, p, name) -> tuple:
        raise NotImplementedError

    def learner(self, p, name, subject, design, m, value, random_state):
        raise NotImplementedError

    def findings(self, p) -> list:
        raise NotImplementedError

    def error(self, p, design, coefs) -> np.ndarray:
        """L(w̄)/L(0) for each row of ``coefs``, exactly from the design's moments: +∞ for a
        non-finite output, NaN when L(0) = 0 (the zero predictor is exact, the ratio undefined)."""
        finite = np.isfinite(coefs).all(axis=1)
        out = np.full(coefs.shape[0], math.inf)
        zero = float(design.y_second_moment)
        if zero <= 0.0:
            return np.full(coefs.shape[0], math.nan)
        if finite.any():
            out[finite] = population.risk(coefs[finite], design) / zero
        return out

    def notes(self, p) -> list[str]:
        return []

    # ------------------------------------------------------------------ machinery
    def _names(self, p) -> list[str]:
        chosen = tuple(p.get("contenders", tuple(self.contenders)))
        return [n for n in self.contenders if n in chosen]

    def tasks(self, p):
        return [dict(panel) for panel in self.panels(p)]

    def _instance(self, p, task, subjects, seed, values, hyps):
        """One instance: a design, one sample, every contender at every budget and value."""
        inst, data, *own = seed.spawn(2 + len(self.contenders))
        w_seed = int(inst.generate_state(2, dtype=np.uint64)[0] >> np.uint64(1))
        design = self.instance(p, task, subjects, w_seed)
        sizes = {(n, b): int(self.examples(p, n, b, design)) for n, b in values}
        X, y = design.sample(max(sizes.values()), kernel_state(data))
        if not (np.isfinite(X).all() and np.isfinite(y).all()):
            raise ValueError("the design drew a non-finite example")
        rows, coefs = [], []
        # the sample is checked once above; scikit-learn's per-fit scan of X is skipped
        with warnings.catch_warnings(), sklearn.config_context(assume_finite=True):
            warnings.simplefilter("ignore")
            for (name, budget), candidates in values.items():
                m = sizes[(name, budget)]
                rs = int(own[list(self.contenders).index(name)].generate_state(1)[0])
                for value in candidates:
                    est, _ = counted_fit(self.learner(p, name, subjects[name], design, m, value, rs), X[:m], y[:m],
                                         who=self.contenders[name])
                    coefs.append(coef_vector(est, name))
                    read = getattr(est, "n_attributes_seen_", None)
                    read = m * X.shape[1] if read is None else int(read)
                    if read > budget:
                        hyps.append(f"{self.contenders[name]} read {read} > {budget} attributes")
                    rows.append({"algorithm": name, "budget": int(budget), "examples": m, "attributes": read,
                                 "value": value})
        for row, err in zip(rows, self.error(p, design, np.vstack(coefs)), strict=True):
            row["error"] = float(err)
        return w_seed, rows

    def measure(self, p, task, subjects, seed):
        names, budgets = self._names(p), sorted(set(p["budgets"]))
        pilot_seed = seed.spawn(1)[0]
        over: list[str] = []
        tuned, pilot_ids = {}, set()
        grids = {n: tuple(self.grid(p, n)) for n in names}
        search = {(n, b): grids[n] for n in names for b in budgets if len(grids[n]) > 1}
        pilot_rows = []
        for s in pilot_seed.spawn(p["pilots"]) if search else []:
            w_seed, rows = self._instance(p, task, subjects, s, search, over)
            pilot_ids.add(w_seed)
            pilot_rows += rows
        pilot_error = {}
        if pilot_rows:
            frame = pd.DataFrame(pilot_rows)
            frame["error"] = frame["error"].fillna(np.inf)
            for (n, b), candidates in search.items():
                part = frame[(frame["algorithm"] == n) & (frame["budget"] == b)]
                means = [float(part.loc[part["value"] == v, "error"].mean()) for v in candidates]
                best = min(means)
                pick = next(i for i, mu in enumerate(means) if mu <= best * (1.0 + p["tie_ratio"]) + p["tie"])
                tuned[(n, b)], pilot_error[(n, b)] = candidates[pick], means[pick]
        chosen = {(n, b): (tuned.get((n, b), grids[n][0]),) for n in names for b in budgets}
        out, eval_ids = [], set()
        for r in range(p["repetitions"]):
            # repetition r's stream is shared by every panel (common random numbers across panels):
            # a function of (base seed, claim, r) only, distinct from every task's and pilot's stream
            s = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key[:1], 1 << 32, r))
            w_seed, rows = self._instance(p, task, subjects, s, chosen, over)
            eval_ids.add(w_seed)
            out += [{**task, "repetition": r, "instance_seed": str(w_seed), **row,
                     "pilot_error": pilot_error.get((row["algorithm"], row["budget"]))} for row in rows]
        replaced = ",".join(replaced_names(self, subjects))
        for row in out:
            row["replaced"] = replaced
        hyps = [Hypothesis("every learner read at most its attribute budget", not over, "; ".join(over[:5])),
                Hypothesis("the pilot instances (hyperparameter tuning) differ from the evaluation instances",
                           not pilot_ids & eval_ids, f"{len(pilot_ids & eval_ids)} instance seeds shared")]
        return Measurement(out, hyps)

    def _per_run(self, table, panel, name, budget) -> np.ndarray:
        """Errors by repetition; an undefined error (NaN: L(0) = 0) reads as +∞, so that two of
        them compare as a tie."""
        part = table[(table["panel"] == panel) & (table["algorithm"] == name) & (table["budget"] == budget)]
        return part.sort_values("repetition")["error"].fillna(np.inf).to_numpy(dtype=np.float64)

    def decide(self, p, table):
        table = table.copy()
        table["error"] = pd.to_numeric(table["error"])
        undefined = sorted(set(table.loc[table["error"].isna(), "repetition"]))
        budget = max(p["budgets"])
        findings = list(self.findings(p))
        count = sum(f.intervals() for f in findings if f.decides)
        level = p["delta"] / max(count, 1)
        label = {n: self.contenders[n] for n in self.contenders}
        lines, verdicts, records, results = [], [], [], []

        reference = not ("replaced" in table and len(table) and str(table["replaced"].fillna("").iloc[0]))

        def show(f, what, values, relation, margin):
            role = "" if f.decides else " (reported, not decided)"
            question = getattr(f, "question", stats.DIRECTION)
            res = stats.decide_sequential(values, relation, margin, level, (len(values),), question=question,
                                          statistic=self.statistic)
            beside = stats.median_interval(values, level) if self.statistic != "median" else None
            verdict = res.verdict
            if f.decides and res.outcome in stats.AGAINST:
                verdict = against_verdict(reference)
            if f.decides:
                verdicts.append(verdict)
            lines.append(f"- {what}{role}: {res.outcome} — {stats.MEANING[res.outcome]}. {res.reason}"
                         + (f"; the median beside it: {beside.estimate:.4g} in [{beside.low:.4g}, {beside.high:.4g}]"
                            if beside is not None else "") + (f"; needs {res.needs}" if res.needs else ""))
            records.append({"finding": what + role, "estimate": res.interval.estimate, "low": res.interval.low,
                            "high": res.interval.high, "verdict": res.outcome,
                            "median": beside.estimate if beside is not None else res.interval.estimate})
            results.append(finding_record(what, res, relation, margin, f.decides, statistic=self.statistic,
                                          sentence=f.sentence, paper=f.paper, source=f.source,
                                          derivation=f.derivation, why=f.why, beside=beside,
                                          estimand=f"{stats.ESTIMANDS[self.statistic]} — {self.estimand}"
                                          if self.estimand else ""))
            results[-1]["against"] = bool(results[-1]["against"] and reference)
            results[-1]["recorded"] = False

        of = "median of" if self.statistic == "median" else "mean of"
        for f in findings:
            if isinstance(f, Equivalent):
                with np.errstate(invalid="ignore"):  # ∞ − ∞ (both learners diverged) is a tie
                    diff = self._per_run(table, f.panel, f.b, budget) - self._per_run(table, f.panel, f.a, budget)
                diff = np.where(np.isnan(diff), 0.0, diff)
                show(f, f"{f.panel}: {label[f.a]} and {label[f.b]} coincide ({of} err({label[f.b]}) − "
                        f"err({label[f.a]}))", diff, stats.EQUIVALENT, f.margin)
            elif isinstance(f, Ordered):
                for panel in f.panels:
                    adv = _log(self._per_run(table, panel, f.worse, budget)) - _log(
                        self._per_run(table, panel, f.better, budget))
                    adv = np.where(np.isnan(adv), 0.0, adv)
                    word = "beats" if f.relation == stats.SUPERIOR else "is at least as good as"
                    show(f, f"{panel}: {label[f.better]} {word} {label[f.worse]} ({of} "
                            f"log(err({label[f.worse]})/err({label[f.better]})))", adv, f.relation, f.margin)
            elif isinstance(f, Grows):
                adv = {panel: _log(self._per_run(table, panel, f.worse, budget))
                       - _log(self._per_run(table, panel, f.better, budget)) for panel in f.panels}
                for prev, nxt in zip(f.panels[:-1], f.panels[1:], strict=True):
                    n = min(len(adv[prev]), len(adv[nxt]))
                    growth = np.nan_to_num(adv[nxt][:n] - adv[prev][:n], nan=0.0)
                    show(f, f"{label[f.better]}'s advantage over {label[f.worse]} grows from {prev} to {nxt} "
                            f"({of} the paired difference of log(err({label[f.worse]})/err({label[f.better]})))",
                         growth, stats.SUPERIOR, f.margin)
            else:
                raise TypeError(f"{self.id}: unknown finding {f!r}")

        extra = [c for c in self.panels(p)[0] if c != "panel"]
        rows = []
        order = {panel["panel"]: i for i, panel in enumerate(self.panels(p))}
        for (panel, name, b), part in table.groupby(["panel", "algorithm", "budget"], sort=False):
            every = part["error"].to_numpy(dtype=np.float64)
            err = every[np.isfinite(every)]
            mean = float(np.mean(err)) if len(err) else math.nan
            sd = float(np.std(err, ddof=1)) if len(err) > 1 else 0.0
            rows.append({"panel": panel, **{c: part[c].iloc[0] for c in extra if c in part}, "algorithm": label[name],
                         "series": f"{panel} · {label[name]}", "budget": int(b),
                         "attributes_read": float(part["attributes"].mean()), "examples": int(part["examples"].iloc[0]),
                         "tuned": float(part["value"].iloc[0]) if part["value"].notna().all() else None,
                         "pilot_mean": (float(part["pilot_error"].iloc[0]) if "pilot_error" in part
                                        and part["pilot_error"].notna().all() else None),
                         "mean": mean, "sd": sd, "low": mean - sd, "high": mean + sd,
                         "median": float(np.median(np.where(np.isnan(every), np.inf, every))), "runs": len(every),
                         "not_finite": int(len(every) - len(err)), "_order": order.get(panel, 0),
                         "_who": list(self.contenders).index(name)})
        summary = pd.DataFrame(rows).sort_values(["_order", "_who", "budget"]).drop(columns=["_order", "_who"])
        text = (f"The figure re-run: {len(order)} panels, {p['repetitions']} evaluation repetitions each (each its own "
                f"instance and sample), hyperparameters tuned per panel, learner and budget by the mean exact error "
                f"over {p['pilots']} pilot instances. The verdict rests on the findings below at the largest budget "
                f"({budget} attributes), each decided on {stats.ESTIMANDS[self.statistic]} of paired "
                f"per-repetition statistics at δ/{count} = {level:.3g} (union bound over the {count} "
                f"intervals: false-FAIL rate ≤ δ = {p['delta']:g}"
                + (", exact for every law" if self.statistic == "median" else
                   f", the median's exact interval beside it; {self.estimand}") + "), each in the relation the "
                "paper states with its margin ε (stats.classify): a direction is REPRODUCED (PASS) when the "
                "interval lies above 0, REVERSED below 0 and NEGLIGIBLE inside (−ε, ε) (neither for nor against); a "
                "magnitude REPRODUCED above ε/2, TIED below ε, REVERSED below 0; a non-inferiority REPRODUCED when "
                "its lower end is ≥ −ε; an equivalence REPRODUCED when the interval lies inside [−ε, ε] and "
                "DIFFERENT when wholly outside; UNDECIDED (INCONCLUSIVE) otherwise. TIED, REVERSED and DIFFERENT "
                "count against the paper: NOT REPRODUCED with the reference implementations, FAIL with a replaced "
                "subject (a replaced subject is not yet run beside its reference in this kind).\n"
                + "\n".join(lines))
        found = "; ".join(f"{r['finding']} → {r['estimate']:.4g} in [{r['low']:.4g}, {r['high']:.4g}], "
                          f"{r['verdict']}" for r in records)
        notes = [*self.notes(p), f"Findings: {found}"]
        if undefined:
            notes.append(f"Repetitions {undefined} drew an instance with L(0) = 0 in some panel: the error ratio is "
                         "undefined there and counts as a tie in the findings.")
        notes.append("The mean ± sd of the figure are over the finite errors; the column not_finite counts the "
                     "others (a diverged learner, or an undefined ratio), which the medians of the findings keep.")
        return Evidence(verdict=stats.combine(verdicts), observed=None, theory=None, delta=p["delta"],
                        decision=text, summary=summary, notes=notes, findings=results,
                        plot=Plot(x="budget", y="mean", low="low", high="high", hue="series", logx=True, kind="line",
                                  xlabel="attributes seen (budget)", ylabel="error L(w̄)/L(0)",
                                  band_label="mean ± 1 sd over the repetitions (as the paper draws it; the verdict "
                                             "uses the medians of the findings)"))
