"""Subjects that end the process running them, or return what their contract excludes, for
tests/test_faults.py and tests/test_subject_failures.py: a replacement of the ``instance`` subject
of cbss11.thm2 and cbss11.thm3 (Theorem 3's parameters carry ``c``), replacements of cbss11.lemma7's
``subset_average``, and learners for ``theorycheck conform AERR``."""

import ctypes
import os
import signal
import sys
import time
from fractions import Fraction

import numpy as np

from theorycheck.algorithms import AERR


def dying_instance(params):
    """Theorem 2's claim: a segmentation fault; Theorem 3's: an exit with status 3."""
    if "c" in params:
        os._exit(3)
    os.kill(os.getpid(), signal.SIGSEGV)


def _ends(how: str) -> None:
    """End the process running the subject as ``how`` says: exit0, exit1, sysexit3, segfault or hang."""
    if how == "exit0":
        os._exit(0)
    if how == "exit1":
        os._exit(1)
    if how == "sysexit3":
        sys.exit(3)
    if how == "segfault":
        ctypes.string_at(0)
    if how == "hang":
        while True:
            time.sleep(1)


def _average_that(how):
    def subset_average(values):
        _ends(how)

    subset_average.__name__ = subset_average.__qualname__ = f"average_{how}"
    return subset_average


def _learner_that(how):
    class Learner(AERR):
        def fit(self, X, y):
            _ends(how)

    Learner.__name__ = Learner.__qualname__ = f"AERR_{how}"
    return Learner


ENDINGS = ("exit0", "exit1", "sysexit3", "segfault", "hang")
for _how in ENDINGS:
    globals()[f"average_{_how}"] = _average_that(_how)
    globals()[f"AERR_{_how}"] = _learner_that(_how)

#: what a subset_average may wrongly return, by name: each is SUBJECT-ERROR naming it
RETURNED = {"nan": float("nan"), "inf": float("inf"), "none": None, "text": "1/2",
            "array": np.array([Fraction(1, 2), Fraction(1, 2)]), "float": 0.5}


def _average_returning(name):
    def subset_average(values):
        return RETURNED[name]

    subset_average.__name__ = subset_average.__qualname__ = f"average_returns_{name}"
    return subset_average


for _name in RETURNED:
    globals()[f"average_returns_{_name}"] = _average_returning(_name)
