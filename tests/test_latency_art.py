"""Lab latency-art: the icy lake's measures (creep, slope, its prediction from the spindle speeds),
the pterodactyl's knee detection and phase statistics, the job files the lab writes, and its
parameter refusals, on synthetic data (no Docker). A small simulation of slowdisk's sequential
write rule checks that the chapter's explanation of the icy lake holds."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from perflab.config import manifest as manifest_mod
from perflab.config import params as params_mod


@pytest.fixture(scope="module")
def lab():
    return manifest_mod.load().lab("latency-art").load_module()


@pytest.fixture(scope="module")
def manifest():
    return manifest_mod.load()


def simulate_icy(rpms, n=4000, turnaround_us=40.0, jitter_us=8.0, xfer_us=68.0, seed=0):
    """slowdisk's rule for a sequential O_DSYNC write (wait = rotation - idle mod rotation, idle
    since the disk's previous write ended) with one writer taking the disks in turn. Returns each
    disk's service times (ms) and the completion times (s)."""
    rng = np.random.default_rng(seed)
    rot = [60.0 / r for r in rpms]
    prev = [None] * len(rpms)
    t, out = 0.0, [[] for _ in rpms]
    for k in range(n):
        i = k % len(rpms)
        t += (turnaround_us + rng.normal(0, jitter_us)) / 1e6
        w = rng.uniform(0, rot[i]) if prev[i] is None else rot[i] - (t - prev[i]) % rot[i]
        t += w + xfer_us / 1e6
        prev[i] = t
        out[i].append((t, (w + xfer_us / 1e6) * 1000))
    return [pd.DataFrame(o, columns=["t_s", "svc_ms"]) for o in out]


def icy_params(offset=10.0):
    return {"icy_rpm": 7200, "rpm_offset": offset}


def test_icy_lake_simulation_gives_an_x_with_the_predicted_slope(lab):
    d0, d1 = simulate_icy([7200, 7210])
    m = lab.icy_stats({"d0": d0, "d1": d1}, icy_params())
    assert m["icy_predicted_drift_us"] == pytest.approx(11.56, abs=0.02)
    assert m["icy_d0_lag1"] > 0.9 and m["icy_d1_lag1"] > 0.9
    assert m["icy_d0_creep_share"] > 0.95 and m["icy_d1_creep_share"] > 0.95
    assert m["icy_d0_drift_us"] > 0 > m["icy_d1_drift_us"]
    assert m["icy_d0_drift_us"] == pytest.approx(11.56, rel=0.3)
    assert m["icy_d1_drift_us"] == pytest.approx(-11.56, rel=0.3)
    assert m["icy_d0_net_wraps"] >= 2 and m["icy_d1_net_wraps"] >= 2   # a sawtooth: the lines wrap round
    # unwrapped, each line moves by the predicted step per write, d0 up and d1 down as much
    assert m["icy_d0_net_us"] == pytest.approx(11.56, rel=0.1) and m["icy_d1_net_us"] == pytest.approx(-11.56, rel=0.1)
    assert -m["icy_d1_net_ms_s"] / m["icy_d0_net_ms_s"] == pytest.approx(1, rel=0.1)
    assert m["icy_round_share"] > 0.95   # each round's two waits add up to one rotation


def test_round_share_tells_waits_that_share_a_rotation_from_independent_ones(lab):
    t = np.arange(0, 20, 0.01)
    d0 = pd.DataFrame({"t_s": t, "svc_ms": (t * 1.3) % 8.0})
    d1 = pd.DataFrame({"t_s": t + 0.004, "svc_ms": 8.0 - (t * 1.3) % 8.0})   # each round's waits sum to 8 ms
    assert lab.round_share(d0, d1, 8.0) == 1.0
    rng = np.random.default_rng(1)
    d1r = d1.assign(svc_ms=rng.uniform(0, 8.0, len(d1)))                  # a wait of its own each round
    assert lab.round_share(d0, d1r, 8.0) < 0.5
    assert np.isnan(lab.round_share(d0, d1.iloc[:0], 8.0))


def test_icy_lake_in_step_spindles_do_not_drift(lab):
    d0, d1 = simulate_icy([7200, 7200])
    m = lab.icy_stats({"d0": d0, "d1": d1}, icy_params(0.0))
    assert abs(m["icy_d0_drift_us"]) < 2 and abs(m["icy_d1_drift_us"]) < 2
    assert "icy_predicted_period_s" not in m


def test_random_rotation_does_not_look_like_creep(lab):
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 8.33, 5000)
    assert abs(lab.lag1(x)) < 0.1
    assert lab.lag1(np.r_[np.linspace(0, 8, 500), np.linspace(0, 8, 500)]) > 0.95


def test_creep_survives_writes_served_a_rotation_late_and_random_rotation_does_not_pass(lab):
    rot = 8.33
    line = (np.arange(1400) * 0.0116) % rot          # creeping by 11.6 us a write, wrapping round
    late = line.copy()
    late[np.random.default_rng(5).choice(1400, 42, replace=False)] += rot   # 3% a rotation late
    assert lab.lag1(late) < 0.8                         # the correlation falls under its old threshold
    assert lab.creep_share(late, rot) > 0.99            # a rotation late: the same place on the platter
    odd = line.copy()
    odd[np.random.default_rng(6).choice(1400, 42, replace=False)] += np.random.default_rng(7).uniform(1, 7, 42)
    assert lab.creep_share(odd, rot) > 0.9   # late by anything else: two steps each
    assert lab.creep_share(line, rot) > 0.99
    rnd = np.random.default_rng(3).uniform(0, rot, 5000)
    assert lab.creep_share(rnd, rot) == pytest.approx(2 * lab.CREEP_STEP, abs=0.03)


def test_drift_folds_the_wrap_round(lab):
    rot = 8.0
    x = (np.arange(2000) * 0.01) % rot          # +10 us per write, wrapping every 800 writes
    assert lab.drift_per_visit_us(x, rot) == pytest.approx(10.0, abs=1e-6)
    assert lab.drift_per_visit_us(x[::-1], rot) == pytest.approx(-10.0, abs=1e-6)


@pytest.mark.parametrize("knee,noise", [(4, 0.0), (8, 0.03), (5, 0.05)])
def test_find_knee(lab, knee, noise):
    rng = np.random.default_rng(knee)
    n = np.arange(1, 13)
    y = 40 * np.minimum(n, knee) * (1 + rng.normal(0, noise, len(n)))
    k, rate = lab.find_knee(n, y)
    assert abs(k - knee) <= 0.5 and rate == pytest.approx(40, rel=0.1)


def test_find_knee_without_a_knee_is_at_the_end(lab):
    n = np.arange(1, 9)
    k, _ = lab.find_knee(n, 30.0 * n)
    assert k == pytest.approx(8, abs=0.1)


def synthetic_ptero(p, per_disk=40.0, svc_ms=3.3, t0=1_700_000_000_000):
    """Per-I/O rows of disks lit one by one behind ports x lanes lanes: a read takes svc_ms while
    lanes are free, k / lanes x svc_ms past the knee."""
    lanes = p["ports"] * p["lanes"]
    rows = []
    for k in range(1, p["disks"] + 1):
        busy = min(k, lanes)
        lat = svc_ms * max(1.0, k / lanes)
        rate = per_disk * busy / k * 1e6 / 131072          # reads/s per disk
        for disk in range(k):
            ts = t0 + (k - 1) * p["phase"] * 1000 + np.arange(0, p["phase"] * 1000, 1000 / rate)
            rows.append(pd.DataFrame({"time_ms": ts.astype(np.int64), "lat_ns": int(lat * 1e6),
                                      "ddir": 0, "bs": 131072, "offset": 0, "disk": disk}))
    return {"ptero_io": pd.concat(rows, ignore_index=True), "ptero_t0_ms": t0}


def test_pterodactyl_phases_and_stats(lab):
    p = {"disks": 7, "ports": 1, "lanes": 4, "phase": 4.0, "stream_mbps": 40.0}
    d = synthetic_ptero(p)
    ph = lab.ptero_phases(d, p)
    assert list(ph.disks) == list(range(1, 8))
    assert ph.mb_s.iloc[0] == pytest.approx(40, rel=0.05) and ph.mb_s.iloc[3] == pytest.approx(160, rel=0.05)
    m = lab.ptero_stats(ph, p)
    assert abs(m["knee_disks"] - 4) <= 0.5 and m["knee_expected"] == 4
    assert m["flat_ratio"] == pytest.approx(1.0, abs=0.05) and m["linear_ratio"] == pytest.approx(1.0, abs=0.05)
    assert m["latency_rise"] == pytest.approx(7 / 4, rel=0.02) and m["flat_before_knee"] == pytest.approx(1.0)
    assert m["transfer_ms"] == pytest.approx(131072 / (p["stream_mbps"] * 1e6) * 1000, abs=0.001)   # a 128 KiB read


def test_job_files(lab, manifest):
    p = {"icy_bs": 8192, "icy_time": 15.0, "disks": 6, "ports": 2, "phase": 4.0}
    s = SimpleNamespace(params=p, lab=manifest.lab("latency-art"))
    icy = lab.icy_job(s)
    assert icy.get("icy-lake", "filename") == "/icy0/d0:/icy1/d1"
    assert icy.get("global", "sync") == "dsync" and icy.get("global", "runtime") == "15"
    jf = lab.ptero_job(s)
    assert jf.jobs() == [f"disk{i}" for i in range(6)]
    assert jf.get("disk5", "filename") == "/jbod1/d5" and jf.get("disk4", "filename") == "/jbod0/d4"
    assert jf.get("disk5", "startdelay") == "20000ms" and jf.get("disk5", "runtime") == "4000ms"
    assert jf.get("disk0", "runtime") == "24000ms"
    assert "filename" not in dict(jf.sections["global"])


def test_validate_needs_disks_beyond_the_knee(lab, manifest):
    assert lab.validate({"disks": 10, "ports": 2, "lanes": 4}) == []
    bad = lab.validate({"disks": 9, "ports": 2, "lanes": 4})
    assert bad and "disks=9" in bad[0] and "at least 10" in bad[0]
    with pytest.raises(params_mod.ParamError) as e:
        params_mod.resolve(manifest.lab("latency-art"), "smoke", ["disks=5"], budget={})
    assert "disks=5" in str(e.value) and "at least 6" in str(e.value)


def test_presets_keep_disks_beyond_the_knee(lab, manifest):
    m = manifest.lab("latency-art")
    for name in ("smoke", "full"):
        values = params_mod.resolve(m, name, budget={})
        assert lab.validate(values) == []


def test_device_phases_use_the_device_clock(lab):
    p = {"disks": 3, "phase": 2.0}
    t0 = 1_700_000_000_000
    dev = pd.DataFrame({"epoch_ms": t0 + np.arange(0, 6000, 10), "lat_ns": 3_300_000})
    dev.loc[dev.epoch_ms >= t0 + 4000, "lat_ns"] = 6_600_000
    dv = lab.device_phases({"ptero_device": dev, "ptero_t0_ms": t0}, p)
    assert list(dv.device_p50_ms.round(2)) == [3.3, 3.3, 6.6]


def test_net_wraps_count_a_jittery_crossing_once(lab):
    t = np.arange(0, 20, 0.01)
    x = (t * 1.3) % 8.0                      # wraps at t = 6.15, 12.3, 18.5 s
    assert lab.net_line(x, t, 8.0)["wraps"] == 3
    x2 = x.copy()
    x2[614:620] = [7.99, 0.01, 7.99, 0.02, 7.99, 0.03]   # crosses back and forth at one wrap
    n = lab.net_line(x2, t, 8.0)
    assert n["wraps"] == 3 and n["jumps"] == 3 + 4
    assert lab.net_line(np.full(100, 4.0), t[:100], 8.0)["wraps"] == 0
