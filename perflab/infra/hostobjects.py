"""Host objects a lab makes, each as a context manager that writes itself to the run's ledger
*before* it exists and gives itself back on the way out, however the block ends (the way
testcontainers labels a container in the call that creates it). A lab asks for the object and
cannot forget the bookkeeping; after a crash `perflab clean` finds what the ledger says is open.

    with loop_device(s.ledger, "/dev/shm/x/jbod1") as dev: ...
    with scratch_dir(s.ledger, Path("/dev/shm/perflab-RUN")) as d: ...
    with tbf(s.ledger, "veth1234", "rate", "10mbit", "burst", "32kb", "latency", "400ms", container=c): ...
    with process(s.ledger, ["perf", "stat", ...], "perf stat") as proc: ...
    with filesystem(s.ledger, dev, Path("/mnt/x"), ["mkfs.ext4", "-q"]) as mnt: ...

Each is removed only once the kernel (or the engine) shows it is the run's (perflab.infra.ledger's
proofs); a process carries the run's marker in its environment for that.

(ZFS pools and zram devices: perflab.infra.zfs; slowdisk mounts: perflab.infra.slowdisk.mounted
with `ledger=`; Docker objects carry labels instead: perflab.infra.labels.)
"""
from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

from perflab.errors import Failed
from perflab.infra import hostcmd
from perflab.infra.ledger import Ledger


class HostObjectError(Failed, RuntimeError):
    """A host object could not be made (no free loop device, tc refused a qdisc)."""


def give_back(ledger: Ledger, entry: dict, client=None) -> None:
    """Remove the object once proven the run's (perflab.infra.ledger); release its ledger entry only
    when it is gone, else say what stays (`perflab clean` retries and says it again)."""
    line = ledger.give_back(entry, client)
    if line:
        print(f"perflab: {line}", file=sys.stderr)


@contextlib.contextmanager
def loop_device(ledger: Ledger, backing: str) -> Iterator[str]:
    """A loop device bound to `backing` (direct I/O); on the way out its partitions are deleted and
    it is detached."""
    dev = None
    for _ in range(20):
        cand = hostcmd.run(["losetup", "-f"], timeout=30).stdout.strip()
        ledger.record("loop", cand, backing=backing)
        r = hostcmd.run(["losetup", "--direct-io=on", cand, backing], timeout=60, check=False)
        if r.returncode == 0:
            dev = cand
            break
        ledger.release("loop", cand)   # taken by someone else meanwhile: try the next free one
        time.sleep(0.05)
    if dev is None:
        raise HostObjectError(f"no free loop device for {backing}")
    try:
        yield dev
    finally:
        give_back(ledger, {"kind": "loop", "id": dev, "backing": backing})


@contextlib.contextmanager
def scratch_dir(ledger: Ledger, path: Path) -> Iterator[Path]:
    """A directory (with its parents) that is removed with everything in it on the way out."""
    path = Path(path)
    ledger.record("path", str(path))
    try:
        path.mkdir(parents=True, exist_ok=True)
        yield path
    finally:
        give_back(ledger, {"kind": "path", "id": str(path)})


@contextlib.contextmanager
def filesystem(ledger: Ledger, dev: str, mountpoint: Path, mkfs: list[str], timeout: float = 600) -> Iterator[Path]:
    """A new file system on block device `dev` (`mkfs`: the command without the device, e.g.
    ["mkfs.ext4", "-q"]), mounted on `mountpoint` for the block; unmounted on the way out."""
    mountpoint = Path(mountpoint)
    hostcmd.run([*mkfs, dev], timeout=timeout)
    mountpoint.mkdir(parents=True, exist_ok=True)
    ledger.record("mount", str(mountpoint))
    try:
        hostcmd.run(["mount", dev, str(mountpoint)], timeout=60)
        yield mountpoint
    finally:
        give_back(ledger, {"kind": "mount", "id": str(mountpoint)})


@contextlib.contextmanager
def tbf(ledger: Ledger, dev: str, *args: str, container) -> Iterator[str]:
    """A tbf qdisc at the root of network device `dev`, the host-side veth of `container` (a Docker
    SDK container of the run's); `args`: tc's tbf options, e.g. "rate", "10mbit", ...). The lab may
    `tc qdisc replace` it with other rates inside the block. The container's id and the interface's
    ifindex are recorded: what proves the qdisc the run's when it is removed."""
    entry = {"kind": "tc", "id": dev, "qdisc": "tbf", "container": container.id,
             "ifindex": int(Path(f"/sys/class/net/{dev}/ifindex").read_text())}
    ledger.record("tc", dev, **{k: v for k, v in entry.items() if k not in ("kind", "id")})
    try:
        hostcmd.run(["tc", "qdisc", "replace", "dev", dev, "root", "tbf", *args], timeout=30)
        yield dev
    finally:
        give_back(ledger, entry, client=container.client)


@contextlib.contextmanager
def process(ledger: Ledger, argv: list[str], what: str, stop_timeout: float = 30.0,
            **popen) -> Iterator[subprocess.Popen]:
    """A process of the host's, recorded as soon as it has a PID; on the way out it is given
    `stop_timeout` seconds to end by itself, then killed. Its environment (`env=`, default this
    process's) carries the run's marker (Ledger.child_env)."""
    proc = subprocess.Popen(argv, **{**popen, "env": ledger.child_env(popen.get("env"))})
    ledger.record_process(proc.pid, what)
    try:
        yield proc
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=stop_timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        ledger.release("process", str(proc.pid))
