"""Refresh ``theorycheck/costs.json``, the CPU seconds per task that weight the progress bar of a
first run (one with no timings of its own), from the timings a verify run stored:

    theorycheck verify --profile quick --jobs 2 --no-cache --out /tmp/q && python benchmarks/costs.py /tmp/q
    theorycheck verify --profile full --jobs 2 --no-cache --out /tmp/f && python benchmarks/costs.py /tmp/f

Each entry ``"<claim>|<profile>"`` is the claim's mean CPU time per task in that run (the thread
time of each task, so a loaded machine does not inflate it); entries of claims and profiles the
run did not cover are kept. A run still going (or stopped) has no timings file yet: with
``--profile`` the cached tasks themselves are read (the most recently used cached run of each claim
in the folder, which must hold runs of that profile only).

``--compare BEFORE`` writes nothing and prints, claim by claim, the CPU seconds over the tasks of the run
in BEFORE and of the run in ``out`` (the same profile and seed, e.g. main and a branch), their ratio, each
claim's verdict, and every finding whose outcome changed or whose interval widened by more than 10%:

    python benchmarks/costs.py /tmp/after --compare /tmp/before
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

COSTS = Path(__file__).resolve().parents[1] / "theorycheck" / "costs.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the --out folder of a verify run")
    parser.add_argument("--profile", help="read the cached tasks of a run of this profile instead of its timings")
    parser.add_argument("--compare", type=Path, metavar="BEFORE",
                        help="print the claims' costs and changed findings of BEFORE against out; write nothing")
    args = parser.parse_args()
    if args.compare is not None:
        return compare(args.compare, args.out)
    try:
        timings = _from_tasks(args.out, args.profile) if args.profile else json.loads(
            (args.out / ".cache" / "timings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"costs.py: no readable timings in {args.out / '.cache'}: {err}", file=sys.stderr)
        return 2
    costs = json.loads(COSTS.read_text(encoding="utf-8")) if COSTS.exists() else {}
    for key, times in timings.items():
        if times:
            costs[key] = float(f"{max(sum(times) / len(times), 0.001):.3g}")
    COSTS.write_text(json.dumps(dict(sorted(costs.items())), indent=1) + "\n", encoding="utf-8")
    print(f"{len(timings)} entries from {args.out}; {len(costs)} in {COSTS}")
    return 0


def _from_tasks(out: Path, profile: str) -> dict[str, list[float]]:
    """Seconds per cached task, keyed "claim|profile", from each claim's most recent cached run."""
    timings = {}
    for claim in sorted(p for p in (out / ".cache").iterdir() if p.is_dir()):
        runs = sorted((p for p in claim.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
        if runs:
            tasks = [json.loads(t.read_text(encoding="utf-8")) for t in runs[-1].glob("task-*.json")]
            # without numba's compilation, which a warm cache does not pay (as the runner's own timings)
            timings[f"{claim.name}|{profile}"] = [t["seconds"] - t.get("compile_seconds", 0.0) for t in tasks
                                                  if isinstance(t.get("seconds"), float)]
    return timings


#: a finding's interval may widen by this factor before the comparison names it (issue 44: a cheaper run may
#: not decide less)
WIDER = 1.10


def compare(before: Path, after: Path) -> int:
    """Print the two runs' costs per claim and their changed findings; 0 when nothing changed for the worse
    (no verdict or outcome changed, no interval widened past :data:`WIDER`), 1 otherwise, 2 on unreadable input."""
    try:
        runs = [_records(folder) for folder in (before, after)]
    except (OSError, ValueError) as err:
        print(f"costs.py: {err}", file=sys.stderr)
        return 2
    print(f"{'claim':28} {'tasks':>11} {'CPU s before':>13} {'after':>9} {'ratio':>6}  verdict")
    totals, changed = [0.0, 0.0], []
    for cid in sorted(set(runs[0]) | set(runs[1])):
        old, new = (run.get(cid) for run in runs)
        cost = [_task_seconds(r) for r in (old, new)]
        totals = [t + (c or 0.0) for t, c in zip(totals, cost, strict=True)]
        ratio = f"{cost[1] / cost[0]:6.2f}" if cost[0] and cost[1] is not None else "     —"
        verdicts = " → ".join(dict.fromkeys(r["verdict"] if r else "absent" for r in (old, new)))
        tasks = "/".join(str(r["n_tasks"]) if r else "—" for r in (old, new))
        shown = [f"{c:13.1f}" if c is not None else f"{'—':>13}" for c in cost]
        print(f"{cid:28} {tasks:>11} {shown[0]} {shown[1][4:]} {ratio}  {verdicts}")
        if old and new:
            changed += _changed(cid, old, new)
    ratio = totals[1] / totals[0] if totals[0] else float("nan")
    print(f"{'all':28} {'':>11} {totals[0]:13.1f} {totals[1]:9.1f} {ratio:6.2f}")
    print("\n".join(["", "changed:", *changed]) if changed else "\nno verdict or finding changed; no interval widened "
          f"by more than {WIDER - 1:.0%}")
    return 1 if changed else 0


def _records(folder: Path) -> dict[str, dict]:
    results = sorted((folder / "results").glob("*.json"))
    if not results:
        raise ValueError(f"{folder} holds no results/*.json of a verify run")
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in results}


def _task_seconds(record: dict | None) -> float | None:
    """The CPU seconds over the record's tasks (its ``seconds``: the tasks' thread time, computed or cached)."""
    return None if record is None else float(record.get("seconds") or 0.0)


def _changed(cid: str, old: dict, new: dict) -> list[str]:
    lines = [f"  {cid}: verdict {old['verdict']} → {new['verdict']}"] if old["verdict"] != new["verdict"] else []
    before = {f["finding"]: f for f in old.get("findings") or []}
    for finding in new.get("findings") or []:
        was = before.pop(finding["finding"], None)
        if was is None:
            lines.append(f"  {cid}: new finding {finding['finding']!r} ({finding['outcome']})")
            continue
        if was["outcome"] != finding["outcome"]:
            lines.append(f"  {cid}: {finding['finding']!r} {was['outcome']} → {finding['outcome']}")
        widths = [f["high"] - f["low"] if _finite(f.get("low"), f.get("high")) else None for f in (was, finding)]
        if None not in widths and widths[0] > 0 and widths[1] > WIDER * widths[0]:
            lines.append(f"  {cid}: {finding['finding']!r} interval {widths[0]:.3g} wide → {widths[1]:.3g} "
                         f"({widths[1] / widths[0]:.2f}×)")
    lines += [f"  {cid}: finding {name!r} gone" for name in before]
    return lines


def _finite(*values) -> bool:
    return all(isinstance(v, (int, float)) and v == v and abs(v) != float("inf") for v in values)


if __name__ == "__main__":
    sys.exit(main())
