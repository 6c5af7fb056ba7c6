"""Planted defects for the exact ks15 claims (ks15.lemma3.2, lemma4.2, lemma4.3, rho), named by the
claims' ``defects`` declarations as ``tests.defects_ks15_proofs:NAME`` and run by tests/test_power.py."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from theorycheck import estimators as est
from theorycheck.bounds import ks15 as bounds
from theorycheck.generators.decaying import decaying_design


def _rescaled(law, factors):
    return [(p, tuple(g * f for g, f in zip(v, factors, strict=True))) for p, v in law]


def _with_phi(w, x, y, k, q, phi_of, power):
    """g̃ = φ̃·x̃ with the paper's x̃ (the law at w = 0, y = −1, where φ̃ = 1) and j ∝ |w_j|**power,
    but φ̃ = phi_of(j) − y."""
    zero = [Fraction(0)] * len(x)
    weights = [abs(Fraction(a)) ** power for a in w]
    total = sum(weights)
    phis = [(a / total, phi_of(j) - Fraction(y)) for j, a in enumerate(weights) if a] or [(Fraction(1), -Fraction(y))]
    return [(p * pp, tuple(phi * v for v in xt))
            for p, xt in est.gaerr_gradient_estimate_distribution(zero, x, -1, k, q) for pp, phi in phis]


# ---------------------------------------------------------------------- Lemmas 3.2 and 4.2
def gaerr_law_mismatched_weights(w, x, y, k, q=None):
    """Draws i ~ q but weights x[i] by d (the uniform q' = 1/d) instead of 1/q_i: biased unless q is uniform."""
    d = len(x)
    q = q or [Fraction(1, d)] * d
    return _rescaled(est.gaerr_gradient_estimate_distribution(w, x, y, k, q), [Fraction(v) * d for v in q])


def gaelr_law_mismatched_weights(w, x, y, k, q=None):
    d = len(x)
    q = q or [Fraction(1, d)] * d
    return _rescaled(est.gaelr_gradient_estimate_distribution(w, x, y, k, q), [Fraction(v) * d for v in q])


def gaerr_law_unnormalised_inner(w, x, y, k, q=None):
    """j drawn ∝ w_j² but weighted w_j/p_j with p_j = w_j² (not divided by ‖w‖₂²): φ̃ = x_j/w_j − y."""
    return _with_phi(w, x, y, k, q, lambda j: Fraction(x[j]) / Fraction(w[j]), 2)


def gaelr_law_unnormalised_inner(w, x, y, k, q=None):
    """j drawn ∝ |w_j| but weighted with p_j = |w_j| (not divided by ‖w‖₁): φ̃ = sign(w_j)·x_j − y."""
    return _with_phi(w, x, y, k, q, lambda j: (1 if w[j] > 0 else -1) * Fraction(x[j]), 1)


def gaerr_law_improved_inner(w, x, y, k, q=None):
    """The "improved inner product" p_j ∝ |w_j|·c_j with c = (1, 2, 3, ...): unbiased, but its
    E[φ̃²] is not Algorithm 1's (nor bounded by 4B²), so it is not the estimator of Lemma 3.2."""
    return est.gaerr_gradient_estimate_distribution(w, x, y, k, q, inner_weights=range(1, len(x) + 1))


def gaelr_law_one_draw(w, x, y, k, q=None):
    """Unbiased, but uses one of its k draws: ‖E g̃²‖∞ can exceed 4B²(‖E x̃_r²‖∞/k + 1)."""
    return est.gaelr_gradient_estimate_distribution(w, x, y, 1, q)


# ---------------------------------------------------------------------- eq. (2), Lemma 4.3
ridge_q_proportional_to_s = bounds.lasso_q_exact  # q ∝ s used where q ∝ √s is optimal


def lasso_q_square_root(s):
    """q ∝ √s (the Ridge choice, roots rounded to binary) used for the Lasso objective max_i s_i/q_i."""
    roots = [Fraction(math.sqrt(v)) for v in s]
    return tuple(r / sum(roots) for r in roots)


def lasso_q_unnormalised(s):
    """q = s, not divided by Σs: not a probability vector."""
    return tuple(Fraction(v) for v in s)


# ---------------------------------------------------------------------- ρ (§5)
def rho_ridge_unsquared(s, expected_sq_norm=None):
    """Σ√s_i in place of ‖s‖_{1/2} = (Σ√s_i)² (the square forgotten)."""
    s = np.asarray(s, dtype=float)
    return float(np.sqrt(s).sum() / (len(s) * (s.sum() if expected_sq_norm is None else expected_sq_norm)))


def rho_ridge_uniform_q(s, expected_sq_norm=None):
    """Σ_i s_i/q_i at q uniform (d·‖s‖₁, AERR's moment term) in place of its minimum over q, ‖s‖_{1/2}
    (q ∝ √s, eq. (2)): the ratio of the uniform learner to itself, 1 at the default E‖x‖² whatever s."""
    s = np.asarray(s, dtype=float)
    q = np.full(len(s), 1.0 / len(s))
    return float((s / q).sum() / (len(s) * (s.sum() if expected_sq_norm is None else expected_sq_norm)))


def rho_lasso_two_norm(s):
    """‖s‖₁/(d·‖s‖₂) in place of ‖s‖₁/(d·‖s‖∞)."""
    s = np.asarray(s, dtype=float)
    return float(s.sum() / (len(s) * np.sqrt((s * s).sum())))


def design_standard_deviation(d, alpha, setting):
    """The §5.1 design at α/2: second moments i^(α/2) (a standard deviation for the second moment)."""
    return decaying_design(d, alpha / 2, setting=setting)


# ---------------------------------------------------------------------- ks15.improved-inner
def improved_p_abs_w(w, s):
    """GAELR's p_j ∝ |w_j|: the second moments ignored."""
    total = sum(abs(Fraction(a)) for a in w)
    return tuple(abs(Fraction(a)) / total for a in w) if total else tuple(Fraction(1, len(w)) for _ in w)


def improved_p_no_root(w, s):
    """p_j ∝ |w_j|·E[x_j²] (the square root dropped)."""
    raw = [abs(Fraction(a)) * Fraction(v) for a, v in zip(w, s, strict=True)]
    total = sum(raw)
    return tuple(v / total for v in raw) if total else tuple(Fraction(1, len(w)) for _ in w)


def gaerr_law_inner_unnormalised(w, x, y, k, q=None, inner_weights=None):
    """j drawn ∝ |w_j|·c_j but weighted w_j/(|w_j|·c_j), the probability left unnormalised (÷ Σ|w_l|c_l missing)."""
    if inner_weights is None:
        return gaerr_law_unnormalised_inner(w, x, y, k, q)
    zero = [Fraction(0)] * len(x)
    weights = [abs(Fraction(a)) * Fraction(c) for a, c in zip(w, inner_weights, strict=True)]
    total = sum(weights)
    phis = [(a / total, Fraction(w[j]) / a * Fraction(x[j]) - Fraction(y)) for j, a in enumerate(weights) if a] \
        or [(Fraction(1), -Fraction(y))]
    return [(p * pp, tuple(phi * v for v in xt))
            for p, xt in est.gaerr_gradient_estimate_distribution(zero, x, -1, k, q) for pp, phi in phis]
