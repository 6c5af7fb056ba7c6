"""Plain learners probed as black boxes (issue 55 item 4): the first two steps of a learner that records no path,
recovered from w̄ alone.

A fit on the first t examples returns w̄_t = (1/t) Σ_{s≤t} w_s, so fits on 1, 2 and 3 examples at the same random
state give the iterates w_1, w_2 = 2w̄_2 − w_1 and w_3 = 3w̄_3 − w_1 − w_2, as long as the learner's first draws do not
depend on how many examples it is given (two fits that disagree on a shared prefix are reported, not guessed at).
Its step then gives the estimate it used, at the η it is given (:func:`steps_of`):

* on the L2 ball, g̃_t = (w_t − w_{t+1})/η while the step stays inside the ball (the probe's η keeps it there; a step
  that reaches the sphere is not identifiable and is reported);
* for the L1 learners (EG± from w_1 = 0), w_{t+1} = B(p⁺ − p⁻) with p^± ∝ exp(∓η S_t), S_t = Σ_{s≤t} ḡ_s, so
  w_i/B = −2 sinh(η S_i)/Z with Z = Σ_i 2 cosh(η S_i): Z is the root of Z = Σ_i 2√(1 + (w_i Z/(2B))²) and
  S_i = −asinh(w_i Z/(2B))/η (exact up to rounding, about 10⁻¹² relative); ḡ_t = S_t − S_{t−1}, which is g̃_t where
  the clip at 1/η does not bind (the probe's η keeps it from binding on the example).

The estimator check then counts (w_t, g̃_t) as it counts a recorded path: step 1 at w_1 and step 2 at each w_2 the
runs reach, where the inner-product attribute j is drawn ∝ w_j² or |w_j| (at w_1 = 0 it is not drawn at all)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import brentq

#: iterates are grouped by their value rounded to this many decimals (the recovery is exact up to ~10⁻¹²)
KEY_DECIMALS = 10


class Unidentified(Exception):
    """The learner's steps cannot be read from its w̄ (a projected step, fits that disagree, a non-finite w̄)."""


def _mean(make, keywords: dict, state: int, X, y) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coef = np.asarray(make(**keywords, random_state=state).fit(X, y).coef_, dtype=np.float64).ravel()
    if coef.shape != (X.shape[1],) or not np.all(np.isfinite(coef)):
        raise Unidentified(f"w̄ of a fit on {X.shape[0]} example(s) is {coef.tolist()}, not {X.shape[1]} finite numbers")
    return coef


def iterates(make, keywords: dict, state: int, X, y, steps: int = 3) -> np.ndarray:
    """w_1..w_steps of a plain learner from fits on its first 1..steps examples at one random state (raises the
    learner's own exception when its fit raises)."""
    means = [_mean(make, keywords, state, X[:t], y[:t]) for t in range(1, steps + 1)]
    w = []
    for t, mean in enumerate(means, start=1):
        w.append(t * mean - sum(w, np.zeros_like(mean)))
    return np.array(w)


def _eg_sums(w: np.ndarray, B: float, eta: float) -> np.ndarray:
    """S with w = B(p⁺ − p⁻), p^± ∝ exp(∓η S) (the EG± iterate from a uniform start), recovered from w."""
    r = w / B
    if np.abs(r).sum() >= 1.0:
        raise Unidentified(f"‖w‖₁ = {float(np.abs(w).sum()):.6g} reaches B: no EG± iterate from a uniform start")
    d = len(w)

    def gap(Z):
        return float(np.sum(2.0 * np.sqrt(1.0 + (r * Z / 2.0) ** 2)) - Z)

    low, high = 2.0 * d, 4.0 * d
    while gap(high) > 0.0:
        high *= 2.0
        if high > 1e300:
            raise Unidentified("the EG± normaliser could not be recovered")
    try:
        Z = brentq(gap, low, high, xtol=1e-15 * high, rtol=1e-15, maxiter=500) if gap(low) > 0.0 else low
    except (ValueError, RuntimeError) as err:
        raise Unidentified(f"the EG± normaliser could not be recovered: {err}") from None
    return -np.arcsinh(r * Z / 2.0) / eta


def steps_of(w: np.ndarray, norm: str, B: float, eta: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(w_t, g̃_t)] of the steps between the iterates ``w`` (rows), for the L2 or L1 learners' update."""
    out = []
    if norm == "l2":
        for t in range(len(w) - 1):
            if np.linalg.norm(w[t + 1]) >= B * (1.0 - 1e-9):
                raise Unidentified(f"w_{t + 2} lies on the sphere ‖w‖₂ = B: the step may be projected")
            out.append((w[t], (w[t] - w[t + 1]) / eta))
        return out
    if np.any(w[0] != 0.0):
        raise Unidentified(f"w_1 = {w[0].tolist()}, not the uniform start w_1 = 0 of the EG± learners")
    sums = [np.zeros(w.shape[1])] + [_eg_sums(w[t], B, eta) for t in range(1, len(w))]
    return [(w[t], sums[t + 1] - sums[t]) for t in range(len(w) - 1)]


def key(w: np.ndarray) -> tuple:
    """The grouping key of an iterate recovered from w̄."""
    return tuple(float(v) for v in np.round(w, KEY_DECIMALS) + 0.0)


def etas_from_first_step(w1: np.ndarray, w2: np.ndarray, outcomes: np.ndarray, norm: str, B: float) -> list[float]:
    """Every η > 0 for which the first step w_1 → w_2 is η times one of ``outcomes`` (the law's estimates at w_1,
    rows): w_1 − w_2 = η g̃ (L2), or η ḡ_1 = S from the EG± inversion at η = 1 (L1). Several when estimates share a
    direction (the same draws with another j); none when no estimate fits or the step is not identifiable."""
    try:
        step = w1 - w2 if norm == "l2" else _eg_sums(w2, B, 1.0)  # L1: η·ḡ_1 from w_1 = 0
    except Unidentified:
        return []
    if norm == "l2" and np.linalg.norm(w2) >= B * (1.0 - 1e-9):
        return []
    found = []
    for g in outcomes:
        nonzero = np.abs(g) > 0
        if not nonzero.any() or np.any((np.abs(step) > 1e-12 * np.abs(step).max()) & ~nonzero):
            continue
        ratios = step[nonzero] / g[nonzero]
        if ratios[0] > 0 and np.allclose(ratios, ratios[0], rtol=1e-7):
            found.append(float(ratios[0]))
    return found


__all__ = ["Unidentified", "etas_from_first_step", "iterates", "key", "steps_of"]
