"""Freed memory kept for the next fit.

A learner's fit at dimension d allocates a few arrays of length d (its sum-trees, the lazy
averages, the stamps). glibc's malloc serves a block larger than its mmap threshold with fresh
pages from the kernel and hands them back when the block is freed, and it also gives back the
top of the heap once more than its trim threshold is free there. Either way the next fit touches
new pages, and each costs a page fault: measured on this project's machine, an AERR fit of one
example at d = 10⁵ took 3.6 ms, of which 0.26 ms remain once freed memory is kept.

:func:`keep_freed_memory` therefore sets both thresholds (``mallopt``): blocks below 32 MiB
(glibc's own ceiling for its adaptive threshold) come from the heap, and up to 256 MiB of free
heap is kept for reuse. Importing :mod:`theorycheck.algorithms` calls it once, unless the
environment variable ``THEORYCHECK_KEEP_FREED_MEMORY`` is ``0``. It changes when memory is
returned to the operating system, never what a program computes; on a C library other than
glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_freed_memory"]

MMAP_THRESHOLD = 32 * 2**20  # bytes: smaller blocks come from the heap
TRIM_THRESHOLD = 256 * 2**20  # bytes of free heap kept before any is returned

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers (glibc's malloc.h)


def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds to :data:`MMAP_THRESHOLD` and :data:`TRIM_THRESHOLD`
    (see the module's documentation). Returns whether they were set: False where the C library
    has no ``mallopt`` (not glibc) or refuses a value, or when ``THEORYCHECK_KEEP_FREED_MEMORY=0``."""
    if os.environ.get("THEORYCHECK_KEEP_FREED_MEMORY", "1").strip() == "0":
        return False
    try:  # the symbols the interpreter is linked with (no library search: that costs 10 ms at import)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
