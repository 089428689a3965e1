"""A chapter's checks, each declared once.

A check is one claim the chapter makes about its data, declared as data: the claim's words, the
value it reads (a metric, or a function of the metrics and parameters), a comparison and its bound
(a number, another metric, or a function of them), and, where a machine may be unable to show the
phenomenon at all, the *measured* reason it cannot::

    Check("bands an order of magnitude apart", "band_ratio", ">=", 10, about="direct median / cached median")
    Check("the direct job ran at its set rate", "iops_direct", ">=", lambda m, p: 0.9 * rates(p)["direct"],
          bound_about="90% of its set rate", unless=disk_too_slow)

From that one declaration follow the condition, the "expected" text (">= 10 (direct median / cached
median)"), the value shown, the chapter's table, the reference build's recomputation, and the unit
tests on both sides of every bound (:func:`probe` moves a check's value to either side of it, and
:func:`wrong_sides` does so for every check of a chapter).

**"Not shown here".** `unless(m, p)` returns a sentence naming what this run measured of the machine
that keeps it from showing the phenomenon (a disk too slow for the set rate, with the disk's measured
time), or None. It is asked only when the claim does not hold, so it can never turn a pass into
anything else, and a check without `unless` can only pass or fail. The outcome is then neither a pass
nor a fail: run.json keeps ``"passed": null`` and the reason (``"not_shown"``), the page shows it as
"not shown here", and the exit status is not a failure. An `unless` must test a measured condition of
the machine, never the claim's own value alone, or it would hide a real failure: each lab's unit tests
give it made-up metrics of a machine that can show the phenomenon but did not, and expect a fail.
"""
from __future__ import annotations

import math
import operator
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["Check", "PASS", "FAIL", "NOT_SHOWN", "NEVER", "AUDIT", "audit", "grouped", "status", "failed",
           "evaluate", "outcomes", "statuses", "probe", "wrong_sides", "shown", "words", "readable"]

PASS, FAIL, NOT_SHOWN = "pass", "FAIL", "not shown here"
#: "not shown here when" of a check without `unless`
NEVER = "never: it passes or fails"
#: the audit table's columns (:func:`audit`)
AUDIT = ("check", "asks of the machine", "not shown here when")

#: the comparisons a check may make
OPS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq, "!=": operator.ne,
    "between": lambda v, b: b[0] <= v <= b[1],   # bound: (low, high), both included
}

def _read(src, m: Mapping, p: Mapping):
    if callable(src):
        return src(m, p)
    if isinstance(src, str):
        if src not in m:
            raise KeyError(f"the run has no metric '{src}'")
        return m[src]
    return src


def shown(v, unit: str = "") -> str:
    """A value as the checks show it, in words: 4 significant digits, never in e-notation, thousands
    separated, booleans as yes or no, lists as "a, b and c" (one-element lists as their element), and
    `unit` after a number or a list of numbers ("x" and "%" without a space)."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        items = [x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x for x in v]
        if len(items) > 1 and all(isinstance(x, bool) for x in items) and len(set(items)) == 1:
            return f"{'both' if len(items) == 2 else 'all'} {shown(items[0])}"   # "both yes", not "yes and yes"
        numeric = bool(items) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in items)
        if numeric and unit in ("%", "x"):   # "1.05x and 1.01x"; "0.125 and 0.124 s"
            return words([shown(x, unit) for x in items])
        return words([shown(x) for x in items]) + (_unit(unit) if numeric else "")
    if isinstance(v, dict):
        return words([f"{k}: {shown(x)}" for k, x in v.items()])
    item = getattr(v, "item", None)   # a numpy scalar
    if callable(item) and not isinstance(v, str):
        v = item()
    if isinstance(v, int):
        return f"{v:,}" + _unit(unit)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        if abs(v) >= 1000:
            return f"{v:,.0f}" + _unit(unit)
        import numpy as np

        return np.format_float_positional(v, precision=4, unique=True, fractional=False, trim="-") + _unit(unit)
    return "-" if v is None else readable(str(v))


def _unit(unit: str) -> str:
    return "" if not unit else unit if unit in ("%", "x") else f" {unit}"


def words(items: list[str]) -> str:
    """Items joined as a sentence joins them: "a", "a and b", "a, b and c"; "(none)" for none. Items that
    hold a comma themselves (a thousands separator: "2,947") are separated by semicolons instead."""
    items = [str(x) for x in items]
    if not items:
        return "(none)"
    sep = "; " if any("," in x for x in items) else ", "
    return items[0] if len(items) == 1 else sep.join(items[:-1]) + " and " + items[-1]


#: a Python list of numbers or plain words written into a lab's text ("JBODs [1, 2, 4, 5]")
_LIST = re.compile(r"\[([\w.+-]+(?:, [\w.+-]+)*)\]")


def readable(text: str) -> str:
    """A lab's text about a value with Python's notation put in words: True and False as yes and no,
    a list of numbers as "1, 2 and 5"."""
    text = re.sub(r"\bTrue\b", "yes", re.sub(r"\bFalse\b", "no", text))
    return _LIST.sub(lambda g: words(g.group(1).split(", ")), text)



@dataclass(frozen=True)
class Check:
    """One claim about a run. `value` and `bound` are metric names, numbers (bound) or functions of
    (metrics, parameters); `about` says in words what the value is, `bound_about` what a computed
    bound is (`about` may name metrics as {name}); `unit` follows numbers in the expected text; `unless(m, p)` the measured reason a
    machine cannot show it (see the module's docstring)."""
    name: str
    value: Any
    op: str
    bound: Any
    about: str = ""
    bound_about: str = ""
    unit: str = ""
    unless: Callable[[Mapping, Mapping], str | None] | None = field(default=None, compare=False)
    asks: str = "nothing of its speed: a shape of the run's own data"
    only_if: Callable[[Mapping, Mapping], bool] | None = field(default=None, compare=False)
    show: Callable[[Mapping, Mapping], Any] | None = field(default=None, compare=False)

    def applies(self, m: Mapping, p: Mapping | None = None) -> bool:
        """False where the run did not measure what the claim is about (`only_if`, e.g. a phase the
        parameters left out): the check is then not made at all, live and in the reference alike."""
        return self.only_if is None or bool(self.only_if(m, p or {}))

    @property
    def not_shown_when(self) -> str:
        """When this check says "not shown here" (the first line of its `unless`'s docstring), or NEVER."""
        if self.unless is None:
            return NEVER
        doc = " ".join((getattr(self.unless, "__doc__", None) or "").strip().split("\n\n")[0].split())
        # {NAME}: a constant of the module that declares it, so the table says what the code tests
        return doc.format_map(vars(sys.modules[self.unless.__module__])) if "{" in doc else doc

    def __post_init__(self):
        if self.op not in OPS:
            raise ValueError(f"check '{self.name}': op {self.op!r} is not one of {', '.join(OPS)}")
        if not self.name.strip():
            raise ValueError("a check needs a name: the claim it tests")

    def expected(self, m: Mapping, p: Mapping | None = None) -> str:
        """The "expected" column: the comparison with its bound as this run computes it, in words where
        Python's notation would show: a claim that must hold (``== True``) is its words alone, ``== 0``
        is "none", another ``==`` is "its words: the bound", and a list is "a, b and c"."""
        b = _read(self.bound, m, p or {})
        note = f" ({self.bound_about or self.bound})" if self.bound_about or isinstance(self.bound, str) else ""
        about = self.about.format_map({k: shown(v) for k, v in m.items()}) if "{" in self.about else self.about
        if self.op in ("==", "!=") and isinstance(b, bool):
            holds = b == (self.op == "==")
            return ((about or "yes") if holds else f"{about}: no" if about else "no") + note
        if self.op in ("==", "!="):
            text = "none" if isinstance(b, (int, float)) and b == 0 else shown(b, self.unit)
            text = text if self.op == "==" else f"not {text}"
            return (f"{about}: {text}" if about else text) + note
        text = (f"between {shown(b[0])} and {shown(b[1])}{_unit(self.unit)}" if self.op == "between"
                else f"{self.op} {shown(b, self.unit)}") + note
        return f"{about} {text}" if about else text

    def evaluate(self, m: Mapping, p: Mapping | None = None) -> dict:
        """The outcome as run.json keeps it: name, passed (True, False, or None when not shown here),
        value, expected, and the reason where not shown."""
        p = p or {}
        v, b = _read(self.value, m, p), _read(self.bound, m, p)
        ok = v is not None and b is not None and not _nan(v) and not _nan(b) and bool(OPS[self.op](v, b))
        value = self.show(m, p) if self.show is not None else v
        out = {"name": self.name, "passed": ok, "value": _plain(value), "expected": self.expected(m, p)}
        if not ok and self.unless is not None:
            reason = self.unless(m, p)
            if reason:
                out["passed"] = None
                out["not_shown"] = str(reason)
        return out


def _nan(x) -> bool:
    return isinstance(x, float) and x != x


def _plain(v):
    """A value as JSON keeps it (numpy scalars as Python numbers)."""
    item = getattr(v, "item", None)
    return item() if callable(item) and not isinstance(v, (list, tuple, dict)) else v


def audit(checks: list[Check]) -> list[dict]:
    """What each check asks of the machine, and when it says "not shown here": the chapter's audit
    table, a row per check (the book's `table` shows it grouped: :func:`grouped`)."""
    return [dict(zip(AUDIT, (c.name, c.asks, c.not_shown_when))) for c in checks]


def grouped(rows: list[Mapping]) -> list[dict]:
    """The audit table's rows as the page shows them: the checks that share both cells in one row, under
    "checks" (a list of their names); rows that share "not shown here when" next to each other, so that
    the page writes it once for them all; groups in the order of their first check."""
    check, asks, when = AUDIT
    out: dict[tuple[str, str], dict] = {}
    for r in rows:
        key = (r[when], r[asks])
        out.setdefault(key, {"checks": [], asks: r[asks], when: r[when]})["checks"].append(r[check])
    order = list(dict.fromkeys(w for w, _ in out))
    return sorted(out.values(), key=lambda g: order.index(g[when]))   # stable: first checks first


def evaluate(checks: list[Check], m: Mapping, p: Mapping | None = None) -> list[dict]:
    names = [c.name for c in checks]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"checks declared twice: {', '.join(sorted(dup))}")
    return [c.evaluate(m, p) for c in checks if c.applies(m, p)]


def outcomes(checks: list[Check], m: Mapping, p: Mapping | None = None) -> dict[str, dict]:
    """The outcomes of the checks the run applies to (:func:`evaluate`), by the checks' names."""
    return {o["name"]: o for o in evaluate(checks, m, p)}


def statuses(checks: list[Check], m: Mapping, p: Mapping | None = None) -> dict[str, str]:
    """pass, FAIL or not shown here, by the names of the checks the run applies to."""
    return {n: status(o) for n, o in outcomes(checks, m, p).items()}


def status(outcome: Mapping) -> str:
    """pass, FAIL or not shown here, from a check as run.json keeps it."""
    if outcome.get("passed") is None:
        return NOT_SHOWN if outcome.get("not_shown") else FAIL
    return PASS if outcome["passed"] else FAIL


def failed(outcome: Mapping) -> bool:
    """A check that failed: not a pass, and not a "not shown here" with its reason."""
    return status(outcome) == FAIL


def probe(check: Check, m: Mapping, p: Mapping | None = None, side: str = "pass") -> dict:
    """`m` with the check's value (a metric, when `value` names one) moved just to the passing or
    failing side of its bound, for unit tests: the check's own declaration says where the line is."""
    if not isinstance(check.value, str):
        raise ValueError(f"check '{check.name}': probe moves a metric; its value is computed")
    p = p or {}
    b = _read(check.bound, m, p)
    if check.op == "between":
        lo, hi = b
        good, bad = (lo + hi) / 2, hi + max(abs(hi) * 1e-3, 1e-9)
    elif isinstance(b, bool) or check.op in ("==", "!="):
        flip = {"==": (b, not b if isinstance(b, bool) else None), "!=": (not b if isinstance(b, bool) else None, b)}
        good, bad = flip.get(check.op, (b, not b))
    else:
        eps = max(abs(b) * 1e-3, 1e-9)
        above, below = b + eps, b - eps
        good, bad = {">=": (b, below), ">": (above, b), "<=": (b, above), "<": (below, b)}[check.op]
    return {**m, check.value: good if side == "pass" else bad}


def _outside(x) -> float:
    """How far past a range's end a value stands "just outside" it (a millionth of the end, at least 1e-9)."""
    return max(abs(x) * 1e-6, 1e-9)


def wrong_sides(checks: list[Check], m: Mapping, p: Mapping | None = None, *,
                nothing_excuses: bool = False) -> list[str]:
    """A line per bound not where its declaration says, none when all are: each check whose value is a
    metric (of those the run applies to) moved with :func:`probe` just to either side of its bound, and a
    `between` check also to each end of its range (exactly at an end it passes, just outside does not).
    `m` is a run that passes, so that only the moved value decides. The pass side must pass; the fail
    side must not, and for a check without `unless` must be a FAIL. A check with one may say "not shown
    here" there instead, unless `nothing_excuses`: `m` is a machine that can show every phenomenon, so
    no `unless` may fire and every fail side must be a FAIL."""
    p = p or {}
    problems = []
    for c in checks:
        if not isinstance(c.value, str) or not c.applies(m, p):
            continue
        tries = [("the pass side", probe(c, m, p, side="pass")[c.value], True),
                 ("the fail side", probe(c, m, p, side="fail")[c.value], False)]
        if c.op == "between":
            lo, hi = _read(c.bound, m, p)
            tries += [("its low end", lo, True), ("its high end", hi, True),
                      ("just under its low end", lo - _outside(lo), False),
                      ("just over its high end", hi + _outside(hi), False)]
        for where, v, ok in tries:
            got = status(c.evaluate({**m, c.value: v}, p))
            if ok and got != PASS:
                problems.append(f"{c.name}: {c.value}={v!r}, {where}, is {got}, not a pass")
            elif not ok and got == PASS:
                problems.append(f"{c.name}: {c.value}={v!r}, {where}, passes")
            elif not ok and got != FAIL and (c.unless is None or nothing_excuses):
                why = "nothing excuses it here" if c.unless is not None else "without an `unless` it can only FAIL"
                problems.append(f"{c.name}: {c.value}={v!r}, {where}, is {got}: {why}")
    return problems
