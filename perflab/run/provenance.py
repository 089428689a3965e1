"""Where a result came from: the code (git SHA, dirty flag), the machine (kernel, CPU, memory),
the tools (fio inside the image, image ids, Python packages) and the time.

Every run.json carries this; the book's "About this build" section prints it for the reference runs.
"""
from __future__ import annotations

import os
import platform
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path


def now_iso(t: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if t is None else t, timezone.utc).isoformat(timespec="seconds")


def _run(cmd: list[str], cwd: Path | None = None, timeout: float = 20) -> str | None:
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


#: What a run's own outputs change: recording one reference after another must not make the tree
#: count as dirty for the next (perflab.run.reference re-records them all from one commit).
OUTPUTS = ("data/reference", "data/conditions")   # references, the machine-conditions matrix


def git_state(root: Path) -> dict:
    """The commit and whether the tracked files differ from it (outside the runs' own outputs)."""
    sha = _run(["git", "rev-parse", "HEAD"], root)
    status = _run(["git", "status", "--porcelain", "--untracked-files=no", "--", "."]
                  + [f":(exclude){o}" for o in OUTPUTS], root)
    return {"git_sha": sha, "git_dirty": None if status is None else bool(status)}


def cpu_model() -> str | None:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def mem_total_bytes() -> int | None:
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def host() -> dict:
    from perflab import __version__

    u = os.uname()
    return {
        "kernel": f"{u.sysname} {u.release}",
        "kernel_version": u.version,
        "machine": u.machine,
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "memory_bytes": mem_total_bytes(),
        "python": platform.python_version(),
        "perflab": __version__,
        "hostname": u.nodename,
    }


def package_versions(names=("numpy", "pandas", "pyarrow", "plotly", "papermill", "docker")) -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for n in names:
        try:
            out[n] = version(n)
        except PackageNotFoundError:
            out[n] = None
    return out


def collect(root: Path) -> dict:
    """What is known before the lab starts; the lab adds the image's fio version and image ids."""
    return {**git_state(root), **host(), "packages": package_versions()}
