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

from perflab import fio, fiolog, heatmap
from perflab.containers import Topology

JOB = "two-bands"
JOBS = ("cached", "direct")
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


def summary(d: dict) -> dict:
    """The headline numbers: each band's median, the gap between them, the mean of all reads and
    where it falls, and the 99th percentile of all reads (from the heat map)."""
    jobs = d["jobs"].set_index("job")
    c50 = float(jobs.loc["cached", "clat_p50_ns"])
    d50 = float(jobs.loc["direct", "clat_p50_ns"])
    n = jobs["total_ios"].astype(float)
    mean_all = float((jobs["clat_mean_ns"] * n).sum() / n.sum())
    both = d["maps"]["both"]
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
    }
