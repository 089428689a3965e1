"""The l2arc chapter's claims, each declared once (perflab.analysis.checks).

The disks are emulated (slowdisk's model, a few ms a read), the cache device is RAM (zram), and every
read crosses FUSE into zfs-fuse. What each check asks of the machine (the chapter's audit table too):
- most ask nothing of its speed: they compare the run's data with itself (the fill's shape, the ARC's hit
  shares, the tiers' counters) or with a prediction from the disks' read time this run measured (its cold
  reads), so a slower machine moves both sides;
- the IOPS gains (warm over cold, the L2ARC on over off), the IOPS staying low until late, and the
  ARC's hits per second (IOPS times its hit share, warm against cold and with the L2ARC against
  without) need cache hits many times faster than an emulated disk read. A hit is CPU work (fio, FUSE,
  zfs-fuse, zram), so a busy CPU or a CPU limit on the containers slows it, while the disks' time is
  set by their model. The run measures both: the warm reads' median (nearly all of them hits) and the
  cold reads' (nearly all misses). Each thread waits for its read, so their ratio is the IOPS gain the
  machine allows. Where it leaves no room for the claim, the check says "not shown here" with both
  medians, and only when the caches did their part: the L2ARC held the working set, the caches answered
  90% of the reads, the disk band faded (and, for the L2ARC off, no L2ARC hit after the removal);
- the medians' order needs a warm read (nearly all L2ARC hits) well under a cold read (nearly all disk
  reads: a fifth of it) and the DRAM probe (a read from memory through FUSE, not a counted ARC hit) at
  most half a warm read. Both are CPU work and move together with the CPU's speed: it passes or fails;
- the gain following the ratio of the medians, and the disk band fading, ask that reads not be held
  up by stalls (a CPU limit or other work stopping fio or zfs-fuse for milliseconds now and then): they
  lengthen the mean read but not the median, and add reads of 1 ms or more that no disk caused. The run
  measures the warm reads' mean (threads / IOPS, Little's law) against what their median and their disk
  reads (the ARC's counters) explain: at STALLED times that or more, the gain says "not shown here" with
  the numbers, and so does a late rise when the stalls held the warm rate under HALF_RATIO times the
  cold one (seen with the containers held to half a CPU each, 2026-11-27: a mean of 874 us against a
  median of 229 us). The disk band's fading counts such stalls and passes or fails.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .analysis import KEPT_S, WARM_IOPS_MIN, WARM_IOPS_MIN_OTHER

TIME_BAND = (0.5, 2)      # measured / predicted (the warm-up, the IOPS without the L2ARC), and gain / latency ratio
ARC_UNDER_L2 = 2          # a read from memory (the DRAM probe's median) at most half a warm read's
L2_UNDER_DISK = 5         # a warm read (its median) at most a fifth of a cold read (nearly all disk reads)
FEED_MARGIN = 2           # the disk-bound warm-up more than twice the feed-bound one
STRAIGHT_R2 = 0.98        # R^2 of a straight line through l2_size while it fills
FILL_RATE = (0.7, 1.3)    # the L2ARC's fill rate / the disks' read rate over the same window
HALF_SHARE = 0.1          # IOPS halfway through the warm-up at most this share of the warm IOPS
BAND_FADE = 10            # the share of reads of 1 ms or more falls at least this many times
HITS_OVER_SHARE = 5       # DRAM hits/s grow at least this many times more than their share changes
DEVICE_FAST = 0.01        # at most this share of the disks' I/Os under 500 us
ON_OFF = 5                # the 2009 post's "over 5x"
SHARE_SAME = (0.75, 1.33)  # the ARC's hit share without the L2ARC / with it
HITS_FALL = 5             # DRAM hits/s with the L2ARC at least this many times those without
BACK_COLD = 0.75          # without the L2ARC, reads of 1 ms or more at least this share of the cold ones
KEPT = 0.75               # the ARC's hit share right after the removal, at least this share of the warm one
L2_HELD = 0.9             # the caches did their part: the L2ARC held at least this share of the working set
HALF_CACHED = 0.45        # the working set's share cached halfway through a straight fill to 90%
STALLED = 2               # warm reads stalled: their mean at least this times what their median and disk reads explain
#: the least disk / hit latency ratio at which the IOPS halfway stay under HALF_SHARE of the warm IOPS:
#: a read takes (1 - h) disk reads and h hits, so the share is 1 / ((1 - h) ratio + h)
HALF_RATIO = (1 / HALF_SHARE - HALF_CACHED) / (1 - HALF_CACHED)


def _finite(x) -> bool:
    return x is not None and x == x and x != float("inf")


def _caches_warmed(m, p) -> bool:
    """The lab did its part: the L2ARC came to hold the working set, the caches answered 90% of the
    reads within the warm-up, and the disk band faded from fio's map."""
    return (m["l2_size_final_mib"] >= L2_HELD * p["working_set"] / 2 ** 20 and _finite(m["warmup_measured_s"])
            and m["app_ms_share_warm"] * BAND_FADE <= m["app_ms_share_cold"])


def _share_x(m) -> float:
    return m["dram_share_warm"] / m["dram_share_cold"]


def _hits_x(m) -> float:
    return m["dram_hits_per_s_warm"] / m["dram_hits_per_s_cold"]


def _share_off(m) -> float:
    return m["dram_share_off"] / m["dram_share_warm"]


def _fall(m) -> str:   # the ARC's hits per second with the L2ARC / without it, when it had any without
    return f" ({m['dram_hits_per_s_warm'] / m['dram_hits_per_s_off']:.0f}x)" if m["dram_hits_per_s_off"] else ""


def _hit_gain(m) -> float:
    """The IOPS gain this machine's cache hits allow over its disks: each thread waits for its read, so
    reads per second go as one over a read's time, the cold median against the warm one."""
    return m["latency_ratio"]


def _off_allowed(m) -> float:
    """The L2ARC on over off that the hits allow: without it, the ARC's misses (1 - its hit share) go
    to the disks."""
    return (1 - m["dram_share_off"]) * _hit_gain(m)


def _medians(m) -> str:
    return (f"this machine's cache hits took a median of ≤ {m['warm_p50_us']:,.0f} us (the warm reads, through FUSE "
            f"and zfs-fuse), the emulated disks' reads ≤ {m['cold_p50_us']:,.0f} us (the cold reads): "
            f"{_hit_gain(m):.1f}x")


def _explained_us(m) -> float:
    """What a warm read's mean would be from its median and the ARC's disk reads alone (each of those
    taking the cold reads' median)."""
    return m["warm_p50_us"] + m["disk_share_warm"] * m["cold_p50_us"]


def _stalled(m) -> bool:
    return m.get("warm_mean_us") is not None and m["warm_mean_us"] >= STALLED * _explained_us(m)


def _stalls(m) -> str:
    return (f"the warm reads took a mean of {m['warm_mean_us']:,.0f} us (threads / IOPS, Little's law), "
            f"{m['warm_mean_us'] / _explained_us(m):.1f}x the {_explained_us(m):,.0f} us that their median "
            f"(≤ {m['warm_p50_us']:,.0f} us) and their disk reads ({100 * m['disk_share_warm']:.1f}% of them, by the "
            f"ARC's counters) account for: reads were held up by stalls that no disk caused")


def _stalls_part_mean_and_median(m, p) -> str | None:
    """The warm reads' mean (threads / IOPS, by Little's law) is at least {STALLED}x what their median and
    their disk reads (the ARC's counters) explain: stalls that no disk caused lengthened the mean but not
    the median, so the IOPS follow the means, not the medians (the caches having done their part)."""
    if not _caches_warmed(m, p) or not _stalled(m):
        return None
    return (f"{_stalls(m)}; the IOPS rose {m['warm_cold_ratio']:.1f}x, with the means, against the medians' "
            f"{m['latency_ratio']:.1f}x")


def _stalls_hold_the_warm_rate_down(m, p) -> str | None:
    """Stalls that no disk caused (as for the gain) held the warm rate to under {HALF_RATIO:.1f}x the cold one:
    halfway through a straight fill, with about {HALF_CACHED:.0%} of the working set cached, the IOPS are
    then above {HALF_SHARE:.0%} of the warm rate (the caches having done their part, the fill straight)."""
    if (not _caches_warmed(m, p) or (m["l2_fill_r2"] or 0) < STRAIGHT_R2 or not _stalled(m)
            or m["warm_cold_ratio"] >= HALF_RATIO):
        return None
    share = 1 / ((1 - HALF_CACHED) * m["warm_cold_ratio"] + HALF_CACHED)
    return (f"{_stalls(m)}; they held the warm rate to {m['warm_cold_ratio']:.1f}x the cold one, so with "
            f"{HALF_CACHED:.0%} of the working set cached halfway, the IOPS there are about {share:.0%} of it, "
            f"over {HALF_SHARE:.0%}")


def _late_rise_not_shown(m, p) -> str | None:
    """Either the warm reads' median is less than {HALF_RATIO:.1f}x faster than the disks' (as measured, the
    caches having done their part, the fill straight), or stalls that no disk caused (the warm reads' mean at
    least {STALLED}x what their median and disk reads explain) held the warm rate to under {HALF_RATIO:.1f}x
    the cold one: either way the IOPS halfway stay above {HALF_SHARE:.0%} of the warm rate."""
    return _hits_too_slow_for_a_late_rise(m, p) or _stalls_hold_the_warm_rate_down(m, p)


def _hits_too_slow_for_the_gain(m, p) -> str | None:
    """This machine's cache hits (the warm reads' median) are faster than the emulated disks' reads (the
    cold median) by less than the gain asked for, the caches having done their part (the L2ARC held at
    least {L2_HELD:.0%} of the working set, the caches answered 90% of the reads, the disk band faded)."""
    if not _caches_warmed(m, p) or _hit_gain(m) >= m["warm_cold_ratio_min"]:
        return None
    return (f"{_medians(m)}; with each thread waiting for its read, the IOPS can rise about that much, under the "
            f"{m['warm_cold_ratio_min']:g}x asked")


def _hits_too_slow_for_on_off(m, p) -> str | None:
    """The warm reads' median against the disks' allows the L2ARC on at most {ON_OFF}x the IOPS of the
    L2ARC off, at the ARC's measured hit share without it (the caches having done their part, and the
    cache device gone: no L2ARC hit after the removal)."""
    if not _caches_warmed(m, p) or m["l2_hits_off"] != 0 or _off_allowed(m) > ON_OFF:
        return None
    return (f"{_medians(m)}; without the L2ARC {100 * (1 - m['dram_share_off']):.0f}% of the reads missed the ARC, "
            f"so the L2ARC on can give about {_off_allowed(m):.1f}x the IOPS of the L2ARC off, not over {ON_OFF}x")


def _hits_too_slow_for_a_late_rise(m, p) -> str | None:
    """The warm reads' median is less than {HALF_RATIO:.1f}x faster than the disks': halfway through a
    straight fill about {HALF_CACHED:.0%} of the working set is cached, and the reads that still miss keep
    the IOPS above {HALF_SHARE:.0%} of the warm rate (the caches having done their part, the fill straight)."""
    if not _caches_warmed(m, p) or (m["l2_fill_r2"] or 0) < STRAIGHT_R2 or _hit_gain(m) >= HALF_RATIO:
        return None
    share = 1 / ((1 - HALF_CACHED) * _hit_gain(m) + HALF_CACHED)
    return (f"{_medians(m)}; with {HALF_CACHED:.0%} of the working set cached halfway, the IOPS there are about "
            f"{share:.0%} of the warm rate, over {HALF_SHARE:.0%}")


def _hits_too_slow_for_dram_hits(m, p) -> str | None:
    """The warm reads' median against the disks' leaves the IOPS too little gain for the ARC's hits per
    second (IOPS x its hit share) to grow {HITS_OVER_SHARE}x more than its share changes (the caches
    having done their part)."""
    allowed = _hit_gain(m) * _share_x(m)
    if not _caches_warmed(m, p) or allowed >= HITS_OVER_SHARE * max(_share_x(m), 1 / _share_x(m)):
        return None
    return (f"{_medians(m)}; with the ARC's hit share {_share_x(m):.1f}x, its hits per second can grow about "
            f"{allowed:.1f}x")


def _hits_too_slow_for_the_fall(m, p) -> str | None:
    """The ARC's hit share stayed within {SHARE_SAME[0]}-{SHARE_SAME[1]}x, but the warm reads' median against
    the disks' allows the ARC under {HITS_FALL}x the hits per second with the L2ARC as without it (the
    caches having done their part, the cache device gone)."""
    if (not _caches_warmed(m, p) or m["l2_hits_off"] != 0 or not SHARE_SAME[0] <= _share_off(m) <= SHARE_SAME[1]
            or _off_allowed(m) / _share_off(m) >= HITS_FALL):
        return None
    return (f"{_medians(m)}; at the ARC's hit shares, its hits per second with the L2ARC can be about "
            f"{_off_allowed(m) / _share_off(m):.1f}x those without")


def _tiers(m, p) -> float:
    return min(m["warm_p50_us"] / (ARC_UNDER_L2 * m["arc_p50_us"]),
               m["cold_p50_us"] / (L2_UNDER_DISK * m["warm_p50_us"]))


def _warmup_ratio(m, p) -> float:
    return round(m["warmup_measured_s"] / m["warmup_predicted_s"], 2) if m["warmup_predicted_s"] else float("nan")


def _off_ratio(m, p) -> float:
    return round(m["off_iops"] / m["off_iops_predicted"], 2)


HITS = "cache hits (CPU work: fio, FUSE, zfs-fuse, zram) many times faster than the emulated disks' reads"
STALLS = "reads not held up by stalls: a CPU limit or other work that stops fio or zfs-fuse for milliseconds"

CHECKS = [
    Check("warm IOPS well above cold", "warm_cold_ratio", ">=", "warm_cold_ratio_min", unit="x",
          about="warm / cold reads/s",
          bound_about=("the preset's minimum: " + ", ".join(f"{k} {v:g}" for k, v in WARM_IOPS_MIN.items())
                       + f", any other {WARM_IOPS_MIN_OTHER:g}"),
          unless=_hits_too_slow_for_the_gain, asks=f"{HITS}; the run measures both medians"),
    Check("warm-up time as predicted", _warmup_ratio, "between", TIME_BAND, about="measured / predicted",
          asks="nothing of its speed: the prediction takes the disks' read time from the same run's cold reads"),
    Check("a read from memory (the DRAM probe) under half a warm read, a warm read under a fifth of a cold read",
          _tiers, ">=", 1,
          about=(f"the lesser of warm p50 / ({ARC_UNDER_L2} x DRAM probe p50) and cold p50 / ({L2_UNDER_DISK} x "
                 f"warm p50)"),
          show=lambda m, p: (f"warm {m['warm_p50_us']:,.0f} us, {m['warm_p50_us'] / m['arc_p50_us']:.1f}x the probe's "
                             f"{m['arc_p50_us']:,.0f}; cold {m['cold_p50_us']:,.0f} us, "
                             f"{m['cold_p50_us'] / m['warm_p50_us']:.0f}x warm"),
          asks="a warm read (nearly all cache hits) well under a cold read (nearly all disk reads: a fifth of it), "
               "and a read from memory at most half a warm read: the probe and the warm reads are CPU work and "
               "move together with the CPU's speed"),
    Check("IOPS gain follows the latency ratio", "gain_over_latency_ratio", "between", TIME_BAND,
          about="(warm / cold IOPS) / (cold p50 / warm p50)", unless=_stalls_part_mean_and_median,
          asks=(f"{STALLS} lengthens the mean read but not the median; the run measures the mean (Little's law) "
                f"against what the median and the disk reads explain")),
    Check("the disks, not the feed, bound the warm-up", "warmup_disk_bound_s", ">",
          lambda m, p: FEED_MARGIN * m["warmup_feed_bound_s"], unit="s", about="the disk-bound time",
          bound_about=f"{FEED_MARGIN}x the feed-bound time",
          show=lambda m, p: (f"{m['warmup_disk_bound_s']:,.1f} s bound by the disks, {m['warmup_feed_bound_s']:,.1f} s "
                             f"by the feed"),
          asks="nothing of its speed: the parameters and the disks' read time from the cold reads (a slower "
               "machine only makes the disks the bound by more)"),
    Check("the L2ARC fills in a straight line", "l2_fill_r2", ">=", STRAIGHT_R2,
          about="R^2 of a straight line through l2_size while it fills"),
    Check("the L2ARC fills at the disks' read rate", "l2_fill_over_disk_rate", "between", FILL_RATE,
          about="fill MiB/s / disk reads x 8 KiB per s"),
    Check("IOPS stay low until late in the warm-up", "iops_half_warmup_share", "<=", HALF_SHARE,
          about="IOPS halfway through the warm-up / warm IOPS", unless=_late_rise_not_shown,
          asks=f"{HITS}: about {HALF_RATIO:.0f}x or more, as the run measures them; and reads not stalled"),
    Check("the disk band fades from the application's map", "app_ms_share_warm", "<=",
          lambda m, p: m["app_ms_share_cold"] / BAND_FADE, about="share of reads >= 1 ms at the end",
          bound_about=f"the share at the start / {BAND_FADE}",
          show=lambda m, p: f"{m['app_ms_share_cold']:.3g} at the start, {m['app_ms_share_warm']:.2g} at the end",
          asks=f"{STALLS} adds reads of 1 ms or more that no disk caused (the run does not measure stalls)"),
    Check("DRAM hits: the share changes little, the number per second much more", lambda m, p: _hits_x(m), ">=",
          lambda m, p: HITS_OVER_SHARE * max(_share_x(m), 1 / _share_x(m)), unit="x",
          about="DRAM hits/s warm / cold", bound_about=f"{HITS_OVER_SHARE}x the change of their share, either way",
          unless=_hits_too_slow_for_dram_hits, asks=f"{HITS}: hits per second rise with the IOPS",
          show=lambda m, p: (f"share {m['dram_share_cold']:.3g} cold, {m['dram_share_warm']:.3g} warm "
                             f"({_share_x(m):.1f}x); {m['dram_hits_per_s_cold']:,.0f} hits/s cold, "
                             f"{m['dram_hits_per_s_warm']:,.0f} warm ({_hits_x(m):.0f}x)")),
    Check("no cache band in the device's map", "device_sub500us_share", "<=", DEVICE_FAST,
          about="share of device I/Os under 500 us",
          asks="nothing of its speed: the emulated disks' times come from their model, and no cache hit reaches them"),
    Check("the cache device is gone: no L2ARC hits after the removal", "l2_hits_off", "==", 0,
          about="L2ARC hits in the reads without the cache device"),
    Check("the L2ARC on gives over 5x the IOPS of the L2ARC off (the post's claim)", "on_off_ratio", ">", ON_OFF,
          unit="x", about="warm IOPS / IOPS without the cache device, the ARC warm in both",
          unless=_hits_too_slow_for_on_off, asks=f"{HITS}, as for warm over cold"),
    Check("without the L2ARC, the disks' speed sets the IOPS", _off_ratio, "between", TIME_BAND,
          about="measured / min(threads, disks) / ((1 - hit share) x cold p50)",
          asks="nothing of its speed: the prediction takes the disks' read time from the cold reads and the hit "
               "share from the ARC's counters"),
    Check("the ARC's hit share is the same with and without the L2ARC, its hits per second are not",
          lambda m, p: (SHARE_SAME[0] <= _share_off(m) <= SHARE_SAME[1]
                        and m["dram_hits_per_s_warm"] >= HITS_FALL * m["dram_hits_per_s_off"]), "==", True,
          unless=_hits_too_slow_for_the_fall,
          asks=f"{HITS}, for the hits per second (the share asks nothing of its speed)",
          about=(f"the ARC's hit share without / with the L2ARC within {SHARE_SAME[0]}-{SHARE_SAME[1]}x, and its "
                 f"hits/s with the L2ARC at least {HITS_FALL}x those without"),
          show=lambda m, p: (f"share {m['dram_share_warm']:.3g} with, {m['dram_share_off']:.3g} without "
                             f"({_share_off(m):.2f}x); {m['dram_hits_per_s_warm']:,.0f} hits/s with, "
                             f"{m['dram_hits_per_s_off']:,.0f} without{_fall(m)}")),
    Check("without the L2ARC, the disk band is back as it was cold", "off_ms_share", ">=",
          lambda m, p: max(BAND_FADE * m["app_ms_share_warm"], BACK_COLD * m["app_ms_share_cold"]),
          about="share of reads >= 1 ms without the cache device",
          bound_about=f"{BAND_FADE}x the warm share and {BACK_COLD}x the cold",
          show=lambda m, p: (f"{m['off_ms_share']:.3g} without; {m['app_ms_share_warm']:.2g} warm, "
                             f"{m['app_ms_share_cold']:.3g} cold")),
    Check("the ARC keeps what it holds: its hit share right after the removal", "dram_share_off_start", ">=",
          lambda m, p: KEPT * m["dram_share_warm"],
          about=f"the ARC's hit share in the first {KEPT_S:g} s without the cache device (an emptied ARC would start "
                f"near 0)", bound_about=f"{KEPT} x the warm-up's last share"),
]
