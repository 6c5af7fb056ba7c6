"""The first import of a user's module (``--subject``, ``--claims``), in a Python process of its own, so that a module
that exits, aborts, segfaults or hangs at import cannot end theorycheck's process; and the record of the user's
modules imported into this process afterwards, which :mod:`theorycheck.run.execute` reads to keep the built-in
claims away from them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

#: the user's modules that theorycheck imported into this process (``--subject``, ``--claims``) during the command or
#: API call that is running (:func:`guarded`): from then on, until it returns, the built-in claims run in workers of
#: their own, which never load a user's code (:func:`expose`)
_EXPOSED: set[str] = set()
_GUARDS: list[None] = []


@contextlib.contextmanager
def guarded():
    """The span of one command (``theorycheck verify``, ``conform``, ...) or one API call: a user's module that
    theorycheck imports within it (:func:`expose`) keeps the built-in claims away from this process until it ends.
    Outside it, theorycheck imports nothing of the user's by name: the caller's process, with its own imports
    (a test session, a notebook), runs the built-in claims as it runs everything else."""
    _GUARDS.append(None)
    try:
        yield
    finally:
        _GUARDS.pop()
        if not _GUARDS:
            _EXPOSED.clear()


def expose(module: str) -> None:
    """Note that a user's ``module`` was imported into this process, which it may have patched (numpy.linalg, say):
    within the running command (:func:`guarded`), the built-in claims then run in workers of their own, and never in
    this process with the cache."""
    if _GUARDS:
        _EXPOSED.add(module)


def exposed() -> frozenset[str]:
    """The user's modules imported into this process within the running command (:func:`expose`)."""
    return frozenset(_EXPOSED)


#: seconds a user's module may take to import in its worker before it counts as hanging
IMPORT_SECONDS = 600.0

#: the first import of a user's module, in a Python process of its own: it says how the import ended on stdout,
#: after a token, and exits at once (no atexit hook of the module runs)
_PROBE = """import importlib, os, sys
token, name = sys.argv[1], sys.argv[2]
try:
    importlib.import_module(name)
    said = "imported"
except SystemExit as err:
    said = f"called sys.exit({err.code!r})"
except Exception:
    said = "imported"
except BaseException as err:
    said = "raised " + type(err).__name__
sys.stdout.flush()
os.write(1, (token + said).encode())
os._exit(0)
"""


def import_in_worker(module: str, seconds: float = IMPORT_SECONDS) -> str | None:
    """Import ``module`` first in a Python process of its own (with this process's folder and sys.path), so a
    module that exits, aborts, segfaults or hangs at import cannot end this process: None when the import returned
    (or raised an Exception, which the caller's own import reports), else how it ended, in a few words."""
    token = f"theorycheck-probe-{os.urandom(8).hex()}:"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, token, module], capture_output=True, env=env,
                              stdin=subprocess.DEVNULL, timeout=seconds)
    except subprocess.TimeoutExpired:
        return f"did not finish within {seconds:g} s"
    said = done.stdout.decode("utf-8", "replace").rpartition(token)[2] if token.encode() in done.stdout else None
    if said == "imported":
        return None
    if said:
        return said
    if done.returncode < 0:
        return f"ended its worker with signal {signal.Signals(-done.returncode).name}"
    return f"ended its worker with exit status {done.returncode}"
