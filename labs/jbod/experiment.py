"""The jbod experiment: the layout (disks, mirrors, chains, the cabling of each phase), the enclosures
on loop devices, the fio job file, and the run (one fio container per phase)."""
from __future__ import annotations

import contextlib
import hashlib
import time
from pathlib import Path

from perflab.errors import Failed
from perflab.fio import jobs as fio
from perflab.infra import iostat, partitions as blkpg
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext, image_tag
from perflab.infra.hostobjects import loop_device
from perflab.infra.labdirs import tmpfs_scratch

JOB = "stream-write"
PHASES = ("as cabled", "second path", "balanced")
KEYS = {"as cabled": "as-cabled", "second path": "second-path", "balanced": "balanced"}
SETTLE_S = 3.0        # each phase's first seconds (fio starting, queues filling) are left out
ALIGN_BYTES = blkpg.ALIGN_SECTORS * blkpg.SECTOR   # the first partition at 1 MiB, as partitioning tools put it


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

def add_partitions(dev: str, sizes_bytes: list[int]) -> list[str]:
    """One partition per size, back to back from 1 MiB (perflab.infra.partitions); their device paths.
    A partition the kernel refuses, or one that does not appear, fails the run naming it."""
    try:
        return blkpg.add_back_to_back(dev, sizes_bytes)
    except OSError as e:
        raise Failed(e.strerror or str(e)) from None


def jbod_bytes(p: dict) -> int:
    return ALIGN_BYTES + p["disks_per_jbod"] * p["disk_size"]


class Enclosures:
    """The chain devices (made once) and the JBOD devices on them (remade when the cabling changes)."""

    def __init__(self, ctx: LabContext, stack: contextlib.ExitStack, scratch: Path):
        self.ctx, self.p, self.stack, self.scratch = ctx, ctx.params, stack, scratch
        self.chains: list[str] = []          # chain loop device per HBA slot
        self.jbods: dict[int, str] = {}      # JBOD number -> its loop device
        self.disks: dict[tuple[int, int], str] = {}
        self._jbod_stack: contextlib.ExitStack | None = None
        self.layout: list[list[int]] | None = None

    def make_chains(self, n: int) -> None:
        J = self.p["jbods"]
        size = ALIGN_BYTES + J * jbod_bytes(self.p)
        for k in range(n):
            f = self.scratch / f"hba{k + 1}.img"
            with open(f, "wb") as fh:
                fh.truncate(size)
            dev = self.stack.enter_context(loop_device(self.ctx.ledger, str(f)))
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
                dev = self._jbod_stack.enter_context(loop_device(self.ctx.ledger, f"{self.chains[k]}p{j}"))
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

def job_file(ctx: LabContext, disks: dict[tuple[int, int], str]) -> fio.JobFile:
    p = ctx.params
    shipped = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
    jf = fio.JobFile(header=list(shipped.header), sections={"global": list(shipped.sections["global"])})
    jf.apply({"global": {"bs": p["bs"], "iodepth": p["iodepth"], "rate": p["disk_rate"],
                         "runtime": int(p["phase"])}})
    for (j, x), dev in sorted(disks.items()):
        name = job_name(j, x)
        jf.sections[name] = [(k, v) for k, v in shipped.sections["disk"]]
        jf.apply({name: {"filename": dev, "write_lat_log": name}})
    return jf


def run(ctx: LabContext) -> None:
    """The chains and JBODs as loop devices on tmpfs, cabled phase by phase, fio writing every disk under
    each cabling's limits with iostat beside it: the raw files under the run's fio/ and timeline.json
    (the session then reads them back)."""

    p = ctx.params
    tag = image_tag(ctx, "fio")
    fdir = ctx.path("fio")
    fdir.mkdir(exist_ok=True)
    (fdir / f"{JOB}.fio").write_text((ctx.lab.jobs_dir / f"{JOB}.fio").read_text())
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

    with contextlib.ExitStack() as stack:
        with ctx.phase("prepare"):
            scratch = stack.enter_context(tmpfs_scratch(ctx))   # the chains' backing files in RAM
            enc = Enclosures(ctx, stack, scratch)
            enc.make_chains(max(len(c["chains"]) for c in cab.values()))
            topo = stack.enter_context(Topology(ctx))
            version = fio.version(topo, tag)
            ctx.provenance(fio_version=version, tools={"kernel blkio": "cgroup v1 throttle (device_write_bps)"})
        for i, ph in enumerate(PHASES, 1):
            with ctx.phase(ph):
                c = cab[ph]
                enc.cable(c["chains"])
                out = fdir / KEYS[ph]
                out.mkdir(exist_ok=True)
                job = job_file(ctx, enc.disks).write(out / f"{JOB}.fio")
                limits = enc.limits(c["chains"], c["paths"])
                tl["phases"][ph] = {"chains": c["chains"], "paths": {str(j): n for j, n in c["paths"].items()},
                                    "devices": {"chains": enc.chains[:len(c["chains"])],
                                                "jbods": {str(j): d for j, d in enc.jbods.items()}},
                                    "limits": limits, "started": time.time()}
                ctx.write_json("timeline.json", data=tl)
                # iostat -x of the JBODs' and the chains' devices, as a learner would run it on a server
                with iostat.sampling(ctx.ledger, [*enc.jbods.values(), *enc.chains], out / "iostat.txt"):
                    fio.run_in_container(topo, tag, job, out, f"fio-phase{i}", timeout=p["phase"] + 120,
                                         devices=[f"{d}:{d}:rwm" for d in enc.disks.values()],
                                         device_write_bps=limits)
                tl["phases"][ph]["ended"] = time.time()
                ctx.write_json("timeline.json", data=tl)
        # leaving the stack: the container is gone already; JBOD loops, chain loops, scratch dir
