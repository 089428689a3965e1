"""The book's own Sphinx extension (listed in the generated _config.yml).

* Every page's footer says which commit the book was built from and when, and whether the tree had
  uncommitted changes. The commit is read when the build starts, so it cannot be written into the
  committed _config.yml; sphinx-book-theme's ``extra_footer`` option is set here instead, at
  ``config-inited``.
* The status page's execution table (myst-nb's ``nb-exec-table``) marks each page with an emoji,
  which a machine without an emoji font draws as an empty box: the marks become words.
"""
from __future__ import annotations

import os
from html import escape
from pathlib import Path

from perflab.run import provenance

__all__ = ["setup", "footer_html", "STATUS_WORDS"]

#: myst-nb's execution-table marks, as the status page says them
STATUS_WORDS = {"\u2705": "ran", "\u274c": "failed"}


def footer_html(root: Path) -> str:
    g = provenance.git_state(root)
    sha = (g["git_sha"] or "")[:7]
    when = provenance.now_iso()[:10]
    state = {True: " with uncommitted changes", False: "", None: ""}[g["git_dirty"]]
    what = f"commit <code>{escape(sha)}</code>{state}" if sha else "a tree that is not a git checkout"
    return (f'<p class="perflab-built">Built from {what} on {escape(when)} (UTC); '
            f'<a href="build-status.html">what produced this book</a>.</p>')


def _set_footer(app, config) -> None:
    root = Path(os.environ.get("PERFLAB_ROOT") or app.srcdir)
    config.html_theme_options = {**(config.html_theme_options or {}), "extra_footer": footer_html(root)}


def _status_words(app, doctree, docname) -> None:
    from docutils import nodes

    for table in doctree.findall(nodes.table):
        for text in list(table.findall(nodes.Text)):
            if text.astext() in STATUS_WORDS:
                text.parent.replace(text, nodes.Text(STATUS_WORDS[text.astext()]))


def setup(app):
    app.connect("config-inited", _set_footer)
    app.connect("doctree-resolved", _status_words)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
