"""The elinks chapter's figures (plotly) and its stacks printed as DTrace printed them."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .analysis import counts_per_second, per_second, window
from .parsing import FORMHIST

BUGGY_COLOUR, OTHER_COLOUR = "#d62728", "#7f7f7f"


def _switch_line(fig, tl: dict, t0: float) -> None:
    x = tl["phases"]["fixed"][0] - t0
    fig.add_vline(x=x, line_dash="dash", line_color="black")
    fig.add_annotation(x=x, y=1, yref="paper", text="fixed program starts", showarrow=False,
                       xanchor="left", yanchor="bottom")


def fig_requests_per_second(d: dict):
    """Requests per second at the server, one line per desktop, over both phases."""
    import plotly.graph_objects as go

    tl, req = d["timeline"], d["requests"]
    t0, t_end = tl["phases"]["buggy"][0], tl["phases"]["fixed"][1]
    tab = per_second(window(req, t0, t_end), t0)
    k = tl["buggy_client"]
    fig = go.Figure()
    for j in sorted(map(int, tl["clients"])):
        y = tab[j] if j in tab.columns else pd.Series(0, index=tab.index)
        fig.add_scatter(x=tab.index, y=y, mode="lines", name=f"desk{j}" + (" (elinks)" if j == k else ""),
                        line={"color": BUGGY_COLOUR if j == k else OTHER_COLOUR, "width": 3 if j == k else 1.2})
    _switch_line(fig, tl, t0)
    fig.update_layout(title="Server: requests per second, by desktop", xaxis_title="time (s)",
                      yaxis_title="requests/s", height=380)
    return fig


#: a drill-down's bars go on a log axis when the busiest is more than this many times the quietest:
#: beyond it the quietest bar is drawn under 2 px at a phone's width on a linear axis
LOG_RATIO = 50


def _rate(r: float) -> str:
    """A rate as a bar's label: 63.0/s, 7.1/s, 0.045/s (two significant figures below 1, not 0.0)."""
    return f"{r:,.1f}/s" if r >= 1 else f"{r:.2g}/s"


def fig_bars(counts: pd.Series, seconds: float, title: str, label: str, highlight=None, top: int = 10):
    """A drill-down step as Analytics drew it: a horizontal bar per item, busiest on top (per second).
    Where the bars span more than LOG_RATIO, the axis is logarithmic (from a decade or more below the
    quietest bar, so that it is drawn at least a decade long), and says so."""
    import math

    import plotly.graph_objects as go

    c = counts.head(top)[::-1]
    names = [str(x) for x in c.index]
    colours = [BUGGY_COLOUR if highlight is not None and str(x) == str(highlight) else OTHER_COLOUR for x in c.index]
    rates = c.values / seconds
    # each bar carries its rate: a bar of a few requests beside one of 60/s is too short to see
    fig = go.Figure(go.Bar(x=rates, y=names, orientation="h", marker_color=colours,
                           text=[_rate(r) for r in rates], textposition="outside", cliponaxis=False,
                           hovertemplate="%{y}: %{x:.3g} requests/s<extra></extra>"))
    shown = rates[rates > 0]
    log = len(shown) > 1 and float(shown.max()) > LOG_RATIO * float(shown.min())
    if log:
        # room for the labels: a little over half a decade past the busiest bar; ticks at decades only
        # (plotly labels the 2s and 5s between them in a smaller font), written out (0.01, not 10m)
        fig.update_xaxes(type="log", dtick=1, exponentformat="none",
                         range=[math.floor(math.log10(float(shown.min()))) - 1, math.log10(float(shown.max())) + 0.6])
    elif len(rates):
        fig.update_xaxes(range=[0, 1.25 * float(rates.max())])   # room for the labels
    fig.update_layout(title=title, xaxis_title="requests/s" + (" (log scale)" if log else ""), yaxis_title=label,
                      height=max(280, 160 + 28 * len(c)), margin={"l": 10})
    return fig


def fig_client_opens(d: dict):
    """Client side: failed opens of the form-history file per second, by strace and by bpftrace."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    t0 = tl["phases"]["buggy"][0]
    ta, tb = tl["tracing"]["strace_openat"]
    st = d["strace"]
    fig = go.Figure()
    if not st.empty:
        e = st[(st["err"] == "ENOENT") & st["path"].str.endswith(FORMHIST)]
        ps = counts_per_second(e["t"], ta + 0.5, tb - 0.5)
        fig.add_bar(x=ps.index + (ta + 0.5 - t0) + 0.5, y=ps.values, name="strace: openat() = -1 ENOENT",
                    marker_color=BUGGY_COLOUR, opacity=0.7)
    b = d["bpftrace"]
    if d["bpftrace_status"] == "ran" and b is not None and not b["per_second"].empty:
        ps = b["per_second"][b["per_second"]["path"].fillna("").str.endswith(FORMHIST)]
        # each count covers the second that ends at its time stamp
        fig.add_scatter(x=ps["t"] - t0 - 0.5, y=ps["count"], mode="markers", name="bpftrace: openat() by file",
                        marker={"color": "black", "size": 7, "symbol": "x-thin", "line": {"width": 2}})
    fig.add_hline(y=tl["open_rate"], line_dash="dot", annotation_text=f"open_rate = {tl['open_rate']:g}/s")
    fig.update_layout(title="Desktop: opens of .elinks/formhist per second", xaxis_title="time (s)",
                      yaxis_title="opens/s", height=360, barmode="overlay")
    return fig


def fig_network(d: dict):
    """nicstat on the elinks desktop: packets per second each way, over both phases."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    k, t0 = tl["buggy_client"], tl["phases"]["buggy"][0]
    net = d["net"][k]
    dt = net["t"].diff()
    fig = go.Figure()
    # The two directions nearly coincide (a request out, a reply in): solid vs dashed keeps both visible.
    for col, name, style in (("rx_packets", "read (received)", dict(width=3)),
                             ("tx_packets", "write (sent)", dict(width=2, dash="dash"))):
        fig.add_scatter(x=net["t"] - t0, y=net[col].diff() / dt, mode="lines", line=style, name=f"{name} packets/s")
    _switch_line(fig, tl, t0)
    fig.update_layout(title=f"desk{k}: network packets per second (nicstat's rPk/s, wPk/s)", xaxis_title="time (s)",
                      yaxis_title="packets/s", height=340)
    return fig


def stack_text(frames: list, limit: int = 24) -> str:
    """A stack as DTrace printed it: innermost frame first, `object`function+offset."""
    out = []
    for f in frames[:limit]:
        if isinstance(f, dict):
            obj = Path(f["object"]).name if f["object"] else "?"
            out.append(f"  {obj}`{f['function'] or '?'}" + (f"+{f['offset']}" if f["offset"] else ""))
        else:
            out.append(f"  {f}")
    return "\n".join(out)
