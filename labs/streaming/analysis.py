"""The streaming lab's reading of a run: fio's results and 1 s bandwidth logs, every disk's per-I/O
log, the front end (payload over the lab's clock, fio's figure) beside the back end (bytes each disk
received), the headline numbers (summary), the tables the chapter shows, and the 2009 figures they are
set beside. Reads a live run or the reference alike."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import logs as fiolog
from perflab.infra import slowdisk

from .experiment import LAYOUTS, expected_amplification

#: 2009 figures: "1 Gbyte/sec NFS, streaming from disk" (Brendan Gregg, 9 January 2009), a 7410
#: writing 1 TB over NFS: mirrored 563 MB/s payload, 1.38 GB/s to disk; RAID-Z2 514 MB/s payload,
#: 720 MB/s to disk; streaming read 1 TB in 16:23 = 1.04 GB/s (1.07 GB/s average on the disks).
FIGURES_2009 = {"mirror_front_mbps": 563, "mirror_disk_mbps": 1380, "raidz2_front_mbps": 514,
                "raidz2_disk_mbps": 720, "read_front_mbps": 1066, "read_disk_mbps": 1070}
FIGURES_2009["mirror_amp"] = FIGURES_2009["mirror_disk_mbps"] / FIGURES_2009["mirror_front_mbps"]
FIGURES_2009["raidz2_amp"] = FIGURES_2009["raidz2_disk_mbps"] / FIGURES_2009["raidz2_front_mbps"]


def predicted_front_mbps(back_mbps: float, layout: str, n_disks: int) -> float:
    """The payload rate the disks allow when they are the bottleneck: what they move, divided by
    the layout's amplification."""
    return back_mbps / expected_amplification(layout, n_disks)


def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    fdir, ddir = data_dir / "fio", data_dir / "device"
    events = json.loads((data_dir / "events.json").read_text())
    mount_ms = int((ddir / "mount.epoch_ms").read_text())
    dev = _read_disk_logs(ddir)
    dev["t_epoch_ms"] = dev.time_ms + mount_ms
    fio_res, bw, io_start = {}, {}, {}
    for lay in LAYOUTS:
        for kind in ("write", "read"):
            f = fdir / f"{lay}-{kind}.json"
            if f.exists():
                fio_res[(lay, kind)] = fiolog.read_fio_json(f)
                logs = sorted(fdir.glob(f"{lay}-{kind}_bw.*.log*"))
                bw[(lay, kind)] = _bw_series(logs)
                io_start[(lay, kind)] = _first_io_ms(fio_res[(lay, kind)], logs)
    return {"events": events, "device": dev, "fio": fio_res, "bw": bw, "io_start_ms": io_start,
            "n_disks": int(dev.disk.nunique()), "mount_ms": mount_ms}


def _read_disk_logs(ddir: Path) -> pd.DataFrame:
    """Every disk's per-I/O log (slowdisk.read_device_log), plain or gzipped as in a reference."""
    frames = []
    for pth in sorted(ddir.glob("d*.log*")):
        if ".wait." in pth.name:
            continue
        df = slowdisk.read_device_log(pth)
        df.insert(0, "disk", pth.name.split(".")[0])
        frames.append(df)
    return pd.concat(frames, ignore_index=True).sort_values("time_ms", kind="stable", ignore_index=True)


def _bw_series(paths) -> pd.Series:
    """fio's 1 s bandwidth logs (one per thread, epoch-stamped) summed per second: bytes/s."""
    if not paths:
        return pd.Series(dtype=float)
    parts = []
    for pth in paths:
        df = fiolog.read_lat_log(pth)   # same columns: time_ms, value (KiB/s), ddir, bs, offset
        parts.append(pd.Series(df.lat_ns.to_numpy() * 1024.0, index=(df.time_ms // 1000).to_numpy()))
    s = pd.concat(parts).groupby(level=0).sum()
    return s.sort_index()


def _first_io_ms(result: dict, paths) -> int | None:
    """When fio's clock started (epoch ms): its bandwidth logs' first stamp ends their first
    `log_avg_msec` interval, counted from the start of the jobs' I/O. None without logs."""
    job = (result.get("jobs") or [{}])[0]
    avg = {**result.get("global options", {}), **job.get("job options", {})}.get("log_avg_msec")
    if not paths or avg is None:
        return None
    return fiolog.first_time_ms(paths, hist=True, interval_ms=int(avg))


def backend(dev: pd.DataFrame, t0_ms: int, t1_ms: int, ddir: int) -> pd.DataFrame:
    """Per disk, in the window [t0, t1) (epoch ms): I/Os and bytes of one direction (0 read, 1
    write), and how busy the disk was (sum of service times / window)."""
    sel = dev[(dev.t_epoch_ms >= t0_ms) & (dev.t_epoch_ms < t1_ms) & (dev.ddir == ddir)]
    g = sel.groupby("disk")
    span_s = max((t1_ms - t0_ms) / 1000, 1e-9)
    out = pd.DataFrame({"ios": g.size(), "bytes": g.bs.sum(), "busy": g.lat_ns.sum() / 1e9 / span_s})
    disks = sorted(dev.disk.unique())
    return out.reindex(disks, fill_value=0)


def front(result: dict, ddir: str) -> dict:
    """fio's own figures for one direction, all threads: bytes moved, and the bandwidth fio
    reports (its bytes over the longest thread's runtime)."""
    jobs = result["jobs"]
    io_bytes = sum(j[ddir]["io_bytes"] for j in jobs)
    runtime_ms = max(j[ddir]["runtime"] for j in jobs)
    return {"bytes": io_bytes, "fio_bw": sum(j[ddir]["bw_bytes"] for j in jobs),
            "fio_runtime_s": runtime_ms / 1000, "fio_bw_total": io_bytes / (runtime_ms / 1000)}


def layout_stats(d: dict, lay: str) -> dict:
    ev = d["events"][lay]
    n = d["n_disks"]
    w = ev["write"]
    fw = front(d["fio"][(lay, "write")], "write")
    elapsed = (w["end_ms"] - w["start_ms"]) / 1000
    during = backend(d["device"], w["start_ms"], w["end_ms"], 1)
    synced = backend(d["device"], w["start_ms"], ev["write_synced_ms"], 1)
    back_mbps = during.bytes.sum() / elapsed / 1e6
    io_start = d.get("io_start_ms", {}).get((lay, "write"))
    startup = None if io_start is None else (io_start - w["start_ms"]) / 1000
    st = {
        "write_bytes": fw["bytes"], "write_elapsed_s": elapsed,
        "write_mbps": fw["bytes"] / elapsed / 1e6,             # bytes / elapsed: the sanity check
        "write_fio_mbps": fw["fio_bw_total"] / 1e6,            # what fio reports
        # the lab's clock before fio's started (docker exec, fio's start-up), and after it stopped
        "write_startup_s": startup,
        "write_after_fio_s": None if startup is None else elapsed - startup - fw["fio_runtime_s"],
        "write_back_bytes": int(synced.bytes.sum()),
        "write_amp": synced.bytes.sum() / fw["bytes"],
        "write_amp_expected": expected_amplification(lay, n),
        "write_back_mbps": back_mbps,
        "write_back_mbps_per_disk": back_mbps / n,
        "write_busy": float(during.busy.mean()),
        "write_predicted_mbps": predicted_front_mbps(back_mbps, lay, n),
        "write_disk_kib": float(during.bytes.sum() / max(during.ios.sum(), 1) / 1024),
        "per_disk_write_bytes": during.bytes.to_dict(),
    }
    if (lay, "read") in d["fio"]:
        r = ev["read"]
        fr = front(d["fio"][(lay, "read")], "read")
        el = (r["end_ms"] - r["start_ms"]) / 1000
        rb = backend(d["device"], r["start_ms"], r["end_ms"], 0)
        st.update({"read_bytes": fr["bytes"], "read_elapsed_s": el, "read_mbps": fr["bytes"] / el / 1e6,
                   "read_fio_mbps": fr["fio_bw_total"] / 1e6, "read_back_bytes": int(rb.bytes.sum()),
                   "read_amp": rb.bytes.sum() / fr["bytes"], "read_back_mbps": rb.bytes.sum() / el / 1e6,
                   "read_busy": float(rb.busy.mean())})
    return st


def summary(d: dict) -> dict:
    out = {"n_disks": d["n_disks"]}
    st = {lay: layout_stats(d, lay) for lay in LAYOUTS}
    for lay, x in st.items():
        for k, v in x.items():
            if isinstance(v, dict):
                continue
            out[f"{lay}_{k}"] = round(float(v), 4) if isinstance(v, (float, np.floating)) else v
    out["raidz2_over_mirror_write"] = round(st["raidz2"]["write_mbps"] / st["mirror"]["write_mbps"], 3)
    out["raidz2_over_mirror_expected"] = round(2.0 / expected_amplification("raidz2", d["n_disks"]), 3)
    out["back_rate_ratio"] = round(st["raidz2"]["write_back_mbps"] / st["mirror"]["write_back_mbps"], 3)
    for lay, x in st.items():
        out[f"{lay}_meta_share"] = round(x["write_amp"] / x["write_amp_expected"] - 1, 4)
    writes = d["device"][d["device"].ddir == 1]
    out["disk_write_min_kib"] = round(float(writes.bs.min()) / 1024, 1) if len(writes) else None
    out["disk_busy_ratio"] = round(st["raidz2"]["write_busy"] / st["mirror"]["write_busy"], 3)
    if "read_mbps" in st["mirror"]:
        m = st["mirror"]
        out["mirror_read_over_write"] = round(m["read_mbps"] / m["write_mbps"], 3)
        # Payload rate = disks' rate / amplification, and a disk's rate follows how busy it is: the
        # read/write ratio the busy fractions and the measured amplifications predict.
        out["mirror_read_over_write_model"] = round(m["read_busy"] / m["write_busy"] * m["write_amp"] / m["read_amp"], 3)
    return out


def table(d: dict) -> pd.DataFrame:
    """One row per layout: the front end, the back end, their ratio, and the prediction."""
    rows = []
    for lay in LAYOUTS:
        x = layout_stats(d, lay)
        rows.append({"layout": d["events"][lay].get("layout", lay),
                     "payload (MB)": x["write_bytes"] / 1e6, "elapsed (s)": x["write_elapsed_s"],
                     "bytes/elapsed (MB/s)": x["write_mbps"], "fio reports (MB/s)": x["write_fio_mbps"],
                     "to disks (MB)": x["write_back_bytes"] / 1e6,
                     "disk/payload": x["write_amp"], "ideal": x["write_amp_expected"],
                     "disks' rate (MB/s)": x["write_back_mbps"], "disk busy": x["write_busy"],
                     "predicted payload (MB/s)": x["write_predicted_mbps"]})
    return pd.DataFrame(rows).set_index("layout")


def timeline(d: dict) -> pd.DataFrame:
    """Per second of each write and read: fio's payload rate and the disks' rate (from the device
    logs), in MB/s, with t in seconds from the start of that step."""
    rows = []
    dev = d["device"]
    for lay in LAYOUTS:
        for kind, ddir in (("write", 1), ("read", 0)):
            w = d["events"][lay].get(kind)
            if not w or (lay, kind) not in d["bw"]:
                continue
            sel = dev[(dev.t_epoch_ms >= w["start_ms"]) & (dev.t_epoch_ms < w["end_ms"]) & (dev.ddir == ddir)]
            back = sel.groupby((sel.t_epoch_ms - w["start_ms"]) // 1000).bs.sum()
            fb = d["bw"][(lay, kind)].copy()
            fb.index = fb.index - w["start_ms"] // 1000
            for t in range(int((w["end_ms"] - w["start_ms"]) // 1000)):
                rows.append({"layout": lay, "step": kind, "t_s": t, "payload_mbps": float(fb.get(t, 0)) / 1e6,
                             "disks_mbps": float(back.get(t, 0)) / 1e6})
    return pd.DataFrame(rows)
