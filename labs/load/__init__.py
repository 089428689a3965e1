"""Lab `load` (chapter "From latency comes IOPS: load, queues and the knee", chapters/load.md).

Two sweeps of concurrency, each a step at a time:

* **clients**: `disks` emulated 7200 RPM disks (slowdisk on the host, backing files on tmpfs) and a
  closed loop of N clients (fio jobs, one thread each, psync, O_DIRECT): a client reads 4 KiB at random
  from a disk drawn at random, waits for it, thinks `think_ms`, and reads again. N steps through
  `clients`. From the disk model alone: the disks serve at most disks / S reads a second (S, the
  model's mean random read), N clients ask for N / (S + Z), so the throughput grows in proportion to
  N up to the knee N* = disks x (S + Z) / S and then flattens, while the latency climbs as
  N S / disks - Z (Little's law, N = X (R + Z), at every step).
* **sync**: a ZFS pool (zfs-fuse) of `mirrors` two-way mirrors of emulated disks, and N threads of
  8 KiB O_DSYNC writes, no think time, N through `sync_threads`; then a log device on an emulated SSD
  is added (logzilla's stand-in) and the same sweep runs again. The log device's cache flushes count
  the ZIL's commits, so fio's writes per flush say how many writes each commit carried.

Real: fio, the containers, ZFS (zfs-fuse), the FUSE round trip, the host's timers. Emulated: the
disks' and the SSD's service times (slowdisk/README.md).

    experiment.py   the sweeps' job files, the disks' models, the knee the model predicts, plan(), run()
    analysis.py     load(), summary(): each step's throughput, latency and Little's law; the disks'
                    %util and queues; the ZIL's writes per commit
    checks.py       CHECKS: the chapter's claims, each declared once

Produces, under the run directory:
  fio/clients.{fio,json}, fio/cN_clat.<j>.log            the clients sweep (per-I/O logs, epoch ms)
  fio/sync-threads-{nolog,slog}.{fio,json}, fio/{nolog,slog}-sN_clat.<j>.log   the sync sweeps
  device/disks/dK.log, dK.wait.log, mount.epoch_ms       the clients' disks (service time, queue wait)
  device/pool/dK.log, device/pool/slog/slog.log          the pool's disks and the log device
  events.json                                            the sweeps' steps, the model's S and knee
"""
from .analysis import (bounds, clients_table, commits, disk_stats, load, measured_knee, step_stats, summary,
                       sync_table)
from .checks import CHECKS
from .experiment import (CLIENTS_JOB, DISK_BYTES, INTENT, READ_BS, SYNC_BS, SYNC_JOB, SYNC_RUNS, disk_model, plan,
                         predicted_knee, run, service_ms, ssd_model, validate)

__all__ = ["CHECKS", "CLIENTS_JOB", "DISK_BYTES", "INTENT", "READ_BS", "SYNC_BS", "SYNC_JOB", "SYNC_RUNS", "bounds",
           "clients_table", "commits", "disk_model", "disk_stats", "load", "measured_knee", "plan", "predicted_knee",
           "run", "service_ms", "ssd_model", "step_stats", "summary", "sync_table", "validate"]
