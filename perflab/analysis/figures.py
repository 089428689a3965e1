"""Showing plotly figures the same way in Jupyter, in papermill's executed notebooks and in the
offline HTML book.

The book loads one copy of plotly.js from its own _static/ folder (copied from the installed plotly
package by `perflab book-config`; no CDN), so each figure is emitted as a bare <div> plus the
plotly JSON for Jupyter's renderer. The style every figure shares: readable() (titles, margins,
legend and the heat map's side panel, for a phone as for a desktop), no text under MIN_FONT_PX
(show() raises it).
"""
from __future__ import annotations

import json
import numbers
import textwrap
from typing import Callable


class Shown:
    def __init__(self, fig):
        self.fig = fig

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {
            # responsive: the figure takes its container's width (a phone's too) and follows resizes
            "text/html": self.fig.to_html(full_html=False, include_plotlyjs=False,
                                          config={"responsive": True, "displaylogo": False}),
            "application/vnd.plotly.v1+json": json.loads(self.fig.to_json()),
            "text/plain": f"<plotly figure: {self.fig.layout.title.text or 'untitled'}>",
        }


#: px from the top of a figure to below plotly's toolbar (on a phone the toolbar spans the figure)
BELOW_TOOLBAR = 48


def readable(fig, legend_below: bool = False, title: str | None = None, subtitle: str | None = None,
             extra_top: int = 0):
    """The same figure, readable on a phone as on a desktop: the title (or `title` with a smaller
    `subtitle` line) wrapped and set below plotly's toolbar, the plot below the title (`extra_top`
    more pixels above the plot for labels the figure puts there); a heat map's side panel titled
    short and set clear of the time axis; the legend, if asked, under the plot."""
    if title is not None:
        fig.update_layout(title_text=title + (f"<br><sub>{subtitle}</sub>" if subtitle else ""))
    lines = []
    for part in (fig.layout.title.text or "").split("<br>"):
        sub = part.startswith("<sub>")
        text = part.removeprefix("<sub>").removesuffix("</sub>")
        lines += [f"<sub>{x}</sub>" if sub else x for x in textwrap.wrap(text, 60 if sub else 40)]
    n_sub = sum(x.startswith("<sub>") for x in lines)
    height = fig.layout.height or 450
    fig.update_layout(title=dict(text="<br>".join(lines), font_size=15, x=0.02, xanchor="left", xref="container",
                                 y=1 - BELOW_TOOLBAR / height, yanchor="top", yref="container"),
                      margin=dict(t=BELOW_TOOLBAR + 22 * (len(lines) - n_sub) + 16 * n_sub + 12 + extra_top))
    side = [t for t in fig.data if t.type == "bar" and t.xaxis == "x2"]
    if side and any(t.type == "heatmap" for t in fig.data):   # heatmap.figure's side panel: the whole run
        # its count ticks are heatmap.plot.side_ticks's (two labels: they lie flat on a phone)
        fig.update_layout(xaxis=dict(domain=[0, 0.72]), xaxis2=dict(domain=[0.79, 1]))
        fig.update_xaxes(title_text="I/Os", row=1, col=2)
    elif not ("yaxis2" in fig.layout and fig.layout.yaxis2.overlaying) and not side:   # nothing on the right
        fig.update_layout(margin=dict(l=60, r=20))
    if legend_below:
        fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.3, x=0, xanchor="left"))
    return fig


#: The smallest text a figure draws (px): the book's layout check fails figure text under it
#: (tests/support/layout.js, minFigureFontPx).
MIN_FONT_PX = 10


def _num(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _small_fonts(props, path: str = "") -> dict[str, object]:
    """The font sizes under MIN_FONT_PX that a figure's layout or trace (its plotly JSON) sets, and a
    uniformtext minsize under it (text shrunk to fit its bar would be drawn that small): path
    ("xaxis2.tickfont.size", "annotations[3].font.size") -> the size raised to MIN_FONT_PX (a
    per-point list of sizes raised point by point)."""
    out: dict[str, object] = {}
    if isinstance(props, dict):
        for k, v in props.items():
            p = f"{path}.{k}" if path else k
            if (k == "size" and path.endswith("font")) or (k == "minsize" and path == "uniformtext"):
                if _num(v) and v < MIN_FONT_PX:
                    out[p] = MIN_FONT_PX
                elif hasattr(v, "__len__") and not isinstance(v, (str, dict)) \
                        and any(_num(x) and x < MIN_FONT_PX for x in v):
                    out[p] = [max(float(x), MIN_FONT_PX) if _num(x) else x for x in v]
            elif isinstance(v, (dict, list, tuple)) and k not in ("data", "template"):
                out.update(_small_fonts(v, p))
    elif isinstance(props, (list, tuple)):
        for i, v in enumerate(props):
            if isinstance(v, dict):
                out.update(_small_fonts(v, f"{path}[{i}]"))
    return out


def floor_fonts(fig):
    """The figure with every font size it sets under MIN_FONT_PX raised to it: the ticks, titles,
    legend, annotations, colour bars and bar labels a figure (or a lab) makes smaller than the book
    reads. Sizes left to plotly's template (12 px) are not touched."""
    for p, v in _small_fonts(fig.layout.to_plotly_json()).items():
        fig.layout[p] = v
    for trace in fig.data:
        for p, v in _small_fonts(trace.to_plotly_json()).items():
            trace[p] = v
    return fig


def show(fig) -> Shown:
    """The figure as the book shows it. Margins a figure leaves to plotly's defaults (80 px each
    side) are narrowed, since on a phone they take two fifths of the width; plotly still widens
    them for tick labels, axis titles and a legend at the side (automargin). No text set under
    MIN_FONT_PX (floor_fonts). The y axes' tick labels stand 4 px off their axis unless the figure
    says otherwise: where both axes start at 0, plotly draws the two "0"s touching at the corner."""
    m = fig.layout.margin
    fig.update_layout(margin=dict(l=60 if m.l is None else m.l, r=20 if m.r is None else m.r))
    fig.for_each_yaxis(lambda ax: ax.update(ticklabelstandoff=4) if ax.ticklabelstandoff is None else None)
    return Shown(floor_fonts(fig))


def plotly_js_path():
    """The plotly.min.js shipped inside the installed plotly package."""
    from importlib.resources import files

    return files("plotly") / "package_data" / "plotly.min.js"
