"""The checks and audit tables read as words: no Python notation, names from the code in code style,
values with their units, and the audit table grouped (perflab.run.tables, shown by perflab.run.session)."""
import re

import pandas as pd

from perflab.analysis import checks
from perflab.analysis.checks import Check
from perflab.run import session, tables


def _html(t) -> str:
    return t.to_html()


def test_prose_escapes_and_puts_names_from_the_code_in_code_style():
    h = tables.prose("2 x `mirrors` disks at `disk_mbps`; mean_room <= bad_ratio of link_mbit, O_DSYNC & "
                     "read_bytes of /proc/PID/io, 100 MB/s, 0.5/N, <not supported>").html
    assert "`" not in h and "<code>mirrors</code>" in h and "<code>disk_mbps</code>" in h
    for name in ("mean_room", "bad_ratio", "link_mbit", "O_DSYNC", "read_bytes", "/proc/PID/io"):
        assert f"<code>{name}</code>" in h, name
    assert "&lt;not supported&gt;" in h and "&amp;" in h and "100 MB/s" in h and "0.5/N" in h and "&lt;=" in h
    assert str(tables.prose("a_b")) == "a_b"


def test_the_checks_table_reads_as_words_with_units():
    cs = [Check("lost", "n", "==", 0, about="writes lost"),
          Check("scrub clean", lambda m, p: [True, True], "==", True, about="both: scrubbed; no errors",
                show=lambda m, p: [True, True]),
          Check("below", "a", "<", "direct_p50", unit="us"),
          Check("sizes", lambda m, p: [[4096], [131072]], "==", lambda m, p: [[4096], [131072]], unit="bytes",
                about="sizes"),
          Check("flushes cost flush_ms", "r", ">=", 1.25, unit="x"),
          Check("synchronous", lambda m, p: True, "==", True, about="open with O_DSYNC",
                show=lambda m, p: "O_DSYNC: True, JBODs [2, 5]")]
    s = session.Session.__new__(session.Session)
    s.checks, s.units = [], {}
    s.metrics, s.params, s.record, s.mystery = {"n": 0, "a": 4.45, "direct_p50": 177.2, "r": 1.9}, {}, None, None
    s.verify(cs)
    html = _html(tables.checks_table(s.checks, s.units, "Checks"))
    for code in ("== yes", "== 0", "True", "["):
        assert code not in html, code
    assert ">writes lost: none<" in html and ">both: scrubbed; no errors<" in html and ">both yes<" in html
    assert ">4.45 us<" in html and "(<code>direct_p50</code>)" in html and ">1.9x<" in html
    assert ">4,096 and 131,072 bytes<" in html and ">sizes: 4,096 and 131,072 bytes<" in html
    assert "flushes cost <code>flush_ms</code>" in html and "O_DSYNC</code>: yes, JBODs 2 and 5" in html
    assert ">result</th>" in html and ">expected</th>" in html and ">pass</td>" in html


def _audit(cs):
    return pd.DataFrame(checks.audit(cs))


def test_the_audit_table_groups_checks_and_writes_a_shared_cell_once():
    def slow(m, p):
        """The disk took `disk_ms` a read."""
    cs = [Check("a", "x", ">", 1), Check("b", "x", ">", 1, asks="a disk", unless=slow), Check("c", "x", ">", 1),
          Check("d", "x", ">", 1, asks="a fast disk", unless=slow), Check("e", "x", ">", 1, asks="a disk", unless=slow)]
    html = _html(session.table(_audit(cs), "What each check asks of the machine"))
    assert html.count("<tr>") == 1 + 3   # header; a+c, b+e, d
    assert re.search(r"<ul[^>]*><li[^>]*>a</li><li[^>]*>c</li></ul>", html)
    assert html.count("The disk took") == 1 and '<td rowspan="2">The disk took <code>disk_ms</code> a read.</td>' in html
    assert html.count(checks.NEVER) == 1 and "`" not in html
    assert ">checks</th>" in html and ">not shown here when</th>" in html and "None of these" not in html
    assert "What each check asks of the machine" in html


def test_the_audit_table_drops_the_column_no_check_uses_and_says_so():
    cs = [Check("a", "x", ">", 1), Check("b", "x", ">", 1, asks="CPU")]
    html = _html(session.table(_audit(cs), "What each check asks of the machine"))
    assert "not shown here when" not in html and checks.NEVER not in html
    assert "None of these checks can say “not shown here”: each passes or fails." in html
    assert ">check</th>" in html and html.count("<tr>") == 3   # one name a row: "check"


def test_other_tables_are_as_before():
    st = session.table(pd.DataFrame({"disk": ["<not supported>"], "iops": [1800.0], "share": [9e-06]}), "a < b")
    html = _html(st)
    assert "&lt;not supported&gt;" in html and ">1,800<" in html and ">0.000009<" in html and "a &lt; b" in html
