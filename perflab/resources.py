"""What a run owns, so that it can always be given back.

Docker objects (containers, networks, volumes) carry labels with the run id. Host objects that
Docker does not manage (loop and zram devices, mounts, tc qdiscs, cgroups, processes, scratch
paths) are written to the run directory's ledger, `resources.jsonl`, *before* they are created and
marked released after they are removed. `perflab clean` removes exactly what is labelled or in an
open ledger entry, and nothing else; `perflab clean --check` lists what is left.
A run whose runner is still alive is left alone unless --force is given.

Front page, "Nothing left behind".
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

LABEL_OWNER = "org.perflab.owner"
LABEL_RUN = "org.perflab.run"
LABEL_LAB = "org.perflab.lab"
LEDGER = "resources.jsonl"
OWNER = "owner.json"


def labels(run_id: str, lab: str | None = None) -> dict:
    d = {LABEL_OWNER: "perflab", LABEL_RUN: run_id}
    if lab:
        d[LABEL_LAB] = lab
    return d


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

    @contextlib.contextmanager
    def holding(self, kind: str, ident: str, **info):
        """Record, yield, then remove and release: for objects created inside the block."""
        self.record(kind, ident, **info)
        try:
            yield
        finally:
            remove_entry({"kind": kind, "id": str(ident), **info})
            self.release(kind, ident)


def _sh(cmd: list[str]) -> bool:
    try:
        return subprocess.run(cmd, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


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


def _mounted(path: str) -> bool:
    try:
        with open("/proc/self/mounts") as f:
            return any(line.split()[1] == path for line in f)
    except OSError:
        return False


def _rm_mount(e):
    p = e["id"]
    if not _mounted(p):
        return True
    if e.get("fuse"):
        _sh(["fusermount3", "-u", p]) or _sh(["fusermount", "-u", p])
    # -R: mounts that propagated below it (a ZFS pool shared through an rshared bind) go too.
    _mounted(p) and _sh(["umount", "-R", p])
    _mounted(p) and _sh(["umount", "-R", "-l", p])
    return not _mounted(p)


def _rm_loop(e):
    dev = e["id"]
    back = e.get("backing")
    out = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True, text=True)
    if out.returncode != 0 or (back and back not in out.stdout):
        return True  # gone, or now someone else's
    # Partitions made with addpart (the jbod lab) outlive the binding unless deleted first.
    name = Path(dev).name
    for part in Path("/sys/block", name).glob(f"{name}p*"):
        with contextlib.suppress(OSError, ValueError):
            _sh(["delpart", dev, str(int((part / "partition").read_text()))])
    return _sh(["losetup", "-d", dev])


def _zram_size(dev: str) -> int:
    try:
        return int(Path(f"/sys/block/{Path(dev).name}/disksize").read_text())
    except (OSError, ValueError):
        return 0


def _rm_zram(e):
    name = Path(e["id"]).name
    if not Path(f"/sys/block/{name}").exists():
        return True
    with contextlib.suppress(OSError):
        Path(f"/sys/block/{name}/reset").write_text("1")
    with contextlib.suppress(OSError):
        Path("/sys/class/zram-control/hot_remove").write_text(name.removeprefix("zram"))
    return _zram_size(name) == 0


def _rm_tc(e):
    dev = e["id"]
    if not Path(f"/sys/class/net/{dev}").exists():
        return True
    _sh(["tc", "qdisc", "del", "dev", dev, e.get("parent", "root")])
    out = subprocess.run(["tc", "qdisc", "show", "dev", dev], capture_output=True, text=True).stdout
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
_EXISTS = {
    "process": lambda e: process_alive(int(e["id"]), e.get("start_time")),
    "mount": lambda e: _mounted(e["id"]),
    "loop": lambda e: subprocess.run(["losetup", e["id"]], capture_output=True).returncode == 0
    and bool(e.get("backing") is None or e["backing"] in subprocess.run(
        ["losetup", "-n", "-O", "BACK-FILE", e["id"]], capture_output=True, text=True).stdout),
    "zram": lambda e: _zram_size(e["id"]) > 0,
    "tc": lambda e: Path(f"/sys/class/net/{e['id']}").exists() and e.get("qdisc", "tbf") in subprocess.run(
        ["tc", "qdisc", "show", "dev", e["id"]], capture_output=True, text=True).stdout,
    "cgroup": lambda e: Path(e["id"]).exists(),
    "path": lambda e: Path(e["id"]).exists(),
}


def remove_entry(e: dict) -> bool:
    try:
        return REMOVERS[e["kind"]](e)
    except Exception:  # noqa: BLE001 - cleanup goes on with the next object
        return False


# ---- Docker objects -------------------------------------------------------------------------

def docker_client():
    """A Docker client, or None when no engine answers (then there is nothing labelled to find)."""
    try:
        import docker

        c = docker.from_env(timeout=120)
        c.ping()
        return c
    except Exception:  # noqa: BLE001
        return None


def _label_filter(run_id: str | None) -> dict:
    return {"label": [f"{LABEL_RUN}={run_id}"] if run_id else [f"{LABEL_OWNER}=perflab"]}


def docker_objects(client, run_id: str | None = None) -> list[tuple[str, str, str]]:
    """(kind, name, run id) of every labelled container, network and volume."""
    if client is None:
        return []
    f = _label_filter(run_id)
    out = []
    for c in client.containers.list(all=True, filters=f):
        out.append(("container", c.name, c.labels.get(LABEL_RUN, "")))
    for n in client.networks.list(filters=f):
        out.append(("network", n.name, (n.attrs.get("Labels") or {}).get(LABEL_RUN, "")))
    for v in client.volumes.list(filters=f):
        out.append(("volume", v.name, (v.attrs.get("Labels") or {}).get(LABEL_RUN, "")))
    return out


def remove_docker_objects(client, run_id: str | None = None, skip_runs: set[str] = frozenset()) -> list[str]:
    """Remove labelled containers, then networks, then volumes. Returns what could not be removed."""
    if client is None:
        return []
    import docker.errors

    f = _label_filter(run_id)
    failed = []
    kinds = (("container", client.containers.list(all=True, filters=f), {"force": True, "v": True}),
             ("network", client.networks.list(filters=f), {}),
             ("volume", client.volumes.list(filters=f), {"force": True}))
    for kind, objs, kw in kinds:
        for o in objs:
            labels = o.labels if kind == "container" else (o.attrs.get("Labels") or {})
            if labels.get(LABEL_RUN) in skip_runs:
                continue
            try:
                o.remove(**kw)
            except docker.errors.NotFound:
                pass
            except docker.errors.APIError as e:
                failed.append(f"{kind} {o.name}: {e.explanation}")
    return failed


# ---- Runs: who owns a run directory, and cleaning them --------------------------------------

def write_owner(run_dir: Path) -> None:
    pid = os.getpid()
    (Path(run_dir) / OWNER).write_text(json.dumps({"pid": pid, "start_time": proc_start_time(pid)}))


def run_active(run_dir: Path) -> bool:
    try:
        o = json.loads((Path(run_dir) / OWNER).read_text())
    except (OSError, ValueError):
        return False
    return o.get("pid") != os.getpid() and process_alive(o["pid"], o.get("start_time"))


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


def runs_root(root: Path) -> Path:
    return Path(root) / "data" / "runs"


@dataclass
class Leftover:
    run_id: str
    kind: str
    ident: str

    def __str__(self):
        return f"{self.kind} {self.ident} (run {self.run_id})"


def clean_run(run_dir: Path, client=None) -> list[str]:
    """Remove what one run recorded or labelled; return what failed. Processes go first (so
    nothing creates more objects meanwhile), then Docker objects, then the other host objects."""
    run_dir = Path(run_dir)
    led = Ledger(run_dir)
    failed = []

    def remove(entries):
        for e in entries:
            if remove_entry(e):
                led.release(e["kind"], e["id"])
            else:
                failed.append(f"{e['kind']} {e['id']}")

    remove([e for e in led.open_entries() if e["kind"] == "process"])
    failed += remove_docker_objects(client, run_dir.name)
    remove([e for e in led.open_entries() if e["kind"] != "process"])
    return failed


def clean(root: Path, run_id: str | None = None, force: bool = False) -> tuple[list[str], list[str]]:
    """Clean every run (or one). Returns (cleaned run ids, failures)."""
    client = docker_client()
    base = runs_root(root)
    dirs = [base / run_id] if run_id else sorted(p for p in base.glob("*") if p.is_dir()) if base.exists() else []
    active = {d.name for d in dirs if run_active(d)} if not force else set()
    done, failed = [], []
    for d in dirs:
        if d.name in active:
            continue
        if d.exists():
            failed += clean_run(d, client)
            done.append(d.name)
    # Labelled objects whose run directory is gone (deleted by hand) are still perflab's.
    if run_id is None:
        failed += remove_docker_objects(client, None, skip_runs=active)
    elif run_id not in active:   # a live run's objects are its runner's until it ends (or --force)
        failed += remove_docker_objects(client, run_id)
    return done, failed


def leftovers(root: Path, include_active: bool = False) -> list[Leftover]:
    client = docker_client()
    base = runs_root(root)
    dirs = sorted(p for p in base.glob("*") if p.is_dir()) if base.exists() else []
    active = set() if include_active else {d.name for d in dirs if run_active(d)}
    out = [Leftover(r, k, n) for k, n, r in docker_objects(client) if r not in active]
    for d in dirs:
        if d.name in active:
            continue
        for e in Ledger(d).open_entries():
            if _EXISTS[e["kind"]](e):
                out.append(Leftover(d.name, e["kind"], e["id"]))
    return out
