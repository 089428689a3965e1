"""The benchmarking chapter's declared checks (labs/benchmarking/checks.py) on made-up metrics: the
reference passes; both sides of every bound; each finding the checks read, missing or added; a machine
that cannot show a phenomenon (a 7200 RPM disk, a very fast CPU or disk, other work on fio's CPU) says
"not shown here" with its measured reason; the same machine with a broken run fails."""
import json

import pytest

from conftest import ROOT
from perflab.analysis import checks

LAB = "benchmarking"
REF = ROOT / "data" / "reference" / LAB
P = json.loads((REF / "run.json").read_text())["params"]


@pytest.fixture(scope="module")
def ours(lab):
    """This project's machine: the recorded reference's metrics, with those added since it was
    recorded (the findings, fio's CPU per job) recomputed from its raw files."""
    recorded = json.loads((REF / "run.json").read_text())["metrics"]
    return {**lab.summary(lab.load(REF)), **recorded}


def outcomes(lab, m, p=P):
    return {o["name"]: o for o in checks.evaluate(lab.CHECKS, m, p)}


def statuses(lab, m, p=P):
    return {n: checks.status(o) for n, o in outcomes(lab, m, p).items()}


def without(m, *found):
    return {**m, "findings": [k for k in m["findings"] if k not in found]}


def adding(m, *found):
    return {**m, "findings": sorted(set(m["findings"]) | set(found))}


RIGHT = "right run reaches the disk's limit"
PAYLOAD = "payload: the disk fetched pages at its limit"
REST = "peak: after the cached quarter it reads at the disk's rate"
CLIENT = ("client trap: client-bound fires", "client trap: the kernel held the client at its CPU limit",
          "client trap: fewer reads than the right run")
ONE_BYTE = "1 byte gives more IOPS than 8 KiB"
LATENCY = "cache trap: latency no disk has"
EXTRA = "every extra finding is explained"
CLEAN = "the runs done right raise no finding"


def slow_disk(ours):
    """The lab's volume on a 7200 RPM disk: about 6 ms a random read, 9.5 MB/s reading the peak file;
    fio at 0.012 CPUs keeps up with it, so neither the throttle nor the CPU limit binds."""
    return {**without(ours, "client-bound:client-bound"),
            "direct_p50_us": 6100.0, "direct_iops": 158, "direct_vs_limit": 0.079, "short_iops": 160,
            "cached_vs_direct_p50": 0.0002, "client_iops": 156, "client_vs_direct": 0.99, "client_throttled": 0.02,
            "client_cpu_share": 0.5, "payload_device_vs_limit": 0.078, "steady_mbs": 9.5, "peak_rest_vs_disk": 0.6}


def test_computed_metrics_are_the_recorded_ones(lab):
    recorded = json.loads((REF / "run.json").read_text())["metrics"]
    now = lab.summary(lab.load(REF))
    assert {k: now[k] for k in recorded} == recorded
    assert "too-short:short" in now["findings"] and now["direct_cpu_us"] > 0


def test_the_reference_passes(lab, ours):
    assert set(statuses(lab, ours).values()) == {checks.PASS}


def test_every_bound_fails_on_its_wrong_side(lab, ours):
    """Each metric check just either side of its bound (and each end of a range): the pass side passes,
    the fail side fails; this run could show every phenomenon, so no "not shown here" excuses it."""
    assert checks.wrong_sides(lab.CHECKS, ours, P, nothing_excuses=True) == []
    assert sum(isinstance(c.value, str) for c in lab.CHECKS) == 12



@pytest.mark.parametrize("finding,check", [
    ("disk-read-from-cache:disk-cached", "cache trap: disk-read-from-cache fires on disk-cached"),
    ("client-bound:client-bound", "client trap: client-bound fires"),
    ("tiny-io:iops-1byte", "1-byte trap: tiny-io and no-latency fire"),
    ("no-latency:iops-1byte", "1-byte trap: tiny-io and no-latency fire"),
    ("too-short:short", "short trap: too-short fires"),
    ("peak-vs-average:peak", "peak trap: peak-vs-average fires"),
])
def test_a_trap_whose_finding_is_missing_fails(lab, ours, finding, check):
    assert statuses(lab, without(ours, finding))[check] == checks.FAIL


@pytest.mark.parametrize("finding,check", [
    ("tiny-io:iops-8k", "8 KiB run: neither tiny-io nor no-latency"),
    ("no-latency:iops-8k", "8 KiB run: neither tiny-io nor no-latency"),
    ("peak-vs-average:steady", CLEAN),
    ("client-bound:disk-direct", CLEAN),
    ("cache-read-from-disk:payload", EXTRA),
    ("disk-read-from-cache:disk-direct", EXTRA),
])
def test_a_finding_where_none_belongs_fails(lab, ours, finding, check):
    o = outcomes(lab, adding(ours, finding))[check]
    assert checks.status(o) == checks.FAIL, o


def test_the_finding_values_are_shown_as_before(lab, ours):
    o = outcomes(lab, adding(ours, "peak-vs-average:steady", "too-short:payload"))
    assert o[EXTRA]["value"] == ["peak-vs-average:steady", "too-short:payload"]
    assert o[CLEAN]["value"] == ["peak-vs-average"]
    assert outcomes(lab, ours)["peak trap: peak-vs-average fires"]["value"] == ours["peak_ratio"]


def test_a_slow_disk_says_why(lab, ours):
    o = outcomes(lab, slow_disk(ours))
    s = {n: checks.status(x) for n, x in o.items()}
    for name in (RIGHT, PAYLOAD, REST, *CLIENT):
        assert s.pop(name) == checks.NOT_SHOWN, name
    assert set(s.values()) == {checks.PASS}, s
    assert "median 6,100 us per O_DIRECT read" in o[RIGHT]["not_shown"] and "at most 164 reads/s" in o[RIGHT]["not_shown"]
    assert "fetch 156 a second" in o[PAYLOAD]["not_shown"]
    # the CPU per read is the reference's own (its disk-direct job): the reason quotes it and what it allows
    cost = ours["direct_cpu_us"]
    assert f"{cost:,.1f} us of CPU per O_DIRECT read" in o[CLIENT[0]]["not_shown"], o[CLIENT[0]]["not_shown"]
    assert f"about {P['client_cpus'] * 1e6 / cost:,.0f} reads/s" in o[CLIENT[0]]["not_shown"]
    assert "at 9.5 MB/s, under the 16 MB/s limit" in o[REST]["not_shown"]


def test_a_slow_disk_with_a_broken_run_fails(lab, ours):
    slow = slow_disk(ours)
    # the right run did not keep the disk busy (fio starved, or reading one read in two)
    assert statuses(lab, {**slow, "direct_iops": 80, "direct_vs_limit": 0.04})[RIGHT] == checks.FAIL
    # the payload job fetched far fewer pages than the disk serves
    assert statuses(lab, {**slow, "payload_device_vs_limit": 0.03})[PAYLOAD] == checks.FAIL
    # the peak job's uncached part crawled below what the disk reads (steady's rate)
    assert statuses(lab, {**slow, "peak_rest_vs_disk": 0.3})[REST] == checks.FAIL
    # no CPU limit on the client: the kernel counted no periods
    s = statuses(lab, {**slow, "client_throttled": float("nan")})
    assert [s[n] for n in CLIENT] == [checks.FAIL] * 3
    # the client read far below what its CPU share and the disk allow
    assert statuses(lab, {**slow, "client_iops": 60, "client_vs_direct": 0.38})[CLIENT[0]] == checks.FAIL


def test_a_throttle_that_does_not_hold_fails_on_any_disk(lab, ours):
    for m in (ours, slow_disk(ours)):
        assert statuses(lab, {**m, "direct_vs_limit": 3.0, "direct_iops": 6000})[RIGHT] == checks.FAIL
        assert statuses(lab, {**m, "payload_device_vs_limit": 2.5})[PAYLOAD] == checks.FAIL


def test_a_fast_cpu_says_the_client_keeps_up(lab, ours):
    """5 us of CPU per read: 0.012 CPUs issue 2,400 reads/s, more than the disk's limit."""
    fast = {**without(ours, "client-bound:client-bound"), "direct_cpu_us": 5.0, "client_iops": 1990,
            "client_vs_direct": 0.99, "client_throttled": 0.1}
    o = outcomes(lab, fast)
    assert [checks.status(o[n]) for n in CLIENT] == [checks.NOT_SHOWN] * 3
    assert "about 2,400 reads/s" in o[CLIENT[1]]["not_shown"]
    # our CPU (38 us a read) cannot keep up at 0.012 CPUs: the same client numbers are a failure
    o = outcomes(lab, {**fast, "direct_cpu_us": ours["direct_cpu_us"]})
    assert [checks.status(o[n]) for n in CLIENT] == [checks.FAIL] * 3


def test_other_work_on_fios_cpu_says_why_1_byte_is_not_ahead(lab, ours):
    busy = {**ours, "cpu_pct_1byte": 60.0, "iops_1byte_vs_8k": 0.85}
    o = outcomes(lab, busy)[ONE_BYTE]
    assert checks.status(o) == checks.NOT_SHOWN and "60% of a CPU for the 1-byte reads" in o["not_shown"]
    # fio had its CPU in both jobs: 1 byte behind 8 KiB is a failure
    assert statuses(lab, {**ours, "iops_1byte_vs_8k": 0.85})[ONE_BYTE] == checks.FAIL
    # less CPU, but not enough to explain it: fewer 1-byte reads per CPU-second too
    assert statuses(lab, {**busy, "iops_1byte_vs_8k": 0.55})[ONE_BYTE] == checks.FAIL


def fast_disk(ours):
    """A disk that answers O_DIRECT reads in 12 us (or a virtual disk its host answers from memory): the
    disk-read-from-cache rule takes its O_DIRECT reads for memory, and the page cache's median is not
    10x below the disk's."""
    return {**adding(ours, "disk-read-from-cache:disk-direct", "disk-read-from-cache:short"),
            "direct_p50_us": 12.0, "cached_vs_direct_p50": round(ours["cached_p50_us"] / 12.0, 4)}


def test_a_disk_faster_than_the_rules_floor_says_why(lab, ours):
    o = outcomes(lab, fast_disk(ours))
    s = {n: checks.status(x) for n, x in o.items()}
    for name in (LATENCY, EXTRA, CLEAN):
        assert s.pop(name) == checks.NOT_SHOWN, name
    assert set(s.values()) == {checks.PASS}, s
    cached = ours["cached_p50_us"]   # the reference's page cache, beside the made-up 12 us disk
    assert f"median 12.0 us, {12.0 / cached:.1f}x the page cache's {cached:.2f} us" in o[LATENCY]["not_shown"]
    assert "under the 20 us" in o[CLEAN]["not_shown"] and "disk-read-from-cache:disk-direct" in o[CLEAN]["not_shown"]


def test_a_fast_disk_with_a_broken_run_fails(lab, ours):
    fast = fast_disk(ours)
    # the throttle did not hold the O_DIRECT jobs: memory, not the device, may have answered
    s = statuses(lab, {**fast, "direct_vs_limit": 4.0, "direct_iops": 8000})
    assert (s[LATENCY], s[EXTRA], s[CLEAN]) == (checks.FAIL,) * 3
    # the cache did not serve the cached job
    assert statuses(lab, {**fast, "cached_vs_limit": 3.0})[LATENCY] == checks.FAIL
    # another rule on the right run, or the short run above the limit (the rule fired on its rate)
    assert statuses(lab, adding(fast, "peak-vs-average:steady"))[CLEAN] == checks.FAIL
    assert statuses(lab, {**fast, "short_iops": 2600})[EXTRA] == checks.FAIL
    # a disk at our speed: the same findings are a failure
    assert statuses(lab, {**fast, "direct_p50_us": ours["direct_p50_us"]})[CLEAN] == checks.FAIL


def test_the_audit_names_what_each_check_asks(lab):
    rows = {r["check"]: r for r in checks.audit(lab.CHECKS)}
    assert len(rows) == len(lab.CHECKS) == 20 and all(r["asks of the machine"] for r in rows.values())
    excused = {n for n, r in rows.items() if not r["not shown here when"].startswith("never")}
    assert excused == {RIGHT, PAYLOAD, REST, *CLIENT, ONE_BYTE, LATENCY, EXTRA, CLEAN}
    text = " ".join(r["not shown here when"] for r in rows.values())
    assert "{" not in text and "  " not in text and "at least 0.8x that pace" in text and "20 us floor" in text


def test_the_recorded_names_are_kept(lab):
    recorded = [c["name"] for c in json.loads((REF / "run.json").read_text())["checks"]]
    assert [c.name for c in lab.CHECKS] == recorded
