"""Processes as the kernel shows them (/proc): which one a PID names (its start time), whether it is
still running, its command line, the run directory its environment names (RUN_DIR_ENV, which every
process perflab starts for a run inherits), and every running process that names a given run.
perflab.infra.ledger proves a recorded process the run's with these; perflab.infra.cleanup finds the
run's processes no ledger recorded.
"""
from __future__ import annotations

import os
from pathlib import Path

from perflab.infra.labels import RUN_DIR_ENV

__all__ = ["proc_start_time", "process_alive", "command_line", "run_marker", "marked_processes"]


def proc_start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22): with the PID it
    names one process for good (a PID alone may be reused by an unrelated process)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat_line = f.read()
    except OSError:
        return None
    fields = stat_line.rsplit(")", 1)[1].split()
    if fields[0] in ("Z", "X"):  # a zombie has finished: only its parent's wait() is missing
        return None
    return int(fields[19])


def process_alive(pid: int, start_time: int | None) -> bool:
    """Is process `pid` running (and, with `start_time`, the one started then)? Not a proof that it
    is perflab's: `prove_process` is."""
    st = proc_start_time(pid)
    return st is not None and (start_time is None or st == start_time)


def _proc_text(pid: int, name: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes()
    except OSError:
        return b""


def command_line(pid: int) -> str:
    """Process `pid`'s command line as the kernel shows it (at most 200 characters)."""
    return _proc_text(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace").strip()[:200]


def run_marker(pid: int) -> str | None:
    """The run directory process `pid` was started for: RUN_DIR_ENV in its environment as the
    kernel keeps it (/proc/PID/environ, set when it was executed), or None."""
    key = f"{RUN_DIR_ENV}=".encode()
    for item in _proc_text(pid, "environ").split(b"\0"):
        if item.startswith(key):
            return item[len(key):].decode(errors="replace")
    return None


def _ancestors(pid: int) -> set[int]:
    """`pid` and the processes it descends from (/proc/PID/stat's parent field)."""
    out = set()
    while pid > 0 and pid not in out:
        out.add(pid)
        stat_line = _proc_text(pid, "stat").decode(errors="replace")
        if ")" not in stat_line:
            break
        pid = int(stat_line.rsplit(")", 1)[1].split()[1])
    return out


def marked_processes(run_dir: Path) -> list[int]:
    """The running processes whose environment names `run_dir` (RUN_DIR_ENV, which every process
    perflab starts for a run inherits), newest first: also those no ledger recorded yet (a notebook
    kernel that had not reached its first cell when its runner was killed). Never this process or
    one it descends from."""
    want, mine, found = os.path.realpath(run_dir), _ancestors(os.getpid()), []
    for d in Path("/proc").glob("[0-9]*"):
        pid = int(d.name)
        marker = None if pid in mine else run_marker(pid)
        st = proc_start_time(pid) if marker else None
        if st is not None and os.path.realpath(marker) == want:
            found.append((st, pid))
    return [pid for _, pid in sorted(found, reverse=True)]
