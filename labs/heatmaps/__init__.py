"""Lab `heatmaps` (chapter "Reading latency heat maps", chapters/heatmaps.md).

Topology: one Docker volume (Docker's own directory on the host's disk, or `perflab run --scratch
DIR`) holding one file, and one fio container reading it with two concurrent jobs: `cached`
(buffered, after pre-reading the file) and `direct` (O_DIRECT). What is real: fio, the container,
the page cache, the disk. Nothing is emulated.

    spec.py         the names both sides share (the job file's, its jobs')
    experiment.py   plan(), run(ctx): the job file and the fio run (the tool)
    analysis.py     load(), summary(): heat maps and fio's summary read back from a run directory
    checks.py       CHECKS: the chapter's claims, each declared once

run() produces, under the run directory:
  fio/two-bands.fio         the job file as run (parameters applied)
  fio/two-bands.json        fio's JSON output
  fio/<job>_clat.N.log      per-I/O completion latencies   (capture=perio)
  fio/<job>_clat_hist.N.log histogram logs, 1 s intervals  (capture=hist)
"""
from .analysis import (CACHED_FAST_NS, CACHED_MID_NS, CACHED_SLOW_NS, EARLY_S, FIGURES_2009, band_ratio_2009,
                       count_between, fast_ns, ios_between, load, mixed_percentile, summary)
from .checks import CHECKS
from .experiment import job_file, plan, rates_iops, run
from .spec import JOB, JOBS

__all__ = ["CHECKS", "JOB", "JOBS", "CACHED_FAST_NS", "CACHED_MID_NS", "CACHED_SLOW_NS", "EARLY_S", "FIGURES_2009",
           "band_ratio_2009", "count_between", "fast_ns", "ios_between", "job_file", "load", "mixed_percentile", "plan",
           "rates_iops", "run", "summary"]
