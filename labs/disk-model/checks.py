"""The disk-model chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too):
- nothing of the host's disk: the disks are slowdisk's, with their backing files on tmpfs;
- little CPU: the lab's one container runs fio, one I/O at a time, and fio's own report gives its
  CPU per job (13% of one CPU at most in the reference run, for the writes it paces to 500 a second),
  so a limit of half a CPU leaves it room; slowdisk runs on the host, outside any container limit;
- timing precision, for all but two. slowdisk sleeps for each I/O's modelled time less its timers'
  usual lateness; a busy CPU wakes it later and less evenly. Each check of the disk's own log allows
  that lateness a share of the time it checks: 5% of a 128 KiB transfer for the sequential reads (the
  tightest), a few per cent of a revolution for the rotational band and the writes, 10% of a full
  stroke for the seek curve;
- fio's latency is the disk's plus the FUSE round trip (the kernel to slowdisk and back), which a busy
  CPU lengthens too. The run measures it read by read (fio's latency less the disk's), so where that
  round trip alone keeps fio's sequential rate, or a textbook disk's IOPS, from the bound, and the
  disk's own log shows the disk did as modelled, the check says "not shown here" with the measured
  round trip. The check that the round trip is small beside a disk's service time holds that
  measurement itself; it says "not shown here" only for a disk faster than slowdisk's default one, and
  only when the round trip is within its budget of the default disk's read.
The run does not measure slowdisk's wake-up lateness apart from the service times the checks hold to
the model (slowdisk does not log it), nor how long a CPU limit held fio's container back, so the
checks of the disk's log have no "not shown here": where a machine cannot keep slowdisk's timers,
the emulated disk is not the modelled one, and they fail.
"""
from __future__ import annotations

from perflab.analysis.checks import Check
from perflab.infra import slowdisk

from .analysis import LATE_OVER, TEXTBOOK_IOPS
from .experiment import PHASES, RANDOM_BS, SEQ_BS, WRITE_BS

RANDOM_IOPS = (0.92, 1.05)      # fio's random-read IOPS / the model's prediction
SEEK_FIT = (0.9, 1.1)           # fitted full stroke / the configured one
BAND = (0.93, 1.07)             # the rotational band's width, in revolutions
SEQ_DEVICE = (0.95, 1.03)       # the disk's sequential rate / the configured one
SEQ_SPREAD = 1.3                # fio's 90th / 10th percentile of the sequential reads
SEQ_FIO = (0.8, 1.0)            # fio's sequential rate / the configured one
FUSE_NEGATIVE = 0.01            # reads that end in fio before the disk served them: at most this share
FUSE_SHARE = 0.02               # the median FUSE round trip / the mean random read
WRITE_WAIT = (0.9, 1.02)        # an uncached (or O_DSYNC) write on the disk, in revolutions
CACHE_ACK = 0.02                # a write acknowledged from the cache, in revolutions: at most this
CACHE_GAIN = (0.85, 1.1)        # fio's write latency, cache off minus on, in revolutions
FLUSH = (0.97, 1.05)            # the disk's flush / flush_ms

#: slowdisk's default disk (7200 RPM, 15 ms full stroke, 120 MB/s), for the budgets the audit table names
_DEFAULT = slowdisk.DiskModel().validate()
_RANDOM_MS = slowdisk.expected_service_ms(_DEFAULT, "randread", RANDOM_BS, file_size=PHASES["random"][1])
_SEQ_US = SEQ_BS / (_DEFAULT.transfer_mbps * 1e3) * 1000
_REV_MS = _DEFAULT.rotation_ms


def _rev(key: str):
    """A disk's median time (a metric, ms) in revolutions."""
    return lambda m, p: m[key] / m["rotation_ms"]


def _rev_shown(key: str):
    return lambda m, p: round(m[key] / m["rotation_ms"], 4)


def _streamed(m) -> bool:
    """The disk itself streamed the sequential reads at its configured rate (its own log)."""
    return SEQ_DEVICE[0] <= m["seq_device_ratio"] <= SEQ_DEVICE[1]


def _fio_seq_cap(m) -> float:
    """The most of the configured rate fio can get when each read takes the disk's time plus the
    measured median FUSE round trip."""
    disk_ms = m["seq_transfer_ms"] / m["seq_device_ratio"]
    return m["seq_transfer_ms"] / (disk_ms + m["fuse_p50_us"] / 1000)


def _late_wakeups(m, p) -> str | None:
    """The disk's typical transfer (its median time) streamed at the configured rate within
    {SEQ_DEVICE[0]}-{SEQ_DEVICE[1]}, and only transfers this machine's timers held up (late wake-ups of
    slowdisk) brought the mean under: the model is right, the machine's timers are not that steady."""
    typical = m.get("seq_device_typical_ratio")
    if typical is None or not SEQ_DEVICE[0] <= typical <= SEQ_DEVICE[1] or m["seq_device_ratio"] > SEQ_DEVICE[1]:
        return None
    return (f"the disk's typical 128 KiB transfer streamed at {typical:.3f} x the configured rate, but this machine's "
            f"timers woke slowdisk late often enough that {m['seq_device_late_share']:.0%} of transfers took over "
            f"{LATE_OVER:g} x the typical time, and the mean rate came to {m['seq_device_ratio']:.3f} x")


def _faster_disk_than_the_budget(m, p) -> str | None:
    """The disk modelled reads faster than slowdisk's default disk, which the {FUSE_SHARE:.0%} budget was set
    for, and this machine's round trip, measured read by read, is within that budget of the default disk's
    random read: the parameters, not the machine, make it a larger share (and the lab did its part: every
    fio read paired with the disk's, none ending before it)."""
    budget_us = FUSE_SHARE * _RANDOM_MS * 1000
    if (m["fuse_unpaired"] or m["fuse_negative_share"] > FUSE_NEGATIVE or m["random_mean_ms"] >= _RANDOM_MS
            or m["fuse_random_p50_us"] > budget_us):
        return None
    return (f"this disk's random read took a mean {m['random_mean_ms']:.1f} ms, under the {_RANDOM_MS:.1f} ms of "
            f"slowdisk's default disk that the {FUSE_SHARE:.0%} budget was set for; this machine's round trip, a "
            f"median {m['fuse_random_p50_us']:,.0f} us, is within that budget ({budget_us:,.0f} us) but "
            f"{m['fuse_random_p50_us'] / 10 / m['random_mean_ms']:.1f}% of this disk's read")


def _round_trip_caps_seq(m, p) -> str | None:
    """This machine's FUSE round trip, measured read by read, alone keeps fio under {SEQ_FIO[0]} x the
    configured rate (and the lab did its part: the disk's own log streamed at the configured rate)."""
    if not _streamed(m) or m["seq_fio_ratio"] > SEQ_FIO[1]:
        return None
    cap = _fio_seq_cap(m)
    if cap >= SEQ_FIO[0]:
        return None
    return (f"this machine's FUSE round trip took a median {m['fuse_p50_us']:,.0f} us per sequential read (fio's "
            f"latency less the disk's, read by read), beside the disk's "
            f"{1000 * m['seq_transfer_ms'] / m['seq_device_ratio']:,.0f} us: fio could get at most {cap:.2f} x "
            f"the configured rate")


def _round_trip_caps_textbook(m, p) -> str | None:
    """The model predicts a textbook disk's IOPS, but this machine's FUSE round trip, measured read by
    read, takes them under {TEXTBOOK_IOPS[0]:g} (and the lab did its part: fio's random reads ran at
    the model's IOPS within {RANDOM_IOPS[0]}-{RANDOM_IOPS[1]})."""
    with_trip = 1000 / (m["random_predicted_ms"] + m["fuse_random_p50_us"] / 1000)
    if (not RANDOM_IOPS[0] <= m["random_iops_ratio"] <= RANDOM_IOPS[1] or m["random_iops"] >= TEXTBOOK_IOPS[0]
            or not TEXTBOOK_IOPS[0] <= m["random_predicted_iops"] <= TEXTBOOK_IOPS[1]
            or with_trip >= TEXTBOOK_IOPS[0]):
        return None
    return (f"the model predicts {m['random_predicted_iops']:.1f} IOPS, and this machine's FUSE round trip took a "
            f"median {m['fuse_random_p50_us']:,.0f} us per random read (fio's latency less the disk's, read by "
            f"read): with it a read takes {m['random_predicted_ms'] + m['fuse_random_p50_us'] / 1000:.2f} ms, "
            f"{with_trip:.1f} IOPS")


def _flush_pair(m, p) -> list[float]:
    """The write (revolutions) and the flush (x flush_ms), the disk's medians, as the chapter shows them."""
    return [round(m["flush_on_dev_ms"] / m["rotation_ms"], 4),
            round(m["flush_on_dev_flush_ms"] / float(p["flush_ms"]), 4)]


def _flush_ok(m, p) -> bool:
    return bool(m["flush_on_dev_ms"] / m["rotation_ms"] <= CACHE_ACK
                and FLUSH[0] <= m["flush_on_dev_flush_ms"] / float(p["flush_ms"]) <= FLUSH[1])


TIMING = "timing precision: "
CHECKS = [
    Check("random reads: IOPS as the model predicts from its seek curve and rotation", "random_iops_ratio",
          "between", RANDOM_IOPS, about="fio's IOPS / the {random_predicted_iops} IOPS the model predicts",
          asks=TIMING + f"the FUSE round trip and slowdisk's late wake-ups together at most "
                        f"{1 / RANDOM_IOPS[0] - 1:.1%} of the model's read time "
                        f"({_RANDOM_MS * (1 / RANDOM_IOPS[0] - 1):.1f} ms of a {_RANDOM_MS:.1f} ms read at "
                        f"slowdisk's defaults)"),
    Check("random reads: a textbook 7200 RPM disk's 75-90 IOPS", "random_iops", "between", TEXTBOOK_IOPS,
          unit="IOPS", about="QD1 random 4 KiB reads", only_if=lambda m, p: m["textbook_disk"],
          unless=_round_trip_caps_textbook,
          asks=TIMING + f"the FUSE round trip and late wake-ups within what the model's prediction leaves above "
                        f"{TEXTBOOK_IOPS[0]:g} IOPS ({1000 / TEXTBOOK_IOPS[0] - _RANDOM_MS:.1f} ms per read at "
                        f"slowdisk's defaults, less for a disk whose mean seek is near 9 ms)"),
    Check("random reads: service time follows the square-root seek curve", "seek_fit_ratio", "between", SEEK_FIT,
          about="fitted full stroke / the configured {full_stroke_ms} ms",
          asks=TIMING + f"slowdisk's sleeps late by under {SEEK_FIT[1] - 1:.0%} of a full stroke on average "
                        f"({(SEEK_FIT[1] - 1) * _DEFAULT.full_stroke_ms:.1f} ms at {_DEFAULT.full_stroke_ms:g} ms): "
                        f"a constant lateness raises the fitted curve by as much at both ends"),
    Check("short-stroked reads: the rotational band is one revolution wide (fio)", "stroke_band_ratio", "between",
          BAND, about="10th-90th percentile / 0.8, in revolutions of {rotation_ms} ms",
          asks=TIMING + f"the FUSE round trip and slowdisk's wake-ups varying from read to read by well under "
                        f"{BAND[1] - 1:.0%} of a revolution ({(BAND[1] - 1) * _REV_MS:.2f} ms at 7200 RPM)"),
    Check("short-stroked reads: the rotational band is one revolution wide (the disk's log)",
          "stroke_device_band_ratio", "between", BAND, about="10th-90th percentile / 0.8, in revolutions",
          asks=TIMING + f"slowdisk's wake-ups varying from read to read by well under {BAND[1] - 1:.0%} of a "
                        f"revolution"),
    Check("short-stroked reads: rotational delays spread evenly over the revolution", "stroke_ks", "<=",
          "stroke_ks_limit", about="KS distance to uniform 0-{rotation_ms} ms",
          bound_about="the 1% level for this many reads + 0.01",
          asks=TIMING + f"slowdisk's sleeps on time, beyond the lateness it subtracts: delays late by t move "
                        f"the distance by about t / a revolution, and the bound adds 0.01 to the 1% level "
                        f"({0.01 * _REV_MS * 1000:.0f} us at 7200 RPM)"),
    Check("sequential reads: the disk streams at the configured rate", "seq_device_ratio", "between", SEQ_DEVICE,
          about="the disk's MB/s / the configured MB/s", unless=_late_wakeups,
          asks=TIMING + f"slowdisk's sleeps late by at most {1 / SEQ_DEVICE[0] - 1:.0%} of a 128 KiB transfer "
                        f"on average, beyond the lateness it subtracts ({_SEQ_US * (1 / SEQ_DEVICE[0] - 1):.0f} us "
                        f"at {_DEFAULT.transfer_mbps:g} MB/s): the tightest of these checks"),
    Check("sequential reads: one thin band (transfer only)", "seq_spread", "<=", SEQ_SPREAD,
          about="fio's 90th / 10th percentile",
          asks=TIMING + f"the FUSE round trip and slowdisk's wake-ups varying by under {SEQ_SPREAD - 1:.0%} of a "
                        f"128 KiB read"),
    Check("sequential reads: fio gets the configured rate less the FUSE round trip", "seq_fio_ratio", "between",
          SEQ_FIO, about="fio's MB/s / the configured MB/s", unless=_round_trip_caps_seq,
          asks=TIMING + f"a FUSE round trip (and late wake-ups) under {1 / SEQ_FIO[0] - 1:.0%} of a 128 KiB "
                        f"transfer ({_SEQ_US * (1 / SEQ_FIO[0] - 1):.0f} us at {_DEFAULT.transfer_mbps:g} MB/s, "
                        f"less at a faster transfer_mbps)"),
    Check("FUSE: fio never sees a read end before the disk served it", "fuse_negative_share", "<=", FUSE_NEGATIVE,
          about="share of the reads whose fio latency < the disk's service time"),
    Check("FUSE: the round trip is small beside a disk's service time",
          lambda m, p: m["fuse_random_p50_us"] / 1000 / m["random_mean_ms"], "<=", FUSE_SHARE,
          about="median round trip / mean random read", unless=_faster_disk_than_the_budget,
          show=lambda m, p: round(m["fuse_random_p50_us"] / 1000 / m["random_mean_ms"], 4),
          asks=TIMING + f"a median FUSE round trip at most {FUSE_SHARE:.0%} of a random read "
                        f"({FUSE_SHARE * _RANDOM_MS * 1000:.0f} us at slowdisk's defaults, less for a faster "
                        f"disk): a CPU busy enough to wake slowdisk and fio late fails it"),
    Check("write cache off: each write waits about a revolution for its sector", _rev("write_off_dev_ms"),
          "between", WRITE_WAIT, about="the disk's median, in revolutions", show=_rev_shown("write_off_dev_ms"),
          asks=TIMING + f"the time from one write's end on the disk to the next's arrival (FUSE, fio) under "
                        f"about {1 - WRITE_WAIT[0]:.0%} of a revolution, and median lateness under about "
                        f"{WRITE_WAIT[1] - 1:.0%} of one"),
    Check("write cache on: a write is acknowledged from the cache", _rev("write_on_dev_ms"), "<=", CACHE_ACK,
          about="the disk's median, in revolutions", show=_rev_shown("write_on_dev_ms"),
          asks=f"nothing of its speed: a 4 KiB copy into memory, far under {CACHE_ACK:.0%} of a revolution "
               f"(the model acknowledges it in {WRITE_BS / (_DEFAULT.cache_mbps * 1e3) * 1000:.0f} us)"),
    Check("write cache: a synchronous write's latency changes by about a revolution", "cache_gain_rev",
          "between", CACHE_GAIN, about="fio's mean write latency, cache off minus cache on, in revolutions",
          asks=TIMING + f"a cached write's FUSE round trip under about {1 - CACHE_GAIN[0]:.0%} of a revolution, "
                        f"late wake-ups under about {CACHE_GAIN[1] - 1:.0%} of one on average (an uncached write "
                        f"waits a revolution less the time since the previous one ended: its round trip cancels)"),
    Check("O_DSYNC writes pass the write cache (about a revolution each)", _rev("dsync_on_dev_ms"), "between",
          WRITE_WAIT, about="the disk's median, cache on, in revolutions", show=_rev_shown("dsync_on_dev_ms"),
          asks=TIMING + "as for the writes with the cache off"),
    Check("write + fdatasync, cache on: the write from the cache, then a flush of flush_ms",
          _flush_ok, "==", True,
          about=f"both: the write <= {CACHE_ACK} revolutions; the flush {FLUSH[0]}-{FLUSH[1]} x flush_ms "
                f"(the disk's medians)",
          show=_flush_pair,
          asks=TIMING + f"a flush's median lateness under {FLUSH[1] - 1:.0%} of flush_ms "
                        f"({(FLUSH[1] - 1) * _DEFAULT.flush_ms * 1000:.0f} us at {_DEFAULT.flush_ms:g} ms)"),
]
