"""Lab `benchmarking` (chapter "Benchmarking without fooling yourself", chapters/benchmarking.md).

Topology: one Docker volume holding two files, and four fio containers run one after another:
  prep     lays out both files and reads them once (they start in the page cache)
  traps    jobs/traps.fio: each trap beside the run done right, against a "disk" limited to
           disk_iops reads/s and disk_mb_s MB/s (docker --device-read-iops/--device-read-bps on the
           device that holds the lab's volumes: Docker's data root's, or the --scratch directory's)
  client   jobs/client.fio: the disk-direct job again, with fio held to client_cpus CPUs (--cpus)
  payload  jobs/payload.fio: 512-byte buffered reads of an evicted file; the container's blkio
           counter (bytes the device read for it) before and after
The sanity rules (perflab.analysis.sanity) read every report; the chapter checks that each fires on its trap
and stays quiet on the run done right. Real: fio, the page cache, the disk, the kernel's limits.
Emulated: the disk's speed (the limits stand in for a slow disk with a known top speed).

    experiment.py   plan(), sanity_context(), job_files(), run(): the job files and the four containers (the tool)
    analysis.py     load(), findings(), summary(): the reports, logs, byte counters and sanity findings read back
    checks.py       CHECKS: the chapter's claims, each declared once

run() produces, under the run directory:
  fio/<name>.fio, .json, .stdout.txt   each container's job file as run, fio's report and output (prep, traps, client, payload)
  fio/<job>_clat_hist.N.log            per-second latency histograms of the timed jobs
  fio/peak_bw.N.log, steady_bw.N.log   per-second throughput of the peak trap and its steady run
  fio/client.cpu.stat                  the client container's cgroup cpu.stat (periods it was throttled)
  fio/blkio.start, .before, .after     the payload container's blkio read counter, around fio's load and its run
"""
from .analysis import BY_DESIGN, EXPLAINED, RIGHT_RUNS, findings, key, load, summary
from .checks import CHECKS
from .experiment import CACHED_SHARE, job_files, peak_file_size, plan, run, sanity_context

__all__ = ["BY_DESIGN", "CACHED_SHARE", "CHECKS", "EXPLAINED", "RIGHT_RUNS", "findings", "job_files", "key", "load",
           "peak_file_size", "plan", "run", "sanity_context", "summary"]
