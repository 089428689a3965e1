"""The logzilla experiment: its phases, the pool and its disks, fio's job, the change half-way, the two
untars and the strace probe (run: the tool). What it produces is listed in the package's docstring."""
from __future__ import annotations

import time
from pathlib import Path

from perflab.fio import jobs as fio
from perflab.infra import zfs
from perflab.infra.containers import ContainerFailed, Topology, first_write
from perflab.infra.context import LabContext
from perflab.infra.fioservice import FioClient
from perflab.infra.slowdisk import DiskModel

#: For perflab.analysis.sanity: the rate changes on purpose during the run (peak-vs-average does not apply).
INTENT = {"*": {"phased": "a separate log device is added mid-run: the chapter measures before and after apart"}}

JOB = "sync-writes"
DISK_BYTES = 1 << 30       # each emulated disk's backing file (sparse)
DISK_SPAN = 10 ** 12       # seek curve over a 1 TB disk: the data sits on its first GB
#: The log device's size: zfs-fuse frees a log block only once the txg that holds its write is synced, so
#: the device must hold every commit in between. 512 MiB held this lab's ~1,400 commits/s here, but the load
#: lab's 512 MiB one filled in 23 s at 1,967 commits/s (2026-11-27) and ZFS put the ZIL on the pool's disks:
#: a faster machine would have done the same here.
SLOG_MB = 2048
HERE = Path(__file__).resolve().parent
UNTAR_SEED = 2009
#: The emulated SSD's media rate (MB/s): a ZIL block of an 8 KiB write (about 12 KiB) takes ~60 us of it.
SSD_MBPS = 200.0
UNTARS = ("no-log", "with-log")    # in the order they run: fio's run, and the change, between them


def disk_model(p: dict) -> DiskModel:
    return DiskModel(rpm=float(p["rpm"]), capacity=DISK_SPAN, write_cache=bool(p["write_cache"]),
                     seed=1).validate()


def ssd_model(p: dict) -> DiskModel:
    """The log device's SSD: `ssd_ms` per command plus the transfer; no seek, no rotational delay, and
    a free cache flush (an SSD whose cache survives a power loss, as the Logzilla's did)."""
    return DiskModel(rpm=0, seek_min_ms=0, seek_max_ms=0, near_ms=0, overhead_ms=float(p["ssd_ms"]),
                     transfer_mbps=SSD_MBPS, flush_ms=0, seed=1).validate()


def untars(p: dict) -> bool:
    """Whether the run unpacks the archive: it needs files, and a log device to compare with none."""
    return p["untar_files"] > 0 and p["log_device"] != "none"


def plan(p: dict) -> list[tuple[str, float]]:
    # seconds per file measured here: about 0.02 without the log device, 0.002 with it (plus the archive)
    u = untars(p)
    return [("pool", 15.0), *([("untar-no-log", 3.0 + p["untar_files"] * 0.02)] if u else []),
            ("before", p["before"]), ("after", p["after"] + 5),
            *([("untar-with-log", 3.0 + p["untar_files"] * 0.002)] if u else []), ("probes", 8.0), ("collect", 2.0)]


def job_file(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
    jf.apply({"global": {"directory": f"{zfs.EXPORT}/{zfs.POOL}", "size": p["file_size"], "bs": p["bs"],
                         "numjobs": p["threads"], "runtime": int(p["before"] + p["after"])}})
    if p["capture"] == "hist":
        jf.apply({JOB: {"write_lat_log": None, "log_avg_msec": None, "write_hist_log": JOB,
                        "log_hist_msec": 1000}})
    return jf


def recordsize(bs: int) -> str:
    """ZFS record size matched to the I/O size (the posts' advice), within ZFS's 512 B-128 KiB."""
    return str(min(max(bs, 512), 128 * 1024))


def run(ctx: LabContext) -> None:
    """The mirrored pool, fio's synchronous writes with the log device added half-way (and the untars
    around them when asked), then the probes of what fio calls: the raw files under the run's fio/,
    device/ and untar/, and events.json (the session then reads them back)."""

    p = ctx.params
    lp = zfs.lab_paths(ctx)
    tags, out, exp = lp.tags, lp.out, lp.export
    job = job_file(ctx).write(out / f"{JOB}.fio")
    events: dict[str, int] = {}
    try:
        with zfs.lab_containers(ctx, lp) as (topo, _):
            with ctx.phase("pool"):
                srv = zfs.mirrored_server(ctx, topo, lp, disk_model(p), p["mirrors"], DISK_BYTES, {
                    "recordsize": recordsize(p["bs"]), "atime": "off", "compression": "off"})
                srv.start_iostat()
            if untars(p):
                udir = ctx.path("untar")
                udir.mkdir(exist_ok=True)
                untar(topo, tags["fio"], exp, udir, "no-log", p["untar_files"], ctx, events)
            with ctx.phase("before"):
                writers = FioClient.jobs_only(topo, out)
                writers.background(tags["fio"], job.name, JOB, volumes={str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}})
                events["fio_first_write_ms"] = first_write(exp / zfs.POOL / "perflab-logzilla.0.dat")
                writers.running_until(JOB, events["fio_first_write_ms"] / 1000 + p["before"],
                                      "fio ended before the log device was added")
            with ctx.phase("after"):
                events["log_device"] = p["log_device"]
                if p["log_device"] != "none":
                    srv.add_disk_log(SLOG_MB, ssd_model(p) if p["log_device"] == "ssd" else disk_model(p))
                events["change_ms"] = int(time.time() * 1000)
                code = writers.wait(JOB, timeout=p["after"] + 300)
                events["fio_exit_ms"] = int(time.time() * 1000)
                if code != 0:
                    raise ContainerFailed(f"fio: exit {code}\n"
                                          + (out / f"{JOB}.stdout.txt").read_text(errors="replace")[-2000:])
            if untars(p):
                untar(topo, tags["fio"], exp, udir, "with-log", p["untar_files"], ctx, events)
            with ctx.phase("probes"):
                ctx.write_json("arcstats.json", data=zfs.read_kstats(srv))
                # what zpool iostat offers for latency here (OpenZFS has -l and -w; the chapter says what
                # this zfs-fuse answered)
                ctx.write_json("zpool-iostat-latency.json", data={
                    " ".join(c): dict(zip(("exit", "output"), srv.exec(c, check=False)))
                    for c in (["zpool", "iostat", "-l", zfs.POOL], ["zpool", "iostat", "-w", zfs.POOL])})
                syscalls(topo, tags["fio"], exp, out, p["bs"])
                srv.stop()
    finally:
        ctx.write_json("events.json", data=events)


def untar(topo: Topology, image: str, exp: Path, udir: Path, name: str, files: int, ctx: LabContext,
          events: dict) -> None:
    """Phase untar-`name`: make the archive in the container's /tmp (not timed), then unpack it onto
    the pool, a stable create and a commit at close per file (untar.py); the trace and summary land
    in udir, the phase's wall-clock start and end in `events`."""
    dest = f"{zfs.EXPORT}/{zfs.POOL}/untar-{name}"
    sh = (f"mkdir -p {dest} && python3 /lab/untar.py make --files {files} --seed {UNTAR_SEED} /tmp/tree.tar "
          f"> /dev/null && python3 /lab/untar.py extract /tmp/tree.tar {dest} --trace /out/{name}.trace "
          f"--summary /out/{name}.json > /dev/null")
    key = name.replace("-", "_")
    with ctx.phase(f"untar-{name}"):
        events[f"untar_{key}_start_ms"] = int(time.time() * 1000)
        topo.run(image, f"untar-{name}", ["sh", "-c", sh],
                 volumes={str(udir): {"bind": "/out", "mode": "rw"},
                          str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"},
                          str(HERE): {"bind": "/lab", "mode": "ro"}},
                 network_mode="none", timeout=600 + files)
        events[f"untar_{key}_end_ms"] = int(time.time() * 1000)


PROBE_IOS = 97  # a prime: the count in the trace is checked against it


def syscalls(topo, image: str, exp: Path, out: Path, bs: int) -> None:
    """Trace a short run of the same job with strace: how fio opens the file (O_DSYNC) and which
    calls it makes per write (strace -c). Writes fio/strace-open.txt and fio/strace-count.txt."""
    args = ["fio", "--name=probe", f"--filename={zfs.EXPORT}/{zfs.POOL}/probe.dat", "--size=4m", f"--bs={bs}",
            "--rw=write", "--ioengine=psync", "--sync=dsync", f"--number_ios={PROBE_IOS}", "--minimal"]
    vols = {str(out): {"bind": "/out", "mode": "rw"}, str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}}
    topo.run(image, "strace-open", ["strace", "-f", "-qq", "-e", "trace=openat,fsync,fdatasync",
                                    "-o", "/out/strace-open.txt", *args], volumes=vols, network_mode="none",
             timeout=300)
    topo.run(image, "strace-count", ["strace", "-f", "-c", "-o", "/out/strace-count.txt", *args],
             volumes=vols, network_mode="none", timeout=300)
