"""The run's ledger of host objects Docker does not manage (loop and zram devices, mounts, tc
qdiscs, cgroups, processes, scratch paths): each is written to the run directory's
`resources.jsonl` *before* it is created and marked released after it is removed, and each kind
has a remover that acts only on the recorded identifier. perflab.infra.cleanup gives back what a
run left; `Ledger.holding` does both for an object made inside a `with` block.

Front page, "Nothing left behind".
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

from perflab.infra import hostcmd, partitions

LEDGER = "resources.jsonl"


def proc_start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot: with the PID it names one process for
    good (a PID alone may be reused by an unrelated process)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] in ("Z", "X"):  # a zombie has finished: only its parent's wait() is missing
        return None
    return int(fields[19])


def process_alive(pid: int, start_time: int | None) -> bool:
    st = proc_start_time(pid)
    return st is not None and (start_time is None or st == start_time)


class Ledger:
    """Append-only record of host objects, one JSON line per event, fsynced."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LEDGER

    def _append(self, entry: dict) -> None:
        entry = {"t": time.time(), **entry}
        with open(self.path, "a") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def record(self, kind: str, ident: str, **info) -> None:
        if kind not in REMOVERS:
            raise ValueError(f"unknown resource kind {kind!r} (known: {', '.join(REMOVERS)})")
        self._append({"op": "create", "kind": kind, "id": str(ident), **info})

    def release(self, kind: str, ident: str) -> None:
        self._append({"op": "release", "kind": kind, "id": str(ident)})

    def record_process(self, pid: int, what: str) -> None:
        self.record("process", str(pid), start_time=proc_start_time(pid), what=what)

    def open_entries(self) -> list[dict]:
        """Entries created and not released, newest first (the order to remove them in)."""
        if not self.path.exists():
            return []
        live: dict[tuple, dict] = {}
        for line in self.path.read_text().splitlines():
            try:
                e = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a crash: the entry before it was complete
            key = (e.get("kind"), e.get("id"))
            if e.get("op") == "create":
                live[key] = e
            elif e.get("op") == "release":
                live.pop(key, None)
        return list(reversed(live.values()))


def _sh(cmd: list[str]) -> bool:
    return hostcmd.ok(cmd, timeout=60)


def _out(cmd: list[str]) -> str:
    """A query's output, or "" when it fails or hangs (clean-up goes on with the next object)."""
    try:
        return hostcmd.run(cmd, timeout=30, check=False).stdout
    except hostcmd.HostCommandFailed:
        return ""


# Each remover returns True when the object is gone (or was never created), and `exists` tells
# whether it is still there (for --check). They act only on the recorded identifier.
def _rm_process(e):
    pid, st = int(e["id"]), e.get("start_time")
    if not process_alive(pid, st):
        return True
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        t_end = time.time() + wait
        while time.time() < t_end:
            if not process_alive(pid, st):
                return True
            time.sleep(0.1)
    return not process_alive(pid, st)


def _unescape_mount_path(s: str) -> str:
    """A path as /proc's mount tables write it (space, tab, newline and backslash as octal escapes)."""
    return (s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n")
            .replace("\\134", "\\"))


def is_mounted(path: str) -> bool:
    """Is `path` a mount point in this process's mount namespace (/proc/self/mountinfo)? The one
    mount check of the package (the ledger's remover and slowdisk's mount both ask it)."""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                parts = line.split()
                if len(parts) > 4 and _unescape_mount_path(parts[4]) == path:
                    return True
    except OSError:
        pass
    return False


def _rm_mount(e):
    p = e["id"]
    if not is_mounted(p):
        return True
    if e.get("fuse"):
        _sh(["fusermount3", "-u", p]) or _sh(["fusermount", "-u", p])
    # -R: mounts that propagated below it (a ZFS pool shared through an rshared bind) go too.
    is_mounted(p) and _sh(["umount", "-R", p])
    is_mounted(p) and _sh(["umount", "-R", "-l", p])
    return not is_mounted(p)


def _rm_loop(e):
    dev = e["id"]
    back = e.get("backing")
    out = hostcmd.run(["losetup", "-n", "-O", "BACK-FILE", dev], timeout=30, check=False)
    if out.returncode != 0 or (back and back not in out.stdout):
        return True  # gone, or now someone else's
    # Partitions added with BLKPG (the jbod lab) outlive the binding unless deleted first.
    name = Path(dev).name
    for part in Path("/sys/block", name).glob(f"{name}p*"):
        with contextlib.suppress(OSError, ValueError):
            partitions.delete(dev, int((part / "partition").read_text()))
    return _sh(["losetup", "-d", dev])


def _zram_there(dev: str) -> bool:
    """The device is there, sized or not: a device hot-added and never given a size (a write to its
    disksize refused, as under a read-only /sys) is left behind all the same."""
    return Path(f"/sys/block/{Path(dev).name}").exists()


def _rm_zram(e):
    name = Path(e["id"]).name
    if not _zram_there(name):
        return True
    with contextlib.suppress(OSError):
        Path(f"/sys/block/{name}/reset").write_text("1")
    with contextlib.suppress(OSError):
        Path("/sys/class/zram-control/hot_remove").write_text(name.removeprefix("zram"))
    return not _zram_there(name)


def _rm_tc(e):
    dev = e["id"]
    if not Path(f"/sys/class/net/{dev}").exists():
        return True
    _sh(["tc", "qdisc", "del", "dev", dev, e.get("parent", "root")])
    out = _out(["tc", "qdisc", "show", "dev", dev])
    return e.get("qdisc", "tbf") not in out


def _rm_cgroup(e):
    p = Path(e["id"])
    with contextlib.suppress(OSError):
        p.rmdir()
    return not p.exists()


def _rm_path(e):
    import shutil

    p = Path(e["id"])
    if p.is_dir():
        shutil.rmtree(p, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    return not p.exists()


REMOVERS = {
    "process": _rm_process, "mount": _rm_mount, "loop": _rm_loop, "zram": _rm_zram,
    "tc": _rm_tc, "cgroup": _rm_cgroup, "path": _rm_path,
}
#: Whether a recorded object is still there (for `perflab clean --check`), by kind.
EXISTS = {
    "process": lambda e: process_alive(int(e["id"]), e.get("start_time")),
    "mount": lambda e: is_mounted(e["id"]),
    "loop": lambda e: _sh(["losetup", e["id"]])
    and bool(e.get("backing") is None or e["backing"] in _out(["losetup", "-n", "-O", "BACK-FILE", e["id"]])),
    "zram": lambda e: _zram_there(e["id"]),
    "tc": lambda e: Path(f"/sys/class/net/{e['id']}").exists() and e.get("qdisc", "tbf") in _out(
        ["tc", "qdisc", "show", "dev", e["id"]]),
    "cgroup": lambda e: Path(e["id"]).exists(),
    "path": lambda e: Path(e["id"]).exists(),
}


#: kinds whose id is a path on the host: `perflab clean` removes them only where perflab makes them
PATH_KINDS = ("path", "mount")


def ours(path: str, run_dir: Path) -> bool:
    """Is `path` in a place perflab makes for the run in `run_dir`: inside the run directory, under
    /run/perflab/<run id>, or under a directory named perflab-<run id> (tmpfs, a --scratch disk)?
    A run directory copied from elsewhere (a student's hand-in) may name any path in its ledger; only
    these are ever removed."""
    run_dir = Path(os.path.abspath(run_dir))
    p = Path(os.path.normpath(os.path.join("/", str(path))))
    run_id = run_dir.name
    return (p.is_relative_to(run_dir) or p.is_relative_to(Path("/run/perflab") / run_id)
            or f"perflab-{run_id}" in p.parts[:-1] or p.name == f"perflab-{run_id}")


def remove_entry(e: dict) -> bool:
    try:
        return REMOVERS[e["kind"]](e)
    except Exception:  # noqa: BLE001 - cleanup goes on with the next object
        return False
