"""The heatmaps lab's reading of a run: heat maps per job and for both, fio's summary, the headline
numbers (summary), and the 2009 figures they are set beside. Reads a live run or the reference alike."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis import heatmap
from perflab.fio import logs as fiolog

from .spec import JOB, JOBS

#: Latency ranges (ns) used to describe where the cached job's reads fell.
CACHED_FAST_NS = 10_000                 # a system call that copies a few KiB: see fast_ns()
CACHED_MID_NS = (15_000, 30_000)        # the fainter band near 20 us
CACHED_SLOW_NS = (50_000, 200_000)      # as slow as the direct (disk) reads
EARLY_S = 15.0                          # the first seconds, right after fio laid out the file
#: 2009: "Hybrid Storage Pool top speeds" (Brendan Gregg, 2009), NFSv3 512-byte random reads.
FIGURES_2009 = {"dram_us": (0, 10), "disk_us": (1900, 9700)}


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
    jobs = {j["jobname"]: j for j in result.get("jobs", [])}
    read = {name: j["read"] for name, j in jobs.items()}
    return {"maps": maps, "jobs": fiolog.job_table(result), "capture": "hist" if hist else "perio",
            "fio_version": result.get("fio version"),
            # what the job file asked for, as fio ran it: each job's rate, and the block size it read
            "rates_set": {name: int(j["job options"]["rate_iops"]) for name, j in jobs.items()
                          if "rate_iops" in j.get("job options", {})},
            "bs": round(read["cached"]["io_bytes"] / read["cached"]["total_ios"]) if read["cached"]["total_ios"] else 0}


def fast_ns(bs: int) -> float:
    """The slowest read this chapter counts as a page-cache hit, a memory copy plus a system call:
    CACHED_FAST_NS, plus the copy of `bs` bytes at 1 GB/s (a floor that any machine of the last
    fifteen years beats several times over), so that the line moves with the block size, not the machine."""
    return CACHED_FAST_NS + bs


def count_between(hm, t_from, t_to) -> int:
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
    slow_first = cached.fraction_between(*CACHED_SLOW_NS, None, half) * count_between(cached, None, half)
    slow_second = cached.fraction_between(*CACHED_SLOW_NS, half, None) * count_between(cached, half, None)
    ms = (1e6, float("inf"))
    direct_ms_early = direct.fraction_between(*ms, None, EARLY_S) * count_between(direct, None, EARLY_S)
    direct_ms_late = direct.fraction_between(*ms, EARLY_S, None) * count_between(direct, EARLY_S, None)
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
        "rate_set_cached": d["rates_set"].get("cached"),
        "rate_set_direct": d["rates_set"].get("direct"),
        # one reader that waits for each read (psync, queue depth 1) issues at most 1 / its mean time
        "direct_qd1_max_iops": round(1e6 / (float(jobs.loc["direct", "clat_mean_ns"]) / 1000), 1),
        # each job's mean (fio's clat mean): the mean of all reads is their weighted mean
        "cached_mean_us": round(float(jobs.loc["cached", "clat_mean_ns"]) / 1000, 2),
        "direct_mean_us": round(float(jobs.loc["direct", "clat_mean_ns"]) / 1000, 2),
        # where the cached job's reads fell (shares of its reads, from its heat map)
        "cached_fast_share": round(float(cached.fraction_between(0, fast_ns(d["bs"]))), 4),
        "cached_fast_us": round(fast_ns(d["bs"]) / 1000, 1),
        "bs_bytes": int(d["bs"]),
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


def ios_between(hm, lo_ns, hi_ns, t_from, t_to) -> int:
    """I/Os of `hm` with latency in [lo_ns, hi_ns) in the columns that start in [t_from, t_to) s."""
    frac = hm.fraction_between(lo_ns, hi_ns, t_from, t_to)
    return 0 if frac != frac else round(frac * count_between(hm, t_from, t_to))


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
