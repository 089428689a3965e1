"""A full disk and a Docker engine lost mid-run reach the user as what happened and what to do
(issue 27), not "internal error: OSError: [Errno 28]" or "notebook failed: ConnectionError: ..."."""
import errno

from perflab import cli
from perflab.errors import EXIT_FAILED, explain
from perflab.run import runner

LOST_ENGINE = ("ConnectionError: ('Connection aborted.', FileNotFoundError(2, 'No such file or directory'))")


def test_a_full_disk_says_so_and_what_to_do(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    e = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "data/runs/x/fio/a.log"))
    assert cli.report("run", e) == EXIT_FAILED
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "internal error" not in err, err
    assert err.startswith("perflab run: a disk filled up: free space on the disk holding data/runs"), err
    assert "perflab clean" in err and "No space left on device" in err


def test_a_lost_engine_in_the_notebook_says_so_and_what_to_do(tmp_path):
    (tmp_path / "papermill.log").write_text("Executing cell 7\nTraceback (most recent call last):\n"
                                            f"  ...\nrequests.exceptions.{LOST_ENGINE}\n")
    msg = runner._notebook_error(tmp_path)
    assert msg.startswith("the Docker engine stopped answering: start it again (`make setup` starts dockerd)"), msg
    assert "then `perflab clean`" in msg and "Connection aborted" in msg


def test_other_errors_are_not_given_a_cause():
    assert explain("ValueError: could not convert string to float: 'x'") is None
    assert explain("ContainerFailed: fio exited 1") is None
