"""Lab `benchmarking` (chapter "Benchmarking without fooling yourself", chapters/benchmarking.md).

Topology: one Docker volume holding two files, and four fio containers run one after another:
  prep     lays out both files and reads them once (they start in the page cache)
  traps    jobs/traps.fio: each trap beside the run done right, against a "disk" limited to
           disk_iops reads/s and disk_mb_s MB/s (docker --device-read-iops/--device-read-bps on the
           device that holds Docker's volumes)
  client   jobs/client.fio: the disk-direct job again, with fio held to client_cpus CPUs (--cpus)
  payload  jobs/payload.fio: 512-byte buffered reads of an evicted file; the container's blkio
           counter (bytes the device read for it) before and after
The sanity rules (perflab.analysis.sanity) read every report; the chapter checks that each fires on its trap
and stays quiet on the run done right. Real: fio, the page cache, the disk, the kernel's limits.
Emulated: the disk's speed (the limits stand in for a slow disk with a known top speed).
"""
from __future__ import annotations

from pathlib import Path

from perflab.fio import jobs as fio, logs as fiolog
from perflab.run import record
from perflab.analysis import sanity
from perflab.infra.containers import Topology, data_root_disk

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
    p = s.params
    tag = s.manifest.images["fio"].tag
    out = s.path("fio")
    out.mkdir(exist_ok=True)
    files = {k: jf.write(out / f"{k}.fio") for k, jf in job_files(s).items()}
    with Topology(s.run_id, s.lab.name) as topo:
        disk = data_root_disk(topo.client)
        limits = {"device_read_iops": [{"Path": disk, "Rate": int(p["disk_iops"])}],
                  "device_read_bps": [{"Path": disk, "Rate": int(p["disk_mb_s"] * 1e6)}]}
        s.provenance(limited_disk=disk)
        with s.phase("prepare"):
            vol = topo.volume("data")
            data = {vol.name: {"bind": "/data", "mode": "rw"}}
            version = fio.version(topo, tag)
            s.provenance(fio_version=version)
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
        s.metric(**summary(load(s.data_dir), p))


def _blkio_read(path: Path) -> int:
    """Bytes read, summed over devices, from lines "MAJ:MIN Read N"."""
    return sum(int(ln.split()[-1]) for ln in record.read_lines(path) if len(ln.split()) == 3)


def load(data_dir: Path) -> dict:
    """fio's reports as tables, the per-second logs of peak and steady, the device's byte counter,
    and every sanity finding of the run."""
    data_dir = Path(data_dir)
    fdir = data_dir / "fio"
    jobs = {}
    for name in ("traps", "client", "payload"):
        t = fiolog.job_table(fiolog.read_fio_json(fdir / f"{name}.json"))
        jobs.update({r.job: r for r in t.itertuples()})
    per_s = {}
    for job in ("peak", "steady"):
        logs = sorted(fdir.glob(f"{job}_bw.*.log*"))
        per_s[job] = fiolog.read_lat_log(logs[0]) if logs else None
    client_cpu_pct = sanity.job_stats(fiolog.read_fio_json(fdir / "client.json"))[0]["cpu_pct"]
    return {"jobs": jobs, "per_s": per_s, "client_cpu_pct": client_cpu_pct,
            "client_throttled": sanity.throttled_share(fdir / "client.cpu.stat"),
            "device_bytes": _blkio_read(fdir / "blkio.after") - _blkio_read(fdir / "blkio.before"),
            "startup_bytes": _blkio_read(fdir / "blkio.before") - _blkio_read(fdir / "blkio.start"),
            "payload_bytes": int(jobs["payload"].bw_bytes * jobs["payload"].runtime_ms / 1000)}


def findings(s) -> list:
    return sanity.review_session(s)


def summary(d: dict, p: dict) -> dict:
    j = d["jobs"]
    peak_log = d["per_s"]["peak"]
    peak_mbs = float(peak_log["lat_ns"].max()) * 1024 / 1e6 if peak_log is not None else float("nan")
    return {
        "cached_iops": round(j["disk-cached"].iops), "direct_iops": round(j["disk-direct"].iops),
        "cached_p50_us": round(j["disk-cached"].clat_p50_ns / 1000, 2),
        "direct_p50_us": round(j["disk-direct"].clat_p50_ns / 1000, 1),
        "cached_vs_limit": round(j["disk-cached"].iops / p["disk_iops"], 1),
        "direct_vs_limit": round(j["disk-direct"].iops / p["disk_iops"], 3),
        "iops_1byte": round(j["iops-1byte"].iops), "iops_8k": round(j["iops-8k"].iops),
        "iops_1byte_vs_8k": round(j["iops-1byte"].iops / j["iops-8k"].iops, 2),
        "mbs_1byte": round(j["iops-1byte"].bw_bytes / 1e6, 3), "mbs_8k": round(j["iops-8k"].bw_bytes / 1e6, 1),
        "client_iops": round(j["client-bound"].iops),
        "client_vs_direct": round(j["client-bound"].iops / j["disk-direct"].iops, 2),
        "client_cpu_share": round(d["client_cpu_pct"] / 100 / p["client_cpus"], 2),
        "client_throttled": round(d["client_throttled"], 2) if d["client_throttled"] is not None else float("nan"),
        "short_iops": round(j["short"].iops),
        "peak_mbs": round(peak_mbs, 1), "peak_avg_mbs": round(j["peak"].bw_bytes / 1e6, 1),
        "peak_ratio": round(peak_mbs / (j["peak"].bw_bytes / 1e6), 2),
        "steady_mbs": round(j["steady"].bw_bytes / 1e6, 1),
        "payload_mb": round(d["payload_bytes"] / 1e6, 2), "device_mb": round(d["device_bytes"] / 1e6, 2),
        "fio_startup_mb": round(d["startup_bytes"] / 1e6, 2),
        "device_per_payload": round(d["device_bytes"] / max(1, d["payload_bytes"]), 2),
        "cached_vs_direct_p50": round(j["disk-cached"].clat_p50_ns / j["disk-direct"].clat_p50_ns, 4),
        "mbs_8k_vs_1byte": round(j["iops-8k"].bw_bytes / max(1, j["iops-1byte"].bw_bytes), 0),
        **_peak_shape(peak_log, p),
        **_payload_model(d, p),
    }


def _peak_shape(log, p: dict) -> dict:
    """When the peak job's busiest second came (seconds from its start), and its median per-second
    rate after the first two seconds against the disk's limit (the uncached part, read from the disk)."""
    if log is None or len(log) < 3:
        return {"peak_busiest_s": None, "peak_rest_vs_disk": None}
    mbs = log["lat_ns"].astype(float) * 1024 / 1e6
    t = (log["time_ms"] - log["time_ms"].min()) / 1000
    return {"peak_busiest_s": round(float(t[mbs.idxmax()]), 1),
            "peak_rest_vs_disk": round(float(mbs[t >= 2].median()) / p["disk_mb_s"], 3)}


def _payload_model(d: dict, p: dict) -> dict:
    """Bytes the device read per byte fio asked for, predicted from the page cache. Each 512-byte
    read lands in one 4 KiB page; readahead is off (fadvise random), so a read whose page is not
    cached makes the device read that page, and a read whose page an earlier read fetched is a
    cache hit. After k reads at uniform random offsets over a file of P pages, about
    P (1 - exp(-k / P)) distinct pages have been fetched; device bytes per payload byte are then
    8 x P (1 - exp(-k / P)) / k: 8 for a cold file, less as it fills the cache. Also the device's
    read rate over the run against disk_iops (the throttle sets how many pages a second it fetches)."""
    import math

    j = d["jobs"]["payload"]
    k = int(j.total_ios)
    pages = p["file_size"] / 4096
    fetched = pages * (1 - math.exp(-k / pages))
    model = 4096 * fetched / (512 * k) if k else float("nan")
    dev_pages = d["device_bytes"] / 4096
    return {"payload_reads": k, "payload_file_pages": int(pages), "payload_pages_fetched": round(dev_pages),
            "payload_pages_model": round(fetched), "payload_hit_share": round(1 - dev_pages / k, 3) if k else None,
            "device_per_payload_model": round(model, 2),
            "device_per_payload_vs_model": round(d["device_bytes"] / max(1, d["payload_bytes"]) / model, 3),
            "payload_device_vs_limit": round(dev_pages / (j.runtime_ms / 1000) / p["disk_iops"], 3)}
