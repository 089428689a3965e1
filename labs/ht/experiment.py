"""The ht experiment (the tool): containers pinned to CPUs, the working-set files in the page cache, the
machine's calibration, and one measurement per configuration and repeat."""
from __future__ import annotations

import json
import os
import time

from perflab.infra import cpuacct, perfstat
from perflab.infra.containers import ContainerFailed, Topology, exec_sh

from .analysis import parse_fincore, parse_memrate, summary, load
from .configs import (CALIBRATE_S, HIDDEN_FILE, JOB, NEIGHBOUR_LEAD_S, PHASES, configurations, cpu_roles, file_of,
                      job_for, public, set_files)

def _fincore(c, files: list[str]) -> dict:
    code, out = exec_sh(c, ["fincore", "-b", "-n", "-o", "RES,SIZE,FILE", *[f"/data/{f}" for f in files]])
    return parse_fincore(out) if code == 0 else {"error": out.strip()}


NEIGHBOUR_CMD = {"stream": ["stress-ng", "--stream", "1"], "cpu": ["stress-ng", "--cpu", "1"]}


def measure(s, topo, tag: str, c: dict, rep: int, ctr: dict, hw: dict, fio_cpu: int, other_cpu: int) -> dict:
    """One measurement: start the neighbour (if any), fio in its container, perf on its CPUs; the
    container's CPU time from its cgroup before and after."""
    p, fdir = s.params, s.path("fio")
    name = c["name"] + (f"-r{rep + 1}" if p["repeats"] > 1 else "")
    job_for(s, c, fio_cpu, other_cpu).write(fdir / f"{name}.fio")
    cont, cg = ctr[c["ncpu"]]
    neighbour = None
    if c["neighbour"]:
        ncpu = other_cpu if c["neighbour"] == "stream" else fio_cpu
        secs = p["runtime"] + 2 * NEIGHBOUR_LEAD_S + 1
        cmd = [*NEIGHBOUR_CMD[c["neighbour"]], "--timeout", f"{secs:.0f}s", "--metrics"]
        neighbour = topo.container(tag, f"neighbour-{name}", cmd, cpuset_cpus=str(ncpu), network_mode="none")
        time.sleep(NEIGHBOUR_LEAD_S)
    cpus = str(fio_cpu) if c["ncpu"] == 1 else f"{other_cpu},{fio_cpu}"
    # Read the file(s) once more first: this VM hands page-cache pages back to its host now and then,
    # and a page that went would be read from the disk during the measurement.
    warm = [f"/data/{file_of(c, k)}" for k in range(1, c["ncpu"] + 1)]
    exec_sh(cont, ["sh", "-c", f"cat {' '.join(warm)} > /dev/null"])
    busy_cpus = [fio_cpu] if c["ncpu"] == 1 else [other_cpu, fio_cpu]
    with perfstat.counting(s.ledger, hw, cpus, p["runtime"], fdir / f"{name}.perf.csv"):
        before, host0, t0 = cg.sample(), cpuacct.host_busy_ns(busy_cpus), time.time()
        code, out = exec_sh(cont, ["sh", "-c", f"fio --output-format=json --output={name}.json {name}.fio "
                                               f"> {name}.stdout.txt 2>&1; rc=$?; cat /proc/$$/io > {name}.io; exit $rc"])
        t1, after, host1 = time.time(), cg.sample(), cpuacct.host_busy_ns(busy_cpus)
    if code != 0:
        tail = (fdir / f"{name}.stdout.txt").read_text(errors="replace")[-2000:] if (fdir / f"{name}.stdout.txt").exists() else out
        raise ContainerFailed(f"fio {name}: exit code {code}\n{tail}")
    rec = {"name": name, "config": c["name"], "repeat": rep + 1, "phase": c["phase"], "set": public(c)["set"], "bs": c["bs"],
           "ncpu": c["ncpu"], "neighbour": c["neighbour"], "cpus": cpus, "t0": t0, "t1": t1,
           "cgroup_cpu_ns": (after - before).cpu_ns, "cgroup_kind": cg.kind,
           # what the CPU limit (perflab run --cpus) held the container back, and how busy fio's CPUs
           # were whoever ran on them: the difference from the container's own time is other work's
           "throttled_ns": (after - before).throttled_ns,
           "host_busy_ns": {str(k): host1[k] - host0[k] for k in host0}}
    if neighbour is not None:
        try:
            neighbour.wait(timeout=p["runtime"] + 30)
            s.path("neighbours").mkdir(exist_ok=True)
            (s.path("neighbours") / f"{name}.txt").write_text(neighbour.logs().decode(errors="replace"))
        finally:
            topo.remove(neighbour)
    with open(s.path("measurements.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")
    return rec


def calibrate(s, cont) -> dict:
    """stress-ng --memrate on fio's CPU over a buffer of each working set's size: the rate at which
    this CPU reads memory (64-bit loads, MB/s) when the data fit its caches and when they are in
    DRAM. Written to calibration.json; the raw reports under calibration/."""
    p = s.params
    out_dir = s.path("calibration")
    out_dir.mkdir(exist_ok=True)
    rates = {}
    for tag, size in (("cache", p["cache_set"]), ("dram", p["dram_set"])):
        # A cache-sized buffer: as many passes as fit in CALIBRATE_S. A DRAM-sized one: two whole passes
        # over every method (read64 comes late in stress-ng's list; a time limit alone can end the run
        # before it, as 2 s did on a 1 GiB buffer), with a generous limit.
        limit = ["-t", str(CALIBRATE_S)] if tag == "cache" else ["--memrate-ops", "2", "-t", "120"]
        code, text = exec_sh(cont, ["stress-ng", "--memrate", "1", "--memrate-bytes", str(int(size)),
                                    *limit, "--metrics"])   # 0.19 prints per-method rates only with --metrics
        (out_dir / f"memrate-{tag}.txt").write_text(text)
        if code:
            raise ContainerFailed(f"stress-ng --memrate ({tag}, {size} bytes): exit code {code}\n{text[-1000:]}")
        rates[tag] = {"bytes": int(size), **parse_memrate(text)}
    missing = [t for t, r in rates.items() if "read64" not in r]
    if missing:
        raise ContainerFailed(f"stress-ng --memrate reported no read64 rate for {', '.join(missing)} "
                              f"(see {out_dir.name}/)")
    s.path("calibration.json").write_text(json.dumps(rates, indent=2) + "\n")
    return rates


def run(s) -> None:
    p = s.params
    fio_cpu, other_cpu = cpu_roles(list(os.sched_getaffinity(0)))
    confs = configurations(p)
    tag = s.manifest.images["ht"].tag
    fdir = s.path("fio")
    fdir.mkdir(exist_ok=True)
    (fdir / f"{JOB}.fio").write_text((s.lab.jobs_dir / f"{JOB}.fio").read_text())
    hw = perfstat.probe_counters()
    hw.update(fio_cpu=fio_cpu, other_cpu=other_cpu, caches=perfstat.cache_sizes(), cpus_online=os.cpu_count())
    s.path("hardware.json").write_text(json.dumps(hw, indent=2) + "\n")
    s.path("configurations.json").write_text(json.dumps([public(c) for c in confs], indent=2) + "\n")
    with Topology(s.run_id, s.lab.name) as topo:
        with s.phase("prepare"):
            vol = topo.volume("data")
            vols = {vol.name: {"bind": "/data", "mode": "rw"}, str(fdir): {"bind": "/out", "mode": "rw"}}
            ctr = {}
            for n, cpus in ((1, str(fio_cpu)), (2, f"{other_cpu},{fio_cpu}")):
                cont = topo.container(tag, f"fio-{n}cpu", ["sleep", "infinity"], cpuset_cpus=cpus, volumes=vols,
                                      working_dir="/out", network_mode="none")
                cont.reload()
                ctr[n] = (cont, cpuacct.ContainerCpu.of(cont.attrs["State"]["Pid"]))
            files = [f for _, f in set_files(p) if f != HIDDEN_FILE]   # fincore would print its size
            # Written once (random bytes: nothing can shortcut a copy of them), then read once so that
            # every page is in the page cache before the first measurement.
            script = "set -e; " + "; ".join(
                f"head -c {x} /dev/urandom > /data/{f}" for x, f in set_files(p)) + "; sync; cat /data/*.dat > /dev/null"
            code, out = exec_sh(ctr[1][0], ["sh", "-c", script])
            if code:
                raise ContainerFailed(f"writing the working-set files failed: {out}")
            cache = {"prepared": _fincore(ctr[1][0], files)}
            versions = {k: exec_sh(ctr[1][0], cmd)[1].strip() for k, cmd in
                        (("fio", ["fio", "--version"]), ("stress-ng", ["stress-ng", "--version"]))}
            s.provenance(fio_version=versions["fio"], tools={"stress-ng": versions["stress-ng"],
                                                             "perf": hw.get("version")})
            # The machine's own cache-vs-DRAM gap, measured on fio's CPU before fio runs: the
            # hardware checks compare fio's ratio with this, not with a number from another machine.
            calibrate(s, ctr[1][0])
        for ph in PHASES:
            todo = [c for c in confs if c["phase"] == ph]
            if not todo:
                continue
            with s.phase(ph):
                for rep in range(p["repeats"]):
                    for c in todo:
                        measure(s, topo, tag, c, rep, ctr, hw, fio_cpu, other_cpu)
        cache["end"] = _fincore(ctr[1][0], files)
        s.path("cache.json").write_text(json.dumps(cache, indent=2) + "\n")
    with s.phase("collect"):
        s.metric(**summary(load(s.data_dir)))


