"""The nfs-layers chapter's declared checks (labs/nfs-layers/checks.py): the recorded reference passes
with its recorded values, which summary recomputes from the raw files; both sides of every bound;
runs that broke a layer fail whatever the machine. And the tracer's output as the lab reads it."""
import json

from conftest import ROOT
from perflab.analysis import checks

LAB = "nfs-layers"

REF = json.loads((ROOT / "data" / "reference" / LAB / "run.json").read_text())
OURS, P = REF["metrics"], REF["params"]


def statuses(lab, m):
    return checks.statuses(lab.CHECKS, m, P)


def test_the_recorded_reference_passes_with_its_recorded_values(lab):
    got = checks.outcomes(lab.CHECKS, OURS, P)
    assert {n: checks.status(o) for n, o in got.items()} == {c["name"]: checks.PASS for c in REF["checks"]}
    assert {n: o["value"] for n, o in got.items()} == {c["name"]: c["value"] for c in REF["checks"]}


def test_summary_recomputes_every_recorded_metric_from_the_run(lab):
    m = lab.summary(lab.load(ROOT / "data" / "reference" / LAB))
    assert {k: m[k] for k in OURS} == OURS


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True)


def test_unstable_writes_fail(lab):
    # fio's stock NFS engine: the writes reach the server UNSTABLE and it never fsyncs them
    s = statuses(lab, {**OURS, "fsyncs_per_write": 0.0})
    assert s["the writes are stable: the server fsyncs each one before it answers"] == checks.FAIL


def test_a_tracer_on_the_wrong_process_fails_the_one_for_one_checks(lab):
    s = statuses(lab, {**OURS, "server_per_client_before": 0.0, "server_per_client_after": 0.0})
    assert s["the server's file system served the client's writes one for one, before the log device"] == checks.FAIL
    assert s["... and after it, one for one too"] == checks.FAIL


def test_a_log_device_zfs_did_not_use_fails(lab):
    # the log device full (as a 512 MiB one filled in the load lab): the commits back on the pool's disks
    m = {**OURS, "log_writes_per_write_after": 0.02, "disk_flushes_per_write_after": 1.7,
         "server_p50_us_after": OURS["server_p50_us_before"], "gain_server": 1.0}
    s = statuses(lab, m)
    for name in ("after it, the log device takes the commits: about one log write per write",
                 "after it, the data disks are almost never flushed for a write",
                 "the server's file system gains several times from the log device"):
        assert s[name] == checks.FAIL, name


def test_stalls_the_server_did_not_see_fail_and_a_run_without_stalls_has_no_stall_checks(lab):
    m = {**OURS, "slow_client": 10, "slow_server": 2, "slow_matched": 0.2}
    assert statuses(lab, m)["the client's stalls are the server file system's"] == checks.FAIL
    m = {**OURS, "slow_client": 1, "slow_server": 1, "slow_matched": 1.0, "slow_at_flush": 0.0}
    s = statuses(lab, m)
    assert "the client's stalls are the server file system's" not in s
    assert "the server's stalls waited with a transaction group's flushes" not in s
    assert len(s) == len(lab.CHECKS) - 2


def test_the_tracer_output_is_read_with_its_counters(lab, tmp_path):
    lines = [{"type": "attached_probes", "data": {"probes": 11}},
             {"type": "printf", "data": "1000000000 9000000 8700000\n"},
             {"type": "printf", "data": "1020000000 500000 400000\n"},
             {"type": "map", "data": {"@writes": 2}}, {"type": "map", "data": {"@fsyncs": 2}}]
    f = tmp_path / "nfswrite.json"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    df, counts = lab.read_trace(f, offset_ns=1_700_000_000_000_000_000)
    assert counts == {"writes": 2, "fsyncs": 2}
    assert list(df.lat_ns) == [9_000_000, 500_000] and list(df.fsync_ns) == [8_700_000, 400_000]
    # the end of each write, on the wall clock: its start on CLOCK_MONOTONIC, plus its time, plus the offset
    assert list(df.time_ms) == [1_700_000_001_009.0, 1_700_000_001_020.5]
