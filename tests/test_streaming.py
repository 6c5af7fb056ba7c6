"""Tests of theorycheck.generators.streaming and of the learners that read a streaming design.

The hash against a slow pure-Python reference; a learner fitted on a stream against the same
learner fitted on the materialised (X, y) (the same w̄, bit for bit); the stream's own count of
the values it produced against the learner's ``n_attributes_seen_``; the laws of the streams
against the registered designs; bad input.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from theorycheck.algorithms import (
    AELR,
    AER,
    AERR,
    DDAELR,
    DDAERR,
    GAELR,
    GAERR,
    OnlineGradientDescent,
    TwoPhaseDDAELR,
    TwoPhaseDDAERR,
)
from theorycheck.generators.decaying import decaying_bounded_design
from theorycheck.generators.registry import build_design, design_names
from theorycheck.generators.streaming import (
    StreamingDesign,
    decaying_stream,
    hypercube_stream,
    stream_design,
    streaming_support,
)
from theorycheck.validation import ParameterError

# ---------------------------------------------------------------------------------------
# the hash, written out slowly

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _word(key: int, t: int, i: int) -> int:
    seed = _mix(key ^ _mix(((t + 1) * _GAMMA) & _MASK))
    return _mix((seed + (i + 1) * _GAMMA) & _MASK)


def _uniform(key: int, t: int, i: int) -> float:
    return (_word(key, t, i) >> 11) / 2.0**53


def _reference_row(law: dict, key: int, t: int) -> tuple[list[float], float]:
    """Row t and its label from the module docstring's formulas, in Python integers and floats."""
    d = law["d"]
    p, hi, lo = (np.broadcast_to(np.asarray(law.get(n, v), dtype=float), d)
                 for n, v in (("p", 0.5), ("hi", 1.0), ("lo", -1.0)))
    x = []
    for i in range(d):
        u = _uniform(key, t, i)
        if law.get("kind", "two_point") == "two_point":
            x.append(float(hi[i]) if u < p[i] else float(lo[i]))
        else:
            x.append(float(lo[i]) + (float(hi[i]) - float(lo[i])) * u)
    acc = 0.0
    for i, w in sorted(zip(law["support"], law["weights"], strict=True)):
        acc += w * x[i]
    noise = law.get("noise", 0.0)
    if noise != 0.0:
        acc += noise if _word(key, t, d) >> 63 else -noise
    return x, acc


LAWS = [
    {"n_samples": 6, "d": 5, "p": 0.5, "hi": 0.25, "lo": -0.25, "support": [3, 0], "weights": [1.5, -2.0],
     "noise": 0.125, "random_state": 11},
    {"n_samples": 6, "d": 4, "p": [0.1, 0.5, 0.9, 1.0], "hi": [1.0, 0.5, 0.25, 2.0], "lo": 0.0, "support": [1],
     "weights": [3.0], "random_state": 12},
    {"n_samples": 5, "d": 3, "kind": "uniform", "hi": [1.0, 2.0, 0.5], "lo": [-1.0, 0.0, 0.5], "support": [0, 2],
     "weights": [0.5, 0.25], "noise": 0.5, "random_state": 13},
]


@pytest.mark.parametrize("law", LAWS, ids=["signs", "bernoulli", "uniform"])
def test_values_match_a_pure_python_hash(law):
    design = StreamingDesign(**law, count_reads=True)
    X, y = design.materialize()
    for t in range(design.n_samples):
        x, label = _reference_row(law, design.key, t)
        assert X[t].tolist() == x
        assert y[t] == label
        assert design.label(t) == label
        for i in reversed(range(design.d)):  # any order of reads gives the same value
            assert design.attribute(t, i) == x[i]
    assert design.n_values_produced == design.n_samples * design.d
    assert design.n_labels_produced == design.n_samples
    np.testing.assert_array_equal(design.attributes([[0], [2]], [1, 0, 2]), X[[[0], [2]], [1, 0, 2]])


def test_signs_are_fair_and_the_same_key_gives_the_same_stream():
    design = hypercube_stream(400, 50, s=2, random_state=3)
    X, _ = design.materialize()
    n = X.size
    # Hoeffding at level 1e-6: |fraction of +c − ½| ≤ √(log(2/δ)/(2n))
    assert abs(float(np.mean(X > 0)) - 0.5) <= math.sqrt(math.log(2e6) / (2 * n))
    again = hypercube_stream(400, 50, s=2, random_state=3)
    assert again.key == design.key
    np.testing.assert_array_equal(again.materialize()[0], X)
    assert hypercube_stream(400, 50, s=2, random_state=4).key != design.key
    np.testing.assert_array_equal(design.head(7).materialize()[0], X[:7])


# ---------------------------------------------------------------------------------------
# learners: the stream gives what the materialised matrix gives


def _learners(design):
    s = design.second_moments
    return [
        AERR(k=3, random_state=7),
        AELR(k=3, random_state=7),
        AELR(k=2, B=2.0, eta="proof", random_state=8),
        GAERR(k=3, q=np.linspace(1.0, 2.0, design.d) / np.linspace(1.0, 2.0, design.d).sum(), random_state=7),
        GAELR(k=3, inner_draws=2, random_state=7),
        DDAERR(k=3, second_moments=s, improved_inner=True, random_state=7),
        DDAELR(k=3, second_moments=s, random_state=7),
        TwoPhaseDDAERR(k=3, random_state=7),
        TwoPhaseDDAELR(k=3, random_state=7),
        TwoPhaseDDAERR(k=3, warm_start=True, random_state=7),
        TwoPhaseDDAELR(k=3, warm_start=True, random_state=7),
    ]


DESIGNS = {
    "hypercube": lambda: hypercube_stream(300, 40, s=3, B=1.0, noise=0.2, random_state=1, count_reads=True,
                                          log_reads=10**4),
    "decaying-lasso": lambda: decaying_stream(300, 40, -1.5, setting="lasso", B=1.0, noise=0.1, random_state=2,
                                              count_reads=True, log_reads=10**4),
}


@pytest.mark.parametrize("which", list(DESIGNS))
def test_stream_and_materialized_give_the_same_fit_and_the_reads_are_counted(which):
    design = DESIGNS[which]()
    X, y = design.materialize()
    m, k = design.n_samples, 3
    for learner in _learners(design):
        name = f"{type(learner).__name__} {learner.get_params()}"
        on_matrix = type(learner)(**learner.get_params()).fit(X, y)
        design.reset_counts()
        on_stream = learner.fit(design)
        np.testing.assert_array_equal(on_stream.coef_, on_matrix.coef_, err_msg=name)
        assert on_stream.n_attributes_seen_ == on_matrix.n_attributes_seen_, name
        assert on_stream.n_features_in_ == design.d
        # the stream's own count: distinct (t, i) it produced = what the learner says it read
        reads = design.reads
        distinct = np.unique(reads[:, 0] * design.d + reads[:, 1]).shape[0]
        assert distinct == on_stream.n_attributes_seen_, name
        per_example = np.bincount(np.unique(reads[:, 0] * design.d + reads[:, 1]) // design.d, minlength=m)
        assert per_example.max() <= k + learner.get_params().get("inner_draws", 1), name
        assert reads[:, 0].max() < m
        assert design.n_labels_produced == m - getattr(on_stream, "m1_", 0) * (not learner.get_params().get(
            "warm_start", False)), name


def test_recorded_trajectory_is_the_same_through_a_stream():
    design = hypercube_stream(50, 8, s=2, noise=0.1, random_state=5)
    X, y = design.materialize()
    for cls in (AERR, AELR):
        a = cls(k=2, random_state=3, record_trajectory=True).fit(X, y)
        b = cls(k=2, random_state=3, record_trajectory=True).fit(design)
        for key in ("w", "g", "phi", "coordinates", "j"):
            np.testing.assert_array_equal(a.trajectory_[key], b.trajectory_[key])


def test_a_run_at_a_million_attributes_reads_k_plus_one_per_example():
    # m·d = 10¹⁰: the matrix would take 80 GB; the stream produces only what the learner reads
    m, d, k = 10_000, 10**6, 10
    design = hypercube_stream(m, d, s=1, B=0.5, random_state=0, count_reads=True)
    model = AERR(k=k, random_state=0).fit(design)
    assert model.n_attributes_seen_ <= design.n_values_produced <= (k + 1) * m
    assert design.n_labels_produced == m
    assert model.coef_.shape == (d,)


# ---------------------------------------------------------------------------------------
# the laws of the registered designs


def _params(d):
    return {"d": d, "B": 1.5, "noise": 0.2, "s": 3, "rho": 0.3, "alpha": -1.5}


def test_streaming_support_names_every_registered_design():
    support = streaming_support()
    assert set(support) == {f"{s}/{n}" for s in ("ridge", "lasso") for n in design_names(s)}
    streaming = {name for name, how in support.items() if how == "O(k)"}
    assert streaming == {"ridge/boundary", "lasso/boundary", "lasso/sparse", "lasso/sparse_signed",
                         "lasso/sparse-uniform", "lasso/label_bound", "lasso/decaying_bounded", "ridge/spiked",
                         "lasso/spiked"}
    assert all("dense" in how for name, how in support.items() if name not in streaming)


@pytest.mark.parametrize("name", [name for name, how in streaming_support().items() if how == "O(k)"]
                         + ["ridge/product_sign", "ridge/mixed", "lasso/product", "ridge/decaying_bounded"])
def test_streams_have_the_registered_law(name):
    setting, design_name = name.split("/")
    d = 7
    registered = build_design(setting, design_name, _params(d))
    design = stream_design(setting, design_name, _params(d), 10, random_state=0, allow_dense=True)
    second, cross, y2 = registered.moments
    np.testing.assert_allclose(design.second_moment, second, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(design.cross_moment, cross, rtol=1e-12, atol=1e-15)
    assert math.isclose(design.y_second_moment, y2, rel_tol=1e-12)
    np.testing.assert_allclose(design.w_star, registered.w_star, rtol=1e-12)
    norm = "l2" if setting == "ridge" else "l1"
    assert design.satisfies(norm, 1.5) == registered.satisfies(norm, 1.5)
    assert design.y_bound <= registered.y_bound * (1 + 1e-12)
    _, y = design.materialize()
    assert np.all(np.abs(y) <= registered.y_bound * (1 + 1e-12))


@pytest.mark.parametrize("setting", ["ridge", "lasso"])
def test_decaying_stream_is_the_registered_design_bit_for_bit(setting):
    d = 9
    registered = decaying_bounded_design(d, -1.5, setting=setting, B=1.2, noise=0.1)
    design = decaying_stream(20, d, -1.5, setting=setting, B=1.2, noise=0.1, s=d if setting == "ridge" else None,
                             random_state=21)
    X, y = design.materialize()
    X_reg, y_reg = registered.sample(20, 21)
    np.testing.assert_array_equal(X, X_reg)
    np.testing.assert_array_equal(y, y_reg)
    # a sparse w* (the default for Ridge) keeps the attributes and |y| ≤ B
    sparse = decaying_stream(20, d, -1.5, setting=setting, B=1.2, noise=0.1, random_state=21)
    np.testing.assert_array_equal(sparse.materialize()[0], X)
    assert sparse.s == 3 and sparse.satisfies("l2" if setting == "ridge" else "l1", 1.2)


def test_risk_is_exact():
    design = decaying_stream(10, 6, -1.0, setting="ridge", B=1.0, noise=0.3, s=2, random_state=0)
    second, cross, y2 = design.moments
    w = np.linspace(-0.3, 0.2, 6)
    assert math.isclose(design.risk(w), float(w @ second @ w - 2 * w @ cross + y2), rel_tol=1e-12)
    assert math.isclose(design.risk(design.w_star), design.noise_amp**2, rel_tol=1e-12)


# ---------------------------------------------------------------------------------------
# bad input: one ParameterError with a clear message


@pytest.mark.parametrize("make, words", [
    (lambda: hypercube_stream(10, 0), "d"),
    (lambda: hypercube_stream(0, 5), "n_samples"),
    (lambda: hypercube_stream(10, 5, s=6), "s"),
    (lambda: hypercube_stream(10, 5, noise=1.0), "noise"),
    (lambda: hypercube_stream(10, 5, B=0.0), "B"),
    (lambda: hypercube_stream(10, 5, x_dist="gauss"), "x_dist"),
    (lambda: hypercube_stream(10, 5, log_reads=10), "count_reads"),
    (lambda: decaying_stream(10, 5, 1.0), "alpha"),
    (lambda: decaying_stream(10, 5, setting="svr"), "setting"),
    (lambda: StreamingDesign(10, 3, p=[0.5, 2.0, 0.5]), "p must lie in [0, 1]"),
    (lambda: StreamingDesign(10, 3, hi=[1.0, 1.0]), "hi must be a number or have d = 3 entries"),
    (lambda: StreamingDesign(10, 3, hi=np.inf), "hi must be finite"),
    (lambda: StreamingDesign(10, 3, support=[0, 1], weights=[1.0]), "same length"),
    (lambda: StreamingDesign(10, 3, support=[0, 3], weights=[1.0, 1.0]), "support indices must lie in 0..2"),
    (lambda: StreamingDesign(10, 3, support=[1, 1], weights=[1.0, 1.0]), "distinct"),
    (lambda: StreamingDesign(10, 3, kind="normal"), "kind"),
    (lambda: StreamingDesign(10, 3, kind="uniform", hi=-1.0, lo=1.0), "lo ≤ hi"),
    (lambda: stream_design("ridge", "product_sign", {"d": 5, "B": 1.0, "noise": 0.0}, 10), "dense"),
    (lambda: stream_design("ridge", "correlated", {"d": 5, "B": 1.0, "noise": 0.0, "rho": 0.2}, 10,
                           allow_dense=True), "latent sign"),
    (lambda: stream_design("lasso", "nonesuch", {"d": 5}, 10), "unknown lasso design"),
    (lambda: stream_design("lasso", "sparse", {"d": 5, "B": 1.0, "noise": 0.0}, 10), "'s'"),
    (lambda: hypercube_stream(10, 5).n_values_produced, "count_reads=True"),
    (lambda: hypercube_stream(10, 5).attribute(10, 0), "t must lie in 0..9"),
    (lambda: hypercube_stream(10, 5).attribute(0, 5), "i must lie in 0..4"),
    (lambda: hypercube_stream(10, 5, random_state=-1), "random_state"),
])
def test_bad_streams_raise_one_clear_error(make, words):
    with pytest.raises(ParameterError) as err:
        make()
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_an_overflowing_log_says_so():
    design = hypercube_stream(10, 5, count_reads=True, log_reads=1)
    design.attributes(0, [0, 1])
    assert design.n_values_produced == 2
    with pytest.raises(ParameterError, match="larger log_reads"):
        _ = design.reads


def test_learners_refuse_a_stream_they_cannot_read_and_bad_calls():
    design = hypercube_stream(20, 5, random_state=0)
    X, y = design.materialize()
    for learner in (AER(k=2), OnlineGradientDescent()):
        with pytest.raises(ParameterError, match="does not read a streaming design"):
            learner.fit(design, None)
    with pytest.raises(ParameterError, match="carries its labels"):
        AERR(k=2).fit(design, y)
    with pytest.raises(ParameterError, match="exceeds the number of attributes"):
        AELR(k=6).fit(design)
    with pytest.raises(ParameterError, match="requires y"):
        AERR(k=2).fit(X)
    model = AERR(k=2, random_state=0).fit(design)
    with pytest.raises(ParameterError, match="predict reads every attribute"):
        model.predict(design)
    np.testing.assert_array_equal(model.predict(X), X @ model.coef_)
