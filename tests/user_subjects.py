"""Subjects written outside theorycheck, as a user writes them, for the tests that need a correct user's subject on
a cheap claim (the front door's run of ``--subject``). Importable without pytest: ``.nox/verify`` has none."""

from fractions import Fraction


def subset_average(values):
    """cbss11's per-subset mean (1/k)·Σ f(c) over one k-subset, exact in Fractions, written from Lemma 7's text."""
    values = list(values)
    total = Fraction(0)
    for value in values:
        total += value
    return total / len(values)
