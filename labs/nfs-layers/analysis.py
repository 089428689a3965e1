"""The nfs-layers lab's reading of a run: the same stable writes at three layers (fio, the NFS client;
the NFS server's file-system calls, from the tracer; the emulated disks, from their own logs), each
phase's counts and latencies, and the heat maps on one time axis. Reads a live run or the reference
alike; summary needs nothing but what load read."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis import heatmap
from perflab.analysis.heatmap.model import aligned
from perflab.analysis.heatmap.sources import Events
from perflab.fio import logs as fiolog
from perflab.infra import slowdisk

from .experiment import JOB, TRACE_OUT

PHASES = ("before", "after")
LAYERS = ("client", "server", "disks")
#: seconds left out of each phase: fio's first second, the change and the second after it (writes in
#: flight while ZFS takes the log device), and fio's last second
EDGE_S = (1.0, 1.5, 1.0)
READ, WRITE, FLUSH = 0, 1, 3   # slowdisk's ddir codes
#: a write this slow, or slower, is a stall (well above either phase's p99 at the defaults)
SLOW_MS = 50.0
#: after the log device, a transaction group's commit: the data disks' writes and flushes with no gap this
#: long (ms) inside it (each commit here lasts a fraction of a second, and they come seconds apart)
COMMIT_GAP_MS = 1000.0


def read_trace(path: Path, offset_ns: int) -> tuple[pd.DataFrame, dict]:
    """The tracer's output (bpftrace -f json): one row per stable write the server served (time_ms, its
    end as epoch ms; lat_ns, pwritev's start to fsync's end; fsync_ns), and its counters."""
    rows, counts = [], {}
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        msg = json.loads(line)
        if msg.get("type") == "printf":
            rows += [tuple(map(int, ln.split())) for ln in msg["data"].splitlines() if ln.strip()]
        elif msg.get("type") == "map":
            counts.update({k.lstrip("@"): v for k, v in msg["data"].items() if isinstance(v, int)})
    a = np.array(rows, dtype=np.int64).reshape(-1, 3)
    df = pd.DataFrame({"time_ms": (a[:, 0] + a[:, 1] + offset_ns) / 1e6, "lat_ns": a[:, 1], "fsync_ns": a[:, 2]})
    return df.sort_values("time_ms", ignore_index=True), counts


def load(data_dir) -> dict:
    """fio's per-I/O logs, the tracer's rows, the data disks' and the log device's logs, the events."""
    data_dir = Path(data_dir)
    ev = json.loads((data_dir / "events.json").read_text())
    fdir, ddir = data_dir / "fio", data_dir / "device"
    result = fiolog.read_fio_json(fdir / f"{JOB}.json")
    client = pd.concat([fiolog.read_lat_log(p)[["time_ms", "lat_ns"]]
                        for p in sorted(fdir.glob(f"{JOB}_clat.*.log*"))], ignore_index=True)
    server, counts = read_trace(data_dir / "trace" / TRACE_OUT, ev["mono_offset_ns"])
    return {"events": ev, "fio_version": result.get("fio version"), "jobs": fiolog.job_table(result),
            "client": client.sort_values("time_ms", ignore_index=True), "server": server, "trace_counts": counts,
            "disks": slowdisk.read_mount_logs(ddir), "slog": slowdisk.read_mount_logs(ddir / "slog")}


def windows(d: dict) -> dict[str, tuple[float, float]]:
    """Each phase's steady part, epoch ms: from fio's first write to the start of `zpool add` (ZFS may
    write its log to the new device before the command returns), and from the command's return to fio's
    last completion, less EDGE_S at the edges."""
    ev, c = d["events"], d["client"]
    t0, t_end = c.time_ms.min(), c.time_ms.max()
    return {"before": (t0 + 1000 * EDGE_S[0], ev["add_start_ms"]),
            "after": (ev["change_ms"] + 1000 * EDGE_S[1], t_end - 1000 * EDGE_S[2])}


def _in(df: pd.DataFrame, w: tuple[float, float]) -> pd.DataFrame:
    return df[(df.time_ms > w[0]) & (df.time_ms <= w[1])]


def layer_table(d: dict) -> pd.DataFrame:
    """Per phase and layer: operations, per second, p50 and p99 (us, exact: from each operation's time)."""
    w, rows = windows(d), []
    for ph in PHASES:
        s = (w[ph][1] - w[ph][0]) / 1000
        for layer, df in (("client", d["client"]), ("server", d["server"])):
            x = _in(df, w[ph]).lat_ns.to_numpy() / 1000
            rows.append({"phase": ph, "layer": layer, "ops": len(x), "per_s": len(x) / s,
                         "p50_us": float(np.median(x)) if len(x) else np.nan,
                         "p99_us": float(np.percentile(x, 99)) if len(x) else np.nan})
        for dev, df in (("data disks", d["disks"]), ("log device", d["slog"])):
            sel = _in(df, w[ph]) if len(df) else df
            for op, code in (("read", READ), ("write", WRITE), ("flush", FLUSH)):
                x = sel[sel.ddir == code].lat_ns.to_numpy() / 1000 if len(sel) else np.array([])
                rows.append({"phase": ph, "layer": f"{dev}: {op}", "ops": len(x), "per_s": len(x) / s,
                             "p50_us": float(np.median(x)) if len(x) else np.nan,
                             "p99_us": float(np.percentile(x, 99)) if len(x) else np.nan})
    return pd.DataFrame(rows)


def heatmaps(d: dict) -> dict[str, heatmap.HeatMap]:
    """The three layers' latency heat maps on one time axis (columns from fio's first whole second):
    the client's writes, the server's stable writes, and every I/O of the emulated disks (data disks
    and log device together)."""
    t0 = int(d["client"].time_ms.min()) // 1000 * 1000
    out = {}
    devs = pd.concat([x for x in (d["disks"], d["slog"]) if len(x)], ignore_index=True)
    for name, df in (("client", d["client"]), ("server", d["server"]), ("disks", devs)):
        ev = Events(df.time_ms.to_numpy().astype(np.int64), df.lat_ns.to_numpy().astype(np.int64))
        out[name] = heatmap.from_events([ev], t0_ms=t0, kind="per-io")
    return aligned(out)


def summary(d: dict) -> dict:
    t = layer_table(d).set_index(["phase", "layer"])
    m: dict = {"threads": d["events"]["threads"], "t_add_s": (d["events"]["change_ms"] - d["client"].time_ms.min()) / 1000}
    for ph in PHASES:
        c, s = t.loc[(ph, "client")], t.loc[(ph, "server")]
        n = max(int(c.ops), 1)
        m.update({
            f"iops_{ph}": round(float(c.per_s), 1),
            f"client_p50_us_{ph}": round(float(c.p50_us), 1), f"client_p99_us_{ph}": round(float(c.p99_us), 1),
            f"server_p50_us_{ph}": round(float(s.p50_us), 1), f"server_p99_us_{ph}": round(float(s.p99_us), 1),
            f"server_per_client_{ph}": round(int(s.ops) / n, 4),
            f"outside_us_{ph}": round(float(c.p50_us - s.p50_us), 1),
            f"outside_share_{ph}": round(float((c.p50_us - s.p50_us) / c.p50_us), 4),
            f"disk_flushes_per_write_{ph}": round(int(t.loc[(ph, "data disks: flush")].ops) / n, 3),
            f"disk_writes_per_write_{ph}": round(int(t.loc[(ph, "data disks: write")].ops) / n, 3),
            f"log_writes_per_write_{ph}": round(int(t.loc[(ph, "log device: write")].ops) / n, 3),
            f"flush_p50_us_{ph}": round(float(t.loc[(ph, "data disks: flush")].p50_us), 1),
        })
        w = windows(d)[ph]
        fs = _in(d["server"], w)
        m[f"fsync_share_{ph}"] = round(float(fs.fsync_ns.sum() / fs.lat_ns.sum()), 4) if len(fs) else None
    m["gain_client"] = round(m["client_p50_us_before"] / m["client_p50_us_after"], 2)
    m["gain_server"] = round(m["server_p50_us_before"] / m["server_p50_us_after"], 2)
    m["outside_growth"] = round(m["outside_share_after"] / m["outside_share_before"], 2) \
        if m["outside_share_before"] > 0 else None
    # the server's median against the flushes it waits for one after another (zfs-fuse sends a commit's
    # flushes in series: the logzilla chapter measured it)
    m["server_vs_flushes_before"] = round(m["server_p50_us_before"] / (m["disk_flushes_per_write_before"]
                                                                       * m["flush_p50_us_before"]), 3)
    m.update(stalls(d))
    tc = d["trace_counts"]
    m["trace_writes"], m["trace_fsyncs"] = int(tc.get("writes", 0)), int(tc.get("fsyncs", 0))
    m["fsyncs_per_write"] = round(m["trace_fsyncs"] / m["trace_writes"], 4) if m["trace_writes"] else None
    m["fio_writes"] = int(d["jobs"].total_ios.sum())
    return m


def _flush_ended_during(flushes: np.ndarray, writes: pd.DataFrame) -> np.ndarray:
    """For each write (its end time_ms and lat_ns), whether a data disk's cache flush ended while it waited.
    `flushes`: the flushes' end times (epoch ms), sorted."""
    ends = writes.time_ms.to_numpy()
    starts = ends - writes.lat_ns.to_numpy() / 1e6
    return np.searchsorted(flushes, ends, side="right") > np.searchsorted(flushes, starts, side="left")


def _flushes(d: dict, w: tuple[float, float] | None = None) -> np.ndarray:
    """The data disks' cache flushes' end times (epoch ms, sorted), in window `w` if given."""
    if not len(d["disks"]):
        return np.array([])
    f = d["disks"][d["disks"].ddir == FLUSH]
    return np.sort((_in(f, w) if w else f).time_ms.to_numpy().astype(float))


def _chance(flushes: np.ndarray, length_ms: float, w: tuple[float, float]) -> float:
    """The share of the places an interval of `length_ms` can take inside window `w` at which it holds a
    flush's end: the baseline for "a flush ended while this write waited", were the write placed at random."""
    lo, hi = w[0], w[1] - length_ms
    if hi <= lo:
        return float("nan")
    # the interval [t, t + length] holds flush f when t lies in [f - length, f]: the union of those
    starts, ends = np.maximum(flushes - length_ms, lo), np.minimum(flushes, hi)
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    prev = np.concatenate(([lo], ends[:-1]))   # the ends are sorted: the latest end before each is the previous
    return float(np.clip(ends - np.maximum(starts, prev), 0, None).sum() / (hi - lo))


def commits(d: dict) -> pd.DataFrame:
    """After the log device, the data disks' transaction-group commits: the runs of their writes and cache
    flushes with no gap of COMMIT_GAP_MS inside (the intent log is then on the log device, so what the data
    disks do is the commits). One row each: start_ms (the first I/O's end), first_flush_ms and end_ms (the
    first and the last flush's end), flushes, mib_per_disk (MiB written to each disk written, mean),
    max_flush_ms."""
    cols = ["start_ms", "first_flush_ms", "end_ms", "flushes", "mib_per_disk", "max_flush_ms"]
    x = _in(d["disks"], windows(d)["after"]) if len(d["disks"]) else d["disks"]
    x = x[x.ddir.isin([WRITE, FLUSH])].sort_values("time_ms") if len(x) else x
    if not len(x):
        return pd.DataFrame(columns=cols)
    run = np.concatenate(([0], np.cumsum(np.diff(x.time_ms.to_numpy()) > COMMIT_GAP_MS)))
    rows = []
    for _, g in x.groupby(run):
        fl, wr = g[g.ddir == FLUSH], g[g.ddir == WRITE]
        if not len(fl):
            continue
        rows.append({"start_ms": float(g.time_ms.min()), "first_flush_ms": float(fl.time_ms.min()),
                     "end_ms": float(fl.time_ms.max()), "flushes": len(fl),
                     "mib_per_disk": float(wr.groupby("disk").bs.sum().mean() / 2**20) if len(wr) else 0.0,
                     "max_flush_ms": float(fl.lat_ns.max() / 1e6)})
    return pd.DataFrame(rows, columns=cols)


def _spans(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each row's start and end (epoch ms), from its end time_ms and its lat_ns."""
    ends = df.time_ms.to_numpy().astype(float)
    return ends - df.lat_ns.to_numpy() / 1e6, ends


def client_stalls(d: dict) -> pd.DataFrame:
    """fio's writes of SLOW_MS or more in either phase's window, one row each: phase, start_ms, end_ms,
    lat_ms, and server_lat_ms: the time of the server's stall (a stable write of SLOW_MS or more) that
    ran while it waited, NaN where none did."""
    w, slow, rows = windows(d), SLOW_MS * 1e6, []
    srv = d["server"][d["server"].lat_ns >= slow]
    s_start, s_end = _spans(srv)
    for ph in PHASES:
        c = _in(d["client"], w[ph])
        c = c[c.lat_ns >= slow]
        for a, b, lat in zip(*_spans(c), c.lat_ns.to_numpy() / 1e6):
            hit = np.flatnonzero((s_start <= b) & (s_end >= a))
            rows.append({"phase": ph, "start_ms": a, "end_ms": b, "lat_ms": lat,
                         "server_lat_ms": float(srv.lat_ns.iloc[hit].max() / 1e6) if len(hit) else np.nan})
    return pd.DataFrame(rows, columns=["phase", "start_ms", "end_ms", "lat_ms", "server_lat_ms"])


def server_stalls(d: dict) -> pd.DataFrame:
    """The server's stalls after the log device (stable writes of SLOW_MS or more), one row each: start_ms,
    end_ms, lat_ms; flushes: the data disks' cache flushes that ended while it waited; commit_flushes: the
    flushes of the commit (:func:`commits`) all of whose flushes ended while it waited, 0 if none did;
    after_flush_ms: from the last flush that ended while it waited to its end; chance: the share of the
    window's places for an interval as long at which it would hold a flush's end."""
    w = windows(d)["after"]
    fl, cm = _flushes(d, w), commits(d)
    s = _in(d["server"], w)
    s = s[s.lat_ns >= SLOW_MS * 1e6]
    rows = []
    for a, b in zip(*_spans(s)):
        inside = fl[(fl >= a) & (fl <= b)]
        whole = cm[(cm.first_flush_ms >= a) & (cm.end_ms <= b)] if len(cm) else cm
        rows.append({"start_ms": a, "end_ms": b, "lat_ms": b - a, "flushes": len(inside),
                     "commit_flushes": int(whole.flushes.max()) if len(whole) else 0,
                     "after_flush_ms": b - inside.max() if len(inside) else np.nan,
                     "chance": _chance(fl, b - a, w)})
    return pd.DataFrame(rows, columns=["start_ms", "end_ms", "lat_ms", "flushes", "commit_flushes",
                                       "after_flush_ms", "chance"])


def stalls(d: dict) -> dict:
    """Writes of SLOW_MS or more in either phase's window, at the client and at the server, and the share of
    fio's during which one of the server's ran; and, after the log device only, the share of the server's
    stalls that had a data disk's cache flush end while they waited (a transaction group's commit flushes
    every disk), beside the chance of that for an interval as long placed at random in the window. Before
    the log device every write waits for two flushes, so a flush during a stall there says nothing of its
    cause: the check looks after it only."""
    w = windows(d)
    slow = SLOW_MS * 1e6
    cs = client_stalls(d)
    srv = pd.concat([_in(d["server"], w[ph]) for ph in PHASES])
    srv = srv[srv.lat_ns >= slow]
    after = _in(d["server"], w["after"])
    stalled = (after.lat_ns >= slow).to_numpy()
    during = _flush_ended_during(_flushes(d), after)[stalled]
    ss = server_stalls(d)
    return {"slow_client": len(cs), "slow_server": len(srv),
            "slow_matched": round(float(cs.server_lat_ms.notna().mean()), 3) if len(cs) else None,
            "slow_max_ms": round(float(srv.lat_ns.max()) / 1e6, 1) if len(srv) else None,
            "slow_server_after": int(stalled.sum()),
            "slow_at_flush_after": round(float(during.mean()), 3) if stalled.any() else None,
            "flush_chance_after": round(float(ss.chance.mean()), 4) if len(ss) else None}
