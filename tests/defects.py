"""Planted defects, importable by the CLI as `--subject NAME=tests.defects:ATTR`.

The defects of the bound and lower-bound claims (hk12.thm3.1/3.4, cbss11.thm2/3) live in
tests/defects_bounds.py."""

from fractions import Fraction


def subset_average_wrong_normaliser(values):
    """Divides by k + 1 instead of k: Lemma 7 must fail."""
    return sum(values, Fraction(0)) / (len(values) + 1)
