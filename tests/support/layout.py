"""The book's layout check: what a reader would call broken, measured in headless Chromium (the
client in tests/support/browser.py) at a desktop's 1280 px and a phone's 390 px, each in the light and
the dark theme. The measuring is JavaScript (tests/support/layout.js, one function per rule), run in
the loaded page; this module opens pages in each view, runs it, takes the screenshots and writes the
findings.

The rules (thresholds in layout.js's THRESHOLDS):

- small-figure-text: a plotly figure's SVG text (ticks, axis titles, legend, annotations, colour
  bars, bar labels) drawn under 10 px (computed font size times its transform's scale).
- rotated-figure-text: such text turned by more than 0.5 degrees (its transform to the SVG). A y
  axis's title (plotly's .ytitle, .y2title, ...) and a colour bar's title may be vertical, by
  convention; a tick label, a bar label, a legend entry or an annotation may not: turned labels are
  what a reader cannot read, "10 px text rotated 90 degrees with room to lie flat".
- thin-mark: a bar whose value (plotly's calcdata `s`) is not 0 drawn under 2 px in its value
  direction (height of a vertical bar, width of a horizontal one), or a box-plot box whose q3 - q1 is
  not 0 drawn under 2 px: a value that is there but cannot be seen.
- wide-block: a pre, div.highlight or table wider than its column (its scroll box: itself or the
  nearest ancestor whose overflow-x is not visible) that is cut (overflow hidden/clip), spills (no
  such box) or scrolls (auto/scroll) with no cue. The cue the book is to use: the class
  `perflab-scroll-cue` on the scroll box or its parent, or a gradient background on either (the
  "scrolling shadows" pattern). A scrollbar is no cue: headless Chromium hides them, and phones and
  macOS show none until the reader scrolls.
- wrapped-code-line: a pre whose white-space lets lines wrap, with a source line that takes more than
  one visual line (a Range over the line's text has rects at more than one top); the numbers say
  where it broke and whether inside a token.
- light-in-dark: with html[data-theme=dark], an element at least 24 x 24 px whose own background
  (alpha >= 0.5) has a relative luminance over 0.4 (the outermost of nested ones), or a plotly figure
  whose paper or plot background does.
- past-right-edge: a visible element whose right edge is past the viewport's width + 1 px and that no
  ancestor clips or scrolls (overflow-x not visible); the outermost of nested ones.
- page-scrolls-sideways: the document is wider than the viewport (+ 1 px).
- duplicate-search: more than one search field shown at once (input[type=search], input[name=q],
  the theme's button.search-button-field), wherever each is scrolled to.
- colliding-figure-text: two visible texts of one plotly figure (ticks, titles, legend entries,
  annotations, bar labels) that collide or run together. Letters are measured by their ink (canvas
  measureText's actualBoundingBox of each character in its font, at its place on the baseline, turned
  as the text is), not by line boxes, which are a fifth taller than the letters. A pair collides when
  a letter of each overlap or come within 1 px (touch: a corner's two "0" ticks); when both are level
  in one row and closer across than a word space (side by side: one phrase); or when both are level,
  one over the other, and their line boxes nearer than plotly sets the lines of one label, 1.3 em
  apart less a line box (stacked: one label, as a legend's first entry under a panel's x title, or a
  panel's x title over the next panel's title). Ticks of one axis and entries of one legend are lists
  and not judged as stacked. Text crossed by a line or a shape is not judged.
- faint-mark: a trace's lines, markers, bars or box-plot boxes whose every paint (fill, stroke; opacity
  applied, over the plot's background: plot_bgcolor over paper_bgcolor over the page) has a WCAG
  contrast ratio under 2 with the plot and lies within 10 of it in CIELAB's a*b* plane: grey on grey,
  too near in lightness to see, as black and #444 on the dark theme's #262626 (1.39 and 1.55, a*b* 0).
  2, not WCAG's 3 for graphics: the grey the review proposes for such lines, #888, reads plainly on
  both plots at 2.98 (light) and 4.27 (dark). And contrast alone fails coloured marks seen by hue:
  on the light theme's #e5ecf6 plot the book's pale blue bars (#aec7e8: 1.46, a*b* 13.5), mustard
  bars (#e6ab02: 1.73, 83), green and orange lines (#00cc96 1.75, #fc8d59 1.94). Grid lines, shapes,
  legend swatches and heat maps' images carry no data and are not judged.

Elements above the document's top (a skip link waiting for focus) are nobody's view and not judged.

    python tests/support/layout.py _build/html --json /tmp/layout.json --md /tmp/layout.md --shots DIR
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):          # run as a script: tests/ on the path, as pytest has it
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support.browser import FIGURES_JS, Chromium, Page  # noqa: E402

LAYOUT_JS = Path(__file__).with_name("layout.js").read_text()
KINDS = ("small-figure-text", "rotated-figure-text", "thin-mark", "wide-block", "wrapped-code-line",
         "light-in-dark", "past-right-edge", "page-scrolls-sideways", "duplicate-search",
         "colliding-figure-text", "faint-mark")


@dataclass(frozen=True)
class View:
    name: str
    width: int
    height: int
    mobile: bool
    dark: bool

    def metrics(self) -> dict:
        return {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": self.mobile}


VIEWS = (View("desktop-light", 1280, 900, False, False), View("desktop-dark", 1280, 900, False, True),
         View("phone-light", 390, 844, True, False), View("phone-dark", 390, 844, True, True))


@dataclass
class Defect:
    page: str
    view: str
    kind: str
    element: str
    text: str
    section: str
    numbers: dict


def set_view(page: Page, view: View) -> None:
    page.call("Emulation.setDeviceMetricsOverride", view.metrics())
    page.call("Emulation.setTouchEmulationEnabled", {"enabled": view.mobile})


def open_in_view(page: Page, url: str, view: View, timeout: float = 30.0) -> None:
    """Load url in the view: the theme's mode from localStorage (the reader's choice, which the
    pydata theme reads at load; file:// pages share it), reloading when it was not yet so; then wait
    for every figure to be drawn and the theme to be applied."""
    page.goto(url, timeout)
    mode = "dark" if view.dark else "light"
    if page.evaluate(f"localStorage.getItem('mode') !== '{mode}' || document.documentElement.dataset.theme !== '{mode}'"):
        page.evaluate(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}')")
        page.goto(url, timeout)
    page.wait_for(f"document.readyState === 'complete' && document.documentElement.dataset.theme === '{mode}'", timeout)
    page.wait_for(f"(() => {{ const [n, d] = {FIGURES_JS}; return n === d; }})()", timeout)
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", await_promise=True)
    time.sleep(0.3)   # plotly's relayout after a resize or a theme change


def measure(page: Page, width: int | None = None) -> list[dict]:
    """The defects the page shows as it is laid out now; `width` is the screen's (the view's) width,
    the right edge an element must not pass (default: the window's innerWidth)."""
    return page.evaluate(f"{LAYOUT_JS}\nperflabLayout.run({json.dumps(width)})") or []


def screenshots(page: Page, out: Path, max_slices: int = 30) -> list[Path]:
    """The page viewport by viewport, each captured at its own origin (viewport-NN.png), and each
    figure clipped to its box once scrolled into view (figure-NN.png)."""
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    height, inner = page.evaluate("[document.documentElement.scrollHeight, innerHeight]")
    for i in range(min(max_slices, -(-height // inner))):
        page.evaluate(f"window.scrollTo(0, {i * inner})")
        shots.append(page.capture_viewport(out / f"viewport-{i + 1:02d}.png"))
    n = page.evaluate("document.querySelectorAll('.plotly-graph-div').length")
    for i in range(n):
        shots.append(page.capture_element(f"document.querySelectorAll('.plotly-graph-div')[{i}]",
                                          out / f"figure-{i + 1:02d}.png"))
    page.evaluate("window.scrollTo(0, 0)")
    return [s for s in shots if s]


def check_pages(pages: dict[str, str], views: tuple[View, ...] = VIEWS, shots: Path | None = None,
                log: Path | None = None, timeout: float = 30.0) -> list[Defect]:
    """Every page (name -> URL) in every view, one Chromium for all; screenshots under
    shots/<view>/<page>/ when `shots` is given."""
    found: list[Defect] = []
    with Chromium(log=log, timeout=timeout) as b:
        page = b.new_page()
        for view in views:
            set_view(page, view)
            for name, url in pages.items():
                open_in_view(page, url, view, timeout)
                found += [Defect(name, view.name, d["kind"], d["element"], d["text"], d["section"], d["numbers"])
                          for d in measure(page, view.width)]
                if shots is not None:
                    screenshots(page, shots / view.name / name)
    return found


def summary(defects: list[Defect]) -> dict[str, dict[str, list[str]]]:
    """kind -> page -> the views it is seen in."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for d in defects:
        if d.view not in out[d.kind][d.page]:
            out[d.kind][d.page].append(d.view)
    return {k: dict(v) for k, v in out.items()}


def _cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def markdown(defects: list[Defect], pages: list[str], views: tuple[View, ...] = VIEWS) -> str:
    """The findings: counts per kind, then per page a table (view, kind, element, text, numbers)."""
    lines = ["# Layout findings", "", f"{len(defects)} defects on {len({d.page for d in defects})} of "
             f"{len(pages)} pages, views {', '.join(v.name for v in views)}.", "",
             "| kind | defects | pages |", "| --- | ---: | --- |"]
    by_kind = Counter(d.kind for d in defects)
    for k in (*KINDS, *sorted(set(by_kind) - set(KINDS))):
        if by_kind[k]:
            lines.append(f"| {k} | {by_kind[k]} | {', '.join(sorted({d.page for d in defects if d.kind == k}))} |")
    for p in pages:
        mine = [d for d in defects if d.page == p]
        lines += ["", f"## {p}", ""]
        if not mine:
            lines.append("No defects.")
            continue
        lines += ["| view | kind | element | section | text | numbers |", "| --- | --- | --- | --- | --- | --- |"]
        order = {v.name: i for i, v in enumerate(views)}
        for d in sorted(mine, key=lambda d: (order.get(d.view, 99), d.kind)):
            nums = ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in d.numbers.items())
            lines.append(f"| {d.view} | {d.kind} | `{_cell(d.element)}` | {_cell(d.section)} | {_cell(d.text)} | {_cell(nums)} |")
    return "\n".join(lines) + "\n"


def book_pages(html_dir: Path, chapter_files: list[Path] | None = None) -> dict[str, str]:
    """The built book's chapter pages, name -> file:// URL (all of chapters/*.html when no list)."""
    html_dir = Path(html_dir).resolve()
    files = [html_dir / Path(f).with_suffix(".html") for f in chapter_files] if chapter_files is not None \
        else sorted((html_dir / "chapters").glob("*.html"))
    return {f.stem: f.as_uri() for f in files}


def main(argv: list[str] | None = None) -> int:
    """python tests/support/layout.py HTML_DIR: the layout check on every chapter page of a built book."""
    import argparse

    ap = argparse.ArgumentParser(prog="tests/support/layout.py", description=main.__doc__)
    ap.add_argument("html", type=Path)
    ap.add_argument("--json", type=Path, help="write the defects as JSON")
    ap.add_argument("--md", type=Path, help="write the findings as Markdown tables")
    ap.add_argument("--shots", type=Path, help="screenshots under SHOTS/<view>/<page>/")
    ap.add_argument("--pages", nargs="*", help="page names (default: every chapter)")
    ap.add_argument("--views", nargs="*", choices=[v.name for v in VIEWS])
    args = ap.parse_args(argv)
    pages = book_pages(args.html)
    if args.pages:
        pages = {k: v for k, v in pages.items() if k in args.pages}
    views = tuple(v for v in VIEWS if not args.views or v.name in args.views)
    t = time.monotonic()
    defects = check_pages(pages, views, args.shots)
    if args.json:
        args.json.write_text(json.dumps([asdict(d) for d in defects], indent=1))
    text = markdown(defects, list(pages), views)
    if args.md:
        args.md.write_text(text)
    print(text.split("\n## ")[0])
    print(f"{len(pages)} pages x {len(views)} views in {time.monotonic() - t:.0f} s")
    return 1 if defects else 0


if __name__ == "__main__":
    raise SystemExit(main())
