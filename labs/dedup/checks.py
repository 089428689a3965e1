"""The dedup chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's audit table says it too): nothing of its speed. Every
check compares counts of the same run's blocks with each other (the lab's SHA-256 count, zdb -S,
the real DDT, `zpool list`), or with the ratio fio was asked to plant. A busier CPU, a CPU limit or a
slower disk under the pools' files make the run take longer and change no count, so no check says
"not shown here". What they do ask is of the tools:
- fio's dedupe_percentage works as planted_ratio models it (each block after a thread's first
  repeats the one before with that probability), and within PLANTED_BAND of it at the smallest
  preset's block count (the chapter gives the binomial spread);
- zdb -S and zdb -DD print the histogram and `dedup = ` line that analysis.parse_zdb_ddt reads
  (zfs-fuse, pool version 23), and round only as far as the bands allow (three digits, two decimals);
- the control set, written with dedupe_percentage=0, has no two equal 128 KiB blocks.
A different fio or zfs-fuse (the Debian 13 images) that broke one of these would fail a check: the
lab's model of its tools would be wrong, which is not a property of the machine.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

PLANTED_BAND = 0.15     # the SHA-256 estimate within 15% of the planted ratio (binomial spread: see the chapter)
ZDB_BAND = 0.01         # zdb -S within 1% of the lab's count (zdb prints two decimals, block counts to 3 digits)
ACTUAL_BAND = 0.03      # what dedup achieved within 3% of the estimate (zpool list prints two decimals)
HISTOGRAM_BAND = 0.01   # any bucket within 1% of the SHA-256 count's largest bucket
DDT_BAND = 0.01         # DDT entries within 1% of the distinct blocks ...
DDT_SLACK = 2           # ... or within 2 entries, where 1% is less
CONTROL_MAX = 1.01      # the control set's ratio: 1.00 up to zdb's rounding


def _around(metric: str, band: float):
    """A bound `band` either side of a metric (relative), as (low, high)."""
    return lambda m, p: (m[metric] * (1 - band), m[metric] * (1 + band))


def _ddt_bound(m, p) -> tuple[float, float]:
    tol = max(DDT_SLACK, DDT_BAND * m["unique"])
    return m["unique"] - tol, m["unique"] + tol


CHECKS = [
    Check("the signature estimate matches the planted ratio", "sig_ratio", "between",
          _around("planted_ratio", PLANTED_BAND), unit="x",
          about="the SHA-256 estimate, planted {planted_ratio}x:", bound_about=f"the planted ratio +/- {PLANTED_BAND:.0%}",
          asks="nothing of its speed: fio's dedupe_percentage repeating blocks as the planted ratio models it"),
    Check("zdb -S agrees with the lab's SHA-256 count", "zdb_ratio", "between", _around("sig_ratio", ZDB_BAND),
          unit="x", about="zdb -S's ratio", bound_about=f"the SHA-256 estimate +/- {ZDB_BAND:.0%}",
          asks="nothing of its speed: zdb -S walking every block pointer of the pool (exported and imported first)"),
    Check("the estimate predicts what dedup achieves", "actual_ratio", "between", _around("sig_ratio", ACTUAL_BAND),
          unit="x", about="zpool list DEDUP", bound_about=f"the SHA-256 estimate +/- {ACTUAL_BAND:.0%}",
          asks="nothing of its speed: ZFS deduplicating a copy of the same files (dedup=on, the same record size)"),
    Check("the three histograms agree bucket by bucket", "histogram_max_diff", "<=", HISTOGRAM_BAND,
          about="the largest difference of a zdb -S or real DDT bucket from the SHA-256 count's, over its largest bucket",
          bound_about="zdb rounds block counts to 3 digits",
          asks="nothing of its speed: zdb's DDT histograms in the layout the lab parses (zfs-fuse, pool version 23)"),
    Check("one DDT entry per distinct block", "ddt_entries", "between", _ddt_bound,
          about="DDT entries, for {unique} distinct blocks:",
          bound_about=f"+/- {DDT_BAND:.0%}, at least {DDT_SLACK} entries",
          asks="nothing of its speed: zdb -DD's entry counts of the dedup pool's real DDT"),
    Check("the control set estimates no dedup",
          lambda m, p: max(m["control_sig_ratio"], m["control_zdb_ratio"]), "<=", CONTROL_MAX,
          about="the control set's ratios (SHA-256 count / zdb -S), each",
          show=lambda m, p: f"{m['control_sig_ratio']} / {m['control_zdb_ratio']}",
          asks="nothing of its speed: fio's dedupe_percentage=0 writing no two equal blocks"),
]
