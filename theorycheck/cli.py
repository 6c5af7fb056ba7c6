"""Command line: ``theorycheck list | verify | search | report | show | conform | errata | clean | new``.

``verify`` and ``conform`` parse their arguments, drive the sessions of :mod:`theorycheck.session` (which the
Python API and the pytest plugin drive too) and print what they return; their exit statuses are the sessions'
(:class:`~theorycheck.verdicts.ExitCode`, :func:`~theorycheck.verdicts.run_exit_status`), and 2 for bad usage,
always with a one-line message on stderr. The other commands exit 0, or 2 on bad usage.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import json
import os
import signal
import sys
import tempfile
import textwrap
import unicodedata
from pathlib import Path

from .session import COMMAND_LINE, vacuous_why
from .validation import ParameterError
from .verdicts import ExitCode


def exit_codes(command: str) -> str:
    """The exit statuses of ``command`` ("verify" or "conform"), for its help, from
    :class:`~theorycheck.verdicts.ExitCode`."""
    lines = ["exit status:"]
    for code in ExitCode:
        text = getattr(code, command)
        if text:
            lines += textwrap.wrap(text, 113, initial_indent=f"  {int(code)}  ", subsequent_indent="     ")
        if code == ExitCode.NOT_REPRODUCED and command == "verify":
            lines.append("  precedence: 1 > 4 > 3 > 0")
    return "\n".join(lines)


EXIT_CODES, CONFORM_EXIT_CODES = exit_codes("verify"), exit_codes("conform")

SEARCH_EXIT_CODES = """exit status:
  0  no confirmed counterexample in any claim searched, or only counterexamples of errata the claims record
  1  a new counterexample confirmed on a fresh stream (or no trial of a search could run)
  2  bad usage (an unknown claim, a claim without a declared space, a malformed option), before any work"""


NEW_DESCRIPTION = (
    "Write the skeleton of a claim of your own: DIR/<paper>_<item>.py (the paper's declaration, a subject, a planted "
    "defect, and the claim with every hook of its kind in place) and DIR/test_<paper>_<item>.py. Until its places "
    "marked Unfinished(...) are filled in, verifying it ends in ERROR with one line naming the next one to write. "
    "Refuses an existing file, a malformed id, a built-in paper's key and an unknown kind (exit status 2).")

TASK_TIMEOUT_HELP = ("seconds one task of your subject may run in its worker process before it is SUBJECT-ERROR "
                     "(default: the profile's limit, about a hundred times its costliest built-in task); also the "
                     "limit of your subject's conformance checks")

class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ParameterError(message)


def _parse_assignments(items: list[str], what: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for item in items:
        for part in item.split():
            name, sep, value = part.partition("=")
            if not sep or not name.strip() or not value.strip():
                raise ParameterError(f"malformed {what} {part!r}: expected NAME=VALUE")
            if name.strip() in result:
                raise ParameterError(f"{what} gives {name.strip()} twice ({result[name.strip()]} and {value.strip()}); "
                                     "give each name once")
            result[name.strip()] = value.strip()
    return result


#: the defaults every command and the Python API share, stated once for --help (the README says the same)
DEFAULTS = ("defaults, the same for every command and for theorycheck.verify and theorycheck.conform in Python: "
            "the quick profile, base seed 0 and one job (--jobs -1 uses every core, --jobs N N of them; no result "
            "depends on it); the commands keep their report in reports/. `nox -s verify` is the one preset that "
            "differs: the full profile on every core.")

#: examples shown under each subcommand's --help: (command, what it does)
EXAMPLES = {
    "list": (("theorycheck list", "every claim: id, kind, reference, title"),
             ("theorycheck list --paper hk12", "the claims of one paper"),
             ("theorycheck list --json", "the same as JSON, for scripts"),
             ("theorycheck list --claims mypaper", "with the claims of your module mypaper.py")),
    "verify": (("theorycheck verify hk12.thm3.1", "one claim, quick profile, one job; report in reports/"),
               ("theorycheck verify 'cbss11.*' --jobs -1", "every claim of a paper (a shell glob), on every core"),
               ("theorycheck verify cbss11.thm2 --set d=37 k=11", "your parameters"),
               ("theorycheck verify hk12.thm3.1 --subject learner=mymodule:MyAERR", "the theorem, with your learner"),
               ("theorycheck verify --profile full --jobs -1", "everything at paper scale, as `nox -s verify`"),
               ("theorycheck verify hk12.thm3.1 --power", "also run each planted defect the claim declares"),
               ("theorycheck verify 'ks15.*' --profile full --power-idea",
                "is each claim's idea-removing defect caught on the full profile?")),
    "search": (("theorycheck search hk12.thm3.1", "where the theorem is tightest or breaks: 24 trials on quick"),
               ("theorycheck search hk12.thm3.1 --subject learner=mymodule:MyAERR --budget 600s --jobs 2",
                "where your learner breaks the theorem, 10 CPU minutes on two cores"),
               ("theorycheck search --all --seed 1", "every claim that declares a space, as `nox -s search`")),
    "clean": (("theorycheck clean", "delete reports/.cache and reports/.power; the report stays"),
              ("theorycheck clean --out /tmp/run", "the same for another folder")),
    "report": (("theorycheck report", "rewrite reports/index.html, errata.html and the claim pages"),
               ("theorycheck report --out /tmp/run --claims mypaper", "another folder, with your module's claims")),
    "show": (("theorycheck show hk12.thm3.1", "statement, hypotheses, contracts, parameters, power, last verdict"),
             ("theorycheck show hk12.thm3.1 --out /tmp/run", "with the last verdict stored in another folder")),
    "conform": (("theorycheck conform AERR --subject learner=mymodule:MyAERR", "your AERR, every check"),
                ("theorycheck conform AERR --subject learner=mymodule:MyAERR --no-claims",
                 "without the paper's claims (the slow check)"),
                ("theorycheck conform AELR --subject learner=mymodule:MINE --jobs -1",
                 "an instance with its own parameters, on every core")),
    "new": (("theorycheck new frequency mypaper.lemma1", "write mypaper_lemma1.py and test_mypaper_lemma1.py here; "
             "then `theorycheck verify mypaper.lemma1 --claims mypaper_lemma1` names the next place to fill in"),
            ("theorycheck new exact mypaper.lemma2 --package src/mypaper",
             "into a package folder; it prints the module name to pass to --claims")),
    "errata": (("theorycheck errata", "every erratum and non-reproduction, with the evidence stored in reports/"),
               ("theorycheck errata --paper reyzin11", "one paper's"),
               ("theorycheck errata --json", "as JSON, each item with its type")),
}


def _epilog(command: str, *more: str) -> str:
    """The examples of a subcommand (each command, then what it does), and ``more`` (exit statuses)."""
    lines = ["examples:"]
    for cmd, what in EXAMPLES[command]:
        lines += [f"  {cmd}", f"      {what}"]
    return "\n".join([*lines, *("\n" + m for m in more if m)])


def build_parser() -> argparse.ArgumentParser:
    """The parser of the command line: every subcommand with its help, description, options and examples
    (tests read them from it; `theorycheck COMMAND --help` prints them)."""
    raw = argparse.RawDescriptionHelpFormatter
    parser = _Parser(prog="theorycheck", formatter_class=raw,
                     description="Executable checks of budgeted-learning theory: the theorems, lemmas and experiments "
                                 "of cbss11, hk12, ks15, reyzin11 and sk13 as claims with calibrated verdicts. "
                                 "`theorycheck COMMAND --help` gives each command's options and examples.",
                     epilog=textwrap.fill(DEFAULTS, 100) + "\n\n"
                     + EXIT_CODES.replace("exit status:", "exit status of verify and conform:")
                     + "\nlist, report, show, errata, clean and new exit 0, or 2 on bad usage.")
    from . import __version__

    parser.add_argument("--version", action="version", version=f"theorycheck {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    def command(name, help, description, *more):
        return sub.add_parser(name, help=help, description=textwrap.fill(description, 100),
                              epilog=_epilog(name, *more), formatter_class=raw)

    claims_help = ("also the claims of this module (dotted name, found from the current folder too); "
                   "repeatable. Installed packages' claims (entry points in the group theorycheck.claims) "
                   "are always loaded")
    out_help = "the report folder (default: reports)"

    def claims_option(p):
        p.add_argument("--claims", action="append", default=[], metavar="MODULE", help=claims_help)

    p = command("list", "list the claims", "List the claims: id, kind of evidence, the paper's reference, a title and "
                "where the claim is declared (file:line).")
    p.add_argument("--paper", help="only this paper (cbss11, hk12, ks15, reyzin11, sk13, or a declared one)")
    claims_option(p)
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per claim")

    p = command("verify", "run claims and write the report",
                "Run the selected claims (all by default), decide each, and write the HTML report as they finish; "
                "tasks already computed with the same parameters, code and seed are reused.",
                textwrap.fill(DEFAULTS[0].upper() + DEFAULTS[1:], 100), EXIT_CODES)
    p.add_argument("ids", nargs="*", metavar="ID-or-glob", help="claim ids or shell globs (default: every claim)")
    p.add_argument("--profile", default="quick", choices=("quick", "full", "paper"),
                   help="quick (default; seconds per claim, as CI runs it), full (the evidence, paper scale where "
                        "affordable) or paper (paper-scale sweeps; full where a claim has none)")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0); every task's stream derives from it")
    p.add_argument("--set", dest="sets", action="extend", nargs="+", default=[], metavar="NAME=VALUE",
                   help="override a parameter of every selected claim that has it (repeatable)")
    p.add_argument("--subject", dest="subjects", action="extend", nargs="+", default=[], metavar="NAME=MODULE:ATTR",
                   help="check your own implementation: replace subject NAME by MODULE:ATTR")
    p.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1; -1: every core)")
    p.add_argument("--task-timeout", type=float, metavar="SECONDS", help=TASK_TIMEOUT_HELP)
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the tasks on a Dask distributed cluster (e.g. tcp://10.0.0.5:8786); "
                        "needs pip install 'theorycheck[dask]'; results are those of a local run")
    p.add_argument("--scaling", action=argparse.BooleanOptionalAction, default=None,
                   help="time the learners' fit against d after the run and draw it on the index "
                        "(default: on for full and paper, off for quick; about 10 s)")
    p.add_argument("--out", default="reports", help=out_help)
    p.add_argument("--json", action="store_true", help="print summary.json to stdout instead of the summary")
    p.add_argument("--no-cache", action="store_true", help="recompute instead of reusing stored tasks")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true",
                   help="run a plan that the resource guards refuse (more tasks, memory, disk or time than this "
                        "machine holds, as estimated before any work)")
    p.add_argument("--power", action="store_true",
                   help="also run each claim once per planted defect it declares (same profile and seed) and "
                        "show on its page what each defect's verdict was on this code version")
    p.add_argument("--power-idea", action="store_true",
                   help="as --power, but only each claim's defect that removes its paper's idea (the power atlas's "
                        "column on the index), e.g. to see it caught on the full profile at twice a run's cost")
    claims_option(p)

    p = command("search", "search a claim's space for a counterexample and its worst case",
                "Search the space a claim's statement quantifies over (`theorycheck show ID` prints it) with optuna's "
                "TPE, one run of the claim per trial on a stream of the search's own, maximising its margin "
                "(observed/bound for a bound); then run the 3 best points again on a fresh stream with the claim's own "
                "decision. Only a confirmed FAIL is a counterexample (false-FAIL rate at most 3δ); it is printed with "
                "the verify command that reproduces it. The study is stored in <out>/search/<id>.db and a stopped "
                "search resumes from it; the page is <out>/search/<id>.html.", SEARCH_EXIT_CODES)
    p.add_argument("ids", nargs="*", metavar="ID", help="claim ids (each must declare a space)")
    p.add_argument("--all", action="store_true", help="every claim that declares a space")
    p.add_argument("--budget", default=None, metavar="N|SECONDSs",
                   help="trials that run (default 24; infeasible points are not counted) or CPU seconds, e.g. 600s")
    p.add_argument("--profile", default="quick", choices=("quick", "full", "paper"),
                   help="the profile each trial and confirmation runs (default quick)")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0); the search's streams derive from it")
    p.add_argument("--set", dest="sets", action="extend", nargs="+", default=[], metavar="NAME=VALUE",
                   help="a parameter fixed at every point (not one the space searches)")
    p.add_argument("--subject", dest="subjects", action="extend", nargs="+", default=[], metavar="NAME=MODULE:ATTR",
                   help="search where your implementation breaks the theorem: replace subject NAME by MODULE:ATTR")
    p.add_argument("--jobs", type=int, default=1, help="trials in parallel (default 1; -1: every core)")
    p.add_argument("--out", default="reports", help="folder of the study and its page (default: reports)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    claims_option(p)

    p = command("clean", "delete the cached tasks under --out (the report and results stay)",
                "Delete the cached tasks (<out>/.cache) and planted-defect runs (<out>/.power) and say how much "
                "was freed; the report and the stored results stay, and the next verify recomputes the tasks.")
    p.add_argument("--out", default="reports", help=out_help)

    p = command("report", "re-render the report from stored results",
                "Write index.html, errata.html and every claim page again from the results stored in the folder, "
                "without running anything (after an upgrade of theorycheck, or to add --claims modules' pages).")
    p.add_argument("--out", default="reports", help="the folder that holds the stored results, and where the "
                                                    "pages are written (default: reports)")
    claims_option(p)

    p = command("show", "describe one claim, its subjects' contracts, power and last verdict",
                "Describe one claim: statement, reference, hypotheses, each subject with the contract a replacement "
                "must follow, parameters per profile, errata, planted defects and power, and the last verdict "
                "stored in --out.")
    p.add_argument("id", metavar="ID", help="one claim id, as `theorycheck list` prints it (e.g. hk12.thm3.1)")
    p.add_argument("--out", default="reports", help="where to look for the last verdict (default: reports)")
    claims_option(p)

    p = command("conform", "check your implementation of an algorithm against the paper's",
                "Check your implementation of one of the papers' algorithms step by step: the parameters it takes, "
                "its estimator's exact law, its behaviour, an audit of the attributes it reads, and the paper's "
                "claims with it in the algorithm's place (the checks each algorithm takes are on the docs' "
                "conformance page). Writes conform-<ALGORITHM>.json and .html in --out.",
                textwrap.fill(DEFAULTS[0].upper() + DEFAULTS[1:], 100), CONFORM_EXIT_CODES)
    p.add_argument("algorithm", metavar="ALGORITHM",
                   help="AERR, AELR, AER, Baseline, GAERR, DDAERR, TwoPhaseDDAERR, GAELR, DDAELR, TwoPhaseDDAELR, "
                        "AESVR, GenEst (a function), AdaBoostRS, AdaBoostRS_AC, Scoring or Full")
    p.add_argument("--subject", dest="subjects", action="extend", nargs="+", default=[], metavar="learner=MODULE:ATTR",
                   required=True, help="your learner: a class, or an instance (run with its own parameters)")
    p.add_argument("--optional", default="", metavar="CHECK,...",
                   help="checks your learner may fail to take (claims, parameters, estimator, step, behaviour, "
                        "attributes; objective for Scoring and Full; training, sampling, attributes for AdaBoostRS "
                        "and AdaBoostRS_AC): listed as NOT RUN, optional, and not counted. By default a check not run "
                        "makes the verdict INCONCLUSIVE (exit status 3)")
    p.add_argument("--require", default="", metavar="CHECK,...",
                   help="deprecated: every check is now required unless --optional names it")
    p.add_argument("--force", action="store_true",
                   help="run the claims even when their time, estimated from your learner's speed, is past the "
                        "limit (10 min)")
    p.add_argument("--profile", default="quick", choices=("quick", "full"),
                   help="quick (default): the lemmas among the claims; full: every claim of the algorithm, at its "
                        "full profile, and more runs for the other checks")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    p.add_argument("--no-claims", action="store_true", help="skip the paper's claims (the slow check)")
    p.add_argument("--jobs", type=int, default=1, help="parallel workers of the claims (default 1; -1: every core)")
    p.add_argument("--task-timeout", type=float, metavar="SECONDS", help=TASK_TIMEOUT_HELP)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", default="reports",
                   help="folder for conform-<ALGORITHM>.json and .html and the claims' report (default: reports)")

    p = command("new", "write the skeleton of a claim of your own and its test", NEW_DESCRIPTION)
    p.add_argument("kind", metavar="KIND", help="the kind of the claim: exact, frequency or rate")
    p.add_argument("id", metavar="ID", help="the claim's id, <paper>.<item> with a paper key of your own")
    p.add_argument("--package", default=".", metavar="DIR",
                   help="the folder to write into (default: the current one); a package's claims module is named "
                        "with its dotted path")

    p = command("errata", "list the errata in the papers that the claims establish, and the published numbers they "
                          "do not reproduce",
                "List the errata (statements of the papers shown false, each with how: a counterexample, a "
                "derivation or a decisive run confirmed on a fresh seed) apart from the non-reproductions "
                "(published numbers our runs do not reach), with the evidence of the last run stored in --out.")
    p.add_argument("--paper", help="only this paper (cbss11, hk12, ks15, reyzin11, sk13, or a declared one)")
    p.add_argument("--out", default="reports", help="where to look for the evidence of the last run (default: reports)")
    claims_option(p)
    p.add_argument("--json", action="store_true", help="print a JSON list (each item's type: erratum or "
                                                         "non-reproduction)")
    return parser


def _wrap(text: str, indent: str = "  ", first: str | None = None) -> str:
    return textwrap.fill(" ".join(str(text).split()), 92, initial_indent=indent if first is None else first,
                         subsequent_indent=indent)


#: the fields of each claim that a listing shows, all strings
_LISTED = ("id", "paper", "kind", "reference", "title")


def _listing_shaped(listing) -> bool:
    """Whether a stored listing has the shape :func:`claim_listing` writes (a hand edit or another version's
    file may not): one that has not is treated as absent, and the listing made again."""
    return (isinstance(listing, dict) and isinstance(listing.get("papers"), list)
            and all(isinstance(p, str) for p in listing["papers"]) and isinstance(listing.get("claims"), list)
            and all(isinstance(c, dict) and all(isinstance(c.get(f), str) for f in _LISTED) for c in listing["claims"]))


def _cmd_list(args) -> int:
    listing = claim_listing(args.claims)
    if args.paper is not None and args.paper not in listing["papers"]:
        raise ParameterError(f"unknown paper {args.paper!r}; known papers: {', '.join(listing['papers'])}")
    claims = [c for c in listing["claims"] if args.paper in (None, c["paper"])]
    if args.json:
        print(json.dumps(claims, indent=2))
    else:
        for c in claims:
            reference = c["reference"] if len(c["reference"]) <= 30 else c["reference"][:29] + "…"
            print(f"{c['id']:<22}  {c['kind']:<12}  {reference:<30}  {c['title']}  ({c['source']})")
        if not claims:
            print(f"{args.paper} has no claims yet (papers with claims: "
                  + ", ".join(sorted({c["paper"] for c in listing["claims"]})) + ")")
    return ExitCode.OK


def claim_listing(claims_modules=()) -> dict:
    """{"papers": [...], "claims": [each claim's describe(), in the registry's order]}.

    Finding the claims imports every claim module, and with them scipy, pandas and the learners
    (over a second), which a listing does not need: the listing is kept in the user's cache folder
    ($XDG_CACHE_HOME or ~/.cache, then theorycheck/), under a key made of the path, size and
    modification time of every source file, so any edit makes a new one; the installed packages'
    ``theorycheck.claims`` entry points and their packages' files are part of the key. An unreadable or
    unwritable cache only costs the import. ``--claims`` modules are listed without the cache."""
    import hashlib
    from importlib.metadata import entry_points
    from importlib.util import find_spec

    from .entry_points import CLAIMS_ENTRY_POINTS

    if claims_modules:
        from .claims import PAPERS, load_claims, select

        load_claims(claims_modules)
        return {"papers": list(PAPERS), "claims": [c.describe() for c in select(None)]}

    digest = hashlib.sha256(sys.version.encode())
    points = sorted(f"{p.name}={p.value}" for p in entry_points(group=CLAIMS_ENTRY_POINTS))
    digest.update("|".join(points).encode())
    packages = ["theorycheck", "proofs", "simulations", *(p.partition("=")[2].split(".")[0] for p in points)]
    for package in dict.fromkeys(packages):
        try:
            spec = find_spec(package)
        except (ImportError, ValueError):
            spec = None
        roots = [] if spec is None else list(spec.submodule_search_locations or [])
        files = [Path(spec.origin)] if spec is not None and not roots and spec.origin else []
        for path in files + [p for root in roots for p in sorted(Path(root).rglob("*.py"))]:
            stat = path.stat()
            digest.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "theorycheck"
    path = folder / f"listing-{digest.hexdigest()[:20]}.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stored = None
    if _listing_shaped(stored):
        return stored
    from .claims import PAPERS, select

    described = [c.describe() for c in select(None)]  # first: finding the claims declares their papers
    listing = {"papers": list(PAPERS), "claims": described}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False, encoding="utf-8") as fh:
            json.dump(listing, fh)
        os.replace(fh.name, path)
        for stale in folder.glob("listing-*.json"):
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError:
        pass
    return listing


def _cmd_verify(args) -> int:
    from .session import Verification

    session = Verification(args.ids or None, profile=args.profile, params=_parse_assignments(args.sets, "--set"),
                           subjects=_parse_assignments(args.subjects, "--subject"), seed=args.seed, jobs=args.jobs,
                           scheduler=args.scheduler, out=args.out, power=args.power, power_idea=args.power_idea,
                           cache=not args.no_cache, scaling=args.scaling, force=args.force,
                           task_timeout=args.task_timeout, progress=not args.quiet, names=COMMAND_LINE)
    status = session.execute()
    print(json.dumps(session.summary, indent=2) if args.json else "\n".join(session.lines))
    for line in session.messages:
        print(line, file=sys.stderr)
    return status


def _cmd_search(args) -> int:
    from .claims import discover, select
    from .search import DEFAULT_TRIALS, search, space_of

    if args.all == bool(args.ids):
        raise ParameterError("name the claims to search, or --all (not both)")
    subjects = _parse_assignments(args.subjects, "--subject")
    if args.all:  # with --subject: the claims that have every subject named
        claims = [c for c in discover().values() if space_of(c) is not None and set(subjects) <= set(c.subjects)]
        if not claims:
            raise ParameterError(f"no claim with a search space has the subjects {', '.join(sorted(subjects))}")
    else:
        claims = select(args.ids)
        bare = [c.id for c in claims if space_of(c) is None]
        if bare:
            raise ParameterError(f"{', '.join(bare)} declares no search space (see `theorycheck show {bare[0]}`)")
    params = _parse_assignments(args.sets, "--set")
    status = ExitCode.OK
    for claim in claims:
        result = search(claim.id, profile=args.profile, seed=args.seed, budget=args.budget or DEFAULT_TRIALS,
                        params=params, subjects=subjects, jobs=args.jobs, out=args.out, progress=not args.quiet,
                        claims=args.claims)
        print("\n".join(result.lines()), flush=True)
        status = max(status, result.exit_status)
    return status


def _cmd_clean(args) -> int:
    """Delete ``<out>/.cache`` (tasks, timings) and ``<out>/.power`` (planted-defect runs); say how much."""
    import shutil

    out = Path(args.out)
    if not out.is_dir():
        raise ParameterError(f"--out {args.out!r} is not a folder")
    freed = 0
    for folder in (out / ".cache", out / ".power"):
        if folder.is_symlink():  # removed as the link it is: what it points to is not ours to delete
            folder.unlink()
        elif folder.is_dir():
            freed += sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
            shutil.rmtree(folder)
    print(f"removed {freed / 1e6:.1f} MB of cached tasks from {out} (the next verify recomputes them)")
    return ExitCode.OK


def _cmd_report(args) -> int:
    from . import report
    from .validation import check_output_folder

    check_output_folder(args.out, files=("summary.json", "index.html", "errata.html"), folders=("results", ".cache"))
    print(report.render(args.out))
    return ExitCode.OK


def _cmd_show(args) -> int:
    from .claims import select
    from .protocols import contract_text
    from .run.store import load_result

    if any(ch in args.id for ch in "*?["):
        raise ParameterError("show takes one claim id, not a glob")
    (claim,) = select([args.id])
    d = claim.describe()
    print(f"{d['id']}  [{d['kind']}]  {d['reference']}: {d['title']}")
    print(f"declared in {d['source']}")
    print(_wrap(f"{d['reference']} of {d['citation']}."))
    print(_wrap(d["statement"]))
    if d["interpretation"]:
        print("Interpretation:")
        print(_wrap(d["interpretation"]))
    print("Hypotheses:")
    for h in d["hypotheses"]:
        print(f"  - {h}")
    print("Subjects (replace one with --subject NAME=module:attr; it must follow the contract):")
    for name, obj in d["subjects"].items():
        print(f"  {name} = {obj}")
        contract = claim.protocols.get(name)
        if contract is None:
            print("    contract: none declared")
        elif hasattr(contract, "signature"):
            print(_wrap(contract_text(contract), "      ", "    contract: "))
        else:
            print(f"    contract: {getattr(contract, '__name__', contract)}")
    print("Parameters:")
    for profile, params in d["profiles"].items():
        print(f"  {profile}: " + ", ".join(f"{k}={v}" for k, v in params.items()))
    if claim.errata:
        print("Errata this claim establishes (evidence: `theorycheck errata`):")
        for e in claim.errata:
            print(f"  [{e.key}] {e.where}")
            print(_wrap(e.printed, "      ", "    printed: "))
            print(_wrap(e.holds, "      ", "    holds:   "))
    if claim.non_reproductions:
        print("Non-reproductions (published numbers our runs do not reach; evidence: `theorycheck errata`):")
        for n in claim.non_reproductions:
            print(f"  [{n.key}] {n.where}")
            print(_wrap(n.printed, "      ", "    printed: "))
            print(_wrap(n.ours, "      ", "    ours:    "))
    from .claims import built_in

    if built_in(claim):
        print("Planted defects (tests/test_power.py checks each on the quick profile):")
    else:
        print("Planted defects (as declared; plant one with the --subject/--set shown on the claim's page):")
    if not claim.defects:
        print("  none declared")
    for defect in claim.defects:
        expected = "caught (FAIL)" if defect.caught else "not caught"
        status = expected if built_in(claim) else f"declared {expected}"
        idea = " [removes the paper's idea]" if defect.idea else ""
        print(_wrap(f"{defect.name}{idea}: {status}" + (f": {defect.why}" if defect.why else ""), "      ", "  - "))
    if d["power"]:
        print("Power:")
        print(_wrap(d["power"]))
    if d["space"] is None:
        print("Search space: none declared (`theorycheck search` cannot run it)" + (":" if d["no_space"] else ""))
        if d["no_space"]:
            print(_wrap(d["no_space"], "    "))
    else:
        print("Search space (what the statement quantifies over; `theorycheck search` explores it):")
        for line in d["space"]:
            print(_wrap(line, "      ", "  - "))
        if claim.space.why:
            print(_wrap(claim.space.why, "    "))
    last = load_result(args.out, claim.id)
    if last is None:
        print(f"Last verdict: none stored in {args.out}/")
    else:
        vacuous = f" (vacuous: {vacuous_why(last)})" if last.get("vacuous") else ""
        print(f"Last verdict: {last['verdict']}{vacuous} (profile {last['profile']}, seed {last['seed']}, "
              f"{last.get('seconds', 0):.2f}s)")
        for name, used in (last.get("replaced") or {}).items():
            print(f"  of a replaced subject: {name} = {used} (not the paper's algorithm)")
        print(_wrap(last["decision"]))
    return ExitCode.OK


def _cmd_conform(args) -> int:
    from .conformance import CHECKS
    from .session import Conformation

    subjects = _parse_assignments(args.subjects, "--subject")
    if set(subjects) != {"learner"}:
        raise ParameterError("conform takes exactly one subject: --subject learner=module:Class")
    optional = [name.strip() for name in args.optional.split(",") if name.strip()]
    require = [name.strip() for name in args.require.split(",") if name.strip()]
    unknown = [name for name in require if name not in CHECKS]
    if unknown:
        raise ParameterError(f"--require: unknown check {unknown[0]!r}; the checks are {', '.join(CHECKS)}")
    if "claims" in require and args.no_claims:
        raise ParameterError("--require claims and --no-claims contradict each other")
    both = [name for name in require if name in optional]
    if both:
        raise ParameterError(f"--require and --optional both name {both[0]!r}")
    if require:
        print("theorycheck: --require is deprecated: every check is now required unless --optional names it",
              file=sys.stderr)
    session = Conformation(args.algorithm, subjects["learner"], profile=args.profile, seed=args.seed,
                           claims=not args.no_claims, out=args.out, jobs=args.jobs, progress=not args.quiet,
                           optional=optional, force=args.force, task_timeout=args.task_timeout, names=COMMAND_LINE)
    status = session.execute()
    print(session.result.text())
    print(session.line, file=sys.stderr)
    return status


def _cmd_errata(args) -> int:
    from .claims import PAPERS, discover
    from .errata import gather

    discover()  # installed packages' claims declare their papers
    if args.paper is not None and args.paper not in PAPERS:
        raise ParameterError(f"unknown paper {args.paper!r}; known papers: {', '.join(PAPERS)}")
    items = gather(args.out, paper=args.paper)
    from .errata import not_reproduced, stored_results

    this_run = [i for i in not_reproduced(stored_results(args.out)) if args.paper in (None, i["paper"])]
    if args.json:
        print(json.dumps(items + [{"type": "not reproduced", **i} for i in this_run], indent=2, ensure_ascii=False))
        return ExitCode.OK
    if not items:
        print("No claim declares an erratum or a non-reproduction" + (f" for {args.paper}." if args.paper else "."))
        return ExitCode.OK
    pad = " " * 14
    errata = [item for item in items if item["type"] == "erratum"]
    missed = [item for item in items if item["type"] == "non-reproduction"]
    sections = (("Errata", errata, "statements of the papers shown false: exactly, or by a decisive run "
                                   "confirmed on a fresh seed"),
                ("Non-reproductions", missed, "published numbers our implementation does not reach; not a claim "
                                              "that the paper is wrong"))
    for n, (name, group, what) in enumerate(sections):
        print(("\n" if n else "") + f"{name} ({len(group)})")
        print(_wrap(what[0].upper() + what[1:] + ".", ""))
        paper = None
        for item in group:
            if item["paper"] != paper:
                paper = item["paper"]
                print(f"{paper}: {item['paper_title']}")
            print(f"  {item['claim']} [{item['key']}]  {item['where']}")
            print(_wrap(item["printed"], pad, "    printed:  "))
            if item["type"] == "erratum":
                print(_wrap(item["holds"], pad, "    holds:    "))
                shown = (f"{item['basis']}: {item['evidence_standard']}" if item["basis"]
                         else "not stated (a record stored before the standard)")
                print(_wrap(shown, pad, "    shown by: "))
            else:
                print(_wrap(item["ours"], pad, "    ours:     "))
                print(_wrap(item["tried"], pad, "    tried:    "))
                if item.get("seeds"):
                    print(_wrap(item["seeds"], pad, "    seeds:    "))
            if item["evidence"] is not None:
                run = f"({item['profile']} profile, seed {item['seed']}"
                if item["replaced"]:
                    run += "; replaced subjects " + ", ".join(f"{k}={v}" for k, v in item["replaced"].items())
                print(_wrap(f"{item['evidence']} {run})", pad, "    run:      "))
            elif item["profile"] is not None:
                print(f"    run:      none attached by the stored run ({item['profile']} profile, seed {item['seed']})")
            else:
                print(f"    run:      not run in {args.out}/ (theorycheck verify {item['claim']} --out {args.out})")
    if this_run:
        print(f"\nNot reproduced in the stored runs ({len(this_run)})")
        print(_wrap("Findings against a paper of experiments run with the reference implementations (the claim is NOT "
                    "REPRODUCED); a new one is to be confirmed on a fresh seed and recorded, or its bug found.", ""))
        for i in this_run:
            where = f"{i['estimate']:.3g} in [{i['low']:.3g}, {i['high']:.3g}], n = {i['runs']}"
            said = f"recorded: {i['recorded']}" if i["recorded"] else "new"
            print(f"  {i['claim']}: {i['finding']}: {i['outcome']} ({where}; {i['profile']} profile, seed {i['seed']}; "
                  f"{said})")
    with_evidence = sum(item["evidence"] is not None for item in items)
    claims = len({item["claim"] for item in items})
    print(f"\n{len(errata)} errata and {len(missed)} non-reproductions in {claims} claims; {with_evidence} with "
          f"evidence from {args.out}/results.")
    return ExitCode.OK


def _cmd_new(args) -> int:
    from .scaffold import new_claim

    path, test, module = new_claim(args.kind, args.id, args.package)
    test_module = module.rpartition(".")[0] + "." + test.stem if "." in module else test.stem
    print(f"wrote {path} and {test}\nnext: theorycheck verify {args.id} --claims {module}   "
          f"(names the next place to fill in)\nthen: python -m {test_module}   (its test; needs no pytest, which "
          "nox -s verify's environment lacks; pytest runs it too)")
    return ExitCode.OK


#: ASCII for the characters the output uses most, on a terminal whose encoding lacks them
_ASCII = {"·": ".", "…": "...", "—": "-", "–": "-", "−": "-", "≤": "<=", "≥": ">=", "≈": "~", "≠": "!=", "→": "->",
          "←": "<-", "×": "x", "±": "+/-", "√": "sqrt", "‖": "||", "∞": "inf", "∈": "in", "δ": "delta", "ε": "eps",
          "α": "alpha", "η": "eta", "λ": "lambda", "σ": "sigma", "ρ": "rho", "θ": "theta", "’": "'", "“": '"',
          "”": '"', "ℝ": "R", "²": "^2", "⁻": "^-", "¹": "^1", "§": "S"}


def _ascii_fallback(err: UnicodeError):
    """The codec error handler of stdout and stderr: an ASCII spelling of what cannot be encoded (the
    table above, else the letter without its accent, else a backslash escape), never a crash."""
    def spell(ch):
        plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
        return _ASCII.get(ch) or plain or ch.encode("ascii", "backslashreplace").decode()

    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(spell(ch) for ch in err.object[err.start:err.end]), err.end


codecs.register_error("theorycheck-ascii", _ascii_fallback)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the run is, as Ctrl-C is: the run stops the same way, so that its
    worker processes are ended and its temporary folders removed (the default action ends the process
    on the spot and leaves both behind)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


#: the signals that end a run as Ctrl-C does
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

#: the signal that is stopping the run, once one came: a second one ends the process at once
_STOPPING: list[int] = []


def _terminated(signum, frame):
    """The first Ctrl-C, SIGTERM or SIGHUP stops the run where it is (its workers are ended, what was decided is
    kept); a second one, while it stops, ends the process at once, in one line and without a traceback."""
    if _STOPPING:
        os.write(2, f"theorycheck: {signal.Signals(signum).name} again: stopped at once\n".encode())
        os._exit(128 + signum)
    _STOPPING.append(signum)
    raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signum)


def main(argv: list[str] | None = None) -> int:
    """The command line: run one command and return its exit status. SIGTERM and SIGHUP end a run as
    Ctrl-C does (:class:`Terminated`), with exit status 128 + the signal's number; a second one of them
    while the run stops ends the process at once."""
    import threading

    if threading.current_thread() is not threading.main_thread():  # signals can only be caught there
        return _main(argv)
    caught = [*ENDING_SIGNALS] + [signal.SIGINT] * (signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    earlier = {signum: signal.signal(signum, _terminated) for signum in caught}
    try:
        return _main(argv)
    finally:
        if not (_STOPPING and argv is None):  # the command itself, stopping: a second signal at exit ends it at once
            for signum, handler in earlier.items():
                signal.signal(signum, handler)
            _STOPPING.clear()


def _guarded(command: str):
    """The commands that run claims keep the built-in ones away from a user's module they import, for as long as
    they run (:func:`theorycheck.run.probe.guarded`); the others import nothing heavy (``list`` stays fast)."""
    if command not in ("verify", "conform", "search"):
        return contextlib.nullcontext()
    from .run.probe import guarded

    return guarded()


def _main(argv: list[str] | None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show '·' or 'δ' gets '.' or 'delta'
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="theorycheck-ascii")
    try:
        args = build_parser().parse_args(argv)
        commands = {"list": _cmd_list, "verify": _cmd_verify, "search": _cmd_search, "report": _cmd_report,
                    "show": _cmd_show,
                    "clean": _cmd_clean,
                    "errata": _cmd_errata, "conform": _cmd_conform, "new": _cmd_new}
        with _guarded(args.command):
            if getattr(args, "claims", None) and args.command != "list":  # list loads them itself
                from .claims import load_claims

                load_claims(args.claims)
            return commands[args.command](args)
    except ParameterError as err:
        print(f"theorycheck: error: {str(err).splitlines()[0]}", file=sys.stderr)
        return ExitCode.USAGE
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly, as a process that SIGPIPE ends
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.PIPE
    except OSError as err:  # the disk (or what stdout goes to) is full or read-only: say where, in one line
        from .run.store import STORAGE_ERRNOS, NotWritten

        if err.errno not in STORAGE_ERRNOS:
            raise
        if isinstance(err, NotWritten):
            message = str(err)
        elif err.filename is None:  # nothing more can be written to stdout, including at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            message = f"cannot write to standard output: {err.strerror}"
        else:
            message = (f"cannot write {err.filename}: {err.strerror}; the files written before it are complete "
                       "(each is replaced atomically), the rest were not written")
        print(f"theorycheck: error: {message}", file=sys.stderr)
        return ExitCode.USAGE
    except KeyboardInterrupt as err:
        how = f"ended by {err}" if isinstance(err, Terminated) else "interrupted"
        print(f"theorycheck: {how}; finished tasks are stored and the next run resumes", file=sys.stderr)
        return 128 + (err.signum if isinstance(err, Terminated) else signal.SIGINT)


if __name__ == "__main__":
    sys.exit(main())
