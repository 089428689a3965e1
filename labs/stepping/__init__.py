"""Lab `stepping` (chapter "Load generation and stepping", chapters/stepping.md).

Topology: one Docker volume holding one file; a fio container lays it out, then a second fio
container runs jobs/stepped.fio: `threads` readers, reader k starting (k-1) x `step` seconds after
the first (fio's startdelay), each an O_DIRECT 4 KiB random reader that thinks `think` between
reads. The container's reads are limited to `limit_iops` per second (docker --device-read-iops on
the device that holds Docker's volumes): a resource with a known limit. What is real: fio, the
containers, the disk. What is emulated: the limit (the kernel's blkio throttle on a real disk).

    spec.py         the names both sides share
    experiment.py   plan(), sanity_context(), run(ctx): the job files, the layout and the stepped run (the tool)
    analysis.py     load(), summary(): per-second and per-step numbers from fio's logs, the saturation
                    detector and its prediction (limit / one reader's rate)
    checks.py       CHECKS: the chapter's claims, each declared once

run() produces, under the run directory:
  fio/layout.fio, layout.json  the job that laid the file out, and its result
  fio/stepped.fio           the job file as run (one [tN] section per reader)
  fio/stepped.json          fio's JSON output
  fio/stepped.stdout.txt    fio's own output
  fio/step_iops.N.log       reader N's reads per second    (log_avg_msec=1000, log_unix_epoch=1)
  fio/step_clat.N.log       reader N's mean completion latency per second
  iostat.txt                `iostat -x` of the disk under the readers, on the host, once a second

detect_saturation() finds the first step whose added reader no longer adds throughput; the chapter
checks it against the step predicted by limit / per-reader demand.
"""
from .analysis import (GAIN_FRACTION, demand_iops, detect_saturation, iostat_view, iostat_window, load, per_second,
                       predicted_step, reader_demand, steps, summary)
from .checks import CHECKS
from .experiment import job_file, plan, run, sanity_context
from .spec import JOB

__all__ = ["CHECKS", "GAIN_FRACTION", "JOB", "demand_iops", "detect_saturation", "iostat_view", "iostat_window",
           "job_file", "load", "per_second",
           "plan", "predicted_step", "reader_demand", "run", "sanity_context", "steps", "summary"]
