"""The **recording** check of a regressor: a fit that records its path returns the same w̄ as one that does not.

The estimator and step checks read what a learner records; a learner that behaves otherwise when it is not asked to
record (and the claims never ask) would pass them while the claims run another algorithm. Fitting the same data with
the same random state twice, with and without ``record_trajectory=True``, closes that door: the two w̄ must be equal,
bit for bit or to rounding. The instance is larger than the other checks' (m = 1 200 examples, d = 80, k two above the
algorithm's default), so a learner whose recording switch is gated on size, k or d shows here too."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import stats
from .core import Check, Spec, _keywords, _not_run

#: the instance: examples, attributes, and how far k is above the algorithm's default
RECORDING_M, RECORDING_D, RECORDING_K_ABOVE = 1200, 80, 2
#: two w̄ are the same when they differ by at most this, relative to the larger entry (summation order aside)
RECORDING_RTOL = 1e-12


def _recording_check(spec: Spec, make, B, seed) -> Check:
    """Fit once plainly and once with ``record_trajectory=True`` at the same random state; FAIL if the w̄ differ."""
    m, d, k = RECORDING_M, RECORDING_D, spec.k + RECORDING_K_ABOVE
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(m, d)) / math.sqrt(d)  # ‖x‖₂ ≤ 1, so ‖x‖∞ ≤ 1 as well
    y = np.clip(X @ rng.normal(size=d) + 0.1 * rng.normal(size=m), -B, B)
    state = int(seed.generate_state(1)[0])
    keywords = _keywords(spec, k, B, None, d)  # the learner's own step-size rule
    where = f"m = {m}, d = {d}, k = {k}, B = {B:g}, its own step size"
    try:
        recorder = make(**keywords, random_state=state, record_trajectory=True)
    except Exception as err:  # a learner without the keyword: nothing recorded, nothing to compare
        return _not_run("recording", "the learner cannot be built with record_trajectory=True: it never records, "
                        f"so no recorded fit differs from its plain one ({type(err).__name__}: {err})",
                        {"cannot_record": True})
    fits = []
    for model, how in ((make(**keywords, random_state=state), "plain"), (recorder, "recorded")):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits.append(np.asarray(model.fit(X, y).coef_, dtype=np.float64).ravel())
        except Exception as err:  # the subject's failure, with its cause
            cause = f"the {how} fit at {where} raised {type(err).__name__}: {err}"
            return Check("recording", stats.FAIL, cause[0].upper() + cause[1:], cause=cause, raised=True)
    plain, recorded = fits
    if plain.shape != recorded.shape:
        cause = f"the recorded fit's w̄ has shape {recorded.shape}, the plain fit's {plain.shape} ({where})"
        return Check("recording", stats.FAIL, cause[0].upper() + cause[1:], cause=cause)
    scale = max(float(np.max(np.abs(plain), initial=0.0)), float(np.max(np.abs(recorded), initial=0.0)), 1e-300)
    gap = float(np.max(np.abs(plain - recorded), initial=0.0))
    text = (f"one fit with record_trajectory=True and one without, same random state, at {where}: the w̄ differ by "
            f"{gap:.3g} at most (relative {gap / scale:.3g}); the same means within {RECORDING_RTOL:g} relative. "
            "Exact up to rounding: no false-FAIL rate")
    if not (np.all(np.isfinite(plain)) and np.all(np.isfinite(recorded))) or gap > RECORDING_RTOL * scale:
        return Check("recording", stats.FAIL, text + ". Recording changed the fit, so what the other checks read is "
                     "not what the claims run", cause=f"recording changed the fit: w̄ differ by {gap:.3g} at {where}")
    return Check("recording", stats.PASS, text)
