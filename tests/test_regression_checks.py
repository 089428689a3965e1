"""The regression chapter's declared checks (labs/regression/checks.py) on made-up metrics: the recorded
reference's metrics pass; both sides of every bound; the comparison's checks are made only for the
record-size change; none of them says "not shown here" (the run measures nothing that would say a
machine cannot show them), so a machine that cannot keep the device model's time fails."""
import json

import pytest

from conftest import ROOT
from perflab.analysis import checks

LAB = "regression"
REF = ROOT / "data" / "reference" / "regression"
DOC = json.loads((REF / "run.json").read_text())
#: the recorded reference: its metrics and parameters
OURS, P = DOC["metrics"], DOC["params"]

READS = "every fio read reached the pool's device (no data cached)"
RECORDS = "each device read is one whole record"
MODEL = "the device's time per read is its model's (command + a record over device_mbps)"
BYTES = "the change multiplies the bytes per read by the record sizes' ratio"
VERDICT = "the comparison finds the change: both distances beyond the noise"
EVERY_ROUND = "the reads are slower after the change, in every round"


def outcomes(lab, m, p=P):
    return checks.outcomes(lab.CHECKS, m, p)


def statuses(lab, m, p=P):
    return checks.statuses(lab.CHECKS, m, p)


def test_the_recorded_reference_passes_with_the_values_it_recorded(lab):
    got = outcomes(lab, OURS)
    assert {n: checks.status(o) for n, o in got.items()} == {c["name"]: checks.PASS for c in DOC["checks"]}
    for c in DOC["checks"]:
        assert got[c["name"]]["value"] == c["value"], c["name"]


def test_every_metric_bound_fails_on_its_wrong_side(lab):
    assert {c.name for c in lab.CHECKS if isinstance(c.value, str)} == {BYTES, VERDICT, EVERY_ROUND}
    assert not checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True)   # on any machine


@pytest.mark.parametrize("lo,hi,expect", [(0.98, 1.05, checks.PASS), (1.0, 1.0, checks.PASS),
                                          (0.97, 1.0, checks.FAIL), (1.0, 1.06, checks.FAIL), (0.9, 1.2, checks.FAIL)])
def test_every_run_must_send_each_read_to_the_device(lab, lo, hi, expect):
    m = {**OURS, "device_reads_per_read_min": lo, "device_reads_per_read_max": hi}
    o = outcomes(lab, m)[READS]
    assert checks.status(o) == expect and o["value"] == [lo, hi]


def test_a_device_read_of_another_size_fails(lab):
    assert statuses(lab, {**OURS, "after_read_sizes": [4096, 131072]})[RECORDS] == checks.FAIL
    assert statuses(lab, {**OURS, "before_read_sizes": [8192]})[RECORDS] == checks.FAIL
    # with the checksum changed both sides keep 4 KiB records
    same = {**OURS, "after_read_sizes": [4096], "expected_bytes_ratio": 1.0, "device_bytes_ratio": 1.0}
    s = statuses(lab, same, {**P, "change": "checksum=sha256"})
    assert s[RECORDS] == s[BYTES] == checks.PASS


@pytest.mark.parametrize("before,after,expect", [(143.3, 1207.7, checks.PASS),
                                                 (0.9 * 134.1, 1.15 * 1192.3, checks.PASS),
                                                 (0.89 * 134.1, 1207.7, checks.FAIL),
                                                 (143.3, 1.16 * 1192.3, checks.FAIL)])
def test_the_device_time_on_both_sides_of_its_model(lab, before, after, expect):
    # every read at that time, the typical one too: a model (or a device) at that time, not late wake-ups
    m = {**OURS, "before_device_us_per_read": before, "after_device_us_per_read": after,
         "before_device_us_median": before, "after_device_us_median": after}
    assert statuses(lab, m)[MODEL] == expect


def test_a_host_that_slows_every_read_fails(lab):
    """A host that lengthens every device read (the typical one too: a CPU limit on the ZFS container, a
    backing file slower than the model) fails: only reads held up past the typical one are excused."""
    late = {**OURS, "before_device_us_per_read": 190.0, "before_device_us_median": 185.0}
    assert statuses(lab, late)[MODEL] == checks.FAIL
    assert "not_shown" not in outcomes(lab, late)[MODEL]


def test_only_the_sides_long_enough_to_time_are_held_to_the_model(lab):
    # with the command's 0.1 ms every model time is at least 100 us; a shorter one (a lower command
    # cost) would be as short as the host timer's lateness, and is not held to the model
    short = {**OURS, "before_device_model_us": 80.0, "before_device_us_per_read": 40.0}
    o = outcomes(lab, short)[MODEL]
    after = round(OURS["after_device_us_per_read"] / OURS["after_device_model_us"], 4)
    assert checks.status(o) == checks.PASS and o["value"] == [after]
    none = {**short, "after_device_model_us": 90.0}
    assert MODEL not in outcomes(lab, none)


@pytest.mark.parametrize("change", ["checksum=sha256", "none"])
def test_the_comparisons_checks_are_made_only_for_the_record_size(lab, change):
    m = {**OURS, "verdict": "same within noise", "rounds_slower": 1, "expected_bytes_ratio": 1.0,
         "device_bytes_ratio": 1.0, "after_read_sizes": [4096]}
    s = statuses(lab, m, {**P, "change": change})
    assert VERDICT not in s and EVERY_ROUND not in s
    assert set(s.values()) == {checks.PASS}


def test_the_change_must_be_found_in_every_round(lab):
    assert statuses(lab, {**OURS, "verdict": "same within noise"})[VERDICT] == checks.FAIL
    assert statuses(lab, {**OURS, "rounds_slower": 3})[EVERY_ROUND] == checks.FAIL


def test_bytes_within_five_percent_of_the_record_ratio(lab):
    assert statuses(lab, {**OURS, "device_bytes_ratio": 30.4})[BYTES] == checks.PASS
    assert statuses(lab, {**OURS, "device_bytes_ratio": 30.3})[BYTES] == checks.FAIL


def test_the_audit_names_what_each_check_asks(lab):
    rows = checks.audit(lab.CHECKS)
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows)
    when = {r["check"]: r["not shown here when"] for r in rows}
    assert when.pop(MODEL).startswith("On every timed side the device's typical read (its median time) took its "
                                      "model's time, within 0.9-1.15")
    assert all(w.startswith("never") for w in when.values())
    asks = {r["check"]: r["asks of the machine"] for r in rows}
    assert asks[MODEL].startswith("timing precision")
    assert all(a.startswith("nothing of its speed") for n, a in asks.items() if n != MODEL)


def test_summary_reads_the_parameters_from_the_run(lab):
    d = lab.load(REF)
    assert d["params"] == P
    m = lab.summary(d)
    assert m["expected_bytes_ratio"] == 32.0 and m["before_device_model_us"] == OURS["before_device_model_us"]


@pytest.mark.parametrize("missing", [float("nan"), None])
def test_a_side_without_device_time_fails(lab, missing):
    """No device reads in a run's window leaves its side's time NaN (null in run.json): a failure, on
    either side, not a pass on the other side's time."""
    for side in ("before", "after"):
        m = {**OURS, f"{side}_device_us_per_read": missing}
        assert statuses(lab, m)[MODEL] == checks.FAIL, side


TIME = "the device's time per read is its model's (command + a record over device_mbps)"
#: measured: perflab conditions regression, busy-cpu (2026-11-26): the typical device read on each side
#: at its model's time, 4% of reads held up by late wake-ups, the "before" side's mean 1.179 x its model
LATE_TIMERS = {**OURS, "before_device_us_median": 134.5, "after_device_us_median": 1200.2,
               "before_device_late_share": 0.0439, "after_device_late_share": 0.0385,
               "before_device_us_per_read": 158.1, "after_device_us_per_read": 1276.8}


def test_late_wakeups_are_not_shown_with_the_typical_read_and_the_share(lab):
    o = next(o for o in checks.evaluate(lab.CHECKS, LATE_TIMERS, P) if o["name"] == TIME)
    assert checks.status(o) == checks.NOT_SHOWN, o
    assert o["not_shown"].startswith("before: the device's typical read took 1.003 x its model's 134 us")
    assert "4% of its reads" in o["not_shown"] and "after:" not in o["not_shown"]      # after was in the band


def test_a_device_at_the_wrong_time_fails_whatever_the_timers(lab):
    wrong = {**LATE_TIMERS, "before_device_us_median": 150.0}                  # the typical read 1.12 x: fine
    assert checks.status(next(o for o in checks.evaluate(lab.CHECKS, wrong, P) if o["name"] == TIME)) == checks.NOT_SHOWN
    wrong = {**LATE_TIMERS, "before_device_us_median": 158.0}                  # 1.178 x: the model is off
    assert checks.status(next(o for o in checks.evaluate(lab.CHECKS, wrong, P) if o["name"] == TIME)) == checks.FAIL
    lost = {**LATE_TIMERS, "device_reads_per_read_max": 0.5}                   # reads never reached the device
    assert checks.status(next(o for o in checks.evaluate(lab.CHECKS, lost, P) if o["name"] == TIME)) == checks.FAIL
