"""The ht chapter's claims, each declared once (perflab.analysis.checks).

What they ask of the machine (the chapter's audit table says it too):
- a gap between reading from the CPU's caches and from DRAM: the run measures this CPU's own gap
  (stress-ng --memrate, every read method); where even the best method gains less than 1.25x, fio's
  1.25x cannot show: "not shown here", with the method and its gap;
- fio's CPU to itself: "busy" means fio's own CPU time. Where other work shared fio's CPU (the kernel's
  /proc/stat against the container's own cgroup time) or a CPU limit held fio's container back (the
  cgroup's throttled time), fio cannot be 90% busy: "not shown here", with the measured share;
- a CPU hog takes CPU time from fio only where fio had CPU time to give: under a CPU limit that already
  held fio back, it says "not shown here", with the throttled share.
Work per CPU-second, the lesson, is measured the same way on every machine: fio's work over fio's time.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

WORK_GAP = 1.25        # an effect worth the name: the HT3 box's smallest gain in 2009 (see the chapter)
BUSY_PCT = 90          # "busy": fio had at least this share of its CPU
GAP_SLACK = 1.1        # fio's gap may exceed the CPU's best read gap by this much, no more
SHARED_PCT = 10        # other work or a CPU limit took at least this share of fio's CPU: not fio's to use


def _no_memory_gap(m, p) -> str | None:
    """This CPU reads DRAM within {WORK_GAP}x of its caches by every method stress-ng has (the run's calibration)."""
    gap = m.get("machine_read_ratio_max")
    if gap is None or gap >= WORK_GAP:
        return None
    return (f"this CPU's largest cache-vs-DRAM read gap, by any of stress-ng's read methods "
            f"({m['machine_read_max_method']}), is {gap:.2f}x: no gap of {WORK_GAP}x for fio's copies to show")


def _shared(accounted, other, throttled, where: str) -> str | None:
    """Not shown when other work and the CPU limit account for what fio did not get (fio's time plus
    theirs at least BUSY_PCT), and one of them took a share worth naming; never when something else
    took fio's time, nor when nothing was measured."""
    if accounted is None or accounted != accounted or accounted < BUSY_PCT:
        return None
    if other is not None and other == other and other >= SHARED_PCT:
        return (f"other work took up to {other:.0f}% of fio's CPU {where} (the kernel's count for that CPU beside fio's "
                f"container's own); with it the CPU was at least {accounted:.0f}% busy: fio could not be {BUSY_PCT}% "
                f"busy on a CPU it shared")
    if throttled is not None and throttled >= SHARED_PCT:
        return (f"the CPU limit held fio's container back up to {throttled:.0f}% of the time {where} (its cgroup's "
                f"throttled time); with it fio's CPU was accounted for at least {accounted:.0f}%: fio could not be "
                f"{BUSY_PCT}% busy on the CPU it was allowed")
    return None


def _sweep_cpu_not_fios(m, p) -> str | None:
    """Other work on fio's CPU, or a CPU limit (perflab run --cpus), took what fio did not get at every
    working set (fio's time plus theirs at least {BUSY_PCT}%), as the kernel counted it."""
    return _shared(m.get("sweep_accounted_min_pct"), m.get("sweep_other_cpu_pct_max"),
                   m.get("sweep_throttled_pct_max"), "during the sweep")


def _ends_cpu_not_fios(m, p) -> str | None:
    """As for the sweep, at both of its ends (the cache-resident and the DRAM-sized set)."""
    return _shared(m.get("ends_accounted_min_pct"), m.get("ends_other_cpu_pct_max"),
                   m.get("ends_throttled_pct_max"), "at the two ends")


def _hog_had_nothing_to_take(m, p) -> str | None:
    """A CPU limit already held fio's container back alone ({SHARED_PCT}% of the time or more): a hog
    cannot take time fio was not given."""
    t = m.get("dram_throttled_pct")
    if t is None or t < SHARED_PCT:
        return None
    return (f"the CPU limit held fio's container back {t:.0f}% of the time even alone: the hog, under its own "
            f"limit, took no time fio was allowed to use")


def _hog_measured(m, p) -> bool:
    return m.get("cpu_dram_throughput_ratio") is not None


CHECKS = [
    Check("unequal work: cache-resident vs DRAM-sized work per CPU-second", "work_ratio", ">=", WORK_GAP,
          about="work per CPU-second, cache-resident / DRAM-sized", unit="x", unless=_no_memory_gap,
          asks="a CPU whose caches are faster to read than its DRAM (the run measures by how much)"),
    Check("busy either way: fio's CPU at both ends of the sweep",
          lambda m, p: min(m["cache_cpu_pct"], m["dram_cpu_pct"]), ">=", BUSY_PCT, unit="%",
          about="fio's CPU time over the run, the lesser of the two ends",
          show=lambda m, p: f"{m['cache_cpu_pct']}% and {m['dram_cpu_pct']}%", unless=_ends_cpu_not_fios,
          asks="fio's CPU to itself: no other work on it, no CPU limit on the container"),
    Check("fio's gap is within this CPU's memory gap", "work_ratio", "<=",
          lambda m, p: GAP_SLACK * m["machine_read_ratio_max"], unit="x",
          asks="nothing of its speed: held to this CPU's own memory gap, which the run measures (stress-ng)",
          bound_about="1.1 x the largest cache/DRAM read ratio stress-ng measured here",
          show=lambda m, p: f"{m['work_ratio']}x vs {m['machine_read_ratio_max']}x ({m['machine_read_max_method']})",
          only_if=lambda m, p: m.get("machine_read_ratio_max") is not None),
    Check("the CPU stays busy across the whole sweep", "sweep_min_cpu_pct", ">=", BUSY_PCT, unit="%",
          about="fio's CPU time at every working set", unless=_sweep_cpu_not_fios,
          asks="fio's CPU to itself, as above"),
    Check("ops x I/O size = bytes the kernel counted", "ops_x_size_error_max", "<=", 0.01,
          about="the largest relative gap in any measurement"),
    Check("the reads came from the page cache", "disk_read_fraction_max", "<=", 0.001,
          about="share of the bytes read from storage (read_bytes of /proc/PID/io), the largest in any measurement",
          asks="memory for the working sets' files to stay in the page cache"),
    Check("a CPU hog takes CPU time: fio's share of its CPU falls", "cpu_dram_cpu_pct", "<=", 70, unit="%",
          about="fio's CPU time with the hog on its CPU", only_if=lambda m, p: _hog_measured(m, p),
          unless=_hog_had_nothing_to_take, asks="CPU time for the hog to take, as below"),
    Check("a CPU hog takes CPU time: throughput falls with it", "cpu_dram_throughput_ratio", "<=", 0.7,
          about="throughput with the hog / alone", only_if=lambda m, p: _hog_measured(m, p),
          unless=_hog_had_nothing_to_take, asks="CPU time for the hog to take: no CPU limit below what fio uses"),
    Check("a CPU hog takes nothing else: work per CPU-second stays", "cpu_dram_work_ratio", "between", (0.8, 1.25),
          about="work per CPU-second with the hog / alone", only_if=lambda m, p: _hog_measured(m, p)),
    Check("no working set does measurably more work per CPU-second than the cache-resident end",
          "sweep_best_gain", "<=", "sweep_best_noise",
          about="the sweep's best set's work per CPU-second over the smallest set's, less 1",
          bound_about="the larger spread of those two sets' repeats in this run",
          show=lambda m, p: f"{m['sweep_best_set']}: {m['sweep_best_gain']:+.1%} (repeats spread {m['sweep_best_noise']:.1%})",
          asks="nothing of its speed: held to this run's own repeat-to-repeat spread"),
    Check("no block larger than its file is measured", "blocks_over_file", "==", 0,
          about="measurements whose block size is larger than the file they read",
          bound_about="none: the lab plans no such read (labs/ht/configs.py)",
          asks="nothing of the machine: the lab's plan decides it"),
    Check("no CPI without counters, and none invented",
          lambda m, p: (m["cpi"] is None) == m["hardware_counters"].startswith("not supported"), "==", True,
          about="a CPI exactly where perf counts cycles and instructions; where it cannot, no CPI and perf's reason",
          show=lambda m, p: m["cpi"] if m["cpi"] is not None else m["hardware_counters"],
          asks="nothing: where counters are absent it says so (this project's VM has none)"),
]
