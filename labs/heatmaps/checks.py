"""The heatmaps chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What the checks ask of your machine" table says it too):
- the two bands, and the mean between them, need a disk whose O_DIRECT reads are clearly slower than a
  page-cache read. A disk that answers within 10x of a memory copy cannot show them: "not shown here",
  with both medians, and only when the lab did its part (most cached reads were memory copies, and the
  direct reads were slower than any memory copy, so they reached a device);
- a direct rate the disk cannot serve: one reader that waits for each read (psync) issues at most one
  over the disk's mean time; a slower disk than the set rate allows is "not shown here", with that time,
  under the same condition;
- "a memory copy" is a read under 10 us plus its block copied at 1 GB/s, a floor any machine beats.
Nothing is compared with 2009's figures here: the gap between the bands is the disk's, and the chapter
says how it compares in a sentence computed from the run.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

BAND_RATIO = 10        # an order of magnitude
MEAN_AWAY = 2          # the mean at least twice as far from each band's median
RATE_SHARE = 0.9       # a job "ran at its set rate" when it reached 90% of it


def _cache_worked(m) -> bool:
    """The page cache did its part (most cached reads were memory copies), and the direct reads were
    slower than any memory copy, so they reached a device: what is left to blame is the device's speed."""
    return m["cached_fast_share"] > 0.5 and m["direct_p50_us"] > m["cached_fast_us"]


def _medians(m) -> float:
    """The gap the machine gave: the disk's median read over the page cache's."""
    return m["direct_p50_us"] / m["cached_p50_us"]


def _disk_too_fast(m, p) -> str | None:
    """The disk answers O_DIRECT reads within {BAND_RATIO}x of a page-cache read (and the lab did its part:
    the page cache served the cached job, the direct reads reached a device)."""
    gap = _medians(m)
    if not _cache_worked(m) or gap >= BAND_RATIO:
        return None
    return (f"this machine's disk answered O_DIRECT reads in a median {m['direct_p50_us']:,.1f} us, "
            f"{gap:.1f}x the page cache's {m['cached_p50_us']:.1f} us: a disk this fast leaves no "
            f"order of magnitude between the tiers")


def mean_room(s: float, gap: float) -> str | None:
    """Why a mean of two bands `gap` apart, a share `s` of it in the upper one, cannot lie MEAN_AWAY
    times from both on any data, or None. mean ~ c (1 - s + s R) for R = gap: MEAN_AWAY x the lower
    median needs R >= (MEAN_AWAY - 1 + s) / s; MEAN_AWAY below the upper one needs MEAN_AWAY s < 1 and
    R >= MEAN_AWAY (1 - s) / (1 - MEAN_AWAY s)."""
    low = (MEAN_AWAY - 1 + s) / s if s > 0 else float("inf")
    high = MEAN_AWAY * (1 - s) / (1 - MEAN_AWAY * s) if MEAN_AWAY * s < 1 else float("inf")
    if gap >= max(low, high):
        return None
    if high == float("inf"):
        return (f"with {100 * s:.0f}% of the reads on the disk the mean lies within {MEAN_AWAY}x of the disk band "
                f"however far apart the bands are")
    return (f"the bands are {gap:.1f}x apart here, and with {100 * s:.0f}% of the reads on the disk the mean lies "
            f"{MEAN_AWAY}x from both only when they are more than about {max(low, high):.0f}x apart")


def _bands_too_close_for_the_mean(m, p) -> str | None:
    """The bands are too close, for the share of reads on the disk, for a mean {MEAN_AWAY}x from both
    (arithmetic on any data: mean_room)."""
    return mean_room(m["direct_share_measured"], _medians(m)) if _cache_worked(m) else None


def _disk_too_slow(m, p) -> str | None:
    """One reader at queue depth 1 cannot issue reads faster than the disk answers them (and the lab
    did its part: the page cache served the cached job, the direct reads reached a device)."""
    cap = m["direct_qd1_max_iops"]
    if not _cache_worked(m) or cap >= RATE_SHARE * m["rate_set_direct"]:
        return None
    return (f"this machine's disk took {1e6 / cap:,.0f} us per O_DIRECT read on average, so one reader that waits "
            f"for each (psync) can issue at most {cap:,.0f} reads/s, under the {m['rate_set_direct']:,} set")


CHECKS = [
    Check("bands an order of magnitude apart", "band_ratio", ">=", BAND_RATIO,
          about="direct median / cached median", unless=_disk_too_fast,
          asks="a disk clearly slower than memory: its O_DIRECT reads 10x a page-cache read or more"),
    Check("cached band below direct band", "cached_p50_us", "<", "direct_p50_us", unit="us",
          bound_about="the direct median", about="the cached median",
          asks="a device under the volume (not memory: a tmpfs serves O_DIRECT reads from RAM, if at all)"),
    Check("the mean lies in neither band",
          lambda m, p: round(min(m["mean_all_us"] / m["cached_p50_us"], m["direct_p50_us"] / m["mean_all_us"]), 2),
          ">=", MEAN_AWAY, about="the lesser of mean / cached median and direct median / mean",
          unless=_bands_too_close_for_the_mean,
          asks="bands far enough apart for the disk's share of reads to lift the mean out of the lower one"),
    Check("p99 of all reads is in the disk band", "p99_all_us", ">=", lambda m, p: m["direct_p50_us"] / 2,
          unit="us", bound_about="half the direct median", asks="a device under the volume, as above"),
    Check("most cached reads are memory copies", "cached_fast_share", ">", 0.5,
          about="share of cached reads under {cached_fast_us} us (a memory copy)",
          asks="a memory copy of a block at 1 GB/s or faster (every machine of the last fifteen years)"),
    Check("the cached job ran at its set rate", "iops_cached", ">=", lambda m, p: RATE_SHARE * m["rate_set_cached"],
          unit="reads/s", bound_about="90% of its set rate",
          asks="one CPU's spare time for a few thousand page-cache reads a second"),
    Check("the direct job ran at its set rate", "iops_direct", ">=", lambda m, p: RATE_SHARE * m["rate_set_direct"],
          unit="reads/s", bound_about="90% of its set rate", unless=_disk_too_slow,
          asks="a disk that serves the set rate of O_DIRECT reads one at a time"),
]
