"""Lab `ht` (chapter "HT1 vs HT3: busy is not the same as working", chapters/ht.md).

The lesson of the 2009 post: a CPU can be ~100% busy and still be limited by memory, not by itself.
Here: fio reads a file that is already in the page cache (`invalidate=0`), over and over, pinned to
one CPU. Every read is a system call plus a copy from the page cache into fio's buffer, so the work
is done by the CPU and the memory system and nothing else. The file's size (the working set) decides
where the copy's source lives: in the CPU's own caches (a 128 KiB file) or in DRAM (a file many
times the last-level cache). The CPU is equally busy in both cases; the work it gets done per
CPU-second is not.

Topology: one labelled Docker volume holding one file per working set, and two idle containers of
the `ht` image (fio, stress-ng) that fio runs in with `docker exec`: `fio-1cpu` (cpuset: the fio
CPU) and `fio-2cpu` (cpuset: both CPUs, one fio job pinned to each with cpus_allowed_policy=split).
Neighbours are short-lived containers of the same image: `stress-ng --stream 1` (memory bandwidth)
on the other CPU, or `stress-ng --cpu 1` (pure computation) on fio's CPU. Nothing runs privileged;
no host object besides `perf stat` processes (recorded in the run's ledger) where hardware counters
work.

Measurements, one per configuration and repeat (phases: working sets, block sizes, neighbours, two
CPUs; repeats interleaved):
  fio/<name>.fio, .json, .stdout.txt   the job as run, fio's report (io_bytes, iops, usr/sys CPU)
  fio/<name>.io                        /proc/<shell>/io of the shell that ran (and reaped) fio:
                                       the kernel's own count of bytes read (rchar) and read calls
  fio/<name>.perf.csv                  `perf stat -x,` on fio's CPUs (only if counters work)
  neighbours/<name>.txt                the neighbour's own report (stress-ng --metrics-brief)
  measurements.jsonl                   per measurement: configuration, wall window, and the fio
                                       container's CPU time from its cgroup (cpuacct, per CPU)
  hardware.json                        CPUs, cache sizes, and whether `perf stat -e
                                       cycles,instructions` works (and perf's message when not)
  cache.json                           fincore of every file after preparing and at the end
load() reads them back; summary() gives the chapter's numbers. Logic without Docker is tested in
tests/test_ht.py.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.errors import Failed
from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra import hostobjects
from perflab.infra.containers import ContainerFailed, Topology, exec_sh
from perflab.config.params import fmt_size

JOB = "cached-read"
PHASES = ("working sets", "block sizes", "neighbours", "two CPUs", "hidden set")
#: The mystery variant's extra working set (`probe`), of a size no file of the run shows: its file is
#: hidden.dat, its job has no size (fio reads the whole file), its records say set 0.
HIDDEN_FILE = "hidden.dat"
EXEC_OVERHEAD_S = 0.6      # docker exec, fio start-up and exit, cgroup reads (for the time estimate)
CALIBRATE_S = 2           # seconds of stress-ng --memrate per working set (calibrate())
NEIGHBOUR_LEAD_S = 0.7     # a neighbour starts this long before fio, and outlives it by as much
GiB = float(1 << 30)


# ------------------------------------------------------------------------------- configurations

def sweep_sets(p: dict) -> list[int]:
    """Working sets from cache_set to dram_set, geometrically spaced, `sweep_points` of them, each a
    whole number of blocks (bs) and of 4 KiB pages."""
    lo, hi, n, bs = p["cache_set"], p["dram_set"], p["sweep_points"], p["bs"]
    unit = math.lcm(bs, 4096)
    out = []
    for k in range(n):
        v = lo * (hi / lo) ** (k / (n - 1)) if n > 1 else lo
        v = lo if k == 0 else hi if k == n - 1 else max(unit, round(v / unit) * unit)
        if v not in out:
            out.append(int(v))
    return out


#: For perflab.analysis.sanity: every job here measures the CPU's own path on purpose (cached reads pinned to
#: a CPU, latency not recorded): "client-bound" and "no latency" are the experiment, not traps.
INTENT = {"*": "cpu"}


def _name(c: dict) -> str:
    who = c["neighbour"] or "alone"
    ws = "hidden" if c.get("hidden") else f"ws{fmt_size(c['set'])}"
    return f"{ws}-bs{fmt_size(c['bs'])}-{who}-{c['ncpu']}cpu"


def probe_set(p: dict) -> int | None:
    """The hidden working set's size: twice cache_set (inside the L2 cache of the CPUs this lab was
    made on) or half of dram_set (many times their last-level cache); None without a probe."""
    unit = math.lcm(p["bs"], 4096)
    size = {"none": None, "cache": 2 * p["cache_set"], "dram": p["dram_set"] // 2}[p["probe"]]
    return None if size is None else max(unit, size // unit * unit)


def configurations(p: dict) -> list[dict]:
    """Every configuration the run measures, in order, each once (a configuration that two phases
    would share is measured in the first). Keys: name, phase, set, bs, ncpu, neighbour
    (None, "stream" or "cpu")."""
    out: list[dict] = []
    seen = set()

    def add(phase, size, bs, ncpu=1, neighbour=None, hidden=False):
        c = {"phase": phase, "set": int(size), "bs": int(bs), "ncpu": ncpu, "neighbour": neighbour}
        if hidden:
            c["hidden"] = True
        c["name"] = _name(c)
        if c["name"] not in seen:
            seen.add(c["name"])
            out.append(c)

    ends = (p["cache_set"], p["dram_set"])
    for size in sweep_sets(p):
        add("working sets", size, p["bs"])
    for kib in p["block_sizes_kib"]:
        for size in ends:
            if kib * 1024 <= size:  # a block larger than the file cannot be read from it
                add("block sizes", size, kib * 1024)
    if p["neighbours"]:
        for size in ends:
            add("neighbours", size, p["bs"], neighbour="stream")
        add("neighbours", p["dram_set"], p["bs"], neighbour="cpu")  # the CPU-bound signature needs one set
    if p["two_cpus"]:
        for size in ends:
            add("two CPUs", size, p["bs"], ncpu=2)
    if probe_set(p):
        add("hidden set", probe_set(p), p["bs"], hidden=True)
    return out


def public(c: dict) -> dict:
    """A configuration as the run's files record it: the hidden set's size left out (0)."""
    return {**c, "set": 0} if c.get("hidden") else c


def measurement_s(p: dict, c: dict) -> float:
    return p["runtime"] + EXEC_OVERHEAD_S + (2 * NEIGHBOUR_LEAD_S + 0.5 if c["neighbour"] else 0.0)


def plan(p: dict) -> list[tuple[str, float]]:
    confs = configurations(p)
    # containers, files, calibration (the DRAM pass: about 24 methods x 2 passes over dram_set at ~10 GB/s)
    prep = 6.0 + sum(x for x, _ in set_files(p)) / 0.5e9 + CALIBRATE_S + 1 + 48 * p["dram_set"] / 10e9
    phases = [("prepare", prep)]
    for ph in PHASES:
        t = sum(measurement_s(p, c) for c in confs if c["phase"] == ph) * p["repeats"]
        if t:
            phases.append((ph, t))
    return phases + [("collect", 2.0)]


def cpu_roles(cpus: list[int]) -> tuple[int, int]:
    """(fio's CPU, the other CPU) from the CPUs this process may use: fio gets the last one (the
    first is where the system's own work tends to land)."""
    cpus = sorted(cpus)
    if len(cpus) < 2:
        raise Failed(f"lab ht needs two CPUs (one for fio, one for its neighbour); this process "
                           f"may use only {cpus}")
    return cpus[-1], cpus[0]


def job_for(s, c: dict, fio_cpu: int, other_cpu: int) -> fio.JobFile:
    p = s.params
    jf = fio.JobFile.load(s.lab.jobs_dir / f"{JOB}.fio")
    g = {"filename": f"/data/{file_of(c)}", "size": None if c.get("hidden") else c["set"], "bs": c["bs"],
         "runtime": int(p["runtime"]),
         "pre_read": False}  # the files were read into the page cache when the run prepared them
    jf.apply({"global": g, "read": {"cpus_allowed": fio_cpu}})
    if c["ncpu"] == 2:
        # A second job on the other CPU, reading its own copy of the file: two CPUs reading the same
        # cached pages would also contend for the cache lines of those pages' bookkeeping, which is
        # a different story from memory bandwidth.
        jf.sections["read2"] = [("filename", f"/data/{set_file(c['set'], 2)}"), ("cpus_allowed", str(other_cpu))]
    return jf


def set_file(size: int, copy: int = 1) -> str:
    return f"ws-{fmt_size(size)}.dat" if copy == 1 else f"ws-{fmt_size(size)}-{copy}.dat"


def file_of(c: dict, copy: int = 1) -> str:
    return HIDDEN_FILE if c.get("hidden") else set_file(c["set"], copy)


def set_files(p: dict) -> list[tuple[int, str]]:
    """(size, file name) of every file the run reads: one per working set of the sweep, for the
    two-CPU runs a second copy of both ends, and the hidden set's (if any)."""
    out = [(x, set_file(x)) for x in sweep_sets(p)]
    if p["two_cpus"]:
        out += [(x, set_file(x, 2)) for x in (p["cache_set"], p["dram_set"])]
    if probe_set(p):
        out.append((probe_set(p), HIDDEN_FILE))
    return out


# ------------------------------------------------------------------------------- host-side probes

def parse_proc_cgroup(text: str) -> dict[str, str]:
    """/proc/<pid>/cgroup as {controller: path}; cgroup v2's single line is under ""."""
    out = {}
    for line in text.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) != 3:
            continue
        for ctl in parts[1].split(",") if parts[1] else [""]:
            out[ctl] = parts[2]
    return out


def cgroup_cpu_files(pid: int, root: Path = Path("/sys/fs/cgroup")) -> tuple[Path, str]:
    """The file holding the CPU time of pid's cgroup, and its kind: cgroup v1 cpuacct.usage_percpu
    (ns per CPU) or cgroup v2 cpu.stat (usage_usec, no per-CPU split)."""
    groups = parse_proc_cgroup(Path(f"/proc/{pid}/cgroup").read_text())
    if "cpuacct" in groups:
        rel = groups["cpuacct"].lstrip("/")
        for mnt in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
            f = root / mnt / rel / "cpuacct.usage_percpu"
            if f.exists():
                return f, "v1"
    if "" in groups:
        f = root / groups[""].lstrip("/") / "cpu.stat"
        if f.exists():
            return f, "v2"
    raise Failed(f"no cgroup CPU accounting found for pid {pid} ({groups})")


def read_cpu_ns(f: Path, kind: str) -> list[int]:
    """CPU time of a cgroup in ns: one value per CPU (v1), or one value in all (v2)."""
    text = f.read_text()
    if kind == "v1":
        return [int(x) for x in text.split()]
    m = re.search(r"^usage_usec\s+(\d+)", text, re.M)
    return [int(m.group(1)) * 1000] if m else []


def parse_proc_io(text: str) -> dict[str, int]:
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(":")
        if v.strip().isdigit():
            out[k.strip()] = int(v)
    return out


def parse_perf_csv(text: str) -> dict[str, dict]:
    """`perf stat -x,` output: {event: {"value": int or None, "raw": the counter field}}. perf
    writes '<not supported>' or '<not counted>' in place of a number it could not get."""
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split(",")
        if len(f) < 3:
            continue
        event = f[2].strip().split(":")[0]
        if not event:
            continue
        raw = f[0].strip()
        out[event] = {"value": int(float(raw)) if re.fullmatch(r"[0-9.]+", raw) else None, "raw": raw}
    return out


def cpi_from_perf(events: dict) -> float | None:
    cyc, ins = (events.get(k, {}).get("value") for k in ("cycles", "instructions"))
    return round(cyc / ins, 3) if cyc and ins else None


PERF_EVENTS = "cycles,instructions"


def probe_counters(perf: str | None = None) -> dict:
    """Does `perf stat -e cycles,instructions` count on this machine? {"supported", "message",
    "perf"}: the message is perf's own words when it cannot (what run.json and the chapter show)."""
    perf = perf or shutil.which("perf")
    if not perf:
        return {"supported": False, "perf": None,
                "message": "not supported: perf is not installed (Debian package linux-perf)"}
    try:
        r = subprocess.run([perf, "stat", "-x,", "-e", PERF_EVENTS, "--", "true"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"supported": False, "perf": perf, "message": f"not supported: perf stat failed to run ({e})"}
    version = subprocess.run([perf, "--version"], capture_output=True, text=True).stdout.strip() or None
    events = parse_perf_csv(r.stderr)
    if r.returncode == 0 and events and all(events.get(e, {}).get("value") is not None for e in ("cycles", "instructions")):
        return {"supported": True, "perf": perf, "version": version, "message": "supported"}
    if events:
        said = ", ".join(f"{v['raw']} {k}" for k, v in events.items())
    else:
        said = (r.stderr.strip().splitlines() or [f"exit code {r.returncode}"])[-1]
    return {"supported": False, "perf": perf, "version": version,
            "message": f"not supported: perf stat -e {PERF_EVENTS}: {said}"}


def cache_sizes() -> dict[str, int]:
    """The CPU caches of CPU 0 (sysfs): {"L1d": bytes, "L2": ..., "L3": ...}."""
    out = {}
    for d in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = (d / "level").read_text().strip()
            kind = (d / "type").read_text().strip()
            size = (d / "size").read_text().strip()
        except OSError:
            continue
        if kind == "Instruction":
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", size)
        if m:
            out[f"L{level}" + ("d" if kind == "Data" else "")] = int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20,
                                                                                    "G": 1 << 30}[m.group(2)]
    return out


def parse_fincore(text: str) -> dict[str, dict]:
    """`fincore -b -n -o RES,SIZE,FILE` lines: {file: {"res": bytes cached, "size": bytes}}."""
    out = {}
    for line in text.splitlines():
        f = line.split(None, 2)
        if len(f) == 3 and f[0].isdigit() and f[1].isdigit():
            out[Path(f[2]).name] = {"res": int(f[0]), "size": int(f[1])}
    return out


# ------------------------------------------------------------------------------- running

def _fincore(c, files: list[str]) -> dict:
    code, out = exec_sh(c, ["fincore", "-b", "-n", "-o", "RES,SIZE,FILE", *[f"/data/{f}" for f in files]])
    return parse_fincore(out) if code == 0 else {"error": out.strip()}


def _perf(s, hw: dict, cpus: str, seconds: float, out: Path):
    """perf stat on fio's CPUs for the measurement (a host process in the run's ledger, given 30 s
    to end by itself once the measurement is over); nothing where the counters are not visible."""
    if not hw["supported"]:
        return contextlib.nullcontext()
    return hostobjects.process(s.ledger, [hw["perf"], "stat", "-x,", "-o", str(out), "-e", PERF_EVENTS, "-C", cpus,
                                          "--", "sleep", f"{seconds:g}"], "perf stat",
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


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
        cmd = [*NEIGHBOUR_CMD[c["neighbour"]], "--timeout", f"{secs:.0f}s", "--metrics-brief"]
        neighbour = topo.container(tag, f"neighbour-{name}", cmd, cpuset_cpus=str(ncpu), network_mode="none")
        time.sleep(NEIGHBOUR_LEAD_S)
    cpus = str(fio_cpu) if c["ncpu"] == 1 else f"{other_cpu},{fio_cpu}"
    # Read the file(s) once more first: this VM hands page-cache pages back to its host now and then,
    # and a page that went would be read from the disk during the measurement.
    warm = [f"/data/{file_of(c, k)}" for k in range(1, c["ncpu"] + 1)]
    exec_sh(cont, ["sh", "-c", f"cat {' '.join(warm)} > /dev/null"])
    with _perf(s, hw, cpus, p["runtime"], fdir / f"{name}.perf.csv"):
        before, t0 = read_cpu_ns(*cg), time.time()
        code, out = exec_sh(cont, ["sh", "-c", f"fio --output-format=json --output={name}.json {name}.fio "
                                               f"> {name}.stdout.txt 2>&1; rc=$?; cat /proc/$$/io > {name}.io; exit $rc"])
        t1, after = time.time(), read_cpu_ns(*cg)
    if code != 0:
        tail = (fdir / f"{name}.stdout.txt").read_text(errors="replace")[-2000:] if (fdir / f"{name}.stdout.txt").exists() else out
        raise ContainerFailed(f"fio {name}: exit code {code}\n{tail}")
    rec = {"name": name, "config": c["name"], "repeat": rep + 1, "phase": c["phase"], "set": public(c)["set"], "bs": c["bs"],
           "ncpu": c["ncpu"], "neighbour": c["neighbour"], "cpus": cpus, "t0": t0, "t1": t1,
           "cgroup_cpu_ns": [b - a for a, b in zip(before, after)], "cgroup_kind": cg[1]}
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
                                    *limit, "--metrics-brief"])
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


def parse_memrate(text: str) -> dict:
    """stress-ng --memrate --metrics-brief: {"read64": MB/s, "memset": MB/s, ...}."""
    return {m.group(2): float(m.group(1)) for m in
            re.finditer(r"memrate\s+([\d.]+)\s+(\w+) MB per sec", text)}


def run(s) -> None:
    p = s.params
    fio_cpu, other_cpu = cpu_roles(list(os.sched_getaffinity(0)))
    confs = configurations(p)
    tag = s.manifest.images["ht"].tag
    fdir = s.path("fio")
    fdir.mkdir(exist_ok=True)
    (fdir / f"{JOB}.fio").write_text((s.lab.jobs_dir / f"{JOB}.fio").read_text())
    hw = probe_counters()
    hw.update(fio_cpu=fio_cpu, other_cpu=other_cpu, caches=cache_sizes(), cpus_online=os.cpu_count())
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
                ctr[n] = (cont, cgroup_cpu_files(cont.attrs["State"]["Pid"]))
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


# ------------------------------------------------------------------------------- loading

def _read_text(path: Path) -> str:
    from perflab.run.record import read_lines

    return "\n".join(read_lines(path))


def fio_numbers(result: dict) -> dict:
    """The sums over a report's jobs: bytes and reads, the longest job's runtime, and the CPU time
    fio measured for its jobs (usr_cpu and sys_cpu are percentages of each job's runtime)."""
    jobs = result.get("jobs", [])
    io_bytes = sum(int(j["read"]["io_bytes"]) for j in jobs)
    ios = sum(int(j["read"]["total_ios"]) for j in jobs)
    runtime = max(float(j["read"]["runtime"]) for j in jobs) / 1000
    cpu_s = sum((float(j["usr_cpu"]) + float(j["sys_cpu"])) / 100 * float(j["read"]["runtime"]) / 1000 for j in jobs)
    sys_s = sum(float(j["sys_cpu"]) / 100 * float(j["read"]["runtime"]) / 1000 for j in jobs)
    per_job = [round(int(j["read"]["io_bytes"]) / (float(j["read"]["runtime"]) / 1000) / GiB, 2) for j in jobs]
    return {"io_bytes": io_bytes, "ios": ios, "runtime_s": runtime, "fio_cpu_s": cpu_s, "fio_sys_s": sys_s,
            "jobs": len(jobs), "job_gib_s": per_job}


def load(data_dir: Path) -> dict:
    """Every measurement as a row (per repeat), the per-configuration medians, and the run's
    hardware facts and page-cache evidence."""
    data_dir = Path(data_dir)
    fdir = data_dir / "fio"
    recs = [json.loads(x) for x in _read_text(data_dir / "measurements.jsonl").splitlines() if x.strip()]
    if not recs:
        raise FileNotFoundError(f"no measurements under {data_dir}")
    rows = []
    for r in recs:
        n = fio_numbers(fiolog.read_fio_json(fdir / f"{r['name']}.json"))
        pio = parse_proc_io((fdir / f"{r['name']}.io").read_text())
        perf_f = fdir / f"{r['name']}.perf.csv"
        cpi = cpi_from_perf(parse_perf_csv(perf_f.read_text())) if perf_f.exists() else None
        wall = r["t1"] - r["t0"]
        cg_cpu = sum(r["cgroup_cpu_ns"]) / 1e9
        rows.append({**{k: r[k] for k in ("name", "config", "repeat", "phase", "set", "bs", "ncpu", "neighbour")},
                     **n, "rchar": pio.get("rchar"), "syscr": pio.get("syscr"),
                     "disk_read_bytes": pio.get("read_bytes"), "wall_s": wall,
                     "cgroup_cpu_s": cg_cpu, "cpi": cpi})
    df = pd.DataFrame(rows)
    df["neighbour"] = df["neighbour"].fillna("alone")
    df["gib_s"] = df.io_bytes / df.runtime_s / GiB
    df["iops"] = df.ios / df.runtime_s
    df["cpu_pct"] = 100 * df.fio_cpu_s / (df.runtime_s * df.ncpu)
    df["cgroup_cpu_pct"] = 100 * df.cgroup_cpu_s / (df.wall_s * df.ncpu)
    df["gib_per_cpu_s"] = df.io_bytes / df.fio_cpu_s / GiB
    df["kops_per_cpu_s"] = df.ios / df.fio_cpu_s / 1000
    df["gib_per_cgroup_cpu_s"] = df.io_bytes / df.cgroup_cpu_s / GiB
    # The 2009 sanity check, done against the kernel: reads x block size vs the bytes read() returned.
    df["ops_x_size_error"] = (df.ios * df.bs - df.rchar).abs() / df.rchar
    num = ["gib_s", "iops", "cpu_pct", "cgroup_cpu_pct", "gib_per_cpu_s", "kops_per_cpu_s", "gib_per_cgroup_cpu_s",
           "cpi", "io_bytes", "ios", "rchar", "fio_cpu_s", "fio_sys_s", "cgroup_cpu_s", "runtime_s"]
    keys = ["config", "phase", "set", "bs", "ncpu", "neighbour"]
    agg = df.groupby(keys, sort=False)[num].median().reset_index()
    agg["repeats"] = df.groupby(keys, sort=False).size().values
    agg["spread"] = (df.groupby(keys, sort=False)["gib_per_cpu_s"].agg(lambda x: (x.max() - x.min()) / x.median())
                     .values)
    hw = json.loads((data_dir / "hardware.json").read_text())
    calib = data_dir / "calibration.json"
    calibration = json.loads(calib.read_text()) if calib.exists() else None
    cache = json.loads((data_dir / "cache.json").read_text()) if (data_dir / "cache.json").exists() else {}
    neighbours = {}
    ndir = data_dir / "neighbours"
    for f in sorted(ndir.glob("*.txt")) if ndir.exists() else []:
        neighbours[f.stem] = parse_stress_ng(f.read_text())
    return {"runs": df, "configs": agg, "hw": hw, "cache": cache, "neighbours": neighbours,
            "calibration": calibration}


def parse_stress_ng(text: str) -> dict:
    """stress-ng --metrics-brief: {stressor: bogo ops/s (real time)}, and the stream stressor's
    memory read rate (MB/s, "stream_mb_s") when it printed one."""
    out = {}
    for line in text.splitlines():
        m = re.search(r"\]\s+(\w[\w-]*)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
        if m and m.group(1) not in ("stressor",):
            out[m.group(1)] = float(m.group(6))
        m = re.search(r"memory rate:\s*([\d.]+)\s*MB read", line)
        if m:
            out["stream_mb_s"] = float(m.group(1))
    return out


# ------------------------------------------------------------------------------- the numbers

def pick(agg: pd.DataFrame, size: int, bs: int, ncpu: int = 1, neighbour: str = "alone") -> pd.Series | None:
    r = agg[(agg["set"] == size) & (agg.bs == bs) & (agg.ncpu == ncpu) & (agg.neighbour == neighbour)]
    return None if r.empty else r.iloc[0]


def _r(v, nd=3):
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else round(float(v), nd)


def _calib(cal: dict | None, tag: str, kind: str):
    v = (cal or {}).get(tag, {}).get(kind)
    return _r(v, 0)


def _machine_ratio(cal: dict | None, kind: str):
    c, g = _calib(cal, "cache", kind), _calib(cal, "dram", kind)
    return _r(c / g, 2) if c and g else None


def _largest_read_gap(cal: dict | None) -> tuple[str | None, float | None]:
    """The read method (stress-ng memrate's read8 ... read1024, read64pf, read128pf) whose
    cache-resident rate is the largest multiple of its DRAM rate on this CPU, and that multiple:
    how much a read can gain from the cache here, whatever instructions it uses."""
    gaps = {k: _machine_ratio(cal, k) for k in (cal or {}).get("cache", {}) if k.startswith("read")}
    gaps = {k: v for k, v in gaps.items() if v}
    if not gaps:
        return None, None
    k = max(gaps, key=gaps.get)
    return k, gaps[k]


def hidden_set_metrics(hidden: float, cache: float, dram: float) -> dict:
    """The hidden set's work per CPU-second against the same run's cache-resident and DRAM-sized
    sets', and which of the two it is nearer to (on a log scale: the ratio that is closer to 1)."""
    near = "cache" if abs(math.log(hidden / cache)) < abs(math.log(hidden / dram)) else "dram"
    return {"hidden_gib_per_cpu_s": _r(hidden, 2), "hidden_vs_cache": _r(hidden / cache, 3),
            "hidden_vs_dram": _r(hidden / dram, 3), "detected_hidden": near}


def summary(d: dict, p: dict | None = None) -> dict:
    """The chapter's headline numbers (run.json metrics)."""
    agg, hw, runs = d["configs"], d["hw"], d["runs"]
    base = agg[(agg.phase == "working sets")]
    bs = int(base.bs.iloc[0])
    small, big = int(base["set"].min()), int(base["set"].max())
    c, g = pick(agg, small, bs), pick(agg, big, bs)
    m = {
        "bs": fmt_size(bs), "cache_set": fmt_size(small), "dram_set": fmt_size(big),
        "cache_gib_s": _r(c.gib_s, 2), "dram_gib_s": _r(g.gib_s, 2),
        "cache_cpu_pct": _r(c.cpu_pct, 1), "dram_cpu_pct": _r(g.cpu_pct, 1),
        "cache_cgroup_cpu_pct": _r(c.cgroup_cpu_pct, 1), "dram_cgroup_cpu_pct": _r(g.cgroup_cpu_pct, 1),
        "cache_gib_per_cpu_s": _r(c.gib_per_cpu_s, 2), "dram_gib_per_cpu_s": _r(g.gib_per_cpu_s, 2),
        "work_ratio": _r(c.gib_per_cpu_s / g.gib_per_cpu_s, 2),
        "work_ratio_cgroup": _r(c.gib_per_cgroup_cpu_s / g.gib_per_cgroup_cpu_s, 2),
        # the machine's own gap (calibrate()): 64-bit memory reads on fio's CPU, cache vs DRAM
        "machine_read_ratio": _machine_ratio(d.get("calibration"), "read64"),
        "machine_cache_read_mb_s": _calib(d.get("calibration"), "cache", "read64"),
        "machine_dram_read_mb_s": _calib(d.get("calibration"), "dram", "read64"),
        # ... and the largest gap any read method shows (the bound the chapter holds fio's gap to)
        "machine_read_ratio_max": _largest_read_gap(d.get("calibration"))[1],
        "machine_read_max_method": _largest_read_gap(d.get("calibration"))[0],
        "sweep_min_cpu_pct": _r(base.cpu_pct.min(), 1),
        "sweep_points": int(len(base)),
        "ops_x_size_error_max": _r(runs.ops_x_size_error.max(), 6),
        # Bytes the measurements made the kernel fetch from storage (read_bytes of /proc/PID/io), as a
        # share of the bytes read: zero when every read was served from the page cache.
        "disk_read_bytes_max": int(runs.disk_read_bytes.max()),
        "disk_read_fraction_max": _r((runs.disk_read_bytes / runs.rchar).max(), 6),
        "measurements": int(len(runs)),
    }
    # The shape of the sweep: where the work per CPU-second is highest and lowest, as a share of the
    # smallest (cache-resident) set's.
    sw = base.sort_values("set")
    lo = sw.loc[sw.gib_per_cpu_s.idxmin()]
    m.update({"sweep_best_set": fmt_size(int(sw.loc[sw.gib_per_cpu_s.idxmax(), "set"])),
              "sweep_worst_set": fmt_size(int(lo["set"])),
              "sweep_worst_frac": _r(lo.gib_per_cpu_s / c.gib_per_cpu_s, 3),
              "sweep_worst_is_largest": bool(int(lo["set"]) == big)})
    hid = agg[agg.phase == "hidden set"]
    if len(hid):
        m.update(hidden_set_metrics(float(hid.iloc[0].gib_per_cpu_s), float(c.gib_per_cpu_s), float(g.gib_per_cpu_s)))
    # The 2009 post's check: ops/s x I/O size = bytes/s; here for the smallest blocks from DRAM.
    bsz = agg[(agg.phase.isin(["working sets", "block sizes"])) & (agg["set"] == big) & (agg.neighbour == "alone")
              & (agg.ncpu == 1)].sort_values("bs")
    sm = bsz.iloc[0]
    m.update({"sanity_bs": fmt_size(int(sm.bs)), "sanity_iops": _r(sm.iops, 0),
              "sanity_ops_x_size_gib_s": _r(sm.iops * sm.bs / GiB, 3),
              "sanity_rchar_gib_s": _r(sm.rchar / sm.runtime_s / GiB, 3)})
    # Small reads: ops per CPU-second, cache-resident vs DRAM-sized (the 8 KB ops of 2009).
    smallest = int(bsz.bs.iloc[0])
    cs, gs = pick(agg, small, smallest), pick(agg, big, smallest)
    m["small_bs"] = fmt_size(smallest)
    m["small_ops_ratio"] = _r(cs.kops_per_cpu_s / gs.kops_per_cpu_s, 2) if cs is not None and gs is not None else None
    for who in ("stream", "cpu"):
        for tag, size, alone in (("cache", small, c), ("dram", big, g)):
            r = pick(agg, size, bs, neighbour=who)
            if r is None:
                continue
            m[f"{who}_{tag}_throughput_ratio"] = _r(r.gib_s / alone.gib_s, 3)
            m[f"{who}_{tag}_work_ratio"] = _r(r.gib_per_cpu_s / alone.gib_per_cpu_s, 3)
            m[f"{who}_{tag}_cpu_pct"] = _r(r.cpu_pct, 1)
    for tag, size, alone in (("cache", small, c), ("dram", big, g)):
        r = pick(agg, size, bs, ncpu=2)
        if r is not None:
            m[f"two_cpu_{tag}_scaling"] = _r(r.gib_s / alone.gib_s, 2)
            m[f"two_cpu_{tag}_work_ratio"] = _r(r.gib_per_cpu_s / alone.gib_per_cpu_s, 3)
            jobs = runs[(runs.config == r.config)].job_gib_s.tolist()
            # Per job (the first on fio's CPU, the second on the other), median over the repeats.
            m[f"two_cpu_{tag}_job_gib_s"] = [round(float(np.median([j[k] for j in jobs])), 2) for k in range(2)]
    m["cpi"] = _r(g.cpi, 2)
    m["cpi_cache_resident"] = _r(c.cpi, 2)
    m["hardware_counters"] = hw.get("message")
    rates = [v["stream_mb_s"] for v in d["neighbours"].values() if "stream_mb_s" in v]
    m["stream_neighbour_read_mb_s"] = _r(float(np.median(rates)), 0) if rates else None
    res = [v for when in ("prepared", "end") for v in d["cache"].get(when, {}).values() if isinstance(v, dict)]
    m["cached_fraction_min"] = _r(min(v["res"] / v["size"] for v in res), 4) if res else None
    return m


# ------------------------------------------------------------------------------- figures

SET_COLOURS = {"cache": "#1b9e77", "dram": "#d95f02"}


def _ends(d: dict) -> tuple[int, int, int]:
    base = d["configs"][d["configs"].phase == "working sets"]
    return int(base["set"].min()), int(base["set"].max()), int(base.bs.iloc[0])


def fig_sweep(d: dict):
    """Throughput, work per CPU-second and %CPU against the working set (log scale), with the CPU's
    cache sizes marked."""
    from plotly.subplots import make_subplots

    base = d["configs"][d["configs"].phase == "working sets"].sort_values("set")
    x = base["set"] / 1024
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.62, 0.38], vertical_spacing=0.06)
    fig.add_scatter(x=x, y=base.gib_s, mode="lines+markers", name="throughput (GiB/s)", row=1, col=1)
    fig.add_scatter(x=x, y=base.gib_per_cpu_s, mode="lines+markers", name="work: GiB per CPU-second",
                    line_dash="dot", row=1, col=1)
    fig.add_scatter(x=x, y=base.cpu_pct, mode="lines+markers", name="%CPU (fio's usr+sys)", row=2, col=1)
    fig.add_scatter(x=x, y=base.cgroup_cpu_pct, mode="lines+markers", name="%CPU (container's cgroup)",
                    line_dash="dot", row=2, col=1)
    for level, size in d["hw"].get("caches", {}).items():
        if level in ("L2", "L3"):
            # A line (a shape) takes the data value on a log axis; an annotation takes its log10.
            fig.add_vline(x=size / 1024, line_dash="dash", line_color="grey")
            fig.add_annotation(x=math.log10(size / 1024), xref="x", y=1, yref="y domain",
                               text=f"{level} {fmt_size(size)}", showarrow=False, xanchor="right", yanchor="top",
                               font={"color": "grey"})
    fig.update_xaxes(type="log", title_text="working set (KiB, log scale)", row=2, col=1)
    fig.update_xaxes(type="log", row=1, col=1)
    fig.update_yaxes(title_text="GiB/s, GiB per CPU-s", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="%CPU", range=[0, 105], row=2, col=1)
    fig.update_layout(title=f"Cached reads on one CPU, bs={fmt_size(int(base.bs.iloc[0]))}: the CPU stays busy, "
                            "the work per CPU-second falls", height=560, legend_orientation="h", legend_y=-0.18)
    return fig


def fig_block_sizes(d: dict):
    """Work per CPU-second (bytes and reads) against the block size, for both ends of the sweep."""
    from plotly.subplots import make_subplots

    small, big, _ = _ends(d)
    agg = d["configs"]
    sel = agg[(agg.neighbour == "alone") & (agg.ncpu == 1) & (agg["set"].isin([small, big]))]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("GiB per CPU-second", "thousand reads per CPU-second"))
    for tag, size in (("cache", small), ("dram", big)):
        r = sel[sel["set"] == size].sort_values("bs")
        label = f"{fmt_size(size)} ({'cache-resident' if tag == 'cache' else 'DRAM-sized'})"
        for col, y in ((1, r.gib_per_cpu_s), (2, r.kops_per_cpu_s)):
            fig.add_scatter(x=r.bs / 1024, y=y, mode="lines+markers", name=label, legendgroup=tag,
                            showlegend=col == 1, line_color=SET_COLOURS[tag], row=1, col=col)
    fig.update_xaxes(type="log", title_text="block size (KiB, log scale)")
    fig.update_yaxes(type="log", col=2)
    fig.update_yaxes(rangemode="tozero", col=1)
    fig.update_layout(title="Block size: per-read costs at small blocks, per-byte costs at large ones", height=420)
    return fig


def _bar_pair(d: dict, series: list[tuple[str, str, dict, object]], title: str):
    """Two panels of grouped bars over both ends of the sweep: throughput and work per CPU-second.
    series: (name, colour, pick() keywords, text(row, one-CPU row alone) for the bar)."""
    from plotly.subplots import make_subplots

    small, big, bs = _ends(d)
    agg = d["configs"]
    # Stacked, not side by side: two panels of grouped bars do not fit a phone's width.
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=("throughput (GiB/s)", "work (GiB per CPU-second)"))
    for name, colour, sel, text in series:
        xs, ys, ws, txt = [], [], [], []
        for tag, size in (("cache-resident", small), ("DRAM-sized", big)):
            r = pick(agg, size, bs, **sel)
            xs.append(f"{fmt_size(size)} ({tag})")
            if r is None:  # a configuration the lab does not run (or this run skipped): say so on the chart
                ys.append(0)
                ws.append(0)
                txt.append("not measured")
                continue
            ys.append(r.gib_s)
            ws.append(r.gib_per_cpu_s)
            txt.append(text(r, pick(agg, size, bs)))
        if not any(ys):
            continue
        fig.add_bar(x=xs, y=ys, name=name, marker_color=colour, text=txt, textposition="outside",
                    cliponaxis=False, legendgroup=name, row=1, col=1)
        fig.add_bar(x=xs, y=ws, name=name, marker_color=colour, legendgroup=name, showlegend=False, row=2, col=1)
    fig.update_layout(barmode="group", height=560, title=title,
                      legend=dict(orientation="h", yanchor="top", y=-0.08, x=0))
    return fig


def fig_neighbours(d: dict):
    """Alone, with a memory-bandwidth neighbour on the other CPU, with a CPU hog on fio's CPU: throughput
    and work per CPU-second, %CPU written on the bars."""
    cpu = lambda r, one: f"{r.cpu_pct:.0f}% CPU"  # noqa: E731
    return _bar_pair(d, [("alone", "#7570b3", {}, cpu),
                         ("memory neighbour (other CPU)", "#e7298a", {"neighbour": "stream"}, cpu),
                         ("CPU hog (same CPU)", "#66a61e", {"neighbour": "cpu"}, cpu)],
                     "Neighbours: memory traffic next door, or a CPU hog on the same CPU")


def fig_two_cpus(d: dict):
    """One CPU vs two (one fio job on each): throughput and work per CPU-second for both sets."""
    gain = lambda r, one: f"x{r.gib_s / one.gib_s:.2f}"  # noqa: E731
    return _bar_pair(d, [("1 CPU", "#7570b3", {}, gain), ("2 CPUs", "#e6ab02", {"ncpu": 2}, gain)],
                     "A second CPU: how much more does it read?")
