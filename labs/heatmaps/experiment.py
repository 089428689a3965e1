"""The heatmaps experiment: its phases, its job file and its run (one fio container, two jobs)."""
from __future__ import annotations

from perflab.fio import jobs as fio
from perflab.infra.containers import Topology

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
    from .analysis import load, summary

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
        s.metric(**summary(load(s.data_dir)))
