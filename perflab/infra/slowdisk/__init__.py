"""Emulated mechanical disks for the labs: mount ``slowdisk`` and read its per-I/O log.

``slowdisk`` (C, libfuse3; source and full description in slowdisk/README.md) is a FUSE
pass-through file system in which every regular file of a backing directory is one
7200 RPM-style disk with one actuator: each I/O costs positioning (none when sequential,
a small cost when near, else seek + rotational delay) plus transfer, one I/O at a time per
disk.  The chapters that use it:

* **Logzilla**: a pool's synchronous writes with and without a separate log device;
  the pool disks' ``flush_ms`` and ``write_cache`` set what a ZIL commit costs.
* **L2ARC**: random reads that miss the ARC land on slow disks (tens to ~200 IOPS each)
  instead of the cache device.
* **Latency art**: the device logs are fio-format per-I/O logs, so the heat-map code
  draws the disks' own service times (seek and rotation bands) next to fio's.

Modules: ``model`` (the disk model's parameters and the mean service time it predicts,
:func:`expected_service_ms`, so a chapter can compare measured with modelled), ``mount``
(building or finding the binary and mounting it for the duration of a ``with`` block,
:func:`mounted`), ``logs`` (the device logs, :func:`read_device_log`, :func:`read_device_logs`,
:func:`read_mount_logs`).
"""
from perflab.infra.slowdisk.logs import read_device_log, read_device_logs, read_mount_logs
from perflab.infra.slowdisk.model import DiskModel, expected_service_ms
from perflab.infra.slowdisk.mount import (SOURCE_DIR, SlowdiskError, SlowdiskMount, build_binary, find_binary,
                                          fuse_available, mounted, process_cpu_seconds, recorded)

__all__ = [
    "DiskModel", "SlowdiskMount", "SlowdiskError", "mounted", "recorded", "find_binary", "build_binary",
    "expected_service_ms", "read_device_log", "read_device_logs", "read_mount_logs", "process_cpu_seconds",
    "fuse_available", "SOURCE_DIR",
]
