"""Two runs' latency distributions side by side, and whether they differ by more than noise.

`perflab compare RUN_A RUN_B` (and :func:`compare` in a notebook) puts two latency heat maps of
one lab beside each other and answers the question asked after changing one thing: did the
latencies move, and by more than they move between two runs of the same code?

Distances, computed exactly on the maps' log-linear buckets (summed over the run; I/Os above the
top edge count as one more bucket there):

    ks   the largest gap between the two cumulative distributions (Kolmogorov-Smirnov's statistic,
         at the bucket edges): a share of I/Os, 0 to 1
    w1   the Wasserstein-1 (earth mover's) distance on log2 latency, each bucket's I/Os at its lower
         edge: how far, in octaves (factors of two), the I/Os moved on average; 1.0 = twice as slow
         or twice as fast on average

Noise is the largest distance between any two runs of a set that differ only by chance (by default
a lab's reference and its recorded repeats, `reference_runs` in book.toml). The verdict is
"differs" when both distances are larger than the noise's, else "same within noise". A yardstick
of a few repeats underestimates the spread: the page and the text say how many runs it came from.

Bands are the latency ranges whose share of I/Os moved: runs of adjacent buckets whose share
changed in the same direction, kept when their total change is at least :data:`BAND_MIN_SHARE`.
The difference map normalises every column to its own I/Os (a column's shares add up to 1) and
shows B's share minus A's, column by column from each run's start, in diverging colours.

Modes are the whole-run histograms' (:mod:`perflab.analysis.modeshift`): which of A's appeared,
vanished or moved in B, a move judged against the noise runs' own.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from perflab.analysis.heatmap.buckets import format_ns
from perflab.analysis.heatmap.model import HeatMap, pad_rows
from perflab.analysis.heatmap.plot import row_labels
from perflab.analysis.modeshift import ModeShift, mode_shift, whole_run_modes
from perflab.errors import Refused

__all__ = ["Distance", "Band", "Difference", "compare", "page", "distance", "spread", "bands", "SchemeMismatch",
           "BAND_MIN_SHARE", "SAME", "DIFFERS", "UNWEIGHED"]

#: a band is named when its share of I/Os changed by at least this much (1 percentage point)
BAND_MIN_SHARE = 0.01
SAME, DIFFERS = "same within noise", "differs"
#: the verdict when no runs measured the noise: the distances stand alone
UNWEIGHED = "no verdict (no runs to measure the noise)"
#: diverging colours for the difference map: blue where B has the smaller share, red where larger,
#: near white (the light plot's colour) where they are equal. In the book's dark mode perflab-theme.js
#: draws 0 in the dark plot's colour and turns each half, so the larger a change the brighter its cell.
DIVERGING = [[0.0, "#2166ac"], [0.25, "#92c5de"], [0.5, "#f7f7f7"], [0.75, "#f4a582"], [1.0, "#b2182b"]]


class SchemeMismatch(Refused, ValueError):
    """Two maps whose buckets cannot be lined up (another sub-bucket count, linear vs log-linear,
    rows that are not latency): refused, exit 2."""


@dataclass(frozen=True)
class Distance:
    ks: float   # largest gap between the cumulative distributions (share of I/Os)
    w1: float   # Wasserstein-1 on log2 latency (octaves)

    def exceeds(self, other: "Distance") -> bool:
        return self.ks > other.ks and self.w1 > other.w1


@dataclass(frozen=True)
class Band:
    lo_ns: int
    hi_ns: int | None   # None: open above (the overflow bucket)
    share_a: float
    share_b: float

    @property
    def change(self) -> float:
        return self.share_b - self.share_a

    def label(self) -> str:
        top = format_ns(self.hi_ns) if self.hi_ns is not None else "above"
        return f"{format_ns(self.lo_ns)}-{top}" if self.hi_ns is not None else f"{format_ns(self.lo_ns)} and above"

    def text(self, events: str = "I/Os") -> str:
        verb = "gained" if self.change > 0 else "lost"
        return (f"{self.label()}: {100 * self.share_a:.1f}% -> {100 * self.share_b:.1f}% of {events} "
                f"({verb} {100 * abs(self.change):.1f} points)")


# --------------------------------------------------------------------------- buckets

def _check_latency(hm: HeatMap, name: str) -> None:
    if hm.y != "latency":
        raise SchemeMismatch(f"{name}: a map of {hm.y}; compare works on latency maps")
    if hm.scale != "log-linear":
        raise SchemeMismatch(f"{name}: {hm.scale} latency buckets; compare works on log-linear ones "
                             "(the default of perflab heatmap)")


def _describe(hm: HeatMap) -> str:
    e = hm.edges_ns
    return f"{len(e) - 1} buckets from {format_ns(int(e[1]))}" if len(e) > 1 else "no buckets"


def common_buckets(a: HeatMap, b: HeatMap, names=("A", "B")) -> tuple[HeatMap, HeatMap]:
    """The two maps on the same bucket edges (one may reach higher than the other: empty rows are
    added to the lower one); refuses maps of different bucket schemes, naming both."""
    for hm, n in zip((a, b), names):
        _check_latency(hm, n)
    if np.array_equal(a.edges_ns, b.edges_ns):
        return a, b
    short, tall = (a, b) if len(a.edges_ns) <= len(b.edges_ns) else (b, a)
    try:
        padded = pad_rows(short, tall.edges_ns)
    except ValueError:
        raise SchemeMismatch(f"different bucket schemes: {names[0]} has {_describe(a)}, {names[1]} has "
                             f"{_describe(b)}; compare maps built alike (same sub-buckets, same floor)") from None
    return (padded, tall) if short is a else (tall, padded)


def histogram(hm: HeatMap) -> np.ndarray:
    """I/Os per bucket over the whole map, the I/Os above the top edge as one more bucket."""
    return np.append(hm.counts.sum(axis=0), hm.overflow.sum()).astype(np.float64)


def _positions(edges_ns: np.ndarray) -> np.ndarray:
    """log2 of each bucket's lower edge, and of the overflow's (the top edge); the bucket below the
    floor [0, floor) sits one octave under the floor."""
    lo = np.asarray(edges_ns, np.float64).copy()
    lo[0] = lo[1] / 2 if len(lo) > 1 else 1.0
    return np.log2(lo)


# --------------------------------------------------------------------------- distances

def distance(a: HeatMap, b: HeatMap) -> Distance:
    """KS and W1 between the two maps' latency distributions (see the module's docstring)."""
    a, b = common_buckets(a, b)
    ha, hb = histogram(a), histogram(b)
    if ha.sum() == 0 or hb.sum() == 0:
        raise ValueError("a map without I/Os has no distribution to compare")
    fa, fb = np.cumsum(ha) / ha.sum(), np.cumsum(hb) / hb.sum()
    gap = np.abs(fa - fb)
    x = _positions(a.edges_ns)
    return Distance(ks=float(gap.max()), w1=float((gap[:-1] * np.diff(x)).sum()))


def spread(maps: list[HeatMap]) -> Distance:
    """The noise: the largest KS and the largest W1 between any two of ``maps`` (at least two)."""
    if len(maps) < 2:
        raise ValueError("run-to-run noise needs at least two runs of the same setup")
    ds = [distance(x, y) for x, y in itertools.combinations(maps, 2)]
    return Distance(ks=max(d.ks for d in ds), w1=max(d.w1 for d in ds))


def bands(a: HeatMap, b: HeatMap, min_share: float = BAND_MIN_SHARE) -> list[Band]:
    """The latency ranges whose share of I/Os moved by at least ``min_share``, largest change first."""
    a, b = common_buckets(a, b)
    ha, hb = histogram(a), histogram(b)
    sa, sb = ha / max(ha.sum(), 1), hb / max(hb.sum(), 1)
    d = sb - sa
    # a bucket that moved by under 1/100 of min_share counts as unchanged: a stray bucket does not
    # split a band, nor does it join two
    sign = np.sign(np.where(np.abs(d) < min_share / 100, 0, d))
    out = []
    e = a.edges_ns
    k = 0
    while k < len(d):
        if sign[k] == 0:
            k += 1
            continue
        j = k
        while j + 1 < len(d) and sign[j + 1] == sign[k]:
            j += 1
        band = Band(int(e[k]), int(e[j + 1]) if j + 1 < len(e) else None,
                    float(sa[k:j + 1].sum()), float(sb[k:j + 1].sum()))
        if abs(band.change) >= min_share:
            out.append(band)
        k = j + 1
    return sorted(out, key=lambda x: -abs(x.change))


def column_shares(hm: HeatMap) -> np.ndarray:
    """Each column's counts divided by that column's I/Os (NaN for an empty column)."""
    n = hm.counts.sum(axis=1, keepdims=True) + hm.overflow[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, hm.counts / np.maximum(n, 1), np.nan)


def _thin(hm: HeatMap, n: int, share: float = 0.1) -> np.ndarray:
    """Which of the first n columns hold at most ``share`` of the median non-empty column's I/Os."""
    per = hm.counts[:n].sum(axis=1) + hm.overflow[:n]
    busy = per[per > 0]
    return per <= share * (float(np.median(busy)) if len(busy) else 0.0)


def _from_start(hm: HeatMap) -> HeatMap:
    """The map's columns from its first non-empty one."""
    nz = np.flatnonzero(hm.counts.any(axis=1) | (hm.overflow > 0))
    if not len(nz):
        return hm
    first = int(nz[0])
    return HeatMap(hm.edges_ns, hm.counts[first:], hm.col_s, hm.t0_ms + first * hm.col_ms, hm.overflow[first:],
                   hm.sources, hm.kind, hm.scale, hm.exact, list(hm.notes), hm.y)


# --------------------------------------------------------------------------- the comparison

def _number(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(float(v)) else None


def metric_table(a: dict, b: dict, noise: list[dict] = ()) -> pd.DataFrame:
    """Numeric metrics both runs have: A, B, B / A, and the range over the noise runs with whether B
    falls outside it."""
    rows = []
    for k in a:
        va, vb = _number(a.get(k)), _number(b.get(k))
        if va is None or vb is None:
            continue
        vals = [x for x in (_number(n.get(k)) for n in noise) if x is not None]
        lo, hi = (min(vals), max(vals)) if vals else (None, None)
        rows.append({"metric": k, "A": va, "B": vb, "B / A": vb / va if va else None,
                     "noise min": lo, "noise max": hi,
                     "B outside noise": (vb < lo or vb > hi) if vals else None})
    return pd.DataFrame(rows, columns=["metric", "A", "B", "B / A", "noise min", "noise max", "B outside noise"])


def event_by_event(event: str) -> str:
    """How a comparison of such events goes, for prose: "I/O by I/O", "openat() call by call"."""
    return f"{event} by {event.split()[-1]}"


@dataclass
class Difference:
    """What :func:`compare` found. ``verdict`` is :data:`DIFFERS` or :data:`SAME`."""
    names: tuple[str, str]
    a: HeatMap
    b: HeatMap
    distance: Distance
    noise: Distance | None     # None: no noise runs, no verdict
    noise_runs: int
    bands: list[Band]
    metrics: pd.DataFrame = field(default_factory=lambda: metric_table({}, {}))
    params: dict = field(default_factory=dict)     # {name: (A's value, B's value)} where they differ
    notes: list[str] = field(default_factory=list)
    # what the maps count, for the words: fio's I/Os, or a lab's traced calls ("openat() call")
    event: str = "I/O"
    events: str = "I/Os"
    modes: ModeShift | None = None    # the whole-run modes that appeared, vanished or moved

    @property
    def by(self) -> str:
        return event_by_event(self.event)

    @property
    def verdict(self) -> str:
        if self.noise is None:
            return UNWEIGHED
        return DIFFERS if self.distance.exceeds(self.noise) else SAME

    def text(self, modes: bool = False) -> str:
        """The comparison in lines, the verdict last; ``modes``: with the block on the modes."""
        d, n = self.distance, self.noise
        lines = [f"A: {self.names[0]} ({self.a.total:,} {self.events})", f"B: {self.names[1]} ({self.b.total:,} {self.events})"]
        lines += [f"parameter {k}: {va} -> {vb}" for k, (va, vb) in self.params.items()]
        lines += [f"KS {d.ks:.4f} (noise {n.ks:.4f}); W1 {d.w1:.4f} octaves (noise {n.w1:.4f}); noise from "
                  f"{self.noise_runs} runs" if n else f"KS {d.ks:.4f}; W1 {d.w1:.4f} octaves; no runs measured the noise"]
        lines += [f"band {x.text(self.events)}" for x in self.bands] or ["no band moved by 1 point or more"]
        outside = self.metrics[self.metrics["B outside noise"] == True]   # noqa: E712 (None: no noise runs)
        lines += [f"metric {r.metric}: {r.A:g} -> {r.B:g} (noise {r['noise min']:g}-{r['noise max']:g})"
                  for _, r in outside.iterrows()]
        lines += self.notes
        if modes and self.modes is not None:
            lines += self.modes.lines(self.names, self.events)
        lines.append(f"verdict: {self.verdict}")
        return "\n".join(lines)

    def summary_html(self, what: str = "") -> str:
        """The verdict and what moved, as a short HTML block (class ``perflab-difference``) for a
        chapter's page; ``what`` names the comparison (default "B against A")."""
        from html import escape

        d, n = self.distance, self.noise
        what = what or f"{self.names[1]} against {self.names[0]}"
        head = (f"<p><b>{escape(what)}, {escape(self.by)}: {escape(self.verdict)}.</b> The two latency distributions "
                f"are {d.ks:.3f} apart at their widest (KS: a share of the {escape(self.events)}) and {d.w1:.2f} octaves apart on "
                f"average (W1; 1 = twice as slow or fast)")
        head += (f"; between {self.noise_runs} runs of one setup, at most {n.ks:.3f} and {n.w1:.2f}. "
                 f"{'Both' if self.verdict == DIFFERS else 'Not both'} are beyond that noise.</p>" if n else
                 ". No runs measured the noise (the reference has no recorded repeats), so these distances "
                 "are not weighed.</p>")
        items = [f"<li>{escape(x.text(self.events))}</li>" for x in self.bands] or ["<li>no latency band moved by 1 point "
                                                                        "or more</li>"]
        items += [f"<li>parameter {escape(k)}: {escape(str(va))} in {escape(self.names[0])}, {escape(str(vb))} in "
                  f"{escape(self.names[1])}</li>" for k, (va, vb) in self.params.items()]
        items += [f"<li>{escape(x.removeprefix('note: '))}</li>" for x in self.notes]
        return f'<div class="perflab-difference">{head}<ul>{"".join(items)}</ul></div>'

    def figure(self, title: bool | str = True):
        """The difference map: B's share of each column's I/Os minus A's, per latency bucket
        (``title``: a title of the caller's; False: none, for a page that heads it; notes on what
        the map leaves out are kept either way)."""
        import plotly.graph_objects as go

        a, b = _from_start(self.a), _from_start(self.b)
        wide = max(a.col_ms, b.col_ms)
        a, b = a.rebin(wide), b.rebin(wide)
        n = min(a.n_columns, b.n_columns)
        diff = (column_shares(b)[:n] - column_shares(a)[:n]).T
        # a column with a tenth of its run's usual I/Os or fewer (a run's partial first or last
        # second) is left blank: a handful of I/Os would swing its shares, and the colour scale
        thin = _thin(a, n) | _thin(b, n)
        diff[:, thin] = np.nan
        rows = np.flatnonzero(a.counts[:n].any(axis=0) | b.counts[:n].any(axis=0))
        r0, r1 = (int(rows[0]), int(rows[-1]) + 1) if len(rows) else (0, 0)
        labels = row_labels("latency", a.edges_ns[r0:r1 + 1])
        top = float(np.nanmax(np.abs(diff[r0:r1]))) if r1 > r0 and np.isfinite(diff[r0:r1]).any() else 0.0
        top = top or 0.01   # no difference at all: a scale still centred on 0
        x = np.arange(n) * wide / 1000
        na, nb = self.names
        fig = go.Figure(go.Heatmap(
            z=diff[r0:r1], x=x, y=labels, colorscale=DIVERGING, zmid=0, zmin=-top, zmax=top,
            # the bar's title above it (beside it, it left the bar a sliver on a phone, its ticks on each other)
            colorbar=dict(title=dict(text=f"{nb} - {na}<br>share", side="top"), orientation="h", y=-0.12, yanchor="top",
                          len=0.8, thickness=14, tickangle=0),
            hovertemplate=f"%{{x}} s, %{{y}}: {nb} - {na} = %{{z:.3f}}<extra></extra>"))
        more = ""
        if thin.any():
            k = int(thin.sum())
            more += f"<br><sub>{k} sparse column{'s' if k > 1 else ''} left blank (a tenth of the usual {self.events})</sub>"
        if a.n_columns != b.n_columns:
            more += f"<br><sub>the first {n * wide / 1000:g} s of each run ({na} has {a.n_columns * wide / 1000:g} s, " \
                   f"{nb} {b.n_columns * wide / 1000:g} s)</sub>"
        fig.update_layout(
            title=dict(text=(title if isinstance(title, str) else f"difference: {nb}'s share of each column's {self.events} minus {na}'s")
                       + more if title else more.removeprefix("<br>") or None),
            xaxis_title="time from each run's start (s)", yaxis=dict(title="latency", type="category"),
            plot_bgcolor="white", height=int(min(900, max(380, 16 * (r1 - r0) + 200))),
            margin=dict(l=90, r=20, t=80 if title else 30, b=130))
        return fig


def page(d: Difference, title: str = "") -> str:
    """A standalone page (plotly.js inline once, so it opens offline): the verdict and its numbers,
    A's and B's heat maps on one colour scale, the difference map and the metrics. Headings are
    HTML, not figure titles, so that they wrap on a narrow screen."""
    from html import escape

    import plotly.io as pio

    from perflab.analysis.heatmap.plot import figure

    top = max(int(d.a.counts.max(initial=1)), int(d.b.counts.max(initial=1)))
    sections = [(f"A: {d.names[0]}: {d.a.total:,} {d.events}", figure(d.a, max_count=top)),
                (f"B: {d.names[1]}: {d.b.total:,} {d.events}", figure(d.b, max_count=top)),
                (f"Difference: B's share of each column's {d.events} minus A's (red: more in B, blue: fewer)",
                 d.figure(title=False))]
    parts = [f"<h2>{escape(h)}</h2>\n" + pio.to_html(f, include_plotlyjs=(k == 0), full_html=False,
                                                     config={"displaylogo": False, "responsive": True})
             for k, (h, f) in enumerate(sections)]
    table = d.metrics.to_html(index=False, na_rep="-", float_format=lambda v: f"{v:.4g}", border=0)
    modes = f"\n<h2>Modes</h2>\n{d.modes.html(d.names, d.events)}" if d.modes is not None else ""
    title = title or f"{d.names[0]} vs {d.names[1]}: {d.verdict}"
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title>"
            "<style>body{font-family:sans-serif;margin:1em auto;max-width:1200px;padding:0 1em}"
            "h1,h2{overflow-wrap:anywhere}h1{font-size:1.5em}h2{font-size:1.1em;margin-bottom:0}"
            "pre{white-space:pre-wrap;overflow-wrap:anywhere}.metrics{overflow-x:auto}"
            "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
            "</style></head><body>\n"
            f"<h1>{escape(title)}</h1>\n<pre>{escape(d.text())}</pre>\n" + "\n".join(parts) +
            f"\n<h2>Metrics</h2>\n<div class=\"metrics\">{table}</div>{modes}\n</body></html>\n")


def compare(a: HeatMap, b: HeatMap, noise_maps: list[HeatMap], *, names=("A", "B"), metrics_a: dict | None = None,
            metrics_b: dict | None = None, noise_metrics: list[dict] = (), params: dict | None = None,
            notes: list[str] = (), events: tuple[str, str] = ("I/O", "I/Os")) -> Difference:
    """Compare B with A against the spread of ``noise_maps`` (runs that differ only by chance; none:
    the distances without a verdict, :data:`UNWEIGHED`). ``events``: what the maps count, one and
    many, for the words."""
    a, b = common_buckets(a, b, names)
    for k, m in enumerate(noise_maps):
        common_buckets(m, a, (f"noise run {k + 1}", names[0]))   # refuses, naming the run
    shift = mode_shift(whole_run_modes(a), whole_run_modes(b), [whole_run_modes(m) for m in noise_maps], a.edges_ns)
    return Difference(names, a, b, distance(a, b), spread(noise_maps) if noise_maps else None, len(noise_maps),
                      bands(a, b),
                      metric_table(metrics_a or {}, metrics_b or {}, list(noise_metrics)), dict(params or {}),
                      list(notes), *events, modes=shift)
