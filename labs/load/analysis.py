"""The load lab's numbers, from a run directory: each step's throughput, latency and concurrency from
fio's per-I/O logs, the disks' busy time and queues from slowdisk's logs, and the ZIL's commits from
the log device's flushes."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis.intervals import covered_s
from perflab.fio import logs as fiolog
from perflab.infra import iostat, slowdisk

from .experiment import CLIENTS_JOB, SYNC_JOB, SYNC_RUNS

#: each step's first and last tenth are left out: the steady state between the jobs' start and end
TRIM = 0.1


def _step_log(fdir: Path, name: str) -> pd.DataFrame:
    paths = sorted(fdir.glob(f"{name}_clat.*.log*"))
    if not paths:
        return pd.DataFrame(columns=["time_ms", "lat_ns"])
    return pd.concat([fiolog.read_lat_log(p)[["time_ms", "lat_ns"]] for p in paths], ignore_index=True)


def _mount_ms(d: Path) -> int:
    f = d / "mount.epoch_ms"
    return int(f.read_text()) if f.is_file() else 0


def _device(d: Path) -> pd.DataFrame:
    """A slowdisk mount's per-I/O logs, times as epoch ms at completion."""
    if not d.is_dir():
        return pd.DataFrame(columns=["disk", "time_ms", "lat_ns", "ddir"])
    df = slowdisk.read_device_logs(d)
    df["time_ms"] = df["time_ms"] + _mount_ms(d)
    return df


def load(data_dir) -> dict:
    """Every step's per-I/O log (fio), the disks' logs, the events and fio's version."""
    data_dir = Path(data_dir)
    fdir, ddir = data_dir / "fio", data_dir / "device"
    ev = json.loads((data_dir / "events.json").read_text())
    result = fiolog.read_fio_json(fdir / f"{CLIENTS_JOB}.json")
    out = {"events": ev, "fio_version": result.get("fio version"),
           "clients": {n: _step_log(fdir, f"c{n}") for n in ev["clients"]},
           "disks": _device(ddir / "disks"), "sync": {}}
    for run in SYNC_RUNS:
        if (fdir / f"{SYNC_JOB}-{run}.json").is_file():
            out["sync"][run] = {n: _step_log(fdir, f"{run}-s{n}") for n in ev["sync_threads"]}
    out["pool"] = _device(ddir / "pool")
    out["slog"] = _device(ddir / "pool" / "slog")
    cpu = ddir / "iostat.txt"
    out["cpu"] = iostat.read_cpu(cpu) if cpu.is_file() else pd.DataFrame(columns=["t", "busy"])
    return out


def cpu_busy(cpu: pd.DataFrame, window: tuple[float, float]) -> float | None:
    """The host's CPUs' mean busy share (0-1) over iostat's whole seconds inside a window (epoch ms)."""
    a, b = window
    sel = cpu[(cpu.t > a / 1000 + 1) & (cpu.t <= b / 1000)] if len(cpu) else cpu
    return float(sel.busy.mean()) / 100 if len(sel) else None


def step_stats(lat: pd.DataFrame, n: int, think_ms: float) -> dict:
    """One step's steady state (its middle, TRIM left out at each end): throughput (completions a
    second), mean and tail latency, and Little's law: the concurrency that throughput and latency
    imply, X x (R + Z), beside the N clients that were there. The window is also returned (epoch ms)."""
    end = lat["time_ms"].to_numpy(np.float64)
    lat_ms = lat["lat_ns"].to_numpy(np.float64) / 1e6
    start = end - lat_ms
    a0, b0 = float(start.min()), float(end.max())
    a, b = a0 + TRIM * (b0 - a0), b0 - TRIM * (b0 - a0)
    sel = (end > a) & (end <= b)
    r = lat_ms[sel]
    x = sel.sum() / ((b - a) / 1000)
    implied = x * (r.mean() + think_ms) / 1000
    return {"n": n, "ios": int(sel.sum()), "window": (a, b), "iops": float(x), "mean_ms": float(r.mean()),
            "p50_ms": float(np.percentile(r, 50)), "p99_ms": float(np.percentile(r, 99)),
            "p999_ms": float(np.percentile(r, 99.9)), "implied_n": float(implied), "little": float(implied / n)}


def disk_stats(dev: pd.DataFrame, window: tuple[float, float]) -> dict:
    """What iostat -x would say of the disks in a window, from slowdisk's logs: each disk's share of
    the time busy serving (%util), the mean number of I/Os at it, waiting or served (aqu-sz), and the
    mean service time and queue wait."""
    a, b = window
    t = (b - a) / 1000
    sel = dev[(dev.time_ms > a) & (dev.time_ms <= b) & (dev.ddir == 0)]
    svc = sel.lat_ns / 1e9
    wait = sel.wait_ns / 1e9 if "wait_ns" in sel else 0 * svc
    per = pd.DataFrame({"disk": sel.disk, "svc": svc, "wait": wait}).groupby("disk")
    util = per.svc.sum() / t
    aqu = (per.svc.sum() + per.wait.sum()) / t
    return {"util_mean": float(util.mean()) if len(util) else 0.0, "util_min": float(util.min()) if len(util) else 0.0,
            "aqu_mean": float(aqu.mean()) if len(aqu) else 0.0, "svc_ms": float(svc.mean() * 1000) if len(svc) else 0.0,
            "wait_ms": float(wait.mean() * 1000) if len(svc) else 0.0, "reads": int(len(sel))}


def clients_table(d: dict) -> pd.DataFrame:
    ev = d["events"]
    rows = []
    for n, lat in d["clients"].items():
        st = step_stats(lat, n, ev["think_ms"])
        st.update({f"disk_{k}": v for k, v in disk_stats(d["disks"], st["window"]).items()})
        rows.append(st)
    return pd.DataFrame(rows).set_index("n")


def bounds(ev: dict, n) -> tuple[np.ndarray, np.ndarray]:
    """The asymptotes of a closed loop of n clients on the model's disks: throughput at most
    min(n / (S + Z), disks / S), mean latency at least max(S, n S / disks - Z)."""
    n = np.asarray(n, dtype=float)
    s, z, k = ev["service_ms_model"], ev["think_ms"], ev["disks"]
    return np.minimum(n / (s + z), k / s) * 1000, np.maximum(s, n * s / k - z)


def commits(dev: pd.DataFrame, window: tuple[float, float]) -> int:
    """Cache flushes the log device received in a window: one a ZIL commit."""
    a, b = window
    return int(((dev.time_ms > a) & (dev.time_ms <= b) & (dev.ddir == 3)).sum()) if len(dev) else 0


def log_bytes(dev: pd.DataFrame, window: tuple[float, float]) -> int:
    """Bytes the log device wrote in a window."""
    a, b = window
    return int(dev[(dev.time_ms > a) & (dev.time_ms <= b) & (dev.ddir == 1)].bs.sum()) if len(dev) else 0


def busy_share(dev: pd.DataFrame, window: tuple[float, float]) -> float:
    """The share of a window a device spent serving (its log's service times: what iostat's %util says)."""
    a, b = window
    sel = dev[(dev.time_ms > a) & (dev.time_ms <= b)] if len(dev) else dev
    return float(sel.lat_ns.sum() / 1e6 / (b - a)) if len(sel) else 0.0


def flush_overlap(dev: pd.DataFrame, window: tuple[float, float]) -> float | None:
    """How much of the pool disks' summed flush time overlapped another disk's flush (0: the flushes ran
    one after another, as zfs-fuse sends them; ZFS on real disks sends a commit's flushes side by side)."""
    a, b = window
    sel = dev[(dev.time_ms > a) & (dev.time_ms <= b) & (dev.ddir == 3)] if len(dev) else dev
    if not len(sel):
        return None
    ends = sel.time_ms.to_numpy(np.float64)
    starts = ends - sel.lat_ns.to_numpy(np.float64) / 1e6
    summed = float((ends - starts).sum())
    return 1 - covered_s(starts, ends) / summed if summed else None


def pool_flushes(dev: pd.DataFrame, window: tuple[float, float]) -> float:
    """Cache flushes per pool disk in a window (the mean over the disks)."""
    a, b = window
    sel = dev[(dev.time_ms > a) & (dev.time_ms <= b) & (dev.ddir == 3)]
    return float(sel.groupby("disk").size().mean()) if len(sel) else 0.0


def sync_table(d: dict) -> pd.DataFrame:
    rows = []
    for run, steps in d["sync"].items():
        for n, lat in steps.items():
            st = step_stats(lat, n, 0.0)
            w = st["window"]
            c = commits(d["slog"], w) if run == "slog" else None
            r = lat["lat_ns"].to_numpy(np.float64)
            st["under_1210us"] = float((r[(lat.time_ms > w[0]) & (lat.time_ms <= w[1])] < 1.21e6).mean())
            fl = pool_flushes(d["pool"], st["window"])
            t = (st["window"][1] - st["window"][0]) / 1000
            st.update({"run": run, "log_commits_per_s": c / t if c is not None else None,
                       # the ZIL copies each 8 KiB write into its log record: the log device writes at least
                       # fio's bytes when it takes every commit
                       "log_bytes_share": log_bytes(d["slog"], w) / (st["ios"] * d["events"]["sync_bs"])
                       if c is not None else None,
                       "log_busy": busy_share(d["slog"], w) if c is not None else None,
                       "flush_overlap": flush_overlap(d["pool"], w) if run == "nolog" else None,
                       "writes_per_commit": st["ios"] / c if c else None,
                       "pool_flushes_per_s": fl / t, "writes_per_pool_flush": st["ios"] / fl if fl else None,
                       "cpu_busy": cpu_busy(d["cpu"], st["window"])})
            rows.append(st)
    return pd.DataFrame(rows)


def measured_knee(tab: pd.DataFrame) -> float:
    """Where the two straight lines the sweep draws meet: one client's throughput times N, and the
    most the sweep got (its plateau)."""
    return float(tab.iops.max() / tab.iops.iloc[0])


def summary(d: dict) -> dict:
    ev = d["events"]
    tab = clients_table(d)
    ns = list(tab.index)
    top, knee_model = ns[-1], ev["knee_model"]
    cap = ev["disks"] / ev["service_ms_model"] * 1000
    below = [n for n in ns[1:] if n <= knee_model / 2]
    half = max(n for n in ns if n <= top / 2)
    near_knee = min(ns, key=lambda n: abs(n - knee_model))
    _, r_bound = bounds(ev, [top])
    m = {
        "fio_version": d["fio_version"], "disks": ev["disks"], "think_ms": ev["think_ms"],
        "service_ms_model": round(ev["service_ms_model"], 3), "knee_model": round(knee_model, 2),
        "capacity_iops_model": round(cap, 1), "clients_top": top,
        "iops_1": round(tab.iops.iloc[0], 1), "iops_top": round(tab.iops.loc[top], 1),
        "mean_ms_1": round(tab.mean_ms.iloc[0], 2), "mean_ms_top": round(tab.mean_ms.loc[top], 2),
        "p99_ms_1": round(tab.p99_ms.iloc[0], 2), "p99_ms_top": round(tab.p99_ms.loc[top], 2),
        "p999_ms_top": round(tab.p999_ms.loc[top], 2),
        "little_worst": round(float((tab.little - 1).abs().max()), 4),
        "little_worst_n": int((tab.little - 1).abs().idxmax()),
        "linear_worst": round(float(min(tab.iops.loc[n] / (n * tab.iops.iloc[0]) for n in below)), 3) if below else None,
        "flat_ratio": round(float(tab.iops.loc[top] / tab.iops.loc[half]), 3), "flat_from": half,
        "capacity_share": round(float(tab.iops.loc[top] / cap), 3),
        "knee_measured": round(measured_knee(tab), 2),
        "knee_ratio": round(measured_knee(tab) / knee_model, 3),
        "mean_ratio_top": round(float(tab.mean_ms.loc[top] / tab.mean_ms.iloc[0]), 2),
        "mean_ratio_bound": round(float(r_bound[0] / ev["service_ms_model"]), 2),
        "mean_ms_bound_top": round(float(r_bound[0]), 2),
        "mean_vs_bound_top": round(float(tab.mean_ms.loc[top] / r_bound[0]), 3),
        "p99_ratio_top": round(float(tab.p99_ms.loc[top] / tab.p99_ms.iloc[0]), 2),
        "util_1": round(tab.disk_util_mean.iloc[0], 3), "util_knee": round(tab.disk_util_mean.loc[near_knee], 3),
        "util_top": round(tab.disk_util_mean.loc[top], 3), "clients_near_knee": near_knee,
        "mean_ratio_past_util": round(float(tab.mean_ms.loc[top] / tab.mean_ms.loc[near_knee]), 2),
        "aqu_top": round(tab.disk_aqu_mean.loc[top], 2), "svc_ms_measured": round(float(tab.disk_svc_ms.mean()), 3),
    }
    if d["sync"]:
        st = sync_table(d)
        no, sl = st[st.run == "nolog"].set_index("n"), st[st.run == "slog"].set_index("n")
        t1, tt = no.index[0], no.index[-1]
        m.update({
            "sync_threads_top": int(tt),
            "sync_iops_nolog_1": round(no.iops.loc[t1], 1), "sync_iops_nolog_top": round(no.iops.loc[tt], 1),
            "sync_iops_slog_1": round(sl.iops.loc[t1], 1), "sync_iops_slog_top": round(sl.iops.loc[tt], 1),
            "sync_mean_ms_nolog_top": round(no.mean_ms.loc[tt], 3), "sync_mean_ms_slog_top": round(sl.mean_ms.loc[tt], 3),
            "sync_p99_ms_slog_top": round(sl.p99_ms.loc[tt], 3),
            "sync_slog_gain_min": round(float((sl.iops / no.iops).min()), 2),
            "sync_slog_gain_top": round(float(sl.iops.loc[tt] / no.iops.loc[tt]), 2),
            "sync_scale_nolog": round(float(no.iops.loc[tt] / no.iops.loc[t1]), 2),
            "sync_scale_slog": round(float(sl.iops.loc[tt] / sl.iops.loc[t1]), 2),
            "sync_little_worst": round(float((st.little - 1).abs().max()), 4),
            "sync_writes_per_commit_1": _r(sl.writes_per_commit.loc[t1]),
            "sync_writes_per_commit_top": _r(sl.writes_per_commit.loc[tt]),
            "sync_writes_per_flush_nolog_1": _r(no.writes_per_pool_flush.loc[t1]),
            "sync_writes_per_flush_nolog_top": _r(no.writes_per_pool_flush.loc[tt]),
            "sync_log_bytes_share_min": _r(sl.log_bytes_share.min(), 3),
            "sync_log_busy_top": _r(sl.log_busy.loc[tt], 3),
            "sync_under_1210us_slog_1": _r(sl.under_1210us.loc[t1], 3),
            "sync_under_1210us_slog_top": _r(sl.under_1210us.loc[tt], 3),
            "sync_mean_ms_slog_1": _r(sl.mean_ms.loc[t1], 3),
            "sync_p999_ms_slog_top": _r(sl.p999_ms.loc[tt], 1),
            "sync_flush_overlap_nolog_max": _r(no.flush_overlap.max(), 4),
            "sync_commits_per_s_1": _r(sl.log_commits_per_s.loc[t1], 1),
            "sync_commits_per_s_top": _r(sl.log_commits_per_s.loc[tt], 1),
            "sync_cpu_busy_slog_1": _r(sl.cpu_busy.loc[t1], 3), "sync_cpu_busy_slog_top": _r(sl.cpu_busy.loc[tt], 3),
            "sync_cpu_busy_nolog_top": _r(no.cpu_busy.loc[tt], 3),
        })
    return m


def _r(x, nd: int = 2):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else round(float(x), nd)
