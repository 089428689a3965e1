"""Processes inside a lab's running containers: started in the background, found by pid file, mapped
to the host's process id (for a tracer outside the container), and stopped. Every wait has a time
limit and fails naming what it waited for (containers.wait_until)."""
from __future__ import annotations

from pathlib import Path

from perflab.infra.containers import exec_sh, wait_for_file, wait_until

__all__ = ["Background", "read_pidfile", "host_pid", "kernel_pids", "stop_pid"]


class Background:
    """A command started in a running container without waiting for it (`docker exec -d` with its exec
    id kept): `wait(timeout)` returns its exit status once it ends, `running` says whether it still runs."""

    def __init__(self, c, cmd: list[str]):
        self.c, self.cmd = c, list(cmd)
        api = c.client.api
        self.id = api.exec_create(c.id, self.cmd)["Id"]
        api.exec_start(self.id, detach=True)

    @property
    def running(self) -> bool:
        return bool(self.c.client.api.exec_inspect(self.id)["Running"])

    def wait(self, timeout: float) -> int | None:
        wait_until(lambda: not self.running, timeout, f"'{' '.join(self.cmd)[:80]}' in {self.c.name}")
        return self.c.client.api.exec_inspect(self.id)["ExitCode"]


def read_pidfile(c, pidfile: str, timeout: float = 10.0) -> int:
    """The process id (in the container's namespace) written to `pidfile`, once it exists."""
    wait_for_file(c, pidfile, timeout, f"{pidfile} in {c.name}")
    return int(exec_sh(c, ["cat", pidfile], timeout=30)[1].strip())


def kernel_pids() -> bool:
    """Does this process see process ids as the kernel numbers them (the initial PID namespace), as a
    tracer's pid is? Only there are the kernel's threads visible: kthreadd is pid 2."""
    try:
        return Path("/proc/2/comm").read_text().strip() == "kthreadd"
    except OSError:
        return False


def host_pid(c, ns_pid: int) -> int | None:
    """The host's id of the process that container c knows as `ns_pid` (NSpid in /proc), or None."""
    top = c.top()
    col = top["Titles"].index("PID")
    for row in top["Processes"]:
        try:
            for line in Path(f"/proc/{row[col]}/status").read_text().splitlines():
                if line.startswith("NSpid:") and int(line.split()[-1]) == ns_pid:
                    return int(row[col])
        except (OSError, ValueError):
            continue
    return None


def stop_pid(c, pid: int, timeout: float = 10.0) -> None:
    """SIGTERM one process of container c by its id, and wait until it is gone."""
    # the shell's own kill: an image need not have procps's /bin/kill
    exec_sh(c, f"kill -TERM {int(pid)}", timeout=30)
    wait_until(lambda: exec_sh(c, f"kill -0 {int(pid)} 2>/dev/null", timeout=30)[0] == 1, timeout,
               f"pid {pid} in {c.name} to exit")
