"""Latency heat maps: the book's signature figure.

"Reading latency heat maps" (chapters/heatmaps.md) explains how to read them; this
module builds them from fio's logs (see :mod:`perflab.fiolog`).

A heat map has one column per ``col_s`` seconds of the run and one row per latency
bucket; a cell counts the I/Os that completed in that column with a latency in that
bucket.

Buckets
    *Log-linear* (the default), like fio's own histogram and DTrace's ``llquantize``:
    every power-of-two group ``[2**g, 2**(g+1))`` from ``floor_ns`` (default 128 ns) up
    to ``ceil_ns`` (default ``2**34`` ns, where fio's histogram ends) is split into
    ``sub`` equal linear sub-buckets (``sub`` in 1, 2, 4, ..., 64; default 8), so each
    bucket is at most 1/sub wide relative to its latency; all latencies below the floor
    share one bucket ``[0, floor_ns)``.  Because ``sub`` divides 64, every bucket edge is
    an edge of fio's 1856 histogram bins, so a histogram log folds into these buckets
    exactly.  *Linear* buckets (``linear_ns`` wide, up to ``linear_max_ns``) draw the
    "latency art" patterns of the chapter.

    Bucket ``[lo, hi)`` holds latencies ``lo <= x < hi``.  Latencies at or above the top
    edge are counted per column in :attr:`HeatMap.overflow` (never silently dropped:
    :attr:`HeatMap.total` and :meth:`HeatMap.percentile` include them) but belong to no
    cell.

Time
    ``time_ms`` in fio's logs counts from the job's start, so that is the common origin
    when several logs are merged; column ``c`` covers ``[c*col_s, (c+1)*col_s)`` seconds.
    A histogram-log line is stamped at the END of its interval; the interval is placed
    in the column that holds its midpoint (so ``col_s`` should be a multiple of
    ``log_hist_msec``).

Building a map from a per-I/O log streams the file in pieces of a few MB through
pyarrow's CSV parser (on a second thread) and counts with ``np.bincount``; memory stays
at a few piece sizes whatever the log's size.
"""
from __future__ import annotations

import math
import os
import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pcsv

from .fiolog import (open_log, EPOCH_MIN_MS, HIST_MIN_FIELDS, FioLogError, _check_last_line, _find_bad_line,
                     lat_log_columns, log_field_count, read_hist_log)

__all__ = ["Buckets", "HeatMap", "from_lat_log", "from_hist_log", "figure", "render",
           "merge", "bucket_labels", "detect_log_kind"]

#: Linear buckets without an explicit maximum: at most this many, trimmed to the data.
LINEAR_MAX_BUCKETS = 1024
_DDIRS = {"read": 0, "write": 1, "trim": 2, "sync": 3}


# --------------------------------------------------------------------------- buckets

@dataclass(eq=False)
class Buckets:
    """Latency buckets: ``edges_ns`` (int64, n+1 values); bucket i is ``[edges[i], edges[i+1])``.

    :meth:`index` maps latencies to bucket numbers, with ``n`` for "at or above the top
    edge" (overflow).
    """
    scale: str                 # "log-linear" or "linear"
    edges_ns: np.ndarray
    sub: int = 0
    floor_ns: int = 0
    width_ns: int = 0

    @classmethod
    def loglinear(cls, sub: int = 8, floor_ns: int = 128, ceil_ns: int = 2 ** 34) -> "Buckets":
        if sub not in (1, 2, 4, 8, 16, 32, 64):
            raise ValueError(f"sub must be one of 1, 2, 4, 8, 16, 32, 64, not {sub}")
        for name, v in (("floor_ns", floor_ns), ("ceil_ns", ceil_ns)):
            if v < 1 or v & (v - 1):
                raise ValueError(f"{name} must be a power of two, not {v}")
        if floor_ns < sub:
            raise ValueError(f"floor_ns ({floor_ns}) must be >= sub ({sub}) so that buckets are whole ns")
        if not floor_ns < ceil_ns <= 2 ** 53:
            raise ValueError(f"need floor_ns < ceil_ns <= 2**53 (got {floor_ns}, {ceil_ns})")
        lf, lc = floor_ns.bit_length() - 1, ceil_ns.bit_length() - 1
        edges = [0]
        for g in range(lf, lc):
            step = (1 << g) // sub
            edges.extend((1 << g) + k * step for k in range(sub))
        edges.append(ceil_ns)
        return cls("log-linear", np.array(edges, np.int64), sub=sub, floor_ns=floor_ns)

    @classmethod
    def linear(cls, width_ns: int, max_ns: int | None = None) -> "Buckets":
        width_ns = int(width_ns)
        if width_ns < 1:
            raise ValueError(f"linear bucket width must be >= 1 ns, not {width_ns}")
        n = LINEAR_MAX_BUCKETS if max_ns is None else max(1, -(-int(max_ns) // width_ns))
        return cls("linear", np.arange(n + 1, dtype=np.int64) * width_ns, width_ns=width_ns)

    @property
    def n(self) -> int:
        return len(self.edges_ns) - 1

    def index(self, values: np.ndarray) -> np.ndarray:
        """Bucket number (int64) of each latency; ``n`` for values >= the top edge.

        Log-linear: computed arithmetically from ``np.frexp`` (exact for values below
        2**53), no search.  Negative values count as 0.
        """
        v = np.asarray(values)
        if self.scale == "linear":
            b = v.astype(np.int64, copy=True)
            np.maximum(b, 0, out=b)
            b //= self.width_ns
            np.minimum(b, self.n, out=b)
            return b
        x = v.astype(np.float64)
        np.maximum(x, 0.0, out=x)
        m, e = np.frexp(x)          # x = m * 2**e, 0.5 <= m < 1: group 2**(e-1)
        m *= 2 * self.sub
        b = m.astype(np.int64)      # sub + (position inside the group) * sub
        e *= self.sub
        b += e
        b += 1 - (self.floor_ns.bit_length() + 1) * self.sub
        np.clip(b, 0, self.n, out=b)
        return b


def _make_buckets(sub: int, linear_ns, floor_ns: int, ceil_ns: int, linear_max_ns) -> Buckets:
    if linear_ns:
        return Buckets.linear(linear_ns, linear_max_ns)
    return Buckets.loglinear(sub, floor_ns, ceil_ns)


# --------------------------------------------------------------------------- the map

@dataclass(eq=False)
class HeatMap:
    """Counts of I/Os per (time column, latency bucket).

    ``counts[c, b]`` counts the I/Os that completed in column ``c`` (``[c*col_s,
    (c+1)*col_s)`` seconds after ``t0_ms``) with latency in ``[edges_ns[b],
    edges_ns[b+1])``; ``overflow[c]`` those at or above ``edges_ns[-1]``.
    """
    edges_ns: np.ndarray
    counts: np.ndarray
    col_s: float = 1.0
    t0_ms: int = 0
    overflow: np.ndarray | None = None
    sources: tuple[str, ...] = ()
    kind: str = "per-io"          # "per-io" (per-I/O latency log), "hist" (histogram log), "mixed"
    scale: str = "log-linear"     # or "linear"
    exact: bool = True            # False if some fio bins were assigned to a bucket by midpoint
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.edges_ns = np.asarray(self.edges_ns, dtype=np.int64)
        self.counts = np.asarray(self.counts, dtype=np.int64).reshape(-1, len(self.edges_ns) - 1)
        if self.overflow is None:
            self.overflow = np.zeros(self.counts.shape[0], np.int64)
        self.overflow = np.asarray(self.overflow, dtype=np.int64)
        if self.overflow.shape != (self.counts.shape[0],):
            raise ValueError("overflow needs one value per column")
        _col_ms(self.col_s)
        self.sources = tuple(str(s) for s in self.sources)

    # sizes and totals
    @property
    def n_columns(self) -> int:
        return self.counts.shape[0]

    @property
    def n_buckets(self) -> int:
        return self.counts.shape[1]

    @property
    def col_ms(self) -> int:
        return _col_ms(self.col_s)

    @property
    def total(self) -> int:
        """Every event read, including the overflow."""
        return int(self.counts.sum() + self.overflow.sum())

    def column_totals(self) -> np.ndarray:
        return self.counts.sum(axis=1) + self.overflow

    def seconds(self) -> np.ndarray:
        """Start of each column, in seconds from ``t0_ms`` (``column index * col_s``)."""
        return _seconds(np.arange(self.n_columns), self.col_ms)

    # tables
    def cells(self) -> pd.DataFrame:
        """Non-empty cells: ``second, lat_lo_ns, lat_hi_ns, count``.

        ``second`` is the column's start (column index * ``col_s``, from the log's
        time origin); a cell counts latencies ``lat_lo_ns <= x < lat_hi_ns``.  Sorted by
        second, then latency.
        """
        c, b = np.nonzero(self.counts)
        return pd.DataFrame({
            "second": _seconds(c, self.col_ms),
            "lat_lo_ns": self.edges_ns[b],
            "lat_hi_ns": self.edges_ns[b + 1],
            "count": self.counts[c, b],
        })

    def write_csv(self, path: str | os.PathLike) -> None:
        """Write :meth:`cells` (exactly those four columns, with a header) to ``path``."""
        self.cells().to_csv(path, index=False)

    def _col_mask(self, t_from: float | None, t_to: float | None) -> np.ndarray:
        start = np.arange(self.n_columns) * self.col_ms
        sel = np.ones(self.n_columns, bool)
        if t_from is not None:
            sel &= start >= round(t_from * 1000)
        if t_to is not None:
            sel &= start < round(t_to * 1000)
        return sel

    def distribution(self, t_from_s: float | None = None, t_to_s: float | None = None) -> pd.DataFrame:
        """Counts per bucket over the columns that start in ``[t_from_s, t_to_s)``.

        Columns ``lat_lo_ns, lat_hi_ns, count, cum_pct`` (every bucket, empty ones too;
        ``cum_pct`` is the share of the range's events below ``lat_hi_ns``, overflow
        included in the denominator).  ``df.attrs["overflow"]`` holds the overflow count.
        """
        sel = self._col_mask(t_from_s, t_to_s)
        dist = self.counts[sel].sum(axis=0)
        over = int(self.overflow[sel].sum())
        tot = dist.sum() + over
        cum = np.cumsum(dist)
        df = pd.DataFrame({
            "lat_lo_ns": self.edges_ns[:-1], "lat_hi_ns": self.edges_ns[1:], "count": dist,
            "cum_pct": 100.0 * cum / tot if tot else np.full(len(dist), np.nan),
        })
        df.attrs["overflow"] = over
        return df

    def percentile(self, q: float, t_from: float | None = None, t_to: float | None = None) -> float:
        """The ``q``-th percentile (``q`` in percent, 0-100) of latency, in ns, from the buckets.

        Returns the UPPER edge of the bucket that holds the ``ceil(q/100 * N)``-th
        smallest latency: the true percentile ``p`` satisfies ``lo <= p < returned
        value``, so the answer errs high by at most one bucket width (1/sub of the value
        for log-linear buckets).  ``t_from``/``t_to`` (seconds) restrict it to the
        columns that start in ``[t_from, t_to)``.  ``nan`` when there are no events,
        ``inf`` when the percentile lies in the overflow.
        """
        if not 0 <= q <= 100:
            raise ValueError(f"q is a percentage in [0, 100], not {q}")
        sel = self._col_mask(t_from, t_to)
        dist = self.counts[sel].sum(axis=0)
        n = int(dist.sum() + self.overflow[sel].sum())
        if n == 0:
            return math.nan
        rank = max(1, math.ceil(round(q * n / 100.0, 9)))
        b = int(np.searchsorted(np.cumsum(dist), rank, side="left"))
        return math.inf if b >= self.n_buckets else float(self.edges_ns[b + 1])

    def fraction_between(self, lo_ns: float, hi_ns: float, t_from: float | None = None,
                         t_to: float | None = None) -> float:
        """Share (0-1) of the I/Os with latency in ``[lo_ns, hi_ns)``, estimated from the buckets.

        Buckets wholly inside the range count fully; a bucket the range cuts counts in
        proportion to the overlap (latencies assumed uniform inside a bucket), so the
        error is at most the two edge buckets' counts.  The overflow is part of the
        denominator and, when ``hi_ns`` is infinite, of the numerator.  ``nan`` if there
        are no I/Os in the columns that start in ``[t_from, t_to)``.
        """
        sel = self._col_mask(t_from, t_to)
        dist = self.counts[sel].sum(axis=0).astype(np.float64)
        over = float(self.overflow[sel].sum())
        n = dist.sum() + over
        if n == 0:
            return math.nan
        lo_e = self.edges_ns[:-1].astype(np.float64)
        hi_e = self.edges_ns[1:].astype(np.float64)
        overlap = np.clip(np.minimum(hi_e, hi_ns) - np.maximum(lo_e, lo_ns), 0, None) / (hi_e - lo_e)
        inside = float((dist * overlap).sum()) + (over if math.isinf(hi_ns) and hi_ns > 0 else 0.0)
        return inside / n

    def column_means_ns(self) -> pd.Series:
        """Mean latency per column, estimated from bucket midpoints (what a dashboard of
        averages would plot), indexed by the column's start in seconds; overflow excluded."""
        mid = (self.edges_ns[:-1] + self.edges_ns[1:]) / 2.0
        n = self.counts.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (self.counts * mid).sum(axis=1) / n
        return pd.Series(means, index=self.seconds(), name="mean_ns")[n > 0]

    # merging
    def __add__(self, other: "HeatMap") -> "HeatMap":
        if not isinstance(other, HeatMap):
            return NotImplemented
        if self.col_ms != other.col_ms:
            raise ValueError(f"cannot merge maps with columns of {self.col_s} s and {other.col_s} s")
        a, b = self, other
        if not np.array_equal(a.edges_ns, b.edges_ns):
            a, b = _pad_buckets(a, b)
        shift = b.t0_ms - a.t0_ms
        if shift % a.col_ms:
            raise ValueError(f"time origins {a.t0_ms} ms and {b.t0_ms} ms are not a whole number "
                             f"of {a.col_ms} ms columns apart")
        off_a, off_b = max(0, -shift // a.col_ms), max(0, shift // a.col_ms)
        ncol = max(off_a + a.n_columns, off_b + b.n_columns)
        counts = np.zeros((ncol, a.n_buckets), np.int64)
        over = np.zeros(ncol, np.int64)
        counts[off_a:off_a + a.n_columns] += a.counts
        counts[off_b:off_b + b.n_columns] += b.counts
        over[off_a:off_a + a.n_columns] += a.overflow
        over[off_b:off_b + b.n_columns] += b.overflow
        return HeatMap(a.edges_ns.copy(), counts, a.col_s, min(a.t0_ms, b.t0_ms), over,
                       a.sources + b.sources, a.kind if a.kind == b.kind else "mixed",
                       a.scale if a.scale == b.scale else "mixed", a.exact and b.exact,
                       a.notes + [n for n in b.notes if n not in a.notes])

    # saving: a map is a sum of partial maps, so maps saved from many files or hosts merge exactly
    def save(self, path: str | os.PathLike) -> None:
        """Write the map to ``path`` (.npz): counts, overflow, edges and what describes them."""
        import json

        meta = {"format": "perflab-heatmap/1", "col_ms": self.col_ms, "t0_ms": int(self.t0_ms),
                "sources": list(self.sources), "kind": self.kind, "scale": self.scale, "exact": self.exact,
                "notes": list(self.notes)}
        tmp = Path(str(path) + ".tmp.npz")
        np.savez_compressed(tmp, edges_ns=self.edges_ns, counts=self.counts, overflow=self.overflow,
                            meta=np.array(json.dumps(meta)))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "HeatMap":
        """A map written by :meth:`save`; refuses anything else, naming the file."""
        import json
        import zipfile

        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                if meta.get("format") != "perflab-heatmap/1":
                    raise ValueError("format")
                return cls(z["edges_ns"], z["counts"], meta["col_ms"] / 1000, meta["t0_ms"], z["overflow"],
                           tuple(meta["sources"]), meta["kind"], meta["scale"], meta["exact"], meta["notes"])
        except (KeyError, ValueError, OSError, zipfile.BadZipFile) as e:
            if isinstance(e, OSError) and not Path(path).exists():
                raise
            raise FioLogError(f"{path}: not a heat map saved by perflab (perflab heatmap --save): "
                              f"{type(e).__name__}: {e}") from None

    def merge(self, *others: "HeatMap") -> "HeatMap":
        out = self
        for o in others:
            out = out + o
        return out


def merge(maps: Iterable[HeatMap]) -> HeatMap:
    """Sum maps that share bucket edges and column width (aligned on their time origins)."""
    maps = list(maps)
    if not maps:
        raise ValueError("nothing to merge")
    return maps[0].merge(*maps[1:])


def _pad_buckets(a: HeatMap, b: HeatMap) -> tuple[HeatMap, HeatMap]:
    """Linear maps trimmed to their data: extend the shorter one with empty buckets."""
    short, long_ = (a, b) if len(a.edges_ns) < len(b.edges_ns) else (b, a)
    n = len(short.edges_ns)
    if not np.array_equal(long_.edges_ns[:n], short.edges_ns) or short.overflow.any():
        raise ValueError("cannot merge heat maps with different bucket edges")
    counts = np.zeros((short.n_columns, long_.n_buckets), np.int64)
    counts[:, :short.n_buckets] = short.counts
    padded = HeatMap(long_.edges_ns.copy(), counts, short.col_s, short.t0_ms, short.overflow,
                     short.sources, short.kind, short.scale, short.exact, list(short.notes))
    return (padded, long_) if short is a else (long_, padded)


def _col_ms(col_s: float) -> int:
    ms = round(col_s * 1000)
    if ms < 1 or abs(ms - col_s * 1000) > 1e-6:
        raise ValueError(f"col_s must be a positive whole number of milliseconds, not {col_s}")
    return int(ms)


def _seconds(cols: np.ndarray, col_ms: int) -> np.ndarray:
    if col_ms % 1000 == 0:
        return np.asarray(cols, np.int64) * (col_ms // 1000)
    return np.asarray(cols, np.int64) * col_ms / 1000.0


# --------------------------------------------------------------------------- building

def _paths(paths) -> list[Path]:
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
            out.append(f"{self.dropped:,} I/Os logged before the map's t = 0 (the start it was given) not drawn")
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
                if have:   # the file changed since _check_last_line, or a line longer than buf
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
    one).  A damaged log raises :class:`~perflab.fiolog.FioLogError` naming file and line.
    """
    col_ms = _col_ms(col_s)
    buckets = _make_buckets(sub, linear_ns, floor_ns, ceil_ns, linear_max_ns)
    want = _ddir_code(ddir)
    acc = _Accumulator(buckets.n, col_ms, t0_ms, max_bytes)
    files = _paths(paths)
    for path in files:
        nf = log_field_count(path)
        if nf == 0:
            continue
        names = lat_log_columns(nf, path)
        _check_last_line(path)
        include = ["time_ms", "lat_ns"] + (["ddir"] if want is not None else [])
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
            raise _find_bad_line(path, nf, exc) from None
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
    col_ms = _col_ms(col_s)
    buckets = _make_buckets(sub, linear_ns, floor_ns, ceil_ns, linear_max_ns)
    want = _ddir_code(ddir)
    acc = _Accumulator(buckets.n, col_ms, t0_ms, max_bytes)
    files = _paths(paths)
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


# --------------------------------------------------------------------------- figure

_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def _num(x: float, sig: int) -> str:
    if x >= 10 ** sig or x == int(x) and x >= 100:
        return f"{x:.0f}"
    return f"{x:.{sig}g}"


def _unit_for(v: int) -> str:
    for u in ("s", "ms", "us"):
        if v >= _UNITS[u]:
            return u
    return "ns"


def bucket_labels(edges_ns: np.ndarray, unit: str = "auto") -> list[str]:
    """Labels like "65.5-73.7 us" for buckets ``[edges[i], edges[i+1])``.

    ``unit`` is "auto" (chosen per bucket from its lower edge, or its upper edge for
    the bucket starting at 0) or one of ns, us, ms, s.  Labels are unique.
    """
    if unit != "auto" and unit not in _UNITS:
        raise ValueError(f"unit must be 'auto' or one of {list(_UNITS)}, not {unit!r}")
    edges = [int(e) for e in edges_ns]
    for sig in (3, 4, 6):
        out = []
        for lo, hi in zip(edges[:-1], edges[1:]):
            u = unit if unit != "auto" else _unit_for(lo or hi)
            s = _UNITS[u]
            out.append(f"{_num(lo / s, sig)}-{_num(hi / s, sig)} {u}")
        if len(set(out)) == len(out):
            return out
    return [f"{lo}-{hi} ns" for lo, hi in zip(edges[:-1], edges[1:])]


def _count_ticks(zmax: float) -> tuple[list[float], list[str]]:
    def lab(c: int) -> str:
        for div, suf in ((10 ** 9, "G"), (10 ** 6, "M"), (10 ** 3, "k")):
            if c >= div:
                return f"{c // div}{suf}"
        return str(c)
    vals = []
    for k in range(int(math.floor(zmax)) + 1):
        vals += [10 ** k] + ([2 * 10 ** k, 5 * 10 ** k] if zmax < 2.5 else [])
    vals = [v for v in vals if math.log10(v) <= zmax + 1e-9]
    return [math.log10(v) for v in vals], [lab(v) for v in vals]


# Light to dark (ColorBrewer's OrRd from its fourth step on): a single I/O (count 1) is a pale
# orange that still stands out on white, and the busiest cells are the darkest, most visible red.
# Empty cells are not drawn (white background).  chapters/heatmaps.md describes it in these words.
_COLORSCALE = [[0.0, "#fdbb84"], [0.25, "#fc8d59"], [0.5, "#ef6548"], [0.75, "#d7301f"],
               [1.0, "#7f0000"]]


def figure(hm: HeatMap, title: str = "", linear: bool = False, unit: str = "auto",
           companion: bool = True, t_range: tuple[float, float] | None = None,
           y_max_ns: int | None = None, max_count: int | None = None):
    """The heat map as a plotly Figure.

    x is time (s), y the latency buckets, colour the count on a log10 scale (colour-bar
    ticks labelled in real counts; count 1 is pale orange, the busiest cells darkest red,
    empty cells are not drawn).
    With ``linear=False`` every bucket is one row of equal height (the log-linear
    layout) labelled with its range; ``linear=True`` uses a numeric latency axis
    (bucket edges in ``unit``), natural for linear buckets.  Only the rows and columns
    from the first to the last non-empty one are drawn (empty ones in between stay:
    a gap in time or latency is information).  Hover shows the column's time span, the
    latency range, the count and the share of that column's I/Os below the bucket's
    upper edge.  ``companion`` adds a panel on the right, sharing the latency axis, with
    the distribution over ``t_range`` (seconds, default the whole run; shaded on the map).
    ``y_max_ns`` draws the rows up to the one holding that latency only (for a shape that a
    few rare slow I/Os would squash into the bottom of the axis); the title says how many
    I/Os are above it and not drawn.  ``max_count`` fixes the top of the colour scale (maps meant
    to be compared side by side share one scale; default: this map's busiest cell).  A linear
    latency axis that does not start at 0 says where it starts in its title.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    ncols = 2 if companion else 1
    # room between the map and its side panel, for the map's last time tick
    fig = make_subplots(rows=1, cols=ncols, shared_yaxes=True, horizontal_spacing=0.04,
                        column_widths=[0.78, 0.22] if companion else [1.0])
    rows = np.flatnonzero(hm.counts.any(axis=0))
    colsnz = np.flatnonzero(hm.counts.any(axis=1))
    notes = list(hm.notes)
    r0 = int(rows[0]) if len(rows) else 0
    r1 = int(rows[-1]) + 1 if len(rows) else 0
    # I/Os above the drawn rows: those past the last bucket edge, and those y_max_ns leaves out (one note)
    above, above_ns = int(hm.overflow.sum()), int(hm.edges_ns[-1])
    if y_max_ns is not None and len(rows):
        cut = int(np.searchsorted(hm.edges_ns, y_max_ns, side="right"))   # rows below y_max_ns's bucket end
        if r0 < cut < r1:
            above += int(hm.counts[:, cut:r1].sum())
            above_ns, r1 = int(hm.edges_ns[cut]), cut
    if above:
        notes.append(f"{above:,} I/Os ({100 * above / max(hm.total, 1):.2g}%) at or above "
                     f"{_fmt_ns(above_ns)} are above the drawn rows")
    fig.update_layout(title=dict(text=(title or "") + "".join(f"<br><sub>{n}</sub>" for n in notes)),
                      plot_bgcolor="white", paper_bgcolor="white",
                      # each note is a line under the title: the plot starts below the last one
                      margin=dict(l=90, r=20, t=60 + 20 * len(notes), b=110))
    if len(rows) == 0:
        fig.add_annotation(text="no I/Os in range", showarrow=False, xref="paper", yref="paper",
                           x=0.5, y=0.5)
        return fig
    c0, c1 = int(colsnz[0]), int(colsnz[-1]) + 1
    block = hm.counts[c0:c1, r0:r1].T            # [rows, columns]
    col_tot = hm.column_totals()[c0:c1]
    below = np.cumsum(hm.counts[c0:c1, :r1], axis=1)[:, r0:].T  # events below each bucket's hi
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(block > 0, np.log10(np.maximum(block, 1)), np.nan).astype(np.float32)
        pct = (100.0 * below / np.maximum(col_tot, 1)).astype(np.float32)
    starts = _seconds(np.arange(c0, c1), hm.col_ms).astype(np.float64)
    edges = hm.edges_ns[r0:r1 + 1]
    labels = bucket_labels(edges, unit)
    u = (unit if unit != "auto" else _unit_for(int(edges[-1]))) if linear else "ns"
    cd = np.empty(block.shape + (5 if linear else 3,),
                  np.float64 if block.max() >= 2 ** 24 else np.float32)
    cd[..., 0] = block
    cd[..., 1] = pct
    cd[..., 2] = starts[None, :]
    if linear:   # numeric axis: bricks between edges; show the bucket's range from customdata
        cd[..., 3] = (edges[:-1] / _UNITS[u])[:, None]
        cd[..., 4] = (edges[1:] / _UNITS[u])[:, None]
        y, ytitle = edges / _UNITS[u], f"latency ({u})"
        lat = f"%{{customdata[3]:.4~g}}-%{{customdata[4]:.4~g}} {u}"
    else:
        y, ytitle, lat = labels, "latency bucket", "%{y}"
    zmax = max(float(np.nanmax(z)), 1.0) if max_count is None else max(math.log10(max(max_count, 1)), 1.0)
    tickvals, ticktext = _count_ticks(zmax)
    heat = go.Heatmap(
        z=z, x=_seconds(np.arange(c0, c1 + 1), hm.col_ms), y=y, customdata=cd,
        colorscale=_COLORSCALE, zmin=0.0, zmax=zmax, hoverongaps=False,
        # below the map, across it: a narrow screen keeps it (a bar at the right is cut off there)
        colorbar=dict(title=dict(text="I/Os per cell", side="top"), tickvals=tickvals, ticktext=ticktext,
                      orientation="h", x=0.4, xanchor="center", y=-0.1, yanchor="top", len=0.6,
                      thickness=12),
        hovertemplate=(f"t: %{{customdata[2]}} s (a {hm.col_s:g} s column)<br>latency: {lat}"
                       "<br>count: %{customdata[0]:,}"
                       "<br>below this bucket's top: %{customdata[1]:.2f}% of the column"
                       "<extra></extra>"),
        name="I/Os")
    fig.add_trace(heat, row=1, col=1)
    fig.update_xaxes(title_text="time (s)", showgrid=False, row=1, col=1)
    height = int(min(1000, max(380, 16 * (r1 - r0) + 140)))
    if not linear:
        # Rows labelled at a steady step that leaves each label room (plotly thins a crowded category
        # axis by itself, at an uneven step): every row while rows are 14 px or more, else every k-th.
        px = (height - 60 - 20 * len(notes) - 110) / max(1, r1 - r0)
        step = max(1, math.ceil(14 / max(px, 1e-9)))
        shown = labels[::step]
        fig.update_yaxes(type="category", categoryorder="array", categoryarray=labels,
                         tickmode="array", tickvals=shown, ticktext=shown, tickfont=dict(size=10),
                         title_text=ytitle + (f" (one row in {step} labelled)" if step > 1 else ""),
                         showgrid=False, row=1, col=1)
    else:
        # the drawn rows only (an empty band from 0 would squash the shape), and the title says where
        # the axis starts when that is not 0
        start = f", from {_num(float(y[0]), 3)}" if y[0] > 0 else ""
        fig.update_yaxes(title_text=f"latency ({u}{start})", showgrid=False, row=1, col=1)
    if companion:
        t_from, t_to = t_range if t_range is not None else (None, None)
        dist = hm.distribution(t_from, t_to).iloc[r0:r1]
        cnt = dist["count"].to_numpy()
        nz = cnt > 0
        yb = np.asarray(labels)[nz] if not linear else (edges[:-1][nz] + edges[1:][nz]) / 2 / _UNITS[u]
        rng = "all columns" if t_range is None else f"{t_range[0]:g}-{t_range[1]:g} s"
        bar = go.Bar(x=cnt[nz], y=yb, orientation="h", marker_color="#54278f",
                     customdata=np.stack([dist["cum_pct"].to_numpy()[nz]], axis=-1).astype(np.float32),
                     hovertemplate="%{y}<br>count: %{x:,}<br>below top: %{customdata[0]:.3f}%<extra></extra>",
                     name=f"distribution ({rng})", showlegend=False)
        if linear:
            bar.update(width=(edges[1:][nz] - edges[:-1][nz]) / _UNITS[u])
        fig.add_trace(bar, row=1, col=2)
        fig.update_xaxes(type="log", title_text=f"I/Os ({rng})", showgrid=True,
                         gridcolor="#eee", row=1, col=2)
        if t_range is not None:
            fig.add_vrect(x0=t_range[0], x1=t_range[1], fillcolor="#888", opacity=0.12,
                          line_width=0, row=1, col=1)
    fig.update_layout(height=height, bargap=0.05)
    return fig


def _fmt_ns(v: int) -> str:
    u = _unit_for(int(v))
    return f"{_num(v / _UNITS[u], 3)} {u}"


# --------------------------------------------------------------------------- command

def render(paths, html: str | os.PathLike | None = None, csv: str | os.PathLike | None = None,
           linear_ns: int | None = None, col_s: float = 1.0, sub: int = 8,
           title: str | None = None, save: str | os.PathLike | None = None) -> HeatMap:
    """Build a heat map from fio logs and write its cells and/or a standalone page.

    The kind of log is read from the files: a histogram log has more than 100 fields a
    line, a per-I/O log 4-7 (all files must be of one kind; empty files are skipped).
    ``csv`` gets :meth:`HeatMap.write_csv`; ``html`` a standalone page with plotly.js
    inline (it opens offline).  Backs ``perflab heatmap LOG... [--html OUT] [--csv OUT]``.
    """
    files = _paths(paths)
    saved = [p for p in files if p.suffix == ".npz"]
    if saved and len(saved) != len(files):
        raise ValueError("give either fio logs or saved maps (.npz), not both: "
                         + ", ".join(str(p) for p in files))
    if saved:   # maps saved with --save: their sum, cell for cell
        hm = merge(HeatMap.load(p) for p in saved)
        _write(hm, files, html, csv, save, title, linear=hm.scale == "linear")
        return hm
    kinds = {k for k in (detect_log_kind(p) for p in files) if k is not None}
    if len(kinds) > 1:
        raise ValueError("cannot mix histogram logs and per-I/O logs in one heat map: "
                         + ", ".join(f"{p} ({detect_log_kind(p)})" for p in files))
    if kinds == {"hist"}:
        hm = from_hist_log(files, col_s=col_s, sub=sub, linear_ns=linear_ns)
    else:
        hm = from_lat_log(files, col_s=col_s, sub=sub, linear_ns=linear_ns)
    _write(hm, files, html, csv, save, title, linear=bool(linear_ns))
    return hm


def _write(hm: HeatMap, files: list[Path], html, csv, save, title, linear: bool) -> None:
    if save is not None:
        hm.save(save)
    if csv is not None:
        hm.write_csv(csv)
    if html is not None:
        if title is None:
            names = ", ".join(p.name for p in files[:3]) + (" ..." if len(files) > 3 else "")
            title = f"{names}: {hm.total:,} I/Os"
        fig = figure(hm, title=title, linear=linear)
        fig.write_html(html, include_plotlyjs=True, full_html=True,
                       config={"displaylogo": False, "responsive": True})
