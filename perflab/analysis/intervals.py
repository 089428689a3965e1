"""Time intervals: how much of the clock a set of them covers."""
from __future__ import annotations

import numpy as np

__all__ = ["covered_s"]


def covered_s(starts: np.ndarray, ends: np.ndarray) -> float:
    """Seconds covered by at least one of the intervals [starts[i], ends[i]): their union's length
    (overlaps counted once; the summed lengths less this is the time two or more overlapped)."""
    busy, lo, hi = 0.0, None, None
    for x0, x1 in sorted(zip(starts, ends)):
        if lo is None or x0 > hi:
            busy += 0.0 if lo is None else hi - lo
            lo, hi = x0, x1
        else:
            hi = max(hi, x1)
    return busy + (0.0 if lo is None else hi - lo)
