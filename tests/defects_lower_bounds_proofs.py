"""Planted defects for the lower-bound proof claims (cbss11.A.2, cbss11.A.5-A.6, hk12.lemmaB.4,
hk12.lemmaB.5), named by the claims' ``defects`` as ``tests.defects_lower_bounds_proofs:NAME`` and
run by tests/test_power.py."""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction

import numpy as np

from theorycheck.generators.lower_bounds import (
    GoodFeature,
    SparseRows,
    good_feature,
    good_feature_law,
    hidden_signs_law,
    sparse_rows,
    sparse_rows_law,
)


def _recast(obj, cls):
    """The same frozen design as an instance of the subclass ``cls``."""
    return cls(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})


# ---------------------------------------------------------------------- cbss11 A.2 (generators of P_j)


def good_feature_half_bias(d, p, j):
    """Samples (and has the law of) P_j with bias p/2, but declares p: the good feature's bias is wrong."""
    return dataclasses.replace(good_feature(d, p=p / 2, j=j), p=p)


class _ShiftedLaw(GoodFeature):
    def law(self):
        return good_feature_law(self.d, (self.j + 1) % self.d, self.p_exact)


def good_feature_shifted(d, p, j):
    """Its law puts the bias on coordinate j + 1 (mod d) while it declares j (same at d = 1)."""
    return _recast(good_feature(d, p=p, j=j), _ShiftedLaw)


class _HalfRisk(GoodFeature):
    def risk(self, w, *, half=False):
        return 0.5 * np.asarray(GoodFeature.risk(self, w, half=half))


def good_feature_half_risk(d, p, j):
    """Its closed-form risk is ½(⟨w, x⟩ − y)² (hk12's convention), not cbss11's (⟨w, x⟩ − y)²."""
    return _recast(good_feature(d, p=p, j=j), _HalfRisk)


class _LooseReadout(GoodFeature):
    def identify(self, w):
        w = np.asarray(w, dtype=float)
        big = np.flatnonzero(np.abs(w) >= self.p / 2)
        return int(big[0]) if big.size else int(np.argmax(np.abs(w)))


def good_feature_loose_readout(d, p, j):
    """Reads j off as the first coordinate with |w_i| ≥ √ε/2 (instead of the largest |w_i|)."""
    return _recast(good_feature(d, p=p, j=j), _LooseReadout)


# ---------------------------------------------------------------------- cbss11 A.5–A.6


def relax_11(q):
    """−ln(1 − q) ≤ 1.1q: false near q = ¼ (−ln ¾ ≈ 0.2877 > 0.275)."""
    return Fraction(11, 10) * Fraction(q)


def relax_first_order(q):
    """−ln(1 − q) ≈ q, the first-order term alone: below −ln(1 − q) for every q > 0, so (14) no longer bounds
    the bandit term."""
    return Fraction(q)


def attributes_bound_48(d, eps):
    """½⌊d/(48ε)⌋: twice the printed bound."""
    return Fraction(math.floor(Fraction(d) / (48 * Fraction(eps))), 2)


def attributes_bound_no_half(d, eps):
    """⌊d/(96ε)⌋: the ½ dropped."""
    return Fraction(math.floor(Fraction(d) / (96 * Fraction(eps))))


def attributes_bound_192(d, eps):
    """½⌊d/(192ε)⌋: half the printed bound, a weaker but true statement."""
    return Fraction(math.floor(Fraction(d) / (192 * Fraction(eps))), 2)


# ---------------------------------------------------------------------- hk12 Lemmas B.4 and B.5 (sparse rows)


class _Unsigned(SparseRows):
    def law(self):
        return sparse_rows_law(self.support, np.ones(self.k))

    def nonzero(self, key, rows):
        cols, vals = SparseRows.nonzero(self, key, rows)
        return cols, np.abs(vals)


def sparse_rows_unsigned(d, k, T_seed):
    """Rows e_i without their signs r_i (while it declares the signs)."""
    return _recast(sparse_rows(d, k=k, T_seed=T_seed), _Unsigned)


class _ExtraRow(SparseRows):
    def law(self):
        outside = next((i for i in range(self.d) if i not in set(self.support.tolist())), None)
        rows = sparse_rows_law(self.support, self.signs)
        if outside is None:
            return rows
        mass = Fraction(1, self.k + 1)
        return [(mass, x, y) for _, x, y in rows] + [(mass, {outside: 1}, 1)]


def sparse_rows_extra_row(d, k, T_seed):
    """Draws its row from T plus one coordinate outside T (when d > k), each with mass 1/(k + 1)."""
    return _recast(sparse_rows(d, k=k, T_seed=T_seed), _ExtraRow)


class _HalfSparseRisk(SparseRows):
    def risk(self, w, *, half=False):
        return 0.5 * np.asarray(SparseRows.risk(self, w, half=half))


def sparse_rows_half_risk(d, k, T_seed):
    """Its closed-form risk carries hk12 §3's ½, while Appendix B's loss has none."""
    return _recast(sparse_rows(d, k=k, T_seed=T_seed), _HalfSparseRisk)


def premise_level_10_delta(eps, delta):
    """1 − 2(1 − 10δ)ε: a premise looser by 10 in δ."""
    return 1 - 2 * (1 - 10 * Fraction(delta)) * Fraction(eps)


def premise_level_no_two(eps, delta):
    """1 − (1 − δ)ε: the factor 2 dropped."""
    return 1 - (1 - Fraction(delta)) * Fraction(eps)


# ---------------------------------------------------------------------- hk12 Fact B.2, Corollary B.3 (processes)


def _signed(d, k, sign_of):
    """Every placement of k distinct positions with signs sign_of(position, drawn sign), equally likely."""
    law = hidden_signs_law(d, k)
    out = []
    for pr, rows in law:
        new = tuple(tuple(sign_of(c, v) if v else 0 for c, v in enumerate(row)) for row in rows)
        out.append((pr, new))
    return out


def hidden_signs_plus_only(d, k=1):
    """Fact B.2's array with the sign always +1: nothing is hidden once the array is known to be the fact's."""
    return _signed(d, k, lambda c, v: 1)


def hidden_signs_by_position(d, k=1):
    """The sign is +1 on the first ⌈d/2⌉ positions and −1 on the others (a function of the position)."""
    return _signed(d, k, lambda c, v: 1 if c < -(-d // 2) else -1)


def hidden_signs_first_half(d, k=1):
    """The position is uniform on the first ⌈d/2⌉ coordinates only (fair sign)."""
    half = -(-d // 2)
    law = [(pr, rows) for pr, rows in hidden_signs_law(d, k) if all(row.index(next(v for v in row if v)) < half
                                                                    for row in rows)]
    total = sum(pr for pr, _ in law)
    return [(pr / total, rows) for pr, rows in law]


def hidden_signs_shared_column(d, k=1):
    """Every row's non-zero entry in one uniform column c (signs fair and independent)."""
    mass = Fraction(1, d * 2**k)
    return [(mass, tuple(tuple(r if j == c else 0 for j in range(d)) for r in signs))
            for c in range(d) for signs in itertools.product((1, -1), repeat=k)]


def hidden_signs_sorted(d, k=1):
    """T[j] read as the j-th smallest element of T."""
    return hidden_signs_law(d, k, "sorted")
