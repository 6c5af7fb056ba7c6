"""Subjects that try to reach theorycheck's own process, for tests/test_isolation.py: a subset average of
cbss11.lemma7 and an AERR learner (for ``conform AERR``) that does not pickle, raises a BaseException, exits
with status 0 or sleeps, raises KeyboardInterrupt or GeneratorExit; importable without pytest."""

import os
import threading
import time
from fractions import Fraction

from theorycheck.algorithms import AERR


class Planted(BaseException):
    """Not an Exception: ``except Exception`` lets it through."""


def _does(how: str) -> None:
    if how == "base":
        raise Planted("planted BaseException")
    if how == "interrupt":
        raise KeyboardInterrupt("the subject's own, not the user's")
    if how == "genexit":
        raise GeneratorExit("a generator's own ending, raised by hand")
    if how == "exit0":
        os._exit(0)
    if how == "sleep":
        time.sleep(3600)


def _average_that(how):
    def subset_average(values):
        _does(how)
        return sum(values, Fraction(0)) / len(values)

    subset_average.__name__ = subset_average.__qualname__ = f"average_{how}"
    return subset_average


def _learner_that(how):
    class Learner(AERR):
        def fit(self, X, y):
            _does(how)
            return super().fit(X, y)

    Learner.__name__ = Learner.__qualname__ = f"AERR_{how}"
    return Learner


HOWS = ("base", "interrupt", "genexit", "exit0", "sleep")
for _how in HOWS:
    globals()[f"average_{_how}"] = _average_that(_how)
    globals()[f"AERR_{_how}"] = _learner_that(_how)


class LockedAverage:
    """A correct subset average whose instance holds a lock, which does not pickle."""

    def __init__(self):
        self.lock = threading.Lock()

    def __call__(self, values):
        with self.lock:
            return sum(values, Fraction(0)) / len(values)


class LockedAERR(AERR):
    """AERR whose instance holds a lock, which does not pickle."""

    def __init__(self, k=2, B=1.0, eta=None, lock=None):
        super().__init__(k=k, B=B, eta=eta)
        self.lock = threading.Lock() if lock is None else lock


locked_average = LockedAverage()
locked_aerr = LockedAERR()
