"""NFS-Ganesha as a service of a lab's topology (the labs' NFS server, image `ganesha`): its container,
its readiness, what it records and its stop, in one place for every lab that serves files over NFS
(nfs-layers over a ZFS pool, bad-cable over a Docker volume).

    srv = NfsServer.start(topo, tag, network=net, export={vol.name: "rw"}, log_dir=run / "server")
    srv.version()                 # nfs-ganesha's package version, for the run's provenance
    srv.host_pid()                # ganesha.nfsd's process id on the host (a tracer's view)
    with srv.client_stats(ips):   # per-client operation counters, sampled once a second to log_dir/ops.log
        ...

The container runs with every capability dropped but those its VFS back end needs (CAPS). It is
ready when the image's entry point has written /run/ganesha-ready (containers/ganesha), within
READY_TIMEOUT_S; it is removed with the topology.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from perflab.infra.containers import ContainerFailed, Topology, exec_sh, wait_for_file, wait_until
from perflab.infra.inside import host_pid

__all__ = ["NfsServer", "CAPS", "READY_TIMEOUT_S", "CONF"]

#: ganesha's VFS back end opens files by handle (name_to_handle_at/open_by_handle_at: SYS_ADMIN,
#: DAC_READ_SEARCH) and serves them as their owners (SETUID, SETGID)
CAPS = ["SYS_ADMIN", "DAC_READ_SEARCH", "SETUID", "SETGID"]
READY_TIMEOUT_S = 60.0
#: the configuration file in the image (containers/ganesha)
CONF = "/etc/ganesha/ganesha.conf"
EXPORT = "/export"
LOG = "/log"


@dataclass
class NfsServer:
    topo: Topology
    container: object
    log_dir: Path | None = None

    @classmethod
    def start(cls, topo: Topology, image: str, *, network, export: dict, conf: Path | None = None,
              log_dir: Path | None = None, name: str = "server", also_on: str | None = None) -> "NfsServer":
        """The server container `name` (host name `server`) on `network`, serving at /export what
        `export` mounts there ({volume name or host directory: mode}); `conf`: a configuration file
        of the lab's instead of the image's; `log_dir`: a host directory for what it records
        (mounted at /log); `also_on`: an existing Docker network to join as well (real hosts')."""
        (source, mode), = export.items()
        volumes = {source: {"bind": EXPORT, "mode": mode}}
        if conf is not None:
            volumes[str(conf)] = {"bind": CONF, "mode": "ro"}
        if log_dir is not None:
            volumes[str(log_dir)] = {"bind": LOG, "mode": "rw"}
        c = topo.container(image, name, network=network, hostname="server", cap_drop=["ALL"], cap_add=CAPS,
                           volumes=volumes)
        if also_on:
            topo.connect(also_on, c)
        wait_for_file(c, "/run/ganesha-ready", READY_TIMEOUT_S, "the NFS server (ganesha)")
        return cls(topo, c, log_dir)

    @staticmethod
    def image_conf(topo: Topology, image: str) -> str:
        """The image's own configuration file (for a lab that writes its own from it)."""
        return topo.run(image, "ganesha-conf", ["cat", CONF], timeout=60, network_mode="none")

    def sh(self, script: str) -> tuple[int, str]:
        return exec_sh(self.container, ["sh", "-c", script])

    def version(self) -> str:
        return exec_sh(self.container, ["dpkg-query", "-W", "-f", "${Version}", "nfs-ganesha"])[1].strip()

    def host_pid(self) -> int:
        """ganesha.nfsd's process id on the host, found by its name in the container."""
        code, out = self.sh("for p in /proc/[0-9]*; do [ \"$(cat $p/comm 2>/dev/null)\" = ganesha.nfsd ] "
                            "&& echo ${p#/proc/}; done; true")
        pids = [int(x) for x in out.split()] if code == 0 else []
        hpid = host_pid(self.container, pids[0]) if len(pids) == 1 else None
        if hpid is None:
            raise ContainerFailed(f"the NFS server's process was not found in its container (ganesha.nfsd: {out.strip()!r})")
        return hpid

    def address(self, network: str) -> str:
        """The server's address on Docker network `network`."""
        return self.topo.address(self.container, network)

    @contextlib.contextmanager
    def client_stats(self, ips: list[str]):
        """Per-client statistics enabled and sampled once a second into the log directory's ops.log
        (containers/ganesha's nfs-client-stats) while the block runs; disabled after."""
        if self.log_dir is None:
            raise ContainerFailed("per-client statistics need the server's log directory (NfsServer.start log_dir)")
        self.stats(True, ips)
        try:
            yield self.log_dir / "ops.log"
        finally:
            self.stats(False, ips)

    def stats(self, on: bool, ips: list[str]) -> None:
        """Per-client collection on the server: statistics enabled and the 1 Hz sampler running, or neither."""
        if on:
            code, out = exec_sh(self.container, ["nfs-client-stats", "--enable"])
            if code:
                raise ContainerFailed(f"enabling the server's statistics failed: {out}")
            self.topo.exec_detached(self.container, [
                "sh", "-c", f"echo $$ > /run/sampler.pid; exec nfs-client-stats {LOG}/ops.log " + " ".join(ips)])
            wait_until(lambda: exec_sh(self.container, ["test", "-s", "/run/sampler.pid"])[0] == 0, 10,
                       "the server's sampler")
        else:
            exec_sh(self.container, ["sh", "-c", "kill $(cat /run/sampler.pid) && rm -f /run/sampler.pid"])
            code, out = exec_sh(self.container, ["nfs-client-stats", "--disable"])
            if code:
                raise ContainerFailed(f"disabling the server's statistics failed: {out}")
