"""The durability lab's experiment: the pool, the two writers, the kill, the import, and the survival
bookkeeping (which acknowledged writes are still in their files), written under the run directory."""
from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra import zfs
from perflab.infra.containers import wait_until
from perflab.infra.context import LabContext
from perflab.infra.fioservice import FioClient

JOBS = ("async", "dsync")
BS = 4096
PATTERN = bytes.fromhex("5a5a5a5a") * (BS // 4)
POOL_BYTES = 2 << 30
SLOG_BYTES = 128 << 20


def plan(p: Mapping) -> list[tuple[str, float]]:
    # the reference took 1.6 s, kill_after + 0.5 s, 1.7 s and 0.3 s (survival and collect)
    return [("pool", 3.0), ("writes", p["kill_after"] + 1), ("import", 3.0), ("survival", 0.5), ("collect", 0.5)]


def job_file(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / "writers.fio")
    # fio would stop on its own well after the kill: the kill, not runtime, ends the run
    jf.apply({"global": {"rate_iops": p["rate_iops"], "runtime": int(p["kill_after"]) + 600},
              **{j: {"filename": f"{zfs.EXPORT}/{zfs.POOL}/{j}/log.dat"} for j in JOBS}})
    return jf


def _rle(flags) -> list[list[int]]:
    out: list[list[int]] = []
    for f in flags:
        f = int(f)
        if out and out[-1][0] == f:
            out[-1][1] += 1
        else:
            out.append([f, 1])
    return out


def survivors(path: Path, offsets: np.ndarray) -> tuple[int, list[bool]]:
    """The file's size, and for each offset whether a whole block of the pattern is there."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0, [False] * len(offsets)
    return len(data), [data[o:o + BS] == PATTERN for o in offsets]


def acked_logs(fdir: Path) -> dict[str, Path]:
    """Each writer's per-I/O log (fio numbers them by job: async_clat.1.log, dsync_clat.2.log)."""
    found = {}
    for j in JOBS:
        logs = sorted(Path(fdir).glob(f"{j}_clat.*.log*"))
        if logs:
            found[j] = logs[0]
    return found


def run(ctx: LabContext) -> None:
    """The pool, the two writers killed with their server, the import and scrub, then which acknowledged
    writes survived: the raw files under the run's fio/ and zfs/, and events.json (the session then
    reads them back)."""
    p = ctx.params
    lp = zfs.lab_paths(ctx, zfs_dir=True)
    tags, out, dev, export, zdir = lp.tags, lp.out, lp.dev, lp.export, lp.zdir
    job_file(ctx).write(out / "writers.fio")
    events: dict[str, int] = {}
    try:
        with zfs.lab_containers(ctx, lp) as (topo, _):
            with ctx.phase("pool"):
                srv = zfs.ZfsServer.start(topo, tags["zfs"], export, dev)
                srv.sh(f"truncate -s {POOL_BYTES} {zfs.BACKING}/pool && truncate -s {SLOG_BYTES} {zfs.BACKING}/slog")
                srv.exec(zfs.create_pool_cmd([f"{zfs.BACKING}/pool", "log", f"{zfs.BACKING}/slog"],
                                             {"atime": "off", "compression": "off"}))
                for j in JOBS:
                    srv.exec(["zfs", "create", f"{zfs.POOL}/{j}"])
                (zdir / "sync-property.txt").write_text(srv.exec(["zfs", "get", "sync", zfs.POOL], check=False)[1])
                ctx.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                             pool_version=srv.sh(f"zpool get version {zfs.POOL}").split()[-2])
            with ctx.phase("writes"):
                fio_jobs = FioClient.jobs_only(topo, out)   # the writers in a container of their own
                events["fio_started_ms"] = fio_jobs.background(
                    tags["fio"], "writers.fio", "writers", volumes={str(export): {"bind": zfs.EXPORT, "mode": "rw,rslave"}})
                time.sleep(p["kill_after"])
                srv.container.kill()     # SIGKILL: no export, no last transaction group
                events["killed_ms"] = int(time.time() * 1000)
                events["fio_exit_code"] = fio_jobs.wait("writers", timeout=120)
            with ctx.phase("import"):
                zfs.drop_mounts_below(export)
                topo.remove(srv.container)
                srv = zfs.ZfsServer.start(topo, tags["zfs"], export, dev, name="zfs-after", volume=srv.volume)
                srv.exec(["zpool", "import", "-f", "-d", zfs.BACKING, zfs.POOL])
                events["imported_ms"] = int(time.time() * 1000)
                srv.exec(["zpool", "scrub", zfs.POOL])   # every block read and its checksum verified
                wait_until(lambda: "scrub in progress" not in srv.exec(["zpool", "status", zfs.POOL])[1], 300,
                           "zpool scrub")
                events["scrubbed_ms"] = int(time.time() * 1000)
                (zdir / "zpool-status.txt").write_text(srv.exec(["zpool", "status", "-v", zfs.POOL])[1])
            with ctx.phase("survival"):
                surv = {}
                for j, log in acked_logs(out).items():
                    offsets = fiolog.read_lat_log(log).offset.to_numpy()
                    size, flags = survivors(export / zfs.POOL / j / "log.dat", offsets)
                    surv[j] = {"file_bytes": size, "acknowledged": len(offsets), "survived_rle": _rle(flags)}
                (zdir / "survival.json").write_text(json.dumps(surv))
                srv.exec(["zpool", "export", zfs.POOL], check=False)
    finally:
        ctx.path("events.json").write_text(json.dumps(events, indent=2))
