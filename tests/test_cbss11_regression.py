"""cbss11 Lemmas 8–10 and Theorems 6 and 12 (Baseline and AER): PASS as built, FAIL with
planted defects, parameter rejections, and the L1-ball supremum against brute force.

The planted defects below are importable by the CLI too, e.g.
``theorycheck verify cbss11.lemma8 --subject estimates=tests.test_cbss11_regression:estimates_unscaled_A``.
"""

import math

import numpy as np
import pandas as pd
import pytest

from simulations.cbss11_regression import l1_ball_sup_abs_quadratic
from theorycheck.algorithms.aer import AER
from theorycheck.algorithms.baseline import Baseline, baseline_estimates
from theorycheck.bounds.cbss11 import (
    lemma8_deviation,
    lemma9_deviation,
    lemma10_deviation,
    lemma_delta_star,
    thm12_excess,
    thm12_regret_constant,
)
from theorycheck.claims import discover
from theorycheck.projections import project_l1_ball
from theorycheck.runner import run_claims
from theorycheck.validation import ParameterError

# ----------------------------------------------------------------------------- planted defects


def estimates_unscaled_A(X, y, k, random_state=None):
    """Ā without its (d/k)² importance weight: E[Ā] = (k/d)²·X, biased."""
    A, v, ybar, n = baseline_estimates(X, y, k, random_state=random_state)
    d = X.shape[1]
    return A * (k / d) ** 2, v, ybar, n


def estimates_figure_constants(X, y, k, random_state=None):
    """Figure 1's printed constants: zero diagonal, off-diagonal mean d/(d−1)·x_r x_s."""
    return baseline_estimates(X, y, k, estimator="figure", random_state=random_state)


def estimates_unscaled_v(X, y, k, random_state=None):
    """v̄ without its d/k factor: E[v̄] = (k/d)·x̄."""
    A, v, ybar, n = baseline_estimates(X, y, k, random_state=random_state)
    return A, v * (k / X.shape[1]), ybar, n


def estimates_overreporting(X, y, k, random_state=None):
    """Correct estimates, but reports one attribute more per example than allowed."""
    A, v, ybar, _ = baseline_estimates(X, y, k, random_state=random_state)
    return A, v, ybar, (k + 1) * X.shape[0]


class BaselineZero(Baseline):
    """Never optimises: returns w = 0 (a plateau in m)."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = np.zeros_like(self.coef_)
        return self


class BaselineIdentityCovariance(Baseline):
    """cbss11 footnote 3: assume E[xxᵀ] = I, so ŵ = projection of v̄/2 on the L1 ball. Consistent
    only when the attributes are uncorrelated."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = project_l1_ball(self.v_bar_ / 2.0, self.B)
        return self


class BaselineUnscaledV(Baseline):
    """Minimises wᵀĀw − (k/d)·wᵀv̄: the linear term without its d/k factor."""

    def fit(self, X, y):
        super().fit(X, y)
        d = X.shape[1]
        # refit on the biased objective with the library's own minimiser: rescaling y by k/d
        # rescales v̄ by k/d and leaves Ā unchanged (Ā does not involve y).
        inner = Baseline(k=self.k, B=self.B, random_state=self.random_state).fit(X, y * (self.k / d))
        self.coef_ = inner.coef_
        return self


class AERNoProjection(AER):
    """Figure 2 without the projection (11) on the L1 ball."""

    def fit(self, X, y):
        radius = self.B
        self.B = 1e300  # the kernel uses B only in the projection step
        try:
            return super().fit(X, y)
        finally:
            self.B = radius


class AEROverRegularised(AER):
    """λ one hundred times the prescribed value."""

    def fit(self, X, y):
        lam = self.lam
        self.lam = 100.0 * lam
        try:
            return super().fit(X, y)
        finally:
            self.lam = lam


class AERSmallLambda(AER):
    """λ ten times smaller than prescribed (not a defect for Theorem 12's bound, see below)."""

    def fit(self, X, y):
        lam = self.lam
        self.lam = lam / 10.0
        try:
            return super().fit(X, y)
        finally:
            self.lam = lam


# ----------------------------------------------------------------------------- helpers


def _run(claim_id, tmp_path, subjects=None, **overrides):
    claim = discover()[claim_id]
    (record,) = run_claims([claim], overrides={k: str(v) for k, v in overrides.items()},
                           subjects=subjects, out=tmp_path, progress=False)
    return record


def _summary(tmp_path, record):
    return pd.read_csv(tmp_path / record["summary_file"])


# ----------------------------------------------------------------------------- bounds


def test_bound_functions_match_the_paper_formulas():
    d, k, m, B, delta = 10, 4, 5000, 2.0, 0.05
    assert lemma8_deviation(d, k, m, delta) == pytest.approx(
        (d / k) ** 2 * math.sqrt(8 / m * math.log(2 * d * d / delta)))
    assert lemma9_deviation(d, k, B, m, delta) == pytest.approx(d * B / k * math.sqrt(8 / m * math.log(2 * d / delta)))
    assert lemma10_deviation(d, k, B, m, delta) == pytest.approx(
        (B * d / k) ** 2 * math.sqrt(32 / m * math.log(2 * d * d / delta)))
    assert thm12_excess(d, k, B, m, delta) == pytest.approx(
        16 * d * B * B * math.sqrt(math.log(m) / (k * m)) + 4 * B * B * math.sqrt(2 * math.log(1 / delta) / m))
    # δ* inverts each bound
    for lemma, f in ((8, lambda dl: lemma8_deviation(d, k, m, dl)), (9, lambda dl: lemma9_deviation(d, k, B, m, dl)),
                     (10, lambda dl: lemma10_deviation(d, k, B, m, dl))):
        assert lemma_delta_star(f(0.01), lemma=lemma, d=d, k=k, m=m, B=B) == pytest.approx(0.01)
    assert thm12_regret_constant(16.0) == 16.0
    assert thm12_regret_constant(12.0) == pytest.approx(50 / 3)


# ----------------------------------------------------------------------------- L1-ball supremum


def _brute_force_sup(E, e, c, B, rng, n=200_000):
    """|q| on random points of the ball and of every face (vertices, edges, ...)."""
    d = e.shape[0]
    E = 0.5 * (E + E.T)
    pts = [np.zeros(d)]
    for i in range(d):
        for s in (-1.0, 1.0):
            v = np.zeros(d)
            v[i] = s * B
            pts.append(v)
    P = rng.standard_exponential((n, d)) * rng.choice([-1.0, 1.0], size=(n, d))
    P *= (B * rng.uniform(0, 1, size=(n, 1)) ** (1 / d)) / np.abs(P).sum(axis=1, keepdims=True)
    sparse = P.copy()
    sparse[rng.uniform(size=sparse.shape) < 0.5] = 0.0
    norms = np.abs(sparse).sum(axis=1, keepdims=True)
    sparse = np.where(norms > 0, sparse * B / np.where(norms > 0, norms, 1), 0.0)
    W = np.vstack([np.array(pts), P, sparse])
    vals = np.einsum("ij,jk,ik->i", W, E, W) - W @ e + c
    return float(np.abs(vals).max())


@pytest.mark.parametrize("seed", range(6))
def test_sup_is_exact_and_brackets_brute_force(seed):
    rng = np.random.default_rng(seed)
    d = 2 + seed % 3
    E = rng.normal(size=(d, d))
    e = rng.normal(size=d)
    c = float(rng.normal()) * 0.1
    B = 1.5
    lower, upper, exact, w = l1_ball_sup_abs_quadratic(E, e, c, B)
    assert exact and lower <= upper
    assert np.abs(w).sum() <= B * (1 + 1e-12)
    Es = 0.5 * (E + E.T)
    assert abs(float(w @ Es @ w - w @ e + c)) == pytest.approx(lower)
    brute = _brute_force_sup(E, e, c, B, rng)
    assert brute <= upper + 1e-12
    assert lower - brute <= 0.02 * lower  # random points come close to the exact supremum
    holder = B * B * min(np.abs(Es).max(), np.linalg.norm(Es, 2)) + B * np.abs(e).max() + abs(c)
    assert upper <= holder + 1e-12
    # partial enumeration (vertices and edges): a lower bound with Hölder's upper bound
    lo2, up2, exact2, _ = l1_ball_sup_abs_quadratic(E, e, c, B, max_face_dim=1)
    assert lo2 <= lower + 1e-12 and up2 == pytest.approx(holder) and (exact2 == (d == 1))


def test_sup_on_a_grid_in_two_dimensions():
    """Dense grid of the 2-D L1 ball (a square rotated by 45°)."""
    rng = np.random.default_rng(11)
    for _ in range(5):
        E, e, c, B = rng.normal(size=(2, 2)), rng.normal(size=2), 0.0, 1.0
        lower, _, _, _ = l1_ball_sup_abs_quadratic(E, e, c, B)
        g = np.linspace(-B, B, 801)
        u, v = np.meshgrid(g, g)
        keep = np.abs(u) + np.abs(v) <= B
        W = np.stack([u[keep], v[keep]], axis=1)
        Es = 0.5 * (E + E.T)
        brute = np.abs(np.einsum("ij,jk,ik->i", W, Es, W) - W @ e).max()
        assert brute <= lower + 1e-12
        assert lower - brute < 1e-4


def test_sup_of_indefinite_form_is_not_at_a_vertex():
    """q(w) = 2w1w2 is 0 at every vertex ±B·e_i and reaches B²/2 at the edge midpoints
    (±B/2, ±B/2): a maximum over vertices alone would miss it."""
    E = np.array([[0.0, 1.0], [1.0, 0.0]])
    lower, upper, exact, w = l1_ball_sup_abs_quadratic(E, np.zeros(2), 0.0, 2.0)
    assert exact and lower == pytest.approx(2.0) and upper == pytest.approx(2.0, rel=1e-8)
    assert np.abs(w) == pytest.approx([1.0, 1.0])


# ----------------------------------------------------------------------------- Lemmas 8–10


@pytest.mark.parametrize("claim_id", ["cbss11.lemma8", "cbss11.lemma9", "cbss11.lemma10"])
def test_lemmas_pass_as_built(tmp_path, claim_id):
    record = _run(claim_id, tmp_path)
    assert record["verdict"] == "PASS", record["decision"]
    assert 0 < record["ratio"] < 1
    assert all(h["met"] for h in record["hypothesis_checks"])


def test_lemma8_theory_is_the_printed_bound(tmp_path):
    record = _run("cbss11.lemma8", tmp_path, d=6, k=4, m=3000, repetitions=60)
    assert record["theory"] == pytest.approx(1.5**2 * math.sqrt(8 / 3000 * math.log(2 * 36 / 0.1)))
    table = pd.read_csv(tmp_path / record["table_file"])
    assert (table["violation_certain"] == (table["deviation"] > table["bound"])).all()


def test_lemma8_planted_missing_scaling_fails(tmp_path):
    record = _run("cbss11.lemma8", tmp_path, {"estimates": estimates_unscaled_A}, repetitions=30)
    assert record["verdict"] == "FAIL", record["decision"]
    assert record["ratio"] > 1


def test_lemma8_printed_figure_constants_fail(tmp_path):
    """Figure 1 as printed leaves Ā's diagonal at 0: Lemma 8 cannot hold for it."""
    record = _run("cbss11.lemma8", tmp_path, {"estimates": estimates_figure_constants}, repetitions=30)
    assert record["verdict"] == "FAIL"
    table = pd.read_csv(tmp_path / record["table_file"])
    assert table["max_diagonal_deviation"].min() == pytest.approx(1.0)  # sign attributes: x_r² = 1


def test_lemma9_planted_missing_d_over_k_fails(tmp_path):
    record = _run("cbss11.lemma9", tmp_path, {"estimates": estimates_unscaled_v}, repetitions=30)
    assert record["verdict"] == "FAIL", record["decision"]


def test_lemma9_unaffected_by_a_biased_matrix(tmp_path):
    record = _run("cbss11.lemma9", tmp_path, {"estimates": estimates_unscaled_A}, repetitions=100)
    assert record["verdict"] == "PASS"


@pytest.mark.parametrize("defect", [estimates_unscaled_v, estimates_figure_constants, estimates_unscaled_A])
def test_lemma10_planted_defects_fail(tmp_path, defect):
    record = _run("cbss11.lemma10", tmp_path, {"estimates": defect}, repetitions=30)
    assert record["verdict"] == "FAIL", record["decision"]


def test_lemma10_large_d_uses_certified_bounds(tmp_path):
    """Beyond exact_max_d the supremum is bracketed; the default estimates still PASS because
    even the Hölder upper bound is below the lemma's bound."""
    record = _run("cbss11.lemma10", tmp_path, d=12, k=4, m=20000, repetitions=100, exact_max_d=6)
    assert record["verdict"] == "PASS", record["decision"]
    table = pd.read_csv(tmp_path / record["table_file"])
    assert (table["sup_method"] == "bounds").all()
    assert (table["deviation"] <= table["deviation_upper"]).all()


def test_lemma_with_overreporting_subject_gets_no_pass(tmp_path):
    record = _run("cbss11.lemma8", tmp_path, {"estimates": estimates_overreporting}, repetitions=20)
    assert record["verdict"] == "INCONCLUSIVE"
    broken = [h for h in record["hypothesis_checks"] if not h["met"]]
    assert broken and "attributes" in broken[0]["statement"]


def test_lemma_too_few_repetitions_is_inconclusive(tmp_path):
    record = _run("cbss11.lemma9", tmp_path, repetitions=20)
    assert record["verdict"] == "INCONCLUSIVE"
    assert any("repetitions" in n for n in record["notes"])


# ----------------------------------------------------------------------------- Theorem 6


def test_thm6_passes_as_built(tmp_path):
    record = _run("cbss11.thm6", tmp_path)
    assert record["verdict"] == "PASS", record["decision"]
    assert record["observed"] < -0.5
    assert any("Measured constant" in n for n in record["notes"])


def test_thm6_unoptimised_output_fails(tmp_path):
    record = _run("cbss11.thm6", tmp_path, {"learner": BaselineZero})
    assert record["verdict"] == "FAIL", record["decision"]
    assert record["observed"] == pytest.approx(0.0, abs=1e-9)


def test_thm6_identity_covariance_shortcut_fails_on_correlated_attributes(tmp_path):
    record = _run("cbss11.thm6", tmp_path, {"learner": BaselineIdentityCovariance}, design="correlated", rho=0.5)
    assert record["verdict"] == "FAIL", record["decision"]


def test_thm6_unscaled_linear_term_fails(tmp_path):
    record = _run("cbss11.thm6", tmp_path, {"learner": BaselineUnscaledV})
    assert record["verdict"] == "FAIL", record["decision"]


# ----------------------------------------------------------------------------- Theorem 12


def test_thm12_passes_as_built_with_both_lambdas(tmp_path):
    record = _run("cbss11.thm12", tmp_path)
    assert record["verdict"] == "PASS", record["decision"]
    assert "the same verdict" in record["decision"]
    summary = _summary(tmp_path, record)
    assert set(summary["lam_variant"]) == {"theorem", "proof"}
    assert record["ratio"] < 1


def test_thm12_dropped_projection_fails(tmp_path):
    record = _run("cbss11.thm12", tmp_path, {"learner": AERNoProjection}, repetitions=20)
    assert record["verdict"] == "FAIL", record["decision"]


def test_thm12_over_regularised_fails(tmp_path):
    record = _run("cbss11.thm12", tmp_path, {"learner": AEROverRegularised}, repetitions=20)
    assert record["verdict"] == "FAIL", record["decision"]


def test_thm12_ten_times_smaller_lambda_still_meets_the_bound(tmp_path):
    """Not a defect for this bound: on this design a smaller λ (less shrinkage towards 0)
    gives a smaller excess risk than the prescribed one."""
    record = _run("cbss11.thm12", tmp_path, {"learner": AERSmallLambda})
    assert record["verdict"] == "PASS"


# ----------------------------------------------------------------------------- parameters


@pytest.mark.parametrize("claim_id", ["cbss11.lemma8", "cbss11.lemma9", "cbss11.lemma10",
                                      "cbss11.thm6", "cbss11.thm12"])
@pytest.mark.parametrize("override", [{"k": "0"}, {"k": "3"}, {"k": "10"}, {"B": "0"}, {"B": "-1"},
                                      {"delta": "1.5"}, {"design": "gaussian"}, {"noise": "2"}])
def test_check_params_rejects(claim_id, override):
    claim = discover()[claim_id]
    with pytest.raises(ParameterError):
        claim.params_for("quick", override)


def test_check_params_rejects_claim_specific_values():
    registry = discover()
    with pytest.raises(ParameterError):
        registry["cbss11.lemma8"].params_for("quick", {"delta_lemma": "0"})
    with pytest.raises(ParameterError):
        registry["cbss11.lemma10"].params_for("quick", {"exact_max_d": "30"})
    with pytest.raises(ParameterError):
        registry["cbss11.thm6"].params_for("quick", {"ms": "100,100,200"})
    with pytest.raises(ParameterError):
        registry["cbss11.thm6"].params_for("quick", {"ks": "8,3,2"})
    with pytest.raises(ParameterError):
        registry["cbss11.thm12"].params_for("quick", {"m": "2"})
    with pytest.raises(ParameterError):
        registry["cbss11.lemma9"].params_for("quick", {"s": "9"})


def test_quick_profiles_are_decisive_by_construction():
    """0 violations in the quick profile's repetitions already give a Clopper–Pearson upper
    end below δ_lemma (so PASS is reachable), and a constant violation count FAILs."""
    from theorycheck.stats import binomial_interval

    for claim_id in ("cbss11.lemma8", "cbss11.lemma9", "cbss11.lemma10", "cbss11.thm12"):
        p = discover()[claim_id].params_for("quick")
        target = p.get("delta_lemma", p.get("delta_bound"))
        assert binomial_interval(0, p["repetitions"], p["delta"]).high <= target
        assert binomial_interval(20, 20, p["delta"]).low > target


def test_subjects_are_replaceable_by_name():
    registry = discover()
    for claim_id in ("cbss11.lemma8", "cbss11.lemma9", "cbss11.lemma10"):
        assert registry[claim_id].subjects == {"estimates": baseline_estimates}
    assert registry["cbss11.thm6"].subjects == {"learner": Baseline}
    assert registry["cbss11.thm12"].subjects == {"learner": AER}

