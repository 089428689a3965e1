"""The ``perflab heatmap`` command: a heat map of fio logs (or of saved maps) to files.

:func:`render` builds the map (from per-I/O logs, histogram logs or maps saved with
``--save``, :func:`build`) and writes its cells (CSV), a standalone page (HTML) and/or the map
(.npz).  :func:`summarise` does the same and finds the modes of the map's latency histograms
(``--summary``, :mod:`~perflab.analysis.heatmap.modes`): :func:`summary_text` words them, with a
CSV the per-column figures go to a second file beside it (:func:`modes_csv_path`), and the page
marks the columns with two modes or more in a row above each map.
"""
from __future__ import annotations

import csv as csv_mod
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence
from typing import TYPE_CHECKING, Callable

from perflab.lazy import lazy

from perflab.analysis.heatmap.buckets import format_ns
from perflab.analysis.heatmap.ingest import detect_log_kind, from_hist_log, from_lat_log, from_trace, log_paths
from perflab.analysis.heatmap.model import HeatMap, merge

if TYPE_CHECKING:
    from perflab.analysis.heatmap.modes import MapModes, Modes, WindowModes

pd = lazy("pandas")

__all__ = ["render", "build", "Built", "summarise", "summary_text", "modes_csv_path", "write_modes_csv",
           "write_outputs"]


@dataclass
class Built:
    """What :func:`build` made: the maps by value of ``by`` (key "" without it), the input files,
    whether the rows are linear, and the map or dict of maps :func:`render` returns."""
    maps: dict[str, HeatMap]
    files: list[Path]
    linear: bool
    by: str | None
    out: HeatMap | dict[str, HeatMap]


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
    b = build(paths, linear_ns=linear_ns, col_s=col_s, sub=sub, save=save, trace=trace, what=what, by=by,
              row=row, units=units)
    write_outputs(b.maps, b.files, html, csv, save, title, linear=b.linear, by=b.by)
    return b.out


def build(paths, linear_ns: int | None = None, col_s: float = 1.0, sub: int = 8,
          save: str | os.PathLike | None = None, *, trace: str | None = None, what: str = "latency",
          by: str | None = None, row: int | None = None,
          units: tuple[str | None, str | None] = (None, None)) -> Built:
    """The map(s) :func:`render` draws, built and not yet written (its arguments; ``save`` only to
    refuse one with ``by``)."""
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
        return Built({"": hm}, files, hm.scale == "linear", None, hm)
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
    return Built(maps, files, bool(linear_ns), by, out)


def summarise(paths, html: str | os.PathLike | None = None, csv: str | os.PathLike | None = None,
              linear_ns: int | None = None, col_s: float = 1.0, sub: int = 8,
              title: str | None = None, save: str | os.PathLike | None = None, *, trace: str | None = None,
              by: str | None = None, units: tuple[str | None, str | None] = (None, None),
              windows: tuple[tuple[float, float], ...] = ()) -> tuple[Built, dict[str, MapModes]]:
    """:func:`render` (latency maps only) and the modes of each map: per column, for the whole map
    and for each ``(from, to)`` seconds of ``windows`` (:func:`~perflab.analysis.heatmap.modes.map_modes`).
    With ``csv``, the per-column figures are written too, to :func:`modes_csv_path` beside it, with
    the other outputs (all of them or none); ``html`` draws the row of markers above each map where a
    column has two modes or more.  Backs ``perflab heatmap --summary``."""
    from perflab.analysis.heatmap import modes

    b = build(paths, linear_ns=linear_ns, col_s=col_s, sub=sub, save=save, trace=trace, by=by, units=units)
    for m in b.maps.values():
        if m.y != "latency":
            raise ValueError(f"--summary finds the modes of latency: these maps' rows are {m.y}")
    found = {k: modes.map_modes(m, windows) for k, m in b.maps.items()}
    extra = {}
    if csv is not None:
        extra[modes_csv_path(csv)] = lambda tmp: write_modes_csv(tmp, b.maps, found, b.by)
    write_outputs(b.maps, b.files, html, csv, save, title, linear=b.linear, by=b.by, extra=extra,
                  modes={k: f.columns for k, f in found.items()})
    return b, found


def modes_csv_path(csv: str | os.PathLike) -> Path:
    """Where ``--summary`` writes the per-column modes beside the CSV ``csv``: ``<its stem>.modes.csv``."""
    p = Path(csv)
    return p.with_name(f"{p.stem}.modes.csv")


#: The modes per column written to the modes CSV, each as its share and median.
CSV_MODES = 3


def write_modes_csv(path: str | os.PathLike, maps: dict[str, HeatMap], found: dict[str, MapModes],
                    by: str | None) -> None:
    """One row per column of each map: ``second`` (the column's start, as in the cells' CSV),
    ``events`` (those in its latency buckets: the shares' denominator), ``modes`` (how many; empty
    when too few to say), ``share_1, median_1_ns, ..., share_3, median_3_ns`` (the first three
    modes from the fastest: share 0-1, interpolated median in ns; empty where there is no such
    mode) and ``mvalue`` (Gregg's, empty for an empty column); with ``by``, its value first."""
    head = [*([by] if by is not None else []), "second", "events", "modes"]
    for i in range(1, CSV_MODES + 1):
        head += [f"share_{i}", f"median_{i}_ns"]
    head.append("mvalue")
    with open(path, "w", newline="") as f:
        w = csv_mod.writer(f)
        w.writerow(head)
        for k, hm in maps.items():
            for second, m in zip(hm.seconds().tolist(), found[k].columns):
                row = [*([k] if by is not None else []), second, m.events, "" if m.too_few else len(m.modes)]
                for i in range(CSV_MODES):
                    row += ([f"{m.modes[i].share:.4f}", round(m.modes[i].median_ns)] if i < len(m.modes)
                            else ["", ""])
                row.append("" if math.isnan(m.mvalue) else f"{m.mvalue:.3f}")
                w.writerow(row)


# --------------------------------------------------------------------------- the summary's words

def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    """Rows of cells, aligned: the columns in ``right`` to the right, the others to the left."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["   ".join(c.rjust(wd) if i in right else c.ljust(wd) for i, (c, wd) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def _modes_lines(m: Modes) -> list[str]:
    from perflab.analysis.heatmap.modes import MIN_EVENTS

    if m.too_few:
        return [f"too few I/Os to say how many modes ({m.events:,}, fewer than {MIN_EVENTS:,})"]
    rows = [["mode", "share", "I/Os", "median", "from", "to"]]
    for i, md in enumerate(m.modes, 1):
        rows.append([str(i), f"{100 * md.share:.1f}%", f"{md.events:,}", format_ns(round(md.median_ns)),
                     format_ns(md.lo_ns), format_ns(md.hi_ns)])
    return _table(rows, right={1, 2, 3, 4, 5}) + _mean_lines(m)


def _mean_lines(m: Modes) -> list[str]:
    """Where the mean lies: within a mode's central range (its own 10th to 90th percentiles), or
    in neither mode (between two, or past the first or last), or in the only mode's tail; and
    then, on a line of its own, how many of the I/Os lie near it (:attr:`Modes.mean_near_share`)."""
    from perflab.analysis.heatmap.modes import MEAN_CORE, NEAR_MEAN_OCTAVES

    def ns(x: float) -> str:
        return format_ns(round(x))

    lo_q, hi_q = MEAN_CORE
    core = f"central {100 * (hi_q - lo_q):.0f}%"
    mean = f"the mean, {ns(m.mean_ns)},"

    if m.mean_mode is not None:
        md = m.modes[m.mean_mode]
        where = "the only mode" if len(m.modes) == 1 else f"mode {m.mean_mode + 1}"
        return [f"{mean} lies in {where}: within its {core}, {ns(md.core_lo_ns)} to {ns(md.core_hi_ns)} "
                f"(its {100 * lo_q:.0f}th to {100 * hi_q:.0f}th percentiles)"]
    factor = 2 ** NEAR_MEAN_OCTAVES
    pct = 100 * m.mean_near_share
    near = (f"{pct:.1f}%" if pct >= 0.1 or pct == 0 else f"{pct:.2g}%") + (
        f" of the I/Os lie within {100 * (factor - 1):.0f}% of the mean ({ns(m.mean_ns / factor)} to "
        f"{ns(m.mean_ns * factor)})")
    first, last = m.modes[0], m.modes[-1]
    if len(m.modes) == 1:
        side = (f"lower tail: below its {core} (from {ns(first.core_lo_ns)})" if m.mean_tail == "below"
                else f"upper tail: above its {core} (to {ns(first.core_hi_ns)})")
        return [f"{mean} lies in the only mode's {side}", near]
    if m.mean_tail == "below":
        where = f"below mode 1's {core} (from {ns(first.core_lo_ns)})"
    elif m.mean_tail == "above":
        where = f"above mode {len(m.modes)}'s {core} (to {ns(last.core_hi_ns)})"
    else:
        i = m.mean_valley
        a, b = m.modes[i], m.modes[i + 1]
        where = (f"between mode {i + 1}'s {core} (to {ns(a.core_hi_ns)}) and mode {i + 2}'s "
                 f"(from {ns(b.core_lo_ns)})")
    return [f"{mean} lies in neither mode: {where}", near]


def _window_lines(hm: HeatMap, w: WindowModes) -> list[str]:
    from perflab.analysis.heatmap.modes import MIN_EVENTS

    m = w.modes
    if w.t_from_s is None and w.t_to_s is None:
        name = f"whole map, 0 to {hm.n_columns * hm.col_s:g} s"
    else:
        name = f"window [{w.t_from_s:g}, {w.t_to_s:g}) s"
    count = "" if m.too_few else f", {len(m.modes)} mode{'s' if len(m.modes) != 1 else ''}"
    lines = [f"{name}: {m.events:,} I/Os{count}"]
    body = _modes_lines(m)
    mv = "-" if math.isnan(m.mvalue) else f"{m.mvalue:.2f}"
    body.append(f"mvalue {mv} (Gregg's: the sum of |differences| between neighbouring buckets' counts over the "
                f"largest count; one peak scores 2)")
    body.append(f"columns with two modes or more: {w.columns_multimodal:,} of the {w.columns_enough:,} with "
                f"{MIN_EVENTS:,} I/Os or more ({w.columns:,} columns of {hm.col_s:g} s)")
    if w.overflow:
        over = hm.overflow_from_ns()
        where = (f"fio's histogram limit, {format_ns(over)}," if over < int(hm.edges_ns[-1])   # the cap, below the edge
                 else f"{format_ns(over)} (the top bucket's edge)")
        body.append(f"{w.overflow:,} I/Os at or above {where} are in no mode, nor in the mean")
    return lines + ["  " + ln for ln in body]


def summary_text(b: Built, found: dict[str, MapModes]) -> str:
    """What ``perflab heatmap --summary`` prints: per map (per value of ``--by``), the modes of
    the whole map and of each window, where the mean falls, the mvalue, and how many columns
    have two modes or more."""
    names = ", ".join(p.name for p in b.files[:3]) + (" ..." if len(b.files) > 3 else "")
    out = []
    for k, hm in b.maps.items():
        head = f"{b.by}={k}: " if b.by is not None else ""
        out.append(f"{head}{names}: {hm.total:,} I/Os in {hm.n_columns:,} columns of {hm.col_s:g} s")
        for w in (found[k].whole, *found[k].windows):
            out += ["  " + ln for ln in _window_lines(hm, w)]
    return "\n".join(out)


def write_outputs(maps: dict[str, HeatMap], files: list[Path], html, csv, save, title, linear: bool,
           by: str | None, extra: dict[str | os.PathLike, Callable[[Path], None]] | None = None,
           modes: dict[str, tuple[Modes, ...]] | None = None, percentiles: Sequence[float] | None = None) -> None:
    """Every output or none: each is written to a temporary file beside its destination (which is
    where an unwritable place shows), and only when all are written are they renamed into place.
    ``extra``: more outputs, each a destination and the function that writes it (to the path given);
    ``modes``: each map's modes per column, for the page's row of markers (:func:`_page`);
    ``percentiles``: the page's percentile lines over each map (``--percentiles``)."""
    outs = {k: Path(v) for k, v in (("save", save), ("csv", csv), ("html", html)) if v is not None}
    writers: dict[str, Callable[[Path], None]] = {}
    for i, (dst, fn) in enumerate((extra or {}).items()):
        outs[f"extra{i}"], writers[f"extra{i}"] = Path(dst), fn
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
            tmps["html"].write_text(_page(maps, files, title, linear, by, modes, percentiles))
        for k, fn in writers.items():
            fn(tmps[k])
        for k, t in tmps.items():
            os.chmod(t, 0o644)
            os.replace(t, outs[k])
        tmps.clear()
    finally:
        for t in tmps.values():
            t.unlink(missing_ok=True)


def _page(maps: dict[str, HeatMap], files: list[Path], title, linear: bool, by: str | None,
          modes: dict[str, tuple[Modes, ...]] | None = None, percentiles: Sequence[float] | None = None) -> str:
    """A standalone page (plotly.js inline once, so it opens offline): one figure per map, one
    under the other for a drill-down, on one colour scale; with ``modes`` (per map, its columns'
    modes: ``--summary``), each figure marks the columns with two modes or more above the map; with
    ``percentiles`` (``--percentiles``), each draws those percentiles' lines over the map."""
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
                     max_count=top if by is not None else None, modes=None if modes is None else modes[k],
                     percentiles=percentiles)
        parts.append(pio.to_html(fig, include_plotlyjs=not parts, full_html=False,
                                 config={"displaylogo": False, "responsive": True}))
    body = "\n".join(parts)
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{escape(title or names)}</title>"
            f"</head><body>\n{body}\n</body></html>\n")
