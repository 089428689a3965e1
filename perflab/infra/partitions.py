"""Partitions on a block device without a partition table: the kernel's BLKPG ioctl, as util-linux's
addpart and delpart make it (the jbod lab's loop devices; this kernel has no partition-table
parsers). Called directly because Debian 13's util-linux no longer ships addpart and delpart, and
the call is three structs: no library wraps it.

    struct blkpg_partition { long long start, length; int pno; char devname[64], volname[64]; }
    struct blkpg_ioctl_arg { int op; int flags; int datalen; void *data; }
"""
from __future__ import annotations

import ctypes
import fcntl
import os
import struct

BLKPG = 0x1269                 # _IO(0x12, 105), linux/fs.h
ADD, DELETE = 1, 2             # BLKPG_ADD_PARTITION, BLKPG_DEL_PARTITION
_PART = "@qqi64s64s4x"         # blkpg_partition, padded to its C size (152 bytes on 64-bit)


def _blkpg(dev: str, op: int, number: int, start: int = 0, length: int = 0) -> None:
    data = ctypes.create_string_buffer(struct.pack(_PART, start, length, number, b"", b""))
    arg = struct.pack("@iiiP", op, 0, len(data.raw), ctypes.addressof(data))
    fd = os.open(dev, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, BLKPG, arg)
    finally:
        os.close(fd)


def add(dev: str, number: int, start_bytes: int, length_bytes: int) -> None:
    """Partition `number` of `dev` from `start_bytes`, `length_bytes` long (addpart's arguments, in
    bytes); OSError (EBUSY: overlaps one that exists) as the ioctl raises it."""
    _blkpg(dev, ADD, number, start_bytes, length_bytes)


def delete(dev: str, number: int) -> None:
    """Remove partition `number` of `dev` (delpart); OSError (ENXIO: there is none) as raised."""
    _blkpg(dev, DELETE, number)


SECTOR = 512
ALIGN_SECTORS = 2048           # the first partition at 1 MiB, as partitioning tools put it


def numbers(dev: str) -> list[int]:
    """Partition numbers the kernel knows for block device `dev` (/sys/block/<name>/<name>pN)."""
    from pathlib import Path

    name = Path(dev).name
    out = []
    for q in Path("/sys/block", name).glob(f"{name}p*"):
        try:
            out.append(int((q / "partition").read_text()))
        except (OSError, ValueError):
            continue
    return sorted(out)


def add_back_to_back(dev: str, sizes_bytes: list[int], timeout: float = 10.0) -> list[str]:
    """One partition per size on `dev`, back to back from 1 MiB, after deleting any stale ones an
    earlier user of the device left; their device paths, once they exist. A partition the kernel
    refuses raises OSError naming it."""
    import time
    from pathlib import Path

    for n in numbers(dev):
        try:
            delete(dev, n)
        except OSError:
            pass
    start = ALIGN_SECTORS
    out = []
    for i, size in enumerate(sizes_bytes, 1):
        sectors = size // SECTOR
        try:
            add(dev, i, start * SECTOR, sectors * SECTOR)
        except OSError as e:
            raise OSError(e.errno, f"adding partition {i} to {dev} (sectors {start}-{start + sectors - 1}): "
                                   f"{e.strerror}") from None
        start += sectors
        out.append(f"{dev}p{i}")
    t_end = time.monotonic() + timeout
    for path in out:
        while not Path(path).exists():
            if time.monotonic() > t_end:
                raise OSError(f"partition {path} did not appear within {timeout:g} s")
            time.sleep(0.05)
    return out
