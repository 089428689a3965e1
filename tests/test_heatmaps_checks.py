"""The heatmaps chapter's declared checks (labs/heatmaps/checks.py) on made-up metrics: both sides of
every bound; a fast and a slow machine both pass when the phenomenon is there; a machine that cannot
show it says "not shown here" with its measured reason; a broken run fails, whatever the machine."""
import pytest

from perflab.analysis import checks

LAB = "heatmaps"

#: this project's machine, from the reference (virtual disk, ~97 us O_DIRECT reads)
OURS = {"band_ratio": 39.0, "cached_p50_us": 2.48, "direct_p50_us": 96.8, "mean_all_us": 12.8, "p99_all_us": 147.5,
        "cached_fast_share": 0.943, "cached_fast_us": 14.1, "iops_cached": 1800.0, "iops_direct": 200.0,
        "rate_set_cached": 1800, "rate_set_direct": 200, "direct_qd1_max_iops": 8900.0, "direct_share_measured": 0.1}
#: an emulated 7200 RPM disk under the volume (issue 30: slowdisk under ext4 on a loop device)
SLOW_DISK = {**OURS, "band_ratio": 2928.0, "direct_p50_us": 6324.0, "mean_all_us": 760.0, "p99_all_us": 14000.0,
             "iops_direct": 152.0, "direct_qd1_max_iops": 152.5, "direct_share_measured": 0.078}
#: an NVMe disk: O_DIRECT reads in 15 us, 6x a page-cache read
FAST_DISK = {**OURS, "band_ratio": 6.0, "direct_p50_us": 15.0, "mean_all_us": 3.9, "p99_all_us": 40.0,
             "direct_qd1_max_iops": 60000.0}


def outcomes(lab, m):
    return checks.outcomes(lab.CHECKS, m)


def statuses(lab, m):
    return checks.statuses(lab.CHECKS, m)


def test_fast_and_slow_machines_both_pass(lab):
    assert set(statuses(lab, OURS).values()) == {checks.PASS}
    s = statuses(lab, SLOW_DISK)
    assert s.pop("the direct job ran at its set rate") == checks.NOT_SHOWN
    assert set(s.values()) == {checks.PASS}, s


def test_a_slow_disk_says_why_the_direct_rate_is_not_shown(lab):
    o = outcomes(lab, SLOW_DISK)["the direct job ran at its set rate"]
    assert "6,557 us per O_DIRECT read" in o["not_shown"] and "at most 152 reads/s" in o["not_shown"]


def test_a_very_fast_disk_says_why_the_bands_are_not_shown(lab):
    s = statuses(lab, FAST_DISK)
    assert s["bands an order of magnitude apart"] == checks.NOT_SHOWN
    assert s["the mean lies in neither band"] == checks.NOT_SHOWN
    assert "median 15.0 us, 6.0x the page cache's 2.5 us" in outcomes(lab, FAST_DISK)["bands an order of magnitude apart"]["not_shown"]
    assert sum(v == checks.FAIL for v in s.values()) == 0


def test_a_broken_run_fails_on_any_machine(lab):
    # the page cache did not serve the cached job (e.g. the file was dropped from it): bands merge
    uncached = {**FAST_DISK, "cached_p50_us": 12.0, "band_ratio": 1.25, "cached_fast_share": 0.2, "mean_all_us": 12.5}
    s = statuses(lab, uncached)
    assert s["bands an order of magnitude apart"] == checks.FAIL
    assert s["most cached reads are memory copies"] == checks.FAIL
    # the direct reads never reached a device (a file system that serves O_DIRECT from memory)
    no_device = {**OURS, "direct_p50_us": 3.0, "band_ratio": 1.2, "mean_all_us": 2.6, "direct_qd1_max_iops": 300000.0}
    assert statuses(lab, no_device)["bands an order of magnitude apart"] == checks.FAIL
    # the direct job fell behind a disk that could serve it (a busy container, a throttled job)
    lagging = {**OURS, "iops_direct": 120.0}
    assert statuses(lab, lagging)["the direct job ran at its set rate"] == checks.FAIL


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not checks.wrong_sides(lab.CHECKS, OURS, nothing_excuses=True)   # on our machine nothing excuses it


@pytest.mark.parametrize("factor,expect", [(1.9, checks.FAIL), (2.1, checks.PASS)])
def test_the_mean_check_on_both_sides(lab, factor, expect):
    c = next(c for c in lab.CHECKS if c.name == "the mean lies in neither band")
    m = {**OURS, "mean_all_us": OURS["cached_p50_us"] * factor}
    assert checks.status(c.evaluate(m)) == expect


def test_the_audit_names_what_each_check_asks(lab):
    rows = checks.audit(lab.CHECKS)
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows)
    assert sum(not r["not shown here when"].startswith("never") for r in rows) == 3


def test_summary_reads_rates_and_block_size_from_the_run(lab):
    from conftest import ROOT

    m = lab.summary(lab.load(ROOT / "data" / "reference" / "heatmaps"))
    assert m["rate_set_cached"] + m["rate_set_direct"] == 2000 and m["bs_bytes"] == 4096
    assert m["cached_fast_us"] == pytest.approx(14.1)


def test_the_mean_check_knows_both_sides_of_its_arithmetic(lab):
    """With half the reads on the disk the mean is within 2x of the disk band on any data: not shown,
    with that reason, however far apart the bands are; with a tenth it needs bands about 11x apart."""
    import importlib

    C = importlib.import_module(lab.__name__ + ".checks")
    assert "however far apart" in C.mean_room(0.5, 1000.0)
    assert C.mean_room(0.1, 10.0) is not None and C.mean_room(0.1, 12.0) is None


def test_the_audit_table_shows_the_constants_the_code_tests(lab):
    rows = {r["check"]: r["not shown here when"] for r in checks.audit(lab.CHECKS)}
    assert "within 10x of a page-cache read" in rows["bands an order of magnitude apart"]
    assert "{" not in " ".join(rows.values()) and "  " not in " ".join(rows.values())
