"""Exact checks of lemmas of Cesa-Bianchi, Shalev-Shwartz & Shamir (JMLR 2011)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from theorycheck.claims import Claim, Evidence, Measurement, Plot, register
from theorycheck.stats import FAIL, PASS
from theorycheck.validation import check_int


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
