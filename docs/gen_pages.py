"""Write the generated pages of the documentation: the claim catalogue, the errata, and the results
of the last stored run.

The first two come from the registry through the command line's own JSON (`theorycheck list --json`,
`theorycheck errata --json`), so the site says what `theorycheck list` says and nothing is written
twice. The results page reads the report folder a run left (`reports/`, or the folder named by the
environment variable THEORYCHECK_DOCS_REPORT): its `summary.json`, and for every claim whose summary
table has a `published` column, that table. `conf.py` calls :func:`main` at every build;
`python docs/gen_pages.py [FOLDER]` writes the pages alone (default `docs/generated/`). The pages are
MyST Markdown. Each step prints a line with its time on stderr: Sphinx says nothing while `conf.py` runs,
and the tutorial's commands take minutes on a fresh numba cache.
"""

import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent

KINDS = ("exact", "bound", "frequency", "pathwise", "rate", "lower-bound", "comparison", "reproduction")  # kinds.md
_SPECIAL = re.compile(r"([\\*_{}\[\]<>()#+!|~$])")


def text(value: str) -> str:
    """Markdown for a sentence of the registry: `code` spans kept, every other special character escaped."""
    parts = str(value).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: escape everything
        return _SPECIAL.sub(r"\\\1", str(value)).replace("`", "\\`")
    return "".join(f"`{p}`" if i % 2 else _SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts)).replace("\n", " ")


def cell(value: str) -> str:
    return text(value).replace("|", "\\|")


def anchor(claim_id: str) -> str:
    return "claim-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def claim_ref(claim_id: str) -> str:
    return f"{{ref}}`{claim_id} <{anchor(claim_id)}>`"


def _json(*args: str) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "theorycheck", *args, "--json"], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"theorycheck {' '.join(args)} --json exited {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def _profiles(profiles: dict[str, dict]) -> list[str]:
    """A table of the parameters that differ between profiles, then the shared ones in one line."""
    names = list(profiles)
    keys = list(dict.fromkeys(k for p in profiles.values() for k in p))
    differ = [k for k in keys if len({json.dumps(profiles[n].get(k), sort_keys=True) for n in names}) > 1]
    same = [k for k in keys if k not in differ]
    lines = []
    if differ:
        lines += ["| parameter | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
        lines += [f"| `{k}` | " + " | ".join(f"`{json.dumps(profiles[n].get(k), ensure_ascii=False)}`"
                                             for n in names) + " |" for k in differ]
        lines.append("")
    if same:
        lines.append("Same on every profile: " + ", ".join(
            f"`{k} = {json.dumps(profiles[names[0]][k], ensure_ascii=False)}`" for k in same) + ".")
        lines.append("")
    return lines


def catalogue(claims: list[dict]) -> str:
    by_paper = defaultdict(list)
    for c in claims:
        by_paper[c["paper"]].append(c)
    lines = ["# Claim catalogue", "",
             f"Every claim of the registry ({len(claims)} in {len(by_paper)} papers), generated from "
             "`theorycheck list --json` when the site was built. `theorycheck show ID` prints the same for one "
             "claim, with its last verdict; the {doc}`kinds <../kinds>` page says how each kind decides.", ""]
    for paper, items in by_paper.items():
        lines += [f"- **{paper}** ({text(items[0]['citation'])}): "
                  + ", ".join(claim_ref(c["id"]) for c in items)]
    lines.append("")
    for paper, items in by_paper.items():
        lines += [f"## {paper}", "", text(items[0]["citation"]), ""]
        for c in items:
            kind = c["kind"]
            kind_link = f"{{ref}}`{kind} <kind-{kind}>`" if kind in KINDS else kind
            lines += [f"({anchor(c['id'])})=", f"### `{c['id']}`: {text(c['title'])}", "",
                      f"**{text(c['reference'])}** · kind {kind_link} · module `{c['module']}`", "",
                      f"**Statement.** {text(c['statement'])}", ""]
            if c["hypotheses"]:
                lines += ["**Hypotheses** (checked on the instance built):", ""]
                lines += [f"- {text(h)}" for h in c["hypotheses"]] + [""]
            if c["interpretation"]:
                lines += [f"**Interpretation.** {text(c['interpretation'])}", ""]
            if c["subjects"]:
                lines += ["**Subjects** (replace one with `--subject NAME=module:attribute`): " + "; ".join(
                    f"`{name}` = `{target}` ({text(c['protocols'].get(name, 'no contract'))})"
                    for name, target in c["subjects"].items()), ""]
            if c["power"]:
                lines += [f"**What it can and cannot catch.** {text(c['power'])}", ""]
            if c["defects"]:
                lines += ["| planted defect | caught | why not |", "|---|---|---|"]
                lines += [f"| {cell(d['name'])} | {'yes' if d['caught'] else 'no'} | {cell(d['why'])} |"
                          for d in c["defects"]] + [""]
            found = [f"erratum `{e['key']}`" for e in c["errata"]]
            found += [f"non-reproduction `{n['key']}`" for n in c["non_reproductions"]]
            if found:
                lines += ["Declares " + ", ".join(found) + " (see {doc}`errata`).", ""]
            lines += ["**Parameters by profile.**", "", *_profiles(c["profiles"])]
    return "\n".join(lines) + "\n"


def errata(records: list[dict]) -> str:
    errs = [r for r in records if r["type"] == "erratum"]
    nonrep = [r for r in records if r["type"] != "erratum"]
    lines = ["# Errata and non-reproductions", "",
             "Generated from `theorycheck errata --json` when the site was built. An **erratum** is a "
             "statement of a paper that a claim shows false, by a counterexample, a derivation, or a decisive "
             "run confirmed on a fresh seed (its *basis*). A **non-reproduction** is a published number or "
             "ordering our runs do not reach, with what was tried; it says nothing about the paper's proofs. "
             "`theorycheck errata` prints the same list with the evidence of the last run in the report "
             "folder; the report's Errata page shows both.", "",
             f"## Errata ({len(errs)})", ""]
    for r in errs:
        lines += [f"### {r['claim']}: `{r['key']}`", "",
                  f"**{text(r['paper_title'])}**, {text(r['where'])} (claim {claim_ref(r['claim'])}, "
                  f"{text(r['reference'])}).", "",
                  f"- **Printed:** {text(r['printed'])}", f"- **What holds:** {text(r['holds'])}",
                  f"- **Basis:** {r['basis']}. {text(r.get('evidence_standard') or '')}", ""]
    lines += [f"## Non-reproductions ({len(nonrep)})", ""]
    for r in nonrep:
        lines += [f"### {r['claim']}: `{r['key']}`", "",
                  f"**{text(r['paper_title'])}**, {text(r['where'])} (claim {claim_ref(r['claim'])}).", "",
                  f"- **Printed:** {text(r['printed'])}", f"- **Ours:** {text(r['ours'])}",
                  f"- **Tried:** {text(r['tried'])}", ""]
    return "\n".join(lines) + "\n"


def _table(frame: pd.DataFrame, limit: int = 80) -> list[str]:
    shown = frame.head(limit)
    lines = ["| " + " | ".join(cell(c) for c in shown.columns) + " |", "|---" * len(shown.columns) + "|"]
    lines += ["| " + " | ".join("" if pd.isna(v) else cell(f"{v:.4g}" if isinstance(v, float) else v) for v in row)
              + " |" for row in shown.itertuples(index=False)]
    if len(frame) > limit:
        lines.append(f"\n({len(frame) - limit} more rows in the CSV.)")
    return [*lines, ""]


def results(report: Path) -> str:
    lines = ["# Results of the last stored run", ""]
    summary_path = report / "summary.json"
    shown = report.relative_to(ROOT) if report.resolve().is_relative_to(ROOT) else report
    if not summary_path.exists():
        return "\n".join([*lines, f"No stored run was found in `{shown}/` when the site was built. Run "
                           "`nox -s verify` (or `theorycheck verify`), then `nox -s docs`; or set "
                           "THEORYCHECK_DOCS_REPORT to a report folder.", ""])
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    when = datetime.fromtimestamp(summary_path.stat().st_mtime, UTC).strftime("%Y-%m-%d %H:%M UTC")
    counts = ", ".join(f"{n} {v}" for v, n in summary.get("counts", {}).items() if n)
    lines += [f"Generated from `{shown}/summary.json`, written {when} by a run of the **{summary['profile']}** "
              f"profile at seed {summary['seed']}, code version `{summary['code_version'][:12]}`: {counts}. "
              "This is whatever run the folder held when the site was built, not necessarily a full one.", "",
              "| claim | verdict | decision |", "|---|---|---|"]
    lines += [f"| {claim_ref(c['id'])} | {c['verdict']} | {cell(c.get('headline') or '')} |"
              for c in summary["claims"]] + [""]
    for c in summary["claims"]:
        path = report / "tables" / f"{c['id']}.summary.csv"
        if path.exists():
            frame = pd.read_csv(path)
            if "published" in frame.columns:
                lines += [f"## {c['id']}: ours beside the published numbers", "", ":::{container} wide-table",
                          *_table(frame), ":::", ""]
    return "\n".join(lines) + "\n"


#: the tutorial's commands (docs/tutorial.md), run at every build: (file, folder it runs in, arguments,
#: exit statuses accepted); `new` writes the skeleton that `unfinished` then runs
TUTORIAL = (
    ("list", "list", ["list", "--claims", "tutorial_claims.claims", "--paper", "zinkevich03"], (0,)),
    ("verify", "verify", ["verify", "hoeffding63.*", "zinkevich03.*", "--claims", "tutorial_claims.claims",
                          "--power", "--quiet"], (0,)),
    ("defect", "defect", ["verify", "zinkevich03.thm1", "--claims", "tutorial_claims.claims", "--quiet",
                          "--subject", "learner=tutorial_claims.defects:constant_step"], (1,)),
    ("vacuous", "vacuous", ["verify", "hoeffding63.thm2-iw", "--claims", "tutorial_claims.claims", "--set",
                            "designs=matched,shifted", "--quiet"], (3,)),
    ("new", "mine", ["new", "frequency", "mypaper.lemma1"], (0,)),
    ("unfinished", "mine", ["verify", "mypaper.lemma1", "--claims", "mypaper_lemma1", "--quiet"], (1,)),
)


def tutorial() -> dict[str, str]:
    """Run the tutorial's commands against tests/tutorial_claims (found through PYTHONPATH, so the package
    need not be installed), each in a fresh folder, and return what the page shows of each: the command
    line, its output and its exit status."""
    import shlex
    import tempfile

    pages = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "tutorial_claims"), str(ROOT)]),
               "XDG_CACHE_HOME": tmp}
        for name, where, args, statuses in TUTORIAL:
            cwd = Path(tmp) / where
            cwd.mkdir(exist_ok=True)
            with timed(f"tutorial: theorycheck {shlex.join(args)}"):
                done = subprocess.run([sys.executable, "-m", "theorycheck", *args], capture_output=True, text=True,
                                      env=env, cwd=cwd)
            if done.returncode not in statuses:
                raise RuntimeError(f"tutorial: theorycheck {shlex.join(args)} exited {done.returncode}: {done.stderr}")
            output = (done.stdout + done.stderr).rstrip().replace(str(cwd) + os.sep, "")
            pages[f"tutorial-{name}.txt"] = (f"$ theorycheck {shlex.join(args)}\n{output}\n"
                                             f"(exit status {done.returncode})\n")
    return pages


@contextmanager
def timed(what: str):
    """Print "gen_pages: <what> ..." on stderr, then, when the block ends, its time in seconds."""
    print(f"gen_pages: {what} ...", end="", file=sys.stderr, flush=True)
    start = time.perf_counter()
    yield
    print(f" {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def main(folder: Path) -> None:
    """Write `catalogue.md`, `errata.md`, `results.md` and the tutorial's outputs into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    report = Path(os.environ.get("THEORYCHECK_DOCS_REPORT", ROOT / "reports"))
    pages = {}
    with timed("the catalogue (theorycheck list)"):
        pages["catalogue.md"] = catalogue(_json("list"))
    with timed("the errata (theorycheck errata)"):
        pages["errata.md"] = errata(_json("errata"))
    with timed(f"the results of {report}"):
        pages["results.md"] = results(report)
    pages |= tutorial()
    for name, page in pages.items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != page:  # unchanged pages keep Sphinx's cache
            path.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "generated")
