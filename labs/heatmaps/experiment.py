"""The heatmaps experiment: its phases, its job file and its run (one fio container, two jobs)."""
from __future__ import annotations

from collections.abc import Mapping

from perflab.fio import jobs as fio
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext, image_tag

from .spec import JOB, JOBS

FILL_RATE = 150e6  # bytes/s assumed for laying out and pre-reading the file (for the time estimate)


def plan(p: Mapping) -> list[tuple[str, float]]:
    prep = 2 * p["file_size"] / FILL_RATE + 3
    return [("prepare", 5.0), ("fio", prep + p["runtime"] + 3), ("collect", 2.0)]


def rates_iops(p: Mapping) -> dict:
    direct = max(1, round(p["rate_iops"] * p["direct_share"]))
    return {"cached": p["rate_iops"] - direct, "direct": direct}


def job_file(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
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


def run(ctx: LabContext) -> None:
    """fio's two jobs in one container, their logs under the run's fio/ (the session then reads them back)."""
    tag = image_tag(ctx, "fio")
    out = ctx.path("fio")
    out.mkdir(exist_ok=True)
    job = job_file(ctx).write(out / f"{JOB}.fio")
    with Topology(ctx) as topo:
        with ctx.phase("prepare"):
            vol = topo.volume("data")
            ctx.provenance(fio_version=fio.version(topo, tag))
        with ctx.phase("fio"):
            fio.run_in_container(topo, tag, job, out, JOB, volumes={vol.name: {"bind": "/data", "mode": "rw"}},
                                 timeout=3600)
