"""The offline HTML report: ``index.html``, ``errata.html`` and one page per claim, built from
stored results.

Everything is in the output folder: CSS is inlined in each page, figures are inline SVG, and
tables link to CSV files beside the pages. No page refers to anything outside the folder.

The index leads with the results: the verdict counts, each a link to the claims it counts; the
claims that are not PASS, each with the one line that says why; the passing ones; then one table
per paper, the tightness atlas (observed/bound of every bound claim on one log axis) and the power
atlas (folded away, with what would fill it, when no planted defect was run). ``errata.html``
lists the errata the claims declare (false statements, with how each is shown) apart from their
non-reproductions (published numbers we do not reach, with what was tried), each with the text
of the stored run. A claim page shows, beside the verdict and its
evidence, the subjects with their contracts, the trivial learner's value (and a banner when the
instance is vacuous), the errata the claim establishes and the numbers it does not reproduce, and
its power: the planted defects it catches and those it cannot.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .. import stats
from ..claims import PAPERS, Claim, discover, natural_key
from ..errata import default_subjects, gather, not_reproduced, replaced_subjects
from ..protocols import contract_text
from ..run.store import read_result, read_summary, write_atomic
from ..validation import ParameterError
from ..verdicts import NOT_RUN, Verdict, headline

_TABLE_ROWS = 200
#: keys a result record has since the errata/power fields; older records get these defaults
_RECORD_DEFAULTS: dict[str, Any] = {
    "errata": [], "non_reproductions": [], "errata_evidence": {}, "defects": [], "power": "", "protocols": {},
    "trivial": None, "vacuous": False, "vacuous_reason": "", "ratio": None, "subjects": {}, "notes": [],
    "hypothesis_checks": [], "hypotheses": [], "interpretation": "", "plot": None, "observed_label": "",
}


def _num(value, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return f"{value + 0.0:.{digits}g}"  # + 0.0 turns −0 into 0: "−0" reads as a sign that means something


def _minus(value, digits: int = 4) -> str:
    """A number for a sentence, with a true minus sign (−0.5, not -0.5)."""
    return _num(value, digits).replace("-", "−")


def duration(seconds) -> str:
    """Seconds as a person reads them: "0.42 s", "38 s", "14 min 50 s", "2 h 05 min"."""
    if not isinstance(seconds, int | float) or not math.isfinite(seconds):
        return "—"
    if seconds < 0.01:
        return "< 0.01 s"
    if seconds < 10:
        return f"{seconds:.2f} s" if seconds < 1 else f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, sec = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _setval(value) -> str:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("theorycheck.report", "templates"),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _num
    env.filters["setval"] = _setval
    env.filters["duration"] = duration
    env.filters["anchor"] = verdict_anchor
    return env


def verdict_anchor(verdict: str) -> str:
    """The id on the index of the first claim with this verdict, where its count badge links to."""
    return "verdict-" + re.sub(r"[^A-Za-z0-9]+", "-", str(verdict)).strip("-")


def by_verdict(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The rows that are not PASS, grouped by verdict in the order the console counts them
    (:class:`theorycheck.verdicts.Verdict`'s order), a verdict not in it last."""
    from ..verdicts import Verdict

    rank = {v: i for i, v in enumerate(Verdict)}
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in sorted((r for r in rows if r.get("verdict") != stats.PASS),
                      key=lambda r: rank.get(r.get("verdict"), len(rank))):
        groups.setdefault(row.get("verdict") or Verdict.ERROR, []).append(row)
    return list(groups.items())


def _html_table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, border=0, float_format=lambda v: f"{v:.6g}", na_rep="—")


def _without_empty(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The table without its columns that have no value in any row (a table that joins rows of
    several kinds has many, and they push the others off the page), and a sentence naming them."""
    empty = [c for c in frame.columns if frame[c].isna().all()] if len(frame) else []
    note = (f"Columns with no value in any row, left out here (the CSV has them): {', '.join(map(str, empty))}."
            if empty else "")
    return frame.drop(columns=empty), note


# ---------------------------------------------------------------------- pieces of a claim page
def subject_spec(dotted: str) -> str | None:
    """``module:attribute`` for a subject named ``module.qualname`` (as a record stores it), so
    that ``--subject`` can load it again; None for a tuple of subjects, which ``--subject``
    cannot express. The module part is the longest importable prefix."""
    if not dotted or dotted.startswith("("):
        return None
    parts = dotted.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:i])
        try:
            if importlib.util.find_spec(module) is not None:
                return f"{module}:{'.'.join(parts[i:])}"
        except (ImportError, ValueError, AttributeError):
            continue
    head, _, tail = dotted.rpartition(".")
    return f"{head}:{tail}" if head else None


def rerun_command(record: dict[str, Any], defaults: dict[str, str]) -> tuple[str, list[str]]:
    """The command that re-runs this claim as it ran, and notes on what it cannot reproduce."""
    parts = ["theorycheck", "verify", record["id"], "--profile", str(record["profile"]),
             "--seed", str(record["seed"])]
    notes = []
    module = record.get("module") or ""
    if module == "__main__":
        notes.append("the claim was declared in a script or notebook, which --claims cannot name; move it into a "
                     "module and pass --claims MODULE")
    elif module and module.split(".", 1)[0] not in ("proofs", "simulations"):
        parts += ["--claims", module]
    for name, value in (record.get("params") or {}).items():
        parts += ["--set", f"{name}={_setval(value)}"]
    for name, used in replaced_subjects(record, defaults).items():
        spec = subject_spec(used)
        if spec is None:
            notes.append(f"subject {name} was {used}, which --subject cannot name; pass it from Python "
                         f"(theorycheck.run.run_claims(..., subjects={{{name!r}: ...}}))")
            continue
        parts += ["--subject", f"{name}={spec}"]
    return " ".join(shlex.quote(p) for p in parts), notes


def _contracts(record: dict[str, Any], claim: Claim | None, defaults: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for name, used in (record.get("subjects") or {}).items():
        contract = claim.protocols.get(name) if claim is not None else None
        if contract is not None and hasattr(contract, "signature"):
            signature = contract_text(contract)
        else:
            signature = (record.get("protocols") or {}).get(name) or getattr(contract, "__name__", None)
        default = defaults.get(name)
        rows.append({"name": name, "used": used, "default": default,
                     "replaced": default is not None and default != used, "signature": signature})
    return rows


def _defects(record: dict[str, Any], claim: Claim | None) -> list[dict[str, Any]]:
    """The declared planted defects, with how to plant each one from the command line."""
    planted = {d.name: d for d in (claim.defects if claim is not None else ())}
    rows = []
    for d in record.get("defects") or []:
        how = ""
        source = planted.get(d["name"])
        if source is not None:
            how = " ".join([*(f"--subject {k}={v}" for k, v in source.subjects.items()),
                            *(f"--set {k}={v}" for k, v in source.overrides.items())])
        run = next((p for p in record.get("power_runs") or [] if p.get("name") == d["name"]), None)
        rows.append({**d, "how": how, "run": run})
    return rows


def _interval(r: dict[str, Any]) -> list[float] | None:
    """The record's interval that decides around the observed value, when it has one with both ends."""
    interval = r.get("interval")
    return interval if isinstance(interval, list) and len(interval) == 2 and None not in interval else None


def lead(r: dict[str, Any]) -> list[str]:
    """The sentences under a page's verdict, before anything else: the headline numbers in words
    (a rate's observed value is a slope, a bound's is set against the bound, named by the claim's
    ``observed_label`` where it declares one) and, for a verdict
    other than PASS or where there are no such numbers, the line of the decision that gives its
    reason (:func:`theorycheck.verdicts.headline`)."""
    observed, theory, interval = r.get("observed"), r.get("theory"), _interval(r)
    within = f" (interval {_minus(interval[0])} to {_minus(interval[1])})" if interval else ""
    numbers = ""
    if observed is not None and theory is not None and r.get("kind") == "rate":
        numbers = (f"Observed slope {_minus(observed)}{within} against theory {_minus(theory)}: the fitted log–log "
                   f"slope of the first decided path; the claim is that it is at most the theory's.")
    elif observed is not None and theory is not None and r.get("ratio") is not None:
        lower = bool(r.get("ratio_at_least")) or r.get("kind") == "lower-bound"
        what = f"{r['observed_label']}: " if r.get("observed_label") else ""
        numbers = (f"Observed {what}{_minus(observed)}{within}{',' if what else ''} against the "
                   f"{'lower ' if lower else ''}bound {_minus(theory)}: observed / bound = {_minus(r['ratio'], 3)}.")
        if r.get("verdict") == stats.PASS and (r["ratio"] < 1 if lower else r["ratio"] > 1):
            numbers += (" The estimate lies past the bound, but the interval that decides reaches it: no violation."
                        if interval else " The estimate lies past the bound, but the decision is on another "
                        "statistic (below), which meets it: no violation.")
    if r.get("verdict") != stats.PASS:
        return [text for text in (numbers, headline(r.get("decision"), r.get("verdict"))) if text]
    if numbers:
        return [numbers]
    # a PASS without numbers: the decision's first sentence, which says what was decided
    first = headline(r.get("decision"))
    end = re.search(r"\.\s+(?=[A-Z])", first)
    return [first[: end.start() + 1] if end else first] if first else []


def findings_legend(findings: list[dict[str, Any]], replaced: bool) -> list[str]:
    """The legend under a page's findings, in the words of this page: the rule of each relation and
    question its findings ask, and what an outcome against the paper makes of this claim, which
    depends on where it ran: on an instance this project designed (a simulation finding, INCONCLUSIVE),
    with the paper's reference implementations (NOT REPRODUCED, a finding about the paper) or with a
    replaced subject (whose paper findings are reported and which is judged against its reference)."""
    asked: dict[tuple[str, str], set[float]] = {}
    for f in findings:
        if f.get("relation") in stats.RELATIONS:
            asked.setdefault((f["relation"], f.get("question") or stats.DIRECTION), set()).add(f.get("margin"))
    rules = []
    for (relation, question), margins in asked.items():
        margin = next(iter(margins)) if len(margins) == 1 else None
        ok = isinstance(margin, int | float) and math.isfinite(margin) and margin > 0
        rules.append(stats.rule_text(relation, margin if ok else None, question))
    lines = [f"The outcome of a finding is read from its interval: {'; '.join(rules)}; UNDECIDED otherwise."
             if rules else ""]
    deciding = [f for f in findings if f.get("decides")]
    if any(f.get("designed") for f in deciding):
        lines.append("This claim's instances are this project's design (a simulated crowd, a synthetic stand-in for "
                     "data we do not have): with the paper's reference implementations a deciding TIED, REVERSED or "
                     "DIFFERENT is a simulation finding about that instance, not a non-reproduction of the paper, "
                     "and leaves the claim INCONCLUSIVE.")
    elif replaced:
        lines.append("A replaced subject ran here: the paper's findings that read it are reported, not decided, and "
                     "the subject is judged against the reference implementation on the same data (a "
                     "non-inferiority with the finding's ε): REVERSED there, worse than the reference by more than "
                     "ε, makes the claim FAIL.")
    else:
        lines.append("These are the paper's reference implementations: a deciding TIED, REVERSED or DIFFERENT is a "
                     "finding about the paper, not a fault of an implementation, and makes the claim NOT REPRODUCED.")
    lines.append("A deciding UNDECIDED or NEGLIGIBLE leaves the claim INCONCLUSIVE; a finding marked reported does "
                 "not count toward the verdict, whatever its outcome.")
    return [line for line in lines if line]


#: parameter names that count the runs of a part of a claim: at 0 the part is switched off
_COUNTS = ("_repetitions", "_runs")


def used_params(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's parameters split into those it used and those of parts it switched off.

    What can be told reliably from the parameters alone is one convention of the kinds: a part
    whose count ``<part>_repetitions`` (or ``<part>_runs``) is 0 does not run, so none of its
    ``<part>_*`` parameters is used (a bound's ``rate_*`` and ``dk_*``, ks15's ``paired_*``, an
    exact law's ``mc_*``). Nothing else is left out: a 0 or None elsewhere may mean something
    (a resolution of 0 asks for exactness, η = None for the theorem's rule), and which part reads a
    parameter with no such prefix cannot be told from its name."""
    off = [name[: -len(end)] for name, value in params.items() for end in _COUNTS
           if name.endswith(end) and type(value) is int and value == 0]
    unused = {name: value for name, value in params.items() if any(name.startswith(part + "_") for part in off)}
    return {name: value for name, value in params.items() if name not in unused}, unused


def _errata(record: dict[str, Any], which: str = "errata") -> list[dict[str, Any]]:
    """The record's errata (or ``which="non_reproductions"``) with the run's text for each as
    ``run``; an erratum's own ``evidence`` (what meets the standard) is kept."""
    evidence = record.get("errata_evidence") or {}
    return [{**e, "run": evidence.get(e["key"])} for e in record.get(which) or []]


def _trivial_ratio(row: dict[str, Any]) -> float | None:
    """The trivial learner's value over the bound, beside observed/bound; None where the claim has no
    such ratio (a rate's theory is an exponent, and a ratio of slopes means nothing)."""
    trivial, theory = row.get("trivial"), row.get("theory")
    if row.get("ratio") is None or trivial is None or theory is None or theory == 0:
        return None
    value = trivial / theory
    return value if math.isfinite(value) else None


def _ratio_interval(record: dict[str, Any]) -> tuple[float, float] | None:
    """The interval that decides around the observed value, divided by the bound as the ratio is, or
    None when the record has none (an older record, or a kind whose headline number is not the one
    it decides on). An end stored as None is unbounded: 0 below, ∞ above."""
    interval, theory = record.get("interval"), record.get("theory")
    if not isinstance(interval, list) or len(interval) != 2 or not theory or theory <= 0:
        return None
    low, high = (0.0 if interval[0] is None else interval[0]), (math.inf if interval[1] is None else interval[1])
    return low / theory, high / theory


def atlas_rows(run_rows: list[dict[str, Any]], earlier: list[dict[str, Any]],
               records: dict[str, dict[str, Any]] | None = None,
               searched: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One row per claim with a ratio: the last run's, then earlier results in the folder; each with
    the ratio's interval (``low``, ``high``) where its stored result (in ``records``) has one, and the worst
    confirmed ratio of a search of the claim on the same profile with its reference implementations (``worst``,
    from ``searched``: :func:`searched_worst`'s {claim: search result})."""
    rows = []
    for row, is_earlier in [*((r, False) for r in run_rows), *((r, True) for r in earlier)]:
        if row.get("ratio") is None:
            continue
        interval = _ratio_interval((records or {}).get(row["id"]) or row)
        lower = bool(row.get("ratio_at_least")) or row.get("kind") == "lower-bound"
        search = (searched or {}).get(row["id"])
        rows.append({"id": row["id"], "verdict": row.get("verdict", Verdict.ERROR), "ratio": row["ratio"],
                     "trivial_ratio": _trivial_ratio(row), "vacuous": bool(row.get("vacuous")),
                     "lower": lower, "earlier": is_earlier, "low": interval[0] if interval else None,
                     "high": interval[1] if interval else None,
                     "worst": _worst_ratio(search, lower) if search else None})
    return rows


def searched_worst(out: Path, profile: str) -> dict[str, dict[str, Any]]:
    """The stored results of ``theorycheck search`` in ``out/search`` on ``profile`` that ran the claims' reference
    implementations (no ``--subject``), by claim: what the tightness atlas puts beside each default instance."""
    found = {}
    for path in sorted((out / "search").glob("*.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if (isinstance(result, dict) and isinstance(result.get("claim"), str) and result.get("profile") == profile
                and result.get("subjects") == {}):
            found[result["claim"]] = result
    return found


def _worst_ratio(search: dict[str, Any], lower: bool) -> float | None:
    """The worst confirmed ratio of a stored search: the largest observed/bound among its confirmations (the
    smallest for a lower bound, where PASS is at or above 1)."""
    ratios = [c["ratio"] for c in search.get("confirmations") or () if isinstance(c, dict)
              and isinstance(c.get("ratio"), int | float) and math.isfinite(c["ratio"])
              and c.get("verdict") not in (Verdict.ERROR, Verdict.SUBJECT_ERROR)]
    if not ratios:
        return None
    return min(ratios) if lower else max(ratios)


def power_rows(run_rows: list[dict[str, Any]], records: dict[str, dict[str, Any]], profile: str,
               code_version: str, registry: dict[str, Claim] | None = None) -> list[dict[str, Any]]:
    """The power atlas: one row per claim of the run, with its planted defects' verdicts from the last
    ``verify --power`` stored with its result. A defect counts as run only when that run was on this
    profile and code version; caught means its verdict was FAIL while the reference implementations'
    verdict (the claim's own result) on the same profile and seed was not. Nothing is caught by declaration:
    ``declared`` (the author's expectation, which tests/test_power.py asserts on quick) is shown apart.
    ``ideas`` are the defects marked as removing the paper's idea (``Defect(idea=True)``); ``scope`` is the
    claim's :attr:`~theorycheck.claims.Claim.power_scope` (e.g. a bound no honest learner comes near, which
    catches only cheats), from ``registry``."""
    rows = []
    for row in run_rows:
        record = records.get(row["id"]) or {}
        runs = {p.get("name"): p for p in record.get("power_runs") or []
                if p.get("profile") == profile and p.get("code_version") == code_version}
        defects = []
        for d in record.get("defects") or []:
            run = runs.get(d.get("name"))
            # caught: FAIL where the reference implementations did not FAIL on the same profile and seed
            differs = record.get("verdict") != stats.FAIL and run is not None and run.get("seed", record.get("seed")) \
                == record.get("seed")
            status = ("not run" if run is None or run.get("verdict") == NOT_RUN
                      else "caught" if run.get("verdict") == stats.FAIL and differs else "not caught")
            defects.append({"name": d.get("name"), "declared": bool(d.get("caught")), "idea": bool(d.get("idea")),
                            "status": status, "verdict": None if run is None else run.get("verdict"),
                            "headline": None if run is None else run.get("headline")})
        ran = [d for d in defects if d["status"] != "not run"]
        claim = (registry or {}).get(row["id"])
        rows.append({"id": row["id"], "verdict": row.get("verdict", Verdict.ERROR),
                     "scope": getattr(claim, "power_scope", "") if claim is not None else "",
                     "ideas": [d for d in defects if d["idea"]], "declared": len(defects), "run": len(ran),
                     "caught": sum(d["status"] == "caught" for d in ran),
                     "unlike": sum((d["status"] == "caught") != d["declared"] for d in ran)})
    return rows


def _load(path: Path) -> dict[str, Any] | None:
    """A stored result, or None (with a one-line warning) when the file is damaged."""
    record = read_result(path)
    if record is not None:
        for key, value in _RECORD_DEFAULTS.items():
            record.setdefault(key, value)
    return record


def _load_scaling(path: Path) -> dict[str, Any] | None:
    """The scaling measurement of a verify run (``theorycheck.scaling``), or None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("rows"), list) and data["rows"] else None


# ---------------------------------------------------------------------- rendering
def render(out: Path | str, *, all_pages: bool = True, registry: dict[str, Claim] | None = None,
           pages: set[str] | None = None) -> Path:
    """Render ``index.html``, ``errata.html`` and the claim pages from ``<out>/summary.json``
    and the stored results.

    The index lists the claims of the last run, then any earlier results stored in the folder.
    With ``all_pages=False`` only the last run's pages (and missing ones) are rendered again.
    ``registry`` (default: every registered claim) supplies what a record does not store: the
    default subjects, the contracts' signatures and how each planted defect is planted.
    ``pages`` (ids) limits the claim pages rendered to those, as a run does when a claim finishes.
    """
    out = Path(out)
    summary_path = out / "summary.json"
    if not summary_path.exists():
        raise ParameterError(f"no stored results in {out}: run `theorycheck verify --out {out}` first")
    summary = read_summary(summary_path, quiet=True)
    if summary is None:
        raise ParameterError(f"{summary_path} is damaged; run `theorycheck verify --out {out}` to rebuild it")
    registry = discover() if registry is None else registry
    env = _environment()
    claim_page = env.get_template("claim.html")
    in_run = {row["id"] for row in summary["claims"]}
    for row in summary["claims"]:
        if not (out / "results" / f"{row['id']}.json").exists():
            raise ParameterError(f"the result of {row['id']} is missing from {out / 'results'}")
    records: dict[str, dict[str, Any]] = {}
    earlier = []
    for result_path in sorted((out / "results").glob("*.json"), key=lambda path: natural_key(path.stem)):
        r = _load(result_path)
        if r is None:
            continue
        records[r["id"]] = r
        if r["id"] not in in_run:
            earlier.append(r)
            if not all_pages and (out / f"{r['id']}.html").exists():
                continue
        if pages is None or r["id"] in pages:
            write_atomic(out / f"{r['id']}.html", _claim_page(claim_page, out, r, registry.get(r["id"])))
    items = gather(out, registry=registry, records=records)
    # the built-in papers' citations, and those that out-of-tree claims stored with their results
    papers = {**{r["paper"]: r["citation"] for r in records.values() if r.get("citation")}, **PAPERS}
    write_atomic(out / "errata.html", env.get_template("errata.html").render(
        items=items, papers=papers, summary=summary, pages={cid for cid in records},
        this_run=not_reproduced(records)))
    # each claim's share of the family-wise error (summaries written before the runner stored it)
    for row, share in zip(summary["claims"], stats.delta_shares(row.get("delta") for row in summary["claims"]),
                          strict=True):
        row["delta_share"] = share
    largest = sorted((row for row in summary["claims"] if row["delta_share"]),
                     key=lambda row: -row["delta_share"])[:3]
    groups: dict[str, list] = {}
    for row in summary["claims"]:
        groups.setdefault(row["paper"], []).append(row)
    figures = _figures(out)
    atlas = figures.render_atlas(atlas_rows(summary["claims"], earlier, records,
                                                   searched_worst(out, summary.get("profile", ""))))
    power = power_rows(summary["claims"], records, summary.get("profile", ""), summary.get("code_version", ""),
                       registry)
    scaling = _load_scaling(out / "scaling.json")
    scaling_svg = figures.render_scaling(scaling["rows"]) if scaling else None
    index = env.get_template("index.html").render(
        summary=summary, groups=sorted(groups.items()), papers=papers, env=summary["environment"], largest=largest,
        earlier=earlier, atlas=atlas, power=power, n_errata=sum(item["type"] == "erratum" for item in items),
        n_missed=sum(item["type"] == "non-reproduction" for item in items), scaling=scaling, scaling_svg=scaling_svg,
        n_evidence=sum(item["evidence"] is not None for item in items),
        not_pass=by_verdict(summary["claims"]),
        passed=[row for row in summary["claims"] if row.get("verdict") == stats.PASS],
    )
    path = out / "index.html"
    write_atomic(path, index)
    return path


def private_matplotlib(out: Path | str | None = None) -> None:
    """Point matplotlib's configuration and font cache (MPLCONFIGDIR, unless the user set it) at a private temporary
    folder of this process, removed at its exit, before matplotlib is imported: a run writes nothing under $HOME,
    and nothing through a link planted in the output folder (matplotlib writes its font cache through links). With
    ``out``, the font cache kept in ``<out>/.cache/matplotlib`` is copied in (regular files only, read without
    following a link) and copied back at exit (written atomically, replacing a link, never through one), so a
    later run does not scan the fonts again. A process that imported matplotlib before keeps its own."""
    if "matplotlib" in sys.modules or os.environ.get("MPLCONFIGDIR"):
        return
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="theorycheck-matplotlib-"))
    kept = _kept_fonts(out)
    for path in kept.glob("fontlist-*.json") if kept is not None else ():
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                (folder / path.name).write_bytes(fh.read())
        except OSError:  # a link, or unreadable: not copied
            continue

    def keep() -> None:
        into = _kept_fonts(out)
        for path in folder.glob("fontlist-*.json") if into is not None else ():
            try:
                write_atomic(into / path.name, path.read_bytes())
            except OSError:
                pass
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(keep)
    os.environ["MPLCONFIGDIR"] = str(folder)


def _kept_fonts(out) -> Path | None:
    """``<out>/.cache/matplotlib`` when ``out`` is a folder and neither ``.cache`` nor ``.cache/matplotlib`` is a
    link or a file (either may not exist yet), else None."""
    if out is None or not Path(out).is_dir():
        return None
    cache = Path(out) / ".cache"
    kept = cache / "matplotlib"
    fine = all(not p.is_symlink() and (p.is_dir() or not p.exists()) for p in (cache, kept))
    return kept if fine else None


def _figures(out: Path):
    """The figures module, imported at the first figure with matplotlib's cache in a private folder
    (:func:`private_matplotlib`)."""
    private_matplotlib(out)
    from . import figures

    return figures


def _table(out: Path, name: str | None) -> pd.DataFrame | None:
    """A stored CSV table, or None (with a one-line warning) when it is missing or unreadable."""
    if not name:
        return None
    try:
        return pd.read_csv(out / name)
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        print(f"theorycheck: warning: the table {out / name} cannot be read ({type(err).__name__}); the page is "
              "rendered without it", file=sys.stderr)
        return None


def _claim_page(template, out: Path, r: dict[str, Any], claim: Claim | None) -> str:
    svg = summary_html = table_html = None
    table_note = summary_note = figure_error = figure_note = ""
    frame = _table(out, r.get("summary_file"))
    if frame is not None:
        if r.get("plot"):
            try:
                svg = _figures(out).render_svg(frame, r["plot"])
            except (KeyError, ValueError, TypeError) as err:  # a wrong declaration costs the figure, not the report
                figure_error = f"The figure could not be drawn from the summary table: {type(err).__name__}: {err}"
            else:
                if svg is None:
                    figure_note = (f"No figure: no row of the summary table has a finite value of "
                                   f"{r['plot'].get('y')!r} (or of the theory or interval beside it) to draw.")
        frame, summary_note = _without_empty(frame)
        summary_html = _html_table(frame)
    frame = _table(out, r.get("table_file"))
    if frame is not None:
        frame, empty_note = _without_empty(frame)
        if len(frame) > _TABLE_ROWS:
            table_note = f"First {_TABLE_ROWS} of {len(frame)} rows."
            frame = frame.head(_TABLE_ROWS)
        table_html = _html_table(frame)
        table_note = " ".join(filter(None, [table_note, empty_note]))
    defaults = default_subjects(claim) if claim is not None else {}
    rerun, rerun_notes = rerun_command(r, defaults)
    return template.render(
        r=r, svg=svg, summary_html=summary_html, table_html=table_html, table_note=table_note, papers=PAPERS,
        figure_error=figure_error, figure_note=figure_note, summary_note=summary_note,
        rerun=rerun, rerun_notes=rerun_notes, contracts=_contracts(r, claim, defaults),
        defects=_defects(r, claim), builtin=str(r.get("module") or "proofs").split(".")[0] in ("proofs", "simulations"),
        errata=_errata(r), missed=_errata(r, "non_reproductions"),
        trivial_ratio=_trivial_ratio(r), lead=lead(r), params=used_params(r.get("params") or {}),
        interval=_interval(r), against=stats.AGAINST,
        legend=findings_legend(r.get("findings") or [], bool(replaced_subjects(r, defaults))),
    )
