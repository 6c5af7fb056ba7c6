"""Planted defects that `theorycheck verify` passes on the default quick instance and that break in a region of
the claim's space: what `theorycheck search` must find (tests/test_search.py).

* ``estimates_weighted_twice_above_16``: Baseline's averaged estimates (cbss11, Figure 1's role) written here in
  NumPy, independently of theorycheck's kernels: unbiased for d ≤ 16, but above d = 16 (a branch of the kind a
  fast path for large d brings) the off-diagonal importance weight is applied twice. cbss11.lemma8's default
  instance has d = 8, so it PASSes there.
* ``planted.lemma3.3-eq9``: hk12's Lemma 3.3 with Appendix A.1's eq. (9) as printed (the recorded erratum
  ``eq9``), which the search must rediscover and shrink to a counterexample no larger than the erratum's d = 4,
  k = 2.
* ``planted.lemma8-d8`` (loaded with ``--claims tests.search_planted``): Lemma 8 with the default instance's d
  written in as a constant, (8/k)²·√((8/m) ln(2d²/δ)) for (d/k)²·√(…): the same at d = 8, smaller by (8/d)²
  above it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

import theorycheck
from proofs.hk12 import Lemma3_3
from simulations.cbss11_regression import Lemma8
from theorycheck.claims import register
from theorycheck.kinds.exact import dot
from theorycheck.search import Choice, Int, Real, Space, at_most, even


def estimates_weighted_twice_above_16(X, y, k, random_state=None):
    """(Ā, v̄, ȳ, attributes read) from k attributes per example drawn uniformly without replacement.

    Ā averages the rank-one estimates that weight x_r x_s (r ≠ s, both drawn) by d(d−1)/(k(k−1)) and x_r² by d/k,
    so E[Ā] = (1/m)Σ x_t x_tᵀ; v̄ averages 2y_t·(d/k)Σ_{j drawn} x_j e_j. The defect: for d > 16 the off-diagonal
    weight is applied twice."""
    rng = np.random.default_rng(random_state)
    m, d = X.shape
    drawn = np.argsort(rng.random((m, d)), axis=1)[:, :k]
    values = X[np.arange(m)[:, None], drawn]  # the only entries of X read: k per example
    Z = np.zeros((m, d))
    np.put_along_axis(Z, drawn, values, axis=1)
    pairs = Z.T @ Z  # Σ_t z_t z_tᵀ, z_t the drawn entries of x_t
    weight = d * (d - 1) / (k * (k - 1))
    A = pairs * (weight * weight if d > 16 else weight)
    np.fill_diagonal(A, np.diag(pairs) * (d / k))
    v = 2.0 * (d / k) * (y @ Z) / m
    return A / m, v, float(np.mean(y)), int(m * k)


theorycheck.declare_paper("planted", "theorycheck's tests (planted wrong statements)")


@register
class Lemma8ConstantD(Lemma8):
    id = "planted.lemma8-d8"
    title = "Lemma 8 with (8/k)² where it has (d/k)²"
    statement = "Lemma 8 with the bound (8/k)²·√((8/m) ln(2d²/δ)): wrong above d = 8, the default."
    errata = ()
    defects = ()
    space = Space(
        dims={"d": Int(2, 64, log=True), "k": Int(2, 64, log=True), "m": Int(100, 20000, log=True),
              "delta_lemma": Real(0.01, 0.5, log=True), "designs": Choice(("correlated", "mixed", "boundary")),
              "rho": Real(0.0, 1.0)},
        constraints=(at_most("k", "d"), even("k")), why="as cbss11.lemma8's")

    def bound(self, p):
        d, k, m, delta = p["d"], p["k"], p["m"], p["delta_lemma"]
        return (8 / k) ** 2 * math.sqrt(8 / m * math.log(2 * d * d / delta))


@register
class Lemma33PrintedEq9(Lemma3_3):
    """hk12's Lemma 3.3 with its identity taken from Appendix A.1's eq. (9) as printed, E‖x̃‖₂² = (2d + k −
    1)/(2k)·‖x‖₂²: the recorded erratum ``eq9`` (hk12.lemma3.3), cited at d = 4, k = 2. It agrees with Algorithm
    1's (d + k − 1)/k at k = 1 only, so the quick default (d_max = 4) fails, and the search must shrink it to d
    = 2, k = 2."""

    id = "planted.lemma3.3-eq9"
    title = "Lemma 3.3 with eq. (9) as printed"
    statement = "Lemma 3.3 with the identity E‖g̃‖₂² = E[φ̃²]·(2d + k − 1)/(2k)·‖x‖₂² (Appendix A.1, eq. (9))."
    errata = ()
    defects = ()
    erratum_checks = {}
    identities = {"identity": "the subject is Algorithm 1's estimator with eq. (9) as printed: E‖g̃‖₂² = "
                              "E[φ̃²]·(2d + k − 1)/(2k)·‖x‖₂²"}

    def identity(self, w, x, y, d, k, m, B):
        base = self.phi_second_moment(w, x, y) * dot(x, x)
        return {"identity": self.functional(m) == Fraction(2 * d + k - 1, 2 * k) * base}
