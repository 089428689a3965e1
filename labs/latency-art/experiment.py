"""The latency-art experiment: its parameters' cross-check, its phases, the disks' models, the two
job files, and its run (slowdisk mounts on tmpfs, one fio container per picture)."""
from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

from perflab.fio import jobs as fio
from perflab.infra import slowdisk
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext
from perflab.infra.labdirs import device_lab, tmpfs_scratch

ICY, PTERO = "icy-lake", "pterodactyl"
ICY_DISK_BYTES = 256 << 20     # each icy-lake disk file (sparse; the writes fill part of it)
STREAM_DISK_BYTES = 1 << 30    # each streaming disk file (sparse: reads of holes cost no host I/O)


def validate(p: dict) -> list[str]:
    """What the schema cannot say: there must be disks beyond the knee to see it."""
    knee = p["ports"] * p["lanes"]
    if p["disks"] < knee + 2:
        return [f"parameter disks={p['disks']}: the knee is expected at ports x lanes = {knee} disks; "
                f"allowed: at least {knee + 2} disks (two phases beyond the knee)"]
    return []


def plan(p: dict) -> list[tuple[str, float]]:
    return [("disks", 3.0), (ICY, p["icy_time"] + 4), (PTERO, p["disks"] * p["phase"] + 4), ("collect", 3.0)]


def icy_model(p: dict, i: int) -> slowdisk.DiskModel:
    rpm = float(p["icy_rpm"]) + (float(p["rpm_offset"]) if i else 0.0)
    return slowdisk.DiskModel(rpm=rpm, seed=1 + i).validate()


def stream_model(p: dict) -> slowdisk.DiskModel:
    return slowdisk.DiskModel(transfer_mbps=float(p["stream_mbps"]), seed=1).validate()


def jbod_of(i: int, ports: int) -> int:
    """Disks alternate between the JBODs (ports): disk 0 on port 0, disk 1 on port 1, ..."""
    return i % ports


def icy_job(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{ICY}.fio")
    jf.apply({"global": {"bs": p["icy_bs"], "runtime": int(p["icy_time"]), "size": 2 * ICY_DISK_BYTES},
              ICY: {"filename": "/icy0/d0:/icy1/d1"}})
    return jf


def sanity_context(p: dict) -> dict:
    """For perflab.analysis.sanity: each pterodactyl disk streams at its own rate until the ports fill, then
    shares them with every disk lit after it: its rate changes on purpose."""
    why = "disks light up one by one; past the ports' knee each disk's share falls as others join"
    return {f"disk{i}": {"phased": why} for i in range(p["disks"])}


def ptero_job(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{PTERO}.fio")
    model = dict(jf.sections.pop("disk0"))
    phase, n = p["phase"], p["disks"]
    for i in range(n):
        sec = f"disk{i}"
        jf.sections[sec] = [(k, v) for k, v in model.items() if k not in ("filename", "startdelay", "runtime")]
        jf.apply({sec: {"filename": f"/jbod{jbod_of(i, p['ports'])}/d{i}",
                        "startdelay": f"{int(round(i * phase * 1000))}ms",
                        "runtime": f"{int(round((n - i) * phase * 1000))}ms"}})
    jf.set("global", "size", STREAM_DISK_BYTES)
    return jf


def _sparse_file(path: Path, size: int) -> None:
    """A file of `size` bytes with no data in it (as `truncate -s`): a disk's backing file."""
    with open(path, "wb") as fh:
        fh.truncate(size)


def run(ctx: LabContext) -> None:
    """Two pictures drawn by fio on emulated disks: icy-lake (two disks of slightly different speeds
    written at random) and pterodactyl (disks lit one by one behind shared ports): the raw files under
    the run's fio/ and device/, and events.json (the session then reads them back)."""
    p = ctx.params
    d = device_lab(ctx)
    tag, out, dev, host = d.tag, d.out, d.dev, d.shm
    icy = icy_job(ctx).write(out / f"{ICY}.fio")
    ptero = ptero_job(ctx).write(out / f"{PTERO}.fio")
    # Backing files and mount points on tmpfs: reading a sparse file on this VM's disk stalls
    # ~18 ms at every 8 MiB (measured), which would draw dots the disk model never made.
    events: dict[str, int] = {}
    try:
        with ExitStack() as stack, Topology(ctx) as topo:
            stack.enter_context(tmpfs_scratch(ctx))   # host's parent, on tmpfs
            with ctx.phase("disks"):
                ctx.provenance(fio_version=fio.version(topo, tag))
                icy_vols, jbod_vols = {}, {}
                for i in range(2):
                    b = host / f"icy{i}"
                    b.mkdir(parents=True)
                    _sparse_file(b / f"d{i}", ICY_DISK_BYTES)
                    m = stack.enter_context(slowdisk.recorded(ctx.ledger, b, host / f"icy{i}-mnt", icy_model(p, i),
                                                             log_dir=dev / f"icy-d{i}", live=topo.live_list))
                    icy_vols[str(m.mountpoint)] = {"bind": f"/icy{i}", "mode": "rw"}
                for j in range(p["ports"]):
                    b = host / f"jbod{j}"
                    b.mkdir(parents=True)
                    for i in range(p["disks"]):
                        if jbod_of(i, p["ports"]) == j:
                            _sparse_file(b / f"d{i}", STREAM_DISK_BYTES)
                    m = stack.enter_context(slowdisk.recorded(ctx.ledger, b, host / f"jbod{j}-mnt", stream_model(p),
                                                              log_dir=dev / f"jbod{j}",
                                                              extra_options=(f"max_threads={p['lanes']}",),
                                                              live=topo.live_list))
                    jbod_vols[str(m.mountpoint)] = {"bind": f"/jbod{j}", "mode": "ro"}
                ctx.provenance(icy_disk_models=[icy_model(p, i).to_options() for i in range(2)],
                             stream_disk_model=stream_model(p).to_options() + [f"max_threads={p['lanes']}"])
            with ctx.phase(ICY):
                fio.run_in_container(topo, tag, icy, out, ICY, volumes=icy_vols, timeout=p["icy_time"] + 300)
            with ctx.phase(PTERO):
                events["pterodactyl_start_ms"] = int(time.time() * 1000)
                fio.run_in_container(topo, tag, ptero, out, PTERO, volumes=jbod_vols,
                                     timeout=p["disks"] * p["phase"] + 300)
                events["pterodactyl_end_ms"] = int(time.time() * 1000)
            for extra in list(out.glob("*_lat.*.log")) + list(out.glob("*_slat.*.log")):
                extra.unlink()   # fio writes them beside the clat logs; the chapter uses clat only
    finally:
        (ctx.path("events.json")).write_text(json.dumps(events, indent=2))
