"""Argument checks shared by every public function.

Each check raises :class:`ParameterError` with one readable sentence; the command line turns
it into a one-line message and exit status 2.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np


class ParameterError(ValueError):
    """A parameter or an input that the paper's hypotheses (or plain sense) rule out."""


def check_int(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int, or raise if it is not an integer in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if low is not None and value < low:
        raise ParameterError(f"{name} must be at least {low}, got {value}")
    if high is not None and value > high:
        raise ParameterError(f"{name} must be at most {high}, got {value}")
    return value


def check_real(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    strict_low: bool = False,
    strict_high: bool = False,
) -> float:
    """Return ``value`` as a finite float inside the given (open or closed) interval."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ParameterError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ParameterError(f"{name} must be finite, got {value}")
    if low is not None and (value <= low if strict_low else value < low):
        raise ParameterError(f"{name} must be {'>' if strict_low else '>='} {low}, got {value}")
    if high is not None and (value >= high if strict_high else value > high):
        raise ParameterError(f"{name} must be {'<' if strict_high else '<='} {high}, got {value}")
    return value


def check_budget(k, d, *, name: str = "k", low: int = 1) -> tuple[int, int]:
    """Check an attribute budget: d ≥ 1 and low ≤ k ≤ d."""
    d = check_int("d", d, low=1)
    k = check_int(name, k, low=low)
    if k > d:
        raise ParameterError(f"{name} must not exceed d (the number of attributes): {name}={k}, d={d}")
    return k, d


def check_delta(delta) -> float:
    """A confidence parameter δ in (0, 1)."""
    return check_real("delta", delta, low=0.0, high=1.0, strict_low=True, strict_high=True)


def check_matrix(name: str, X, *, ndim: int = 2) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 array of the given rank with finite entries."""
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ParameterError(f"{name} must be numeric: {err}") from None
    if arr.ndim != ndim:
        raise ParameterError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} contains NaN or infinite values")
    return np.ascontiguousarray(arr)
