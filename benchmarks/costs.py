"""Refresh ``theorycheck/costs.json``, the CPU seconds per task that weight the progress bar of a
first run (one with no timings of its own), from the timings a verify run stored:

    theorycheck verify --profile quick --jobs 2 --no-cache --out /tmp/q && python benchmarks/costs.py /tmp/q
    theorycheck verify --profile full --jobs 2 --no-cache --out /tmp/f && python benchmarks/costs.py /tmp/f

Each entry ``"<claim>|<profile>"`` is the claim's mean CPU time per task in that run (the thread
time of each task, so a loaded machine does not inflate it); entries of claims and profiles the
run did not cover are kept.
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
    args = parser.parse_args()
    try:
        timings = json.loads((args.out / ".cache" / "timings.json").read_text(encoding="utf-8"))
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


if __name__ == "__main__":
    sys.exit(main())
