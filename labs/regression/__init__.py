"""Lab `regression` (chapter "Change one thing: is the difference real?", chapters/regression.md).

The question asked after every change: did it make a difference, and is the difference larger
than what two runs of the same thing differ by? Two ZFS datasets in one pool are identical but for
one property (the `change` parameter; the default is the record size, 4 KiB before, 128 KiB after,
the regression a database meets when its dataset is re-created with ZFS's default). fio reads each
at random, 4 KiB at a time, at queue depth 1, in rounds that alternate between them (before,
after; after, before; ...), so that a drift of the machine during the lab falls on both sides. The
rounds on the "before" dataset measure the noise; `perflab.analysis.difference` says whether the
"after" reads differ by more, and which latency bands moved. Then the drill-down: the pool's one
device logs every I/O it serves, so what each fio read cost the device (reads, bytes, time) is
measured, not supposed.

Topology: the ZFS server container (zfs-fuse) with a pool on one emulated device (slowdisk with no
positioning costs: no seek, no rotation, only a transfer time at `device_mbps`, the disk model's
media rate by default), `primarycache=metadata` on both datasets (the ARC keeps no data: every read
reaches the device), and fio in a client container that sees the datasets through an rshared bind.

Real: ZFS (records, checksums, the ARC's policy), fio, the containers, FUSE. Emulated: the device's
transfer time (slowdisk); the result's size depends on `device_mbps`.

    experiment.py   the datasets' properties, the rounds' order, plan(), the job files, the device
                    model, run(): the pool, the fill, the warm-up and the rounds (the tool)
    analysis.py     load(), summary(): latency maps per run, the device's log split between the runs,
                    the comparison against the noise, the tables
    checks.py       CHECKS: the chapter's claims, each declared once

run() produces under the run directory:
  fio/fill.{fio,json}, fio/warmup-<side>.{fio,json}, fio/<side>-<round>.{fio,json},
  fio/<side>-<round>_clat_hist.1.log      each measured run's latency histogram log (1 s, epoch ms)
  device/d0.log, device/mount.epoch_ms    the device's per-I/O log (slowdisk)
  device/rounds.jsonl                     per run: name, round, side, start and end (epoch ms)
  zfs/properties.txt                      `zfs get` of both datasets' record size, checksum, ...
"""
from .analysis import (FINE_SUB, KIB, compare, load, merged, noise_table, pair_distances, rounds_table, side_runs,
                       summary)
from .checks import CHECKS
from .experiment import (BASE_PROPS, CHANGES, COMMAND_MS, DEVICE_SLACK, INTENT, PROPS_SHOWN, SIDES, TIMED_MIN_US,
                         device_bytes, device_model, jobs, model_us, order, plan, props, record_bytes, run, run_name)

__all__ = ["BASE_PROPS", "CHANGES", "CHECKS", "COMMAND_MS", "DEVICE_SLACK", "FINE_SUB", "INTENT", "KIB", "PROPS_SHOWN",
           "SIDES", "TIMED_MIN_US", "compare", "device_bytes", "device_model", "jobs", "load", "merged", "model_us",
           "noise_table", "order", "pair_distances", "plan", "props", "record_bytes", "rounds_table", "run",
           "run_name", "side_runs", "summary"]
