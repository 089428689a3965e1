"""The book builds from a fresh checkout's files with the README's command, every chapter executes
(in reference mode), each lab chapter shows its heat maps, and nothing is loaded from the network."""
import re

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(built_book):
    return built_book  # built once per session (conftest.py), shared with tests/test_browser.py


def test_every_chapter_is_a_page(built, manifest):
    for c in manifest.chapters:
        page = built / c.file.with_suffix(".html")
        assert page.is_file(), page
    assert (built / "index.html").is_file()


def test_lab_chapters_show_rendered_figures(built, manifest):
    for c in manifest.chapters:
        if not c.lab:
            continue
        html = (built / c.file.with_suffix(".html")).read_text()
        assert html.count('class="plotly-graph-div"') >= 1, c.file
        assert "Plotly.newPlot" in html
        assert "Traceback" not in html and "Error" not in re.sub(r"<[^>]+>", "", html).split("Checks")[0][-200:]


def test_offline_no_external_scripts_or_styles(built):
    assert (built / "_static" / "plotly.min.js").stat().st_size > 1_000_000
    for page in built.rglob("*.html"):
        html = page.read_text()
        ext = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?:)?//[^"]+"', html)
        assert not ext, f"{page.name} loads from the network: {ext}"
        assert "require.js" not in html  # plotly.min.js would register as an AMD module


def test_checks_are_shown(built, manifest):
    for c in manifest.chapters:
        if c.lab:
            html = (built / c.file.with_suffix(".html")).read_text()
            # the checks table: a result and an expected value per check, every one passing
            assert ">result</th>" in html and ">expected</th>" in html and ">pass</td>" in html, c.file
            assert ">FAIL</td>" not in html, c.file


def test_no_cell_prints_a_bare_value(built):
    """A cell whose last line returns a value prints it on the page (a bare `True` above a checks table
    was seen): every text output is something a chapter meant to show."""
    bare = re.compile(r'<div class="output text_plain[^>]*><div class="highlight"><pre><span></span>'
                      r'(True|False|None|\[\]|\{\})\s*</pre>')
    found = [f"{p.relative_to(built)}: {m.group(1)}" for p in built.rglob("*.html") for m in bare.finditer(p.read_text())]
    assert not found, found


def test_one_search_field_per_page(built, manifest):
    """The sidebar's search field is the page's one (pydata-sphinx-theme's header field is dropped by
    perflab.book.sphinxext); on a phone, where the sidebar folds away, the article header's search
    button opens the same search."""
    for c in manifest.chapters:
        html = (built / c.file.with_suffix(".html")).read_text()
        assert html.count("search-button-field") == 1, c.file
        assert "navbar-persistent" not in html, c.file
        assert re.search(r'<button class="[^"]*\bsearch-button\b', html), c.file


def test_a_hosts_file_is_not_drawn_as_a_shell_session(built):
    """bad-cable's hosts file has its own lexer (perflab.book.sphinxext): its comment is a comment, not
    a root prompt; a console block's addresses are one number each, not their first digits."""
    html = (built / "chapters" / "bad-cable.html").read_text()
    hosts = html.split('<div class="highlight-hosts', 1)[1].split("</pre>", 1)[0]
    assert '<span class="c1"># one host per line' in hosts and 'class="gp"' not in hosts, hosts
    assert '<span class="m">10.20.0.0/24</span>' in html
