"""The heat map as a plotly figure: the map, its colour scale and ticks, the side panel, the overflow
row, and (asked for) what perflab.analysis.heatmap.overlays draws over it: the row of markers above
the map where a column has two modes or more, the percentile lines.

chapters/heatmaps.md shows how to read it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from perflab.analysis.heatmap.buckets import UNITS, bucket_labels, format_ns, format_number, unit_for
from perflab.analysis.heatmap.model import HeatMap, column_seconds
from perflab.analysis.heatmap.overlays import (MODES_GAP_PX, MODES_ROW_LABEL, MODES_ROW_PX, PERCENTILE_COLOUR,
                                               PERCENTILE_DASHES, add_modes_row, add_percentile_lines,
                                               drawn_columns, percentile_name)

if TYPE_CHECKING:
    from perflab.analysis.heatmap.modes import Modes

__all__ = ["figure", "COLORSCALE", "side_ticks", "MODES_ROW_LABEL", "PERCENTILE_DASHES", "PERCENTILE_COLOUR",
           "overflow_label", "percentile_name"]

# Light to dark (ColorBrewer's OrRd from its fourth step on): a single I/O (count 1) is a pale
# orange that still stands out on white, and the busiest cells are the darkest, most visible red.
# Empty cells are not drawn (the plot's background).  In the book's dark mode perflab-theme.js
# reverses the scale on the dark plot, so that the busiest cells stay the most visible: brightest
# there, a single I/O a dim dark red.  chapters/heatmaps.md describes it in words true of both.
COLORSCALE = [[0.0, "#fdbb84"], [0.25, "#fc8d59"], [0.5, "#ef6548"], [0.75, "#d7301f"],
              [1.0, "#7f0000"]]


def _count_label(c: int) -> str:
    """A count as a tick says it: 1, 10, 100, 1k, 10k, 100k, 1M."""
    for div, suf in ((10 ** 9, "G"), (10 ** 6, "M"), (10 ** 3, "k")):
        if c >= div:
            return f"{c // div}{suf}"
    return str(c)


#: the most labels the colour bar takes: on a phone it is ~140 px long, and plotly turns its labels
#: on their side when a seventh (1, 2, 5, 10, 20, 50, 100) or a sixth decade (1 ... 100k) joins
MAX_COLOUR_TICKS = 6


def _count_ticks(zmax: float) -> tuple[list[float], list[str]]:
    """The colour bar's ticks up to 10**zmax I/Os: 1, 2, 5, 10, 20 and 50 while they fit, else
    decades (1, 10, 100, ...), every other or third decade past 10k."""
    top = int(math.floor(zmax + 1e-9))
    vals = [m * 10 ** k for k in range(top + 1) for m in (1, 2, 5)]
    vals = [v for v in vals if math.log10(v) <= zmax + 1e-9]
    if len(vals) > MAX_COLOUR_TICKS:
        step = 1 if top < MAX_COLOUR_TICKS - 1 else math.ceil(top / (MAX_COLOUR_TICKS - 2))
        vals = [10 ** k for k in range(0, top + 1, step)]
    return [math.log10(v) for v in vals], [_count_label(v) for v in vals]


def figure(hm: HeatMap, title: str = "", linear: bool = False, unit: str = "auto",
           companion: bool = True, t_range: tuple[float, float] | None = None,
           y_max_ns: int | None = None, max_count: int | None = None,
           modes: Sequence[Modes] | None = None, percentiles: Sequence[float] | None = None):
    """The heat map as a plotly Figure.

    x is time (s), y the latency buckets, colour the count on a log10 scale (colour-bar
    ticks labelled in real counts; on the light page count 1 is pale orange and the busiest
    cells darkest red, on the book's dark page the scale runs the other way; empty cells are not
    drawn).
    With ``linear=False`` every bucket is one row of equal height (the log-linear
    layout) labelled with its range; ``linear=True`` uses a numeric latency axis
    (bucket edges in ``unit``), natural for linear buckets.  Only the rows and columns
    from the first to the last non-empty one are drawn (empty ones in between stay:
    a gap in time or latency is information).  Hover shows the column's time span, the
    latency range, the count and the share of that column's I/Os below the bucket's
    upper edge.  ``companion`` adds a panel on the right, sharing the latency axis, with
    the distribution over ``t_range`` (seconds, default the whole run; shaded on the map).
    ``y_max_ns`` draws the rows up to the one holding that latency only (for a shape that a
    few rare slow I/Os would squash into the bottom of the axis); the title says how many
    I/Os are above it and not drawn.  ``max_count`` fixes the top of the colour scale (maps meant
    to be compared side by side share one scale; default: this map's busiest cell).  A linear
    latency axis that does not start at 0 says where it starts in its title.
    ``modes``: the modes of each of the map's columns
    (:func:`~perflab.analysis.heatmap.modes.column_modes`, one per column); a thin row above the map
    then marks each column with two modes or more, and faintly each that holds some I/Os but too
    few to say (:func:`add_modes_row`).  Default None: no row, the figure as without it.
    ``percentiles``: percentages (e.g. ``(50, 99, 99.9)``) whose lines over time are drawn over the map
    (:meth:`HeatMap.column_percentiles` of the drawn columns, each line a dash style of its own and a
    legend entry; on the log-linear layout at the row of the bucket that holds the percentile).
    When some I/Os are at or above the top bucket's edge (the overflow), one more row above the top
    drawn one counts them per column, labelled :func:`overflow_label` ("≥ 17.2 s", or for fio's
    histogram logs "at or above fio's histogram limit (17 s)"); a map with columns without events
    between its first and last one says how many seconds that is, under the title.
    """
    from plotly.subplots import make_subplots

    if modes is not None:
        if hm.y != "latency":
            raise ValueError(f"modes are those of latency: this map's rows are {hm.y}")
        if len(modes) != hm.n_columns:
            raise ValueError(f"one result of the mode pass per column: the map has {hm.n_columns:,} columns, "
                             f"modes were given for {len(modes):,}")

    ncols = 2 if companion else 1
    # room between the map and its side panel, for the map's last time tick
    fig = make_subplots(rows=1, cols=ncols, shared_yaxes=True, horizontal_spacing=0.04,
                        column_widths=[0.78, 0.22] if companion else [1.0])
    if linear and hm.y != "latency":
        raise ValueError(f"a numeric latency axis (linear) draws latency maps, not a map of {hm.y}")
    capped = _capped(hm)
    if modes is not None and capped is not hm:   # re-binned for the page: the drawn columns' own modes
        from perflab.analysis.heatmap.modes import column_modes

        modes = column_modes(capped)
    hm = capped
    r0, r1, notes = _drawn_rows(hm, y_max_ns)
    over = _overflow_row(hm, r1, y_max_ns)
    if r1 == r0 and over is not None and hm.n_buckets:   # every I/O in the overflow: its row over the top bucket
        r0, r1 = hm.n_buckets - 1, hm.n_buckets
    gaps = hm.gap_columns()
    if gaps:
        notes.append(f"{_format_seconds(gaps * hm.col_s)} without events (empty columns, not drawn)")
    bottom = 110 + (28 if percentiles else 0)     # the percentile lines' legend, under the colour bar
    fig.update_layout(title=dict(text=(title or "") + "".join(f"<br><sub>{n}</sub>" for n in notes)),
                      plot_bgcolor="white", paper_bgcolor="white",
                      # each note is a line under the title: the plot starts below the last one
                      margin=dict(l=90, r=20, t=60 + 20 * len(notes), b=bottom))
    if r1 == r0:   # not one non-empty row
        fig.add_annotation(text="no I/Os in range", showarrow=False, xref="paper", yref="paper",
                           x=0.5, y=0.5)
        return fig
    edges = hm.edges_ns[r0:r1 + 1]
    labels = row_labels(hm.y, edges, unit)
    u = (unit if unit != "auto" else unit_for(int(edges[-1]))) if linear else "ns"
    heat, y, ytitle = _heat_trace(hm, r0, r1, labels, linear, u, max_count, over)
    if over is not None and not linear:
        labels = labels + [over[1]]
    fig.add_trace(heat, row=1, col=1)
    fig.update_xaxes(title_text="time (s)", showgrid=False, row=1, col=1)
    strip = MODES_ROW_PX + MODES_GAP_PX if modes is not None else 0   # the markers' row, above the map
    nrows = r1 - r0 + (over is not None)
    height = int(min(1000, max(380, 16 * nrows + 140))) + strip + (bottom - 110)
    row_px = (height - 60 - 20 * len(notes) - bottom - strip) / max(1, nrows)   # a row's height on the page
    _latency_axis(fig, labels, y, ytitle, linear, u, row_px, over_row=over is not None)
    if companion:
        _add_companion(fig, hm, r0, r1, labels[:r1 - r0], linear, u, t_range)
    if modes is not None:
        add_modes_row(fig, hm, modes, plot_px=height - (60 + 20 * len(notes)) - bottom, companion=companion)
    # the colour bar sits a fixed distance under the time axis's title, whatever the map's height
    plot_px = height - (60 + 20 * len(notes)) - bottom
    fig.update_traces(selector=dict(type="heatmap"), colorbar_y=-min(0.3, 52 / max(plot_px, 1)))
    if percentiles:   # their legend under the colour bar (its ticks and title end ~50 px below it)
        add_percentile_lines(fig, hm, percentiles, r0, r1, labels, y, linear, u, over)
        fig.update_layout(legend_y=-min(0.3, 52 / max(plot_px, 1)) - 62 / max(plot_px, 1))
    fig.update_layout(height=height, bargap=0.05)
    return fig


def _drawn_rows(hm: HeatMap, y_max_ns: int | None) -> tuple[int, int, list[str]]:
    """The latency rows to draw, ``r0`` to ``r1`` (excluded): the first to the last non-empty one,
    cut at the row that holds ``y_max_ns``; and the map's notes, plus one on the I/Os above them."""
    rows = np.flatnonzero(hm.counts.any(axis=0))
    notes = list(hm.notes)
    r0 = int(rows[0]) if len(rows) else 0
    r1 = int(rows[-1]) + 1 if len(rows) else 0
    # I/Os above the drawn rows: those past the last bucket edge, and those y_max_ns leaves out (one note)
    above, above_ns = int(hm.overflow.sum()), int(hm.edges_ns[-1])
    if y_max_ns is not None and len(rows):
        cut = int(np.searchsorted(hm.edges_ns, y_max_ns, side="right"))   # rows below y_max_ns's bucket end
        if r0 < cut < r1:
            above += int(hm.counts[:, cut:r1].sum())
            above_ns, r1 = int(hm.edges_ns[cut]), cut
    if hm.overflow.any():   # drawn, in a row of their own above the map (_overflow_row)
        notes.append(f"{above:,} I/Os ({100 * above / max(hm.total, 1):.2g}%) {_above_words(hm, above_ns)}: "
                     f"the top row counts them, at no latency")
    elif above:
        notes.append(f"{above:,} I/Os ({100 * above / max(hm.total, 1):.2g}%) at or above "
                     f"{_format_row(hm.y, above_ns)} are above the drawn rows")
    return r0, r1, notes


def overflow_label(hm: HeatMap) -> str:
    """The overflow row's label: "≥ 17.2 s" (the top bucket's edge), or for a map of fio histogram
    logs whose top bin lies below that edge "at or above fio's histogram limit (17 s)"."""
    top = int(hm.edges_ns[-1])
    if hm.cap_ns is not None and hm.cap_ns < top:
        return f"at or above fio's histogram limit ({format_ns(hm.cap_ns)})"
    return f"≥ {_format_row(hm.y, top)}"


def _above_words(hm: HeatMap, above_ns: int) -> str:
    if above_ns == int(hm.edges_ns[-1]) and hm.cap_ns is not None and hm.cap_ns < above_ns:
        return f"at or above fio's histogram limit ({format_ns(hm.cap_ns)})"
    return f"at or above {_format_row(hm.y, above_ns)}"


def _overflow_row(hm: HeatMap, r1: int, y_max_ns: int | None) -> tuple[np.ndarray, str] | None:
    """The row above the drawn ones when the map has overflow: its counts per column (the overflow, and
    the rows ``y_max_ns`` leaves out) and its label; None without overflow."""
    if not hm.overflow.any():
        return None
    counts = hm.overflow.copy()
    if r1 < hm.n_buckets and y_max_ns is not None:
        counts += hm.counts[:, r1:].sum(axis=1)
        if hm.counts[:, r1:].any():
            return counts, f"≥ {_format_row(hm.y, int(hm.edges_ns[r1]))}"
    return counts, overflow_label(hm)


def _format_seconds(s: float) -> str:
    return f"{s:g} second" + ("" if s == 1 else "s")


#: A page draws at most this many columns: a longer map is re-binned (wider columns), and says so.
MAX_DRAWN_COLUMNS = 1200


def _capped(hm: HeatMap) -> HeatMap:
    """The map with at most :data:`MAX_DRAWN_COLUMNS` columns from its first to its last non-empty
    one (the page's size stays bounded whatever the input's span)."""
    nz = np.flatnonzero(hm.counts.any(axis=1) | (hm.overflow > 0))
    span = int(nz[-1] - nz[0] + 1) if len(nz) else 0
    if span <= MAX_DRAWN_COLUMNS:
        return hm
    k = 1
    while -(-span // k) + 1 > MAX_DRAWN_COLUMNS:
        k *= 2
    out = hm.rebin(hm.col_ms * k)
    out.notes = [n for n in out.notes if not n.startswith("time re-binned")] + [
        f"time re-binned to {out.col_s:g} s columns for the page (the map has {hm.n_columns:,} "
        f"columns of {hm.col_s:g} s; at most {MAX_DRAWN_COLUMNS:,} are drawn)"]
    return out


def _format_bytes(v: int) -> str:
    for u, k in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if v >= 1 << k:
            return f"{format_number(v / (1 << k), 3)} {u}"
    return f"{v} B"


def _format_row(y: str, v: int) -> str:
    if y == "offset":
        return _format_bytes(int(v))
    return format_ns(int(v))


def row_labels(y: str, edges: np.ndarray, unit: str = "auto") -> list[str]:
    """Labels of a map's rows: latency buckets ("65.5-73.7 us"), offsets ("1-2 GiB") or times
    within the second ("20-40 ms")."""
    if y == "latency":
        return bucket_labels(edges, unit)
    if y == "offset":
        return [f"{_format_bytes(int(lo))}-{_format_bytes(int(hi))}" for lo, hi in zip(edges[:-1], edges[1:])]
    return [f"{format_number(lo / 1e6, 4)}-{format_number(hi / 1e6, 4)} ms" for lo, hi in zip(edges[:-1], edges[1:])]


Y_TITLES = {"latency": "latency bucket", "offset": "offset on the disk",
            "subsecond": "time within the second"}


def _heat_trace(hm: HeatMap, r0: int, r1: int, labels: list[str], linear: bool, u: str,
                max_count: int | None, over: tuple[np.ndarray, str] | None = None):
    """The map's trace (rows ``r0`` to ``r1``, the non-empty columns; with ``over``, one more row on
    top: its counts per column and label), its y values and y-axis title."""
    import plotly.graph_objects as go

    c0, c1 = drawn_columns(hm)
    block = hm.counts[c0:c1, r0:r1].T            # [rows, columns]
    col_tot = hm.column_totals()[c0:c1]
    below = np.cumsum(hm.counts[c0:c1, :r1], axis=1)[:, r0:].T  # events below each bucket's hi
    if over is not None:   # the top row: below its "top" lies every event of the column
        block = np.vstack([block, over[0][c0:c1][None, :]])
        below = np.vstack([below, col_tot[None, :]])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(block > 0, np.log10(np.maximum(block, 1)), np.nan).astype(np.float32)
        pct = (100.0 * below / np.maximum(col_tot, 1)).astype(np.float32)
    starts = column_seconds(np.arange(c0, c1), hm.col_ms).astype(np.float64)
    edges = hm.edges_ns[r0:r1 + 1]
    if over is not None:   # on a numeric axis the top row is one bucket high (its hover says "to inf")
        edges = np.append(edges, edges[-1] + (edges[-1] - edges[-2]))
        labels = labels + [over[1]]
    cd = np.empty(block.shape + (5 if linear else 3,),
                  np.float64 if block.max() >= 2 ** 24 else np.float32)
    cd[..., 0] = block
    cd[..., 1] = pct
    cd[..., 2] = starts[None, :]
    if linear:   # numeric axis: bricks between edges; show the bucket's range from customdata
        cd[..., 3] = (edges[:-1] / UNITS[u])[:, None]
        cd[..., 4] = (edges[1:] / UNITS[u])[:, None]
        if over is not None:
            cd[-1, :, 4] = np.inf
        y, ytitle = edges / UNITS[u], f"latency ({u})"
        lat = f"%{{customdata[3]:.4~g}}-%{{customdata[4]:.4~g}} {u}"
    else:
        y, ytitle, lat = labels, Y_TITLES[hm.y], "%{y}"
    zmax = max(float(np.nanmax(z)), 1.0) if max_count is None else max(math.log10(max(max_count, 1)), 1.0)
    tickvals, ticktext = _count_ticks(zmax)
    heat = go.Heatmap(
        z=z, x=column_seconds(np.arange(c0, c1 + 1), hm.col_ms), y=y, customdata=cd,
        colorscale=COLORSCALE, zmin=0.0, zmax=zmax, hoverongaps=False,
        # below the map, across it: a narrow screen keeps it (a bar at the right is cut off there)
        colorbar=dict(title=dict(text="I/Os per cell", side="top"), tickvals=tickvals, ticktext=ticktext,
                      orientation="h", x=0.4, xanchor="center", y=-0.1, yanchor="top", len=0.6,
                      thickness=12),
        hovertemplate=(f"t: %{{customdata[2]}} s (a {hm.col_s:g} s column)<br>{Y_TITLES[hm.y].split(' bucket')[0]}: {lat}"
                       "<br>count: %{customdata[0]:,}"
                       "<br>below this bucket's top: %{customdata[1]:.2f}% of the column"
                       "<extra></extra>"),
        name="I/Os")
    return heat, y, ytitle


def _latency_axis(fig, labels: list[str], y, ytitle: str, linear: bool, u: str, row_px: float,
                   over_row: bool = False) -> None:
    """The map's y axis: labelled rows (log-linear layout) or a numeric latency axis (linear). With
    ``over_row`` the last label is the overflow row's, always shown (on two lines, clear of the rows'
    labels under it)."""
    if not linear:
        # Rows labelled at a steady step that leaves each label room (plotly thins a crowded category
        # axis by itself, at an uneven step): every row while rows are 14 px or more, else every k-th.
        step = max(1, math.ceil(14 / max(row_px, 1e-9)))
        shown = labels[::step]
        text = list(shown)
        if over_row:
            words = labels[-1].split(" ")
            two = " ".join(words[:len(words) // 2]) + "<br>" + " ".join(words[len(words) // 2:]) \
                if len(words) > 3 else labels[-1]
            room = math.ceil((28 if two != labels[-1] else 14) / max(row_px, 1e-9))   # rows its text spans
            keep = [i for i in range(0, len(labels) - 1, step) if i <= len(labels) - 1 - room]
            shown = [labels[i] for i in keep] + [labels[-1]]
            text = shown[:-1] + [two]
        fig.update_yaxes(type="category", categoryorder="array", categoryarray=labels,
                         tickmode="array", tickvals=shown, ticktext=text, tickfont=dict(size=10),
                         title_text=ytitle + (f" (one row in {step} labelled)" if step > 1 else ""),
                         showgrid=False, row=1, col=1)
    else:
        # the drawn rows only (an empty band from 0 would squash the shape), and the title says where
        # the axis starts when that is not 0
        start = f", from {format_number(float(y[0]), 3)}" if y[0] > 0 else ""
        fig.update_yaxes(title_text=f"latency ({u}{start})", showgrid=False, row=1, col=1)
    # the lowest row's label hangs below the map when rows are short: set off from the axis, it
    # clears the time axis's first tick label ("0") at the corner instead of touching it
    fig.update_yaxes(ticklabelstandoff=4, row=1, col=1)


#: the side panel's tick labels (px): the book's smallest figure text (tests/support/layout.js)
SIDE_TICK_PX = 10


def side_ticks(top: float) -> tuple[list[int], list[str]]:
    """The side panel's count axis (log): a grid line at every decade up to ``top``, labelled at 1
    and at the highest decade only. On a phone the panel is ~50 px wide: two short labels at
    :data:`SIDE_TICK_PX` lie flat there; a third (1, 100, 10k) is turned on its side by plotly."""
    d = max(int(math.floor(math.log10(max(top, 1.0)) + 1e-9)), 0)
    shown = {0, d}
    vals = [10 ** k for k in range(d + 1)]
    return vals, [_count_label(v) if k in shown else "" for k, v in enumerate(vals)]


def _add_companion(fig, hm: HeatMap, r0: int, r1: int, labels: list[str], linear: bool, u: str,
                   t_range: tuple[float, float] | None) -> None:
    """The side panel: the distribution of rows ``r0`` to ``r1`` over ``t_range`` (shaded on the map)."""
    import plotly.graph_objects as go

    edges = hm.edges_ns[r0:r1 + 1]
    t_from, t_to = t_range if t_range is not None else (None, None)
    dist = hm.distribution(t_from, t_to).iloc[r0:r1]
    cnt = dist["count"].to_numpy()
    nz = cnt > 0
    yb = np.asarray(labels)[nz] if not linear else (edges[:-1][nz] + edges[1:][nz]) / 2 / UNITS[u]
    rng = "all columns" if t_range is None else f"{t_range[0]:g}-{t_range[1]:g} s"
    bar = go.Bar(x=cnt[nz], y=yb, orientation="h", marker_color="#54278f",
                 customdata=np.stack([dist["cum_pct"].to_numpy()[nz]], axis=-1).astype(np.float32),
                 hovertemplate="%{y}<br>count: %{x:,}<br>below top: %{customdata[0]:.3f}%<extra></extra>",
                 name=f"distribution ({rng})", showlegend=False)
    if linear:
        bar.update(width=(edges[1:][nz] - edges[:-1][nz]) / UNITS[u])
    fig.add_trace(bar, row=1, col=2)
    vals, text = side_ticks(float(cnt.max()) if len(cnt) else 1.0)
    fig.update_xaxes(type="log", title_text=f"I/Os ({rng})", showgrid=True, gridcolor="#eee",
                     tickmode="array", tickvals=vals, ticktext=text,
                     tickfont=dict(size=SIDE_TICK_PX), row=1, col=2)
    if t_range is not None:
        fig.add_vrect(x0=t_range[0], x1=t_range[1], fillcolor="#888", opacity=0.12,
                      line_width=0, row=1, col=1)
