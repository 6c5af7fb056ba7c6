"""The learners: jitted kernels behind thin, validated scikit-learn estimators.

=======================  ===========================  =====================================
estimator                paper                        attributes read per example
=======================  ===========================  =====================================
:class:`Baseline`        cbss11 Figure 1 (Thm 6)      exactly k (uniform k-subset)
:class:`AER`             cbss11 Figure 2 (Thm 12)     at most k (k/2 uniform + k/2 ∝ |w|)
:class:`AERR`            hk12 Algorithm 1 (Thm 3.1)   at most k + 1 (k uniform + 1 ∝ w²)
:class:`AELR`            hk12 Algorithm 2 (Thm 3.4)   at most k + 1 (k uniform + 1 ∝ |w|)
:class:`AESVR`           hk12 Algorithm 4 (Thm 4.4)   k + GenEst's (random; ≤ k + 6 in expectation)
:class:`GAERR`           ks15 Algorithm 1 (Thm 3.1)   at most k + 1 (k from any q + 1)
:class:`DDAERR`          ks15 §3.1 (Thm 3.3)          at most k + 1 (k ∝ √E[x²] + 1)
:class:`TwoPhaseDDAERR`  ks15 Algorithm 2 (Thm 3.4)   phase 1: k + 1 uniform; phase 2: GAERR
:class:`GAELR`           ks15 Algorithm 3 (Thm 4.1)   at most k + 1 (k from any q + 1 ∝ |w|)
:class:`DDAELR`          ks15 §4.1 (Thm 4.4)          at most k + 1 (k ∝ E[x²] + 1)
:class:`TwoPhaseDDAELR`  ks15 Algorithm 4 (Thm 4.5)   phase 1: k + 1 uniform; phase 2: GAELR
:class:`OnlineGradientDescent`  full information      all d
:class:`ExponentiatedGradient`  full information      all d
:class:`SuccessiveElimination`  cbss11 Thm 1 (bandit)  a few coordinates per example
:class:`SequentialSearch`  cbss11 Thm 1 (told P_j's form)  k per example (Wald's test per coordinate)
:class:`AdaBoostRS`      reyzin11 Algorithm 2         at test time: < B features (∝ α samples)
:class:`AdaBoostRSAC`    reyzin11 Algorithm 3         at test time: cost < B (∝ α/c samples)
:class:`AdaBoostDeterministic`  reyzin11 §6           at test time: cost ≤ B (top α/c stumps)
=======================  ===========================  =====================================

Every regressor sets ``coef_`` (the averaged predictor w̄), ``intercept_ = 0.0``,
``n_attributes_seen_`` (counted inside the kernel) and ``n_features_in_``. The reyzin11
classifiers (:class:`AdaBoostStumps` and the budgeted predictors built on it) read every feature
in training and record, per test example, the samples taken and the features examined
(:mod:`theorycheck.algorithms.boosting`).
"""

from ..memory import keep_freed_memory
from .aelr import AELR
from .aer import AER, aer_lambda
from .aerr import AERR
from .aesvr import AESVR
from .bandit import SequentialSearch, SuccessiveElimination
from .baseline import Baseline, baseline_estimates, baseline_objective
from .boosting import AdaBoostDeterministic, AdaBoostRS, AdaBoostRSAC, AdaBoostStumps, SamplePath
from .full_information import ExponentiatedGradient, OnlineGradientDescent, sklearn_baselines
from .ks15 import DDAELR, DDAERR, GAELR, GAERR, TwoPhaseDDAELR, TwoPhaseDDAERR, phase_one_moments

__all__ = [
    "AELR",
    "AER",
    "AERR",
    "AESVR",
    "DDAELR",
    "DDAERR",
    "GAELR",
    "GAERR",
    "AdaBoostDeterministic",
    "AdaBoostRS",
    "AdaBoostRSAC",
    "AdaBoostStumps",
    "Baseline",
    "ExponentiatedGradient",
    "OnlineGradientDescent",
    "SamplePath",
    "SequentialSearch",
    "SuccessiveElimination",
    "TwoPhaseDDAELR",
    "TwoPhaseDDAERR",
    "aer_lambda",
    "baseline_estimates",
    "baseline_objective",
    "phase_one_moments",
    "sklearn_baselines",
]

# sk13: feature multi-selection (Sabato & Kalai 2013)
from .sk13 import (
    AveragesSelector,
    CopiesSelector,
    CrowdAverageSelector,
    FullSelector,
    ScoringSelector,
    external_covariance,
    full_objective,
    greedy_repeats,
    make_psd,
    r_loss,
    scoring_objective,
    var_est,
)

keep_freed_memory()  # a fit at large d reuses the pages of the last one (theorycheck.memory)

__all__ += ["AveragesSelector", "CopiesSelector", "CrowdAverageSelector", "FullSelector", "ScoringSelector",
            "external_covariance", "full_objective", "greedy_repeats", "make_psd", "r_loss", "scoring_objective",
            "var_est"]
