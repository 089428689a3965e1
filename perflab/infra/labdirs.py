"""Where a device lab's run keeps things, made at the start of its run().

Every lab that drives fio against emulated disks writes fio's output under the run's ``fio/`` and
the disks' per-I/O logs under ``device/``; the slowdisk labs without ZFS (disk-model, latency-art)
keep their backing files and mount points on tmpfs (``/dev/shm``), so that the host's own disk adds
no delays the model never made. :func:`perflab.infra.zfs.lab_paths` is the ZFS labs' version.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from perflab.infra.context import LabContext, image_tag
from perflab.infra.hostobjects import scratch_dir

__all__ = ["DeviceLab", "device_lab", "made_dirs", "tmpfs_dir", "tmpfs_scratch"]

#: where a run keeps files that must live in RAM (tmpfs): the host's own disk adds no delays of its own
TMPFS = Path("/dev/shm")


def made_dirs(ctx: LabContext, *names: str) -> list[Path]:
    """The run directory's subdirectories ``names``, made if missing."""
    dirs = [ctx.path(n) for n in names]
    for d in dirs:
        d.mkdir(exist_ok=True)
    return dirs


@dataclass(frozen=True)
class DeviceLab:
    tag: str     # the fio image's tag
    out: Path    # the run's fio/
    dev: Path    # the run's device/
    shm: Path    # /dev/shm/perflab-<run id>/<lab>: backing files and mount points on tmpfs


def device_lab(ctx: LabContext) -> DeviceLab:
    """A slowdisk lab's directories; the tmpfs one is only named here (the lab makes it inside a
    ledger-recorded scratch_dir of its parent, so an interrupted run leaves nothing behind)."""
    out, dev = made_dirs(ctx, "fio", "device")
    return DeviceLab(image_tag(ctx, "fio"), out, dev, tmpfs_dir(ctx) / ctx.lab.name)


def tmpfs_dir(ctx: LabContext) -> Path:
    """The run's directory on tmpfs, /dev/shm/perflab-<run id> (named only: tmpfs_scratch makes it)."""
    return TMPFS / f"perflab-{ctx.run_id}"


@contextlib.contextmanager
def tmpfs_scratch(ctx: LabContext) -> Iterator[Path]:
    """The run's directory on tmpfs, made and recorded in its ledger for the block, removed with all
    in it after (so an interrupted run leaves nothing in RAM: perflab clean removes it after a crash)."""
    with scratch_dir(ctx.ledger, tmpfs_dir(ctx)) as d:
        yield d
