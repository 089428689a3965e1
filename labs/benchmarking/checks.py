"""The benchmarking chapter's claims, each declared once (perflab.analysis.checks).

Most of them read the run's own sanity findings (the `findings` metric, "rule:job") or compare a trap
with the run done right beside it, so they ask nothing of the machine's speed. What the others ask (the
chapter's "What each check asks of the machine" table says it too):
- the throttle's limit must be the disk's pace: a disk that serves disk_iops 4 KiB O_DIRECT reads a second
  one at a time, and reads the peak file at disk_mb_s. The run measures the disk's own time per read (the
  right run's median: the throttle lets most reads through at the device's speed) and its sequential rate
  (steady). A slower disk (a 7200 RPM disk under the Docker volume) cannot reach the limit: "the right run
  reaches the disk's limit", "the disk fetched pages at its limit" and "after the cached quarter it reads at
  the disk's rate" say "not shown here", with the measured time or rate, and only when the job kept the
  disk as busy as that pace allows;
- the client trap needs a CPU share too small for the disk's pace: client_cpus over fio's CPU time per
  O_DIRECT read (measured in the right run, whose CPU is not limited). Where that share lets fio keep up
  with the disk (a slow disk, or a CPU that issues a read in a few microseconds), the three client checks
  say "not shown here", with that cost, and only when the kernel counted the client's CPU limit and the
  client read as fast as that share or the disk allows (KEPT_BUSY);
- 1 byte against 8 KiB: both jobs read from memory and are bound by fio's CPU, so other work that takes
  fio's CPU in one of them moves the ratio. fio's CPU share in each is measured; where the 1-byte job had
  10 points less of a CPU (CPU_TAKEN) and still did more reads per CPU-second, it says "not shown here";
- the page cache against the disk: a disk whose O_DIRECT reads come within 10x of a page-cache read, and one
  faster than the disk-read-from-cache rule's floor (perflab.analysis.sanity.DISK_FLOOR_NS), which the rule
  then takes for memory on the O_DIRECT jobs. Both say "not shown here" with the disk's median, and only
  when the cached job ran far above the limit (memory served it) and the throttle held the O_DIRECT jobs
  (their reads reached the device).
No check excuses a throttle that did not hold (a rate above the limit) or a cache that did not serve.
"""
from __future__ import annotations

from perflab.analysis import sanity
from perflab.analysis.checks import Check

from .analysis import BY_DESIGN, EXPLAINED, RIGHT_RUNS, key

CACHED_OVER = 10               # the cached "disk" test, this many times the disk's limit
RIGHT_RANGE = (0.85, 1.1)      # the right run / the disk's limit
CLIENT_SHARE = 0.8             # the client-bound run, under this share of the right run's reads
DEVICE_PER_PAYLOAD = 4         # device bytes per payload byte, at least
MODEL_RANGE = (0.9, 1.1)       # device bytes per payload byte / the page-cache model's
PAYLOAD_RANGE = (0.9, 1.1)     # pages the disk fetched per second / the disk's limit
LATENCY_GAP = 10               # disk-direct's median / disk-cached's, at least
MBS_GAP = 100                  # 8 KiB MB/s / 1-byte MB/s, at least
BUSIEST_S = 1                  # the peak job's busiest second, at most this long after its first
PEAK_REST_RANGE = (0.85, 1.15)  # the peak job's median MB/s after its cached quarter / disk_mb_s
KEPT_BUSY = 0.8                # a job kept the disk busy: its rate reached this share of the disk's pace
CPU_TAKEN = 10                 # points of a CPU other work took from fio in one memory job, not the other
FLOOR_US = sanity.DISK_FLOOR_NS / 1000
#: the O_DIRECT jobs the throttle holds, and the metric of each one's reads/s
DIRECT_RATES = {"disk-direct": "direct_iops", "short": "short_iops", "client-bound": "client_iops"}


def _fired(m, rule: str, job: str) -> bool:
    return key(rule, job) in m["findings"]


def _split(k: str) -> tuple[str, str]:
    rule, job = k.split(":", 1)
    return rule, job


def _unexplained(m) -> list[str]:
    """The findings beyond the traps' that have no reason in EXPLAINED."""
    return [k for k in m["findings"] if _split(k) not in BY_DESIGN and _split(k) not in EXPLAINED]


def _on_right_runs(m) -> list[str]:
    return [k for k in m["findings"] if _split(k)[1] in RIGHT_RUNS]


def _num(x) -> bool:
    return isinstance(x, (int, float)) and x == x


def _disk_pace(m) -> float | None:
    """Reads a second the disk serves one at a time: one over the right run's median time per read
    (the throttle lets most reads through at the device's own speed)."""
    t = m.get("direct_p50_us")
    return 1e6 / t if _num(t) and t > 0 else None


def _cache_and_throttle_worked(m, p) -> bool:
    """The page cache served the cached job (far above the limit), and the throttle held the right run
    (not above it), so its reads reached the device."""
    return m["cached_vs_limit"] >= CACHED_OVER and m["direct_vs_limit"] <= sanity.OVER_LIMIT


def _disk_slower_than_the_limit(m, p) -> str | None:
    """The disk, one 4 KiB O_DIRECT read at a time, serves fewer reads a second than disk_iops (its median
    time per read in the right run), and the right run kept it busy (at least {KEPT_BUSY}x that pace, and
    no more than the throttle allows)."""
    pace, limit = _disk_pace(m), p["disk_iops"]
    if pace is None or pace >= limit or not KEPT_BUSY * pace <= m["direct_iops"] <= RIGHT_RANGE[1] * limit:
        return None
    return (f"this machine's disk took a median {m['direct_p50_us']:,.0f} us per O_DIRECT read, so one read at a "
            f"time it serves at most {pace:,.0f} reads/s, under the {limit:,} the throttle allows (the right run "
            f"read {m['direct_iops']:,} a second)")


def _payload_disk_too_slow(m, p) -> str | None:
    """The disk serves fewer 4 KiB reads a second than disk_iops one at a time (the right run's median time
    per read), and the payload job kept it busy (it fetched pages at {KEPT_BUSY}x that pace or more, and
    no faster than the throttle allows)."""
    pace, limit = _disk_pace(m), p["disk_iops"]
    fetched = m["payload_device_vs_limit"] * limit
    if pace is None or pace >= limit or not KEPT_BUSY * pace <= fetched <= PAYLOAD_RANGE[1] * limit:
        return None
    return (f"this machine's disk took a median {m['direct_p50_us']:,.0f} us per 4 KiB read (the right run), so "
            f"it fetches at most {pace:,.0f} pages a second one at a time, under the {limit:,} the throttle "
            f"allows (the payload job's reads made it fetch {fetched:,.0f} a second)")


def _client_keeps_up(m, p) -> str | None:
    """fio's CPU time per O_DIRECT read, measured in the right run, lets client_cpus CPUs issue at least
    {CLIENT_SHARE}x the reads the disk served the right run, so the disk sets the client's pace (and the lab
    did its part: the kernel counted the client's CPU limit, and the client read at {KEPT_BUSY}x what that
    limit or the disk allows, or more)."""
    cost, disk = m.get("direct_cpu_us"), m["direct_iops"]
    if not _num(m["client_throttled"]) or not _num(cost) or cost <= 0:
        return None
    allowed = p["client_cpus"] * 1e6 / cost
    if allowed < CLIENT_SHARE * disk or m["client_iops"] < KEPT_BUSY * min(allowed, disk):
        return None
    return (f"fio spent {cost:,.1f} us of CPU per O_DIRECT read here (in disk-direct), so {p['client_cpus']:g} "
            f"CPUs let it issue about {allowed:,.0f} reads/s, at least {CLIENT_SHARE:.0%} of the {disk:,} the "
            f"disk served the right run: the disk set the client's pace ({m['client_iops']:,} reads/s)")


def _cpu_taken_from_1byte(m, p) -> str | None:
    """Other work took fio's CPU during the 1-byte reads: fio had at least {CPU_TAKEN} points less of a
    CPU than during the 8 KiB reads, and per CPU-second of its own the 1-byte job still did more reads."""
    c1, c8 = m.get("cpu_pct_1byte"), m.get("cpu_pct_8k")
    if not _num(c1) or not _num(c8) or c1 <= 0 or c8 - c1 < CPU_TAKEN:
        return None
    per_cpu = m["iops_1byte_vs_8k"] * c8 / c1
    if per_cpu <= 1:
        return None
    return (f"fio had {c1:.0f}% of a CPU for the 1-byte reads and {c8:.0f}% for the 8 KiB ones, so other work took "
            f"the difference; per CPU-second of its own the 1-byte job did {per_cpu:.2f}x the 8 KiB job's reads")


def _disk_too_fast(m, p) -> str | None:
    """The disk answers O_DIRECT reads within {LATENCY_GAP}x of a page-cache read (and the lab did its
    part: the cached job ran at {CACHED_OVER}x the limit or more, and the throttle held the right run)."""
    gap = m["direct_p50_us"] / m["cached_p50_us"] if m["cached_p50_us"] else None
    if gap is None or gap >= LATENCY_GAP or not _cache_and_throttle_worked(m, p):
        return None
    return (f"this machine's disk answered O_DIRECT reads in a median {m['direct_p50_us']:,.1f} us, {gap:.1f}x "
            f"the page cache's {m['cached_p50_us']:.2f} us: a disk this fast leaves no order of magnitude "
            f"between them")


def _under_the_floor(m, p, found: list[str]) -> str | None:
    """Why `found` fired, if only because the disk is faster than the rule's floor: each is
    disk-read-from-cache on an O_DIRECT job the throttle held, and the right run's median is under the floor."""
    if not found or not _num(m.get("direct_p50_us")) or m["direct_p50_us"] >= FLOOR_US:
        return None
    if not _cache_and_throttle_worked(m, p):
        return None
    for rule, job in map(_split, found):
        if rule != "disk-read-from-cache" or job not in DIRECT_RATES:
            return None
        if m[DIRECT_RATES[job]] > sanity.OVER_LIMIT * p["disk_iops"]:
            return None
    return (f"this machine's disk answered O_DIRECT reads in a median {m['direct_p50_us']:,.1f} us, under the "
            f"{FLOOR_US:g} us below which disk-read-from-cache takes a read for memory, though the throttle held "
            f"them (they reached the device): {', '.join(found)}")


def _fast_disk_extra(m, p) -> str | None:
    """The disk answers O_DIRECT reads faster than the disk-read-from-cache rule's {FLOOR_US:g} us floor, and
    that rule, on O_DIRECT jobs the throttle held, is all that fired without a reason in the chapter."""
    return _under_the_floor(m, p, _unexplained(m))


def _fast_disk_right(m, p) -> str | None:
    """The disk answers O_DIRECT reads faster than the disk-read-from-cache rule's {FLOOR_US:g} us floor, and
    that rule, on the right run the throttle held, is all that fired on the runs done right."""
    return _under_the_floor(m, p, _on_right_runs(m))


def _disk_slower_than_its_rate(m, p) -> str | None:
    """The disk reads the peak file more slowly than disk_mb_s: steady, the same file read with O_DIRECT,
    measured it under {PEAK_REST_RANGE[0]}x the limit (and the lab did its part: after its cached quarter
    the peak job read at steady's rate, within {PEAK_REST_RANGE[0]}x to {PEAK_REST_RANGE[1]}x of it)."""
    steady, limit, rest = m["steady_mbs"], p["disk_mb_s"], m.get("peak_rest_vs_disk")
    if not _num(steady) or steady <= 0 or steady >= PEAK_REST_RANGE[0] * limit or not _num(rest):
        return None
    rest_mbs = rest * limit
    if not PEAK_REST_RANGE[0] <= rest_mbs / steady <= PEAK_REST_RANGE[1]:
        return None
    return (f"steady, the same file read with O_DIRECT, measured this machine's disk at {steady:,.1f} MB/s, under "
            f"the {limit:g} MB/s limit; after its cached quarter the peak job read at {rest_mbs:,.1f} MB/s, as "
            f"fast as the disk went")


DISK_PACE = ("a disk that serves disk_iops 4 KiB O_DIRECT reads a second one at a time (2,000 at the default: "
             "a median read under 500 us; not a 7200 RPM disk)")
CLIENT = ("a client_cpus share too small for fio to keep up with the disk (fio's measured CPU time per "
          "O_DIRECT read sets how many it can issue)")
FLOOR = f"a disk whose O_DIRECT reads take {FLOOR_US:g} us or more (the disk-read-from-cache rule's floor)"

CHECKS = [
    Check("cache trap: disk-read-from-cache fires on disk-cached",
          lambda m, p: _fired(m, "disk-read-from-cache", "disk-cached"), "==", True,
          about="the finding disk-read-from-cache on disk-cached",
          asks="nothing of its speed: the rule fires on the page cache's latency or rate, and on any buffered "
               "working set that fits in the machine's memory"),
    Check("cache trap: the rate is impossible for the disk", "cached_vs_limit", ">=", CACHED_OVER, unit="x",
          about="disk-cached's reads/s / disk_iops",
          asks="CPU for page-cache reads at 10x disk_iops (20,000 a second at the default: a few percent of a CPU)"),
    Check("right run reaches the disk's limit", "direct_vs_limit", "between", RIGHT_RANGE, unit="x",
          about="disk-direct's reads/s / disk_iops", unless=_disk_slower_than_the_limit, asks=DISK_PACE),
    Check("client trap: client-bound fires", lambda m, p: _fired(m, "client-bound", "client-bound"), "==", True,
          about="the finding client-bound on client-bound", unless=_client_keeps_up, asks=CLIENT),
    Check("client trap: the kernel held the client at its CPU limit", "client_throttled", ">=", sanity.THROTTLED,
          about="share of the client container's scheduler periods throttled", unless=_client_keeps_up,
          asks=CLIENT),
    Check("client trap: fewer reads than the right run", "client_vs_direct", "<", CLIENT_SHARE, unit="x",
          about="client-bound's reads/s / disk-direct's", unless=_client_keeps_up, asks=CLIENT),
    Check("1-byte trap: tiny-io and no-latency fire",
          lambda m, p: _fired(m, "tiny-io", "iops-1byte") and _fired(m, "no-latency", "iops-1byte"), "==", True,
          about="both findings on iops-1byte"),
    Check("1 byte gives more IOPS than 8 KiB", "iops_1byte_vs_8k", ">", 1, unit="x",
          about="iops-1byte's reads/s / iops-8k's", unless=_cpu_taken_from_1byte,
          asks="fio's CPU to itself in both jobs, which read from memory and are bound by it (the run measures "
               "fio's share in each)"),
    Check("8 KiB run: neither tiny-io nor no-latency",
          lambda m, p: not _fired(m, "tiny-io", "iops-8k") and not _fired(m, "no-latency", "iops-8k"), "==", True,
          about="neither finding on iops-8k"),
    Check("short trap: too-short fires", lambda m, p: _fired(m, "too-short", "short"), "==", True,
          about="the finding too-short on short"),
    Check("peak trap: peak-vs-average fires", lambda m, p: _fired(m, "peak-vs-average", "peak"), "==", True,
          about=f"the finding peak-vs-average on peak (busiest second / average {{peak_ratio}}; "
                f"it fires at {sanity.PEAK_RATIO:g})",
          show=lambda m, p: m["peak_ratio"]),
    Check("payload trap: the disk moved several bytes per byte read", "device_per_payload", ">=",
          DEVICE_PER_PAYLOAD, about="device bytes / payload bytes (4 KiB pages for 512 B reads)"),
    Check("payload: bytes per byte are what the page-cache model predicts", "device_per_payload_vs_model",
          "between", MODEL_RANGE, unit="x", about="device bytes per payload byte / 8 P (1 - exp(-k/P)) / k"),
    Check("payload: the disk fetched pages at its limit", "payload_device_vs_limit", "between", PAYLOAD_RANGE,
          unit="x", about="pages the disk fetched a second / disk_iops", unless=_payload_disk_too_slow,
          asks=DISK_PACE),
    Check("cache trap: latency no disk has", "cached_vs_direct_p50", "<=", 1 / LATENCY_GAP, unit="x",
          about="disk-cached's median latency / disk-direct's", unless=_disk_too_fast,
          asks="a disk clearly slower than memory: its O_DIRECT reads 10x a page-cache read or more"),
    Check("8 KiB moves far more data than 1 byte", "mbs_8k_vs_1byte", ">=", MBS_GAP, unit="x",
          about="iops-8k's MB/s / iops-1byte's"),
    Check("peak: the busiest second is the first", "peak_busiest_s", "<=", BUSIEST_S, unit="s",
          about="from the peak job's first logged second to its busiest"),
    Check("peak: after the cached quarter it reads at the disk's rate", "peak_rest_vs_disk", "between",
          PEAK_REST_RANGE, unit="x", about="the peak job's median MB/s from second 2 / disk_mb_s",
          unless=_disk_slower_than_its_rate,
          asks="a disk that reads the peak file at disk_mb_s or faster (16 MB/s at the default)"),
    Check("every extra finding is explained", lambda m, p: not _unexplained(m), "==", True,
          about="no finding beyond the traps' without its reason in the chapter (EXPLAINED, analysis.py)",
          show=lambda m, p: _unexplained(m) or "all", unless=_fast_disk_extra, asks=FLOOR),
    Check("the runs done right raise no finding", lambda m, p: not _on_right_runs(m), "==", True,
          about="no finding on disk-direct or steady",
          show=lambda m, p: [_split(k)[0] for k in _on_right_runs(m)] or "none", unless=_fast_disk_right, asks=FLOOR),
]

