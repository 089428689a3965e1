"""Compiled scanners for fio's per-I/O logs (numba): bytes of whole lines in, integer columns out.

Why hand-written and not a CSV library: a per-I/O log is the simplest CSV there is (4-7
unsigned decimal integers a line, ``", "`` between them), and the heat map needs two or three
of its columns.  pyarrow's general CSV reader (the previous pipeline, still used where numba is
not installed: :data:`HAVE_NUMBA`) spends most of its time on what such a file never has
(quoting, escapes, type inference, a column builder per field).  One compiled loop over the
bytes that keeps only the wanted fields is about twice as fast per core, releases the GIL (so
two pieces parse at once on two cores) and still refuses every line that is not ``N`` integers
(``benchmarks/bench_pipeline.py`` measures both side by side).
"""
from __future__ import annotations

import math

import numpy as np

try:   # numba is a dependency of the package; the pyarrow path serves where it has no wheel
    from numba import njit
    HAVE_NUMBA = True
except ImportError:   # pragma: no cover - exercised only where numba is missing
    HAVE_NUMBA = False

__all__ = ["HAVE_NUMBA", "scan_fields"]


def _scan_fields(buf, nf, sel, out, bfield, mode, p1, p2, nrows):
    """Parse whole lines of ``nf`` comma-separated unsigned integers (spaces allowed around them).

    ``sel[f]`` is the row of ``out`` that field ``f`` goes to, or -1 (parsed and checked, not kept).
    Field ``bfield`` is stored as its bucket number instead of its value when ``mode`` is 1
    (log-linear buckets: ``p1`` sub-buckets, floor ``2**p2``) or 2 (linear: ``p1`` wide); at most
    ``nrows`` (the overflow), as :meth:`Buckets.index` computes it.
    Returns the number of lines, or ``-(k + 1)`` when line ``k`` (0-based) is not ``nf`` integers.
    """
    n = buf.shape[0]
    line = 0
    f = 0
    x = 0
    nd = 0
    closed = False             # a space ended the field's digits: another digit is an error
    for i in range(n):
        c = buf[i]
        d = np.int64(c) - 48
        if np.uint64(d) <= 9:
            if closed:
                return -(line + 1)
            x = x * 10 + d
            nd += 1
        elif c == 44 or c == 10:   # ',' ends a field, '\n' a line
            if nd == 0 or nd > 18 or f >= nf:   # empty, longer than an int64 holds, one too many
                if c == 10 and f == 0 and nd == 0:
                    continue       # an empty line (skipped, as fio's readers do)
                return -(line + 1)
            k = sel[f]
            if k >= 0:
                if f == bfield and mode == 1:
                    m, e = math.frexp(float(x))   # x = m * 2**e, 0.5 <= m < 1
                    x = np.int64(m * 2 * p1) + e * p1 + 1 - (p2 + 2) * p1
                    x = min(max(x, 0), nrows)
                elif f == bfield and mode == 2:
                    x = min(x // p1, nrows)
                out[k, line] = x
            f += 1
            x = 0
            nd = 0
            closed = False
            if c == 10:
                if f != nf:
                    return -(line + 1)
                line += 1
                f = 0
        elif c == 32 or c == 13 or c == 9:
            closed = nd > 0
        else:
            return -(line + 1)
    if f != 0 or nd != 0:          # the piece did not end with a newline
        return -(line + 1)
    return line


if HAVE_NUMBA:
    _scan = njit(nogil=True, cache=True, boundscheck=False)(_scan_fields)
else:   # pragma: no cover
    _scan = _scan_fields


def scan_fields(buf: np.ndarray, nf: int, keep: list[int], bucket: tuple | None = None,
                out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Columns ``keep`` (field numbers) of the whole lines in ``buf`` (uint8, ends with a newline).

    Returns ``(out, nlines)`` with ``out[j]`` the values of field ``keep[j]`` (int64); ``nlines``
    is ``-(k + 1)`` when line ``k`` of the piece is damaged (then ``out`` is partly filled).
    ``out`` may be given to be reused (when it is large enough).
    ``bucket`` = ``(field, buckets)`` stores that field as its bucket number under ``buckets``
    (a :class:`~perflab.analysis.heatmap.buckets.Buckets`): the same numbers its ``index`` gives.
    """
    sel = np.full(nf, -1, np.int64)
    for j, f in enumerate(keep):
        sel[f] = j
    bfield, mode, p1, p2, nrows = -1, 0, 0, 0, 0
    if bucket is not None:
        bfield, b = bucket
        nrows = b.n
        if b.scale == "linear":
            mode, p1 = 2, b.width_ns
        else:
            mode, p1, p2 = 1, b.sub, b.floor_ns.bit_length() - 1
    # a line holds at least 2 * nf bytes (a digit and a separator per field): room for every line
    rows = len(buf) // (2 * nf) + 1
    if out is None or out.shape[0] != len(keep) or out.shape[1] < rows:
        out = np.empty((len(keep), rows), np.int64)
    n = int(_scan(buf, nf, sel, out, bfield, mode, p1, p2, nrows))
    return out[:, :max(n, 0)], n
