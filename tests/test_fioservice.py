"""perflab.infra.fioservice: every fio a client runs starts from fio.jobs.command (so a watched run
lists it), its result is NAME.json either way, and a failure is named by its cause."""
import json
import types

import pytest

from perflab.config.options import RunOptions
from perflab.errors import DiskFull
from perflab.infra import containers, fioservice
from perflab.infra.containers import ContainerFailed
from support.labctx import ctx


class _Topo:
    """Topology as far as FioClient goes: records the containers asked for."""

    def __init__(self, live_list=None):
        self.live_list, self.made, self.removed = live_list, [], []

    def container(self, image, name, command=None, **kw):
        c = types.SimpleNamespace(name=name, command=command, kw=kw)
        self.made.append(c)
        return c

    def remove(self, c):
        self.removed.append(c)


def _fio_report(path, ios=10):
    path.write_text(json.dumps({"fio version": "fio-3.33", "jobs": [{"jobname": "j", "read": {"total_ios": ios}}]}))


def test_a_client_runs_fio_from_the_one_command_builder_and_keeps_its_output(tmp_path, monkeypatch):
    topo = _Topo()
    seen = []

    def exec_sh(c, argv, timeout):
        seen.append((argv, timeout))
        _fio_report(tmp_path / "job.json")
        return 0, ""

    monkeypatch.setattr(fioservice, "exec_sh", exec_sh)
    client = fioservice.FioClient.start(topo, "perflab/fio:1", "fio", tmp_path, cpuset_cpus="1")
    assert topo.made[0].command == ["sleep", "infinity"] and topo.made[0].kw["network_mode"] == "none"
    assert topo.made[0].kw["volumes"][str(tmp_path.resolve())] == {"bind": "/out", "mode": "rw"}
    r = client.run("job.fio", "job", timeout=30, then="cat /proc/$$/io > job.io")
    (argv, timeout), = seen
    assert argv[:2] == ["sh", "-c"] and timeout == 30
    assert argv[2].startswith("fio --output-format=json --output=job.json job.fio > job.stdout.txt 2>&1; rc=$?; ")
    assert argv[2].endswith("cat /proc/$$/io > job.io; exit $rc")
    assert r.result == tmp_path / "job.json" and r.end_ms >= r.start_ms


def test_a_watched_client_reports_every_second_and_lists_the_job(manifest, tmp_path, monkeypatch):
    c = ctx(manifest, tmp_path, options=RunOptions(live=True))
    topo = containers.Topology(c, client=object())
    out = tmp_path / "fio"
    out.mkdir()

    def exec_sh(cont, argv, timeout):
        assert "--status-interval=1" in argv[2] and "--output=job.status.json" in argv[2]
        _fio_report(out / "job.status.json", ios=7)
        return 0, ""

    monkeypatch.setattr(fioservice, "exec_sh", exec_sh)
    monkeypatch.setattr(topo, "container", lambda *a, **kw: types.SimpleNamespace(name="fio"))
    r = fioservice.FioClient.start(topo, "perflab/fio:1", "fio", out).run("job.fio", "job")
    assert json.loads(r.result.read_text())["jobs"][0]["read"]["total_ios"] == 7   # NAME.json of its last report
    listed = [json.loads(x) for x in (c.data_dir / "live.jsonl").read_text().splitlines()]
    assert [(x["kind"], x["label"]) for x in listed] == [("fio-status", "job")]


@pytest.mark.parametrize("output, raised", [("job: (groupid=0, jobs=1): err=28 (file:io_u.c)", DiskFull),
                                            ("fio: some other trouble", ContainerFailed)])
def test_a_failed_fio_is_named_by_its_cause(tmp_path, monkeypatch, output, raised):
    def exec_sh(c, argv, timeout):
        (tmp_path / "job.stdout.txt").write_text(output)
        return 1, ""

    monkeypatch.setattr(fioservice, "exec_sh", exec_sh)
    client = fioservice.FioClient.start(_Topo(), "perflab/fio:1", "fio", tmp_path)
    with pytest.raises(raised):
        client.run("job.fio", "job")


def test_a_background_job_is_waited_for_and_its_exit_kept(tmp_path, monkeypatch):
    topo = _Topo()
    client = fioservice.FioClient.jobs_only(topo, tmp_path)
    client.background("perflab/fio:1", "w.fio", "writers", network="net")
    c = topo.made[0]
    assert c.command == ["fio", "--output-format=json", "--output=writers.json", "w.fio"]
    assert "network_mode" not in c.kw and c.kw["network"] == "net"   # on the lab's network, not none

    def finished(cont, name, timeout):
        raise ContainerFailed("exit 1", cont, name)

    c.reload = lambda: None
    c.attrs = {"State": {"ExitCode": 1}}
    c.logs = lambda: b"fio: lost the server"
    monkeypatch.setattr(fioservice, "finished", finished)
    assert client.wait("writers", timeout=5) == 1
    assert (tmp_path / "writers.stdout.txt").read_text() == "fio: lost the server" and topo.removed == [c]
