"""Tracers' text, read as :class:`~perflab.analysis.heatmap.sources.Events` pieces.

Four forms a storage engineer already has (``perflab heatmap --trace FORM``):

``bpftrace``
    One line per I/O: ``time_ns latency_ns [dimension ...]``, fields separated by blanks; a line
    ``# name name ...`` names the fields (else they are ``dim1``, ``dim2``, ...); a field named
    ``offset_bytes`` is the I/O's offset (for offset maps).  bpftrace's own ``Attaching N
    probes...`` line and empty lines are skipped.  ``scripts/block-latency.bt`` writes this form
    from the kernel's block tracepoints.
``biosnoop``
    bcc's ``biosnoop`` (and ``biosnoop -Q``): a header ``TIME(s) COMM PID DISK T SECTOR BYTES
    [QUE(ms)] LAT(ms)`` then a line per I/O; a process name with blanks in it is kept whole.
    Latency has biosnoop's resolution (10 us: two decimals of a millisecond).
``blkparse``
    blkparse's default output: each ``D`` (issued to the driver) is paired with the ``C``
    (completed) of the same device and sector; the latency is the time between them.  Other
    actions and blkparse's closing summary are skipped.
``trace2heatmap``
    The input of Brendan Gregg's trace2heatmap.pl, which his DTrace, perf and bpftrace one-liners
    print: two numbers a line, a time and a latency, and an optional header line (one with letters
    in it, as trace2heatmap.pl takes it: ``TIMEus DELTAus``). Units as trace2heatmap.pl's
    ``--unitstime`` (s, ms, us, ns; default s) and, for the latency, ``--units-latency``; where the
    options leave one out, a header name that ends in a unit gives it (``TIMEus``: microseconds),
    and a latency of no known unit is refused (trace2heatmap.pl only labels it; a map needs it).
    Lines with fewer than two fields (``[...]`` pasted from a tool's output) are skipped, as
    trace2heatmap.pl skips them, and counted in the map's notes; a line whose first two fields are
    not numbers is refused, named.

Time stamps count from the tracer's own origin (boot, or the trace's start): the map's columns
start at the first I/O.  Dimensions: ``disk``, ``op``, ``comm``, ``pid`` where the form has them.
Lines are parsed in Python, in pieces of :data:`PIECE_LINES` lines (about a million lines a
second: tracer output is far smaller than fio's per-I/O logs).  A line that is not of the form
raises :class:`~perflab.fio.logs.FioLogError` naming the file and the line.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterator

import numpy as np

from perflab.fio.logs import FioLogError, open_log
from perflab.analysis.heatmap.sources import Dim, Events

__all__ = ["FORMS", "PIECE_LINES", "UNITS_NS", "trace_events"]

FORMS = ("bpftrace", "biosnoop", "blkparse", "trace2heatmap")
#: trace2heatmap.pl's time units, as nanoseconds
UNITS_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
PIECE_LINES = 200_000


class _Piece:
    """The columns of the piece being read (times and latencies in ns, offsets, dimension labels),
    handed on as :class:`Events` every :data:`PIECE_LINES` I/Os and at the end."""

    def __init__(self, dims: list[str], where: str, has_offset: bool):
        self.dims, self.where, self.has_offset = dims, where, has_offset
        self._clear()

    def _clear(self) -> None:
        self.t: list[int] = []
        self.lat: list[int] = []
        self.off: list[int] = []
        self.labels: dict[str, list[str]] = {d: [] for d in self.dims}

    def add(self, t_ns: int, lat_ns: int, offset: int, labels) -> bool:
        """Add one I/O (``labels`` in the order of ``dims``); True when the piece is full."""
        self.t.append(t_ns)
        self.lat.append(lat_ns)
        self.off.append(offset)
        for d, v in zip(self.dims, labels):
            self.labels[d].append(v)
        return len(self.t) >= PIECE_LINES

    def flush(self) -> Iterator[Events]:
        """The piece as Events (nothing when it is empty), and a new, empty piece."""
        if not self.t:
            return
        dims = {}
        for name, vals in self.labels.items():
            labels, codes = np.unique(np.array(vals, dtype=object).astype(str), return_inverse=True)
            dims[name] = Dim(codes.astype(np.int64), tuple(str(x) for x in labels))
        t = np.array(self.t, np.int64)
        ev = Events(t // 1_000_000, np.array(self.lat, np.int64),
                    np.array(self.off, np.int64) if self.has_offset else None, dims, self.where)
        self._clear()
        yield ev


def _bad(path, lineno: int, line: str, what: str) -> FioLogError:
    return FioLogError(f"{path}:{lineno}: {what}: {line.strip()[:120]!r}")


def _bpftrace(path: Path) -> Iterator[Events]:
    names: list[str] | None = None
    piece: _Piece | None = None
    with open_log(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.decode(errors="replace")
            s = line.strip()
            if not s or s.startswith("Attaching ") and s.endswith("probes..."):
                continue
            if s.startswith("#"):
                names = s.lstrip("#").split()
                if len(names) < 2:
                    raise _bad(path, lineno, line, "a header names at least time_ns and latency_ns")
                continue
            parts = s.split()
            if names is None:
                names = ["time_ns", "latency_ns"] + [f"dim{i}" for i in range(1, len(parts) - 1)]
            if len(parts) != len(names):
                raise _bad(path, lineno, line, f"{len(parts)} fields, the header names {len(names)}")
            if piece is None:
                piece = _Piece([n for n in names[2:] if n != "offset_bytes"], str(path), "offset_bytes" in names)
            try:
                t, lat = int(parts[0]), int(parts[1])
                off = int(parts[names.index("offset_bytes")]) if "offset_bytes" in names else 0
            except ValueError:
                raise _bad(path, lineno, line, "not time_ns latency_ns as integers") from None
            if t < 0 or lat < 0:
                raise _bad(path, lineno, line, "a negative time or latency")
            if piece.add(t, lat, off, [v for n, v in zip(names[2:], parts[2:]) if n != "offset_bytes"]):
                yield from piece.flush()
    if piece is not None:
        yield from piece.flush()


_BIOSNOOP_TAIL = ("DISK", "T", "SECTOR", "BYTES")


def _biosnoop(path: Path) -> Iterator[Events]:
    header: list[str] | None = None
    piece = _Piece(["comm", "pid", "disk", "op"], str(path), True)
    with open_log(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.decode(errors="replace")
            s = line.strip()
            if not s:
                continue
            if header is None:
                if s.startswith("TIME(s)"):
                    header = s.split()
                    need = {"TIME(s)", "COMM", "PID", "LAT(ms)", *_BIOSNOOP_TAIL}
                    if not need <= set(header) or header[1] != "COMM":
                        raise _bad(path, lineno, line, "not biosnoop's header (TIME(s) COMM PID DISK T "
                                   "SECTOR BYTES [QUE(ms)] LAT(ms))")
                    continue
                raise _bad(path, lineno, line, "no biosnoop header (TIME(s) COMM ...) before the first I/O")
            parts = s.split()
            extra = len(parts) - len(header)
            if extra < 0:
                raise _bad(path, lineno, line, f"{len(parts)} fields, biosnoop's header has {len(header)}")
            if extra:   # a process name with blanks: the fields after COMM are counted from the right
                parts = [parts[0], " ".join(parts[1:2 + extra])] + parts[2 + extra:]
            row = dict(zip(header, parts))
            try:
                t_ns = round(float(row["TIME(s)"]) * 1e9)
                lat_ns = round(float(row["LAT(ms)"]) * 1e6)
                off = int(row["SECTOR"]) * 512
                int(row["PID"])
            except ValueError:
                raise _bad(path, lineno, line, "TIME(s), PID, SECTOR or LAT(ms) is not a number") from None
            if piece.add(t_ns, lat_ns, off, [row[k] for k in ("COMM", "PID", "DISK", "T")]):
                yield from piece.flush()
    if header is None:
        raise FioLogError(f"{path}: no biosnoop header (TIME(s) COMM PID DISK T SECTOR BYTES ... LAT(ms))")
    yield from piece.flush()


# dev cpu seq time pid action rwbs sector + blocks [comm or error]
_BLK = re.compile(r"^\s*(\d+,\d+)\s+\d+\s+\d+\s+(\d+)\.(\d{9})\s+\d+\s+([A-Z]+)\s+([A-Z]+)\s+(\d+)\s+\+\s+(\d+)"
                  r"(?:\s+\[(.*)\])?\s*$")
_BLK_OTHER = re.compile(r"^\s*\d+,\d+\s+\d+\s+\d+\s+\d+\.\d+\s+\d+\s+[A-Za-z]+\b")
_BLK_TRAILER = re.compile(r"^(CPU\d+|Total)\b|^\s+[A-Za-z][A-Za-z ]*:|^\s*Events\b|^Throughput|^Skips\b")


def _blkparse(path: Path) -> Iterator[Events]:
    issued: dict[tuple[str, int], tuple[int, str]] = {}
    piece = _Piece(["disk", "op", "comm"], str(path), True)
    with open_log(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.decode(errors="replace")
            if not line.strip():
                continue
            m = _BLK.match(line)
            if m is None:
                if _BLK_OTHER.match(line) or _BLK_TRAILER.match(line):
                    continue   # an action without a sector range (plug, unplug, ...), or the summary
                raise _bad(path, lineno, line, "not a blkparse line (dev cpu seq time pid action rwbs ...)")
            dev, sec, nsec, action, rwbs, sector, _blocks, note = m.groups()
            t_ns = int(sec) * 1_000_000_000 + int(nsec)
            key = (dev, int(sector))
            if action == "D":
                issued[key] = (t_ns, note or "")
            elif action == "C" and key in issued:
                t0, comm = issued.pop(key)
                if piece.add(t_ns, t_ns - t0, int(sector) * 512, [dev, rwbs, comm]):
                    yield from piece.flush()
    yield from piece.flush()


def _header_unit(name: str) -> str | None:
    """The unit a header name ends in (TIMEus: us; LAT_ms: ms), or None."""
    m = re.search(r"(?<=[A-Za-z_(])(ns|us|ms|s)\)?$", name)
    return m.group(1) if m else None


def _two_columns(path: Path, units: tuple[str | None, str | None]) -> Iterator[Events]:
    unit_t, unit_lat = units
    piece = _Piece([], str(path), False)
    skipped, first_skipped, seen = 0, None, False
    with open_log(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.decode(errors="replace")
            parts = line.split()
            if not seen and re.search(r"[A-Za-z]", line):     # the header, as trace2heatmap.pl takes it
                seen = True
                if len(parts) >= 2:
                    unit_t = unit_t or _header_unit(parts[0])
                    unit_lat = unit_lat or _header_unit(parts[1])
                continue
            if len(parts) < 2:
                if parts:
                    skipped += 1
                    first_skipped = first_skipped or (lineno, line.strip()[:40])
                continue
            if not seen:
                seen = True
            if unit_lat is None:
                raise FioLogError(f"{path}: the latency's units are not known: give --units-latency (s, ms, us or "
                                  f"ns), or a header that names them (TIMEus DELTAus)")
            try:
                t, lat = float(parts[0]), float(parts[1])
            except ValueError:
                raise _bad(path, lineno, line, "not a time and a latency (two numbers)") from None
            if t < 0 or lat < 0:
                raise _bad(path, lineno, line, "a negative time or latency")
            if piece.add(round(t * UNITS_NS[unit_t or "s"]), round(lat * UNITS_NS[unit_lat]), 0, []):
                yield from piece.flush()
    yield from piece.flush()
    if skipped:
        n, text = first_skipped
        yield Events(np.zeros(0, np.int64), np.zeros(0, np.int64), where=str(path), notes=(
            f"{path.name}: {skipped:,} line{'s' if skipped > 1 else ''} with fewer than two fields skipped "
            f"(the first, line {n}: {text!r})",))


def trace_events(path: str | os.PathLike, form: str,
                 units: tuple[str | None, str | None] = (None, None)) -> Iterator[Events]:
    """:class:`Events` pieces of one tracer output file of form ``form`` (see the module); ``units``
    (time, latency) for a trace2heatmap trace."""
    if form not in FORMS:
        raise ValueError(f"--trace must be one of {', '.join(FORMS)}, not {form!r}")
    for u in units:
        if u is not None and u not in UNITS_NS:
            raise ValueError(f"a unit is one of {', '.join(UNITS_NS)}, not {u!r}")
    if form != "trace2heatmap" and units != (None, None):
        raise ValueError(f"--units-time and --units-latency are for --trace trace2heatmap, not {form}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if form == "trace2heatmap":
        return _two_columns(path, units)
    return {"bpftrace": _bpftrace, "biosnoop": _biosnoop, "blkparse": _blkparse}[form](path)
