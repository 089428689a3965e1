"""The ht lab's configurations: the working sets, block sizes, neighbours and CPUs each measurement
uses, the files it reads, and the run's plan (phases and their expected time)."""
from __future__ import annotations

import math

from perflab.config.params import fmt_size
from perflab.errors import Failed
from perflab.fio import jobs as fio
from perflab.infra.context import LabContext

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


def config_name(c: dict) -> str:
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
        c["name"] = config_name(c)
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


def job_for(ctx: LabContext, c: dict, fio_cpu: int, other_cpu: int) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
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


