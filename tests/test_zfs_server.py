"""The ZFS server against a real zfs-fuse: what it does when zfs-fuse, the container's main process,
dies while a pool is being created (ZfsServer.create_pool; seen once in CI on 2026-11-29)."""
import uuid

import pytest

from perflab.infra import containers, zfs
from perflab.infra.ledger import Ledger
from perflab.infra.slowdisk import DiskModel

pytestmark = pytest.mark.docker


class _Context:
    def __init__(self):
        self.prov = {}

    def provenance(self, **kv):
        self.prov.update(kv)


def test_zfs_fuse_dying_at_zpool_create_is_survived_once_and_recorded(docker_ok, manifest, tmp_path, monkeypatch):
    real = zfs.create_pool_cmd

    def dies_the_first_time(layout, props, name=zfs.POOL):
        # the first `zpool create` kills zfs-fuse with the signal it died of in CI, the second creates
        create = " ".join(real(layout, props, name))
        return ["sh", "-c", f"if [ -e {zfs.BACKING}/died ]; then {create}; else touch {zfs.BACKING}/died; "
                            f"kill -SEGV $(pidof zfs-fuse); sleep 30; fi"]
    monkeypatch.setattr(zfs, "create_pool_cmd", dies_the_first_time)
    run_id = "zfs-crash-" + uuid.uuid4().hex[:6]
    ctx = _Context()
    dev = tmp_path / "device"
    dev.mkdir()
    with zfs.shared_export(Ledger(tmp_path), tmp_path / "export" / run_id) as export:
        with containers.Topology(run_id) as topo:
            topo.ctx = ctx
            srv = zfs.ZfsServer.start(topo, manifest.images["zfs"].tag, export, dev)
            srv.make_disks(2, 1 << 30, DiskModel(rpm=0, seek_min_ms=0.1, seek_max_ms=2.0, transfer_mbps=100,
                                                 seed=3).validate())
            srv.create_pool(["mirror", f"{zfs.DISKS}/d0", f"{zfs.DISKS}/d1"], {"atime": "off"})
            health = srv.sh(f"zpool list -H -o health {zfs.POOL}").strip()
            mounted = f" {zfs.EXPORT}/{zfs.POOL} fuse.zfs " in srv.sh("cat /proc/mounts")
            srv.stop()
    assert health == "ONLINE" and mounted
    (event,) = ctx.prov["zfs_fuse_restarts"]
    assert event["during"] == f"zpool create {zfs.POOL}" and event["exit_code"] == 128 + 11   # SIGSEGV
