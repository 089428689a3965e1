"""Which modes of a run's latency distribution appeared, vanished or moved in another run (issue 43).

`perflab compare RUN_A RUN_B` names them under its distances; the modes are those of each run's
whole-run histogram (:func:`perflab.analysis.heatmap.modes.find_modes`: share, median, bounds).

Pairing: a mode of A and a mode of B are the same mode when each one's median lies within the other's
bounds. A mode runs from valley to valley, so its bounds are where its I/Os are: B's mode sits where
A's was and A's where B's is. The rule takes each mode's own width (a wide band may drift further than
a narrow one and still be the same band), needs no factor of its own, and is symmetric. One
histogram's modes tile its latency range, so a median lies in at most one mode of the other run: the
pairs are one to one (they are still taken greedily, the closest medians first, in case of overlapping
bounds). What it costs: a band that moved clear of where it was (its median beyond its old bounds) is
named as vanished and a new one appeared, which is what the map shows: a band gone, a band new.

Moved: a pair's ratio of medians (B's over A's) counts as a move only if it is further from 1 than the
noise: for that mode, the largest ratio between the medians that A and the noise runs (runs of one
setup, differing by chance) have for it (their modes paired with A's), i.e. the largest over the
smallest of those medians. A mode no noise run has is held to the largest such ratio of A's other
modes. The yardstick is never less than one bucket's width at A's median (its upper edge over its
lower: 1.07 to 1.125 at 8 buckets an octave), and it is that width when there are no noise runs (or
none has any of A's modes; the output says so). Why the floor: a median is interpolated inside its
bucket, which the map cannot resolve; and a largest-of-few yardstick is itself small: against two
noise runs, of 200 pairs of runs drawn alike (20,000 I/Os a run, two lognormal bands) 4 in 10 had a
mode named without the floor, none with it (7 of 200 at 500 I/Os a run).
Each item carries the shares and medians in both runs; a moved mode's share change too.

A run whose histogram has fewer than :data:`~perflab.analysis.heatmap.modes.MIN_EVENTS` events is
"too few to say": nothing is paired or named then, and the text says which run it was.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import numpy as np

from perflab.analysis.heatmap.buckets import format_ns
from perflab.analysis.heatmap.model import HeatMap
from perflab.analysis.heatmap.modes import MIN_EVENTS, Mode, Modes, find_modes

__all__ = ["ModeChange", "ModeShift", "pair_modes", "mode_shift", "whole_run_modes", "MOVED", "STAYED",
           "VANISHED", "APPEARED", "BUCKET_YARDSTICK"]

MOVED, STAYED, VANISHED, APPEARED = "moved", "stayed", "vanished", "appeared"
BUCKET_YARDSTICK = "no noise runs: judged against one bucket's width"


@dataclass(frozen=True)
class ModeChange:
    """One mode of A, of B, or of both. ``kind``: :data:`MOVED`, :data:`STAYED` (paired, its median
    within the yardstick), :data:`VANISHED` (only in A) or :data:`APPEARED` (only in B).
    ``yardstick``: for a pair, the ratio its move had to exceed, ``by`` "noise" or "one bucket"."""
    kind: str
    a: Mode | None
    b: Mode | None
    yardstick: float | None = None
    by: str = ""

    @property
    def ratio(self) -> float | None:
        """B's median over A's (None unless paired)."""
        return self.b.median_ns / self.a.median_ns if self.a and self.b else None

    @property
    def share_points(self) -> float | None:
        """B's share minus A's, in percentage points (None unless paired)."""
        return 100 * (self.b.share - self.a.share) if self.a and self.b else None


@dataclass(frozen=True)
class ModeShift:
    """What happened to the modes from A to B. ``changes``: A's modes in order (each paired, or
    vanished), then the modes that appeared; empty when ``too_few`` names a run ("A", "B") with too
    few events to say. ``noise_runs``: the noise runs whose modes made the yardstick (0: one bucket's
    width was); ``noise_given``: the noise runs there were."""
    a: Modes
    b: Modes
    changes: tuple[ModeChange, ...]
    noise_runs: int
    noise_given: int = 0
    too_few: tuple[str, ...] = ()

    def named(self) -> list[ModeChange]:
        """The changes worth a line: moved, vanished, appeared."""
        return [c for c in self.changes if c.kind != STAYED]

    def lines(self, names: tuple[str, str] = ("A", "B"), events: str = "I/Os") -> list[str]:
        """The block `perflab compare` prints, one line per named change."""
        if self.too_few:
            few = [f"{who if n == who else f'{who} ({n})'} has {m.events:,} {events}"
                   for who, n, m in zip("AB", names, (self.a, self.b)) if who in self.too_few]
            return [f"modes: too few to say ({'; '.join(few)}; a histogram needs {MIN_EVENTS} or more)"]
        head = f"modes: A has {len(self.a.modes)}, B has {len(self.b.modes)}"
        if self.noise_runs:
            head += f"; moves judged against {self.noise_runs} noise runs, and at least one bucket's width"
        elif self.noise_given:
            head += "; no noise run has A's modes: judged against one bucket's width"
        else:
            head += f"; {BUCKET_YARDSTICK}"
        out = [head] + [f"  {describe(c, events)}" for c in self.named()]
        if not self.named():
            out.append("  none appeared, vanished or moved")
        return out

    def html(self, names: tuple[str, str] = ("A", "B"), events: str = "I/Os") -> str:
        """The same as a short list (class ``perflab-modes``), narrow enough for a phone."""
        head, *items = self.lines(names, events)
        lis = "".join(f"<li>{escape(x.strip())}</li>" for x in items)
        return f'<div class="perflab-modes"><p>{escape(head)}</p>' + (f"<ul>{lis}</ul>" if lis else "") + "</div>"


def describe(c: ModeChange, events: str = "I/Os") -> str:
    """One change in words, with its numbers."""
    if c.kind == VANISHED:
        return f"the mode at {format_ns(round(c.a.median_ns))} vanished ({100 * c.a.share:.1f}% of A's {events})"
    if c.kind == APPEARED:
        return f"a mode at {format_ns(round(c.b.median_ns))} appeared ({100 * c.b.share:.1f}% of B's {events})"
    verb = "moved to" if c.kind == MOVED else "stayed at"
    # enough decimals to tell the ratio from its yardstick
    dec = next((k for k in (2, 3, 4) if f"{c.ratio:.{k}f}" != f"{c.yardstick:.{k}f}"), 4)
    return (f"the mode at {format_ns(round(c.a.median_ns))} {verb} {format_ns(round(c.b.median_ns))} "
            f"(x{c.ratio:.{dec}f}, {c.by} x{c.yardstick:.{dec}f}); its share {100 * c.a.share:.1f}% -> "
            f"{100 * c.b.share:.1f}% of the {events} ({c.share_points:+.1f} points)")


def _contains(m: Mode, x: float) -> bool:
    return m.lo_ns <= x < m.hi_ns


def pair_modes(a: tuple[Mode, ...], b: tuple[Mode, ...]) -> dict[int, int]:
    """{index in ``a``: index in ``b``} of the modes that are the same mode: each one's median within
    the other's bounds, the closest medians (in ratio) first, each mode in one pair at most."""
    cands = sorted((abs(math.log(y.median_ns / x.median_ns)), i, j) for i, x in enumerate(a)
                   for j, y in enumerate(b) if _contains(x, y.median_ns) and _contains(y, x.median_ns))
    pairs: dict[int, int] = {}
    for _, i, j in cands:
        if i not in pairs and j not in pairs.values():
            pairs[i] = j
    return pairs


def _bucket_ratio(edges_ns: np.ndarray, x: float) -> float:
    """hi / lo of the bucket that holds ``x`` ns (the first bucket, [0, e1), as one octave)."""
    k = int(np.clip(np.searchsorted(edges_ns, x, side="right") - 1, 0, len(edges_ns) - 2))
    lo, hi = float(edges_ns[k]), float(edges_ns[k + 1])
    return hi / lo if lo > 0 else 2.0


def mode_shift(a: Modes, b: Modes, noise: list[Modes] | tuple[Modes, ...] = (),
               edges_ns: np.ndarray | None = None) -> ModeShift:
    """Pair A's modes with B's, judge the pairs' moves against the noise runs' (see the module's
    docstring). ``edges_ns``: the buckets, for the one-bucket yardstick (needed when no noise run
    has one of A's modes)."""
    few = tuple(who for who, m in (("A", a), ("B", b)) if m.too_few)
    if few:
        return ModeShift(a, b, (), 0, len(noise), few)
    usable = [n for n in noise if not n.too_few]   # a noise run with too few events shows no mode
    # each of A's modes: its medians in A and in the noise runs that have it
    medians = [[m.median_ns] for m in a.modes]
    used = 0
    for n in usable:
        pn = pair_modes(a.modes, n.modes)
        used += bool(pn)
        for i, j in pn.items():
            medians[i].append(n.modes[j].median_ns)
    spread = [max(v) / min(v) if len(v) > 1 else None for v in medians]
    known = [s for s in spread if s is not None]
    pairs = pair_modes(a.modes, b.modes)
    changes = []
    for i, m in enumerate(a.modes):
        if i not in pairs:
            changes.append(ModeChange(VANISHED, m, None))
            continue
        o = b.modes[pairs[i]]
        bucket = _bucket_ratio(np.asarray(edges_ns), m.median_ns) if edges_ns is not None else None
        if known:
            stick, by = (spread[i] if spread[i] is not None else max(known)), "noise"
            if bucket is not None and bucket > stick:
                stick, by = bucket, "one bucket"
        elif bucket is not None:
            stick, by = bucket, "one bucket"
        else:
            raise ValueError("without noise runs that share a mode with A, the yardstick is one bucket: "
                             "pass the buckets' edges")
        r = o.median_ns / m.median_ns
        changes.append(ModeChange(MOVED if max(r, 1 / r) > stick else STAYED, m, o, stick, by))
    taken = set(pairs.values())
    changes += [ModeChange(APPEARED, None, o) for j, o in enumerate(b.modes) if j not in taken]
    return ModeShift(a, b, tuple(changes), used, len(noise))


def whole_run_modes(hm: HeatMap) -> Modes:
    """The modes of a map's whole-run latency histogram (its columns summed; the overflow, above the
    top edge, is in no mode)."""
    return find_modes(hm.counts.sum(axis=0), hm.edges_ns)
