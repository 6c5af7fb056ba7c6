"""What a run writes, and how it is read back, through one schema.

Output. ``<out>/results/<id>.json`` (one claim's record), ``<out>/tables/<id>.csv`` (measurements),
``<out>/tables/<id>.summary.csv``, ``<out>/summary.json`` (the run) and the task cache
``<out>/.cache/<claim>/<key>/task-<r>.json``; every file is written to a temporary name in the same folder and
renamed into place (:func:`write_atomic`), so a reader sees the old file or the new one, never half.

Reading. ``show``, ``report``, ``errata`` and the Python API read a result or a summary through
:func:`read_result` or :func:`read_summary`: a file that cannot be read, is not JSON, or whose fields do not
have the types a run writes (:data:`RESULT_FIELDS`, :data:`SUMMARY_FIELDS`) is reported in one line on stderr
and set aside (None), so a damaged or hand-edited file never ends in a traceback. Missing optional fields get
the defaults. A damaged cached task is recomputed (:func:`_read_cached_task`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from .. import stats
from ..verdicts import Verdict, headline
from .provenance import _json_default, code_version

#: the errors of a write that the disk refuses: full, over quota, read-only, file too large
STORAGE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG)


class NotWritten(OSError):
    """A write under the output folder was refused by the disk (:data:`STORAGE_ERRNOS`) during a
    run; its text says in one line which file, what the run had stored before it and what not."""

    def __str__(self) -> str:
        return self.strerror


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half. A
    write that the disk refuses (:data:`STORAGE_ERRNOS`) raises OSError naming ``path``."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = "wb" if isinstance(data, bytes) else "w"
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=_TMP, dir=path.parent)
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600; a report is for sharing
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and err.errno in STORAGE_ERRNOS:
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


_TMP = ".tmp"


_UMASK: int | None = None


def remove_orphans(out: Path) -> list[Path]:
    """Delete the temporary files that a killed writer left under ``out`` (``.<name>.<pid>.*.tmp``
    whose process no longer runs; a SIGKILL leaves no chance to clean up) and return them."""
    removed = []
    for tmp in Path(out).rglob(f".*{_TMP}"):
        parts = tmp.name.split(".")
        pid = next((int(p) for p in reversed(parts[:-2]) if p.isdigit()), None)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        tmp.unlink(missing_ok=True)
        removed.append(tmp)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _umask() -> int:
    """The process's umask (read once: reading it means setting it)."""
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def write_json(path: Path, obj: Any, *, sort_keys: bool = True) -> None:
    """Write ``obj`` as JSON, atomically. A cached task keeps its keys in order (``sort_keys=False``):
    its rows' keys become the table's columns, which must not depend on whether a task came from
    the cache."""
    write_atomic(path, json.dumps(obj, indent=2, sort_keys=sort_keys, default=_json_default) + "\n")


def check_run_folder(text, claims=(), *, power: bool = False, option: str = "--out", files=()) -> Path:
    """The output folder of a run of ``claims``, checked before any work (see
    :func:`theorycheck.validation.check_output_folder`): the files the run writes are not folders, and
    the folders it writes into are not files. ``power``: the planted defects' runs go in ``.power``."""
    from ..validation import check_output_folder

    files = ["summary.json", "index.html", "errata.html", "scaling.json", *files]
    folders = ["results", "tables", ".cache", *([".power"] if power else [])]
    for claim in claims:
        files += [f"results/{claim.id}.json", f"tables/{claim.id}.csv", f"tables/{claim.id}.summary.csv",
                  f"{claim.id}.html"]
        folders.append(f".cache/{claim.id}")
    return check_output_folder(text, option=option, files=files, folders=folders)


def _from_cache(plans, key, stored, use_cache: bool) -> bool:
    """Load task ``key`` from the cache into ``stored``; False when it must be run."""
    i, r = key
    path = plans[i].cache_dir / f"task-{r}.json"
    if use_cache and path.exists():
        payload = _read_cached_task(path)
        if payload is not None:
            stored[key] = payload
            return True
    return False


#: cached runs kept per claim: the one just used and the most recently used others (another
#: profile, seed or subject); older ones, e.g. of an earlier code version, are deleted
CACHE_KEPT_PER_CLAIM = 4


def prune_cache(used: Path) -> None:
    """Mark ``used`` as just used and delete its claim's cached runs beyond CACHE_KEPT_PER_CLAIM."""
    if not used.is_dir():
        return
    os.utime(used)
    runs = [p for p in used.parent.iterdir() if p.is_dir() and len(p.name) == 20 and p != used]
    runs.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in runs[CACHE_KEPT_PER_CLAIM - 1:]:
        shutil.rmtree(stale, ignore_errors=True)


def checksum(record: dict[str, Any]) -> str:
    """The sha256 of ``record`` without its ``checksum`` field, in a canonical JSON: stored with a task or a
    conformance record and compared on reading, so a record edited by hand is not trusted."""
    text = json.dumps({k: v for k, v in record.items() if k != "checksum"}, sort_keys=True, default=_json_default)
    return hashlib.sha256(text.encode()).hexdigest()


def sealed(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its ``depends`` settled (:func:`~theorycheck.run.depends.settled`, when a worker recorded
    them) and its :func:`checksum`: what the cache stores."""
    from .depends import settled

    record = {k: v for k, v in record.items() if k != "checksum"}
    if "depends" in record:
        record["depends"] = settled(record["depends"])
    return {**record, "checksum": checksum(record)}


def unsealed(record: Any) -> tuple[dict[str, Any] | None, str]:
    """A stored record without its seal, or None and why it cannot be used: it has no seal ("unsealed": written by
    an earlier version, or by hand), its checksum does not match (damaged or edited), its ``depends`` are
    malformed, or one of them changed since (then the why starts "changed: ")."""
    from .depends import changed, well_formed

    if isinstance(record, dict) and "checksum" not in record:
        return None, "unsealed"
    if not isinstance(record, dict) or record.get("checksum") != checksum(record):
        return None, "its checksum does not match (damaged or edited)"
    depends = record.get("depends")
    if depends is not None and not well_formed(depends):
        return None, "its dependencies are malformed"
    moved = changed(depends) if depends is not None else None
    if moved is not None:
        return None, "changed: " + moved
    return {k: v for k, v in record.items() if k not in ("checksum", "depends")}, ""


def write_task(path: Path, payload: dict[str, Any]) -> None:
    """Store a task's payload in the cache, sealed (:func:`sealed`), in place of whatever is there (the cache is
    theorycheck's: a folder left at a task's file is removed, a link is replaced, never followed)."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    write_json(path, sealed(payload), sort_keys=False)


def _read_cached_task(path: Path) -> dict | None:
    """A stored task, or None when it must be recomputed: with a one-line warning when the file is unreadable, not
    of the shape the runner writes, or its checksum does not match (a damaged or hand-edited file is not trusted);
    silently when a file or environment variable it depends on changed since (:mod:`~theorycheck.run.depends`), or
    an earlier version stored it without a seal."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # ValueError covers bad JSON and bytes that are not UTF-8; OSError a folder
        raw = None
    payload, why = unsealed(raw)
    if why.startswith("changed: "):
        return None
    candidate = raw if why == "unsealed" else payload
    shaped = (isinstance(candidate, dict) and isinstance(candidate.get("rows"), list)
              and all(isinstance(row, dict) for row in candidate["rows"])
              and isinstance(candidate.get("hypotheses"), list)
              and all(isinstance(h, dict) and {"statement", "met"} <= set(h) for h in candidate["hypotheses"])
              and isinstance(candidate.get("seconds"), int | float))
    if not shaped or why not in ("", "unsealed"):
        print(f"theorycheck: warning: the cached task {path} is damaged{' or was edited' * shaped}; it is "
              "recomputed", file=sys.stderr)
        return None
    return payload  # None, silently, for a task an earlier version stored without a seal


def _store_result(out: Path, plan, record: dict[str, Any]) -> None:
    table = record.pop("_table", None)
    summary = record.pop("_summary", None)
    cid = plan.claim.id
    if table is not None:
        write_atomic(out / "tables" / f"{cid}.csv", table.to_csv(index=False))
        record["table_file"] = f"tables/{cid}.csv"
    if summary is not None:
        write_atomic(out / "tables" / f"{cid}.summary.csv", summary.to_csv(index=False))
        record["summary_file"] = f"tables/{cid}.summary.csv"
    write_json(out / "results" / f"{cid}.json", record)


def write_summary(out: Path, records, *, profile: str, seed: int, env,
                  wall_seconds: float | None = None, unfinished: int = 0) -> dict[str, Any]:
    """Write ``summary.json``: one row per claim (``seconds`` is CPU time, summed over the claim's
    tasks; ``headline`` the first line of its decision; ``delta_share`` its δ over the run's sum of
    δ, its share of the family-wise error) and the run's wall time; during a run, ``unfinished``
    counts the selected claims not decided yet."""
    keys = ("id", "paper", "citation", "title", "reference", "kind", "verdict", "observed", "theory",
            "ratio", "ratio_at_least", "trivial", "vacuous", "vacuous_reason", "delta", "params", "subjects",
            "replaced", "seconds", "profile", "seed")
    stochastic = [r["delta"] for r in records if r.get("delta") is not None]
    shares = stats.delta_shares(r.get("delta") for r in records)
    summary = {
        "claims": [{**{k: r.get(k) for k in keys}, "delta_share": share,
                    "headline": headline(r.get("decision"), r.get("verdict"))}
                   for r, share in zip(records, shares, strict=True)],
        "wall_seconds": wall_seconds,
        "unfinished": unfinished,
        "profile": profile,
        "seed": seed,
        "family_wise_delta": stats.union_delta(stochastic),
        "family_wise_method": (
            "union bound (Bonferroni) over the stochastic claims of this run: the probability "
            "that any true claim is marked FAIL is at most the sum of their δ; each claim's share (delta_share) is its "
            "δ over that sum"
        ),
        "counts": {v: sum(r["verdict"] == v for r in records) for v in Verdict},
        "code_version": code_version(),
        "environment": env,
    }
    write_json(out / "summary.json", summary)
    return summary


def load_result(out: Path | str, claim_id: str) -> dict[str, Any] | None:
    """The stored result of ``claim_id``, or None when there is none or it cannot be read (then
    with a one-line warning)."""
    path = Path(out) / "results" / f"{claim_id}.json"
    return read_result(path) if path.exists() else None


# ---------------------------------------------------------------------- reading back
_TEXT, _NUMBER, _BOOL = (str,), (int, float), (bool,)
_NONE = (type(None),)
_REQUIRED = ("id", "verdict", "claims")

#: field -> (accepted types, default when missing); None as default: the field is required
RESULT_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "id": (_TEXT, None),
    "verdict": (_TEXT, None),
    "paper": (_TEXT, ""),
    "citation": (_TEXT, ""),
    "module": (_TEXT, ""),
    "title": (_TEXT, ""),
    "reference": (_TEXT, ""),
    "kind": (_TEXT, ""),
    "statement": (_TEXT, ""),
    "interpretation": (_TEXT, ""),
    "unchecked": (_TEXT, ""),
    "power": (_TEXT, ""),
    "decision": (_TEXT + _NONE, ""),
    "profile": (_TEXT, "?"),
    "seed": ((int,), 0),
    "seconds": (_NUMBER, 0.0),
    "observed": (_NUMBER + _NONE, None),
    "theory": (_NUMBER + _NONE, None),
    "ratio": (_NUMBER + _NONE, None),
    "interval": ((list, *_NONE), None),
    "trivial": (_NUMBER + _NONE, None),
    "delta": (_NUMBER + _NONE, None),
    "vacuous": (_BOOL, False),
    "ratio_at_least": (_BOOL, False),
    "params": ((dict,), {}),
    "subjects": ((dict,), {}),
    "protocols": ((dict,), {}),
    "replaced": ((dict, *_NONE), None),
    "errata": ((list,), []),
    "non_reproductions": ((list,), []),
    "errata_evidence": ((dict,), {}),
    "defects": ((list,), []),
    "power_runs": ((list,), []),
    "findings": ((list,), []),
    "notes": ((list,), []),
    "hypotheses": ((list,), []),
    "hypothesis_checks": ((list,), []),
    "plot": ((dict, *_NONE), None),
    "environment": ((dict,), {}),
    "table_file": (_TEXT + _NONE, None),
    "summary_file": (_TEXT + _NONE, None),
}
#: list fields whose items must be objects
_LISTS_OF_OBJECTS = ("errata", "non_reproductions", "defects", "power_runs", "findings", "hypothesis_checks")

SUMMARY_FIELDS: dict[str, tuple[tuple[type, ...], Any]] = {
    "claims": ((list,), None),
    "profile": (_TEXT, "?"),
    "seed": ((int,), 0),
    "wall_seconds": (_NUMBER + _NONE, None),
    "unfinished": ((int,), 0),
    "family_wise_delta": (_NUMBER + _NONE, 0.0),
    "family_wise_method": (_TEXT, ""),
    "counts": ((dict,), {}),
    "code_version": (_TEXT, "?"),
    "environment": ((dict,), {}),
}
#: fields of a summary's claim row: the result's, those the index reads
_ROW_FIELDS = ("id", "verdict", "paper", "title", "kind", "observed", "theory", "ratio", "trivial", "vacuous",
               "seconds", "profile", "seed")


#: what the pages print of the machine, when a stored summary or result lacks it
UNKNOWN_ENVIRONMENT = {"python": "?", "platform": "?", "machine": "?", "processor": "?", "cpus": "?", "packages": {}}


def _problem(data: Any, fields: dict[str, tuple[tuple[type, ...], Any]]) -> str | None:
    if not isinstance(data, dict):
        return f"it holds a JSON {type(data).__name__}, not an object"
    for name, (types, _default) in fields.items():
        if name not in data:
            if name in _REQUIRED:
                return f"it has no {name!r}"
            continue
        value = data[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return f"its {name!r} is a {type(value).__name__}"
    return None


def _warn(path: Path, why: str, what: str) -> None:
    print(f"theorycheck: warning: the stored {what} {path} is damaged ({why}); it is set aside", file=sys.stderr)


def _read_json(path: Path) -> tuple[Any, str | None]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8")), None
    except OSError as err:
        return None, err.strerror or str(err)
    except ValueError:
        return None, "not UTF-8 JSON"


def read_result(path: Path | str, *, quiet: bool = False) -> dict[str, Any] | None:
    """The record stored at ``path`` with defaults for missing optional fields, or None (after a
    one-line warning unless ``quiet``) when it is unreadable or of the wrong shape."""
    path = Path(path)
    data, error = _read_json(path)
    why = error or _problem(data, RESULT_FIELDS)
    if why is None:
        bad = next((name for name in _LISTS_OF_OBJECTS
                    if not all(isinstance(item, dict) for item in data.get(name, []))), None)
        why = f"its {bad!r} holds something other than objects" if bad else None
    if why is not None:
        if not quiet:
            _warn(path, why, "result")
        return None
    record = {**_defaults(RESULT_FIELDS), **data}
    record["environment"] = _environment(record["environment"])
    return record


def read_summary(path: Path | str, *, quiet: bool = False) -> dict[str, Any] | None:
    """The run summary stored at ``path`` (rows without the fields the index reads are filled
    with neutral values), or None after a one-line warning when it is unreadable or of the wrong
    shape (a row without an id, a row that is not an object, ...)."""
    path = Path(path)
    data, error = _read_json(path)
    why = error or _problem(data, SUMMARY_FIELDS)
    if why is None:
        for i, row in enumerate(data["claims"]):
            if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                why = f"its claims row {i} has no id"
                break
    if why is not None:
        if not quiet:
            _warn(path, why, "summary")
        return None
    data["environment"] = _environment(data.get("environment"))
    row_defaults = {k: v for k, v in _defaults(RESULT_FIELDS).items() if k in _ROW_FIELDS}
    return {**_defaults(SUMMARY_FIELDS), **data,
            "claims": [{**row_defaults, "verdict": "?", "headline": "", **row} for row in data["claims"]]}


def _environment(value) -> dict[str, Any]:
    """A stored machine description with every field the pages print (unknown ones as '?')."""
    if not isinstance(value, dict) or not isinstance(value.get("packages", {}), dict):
        value = {}
    return {**UNKNOWN_ENVIRONMENT, **value}


def _defaults(fields) -> dict[str, Any]:
    """Fresh copies of the defaults of the fields that are not required."""
    return {name: type(default)(default) if isinstance(default, list | dict) else default
            for name, (_, default) in fields.items() if name not in _REQUIRED}
