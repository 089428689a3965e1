"""The streaming lab's logic without Docker: layouts, the amplification arithmetic and the
disk-bound prediction, and the analysis on a synthetic run (device logs + fio results) whose
back-end bytes are known."""
import json
from pathlib import Path

import pytest

from perflab.config import manifest

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000


def lab():
    return manifest.load(ROOT).lab("streaming").load_module()


def test_layouts():
    L = lab()
    d = ["a", "b", "c", "d", "e", "f"]
    assert L.layout_vdevs("mirror", d) == ["mirror", "a", "b", "mirror", "c", "d", "mirror", "e", "f"]
    assert L.layout_vdevs("raidz2", d) == ["raidz2", *d]
    with pytest.raises(ValueError):
        L.layout_vdevs("mirror", d[:5])
    with pytest.raises(ValueError):
        L.layout_vdevs("raidz2", d[:3])
    with pytest.raises(ValueError):
        L.layout_vdevs("raidz3", d)


def test_amplification_and_disk_bound_prediction():
    L = lab()
    assert L.expected_amplification("mirror", 6) == 2.0
    assert L.expected_amplification("raidz2", 6) == pytest.approx(1.5)
    assert L.expected_amplification("raidz2", 4) == pytest.approx(2.0)
    assert L.expected_amplification("raidz2", 8) == pytest.approx(4 / 3)
    # six disks moving 60 MB/s in all: mirrors accept 30, RAID-Z2 40
    assert L.predicted_front_mbps(60, "mirror", 6) == pytest.approx(30)
    assert L.predicted_front_mbps(60, "raidz2", 6) == pytest.approx(40)


def test_disk_models_are_valid():
    L = lab()
    for disk in ("streaming", "7200rpm"):
        m = L.disk_model({"disk": disk, "disk_mbps": 10.0})
        assert m.transfer_mbps == 10.0
    assert L.disk_model({"disk": "streaming", "disk_mbps": 10.0}).rpm == 0


def _fio_json(ddir, bytes_per_job, runtime_ms, jobs=2):
    empty = {"io_bytes": 0, "bw_bytes": 0, "runtime": 0, "total_ios": 0}
    js = []
    for i in range(jobs):
        d = {"io_bytes": bytes_per_job, "bw_bytes": bytes_per_job * 1000 // runtime_ms, "runtime": runtime_ms,
             "total_ios": bytes_per_job // 131072}
        js.append({"jobname": "j", "read": d if ddir == "read" else empty, "write": d if ddir == "write" else empty})
    return {"fio version": "fio-3.33", "jobs": js}


def _device_log(path, rows):
    path.write_text("".join(f"{t}, {lat}, {dd}, {bs}, {off}\n" for t, lat, dd, bs, off in rows))


def synthetic_run(tmp_path, n=6, payload=60 * MB, elapsed_s=10.0):
    """A run in which the disks moved exactly the ideal amplification of the payload (mirror: 2x,
    RAID-Z2: n/(n-2)), spread evenly over each write; reads move the payload once."""
    L = lab()
    (tmp_path / "fio").mkdir()
    dev = tmp_path / "device"
    dev.mkdir()
    mount = 1_000_000
    (dev / "mount.epoch_ms").write_text(str(mount))
    events, logs = {}, {f"d{i}": [] for i in range(n)}
    t = mount + 1000
    for lay in L.LAYOUTS:
        ev = {"write": {"start_ms": t, "end_ms": t + int(elapsed_s * 1000)}}
        back = payload * L.expected_amplification(lay, n)
        per_io = back / n / 100
        for i in range(n):
            for k in range(100):   # 100 writes per disk inside the window, each 0.05 s of service
                logs[f"d{i}"].append((t - mount + 10 + k * 90, 50_000_000, 1, int(per_io), k))
        ev["write_synced_ms"] = t + int(elapsed_s * 1000) + 500
        t2 = ev["write_synced_ms"] + 500
        ev["read"] = {"start_ms": t2, "end_ms": t2 + 5000}
        for i in range(n):
            for k in range(10):
                logs[f"d{i}"].append((t2 - mount + 10 + k * 400, 1_000_000, 0, payload // n // 10, k))
        (tmp_path / "fio" / f"{lay}-write.json").write_text(json.dumps(_fio_json("write", payload // 2, int(elapsed_s * 1000))))
        (tmp_path / "fio" / f"{lay}-read.json").write_text(json.dumps(_fio_json("read", payload // 2, 5000)))
        events[lay] = ev
        t = t2 + 6000
    for name, rows in logs.items():
        _device_log(dev / f"{name}.log", sorted(rows))
    (tmp_path / "events.json").write_text(json.dumps(events))
    return L, L.load(tmp_path)


def test_analysis_on_a_synthetic_run(tmp_path):
    L, d = synthetic_run(tmp_path)
    m = L.summary(d)
    assert m["n_disks"] == 6
    assert m["mirror_write_amp"] == pytest.approx(2.0, rel=1e-3)
    assert m["raidz2_write_amp"] == pytest.approx(1.5, rel=1e-3)
    assert m["mirror_write_mbps"] == pytest.approx(6.0)          # 60 MB in 10 s
    assert m["mirror_write_back_mbps"] == pytest.approx(12.0, rel=1e-3)
    assert m["mirror_write_predicted_mbps"] == pytest.approx(6.0, rel=1e-3)
    assert m["mirror_write_busy"] == pytest.approx(0.5)          # 100 x 0.05 s in 10 s
    assert m["mirror_read_amp"] == pytest.approx(1.0, rel=1e-3)
    assert m["mirror_read_over_write"] == pytest.approx(2.0)     # 60 MB in 5 s vs 10 s
    assert m["back_rate_ratio"] == pytest.approx(0.75, rel=1e-3)
    t = L.table(d)
    assert list(t.index) == ["mirror", "raidz2"]
    assert t.loc["raidz2", "ideal"] == pytest.approx(1.5)


def test_backend_window_excludes_other_steps(tmp_path):
    L, d = synthetic_run(tmp_path)
    ev = d["events"]["mirror"]["write"]
    w = L.backend(d["device"], ev["start_ms"], ev["end_ms"], 1)
    assert list(w.index) == [f"d{i}" for i in range(6)]
    assert (w.ios == 100).all()
    assert L.backend(d["device"], ev["start_ms"], ev["end_ms"], 0).bytes.sum() == 0   # no reads then
