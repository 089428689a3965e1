"""Lab `durability` (chapter "Acknowledged, then lost: what a synchronous write buys",
chapters/durability.md).

The trade-off the Logzilla chapter describes, shown: two writers append to two datasets of one
ZFS pool at the same steady rate, one with ordinary (asynchronous) writes, one with `O_DSYNC`
writes answered from the pool's separate log device. Mid-run the ZFS server is killed (SIGKILL:
no export, no last transaction group), a new server imports the pool from the same files, and
every write fio was told had completed is looked for: present, or lost.

Asynchronous writes are what ZFS's `sync=disabled` (and the older `zil_disable` tunable) makes of
every write, synchronous or not. zfs-fuse 0.7 (pool version 23) predates that property, so the
lab cannot set it; it asks (`zfs get sync`), records the answer, and shows the same behaviour
from the application's side: writes that are acknowledged once ZFS holds them in memory.

Real: ZFS (transaction groups, the intent log, its replay at import), fio, the containers, the
kill. Not a power cut: the files zfs-fuse wrote stay in the host's page cache, so what is lost is
exactly what only zfs-fuse's memory held.

Produces under the run directory:
  fio/writers.{fio,json}, fio/async_clat.1.log, fio/dsync_clat.2.log  each acknowledged write
                                                   (completion time, latency, offset)
  zfs/survival.json      per writer: the file's size after the import and, write by write in the
                         order they were acknowledged, whether its block is there (run-length coded)
  zfs/zpool-status.txt   `zpool status -v` after the import and a scrub; zfs/sync-property.txt: `zfs get sync`
  events.json            wall-clock times (epoch ms): fio started, the server killed, the import
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra import zfs
from perflab.infra.containers import Topology, wait_until

JOBS = ("async", "dsync")
BS = 4096
PATTERN = bytes.fromhex("5a5a5a5a") * (BS // 4)
POOL_BYTES = 2 << 30
SLOG_BYTES = 128 << 20


def plan(p: dict) -> list[tuple[str, float]]:
    return [("pool", 6.0), ("writes", p["kill_after"] + 3), ("import", 10.0), ("collect", 3.0)]


def job_file(s) -> fio.JobFile:
    p = s.params
    jf = fio.JobFile.load(s.lab.jobs_dir / "writers.fio")
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


def _unrle(runs) -> np.ndarray:
    return np.concatenate([np.full(n, v, bool) for v, n in runs]) if runs else np.zeros(0, bool)


def survivors(path: Path, offsets: np.ndarray) -> tuple[int, list[bool]]:
    """The file's size, and for each offset whether a whole block of the pattern is there."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0, [False] * len(offsets)
    return len(data), [data[o:o + BS] == PATTERN for o in offsets]


def run(s) -> None:
    p = s.params
    lp = zfs.lab_paths(s, zfs_dir=True)
    tags, out, dev, export, zdir = lp.tags, lp.out, lp.dev, lp.export, lp.zdir
    job = job_file(s).write(out / "writers.fio")
    events: dict[str, int] = {}
    try:
        with zfs.shared_export(s.ledger, export), Topology(s.run_id, s.lab.name) as topo:
            with s.phase("pool"):
                s.provenance(fio_version=fio.version(topo, tags["fio"]))
                srv = zfs.ZfsServer.start(topo, tags["zfs"], export, dev)
                srv.sh(f"truncate -s {POOL_BYTES} {zfs.BACKING}/pool && truncate -s {SLOG_BYTES} {zfs.BACKING}/slog")
                srv.exec(zfs.create_pool_cmd([f"{zfs.BACKING}/pool", "log", f"{zfs.BACKING}/slog"],
                                             {"atime": "off", "compression": "off"}))
                for j in JOBS:
                    srv.exec(["zfs", "create", f"{zfs.POOL}/{j}"])
                (zdir / "sync-property.txt").write_text(srv.exec(["zfs", "get", "sync", zfs.POOL], check=False)[1])
                s.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                             pool_version=srv.sh(f"zpool get version {zfs.POOL}").split()[-2])
            with s.phase("writes"):
                vols = {str(out.resolve()): {"bind": "/out", "mode": "rw"},
                        str(export): {"bind": zfs.EXPORT, "mode": "rw,rslave"}}
                writers = topo.container(tags["fio"], "writers",
                                         ["fio", "--output-format=json", "--output=writers.json", "writers.fio"],
                                         volumes=vols, working_dir="/out", network_mode="none")
                events["fio_started_ms"] = int(time.time() * 1000)
                time.sleep(p["kill_after"])
                srv.container.kill()     # SIGKILL: no export, no last transaction group
                events["killed_ms"] = int(time.time() * 1000)
                res = writers.wait(timeout=120)
                (out / "writers.stdout.txt").write_text(writers.logs().decode(errors="replace"))
                events["fio_exit_code"] = res.get("StatusCode", -1)
                topo.remove(writers)
            with s.phase("import"):
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
            with s.phase("collect"):
                surv = {}
                for j, log in acked_logs(out).items():
                    offsets = fiolog.read_lat_log(log).offset.to_numpy()
                    size, flags = survivors(export / zfs.POOL / j / "log.dat", offsets)
                    surv[j] = {"file_bytes": size, "acknowledged": len(offsets), "survived_rle": _rle(flags)}
                (zdir / "survival.json").write_text(json.dumps(surv))
                srv.exec(["zpool", "export", zfs.POOL], check=False)
    finally:
        s.path("events.json").write_text(json.dumps(events, indent=2))
    s.metric(**summary(load(s.data_dir), p))


def acked_logs(fdir: Path) -> dict[str, Path]:
    """Each writer's per-I/O log (fio numbers them by job: async_clat.1.log, dsync_clat.2.log)."""
    found = {}
    for j in JOBS:
        logs = sorted(Path(fdir).glob(f"{j}_clat.*.log*"))
        if logs:
            found[j] = logs[0]
    return found


# ------------------------------------------------------------------------------ analysis

def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    fdir, zdir = data_dir / "fio", data_dir / "zfs"
    ev = json.loads((data_dir / "events.json").read_text())
    surv = json.loads((zdir / "survival.json").read_text())
    writes = {}
    for j, log in acked_logs(fdir).items():
        df = fiolog.read_lat_log(log)
        df = df.assign(t_s=(df.time_ms - ev["fio_started_ms"]) / 1000, lat_us=df.lat_ns / 1000,
                       survived=_unrle(surv[j]["survived_rle"]))
        writes[j] = df
    return {"writes": writes, "survival": surv, "events": ev,
            "status": (zdir / "zpool-status.txt").read_text(),
            "sync_property": (zdir / "sync-property.txt").read_text().strip()}


def per_second(d: dict) -> pd.DataFrame:
    """Acknowledged writes per second of the run, per writer, split into survived and lost."""
    rows = []
    for j, df in d["writes"].items():
        sec = np.floor(df.t_s).astype(int)
        for (s_, surv), n in df.groupby([sec, df.survived]).size().items():
            rows.append({"writer": j, "second": int(s_), "survived": bool(surv), "writes": int(n)})
    return pd.DataFrame(rows, columns=["writer", "second", "survived", "writes"])


def summary(d: dict, p: dict) -> dict:
    ev = d["events"]
    kill_s = (ev["killed_ms"] - ev["fio_started_ms"]) / 1000
    out = {"kill_s": round(kill_s, 2), "fio_exit_code": ev.get("fio_exit_code"),
           "pool_errors_none": "No known data errors" in d["status"],
           "scrub_clean": bool(re.search(r"scrub completed .*with 0 errors", d["status"])),
           "sync_property_missing": "invalid property" in d["sync_property"].lower()
           or "bad property" in d["sync_property"].lower()}
    for j, df in d["writes"].items():
        ok, lost = df[df.survived], df[~df.survived]
        out.update({
            f"{j}_acknowledged": len(df), f"{j}_survived": len(ok), f"{j}_lost": len(lost),
            f"{j}_lost_share": round(len(lost) / len(df), 4) if len(df) else None,
            f"{j}_p50_us": round(float(df.lat_us.median()), 1), f"{j}_p99_us": round(float(df.lat_us.quantile(0.99)), 1),
            f"{j}_last_ack_s": round(float(df.t_s.max()), 3),
            f"{j}_last_survivor_s": round(float(ok.t_s.max()), 3) if len(ok) else None,
            f"{j}_first_lost_s": round(float(lost.t_s.min()), 3) if len(lost) else None,
            # the losses are the newest writes: every lost one acknowledged after every survivor
            f"{j}_lost_are_newest": bool(len(lost) == 0 or len(ok) == 0 or lost.index.min() > ok.index.max()),
            f"{j}_file_bytes": d["survival"][j]["file_bytes"],
            # the file ends where its survivors end: no block of a lost write half there
            f"{j}_file_is_survivors": d["survival"][j]["file_bytes"] == len(ok) * BS,
        })
        out[f"{j}_lost_window_s"] = round(kill_s - out[f"{j}_last_survivor_s"], 2) \
            if out[f"{j}_last_survivor_s"] is not None else round(kill_s, 2)
    out["latency_ratio"] = round(out["dsync_p50_us"] / out["async_p50_us"], 3)
    # O_DSYNC writes acknowledged after the last transaction group that reached the disks (the last
    # ordinary survivor): only the intent log, replayed at import, can have brought them back
    last_txg = out["async_last_survivor_s"] if out["async_last_survivor_s"] is not None else 0.0
    dw = d["writes"]["dsync"]
    out["dsync_after_last_txg"] = int((dw.t_s > last_txg).sum())
    out["dsync_after_last_txg_survived"] = int(((dw.t_s > last_txg) & dw.survived).sum())
    return out
