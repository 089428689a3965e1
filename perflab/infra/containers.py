"""Lab topologies built from Python with the Docker SDK, as context managers.

`Topology` creates networks, volumes and containers, each labelled with the run id
(labels.labels), and removes all of them when the `with` block ends: normally, on an exception,
on KeyboardInterrupt (Ctrl-C or the runner's interrupt). If creating one object fails half-way, the
objects made before it are removed too. Containers get `--init` and only the capabilities and
devices the lab asks for; nothing runs privileged. Containers of the images that run fio get the
seccomp filter the user chose (`perflab run --seccomp`: Docker's default unless told otherwise;
perflab.infra.seccomp), the others Docker's default. After a SIGKILL, `perflab clean` finds the
leftovers by their labels.

Front page, "Nothing left behind"; the chapters show each lab's topology.
"""
from __future__ import annotations

from perflab.errors import Failed

import contextlib
import logging
import os
import time
from pathlib import Path

from perflab.infra import hostobjects, labels, limits, scratch, seccomp as seccomp_profiles
from perflab.infra.ledger import Ledger

log = logging.getLogger(__name__)


class ContainerFailed(Failed, RuntimeError):
    """A container exited non-zero; the message carries the tail of its output."""


#: Topology.container's default `seccomp`: the filter chosen for the image (seccomp.profile_for).
BY_IMAGE = "image"


class Topology:
    def __init__(self, run_id: str, lab: str | None = None, client=None, profiles: dict | None = None):
        """`profiles`: {image tag: filter} (seccomp.by_tag); by default book.toml's and the user's choice."""
        self.run_id = run_id
        self.lab = lab
        self.client = client
        self.labels = labels.labels(run_id, lab)
        self.profiles = profiles
        self._objects: list = []  # (kind, obj) in creation order
        self._stack = contextlib.ExitStack()   # host directories behind volumes (scratch), removed last
        self._scratch: dict = {}

    @staticmethod
    def _ledger():
        run_dir = os.environ.get(labels.RUN_DIR_ENV)
        if not run_dir:
            raise ContainerFailed(f"a volume under --scratch needs the run's directory ({labels.RUN_DIR_ENV}), "
                                  "to record it for perflab clean")
        return Ledger(Path(run_dir))

    # -- lifecycle --
    def __enter__(self):
        if self.client is None:
            self.client = labels.docker_client()
            if self.client is None:
                raise ContainerFailed(f"no Docker engine answers: {labels.no_engine_reason()}")
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self) -> list[str]:
        """Remove everything this topology created, newest first; then anything else labelled with
        the run id (objects created by a crashed earlier attempt). Never raises."""
        import docker.errors

        failed = []
        for kind, obj in reversed(self._objects):
            try:
                if kind == "container":
                    obj.remove(force=True, v=True)
                else:
                    obj.remove(**({"force": True} if kind == "volume" else {}))
            except docker.errors.NotFound:
                pass
            except Exception as e:  # noqa: BLE001
                failed.append(f"{kind} {getattr(obj, 'name', obj)}: {e}")
        self._objects.clear()
        with contextlib.suppress(Exception):
            failed += labels.remove_docker_objects(self.client, self.run_id)
        try:
            self._stack.close()
        except Exception as e:  # noqa: BLE001
            failed.append(f"scratch directories: {e}")
        self._scratch.clear()
        for f in failed:
            log.warning("cleanup: %s", f)
        return failed

    def _name(self, name: str) -> str:
        return f"perflab-{self.run_id}-{name}"

    # -- objects --
    def network(self, name: str, internal: bool = False, **kw):
        net = self.client.networks.create(self._name(name), driver="bridge", internal=internal,
                                          labels=self.labels, check_duplicate=True, **kw)
        self._objects.append(("network", net))
        return net

    def volume(self, name: str, **kw):
        """A Docker volume; under the run's scratch directory when one was chosen (perflab.infra.scratch)."""
        base = scratch.run_dir(self.run_id)
        if base is not None and "driver_opts" not in kw:
            if not self._scratch.get(base):
                self._scratch[base] = self._stack.enter_context(hostobjects.scratch_dir(self._ledger(), base))
            d = base / name
            d.mkdir()
            kw["driver_opts"] = {"type": "none", "o": "bind", "device": str(d)}
        vol = self.client.volumes.create(self._name(name), labels=self.labels, **kw)
        self._objects.append(("volume", vol))
        return vol

    def mounted_volume(self, name: str, at: str) -> dict:
        """A new volume (as :meth:`volume` makes it), given as the ``volumes`` mapping that mounts it
        read-write at `at` in a container."""
        vol = self.volume(name)
        return {vol.name: {"bind": at, "mode": "rw"}}

    def profile_for(self, image: str):
        """The seccomp filter for containers of image tag `image`: None (Docker's default), a
        profile's path or seccomp.UNCONFINED (seccomp.profile_for; an unknown tag: Docker's default)."""
        if self.profiles is None:
            from perflab.config import manifest

            self.profiles = seccomp_profiles.by_tag(manifest.load())
        return self.profiles.get(image)

    def container(self, image: str, name: str, command=None, *, network=None, cap_add=(),
                  devices=(), volumes=None, mounts=None, environment=None, detach=True,
                  working_dir=None, cpuset_cpus=None, seccomp=BY_IMAGE, **kw):
        """Create and start a container. Nothing privileged: capabilities and devices are listed
        explicitly by the lab that needs them. `seccomp`: the filter chosen for the image
        (BY_IMAGE), a profile's path, seccomp_profiles.UNCONFINED, or None for Docker's default;
        a `seccomp=` entry in `security_opt` wins over it."""
        kw.setdefault("init", True)
        opts = list(kw.pop("security_opt", None) or [])
        if not any(o.startswith("seccomp") for o in opts):
            opts += seccomp_profiles.security_opt(self.profile_for(image) if seccomp == BY_IMAGE else seccomp)
        if opts:
            kw["security_opt"] = opts
        kw = limits.container_kwargs(kw)   # perflab run --cpus, unless the lab set a limit of its own
        c = self.client.containers.create(
            image, command, name=self._name(name), labels=self.labels, detach=detach,
            network=getattr(network, "name", network), cap_add=list(cap_add) or None,
            devices=list(devices) or None, volumes=volumes, mounts=mounts, environment=environment,
            working_dir=working_dir, cpuset_cpus=cpuset_cpus, **kw)
        self._objects.append(("container", c))
        c.start()
        return c

    def run(self, image: str, name: str, command, timeout: float | None = None, **kw) -> str:
        """Run a container to completion; return its output; raise ContainerFailed on a non-zero
        exit (with the last lines of its output) or when it outlives `timeout` seconds."""
        c = self.container(image, name, command, **kw)
        try:
            res = c.wait(timeout=timeout) if timeout else c.wait()
        except Exception as e:  # requests' ReadTimeout and friends, or the engine going away
            within = f"within {timeout:g} s" if timeout else "(no time limit)"
            raise ContainerFailed(f"{name}: did not finish {within}: {type(e).__name__}: {e}") from None
        out = c.logs(stdout=True, stderr=True).decode(errors="replace")
        code = res.get("StatusCode", -1)
        if code != 0:
            tail = "\n".join(out.splitlines()[-20:])
            raise ContainerFailed(f"{name}: exit code {code}\n{tail}")
        return out

    def remove(self, obj) -> None:
        """Remove one object early (e.g. a finished fio container)."""
        for i, (kind, o) in enumerate(self._objects):
            if o is obj:
                with contextlib.suppress(Exception):
                    o.remove(force=True, v=True) if kind == "container" else o.remove()
                del self._objects[i]
                return


#: how long a command run in a container may take, unless its caller says (a hung fio, dd or mount
#: would otherwise hold a run for ever: the Docker SDK's exec has no timeout of its own)
EXEC_TIMEOUT_S = 1800.0


class ExecTimedOut(Failed, TimeoutError):
    """A command in a container ran past its time and was stopped; the message names it and its last line."""


def exec_sh(c, cmd: list[str] | str, timeout: float = EXEC_TIMEOUT_S) -> tuple[int, str]:
    """Run a command in container c under coreutils' `timeout` (in every image perflab builds: TERM at
    `timeout` s, KILL 10 s later); its exit code and output. A command stopped that way raises
    ExecTimedOut naming it, its time limit and its last line of output."""
    argv = ["sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
    t0 = time.monotonic()
    r = c.exec_run(["timeout", "-k", "10", f"{timeout:g}", *argv])
    out = r.output.decode(errors="replace") if r.output else ""
    # 124: stopped by TERM; 137: by KILL. Either code of the command's own is told apart by the time
    if r.exit_code in (124, 137) and time.monotonic() - t0 >= timeout:
        last = next((ln for ln in reversed(out.strip().splitlines()) if ln.strip()), "no output")
        shown = cmd if isinstance(cmd, str) else " ".join(cmd)
        raise ExecTimedOut(f"'{shown[:200]}' in container {getattr(c, 'name', '?')} still ran after {timeout:g} s "
                           f"and was stopped (last output: {last[-200:]})")
    return r.exit_code, out


def wait_for_file(c, path: str, timeout: float, what: str) -> None:
    """Until `path` exists in container c; if the container stops first, fail with its output."""
    def ready():
        c.reload()
        if c.status not in ("running", "created"):
            tail = c.logs(tail=20).decode(errors="replace")
            raise ContainerFailed(f"{what}: the container stopped ({c.status})\n{tail}")
        return exec_sh(c, ["test", "-e", path])[0] == 0
    wait_until(ready, timeout, what, interval=0.2)


def wait_until(pred, timeout: float, what: str, interval: float = 0.2):
    t_end = time.time() + timeout
    while time.time() < t_end:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    raise TimeoutError(f"{what}: not ready after {timeout:g} s")


def first_write(path: Path, timeout: float = 120.0, what: str = "fio's first write") -> int:
    """Wait until the file at `path` (a job's data file, seen from the host) holds bytes; the wall
    clock then, in epoch ms."""
    path = Path(path)
    wait_until(lambda: path.exists() and path.stat().st_size > 0, timeout, what, interval=0.02)
    return int(time.time() * 1000)


def running_until(c, t_end: float, what: str) -> None:
    """Until `t_end` (epoch s), check twice a second that container c still runs; if it ends first,
    fail at once with `what` and the last of its output (a job that died before a lab's change)."""
    while time.time() < t_end:
        c.reload()
        if c.status != "running":
            raise ContainerFailed(f"{what}:\n" + c.logs().decode(errors="replace")[-2000:])
        time.sleep(min(0.5, max(0.0, t_end - time.time())))


def volumes_disk(client) -> str:
    """The whole block device (/dev/NAME) that holds a lab's volumes: the `--scratch` directory's
    when one was chosen (perflab.infra.scratch), else Docker's data root's. It is the device that
    docker's --device-read-iops/--device-read-bps must name to limit a lab's "disk"
    (chapters/benchmarking.md, chapters/stepping.md)."""
    import os

    root = scratch.root() or client.info().get("DockerRootDir", "/var/lib/docker")
    what = "the scratch directory" if scratch.root() else "Docker's data root"
    dev = os.stat(root).st_dev
    sys_dev = os.path.realpath(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    if os.path.exists(os.path.join(sys_dev, "partition")):
        sys_dev = os.path.dirname(sys_dev)  # a partition: throttling applies to its disk
    path = f"/dev/{os.path.basename(sys_dev)}"
    if not os.path.exists(path):
        raise ContainerFailed(f"{what} {root} is on {sys_dev}, which has no block device node to throttle "
                              "(an overlay, tmpfs or network file system?): choose a directory on a disk "
                              "with `perflab run --scratch DIR`")
    return path

