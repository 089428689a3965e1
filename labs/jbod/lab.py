"""Lab `jbod` (chapter "JBOD cabling: a hierarchy view finds two single-path JBODs", chapters/jbod.md).

The enclosures are block devices stacked on the host; the writers are fio in one container per phase.

    fio (one job per disk) --> /dev/loopJpX   a disk: partition X of JBOD J's loop device
                               /dev/loopJ     the JBOD: its SAS paths = a blkio write-bandwidth limit
                                              (`paths` x `path_bw`) on this device
                               /dev/loopCpJ   JBOD J's slot on the chain it is cabled to
                               /dev/loopC     the chain behind one HBA: a limit of `chain_bw` shared
                                              by every JBOD in the chain
                               /dev/shm/...   a sparse file in RAM (tmpfs) behind each chain

Both limits live in the fio container's blkio cgroup (Docker's --device-write-bps, made and removed
with the container): a limit on a parent device also holds its partitions, and the loop driver
charges the I/O it passes down to the cgroup of the process that issued it, so the chain's limit
holds the writes of all its JBODs together. Partitions are made with the BLKPG ioctl, as `addpart` makes them (the kernel here has
no partition-table parsers; perflab.infra.partitions). Every loop device is written to the run's ledger before it is bound and
released after its partitions are deleted and it is detached (perflab clean does the same after a
crash); the tmpfs directory is a ledger `path`.

Phases, each a fresh fio container writing every disk at `disk_rate`:
  as cabled     JBODs in `single_path` have one path, the others two; the chains as cabled: the
                JBODs in `short_chain` behind HBA 1, the rest behind HBA 2
  second path   every JBOD has two paths; the chains unchanged
  balanced      every JBOD has two paths; the JBODs dealt round-robin over `hbas` chains
The pool is mirrored: disk X of JBOD J mirrors a disk in another JBOD (mirror_pairs); a mirror holds
a block once both sides have written it, so the pool's write throughput is the sum over mirrors of
the slower side's rate.

Collected: fio/<phase>/<job>_clat.N.log (per-I/O completion latency, epoch ms), fio/<phase>/*.json,
the job files as run, and timeline.json (layout, cabling per phase, device names, disk names).
load() reads them back; the analysis is tested in tests/test_jbod.py.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import subprocess
import time
from pathlib import Path

import pandas as pd

from perflab.errors import Failed
from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra.containers import Topology, wait_until
from perflab.infra import partitions as blkpg
from perflab.infra.hostobjects import loop_device, scratch_dir

JOB = "stream-write"
PHASES = ("as cabled", "second path", "balanced")
KEYS = {"as cabled": "as-cabled", "second path": "second-path", "balanced": "balanced"}
SETTLE_S = 3.0        # each phase's first seconds (fio starting, queues filling) are left out
SECTOR = 512
ALIGN = 2048          # first partition at 1 MiB, as partitioning tools do
FELL_BEHIND = 0.85    # a JBOD whose disks wrote less than this share of their set rate could not keep up
MiB = 1 << 20


def plan(p: dict) -> list[tuple[str, float]]:
    return [("prepare", 4.0), *[(ph, p["phase"] + 3.0) for ph in PHASES], ("collect", 3.0)]


# ---------------------------------------------------------------------------------- the layout

def disk_name(j: int, x: int) -> str:
    """A disk's name as the pool lists it: a WWN-like serial that says nothing about its JBOD
    (as in 2009, where the by-disk list gave no hint of which disks shared an enclosure)."""
    h = hashlib.sha1(f"jbod{j}-disk{x}".encode()).hexdigest()[:8].upper()
    return f"c1t5000C500{h}d0"


def job_name(j: int, x: int) -> str:
    return f"j{j}d{x}"


def mirror_pairs(jbods: int, disks: int) -> list[list[tuple[int, int]]]:
    """Mirrors across JBODs: the disks in the order (disk slot, JBOD) paired two by two, so the two
    sides of a mirror are always in different JBODs; with an odd number of disks the last mirror is
    three-way."""
    order = [(j, x) for x in range(1, disks + 1) for j in range(1, jbods + 1)]
    groups = [order[i:i + 2] for i in range(0, len(order) - 1, 2)]
    if len(order) % 2:
        groups[-1].append(order[-1])
    return groups


def as_cabled_chains(jbods: int, short_chain: list[int]) -> list[list[int]]:
    """The chains as cabled: HBA 1 carries the JBODs in short_chain, HBA 2 the rest (an empty
    chain is left out)."""
    short = sorted(set(short_chain))
    rest = [j for j in range(1, jbods + 1) if j not in short]
    return [c for c in (short, rest) if c]


def balanced_chains(jbods: int, hbas: int) -> list[list[int]]:
    """The JBODs dealt round-robin over the HBAs: chain lengths differ by at most one."""
    chains = [[j for j in range(1, jbods + 1) if (j - 1) % hbas == k] for k in range(hbas)]
    return [c for c in chains if c]


def cabling(p: dict) -> dict[str, dict]:
    """For each phase: the chains (lists of JBOD numbers, one per HBA) and each JBOD's paths."""
    J = p["jbods"]
    single = set(p["single_path"])
    cabled = as_cabled_chains(J, p["short_chain"])
    return {
        "as cabled": {"chains": cabled, "paths": {j: 1 if j in single else 2 for j in range(1, J + 1)}},
        "second path": {"chains": cabled, "paths": {j: 2 for j in range(1, J + 1)}},
        "balanced": {"chains": balanced_chains(J, p["hbas"]), "paths": {j: 2 for j in range(1, J + 1)}},
    }


# ---------------------------------------------------------------------------------- host devices

def _sh(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise Failed(f"{' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout.strip()


def partitions(dev: str) -> list[int]:
    """Partition numbers the kernel knows for a block device (from /sys/block)."""
    name = Path(dev).name
    base = Path("/sys/block", name)
    out = []
    for q in base.glob(f"{name}p*"):
        with contextlib.suppress(OSError, ValueError):
            out.append(int((q / "partition").read_text()))
    return sorted(out)


def add_partitions(dev: str, sizes_bytes: list[int]) -> list[str]:
    """One partition per size, back to back from 1 MiB (the BLKPG ioctl, as addpart makes it);
    their device paths."""
    for n in partitions(dev):   # stale partitions left on this (now our) device by an earlier user
        with contextlib.suppress(OSError):
            blkpg.delete(dev, n)
    start = ALIGN
    out = []
    for i, size in enumerate(sizes_bytes, 1):
        sectors = size // SECTOR
        try:
            blkpg.add(dev, i, start * SECTOR, sectors * SECTOR)
        except OSError as e:
            raise Failed(f"adding partition {i} to {dev} (sectors {start}-{start + sectors - 1}): {e.strerror}") from None
        start += sectors
        out.append(f"{dev}p{i}")
    for path in out:
        wait_until(lambda q=path: Path(q).exists(), 10, f"partition {path}")
    return out


def jbod_bytes(p: dict) -> int:
    return ALIGN * SECTOR + p["disks_per_jbod"] * p["disk_size"]


class Enclosures:
    """The chain devices (made once) and the JBOD devices on them (remade when the cabling changes)."""

    def __init__(self, s, stack: contextlib.ExitStack, scratch: Path):
        self.s, self.p, self.stack, self.scratch = s, s.params, stack, scratch
        self.chains: list[str] = []          # chain loop device per HBA slot
        self.jbods: dict[int, str] = {}      # JBOD number -> its loop device
        self.disks: dict[tuple[int, int], str] = {}
        self._jbod_stack: contextlib.ExitStack | None = None
        self.layout: list[list[int]] | None = None

    def make_chains(self, n: int) -> None:
        J = self.p["jbods"]
        size = ALIGN * SECTOR + J * jbod_bytes(self.p)
        for k in range(n):
            f = self.scratch / f"hba{k + 1}.img"
            with open(f, "wb") as fh:
                fh.truncate(size)
            dev = self.stack.enter_context(loop_device(self.s.ledger, str(f)))
            add_partitions(dev, [jbod_bytes(self.p)] * J)
            self.chains.append(dev)

    def cable(self, chains: list[list[int]]) -> None:
        """JBOD j behind chain k: its loop device on slot j of chain k's device."""
        if chains == self.layout:
            return
        if self._jbod_stack is not None:
            self._jbod_stack.close()
        self._jbod_stack = self.stack.enter_context(contextlib.ExitStack())
        self.jbods, self.disks = {}, {}
        for k, members in enumerate(chains):
            for j in members:
                dev = self._jbod_stack.enter_context(loop_device(self.s.ledger, f"{self.chains[k]}p{j}"))
                parts = add_partitions(dev, [self.p["disk_size"]] * self.p["disks_per_jbod"])
                self.jbods[j] = dev
                for x, part in enumerate(parts, 1):
                    self.disks[(j, x)] = part
        self.layout = [list(c) for c in chains]

    def limits(self, chains: list[list[int]], paths: dict[int, int]) -> list[dict]:
        """Docker's device_write_bps: each JBOD's paths, each chain in use."""
        out = [{"Path": self.jbods[j], "Rate": int(paths[j] * self.p["path_bw"])} for j in sorted(self.jbods)]
        out += [{"Path": self.chains[k], "Rate": int(self.p["chain_bw"])} for k in range(len(chains))]
        return out


# ---------------------------------------------------------------------------------- running

def job_file(s, disks: dict[tuple[int, int], str]) -> fio.JobFile:
    p = s.params
    shipped = fio.JobFile.load(s.lab.jobs_dir / f"{JOB}.fio")
    jf = fio.JobFile(header=list(shipped.header), sections={"global": list(shipped.sections["global"])})
    jf.apply({"global": {"bs": p["bs"], "iodepth": p["iodepth"], "rate": p["disk_rate"],
                         "runtime": int(p["phase"])}})
    for (j, x), dev in sorted(disks.items()):
        name = job_name(j, x)
        jf.sections[name] = [(k, v) for k, v in shipped.sections["disk"]]
        jf.apply({name: {"filename": dev, "write_lat_log": name}})
    return jf


def run(s) -> None:
    p = s.params
    tag = s.manifest.images["fio"].tag
    fdir = s.path("fio")
    fdir.mkdir(exist_ok=True)
    (fdir / f"{JOB}.fio").write_text((s.lab.jobs_dir / f"{JOB}.fio").read_text())
    cab = cabling(p)
    J, D = p["jbods"], p["disks_per_jbod"]
    tl: dict = {
        "jbods": J, "disks_per_jbod": D, "single_path": sorted(p["single_path"]), "hbas": p["hbas"],
        "path_bw": p["path_bw"], "chain_bw": p["chain_bw"], "disk_rate": p["disk_rate"], "bs": p["bs"],
        "iodepth": p["iodepth"], "settle_s": SETTLE_S,
        "disks": {job_name(j, x): {"jbod": j, "slot": x, "name": disk_name(j, x)}
                  for j in range(1, J + 1) for x in range(1, D + 1)},
        "mirrors": [[job_name(*d) for d in m] for m in mirror_pairs(J, D)],
        "phases": {},
    }

    def save():
        s.path("timeline.json").write_text(json.dumps(tl, indent=2) + "\n")

    scratch = Path("/dev/shm") / f"perflab-{s.run_id}"
    with contextlib.ExitStack() as stack:
        with s.phase("prepare"):
            stack.enter_context(scratch_dir(s.ledger, scratch))
            enc = Enclosures(s, stack, scratch)
            enc.make_chains(max(len(c["chains"]) for c in cab.values()))
            topo = stack.enter_context(Topology(s.run_id, s.lab.name))
            version = fio.version(topo, tag)
            s.provenance(fio_version=version, tools={"kernel blkio": "cgroup v1 throttle (device_write_bps)"})
        for i, ph in enumerate(PHASES, 1):
            with s.phase(ph):
                c = cab[ph]
                enc.cable(c["chains"])
                out = fdir / KEYS[ph]
                out.mkdir(exist_ok=True)
                job = job_file(s, enc.disks).write(out / f"{JOB}.fio")
                limits = enc.limits(c["chains"], c["paths"])
                tl["phases"][ph] = {"chains": c["chains"], "paths": {str(j): n for j, n in c["paths"].items()},
                                    "devices": {"chains": enc.chains[:len(c["chains"])],
                                                "jbods": {str(j): d for j, d in enc.jbods.items()}},
                                    "limits": limits, "started": time.time()}
                save()
                fio.run_in_container(topo, tag, job, out, f"fio-phase{i}", timeout=p["phase"] + 120,
                                     devices=[f"{d}:{d}:rwm" for d in enc.disks.values()],
                                     device_write_bps=limits)
                tl["phases"][ph]["ended"] = time.time()
                save()
        # leaving the stack: the container is gone already; JBOD loops, chain loops, scratch dir
    with s.phase("collect"):
        d = load(s.data_dir)
        s.metric(**summary(d, p["outlier_ms"]))


# ---------------------------------------------------------------------------------- loading

def load(data_dir: Path) -> dict:
    """The timeline and, per phase, every completed write: phase, job, t (epoch s), lat_ms."""
    data_dir = Path(data_dir)
    tl = json.loads((data_dir / "timeline.json").read_text())
    frames = []
    for ph in tl["phases"]:
        base = data_dir / "fio" / KEYS[ph]
        for job in tl["disks"]:
            for f in sorted(base.glob(f"{job}_clat.*.log*")):
                df = fiolog.read_lat_log(f)
                frames.append(pd.DataFrame({"phase": ph, "job": job, "t": df["time_ms"].to_numpy() / 1000.0,
                                            "lat_ms": df["lat_ns"].to_numpy() / 1e6}))
    ios = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["phase", "job", "t", "lat_ms"])
    return {"timeline": tl, "ios": ios, "data_dir": data_dir}


def windows(ios: pd.DataFrame, settle_s: float = SETTLE_S) -> dict[str, tuple[float, float]]:
    """Each phase's steady window: from its first completion plus settle_s to its last completion."""
    out = {}
    for ph, g in ios.groupby("phase", sort=False):
        out[ph] = (float(g["t"].min()) + settle_s, float(g["t"].max()))
    return out


# ---------------------------------------------------------------------------------- analysis

def disk_stats(d: dict, phase: str, outlier_ms: float) -> pd.DataFrame:
    """Per disk over the phase's steady window: writes/s, MiB/s, mean latency, the average number
    of writes active or queued (Little's law: rate x mean latency, what Analytics called 'average
    I/O operations'), and the writes slower than outlier_ms."""
    tl, ios = d["timeline"], d["ios"]
    t0, t1 = windows(ios, tl.get("settle_s", SETTLE_S))[phase]
    w = ios[(ios["phase"] == phase) & (ios["t"] >= t0) & (ios["t"] <= t1)]
    span = max(t1 - t0, 1e-9)
    rows = []
    for job, info in tl["disks"].items():
        g = w[w["job"] == job]
        n = len(g)
        mean_ms = float(g["lat_ms"].mean()) if n else float("nan")
        rows.append({"job": job, "jbod": info["jbod"], "slot": info["slot"], "disk": info["name"], "writes": n,
                     "iops": n / span, "mib_s": n * tl["bs"] / span / MiB, "mean_ms": mean_ms,
                     "queue": (n / span) * mean_ms / 1000 if n else 0.0,
                     "outliers": int((g["lat_ms"] > outlier_ms).sum())})
    df = pd.DataFrame(rows)
    df["set_mib_s"] = tl["disk_rate"] / MiB
    df["paths"] = df["jbod"].map(lambda j: tl["phases"][phase]["paths"][str(j)])
    df["chain"] = df["jbod"].map(lambda j: chain_of(tl["phases"][phase]["chains"], j))
    df["chain_len"] = df["chain"].map(lambda k: len(tl["phases"][phase]["chains"][k - 1]))
    return df


def phase_writes(d: dict, phase: str) -> pd.DataFrame:
    """Every write of the phase's steady window (the same window as disk_stats), with its JBOD."""
    tl, ios = d["timeline"], d["ios"]
    t0, t1 = windows(ios, tl.get("settle_s", SETTLE_S))[phase]
    w = ios[(ios["phase"] == phase) & (ios["t"] >= t0) & (ios["t"] <= t1)].copy()
    w["jbod"] = w["job"].map(lambda job: tl["disks"][job]["jbod"])
    return w


def slow_band(d: dict, phase: str, outlier_ms: float) -> dict:
    """The heat map's slow band in one phase: the writes slower than outlier_ms, their share of the
    phase's writes, their median latency, the JBODs they came from; and the share of writes that
    finished within 1 ms, and the slowest write."""
    w = phase_writes(d, phase)
    b = w[w["lat_ms"] > outlier_ms]
    n = len(w)
    return {"writes": n, "band": len(b), "share": len(b) / n if n else None,
            "median_ms": float(b["lat_ms"].median()) if len(b) else None,
            "jbods": sorted(int(j) for j in b["jbod"].unique()),
            "under_1ms": float((w["lat_ms"] < 1.0).mean()) if n else None,
            "max_ms": float(w["lat_ms"].max()) if n else None}


def chain_of(chains: list[list[int]], j: int) -> int:
    return next(k for k, c in enumerate(chains, 1) if j in c)


def jbod_stats(disks: pd.DataFrame) -> pd.DataFrame:
    """Per JBOD: the disks' average queue (active + queued writes per disk), their total, MiB/s,
    the share of the set rate reached, and the outliers."""
    g = disks.groupby("jbod")
    out = pd.DataFrame({
        "queue_per_disk": g["queue"].mean(), "queue": g["queue"].sum(), "mib_s": g["mib_s"].sum(),
        "reached": g["mib_s"].sum() / g["set_mib_s"].sum(), "mean_ms": g["mean_ms"].mean(),
        "outliers": g["outliers"].sum(), "paths": g["paths"].first(), "chain": g["chain"].first(),
        "chain_len": g["chain_len"].first()})
    out.index.name = "jbod"
    return out


def detect_slow_jbods(jb: pd.DataFrame, fell_behind: float = FELL_BEHIND) -> list[int]:
    """The JBODs that could not carry their load, found from the measurements alone: those whose
    disks wrote less than `fell_behind` of the rate they were asked for. (A JBOD on a chain that is
    a little oversubscribed loses a few percent; one that lost a path loses a third or more.)"""
    if jb.empty:
        return []
    return sorted(int(j) for j in jb.index[jb["reached"] < fell_behind])


def pool_mib_s(disks: pd.DataFrame, mirrors: list[list[str]]) -> float:
    """The mirrored pool's write throughput: a block is in the pool once every side of its mirror
    has written it, so each mirror counts at its slowest side's rate."""
    rate = disks.set_index("job")["mib_s"]
    return float(sum(min(rate[j] for j in m) for m in mirrors))


def model_disk_mib_s(tl: dict, phase: str, free_mib_s: float | None = None) -> dict[int, float]:
    """The cabling model: each disk's write rate (MiB/s) that the limits allow in a phase. A JBOD
    asks for disks x disk_rate, or what its paths carry if less; a chain's HBA shares chain_bw
    max-min fairly among its JBODs (a JBOD that asks for less than an equal share keeps what it
    asks, the rest is split among the others, as the blkio throttle of the shared chain device
    serves the writers queued on it). `free_mib_s`: what a disk that no limit holds back writes,
    if not the set disk_rate (free_disk_mib_s: fio's paced writers fall a little short of it)."""
    ph = tl["phases"][phase]
    D = tl["disks_per_jbod"]
    rate = tl["disk_rate"] if free_mib_s is None else min(tl["disk_rate"], free_mib_s * MiB)
    want = {int(j): min(D * rate, ph["paths"][str(j)] * tl["path_bw"]) for j in ph["paths"]}
    out = {}
    for chain in ph["chains"]:
        left, todo = float(tl["chain_bw"]), sorted(chain, key=lambda j: want[j])
        while todo:
            share = left / len(todo)
            j = todo.pop(0)
            got = min(want[j], share)
            out[j] = got / D / MiB
            left -= got
    return out


def free_disk_mib_s(disks: pd.DataFrame, tl: dict, phase: str) -> float | None:
    """The median write rate (MiB/s) the phase's free disks reached: those on JBODs that no path or
    chain limit holds below the set rate. fio paces each disk at disk_rate, and on a busy 2-core
    machine a paced writer falls a few percent short of it; the model takes that from the same run
    rather than assume the set rate. None when every disk is held back by a limit."""
    set_rate = tl["disk_rate"] / MiB
    free = [j for j, r in model_disk_mib_s(tl, phase).items() if r >= set_rate * (1 - 1e-9)]
    rates = disks[disks["jbod"].isin(free)]["mib_s"]
    return float(rates.median()) if len(rates) else None


def model_pool_mib_s(tl: dict, phase: str, free_mib_s: float | None = None) -> float:
    """The pool's write rate the cabling model predicts: each mirror at its slower side's rate."""
    rate = model_disk_mib_s(tl, phase, free_mib_s)
    jbod = {job_name(j, x): j for j in rate for x in range(1, tl["disks_per_jbod"] + 1)}
    return float(sum(min(rate[jbod[d]] for d in m) for m in tl["mirrors"]))


def outliers_by_disk(disks: pd.DataFrame) -> pd.DataFrame:
    """The flat list: every disk and its outliers, most first (what Analytics listed by disk)."""
    return disks[["disk", "outliers", "jbod"]].sort_values(["outliers", "disk"], ascending=[False, True])


def share_by_jbod(disks: pd.DataFrame) -> pd.Series:
    """Each JBOD's share of all outliers (the pie's wedges)."""
    tot = disks["outliers"].sum()
    s = disks.groupby("jbod")["outliers"].sum()
    return s / tot if tot else s * 0.0


def chain_effect(jb: pd.DataFrame) -> dict:
    """Second order: with every JBOD dual-pathed, the average queue per disk of the JBODs on the
    shortest chain against those on the longest. None when all chains are as long."""
    lens = jb["chain_len"]
    if lens.min() == lens.max():
        return {"short_len": int(lens.min()), "long_len": int(lens.max()), "short_queue": None,
                "long_queue": None, "ratio": None}
    short = jb[lens == lens.min()]["queue_per_disk"].mean()
    long = jb[lens == lens.max()]["queue_per_disk"].mean()
    return {"short_len": int(lens.min()), "long_len": int(lens.max()), "short_queue": float(short),
            "long_queue": float(long), "ratio": float(long / short) if short > 0 else None}


def spread(jb: pd.DataFrame) -> float:
    """How unequal the JBODs are: highest over lowest average queue per disk."""
    q = jb["queue_per_disk"]
    return float(q.max() / q.min()) if q.min() > 0 else float("inf")


def summary(d: dict, outlier_ms: float) -> dict:
    tl = d["timeline"]
    out: dict = {"outlier_ms": outlier_ms}
    per = {}
    for ph in PHASES:
        if ph not in tl["phases"] or ph not in set(d["ios"]["phase"]):
            continue
        ds = disk_stats(d, ph, outlier_ms)
        per[ph] = (ds, jbod_stats(ds))
    key = {"as cabled": "cabled", "second path": "dual", "balanced": "balanced"}
    for ph, (ds, jb) in per.items():
        k = key[ph]
        out[f"pool_mib_s_{k}"] = round(pool_mib_s(ds, tl["mirrors"]), 2)
        free = free_disk_mib_s(ds, tl, ph)
        out[f"free_disk_reached_{k}"] = round(free / (tl["disk_rate"] / MiB), 4) if free is not None else None
        out[f"pool_model_mib_s_{k}"] = round(model_pool_mib_s(tl, ph, free), 2)
        out[f"disks_mib_s_{k}"] = round(float(ds["mib_s"].sum()), 2)
        out[f"jbod_spread_{k}"] = round(spread(jb), 3)
        out[f"outliers_{k}"] = int(ds["outliers"].sum())
        band = slow_band(d, ph, outlier_ms)
        out[f"outlier_share_{k}"] = round(band["share"], 4) if band["share"] is not None else None
        out[f"band_ms_{k}"] = round(band["median_ms"], 1) if band["median_ms"] is not None else None
        out[f"outlier_jbods_{k}"] = band["jbods"]
        out[f"under_1ms_{k}"] = round(band["under_1ms"], 4) if band["under_1ms"] is not None else None
        out[f"max_ms_{k}"] = round(band["max_ms"], 1) if band["max_ms"] is not None else None
        # Little's law for a disk whose queue is full: latency = iodepth / the disk's completion rate
        bd = ds[ds["jbod"].isin(band["jbods"])]
        out[f"band_little_ms_{k}"] = round(1000 * tl["iodepth"] / float(bd["iops"].mean()), 1) \
            if band["jbods"] and "iodepth" in tl and bd["iops"].mean() > 0 else None
    if "as cabled" in per:
        ds, jb = per["as cabled"]
        det = detect_slow_jbods(jb)
        out["detected_single_path"] = det
        others = jb.drop(index=det)
        if det and len(others):
            out["slow_queue_ratio"] = round(float(jb.loc[det, "queue_per_disk"].mean() / others["queue_per_disk"].mean()), 2)
            out["slow_outlier_share"] = round(float(share_by_jbod(ds).loc[det].sum()), 3)
        else:
            out["slow_queue_ratio"] = None
            out["slow_outlier_share"] = None
        out["slow_reached"] = round(float(jb.loc[det, "reached"].mean()), 3) if det else None
        out["disks_with_outliers"] = int((ds["outliers"] > 0).sum())
    if "as cabled" in per and "second path" in per:
        a, b = out["pool_mib_s_cabled"], out["pool_mib_s_dual"]
        out["recable_gain"] = round(b / a - 1, 4) if a else None
        ma, mb = out["pool_model_mib_s_cabled"], out["pool_model_mib_s_dual"]
        out["recable_gain_model"] = round(mb / ma - 1, 4) if ma else None
    if "second path" in per:
        ce = chain_effect(per["second path"][1])
        out["chain_short_len"], out["chain_long_len"] = ce["short_len"], ce["long_len"]
        out["chain_queue_short"] = round(ce["short_queue"], 4) if ce["short_queue"] is not None else None
        out["chain_queue_long"] = round(ce["long_queue"], 4) if ce["long_queue"] is not None else None
        out["chain_queue_ratio"] = round(ce["ratio"], 3) if ce["ratio"] is not None else None
        jb = per["second path"][1]
        lens = jb["chain_len"]
        out["chain_long_jbods"] = sorted(int(j) for j in jb.index[lens == lens.max()]) if lens.nunique() > 1 else []
        out["chain_long_reached"] = round(float(jb[lens == lens.max()]["reached"].mean()), 3) \
            if lens.nunique() > 1 else None
        out["chain_short_reached"] = round(float(jb[lens == lens.min()]["reached"].mean()), 3) \
            if lens.nunique() > 1 else None
    if "balanced" in per:
        ce = chain_effect(per["balanced"][1])
        out["balanced_chain_lens"] = sorted({len(c) for c in tl["phases"]["balanced"]["chains"]})
        out["balanced_queue_ratio"] = round(ce["ratio"], 3) if ce["ratio"] is not None else None
    return out


def chain_oversubscribed(tl: dict, phase: str) -> bool:
    """The model's prediction: some chain in this phase is asked for more than its HBA carries
    (each JBOD asks for disks x disk_rate, or less when its paths carry less)."""
    ph = tl["phases"][phase]
    per_jbod = tl["disks_per_jbod"] * tl["disk_rate"]
    for chain in ph["chains"]:
        need = sum(min(per_jbod, ph["paths"][str(j)] * tl["path_bw"]) for j in chain)
        if need > tl["chain_bw"]:
            return True
    return False


def oversubscribed_jbods(tl: dict, phase: str) -> list[int]:
    """The JBODs on chains that the model says are asked for more than their HBA carries."""
    ph = tl["phases"][phase]
    per_jbod = tl["disks_per_jbod"] * tl["disk_rate"]
    out = []
    for chain in ph["chains"]:
        need = sum(min(per_jbod, ph["paths"][str(j)] * tl["path_bw"]) for j in chain)
        if need > tl["chain_bw"]:
            out += chain
    return sorted(out)


# ---------------------------------------------------------------------------------- figures

SLOW = "#d62728"
CALM = "#1f77b4"
# One colour per phase, in every figure that shows phases side by side.
PHASE_COLOURS = {"as cabled": SLOW, "second path": CALM, "balanced": "#2ca02c"}


def lat_paths(data_dir: Path) -> list[Path]:
    return sorted(Path(data_dir, "fio").glob("*/j*_clat.*.log*"))


def fig_heatmap(d: dict):
    """Disk I/O latency, every disk, all three phases, with the phase boundaries."""
    from perflab.analysis import heatmap

    ios = d["ios"]
    t0 = float(ios["t"].min())
    hm = heatmap.from_lat_log(lat_paths(d["data_dir"]), t0_ms=int(t0 * 1000))
    fig = heatmap.figure(hm, title="Disk I/O latency, all disks (fio completion latency)")
    for ph, g in ios.groupby("phase", sort=False):
        x = float(g["t"].min()) - t0
        fig.add_vline(x=x, line_dash="dash", line_color="black", row=1, col=1)
        fig.add_annotation(x=x, y=1, yref="paper", text=ph, showarrow=False, xanchor="left", yanchor="bottom")
    return fig


def fig_outliers_flat(disks: pd.DataFrame, threshold_ms: float):
    import plotly.graph_objects as go

    flat = outliers_by_disk(disks)
    fig = go.Figure(go.Bar(x=flat["outliers"], y=flat["disk"], orientation="h", marker_color="#7f7f7f"))
    # every disk labelled (plotly would skip every other label of a crowded category axis)
    fig.update_layout(title=f"Writes slower than {threshold_ms:g} ms, by disk (as cabled)",
                      xaxis_title="writes", height=max(320, 20 * len(flat) + 100),
                      yaxis=dict(autorange="reversed", tickmode="array", tickvals=list(flat["disk"]),
                                 ticktext=list(flat["disk"]), tickfont=dict(size=11)))
    return fig


def fig_outliers_sunburst(disks: pd.DataFrame, threshold_ms: float):
    """The hierarchy: JBOD, then its disks; a wedge's size is its share of the outliers."""
    import plotly.graph_objects as go

    ids, labels, parents, values, hover = [], [], [], [], []
    for j, g in disks.groupby("jbod"):
        ids.append(f"J{j}")
        labels.append(f"JBOD {j:03d}")
        parents.append("")
        values.append(int(g["outliers"].sum()))
        hover.append(f"JBOD {j:03d}")
        for _, r in g.iterrows():
            ids.append(f"J{j}/{r['disk']}")
            labels.append(f"slot {r['slot']}")      # short enough to read in a wedge; the serial on hover
            parents.append(f"J{j}")
            values.append(int(r["outliers"]))
            hover.append(f"{r['disk']} (JBOD {j:03d}, slot {r['slot']})")
    fig = go.Figure(go.Sunburst(ids=ids, labels=labels, parents=parents, values=values, branchvalues="total",
                                hovertext=hover, hoverinfo="text+value+percent root",
                                insidetextorientation="radial"))
    quiet = [f"{j:03d}" for j, g in disks.groupby("jbod") if int(g["outliers"].sum()) == 0]
    fig.update_layout(title=f"The same writes (> {threshold_ms:g} ms) by JBOD, then disk", height=460)
    if quiet:  # a JBOD without a slow write has no wedge: say so rather than let it vanish
        fig.add_annotation(text="no slow writes (no wedge): JBOD " + ", ".join(quiet), x=0.5, y=-0.05,
                           xref="paper", yref="paper", showarrow=False, yanchor="top")
        fig.update_layout(margin=dict(b=60))
    return fig


def fig_queues(per_phase: dict[str, pd.DataFrame], slow: list[int]):
    """Average writes active or queued per disk, by JBOD, in each phase."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for ph, jb in per_phase.items():
        fig.add_bar(x=[f"JBOD {j:03d}" for j in jb.index], y=jb["queue_per_disk"], name=ph,
                    marker_color=PHASE_COLOURS.get(ph), hovertemplate="%{x}: %{y:.3g} writes in flight")
    # A log axis: the queues span three or more decades, and a phase whose queues are near zero is
    # still seen to be there (on a linear axis its bars vanish and their labels collide).
    fig.update_layout(title="Average writes active + queued per disk, by JBOD (rate x mean latency; log scale)",
                      barmode="group", yaxis_title="writes in flight per disk", yaxis_type="log", height=380,
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    return fig


def fig_disk_queues(disks: pd.DataFrame, slow: list[int]):
    import plotly.graph_objects as go

    df = disks.sort_values(["jbod", "slot"])
    fig = go.Figure(go.Bar(x=[f"{r.jbod:03d}/{r.slot}" for r in df.itertuples()], y=df["queue"],
                           marker_color=[SLOW if j in slow else CALM for j in df["jbod"]]))
    fig.update_layout(title="Average writes active + queued, by disk (as cabled; JBOD/slot)",
                      yaxis_title="writes in flight", height=340)
    return fig


def fig_throughput(m: dict):
    import plotly.graph_objects as go

    names = ["as cabled", "second path", "balanced"]
    vals = [m.get("pool_mib_s_cabled"), m.get("pool_mib_s_dual"), m.get("pool_mib_s_balanced")]
    fig = go.Figure(go.Bar(x=names, y=vals, marker_color=[PHASE_COLOURS[n] for n in names],
                           text=[f"{v:.1f} MiB/s" if v is not None else "-" for v in vals], textposition="auto"))
    g = m.get("recable_gain")
    fig.update_layout(title="Pool write throughput (each mirror at its slower side)"
                      + (f": +{g:.0%} with the second path" if g is not None else ""),
                      yaxis_title="MiB/s", height=340)
    return fig


def fig_chains(per_phase: dict[str, pd.DataFrame]):
    """Second order: share of the set rate each JBOD reached, by chain length, before and after
    balancing the chains."""
    from plotly.subplots import make_subplots

    phs = [p for p in ("second path", "balanced") if p in per_phase]
    fig = make_subplots(rows=1, cols=len(phs), subplot_titles=phs, shared_yaxes=True)
    for i, ph in enumerate(phs, 1):
        jb = per_phase[ph]
        # the chain and its length under each JBOD's name (a label inside a near-zero bar cannot be read)
        fig.add_bar(x=[f"{j:03d}<br>ch {c} ({n})" for j, c, n in zip(jb.index, jb["chain"], jb["chain_len"])],
                    y=jb["queue_per_disk"], row=1, col=i, showlegend=False,
                    marker_color=["#ff7f0e" if n == jb["chain_len"].max() and jb["chain_len"].nunique() > 1 else CALM
                                  for n in jb["chain_len"]],
                    hovertemplate="JBOD %{x}: %{y:.3g} writes in flight per disk<extra></extra>")
    # log scale: the queues of a chain with room to spare are thousands of times shorter
    fig.update_yaxes(type="log")
    fig.update_layout(title="Writes in flight per disk, by JBOD and chain (chain number, its length; log scale)",
                      yaxis_title="writes in flight per disk", height=380)
    return fig
