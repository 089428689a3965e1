"""Read what fio writes: its JSON report, per-I/O latency logs and histogram logs.

The book explains these files, and what each column means, in "Reading latency heat
maps" (chapters/heatmaps.md); this module only turns them into arrays and tables.

Formats (fio 3.33, checked on the book's machines):

* JSON report (``--output-format=json``).  fio may print warnings, or the client/server
  preamble, before the ``{``; :func:`read_fio_json` skips every line before the first
  line that starts with ``{``.
* Per-I/O latency log (``write_lat_log=NAME`` with ``log_avg_msec=0``), e.g.
  ``NAME_clat.1.log``: one line per I/O, ``time_ms, value_ns, ddir, bs, prio`` or, with
  ``log_offset=1``, ``time_ms, value_ns, ddir, bs, offset, prio``.  ``time_ms`` counts
  from the job's start; ``ddir`` is 0 read, 1 write, 2 trim, 3 sync.  (Logs written
  with ``log_avg_msec>0`` hold interval averages, not I/Os, and make no heat map.)
* Histogram log (``write_hist_log=NAME``, ``log_hist_msec=M``), ``NAME_clat_hist.1.log``:
  ``time_ms, ddir, bs, c0 .. c1855``: completion-latency counts of the interval that
  ENDS at ``time_ms`` (deltas, not running totals) in fio's 1856 log-linear bins, see
  :func:`fio_bin_edges_ns`.  fio writes a line at the first completion at least
  ``log_hist_msec`` after the period began (a direction's first period begins at its first
  completion, not at the job's start), so stamps come a little late, and late after a stall.
  The last, partial interval of a run may be missing.

Large logs are parsed with ``pyarrow.csv`` (multi-threaded C++), never with Python
loops or pandas' CSV reader; a damaged log (a truncated last line, a line with the
wrong number of fields, a non-number) raises :class:`FioLogError` naming the file and
the line.
"""
from __future__ import annotations

from perflab.errors import Refused

import json
import zlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perflab.lazy import lazy

# loaded when first used: a histogram log needs neither (perflab heatmap starts faster without them)
pd = lazy("pandas")
pa = lazy("pyarrow")
pcsv = lazy("pyarrow.csv")

__all__ = [
    "FioOutputError", "FioLogError", "HistLog", "DDIR_NAMES",
    "read_fio_json", "loads_fio_json", "job_table",
    "read_lat_log", "read_hist_log", "log_field_count", "lat_log_columns", "check_last_line", "find_bad_line",
    "fio_bin_edges_ns", "fio_hist_limit_ns", "FIO_HIST_LIMIT_NS", "FIO_IO_U_PLAT_BITS", "FIO_IO_U_PLAT_VAL", "FIO_IO_U_PLAT_NR",
]

# fio's histogram geometry (stat.h): 29 groups of 64 bins.
FIO_IO_U_PLAT_BITS = 6
FIO_IO_U_PLAT_VAL = 1 << FIO_IO_U_PLAT_BITS
FIO_IO_U_PLAT_GROUP_NR = 29
FIO_IO_U_PLAT_NR = FIO_IO_U_PLAT_GROUP_NR * FIO_IO_U_PLAT_VAL  # 1856

DDIR_NAMES = {0: "read", 1: "write", 2: "trim", 3: "sync"}

#: Lines in a log with more fields than this are histogram lines.
HIST_MIN_FIELDS = 100
#: fio stamps log lines in milliseconds from the job's start, or, with ``log_unix_epoch=1``
#: (common with ``fio --client``), in Unix-epoch milliseconds. Stamps at or above this value
#: (2001-09-09) are epoch stamps: a job-relative stamp would need a 31-year run to reach it.
EPOCH_MIN_MS = 10 ** 12


class FioOutputError(Refused, ValueError):
    """fio's output could not be parsed; the message names the file and the position."""


class FioLogError(FioOutputError):
    """A latency or histogram log is damaged; the message names the file and the line."""


# --------------------------------------------------------------------------- JSON

def loads_fio_json(text: str, source: str = "<string>") -> dict:
    """Parse fio's JSON report from ``text`` (see :func:`read_fio_json`)."""
    start = None
    pos = 0
    while pos <= len(text):
        if text.startswith("{", pos):
            start = pos
            break
        nl = text.find("\n", pos)
        if nl < 0:
            break
        pos = nl + 1
    if start is None:
        if not text.strip():
            raise FioOutputError(f"{source}: empty: fio wrote no report (did it run to the end?)")
        raise FioOutputError(f"{source}: no JSON report found (no line starts with '{{')")
    try:
        result, _end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        at = exc.pos
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        raise FioOutputError(
            f"{source}: fio JSON is truncated or corrupt at line {line} column {col} "
            f"(character offset {at}): {exc.msg}") from None
    if not isinstance(result, dict):
        raise FioOutputError(f"{source}: line {text.count(chr(10), 0, start) + 1}: "
                             f"expected a JSON object, found {type(result).__name__}")
    return result


def read_fio_json(path: str | os.PathLike) -> dict:
    """Read fio's ``--output-format=json`` report.

    Any text before the first line that starts with ``{`` (fio warnings, the
    client/server preamble) is skipped, and so is anything after the object.  A
    truncated or corrupt report raises :class:`FioOutputError` whose message names
    the file and the line, column and character offset where parsing failed.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    return loads_fio_json(text, str(path))


_PCTS = {"p50": "50.000000", "p90": "90.000000", "p99": "99.000000", "p99_9": "99.900000"}


def job_table(result: dict) -> pd.DataFrame:
    """One row per (job, data direction) that did I/O (``total_ios > 0``).

    Columns: ``job, ddir, iops, bw_bytes, total_ios, runtime_ms, clat_mean_ns,
    clat_p50_ns, clat_p90_ns, clat_p99_ns, clat_p99_9_ns`` (percentiles are NaN when
    fio did not report them), plus ``hostname`` for client/server reports.
    """
    jobs = result.get("jobs")
    if jobs is None:  # fio --client: per-client entries, plus an "All clients" sum
        jobs = result.get("client_stats", [])
    rows: list[dict[str, Any]] = []
    for job in jobs:
        for ddir in ("read", "write", "trim", "sync"):
            d = job.get(ddir)
            if not isinstance(d, dict) or not d.get("total_ios"):
                continue
            clat = d.get("clat_ns") or d.get("lat_ns") or {}
            pct = clat.get("percentile") or {}
            row = {
                "job": job.get("jobname", ""),
                "ddir": ddir,
                "iops": float(d.get("iops", math.nan)),
                "bw_bytes": float(d.get("bw_bytes", math.nan)),
                "total_ios": int(d["total_ios"]),
                "runtime_ms": float(d.get("runtime", job.get("job_runtime", math.nan))),
                "clat_mean_ns": float(clat.get("mean", math.nan)),
            }
            for name, key in _PCTS.items():
                row[f"clat_{name}_ns"] = float(pct.get(key, math.nan))
            if "hostname" in job:
                row["hostname"] = job["hostname"]
            rows.append(row)
    cols = ["job", "ddir", "iops", "bw_bytes", "total_ios", "runtime_ms", "clat_mean_ns"]
    cols += [f"clat_{n}_ns" for n in _PCTS]
    df = pd.DataFrame(rows, columns=cols + (["hostname"] if any("hostname" in r for r in rows) else []))
    return df.astype({"total_ios": "int64"})


# --------------------------------------------------------------------------- logs

def open_log(path: str | os.PathLike, buffering: int = -1):
    """Open a log for reading bytes; `.gz` files (as kept in data/reference/) are decompressed."""
    if str(path).endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    return open(path, "rb", buffering=buffering)


def first_time_ms(paths, hist: bool = False, interval_ms: int = 1000) -> int:
    """The earliest time stamp of some fio logs (epoch ms with log_unix_epoch=1); for histogram
    logs, whose stamps end their interval, the start of the first interval."""
    best = None
    for p in paths:
        with open_log(p) as f:
            line = f.readline()
        if line.strip():
            t = int(line.split(b",", 1)[0]) - (interval_ms if hist else 0)
            best = t if best is None else min(best, t)
    if best is None:
        raise FioLogError(f"no time stamps: the logs are empty: {[str(p) for p in paths]}")
    return best


def log_field_count(path: str | os.PathLike) -> int:
    """Number of comma-separated fields on the first line of a log (0 for an empty file)."""
    with open_log(path) as f:
        first = f.readline(1 << 20)
    if not first.strip():
        return 0
    return first.count(b",") + 1


#: lines read to tell a log of averages from a per-I/O log
AVERAGED_HEAD_LINES = 16


def averaged_log(path: str | os.PathLike) -> bool:
    """Is `path` a log of fio's averages (``log_avg_msec`` > 0): every one of its first lines with a
    block size of 0? fio writes an averaged sample with block size 0 (and offset 0); a per-I/O line
    carries its I/O's size. Each line is then an interval's mean latency, not one I/O's."""
    sizes = []
    with open_log(path) as f:
        for line in f:
            fields = line.split(b",")
            if len(fields) >= 4 and fields[0].strip():
                sizes.append(fields[3].strip())
            if len(sizes) >= AVERAGED_HEAD_LINES:
                break
    return bool(sizes) and all(x == b"0" for x in sizes)


def lat_log_columns(n_fields: int, path: str | os.PathLike = "") -> list[str]:
    """Column names of a per-I/O log line with ``n_fields`` fields.

    4: ``time, value, ddir, bs`` (old fio); 5: ``+ prio`` (fio 3.33 without
    ``log_offset``); 6: ``+ offset, prio``; 7: ``+ offset, prio, issue_time`` (newer fio).
    """
    base = ["time_ms", "lat_ns", "ddir", "bs"]
    if n_fields == 4:
        return base
    if n_fields == 5:
        return base + ["prio"]
    if n_fields == 6:
        return base + ["offset", "prio"]
    if n_fields == 7:
        return base + ["offset", "prio", "issue_time"]
    kind = "a histogram log" if n_fields > HIST_MIN_FIELDS else "not a per-I/O latency log"
    raise FioLogError(f"{path}:1: {n_fields} fields per line: {kind} "
                      "(expected 4-7: time, value, ddir, bs[, offset], prio)")


def check_last_line(path: Path) -> None:
    """fio ends every line with a newline: a file that does not was cut short."""
    size = path.stat().st_size
    if size == 0:
        return
    if str(path).endswith(".gz"):
        n, last = 0, b"\n"
        try:
            with open_log(path) as f:
                while chunk := f.read(1 << 24):
                    n += chunk.count(b"\n")
                    last = chunk[-1:]
        except (EOFError, OSError, zlib.error) as e:   # gzip.BadGzipFile is an OSError
            raise FioLogError(f"{path}: a damaged or cut-short gzip file ({e})") from None
        if last != b"\n":
            raise FioLogError(f"{path}:{n + 1}: truncated last line (no newline at end of file)")
        return
    with open(path, "rb") as f:
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        f.seek(0)
        n = 0
        while chunk := f.read(1 << 24):
            n += chunk.count(b"\n")
    raise FioLogError(f"{path}:{n + 1}: truncated last line (no newline at end of file)")


def find_bad_line(path: Path, n_fields: int, exc: Exception) -> FioLogError:
    """Locate the first malformed line after pyarrow rejected the file (slow path)."""
    with open_log(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip(b"\r\n")
            if not line.strip():
                continue
            parts = line.split(b",")
            if len(parts) != n_fields:
                return FioLogError(
                    f"{path}:{lineno}: expected {n_fields} fields, found {len(parts)}: "
                    f"{line[:120].decode(errors='replace')!r}")
            for p in parts:
                if not p.strip().isdigit():   # fio writes unsigned decimal integers only
                    return FioLogError(f"{path}:{lineno}: not an unsigned integer: "
                                       f"{p.strip()[:40].decode(errors='replace')!r}")
    return FioLogError(f"{path}: cannot parse log: {exc}")


def _read_options(names: list[str], block_size: int | None = None) -> pcsv.ReadOptions:
    kw = {"column_names": names, "use_threads": True}
    if block_size:
        kw["block_size"] = block_size
    return pcsv.ReadOptions(**kw)


def read_lat_log(path: str | os.PathLike) -> pd.DataFrame:
    """Read a per-I/O latency log (``log_avg_msec=0``) into a DataFrame.

    Columns: ``time_ms`` int64 (ms since the job started), ``lat_ns`` int64, ``ddir``
    int8 (0 read, 1 write, 2 trim, 3 sync), ``bs`` int64 and ``offset`` int64 (-1 when
    the log was written without ``log_offset=1``).  Both the 5-field and the 6-field
    forms are accepted.  A truncated last line or a malformed line raises
    :class:`FioLogError` naming the file and the line number.
    """
    path = Path(path)
    nf = log_field_count(path)
    out_cols = ["time_ms", "lat_ns", "ddir", "bs", "offset"]
    if nf == 0:
        return pd.DataFrame({"time_ms": np.zeros(0, np.int64), "lat_ns": np.zeros(0, np.int64),
                             "ddir": np.zeros(0, np.int8), "bs": np.zeros(0, np.int64),
                             "offset": np.zeros(0, np.int64)})[out_cols]
    names = lat_log_columns(nf, path)
    check_last_line(path)
    keep = [c for c in out_cols if c in names]
    types = {c: pa.int64() for c in keep}
    types["ddir"] = pa.int8()
    try:
        table = pcsv.read_csv(
            path, read_options=_read_options(names),
            convert_options=pcsv.ConvertOptions(include_columns=keep, column_types=types))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise find_bad_line(path, nf, exc) from None
    if any(table.column(c).null_count for c in keep):
        raise find_bad_line(path, nf, ValueError("empty field"))
    df = table.to_pandas()
    if "offset" not in df:
        df["offset"] = np.full(len(df), -1, np.int64)
    return df[out_cols]


@dataclass
class HistLog:
    """A fio histogram log: one row per (interval, ddir) line.

    ``time_ms`` is the END of each line's interval (ms since the job started); its I/Os
    completed after the previous line of the same ddir (the first line's after the job's
    start; fio began its first period at the first completion, which the log does not say).
    Where a heat map counts each line: :func:`perflab.analysis.heatmap.ingest.hist_line_times`.
    ``counts[i, j]`` is the number of I/Os of line ``i`` whose completion latency fell in
    fio bin ``j`` (edges from ``fio_bin_edges_ns(coarseness)``).
    """
    time_ms: np.ndarray          # int64 [n]
    ddir: np.ndarray             # int8 [n]
    bs: np.ndarray               # int64 [n]
    counts: np.ndarray           # int64 [n, 1856 >> coarseness]
    path: str = ""
    coarseness: int = 0

    @property
    def edges_ns(self) -> np.ndarray:
        return fio_bin_edges_ns(self.coarseness)

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def interval_start_ms(self) -> np.ndarray:
        """The earliest each line's I/Os can have completed: the previous time stamp of the same
        ddir. For the first line, 0 (the job's start) in a job-relative log; in an epoch-stamped
        log (``log_unix_epoch=1``) one typical interval (the median step) before its end."""
        start = np.zeros_like(self.time_ms)
        for d in sorted(set(self.ddir.tolist())):   # not np.unique: it imports numpy.ma (20 ms of a small command)
            idx = np.flatnonzero(self.ddir == d)
            t = self.time_ms[idx]
            order = np.argsort(t, kind="stable")          # lines may come out of order
            ts = t[order]
            st = np.empty_like(ts)
            st[1:] = ts[:-1]
            if len(ts) and ts[0] >= EPOCH_MIN_MS:
                step = int(np.median(np.diff(ts))) if len(ts) > 1 else 0
                st[0] = ts[0] - step
            elif len(ts):
                st[0] = 0
            start[idx[order]] = st
        return start


#: a log up to this size (as read, decompressed) is parsed with numpy alone; a larger one with pyarrow's
#: threaded reader
SMALL_LOG_BYTES = 8 << 20


def _small_log(path: Path) -> bytes | None:
    """The whole log's bytes when it holds at most SMALL_LOG_BYTES, else None."""
    with open_log(path) as f:
        data = f.read(SMALL_LOG_BYTES + 1)
    return data if len(data) <= SMALL_LOG_BYTES else None


def _small_hist_fields(path: Path, nf: int, data: bytes) -> np.ndarray:
    """The fields of a small histogram log, a row a line: by the compiled scanner (a few ms), or
    where it is not built by numpy's string conversion (about 40 ms for 119 lines of 1859 fields)."""
    from perflab.fio.scan import HAVE_SCANNER, scan_fields

    if HAVE_SCANNER:
        cols, n = scan_fields(np.frombuffer(data, np.uint8), nf, list(range(nf)))
        if n < 0:
            raise find_bad_line(path, nf, ValueError(f"a line is not {nf} unsigned integers"))
        return cols.T
    try:
        flat = np.array(data.replace(b",", b" ").split()).astype(np.int64)
    except ValueError as exc:
        raise find_bad_line(path, nf, exc) from None
    if flat.size % nf:
        raise find_bad_line(path, nf, ValueError(f"a line has other than {nf} fields"))
    return flat.reshape(-1, nf)


def read_hist_log(path: str | os.PathLike) -> HistLog:
    """Read a fio histogram log (``write_hist_log``, ``log_hist_msec``).

    Lines are ``time_ms, ddir, bs, c0, ..., c1855``; logs written with
    ``log_hist_coarseness=C`` have ``1856 >> C`` counts and are accepted too.
    """
    path = Path(path)
    nf = log_field_count(path)
    if nf == 0:
        return HistLog(np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int64),
                       np.zeros((0, FIO_IO_U_PLAT_NR), np.int64), str(path), 0)
    nbins = nf - 3
    coarse = {FIO_IO_U_PLAT_NR >> c: c for c in range(7)}
    if nbins not in coarse:
        raise FioLogError(f"{path}:1: {nf} fields per line: not a fio histogram log "
                          f"(expected 3 + {FIO_IO_U_PLAT_NR} fields)")
    check_last_line(path)
    small = _small_log(path)
    if small is not None:   # without pyarrow: importing it (and the pandas it loads) costs more than the parse
        a = _small_hist_fields(path, nf, small)
        return HistLog(time_ms=a[:, 0].copy(), ddir=a[:, 1].astype(np.int8), bs=a[:, 2].copy(),
                       counts=np.ascontiguousarray(a[:, 3:]), path=str(path), coarseness=coarse[nbins])
    names = ["time_ms", "ddir", "bs"] + [f"c{i}" for i in range(nbins)]
    types = {n: pa.int64() for n in names}
    try:
        table = pcsv.read_csv(path, read_options=_read_options(names),
                              convert_options=pcsv.ConvertOptions(column_types=types))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise find_bad_line(path, nf, exc) from None
    n = table.num_rows
    if any(col.null_count for col in table.columns):
        raise find_bad_line(path, nf, ValueError("empty field"))
    counts = np.empty((n, nbins), np.int64)
    for j in range(nbins):
        counts[:, j] = table.column(3 + j).to_numpy()
    return HistLog(time_ms=table.column(0).to_numpy().astype(np.int64),
                   ddir=table.column(1).to_numpy().astype(np.int8),
                   bs=table.column(2).to_numpy().astype(np.int64),
                   counts=counts, path=str(path), coarseness=coarse[nbins])


def fio_bin_edges_ns(coarseness: int = 0) -> np.ndarray:
    """The ``1856 + 1`` edges (ns, int64) of fio's completion-latency histogram bins.

    Bin ``i`` covers ``[edges[i], edges[i+1])``.  Bins below 128 hold one value each;
    above, ``error_bits = (i >> 6) - 1``, ``base = 1 << (error_bits + 6)`` and bin ``i``
    starts at ``base + (i % 64) << error_bits`` (fio's stat.c, and ``_plat_idx_to_val``
    in tools/hist/fiologparser_hist.py).  The last edge is ``2**34`` ns; fio itself puts
    larger values into the last bin.  ``coarseness=C`` gives the edges of logs written
    with ``log_hist_coarseness=C`` (every ``2**C`` bins merged).
    """
    idx = np.arange(FIO_IO_U_PLAT_NR + 1, dtype=np.int64)
    edges = idx.copy()
    hi = idx >= 2 * FIO_IO_U_PLAT_VAL
    error_bits = (idx[hi] >> FIO_IO_U_PLAT_BITS) - 1
    base = np.left_shift(1, error_bits + FIO_IO_U_PLAT_BITS)
    edges[hi] = base + np.left_shift(idx[hi] % FIO_IO_U_PLAT_VAL, error_bits)
    # idx == 1856 is "group 29, k=0", i.e. 2**34: the end of the last bin.
    if not 0 <= coarseness <= FIO_IO_U_PLAT_BITS:
        raise ValueError(f"coarseness must be 0..{FIO_IO_U_PLAT_BITS}, not {coarseness}")
    return edges[:: 1 << coarseness].copy()


def fio_hist_limit_ns(coarseness: int = 0) -> int:
    """fio's histogram limit: the lower edge of its top bin (``2**34 - 2**27`` ns, about 17.05 s,
    at ``coarseness=0``; of the top merged bin with ``log_hist_coarseness=C``).

    fio (stat.c, ``plat_val_to_idx``) puts every latency past its last bin into that bin, so its
    count is of I/Os at or above this value, not of I/Os inside ``[limit, 2**34)``: read it as "at
    or above fio's histogram limit", never as a latency.
    """
    return int(fio_bin_edges_ns(coarseness)[-2])


#: :func:`fio_hist_limit_ns` of a log written without coarseness: 17,045,651,456 ns.
FIO_HIST_LIMIT_NS = (1 << 34) - (1 << 27)
