"""What is drawn over a heat map (perflab.analysis.heatmap.plot's figure, when asked): the row of
markers above the map where a column has two modes or more (``figure(modes=...)``, ``perflab heatmap
--summary``), and the percentile lines over it (``figure(percentiles=...)``, ``--percentiles``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from perflab.analysis.heatmap.buckets import UNITS, format_ns
from perflab.analysis.heatmap.model import HeatMap, column_seconds

if TYPE_CHECKING:
    from perflab.analysis.heatmap.modes import Modes

__all__ = ["MODES_ROW_PX", "MODES_GAP_PX", "MODES_ROW_LABEL", "PERCENTILE_DASHES", "PERCENTILE_COLOUR", "drawn_columns",
           "add_modes_row", "add_percentile_lines",
           "percentile_name"]


def drawn_columns(hm: HeatMap) -> tuple[int, int]:
    """The first and (excluded) last column with events, the overflow's too."""
    colsnz = np.flatnonzero(hm.counts.any(axis=1) | (hm.overflow > 0))
    return int(colsnz[0]), int(colsnz[-1]) + 1


# --------------------------------------------------------------------------- the modes' row

#: The row of markers above the map (``figure(modes=...)``): its height and the gap between it and
#: the map (px, at the figure's own height; a page that shrinks the plot shrinks them with it).
MODES_ROW_PX = 16
MODES_GAP_PX = 6
#: A column with two modes or more: a downward triangle this wide (px), pointing at its column; at
#: any width of the page a marker keeps this size (a bar one column wide would be a fraction of a
#: pixel on a phone for a long map), far above the 2 px under which the book's layout check calls a
#: mark too thin (tests/support/layout.js, minMarkPx).
MODES_MARKER_PX = 9
#: Its colour: a blue, apart from the map's oranges and reds and the side panel's purple, at a WCAG
#: contrast of 4.2 on the light plot (white) and 3.7 on the dark theme's (#262626): over the 3 that
#: perflab-theme.js asks of a mark in both, so dark mode draws it as it is.
MODES_COLOUR = "#3182bd"
#: A column with some I/Os but fewer than the mode pass needs to say (modes.MIN_EVENTS): a small
#: open grey circle, distinct from the triangles and fainter, yet plain on both plots (#888: 3.5 on
#: white, 4.3 on #262626; the layout check's faint-mark rule asks 2).
MODES_FEW_PX = 6
MODES_FEW_COLOUR = "#888888"
#: The row's label, at its left where the latency rows have theirs (the markers' hover says it whole:
#: "two modes or more in this second").
MODES_ROW_LABEL = "2+ modes"


def _column_word(col_s: float) -> str:
    return "second" if col_s == 1 else f"{col_s:g} s column"


def _modes_hover(m: Modes, t0: float, col_s: float) -> str:
    """A marker's hover: the column, its modes (share and median) and where its mean lies."""
    head = f"{t0:g}-{t0 + col_s:g} s: {m.events:,} I/Os"
    if m.too_few:
        from perflab.analysis.heatmap.modes import MIN_EVENTS

        return f"{head}<br>too few to say how many modes (fewer than {MIN_EVENTS:,})"
    lines = [f"{head}<br>{len(m.modes)} modes in this {_column_word(col_s)}:"]
    lines += [f"{100 * md.share:.0f}% around {format_ns(round(md.median_ns))} (median)" for md in m.modes]
    mean = format_ns(round(m.mean_ns))
    lines.append(f"the mean, {mean}, " + ("in neither mode" if m.mean_mode is None else f"in mode {m.mean_mode + 1}"))
    return "<br>".join(lines)


def add_modes_row(fig, hm: HeatMap, modes: Sequence[Modes], plot_px: int, companion: bool) -> None:
    """The thin row above the map: a triangle at each drawn column with two modes or more (trace
    "two modes or more in this second"), a small open circle at each with I/Os but too few to say
    (trace "too few I/Os to say"), nothing elsewhere (one mode, or no I/O).  The row is a y axis of
    its own over the map's x axis, labelled :data:`MODES_ROW_LABEL` at its left; the map's y axis
    (and the side panel's, which shares it) ends :data:`MODES_GAP_PX` under it."""
    import plotly.graph_objects as go

    row = MODES_ROW_PX / max(plot_px, 1)
    top = 1 - (MODES_ROW_PX + MODES_GAP_PX) / max(plot_px, 1)
    fig.update_yaxes(domain=[0, top], row=1, col=1)
    if companion:
        fig.update_yaxes(domain=[0, top], row=1, col=2)
    axis = "yaxis3" if companion else "yaxis2"
    fig.update_layout({axis: dict(domain=[1 - row, 1], anchor="x", range=[0, 1], fixedrange=True,
                                  showgrid=False, zeroline=False, showline=False, ticks="",
                                  tickmode="array", tickvals=[0.5], ticktext=[MODES_ROW_LABEL],
                                  tickfont=dict(size=10), ticklabelstandoff=4)})
    colsnz = np.flatnonzero(hm.counts.any(axis=1))
    drawn = range(int(colsnz[0]), int(colsnz[-1]) + 1) if len(colsnz) else range(0)
    starts = column_seconds(np.arange(hm.n_columns), hm.col_ms).astype(np.float64)
    many = [c for c in drawn if not modes[c].too_few and len(modes[c].modes) >= 2]
    few = [c for c in drawn if modes[c].too_few and modes[c].events > 0]
    word = _column_word(hm.col_s)
    for cols, name, marker in (
            (many, f"two modes or more in this {word}",
             dict(symbol="triangle-down", size=MODES_MARKER_PX, color=MODES_COLOUR, line=dict(width=0))),
            (few, "too few I/Os to say",
             dict(symbol="circle-open", size=MODES_FEW_PX, color=MODES_FEW_COLOUR,
                  line=dict(width=1.5, color=MODES_FEW_COLOUR)))):
        fig.add_trace(go.Scatter(
            x=(starts[cols] + hm.col_s / 2).tolist(), y=[0.5] * len(cols), mode="markers", marker=marker,
            name=name, showlegend=False, xaxis="x", yaxis="y" + axis.removeprefix("yaxis"),
            hovertext=[_modes_hover(modes[c], float(starts[c]), hm.col_s) for c in cols],
            hovertemplate="%{hovertext}<extra></extra>"))


# --------------------------------------------------------------------------- percentile lines

#: The percentile lines' dash styles, in the order of the percentages asked for (p50, p99, p99.9):
#: told apart by dash, not colour alone (one colour that reads on the light and the dark plot).
PERCENTILE_DASHES = ("solid", "dash", "dot", "dashdot", "longdash")
#: Their colour: the modes row's blue (WCAG contrast 4.2 on white, 3.7 on the dark theme's #262626),
#: apart from the map's oranges and reds.
PERCENTILE_COLOUR = "#3182bd"
#: The legend's text (px): the book's smallest figure text (tests/support/layout.js).
PERCENTILE_LEGEND_PX = 10


def percentile_name(q: float) -> str:
    """"p50", "p99", "p99.9"."""
    return f"p{q:g}"


def add_percentile_lines(fig, hm: HeatMap, qs: Sequence[float], r0: int, r1: int, labels: list[str], y,
                          linear: bool, u: str, over: tuple[np.ndarray, str] | None) -> None:
    """One line per percentage of ``qs`` over the drawn columns, at each column's middle: on the
    log-linear layout at the row (category) of the bucket holding the percentile, on a numeric axis at
    the bucket's upper edge (:meth:`HeatMap.column_percentiles`); in the overflow row when it lies
    there; no point for a column without events, or whose percentile lies in a row not drawn."""
    import plotly.graph_objects as go

    c0, c1 = drawn_columns(hm)
    pct = hm.column_percentiles(qs)[c0:c1]
    x = (column_seconds(np.arange(c0, c1), hm.col_ms) + hm.col_s / 2).astype(np.float64).tolist()
    top_y = None
    if over is not None:
        top_y = labels[r1 - r0] if not linear else float(y[-1] + y[-2]) / 2
    for j, q in enumerate(qs):
        ys = []
        for v in pct[:, j]:
            if math.isnan(v):
                ys.append(None)
            elif math.isinf(v):
                ys.append(top_y)
            elif linear:
                ys.append(v / UNITS[u])
            else:
                b = int(np.searchsorted(hm.edges_ns, int(v))) - 1   # v is bucket b's upper edge
                ys.append(labels[b - r0] if r0 <= b < r1 else top_y)
        text = ["no events" if math.isnan(v) else ("in the top row" if math.isinf(v) else f"below {format_ns(int(v))}")
                for v in pct[:, j]]
        fig.add_trace(go.Scatter(
            x=x, y=ys, mode="lines", name=percentile_name(q), showlegend=True, connectgaps=False,
            line=dict(color=PERCENTILE_COLOUR, width=2, dash=PERCENTILE_DASHES[j % len(PERCENTILE_DASHES)]),
            hovertext=text, hovertemplate=f"{percentile_name(q)}: %{{hovertext}}<extra></extra>"), row=1, col=1)
    fig.update_layout(showlegend=True, legend=dict(orientation="h", x=0, xanchor="left", y=-0.3, yanchor="top",
                                                   font=dict(size=max(PERCENTILE_LEGEND_PX, 10)),
                                                   bgcolor="rgba(0,0,0,0)"))
