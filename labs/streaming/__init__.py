"""Lab `streaming` (chapter "Streaming limits: bytes, elapsed time and the cost of redundancy",
chapters/streaming.md).

Topology: a ZFS server container (zfs-fuse, a 64 MiB ARC) whose disks are files on the slowdisk
emulator, and a fio client container that sees the pool through an rshared bind of a host
directory. The same 2 x `mirrors` disks are laid out twice, one after the other: first as
`mirrors` two-way mirrors, then as one RAID-Z2 across all of them. For each layout fio writes
`threads` files of `file_size` sequentially (128 KiB, one fsync at the end); the pool is exported
and imported (every byte on disk, a cold ARC), and, with `read`, fio reads the files back.

Front end: fio's byte counts and the lab's wall clock around each fio run. Back end: every I/O
each emulated disk served (slowdisk's per-I/O device logs), so the bytes per disk are exact.

Real: ZFS (mirrors, RAID-Z2 parity, metadata, txgs), fio, containers. Emulated: the disks
(slowdisk; by default "streaming" disks whose limit is their media rate, scaled down so that six
of them are slower than zfs-fuse on two cores).

    experiment.py   the layouts and their arithmetic, plan(), the job files, run(): the tool
    analysis.py     load(), summary(), table(), timeline(): the front end beside the back end, and 2009's figures
    checks.py       CHECKS: the chapter's claims, each declared once

run() produces, under the run directory:
  fio/<layout>-write.json, fio/<layout>-read.json, fio/*_bw.*.log   fio's results, 1 s bandwidth
  fio/*_clat_hist.*.log                                           1 s latency histograms (perflab compare)
  device/d<i>.log, device/mount.epoch_ms                          per-I/O log of each disk
  events.json                                                     wall-clock times of each step
"""
from .analysis import FIGURES_2009, backend, front, layout_stats, load, predicted_front_mbps, summary, table, timeline
from .checks import CHECKS, META_HIGH, META_LOW, STARTUP_ALLOWANCE_S, raidz2_lead_floor
from .experiment import (ARC_MB, DISK_BYTES, LAYOUTS, RECORD, disk_model, expected_amplification, job_files,
                         layout_vdevs, plan, run)

__all__ = ["ARC_MB", "CHECKS", "DISK_BYTES", "FIGURES_2009", "LAYOUTS", "META_HIGH", "META_LOW", "RECORD",
           "STARTUP_ALLOWANCE_S", "backend", "disk_model", "expected_amplification", "front", "job_files",
           "layout_stats", "layout_vdevs", "load", "plan", "predicted_front_mbps", "raidz2_lead_floor", "run",
           "summary", "table", "timeline"]
