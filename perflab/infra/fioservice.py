"""fio as a service of a lab's topology, for the labs that do more than run one job to its end: a
client container that stays up while the lab runs fio in it again and again (`FioClient`: ht's
measurements, streaming's layouts), and fio started in the background while the lab does something
else to the system under it (`FioClient.start`: durability kills the server under its writers).

Like perflab.fio.jobs.run_in_container, every fio line comes from perflab.fio.jobs.command, so that
a watched run (`perflab run --live`) lists each job for its page, and the result is NAME.json in
the run's fio directory either way (jobs.result). The container is the topology's: removed with it.
"""
from __future__ import annotations

import contextlib
import errno
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from perflab.errors import DiskFull
from perflab.fio import jobs
from perflab.fio.logs import FioLogError
from perflab.infra.containers import (EXEC_TIMEOUT_S, ContainerFailed, Topology, engine_call, exec_sh, finished,
                                      running_until)

__all__ = ["FioClient", "FioRun"]

#: where the run's fio directory is mounted in the client, its working directory
OUT = "/out"


@dataclass
class FioRun:
    """One fio job of a client, as it ran: its name, its result's path, the lab's clock around it."""

    name: str
    result: Path
    start_ms: int
    end_ms: int


@dataclass
class FioClient:
    """A container of `topo` from a fio image, idle (`sleep infinity`) until the lab runs fio in it;
    the run's fio directory `out_dir` is its working directory /out."""

    topo: Topology
    container: object   # None: background jobs only (jobs_only)
    out_dir: Path
    running: dict = field(default_factory=dict)   # name -> a background fio's container

    @classmethod
    def start(cls, topo: Topology, image: str, name: str, out_dir: Path, *, volumes: dict | None = None,
              **kw) -> "FioClient":
        """The client container `name`; `volumes` beside /out; `kw` as Topology.container (cpuset_cpus,
        network: none unless given)."""
        out_dir = Path(out_dir)
        kw.setdefault("network_mode", "none")
        c = topo.container(image, name, ["sleep", "infinity"], working_dir=OUT,
                           volumes={str(out_dir.resolve()): {"bind": OUT, "mode": "rw"}, **(volumes or {})}, **kw)
        return cls(topo, c, out_dir)

    @classmethod
    def jobs_only(cls, topo: Topology, out_dir: Path) -> "FioClient":
        """No client container: only background fio jobs, each in a container of its own."""
        return cls(topo, None, Path(out_dir))

    def pid(self) -> int:
        """The client's first process on the host (its cgroup's, for perflab.infra.cpuacct)."""
        with engine_call("reading the fio client's process"):
            self.container.reload()
        return int(self.container.attrs["State"]["Pid"])

    def sh(self, script: str, timeout: float = EXEC_TIMEOUT_S) -> tuple[int, str]:
        """A shell line in the client (containers.exec_sh): its exit status and output."""
        return exec_sh(self.container, ["sh", "-c", script], timeout=timeout)

    def command(self, job: str, name: str) -> list[str]:
        """fio's line for job file `job` (relative to /out), NAME.json its result (jobs.command)."""
        return jobs.command(self.out_dir, name, job, live=self.topo.live_list)

    def run(self, job: str, name: str, timeout: float = EXEC_TIMEOUT_S, then: str | None = None) -> FioRun:
        """fio on job file `job` in the client, to its end (stopped after `timeout` s); its output in
        NAME.stdout.txt. `then`: a shell line run right after fio in the same shell (e.g. reading the
        shell's /proc/$$/io, which counts fio's I/O), fio's exit status kept. A non-zero exit raises
        DiskFull (fio's error 28) or ContainerFailed with the last of fio's output."""
        line = " ".join(shlex.quote(a) for a in self.command(job, name))
        script = f"{line} > {shlex.quote(name)}.stdout.txt 2>&1; rc=$?; " + (f"{then}; " if then else "") + "exit $rc"
        t0 = time.time()
        code, out = exec_sh(self.container, ["sh", "-c", script], timeout=timeout)
        t1 = time.time()
        self._raise_for(code, name, out)
        return FioRun(name, jobs.result(self.out_dir, name, self.topo.live_list), int(t0 * 1000), int(t1 * 1000))

    def background(self, image: str, job: str, name: str, *, volumes: dict | None = None, **kw) -> int:
        """fio on job file `job` started in a container of its own (`name`), the client's mounts and
        `volumes`; returns at once, with the wall clock then (epoch ms). `wait(name)` ends it."""
        if "network" not in kw:
            kw.setdefault("network_mode", "none")
        c = self.topo.container(image, name, self.command(job, name), working_dir=OUT,
                                volumes={str(self.out_dir.resolve()): {"bind": OUT, "mode": "rw"}, **(volumes or {})},
                                **kw)
        self.running[name] = c
        return int(time.time() * 1000)

    def running_until(self, name: str, t_end: float, what: str) -> None:
        """Until `t_end` (epoch s), fail at once with `what` if the background fio `name` ends first."""
        running_until(self.running[name], t_end, what)

    def wait(self, name: str, timeout: float) -> int:
        """Wait (at most `timeout` s) for the background fio `name`; its output in NAME.stdout.txt;
        its container removed; its exit status (a non-zero one is the lab's to judge: durability's
        writers lose their server on purpose)."""
        c = self.running.pop(name)
        try:
            finished(c, name, timeout)
            code = 0
        except ContainerFailed:
            with engine_call(f"reading the exit of {name}"):
                c.reload()
            code = (c.attrs.get("State") or {}).get("ExitCode", -1)
        with engine_call(f"reading the output of {name}"):
            (self.out_dir / f"{name}.stdout.txt").write_text(c.logs().decode(errors="replace"))
        self.topo.remove(c)
        if self.topo.live_list is not None:   # watched: NAME.json from fio's last report, if it made one
            with contextlib.suppress(FioLogError, OSError):
                jobs.result(self.out_dir, name, self.topo.live_list)
        return code

    def _raise_for(self, code: int, name: str, out: str) -> None:
        if code == 0:
            return
        path = self.out_dir / f"{name}.stdout.txt"
        text = path.read_text(errors="replace") if path.exists() else out
        if jobs.error_number(text) == errno.ENOSPC or jobs.json_error_number(self.out_dir, name) == errno.ENOSPC:
            raise DiskFull(f"the files of fio job {name}")
        raise ContainerFailed(f"fio {name}: exit code {code}\n{text[-2000:]}", self.container, name)
