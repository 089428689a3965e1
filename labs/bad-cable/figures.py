"""The bad-cable chapter's figures: NFS reads by client (stacked or as lines), the bytes sent to each
client on its link, the total before and after the new cable, and the cost windows."""
from __future__ import annotations

import pandas as pd

from .analysis import net_per_second, ops_per_second

BAD_COLOUR = "#d62728"


def _palette(n: int) -> list[str]:
    import plotly.express as px
    return (px.colors.qualitative.Plotly * 2)[:n]


def _phase_line(fig, tl: dict, t0: float) -> None:
    x = tl["phases"]["replaced"][0] - t0
    fig.add_vline(x=x, line_dash="dash", line_color="black")
    fig.add_annotation(x=x, y=1, yref="paper", text="cable replaced", showarrow=False, xanchor="left",
                       yanchor="bottom")


def _span(df: pd.DataFrame, tl: dict) -> tuple[pd.DataFrame, float]:
    t0 = tl["phases"]["bad cable"][0]
    t1 = tl["phases"]["replaced"][1]
    return df[(df.index >= t0) & (df.index <= t1)], t0


def fig_ops(d: dict, stacked: bool):
    """NFS reads per second by client: stacked areas (as Analytics drew them by default) or lines.
    Clients are ordered by their rate in the bad-cable phase, busiest first (at the bottom of a stack)."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    ops, t0 = _span(ops_per_second(d), tl)
    order = list(ops.mean().sort_values(ascending=False).index)
    colours = dict(zip(sorted(ops.columns), _palette(len(ops.columns))))
    fig = go.Figure()
    k = tl["bad_client"]
    for j in order:
        # As lines the good clients overlap by design (they read alike): the bad one is drawn thick, in front.
        kw = {"stackgroup": "ops", "line": {"width": 0.5, "color": colours[j]}} if stacked else \
             {"line": {"width": 3 if j == k else 1.2, "color": colours[j]}, "opacity": 1 if j == k else 0.75}
        fig.add_scatter(x=ops.index - t0, y=ops[j], mode="lines", name=tl["clients"][str(j)]["host"], **kw)
    _phase_line(fig, tl, t0)
    fig.update_layout(title="NFS reads per second by client" + (" (stacked)" if stacked else " (lines)"),
                      xaxis_title="time (s)", yaxis_title="reads/s", height=380)
    return fig


def fig_network(d: dict):
    """Bytes per second to each client (its link), in Mbit/s, with the link rates as dotted lines."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    net, t0 = _span(net_per_second(d), tl)
    k = tl["bad_client"]
    fig = go.Figure()
    for j in sorted(net.columns):
        fig.add_scatter(x=net.index - t0, y=net[j] * 8 / 1e6, mode="lines", name=tl["clients"][str(j)]["host"],
                        line={"color": BAD_COLOUR if j == k else "#7f7f7f", "width": 3 if j == k else 1.2})
    fig.add_hline(y=tl["link_mbit"], line_dash="dot", annotation_text=f"good link {tl['link_mbit']:g} Mbit/s")
    fig.add_hline(y=tl["link_mbit"] * tl["bad_ratio"], line_dash="dot", line_color=BAD_COLOUR,
                  annotation_text=f"bad cable {tl['link_mbit'] * tl['bad_ratio']:g} Mbit/s",
                  annotation_position="bottom right")
    _phase_line(fig, tl, t0)
    fig.update_layout(title=f"Network: Mbit/s sent to each client ({tl.get('links', 'host-side veth')})",
                      xaxis_title="time (s)",
                      yaxis_title="Mbit/s", height=380)
    return fig


def fig_throughput(m: dict):
    """Total throughput before and after the new cable, with the gain and its expectation."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Bar(x=["bad cable", "replaced"], y=[m["total_mb_s_bad"], m["total_mb_s_replaced"]],
                           marker_color=[BAD_COLOUR, "#2ca02c"], text=[f"{m['total_mb_s_bad']:.1f} MB/s",
                                                                       f"{m['total_mb_s_replaced']:.1f} MB/s"],
                           textposition="auto"))
    fig.update_layout(title=f"All clients together: +{m['gain']:.1%} after the fix (1/N = {m['one_over_n']:.1%})",
                      yaxis_title="MB/s (10^6 bytes/s)", height=320)
    return fig


def fig_cost(c: dict):
    import plotly.graph_objects as go

    w = c["windows"]
    mb_s = w["bytes_s"] / 1e6
    fig = go.Figure(go.Bar(x=[f"{i + 1}: {x}" for i, x in enumerate(w["collection"])], y=mb_s,
                           text=[f"{v:,.0f}" for v in mb_s], textposition="auto",
                           marker_color=["#1f77b4" if x == "on" else "#aec7e8" for x in w["collection"]]))
    fig.update_layout(title="Unshaped links: throughput with per-client collection off and on",
                      xaxis_title="window: per-client collection", yaxis_title="MB/s", height=360)
    return fig
