"""Lab `latency-art` (chapter "Latency art: the icy lake and the rainbow pterodactyl",
chapters/latency-art.md).

Two experiments on emulated mechanical disks (slowdisk, mounted on the host; fio in a container
sees the mounts through bind mounts):

* **Icy lake.** One fio thread writes 8 KiB O_DSYNC blocks sequentially, round robin over two
  disks (`file_service_type=roundrobin`), as ZFS's intent log spreads successive log blocks over
  the pool's disks. Each disk is its own slowdisk mount so that its spindle can turn at its own
  speed (`icy_rpm` and `icy_rpm + rpm_offset`). slowdisk makes a sequential synchronous write wait
  for its sector to come round: `rotation - (idle mod rotation)`, idle being the time since the
  disk's previous write ended. With two disks in turn, each disk's idle time is the other disk's
  service time, so the two waits add up to about one rotation; when the rotations differ by dT,
  one disk's wait grows by dT per round and the other's shrinks: two diagonals crossing (an X),
  wrapping round every rotation / dT rounds (a sawtooth).
* **Rainbow pterodactyl.** `disks` emulated disks sit in `ports` JBODs, one slowdisk mount each;
  the disks alternate between them. Each JBOD's port has `lanes` lanes and a lane carries one
  disk I/O at a time: emulated by capping the mount's FUSE worker threads at `lanes` (an I/O that
  finds every lane busy waits in the kernel's FUSE queue). fio lights the disks up one by one with
  128 KiB sequential reads, a phase of `phase` seconds per disk count. Throughput rises with each
  disk until ports x lanes disks are streaming (the knee), then stays flat while latency rises.

Real: fio, the containers, the FUSE request path and its queueing, the host's threads and timers.
The disks' backing files and the mount points live on tmpfs (/dev/shm/perflab-RUN/), recorded in
the run's ledger, so that the host's own disk adds no delays of its own.
Emulated: the disks (slowdisk's model), the spindle speeds, the SAS ports (a cap on FUSE threads).

    experiment.py   validate(), plan(), the disks' models, the job files, run(): mounts and fio (the tool)
    icy.py          the icy lake's numbers: creep, slope, wrap-rounds, the host's time in each write
    analysis.py     load(), summary(): the pterodactyl's phases, knee and latencies, and all the metrics
    checks.py       CHECKS: the chapter's claims, each declared once

Produces, under the run directory:
  fio/icy-lake.{fio,json}, fio/icy-lake_clat.1.log            the icy lake (per-I/O, epoch ms)
  fio/pterodactyl.{fio,json}, fio/pterodactyl_clat.N.log     one log per disk (job N = disk N-1)
  device/icy-d<i>/d<i>.log, mount.epoch_ms                    service times of each icy-lake disk
  device/jbod<j>/d<i>.log, mount.epoch_ms                     service times of each streaming disk
  events.json                                                 wall-clock start of the pterodactyl
"""
from .analysis import (LINEAR_MAX_NS, LINEAR_NS, TRIM_S, device_phases, find_knee, load, per_disk_rates,
                       phase_windows, ptero_phases, ptero_stats, summary)
from .checks import CHECKS
from .experiment import (ICY, ICY_DISK_BYTES, PTERO, STREAM_DISK_BYTES, icy_job, icy_model, jbod_of, plan,
                         ptero_job, run, sanity_context, stream_model, validate)
from .icy import (CREEP_STEP, SUM_BAND, creep_share, drift_per_visit_us, icy_disks, icy_host, icy_stats,
                  icy_write_cache, lag1, net_line, round_share, rotations_ms)

__all__ = ["CHECKS", "CREEP_STEP", "SUM_BAND", "ICY", "ICY_DISK_BYTES", "LINEAR_MAX_NS", "LINEAR_NS", "PTERO",
           "STREAM_DISK_BYTES", "TRIM_S", "creep_share", "device_phases", "drift_per_visit_us",
           "find_knee", "icy_disks", "icy_host", "icy_job", "icy_model", "icy_stats", "icy_write_cache", "jbod_of",
           "lag1", "load", "net_line", "per_disk_rates", "phase_windows", "plan", "ptero_job", "ptero_phases", "ptero_stats",
           "rotations_ms", "round_share", "run", "sanity_context", "stream_model", "summary", "validate"]
