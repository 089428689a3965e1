"""perflab.analysis.checks: one declaration gives the condition, the expected text and the value;
"not shown here" only with a measured reason, and only where the claim does not hold."""
import json

import pytest

from perflab.analysis import checks
from perflab.analysis.checks import Check


def test_expected_text_and_value_come_from_the_declaration():
    c = Check("bands apart", "ratio", ">=", 10, about="direct median / cached median")
    o = c.evaluate({"ratio": 39.0})
    assert o == {"name": "bands apart", "passed": True, "value": 39.0, "expected": "direct median / cached median >= 10"}
    c = Check("below", "a", "<", "b", unit="us", bound_about="the direct median")
    assert c.evaluate({"a": 2.5, "b": 96.0})["expected"] == "< 96 us (the direct median)"
    c = Check("share", "s", ">", 0.5, about="share under {line} us")
    assert c.evaluate({"s": 0.9, "line": 14.1})["expected"] == "share under 14.1 us > 0.5"


@pytest.mark.parametrize("op", sorted(set(checks.OPS) - {"==", "!="}))
def test_probe_puts_a_metric_on_either_side_of_the_bound(op):
    c = Check("c", "x", op, (lambda m, p: (m["y"], m["y"] * 2)) if op == "between" else (lambda m, p: m["y"] * 2))
    m = {"x": 0.0, "y": 21.0}
    assert checks.status(c.evaluate(checks.probe(c, m, side="pass"))) == checks.PASS
    assert checks.status(c.evaluate(checks.probe(c, m, side="fail"))) == checks.FAIL


def test_not_shown_only_with_a_reason_and_only_when_the_claim_fails():
    said = []

    def unless(m, p):
        said.append(1)
        return "the disk took 6,324 us per read" if m["slow_disk"] else None

    c = Check("rate reached", "iops", ">=", 180, unless=unless)
    assert c.evaluate({"iops": 200, "slow_disk": True})["passed"] is True and not said   # never asked on a pass
    o = c.evaluate({"iops": 152, "slow_disk": True})
    assert o["passed"] is None and o["not_shown"].startswith("the disk took") and checks.status(o) == checks.NOT_SHOWN
    assert not checks.failed(o)
    o = c.evaluate({"iops": 152, "slow_disk": False})
    assert o["passed"] is False and "not_shown" not in o and checks.failed(o)
    # a null without its reason (an edited run.json) is a failure, not a "not shown"
    assert checks.failed({"name": "x", "passed": None})


def test_missing_values_fail_and_missing_metrics_are_named():
    c = Check("c", "x", ">", 1)
    assert c.evaluate({"x": None})["passed"] is False
    assert c.evaluate({"x": float("nan")})["passed"] is False
    with pytest.raises(KeyError, match="no metric 'x'"):
        c.evaluate({})


def test_outcomes_are_json_and_declarations_are_checked():
    import numpy as np

    o = Check("c", lambda m, p: np.float64(2.5), ">", 1).evaluate({})
    assert json.loads(json.dumps(o))["value"] == 2.5
    with pytest.raises(ValueError, match="op '=>'"):
        Check("c", "x", "=>", 1)
    with pytest.raises(ValueError, match="declared twice: c"):
        checks.evaluate([Check("c", "x", ">", 1), Check("c", "x", "<", 1)], {"x": 0})


def test_audit_says_what_each_check_asks_and_when_it_is_not_shown():
    def unless(m, p):
        """The disk cannot serve the set rate.

        More detail."""
    rows = checks.audit([Check("a", "x", ">", 1, asks="a slow enough disk", unless=unless), Check("b", "x", ">", 1)])
    assert rows[0] == {"check": "a", "asks of the machine": "a slow enough disk",
                       "not shown here when": "The disk cannot serve the set rate."}
    assert rows[1]["not shown here when"] == checks.NEVER


def test_grouped_puts_checks_that_share_both_cells_in_one_row():
    def slow(m, p):
        """The disk is slow."""
    cs = [Check("a", "x", ">", 1), Check("b", "x", ">", 1, asks="a disk", unless=slow), Check("c", "x", ">", 1),
          Check("d", "x", ">", 1, asks="a fast disk", unless=slow), Check("e", "x", ">", 1, asks="a disk", unless=slow),
          Check("f", "x", ">", 1, asks="CPU")]
    rows = checks.grouped(checks.audit(cs))
    assert [r["checks"] for r in rows] == [["a", "c"], ["f"], ["b", "e"], ["d"]]
    # rows that share "not shown here when" are next to each other, in the order of their first check
    assert [r["not shown here when"] for r in rows] == [checks.NEVER, checks.NEVER, "The disk is slow.", "The disk is slow."]


def test_expected_text_reads_as_words():
    m = {"ok": True, "n": 0, "top": 4, "ids": [2, 5]}
    # a claim that must hold is its words; "== 0" is none; another == is "words: bound"; lists in words
    assert Check("flag", "ok", "==", True, about="scrub finds no errors").expected(m) == "scrub finds no errors"
    assert Check("flag", "ok", "==", True).expected(m) == "yes"
    assert Check("flag", "ok", "==", False, about="a hole").expected(m) == "a hole: no"
    assert Check("lost", "n", "==", 0, about="writes lost").expected(m) == "writes lost: none"
    assert Check("top", "top", "==", 4, about="the top client", bound_about="the desktop").expected(m) == \
        "the top client: 4 (the desktop)"
    assert Check("ids", "ids", "==", lambda m, p: [2, 5], bound_about="the planted ones").expected(m) == \
        "2 and 5 (the planted ones)"
    assert Check("sizes", "ids", "==", lambda m, p: [[4096], [131072]], about="sizes", unit="bytes").expected(m) == \
        "sizes: 4,096 and 131,072 bytes"
    assert Check("not", "top", "!=", 3, about="the top client").expected(m) == "the top client: not 3"
    assert "==" not in Check("x", "ok", "==", True, about="a", bound_about="b").expected(m)


def test_values_are_shown_in_words_with_their_unit():
    import numpy as np

    assert checks.shown(True) == "yes" and checks.shown([True, False]) == "yes and no"
    assert checks.shown([True, True]) == "both yes" and checks.shown([False] * 3) == "all no"
    assert checks.shown([2, 5]) == "2 and 5" and checks.shown([1, 2, 4, 5]) == "1, 2, 4 and 5"
    # a thousands comma is not a list's comma
    assert checks.shown([2947, 2944]) == "2,947 and 2,944"
    assert checks.shown([2947, 2944, 12]) == "2,947; 2,944 and 12"
    assert checks.shown([[4096], [131072]], "bytes") == "4,096 and 131,072 bytes"
    assert checks.shown([1.0462, 1.0134], "x") == "1.046x and 1.013x"
    assert checks.shown(4.45, "us") == "4.45 us" and checks.shown(99.4, "%") == "99.4%" and checks.shown(193.0, "x") == "193x"
    assert checks.shown(9e-06) == "0.000009" and checks.shown(np.float64(1800.0), "reads/s") == "1,800 reads/s"
    assert checks.shown("3 at 10%", "us") == "3 at 10%" and checks.shown(None) == "-" and checks.shown([]) == "(none)"
    # a lab's own text: Python's notation in words
    assert checks.readable("O_DSYNC: True, pwrite64: 97") == "O_DSYNC: yes, pwrite64: 97"
    assert checks.readable("44,512 writes from JBODs [1, 2, 4, 5]") == "44,512 writes from JBODs 1, 2, 4 and 5"
    assert checks.readable("see [libc] and True-ish") == "see libc and yes-ish"


def test_between_only_if_and_show():
    c = Check("work stays", "r", "between", (0.8, 1.25), about="work with the hog / alone",
              show=lambda m, p: f"{m['r']} of alone")
    o = c.evaluate({"r": 1.3})
    assert o["passed"] is False and o["expected"] == "work with the hog / alone between 0.8 and 1.25"
    assert o["value"] == "1.3 of alone"
    gated = Check("hog", "r", ">", 0, only_if=lambda m, p: m.get("r") is not None)
    assert checks.evaluate([gated], {"r": None}) == [] and len(checks.evaluate([gated], {"r": 1})) == 1


def test_outcomes_and_statuses_by_name_of_the_checks_made():
    cs = [Check("a", "x", ">", 1), Check("b", "x", "<", 1),
          Check("c", "y", ">", 0, only_if=lambda m, p: m.get("y") is not None),
          Check("d", "x", "<", 1, unless=lambda m, p: "a slow disk" if p["slow"] else None)]
    m, p = {"x": 2, "y": None}, {"slow": True}
    assert checks.outcomes(cs, m, p) == {o["name"]: o for o in checks.evaluate(cs, m, p)}
    assert list(checks.outcomes(cs, m, p)) == ["a", "b", "d"]
    assert checks.statuses(cs, m, p) == {"a": checks.PASS, "b": checks.FAIL, "d": checks.NOT_SHOWN}
    assert checks.statuses(cs, m, {"slow": False})["d"] == checks.FAIL


def _slow(m, p):
    """Not shown whenever the claim fails: on a machine that can show it, it would hide a failure."""
    return "the disk took 6,324 us per read"


#: bounds where their declarations say, for every kind of bound; the computed value is not probed
RIGHT = [Check("ratio", "ratio", ">=", 10), Check("below", "a", "<", "b"),
         Check("share", "s", ">", lambda m, p: p["half"]), Check("band", "r", "between", (0.8, 1.25)),
         Check("around", "z", "between", lambda m, p: (m["b"] - 1, m["b"] + 1)),
         Check("flag", "ok", "==", True), Check("few", "n", "<=", 3, unless=_slow),
         Check("computed", lambda m, p: m["a"] * 2, ">", 1),
         Check("not made", "gone", ">", 0, only_if=lambda m, p: "gone" in m)]
GOOD = {"ratio": 39.0, "a": 2.5, "b": 96.0, "s": 0.9, "r": 1.0, "z": 96.5, "ok": True, "n": 1}


def test_wrong_sides_finds_nothing_where_every_bound_is_declared():
    assert checks.wrong_sides(RIGHT, GOOD, {"half": 0.5}) == []


def test_wrong_sides_lets_an_unless_excuse_the_fail_side_unless_nothing_excuses():
    # "few" says "not shown here" on its fail side: a check with an `unless` may, a machine that can
    # show everything may not
    assert checks.wrong_sides(RIGHT, GOOD, {"half": 0.5}) == []
    assert checks.wrong_sides(RIGHT, GOOD, {"half": 0.5}, nothing_excuses=True) == [
        "few: n=3.003, the fail side, is not shown here: nothing excuses it here"]


def test_wrong_sides_reports_a_bound_that_moves_with_its_value():
    # the bound is computed from the value itself, so moving the value moves the line: no side is tested
    follows = Check("under twice itself", "x", "<", lambda m, p: 2 * m["x"] + 1)
    ahead = Check("at least one more", "x", ">=", lambda m, p: m["x"] + 1)
    near = Check("near itself", "x", "between", lambda m, p: (0.9 * m["x"], 1.1 * m["x"]))
    got = checks.wrong_sides([follows, ahead, near], {"x": 10.0})
    assert got == ["under twice itself: x=21.0, the fail side, passes",
                   "at least one more: x=11.0, the pass side, is FAIL, not a pass",
                   "near itself: x=11.011, the fail side, passes",
                   "near itself: x=8.999991, just under its low end, passes",
                   "near itself: x=11.000011, just over its high end, passes"], got


def test_wrong_sides_probes_both_ends_of_a_range():
    # a range whose low end is declared open by mistake (the value must exceed it): its end does not pass
    class Open(Check):
        def evaluate(self, m, p=None):
            out = super().evaluate(m, p)
            return {**out, "passed": out["passed"] and m[self.value] != self.bound[0]}
    got = checks.wrong_sides([Open("band", "r", "between", (0.8, 1.25))], {"r": 1.0})
    assert got == ["band: r=0.8, its low end, is FAIL, not a pass"]
