"""Lab `heatmaps` (chapter "Reading latency heat maps", chapters/heatmaps.md).

Topology: one Docker volume (on the host's disk) holding one file, and one fio container reading
it with two concurrent jobs: `cached` (buffered, after pre-reading the file) and `direct`
(O_DIRECT). What is real: fio, the container, the page cache, the disk. Nothing is emulated.

plan() gives the phases and their expected durations; run() produces, under the run directory:
  fio/two-bands.fio         the job file as run (parameters applied)
  fio/two-bands.json        fio's JSON output
  fio/<job>_clat.N.log      per-I/O completion latencies   (capture=perio)
  fio/<job>_clat_hist.N.log histogram logs, 1 s intervals  (capture=hist)
load() reads them back (from a live run or the reference run) for the chapter.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import jobs as fio, logs as fiolog
from perflab.analysis import heatmap
from perflab.infra.containers import Topology

JOB = "two-bands"
JOBS = ("cached", "direct")
#: Latency ranges (ns) used to describe where the cached job's reads fell.
CACHED_FAST_NS = 10_000                 # a memory copy plus a system call
CACHED_MID_NS = (15_000, 30_000)        # the fainter band near 20 us
CACHED_SLOW_NS = (50_000, 200_000)      # as slow as the direct (disk) reads
EARLY_S = 15.0                          # the first seconds, right after fio laid out the file
#: 2009: "Hybrid Storage Pool top speeds" (Brendan Gregg, 2009), NFSv3 512-byte random reads.
FIGURES_2009 = {"dram_us": (0, 10), "disk_us": (1900, 9700)}
FILL_RATE = 150e6  # bytes/s assumed for laying out and pre-reading the file (for the time estimate)


def plan(p: dict) -> list[tuple[str, float]]:
    prep = 2 * p["file_size"] / FILL_RATE + 3
    return [("prepare", 5.0), ("fio", prep + p["runtime"] + 3), ("collect", 2.0)]


def rates_iops(p: dict) -> dict:
    direct = max(1, round(p["rate_iops"] * p["direct_share"]))
    return {"cached": p["rate_iops"] - direct, "direct": direct}


def job_file(s) -> fio.JobFile:
    p = s.params
    jf = fio.JobFile.load(s.lab.jobs_dir / f"{JOB}.fio")
    jf.apply({"global": {"filename": "/data/heatmaps.dat", "size": p["file_size"], "bs": p["bs"],
                         "runtime": int(p["runtime"])}})
    rates = rates_iops(p)
    for job in JOBS:
        jf.set(job, "rate_iops", rates[job])
        if p["capture"] == "hist":
            jf.apply({job: {"write_lat_log": None, "write_hist_log": job, "log_hist_msec": 1000}})
        else:
            jf.apply({job: {"write_lat_log": job, "log_avg_msec": 0}})
    return jf


def run(s) -> None:
    tag = s.manifest.images["fio"].tag
    out = s.path("fio")
    out.mkdir(exist_ok=True)
    job = job_file(s).write(out / f"{JOB}.fio")
    with Topology(s.run_id, s.lab.name) as topo:
        with s.phase("prepare"):
            vol = topo.volume("data")
            version = fio.version(topo, tag)
            s.provenance(fio_version=version)
        with s.phase("fio"):
            fio.run_in_container(topo, tag, job, out, JOB, volumes={vol.name: {"bind": "/data", "mode": "rw"}},
                                 timeout=3600)
    with s.phase("collect"):
        d = load(s.data_dir)
        s.metric(**summary(d))


def _logs(base: Path, job: str, hist: bool) -> list[Path]:
    pat = f"{job}_clat_hist.*.log*" if hist else f"{job}_clat.*.log*"
    return sorted((base / "fio").glob(pat))


def load(data_dir: Path, sub: int = 8) -> dict:
    """Heat maps per job and for both together, and fio's own summary, from a run directory."""
    data_dir = Path(data_dir)
    result = fiolog.read_fio_json(data_dir / "fio" / f"{JOB}.json")
    hist = bool(_logs(data_dir, JOBS[0], True))
    maps = {}
    for job in JOBS:
        paths = _logs(data_dir, job, hist)
        if not paths:
            raise FileNotFoundError(f"no latency log for job {job} under {data_dir / 'fio'}")
        maps[job] = (heatmap.from_hist_log if hist else heatmap.from_lat_log)(paths, sub=sub)
    maps["both"] = maps["cached"] + maps["direct"]
    return {"maps": maps, "jobs": fiolog.job_table(result), "capture": "hist" if hist else "perio",
            "fio_version": result.get("fio version")}


def _count(hm, t_from, t_to) -> int:
    """I/Os in the columns that start in [t_from, t_to) seconds."""
    dist = hm.distribution(t_from, t_to)
    return int(dist["count"].sum() + dist.attrs["overflow"])


def summary(d: dict) -> dict:
    """The headline numbers: each band's median, the gap between them, the mean of all reads and
    where it falls, and the 99th percentile of all reads (from the heat map); each job's mean; how
    the cached job's reads split between the fast band, the fainter band near 20 us and the disk
    band; and the direct reads of 1 ms or more, early in the run and after."""
    jobs = d["jobs"].set_index("job")
    c50 = float(jobs.loc["cached", "clat_p50_ns"])
    d50 = float(jobs.loc["direct", "clat_p50_ns"])
    n = jobs["total_ios"].astype(float)
    mean_all = float((jobs["clat_mean_ns"] * n).sum() / n.sum())
    both = d["maps"]["both"]
    cached, direct = d["maps"]["cached"], d["maps"]["direct"]
    half = cached.n_columns * cached.col_s / 2
    slow_first = cached.fraction_between(*CACHED_SLOW_NS, None, half) * _count(cached, None, half)
    slow_second = cached.fraction_between(*CACHED_SLOW_NS, half, None) * _count(cached, half, None)
    ms = (1e6, float("inf"))
    direct_ms_early = direct.fraction_between(*ms, None, EARLY_S) * _count(direct, None, EARLY_S)
    direct_ms_late = direct.fraction_between(*ms, EARLY_S, None) * _count(direct, EARLY_S, None)
    late_s = direct.n_columns * direct.col_s - EARLY_S
    return {
        "cached_p50_us": round(c50 / 1000, 2),
        "direct_p50_us": round(d50 / 1000, 2),
        "band_ratio": round(d50 / c50, 1),
        "mean_all_us": round(mean_all / 1000, 2),
        "fraction_within_2x_of_mean": round(both.fraction_between(mean_all / 2, mean_all * 2), 4),
        "p99_all_us": round(both.percentile(99) / 1000, 1),
        "direct_share_measured": round(float(n["direct"] / n.sum()), 3),
        "ios": int(n.sum()),
        "iops_cached": round(float(jobs.loc["cached", "iops"]), 1),
        "iops_direct": round(float(jobs.loc["direct", "iops"]), 1),
        # each job's mean (fio's clat mean): the mean of all reads is their weighted mean
        "cached_mean_us": round(float(jobs.loc["cached", "clat_mean_ns"]) / 1000, 2),
        "direct_mean_us": round(float(jobs.loc["direct", "clat_mean_ns"]) / 1000, 2),
        # where the cached job's reads fell (shares of its reads, from its heat map)
        "cached_fast_share": round(float(cached.fraction_between(0, CACHED_FAST_NS)), 4),
        "cached_mid_share": round(float(cached.fraction_between(*CACHED_MID_NS)), 4),
        "cached_mid_side_share": round(float(cached.fraction_between(10_000, CACHED_MID_NS[0])
                                       + cached.fraction_between(CACHED_MID_NS[1], CACHED_SLOW_NS[0])), 4),
        "cached_slow_share": round(float(cached.fraction_between(*CACHED_SLOW_NS)), 4),
        "cached_slow_n": int(round(cached.fraction_between(*CACHED_SLOW_NS) * cached.total)),
        "cached_slow_second_first": round(float(slow_second / slow_first), 2) if slow_first else None,
        # direct reads of 1 ms or more: in the first EARLY_S seconds and after (per second)
        "direct_ms_n_early": int(round(direct_ms_early)),
        "direct_ms_n_late": int(round(direct_ms_late)),
        "direct_ms_rate_early_late": (round(float((direct_ms_early / EARLY_S) / (direct_ms_late / late_s)), 1)
                                      if direct_ms_late else None),
    }


def mixed_percentile(d: dict, direct_share: float, q: float) -> float:
    """The q-th percentile (ns) of all reads if `direct_share` of them had this run's direct
    distribution and the rest this run's cached one (each job's distribution over the whole run)."""
    dist = {job: d["maps"][job].distribution().set_index("lat_hi_ns")["count"] for job in JOBS}
    table = pd.concat(dist, axis=1).fillna(0).sort_index()
    w = (1 - direct_share) * table["cached"] / table["cached"].sum() + direct_share * table["direct"] / table["direct"].sum()
    cum = w.cumsum()
    return float(cum.index[int(np.searchsorted(cum.to_numpy(), q / 100 - 1e-12))])


def band_ratio_2009() -> dict:
    """The gap between 2009's DRAM and disk bands (Hybrid Storage Pool top speeds post): edge to
    edge (the smallest gap) and middle to middle (each range's arithmetic midpoint)."""
    (d_lo, d_hi), (k_lo, k_hi) = FIGURES_2009["dram_us"], FIGURES_2009["disk_us"]
    return {"smallest": k_lo / d_hi, "mid": ((k_lo + k_hi) / 2) / ((d_lo + d_hi) / 2),
            "dram_mid_us": (d_lo + d_hi) / 2, "disk_mid_us": (k_lo + k_hi) / 2}
