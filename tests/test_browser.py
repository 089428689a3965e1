"""The published book works offline and looks right, in a real browser: headless Chromium (Debian's
`chromium`, driven over the DevTools protocol by tests/support/browser.py) opens the built book at its
index.html and clicks "next" through every chapter book.toml lists. On each page: no request to
anything but file:/data:/blob: URLs, no console error or uncaught exception, every plotly figure of
the page source drawn (an SVG with its traces), the "your run vs reference vs 2009" panel on every
chapter book.toml marks `case_study = true`, previous/next links in book order and a table of
contents that reaches every chapter. The book's search page, opened from file://, finds a word
only one chapter contains, and a chapter's link to a glossary term lands on that term's definition.
Screenshots and a report land in test-artifacts/browser/."""
import dataclasses
import html as html_mod
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import ARTIFACTS, ROOT
from support import browser, layout

OUT = ARTIFACTS / "browser"

needs_chromium = pytest.mark.skipif(browser.find_chromium() is None,
                                    reason="needs chromium (scripts/setup-system.sh installs it)")


@pytest.fixture(scope="module")
def walked(built_book, manifest):
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    rep = browser.check_book(built_book, manifest.chapters, shots=OUT, log=OUT / "chromium.log")
    (OUT / "report.json").write_text(json.dumps(
        {"walk": rep.walk, "failures": rep.failures,
         "pages": {u: dataclasses.asdict(p) for u, p in rep.pages.items()}}, indent=1))
    return rep


def _urls(built_book, manifest):
    return {c.id: browser.chapter_url(built_book, c.file) for c in manifest.chapters}


@pytest.mark.slow
@needs_chromium
def test_every_chapter_renders_offline(walked, built_book, manifest):
    urls = _urls(built_book, manifest)
    seen = [c.id for c in manifest.chapters if urls[c.id] in walked.pages]
    assert seen == [c.id for c in manifest.chapters], f"pages reached: {walked.walk}"
    bad = {}
    for c in manifest.chapters:
        p = walked.pages[urls[c.id]]
        problems = p.failures(need_panel=False)
        if problems:
            bad[c.id] = problems
        assert p.screenshot and (OUT / f"{c.id}.png").stat().st_size > 10_000, c.id
    assert not bad, json.dumps(bad, indent=1)
    # the book's lab chapters do have figures, and the test saw them drawn
    drawn = sum(walked.pages[urls[c.id]].figures_drawn for c in manifest.chapters if c.lab)
    assert drawn >= 2 * sum(1 for c in manifest.chapters if c.lab)


@pytest.mark.slow
@needs_chromium
def test_case_study_chapters_show_the_comparison_panel(walked, built_book, manifest):
    urls = _urls(built_book, manifest)
    studies = [c for c in manifest.chapters if c.case_study]
    assert studies, "book.toml marks no chapter `case_study = true`"
    missing = [c.id for c in studies if walked.pages[urls[c.id]].compare_panels < 1]
    assert not missing, f"no perflab-compare panel on: {missing}"
    for c in studies:  # the panel has the reference and 2009 columns
        page = (built_book / c.file.with_suffix(".html")).read_text()
        panel = page[page.index('class="perflab-compare"'):]
        assert "reference (" in panel[:3000] and ", published" in panel[:3000], c.id


@pytest.mark.slow
@needs_chromium
def test_navigation_reaches_every_chapter_in_order(walked, built_book, manifest):
    urls = [browser.chapter_url(built_book, c.file) for c in manifest.chapters]
    assert walked.walk == urls
    for i, u in enumerate(urls):
        p = walked.pages[u]
        assert p.prev_href == (urls[i - 1] if i else None), u
        assert p.next_href == (urls[i + 1] if i + 1 < len(urls) else None), u
        assert set(urls) <= {h.split("#")[0] for h in p.toc_hrefs}, u


def _text(path):
    """A page's visible words: no scripts (the figures' JSON), styles or tags."""
    s = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(), flags=re.S | re.I)
    return html_mod.unescape(re.sub(r"<[^>]+>", " ", s)).lower()


def unique_word(built_book, manifest):
    """(word, chapter) such that the word is in the search index for that chapter only and no other
    page of the book contains it, even inside a longer word (Sphinx also matches partial terms)."""
    raw = (built_book / "searchindex.js").read_text()
    index = json.loads(raw[raw.index("(") + 1: raw.rindex(")")])
    docs = index["docnames"]
    texts = {d: _text(built_book / f"{d}.html") for d in docs if (built_book / f"{d}.html").exists()}
    chapters = sorted((c for c in manifest.chapters if c.case_study), key=lambda c: c.id != "logzilla")
    for c in chapters:
        doc = str(c.file.with_suffix(""))
        i = docs.index(doc)
        only_here = sorted(t for t, v in index["terms"].items() if v in (i, [i]) and t.isalpha() and len(t) >= 6)
        for term in sorted(only_here, key=lambda t: t != "logzilla"):
            if re.search(rf"\b{term}\b", texts[doc]) and not any(term in t for d, t in texts.items() if d != doc):
                return term, c
    pytest.fail("no word of the search index belongs to a single case-study chapter")


@pytest.mark.slow
@needs_chromium
def test_search_finds_a_word_only_one_chapter_has(built_book, manifest):
    word, chapter = unique_word(built_book, manifest)
    hits, rep = browser.search(built_book, word.capitalize(), log=OUT / "chromium-search.log")
    (OUT / "search.json").write_text(json.dumps({"word": word, "chapter": chapter.id, "hits": hits}, indent=1))
    assert hits == [browser.chapter_url(built_book, chapter.file)], (word, hits)
    assert not rep.external_requests and not rep.problems, (rep.external_requests, rep.problems)


@pytest.mark.slow
@needs_chromium
def test_a_term_link_leads_to_its_definition(built_book, manifest):
    """The first chapter that links a glossary term: clicking its first such link opens the glossary
    at that term, with its definition beside it."""
    chapter = browser.first_page_with_term_links(built_book, manifest.chapters)
    assert chapter is not None, f"no chapter of the built book links a glossary term ({browser.TERM_LINK})"
    rep = browser.follow_term_link(built_book, chapter.file, log=OUT / "chromium-term.log")
    (OUT / "term-link.json").write_text(json.dumps({"chapter": chapter.id, **dataclasses.asdict(rep)}, indent=1))
    assert not rep.failures(), rep.failures()
    assert rep.landed.split("#")[0] == browser.chapter_url(built_book, manifest.chapter("glossary").file)
    assert rep.term and rep.definition, rep


@pytest.mark.slow
@needs_chromium
def test_a_tables_caption_stays_on_a_phones_screen(built_book, manifest):
    """At 390 px a wide table scrolls sideways; its caption wraps at the screen's edge instead of
    scrolling away with it (logzilla's pages have captioned tables wider than a phone)."""
    OUT.mkdir(parents=True, exist_ok=True)
    n, cut = browser.captions_cut(built_book, manifest.chapter("logzilla").file, log=OUT / "chromium-captions.log")
    assert n >= 1
    assert not cut, cut


@pytest.mark.slow
@needs_chromium
def test_figures_follow_the_dark_theme(built_book, manifest):
    """In the dark theme a figure is drawn on a dark background with light text, not as a white card;
    switched back to light it is as it was."""
    OUT.mkdir(parents=True, exist_ok=True)
    got = browser.figure_colours_by_theme(built_book, manifest.chapter("heatmaps").file, shot=OUT / "heatmaps-dark.png",
                                          log=OUT / "chromium-dark.log")
    (OUT / "dark-theme.json").write_text(json.dumps(got, indent=1))
    light, dark, again = got["light"], got["dark"], got["light again"]
    assert light and dark and again, got
    assert dark[0] == "#1e1e1e" and dark[1] == "#dddddd", got
    assert again == light != dark, got


@needs_chromium
def test_a_browser_that_cannot_start_leaves_no_profile(tmp_path, monkeypatch):
    """Chromium's profile directory is made only once its log can be opened, and removed if the
    browser cannot start."""
    import tempfile as tf
    monkeypatch.setattr(tf, "tempdir", str(tmp_path))
    with pytest.raises(FileNotFoundError):
        with browser.Chromium(log=tmp_path / "no-such-dir" / "chromium.log"):
            pass
    with pytest.raises(OSError):
        with browser.Chromium(binary=str(tmp_path / "no-such-chromium")):
            pass
    assert list(tmp_path.iterdir()) == []


def test_case_study_chapters_call_compare(manifest):
    """Fast, without a build: every case-study chapter's source calls the panel."""
    for c in manifest.chapters:
        if c.case_study:
            assert ".compare(" in (manifest.root / c.file).read_text(), f"{c.file}: case_study = true but no s.compare(...) panel"


@needs_chromium
def test_the_checker_sees_what_is_wrong(tmp_path):
    """check_page must catch each fault it exists for: a request off file://, a console error, an
    uncaught exception, a figure div plotly never drew, a missing panel; and count a drawn figure."""
    from perflab.analysis.figures import plotly_js_path

    shutil.copyfile(plotly_js_path(), tmp_path / "plotly.min.js")
    page_html = """<html><head><script src="plotly.min.js"></script></head><body>
<div id="a" class="plotly-graph-div" style="height:200px"></div>
<div id="b" class="plotly-graph-div" style="height:200px"></div>
<script>Plotly.newPlot("a", [{"y": [1, 3, 2]}]);</script>
<img src="http://127.0.0.1:9/pixel.png">
<script>console.error("boom"); setTimeout(() => { throw new Error("late"); }, 0);</script>
</body></html>"""
    f = tmp_path / "bad.html"
    f.write_text(page_html)
    with browser.Chromium() as b:
        page = b.new_page()
        page.goto(f.as_uri())
        rep = browser.check_page(page, page_html, tmp_path / "bad.png", timeout=1.5)
    assert rep.figures_in_source == 2 and rep.figures_in_dom == 2 and rep.figures_drawn == 1
    assert rep.external_requests == ["http://127.0.0.1:9/pixel.png"]
    assert any("boom" in p for p in rep.problems) and any("late" in p for p in rep.problems)
    fails = rep.failures(need_panel=True)
    assert len(fails) == 4, fails  # requests, console, figures, panel
    assert (tmp_path / "bad.png").stat().st_size > 1000


@needs_chromium
def test_the_term_link_check_sees_a_broken_link(tmp_path):
    """follow_term_link passes a link to a glossary's <dt> and fails one to an id that is missing,
    one to an element that is not a glossary term, and a page with no term link."""
    d = tmp_path / "chapters"
    d.mkdir()
    (d / "glossary.html").write_text(
        '<html><body><div style="height:3000px"></div><dl class="simple glossary">'
        '<dt id="term-ARC">ARC</dt><dd><p>ZFS\'s read cache.</p></dd></dl>'
        '<p id="term-note">not a term</p><div style="height:3000px"></div></body></html>')
    for name, href in (("good", "glossary.html#term-ARC"), ("missing", "glossary.html#term-ZIL"),
                       ("para", "glossary.html#term-note"), ("none", "elsewhere.html")):
        (d / f"{name}.html").write_text(f'<html><body><p>The <a href="{href}">ARC</a>.</p></body></html>')
    good = browser.follow_term_link(tmp_path, d.relative_to(tmp_path) / "good.md")
    assert good.failures() == [] and good.term == "ARC" and good.definition == "ZFS's read cache.", good
    missing = browser.follow_term_link(tmp_path, d.relative_to(tmp_path) / "missing.md")
    assert any("has the id #term-ZIL" in f for f in missing.failures()), missing
    para = browser.follow_term_link(tmp_path, d.relative_to(tmp_path) / "para.md")
    assert any("not a term of a glossary" in f for f in para.failures()), para
    none = browser.follow_term_link(tmp_path, d.relative_to(tmp_path) / "none.md")
    assert any("no link to a glossary term" in f for f in none.failures()), none


def test_case_study_needs_a_lab(tmp_path):
    from perflab.config import manifest

    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "book.toml").write_text('[book]\ntitle = "t"\nauthor = "a"\n\n[[chapters]]\nid = "a"\ntitle = "A"\n'
                                        'file = "a.md"\ncase_study = true\n')
    with pytest.raises(manifest.ManifestError, match="case_study"):
        manifest.load(tmp_path)
    (tmp_path / "book.toml").write_text((tmp_path / "book.toml").read_text().replace("case_study = true\n", ""))
    assert manifest.load(tmp_path).chapters[0].case_study is False


def _figure_page(tmp_path, figs) -> tuple[str, str]:
    """One HTML page with plotly.js inline and the given figures."""
    parts = [f.to_html(full_html=False, include_plotlyjs=(i == 0)) for i, f in enumerate(figs)]
    src = "<html><body>" + "".join(parts) + "</body></html>"
    page = tmp_path / "figs.html"
    page.write_text(src)
    return page.as_uri(), src


@needs_chromium
def test_figure_check_flags_axes_that_do_not_show_their_data(tmp_path):
    """The old 'Mean latency per second' figure: add_hline annotations at y = 2 and 300 on a log
    axis, where plotly reads an annotation's y as log10 (10**300): the axis ran to 10**300 and the
    line was a flat smear. The check must say so; the same figure drawn right must pass."""
    import plotly.graph_objects as go

    def mean_fig(right: bool):
        fig = go.Figure()
        fig.add_scatter(x=list(range(10)), y=[30 + i for i in range(10)], mode="lines", name="mean")
        for v, c in ((2.0, "green"), (300.0, "orange")):
            if right:
                fig.add_scatter(x=[0, 9], y=[v, v], mode="lines", line=dict(dash="dot", color=c), name=f"{v}")
            else:
                fig.add_hline(y=v, line_dash="dot", line_color=c, annotation_text=f"median {v}")
        fig.update_layout(title="mean", yaxis_type="log")
        return fig

    empty = go.Figure(go.Scatter(x=[], y=[]))
    empty.update_layout(title="nothing")
    # ht's old sweep: cache-size labels placed at x = 1 MiB in data units on a log axis whose
    # range is set from the data (1e5-1e9 bytes): plotly put them at 10**1048576
    labels = go.Figure(go.Scatter(x=[1e5, 1e9], y=[1, 2]))
    labels.add_annotation(x=2 ** 20, y=1.5, text="L2 1MiB", showarrow=False)
    labels.update_layout(title="sweep", xaxis=dict(type="log", range=[5, 9]))
    # a box drawn from given statistics (latency-art: quartiles, whiskers at p1/p99): its values are the
    # statistics, not the box positions; a range that cuts its whiskers off is flagged
    def box(cut: bool):
        fig = go.Figure(go.Box(x=[1, 2, 3], lowerfence=[3.0, 3.1, 3.2], q1=[3.3, 3.4, 3.5], median=[3.4, 3.5, 4.0],
                               q3=[3.6, 3.7, 5.0], upperfence=[3.9, 4.2, 6.5], boxpoints=False))
        return fig.update_layout(title="box", yaxis_range=[3.3, 5.0] if cut else None)
    url, src = _figure_page(tmp_path, [mean_fig(False), mean_fig(True), empty, labels, box(False), box(True)])
    with browser.Chromium() as b:
        page = b.new_page()
        page.goto(url)
        rep = browser.check_page(page, src)
    probs = rep.figure_problems
    assert any("figure 1" in p and "more than 10x" in p for p in probs), probs
    assert not any("figure 2" in p for p in probs), probs
    assert any("figure 3" in p and "no data" in p for p in probs), probs
    assert any("figure 4" in p and 'annotation "L2 1MiB"' in p for p in probs), probs
    assert not any("figure 5" in p for p in probs), probs
    assert any("figure 6" in p and "data run 3.00 to 6.50" in p for p in probs), probs


#: (page, defect kind) that the layout check (tests/support/layout.py) finds in the book today, each
#: with what it is: these cases are expected to fail (xfail, strict) until the page is fixed; then the
#: case passes, strict makes that XPASS a failure, and its entry here must go.
LAYOUT_KNOWN: dict[tuple[str, str], str] = {}


def _layout_cases():
    from perflab.config import manifest as manifest_mod

    for c in manifest_mod.load(ROOT).chapters:
        for kind in layout.KINDS:
            why = LAYOUT_KNOWN.get((c.id, kind))
            yield pytest.param(c.id, kind, id=f"{c.id}-{kind}",
                               marks=[pytest.mark.xfail(strict=True, reason=why)] if why else [])


def _check_book_layout(html: Path, manifest, views: tuple, out: Path, every_shot: bool) -> list:
    """The layout check on every chapter in `views`; findings in out/layout.{json,md}, screenshots
    (viewport by viewport and per figure) under out/<view>/<page>/: of every page when `every_shot`,
    else of the pages with a finding only (taken after the check, in the views they were found in)."""
    pages = {c.id: browser.chapter_url(html, c.file) for c in manifest.chapters}
    out.mkdir(parents=True, exist_ok=True)
    found = layout.check_pages(pages, views, shots=out if every_shot else None, log=out / "chromium-layout.log")
    if found and not every_shot:
        for v in views:
            bad = {p: u for p, u in pages.items() if any(d.page == p and d.view == v.name for d in found)}
            if bad:
                layout.check_pages(bad, (v,), shots=out, log=out / "chromium-layout-shots.log")
    (out / "layout.json").write_text(json.dumps([dataclasses.asdict(d) for d in found], indent=1))
    (out / "layout.md").write_text(layout.markdown(found, list(pages), views))
    return found


def _built(request) -> Path:
    given = os.environ.get("PERFLAB_TEST_BUILT_BOOK")
    return Path(given) if given else request.getfixturevalue("built_book")


@pytest.fixture(scope="module")
def layout_defects(request, manifest):
    """Every chapter of the built book in every view of the layout check (1280 px and a 390 px phone,
    light and dark); findings in test-artifacts/browser/layout/all/layout.{json,md}, screenshots
    viewport by viewport and per figure under test-artifacts/browser/layout/all/<view>/<page>/.
    PERFLAB_TEST_BUILT_BOOK names an HTML book already built (its _build/html) to check instead of
    building one."""
    return _check_book_layout(_built(request), manifest, layout.VIEWS, OUT / "layout" / "all", every_shot=True)


#: the default run's views: both widths, and dark mode (at the phone's width); the other two in
#: make test-long (test_layout_has_no_defect)
CI_VIEWS = tuple(v for v in layout.VIEWS if v.name in ("desktop-light", "phone-dark"))


@pytest.fixture(scope="module")
def layout_defects_ci(request, manifest):
    return _check_book_layout(_built(request), manifest, CI_VIEWS, OUT / "layout" / "ci", every_shot=False)


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("page", [p.values[0] for p in _layout_cases() if p.values[1] == layout.KINDS[0]])
def test_layout_of_each_page_at_both_widths_and_in_dark_mode(layout_defects_ci, page):
    """Every chapter at 1280 px (light) and on a 390 px phone (dark): none of the layout check's
    defects but those LAYOUT_KNOWN lists for the page (make test-long's strict cases find the entries
    that are stale)."""
    mine = [d for d in layout_defects_ci if d.page == page]
    new = [d for d in mine if (page, d.kind) not in LAYOUT_KNOWN]
    assert not new, "\n".join(f"{d.view}: {d.kind} {d.element} {d.text!r} {d.numbers}" for d in new[:10]) + \
        (f"\n... {len(new)} in all" if len(new) > 10 else "") + "\n(screenshots: test-artifacts/browser/layout/ci)"


# All four views (light and dark at both widths) with every page's and figure's screenshots: make
# test-long, about 7 minutes here.
@pytest.mark.slow
@pytest.mark.long
@needs_chromium
@pytest.mark.parametrize("page,kind", list(_layout_cases()))
def test_layout_has_no_defect(layout_defects, page, kind):
    """One case per chapter and kind of layout defect (tests/support/layout.py says what each is and
    its threshold): none on the page in any view."""
    mine = [d for d in layout_defects if d.page == page and d.kind == kind]
    assert not mine, "\n".join(f"{d.view}: {d.element} {d.text!r} {d.numbers}" for d in mine[:10]) + \
        (f"\n... {len(mine)} in all" if len(mine) > 10 else "")
