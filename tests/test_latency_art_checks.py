"""The latency-art chapter's declared checks (labs/latency-art/checks.py) on made-up metrics: the
recorded reference passes; both sides of every bound; a machine whose host holds up the icy lake's
writes or slows every read says "not shown here" with its measured reason; a run where the lab did
not do its part, or the host was not to blame, fails whatever the machine."""
import json

import pytest

from perflab.analysis import checks

LAB = "latency-art"


def reference():
    from conftest import ROOT

    return ROOT / "data" / "reference" / LAB


def recorded() -> dict:
    return json.loads((reference() / "run.json").read_text())


P = recorded()["params"]
#: this project's machine: the reference (2 CPUs, nothing else running)
OURS = recorded()["metrics"]
#: a CPU busy with other work holding up 30% of the icy lake's writes: the lines break up
BUSY = {**OURS, "icy_host_held_share": 0.3, "icy_host_p50_us": 400.0, "icy_d0_creep_share": 0.42,
        "icy_d1_creep_share": 0.45, "icy_d0_drift_us": -3.0, "icy_d1_drift_us": -1.0}
#: a host that adds 2.5 ms to every pterodactyl read (fio's median 5.79 ms with one disk, the disk's own 3.29)
SLOW_READS = {**OURS, "one_disk_p50_ms": 5.79, "p50_before_knee_ms": 5.8, "p90_last_ms": 9.0, "p50_last_ms": 7.2,
              "second_band": round(9.0 / 5.8, 3), "latency_rise": round(7.2 / 5.8, 3)}


def outcomes(lab, m, p=P):
    return checks.outcomes(lab.CHECKS, m, p)


def statuses(lab, m, p=P):
    return checks.statuses(lab.CHECKS, m, p)


def named(lab, start):
    return [c.name for c in lab.CHECKS if c.name.startswith(start)]


def test_the_recorded_reference_passes(lab):
    doc = recorded()
    assert set(statuses(lab, doc["metrics"], doc["params"]).values()) == {checks.PASS}
    s = statuses(lab, OURS)
    assert set(s.values()) == {checks.PASS} and set(s) == {c["name"] for c in doc["checks"]}


def test_summary_recomputes_the_reference(lab):
    m = lab.summary(lab.load(reference()))
    rec = recorded()["metrics"]
    assert {k: m[k] for k in rec} == rec
    assert set(m) == set(rec)          # the host-time metrics included, since the reference was re-recorded
    shown = {o["name"]: o["value"] for o in checks.evaluate(lab.CHECKS, m, P)}
    assert shown == {c["name"]: c["value"] for c in recorded()["checks"]}


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True)   # on our machine nothing excuses it
    assert sum(isinstance(c.value, str) and c.applies(OURS, P) for c in lab.CHECKS) == 10


@pytest.mark.parametrize("name,value,expect", [
    ("icy lake: the two disks' waits share one rotation", {"icy_sum_ms": 0.86 * 8.333}, checks.PASS),
    ("icy lake: the two disks' waits share one rotation", {"icy_sum_ms": 0.84 * 8.333}, checks.FAIL),
    ("icy lake: the two disks' waits share one rotation", {"icy_sum_ms": 1.21 * 8.333}, checks.FAIL),
    ("icy lake: the two diagonals run in opposite directions (an X)", {"icy_d0_drift_us": -1.0}, checks.FAIL),
    ("icy lake: the slope is the difference of the two rotation times", {"icy_d0_drift_us": 23.0}, checks.PASS),
    ("icy lake: the slope is the difference of the two rotation times", {"icy_d0_drift_us": 23.2}, checks.FAIL),
    ("icy lake: the slope is the difference of the two rotation times", {"icy_d0_drift_us": 5.7}, checks.FAIL),
    ("icy lake: the lines wrap round the rotation (a sawtooth)", {"icy_d1_net_wraps": 0}, checks.FAIL),
    ("icy lake: round by round, what one disk's wait gains the other's loses", {"icy_round_share": 0.8},
     checks.PASS),
    ("icy lake: round by round, what one disk's wait gains the other's loses", {"icy_round_share": 0.79},
     checks.FAIL),
    ("icy lake: the lines wrap round the rotation (a sawtooth)", {"icy_d0_net_wraps": 4}, checks.PASS),
    ("icy lake: the lines wrap round the rotation (a sawtooth)", {"icy_d0_net_wraps": 3}, checks.FAIL),
    ("icy lake: the disks' write cache was off (each write waits for its sector)",
     {"icy_write_cache": ["off", "on"]}, checks.FAIL),
    ("pterodactyl: before the knee a read takes one transfer time", {"p50_before_knee_ms": 2.9}, checks.FAIL),
    ("pterodactyl: before the knee a read takes one transfer time", {"p50_before_knee_ms": 4.3}, checks.FAIL),
])
def test_computed_values_on_both_sides(lab, name, value, expect):
    assert statuses(lab, {**OURS, **value})[name] == expect


def test_a_busy_host_says_why_the_lines_break(lab):
    s = statuses(lab, BUSY)
    creep = named(lab, "icy lake: disk")
    medians = ["icy lake: the two diagonals run in opposite directions (an X)",
               "icy lake: the slope is the difference of the two rotation times"]
    assert all(s.pop(n) == checks.NOT_SHOWN for n in creep + medians)
    assert set(s.values()) == {checks.PASS}, s
    why = outcomes(lab, BUSY)[creep[0]]["not_shown"]
    assert "held up 30% of a disk's writes by 417 us (5% of a rotation)" in why and "median of 400 us" in why


def test_a_host_that_held_up_fewer_writes_excuses_the_creep_not_the_medians(lab):
    m = {**BUSY, "icy_host_held_share": 0.15}
    s = statuses(lab, m)
    assert all(s[n] == checks.NOT_SHOWN for n in named(lab, "icy lake: disk"))
    assert s["icy lake: the two diagonals run in opposite directions (an X)"] == checks.FAIL


@pytest.mark.parametrize("broken", [
    {"icy_host_held_share": 0.001},                  # a steady host: the lines broke for another reason
    {"icy_write_cache": ["on", "on"]},               # the disks acknowledged writes from their caches
    {"icy_sequential_share": 0.5},                   # the writes jumped about: the rule does not apply
    {"icy_host_held_share": None},                   # fio's log did not pair with the disks'
    {"icy_write_cache": None},                       # the run did not record the disks' models
])
def test_a_broken_icy_lake_fails_whatever_the_host(lab, broken):
    s = statuses(lab, {**BUSY, **broken})
    assert all(s[n] == checks.FAIL for n in named(lab, "icy lake: disk"))
    assert s["icy lake: the two diagonals run in opposite directions (an X)"] == checks.FAIL


def test_a_slow_round_says_why_the_waits_fall_short(lab):
    name = "icy lake: the two disks' waits share one rotation"
    o = outcomes(lab, {**OURS, "icy_sum_ms": 6.5, "icy_host_round_ms": 1.6})[name]
    assert checks.status(o) == checks.NOT_SHOWN
    assert "took 1.60 ms of each round on average (19% of a 8.33 ms rotation)" in o["not_shown"]
    assert "0.78 of a rotation" in o["not_shown"]
    assert statuses(lab, {**OURS, "icy_sum_ms": 6.5})[name] == checks.FAIL          # a quick host
    assert statuses(lab, {**OURS, "icy_sum_ms": 10.5, "icy_host_round_ms": 1.6})[name] == checks.FAIL   # too long
    assert statuses(lab, {**OURS, "icy_sum_ms": 6.5, "icy_host_round_ms": 1.6,
                          "icy_write_cache": ["on", "on"]})[name] == checks.FAIL


def test_a_slow_host_says_why_a_read_takes_more_than_a_transfer(lab):
    s = statuses(lab, SLOW_READS)
    names = ["pterodactyl: before the knee a read takes one transfer time",
             "pterodactyl: past the knee the slowest tenth waits up to a second transfer",
             "pterodactyl: latency rises past the knee"]
    assert all(s.pop(n) == checks.NOT_SHOWN for n in names)
    assert set(s.values()) == {checks.PASS}, s
    o = outcomes(lab, SLOW_READS)
    assert "added 2.50 ms, 76% of a 3.28 ms transfer" in o[names[0]]["not_shown"]
    assert "would be 1.97, not 1.55" in o[names[1]]["not_shown"]
    assert "would be 1.42, not 1.24" in o[names[2]]["not_shown"]


@pytest.mark.parametrize("broken", [
    {"device_p50_first_ms": 5.7},                    # the disks themselves were slow: not the host's path
    {"one_disk_p50_ms": 3.4},                        # a quick host: the reads waited for something else
])
def test_slow_reads_not_the_hosts_doing_fail(lab, broken):
    s = statuses(lab, {**SLOW_READS, **broken})
    assert s["pterodactyl: before the knee a read takes one transfer time"] == checks.FAIL


def test_a_slow_host_does_not_excuse_a_missing_queue(lab):
    """No lanes to wait for (the port's cap not applied): no second band, latency flat, whatever the host."""
    m = {**SLOW_READS, "p90_last_ms": 5.9, "p50_last_ms": 5.8, "second_band": round(5.9 / 5.8, 3),
         "latency_rise": 1.0}
    s = statuses(lab, m)
    assert s["pterodactyl: past the knee the slowest tenth waits up to a second transfer"] == checks.FAIL
    assert s["pterodactyl: latency rises past the knee"] == checks.FAIL


def test_spindles_in_step_are_checked_for_flat_lines_only(lab):
    p = {**P, "rpm_offset": 0.0}
    m = {**OURS, "icy_d0_drift_us": 0.4, "icy_d1_drift_us": -0.3, "icy_predicted_drift_us": 0.0}
    s = statuses(lab, m, p)
    assert s.pop("icy lake: spindles in step draw flat lines") == checks.PASS
    assert not [n for n in s if "creeps" in n or "diagonals" in n or "slope" in n or "sawtooth" in n]
    assert statuses(lab, {**m, "icy_d0_drift_us": -2.5}, p)["icy lake: spindles in step draw flat lines"] == checks.FAIL


def test_the_sawtooth_is_checked_only_when_the_run_lasts_long_enough(lab):
    assert "icy lake: the lines wrap round the rotation (a sawtooth)" not in statuses(lab, OURS, {**P, "icy_time": 9.0})


def test_the_audit_names_what_each_check_asks(lab):
    rows = {r["check"]: r for r in checks.audit(lab.CHECKS)}
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows.values())
    unless = [n for n, r in rows.items() if not r["not shown here when"].startswith("never")]
    assert len(unless) == 9
    text = " ".join(r["not shown here when"] for r in rows.values())
    assert "{" not in text and "  " not in text
    assert "held up 10% or more of a disk's writes by 5% of a rotation" in text
    assert "15% of a rotation or more of each round" in text and "less than 0.85 of a rotation" in text
    assert "added 30% of a transfer time or more" in text
