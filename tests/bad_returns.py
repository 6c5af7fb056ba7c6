"""Subjects that return what their contract excludes (tests/test_contracts_and_cache.py): each is SUBJECT-ERROR naming
it, never ERROR. Importable by name, so a worker process can load them."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorycheck.algorithms.sk13 import make_psd

#: what make_psd may wrongly return, by name
PSD_RETURNED = {"nan": np.full((2, 2), np.nan), "inf": float("inf"), "none": None, "text": "psd", "scalar": 1.0,
                "cube": np.zeros((2, 2, 2)), "objects": np.array([[object(), None]], dtype=object)}


def _psd_returning(name):
    def psd(A):
        return PSD_RETURNED[name] if np.shape(A) == (2, 2) else make_psd(A)

    psd.__name__ = psd.__qualname__ = f"psd_returns_{name}"
    return psd


for _name in PSD_RETURNED:
    globals()[f"psd_returns_{_name}"] = _psd_returning(_name)


def law_with_nan(q, k):
    """The balls-bins law with a NaN probability."""
    return [(float("nan"), 0), (Fraction(1), len(q))]


def average_huge(values):
    """An int no float can hold."""
    return 10 ** 10000


