"""The comparison and reproduction kinds on small toy claims (not registered, so they never
appear in `theorycheck list`): PASS on a true statement, FAIL on a planted defect."""

from __future__ import annotations

import numpy as np

from theorycheck.kinds.comparison import PairedComparison
from theorycheck.kinds.reproduction import Reproduction
from theorycheck.rng import as_generator
from theorycheck.run import run_claims


def mean_of_first(sample, n_used, random_state):
    """Estimate the mean from the first ``n_used`` draws; reads ``n_used`` attributes."""
    return float(sample[:n_used].mean()), n_used


def mean_of_one(sample, n_used, random_state):
    """A planted defect: looks at one draw of the ``n_used`` it may."""
    return float(sample[0]), 1


class ToyComparison(PairedComparison):
    id = "cbss11.toy-comparison"
    title = "toy"
    statement = "the full-budget mean estimate has lower squared error than a one-draw estimate"
    reference = "none"
    labels = ("full", "one draw")
    subjects = {"a": mean_of_first, "b": mean_of_one}
    base = {"n": 16, "repetitions": 1000, "delta": 1e-3, "resolution": 0.02, "margin": 0.01}
    profiles = {"quick": {}, "full": {}}

    def run(self, p, task, subjects, data_state, seeds):
        sample = as_generator(data_state).random(p["n"])
        est_a, read_a = subjects["a"](sample, p["n"], seeds[0])
        est_b, read_b = subjects["b"](sample, p["n"], seeds[1])
        return {"loss_a": (est_a - 0.5) ** 2, "loss_b": (est_b - 0.5) ** 2,
                "attributes_a": read_a, "attributes_b": read_b}

    def upper(self, p):
        return 0.25

    def budget(self, p):
        return p["n"]


def _run(claim, tmp_path, subjects=None):
    (record,) = run_claims([claim], subjects=subjects, out=tmp_path, progress=False)
    return record


def test_comparison_passes_a_true_ordering(tmp_path):
    assert _run(ToyComparison(), tmp_path)["verdict"] == "PASS"


def test_comparison_fails_a_reversed_ordering(tmp_path):
    """Both contenders replaced (swapped): the paper's ordering, REVERSED, is reported beside; each
    replaced contender is judged against its reference on the same sample, and the one-draw
    estimator in A's place is worse than the reference A: FAIL."""
    record = _run(ToyComparison(), tmp_path, {"a": mean_of_one, "b": mean_of_first})
    assert record["verdict"] == "FAIL", record["decision"]
    paper = [f for f in record["findings"] if f["versus"] == "paper"]
    versus = {f["finding"].split(": ")[1].split(",")[0]: f["outcome"] for f in record["findings"]
              if f["versus"] == "reference"}
    assert [f["outcome"] for f in paper] == ["REVERSED"] and not paper[0]["decides"]
    assert versus == {"full": "REVERSED", "one draw": "REPRODUCED"}, versus


class Reversed(ToyComparison):
    """The paper's reference implementations themselves order the other way."""

    subjects = {"a": mean_of_one, "b": mean_of_first}


def test_a_result_against_the_paper_with_the_reference_subjects_is_not_reproduced(tmp_path):
    record = _run(Reversed(), tmp_path)
    assert record["verdict"] == "NOT REPRODUCED", record["decision"]
    assert [f["outcome"] for f in record["findings"]] == ["REVERSED"] and record["findings"][0]["against"]


def test_comparison_ties_are_not_a_pass(tmp_path):
    """Two identical estimators as the reference: a bare 'better' (direction) with the interval inside
    (−ε, ε) is NEGLIGIBLE, neither PASS nor FAIL; the same interval against a magnitude is TIED, a
    result against the paper (NOT REPRODUCED with the reference implementations)."""
    class Tie(ToyComparison):
        base = {**ToyComparison.base, "margin": 0.05}
        subjects = {"a": mean_of_first, "b": mean_of_first}

    class TieMagnitude(Tie):
        question = "magnitude"

    record = _run(Tie(), tmp_path / "direction")
    assert [f["outcome"] for f in record["findings"]] == ["NEGLIGIBLE"] and record["verdict"] == "INCONCLUSIVE"
    record = _run(TieMagnitude(), tmp_path / "magnitude")
    assert [f["outcome"] for f in record["findings"]] == ["TIED"] and record["verdict"] == "NOT REPRODUCED"


def coin(p, random_state):
    return float(as_generator(random_state).random() < p)


class ToyReproduction(Reproduction):
    id = "cbss11.toy-reproduction"
    title = "toy"
    statement = "a fair coin lands heads half of the time"
    reference = "none"
    keys = ("flips",)
    published = [{"flips": 1000, "value": 0.5}]
    tolerance = 0.05
    tolerance_reason = "the published number is read off a plot to ±0.05"
    subjects = {"coin": coin}
    base = {"repetitions": 4, "delta": 1e-3, "bias": 0.5}
    profiles = {"quick": {}, "full": {}}

    def reproduce(self, p, task, subjects, random_state):
        rng = np.random.default_rng(random_state)
        flips = np.array([subjects["coin"](p["bias"], rng) for _ in range(20000)])
        return [{"flips": 1000, "value": float(flips.mean()), "n": flips.size, "var": float(flips.var(ddof=1))}]

    def upper(self, p):
        return 1.0


def test_reproduction_within_tolerance_passes(tmp_path):
    assert _run(ToyReproduction(), tmp_path)["verdict"] == "PASS"


def test_reproduction_far_off_fails(tmp_path):
    def biased(p, random_state):
        return coin(0.95, random_state)

    record = _run(ToyReproduction(), tmp_path, {"coin": biased})
    assert record["verdict"] == "FAIL", record["decision"]


def test_the_shared_gram_ridge_predicts_as_scikit_learns_ridge_bit_for_bit():
    """The experiments' cross-validation solves scikit-learn's Ridge for every α of a fold from one Gram matrix
    (reproduction.ridge_predictions); its predictions must be Ridge's own, to the last bit, and any other
    learner or setting must take the one-by-one path."""
    from sklearn.linear_model import Lasso, Ridge

    from theorycheck.kinds.reproduction import ridge_predictions

    rng = np.random.default_rng(3)
    for n, d in ((400, 50), (300, 300), (2000, 97)):
        X = rng.random((n, d))
        X[:, : d // 5] = 0.0  # never-lit pixels: a singular Gram matrix that α makes definite
        y = np.sign(rng.standard_normal(n))
        held = rng.random((60, d))
        alphas = [{"alpha": a} for a in (0.3, 10.0, 1000.0)]
        shared = ridge_predictions(Ridge(fit_intercept=False), alphas, X, y, held)
        assert shared is not None
        for candidate, pred in zip(alphas, shared, strict=True):
            own = Ridge(fit_intercept=False, **candidate).fit(X, y).predict(held)
            assert np.array_equal(own, pred), (n, d, candidate, np.abs(own - pred).max())
    X, y, held = rng.random((80, 10)), rng.standard_normal(80), rng.random((5, 10))
    alphas = [{"alpha": 1.0}]
    assert ridge_predictions(Ridge(), alphas, X, y, held) is None  # an intercept: Ridge centres first
    assert ridge_predictions(Ridge(fit_intercept=False, solver="svd"), alphas, X, y, held) is None
    assert ridge_predictions(Lasso(fit_intercept=False), alphas, X, y, held) is None
    assert ridge_predictions(Ridge(fit_intercept=False), alphas, X[:5], y[:5], held) is None  # n < d: dual form
    assert ridge_predictions(Ridge(fit_intercept=False), [{"alpha": 1.0, "tol": 1e-3}], X, y, held) is None
