"""The ht chapter's figures (plotly), drawn from load()'s data."""
from __future__ import annotations

import math

from perflab.config.params import fmt_size

from .analysis import pick

SET_COLOURS = {"cache": "#1b9e77", "dram": "#d95f02"}


def _ends(d: dict) -> tuple[int, int, int]:
    base = d["configs"][d["configs"].phase == "working sets"]
    return int(base["set"].min()), int(base["set"].max()), int(base.bs.iloc[0])


def fig_sweep(d: dict):
    """Throughput, work per CPU-second and %CPU against the working set (log scale), with the CPU's
    cache sizes marked."""
    from plotly.subplots import make_subplots

    base = d["configs"][d["configs"].phase == "working sets"].sort_values("set")
    x = base["set"] / 1024
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.62, 0.38], vertical_spacing=0.06)
    # colours of middle lightness: each line stands out from the plot area in both themes
    fig.add_scatter(x=x, y=base.gib_s, mode="lines+markers", name="throughput (GiB/s)", line_color="#1f77b4",
                    row=1, col=1)
    fig.add_scatter(x=x, y=base.gib_per_cpu_s, mode="lines+markers", name="work: GiB per CPU-second",
                    line={"dash": "dot", "color": "#d62728"}, row=1, col=1)
    fig.add_scatter(x=x, y=base.cpu_pct, mode="lines+markers", name="%CPU (fio's usr+sys)", line_color="#2ca02c",
                    row=2, col=1)
    fig.add_scatter(x=x, y=base.cgroup_cpu_pct, mode="lines+markers", name="%CPU (container's cgroup)",
                    line={"dash": "dot", "color": "#9467bd"}, row=2, col=1)
    for level, size in d["hw"].get("caches", {}).items():
        if level in ("L2", "L3"):
            # A line (a shape) takes the data value on a log axis; an annotation takes its log10.
            fig.add_vline(x=size / 1024, line_dash="dash", line_color="grey")
            fig.add_annotation(x=math.log10(size / 1024), xref="x", y=1, yref="y domain",
                               text=f"{level} {fmt_size(size)}", showarrow=False, xanchor="right", yanchor="top",
                               font={"color": "grey"})
    fig.update_xaxes(type="log", title_text="working set (KiB, log scale)", row=2, col=1)
    fig.update_xaxes(type="log", row=1, col=1)
    fig.update_yaxes(title_text="GiB/s, GiB per CPU-s", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="%CPU", range=[0, 105], row=2, col=1)
    fig.update_layout(title=f"Cached reads on one CPU, bs={fmt_size(int(base.bs.iloc[0]))}: the CPU stays busy, "
                            "the work per CPU-second falls", height=560, legend_orientation="h", legend_y=-0.18)
    return fig


def fig_block_sizes(d: dict):
    """Work per CPU-second (bytes and reads) against the block size, for both ends of the sweep."""
    from plotly.subplots import make_subplots

    small, big, _ = _ends(d)
    agg = d["configs"]
    sel = agg[(agg.neighbour == "alone") & (agg.ncpu == 1) & (agg["set"].isin([small, big]))]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("GiB per CPU-second", "thousand reads per CPU-second"))
    for tag, size in (("cache", small), ("dram", big)):
        r = sel[sel["set"] == size].sort_values("bs")
        label = f"{fmt_size(size)} ({'cache-resident' if tag == 'cache' else 'DRAM-sized'})"
        for col, y in ((1, r.gib_per_cpu_s), (2, r.kops_per_cpu_s)):
            fig.add_scatter(x=r.bs / 1024, y=y, mode="lines+markers", name=label, legendgroup=tag,
                            showlegend=col == 1, line_color=SET_COLOURS[tag], row=1, col=col)
    fig.update_xaxes(type="log", title_text="block size (KiB, log scale)")
    fig.update_yaxes(type="log", col=2)
    fig.update_yaxes(rangemode="tozero", col=1)
    fig.update_layout(title="Block size: per-read costs at small blocks, per-byte costs at large ones", height=420)
    return fig


def _set_label(size: int, tag: str) -> str:
    """A set as the bars' axis names it, on two lines: '128 KiB' over '(cache-resident)'."""
    return f"{fmt_size(size).replace('KiB', ' KiB').replace('MiB', ' MiB').replace('GiB', ' GiB')}<br>({tag})"


def _bar_pair(d: dict, series: list[tuple[str, str, dict, object]], title: str):
    """Two panels of grouped bars over both ends of the sweep: throughput and work per CPU-second.
    series: (name, colour, pick() keywords, text(row, one-CPU row alone) for the bar).

    The bars lie along x, one row per set: their labels are words ("98% CPU", "×1.45") that must
    lie flat at a phone's width, and upright bars left them room only turned on end. Every bar
    carries words past its end (in the throughput panel what the series is about, in the work panel
    its GiB per CPU-second), with room kept for the longest."""
    from plotly.subplots import make_subplots

    small, big, bs = _ends(d)
    agg = d["configs"]
    # Stacked, not side by side: two panels of grouped bars do not fit a phone's width.
    fig = make_subplots(rows=2, cols=1, vertical_spacing=0.16,
                        subplot_titles=("throughput (GiB/s)", "work (GiB per CPU-second)"))
    tops = {1: 0.0, 2: 0.0}
    for name, colour, sel, text in series:
        ys, gs, ws, txt, wtxt = [], [], [], [], []
        for tag, size in (("cache-resident", small), ("DRAM-sized", big)):
            r = pick(agg, size, bs, **sel)
            ys.append(_set_label(size, tag))
            if r is None:  # a configuration the lab does not run (or this run skipped): say so on the chart
                gs.append(0)
                ws.append(0)
                txt.append("not measured")
                wtxt.append("not measured")
                continue
            gs.append(float(r.gib_s))
            ws.append(float(r.gib_per_cpu_s))
            txt.append(text(r, pick(agg, size, bs)))
            wtxt.append(f"{r.gib_per_cpu_s:.1f}")
        if not any(gs):
            continue
        tops[1], tops[2] = max(tops[1], *gs), max(tops[2], *ws)
        fig.add_bar(y=ys, x=gs, orientation="h", name=name, marker_color=colour, text=txt,
                    textposition="outside", textangle=0, cliponaxis=False, constraintext="none",
                    legendgroup=name, hovertemplate="%{x:.2f} GiB/s<extra>" + name + "</extra>", row=1, col=1)
        fig.add_bar(y=ys, x=ws, orientation="h", name=name, marker_color=colour, text=wtxt,
                    textposition="outside", textangle=0, cliponaxis=False, constraintext="none",
                    legendgroup=name, showlegend=False,
                    hovertemplate="%{x:.2f} GiB per CPU-s<extra>" + name + "</extra>", row=2, col=1)
    # room past the longest bar for its words ("not measured" or "100% CPU" above, "18.0" below)
    fig.update_xaxes(range=[0, 1.5 * (tops[1] or 1)], row=1, col=1)
    fig.update_xaxes(range=[0, 1.25 * (tops[2] or 1)], row=2, col=1)
    # the first set on top, and in each set the series in the legend's order
    fig.update_yaxes(autorange="reversed")
    fig.update_traces(textfont_size=12)
    fig.update_layout(barmode="group", height=620, title=title, bargap=0.25,
                      legend=dict(orientation="h", yanchor="top", y=-0.08, x=0, traceorder="normal"),
                      margin=dict(b=110))
    return fig


def fig_neighbours(d: dict):
    """Alone, with a memory-bandwidth neighbour on the other CPU, with a CPU hog on fio's CPU: throughput
    and work per CPU-second, %CPU written on the bars."""
    cpu = lambda r, one: f"{r.cpu_pct:.0f}% CPU"  # noqa: E731
    return _bar_pair(d, [("alone", "#7570b3", {}, cpu),
                         ("memory neighbour (other CPU)", "#e7298a", {"neighbour": "stream"}, cpu),
                         ("CPU hog (same CPU)", "#66a61e", {"neighbour": "cpu"}, cpu)],
                     "Neighbours: memory traffic next door, or a CPU hog on the same CPU")


def fig_two_cpus(d: dict):
    """One CPU vs two (one fio job on each): throughput and work per CPU-second for both sets."""
    gain = lambda r, one: f"×{r.gib_s / one.gib_s:.2f}"  # noqa: E731
    # 2 CPUs in Dark2's brown: its yellow is too light to stand out from a light plot area
    return _bar_pair(d, [("1 CPU", "#7570b3", {}, gain), ("2 CPUs", "#a6761d", {"ncpu": 2}, gain)],
                     "A second CPU: how much more does it read?")
