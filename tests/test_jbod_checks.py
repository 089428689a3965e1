"""The jbod chapter's declared checks (labs/jbod/checks.py) on made-up metrics: the recorded reference
passes; both sides of every bound; a machine whose fio cannot keep its pace (a busy CPU, a CPU limit)
says "not shown here" with the pace it measured where the pace rules a claim out, and passes the
rest; a run whose limits were not in force, or that broke on a machine that could show it, fails."""
import json

import pytest

from perflab.analysis import checks

from conftest import ROOT

LAB = "jbod"
REF = ROOT / "data" / "reference" / "jbod"
RUN = json.loads((REF / "run.json").read_text())
#: this project's machine: the recorded reference (6 JBODs x 4 disks, single paths on 2 and 5)
OURS, P = RUN["metrics"], RUN["params"]

#: fio a few percent short of its pace (a busy CPU): the free disks at 92% of disk_rate in every
#: phase. As cabled nothing changes that matters; with both paths the long chain asks for 4 x 28 x 0.92
#: = 103.04 MiB/s, under the 104 its HBA carries: no queue, no band, no gain from balancing.
BUSY = {**OURS, "free_disk_reached_cabled": 0.92, "free_disk_reached_dual": 0.92, "free_disk_reached_balanced": 0.92,
        "pool_mib_s_cabled": 65.7, "pool_model_mib_s_cabled": 65.76, "recable_gain": 0.1758, "recable_gain_model": 0.1752,
        "pool_mib_s_dual": 77.2, "pool_model_mib_s_dual": 77.28, "outliers_dual": 0, "outlier_jbods_dual": [],
        "outlier_share_dual": 0.0, "band_ms_dual": None, "band_little_ms_dual": None, "chain_long_reached": 0.92,
        "chain_short_reached": 0.92, "chain_queue_ratio": 1.04, "jbod_spread_dual": 1.06,
        "pool_mib_s_balanced": 77.3, "pool_model_mib_s_balanced": 77.28}
#: fio far short of its pace (a starved CPU): free disks at 80%, under the detection's 85%. Every
#: JBOD counts as fallen behind, so none is left to compare the detected ones with.
STARVED = {**BUSY, "free_disk_reached_cabled": 0.8, "free_disk_reached_dual": 0.8, "free_disk_reached_balanced": 0.8,
           "detected_single_path": [1, 2, 3, 4, 5, 6], "slow_queue_ratio": None, "slow_outlier_share": None,
           "slow_reached": 0.771, "pool_mib_s_cabled": 62.3, "pool_model_mib_s_cabled": 62.4,
           "pool_mib_s_dual": 67.1, "pool_model_mib_s_dual": 67.2, "recable_gain": 0.0770, "recable_gain_model": 0.0769,
           "pool_mib_s_balanced": 67.2, "pool_model_mib_s_balanced": 67.2, "chain_long_reached": 0.8,
           "chain_short_reached": 0.8}

CHAIN_CHECKS = ["second path: the slow band stays, on the oversubscribed chain's JBODs",
                "the long chain queues more than the short one", "balancing the chains raises throughput again"]


def outcomes(lab, m, p=P):
    return checks.outcomes(lab.CHECKS, m, p)


def statuses(lab, m, p=P):
    return checks.statuses(lab.CHECKS, m, p)


def test_the_recorded_reference_passes(lab):
    s = statuses(lab, OURS)
    assert set(s.values()) == {checks.PASS}, s
    assert set(s) == {c["name"] for c in RUN["checks"]}   # the same checks as recorded, none added or lost


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True)   # fio kept its pace here


@pytest.mark.parametrize("k", ["cabled", "dual"])
@pytest.mark.parametrize("band,expect", [(0.79, checks.FAIL), (1.0, checks.PASS), (1.26, checks.FAIL)])
def test_the_band_height_on_both_sides(lab, k, band, expect):
    c = next(c for c in lab.CHECKS if c.name == f"{k}: the band's height is iodepth / the disk's write rate")
    m = {**OURS, f"band_ms_{k}": band * OURS[f"band_little_ms_{k}"]}
    assert checks.status(c.evaluate(m, P)) == expect


@pytest.mark.parametrize("disks,expect", [(7, checks.FAIL), (8, checks.PASS), (9, checks.FAIL)])
def test_the_slow_disks_are_every_disk_of_the_planted_jbods_on_both_sides(lab, disks, expect):
    """8 disks with slow writes as cabled: the 2 planted JBODs x 4 disks. One disk of them without
    (a missing path holds back every disk behind it) or one disk more (a disk elsewhere) fails."""
    c = next(c for c in lab.CHECKS if c.name.startswith("as cabled, the disks with slow writes are every disk"))
    assert checks.status(c.evaluate({**OURS, "disks_with_outliers": disks}, P)) == expect


def test_a_busy_cpu_shows_no_chain_shortage_and_says_why(lab):
    s = statuses(lab, BUSY)
    assert all(s.pop(n) == checks.NOT_SHOWN for n in CHAIN_CHECKS), s
    assert set(s.values()) == {checks.PASS}, s
    o = outcomes(lab, BUSY)
    assert "kept 92.0% of the set rate" in o[CHAIN_CHECKS[0]]["not_shown"]
    assert "the busiest chain asked for 103.0 MiB/s, no more than the 104 MiB/s" in o[CHAIN_CHECKS[0]]["not_shown"]
    assert "the cabling model gives +0.0% from balancing" in o[CHAIN_CHECKS[2]]["not_shown"]


def test_a_starved_cpu_cannot_find_the_single_path_jbods_and_says_why(lab):
    s = statuses(lab, STARVED)
    behind = ["the detected single-path JBODs are the planted ones",
              "the single-path JBODs hold more than their share of the outliers",
              "the long chain's JBODs stay above the single-path threshold"]
    assert all(s.pop(n) == checks.NOT_SHOWN for n in behind + CHAIN_CHECKS), s
    assert set(s.values()) == {checks.PASS}, s
    o = outcomes(lab, STARVED)[behind[0]]["not_shown"]
    assert "at 80% of the set rate (as cabled), under the 85% below which" in o


def test_the_long_chain_against_a_missing_path_at_a_starved_pace(lab):
    """At a pace under one path's share (20 of 28 MiB/s) a single-path JBOD writes as much as any:
    not shown, with the pace; at the reference's pace the same values fail."""
    name = "in throughput the long chain costs less than a missing path"
    m = {**STARVED, "free_disk_reached_cabled": 0.7, "free_disk_reached_dual": 0.7, "chain_long_reached": 0.7,
         "slow_reached": 0.7}
    assert checks.status(outcomes(lab, m)[name]) == checks.NOT_SHOWN
    assert "at 70% of the set rate (as cabled)" in outcomes(lab, m)[name]["not_shown"]
    broken = {**OURS, "chain_long_reached": 0.7, "slow_reached": 0.7}
    assert checks.status(outcomes(lab, broken)[name]) == checks.FAIL


def test_a_slow_pace_excuses_nothing_when_the_limits_were_not_in_force(lab):
    # fio starved, and the pool wrote far more than the cabling model allows: a limit was missing
    loose = {**STARVED, "pool_mib_s_cabled": 75.0, "pool_mib_s_dual": 80.0, "pool_mib_s_balanced": 80.0}
    s = statuses(lab, loose)
    for n in ("the detected single-path JBODs are the planted ones", *CHAIN_CHECKS,
              "the long chain's JBODs stay above the single-path threshold"):
        assert s[n] == checks.FAIL, n
    assert s["as cabled: the pool writes at the rate the cabling model allows"] == checks.FAIL


def test_broken_runs_fail_on_a_machine_that_keeps_its_pace(lab):
    # a path limit that did not hold: JBOD 5 kept up
    s = statuses(lab, {**OURS, "detected_single_path": [2], "outlier_jbods_cabled": [2]})
    assert s["the detected single-path JBODs are the planted ones"] == checks.FAIL
    assert s["as cabled, the slow band comes from the single-path JBODs only"] == checks.FAIL
    # the chain limit missing: fio at its pace, the pool wrote more than the model allows with both paths,
    # and the long chain neither queued nor held anything back
    no_chain = {**OURS, "outliers_dual": 0, "outlier_jbods_dual": [], "chain_queue_ratio": 1.0,
                "pool_mib_s_dual": 84.0, "pool_mib_s_balanced": 84.0}
    s = statuses(lab, no_chain)
    assert all(s[n] == checks.FAIL for n in CHAIN_CHECKS), s
    # writes of free disks in the band when balanced (a stall of fio, or a limit left over)
    assert statuses(lab, {**OURS, "outlier_share_balanced": 0.01})["balanced: the slow band is gone"] == checks.FAIL


def test_the_chain_checks_follow_the_parameters(lab):
    """With two HBAs the balanced chains are three long and not oversubscribed; with a chain of 200 MiB/s
    no chain is, and the checks of a chain shortage are not made at all."""
    wide = {**P, "chain_bw": 200 * 2**20}
    names = set(outcomes(lab, OURS, wide))
    assert not names & set(CHAIN_CHECKS) and "balanced chains: no JBOD stands out" in names
    assert "the long chain's JBODs stay above the single-path threshold" not in names


def test_the_audit_names_what_each_check_asks(lab):
    rows = {r["check"]: r for r in checks.audit(lab.CHECKS)}
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows.values())
    shown = [r["not shown here when"] for r in rows.values() if not r["not shown here when"].startswith("never")]
    assert len(shown) == 7
    assert "less than 85% of the set rate as cabled" in rows["the detected single-path JBODs are the planted ones"][
        "not shown here when"]
    assert "{" not in " ".join(shown) and "  " not in " ".join(shown)


def test_summary_reads_the_outlier_threshold_from_the_run(lab):
    d = lab.load(REF)
    assert d["outlier_ms"] == P["outlier_ms"] == 220.0
    m = lab.summary(d)
    assert {k: m[k] for k in ("outliers_cabled", "outliers_dual", "detected_single_path")} == \
        {k: OURS[k] for k in ("outliers_cabled", "outliers_dual", "detected_single_path")}
    lower = lab.summary({**d, "outlier_ms": 100.0})
    assert lower["outlier_ms"] == 100.0 and lower["outliers_cabled"] >= m["outliers_cabled"]
