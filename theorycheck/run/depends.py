"""What a user's subject depends on beyond its own source, recorded in the worker process that ran it, so that a cached
task (or conformance record) is served again only while all of it is unchanged.

A worker records, from its start (:func:`start`), every file it opened for reading (an audit hook on ``open``) and
every environment variable it read (``os.environ`` seen through a recording view); after a task,
:func:`recorded` adds the files of every module it has imported (lazy imports included) and keeps the user's
files: those outside the standard library, site-packages, the Python installation and theorycheck's own packages
(which :func:`~theorycheck.run.provenance.code_version` covers), each with the hash of its bytes. This process
then fills in the environment variables' values (:func:`settled`) before the record is stored, and
:func:`changed` says what differs from the record now.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from pathlib import Path
from typing import Any

from .provenance import OWN_PACKAGES, _source_hash

_READ: set[str] = set()
_WRITTEN: set[str] = set()
_ENV: set[str] = set()
_STARTED: list[bool] = []


class _RecordingEnviron(os._Environ):  # type: ignore[name-defined]  # os.environ's own class
    """``os.environ``, noting each name read (``get``, ``in`` and ``os.getenv`` all read through here)."""

    def __getitem__(self, key):
        _ENV.add(key)
        return super().__getitem__(key)


def _audit(event: str, args: tuple) -> None:
    if event != "open":
        return
    try:
        path, mode, flags = args
        if isinstance(path, int):
            return
        path = os.path.abspath(os.fsdecode(path))
        writes = (any(c in mode for c in "wax+") if isinstance(mode, str)
                  else bool((flags or 0) & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)))
        (_WRITTEN if writes else _READ).add(path)
    except Exception:  # an audit hook must never raise into the code it watches
        pass


def start() -> None:
    """Record, from now on in this process, the files it opens and the environment variables it reads (once; an
    audit hook cannot be removed, so only worker processes call this)."""
    if _STARTED:
        return
    _STARTED.append(True)
    sys.addaudithook(_audit)
    if type(os.environ) is os._Environ:  # type: ignore[attr-defined]
        os.environ.__class__ = _RecordingEnviron


@functools.cache
def _outside() -> tuple[str, ...]:
    """The folders whose files are not the user's: the Python installation, its libraries and theorycheck's own."""
    import importlib

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, *(sysconfig.get_paths().get(k, "") for k in
                                                              ("stdlib", "platstdlib", "purelib", "platlib"))}
    for name in OWN_PACKAGES:
        try:
            roots.add(str(Path(importlib.import_module(name).__file__).parent))
        except (ImportError, TypeError):
            continue
    return (*(str(Path(r).resolve()) + os.sep for r in roots if r), "/proc/", "/sys/", "/dev/")


_USERS: dict[str, str | None] = {}  # path: what _users found, once per path and process (a task imports hundreds)


def _users(path: str, outside: tuple[str, ...]) -> str | None:
    """``path`` resolved when it is one of the user's files (see the module's text), else None; remembered, since
    after each task every imported module's file is asked again (200 ms a task when each was resolved anew)."""
    if path not in _USERS:
        _USERS[path] = _classified(path, outside)
    return _USERS[path]


def _classified(path: str, outside: tuple[str, ...]) -> str | None:
    try:
        resolved = Path(path).resolve()
        if not resolved.is_file():
            return None
    except (OSError, ValueError):
        return None
    text = str(resolved)
    if (text.startswith(outside) or {"site-packages", "dist-packages", "__pycache__", ".cache"} & set(resolved.parts)
            or resolved.suffix == ".pyc"):
        return None
    return text


def recorded() -> dict[str, Any]:
    """{"files": {path: hash of its bytes}, "env": [names]} of what this process has read so far (see the module's
    text): the files of the modules it imported and those it opened for reading but never for writing."""
    outside = _outside()
    paths = {getattr(m, "__file__", None) for m in list(sys.modules.values())} | (_READ - _WRITTEN)
    files = {found for p in paths if isinstance(p, str) and (found := _users(p, outside)) is not None}
    return {"files": {p: _source_hash(Path(p)) for p in sorted(files)}, "env": sorted(_ENV)}


def settled(depends: dict[str, Any]) -> dict[str, Any]:
    """A worker's record with each environment variable's value in this process (None when unset): the values a
    later run compares with (a worker's own environment may differ by what the pool sets in it)."""
    return {"files": dict(depends.get("files", {})), "env": {n: os.environ.get(n) for n in depends.get("env", ())}}


def well_formed(depends: Any) -> bool:
    """Whether ``depends`` has the shape :func:`settled` gives."""
    return (isinstance(depends, dict) and set(depends) == {"files", "env"}
            and isinstance(depends["files"], dict) and isinstance(depends["env"], dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in depends["files"].items())
            and all(isinstance(k, str) and isinstance(v, str | None) for k, v in depends["env"].items()))


def changed(depends: dict[str, Any]) -> str | None:
    """What differs now from a settled record, in a few words (None when nothing does)."""
    for path, digest in depends["files"].items():
        if _source_hash(Path(path)) != digest:
            return f"{path} changed"
    for name, value in depends["env"].items():
        if os.environ.get(name) != value:
            return f"the environment variable {name} changed"
    return None


def with_depends(function, *args) -> Any:
    """``function(*args)`` in a worker, a dict result with what the worker has read (:func:`recorded`) as its
    ``depends``: for a record stored in the cache (a subject's conformance)."""
    start()
    result = function(*args)
    return {**result, "depends": recorded()} if isinstance(result, dict) else result
