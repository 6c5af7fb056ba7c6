"""Planted defects for the exact claims (cbss11.lemma7, lemma11; hk12.lemma3.3, 3.8, A.2), named by
the claims' ``defects`` declarations as ``tests.defects_exact:NAME`` and run by tests/test_power.py."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorycheck import estimators as est

from . import naive
from .defects_regret import LiteralAELR, LiteralAERR

# ---------------------------------------------------------------------- cbss11 Lemma 7


def subset_average_k_plus_1(values):
    """Divides the sum by k + 1."""
    return sum(values, Fraction(0)) / (len(values) + 1)


def subset_average_distinct(values):
    """Averages the distinct values only: right unless f repeats a value on the subset."""
    distinct = set(values)
    return sum(distinct, Fraction(0)) / len(distinct)


# ---------------------------------------------------------------------- cbss11 Lemma 11


def aer_law_without_d(w, x, y, k):
    """v_j = (2/k)·x_j: the factor d is missing."""
    return naive.aer_law(w, x, y, k, v_weight=lambda d, k: Fraction(2, k))


def aer_law_without_replacement(w, x, y, k):
    """ŷ's indices drawn without replacement (the prose before eq. (7))."""
    return naive.aer_law(w, x, y, k, y_replacement=False)


def aer_law_c_with_replacement(w, x, y, k):
    """C drawn as k/2 independent uniform indices: unbiased, so not a violation of Lemma 11."""
    return naive.aer_law(w, x, y, k, c_replacement=True)


aer_sampler_without_replacement = naive.aer_sampler(y_replacement=False)


def aer_sampler_weight_d(w, x, y, k, *, random_state):
    """v_j = d·x_j instead of (2/k)·d·x_j: draws outside the range eqs. (6)–(8) allow, and biased."""
    g, n = est.aer_gradient_estimate(w, x, y, k, random_state=random_state)
    return g * (k / 2), n


# ---------------------------------------------------------------------- hk12 Lemmas 3.3 and 3.8


def aerr_law_without_d(w, x, y, k):
    """x̃ = (1/k)·Σ_r x[i_r] e_{i_r}: the factor d is missing."""
    return naive.hk12_law(w, x, y, k, power=2, weight=lambda d, k: Fraction(1, k))


def aerr_law_abs_sampling(w, x, y, k):
    """j drawn ∝ |w_j| but weighted ‖w‖₂²/w_j as if drawn ∝ w_j²."""
    return naive.hk12_law(w, x, y, k, power=2, sample_power=1)


def aerr_law_one_draw(w, x, y, k):
    """Unbiased, but uses one of its k draws: E‖g̃‖² = E[φ̃²]·d‖x‖², above 8B²d/k on the boundary family for k ≥ 3."""
    return est.aerr_gradient_estimate_distribution(w, x, y, 1)


def aerr_law_x_without_replacement(w, x, y, k):
    """x̃ from k distinct indices: unbiased, E‖x̃‖² = (d/k)‖x‖², within the bound; not Algorithm 1."""
    return naive.hk12_law(w, x, y, k, power=2, x_replacement=False)


def aerr_sampler_weight_d(w, x, y, k, *, random_state):
    """x̃ weighted d instead of d/k (k times the estimate): biased for k ≥ 2, and out of range."""
    g, n = est.aerr_gradient_estimate(w, x, y, k, random_state=random_state)
    return g * k, n


def aelr_sampler_weight_d(w, x, y, k, *, random_state):
    g, n = est.aelr_gradient_estimate(w, x, y, k, random_state=random_state)
    return g * k, n


def aelr_law_no_sign(w, x, y, k):
    """φ̃ = ‖w‖₁·x_j − y: sign(w_j) dropped."""
    return naive.hk12_law(w, x, y, k, power=1, signed=False)


def aelr_law_squared_sampling(w, x, y, k):
    """j drawn ∝ w_j² but weighted ‖w‖₁·sign(w_j) as if drawn ∝ |w_j|."""
    return naive.hk12_law(w, x, y, k, power=1, sample_power=2)


def aelr_law_clipped(w, x, y, k):
    """The clipped ḡ of Algorithm 2, line 13 (η = 1), given as g̃: biased."""
    return est.clip_distribution(est.aelr_gradient_estimate_distribution(w, x, y, k), 1)


def aelr_law_one_draw(w, x, y, k):
    return est.aelr_gradient_estimate_distribution(w, x, y, 1)


# ---------------------------------------------------------------------- hk12 Lemma A.2


def clip_at_half(distribution, eta):
    """Clips at C/2 instead of C (C = 1/η)."""
    return est.clip_distribution(distribution, 2 * Fraction(eta))


def clip_above_only(distribution, eta):
    """min(g, C) without the lower clip at −C."""
    c = 1 / Fraction(eta)
    return [(p, tuple(min(v, c) for v in g)) for p, g in distribution]


def bias_bound_quarter(variance, C):
    """Var/(4C): below the sharp constant 1/2."""
    return Fraction(1, 4) * variance / C


def bias_bound_one(variance, C):
    """Var/C: a smaller constant than the paper's 2, still true."""
    return variance / C


# ---------------------------------------------------------------------- learners (hk12 Lemmas 3.3, 3.8)
class AERRWithoutWeight(LiteralAERR):
    """Algorithm 1 whose x̃ is Σ_r x[i_r]·e_{i_r}, without the importance weight d/k: it computes
    g̃ = (k/d)·φ̃·x̃_paper, steps η·g̃ with it and records it, so E g̃ = (k/d)(⟨w,x⟩ − y)x (biased,
    and stable: the steps only get smaller)."""

    def fit(self, X, y):
        d = np.shape(X)[1]
        self.step = self.k / d  # the literal kernel steps step·η·(φ̃ x̃_paper) = η·g̃
        super().fit(X, y)
        path = getattr(self, "trajectory_", None)
        if path is not None:
            path["g"] = path["g"] * (self.k / d)
            path["g_tilde"] = path["g"]
        return self


class AELRWithoutWeight(LiteralAELR):
    """Algorithm 2 whose x̃ lacks the importance weight d/k (E g̃ = (k/d)(⟨w,x⟩ − y)x), used and
    recorded as its g̃ (clipping then cuts less: a stable, slower learner)."""

    def _weight(self, d):
        return float(self.k)
