"""Where a lab's Docker volumes live: Docker's own volume directory (the default), or a directory the
user names (`perflab run --scratch DIR`): a small root disk, a faster or slower disk, or, for the
machine-conditions harness, an emulated 7200 RPM disk (scripts/machine-conditions).

The choice reaches the notebook's kernel in the run's run.json (perflab.config.options.RunOptions)
and infra through the run's context; `check` refuses a directory that cannot serve before anything is
created, and `describe` says in a run's provenance where the volumes were and on what file system.
Each volume is a directory `DIR/perflab-<run id>/<name>`, bound into Docker's local driver; the
topology removes it with the volume, and the run's ledger names it for `perflab clean`.
"""
from __future__ import annotations

import os
from pathlib import Path

from perflab.errors import Refused

PREFIX = "perflab-"


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


def run_dir(root: Path | None, run_id: str) -> Path | None:
    """The run's directory under the scratch directory `root` (None without one)."""
    return root / f"{PREFIX}{run_id}" if root else None


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


def describe(root: Path | None) -> dict | None:
    """For provenance: where the volumes were (None: Docker's own directory)."""
    return None if root is None else {"path": str(root), **mount_of(root)}
