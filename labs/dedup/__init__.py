"""Lab `dedup` (chapter "How dedupalicious is your pool?", chapters/dedup.md).

Topology: a ZFS server container (zfs-fuse, pool version 23, which has dedup) with three pools, each
on one file of a Docker volume, and a fio client container that sees them through an rshared bind
of a host directory:

  est  dedup off, checksum sha256: fio writes a data set with planted duplication into it
  ctl  dedup off: fio writes a control data set with no duplicate blocks
  ddp  dedup on: the lab copies est's files into it

The dedup ratio is estimated before any dedup happens, the way Eric Kustarz's 2008 post did it:
from block signatures. Twice: by zdb -S (zdb's "simulated DDT", which counts the block pointers'
checksums; the descendant of the post's `zdb -S user:all` listing plus its perl script) and by the
lab itself (the files read back in 128 KiB blocks, SHA-256 of each, identical signatures counted).
Then dedup is done for real (ddp) and `zpool list` reports the ratio it got.

Real: ZFS (checksums, the DDT, dedup, zdb), fio, containers. Nothing is emulated; the pools sit on
plain files (the disks' speed plays no part here).

    experiment.py   plan(), job_file(), run(): the pools, fio's two data sets, the estimates, the copy (the tool)
    analysis.py     the planted ratio, the lab's signature count, zdb and zpool output parsed, load(), summary()
    checks.py       CHECKS: the chapter's claims, each declared once

Produces, under the run directory:
  fio/planted.fio, fio/planted.json            fio's job and result
  fio/{planted,control}_clat_hist.N.log        each writer's 1 s latency histograms (perflab compare)
  zfs/zdb-S-est.txt, zfs/zdb-S-ctl.txt         zdb -S (simulated DDT histogram) of each pool
  zfs/zdb-DD-ddp.txt                           zdb -DD of the dedup pool (the real DDT)
  zfs/zpool-list.txt                           zpool list -H -o name,size,alloc,dedupratio
  zfs/signatures.json                          the lab's own SHA-256 signature counts
  events.json                                  wall-clock times of each step
"""
from .analysis import (RECORD, block_signatures, histogram_diff, histogram_table, load, parse_zdb_ddt,
                       parse_zpool_list, planted_job, planted_ratio, pow2_buckets, signature_summary, summary)
from .checks import (ACTUAL_BAND, CHECKS, CONTROL_MAX, DDT_BAND, DDT_SLACK, HISTOGRAM_BAND, PLANTED_BAND,
                     ZDB_BAND)
from .experiment import POOL_FILE_BYTES, POOLS, job_file, plan, run

__all__ = ["ACTUAL_BAND", "CHECKS", "CONTROL_MAX", "DDT_BAND", "DDT_SLACK", "HISTOGRAM_BAND", "PLANTED_BAND",
           "POOLS", "POOL_FILE_BYTES", "RECORD", "ZDB_BAND", "block_signatures", "histogram_diff",
           "histogram_table", "job_file", "load", "parse_zdb_ddt", "parse_zpool_list", "plan", "planted_job",
           "planted_ratio", "pow2_buckets", "run", "signature_summary", "summary"]
