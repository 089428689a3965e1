"""The ht lab's reading of a run: every measurement as a row, the per-configuration medians, the
hardware facts and page-cache evidence (load), and the chapter's numbers (summary)."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.config.params import fmt_size
from perflab.fio import logs as fiolog
from perflab.infra.perfstat import cpi_from_perf, parse_perf_csv

GiB = float(1 << 30)


def parse_proc_io(text: str) -> dict[str, int]:
    """/proc/<pid>/io: {rchar: bytes read() returned, syscr: read calls, read_bytes: fetched from storage, ...}."""
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(":")
        if v.strip().isdigit():
            out[k.strip()] = int(v)
    return out


def parse_fincore(text: str) -> dict[str, dict]:
    """`fincore -b -n -o RES,SIZE,FILE` lines: {file: {"res": bytes cached, "size": bytes}}."""
    out = {}
    for line in text.splitlines():
        f = line.split(None, 2)
        if len(f) == 3 and f[0].isdigit() and f[1].isdigit():
            out[Path(f[2]).name] = {"res": int(f[0]), "size": int(f[1])}
    return out


def parse_memrate(text: str) -> dict:
    """stress-ng --memrate --metrics-brief: {"read64": MB/s, "memset": MB/s, ...}."""
    return {m.group(2): float(m.group(1)) for m in
            re.finditer(r"memrate\s+([\d.]+)\s+(\w+) MB per sec", text)}

def _read_text(path: Path) -> str:
    from perflab.run.record import read_lines

    return "\n".join(read_lines(path))


def fio_numbers(result: dict) -> dict:
    """The sums over a report's jobs: bytes and reads, the longest job's runtime, and the CPU time
    fio measured for its jobs (usr_cpu and sys_cpu are percentages of each job's runtime)."""
    jobs = result.get("jobs", [])
    io_bytes = sum(int(j["read"]["io_bytes"]) for j in jobs)
    ios = sum(int(j["read"]["total_ios"]) for j in jobs)
    runtime = max(float(j["read"]["runtime"]) for j in jobs) / 1000
    cpu_s = sum((float(j["usr_cpu"]) + float(j["sys_cpu"])) / 100 * float(j["read"]["runtime"]) / 1000 for j in jobs)
    sys_s = sum(float(j["sys_cpu"]) / 100 * float(j["read"]["runtime"]) / 1000 for j in jobs)
    per_job = [round(int(j["read"]["io_bytes"]) / (float(j["read"]["runtime"]) / 1000) / GiB, 2) for j in jobs]
    return {"io_bytes": io_bytes, "ios": ios, "runtime_s": runtime, "fio_cpu_s": cpu_s, "fio_sys_s": sys_s,
            "jobs": len(jobs), "job_gib_s": per_job}


def load(data_dir: Path) -> dict:
    """Every measurement as a row (per repeat), the per-configuration medians, and the run's
    hardware facts and page-cache evidence."""
    data_dir = Path(data_dir)
    fdir = data_dir / "fio"
    recs = [json.loads(x) for x in _read_text(data_dir / "measurements.jsonl").splitlines() if x.strip()]
    if not recs:
        raise FileNotFoundError(f"no measurements under {data_dir}")
    rows = []
    for r in recs:
        n = fio_numbers(fiolog.read_fio_json(fdir / f"{r['name']}.json"))
        pio = parse_proc_io((fdir / f"{r['name']}.io").read_text())
        perf_f = fdir / f"{r['name']}.perf.csv"
        cpi = cpi_from_perf(parse_perf_csv(perf_f.read_text())) if perf_f.exists() else None
        wall = r["t1"] - r["t0"]
        cg_cpu = sum(r["cgroup_cpu_ns"]) / 1e9
        host = r.get("host_busy_ns")   # older runs did not record how busy fio's CPUs were
        rows.append({**{k: r[k] for k in ("name", "config", "repeat", "phase", "set", "bs", "ncpu", "neighbour")},
                     **n, "rchar": pio.get("rchar"), "syscr": pio.get("syscr"),
                     "disk_read_bytes": pio.get("read_bytes"), "wall_s": wall,
                     "cgroup_cpu_s": cg_cpu, "cpi": cpi,
                     "host_busy_s": sum(host.values()) / 1e9 if host else float("nan"),
                     "throttled_s": r.get("throttled_ns", 0) / 1e9})
    df = pd.DataFrame(rows)
    df["neighbour"] = df["neighbour"].fillna("alone")
    df["gib_s"] = df.io_bytes / df.runtime_s / GiB
    df["iops"] = df.ios / df.runtime_s
    df["cpu_pct"] = 100 * df.fio_cpu_s / (df.runtime_s * df.ncpu)
    df["cgroup_cpu_pct"] = 100 * df.cgroup_cpu_s / (df.wall_s * df.ncpu)
    # fio's CPUs' time that went to other work (another process, a neighbour), and the time the
    # container's CPU limit held it back, as shares of the window
    df["other_cpu_pct"] = (100 * (df.host_busy_s - df.cgroup_cpu_s) / (df.wall_s * df.ncpu)).clip(lower=0)
    df["throttled_pct"] = 100 * df.throttled_s / df.wall_s
    df["gib_per_cpu_s"] = df.io_bytes / df.fio_cpu_s / GiB
    df["kops_per_cpu_s"] = df.ios / df.fio_cpu_s / 1000
    df["gib_per_cgroup_cpu_s"] = df.io_bytes / df.cgroup_cpu_s / GiB
    # The 2009 sanity check, done against the kernel: reads x block size vs the bytes read() returned.
    df["ops_x_size_error"] = (df.ios * df.bs - df.rchar).abs() / df.rchar
    num = ["gib_s", "iops", "cpu_pct", "cgroup_cpu_pct", "gib_per_cpu_s", "kops_per_cpu_s", "gib_per_cgroup_cpu_s",
           "cpi", "io_bytes", "ios", "rchar", "fio_cpu_s", "fio_sys_s", "cgroup_cpu_s", "runtime_s", "other_cpu_pct",
           "throttled_pct"]
    keys = ["config", "phase", "set", "bs", "ncpu", "neighbour"]
    agg = df.groupby(keys, sort=False)[num].median().reset_index()
    agg["repeats"] = df.groupby(keys, sort=False).size().values
    agg["spread"] = (df.groupby(keys, sort=False)["gib_per_cpu_s"].agg(lambda x: (x.max() - x.min()) / x.median())
                     .values)
    hw = json.loads((data_dir / "hardware.json").read_text())
    calib = data_dir / "calibration.json"
    calibration = json.loads(calib.read_text()) if calib.exists() else None
    cache = json.loads((data_dir / "cache.json").read_text()) if (data_dir / "cache.json").exists() else {}
    neighbours = {}
    ndir = data_dir / "neighbours"
    for f in sorted(ndir.glob("*.txt")) if ndir.exists() else []:
        neighbours[f.stem] = parse_stress_ng(f.read_text())
    return {"runs": df, "configs": agg, "hw": hw, "cache": cache, "neighbours": neighbours,
            "calibration": calibration}


def parse_stress_ng(text: str) -> dict:
    """stress-ng --metrics-brief: {stressor: bogo ops/s (real time)}, and the stream stressor's
    memory read rate (MB/s, "stream_mb_s") when it printed one."""
    out = {}
    for line in text.splitlines():
        m = re.search(r"\]\s+(\w[\w-]*)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
        if m and m.group(1) not in ("stressor",):
            out[m.group(1)] = float(m.group(6))
        m = re.search(r"memory rate:\s*([\d.]+)\s*MB read", line)
        if m:
            out["stream_mb_s"] = float(m.group(1))
    return out


# ------------------------------------------------------------------------------- the numbers

def pick(agg: pd.DataFrame, size: int, bs: int, ncpu: int = 1, neighbour: str = "alone") -> pd.Series | None:
    r = agg[(agg["set"] == size) & (agg.bs == bs) & (agg.ncpu == ncpu) & (agg.neighbour == neighbour)]
    return None if r.empty else r.iloc[0]


def _r(v, nd=3):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else round(float(v), nd)


def _calib(cal: dict | None, tag: str, kind: str):
    v = (cal or {}).get(tag, {}).get(kind)
    return _r(v, 0)


def _machine_ratio(cal: dict | None, kind: str):
    c, g = _calib(cal, "cache", kind), _calib(cal, "dram", kind)
    return _r(c / g, 2) if c and g else None


def _largest_read_gap(cal: dict | None) -> tuple[str | None, float | None]:
    """The read method (stress-ng memrate's read8 ... read1024, read64pf, read128pf) whose
    cache-resident rate is the largest multiple of its DRAM rate on this CPU, and that multiple:
    how much a read can gain from the cache here, whatever instructions it uses."""
    gaps = {k: _machine_ratio(cal, k) for k in (cal or {}).get("cache", {}) if k.startswith("read")}
    gaps = {k: v for k, v in gaps.items() if v}
    if not gaps:
        return None, None
    k = max(gaps, key=gaps.get)
    return k, gaps[k]


def hidden_set_metrics(hidden: float, cache: float, dram: float) -> dict:
    """The hidden set's work per CPU-second against the same run's cache-resident and DRAM-sized
    sets', and which of the two it is nearer to (on a log scale: the ratio that is closer to 1)."""
    near = "cache" if abs(math.log(hidden / cache)) < abs(math.log(hidden / dram)) else "dram"
    return {"hidden_gib_per_cpu_s": _r(hidden, 2), "hidden_vs_cache": _r(hidden / cache, 3),
            "hidden_vs_dram": _r(hidden / dram, 3), "detected_hidden": near}


def summary(d: dict) -> dict:
    """The chapter's headline numbers (run.json metrics)."""
    agg, hw, runs = d["configs"], d["hw"], d["runs"]
    base = agg[(agg.phase == "working sets")]
    bs = int(base.bs.iloc[0])
    small, big = int(base["set"].min()), int(base["set"].max())
    c, g = pick(agg, small, bs), pick(agg, big, bs)
    m = {
        "bs": fmt_size(bs), "cache_set": fmt_size(small), "dram_set": fmt_size(big),
        "cache_gib_s": _r(c.gib_s, 2), "dram_gib_s": _r(g.gib_s, 2),
        "cache_cpu_pct": _r(c.cpu_pct, 1), "dram_cpu_pct": _r(g.cpu_pct, 1),
        "cache_cgroup_cpu_pct": _r(c.cgroup_cpu_pct, 1), "dram_cgroup_cpu_pct": _r(g.cgroup_cpu_pct, 1),
        "cache_gib_per_cpu_s": _r(c.gib_per_cpu_s, 2), "dram_gib_per_cpu_s": _r(g.gib_per_cpu_s, 2),
        "work_ratio": _r(c.gib_per_cpu_s / g.gib_per_cpu_s, 2),
        "work_ratio_cgroup": _r(c.gib_per_cgroup_cpu_s / g.gib_per_cgroup_cpu_s, 2),
        # the machine's own gap (calibrate()): 64-bit memory reads on fio's CPU, cache vs DRAM
        "machine_read_ratio": _machine_ratio(d.get("calibration"), "read64"),
        "machine_cache_read_mb_s": _calib(d.get("calibration"), "cache", "read64"),
        "machine_dram_read_mb_s": _calib(d.get("calibration"), "dram", "read64"),
        # ... and the largest gap any read method shows (the bound the chapter holds fio's gap to)
        "machine_read_ratio_max": _largest_read_gap(d.get("calibration"))[1],
        "machine_read_max_method": _largest_read_gap(d.get("calibration"))[0],
        "sweep_min_cpu_pct": _r(base.cpu_pct.min(), 1),
        # what kept fio's CPU from fio in the sweep (fio alone): other work on it, and the CPU limit
        "sweep_other_cpu_pct_max": _r(base.other_cpu_pct.max(), 1),
        "sweep_throttled_pct_max": _r(base.throttled_pct.max(), 1),
        # fio's CPU time plus what other work and the limit took, at the working set where it was least: at
        # or near 100% wherever they account for what fio did not get
        "sweep_accounted_min_pct": _r((base.cpu_pct + base.other_cpu_pct + base.throttled_pct).min(), 1),
        "ends_accounted_min_pct": _r(min(x.cpu_pct + x.other_cpu_pct + x.throttled_pct for x in (c, g)), 1),
        "ends_other_cpu_pct_max": _r(max(c.other_cpu_pct, g.other_cpu_pct), 1),
        "ends_throttled_pct_max": _r(max(c.throttled_pct, g.throttled_pct), 1),
        "sweep_points": int(len(base)),
        "ops_x_size_error_max": _r(runs.ops_x_size_error.max(), 6),
        # Bytes the measurements made the kernel fetch from storage (read_bytes of /proc/PID/io), as a
        # share of the bytes read: zero when every read was served from the page cache.
        "disk_read_bytes_max": int(runs.disk_read_bytes.max()),
        "disk_read_fraction_max": _r((runs.disk_read_bytes / runs.rchar).max(), 6),
        "measurements": int(len(runs)),
        # measurements whose block is larger than the file they read (configs.py plans none: such a read
        # would be cut short at the file's end, and its bytes per read would not be its block)
        "blocks_over_file": int((runs.bs > runs["set"]).sum()),
    }
    # The shape of the sweep: where the work per CPU-second is highest and lowest, as a share of the
    # smallest (cache-resident) set's.
    sw = base.sort_values("set")
    lo = sw.loc[sw.gib_per_cpu_s.idxmin()]
    best = sw.loc[sw.gib_per_cpu_s.idxmax()]
    # how much more the best set did than the cache-resident end (0 when that end is the best), and how
    # far this run's repeats of those two sets spread: the noise a gain must clear to mean anything
    m.update({"sweep_best_gain": _r(best.gib_per_cpu_s / c.gib_per_cpu_s - 1, 3),
              "sweep_best_noise": _r(max(float(best.spread), float(c.spread)), 3),
              "sweep_best_set": fmt_size(int(best["set"])),
              "sweep_worst_set": fmt_size(int(lo["set"])),
              "sweep_worst_frac": _r(lo.gib_per_cpu_s / c.gib_per_cpu_s, 3),
              "sweep_worst_is_largest": bool(int(lo["set"]) == big)})
    hid = agg[agg.phase == "hidden set"]
    if len(hid):
        m.update(hidden_set_metrics(float(hid.iloc[0].gib_per_cpu_s), float(c.gib_per_cpu_s), float(g.gib_per_cpu_s)))
    # The 2009 post's check: ops/s x I/O size = bytes/s; here for the smallest blocks from DRAM.
    bsz = agg[(agg.phase.isin(["working sets", "block sizes"])) & (agg["set"] == big) & (agg.neighbour == "alone")
              & (agg.ncpu == 1)].sort_values("bs")
    sm = bsz.iloc[0]
    m.update({"sanity_bs": fmt_size(int(sm.bs)), "sanity_iops": _r(sm.iops, 0),
              "sanity_ops_x_size_gib_s": _r(sm.iops * sm.bs / GiB, 3),
              "sanity_rchar_gib_s": _r(sm.rchar / sm.runtime_s / GiB, 3)})
    # Small reads: ops per CPU-second, cache-resident vs DRAM-sized (the 8 KB ops of 2009).
    smallest = int(bsz.bs.iloc[0])
    cs, gs = pick(agg, small, smallest), pick(agg, big, smallest)
    m["small_bs"] = fmt_size(smallest)
    m["small_ops_ratio"] = _r(cs.kops_per_cpu_s / gs.kops_per_cpu_s, 2) if cs is not None and gs is not None else None
    for who in ("stream", "cpu"):
        for tag, size, alone in (("cache", small, c), ("dram", big, g)):
            r = pick(agg, size, bs, neighbour=who)
            if r is None:
                continue
            m[f"{who}_{tag}_throughput_ratio"] = _r(r.gib_s / alone.gib_s, 3)
            m[f"{who}_{tag}_work_ratio"] = _r(r.gib_per_cpu_s / alone.gib_per_cpu_s, 3)
            m[f"{who}_{tag}_cpu_pct"] = _r(r.cpu_pct, 1)
    m["dram_throttled_pct"] = _r(g.throttled_pct, 1)
    for tag, size, alone in (("cache", small, c), ("dram", big, g)):
        r = pick(agg, size, bs, ncpu=2)
        if r is not None:
            m[f"two_cpu_{tag}_scaling"] = _r(r.gib_s / alone.gib_s, 2)
            m[f"two_cpu_{tag}_work_ratio"] = _r(r.gib_per_cpu_s / alone.gib_per_cpu_s, 3)
            jobs = runs[(runs.config == r.config)].job_gib_s.tolist()
            # Per job (the first on fio's CPU, the second on the other), median over the repeats.
            m[f"two_cpu_{tag}_job_gib_s"] = [round(float(np.median([j[k] for j in jobs])), 2) for k in range(2)]
    m["cpi"] = _r(g.cpi, 2)
    m["cpi_cache_resident"] = _r(c.cpi, 2)
    m["hardware_counters"] = hw.get("message")
    rates = [v["stream_mb_s"] for v in d["neighbours"].values() if "stream_mb_s" in v]
    m["stream_neighbour_read_mb_s"] = _r(float(np.median(rates)), 0) if rates else None
    res = [v for when in ("prepared", "end") for v in d["cache"].get(when, {}).values() if isinstance(v, dict)]
    m["cached_fraction_min"] = _r(min(v["res"] / v["size"] for v in res), 4) if res else None
    return m


