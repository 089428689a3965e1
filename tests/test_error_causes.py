"""A full disk and a Docker engine lost mid-run reach the user as what happened and what to do
(issue 27), not "internal error: OSError: [Errno 28]" or "notebook failed: ConnectionError: ...".
Since issue 40 the cause is named by the exception's class where it is caught, never guessed from its
text (tests/test_failure_kinds.py follows each kind from where it is caught to run.json)."""
import errno

import requests

from perflab import cli
from perflab.errors import EXIT_FAILED
from perflab.run import runner
from perflab.run.record import RunRecord


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "internal error" not in err, err
    return err


def test_a_full_disk_says_so_and_what_to_do(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    e = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "data/runs/x/fio/a.log"))
    assert cli.report("run", e) == EXIT_FAILED
    err = one_line(capsys)
    assert err.startswith(f"perflab run: the disk holding {tmp_path}/data/runs/x/fio filled up"), err
    assert "perflab clean" in err and "No space left on device" in err


def test_a_lost_engine_says_so_and_what_to_do(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    e = requests.exceptions.ConnectionError("('Connection aborted.', FileNotFoundError(2, 'No such file'))")
    assert cli.report("run", e) == EXIT_FAILED
    err = one_line(capsys)
    assert err.startswith("perflab run: the Docker engine stopped answering during perflab run (ConnectionError): "
                          "start it again (`make setup` starts dockerd), then `perflab clean`"), err


def test_the_notebooks_recorded_failure_is_the_runs_error(tmp_path):
    rec = RunRecord(tmp_path)
    rec.create({"lab": "heatmaps"})
    (tmp_path / "papermill.log").write_text("ContainerFailed: two-bands: exit code 1\n")
    assert runner._failed_notebook(rec, tmp_path) == "notebook failed: ContainerFailed: two-bands: exit code 1"
    rec.failure({"kind": "engine-lost", "where": "the wait for container two-bands",
                 "message": "the Docker engine stopped answering during the wait for container two-bands"})
    assert runner._failed_notebook(rec, tmp_path) == \
        "the Docker engine stopped answering during the wait for container two-bands"


def test_other_errors_are_not_given_a_cause(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cli.report("run", ValueError("could not convert string to float: 'x'"))
    assert "internal error: ValueError" in capsys.readouterr().err
    cli.report("run", OSError(errno.EACCES, "Permission denied", "/x"))
    assert "internal error: PermissionError" in capsys.readouterr().err
