"""perflab.infra.nfsserver: the labs' one NFS server, as a service of the topology."""
import types

import pytest

from perflab.infra import nfsserver
from perflab.infra.containers import ContainerFailed


class _Topo:
    def __init__(self):
        self.made, self.connected, self.detached = [], [], []

    def container(self, image, name, command=None, **kw):
        c = types.SimpleNamespace(name=name, image=image, kw=kw, id="c1")
        self.made.append(c)
        return c

    def connect(self, network, c):
        self.connected.append((network, c.name))

    def exec_detached(self, c, cmd):
        self.detached.append(cmd)


def test_the_server_gets_only_its_rights_its_mounts_and_waits_until_ready(tmp_path, monkeypatch):
    waited = []
    monkeypatch.setattr(nfsserver, "wait_for_file", lambda c, path, timeout, what: waited.append((path, timeout)))
    topo = _Topo()
    srv = nfsserver.NfsServer.start(topo, "perflab/ganesha:1", network="lan", export={"vol": "rw"},
                                    conf=tmp_path / "g.conf", log_dir=tmp_path / "log", also_on="hosts")
    kw = topo.made[0].kw
    assert kw["cap_drop"] == ["ALL"] and kw["cap_add"] == nfsserver.CAPS and kw["hostname"] == "server"
    assert kw["volumes"] == {"vol": {"bind": "/export", "mode": "rw"},
                             str(tmp_path / "g.conf"): {"bind": nfsserver.CONF, "mode": "ro"},
                             str(tmp_path / "log"): {"bind": "/log", "mode": "rw"}}
    assert topo.connected == [("hosts", "server")] and waited == [("/run/ganesha-ready", nfsserver.READY_TIMEOUT_S)]
    assert srv.log_dir == tmp_path / "log"


def test_client_statistics_are_on_only_inside_the_block(tmp_path, monkeypatch):
    calls = []

    def exec_sh(c, argv, timeout=None):
        calls.append(argv)
        return 0, ""

    monkeypatch.setattr(nfsserver, "exec_sh", exec_sh)
    monkeypatch.setattr(nfsserver, "wait_until", lambda pred, timeout, what: pred())
    topo = _Topo()
    srv = nfsserver.NfsServer(topo, types.SimpleNamespace(name="server"), tmp_path)
    with srv.client_stats(["::ffff:10.0.0.2"]) as log:
        assert log == tmp_path / "ops.log" and ["nfs-client-stats", "--enable"] in calls
        assert "nfs-client-stats /log/ops.log ::ffff:10.0.0.2" in topo.detached[0][-1]
        assert ["nfs-client-stats", "--disable"] not in calls
    assert calls[-1] == ["nfs-client-stats", "--disable"]
    with pytest.raises(ContainerFailed, match="log directory"):
        with nfsserver.NfsServer(topo, object()).client_stats([]):
            pass
