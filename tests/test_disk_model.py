"""Lab disk-model: its parameter refusals and job file, the model's parts (jumps, seek curve, band
width, KS distance to a uniform band, the FUSE pairing) and the whole analysis on a synthetic run
drawn from slowdisk's rules (no Docker); and one live run off the textbook's disk (Docker, FUSE)."""
import json
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROOT, perflab_cmd
from perflab.config import manifest as manifest_mod
from perflab.config import params as params_mod
from perflab.analysis.checks import failed

KIB = 1024


@pytest.fixture(scope="module")
def manifest():
    return manifest_mod.load(ROOT)


@pytest.fixture(scope="module")
def lab(manifest):
    return manifest.lab("disk-model").load_module()


DEFAULTS = {"phase": 10.0, "rpm": 7200, "seek_max_ms": 15.0, "transfer_mbps": 120.0, "flush_ms": 4.0}


# ------------------------------------------------------------------------------ parameters, job file

@pytest.mark.parametrize("bad,words", [
    ("rpm=3600", ["rpm=3600", ">= 5400"]),
    ("flush_ms=0", ["flush_ms=0", "below the minimum 0.5"]),
    ("transfer_mbps=1000", ["transfer_mbps=1000", "<= 250"]),
    ("phase=2s", ["phase=2s", ">= 5s"]),
    ("queue=sptf", ["unknown parameter 'queue'"]),
])
def test_bad_parameters_are_refused(manifest, bad, words):
    with pytest.raises(params_mod.ParamError) as e:
        params_mod.resolve(manifest.lab("disk-model"), "smoke", [bad], budget={})
    for w in words:
        assert w in str(e.value)


def test_presets_resolve(manifest):
    m = manifest.lab("disk-model")
    assert params_mod.resolve(m, "smoke", budget={})["phase"] == 10.0
    assert params_mod.resolve(m, "full", budget={})["phase"] == 40.0


def test_job_file_points_each_experiment_at_its_own_disk(lab, manifest):
    s = SimpleNamespace(params=DEFAULTS, lab=manifest.lab("disk-model"))
    jf = lab.job_file(s)
    assert jf.jobs() == list(lab.PHASES)
    assert jf.get("global", "runtime") == "10" and jf.get("global", "direct") == "1"
    assert jf.get("random", "filename") == "/plain/random" and jf.get("stroke", "filename") == "/slice/stroke"
    assert jf.get("write-on", "filename") == "/cached/write-on" and jf.get("flush-on", "fdatasync") == "1"
    assert jf.get("write-off", "filename") == "/plain/write-off" and jf.get("write-on", "rate_iops") == "500"
    assert jf.get("dsync-on", "sync") == "dsync" and jf.get("seq", "bs") == "128k"
    assert all(jf.get(ph, "stonewall", "absent") is None for ph in list(lab.PHASES)[1:])   # one after another
    assert jf.get("stroke", "size") == str(64 << 20)


def test_disk_models_per_mount(lab):
    plain, sl, cached = (lab.disk_model(DEFAULTS, k) for k in ("plain", "slice", "cached"))
    assert not plain.write_cache and cached.write_cache and sl.capacity == lab.SLICE_CAPACITY
    assert plain.rotation_ms == pytest.approx(60_000 / DEFAULTS["rpm"])   # one revolution, in ms
    assert plain.mean_seek_ms == pytest.approx(0.5 + 14.5 * 8 / 15)
    assert "write_cache=on" in cached.to_options()


# ------------------------------------------------------------------------------ the model's parts

def test_jumps_start_from_the_mount_and_follow_the_head(lab):
    j = lab.jumps([0, 4096, 1 << 20, 0], [4096, 4096, 8192, 4096])
    assert list(j) == [0, 0, (1 << 20) - 8192, -((1 << 20) + 8192)]


def test_seek_curve_and_far(lab):
    m = lab.disk_model(DEFAULTS)
    cap = 1 << 30
    assert lab.seek_ms(m, [0, cap / 4, cap, 2 * cap], cap) == pytest.approx([0.5, 0.5 + 14.5 / 2, 15.0, 15.0])
    assert list(lab.far(m, [0, 1 << 20, (1 << 20) + 1, -(2 << 20)])) == [False, False, True, True]


def test_band_width_and_ks(lab):
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 8.333, 4000)
    assert lab.band_width(x) == pytest.approx(8.333, rel=0.03)
    assert lab.ks_uniform(x, 8.333) < 1.63 / np.sqrt(len(x))
    assert lab.ks_uniform(x * 0.8, 8.333) > 0.15          # a band too narrow
    assert lab.ks_uniform(np.full(100, 4.0), 8.333) > 0.4   # no spread at all
    assert lab.band_width(x[:5]) != lab.band_width(x[:5])    # too few: NaN


# ------------------------------------------------------------------------------ a synthetic run

#: what crossing FUSE adds to each call (write, read, fdatasync) between fio and the emulated disk
FUSE_US = 45.0
#: how long after a write the next one reaches the disk: the sector has just passed under the head
IDLE_US = 60.0
WRITE_BS = 4096


def simulate(lab, p, n=1500, fuse_us=FUSE_US, idle_us=IDLE_US, seed=0):
    """Per experiment, (fio rows, device rows, ddir) drawn from slowdisk's rules at queue depth 1."""
    rng = np.random.default_rng(seed)
    m = lab.disk_model(p)
    rot, xfer = m.rotation_ms, lambda b: b / (m.transfer_mbps * 1e3)
    into_cache_ms = WRITE_BS / (lab.disk_model(p, "cached").cache_mbps * 1e3)   # the write cache's rate
    out = {}
    for ph in ("random", "stroke"):
        size = lab.PHASES[ph][1]
        cap = lab.SLICE_CAPACITY if ph == "stroke" else size
        off = rng.integers(0, size // 4096, n) * 4096
        j = lab.jumps(off, np.full(n, 4096))
        svc = np.where(lab.far(m, j), lab.seek_ms(m, j, cap) + rng.uniform(0, rot, n), m.near_ms) + xfer(4096)
        out[ph] = (off, np.full(n, 4096), svc, 0)
    out["seq"] = (np.arange(n) * 131072, np.full(n, 131072), np.full(n, xfer(131072)), 0)
    for ph in ("write-off", "write-on", "dsync-on", "flush-on"):
        off = np.arange(n) * WRITE_BS
        if ph in ("write-on", "flush-on"):    # into the cache
            svc = np.full(n, into_cache_ms)
        else:                                 # the sector has just passed: wait for it to come round
            svc = np.full(n, rot - idle_us / 1000 + xfer(WRITE_BS))
        out[ph] = (off, np.full(n, WRITE_BS), svc, 1)
    return out, fuse_us


def write_run(lab, p, tmp_path, analysed_as=None, **kw):
    """The synthetic run's files, with a run.json whose parameters (`analysed_as`, else `p`) the
    lab's load reads back, as from a live run."""
    sim, fuse_us = simulate(lab, p, **kw)
    fdir, ddir = tmp_path / "fio", tmp_path / "device"
    fdir.mkdir()
    (tmp_path / "run.json").write_text(json.dumps({"params": analysed_as or p}))
    epoch = 1_700_000_000_000
    for mount in lab.MOUNTS:
        (ddir / mount).mkdir(parents=True)
        (ddir / mount / "mount.epoch_ms").write_text(f"{epoch}\n")
    t = epoch + 1000.0
    jobs = []
    for k, (ph, (off, bs, svc, dd)) in enumerate(sim.items(), 1):
        flush = p["flush_ms"] if ph == "flush-on" else 0.0
        app = svc + fuse_us / 1000
        fio_lines, dev_lines = [], []
        for o, b, sv, a in zip(off, bs, svc, app):
            t += sv + fuse_us / 1000
            fio_lines.append(f"{int(t)}, {int(a * 1e6)}, {dd}, {b}, {o}, 0\n")
            dev_lines.append(f"{int(t - epoch)}, {int(sv * 1e6)}, {dd}, {b}, {o}, 0\n")
            if flush:
                t += flush + fuse_us / 1000
                dev_lines.append(f"{int(t - epoch)}, {int(flush * 1e6)}, 3, 0, 0, 0\n")
        (fdir / f"{ph}_clat.{k}.log").write_text("".join(fio_lines))
        (ddir / lab.PHASES[ph][0] / f"{ph}.log").write_text("".join(dev_lines))
        per = float(np.mean(app)) + (flush + fuse_us / 1000 if flush else 0.0)
        d = {"total_ios": len(off), "iops": 1000 / per, "bw_bytes": 1000 / per * float(bs[0]), "runtime": 1000,
             "clat_ns": {"mean": float(np.mean(app)) * 1e6, "percentile": {"50.000000": float(np.median(app)) * 1e6}}}
        job = {"jobname": ph, "read" if dd == 0 else "write": d}
        if flush:
            job["sync"] = {"total_ios": 0, "lat_ns": {"N": len(off), "mean": (flush + fuse_us / 1000) * 1e6}}   # as fio 3.33
        jobs.append(job)
    (fdir / "components.json").write_text(json.dumps({"fio version": "fio-3.33", "jobs": jobs}))
    return lab.load(tmp_path)


def test_analysis_of_a_run_drawn_from_the_model(lab, tmp_path):
    p = DEFAULTS
    d = write_run(lab, p, tmp_path)
    m = lab.summary(d)
    assert m["random_iops_ratio"] == pytest.approx(1.0, abs=0.04)
    assert m["textbook_disk"] and 75 <= m["random_iops"] <= 90
    assert m["seek_fit_ratio"] == pytest.approx(1.0, abs=0.08)
    assert m["stroke_band_ratio"] == pytest.approx(1.0, abs=0.06)
    assert m["stroke_device_band_ratio"] == pytest.approx(1.0, abs=0.06)
    assert m["stroke_ks"] <= m["stroke_ks_limit"]
    assert m["seq_device_ratio"] == pytest.approx(1.0, abs=0.01)
    assert 0.9 < m["seq_fio_ratio"] < 1.0 and m["seq_spread"] == pytest.approx(1.0, abs=0.01)
    assert m["fuse_p50_us"] == pytest.approx(FUSE_US, abs=1) and m["fuse_negative_share"] == 0 and m["fuse_unpaired"] == 0
    # the writes the simulation drew: to the platter after waiting most of a turn for the sector, or
    # into the write cache at its rate
    plain, cached = lab.disk_model(p, "plain"), lab.disk_model(p, "cached")
    to_platter_ms = plain.rotation_ms - IDLE_US / 1000 + WRITE_BS / (plain.transfer_mbps * 1e3)
    into_cache_ms = WRITE_BS / (cached.cache_mbps * 1e3)
    fuse_ms = FUSE_US / 1000
    assert m["write_off_dev_ms"] == pytest.approx(to_platter_ms, abs=1e-4)
    assert m["write_on_dev_ms"] == pytest.approx(into_cache_ms, abs=1e-4) and m["write_on_flushes"] == 0
    assert m["dsync_on_dev_ms"] == m["write_off_dev_ms"] and m["dsync_on_flushes"] == 0
    assert m["flush_on_dev_flush_ms"] == pytest.approx(p["flush_ms"]) and m["flush_on_flushes"] == m["flush_on_writes"]
    # fio's write (into the cache, through FUSE) then its fdatasync (the flush, through FUSE again)
    assert m["flush_on_durable_ms"] == pytest.approx((into_cache_ms + fuse_ms) + (p["flush_ms"] + fuse_ms), abs=1e-4)
    # the cache saves what the platter write costs over the cache write, in revolutions
    assert m["cache_gain_rev"] == pytest.approx((to_platter_ms - into_cache_ms) / plain.rotation_ms, abs=1e-3)
    t = lab.components(m, p)
    assert list(t.index)[:3] == ["seek", "rotational delay", "transfer"]
    hm, t0 = lab.phase_map(d, p)
    assert hm.total == sum(len(a) for a in d["app"].values())
    assert lab.stroke_map(d, p).total == len(d["app"]["stroke"])


def test_a_band_too_narrow_is_seen(lab, tmp_path):
    """A disk whose rotational delay covered only 80% of a revolution fails the width and KS measures."""
    p = DEFAULTS
    d = write_run(lab, {**p, "rpm": 9000}, tmp_path, analysed_as=p)   # logs drawn at 9000 RPM, analysed as 7200
    m = lab.summary(d)
    assert m["stroke_band_ratio"] < 0.85 and m["stroke_ks"] > m["stroke_ks_limit"]


def test_pairing_skips_io_whose_offsets_disagree(lab):
    import pandas as pd

    app = pd.DataFrame({"offset": [0, 4096, 8192], "lat_ns": [150_000, 160_000, 170_000]})
    dev = pd.DataFrame({"offset": [0, 4096, 12288], "lat_ns": [100_000, 100_000, 100_000]})
    assert list(lab.fuse_overhead_us(app, dev)) == [50.0, 60.0]


# ------------------------------------------------------------------------------ live

@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long   # a second disk-model run through the smoke run's path (about a minute)
def test_off_the_textbook_disk_the_model_checks_still_hold(docker_ok, artifacts):
    """A 15,000 RPM disk with short seeks: the checks against the run's own model pass, and the
    textbook's 7200 RPM check is not made."""
    r = perflab_cmd("run", "disk-model", "--preset", "smoke", "-p", "rpm=15000", "-p", "seek_max_ms=7",
                    "-p", "phase=6s")
    (artifacts / "run.txt").write_text(f"exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
    run_dir = ROOT / "data" / "runs" / r.stdout.strip().splitlines()[-1].split("/")[-1]
    doc = json.loads((run_dir / "run.json").read_text())
    (artifacts / "run.json").write_text(json.dumps(doc, indent=2))
    assert r.returncode == 0, r.stderr[-3000:]
    names = {c["name"] for c in doc["checks"]}
    assert not any(failed(c) for c in doc["checks"]), doc["checks"]
    assert not any("textbook" in n for n in names)
    assert doc["metrics"]["rotation_ms"] == pytest.approx(4.0) and doc["metrics"]["random_iops"] > 100
    assert perflab_cmd("clean", "--check").returncode == 0
