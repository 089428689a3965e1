"""Mystery labs (`perflab assign`, `perflab run --variant`, `perflab grade`; perflab/mystery.py).

Without Docker: the variant draw (distinct, deterministic, pinned), the student package (no planted
value in plain text), a synthetic mystery run made through the real session path (run.json masks
and seals, the raw files are scrubbed, the stamp is signed), and grading (correct, wrong, missing,
tampered, another student's run). One live test (docker, slow) runs a student's bad-cable variant.
"""
import base64
import collections
import csv
import json
import math
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, perflab_cmd
from support import mystery
from perflab.teaching import assign, grade
from perflab.teaching import sealing, spec as specs, student, variant as variants
from perflab.run import session
from perflab.config import params as params_mod

SEED = "demo-2026"
ROSTER = ROOT / "examples" / "class" / "roster.csv"

# What a completed bad-cable smoke run records (summary() of labs/bad-cable/), drawn from a few inputs:
# what a good client's link carries and the NFS reads/s it makes at that rate (as a smoke run on an
# idle machine measures them), and the run's parameters. Every link runs at its shaped rate, so the
# bad client does `bad_ratio` of a good one's work and the new cable gains what the lab's own
# expected_gain says.
GOOD_MBIT_S = 95.8    # payload over a good 100 Mbit/s link (TCP and NFS headers take the rest)
GOOD_OPS_S = 363.9    # a good client's NFS reads/s at that payload rate


def fake_metrics(p: dict, expected_gain) -> dict:
    """`p`: the run's parameters (clients, bad_client, bad_ratio, link_mbit); `expected_gain(n, ratio)`:
    labs/bad-cable/analysis.py's."""
    n, k, r = p["clients"], p["bad_client"], p["bad_ratio"]
    good_mb_s = GOOD_MBIT_S / 8
    bad_total, replaced_total = good_mb_s * (n - 1 + r), good_mb_s * n
    return {"detected_outlier": k, "outlier_ops_s": round(GOOD_OPS_S * r, 1), "others_median_ops_s": GOOD_OPS_S,
            "outlier_ops_ratio": r, "replaced_min_ops_ratio": 1.0, "outlier_mbit_s": round(GOOD_MBIT_S * r, 2),
            "outlier_link_mbit": round(p["link_mbit"] * r, 2), "others_median_mbit_s": GOOD_MBIT_S, "net_ratio": r,
            "total_mb_s_bad": round(bad_total, 2), "total_mb_s_replaced": round(replaced_total, 2),
            "gain": round(replaced_total / bad_total - 1, 4), "expected_gain": round(expected_gain(n, r), 4),
            "one_over_n": round(1 / n, 4)}


def roster(path: Path, n: int, prefix: str = "s") -> Path:
    path.write_text("id,name\n" + "".join(f"{prefix}{i:02d},Student {i}\n" for i in range(n)))
    return path


@pytest.fixture
def cls(manifest, tmp_path):
    a = assign.assign(manifest, "bad-cable", ROSTER, SEED, tmp_path / "class")
    return a, grade.load_key(a.key_path)


# ------------------------------------------------------------------------------ the spec and the draw

@pytest.mark.parametrize("lab,size", [("bad-cable", 8), ("elinks", 8), ("jbod", 15), ("logzilla", 3), ("l2arc", 3),
                                      ("ht", 2)])
def test_spec_space_is_validated_against_the_lab_schema(manifest, lab, size):
    if lab not in manifest.labs:
        pytest.skip(f"lab {lab} is not in book.toml")
    s = specs.spec(manifest, lab)
    assert len(s.space) == size and len({json.dumps(v, sort_keys=True) for v in s.space}) == size
    for v in s.space:
        values = s.validate(v)
        # as a variant file carries them (text, perflab.teaching.variant.variant_doc), they resolve alike
        as_text = {**{k: str(x) for k, x in s.fixed.items()}, **variants.text_values(s, v)}
        assert values == params_mod.resolve(s.lab, s.preset, as_text)
    assert set(specs.labs_with_mystery(manifest)) >= {"bad-cable", "elinks", "jbod", "logzilla", "l2arc", "ht"}


def test_subset_and_bool_draws_enumerate_in_a_fixed_order():
    sub = specs.Hidden("single_path", "subset", (1, 2, 3, 4, 5, 6), 2).candidates()
    assert len(sub) == 15 and sub[0] == [1, 2] and sub[-1] == [5, 6]
    assert specs.Hidden("slog", "bool").candidates() == [False, True]


def test_draw_is_pinned_across_machines_and_versions():
    # HMAC-SHA256 over UTF-8: if this changes, every class's variants change with it.
    assert sealing.draw(SEED, "variant", "bad-cable", "alice") == \
        0x58d5348ccb1e77236fb0b95e5e75df3430ec20f7e5d2810707b5068f2b887de5
    assert variants.variant_id(SEED, "bad-cable", "alice") == "e12223988353bf1f"


def test_a_class_gets_distinct_deterministic_variants(manifest, tmp_path):
    s = specs.spec(manifest, "bad-cable")
    ids = [f"s{i:02d}" for i in range(len(s.space))]
    a = variants.assign_variants(s, SEED, ids)
    assert len({json.dumps(v, sort_keys=True) for v in a.values()}) == len(ids)  # all distinct
    assert variants.assign_variants(s, SEED, ids) == a                            # same seed: same
    assert variants.assign_variants(s, "another seed", ids) != a                  # the seed matters
    # appending students never changes the variants of those already on the roster
    more = variants.assign_variants(s, SEED, ids[:3] + ["late1", "late2"])
    assert all(more[i] == variants.assign_variants(s, SEED, ids[:3])[i] for i in ids[:3])


def test_a_class_larger_than_the_space_repeats_variants_evenly(manifest):
    s = specs.spec(manifest, "bad-cable")
    a = variants.assign_variants(s, SEED, [f"s{i:02d}" for i in range(20)])
    counts = collections.Counter(json.dumps(v, sort_keys=True) for v in a.values())
    assert len(counts) == 8 and max(counts.values()) == 3  # ceil(20 / 8)


def test_assign_writes_packages_and_key_reproducibly(manifest, tmp_path):
    a1 = assign.assign(manifest, "bad-cable", ROSTER, SEED, tmp_path / "one")
    a2 = assign.assign(manifest, "bad-cable", ROSTER, SEED, tmp_path / "two")
    key = json.loads(a1.key_path.read_text())
    assert set(key["students"]) == {"alice", "bob", "carol", "dave"}
    for sid in key["students"]:
        for f in ("variant.json", "bad-cable-mystery.md", "README.md"):
            assert (tmp_path / "one" / sid / f).is_file()
        assert (tmp_path / "one" / sid / "variant.json").read_bytes() == (tmp_path / "two" / sid / "variant.json").read_bytes()
    assert json.loads(a2.key_path.read_text())["students"] == key["students"]
    rows = list(csv.DictReader(open(tmp_path / "one" / "instructor" / "key.csv")))
    assert [r["id"] for r in rows] == ["alice", "bob", "carol", "dave"]


def test_no_planted_value_in_plain_text_in_a_student_package(cls):
    a, key = cls
    for sid, entry in key["students"].items():
        pkg = a.out / sid
        text = "\n".join(p.read_text() for p in pkg.iterdir())
        k, r = entry["hidden"]["bad_client"], entry["hidden"]["bad_ratio"]
        assert not re.search(rf"bad_client\W{{0,6}}{k}\b", text), sid
        assert not re.search(rf"bad_ratio\W{{0,6}}{r}", text), sid
        assert not re.search(rf"(?<![\d.]){r}(?![\d.])", text), sid  # the ratio (0.1 or 0.2) appears nowhere
        assert "instructor" not in {p.name for p in pkg.iterdir()} and "sign_key" not in text
        blob = json.loads((pkg / "variant.json").read_text())["sealed"]
        raw = base64.b64decode(blob.split(":", 1)[1])
        assert b"bad_client" not in raw and b"hidden" not in raw and b"sign_key" not in raw


def test_scrub_seals_nested_keys_and_wildcards(tmp_path):
    (tmp_path / "timeline.json").write_text(json.dumps({
        "single_path": [2, 5], "jbods": 6,
        "phases": {"as cabled": {"paths": {"1": 2, "2": 1}, "chains": [[1, 2]]}, "balanced": {"paths": {"1": 2}}},
        "clients": {"1": {"mbit_bad": 10, "host": "c1"}, "2": {"mbit_bad": 100, "host": "c2"}}}))
    variants.scrub_files(tmp_path, ["timeline.json:single_path", "timeline.json:phases.as cabled.paths",
                                   "timeline.json:clients.*.mbit_bad", "missing.json:x"], "jbod")
    tl = json.loads((tmp_path / "timeline.json").read_text())
    assert sealing.unseal(tl["single_path"], "jbod") == [2, 5] and tl["jbods"] == 6
    assert sealing.unseal(tl["phases"]["as cabled"]["paths"], "jbod") == {"1": 2, "2": 1}
    assert tl["phases"]["as cabled"]["chains"] == [[1, 2]] and tl["phases"]["balanced"]["paths"] == {"1": 2}
    assert all(c["mbit_bad"].startswith("sealed1:") and c["host"].startswith("c") for c in tl["clients"].values())
    # the grader's copy: unscrubbed, the file is as the run wrote it
    variants.unscrub_files(tmp_path, ["timeline.json:single_path", "timeline.json:phases.as cabled.paths",
                                      "timeline.json:clients.*.mbit_bad", "missing.json:x"], "jbod")
    tl = json.loads((tmp_path / "timeline.json").read_text())
    assert tl["single_path"] == [2, 5] and tl["phases"]["as cabled"]["paths"] == {"1": 2, "2": 1}
    assert [c["mbit_bad"] for c in tl["clients"].values()] == [10, 100]


def test_scrub_seals_a_whole_text_file_once(tmp_path):
    (tmp_path / "device").mkdir()
    text = "                capacity     operations\nlogs            -      -\n  /fast/slog   0   512M\n"
    (tmp_path / "device" / "iostat.txt").write_text(text)
    assert variants.scrub_files(tmp_path, ["device/iostat.txt"], "logzilla") == ["device/iostat.txt"]
    sealed = (tmp_path / "device" / "iostat.txt").read_text()
    assert sealed.startswith("sealed1:") and "slog" not in sealed and "logs" not in sealed
    assert sealing.unseal(sealed.strip(), "logzilla") == text
    assert variants.scrub_files(tmp_path, ["device/iostat.txt"], "logzilla") == []   # already sealed: left as it is
    assert (tmp_path / "device" / "iostat.txt").read_text() == sealed
    assert variants.unscrub_files(tmp_path, ["device/iostat.txt"], "logzilla") == ["device/iostat.txt"]
    assert (tmp_path / "device" / "iostat.txt").read_text() == text


@pytest.mark.parametrize("item", ["/etc/passwd", "../x.json", "run.json:", ":key"])
def test_scrub_entries_outside_the_run_or_empty_are_refused(manifest, tmp_path, monkeypatch, item):
    raw = specs.raw_specs(manifest)
    raw["logzilla"] = {**raw["logzilla"], "scrub": [item]}
    monkeypatch.setattr(specs, "raw_specs", lambda m: raw)
    with pytest.raises(sealing.MysteryError, match="scrub entries"):
        specs.spec(manifest, "logzilla")


def test_sealing_detects_edits_and_the_wrong_lab():
    s = sealing.seal({"bad_client": 3}, "bad-cable")
    assert sealing.unseal(s, "bad-cable") == {"bad_client": 3}
    with pytest.raises(sealing.MysteryError):
        sealing.unseal(s, "elinks")
    raw = bytearray(base64.b64decode(s[8:]))
    raw[-1] ^= 1
    with pytest.raises(sealing.MysteryError):
        sealing.unseal("sealed1:" + base64.b64encode(bytes(raw)).decode(), "bad-cable")


def test_roster_and_spec_refusals(manifest, tmp_path):
    bad = tmp_path / "r.csv"
    bad.write_text("name\nAlice\n")
    with pytest.raises(sealing.MysteryError, match="'id' column"):
        assign.read_roster(bad)
    bad.write_text("id\nalice\nalice\n")
    with pytest.raises(sealing.MysteryError, match="twice"):
        assign.read_roster(bad)
    bad.write_text("id\n../etc\n")
    with pytest.raises(sealing.MysteryError, match="must be letters"):
        assign.read_roster(bad)
    with pytest.raises(sealing.MysteryError, match="has no mystery"):
        specs.spec(manifest, "heatmaps")


# ------------------------------------------------------------------------------ a synthetic mystery run

RAW = "raw-metrics.json"   # a fake run's stand-in for its raw files: what the lab's summary() would give


def fake_derive(lab_name: str, run_dir: Path) -> dict:
    return json.loads((Path(run_dir) / RAW).read_text())


def fake_run(manifest, tmp_path, monkeypatch, pkg: Path, metrics_for=None) -> Path:
    """A mystery run made through the real path (create_run, session.open, Session.metric,
    student.finish), with the lab's work replaced by the files and metrics a smoke run leaves (and
    grade's re-derivation by what those metrics' raw files would give: the same metrics)."""
    monkeypatch.setattr(session.cleanup, "runs_root", lambda root: tmp_path / "runs")
    monkeypatch.setattr(grade, "derive", fake_derive)
    v = variants.load_variant(manifest, pkg / "variant.json")
    lab = manifest.lab("bad-cable")
    s_ = specs.spec(manifest, "bad-cable")
    from perflab.config import params
    values = params.resolve(lab, v.preset, v.overrides())
    run_dir = session.create_run(manifest, lab, v.preset, values, owner=False, variant=v)
    s = student.open_session("bad-cable", run="smoke", run_dir=str(run_dir))
    p = s.params
    k, r, link = p["bad_client"], p["bad_ratio"], p["link_mbit"]
    (run_dir / "timeline.json").write_text(json.dumps({
        "bad_client": k, "bad_ratio": r, "link_mbit": link,
        "clients": {str(j): {"host": f"client{j}", "mbit_bad": link * r if j == k else link}
                    for j in range(1, p["clients"] + 1)}}))
    m = (metrics_for or fake_metrics)(p, manifest.lab("bad-cable").load_module().expected_gain)
    (run_dir / RAW).write_text(json.dumps(m))
    s.metric(**m)
    s.record.set_status("complete")
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        student.finish(s)
    stamp_line = out.getvalue().strip().splitlines()[-1]
    assert stamp_line.startswith(specs.STAMP_PREFIX)
    # the executed notebook as a student hands it in: answers cell (empty) and the stamp output
    cell = assign.answers_cell(s_, v.student)
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": ["answers"]}, "source": cell, "outputs": []},
                    {"cell_type": "code", "metadata": {}, "source": "student.finish(s)",
                     "outputs": [{"output_type": "stream", "name": "stdout", "text": stamp_line + "\n"}]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (run_dir / "notebook.ipynb").write_text(json.dumps(nb))
    return run_dir


def set_answers(run_dir: Path, answers: dict) -> None:
    """The student fills in the answers cell of the executed notebook."""
    nb = json.loads((run_dir / "notebook.ipynb").read_text())
    cell = nb["cells"][0]
    src = cell["source"]
    for k, v in answers.items():
        src = src.replace(f'"{k}": None,', f'"{k}": {v!r},')
    cell["source"] = src
    (run_dir / "notebook.ipynb").write_text(json.dumps(nb))


def right_answers(entry: dict) -> dict:
    k, r = entry["hidden"]["bad_client"], entry["hidden"]["bad_ratio"]
    return {"bad_client": k, "bad_client_reads_s": round(GOOD_OPS_S * r, 1), "bad_client_mbit_s": round(GOOD_MBIT_S * r, 1),
            "bad_link_fraction": r}


def test_a_mystery_run_keeps_planted_values_sealed(manifest, tmp_path, monkeypatch, cls):
    a, key = cls
    entry = key["students"]["alice"]
    run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / "alice")
    doc = json.loads((run_dir / "run.json").read_text())
    assert doc["params"]["bad_client"] == specs.SEALED and doc["params_text"]["bad_ratio"] == specs.SEALED
    fixed = specs.spec(manifest, "bad-cable").fixed
    assert doc["params"]["clients"] == fixed["clients"]  # what is not hidden stays readable
    assert "detected_outlier" not in doc["metrics"] and "outlier_ops_s" not in doc["metrics"]
    assert doc["metrics"]["gain"] == json.loads((run_dir / RAW).read_text())["gain"]
    sealed = sealing.unseal(doc["mystery"]["sealed_metrics"], "bad-cable")
    assert sealed["detected_outlier"] == entry["hidden"]["bad_client"]
    tl = json.loads((run_dir / "timeline.json").read_text())
    assert tl["bad_client"].startswith("sealed1:") and tl["clients"]["1"]["mbit_bad"].startswith("sealed1:")
    assert tl["clients"]["1"]["host"] == "client1"
    k, r = entry["hidden"]["bad_client"], entry["hidden"]["bad_ratio"]
    for f in run_dir.rglob("*.json"):
        text = f.read_text()
        assert not re.search(rf"bad_client\W{{0,6}}{k}\b", text) and not re.search(rf"bad_ratio\W{{0,6}}{r}", text), f
    # scrubbing again changes nothing (the runner scrubs once more however the run ended)
    before = (run_dir / "timeline.json").read_text()
    variants.scrub_files(run_dir, specs.spec(manifest, "bad-cable").scrub, "bad-cable")
    assert (run_dir / "timeline.json").read_text() == before


# ------------------------------------------------------------------------------ grading

def test_correct_submission_gets_full_marks(manifest, tmp_path, monkeypatch, cls):
    a, key = cls
    run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / "alice")
    set_answers(run_dir, right_answers(key["students"]["alice"]))
    r = grade.grade(key, grade.load_submission(run_dir), "alice")
    assert r["integrity"]["ok"] and r["integrity"]["run"] == "verified", r["integrity"]
    assert [q["verdict"] for q in r["questions"]] == ["correct"] * 4
    assert r["score"] == r["max"] == 5
    assert all(q["evidence"]["shows_truth"] for q in r["questions"] if "evidence" in q)


def test_wrong_and_missing_answers(manifest, tmp_path, monkeypatch, cls):
    a, key = cls
    entry = key["students"]["alice"]
    run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / "alice")
    ans = right_answers(entry)
    clients = specs.spec(manifest, "bad-cable").fixed["clients"]
    ans["bad_client"] = entry["hidden"]["bad_client"] % clients + 1    # another client
    ans["bad_client_mbit_s"] = ans["bad_client_mbit_s"] * 2            # outside 20%
    del ans["bad_link_fraction"]
    set_answers(run_dir, ans)
    r = grade.grade(key, grade.load_submission(run_dir), "alice")
    v = {q["id"]: q["verdict"] for q in r["questions"]}
    assert v == {"bad_client": "wrong", "bad_client_reads_s": "correct", "bad_client_mbit_s": "wrong",
                 "bad_link_fraction": "missing"}
    assert r["score"] == 1 and r["integrity"]["ok"]
    # nothing answered at all
    empty = fake_run(manifest, tmp_path, monkeypatch, a.out / "alice")
    r = grade.grade(key, grade.load_submission(empty), "alice")
    assert {q["verdict"] for q in r["questions"]} == {"missing"} and r["score"] == 0


def test_edited_numbers_are_detected(manifest, tmp_path, monkeypatch, cls):
    a, key = cls
    run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / "alice")
    set_answers(run_dir, right_answers(key["students"]["alice"]))
    doc = json.loads((run_dir / "run.json").read_text())
    recorded = doc["mystery"]["stamp"]["metrics"]["gain"]
    doc["mystery"]["stamp"]["metrics"]["gain"] = recorded + 0.5  # a plain number edited in run.json
    (run_dir / "run.json").write_text(json.dumps(doc))
    r = grade.grade(key, grade.load_submission(run_dir), "alice")
    assert not r["integrity"]["ok"] and r["withheld"] and r["score"] == 0
    assert any("edited" in p for p in r["integrity"]["problems"])
    # a sealed number swapped for another (re-sealed properly, but not signed)
    doc["mystery"]["stamp"]["metrics"]["gain"] = recorded
    other = sealing.unseal(doc["mystery"]["stamp"]["sealed_metrics"], "bad-cable")
    other["outlier_ops_s"] = 999.0
    doc["mystery"]["stamp"]["sealed_metrics"] = sealing.seal(other, "bad-cable")
    (run_dir / "run.json").write_text(json.dumps(doc))
    assert grade.grade(key, grade.load_submission(run_dir), "alice")["withheld"]


def test_numbers_edited_and_signed_again_are_caught_by_the_raw_data(manifest, tmp_path, monkeypatch, cls):
    """The key that signs travels with the variant: a student who edits run.json and signs it again passes
    the signature, and the values re-derived from the run's raw files catch the edit."""
    a, key = cls
    entry = key["students"]["alice"]
    run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / "alice")
    set_answers(run_dir, right_answers(entry))
    ok = grade.grade(key, grade.load_submission(run_dir), "alice")
    assert ok["integrity"]["ok"] and ok["integrity"]["rederived"] is True and "re-derived" in grade.text(ok)
    doc = json.loads((run_dir / "run.json").read_text())
    stamp = doc["mystery"]["stamp"]
    sealed = sealing.unseal(stamp["sealed_metrics"], "bad-cable")
    sealed["outlier_ops_s"] = 999.0                        # a graded value, edited ...
    stamp["sealed_metrics"] = sealing.seal(sealed, "bad-cable")
    body = {k: v for k, v in stamp.items() if k != "signature"}
    stamp["signature"] = sealing.sign(body, entry["sign_key"])   # ... and signed again with the variant's key
    (run_dir / "run.json").write_text(json.dumps(doc))
    r = grade.grade(key, grade.load_submission(run_dir), "alice")
    assert r["withheld"] and r["score"] == 0
    assert [p for p in r["integrity"]["problems"] if "outlier_ops_s = 999.0" in p and "raw files give" in p]
    assert not [p for p in r["integrity"]["problems"] if "signature" in p]   # the signature itself holds
    # the raw files taken away: withheld too, with the cause
    (run_dir / RAW).unlink()
    r = grade.grade(key, grade.load_submission(run_dir), "alice")
    assert r["withheld"] and any("cannot be re-derived" in p for p in r["integrity"]["problems"])


def test_another_students_run_is_detected(manifest, tmp_path, monkeypatch, cls):
    a, key = cls
    run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / "bob")   # bob's variant ...
    answers = right_answers(key["students"]["bob"])
    set_answers(run_dir, answers)
    nb = json.loads((run_dir / "notebook.ipynb").read_text())           # ... handed in as alice's
    nb["cells"][0]["source"] = nb["cells"][0]["source"].replace('"student": "bob"', '"student": "alice"')
    (run_dir / "notebook.ipynb").write_text(json.dumps(nb))
    r = grade.grade(key, grade.load_submission(run_dir), "alice")
    assert r["withheld"] and any("another variant" in p for p in r["integrity"]["problems"])
    # and the answers naming another student than the one graded
    r = grade.grade(key, grade.load_submission(run_dir), "bob")
    assert r["withheld"] and any("name student alice" in p for p in r["integrity"]["problems"])


def test_notebook_alone_and_answers_file_alone(manifest, tmp_path, monkeypatch, cls):
    a, key = cls
    entry = key["students"]["alice"]
    run_dir = fake_run(manifest, tmp_path, monkeypatch, a.out / "alice")
    set_answers(run_dir, right_answers(entry))
    nb_only = tmp_path / "handin" / "alice.ipynb"
    nb_only.parent.mkdir()
    shutil.copy(run_dir / "notebook.ipynb", nb_only)
    r = grade.grade(key, grade.load_submission(nb_only))  # the student is named in the answers
    assert r["student"] == "alice" and r["integrity"]["run"] == "verified" and r["score"] == r["max"]
    assert r["integrity"]["rederived"] is None and "not re-derived (no run directory)" in grade.text(r)
    ans = tmp_path / "answers.toml"
    ans.write_text(f'student = "alice"\nbad_client = {entry["hidden"]["bad_client"]}\n'
                   f'bad_link_fraction = {entry["hidden"]["bad_ratio"]}\nbad_client_reads_s = 36\n')
    r = grade.grade(key, grade.load_submission(ans))
    v = {q["id"]: q["verdict"] for q in r["questions"]}
    assert v == {"bad_client": "correct", "bad_client_reads_s": "wrong", "bad_client_mbit_s": "missing",
                 "bad_link_fraction": "correct"}
    assert r["integrity"]["run"] == "none" and not r["withheld"]


def test_answer_matching():
    assert grade.matches("float", 0.11, 0.1, 0.25) and not grade.matches("float", 0.2, 0.1, 0.25)
    assert grade.matches("path", ".elinks/formhist", "/home/desk2/.elinks/formhist")
    assert grade.matches("path", "~/.elinks/formhist", "/home/desk2/.elinks/formhist")
    assert not grade.matches("path", "formhist.bak", "/home/desk2/.elinks/formhist")
    assert grade.matches("intlist", grade._parse("intlist", "3, 1"), [1, 3])
    assert grade._parse("int", "client3") == 3 and grade._parse("int", 3.0) == 3
    with pytest.raises(ValueError):
        grade._parse("int", "three")


def test_cli_assign_and_grade_a_class(manifest, tmp_path, monkeypatch):
    out = tmp_path / "class"
    r = perflab_cmd("assign", "bad-cable", "--students", str(ROSTER), "--seed", SEED, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "4 students, 8 distinct variants" in r.stderr and (out / "instructor" / "key.json").is_file()
    key = grade.load_key(out / "instructor" / "key.json")
    subs = tmp_path / "submissions"
    run_dir = fake_run(manifest, tmp_path, monkeypatch, out / "alice")
    set_answers(run_dir, right_answers(key["students"]["alice"]))
    shutil.copytree(run_dir, subs / "alice" / run_dir.name)                 # alice: a run directory inside
    (subs / "bob").mkdir(parents=True)
    (subs / "bob" / "answers.toml").write_text('bad_client = 9\n')          # bob: answers only, wrong
    # in this process, so that the fake run's re-derivation stands in for its raw files (fake_run)
    from perflab import cli

    assert cli.main(["grade", "--key", str(out / "instructor" / "key.json"), "--class", str(subs),
                     "--csv", str(tmp_path / "marks.csv"), "--json", str(tmp_path / "marks.json")]) == 0
    rows = {x["student"]: x for x in csv.DictReader(open(tmp_path / "marks.csv"))}
    assert rows["alice"]["score"] == "5" and rows["alice"]["run_evidence"] == "verified"
    assert rows["bob"]["score"] == "0" and rows["bob"]["bad_client"] == "wrong"
    assert rows["carol"]["bad_client"] == "missing"
    assert len(json.loads((tmp_path / "marks.json").read_text())) == 4


def test_run_refuses_a_variant_for_another_lab_or_overridden(tmp_path, manifest):
    a = assign.assign(manifest, "bad-cable", ROSTER, SEED, tmp_path / "c")
    v = str(a.out / "alice" / "variant.json")
    r = perflab_cmd("run", "elinks", "--variant", v)
    assert r.returncode == 2 and "is for lab bad-cable" in r.stderr
    r = perflab_cmd("run", "bad-cable", "--variant", v, "-p", "bad_client=1")
    assert r.returncode == 2 and "cannot be overridden" in r.stderr
    r = perflab_cmd("run", "bad-cable", "--variant", v, "--record")
    assert r.returncode == 2 and "reference" in r.stderr
    doc = json.loads(Path(v).read_text())
    doc["sealed"] = doc["sealed"][:-8] + "AAAAAAA="
    Path(v).write_text(json.dumps(doc))
    r = perflab_cmd("run", "bad-cable", "--variant", v)
    assert r.returncode == 2 and "edited" in r.stderr


# ------------------------------------------------------------------------------ live

# Long (make test-long): a second full bad-cable run. The same assign -> run -> grade path runs for two
# students on a real hub in tests/test_hub.py (long too); the default run keeps grading's unit tests.
@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long
def test_live_bad_cable_variant_assign_run_grade(docker_ok, artifacts, tmp_path):
    out = tmp_path / "class"
    r = perflab_cmd("assign", "bad-cable", "--students", str(roster(tmp_path / "r.csv", 3)), "--seed", "live",
                    "--out", str(out))
    assert r.returncode == 0, r.stderr
    key = grade.load_key(out / "instructor" / "key.json")
    r = perflab_cmd("run", "bad-cable", "--variant", str(out / "s01" / "variant.json"))
    (artifacts / "run.txt").write_text(r.stdout + "\n" + r.stderr)
    assert r.returncode == 0, r.stderr
    run_dir = Path(r.stdout.strip().splitlines()[-1])
    doc = json.loads((run_dir / "run.json").read_text())
    entry = key["students"]["s01"]
    k = entry["hidden"]["bad_client"]
    assert doc["status"] == "complete" and doc["params"]["bad_client"] == specs.SEALED
    assert "detected_outlier" not in doc["metrics"] and "detected_outlier" not in r.stderr
    nb_text = (run_dir / "notebook.ipynb").read_text()
    assert not re.search(rf"bad_client\W{{0,6}}{k}\b", nb_text + (run_dir / "timeline.json").read_text())
    # answer from the evidence the student sees: the notebook's per-client table (its text output)
    answers = mystery.bad_cable_answers(json.loads(nb_text))
    bad = answers["bad_client"]
    (run_dir / "answers.json").write_text(json.dumps({"student": "s01", **answers}))
    rep = grade.grade(key, grade.load_submission(run_dir), "s01")
    (artifacts / "grade.txt").write_text(grade.text(rep))
    assert rep["integrity"]["ok"], rep["integrity"]
    assert bad == k and rep["score"] == rep["max"], grade.text(rep)
    assert rep["integrity"]["rederived"] is True          # bad-cable's own summary() on the run's raw files
    # the same run handed in by another student is caught
    assert grade.grade(key, grade.load_submission(run_dir), "s02")["withheld"]
    # a graded value edited in run.json and signed again with the variant's own key: the signature holds,
    # the raw files do not
    doc = json.loads((run_dir / "run.json").read_text())
    stamp = doc["mystery"]["stamp"]
    name = next(q["truth"].partition(":")[2] for q in key["questions"] if q["truth"].startswith("metric:"))
    sealed = sealing.unseal(stamp["sealed_metrics"], "bad-cable")
    where = sealed if name in sealed else stamp["metrics"]
    where[name] = round(where[name] * 1.5 + 1, 1)
    stamp["sealed_metrics"] = sealing.seal(sealed, "bad-cable")
    stamp["signature"] = sealing.sign({k_: v for k_, v in stamp.items() if k_ != "signature"}, entry["sign_key"])
    (run_dir / "run.json").write_text(json.dumps(doc))
    rep = grade.grade(key, grade.load_submission(run_dir), "s01")
    (artifacts / "grade-edited.txt").write_text(grade.text(rep))
    assert rep["withheld"] and not [p for p in rep["integrity"]["problems"] if "signature" in p], grade.text(rep)
    assert [p for p in rep["integrity"]["problems"] if f"records {name} = " in p and "raw files give" in p]


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long      # the assign, run and grade path runs by default with bad-cable; this adds ht's measured evidence
def test_live_ht_variant_assign_run_answer_grade(docker_ok, artifacts, tmp_path):
    """A round trip of a mystery whose evidence is a measurement, not a planted number: the hidden
    working set (cache or dram) is named from the student notebook's table, as a student would."""
    out = tmp_path / "class"
    r = perflab_cmd("assign", "ht", "--students", str(roster(tmp_path / "r.csv", 2)), "--seed", "live-ht",
                    "--out", str(out))
    assert r.returncode == 0, r.stderr
    key = grade.load_key(out / "instructor" / "key.json")
    assert {e["hidden"]["probe"] for e in key["students"].values()} == {"cache", "dram"}   # 2 students, 2 variants
    r = perflab_cmd("run", "ht", "--variant", str(out / "s00" / "variant.json"))
    (artifacts / "run.txt").write_text(r.stdout + "\n" + r.stderr)
    assert r.returncode == 0, r.stderr
    run_dir = Path(r.stdout.strip().splitlines()[-1])
    doc = json.loads((run_dir / "run.json").read_text())
    planted = key["students"]["s00"]["hidden"]["probe"]
    size = {"cache": "256KiB", "dram": "128MiB"}[planted]
    assert doc["status"] == "complete" and doc["params"]["probe"] == specs.SEALED
    assert "detected_hidden" not in doc["metrics"] and "hidden_gib_per_cpu_s" not in doc["metrics"]
    for f in [*run_dir.rglob("*.json"), *run_dir.rglob("*.jsonl"), *run_dir.rglob("*.fio"), *run_dir.rglob("*.txt")]:
        assert size not in f.read_text(errors="replace"), f
    nbytes = re.compile(rf"\b{ {'cache': 262144, 'dram': 134217728}[planted] }\b")
    for f in [run_dir / "configurations.json", run_dir / "measurements.jsonl", *run_dir.rglob("*.fio")]:
        assert not nbytes.search(f.read_text()), f
    # the student's reading of the notebook's table: the hidden set's work per CPU-second against the
    # smallest and the largest known set's, nearer on a log scale
    nb = json.loads((run_dir / "notebook.ipynb").read_text())
    table = next("".join(o["data"]["text/plain"]) for c in nb["cells"] for o in c.get("outputs", [])
                 if "GiB per CPU-second" in "".join(o.get("data", {}).get("text/plain", "")))
    rows = {ln.split()[0]: [float(x) for x in ln.split()[1:]] for ln in table.splitlines()[2:] if ln.strip()}
    work = {k: v[-1] for k, v in rows.items()}
    hidden, known = work.pop("hidden.dat"), list(work.values())
    nearer = "cache" if abs(math.log(hidden / known[0])) < abs(math.log(hidden / known[-1])) else "dram"
    answers = {"fits": nearer, "hidden_work": hidden, "hidden_vs_cache": round(hidden / known[0], 3)}
    (run_dir / "answers.json").write_text(json.dumps({"student": "s00", **answers}))
    rep = grade.grade(key, grade.load_submission(run_dir), "s00")
    (artifacts / "grade.txt").write_text(grade.text(rep))
    assert rep["integrity"]["ok"], rep["integrity"]
    assert nearer == planted and rep["score"] == rep["max"], grade.text(rep)
    wrong = {**answers, "fits": {"cache": "dram", "dram": "cache"}[planted]}
    (run_dir / "answers.json").write_text(json.dumps({"student": "s00", **wrong}))
    rep = grade.grade(key, grade.load_submission(run_dir), "s00")
    assert [q["verdict"] for q in rep["questions"]] == ["wrong", "correct", "correct"], grade.text(rep)
    assert rep["score"] == rep["max"] - 2
