"""What a verify run stores, read back through one schema.

``results/<id>.json`` (one claim's record) and ``summary.json`` (the run) are read by ``show``,
``report``, ``errata`` and the Python API. Every read goes through :func:`read_result` or
:func:`read_summary`: a file that cannot be read, is not JSON, or whose fields do not have the
types the runner writes is reported in one line on stderr and set aside (None), so a damaged or
hand-edited file never ends in a traceback. Missing optional fields get the runner's defaults.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["read_result", "read_summary"]

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
