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
    """A drill-down step as Analytics drew it: one row per item, busiest on top (per second).
    Where the items span more than LOG_RATIO, the axis is logarithmic and says so, and each item is a
    dot with its rate beside it rather than a bar: on a log axis a bar's length depends on where the
    axis starts (0.045/s drawn a third as long as 63/s), a dot's place does not."""
    import math

    import plotly.graph_objects as go

    c = counts.head(top)[::-1]
    names = [str(x) for x in c.index]
    colours = [BUGGY_COLOUR if highlight is not None and str(x) == str(highlight) else OTHER_COLOUR for x in c.index]
    rates = c.values / seconds
    shown = rates[rates > 0]
    log = len(shown) > 1 and float(shown.max()) > LOG_RATIO * float(shown.min())
    hover = "%{y}: %{x:.3g} requests/s<extra></extra>"
    # each item carries its rate: a bar of a few requests beside one of 60/s is too short to see
    if log:
        fig = go.Figure(go.Scatter(x=rates, y=names, mode="markers+text", marker={"color": colours, "size": 14},
                                   text=[_rate(r) for r in rates], textposition="middle right", cliponaxis=False,
                                   hovertemplate=hover))
        # from half a decade below the quietest dot to room for the labels past the busiest; ticks at
        # decades only, written out (0.01, not 10m)
        fig.update_xaxes(type="log", dtick=1, exponentformat="none",
                         range=[math.log10(float(shown.min())) - 0.5, math.log10(float(shown.max())) + 0.9])
    else:
        fig = go.Figure(go.Bar(x=rates, y=names, orientation="h", marker_color=colours,
                               text=[_rate(r) for r in rates], textposition="outside", cliponaxis=False,
                               hovertemplate=hover))
        if len(rates):
            fig.update_xaxes(range=[0, 1.25 * float(rates.max())])   # room for the labels
    fig.update_layout(title=title, xaxis_title="requests/s" + (" (log scale)" if log else ""), yaxis_title=label,
                      height=max(280, 160 + 28 * len(c)), margin={"l": 10})
    return fig


#: bpftrace's dots in a colour that reads on both themes, apart from strace's red
BPF_COLOUR = "#ff7f0e"


def client_opens_per_second(d: dict) -> pd.DataFrame:
    """strace's and bpftrace's counts of the failed opens of the form-history file, one row per second
    of the strace window (t: the second's middle, from the buggy phase's start). bpftrace's counts
    cover the second that ends at their time stamp; each is matched to strace's second whose middle
    lies within 0.25 s of its own (NaN where bpftrace has none, or did not run)."""
    tl = d["timeline"]
    t0 = tl["phases"]["buggy"][0]
    ta, tb = tl["tracing"]["strace_openat"]
    st = d["strace"]
    if st.empty:
        return pd.DataFrame(columns=["t", "strace", "bpftrace"])
    e = st[(st["err"] == "ENOENT") & st["path"].str.endswith(FORMHIST)]
    ps = counts_per_second(e["t"], ta + 0.5, tb - 0.5)
    out = pd.DataFrame({"t": ps.index + (ta + 0.5 - t0) + 0.5, "strace": ps.values.astype(float)})
    out["bpftrace"] = float("nan")
    b = d["bpftrace"]
    if d["bpftrace_status"] == "ran" and b is not None and not b["per_second"].empty:
        bp = b["per_second"][b["per_second"]["path"].fillna("").str.endswith(FORMHIST)]
        for t, n in zip(bp["t"] - t0 - 0.5, bp["count"]):
            i = (out["t"] - t).abs()
            if len(i) and i.min() <= 0.25:
                out.loc[i.idxmin(), "bpftrace"] = float(n)
    return out.reset_index(drop=True)


def fig_client_opens(d: dict):
    """Client side: failed opens of the form-history file per second by strace (above, a line, with
    the set open_rate in the title), and bpftrace's count less strace's in the same second (below).
    The two counts sit on one another where the tools agree, so drawn together one hides the other;
    their difference shows the agreement as a row of dots at zero, and any second they part."""
    from plotly.subplots import make_subplots

    tl = d["timeline"]
    ops = client_opens_per_second(d)
    has_bpf = ops["bpftrace"].notna() if len(ops) else pd.Series(dtype=bool)
    rows = 2 if has_bpf.any() else 1
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        row_heights=[0.65, 0.35] if rows == 2 else None)
    if len(ops):
        fig.add_scatter(x=ops["t"], y=ops["strace"], mode="lines", name="strace: openat() = -1 ENOENT",
                        line={"color": BUGGY_COLOUR, "width": 2}, row=1, col=1)
        fig.update_yaxes(title_text="opens/s", range=[0, 1.2 * max(float(ops["strace"].max()), tl["open_rate"])],
                         row=1, col=1)
    if rows == 2:
        diff = ops["bpftrace"][has_bpf] - ops["strace"][has_bpf]
        fig.add_scatter(x=ops["t"][has_bpf], y=diff, mode="markers", name="bpftrace − strace, same second",
                        marker={"color": BPF_COLOUR, "size": 5}, row=2, col=1)
        room = max(2.0, float(diff.abs().max()) + 1)
        fig.update_yaxes(title_text="difference", range=[-room, room], zeroline=True, row=2, col=1)
    fig.update_xaxes(title_text="time (s)", row=rows, col=1)
    fig.update_layout(title=f"Desktop: opens of .elinks/formhist per second (open_rate = {tl['open_rate']:g}/s)",
                      height=440 if rows == 2 else 360)
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
