"""A small Chrome DevTools Protocol client (headless Chromium over --remote-debugging-pipe, so no
websocket library is needed), and the checks that the built book works offline and looks right.

    with Chromium() as b:
        page = b.new_page()
        page.goto("file:///.../_build/html/chapters/logzilla.html")
        page.wait_for("document.readyState === 'complete'")
        page.requests, page.problems        # every URL the page asked for; console errors, exceptions
        page.screenshot(Path("logzilla.png"))

`check_page` waits until every plotly figure of a page is drawn and says what is wrong with it (a
request that would leave the machine, a console error, an undrawn figure, a missing comparison
panel). tests/test_browser.py runs it on every chapter of the built book. `follow_term_link` clicks a
chapter's first link to the glossary and checks that it lands on the term's definition.
"""
from __future__ import annotations

from perflab.errors import Failed

import base64
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

#: The flags the book's browser test runs Chromium with (Debian's `chromium`; no sandbox as root,
#: no background requests of its own: updates, safe browsing, metrics).
FLAGS = ["--headless", "--no-sandbox", "--disable-background-networking", "--disable-component-update",
         "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-sync", "--disable-default-apps", "--mute-audio",
         "--hide-scrollbars", "--remote-debugging-pipe",
         # Belt and braces: no host name resolves (but the loopback, for a live page), so even a request the
         # test would report cannot leave.
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1"]
#: URL schemes that do not leave the machine.
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
#: JavaScript: (figure divs on the page, how many of them plotly has drawn: an SVG and trace data).
FIGURES_JS = """(() => { const d = [...document.querySelectorAll('.plotly-graph-div')];
  return [d.length, d.filter(e => e.querySelector('.main-svg') && e._fullData && e._fullData.length > 0).length]; })()"""


#: JavaScript: what is wrong with each drawn plotly figure, read from plotly's own full layout after
#: autorange (axis ranges are in axis units: log10 of the value on a log axis, as are annotations'
#: coordinates there). Per figure: no data at all; on a numeric axis, data or a data-anchored
#: annotation outside the plotted range (2% slack), or an axis that runs more than 10x its data's
#: extent (an autorange blown up by an annotation placed in data units on a log axis, for example).
#: Category and date axes, and traces without cartesian axes (tables, sunbursts), are not judged.
FIGURE_AXES_JS = r"""(() => {
 const out = [];
 const nums = a => (a === undefined || a === null) ? null : Array.from(a);
 document.querySelectorAll('.plotly-graph-div').forEach((gd, i) => {
  const fl = gd._fullLayout, fd = gd._fullData || [];
  if (!fl) return;
  const name = `figure ${i + 1} ("${((fl.title && fl.title.text) || '').replace(/<[^>]*>/g, ' ').slice(0, 60)}")`;
  const axis = (letter, ref) => fl[letter + 'axis' + ((ref || letter).slice(1))];
  const ext = {};
  let points = 0, cartesian = 0;
  const add = (letter, ref, vals) => {
   const ax = axis(letter, ref);
   if (!ax || !['linear', 'log'].includes(ax.type)) { if (vals && vals.length) points += vals.length; return; }
   const key = ax._name;
   for (let v of vals) {
    v = Number(v);
    if (!isFinite(v)) continue;
    if (ax.type === 'log') { if (v <= 0) continue; v = Math.log10(v); }
    points += 1;
    const e = ext[key] || (ext[key] = [Infinity, -Infinity, ax]);
    e[0] = Math.min(e[0], v); e[1] = Math.max(e[1], v);
   }
  };
  fd.forEach(tr => {
   if (!tr.xaxis || tr.visible === 'legendonly' || (tr._input && tr._input.visible === false)) return;
   cartesian += 1;   // plotly hides a trace without data itself (visible: false): that one counts
   if (tr.visible !== true) return;
   let x = nums(tr.x), y = nums(tr.y);
   const n = Math.max((x || []).length, (y || []).length);
   if (tr.type === 'heatmap' || tr.type === 'contour') {
    // rows may be arrays or typed arrays (plotly.py sends numpy arrays as binary): flatten both
    const z = tr.z ? Array.from(tr.z).flatMap(r => (r !== null && typeof r === 'object' && 'length' in r) ? Array.from(r) : [r]) : [];
    if (!z.some(v => v !== null && isFinite(v))) return;
   }
   if (tr.type === 'box' && tr.q1) {   // a box drawn from given statistics: its values are those
    const stats = ['lowerfence', 'q1', 'median', 'q3', 'upperfence'].flatMap(k => nums(tr[k]) || []);
    if (tr.orientation === 'h') { y = y || [...Array(nums(tr.q1).length).keys()]; x = stats; }
    else { x = x || [...Array(nums(tr.q1).length).keys()]; y = stats; }
   }
   if (!x && y && tr.type !== 'heatmap') x = [...Array(y.length).keys()];
   if (!y && x && tr.type !== 'heatmap') y = [...Array(x.length).keys()];
   if (tr.type === 'bar') {
    const horiz = tr.orientation === 'h';
    if (horiz) { x = (x || []).concat([0]); } else { y = (y || []).concat([0]); }
   }
   if (x) add('x', tr.xaxis, x);
   if (y) add('y', tr.yaxis, y);
  });
  if (cartesian && points === 0) { out.push(`${name}: no data drawn`); return; }
  // axes that share a range (matches: shared_yaxes in make_subplots) are judged on their data together
  const group = {};
  const groupOf = (key, ax) => ax.matches ? ax.matches.replace(/^([xy])(\d*)$/, '$1axis$2') : key;
  for (const key in ext) {
   const g = groupOf(key, ext[key][2]);
   const e = group[g] || (group[g] = [Infinity, -Infinity]);
   e[0] = Math.min(e[0], ext[key][0]); e[1] = Math.max(e[1], ext[key][1]);
  }
  for (const key in ext) {
   const [lo, hi, ax] = ext[key];
   const [r0, r1] = [Math.min(...ax.range), Math.max(...ax.range)];
   const span = r1 - r0, slack = 0.02 * span;
   const unit = ax.type === 'log' ? ' (log10)' : '';
   if (lo < r0 - slack || hi > r1 + slack)
    out.push(`${name}: ${key} shows ${r0.toPrecision(3)} to ${r1.toPrecision(3)}${unit} but its data run ${lo.toPrecision(3)} to ${hi.toPrecision(3)}`);
   // only a range plotly chose (autorange) can "run past" the data: a range the figure sets (0-100 %CPU)
   // is the author's choice of scale
   const [glo, ghi] = group[groupOf(key, ax)];
   if (ax.autorange !== false && ghi > glo && span > 10 * (ghi - glo))
    out.push(`${name}: ${key} runs ${r0.toPrecision(3)} to ${r1.toPrecision(3)}${unit}, more than 10x its data's extent ${glo.toPrecision(3)} to ${ghi.toPrecision(3)}`);
  }
  (fl.annotations || []).forEach(a => {
   if (a.visible === false) return;
   for (const letter of ['x', 'y']) {
    const ref = a[letter + 'ref'];
    if (!ref || ref === 'paper' || ref.includes('domain')) continue;
    const ax = axis(letter, ref);
    if (!ax || !['linear', 'log'].includes(ax.type)) continue;
    const [r0, r1] = [Math.min(...ax.range), Math.max(...ax.range)];
    const v = Number(a[letter]), slack = 0.02 * (r1 - r0);
    if (!(v >= r0 - slack && v <= r1 + slack))
     out.push(`${name}: annotation "${String(a.text).replace(/<[^>]*>/g, ' ').slice(0, 40)}" at ${letter}=${v.toPrecision(4)}${ax.type === 'log' ? ' (log10)' : ''} is outside ${ax._name} ${r0.toPrecision(3)} to ${r1.toPrecision(3)}`);
   }
  });
 });
 return out;
})()"""


class BrowserError(Failed, RuntimeError):
    pass


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Chromium:
    """Headless Chromium driven over a pipe (fd 3: commands in, fd 4: replies and events out,
    each message JSON ending in a NUL byte)."""

    def __init__(self, binary: str | None = None, width: int = 1280, height: int = 900,
                 log: Path | None = None, timeout: float = 30.0):
        self.binary = binary or find_chromium()
        if not self.binary:
            raise BrowserError("no chromium on PATH (scripts/setup-system.sh installs Debian's chromium)")
        self.size, self.log, self.timeout = (width, height), log, timeout
        self._id = 0
        self._replies: dict[int, dict] = {}
        self._events: list[dict] = []
        self._cv = threading.Condition()
        self._closed = False
        self.proc: subprocess.Popen | None = None

    # -- process --
    def __enter__(self) -> "Chromium":
        logf = open(self.log, "wb") if self.log else subprocess.DEVNULL   # first: a bad path makes nothing
        self._profile = tempfile.mkdtemp(prefix="perflab-chromium-")
        cmd_r, cmd_w = os.pipe()     # we write commands, Chromium reads them on fd 3
        out_r, out_w = os.pipe()     # Chromium writes on fd 4, we read
        # Move the child's ends out of the way of 3 and 4 before the child dup2()s them there.
        hi_r, hi_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 100), fcntl.fcntl(out_w, fcntl.F_DUPFD, 100)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        try:
            self.proc = subprocess.Popen(
                [self.binary, *FLAGS, f"--user-data-dir={self._profile}",
                 f"--window-size={self.size[0]},{self.size[1]}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, pass_fds=(3, 4),
                preexec_fn=child_fds, start_new_session=True)
        except BaseException:
            os.close(cmd_w)
            os.close(out_r)
            shutil.rmtree(self._profile, ignore_errors=True)
            raise
        finally:
            for fd in (cmd_r, out_w, hi_r, hi_w):
                os.close(fd)
            if logf is not subprocess.DEVNULL:
                logf.close()
        self._w, self._r = cmd_w, out_r
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.version = self.call("Browser.getVersion").get("product", "")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.proc is None:
            return
        try:
            if self.proc.poll() is None and not self._closed:
                self.call("Browser.close", timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the process group Chromium was started in
            self.proc.wait(timeout=10)
        # Helpers (renderer, zygote) share the group; none should outlive the browser.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)
        self.proc = None

    # -- protocol --
    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._r, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cv:
                    self._closed = True
                    self._cv.notify_all()
                return
            buf += chunk
            *msgs, buf = buf.split(b"\0")
            with self._cv:
                for raw in msgs:
                    msg = json.loads(raw)
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        self._events.append(msg)
                self._cv.notify_all()

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float | None = None) -> dict:
        with self._cv:
            self._id += 1
            mid = self._id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._cv:
            while mid not in self._replies:
                left = deadline - time.monotonic()
                if self._closed or left <= 0:
                    raise BrowserError(f"{method}: no reply ({'browser exited' if self._closed else 'timeout'})")
                self._cv.wait(left)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def events(self, session: str | None, start: int = 0) -> list[dict]:
        with self._cv:
            return [e for e in self._events[start:] if e.get("sessionId") == session]

    def event_count(self) -> int:
        with self._cv:
            return len(self._events)

    def new_page(self) -> "Page":
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        for domain in ("Page", "Runtime", "Network", "Log"):
            page.call(f"{domain}.enable")
        page.call("Emulation.setDeviceMetricsOverride", {"width": self.size[0], "height": self.size[1],
                                                         "deviceScaleFactor": 1, "mobile": False})
        return page


class Page:
    def __init__(self, browser: Chromium, target: str, session: str):
        self.b, self.target, self.session = browser, target, session
        self._mark = browser.event_count()

    def call(self, method: str, params: dict | None = None, timeout: float | None = None) -> dict:
        return self.b.call(method, params, self.session, timeout)

    def reset(self) -> None:
        """Forget the requests and problems seen so far (the next ones belong to the next page)."""
        self._mark = self.b.event_count()

    def _since_mark(self) -> list[dict]:
        return self.b.events(self.session, self._mark)

    @property
    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self._since_mark() if e["method"] == "Network.requestWillBeSent"]

    @property
    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (failed loads among them)."""
        out = []
        for e in self._since_mark():
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console." + p["type"] + ": " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log ({p['entry'].get('source')}): {p['entry'].get('text')} {p['entry'].get('url', '')}")
        return out

    def goto(self, url: str, timeout: float = 30.0) -> None:
        """Navigate and wait for the load event."""
        self.reset()
        start = self.b.event_count()
        r = self.call("Page.navigate", {"url": url})
        if r.get("errorText"):
            raise BrowserError(f"{url}: {r['errorText']}")
        self._wait_event("Page.loadEventFired", start, timeout)

    def _wait_event(self, method: str, start: int, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.b.events(self.session, start):
                if e["method"] == method:
                    return e
            time.sleep(0.05)
        raise BrowserError(f"no {method} within {timeout:.0f} s")

    def evaluate(self, expr: str, await_promise: bool = False):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            raise BrowserError(f"{expr[:60]}...: {r['exceptionDetails'].get('text')}")
        return r.get("result", {}).get("value")

    def wait_for(self, expr: str, timeout: float = 20.0, interval: float = 0.1):
        """Poll a JavaScript expression until it is truthy; its last value (falsy on timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            v = self.evaluate(expr)
            if v or time.monotonic() > deadline:
                return v
            time.sleep(interval)

    def click(self, selector: str, timeout: float = 30.0) -> None:
        """Click the first element matching selector and wait for the page it opens to load."""
        self.reset()
        start = self.b.event_count()
        if not self.evaluate(f"(() => {{ const a = document.querySelector({json.dumps(selector)});"
                             f" if (!a) return false; a.click(); return true; }})()"):
            raise BrowserError(f"nothing matches {selector} on {self.url}")
        self._wait_event("Page.loadEventFired", start, timeout)

    @property
    def url(self) -> str:
        return self.evaluate("location.href")

    def screenshot(self, path: Path, full_page: bool = True, max_height: int = 16000) -> Path:
        params: dict = {"format": "png"}
        if full_page:
            w, h = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": w, "height": min(h, max_height), "scale": 1})
        data = self.call("Page.captureScreenshot", params, timeout=60)["data"]
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def _capture(self, path: Path, clip: dict) -> Path:
        data = self.call("Page.captureScreenshot", {"format": "png", "clip": {**clip, "scale": 1}}, timeout=60)["data"]
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def capture_viewport(self, path: Path) -> Path:
        """What the reader sees now: the viewport at its own origin (page coordinates: x 0, y
        scrollY). A capture beyond the viewport (full_page above) can come out shifted sideways."""
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", await_promise=True)
        y, w, h = self.evaluate("[scrollY, innerWidth, innerHeight]")
        return self._capture(path, {"x": 0, "y": y, "width": w, "height": h})

    def capture_element(self, js_element: str, path: Path) -> Path | None:
        """One element (a JavaScript expression for it), scrolled into view and clipped to its box
        (at most the viewport's height); None when it has no box."""
        box = self.evaluate(f"(() => {{ const e = {js_element}; if (!e) return null; e.scrollIntoView({{block: 'center'}});"
                            " const r = e.getBoundingClientRect(); if (r.width < 1 || r.height < 1) return null;"
                            " return [r.left + scrollX, r.top + scrollY, r.width, Math.min(r.height, innerHeight)]; })()")
        if not box:
            return None
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", await_promise=True)
        x, y, w, h = box
        return self._capture(path, {"x": max(0, x), "y": y, "width": w, "height": h})


@dataclass
class PageReport:
    url: str
    figures_in_source: int
    figures_in_dom: int = 0
    figures_drawn: int = 0
    compare_panels: int = 0
    figure_problems: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    next_href: str | None = None
    prev_href: str | None = None
    toc_hrefs: list[str] = field(default_factory=list)
    screenshot: str | None = None
    seconds: float = 0.0

    def failures(self, need_panel: bool = False) -> list[str]:
        f = []
        if self.external_requests:
            f.append(f"requests that leave the machine: {self.external_requests}")
        if self.problems:
            f.append(f"console errors / exceptions: {self.problems}")
        if not (self.figures_in_source == self.figures_in_dom == self.figures_drawn):
            f.append(f"figures: {self.figures_in_source} in the page source, {self.figures_in_dom} in the DOM, "
                     f"{self.figures_drawn} drawn")
        f.extend(self.figure_problems)
        if need_panel and self.compare_panels < 1:
            f.append("no 'your run vs reference vs 2009' panel (div.perflab-compare)")
        return f


def local(url: str, allowed_prefixes: tuple[str, ...] = ()) -> bool:
    return url.startswith(LOCAL_SCHEMES) or url.startswith(allowed_prefixes)


def check_page(page: Page, source_html: str, shot: Path | None = None, timeout: float = 30.0,
               allowed_prefixes: tuple[str, ...] = ()) -> PageReport:
    """Inspect the page the browser shows (already loaded): wait for its figures, then collect
    what the report needs. `source_html` is the page's HTML file, to count the figures it carries."""
    t = time.monotonic()
    rep = PageReport(page.url, source_html.count('class="plotly-graph-div"'))
    page.wait_for(f"(() => {{ const [n, d] = {FIGURES_JS}; return n === d; }})()", timeout)
    rep.figures_in_dom, rep.figures_drawn = page.evaluate(FIGURES_JS)
    rep.figure_problems = page.evaluate(FIGURE_AXES_JS)
    rep.compare_panels = page.evaluate("document.querySelectorAll('div.perflab-compare table').length")
    rep.next_href = page.evaluate("document.querySelector('a.right-next')?.href ?? null")
    rep.prev_href = page.evaluate("document.querySelector('a.left-prev')?.href ?? null")
    rep.toc_hrefs = page.evaluate("[...document.querySelectorAll('nav.bd-docs-nav a')].map(a => a.href)")
    if shot is not None:   # the page's first screen, at the viewport's origin (a full-page capture came
        time.sleep(0.3)    # out shifted sideways, and took 1.5 s a page; tests/support/layout.py takes
        page.evaluate("window.scrollTo(0, 0)")   # every screen and every figure, make test-long)
        rep.screenshot = str(page.capture_viewport(shot))
    rep.external_requests = [u for u in page.requests if not local(u, allowed_prefixes)]
    rep.problems = page.problems
    rep.seconds = round(time.monotonic() - t, 2)
    return rep


@dataclass
class BookReport:
    pages: dict[str, PageReport]            # page URL -> what was seen on it
    walk: list[str]                         # URLs reached from index.html by clicking "next"
    failures: list[str]


#: Where each notebook table's caption sits on the page: [left, right, the viewport's width, its text].
CAPTIONS_JS = ("Array.from(document.querySelectorAll('div.cell_output table caption')).map(c => {"
               "const r = c.getBoundingClientRect(); "
               "return [r.left, r.right, window.innerWidth, c.textContent.trim().slice(0, 60)]; })")


def captions_cut(html_dir: Path, chapter_file: Path, width: int = 390, log: Path | None = None) -> tuple[int, list]:
    """A chapter at a phone's width: how many notebook tables have a caption, and those whose caption
    runs past the screen's edge (it would be cut: read only by scrolling the table sideways)."""
    with Chromium(width=width, log=log) as b:
        page = b.new_page()
        page.goto(chapter_url(html_dir, chapter_file))
        page.wait_for("document.readyState === 'complete'")
        caps = page.evaluate(CAPTIONS_JS) or []
    return len(caps), [c for c in caps if c[0] < -1 or c[1] > c[2] + 1]


#: the first plotly figure's drawn background and text colour
FIGURE_COLOURS_JS = ("(() => { const g = document.querySelector('.plotly-graph-div'); "
                     "return g && g._fullLayout ? [g._fullLayout.paper_bgcolor, g._fullLayout.font.color] : null; })()")


def figure_colours_by_theme(html_dir: Path, chapter_file: Path, shot: Path | None = None,
                            log: Path | None = None) -> dict[str, list | None]:
    """A chapter's first figure's background and text colour as drawn in the light theme, after the
    theme is switched to dark (the page's own switch: html[data-theme]), and back to light; with a
    screenshot of the dark page when `shot` is given."""
    out: dict[str, list | None] = {}
    with Chromium(log=log) as b:
        page = b.new_page()
        page.goto(chapter_url(html_dir, chapter_file))
        page.wait_for("!!(document.readyState === 'complete' && document.querySelector('.plotly-graph-div')"
                      " && document.querySelector('.plotly-graph-div')._fullLayout)")   # a boolean: the layout is too deep to return
        for theme in ("light", "dark", "light again"):
            before = json.dumps(page.evaluate(FIGURE_COLOURS_JS))
            page.evaluate(f"document.documentElement.setAttribute('data-theme', '{theme.split()[0]}')")
            if theme != "light":   # wait for the restyle (the first light is as loaded)
                page.wait_for(f"JSON.stringify({FIGURE_COLOURS_JS}) !== {json.dumps(before)}", timeout=5)
            out[theme] = page.evaluate(FIGURE_COLOURS_JS)
            if theme == "dark" and shot is not None:
                page.screenshot(shot)
    return out


def chapter_url(html_dir: Path, chapter_file: Path) -> str:
    return (Path(html_dir) / Path(chapter_file).with_suffix(".html")).resolve().as_uri()


def first_page_with_term_links(html_dir: Path, chapters: list):
    """The first chapter (in book order, the glossary itself aside) whose built page links to a
    glossary term; None if none does."""
    for c in chapters:
        page = Path(html_dir) / Path(c.file).with_suffix(".html")
        if c.id != "glossary" and page.is_file() and 'glossary.html#term-' in page.read_text():
            return c
    return None


def check_book(html_dir: Path, chapters: list, shots: Path | None = None, log: Path | None = None,
               timeout: float = 30.0) -> BookReport:
    """Open the built book at its index.html, check every page while clicking "next" through it, and
    compare what was reached with `chapters` (manifest.Chapter objects, in book order). Each
    failure names its page; case-study chapters must show the comparison panel."""
    html_dir = Path(html_dir).resolve()
    urls = [chapter_url(html_dir, c.file) for c in chapters]
    pages: dict[str, PageReport] = {}
    walk: list[str] = []
    fails: list[str] = []
    with Chromium(log=log) as b:
        page = b.new_page()
        page.goto((html_dir / "index.html").as_uri(), timeout)
        # index.html only redirects to the first chapter
        page.wait_for(f"location.href === {json.dumps(urls[0])} && document.readyState === 'complete'", timeout)
        for i in range(len(urls) + 1):
            url = page.url
            if url in walk:
                fails.append(f"'next' leads back to {url}")
                break
            walk.append(url)
            src = Path(url.removeprefix("file://")).read_text() if url.startswith("file://") else ""
            idx = urls.index(url) if url in urls else None
            name = chapters[idx].id if idx is not None else url.rsplit("/", 1)[-1]
            rep = check_page(page, src, (Path(shots) / f"{name}.png") if shots else None, timeout)
            pages[url] = rep
            need_panel = idx is not None and getattr(chapters[idx], "case_study", False)
            fails += [f"{name}: {f}" for f in rep.failures(need_panel)]
            if idx is not None:
                want_prev = urls[idx - 1] if idx > 0 else None
                want_next = urls[idx + 1] if idx + 1 < len(urls) else None
                if rep.prev_href != want_prev:
                    fails.append(f"{name}: 'previous' links to {rep.prev_href}, expected {want_prev}")
                if rep.next_href != want_next:
                    fails.append(f"{name}: 'next' links to {rep.next_href}, expected {want_next}")
                toc = {h.split("#")[0] for h in rep.toc_hrefs}
                missing = [u for u in urls if u not in toc]
                if missing:
                    fails.append(f"{name}: the table of contents does not reach {missing}")
            if not rep.next_href:
                break
            page.click("a.right-next", timeout)
    if walk != urls:
        fails.append(f"clicking 'next' from index.html visits {walk}, the book's chapters are {urls}")
    return BookReport(pages, walk, fails)


#: A link that Sphinx's {term} role made: to the glossary page, at the id of the term's <dt>.
TERM_LINK = 'a[href*="glossary.html#term-"]'
#: JavaScript: what the page shows at its URL's fragment: [tag, text, inside a glossary's <dl>, its
#: definition's text (the <dd> after the term's <dt> and any others naming the same entry), top of
#: the element relative to the viewport, the viewport's height]; null when no element has that id.
TERM_TARGET_JS = r"""(() => {
  const id = decodeURIComponent(location.hash.slice(1));
  const e = id && document.getElementById(id);
  if (!e) return null;
  let dd = e.nextElementSibling;
  while (dd && dd.tagName === 'DT') dd = dd.nextElementSibling;
  return [e.tagName, e.innerText.trim(), !!e.closest('dl.glossary'), dd && dd.tagName === 'DD' ? dd.innerText.trim() : '',
          e.getBoundingClientRect().top, window.innerHeight];
})()"""


@dataclass
class TermLinkReport:
    page: str                          # the chapter the link was on
    href: str | None = None            # where the link pointed
    landed: str | None = None          # the URL the browser reached by clicking it
    term: str = ""                     # the <dt> the fragment names, as shown
    definition: str = ""               # its <dd>
    problems: list[str] = field(default_factory=list)

    def failures(self) -> list[str]:
        return list(self.problems)


def follow_term_link(html_dir: Path, chapter_file: Path, log: Path | None = None,
                     timeout: float = 30.0) -> TermLinkReport:
    """Open a chapter of the built book, click its first link to a glossary term and check where it
    lands: the glossary page, scrolled to a term of its glossary (a <dt> with the link's id), with a
    definition, and without console errors or requests off the machine."""
    url = chapter_url(html_dir, chapter_file)
    glossary = (Path(html_dir).resolve() / Path(chapter_file).parent / "glossary.html").as_uri()
    rep = TermLinkReport(url)
    with Chromium(log=log) as b:
        page = b.new_page()
        page.goto(url, timeout)
        rep.href = page.evaluate(f"document.querySelector({json.dumps(TERM_LINK)})?.href ?? null")
        if not rep.href:
            rep.problems.append(f"no link to a glossary term ({TERM_LINK}) on {url}")
            return rep
        page.click(TERM_LINK, timeout)
        page.wait_for("document.readyState === 'complete'", timeout)
        rep.landed = page.url
        if rep.landed.split("#")[0] != glossary:
            rep.problems.append(f"the link {rep.href} led to {rep.landed}, not to {glossary}")
        if rep.landed != rep.href:
            rep.problems.append(f"the link {rep.href} led to {rep.landed}")
        target = page.evaluate(TERM_TARGET_JS)
        if target is None:
            rep.problems.append(f"nothing on {rep.landed.split('#')[0]} has the id #{rep.landed.partition('#')[2]}")
        else:
            tag, rep.term, in_glossary, rep.definition, top, height = target
            if tag != "DT" or not in_glossary:
                rep.problems.append(f"#{rep.landed.partition('#')[2]} is a <{tag.lower()}>, not a term of a glossary")
            if not rep.term or not rep.definition:
                rep.problems.append(f"the term {rep.term!r} has no definition beside it")
            if not 0 <= top < height:
                rep.problems.append(f"the page did not scroll to the term (its top at {top:.0f} px, window {height} px)")
        rep.problems += [f"requests that leave the machine: {u}" for u in page.requests if not local(u)]
        rep.problems += [f"console: {p}" for p in page.problems]
    return rep


def search(html_dir: Path, word: str, log: Path | None = None, timeout: float = 30.0) -> tuple[list[str], PageReport]:
    """Run the book's own search page (file://, offline) for `word`: the result URLs, and what the
    search page did (requests, console errors)."""
    url = (Path(html_dir).resolve() / "search.html").as_uri() + "?q=" + word
    with Chromium(log=log) as b:
        page = b.new_page()
        page.goto(url, timeout)
        done = page.wait_for("document.querySelector('#search-results')?.innerText.includes('Search finished')"
                             " || document.querySelector('#search-results')?.innerText.includes('did not match')",
                             timeout)
        if not done:
            raise BrowserError(f"the search page did not finish searching for {word!r}")
        hits = page.evaluate("[...document.querySelectorAll('#search-results ul.search li a')].map(a => a.href)")
        rep = check_page(page, "", None, timeout)
    return [h.split("#")[0].split("?")[0] for h in hits], rep


def main(argv: list[str] | None = None) -> int:
    """python tests/support/browser.py [HTML_DIR] [--shots DIR]: check a built book in headless Chromium."""
    import argparse

    from perflab.config import manifest

    ap = argparse.ArgumentParser(prog="tests/support/browser.py", description=main.__doc__)
    ap.add_argument("html", nargs="?", help="the built book (default: _build/html of the project)")
    ap.add_argument("--shots", help="directory for one screenshot per page")
    args = ap.parse_args(argv)
    m = manifest.load()
    html = Path(args.html or m.root / "_build" / "html")
    if not (html / "index.html").is_file():
        print(f"no built book at {html} (make book builds one)", file=sys.stderr)
        return 2
    term_page = first_page_with_term_links(html, m.chapters)
    try:
        rep = check_book(html, m.chapters, Path(args.shots) if args.shots else None)
        term = follow_term_link(html, term_page.file) if term_page else None
    except BrowserError as e:
        print(f"browser: {e}", file=sys.stderr)
        return 2
    for url, p in rep.pages.items():
        print(f"{url.rsplit('/', 1)[-1]:28} figures {p.figures_drawn}/{p.figures_in_source} drawn, "
              f"panels {p.compare_panels}, requests off the machine {len(p.external_requests)}, "
              f"console errors {len(p.problems)}, {p.seconds:.1f} s")
    failures = list(rep.failures)
    if term is None:
        failures.append(f"no chapter links to a glossary term ({TERM_LINK})")
    else:
        print(f"term link on {term_page.id}: {term.href.rsplit('/', 1)[-1]} -> {term.landed.rsplit('/', 1)[-1]}, "
              f"the term {term.term!r}")
        failures += [f"{term_page.id}: {f}" for f in term.failures()]
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
