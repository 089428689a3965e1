"""iostat -x (sysstat): the tool a learner has on a real server, run on the host beside a lab.

A lab's own evidence comes from fio's logs and the emulator's; `sampling` records what iostat says
of the same block devices at the same time, so that a chapter can show both and say where the tool
agrees and where it misleads. iostat reads /proc/diskstats: a request's time there starts when the
block layer queues it for the device, so a wait imposed before that (a cgroup's blkio throttle, the
labs' emulated shared links) never appears in its await.

`make setup` installs sysstat; without it `sampling` writes a note instead and the lab goes on.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pandas as pd

from perflab.infra import hostobjects
from perflab.infra.ledger import Ledger

__all__ = ["MISSING", "available", "read", "read_cpu", "sampling"]

#: what the output file holds when the host has no iostat
MISSING = "# iostat: not installed on this machine (Debian: apt-get install sysstat)\n"


def available() -> bool:
    return shutil.which("iostat") is not None


@contextlib.contextmanager
def sampling(ledger: Ledger, devices: list[str], out: Path, interval_s: int = 1) -> Iterator[bool]:
    """`iostat -x -y -t DEVICES interval_s` on the host for the `with` block, its output in `out`
    (ISO time stamps, C locale); yields whether iostat ran. Its process is recorded in the ledger
    and stopped on the way out, also when the block raises."""
    out = Path(out)
    if not available():
        out.write_text(MISSING)
        yield False
        return
    names = [Path(d).name for d in devices]
    env = {**os.environ, "S_TIME_FORMAT": "ISO", "LC_ALL": "C"}
    with out.open("w") as f, hostobjects.process(ledger, ["iostat", "-x", "-y", "-t", *names, str(interval_s)],
                                                 "iostat", stop_timeout=10, stdout=f,
                                                 stderr=subprocess.STDOUT, env=env) as proc:
        try:
            yield True
        finally:
            proc.terminate()


def read(path: Path) -> pd.DataFrame:
    """iostat -x -t output as a frame: one row per device and interval, `t` (epoch s, the end of
    the interval), `device`, then iostat's own columns under its own names (r/s, r_await, aqu-sz,
    %util, ...). Empty when iostat did not run or printed no interval."""
    rows, t, header = [], None, None
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if not parts or line.startswith("#"):
            header = None if not parts else header
            continue
        if len(parts) == 1 and "T" in parts[0] and parts[0][:4].isdigit():
            t = pd.Timestamp(parts[0]).timestamp()
        elif parts[0] == "Device":
            header = parts[1:]
        elif header is not None and t is not None and len(parts) == len(header) + 1:
            rows.append({"t": t, "device": parts[0], **{h: float(v) for h, v in zip(header, parts[1:])}})
    return pd.DataFrame(rows)


def read_cpu(path: Path) -> pd.DataFrame:
    """The avg-cpu blocks of iostat's output (all CPUs together): one row per interval, `t` (epoch s,
    the end of the interval), iostat's columns without their '%' (user, nice, system, iowait, steal,
    idle), and `busy`, 100 - idle. Empty when iostat did not run."""
    rows, t, header = [], None, None
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 1 and "T" in parts[0] and parts[0][:4].isdigit():
            t = pd.Timestamp(parts[0]).timestamp()
        elif parts and parts[0] == "avg-cpu:":
            header = [h.lstrip("%") for h in parts[1:]]
        elif header is not None:
            if t is not None and len(parts) == len(header):
                row = {"t": t, **{h: float(v) for h, v in zip(header, parts)}}
                rows.append({**row, "busy": 100.0 - row.get("idle", 100.0)})
            header = None
    return pd.DataFrame(rows)
