"""The stepping chapter's declared checks (labs/stepping/checks.py) on made-up metrics: the recorded
reference passes; both sides of every bound; a slow disk says "not shown here" with its measured time
per read; a broken run fails, whatever the machine."""
import json

import pytest

from conftest import ROOT
from perflab.analysis import checks

LAB = "stepping"

REF = json.loads((ROOT / "data" / "reference" / LAB / "run.json").read_text())
#: this project's machine, from the reference (virtual disk, ~204 us per read with one reader alone)
OURS, P = REF["metrics"], REF["params"]
#: the smoke preset on an emulated 7200 RPM disk (perflab conditions: ~12.4 ms per random 4 KiB read),
#: where the throttle, on another device, limits nothing: one reader gets 1 / (10 ms + 12.4 ms), and the
#: disk serves ~80 reads/s one at a time whatever the number of readers
P_SMOKE = {**P, "threads": 7, "step": 5.0}
SLOW_DISK = {"one_reader_iops": 44.5, "predicted_step": 10, "detected_step": 3, "plateau_iops": 80.2,
             "plateau_vs_limit": 0.2, "clat_us_first": 12430.0, "clat_us_last": 77300.0, "clat_rise": 6.2,
             "max_readers": 7, "linear_fit": 0.9, "clat_before_vs_one": 1.2, "plateau_flatness": 0.99,
             "clat_rises_each_step": True, "clat_model_last_us": 7500.0, "clat_last_vs_model": 10.307}
DISK_CHECKS = {"it lands where limit / demand predicts", "the plateau is the disk's limit",
               "the last step's latency is what Little's law predicts"}


def outcomes(lab, m, p):
    return checks.outcomes(lab.CHECKS, m, p)


def statuses(lab, m, p):
    return checks.statuses(lab.CHECKS, m, p)


def check(lab, name):
    return next(c for c in lab.CHECKS if c.name == name)


def test_the_recorded_reference_passes_with_its_recorded_values(lab):
    got = outcomes(lab, OURS, P)
    assert {n: checks.status(o) for n, o in got.items()} == {c["name"]: checks.PASS for c in REF["checks"]}
    assert {n: o["value"] for n, o in got.items()} == {c["name"]: c["value"] for c in REF["checks"]}


def test_summary_reads_the_limit_and_think_time_from_the_run(lab):
    m = lab.summary(lab.load(ROOT / "data" / "reference" / LAB))
    assert {k: m[k] for k in OURS} == OURS          # every recorded metric, as recorded


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not [c.name for c in lab.CHECKS if not isinstance(c.value, str)]
    assert not checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True)   # on our machine nothing excuses it


def test_a_slow_disk_says_why_the_throttles_limit_is_not_shown(lab):
    s = statuses(lab, SLOW_DISK, P_SMOKE)
    assert {n for n, v in s.items() if v == checks.NOT_SHOWN} == DISK_CHECKS
    assert {v for n, v in s.items() if n not in DISK_CHECKS} == {checks.PASS}, s
    why = outcomes(lab, SLOW_DISK, P_SMOKE)["the plateau is the disk's limit"]["not_shown"]
    assert "12,430 us per read" in why and "at most 80 reads/s" in why and "stopped at 80 reads/s" in why


def test_a_slow_disk_excuses_every_disk_check_on_its_wrong_side(lab):
    for c in lab.CHECKS:
        if c.unless is None or c.name == "latency climbs once saturated":
            continue
        o = c.evaluate(checks.probe(c, SLOW_DISK, P_SMOKE, side="fail"), P_SMOKE)
        assert checks.status(o) == checks.NOT_SHOWN, (c.name, o)


def test_a_broken_run_fails_on_any_machine(lab):
    # the throttle did not hold (e.g. --scratch on another disk than Docker's data root): no staircase
    unthrottled = {**OURS, "detected_step": None, "plateau_iops": None, "plateau_vs_limit": None, "clat_us_last": 210.0,
                   "clat_rise": 1.0, "linear_fit": 0.99, "clat_before_vs_one": None, "plateau_flatness": None,
                   "clat_rises_each_step": None, "clat_model_last_us": None, "clat_last_vs_model": None}
    s = statuses(lab, unthrottled, P)
    assert s.pop("below the limit each reader adds its own rate") == checks.PASS
    assert set(s.values()) == {checks.FAIL}, s
    # a fast disk whose staircase stopped short of the limit
    short = {**OURS, "plateau_iops": 240.0, "plateau_vs_limit": 0.6}
    assert statuses(lab, short, P)["the plateau is the disk's limit"] == checks.FAIL
    # a slow disk under a throttle tighter than asked (40 reads/s): the plateau is below what the disk
    # gives one read at a time, so the disk is not what stopped it
    tight = {**SLOW_DISK, "one_reader_iops": 40.0, "clat_us_first": 15000.0, "plateau_iops": 40.0,
             "plateau_vs_limit": 0.1, "detected_step": 2, "predicted_step": 11}
    s = statuses(lab, tight, P_SMOKE)
    assert {s[n] for n in DISK_CHECKS} == {checks.FAIL}, s
    # one reader alone asked for more than half the limit: its time per read may be the throttle's
    crowded = {**SLOW_DISK, "one_reader_iops": 0.6 * P_SMOKE["limit_iops"]}
    assert {statuses(lab, crowded, P_SMOKE)[n] for n in DISK_CHECKS} == {checks.FAIL}


def test_a_queue_too_short_to_double_a_read_is_not_shown(lab):
    c = check(lab, "latency climbs once saturated")
    # a disk at 9 ms per read alone: ten readers sharing 400 reads/s wait 15 ms, under twice that
    slow_read = {**OURS, "clat_us_first": 9000.0, "clat_rise": 1.65}
    o = c.evaluate(slow_read, P)
    assert checks.status(o) == checks.NOT_SHOWN
    assert "wait about 15,000 us per read" in o["not_shown"] and "the 9,000 us one read took alone" in o["not_shown"]
    # the same, but the last step did not wait what Little's law says: the run broke
    assert checks.status(c.evaluate({**slow_read, "clat_last_vs_model": 0.5}, P)) == checks.FAIL
    # a read fast enough for the queue to double it, and latency did not climb: the run broke
    assert checks.status(c.evaluate({**OURS, "clat_rise": 1.5}, P)) == checks.FAIL


@pytest.mark.parametrize("factor,expect", [(1.75, checks.NOT_SHOWN), (2.2, checks.FAIL)])
def test_a_disk_twice_the_limit_is_fast_enough(lab, factor, expect):
    """A disk that serves at least DISK_ROOM x the limit one read at a time needs no excuse: its checks
    fail; a slower one is excused (the plateau here reached the limit: the lab did its part)."""
    c = check(lab, "the plateau is flat")
    m = {**OURS, "clat_us_first": 1e6 / (factor * P["limit_iops"]), "plateau_flatness": 0.9}
    assert checks.status(c.evaluate(m, P)) == expect


def test_the_audit_table_shows_the_constants_the_code_tests(lab):
    rows = {r["check"]: r["not shown here when"] for r in checks.audit(lab.CHECKS)}
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in checks.audit(lab.CHECKS))
    assert sum(not v.startswith("never") for v in rows.values()) == 7
    assert "fewer than 2x the limit" in rows["the plateau is the disk's limit"]
    assert "under 2x the time one read took alone" in rows["latency climbs once saturated"]
    assert "{" not in " ".join(rows.values()) and "  " not in " ".join(rows.values())
