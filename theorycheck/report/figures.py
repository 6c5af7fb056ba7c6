"""Inline SVG figures: observed values with confidence bands beside the theoretical ones."""

from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

_PALETTE = sns.color_palette("colorblind")


def _series(summary: pd.DataFrame, hue: str | None):
    if hue is None or hue not in summary:
        yield None, summary
    else:
        yield from summary.groupby(hue, sort=False)


def render_svg(summary: pd.DataFrame, plot: dict) -> str:
    """Draw ``plot`` (a :class:`theorycheck.claims.Plot` as a dict) over ``summary``."""
    sns.set_theme(style="whitegrid", context="notebook")
    plt.rcParams["svg.fonttype"] = "none"
    plt.rcParams["svg.hashsalt"] = "theorycheck"
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    x, y, theory = plot["x"], plot["y"], plot.get("theory")
    low, high = plot.get("low"), plot.get("high")
    categorical = plot.get("kind") == "point"
    labels = list(dict.fromkeys(summary[x])) if categorical else None
    series = list(_series(summary, plot.get("hue")))
    offsets = {n: (j - (len(series) - 1) / 2) * 0.12 for j, (n, _) in enumerate(series)}
    for j, (name, group) in enumerate(series):
        color = _PALETTE[j % len(_PALETTE)]
        label = "observed" if name is None else f"{name} (observed)"
        if categorical:
            xs = [labels.index(v) + offsets[name] for v in group[x]]
        else:
            group = group.sort_values(x)
            xs = group[x].to_numpy()
        if categorical:
            yerr = None
            if low and high:
                yerr = [group[y] - group[low], group[high] - group[y]]
            ax.errorbar(xs, group[y], yerr=yerr, fmt="o", color=color, capsize=4, label=label)
        else:
            ax.plot(xs, group[y], "o-", color=color, label=label)
            if low and high:
                ax.fill_between(xs, group[low], group[high], color=color, alpha=0.2, linewidth=0)
        if theory and theory in group:
            tlabel = "theory" if name is None else f"{name} (theory)"
            if categorical:
                ax.plot(xs, group[theory], "_", color=color, markersize=22, mew=2.5, label=tlabel)
            else:
                ax.plot(xs, group[theory], "--", color=color, linewidth=2, label=tlabel)
    if categorical:
        ax.set_xticks(range(len(labels)), [str(v) for v in labels], rotation=15)
    if plot.get("logx"):
        ax.set_xscale("log")
    if plot.get("logy"):
        ax.set_yscale("log")
    ax.set_xlabel(plot.get("xlabel") or x)
    ax.set_ylabel(plot.get("ylabel") or y)
    ax.legend(fontsize="small", frameon=True)
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    plt.close(fig)
    return inline_svg(buffer.getvalue())


def inline_svg(text: str) -> str:
    """Make matplotlib's SVG document fit for inlining into HTML5 with no external URL."""
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = text.replace("xlink:href", "href")
    return text
