"""The logzilla chapter's declared checks (labs/logzilla/checks.py) on made-up metrics: the recorded
reference passes with the values it recorded; both sides of every bound; the preset's thresholds; the
checks a run without the SSD, the write cache, the untar or enough stalls does not make; and no check
that says "not shown here" (the run measures no cause a machine could be excused by)."""
import json

import pytest

from perflab.analysis import checks

LAB = "logzilla"


def _recorded():
    from conftest import ROOT

    return json.loads((ROOT / "data" / "reference" / LAB / "run.json").read_text())


REC = _recorded()
#: what summary adds to the recorded metrics, from the reference's own files: the strace probe's
#: numbers and the preset (the checks read both from the metrics)
ADDED = {"trace_open_dsync": True, "trace_pwrite64": 97, "trace_flushes": 0, "trace_probe_ios": 97, "preset": "full"}
#: this project's machine: the recorded reference (full preset, an emulated SSD, 3,000 files unpacked)
OURS = {**REC["metrics"], **ADDED}
P = REC["params"]


def outcomes(lab, m, p=P):
    return {o["name"]: o for o in checks.evaluate(lab.CHECKS, m, p)}


def statuses(lab, m, p=P):
    return {n: checks.status(o) for n, o in outcomes(lab, m, p).items()}


def status(lab, name, m, p=P):
    return statuses(lab, m, p)[name]


def test_the_reference_passes_with_the_values_it_recorded(lab):
    got = outcomes(lab, OURS)
    assert {n: checks.status(o) for n, o in got.items()} == {c["name"]: checks.PASS for c in REC["checks"]}
    for c in REC["checks"]:
        assert got[c["name"]]["value"] == c["value"], c["name"]


def test_summary_reads_the_preset_and_the_probe_from_the_run(lab):
    from conftest import ROOT

    m = lab.summary(lab.load(ROOT / "data" / "reference" / LAB))
    assert m == OURS


def test_every_bound_fails_on_its_wrong_side(lab):
    """Each metric check just either side of its bound (and each end of a range): the pass side passes,
    the fail side fails; this run could show every phenomenon, so no "not shown here" excuses it."""
    assert checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True) == []
    assert sum(isinstance(c.value, str) for c in lab.CHECKS) == 6



@pytest.mark.parametrize("preset,iops_ratio,expect", [
    ("full", 10.0, checks.PASS), ("full", 9.99, checks.FAIL),
    ("smoke", 5.0, checks.PASS), ("smoke", 4.99, checks.FAIL), ("other", 5.0, checks.PASS), ("other", 4.99, checks.FAIL)])
def test_the_iops_gain_is_held_to_its_presets_threshold(lab, preset, iops_ratio, expect):
    assert status(lab, "IOPS rise with the log device", {**OURS, "preset": preset, "iops_ratio": iops_ratio}) == expect


@pytest.mark.parametrize("preset,p50_ratio,expect", [
    ("full", 10.0, checks.PASS), ("full", 9.99, checks.FAIL), ("smoke", 1.01, checks.PASS), ("smoke", 1.0, checks.FAIL)])
def test_the_median_must_fall_tenfold_in_full_and_at_all_elsewhere(lab, preset, p50_ratio, expect):
    name = "median latency falls with the log device"
    assert status(lab, name, {**OURS, "preset": preset, "p50_ratio": p50_ratio}) == expect


@pytest.mark.parametrize("change,expect", [
    # the bound itself, a rounding above it (1.5 * 108.6 / 108.6 is 1.4999999999999998 in floating point)
    ({"disk_write_ops_per_s_before": 1.5 * OURS["iops_before"] * (1 + 1e-12)}, checks.PASS),
    ({"disk_write_ops_per_s_before": 1.49 * OURS["iops_before"]}, checks.FAIL),
    ({"disk_write_ops_per_s_before": 3.01 * OURS["iops_before"]}, checks.FAIL),
    ({"disk_write_ops_per_s_before": None}, checks.FAIL)])
def test_two_disk_writes_per_fio_write(lab, change, expect):
    assert status(lab, "without a log device, about two disk writes per fio write", {**OURS, **change}) == expect


@pytest.mark.parametrize("change,expect", [
    ({"log_write_ops_per_s_after": 0.8 * OURS["iops_after"]}, checks.PASS),
    ({"log_write_ops_per_s_after": 0.79 * OURS["iops_after"]}, checks.FAIL),
    ({"log_write_ops_per_s_after": 1.51 * OURS["iops_after"]}, checks.FAIL),
    ({"log_write_ops_per_s_after": None}, checks.FAIL)])
def test_one_log_write_per_fio_write(lab, change, expect):
    assert status(lab, "with one, about one log write per fio write", {**OURS, **change}) == expect


@pytest.mark.parametrize("change", [{"trace_open_dsync": False}, {"trace_pwrite64": 96}, {"trace_pwrite64": None},
                                    {"trace_flushes": 97}])
def test_a_write_that_is_not_synchronous_by_its_flag_fails(lab, change):
    o = outcomes(lab, {**OURS, **change})["the traced writes are synchronous"]
    assert checks.status(o) == checks.FAIL and o["value"].startswith("O_DSYNC: ")


@pytest.mark.parametrize("change,expect", [
    ({}, checks.PASS), ({"disk_quiet_share_after": 0.1}, checks.PASS), ({"disk_quiet_share_after": 0.09}, checks.FAIL),
    ({"disk_quiet_share_before": 0.02}, checks.FAIL),
    # at least KIB_GAIN (2) x the KiB per write op before the change
    ({"disk_kib_per_write_after": 2 * OURS["disk_kib_per_write_before"]}, checks.PASS),
    ({"disk_kib_per_write_after": 1.99 * OURS["disk_kib_per_write_before"]}, checks.FAIL),
    ({"disk_kib_per_write_before": None}, checks.FAIL)])
def test_bursts_after_the_change(lab, change, expect):
    assert status(lab, "data disks written in bursts, with larger I/Os, after the change", {**OURS, **change}) == expect


@pytest.mark.parametrize("change,expect", [
    # a cached write at most a twentieth of the flush (CACHE_FAST)
    ({"dev_write_p50_us_before": OURS["dev_flush_p50_us_before"] / 20}, checks.PASS),
    ({"dev_write_p50_us_before": OURS["dev_flush_p50_us_before"] / 19.9}, checks.FAIL),
    ({"dev_flush_p50_us_before": 3200.0}, checks.PASS), ({"dev_flush_p50_us_before": 3199.0}, checks.FAIL),
    ({"dev_flush_p50_us_before": 6000.0}, checks.PASS), ({"dev_flush_p50_us_before": 6001.0}, checks.FAIL),
    ({"dev_flush_p50_us_before": None}, checks.FAIL)])
def test_cache_fast_writes_and_flushes_of_flush_ms(lab, change, expect):
    # flush_ms is slowdisk's default, 4 ms: a flush within 3.2-6 ms, a cached write under a twentieth of it
    m = {**OURS, **change}
    assert status(lab, "write cache on: disk writes are cache-fast, flushes cost flush_ms", m) == expect


@pytest.mark.parametrize("flushes_per_write,expect", [(2.0, checks.PASS), (1.18, checks.PASS), (1.17, checks.FAIL)])
def test_most_of_a_write_before_the_change_is_flushes(lab, flushes_per_write, expect):
    m = {**OURS, "flushes_per_write_before": flushes_per_write}
    assert status(lab, "before the change, most of a write's latency is flushes", m) == expect


@pytest.mark.parametrize("change,expect", [
    ({"untar_create_p50_us_no_log": 2 * 9437.2}, checks.PASS), ({"untar_create_p50_us_no_log": 2.01 * 9437.2}, checks.FAIL),
    ({"untar_commit_p50_us_no_log": 0.5 * 9437.2}, checks.PASS), ({"untar_commit_p50_us_no_log": 0.49 * 9437.2}, checks.FAIL)])
def test_an_untar_step_costs_an_o_dsync_write(lab, change, expect):
    name = "without a log device, an untar create, and a commit, cost what an O_DSYNC write costs"
    assert status(lab, name, {**OURS, **change}) == expect


@pytest.mark.parametrize("change,expect", [
    ({"picket_spacing_cv": 0.49}, checks.PASS), ({"picket_spacing_cv": 0.5}, checks.FAIL),
    ({"picket_fraction": 0.0099}, checks.PASS), ({"picket_fraction": 0.01}, checks.FAIL)])
def test_the_stalls_are_regular_and_rare(lab, change, expect):
    assert status(lab, "the stalls are regular and rare", {**OURS, **change}) == expect


def test_checks_are_made_only_where_the_run_has_what_they_are_about(lab):
    ssd = "after the change, a write's median is at least the emulated SSD's time"
    cache = ["write cache on: disk writes are cache-fast, flushes cost flush_ms",
             "before the change, most of a write's latency is flushes"]
    untar = [c["name"] for c in REC["checks"] if "untar" in c["name"]]
    assert ssd not in statuses(lab, OURS, {**P, "log_device": "disk"})
    assert not set(cache) & set(statuses(lab, OURS, {**P, "write_cache": False}))
    no_untar = {k: v for k, v in OURS.items() if not k.startswith("untar_")}
    assert len(untar) == 3 and not set(untar) & set(statuses(lab, no_untar))
    assert "the stalls are regular and rare" not in statuses(lab, {**OURS, "picket_stall_events": 2})
    assert len(statuses(lab, OURS)) == 14


def test_the_ssd_floor_is_the_runs_own_ssd_ms(lab):
    name = "after the change, a write's median is at least the emulated SSD's time"
    assert status(lab, name, {**OURS, "p50_after_us": 499.0}, {**P, "ssd_ms": 0.5}) == checks.FAIL
    assert status(lab, name, {**OURS, "p50_after_us": 500.0}, {**P, "ssd_ms": 0.5}) == checks.PASS


def test_a_machine_too_slow_for_the_gains_fails_them(lab):
    """Every container held to half a CPU: the short writes after the change take longer, the long ones
    before barely (made-up numbers). The run measures no CPU time, so nothing says 'not shown here'."""
    limited = {**OURS, "iops_after": 900.0, "iops_ratio": 7.93, "p50_after_us": 1100.0, "p50_ratio": 8.58,
               "log_write_ops_per_s_after": 880.0, "untar_s_with_log": 12.0, "untar_ratio": 4.73}
    s = statuses(lab, limited)
    failed = {n for n, v in s.items() if v == checks.FAIL}
    assert failed == {"IOPS rise with the log device", "median latency falls with the log device",
                      "the untar with the log device (after fio) is several times faster than the one without (before)"}
    assert checks.NOT_SHOWN not in s.values()


def test_the_audit_names_what_each_check_asks(lab):
    rows = checks.audit(lab.CHECKS)
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows)
    assert {r["not shown here when"] for r in rows} == {"never: it passes or fails"}
    asks = {r["check"]: r["asks of the machine"] for r in rows}
    assert asks["IOPS rise with the log device"].startswith("CPU time")
    assert asks["write cache on: disk writes are cache-fast, flushes cost flush_ms"].startswith("timing precision")
