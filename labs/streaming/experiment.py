"""The streaming experiment: the layouts and their arithmetic, the phases, the fio job files, and the
run (a zfs-fuse server over slowdisk disks and a fio client, both containers)."""
from __future__ import annotations

import json
import time
from collections.abc import Mapping

from perflab.fio import jobs as fio
from perflab.infra import zfs
from perflab.infra.containers import EXEC_TIMEOUT_S
from perflab.infra.context import LabContext
from perflab.infra.fioservice import FioClient
from perflab.infra.slowdisk import DiskModel

LAYOUTS = ("mirror", "raidz2")
DISK_BYTES = 2 << 30        # each emulated disk's backing file (sparse)
RECORD = 128 * 1024
ARC_MB = 64
#: a fio run is stopped after this many times its planned seconds (never sooner than the toolkit's
#: default for a command in a container)
FIO_TIMEOUT_FACTOR = 10


def disk_model(p: dict) -> DiskModel:
    """`streaming`: a disk whose cost is its media rate (no rotational delay, short seeks);
    `7200rpm`: slowdisk's 7200 RPM defaults at the same media rate."""
    if p["disk"] == "streaming":
        return DiskModel(rpm=0, seek_min_ms=0.1, seek_max_ms=2.0, transfer_mbps=float(p["disk_mbps"]),
                         seed=3).validate()
    return DiskModel(transfer_mbps=float(p["disk_mbps"]), seed=3).validate()


def layout_vdevs(layout: str, disks: list[str]) -> list[str]:
    """zpool create's vdev arguments: two-way mirrors of consecutive disks, or one RAID-Z2."""
    if layout == "mirror":
        if len(disks) % 2:
            raise ValueError(f"mirrors need an even number of disks, got {len(disks)}")
        return sum((["mirror", disks[i], disks[i + 1]] for i in range(0, len(disks), 2)), [])
    if layout == "raidz2":
        if len(disks) < 4:
            raise ValueError(f"RAID-Z2 needs at least 4 disks, got {len(disks)}")
        return ["raidz2", *disks]
    raise ValueError(f"unknown layout {layout!r} (mirror, raidz2)")


def expected_amplification(layout: str, n_disks: int) -> float:
    """Bytes written to the disks per byte of payload, before metadata: 2 for two-way mirrors,
    n/(n-2) for RAID-Z2 over n disks (each full stripe of n-2 data columns gains 2 parity)."""
    if layout == "mirror":
        return 2.0
    if layout == "raidz2":
        return n_disks / (n_disks - 2)
    raise ValueError(layout)


def plan(p: dict) -> list[tuple[str, float]]:
    n = 2 * p["mirrors"]
    total = p["threads"] * p["file_size"]
    back_rate = 0.6 * n * p["disk_mbps"] * 1e6        # what the disks deliver under ZFS (about 60%)
    steps = [("pool", 12.0)]
    for lay in LAYOUTS:
        steps.append((f"{lay}-write", 3 + total * expected_amplification(lay, n) / back_rate))
        if p["read"]:
            steps.append((f"{lay}-read", 4 + total / back_rate))
    return steps + [("stop", 1.0), ("collect", 4.0)]


def job_files(ctx: LabContext) -> dict[str, fio.JobFile]:
    p = ctx.params
    out = {}
    for kind in ("write", "read"):
        jf = fio.JobFile.load(ctx.lab.jobs_dir / f"stream-{kind}.fio")
        jf.apply({"global": {"directory": f"{zfs.EXPORT}/{zfs.POOL}", "size": p["file_size"],
                             "numjobs": p["threads"]}})
        out[kind] = jf
    return out


def run(ctx: LabContext) -> None:
    """The pool laid out each way in turn over the same emulated disks, a stream written and read back
    by fio in one client: the raw files under the run's fio/ and device/, and events.json (the
    session then reads them back)."""
    p = ctx.params
    lp = zfs.lab_paths(ctx)
    tags, out, dev, exp = lp.tags, lp.out, lp.dev, lp.export
    jobs = job_files(ctx)
    planned = dict(plan(p))
    events: dict[str, dict] = {}
    n = 2 * p["mirrors"]
    try:
        with zfs.lab_containers(ctx, lp) as (topo, _):
            with ctx.phase("pool"):
                srv = zfs.ZfsServer.start(topo, tags["zfs"], exp, dev, zfs_fuse_args=f"-m {ARC_MB}")
                model = disk_model(p)
                disks = srv.make_disks(n, DISK_BYTES, model)
                ctx.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                             disk_model=model.to_options())
                client = FioClient.start(topo, tags["fio"], "fio", out,
                                         volumes={str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}})
            for lay in LAYOUTS:
                ev = events.setdefault(lay, {})
                with ctx.phase(f"{lay}-write"):
                    srv.create_pool(layout_vdevs(lay, disks), {"recordsize": str(RECORD), "atime": "off",
                                                               "compression": "off"})
                    jobs["write"].apply({"stream-write": {"write_bw_log": f"{lay}-write", "write_hist_log": f"{lay}-write"}})
                    job = jobs["write"].write(out / f"{lay}-write.fio")
                    ev["write"] = _fio(client, job.name, f"{lay}-write", planned[f"{lay}-write"])
                    srv.export_pool()       # the last txg reaches the disks
                    ev["write_synced_ms"] = int(time.time() * 1000)
                    srv.exec(["zpool", "import", "-d", zfs.DISKS, zfs.POOL])   # and the ARC is cold
                    ev["imported_ms"] = int(time.time() * 1000)
                    ev["layout"] = " ".join(layout_vdevs(lay, [d.rsplit("/", 1)[-1] for d in disks]))
                if p["read"]:
                    with ctx.phase(f"{lay}-read"):
                        jobs["read"].apply({"stream-read": {"write_bw_log": f"{lay}-read", "write_hist_log": f"{lay}-read"}})
                        job = jobs["read"].write(out / f"{lay}-read.fio")
                        ev["read"] = _fio(client, job.name, f"{lay}-read", planned[f"{lay}-read"])
                srv.export_pool()
                ev["exported_ms"] = int(time.time() * 1000)
            with ctx.phase("stop"):
                srv.stop()
    finally:
        (ctx.path("events.json")).write_text(json.dumps(events, indent=2))


def _fio(client: FioClient, job: str, name: str, planned_s: float) -> dict:
    """Run fio in the (already running) client, stopped after FIO_TIMEOUT_FACTOR times its planned
    seconds; the lab's own clock around it."""
    r = client.run(job, name, timeout=max(EXEC_TIMEOUT_S, FIO_TIMEOUT_FACTOR * planned_s))
    return {"start_ms": r.start_ms, "end_ms": r.end_ms}
