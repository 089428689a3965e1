"""Parsing the ZFS server's statistics and the Logzilla analysis, on recorded output, and the server's export retried
while the pool is busy (no Docker)."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from perflab.analysis import heatmap
from perflab.infra import zfs

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parent.parent


def lab():
    from perflab.config import manifest

    return manifest.load(ROOT).lab("logzilla").load_module()


def test_parse_zpool_iostat_blocks_vdevs_and_units():
    """zfs-fuse's `zpool iostat -v tank 1`: the first block (since import) is dropped; units K/M."""
    df = zfs.parse_iostat((DATA / "zpool_iostat_v.txt").read_text(), start_ms=1_000_000)
    assert sorted(df.block.unique()) == [1, 2]
    b1 = df[df.block == 1].set_index("vdev")
    assert b1.loc["tank", "kind"] == "pool" and b1.loc["tank", "write_ops"] == 90
    assert b1.loc["tank", "write_bw"] == 551_000 and b1.loc["/disks/d0", "write_bw"] == 264_000
    assert list(df[df.block == 1].kind) == ["pool", "mirror", "disk", "disk", "mirror", "disk", "disk"]
    b2 = df[df.block == 2].set_index("vdev")
    assert b2.loc["/fast/slog", "kind"] == "log" and b2.loc["/fast/slog", "write_ops"] == 51
    assert b2.loc["/fast/slog", "write_bw"] == 3_260_000
    assert (df[df.block == 2].t_epoch_ms == 1_002_000).all()
    # a log device on a slowdisk mount (logzilla's SSD and slow-log variants): zfs-fuse prints it as a
    # top-level vdev with no "logs" heading, as on a real run's iostat
    slow = zfs.parse_iostat((DATA / "zpool_iostat_v.txt").read_text().replace("/fast/slog", f"{zfs.SLOW_LOG_DIR}/slog"))
    assert slow[slow.vdev == f"{zfs.SLOW_LOG_DIR}/slog"].kind.tolist() == ["log"]


def _map(cols):
    """A heat map whose column c holds the (latency_ns, count) pairs of cols[c]."""
    b = heatmap.Buckets.loglinear()
    counts = np.zeros((len(cols), b.n), np.int64)
    for c, items in enumerate(cols):
        for lat, n in items:
            counts[c, b.index(np.array([lat]))[0]] += n
    return heatmap.HeatMap(b.edges_ns, counts)


def test_picket_fence_finds_periodic_stalls():
    cols = [[(150_000, 4000)] for _ in range(40)]
    for c in (3, 8, 13, 18, 23, 28, 33, 38):          # a stall every 5 s
        cols[c].append((30_000_000, 6))         # 200x the median
    cols[20].append((600_000, 3))                # ordinary scatter (4x): not a stall
    pf = lab().picket_fence(_map(cols), 0, 40)
    assert pf["stall_events"] == 8 and pf["period_s"] == 5.0 and pf["spacing_cv"] == 0
    assert abs(pf["fraction"] - 48 / (40 * 4000 + 48 + 3)) < 1e-9


def test_picket_fence_none():
    pf = lab().picket_fence(_map([[(150_000, 4000)] for _ in range(20)]), 0, 20)
    assert pf["stall_events"] == 0 and pf["fraction"] == 0 and pf["period_s"] != pf["period_s"]


def test_recordsize_matches_io_size_within_zfs_limits():
    rs = lab().recordsize
    assert rs(8192) == "8192" and rs(512) == "512" and rs(1 << 20) == "131072"


def _untar_module():
    spec = importlib.util.spec_from_file_location("logzilla_untar", ROOT / "labs" / "logzilla" / "untar.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_untar_archive_is_deterministic_and_unpacks_with_a_create_and_a_commit_per_file(tmp_path):
    """The untar's archive is the same for a seed (so the reader's run unpacks the reference's files);
    extract makes every file, byte for byte, and traces two synchronous steps per file."""
    import tarfile

    ut = _untar_module()
    a, b = tmp_path / "a.tar", tmp_path / "b.tar"
    made = ut.make(str(a), 150, 2009)
    ut.make(str(b), 150, 2009)
    assert a.read_bytes() == b.read_bytes() and made["files"] == 150
    assert ut.make(str(tmp_path / "c.tar"), 150, 7)["bytes"] != made["bytes"]
    dest = tmp_path / "dest"
    dest.mkdir()
    got = ut.extract(str(a), str(dest), str(tmp_path / "t.trace"), str(tmp_path / "s.json"))
    assert got["files"] == 150 and got["bytes"] == made["bytes"] and got["dirs"] == made["dirs"]
    with tarfile.open(a) as tar:
        for m in tar:
            if m.isfile():
                assert (dest / m.name).read_bytes() == tar.extractfile(m).read()
    lines = (tmp_path / "t.trace").read_text().splitlines()
    assert lines[0] == "# time_ns latency_ns op" and len(lines) == 1 + 2 * 150
    assert [ln.split()[2] for ln in lines[1:5]] == ["create", "commit", "create", "commit"]
    # the lab's reading of it: the bpftrace form, split by op
    hm = heatmap.from_trace([tmp_path / "t.trace"], "bpftrace", by="op")
    assert {k: int(v.counts.sum()) for k, v in hm.items()} == {"create": 150, "commit": 150}
    udir = tmp_path / "run" / "untar"
    udir.mkdir(parents=True)
    for n in ("with-log", "no-log"):
        (udir / f"{n}.trace").write_text((tmp_path / "t.trace").read_text())
        (udir / f"{n}.json").write_text((tmp_path / "s.json").read_text())
    st = lab().untar_stats(lab().load_untar(tmp_path / "run"))
    assert st["untar_ratio"] == 1.0 and st["untar_files"] == 150 and 0 < st["untar_sync_share_no_log"] <= 1


def test_the_detected_log_device_is_judged_by_the_runs_own_disks():
    lz = lab()
    before = {"flushes_per_write_before": 2.0, "dev_flush_p50_us_before": 4000.0}
    assert lz.detected_log({**before, "flushes_per_write_after": 2.0}, 9400.0) == "none"
    assert lz.detected_log({**before, "flushes_per_write_after": 0.0}, 4700.0) == "disk"
    assert lz.detected_log({**before, "flushes_per_write_after": 0.0}, 180.0) == "ssd"
    # a run whose disks flush in 40 ms: a 4.7 ms write after the change is no longer a disk's
    assert lz.detected_log({"flushes_per_write_before": 2.0, "dev_flush_p50_us_before": 40000.0,
                            "flushes_per_write_after": 0.0}, 4700.0) == "ssd"
    assert lz.detected_log({"flushes_per_write_before": None}, 100.0) is None


def test_a_run_without_a_log_device_plans_no_untar():
    lz = lab()
    p = {"before": 20.0, "after": 20.0, "untar_files": 600}
    names = lambda q: [n for n, _ in lz.plan(q)]   # noqa: E731
    # the untar without a log device comes before fio, the one with it after: no `zpool remove` between
    for dev in ("ssd", "disk"):
        assert names({**p, "log_device": dev}) == ["pool", "untar-no-log", "before", "after", "untar-with-log",
                                                   "probes", "collect"]
    assert names({**p, "log_device": "none"}) == ["pool", "before", "after", "probes", "collect"]
    assert names({**p, "untar_files": 0, "log_device": "ssd"}) == ["pool", "before", "after", "probes", "collect"]


def _server_answering(answers):
    """A ZfsServer whose exec answers `answers` in turn (no container)."""
    from perflab.infra import zfs

    srv = zfs.ZfsServer(topo=None, container=None, export=Path("/run/perflab/x/export"))   # as start() makes it
    calls = []

    def exec_(cmd, check=True, **kw):
        calls.append(cmd)
        return answers.pop(0)
    srv.exec = exec_
    return srv, calls


def test_export_waits_out_a_busy_pool_and_fails_on_anything_else(monkeypatch):
    from perflab.infra import zfs

    monkeypatch.setattr(zfs.time, "sleep", lambda s: None)
    srv, calls = _server_answering([(1, "cannot export 'tank': pool is busy")] * 2 + [(0, "")])
    srv.export_pool()
    assert calls == [["zpool", "export", "tank"]] * 3
    srv, calls = _server_answering([(1, "cannot open 'tank': no such pool")])
    with pytest.raises(zfs.ExecFailed, match="no such pool"):
        srv.export_pool()
    assert len(calls) == 1
    srv, calls = _server_answering([(1, "cannot export 'tank': pool is busy")] * 3)
    with pytest.raises(zfs.ExecFailed, match="busy"):
        srv.export_pool(within_s=-1)
    assert len(calls) == 1


class _StoppedContainer:
    """A server container whose main process (zfs-fuse) died: stopped until started again."""

    name = "perflab-x-zfs"

    def __init__(self):
        self.status, self.starts = "exited", 0
        self.attrs = {"State": {"ExitCode": 139, "FinishedAt": "2026-11-29T05:23:36Z"}}

    def reload(self):
        pass

    def start(self):
        self.starts += 1
        self.status = "running"


class _Recorder:
    def __init__(self):
        self.prov = {}

    def provenance(self, **kv):
        self.prov.update(kv)


def test_a_crash_at_zpool_create_starts_the_server_again_once_and_is_recorded(monkeypatch):
    from types import SimpleNamespace

    from perflab.infra import zfs

    dropped = []
    monkeypatch.setattr(zfs, "drop_mounts_below", lambda export: dropped.append(export) or ["/x/tank"])
    monkeypatch.setattr(zfs, "wait_until", lambda pred, timeout, what, **kw: pred())
    create = zfs.create_pool_cmd(["mirror", "/disks/d0", "/disks/d1"], {"atime": "off"})
    srv, calls = _server_answering([(137, "Defaulting to 4K blocksize"), (0, ""), (0, "")])
    ctx = _Recorder()
    srv.topo, srv.container = SimpleNamespace(ctx=ctx), _StoppedContainer()
    srv.create_pool(["mirror", "/disks/d0", "/disks/d1"], {"atime": "off"})
    # tried, zfs-fuse answers again after one start, the pool tried again
    assert calls == [create, ["zpool", "list"], create]
    assert srv.container.starts == 1 and dropped == [srv.export]
    assert ctx.prov["zfs_fuse_restarts"] == [{"during": "zpool create tank", "exit_code": 139,
                                              "finished_at": "2026-11-29T05:23:36Z", "dropped_mounts": ["/x/tank"]}]

    # a second crash is not retried
    srv.container.status = "exited"
    calls.clear()
    srv.exec = lambda cmd, check=True, **kw: calls.append(cmd) or (137, "")
    with pytest.raises(zfs.ExecFailed, match="exit 137"):
        srv.create_pool(["mirror", "/disks/d0", "/disks/d1"], {"atime": "off"})
    assert len(calls) == 1 and srv.container.starts == 1


def test_a_failed_zpool_create_with_the_server_up_is_not_retried(monkeypatch):
    from types import SimpleNamespace

    from perflab.infra import zfs

    clock = [0.0]
    monkeypatch.setattr(zfs.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(zfs.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))

    srv, calls = _server_answering([(1, "cannot create 'tank': one or more devices is currently unavailable")])
    srv.topo, srv.container = SimpleNamespace(ctx=None), _StoppedContainer()
    with pytest.raises(zfs.ExecFailed, match="currently unavailable"):   # not killed: not a crash
        srv.create_pool(["/disks/d0"], {})
    assert len(calls) == 1 and srv.container.starts == 0
    # killed, but the server still running: not a crash of zfs-fuse either
    srv, calls = _server_answering([(137, "")])
    srv.topo, srv.container = SimpleNamespace(ctx=None), _StoppedContainer()
    srv.container.status = "running"
    with pytest.raises(zfs.ExecFailed, match="exit 137"):
        srv.create_pool(["/disks/d0"], {})
    assert len(calls) == 1 and srv.container.starts == 0 and 10 < clock[0] < 11   # waited 10 s for it to stop
