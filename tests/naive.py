"""Slow, obviously-correct references (in the style of stumpy's tests/naive.py).

Each function writes a paper's construction the plainest way: every ordered sequence of draws
is enumerated with itertools.product or permutations, a route independent of the library's
multisets. The defaults are the papers' estimators; the keyword knobs plant one defect each,
for the tests and for tests/defects_exact.py.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np

from theorycheck.rng import as_kernel_state, next_weighted_index, sample_without_replacement


def _sgn(v) -> int:
    return (v > 0) - (v < 0)


def _ordered(d: int, n: int, replacement: bool):
    """Every ordered sequence of n indices of range(d), with or without replacement."""
    return itertools.product(range(d), repeat=n) if replacement else itertools.permutations(range(d), n)


def aer_law(w, x, y, k, *, sample_power=1, v_weight=None, signed=True, y_replacement=True, c_replacement=False):
    """cbss11 eqs. (6)–(8): the law of 2(ŷ − y)v over every (k/2)-subset C (or, with
    ``c_replacement``, every ordered sequence of k/2 uniform draws) and every ordered sequence of
    the k/2 draws of ŷ, P(i) ∝ |w_i|**sample_power. v_j = v_weight(d, k)·x_j on C (default
    (2/k)·d); ŷ = (2/k)·‖w‖₁·Σ sgn(w_i)·x_i (``signed=False`` drops the sign). With
    ``y_replacement=False`` the draws of ŷ are made without replacement (each ∝ the weight of the
    indices left; once the support is used up, the rest add nothing)."""
    w, x, y = [F(a) for a in w], [F(a) for a in x], F(y)
    d, half = len(x), k // 2
    l1 = sum(abs(a) for a in w)
    weights = [abs(a) ** sample_power for a in w]
    weight = v_weight(d, k) if v_weight else F(2, k) * d
    if c_replacement:
        subsets = [(F(1, d**half), seq) for seq in itertools.product(range(d), repeat=half)]
    else:
        combos = list(itertools.combinations(range(d), half))
        subsets = [(F(1, len(combos)), c) for c in combos]
    if not l1:
        draws = [(F(1), ())]
    else:
        support = [i for i in range(d) if weights[i]]
        n = half if y_replacement else min(half, len(support))
        draws = []
        for seq in _ordered(d, n, y_replacement):
            prob, left = F(1), sum(weights)
            for i in seq:
                prob *= weights[i] / left
                left -= 0 if y_replacement else weights[i]
            if prob:
                draws.append((prob, seq))
    out = []
    for p_c, chosen in subsets:
        v = [F(0)] * d
        for j in chosen:
            v[j] += weight * x[j]
        for p_i, seq in draws:
            y_hat = sum((F(2, k) * l1 * (_sgn(w[i]) if signed else 1) * x[i] for i in seq), F(0))
            out.append((p_c * p_i, tuple(2 * (y_hat - y) * vj for vj in v)))
    return out


def aerr_phi(w, x, y, j):
    """hk12 Algorithm 1, line 9: φ̃ = ‖w‖₂²·x_j/w_j − y."""
    return sum(a * a for a in w) * x[j] / w[j] - y


def aelr_phi(w, x, y, j, signed=True):
    """hk12 Algorithm 2, line 10: φ̃ = ‖w‖₁·sign(w_j)·x_j − y."""
    return sum(abs(a) for a in w) * (_sgn(w[j]) if signed else 1) * x[j] - y


def hk12_law(w, x, y, k, *, power, sample_power=None, weight=None, signed=True, x_replacement=True):
    """hk12's g̃ = φ̃·x̃ over every ordered k-tuple of uniform draws (``x_replacement=False``:
    k distinct indices) and every j with P(j) ∝ |w_j|**sample_power (default ``power``); power 2
    is AERR (φ̃ = ‖w‖₂²x_j/w_j − y), power 1 AELR (φ̃ = ‖w‖₁·sign(w_j)·x_j − y, ``signed=False``
    drops the sign). x̃ = weight(d, k)·Σ_r x[i_r] e_{i_r} (default d/k). At w = 0, φ̃ = −y."""
    w, x, y = [F(a) for a in w], [F(a) for a in x], F(y)
    d = len(x)
    weights = [abs(a) ** (power if sample_power is None else sample_power) for a in w]
    total = sum(weights)

    def phi(j):
        return aerr_phi(w, x, y, j) if power == 2 else aelr_phi(w, x, y, j, signed)

    js = [(weights[j] / total, phi(j)) for j in range(d) if weights[j]] if total else [(F(1), -y)]
    sequences = list(_ordered(d, k, x_replacement))
    scale = weight(d, k) if weight else F(d, k)
    out = []
    for seq in sequences:
        x_tilde = [F(0)] * d
        for i in seq:
            x_tilde[i] += scale * x[i]
        out += [(F(1, len(sequences)) * p_j, tuple(value * v for v in x_tilde)) for p_j, value in js]
    return out


def aer_sampler(*, v_factor=1.0, y_replacement=True):
    """A plain Python sampler of eqs. (6)–(8), ``estimate(w, x, y, k, *, random_state)``, on the
    library's random helpers; ``v_factor`` scales v and ``y_replacement=False`` draws ŷ's indices
    without replacement (both defects)."""

    def estimate(w, x, y, k, *, random_state):
        state = as_kernel_state(random_state)
        w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
        d, half = x.shape[0], k // 2
        subset = np.empty(d, dtype=np.int64)
        sample_without_replacement(state, d, half, subset)
        available, l1, y_hat, drawn = np.abs(w), float(np.abs(w).sum()), 0.0, set()
        for _ in range(half if l1 > 0 else 0):
            if available.sum() == 0:
                break
            i = int(next_weighted_index(state, np.cumsum(available)))
            drawn.add(i)
            y_hat += (2.0 / k) * np.sign(w[i]) * l1 * x[i]
            if not y_replacement:
                available = available.copy()
                available[i] = 0.0
        g = np.zeros(d)
        chosen = subset[:half]
        g[chosen] = 2.0 * (y_hat - y) * v_factor * (2.0 / k) * d * x[chosen]
        return g, len(set(chosen.tolist()) | drawn)  # every attribute read: C's and ŷ's

    return estimate


def subsets_expectation(f, k, average) -> F:
    """E over a uniform k-subset of average(values on it), by listing the subsets."""
    subsets = list(itertools.combinations(range(len(f)), k))
    return sum((F(average([f[i] for i in s])) for s in subsets), F(0)) / math.comb(len(f), k)
