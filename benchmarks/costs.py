"""Refresh ``theorycheck/costs.json``, the CPU seconds per task that weight the progress bar of a
first run (one with no timings of its own), from the timings a verify run stored:

    theorycheck verify --profile quick --jobs 2 --no-cache --out /tmp/q && python benchmarks/costs.py /tmp/q
    theorycheck verify --profile full --jobs 2 --no-cache --out /tmp/f && python benchmarks/costs.py /tmp/f

Each entry ``"<claim>|<profile>"`` is the claim's mean CPU time per task in that run (the thread
time of each task, so a loaded machine does not inflate it); entries of claims and profiles the
run did not cover are kept. A run still going (or stopped) has no timings file yet: with
``--profile`` the cached tasks themselves are read (the most recently used cached run of each claim
in the folder, which must hold runs of that profile only).
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
    args = parser.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
