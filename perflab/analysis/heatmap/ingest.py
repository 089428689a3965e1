"""Heat maps counted from event streams: fio's per-I/O and histogram logs, tracers' output.

:func:`from_events` counts :class:`~perflab.analysis.heatmap.sources.Events` pieces into one
map, or one per value of a dimension (``by``), whose rows are latency buckets, disk offsets or
the time within the second (``what``).  :func:`from_lat_log` and :func:`from_trace` feed it from
fio's per-I/O logs and from block-layer tracers' text; :func:`from_hist_log` folds fio's
histogram bins into latency buckets.  All count into accumulators whose memory never passes
:data:`MAX_MAP_BYTES` (columns are widened instead) and place the sources' time stamps on one
origin.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np

from perflab.fio import clients
from perflab.fio.logs import (EPOCH_MIN_MS, HIST_MIN_FIELDS, FioLogError, HistLog, averaged_log, fio_hist_limit_ns,
                              log_field_count, read_hist_log)
from perflab.analysis.heatmap.accumulate import MAX_MAP_BYTES, Accumulator
from perflab.analysis.heatmap.buckets import Buckets, make_buckets
from perflab.analysis.heatmap.model import Y_KINDS, HeatMap, aligned, column_ms, pad_rows

if TYPE_CHECKING:   # the readers are imported where used: a histogram log needs neither
    from perflab.analysis.heatmap.sources import Events

__all__ = ["MapBuilder", "from_events", "from_lat_log", "from_hist_log", "from_trace", "detect_log_kind", "log_paths",
           "hist_line_times", "hist_period_ms", "MAX_MAP_BYTES", "MAX_DIM_VALUES", "OFFSET_ROWS",
           "DEFAULT_HIST_PERIOD_MS"]

_DDIRS = {"read": 0, "write": 1, "trim": 2, "sync": 3}
#: A drill-down draws at most this many values of its dimension; later ones share one map, "other".
MAX_DIM_VALUES = 32
#: Rows of an offset map: the row height doubles until the largest offset fits in this many.
OFFSET_ROWS = 256
#: The period (log_hist_msec) of a histogram log whose stamps cannot show it (one line a direction):
#: the interval fio's own parser assumes unless told, and every lab's log_hist_msec in this book.
DEFAULT_HIST_PERIOD_MS = 1000


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


class _Rows:
    """What a map's rows count, and each event's row.

    ``latency``: the buckets (log-linear or linear).  ``offset``: linear rows from 0, ``row``
    bytes high (given, or a power-of-two multiple of 4 KiB that grows, merging rows exactly, until
    the largest offset fits in :data:`OFFSET_ROWS` rows).  ``subsecond``: the time of the event
    within its second, in rows of ``row`` ns (FlameScope's view: periodic stalls line up).
    """

    def __init__(self, what: str, buckets: Buckets | None = None, row: int | None = None):
        if what not in Y_KINDS:
            raise ValueError(f"what must be one of {', '.join(Y_KINDS)}, not {what!r}")
        if row is not None and row < 1:
            raise ValueError(f"a row must be at least 1 high, not {row}")
        self.what, self.buckets, self.fixed = what, buckets, row is not None
        if what == "latency":
            self.n = buckets.n
        elif what == "offset":
            self.row = int(row) if row else 4096
            self.n = OFFSET_ROWS if not row else 1024
        else:
            self.row = int(row or 20_000_000)
            if not 1_000_000 <= self.row <= 1_000_000_000 or 1_000_000_000 % self.row:
                raise ValueError(f"a subsecond row must be a whole number of ms that divides a second, "
                                 f"not {self.row / 1e6:g} ms")
            self.n = 1_000_000_000 // self.row

    def needs(self) -> set[str]:
        return {"latency": {"lat"}, "offset": {"offset"}, "subsecond": set()}[self.what]

    def widen_for(self, ev: Events) -> int:
        """Offset rows: the factor (a power of two) the row height must grow by for this piece."""
        if self.what != "offset" or self.fixed or not len(ev):
            return 1
        top = int(ev.offset.max())
        k = 1
        while top // (self.row * k) >= self.n:
            k *= 2
        self.row *= k
        return k

    def index(self, ev: Events) -> np.ndarray:
        if self.what == "latency":
            return ev.row if ev.row is not None else self.buckets.index(ev.lat_ns)
        if self.what == "offset":
            return np.minimum(ev.offset // self.row, self.n)
        return (ev.t_ms % 1000) * 1_000_000 // self.row

    def edges(self) -> np.ndarray:
        if self.what == "latency":
            return self.buckets.edges_ns
        return np.arange(self.n + 1, dtype=np.int64) * self.row


class MapBuilder:
    """Event pieces counted into a map as they come: :func:`from_events`'s counting, kept between
    calls (perflab.analysis.heatmap.live adds the lines a growing file gains). ``add`` one piece at a
    time; ``result()`` is the map so far (or, with ``by``, the maps), and may be asked for again."""

    def __init__(self, *, what: str = "latency", by: str | None = None, col_s: float = 1.0,
                 buckets: Buckets | None = None, row: int | None = None, t0_ms: int | None = None,
                 max_bytes: int = MAX_MAP_BYTES, from_first: bool = False):
        self.buckets = buckets if buckets is not None else Buckets.loglinear()
        self.what, self.by = what, by
        self.rows = _Rows(what, self.buckets, row)
        self.col_ms = column_ms(col_s)
        self.t0_ms, self.max_bytes, self.from_first = t0_ms, max_bytes, from_first
        self.accs: dict[str, Accumulator] = {}
        self.other = False
        self.said: list[str] = []

    def _acc(self, label: str) -> Accumulator:
        if label not in self.accs:
            self.accs[label] = Accumulator(self.rows.n, self.col_ms, self.t0_ms, self.max_bytes, self.from_first)
        return self.accs[label]

    def add(self, ev: Events) -> None:
        self.said += [n for n in ev.notes if n not in self.said]
        if not len(ev):
            return
        if self.what == "offset" and ev.offset is None:
            raise FioLogError(f"{ev.where}: has no offsets: an offset map needs them")
        k = self.rows.widen_for(ev)
        if k > 1:
            for a in self.accs.values():
                a.coarsen_rows(k)
        r = self.rows.index(ev)
        if self.by is None:
            self._acc("").add_events(ev.t_ms, r, ev.where)
            return
        if self.by not in ev.dims:
            raise ValueError(f"cannot drill down by {self.by!r}: {ev.where or 'this source'} has "
                             f"{', '.join(sorted(ev.dims)) or 'no dimensions'}")
        d = ev.dims[self.by]
        for code in np.unique(d.codes):
            label = d.labels[int(code)]
            if label not in self.accs and len(self.accs) >= MAX_DIM_VALUES:
                label, self.other = "other", True
            sel = d.codes == code
            self._acc(label).add_events(ev.t_ms[sel], r[sel], ev.where)

    def add_rows(self, t_ms: np.ndarray, rows: np.ndarray) -> None:
        """Counts already in rows (one row of counts per time, the overflow last: a histogram a
        second, such as fio's reports' latency bins), for a map without ``by``."""
        self._acc("").add_rows(t_ms, rows)

    def result(self, kind: str = "per-io", sources: Iterable[str] = (),
               trim: bool = False) -> HeatMap | dict[str, HeatMap]:
        what, by, buckets = self.what, self.by, self.buckets
        sources = tuple(sources)
        edges = self.rows.edges()
        trim = trim or what == "offset"
        maps = {}
        for label, a in self.accs.items():
            e, counts, over = a.result(edges, trim)
            notes = self.said + a.notes() + ([f"{by} has more than {MAX_DIM_VALUES} values: the later ones are "
                                              "drawn together as 'other'"] if self.other else [])
            maps[label] = HeatMap(e, counts, a.col_ms / 1000, a.origin(), over, sources, kind,
                                  "log-linear" if what == "latency" and buckets.scale == "log-linear" else "linear",
                                  True, notes, what)
        if by is None:
            if not maps:
                e = edges[:2] if trim else edges
                return HeatMap(e, np.zeros((0, len(e) - 1), np.int64), self.col_ms / 1000, self.t0_ms or 0, None,
                               sources, kind, "linear" if what != "latency" else buckets.scale, True,
                               list(self.said), what)
            return maps[""]
        if trim and maps:   # drill-down maps share rows too: the tallest one's
            tall = max((m.edges_ns for m in maps.values()), key=len)
            maps = {k: pad_rows(m, tall) for k, m in maps.items()}
        out = aligned(maps)
        return dict(sorted(out.items(), key=lambda kv: (kv[0] == "other", -kv[1].total, kv[0])))


def from_events(pieces: Iterable[Events], *, what: str = "latency", by: str | None = None,
                col_s: float = 1.0, buckets: Buckets | None = None, row: int | None = None,
                t0_ms: int | None = None, max_bytes: int = MAX_MAP_BYTES, kind: str = "per-io",
                sources: Iterable[str] = (), trim: bool = False,
                from_first: bool = False) -> HeatMap | dict[str, HeatMap]:
    """Count event pieces into a map (or, with ``by``, one map per value of that dimension, on one
    time axis, largest first).

    ``what`` is "latency" (rows: ``buckets``, log-linear with 8 sub-buckets by default),
    "offset" (rows ``row`` bytes high, or grown as needed from 4 KiB) or "subsecond" (rows
    ``row`` ns of the second the I/O ended in, default 20 ms).  ``trim`` drops empty rows above
    the last non-empty one; ``from_first`` starts the columns at the first event whatever its
    stamp (tracers' clocks count from boot).
    """
    builder = MapBuilder(what=what, by=by, col_s=col_s, buckets=buckets, row=row, t0_ms=t0_ms,
                         max_bytes=max_bytes, from_first=from_first)
    for ev in pieces:
        builder.add(ev)
    return builder.result(kind, sources, trim)


def _filtered(pieces: Iterator[Events], want: int | None) -> Iterator[Events]:
    for ev in pieces:
        yield ev if want is None else ev.take(ev.dims["op"].codes == want)


def _lat_pieces(files: list[Path], need: set[str], engine: str, block_size: int,
                buckets: Buckets | None) -> Iterator[Events]:
    from perflab.analysis.heatmap.sources import fio_events

    for path in files:
        yield from fio_events(path, need, engine, block_size, buckets, copy=False)


def from_lat_log(paths, col_s: float = 1.0, sub: int = 8, linear_ns: int | None = None,
                 ddir=None, *, floor_ns: int = 128, ceil_ns: int = 2 ** 34,
                 linear_max_ns: int | None = None, block_size: int = 4 << 20,
                 t0_ms: int | None = None, max_bytes: int = MAX_MAP_BYTES, what: str = "latency",
                 by: str | None = None, row: int | None = None,
                 engine: str = "auto") -> HeatMap | dict[str, HeatMap]:
    """Heat map of one or more per-I/O latency logs (``log_avg_msec=0``), streamed.

    Each file is read in pieces of ``block_size`` bytes of whole lines, parsed on two threads
    (see :mod:`~perflab.analysis.heatmap.sources`), keeping the time, latency and ddir fields
    (every field is checked); ``ddir`` keeps one direction (0-3 or "read"/"write"/"trim"/"sync").
    Each piece's bucket numbers are computed arithmetically and counted with one ``np.bincount``
    over ``column * n_buckets + bucket``.  Several logs share the time origin of their time
    column (the job's start, or the epoch with ``log_unix_epoch=1``) and are summed.
    ``linear_ns`` switches to linear buckets of that width, up to ``linear_max_ns`` (default: up
    to 1024 buckets, trimmed to the highest non-empty one).  ``what`` and ``by`` as in
    :func:`from_events` (``by``: op, job, client, file; an offset map needs ``log_offset=1``).  A
    damaged log raises :class:`~perflab.fio.logs.FioLogError` naming file and line.
    """
    buckets = make_buckets(sub, linear_ns, floor_ns, ceil_ns, linear_max_ns)
    want = _ddir_code(ddir)
    files = log_paths(paths)
    averaged = [str(p) for p in files if averaged_log(p)]
    if averaged:
        raise FioLogError(f"{', '.join(averaged)}: a log of fio's averages (log_avg_msec; block size 0 on every "
                          "line): each line is an interval's mean, not one I/O's, so it makes no heat map; "
                          "log each I/O (log_avg_msec=0) or write a histogram log (write_hist_log)")
    rows = _Rows(what, buckets, row)
    need = rows.needs() | ({"op"} if want is not None or by == "op" else set())
    pieces = _filtered(_lat_pieces(files, need, engine, block_size, buckets if what == "latency" else None), want)
    return from_events(pieces, what=what, by=by, col_s=col_s, buckets=buckets, row=row, t0_ms=t0_ms,
                       max_bytes=max_bytes, kind="per-io", sources=map(str, files),
                       trim=bool(linear_ns) and linear_max_ns is None)


def from_trace(paths, form: str, col_s: float = 1.0, sub: int = 8, linear_ns: int | None = None, *,
               what: str = "latency", by: str | None = None, row: int | None = None,
               t0_ms: int | None = None, max_bytes: int = MAX_MAP_BYTES,
               units: tuple[str | None, str | None] = (None, None)) -> HeatMap | dict[str, HeatMap]:
    """Heat map of tracer output (``form``: bpftrace, biosnoop, blkparse, trace2heatmap; see
    :mod:`~perflab.analysis.heatmap.traces`), streamed like :func:`from_lat_log`; the columns
    start at the first I/O.  Several files of one trace (one clock) are summed. ``units``: the time
    and the latency columns' units of a trace2heatmap trace (None: from its header, else time in s)."""
    files = log_paths(paths)
    buckets = make_buckets(sub, linear_ns, 128, 2 ** 34, None)

    from perflab.analysis.heatmap.traces import trace_events

    def pieces():
        for p in files:
            yield from trace_events(p, form, units)
    return from_events(pieces(), what=what, by=by, col_s=col_s, buckets=buckets, row=row, t0_ms=t0_ms,
                       max_bytes=max_bytes, kind=form, sources=map(str, files), trim=bool(linear_ns),
                       from_first=True)


def hist_period_ms(h: HistLog) -> dict[int, float]:
    """The period (log_hist_msec) of each direction's lines, from their stamps.

    fio writes one line per period, and after a stall one line per period missed (a ms or so apart,
    as soon as I/Os complete again), so the mean step from a direction's first stamp to its last is
    the period; the median is not (in a stalled log most steps are catch-ups or long gaps). A
    direction with one line takes the others' period, else :data:`DEFAULT_HIST_PERIOD_MS`."""
    out: dict[int, float] = {}
    for d in sorted(set(h.ddir.tolist())):   # not np.unique: it imports numpy.ma (20 ms of a small command)
        t = h.time_ms[h.ddir == d]
        span = float(t.max() - t.min()) if len(t) > 1 else 0.0
        if span > 0:
            out[d] = span / (len(t) - 1)
    known = list(out.values())
    fallback = sum(known) / len(known) if known else float(DEFAULT_HIST_PERIOD_MS)
    return {d: out.get(d, fallback) for d in sorted(set(h.ddir.tolist()))}


def hist_line_times(h: HistLog, period_ms: float | None = None) -> np.ndarray:
    """The time (ms, on the log's clock) at which each line of a histogram log is counted.

    A line is counted whole, at the middle of the second half of its period, the period ending at
    its stamp or, for a line stamped more than a period after the previous one, a period after that
    one; never before the previous line. ``period_ms`` is the log's log_hist_msec (default: from the
    stamps, :func:`hist_period_ms`).
    """
    # Why this rule. fio (stat.c, add_clat_sample) begins a direction's first period at its first
    # completion, not at the job's start; writes a line at the first completion at least one period
    # after the period began; then moves the period's start on by exactly one period, not to the
    # stamp. So a line holds the I/Os completed since the previous line, in a period that ended by
    # its stamp and by one period after the previous stamp: a line stamped late after a stall
    # closed a period that ended before the stall, and its I/Os are not spread over the stall (fio's
    # parser does spread them). Where inside its period they completed the stamps do not say; fio's
    # own parser (tools/hist/fiologparser_hist.py) takes each I/O from half a period before the
    # stamp, less its latency, to the stamp: for latencies short against the period, the period's
    # second half. Counting the whole line at the middle of that half puts it in the second fio's
    # parser gives most of it: lines at 1,699, 2,599, ... ms land in seconds 1, 2, ... as there (the
    # midpoint of [0, 1,699] put the first in second 0 and left second 1 empty). fio's parser also
    # splits a line whose span crosses a second, and spreads slow I/Os back over their time in
    # flight; here a line is one column's.
    if period_ms is not None and not period_ms > 0:
        raise ValueError(f"a histogram log's period must be over 0 ms, not {period_ms}")
    at = np.zeros(len(h.time_ms), np.int64)
    periods = hist_period_ms(h) if period_ms is None else None
    for d in sorted(set(h.ddir.tolist())):
        idx = np.flatnonzero(h.ddir == d)
        idx = idx[np.argsort(h.time_ms[idx], kind="stable")]      # lines may come out of order
        t = h.time_ms[idx].astype(np.float64)
        p = float(period_ms) if period_ms is not None else periods[d]
        end, start = t.copy(), t - p / 2
        end[1:] = np.minimum(t[1:], t[:-1] + p)
        start[1:] = np.maximum(t[:-1], end[1:] - p / 2)
        if t[0] < EPOCH_MIN_MS:          # a job-relative log: nothing completed before the job began
            start[0] = max(start[0], 0.0)
        at[idx] = np.floor((start + end) / 2).astype(np.int64)
    return at


def _fold_map(buckets: Buckets, fio_edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bucket of each fio bin (by its midpoint) and whether the bin lies wholly inside it.

    fio's top bin goes to the overflow (``buckets.n``) whatever the buckets: fio puts every latency
    past its last edge into it (:func:`~perflab.fio.logs.fio_hist_limit_ns`), so it has no latency
    to draw a bucket at; it counts I/Os at or above fio's limit."""
    lo, hi = fio_edges[:-1], fio_edges[1:]
    by_mid = buckets.index(lo + (hi - lo) // 2)
    exact = (buckets.index(lo) == by_mid) & (buckets.index(hi - 1) == by_mid)
    by_mid[-1], exact[-1] = buckets.n, True
    return by_mid, exact


def from_hist_log(paths, col_s: float = 1.0, sub: int = 8, linear_ns: int | None = None,
                  ddir=None, *, floor_ns: int = 128, ceil_ns: int = 2 ** 34,
                  linear_max_ns: int | None = None, t0_ms: int | None = None,
                  max_bytes: int = MAX_MAP_BYTES, period_ms: float | None = None) -> HeatMap:
    """Heat map of one or more fio histogram logs (``write_hist_log``, ``log_hist_msec``).

    fio's 1856 bins are folded into the buckets.  For log-linear buckets every fio bin
    lies inside one bucket, so the fold is exact.  Otherwise (linear buckets, or a
    floor/ceiling that cuts fio bins) each fio bin goes whole to the bucket that holds
    its midpoint; :attr:`HeatMap.exact` is then False if any non-empty bin straddled a
    bucket edge, and a note says so.  fio's top bin (fio puts every latency past its last edge
    there) is counted in the overflow, never in a bucket: the map's :attr:`HeatMap.cap_ns` says
    where fio's limit lies (~17.05 s) when it is below the top edge.  Each line's time stamp is the END of its interval
    (fio's log_hist_msec, ``period_ms``; by default read off the stamps); each line is
    counted whole in one column: for lines about a period apart, the one where fio's own
    parser puts most of it, so that the first line of a log that starts late is not set
    apart from the rest by an empty column; a line stamped late after a stall, in the
    period it closed (:func:`hist_line_times`).  The last, partial interval of a run
    is often missing from a histogram log.  Logs of several jobs, or of several hosts of
    ``fio --client`` (epoch stamps: one clock), are merged exactly: their bucket counts are
    added, interval by interval; percentiles are computed from the sum, never averaged.
    Time origins, gaps, order and the memory cap are handled as in :func:`from_lat_log`.
    """
    buckets = make_buckets(sub, linear_ns, floor_ns, ceil_ns, linear_max_ns)
    want = _ddir_code(ddir)
    acc = Accumulator(buckets.n, column_ms(col_s), t0_ms, max_bytes)
    files = log_paths(paths)
    exact_all = True
    undone = []
    cap = None       # fio's limit, where it lies below the top edge (the overflow then starts there)
    for path in files:
        h = read_hist_log(path)
        if len(h.time_ms) == 0:
            continue
        lim = fio_hist_limit_ns(h.coarseness)
        if lim < int(buckets.edges_ns[-1]):
            cap = lim if cap is None else min(cap, lim)
        if clients.host_log(path):   # written by fio's driver (fio --client): perhaps cumulative
            h, was = clients.per_interval_hist(h)
            undone += [Path(path).name] if was else []
        at = hist_line_times(h, period_ms)   # per direction, before one is picked: its own lines
        sel = slice(None) if want is None else (h.ddir == want)
        at, counts = at[sel], h.counts[sel]
        asg, exact = _fold_map(buckets, h.edges_ns)
        used = counts.any(axis=0)
        exact_all &= bool(exact[used].all())
        firsts = np.flatnonzero(np.r_[True, asg[1:] != asg[:-1]])
        sums = np.add.reduceat(counts, firsts, axis=1) if counts.size else counts[:, :0]
        rows = np.zeros((len(at), buckets.n + 1), np.int64)
        rows[:, asg[firsts]] = sums
        acc.add_rows(at, rows, str(path))
    edges, counts, over = acc.result(buckets.edges_ns, trim=bool(linear_ns) and linear_max_ns is None)
    notes = [] if exact_all else ["some fio histogram bins straddle bucket edges and were "
                                  "assigned to a bucket by their midpoint"]
    if undone:
        what = undone[0] if len(undone) == 1 else f"{len(undone)} logs"
        notes.append(f"{what} of fio --client: each line held the counts since the start of every other line; "
                     "read as the difference from the line two before")
    return HeatMap(edges, counts, acc.col_ms / 1000, acc.origin(), over, tuple(map(str, files)),
                   "hist", buckets.scale, exact_all, notes + acc.notes(), cap_ns=cap)


def detect_log_kind(path: str | os.PathLike) -> str | None:
    """"hist" for a histogram log (> 100 fields a line), "per-io" otherwise, None if empty."""
    nf = log_field_count(path)
    if nf == 0:
        return None
    return "hist" if nf > HIST_MIN_FIELDS else "per-io"
