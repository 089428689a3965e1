"""The "your run vs reference vs 2009" panel every case-study chapter ends its results with.

    s.compare([
        Row("writes/s without a log device", "iops_before", "{:,.0f}", "143"),
        Row("IOPS gain", "iops_ratio", "{:.1f}x", "12x"),
    ], source='"Logzilla" / "Hybrid Storage Pool" posts, 2009')

Columns: this run (live runs only), the reference run (in the book: recomputed from its raw data
by the chapter; beside a live run: its run.json metrics), and the published figure. A metric a run does not have shows as "-", never as a guess. The panel is
HTML with the class `perflab-compare` (the browser test looks for it on every case-study page).
Below it a live run shows its latency distribution against the reference's (`perflab compare`;
the session attaches it as the panel's ``extras``).
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from perflab.analysis import checks


@dataclass(frozen=True)
class Row:
    label: str          # what the row measures, in the reader's words
    metric: str | None  # key in run.json metrics (None: a 2009-only row)
    fmt: str | Callable[[object], str] = "{}"  # how to show the value: str.format, or a function
    published: str = "-"  # the 2009 figure, as the post gives it


def _fmt(metrics: dict, row: Row) -> str:
    if row.metric is None or metrics.get(row.metric) is None:
        return "-"
    v = metrics[row.metric]
    try:
        return row.fmt(v) if callable(row.fmt) else row.fmt.format(v)
    except (ValueError, TypeError):
        return str(v)


def reference_metrics(reference_dir: Path) -> tuple[dict, dict] | None:
    """(metrics, run.json) of the recorded reference run, or None when there is none."""
    f = Path(reference_dir) / "run.json"
    if not f.exists():
        return None
    doc = json.loads(f.read_text())
    return doc.get("metrics", {}), doc


class Panel:
    def __init__(self, columns: list[str], rows: list[Row], values: list[list[str]], source: str, note: str):
        self.columns, self.rows, self.values, self.source, self.note = columns, rows, values, source, note
        #: what a live run shows below the panel (its difference from the reference: HTML, a figure)
        self.extras: list = []

    def _ipython_display_(self) -> None:
        """The panel, then its extras, each as its own output (a figure keeps its plotly renderer)."""
        from IPython.display import display

        display({"text/html": self._repr_html_(), "text/plain": repr(self)}, raw=True)
        for x in self.extras:
            display(x)

    def table(self) -> dict[str, dict[str, str]]:
        """{row label: {column: shown value}}: what the panel says, for tests and checks."""
        return {r.label: dict(zip(self.columns, vals)) for r, vals in zip(self.rows, self.values)}

    def _repr_html_(self) -> str:
        e = html.escape
        head = "".join(f"<th>{e(c)}</th>" for c in ["", *self.columns])
        body = "".join("<tr><th>" + e(r.label) + "</th>" + "".join(f"<td>{e(v)}</td>" for v in vals) + "</tr>"
                       for r, vals in zip(self.rows, self.values))
        return (f'<div class="perflab-compare"><table class="table">'
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                f"<p><small>Published: {e(self.source)}. {e(self.note)}</small></p></div>")

    def __repr__(self) -> str:
        lines = [" | ".join(["", *self.columns])]
        lines += [" | ".join([r.label, *vals]) for r, vals in zip(self.rows, self.values)]
        return "\n".join(lines)


def spread(values: list[dict], row: Row) -> str:
    """The range of a row's metric over several runs, as "low - high (n runs)"."""
    xs = [v[row.metric] for v in values if row.metric and v.get(row.metric) is not None]
    if not xs:
        return "-"
    n = f" ({len(xs)} runs)"
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs):
        lo, hi = _fmt({"x": min(xs)}, Row("", "x", row.fmt)), _fmt({"x": max(xs)}, Row("", "x", row.fmt))
        return (lo if lo == hi else f"{lo} - {hi}") + n
    shown = sorted({_fmt({"x": x}, Row("", "x", row.fmt)) for x in xs})
    return " / ".join(shown) + n


def panel(session, rows: list[Row], source: str, year: int | str = 2009,
          repeats: list[dict] | None = None, latencies: str = "") -> Panel:
    """The panel; ``latencies``: the reference keeps latency logs, so a live run is also compared
    with it event by event: how, for the note in the book ("I/O by I/O", "openat() call by call");
    empty: it keeps none."""
    ref = reference_metrics(session.reference_dir())
    columns, cols_vals = [], []
    if session.live:
        columns.append(f"your run ({session.preset})")
        cols_vals.append([_fmt(session.metrics, r) for r in rows])
    if ref is not None:
        metrics, doc = ref
        when = (doc.get("provenance", {}).get("started") or "")[:10]
        columns.append(f"reference ({doc.get('preset')})")
        # In the book (reference mode) the values are the ones the chapter just recomputed from the
        # reference's raw data, not the numbers run.json kept from when it was recorded.
        ref_now = metrics if session.live else session.metrics
        cols_vals.append([_fmt(ref_now, r) for r in rows])
        if repeats:
            # the reference and its repeats: the same preset, commit and machine, run again
            columns.append(f"range ({1 + len(repeats)} runs)")
            cols_vals.append([spread([ref_now, *repeats], r) for r in rows])
    columns.append(f"{year}, published")
    cols_vals.append([r.published for r in rows])
    values = [list(v) for v in zip(*cols_vals)]
    note = ""
    if ref is not None:
        note += (f"The reference was recorded on {when} with the {ref[1].get('preset')} preset"
                 + (f"; the range is over it and its {len(repeats)} repeats (same preset, commit and machine). "
                    if repeats else ". "))
    if repeats:
        # the repeats' checks as they recorded them (the chapter recomputes their metrics above)
        failed = {}
        for d in session.repeat_dirs():
            doc = json.loads((d / "run.json").read_text())
            for c in doc.get("checks", []):
                if checks.failed(c):
                    failed.setdefault(c["name"], []).append(d.name)
        n = len(session.repeat_dirs())
        every = {1: "its one repeat", 2: "both repeats"}.get(n, f"all {n} repeats")
        note = (f"Every check passed in {every} of the reference. " if not failed else
                f"In the reference's {n} repeats, checks that failed: "
                + "; ".join(f"'{k}' (repeat {', '.join(v)})" for k, v in failed.items()) + ". ")
    note += ("Ratios are what carry over between machines; absolute numbers belong to the hardware."
            + ("" if session.live else f" Your own run (scripts/perflab run {session.lab.name} --preset smoke) adds a column"
               + ("." if not latencies else f", and below the panel its latencies against the reference's, {latencies}"
                  + (", and whether they differ by more than the reference's runs differ from each other."
                     if repeats else "."))))
    return Panel(columns, rows, values, source, note)
