"""Calibration of the comparison decision rule :func:`theorycheck.stats.decide_sequential`: a test that can fail.

The rule promises, for every relation, question and statistic: at the boundary of the claim, each
false outcome has probability ≤ δ/2, for a group-sequential schedule of K looks each at level δ/K.
:func:`check_calibration` measures those false outcome rates by Monte Carlo for any rule with
``decide_sequential``'s signature, and returns the table and the list of failed checks. It is run on
the library's rule (every check must pass) and on the same rule with δ doubled at every look (the
checks must fail): a calibration test that passes with a planted factor-2 error in δ is no test.

Design (δ = 0.4 so that the rates are large enough to measure; margin ε = 0.1):

* Exact statistics (``median``: the order-statistic interval; ``sign``: the conditional sign test).
  Each law is a *gap law*: probability q below the boundary and 1 − q above it, with no mass near
  any other threshold the relation uses, so the outcome of a run is a function of the counts of
  values on each side of the gap at the looks (for ``sign``: of wins and ties). The exact false
  rate of the rule *as specified* (order statistic l with P(Bin(n, ½) ≤ l − 1) ≤ δ/(2K); Clopper–
  Pearson bound beyond ½ ⇔ the binomial tail at ½ below δ/(2K); stop at the first decisive look) is
  then a dynamic programme over those counts in exact binomial arithmetic, independent of the
  library's code. Three assertions per false outcome:

  1. exact(δ) ≤ δ/2: the specified design keeps its promise (deterministic);
  2. measured ≤ δ/2 + slack: the implementation keeps the promise (the calibration claim);
  3. |measured − exact(δ)| ≤ slack: the implementation *is* the specified design. This is what
     catches a doubled δ on a sequential schedule: the union bound over looks is loose, so the
     rule at 2δ/K per look still stays below δ/2 there (looks(10, 80): exact 0.1655 per side
     against δ/2 = 0.2), but far outside the band around the rule's exact 0.0846.
     ``test_the_bands_exclude_a_doubled_delta`` checks, deterministically, that for every exact
     case the doubled rule's exact rate lies outside the band by at least 3 of its own standard
     errors, so the catch below is not luck of the seed.

  For the fixed schedules (30,) and (60,), assertion 2 also catches a doubled δ (exact rates 0.29
  and 0.35 against δ/2 + slack ≈ 0.24).

* ``mean`` (empirical Bernstein ∩ Anderson on a known range): the interval is conservative, the
  false rates are far below δ/2 and a doubled δ keeps them there, so assertion 2 alone cannot
  catch it. Assertion 2 is kept (it catches an interval that is too narrow, e.g. a Gaussian
  approximation in place of the bound), and a *level* check catches the doubled δ: for the first
  ``LEVEL_TRIALS`` runs of every case, the decision is re-derived look by look from the public
  interval (``bounded_mean_interval`` shifted to the range; ``median_interval``; ``sign_interval``)
  at δ/K and :func:`~theorycheck.stats.classify`; every earlier look must be UNDECIDED and the
  stopping look must give the same interval and outcome. This runs for every statistic.

Boundaries (the law's median, mean or P(D > 0 | D ≠ 0) sits on the boundary):

* superior / direction, effect 0: false REPRODUCED and false REVERSED (one law, both sides);
* superior / magnitude: the median law puts ½ in (0, ε/2) and ½ in (ε, 2ε), so both zone edges ε/2
  and ε are medians: false REPRODUCED at ε/2 and false TIED (or REVERSED) at ε from one law; the
  mean needs one law per edge;
* non-inferior: false REVERSED at −ε; false REPRODUCED just below −ε (median law: P(D ≥ −ε) = 0.49;
  mean law: mean −1.02·ε);
* equivalent: false DIFFERENT at +ε and at −ε;
* sign (superior / direction only): false REPRODUCED and REVERSED at p = ½ with an atom of 30 %
  ties at 0.

Schedules: every one the claims use appears: (1,) (degenerate: the median interval of one value is
infinite at any δ < 1, so its exact rate is 0 and no δ error is visible), (30,), (60,),
looks(12, 24), looks(20, 40), looks(10, 80), looks(50, 200).

Monte-Carlo slack: ``Z = 4`` binomial standard errors at the rate the assertion compares with
(δ/2 for assertion 2, exact(δ) for assertion 3), with ``TRIALS = 2000`` runs per exact case and
``MEAN_TRIALS = 400`` per mean case. Under the normal approximation one assertion fails spuriously
with probability ≤ 6.3e-5, all ~50 of them together with probability < 0.4 %; the seeds are fixed,
so the outcome is deterministic. The slack was set from this count before any run, not tuned.

Run with ``-s`` to see the tables.
"""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from theorycheck import stats

DELTA = 0.4
EPS = 0.1
Z = 4.0
TRIALS = 2000
MEAN_TRIALS = 400
LEVEL_TRIALS = 100
SEED = 20240942
#: P(D ≥ −ε) for the median law "just below −ε" of a non-inferiority
JUST_BELOW = 0.49


# ---------------------------------------------------------------------------------------------
# exact rates of the specified design (exact binomial arithmetic, no theorycheck code)


def _half_cdf(n: int, k: int) -> float:
    """P(Bin(n, ½) ≤ k), exactly (rounded once to float)."""
    if k < 0:
        return 0.0
    return float(sum(math.comb(n, i) for i in range(min(k, n) + 1)) / 2**n)


def _order_index(n: int, alpha: float) -> int:
    """The largest l with P(Bin(n, ½) ≤ l − 1) ≤ α (0: the interval is infinite)."""
    low = 0
    while low < n and _half_cdf(n, low) <= alpha:
        low += 1
    return low


def exact_gap(schedule, delta: float, q_below: float) -> dict[str, float]:
    """For the order-statistic interval at δ/K per look on i.i.d. values, each below the gap with
    probability ``q_below``: P(the first decisive look has the interval above the gap) and P(... below).
    The interval [x_(l), x_(n+1−l)] lies above the gap iff fewer than l values are below it."""
    alpha = delta / len(schedule) / 2.0
    alive, seen, above, below = np.ones(1), 0, 0.0, 0.0
    for n in schedule:
        m = n - seen
        step = np.array([math.comb(m, i) * q_below**i * (1 - q_below) ** (m - i) for i in range(m + 1)])
        alive, seen = np.convolve(alive, step), n
        ell = _order_index(n, alpha)
        count = np.arange(n + 1)  # values below the gap
        up, down = count < ell, (n - count) < ell
        above, below = above + alive[up].sum(), below + alive[down].sum()
        alive = np.where(up | down, 0.0, alive)
    return {"above": float(above), "below": float(below)}


def exact_sign(schedule, delta: float, tie: float) -> dict[str, float]:
    """For the conditional sign test at δ/K per look, values 0 with probability ``tie`` and ±
    with (1 − tie)/2 each: P(first decisive look says effect > 0) and P(... < 0). With d values
    that differ and w wins, the Clopper–Pearson lower bound at level α exceeds ½ iff
    P(Bin(d, ½) ≥ w) < α, and the upper bound is below ½ iff P(Bin(d, ½) ≤ w) < α."""
    alpha = delta / len(schedule) / 2.0
    cap = schedule[-1]
    alive = np.zeros((cap + 1, cap + 1))  # [differ, wins]
    alive[0, 0] = 1.0
    half = (1 - tie) / 2
    seen, above, below = 0, 0.0, 0.0
    for n in schedule:
        for _ in range(n - seen):
            nxt = tie * alive
            nxt[1:, 1:] += half * alive[:-1, :-1]
            nxt[1:, :] += half * alive[:-1, :]
            alive = nxt
        seen = n
        for d in range(1, n + 1):
            for w in range(d + 1):
                if alive[d, w] == 0.0:
                    continue
                if 1.0 - _half_cdf(d, w - 1) < alpha:
                    above += alive[d, w]
                    alive[d, w] = 0.0
                elif _half_cdf(d, w) < alpha:
                    below += alive[d, w]
                    alive[d, w] = 0.0
    return {"above": float(above), "below": float(below)}


# ---------------------------------------------------------------------------------------------
# laws


def gap_law(below: tuple[float, float], above: tuple[float, float], q_below: float = 0.5):
    """Uniform on ``below`` with probability ``q_below``, uniform on ``above`` otherwise."""

    def sample(rng, shape):
        side, u = rng.random(shape) < q_below, rng.random(shape)
        return np.where(side, below[0] + u * (below[1] - below[0]), above[0] + u * (above[1] - above[0]))

    return sample


def tie_law(tie: float):
    """0 with probability ``tie``, otherwise ±(0.5 + U) with equal probabilities: P(D > 0 | D ≠ 0) = ½."""

    def sample(rng, shape):
        u, v = rng.random(shape), rng.random(shape)
        return np.where(u < tie, 0.0, np.where(u < tie + (1 - tie) / 2, 1.0, -1.0) * (0.5 + v))

    return sample


def symmetric_law(centre: float, width: float):
    """centre ± width·(1 + U), equal probabilities: mean ``centre``, range centre ± 2·width."""

    def sample(rng, shape):
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        return centre + sign * width * (1.0 + rng.random(shape))

    return sample


# ---------------------------------------------------------------------------------------------
# cases


@dataclass(frozen=True)
class Case:
    statistic: str
    relation: str
    question: str
    schedule: tuple[int, ...]
    law_text: str
    law: Callable
    #: false-outcome label -> (outcomes counted as that false outcome, side of the exact rate or None)
    false: dict[str, tuple[tuple[str, ...], str | None]]
    exact: Callable[[tuple[int, ...], float], dict[str, float]] | None = None
    value_range: tuple[float, float] | None = None
    trials: int = TRIALS

    @property
    def name(self) -> str:
        return f"{self.statistic} {self.relation}/{self.question} {self.schedule} {self.law_text}"


def _gap(q_below=0.5):
    return lambda schedule, delta: exact_gap(schedule, delta, q_below)


R, V, T, D = ("REPRODUCED",), ("REVERSED",), ("TIED", "REVERSED"), ("DIFFERENT",)
SUP, NI, EQ, DIR, MAG = "superior", "non-inferior", "equivalent", "direction", "magnitude"
DIRECTION_LAW = gap_law((-2 * EPS, -EPS), (EPS, 2 * EPS))
ZONE_LAW = gap_law((0.0, stats.ZONE * EPS), (EPS, 2 * EPS))
NI_LAW = gap_law((-2 * EPS, -EPS), (-EPS, 0.0))

CASES = [
    # the order-statistic (sign-test) median: exact
    *(Case("median", SUP, DIR, s, "median 0", DIRECTION_LAW,
           {"false REPRODUCED": (R, "above"), "false REVERSED": (V, "below")}, _gap())
      for s in [(1,), (30,), stats.looks(10, 80)]),
    *(Case("median", SUP, MAG, s, "medians ε/2 and ε", ZONE_LAW,
           {"false REPRODUCED at ε/2": (R, "above"), "false TIED at ε": (T, "below")}, _gap())
      for s in [stats.looks(20, 40), (60,)]),
    Case("median", NI, DIR, stats.looks(12, 24), "median −ε", NI_LAW, {"false REVERSED at −ε": (V, "below")}, _gap()),
    Case("median", NI, DIR, stats.looks(50, 200), f"just below −ε: P(D ≥ −ε) = {JUST_BELOW}",
         gap_law((-2 * EPS, -EPS), (-EPS, 0.0), 1 - JUST_BELOW),
         {"false REPRODUCED below −ε": (R, "above")}, _gap(1 - JUST_BELOW)),
    Case("median", EQ, DIR, (30,), "median +ε", gap_law((0.0, EPS), (EPS, 2 * EPS)),
         {"false DIFFERENT at +ε": (D, "above")}, _gap()),
    Case("median", EQ, DIR, stats.looks(10, 80), "median −ε", gap_law((-2 * EPS, -EPS), (-EPS, 0.0)),
         {"false DIFFERENT at −ε": (D, "below")}, _gap()),
    # the conditional sign test: exact
    *(Case("sign", SUP, DIR, s, "P(D>0|D≠0) = ½, 30 % ties", tie_law(0.3),
           {"false REPRODUCED": (R, "above"), "false REVERSED": (V, "below")},
           lambda schedule, delta: exact_sign(schedule, delta, 0.3))
      for s in [(30,), stats.looks(10, 80)]),
    # the bounded mean: conservative; the level check catches a changed δ
    *(Case("mean", rel, q, s, text, symmetric_law(c, EPS), false, None, (c - 2 * EPS, c + 2 * EPS), MEAN_TRIALS)
      for rel, q, s, text, c, false in [
          (SUP, DIR, stats.looks(10, 80), "mean 0", 0.0,
           {"false REPRODUCED": (R, None), "false REVERSED": (V, None)}),
          (SUP, MAG, (60,), "mean ε/2", stats.ZONE * EPS, {"false REPRODUCED at ε/2": (R, None)}),
          (SUP, MAG, stats.looks(20, 40), "mean ε", EPS, {"false TIED at ε": (T, None)}),
          (NI, DIR, stats.looks(12, 24), "mean −ε", -EPS, {"false REVERSED at −ε": (V, None)}),
          (NI, DIR, (30,), "mean −1.02ε", -1.02 * EPS, {"false REPRODUCED below −ε": (R, None)}),
          (EQ, DIR, stats.looks(50, 200), "mean +ε", EPS, {"false DIFFERENT at +ε": (D, None)}),
      ]),
]


# ---------------------------------------------------------------------------------------------
# the check


def _seed(case: Case) -> np.random.Generator:
    return np.random.default_rng([SEED, zlib.crc32(case.name.encode())])


def _interval(case: Case, x: np.ndarray, level: float) -> tuple[float, float]:
    """The interval the specified design computes at one look, from the public interval functions."""
    if case.statistic == "median":
        iv = stats.median_interval(x, level)
    elif case.statistic == "sign":
        iv = stats.sign_interval(x, level)
    else:
        lo, hi = case.value_range
        iv = stats.bounded_mean_interval(x - lo, hi - lo, level)
        return iv.low + lo, iv.high + lo
    return iv.low, iv.high


def level_errors(case: Case, x: np.ndarray, res, delta: float) -> list[str]:
    """Re-derive the sequential decision look by look at δ/K; the differences from ``res``."""
    level = delta / len(case.schedule)
    for n in case.schedule:
        low, high = _interval(case, x[:n], level)
        outcome = stats.classify(low, high, case.relation, EPS, case.question)
        if case.statistic == "sign" and outcome == "NEGLIGIBLE":
            outcome = "UNDECIDED"  # the sign test's effect 2p − 1 is not in the units of ε
        if outcome != "UNDECIDED" or n == case.schedule[-1]:
            break
    same = (np.isclose(low, res.interval.low, rtol=1e-12, atol=1e-15)
            and np.isclose(high, res.interval.high, rtol=1e-12, atol=1e-15))
    if n == res.look and outcome == res.outcome and same:
        return []
    return [f"look {res.look}: {res.outcome} [{res.interval.low:.6g}, {res.interval.high:.6g}], but at δ/K = "
            f"{level:.4g} the design stops at look {n} with {outcome} [{low:.6g}, {high:.6g}]"]


def simulate(decide, case: Case, delta: float) -> tuple[dict[str, int], list[str]]:
    """Outcome counts of ``decide`` over ``case.trials`` runs (all values drawn at once), and the
    level check's findings on the first ``LEVEL_TRIALS`` runs."""
    values = case.law(_seed(case), (case.trials, case.schedule[-1]))
    counts: dict[str, int] = dict.fromkeys(stats.OUTCOMES, 0)
    errors: list[str] = []
    for i, x in enumerate(values):
        res = decide(x, case.relation, EPS, delta, case.schedule, statistic=case.statistic,
                     value_range=case.value_range, question=case.question)
        counts[res.outcome] += 1
        if i < LEVEL_TRIALS and not errors:
            errors = level_errors(case, x, res, delta)
    return counts, errors


def _se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 0.0) / n)


def check_calibration(decide, delta: float = DELTA, cases=CASES) -> tuple[list[dict], list[str]]:
    """Measure every case's false outcome rates with ``decide`` (``decide_sequential``'s signature);
    return the table's rows and the failed checks (``"<case> | <label>: <check> ..."``)."""
    rows, failures = [], []
    for case in cases:
        counts, errors = simulate(decide, case, delta)
        failures += [f"{case.name} | level: {e}" for e in errors]
        exact = case.exact(case.schedule, delta) if case.exact else None
        doubled = case.exact(case.schedule, 2 * delta) if case.exact else None
        for label, (outcomes, side) in case.false.items():
            rate = sum(counts[o] for o in outcomes) / case.trials
            ceiling = delta / 2 + Z * _se(delta / 2, case.trials)
            row = {"case": case, "label": label, "rate": rate, "ceiling": ceiling, "exact": None, "band": None,
                   "doubled": None, "level": "ok" if not errors else "FAIL"}
            problems = []
            if rate > ceiling:
                problems.append(f"rate {rate:.4f} > δ/2 + slack = {ceiling:.4f}")
            if side is not None:
                e = exact[side]
                slack = Z * _se(e, case.trials)
                row.update(exact=e, band=(e - slack, e + slack), doubled=doubled[side])
                if e > delta / 2:
                    problems.append(f"exact rate {e:.4f} of the specified design > δ/2")
                if abs(rate - e) > slack:
                    problems.append(f"rate {rate:.4f} outside [{e - slack:.4f}, {e + slack:.4f}] around the exact "
                                    f"{e:.4f}")
            row["ok"] = not problems and not errors
            rows.append(row)
            failures += [f"{case.name} | {label}: {p}" for p in problems]
    return rows, failures


def table(rows, title: str) -> str:
    head = (f"{'statistic':9} {'relation/question':24} {'schedule':17} {'law':34} {'false outcome':27} "
            f"{'measured':>8} {'exact δ':>8} {'band':>17} {'≤δ/2+sl':>8} {'exact 2δ':>8} level ok")
    lines = [title, head, "-" * len(head)]
    for r in rows:
        c = r["case"]
        band = f"[{r['band'][0]:.4f}, {r['band'][1]:.4f}]" if r["band"] else "—"
        ex = f"{r['exact']:.4f}" if r["exact"] is not None else "—"
        dbl = f"{r['doubled']:.4f}" if r["doubled"] is not None else "—"
        lines.append(f"{c.statistic:9} {c.relation + '/' + c.question:24} {c.schedule!s:17} {c.law_text:34} "
                     f"{r['label']:27} {r['rate']:8.4f} {ex:>8} {band:>17} {r['ceiling']:8.4f} {dbl:>8} "
                     f"{r['level']:5} {'yes' if r['ok'] else 'NO'}")
    return "\n".join(lines)


def doubled_delta(values, relation, margin, delta, schedule, **kw):
    """The planted defect: the library's rule with δ doubled at every look (level 2δ/K)."""
    return stats.decide_sequential(values, relation, margin, 2 * delta, schedule, **kw)


# ---------------------------------------------------------------------------------------------
# tests


def test_sequential_rule_is_calibrated_at_every_boundary():
    rows, failures = check_calibration(stats.decide_sequential)
    print("\n" + table(rows, f"decide_sequential, δ = {DELTA}, ε = {EPS}, slack {Z:g} SE; "
                             f"{TRIALS} runs per exact case, {MEAN_TRIALS} per mean case"))
    assert failures == [], "\n".join(failures)


def test_calibration_catches_a_doubled_delta():
    """The same checks on the rule with δ doubled at every look: every exact case but the degenerate
    (1,) fails its band around the exact rate (assertion 3), and every case but (1,) fails the level
    check (for the mean, the only check that can see it)."""
    rows, failures = check_calibration(doubled_delta)
    print("\n" + table(rows, f"PLANTED DEFECT: δ doubled at every look (2δ/K), δ = {DELTA}"))
    for case in CASES:
        mine = [f for f in failures if f.startswith(case.name + " |")]
        if case.schedule == (1,):
            assert mine == [], mine  # one value: the median interval is infinite at δ and at 2δ
            continue
        assert any("| level:" in f for f in mine), case.name
        if case.exact is not None:
            for label in case.false:
                assert any(f"| {label}: rate" in f and "exact" in f for f in mine), (case.name, label)


def test_the_bands_exclude_a_doubled_delta():
    """Power of assertion 3, computed exactly: for every exact case (except the degenerate (1,)), the
    doubled rule's exact rate lies above the band's upper end by at least 3 of its own standard errors,
    so a rule at 2δ per look fails the band with probability ≥ 1 − 0.0014 per false outcome."""
    for case in CASES:
        if case.exact is None or case.schedule == (1,):
            continue
        exact, doubled = case.exact(case.schedule, DELTA), case.exact(case.schedule, 2 * DELTA)
        for _, side in case.false.values():
            upper = exact[side] + Z * _se(exact[side], case.trials)
            assert doubled[side] - 3 * _se(doubled[side], case.trials) > upper, (case.name, side)


def _enumerate(rule, delta, schedule, points, statistic):
    """P(REPRODUCED) and P(REVERSED) of ``rule`` over every sequence of ``points`` (equally likely)."""
    rates = {"above": 0.0, "below": 0.0}
    weight = len(points) ** -schedule[-1]
    for seq in itertools.product(points, repeat=schedule[-1]):
        out = rule(np.array(seq), SUP, EPS, delta, schedule, statistic=statistic).outcome
        if out in ("REPRODUCED", "REVERSED"):
            rates["above" if out == "REPRODUCED" else "below"] += weight
    return rates


def test_the_exact_rates_are_the_rule_enumerated():
    """The dynamic programmes against an exact enumeration of the library's rule over every sequence of
    sides on a small schedule (no Monte Carlo): the 2⁸ sequences of ±1.5ε for the median on looks (4, 8),
    the 3⁶ sequences of −1, 0, +1 for the sign test on looks (3, 6). The rule at 2δ matches the
    programmes at 2δ and not at δ, so the programmes see the level."""
    for rule, level in [(stats.decide_sequential, DELTA), (doubled_delta, 2 * DELTA)]:
        for statistic, schedule, points, exact in [
                ("median", (4, 8), (-1.5 * EPS, 1.5 * EPS), exact_gap((4, 8), level, 0.5)),
                ("sign", (3, 6), (-1.0, 0.0, 1.0), exact_sign((3, 6), level, 1 / 3))]:
            got = _enumerate(rule, DELTA, schedule, points, statistic)
            assert all(math.isclose(got[k], exact[k], rel_tol=1e-12, abs_tol=1e-15) for k in got), (got, exact)
            assert min(got.values()) > 0, (statistic, got)
    assert exact_gap((4, 8), DELTA, 0.5) != exact_gap((4, 8), 2 * DELTA, 0.5)
    assert exact_sign((3, 6), DELTA, 1 / 3) != exact_sign((3, 6), 2 * DELTA, 1 / 3)
