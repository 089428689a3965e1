"""The latency-art chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too).
The disks are slowdisk's model on tmpfs, so neither the disk under Docker's volumes nor the speed of
the host's own disk plays any part; what the machine lends is its CPU and the punctuality of its
threads:
- the icy lake's lines are drawn by the host's turnaround between one write and the next: each wait
  is a rotation less the time since the disk's last write. The creep asks that turnaround to stay
  steady to within CREEP_STEP of a rotation for all but a few writes; the X and the slope (medians
  of the steps) ask it for half of them; the two waits sharing one rotation ask that it be short
  beside a rotation. The run measures the host's part of each write (fio's latency less the disk's
  own service time, write for write): where that accounts for the shortfall, and the lab did its
  part (both write caches off, every write sequential), the check says "not shown here" with it.
  The disk's own timer wake-up is inside its service time and is not counted, so a machine whose
  timers alone wake late fails rather than being excused;
- the pterodactyl's knee, the linear growth up to it and the flat latency before it ask the host to carry ports x lanes
  streams at the disks' media rate through FUSE without adding to each read; the run does not tell
  the host's time apart from a wait for a lane past one disk, so these have no "not shown here";
- "a read takes one transfer time" asks the host's path to add less than HOST_READ_SHARE of a
  transfer to a read; at one disk (no lane to wait for) the run measures it: "not shown here" where
  it did not, the disk's own median being one transfer. The second band and the latency rise are
  ratios of the run's own latencies, which a time added to every read shrinks: "not shown here" where
  that time, measured at one disk, is HOST_READ_SHARE of a transfer or more and is what keeps the
  ratio under its bound;
- the disks being no slower past the knee asks slowdisk's timers to wake as punctually with every
  disk streaming as with one; the run records no measure of their lateness apart from the service
  times the check reads, so this has no "not shown here";
- the rest compare the run's own data with each other (a wrap-round, the flat lines of spindles in
  step, the throughput past the knee against at it) or with a setting it recorded (the write cache),
  and ask nothing of its speed.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .icy import CREEP_STEP, SUM_BAND

CREEP_MIN = 0.8              # share of successive writes within CREEP_STEP of a rotation
SLOPE_BAND = (0.5, 2.0)      # d0's slope over the predicted one
FLAT_DRIFT_US = 2.0          # spindles in step: |drift| per round under this
KNEE_SLACK = 1.0             # the knee within this many disks of ports x lanes
LINEAR_MIN = 0.8             # MB/s at the knee / (ports x lanes x one disk's)
FLAT_BAND = (0.85, 1.15)     # MB/s with all disks / at the knee
FLAT_LATENCY_MAX = 1.2       # p50 at the knee / p50 with one disk
TRANSFER_BAND = (0.9, 1.3)   # p50 before the knee, in transfer times
SECOND_BAND_MIN = 1.6        # p90 with all disks / p50 before the knee
DEVICE_SLOWER_MAX = 1.15     # device-log p50 with all disks / with one
RISE_SHARE = 0.5             # latency must rise by at least half what queueing predicts

SEQUENTIAL_MIN = 0.99        # the lab's part: writes that began where the one before ended
#: Each write the host holds up lengthens one disk's idle time, so one write (of the same disk, or the
#: other's next) lands off its line: two steps of that line, the write after it being back on it. So
#: the host alone can bring a creep share under CREEP_MIN when it held up (1 - CREEP_MIN) / 2 of a
#: disk's writes, and spoil half the steps, moving their median (the X, the slope), at a quarter.
HELD_FOR_CREEP = round((1 - CREEP_MIN) / 2, 3)
HELD_FOR_MEDIAN = 0.25
#: A longer turnaround shortens each wait by as much: the waits fall under SUM_BAND's low end when the
#: host takes about 1 - SUM_BAND[0] of a rotation per round.
HOST_ROUND_SHARE = round(1 - SUM_BAND[0], 3)
#: fio's median read reaches TRANSFER_BAND's high end when the host adds this much of a transfer to a
#: read that takes one transfer on the disk.
HOST_READ_SHARE = round(TRANSFER_BAND[1] - 1, 3)


def _offset_set(m, p) -> bool:
    return p["rpm_offset"] > 0


def _icy_lab_did_its_part(m) -> bool:
    """Both icy-lake disks ran with their write cache off (run.json's provenance), every write began
    where the one before ended (slowdisk's logs), and fio's log paired with the disks' logs."""
    return (m.get("icy_write_cache") == ["off", "off"] and (m.get("icy_sequential_share") or 0) >= SEQUENTIAL_MIN
            and m.get("icy_host_held_share") is not None)


def _held(m, limit: float, spoils: str) -> str | None:
    share = m.get("icy_host_held_share")
    if not _icy_lab_did_its_part(m) or share < limit:
        return None
    step_us = CREEP_STEP * m["icy_rotation_ms"] * 1000
    return (f"the host held up {share:.0%} of a disk's writes by {step_us:.0f} us ({CREEP_STEP:.0%} of a rotation) "
            f"or more beyond the median of {m['icy_host_p50_us']:.0f} us (fio's latency less the disk's own "
            f"service time); each puts one write off its line, two steps of it, enough to {spoils}")


def _host_breaks_the_creep(m, p) -> str | None:
    """The host (fio's container, the kernel's FUSE queue, slowdisk's thread) held up {HELD_FOR_CREEP:.0%} or
    more of a disk's writes by {CREEP_STEP:.0%} of a rotation or more beyond their median (fio's latency less
    the disk's own service time), and the lab did its part (both write caches off, every write sequential)."""
    return _held(m, HELD_FOR_CREEP, f"bring the share of small steps under {CREEP_MIN:g}")


def _wraps_expected(m, p) -> int:
    """Half the wrap-rounds predicted over the writes icy_stats measures (the run less its first and
    last second), at least one."""
    return max(1, int(0.5 * (p["icy_time"] - 2) / m["icy_predicted_period_s"]))


def _host_breaks_the_median(m, p) -> str | None:
    """The host (fio's container, the kernel's FUSE queue, slowdisk's thread) held up {HELD_FOR_MEDIAN:.0%} or
    more of a disk's writes by {CREEP_STEP:.0%} of a rotation or more beyond their median, enough to spoil
    half the steps and move their median, and the lab did its part (both write caches off, every write
    sequential)."""
    return _held(m, HELD_FOR_MEDIAN, "spoil half the steps and move their median")


def _host_slow_rounds(m, p) -> str | None:
    """The host took {HOST_ROUND_SHARE:.0%} of a rotation or more of each round (one write to each disk, fio's
    latency less the disks' own service times, on average) and the waits added up to less than
    {SUM_BAND[0]} of a rotation (a longer turnaround shortens each wait), the lab having done its part."""
    rot, host = m["icy_rotation_ms"], m.get("icy_host_round_ms")
    if (not _icy_lab_did_its_part(m) or host is None or m["icy_sum_ms"] / rot >= SUM_BAND[0]
            or host < HOST_ROUND_SHARE * rot):
        return None
    return (f"the host took {host:.2f} ms of each round on average ({host / rot:.0%} of a {rot:.2f} ms rotation): "
            f"each disk's wait for its sector is shorter by the host's time, and the two disks' mean services add "
            f"up to {m['icy_sum_ms'] / rot:.2f} of a rotation")


def _host_read_ms(m) -> float | None:
    """The host's time in a read with one disk streaming (one reader: no lane to wait for), fio's median
    less the disk's own; None unless the disk's own median was one transfer (the disk model did its part)."""
    t, dev, one = m["transfer_ms"], m["device_p50_first_ms"], m.get("one_disk_p50_ms")
    if one is None or not TRANSFER_BAND[0] <= dev / t <= TRANSFER_BAND[1]:
        return None
    return one - dev


def _host_slow_reads(m, p) -> str | None:
    """With one disk streaming (one reader: no lane to wait for) the host's path added {HOST_READ_SHARE:.0%}
    of a transfer time or more to a read (fio's median less the disk's own), while the disk's own
    median was within the band: the disk model did its part."""
    host, t = _host_read_ms(m), m["transfer_ms"]
    if host is None or m["p50_before_knee_ms"] / t <= TRANSFER_BAND[1] or host < HOST_READ_SHARE * t:
        return None
    return (f"with one disk streaming, fio's median read took {m['one_disk_p50_ms']:.2f} ms and the disk's own "
            f"{m['device_p50_first_ms']:.2f} ms: the host's path (fio's container, FUSE, slowdisk's threads) added "
            f"{host:.2f} ms, {host / t:.0%} of a {t:.2f} ms transfer")


def _rise_bound(m, p) -> float:
    return 1 + RISE_SHARE * (m["latency_rise_expected"] - 1)


def _host_dilutes(upper: str, what: str, bound):
    """A check's `unless` for a ratio of a latency (`upper`) to the median before the knee, held to
    `bound` (a number, or a function of the metrics and parameters)."""

    def unless(m, p) -> str | None:
        """The host added {HOST_READ_SHARE:.0%} of a transfer time or more to a read with one disk streaming
        (fio's median less the disk's own, which was one transfer), and that time is what keeps the
        ratio under its bound: taken off both latencies, the ratio would reach it (a time added to
        every read shrinks a ratio)."""
        host, lo, hi = _host_read_ms(m), m["p50_before_knee_ms"], m[upper]
        need = bound(m, p) if callable(bound) else bound
        if (host is None or host < HOST_READ_SHARE * m["transfer_ms"] or lo - host <= 0
                or (hi - host) / (lo - host) < need):
            return None
        return (f"the host added {host:.2f} ms to each read (with one disk streaming: fio's median "
                f"{m['one_disk_p50_ms']:.2f} ms, the disk's own {m['device_p50_first_ms']:.2f} ms); without it "
                f"{what} would be {(hi - host) / (lo - host):.2f}, not {hi / lo:.2f}")
    return unless


_DILUTES = "the host's path short beside a transfer time (a time added to every read shrinks the ratio)"
_TURNAROUND = "the host's time in each write (fio's container, the kernel's FUSE queue, slowdisk's thread)"
_CREEP = [Check(f"icy lake: disk {d}'s latency creeps (most writes land within {100 * CREEP_STEP:g}% of a "
                f"rotation of the one before)", f"icy_{d}_creep_share", ">=", CREEP_MIN,
                about="share of successive writes",
                bound_about=f"a random rotation would give about {2 * CREEP_STEP:g}",
                only_if=_offset_set, unless=_host_breaks_the_creep,
                asks=f"timing precision: {_TURNAROUND} steady to within {CREEP_STEP:.0%} of a rotation for all "
                     f"but a few writes (a busy CPU that holds writes up breaks the lines)")
          for d in ("d0", "d1")]

CHECKS = [
    Check("icy lake: the two disks' waits share one rotation", lambda m, p: m["icy_sum_ms"] / m["icy_rotation_ms"],
          "between", SUM_BAND, about="mean service of d0 + d1 / one rotation",
          show=lambda m, p: round(m["icy_sum_ms"] / m["icy_rotation_ms"], 3), unless=_host_slow_rounds,
          asks=f"timing: {_TURNAROUND} short beside a rotation (each wait is shorter by it)"),
    Check("icy lake: round by round, what one disk's wait gains the other's loses", "icy_round_share", ">=",
          CREEP_MIN, about=f"share of rounds (a write to each disk) whose two waits add up to {SUM_BAND[0]}-"
                           f"{SUM_BAND[1]} of a rotation",
          unless=_host_breaks_the_creep,
          asks=f"timing precision: {_TURNAROUND} steady to within {CREEP_STEP:.0%} of a rotation for all but a "
               f"few writes (a held-up write spoils its round)"),
    *_CREEP,
    Check("icy lake: the two diagonals run in opposite directions (an X)",
          lambda m, p: m["icy_d0_drift_us"] > 0 > m["icy_d1_drift_us"], "==", True,
          about="both: d0 (the slower spindle) up, d1 down",
          show=lambda m, p: f"{m['icy_d0_drift_us']:+.1f} / {m['icy_d1_drift_us']:+.1f} us",
          only_if=_offset_set, unless=_host_breaks_the_median,
          asks=f"timing: {_TURNAROUND} steady for at least half the writes (the median step)"),
    Check("icy lake: the lines wrap round the rotation (a sawtooth)",
          lambda m, p: min(m["icy_d0_net_wraps"], m["icy_d1_net_wraps"]), ">=", _wraps_expected,
          about="net wrap-rounds of the disk that wraps less (one expected every {icy_predicted_period_s} s)",
          bound_about="half the predicted number over the measured span, at least 1",
          show=lambda m, p: (f"d0 {m['icy_d0_net_wraps']} ({m['icy_d0_jumps']} jumps), "
                             f"d1 {m['icy_d1_net_wraps']} ({m['icy_d1_jumps']} jumps)"),
          only_if=lambda m, p: (_offset_set(m, p) and bool(m.get("icy_predicted_period_s"))
                                and 1.5 * m["icy_predicted_period_s"] < p["icy_time"]),
          asks="nothing of its speed: the run lasting one and a half predicted periods (a held-up write adds a "
               "jump out and one back, which cancel in the net count)"),
    Check("icy lake: the slope is the difference of the two rotation times",
          lambda m, p: abs(m["icy_d0_drift_us"] / m["icy_predicted_drift_us"]), "between", SLOPE_BAND, unit="x",
          about="d0's median step / the predicted {icy_predicted_drift_us} us per round",
          show=lambda m, p: round(abs(m["icy_d0_drift_us"] / m["icy_predicted_drift_us"]), 2),
          only_if=_offset_set, unless=_host_breaks_the_median,
          asks=f"timing: {_TURNAROUND} steady for at least half the writes (the median step)"),
    Check("icy lake: spindles in step draw flat lines", lambda m, p: abs(m["icy_d0_drift_us"]), "<", FLAT_DRIFT_US,
          unit="us", about="|d0's median step| per round", show=lambda m, p: m["icy_d0_drift_us"],
          only_if=lambda m, p: not _offset_set(m, p),
          asks="nothing of its speed: the median step of a line that does not move"),
    Check("icy lake: the disks' write cache was off (each write waits for its sector)",
          lambda m, p: "on" not in m["icy_write_cache"], "==", True,
          about="write_cache=off on both icy-lake disks (run.json provenance)",
          show=lambda m, p: " / ".join(m["icy_write_cache"]),
          only_if=lambda m, p: m.get("icy_write_cache") is not None,
          asks="nothing of the machine: the disk model's setting, as the run recorded it"),
    Check("pterodactyl: the knee is where the ports run out of lanes", "knee_disks", "between",
          lambda m, p: (m["knee_expected"] - KNEE_SLACK, m["knee_expected"] + KNEE_SLACK),
          about="the fitted knee, for ports x lanes = {knee_expected}:", unit="disks",
          bound_about=f"ports x lanes +/- {KNEE_SLACK:g}",
          asks="CPU: the host carrying ports x lanes streams at the disks' media rate through FUSE"),
    Check("pterodactyl: throughput grows about linearly up to the knee", "linear_ratio", ">=", LINEAR_MIN,
          about="MB/s at {knee_expected} disks / ({knee_expected} x one disk's)",
          asks="CPU: the host carrying ports x lanes streams at the disks' media rate through FUSE"),
    Check("pterodactyl: throughput is flat past the knee", "flat_ratio", "between", FLAT_BAND,
          about="MB/s with all disks / at the knee",
          asks="nothing of its speed: the same ports' throughput with more disks behind them, in the same run"),
    Check("pterodactyl: latency is flat up to the knee", "flat_before_knee", "<=", FLAT_LATENCY_MAX,
          about="p50 at the knee / p50 with one disk",
          asks="CPU: the host adding no more to a read with ports x lanes disks streaming than with one"),
    Check("pterodactyl: before the knee a read takes one transfer time",
          lambda m, p: m["p50_before_knee_ms"] / m["transfer_ms"], "between", TRANSFER_BAND, unit="x",
          about="fio's p50 before the knee / 128 KiB at the media rate ({transfer_ms} ms)",
          show=lambda m, p: round(m["p50_before_knee_ms"] / m["transfer_ms"], 2), unless=_host_slow_reads,
          asks=f"timing: the host's path adding less than {HOST_READ_SHARE:.0%} of a transfer time to a read"),
    Check("pterodactyl: past the knee the slowest tenth waits up to a second transfer", "second_band", ">=",
          SECOND_BAND_MIN, about="p90 with all disks / p50 before the knee",
          unless=_host_dilutes("p90_last_ms", "p90 with all disks / p50 before the knee", SECOND_BAND_MIN),
          asks=f"timing: {_DILUTES}"),
    Check("pterodactyl: the disks themselves are no slower past the knee", "device_p50_ratio", "<=",
          DEVICE_SLOWER_MAX, about="device-log p50 with all disks / with one disk",
          asks="timing precision: slowdisk's timers waking as punctually with every disk streaming as with one"),
    Check("pterodactyl: latency rises past the knee", "latency_rise", ">=", _rise_bound,
          about="p50 with all disks / before the knee (queueing predicts {latency_rise_expected}x)",
          bound_about=f"{RISE_SHARE:.0%} of the predicted rise",
          unless=_host_dilutes("p50_last_ms", "p50 with all disks / before the knee", _rise_bound),
          asks=f"timing: {_DILUTES}"),
]
