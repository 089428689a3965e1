"""Latency heat maps: the book's signature figure.

"Reading latency heat maps" (chapters/heatmaps.md) explains how to read them; this
package builds them from fio's logs (see :mod:`perflab.fiolog`) and draws them.

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
    A histogram-log line is stamped at the END of its period and counted whole in one
    column: the one holding the middle of its period's second half, where fio's own parser
    puts most of it (``ingest.hist_line_times`` says why, late and stalled lines too; so
    ``col_s`` should be a multiple of ``log_hist_msec``).

Building a map from a per-I/O log streams the file in pieces of a few MB through
pyarrow's CSV parser (on a second thread) and counts with ``np.bincount``; memory stays
at a few piece sizes whatever the log's size.

Modules (each imports only those above it):

- :mod:`~perflab.analysis.heatmap.buckets`: the latency bucket scheme (:class:`Buckets`), bucket
  labels and the number and unit formats they use.
- :mod:`~perflab.analysis.heatmap.model`: the :class:`HeatMap` (percentiles, tables, save and load)
  and :func:`merge`, the exact sum of partial maps.
- :mod:`~perflab.analysis.heatmap.ingest`: maps streamed from fio's logs (:func:`from_lat_log`,
  :func:`from_hist_log`, :func:`detect_log_kind`), under a memory cap (:data:`MAX_MAP_BYTES`).
- :mod:`~perflab.analysis.heatmap.modes`: the modes of a map's latency histograms, per column
  (:func:`column_modes`), per window (:func:`window_modes`) or both (:func:`map_modes`), of any
  histogram (:func:`find_modes`), and Gregg's :func:`mvalue`.
- :mod:`~perflab.analysis.heatmap.plot`: the plotly :func:`figure`, its colour scale and ticks (and,
  given the modes per column, the row of markers above the map where a column has two or more).
- :mod:`~perflab.analysis.heatmap.command`: :func:`render`, what ``perflab heatmap`` writes, and
  :func:`summarise`, what ``perflab heatmap --summary`` adds.

The names below are this package's: ``from perflab.analysis import heatmap; heatmap.figure(...)``.
Each is imported from its module when first asked for (PEP 562), so that ``perflab heatmap`` on a
small histogram log loads neither the plotting nor the per-I/O log readers it does not use
(``benchmarks/bench_startup.py`` measures the command's start-up).
"""
from __future__ import annotations

import importlib

_WHERE = {
    "Buckets": "buckets", "bucket_labels": "buckets", "LINEAR_MAX_BUCKETS": "buckets",
    "HeatMap": "model", "merge": "model",
    "from_lat_log": "ingest", "from_hist_log": "ingest", "from_trace": "ingest", "from_events": "ingest",
    "detect_log_kind": "ingest", "MAX_MAP_BYTES": "ingest", "OFFSET_ROWS": "ingest",
    "find_modes": "modes", "column_modes": "modes", "window_modes": "modes", "map_modes": "modes",
    "mvalue": "modes",
    "figure": "plot",
    "render": "command", "summarise": "command",
}

__all__ = list(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value   # asked once
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
