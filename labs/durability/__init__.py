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

    experiment.py   plan(), run(): the pool, the writers, the kill, the import, and which
                    acknowledged writes are still in their files (the tool)
    analysis.py     load(), per_second(), summary(): the run read back from its directory
    checks.py       CHECKS: the chapter's claims, each declared once

Produces under the run directory:
  fio/writers.{fio,json}, fio/async_clat.1.log, fio/dsync_clat.2.log  each acknowledged write
                                                   (completion time, latency, offset)
  zfs/survival.json      per writer: the file's size after the import and, write by write in the
                         order they were acknowledged, whether its block is there (run-length coded)
  zfs/zpool-status.txt   `zpool status -v` after the import and a scrub; zfs/sync-property.txt: `zfs get sync`
  events.json            wall-clock times (epoch ms): fio started, the server killed, the import
"""
from .analysis import load, per_second, summary
from .checks import CHECKS
from .experiment import BS, JOBS, PATTERN, POOL_BYTES, SLOG_BYTES, acked_logs, job_file, plan, run, survivors

__all__ = ["BS", "CHECKS", "JOBS", "PATTERN", "POOL_BYTES", "SLOG_BYTES", "acked_logs", "job_file", "load",
           "per_second", "plan", "run", "summary", "survivors"]
