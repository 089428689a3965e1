"""The book's own Sphinx extension (listed in the generated _config.yml).

* Every page's footer says which commit the book was built from and when, and whether the tree had
  uncommitted changes. The commit is read when the build starts, so it cannot be written into the
  committed _config.yml; sphinx-book-theme's ``extra_footer`` option is set here instead, at
  ``config-inited``.
* One search field per page: pydata-sphinx-theme (0.17) adds its own search field to a header bar
  (``navbar_persistent``) unless told otherwise, over sphinx-book-theme's field in the sidebar; at
  desktop width the reader saw both. An empty ``navbar_persistent`` drops the header bar: the sidebar
  keeps its field, and on a phone (sidebar folded away) the article header's search button shows.
* The status page's execution table (myst-nb's ``nb-exec-table``) marks each page with an emoji,
  which a machine without an emoji font draws as an empty box: the marks become words.
* Two lexers. ``hosts``: the lab's hosts files (one host per line, optionally ``,port``; ``#``
  comments), which no Pygments lexer fits: a shell session's lexer drew the comment as a root prompt.
  ``console`` (a shell session) as Pygments has it, but an address or version (``10.20.0.0/24``,
  ``3.33``) is one number: Pygments' Bash coloured its first digits only.
* An exercise's solution code cell (tags ``hide-cell`` and ``solution``, perflab.book.solutions) folds
  under "Show solution (code)", not myst-nb's "Show code cell content", which did not say it was the
  answer (the prose solutions sit in a "Solution" dropdown). A post-transform sets the cell's prompts
  before myst-nb's own (HideInputCells) folds it, so the chapters need no per-cell metadata.
"""
from __future__ import annotations

import os
from html import escape
from pathlib import Path

from pygments.lexer import RegexLexer, inherit
from pygments.lexers.shell import BashLexer, BashSessionLexer
from pygments.token import Comment, Name, Number, Punctuation, Whitespace

from perflab.book.solutions import TAG as SOLUTION_TAG
from perflab.run import provenance

__all__ = ["setup", "footer_html", "STATUS_WORDS", "THEME_OPTIONS", "SOLUTION_PROMPTS", "HostsLexer", "ConsoleLexer",
           "label_solutions"]

#: myst-nb's execution-table marks, as the status page says them
STATUS_WORDS = {"\u2705": "ran", "\u274c": "failed"}
#: theme options the book sets whatever _config.yml says (see the module docstring)
THEME_OPTIONS = {"navbar_persistent": []}
#: a folded solution code cell's toggle, folded and unfolded (myst-nb's prompt_show, prompt_hide)
SOLUTION_PROMPTS = ("Show solution (code)", "Hide solution (code)")


class HostsLexer(RegexLexer):
    """A hosts file as perflab.fio.clients reads it: a comment from ``#`` to the line's end, else a
    host name or address, optionally ``,port``."""
    name = "perflab hosts file"
    aliases = ["hosts"]
    tokens = {"root": [(r"#.*$", Comment.Single), (r",\s*\d+", Number.Integer), (r",", Punctuation),
                       (r"[^#,\n]+", Name.Variable), (r"\n", Whitespace)]}


class _Bash(BashLexer):
    tokens = {"data": [(r"\d+(?:\.\d+)+(?:/\d+)?\b", Number), inherit]}


class ConsoleLexer(BashSessionLexer):
    """Pygments' ``console``, dotted numbers whole (see the module docstring)."""
    _innerLexerCls = _Bash


def footer_html(root: Path) -> str:
    g = provenance.git_state(root)
    sha = (g["git_sha"] or "")[:7]
    when = provenance.now_iso()[:10]
    state = {True: " with uncommitted changes", False: "", None: ""}[g["git_dirty"]]
    what = f"commit <code>{escape(sha)}</code>{state}" if sha else "a tree that is not a git checkout"
    return (f'<p class="perflab-built">Built from {what} on {escape(when)} (UTC); '
            f'<a href="build-status.html">what produced this book</a>.</p>')


def _set_theme_options(app, config) -> None:
    root = Path(os.environ.get("PERFLAB_ROOT") or app.srcdir)
    config.html_theme_options = {**(config.html_theme_options or {}), **THEME_OPTIONS,
                                 "extra_footer": footer_html(root)}


def _status_words(app, doctree, docname) -> None:
    from docutils import nodes   # the book's tools, not the package's: the wheel imports without them

    for table in doctree.findall(nodes.table):
        for text in list(table.findall(nodes.Text)):
            if text.astext() in STATUS_WORDS:
                text.parent.replace(text, nodes.Text(STATUS_WORDS[text.astext()]))


def label_solutions(doctree) -> int:
    """Give every folded solution code cell of `doctree` the solution's toggle (SOLUTION_PROMPTS); the
    number of cells labelled."""
    from docutils import nodes

    n = 0
    for node in doctree.findall(nodes.container):
        if (node.get("nb_element") == "cell_code" and node.get("hide_mode")
                and f"tag_{SOLUTION_TAG}" in node.get("classes", [])):
            node["prompt_show"], node["prompt_hide"] = SOLUTION_PROMPTS
            n += 1
    return n


def _solution_toggles():
    """The post-transform that runs label_solutions, just before myst-nb's HideInputCells (priority 199)
    folds the cells with their prompts (made here: Sphinx is the book's tool, not the package's)."""
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class SolutionToggles(SphinxPostTransform):
        default_priority = 198
        formats = ("html",)

        def run(self, **kwargs) -> None:
            label_solutions(self.document)

    return SolutionToggles


def setup(app):
    app.add_post_transform(_solution_toggles())
    app.connect("config-inited", _set_theme_options)
    app.add_lexer("hosts", HostsLexer)
    app.add_lexer("console", ConsoleLexer)
    app.connect("doctree-resolved", _status_words)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
