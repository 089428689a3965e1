"""The bad-cable chapter's declared checks (labs/bad-cable/checks.py) on made-up metrics: the recorded
reference passes; both sides of every bound; a machine whose CPU, not the links, held the good clients
(a busy CPU, a CPU limit on the containers) says "not shown here" with the rates it measured; a broken
run fails, whatever the machine."""
import json

import pytest

from perflab.analysis import checks

LAB = "bad-cable"

CALL_OUT = "the automatic call-out names the bad client"
SHARE = "the outlier's network rate is about bad_ratio of the others'"
GAIN = "the new cable's gain is about 1/N"
FLAT = "the outlier's network rate sits flat just under its link's limit"
EVEN_OPS = "after the new cable no client stands out"
EVEN_NET = "after the new cable no client's bytes stand out"

def recorded() -> dict:
    from conftest import ROOT

    return json.loads((ROOT / "data" / "reference" / LAB / "run.json").read_text())


def _expected_gain(n: int, ratio: float) -> float:
    from conftest import ROOT
    from perflab.config import manifest

    return manifest.load(ROOT).lab(LAB).load_module().expected_gain(n, ratio)


#: the full preset's parameters, as the reference recorded them (five clients, client 3 at a tenth)
P = recorded()["params"]
#: this project's machine: the reference's metrics (the good links full, no CPU limit)
OURS = recorded()["metrics"]
#: a server held to 30 MB/s in all (a busy CPU, or half a CPU for its container): the good clients share
#: what the bad one leaves, 57.6 Mbit/s each, and the new cable adds nothing the machine could serve
CPU_BOUND = {**OURS, "others_median_ops_s": 219.7, "outlier_ops_ratio": 0.166, "others_median_mbit_s": 57.6,
             "net_ratio": 0.169, "total_mb_s_bad": 29.99, "total_mb_s_replaced": 30.0, "gain": 0.0003,
             "gain_fio": 0.0, "cost_total_mb_s_off": 30.0, "cost_total_mb_s_on": 29.9}
#: a milder bad cable (bad_ratio 0.4, 40 Mbit/s) on clients each held to 60 Mbit/s by a CPU limit
P_MILD = {**P, "bad_ratio": 0.4}
CLIENT_BOUND = {**OURS, "outlier_ops_s": 148.8, "others_median_ops_s": 228.9, "outlier_ops_ratio": 0.65,
                "outlier_mbit_s": 39.0, "outlier_link_mbit": 40.0, "others_median_mbit_s": 60.0, "net_ratio": 0.65,
                "total_mb_s_bad": 34.88, "total_mb_s_replaced": 37.5, "gain": 0.0752,
                "expected_gain": round(_expected_gain(P["clients"], P_MILD["bad_ratio"]), 4),
                "cost_total_mb_s_off": 37.5, "cost_total_mb_s_on": 37.4}


def outcomes(lab, m, p=P):
    return checks.outcomes(lab.CHECKS, m, p)


def statuses(lab, m, p=P):
    return checks.statuses(lab.CHECKS, m, p)


def test_the_recorded_reference_passes(lab):
    doc = recorded()
    assert set(statuses(lab, doc["metrics"], doc["params"]).values()) == {checks.PASS}


def test_summary_of_the_reference_is_what_it_recorded(lab):
    from conftest import ROOT

    ref = ROOT / "data" / "reference" / LAB
    assert lab.summary(lab.load(ref)) == recorded()["metrics"]


def test_the_values_shown_are_the_chapters(lab):
    """What the checks show of the reference is what its run.json recorded (the chapter's table)."""
    o = outcomes(lab, OURS)
    for c in recorded()["checks"]:
        assert o[c["name"]]["value"] == c["value"], c["name"]
    assert o[SHARE]["value"] == OURS["net_ratio"] and o[GAIN]["value"] == OURS["gain"]


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True)   # the links were full here


@pytest.mark.parametrize("ratio,expect", [(0.499, checks.PASS), (0.5, checks.FAIL)])
def test_the_call_out_on_both_sides_of_half(lab, ratio, expect):
    assert statuses(lab, {**OURS, "outlier_ops_ratio": ratio})[CALL_OUT] == expect


def test_the_call_out_must_name_the_bad_client(lab):
    assert statuses(lab, {**OURS, "detected_outlier": 2})[CALL_OUT] == checks.FAIL
    assert statuses(lab, {**OURS, "detected_outlier": None, "outlier_ops_ratio": None})[CALL_OUT] == checks.FAIL
    assert outcomes(lab, {**OURS, "outlier_ops_ratio": None})[CALL_OUT]["value"] == "no client to compare"


@pytest.mark.parametrize("mbit,cv,expect", [(8.0, 0.1, checks.PASS), (10.2, 0.0, checks.PASS),
                                            (7.99, 0.0175, checks.FAIL), (10.21, 0.0175, checks.FAIL),
                                            (9.71, 0.1001, checks.FAIL), (None, 0.0175, checks.FAIL),
                                            (9.71, None, checks.FAIL)])
def test_the_flat_rate_on_both_sides_of_its_bounds(lab, mbit, cv, expect):
    assert statuses(lab, {**OURS, "outlier_mbit_s": mbit, "outlier_mbit_cv": cv})[FLAT] == expect


def test_the_bands_follow_bad_ratio_and_n(lab):
    share = outcomes(lab, {**OURS, "net_ratio": 0.6}, P_MILD)[SHARE]
    assert checks.status(share) == checks.PASS and "between 0.2 and 0.6" in share["expected"]
    four = {**OURS, "one_over_n": 0.25, "gain": 0.125}          # four clients: 0.125 to 0.5
    assert statuses(lab, four)[GAIN] == checks.PASS
    assert statuses(lab, {**four, "gain": 0.124})[GAIN] == checks.FAIL
    assert "between 0.1 and 0.4" in outcomes(lab, OURS)[GAIN]["expected"]


def test_a_cpu_bound_server_says_why_the_share_and_the_gain_are_not_shown(lab):
    s = statuses(lab, CPU_BOUND)
    assert s.pop(SHARE) == checks.NOT_SHOWN and s.pop(GAIN) == checks.NOT_SHOWN
    assert set(s.values()) == {checks.PASS}, s
    o = outcomes(lab, CPU_BOUND)
    assert "a median 57.6 Mbit/s of their 100 Mbit/s links (58%)" in o[SHARE]["not_shown"]
    assert "served 48.0 Mbit/s a client" in o[SHARE]["not_shown"]
    assert "240 Mbit/s in all, 48% of their 5 x 100 Mbit/s links" in o[GAIN]["not_shown"]


def test_clients_under_a_cpu_limit_say_why_a_mild_cable_is_not_called_out(lab):
    s = statuses(lab, CLIENT_BOUND, P_MILD)
    assert {n: s.pop(n) for n in (CALL_OUT, SHARE, GAIN)} == dict.fromkeys((CALL_OUT, SHARE, GAIN), checks.NOT_SHOWN)
    assert set(s.values()) == {checks.PASS}, s
    assert "the bad client filled its 40 Mbit/s" in outcomes(lab, CLIENT_BOUND, P_MILD)[CALL_OUT]["not_shown"]


def test_a_broken_run_fails_on_any_machine(lab):
    # the bad cable never held its client (the tbf was not applied): no machine excuses it
    unshaped = {**CPU_BOUND, "outlier_mbit_s": 57.0, "net_ratio": 0.99, "outlier_ops_ratio": 0.99,
                "gain": 0.0, "outlier_mbit_cv": 0.02}
    s = statuses(lab, unshaped)
    assert [s[n] for n in (CALL_OUT, SHARE, GAIN, FLAT)] == [checks.FAIL] * 4
    # a machine that served 778 Mbit/s a client unshaped, yet the good clients got 58 of their 100
    starved = {**CPU_BOUND, "cost_total_mb_s_off": 486.6, "cost_total_mb_s_on": 486.8}
    assert statuses(lab, starved)[SHARE] == checks.FAIL and statuses(lab, starved)[GAIN] == checks.FAIL
    # the new cable never went in: the bad client still stands out afterwards, and nothing was gained
    unfixed = {**CPU_BOUND, "replaced_min_ops_ratio": 0.17, "replaced_min_net_ratio": 0.17, "gain": 0.0}
    s = statuses(lab, unfixed)
    assert [s[n] for n in (GAIN, EVEN_OPS, EVEN_NET)] == [checks.FAIL] * 3
    # the run did not measure the machine with no link limit (no cost windows): nothing to excuse with
    unmeasured = {**CPU_BOUND, "cost_total_mb_s_off": None, "cost_total_mb_s_on": None}
    assert statuses(lab, unmeasured)[SHARE] == checks.FAIL and statuses(lab, unmeasured)[GAIN] == checks.FAIL
    # the call-out named another client on a CPU-bound machine
    assert statuses(lab, {**CLIENT_BOUND, "detected_outlier": 1}, P_MILD)[CALL_OUT] == checks.FAIL
    # the server's per-client counters were not read (an image whose ganesha answers otherwise)
    no_ops = {**OURS, "detected_outlier": None, "outlier_ops_s": None, "others_median_ops_s": None,
              "outlier_ops_ratio": None, "replaced_min_ops_ratio": None}
    s = statuses(lab, no_ops)
    assert s[CALL_OUT] == checks.FAIL and s[EVEN_OPS] == checks.FAIL


def test_the_audit_names_what_each_check_asks(lab):
    rows = {r["check"]: r for r in checks.audit(lab.CHECKS)}
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows.values())
    shown = {n for n, r in rows.items() if not r["not shown here when"].startswith("never")}
    assert shown == {CALL_OUT, SHARE, GAIN}
    text = " ".join(r["not shown here when"] for r in rows.values())
    assert "under 90% of their links' rate" in text and "at least 80% of what this machine served" in text
    assert "{" not in text and "  " not in text
