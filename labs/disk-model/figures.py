"""The disk-model chapter's heat maps: every experiment one after the other, and the short-stroked
reads' rotational band on a linear axis (the chapter draws them)."""
from __future__ import annotations

from perflab.analysis import heatmap
from perflab.fio import logs as fiolog

from .experiment import PHASES, disk_model

LINEAR_NS = 100_000                      # the rotational band's rows: 100 us


def phase_starts(d: dict) -> dict[str, float]:
    """Each experiment's first I/O's start, epoch ms (its first completion less its latency)."""
    return {ph: float((a.time_ms - a.lat_ns / 1e6).min()) for ph, a in d["app"].items() if len(a)}


def phase_map(d: dict, p: dict):
    """fio's latency heat map of every experiment, one after the other (log-linear buckets), and the
    time origin of its columns (epoch ms)."""
    logs = [q for ph in PHASES for q in d["logs"][ph]]
    t0 = int(min(phase_starts(d).values())) // 1000 * 1000
    col_s = max(1.0, round(p["phase"] / 20))
    return heatmap.from_lat_log(logs, col_s=col_s, t0_ms=t0), t0


def stroke_map(d: dict, p: dict):
    """The short-stroked reads' heat map on a linear axis (100 us rows up to a revolution + 2 ms)."""
    top = int((disk_model(p).rotation_ms + 2.0) * 1e6)
    logs = d["logs"]["stroke"]
    t0 = fiolog.first_time_ms(logs) // 1000 * 1000
    return heatmap.from_lat_log(logs, col_s=1.0, linear_ns=LINEAR_NS, linear_max_ns=top, t0_ms=t0)
