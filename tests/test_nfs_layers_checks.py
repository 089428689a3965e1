"""The nfs-layers chapter's declared checks (labs/nfs-layers/checks.py): the recorded reference passes
with its recorded values, which summary recomputes from the raw files; both sides of every bound;
runs that broke a layer fail whatever the machine. And the tracer's output as the lab reads it."""
import json

import numpy as np
import pandas as pd

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


STALLS_AT_FLUSH = "after the log device, the server's stalls waited with a transaction group's flushes"
STALLS = {"slow_client": 8, "slow_server": 8, "slow_matched": 1.0, "slow_server_after": 5,
          "slow_at_flush_after": 1.0, "flush_chance_after": 0.12}


def test_stalls_the_server_did_not_see_fail_and_a_run_without_stalls_has_no_stall_checks(lab):
    m = {**OURS, **STALLS, "slow_client": 10, "slow_server": 2, "slow_matched": 0.2}
    assert statuses(lab, m)["the client's stalls are the server file system's"] == checks.FAIL
    m = {**OURS, **STALLS, "slow_client": 1, "slow_server": 1, "slow_matched": 1.0, "slow_server_after": 1,
         "slow_at_flush_after": 0.0}
    s = statuses(lab, m)
    assert "the client's stalls are the server file system's" not in s
    assert STALLS_AT_FLUSH not in s
    assert len(s) == len(lab.CHECKS) - 2


def test_stalls_after_the_log_device_without_a_flush_fail_whatever_the_stalls_before_it(lab):
    # before the log device every write waits for two flushes: stalls there cannot pass this check for
    # stalls after it that no flush explains
    m = {**OURS, **STALLS, "slow_server_after": 5, "slow_at_flush_after": 0.2}
    assert statuses(lab, m)[STALLS_AT_FLUSH] == checks.FAIL
    m = {**OURS, **STALLS, "slow_server_after": 2, "slow_at_flush_after": 0.0}
    assert STALLS_AT_FLUSH not in statuses(lab, m)   # too few after the log device to say


def test_stalls_that_catch_a_flush_no_more_often_than_chance_fail(lab):
    # stalls so long, or flushes so frequent, that an interval as long holds a flush half the time: every
    # stall holding one is then no sign that the commits caused them
    m = {**OURS, **STALLS, "slow_at_flush_after": 1.0, "flush_chance_after": 0.5}
    assert statuses(lab, m)[STALLS_AT_FLUSH] == checks.FAIL
    m = {**OURS, **STALLS, "slow_at_flush_after": 0.8, "flush_chance_after": 0.2}
    assert statuses(lab, m)[STALLS_AT_FLUSH] == checks.PASS
    assert not checks.wrong_sides(lab.CHECKS, {**OURS, **STALLS}, P, nothing_excuses=True)


def test_the_chance_of_a_flush_in_a_random_interval(lab):
    chance = lab.analysis._chance
    # window 0-1000 ms; a 100 ms interval starts anywhere in 0-900 and holds the flush at 500 from 400 to 500
    assert abs(chance(np.array([500.0]), 100.0, (0.0, 1000.0)) - 100 / 900) < 1e-12
    # two flushes 50 ms apart: their places overlap (350-500), not counted twice
    assert abs(chance(np.array([450.0, 500.0]), 100.0, (0.0, 1000.0)) - 150 / 900) < 1e-12
    # a flush near the window's start: only the places inside the window count
    assert abs(chance(np.array([30.0]), 100.0, (0.0, 1000.0)) - 30 / 900) < 1e-12


def test_a_client_stall_is_matched_by_the_server_stall_that_ran_during_it(lab):
    t0, ms = 1_000_000.0, 1e6
    # windows: before (t0 + 1 s, t0 + 4 s], after (t0 + 6 s, t0 + 10 s]
    client = pd.DataFrame({"time_ms": [t0, t0 + 2000, t0 + 3000, t0 + 9000, t0 + 11000],
                           "lat_ns": [ms, 600 * ms, ms, 80 * ms, ms]})
    server = pd.DataFrame({"time_ms": [t0 + 1999.5, t0 + 2999.9, t0 + 5000], "lat_ns": [599 * ms, 0.9 * ms, 70 * ms]})
    d = {"client": client, "server": server, "disks": pd.DataFrame(),
         "events": {"add_start_ms": t0 + 4000, "change_ms": t0 + 4500}}
    cs = lab.client_stalls(d)
    # the 600 ms stall before the change ran with the server's 599 ms one; the 80 ms one after it with none
    # (the server's 70 ms stall ended 4 s before it began)
    assert list(cs.phase) == ["before", "after"]
    assert cs.server_lat_ms.iloc[0] == 599.0 and cs.server_lat_ms.isna().tolist() == [False, True]


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
