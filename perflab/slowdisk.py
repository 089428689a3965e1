"""Emulated mechanical disks for the labs: mount ``slowdisk`` and read its per-I/O log.

``slowdisk`` (C, libfuse3; source and full description in slowdisk/README.md) is a FUSE
pass-through file system in which every regular file of a backing directory is one
7200 RPM-style disk with one actuator: each I/O costs positioning (none when sequential,
a small cost when near, else seek + rotational delay) plus transfer, one I/O at a time per
disk.  The chapters that use it:

* **Logzilla**: a pool's synchronous writes with and without a separate log device;
  the pool disks' ``flush_ms`` and ``write_cache`` set what a ZIL commit costs.
* **L2ARC**: random reads that miss the ARC land on slow disks (tens to ~200 IOPS each)
  instead of the cache device.
* **Latency art**: the device logs are fio-format per-I/O logs, so the heat-map code
  draws the disks' own service times (seek and rotation bands) next to fio's.

This module builds or finds the binary, mounts it for the duration of a ``with`` block
(:func:`mounted`), predicts the model's mean service time (:func:`expected_service_ms`)
so a chapter can compare measured with modelled, and reads the device logs
(:func:`read_device_log`, :func:`read_device_logs`).
"""
from __future__ import annotations

from .errors import Failed

import math
import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from perflab.fiolog import read_lat_log

__all__ = [
    "DiskModel", "SlowdiskMount", "SlowdiskError", "mounted", "find_binary", "build_binary",
    "expected_service_ms", "read_device_log", "read_device_logs", "process_cpu_seconds",
    "fuse_available", "SOURCE_DIR",
]

#: slowdisk/ at the top of the repository (source, Makefile, README.md).
SOURCE_DIR = Path(__file__).resolve().parent.parent / "slowdisk"

#: mean of sqrt(|U1 - U2|) for independent uniform U1, U2 on [0, 1]: the mean random seek
#: is seek_min + (seek_max - seek_min) * 8/15 over the whole capacity.
SQRT_DIST_MEAN = 8.0 / 15.0

MIB = 1 << 20


class SlowdiskError(Failed, RuntimeError):
    """slowdisk could not be built, mounted or unmounted; the message says why."""


@dataclass
class DiskModel:
    """The emulated disk's parameters; the defaults are those of the C program.

    Times in milliseconds, rates in MB/s (10^6 bytes/s), sizes in bytes.  Give either
    ``seek_max_ms`` (full stroke) or ``seek_avg_ms`` (mean random seek over the whole
    capacity); when ``seek_avg_ms`` is set it wins and the full stroke follows from it.
    """

    rpm: float = 7200.0             # 0: no rotational delay
    seek_min_ms: float = 0.5        # track-to-track
    seek_max_ms: float = 15.0       # full stroke
    seek_avg_ms: float | None = None
    near_bytes: int = MIB           # jumps up to this far are "near"
    near_ms: float = 1.0            # cost of a near jump (forward: min(gap transfer, near_ms))
    transfer_mbps: float = 120.0    # media rate; 0: instant
    flush_ms: float = 4.0           # fsync (cache flush) cost
    overhead_ms: float = 0.0        # fixed per-I/O command overhead
    write_cache: bool = False
    cache_bytes: int = 16 * MIB
    cache_mbps: float = 300.0       # rate into the write cache; 0: instant
    capacity: int = 0               # span of the seek curve; 0: the file's size
    seed: int = 1                   # rotational-delay RNG
    queue: str = "fifo"             # or "sptf" (shortest positioning first)
    real_fsync: bool = False        # also fsync the backing file
    nodelay: bool = False           # no emulated delay at all (overhead measurements)

    # ------------------------------------------------------------------ checks
    def validate(self) -> "DiskModel":
        """Raise ValueError naming the parameter, its value and what is allowed; else self."""
        def bad(name: str, allowed: str) -> None:
            raise ValueError(f"DiskModel.{name}={getattr(self, name)!r}: allowed: {allowed}")

        def num(name: str, lo: float, hi: float, allowed: str) -> float:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or not lo <= v <= hi:
                bad(name, allowed)
            return float(v)

        def integer(name: str, lo: int, hi: int, allowed: str) -> int:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                bad(name, allowed)
            return int(v)

        rpm = num("rpm", 0, 30000, "0 (no rotational delay) or 600..30000")
        if 0 < rpm < 600:
            bad("rpm", "0 (no rotational delay) or 600..30000")
        smin = num("seek_min_ms", 0, 100, "0..100 (ms)")
        if self.seek_avg_ms is not None:
            hi = smin + (1000 - smin) * SQRT_DIST_MEAN
            num("seek_avg_ms", smin, hi, f"None or seek_min_ms..{hi:.3f} (ms; seek_min_ms={smin:g})")
        else:
            num("seek_max_ms", smin, 1000, f"seek_min_ms..1000 (ms; seek_min_ms={smin:g})")
        integer("near_bytes", 0, 1 << 30, "0..1 GiB (bytes)")
        num("near_ms", 0, 100, "0..100 (ms)")
        num("transfer_mbps", 0, 1e6, "0 (no transfer time) or a rate in MB/s up to 1000000")
        num("flush_ms", 0, 10000, "0..10000 (ms)")
        num("overhead_ms", 0, 1000, "0..1000 (ms)")
        for name in ("write_cache", "real_fsync", "nodelay"):
            if not isinstance(getattr(self, name), bool):
                bad(name, "True or False")
        integer("cache_bytes", 4096, 1 << 32, "4 KiB..4 GiB (bytes)")
        num("cache_mbps", 0, 1e6, "0 (instant) or a rate in MB/s up to 1000000")
        cap = integer("capacity", 0, 1 << 50, "0 (the file's size) or 4 KiB..1 PiB (bytes)")
        if 0 < cap < 4096:
            bad("capacity", "0 (the file's size) or 4 KiB..1 PiB (bytes)")
        integer("seed", 0, (1 << 64) - 1, "an integer 0..2**64-1")
        if self.queue not in ("fifo", "sptf"):
            bad("queue", "'fifo' or 'sptf'")
        return self

    # ------------------------------------------------------------ derived
    @property
    def full_stroke_ms(self) -> float:
        """Seek time across the whole capacity (seek_max_ms, or derived from seek_avg_ms)."""
        if self.seek_avg_ms is not None:
            return self.seek_min_ms + (self.seek_avg_ms - self.seek_min_ms) / SQRT_DIST_MEAN
        return self.seek_max_ms

    @property
    def mean_seek_ms(self) -> float:
        """Mean seek between two uniformly random positions over the whole capacity."""
        return self.seek_min_ms + (self.full_stroke_ms - self.seek_min_ms) * SQRT_DIST_MEAN

    @property
    def rotation_ms(self) -> float:
        """One revolution (0 when rpm is 0); the mean rotational delay is half of it."""
        return 60000.0 / self.rpm if self.rpm else 0.0

    def transfer_ms(self, nbytes: int, rate_mbps: float | None = None) -> float:
        rate = self.transfer_mbps if rate_mbps is None else rate_mbps
        return nbytes / (rate * 1e3) if rate else 0.0

    def effective(self) -> "DiskModel":
        """The model the program really runs: nodelay zeroes every cost."""
        if not self.nodelay:
            return self
        return DiskModel(**{**{f.name: getattr(self, f.name) for f in fields(self)},
                            "rpm": 0.0, "seek_min_ms": 0.0, "seek_max_ms": 0.0, "seek_avg_ms": None,
                            "near_ms": 0.0, "transfer_mbps": 0.0, "flush_ms": 0.0,
                            "overhead_ms": 0.0, "cache_mbps": 0.0})

    def to_options(self) -> list[str]:
        """Every parameter as ``name=value`` (the C program's -o options)."""
        self.validate()

        def f(x: float) -> str:
            return repr(float(x))

        opts = [f"rpm={f(self.rpm)}", f"seek_min_ms={f(self.seek_min_ms)}"]
        if self.seek_avg_ms is not None:
            opts.append(f"seek_avg_ms={f(self.seek_avg_ms)}")
        else:
            opts.append(f"seek_max_ms={f(self.seek_max_ms)}")
        opts += [f"near_bytes={int(self.near_bytes)}", f"near_ms={f(self.near_ms)}",
                 f"transfer_mbps={f(self.transfer_mbps)}", f"flush_ms={f(self.flush_ms)}",
                 f"overhead_ms={f(self.overhead_ms)}",
                 f"write_cache={'on' if self.write_cache else 'off'}",
                 f"cache_bytes={int(self.cache_bytes)}", f"cache_mbps={f(self.cache_mbps)}",
                 f"capacity={int(self.capacity)}", f"seed={int(self.seed)}", f"queue={self.queue}",
                 f"real_fsync={'on' if self.real_fsync else 'off'}"]
        if self.nodelay:
            opts.append("nodelay")
        return opts

    def to_args(self) -> list[str]:
        """Command-line arguments for the model: ``["-o", "rpm=7200.0,seek_min_ms=0.5,..."]``."""
        return ["-o", ",".join(self.to_options())]


# ---------------------------------------------------------------------- model

_PATTERNS = ("randread", "randwrite", "read", "write", "fsync", "write_fsync")


def _random_position_ms(m: DiskModel, span: int, disk_bytes: int, bs: int) -> float:
    """Mean positioning time between two uniformly random offsets ``span`` bytes apart at most."""
    x = np.linspace(0.0, float(span), 20001)
    w = 2.0 * (span - x) / float(span) ** 2          # density of |U1 - U2| * span
    frac = np.minimum(x / float(disk_bytes), 1.0)
    far = m.seek_min_ms + (m.full_stroke_ms - m.seek_min_ms) * np.sqrt(frac) + m.rotation_ms / 2
    # a near jump: half of them go forward (the gap rotates by, at most near_ms), half back
    fwd = np.minimum(m.transfer_ms(1) * x, m.near_ms) if m.transfer_mbps else np.zeros_like(x)
    near = 0.5 * fwd + 0.5 * m.near_ms
    cost = np.where(x <= m.near_bytes, near, far)
    integrate = getattr(np, "trapezoid", None) or np.trapz
    return float(integrate(cost * w, x))


def expected_service_ms(model: DiskModel, pattern: str, bs: int = 8192, span: int | None = None,
                        file_size: int | None = None) -> float:
    """The model's mean service time (ms) of one I/O of ``bs`` bytes at queue depth 1.

    ``pattern``: ``randread``/``randwrite`` (uniformly random offsets over ``span`` bytes),
    ``read``/``write`` (sequential stream), ``fsync`` (a flush with nothing to destage) or
    ``write_fsync`` (a sequential write followed by fsync, as fio's ``fsync=1``: the time
    of the pair).  ``file_size`` is the backing file's size (the seek curve's span when
    ``model.capacity`` is 0); ``span`` defaults to it.  At least one of ``span``,
    ``file_size`` or ``model.capacity`` is needed for random patterns.

    Assumptions, which the C program implements: sequential reads stream from the drive's
    read-ahead (transfer only); a sequential write with the write cache off waits about
    one revolution for its sector (less the application's turnaround, tens of µs, that is
    ignored here); with the write cache on, writes are quoted in steady state (the cache
    full, so the medium's rate bounds them); a burst smaller than ``cache_bytes`` sees only
    ``overhead_ms + bs / cache_mbps``.  The FUSE round trip (tens of µs) is not included.
    """
    m = model.validate().effective()
    if pattern not in _PATTERNS:
        raise ValueError(f"pattern={pattern!r}: allowed: {', '.join(_PATTERNS)}")
    if isinstance(bs, bool) or not isinstance(bs, (int, np.integer)) or bs <= 0:
        raise ValueError(f"bs={bs!r}: allowed: a positive number of bytes")
    xfer = m.transfer_ms(bs)
    ack = m.overhead_ms + m.transfer_ms(bs, m.cache_mbps)
    if pattern == "fsync":
        return m.flush_ms
    if pattern in ("read", "write", "write_fsync"):
        if pattern == "read":
            return m.overhead_ms + xfer
        if pattern == "write_fsync":
            if m.write_cache and bs <= m.cache_bytes:   # ack, destage (sequential), flush
                return ack + xfer + m.flush_ms
            return m.overhead_ms + m.rotation_ms + xfer + m.flush_ms
        if m.write_cache and bs <= m.cache_bytes:
            return max(ack, xfer)
        return m.overhead_ms + m.rotation_ms + xfer
    disk_bytes = m.capacity or file_size or span
    span = span or file_size or m.capacity
    if not disk_bytes or not span:
        raise ValueError("expected_service_ms: a random pattern needs span, file_size or "
                         "model.capacity (bytes)")
    mech = m.overhead_ms + _random_position_ms(m, int(span), int(disk_bytes), bs) + xfer
    if pattern == "randwrite" and m.write_cache and bs <= m.cache_bytes:
        return max(ack, mech - m.overhead_ms)
    return mech


# ---------------------------------------------------------------------- logs

def read_device_log(path: str | os.PathLike) -> pd.DataFrame:
    """One disk's per-I/O log (``LOGDIR/<disk>.log``) as :func:`perflab.fiolog.read_lat_log` reads it.

    Columns ``time_ms`` (ms since the mount, at completion), ``lat_ns`` (the device's
    service time), ``ddir`` (0 read, 1 write, 3 flush), ``bs``, ``offset`` (both 0 for a
    flush); ``df.attrs["disk"]`` is the disk's name.  A ``<disk>.wait.log`` has the same
    lines with the queue wait in ``lat_ns``.
    """
    df = read_lat_log(path)
    name = Path(path).name
    for suffix in (".wait.log", ".log"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    df.attrs["disk"] = name
    return df


def read_device_logs(log_dir: str | os.PathLike) -> pd.DataFrame:
    """Every disk's log in ``log_dir`` as one table, with a ``disk`` column, and ``wait_ns``
    when the mount wrote wait logs (``log_wait``); sorted by completion time."""
    log_dir = Path(log_dir)
    frames = []
    for p in sorted(log_dir.glob("*.log")):
        if p.name.endswith(".wait.log"):
            continue
        df = read_device_log(p)
        w = p.with_name(p.name[: -len(".log")] + ".wait.log")
        if w.exists():
            wait = read_lat_log(w)
            n = min(len(df), len(wait))          # a killed run may have flushed one more
            df = df.iloc[:n].copy()
            df["wait_ns"] = wait["lat_ns"].to_numpy()[:n]
        df.insert(0, "disk", df.attrs["disk"])
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["disk", "time_ms", "lat_ns", "ddir", "bs", "offset"])
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values("time_ms", kind="stable", ignore_index=True)


# ---------------------------------------------------------------------- binary

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
    r = subprocess.run(["make", "-s", "-C", str(source_dir)], capture_output=True, text=True)
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


# ---------------------------------------------------------------------- mounting

def _unescape_mountinfo(s: str) -> str:
    return (s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n")
            .replace("\\134", "\\"))


def _is_mounted(mountpoint: str) -> bool:
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                parts = line.split()
                if len(parts) > 4 and _unescape_mountinfo(parts[4]) == mountpoint:
                    return True
    except OSError:
        pass
    return False


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
    while _is_mounted(mountpoint):
        cmd = [tool, "-u", "-q", mountpoint] if tool else ["umount", mountpoint]
        subprocess.run(cmd, capture_output=True)
        if not _is_mounted(mountpoint):
            return
        if time.monotonic() > deadline:
            cmd = [tool, "-u", "-z", "-q", mountpoint] if tool else ["umount", "-l", mountpoint]
            subprocess.run(cmd, capture_output=True)
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
            timeout: float = 10.0) -> Iterator[SlowdiskMount]:
    """Mount ``backing_dir`` on ``mountpoint`` with slowdisk for the ``with`` block.

    Builds the binary if needed, starts it in the foreground (its own session, so a
    Ctrl-C reaches only Python, which then tears down in order), waits until the mount
    is live and yields a :class:`SlowdiskMount`.  On exit, also on an exception or
    KeyboardInterrupt: ``fusermount3 -u`` (lazy if still busy after a few seconds), then
    waits for the process, which flushes the device logs as it exits, and TERMs/KILLs
    only that process if it does not.  ``log_dir`` gets one ``<disk>.log`` per disk (and
    ``<disk>.wait.log`` with ``log_wait``); ``extra_options`` are more ``-o`` options
    (e.g. ``"allow_other"``).
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
    if _is_mounted(str(mp)):
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
                                    start_new_session=True)
        deadline = time.monotonic() + timeout
        while not _is_mounted(str(mp)):
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
