"""A heat map that grows while its source is written, and the page that shows it as it grows.

:class:`Follower` reads the complete lines a growing file has gained since it last looked (a fio
per-I/O log, or tracer output: bpftrace, biosnoop, trace2heatmap) and counts them into one map
(:class:`~perflab.analysis.heatmap.ingest.MapBuilder`, the builder ``perflab heatmap`` uses), so
that once the file stops growing the map equals ``perflab heatmap`` of the finished file, cell for
cell. It reads only whole lines: a line still being written waits for its newline.

:class:`LivePage` serves the map on the loopback address only (127.0.0.1, an ephemeral port unless
one is given): ``/`` the page, ``/plotly.min.js`` plotly.js from the installed package (the page
works offline), ``/map.json`` the map so far. The page redraws itself once a second, says how many
columns and events it has, says when the source has ended, and lists under its state line what
could not be read (``errors``, or the error of a ``/map.json`` that failed; it asks again a second
later). Backs ``perflab heatmap --follow``.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

from perflab.analysis.heatmap.buckets import bucket_labels, make_buckets
from perflab.analysis.heatmap.ingest import MapBuilder
from perflab.analysis.heatmap.model import HeatMap
from perflab.analysis.heatmap.sources import fio_events
from perflab.analysis.heatmap.traces import trace_events
from perflab.fio.logs import FioLogError

__all__ = ["Follower", "LivePage", "FOLLOW_FORMS"]

#: what --follow reads: fio's per-I/O log and the tracers whose lines stand alone (blkparse pairs an
#: issue line with a completion line that may come much later, so it is read whole, not followed)
FOLLOW_FORMS = ("fio", "bpftrace", "biosnoop", "trace2heatmap")
HOST = "127.0.0.1"
#: after the source ends, the page is served this long more: the page asks once a second, so it sees
#: "ended" and draws the last columns before the server goes
LINGER_S = 3.0


def _is_header(line: bytes) -> bool:
    """A tracer's header line (column names), kept to put before each later piece of the file."""
    first = line.split(maxsplit=1)[:1]
    if not first:
        return False
    try:
        float(first[0])
        return False
    except ValueError:
        return not line.startswith(b"Attaching ")


class Follower:
    """The map of one growing file. ``poll()`` counts the lines it gained; ``snapshot()`` is the map
    so far. ``form``: "fio" (a per-I/O log) or a tracer's form; ``units`` as ``perflab heatmap``'s
    for a trace2heatmap trace; ``offset_ms`` puts a log's own time 0 on the wall clock (slowdisk's
    device logs count from the mount: perflab.run.live lines them up with fio's reports)."""

    def __init__(self, path: str | os.PathLike, form: str = "fio", col_s: float = 1.0, sub: int = 8,
                 units: tuple[str | None, str | None] = (None, None), offset_ms: int = 0):
        if form not in FOLLOW_FORMS:
            raise ValueError(f"--follow reads {', '.join(FOLLOW_FORMS)}, not {form!r}"
                             + (" (blkparse pairs lines that may be far apart: give the finished trace)"
                                if form == "blkparse" else ""))
        self.path, self.form, self.units = Path(path), form, units
        self.offset_ms = int(offset_ms)   # added to each time stamp: a log's time 0 on the wall clock
        self.buckets = make_buckets(sub, None, 128, 2 ** 34, None)
        self.builder = MapBuilder(col_s=col_s, buckets=self.buckets, from_first=form != "fio")
        self.offset = 0
        self.header: bytes | None = None
        self.events = 0
        self.lock = threading.Lock()
        self._dir = Path(tempfile.mkdtemp(prefix="perflab-follow-"))

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _new_lines(self) -> bytes:
        """The whole lines written since the last look (b"" if none)."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return b""
        if size < self.offset:
            raise FioLogError(f"{self.path}: the file shrank from {self.offset:,} to {size:,} bytes while it "
                              "was followed (rewritten or truncated): follow it again from the start")
        if size == self.offset:
            return b""
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read(size - self.offset)
        cut = data.rfind(b"\n") + 1
        self.offset += cut
        return data[:cut]

    def poll(self) -> int:
        """Count the lines the file gained; returns how many events they held."""
        data = self._new_lines()
        if not data:
            return 0
        if self.offset == len(data) and self.form != "fio":   # the first piece: its header, if any
            first = data.split(b"\n", 1)[0]
            self.header = first + b"\n" if _is_header(first) else None
        elif self.header is not None:
            data = self.header + data
        piece = self._dir / self.path.name   # the same name: fio's job and client come from it
        piece.write_bytes(data)
        events = (fio_events(piece, buckets=None) if self.form == "fio"
                  else trace_events(piece, self.form, self.units))
        n = 0
        with self.lock:
            for ev in events:
                ev.where = str(self.path)
                if self.offset_ms:
                    ev.t_ms = ev.t_ms + self.offset_ms
                self.builder.add(ev)
                n += len(ev)
            self.events += n
        return n

    def snapshot(self) -> HeatMap:
        with self.lock:
            return self.builder.result(kind="per-io" if self.form == "fio" else self.form,
                                       sources=[str(self.path)])


def rows_of(hm: HeatMap) -> tuple[int, int]:
    """The span of rows from the first to the last that holds an event (0, 0 for none)."""
    nz = np.flatnonzero(hm.counts.any(axis=0)) if hm.counts.size else np.array([], int)
    return (int(nz[0]), int(nz[-1]) + 1) if len(nz) else (0, 0)


def cells(hm: HeatMap, rows: tuple[int, int]) -> dict:
    """The counts of rows [lo, hi) (rows x columns, as the page draws them) and each column's total."""
    lo, hi = rows
    return {"z": hm.counts[:, lo:hi].T.tolist(), "totals": hm.counts.sum(axis=1).tolist()}


def map_json(hm: HeatMap, events: int, ended: bool, source: str, rows: tuple[int, int] | None = None) -> dict:
    """What the page draws: the non-empty rows' labels (or those of ``rows``, a span that the
    breakdowns drawn under the map need too), each column's start (s), the counts (rows x columns),
    the columns' totals, and the state of the source."""
    rows = rows_of(hm) if rows is None else rows
    return {"source": source, "ended": ended, "events": int(events), "columns": int(hm.n_columns),
            "col_s": hm.col_s, "t0_ms": int(hm.t0_ms), "rows": list(rows),
            "x": [round(i * hm.col_s, 3) for i in range(hm.n_columns)],
            "y": list(bucket_labels(hm.edges_ns)[rows[0]:rows[1]]) if rows[1] else [],
            **cells(hm, rows), "notes": list(hm.notes)}


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perflab: {title}</title><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="/plotly.min.js"></script>
<style>body{{font-family:sans-serif;margin:1em}}#state{{margin:.5em 0}}.ended{{color:#a00;font-weight:bold}}
#errors{{margin:.5em 0;padding:.3em .6em;border-left:4px solid #d60;overflow-wrap:anywhere}}#errors div+div{{margin-top:.3em}}</style>
</head><body>
<h1 style="font-size:1.3em">{title}</h1>
<div id="state">waiting for the first lines...</div><a id="notebook"></a>
<div id="errors" role="status" aria-live="polite" hidden></div>
<div id="map" style="height:520px"></div>
<div id="rate" style="height:240px"></div>
<div id="counters"></div>
<div id="by"></div>
<script>
const COLORS = {colors};
let drawn = '', done = false;
async function tick() {{
  let m;
  try {{ m = await (await fetch('/map.json', {{cache: 'no-store'}})).json(); }}
  catch (e) {{ document.getElementById('state').textContent = 'the server has stopped'; return; }}
  // what could not be read (a source, or the page's data itself): a line each, until it reads well again
  const errs = m.error ? ['could not draw the page: ' + m.error] : (m.errors || []);
  const er = document.getElementById('errors');
  if (er.dataset.shown !== errs.join('\\n')) {{   // rewritten only when it changes: read out once
    er.replaceChildren(...errs.map(t => {{ const d = document.createElement('div'); d.textContent = t; return d; }}));
    er.dataset.shown = errs.join('\\n'); er.hidden = !errs.length;
  }}
  document.body.dataset.errors = errs.length;
  if (m.error) {{ setTimeout(tick, 1000); return; }}
  const st = document.getElementById('state');
  st.textContent = (m.ended ? 'ended: ' : 'following: ') + m.source + ' - ' + m.events.toLocaleString()
    + ' events, ' + m.columns + ' columns of ' + m.col_s + ' s'
    + (m.phase && !m.ended ? ' - phase: ' + m.phase : '') + (m.ended && m.notebook ? ' - notebook: ' + m.notebook : '');
  if (m.sources === 0)   // a run that has listed nothing the page can draw (yet)
    st.textContent = (m.ended ? 'ended: ' : 'running: ') + m.source.split(':')[0] + ' has listed nothing this page '
      + "draws as it goes (fio's reports, the emulated disks' logs, counters)" + (m.phase && !m.ended ? ' - phase: ' + m.phase : '')
      + (m.ended && m.notebook ? ' - notebook: ' + m.notebook : '');
  if (!m.columns && (m.counters || []).length)   // counters alone: their samples, not a map's events
    st.textContent = (m.ended ? 'ended: ' : 'following: ') + m.source + ' - ' + (m.samples || 0).toLocaleString()
      + ' samples' + (m.phase && !m.ended ? ' - phase: ' + m.phase : '') + (m.ended && m.notebook ? ' - notebook: ' + m.notebook : '');
  st.className = m.ended ? 'ended' : '';
  const nb = document.getElementById('notebook');
  if (m.ended && m.notebook_url) {{ nb.href = m.notebook_url; nb.textContent = 'the finished notebook (.ipynb)'; }}
  document.body.dataset.columns = m.columns;
  document.body.dataset.samples = m.samples || 0;
  document.body.dataset.ended = m.ended;
  const ph = m.phases || [];
  const panels = m.counters || [];
  const key = m.columns + '/' + ph.length + '/' + (m.samples || 0);
  if (key !== drawn) {{
    const lines = ph.map(p => ({{type: 'line', x0: p.t_s, x1: p.t_s, yref: 'paper', y0: 0, y1: 1,
                                line: {{dash: 'dash', width: 1, color: 'black'}}}}));
    const notes = ph.map((p, i) => ({{x: p.t_s, yref: 'paper', y: i % 2 ? 1.07 : 1, text: p.name, showarrow: false,
                                     xanchor: 'left', yanchor: 'bottom', font: {{size: 11}}}}));
    // a run with counters and no latency map (yet): the counters alone, each phase marked on them
    const mapless = !m.columns && panels.length > 0;
    ['map', 'rate'].forEach(id => {{ document.getElementById(id).style.display = mapless ? 'none' : ''; }});
    // one time axis for every panel; on a narrow screen the title in two lines, the legend a line a key
    const narrow = window.innerWidth < 600;
    const xmax = Math.max(1, ...panels.flatMap(c => c.series.flatMap(s => s.x)),
                          ...(m.columns ? [m.x[m.x.length - 1] + m.col_s] : []));
    panels.forEach((c, i) => {{
      let div = document.getElementById('counter-' + i);
      if (!div) {{
        div = document.createElement('div'); div.id = 'counter-' + i; div.className = 'counter';
        document.getElementById('counters').appendChild(div);
      }}
      div.style.height = (380 + (narrow ? 22 * c.series.length : 40)) + 'px';
      Plotly.react(div, c.series.map(s => ({{type: 'scatter', mode: 'lines', name: s.name, x: s.x, y: s.y}})),
        {{title: {{text: narrow ? c.label.replace(' (', '<br>(') : c.label}},
         xaxis: {{title: {{text: 'time (s)'}}, range: [0, xmax]}}, yaxis: {{title: {{text: c.unit}}, rangemode: 'tozero'}},
         legend: {{orientation: 'h', yanchor: 'top', y: -0.3}}, margin: {{l: 70, t: narrow ? 120 : 80, r: narrow ? 20 : 80}},
         shapes: lines, annotations: mapless ? notes : []}});
    }});
    const z = m.z.map(r => r.map(c => c > 0 ? Math.log10(c) : null));
    Plotly.react('map', [{{type: 'heatmap', x: m.x, y: m.y, z: z, colorscale: COLORS, hoverongaps: false,
      customdata: m.z, hovertemplate: 't = %{{x}} s<br>%{{y}}<br>%{{customdata}} events<extra></extra>',
      colorbar: {{title: {{text: 'count'}}, tickvals: [0, 1, 2, 3, 4, 5, 6], ticktext: ['1', '10', '100', '1k', '10k', '100k', '1M']}}}}],
      {{title: {{text: 'latency heat map (count per cell)'}}, xaxis: {{title: {{text: 'time (s)'}}}},
       yaxis: {{title: {{text: 'latency'}}, type: 'category'}}, margin: {{l: 110, t: 80}}, shapes: lines,
       annotations: notes}});
    const zmax = Math.max(0, ...z.flat().filter(v => v !== null),
                          ...(m.by || []).map(b => Math.log10(Math.max(1, ...b.z.flat()))));
    (m.by || []).forEach((b, i) => {{
      let div = document.getElementById('by-' + i);
      if (!div) {{
        div = document.createElement('div'); div.id = 'by-' + i; div.className = 'by-map';
        div.style.height = '380px'; document.getElementById('by').appendChild(div);
      }}
      Plotly.react(div, [{{type: 'heatmap', x: m.x, y: m.y, z: b.z.map(r => r.map(c => c > 0 ? Math.log10(c) : null)),
        colorscale: COLORS, zmin: 0, zmax: zmax, hoverongaps: false,
        customdata: b.z, hovertemplate: 't = %{{x}} s<br>%{{y}}<br>%{{customdata}} events<extra></extra>',
        showscale: false}}],
        {{title: {{text: b.label}}, xaxis: {{title: {{text: 'time (s)'}}}}, yaxis: {{type: 'category'}},
         margin: {{l: 110, t: 80}}, shapes: lines}});
    }});
    Plotly.react('rate', [{{type: 'bar', x: m.x, y: m.totals.map(v => v / m.col_s)}}],
      {{title: {{text: 'events per second'}}, xaxis: {{title: {{text: 'time (s)'}}}},
       yaxis: {{title: {{text: 'per second'}}}}, margin: {{l: 110, t: 80}}, shapes: lines}});
    drawn = key;
  }}
  if (!m.ended) setTimeout(tick, 1000); else done = true;
}}
tick();
</script></body></html>
"""


class LivePage:
    """A growing map's page, served on 127.0.0.1 from a thread of its own until ``close()``.
    ``data()`` returns what ``/map.json`` answers whenever the page asks (:func:`map_json`'s dict,
    with ``phases``, ``phase``, ``notebook``, ``notebook_url`` and ``errors``, the lines the page shows
    of what could not be read, where a run has them; a ``data()`` that raises is answered with a 500
    and ``{"error": ...}``, which the page shows, asking again a second later); ``extra``
    maps other paths to a function giving (body, content type), or None for "not there (yet)"."""

    def __init__(self, data, title: str, port: int = 0, extra: dict | None = None):
        from perflab.analysis.figures import plotly_js_path
        from perflab.analysis.heatmap.plot import COLORSCALE

        page = PAGE.format(title=title, colors=json.dumps(COLORSCALE)).encode()
        js = plotly_js_path().read_bytes()
        extra = extra or {}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):   # noqa: N802 - the http.server interface
                path, status = self.path.split("?")[0], 200
                if path in ("/", "/index.html"):
                    got = page, "text/html; charset=utf-8"
                elif path == "/plotly.min.js":
                    got = js, "application/javascript"
                elif path == "/map.json":
                    try:
                        got = json.dumps(data()).encode(), "application/json"
                    except Exception as e:  # noqa: BLE001 - the page says it and asks again
                        got, status = (json.dumps({"error": f"{type(e).__name__}: {e}"}).encode(),
                                       "application/json"), 500
                else:
                    got = extra[path]() if path in extra else None
                if got is None:
                    self.send_error(404)
                    return
                body, ctype = got
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):   # quiet: the command prints its own progress
                pass

        self.server = ThreadingHTTPServer((HOST, port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{HOST}:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, name="perflab-live", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def follow(path: str | os.PathLike, form: str = "fio", *, idle_s: float | None = None, port: int = 0,
           interval_s: float = 0.5, units=(None, None), col_s: float = 1.0, sub: int = 8,
           on_url=print, stop: threading.Event | None = None) -> HeatMap:
    """Follow `path` and serve its growing map until `stop` is set (Ctrl-C in the command) or the
    file has not grown for `idle_s` seconds; then the page says the source ended, stays up LINGER_S
    more seconds for a last redraw, and the final map is returned."""
    stop = stop or threading.Event()
    with Follower(path, form, col_s, sub, units) as f:
        ended = threading.Event()
        with LivePage(lambda: map_json(f.snapshot(), f.events, ended.is_set(), str(path)),
                      f"heat map of {Path(path).name}", port) as page:
            on_url(page.url)
            last = time.monotonic()
            try:
                while not stop.is_set():
                    if f.poll():
                        last = time.monotonic()
                    elif idle_s is not None and time.monotonic() - last >= idle_s:
                        break
                    stop.wait(interval_s)
            except KeyboardInterrupt:   # Ctrl-C: the end of the following, not an error
                pass
            finally:
                f.poll()
                ended.set()
                time.sleep(LINGER_S)
            return f.snapshot()
