"""The ht experiment (the tool): containers pinned to CPUs, the working-set files in the page cache, the
machine's calibration, and one measurement per configuration and repeat."""
from __future__ import annotations

import json
import os
import time

from perflab.infra import cpuacct, perfstat
from perflab.infra.containers import ContainerFailed, Topology, finished
from perflab.infra.context import LabContext, image_tag
from perflab.infra.fioservice import FioClient

from .analysis import parse_fincore, parse_memrate
from .configs import (CALIBRATE_S, HIDDEN_FILE, JOB, NEIGHBOUR_LEAD_S, PHASES, configurations, cpu_roles, file_of,
                      job_for, public, set_files)

def _fincore(c: FioClient, files: list[str]) -> dict:
    code, out = c.sh("fincore -b -n -o RES,SIZE,FILE " + " ".join(f"/data/{f}" for f in files))
    return parse_fincore(out) if code == 0 else {"error": out.strip()}


NEIGHBOUR_CMD = {"stream": ["stress-ng", "--stream", "1"], "cpu": ["stress-ng", "--cpu", "1"]}


def measure(ctx: LabContext, topo: Topology, tag: str, c: dict, rep: int, ctr: dict, hw: dict, fio_cpu: int,
            other_cpu: int) -> dict:
    """One measurement: start the neighbour (if any), fio in its container, perf on its CPUs; the
    container's CPU time from its cgroup before and after."""
    p, fdir = ctx.params, ctx.path("fio")
    name = c["name"] + (f"-r{rep + 1}" if p["repeats"] > 1 else "")
    job_for(ctx, c, fio_cpu, other_cpu).write(fdir / f"{name}.fio")
    cont, cg = ctr[c["ncpu"]]
    neighbour = None
    if c["neighbour"]:
        ncpu = other_cpu if c["neighbour"] == "stream" else fio_cpu
        secs = p["runtime"] + 2 * NEIGHBOUR_LEAD_S + 1
        cmd = [*NEIGHBOUR_CMD[c["neighbour"]], "--timeout", f"{secs:.0f}s", "--metrics"]
        neighbour = topo.container(tag, f"neighbour-{name}", cmd, cpuset_cpus=str(ncpu), network_mode="none")
        time.sleep(NEIGHBOUR_LEAD_S)
    cpus = str(fio_cpu) if c["ncpu"] == 1 else f"{other_cpu},{fio_cpu}"
    # Read the file(ctx) once more first: this VM hands page-cache pages back to its host now and then,
    # and a page that went would be read from the disk during the measurement.
    warm = [f"/data/{file_of(c, k)}" for k in range(1, c["ncpu"] + 1)]
    cont.sh(f"cat {' '.join(warm)} > /dev/null")
    busy_cpus = [fio_cpu] if c["ncpu"] == 1 else [other_cpu, fio_cpu]
    with perfstat.counting(ctx.ledger, hw, cpus, p["runtime"], fdir / f"{name}.perf.csv"):
        before, host0, t0 = cg.sample(), cpuacct.host_busy_ns(busy_cpus), time.time()
        # the shell's /proc/$$/io after fio: the bytes fio's reads and writes moved (rchar, read_bytes)
        cont.run(f"{name}.fio", name, then=f"cat /proc/$$/io > {name}.io")
        t1, after, host1 = time.time(), cg.sample(), cpuacct.host_busy_ns(busy_cpus)
    rec = {"name": name, "config": c["name"], "repeat": rep + 1, "phase": c["phase"], "set": public(c)["set"], "bs": c["bs"],
           "ncpu": c["ncpu"], "neighbour": c["neighbour"], "cpus": cpus, "t0": t0, "t1": t1,
           "cgroup_cpu_ns": (after - before).cpu_ns, "cgroup_kind": cg.kind,
           # what the CPU limit (perflab run --cpus) held the container back, and how busy fio's CPUs
           # were whoever ran on them: the difference from the container's own time is other work's
           "throttled_ns": (after - before).throttled_ns,
           "host_busy_ns": {str(k): host1[k] - host0[k] for k in host0}}
    if neighbour is not None:
        try:
            text = finished(neighbour, f"neighbour-{name}", p["runtime"] + 30)
            ctx.path("neighbours").mkdir(exist_ok=True)
            (ctx.path("neighbours") / f"{name}.txt").write_text(text)
        finally:
            topo.remove(neighbour)
    with open(ctx.path("measurements.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")
    return rec


def calibrate(ctx: LabContext, cont: FioClient) -> dict:
    """stress-ng --memrate on fio's CPU over a buffer of each working set's size: the rate at which
    this CPU reads memory (64-bit loads, MB/s) when the data fit its caches and when they are in
    DRAM. Written to calibration.json; the raw reports under calibration/."""
    p = ctx.params
    out_dir = ctx.path("calibration")
    out_dir.mkdir(exist_ok=True)
    rates = {}
    for tag, size in (("cache", p["cache_set"]), ("dram", p["dram_set"])):
        # A cache-sized buffer: as many passes as fit in CALIBRATE_S. A DRAM-sized one: two whole passes
        # over every method (read64 comes late in stress-ng's list; a time limit alone can end the run
        # before it, as 2 s did on a 1 GiB buffer), with a generous limit.
        limit = ["-t", str(CALIBRATE_S)] if tag == "cache" else ["--memrate-ops", "2", "-t", "120"]
        # stress-ng 0.19 prints per-method rates only with --metrics
        code, text = cont.sh(" ".join(["stress-ng", "--memrate", "1", "--memrate-bytes", str(int(size)), *limit,
                                       "--metrics"]))
        (out_dir / f"memrate-{tag}.txt").write_text(text)
        if code:
            raise ContainerFailed(f"stress-ng --memrate ({tag}, {size} bytes): exit code {code}\n{text[-1000:]}")
        rates[tag] = {"bytes": int(size), **parse_memrate(text)}
    missing = [t for t, r in rates.items() if "read64" not in r]
    if missing:
        raise ContainerFailed(f"stress-ng --memrate reported no read64 rate for {', '.join(missing)} "
                              f"(see {out_dir.name}/)")
    ctx.path("calibration.json").write_text(json.dumps(rates, indent=2) + "\n")
    return rates


def run(ctx: LabContext) -> None:
    """Two fio clients pinned to CPUs, the working sets in the page cache, the calibration, then every
    configuration and repeat: the raw files under the run's fio/ and beside it (the session then reads
    them back)."""
    p = ctx.params
    fio_cpu, other_cpu = cpu_roles(list(os.sched_getaffinity(0)))
    confs = configurations(p)
    tag = image_tag(ctx, "ht")
    fdir = ctx.path("fio")
    fdir.mkdir(exist_ok=True)
    (fdir / f"{JOB}.fio").write_text((ctx.lab.jobs_dir / f"{JOB}.fio").read_text())
    hw = perfstat.probe_counters()
    hw.update(fio_cpu=fio_cpu, other_cpu=other_cpu, caches=perfstat.cache_sizes(), cpus_online=os.cpu_count())
    ctx.path("hardware.json").write_text(json.dumps(hw, indent=2) + "\n")
    ctx.path("configurations.json").write_text(json.dumps([public(c) for c in confs], indent=2) + "\n")
    with Topology(ctx) as topo:
        with ctx.phase("prepare"):
            vol = topo.volume("data")
            ctr = {}
            for n, cpus in ((1, str(fio_cpu)), (2, f"{other_cpu},{fio_cpu}")):
                cont = FioClient.start(topo, tag, f"fio-{n}cpu", fdir, volumes={vol.name: {"bind": "/data", "mode": "rw"}},
                                       cpuset_cpus=cpus)
                ctr[n] = (cont, cpuacct.ContainerCpu.of(cont.pid()))
            files = [f for _, f in set_files(p) if f != HIDDEN_FILE]   # fincore would print its size
            # Written once (random bytes: nothing can shortcut a copy of them), then read once so that
            # every page is in the page cache before the first measurement.
            script = "set -e; " + "; ".join(
                f"head -c {x} /dev/urandom > /data/{f}" for x, f in set_files(p)) + "; sync; cat /data/*.dat > /dev/null"
            code, out = ctr[1][0].sh(script)
            if code:
                raise ContainerFailed(f"writing the working-set files failed: {out}")
            cache = {"prepared": _fincore(ctr[1][0], files)}
            versions = {k: ctr[1][0].sh(cmd)[1].strip() for k, cmd in
                        (("fio", "fio --version"), ("stress-ng", "stress-ng --version"))}
            ctx.provenance(fio_version=versions["fio"], tools={"stress-ng": versions["stress-ng"],
                                                             "perf": hw.get("version")})
            # The machine's own cache-vs-DRAM gap, measured on fio's CPU before fio runs: the
            # hardware checks compare fio's ratio with this, not with a number from another machine.
            calibrate(ctx, ctr[1][0])
        for ph in PHASES:
            todo = [c for c in confs if c["phase"] == ph]
            if not todo:
                continue
            with ctx.phase(ph):
                for rep in range(p["repeats"]):
                    for c in todo:
                        measure(ctx, topo, tag, c, rep, ctr, hw, fio_cpu, other_cpu)
        cache["end"] = _fincore(ctr[1][0], files)
        ctx.path("cache.json").write_text(json.dumps(cache, indent=2) + "\n")


