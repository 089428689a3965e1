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

__all__ = ["chapter_status", "commit_label", "COLUMNS"]

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
