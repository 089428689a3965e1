"""The l2arc experiment: its phases, its job files and its run (a ZFS server container over two
emulated disks and a zram cache device, fio in a client container)."""
from __future__ import annotations

import time

from perflab.fio import jobs as fio
from perflab.infra import zfs
from perflab.infra.context import LabContext
from perflab.infra.slowdisk import DiskModel

#: For perflab.analysis.sanity: the rate changes on purpose during the run (peak-vs-average does not apply).
INTENT = {"*": {"phased": "the cache warms from cold during the run: rising IOPS are the experiment"}}

RECORD = 8192
DISK_BYTES = 1 << 30
DISK_SPAN = 10 ** 12     # the data sits on the first GB of a 1 TB disk (as on the 7410's disks)


def disk_model() -> DiskModel:
    return DiskModel(capacity=DISK_SPAN, seed=2).validate()


def plan(p: dict) -> list[tuple[str, float]]:
    return [("pool", 15.0), ("fill", p["working_set"] / 40e6 + 10), ("warmup", p["warm_time"] + 5),
            ("off", p["off_time"] + 5), ("tiers", 15.0), ("stop", 5.0), ("collect", 5.0)]


def _jobs(ctx: LabContext) -> dict[str, fio.JobFile]:
    p = ctx.params
    path = f"{zfs.EXPORT}/{zfs.POOL}/working-set.dat"
    j = {name: fio.JobFile.load(ctx.lab.jobs_dir / f"{name}.fio") for name in ("fill", "random-reads", "arc-probe")}
    j["fill"].apply({"global": {"filename": path, "size": p["working_set"]}})
    j["random-reads"].apply({"global": {"filename": path, "size": p["working_set"], "numjobs": p["threads"],
                                        "runtime": int(p["warm_time"])}})
    # the same reads without the cache device: only the run time and the log's name differ
    j["off"] = fio.JobFile.load(ctx.lab.jobs_dir / "random-reads.fio").apply(
        {"global": {"filename": path, "size": p["working_set"], "numjobs": p["threads"],
                    "runtime": int(p["off_time"]), "write_hist_log": "off"}})
    j["arc-probe"].apply({"global": {"filename": f"{zfs.EXPORT}/{zfs.POOL}/small.dat"}})
    return j


def run(ctx: LabContext) -> None:
    """A pool of emulated disks filled with the working set, then read at random with a zram cache
    device (warm-up), without it (off), and a small file read twice (tiers): the raw files under the
    run's fio/ and device/, arcstats-final.json and events.json (the session then reads them back)."""
    p = ctx.params
    lp = zfs.lab_paths(ctx)
    tags, out, dev, export = lp.tags, lp.out, lp.dev, lp.export
    jobs = {k: v.write(out / f"{k}.fio") for k, v in _jobs(ctx).items()}
    events: dict[str, int] = {}

    def fio_run(topo, name):
        vols = {str(export): {"bind": zfs.EXPORT, "mode": "rw,rslave"}}
        fio.run_in_container(topo, tags["fio"], jobs[name], out, name, volumes=vols, timeout=3600)

    try:
        with zfs.lab_containers(ctx, lp, zram_bytes=p["cache_size"]) as (topo, zram):
            with ctx.phase("pool"):
                srv = zfs.ZfsServer.start(topo, tags["zfs"], export, dev, devices=(zram,),
                                          zfs_fuse_args=f"-m {p['arc_size'] >> 20} --disable-block-cache")
                disks = srv.make_disks(p["disks"], DISK_BYTES, disk_model())
                srv.create_pool(disks, {"recordsize": str(RECORD), "atime": "off", "compression": "off",
                                        "primarycache": "all", "secondarycache": "all"})
                ctx.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                               disk_model=disk_model().to_options(), cache_device=zram)
            with ctx.phase("fill"):
                fio_run(topo, "fill")
                srv.reimport((zfs.DISKS,))   # a cold ARC
                srv.add_cache(zram)          # an empty L2ARC (added after the fill: nothing in it)
                # the headers' memory sampled while the cache device is there (after its removal it is 0)
                srv.start_kstat_sampler(names=zfs.ARC_COUNTERS + ("l2_hdr_size", "hdr_size"))
                events["cold_ms"] = int(time.time() * 1000)
            with ctx.phase("warmup"):
                fio_run(topo, "random-reads")
                events["warm_end_ms"] = int(time.time() * 1000)
            with ctx.phase("off"):
                srv.remove_device(zram)      # the L2ARC off; the ARC keeps what it holds
                events["off_start_ms"] = int(time.time() * 1000)
                fio_run(topo, "off")
                events["off_end_ms"] = int(time.time() * 1000)
            with ctx.phase("tiers"):
                events["probe_start_ms"] = int(time.time() * 1000)
                fio_run(topo, "arc-probe")
            with ctx.phase("stop"):
                ctx.write_json("arcstats-final.json", data=zfs.read_kstats(srv))
                srv.stop()
    finally:
        ctx.write_json("events.json", data=events)
