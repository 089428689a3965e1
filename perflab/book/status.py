"""The book's status page (chapters/build-status.md): for each chapter with a lab, the reference run
it draws from (commit, date, fio version, checks passed) and whether that reference is still the
lab that ships (perflab.run.reference.staleness: the same test as `perflab references --check`).

Per-chapter build times come from myst-nb's own execution statistics (the page's ``nb-exec-table``);
the "built from commit X on date Y" footer of every page is :mod:`perflab.book.sphinxext`'s.
"""
from __future__ import annotations

import json

import pandas as pd

from perflab.config.manifest import Manifest
from perflab.run.reference import staleness

__all__ = ["chapter_status", "commit_label", "conditions_table", "COLUMNS"]

COLUMNS = ["chapter", "lab", "reference commit", "recorded (UTC)", "fio", "checks", "reference"]


def commit_label(pv: dict) -> str:
    """A run's (or a git state's) commit as the status page shows it: 7 digits, "(modified)" if dirty."""
    return (pv.get("git_sha") or "?")[:7] + (" (modified)" if pv.get("git_dirty") else "")


def chapter_status(m: Manifest) -> pd.DataFrame:
    """One row per chapter that has a lab. ``reference``: "fresh", or "STALE: " and why (the lab's
    code, images or full-preset parameters changed since it was recorded, or it was recorded dirty
    or did not complete), or "none recorded"."""
    rows = []
    for c in m.chapters:
        if not c.lab:
            continue
        f = m.root / "data" / "reference" / c.lab / "run.json"
        link = f"[{c.title}]({c.file.name})"
        if not f.is_file():
            rows.append({"chapter": link, "lab": c.lab, "reference": "none recorded"})
            continue
        doc = json.loads(f.read_text())
        pv = doc.get("provenance", {})
        checks = doc.get("checks", [])
        why = staleness(m, m.lab(c.lab))
        rows.append({"chapter": link, "lab": c.lab, "reference commit": commit_label(pv),
                     "recorded (UTC)": (pv.get("started") or "?")[:16].replace("T", "\u00a0"),
                     "fio": pv.get("fio_version") or "-",
                     "checks": f"{sum(bool(x['passed']) for x in checks)}/{len(checks)} passed",
                     "reference": "fresh" if not why else "STALE: " + "; ".join(why)})
    return pd.DataFrame(rows, columns=COLUMNS).fillna("-")


def conditions_table(m: Manifest) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The machine-conditions matrix (data/conditions/matrix.json, `perflab conditions`): one row per
    lab, one column per condition, each cell the verdict of the lab's smoke run under it in a few words
    (a "not shown here" numbered, its reasons below); then the reasons, and what each condition was
    and when and at which commit the cells were measured."""
    from perflab.run.conditions import CONDITIONS, MATRIX

    f = m.root / MATRIX
    doc = json.loads(f.read_text()) if f.is_file() else {"cells": {}}
    rows, reasons, when, commits, measured = [], [], set(), set(), {}
    for lab in m.labs:
        row = {"lab": lab}
        for name in CONDITIONS:
            cell = doc["cells"].get(lab, {}).get(name)
            row[name], why = _cell_text(cell, len(reasons) + 1)
            reasons += [f"({len(reasons) + 1 + i}) {lab}, {name}: {w}" for i, w in enumerate(why)]
            if cell:
                when.add(cell["measured_at"][:10])
                commits.add(commit_label({"git_sha": cell.get("commit"), "git_dirty": cell.get("dirty")}))
                measured.setdefault(name, cell.get("condition") or {})
        rows.append(row)
    notes = [f"*{name}*: {c.says}" + (f" (measured: {_measured(measured[name])})" if measured.get(name) else "")
             for name, c in CONDITIONS.items()]
    if when:
        notes.append(f"Measured on {', '.join(sorted(when))} at commit {', '.join(sorted(commits))} "
                     "(each cell's run names its own; \"modified\": from a tree with uncommitted changes).")
    return pd.DataFrame(rows, columns=["lab", *CONDITIONS]), reasons, notes


def _measured(d: dict) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in d.items())


def _cell_text(cell: dict | None, first: int) -> tuple[str, list[str]]:
    """A cell in a few words, and the reasons its "not shown here" checks gave (numbered from `first`)."""
    if not cell:
        return "not measured yet", []
    st = cell["status"]
    if st == "pass":
        return f"pass ({cell['checks']})" + ("; nothing on the slow disk" if cell.get("used_condition") is False
                                            else ""), []
    if st == "not shown here":
        why = [f"*{k}*: {v}" for k, v in cell["not_shown"].items()]
        refs = ", ".join(str(first + i) for i in range(len(why)))
        return f"pass ({cell['checks']}); {len(why)} not shown here ({refs})", why
    if st == "FAIL":
        return "FAIL: " + "; ".join(cell.get("failed") or []), []
    return f"error: {cell.get('error', '?')}", []
