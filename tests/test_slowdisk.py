"""slowdisk: the emulated disk's latency model, measured through a real FUSE mount with fio.

Each fio run lasts a few seconds at most; the whole file takes well under a minute.
Skipped, with the reason, where /dev/fuse, fio or the build is unavailable.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from perflab.infra import slowdisk as sd
from perflab.infra.ledger import is_mounted
from perflab.fio.logs import loads_fio_json, read_lat_log

FIO = shutil.which("fio") or "/usr/bin/fio"
DISK_BYTES = 256 << 20


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def binary() -> Path:
    why = sd.fuse_available()
    if why:
        pytest.skip(f"slowdisk needs FUSE: {why}")
    if not os.path.exists(FIO):
        pytest.skip("fio is not installed (apt-get install fio)")
    try:
        return sd.find_binary()
    except sd.SlowdiskError as exc:
        pytest.skip(f"slowdisk cannot be built here: {exc}")


@pytest.fixture(scope="module")
def backing(tmp_path_factory) -> Iterator[Path]:
    """Two sparse 256 MiB disks, shared by the tests of this file (each mounts them anew).

    Read once here so the backing files sit in the page cache: the emulator's service
    time is max(model, real I/O), and a cold first read of the backing file (on a fresh VM,
    first-touch page faults) would otherwise slow the first stream down."""
    b = tmp_path_factory.mktemp("slowdisk") / "backing"
    b.mkdir()
    for name in ("d0", "d1"):
        with open(b / name, "wb") as f:
            f.truncate(DISK_BYTES)          # sparse: no real I/O behind the emulated disk
        with open(b / name, "rb", buffering=0) as f:
            while f.read(1 << 20):
                pass
    yield b
    shutil.rmtree(b.parent, ignore_errors=True)     # 512 MiB of (sparse) page cache


def fio(*args: str, timeout: float = 60) -> dict:
    """Run fio with JSON output; returns the report (group_reporting merges jobs)."""
    cmd = [FIO, "--output-format=json", "--group_reporting=1", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stdout}\n{r.stderr}"
    return loads_fio_json(r.stdout)


def job(report: dict, ddir: str = "read") -> dict:
    return report["jobs"][0][ddir]


def common(path: Path | str, *more: str) -> list[str]:
    return ["--name=t", f"--filename={path}", "--direct=1", "--ioengine=psync",
            f"--size={DISK_BYTES}", "--randrepeat=1", *more]


# --------------------------------------------------------------------------- no mount

def test_model_validate_names_parameter_value_and_range():
    sd.DiskModel().validate()
    for kwargs, name in [({"rpm": 100}, "rpm"), ({"seek_min_ms": -1}, "seek_min_ms"),
                         ({"seek_max_ms": 0.1}, "seek_max_ms"), ({"queue": "lifo"}, "queue"),
                         ({"transfer_mbps": float("nan")}, "transfer_mbps"),
                         ({"write_cache": "yes"}, "write_cache"), ({"capacity": 12}, "capacity"),
                         ({"cache_bytes": 0}, "cache_bytes"), ({"seed": -1}, "seed")]:
        with pytest.raises(ValueError) as err:
            sd.DiskModel(**kwargs).validate()
        msg = str(err.value)
        assert f"DiskModel.{name}=" in msg and repr(kwargs[name]) in msg and "allowed" in msg, msg


def test_expected_service_ms_model():
    m = sd.DiskModel()
    assert m.mean_seek_ms == pytest.approx(0.5 + 14.5 * 8 / 15)
    assert sd.expected_service_ms(m, "read", 131072) == pytest.approx(131072 / 120e3)
    assert sd.expected_service_ms(m, "fsync") == 4.0
    assert sd.expected_service_ms(m, "write", 8192) == pytest.approx(60000 / 7200 + 8192 / 120e3)
    rr = sd.expected_service_ms(m, "randread", 8192, file_size=DISK_BYTES)
    # whole-file random: mean seek + half a revolution + transfer, a bit less for near jumps
    assert 12.0 < rr < m.mean_seek_ms + 60000 / 7200 / 2 + 0.07 + 0.01
    short = sd.expected_service_ms(sd.DiskModel(capacity=64 << 30), "randread", 8192,
                                   file_size=DISK_BYTES)
    assert 4.5 < short < 6.0          # short-stroked: rotation dominates
    # seek_avg_ms is the alternative way to give the curve
    m2 = sd.DiskModel(seek_avg_ms=m.mean_seek_ms)
    assert m2.full_stroke_ms == pytest.approx(15.0)
    assert "seek_avg_ms=" in m2.to_args()[1] and "seek_max_ms" not in m2.to_args()[1]
    assert sd.expected_service_ms(sd.DiskModel(nodelay=True), "randread", file_size=1 << 20) == 0
    with pytest.raises(ValueError, match="pattern='zigzag'"):
        sd.expected_service_ms(m, "zigzag")


def refuse(binary: Path, tmp_path: Path, opt: str) -> subprocess.CompletedProcess:
    """Start slowdisk with a bad option; it must exit before mounting (unmounted if not)."""
    (tmp_path / "b").mkdir()
    mp = tmp_path / "m"
    mp.mkdir()
    try:
        return subprocess.run([str(binary), str(tmp_path / "b"), str(mp), "-f", "-o", opt],
                              capture_output=True, text=True, timeout=10)
    finally:
        mounted_anyway = is_mounted(str(mp))
        if mounted_anyway:
            sd.mount._unmount(str(mp))
        assert not mounted_anyway, f"-o {opt} was accepted and mounted"


@pytest.mark.parametrize("opt, shown", [
    ("rpm=abc", "rpm=abc"), ("rpm=100", "rpm=100"), ("seek_min_ms=-1", "seek_min_ms=-1"),
    ("seek_max_ms=0.1", "seek_max_ms=0.1"), ("near_bytes=12x", "near_bytes=12x"),
    ("write_cache=maybe", "write_cache=maybe"), ("queue=lifo", "queue=lifo"),
    ("transfer_mbps=inf", "transfer_mbps=inf"), ("seed=-3", "seed=-3"),
    ("log_dir=/nonexistent/dir", "log_dir=/nonexistent/dir"),
    ("seek_avg_ms=8,seek_max_ms=15", "seek_avg_ms=8"),
])
def test_bad_options_refused(binary, tmp_path, opt, shown):
    r = refuse(binary, tmp_path, opt)
    assert r.returncode == 2, r.stderr
    assert shown in r.stderr and "allowed" in r.stderr, r.stderr


def test_unknown_option_refused(binary, tmp_path):
    r = refuse(binary, tmp_path, "bogus_knob=1")
    assert r.returncode != 0 and "bogus_knob" in r.stderr, r.stderr


# --------------------------------------------------------------------------- mounted

def test_mount_lifecycle_and_cleanup_on_exception(binary, backing, tmp_path):
    mp = tmp_path / "mnt"
    with pytest.raises(RuntimeError, match="boom"):
        with sd.mounted(backing, mp) as m:
            pid = m.pid
            assert is_mounted(str(mp))
            assert {"d0", "d1"} <= set(os.listdir(mp))
            (mp / "new").write_bytes(b"x" * 10000)        # pass-through: create, write, read
            assert (backing / "new").read_bytes() == b"x" * 10000
            assert (mp / "new").read_bytes() == b"x" * 10000
            (mp / "new").unlink()
            raise RuntimeError("boom")
    assert not is_mounted(str(mp))
    assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    assert "disk new:" in m.stderr()       # per-disk totals printed at unmount


def test_sequential_read_streams_at_transfer_rate(binary, backing, tmp_path):
    with sd.mounted(backing, tmp_path / "mnt") as m:
        rep = fio(*common(m.disk("d0"), "--rw=read", "--bs=128k", "--runtime=2", "--time_based"))
        seq_mbps = job(rep)["bw_bytes"] / 1e6
        rnd = fio(*common(m.disk("d1"), "--rw=randread", "--bs=128k", "--runtime=1.5",
                          "--time_based"))
        rnd_mbps = job(rnd)["bw_bytes"] / 1e6
    # the same reads through a pass-through mount: what FUSE itself costs on this machine, now
    with sd.mounted(backing, tmp_path / "mnt-pass", sd.DiskModel(nodelay=True)) as m:
        bare = fio(*common(m.disk("d0"), "--rw=read", "--bs=128k", "--runtime=2", "--time_based"))
        bare_mbps = job(bare)["bw_bytes"] / 1e6
    # model 120 MB/s: a 128 KiB read takes its transfer time, plus at most the FUSE round trip this
    # run measured (they overlap in part), and never less than the transfer time
    bs = 128 * 1024
    t_model, t_fuse, t_seen = bs / 120e6, bs / (bare_mbps * 1e6), bs / (seq_mbps * 1e6)
    assert 0.98 * t_model <= t_seen <= 1.1 * (t_model + t_fuse), (seq_mbps, bare_mbps)
    assert seq_mbps > 5 * rnd_mbps, (seq_mbps, rnd_mbps)


def test_random_read_whole_disk_matches_model(binary, backing, tmp_path):
    model = sd.DiskModel()
    expect = sd.expected_service_ms(model, "randread", 8192, file_size=DISK_BYTES)
    with sd.mounted(backing, tmp_path / "mnt", model, log_dir=tmp_path / "logs") as m:
        rep = fio(*common(m.disk("d0"), "--rw=randread", "--bs=8k", "--runtime=3",
                          "--time_based"))
    r = job(rep)
    mean_ms = r["clat_ns"]["mean"] / 1e6
    p50_ms = r["clat_ns"]["percentile"]["50.000000"] / 1e6
    # a 7200 RPM disk over its whole span: ~80 IOPS, mean ~12.4 ms
    assert 65 <= r["iops"] <= 100, r["iops"]
    assert abs(mean_ms - expect) / expect < 0.12, (mean_ms, expect)
    assert 7 <= p50_ms <= 16, p50_ms
    dev = sd.read_device_log(tmp_path / "logs" / "d0.log")
    assert dev.attrs["disk"] == "d0"
    assert abs(dev["lat_ns"].mean() / 1e6 - expect) / expect < 0.12


def test_random_read_short_stroke_120_to_200_iops(binary, backing, tmp_path):
    """The file is a 256 MiB slice of a 64 GiB disk: seeks are short, rotation dominates."""
    model = sd.DiskModel(capacity=64 << 30)
    expect = sd.expected_service_ms(model, "randread", 8192, file_size=DISK_BYTES)
    with sd.mounted(backing, tmp_path / "mnt", model) as m:
        r = job(fio(*common(m.disk("d0"), "--rw=randread", "--bs=8k", "--runtime=2.5",
                            "--time_based")))
    p50_ms = r["clat_ns"]["percentile"]["50.000000"] / 1e6
    assert 120 <= r["iops"] <= 200, r["iops"]
    assert 3 <= p50_ms <= 9, p50_ms
    assert abs(r["clat_ns"]["mean"] / 1e6 - expect) / expect < 0.12


def test_flush_costs_flush_ms(binary, backing, tmp_path):
    model = sd.DiskModel(flush_ms=6.0)
    with sd.mounted(backing, tmp_path / "mnt", model, log_dir=tmp_path / "logs") as m:
        rep = fio(*common(m.disk("d0"), "--rw=write", "--bs=8k", "--fsync=1",
                          "--number_ios=60"))
    sync = rep["jobs"][0]["sync"]["lat_ns"]
    assert sync["N"] >= 50
    dev = sd.read_device_log(tmp_path / "logs" / "d0.log")
    flushes = dev[dev["ddir"] == 3]
    assert len(flushes) == sync["N"]
    assert (flushes["bs"] == 0).all()
    # the model: a flush takes flush_ms on the disk (the median: late wake-ups of a busy machine add a
    # tail, not a shift); fio never sees one end sooner, and sees the disk's own times plus a FUSE
    # round trip, judged against the disk's mean in the same run rather than a fixed 6.4 ms
    assert flushes["lat_ns"].median() / 1e6 == pytest.approx(6.0, abs=0.1)
    assert 6.0 <= sync["mean"] / 1e6 <= flushes["lat_ns"].mean() / 1e6 + 0.4, (sync["mean"], flushes["lat_ns"].mean())


def test_write_cache_on_makes_sequential_sync_writes_cheaper(binary, backing, tmp_path):
    res = {}
    for wc in (False, True):
        with sd.mounted(backing, tmp_path / f"mnt{int(wc)}", sd.DiskModel(write_cache=wc)) as m:
            plain = job(fio(*common(m.disk("d0"), "--rw=write", "--bs=8k", "--runtime=1.5",
                                    "--time_based")), "write")
            synced = fio(*common(m.disk("d1"), "--rw=write", "--bs=8k", "--fsync=1",
                                 "--number_ios=40"))
        res[wc] = (plain["clat_ns"]["mean"] / 1e6,
                   job(synced, "write")["clat_ns"]["mean"] / 1e6
                   + synced["jobs"][0]["sync"]["lat_ns"]["mean"] / 1e6)
    m_off = sd.DiskModel()
    # cache off: each sequential write waits ~1 revolution for its sector to come round
    assert res[False][0] == pytest.approx(sd.expected_service_ms(m_off, "write"), rel=0.1)
    assert res[True][0] < res[False][0] / 20, res
    # write + fsync pairs: the cache saves the missed revolution, the flush remains
    assert res[True][1] < res[False][1] - 5, res
    assert res[True][1] == pytest.approx(
        sd.expected_service_ms(sd.DiskModel(write_cache=True), "write_fsync"), abs=0.5)


def test_two_disks_run_in_parallel_one_disk_serializes(binary, backing, tmp_path):
    model = sd.DiskModel(capacity=64 << 30)      # short stroke: more I/Os in the time
    single = 1000 / sd.expected_service_ms(model, "randread", 8192, file_size=DISK_BYTES)
    with sd.mounted(backing, tmp_path / "mnt", model, log_dir=tmp_path / "logs",
                    log_wait=True) as m:
        two = job(fio("--name=a", f"--filename={m.disk('d0')}", "--name=b",
                      f"--filename={m.disk('d1')}", "--direct=1", "--rw=randread", "--bs=8k",
                      f"--size={DISK_BYTES}", "--runtime=2", "--time_based"))
        same = job(fio("--name=a", "--numjobs=2", f"--filename={m.disk('d0')}", "--direct=1",
                       "--rw=randread", "--bs=8k", f"--size={DISK_BYTES}", "--runtime=2",
                       "--time_based"))
    assert two["iops"] >= 1.7 * single, (two["iops"], single)
    assert same["iops"] <= 1.25 * single, (same["iops"], single)
    logs = sd.read_device_logs(tmp_path / "logs")
    assert set(logs["disk"]) == {"d0", "d1"} and "wait_ns" in logs
    # two jobs on one actuator: each I/O waits about one service time for the other
    w = logs[(logs["disk"] == "d0") & (logs["time_ms"] > logs["time_ms"].max() - 1500)]
    assert w["wait_ns"].median() > 0.5 * w["lat_ns"].median()


def test_one_device_log_line_per_io_with_sizes(binary, backing, tmp_path):
    """number_ios=N (prime) reads -> exactly N log lines, at fio's own offsets and sizes."""
    logs = tmp_path / "logs"
    with sd.mounted(backing, tmp_path / "mnt", sd.DiskModel(nodelay=True), log_dir=logs) as m:
        fio(*common(m.disk("d0"), "--rw=randread", "--bs=8k", "--number_ios=97",
                    f"--write_lat_log={tmp_path / 'fio'}", "--log_offset=1"))
        fio(*common(m.disk("d1"), "--rw=write", "--bs=128k", "--number_ios=13"))
        fio(*common(m.disk("d1"), "--rw=write", "--bs=1m", "--number_ios=3", "--offset=64m"))
    d0 = sd.read_device_log(logs / "d0.log")
    assert len(d0) == 97 and (d0["ddir"] == 0).all() and (d0["bs"] == 8192).all()
    mine = read_lat_log(tmp_path / "fio_clat.1.log")
    assert sorted(d0["offset"]) == sorted(mine["offset"])
    d1 = sd.read_device_log(logs / "d1.log")
    assert list(d1["bs"]) == [131072] * 13 + [1 << 20] * 3      # no 4 KiB splitting
    assert list(d1["offset"][:13]) == [i * 131072 for i in range(13)]
    assert (d1["ddir"] == 1).all()
    assert (np.diff(d0["time_ms"]) >= 0).all()


def test_seed_makes_rotational_delays_reproducible(binary, backing, tmp_path):
    def service(seed: int) -> np.ndarray:
        logs = tmp_path / f"logs{seed}-{len(list(tmp_path.iterdir()))}"
        with sd.mounted(backing, tmp_path / "mnt", sd.DiskModel(seed=seed), log_dir=logs) as m:
            fio(*common(m.disk("d0"), "--rw=randread", "--bs=8k", "--number_ios=40",
                        "--randseed=7"))
        return sd.read_device_log(logs / "d0.log")["lat_ns"].to_numpy() / 1e6

    a, b, c = service(5), service(5), service(6)
    same, other = np.abs(a - b), np.abs(a - c)
    # the same seed: equal but for timer jitter (a VM sometimes wakes a thread ~ms late, more so on a
    # busy machine, so no fixed bound on it); different seeds differ by a third of a revolution on
    # average (~2.8 ms). Judged against the run's own baseline, the other seed: the same seed's I/Os
    # agree an order of magnitude better in the median, and most of them agree better one by one
    assert np.median(same) * 10 < np.median(other), (same, other)
    assert (same < other).mean() >= 0.75, (same, other)
    assert np.median(other) > 1.0, other


def test_sptf_queue_beats_fifo_at_queue_depth_8(binary, backing, tmp_path):
    iops = {}
    for q in ("fifo", "sptf"):
        with sd.mounted(backing, tmp_path / f"mnt-{q}", sd.DiskModel(queue=q)) as m:
            iops[q] = job(fio(*common(m.disk("d0"), "--rw=randread", "--bs=8k", "--ioengine=libaio",
                                      "--iodepth=8", "--runtime=2", "--time_based")))["iops"]
    assert iops["fifo"] == pytest.approx(1000 / sd.expected_service_ms(
        sd.DiskModel(), "randread", file_size=DISK_BYTES), rel=0.15)
    assert iops["sptf"] > 1.25 * iops["fifo"], iops


def test_sigterm_unmounts_and_flushes_the_log(binary, backing, tmp_path):
    logs = tmp_path / "logs"
    with sd.mounted(backing, tmp_path / "mnt", sd.DiskModel(nodelay=True), log_dir=logs) as m:
        fio(*common(m.disk("d0"), "--rw=randread", "--bs=4k", "--number_ios=1009"))
        os.kill(m.pid, 15)
        m.proc.wait(timeout=10)
        assert not is_mounted(str(m.mountpoint))
    assert m.proc.returncode == 0
    assert len(sd.read_device_log(logs / "d0.log")) == 1009
