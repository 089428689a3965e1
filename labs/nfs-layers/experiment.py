"""The nfs-layers experiment: the pool and its disks, the NFS server in front of it, the tracer on the
server, fio's stable writes over NFS, and the log device added half-way (run: the tool). What it
produces is listed in the package's docstring."""
from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from perflab.fio import jobs as fio
from perflab.infra import zfs
from perflab.infra.containers import ContainerFailed, first_write, wait_until
from perflab.infra.context import LabContext, image_tag
from perflab.infra.fioservice import FioClient
from perflab.infra.nfsserver import CAPS as SERVER_CAPS, NfsServer
from perflab.infra.slowdisk import DiskModel
from perflab.infra.tracers import Bpftrace

#: For perflab.analysis.sanity: the rate changes on purpose during the run (peak-vs-average does not apply).
INTENT = {"*": {"phased": "a separate log device is added mid-run: the chapter measures before and after apart"}}

HERE = Path(__file__).resolve().parent
JOB = "nfs-sync-writes"
DISK_BYTES = 1 << 30       # each emulated disk's backing file (sparse)
DISK_SPAN = 10 ** 12       # seek curve over a 1 TB disk: the data sits on its first GB
SLOG_MB = 2048             # as the logzilla lab's (its SLOG_MB says why a smaller one fills)
SSD_MBPS = 200.0           # the emulated SSD's media rate, as the logzilla lab's
#: NFS-Ganesha's rights (perflab.infra.nfsserver.CAPS, SERVER_CAPS here): the VFS back end opens files by
#: handle (SYS_ADMIN, DAC_READ_SEARCH) and takes each client's credentials on its worker threads (SETUID,
#: SETGID: without them a create fails with "set_threadgroups() returned Operation not permitted" and the
#: server exits).
NFS_URL = "nfs://server/export?version=3&nfsport=2049&mountport=20048"
TRACE = "nfswrite.bt"
TRACE_OUT = "nfswrite.json"


def disk_model(p: dict) -> DiskModel:
    return DiskModel(rpm=float(p["rpm"]), capacity=DISK_SPAN, write_cache=True, seed=1).validate()


def ssd_model(p: dict) -> DiskModel:
    """The log device's SSD, as the logzilla lab's: `ssd_ms` per command plus the transfer, no seek or
    rotation, a free cache flush."""
    return DiskModel(rpm=0, seek_min_ms=0, seek_max_ms=0, near_ms=0, overhead_ms=float(p["ssd_ms"]),
                     transfer_mbps=SSD_MBPS, flush_ms=0, seed=1).validate()


def plan(p: Mapping) -> list[tuple[str, float]]:
    return [("pool", 15.0), ("server", 10.0), ("before", p["before"]), ("after", p["after"] + 5),
            ("trace", 10.0), ("collect", 5.0)]


def job_file(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
    jf.apply({"global": {"nfs_url": NFS_URL, "size": p["file_size"], "bs": p["bs"], "numjobs": p["threads"],
                         "runtime": int(p["before"] + p["after"])}})
    return jf


def recordsize(bs: int) -> str:
    """ZFS record size matched to the I/O size (the posts' advice), within ZFS's 512 B-128 KiB."""
    return str(min(max(bs, 512), 128 * 1024))


#: a setting an NFS-Ganesha image's own configuration may carry that the lab's must carry too
FLUSHER = "allow_set_io_flusher_fail = true;"


def server_conf(image_conf: str) -> str:
    """The lab's NFS-Ganesha configuration (ganesha.conf beside this file), with the image's
    `allow_set_io_flusher_fail` when the image's own configuration sets it: NFS-Ganesha 6 (Debian 13)
    stops at start without it where the container may not have CAP_SYS_RESOURCE
    (containers/suites/trixie/ganesha.Dockerfile), and 4.3 (Debian 12) does not know the option."""
    text = (HERE / "ganesha.conf").read_text()
    if FLUSHER not in image_conf:
        return text
    return text.replace("NFS_CORE_PARAM {\n", "NFS_CORE_PARAM {\n    " + FLUSHER + "\n", 1)


def run(ctx: LabContext) -> None:
    """The pool, the NFS server in front of it and the tracer on the server, fio's stable writes over NFS
    with the log device added half-way: the raw files under the run's fio/, device/, server/ and
    trace/, and events.json (the session then reads them back)."""
    p = ctx.params
    lp = zfs.lab_paths(ctx)
    # fio here is the NFS client's build (nfsfio): its version is the one the run's provenance records
    tags = {**lp.tags, "fio": image_tag(ctx, "nfsfio"), **{n: image_tag(ctx, n) for n in ("ganesha", "desktop")}}
    lp.tags["fio"] = tags["fio"]
    out, exp = lp.out, lp.export
    sdir, tdir = ctx.path("server"), ctx.path("trace")
    for d in (sdir, tdir):
        d.mkdir(exist_ok=True)
    job = job_file(ctx).write(out / f"{JOB}.fio")
    conf = sdir / "ganesha.conf"
    events: dict = {"threads": p["threads"]}
    tracer = None
    try:
        with zfs.lab_containers(ctx, lp) as (topo, _):
            with ctx.phase("pool"):
                srv = zfs.mirrored_server(ctx, topo, lp, disk_model(p), p["mirrors"], DISK_BYTES, {
                    "recordsize": recordsize(p["bs"]), "atime": "off", "compression": "off"})
            with ctx.phase("server"):
                conf.write_text(server_conf(NfsServer.image_conf(topo, tags["ganesha"])))
                net = topo.network("lan", internal=True)
                nfs = NfsServer.start(topo, tags["ganesha"], network=net, conf=conf,
                                      export={str(exp / zfs.POOL): "rw,rslave"})
                ctx.provenance(tools={"nfs-ganesha": nfs.version()})
                hpid = nfs.host_pid()
                window = p["before"] + p["after"] + 120   # a ceiling: the tracer is stopped when fio ends
                tracer = Bpftrace.start(topo, tags["desktop"], tdir, HERE / TRACE, hpid, window, output=TRACE_OUT)
                # bpftrace's nsecs is CLOCK_MONOTONIC: the wall clock's offset from it, read on the host
                events["mono_offset_ns"] = time.time_ns() - time.monotonic_ns()
                events["server_host_pid"] = hpid
                wait_until(tracer.attached, 60, "the tracer (bpftrace) to attach its probes")
            with ctx.phase("before"):
                writers = FioClient.jobs_only(topo, out)   # fio's NFS engine: a client on the server's network
                writers.background(tags["fio"], job.name, JOB, network=net)
                events["fio_first_write_ms"] = first_write(exp / zfs.POOL / "nfs-layers.0.dat")
                writers.running_until(JOB, events["fio_first_write_ms"] / 1000 + p["before"],
                                      "fio ended before the log device was added")
            with ctx.phase("after"):
                events["add_start_ms"] = int(time.time() * 1000)   # ZFS may write its log there before `zpool add` returns
                srv.add_disk_log(SLOG_MB, ssd_model(p), log_subdir="slog")
                events["change_ms"] = int(time.time() * 1000)
                code = writers.wait(JOB, timeout=p["after"] + 300)
                events["fio_exit_ms"] = int(time.time() * 1000)
                if code != 0:
                    raise ContainerFailed(f"fio: exit {code}\n"
                                          + (out / f"{JOB}.stdout.txt").read_text(errors="replace")[-2000:])
            with ctx.phase("trace"):
                tracer.stop()
                code, err, lines = tracer.finish(60)
                tracer = None
                events["tracer_exit"] = code
                if code != 0 or not lines:
                    raise ContainerFailed(f"the tracer (bpftrace) ended with {code} and {len(lines)} lines of "
                                          f"output: {err.strip()[-800:]}")
                srv.stop()
    finally:
        if tracer is not None:
            tracer.stop()
            tracer.finish(30)
        ctx.write_json("events.json", data=events)

