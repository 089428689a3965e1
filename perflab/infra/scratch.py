"""Where a lab's Docker volumes live: Docker's own volume directory (the default), or a directory the
user names (`perflab run --scratch DIR`): a small root disk, a faster or slower disk, or, for the
machine-conditions harness, an emulated 7200 RPM disk (scripts/machine-conditions).

The choice reaches the notebook's kernel through the environment (SCRATCH_ENV), like the seccomp
filter and the Debian release; `check` refuses a directory that cannot serve before anything is
created, and `describe` says in a run's provenance where the volumes were and on what file system.
Each volume is a directory `DIR/perflab-<run id>/<name>`, bound into Docker's local driver; the
topology removes it with the volume, and the run's ledger names it for `perflab clean`.
"""
from __future__ import annotations

import os
from pathlib import Path

from perflab.errors import Refused

SCRATCH_ENV = "PERFLAB_SCRATCH"
PREFIX = "perflab-"


def root() -> Path | None:
    """The scratch directory chosen for this run, or None (Docker's own volumes)."""
    v = os.environ.get(SCRATCH_ENV)
    return Path(v) if v else None


def check(path: str | os.PathLike) -> Path:
    """`path` as a scratch directory: absolute, an existing directory, writable; refused otherwise."""
    p = Path(path)
    if not p.is_absolute():
        p = p.resolve()
    if not p.is_dir():
        raise Refused(f"--scratch {path}: no such directory (make it first; the labs put their volumes under it)")
    if not os.access(p, os.W_OK | os.X_OK):
        raise Refused(f"--scratch {path}: not writable by this user")
    return p


def run_dir(run_id: str) -> Path | None:
    """The run's directory under the scratch root (None without one)."""
    r = root()
    return r / f"{PREFIX}{run_id}" if r else None


def mount_of(path: Path) -> dict:
    """The mount that holds `path`: its device, file system type and mount point (/proc/self/mounts)."""
    best = {"device": "?", "fstype": "?", "mountpoint": "/"}
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return best
    path = str(Path(path).resolve())
    for line in lines:
        dev, mnt, fstype = line.split()[:3]
        mnt = mnt.replace("\\040", " ")
        if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best["mountpoint"]):
            best = {"device": dev, "fstype": fstype, "mountpoint": mnt}
    return best


def describe() -> dict | None:
    """For provenance: where the volumes were (None: Docker's own directory)."""
    r = root()
    return None if r is None else {"path": str(r), **mount_of(r)}
