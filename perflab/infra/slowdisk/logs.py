"""slowdisk's per-I/O device logs (fio's per-I/O log format: one file a disk, and a `.wait.log`
with the queue wait when the mount writes one), read into pandas."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from perflab.fio.logs import read_lat_log


def read_device_log(path: str | os.PathLike) -> pd.DataFrame:
    """One disk's per-I/O log (``LOGDIR/<disk>.log``) as :func:`perflab.fio.logs.read_lat_log` reads it.

    Columns ``time_ms`` (ms since the mount, at completion), ``lat_ns`` (the device's
    service time), ``ddir`` (0 read, 1 write, 3 flush), ``bs``, ``offset`` (both 0 for a
    flush); ``df.attrs["disk"]`` is the disk's name.  A ``<disk>.wait.log`` has the same
    lines with the queue wait in ``lat_ns``.
    """
    df = read_lat_log(path)
    name = Path(path).name.removesuffix(".gz")
    for suffix in (".wait.log", ".log"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    df.attrs["disk"] = name
    return df


def read_device_logs(log_dir: str | os.PathLike) -> pd.DataFrame:
    """Every disk's log in ``log_dir`` as one table, with a ``disk`` column, and ``wait_ns``
    when the mount wrote wait logs (``log_wait``); sorted by completion time. A log may be
    gzipped (``<disk>.log.gz``, as a recorded reference keeps it)."""
    log_dir = Path(log_dir)
    frames = []
    for p in sorted([*log_dir.glob("*.log"), *log_dir.glob("*.log.gz")]):
        if p.name.removesuffix(".gz").endswith(".wait.log"):
            continue
        df = read_device_log(p)
        stem = p.name.removesuffix(".gz")[: -len(".log")]
        w = next((c for c in (p.with_name(stem + ".wait.log"), p.with_name(stem + ".wait.log.gz")) if c.exists()), None)
        if w is not None:
            wait = read_lat_log(w)
            n = min(len(df), len(wait))          # a killed run may have flushed one more
            df = df.iloc[:n].copy()
            df["wait_ns"] = wait["lat_ns"].to_numpy()[:n]
        df.insert(0, "disk", df.attrs["disk"])
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["disk", "time_ms", "lat_ns", "ddir", "bs", "offset"])
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values("time_ms", kind="stable", ignore_index=True)


def read_mount_logs(log_dir: str | os.PathLike) -> pd.DataFrame:
    """:func:`read_device_logs` of one mount's log directory with ``time_ms`` as epoch ms at
    completion (the mount's ``mount.epoch_ms`` added: 0 without one); an empty table when the
    directory does not exist (a device the run never added)."""
    log_dir = Path(log_dir)
    if not log_dir.is_dir():
        return pd.DataFrame(columns=["disk", "time_ms", "lat_ns", "ddir", "bs", "offset"])
    df = read_device_logs(log_dir)
    f = log_dir / "mount.epoch_ms"
    df["time_ms"] = df["time_ms"] + (int(f.read_text()) if f.is_file() else 0)
    return df
