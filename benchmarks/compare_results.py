"""Compare two verify runs' results field by field: the check that a change of the code's layout left the
results alone (same profile, seed and claims in both runs).

    theorycheck verify --profile quick --jobs -1 --out /tmp/before     # on the old code
    theorycheck verify --profile quick --jobs -1 --out /tmp/after      # on the new code
    python benchmarks/compare_results.py /tmp/before /tmp/after

``--ids GLOB...`` compares only the claims whose ids match (a second run of a few claims beside a whole one):

    python benchmarks/compare_results.py /tmp/before /tmp/again --ids 'cbss11.lemma*' hk12.thm3.1

It reads every ``results/<id>.json`` of both folders (a claim present in one only is a difference),
every ``tables/*.csv`` they name (compared as text, so a value that changes in its last digit is a
difference) and ``summary.json``'s claim rows and counts, and prints one line per differing claim and
field (the path into the JSON, and both values, cut to 160 characters). Exit status 0 when nothing
differs, 1 when something does, 2 when a folder holds no results.

Ignored, at any depth of the JSON, and only these (:data:`IGNORED`), because they legitimately differ
between two runs of the same code on the same machine or between two versions of the code:

- ``seconds``, ``compile_seconds``, ``wall_seconds``: CPU and wall times;
- ``measured``: the date the scaling was measured;
- ``code_version``: the hash of the source files, which any edit changes;
- ``environment``: the machine and library versions (provenance, printed on the pages);
- ``tasks_from_cache``: how many tasks a run found in its cache (0 on a first run, all on a rerun).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path
from typing import Any

#: keys whose values are not compared, wherever they occur (see the module's docstring for why each)
IGNORED = frozenset({"seconds", "compile_seconds", "wall_seconds", "measured", "code_version", "environment",
                     "tasks_from_cache"})


def differences(before: Any, after: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, value before, value after) for every leaf where ``before`` and ``after`` differ, skipping
    the keys in :data:`IGNORED`. Floats are compared exactly: a layout change must not move a digit."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after), key=str):
            if key in IGNORED:
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in before or key not in after:
                found.append((where, before.get(key, "<absent>"), after.get(key, "<absent>")))
            else:
                found += differences(before[key], after[key], where)
        return found
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [(f"{path} (length)", len(before), len(after))]
        pairs = enumerate(zip(before, after, strict=True))
        return [d for i, (b, a) in pairs for d in differences(b, a, f"{path}[{i}]")]
    if type(before) is not type(after) or before != after:
        return [(path, before, after)]
    return []


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _chosen(ids, patterns) -> list[str]:
    return sorted(i for i in ids if patterns is None or any(fnmatch.fnmatchcase(i, p) for p in patterns))


def compare(before: Path, after: Path, patterns: list[str] | None = None) -> list[tuple[str, str, Any, Any]]:
    """(claim or file, path, before, after) for every difference between the runs in two folders (only of the
    claims whose ids match one of ``patterns``, when given: then the summary's counts are not compared)."""
    found: list[tuple[str, str, Any, Any]] = []
    ids = {p.stem for p in (before / "results").glob("*.json")} | {p.stem for p in (after / "results").glob("*.json")}
    for cid in _chosen(ids, patterns):
        one, two = before / "results" / f"{cid}.json", after / "results" / f"{cid}.json"
        if not (one.exists() and two.exists()):
            found.append((cid, "results file", one.exists(), two.exists()))
            continue
        old, new = _read(one), _read(two)
        found += [(cid, *d) for d in differences(old, new)]
        for field in ("table_file", "summary_file"):
            for name in {old.get(field), new.get(field)} - {None}:
                a, b = before / name, after / name
                if not (a.exists() and b.exists()):
                    found.append((cid, name, a.exists(), b.exists()))
                elif a.read_bytes() != b.read_bytes():
                    lines = zip(a.read_text(encoding="utf-8").splitlines(), b.read_text(encoding="utf-8").splitlines(),
                                strict=False)
                    first = next(((n, x, y) for n, (x, y) in enumerate(lines, 1) if x != y), None)
                    where, x, y = first if first else ("length", "", "")
                    found.append((cid, f"{name} line {where}", x, y))
    one, two = before / "summary.json", after / "summary.json"
    if one.exists() and two.exists():
        keys = ("claims", "profile", "seed") if patterns else ("claims", "counts", "profile", "seed",
                                                               "family_wise_delta")
        old, new = ({k: run.get(k) for k in keys} for run in (_read(one), _read(two)))
        if patterns:  # the rows of the chosen claims; delta_share depends on which others ran
            for run in (old, new):
                run["claims"] = [{k: v for k, v in row.items() if k != "delta_share"} for row in run["claims"]
                                 if _chosen([row.get("id")], patterns)]
        found += [("summary.json", *d) for d in differences(old, new)]
    elif one.exists() != two.exists():
        found.append(("summary.json", "file", one.exists(), two.exists()))
    return found


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:159] + "…"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the report folder of the first run")
    parser.add_argument("after", type=Path, help="the report folder of the second run")
    parser.add_argument("--ids", nargs="+", metavar="GLOB", help="compare only the claims whose ids match")
    args = parser.parse_args(argv)
    for folder in (args.before, args.after):
        if not any((folder / "results").glob("*.json")):
            print(f"compare_results: no results/*.json in {folder}", file=sys.stderr)
            return 2
    found = compare(args.before, args.after, args.ids)
    n = len(_chosen({p.stem for p in (args.before / "results").glob("*.json")}, args.ids))
    for cid, path, old, new in found:
        print(f"{cid}: {path}: {_short(old)} -> {_short(new)}")
    claims = sorted({cid for cid, *_ in found})
    print(f"{len(found)} difference{'s' * (len(found) != 1)} in {len(claims)} of {n} claims "
          f"(ignored keys: {', '.join(sorted(IGNORED))})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
