"""The streaming chapter's declared checks (labs/streaming/checks.py) on made-up metrics: the recorded
reference passes; both sides of every bound; a machine slow to start fio says "not shown here" with
the start-up it measured, and only when fio's clock covered the rest; a broken run fails, whatever
the machine."""
import json

import pytest

from perflab.analysis import checks

LAB = "streaming"
CLOCK = ["mirror: fio's bandwidth matches bytes / elapsed", "raidz2: fio's bandwidth matches bytes / elapsed"]


@pytest.fixture(scope="module")
def reference():
    from conftest import ROOT

    return json.loads((ROOT / "data" / "reference" / LAB / "run.json").read_text())


@pytest.fixture(scope="module")
def ours(reference):
    """The reference's metrics, with the start-up the lab now measures (from its own fio logs)."""
    return {**reference["metrics"], "mirror_write_startup_s": 0.327, "mirror_write_after_fio_s": 0.033,
            "raidz2_write_startup_s": 0.351, "raidz2_write_after_fio_s": 0.03}


@pytest.fixture(scope="module")
def params(reference):
    return reference["params"]


def outcomes(lab, m, p):
    return {o["name"]: o for o in checks.evaluate(lab.CHECKS, m, p)}


def statuses(lab, m, p):
    return {n: checks.status(o) for n, o in outcomes(lab, m, p).items()}


def slow_start(m, lay="mirror", startup=1.4, after=0.03):
    """`m` on a machine that took `startup` s from docker exec to fio's first I/O: the lab's clock
    (elapsed) grows by the difference, fio's does not."""
    el = m[f"{lay}_write_elapsed_s"] - m[f"{lay}_write_startup_s"] - m[f"{lay}_write_after_fio_s"] + startup + after
    mbps = m[f"{lay}_write_bytes"] / el / 1e6
    return {**m, f"{lay}_write_startup_s": startup, f"{lay}_write_after_fio_s": after, f"{lay}_write_elapsed_s": el,
            f"{lay}_write_mbps": mbps}


def test_the_recorded_reference_passes(lab, reference, params):
    s = statuses(lab, reference["metrics"], params)
    assert set(s.values()) == {checks.PASS} and len(s) == len(lab.CHECKS), s


def test_the_summary_of_the_reference_passes_and_measures_the_start_up(lab, params):
    from conftest import ROOT

    m = lab.summary(lab.load(ROOT / "data" / "reference" / LAB))
    assert set(statuses(lab, m, params).values()) == {checks.PASS}
    # fio's first I/O about a third of a second after the lab's docker exec; its clock stopped within 0.1 s of the lab's
    assert 0.2 < m["mirror_write_startup_s"] < 0.5 and 0 <= m["mirror_write_after_fio_s"] < 0.1
    assert m["mirror_write_elapsed_s"] == pytest.approx(
        m["mirror_write_startup_s"] + m["mirror_write_after_fio_s"]
        + m["mirror_write_elapsed_s"] * m["mirror_write_mbps"] / m["mirror_write_fio_mbps"], abs=0.002)


def test_every_metric_bound_fails_on_its_wrong_side(lab, ours, params):
    """Each metric check just either side of its bound (and each end of a range): the pass side passes,
    the fail side fails; this run could show every phenomenon, so no "not shown here" excuses it."""
    assert checks.wrong_sides(lab.CHECKS, ours, params, nothing_excuses=True) == []



@pytest.mark.parametrize("name,metrics,passes", [
    # fio's figure / payload over the lab's clock: 0.99 .. elapsed / (elapsed - 1 s)
    (CLOCK[0], {"mirror_write_fio_mbps": 20.0, "mirror_write_mbps": 20.3}, False),     # 0.985: fio's clock longer
    (CLOCK[0], {"mirror_write_fio_mbps": 20.5, "mirror_write_mbps": 20.6}, True),
    (CLOCK[0], {"mirror_write_fio_mbps": 21.2, "mirror_write_mbps": 20.6}, False),     # 1.029 > 39.03 / 38.03
    # predicted / measured payload rate within the metadata share (0.97 .. 1.2), the measured rate set here
    ("raidz2: disks' rate / ideal amplification predicts the payload rate",
     {"raidz2_write_mbps": 25.0, "raidz2_write_predicted_mbps": 30.0}, True),
    ("raidz2: disks' rate / ideal amplification predicts the payload rate",
     {"raidz2_write_mbps": 25.0, "raidz2_write_predicted_mbps": 30.1}, False),
    ("mirror: disks' rate / ideal amplification predicts the payload rate",
     {"mirror_write_mbps": 20.0, "mirror_write_predicted_mbps": 19.3}, False),
    # reads strictly between 1x and 2x the write rate
    ("mirror: streaming reads are faster than writes, short of 2x", {"mirror_read_over_write": 1.001}, True),
    ("mirror: streaming reads are faster than writes, short of 2x", {"mirror_read_over_write": 1.0}, False),
    ("mirror: streaming reads are faster than writes, short of 2x", {"mirror_read_over_write": 1.999}, True),
    ("mirror: streaming reads are faster than writes, short of 2x", {"mirror_read_over_write": 2.0}, False),
    # measured / modelled read/write ratio within 0.85 .. 1.15, the measured ratio set here
    ("mirror: the busy fractions predict the read/write ratio",
     {"mirror_read_over_write": 1.5, "mirror_read_over_write_model": 1.31}, True),
    ("mirror: the busy fractions predict the read/write ratio",
     {"mirror_read_over_write": 1.5, "mirror_read_over_write_model": 1.30}, False),
])
def test_computed_values_on_both_sides(lab, ours, params, name, metrics, passes):
    o = outcomes(lab, {**ours, **metrics}, params)[name]
    assert checks.status(o) == (checks.PASS if passes else checks.FAIL), o


def test_a_machine_slow_to_start_fio_says_so(lab, ours, params):
    m = slow_start(ours)
    s = statuses(lab, m, params)
    assert s.pop(CLOCK[0]) == checks.NOT_SHOWN and set(s.values()) == {checks.PASS}, s
    why = outcomes(lab, m, params)[CLOCK[0]]["not_shown"]
    assert "took 1.40 s from the lab's `docker exec` to fio's first I/O (mirror writes)" in why
    assert "ran 0.03 s more" in why
    # on the other layout too
    assert statuses(lab, slow_start(ours, "raidz2", 2.5), params)[CLOCK[1]] == checks.NOT_SHOWN


def test_a_slow_start_excuses_nothing_else(lab, ours, params):
    # fio's clock missed 1.5 s at its end (an fsync it did not count): a failure, however slow the start-up
    assert statuses(lab, slow_start(ours, startup=1.4, after=1.5), params)[CLOCK[0]] == checks.FAIL
    # a start-up within the allowance, with the lab's clock running on after fio's: a failure
    assert statuses(lab, slow_start(ours, startup=0.9, after=0.9), params)[CLOCK[0]] == checks.FAIL
    # fio's figure below payload over the lab's clock: never the start-up's doing
    low = {**slow_start(ours), "mirror_write_fio_mbps": 0.98 * slow_start(ours)["mirror_write_mbps"]}
    assert statuses(lab, low, params)[CLOCK[0]] == checks.FAIL
    # a run without the start-up measurement (as recorded before the lab measured it): no excuse
    unmeasured = {k: v for k, v in slow_start(ours).items() if not k.endswith(("_startup_s", "_after_fio_s"))}
    assert statuses(lab, unmeasured, params)[CLOCK[0]] == checks.FAIL


def test_broken_runs_fail_on_any_machine(lab, ours, params):
    # a mirror that wrote each block once (one side missing)
    assert statuses(lab, {**ours, "mirror_write_amp": 1.05}, params)[
        "mirror: disks receive 2.00x the payload"] == checks.FAIL
    # RAID-Z2 writing as much as a mirror: no parity saving
    assert statuses(lab, {**ours, "raidz2_write_amp": 2.0}, params)[
        "raidz2: disks receive n/(n-2) times the payload"] == checks.FAIL
    # the ARC served the reads (the pool not exported and imported)
    assert statuses(lab, {**ours, "raidz2_read_amp": 0.4}, params)["raidz2: reads cost the payload once"] == checks.FAIL
    # zfs-fuse the limit (a CPU limit): the run does not measure its CPU, so nothing excuses these
    cpu_bound = {**ours, "back_rate_ratio": 0.7, "raidz2_over_mirror_write": 0.93, "mirror_read_over_write": 0.95}
    s = statuses(lab, cpu_bound, params)
    assert s["the disks are the limit: same disk rate for both layouts"] == checks.FAIL
    assert s["RAID-Z2 accepts more payload than mirrors"] == checks.FAIL
    assert s["mirror: streaming reads are faster than writes, short of 2x"] == checks.FAIL


def test_checks_the_parameters_leave_out_are_not_made(lab, ours, params):
    lead = "RAID-Z2 accepts more payload than mirrors"
    assert lead not in outcomes(lab, ours, {**params, "disk": "7200rpm"})
    assert lead not in outcomes(lab, {**ours, "n_disks": 4}, params)       # four disks: no lead in the ideal
    no_reads = {k: v for k, v in ours.items() if "_read_" not in k}
    names = list(outcomes(lab, no_reads, {**params, "read": False}))
    assert not any("read" in n for n in names) and len(names) == len(lab.CHECKS) - 4


def test_the_lead_floor_is_half_the_ideal_lead(lab):
    assert lab.raidz2_lead_floor(4) is None
    assert lab.raidz2_lead_floor(6) == pytest.approx(1 + (4 / 3 - 1) / 2)
    assert lab.raidz2_lead_floor(8) == pytest.approx(1.25)


def test_the_audit_names_what_each_check_asks(lab):
    rows = checks.audit(lab.CHECKS)
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows)
    not_shown = {r["check"]: r["not shown here when"] for r in rows if not r["not shown here when"].startswith("never")}
    assert set(not_shown) == set(CLOCK)
    assert "more than 1 s after the lab started it" in not_shown[CLOCK[0]]
    assert "{" not in " ".join(not_shown.values()) and "  " not in " ".join(not_shown.values())
