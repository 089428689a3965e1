"""Lab `nfs-layers` (chapter "One write, three layers: Logzilla over NFS", chapters/nfs-layers.md).

Topology: a ZFS server container (zfs-fuse; its disks are files on the slowdisk emulator, 2-way
mirrors), an NFS server container (NFS-Ganesha, NFSv3, its VFS back end exporting the pool's file
system, bind-mounted from the ZFS server) and a fio client container that speaks NFS itself (libnfs:
`ioengine=nfs`, `sync=sync`, so every write is an NFSv3 FILE_SYNC write) on an internal network. fio
writes for `before` seconds; then the lab adds a separate intent-log device on an emulated SSD (as the
logzilla lab's) and fio goes on for `after` seconds. A bpftrace script (nfswrite.bt, in the desktop
image's bpftrace) follows NFS-Ganesha's process: for each stable write, its pwritev() into the file
system and the fsync() after it. So the same writes are measured at three layers: the NFS client (fio),
the server's file system (the tracer) and the disks (the emulator's own per-I/O logs).

Real: fio (with one line added to its NFS engine, containers/nfsfio/Dockerfile), libnfs, NFS-Ganesha,
NFSv3 over TCP, ZFS (zfs-fuse), bpftrace on syscall tracepoints, containers. Emulated: the 7200 RPM
disks and the SSD (slowdisk's models). The network is a veth pair on one host, not a wire.

    experiment.py   plan(), run(): the pool, the NFS server, the tracer, fio's job, the change
    analysis.py     load(), summary(): the three layers read back, per phase; their heat maps
    checks.py       CHECKS: the chapter's claims, each declared once
    nfswrite.bt     the tracer (bpftrace) on the NFS server
    ganesha.conf    the NFS server's configuration (NFSv3; why not NFSv4 is in it)

run() produces, under the run directory:
  fio/nfs-sync-writes.fio, .json, _clat.<j>.log    fio's job, result and per-I/O latency log (epoch ms)
  trace/nfswrite.bt, nfswrite.json, bpftrace.stderr.txt   the tracer, its output (-f json) and messages
  server/ganesha.conf                               the NFS server's configuration as run
  device/d<i>.log, mount.epoch_ms                    per-I/O service times of each data disk
  device/slog/slog.log, mount.epoch_ms               ... and of the log device
  events.json        wall-clock times: fio's first write, the change (add_start_ms when `zpool add`
                     began, change_ms when it returned), fio's end; the
                     wall clock's offset from CLOCK_MONOTONIC (the tracer's clock); the server's pid
"""
from .analysis import (COMMIT_GAP_MS, EDGE_S, LAYERS, PHASES, SLOW_MS, client_stalls, commits, heatmaps, layer_table,
                       load, read_trace, server_stalls, stalls, summary, windows)
from .checks import CHECKS
from .experiment import (HERE, INTENT, JOB, NFS_URL, SERVER_CAPS, SLOG_MB, disk_model, job_file, plan, recordsize,
                         run, ssd_model)

__all__ = ["CHECKS", "COMMIT_GAP_MS", "EDGE_S", "HERE", "INTENT", "JOB", "LAYERS", "NFS_URL", "PHASES", "SERVER_CAPS",
           "SLOG_MB", "SLOW_MS", "client_stalls", "commits", "disk_model", "heatmaps", "job_file", "layer_table",
           "load", "plan", "read_trace", "recordsize", "run", "server_stalls", "ssd_model", "stalls", "summary", "windows"]
