"""The disk model slowdisk emulates (perflab.infra.slowdisk): its parameters, as the mount's options, and
the mean service time it predicts for a pattern (`expected_service_ms`), so a chapter can compare
what it measured with what the model says."""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

#: mean of sqrt(|U1 - U2|) for independent uniform U1, U2 on [0, 1]: the mean random seek
#: is seek_min + (seek_max - seek_min) * 8/15 over the whole capacity.
SQRT_DIST_MEAN = 8.0 / 15.0

MIB = 1 << 20


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
