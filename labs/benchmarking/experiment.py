"""The benchmarking experiment: its phases, its job files, what the sanity rules are told about them,
and its run (four fio containers, one after another, against a throttled disk)."""
from __future__ import annotations

from perflab.fio import jobs as fio
from perflab.infra.containers import Topology, volumes_disk
from perflab.infra.labdirs import made_dirs

FILL_RATE = 150e6
BLKIO = "/sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes"
CACHED_SHARE = 0.25   # of the peak file, left in the page cache


def peak_file_size(p: dict) -> int:
    """The peak file: its uncached three quarters take about 1.2 x runtime at the disk's rate."""
    mib = 2**20
    return max(16 * mib, int(1.2 * p["runtime"] * p["disk_mb_s"] * 1e6 / (1 - CACHED_SHARE)) // mib * mib)


def plan(p: dict) -> list[tuple[str, float]]:
    prep = (p["file_size"] + peak_file_size(p)) * 2 / FILL_RATE + 3
    return [("prepare", prep), ("traps", 6 * p["runtime"] + 1 + 1.2 * p["runtime"] + 4),
            ("client-bound", p["runtime"] + 4), ("payload", p["runtime"] + 3), ("collect", 1.0)]


def sanity_context(p: dict) -> dict:
    """What the lab knows that fio's reports do not: the disk's limits and the client's CPU share
    (the jobs' intents are declared in the job files' headers)."""
    return {"*": {"device_iops": p["disk_iops"], "device_bps": p["disk_mb_s"] * 1e6},
            "client-bound": {"cpus": p["client_cpus"]}}


def job_files(s) -> dict[str, fio.JobFile]:
    p, jobs = s.params, s.lab.jobs_dir
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


def run(s) -> None:
    from .analysis import load, summary

    p = s.params
    tag, (out,) = s.manifest.images["fio"].tag, made_dirs(s, "fio")
    files = {k: jf.write(out / f"{k}.fio") for k, jf in job_files(s).items()}
    with Topology(s.run_id, s.lab.name) as topo:
        disk = volumes_disk(topo.client)
        limits = {"device_read_iops": [{"Path": disk, "Rate": int(p["disk_iops"])}],
                  "device_read_bps": [{"Path": disk, "Rate": int(p["disk_mb_s"] * 1e6)}]}
        s.provenance(limited_disk=disk)
        with s.phase("prepare"):
            data = topo.mounted_volume("data", "/data")
            s.provenance(fio_version=fio.version(topo, tag))
            fio.run_in_container(topo, tag, files["prep"], out, "prep", volumes=data, timeout=600)
        with s.phase("traps"):
            fio.run_in_container(topo, tag, files["traps"], out, "traps", volumes=data, timeout=1800, **limits)
        with s.phase("client-bound"):
            fio.run_in_container(topo, tag, files["client"], out, "client", volumes=data, timeout=600,
                                 nano_cpus=int(p["client_cpus"] * 1e9), **limits)
        with s.phase("payload"):
            # fio is loaded once (--version) before the counter starts: loading fio and its libraries
            # reads from the same disk (63 MB cold, 4.6 MB warm, measured here), which the counter
            # would otherwise charge to the payload; blkio.start..before keeps that figure
            sh = (f"grep Read {BLKIO} > blkio.start; fio --version > /dev/null; grep Read {BLKIO} > blkio.before; "
                  "fio --output-format=json --output=payload.json payload.fio > payload.stdout.txt; rc=$?; "
                  f"grep Read {BLKIO} > blkio.after; exit $rc")
            topo.run(tag, "payload", ["sh", "-c", sh], volumes={str(out.resolve()): {"bind": "/out", "mode": "rw"},
                                                                   **data},
                     working_dir="/out", timeout=600, network_mode="none", **limits)
    with s.phase("collect"):
        s.metric(**summary(load(s.data_dir)))
