"""The dedup chapter's declared checks (labs/dedup/checks.py) on made-up metrics: the recorded
reference passes; both sides of every bound; a run whose tools broke fails. No check depends on the
machine's speed, so none says "not shown here"."""
import json

import pandas as pd
import pytest

from conftest import ROOT
from perflab.analysis import checks

LAB = "dedup"
REF = ROOT / "data" / "reference" / "dedup"


def recorded() -> dict:
    return json.loads((REF / "run.json").read_text())


@pytest.fixture(scope="module")
def ours(lab):
    """The reference's recorded metrics, with the one the checks added since it was recorded
    (histogram_max_diff, recomputed from its files)."""
    m = recorded()["metrics"]
    return {**m, "histogram_max_diff": lab.summary(lab.load(REF))["histogram_max_diff"]}


def outcomes(lab, m):
    return checks.outcomes(lab.CHECKS, m)


def statuses(lab, m):
    return checks.statuses(lab.CHECKS, m)


def test_summary_recomputes_the_recorded_metrics(lab):
    """load and summary(data) give the recorded metrics back from the reference's files (the planted
    set's threads and dedupe_percentage now read from fio's JSON), plus histogram_max_diff."""
    m = lab.summary(lab.load(REF))
    rec = recorded()["metrics"]
    assert {k: m[k] for k in rec} == rec
    assert set(m) == set(rec)          # histogram_max_diff included, since the reference was re-recorded
    params = recorded()["params"]
    assert lab.planted_job(lab.load(REF)["fio"]) == {"threads": params["threads"],
                                                    "dedupe_percentage": params["dedupe_percentage"]}


def test_the_reference_passes_as_recorded(lab, ours):
    got = outcomes(lab, ours)
    assert {n: checks.status(o) for n, o in got.items()} == {c.name: checks.PASS for c in lab.CHECKS}
    for r in recorded()["checks"]:   # the same names, and the values shown as the chapter recorded them
        assert got[r["name"]]["value"] == r["value"], r["name"]


def test_every_bound_fails_on_its_wrong_side(lab, ours):
    assert not checks.wrong_sides(lab.CHECKS, ours)
    # all but the control's, whose value is the larger of two
    assert sum(isinstance(c.value, str) for c in lab.CHECKS) == len(lab.CHECKS) - 1


@pytest.mark.parametrize("metric", ["control_sig_ratio", "control_zdb_ratio"])
def test_the_control_fails_on_either_ratio(lab, ours, metric):
    c = next(c for c in lab.CHECKS if c.name == "the control set estimates no dedup")
    assert checks.status(c.evaluate({**ours, metric: lab.CONTROL_MAX})) == checks.PASS
    o = c.evaluate({**ours, metric: round(lab.CONTROL_MAX + 0.01, 2)})
    assert checks.status(o) == checks.FAIL and "1.02" in o["value"]


@pytest.mark.parametrize("name,metric,around,band", [
    ("the signature estimate matches the planted ratio", "sig_ratio", "planted_ratio", 0.15),
    ("zdb -S agrees with the lab's SHA-256 count", "zdb_ratio", "sig_ratio", 0.01),
    ("the estimate predicts what dedup achieves", "actual_ratio", "sig_ratio", 0.03),
])
def test_the_ratio_bands_are_the_chapters(lab, ours, name, metric, around, band):
    """Each ratio passes exactly where the chapter's condition held, |value / other - 1| <= band,
    tried across and beyond the band around the reference's own numbers."""
    c = next(c for c in lab.CHECKS if c.name == name)
    ref = ours[around]
    assert c.bound(ours, {}) == pytest.approx((ref * (1 - band), ref * (1 + band)))
    for k in range(-40, 41):
        v = round(ref * (1 + band * k / 20) + 1e-7, 7)   # off the exact edges, where floats may round either way
        expect = checks.PASS if abs(v / ref - 1) <= band else checks.FAIL
        assert checks.status(c.evaluate({**ours, metric: v})) == expect, (v, expect)


def test_the_ddt_band_is_at_least_two_entries(lab, ours):
    c = next(c for c in lab.CHECKS if c.name == "one DDT entry per distinct block")
    small = {**ours, "unique": 50}
    assert checks.status(c.evaluate({**small, "ddt_entries": 52})) == checks.PASS   # 1% would be 0.5
    assert checks.status(c.evaluate({**small, "ddt_entries": 53})) == checks.FAIL
    assert checks.status(c.evaluate({**ours, "ddt_entries": 1553 + 15})) == checks.PASS   # 1% of 1,553
    assert checks.status(c.evaluate({**ours, "ddt_entries": 1553 - 16})) == checks.FAIL


def test_a_run_whose_tools_broke_fails(lab, ours):
    # fio planted nothing (a fio whose dedupe_percentage no longer repeats blocks)
    s = statuses(lab, {**ours, "sig_ratio": 1.0, "zdb_ratio": 1.0, "actual_ratio": 1.0})
    assert s["the signature estimate matches the planted ratio"] == checks.FAIL
    assert s["zdb -S agrees with the lab's SHA-256 count"] == checks.PASS   # the two counts still agree
    # zdb -S read a pool whose last blocks were not on disk yet (no export and import before it)
    assert statuses(lab, {**ours, "zdb_ratio": 1.7})["zdb -S agrees with the lab's SHA-256 count"] == checks.FAIL
    # the dedup pool did not deduplicate (dedup=off)
    assert statuses(lab, {**ours, "actual_ratio": 1.0})["the estimate predicts what dedup achieves"] == checks.FAIL


def test_histogram_diff_reads_the_largest_bucket_difference(lab):
    h = pd.DataFrame({"sha": [100, 50, 10], "zdb": [100, 49, 10], "ddt": [98, 50, 10]})
    assert lab.histogram_diff(h) == 0.02
    assert lab.histogram_diff(pd.DataFrame({"sha": [0], "zdb": [0], "ddt": [0]})) == 0.0


def test_no_check_says_not_shown_here(lab):
    """Every check compares counts of the run's own blocks: nothing in it depends on the machine."""
    rows = checks.audit(lab.CHECKS)
    assert len(rows) == len(lab.CHECKS) == 6
    assert all(r["not shown here when"].startswith("never") for r in rows)
    assert all(r["asks of the machine"].startswith("nothing of its speed") for r in rows)
