"""Failures named by their cause where they are caught (issue 40): each real exception class, raised
where perflab calls the Docker SDK or writes a run, becomes one perflab.errors.Failure (its kind,
where, one line naming the cause and the next step), and run.json's `failure` records it for the
runner across the process boundary."""
import errno
import http.client
import json
import os
import re
import signal
import time
import types

import docker.errors
import pytest
import requests
import urllib3

from perflab.config.options import RunOptions
from perflab.errors import EXIT_FAILED, DiskFull, EngineLost, Failure, OomKilled, TimedOut, from_record
from perflab.fio import jobs
from perflab.infra import containers
from perflab.run import runner, session
from perflab.run.record import RunRecord


class FakeContainer:
    """A container as the Docker SDK gives it: wait() raises `raises` or returns `code`."""

    def __init__(self, name, code=0, out=b"", raises=None, oom=False, takes=0.0):
        self.name, self.code, self.out, self.raises, self.takes = name, code, out, raises, takes
        self.attrs = {"State": {"OOMKilled": oom, "ExitCode": code}}

    def start(self):
        pass

    def wait(self, timeout=None):
        time.sleep(self.takes)
        if self.raises is not None:
            raise self.raises
        return {"StatusCode": self.code}

    def logs(self, **kw):
        return self.out

    def reload(self):
        pass

    def remove(self, **kw):
        pass


class FakeClient:
    def __init__(self, c):
        self.containers = types.SimpleNamespace(create=lambda *a, **kw: c)


def run(c, timeout=30.0):
    topo = containers.Topology("r1", client=FakeClient(c), profiles={})
    return topo.run("perflab/fio:1", c.name, ["fio", "x.fio"], timeout=timeout)


def api_error(status):
    return docker.errors.APIError("engine", response=types.SimpleNamespace(status_code=status, reason="x"))


ENGINE_GONE = [
    requests.exceptions.ConnectionError("('Connection aborted.', FileNotFoundError(2, 'No such file'))"),
    http.client.RemoteDisconnected("Remote end closed connection without response"),
    requests.exceptions.ChunkedEncodingError("Response ended prematurely"),
    requests.exceptions.ReadTimeout("UnixHTTPConnectionPool: Read timed out."),
    urllib3.exceptions.ProtocolError("Connection broken"),
    api_error(503),
]


@pytest.mark.parametrize("exc", ENGINE_GONE, ids=lambda e: type(e).__name__)
def test_an_engine_lost_during_a_containers_wait_is_named_so(exc):
    with pytest.raises(EngineLost) as e:
        run(FakeContainer("two-bands", raises=exc))   # 20 s into a 3600 s limit: not a time-out
    f = e.value
    assert f.kind == "engine-lost" and f.where == "the wait for container two-bands" and f.exit_status == EXIT_FAILED
    assert str(f).startswith("the Docker engine stopped answering during the wait for container two-bands (")
    assert str(f).endswith("start it again (`make setup` starts dockerd), then `perflab clean`")
    assert "\n" not in str(f) and "did not finish" not in str(f)


def test_an_ordinary_engine_error_is_not_a_lost_engine():
    with pytest.raises(docker.errors.APIError):
        run(FakeContainer("c", raises=api_error(500)))
    with pytest.raises(docker.errors.NotFound):
        run(FakeContainer("c", raises=docker.errors.NotFound("no such container")))


def test_a_wait_past_its_limit_is_a_timeout_naming_what_and_the_limit():
    with pytest.raises(containers.WaitTimedOut) as e:
        run(FakeContainer("two-bands", raises=requests.exceptions.ReadTimeout("Read timed out."), takes=0.06),
            timeout=0.05)
    assert e.value.kind == "timeout" and e.value.limit_s == 0.05
    assert str(e.value).startswith("gave up waiting for container two-bands after 0.05 s")


def test_a_container_killed_for_memory_is_named_so():
    with pytest.raises(OomKilled) as e:
        run(FakeContainer("memrate", code=137, out=b"Killed\n", oom=True))
    assert e.value.kind == "oom-killed" and e.value.where == "memrate"
    assert str(e.value).startswith("container memrate ran out of memory and was killed (OOMKilled)")


FIO_ENOSPC = (b"fio: io_u error on file /data/x: No space left on device: write offset=1048576, buflen=4096\n"
              b"fill: (groupid=0, jobs=1): err=28 (file:io_u.c:1845, func=io_u error, error=No space left on "
              b"device): pid=7: Mon Jan  1 00:00:00 2024\n")


def test_fios_enospc_inside_a_container_is_a_full_disk(tmp_path):
    c = FakeContainer("fill", code=1, out=FIO_ENOSPC)
    with pytest.raises(DiskFull) as e:
        run(c)
    assert e.value.kind == "disk-full" and str(e.value).startswith("the disk holding the files of container fill")
    # with its mounts known: the writable one with the least free space, named with that space
    c.attrs["Mounts"] = [{"Type": "bind", "Source": str(tmp_path), "Destination": "/data", "RW": True},
                         {"Type": "bind", "Source": "/", "Destination": "/ro", "RW": False}]
    with pytest.raises(DiskFull) as e:
        run(c)
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize // 2**20
    m = re.match(rf"the disk holding {re.escape(str(tmp_path))} \(/data in container fill\) filled up \(([\d,]+) MiB free\)",
                 str(e.value))
    assert m and abs(int(m.group(1).replace(",", "")) - free) <= 64, str(e.value)   # the disk's free space then
    assert jobs.error_number("a: (groupid=0, jobs=1): err= 0: pid=1\nb: err=28 (file") == 28
    assert jobs.error_number("a: (groupid=0, jobs=1): err= 0: pid=1") is None


def test_fios_json_error_28_is_a_full_disk(tmp_path):
    (tmp_path / "job.fio").write_text("[fill]\nrw=write\n")
    (tmp_path / "fill.json").write_text("fio: io_u error on file /data/x: No space left on device\n"
                                        + json.dumps({"jobs": [{"jobname": "fill", "error": 28}]}))
    topo = containers.Topology("r1", client=FakeClient(FakeContainer("fill", code=1, out=b"")), profiles={})
    with pytest.raises(DiskFull) as e:
        jobs.run_in_container(topo, "perflab/fio:1", tmp_path / "job.fio", tmp_path, "fill", timeout=30)
    assert isinstance(e.value.__cause__, containers.ContainerFailed)
    (tmp_path / "fill.json").write_text(json.dumps({"jobs": [{"jobname": "fill", "error": 5}]}))
    with pytest.raises(containers.ContainerFailed):
        jobs.run_in_container(topo, "perflab/fio:1", tmp_path / "job.fio", tmp_path, "fill", timeout=30)


def test_an_engine_lost_during_an_exec_is_named_so():
    c = FakeContainer("perflab-r1-server")
    c.exec_run = lambda argv: (_ for _ in ()).throw(http.client.RemoteDisconnected("closed"))
    with pytest.raises(EngineLost) as e:
        containers.exec_sh(c, ["mount", "/x"], timeout=5)
    assert e.value.where == "'mount /x' in container perflab-r1-server"


def test_an_exec_widens_the_clients_socket_timeout_for_its_time_only():
    seen = []
    c = FakeContainer("c")
    c.client = types.SimpleNamespace(api=types.SimpleNamespace(timeout=120))
    c.exec_run = lambda argv: seen.append(c.client.api.timeout) or types.SimpleNamespace(exit_code=0, output=b"")
    containers.exec_sh(c, ["sleep", "1000"], timeout=1000)
    assert seen == [1000 + 10 + containers.EXEC_SOCKET_GRACE_S] and c.client.api.timeout == 120


def test_a_full_disk_on_the_host_in_the_labs_run_is_recorded_in_run_json(tmp_path):
    rec = RunRecord(tmp_path)
    rec.create({"lab": "heatmaps"})

    def lab_run(s):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "fio" / "a.log"))

    s = types.SimpleNamespace(live=True, lab=types.SimpleNamespace(name="heatmaps"), record=rec, params={}, run_id="r1",
                              module=lambda: types.SimpleNamespace(plan=lambda p: [], run=lab_run))
    s.failed = lambda e: session.Session.failed(s, e)
    with pytest.raises(DiskFull) as e:
        session.Session.execute(s)
    assert isinstance(e.value.__cause__, OSError)
    failure = rec.read()["failure"]
    assert failure["kind"] == "disk-full" and failure["where"] == str(tmp_path / "fio")
    assert failure["message"] == str(e.value) and "MiB free): free space on it, then `perflab clean`" in str(e.value)
    assert from_record(failure).kind == "disk-full"


def test_an_engine_lost_in_a_labs_own_docker_call_is_recorded(tmp_path):
    rec = RunRecord(tmp_path)
    rec.create({"lab": "zfs"})
    s = types.SimpleNamespace(lab=types.SimpleNamespace(name="logzilla"), record=rec)
    f = session.Session.failed(s, requests.exceptions.ChunkedEncodingError("Response ended prematurely"))
    assert isinstance(f, EngineLost) and rec.read()["failure"]["kind"] == "engine-lost"
    assert session.Session.failed(s, ValueError("x")) is None


def test_the_runner_records_a_failure_it_caught(tmp_path, monkeypatch):
    monkeypatch.setattr(runner.cleanup, "clean_run", lambda d, c: [])
    monkeypatch.setattr(runner.labels, "docker_client", lambda: None)
    rec = RunRecord(tmp_path)
    rec.create({"lab": "heatmaps", "preset": "smoke"})
    f = TimedOut("the notebook of lab heatmaps (papermill)", 1200)
    doc = runner._close(rec, tmp_path, "failed", str(f), f, 0.0, None)
    assert doc["status"] == "failed" and doc["error"] == str(f)
    assert doc["failure"] == {"kind": "timeout", "where": "the notebook of lab heatmaps (papermill)", "message": str(f)}


def test_a_run_that_cannot_write_its_record_still_says_how_it_ended(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner.cleanup, "clean_run", lambda d, c: [])
    monkeypatch.setattr(runner.labels, "docker_client", lambda: None)
    rec = RunRecord(tmp_path)
    rec.create({"lab": "heatmaps", "preset": "smoke"})
    monkeypatch.setattr(RunRecord, "update", lambda self, fn: (_ for _ in ()).throw(OSError(errno.ENOSPC, "full")))
    doc = runner._close(rec, tmp_path, "failed", "the disk holding x filled up", None, 0.0, None)
    assert doc["status"] == "failed" and doc["error"] == "the disk holding x filled up" and doc["lab"] == "heatmaps"
    assert "recording the run's status failed" in capsys.readouterr().err


def test_the_notebook_past_its_limit_is_stopped_and_named(tmp_path, monkeypatch):
    stopped = []
    monkeypatch.setattr(runner, "_stop", lambda proc, d, stop: stopped.append(proc))
    proc = types.SimpleNamespace(poll=lambda: None)
    lab = types.SimpleNamespace(name="heatmaps")
    with pytest.raises(TimedOut) as e:
        runner._watch(proc, lab, tmp_path, 0.0, runner._Interrupt(), True, limit=60)
    assert stopped == [proc] and e.value.where == "the notebook of lab heatmaps (papermill)"


def test_the_notebooks_limit_comes_from_the_plan(monkeypatch):
    monkeypatch.setattr(runner.labcontract, "load", lambda lab: types.SimpleNamespace(plan=lambda v: [("a", 40), ("b", 20)]))
    assert runner.notebook_limit(None, {}) == 3 * 60 + runner.NOTEBOOK_EXTRA_S
    monkeypatch.setattr(runner.labcontract, "load", lambda lab: types.SimpleNamespace(plan=lambda v: []))
    assert runner.notebook_limit(None, {}) == runner.NOTEBOOK_TIMEOUT_S


def test_a_containers_default_limit_comes_from_the_runs_estimate():
    assert containers.default_timeout(100.0) == containers.RUN_MARGIN * 100 + containers.RUN_EXTRA_S
    assert containers.default_timeout(None) == containers.RUN_TIMEOUT_S


def test_a_failure_is_one_line_for_every_kind():
    for f in (DiskFull("/x", 3), EngineLost("w", "ConnectionError"), OomKilled("c"), TimedOut("w", 5)):
        assert isinstance(f, Failure) and "\n" not in str(f) and f.record()["message"] == str(f)


def test_the_runs_end_restores_signals_and_records_even_when_the_page_fails(tmp_path, monkeypatch, capsys):
    """The runner's finally: clean-up and the record first, then the signal handlers, then the live
    page's finish(); one step raising does not skip the others (issue 40, item 5)."""
    from perflab.run import live

    rec = RunRecord(tmp_path)
    rec.create({"lab": "heatmaps", "preset": "smoke"})
    rec.failure(EngineLost("the wait for container two-bands", "ChunkedEncodingError").record())
    proc = types.SimpleNamespace(returncode=1, poll=lambda: 1, pid=0)

    class Page:
        url = "http://127.0.0.1:1/"

        def __init__(self, *a):
            pass

        def finish(self):
            raise RuntimeError("the page's server is gone")

    monkeypatch.setattr(runner.images, "missing", lambda m, names: [])
    monkeypatch.setattr(runner.images, "image_id", lambda tag: None)
    monkeypatch.setattr(runner, "create_run", lambda *a, **kw: tmp_path)
    monkeypatch.setattr(runner, "notebook_limit", lambda lab, values: 60.0)
    monkeypatch.setattr(runner, "_start_notebook", lambda *a, **kw: proc)
    monkeypatch.setattr(runner, "_watch", lambda *a, **kw: None)
    monkeypatch.setattr(runner.cleanup, "clean_run", lambda d, c: (_ for _ in ()).throw(RuntimeError("engine")))
    monkeypatch.setattr(runner.labels, "docker_client", lambda: None)
    monkeypatch.setattr(live, "LiveRun", Page)
    before = signal.getsignal(signal.SIGINT)
    lab = types.SimpleNamespace(name="heatmaps", images=[])
    rc = runner._run_locked(None, lab, "smoke", {}, False, True, None, None, 0, RunOptions(live=True))
    assert rc == EXIT_FAILED and signal.getsignal(signal.SIGINT) is before
    doc = rec.read()
    assert doc["status"] == "failed" and doc["failure"]["kind"] == "engine-lost"
    assert doc["error"].startswith("the Docker engine stopped answering during the wait for container two-bands")
    err = capsys.readouterr().err
    assert "cleaning up failed: RuntimeError: engine" in err and "stopping the run's page failed" in err
    assert "heatmaps (smoke): failed - the Docker engine stopped answering" in err


def test_a_labs_own_wait_past_its_limit_is_a_timeout_when_the_engine_answers(monkeypatch):
    e = requests.exceptions.ReadTimeout("Read timed out. (read timeout=330)")
    monkeypatch.setattr(containers.labels, "docker_client", lambda: object())
    f = containers.as_failure(e, "lab logzilla's run")
    assert f.kind == "timeout" and str(f).startswith("gave up waiting for a Docker call in lab logzilla's run at its time limit")
    monkeypatch.setattr(containers.labels, "docker_client", lambda: None)
    assert containers.as_failure(e, "lab logzilla's run").kind == "engine-lost"
