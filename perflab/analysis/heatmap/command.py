"""The ``perflab heatmap`` command: a heat map of fio logs (or of saved maps) to files.

:func:`render` builds the map (from per-I/O logs, histogram logs or maps saved with
``--save``) and writes its cells (CSV), a standalone page (HTML) and/or the map (.npz).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from perflab.analysis.heatmap.ingest import detect_log_kind, from_hist_log, from_lat_log, log_paths
from perflab.analysis.heatmap.model import HeatMap, merge
from perflab.analysis.heatmap.plot import figure

__all__ = ["render"]


def render(paths, html: str | os.PathLike | None = None, csv: str | os.PathLike | None = None,
           linear_ns: int | None = None, col_s: float = 1.0, sub: int = 8,
           title: str | None = None, save: str | os.PathLike | None = None) -> HeatMap:
    """Build a heat map from fio logs and write its cells and/or a standalone page.

    The kind of log is read from the files: a histogram log has more than 100 fields a
    line, a per-I/O log 4-7 (all files must be of one kind; empty files are skipped).
    ``csv`` gets :meth:`HeatMap.write_csv`; ``html`` a standalone page with plotly.js
    inline (it opens offline).  Backs ``perflab heatmap LOG... [--html OUT] [--csv OUT]``.
    """
    files = log_paths(paths)
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
    if hm.total == 0:
        raise ValueError(f"no I/O in {', '.join(map(str, files))}: nothing to draw (an empty log, or one "
                         "whose every line was left out)")
    _write(hm, files, html, csv, save, title, linear=bool(linear_ns))
    return hm


def _write(hm: HeatMap, files: list[Path], html, csv, save, title, linear: bool) -> None:
    """Every output or none: each is written to a temporary file beside its destination (which is
    where an unwritable place shows), and only when all are written are they renamed into place."""
    outs = {k: Path(v) for k, v in (("save", save), ("csv", csv), ("html", html)) if v is not None}
    tmps: dict[str, Path] = {}
    try:
        for k, dst in outs.items():
            try:
                fd, name = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=dst.suffix or ".tmp", dir=dst.parent)
            except OSError as e:
                raise OSError(f"cannot write {dst}: {e.strerror or e}") from None
            os.close(fd)
            tmps[k] = Path(name)
        if "save" in tmps:
            hm.save(tmps["save"])
        if "csv" in tmps:
            hm.write_csv(tmps["csv"])
        if "html" in tmps:
            if title is None:
                names = ", ".join(p.name for p in files[:3]) + (" ..." if len(files) > 3 else "")
                title = f"{names}: {hm.total:,} I/Os"
            fig = figure(hm, title=title, linear=linear)
            fig.write_html(tmps["html"], include_plotlyjs=True, full_html=True,
                           config={"displaylogo": False, "responsive": True})
        for k, t in tmps.items():
            os.chmod(t, 0o644)
            os.replace(t, outs[k])
        tmps.clear()
    finally:
        for t in tmps.values():
            t.unlink(missing_ok=True)
