"""The page of one search: the verdict first, the confirmations, the objective across trials and against each
searched parameter, and the trials as a table (also written as CSV and JSON beside the page)."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..run.store import write_atomic, write_json
from .confirm import TOP


def trials_table(trials) -> pd.DataFrame:
    """One row per trial: number, state, margin, verdict, ratio, the point, CPU seconds, why."""
    rows = [{"trial": t.number, "state": t.state, "margin": t.margin, "verdict": t.verdict, "ratio": t.ratio,
             **t.point, "cpu_seconds": round(t.seconds, 3), "seed": t.seed, "note": t.why} for t in trials]
    table = pd.DataFrame(rows)
    if "seed" in table:
        table["seed"] = table["seed"].astype("Int64")
    return table


def _figure(table: pd.DataFrame, dims: list[str]) -> str:
    """Inline SVG: the margin against the trial number and against each searched parameter."""
    from ..report import private_matplotlib

    private_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    done = table[table["state"] == "complete"]
    if done.empty:
        return "<p>No trial ran to a margin.</p>"
    panels = ["trial", *dims]
    fig, axes = plt.subplots(1, len(panels), figsize=(2.6 * len(panels), 2.6), squeeze=False, sharey=True)
    finite = done[done["margin"] < 1e299]
    for ax, name in zip(axes[0], panels, strict=True):
        values = finite[name]
        if values.dtype == object:
            ax.scatter(values.astype(str), finite["margin"], s=10)
            ax.tick_params(axis="x", labelrotation=70, labelsize=6)
        else:
            ax.scatter(values, finite["margin"], s=10)
        ax.set_xlabel(name)
    axes[0][0].set_ylabel("margin")
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def write_page(study, result) -> dict[str, Path]:
    """Write ``<out>/search/<claim>.html``, ``.csv`` (the trials) and ``.json`` (the result); return the paths."""
    files = {suffix: study.folder / f"{study.claim.id}.{suffix}" for suffix in ("html", "csv", "json")}
    table = trials_table(result.trials)
    write_atomic(files["csv"], table.to_csv(index=False))
    payload: dict[str, Any] = {
        "claim": result.claim_id, "kind": result.kind, "profile": result.profile, "seed": result.seed,
        "verdict": result.verdict, "counts": result.counts(), "default_ratio": result.default_ratio,
        "space": study.space.lines(), "set": study.overrides,
        "subjects": {name: spec if isinstance(spec, str) else repr(spec) for name, spec in study.subjects.items()},
        "confirmations": [{k: v for k, v in vars(c).items() if k not in ("trial", "decision")}
                          | {"trial": c.trial.number, "point": c.trial.point} for c in result.confirmations],
        "shrunk": None if result.shrunk is None else vars(result.shrunk),
    }
    write_json(files["json"], payload)
    lines = result.lines()
    rows = "".join(
        f"<tr><td>{c.trial.number}</td><td>{html.escape(json.dumps(c.trial.point))}</td><td>{c.trial.margin:.4g}"
        f"</td><td>{c.seed}</td><td><b>{c.verdict}</b></td><td>{_g(c.ratio)}</td><td>{_interval(c.interval)}</td>"
        f"<td>{_g(c.theory)}</td><td><code>{html.escape(c.command)}</code></td></tr>"
        for c in result.confirmations)
    best = table.sort_values("margin", ascending=False).head(20)
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>search {study.claim.id}</title>
<style>body{{font-family:sans-serif;max-width:80em;margin:auto}}td,th{{padding:2px 6px;font-size:90%}}
table{{border-collapse:collapse}}tr:nth-child(even){{background:#f3f3f3}}</style></head><body>
<h1>search: {study.claim.id}</h1>
<pre>{html.escape(chr(10).join(lines))}</pre>
<h2>How to read this</h2>
<p>Each trial ran the claim at one point of its declared space on the search's own stream; the largest margins
are optimistic (the winner's curse) and are never evidence. The {TOP} best trials were run again on a fresh,
disjoint stream with the claim's own decision at the {result.profile} profile's budget and δ: only a FAIL there
is a counterexample. The chance that a search of a true statement ends FAIL is at most {TOP}·δ (union bound over
the confirmations). Margin: {_margin_text(result.kind)}.</p>
<h2>Confirmations</h2>
<table><tr><th>trial</th><th>point</th><th>search margin</th><th>seed</th><th>verdict</th><th>ratio</th>
<th>interval</th><th>theory</th><th>reproduce</th></tr>{rows}</table>
<h2>Space</h2><ul>{"".join(f"<li>{html.escape(line)}</li>" for line in study.space.lines())}</ul>
<p>{html.escape(study.space.why)}</p>
<h2>Margin across trials and against each parameter</h2>{_figure(table, list(study.space.dims))}
<h2>Best trials</h2>{best.to_html(index=False, na_rep="—", float_format=lambda v: f"{v:.4g}")}
<p>All trials: <a href="{files["csv"].name}">{files["csv"].name}</a>.</p></body></html>"""
    write_atomic(files["html"], page)
    return {"page": files["html"], "trials": files["csv"]}


def _margin_text(kind: str) -> str:
    return {"exact": "the largest exact discrepancy (any non-zero one is a counterexample)",
            "lower-bound": "1 / (observed / lower bound): above 1 where the lower bound is contradicted"}.get(
        kind, "the record's ratio, observed / bound: above 1 where the bound is contradicted")


def _g(value) -> str:
    return "—" if value is None else f"{value:.4g}"


def _interval(iv) -> str:
    return "—" if not iv or iv[0] is None else f"[{iv[0]:.4g}, {iv[1]:.4g}]"
