"""The compiled scanner of fio's logs: bytes of whole lines in, integer columns out (per-I/O logs
for the heat maps, and small histogram logs whole).

Why hand-written and not a CSV library: a per-I/O log is the simplest CSV there is (4-7
unsigned decimal integers a line, ``", "`` between them), and the heat map needs two or three
of its columns.  pyarrow's general CSV reader (the previous pipeline, still used where the
scanner is not built: :data:`HAVE_SCANNER`) spends most of its time on what such a file never
has (quoting, escapes, type inference, a column builder per field).  One compiled loop over the
bytes that keeps only the wanted fields is about twice as fast per core, releases the GIL (so
two pieces parse at once on two cores) and still refuses every line that is not ``N`` integers
(``benchmarks/bench_pipeline.py`` measures both side by side).

Why C (``_scan.c``, built when the package is installed) and not numba, which compiled the same
loop until issue 29: numba's import and the load of its cached machine code cost each command
about 0.7 s on this project's machine, more than parsing 5 M lines takes
(``benchmarks/bench_startup.py``).
"""
from __future__ import annotations

import numpy as np

try:   # built by setup.py where a C compiler and Python's headers are; optional
    from perflab.fio._scan import scan_fields as _scan
    HAVE_SCANNER = True
except ImportError:   # pragma: no cover - exercised only where the extension was not built
    _scan = None
    HAVE_SCANNER = False

__all__ = ["HAVE_SCANNER", "scan_fields"]


def scan_fields(buf: np.ndarray, nf: int, keep: list[int], bucket: tuple | None = None,
                out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Columns ``keep`` (field numbers) of the whole lines in ``buf`` (uint8, ends with a newline).

    Returns ``(out, nlines)`` with ``out[j]`` the values of field ``keep[j]`` (int64); ``nlines``
    is ``-(k + 1)`` when line ``k`` of the piece is damaged (then ``out`` is partly filled).
    ``out`` may be given to be reused (when it is large enough).
    ``bucket`` = ``(field, buckets)`` stores that field as its bucket number under ``buckets``
    (a :class:`~perflab.analysis.heatmap.buckets.Buckets`): the same numbers its ``index`` gives.
    """
    if _scan is None:
        raise RuntimeError("perflab's compiled scanner is not built (install the package with a C compiler "
                           "and Python's headers), so per-I/O logs are read with engine='arrow'")
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
    if out is None or out.shape[0] != len(keep) or out.shape[1] < rows or not out.flags.c_contiguous:
        out = np.empty((len(keep), rows), np.int64)
    n = int(_scan(buf, nf, sel, out, bfield, mode, p1, p2, nrows))
    return out[:, :max(n, 0)], n
