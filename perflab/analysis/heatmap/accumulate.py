"""Counting events into a map as they stream in: the :class:`Accumulator`.

One accumulator counts events (a time in ms and a row number) into ``counts[column, row]``
with one extra row for the overflow.  It places times on one origin whatever order they
come in, leaves gaps as empty columns, and never grows past a memory cap: columns (and, for
maps whose rows are linear and open-ended, such as disk offsets, rows) are widened by
powers of two instead, merging what was counted exactly.
"""
from __future__ import annotations

import numpy as np

from perflab.fio.logs import EPOCH_MIN_MS, FioLogError

__all__ = ["Accumulator", "MAX_MAP_BYTES"]

#: The counts array of a map being built never grows past this many bytes; a span that would
#: need more columns makes them wider (time is re-binned, and the map's notes say so).
MAX_MAP_BYTES = 256 << 20


class Accumulator:
    """counts[column, row] (one extra row for the overflow), built from event times.

    Times are milliseconds on the source's own clock. With a fixed ``origin_ms`` (a caller's
    ``t0_ms``), column 0 starts there and earlier events are dropped (and counted in
    ``dropped``). Without one, job-relative logs (stamps below :data:`EPOCH_MIN_MS`) count
    from 0, the job's start, and epoch-stamped logs from the column of their earliest event
    (columns from the first sample, whatever order the lines or files come in), as are
    tracers' stamps (``from_first``: they count from boot or from the trace's start). Gaps stay
    empty columns. When the span would make the array larger than ``max_bytes``, columns are
    widened by powers of two (``col_ms`` grows) and what was counted is merged to match.
    """

    def __init__(self, nb: int, col_ms: int, origin_ms: int | None = None,
                 max_bytes: int = MAX_MAP_BYTES, from_first: bool = False):
        self.nb = nb + 1
        self.col_ms = self.col_ms0 = int(col_ms)
        self.origin_ms = origin_ms
        self.max_cols = max(1, int(max_bytes) // (self.nb * 8))
        self.a = np.zeros((0, self.nb), np.int64)
        self.base: int | None = 0 if origin_ms is not None else None  # column index of row 0
        self.used = 0
        self.dropped = 0
        self.epoch: bool | None = True if from_first else None   # True: columns from the first event

    # -- columns --
    def _cols(self, t_ms: np.ndarray, where: str) -> np.ndarray:
        """Column index of each time (relative to the fixed origin, else absolute)."""
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

    def coarsen_rows(self, k: int) -> None:
        """Rows k times wider (linear rows from 0): row r becomes row r // k; the overflow stays."""
        nb = self.nb - 1
        if self.a.shape[0]:
            body = self.a[:, :nb]
            pad = (-nb) % k
            if pad:
                body = np.concatenate([body, np.zeros((body.shape[0], pad), np.int64)], axis=1)
            merged = body.reshape(body.shape[0], -1, k).sum(axis=2)
            self.a[:, :nb] = 0
            self.a[:, :merged.shape[1]] = merged

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

    def _columns(self, t_ms: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray | None]:
        """Row index of each time (after widening the columns as far as the memory cap needs and
        making room), and which times to count (None: all; those before a fixed origin are not:
        counted in ``dropped``)."""
        while True:
            col = self._cols(t_ms, where)
            keep = col >= 0 if self.origin_ms is not None else None
            if keep is not None and not keep.any():
                self.dropped += len(col)
                return col, keep
            kc = col if keep is None else col[keep]
            c0, c1 = int(kc.min()), int(kc.max())
            lo = c0 if self.base is None else min(self.base, c0)
            hi = max(c1, (self.base or 0) + self.used - 1)
            if hi - lo + 1 <= self.max_cols:
                break
            k = 2
            while (hi // k - lo // k + 1) > self.max_cols:
                k *= 2
            self._coarsen(k)
        if keep is not None:
            self.dropped += int((~keep).sum())
        self._place(c0, c1)
        col -= self.base
        return col, keep

    def add_events(self, t_ms: np.ndarray, row: np.ndarray, where: str) -> None:
        """Count events at times ``t_ms`` (ms) in rows ``row`` (``nb``: the overflow)."""
        if len(t_ms) == 0:
            return
        col, keep = self._columns(t_ms, where)
        if keep is not None:
            if not keep.any():
                return
            col, row = col[keep], row[keep]
        c0, c1 = int(col.min()), int(col.max())
        if c0:
            col -= c0
        col *= self.nb
        col += row
        bc = np.bincount(col, minlength=(c1 - c0 + 1) * self.nb)
        self.a[c0:c1 + 1] += bc.reshape(-1, self.nb)

    def add_rows(self, t_ms: np.ndarray, rows: np.ndarray, where: str = "") -> None:
        """Add ``rows[i]`` (counts per row, overflow last) at time ``t_ms[i]``."""
        if len(t_ms) == 0:
            return
        col, keep = self._columns(t_ms, where)
        if keep is None:
            np.add.at(self.a, col, rows)
        elif keep.any():
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

    def result(self, edges: np.ndarray, trim: bool):
        """``(edges, counts, overflow)``; ``trim`` drops the empty rows above the last non-empty one."""
        a = self.a[: self.used]
        counts, over = a[:, :-1], a[:, -1].copy()
        if trim and counts.size:
            nz = np.flatnonzero(counts.any(axis=0))
            top = int(nz[-1]) + 1 if len(nz) else 1
            counts, edges = counts[:, :top], edges[: top + 1]
        return edges, np.ascontiguousarray(counts), over
