"""Exact checks of lemmas of Cesa-Bianchi, Shalev-Shwartz & Shamir (JMLR 2011)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
from numba import njit

from theorycheck import estimators as est
from theorycheck import stats
from theorycheck.claims import Claim, Evidence, Hypothesis, Measurement, Plot, register
from theorycheck.rng import kernel_state
from theorycheck.stats import FAIL, INCONCLUSIVE, PASS
from theorycheck.validation import ParameterError, check_delta, check_int, check_real


def subset_average(values: list[Fraction]) -> Fraction:
    """The quantity Lemma 7 averages: (1/k) Σ_{c ∈ C'} f(c) over one k-subset C'."""
    return sum(values, Fraction(0)) / len(values)


def random_rational_function(rng: np.random.Generator, n: int, spread: int) -> list[Fraction]:
    """n rationals p/q with |p| ≤ spread and 1 ≤ q ≤ spread, drawn from ``rng``."""
    nums = rng.integers(-spread, spread + 1, size=n)
    dens = rng.integers(1, spread + 1, size=n)
    return [Fraction(int(p), int(q)) for p, q in zip(nums, dens, strict=True)]


@register
class Lemma7(Claim):
    id = "cbss11.lemma7"
    title = "Averaging over a uniform k-subset is unbiased"
    reference = "Lemma 7"
    kind = "exact"
    statement = (
        "For any finite set C of n elements and any f: C → ℝ, the mean of f over a k-subset "
        "drawn uniformly from all k-subsets of C has expectation equal to the mean of f over C."
    )
    hypotheses = ("1 ≤ k ≤ n", "C' uniform over the C(n, k) subsets of size k")
    interpretation = (
        "Checked in exact rational arithmetic: for each n ≤ n_max, every k ≤ n and several "
        "random rational f, the expectation is computed by enumerating all C(n, k) subsets "
        "with equal weight 1/C(n, k) and compared with (1/n)Σf for equality, not within a "
        "tolerance. The subject is the per-subset average; replacing it (for instance by a "
        "sum divided by k + 1) must break the identity."
    )
    subjects = {"subset_average": subset_average}
    profiles = {
        "quick": {"n_max": 7, "functions": 3, "spread": 50},
        "full": {"n_max": 12, "functions": 10, "spread": 1000},
    }

    def check_params(self, p):
        check_int("n_max", p["n_max"], low=1, high=16)
        check_int("functions", p["functions"], low=1)
        check_int("spread", p["spread"], low=1)

    def tasks(self, p):
        return [{"n": n} for n in range(1, p["n_max"] + 1)]

    def measure(self, p, task, subjects, seed):
        average = subjects["subset_average"]
        rng = np.random.default_rng(seed)
        n = task["n"]
        rows = []
        for trial in range(p["functions"]):
            f = random_rational_function(rng, n, p["spread"])
            target = sum(f, Fraction(0)) / n
            for k in range(1, n + 1):
                subsets = list(itertools.combinations(range(n), k))
                weight = Fraction(1, len(subsets))
                expectation = sum((weight * average([f[i] for i in s]) for s in subsets), Fraction(0))
                rows.append({
                    "n": n, "k": k, "function": trial, "subsets": len(subsets),
                    "expectation": str(expectation), "mean_of_f": str(target),
                    "difference": float(expectation - target),
                    "exact_equal": expectation == target,
                })
        return Measurement(rows)

    def decide(self, p, table):
        bad = table[~table["exact_equal"].astype(bool)]
        worst = float(table["difference"].abs().max())
        summary = (
            table.assign(abs_difference=table["difference"].abs())
            .groupby("n", as_index=False)
            .agg(cases=("k", "size"), subsets=("subsets", "sum"), max_abs_difference=("abs_difference", "max"))
            .assign(theory=0.0)
        )
        cases = len(table)
        if bad.empty:
            verdict = PASS
            decision = (
                f"Exact: in all {cases} cases (n ≤ {p['n_max']}, every k, {p['functions']} random "
                f"rational f each; {int(table['subsets'].sum())} subsets enumerated) the "
                "expectation equals the mean of f as a rational number."
            )
        else:
            first = bad.iloc[0]
            verdict = FAIL
            decision = (
                f"Exact: the identity fails in {len(bad)} of {cases} cases; first at n={first['n']}, "
                f"k={first['k']}: expectation {first['expectation']} ≠ mean {first['mean_of_f']}."
            )
        return Evidence(
            verdict=verdict, observed=worst, theory=0.0, decision=decision, summary=summary,
            plot=Plot(x="n", y="max_abs_difference", theory="theory", kind="point",
                      ylabel="max |E[subset average] − mean f|"),
        )


# ---------------------------------------------------------------------- Lemma 11
@njit(cache=True)
def _aer_estimate_moments(w, x, y, k, n, state):
    """n draws of the built-in AER kernel: per-coordinate sums, sums of squares, max |g_i|
    and the largest number of attributes read by one draw."""
    d = x.shape[0]
    out = np.empty(d)
    total = np.zeros(d)
    squares = np.zeros(d)
    largest = np.zeros(d)
    max_read = 0
    for _ in range(n):
        n_read = est._aer_gradient_kernel(w, x, y, k, state, out)
        if n_read > max_read:
            max_read = n_read
        for i in range(d):
            v = out[i]
            total[i] += v
            squares[i] += v * v
            if abs(v) > largest[i]:
                largest[i] = abs(v)
    return total, squares, largest, max_read


def _estimate_moments(estimate, w, x, y, k, n, state, chunk: int = 4096):
    """The same sums for any subject with the public signature
    ``estimate(w, x, y, k, *, rng_state) -> (g, n_attributes_read)``."""
    d = x.shape[0]
    total, squares, largest = np.zeros(d), np.zeros(d), np.zeros(d)
    max_read = 0
    done = 0
    while done < n:
        m = min(chunk, n - done)
        block = np.empty((m, d))
        for t in range(m):
            g, n_read = estimate(w, x, y, k, rng_state=state)
            block[t] = g
            max_read = max(max_read, int(n_read))
        if not np.all(np.isfinite(block)):
            raise ValueError("the estimate subject returned NaN or infinite values")
        total += block.sum(axis=0)
        squares += (block * block).sum(axis=0)
        largest = np.maximum(largest, np.abs(block).max(axis=0))
        done += m
    return total, squares, largest, max_read


def lemma11_mc_instance(d: int, k: int, base_seed: int):
    """The Monte-Carlo instance: w with ‖w‖₁ = 1, a quarter of its entries zero, mixed signs and
    one entry carrying half the mass (so that sampling errors in ŷ show); x ∈ [−1, 1]^d with
    x_0 = 1 and some zeros; y ∈ [−1, 1]. Fixed by (base seed, d, k), shared by all repetitions."""
    rng = np.random.default_rng([base_seed, d, k, 11])
    w = rng.choice([-1.0, 1.0], size=d) * rng.random(d) ** 3
    w[rng.random(d) < 0.25] = 0.0
    w[0] = 0.0
    if np.abs(w).sum() > 0:
        w *= 0.5 / np.abs(w).sum()
    w[0] = 0.5 if np.abs(w).sum() > 0 else 1.0
    x = rng.uniform(-1.0, 1.0, size=d)
    x[rng.random(d) < 0.1] = 0.0
    x[0] = 1.0
    y = float(rng.uniform(-1.0, 1.0))
    return w, x, y


@register
class Lemma11(Claim):
    id = "cbss11.lemma11"
    title = "AER's gradient estimate 2(ŷ − y)v is unbiased"
    reference = "Lemma 11 (Section 6, eqs. (6)–(8), Figure 2)"
    kind = "exact"
    statement = (
        "For any w, x ∈ ℝ^d, y ∈ ℝ and even k ≥ 2, the estimate 2(ŷ − y)v, with v = (2/k)·d·Σ_{j∈C} x_j e_j "
        "for a uniform (k/2)-subset C and ŷ = (2/k)·‖w‖₁·Σ_s sgn(w_{i_s}) x_{i_s} over k/2 draws "
        "P(i) = |w_i|/‖w‖₁, has expectation 2(⟨w,x⟩ − y)x, the gradient of (⟨w,x⟩ − y)²."
    )
    hypotheses = ("k even, 2 ≤ k ≤ 2d (so that C has k/2 ≤ d elements)",
                  "C independent of the draws i_1, ..., i_{k/2}")
    interpretation = (
        "The k/2 draws of ŷ are made with replacement, as in the Figure 2 box (the prose before eq. (7) "
        "says 'without replacement', which would bias ŷ; the box wins, see NOTES.md). Eq. (7) prints "
        "a stray e_{j_s}: ŷ is a scalar. At w = 0 the box draws uniformly but every term is 0, so ŷ = 0. "
        "Two parts. Exact: for every d ≤ d_max, every even k ≤ 2d and several rational instances "
        "(random, w = 0, x = 0, y = 0, w with zeros, equal |w_i|), the law returned by the subject "
        "`distribution` (every subset C and every multiset of draws, in Fractions) must sum to 1 and "
        "have mean exactly 2(⟨w,x⟩ − y)x. Monte Carlo: the subject `estimate` is drawn mc_samples × "
        "mc_repetitions times on one instance of dimension mc_d (the built-in estimator through its "
        "jitted kernel, any other subject through its public signature); for each coordinate the "
        "intersection of a Hoeffding and an empirical-Bernstein interval, each at δ/(2d), on the range "
        "|g_i| ≤ 2(‖w‖₁‖x‖∞ + |y|)(2d/k)|x_i| that eqs. (6)–(8) imply; union bound over coordinates, "
        "so a true lemma is marked FAIL by this part with probability ≤ δ. The verdict is FAIL if "
        "either part fails, PASS if both pass."
    )
    subjects = {"distribution": est.aer_gradient_estimate_distribution, "estimate": est.aer_gradient_estimate}
    profiles = {
        "quick": {"d_max": 4, "instances": 3, "spread": 9, "mc_d": 50, "mc_k": 10,
                  "mc_samples": 200_000, "mc_repetitions": 2, "delta": 1e-3, "resolution": 0.1},
        "full": {"d_max": 6, "instances": 8, "spread": 30, "mc_d": 200, "mc_k": 20,
                 "mc_samples": 1_000_000, "mc_repetitions": 8, "delta": 1e-3, "resolution": 0.05},
    }

    def check_params(self, p):
        check_int("d_max", p["d_max"], low=1, high=7)
        check_int("instances", p["instances"], low=0)
        check_int("spread", p["spread"], low=1)
        d = check_int("mc_d", p["mc_d"], low=1)
        k = check_int("mc_k", p["mc_k"], low=2, high=2 * d)
        if k % 2:
            raise ParameterError(f"mc_k must be even (k/2 attributes per half of the estimate), got {k}")
        check_int("mc_samples", p["mc_samples"], low=2)
        check_int("mc_repetitions", p["mc_repetitions"], low=0)
        check_delta(p["delta"])
        check_real("resolution", p["resolution"], low=0.0, strict_low=True)

    def tasks(self, p):
        exact = [{"part": "exact", "d": d} for d in range(1, p["d_max"] + 1)]
        return exact + [{"part": "mc", "repetition": r} for r in range(p["mc_repetitions"])]

    def measure(self, p, task, subjects, seed):
        if task["part"] == "exact":
            return self._measure_exact(p, task["d"], subjects["distribution"], seed)
        return self._measure_mc(p, task["repetition"], subjects["estimate"], seed)

    # ------------------------------------------------------------------ exact part
    @staticmethod
    def _instances(rng, d, spread, count):
        def rand():
            return random_rational_function(rng, d, spread)

        def zeroed(v):
            return [Fraction(0) if rng.random() < 0.3 else a for a in v]

        y = Fraction(int(rng.integers(-spread, spread + 1)), int(rng.integers(1, spread + 1)))
        cases = [
            ("w = 0", [Fraction(0)] * d, rand(), y),
            ("x = 0", rand(), [Fraction(0)] * d, y),
            ("y = 0", rand(), rand(), Fraction(0)),
            ("zeros in w and x", zeroed(rand()), zeroed(rand()), y),
            ("equal |w_i|, mixed signs",
             [Fraction(3, 2) * (1 if rng.random() < 0.5 else -1) for _ in range(d)], rand(), y),
        ]
        for _ in range(count):
            cases.append(("random", zeroed(rand()), rand(), random_rational_function(rng, 1, spread)[0]))
        return cases

    def _measure_exact(self, p, d, law, seed):
        rng = np.random.default_rng(seed)
        rows = []
        for index, (family, w, x, y) in enumerate(self._instances(rng, d, p["spread"], p["instances"])):
            residual = sum((a * b for a, b in zip(w, x, strict=True)), Fraction(0)) - y
            target = tuple(2 * residual * v for v in x)
            for k in range(2, 2 * d + 1, 2):
                distribution = law(w, x, y, k)
                total, negative = Fraction(0), False
                mean = [Fraction(0)] * d
                for prob, g in distribution:
                    prob = Fraction(prob)
                    negative |= prob < 0
                    total += prob
                    for i in range(d):
                        mean[i] += prob * Fraction(g[i])
                rows.append({
                    "part": "exact", "d": d, "k": k, "instance": index, "family": family,
                    "w": "(" + ", ".join(map(str, w)) + ")", "x": "(" + ", ".join(map(str, x)) + ")", "y": str(y),
                    "outcomes": len(distribution), "probability_sum_is_1": total == 1 and not negative,
                    "unbiased": tuple(mean) == target,
                    "max_abs_bias": float(max(abs(a - b) for a, b in zip(mean, target, strict=True))),
                    "mean": "(" + ", ".join(map(str, mean)) + ")",
                    "gradient": "(" + ", ".join(map(str, target)) + ")",
                })
        return Measurement(rows)

    # ------------------------------------------------------------------ Monte-Carlo part
    def _measure_mc(self, p, repetition, estimate, seed):
        d, k, n = p["mc_d"], p["mc_k"], p["mc_samples"]
        w, x, y = lemma11_mc_instance(d, k, int(seed.entropy))
        state = kernel_state(seed)
        if estimate is est.aer_gradient_estimate:
            total, squares, largest, max_read = _aer_estimate_moments(w, x, y, k, n, state)
        else:
            total, squares, largest, max_read = _estimate_moments(estimate, w, x, y, k, n, state)
        mean = total / n
        var = np.maximum(squares - n * mean * mean, 0.0) / (n - 1)
        wf, xf, yf = ([Fraction(float(a)) for a in w], [Fraction(float(a)) for a in x], Fraction(y))
        residual = sum((a * b for a, b in zip(wf, xf, strict=True)), Fraction(0)) - yf
        scale = 2 * (float(np.abs(w).sum()) * float(np.abs(x).max()) + abs(y)) * (2.0 * d / k)
        rows = [{
            "part": "mc", "repetition": repetition, "coordinate": i, "x_i": float(x[i]), "w_i": float(w[i]),
            "samples": n, "mean": float(mean[i]), "var": float(var[i]), "max_abs": float(largest[i]),
            "range": scale * abs(float(x[i])), "gradient": float(2 * residual * xf[i]), "max_read": int(max_read),
        } for i in range(d)]
        hyps = [Hypothesis("k even, 2 ≤ k ≤ 2d", k % 2 == 0 and 2 <= k <= 2 * d, f"d = {d}, k = {k}")]
        return Measurement(rows, hyps)

    # ------------------------------------------------------------------ verdict
    def decide(self, p, table):
        exact = table[table["part"] == "exact"]
        mc = table[table["part"] == "mc"]
        exact_verdict, exact_text, exact_summary = self._decide_exact(p, exact)
        if len(mc):
            mc_verdict, mc_text, mc_summary, observed_mc = self._decide_mc(p, mc)
        else:
            mc_verdict, mc_text = PASS, "Monte Carlo: not run (mc_repetitions = 0)."
            mc_summary, observed_mc = None, None
        verdicts = {exact_verdict, mc_verdict}
        verdict = FAIL if FAIL in verdicts else PASS if verdicts == {PASS} else INCONCLUSIVE
        if exact_verdict == FAIL or observed_mc is None:
            observed = float(exact["max_abs_bias"].max())
        else:
            observed = observed_mc
        summary = pd.concat([s for s in (mc_summary, exact_summary) if s is not None], ignore_index=True)
        decision = (
            f"{exact_text}\n{mc_text}\nVerdict: FAIL if either part fails, PASS if both pass, otherwise "
            f"INCONCLUSIVE. The observed value is the largest |mean − gradient| over the Monte-Carlo "
            f"coordinates (or the exact bias if the exact part fails); the theory is 0."
        )
        return Evidence(
            verdict=verdict, observed=observed, theory=0.0, delta=p["delta"] if len(mc) else None,
            decision=decision, summary=summary,
            notes=[f"Monte-Carlo instance: d = {p['mc_d']}, k = {p['mc_k']}, w with ‖w‖₁ = 1 (half the mass on "
                   "w_0), x ∈ [−1, 1]^d, y ∈ [−1, 1]; the summary lists each coordinate's interval beside "
                   "the exact gradient, then the exact part per (d, k)."],
            plot=Plot(x="coordinate", y="mean", low="low", high="high", theory="gradient",
                      xlabel="coordinate i (Monte-Carlo instance)", ylabel="E[2(ŷ − y)v_i]"),
        )

    @staticmethod
    def _decide_exact(p, exact):
        if exact.empty:
            return PASS, "Exact part: not run.", None
        valid = exact["probability_sum_is_1"].astype(bool)
        unbiased = exact["unbiased"].astype(bool)
        summary = (exact.groupby(["d", "k"], as_index=False)
                   .agg(cases=("instance", "size"), outcomes=("outcomes", "sum"),
                        unbiased=("unbiased", "all"), max_abs_bias=("max_abs_bias", "max"))
                   .assign(part="exact"))
        if valid.all() and unbiased.all():
            return PASS, (
                f"Exact part: PASS. In all {len(exact)} cases (d ≤ {p['d_max']}, every even k ≤ 2d; "
                f"{int(exact['outcomes'].sum())} outcomes enumerated) the law sums to 1 and its mean equals "
                "2(⟨w,x⟩ − y)x as a rational vector."), summary
        problems = []
        if not valid.all():
            bad = exact[~valid].iloc[0]
            problems.append(f"the law is not a probability distribution in {int((~valid).sum())} cases (first: "
                            f"d={bad['d']}, k={bad['k']}, {bad['family']})")
        if not unbiased.all():
            bad = exact[~unbiased].iloc[0]
            problems.append(
                f"E ≠ 2(⟨w,x⟩ − y)x in {int((~unbiased).sum())} of {len(exact)} cases; first at d={bad['d']}, "
                f"k={bad['k']} ({bad['family']}: w={bad['w']}, x={bad['x']}, y={bad['y']}): mean {bad['mean']} "
                f"≠ gradient {bad['gradient']}")
        return FAIL, "Exact part: FAIL: " + "; ".join(problems) + ".", summary

    @staticmethod
    def _decide_mc(p, mc):
        d = p["mc_d"]
        per_delta = p["delta"] / (2 * d)
        records = []
        out_of_range = []
        for i, part in mc.groupby("coordinate"):
            n, mean, var = stats.pool_moments(part["samples"], part["mean"], part["var"])
            grad = float(part["gradient"].iloc[0])
            r = float(part["range"].iloc[0])
            largest = float(part["max_abs"].max())
            if largest > r * (1 + 1e-9):
                out_of_range.append((int(i), largest, r))
            if r == 0.0:  # x_i = 0: every draw must be exactly 0
                low = high = mean
            else:
                bern = stats.bernstein_from_moments(n, mean, var, -r, r, per_delta)
                eps = 2 * r * math.sqrt(math.log(2.0 / per_delta) / (2.0 * n))
                low, high = max(bern.low, mean - eps), min(bern.high, mean + eps)
            records.append({"part": "mc", "coordinate": int(i), "x_i": float(part["x_i"].iloc[0]),
                            "gradient": grad, "mean": mean, "low": low, "high": high,
                            "half_width": 0.5 * (high - low), "samples": n,
                            "contains_gradient": low <= grad <= high, "range": r})
        summary = pd.DataFrame(records)
        n = int(summary["samples"].iloc[0])
        worst = summary.loc[(summary["mean"] - summary["gradient"]).abs().idxmax()]
        observed = float(abs(worst["mean"] - worst["gradient"]))
        max_read = int(mc["max_read"].max())
        head = (f"Monte-Carlo part (d = {d}, k = {p['mc_k']}, {n} draws, at most {max_read} attributes read "
                f"per draw): per coordinate the intersection of a Hoeffding and an empirical-Bernstein interval, "
                f"each at δ/(2d) = {per_delta:.3g}, union bound over the {d} coordinates (total δ = "
                f"{p['delta']:g}); FAIL if an interval excludes the exact gradient, PASS if none does and every "
                f"half-width is ≤ resolution {p['resolution']:g}.")
        if out_of_range:
            i, largest, r = out_of_range[0]
            return INCONCLUSIVE, (
                f"{head} INCONCLUSIVE: the subject drew values outside the range that eqs. (6)–(8) allow on "
                f"{len(out_of_range)} coordinates (first: coordinate {i}, |g_i| = {largest:.6g} > {r:.6g}), "
                "so the range-based intervals do not apply; the subject is not the estimator of eqs. (6)–(8)."
            ), summary, observed
        missed = summary[~summary["contains_gradient"]]
        if len(missed):
            bad = missed.loc[(missed["mean"] - missed["gradient"]).abs().idxmax()]
            return FAIL, (
                f"{head} FAIL: {len(missed)} of {d} intervals exclude the gradient; worst coordinate "
                f"{int(bad['coordinate'])}: mean {bad['mean']:.6g} in [{bad['low']:.6g}, {bad['high']:.6g}] but "
                f"2(⟨w,x⟩ − y)x_i = {bad['gradient']:.6g}."), summary, observed
        widest = float(summary["half_width"].max())
        if widest <= p["resolution"]:
            return PASS, (f"{head} PASS: every interval contains the gradient; largest half-width {widest:.3g}, "
                          f"largest |mean − gradient| {observed:.3g}."), summary, observed
        need = stats.samples_for_resolution(p["resolution"], 2 * float(summary["range"].max()), per_delta)
        return INCONCLUSIVE, (
            f"{head} INCONCLUSIVE: every interval contains the gradient, but the largest half-width {widest:.3g} "
            f"exceeds the resolution; about {need} draws in all (Hoeffding) would suffice."), summary, observed
