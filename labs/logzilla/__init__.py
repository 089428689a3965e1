"""Lab `logzilla` (chapter "Logzilla: synchronous writes and the separate intent log",
chapters/logzilla.md).

Topology: a ZFS server container (zfs-fuse; its disks are files on the slowdisk emulator, 2-way
mirrors) and a fio client container that sees the pool through an rshared bind of a host
directory. fio writes with O_DSYNC for `before` seconds; then the lab adds a separate intent-log
device (`log_device`: "ssd", a file on a second slowdisk mount with an SSD's model, a fixed
`ssd_ms` per write and no seek, rotation or flush cost, standing in for the Logzilla; "disk", the
same with the pool disks' model, a slow log; both without per-I/O logs;
"none", nothing: the mystery variant's control) and fio goes on for `after` seconds, so one heat
map shows the change. The 2009 post's untar (not with `untar_files = 0` or without a log device): a
tar of `untar_files` small files unpacked with NFS's stable creates and commits at close
(labs/logzilla/untar.py, in the fio image), once on the new pool before fio starts (no log device)
and once after fio ends (with it). The log device is never removed: zfs-fuse crashed at `zpool
remove` of a log device (a segfault, in a CI run on 2026-11-26 and in 2 of 3 runs on Debian 13).

Real: fio, ZFS (zfs-fuse: ZIL, txgs, the log device), containers. Emulated: the 7200 RPM disks
and the SSD (slowdisk's models). The SSD has a time of its own (it used to be a tmpfs file): with
none, the writes after the change ran as fast as the machine's CPUs allowed, and on a fast day
(5,400 writes/s) the pool's four emulated disks were written without a pause, so the data disks'
bursts, a shape the chapter checks, depended on the machine rather than on the pool.

    experiment.py   plan(), run(): the pool, fio's job, the change, the untars and the strace probe (the tool)
    analysis.py     load(), summary(): the heat maps, the disks' logs, zpool iostat, the untars and the probe
                    read back from a run directory, and the numbers
    probes.py       the untars and the strace probe read back
    checks.py       CHECKS: the chapter's claims, each declared once
    untar.py        the untar itself, run in the fio container (Python's standard library only)

run() produces, under the run directory:
  fio/sync-writes.fio, fio/sync-writes.json, fio/*_clat*.log   fio's job, result and latency logs
  fio/strace-open.txt, fio/strace-count.txt                    the strace probe (a short run of the job)
  device/d<i>.log, device/mount.epoch_ms                        per-I/O service times of each disk
  device/iostat.txt, device/iostat.start                         `zpool iostat -v tank 1`
  untar/{with-log,no-log}.trace, .json    each untar's steps ("time_ns latency_ns op", op create or
                                          commit) and its summary (files, bytes, seconds)
  arcstats.json      the ARC's kstats at the end
  zpool-iostat-latency.json   what `zpool iostat -l` and `-w` (OpenZFS's latency views) answered here
  events.json        wall-clock times of the change (change_ms) and of each untar's start and end
                     (untar_no_log_start_ms, untar_no_log_end_ms, untar_with_log_...), and which log
                     device was added (log_device: sealed in a mystery run)
"""
from .analysis import (FIGURES_2009, detected_log, device_stats, flush_serialisation, iostat_block, load, phase_stats,
                       picket_fence, preset_of, summary, vdev_ops, windows)
from .probes import load_untar, trace_stats, trace_summary, untar_stats
from .checks import CHECKS, IOPS_RATIO_MIN, P50_RATIO_MIN, UNTAR_RATIO_MIN
from .experiment import (DISK_BYTES, DISK_SPAN, HERE, INTENT, JOB, PROBE_IOS, SLOG_MB, SSD_MBPS, UNTAR_SEED, UNTARS,
                         disk_model, job_file, plan, recordsize, run, ssd_model, syscalls, untar, untars)

__all__ = ["CHECKS", "DISK_BYTES", "DISK_SPAN", "FIGURES_2009", "HERE", "INTENT", "IOPS_RATIO_MIN", "JOB",
           "P50_RATIO_MIN", "PROBE_IOS", "SLOG_MB", "SSD_MBPS", "UNTARS", "UNTAR_RATIO_MIN", "UNTAR_SEED",
           "detected_log", "device_stats", "disk_model", "flush_serialisation", "iostat_block", "job_file", "load", "load_untar", "phase_stats",
           "picket_fence", "plan", "preset_of", "recordsize", "run", "ssd_model", "summary", "syscalls",
           "trace_stats", "trace_summary", "untar", "untar_stats", "untars", "vdev_ops", "windows"]
