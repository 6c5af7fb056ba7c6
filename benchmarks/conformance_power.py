"""The power table of ``theorycheck conform``: each algorithm, the correct learner and the planted defects
of ``tests/conformance_learners.py`` (and, for ks15, of ``tests/defects_ks15.py``), caught or not, plain
and with recording:

    python benchmarks/conformance_power.py [--seed S] [--profile quick] > table.md

"Plain" is the learner without its path: a class that records one (``record_trajectory``) is wrapped
so that its constructor refuses that keyword, as a user's plain learner would; "recording" is the
class as written. Learners with nothing to record (the reyzin11, sk13 and GenEst subjects, judged from
the outside) have one column. Each cell is the verdict of ``conform(..., claims=False)`` and the checks
that FAILed (the claims check, which needs the path and runs the learner thousands of times, is left
out of the table).
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import conformance_learners as mine
from tests import defects_ks15
from theorycheck import algorithms, genest
from theorycheck.algorithms import sk13
from theorycheck.conformance import conform

#: (algorithm, learner, planted); a learner named "built-in" is the library's own
ROWS = [
    ("AERR", mine.MyAERR, None), ("AERR", mine.NoFactorD, "x̃ without the factor d"),
    ("AERR", mine.AbsDraw, "j ∝ |w_j| with AERR's weight"), ("AERR", mine.AELRInnerProduct, "AELR's inner product"),
    ("AERR", mine.ReadsEverything, "⟨w, x⟩ from all of x, k + 1 reported"),
    ("AERR", mine.MyAERRIgnoresEta, "steps with √(k/(dm)) whatever η"),
    ("AERR", mine.PlainAERR, None), ("AERR", mine.PlainAERRReadsEverything, "⟨w, x⟩ from all of x (plain)"),
    ("AERR", mine.PlainAERRDefaultEta, "default η √(k/(dm)) (plain)"), ("AERR", mine.RecordedAERR, None),
    ("AER", mine.MyAER, None), ("AER", mine.AERTwiceTheBall, "projection on radius 2B"),
    ("AER", mine.AERReadsEverything, "ŷ from all of x, k reported"),
    ("AER", mine.AERReadsOneMore, "one read beyond k, reported"),
    ("Baseline", mine.MyBaseline, None), ("Baseline", mine.BaselineDiagonalDminus1, "diagonal weight (d − 1)/k"),
    ("GAERR", defects_ks15.UniformDrawsGAERR, "uniform draws, 1/q weights"),
    ("GAERR", defects_ks15.MismatchedWeightsGAERR, "weights of another q"),
    ("DDAERR", defects_ks15.LassoQDDAERR, "q ∝ E[x²] (the Lasso rule) for Ridge"),
    ("Scoring", sk13.ScoringSelector, None), ("Scoring", mine.MyScoring, None),
    ("Scoring", mine.ScoringTopFeatures, "not greedy: top features in turn"),
    ("Scoring", mine.ScoringPopulationVariance, "VarEst with 1/k"),
    ("Full", sk13.FullSelector, None), ("Full", mine.MyFull, None),
    ("Full", mine.FullDiagonal, "Scoring's objective (covariances ignored)"),
    ("Full", mine.FullRepeatsIgnored, "Diag(v̂/k) for Diag(v̂/r)"),
    ("AdaBoostRS", algorithms.AdaBoostRS, None), ("AdaBoostRS", mine.MyAdaBoostRS, None),
    ("AdaBoostRS", mine.RSIgnoresAlpha, "draws uniformly, α ignored"),
    ("AdaBoostRS", mine.RSAlphaWithoutHalf, "α = ln((1 − ε)/ε)"),
    ("AdaBoostRS", mine.RSSpendsTheBudget, "draws while k < B"),
    ("AdaBoostRS_AC", algorithms.AdaBoostRSAC, None), ("AdaBoostRS_AC", mine.MyAdaBoostRSAC, None),
    ("AdaBoostRS_AC", mine.ACIgnoresCosts, "draws ∝ α, costs ignored"),
    ("AdaBoostRS_AC", mine.ACUnitVotes, "votes ±1, not ±c(h)"),
    ("GenEst", genest.genest, None), ("GenEst", mine.my_genest, None),
    ("GenEst", mine.genest_uniform_queries, "uniform queries (another law)"),
    ("GenEst", mine.genest_one_draw_per_factor, "no second branch (queries n, not n·N)"),
    ("GenEst", mine.genest_reads_everything, "⟨w, x⟩ from all of x, queries reported"),
    ("AESVR", algorithms.AESVR, None), ("AESVR", mine.MyAESVR, None),
    ("AESVR", mine.AESVRUnscaled, "no scaling by 1/ε"), ("AESVR", mine.AESVRLastIterate, "last iterate"),
]


def plain(cls):
    """``cls`` without its path: the constructor refuses ``record_trajectory``, as a plain learner's would."""

    class Plain(cls):
        def __init__(self, *args, **kwargs):
            if kwargs.pop("record_trajectory", False):
                raise TypeError("this plain learner records no path")
            super().__init__(*args, **kwargs)

    Plain.__name__ = Plain.__qualname__ = f"Plain{cls.__name__}"
    Plain.__module__ = cls.__module__
    Plain.__init__.__signature__ = inspect.signature(cls.__init__).replace(parameters=[
        p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "record_trajectory"])
    return Plain


def records(learner) -> bool:
    return inspect.isclass(learner) and "record_trajectory" in inspect.signature(learner.__init__).parameters


def cell(algorithm, learner, seed, profile):
    start = time.perf_counter()
    result = conform(algorithm, learner, claims=False, seed=seed, profile=profile)
    failed = [c.name for c in result.checks if c.ran and c.verdict == "FAIL"]
    not_run = [c.name for c in result.checks if not c.ran]
    text = result.verdict + (f" ({', '.join(failed)})" if failed else "")
    text += f"; not run: {', '.join(not_run)}" if not_run else ""
    return text, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--only", default="", help="comma-separated algorithms (default: all)")
    args = parser.parse_args()
    only = {a for a in args.only.split(",") if a}
    print("| algorithm | learner | planted defect | plain | with recording | seconds |")
    print("|---|---|---|---|---|---|")
    for algorithm, learner, planted in ROWS:
        if only and algorithm not in only:
            continue
        name = getattr(learner, "__qualname__", str(learner))
        if learner.__module__.startswith("theorycheck"):
            name = f"built-in {name}"
        if records(learner):
            first, t1 = cell(algorithm, plain(learner), args.seed, args.profile)
            second, t2 = cell(algorithm, learner, args.seed, args.profile)
        else:
            first, t1 = cell(algorithm, learner, args.seed, args.profile)
            second, t2 = "n/a (nothing to record)", 0.0
        planted = (planted or "— (correct)").replace("|", "\\|")
        print(f"| {algorithm} | `{name}` | {planted} | {first} | {second} | {t1 + t2:.0f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
