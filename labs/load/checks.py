"""The load chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too):
- nothing of the host's disk: the clients sweep's disks are slowdisk's, with backing files on tmpfs;
  the pool's disks and the log device are slowdisk's too (their files on a Docker volume, never synced:
  slowdisk's real_fsync is off);
- timing precision, for the clients sweep: slowdisk holds each read for the model's time, waking a
  little late on a busy machine. The checks of throughput against the model's capacity and knee
  measure the disks' own service time beside them; where the disks served reads slower than modelled
  (late wake-ups), the model's capacity is not this machine's, and those checks say "not shown here"
  with the measured service time;
- CPU for the clients' loop: Little's law, N = X (R + Z), holds when each client's time is all a read
  or a think. A client held back for a CPU between the two is time in neither; the bound allows 10% of
  a cycle (2.2 ms at the defaults), far more than a loop of sleeping clients asks;
- for the synchronous writes, CPU: zfs-fuse commits the ZIL on the host's CPUs, and with many threads and
  a fast log device, the CPUs are what limits the writes (the chapter reports how busy they were). The
  checks ask only for shapes that hold whatever limits the top step: the log device faster at every
  step, the commits carrying more writes as threads are added, and Little's law (the threads' time
  outside a write, waiting for a CPU, within 10% of their cycle).
"""
from __future__ import annotations

from perflab.analysis.checks import Check

LITTLE = 0.10            # |X (R + Z) / N - 1| at every step: at most this
LINEAR = 0.85            # below half the knee: X(N) / (N X(1)) at least this
FLAT = 1.3               # past the knee: X(top) / X(top / 2) at most this (in proportion: 2)
CAPACITY = (0.8, 1.03)   # the top step's throughput / the disks' capacity the model predicts
KNEE = (0.75, 1.1)       # the measured knee (plateau / one client) / the model's
BOUND = (0.97, 1.25)     # the top step's mean latency / the model's bound N S / K - Z (Little's law at K / S)
TAIL = 1.2               # p99's rise / the mean's rise, from one client to the top step: at least this
UTIL_KNEE = 0.6          # the disks' %util at the step nearest the knee: at least this
PAST_UTIL = 1.4          # past the knee: the mean latency's rise / %util's rise, at least this
SLOW_DISKS = 1.05        # the disks' measured mean service time / the model's: above this, the disks are slower
COVER = 0.95             # the log device's bytes / fio's, at every step with it: at least this (window edges)
SLOG_GAIN = 2.0          # the log device's writes/s / none's, at every thread count: at least this
BATCH = 3.0              # the ZIL's writes per commit, top step / one thread: at least this
SCALE_NOLOG = 3.0        # without a log device: writes/s at the top step / one thread's, at least this


def _slow_disks(m, p) -> str | None:
    """The disks' own logs say they served reads in over {SLOW_DISKS} x the model's time (slowdisk woke
    late on this machine): the model's capacity and knee are not this machine's disks'."""
    ratio = m["svc_ms_measured"] / m["service_ms_model"]
    if ratio <= SLOW_DISKS:
        return None
    return (f"this machine's emulated disks served a read in a mean {m['svc_ms_measured']:.2f} ms (their own logs), "
            f"{ratio - 1:.0%} slower than the model's {m['service_ms_model']:.2f} ms: slowdisk woke late, so the "
            f"disks' capacity is {m['disks'] / m['svc_ms_measured'] * 1000:.0f} reads/s, not the model's "
            f"{m['capacity_iops_model']:.0f}")


def _ratio(a: str, b: str):
    return lambda m, p: m[a] / m[b]


def _ratio_shown(a: str, b: str, nd: int = 3):
    return lambda m, p: round(m[a] / m[b], nd)


def _sync(m) -> bool:
    return "sync_iops_nolog_1" in m


CPU = "CPU: "
TIMING = "timing precision: "
CHECKS = [
    Check("Little's law holds at every step of the clients sweep: N = X (R + Z)", "little_worst", "<=", LITTLE,
          about="the largest |X (R + Z) / N - 1| over the steps (X reads/s, R mean latency, Z think time)",
          asks=CPU + f"each client's time all in a read or a think: a client waiting for a CPU between them for "
                     f"over {LITTLE:.0%} of its cycle fails it"),
    Check("below the knee, throughput grows in proportion to the clients", "linear_worst", ">=", LINEAR,
          about="the lowest X(N) / (N x X(1)) over the steps up to half the model's knee",
          only_if=lambda m, p: m["linear_worst"] is not None,
          asks="nothing beyond the disks' model: two clients that draw the same disk queue behind each other "
               f"(the reason it is not 1); a busy CPU slows all steps alike"),
    Check("past the knee, throughput flattens", "flat_ratio", "<=", FLAT,
          about="X(top step) / X(the step at half of it); in proportion it would be 2",
          asks="nothing beyond the disks' model"),
    Check("the plateau is the disks' capacity, as the model predicts", _ratio("iops_top", "capacity_iops_model"),
          "between", CAPACITY, about="the top step's reads/s / disks / S = {capacity_iops_model} reads/s",
          show=_ratio_shown("iops_top", "capacity_iops_model"), unless=_slow_disks,
          asks=TIMING + f"the disks serving reads within {SLOW_DISKS - 1:.0%} of the model's time (their logs "
                        f"measure it; slower: not shown here)"),
    Check("the knee is where the disk model puts it", "knee_ratio", "between", KNEE,
          about="(plateau / one client's reads/s) / disks x (S + Z) / S = {knee_model} clients",
          unless=_slow_disks,
          asks=TIMING + f"as the plateau: the disks within {SLOW_DISKS - 1:.0%} of the model's time"),
    Check("at the top step, the mean latency is near the model's bound N S / K - Z", "mean_vs_bound_top", "between",
          BOUND, about="the top step's mean latency / the bound's {mean_ms_bound_top} ms", unless=_slow_disks,
          asks=TIMING + f"as the plateau: the disks within {SLOW_DISKS - 1:.0%} of the model's time (slower disks "
                        f"lengthen every queue)"),
    Check("the tail climbs faster than the mean", _ratio("p99_ratio_top", "mean_ratio_top"), ">=", TAIL,
          about="(p99 at the top step / p99 with one client) / the same for the mean latency",
          show=_ratio_shown("p99_ratio_top", "mean_ratio_top", 2),
          asks="nothing beyond the disks' model: queueing behind other clients' reads adds most to the "
               "unluckiest"),
    Check("at the knee, the disks are already busy most of the time (%util)", "util_knee", ">=", UTIL_KNEE,
          about="the disks' mean busy share at the step nearest the knee ({clients_near_knee} clients)",
          asks="nothing beyond the disks' model"),
    Check("past the knee, latency rises much more than %util does",
          lambda m, p: m["mean_ratio_past_util"] / (m["util_top"] / m["util_knee"]), ">=", PAST_UTIL,
          about="(mean latency, top step / knee step) / (%util, top step / knee step)",
          show=lambda m, p: round(m["mean_ratio_past_util"] / (m["util_top"] / m["util_knee"]), 2),
          asks="nothing beyond the disks' model"),
    Check("Little's law holds at every step of the synchronous writes: N = X R", "sync_little_worst", "<=", LITTLE,
          about="the largest |X R / N - 1| over both sweeps' steps", only_if=lambda m, p: _sync(m),
          asks=CPU + f"each thread's time all in a write: a thread waiting for a CPU between writes for over "
                     f"{LITTLE:.0%} of its cycle fails it (zfs-fuse and fio share the host's CPUs)"),
    Check("the log device took every commit, at every thread count", "sync_log_bytes_share_min", ">=", COVER,
          about="the lowest (bytes the log device wrote / fio's bytes) over the steps with it: the ZIL copies "
                "each 8 KiB write into its log record, so a commit sent to the pool's disks instead lowers it",
          only_if=lambda m, p: _sync(m),
          asks="nothing of the machine: a log device large enough for the commits between two txgs"),
    Check("the log device serves more synchronous writes at every thread count", "sync_slog_gain_min", ">=",
          SLOG_GAIN, about="the lowest (writes/s with the log device / without) over the steps",
          only_if=lambda m, p: _sync(m), asks=CPU + "enough for zfs-fuse to commit to the log device faster "
                                                    "than the disks' flushes allow"),
    Check("the ZIL commits many threads' writes together", _ratio("sync_writes_per_commit_top",
                                                                  "sync_writes_per_commit_1"), ">=", BATCH,
          about="fio's writes per log-device flush, top step / one thread", only_if=lambda m, p: _sync(m),
          show=_ratio_shown("sync_writes_per_commit_top", "sync_writes_per_commit_1", 2),
          asks="nothing beyond ZFS: writes that arrive while a commit is on its way wait for the next one"),
    Check("without a log device, more threads get more writes a second", "sync_scale_nolog", ">=", SCALE_NOLOG,
          about="writes/s at the top step / with one thread, no log device", only_if=lambda m, p: _sync(m),
          asks="nothing beyond ZFS and the disks' model: each commit costs the disks' flushes, whatever it carries"),
]
