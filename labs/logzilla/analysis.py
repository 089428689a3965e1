"""The logzilla lab's reading of a run: fio's heat map across the change, the emulated disks' own logs,
zpool iostat, the strace probe and the two untars read back (load), and the numbers the chapter and its
checks use (summary). Reads a live run or the reference alike; summary needs nothing but what load read,
the run's preset included (from its run.json)."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis import heatmap
from perflab.analysis.intervals import covered_s
from perflab.fio import logs as fiolog
from perflab.infra import zfs
from perflab.run.record import RUN_JSON, RunRecord

from .experiment import JOB
from .probes import load_untar, trace_stats, trace_summary, untar_stats

#: 2009 figures: Brendan Gregg's Logzilla screenshots post (2009): one client thread of NFS
#: synchronous writes to a 7410 with 46 disks, then with 2 Logzillas.
FIGURES_2009 = {"iops_before": 143, "iops_after": 1708, "lat_before": "2-9 ms (up to 8.93 ms)",
                "lat_after": "229-305 us", "iops_ratio": 12, "lat_ratio": ">20"}


def preset_of(data_dir: Path) -> str | None:
    """The preset the run was made with, as its run.json keeps it (None for a directory without one)."""
    return RunRecord(data_dir).read().get("preset") if (Path(data_dir) / RUN_JSON).is_file() else None


def load(data_dir: Path) -> dict:
    """Everything the chapter reads of a run directory: fio's heat map (app) and the data disks' (device),
    each disk's per-I/O log, zpool iostat, the events, the untars, the strace probe, and the preset."""
    data_dir = Path(data_dir)
    fdir, ddir = data_dir / "fio", data_dir / "device"
    result = fiolog.read_fio_json(fdir / f"{JOB}.json")
    events = json.loads((data_dir / "events.json").read_text())
    hist = bool(sorted(fdir.glob(f"{JOB}_clat_hist.*.log*")))
    logs = sorted(fdir.glob(f"{JOB}_clat_hist.*.log*" if hist else f"{JOB}_clat.*.log*"))
    t0 = fiolog.first_time_ms(logs, hist) // 1000 * 1000   # whole seconds: columns line up
    app = (heatmap.from_hist_log if hist else heatmap.from_lat_log)(logs, t0_ms=t0)
    mount_ms = int((ddir / "mount.epoch_ms").read_text())
    dev_logs = sorted(p for p in ddir.glob("d*.log*") if ".wait." not in p.name)
    device = heatmap.from_lat_log(dev_logs, t0_ms=t0 - mount_ms, ddir=None)
    n = app.n_columns
    if device.n_columns > n:   # fio's span only: what came after (the untar, the strace probe) is counted in a note
        later = int(device.counts[n:].sum() + device.overflow[n:].sum())
        device = replace(device, counts=device.counts[:n], overflow=device.overflow[:n],
                         notes=list(device.notes) + [f"{later:,} I/Os after fio's last second not shown"])
    per_disk = {p.name.split(".")[0]: fiolog.read_lat_log(p) for p in dev_logs}
    start_file = ddir / "iostat.start"
    text = (ddir / "iostat.txt").read_text()
    # a mystery run seals the file whole (it names the log device): then there is no iostat
    iostat = pd.DataFrame() if text.startswith("sealed1:") else \
        zfs.parse_iostat(text, int(start_file.read_text()) if start_file.exists() else None)
    if "t_epoch_ms" in iostat:
        iostat["t_s"] = (iostat["t_epoch_ms"] - t0) / 1000
    raw = {"text": "" if text.startswith("sealed1:") else text,
           "start_ms": int(start_file.read_text()) if start_file.exists() else None}
    latency_tools = data_dir / "zpool-iostat-latency.json"
    return {"app": app, "device": device, "per_disk": per_disk, "iostat": iostat, "t0_ms": t0,
            "iostat_raw": raw,
            "zpool_latency_tools": json.loads(latency_tools.read_text()) if latency_tools.is_file() else None,
            "t_add_s": (events["change_ms"] - t0) / 1000, "events": events,
            "jobs": fiolog.job_table(result), "capture": "hist" if hist else "perio",
            "fio_version": result.get("fio version"), "mount_ms": mount_ms, "untar": load_untar(data_dir),
            "trace": trace_summary(data_dir), "preset": preset_of(data_dir)}


def iostat_block(d: dict, t_s: float) -> str | None:
    """zpool iostat -v's block for the second that ends at or after `t_s` (seconds from t0), as it
    printed it (its first block is the average since the import; block k ends k seconds after
    iostat.start). None where the run has no such block."""
    raw = d["iostat_raw"]
    if not raw["text"] or raw["start_ms"] is None:
        return None
    blocks = [b.strip("\n") for b in raw["text"].split("\n\n") if b.strip()]
    k = int(np.ceil((d["t0_ms"] + 1000 * t_s - raw["start_ms"]) / 1000))
    return blocks[k] if 1 <= k < len(blocks) else None


def windows(d: dict) -> dict[str, tuple[float, float]]:
    """The two steady phases in seconds from t0, leaving out the second of the change and the
    first and last seconds of the run (fio's start-up and its partial last second)."""
    end = d["app"].n_columns * d["app"].col_s
    t_add = d["t_add_s"]
    return {"before": (1.0, np.floor(t_add)), "after": (np.ceil(t_add) + 1.0, end - 1.0)}


def phase_stats(hm: heatmap.HeatMap, t_from: float, t_to: float) -> dict:
    n = int(hm.counts[int(t_from / hm.col_s):int(t_to / hm.col_s)].sum())
    dur = t_to - t_from
    return {"ios": n, "iops": n / dur if dur > 0 else float("nan"),
            "p50_us": hm.percentile(50, t_from, t_to) / 1000, "p99_us": hm.percentile(99, t_from, t_to) / 1000}


def picket_fence(hm: heatmap.HeatMap, t_from: float, t_to: float, factor: float = 100.0) -> dict:
    """Periodic stalls in a phase: seconds in which some I/O took `factor` x the phase's median or
    more (100x by default: well above the ordinary scatter). Returns how many such seconds and runs
    of them, their typical spacing and how regular it is (`spacing_cv`, the coefficient of
    variation of the gaps), and the share of I/O affected."""
    p50 = hm.percentile(50, t_from, t_to)
    c0, c1 = int(t_from / hm.col_s), int(t_to / hm.col_s)
    slow_b = hm.edges_ns[:-1] >= factor * p50
    slow = hm.counts[c0:c1][:, slow_b].sum(axis=1) + hm.overflow[c0:c1]
    total = hm.counts[c0:c1].sum()
    cols = np.flatnonzero(slow > 0)
    starts = cols[np.r_[True, np.diff(cols) > 1]] if len(cols) else cols   # runs of stalled seconds
    gaps = np.diff(starts) * hm.col_s
    rows = hm.counts[c0:c1]
    top = [float(hm.edges_ns[np.flatnonzero(r)[-1] + 1]) for r in rows if r.any()]   # slowest I/O's bucket top
    calm = [t for t, st in zip(top, slow[[r.any() for r in rows]]) if st == 0]
    slow_lo = hm.edges_ns[:-1][slow_b]
    stalled = [slow_lo[np.flatnonzero(r[slow_b])[0]] for r, st in zip(rows, slow) if st > 0 and r[slow_b].any()]
    period = float(np.median(gaps)) if len(starts) >= 3 else float("nan")
    cv = float(np.std(gaps) / np.mean(gaps)) if len(starts) >= 3 else float("nan")
    return {"stall_seconds": int(len(cols)), "stall_events": int(len(starts)),
            "period_s": period, "spacing_cv": cv, "fraction": float(slow.sum() / total) if total else float("nan"),
            "threshold_us": factor * p50 / 1000, "times_s": ((starts + c0) * hm.col_s).tolist(),
            # the slowest write of a second without a stall (upper bucket edge), and the fastest of the
            # slow writes in the stalled seconds (lower bucket edge), in us
            "calm_max_us": max(calm) / 1000 if calm else float("nan"),
            "stall_min_us": float(min(stalled)) / 1000 if stalled else float("nan")}


def vdev_ops(d: dict) -> pd.DataFrame:
    """Write operations per second by vdev kind (data disks, log device) for each phase."""
    io = d["iostat"]
    if io.empty:
        return pd.DataFrame()
    rows = []
    for name, (a, b) in windows(d).items():
        sel = io[(io.t_s > a + 1) & (io.t_s <= b - 1)]   # iostat's seconds end at t_s: trim the edges
        for kind in ("disk", "log"):
            k = sel[sel.kind == kind]
            per_s = k.groupby("t_s").write_ops.sum()
            rows.append({"phase": name, "vdev": "data disks" if kind == "disk" else "log device",
                         "write_ops_per_s": float(per_s.mean()) if len(per_s) else 0.0})
    return pd.DataFrame(rows)


def device_stats(d: dict) -> dict:
    """From the emulator's per-I/O logs, per phase: write and flush service times (p50, us), flushes
    per fio write; from zpool iostat: data-disk bytes per write op and the share of quiet seconds
    (data-disk write ops under a tenth of the phase's mean)."""
    df = pd.concat(d["per_disk"].values())
    t = (df.time_ms + d["mount_ms"] - d["t0_ms"]) / 1000
    io = d["iostat"]
    out = {}
    for name, (a, b) in windows(d).items():
        x = df[(t >= a) & (t < b)]
        writes, flushes = x[x.ddir == 1], x[x.ddir == 3]
        fio_ios = phase_stats(d["app"], a, b)["ios"]
        out[f"dev_write_p50_us_{name}"] = round(float(writes.lat_ns.median()) / 1000, 1) if len(writes) else None
        out[f"dev_flush_p50_us_{name}"] = round(float(flushes.lat_ns.median()) / 1000, 1) if len(flushes) else None
        out[f"flushes_per_write_{name}"] = round(len(flushes) / fio_ios, 2) if fio_ios else None
        if io.empty:
            continue
        k = io[(io.t_s > a + 1) & (io.t_s <= b - 1) & (io.kind == "disk")].groupby("t_s")[["write_ops", "write_bw"]].sum()
        ops = k.write_ops.sum()
        out[f"disk_kib_per_write_{name}"] = round(float(k.write_bw.sum() / ops / 1024), 1) if ops else None
        out[f"disk_quiet_share_{name}"] = round(float((k.write_ops < 0.1 * k.write_ops.mean()).mean()), 3) if len(k) else None
    return out


def flush_serialisation(d: dict, p50_before_us: float, p50_after_us: float) -> dict:
    """How the "before" writes' cache flushes ran, from the emulator's per-I/O logs (each line: an I/O's
    completion and its service time): the share of the phase some disk was flushing, the flush time per
    fio write, and how much of the flushes' summed time overlapped another disk's flush (0: they ran one
    after another). ZFS sends a flush to every disk the commit wrote; zfs-fuse's file vdevs serve each
    with an fsync that returns before the next disk's is sent, so a write pays them one after another,
    where a real disk vdev's flushes run side by side. The last two numbers say what that does to the
    median: the "before" median with one flush's time in place of `flushes_per_write` flushes, and the
    median ratio it would give."""
    df = pd.concat(d["per_disk"].values())
    t_end = ((df.time_ms + d["mount_ms"] - d["t0_ms"]) / 1000).to_numpy()
    a, b = windows(d)["before"]
    sel = (df.ddir.to_numpy() == 3) & (t_end >= a) & (t_end < b)
    ends = t_end[sel]
    starts = np.maximum(ends - df.lat_ns.to_numpy()[sel] / 1e9, a)
    n = phase_stats(d["app"], a, b)["ios"]
    if not len(ends) or not n:
        return {"flush_busy_share_before": None, "flush_ms_per_write_before": None, "flush_overlap_before": None,
                "p50_before_one_flush_us": None, "p50_ratio_one_flush": None}
    busy, summed = covered_s(starts, ends), float((ends - starts).sum())
    per_write, flush_us = len(ends) / n, float(np.median(df.lat_ns.to_numpy()[sel])) / 1000
    one_flush = p50_before_us - max(0.0, per_write - 1) * flush_us
    return {"flush_busy_share_before": round(float(busy / (b - a)), 3),
            "flush_ms_per_write_before": round(float(1000 * busy / n), 2),
            "flush_overlap_before": round(float(1 - busy / summed), 4) if summed else None,
            "p50_before_one_flush_us": round(float(one_flush), 1),
            "p50_ratio_one_flush": round(float(one_flush / p50_after_us), 2)}


def top_bucket_share(app, a: float, b: float) -> dict:
    """The heat map's busiest latency bucket over [a, b) s: its edges (us) and its share of the I/Os."""
    cols = app.counts[int(a / app.col_s):int(b / app.col_s)].sum(axis=0)
    i = int(np.argmax(cols))
    return {"lo_us": float(app.edges_ns[i]) / 1000, "hi_us": float(app.edges_ns[i + 1]) / 1000,
            "share": float(cols[i] / cols.sum()) if cols.sum() else 0.0}


def detected_log(dev: dict, p50_after_us: float) -> str | None:
    """What the evidence says was added half-way, by the same run's own disks: "none" while the data
    disks still get at least half as many cache flushes per fio write as before (the intent log is
    still on them); else "disk" when a synchronous write after the change still takes at least half
    of one data-disk flush before it (the log commits wait on a disk's flush), "ssd" when less."""
    before, after, flush = (dev.get(k) for k in ("flushes_per_write_before", "flushes_per_write_after",
                                                 "dev_flush_p50_us_before"))
    if before is None or after is None or not flush:
        return None
    if after >= 0.5 * before:
        return "none"
    return "disk" if p50_after_us >= 0.5 * flush else "ssd"


def summary(d: dict) -> dict:
    """The headline numbers: each phase's rate and latency and their ratios, where the writes went (zpool
    iostat, the disks' own logs), the picket fence after the change, the log device the evidence points
    to, the untars (when the run made them), the strace probe, and the run's preset (its checks' bounds
    depend on it)."""
    w = windows(d)
    b = phase_stats(d["app"], *w["before"])
    a = phase_stats(d["app"], *w["after"])
    ops = vdev_ops(d)

    def ops_of(phase, vdev):
        r = ops[(ops.phase == phase) & (ops.vdev == vdev)] if len(ops) else ops
        return round(float(r.write_ops_per_s.iloc[0]), 1) if len(r) else None

    pf = picket_fence(d["app"], *w["after"])
    return {
        "iops_before": round(float(b["iops"]), 1), "iops_after": round(float(a["iops"]), 1),
        "iops_ratio": round(float(a["iops"] / b["iops"]), 2),
        "p50_before_us": round(b["p50_us"], 1), "p50_after_us": round(a["p50_us"], 1),
        "p50_ratio": round(b["p50_us"] / a["p50_us"], 2),
        "p99_before_us": round(b["p99_us"], 1), "p99_after_us": round(a["p99_us"], 1),
        "log_write_ops_per_s_after": ops_of("after", "log device"),
        "disk_write_ops_per_s_before": ops_of("before", "data disks"),
        "disk_write_ops_per_s_after": ops_of("after", "data disks"),
        "picket_stall_events": pf["stall_events"], "picket_period_s": pf["period_s"],
        "picket_spacing_cv": None if pf["spacing_cv"] != pf["spacing_cv"] else round(pf["spacing_cv"], 2),
        "picket_fraction": round(pf["fraction"], 5),
        "picket_calm_max_us": None if pf["calm_max_us"] != pf["calm_max_us"] else round(pf["calm_max_us"], 1),
        "picket_stall_min_us": None if pf["stall_min_us"] != pf["stall_min_us"] else round(pf["stall_min_us"], 1),
        "t_add_s": round(d["t_add_s"], 2),
        **(dev := device_stats(d)),
        "detected_log": detected_log(dev, a["p50_us"]),
        **flush_serialisation(d, b["p50_us"], a["p50_us"]),
        **{f"before_top_bucket_{k}": round(v, 3 if k == "share" else 1)
           for k, v in top_bucket_share(d["app"], *w["before"]).items()},
        **(untar_stats(d["untar"]) if d.get("untar") else {}),
        **trace_stats(d["trace"]),
        "preset": d["preset"],
    }
