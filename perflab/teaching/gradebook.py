"""Grades where instructors keep them, and what a class got wrong.

`perflab grade --format canvas|gradescope|csv --out PATH` writes the reports of
:mod:`perflab.teaching.grade` as:

* **canvas**: Canvas's gradebook import CSV. The columns Canvas reads to find a student
  (``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``), then one column for the
  assignment, named ``<lab> mystery`` (or ``--assignment NAME``; Canvas matches an existing
  assignment by its name, ``NAME (canvas id)`` included, and creates one otherwise). The second row
  is ``Points Possible``, as in Canvas's own export. The identity columns come from the roster
  given to `perflab assign`, when it has them (the same header names as Canvas's export, or
  ``canvas_id``, ``sis_user_id``, ``sis_login_id``, ``section``); otherwise ``Student`` is the
  roster's name and ``SIS User ID`` the perflab student id, so the roster's ids should be the
  institution's SIS ids for Canvas to match them.
* **gradescope**: one ``results.json`` per student in Gradescope's autograder format (``score``,
  ``output``, ``visibility``, and ``tests``: per question ``name``, ``number``, ``score``,
  ``max_score``, ``status``, ``output``, ``visibility``). For a class, ``PATH/<student id>/results.json``;
  for one submission, ``PATH`` itself. A withheld score (an integrity problem) scores 0 with the
  reason in ``output``.
* **csv**: perflab's own table (:func:`perflab.teaching.grade.write_csv`).

:func:`item_analysis` is the class's view of each question: how many answered it, how many got it
right, and the most common wrong answer (what the class misunderstood), as a CSV and a small HTML page.

Hand-written rather than a library: no maintained package writes either format (Canvas's import is a
plain CSV, Gradescope's a small JSON document); the csv and json modules do the writing.
"""
from __future__ import annotations

import collections
import csv
import html
import json
from pathlib import Path

from perflab.errors import Refused

FORMATS = ("csv", "canvas", "gradescope")
#: Canvas's identity columns, in its export's order, and the roster columns that fill each
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
_ROSTER_NAMES = {"Student": ("Student", "student", "name"), "ID": ("ID", "canvas_id"),
                 "SIS User ID": ("SIS User ID", "sis_user_id"), "SIS Login ID": ("SIS Login ID", "sis_login_id", "login"),
                 "Section": ("Section", "section")}
#: Gradescope's visibility values (autograder specifications)
VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")


class GradebookError(Refused, ValueError):
    """A format or destination that cannot be written."""


def _roster(key: dict, sid: str) -> dict:
    e = key["students"][sid]
    return {**(e.get("roster") or {}), "id": sid, "name": e.get("name", "")}


def canvas_row(key: dict, report: dict) -> dict:
    r = _roster(key, report["student"])
    row = {}
    for col in CANVAS_COLUMNS:
        row[col] = next((str(r[c]) for c in _ROSTER_NAMES[col] if r.get(c) not in (None, "")), "")
    row["Student"] = row["Student"] or report["student"]
    if not (row["ID"] or row["SIS User ID"] or row["SIS Login ID"]):
        row["SIS User ID"] = report["student"]
    return row


def write_canvas(reports: list[dict], key: dict, path, assignment: str | None = None) -> Path:
    """Canvas's gradebook import CSV (see the module's docstring)."""
    name = assignment or f"{key['lab']} mystery"
    top = max((r["max"] for r in reports), default=0)
    path = Path(path)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow([*CANVAS_COLUMNS, name])
        w.writerow(["Points Possible", "", "", "", "", f"{top:g}"])
        for rep in reports:
            row = canvas_row(key, rep)
            w.writerow([*(row[c] for c in CANVAS_COLUMNS), f"{rep['score']:g}"])
    return path


def gradescope_results(report: dict, visibility: str = "after_published") -> dict:
    """One student's results.json (Gradescope autograder format)."""
    if visibility not in VISIBILITY:
        raise GradebookError(f"visibility {visibility!r}: one of {', '.join(VISIBILITY)}")
    tests = []
    for n, q in enumerate(report["questions"], start=1):
        awarded = 0.0 if report["withheld"] else float(q["awarded"])
        out = f"{q['verdict']}: you answered {q['answer']!r}" if q["answer"] is not None else "missing: no answer"
        if q.get("note"):
            out += f" ({q['note']})"
        tests.append({"name": f"{q['id']}: {q['ask']}", "number": str(n), "score": awarded,
                      "max_score": float(q["points"]), "status": "passed" if q["verdict"] == "correct" else "failed",
                      "output": out, "visibility": visibility})
    integ = report["integrity"]
    output = (f"{report['lab']} mystery lab, variant {report['variant_id']}: run evidence {integ['run']}.")
    if report["withheld"]:
        output += " Score withheld: " + "; ".join(integ["problems"])
    return {"score": float(report["score"]), "output": output, "visibility": visibility,
            "stdout_visibility": "hidden", "tests": tests}


def write_gradescope(reports: list[dict], out, one: bool = False, visibility: str = "after_published") -> list[Path]:
    """results.json per student under `out` (a directory), or `out` itself for one submission."""
    from perflab.run.record import write_json_atomic   # not at import: the command line names FORMATS

    out = Path(out)
    paths = []
    for rep in reports:
        p = out if one else out / rep["student"] / "results.json"
        if one and p.is_dir():
            p = p / "results.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(p, gradescope_results(rep, visibility))
        paths.append(p)
    return paths


# ------------------------------------------------------------------------------ item analysis

def _answer_text(v) -> str:
    return json.dumps(v) if not isinstance(v, str) else v.strip()


def item_analysis(reports: list[dict]) -> list[dict]:
    """Per question: students, answered, correct, wrong, missing, the share correct (of all
    students), and the most common wrong answer with how many gave it."""
    if not reports:
        return []
    rows = []
    for i, q0 in enumerate(reports[0]["questions"]):
        qs = [r["questions"][i] for r in reports]
        verdicts = collections.Counter(q["verdict"] for q in qs)
        wrong = collections.Counter(_answer_text(q["answer"]) for q in qs if q["verdict"] == "wrong")
        common, n_common = wrong.most_common(1)[0] if wrong else ("", 0)
        rows.append({"question": q0["id"], "ask": q0["ask"], "students": len(qs),
                     "answered": len(qs) - verdicts["missing"], "correct": verdicts["correct"],
                     "wrong": verdicts["wrong"], "missing": verdicts["missing"],
                     "share_correct": round(verdicts["correct"] / len(qs), 3),
                     "most_common_wrong_answer": common, "students_giving_it": n_common,
                     "distinct_wrong_answers": len(wrong)})
    return rows


def write_item_analysis(reports: list[dict], key: dict, prefix) -> tuple[Path, Path]:
    """PREFIX.csv and PREFIX.html."""
    rows = item_analysis(reports)
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    cols = ["question", "ask", "students", "answered", "correct", "wrong", "missing", "share_correct",
            "most_common_wrong_answer", "students_giving_it", "distinct_wrong_answers"]
    csv_path, html_path = prefix.with_name(prefix.name + ".csv"), prefix.with_name(prefix.name + ".html")
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    head = "".join(f"<th>{html.escape(c.replace('_', ' '))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r[c]))}</td>" for c in cols) + "</tr>" for r in rows)
    title = f"{key['lab']} mystery lab: item analysis ({len(reports)} students)"
    html_path.write_text(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, "
        f"initial-scale=1\"><title>{html.escape(title)}</title><style>body{{font-family:sans-serif;margin:1em}}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;vertical-align:top}"
        ".wrap{overflow-x:auto}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>For each question: how many students answered it, how many got it right, "
        "and the wrong answer given most often (what the class misunderstood).</p>"
        f"<div class=\"wrap\"><table><tr>{head}</tr>{body}</table></div></body></html>\n", encoding="utf-8")
    return csv_path, html_path
