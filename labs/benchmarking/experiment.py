"""The benchmarking experiment: its phases, its job files, what the sanity rules are told about them,
and its run (four fio containers, one after another, against a throttled disk)."""
from __future__ import annotations

from collections.abc import Mapping

from perflab.fio import jobs as fio
from perflab.infra.cgroupio import READ_BYTES_SH
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext, image_tag
from perflab.infra.fioservice import FioClient
from perflab.infra.labdirs import made_dirs

FILL_RATE = 150e6
CACHED_SHARE = 0.25   # of the peak file, left in the page cache


def peak_file_size(p: Mapping) -> int:
    """The peak file: its uncached three quarters take about 1.2 x runtime at the disk's rate."""
    mib = 2**20
    return max(16 * mib, int(1.2 * p["runtime"] * p["disk_mb_s"] * 1e6 / (1 - CACHED_SHARE)) // mib * mib)


def plan(p: Mapping) -> list[tuple[str, float]]:
    prep = (p["file_size"] + peak_file_size(p)) * 2 / FILL_RATE + 3
    return [("prepare", prep), ("traps", 6 * p["runtime"] + 1 + 1.2 * p["runtime"] + 4),
            ("client-bound", p["runtime"] + 4), ("payload", p["runtime"] + 3), ("collect", 1.0)]


def sanity_context(p: Mapping) -> dict:
    """What the lab knows that fio's reports do not: the disk's limits and the client's CPU share
    (the jobs' intents are declared in the job files' headers)."""
    return {"*": {"device_iops": p["disk_iops"], "device_bps": p["disk_mb_s"] * 1e6},
            "client-bound": {"cpus": p["client_cpus"]}}


def job_files(ctx: LabContext) -> dict[str, fio.JobFile]:
    p, jobs = ctx.params, ctx.lab.jobs_dir
    size, peak = p["file_size"], peak_file_size(p)
    bench, pk = "/data/bench.dat", "/data/peak.dat"
    out = {"prep": fio.JobFile.load(jobs / "prep.fio").apply(
        {"lay-bench": {"filename": bench, "size": size}, "lay-peak": {"filename": pk, "size": peak}})}
    t = fio.JobFile.load(jobs / "traps.fio")
    rt = int(p["runtime"])
    for job in ("disk-cached", "iops-1byte", "iops-8k", "disk-direct", "short"):
        t.apply({job: {"filename": bench, "size": size}})
        if job != "short":
            t.set(job, "runtime", rt)
    cached = int(peak * CACHED_SHARE) // 4096 * 4096
    t.apply({"evict": {"filename": pk, "offset": cached, "size": peak - cached},
             "peak": {"filename": pk, "size": peak},
             "steady": {"filename": pk, "size": peak, "runtime": rt}})
    out["traps"] = t
    for name in ("client", "payload"):
        jf = fio.JobFile.load(jobs / f"{name}.fio")
        job = jf.jobs()[0]
        out[name] = jf.apply({job: {"filename": bench, "size": size, "runtime": rt}})
    return out


def run(ctx: LabContext) -> None:
    """The files laid out, then the traps, the client-bound run and the payload, each fio in a container
    of its own against the throttled disk: the raw files under the run's fio/ (the session then reads
    them back)."""
    p = ctx.params
    tag, (out,) = image_tag(ctx, "fio"), made_dirs(ctx, "fio")
    files = {k: jf.write(out / f"{k}.fio") for k, jf in job_files(ctx).items()}
    with Topology(ctx) as topo:
        disk = topo.volumes_disk()
        limits = {"device_read_iops": [{"Path": disk, "Rate": int(p["disk_iops"])}],
                  "device_read_bps": [{"Path": disk, "Rate": int(p["disk_mb_s"] * 1e6)}]}
        ctx.provenance(limited_disk=disk)
        with ctx.phase("prepare"):
            data = topo.mounted_volume("data", "/data")
            ctx.provenance(fio_version=fio.version(topo, tag))
            fio.run_in_container(topo, tag, files["prep"], out, "prep", volumes=data, timeout=600)
        with ctx.phase("traps"):
            fio.run_in_container(topo, tag, files["traps"], out, "traps", volumes=data, timeout=1800, **limits)
        with ctx.phase("client-bound"):
            fio.run_in_container(topo, tag, files["client"], out, "client", volumes=data, timeout=600,
                                 nano_cpus=int(p["client_cpus"] * 1e9), **limits)
        with ctx.phase("payload"):
            # fio is loaded once (--version) before the counter starts: loading fio and its libraries
            # reads from the same disk (63 MB cold, 4.6 MB warm, measured here), which the counter
            # would otherwise charge to the payload; blkio.start..before keeps that figure. The
            # container's cgroup counts what its processes read (cgroup v1 or v2: cgroupio).
            client = FioClient.start(topo, tag, "payload", out, volumes=data, **limits)
            client.sh(f"{READ_BYTES_SH} > blkio.start; fio --version > /dev/null; {READ_BYTES_SH} > blkio.before")
            client.run("payload.fio", "payload", timeout=600, then=f"{READ_BYTES_SH} > blkio.after")
