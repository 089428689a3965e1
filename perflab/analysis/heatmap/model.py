"""The heat map itself: counts of I/Os per (time column, latency bucket).

A :class:`HeatMap` answers questions about its distribution (percentiles, shares, means per
column), writes its cells as CSV and saves and loads itself (.npz).  Maps are sums of
partial maps: :func:`merge` (or ``+``) adds maps that share column width and bucket edges,
aligned on their time origins, exactly.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

import numpy as np

from perflab.lazy import lazy

pd = lazy("pandas")   # for the frames a caller asks for (cells, distribution), not to build a map

from perflab.fio.logs import FioLogError

__all__ = ["HeatMap", "merge", "aligned", "pad_rows", "column_ms", "column_seconds", "Y_KINDS",
           "PERCENTILES", "percentiles_csv_path", "write_percentiles_csv"]

#: What a map's rows can count: latency (ns), disk offset (bytes), time within the second (ns).
Y_KINDS = ("latency", "offset", "subsecond")
#: The percentiles (percent) drawn over a map and written beside its CSV (``perflab heatmap --percentiles``).
PERCENTILES = (50, 99, 99.9)
#: The names of a cell's row edges in :meth:`HeatMap.cells`, per kind of map.
Y_COLUMNS = {"latency": ("lat_lo_ns", "lat_hi_ns"), "offset": ("offset_lo", "offset_hi"),
             "subsecond": ("subsec_lo_ns", "subsec_hi_ns")}


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
    y: str = "latency"            # what the rows are: "latency" (ns), "offset" (bytes on the disk),
    #                               "subsecond" (ns after the start of the second the I/O ended in)
    cap_ns: int | None = None     # a fio histogram log's limit (its top bin's lower edge, ~17 s) when it is
    #                               below ``edges_ns[-1]``: the overflow then counts the I/Os at or above
    #                               it (fio's top bin holds every slower I/O too, so it has no latency)

    def __post_init__(self):
        self.edges_ns = np.asarray(self.edges_ns, dtype=np.int64)
        self.counts = np.asarray(self.counts, dtype=np.int64).reshape(-1, len(self.edges_ns) - 1)
        if self.overflow is None:
            self.overflow = np.zeros(self.counts.shape[0], np.int64)
        self.overflow = np.asarray(self.overflow, dtype=np.int64)
        if self.overflow.shape != (self.counts.shape[0],):
            raise ValueError("overflow needs one value per column")
        column_ms(self.col_s)
        self.sources = tuple(str(s) for s in self.sources)
        if self.y not in Y_KINDS:
            raise ValueError(f"y must be one of {', '.join(Y_KINDS)}, not {self.y!r}")
        if self.cap_ns is not None:
            self.cap_ns = int(self.cap_ns)

    # sizes and totals
    @property
    def n_columns(self) -> int:
        return self.counts.shape[0]

    @property
    def n_buckets(self) -> int:
        return self.counts.shape[1]

    @property
    def col_ms(self) -> int:
        return column_ms(self.col_s)

    @property
    def total(self) -> int:
        """Every event read, including the overflow."""
        return int(self.counts.sum() + self.overflow.sum())

    def column_totals(self) -> np.ndarray:
        return self.counts.sum(axis=1) + self.overflow

    def seconds(self) -> np.ndarray:
        """Start of each column, in seconds from ``t0_ms`` (``column index * col_s``)."""
        return column_seconds(np.arange(self.n_columns), self.col_ms)

    # tables
    def cells(self) -> pd.DataFrame:
        """Non-empty cells: ``second, lat_lo_ns, lat_hi_ns, count`` (for an offset map
        ``offset_lo, offset_hi`` in bytes, for a subsecond map ``subsec_lo_ns, subsec_hi_ns``).

        ``second`` is the column's start (column index * ``col_s``, from the log's
        time origin); a cell counts latencies ``lat_lo_ns <= x < lat_hi_ns``.  Sorted by
        second, then latency.
        """
        c, b = np.nonzero(self.counts)
        lo, hi = Y_COLUMNS[self.y]
        return pd.DataFrame({
            "second": column_seconds(c, self.col_ms),
            lo: self.edges_ns[b],
            hi: self.edges_ns[b + 1],
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

    def column_percentiles(self, qs: Iterable[float] = (50, 99, 99.9)) -> np.ndarray:
        """The ``qs``-th percentiles (percent) of each column, ``[n_columns, len(qs)]`` in ns.

        Exact to the bucket and the same rule as :meth:`percentile`: the UPPER edge of the bucket
        that holds the ``ceil(q/100 * N)``-th smallest latency of the column (``N`` its events,
        overflow included), so the true percentile ``p`` satisfies ``lo <= p < value``.  An upper
        edge, not a value interpolated inside the bucket: interpolation would assume the latencies
        spread evenly over the bucket, which nothing records; the edge is a bound that holds.
        ``nan`` for a column without events, ``inf`` where the percentile lies in the overflow.
        Counts are added bucket by bucket when maps merge, so the percentiles of a merged map are
        those of the union of its parts' buckets.
        """
        qs = [float(q) for q in qs]
        for q in qs:
            if not 0 <= q <= 100:
                raise ValueError(f"q is a percentage in [0, 100], not {q}")
        out = np.full((self.n_columns, len(qs)), np.nan)
        if not self.n_columns or not qs:
            return out
        cum = np.cumsum(self.counts, axis=1)                 # events below each bucket's upper edge
        n = cum[:, -1] + self.overflow if self.n_buckets else self.overflow.copy()
        top = np.append(self.edges_ns[1:].astype(np.float64), math.inf)
        for j, q in enumerate(qs):
            rank = np.maximum(1, np.ceil(np.round(q * n / 100.0, 9))).astype(np.int64)
            # first bucket whose cumulative count reaches the rank (n_buckets: in the overflow)
            b = (cum < rank[:, None]).sum(axis=1)
            out[:, j] = np.where(n > 0, top[b], np.nan)
        return out

    def gap_columns(self) -> int:
        """Columns without a single event between the map's first and last non-empty column."""
        nz = np.flatnonzero(self.column_totals() > 0)
        return int(nz[-1] - nz[0] + 1 - len(nz)) if len(nz) else 0

    def overflow_from_ns(self) -> int:
        """The latency the overflow's events are at or above: the top edge, or fio's histogram
        limit (:attr:`cap_ns`) when a histogram log's top bin lies below it."""
        top = int(self.edges_ns[-1])
        return min(top, self.cap_ns) if self.cap_ns is not None else top

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
    def rebin(self, col_ms: int) -> "HeatMap":
        """The map with columns ``col_ms`` wide (a multiple of today's width), each the exact sum of
        the columns it covers; columns stay aligned on multiples of their width."""
        k, r = divmod(int(col_ms), self.col_ms)
        if r or k < 1:
            raise ValueError(f"cannot re-bin {self.col_ms} ms columns into {col_ms} ms ones (not a multiple)")
        if k == 1:
            return self
        off = (self.t0_ms // self.col_ms) % k
        idx = (np.arange(self.n_columns) + off) // k
        n = int(idx[-1]) + 1 if self.n_columns else 0
        counts = np.zeros((n, self.n_buckets), np.int64)
        over = np.zeros(n, np.int64)
        np.add.at(counts, idx, self.counts)
        np.add.at(over, idx, self.overflow)
        note = f"time re-binned to {col_ms / 1000:g} s columns"
        notes = [x for x in self.notes if not x.startswith("time re-binned")] + [note]
        return replace(self, counts=counts, overflow=over, col_s=col_ms / 1000,
                       t0_ms=self.t0_ms - off * self.col_ms, notes=notes)

    def __add__(self, other: "HeatMap") -> "HeatMap":
        if not isinstance(other, HeatMap):
            return NotImplemented
        if self.y != other.y:
            raise ValueError(f"cannot merge a map of {self.y} with one of {other.y}")
        a, b = self, other
        if a.col_ms != b.col_ms:   # partial maps widened apart (a memory cap): the finer one follows
            wide = max(a.col_ms, b.col_ms)
            if wide % min(a.col_ms, b.col_ms):
                raise ValueError(f"cannot merge maps with columns of {a.col_s} s and {b.col_s} s")
            a, b = a.rebin(wide), b.rebin(wide)
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
                       a.notes + [n for n in b.notes if n not in a.notes], a.y,
                       min((c for c in (a.cap_ns, b.cap_ns) if c is not None), default=None))

    def span(self, t0_ms: int, n_columns: int) -> "HeatMap":
        """The map on columns ``n_columns`` from ``t0_ms`` (an earlier origin, a longer span: empty
        columns added), for maps drawn side by side on one time axis."""
        shift, r = divmod(self.t0_ms - int(t0_ms), self.col_ms)
        if r or shift < 0 or shift + self.n_columns > n_columns:
            raise ValueError(f"columns from {t0_ms} ms do not hold this map (from {self.t0_ms} ms)")
        counts = np.zeros((n_columns, self.n_buckets), np.int64)
        over = np.zeros(n_columns, np.int64)
        counts[shift:shift + self.n_columns] = self.counts
        over[shift:shift + self.n_columns] = self.overflow
        return replace(self, counts=counts, overflow=over, t0_ms=int(t0_ms))

    def followed_by(self, other: "HeatMap", gap_columns: int = 1) -> "HeatMap":
        """This map with ``other`` drawn right after it, ``gap_columns`` empty columns between: for two
        runs far apart in time shown on one axis (``other``'s clock is moved; the time between is not
        drawn, and a page that does this must say so). ``other`` starts at ``(n_columns +
        gap_columns) * col_s`` seconds on this map's clock. The gap columns are columns without
        events like any other (a figure counts them as such under its title): where a line marks the
        join, ``gap_columns=0``."""
        if other.col_ms != self.col_ms:
            raise ValueError(f"cannot join maps with columns of {self.col_s} s and {other.col_s} s")
        return self + replace(other, t0_ms=self.t0_ms + (self.n_columns + gap_columns) * self.col_ms)

    # saving: a map is a sum of partial maps, so maps saved from many files or hosts merge exactly
    def save(self, path: str | os.PathLike) -> None:
        """Write the map to ``path`` (.npz): counts, overflow, edges and what describes them."""
        import json

        meta = {"format": "perflab-heatmap/1", "col_ms": self.col_ms, "t0_ms": int(self.t0_ms),
                "sources": list(self.sources), "kind": self.kind, "scale": self.scale, "exact": self.exact,
                "notes": list(self.notes), "y": self.y, "cap_ns": self.cap_ns}
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
                           tuple(meta["sources"]), meta["kind"], meta["scale"], meta["exact"], meta["notes"],
                           meta.get("y", "latency"), meta.get("cap_ns"))
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
    """Sum maps that share bucket edges (aligned on their time origins; columns of different
    widths are first re-binned to the widest, when it is a multiple of the others)."""
    maps = list(maps)
    if not maps:
        raise ValueError("nothing to merge")
    return maps[0].merge(*maps[1:])


def aligned(maps: dict[str, HeatMap]) -> dict[str, HeatMap]:
    """Maps of one source drilled down by a dimension, on one time axis: the widest columns of
    any of them, from the earliest origin to the latest end."""
    if not maps:
        return maps
    wide = max(m.col_ms for m in maps.values())
    out = {k: m.rebin(wide) for k, m in maps.items()}
    t0 = min(m.t0_ms for m in out.values())
    end = max(m.t0_ms + m.n_columns * wide for m in out.values())
    return {k: m.span(t0, (end - t0) // wide) for k, m in out.items()}


def _pad_buckets(a: HeatMap, b: HeatMap) -> tuple[HeatMap, HeatMap]:
    """Linear maps trimmed to their data: extend the shorter one with empty buckets."""
    short, long_ = (a, b) if len(a.edges_ns) < len(b.edges_ns) else (b, a)
    padded = pad_rows(short, long_.edges_ns)
    return (padded, long_) if short is a else (long_, padded)


def pad_rows(hm: HeatMap, edges_ns: np.ndarray) -> HeatMap:
    """The map on taller rows ``edges_ns`` that begin with its own (empty rows added on top), for
    maps trimmed to different heights; refuses other edges, or a map with I/Os above its top."""
    n = len(hm.edges_ns)
    if len(edges_ns) < n or not np.array_equal(edges_ns[:n], hm.edges_ns) or \
            (len(edges_ns) > n and hm.overflow.any()):
        raise ValueError("cannot merge heat maps with different bucket edges")
    if len(edges_ns) == n:
        return hm
    counts = np.zeros((hm.n_columns, len(edges_ns) - 1), np.int64)
    counts[:, :hm.n_buckets] = hm.counts
    return replace(hm, edges_ns=np.array(edges_ns, np.int64), counts=counts)


def column_ms(col_s: float) -> int:
    """A column width in whole milliseconds; refuses a width that is not one."""
    ms = round(col_s * 1000)
    if ms < 1 or abs(ms - col_s * 1000) > 1e-6:
        raise ValueError(f"col_s must be a positive whole number of milliseconds, not {col_s}")
    return int(ms)


def column_seconds(cols: np.ndarray, col_ms: int) -> np.ndarray:
    """Start of columns ``cols`` in seconds (integers when the columns are whole seconds)."""
    if col_ms % 1000 == 0:
        return np.asarray(cols, np.int64) * (col_ms // 1000)
    return np.asarray(cols, np.int64) * col_ms / 1000.0


def percentiles_csv_path(csv: str | os.PathLike) -> Path:
    """Where ``--percentiles`` writes the per-column percentiles beside the CSV ``csv``:
    ``<its stem>.percentiles.csv``."""
    p = Path(csv)
    return p.with_name(f"{p.stem}.percentiles.csv")


def _pct_column(q: float) -> str:
    return f"p{q:g}_ns".replace(".", "_")          # p50_ns, p99_ns, p99_9_ns


def write_percentiles_csv(path: str | os.PathLike, maps: dict[str, HeatMap], by: str | None = None,
                          qs: Iterable[float] = PERCENTILES) -> None:
    """One row per column of each map: ``second`` (the column's start, as in the cells' CSV),
    ``events`` (all of the column's, the overflow's too: the percentiles' denominator),
    ``overflow`` (those at or above the top edge, or fio's histogram limit), and ``p50_ns, p99_ns,
    p99_9_ns`` (:meth:`HeatMap.column_percentiles`: the upper edge of the bucket holding the
    percentile; empty for a column without events, ``inf`` when it lies in the overflow); with
    ``by``, its value first."""
    import csv as csv_mod

    qs = tuple(qs)
    head = [*([by] if by is not None else []), "second", "events", "overflow", *map(_pct_column, qs)]
    with open(path, "w", newline="") as f:
        w = csv_mod.writer(f)
        w.writerow(head)
        for k, hm in maps.items():
            pct = hm.column_percentiles(qs)
            tot = hm.column_totals()
            for c, second in enumerate(hm.seconds().tolist()):
                vals = ["" if math.isnan(v) else ("inf" if math.isinf(v) else int(v)) for v in pct[c].tolist()]
                w.writerow([*([k] if by is not None else []), second, int(tot[c]), int(hm.overflow[c]), *vals])
