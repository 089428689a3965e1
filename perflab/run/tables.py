"""The book's tables as a chapter prints them: a DataFrame as HTML (its text escaped, numbers as the
checks show them, an optional caption), the checks table of a run, and the audit table ("what each check
asks of the machine") grouped.

Text in the checks and audit tables is prose, but it names things from the code: a lab's strings mark
them as Markdown does (`mirrors`), and metric and parameter names (mean_room, bad_ratio), flags
(O_DSYNC), functions (load_formhist_from_file) and paths appear bare. A table cell is not Markdown, so
:func:`prose` puts them in code style itself: the reader tells a name from a word, and never meets a
literal backtick.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape

from perflab.analysis import checks as checks_mod

__all__ = ["Html", "prose", "table", "checks_table", "audit_table"]


class Html:
    """A cell's HTML, made here from escaped text. The table escapes the plain strings of a DataFrame
    before it formats them; a cell of this type it hands to :func:`_cell` whole."""

    def __init__(self, html: str, text: str):
        self.html, self.text = html, text

    def __html__(self) -> str:
        return self.html

    def __str__(self) -> str:   # a DataFrame printed as text
        return self.text

    def __repr__(self) -> str:
        return f"Html({self.text!r})"


# `code` as the Markdown in a lab's strings writes it; an absolute path (two parts at least, not the
# "/s" of "MB/s"); a name from the code: a word with an underscore inside it
_CODE = re.compile(r"`([^`]+)`|(?<![\w/.-])(/[\w.-]+(?:/[\w.-]+)+)|\b([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\b")


def prose(text) -> Html:
    """Text for a checks or audit table cell: escaped, with the names from the code in it in code style."""
    text = str(text)
    html = _CODE.sub(lambda g: f"<code>{next(x for x in g.groups() if x)}</code>", escape(text, quote=False))
    return Html(html, text)


def table(df, caption: str | None = None):
    """A DataFrame as the book shows its tables: one header row (a named index becomes the first
    column), headers over their columns, text escaped, numbers as the checks show them unless the
    chapter formatted them, and an optional caption. Pages without a lab session call it directly.
    A chapter's audit table (``pd.DataFrame(checks.audit(lab.CHECKS))``) is shown grouped (:func:`audit_table`)."""
    import pandas as pd

    if tuple(df.columns) == checks_mod.AUDIT:
        return audit_table(df.to_dict("records"), caption)
    if df.index.name is not None or any(df.index.names) or not isinstance(df.index, pd.RangeIndex):
        df = df.reset_index()
    return _table(df, caption)


def _table(df, caption: str | None = None):
    """A table as the book shows it: no index column, styled like pandas' own tables, its text
    escaped (a value such as perf's "<not supported>" is shown, not taken for an HTML tag), headers
    over their columns, and a caption that says what the table is."""
    st = (df.style.hide(axis="index").format(_cell, escape="html").set_table_attributes('class="dataframe"')
          .set_table_styles([{"selector": "th", "props": "text-align: left;"},
                             {"selector": "caption", "props": _CAPTION}]))
    return st.set_caption(escape(caption, quote=False)) if caption else st


_CAPTION = "caption-side: top; text-align: left; font-weight: bold; padding: 0.8em 0 0.3em 0;"


def _cell(v) -> str:
    """A table cell: numbers as the checks show them (4 significant digits, thousands separated),
    HTML made here (:class:`Html`) as it is, anything else as its (escaped) text."""
    import numpy as np

    if isinstance(v, Html):
        return v.__html__()
    if isinstance(v, np.generic):
        v = v.item()
    return _shown(v) if isinstance(v, (bool, int, float)) or v is None else str(v)


def _shown(v) -> str:
    """A check's value as the checks table shows it: 4 significant digits, never in e-notation,
    thousands separated, lists in words (perflab.analysis.checks.shown)."""
    return checks_mod.shown(v)


def checks_table(outcomes: Sequence[Mapping], units: Mapping[str, str] | None = None, caption: str | None = None):
    """A run's checks as the chapter shows them: result, value (with its check's unit) and the expected
    text in words, and why a check was not shown here when one was not."""
    import pandas as pd

    units = units or {}
    df = pd.DataFrame({"check": [prose(c["name"]) for c in outcomes],
                       "result": [checks_mod.status(c) for c in outcomes],
                       "value": [prose(checks_mod.shown(c["value"], units.get(c["name"], ""))) for c in outcomes],
                       "expected": [prose(checks_mod.readable(c["expected"])) for c in outcomes]})
    if any(checks_mod.status(c) == checks_mod.NOT_SHOWN for c in outcomes):
        # why this machine could not show it, measured by this run
        df["not shown here because"] = [prose(c.get("not_shown", "")) for c in outcomes]
    return _table(df, caption)


class _Shown:
    """HTML made here, for the notebook to display (text/html) as it is."""

    def __init__(self, html: str):
        self.html = html

    def _repr_html_(self) -> str:
        return self.html

    def to_html(self) -> str:
        return self.html


def audit_table(rows: Sequence[Mapping], caption: str | None = None) -> _Shown:
    """The audit table (perflab.analysis.checks.audit) as the page shows it: checks that share both
    cells in one row (checks.grouped), "not shown here when" written once for the rows next to each
    other that share it, and, when no check can say "not shown here", that column left out and the
    caption saying so instead."""
    _, asks, when = checks_mod.AUDIT
    groups = checks_mod.grouped(list(rows))
    some = any(g[when] != checks_mod.NEVER for g in groups)
    heads = ["checks" if any(len(g["checks"]) > 1 for g in groups) else "check", asks] + ([when] if some else [])
    out = ['<table class="dataframe">']
    if caption or not some:
        note = "" if some else ('<span style="font-weight: normal">None of these checks can say “not shown '
                                'here”: each passes or fails.</span>')
        out.append(f'<caption style="{_CAPTION}">{escape(caption or "", quote=False)}'
                   + (" " if caption and note else "") + f"{note}</caption>")
    # a column of name lists gets room beside the long texts (a third of a phone's width at most)
    wide = "" if heads[0] == "check" else " min-width: min(13em, 30vw);"
    out.append("<thead><tr>" + "".join(f'<th style="text-align: left;{wide if k == 0 else ""}">{escape(h)}</th>'
                                       for k, h in enumerate(heads)) + "</tr></thead><tbody>")
    for i, g in enumerate(groups):
        names = g["checks"]
        cell = (prose(names[0]).html if len(names) == 1 else
                '<ul style="margin: 0; padding-left: 1.1em;">'
                + "".join(f'<li style="margin: 0;">{prose(n).html}</li>' for n in names) + "</ul>")
        tds = [f"<td>{cell}</td>", f"<td>{prose(g[asks]).html}</td>"]
        if some and (i == 0 or groups[i - 1][when] != g[when]):
            span = next((k for k, h in enumerate(groups[i:]) if h[when] != g[when]), len(groups) - i)
            rowspan = f' rowspan="{span}"' if span > 1 else ""
            tds.append(f"<td{rowspan}>{prose(g[when]).html}</td>")
        out.append("<tr>" + "".join(tds) + "</tr>")
    out.append("</tbody></table>")
    return _Shown("\n".join(out))
