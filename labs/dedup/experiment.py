"""The dedup experiment (the tool): three pools on a zfs-fuse server, fio's planted and control sets
written into two of them, the two estimates before any dedup (zdb -S, and the lab's SHA-256 count of
the files), and a copy of the planted set into the dedup pool, whose ratio `zpool list` reports."""
from __future__ import annotations

import json
import time
from collections.abc import Mapping

from perflab.fio import jobs as fio
from perflab.infra import zfs
from perflab.infra.context import LabContext

from .analysis import RECORD, block_signatures, signature_summary

POOLS = {"est": {"checksum": "sha256"}, "ctl": {"checksum": "sha256"}, "ddp": {"dedup": "on"}}
POOL_FILE_BYTES = 4 << 30   # each pool's backing file (sparse)


def plan(p: Mapping) -> list[tuple[str, float]]:
    # Fitted to the full reference on the project's 2-core machine (402 MB: pools 1.6 s, write 3.5 s,
    # estimate 6.6 s, dedup 4.0 s, export and collect 0.8 s), with a little room.
    mb = p["data_size"] / 1e6
    return [("pools", 2.0), ("write", 1 + mb / 150), ("estimate", 2 + mb / 90), ("dedup", 1 + mb / 130),
            ("export", 0.5), ("collect", 0.5)]


def job_file(ctx: LabContext) -> fio.JobFile:
    p = ctx.params
    jf = fio.JobFile.load(ctx.lab.jobs_dir / "planted.fio")
    per_thread = p["data_size"] // p["threads"] // RECORD * RECORD
    jf.apply({"global": {"size": per_thread, "numjobs": p["threads"]},
              "planted": {"directory": f"{zfs.EXPORT}/est", "dedupe_percentage": p["dedupe_percentage"]},
              "control": {"directory": f"{zfs.EXPORT}/ctl"}})
    return jf


def run(ctx: LabContext) -> None:
    """The three pools, the planted set written, both estimates, the copy into the dedup pool: the raw
    files under the run's fio/ and zfs/, and events.json (the session then reads them back)."""
    lp = zfs.lab_paths(ctx, zfs_dir=True)
    tags, out, dev, exp, zdir = lp.tags, lp.out, lp.dev, lp.export, lp.zdir
    job = job_file(ctx).write(out / "planted.fio")
    events: dict[str, int] = {}
    try:
        with zfs.lab_containers(ctx, lp) as (topo, _):
            with ctx.phase("pools"):
                srv = zfs.ZfsServer.start(topo, tags["zfs"], exp, dev)
                for name, props in POOLS.items():
                    srv.sh(f"truncate -s {POOL_FILE_BYTES} {zfs.BACKING}/{name}")
                    srv.create_pool([f"{zfs.BACKING}/{name}"], {"recordsize": str(RECORD), "atime": "off",
                                                                 "compression": "off", **props}, name=name)
                ctx.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                             pool_version=srv.sh("zpool get version est").split()[-2])
            with ctx.phase("write"):
                fio.run_in_container(topo, tags["fio"], job, out, "planted",
                                     volumes={str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}},
                                     timeout=600)
                events["written_ms"] = int(time.time() * 1000)
            with ctx.phase("estimate"):
                for name in ("est", "ctl"):   # export and import: every block is on disk for zdb
                    srv.export_pool(name)
                    srv.exec(["zpool", "import", "-d", zfs.BACKING, name])
                    t = time.time()
                    (zdir / f"zdb-S-{name}.txt").write_text(srv.exec(["zdb", "-S", name])[1])
                    events[f"zdb_S_{name}_s"] = round(time.time() - t, 3)
                sigs = {}
                for name in ("est", "ctl"):
                    t = time.time()
                    files = sorted(f for f in (exp / name).iterdir() if f.is_file())
                    sigs[name] = {**signature_summary(block_signatures(files)),
                                  "files": [f.name for f in files], "seconds": round(time.time() - t, 3)}
                (zdir / "signatures.json").write_text(json.dumps(sigs, indent=1))
            with ctx.phase("dedup"):
                t = time.time()
                srv.sh(f"cp {zfs.EXPORT}/est/* {zfs.EXPORT}/ddp/")
                srv.export_pool("ddp")
                srv.exec(["zpool", "import", "-d", zfs.BACKING, "ddp"])
                events["copy_s"] = round(time.time() - t, 3)
                (zdir / "zpool-list.txt").write_text(
                    srv.exec(["zpool", "list", "-H", "-o", "name,size,alloc,dedupratio"])[1])
                (zdir / "zdb-DD-ddp.txt").write_text(srv.exec(["zdb", "-DD", "ddp"])[1])
            with ctx.phase("export"):
                for name in POOLS:
                    srv.exec(["zpool", "export", name], check=False)
                srv.stop()
    finally:
        (ctx.path("events.json")).write_text(json.dumps(events, indent=2))
