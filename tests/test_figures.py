"""The book's shared figure style (perflab.analysis.figures, the heat map's side panel in
perflab.analysis.heatmap.plot): no figure text set under the layout check's 10 px, the side panel's
count ticks few enough to lie flat on a phone, one colour per series across a page. The browser test
draws heat maps with the real plotly.js the book ships, at a phone's 390 px and a desktop's 1280 px,
and measures them with the book's layout check (tests/support/layout.js)."""
import math
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from perflab.analysis import heatmap as H
from perflab.analysis.figures import MIN_FONT_PX, _small_fonts, floor_fonts, readable, show
from perflab.analysis.heatmap.plot import MAX_COLOUR_TICKS, SIDE_TICK_PX, _count_label, _count_ticks, side_ticks
from support import browser, layout

needs_chromium = pytest.mark.skipif(browser.find_chromium() is None,
                                    reason="needs chromium (scripts/setup-system.sh installs it)")


def test_the_floor_is_the_layout_checks():
    js = (Path(__file__).parent / "support" / "layout.js").read_text()
    assert int(re.search(r"minFigureFontPx:\s*(\d+)", js).group(1)) == MIN_FONT_PX == SIDE_TICK_PX


@pytest.mark.parametrize("cells, shown", [(9, "1 2 5 10"), (99, "1 2 5 10 20 50"), (240, "1 10 100"),
                                          (99_999, "1 10 100 1k 10k"), (999_999, "1 100 10k"),
                                          (10 ** 8, "1 100 10k 1M 100M")])
def test_colour_bar_ticks_are_six_at_most(cells, shown):
    vals, text = _count_ticks(max(math.log10(cells), 1.0))
    assert " ".join(text) == shown and len(text) <= MAX_COLOUR_TICKS
    assert vals == [math.log10(v) for v in (int(t.replace("k", "000").replace("M", "000000")) for t in text)]


@pytest.mark.parametrize("top, shown", [(1, ["1"]), (9, ["1"]), (10, ["1", "10"]), (999, ["1", "100"]),
                                        (1000, ["1", "1k"]), (87_654, ["1", "10k"]), (3e6, ["1", "1M"])])
def test_side_ticks_label_one_and_the_top_decade(top, shown):
    vals, text = side_ticks(top)
    assert vals == [10 ** k for k in range(len(vals))] and vals[-1] <= top < vals[-1] * 10   # a grid line a decade
    assert [t for t in text if t] == shown and text[0] == "1" and text[-1] == shown[-1]


def _map(tmp: Path, busiest: int = 0, n: int = 3000, cell: int = 0) -> H.HeatMap:
    """A log-linear latency map of `n` I/Os in 2 minutes from a fio latency log (time, ns, ddir, bs,
    offset, prio), its busiest row then raised by about `busiest` I/Os over the run, or one of its
    cells set to `cell` I/Os."""
    rng = np.random.default_rng(7)
    t_ms = np.sort(rng.integers(0, 120_000, n))
    lat = (2_000 * np.exp(rng.normal(0, 1.5, n))).astype(np.int64) + 1_000
    log = tmp / "x_clat.1.log"
    log.write_text("".join(f"{t}, {v}, 0, 4096, {4096 * i}, 0\n" for i, (t, v) in enumerate(zip(t_ms, lat))))
    hm = H.from_lat_log(log, col_s=1.0)
    if busiest:
        hm.counts[:, hm.counts.sum(axis=0).argmax()] += busiest // hm.n_columns + 1
    if cell:
        hm.counts[5, hm.counts.sum(axis=0).argmax()] = cell
    return hm


def _side_axis(fig):
    return fig.layout.xaxis2


def test_heat_map_side_panel_is_readable(tmp_path):
    fig = readable(H.figure(_map(tmp_path, 20_000), title="side panel"))
    ax = _side_axis(fig)
    assert ax.type == "log" and ax.tickfont.size >= MIN_FONT_PX
    assert ax.tickmode == "array" and 1 <= sum(bool(t) for t in ax.ticktext) <= 2
    assert ax.dtick is None                           # readable() no longer overrides the ticks
    assert not _small_fonts(fig.layout.to_plotly_json())
    assert all(not _small_fonts(t.to_plotly_json()) for t in fig.data)


def test_floor_fonts_raises_what_a_figure_sets_small():
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2], textfont=dict(size=np.array([8, 14])),
                           marker=dict(colorbar=dict(tickfont=dict(size=7)))))
    fig.add_annotation(text="note", x="a", y=1, font=dict(size=8))
    fig.update_layout(uniformtext=dict(minsize=9, mode="show"), font_size=9, legend_font_size=8,
                      xaxis=dict(tickfont_size=9, title=dict(text="x", font=dict(size=6))),
                      yaxis=dict(tickfont_size=14))
    assert len(_small_fonts(fig.layout.to_plotly_json())) == 6 and len(_small_fonts(fig.data[0].to_plotly_json())) == 2
    show(fig)                                          # the book shows every figure through show()
    assert not _small_fonts(fig.layout.to_plotly_json()) and not _small_fonts(fig.data[0].to_plotly_json())
    assert fig.layout.font.size == fig.layout.annotations[0].font.size == fig.layout.uniformtext.minsize == MIN_FONT_PX
    assert list(fig.data[0].textfont.size) == [MIN_FONT_PX, 14]
    assert fig.layout.yaxis.tickfont.size == 14       # larger sizes stay
    plain = floor_fonts(go.Figure(go.Scatter(x=[1], y=[1])))
    assert plain.layout.font.size is None             # plotly's template default (12 px) is left alone


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """Heat maps whose side panels run to 10, 1k, 100k and 1M I/Os, as the book shows them, each on a
    page at 390 and 1280 px: the layout check's figure-text defects and any two tick labels that
    overlap, per width."""
    from perflab.analysis.figures import plotly_js_path

    d = tmp_path_factory.mktemp("figs")
    (d / "plotly.min.js").write_bytes(plotly_js_path().read_bytes())
    parts, tops = [], []
    # side panels to 1, ~100, 100k and 1M I/Os; colour bars of 1-2-5 ticks and of decades to 100M
    for busiest, n, cell in ((0, 60, 0), (0, 3000, 0), (100_000, 3000, 0), (2_000_000, 3000, 0),
                             (0, 3000, 99), (0, 3000, 240), (0, 3000, 10 ** 8)):
        fig = readable(H.figure(_map(d, busiest, n, cell), title=f"{n} I/Os, busiest row + {busiest:,}"))
        tops.append(_count_label(side_ticks(max(fig.data[1].x))[0][-1]))
        parts.append(show(fig)._repr_mimebundle_()["text/html"])
    (d / "maps.html").write_text("<!doctype html><html data-theme='light'><head><meta charset='utf-8'>"
                                 "<meta name='viewport' content='width=device-width'>"
                                 "<script src='plotly.min.js'></script></head><body style='margin:0'>"
                                 "<div style='max-width:688px;margin:0 16px'>" + "".join(parts) + "</div></body></html>")
    overlap_js = """(() => { const out = [];
      document.querySelectorAll('.plotly-graph-div').forEach((gd, i) => {
        const ts = [...gd.querySelectorAll('g[class$="tick"] text')].filter(t => t.textContent.trim());
        const bx = ts.map(t => t.getBoundingClientRect());
        for (let a = 0; a < ts.length; a++) for (let b = a + 1; b < ts.length; b++) {
          const p = bx[a], q = bx[b];
          if (Math.min(p.right, q.right) - Math.max(p.left, q.left) > 0.5 && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 0.5)
            out.push([i + 1, ts[a].textContent, ts[b].textContent]);
        } });
      return out; })()"""
    out = {}
    with browser.Chromium() as b:
        page = b.new_page()
        for view in (layout.VIEWS[2], layout.VIEWS[0]):      # phone-light, desktop-light
            layout.set_view(page, view)
            layout.open_in_view(page, (d / "maps.html").as_uri(), view)
            found = [x for x in layout.measure(page, view.width)
                     if x["kind"] in ("small-figure-text", "rotated-figure-text")]
            side = page.evaluate("[...document.querySelectorAll('.plotly-graph-div')].map(gd =>"
                                 " [...gd.querySelectorAll('g.x2tick text')].map(t => t.textContent).filter(t => t))")
            out[view.width] = (found, page.evaluate(overlap_js), side, tops)
    return out


@needs_chromium
@pytest.mark.parametrize("width", [390, 1280])
def test_side_panel_ticks_lie_flat_and_apart(drawn, width):
    found, overlaps, side, tops = drawn[width]
    assert found == [] and overlaps == []
    assert [s[-1] for s in side] == tops and all(s[0] == "1" for s in side)
    assert tops[:4] == ["1", "100", "100k", "1M"]      # 1 to 7 decades
