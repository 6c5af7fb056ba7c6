"""Subjects that end the process running them, for tests/test_faults.py: a replacement of the
``instance`` subject of cbss11.thm2 and cbss11.thm3 (Theorem 3's parameters carry ``c``)."""

import os
import signal


def dying_instance(params):
    """Theorem 2's claim: a segmentation fault; Theorem 3's: an exit with status 3."""
    if "c" in params:
        os._exit(3)
    os.kill(os.getpid(), signal.SIGSEGV)
