"""Grades in the formats instructors import (issue: grades where instructors keep them): Canvas's
gradebook import CSV and Gradescope's autograder results.json, validated against the formats'
documented columns and fields; the roster's columns carry through from `perflab assign` to them; the
item analysis of a class. No Docker: the class is graded from synthetic but fully signed runs
(tests/test_assign.py's fake_run)."""
import csv
import json
import shutil

import pytest

from conftest import ROOT, perflab_cmd
from test_assign import SEED, fake_run, right_answers, set_answers
from perflab.teaching import assign, grade, gradebook

CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
#: Gradescope autograder results.json: top-level and per-test fields and their types
GS_TOP = {"score": float, "output": str, "visibility": str, "stdout_visibility": str, "tests": list}
GS_TEST = {"name": str, "number": str, "score": float, "max_score": float, "status": str, "output": str,
           "visibility": str}


@pytest.fixture
def graded_class(manifest, tmp_path, monkeypatch):
    """A class of four with a Canvas-style roster: alice right, bob wrong on the client, carol and
    dave hand in nothing; the key, the submissions folder and the reports."""
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,SIS User ID,SIS Login ID,Section,email\n"
                      "alice,\"Archer, Alice\",S1001,aarcher,Lab A,a@x.edu\nbob,\"Brandt, Bob\",S1002,bbrandt,Lab A,b@x.edu\n"
                      "carol,\"Chen, Carol\",S1003,cchen,Lab B,c@x.edu\ndave,\"Diaz, Dave\",S1004,ddiaz,Lab B,d@x.edu\n")
    a = assign.assign(manifest, "bad-cable", roster, SEED, tmp_path / "class")
    key = grade.load_key(a.key_path)
    subs = tmp_path / "submissions"
    for sid in ("alice", "bob"):
        run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / sid)
        ans = right_answers(key["students"][sid])
        if sid == "bob":
            ans["bad_client"] = key["students"][sid]["hidden"]["bad_client"] % 4 + 1
        set_answers(run_dir, ans)
        shutil.copytree(run_dir, subs / sid / run_dir.name)
    subs.mkdir(exist_ok=True)
    reports, _ = grade.grade_class(key, subs)
    return a, key, subs, reports


def test_roster_columns_carry_into_the_key(graded_class):
    _, key, _, _ = graded_class
    assert key["students"]["alice"]["roster"] == {"SIS User ID": "S1001", "SIS Login ID": "aarcher",
                                                  "Section": "Lab A", "email": "a@x.edu"}


def test_canvas_csv_has_the_gradebook_columns(graded_class, tmp_path):
    _, key, _, reports = graded_class
    p = gradebook.write_canvas(reports, key, tmp_path / "canvas.csv")
    rows = list(csv.reader(open(p, newline="", encoding="utf-8")))
    assert rows[0] == CANVAS_HEADER + ["bad-cable mystery"]
    assert rows[1][0] == "Points Possible" and rows[1][5] == "5"
    body = {r[2]: r for r in rows[2:]}
    assert len(body) == 4 and all(len(r) == 6 for r in rows)
    assert body["S1001"] == ["Archer, Alice", "", "S1001", "aarcher", "Lab A", "5"]
    assert body["S1002"][5] == "3" and body["S1003"][5] == "0" and body["S1004"][4] == "Lab B"


def test_canvas_without_sis_columns_uses_the_perflab_id(manifest, tmp_path):
    a = assign.assign(manifest, "bad-cable", ROOT / "examples" / "class" / "roster.csv", SEED, tmp_path / "c")
    key = grade.load_key(a.key_path)
    reports, _ = grade.grade_class(key, tmp_path / "nothing")
    p = gradebook.write_canvas(reports, key, tmp_path / "c.csv", assignment="Lab 3 (12345)")
    rows = list(csv.DictReader(open(p, newline="")))
    assert rows[0]["Student"] == "Points Possible"
    alice = next(r for r in rows if r["SIS User ID"] == "alice")
    assert alice["Student"] == "Alice Archer" and alice["Lab 3 (12345)"] == "0"


def test_gradescope_results_have_the_autograder_fields(graded_class, tmp_path):
    _, key, _, reports = graded_class
    paths = gradebook.write_gradescope(reports, tmp_path / "gs")
    assert sorted(p.parent.name for p in paths) == ["alice", "bob", "carol", "dave"]
    for p in paths:
        doc = json.loads(p.read_text())
        for k, t in GS_TOP.items():
            assert isinstance(doc[k], t), (p, k)
        assert doc["visibility"] in gradebook.VISIBILITY and len(doc["tests"]) == 4
        for t in doc["tests"]:
            for k, typ in GS_TEST.items():
                assert isinstance(t[k], typ), (p, k)
            assert 0 <= t["score"] <= t["max_score"] and t["status"] in ("passed", "failed")
        assert doc["score"] == sum(t["score"] for t in doc["tests"])
    alice = json.loads((tmp_path / "gs" / "alice" / "results.json").read_text())
    bob = json.loads((tmp_path / "gs" / "bob" / "results.json").read_text())
    assert alice["score"] == 5.0 and all(t["status"] == "passed" for t in alice["tests"])
    assert bob["score"] == 3.0 and bob["tests"][0]["status"] == "failed" and "wrong" in bob["tests"][0]["output"]
    with pytest.raises(gradebook.GradebookError, match="visibility"):
        gradebook.gradescope_results(reports[0], "sometimes")


def test_item_analysis_names_the_common_wrong_answer(graded_class, tmp_path):
    _, key, _, reports = graded_class
    rows = {r["question"]: r for r in gradebook.item_analysis(reports)}
    b = rows["bad_client"]
    assert (b["students"], b["answered"], b["correct"], b["wrong"], b["missing"]) == (4, 2, 1, 1, 2)
    bob_answer = next(q["answer"] for r in reports if r["student"] == "bob" for q in r["questions"]
                      if q["id"] == "bad_client")
    assert b["most_common_wrong_answer"] == json.dumps(bob_answer) and b["students_giving_it"] == 1
    assert b["share_correct"] == 0.25
    c, h = gradebook.write_item_analysis(reports, key, tmp_path / "items")
    assert list(csv.DictReader(open(c)))[0]["question"] == "bad_client"
    assert "<table>" in h.read_text() and "bad_client" in h.read_text()


def test_cli_formats_and_refusals(graded_class, tmp_path, capsys):
    """perflab grade's formats and refusals, in this process (so that the fake runs' re-derivation stands
    in for their raw files: tests/test_assign.py's fake_run)."""
    from types import SimpleNamespace

    from perflab import cli

    def perflab_cmd(*args):
        rc = cli.main(list(args))
        return SimpleNamespace(returncode=rc, stderr=capsys.readouterr().err)

    a, key, subs, _ = graded_class
    k = str(a.key_path)
    r = perflab_cmd("grade", "--key", k, "--class", str(subs), "--format", "canvas", "--out", str(tmp_path / "cv.csv"),
                    "--items", str(tmp_path / "items"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "cv.csv").is_file() and (tmp_path / "items.html").is_file()
    r = perflab_cmd("grade", "--key", k, "--class", str(subs), "--format", "gradescope", "--out", str(tmp_path / "gs"))
    assert r.returncode == 0 and (tmp_path / "gs" / "bob" / "results.json").is_file(), r.stderr
    r = perflab_cmd("grade", "--key", k, "--class", str(subs), "--format", "canvas")
    assert r.returncode == 2 and "--format canvas needs --out" in r.stderr and "Traceback" not in r.stderr
    one = next((subs / "alice").iterdir())
    r = perflab_cmd("grade", "--key", k, str(one), "--student", "alice", "--items", str(tmp_path / "x"))
    assert r.returncode == 2 and "--items needs --class" in r.stderr
    r = perflab_cmd("grade", "--key", k, str(one), "--student", "alice", "--format", "gradescope",
                    "--out", str(tmp_path / "results.json"))
    assert r.returncode == 0 and json.loads((tmp_path / "results.json").read_text())["score"] == 5.0
