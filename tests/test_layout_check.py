"""The layout check (tests/support/layout.py and layout.js) can fail: each page under
tests/data/layout/ has one defect (its file name) and is flagged with exactly that kind; the clean
page, with a figure, a table that has the scroll cue, a code block and one search box, with none;
clean-figures, figures that come close to the figure rules (stacked labels, a dark plot with grid
lines, plotly's paler colours), with none;
book-table, the book's own table style on a table wider than its column, with none, and its cue is
looked at: a shadow a reader can see, on the side that has more, in the light and the dark theme.
The figures are drawn by the real plotly.js the book ships (plotly's package data). Chromium, no
Docker, seconds: marked as test_browser.py's checker tests are."""
import base64
import json
import shutil
import struct
from pathlib import Path

import pytest

from support import browser, layout

DATA = Path(__file__).parent / "data" / "layout"
#: page -> the kinds it must be flagged with, and no other
EXPECTED = {
    "clean": set(),
    "book-table": set(),
    "small-figure-text": {"small-figure-text"},
    "rotated-figure-text": {"rotated-figure-text"},
    "thin-mark": {"thin-mark"},
    "thin-box": {"thin-mark"},
    "wide-block": {"wide-block"},
    "wrapped-code-line": {"wrapped-code-line"},
    "light-in-dark": {"light-in-dark"},
    "past-right-edge": {"past-right-edge"},
    "page-scrolls-sideways": {"past-right-edge", "page-scrolls-sideways"},
    "duplicate-search": {"duplicate-search"},
    "colliding-figure-text": {"colliding-figure-text"},
    "faint-mark": {"faint-mark"},
    "clean-figures": set(),
}

def fixture_array(page: str, key: str) -> list:
    """The array `key: [...]` of the plotly trace in tests/data/layout/PAGE.html: what the page draws."""
    import re

    text = (DATA / f"{page}.html").read_text()
    m = re.search(rf"\b{key}: (\[[^\]]*\])", text)
    return json.loads(m.group(1))


needs_chromium = pytest.mark.skipif(browser.find_chromium() is None,
                                    reason="needs chromium (scripts/setup-system.sh installs it)")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    from perflab.analysis.figures import plotly_js_path
    from perflab.book import jbconfig

    d = tmp_path_factory.mktemp("layout")
    for f in [*DATA.glob("*.html"), *DATA.glob("*.css")]:
        shutil.copyfile(f, d / f.name)
    shutil.copyfile(plotly_js_path(), d / "plotly.min.js")
    (d / "perflab.css").write_text(jbconfig.CSS)      # the book's style, as the build writes it
    return d


@pytest.fixture(scope="module")
def measured(pages):
    """page -> the defects found at 1280 px (one Chromium for all pages)."""
    out = {}
    with browser.Chromium() as b:
        page = b.new_page()
        layout.set_view(page, layout.VIEWS[0])
        for name in EXPECTED:
            page.goto((pages / f"{name}.html").as_uri())
            page.wait_for(f"document.readyState === 'complete' && (() => {{ const [n, d] = {browser.FIGURES_JS};"
                          " return n === d; })()")
            out[name] = layout.measure(page, 1280)
    return out


def test_every_page_has_a_test():
    assert {f.stem for f in DATA.glob("*.html")} == set(EXPECTED)
    assert set().union(*EXPECTED.values()) == set(layout.KINDS)


@needs_chromium
@pytest.mark.parametrize("name", EXPECTED)
def test_each_defect_is_flagged_alone(measured, name):
    found = measured[name]
    assert {d["kind"] for d in found} == EXPECTED[name], found
    for d in found:      # each says where and what it measured
        assert d["element"] and d["numbers"], d


@needs_chromium
def test_the_numbers_say_what_was_measured(measured):
    small = measured["small-figure-text"]
    assert all(d["numbers"]["font_px"] == 8 for d in small), small
    rotated = measured["rotated-figure-text"]
    assert {d["text"] for d in rotated} == {"Neighbours", "A second CPU"}, rotated
    assert all(abs(d["numbers"]["angle_deg"]) == 90 and d["numbers"]["role"] == "tick" for d in rotated), rotated
    [bar] = measured["thin-mark"]
    ys, xs = fixture_array("thin-mark", "y"), fixture_array("thin-mark", "x")
    thin = ys.index(min(ys))                          # the fixture's smallest bar, beside one of max(ys)
    assert bar["numbers"]["value"] == ys[thin] and bar["numbers"]["drawn_px"] < 2, bar
    assert bar["numbers"]["at"] == xs[thin], bar
    [box] = measured["thin-box"]
    q1, q3 = fixture_array("thin-box", "q1"), fixture_array("thin-box", "q3")
    assert box["numbers"]["mark"] == "box" and box["numbers"]["value"] == [q1[0], q3[0]], box
    [wide] = measured["wide-block"]
    assert wide["numbers"]["content_px"] > wide["numbers"]["column_px"] and wide["numbers"]["overflow"] == "auto", wide
    [code] = measured["wrapped-code-line"]
    assert code["numbers"]["wrapped_lines"] == 1 and code["numbers"]["mid_token"] is True, code
    [slab] = measured["light-in-dark"]
    assert slab["numbers"]["background"] == "rgb(206,214,221)" and slab["text"] == "2009 and this run", slab
    [search] = measured["duplicate-search"]
    assert search["numbers"]["visible"] == 2, search
    collided = {(d["numbers"]["how"], *d["numbers"]["texts"]) for d in measured["colliding-figure-text"]}
    assert collided == {("overlap", "chain 1", "JBOD"),
                        ("stacked", "block size (log scale)", "Lower panel: reads per second")}, collided
    faint = {d["numbers"]["trace"]: d["numbers"] for d in measured["faint-mark"]}
    # the dark brown bars are as near the plot in lightness as the crosses, and seen by their hue
    assert set(faint) == {"the model's bound", "bpftrace"}, faint
    assert faint["the model's bound"]["contrast"] == 1.39 and faint["the model's bound"]["mark"] == "line", faint
    assert faint["bpftrace"]["contrast"] == 1.55 and faint["bpftrace"]["of"] == 3, faint
    assert all(f["chroma"] == 0 and f["background"] == "rgb(38,38,38)" for f in faint.values()), faint


@needs_chromium
@pytest.mark.parametrize("view", layout.VIEWS, ids=lambda v: v.name)
def test_the_figure_rules_hold_in_every_view(pages, view):
    """The figure rules for texts that collide and marks that vanish run in every view (width, phone
    emulation): the same two defects on each of their pages, none on the figures close to both."""
    with browser.Chromium() as b:
        page = b.new_page()
        layout.set_view(page, view)
        found = {}
        for name in ("colliding-figure-text", "faint-mark", "clean-figures"):
            page.goto((pages / f"{name}.html").as_uri())
            page.wait_for(f"(() => {{ const [n, d] = {browser.FIGURES_JS}; return n === d && n > 0; }})()")
            found[name] = layout.measure(page, view.width)
    assert [d["kind"] for d in found["colliding-figure-text"]] == ["colliding-figure-text"] * 2, found
    assert [d["kind"] for d in found["faint-mark"]] == ["faint-mark"] * 2, found
    assert found["clean-figures"] == [], found


def _png_size(path: Path) -> tuple[int, int]:
    raw = path.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", raw[16:24])


@needs_chromium
def test_screenshots_are_taken_at_the_viewports_origin(pages, tmp_path):
    """Viewport by viewport, each capture is the viewport (its size, at x 0 and the scroll offset):
    a page taller than three viewports gives as many slices; each figure gives one image of its box.
    On a phone's 390 px with mobile emulation the slices are 390 px wide."""
    tall = pages / "tall.html"
    tall.write_text((pages / "clean.html").read_text().replace("<p>Text.</p>", '<div style="height: 2400px"></div>'))
    with browser.Chromium() as b:
        page = b.new_page()
        for view in (layout.VIEWS[0], layout.VIEWS[2]):
            layout.set_view(page, view)
            page.goto(tall.as_uri())
            page.wait_for(f"(() => {{ const [n, d] = {browser.FIGURES_JS}; return n === d && n > 0; }})()")
            shots = layout.screenshots(page, tmp_path / view.name)
            slices = [s for s in shots if s.name.startswith("viewport-")]
            figs = [s for s in shots if s.name.startswith("figure-")]
            height = page.evaluate("document.documentElement.scrollHeight")
            assert len(slices) == -(-height // view.height) >= 3, (len(slices), height)
            assert all(_png_size(s) == (view.width, view.height) for s in slices[:-1]), [_png_size(s) for s in slices]
            assert len(figs) == 1 and _png_size(figs[0])[0] <= view.width, figs
            # the page scrolled to the slice it captured: scroll back to the first and compare
            page.evaluate("window.scrollTo(0, 0)")
            again = page.capture_viewport(tmp_path / "again.png")
            assert base64.b64encode(again.read_bytes()) == base64.b64encode(slices[0].read_bytes())


@needs_chromium
def test_on_a_phone_the_edge_is_the_screens(pages):
    """With mobile emulation, content wider than the screen widens the layout viewport (innerWidth
    grows past 390): the check measures against the screen's 390 px, not the widened viewport."""
    with browser.Chromium() as b:
        page = b.new_page()
        layout.set_view(page, layout.VIEWS[2])
        page.goto((pages / "page-scrolls-sideways.html").as_uri())
        page.wait_for("document.readyState === 'complete'")
        found = layout.measure(page, 390)
        page.goto((pages / "clean.html").as_uri())
        page.wait_for(f"(() => {{ const [n, d] = {browser.FIGURES_JS}; return n === d && n > 0; }})()")
        clean = layout.measure(page, 390)
    assert {d["kind"] for d in found} == {"past-right-edge", "page-scrolls-sideways"}, found
    assert all(d["numbers"]["viewport_px"] == 390 for d in found), found
    assert [d["kind"] for d in clean] == [], clean


def _pixels(page, png: Path, points: list[tuple[int, int]]) -> list[list[int]]:
    """The RGB of a PNG's pixels at (x, y), decoded by the browser (a canvas)."""
    b64 = base64.b64encode(png.read_bytes()).decode()
    return page.evaluate(
        "new Promise(r => { const i = new Image(); i.onload = () => { const c = document.createElement('canvas');"
        " c.width = i.width; c.height = i.height; const g = c.getContext('2d'); g.drawImage(i, 0, 0);"
        f" r({json.dumps(points)}.map(([x, y]) => Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3)))); }};"
        f" i.src = 'data:image/png;base64,{b64}'; }})", await_promise=True)


@needs_chromium
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_books_table_cue_can_be_seen(pages, tmp_path, theme):
    """The book's scroll cue on a table (a shadow band at the edge that has more, drawn on the table's
    own background) shows through the rows the theme paints: in each zebra row, 3 px from the edge
    with more, the page differs from the same row 60 px further in by at least 24 levels of 255, and
    3 px from the edge with nothing more by at most 4. Scrolled to the end, the sides swap."""
    with browser.Chromium() as b:
        page = b.new_page()
        layout.set_view(page, layout.VIEWS[0])
        page.goto((pages / "book-table.html").as_uri())
        page.wait_for("document.readyState === 'complete'")
        page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        table = "document.querySelector('article table')"
        width, scroll = page.evaluate(f"[{table}.clientWidth, {table}.scrollWidth - {table}.clientWidth]")
        assert scroll > 50, scroll              # wider than its column: the case the cue is for
        # the bottom of each body row: no text there, only the row's own background
        rows = page.evaluate(f"(() => {{ const t = {table}, top = t.getBoundingClientRect().top;"
                             " return [...t.tBodies[0].rows].map(r => Math.round(r.getBoundingClientRect().bottom - top - 4)); })()")

        def edges(shot: str) -> list[tuple[float, float]]:
            """Per row: how far the left and the right edge differ from the row further in."""
            png = page.capture_element(table, tmp_path / f"{theme}-{shot}.png")
            points = [p for y in rows for p in ((3, y), (63, y), (width - 4, y), (width - 64, y))]
            px = _pixels(page, png, points)
            diff = lambda a, b: max(abs(i - j) for i, j in zip(a, b))
            return [(diff(px[k], px[k + 1]), diff(px[k + 2], px[k + 3])) for k in range(0, len(px), 4)]

        start = edges("start")
        page.evaluate(f"{table}.scrollLeft = {scroll}")
        end = edges("end")
    assert all(left <= 4 and right >= 24 for left, right in start), start
    assert all(left >= 24 and right <= 4 for left, right in end), end
