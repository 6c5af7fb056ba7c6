"""theorycheck.memory: importing the learners keeps freed memory in glibc's heap, so that the next
fit at large d reuses pages instead of faulting fresh ones; THEORYCHECK_KEEP_FREED_MEMORY=0 turns
it off."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

from theorycheck.memory import MMAP_THRESHOLD

_PROBE = """
import ctypes, numpy as np, theorycheck.algorithms
from theorycheck.memory import keep_freed_memory
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]
info = ctypes.CDLL(None).mallinfo2
info.restype = Info
a = np.ones(2**21)  # 16 MiB, below the mmap threshold once it is set
mapped = info().hblkhd
del a
print(keep_freed_memory(), mapped, info().fordblks)
"""


def _probe(**env) -> tuple[bool, int, int]:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True,
                         env={**os.environ, **env}).stdout.split()
    return out[0] == "True", int(out[1]), int(out[2])


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "mallinfo2"), reason="glibc ≥ 2.33 only (mallinfo2)")
def test_importing_the_learners_keeps_a_freed_array_in_the_heap():
    size = 2**21 * 8
    assert size < MMAP_THRESHOLD
    kept, mapped, free = _probe(THEORYCHECK_KEEP_FREED_MEMORY="1")
    assert kept
    assert mapped < size  # the array came from the heap, not from its own mapping
    assert free >= size  # and its pages stay there after it is freed
    assert _probe(THEORYCHECK_KEEP_FREED_MEMORY="0")[0] is False
