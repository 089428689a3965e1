"""The jbod chapter's figures: the latency heat map of all disks, the outliers by disk and as a
hierarchy (JBOD, then disk), the queues by disk and by JBOD, the pool's throughput and the chains."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .analysis import outliers_by_disk

SLOW = "#d62728"
CALM = "#1f77b4"
# One meaning per colour across the chapter: red, blue and green are the phases (in every figure that
# shows phases side by side), purple the disks of the JBODs found single-path, orange the JBODs on the
# longest chain, grey everything else.
PHASE_COLOURS = {"as cabled": SLOW, "second path": CALM, "balanced": "#2ca02c"}
SINGLE_PATH = "#9467bd"
LONG_CHAIN = "#ff7f0e"
OTHER = "#7f7f7f"


def lat_paths(data_dir: Path) -> list[Path]:
    return sorted(Path(data_dir, "fio").glob("*/j*_clat.*.log*"))


def fig_heatmap(d: dict):
    """Disk I/O latency, every disk, all three phases, with the phase boundaries."""
    from perflab.analysis import heatmap

    ios = d["ios"]
    t0 = float(ios["t"].min())
    hm = heatmap.from_lat_log(lat_paths(d["data_dir"]), t0_ms=int(t0 * 1000))
    fig = heatmap.figure(hm, title="Disk I/O latency, all disks (fio completion latency)")
    for ph, g in ios.groupby("phase", sort=False):
        x = float(g["t"].min()) - t0
        fig.add_vline(x=x, line_dash="dash", line_color="black", row=1, col=1)
        fig.add_annotation(x=x, y=1, yref="paper", text=ph, showarrow=False, xanchor="left", yanchor="bottom")
    return fig


def fig_outliers_flat(disks: pd.DataFrame, threshold_ms: float):
    import plotly.graph_objects as go

    flat = outliers_by_disk(disks)
    fig = go.Figure(go.Bar(x=flat["outliers"], y=flat["disk"], orientation="h", marker_color="#7f7f7f"))
    # every disk labelled (plotly would skip every other label of a crowded category axis)
    fig.update_layout(title=f"Writes slower than {threshold_ms:g} ms, by disk (as cabled)",
                      xaxis_title="writes", height=max(320, 20 * len(flat) + 100),
                      yaxis=dict(autorange="reversed", tickmode="array", tickvals=list(flat["disk"]),
                                 ticktext=list(flat["disk"]), tickfont=dict(size=11)))
    return fig


def fig_outliers_sunburst(disks: pd.DataFrame, threshold_ms: float):
    """The hierarchy: JBOD, then its disks; a wedge's size is its share of the outliers. A JBOD or a
    disk without a slow write has no wedge, and no slice either: an empty slice would still carry a
    label, drawn at no size at all. The labels lie flat (plotly turns them along the wedges by
    default) and stay at a readable size: a wedge too narrow for one leaves it to the hover."""
    import plotly.graph_objects as go

    ids, labels, parents, values, hover, colours = [], [], [], [], [], []
    for j, g in disks.groupby("jbod"):
        g = g[g["outliers"] > 0]
        if g.empty:
            continue
        ids.append(f"J{j}")
        labels.append(f"JBOD {j:03d}")
        parents.append("")
        values.append(int(g["outliers"].sum()))
        hover.append(f"JBOD {j:03d}")
        colours.append("#5f5f5f")   # greys, no colour of their own: the wedges' sizes are the finding
        for _, r in g.iterrows():
            ids.append(f"J{j}/{r['disk']}")
            labels.append(f"slot {r['slot']}")      # short enough to read in a wedge; the serial on hover
            parents.append(f"J{j}")
            values.append(int(r["outliers"]))
            hover.append(f"{r['disk']} (JBOD {j:03d}, slot {r['slot']})")
            colours.append(OTHER)
    fig = go.Figure(go.Sunburst(ids=ids, labels=labels, parents=parents, values=values, branchvalues="total",
                                hovertext=hover, hoverinfo="text+value+percent root", marker={"colors": colours},
                                insidetextorientation="horizontal", insidetextfont={"color": "white"}))
    quiet = [f"{j:03d}" for j, g in disks.groupby("jbod") if int(g["outliers"].sum()) == 0]
    fig.update_layout(title=f"The same writes (> {threshold_ms:g} ms) by JBOD, then disk", height=460,
                      uniformtext=dict(minsize=12, mode="hide"))
    if quiet:  # a JBOD without a slow write has no wedge: say so rather than let it vanish
        fig.add_annotation(text="no slow writes (no wedge): JBOD " + ", ".join(quiet), x=0.5, y=-0.05,
                           xref="paper", yref="paper", showarrow=False, yanchor="top")
        fig.update_layout(margin=dict(b=60))
    return fig


def fig_queues(per_phase: dict[str, pd.DataFrame], slow: list[int]):
    """Average writes active or queued per disk, by JBOD, in each phase."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for ph, jb in per_phase.items():
        fig.add_bar(x=[f"JBOD {j:03d}" for j in jb.index], y=jb["queue_per_disk"], name=ph,
                    marker_color=PHASE_COLOURS.get(ph), hovertemplate="%{x}: %{y:.3g} writes in flight")
    # A log axis: the queues span three or more decades, and a phase whose queues are near zero is
    # still seen to be there (on a linear axis its bars vanish and their labels collide).
    fig.update_layout(title="Average writes active + queued per disk, by JBOD (rate x mean latency; log scale)",
                      barmode="group", yaxis_title="writes in flight per disk", yaxis_type="log", height=380,
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    return fig


def fig_disk_queues(disks: pd.DataFrame, slow: list[int]):
    """Average writes active or queued at each disk, one dot per disk (JBOD/slot), on a log axis; the
    disks of the JBODs in `slow` (found single-path) in purple, with a key.

    The disks lie along y so that every disk's name lies flat at a phone's width, and the axis is
    logarithmic because the queues of a path with room to spare are thousands of times shorter than
    those behind a missing one. Dots, not bars: on a log axis a bar's length says only where the axis
    starts, and the axis starts just below the shortest queue."""
    import math

    import plotly.graph_objects as go

    df = disks.sort_values(["jbod", "slot"])
    q = df["queue"][df["queue"] > 0]
    names = [f"{r.jbod:03d}/{r.slot}" for r in df.itertuples()]
    fig = go.Figure()
    hit = df["jbod"].isin(slow).to_numpy()
    found = f"JBOD{'s' if len(slow) > 1 else ''} " + ", ".join(f"{j:03d}" for j in sorted(slow))
    for sel, colour, name in ((~hit, OTHER, "other disks"),
                              (hit, SINGLE_PATH, f"disks of {found} (found single-path)")):
        if sel.any():
            fig.add_scatter(x=df["queue"][sel], y=[n for n, s in zip(names, sel) if s], mode="markers", name=name,
                            marker={"color": colour, "size": 9},
                            hovertemplate="disk %{y}: %{x:.3g} writes in flight<extra></extra>")
    if len(q):
        # from a little below the shortest queue to a little above the longest; ticks at decades only
        # (plotly labels the 2s and 5s between them in a smaller font), written out (0.001, not 1m)
        fig.update_xaxes(type="log", dtick=1, exponentformat="none",
                         range=[math.log10(q.min()) - 0.3, math.log10(q.max()) + 0.3])
    # every disk labelled, the first on top (plotly would skip every other label of a crowded category axis)
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=names, categoryorder="array",
                     categoryarray=names)
    fig.update_layout(title="Average writes active + queued, by disk (as cabled; JBOD/slot; log scale)",
                      xaxis_title="writes in flight (log scale)", yaxis_title="JBOD/slot",
                      height=max(340, 130 + 21 * len(df)))   # 21 px a disk: its name clear of its neighbours
    return fig


def fig_throughput(m: dict):
    import plotly.graph_objects as go

    names = ["as cabled", "second path", "balanced"]
    vals = [m.get("pool_mib_s_cabled"), m.get("pool_mib_s_dual"), m.get("pool_mib_s_balanced")]
    fig = go.Figure(go.Bar(x=names, y=vals, marker_color=[PHASE_COLOURS[n] for n in names],
                           text=[f"{v:.1f} MiB/s" if v is not None else "-" for v in vals], textposition="auto"))
    g = m.get("recable_gain")
    fig.update_layout(title="Pool write throughput (each mirror at its slower side)"
                      + (f": +{g:.0%} with the second path" if g is not None else ""),
                      yaxis_title="MiB/s", height=340)
    return fig


def fig_chains(per_phase: dict[str, pd.DataFrame]):
    """Second order: share of the set rate each JBOD reached, by chain length, before and after
    balancing the chains."""
    from plotly.subplots import make_subplots

    phs = [p for p in ("second path", "balanced") if p in per_phase]
    # one panel above the other: side by side, a phone leaves six JBOD names (001 ... 006) no room
    fig = make_subplots(rows=len(phs), cols=1, subplot_titles=phs, shared_xaxes=True, vertical_spacing=0.2)
    for i, ph in enumerate(phs, 1):
        jb = per_phase[ph]
        # the chain and its length under each JBOD's name (a label inside a near-zero bar cannot be read)
        fig.add_bar(x=[f"{j:03d}<br>ch {c} ({n})" for j, c, n in zip(jb.index, jb["chain"], jb["chain_len"])],
                    y=jb["queue_per_disk"], row=i, col=1, showlegend=False,
                    marker_color=[LONG_CHAIN if n == jb["chain_len"].max() and jb["chain_len"].nunique() > 1 else OTHER
                                  for n in jb["chain_len"]],
                    hovertemplate="JBOD %{x}: %{y:.3g} writes in flight per disk<extra></extra>")
    # log scale: the queues of a chain with room to spare are thousands of times shorter
    # one scale for both panels (matches), so that the balanced JBODs' near-equal queues look equal
    fig.update_yaxes(type="log", title_text="writes in flight<br>per disk", matches="y")
    fig.update_layout(title="Writes in flight per disk, by JBOD and chain (chain number, its length; log scale)",
                      height=300 + 160 * len(phs))
    return fig
