"""Lab `disk-model` (chapter "The disk model: what slowdisk emulates", chapters/disk-model.md).

The book's ZFS and latency labs run on `slowdisk`, an emulated mechanical disk (slowdisk/README.md).
This lab takes its model apart: one fio job per component of a disk's service time, one after
another, each on its own emulated disk, at queue depth 1, so that each shows alone in the heat map:

* **random**: 4 KiB random reads over the whole disk: seek (a square-root curve of the distance),
  plus a rotational delay, plus the transfer. Checked against the IOPS the model predicts from its
  own seek and rotation parameters, and, for a 7200 RPM disk with a datasheet's average seek, against
  the textbook's 75-90 IOPS.
* **stroke**: the same reads confined to a small slice of a large disk (slowdisk's `capacity`):
  every seek is nearly the track-to-track one, so the rotational delay stands alone, a band from 0
  to one revolution (60/rpm).
* **seq**: 128 KiB sequential reads: no positioning, transfer only: the configured media rate.
* **write-off / write-on**: 4 KiB sequential `O_DIRECT` writes (synchronous for the application: each
  call returns when the disk acknowledges), with the disk's write cache off, then on. Off, each write
  waits for its sector to come round (about a revolution); on, it is acknowledged from the cache.
* **dsync-on**: 4 KiB `O_DSYNC` writes with the write cache on: slowdisk treats them as forced unit
  access, so they pass the cache and wait for the sector as with the cache off.
* **flush-on**: 4 KiB writes each followed by `fdatasync`, write cache on: the write from the cache,
  then the flush (`flush_ms`).

Real: fio, the container, the FUSE request path (its round trip is measured: fio's latency minus the
disk's own service time, I/O by I/O), the host's timers. Emulated: everything slowdisk holds an I/O
for (seek, rotation, transfer, write cache, flush). The backing files and mount points live on tmpfs
(/dev/shm/perflab-RUN/), recorded in the run's ledger, so that the host's disk adds nothing.

    experiment.py   the phases, the disks' models, plan(), run(): the job file, the mounts, the fio run
    analysis.py     the model's parts, load(), summary(), components(): the numbers, from a run directory
    figures.py      the heat maps the chapter draws: every experiment, and the rotational band
    checks.py       CHECKS: the chapter's claims, each declared once

Produces, under the run directory:
  fio/components.{fio,json}, fio/<job>_clat.<n>.log       fio's per-I/O logs (epoch ms, offsets)
  device/<mount>/<job>.log, mount.epoch_ms                 each disk's service times (slowdisk)
"""
from .analysis import (TEXTBOOK_IOPS, TEXTBOOK_SEEK_MS, band_width, components, far, fuse_overhead_us, jumps,
                       ks_uniform, load, random_parts, rotational_ms, seek_ms, summary, sync_latency_ms)
from .checks import CHECKS
from .experiment import (GIB, INTENT, JOB, KIB, MOUNTS, PHASES, RANDOM_BS, SEQ_BS, SLICE_CAPACITY, WRITE_BS,
                         disk_model, job_file, plan, run)
from .figures import LINEAR_NS, phase_map, phase_starts, stroke_map

__all__ = ["CHECKS", "GIB", "INTENT", "JOB", "KIB", "LINEAR_NS", "MOUNTS", "PHASES", "RANDOM_BS", "SEQ_BS",
           "SLICE_CAPACITY", "TEXTBOOK_IOPS", "TEXTBOOK_SEEK_MS", "WRITE_BS", "band_width", "components",
           "disk_model", "far", "fuse_overhead_us", "job_file", "jumps", "ks_uniform", "load", "phase_map",
           "phase_starts", "plan", "random_parts", "rotational_ms", "run", "seek_ms", "stroke_map", "summary",
           "sync_latency_ms"]
