"""The durability chapter's declared checks (labs/durability/checks.py) on made-up metrics: the recorded
reference passes with the values it recorded; both sides of every bound; a slower machine passes when
the phenomenon is there; a broken run fails. No check says "not shown here": none depends on the
machine's speed, and the one that asks for timing has no measurement to excuse it with."""
import json

import pytest

from conftest import ROOT
from perflab.analysis import checks

LAB = "durability"
REF = ROOT / "data" / "reference" / "durability"

#: the recorded reference (this project's machine)
OURS = json.loads((REF / "run.json").read_text())["metrics"]
#: made up (no run of this lab under these conditions is recorded): a slow disk under the pool's files,
#: each O_DSYNC write waiting milliseconds for the log device, so that writer falls behind its rate
#: (fewer acknowledged) and the ratio of the medians grows
SLOW_DISK = {**OURS, "dsync_acknowledged": 3100, "dsync_survived": 3100, "dsync_p50_us": 9800.0,
             "dsync_p99_us": 31000.0, "dsync_last_ack_s": 44.98, "dsync_last_survivor_s": 44.98,
             "latency_ratio": 134.063, "dsync_after_last_txg": 1020, "dsync_after_last_txg_survived": 1020}
#: made up likewise: every container held to half a CPU, both writers slower, O_DSYNC still the slower
LESS_CPU = {**OURS, "async_p50_us": 240.0, "dsync_p50_us": 1310.0, "latency_ratio": 5.458,
            "async_last_ack_s": 44.87, "dsync_last_ack_s": 44.79}


def outcomes(lab, m):
    return checks.outcomes(lab.CHECKS, m)


def statuses(lab, m):
    return checks.statuses(lab.CHECKS, m)


def test_the_reference_passes_with_the_values_it_recorded(lab):
    recorded = {c["name"]: c for c in json.loads((REF / "run.json").read_text())["checks"]}
    now = outcomes(lab, OURS)
    assert set(now) == set(recorded)
    for name, o in now.items():
        assert o["passed"] is True and recorded[name]["passed"] is True, name
        assert json.loads(json.dumps(o["value"])) == recorded[name]["value"], name


@pytest.mark.parametrize("m", [OURS, SLOW_DISK, LESS_CPU], ids=["ours", "slow-disk", "less-cpu"])
def test_slower_machines_pass_when_the_phenomenon_is_there(lab, m):
    assert set(statuses(lab, m).values()) == {checks.PASS}


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not checks.wrong_sides(lab.CHECKS, OURS)
    # ordinary writes lost, O_DSYNC writes lost, the latency ratio
    assert sum(isinstance(c.value, str) for c in lab.CHECKS) == 3


@pytest.mark.parametrize("gap,expect", [(0.99, checks.PASS), (1.0, checks.PASS), (1.01, checks.FAIL)])
def test_the_kill_check_on_both_sides_of_its_second(lab, gap, expect):
    # the O_DSYNC writer's last write `gap` s before the kill; the ordinary one's close to it
    m = {**OURS, "kill_s": 45.0, "async_last_ack_s": 44.95, "dsync_last_ack_s": round(45.0 - gap, 3)}
    o = outcomes(lab, m)["the kill came while both writers were writing"]
    assert checks.status(o) == expect
    assert o["value"] == [0.05, gap]


def test_a_writer_held_up_before_the_kill_fails_on_any_machine(lab):
    # a slow disk that held the O_DSYNC writer for 3 s before the kill: the run cannot tell it from a
    # writer that had stopped, so nothing excuses it
    m = {**SLOW_DISK, "dsync_last_ack_s": 42.0, "dsync_last_survivor_s": 42.0}
    assert statuses(lab, m)["the kill came while both writers were writing"] == checks.FAIL


@pytest.mark.parametrize("broken", [{"async_lost_are_newest": False}, {"async_file_is_survivors": False}],
                         ids=["lost-here-and-there", "file-longer-than-survivors"])
def test_losses_that_are_not_the_newest_block_fail(lab, broken):
    o = outcomes(lab, {**OURS, **broken})["ordinary writes: the lost ones are the newest, and the file ends where the "
                                          "survivors end"]
    assert checks.status(o) == checks.FAIL
    m = {**OURS, **broken}
    assert o["value"] == [m["async_lost_are_newest"], m["async_file_is_survivors"]]


@pytest.mark.parametrize("past,expect", [(0, checks.PASS), (1, checks.PASS), (2, checks.FAIL), (-1, checks.FAIL)],
                         ids=["exact", "the-write-in-flight", "two-past", "one-short"])
def test_an_o_dsync_file_may_hold_one_write_past_its_survivors_no_more(lab, past, expect):
    """One block past the survivors is the write in flight at the kill, kept by the log before fio
    heard back; two, or a block short, is a file that does not end where its writes do."""
    o = outcomes(lab, {**OURS, "dsync_blocks_past_survivors": past})[
        "O_DSYNC writes: the file ends where the survivors end, or one write past them"]
    assert checks.status(o) == expect and o["value"] == past


@pytest.mark.parametrize("after,found,expect", [(2948, 2948, checks.PASS), (2948, 2947, checks.FAIL),
                                                (0, 0, checks.FAIL)],
                         ids=["all-found", "one-missing", "none-after-the-last-group"])
def test_the_intent_log_check_needs_writes_after_the_last_group_all_found(lab, after, found, expect):
    m = {**OURS, "dsync_after_last_txg": after, "dsync_after_last_txg_survived": found}
    o = outcomes(lab, m)["O_DSYNC writes after the last transaction group came back (the intent log was replayed)"]
    assert checks.status(o) == expect and o["value"] == [after, found]


@pytest.mark.parametrize("broken", [{"scrub_clean": False}, {"pool_errors_none": False}],
                         ids=["scrub-errors", "known-data-errors"])
def test_a_pool_with_errors_fails(lab, broken):
    name = "the pool is consistent after the import: a scrub finds no errors"
    assert statuses(lab, {**OURS, **broken})[name] == checks.FAIL


def test_no_check_says_not_shown_here(lab):
    rows = checks.audit(lab.CHECKS)
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows)
    assert all(r["not shown here when"].startswith("never") for r in rows)
    asks = {r["check"]: r["asks of the machine"] for r in rows}
    assert asks["the kill came while both writers were writing"].startswith("timing: ")
    assert "within 1 s of the kill" in asks["the kill came while both writers were writing"]

