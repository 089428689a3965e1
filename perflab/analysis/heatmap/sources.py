"""Where events come from: fio's per-I/O logs, read in pieces, as :class:`Events`.

An :class:`Events` piece holds, for each I/O, its completion time (ms, on the source's own
clock), and where the source has them its latency (ns), its disk offset (bytes) and its
*dimensions* (what a map can be drilled down by: the operation, the job, the client host, the
process, the disk).  :mod:`~perflab.analysis.heatmap.traces` reads the block-layer tracers'
text into the same pieces, and :mod:`~perflab.analysis.heatmap.ingest` counts them into maps.

A per-I/O log is read in pieces of a few MB of whole lines.  With the compiled scanner (built
when the package is installed) the pieces are parsed by
:func:`~perflab.fio.scan.scan_fields` on two threads at once (the GIL is released);
without it, by pyarrow's CSV reader on a second thread (the previous pipeline, kept as
``engine="arrow"``: the benchmark runs both).
"""
from __future__ import annotations

import os
import queue
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from perflab.fio.logs import (DDIR_NAMES, FioLogError, check_last_line, find_bad_line, lat_log_columns,
                              log_field_count, open_log)
from perflab.lazy import lazy

# loaded when a per-I/O log is read without the compiled scanner: pyarrow costs a small command's
# start-up, and a histogram log or a trace does not need it
pa = lazy("pyarrow")
pcsv = lazy("pyarrow.csv")

__all__ = ["Events", "Dim", "fio_events", "fio_file_dims", "prefetch", "ENGINES"]

ENGINES = ("auto", "compiled", "arrow")


@dataclass(frozen=True)
class Dim:
    """A dimension's values for a piece: ``codes`` (int64, one per event) naming ``labels[code]``."""
    codes: np.ndarray
    labels: tuple[str, ...]

    @classmethod
    def constant(cls, label: str, n: int) -> "Dim":
        return cls(np.broadcast_to(np.int64(0), (n,)), (label,))   # a view: no memory per event


@dataclass
class Events:
    """One piece of a source: times (ms) and, where the source has them, latency, offset, dimensions."""
    t_ms: np.ndarray
    lat_ns: np.ndarray | None = None
    offset: np.ndarray | None = None
    dims: dict[str, Dim] = field(default_factory=dict)
    where: str = ""
    row: np.ndarray | None = None     # latency already as bucket numbers (the fast fio path)
    notes: tuple[str, ...] = ()       # what the reader says of its source (lines it skipped): the map's notes

    def __len__(self) -> int:
        return len(self.t_ms)

    def take(self, sel: np.ndarray) -> "Events":
        """The events where ``sel`` (a boolean mask or indexes) holds."""
        def part(a):
            return None if a is None else a[sel]
        return Events(self.t_ms[sel], part(self.lat_ns), part(self.offset),
                      {k: Dim(d.codes[sel], d.labels) for k, d in self.dims.items()}, self.where,
                      part(self.row))


_CLIENT_SUFFIX = re.compile(r"\.log\.(.+?)(\.gz)?$")
_JOB = re.compile(r"^(.*?)_(clat|slat|lat|bw|iops)(_hist)?\.(\d+)\.log")


def fio_file_dims(path: str | os.PathLike) -> dict[str, str]:
    """What a fio log's name says: ``job`` (the name before ``_clat`` etc., with the job number)
    and ``client`` (the host suffix ``fio --client`` adds after ``.log``, else "local")."""
    name = Path(path).name
    m = _JOB.match(name)
    job = f"{m.group(1)}.{m.group(4)}" if m else re.sub(r"(\.log)?(\.gz)?$", "", name)
    c = _CLIENT_SUFFIX.search(name)
    return {"job": job, "client": c.group(1) if c else "local", "file": name}


def prefetch(it: Iterator, depth: int = 3) -> Iterator:
    """Run ``it`` on a second thread (pyarrow parses without the GIL) while the caller counts."""
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

    th = threading.Thread(target=work, name="perflab-read", daemon=True)
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


def _pieces(path: Path, chunk_bytes: int) -> Iterator[np.ndarray]:
    """The file as uint8 arrays of whole lines, about ``chunk_bytes`` each (a fresh array each:
    pieces are parsed while the next is read).  A last line without a newline raises."""
    carry = b""
    ring: list[bytearray] = []   # buffers reused in turn (a new one each time costs page faults):
    turn = 0                     # more of them than pieces in flight (3) plus the one counted
    with open_log(path, buffering=0) as f:
        while True:
            if len(ring) < 6:
                ring.append(bytearray(chunk_bytes + (64 << 10)))
            buf = ring[turn % len(ring)]
            turn += 1
            if len(buf) < len(carry) + chunk_bytes:
                buf = ring[(turn - 1) % len(ring)] = bytearray(len(carry) + chunk_bytes)
            buf[: len(carry)] = carry
            view = memoryview(buf)
            have = len(carry)
            while have < len(buf):
                n = f.readinto(view[have:])
                if not n:
                    break
                have += n
            cut = buf.rfind(b"\n", 0, have) + 1
            if have == len(carry):   # end of file
                if carry:
                    raise FioLogError(f"{path}: truncated last line (no newline at end of file)")
                return
            if cut:
                yield np.frombuffer(buf, np.uint8, cut)
            carry = bytes(view[cut:have])
            if len(carry) > (64 << 20):
                raise FioLogError(f"{path}: a line longer than 64 MiB: not a fio log")


def _compiled_tables(path: Path, nf: int, keep: list[int], chunk_bytes: int, bucket=None) -> Iterator[np.ndarray]:
    """Columns ``keep`` of each piece, parsed two pieces at a time on two threads, in file order."""
    outs: list[np.ndarray] = []   # output arrays reused in turn, like the pieces' buffers
    turn = 0

    from perflab.fio.scan import scan_fields

    def parse(piece, out):
        out, n = scan_fields(piece, nf, keep, bucket, out)
        if n < 0:
            raise find_bad_line(path, nf, ValueError(f"a line is not {nf} unsigned integers"))
        return out

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="perflab-scan") as pool:
        pending = []
        try:
            for piece in _pieces(path, chunk_bytes):
                if len(outs) < 6:
                    outs.append(np.empty((len(keep), (chunk_bytes + (64 << 10)) // (2 * nf) + 1), np.int64))
                out = outs[turn % len(outs)]
                turn += 1
                pending.append(pool.submit(parse, piece, out))
                if len(pending) >= 3:
                    yield pending.pop(0).result()
            while pending:
                yield pending.pop(0).result()
        finally:
            for p in pending:
                p.cancel()


def _arrow_tables(path: Path, nf: int, keep: list[int], chunk_bytes: int, bucket=None) -> Iterator[np.ndarray]:
    """The same columns, parsed by pyarrow's CSV reader on a second thread (the previous pipeline)."""
    names = lat_log_columns(nf, path)
    include = [names[k] for k in keep]
    ro = pcsv.ReadOptions(column_names=names, use_threads=True,
                          block_size=max(1024, min(1 << 20, chunk_bytes // 2)))
    co = pcsv.ConvertOptions(include_columns=include, column_types={c: pa.int64() for c in include})

    def tables():
        for piece in _pieces(path, chunk_bytes):
            yield pcsv.read_csv(pa.py_buffer(piece), read_options=ro, convert_options=co)

    it = prefetch(tables(), depth=2)
    try:
        for table in it:
            cols = [table.column(c) for c in include]
            if any(c.null_count for c in cols):
                raise pa.ArrowInvalid("empty field")
            arrs = [c.to_numpy() for c in cols]
            if any((a < 0).any() for a in arrs):
                raise pa.ArrowInvalid("negative value")
            yield np.stack(arrs) if arrs else np.empty((0, table.num_rows), np.int64)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise find_bad_line(path, nf, exc) from None
    finally:
        it.close()


def fio_events(path: str | os.PathLike, need: set[str] = frozenset({"lat"}), engine: str = "auto",
               chunk_bytes: int = 4 << 20, buckets=None, copy: bool = True) -> Iterator[Events]:
    """:class:`Events` of a per-I/O log (``log_avg_msec=0``): times, and what ``need`` names of
    ``lat`` (the logged value, ns), ``offset`` (needs ``log_offset=1``), ``op`` (read, write,
    trim, sync; a dimension).  ``job``, ``client`` and ``file`` dimensions come from the name.
    Every field of every line is checked; a damaged log raises
    :class:`~perflab.fio.logs.FioLogError` naming the file and the line.  With ``buckets`` (and
    the compiled scanner) the latency comes as bucket numbers (``Events.row``), computed while parsing.
    ``copy=False`` (the map builders) reuses the arrays of a piece for a later one: a piece is then
    valid only until the next is asked for."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    path = Path(path)
    nf = log_field_count(path)
    if nf == 0:
        return
    names = lat_log_columns(nf, path)
    if "offset" in need and "offset" not in names:
        raise FioLogError(f"{path}: no offsets in this log ({nf} fields a line): fio writes them "
                          "with log_offset=1")
    check_last_line(path)
    keep = [0, 1, 2] + ([names.index("offset")] if "offset" in need else [])
    from perflab.fio.scan import HAVE_SCANNER

    compiled = engine == "compiled" or (engine == "auto" and HAVE_SCANNER)
    if engine == "compiled" and not HAVE_SCANNER:
        raise ValueError("engine 'compiled' asked, but perflab's scanner was not built when it was installed")
    fused = compiled and buckets is not None and "lat" in need
    tables = (_compiled_tables if compiled else _arrow_tables)(path, nf, keep, chunk_bytes,
                                                              (1, buckets) if fused else None)
    consts = fio_file_dims(path)
    ops = tuple(DDIR_NAMES[k] for k in sorted(DDIR_NAMES))
    for cols in tables:
        if copy:
            cols = cols.copy()
        n = cols.shape[1]
        dims = {k: Dim.constant(v, n) for k, v in consts.items()}
        if "op" in need:
            ddir = cols[2]
            if n and ddir.max() > 3:
                raise FioLogError(f"{path}: a ddir of {int(ddir.max())}: fio writes 0-3 (read, write, trim, sync)")
            dims["op"] = Dim(ddir, ops)
        yield Events(cols[0], None if fused else cols[1], cols[3] if "offset" in need else None, dims,
                     str(path), cols[1] if fused else None)
