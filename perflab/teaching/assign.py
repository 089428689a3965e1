"""`perflab assign LAB --students roster.csv --seed S --out DIR`: a class's mystery labs.

Writes, for each student on the roster, DIR/<student id>/ with
  variant.json         the sealed variant (lab, preset, student, variant id; planted values sealed)
  <lab>-mystery.md     the student notebook (from the lab's mystery spec), with their answers cell
  README.md            what to run and what to hand in
and, for the instructor only, DIR/instructor/ with
  key.json             the answer key: per student the planted values, variant id and signing key,
                       and the questions (what `perflab grade` needs; it does not need book.toml)
  key.csv              the same planted values as a table, one row per student
The variants are drawn by perflab.teaching.mystery (see its docstring: determinism, distinctness, rounds).
The roster is a CSV file with a header: an `id` column (letters, digits, . _ -; it names the
student's directory) and optionally `name`; other columns are ignored.
"""
from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from perflab.teaching import sealing, spec as specs, variant as variants
from perflab.config.manifest import Manifest
from perflab.run.record import write_json_atomic

KEY_FORMAT = "perflab-mystery-key/1"
INSTRUCTOR = "instructor"


@dataclass
class Assignment:
    out: Path
    lab: str
    students: list[dict]   # {"id", "name", "variant_id", "hidden", "package"}
    space: int
    rounds: int

    @property
    def key_path(self) -> Path:
        return self.out / INSTRUCTOR / "key.json"


def read_roster(path) -> list[dict]:
    path = Path(path)
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise sealing.MysteryError(f"roster {path}: {e}") from None
    if not rows or "id" not in rows[0]:
        raise sealing.MysteryError(f"roster {path}: needs a header line with an 'id' column (and optionally 'name')")
    out, seen = [], set()
    for i, r in enumerate(rows, start=2):
        sid = (r.get("id") or "").strip()
        if not sid:
            continue
        if not specs.STUDENT_ID.match(sid) or sid == INSTRUCTOR:
            raise sealing.MysteryError(f"roster {path} line {i}: student id {sid!r} must be letters, digits, "
                                       f"'.', '_' or '-' (it names a directory; '{INSTRUCTOR}' is reserved)")
        if sid in seen:
            raise sealing.MysteryError(f"roster {path} line {i}: student id {sid} appears twice")
        seen.add(sid)
        # every other column carries through to the key, for the gradebook formats (perflab.teaching.gradebook)
        out.append({"id": sid, "name": (r.get("name") or "").strip(),
                    "columns": {k.strip(): (v or "").strip() for k, v in r.items()
                                if k and k.strip() not in ("id", "name")}})
    if not out:
        raise sealing.MysteryError(f"roster {path}: no students")
    return out


def answers_cell(spec: specs.Spec, student: str) -> str:
    lines = ["# Your answers: replace each None, then save the notebook.", "answers = {",
             f"    \"student\": {json.dumps(student)},"]
    hints = {"int": "a whole number", "float": "a number", "str": "text", "path": "a path, as text",
             "bool": "True or False", "intlist": "a list of whole numbers, e.g. [1, 3]"}
    for q in spec.questions:
        lines.append(f"    # {q.ask} ({hints[q.type]})")
        lines.append(f"    {json.dumps(q.id)}: None,")
    lines.append("}")
    return "\n".join(lines)


def student_notebook(spec: specs.Spec, student: str, package: str) -> str:
    text = spec.notebook.read_text()
    if "# @answers@" not in text:
        raise sealing.MysteryError(f"{spec.notebook}: the student notebook needs an answers cell holding '# @answers@'")
    return (text.replace("# @answers@", answers_cell(spec, student))
            .replace("{{student}}", student).replace("{{package}}", package))


def readme(spec: specs.Spec, student: str, package: str) -> str:
    lab = spec.lab.name
    qs = "\n".join(f"{i}. {q.ask}" for i, q in enumerate(spec.questions, 1))
    return f"""# {spec.lab.title}: your mystery lab ({student})

Your variant of the lab is sealed in `variant.json`: keep it as it is. From the perflab checkout:

    scripts/perflab run {lab} --variant {package}/variant.json

It runs `{lab}-mystery.md` (this directory) and prints, last, your run directory. Open
`notebook.ipynb` there (Jupyter, or any notebook viewer), read the evidence, and answer:

{qs}

Write your answers in the notebook's Answers cell (or in a file `answers.toml` in the run
directory, one `question_id = value` line each), save, and hand in the whole run directory.
Editing the run's numbers is detected.
"""


def assign(m: Manifest, lab_name: str, roster_path, seed: str, out) -> Assignment:
    """Draw the class's variants and write the packages and the key (nothing is written if the
    spec, the roster or any variant is refused)."""
    if not seed:
        raise sealing.MysteryError("the seed must not be empty (it is the class's secret: keep it)")
    spec = specs.spec(m, lab_name)
    roster = read_roster(roster_path)
    ids = [r["id"] for r in roster]
    draws = variants.assign_variants(spec, seed, ids)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    key_students, rows = {}, []
    for r in roster:
        sid = r["id"]
        pkg = out / sid
        pkg.mkdir(exist_ok=True)
        shown = str(pkg)  # as the instructor named it: the command in the README uses it
        doc = variants.variant_doc(spec, seed, sid, draws[sid])
        write_json_atomic(pkg / "variant.json", doc)
        (pkg / f"{spec.lab.name}-mystery.md").write_text(student_notebook(spec, sid, shown))
        (pkg / "README.md").write_text(readme(spec, sid, shown))
        hidden_text = variants.text_values(spec, draws[sid])
        key_students[sid] = {"name": r["name"], "roster": r["columns"], "variant_id": doc["variant_id"],
                             "sign_key": variants.sign_key(seed, spec.lab.name, sid),
                             "hidden": draws[sid], "hidden_text": hidden_text}
        rows.append({"id": sid, "name": r["name"], "variant_id": doc["variant_id"], "package": str(pkg),
                     "hidden": draws[sid]})
    idir = out / INSTRUCTOR
    idir.mkdir(exist_ok=True)
    key = {"format": KEY_FORMAT, "lab": spec.lab.name, "preset": spec.preset, "fixed": spec.fixed,
           "seed_sha256": hashlib.sha256(seed.encode()).hexdigest()[:16], "variant_space": len(spec.space),
           "questions": [q.as_dict() for q in spec.questions], "students": key_students}
    write_json_atomic(idir / "key.json", key)
    with open(idir / "key.csv", "w", newline="") as f:
        wr = csv.writer(f)
        names = list(spec.hidden)
        wr.writerow(["id", "name", "variant_id", *names])
        for r in rows:
            wr.writerow([r["id"], r["name"], r["variant_id"], *(json.dumps(r["hidden"][n]) for n in names)])
    size = len(spec.space)
    return Assignment(out, spec.lab.name, rows, size, -(-len(rows) // size))

