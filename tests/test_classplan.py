"""The instructor guide's class plan (perflab/teaching/classplan.py): arithmetic on measured run
times, and the recorded times themselves (data/timings/class.json, by benchmarks/class_times.py)."""
import json

import pytest

from conftest import ROOT
from perflab.teaching import classplan, spec as specs


def test_students_per_machine_and_machines_round_the_right_way():
    assert classplan.students_per_machine(40, 2.6) == 15          # 15 x 2.6 = 39 fits, 16 does not
    assert classplan.students_per_machine(40, 4.0) == 10          # exactly 40 fits
    assert classplan.machines_for(100, 40, 2.6) == 7              # 6 machines x 15 = 90 < 100
    assert classplan.machines_for(100, 40, 4.0) == 10
    assert classplan.machines_for(100, 40, 41.0) is None          # not even one run fits the slot
    with pytest.raises(ValueError):
        classplan.students_per_machine(40, 0)


def test_plan_rows_from_a_timings_file(tmp_path):
    f = tmp_path / classplan.TIMINGS
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({"format": classplan.FORMAT, "measured": "2026-11-25 02:00 UTC", "git_sha": "a" * 40,
                             "git_dirty": False, "machine": {"cpus": 2}, "labs": {
                                 "ht": {"kind": "mystery", "wall_s": 60.0, "run_id": "ht-1", "preset": "smoke"},
                                 "l2arc": {"kind": "mystery", "wall_s": 180.0, "run_id": "l2-1", "preset": "smoke"}}}))
    t = classplan.load(tmp_path)
    assert classplan.shown_minutes(t, "ht") == 1.0 and classplan.shown_minutes(t, "l2arc") == 3.0
    t.labs["ht"] = {**t.labs["ht"], "wall_s": 136.8}      # 2.28 min: shown, and planned, as 2.3
    assert classplan.shown_minutes(t, "ht") == 2.3 and classplan.plan_rows(t, ["ht"], 100, 40)[0]["per machine"] == 17
    t.labs["ht"] = {**t.labs["ht"], "wall_s": 60.0}
    rows = classplan.plan_rows(t, ["ht", "l2arc", "not-measured"], 100, 40)
    assert rows == [{"lab": "ht", "run (min)": 1.0, "per machine": 40, "machines": 3, "machine-hours": 1.7},
                    {"lab": "l2arc", "run (min)": 3.0, "per machine": 13, "machines": 8, "machine-hours": 5.0}]


def test_a_missing_or_foreign_timings_file_is_refused_in_one_line(tmp_path):
    with pytest.raises(classplan.TimingsError, match="record them with benchmarks"):
        classplan.load(tmp_path)
    (tmp_path / "data" / "timings").mkdir(parents=True)
    (tmp_path / classplan.TIMINGS).write_text('{"format": "other"}')
    with pytest.raises(classplan.TimingsError, match="not a perflab-class-times/1 file"):
        classplan.load(tmp_path)


def test_the_recorded_times_cover_every_mystery_lab_and_the_session_plans_lab(manifest):
    """A lab given a mystery variant needs its time measured before the guide can plan with it."""
    t = classplan.load(ROOT)
    assert set(specs.labs_with_mystery(manifest)) <= {k for k, v in t.labs.items() if v["kind"] == "mystery"}
    assert t.labs["heatmaps"]["kind"] == "smoke"
    assert all(v["wall_s"] > 0 for v in t.labs.values()) and t.git_dirty is False and len(t.git_sha) == 40
