"""Where a result comes from: the code version, the machine, the seeds and the cache keys.

Seeds. Task ``r`` of claim ``c`` under base seed ``s`` draws from
``SeedSequence(s, spawn_key=(h(c), r))`` where ``h`` is a fixed hash of the claim id, so a
stream never depends on run order, on ``--jobs`` or on which other claims run.

Cache keys hash the claim id, its parameters, the seed, the subjects (name and source, and the source of the
user's modules each may call, :func:`user_modules`) and the code version (every source file of theorycheck,
proofs and simulations, plus the versions of the numeric libraries).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..claims import Claim, subject_name

_LIBRARIES = ("numpy", "scipy", "numba", "pandas", "scikit-learn", "matplotlib", "seaborn")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def library_versions() -> dict[str, str]:
    versions = {}
    for name in ("theorycheck", *_LIBRARIES):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def environment() -> dict[str, Any]:
    """The machine and package versions, printed on every report page."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "cpus": os.cpu_count(),
        "packages": library_versions(),
    }


_CODE_VERSION: str | None = None


def code_version() -> str:
    """Hash of every source file the claims can depend on, and of the library versions."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        import proofs
        import simulations

        digest = hashlib.sha256()
        for root in (Path(__file__).parents[1], Path(proofs.__file__).parent, Path(simulations.__file__).parent):
            for path in sorted(root.rglob("*")):
                if path.suffix in (".py", ".html", ".css") and "__pycache__" not in path.parts:
                    digest.update(str(path.relative_to(root.parent)).encode())
                    digest.update(path.read_bytes())
        digest.update(json.dumps(library_versions(), sort_keys=True).encode())
        _CODE_VERSION = digest.hexdigest()[:16]
    return _CODE_VERSION


def claim_hash(claim_id: str) -> int:
    return int.from_bytes(hashlib.sha256(claim_id.encode()).digest()[:8], "little")


def task_seed(base_seed: int, claim_id: str, repetition: int) -> np.random.SeedSequence:
    """The random stream of one task: a function of (base seed, claim id, repetition) only."""
    return np.random.SeedSequence(base_seed, spawn_key=(claim_hash(claim_id), repetition))


def _subject_fingerprint(obj: Any) -> str:
    """Name and source hash of a subject, so editing your own implementation invalidates
    its cached measurements (instances are fingerprinted by their class and attributes), and the
    source of the user's modules it may call (:func:`user_modules`), so editing a helper does too."""
    if isinstance(obj, tuple | list):
        return "[" + ",".join(_subject_fingerprint(o) for o in obj) + "]"
    is_code = inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)
    try:
        source = inspect.getsource(obj if is_code else type(obj))
    except (OSError, TypeError):
        source = getattr(obj, "__name__", "") or type(obj).__qualname__
    if not is_code:
        source += repr(sorted((k, repr(v)) for k, v in vars(obj).items())) if hasattr(obj, "__dict__") else ""
    source += json.dumps(sorted(user_modules(obj).items()))
    return subject_name(obj) + ":" + hashlib.sha256(source.encode()).hexdigest()[:12]


#: the packages whose every source file :func:`code_version` hashes: a subject defined there is built in
OWN_PACKAGES = ("theorycheck", "proofs", "simulations")


def _module_of(obj: Any) -> str:
    return getattr(obj, "__module__", None) or type(obj).__module__ or ""


def own_code(obj: Any) -> bool:
    """Whether ``obj`` (a function, class or instance, or a tuple of them) is defined in theorycheck, proofs or
    simulations: a built-in subject, which may run in this process (:func:`code_version` covers its source)."""
    if isinstance(obj, tuple | list):
        return all(own_code(o) for o in obj)
    return _module_of(obj).split(".", 1)[0] in OWN_PACKAGES


def user_modules(obj: Any) -> dict[str, str]:
    """{file: hash of its source} of the user's modules that ``obj`` may call: every loaded module whose file lies
    in the folder of obj's top-level package (or, for a module that is a single file, in its folder), leaving out
    installed packages (site-packages) and theorycheck's own, which :func:`code_version` covers. Empty for a
    built-in subject. Editing a helper the subject calls changes it, so its cached tasks are not served again."""
    if isinstance(obj, tuple | list):
        return {path: digest for o in obj for path, digest in user_modules(o).items()}
    top = _module_of(obj).split(".", 1)[0]
    file = getattr(sys.modules.get(top), "__file__", None)
    if top in OWN_PACKAGES or not file:
        return {}
    inside = str(_resolved(file).parent) + os.sep
    found = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            continue
        name = getattr(module, "__name__", "") or ""
        path = _resolved(path)
        if (str(path).startswith(inside) and name.split(".", 1)[0] not in OWN_PACKAGES
                and not {"site-packages", "dist-packages"} & set(path.parts)):
            found[str(path)] = _source_hash(path)
    return dict(sorted(found.items()))


@functools.cache
def _resolved(file: str) -> Path:
    """``Path(file).resolve()``, once per file name: :func:`user_modules` looks at every loaded module on every
    subject it fingerprints, and resolving them all each time cost a tenth of a second per call."""
    return Path(file).resolve()


_SOURCE_HASHES: dict[tuple[str, int, int], str] = {}


def _source_hash(path: Path) -> str:
    """sha256 of a file's bytes, remembered while its size and modification time stay the same."""
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in _SOURCE_HASHES:
            _SOURCE_HASHES[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return _SOURCE_HASHES[key]
    except OSError:
        return "unreadable"


def cache_key(claim: Claim, params: dict, seed: int, subjects: dict) -> str:
    payload = {
        "claim": claim.id,
        "class": subject_name(type(claim)),
        "params": params,
        "seed": seed,
        "subjects": {k: _subject_fingerprint(v) for k, v in sorted(subjects.items())},
        "code": code_version(),
    }
    text = json.dumps(payload, sort_keys=True, default=_json_default)
    return hashlib.sha256(text.encode()).hexdigest()[:20]
