"""The ``perflab heatmap`` command: a heat map of fio logs (or of saved maps) to files.

:func:`render` builds the map (from per-I/O logs, histogram logs or maps saved with
``--save``) and writes its cells (CSV), a standalone page (HTML) and/or the map (.npz).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from perflab.lazy import lazy

from perflab.analysis.heatmap.ingest import detect_log_kind, from_hist_log, from_lat_log, from_trace, log_paths
from perflab.analysis.heatmap.model import HeatMap, merge

pd = lazy("pandas")

__all__ = ["render", "write_outputs"]


def render(paths, html: str | os.PathLike | None = None, csv: str | os.PathLike | None = None,
           linear_ns: int | None = None, col_s: float = 1.0, sub: int = 8,
           title: str | None = None, save: str | os.PathLike | None = None, *, trace: str | None = None,
           what: str = "latency", by: str | None = None, row: int | None = None,
           units: tuple[str | None, str | None] = (None, None)) -> HeatMap | dict[str, HeatMap]:
    """Build a heat map from fio logs (or tracer output, or saved maps) and write its cells and/or
    a standalone page.

    The kind of fio log is read from the files: a histogram log has more than 100 fields a
    line, a per-I/O log 4-7 (all files must be of one kind; empty files are skipped).
    ``trace`` reads tracer output instead (bpftrace, biosnoop, blkparse, trace2heatmap; ``units``:
    the time and latency columns' units of the last).  ``what``: the rows
    are latency, disk offset or the time within the second; ``by``: one map per value of that
    dimension (drawn one under the other on one colour scale; the CSV gets a column for it).
    ``csv`` gets :meth:`HeatMap.write_csv`; ``html`` a standalone page with plotly.js inline (it
    opens offline).  Backs ``perflab heatmap``.
    """
    files = log_paths(paths)
    saved = [p for p in files if p.suffix == ".npz"]
    if saved and len(saved) != len(files):
        raise ValueError("give either fio logs or saved maps (.npz), not both: "
                         + ", ".join(str(p) for p in files))
    if by is not None and save is not None:
        raise ValueError("--save keeps one map: leave out --by (or save each value's map apart)")
    if saved:   # maps saved with --save: their sum, cell for cell
        if trace or by or what != "latency":
            raise ValueError("saved maps are merged as they are: --trace, --by and --map do not apply")
        hm = merge(HeatMap.load(p) for p in saved)
        write_outputs({"": hm}, files, html, csv, save, title, linear=hm.scale == "linear", by=None)
        return hm
    if trace is not None:
        out = from_trace(files, trace, col_s=col_s, sub=sub, linear_ns=linear_ns, what=what, by=by, row=row,
                         units=units)
    elif units != (None, None):
        raise ValueError("--units-time and --units-latency are for --trace trace2heatmap")
    else:
        kinds = {k for k in (detect_log_kind(p) for p in files) if k is not None}
        if len(kinds) > 1:
            raise ValueError("cannot mix histogram logs and per-I/O logs in one heat map: "
                             + ", ".join(f"{p} ({detect_log_kind(p)})" for p in files))
        if kinds == {"hist"}:
            if what != "latency" or by is not None:
                raise ValueError("a histogram log holds latency counts only: --map offset/subsecond and "
                                 "--by need per-I/O logs (log_avg_msec=0)")
            out = from_hist_log(files, col_s=col_s, sub=sub, linear_ns=linear_ns)
        else:
            out = from_lat_log(files, col_s=col_s, sub=sub, linear_ns=linear_ns, what=what, by=by, row=row)
    maps = out if isinstance(out, dict) else {"": out}
    if sum(m.total for m in maps.values()) == 0:
        raise ValueError(f"no I/O in {', '.join(map(str, files))}: nothing to draw (an empty log, or one "
                         "whose every line was left out)")
    write_outputs(maps, files, html, csv, save, title, linear=bool(linear_ns), by=by)
    return out


def write_outputs(maps: dict[str, HeatMap], files: list[Path], html, csv, save, title, linear: bool,
           by: str | None) -> None:
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
            maps[""].save(tmps["save"])
        if "csv" in tmps:
            if by is None:
                maps[""].write_csv(tmps["csv"])
            else:   # the dimension's value first, then the cells' own columns
                pd.concat([m.cells().assign(**{by: k}) for k, m in maps.items()]).pipe(
                    lambda df: df[[by, *df.columns[:-1]]]).to_csv(tmps["csv"], index=False)
        if "html" in tmps:
            tmps["html"].write_text(_page(maps, files, title, linear, by))
        for k, t in tmps.items():
            os.chmod(t, 0o644)
            os.replace(t, outs[k])
        tmps.clear()
    finally:
        for t in tmps.values():
            t.unlink(missing_ok=True)


def _page(maps: dict[str, HeatMap], files: list[Path], title, linear: bool, by: str | None) -> str:
    """A standalone page (plotly.js inline once, so it opens offline): one figure per map, one
    under the other for a drill-down, on one colour scale."""
    from html import escape

    import plotly.io as pio

    from perflab.analysis.heatmap.plot import figure   # only for a page: a small command need not load it

    names = ", ".join(p.name for p in files[:3]) + (" ..." if len(files) > 3 else "")
    total = sum(m.total for m in maps.values())
    what = next(iter(maps.values())).y
    top = max(int(m.counts.max()) if m.counts.size else 1 for m in maps.values())
    parts = []
    for k, m in maps.items():
        t = title or f"{names}: {total:,} I/Os"
        if by is not None:
            t = f"{t}<br>{by} = {k}: {m.total:,} I/Os"
        fig = figure(m, title=t if what == "latency" else f"{t} ({what} map)", linear=linear,
                     max_count=top if by is not None else None)
        parts.append(pio.to_html(fig, include_plotlyjs=not parts, full_html=False,
                                 config={"displaylogo": False, "responsive": True}))
    body = "\n".join(parts)
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{escape(title or names)}</title>"
            f"</head><body>\n{body}\n</body></html>\n")
