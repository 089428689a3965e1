"""Building, finding and mounting the slowdisk binary (FUSE) for the duration of a `with` block
(`mounted`), and what its process costs (`process_cpu_seconds`)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from perflab.fio.live import announce
from typing import Iterator

from perflab.errors import Failed
from perflab.infra import hostcmd
from perflab.infra.ledger import is_mounted
from perflab.infra.procs import proc_start_time, process_alive
from perflab.infra.slowdisk.model import DiskModel

#: slowdisk/ at the top of the repository (source, Makefile, README.md).
SOURCE_DIR = Path(__file__).resolve().parents[3] / "slowdisk"   # perflab/infra/slowdisk/mount.py -> the checkout


class SlowdiskError(Failed, RuntimeError):
    """slowdisk could not be built, mounted or unmounted; the message says why."""


def fuse_available() -> str | None:
    """None when FUSE mounts can work here, else the reason they cannot."""
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse does not exist (no FUSE in this kernel or container: --device /dev/fuse)"
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        return "/dev/fuse is not readable and writable by this user"
    if os.geteuid() != 0 and not shutil.which("fusermount3"):
        return "not root and fusermount3 is not installed (apt-get install fuse3)"
    return None


def build_binary(source_dir: Path = SOURCE_DIR) -> Path:
    """``make -C slowdisk``; returns the binary.  Raises SlowdiskError with make's output."""
    if not shutil.which("make"):
        raise SlowdiskError("cannot build slowdisk: make is not installed "
                            "(apt-get install gcc make pkg-config libfuse3-dev)")
    r = hostcmd.run(["make", "-s", "-C", str(source_dir)], timeout=600, check=False)
    binary = source_dir / "slowdisk"
    if r.returncode != 0 or not binary.exists():
        raise SlowdiskError(f"cannot build slowdisk (make -C {source_dir}):\n{r.stdout}{r.stderr}")
    return binary


def find_binary(build: bool = True) -> Path:
    """$SLOWDISK_BIN, else slowdisk/slowdisk (built or rebuilt when the source is newer),
    else ``slowdisk`` on PATH."""
    env = os.environ.get("SLOWDISK_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise SlowdiskError(f"SLOWDISK_BIN={env}: not an executable file")
        return Path(env)
    src = SOURCE_DIR / "slowdisk.c"
    binary = SOURCE_DIR / "slowdisk"
    if src.exists():
        stale = not binary.exists() or binary.stat().st_mtime < src.stat().st_mtime
        if stale and build:
            return build_binary()
        if binary.exists():
            return binary
    on_path = shutil.which("slowdisk")
    if on_path:
        return Path(on_path)
    raise SlowdiskError(f"slowdisk is not built ({binary}) and not on PATH: make -C {SOURCE_DIR}")


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        data = f.read()
    rest = data[data.rindex(")") + 2:].split()   # fields from 3 on; comm may hold spaces
    utime, stime = int(rest[11]), int(rest[12])  # fields 14 and 15
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


@dataclass
class SlowdiskMount:
    """A live mount (what :func:`mounted` yields)."""

    mountpoint: Path
    backing_dir: Path
    model: DiskModel
    pid: int
    log_dir: Path | None
    stderr_path: Path
    proc: subprocess.Popen
    final_stderr: str | None = None


    def disk(self, name: str) -> Path:
        """Path of disk ``name`` on the mount."""
        return self.mountpoint / name

    def cpu_seconds(self) -> float:
        """CPU time the slowdisk process has used so far (utime + stime)."""
        return process_cpu_seconds(self.pid)

    def stderr(self) -> str:
        """The program's messages: its settings at start, per-disk totals after the unmount."""
        if self.final_stderr is not None:
            return self.final_stderr
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""


def _unmount(mountpoint: str, timeout: float = 5.0) -> None:
    """fusermount3 -u (retried while busy), then lazy; umount(8) if fusermount3 is missing."""
    tool = shutil.which("fusermount3")
    deadline = time.monotonic() + timeout
    while is_mounted(mountpoint):
        cmd = [tool, "-u", "-q", mountpoint] if tool else ["umount", mountpoint]
        hostcmd.ok(cmd, timeout=30)
        if not is_mounted(mountpoint):
            return
        if time.monotonic() > deadline:
            cmd = [tool, "-u", "-z", "-q", mountpoint] if tool else ["umount", "-l", mountpoint]
            hostcmd.ok(cmd, timeout=30)
            return
        time.sleep(0.1)


def _stop(proc: subprocess.Popen, timeout: float = 5.0) -> None:
    """Wait for our own slowdisk process to exit after the unmount; TERM, then KILL."""
    if proc.poll() is not None:
        return
    try:
        proc.wait(timeout=timeout)
        return
    except subprocess.TimeoutExpired:
        pass
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.kill(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@contextmanager
def mounted(backing_dir: str | os.PathLike, mountpoint: str | os.PathLike,
            model: DiskModel | None = None, log_dir: str | os.PathLike | None = None,
            log_wait: bool = False, extra_options: tuple[str, ...] = (),
            timeout: float = 10.0, env: dict | None = None, live: Path | None = None) -> Iterator[SlowdiskMount]:
    """Mount ``backing_dir`` on ``mountpoint`` with slowdisk for the ``with`` block.

    Builds the binary if needed, starts it in the foreground (its own session, so a
    Ctrl-C reaches only Python, which then tears down in order), waits until the mount
    is live and yields a :class:`SlowdiskMount`.  On exit, also on an exception or
    KeyboardInterrupt: ``fusermount3 -u`` (lazy if still busy after a few seconds), then
    waits for the process, which flushes the device logs as it exits, and TERMs/KILLs
    only that process if it does not.  ``log_dir`` gets one ``<disk>.log`` per disk (and
    ``<disk>.wait.log`` with ``log_wait``); ``extra_options`` are more ``-o`` options
    (e.g. ``"allow_other"``); ``env``: the process's environment (default: this one's); ``live``:
    the run's live.jsonl (perflab.fio.live), where a watched run's page finds the device logs.
    """
    model = (model or DiskModel()).validate()
    why = fuse_available()
    if why:
        raise SlowdiskError(f"cannot mount slowdisk: {why}")
    binary = find_binary()
    backing = Path(backing_dir).resolve()
    mp = Path(mountpoint)
    mp.mkdir(parents=True, exist_ok=True)
    mp = mp.resolve()
    if is_mounted(str(mp)):
        raise SlowdiskError(f"{mp} is already a mount point")
    opts = model.to_options()
    if log_dir is not None:
        log_dir = Path(log_dir).resolve()
        log_dir.mkdir(parents=True, exist_ok=True)
        opts.append(f"log_dir={log_dir}")
        if log_wait:
            opts.append("log_wait=on")
    elif log_wait:
        raise ValueError("log_wait=True needs a log_dir")
    opts += list(extra_options)
    if any("," in o for o in opts):
        raise ValueError(f"a comma in an option would split it: {[o for o in opts if ',' in o]}")
    fd, errname = tempfile.mkstemp(prefix="slowdisk-", suffix=".stderr")
    errpath = Path(errname)
    proc = None
    mount = None
    try:
        with os.fdopen(fd, "wb") as err:
            proc = subprocess.Popen([str(binary), str(backing), str(mp), "-f", "-o", ",".join(opts)],
                                    stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                    start_new_session=True, env=env)
        deadline = time.monotonic() + timeout
        while not is_mounted(str(mp)):
            if proc.poll() is not None:
                raise SlowdiskError(f"slowdisk exited with status {proc.returncode} before "
                                    f"mounting {mp}:\n{errpath.read_text(errors='replace')}")
            if time.monotonic() > deadline:
                raise SlowdiskError(f"slowdisk did not mount {mp} within {timeout:g} s:\n"
                                    f"{errpath.read_text(errors='replace')}")
            time.sleep(0.02)
        mount = SlowdiskMount(mountpoint=mp, backing_dir=backing, model=model, pid=proc.pid,
                              log_dir=Path(log_dir) if log_dir is not None else None,
                              stderr_path=errpath, proc=proc)
        if log_dir is not None:   # a watched run's page draws each disk's log as it is flushed
            announce("device-logs", mp.name, live=live, dir=log_dir)
        yield mount
    finally:
        try:
            _unmount(str(mp))
        finally:
            if proc is not None:
                _stop(proc)
            if mount is not None:
                mount.final_stderr = errpath.read_text(errors="replace") if errpath.exists() else ""
            try:
                errpath.unlink()
            except OSError:
                pass


@contextmanager
def recorded(ledger, backing_dir: str | os.PathLike, mountpoint: str | os.PathLike,
             model: DiskModel | None = None, **kw) -> Iterator[SlowdiskMount]:
    """:func:`mounted`, written to a run's ledger (perflab.infra.ledger): the mount before it is
    made, the slowdisk process as soon as it runs (with the run's marker in its environment); both
    released once unmounted and gone, so `perflab clean` finds them after a crash."""
    ledger.record("mount", str(mountpoint), fuse=True)
    pid = start = None
    try:
        with mounted(backing_dir, mountpoint, model, **{**kw, "env": ledger.child_env(kw.get("env"))}) as m:
            pid = m.pid
            start = proc_start_time(pid)
            ledger.record_process(pid, "slowdisk")
            yield m
    finally:
        # released only once gone: an unmount that failed, or a process that would not stop, stays
        # in the ledger for `perflab clean` to retry
        if pid is not None and not process_alive(pid, start):
            ledger.release("process", str(pid))
        if not is_mounted(str(mountpoint)):
            ledger.release("mount", str(mountpoint))
