"""`perflab grade`: mark a student's mystery-lab submission against the instructor's key.

    perflab grade --key DIR/instructor/key.json SUBMISSION [--student ID] [--json OUT]
    perflab grade --key DIR/instructor/key.json --class FOLDER [--csv OUT] [--json OUT]

A SUBMISSION is the run directory the student hands in (run.json, notebook.ipynb, optionally
answers.toml or answers.json), or the executed notebook alone, or an answers file alone.
For a directory, answers come from answers.toml / answers.json if present, else from the
notebook's cell tagged `answers` (read with ast.literal_eval: nothing in it is executed); for a
notebook, from its answers cell. The run's evidence comes from
run.json's signed stamp, else from the stamp line the notebook printed last.

Per question the verdict is correct, wrong or missing:
  truth "param:NAME"   the answer is compared with the value planted for this student;
  truth "metric:NAME"  the answer (a number the student read off the evidence) is compared with what
                       the student's own run measured, from the signed stamp; with no verified run
                       such a question is wrong ("no verified run").
Floats are right within the question's relative tolerance; a "path" is right when the run's path
ends with it; an intlist is compared as a set. A question's `evidence` metric is reported beside
it (whether the run showed the planted value), for the instructor.

Integrity, checked whenever a run is handed in: the stamp's signature (HMAC-SHA256 with the
student's key) over what the run measured; the lab; the variant id and student (a run made from
another student's variant is caught); the answers' own "student" entry. If any of these fails the
score is withheld (0) and the problems are listed; the per-question verdicts are still shown.

What the signature does not stop: the key that signs travels with the student's variant, so a student
who reads the code can edit the recorded numbers and sign them again. So, for a run directory, every
graded value (each question's truth and evidence metric) is also **re-derived**: the lab's own
`summary(load(run_dir))` recomputes it from the run's raw files (fio's logs, the devices' logs), as the
book's build does for a reference, and a recorded value that differs withholds the score, naming the
metric, what was recorded and what the raw data give. A run whose raw files are missing or unreadable
is withheld the same way. An executed notebook or an answers file handed in alone has no raw data:
its values are graded as signed and the report says they were not re-derived.
A class folder holds one folder per student id (the submission, or a folder holding it).
"""
from __future__ import annotations

from perflab.errors import Refused

import ast
import csv
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from perflab.teaching import sealing, variant as variants


class GradeError(Refused, ValueError):
    """The key or a submission cannot be read at all."""


@dataclass
class Submission:
    path: Path | None
    answers: dict | None = None
    answers_from: str | None = None
    stamp: dict | None = None
    stamp_from: str | None = None
    status: str | None = None
    problems: list[str] = field(default_factory=list)


def load_key(path) -> dict:
    try:
        key = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise GradeError(f"key {path}: cannot read it ({e})") from None
    if key.get("format") != "perflab-mystery-key/1":
        raise GradeError(f"key {path}: not a perflab answer key")
    return key


# ------------------------------------------------------------------------------ reading

def notebook_answers(nb: dict) -> dict | None:
    """The dict literal assigned to `answers` in the cell tagged `answers`; None if there is none."""
    for cell in nb.get("cells", []):
        if "answers" not in cell.get("metadata", {}).get("tags", []):
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        tree = ast.parse(src)  # SyntaxError: the caller reports it
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "answers" for t in node.targets):
                v = ast.literal_eval(node.value)
                if not isinstance(v, dict):
                    raise ValueError("answers is not a dict")
                return v
    return None


def notebook_stamp(nb: dict) -> dict | None:
    text = []
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            t = out.get("text")
            if t is None:
                t = out.get("data", {}).get("text/plain", "")
            text.append("".join(t) if isinstance(t, list) else str(t))
    return variants.parse_stamp_line("\n".join(text))


def _answers_file(p: Path) -> dict:
    if p.suffix == ".toml":
        return tomllib.loads(p.read_text())
    v = json.loads(p.read_text())
    if not isinstance(v, dict):
        raise ValueError("not a JSON object")
    return v


def load_submission(path) -> Submission:
    p = Path(path)
    sub = Submission(p)
    if not p.exists():
        sub.problems.append(f"{p} does not exist")
        return sub
    d = p if p.is_dir() else p.parent
    nb_path = p if p.suffix == ".ipynb" else d / "notebook.ipynb"
    nb = None
    if nb_path.is_file():
        try:
            nb = json.loads(nb_path.read_text())
        except ValueError as e:
            sub.problems.append(f"{nb_path.name}: not a notebook ({e})")
    # answers: an answers file named or beside, else the notebook's answers cell
    files = [p] if p.suffix in (".toml", ".json") and p.name != "run.json" else \
        [] if p.suffix == ".ipynb" else [d / "answers.toml", d / "answers.json"]  # a notebook named: its cell
    for f in files:
        if f.is_file():
            try:
                sub.answers, sub.answers_from = _answers_file(f), f.name
            except (ValueError, tomllib.TOMLDecodeError) as e:
                sub.problems.append(f"{f.name}: cannot read the answers ({e})")
            break
    if sub.answers is None and nb is not None:
        try:
            sub.answers = notebook_answers(nb)
            sub.answers_from = f"{nb_path.name} (answers cell)" if sub.answers is not None else None
        except (SyntaxError, ValueError) as e:
            sub.problems.append(f"{nb_path.name}: the answers cell is not a plain dict of values ({e})")
    # evidence: run.json's stamp, else the notebook's stamp line
    rj = d / "run.json"
    if rj.is_file():
        try:
            doc = json.loads(rj.read_text())
            sub.status = doc.get("status")
            st = (doc.get("mystery") or {}).get("stamp")
            if st is not None:
                sub.stamp, sub.stamp_from = st, "run.json"
            elif doc.get("mystery") is None:
                sub.problems.append("run.json is not from a mystery run")
        except ValueError as e:
            sub.problems.append(f"run.json: cannot read it ({e})")
    if sub.stamp is None and nb is not None:
        st = notebook_stamp(nb)
        if st is not None:
            sub.stamp, sub.stamp_from = st, f"{nb_path.name} (stamp line)"
    return sub


# ------------------------------------------------------------------------------ marking

_NAMED_INT = re.compile(r"\s*(?:[A-Za-z][A-Za-z _-]*?)?\s*#?\s*([-+]?\d+)\s*")


def _parse(qtype: str, v):
    if qtype == "int":
        if isinstance(v, bool):
            raise ValueError
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, int):
            return v
        # an answer may name the thing it counts ("client 3", "desk3", "JBOD #2"): the number is the answer
        m = _NAMED_INT.fullmatch(str(v))
        if not m:
            raise ValueError
        return int(m.group(1))
    if qtype == "float":
        if isinstance(v, bool):
            raise ValueError
        return float(str(v).strip().rstrip("%")) if isinstance(v, str) else float(v)
    if qtype == "bool":
        if isinstance(v, bool):
            return v
        s = str(v).strip().lower()
        if s in ("true", "yes", "1"):
            return True
        if s in ("false", "no", "0"):
            return False
        raise ValueError
    if qtype == "intlist":
        items = v if isinstance(v, (list, tuple)) else [x for x in str(v).replace(" ", "").split(",") if x]
        return sorted(_parse("int", x) for x in items)
    return str(v).strip()


def matches(qtype: str, answer, truth, tolerance: float = 0.0) -> bool:
    if truth is None:
        return False
    if qtype == "float":
        t = float(truth)
        return abs(answer - t) <= max(tolerance * abs(t), 1e-9)
    if qtype == "intlist":
        return sorted(answer) == sorted(int(x) for x in truth)
    if qtype == "str":
        return answer.lower() == str(truth).strip().lower()
    if qtype == "path":
        a = answer.removeprefix("~/").strip("/")
        return bool(a) and (str(truth) == answer or str(truth).rstrip("/").endswith("/" + a))
    return answer == _parse(qtype, truth)


def _integrity(key: dict, entry: dict, student: str, sub: Submission) -> tuple[dict, dict | None]:
    """(integrity report, the run's metrics if verified)."""
    problems = list(sub.problems)
    if sub.answers is not None and sub.answers.get("student") not in (None, student):
        problems.append(f"the answers name student {sub.answers.get('student')}, not {student}")
    st = sub.stamp
    if st is None:
        return {"ok": not problems, "run": "none", "problems": problems}, None
    if st.get("damaged"):
        problems.append("the notebook's stamp line is damaged")
        return {"ok": False, "run": "failed", "problems": problems}, None
    body = {k: v for k, v in st.items() if k != "signature"}
    if st.get("lab") != key["lab"]:
        problems.append(f"the run is of lab {st.get('lab')}, not {key['lab']}")
    if st.get("variant_id") != entry["variant_id"] or st.get("student") != student:
        problems.append(f"the run was made from another variant (student {st.get('student')}, variant "
                        f"{st.get('variant_id')}), not {student}'s")
    elif not sealing.verify(body, entry["sign_key"], st.get("signature")):
        problems.append("the run's numbers do not match its signature: they were edited after the run")
    if sub.status not in (None, "complete"):
        problems.append(f"the run's status is {sub.status}")
    metrics = None
    if not problems:
        try:
            sealed = sealing.unseal(st["sealed_metrics"], key["lab"]) if st.get("sealed_metrics") else {}
            metrics = {**st.get("metrics", {}), **sealed}
        except sealing.MysteryError as e:
            problems.append(f"the run's sealed metrics: {e}")
    rederived = None
    if metrics is not None:
        rederived, differ = rederive(key, sub, metrics)
        problems += differ
        metrics = None if differ else metrics
    return {"ok": not problems, "run": "verified" if not problems else "failed", "problems": problems,
            "run_id": st.get("run_id"), "from": sub.stamp_from, "rederived": rederived}, metrics


def graded_metrics(key: dict) -> list[str]:
    """The metrics the key grades by: each question's truth "metric:NAME", and its evidence metric."""
    names = []
    for q in key["questions"]:
        for ref in (q["truth"], q.get("evidence") or ""):
            kind, _, name = ref.partition(":")
            if kind == "metric" and name not in names:
                names.append(name)
    return names


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12)


def derive(lab_name: str, run_dir: Path) -> dict:
    """What a run directory's raw files give: the lab's own load() and summary(), on a copy of the run
    whose sealed files (the mystery's scrub list) are put back in plain text, as the run made them."""
    import shutil
    import tempfile

    from perflab.config import manifest as manifest_mod
    from perflab.teaching import spec as specs

    m = manifest_mod.load()
    lab = m.lab(lab_name).load_module()
    with tempfile.TemporaryDirectory(prefix="perflab-grade-") as tmp:
        copy = Path(tmp) / "run"
        shutil.copytree(run_dir, copy, symlinks=True)
        variants.unscrub_files(copy, specs.spec(m, lab_name).scrub, lab_name)
        return lab.summary(lab.load(copy))


def rederive(key: dict, sub: Submission, recorded: dict) -> tuple[bool | None, list[str]]:
    """(re-derived?, problems): the graded metrics recomputed from the run directory's raw files by the
    lab's own load() and summary(), against what the run recorded. None: no run directory handed in."""
    d = sub.path if sub.path is not None and sub.path.is_dir() else \
        sub.path.parent if sub.path is not None and sub.path.name == "run.json" else None
    if d is None or not (d / "run.json").is_file():
        return None, []
    try:
        fresh = derive(key["lab"], d)
    except Exception as e:   # noqa: BLE001 - any failure to read the raw data withholds, with its cause
        return False, [f"the run's graded values cannot be re-derived from its raw files ({type(e).__name__}: "
                       f"{str(e)[:200]}): were they removed or edited?"]
    out = []
    for name in graded_metrics(key):
        if name not in recorded and name not in fresh:
            continue
        if name not in fresh or not _same(recorded.get(name), fresh[name]):
            out.append(f"the run records {name} = {recorded.get(name)!r}, but its raw files give "
                       f"{fresh.get(name)!r}: the recorded values were edited after the run")
    return True, out


def grade(key: dict, sub: Submission, student: str | None = None) -> dict:
    student = student or (sub.answers or {}).get("student") or (sub.stamp or {}).get("student")
    if student not in key["students"]:
        raise GradeError(f"student {student!r} is not in the key (give --student ID)" if student else
                         "cannot tell whose submission this is: give --student ID")
    entry = key["students"][student]
    integ, metrics = _integrity(key, entry, student, sub)
    answers = sub.answers or {}
    rows, score, total = [], 0.0, 0.0
    for q in key["questions"]:
        total += q["points"]
        kind, _, name = q["truth"].partition(":")
        truth = entry["hidden"].get(name) if kind == "param" else (metrics or {}).get(name)
        row = {"id": q["id"], "ask": q["ask"], "answer": answers.get(q["id"]), "truth": truth,
               "points": q["points"], "awarded": 0.0, "note": ""}
        raw = answers.get(q["id"])
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            row["verdict"] = "missing"
        else:
            try:
                a = _parse(q["type"], raw)
            except (ValueError, TypeError):
                row.update(verdict="wrong", note=f"not a {q['type']}")
            else:
                if kind == "metric" and metrics is None:
                    row.update(verdict="wrong", note="no verified run to check the number against")
                elif matches(q["type"], a, truth, q.get("tolerance", 0.0)):
                    row.update(verdict="correct", awarded=q["points"])
                else:
                    row["verdict"] = "wrong"
                if q.get("tolerance") and kind == "metric" and metrics is not None:
                    row["note"] = row["note"] or f"run measured {truth}; tolerance {q['tolerance']:.0%}"
        if q.get("evidence") and metrics is not None:
            ev = metrics.get(q["evidence"].partition(":")[2])
            try:
                agrees = ev is not None and matches(q["type"], _parse(q["type"], ev), truth, q.get("tolerance", 0.0))
            except (ValueError, TypeError):
                agrees = False
            row["evidence"] = {"metric": q["evidence"], "value": ev, "shows_truth": agrees}
        score += row["awarded"]
        rows.append(row)
    withheld = not integ["ok"]
    return {"student": student, "name": entry.get("name", ""), "lab": key["lab"], "variant_id": entry["variant_id"],
            "submission": str(sub.path) if sub.path else None, "answers_from": sub.answers_from,
            "integrity": integ, "questions": rows, "score": 0.0 if withheld else score, "raw_score": score,
            "max": total, "withheld": withheld}


def _submission_in(folder: Path) -> Path:
    """A student's folder: the submission itself, or the one run directory inside it."""
    if any((folder / f).exists() for f in ("run.json", "notebook.ipynb", "answers.toml", "answers.json")):
        return folder
    runs = [p.parent for p in folder.glob("*/run.json")]
    if len(runs) == 1:
        return runs[0]
    nbs = list(folder.glob("*.ipynb"))
    return nbs[0] if len(nbs) == 1 else folder


def grade_class(key: dict, folder) -> tuple[list[dict], list[str]]:
    """Every student in the key (no folder: everything missing), and the folders the key does not know."""
    folder = Path(folder)
    reports = []
    for sid in key["students"]:
        d = folder / sid
        sub = load_submission(_submission_in(d)) if d.is_dir() else Submission(None, problems=[])
        reports.append(grade(key, sub, sid))
    unknown = sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name not in key["students"]) \
        if folder.is_dir() else []
    return reports, unknown


# ------------------------------------------------------------------------------ output

def text(r: dict) -> str:
    integ = r["integrity"]
    head = (f"{r['student']}{' (' + r['name'] + ')' if r['name'] else ''}: {r['lab']} variant {r['variant_id']}: "
            f"{r['score']:g}/{r['max']:g}" + (" (withheld)" if r["withheld"] else ""))
    how = {True: "; values re-derived from its raw files", None: "; values not re-derived (no run directory)",
           False: ""}.get(integ.get("rederived"), "") if integ["run"] != "none" else ""
    lines = [head, f"  run evidence: {integ['run']}" + (f" ({integ.get('from')})" if integ.get("from") else "") + how
             + (f"; answers from {r['answers_from']}" if r["answers_from"] else "; no answers found")]
    for p in integ["problems"]:
        lines.append(f"  PROBLEM: {p}")
    for q in r["questions"]:
        ev = q.get("evidence")
        extra = f"; evidence {ev['metric']} = {ev['value']}" if ev else ""
        lines.append(f"  {q['verdict']:8s} {q['id']}: answer {q['answer']!r}, key {q['truth']!r}"
                     + (f" ({q['note']})" if q["note"] else "") + extra)
    return "\n".join(lines)


def write_csv(reports: list[dict], path) -> None:
    qids = [q["id"] for q in reports[0]["questions"]] if reports else []
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "name", "variant_id", "score", "max", "withheld", "run_evidence", *qids, "problems"])
        for r in reports:
            w.writerow([r["student"], r["name"], r["variant_id"], f"{r['score']:g}", f"{r['max']:g}", r["withheld"],
                        r["integrity"]["run"], *(q["verdict"] for q in r["questions"]),
                        "; ".join(r["integrity"]["problems"])])
