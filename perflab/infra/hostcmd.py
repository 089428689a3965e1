"""One way to run a command on the host: always with a time limit, and a failure that names the
command and the last line it wrote to stderr (a hung `tc`, `losetup` or `umount` would otherwise hold
a run, or its clean-up, for ever).

    hostcmd.run(["tc", "qdisc", "del", "dev", dev, "root"], timeout=10)      # raises HostCommandFailed
    hostcmd.ok(["losetup", "-d", dev], timeout=30)                           # True / False, never raises

Processes a lab keeps running (slowdisk, a tracer) are not commands: see hostobjects.process.
"""
from __future__ import annotations

import subprocess
from typing import Sequence

from perflab.errors import Failed

__all__ = ["HostCommandFailed", "run", "ok"]


class HostCommandFailed(Failed, RuntimeError):
    """A host command exited non-zero, ran past its time, or is not installed."""


def _shown(argv: Sequence[str]) -> str:
    return " ".join(argv)[:200]


def run(cmd: Sequence[str], timeout: float, check: bool = True, input: str | None = None,
        prefix: Sequence[str] = ()) -> subprocess.CompletedProcess:
    """Run `prefix + cmd` (text in and out, both captured). Past `timeout` s it is killed and
    HostCommandFailed raised; so is a non-zero exit when `check`, with its last line of stderr."""
    argv = [*prefix, *cmd]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=input)
    except subprocess.TimeoutExpired:
        raise HostCommandFailed(f"'{_shown(argv)}' still ran after {timeout:g} s and was stopped") from None
    except FileNotFoundError:
        raise HostCommandFailed(f"'{argv[0]}' is not installed on this machine (`make setup` installs what "
                                "the labs need)") from None
    if check and r.returncode != 0:
        last = next((ln for ln in reversed((r.stderr or r.stdout or "").strip().splitlines()) if ln.strip()),
                    "no output")
        raise HostCommandFailed(f"'{_shown(argv)}' failed (exit {r.returncode}): {last.strip()[:300]}")
    return r


def ok(cmd: Sequence[str], timeout: float) -> bool:
    """Did `cmd` exit 0 within `timeout` s? For clean-up paths, which go on with the next object."""
    try:
        return run(cmd, timeout, check=False).returncode == 0
    except HostCommandFailed:
        return False
