"""Lab `ht` (chapter "HT1 vs HT3: busy is not the same as working", chapters/ht.md).

The lesson of the 2009 post: a CPU can be ~100% busy and still be limited by memory, not by itself.
Here: fio reads a file that is already in the page cache (`invalidate=0`), over and over, pinned to
one CPU. Every read is a system call plus a copy from the page cache into fio's buffer, so the work
is done by the CPU and the memory system and nothing else. The file's size (the working set) decides
where the copy's source lives: in the CPU's own caches (a 128 KiB file) or in DRAM (a file many
times the last-level cache). The CPU is equally busy in both cases; the work it gets done per
CPU-second is not.

Topology: one labelled Docker volume holding one file per working set, and two idle containers of
the `ht` image (fio, stress-ng) that fio runs in with `docker exec`: `fio-1cpu` (cpuset: the fio
CPU) and `fio-2cpu` (cpuset: both CPUs, one fio job pinned to each with cpus_allowed_policy=split).
Neighbours are short-lived containers of the same image: `stress-ng --stream 1` (memory bandwidth)
on the other CPU, or `stress-ng --cpu 1` (pure computation) on fio's CPU. Nothing runs privileged;
no host object besides `perf stat` processes (recorded in the run's ledger) where hardware counters
work.

Measurements, one per configuration and repeat (phases: working sets, block sizes, neighbours, two
CPUs; repeats interleaved):
  fio/<name>.fio, .json, .stdout.txt   the job as run, fio's report (io_bytes, iops, usr/sys CPU)
  fio/<name>.io                        /proc/<shell>/io of the shell that ran (and reaped) fio:
                                       the kernel's own count of bytes read (rchar) and read calls
  fio/<name>.perf.csv                  `perf stat -x,` on fio's CPUs (only if counters work)
  neighbours/<name>.txt                the neighbour's own report (stress-ng --metrics-brief)
  measurements.jsonl                   per measurement: configuration, wall window, the fio
                                       container's CPU time from its cgroup (cpuacct, per CPU), the
                                       time its CPU limit held it back, and how busy fio's CPUs were
                                       in all (/proc/stat): the rest is other work's
  hardware.json                        CPUs, cache sizes, and whether `perf stat -e
                                       cycles,instructions` works (and perf's message when not)
  cache.json                           fincore of every file after preparing and at the end

Modules: configs (the configurations, files and plan), experiment (run: the tool), analysis (load,
summary), figures, checks (CHECKS: the chapter's claims, each declared once). Logic without Docker
is tested in tests/test_ht.py, the checks in tests/test_ht_checks.py.
"""
from .analysis import (fio_numbers, hidden_set_metrics, load, parse_fincore, parse_memrate, parse_proc_io,
                       parse_stress_ng, pick, summary)
from .checks import CHECKS
from .configs import (HIDDEN_FILE, INTENT, JOB, PHASES, config_name, configurations, cpu_roles, file_of, job_for,
                      plan, probe_set, public, set_file, set_files, sweep_sets)
from .experiment import calibrate, measure, run
from .figures import fig_block_sizes, fig_neighbours, fig_sweep, fig_two_cpus

__all__ = ["CHECKS", "HIDDEN_FILE", "INTENT", "JOB", "PHASES", "calibrate", "config_name", "configurations",
           "cpu_roles", "fig_block_sizes", "fig_neighbours", "fig_sweep", "fig_two_cpus", "file_of", "fio_numbers",
           "hidden_set_metrics", "job_for", "load", "measure", "parse_fincore", "parse_memrate", "parse_proc_io",
           "parse_stress_ng", "pick", "plan", "probe_set", "public", "run", "set_file", "set_files", "summary",
           "sweep_sets"]
