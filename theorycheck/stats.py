"""Calibrated statistics: confidence bounds with a stated error rate, and rate fits.

Every function that decides something takes the error rate δ it is allowed and returns the
interval it used, so a verdict can be traced to an inequality:

* :func:`hoeffding_interval` for i.i.d. variables in a known range [a, b];
* :func:`bernstein_interval`, the empirical Bernstein bound of Maurer & Pontil (2009,
  Thm 4), which adapts to a small variance and still needs only the range;
* :func:`anderson_interval`, Anderson's (1969) DKW-based interval for a bounded mean, whose
  lower end needs no range term, and :func:`bounded_mean_interval`, its intersection with
  the empirical Bernstein interval;
* :func:`binomial_interval`, the exact Clopper–Pearson interval for a frequency;
* :func:`slope_box`, a calibrated interval for a log–log slope from per-point intervals;
* :func:`loglog_slope`, an ordinary least-squares slope of log y on log x with a Student-t
  interval (the errors of the log means are treated as i.i.d. Gaussian; the interval is
  approximate, and claims that gate a verdict on it say so);
* :func:`samples_for_resolution`, how many samples a Hoeffding test needs to detect a given
  discrepancy at level δ (the TFP ``min_num_samples`` idea).

:func:`decide_at_most` / :func:`decide_at_least` turn an interval into a verdict for a claim of
the form "E[X] ≤ bound" / "E[X] ≥ bound": FAIL only when the whole interval lies on the wrong
side (false-FAIL rate ≤ δ when the claim holds), PASS when the interval is on the right side
up to the declared resolution, INCONCLUSIVE otherwise.

Every decision a claim makes goes through one of the ``decide_*`` functions below, named in
one grammar, ``decide_<quantity>_<relation>``, each with its companions in the manner of
TensorFlow Probability's ``statistical_testing``: ``min_samples_*`` (how many samples a
decision needs at a given resolution) and ``min_discrepancy_*`` (the smallest violation a
given number of samples detects with probability ≥ 1 − δ).

=============================  ==========================================  ===================
decision                       false-FAIL rate, and how it is derived        companions
=============================  ==========================================  ===================
decide_exact                   0: every outcome enumerated in rationals     —
decide_always                  0: a pathwise statement, one violation        —
                               beyond the stated rounding is certain
decide_mean_at_most / _least   ≤ δ: empirical Bernstein ∩ Anderson (DKW)    min_samples_mean,
                               interval on values in a known range          min_discrepancy_mean
decide_mean_equals             ≤ δ: Hoeffding ∩ empirical Bernstein          min_samples_mean
decide_mean_in_range_at_most   ≤ δ inside the range; outside it, the side   —
                               whose Anderson end stays valid decides
decide_mean_within             ≤ δ: any of the intervals above               —
decide_frequency_at_most       ≤ δ/2: exact Clopper–Pearson on i.i.d.       min_trials_frequency
                               violation indicators
decide_slope_at_most           ≈ δ/2: percentile bootstrap over the runs    (the interval's
                               at each level (asymptotic, stated as such)   half-width)
decide_martingale_mean_zero    ≤ δ: Azuma–Hoeffding on sums of martingale   min_discrepancy_
                               increments with predictable a.s. ranges,     martingale
                               union bound over the sums
decide_median_at_least /       ≤ δ/2 per side: order-statistic (sign-test)   min_samples_median
decide_median_within           interval for a median, exact for any law,
                               no range needed (e.g. paired differences)
decide_sequential              ≤ δ/2 per wrong side: a group-sequential     looks,
                               design, K looks each at δ/K (union bound:     simulate_sequential,
                               the K intervals hold at once, so any         min_effect_median,
                               stopping rule keeps it), median, mean or     decision_width,
                               the conditional sign test; :func:`classify`  rule_text
                               reads the relation and question the paper
                               states into its outcomes
=============================  ==========================================  ===================

:func:`combine` is the one verdict combiner: FAIL if any part fails, then NOT REPRODUCED (an
experiment's result against the paper, with the reference implementations), PASS if every part
passes, INCONCLUSIVE otherwise.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _sps

from .validation import ParameterError, check_delta
from .verdicts import Verdict

# the verdicts a decision gives, by the names the decision rules and the kinds use (defined in theorycheck.verdicts)
PASS, FAIL, INCONCLUSIVE, NOT_REPRODUCED = Verdict.PASS, Verdict.FAIL, Verdict.INCONCLUSIVE, Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class Interval:
    """A confidence interval [low, high] for a mean, valid with probability ≥ 1 − delta."""

    estimate: float
    low: float
    high: float
    delta: float
    method: str
    n: int

    @property
    def half_width(self) -> float:
        return 0.5 * (self.high - self.low)

    def describe(self) -> str:
        return (
            f"{self.method}: mean {self.estimate:.6g} in [{self.low:.6g}, {self.high:.6g}] "
            f"with probability ≥ 1 − {self.delta:.3g} (n = {self.n})"
        )


def _split(delta: float, sides: int) -> float:
    if sides not in (1, 2):
        raise ParameterError(f"sides must be 1 or 2, got {sides}")
    return check_delta(delta) / sides


def _as_sample(values) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size == 0:
        raise ParameterError("a confidence interval needs at least one observation")
    if not np.all(np.isfinite(x)):
        raise ParameterError("observations contain NaN or infinite values")
    return x


def _check_range(x: np.ndarray, a: float, b: float) -> None:
    if not b > a:
        raise ParameterError(f"the range [a, b] must have b > a, got [{a}, {b}]")
    if x.min() < a or x.max() > b:
        raise ParameterError(
            f"observations leave the declared range [{a}, {b}]: min {x.min()}, max {x.max()}"
        )


def hoeffding_interval(values, a: float, b: float, delta: float) -> Interval:
    """Two-sided Hoeffding interval for the mean of i.i.d. variables in [a, b].

    Each side fails with probability ≤ δ/2, so the interval fails with probability ≤ δ.
    Half-width: (b − a)·√(ln(2/δ) / (2n)).
    """
    x = _as_sample(values)
    _check_range(x, a, b)
    n = x.size
    eps = (b - a) * math.sqrt(math.log(1.0 / _split(delta, 2)) / (2.0 * n))
    m = float(x.mean())
    return Interval(m, max(a, m - eps), min(b, m + eps), delta, "Hoeffding", n)


def bernstein_interval(values, a: float, b: float, delta: float) -> Interval:
    """Two-sided empirical Bernstein interval (Maurer & Pontil 2009, Theorem 4).

    With V the unbiased sample variance and R = b − a, each side is
    √(2V ln(4/δ)/n) + 7R ln(4/δ)/(3(n − 1)), valid with probability ≥ 1 − δ/2 per side.
    """
    x = _as_sample(values)
    _check_range(x, a, b)
    var = float(x.var(ddof=1)) if x.size > 1 else 0.0
    return bernstein_from_moments(x.size, float(x.mean()), var, a, b, delta)


def bernstein_from_moments(n: int, mean: float, var: float, a: float, b: float, delta: float) -> Interval:
    """:func:`bernstein_interval` from the count, mean and unbiased variance of the sample
    (as pooled by :func:`pool_moments`), for samples too large to keep."""
    if not b > a:
        raise ParameterError(f"the range [a, b] must have b > a, got [{a}, {b}]")
    if n < 2:
        return Interval(mean, a, b, delta, "empirical Bernstein", n)
    log_term = math.log(2.0 / _split(delta, 2))
    eps = math.sqrt(2.0 * max(var, 0.0) * log_term / n) + 7.0 * (b - a) * log_term / (3.0 * (n - 1))
    return Interval(mean, max(a, mean - eps), min(b, mean + eps), delta, "empirical Bernstein", n)


def pool_moments(counts, means, variances) -> tuple[int, float, float]:
    """Merge (count, mean, unbiased variance) of disjoint samples into those of their union."""
    counts = np.asarray(counts, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    variances = np.asarray(variances, dtype=np.float64)
    n = counts.sum()
    mean = float((counts * means).sum() / n)
    sq = ((counts - 1.0) * variances).sum() + (counts * (means - mean) ** 2).sum()
    return int(n), mean, float(sq / (n - 1.0)) if n > 1 else 0.0


def anderson_interval(values, a: float, b: float, delta: float) -> Interval:
    """Anderson's (1969) interval for the mean of i.i.d. variables in [a, b].

    With ε = √(ln(2/δ)/(2n)), the two-sided Dvoretzky–Kiefer–Wolfowitz inequality with
    Massart's constant gives sup_t |F_n(t) − F(t)| ≤ ε with probability ≥ 1 − δ, for every
    distribution. On that event the survival function S = 1 − F lies between S_n − ε and
    S_n + ε (clipped to [0, 1]), and the mean a + ∫_a^b S(t) dt lies between the two
    integrals. Unlike Bernstein's bound, the lower end needs no range term: when the values
    concentrate well above a, it stays close to the sample mean even for a wide [a, b].
    """
    x = np.sort(np.asarray(values, dtype=np.float64).ravel())
    n = x.size
    if n == 0:
        raise ParameterError("a confidence interval needs at least one observation")
    if not b > a or x[0] < a or x[-1] > b:
        raise ParameterError(f"observations leave the declared range [{a}, {b}]: min {x[0]}, max {x[-1]}")
    eps = math.sqrt(math.log(2.0 / check_delta(delta)) / (2.0 * n))
    edges = np.concatenate([[a], x, [b]])
    gaps = np.diff(edges)  # gap j spans [x_(j), x_(j+1)), where n − j values exceed t
    survival = (n - np.arange(n + 1)) / n
    low = a + float(gaps @ np.clip(survival - eps, 0.0, 1.0))
    high = a + float(gaps @ np.clip(survival + eps, 0.0, 1.0))
    return Interval(float(x.mean()), low, high, delta, "Anderson (DKW)", n)


def bounded_mean_interval(values, upper: float, delta: float) -> Interval:
    """Interval for the mean of i.i.d. variables in [0, upper], valid with probability ≥ 1 − δ.

    The intersection of the empirical Bernstein interval (Maurer & Pontil 2009, Thm 4) and
    Anderson's interval, each at δ/2 (union bound): Bernstein is the tighter one for values
    spread near 0, Anderson's lower end the tighter one for values concentrated far from 0.
    """
    bern = bernstein_interval(values, 0.0, upper, delta / 2.0)
    ander = anderson_interval(values, 0.0, upper, delta / 2.0)
    low, high = max(bern.low, ander.low), min(bern.high, ander.high)
    return Interval(bern.estimate, low, high, delta, "empirical Bernstein ∩ Anderson", bern.n)


def slope_box(x, intervals) -> tuple[float, float]:
    """Range of the least-squares slope of log(mean) on log(x) when each mean lies in its interval.

    The slope is Σ c_i·log μ_i with c_i = (log x_i − mean log x)/Σ(log x − mean log x)², linear
    in the log-means, so over the box of intervals its extremes take each μ_i at an end of
    its interval. If every interval holds (probability ≥ 1 − Σδ_i by the union bound), the
    slope through the true means lies in the returned range. A lower end at 0 gives ±∞.
    """
    lx = np.log(np.asarray(x, dtype=np.float64))
    c = (lx - lx.mean()) / float(((lx - lx.mean()) ** 2).sum())
    with np.errstate(divide="ignore"):
        log_low = np.log(np.array([max(iv.low, 0.0) for iv in intervals]))
        log_high = np.log(np.array([iv.high for iv in intervals]))
    lo_terms = np.where(c > 0, c * log_low, c * log_high)
    hi_terms = np.where(c > 0, c * log_high, c * log_low)
    with np.errstate(invalid="ignore"):
        return float(np.sum(lo_terms)), float(np.sum(hi_terms))


def binomial_interval(successes: int, trials: int, delta: float) -> Interval:
    """Exact two-sided Clopper–Pearson interval for a success probability."""
    if trials < 1 or not 0 <= successes <= trials:
        raise ParameterError(f"need 0 ≤ successes ≤ trials and trials ≥ 1, got {successes}/{trials}")
    half = _split(delta, 2)
    low = 0.0 if successes == 0 else float(_sps.beta.ppf(half, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(_sps.beta.ppf(1 - half, successes + 1, trials - successes))
    return Interval(successes / trials, low, high, delta, "Clopper–Pearson", trials)


def samples_for_resolution(resolution: float, value_range: float, delta: float) -> int:
    """Samples a two-sided Hoeffding interval needs for a half-width ≤ ``resolution``.

    n ≥ R² ln(2/δ) / (2ε²): with that many samples, a discrepancy larger than 2ε between the
    mean and a bound is detected with probability ≥ 1 − δ.
    """
    if resolution <= 0 or value_range <= 0:
        raise ParameterError("resolution and range must be positive")
    return math.ceil(value_range**2 * math.log(2.0 / check_delta(delta)) / (2.0 * resolution**2))


def bernstein_samples_needed(variance: float, value_range: float, delta: float, resolution: float) -> int:
    """Samples for the two-sided empirical Bernstein half-width to fall below ``resolution``
    when the variance is ``variance`` (solves √(2VL/n) + 7RL/(3n) ≤ ε for n, L = ln(4/δ))."""
    if resolution <= 0 or value_range <= 0:
        raise ParameterError("resolution and range must be positive")
    log_term = math.log(4.0 / check_delta(delta))
    a = math.sqrt(2.0 * max(variance, 0.0) * log_term)
    c = 7.0 * value_range * log_term / 3.0
    # ε n − a √n − c ≥ 0 is a quadratic in √n.
    root = (a + math.sqrt(a * a + 4.0 * resolution * c)) / (2.0 * resolution)
    return math.ceil(root * root) + 1


def union_delta(deltas) -> float:
    """Family-wise false-fail rate of several tests by the union bound (Bonferroni)."""
    return float(min(1.0, sum(d for d in deltas if d is not None)))


def delta_shares(deltas) -> list[float | None]:
    """Each test's share of the union bound: its δ over the sum of the δ (None for a test without δ,
    and for every test when the sum is 0)."""
    deltas = list(deltas)
    total = sum(d for d in deltas if d is not None)
    return [None if d is None or total <= 0 else float(d / total) for d in deltas]


@dataclass(frozen=True)
class Decision:
    """A verdict and the sentence that explains it."""

    verdict: str
    reason: str


def decide_at_most(interval: Interval, bound: float, resolution: float) -> Decision:
    """Verdict for the claim "mean ≤ bound".

    FAIL if the interval lies entirely above the bound (probability ≤ δ when the claim holds);
    PASS if its upper end is ≤ bound + resolution, so any violation larger than
    ``resolution`` would have been seen with probability ≥ 1 − δ; INCONCLUSIVE otherwise.
    """
    if interval.low > bound:
        return Decision(FAIL, f"{interval.describe()}; the whole interval exceeds the bound {bound:.6g}")
    if interval.high <= bound + resolution:
        return Decision(
            PASS,
            f"{interval.describe()}; upper end ≤ bound {bound:.6g} + resolution {resolution:.3g}",
        )
    return Decision(
        INCONCLUSIVE,
        f"{interval.describe()}; the interval straddles bound {bound:.6g} by more than the "
        f"resolution {resolution:.3g}: more samples are needed",
    )


def decide_at_least(interval: Interval, bound: float, resolution: float) -> Decision:
    """Verdict for the claim "mean ≥ bound" (mirror image of :func:`decide_at_most`)."""
    if interval.high < bound:
        return Decision(FAIL, f"{interval.describe()}; the whole interval is below the bound {bound:.6g}")
    if interval.low >= bound - resolution:
        return Decision(
            PASS,
            f"{interval.describe()}; lower end ≥ bound {bound:.6g} − resolution {resolution:.3g}",
        )
    return Decision(
        INCONCLUSIVE,
        f"{interval.describe()}; the interval straddles bound {bound:.6g} by more than the "
        f"resolution {resolution:.3g}: more samples are needed",
    )


@dataclass(frozen=True)
class SlopeFit:
    """Least-squares slope of log y against log x with a (1 − δ) confidence interval."""

    slope: float
    low: float
    high: float
    intercept: float
    delta: float
    n: int

    def describe(self) -> str:
        return (
            f"log–log slope {self.slope:.3f}, {100 * (1 - self.delta):.4g}% interval "
            f"[{self.low:.3f}, {self.high:.3f}] from {self.n} points"
        )


def loglog_slope(x, y, delta: float) -> SlopeFit:
    """Fit log y = a + s·log x by least squares; Student-t interval for s at level 1 − δ.

    The points should be means over repetitions at each x (the experimental order of
    convergence of pytools' EOCRecorder). Needs at least three points with positive values.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape or x.size < 3:
        raise ParameterError("a slope fit needs at least three (x, y) pairs of equal length")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ParameterError("a log–log fit needs positive x and y")
    lx, ly = np.log(x), np.log(y)
    res = _sps.linregress(lx, ly)
    dof = x.size - 2
    t = float(_sps.t.ppf(1.0 - check_delta(delta) / 2.0, dof))
    return SlopeFit(
        float(res.slope),
        float(res.slope - t * res.stderr),
        float(res.slope + t * res.stderr),
        float(res.intercept),
        delta,
        int(x.size),
    )


def bootstrap_slope(x, y, delta: float, *, n_boot: int = 2000, seed: int = 0) -> SlopeFit:
    """Slope of log(mean y) on log x with a percentile bootstrap interval.

    ``x`` and ``y`` hold every observation (several repetitions per x value). Resampling is
    over the repetitions within each x, which keeps the design fixed; the interval holds
    asymptotically, not at a finite-sample level, and claims that use it say so.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    levels = np.unique(x)
    if levels.size < 3:
        raise ParameterError("a slope fit needs at least three distinct x values")
    per_level = [y[x == lv] for lv in levels]
    means = np.array([v.mean() for v in per_level])
    point = loglog_slope(levels, means, delta)
    rng = np.random.default_rng(seed)
    slopes = np.empty(n_boot)
    lx = np.log(levels)
    lx_c = lx - lx.mean()
    denom = float(lx_c @ lx_c)
    for b in range(n_boot):
        boot_means = np.array([v[rng.integers(0, v.size, v.size)].mean() for v in per_level])
        if np.any(boot_means <= 0):
            slopes[b] = np.nan
            continue
        ly = np.log(boot_means)
        slopes[b] = float(lx_c @ (ly - ly.mean())) / denom
    slopes = slopes[np.isfinite(slopes)]
    low, high = np.quantile(slopes, [delta / 2, 1 - delta / 2])
    return SlopeFit(point.slope, float(low), float(high), point.intercept, delta, int(levels.size))


# ---------------------------------------------------------------------------------------
# the one combiner and the decisions every kind uses


def combine(verdicts) -> str:
    """FAIL if any verdict is FAIL, else NOT REPRODUCED if any is, PASS if there is at least one and
    all are PASS, else INCONCLUSIVE."""
    verdicts = list(verdicts)
    if FAIL in verdicts:
        return FAIL
    if NOT_REPRODUCED in verdicts:
        return NOT_REPRODUCED
    if verdicts and all(v == PASS for v in verdicts):
        return PASS
    return INCONCLUSIVE


def decide_exact(failures: int, cases: int, what: str) -> Decision:
    """An exact check over ``cases`` enumerated cases: FAIL on any failure, with no error rate."""
    if cases == 0:
        return Decision(INCONCLUSIVE, f"no case of {what} was checked")
    if failures:
        return Decision(FAIL, f"{what} fails in {failures} of {cases} cases (exact: no error rate)")
    return Decision(PASS, f"{what} holds exactly in all {cases} cases")


def decide_always(violations: int, runs: int, what: str, slack: str = "") -> Decision:
    """A pathwise statement (it holds on every outcome): one violation beyond rounding is a
    certain FAIL; no violation in ``runs`` runs is a PASS of the runs observed."""
    extra = f" (rounding slack {slack})" if slack else ""
    if runs == 0:
        return Decision(INCONCLUSIVE, f"no run checked {what}")
    if violations:
        return Decision(FAIL, f"{what} is violated on {violations} of {runs} runs{extra}; it must hold on every "
                              "run, so this is certain")
    return Decision(PASS, f"{what} holds on all {runs} runs{extra}")


def min_samples_mean(resolution: float, upper: float, delta: float) -> int:
    """Samples for :func:`decide_mean_at_most` to resolve ``resolution`` on values in [0, upper]
    (worst case over the variance: the Hoeffding half-width, which the intersection never exceeds
    by more than the split of δ)."""
    return samples_for_resolution(resolution, upper, delta / 2.0)


def min_discrepancy_mean(n: int, upper: float, delta: float) -> float:
    """The smallest excess of the mean over a bound that ``n`` samples in [0, upper] reveal at
    level δ with probability ≥ 1 − δ (twice the worst-case Hoeffding half-width)."""
    if n < 1:
        raise ParameterError("need at least one sample")
    return 2.0 * upper * math.sqrt(math.log(4.0 / check_delta(delta)) / (2.0 * n))


def decide_mean_at_most(values, upper: float, bound: float, delta: float, resolution: float):
    """Decide "E[X] ≤ bound" from i.i.d. values in [0, upper].

    Returns (interval, decision, hint): the interval is :func:`bounded_mean_interval` at level δ,
    the decision :func:`decide_at_most` with ``resolution`` (absolute), and the hint says how
    many samples would decide an INCONCLUSIVE case (None otherwise).
    """
    values = np.asarray(values, dtype=np.float64)
    interval = bounded_mean_interval(values, upper, delta)
    decision = decide_at_most(interval, bound, resolution)
    hint = None
    if decision.verdict == INCONCLUSIVE:
        var = float(values.var(ddof=1)) if values.size > 1 else upper * upper / 4.0
        need = bernstein_samples_needed(var, upper, delta / 2.0, max(resolution, 1e-300))
        hint = f"about {need} samples (now {values.size}) would bring the interval under the resolution"
    return interval, decision, hint


def decide_mean_at_least(n: int, mean: float, var: float, upper: float, bound: float, delta: float,
                         resolution: float):
    """Decide "E[X] ≥ bound" from the pooled (count, mean, variance) of i.i.d. values in
    [0, upper] (empirical Bernstein); returns (interval, decision, hint)."""
    interval = bernstein_from_moments(n, mean, var, 0.0, upper, delta)
    decision = decide_at_least(interval, bound, resolution)
    hint = None
    if decision.verdict == INCONCLUSIVE:
        need = bernstein_samples_needed(var, upper, delta, max(resolution, 1e-300))
        hint = f"about {need} samples in all (now {n}) would bring the interval under the resolution"
    return interval, decision, hint


def min_trials_frequency(freq: float, target: float, delta: float) -> int | None:
    """Smallest n for which the Clopper–Pearson upper end at frequency ``freq`` is ≤ target, or
    None when freq ≥ target (no number of trials would show it)."""
    if freq >= target:
        return None
    n = 8
    while binomial_interval(round(freq * n), n, delta).high > target:
        n *= 2
        if n > 10**8:
            return None
    low, high = n // 2, n
    while high - low > 1:
        mid = (low + high) // 2
        if binomial_interval(round(freq * mid), mid, delta).high <= target:
            high = mid
        else:
            low = mid
    return high


def decide_frequency_at_most(certain: int, possible: int, trials: int, target: float, delta: float,
                             resolution: float, what: str):
    """Decide "P(violation) ≤ target" from i.i.d. trials.

    ``certain`` counts trials that surely violate, ``possible`` those that may (equal when each
    trial is decided exactly). FAIL when the Clopper–Pearson interval at level δ of the certain
    count lies above the target (false-FAIL rate ≤ δ/2: certain ≤ actual violations); PASS when
    the upper end for the possible count is ≤ target + resolution; INCONCLUSIVE otherwise.
    Returns (decision, hint).
    """
    low_int = binomial_interval(certain, trials, delta)
    high_int = binomial_interval(possible, trials, delta)
    if low_int.low > target:
        return Decision(FAIL, f"{certain}/{trials} {what}: Clopper–Pearson interval "
                              f"[{low_int.low:.4g}, {low_int.high:.4g}] at level δ = {delta:g} lies above "
                              f"the claimed violation probability {target:g}"), None
    if high_int.high <= target + resolution:
        return Decision(PASS, f"{possible}/{trials} {what}: Clopper–Pearson upper end {high_int.high:.4g} "
                              f"(level δ = {delta:g}) ≤ {target:g} + resolution {resolution:g}"), None
    need = min_trials_frequency(possible / trials, target + resolution, delta)
    hint = (f"about {need} trials at the same frequency would give PASS" if need else
            "the observed frequency is at or above the claimed probability; more trials would lean towards FAIL")
    counts = f"{certain}" if certain == possible else f"{certain} certain and {possible} possible"
    return Decision(INCONCLUSIVE, f"{counts}/{trials} {what}: interval [{low_int.low:.4g}, {high_int.high:.4g}] "
                                  f"straddles {target:g}"), hint


def decide_draws_follow(counts, probs, delta: float, what: str) -> Decision:
    """Decide "each run's recorded draws follow that run's own law" (a test of the law of the draws).

    ``counts`` (R, c): row r counts run r's draws in each of c categories; ``probs`` (R, c): row r the
    law run r's n_r = Σ_i counts[r, i] draws must follow, i.i.d. given the run (rows may differ: a law
    computed from the run's own first phase). Two tests at δ/2 each, both with an exact false-FAIL bound
    (no asymptotics):

    * per run: the exact binomial tails of counts[r, i] under Bin(n_r, p_ri) (each category's count is
      binomial under the law), Bonferroni over the 2·R·c tails: sees a run whose draws miss a
      category the law gives mass to, or fall in one it gives none;
    * pooled: N_i = Σ_r counts[r, i] is a sum of independent Bernoulli draws with mean μ_i = Σ_r n_r p_ri and
      variance v_i = Σ_r n_r p_ri(1 − p_ri); Bernstein's inequality P(±(N_i − μ_i) ≥ t) ≤ exp(−t²/(2(v_i + t/3)))
      at δ/(4c) per tail: sees a distortion that repeats from run to run, by about t_i/Σ n_r in frequency.

    FAIL if either rejects (false-FAIL rate ≤ δ), PASS otherwise; no runs or no draws: INCONCLUSIVE.
    """
    counts = np.asarray(counts, dtype=np.float64)
    probs = np.asarray(probs, dtype=np.float64)
    if counts.ndim != 2 or counts.shape != probs.shape:
        raise ParameterError(f"counts and probs must be (runs, categories) arrays of one shape, got {counts.shape} "
                             f"and {probs.shape}")
    n = counts.sum(axis=1)
    if counts.shape[0] == 0 or n.sum() == 0:
        return Decision(INCONCLUSIVE, f"no recorded draws to test {what}")
    delta = check_delta(delta)
    R, c = counts.shape
    probs = np.clip(probs, 0.0, 1.0)
    nn = np.broadcast_to(n[:, None], counts.shape)
    lower = _sps.binom.cdf(counts, nn, probs)
    upper = _sps.binom.sf(counts - 1, nn, probs)
    tail = np.minimum(lower, upper)
    run_level = delta / 2 / (2 * R * c)
    worst = np.unravel_index(int(np.argmin(tail)), tail.shape)
    mu = (nn * probs).sum(axis=0)
    var = (nn * probs * (1.0 - probs)).sum(axis=0)
    log_term = math.log(4 * c / delta)  # exp(−t²/(2(v + t/3))) = δ/(4c) at t = L/3 + √(L²/9 + 2vL)
    thresholds = log_term / 3 + np.sqrt(log_term**2 / 9 + 2 * var * log_term)
    dev = counts.sum(axis=0) - mu
    total = float(n.sum())
    shift = float(np.max(thresholds)) / total
    size = (f"{R} runs, {int(total)} draws; per-run tails at {run_level:.3g} each (Bonferroni over {2 * R * c}), "
            f"pooled Bernstein at {delta / (4 * c):.3g} per tail, rejecting a category whose pooled frequency is "
            f"off by more than {shift:.3g} at most")
    if tail[worst] <= run_level:
        r, i = int(worst[0]), int(worst[1])
        return Decision(FAIL, f"{what} fails: run {r} drew category {i} {int(counts[r, i])} times out of "
                              f"{int(n[r])} where its law gives probability {probs[r, i]:.4g} (expected "
                              f"{n[r] * probs[r, i]:.4g}; exact binomial tail {tail[worst]:.3g} ≤ {run_level:.3g}); "
                              f"{size}")
    if np.any(np.abs(dev) > thresholds):
        i = int(np.argmax(np.abs(dev) - thresholds))
        return Decision(FAIL, f"{what} fails: pooled over the runs, category {i} was drawn {int(mu[i] + dev[i])} "
                              f"times where the runs' laws expect {mu[i]:.6g} (Bernstein threshold "
                              f"±{thresholds[i]:.4g}, frequency {(mu[i] + dev[i]) / total:.4g} against "
                              f"{mu[i] / total:.4g}); {size}")
    return Decision(PASS, f"{what} holds: smallest per-run tail {tail[worst]:.3g} > {run_level:.3g} and every "
                          f"pooled count within its Bernstein threshold; {size}")


def decide_slope_at_most(x, y, exponent: float, delta: float, resolution: float, *, n_boot: int = 2000):
    """Decide "the log–log slope of E[y] against x is at most ``exponent``" (the one rate test).

    ``x``, ``y`` hold every run (several per level of x). The slope is the least-squares slope of
    log(mean y) on log x; its interval is a percentile bootstrap at level δ that resamples the
    runs within each level (:func:`bootstrap_slope`, fixed seed, so the verdict is reproducible).
    FAIL when the whole interval lies above ``exponent`` (false-FAIL rate ≈ δ/2, asymptotically),
    PASS when its upper end is ≤ exponent + resolution, INCONCLUSIVE otherwise. The bootstrap's
    error rate is asymptotic, not a finite-sample guarantee, and every page that uses it says so.
    Returns (fit, decision); fit is None when there is no fit (fewer than three levels, or a
    non-positive mean).
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    levels = np.unique(x)
    if levels.size < 3 or not np.all(np.isfinite(y)):
        return None, Decision(INCONCLUSIVE, "no slope: fewer than three levels or a non-finite value")
    if min(float(y[x == lv].mean()) for lv in levels) <= 0.0:
        return None, Decision(INCONCLUSIVE, "no slope: a level's mean is 0")
    fit = bootstrap_slope(x, y, delta, n_boot=n_boot, seed=0)
    text = (f"slope {fit.slope:.3f}, percentile-bootstrap {100 * (1 - delta):.4g}% interval "
            f"[{fit.low:.3f}, {fit.high:.3f}] over {fit.n} levels (asymptotic level)")
    if fit.low > exponent:
        return fit, Decision(FAIL, f"{text} lies entirely above {exponent:g}")
    if fit.high <= exponent + resolution:
        return fit, Decision(PASS, f"{text}; upper end ≤ {exponent:g} + resolution {resolution:g}")
    return fit, Decision(INCONCLUSIVE, f"{text} straddles {exponent:g} + resolution {resolution:g}")


def decide_mean_equals(n: int, mean: float, var: float, low: float, high: float, value: float, delta: float,
                       resolution: float):
    """Decide "E[X] = value" from the pooled (count, mean, unbiased variance) of i.i.d. values in
    [low, high] (e.g. one coordinate of an estimator that must be unbiased).

    The interval is the intersection of the empirical Bernstein interval (Maurer & Pontil 2009,
    Thm 4) and Hoeffding's, each at δ/2, so it holds with probability ≥ 1 − δ. FAIL when it
    excludes ``value`` (false-FAIL rate ≤ δ), PASS when it contains it and its half-width is
    ≤ ``resolution``, INCONCLUSIVE otherwise. A degenerate range (low = high) is a point: every
    value is ``low``, and the mean is compared exactly. Returns (interval, decision, hint); the
    hint says how many samples would resolve an INCONCLUSIVE case (the companion
    :func:`samples_for_resolution` on the Hoeffding half-width). Bonferroni over coordinates is
    the caller's: pass δ divided by their number.
    """
    if high == low:
        interval = Interval(mean, mean, mean, delta, "point (zero range)", n)
    else:
        bern = bernstein_from_moments(n, mean, var, low, high, delta / 2.0)
        eps = (high - low) * math.sqrt(math.log(2.0 / _split(delta / 2.0, 1)) / (2.0 * n))  # two-sided, δ/2
        interval = Interval(mean, max(bern.low, mean - eps), min(bern.high, mean + eps), delta,
                            "empirical Bernstein ∩ Hoeffding", n)
    if not interval.low <= value <= interval.high:
        return interval, Decision(FAIL, f"{interval.describe()} excludes {value:.6g}"), None
    if interval.half_width <= resolution:
        return interval, Decision(PASS, f"{interval.describe()} contains {value:.6g}; half-width ≤ resolution "
                                        f"{resolution:g}"), None
    need = samples_for_resolution(resolution, high - low, delta / 2.0)
    return interval, Decision(INCONCLUSIVE, f"{interval.describe()} contains {value:.6g} but is wider than "
                                            f"2 × resolution {resolution:g}"), \
        f"about {need} samples (now {n}) would bring the half-width under the resolution"


def decide_mean_in_range_at_most(lhs, rhs, lo, hi, delta, resolution) -> dict:
    """Decide "E[lhs] ≤ rhs" for values that should lie in a known almost-sure range [lo, hi].

    Within the range this is :func:`decide_mean_at_most` on lhs − lo (false-FAIL rate ≤ δ). When
    some values leave the range (the subject is not the algorithm whose range was derived), only
    the side that still has a valid range is used: values above ``hi`` leave Anderson's lower
    end valid (it needs no upper end), so only a FAIL can be decided; values below ``lo`` leave
    its upper end valid, so only a PASS can. Returns a dict with ``verdict``, ``reason`` (texts
    in units of rhs), ``mean``, ``low``, ``high`` and ``hint``.
    """
    x = np.asarray(lhs, dtype=np.float64)
    tol = 1e-9 * max(abs(lo), abs(hi), 1.0)
    above, below = bool(x.max() > hi + tol), bool(x.min() < lo - tol)
    mean = float(x.mean())
    out = {"mean": mean, "hint": None, "low": -math.inf, "high": math.inf}
    if hi - lo <= tol and not above and not below:  # every value is lo: the mean is known exactly
        out.update(verdict=FAIL if lo > rhs else INCONCLUSIVE, low=lo, high=lo,
                   reason=f"the range is the single point {lo:.4g}: E[lhs] = {lo:.4g} exactly")
        return out

    def said(interval, method):
        return (f"E[lhs] estimated {mean / rhs:.4g}·rhs, {method} interval [{interval[0] / rhs:.4g}, "
                f"{interval[1] / rhs:.4g}]·rhs at level 1 − {delta:.3g} (n = {x.size}, almost-sure range "
                f"[{lo / rhs:.4g}, {hi / rhs:.4g}]·rhs)")

    if not above and not below:
        iv, dec, hint = decide_mean_at_most(np.clip(x, lo, hi) - lo, hi - lo, rhs - lo, delta, resolution)
        out.update(verdict=dec.verdict, low=iv.low + lo, high=iv.high + lo, hint=hint)
        rule = {FAIL: "it lies above 1", PASS: "its upper end is within the resolution"}
        out["reason"] = said((out["low"], out["high"]), iv.method) + "; " + rule.get(dec.verdict, "it straddles 1")
        return out
    breach = " and ".join(text for flag, text in (
        (above, f"{int((x > hi + tol).sum())} run(s) above the almost-sure upper end"),
        (below, f"{int((x < lo - tol).sum())} run(s) below the lower end")) if flag)
    breach += ": the subject is not the paper's algorithm on this instance"
    if above and below:
        out.update(verdict=INCONCLUSIVE, reason=f"E[lhs] estimated {mean / rhs:.4g}·rhs; {breach}")
    elif above:  # Anderson's lower confidence end needs only the lower end of the range
        iv = anderson_interval(x - lo, 0.0, float(x.max() - lo), delta)
        out.update(verdict=FAIL if iv.low + lo > rhs else INCONCLUSIVE, low=iv.low + lo)
        out["reason"] = (said((out["low"], math.inf), "Anderson lower") + f"; {breach}, so only a FAIL can be "
                         f"decided, and the lower end is {'above' if out['verdict'] == FAIL else 'not above'} 1")
    else:  # and its upper end only the upper end of the range
        iv = anderson_interval(x - float(x.min()), 0.0, float(hi - x.min()), delta)
        out.update(verdict=PASS if iv.high + x.min() <= rhs + resolution else INCONCLUSIVE,
                   high=iv.high + float(x.min()))
        out["reason"] = said((-math.inf, out["high"]), "Anderson upper") + f"; {breach}, so only a PASS can be decided"
    return out


def decide_mean_within(interval: Interval, low: float, high: float) -> Decision:
    """Decide "the mean lies in [low, high]" (a published number ± its tolerance): FAIL when the
    whole interval lies outside (false-FAIL rate ≤ the interval's δ when the mean is inside), PASS
    when it lies inside, INCONCLUSIVE otherwise."""
    if interval.high < low or interval.low > high:
        return Decision(FAIL, f"{interval.describe()} lies outside [{low:.6g}, {high:.6g}]")
    if low <= interval.low and interval.high <= high:
        return Decision(PASS, f"{interval.describe()} lies inside [{low:.6g}, {high:.6g}]")
    return Decision(INCONCLUSIVE, f"{interval.describe()} straddles an end of [{low:.6g}, {high:.6g}]")


def min_discrepancy_martingale(steps: int, delta: float) -> float:
    """The smallest average per-step conditional mean (in units of the width bound 1 of
    :func:`decide_martingale_mean_zero`) that a sum of ``steps`` increments reveals at level δ
    with probability ≥ 1 − δ: twice the Azuma threshold over the number of steps,
    sqrt(2·log(2/δ)/steps) (the centred sum stays above minus the threshold with probability
    ≥ 1 − δ/2, by the same inequality)."""
    if steps < 1:
        raise ParameterError("need at least one step")
    return math.sqrt(2.0 * math.log(2.0 / check_delta(delta)) / steps)


def decide_martingale_mean_zero(sums, steps, delta: float, resolution: float, what: str, outside: int = 0):
    """Decide "every increment has conditional mean 0" from C sums of martingale increments.

    Sum c is S_c = Σ_{t ≤ n_c} Z_t where, under the claim, E[Z_t | everything before Z_t is drawn]
    = 0 and Z_t ∈ [a_t, a_t + 1] almost surely with a_t known before Z_t is drawn (the caller
    divides each increment by a predictable bound on the width of its range, which keeps both
    properties); ``steps`` is n_c, fixed in advance. Azuma–Hoeffding (Hoeffding's lemma given the
    past, so exp(λS_t − λ²t/8) is a supermartingale; Markov at the best fixed λ) gives
    P(|S_c| ≥ τ_c) ≤ δ/C for τ_c = sqrt(n_c·log(2C/δ)/2). FAIL when some |S_c| > τ_c (union bound
    over the C sums: false-FAIL rate ≤ δ, finite-sample), or when ``outside`` > 0 increments left
    their almost-sure range (certain); PASS when none does and every sum detects a per-step bias of
    ``resolution`` (:func:`min_discrepancy_martingale` at δ/C); INCONCLUSIVE otherwise.
    Returns (decision, ratios |S_c|/τ_c, the per-step bias each sum detects).
    """
    sums = np.asarray(sums, dtype=np.float64).ravel()
    steps = np.asarray(steps, dtype=np.int64).ravel()
    C = sums.size
    if C == 0 or steps.min() < 1:
        return Decision(INCONCLUSIVE, f"no sum of increments checked {what}"), np.zeros(C), np.full(C, math.inf)
    level = check_delta(delta) / C
    tau = np.sqrt(steps * math.log(2.0 / level) / 2.0)
    ratios = np.abs(sums) / tau
    detect = np.array([min_discrepancy_martingale(int(n), level) for n in steps])
    head = (f"{what}: {C} martingale sums, Azuma–Hoeffding at δ/{C} = {level:.3g} each (union bound: total "
            f"δ = {delta:g}); largest |S|/threshold {float(ratios.max()):.3g}")
    if outside:
        return Decision(FAIL, f"{what}: {outside} increments left the almost-sure range derived for the claim, "
                              "which is certain"), ratios, detect
    if (ratios > 1.0).any():
        return Decision(FAIL, f"{head} > 1 (in {int((ratios > 1.0).sum())} sums)"), ratios, detect
    worst = float(detect.max())
    if worst <= resolution:
        return Decision(PASS, f"{head} ≤ 1; every sum detects a per-step bias of {worst:.3g} width units "
                              f"(resolution {resolution:g})"), ratios, detect
    return Decision(INCONCLUSIVE, f"{head} ≤ 1, but some sum only detects a per-step bias of {worst:.3g} width "
                                  f"units (> resolution {resolution:g})"), ratios, detect


# ---------------------------------------------------------------------------------------
# medians of unbounded values (paired differences of learners' errors): the sign test


def median_interval(values, delta: float) -> Interval:
    """Distribution-free interval [x_(l), x_(n+1−l)] for a median of i.i.d. values (order statistics).

    For any median μ, P(X ≤ μ) ≥ ½, so the number of values ≤ μ is stochastically at least
    Binomial(n, ½) and P(x_(l) > μ) ≤ P(Bin(n, ½) ≤ l − 1); l is the largest index with that
    probability ≤ δ/2, and the upper end mirrors it. The interval needs no range (values may be
    unbounded, ±∞ included) and holds exactly, ties and discrete laws included, with probability
    ≥ 1 − δ. With too few values for any such l (Bin(n, ½) puts more than δ/2 on 0) it is
    (−∞, ∞); :func:`min_samples_median` says how many values make it finite.
    """
    x = np.sort(np.asarray(values, dtype=np.float64).ravel())
    if x.size == 0:
        raise ParameterError("a confidence interval needs at least one observation")
    if np.isnan(x).any():
        raise ParameterError("observations contain NaN")
    n, half = x.size, check_delta(delta) / 2.0
    below = int(np.searchsorted(_sps.binom.cdf(np.arange(n + 1), n, 0.5), half, side="right"))  # l
    low, high = (float(x[below - 1]), float(x[n - below])) if below >= 1 else (-math.inf, math.inf)
    return Interval(float(np.median(x)), low, high, delta, "order statistics (sign test)", n)


def _median_text(interval: Interval) -> str:
    return (f"median {interval.estimate:.6g}, order-statistic (sign-test) interval [{interval.low:.6g}, "
            f"{interval.high:.6g}] with probability ≥ 1 − {interval.delta:.3g} (n = {interval.n})")


def min_samples_median(delta: float) -> int:
    """The fewest values for which :func:`median_interval` at level δ is finite: 2^(1−n) ≤ δ."""
    return max(1, math.ceil(1.0 - math.log2(check_delta(delta))))


def decide_median_at_least(values, bound: float, delta: float, resolution: float):
    """Decide "a median of X is ≥ bound" from i.i.d. values of unknown range (the sign test).

    :func:`median_interval` at level δ, read as :func:`decide_at_least` reads an interval: FAIL
    when its upper end is below the bound (false-FAIL rate ≤ δ/2 for every law, exactly), PASS when
    its lower end is ≥ bound − resolution, INCONCLUSIVE otherwise. Returns (interval, decision, hint).
    """
    interval = median_interval(values, delta)
    text = _median_text(interval)
    if interval.high < bound:
        decision = Decision(FAIL, f"{text}; the whole interval is below the bound {bound:.6g}")
    elif interval.low >= bound - resolution:
        decision = Decision(PASS, f"{text}; lower end ≥ bound {bound:.6g} − resolution {resolution:.3g}")
    else:
        decision = Decision(INCONCLUSIVE, f"{text}; it straddles bound {bound:.6g} by more than the resolution "
                                          f"{resolution:.3g}: more samples are needed")
    hint = None
    if decision.verdict == INCONCLUSIVE and interval.n < min_samples_median(delta):
        hint = f"at least {min_samples_median(delta)} values (now {interval.n}) are needed for a finite interval"
    return interval, decision, hint


def decide_median_within(values, low: float, high: float, delta: float):
    """Decide "a median of X lies in [low, high]" (an equivalence test with margins) from i.i.d.
    values: :func:`median_interval` at level δ, read as :func:`decide_mean_within` reads an
    interval (FAIL when it lies outside [low, high], false-FAIL rate ≤ δ; PASS when inside).
    Returns (interval, decision)."""
    interval = median_interval(values, delta)
    text = _median_text(interval)
    if interval.high < low or interval.low > high:
        return interval, Decision(FAIL, f"{text} lies outside [{low:.6g}, {high:.6g}]")
    if low <= interval.low and interval.high <= high:
        return interval, Decision(PASS, f"{text} lies inside [{low:.6g}, {high:.6g}]")
    return interval, Decision(INCONCLUSIVE, f"{text} straddles an end of [{low:.6g}, {high:.6g}]")


# ---------------------------------------------------------------------------------------
# comparisons: the relation a paper claims, the question its words ask, and group-sequential designs

#: the relations a comparison finding may claim about a paired effect (positive when the paper's
#: ordering holds, e.g. log(err_worse/err_better)), each with a margin ε > 0
SUPERIOR, NON_INFERIOR, EQUIVALENT = "superior", "non-inferior", "equivalent"
RELATIONS = (SUPERIOR, NON_INFERIOR, EQUIVALENT)
#: the question a superiority asks, from the paper's words: the *direction* of a bare "better" or
#: "lower" (is the effect above 0?), or the *magnitude* of "significantly", "considerably" or a
#: printed gap (is the effect at least ε?)
DIRECTION, MAGNITUDE = "direction", "magnitude"
QUESTIONS = (DIRECTION, MAGNITUDE)
#: a magnitude's indifference zone is [ZONE·ε, ε]: a true effect ≥ ε is REPRODUCED and one ≤ ZONE·ε
#: is TIED (or REVERSED), each but with probability ≤ δ/2 whatever the number of runs; inside the
#: zone either outcome may come
ZONE = 0.5
#: the outcomes of a finding: the paper's relation shown; a magnitude shown below ε; a direction
#: whose advantage is below ε, if any (neither for nor against the paper); the opposite ordering
#: shown; an equivalence contradicted; not yet decided
REPRODUCED, TIED, NEGLIGIBLE, REVERSED, DIFFERENT, UNDECIDED = (
    "REPRODUCED", "TIED", "NEGLIGIBLE", "REVERSED", "DIFFERENT", "UNDECIDED")
OUTCOMES = (REPRODUCED, TIED, NEGLIGIBLE, REVERSED, DIFFERENT, UNDECIDED)
#: the outcomes that count against the paper (with the reference subjects: NOT REPRODUCED)
AGAINST = (TIED, REVERSED, DIFFERENT)
#: what an outcome makes of the claim: TIED, REVERSED and DIFFERENT count against the paper (a FAIL
#: of the subject, or NOT REPRODUCED when the subjects are the paper's reference implementations)
OUTCOME_VERDICT = {REPRODUCED: PASS, UNDECIDED: INCONCLUSIVE, NEGLIGIBLE: INCONCLUSIVE, TIED: FAIL, REVERSED: FAIL,
                   DIFFERENT: FAIL}
#: what each outcome means, one sentence each (the pages print it beside the finding)
MEANING = {
    REPRODUCED: "the interval supports the paper's relation",
    TIED: "the effect is shown to be below the magnitude ε the paper's words claim",
    NEGLIGIBLE: "the advantage is below ε, if there is one: neither for nor against a bare 'better'",
    REVERSED: "the effect is shown to go the other way",
    DIFFERENT: "the two are shown to differ by more than ε",
    UNDECIDED: "the interval is too wide to decide at the declared error rate",
}


#: the statistics a comparison finding may decide on (:func:`decide_sequential`), each its estimand
STATISTICS = ("median", "mean", "sign", "t")
#: what each statistic estimates, one phrase each (the pages and the results JSON print it)
ESTIMANDS = {
    "median": "the median of the paired effect (order-statistic interval, exact for every law)",
    "mean": "the mean of the paired effect (empirical Bernstein ∩ Anderson on a declared range, exact)",
    "sign": "P(effect > 0 | effect ≠ 0), as 2p − 1 (conditional sign test, exact)",
    "t": "the mean of the paired effect (Student t interval, asymptotic)",
}
#: where a finding's ε comes from: the paper's printed numbers (with the derivation on the page), or a
#: stated convention of this project (then a magnitude only reports: a non-reproduction never rests on it)
PRINTED, CONVENTION = "printed", "convention"
EPSILON_SOURCES = (PRINTED, CONVENTION)


def check_relation(relation: str, margin: float, question: str = DIRECTION) -> None:
    """Raise ParameterError unless ``relation`` is one of :data:`RELATIONS`, ``margin`` > 0 and
    ``question`` one of :data:`QUESTIONS`."""
    if relation not in RELATIONS:
        raise ParameterError(f"a relation is one of {', '.join(RELATIONS)}, got {relation!r}")
    if not (isinstance(margin, int | float) and math.isfinite(margin) and margin > 0):
        raise ParameterError(f"a comparison's margin ε must be a positive number, got {margin!r}")
    if question not in QUESTIONS:
        raise ParameterError(f"a question is one of {', '.join(QUESTIONS)}, got {question!r}")


def classify(low: float, high: float, relation: str, margin: float, question: str = DIRECTION) -> str:
    """The outcome of a finding from an interval [low, high] for its paired effect.

    * superior, question *direction* (a bare "A is better than B"): REVERSED when high < 0;
      REPRODUCED when low > 0; NEGLIGIBLE when the interval lies inside (−ε, ε) (an advantage
      below ε, if any: neither for nor against the paper); UNDECIDED otherwise. False REVERSED and
      false REPRODUCED at a true effect of 0 each have probability ≤ δ/2.
    * superior, question *magnitude* ("considerably better", a printed gap: the effect is at
      least ε): REVERSED when high < 0; REPRODUCED when low > ZONE·ε; TIED when high < ε;
      UNDECIDED otherwise. The indifference zone is [ZONE·ε, ε]: false REPRODUCED at its lower
      edge and false TIED at its upper edge each have probability ≤ δ/2, at any n, so for a true
      effect outside the zone the outcome does not depend on the number of runs.
    * non-inferior ("A is not worse than B by more than ε"): REPRODUCED when low ≥ −ε;
      REVERSED when high < −ε; UNDECIDED otherwise.
    * equivalent ("A and B coincide up to ε", TOST): REPRODUCED when the interval lies inside
      [−ε, ε]; DIFFERENT when it lies wholly outside; UNDECIDED otherwise.
    """
    check_relation(relation, margin, question)
    if relation == SUPERIOR:
        if high < 0.0:
            return REVERSED
        if question == MAGNITUDE:
            if low > ZONE * margin:
                return REPRODUCED
            return TIED if high < margin else UNDECIDED
        if low > 0.0:
            return REPRODUCED
        if -margin < low and high < margin:
            return NEGLIGIBLE
        return UNDECIDED
    if relation == NON_INFERIOR:
        if low >= -margin:
            return REPRODUCED
        return REVERSED if high < -margin else UNDECIDED
    if -margin <= low and high <= margin:
        return REPRODUCED
    return DIFFERENT if (high < -margin or low > margin) else UNDECIDED


def rule_text(relation: str, margin: float | None, question: str = DIRECTION) -> str:
    """One sentence: the rule :func:`classify` applies to this relation, margin and question; with
    ``margin=None`` the rule in terms of ε (a page whose findings have several margins)."""
    check_relation(relation, 1.0 if margin is None else margin, question)
    eps, half = ("ε", "ε/2") if margin is None else (f"{margin:g}", f"{ZONE * margin:g}")
    named = "ε" if margin is None else f"ε = {margin:g}"
    if relation == SUPERIOR and question == MAGNITUDE:
        return (f"a magnitude (the effect is at least {named}; indifference zone [{half}, {eps}]): REPRODUCED "
                f"when the interval lies above {half}, TIED when it lies below {eps}, REVERSED below 0")
    if relation == SUPERIOR:
        return (f"a direction (a bare 'better'): REPRODUCED when the interval lies above 0, REVERSED below 0, "
                f"NEGLIGIBLE (an advantage below {named}, if any; neither for nor against) inside (−{eps}, {eps})")
    if relation == NON_INFERIOR:
        return (f"a non-inferiority (not worse by more than {named}): REPRODUCED when the interval's lower "
                f"end is ≥ −{eps}, REVERSED when its upper end is below −{eps}")
    return (f"an equivalence (within ±{eps}): REPRODUCED when the interval lies inside [−{eps}, {eps}], DIFFERENT "
            "when wholly outside")


def decision_width(relation: str, margin: float, estimate: float, question: str = DIRECTION) -> float:
    """The width below which an interval centred on ``estimate`` decides a finding: for a
    direction 2·max(|e|, ε − |e|) (it then lies on one side of 0, or inside (−ε, ε); any
    interval narrower than ε decides wherever it lies); for a magnitude the larger of twice the
    distance above ZONE·ε, twice the distance below ε and twice the distance below 0; for a
    non-inferiority twice the distance of the estimate from −ε; for an equivalence twice the
    distance from the nearer of ±ε."""
    check_relation(relation, margin, question)
    if relation == SUPERIOR and question == MAGNITUDE:
        return 2.0 * max(estimate - ZONE * margin, margin - estimate, -estimate, 0.0)
    if relation == SUPERIOR:
        return 2.0 * max(abs(estimate), margin - abs(estimate))
    if relation == NON_INFERIOR:
        return 2.0 * abs(estimate + margin)
    return 2.0 * abs(margin - abs(estimate))


def looks(first: int, cap: int) -> tuple[int, ...]:
    """A group-sequential schedule: ``first``, then doubling, then ``cap`` (first ≤ cap)."""
    if not (isinstance(first, int) and isinstance(cap, int) and 1 <= first <= cap):
        raise ParameterError(f"a sequential schedule needs 1 ≤ first ≤ cap, got first = {first}, cap = {cap}")
    out, n = [], first
    while n < cap:
        out.append(n)
        n *= 2
    return (*out, cap)


@dataclass(frozen=True)
class SequentialResult:
    """The result of a finding decided by :func:`decide_sequential`."""

    outcome: str
    verdict: str
    interval: Interval
    #: the look (number of paired values) at which the outcome was reached, and the schedule
    look: int
    schedule: tuple[int, ...]
    #: True when the finding is undecided and the schedule has looks left
    more: bool
    reason: str
    #: for an UNDECIDED finding: what would decide it (a sentence), else ""
    needs: str = ""
    #: the question the finding asks (:data:`QUESTIONS`)
    question: str = "direction"


def decide_sequential(values, relation: str, margin: float, delta: float, schedule, *,
                      statistic: str = "median", value_range: tuple[float, float] | None = None,
                      question: str = DIRECTION) -> SequentialResult:
    """Decide a comparison finding with a group-sequential design (α spent evenly over the looks).

    ``values`` are the paired effects in the order they were drawn (repetition 0, 1, ...).
    ``schedule`` lists the looks n₁ < n₂ < ... < n_K = cap (see :func:`looks`). At look j the
    interval is computed from the first n_j values at level δ/K, for one of three estimands:

    * ``"median"``: the order-statistic (sign-test) interval of a median, exact for every law, no
      range needed;
    * ``"mean"``: the empirical Bernstein ∩ Anderson interval of the mean of values in
      ``value_range`` (the estimand of a paper that averages over splits or trials);
    * ``"sign"``: the sign test conditioned on the runs where the contenders differ: the
      Clopper–Pearson interval of p = P(D > 0 | D ≠ 0) from the nonzero values, reported as the
      effect 2p − 1 in [−1, 1] (positive when the paper's ordering wins more of the runs that
      differ). A run where both tie carries no information on the ordering and is left out,
      where a median would sit on the atom at 0. Only a direction question can use it (its ε is
      not in the effect's units);
    * ``"t"``: the Student t interval of the mean (:func:`mean_t_interval`), the estimand of a paper
      that averages over splits or trials when the values have no almost-sure range; asymptotic
      (central limit theorem), so a claim that uses it says on its page why its values allow it.

    The outcome is :func:`classify`'s for the relation, margin and ``question``. By the union
    bound the K intervals hold *simultaneously* with probability ≥ 1 − δ, so whatever rule decides
    when to stop (here: the first look whose outcome is not UNDECIDED), the outcome contradicts the
    truth with probability ≤ δ (≤ δ/2 for each one-sided error). Looks beyond ``len(values)`` have
    not been drawn yet: then ``more`` is True while the finding is undecided. Schedules of one look
    are the fixed-n test at level δ.
    """
    schedule = tuple(int(n) for n in schedule)
    if not schedule or any(b <= a for a, b in itertools.pairwise(schedule)) or schedule[0] < 1:
        raise ParameterError(f"a schedule is an increasing list of positive sizes, got {schedule}")
    if statistic not in STATISTICS:
        raise ParameterError(f"statistic must be one of {', '.join(STATISTICS)}, got {statistic!r}")
    check_relation(relation, margin, question)
    if statistic == "sign" and (relation != SUPERIOR or question != DIRECTION):
        raise ParameterError("the conditional sign test answers a direction only (relation superior, question "
                             "direction)")
    x = np.asarray(values, dtype=np.float64).ravel()
    level = check_delta(delta) / len(schedule)
    reached = [n for n in schedule if n <= x.size]
    if not reached:
        raise ParameterError(f"the first look needs {schedule[0]} values, got {x.size}")
    interval, outcome, n = None, UNDECIDED, reached[0]
    for n in reached:
        if statistic == "median":
            interval = median_interval(x[:n], level)
        elif statistic == "sign":
            interval = sign_interval(x[:n], level)
        elif statistic == "t":
            interval = mean_t_interval(x[:n], level)
        else:
            lo, hi = value_range if value_range is not None else (None, None)
            if lo is None:
                raise ParameterError("statistic 'mean' needs the values' almost-sure range")
            interval = _shifted_mean_interval(x[:n], lo, hi, level)
        outcome = classify(interval.low, interval.high, relation, margin, question)
        if statistic == "sign" and outcome == NEGLIGIBLE:
            outcome = UNDECIDED  # ε is in the units of D, not of 2p − 1
        if outcome != UNDECIDED:
            break
    look_text = (f"look {reached.index(n) + 1} of {len(schedule)} (n = {n}; looks at {', '.join(map(str, schedule))},"
                 f" δ/{len(schedule)} = {level:.3g} each)")
    what = {"median": "median", "mean": "mean", "t": "mean (t)",
            "sign": f"2·P(D > 0 | D ≠ 0) − 1 over {interval.n} runs that differ,"}
    reason = (f"{what[statistic]} {interval.estimate:.4g} in [{interval.low:.4g}, {interval.high:.4g}] at {look_text}; "
              f"claimed {relation} ({question}) with ε = {margin:g}: {outcome}")
    more = outcome == UNDECIDED and n < schedule[-1]
    needs = ""
    if outcome == UNDECIDED:
        needs = _needs(interval, relation, margin, n, schedule, level, statistic, question)
    return SequentialResult(outcome, OUTCOME_VERDICT[outcome], interval, n, schedule, more, reason, needs, question)


def mean_t_interval(values, delta: float) -> Interval:
    """The Student t interval of a mean at level δ (two-sided): x̄ ± t_{n−1, 1−δ/2}·s/√n. Exact for
    normal values and asymptotically valid for any law with a finite variance (central limit
    theorem): the estimand of a paper that averages a paired difference over splits or trials, where
    the values have no useful almost-sure range for an exact (Bernstein) interval. Needs n ≥ 2; a
    sample of identical values gives the zero-width interval at their value, an infinite value the
    whole line."""
    x = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(x).any():
        raise ParameterError("observations contain NaN")
    if x.size < 2:
        raise ParameterError(f"a t interval needs at least 2 values, got {x.size}")
    method = "Student t interval of the mean (asymptotic for non-normal values)"
    if not np.isfinite(x).all():
        return Interval(float(np.mean(x)) if np.isfinite(np.mean(x)) else math.nan, -math.inf, math.inf, delta,
                        method, int(x.size))
    mean, se = float(x.mean()), float(x.std(ddof=1)) / math.sqrt(x.size)
    half = float(_sps.t.ppf(1.0 - check_delta(delta) / 2.0, x.size - 1)) * se
    return Interval(mean, mean - half, mean + half, delta, method, int(x.size))


def sign_interval(values, delta: float) -> Interval:
    """The conditional sign test's interval: Clopper–Pearson for p = P(D > 0 | D ≠ 0) from the
    nonzero values, mapped to the effect 2p − 1 (an estimate and interval in [−1, 1]; (−1, 1) when
    every value is 0). Exact for every law, ties included, at level δ."""
    x = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(x).any():
        raise ParameterError("observations contain NaN")
    wins, differ = int((x > 0).sum()), int((x != 0).sum())
    if differ == 0:
        return Interval(0.0, -1.0, 1.0, delta, "conditional sign test (no run differs)", 0)
    iv = binomial_interval(wins, differ, delta)
    return Interval(2 * iv.estimate - 1, 2 * iv.low - 1, 2 * iv.high - 1, delta,
                    "conditional sign test (Clopper–Pearson on the runs that differ)", differ)


def _shifted_mean_interval(x: np.ndarray, lo: float, hi: float, delta: float) -> Interval:
    """:func:`bounded_mean_interval` for values in [lo, hi] (shifted to [0, hi − lo] and back)."""
    iv = bounded_mean_interval(x - lo, hi - lo, delta)
    return Interval(iv.estimate + lo, iv.low + lo, iv.high + lo, iv.delta, iv.method, iv.n)


def _needs(interval: Interval, relation: str, margin: float, n: int, schedule, level: float, statistic: str,
           question: str = DIRECTION) -> str:
    """What would decide an undecided finding: more looks, or (at the cap) the width it needs and
    about how many values would give it at the spread seen (widths shrink like 1/√n)."""
    if n < schedule[-1]:
        return f"the next look at n = {schedule[schedule.index(n) + 1]} (cap {schedule[-1]})"
    if statistic == "sign":
        return (f"cap {n} reached with {interval.n} runs that differ; more runs that differ narrow the interval of "
                "2p − 1 like 1/√n")
    if statistic == "median" and n < min_samples_median(level):
        return (f"cap {n} reached: the sign-test interval at δ/{len(schedule)} needs at least "
                f"{min_samples_median(level)} values to be finite")
    width, target = interval.high - interval.low, decision_width(relation, margin, interval.estimate, question)
    if not (math.isfinite(width) and target > 0):
        return f"cap {n} reached with an unbounded interval"
    more = max(math.ceil(n * (width / target) ** 2), n + 1)  # an order-statistic interval may be lopsided
    return (f"cap {n} reached with width {width:.3g}; an interval of width ≤ {target:.3g} decides, about {more} "
            f"values at the spread seen")


def min_effect_median(n: int, delta: float, spread: float) -> float:
    """The smallest median shift that the sign-test interval of n paired values at level δ
    separates from 0 about half of the time, for normal differences of standard deviation
    ``spread`` (asymptotic: the interval's half-width is ≈ z_{1−δ/2}·σ·√(π/2)/√n, the sign test's
    efficiency 2/π against the mean). A companion for a page, not a decision."""
    if n < 1 or not spread >= 0:
        raise ParameterError("need n ≥ 1 and a non-negative spread")
    return float(_sps.norm.ppf(1.0 - check_delta(delta) / 2.0) * spread * math.sqrt(math.pi / 2.0 / n))


def simulate_sequential(schedule, delta: float, relation: str, margin: float, sample, trials: int = 1000,
                        seed: int = 0, *, statistic: str = "median", value_range=None,
                        question: str = DIRECTION) -> dict:
    """Operating characteristics of :func:`decide_sequential` by simulation: ``sample(rng, size)``
    draws i.i.d. paired effects; returns the rate of each outcome and the expected number of values
    used over ``trials`` sequential runs (the companion that says what a design costs, and the
    calibration tests' measurement of the false outcomes at a zone's edges)."""
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(OUTCOMES, 0)
    used = 0
    for _ in range(int(trials)):
        res = decide_sequential(sample(rng, schedule[-1]), relation, margin, delta, schedule, statistic=statistic,
                                value_range=value_range, question=question)
        counts[res.outcome] += 1
        used += res.look
    return {"rates": {k: v / trials for k, v in counts.items()}, "expected_n": used / trials, "trials": int(trials)}
