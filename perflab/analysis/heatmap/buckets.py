"""The latency buckets of a heat map, and the labels and number formats that name them.

*Log-linear* buckets (the default) split every power-of-two group of latencies into
``sub`` equal linear sub-buckets, with one bucket ``[0, floor_ns)`` below the floor;
*linear* buckets are ``linear_ns`` wide.  :mod:`perflab.heatmap` describes both.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Buckets", "make_buckets", "LINEAR_MAX_BUCKETS", "bucket_labels", "UNITS", "unit_for",
           "format_number", "format_ns"]

#: Linear buckets without an explicit maximum: at most this many, trimmed to the data.
LINEAR_MAX_BUCKETS = 1024


@dataclass(eq=False)
class Buckets:
    """Latency buckets: ``edges_ns`` (int64, n+1 values); bucket i is ``[edges[i], edges[i+1])``.

    :meth:`index` maps latencies to bucket numbers, with ``n`` for "at or above the top
    edge" (overflow).
    """
    scale: str                 # "log-linear" or "linear"
    edges_ns: np.ndarray
    sub: int = 0
    floor_ns: int = 0
    width_ns: int = 0

    @classmethod
    def loglinear(cls, sub: int = 8, floor_ns: int = 128, ceil_ns: int = 2 ** 34) -> "Buckets":
        if sub not in (1, 2, 4, 8, 16, 32, 64):
            raise ValueError(f"sub must be one of 1, 2, 4, 8, 16, 32, 64, not {sub}")
        for name, v in (("floor_ns", floor_ns), ("ceil_ns", ceil_ns)):
            if v < 1 or v & (v - 1):
                raise ValueError(f"{name} must be a power of two, not {v}")
        if floor_ns < sub:
            raise ValueError(f"floor_ns ({floor_ns}) must be >= sub ({sub}) so that buckets are whole ns")
        if not floor_ns < ceil_ns <= 2 ** 53:
            raise ValueError(f"need floor_ns < ceil_ns <= 2**53 (got {floor_ns}, {ceil_ns})")
        lf, lc = floor_ns.bit_length() - 1, ceil_ns.bit_length() - 1
        edges = [0]
        for g in range(lf, lc):
            step = (1 << g) // sub
            edges.extend((1 << g) + k * step for k in range(sub))
        edges.append(ceil_ns)
        return cls("log-linear", np.array(edges, np.int64), sub=sub, floor_ns=floor_ns)

    @classmethod
    def linear(cls, width_ns: int, max_ns: int | None = None) -> "Buckets":
        width_ns = int(width_ns)
        if width_ns < 1:
            raise ValueError(f"linear bucket width must be >= 1 ns, not {width_ns}")
        n = LINEAR_MAX_BUCKETS if max_ns is None else max(1, -(-int(max_ns) // width_ns))
        return cls("linear", np.arange(n + 1, dtype=np.int64) * width_ns, width_ns=width_ns)

    @property
    def n(self) -> int:
        return len(self.edges_ns) - 1

    def index(self, values: np.ndarray) -> np.ndarray:
        """Bucket number (int64) of each latency; ``n`` for values >= the top edge.

        Log-linear: computed arithmetically from ``np.frexp`` (exact for values below
        2**53), no search.  Negative values count as 0.
        """
        v = np.asarray(values)
        if self.scale == "linear":
            b = v.astype(np.int64, copy=True)
            np.maximum(b, 0, out=b)
            b //= self.width_ns
            np.minimum(b, self.n, out=b)
            return b
        x = v.astype(np.float64)
        np.maximum(x, 0.0, out=x)
        m, e = np.frexp(x)          # x = m * 2**e, 0.5 <= m < 1: group 2**(e-1)
        m *= 2 * self.sub
        b = m.astype(np.int64)      # sub + (position inside the group) * sub
        e *= self.sub
        b += e
        b += 1 - (self.floor_ns.bit_length() + 1) * self.sub
        np.clip(b, 0, self.n, out=b)
        return b


def make_buckets(sub: int, linear_ns, floor_ns: int, ceil_ns: int, linear_max_ns) -> Buckets:
    """Linear buckets ``linear_ns`` wide when it is given, else log-linear ones."""
    if linear_ns:
        return Buckets.linear(linear_ns, linear_max_ns)
    return Buckets.loglinear(sub, floor_ns, ceil_ns)


# --------------------------------------------------------------------------- labels

#: Nanoseconds per unit.
UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def format_number(x: float, sig: int) -> str:
    """``x`` with ``sig`` significant digits (whole numbers of 100 and more without a point)."""
    if x >= 10 ** sig or x == int(x) and x >= 100:
        return f"{x:.0f}"
    return f"{x:.{sig}g}"


def unit_for(v: int) -> str:
    """The largest unit of :data:`UNITS` that ``v`` ns is at least one of."""
    for u in ("s", "ms", "us"):
        if v >= UNITS[u]:
            return u
    return "ns"


def format_ns(v: int) -> str:
    """A latency in its own unit, to 3 significant digits: "65.5 us"; a value that rounds up to the next
    unit is given in it ("1 ms" for 999,700 ns, never "1e+03 us")."""
    r = float(f"{float(v):.3g}") if v else 0.0
    u = unit_for(int(r))
    return f"{format_number(r / UNITS[u], 3)} {u}"


def bucket_labels(edges_ns: np.ndarray, unit: str = "auto") -> list[str]:
    """Labels like "65.5-73.7 us" for buckets ``[edges[i], edges[i+1])``.

    ``unit`` is "auto" (chosen per bucket from its lower edge, or its upper edge for
    the bucket starting at 0) or one of ns, us, ms, s.  Labels are unique.
    """
    if unit != "auto" and unit not in UNITS:
        raise ValueError(f"unit must be 'auto' or one of {list(UNITS)}, not {unit!r}")
    edges = [int(e) for e in edges_ns]
    for sig in (3, 4, 6):
        out = []
        for lo, hi in zip(edges[:-1], edges[1:]):
            u = unit if unit != "auto" else unit_for(lo or hi)
            s = UNITS[u]
            out.append(f"{format_number(lo / s, sig)}-{format_number(hi / s, sig)} {u}")
        if len(set(out)) == len(out):
            return out
    return [f"{lo}-{hi} ns" for lo, hi in zip(edges[:-1], edges[1:])]
