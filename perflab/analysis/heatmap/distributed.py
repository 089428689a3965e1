"""Heat maps binned on a Dask cluster, for traces that outgrow one machine (the ``dask`` extra).

Each file becomes a partial map on a worker (the same streaming reader as
:func:`~perflab.analysis.heatmap.ingest.from_lat_log`); the partial maps are added up in a
tree (:func:`~perflab.analysis.heatmap.model.merge`: bucket counts added, columns aligned on
one clock and re-binned to the widest a worker needed).  The cells are the same as the local
path's (a test checks it on a local cluster).  Nothing here is home-made scheduling: Dask's
``delayed`` and its scheduler do the work; any ``distributed.Client`` (a local one, or one of a
department's cluster) is used when one is active.
"""
from __future__ import annotations

from perflab.analysis.heatmap.ingest import from_hist_log, from_lat_log, from_trace, log_paths
from perflab.analysis.heatmap.model import HeatMap, merge

__all__ = ["from_files"]


def _partial(path: str, kind: str, kw: dict) -> HeatMap:
    if kind == "hist":
        return from_hist_log([path], **kw)
    if kind == "per-io":
        return from_lat_log([path], **kw)
    return from_trace([path], kind, **kw)


def from_files(paths, kind: str = "per-io", split_every: int = 8, **kw) -> HeatMap:
    """One map of many files binned in parallel by Dask: ``kind`` is "per-io" or "hist" (fio
    logs) or a tracer form; ``kw`` goes to the reader (``col_s``, ``sub``, ``linear_ns``, ...;
    not ``by``).  Runs on the active ``distributed.Client`` if there is one, else on Dask's
    local threads."""
    try:
        import dask
    except ImportError:   # the optional extra
        raise ImportError("Dask is not installed: pip install 'perflab[dask]'") from None
    if kw.get("by") is not None:
        raise ValueError("from_files makes one map: drill down (by) on the merged maps' sources instead")
    parts = [dask.delayed(_partial)(str(p), kind, kw) for p in log_paths(paths)]
    while len(parts) > 1:   # a tree of sums, split_every maps a node
        parts = [dask.delayed(merge)(parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    (out,) = dask.compute(parts[0])
    return out
