"""A false-alarm sweep: every claim on the quick profile under N base seeds.

Each run's family-wise δ (the union bound over its stochastic claims, as the report states it)
bounds the probability that any true claim is marked FAIL. Over N independent seeds the number
of runs with a false FAIL is then stochastically below Binomial(N, δ_fw), so the sweep reports
every non-PASS verdict and compares the FAILs with that bound. A FAIL here is either a real
defect or a false alarm, and more FAILs than Binomial(N, δ_fw) makes plausible points at a
statistic that is not calibrated. INCONCLUSIVE verdicts are listed apart: they are not false
alarms but verdicts the quick budget could not make decisive.

Usage: ``python -m theorycheck.calibrate [--seeds N] [--first S] [--jobs J] [--out DIR] [ids...]``
(``nox -s calibrate`` runs it with the defaults).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from scipy.stats import binom

from .claims import select
from .cli import _Parser as Parser
from .run import run_claims
from .stats import union_delta
from .validation import ParameterError, check_jobs, check_output_folder
from .verdicts import Verdict


def sweep(ids, seeds: range, *, jobs: int, out: Path) -> tuple[list[dict], float]:
    """Run the selected claims on quick for each seed; return (non-PASS rows, family-wise δ)."""
    claims = select(ids or ["*"])
    rows, fw = [], 0.0
    for n, seed in enumerate(seeds, 1):
        start = time.perf_counter()
        records = run_claims(claims, profile="quick", seed=seed, jobs=jobs, out=out / f"seed-{seed}", progress=False)
        fw = max(fw, union_delta([r["delta"] for r in records if r.get("delta") is not None]))
        bad = [r for r in records if r["verdict"] != Verdict.PASS]
        rows += [{"seed": seed, "id": r["id"], "verdict": r["verdict"],
                  "headline": (r.get("decision") or "").strip().splitlines()[0][:160]} for r in bad]
        print(f"seed {seed} ({n}/{len(seeds)}): {len(records) - len(bad)} PASS, "
              + ", ".join(f"{r['id']} {r['verdict']}" for r in bad)
              + f" [{time.perf_counter() - start:.0f} s]", flush=True)
    return rows, fw


def main(argv=None) -> int:
    parser = Parser(prog="python -m theorycheck.calibrate", description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="claim ids or globs (default: every claim)")
    parser.add_argument("--seeds", type=int, default=20, help="number of base seeds (default 20)")
    parser.add_argument("--first", type=int, default=1, help="first base seed (default 1; 0 is the report's)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="reports/calibrate")
    try:
        args = parser.parse_args(argv)  # a bad argument: one line, as every other error below
        if args.seeds < 1 or args.first < 0:
            raise ParameterError("--seeds must be at least 1 and --first non-negative")
        args.jobs = check_jobs(args.jobs)
        check_output_folder(args.out, folders=[f"seed-{seed}" for seed in range(args.first, args.first + args.seeds)])
        rows, fw = sweep(args.ids, range(args.first, args.first + args.seeds), jobs=args.jobs, out=Path(args.out))
    except ParameterError as err:
        print(f"theorycheck calibrate: error: {str(err).splitlines()[0]}", file=sys.stderr)
        return 2
    fails = sorted({r["seed"] for r in rows if r["verdict"] in (Verdict.FAIL, Verdict.ERROR)})
    n = args.seeds
    tail = float(binom.sf(len(fails) - 1, n, fw)) if fails else 1.0
    print(f"\n{n} seeds, family-wise δ per run ≤ {fw:.3g}: runs with a FAIL or ERROR: {len(fails)} "
          f"(expected ≤ {n * fw:.3g}; P[Binomial({n}, {fw:.3g}) ≥ {len(fails)}] = {tail:.3g})")
    for verdict in (Verdict.FAIL, Verdict.ERROR, Verdict.INCONCLUSIVE):
        for r in (r for r in rows if r["verdict"] == verdict):
            print(f"  {verdict:<12} seed {r['seed']:<4} {r['id']:<24} {r['headline']}")
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main())
