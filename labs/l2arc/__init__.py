"""Lab `l2arc` (chapter "L2ARC warm-up: three cache tiers", chapters/l2arc.md).

Topology: the ZFS server container (zfs-fuse with a small ARC, `-m arc_mb`; O_DIRECT on block
devices), two striped data disks on the slowdisk emulator, a zram block device (RAM) as the L2ARC
cache device, and fio in a client container. The working set (larger than the ARC, smaller than
the cache device) is written once, the pool is exported and imported (a cold ARC), the cache
device is added only then (an empty L2ARC: added before the fill, it came back from the import
full of stale space accounting and the feed thread wrapped around it without keeping anything),
and fio's random 8 KiB reads warm both caches while the ARC's kstats are sampled every second.
Then the cache device is removed (`zpool remove`) and the same reads run on for `off_time`, the ARC
still warm: the L2ARC off against on, the comparison the 2009 post's "over 5x" makes.

Real: ZFS's ARC and L2ARC (feed thread, headers, eviction), fio, containers, zram. Emulated: the
7200 RPM disks (slowdisk), the read-optimised SSD (zram: RAM behind the block layer).

    experiment.py   plan(), the job files, run(): the tool
    analysis.py     load(), summary(): heat maps, the tiers' rates from the ARC's kstats, the warm-up
                    and its prediction, the reads without the cache device
    checks.py       CHECKS: the chapter's claims, each declared once

Produces under the run directory: fio/warmup*.log and fio/off*.log (histogram logs, epoch-stamped),
fio/*.json, device/d*.log (per-I/O service times), device/arcstats.txt (kstats at 1 Hz),
arcstats-final.json, events.json (cold_ms, warm_end_ms, off_start_ms: the cache device gone,
off_end_ms, probe_start_ms).
"""
from .analysis import (FIGURES_2009, KEPT_S, OFF_SETTLE_S, WARM_IOPS_MIN, WARM_IOPS_MIN_OTHER, disk_bound_s,
                       fill_rate_mib_s, fill_shape, fill_window, in_flight, iops_series, kept_share, load, off_stats,
                       phase_stats, predicted_warmup, summary, tier_rates, warmup_time)
from .checks import CHECKS
from .experiment import DISK_BYTES, DISK_SPAN, INTENT, RECORD, disk_model, plan, run

__all__ = ["CHECKS", "DISK_BYTES", "DISK_SPAN", "FIGURES_2009", "INTENT", "KEPT_S", "OFF_SETTLE_S", "RECORD",
           "WARM_IOPS_MIN", "WARM_IOPS_MIN_OTHER", "disk_bound_s", "disk_model", "fill_rate_mib_s", "fill_shape",
           "fill_window", "in_flight", "iops_series", "kept_share", "load", "off_stats", "phase_stats", "plan",
           "predicted_warmup", "run", "summary", "tier_rates", "warmup_time"]
