"""The durability lab's reading of a run: each writer's acknowledged writes with whether the import
found them, the kill's time, the pool's state after the scrub, and the headline numbers (summary).
Reads a live run or the reference alike."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import logs as fiolog

from .experiment import BS, acked_logs


def _unrle(runs) -> np.ndarray:
    return np.concatenate([np.full(n, v, bool) for v, n in runs]) if runs else np.zeros(0, bool)


def load(data_dir: Path) -> dict:
    """Each writer's acknowledged writes from fio's per-I/O log (seconds since fio started, latency,
    offset, and whether the import found the block), the run's events, `zpool status -v` after the
    scrub and the answer to `zfs get sync`."""
    data_dir = Path(data_dir)
    fdir, zdir = data_dir / "fio", data_dir / "zfs"
    ev = json.loads((data_dir / "events.json").read_text())
    surv = json.loads((zdir / "survival.json").read_text())
    writes = {}
    for j, log in acked_logs(fdir).items():
        df = fiolog.read_lat_log(log)
        df = df.assign(t_s=(df.time_ms - ev["fio_started_ms"]) / 1000, lat_us=df.lat_ns / 1000,
                       survived=_unrle(surv[j]["survived_rle"]))
        writes[j] = df
    return {"writes": writes, "survival": surv, "events": ev,
            "status": (zdir / "zpool-status.txt").read_text(),
            "sync_property": (zdir / "sync-property.txt").read_text().strip()}


def per_second(d: dict) -> pd.DataFrame:
    """Acknowledged writes per second of the run, per writer, split into survived and lost."""
    rows = []
    for j, df in d["writes"].items():
        sec = np.floor(df.t_s).astype(int)
        for (s_, surv), n in df.groupby([sec, df.survived]).size().items():
            rows.append({"writer": j, "second": int(s_), "survived": bool(surv), "writes": int(n)})
    return pd.DataFrame(rows, columns=["writer", "second", "survived", "writes"])


def summary(d: dict) -> dict:
    """The headline numbers: when the kill came, per writer what was acknowledged, found and lost (and
    when), its median and 99th-percentile latency, whether the losses are the newest writes and the
    file ends where its survivors end; the scrub's verdict; the O_DSYNC writes issued after the last
    transaction group closed, and how many of them the import found."""
    ev = d["events"]
    kill_s = (ev["killed_ms"] - ev["fio_started_ms"]) / 1000
    out = {"kill_s": round(kill_s, 2), "fio_exit_code": ev.get("fio_exit_code"),
           "pool_errors_none": "No known data errors" in d["status"],
           "scrub_clean": bool(re.search(r"scrub completed .*with 0 errors", d["status"])),
           "sync_property_missing": "invalid property" in d["sync_property"].lower()
           or "bad property" in d["sync_property"].lower()}
    for j, df in d["writes"].items():
        ok, lost = df[df.survived], df[~df.survived]
        out.update({
            f"{j}_acknowledged": len(df), f"{j}_survived": len(ok), f"{j}_lost": len(lost),
            f"{j}_lost_share": round(len(lost) / len(df), 4) if len(df) else None,
            f"{j}_p50_us": round(float(df.lat_us.median()), 1), f"{j}_p99_us": round(float(df.lat_us.quantile(0.99)), 1),
            f"{j}_last_ack_s": round(float(df.t_s.max()), 3),
            f"{j}_last_survivor_s": round(float(ok.t_s.max()), 3) if len(ok) else None,
            f"{j}_first_lost_s": round(float(lost.t_s.min()), 3) if len(lost) else None,
            # the losses are the newest writes: every lost one acknowledged after every survivor
            f"{j}_lost_are_newest": bool(len(lost) == 0 or len(ok) == 0 or lost.index.min() > ok.index.max()),
            f"{j}_file_bytes": d["survival"][j]["file_bytes"],
            # the file ends where its survivors end: no block of a lost write half there
            f"{j}_file_is_survivors": d["survival"][j]["file_bytes"] == len(ok) * BS,
            # blocks the file holds past its survivors: an O_DSYNC write the log kept when the kill came,
            # before fio heard back, is there though fio never logged it (one at most: one write in flight)
            f"{j}_blocks_past_survivors": round((d["survival"][j]["file_bytes"] - len(ok) * BS) / BS, 3),
        })
        out[f"{j}_lost_window_s"] = round(kill_s - out[f"{j}_last_survivor_s"], 2) \
            if out[f"{j}_last_survivor_s"] is not None else round(kill_s, 2)
    out["latency_ratio"] = round(out["dsync_p50_us"] / out["async_p50_us"], 3)
    # O_DSYNC writes issued after the last transaction group that reached the disks had closed: only the
    # intent log, replayed at import, can have brought them back. The group closed somewhere between the
    # issue of the last ordinary write it kept and that of the first it lost; an O_DSYNC write issued in
    # between may be in it, so the bound is the first lost ordinary write's issue (completion - latency)
    aw, dw = d["writes"]["async"], d["writes"]["dsync"]
    lost_issued = (aw.t_s - aw.lat_us / 1e6)[~aw.survived]
    bound = float(lost_issued.min()) if len(lost_issued) else np.inf    # nothing lost: no group to be after
    after = dw.t_s - dw.lat_us / 1e6 > bound
    out["dsync_after_last_txg"] = int(after.sum())
    out["dsync_after_last_txg_survived"] = int((after & dw.survived).sum())
    return out
