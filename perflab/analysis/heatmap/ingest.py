"""Heat maps from fio's logs, streamed: per-I/O latency logs and histogram logs.

:func:`from_lat_log` reads a per-I/O log in pieces of a few MB, parsed by pyarrow's CSV
reader on a second thread, and counts each piece with one ``np.bincount``;
:func:`from_hist_log` folds fio's histogram bins into the map's buckets.  Both count into
an accumulator whose memory never passes :data:`MAX_MAP_BYTES` (columns are widened
instead) and that places the logs' time stamps on one origin.
"""
from __future__ import annotations

import os
import queue
import threading
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv

from perflab.fio.logs import open_log, EPOCH_MIN_MS, HIST_MIN_FIELDS, FioLogError, check_last_line, find_bad_line, lat_log_columns, log_field_count, read_hist_log
from perflab.analysis.heatmap.buckets import Buckets, make_buckets
from perflab.analysis.heatmap.model import HeatMap, column_ms

__all__ = ["from_lat_log", "from_hist_log", "detect_log_kind", "log_paths", "MAX_MAP_BYTES"]

_DDIRS = {"read": 0, "write": 1, "trim": 2, "sync": 3}


def log_paths(paths) -> list[Path]:
    """``paths`` (one path, or several) as a list of Paths; refuses an empty list."""
    if isinstance(paths, (str, os.PathLike)):
        return [Path(paths)]
    out = [Path(p) for p in paths]
    if not out:
        raise ValueError("no log files given")
    return out


def _ddir_code(ddir) -> int | None:
    if ddir is None:
        return None
    if isinstance(ddir, str):
        if ddir not in _DDIRS:
            raise ValueError(f"ddir must be one of {sorted(_DDIRS)} or 0-3, not {ddir!r}")
        return _DDIRS[ddir]
    return int(ddir)


#: The counts array of a map being built never grows past this many bytes; a span that would
#: need more columns makes them wider (time is re-binned, and the map's notes say so).
MAX_MAP_BYTES = 256 << 20


class _Accumulator:
    """counts[column, bucket] (one extra bucket for the overflow), built from event times.

    Times are milliseconds on the logs' own clock. With a fixed ``origin_ms`` (a caller's
    ``t0_ms``), column 0 starts there and earlier events are dropped (and counted in
    ``dropped``). Without one, job-relative logs (stamps below :data:`EPOCH_MIN_MS`) count
    from 0, the job's start, and epoch-stamped logs from the column of their earliest event
    (columns from the first sample, whatever order the lines or files come in). Gaps stay
    empty columns. When the span would make the array larger than ``max_bytes``, columns are
    widened by powers of two (``col_ms`` grows) and what was counted is merged to match.
    """

    def __init__(self, nb: int, col_ms: int, origin_ms: int | None = None,
                 max_bytes: int = MAX_MAP_BYTES):
        self.nb = nb + 1
        self.col_ms = self.col_ms0 = int(col_ms)
        self.origin_ms = origin_ms
        self.max_cols = max(1, int(max_bytes) // (self.nb * 8))
        self.a = np.zeros((0, self.nb), np.int64)
        self.base: int | None = 0 if origin_ms is not None else None  # column index of row 0
        self.used = 0
        self.dropped = 0
        self.epoch: bool | None = None

    # -- columns --
    def _cols(self, t_ms: np.ndarray, where: str) -> np.ndarray:
        """Column index of each time (relative to the fixed origin, else absolute); events
        before a fixed origin are marked -1 for the caller to drop."""
        if self.origin_ms is not None:
            return np.floor_divide(t_ms - self.origin_ms, self.col_ms)
        if self.epoch is None:
            self.epoch = bool(t_ms.min() >= EPOCH_MIN_MS)
            if not self.epoch:
                self.base = 0
        if not self.epoch and t_ms.min() < 0:
            raise FioLogError(f"{where}: negative time stamp {int(t_ms.min())}")
        return np.floor_divide(t_ms, self.col_ms)

    def _coarsen(self, k: int) -> None:
        """Columns k times wider: merge every k (aligned) columns into one."""
        if self.base is None:   # nothing counted yet
            self.col_ms *= k
            return
        n = self.used
        old = np.arange(n, dtype=np.int64) + (self.base or 0)
        new_base = (self.base or 0) // k
        idx = old // k - new_base
        out = np.zeros((int(idx[-1]) + 1 if n else 0, self.nb), np.int64)
        if n:
            np.add.at(out, idx, self.a[:n])
        self.a, self.used, self.base = out, out.shape[0], new_base
        self.col_ms *= k

    def _place(self, c0: int, c1: int) -> None:
        """Make rows for columns c0..c1 (of the current width), growing or shifting the array."""
        base = c0 if self.base is None else min(self.base, c0)
        if self.base is not None and base < self.base:   # earlier than anything so far
            shift = self.base - base
            new = np.zeros((self.a.shape[0] + shift, self.nb), np.int64)
            new[shift:] = self.a
            self.a, self.used = new, self.used + shift
        self.base = base
        ncol = c1 - base + 1
        if ncol > self.a.shape[0]:
            new = np.zeros((max(ncol, self.a.shape[0] * 3 // 2), self.nb), np.int64)
            new[: self.a.shape[0]] = self.a
            self.a = new
        self.used = max(self.used, ncol)

    def _columns(self, t_ms: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
        """Row index of each time (after widening the columns as far as the memory cap needs and
        making room), and which times to count (those before a fixed origin are not: counted in
        ``dropped``)."""
        while True:
            col = self._cols(t_ms, where)
            keep = col >= 0 if self.origin_ms is not None else np.ones(len(col), bool)
            if not keep.any():
                self.dropped += len(col)
                return col, keep
            c0, c1 = int(col[keep].min()), int(col[keep].max())
            lo = c0 if self.base is None else min(self.base, c0)
            hi = max(c1, (self.base or 0) + self.used - 1)
            if hi - lo + 1 <= self.max_cols:
                break
            k = 2
            while (hi // k - lo // k + 1) > self.max_cols:
                k *= 2
            self._coarsen(k)
        self.dropped += int((~keep).sum())
        self._place(c0, c1)
        return col - self.base, keep

    def add_events(self, t_ms: np.ndarray, bucket: np.ndarray, where: str) -> None:
        """Count events at times ``t_ms`` (ms) in buckets ``bucket``."""
        if len(t_ms) == 0:
            return
        col, keep = self._columns(t_ms, where)
        if not keep.all():
            col, bucket = col[keep], bucket[keep]
        if len(col) == 0:
            return
        c0, c1 = int(col.min()), int(col.max())
        flat = (col - c0) * self.nb + bucket
        bc = np.bincount(flat, minlength=(c1 - c0 + 1) * self.nb)
        self.a[c0:c1 + 1] += bc.reshape(-1, self.nb)

    def add_rows(self, t_ms: np.ndarray, rows: np.ndarray, where: str = "") -> None:
        """Add ``rows[i]`` (counts per bucket, overflow last) at time ``t_ms[i]``."""
        if len(t_ms) == 0:
            return
        col, keep = self._columns(t_ms, where)
        if keep.any():
            np.add.at(self.a, col[keep], rows[keep])

    def origin(self) -> int:
        """The map's t0_ms: the fixed origin, 0 for job-relative logs, else column 0's start."""
        if self.origin_ms is not None:
            return int(self.origin_ms)
        return int((self.base or 0) * self.col_ms)

    def notes(self) -> list[str]:
        out = []
        if self.col_ms != self.col_ms0:
            out.append(f"time re-binned to {self.col_ms / 1000:g} s columns (asked: "
                       f"{self.col_ms0 / 1000:g} s) to keep the map under "
                       f"{self.max_cols * self.nb * 8 >> 20} MiB")
        if self.dropped:
            out.append(f"{self.dropped:,} I/Os from before t = 0 (the time origin the map was drawn from) are not shown")
        return out

    def result(self, buckets: Buckets, trim_linear: bool):
        a = self.a[: self.used]
        counts, over = a[:, :-1], a[:, -1].copy()
        edges = buckets.edges_ns
        if trim_linear and counts.size:
            nz = np.flatnonzero(counts.any(axis=0))
            top = int(nz[-1]) + 1 if len(nz) else 1
            counts, edges = counts[:, :top], edges[: top + 1]
        return edges, np.ascontiguousarray(counts), over


def _prefetch(it: Iterator, depth: int = 3) -> Iterator:
    """Run ``it`` on a second thread (pyarrow parses without the GIL) while we count."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def put(x) -> bool:
        while not stop.is_set():
            try:
                q.put(x, timeout=0.1)
                return True
            except queue.Full:
                pass
        return False

    def work():
        try:
            for item in it:
                if not put((item, None)):
                    return
            put((done, None))
        except BaseException as exc:  # handed to the consumer
            put((done, exc))

    th = threading.Thread(target=work, name="perflab-csv", daemon=True)
    th.start()
    try:
        while True:
            item, exc = q.get()
            if item is done:
                if exc is not None:
                    raise exc
                return
            yield item
    finally:
        stop.set()
        th.join(timeout=5)


def _lat_chunks(path: Path, names: list[str], include: list[str], chunk_bytes: int) -> Iterator:
    """Tables of ``include`` columns, one per ``chunk_bytes`` of whole lines of the file.

    The file is read into one reused buffer, cut after its last newline, and each piece
    is parsed by ``pyarrow.csv.read_csv`` (its blocks in parallel); the partial line at
    the end moves to the front of the buffer for the next read.  Memory stays at about
    the buffer plus two parsed pieces, whatever the file's size.
    """
    size = chunk_bytes if str(path).endswith(".gz") else path.stat().st_size
    buf = bytearray(max(1024, min(chunk_bytes, size + 1)))
    view = memoryview(buf)
    ro = pcsv.ReadOptions(column_names=names, use_threads=True,
                          block_size=max(1024, min(1 << 20, len(buf) // 2)))
    co = pcsv.ConvertOptions(include_columns=include, column_types={c: pa.int64() for c in include})
    have = 0
    with open_log(path, buffering=0) as f:
        while True:
            n = f.readinto(view[have:])
            end = have + n
            if not n:
                if have:   # the file changed since check_last_line, or a line longer than buf
                    raise pa.ArrowInvalid("line without newline")
                return
            cut = buf.rfind(b"\n", 0, end) + 1
            if cut:
                yield pcsv.read_csv(pa.py_buffer(view[:cut]), read_options=ro, convert_options=co)
            view[: end - cut] = view[cut:end]
            have = end - cut


def from_lat_log(paths, col_s: float = 1.0, sub: int = 8, linear_ns: int | None = None,
                 ddir=None, *, floor_ns: int = 128, ceil_ns: int = 2 ** 34,
                 linear_max_ns: int | None = None, block_size: int = 4 << 20,
                 t0_ms: int | None = None, max_bytes: int = MAX_MAP_BYTES) -> HeatMap:
    """Heat map of one or more per-I/O latency logs (``log_avg_msec=0``), streamed.

    Each file is read in pieces of ``block_size`` bytes, parsed by pyarrow's CSV reader
    on a second thread (time and latency columns only, plus ddir when ``ddir`` filters
    on it: 0-3 or "read"/"write"/"trim"/"sync"); each piece's bucket numbers are computed
    arithmetically and counted with one ``np.bincount`` over ``column * n_buckets +
    bucket``.  Several logs share the time origin of their time column (the job's
    start) and are summed.  ``linear_ns`` switches to linear buckets of that width, up
    to ``linear_max_ns`` (default: up to 1024 buckets, trimmed to the highest non-empty
    one).  A damaged log raises :class:`~perflab.fio.logs.FioLogError` naming file and line.
    """
    col_ms = column_ms(col_s)
    buckets = make_buckets(sub, linear_ns, floor_ns, ceil_ns, linear_max_ns)
    want = _ddir_code(ddir)
    acc = _Accumulator(buckets.n, col_ms, t0_ms, max_bytes)
    files = log_paths(paths)
    for path in files:
        nf = log_field_count(path)
        if nf == 0:
            continue
        names = lat_log_columns(nf, path)
        check_last_line(path)
        # ddir is parsed even when no filter needs it: a log whose ddir field is not a number is
        # damaged, and is refused rather than drawn
        include = ["time_ms", "lat_ns", "ddir"]
        tables = _prefetch(_lat_chunks(path, names, include, block_size), depth=2)
        try:
            for table in tables:
                for chunks in zip(*(table.column(i).chunks for i in range(len(include)))):
                    if any(c.null_count for c in chunks):
                        raise pa.ArrowInvalid("empty field")
                    tm, lat = chunks[0].to_numpy(), chunks[1].to_numpy()
                    if want is not None:
                        keep = chunks[2].to_numpy() == want
                        tm, lat = tm[keep], lat[keep]
                    acc.add_events(tm, buckets.index(lat), str(path))
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise find_bad_line(path, nf, exc) from None
        finally:
            tables.close()
    edges, counts, over = acc.result(buckets, trim_linear=bool(linear_ns) and linear_max_ns is None)
    return HeatMap(edges, counts, acc.col_ms / 1000, acc.origin(), over, tuple(map(str, files)),
                   "per-io", buckets.scale, True, acc.notes())


def _fold_map(buckets: Buckets, fio_edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bucket of each fio bin (by its midpoint) and whether the bin lies wholly inside it."""
    lo, hi = fio_edges[:-1], fio_edges[1:]
    by_mid = buckets.index(lo + (hi - lo) // 2)
    exact = (buckets.index(lo) == by_mid) & (buckets.index(hi - 1) == by_mid)
    return by_mid, exact


def from_hist_log(paths, col_s: float = 1.0, sub: int = 8, linear_ns: int | None = None,
                  ddir=None, *, floor_ns: int = 128, ceil_ns: int = 2 ** 34,
                  linear_max_ns: int | None = None, t0_ms: int | None = None,
                  max_bytes: int = MAX_MAP_BYTES) -> HeatMap:
    """Heat map of one or more fio histogram logs (``write_hist_log``, ``log_hist_msec``).

    fio's 1856 bins are folded into the buckets.  For log-linear buckets every fio bin
    lies inside one bucket, so the fold is exact.  Otherwise (linear buckets, or a
    floor/ceiling that cuts fio bins) each fio bin goes whole to the bucket that holds
    its midpoint; :attr:`HeatMap.exact` is then False if any non-empty bin straddled a
    bucket edge, and a note says so.  Each line's time stamp is the END of its interval
    (which began at the previous line of the same ddir, or at 0); the line's counts go
    to the column holding the interval's midpoint.  The last, partial interval of a run
    is often missing from a histogram log.  Time origins, gaps, order and the memory cap
    are handled as in :func:`from_lat_log`.
    """
    col_ms = column_ms(col_s)
    buckets = make_buckets(sub, linear_ns, floor_ns, ceil_ns, linear_max_ns)
    want = _ddir_code(ddir)
    acc = _Accumulator(buckets.n, col_ms, t0_ms, max_bytes)
    files = log_paths(paths)
    exact_all = True
    for path in files:
        h = read_hist_log(path)
        if len(h.time_ms) == 0:
            continue
        start = h.interval_start_ms()
        sel = slice(None) if want is None else (h.ddir == want)
        tm, start, counts = h.time_ms[sel], start[sel], h.counts[sel]
        asg, exact = _fold_map(buckets, h.edges_ns)
        used = counts.any(axis=0)
        exact_all &= bool(exact[used].all())
        firsts = np.flatnonzero(np.r_[True, asg[1:] != asg[:-1]])
        sums = np.add.reduceat(counts, firsts, axis=1) if counts.size else counts[:, :0]
        rows = np.zeros((len(tm), buckets.n + 1), np.int64)
        rows[:, asg[firsts]] = sums
        acc.add_rows((start + tm) // 2, rows, str(path))   # each interval at its midpoint
    edges, counts, over = acc.result(buckets, trim_linear=bool(linear_ns) and linear_max_ns is None)
    notes = [] if exact_all else ["some fio histogram bins straddle bucket edges and were "
                                  "assigned to a bucket by their midpoint"]
    return HeatMap(edges, counts, acc.col_ms / 1000, acc.origin(), over, tuple(map(str, files)),
                   "hist", buckets.scale, exact_all, notes + acc.notes())


def detect_log_kind(path: str | os.PathLike) -> str | None:
    """"hist" for a histogram log (> 100 fields a line), "per-io" otherwise, None if empty."""
    nf = log_field_count(path)
    if nf == 0:
        return None
    return "hist" if nf > HIST_MIN_FIELDS else "per-io"
