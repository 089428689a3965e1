"""The load experiment: two sweeps of concurrency, their job files and the run.

1. **clients**: `disks` emulated disks (slowdisk on the host, backing files on tmpfs) and a closed
   loop of N clients (fio jobs), each reading 4 KiB at random from a disk drawn at random, then
   thinking `think_ms`; N steps through `clients` (one stonewalled section a step).
2. **sync** (unless `sync_threads` is empty): a ZFS pool of `mirrors` two-way mirrors of emulated
   disks (write cache on), N threads of 8 KiB O_DSYNC writes with no think time, N through
   `sync_threads`; then a log device on an emulated SSD is added and the same sweep runs again.
"""
from __future__ import annotations

import time
from contextlib import ExitStack

from perflab.fio import jobs as fio
from perflab.infra import iostat, slowdisk, zfs
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext
from perflab.infra.hostobjects import scratch_dir
from perflab.infra.labdirs import device_lab

CLIENTS_JOB, SYNC_JOB = "clients", "sync-threads"
SYNC_RUNS = ("nolog", "slog")      # the sync sweep without, then with, the log device
KIB = 1024
DISK_BYTES = 1 << 30               # each clients-sweep disk: a whole 1 GiB disk (the seek curve spans it)
READ_BS = 4 * KIB
SYNC_BS = 8 * KIB
SYNC_FILE = 16 << 20               # each sync thread's file (writes wrap round it)
ZFS_DISK_BYTES = 1 << 30
ZFS_DISK_SPAN = 10 ** 12           # the pool's disks: the data on the first GB of a 1 TB disk (as logzilla)
#: The log device's size. zfs-fuse frees log blocks only once the txg that holds their writes is synced,
#: so the device must hold every commit in between; a 512 MiB one filled in 23 s at 1,967 commits/s
#: (458 MiB written, a trial reference run of 2026-11-27) and ZFS put the ZIL on the pool's disks.
SLOG_MB = 2048
SSD_MBPS = 200.0

#: For perflab.analysis.sanity: the load changes on purpose from step to step.
INTENT = {"*": {"phased": "the sweep adds clients (threads) step by step: the chapter measures each step apart"}}


def disk_model(p: dict) -> slowdisk.DiskModel:
    """Each clients-sweep disk: slowdisk's 7200 RPM default with the run's full-stroke seek."""
    return slowdisk.DiskModel(seek_max_ms=float(p["seek_max_ms"]), seed=1).validate()


def zfs_disk_model() -> slowdisk.DiskModel:
    return slowdisk.DiskModel(capacity=ZFS_DISK_SPAN, write_cache=True, seed=1).validate()


def ssd_model(p: dict) -> slowdisk.DiskModel:
    """The log device: `ssd_ms` per command plus a 200 MB/s transfer, no positioning, a free flush
    (as logzilla's stand-in for a Logzilla)."""
    return slowdisk.DiskModel(rpm=0, seek_min_ms=0, seek_max_ms=0, near_ms=0, overhead_ms=float(p["ssd_ms"]),
                              transfer_mbps=SSD_MBPS, flush_ms=0, seed=1).validate()


def service_ms(p: dict) -> float:
    """The model's mean service time of one 4 KiB random read over a whole disk (no queueing)."""
    return slowdisk.expected_service_ms(disk_model(p), "randread", READ_BS, file_size=DISK_BYTES)


def predicted_knee(p: dict) -> float:
    """Where the clients sweep's throughput stops growing with N, from the disk model alone: each
    client's cycle is a read (S) and a think (Z), the disks together serve at most disks / S reads a
    second, so N clients ask for N / (S + Z) until N* = disks x (S + Z) / S."""
    s = service_ms(p)
    return p["disks"] * (s + float(p["think_ms"])) / s


def validate(p: dict) -> list[str]:
    """What the schema cannot say: the sweeps' shapes, and a clients sweep long enough to pass the knee."""
    out = []
    steps = list(p["clients"])
    shown = ",".join(map(str, steps))
    if steps != sorted(set(steps)) or steps[0] != 1 or len(steps) < 3:
        out.append(f"parameter clients={shown}: allowed: at least three increasing client counts starting at 1 "
                   "(the first step is the unloaded one the knee is measured from)")
    elif steps[-1] < 2 * predicted_knee(p):
        knee = predicted_knee(p)
        out.append(f"parameter clients={shown}: the disk model and think_ms={p['think_ms']:g} predict the knee at "
                   f"{knee:.1f} clients; allowed: a largest step of at least {int(2 * knee) + 1} (twice the knee, "
                   "so that the sweep reaches the flat part)")
    threads = list(p["sync_threads"])
    if threads and (threads != sorted(set(threads)) or threads[0] != 1 or len(threads) < 2):
        out.append(f"parameter sync_threads={','.join(map(str, threads))}: allowed: at least two increasing "
                   "thread counts starting at 1, or empty for no ZFS sweep")
    return out


def plan(p: dict) -> list[tuple[str, float]]:
    out = [("disks", 3.0), ("clients", len(p["clients"]) * (p["step"] + 0.5) + 3)]
    if p["sync_threads"]:
        sweep = len(p["sync_threads"]) * (p["sync_step"] + 1.0) + 4
        out += [("pool", 15.0), ("sync-nolog", sweep), ("sync-slog", sweep + 3), ("collect", 8.0)]
    return out


def clients_job(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    src = fio.JobFile.load(ctx.lab.jobs_dir / f"{CLIENTS_JOB}.fio")
    jf = fio.JobFile(header=list(src.header), sections={"global": list(src.sections["global"])})
    jf.apply({"global": {"filename": ":".join(f"/disks/d{i}" for i in range(p["disks"])), "filesize": DISK_BYTES,
                         "runtime": int(p["step"]), "thinktime": int(round(float(p["think_ms"]) * 1000))}})
    for k, n in enumerate(p["clients"]):
        jf.sections[f"c{n}"] = ([("stonewall", None)] if k else []) + [("numjobs", str(n)),
                                                                       ("write_lat_log", f"c{n}")]
    return jf


def sync_job(ctx: LabContext, run: str) -> fio.JobFile:
    p = ctx.params
    src = fio.JobFile.load(ctx.lab.jobs_dir / f"{SYNC_JOB}.fio")
    jf = fio.JobFile(header=list(src.header), sections={"global": list(src.sections["global"])})
    jf.apply({"global": {"directory": f"{zfs.EXPORT}/{zfs.POOL}", "size": SYNC_FILE, "bs": SYNC_BS,
                         "runtime": int(p["sync_step"])}})
    for k, n in enumerate(p["sync_threads"]):
        jf.sections[f"{run}-s{n}"] = ([("stonewall", None)] if k else []) + [
            ("numjobs", str(n)), ("write_lat_log", f"{run}-s{n}")]
    return jf


def run(ctx: LabContext) -> None:
    """The emulated disks with the clients' steps, then the ZFS pool with the synchronous writers: the
    raw files under the run's fio/ and device/, and events.json (the session then reads them back)."""
    p = ctx.params
    d = device_lab(ctx)
    events: dict = {"clients": list(p["clients"]), "sync_threads": list(p["sync_threads"]),
                    "disks": p["disks"], "think_ms": float(p["think_ms"]), "service_ms_model": service_ms(p),
                    "knee_model": predicted_knee(p), "disk_bytes": DISK_BYTES, "sync_bs": SYNC_BS}
    try:
        clients(ctx, d, events)
        if p["sync_threads"]:
            sync(ctx, events)
    finally:
        ctx.write_json("events.json", data=events)


def clients(ctx: LabContext, d, events: dict) -> None:
    p = ctx.params
    job = clients_job(ctx).write(d.out / f"{CLIENTS_JOB}.fio")
    with ExitStack() as stack, Topology(ctx) as topo:
        stack.enter_context(scratch_dir(ctx.ledger, d.shm.parent))
        with ctx.phase("disks"):
            ctx.provenance(fio_version=fio.version(topo, d.tag))
            back = d.shm / "backing"
            back.mkdir(parents=True)
            for i in range(p["disks"]):
                with open(back / f"d{i}", "wb") as f:   # sparse: reading a hole costs the host nothing
                    f.truncate(DISK_BYTES)
            logs = d.dev / "disks"
            logs.mkdir(exist_ok=True)
            m = stack.enter_context(slowdisk.recorded(ctx.ledger, back, d.shm / "mnt", disk_model(p), log_dir=logs,
                                                      log_wait=True, live=topo.live_list))
            ctx.provenance(disk_model=disk_model(p).to_options())
        with ctx.phase("clients"):
            fio.run_in_container(topo, d.tag, job, d.out, CLIENTS_JOB,
                                 volumes={str(m.mountpoint): {"bind": "/disks", "mode": "rw"}},
                                 timeout=len(p["clients"]) * (p["step"] + 5) + 300)
    for extra in list(d.out.glob("c*_lat.*.log")) + list(d.out.glob("c*_slat.*.log")):
        extra.unlink()   # fio writes them beside the clat logs; the chapter uses clat only


def sync(ctx: LabContext, events: dict) -> None:
    p = ctx.params
    lp = zfs.lab_paths(ctx)
    (lp.dev / "pool").mkdir(exist_ok=True)
    with zfs.lab_containers(ctx, lp) as (topo, _):
        with ctx.phase("pool"):
            srv = zfs.ZfsServer.start(topo, lp.tags["zfs"], lp.export, lp.dev / "pool")
            model = zfs_disk_model()
            disks = srv.make_disks(2 * p["mirrors"], ZFS_DISK_BYTES, model)
            layout = []
            for i in range(p["mirrors"]):
                layout += ["mirror", disks[2 * i], disks[2 * i + 1]]
            srv.create_pool(layout, {"recordsize": str(SYNC_BS), "atime": "off", "compression": "off"})
            ctx.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                         zfs_disk_model=model.to_options(), pool_layout=" ".join(layout),
                         slog_model=ssd_model(p).to_options())
        vols = {str(lp.export): {"bind": zfs.EXPORT, "mode": "rw,rslave"}}
        # iostat on the host: how busy the CPUs were at each step (its avg-cpu lines)
        with iostat.sampling(ctx.ledger, [], lp.dev / "iostat.txt"):
            for run in SYNC_RUNS:
                if run == "slog":
                    srv.add_disk_log(SLOG_MB, ssd_model(p), log_subdir="slog")
                    events["slog_added_ms"] = int(time.time() * 1000)
                with ctx.phase(f"sync-{run}"):
                    job = sync_job(ctx, run).write(lp.out / f"{SYNC_JOB}-{run}.fio")
                    fio.run_in_container(topo, lp.tags["fio"], job, lp.out, f"{SYNC_JOB}-{run}", volumes=vols,
                                         timeout=len(p["sync_threads"]) * (p["sync_step"] + 10) + 300)
        with ctx.phase("collect"):
            srv.stop()
    for extra in list(lp.out.glob("*-s*_lat.*.log")) + list(lp.out.glob("*-s*_slat.*.log")):
        extra.unlink()

