"""The logzilla chapter's claims, each declared once (perflab.analysis.checks).

The data disks and the log device are emulated (slowdisk): the time a write waits for them is the
model's, on any machine. Their backing files lie on a Docker volume, on the host's disk, but slowdisk
does not fsync them (real_fsync off), so a flush costs `flush_ms` whatever that disk is; the run does
not measure how the host writes the files back. What the checks ask of the machine (the chapter's
audit table says it too):
- CPU time, for the gains: after the change a synchronous write waits for the emulated SSD (`ssd_ms`
  plus its transfer) and for the CPU time zfs-fuse, slowdisk's FUSE layer and fio spend on it; before
  it, for the emulated disks' flushes, several milliseconds. A busy CPU or a CPU limit on the
  containers lengthens the short "after" write far more, in proportion, than the long "before" one, so
  the IOPS gain, the median's fall and the untar's gain shrink. The run measures neither the
  containers' CPU time nor the time a limit held them back, nor the log device's own service time (it
  keeps no per-I/O log), so these checks have no "not shown here": they pass or fail;
- CPU time for the rest of a write before the change, and of a file in the untar without the log
  device, to stay under the flushes' and the fsyncs' time (milliseconds);
- timing precision: slowdisk woken on time at the end of each flush's `flush_ms`, and a write into the
  emulated write cache served in a small fraction of a flush;
- nothing of its speed: where the writes go (one commit per write with one thread, on the log device
  after the change, the data disks written in bursts), what strace counts, a write's median against
  the SSD's own time (a floor), the untar's steps against an O_DSYNC write (both wait for the same
  commit), and the picket fence's regularity.
Some thresholds depend on the preset the run was made with (`preset` among the metrics, from run.json).
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .experiment import disk_model

#: The IOPS gain by preset (the issue's acceptance: >= 5 in smoke, >= 10 in full), IOPS_OTHER elsewhere.
IOPS_RATIO_MIN = {"smoke": 5.0, "full": 10.0}
IOPS_OTHER = 5.0
#: The median's fall by preset; in any other preset it must fall at all: more than 1, which at the
#: two decimals summary keeps of p50_ratio is 1.01 or more.
P50_RATIO_MIN = {"full": 10.0}
P50_FALLS = 1.01
DISK_WRITES_PER_WRITE = (1.5, 3)   # without a log device: one ZIL write per side of a mirror, and the txgs
LOG_WRITES_PER_WRITE = (0.8, 1.5)  # with one: one log write per fio write
QUIET_AFTER = 0.1                  # bursts: at least this share of quiet seconds after the change
KIB_GAIN = 2                       # ... and data-disk writes at least this much larger
CACHE_FAST = 20                    # write cache on: a flush at least 20x a cached write
FLUSH_MODEL = (0.8, 1.5)           # a flush's median over flush_ms
FLUSH_SHARE = 0.5                  # flushes at least half of a write's median before the change
UNTAR_SYNC_SHARE = 0.8             # the untar's time in its create and commit, without a log device
UNTAR_STEP = (0.5, 2)              # an untar step's median over an O_DSYNC write's, without a log device
UNTAR_RATIO_MIN = 5.0   # "several times": per file, two intent-log commits to the mirrors vs to the SSD
PICKET_EVENTS = 3                  # stalls needed for a spacing (picket_fence's own minimum)
PICKET_CV = 0.5                    # regular: the gaps between stalls vary by less than half
PICKET_FRACTION = 0.01             # rare: under 1% of the writes


def _ratio(a, b) -> float | None:
    return None if a is None or not b else a / b


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def _pct(share: float | None) -> str:
    """A share as a reader reads it: 0.708 -> "71%"."""
    return "-" if share is None else f"{share:.0%}"


def _us(x: float | None) -> str:
    """A time in us to a reader's precision: 4012.9 -> "4,013 us"."""
    return "-" if x is None else f"{x:,.0f} us"


def _product(a, b) -> float | None:
    return None if a is None or b is None else a * b


def _worst(values, bounds) -> float | None:
    """The value furthest outside (low, high), or the one nearest an edge when all lie inside: it lies
    inside exactly when they all do (None when one is missing, which fails the check)."""
    if any(x is None for x in values):
        return None
    lo, hi = bounds
    return max(values, key=lambda x: max(lo - x, x - hi))


def _untar_steps(m) -> list[float]:
    """Each untar step's median (create, commit) over the O_DSYNC write's, all without a log device."""
    return [m[f"untar_{op}_p50_us_no_log"] / m["p50_before_us"] for op in ("create", "commit")]


def _synchronous(m) -> bool:
    return bool(m["trace_open_dsync"] and m["trace_pwrite64"] == m["trace_probe_ios"] and m["trace_flushes"] == 0)


def _bursts(m) -> bool:
    return ((m["disk_quiet_share_after"] or 0) >= QUIET_AFTER and (m["disk_quiet_share_before"] or 0) == 0
            and (m["disk_kib_per_write_after"] or 0) >= KIB_GAIN * (m["disk_kib_per_write_before"] or float("inf")))


def _cache_and_flush(m, p) -> bool:
    w, f = m["dev_write_p50_us_before"], m["dev_flush_p50_us_before"]
    if w is None or f is None:   # no write or no flush in the disks' logs before the change
        return False
    return w * CACHE_FAST <= f and FLUSH_MODEL[0] <= f / 1000 / disk_model(p).flush_ms <= FLUSH_MODEL[1]


def _picket(m) -> bool:
    return m["picket_spacing_cv"] < PICKET_CV and m["picket_fraction"] < PICKET_FRACTION


def _write_cache(m, p) -> bool:
    return disk_model(p).write_cache


def _untarred(m, p) -> bool:
    return "untar_ratio" in m


CPU_AFTER = ("CPU time: after the change a write waits for the emulated SSD's ssd_ms and transfer and for the CPU "
             "time of zfs-fuse, slowdisk's FUSE layer and fio; a busy CPU or a CPU limit lengthens it far more, in "
             "proportion, than a write before the change, which waits milliseconds for the emulated disks' flushes")

CHECKS = [
    Check("IOPS rise with the log device", "iops_ratio", ">=",
          lambda m, p: IOPS_RATIO_MIN.get(m["preset"], IOPS_OTHER),
          about="writes/s after / before, in a {preset} run", bound_about="the preset's threshold",
          asks=CPU_AFTER),
    Check("median latency falls with the log device", "p50_ratio", ">=",
          lambda m, p: P50_RATIO_MIN.get(m["preset"], P50_FALLS),
          about="p50 before / after, in a {preset} run",
          bound_about="10 in a full run, else more than 1: 1.01 at two decimals",
          asks=CPU_AFTER),
    Check("after the change, a write's median is at least the emulated SSD's time", "p50_after_us", ">=",
          lambda m, p: 1000 * p["ssd_ms"], unit="us", about="p50 after",
          bound_about="ssd_ms, the SSD's time per write", only_if=lambda m, p: p["log_device"] == "ssd",
          asks="nothing of its speed: the emulated SSD's ssd_ms per write is a floor no machine beats"),
    Check("the writes land on the log device", "log_write_ops_per_s_after", ">=", lambda m, p: 0.5 * m["iops_after"],
          unit="ops/s", about="log device write ops/s (zpool iostat) for fio's {iops_after} writes/s",
          bound_about="half of fio's writes/s"),
    Check("the traced writes are synchronous", lambda m, p: _synchronous(m), "==", True,
          about="open with O_DSYNC, exactly {trace_probe_ios} pwrite64 calls, no fsync or fdatasync",
          show=lambda m, p: (f"O_DSYNC: {m['trace_open_dsync']}, pwrite64: {m['trace_pwrite64']}, "
                             f"fsync+fdatasync: {m['trace_flushes']}"),
          asks="nothing of its speed: strace's count of a short probe's calls"),
    Check("without a log device, about two disk writes per fio write",
          lambda m, p: _ratio(m["disk_write_ops_per_s_before"], m["iops_before"]), "between", DISK_WRITES_PER_WRITE,
          about="data-disk write ops / fio writes",
          show=lambda m, p: _round(_ratio(m["disk_write_ops_per_s_before"], m["iops_before"])),
          asks="nothing of its speed: one thread makes one intent-log commit per write, to both sides of a mirror"),
    Check("with one, about one log write per fio write",
          lambda m, p: _ratio(m["log_write_ops_per_s_after"] or 0, m["iops_after"]), "between", LOG_WRITES_PER_WRITE,
          about="log device write ops / fio writes",
          show=lambda m, p: _round(_ratio(m["log_write_ops_per_s_after"] or 0, m["iops_after"])),
          asks="nothing of its speed: one thread makes one intent-log commit per write"),
    Check("data disks written in bursts, with larger I/Os, after the change", lambda m, p: _bursts(m), "==", True,
          about=f">= {QUIET_AFTER:.0%} quiet seconds after, none before; KiB per write op at least {KIB_GAIN}x",
          show=lambda m, p: (f"quiet seconds {_pct(m['disk_quiet_share_before'])} -> {_pct(m['disk_quiet_share_after'])}, "
                             f"KiB/op {m['disk_kib_per_write_before']} -> {m['disk_kib_per_write_after']}"),
          asks="a pace after the change that leaves the data disks quiet between transaction groups: the emulated "
               "SSD holds one writer to at most one write per ssd_ms and its transfer"),
    Check("write cache on: disk writes are cache-fast, flushes cost flush_ms", _cache_and_flush, "==", True,
          about=f"flush p50 >= {CACHE_FAST}x write p50, and within {FLUSH_MODEL[0]}-{FLUSH_MODEL[1]}x flush_ms",
          show=lambda m, p: f"write {_us(m['dev_write_p50_us_before'])}, flush {_us(m['dev_flush_p50_us_before'])}",
          only_if=_write_cache,
          asks="timing precision and CPU time: slowdisk woken on time after each flush_ms, and a write into its "
               "cache served in a small fraction of a flush"),
    Check("before the change, most of a write's latency is flushes",
          lambda m, p: _product(m["flushes_per_write_before"], m["dev_flush_p50_us_before"]), ">=",
          lambda m, p: FLUSH_SHARE * m["p50_before_us"], unit="us", about="flushes per write x flush p50",
          bound_about="half of the fio write p50",
          show=lambda m, p: (f"{m['flushes_per_write_before']} x {_us(m['dev_flush_p50_us_before'])} vs "
                             f"{_us(m['p50_before_us'])}"),
          only_if=_write_cache,
          asks="CPU time: the rest of a write before the change (zfs-fuse, FUSE, fio) under its flushes' "
               "time, several milliseconds"),
    Check("without a log device, the untar's time is its synchronous steps", "untar_sync_share_no_log", ">=",
          UNTAR_SYNC_SHARE, about="create + commit time / untar time", only_if=_untarred,
          asks="CPU time: untar.py's own work per file (reading the archive, writing the bytes) under a quarter "
               "of its two fsyncs' time, milliseconds"),
    Check("without a log device, an untar create, and a commit, cost what an O_DSYNC write costs",
          lambda m, p: _worst(_untar_steps(m), UNTAR_STEP), "between", UNTAR_STEP,
          about="each untar step's p50 / fio write p50, all without a log device",
          show=lambda m, p: "create {:.2f}, commit {:.2f}".format(*_untar_steps(m)), only_if=_untarred,
          asks="nothing of its speed: a create's fsync, a commit's and an O_DSYNC write all wait for one "
               "intent-log commit to the mirrors"),
    Check("the untar with the log device (after fio) is several times faster than the one without (before)",
          "untar_ratio", ">=", UNTAR_RATIO_MIN, about="seconds without / with the log device", only_if=_untarred,
          asks="CPU time, as for the IOPS: with the log device a file's two commits cost zfs-fuse and FUSE CPU "
               "time beside the emulated SSD's"),
    Check("the stalls are regular and rare", lambda m, p: _picket(m), "==", True,
          about=f"the gaps between stalls vary by under {PICKET_CV:.0%} of their mean (standard deviation / mean), "
                f"and the stalls are under {PICKET_FRACTION:.0%} of writes",
          show=lambda m, p: (f"gaps vary by {m['picket_spacing_cv']:.0%} of their mean; stalls "
                             f"{100 * m['picket_fraction']:.3f}% of writes"),
          only_if=lambda m, p: m["picket_stall_events"] >= PICKET_EVENTS,
          asks="nothing of its speed: zfs-fuse writes transaction groups at its own pace"),
]
