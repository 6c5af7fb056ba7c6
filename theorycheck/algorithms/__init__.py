"""The learners: jitted kernels behind thin, validated scikit-learn estimators.

=======================  ===========================  =====================================
estimator                paper                        attributes read per example
=======================  ===========================  =====================================
:class:`Baseline`        cbss11 Figure 1 (Thm 6)      exactly k (uniform k-subset)
:class:`AER`             cbss11 Figure 2 (Thm 12)     at most k (k/2 uniform + k/2 ∝ |w|)
:class:`AERR`            hk12 Algorithm 1 (Thm 3.1)   at most k + 1 (k uniform + 1 ∝ w²)
:class:`AELR`            hk12 Algorithm 2 (Thm 3.4)   at most k + 1 (k uniform + 1 ∝ |w|)
:class:`OnlineGradientDescent`  full information      all d
:class:`ExponentiatedGradient`  full information      all d
=======================  ===========================  =====================================

Every estimator sets ``coef_`` (the averaged predictor w̄), ``intercept_ = 0.0``,
``n_attributes_seen_`` (counted inside the kernel) and ``n_features_in_``.
"""

from .aelr import AELR
from .aer import AER, aer_lambda
from .aerr import AERR
from .baseline import Baseline, baseline_estimates, baseline_objective
from .full_information import ExponentiatedGradient, OnlineGradientDescent, sklearn_baselines

__all__ = [
    "AELR",
    "AER",
    "AERR",
    "Baseline",
    "ExponentiatedGradient",
    "OnlineGradientDescent",
    "aer_lambda",
    "baseline_estimates",
    "baseline_objective",
    "sklearn_baselines",
]
