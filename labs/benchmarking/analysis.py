"""The benchmarking lab's reading of a run: fio's reports, the per-second logs of peak and steady, the
device's byte counter, the sanity rules' findings, and the numbers the chapter and its checks read
(summary). Reads a live run, the reference or one of its repeats alike: the parameters and the machine's
memory and CPUs come from the run's own run.json."""
from __future__ import annotations

import math
from pathlib import Path

from perflab.analysis import sanity
from perflab.fio import logs as fiolog
from perflab.run import record

from .experiment import sanity_context

#: the finding each trap was built to raise, (rule, job)
BY_DESIGN = {("disk-read-from-cache", "disk-cached"), ("client-bound", "client-bound"),
             ("tiny-io", "iops-1byte"), ("no-latency", "iops-1byte"), ("too-short", "short"),
             ("peak-vs-average", "peak")}
#: findings beyond the traps' that are right too, and why (the chapter lists them)
EXPLAINED = {
    ("client-bound", "disk-cached"): "reads from memory: the CPU running fio is the only limit left",
    ("client-bound", "iops-1byte"): "the same: a 1-byte read from memory is nearly all CPU",
    ("client-bound", "iops-8k"): "the same, for 8 KiB reads from memory",
    ("disk-read-from-cache", "peak"): "by design: a quarter of its file was cached",
    ("client-bound", "peak"): ("its cached quarter is read from memory, where the CPU running fio is the "
                               "only limit; whether that part weighs enough for the rule to fire varies "
                               "from run to run"),
    ("client-bound", "lay-bench"): ("not a measurement: laying out the file, fio writes into the page "
                                    "cache, where its own CPU is the only limit; whether it crosses the "
                                    "rule's 80% varies from run to run"),
    ("client-bound", "lay-peak"): "the same, laying out the peak trap's file"}
#: the runs done right, on which no rule may fire
RIGHT_RUNS = ("disk-direct", "steady")


def key(rule: str, job: str) -> str:
    """A finding as the `findings` metric lists it: "rule:job"."""
    return f"{rule}:{job}"


def _blkio_read(path: Path) -> int:
    """Bytes read, summed over devices, from lines "MAJ:MIN Read N"."""
    return sum(int(ln.split()[-1]) for ln in record.read_lines(path) if len(ln.split()) == 3)


def load(data_dir: Path) -> dict:
    """fio's reports as tables, the per-second logs of peak and steady, the device's byte counter,
    fio's CPU share per job, the run's parameters, and every sanity finding of the run (reviewed as
    perflab.analysis.sanity.review_session does, with the machine's memory and CPUs from run.json)."""
    data_dir = Path(data_dir)
    doc = record.RunRecord(data_dir).read()
    params, prov = doc.get("params", {}), doc.get("provenance", {})
    fdir = data_dir / "fio"
    jobs, cpu_pct = {}, {}
    for name in ("traps", "client", "payload"):
        result = fiolog.read_fio_json(fdir / f"{name}.json")
        jobs.update({r.job: r for r in fiolog.job_table(result).itertuples()})
        cpu_pct.update({st["job"]: st["cpu_pct"] for st in sanity.job_stats(result)})
    per_s = {}
    for job in ("peak", "steady"):
        logs = sorted(fdir.glob(f"{job}_bw.*.log*"))
        per_s[job] = fiolog.read_lat_log(logs[0]) if logs else None
    found = sanity.review(data_dir, sanity_context(params), prov.get("memory_bytes"), prov.get("cpus"))
    return {"jobs": jobs, "per_s": per_s, "params": params, "cpu_pct": cpu_pct,
            "client_cpu_pct": cpu_pct["client-bound"],
            "client_throttled": sanity.throttled_share(fdir / "client.cpu.stat"),
            "device_bytes": _blkio_read(fdir / "blkio.after") - _blkio_read(fdir / "blkio.before"),
            "startup_bytes": _blkio_read(fdir / "blkio.before") - _blkio_read(fdir / "blkio.start"),
            "payload_bytes": int(jobs["payload"].bw_bytes * jobs["payload"].runtime_ms / 1000),
            "findings": sorted({key(f.rule, f.job) for f in found})}


def findings(s) -> list:
    """The sanity findings of a session's run, as objects (rule, job, saw, message, why)."""
    return sanity.review_session(s)


def summary(d: dict) -> dict:
    j, p, cpu = d["jobs"], d["params"], d["cpu_pct"]
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
        # fio's own CPU time (usr + sys over the job's runtime, % of one CPU): per O_DIRECT read in the
        # right run, and in each of the two jobs that read from memory
        "direct_cpu_us": round(cpu["disk-direct"] / 100 / j["disk-direct"].iops * 1e6, 1),
        "cpu_pct_1byte": round(cpu["iops-1byte"], 1), "cpu_pct_8k": round(cpu["iops-8k"], 1),
        # every sanity finding of the run, "rule:job"
        "findings": list(d["findings"]),
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
