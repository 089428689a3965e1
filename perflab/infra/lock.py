"""One lab at a time per machine: the machine-wide lab lock (/run/perflab/labs.lock)."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

#: One lab at a time per machine: labs emulate time (disks, links), and two at once on a small machine
#: distort each other's results. Shared by every clone of the project on the machine.
MACHINE_LOCK = Path("/run/perflab/labs.lock")


@contextlib.contextmanager
def machine_lock(what: str, wait_note=None, path: Path = MACHINE_LOCK):
    """Hold the machine's lab lock for the block; while another run holds it, wait (in the kernel's
    queue, with anyone else waiting), after calling wait_note(holder) once (holder: what that run
    wrote, e.g. "heatmaps smoke pid 123")."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if wait_note:
                wait_note(os.pread(fd, 200, 0).decode(errors="replace").strip()
                          or f"a process holding {path}, e.g. `flock {path} CMD`")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{what} pid {os.getpid()}\n".encode(), 0)
        yield
        os.ftruncate(fd, 0)  # the next holder may be a plain `flock`, which writes nothing
    finally:
        os.close(fd)   # closing releases the lock
