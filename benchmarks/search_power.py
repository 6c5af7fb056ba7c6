"""The power of `theorycheck search` on planted defects (tests/search_campaign.py's ``CAMPAIGN``): for each, the
claim verified on quick with the defect in place (it must PASS: the defect is invisible on the default instance),
then searched; prints one Markdown row per defect (verify's verdict, the search's verdict, trials, CPU seconds of
the trials, the confirmed counterexample and its shrunk form), the table docs/search.md shows:

    python benchmarks/search_power.py --out /tmp/power               # the default budget, seed 0
    python benchmarks/search_power.py --out /tmp/power --budget 600s --seed 1 --only cbss11.thm2

Run from the repository's root (the defects are imported as ``tests.…``). Exit status 1 when a defect does not
PASS verify, or fewer than ``--need`` searches end FAIL."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="a folder for the runs and the studies")
    parser.add_argument("--budget", default=None, help="trials (24) or CPU seconds (600s); the search's default")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=(), help="claim ids to run (all by default)")
    parser.add_argument("--need", type=int, default=8, help="searches that must end FAIL (default 8)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path.cwd()))

    import theorycheck
    from tests.search_campaign import CAMPAIGN
    from theorycheck.claims import load_claims
    from theorycheck.search.engine import DEFAULT_TRIALS

    rows, bad, found = [], 0, 0
    print("| claim | defect (wrong where) | verify on quick | search | trials | CPU s (trials) | confirmed at | "
          "shrunk to |")
    print("|---|---|---|---|---|---|---|---|")
    for planted in CAMPAIGN:
        if args.only and planted.claim not in args.only:
            continue
        if planted.claims:
            load_claims([planted.claims])
        where = args.out / planted.claim
        started = time.process_time()
        [verified] = theorycheck.verify(planted.claim, subjects=planted.subjects, params=planted.overrides,
                                        seed=args.seed, out=where / "verify", jobs=args.jobs)
        result = theorycheck.search(planted.claim, subjects=planted.subjects, params=planted.overrides,
                                    seed=args.seed, budget=args.budget or DEFAULT_TRIALS, out=where, jobs=args.jobs,
                                    claims=(planted.claims,) if planted.claims else ())
        ran = [t for t in result.trials if t.state == "complete"]
        hit = result.counterexample or result.nonconforming
        found += result.verdict == "FAIL"
        bad += verified.verdict != "PASS"
        point = (", ".join(f"{k} = {v}" for k, v in hit.trial.point.items()) + (
            " (conformance at that point)" if hit.nonconforming else "")) if hit else "—"
        shrunk = (", ".join(f"{k} = {v}" for k, v in result.shrunk.point.items()) + f" ({result.shrunk.calls} runs, "
                  f"{result.shrunk.verdict} on a fresh seed)") if result.shrunk else "—"
        subject = ", ".join(s.rpartition(":")[2] for s in planted.subjects.values()) or planted.claim
        row = (f"| {planted.claim} | {subject} ({planted.wrong_where}) | {verified.verdict} | {result.verdict} | "
               f"{len(ran)} | {sum(t.seconds for t in result.trials):.0f} | {point} | {shrunk} |")
        rows.append(row)
        print(row, flush=True)
        print(f"  ({time.process_time() - started:.0f} CPU s in this process for the row)", file=sys.stderr)
    print(f"\n{found} of {len(rows)} searches ended FAIL; {bad} defects did not PASS verify on quick")
    return 0 if bad == 0 and found >= min(args.need, len(rows)) else 1


if __name__ == "__main__":
    sys.exit(main())
