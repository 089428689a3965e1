"""`perflab doctor`'s second half: what on this machine may make a lab's check say "not shown here",
measured before a run (a second or two of probing, nothing left behind).

- the CPUs this process may use (ht pins fio to one and its neighbour to another: it needs two);
- how busy each of them already is with other work (the kernel's count over one second): ht's busy
  checks say "not shown here" where other work takes 10% or more of fio's CPU;
- hardware counters (perf stat): without them ht's CPI is not measured, and says so;
- the disk under the labs' volumes (Docker's volume directory, or --scratch DIR): the median and mean of
  a few hundred O_DIRECT 4 KiB random reads of a scratch file. heatmaps needs them at least 10x a
  page-cache read for its two bands, and at least its direct rate (200 a second by default) for that rate.

Each fact is a measurement and a sentence; `predict` turns them into the labs' expected "not shown
here" lines, with the same thresholds the labs' checks declare.
"""
from __future__ import annotations

import mmap
import os
import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from perflab.infra import cpuacct, perfstat

PROBE_FILE_BYTES = 64 << 20
PROBE_READS = 400
PROBE_BUDGET_S = 3.0
PAGE_CACHE_READ_US = 3.0       # a 4 KiB page-cache read on any current machine, for the band estimate


@dataclass
class Fact:
    name: str
    value: object
    detail: str


def cpus() -> Fact:
    n = sorted(os.sched_getaffinity(0))
    return Fact("cpus", len(n), f"{len(n)} CPU{'s' if len(n) != 1 else ''} usable ({', '.join(map(str, n))})")


def cpu_load(seconds: float = 1.0) -> Fact:
    """Each usable CPU's busy share over `seconds`, as the kernel counts it (this probe sleeps meanwhile)."""
    ids = sorted(os.sched_getaffinity(0))
    a, t0 = cpuacct.host_busy_ns(ids), time.monotonic()
    time.sleep(seconds)
    b, wall = cpuacct.host_busy_ns(ids), time.monotonic() - t0
    share = {c: round(100 * (b[c] - a[c]) / (wall * 1e9), 1) for c in a}
    return Fact("cpu load", share, ", ".join(f"CPU {c} {v:.0f}% busy" for c, v in share.items()))


def counters() -> Fact:
    hw = perfstat.probe_counters()
    return Fact("hardware counters", hw["supported"], hw["message"])


def volume_dir(scratch: Path | None = None) -> Path:
    """Where the labs' volumes will live: --scratch's directory, else Docker's volume directory."""
    return scratch or Path("/var/lib/docker/volumes")


def disk_reads(where: Path | None = None) -> Fact:
    """O_DIRECT 4 KiB random reads of a scratch file under `where`: {"median_us", "mean_us", "reads"}, or
    the reason it could not measure. The file is removed whatever happens."""
    where = Path(where or volume_dir())
    path = where / f".perflab-doctor-{os.getpid()}"
    buf = mmap.mmap(-1, 4096)
    lat = []
    try:
        with open(path, "wb") as f:
            chunk = os.urandom(1 << 20)
            for _ in range(PROBE_FILE_BYTES >> 20):
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        try:
            rng, deadline = random.Random(1), time.monotonic() + PROBE_BUDGET_S
            for _ in range(PROBE_READS):
                off = rng.randrange(PROBE_FILE_BYTES // 4096) * 4096
                t = time.perf_counter_ns()
                os.preadv(fd, [buf], off)
                lat.append((time.perf_counter_ns() - t) / 1000)
                if time.monotonic() > deadline:
                    break
        finally:
            os.close(fd)
    except OSError as e:
        return Fact("volume disk", None, f"{where}: could not measure O_DIRECT reads ({e.strerror or e})")
    finally:
        buf.close()
        path.unlink(missing_ok=True)
    v = {"median_us": round(statistics.median(lat), 1), "mean_us": round(statistics.fmean(lat), 1), "reads": len(lat)}
    return Fact("volume disk", v, f"{where}: O_DIRECT 4 KiB random reads, median {v['median_us']:,.0f} us, "
                                  f"mean {v['mean_us']:,.0f} us ({v['reads']} reads)")


def predict(facts: dict[str, Fact], direct_rate: int = 200) -> list[str]:
    """What the facts say the labs will not show here, each with its measured reason."""
    out = []
    if facts["cpus"].value < 2:
        out.append("ht: cannot run: it pins fio to one CPU and a neighbour to another, and this machine gives one")
    load = facts["cpu load"].value or {}
    if load and max(load.values()) >= 10:
        c = max(load, key=load.get)
        out.append(f"ht: its busy checks may say 'not shown here': CPU {c} is already {load[c]:.0f}% busy with other "
                   f"work (ht pins fio to the last CPU; it says so at 10% or more)")
    if not facts["hardware counters"].value:
        out.append("ht: no CPI (no hardware counters); the chapter says so, no check fails")
    disk = facts.get("volume disk")
    if disk is not None and isinstance(disk.value, dict):
        med, mean = disk.value["median_us"], disk.value["mean_us"]
        if med < 10 * PAGE_CACHE_READ_US:
            out.append(f"heatmaps: the two bands may say 'not shown here': the disk's O_DIRECT reads take a median "
                       f"{med:.0f} us, under 10x a page-cache read (~{PAGE_CACHE_READ_US:g} us)")
        if 1e6 / mean < 0.9 * direct_rate:
            out.append(f"heatmaps: 'the direct job ran at its set rate' will say 'not shown here': one reader at "
                       f"{mean:,.0f} us a read can do {1e6 / mean:,.0f} reads/s, under the {direct_rate} set")
    return out


def gather(disk: bool = True, scratch: Path | None = None) -> dict[str, Fact]:
    """The machine's facts; `disk`: also the volumes' disk (--scratch's directory when given)."""
    facts = {f.name: f for f in (cpus(), cpu_load(), counters())}
    if disk:
        f = disk_reads(volume_dir(scratch))
        facts[f.name] = f
    return facts
