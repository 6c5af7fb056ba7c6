"""Inline SVG figures: what the decision uses, drawn so that a reader can check the verdict.

One style per :class:`theorycheck.claims.Plot` kind:

* ``line`` (x numeric): observed values as solid lines with filled markers, the interval the
  decision uses as a shaded band, the theory as a dashed line (one dash pattern per series,
  or a single black line when every series has the same theory), the resolution (the edge of
  PASS) dotted, the trivial learner in grey;
* ``point`` (x categorical): the same, with the observed value as a marker with its interval
  as an error bar and the theory as a dashed horizontal segment over each category;
* ``residual``: observed − theory for each x with its interval, markers only (no line to
  zig-zag through many coordinates), a zero line, and the intervals that exclude zero
  highlighted.

A ``line`` figure whose rows all share one x value (a profile that runs a single budget) is
drawn as a ``point`` figure with one category per series, so that its series stand side by side
instead of on one vertical line. Rows with nothing to draw (no finite observed, theory,
interval, resolution or trivial value) are left out, so they make no empty category and no
legend entry; when no row is left :func:`render_svg` returns None.

Two legends sit outside the axes, never over the data: the series (titled with the hue
column, "d = 3") on the right, and what each line style means below. :func:`render_atlas`
draws the tightness atlas of the index page.
"""

from __future__ import annotations

import io
import math
import re
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from ..verdicts import Verdict

_PALETTE = sns.color_palette("colorblind")
#: colours for figures with more series than the colour-blind palette has (evenly spaced hues)
_MANY = 20
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "p", "*")
#: one dash pattern per series, so that theory lines of different series never look alike
#: (none of them dotted: dotted is the resolution)
_DASHES = ((0, (6, 2)), (0, (7, 2, 1.5, 2)), (0, (12, 3)), (0, (3.5, 1.8)), (0, (12, 2, 2, 2, 2, 2)),
           (0, (8, 2, 4, 2)), (3, (5, 3.5)), (0, (16, 4)))
_GREY = "#8c8c8c"
_HIGHLIGHT = "#d62728"
_WORST = "#6a3d9a"  # the worst confirmed ratio of a search, beside the default instance's
_VERDICT_STYLE = {v: (v.marker, v.colour) for v in Verdict}  # marker, colour (the page's verdict colours)
_AXES = (7.2, 3.9)  # inches of the plotting area; legends add to it


def _palette(n: int) -> list:
    """n colours: the colour-blind palette up to its 10, then n evenly spaced hues (no colour reused
    below _MANY series; each series also has its own marker up to 12)."""
    if n <= len(_PALETTE):
        return list(_PALETTE)
    return list(sns.color_palette("husl", min(n, _MANY)))


def _style(j: int, n: int = 0):
    """Colour, marker and dash pattern of series j of n."""
    colors = _palette(n)
    return colors[j % len(colors)], _MARKERS[j % len(_MARKERS)], _DASHES[j % len(_DASHES)]


def _theory_color(series, color):
    """Theory and resolution lines: black when there is one series, else the series' colour
    (with its own dash pattern, so it never looks like the observed line)."""
    return "black" if len(series) == 1 else color


def _wrap(text: str, width: int = 46) -> str:
    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


def _series(summary: pd.DataFrame, hue: str | None) -> list[tuple[object, pd.DataFrame]]:
    if hue is None or hue not in summary:
        return [(None, summary)]
    return [(name, group) for name, group in summary.groupby(hue, sort=False, dropna=False)]


def _hue_label(hue: str, value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"no {hue}"
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        value = int(value) if float(value).is_integer() else value
        return f"{hue} = {value}"
    return str(value)


def _column(frame: pd.DataFrame, name: str | None) -> np.ndarray | None:
    if not name or name not in frame:
        return None
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)


def _curve(group: pd.DataFrame, x: str, column: str | None) -> dict | None:
    """x -> value of ``column`` in one series; None when the series repeats an x (no function)."""
    if not column or column not in group:
        return None
    if group[x].duplicated().any():
        return None
    values = pd.to_numeric(group[column], errors="coerce")
    return {xv: float(v) for xv, v in zip(group[x], values, strict=True) if pd.notna(v)}


def _coincident(series, column: str | None, x: str) -> list[tuple[list[int], dict]]:
    """Groups of series whose ``column`` lines coincide (equal at every shared x, at least two
    shared x or all of them), each with the union of their points: a group of several is drawn
    once, in black, so that no series' theory line hides under another's."""
    curves = [_curve(group, x, column) for _, group in series]
    groups: list[tuple[list[int], dict]] = []
    for j, curve in enumerate(curves):
        if not curve:
            groups.append(([j], curve or {}))
            continue
        for members, union in groups:
            if not union:
                continue
            common = set(union) & set(curve)
            if len(common) >= min(2, len(curve), len(union)) and common and all(
                    math.isclose(union[k], curve[k], rel_tol=1e-9, abs_tol=1e-12) for k in common):
                members.append(j)
                union.update(curve)
                break
        else:
            groups.append(([j], dict(curve)))
    return groups


def _shared_label(base: str, members: list[int], series, hue: str | None) -> str:
    if len(members) == len(series):
        return f"{base} (the same for every series)"
    names = ", ".join(_hue_label(hue or "", series[m][0]) for m in members)
    return f"{base} (the same for {names})"


def _legend_texts(plot: dict) -> dict[str, str]:
    theory_label = plot.get("theory_label") or "theory"
    return {
        "observed": "observed",
        "theory": theory_label,
        "band": plot.get("band_label") or "interval",
        "resolution": "resolution: the edge of PASS",
        "trivial": "trivial learner (returns its starting point)",
    }


# ---------------------------------------------------------------------- the three kinds
def _shared_lines(series, plot: dict, x: str, texts: dict):
    """The theory and resolution lines that several series share, each drawn once in black.

    Returns (which series draw their own line, per column; the shared lines to draw as
    (column key, dash, points, members); legend handles for them)."""
    own = {"theory": set(range(len(series))), "resolution": set(range(len(series)))}
    shared, handles = [], []
    for key, column in (("theory", plot.get("theory")), ("resolution", plot.get("resolution"))):
        if not column:
            continue
        multi = [(members, union) for members, union in _coincident(series, column, x) if len(members) > 1]
        for g, (members, union) in enumerate(multi):
            dash = ":" if key == "resolution" else _DASHES[g % len(_DASHES)]
            own[key] -= set(members)
            shared.append((key, dash, union, members))
            label = _shared_label(texts[key], members, series, plot.get("hue"))
            handles.append(Line2D([], [], color="black", linestyle=dash, linewidth=1.7, label=_wrap(label)))
    return own, shared, handles


def _draw_line(ax, summary: pd.DataFrame, plot: dict, series) -> list:
    x, y = plot["x"], plot["y"]
    texts = _legend_texts(plot)
    theory, resolution, trivial = plot.get("theory"), plot.get("resolution"), plot.get("trivial")
    numeric = [(name, group.assign(_x=pd.to_numeric(group[x], errors="coerce")).dropna(subset=["_x"])
                .sort_values("_x", kind="stable")) for name, group in series]
    own, shared, extra = _shared_lines(numeric, {**plot, "x": "_x"}, "_x", texts)
    drawn = set()
    for j, (_, group) in enumerate(numeric):
        color, marker, dash = _style(j, len(numeric))
        xs = group["_x"].to_numpy(dtype=float)
        # a series that repeats an x is not a curve: markers only, no line through them
        line = "none" if group["_x"].duplicated().any() else "-"
        ys = _column(group, y)
        ok = np.isfinite(ys)
        if ok.any():
            ax.plot(xs[ok], ys[ok], linestyle=line, color=color, marker=marker, markersize=5.5, linewidth=1.8,
                    zorder=4)
            drawn.add("observed")
        low, high = _column(group, plot.get("low")), _column(group, plot.get("high"))
        if low is not None and high is not None:
            ok = np.isfinite(low) & np.isfinite(high)
            if ok.sum() > 1 and line != "none":
                ax.fill_between(xs[ok], low[ok], high[ok], color=color, alpha=0.16, linewidth=0, zorder=1)
                drawn.add("band")
            elif ok.any():
                ax.errorbar(xs[ok], ys[ok], yerr=np.nan_to_num(np.vstack([ys - low, high - ys])[:, ok]),
                            fmt="none", ecolor=color, alpha=0.5, elinewidth=1.2, zorder=1)
                drawn.add("band")
        th = _column(group, theory)
        if th is not None and j in own["theory"] and np.isfinite(th).any():
            ok = np.isfinite(th)
            ax.plot(xs[ok], th[ok], color=_theory_color(series, color), linestyle=dash if line != "none" else "none",
                    linewidth=1.7, marker=marker if line != "none" else "_", markersize=4 if line != "none" else 14,
                    markerfacecolor="white", markeredgewidth=1.5, zorder=3)
            drawn.add("theory")
        res = _column(group, resolution)
        if res is not None and j in own["resolution"] and np.isfinite(res).any():
            ok = np.isfinite(res)
            ax.plot(xs[ok], res[ok], color=_theory_color(series, color), linestyle=":", linewidth=1.5, zorder=3)
            drawn.add("resolution")
        tr = _column(group, trivial)
        if tr is not None and np.isfinite(tr).any():
            ok = np.isfinite(tr)
            ax.plot(xs[ok], tr[ok], linestyle=line, color=_GREY, linewidth=1.3, marker=marker, markersize=4.5,
                    markerfacecolor="white", markeredgecolor=_GREY, zorder=2)
            drawn.add("trivial")
    for _, dash, union, _ in shared:
        points = sorted(union.items())
        ax.plot([p[0] for p in points], [p[1] for p in points], color="black", linestyle=dash, linewidth=1.7,
                zorder=3)
    if plot.get("logx"):
        ax.set_xscale("log")
    _log_y(ax, plot)
    return _merge_handles(_style_handles(drawn, texts, band="patch"), extra)


def _merge_handles(handles: list, extra: list) -> list:
    """The style legend with the shared lines' entries after the observed value and band."""
    keep = [h for h in handles if h.get_label() not in {e.get_label() for e in extra}]
    cut = min(2, len(keep))
    return keep[:cut] + extra + keep[cut:]


def _draw_point(ax, summary: pd.DataFrame, plot: dict, series) -> list:
    x, y = plot["x"], plot["y"]
    texts = _legend_texts(plot)
    theory, resolution, trivial = plot.get("theory"), plot.get("resolution"), plot.get("trivial")
    labels = list(dict.fromkeys(summary[x]))
    where = {v: i for i, v in enumerate(labels)}
    n = len(series)
    dodge = n > 1 and plot.get("dodge", True)  # off when each series has categories of its own
    step = min(0.7 / n, 0.22) if dodge else 0.0
    half = max(step / 2, 0.1) if dodge else 0.3
    own, shared, extra = _shared_lines(series, plot, x, texts)
    capsize = 4 if n * len(labels) <= 12 else 0  # caps would be mistaken for the theory segments
    drawn = set()
    for j, (_, group) in enumerate(series):
        color, marker, dash = _style(j, n)
        xs = np.array([where[v] for v in group[x]], dtype=float) + (j - (n - 1) / 2) * step
        ys = _column(group, y)
        low, high = _column(group, plot.get("low")), _column(group, plot.get("high"))
        ok = np.isfinite(ys)
        if ok.any():
            yerr = None
            if low is not None and high is not None:
                yerr = np.vstack([np.clip(ys - low, 0, None), np.clip(high - ys, 0, None)])[:, ok]
                yerr = np.nan_to_num(yerr)
                drawn.add("band")
            ax.errorbar(xs[ok], ys[ok], yerr=yerr, fmt=marker, color=color, markersize=6.5, capsize=capsize,
                        elinewidth=1.5, linestyle="none", zorder=4)
            drawn.add("observed")
        for column, style, key in ((theory, dash, "theory"), (resolution, ":", "resolution")):
            values = _column(group, column)
            if values is None or j not in own[key]:
                continue
            ok = np.isfinite(values)
            if ok.any():
                ax.hlines(values[ok], xs[ok] - half, xs[ok] + half, colors=[_theory_color(series, color)],
                          linestyles=[style], linewidth=2.2, zorder=5)
                drawn.add(key)
        tr = _column(group, trivial)
        if tr is not None and np.isfinite(tr).any():
            ok = np.isfinite(tr)
            ax.plot(xs[ok], tr[ok], linestyle="none", marker=marker, markersize=7, markerfacecolor="white",
                    markeredgecolor=_GREY, markeredgewidth=1.5, zorder=2)
            drawn.add("trivial")
    for _, dash, union, members in shared:
        offsets = [(m - (n - 1) / 2) * step for m in members]
        left, right = min(offsets) - half, max(offsets) + half
        for category, value in union.items():
            ax.hlines(value, where[category] + left, where[category] + right, colors="black", linestyles=[dash],
                      linewidth=2.2, zorder=5)
    _categorical_ticks(ax, labels)
    _log_y(ax, plot)
    return _merge_handles(_style_handles(drawn, texts, band="bar"), extra)


def _draw_residual(ax, summary: pd.DataFrame, plot: dict, series) -> list:
    x, y, theory = plot["x"], plot["y"], plot.get("theory")
    texts = _legend_texts(plot)
    numeric = pd.api.types.is_numeric_dtype(summary[x])
    labels = None if numeric else list(dict.fromkeys(summary[x]))
    count = len(summary)
    size = 3.0 if count > 60 else 5.5
    n = len(series)
    drawn = {"zero"}
    excluded = 0
    for j, (_, group) in enumerate(series):
        color, marker, _ = _style(j, n)
        if numeric:
            xs = pd.to_numeric(group[x], errors="coerce").to_numpy(dtype=float)
        else:
            xs = np.array([labels.index(v) for v in group[x]], dtype=float) + (j - (n - 1) / 2) * min(0.6 / n, 0.2)
        base = _column(group, theory)
        if base is None:
            base = np.zeros(len(group))
        ys = _column(group, y) - base
        ok = np.isfinite(xs) & np.isfinite(ys)
        low, high = _column(group, plot.get("low")), _column(group, plot.get("high"))
        yerr = None
        if low is not None and high is not None:
            lo, hi = low - base, high - base
            yerr = np.nan_to_num(np.vstack([np.clip(ys - lo, 0, None), np.clip(hi - ys, 0, None)]))[:, ok]
            drawn.add("band")
            off = ok & ((lo > 0) | (hi < 0))
            excluded += int(off.sum())
        ax.errorbar(xs[ok], ys[ok], yerr=yerr, fmt=marker, color=color, markersize=size, capsize=0 if count > 60 else 3,
                    elinewidth=0.9 if count > 60 else 1.3, alpha=0.85, linestyle="none", zorder=3)
        drawn.add("observed")
        if yerr is not None and off.any():
            ax.plot(xs[off], ys[off], linestyle="none", marker=marker, markersize=size + 3.5, markerfacecolor="none",
                    markeredgecolor=_HIGHLIGHT, markeredgewidth=1.6, zorder=5)
        res = _column(group, plot.get("resolution"))
        if res is not None and np.isfinite(res - base).any():
            edge = res - base
            okr = ok & np.isfinite(edge)
            order = np.argsort(xs[okr])
            ax.plot(xs[okr][order], edge[okr][order], color=color, linestyle=":", linewidth=1.4, zorder=2)
            ax.plot(xs[okr][order], -edge[okr][order], color=color, linestyle=":", linewidth=1.4, zorder=2)
            drawn.add("resolution")
        tr = _column(group, plot.get("trivial"))
        if tr is not None and np.isfinite(tr - base).any():
            okt = ok & np.isfinite(tr - base)
            ax.plot(xs[okt], (tr - base)[okt], linestyle="none", marker=marker, markersize=size + 1,
                    markerfacecolor="white", markeredgecolor=_GREY, zorder=2)
            drawn.add("trivial")
    ax.axhline(0.0, color="black", linewidth=1.2, zorder=2)
    if labels is not None:
        _categorical_ticks(ax, labels)
    elif plot.get("logx"):
        ax.set_xscale("log")
    texts["observed"] = "observed − theory"
    texts["zero"] = f"0: observed = {plot.get('theory_label') or 'theory'}"
    texts["resolution"] = "± resolution: the edge of PASS"
    if excluded:
        drawn.add("excluded")
        texts["excluded"] = f"interval excludes 0 ({excluded} of {count})"
    if not plot.get("ylabel"):
        ax.set_ylabel(f"{y} − {theory}" if theory else y)
    return _style_handles(drawn, texts, band="bar")


def _log_y(ax, plot: dict) -> None:
    """A log y axis when asked for; symmetric-log when some values are zero or negative, so that
    none of them disappears from the figure."""
    if not plot.get("logy"):
        return
    values = np.concatenate([np.asarray(line.get_ydata(), dtype=float).ravel() for line in ax.get_lines()]
                            or [np.array([])])
    values = values[np.isfinite(values)]
    if values.size and values.min() > 0:
        ax.set_yscale("log")
    elif (np.abs(values) > 0).any():
        ax.set_yscale("symlog", linthresh=float(np.abs(values[values != 0]).min()))
        if values.min() >= 0:
            ax.set_ylim(bottom=0.0)


def _fit_lines(label: str, lines: int) -> str:
    """``label`` wrapped into at most ``lines`` lines, as narrow as that allows."""
    label = str(label)
    longest_word = max((len(word) for word in label.split()), default=1)
    # words are never broken, and a short label stays on one line
    width = max(longest_word, math.ceil(len(label) / lines), min(len(label), 12))
    def wrap(w):
        return textwrap.wrap(label, w, break_long_words=False, break_on_hyphens=False)

    while len(wrap(width)) > lines:
        width += 1
    return "\n".join(wrap(width)) or label


def _categorical_ticks(ax, labels) -> None:
    """Category names that never overlap: wrapped when they fit side by side, otherwise rotated
    by 45° with no more lines than the spacing allows, and smaller when there are many."""
    n = max(len(labels), 1)
    fontsize = 10.0 if n <= 8 else (8.5 if n <= 20 else 7.0)
    room = _AXES[0] * 72 / n  # points of axis per category
    char, height = 0.6 * fontsize, 1.25 * fontsize
    per_line = max(4, int(room * 0.92 / char))
    texts = [_fit_lines(v, max(1, math.ceil(len(str(v)) / per_line))) for v in labels]
    flat = all(len(line) <= per_line for t in texts for line in t.split("\n")) and \
        max(t.count("\n") for t in texts) < 3
    if flat:
        ax.set_xticks(range(len(labels)), texts, fontsize=fontsize)
    else:
        lines = int(room * math.sin(math.pi / 4) * 0.9 // height)
        if lines < 1:  # not even one line fits at this size: shrink the text
            fontsize, lines = max(5.0, room * math.sin(math.pi / 4) * 0.9 / 1.25), 1
        texts = [_fit_lines(v, lines) for v in labels]
        ax.set_xticks(range(len(labels)), texts, rotation=45, ha="right", rotation_mode="anchor", fontsize=fontsize)
    ax.set_xlim(-0.6, len(labels) - 0.4)


def _style_handles(drawn: set, texts: dict, band: str) -> list:
    handles = []
    if "observed" in drawn:
        handles.append(Line2D([], [], color="black", marker="o", linestyle="-" if band == "patch" else "none",
                              label=texts["observed"]))
    if "band" in drawn:
        if band == "patch":
            handles.append(Patch(facecolor="black", alpha=0.18, label=_wrap(texts["band"])))
        else:
            handles.append(Line2D([], [], color="black", marker="|", markersize=14, markeredgewidth=1.5,
                                  linestyle="none", label=_wrap(texts["band"])))
    if "theory" in drawn:
        handles.append(Line2D([], [], color="black", linestyle=(0, (6, 2)), linewidth=1.7,
                              label=_wrap(texts["theory"])))
    if "zero" in drawn:
        handles.append(Line2D([], [], color="black", linewidth=1.2, label=_wrap(texts["zero"])))
    if "resolution" in drawn:
        handles.append(Line2D([], [], color="black", linestyle=":", linewidth=1.5, label=_wrap(texts["resolution"])))
    if "trivial" in drawn:
        handles.append(Line2D([], [], color=_GREY, marker="s", markerfacecolor="white", markeredgecolor=_GREY,
                              linestyle="-" if band == "patch" else "none", label=_wrap(texts["trivial"])))
    if "excluded" in drawn:
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="none",
                              markeredgecolor=_HIGHLIGHT, markeredgewidth=1.6, label=_wrap(texts["excluded"])))
    return handles


# ---------------------------------------------------------------------- assembling
def _new_figure(height: float = _AXES[1], width: float = _AXES[0]):
    sns.set_theme(style="whitegrid", context="notebook")
    plt.rcParams["svg.fonttype"] = "none"
    plt.rcParams["svg.hashsalt"] = "theorycheck"
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    return fig, ax


def _legends(fig, ax, style_handles: list, hue: str | None, series) -> None:
    """The series legend right of the axes, the style legend below them: never over the data."""
    if hue is not None and len(series) > 1:
        hue_handles = [Line2D([], [], color=_style(j, len(series))[0], marker=_style(j)[1], linestyle="-",
                              label=_wrap(_hue_label(hue, name), 28))
                       for j, (name, _) in enumerate(series)]
        ncol = 1 if len(hue_handles) <= 14 else 2
        ax.legend(handles=hue_handles, title=hue, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0, fontsize="small", title_fontsize="small", frameon=False, ncol=ncol)
    if style_handles:
        renderer = fig.canvas.get_renderer()
        box = ax.get_tightbbox(renderer).transformed(fig.transFigure.inverted())
        ncol = 1 if max(len(h.get_label()) for h in style_handles) > 40 or len(style_handles) == 1 else 2
        fig.legend(handles=style_handles, loc="upper left", bbox_to_anchor=(0.0, box.y0 - 0.03),
                   bbox_transform=fig.transFigure, fontsize="small", frameon=False, ncol=ncol,
                   borderaxespad=0.0, handlelength=2.8)


def _to_svg(fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", pad_inches=0.12,
                metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    plt.close(fig)
    return inline_svg(buffer.getvalue())


def _drawable(summary: pd.DataFrame, plot: dict) -> pd.DataFrame:
    """The rows that draw something: a finite value in the observed, theory, interval, trivial or
    resolution column (rows of another part of the table, such as a reproduction's published
    points beside its curves, draw nothing)."""
    columns = [plot.get(key) for key in ("y", "theory", "low", "high", "trivial", "resolution")]
    columns = [c for c in dict.fromkeys(columns) if c and c in summary]
    if not columns:
        return summary.iloc[0:0]
    values = summary[columns].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    return summary[np.isfinite(values).any(axis=1)]


def _one_x(summary: pd.DataFrame, plot: dict, hue: str | None) -> tuple[pd.DataFrame, dict] | None:
    """A line figure whose rows share one x value, as a point figure with one category per series
    (so its series stand side by side, not on one vertical line), or None when x varies."""
    xs = pd.to_numeric(summary[plot["x"]], errors="coerce").dropna()
    if (plot.get("kind") or "line") != "line" or xs.nunique() != 1:
        return None
    at = f"{plot.get('xlabel') or plot['x']} = {float(xs.iloc[0]):g}"
    names = [_hue_label(hue, v) for v in summary[hue]] if hue is not None else [at] * len(summary)
    return (summary.assign(_category=names),
            {**plot, "kind": "point", "x": "_category", "dodge": False,
             "xlabel": f"{hue}, all at {at} (the only value of this run)" if hue is not None else ""})


def render_svg(summary: pd.DataFrame, plot: dict) -> str | None:
    """Draw ``plot`` (a :class:`theorycheck.claims.Plot` as a dict) over ``summary``; None when no
    row of ``summary`` has anything to draw."""
    kind = plot.get("kind") or "line"
    if kind not in ("line", "point", "residual"):
        raise ValueError(f"unknown plot kind {kind!r}; expected line, point or residual")
    hue = plot.get("hue") if plot.get("hue") in summary else None
    # An interval end at ±∞ (a one-sided interval) has nothing to draw: the bar stops at the point
    # and the table beside the figure shows the infinite end.
    ends = [c for c in (plot.get("low"), plot.get("high")) if c and c in summary]
    if ends:
        summary = summary.copy()
        for column in ends:
            values = pd.to_numeric(summary[column], errors="coerce")
            summary[column] = values.where(np.isfinite(values))
    summary = _drawable(summary, plot)
    if summary.empty:
        return None
    legend_hue = hue
    single = _one_x(summary, plot, hue)
    if single is not None:
        (summary, plot), kind, legend_hue = single, "point", None  # the categories name the series
    draw = {"line": _draw_line, "point": _draw_point, "residual": _draw_residual}[kind]
    series = _series(summary, hue)
    fig, ax = _new_figure()
    style_handles = draw(ax, summary, plot, series)
    ax.set_xlabel(plot["x"] if plot.get("xlabel") is None else plot["xlabel"])
    if plot.get("ylabel") or kind != "residual":
        ax.set_ylabel(plot.get("ylabel") or plot["y"])
    _legends(fig, ax, style_handles, legend_hue, series)
    return _to_svg(fig)


def render_atlas(rows: list[dict]) -> str | None:
    """The tightness atlas: observed/bound of every bound claim on one log axis, one row each.

    ``rows`` are dicts with ``id``, ``verdict``, ``ratio``, and optionally ``low`` and ``high``
    (the interval that decides, over the bound: drawn as an error bar), ``trivial_ratio`` (the
    trivial learner's value over the bound), ``vacuous``, ``lower`` (the claim is a lower bound, so
    PASS lies at or above 1), ``earlier`` (the result is from an earlier run) and ``worst`` (the worst confirmed
    ratio a search of the claim found, drawn as a diamond joined to the default instance's). A PASS on the far
    side of the line (above 1 for an upper bound, below for a lower one: a point estimate past the
    bound whose interval still reaches it) is drawn hollow, so that no one reads it as a violation.
    Returns None when no row has a ratio.
    """
    rows = [r for r in rows if r.get("ratio") is not None and math.isfinite(r["ratio"])]
    if not rows:
        return None
    values = [v for r in rows for v in (r["ratio"], r.get("trivial_ratio"), r.get("worst")) if v is not None and v > 0]
    lo = min([*values, 1.0]) if values else 1.0
    hi = max([*values, 1.0]) if values else 1.0
    # an interval widens the axis by at most a decade each way; beyond that its bar runs to the edge
    ends = [v for r in rows for v in (r.get("low"), r.get("high")) if v is not None and 0 < v < math.inf]
    lo, hi = min([lo, *(max(v, lo / 10) for v in ends)]), max([hi, *(min(v, hi * 10) for v in ends)])
    xmin, xmax = 10 ** (math.floor(math.log10(lo)) - 0.15), 10 ** (math.ceil(math.log10(hi)) + 0.15)
    if xmax / xmin < 1e2:
        xmin, xmax = xmin / 3, xmax * 3
    fig, ax = _new_figure(height=0.34 * len(rows) + 0.6, width=6.4)
    ax.set_xscale("log")
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.axvline(1.0, color="black", linewidth=1.3, linestyle=(0, (6, 2)), zorder=1)
    ax.text(1.0, -0.6, " observed = bound", fontsize="small", va="bottom", ha="left")
    right = blended_transform_factory(ax.transAxes, ax.transData)
    seen_verdicts, clipped, any_trivial, any_vacuous, any_interval, any_beyond = [], False, False, False, False, False
    any_worst = False
    for i, r in enumerate(rows):
        marker, color = _VERDICT_STYLE.get(r["verdict"], ("o", "black"))
        ratio, trivial = r["ratio"], r.get("trivial_ratio")
        x = ratio if ratio > 0 else xmin * 1.05
        if ratio <= 0:
            clipped = True
        if trivial is not None and trivial > 0:
            any_trivial = True
            ax.plot([x, trivial], [i, i], color=_GREY, linewidth=1.0, zorder=2)
            ax.plot([trivial], [i], marker="s", markersize=7, markerfacecolor="white", markeredgecolor=_GREY,
                    markeredgewidth=1.5, linestyle="none", zorder=3)
        worst = r.get("worst")
        if worst is not None and worst > 0:
            any_worst = True
            ax.plot([x, worst], [i, i], color=_WORST, linewidth=1.0, linestyle=":", zorder=2)
            ax.plot([worst], [i], marker="D", markersize=6, color=_WORST, linestyle="none", zorder=3)
        low, high = r.get("low"), r.get("high")
        if low is not None and high is not None:
            any_interval = True
            ends = [min(max(v, xmin), xmax) for v in (low, high)]  # a bar past the axis stops at its edge
            ax.plot(ends, [i, i], color=color, linewidth=2.0, solid_capstyle="butt", zorder=3)
            ax.plot(ends, [i, i], color=color, marker="|", markersize=9, markeredgewidth=1.6, linestyle="none",
                    zorder=3)
        vacuous = bool(r.get("vacuous"))
        any_vacuous |= vacuous
        beyond = r["verdict"] == Verdict.PASS and (ratio < 1 if r.get("lower") else ratio > 1)
        any_beyond |= beyond
        ax.plot([x], [i], marker=marker if ratio > 0 else "<", markersize=9, linestyle="none", zorder=4,
                markerfacecolor="white" if vacuous or beyond else color, markeredgecolor=color, markeredgewidth=1.8)
        if r["verdict"] not in seen_verdicts:
            seen_verdicts.append(r["verdict"])
        note = f"{ratio:.3g}"
        if low is not None and high is not None:
            note += f" [{low:.3g}, {high:.3g}]"
        if trivial is not None:
            note += f"  (trivial {trivial:.3g})"
        if worst is not None:
            note += f"  worst searched {worst:.3g}"
        if vacuous:
            note += "  vacuous"
        if beyond:
            note += ("  PASS: its interval reaches the bound" if low is not None and high is not None
                     else "  PASS: decided on another statistic (its page says which)")
        ax.text(1.02, i, note, transform=right, va="center", fontsize="small",
                color=_HIGHLIGHT if vacuous else "#333333")
    labels = [r["id"] + ("  ≥" if r.get("lower") else "") + ("  *" if r.get("earlier") else "") for r in rows]
    ax.set_yticks(range(len(rows)), labels)
    ax.set_xlabel("observed / bound (log scale)")
    ax.grid(axis="y", visible=False)
    handles = [Line2D([], [], marker=_VERDICT_STYLE.get(v, ("o", "black"))[0], linestyle="none", markersize=8,
                      color=_VERDICT_STYLE.get(v, ("o", "black"))[1], label=v) for v in seen_verdicts]
    if any_interval:
        handles.append(Line2D([], [], color="black", marker="|", markersize=9, linewidth=2.0,
                              label="interval that decides, over the bound"))
    if any_beyond:
        handles.append(Line2D([], [], marker="o", linestyle="none", markersize=8, markerfacecolor="white",
                              markeredgecolor=Verdict.PASS.colour,
                              label="hollow PASS past the line: no violation (the decision says PASS)"))
    if any_vacuous:
        handles.append(Line2D([], [], marker="o", linestyle="none", markersize=8, markerfacecolor="white",
                              markeredgecolor="black", label="vacuous: the trivial learner meets the bound too"))
    if any_worst:
        handles.append(Line2D([], [], marker="D", linestyle=":", color=_WORST, markersize=6,
                              label="worst confirmed ratio of theorycheck search (search/<claim>.html)"))
    if any_trivial:
        handles.append(Line2D([], [], marker="s", linestyle="-", color=_GREY, markerfacecolor="white",
                              markeredgecolor=_GREY, label="trivial learner / bound"))
    if clipped:
        handles.append(Line2D([], [], marker="<", linestyle="none", color="black", label="ratio ≤ 0 (at the edge)"))
    if any(r.get("lower") for r in rows):
        handles.append(Line2D([], [], linestyle="none", label="≥  lower bound: the claim is observed/bound ≥ 1"))
    if any(r.get("earlier") for r in rows):
        handles.append(Line2D([], [], linestyle="none", label="*  result of an earlier run in this folder"))
    renderer = fig.canvas.get_renderer()
    box = ax.get_tightbbox(renderer).transformed(fig.transFigure.inverted())
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, box.y0 - 0.02), bbox_transform=fig.transFigure,
               fontsize="small", frameon=False, ncol=2, borderaxespad=0.0, handlelength=1.6)
    return _to_svg(fig)


def render_scaling(rows: list[dict]) -> str | None:
    """Time per example against d (log–log), one line per learner (:mod:`theorycheck.scaling`)."""
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    fig, ax = _new_figure(height=3.0, width=5.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    learners = frame.groupby("learner", sort=False)
    for j, (name, part) in enumerate(learners):
        color, marker, _ = _style(j, len(learners))
        part = part.sort_values("d")
        ax.plot(part["d"], part["us_per_example"], color=color, marker=marker, label=name)
    ax.set_xlabel("d (attributes per example)")
    ax.set_ylabel("µs per example, public fit")
    ax.legend(loc="upper left", fontsize="small", frameon=False)
    return _to_svg(fig)


def inline_svg(text: str) -> str:
    """Make matplotlib's SVG document fit for inlining into HTML5 with no external URL."""
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = text.replace("xlink:href", "href")
    return text
