"""Processes inside a lab's containers (perflab.infra.inside), on a real container: started in the
background, found by pid file and on the host, stopped; a wait that runs out names what it waited for."""
import os

import pytest

from perflab.infra import inside
from perflab.infra.containers import Topology


@pytest.mark.docker
def test_a_background_process_is_found_and_stopped(docker_ok):
    with Topology(f"test-inside-{os.getpid()}") as topo:
        c = topo.container("debian:bookworm-slim", "box", ["sleep", "600"], network_mode="none")
        bg = inside.Background(c, ["sh", "-c", "echo $$ > /run/x.pid; exec sleep 300"])
        pid = inside.read_pidfile(c, "/run/x.pid")
        hp = inside.host_pid(c, pid)
        assert hp is not None and hp != pid and "sleep" in open(f"/proc/{hp}/cmdline").read()
        assert bg.running
        with pytest.raises(TimeoutError, match="'sh -c echo"):
            bg.wait(timeout=0.5)
        inside.stop_pid(c, pid)
        assert bg.wait(timeout=10) is not None and not bg.running
        assert not os.path.exists(f"/proc/{hp}")
