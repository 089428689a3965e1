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

from perflab.errors import DiskFull, EngineLost, Failed, Failure, OomKilled, TimedOut, disk_full

import contextlib
import errno
import logging
import os
import threading
import time
from pathlib import Path

from perflab.config.options import RunOptions
from perflab.infra import hostobjects, labels, limits, scratch, seccomp as seccomp_profiles
from perflab.infra.context import LabContext
from perflab.infra.ledger import Ledger

log = logging.getLogger(__name__)


class ContainerFailed(Failed, RuntimeError):
    """A container exited non-zero; the message carries the tail of its output, `container` the
    container (when there is one: a caller may read its mounts, perflab.fio.jobs)."""

    def __init__(self, message: str, container=None, name: str = "?"):
        super().__init__(message)
        self.container, self.name = container, name

    def disk_full(self) -> DiskFull:
        """The DiskFull this exit means when the caller knows it was ENOSPC (fio's JSON error 28)."""
        return disk_full_in(self.container, self.name) if self.container is not None \
            else DiskFull(f"the files of container {self.name}")


class WaitTimedOut(TimedOut, TimeoutError):
    """A wait in a lab (a container, a file, a readiness test) went past its limit."""


#: how long a container run to completion (Topology.run) may take when its caller gives no limit and
#: the run's estimate is unknown: longer than any lab's full preset, short of for ever
RUN_TIMEOUT_S = 4 * 3600.0
#: a container's default limit is RUN_MARGIN times the run's estimated seconds (its plan's total,
#: LabContext.estimate_s) plus RUN_EXTRA_S (start-up, a busy machine)
RUN_MARGIN, RUN_EXTRA_S = 3.0, 600.0


def default_timeout(estimate_s: float | None) -> float:
    """The limit of a container run whose caller gives none: from the run's estimate, else RUN_TIMEOUT_S."""
    return RUN_MARGIN * estimate_s + RUN_EXTRA_S if estimate_s and estimate_s > 0 else RUN_TIMEOUT_S


def _engine_errors() -> tuple[type, ...]:
    """The exception classes that mean the engine went away or hung mid-request."""
    import http.client

    import requests.exceptions
    import urllib3.exceptions

    return (requests.exceptions.ConnectionError, requests.exceptions.ChunkedEncodingError,
            requests.exceptions.Timeout, urllib3.exceptions.ProtocolError, urllib3.exceptions.TimeoutError,
            http.client.RemoteDisconnected, http.client.IncompleteRead, ConnectionError, TimeoutError)


#: the engine's HTTP answers that mean it is going down or cannot serve (a 500 is an ordinary
#: failure of the request, e.g. a container that cannot start, and stays one)
ENGINE_DOWN_STATUS = (502, 503, 504)


def engine_failure(e: BaseException, where: str) -> EngineLost | None:
    """The EngineLost that exception `e`, raised by a Docker SDK call during `where`, means; or None.
    By class: requests' and urllib3's connection errors, a reply cut short or never sent, and a 502,
    503 or 504 from the engine."""
    import docker.errors

    if isinstance(e, Failure):
        return None
    if isinstance(e, docker.errors.APIError):
        status = getattr(getattr(e, "response", None), "status_code", None)
        return EngineLost(where, f"HTTP {status}") if status in ENGINE_DOWN_STATUS else None
    if isinstance(e, _engine_errors()):
        return EngineLost(where, type(e).__name__)
    return None


def as_failure(e: BaseException, where: str) -> Failure | None:
    """Exception `e` named by its cause (perflab.errors.Failure), or None when it has none: a
    Failure already, a lost engine (engine_failure), a full disk on the host (OSError ENOSPC)."""
    import requests.exceptions

    if isinstance(e, Failure):
        return e
    lost = disk_full(e) or engine_failure(e, where)
    # a Docker call given a time limit of its own (c.wait(timeout=...) in a lab) that passed it, while
    # the engine still answers: a time-out, not a lost engine
    if isinstance(e, requests.exceptions.ReadTimeout) and labels.docker_client() is not None:
        return TimedOut(f"a Docker call in {where}", None, "the engine answers")
    return lost


@contextlib.contextmanager
def engine_call(where: str):
    """Around Docker SDK calls: an exception that means the engine went away becomes EngineLost(where)."""
    try:
        yield
    except Exception as e:  # noqa: BLE001 - classified by class; anything else goes on as it was
        lost = engine_failure(e, where)
        if lost is None:
            raise
        raise lost from e


#: Topology.container's default `seccomp`: the filter chosen for the image (seccomp.profile_for).
BY_IMAGE = "image"


class Topology:
    def __init__(self, ctx: LabContext | str, lab: str | None = None, client=None, profiles: dict | None = None):
        """The objects of the run `ctx` (perflab.infra.context.LabContext): its id labels them, its
        options (--scratch, --cpus, --seccomp) shape them, its ledger records the host directories
        behind them. `ctx` may also be a bare run id, for a topology outside a lab run (tests,
        scripts): the run options' defaults then.
        `profiles`: {image tag: filter} (seccomp.by_tag); by default book.toml's under the options."""
        if isinstance(ctx, str):
            self.run_id, self.lab, self.options, self.ledger, self.estimate_s = ctx, lab, RunOptions(), None, None
            self.data_dir, self.ctx = None, None
        else:
            self.run_id, self.lab, self.options = ctx.run_id, lab or ctx.lab.name, ctx.options
            self.ledger, self.estimate_s, self.data_dir = ctx.ledger, ctx.estimate_s, ctx.data_dir
            self.ctx: LabContext | None = ctx   # what the run's services record in its provenance
        self.client = client
        self.labels = labels.labels(self.run_id, self.lab, self.data_dir)
        self.profiles = profiles
        self._objects: list = []  # (kind, obj) in creation order
        self._stack = contextlib.ExitStack()   # host directories behind volumes (scratch), removed last
        self._scratch: dict = {}

    @property
    def live_list(self) -> Path | None:
        """The run's live.jsonl when it is watched (--live), else None (perflab.fio.live)."""
        return self.data_dir / "live.jsonl" if self.options.live and self.data_dir is not None else None

    def _ledger(self) -> Ledger:
        if self.ledger is None:
            raise ContainerFailed("a volume under --scratch needs the run's ledger (a Topology made from the "
                                  "run's context), to record it for perflab clean")
        return self.ledger

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
        with engine_call(f"creating network {name}"):
            net = self.client.networks.create(self._name(name), driver="bridge", internal=internal,
                                              labels=self.labels, check_duplicate=True, **kw)
        self._objects.append(("network", net))
        return net

    def volume(self, name: str, **kw):
        """A Docker volume; under the run's scratch directory when one was chosen (perflab.infra.scratch)."""
        base = scratch.run_dir(self.options.scratch, self.run_id)
        if base is not None and "driver_opts" not in kw:
            if not self._scratch.get(base):
                self._scratch[base] = self._stack.enter_context(hostobjects.scratch_dir(self._ledger(), base))
            d = base / name
            d.mkdir()
            kw["driver_opts"] = {"type": "none", "o": "bind", "device": str(d)}
        with engine_call(f"creating volume {name}"):
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

            self.profiles = seccomp_profiles.by_tag(manifest.load(), self.options)
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
        kw = limits.container_kwargs(kw, self.options.cpus)   # --cpus, unless the lab set a limit of its own
        with engine_call(f"creating container {name}"):
            c = self.client.containers.create(
                image, command, name=self._name(name), labels=self.labels, detach=detach,
                network=getattr(network, "name", network), cap_add=list(cap_add) or None,
                devices=list(devices) or None, volumes=volumes, mounts=mounts, environment=environment,
                working_dir=working_dir, cpuset_cpus=cpuset_cpus, **kw)
        self._objects.append(("container", c))
        with engine_call(f"starting container {name}"):
            c.start()
        return c

    def run(self, image: str, name: str, command, timeout: float | None = None, **kw) -> str:
        """Run a container to completion; return its output. Past `timeout` s (default_timeout() if
        None) raise WaitTimedOut; on a non-zero exit OomKilled, DiskFull (fio's error 28) or
        ContainerFailed with the last lines of its output; EngineLost if the engine goes away."""
        c = self.container(image, name, command, **kw)
        return finished(c, name, timeout or default_timeout(self.estimate_s))

    def address(self, c, network: str) -> str:
        """Container c's IP address on Docker network `network` (a name)."""
        with engine_call(f"reading the address of {getattr(c, 'name', c)}"):
            c.reload()
        return c.attrs["NetworkSettings"]["Networks"][network]["IPAddress"]

    def connect(self, network: str, c) -> None:
        """Join container c to the existing Docker network `network` as well (a network of real hosts
        the lab was given; not the topology's, so not removed with it)."""
        with engine_call(f"connecting {getattr(c, 'name', c)} to network {network}"):
            self.client.networks.get(network).connect(c)

    def exec_detached(self, c, cmd: list[str]) -> None:
        """Start `cmd` in container c and return at once (a daemon that lives as long as the container;
        stop it by what it records, e.g. its pid file)."""
        with engine_call(f"starting {cmd[0]} in {getattr(c, 'name', c)}"):
            self.client.api.exec_start(self.client.api.exec_create(c.id, cmd)["Id"], detach=True)

    def volumes_disk(self) -> str:
        """The whole block device that holds this run's volumes (module function volumes_disk)."""
        return volumes_disk(self.client, self.options.scratch)

    def remove(self, obj) -> None:
        """Remove one object early (e.g. a finished fio container)."""
        for i, (kind, o) in enumerate(self._objects):
            if o is obj:
                with contextlib.suppress(Exception):
                    o.remove(force=True, v=True) if kind == "container" else o.remove()
                del self._objects[i]
                return


def network_names() -> set[str] | None:
    """The names of the engine's Docker networks, or None when no engine answers (for a lab's
    validate: a network it was told to join must exist before anything is made)."""
    client = labels.docker_client()
    if client is None:
        return None
    with engine_call("listing Docker's networks"):
        return {n.name for n in client.networks.list()}


def finished(c, name: str, timeout: float) -> str:
    """Wait (at most `timeout` s) for container c, called `name` in messages, to exit; its output if it
    exited 0, else the failure its state and output name (see Topology.run)."""
    import requests.exceptions

    from perflab.fio.jobs import error_number

    t0 = time.monotonic()
    with engine_call(f"the wait for container {name}"):
        try:
            res = c.wait(timeout=timeout)
        except requests.exceptions.ReadTimeout:
            if time.monotonic() - t0 < timeout:
                raise   # the engine hung before the limit: EngineLost
            raise WaitTimedOut(f"container {name}", timeout) from None
        out = c.logs(stdout=True, stderr=True).decode(errors="replace")
        code = res.get("StatusCode", -1)
        if code != 0:
            c.reload()
    if code == 0:
        return out
    if (c.attrs.get("State") or {}).get("OOMKilled"):
        raise OomKilled(name)
    if error_number(out) == errno.ENOSPC:   # fio's own err=28 (its JSON: perflab.fio.jobs)
        raise disk_full_in(c, name)
    tail = "\n".join(out.splitlines()[-20:])
    raise ContainerFailed(f"{name}: exit code {code}\n{tail}", c, name)


def _host_dir(c, mount: dict) -> str | None:
    """Where on the host a mount of container c writes: a bind's source, a volume's bound directory
    (a --scratch volume: its `device` option) or its mount point in Docker's own directory."""
    if mount.get("Type") == "volume" and mount.get("Name"):
        with contextlib.suppress(Exception):
            with engine_call(f"reading volume {mount['Name']}"):
                opts = c.client.volumes.get(mount["Name"]).attrs.get("Options") or {}
            if opts.get("device"):
                return opts["device"]
    return mount.get("Source")


def disk_full_in(c, name: str) -> DiskFull:
    """The DiskFull a container's ENOSPC means: the writable mount of c whose host directory has the
    least free space (named with that space), or the container's name when none can be read."""
    free = []
    for mount in (c.attrs.get("Mounts") or []):
        d = _host_dir(c, mount) if mount.get("RW", True) else None
        with contextlib.suppress(OSError, TypeError):
            st = os.statvfs(d)
            free.append((st.f_bavail * st.f_frsize, d, mount.get("Destination", "?")))
    if not free:
        return DiskFull(f"the files of container {name}")
    space, d, dest = min(free)
    return DiskFull(f"{d} ({dest} in container {name})", space // 2**20)


#: how long a command run in a container may take, unless its caller says (a hung fio, dd or mount
#: would otherwise hold a run for ever: the Docker SDK's exec has no timeout of its own)
EXEC_TIMEOUT_S = 1800.0
#: the Docker client's socket waits this long past an exec's own limit before the engine is taken
#: for lost (coreutils' `timeout` stops the command first: TERM at the limit, KILL 10 s later)
EXEC_SOCKET_GRACE_S = 60.0


class ExecTimedOut(WaitTimedOut):
    """A command in a container ran past its time and was stopped; the message names it and its last line."""

    def __init__(self, where: str, limit_s: float, last: str):
        Failure.__init__(self, where, f"{where} still ran after {limit_s:g} s and was stopped (last output: "
                                      f"{last[-200:]}): see the run's papermill.log, then `perflab clean`")
        self.limit_s = limit_s


_widen_lock = threading.Lock()
_widened: dict[int, tuple[float, int]] = {}   # id(api client): (its own timeout, calls widening it)


@contextlib.contextmanager
def socket_timeout(c, seconds: float):
    """The Docker client's socket timeout (120 s, labels.docker_client) raised to at least `seconds`
    while a call that may rightly stay quiet that long (an exec) is made on container c; put back after.
    A hung engine still ends the call: at that time, not never."""
    api = getattr(getattr(c, "client", None), "api", None)
    if api is None or not isinstance(getattr(api, "timeout", None), (int, float)):
        yield
        return
    with _widen_lock:
        own, n = _widened.get(id(api), (api.timeout, 0))
        _widened[id(api)] = (own, n + 1)
        api.timeout = max(api.timeout, seconds)
    try:
        yield
    finally:
        with _widen_lock:
            own, n = _widened.pop(id(api))
            if n > 1:
                _widened[id(api)] = (own, n - 1)
            else:
                api.timeout = own


def exec_sh(c, cmd: list[str] | str, timeout: float = EXEC_TIMEOUT_S) -> tuple[int, str]:
    """Run a command in container c under coreutils' `timeout` (in every image perflab builds: TERM at
    `timeout` s, KILL 10 s later); its exit code and output. A command stopped that way raises
    ExecTimedOut naming it, its time limit and its last line of output; a lost engine EngineLost."""
    argv = ["sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
    shown = f"'{(cmd if isinstance(cmd, str) else ' '.join(cmd))[:200]}' in container {getattr(c, 'name', '?')}"
    t0 = time.monotonic()
    with engine_call(shown), socket_timeout(c, timeout + 10 + EXEC_SOCKET_GRACE_S):
        r = c.exec_run(["timeout", "-k", "10", f"{timeout:g}", *argv])
    out = r.output.decode(errors="replace") if r.output else ""
    # 124: stopped by TERM; 137: by KILL. Either code of the command's own is told apart by the time
    if r.exit_code in (124, 137) and time.monotonic() - t0 >= timeout:
        last = next((ln for ln in reversed(out.strip().splitlines()) if ln.strip()), "no output")
        raise ExecTimedOut(shown, timeout, last)
    return r.exit_code, out


def wait_for_file(c, path: str, timeout: float, what: str) -> None:
    """Until `path` exists in container c; if the container stops first, fail with its output."""
    def ready():
        with engine_call(what):
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
    raise WaitTimedOut(what, timeout)


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
        with engine_call(what):
            c.reload()
        if c.status != "running":
            raise ContainerFailed(f"{what}:\n" + c.logs().decode(errors="replace")[-2000:])
        time.sleep(min(0.5, max(0.0, t_end - time.time())))


def volumes_disk(client, scratch_root: Path | None = None) -> str:
    """The whole block device (/dev/NAME) that holds a lab's volumes: the `--scratch` directory's
    when one was chosen (`scratch_root`, the run's options.scratch), else Docker's data root's. It is the device that
    docker's --device-read-iops/--device-read-bps must name to limit a lab's "disk"
    (chapters/benchmarking.md, chapters/stepping.md)."""
    import os

    root = scratch_root or client.info().get("DockerRootDir", "/var/lib/docker")
    what = "the scratch directory" if scratch_root else "Docker's data root"
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

