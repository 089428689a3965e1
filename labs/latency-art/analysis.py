"""The latency-art lab's reading of a run (load) and its numbers (summary): the icy lake's (icy.py)
and the pterodactyl's, its phases, its knee, its latency before and past the knee, and the disks'
own service times. Reads a live run or the reference alike; the parameters come from the run's own
run.json, and the icy-lake disks' write-cache setting from its provenance."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis import heatmap
from perflab.fio import logs as fiolog
from perflab.infra import slowdisk
from perflab.run.record import params_of

from .experiment import ICY, PTERO
from .icy import icy_disks, icy_host, icy_stats, icy_write_cache

LINEAR_NS = 100_000            # linear heat-map rows of 100 us
LINEAR_MAX_NS = 20_000_000     # up to 20 ms (rarer, slower I/Os are counted above the top row)
TRIM_S = (0.6, 0.3)            # left out at the start and end of each pterodactyl phase


def _logs(fdir: Path, job: str) -> list[Path]:
    logs = sorted(fdir.glob(f"{job}_clat.*.log*"), key=lambda q: int(q.name.split(".")[1]))
    return logs


def phase_windows(t0_ms: float, p: dict):
    """(disks lit, start ms, end ms) of each pterodactyl phase, without its first and last moments."""
    phase_ms = p["phase"] * 1000
    for k in range(1, p["disks"] + 1):
        yield k, t0_ms + (k - 1) * phase_ms + TRIM_S[0] * 1000, t0_ms + k * phase_ms - TRIM_S[1] * 1000


def ptero_phases(d: dict, p: dict) -> pd.DataFrame:
    """One row per disk count: throughput (MB/s), latency percentiles of the reads completed in
    that phase, from fio's per-I/O logs (the phase's first and last moments left out), and the
    share of reads that took 1.75 transfer times or more (near a second transfer: a read that
    waited for a whole transfer in front of it)."""
    io = d["ptero_io"]
    transfer_ms = 131072 / (p["stream_mbps"] * 1e3)
    rows = []
    for k, a, b in phase_windows(d["ptero_t0_ms"], p):
        sel = io[(io.time_ms >= a) & (io.time_ms < b)]
        dur = (b - a) / 1000
        lat = sel.lat_ns.to_numpy() / 1e6
        pct = np.percentile(lat, [10, 50, 90, 99]) if len(lat) else [np.nan] * 4
        rows.append({"disks": k, "mb_s": sel.bs.sum() / dur / 1e6, "reads": len(sel),
                     "p10_ms": pct[0], "p50_ms": pct[1], "p90_ms": pct[2], "p99_ms": pct[3],
                     "mean_ms": float(lat.mean()) if len(lat) else np.nan,
                     "two_transfer_share": float((lat >= 1.75 * transfer_ms).mean()) if len(lat) else np.nan})
    return pd.DataFrame(rows)


def find_knee(n: np.ndarray, mb_s: np.ndarray, step: float = 0.05) -> tuple[float, float]:
    """The knee of a throughput-vs-disks curve: the k that best fits `rate * min(n, k)` (a line
    through the origin, then flat), least squares over k in [1, max(n)]. Returns (k, rate)."""
    n, y = np.asarray(n, float), np.asarray(mb_s, float)
    best = (float("nan"), float("nan"), np.inf)
    for k in np.arange(1.0, n.max() + step / 2, step):
        x = np.minimum(n, k)
        a = float((x * y).sum() / (x * x).sum())
        sse = float(((y - a * x) ** 2).sum())
        if sse < best[2]:
            best = (float(k), a, sse)
    return best[0], best[1]


def device_phases(d: dict, p: dict) -> pd.DataFrame:
    """Median service time of the streaming disks' reads per phase, from slowdisk's device logs
    (the disks' own view: no time waiting for a lane)."""
    dev = d["ptero_device"]
    rows = []
    for k, a, b in phase_windows(d["ptero_t0_ms"], p):
        sel = dev[(dev.epoch_ms >= a) & (dev.epoch_ms < b)]
        rows.append({"disks": k, "device_p50_ms": float(np.median(sel.lat_ns)) / 1e6 if len(sel) else np.nan})
    return pd.DataFrame(rows)


def ptero_stats(ph: pd.DataFrame, p: dict) -> dict:
    knee, rate = find_knee(ph.disks.to_numpy(), ph.mb_s.to_numpy())
    expected = p["ports"] * p["lanes"]
    before = ph[ph.disks < min(knee, expected)]
    last = ph.iloc[-1]
    p50_before = float(before.p50_ms.median()) if len(before) else float(ph.p50_ms.iloc[0])
    at_knee = ph[ph.disks == int(round(knee))]
    return {
        "knee_disks": round(knee, 2), "knee_expected": expected, "per_disk_mb_s": round(rate, 1),
        "one_disk_mb_s": round(float(ph.mb_s.iloc[0]), 1),
        # fio's median read with one disk streaming: one reader, so no lane to wait for
        "one_disk_p50_ms": round(float(ph.p50_ms.iloc[0]), 3),
        "knee_mb_s": round(float(at_knee.mb_s.iloc[0]), 1) if len(at_knee) else None,
        "max_mb_s": round(float(ph.mb_s.max()), 1), "last_mb_s": round(float(last.mb_s), 1),
        "flat_ratio": round(float(last.mb_s / ph[ph.disks == expected].mb_s.iloc[0]), 3),
        "linear_ratio": round(float(ph[ph.disks == expected].mb_s.iloc[0] / (expected * ph.mb_s.iloc[0])), 3),
        "p50_before_knee_ms": round(p50_before, 3), "p50_last_ms": round(float(last.p50_ms), 3),
        "p90_last_ms": round(float(last.p90_ms), 3),
        "latency_rise": round(float(last.p50_ms) / p50_before, 3),
        "latency_rise_expected": round(p["disks"] / expected, 3),
        "flat_before_knee": round(float(ph[ph.disks == expected].p50_ms.iloc[0]) / float(ph.p50_ms.iloc[0]), 3),
        "transfer_ms": round(131072 / (p["stream_mbps"] * 1e3), 3),
        "second_band": round(float(last.p90_ms) / p50_before, 3),
    }


def load(data_dir: Path) -> dict:
    """The heat maps and per-I/O logs of both pictures, the disks' own logs, and what the run was
    made with: its parameters (run.json) and the icy-lake disks' write-cache setting (its provenance)."""
    data_dir = Path(data_dir)
    fdir = data_dir / "fio"
    icy_logs = _logs(fdir, ICY)
    t_icy = fiolog.first_time_ms(icy_logs) // 1000 * 1000
    icy_app = heatmap.from_lat_log(icy_logs, col_s=0.5, linear_ns=LINEAR_NS, linear_max_ns=LINEAR_MAX_NS, t0_ms=t_icy)
    plogs = _logs(fdir, PTERO)
    frames = []
    for i, lp in enumerate(plogs):
        df = fiolog.read_lat_log(lp)
        df["disk"] = i
        frames.append(df)
    io = pd.concat(frames, ignore_index=True)
    first = frames[0]
    t0 = int(first.time_ms.min() - first.lat_ns.iloc[0] / 1e6)     # disk 0's first read was issued
    ptero_app = heatmap.from_lat_log(plogs, col_s=1.0, linear_ns=LINEAR_NS, linear_max_ns=LINEAR_MAX_NS,
                                       t0_ms=t0 // 1000 * 1000)
    devs = []
    for sub in sorted((data_dir / "device").glob("jbod*")):
        epoch = int((sub / "mount.epoch_ms").read_text())
        for lp in sorted(sub.glob("d*.log*")):
            df = slowdisk.read_device_log(lp)
            df = df[df.ddir == 0]
            devs.append(pd.DataFrame({"epoch_ms": df.time_ms.to_numpy() + epoch, "lat_ns": df.lat_ns.to_numpy()}))
    device = pd.concat(devs, ignore_index=True) if devs else pd.DataFrame(columns=["epoch_ms", "lat_ns"])
    return {"icy_app": icy_app, "icy_disks": icy_disks(data_dir), "icy_t0_ms": t_icy,
            "icy_io": pd.concat([fiolog.read_lat_log(lp) for lp in icy_logs], ignore_index=True),
            "icy_write_cache": icy_write_cache(data_dir),
            "ptero_device": device,
            "ptero_app": ptero_app, "ptero_io": io, "ptero_t0_ms": t0,
            "ptero_hm_t0_ms": t0 // 1000 * 1000,
            "fio_version": fiolog.read_fio_json(fdir / f"{PTERO}.json").get("fio version"),
            "params": params_of(data_dir)}


def per_disk_rates(d: dict, p: dict, col_s: float = 1.0) -> pd.DataFrame:
    """MB/s of each disk per `col_s` seconds since the pterodactyl began: the rainbow."""
    io = d["ptero_io"]
    t = ((io.time_ms - d["ptero_t0_ms"]) // int(col_s * 1000)).astype(int)
    tab = io.assign(col=t).groupby(["col", "disk"]).bs.sum().unstack(fill_value=0) / col_s / 1e6
    tab.index = tab.index * col_s
    return tab


def summary(d: dict) -> dict:
    """The chapter's numbers (run.json metrics), with the parameters the run was made with (d["params"])."""
    p = d["params"]
    m = icy_stats(d["icy_disks"], p)
    m.update(icy_host(d["icy_io"], d["icy_disks"], p))
    cache = d["icy_write_cache"]
    m["icy_write_cache"] = None if cache is None else ["on" if c else "off" for c in cache]
    m.update(ptero_stats(ptero_phases(d, p), p))
    dv = device_phases(d, p)
    m["device_p50_first_ms"] = round(float(dv.device_p50_ms.iloc[0]), 3)
    m["device_p50_last_ms"] = round(float(dv.device_p50_ms.iloc[-1]), 3)
    m["device_p50_ratio"] = round(m["device_p50_last_ms"] / m["device_p50_first_ms"], 3)
    return m
