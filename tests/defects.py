"""Planted defects, importable by the CLI as `--subject NAME=tests.defects:ATTR`."""

from fractions import Fraction

import numpy as np

from theorycheck.generators.hypercube import HypercubeInstance, uniform_l2_instance


def subset_average_wrong_normaliser(values):
    """Divides by k + 1 instead of k: Lemma 7 must fail."""
    return sum(values, Fraction(0)) / (len(values) + 1)


class CopiedAttributes(HypercubeInstance):
    """Every attribute is a copy of the first: reading one attribute reveals y exactly."""

    def sample(self, n, rng_state):
        X, _ = super().sample(n, rng_state)
        X[:] = X[:, :1]
        return X, X @ self.w_star


def copied_attributes_instance(p):
    return CopiedAttributes(uniform_l2_instance(p["d"]).w_star)


class ScaledFirst:
    """Knows the attributes are copies and predicts y from one of them."""

    name = "scaled first attribute"

    def predict(self, oracle, k, w_star, rng):
        return oracle.reveal_column(0) * w_star.sum()


class Peeker:
    """Reads k + 1 attributes: not k-active."""

    name = "peeker"

    def predict(self, oracle, k, w_star, rng):
        pred = np.zeros(oracle.n)
        for j in range(min(k + 1, oracle.d)):
            pred += w_star[j] * oracle.reveal_column(j)
        return pred


PEEKER = (Peeker(),)
SCALED_FIRST = (ScaledFirst(),)
