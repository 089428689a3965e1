"""The disk-model experiment: its seven phases, each on its own emulated disk, the disks' models,
the job file, and the run (three slowdisk mounts on tmpfs, one fio container)."""
from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack

from perflab.fio import jobs as fio
from perflab.infra import slowdisk
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext
from perflab.infra.hostobjects import scratch_dir
from perflab.infra.labdirs import device_lab

JOB = "components"
KIB = 1024
GIB = 1 << 30
#: The experiments, in the order they run: (mount, backing file's bytes). Each is one disk (file).
PHASES = {
    "random": ("plain", 1 * GIB),        # the whole disk: the seek curve spans this file
    "stroke": ("slice", 64 << 20),       # a 64 MiB slice ...
    "seq": ("plain", 8 * GIB),           # long enough not to wrap round in a phase
    "write-off": ("plain", 1 * GIB),
    "write-on": ("cached", 1 * GIB),
    "dsync-on": ("cached", 1 * GIB),
    "flush-on": ("cached", 1 * GIB),
}
SLICE_CAPACITY = 1 << 40                 # ... of a 1 TiB disk (slowdisk's capacity option)
#: What each mount changes in the disk model (the rest is the run's parameters).
MOUNTS = {"plain": {}, "slice": {"capacity": SLICE_CAPACITY}, "cached": {"write_cache": True}}
RANDOM_BS, SEQ_BS, WRITE_BS = 4 * KIB, 128 * KIB, 4 * KIB

#: For perflab.analysis.sanity: the read jobs measure the (emulated) disk.
INTENT = {"random": "disk", "stroke": "disk", "seq": "disk"}


def disk_model(p: dict, mount: str = "plain") -> slowdisk.DiskModel:
    """The emulated disk of one mount: slowdisk's defaults, the run's rpm, full-stroke seek, media
    rate and flush cost, and the mount's own setting (capacity, write cache)."""
    return slowdisk.DiskModel(rpm=float(p["rpm"]), seek_max_ms=float(p["seek_max_ms"]),
                              transfer_mbps=float(p["transfer_mbps"]), flush_ms=float(p["flush_ms"]),
                              seed=1, **MOUNTS[mount]).validate()


def plan(p: Mapping) -> list[tuple[str, float]]:
    return [("disks", 3.0), ("experiments", len(PHASES) * p["phase"] + 8), ("collect", 5.0)]


def job_file(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
    jf.set("global", "runtime", int(p["phase"]))
    for ph, (mount, size) in PHASES.items():
        jf.apply({ph: {"filename": f"/{mount}/{ph}", "size": size}})
    return jf


def run(ctx: LabContext) -> None:
    """The emulated disks mounted on tmpfs, then fio's phases on them: the raw files under the run's fio/
    and device/ (the session then reads them back)."""
    p = ctx.params
    d = device_lab(ctx)
    tag, out, dev, host = d.tag, d.out, d.dev, d.shm
    job = job_file(ctx).write(out / f"{JOB}.fio")
    # Backing files and mount points on tmpfs: the host's own disk must add no delays of its own.
    with ExitStack() as stack, Topology(ctx) as topo:
        stack.enter_context(scratch_dir(ctx.ledger, host.parent))
        with ctx.phase("disks"):
            ctx.provenance(fio_version=fio.version(topo, tag))
            vols = {}
            for mount in MOUNTS:
                b = host / mount
                b.mkdir(parents=True)
                for ph, (mnt, size) in PHASES.items():
                    if mnt == mount:   # sparse files: reading a hole costs the host nothing
                        with open(b / ph, "wb") as f:
                            f.truncate(size)
                m = stack.enter_context(slowdisk.recorded(ctx.ledger, b, host / f"{mount}-mnt",
                                                          disk_model(p, mount), log_dir=dev / mount,
                                                          live=topo.live_list))
                vols[str(m.mountpoint)] = {"bind": f"/{mount}", "mode": "rw"}
            ctx.provenance(disk_models={mount: disk_model(p, mount).to_options() for mount in MOUNTS})
        with ctx.phase("experiments"):
            fio.run_in_container(topo, tag, job, out, JOB, volumes=vols,
                                 timeout=len(PHASES) * p["phase"] + 300)
        for extra in list(out.glob("*_lat.*.log")) + list(out.glob("*_slat.*.log")):
            extra.unlink()   # fio writes them beside the clat logs; the chapter uses clat only
