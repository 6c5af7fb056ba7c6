"""The offline HTML report: ``index.html`` and one page per claim, built from stored results.

Everything is in the output folder: CSS is inlined in each page, figures are inline SVG, and
tables link to CSV files beside the pages. No page refers to anything outside the folder.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from ..claims import PAPERS, natural_key
from ..runner import write_atomic
from ..validation import ParameterError
from .figures import render_svg

_TABLE_ROWS = 200


def _num(value, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}g}"


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
    return env


def _html_table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, border=0, float_format=lambda v: f"{v:.6g}", na_rep="—")


def render(out: Path | str, *, all_pages: bool = True) -> Path:
    """Render ``index.html`` and the claim pages from ``<out>/summary.json`` and results.

    The index lists the claims of the last run, then any earlier results stored in the folder.
    With ``all_pages=False`` only the last run's pages (and missing ones) are rendered again.
    """
    out = Path(out)
    summary_path = out / "summary.json"
    if not summary_path.exists():
        raise ParameterError(f"no stored results in {out}: run `theorycheck verify --out {out}` first")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    env = _environment()
    claim_page = env.get_template("claim.html")
    in_run = {row["id"] for row in summary["claims"]}
    for row in summary["claims"]:
        if not (out / "results" / f"{row['id']}.json").exists():
            raise ParameterError(f"the result of {row['id']} is missing from {out / 'results'}")
    earlier = []
    for result_path in sorted((out / "results").glob("*.json"), key=lambda path: natural_key(path.stem)):
        r = json.loads(result_path.read_text(encoding="utf-8"))
        if r["id"] not in in_run:
            earlier.append(r)
            if not all_pages and (out / f"{r['id']}.html").exists():
                continue
        svg = summary_html = table_html = None
        table_note = ""
        if r.get("summary_file"):
            frame = pd.read_csv(out / r["summary_file"])
            summary_html = _html_table(frame)
            if r.get("plot"):
                svg = render_svg(frame, r["plot"])
        if r.get("table_file"):
            frame = pd.read_csv(out / r["table_file"])
            if len(frame) > _TABLE_ROWS:
                table_note = f"First {_TABLE_ROWS} of {len(frame)} rows."
                frame = frame.head(_TABLE_ROWS)
            table_html = _html_table(frame)
        html = claim_page.render(
            r=r, svg=svg, summary_html=summary_html, table_html=table_html,
            table_note=table_note, papers=PAPERS,
        )
        write_atomic(out / f"{r['id']}.html", html)
    groups: dict[str, list] = {}
    for row in summary["claims"]:
        groups.setdefault(row["paper"], []).append(row)
    index = env.get_template("index.html").render(
        summary=summary, groups=sorted(groups.items()), papers=PAPERS, env=summary["environment"], earlier=earlier
    )
    path = out / "index.html"
    write_atomic(path, index)
    return path
