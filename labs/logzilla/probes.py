"""The logzilla lab's two probes read back: the untars (each step of unpacking a tar of small files,
with and without the log device) and the strace probe (a short run of fio's job under strace)."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

import pandas as pd

from .experiment import PROBE_IOS, UNTARS


def load_untar(data_dir: Path) -> dict | None:
    """Each untar's summary and steps: {name: {"summary", "steps" (DataFrame t_ns, lat_ns, op)}}; None
    for a run without them."""
    udir = Path(data_dir) / "untar"
    if not all((udir / f"{n}.json").is_file() for n in UNTARS):
        return None
    out = {}
    for n in UNTARS:
        steps = pd.read_csv(udir / f"{n}.trace", sep=" ", comment="#", names=["t_ns", "lat_ns", "op"])
        out[n] = {"summary": json.loads((udir / f"{n}.json").read_text()), "steps": steps}
    return out


def untar_stats(u: dict) -> dict:
    """Seconds per untar and their ratio; each step's median (us); the share of the untar's time that
    its synchronous steps (create + commit) took."""
    out = {}
    for n in UNTARS:
        sm, st = u[n]["summary"], u[n]["steps"]
        key = n.replace("-", "_")
        out[f"untar_s_{key}"] = round(sm["seconds"], 2)
        out[f"untar_files_per_s_{key}"] = round(sm["files"] / sm["seconds"], 1)
        for op in ("create", "commit"):
            out[f"untar_{op}_p50_us_{key}"] = round(statistics.median(st.lat_ns[st.op == op]) / 1000, 1)
        out[f"untar_sync_share_{key}"] = round(float(st.lat_ns.sum()) / 1e9 / sm["seconds"], 3)
    out["untar_files"] = u["no-log"]["summary"]["files"]
    out["untar_bytes"] = u["no-log"]["summary"]["bytes"]
    out["untar_ratio"] = round(out["untar_s_no_log"] / out["untar_s_with_log"], 2)
    return out


def trace_summary(data_dir: Path) -> dict:
    """The lines of the strace probe that matter: the open of the data file and the call counts."""
    fdir = Path(data_dir) / "fio"
    opens = [ln.split(None, 1)[-1] for ln in (fdir / "strace-open.txt").read_text().splitlines()
             if "probe.dat" in ln and "openat" in ln]
    counts = {}
    for ln in (fdir / "strace-count.txt").read_text().splitlines():
        parts = ln.split()
        if len(parts) >= 5 and parts[-1].isidentifier() and parts[3].isdigit():
            counts[parts[-1]] = int(parts[3])
    return {"opens": opens, "calls": counts, "probe_ios": PROBE_IOS}


def trace_stats(tr: dict) -> dict:
    """The strace probe in numbers: whether the job's open of its file carried O_DSYNC, its pwrite64 calls
    (None if strace counted none), its fsync and fdatasync calls, and the writes it was asked for."""
    return {"trace_open_dsync": any("O_DSYNC" in o for o in tr["opens"]),
            "trace_pwrite64": tr["calls"].get("pwrite64"),
            "trace_flushes": tr["calls"].get("fsync", 0) + tr["calls"].get("fdatasync", 0),
            "trace_probe_ios": tr["probe_ios"]}
