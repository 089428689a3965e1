"""A command in a container cannot hold a run for ever (issue 27): containers.exec_sh stops it after its
time and says which command it was; a command's own exit status 124 is not mistaken for a timeout."""
import time
import uuid

import pytest

from perflab.errors import EXIT_FAILED
from perflab.infra import containers


class _Result:
    def __init__(self, code, out):
        self.exit_code, self.output = code, out


class FakeContainer:
    """exec_run as the Docker SDK gives it: records the argv, takes `takes` s, returns `code`."""
    name = "perflab-x-fio"

    def __init__(self, code=0, out=b"", takes=0.0):
        self.code, self.out, self.takes, self.argv = code, out, takes, None

    def exec_run(self, argv):
        self.argv = argv
        time.sleep(self.takes)
        return _Result(self.code, self.out)


def test_every_command_runs_under_coreutils_timeout():
    c = FakeContainer(0, b"ok\n")
    assert containers.exec_sh(c, ["fio", "job.fio"], timeout=5) == (0, "ok\n")
    assert c.argv == ["timeout", "-k", "10", "5", "fio", "job.fio"]
    containers.exec_sh(c, "echo a && echo b")
    assert c.argv[-3:] == ["sh", "-c", "echo a && echo b"]


def test_a_command_stopped_at_its_time_raises_naming_it():
    c = FakeContainer(124, b"starting\nstill writing block 7\n", takes=0.2)
    with pytest.raises(containers.ExecTimedOut) as e:
        containers.exec_sh(c, ["dd", "if=/dev/zero", "of=/x"], timeout=0.1)
    msg = str(e.value)
    assert "'dd if=/dev/zero of=/x'" in msg and "after 0.1 s" in msg and "still writing block 7" in msg
    assert e.value.exit_status == EXIT_FAILED


def test_a_commands_own_status_124_is_returned():
    assert containers.exec_sh(FakeContainer(124, b"", takes=0.0), ["false"], timeout=30) == (124, "")


@pytest.mark.docker
def test_a_hung_command_in_a_real_container_is_stopped(docker_ok):
    import docker

    client = docker.from_env()
    c = client.containers.run("debian:bookworm-slim", ["sleep", "600"], detach=True, remove=True,
                              labels={"perflab.test": uuid.uuid4().hex}, network_mode="none")
    try:
        t0 = time.monotonic()
        with pytest.raises(containers.ExecTimedOut):
            containers.exec_sh(c, ["sleep", "300"], timeout=1)
        assert time.monotonic() - t0 < 15
        assert containers.exec_sh(c, ["true"], timeout=5) == (0, "")
    finally:
        c.kill()
