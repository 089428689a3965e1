"""The run's ledger of host objects Docker does not manage (loop and zram devices, mounts, tc
qdiscs, processes, scratch paths): each is written to the run directory's `resources.jsonl`
*before* it is created and marked released after it is removed. perflab.infra.cleanup gives back
what a run left; the context managers of perflab.infra.hostobjects and zfs give back their own.

A ledger is untrusted input (a run directory may be a student's hand-in), so a file naming an
object is never the reason to act on it: each kind has a proof (`prove_<kind>`), read from what
the kernel or the Docker engine shows at the moment of acting, that the object is the run's own,
and its remover acts only after it. An object that is there and cannot be proven the run's is left
alone, and said so ("left alone: not perflab's: ...").

Front page, "Nothing left behind".
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from perflab.infra import hostcmd, partitions
from perflab.infra.labels import LABEL_RUN, RUN_DIR_ENV
from perflab.infra.procs import command_line, proc_start_time, process_alive, run_marker

LEDGER = "resources.jsonl"


@dataclass(frozen=True)
class Run:
    """What a run's objects are proven against: its directory and a Docker client (None: no engine
    answers, so nothing that only the engine can show is proven)."""

    dir: Path
    client: object = None

    @property
    def id(self) -> str:
        return self.dir.name


def scratch_root(run_dir: Path) -> str | None:
    """The --scratch directory the run's run.json records (perflab.infra.scratch.describe), or None."""
    try:
        doc = json.loads((Path(run_dir) / "run.json").read_text())
        path = ((doc.get("provenance") or {}).get("scratch") or {}).get("path")
    except (OSError, ValueError, AttributeError):
        return None
    return path if isinstance(path, str) and os.path.isabs(path) else None


def places(run: Run) -> list[tuple[str, bool]]:
    """The places perflab makes for the run, each with whether the place itself is the run's (else
    only what is below it): its run directory (strictly inside), /run/perflab/<run id>,
    /dev/shm/perflab-<run id> and the volume scratch directory <scratch>/perflab-<run id>."""
    rid = run.id
    out = [(str(run.dir), False), (f"/run/perflab/{rid}", True), (f"/dev/shm/perflab-{rid}", True)]
    scratch = scratch_root(run.dir)
    if scratch:
        out.append((os.path.join(scratch, f"perflab-{rid}"), True))
    return out


def prove_path(path: str, run: Run) -> str | None:
    """None when `path` lies in one of the run's places with no symbolic link at or below the place
    (what `realpath` makes of it is the place's own resolved path and the same names below); else
    why not."""
    if not isinstance(path, str) or not os.path.isabs(path):
        return "not an absolute path"
    norm, real = os.path.normpath(path), os.path.realpath(path)
    for place, itself in places(run):
        if os.path.islink(place):
            continue   # a place that is a symbolic link points at someone else's directory
        resolved = os.path.realpath(place)
        for base in (os.path.normpath(place), resolved):
            rel = os.path.relpath(norm, base)
            if rel == os.pardir or rel.startswith(os.pardir + os.sep) or (rel == os.curdir and not itself):
                continue
            if real == os.path.normpath(os.path.join(resolved, rel)):
                return None
            return f"a symbolic link on the way (it resolves to {real})"
    return f"not in a place perflab makes for run {run.id}"


# Each kind: whether its object is there at all (EXISTS), the proof that it is the run's (PROOFS:
# None, or why not), and its remover (REMOVERS: True once it is gone), run only after the proof.

def prove_process(e: dict, run: Run) -> str | None:
    """The kernel's start time of the PID equals the recorded one, and the process's environment
    names this run directory (RUN_DIR_ENV: every process perflab starts for a run carries it)."""
    pid, st = int(e["id"]), e.get("start_time")
    cmd = command_line(pid) or "?"
    if st is None:
        return f"no start time recorded, so the PID may name any process (now: {cmd})"
    if proc_start_time(pid) != st:
        return f"started at another time than the one recorded: the PID was reused (now: {cmd})"
    marker = run_marker(pid)
    if marker is None or os.path.realpath(marker) != os.path.realpath(run.dir):
        return f"its environment does not name this run ({RUN_DIR_ENV}; {cmd})"
    return None


def _rm_process(e: dict) -> bool:
    pid, st = int(e["id"]), e["start_time"]
    try:
        fd = os.pidfd_open(pid)   # from here on a signal reaches this process or none
    except ProcessLookupError:
        return True
    try:
        if proc_start_time(pid) != st:
            return True
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(fd, sig)
            t_end = time.time() + wait
            while time.time() < t_end:
                if not process_alive(pid, st):
                    return True
                time.sleep(0.1)
        return not process_alive(pid, st)
    finally:
        os.close(fd)


def _unescape_mount_path(s: str) -> str:
    """A path as /proc's mount tables write it (space, tab, newline and backslash as octal escapes)."""
    return (s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n")
            .replace("\\134", "\\"))


def _mountinfo() -> list[list[str]]:
    try:
        with open("/proc/self/mountinfo") as f:
            return [line.split() for line in f]
    except OSError:
        return []


def is_mounted(path: str) -> bool:
    """Is `path` a mount point in this process's mount namespace (/proc/self/mountinfo)? The one
    mount check of the package (the ledger's remover and slowdisk's mount both ask it)."""
    return any(len(p) > 4 and _unescape_mount_path(p[4]) == path for p in _mountinfo())


def _sh(cmd: list[str]) -> bool:
    return hostcmd.ok(cmd, timeout=60)


def prove_mount(e: dict, run: Run) -> str | None:
    """The mount point lies in one of the run's places (prove_path)."""
    return prove_path(e["id"], run)


def _rm_mount(e: dict) -> bool:
    p = e["id"]
    if e.get("fuse"):
        _sh(["fusermount3", "-u", p]) or _sh(["fusermount", "-u", p])
    # -R: mounts that propagated below it (a ZFS pool shared through an rshared bind) go too.
    is_mounted(p) and _sh(["umount", "-R", p])
    is_mounted(p) and _sh(["umount", "-R", "-l", p])
    return not is_mounted(p)


LOOP = re.compile(r"/dev/(loop\d+)")
LOOP_PART = re.compile(r"/dev/(loop\d+)p\d+")


def loop_backing(dev: str) -> str | None:
    """The file (or device) loop device `dev` is bound to, as the kernel shows it, or None when it
    is not bound (what `losetup -n -O BACK-FILE` prints, read from sysfs, never cut short)."""
    m = LOOP.fullmatch(dev)
    try:
        text = Path(f"/sys/block/{m.group(1)}/loop/backing_file").read_text() if m else ""
    except OSError:
        return None
    return text.strip().removesuffix(" (deleted)") or None


def _backing_ours(backing: str, run: Run) -> str | None:
    """None when a loop device's backing lies in the run's places, or is a partition of a loop
    device whose own backing does; else why not."""
    part = LOOP_PART.fullmatch(backing)
    if part is None:
        return prove_path(backing, run)
    parent = loop_backing(f"/dev/{part.group(1)}")
    return f"its backing {backing} is on /dev/{part.group(1)}, bound to nothing" if parent is None \
        else _backing_ours(parent, run)


def prove_loop(e: dict, run: Run) -> str | None:
    """The kernel's backing file is the recorded one, and it lies in the run's places (or is a
    partition of a loop device whose backing does)."""
    back, shown = e.get("backing"), loop_backing(e["id"])
    if not isinstance(back, str) or not back:
        return f"no backing file recorded (the kernel's: {shown})"
    if shown != os.path.realpath(back):
        return f"bound to {shown}, not to the recorded {back}"
    return _backing_ours(back, run)


def _rm_loop(e: dict) -> bool:
    dev = e["id"]
    # Partitions added with BLKPG (the jbod lab) outlive the binding unless deleted first.
    name = Path(dev).name
    for part in Path("/sys/block", name).glob(f"{name}p*"):
        with contextlib.suppress(OSError, ValueError):
            partitions.delete(dev, int((part / "partition").read_text()))
    return _sh(["losetup", "-d", dev]) or loop_backing(dev) is None


ZRAM = re.compile(r"/dev/(zram\d+)")


def _zram_there(dev: str) -> bool:
    """The device is there, sized or not: a device hot-added and never given a size (a write to its
    disksize refused, as under a read-only /sys) is left behind all the same."""
    m = ZRAM.fullmatch(dev)
    return m is not None and Path(f"/sys/block/{m.group(1)}").exists()


def _block_user(name: str) -> str | None:
    """Who uses block device `name` (swap, a mount, a holder, an open file), or None."""
    dev = f"/dev/{name}"
    swaps = Path("/proc/swaps").read_text().splitlines()[1:]
    if any(line.split()[:1] == [dev] for line in swaps):
        return "it is in use as swap"
    major, minor = Path(f"/sys/block/{name}/dev").read_text().strip().split(":")
    if any(len(p) > 2 and p[2] == f"{major}:{minor}" for p in _mountinfo()):
        return "it is mounted"
    if any(Path(f"/sys/block/{name}/holders").iterdir()):
        return "another block device holds it"
    rdev = os.makedev(int(major), int(minor))
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        with contextlib.suppress(OSError):
            st = os.stat(fd)
            if stat.S_ISBLK(st.st_mode) and st.st_rdev == rdev:
                return f"process {fd.parent.parent.name} has it open ({command_line(int(fd.parent.parent.name))})"
    return None


def prove_zram(e: dict, run: Run) -> str | None:
    """The kernel's disksize is the one recorded at creation (or 0: never sized), and nothing uses
    the device (swap, a mount, a holder, a process with it open)."""
    name = ZRAM.fullmatch(e["id"]).group(1)
    size = int(Path(f"/sys/block/{name}/disksize").read_text())
    if size and size != e.get("disksize"):
        return f"its size is {size} bytes, not the recorded {e.get('disksize')}"
    return _block_user(name)


def _rm_zram(e: dict) -> bool:
    name = Path(e["id"]).name
    with contextlib.suppress(OSError):
        Path(f"/sys/block/{name}/reset").write_text("1")
    with contextlib.suppress(OSError):
        Path("/sys/class/zram-control/hot_remove").write_text(name.removeprefix("zram"))
    return not _zram_there(e["id"])


IFNAME = re.compile(r"[^/\s]{1,15}")


def _qdiscs(dev: str) -> str:
    """`tc qdisc show dev DEV`, or "" when it fails or hangs."""
    try:
        return hostcmd.run(["tc", "qdisc", "show", "dev", dev], timeout=30, check=False).stdout
    except hostcmd.HostCommandFailed:
        return ""


def _tc_there(e: dict) -> bool:
    dev = e["id"]
    return (IFNAME.fullmatch(dev) is not None and dev not in (".", "..") and Path(f"/sys/class/net/{dev}").exists()
            and f"qdisc {e.get('qdisc', 'tbf')} " in _qdiscs(dev))


def _container_iflink(pid: int) -> str:
    """The iflink of eth0 in the network namespace of process `pid` (its peer's ifindex), or ""."""
    try:
        out = hostcmd.run(["nsenter", "-t", str(pid), "-n", "ip", "-o", "link", "show", "dev", "eth0"],
                          timeout=30, check=False).stdout
    except hostcmd.HostCommandFailed:
        return ""
    m = re.search(r"eth0@if(\d+)", out)
    return m.group(1) if m else ""


def prove_tc(e: dict, run: Run) -> str | None:
    """The interface has the recorded ifindex, and the engine shows the recorded container labelled
    with this run, whose eth0 is that interface's peer (a veth perflab shaped for it)."""
    dev, cid, idx = e["id"], e.get("container"), e.get("ifindex")
    if not cid or idx is None:
        return "no container or interface index recorded"
    shown = Path(f"/sys/class/net/{dev}/ifindex").read_text().strip()
    if shown != str(idx):
        return f"its ifindex is {shown}, not the recorded {idx}"
    if run.client is None:
        return "no Docker engine answers to show whose container it serves"
    try:
        c = run.client.containers.get(cid)
    except Exception as x:  # noqa: BLE001 - docker's NotFound, or the engine's own error
        return f"the engine shows no container {cid} ({type(x).__name__})"
    if (c.labels or {}).get(LABEL_RUN) != run.id:
        return f"container {cid} does not carry {LABEL_RUN}={run.id}"
    pid = (c.attrs.get("State") or {}).get("Pid") or 0
    if not pid or _container_iflink(pid) != shown:
        return f"it is not the peer of container {cid}'s eth0"
    return None


def _rm_tc(e: dict) -> bool:
    _sh(["tc", "qdisc", "del", "dev", e["id"], e.get("parent", "root")])
    return not _tc_there(e)


def _rm_path(e: dict) -> bool:
    p = Path(e["id"])
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    return not os.path.lexists(p)


REMOVERS = {"process": _rm_process, "mount": _rm_mount, "loop": _rm_loop, "zram": _rm_zram,
            "tc": _rm_tc, "path": _rm_path}
PROOFS = {"process": prove_process, "mount": prove_mount, "loop": prove_loop, "zram": prove_zram,
          "tc": prove_tc, "path": lambda e, run: prove_path(e["id"], run)}
#: Whether a recorded object is there at all, whoever's it is (for `perflab clean --check`), by kind.
EXISTS = {
    "process": lambda e: proc_start_time(int(e["id"])) is not None,
    "mount": lambda e: is_mounted(e["id"]),
    "loop": lambda e: loop_backing(e["id"]) is not None,
    "zram": lambda e: _zram_there(e["id"]),
    "tc": _tc_there,
    "path": lambda e: isinstance(e["id"], str) and os.path.lexists(e["id"]),
}


def _label(e: dict) -> str:
    return f"{e.get('kind')} {e.get('id')}"


def exists(e: dict) -> bool:
    """Is the object entry `e` names there (an entry of an unknown kind, or one that cannot be read,
    counts as there: nothing shows it gone)?"""
    try:
        return e.get("kind") not in EXISTS or EXISTS[e["kind"]](e)
    except Exception:  # noqa: BLE001 - a malformed entry
        return True


def refusal(e: dict, run: Run) -> str | None:
    """Why the object entry `e` names may not be touched, as the line `perflab clean` prints
    ("left alone: ..."), or None when it is proven the run's now."""
    if e.get("kind") not in PROOFS:
        return f"left alone: unknown kind: {_label(e)}"
    try:
        why = PROOFS[e["kind"]](e, run)
    except Exception as x:  # noqa: BLE001 - a malformed entry, or what the proof reads vanished
        why = f"it cannot be proven ({type(x).__name__}: {x})"
    return f"left alone: not perflab's: {_label(e)}: {why}" if why else None


def remove_entry(e: dict, run: Run) -> str | None:
    """Give back the object entry `e` names: None when it is gone (it was, or is removed now, after
    its proof); else the line that says what stays ("left alone: ..." or "could not remove: ...")."""
    if not exists(e):
        return None
    why = refusal(e, run)
    if why:
        return why
    try:
        return None if REMOVERS[e["kind"]](e) else f"could not remove: {_label(e)}"
    except Exception:  # noqa: BLE001 - cleanup goes on with the next object
        return f"could not remove: {_label(e)}"


class Ledger:
    """Append-only record of host objects, one JSON line per event, fsynced."""

    def __init__(self, run_dir: Path):
        self.dir = Path(os.path.abspath(run_dir))
        self.path = self.dir / LEDGER

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
        """A process started for the run (with `child_env`'s marker): its start time and command line."""
        self.record("process", str(pid), start_time=proc_start_time(pid), what=what, cmd=command_line(pid))

    def child_env(self, env: dict | None = None) -> dict:
        """`env` (default: this process's) with the marker that proves a process is this run's."""
        return {**(os.environ if env is None else env), RUN_DIR_ENV: str(self.dir)}

    def give_back(self, e: dict, client=None) -> str | None:
        """remove_entry for this ledger's run, released when gone; else the line saying what stays."""
        line = remove_entry(e, Run(self.dir, client))
        if line is None:
            self.release(e["kind"], e["id"])
        return line

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
            if not isinstance(e, dict):
                continue
            key = (str(e.get("kind")), str(e.get("id")))
            if e.get("op") == "create":
                live[key] = e
            elif e.get("op") == "release":
                live.pop(key, None)
        return list(reversed(live.values()))
