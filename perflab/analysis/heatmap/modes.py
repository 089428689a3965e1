"""The modes of a heat map's latency histograms: how many, where, how much of the I/O each holds,
and whether the mean lies in one of them (a mean "in neither mode" is a latency few I/Os had).

The test (issue 43)
    A histogram of bucket counts is turned into a density per unit of log2-latency: each bucket's
    count divided by its width in octaves, ``log2(hi / lo)`` (the first bucket ``[0, floor)``
    counts as one octave wide).  Log-linear buckets are not equally wide in octaves (an octave
    split into 8 has sub-buckets 0.17 to 0.09 octave wide, and the width jumps back up at every
    power of two), so raw counts have a saw-tooth that is not in the latencies; the density has
    not, and an octave split into 8 sub-buckets reads like one split into 2 or 64.

    The density is smoothed with a Gaussian kernel :data:`SMOOTH_OCTAVES` (a quarter of an
    octave) wide in log2-latency, the same width whatever the buckets: the smoothed value at a
    bucket is the kernel-weighted sum of the counts around it over the kernel-weighted sum of
    their widths (a local average of the density, right for buckets of unequal width).  Why: one
    bucket's count is a Poisson draw, and at the 10-20 events a bucket of a minor band holds in
    one second's column, neighbouring buckets differ by chance by a third or more; pooling the events
    of about seven buckets (at 8 an octave) steadies the peaks and valleys compared below, so
    that a band of 5-10% of a column's I/O is still told from noise.  What it costs: two bands
    closer than a factor of about 1.8 (0.83 octave) are never told apart, however narrow (the
    kernel alone fills the valley to half the peaks); two bands that close which each spread over
    half an octave or more show no half-height valley even unsmoothed (both bands of the
    heatmaps lab's reference spread over more than an octave).

    Modes are the local maxima of the smoothed density; two neighbouring ones stay apart only if
    the lowest point between them (the valley) is clearly below both: at most
    :data:`VALLEY_RATIO` times the smaller peak, AND below each peak by more than
    :data:`VALLEY_SIGMAS` Poisson standard deviations of the difference (each smoothed value's
    variance is the kernel-weighted sum of the raw counts, ``sum(K**2 * n) / sum(K * w)**2``;
    the covariance of overlapping kernels is left out, which makes the test stricter).  The
    weakest separation that fails is merged first (the smaller peak goes), then the test is
    repeated; then any mode holding less than :data:`MIN_MODE_SHARE` of the events is merged into
    its neighbours, and the test repeated again.  A histogram of fewer than :data:`MIN_EVENTS`
    events is "too few to say": never "one mode".  Each mode runs from valley to valley (or to
    the first or last non-empty bucket): the valley bucket goes to the mode above it.

Where the mean lies
    By where each mode's own I/Os are, not by its bounds: the mean lies in mode k only if it
    falls within that mode's central 80%, from its own 10th to its 90th percentile
    (:data:`MEAN_CORE`; interpolated within buckets as the medians are).  A mode's bounds run
    valley to valley and so take in both flanks of its band, and the flanks of two narrow bands
    far apart meet far from either: two equal bands at 5 us and 200 us have their mean, 104 us,
    inside the upper mode's bounds, in a bucket that holds about 1 I/O in 2,000.  Outside every
    mode's central 80%, with two modes or more, the mean lies "in neither mode": between two of
    them (:attr:`Modes.mean_valley` says which), or below the first or above the last
    (:attr:`Modes.mean_tail`); with one mode, it lies in that mode's lower or upper tail, not "in
    neither".  How few I/Os had a latency near the mean is said apart from the verdict:
    :attr:`Modes.mean_near_share`, the share of all the I/Os within :data:`NEAR_MEAN_OCTAVES` of
    it, is the figure to read (a mean just past a mode's central 80% still has many I/Os near it).

Why not Gregg's mvalue
    Brendan Gregg's mvalue ("frequency trails": the sum of the absolute differences between
    adjacent bins, divided by the largest bin) is cheap and needs no constants, but it grows with
    the number of bins and with noise: every chance up-and-down between two sparse buckets adds
    to it, and the log-linear saw-tooth above adds to it on any histogram; and a second band
    lower than the first adds only twice its relative height.  So unimodal samples of 500
    events on the map's buckets score up to about 3, more than two clear bands of 20,000
    events holding 70% and 30% of them (2.7; tests/test_heatmap_modes.py).  The test
    here asks each valley to be deep AND beyond chance given the counts, so it is the same on
    any bucket scheme and says "too few" rather than guess.  :func:`mvalue` computes Gregg's
    figure too, for reference (``perflab heatmap --summary`` prints it).

Everything here takes counts per bucket (a :class:`~perflab.analysis.heatmap.model.HeatMap`'s
``counts``, a column or a window of them); the overflow (events above the top edge) is in no
bucket, so in no mode (:class:`WindowModes` counts it).  No printing: ``perflab heatmap
--summary`` words the results (:mod:`~perflab.analysis.heatmap.command`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perflab.analysis.heatmap.model import HeatMap

__all__ = ["Mode", "Valley", "Modes", "WindowModes", "MapModes", "find_modes", "mvalue", "column_modes",
           "window_modes", "map_modes", "MIN_EVENTS", "MIN_MODE_SHARE", "VALLEY_RATIO", "VALLEY_SIGMAS",
           "SMOOTH_OCTAVES", "MEAN_CORE", "NEAR_MEAN_OCTAVES", "MAX_BUCKETS"]

#: Fewer events than this: "too few to say".  A band's peak stands at most about sqrt(its events)
#: Poisson standard deviations above an empty valley, so passing VALLEY_SIGMAS (4) takes 16 events
#: or more in the band: in fewer than 50 events any band smaller than a third of them goes unseen,
#: and "one mode" would be a guess.
MIN_EVENTS = 50
#: A mode holds at least this share of the events: a smaller one is merged into its neighbours.
#: One I/O in twenty is a band a reader sees on the map; fewer is a tail or outliers, better told
#: by a percentile than called a mode (and the tail of a lognormal band is not cut into "modes").
MIN_MODE_SHARE = 0.05
#: A valley separates two modes only if its smoothed density is at most this times the smaller
#: peak's: a dip of half the height is one a reader sees on the map as a gap between two bands;
#: shallower dips are humps of one band (two equal bands three of their standard deviations apart
#: dip to 0.64 of their peaks, and to 0.8 once smoothed: one mode, tests/test_heatmap_modes.py).
VALLEY_RATIO = 0.5
#: ... and only if each peak is above the valley by more than this many Poisson standard deviations
#: of the difference.  Not 3: the test compares a histogram's highest points with its lowest, chosen
#: after looking at dozens of places, so chance passes 3 far more often than its 1 look in 740; at 3,
#: flat (log-uniform) histograms of 150-500 events over 8-16 octaves showed a false second mode in up
#: to 1 sample in 10 (300 seeds each), at 4 in at most 1 in 300, while a band of 10% of 500 events
#: five octaves above the main one, and two equal bands 2.6 octaves apart in 200 events, were still
#: found in every sample.
VALLEY_SIGMAS = 4.0
#: The smoothing kernel's standard deviation, in octaves of latency (log2 units): about two buckets
#: at 8 buckets an octave (the default), the same latency span at any other; truncated at 4 of it.
#: An eighth of an octave pooled too few events: that band of 10% of 500 events was found in half
#: the samples only (the module's docstring says what a wider kernel costs).
SMOOTH_OCTAVES = 0.25
SMOOTH_TRUNCATE = 4.0
#: The smoothing is a dense matrix over the buckets that hold events (and the kernel's reach beyond
#: them): at most this many, 32 MB of it (every log-linear scheme fits: 1,729 buckets at 64 an
#: octave); finer linear rows are refused, naming a coarser --linear-us.
MAX_BUCKETS = 2048
#: The mean lies in a mode only if it falls between these two quantiles of that mode's own events
#: (its 10th and 90th percentiles: its central 80%).  Why these: a band is where a reader sees it on
#: the map, where it stands at half its height or more (as the valley test's VALLEY_RATIO has it);
#: a Gaussian band in log-latency is at half its height at its 12th and 88th percentiles (1.18 of
#: its standard deviations either side), rounded out here to 10 and 90.  Wide enough for one band:
#: a lognormal's mean, exp(sigma**2 / 2) times its median (sigma that of ln latency), stays under
#: its 90th percentile, exp(1.28 sigma) times it, up to sigma = 2.56 (a band whose central 80%
#: spans 9.5 octaves), so a mean past a single mode's 90th percentile is the work of a tail, not of
#: the band's spread (the 25th-75th would put in its tail the mean of a plain lognormal band of
#: sigma 1.35, a standard deviation of 1.9 octaves).  Narrow enough for two: the 5th-95th would
#: reach out to where a band stands at a quarter of its height, and call "in mode 2" the l2arc
#: lab's warm-up mean (2.14 ms, between the disk band's 5th and 10th percentiles, 1.5 and 2.2 ms;
#: its median 6.7 ms).  A mean just past a mode's 10th or 90th percentile is "in neither" yet has
#: I/Os near it: :attr:`Modes.mean_near_share` says how many.
MEAN_CORE = (0.10, 0.90)
#: The I/Os "near the mean" are those within this many octaves of it either way (a factor of
#: 2**(1/8), 9%): about one bucket either side at the default 8 buckets an octave, the same span of
#: latency on any bucket scheme (I/Os taken as uniform inside a bucket, as the medians are).
NEAR_MEAN_OCTAVES = 0.125


@dataclass(frozen=True)
class Mode:
    """One mode: latencies in ``[lo_ns, hi_ns)`` (valley to valley, or the histogram's ends).

    ``share`` is the fraction (0-1) of the histogram's events in that range (the shares of a
    histogram's modes add up to 1); ``median_ns`` their median, interpolated within its bucket
    (latencies taken as uniform inside a bucket, as :meth:`HeatMap.fraction_between` does);
    ``peak_ns`` the geometric centre of the bucket where the smoothed density is highest.
    ``core_lo_ns``-``core_hi_ns``: the mode's central range, its events' own :data:`MEAN_CORE`
    quantiles (10th and 90th percentiles), interpolated as the median is: the mean lies in the
    mode only if it falls there (``nan`` in a Mode made by hand without them).
    """
    share: float
    events: int
    median_ns: float
    lo_ns: int
    hi_ns: int
    peak_ns: float
    core_lo_ns: float = math.nan
    core_hi_ns: float = math.nan


@dataclass(frozen=True)
class Valley:
    """What separates two neighbouring modes.

    ``at_ns``: the lower edge of the bucket where the smoothed density is lowest (the modes'
    common bound).  ``lo_ns``-``hi_ns``: the stretch around it where the density stays at or
    below :data:`VALLEY_RATIO` times the smaller peak; ``share`` of the events lie there.
    ``depth``: the valley's density over the smaller peak's (at most VALLEY_RATIO); ``sigmas``:
    the smaller of the two peak-minus-valley differences in Poisson standard deviations.
    """
    at_ns: int
    lo_ns: int
    hi_ns: int
    share: float
    depth: float
    sigmas: float


@dataclass(frozen=True)
class Modes:
    """The modes of one latency histogram (a column, a window, a whole map).

    ``too_few``: fewer than :data:`MIN_EVENTS` events, and then ``modes`` and ``valleys`` are
    empty: not "one mode" but "too few to say".  ``mean_ns``: the mean latency, estimated from
    bucket midpoints as :meth:`HeatMap.column_means_ns` does (``nan`` with no events).
    Where the mean lies (the module's docstring says why so): ``mean_mode``, the index in
    ``modes`` of the mode whose central range (``core_lo_ns`` to ``core_hi_ns``, its own 10th to
    90th percentiles) holds it, or None: too few, or it lies in no mode's central range.  Then
    ``mean_valley`` is ``i`` when it lies between mode ``i``'s central range and mode ``i + 1``'s
    (valley ``i`` separates them), and ``mean_tail`` is ``"below"`` or ``"above"`` when it lies
    below the first mode's or above the last mode's (with one mode: in its lower or upper tail).
    ``mean_near_share``: the fraction (0-1) of the events within :data:`NEAR_MEAN_OCTAVES` of the
    mean (``nan`` when too few).  ``mvalue``: Gregg's figure (:func:`mvalue`) on the raw counts,
    for reference.
    """
    events: int
    modes: tuple[Mode, ...]
    valleys: tuple[Valley, ...]
    mean_ns: float
    mean_mode: int | None
    mean_valley: int | None
    mvalue: float
    too_few: bool
    mean_tail: str | None = None
    mean_near_share: float = math.nan

    @property
    def count(self) -> int | None:
        """How many modes; None when there are too few events to say."""
        return None if self.too_few else len(self.modes)

    @property
    def mean_in_neither(self) -> bool:
        """Two modes or more, and the mean lies in none of their central ranges."""
        return not self.too_few and len(self.modes) >= 2 and self.mean_mode is None

    @property
    def mean_in_tail(self) -> bool:
        """One mode, and the mean lies outside its central range (``mean_tail`` says which side)."""
        return not self.too_few and len(self.modes) == 1 and self.mean_mode is None


@dataclass(frozen=True)
class WindowModes:
    """The modes of the columns that start in ``[t_from_s, t_to_s)`` (None: that end of the map).

    ``modes``: of the window's histogram (its columns' counts summed).  ``columns``: columns in the
    window; ``columns_enough``: of them those with at least :data:`MIN_EVENTS` events;
    ``columns_multimodal``: of those, the ones with two modes or more.  ``overflow``: events above
    the map's top edge (in no bucket, so in no mode).
    """
    t_from_s: float | None
    t_to_s: float | None
    modes: Modes
    columns: int
    columns_enough: int
    columns_multimodal: int
    overflow: int


@dataclass(frozen=True)
class MapModes:
    """A map's modes: per column (``columns``), for the whole map and for each window asked for."""
    columns: tuple[Modes, ...]
    whole: WindowModes
    windows: tuple[WindowModes, ...]


# --------------------------------------------------------------------------- Gregg's mvalue

def mvalue(counts) -> float:
    """Brendan Gregg's mvalue of a histogram: ``sum(|c[i+1] - c[i]|) / max(c)`` over the counts
    ``c`` as given, with one empty bin added before the first and after the last, so that the rise
    from zero and the fall back to it count (one peak scores exactly 2, two peaks with empty bins
    between them 4; any dip adds twice its depth over the highest bin).  Raw counts per bucket: not
    per octave, not smoothed.  ``nan`` for an empty histogram."""
    c = np.asarray(counts, dtype=np.float64)
    top = float(c.max()) if c.size else 0.0
    if top <= 0:
        return math.nan
    return float(np.abs(np.diff(c, prepend=0.0, append=0.0)).sum() / top)


# --------------------------------------------------------------------------- smoothing

def _geometry(edges_ns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each bucket's centre (log2 of its geometric middle) and width in octaves; the first bucket,
    ``[0, e1)``, is taken as ``[e1/2, e1)``: one octave."""
    lo = edges_ns[:-1].astype(np.float64)
    hi = edges_ns[1:].astype(np.float64)
    lo = np.where(lo > 0, lo, hi / 2)
    return (np.log2(lo) + np.log2(hi)) / 2, np.log2(hi) - np.log2(lo)


class _Smoother:
    """The smoothing of :func:`find_modes` on buckets ``[a, b)`` of a map (those that hold events,
    with enough empty ones either side for the kernel), computed once for many histograms."""

    def __init__(self, edges_ns: np.ndarray, nonzero: np.ndarray):
        centre, width = _geometry(edges_ns)
        reach = SMOOTH_OCTAVES * SMOOTH_TRUNCATE
        first, last = int(nonzero[0]), int(nonzero[-1])
        self.a = int(np.searchsorted(centre, centre[first] - reach, side="left"))
        self.b = int(np.searchsorted(centre, centre[last] + reach, side="right"))
        if self.b - self.a > MAX_BUCKETS:
            span = int(edges_ns[last + 1] - edges_ns[first])
            raise ValueError(f"too many latency rows for the mode pass: {self.b - self.a:,} over the "
                             f"{span / 1e6:,.3g} ms that hold I/Os (at most {MAX_BUCKETS:,}); use "
                             f"log-linear rows or wider linear ones (--linear-us)")
        self.first, self.last = first - self.a, last - self.a      # data's ends, within [a, b)
        c, self.width = centre[self.a:self.b], width[self.a:self.b]
        self.edges = edges_ns[self.a:self.b + 1]
        self.centre = c
        d = (c[:, None] - c[None, :]) / SMOOTH_OCTAVES
        k = np.exp(-0.5 * d * d)
        k[np.abs(d) > SMOOTH_TRUNCATE] = 0.0
        self.k, self.k2 = k, k * k
        self.norm = k @ self.width                    # sum_j K_ij w_j: > 0 (K_ii = 1)

    def density(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Smoothed density per octave and its Poisson variance, for counts on ``[a, b)`` (one
        histogram, or one per row)."""
        n = np.asarray(counts, dtype=np.float64)
        return n @ self.k / self.norm, n @ self.k2 / (self.norm * self.norm)


# --------------------------------------------------------------------------- the test

def _interpolated_quantile(n: np.ndarray, edges: np.ndarray, a: int, b: int, q: float) -> float:
    """The ``q`` quantile (0 < q < 1) of the events in buckets ``[a, b)``, uniform inside each
    bucket."""
    seg = n[a:b].astype(np.float64)
    part = seg.sum() * q
    cum = np.cumsum(seg)
    i = int(np.searchsorted(cum, part, side="left"))
    before = cum[i - 1] if i else 0.0
    lo, hi = float(edges[a + i]), float(edges[a + i + 1])
    return lo + (hi - lo) * (part - before) / seg[i]


def _events_between(n: np.ndarray, edges: np.ndarray, x0: float, x1: float) -> float:
    """How many of the events lie in ``[x0, x1)``, uniform inside each bucket."""
    lo, hi = edges[:-1].astype(np.float64), edges[1:].astype(np.float64)
    inside = np.clip(np.minimum(hi, x1) - np.maximum(lo, x0), 0.0, None) / (hi - lo)
    return float((n * inside).sum())


def _where_mean(mean: float, modes: list[Mode]) -> tuple[int | None, int | None, str | None]:
    """``(mean_mode, mean_valley, mean_tail)`` of :class:`Modes` for ``mean`` against the modes'
    central ranges (both ends in)."""
    for i, m in enumerate(modes):
        if m.core_lo_ns <= mean <= m.core_hi_ns:
            return i, None, None
    if mean < modes[0].core_lo_ns:
        return None, None, "below"
    if mean > modes[-1].core_hi_ns:
        return None, None, "above"
    return None, next(i for i in range(len(modes) - 1) if mean < modes[i + 1].core_lo_ns), None


def _separation(s: np.ndarray, var: np.ndarray, p: int, q: int) -> tuple[int, float, float]:
    """The valley between peaks ``p < q``: its bucket, its depth (valley / the smaller peak) and
    the smaller of the two peak-minus-valley differences in Poisson standard deviations."""
    v = p + int(np.argmin(s[p:q + 1]))
    depth = s[v] / min(s[p], s[q])
    z = min((s[x] - s[v]) / math.sqrt(max(var[x] + var[v], 1e-300)) for x in (p, q))
    return v, float(depth), float(z)


def _segments(n: np.ndarray, valleys: list[int], first: int, last: int) -> list[tuple[int, int]]:
    """Bucket ranges ``[a, b)`` of the modes split at ``valleys`` (each valley bucket goes up)."""
    cuts = [first, *valleys, last + 1]
    return list(zip(cuts[:-1], cuts[1:]))


def _analyse(n: np.ndarray, s: np.ndarray, var: np.ndarray, sm: _Smoother) -> Modes:
    """The modes of counts ``n`` (on the smoother's buckets) given their smoothed density."""
    edges = sm.edges
    total = int(n.sum())
    mv = mvalue(n)
    if total == 0:
        return Modes(0, (), (), math.nan, None, None, mv, True)
    mid = (edges[:-1] + edges[1:]) / 2.0
    mean = float((n * mid).sum() / total)
    if total < MIN_EVENTS:
        return Modes(total, (), (), mean, None, None, mv, True)
    nz = np.flatnonzero(n)
    first, last = int(nz[0]), int(nz[-1])
    padded = np.concatenate(([0.0], s, [0.0]))
    peaks = list(np.flatnonzero((s > 0) & (padded[1:-1] >= padded[:-2]) & (padded[1:-1] > padded[2:])))
    while True:
        seps = [_separation(s, var, p, q) for p, q in zip(peaks[:-1], peaks[1:])]
        weak = [(depth, -z, i) for i, (_, depth, z) in enumerate(seps)
                if not (depth <= VALLEY_RATIO and z > VALLEY_SIGMAS)]
        if weak:   # the weakest separation first: the smaller of its two peaks goes
            i = max(weak)[2]
            peaks.pop(i if s[peaks[i]] < s[peaks[i + 1]] else i + 1)
            continue
        segs = _segments(n, [v for v, _, _ in seps], first, last)
        shares = [n[a:b].sum() / total for a, b in segs]
        if len(peaks) > 1 and min(shares) < MIN_MODE_SHARE:   # the smallest mode joins its neighbours
            peaks.pop(int(np.argmin(shares)))
            continue
        break
    modes = []
    for (a, b), p in zip(segs, peaks):
        modes.append(Mode(share=float(n[a:b].sum() / total), events=int(n[a:b].sum()),
                          median_ns=_interpolated_quantile(n, edges, a, b, 0.5),
                          lo_ns=int(edges[a]), hi_ns=int(edges[b]), peak_ns=float(2 ** sm.centre[p]),
                          core_lo_ns=_interpolated_quantile(n, edges, a, b, MEAN_CORE[0]),
                          core_hi_ns=_interpolated_quantile(n, edges, a, b, MEAN_CORE[1])))
    valleys = []
    for (v, depth, z), p, q in zip(seps, peaks[:-1], peaks[1:]):
        low = VALLEY_RATIO * min(s[p], s[q])
        a, b = v, v
        while a - 1 > p and s[a - 1] <= low:
            a -= 1
        while b + 1 < q and s[b + 1] <= low:
            b += 1
        valleys.append(Valley(at_ns=int(edges[v]), lo_ns=int(edges[a]), hi_ns=int(edges[b + 1]),
                              share=float(n[a:b + 1].sum() / total), depth=depth, sigmas=z))
    mean_mode, mean_valley, mean_tail = _where_mean(mean, modes)
    near = _events_between(n, edges, mean * 2 ** -NEAR_MEAN_OCTAVES, mean * 2 ** NEAR_MEAN_OCTAVES) / total
    return Modes(total, tuple(modes), tuple(valleys), mean, mean_mode, mean_valley, mv, False,
                 mean_tail=mean_tail, mean_near_share=near)


def _smoother(edges_ns, counts: np.ndarray) -> _Smoother | None:
    nonzero = np.flatnonzero(counts.reshape(-1, counts.shape[-1]).any(axis=0))
    return _Smoother(np.asarray(edges_ns, dtype=np.int64), nonzero) if nonzero.size else None


def _empty(counts: np.ndarray) -> Modes:
    return Modes(0, (), (), math.nan, None, None, mvalue(counts), True)


def find_modes(counts, edges_ns) -> Modes:
    """The modes of one latency histogram: ``counts[b]`` events in bucket ``[edges_ns[b],
    edges_ns[b+1])`` (the module's docstring says how)."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.ndim != 1 or len(counts) != len(edges_ns) - 1:
        raise ValueError(f"one count per bucket: {len(edges_ns) - 1} buckets, counts of shape {counts.shape}")
    if (counts < 0).any():
        raise ValueError("counts cannot be negative")
    sm = _smoother(edges_ns, counts)
    if sm is None:
        return _empty(counts)
    n = counts[sm.a:sm.b]
    s, var = sm.density(n)
    return _analyse(n, s, var, sm)


def _latency(hm: HeatMap) -> None:
    if hm.y != "latency":
        raise ValueError(f"modes are those of latency: this map's rows are {hm.y}")


def column_modes(hm: HeatMap) -> list[Modes]:
    """The modes of each column's histogram, in column order (one smoothing for the map)."""
    _latency(hm)
    sm = _smoother(hm.edges_ns, hm.counts)
    if sm is None:
        return [_empty(row) for row in hm.counts]
    n = hm.counts[:, sm.a:sm.b]
    s, var = sm.density(n)
    return [_analyse(n[c], s[c], var[c], sm) for c in range(hm.n_columns)]


def window_modes(hm: HeatMap, t_from: float | None = None, t_to: float | None = None,
                 columns: list[Modes] | tuple[Modes, ...] | None = None) -> WindowModes:
    """The modes of the columns that start in ``[t_from, t_to)`` seconds (as :meth:`HeatMap.percentile`
    takes them; None: that end of the map), and how many of those columns have two modes or more.
    ``columns``: :func:`column_modes` of ``hm`` if already computed."""
    _latency(hm)
    if t_from is not None and t_to is not None and not t_from < t_to:
        raise ValueError(f"a window from {t_from:g} s to {t_to:g} s is empty: it must end after it starts")
    cols = column_modes(hm) if columns is None else columns
    sel = hm._col_mask(t_from, t_to)
    picked = [m for m, keep in zip(cols, sel) if keep]
    enough = [m for m in picked if not m.too_few]
    return WindowModes(t_from, t_to, find_modes(hm.counts[sel].sum(axis=0), hm.edges_ns), len(picked),
                       len(enough), sum(1 for m in enough if len(m.modes) >= 2), int(hm.overflow[sel].sum()))


def map_modes(hm: HeatMap, windows=()) -> MapModes:
    """The map's modes per column, for the whole map, and for each ``(t_from, t_to)`` of ``windows``."""
    cols = tuple(column_modes(hm))
    return MapModes(cols, window_modes(hm, columns=cols),
                    tuple(window_modes(hm, a, b, columns=cols) for a, b in windows))
