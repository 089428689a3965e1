"""`perflab clean` acts only on what the kernel or the engine shows is the run's (issue 40): a run's
ledger is untrusted input (a student's hand-in), so every object a crafted ledger names that is not
the run's is left alone, said so ("left alone: not perflab's: <kind> <id>: <reason>") and the exit
status is 1, with and without --force; what the run did make is still removed; a --run that is not a
run's name is refused (2); and with no Docker engine answering, `clean` and `clean --check` say so (3).

Every test drives the real command line on a project root of its own (tmp_path, with the checkout's
book.toml) and removes what it made, processes by PID and loop/zram devices, also on failure.
"""
import contextlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from perflab import cli
from perflab.infra import labels, procs
from perflab.infra.ledger import Ledger, proc_start_time

REPO = Path(__file__).resolve().parent.parent
ROOT_NEEDS = ("book.toml", "labs", "chapters", "containers")

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="makes host objects: needs root")
needs_loop = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("losetup")
                                or not Path("/dev/loop-control").exists(), reason="needs root and loop devices")
needs_zram = pytest.mark.skipif(os.geteuid() != 0 or not Path("/sys/class/zram-control/hot_add").exists(),
                                reason="needs root and zram")


class Engine:
    """A Docker engine that answers and shows `containers` ({id: container}) and nothing else."""

    def __init__(self, containers=None):
        self.found = containers or {}
        self.containers, self.networks, self.volumes = self, self, self

    def list(self, **kw):
        return []

    def get(self, cid):
        if cid not in self.found:
            raise LookupError(f"no such container: {cid}")
        return self.found[cid]


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A project root of the test's own (PERFLAB_ROOT), its engine a fake one that answers."""
    r = tmp_path / "root"
    (r / "data" / "runs").mkdir(parents=True)
    for name in ROOT_NEEDS:
        (r / name).symlink_to(REPO / name)
    monkeypatch.setenv("PERFLAB_ROOT", str(r))
    monkeypatch.setattr(labels, "engine", lambda: Engine())
    return r


def _run(root: Path, name: str = "heatmaps-20260101-000000-abcdef") -> Ledger:
    d = root / "data" / "runs" / name
    d.mkdir()
    (d / "run.json").write_text(json.dumps({"run_id": name, "status": "failed", "provenance": {"scratch": None}}))
    return Ledger(d)


def clean(capsys, *args: str) -> tuple[int, str]:
    rc = cli.main(["clean", *args])
    out = capsys.readouterr()
    return rc, out.out + out.err


def assert_left_alone(capsys, led: Ledger, kind: str, ident: str, intact) -> None:
    """`clean --run` and `clean --run --force` both leave the object alone, say so, exit 1."""
    for extra in ((), ("--force",)):
        rc, text = clean(capsys, "--run", led.dir.name, *extra)
        assert rc == 1 and f"left alone: not perflab's: {kind} {ident}: " in text, text
        assert intact(), f"{kind} {ident} was acted on ({extra})"
    rc, text = clean(capsys, "--check")
    assert rc == 1 and f"left alone: not perflab's: {kind} {ident}" in text, text


@contextlib.contextmanager
def sleeper(env=None):
    """A `sleep` of the test's own, killed and reaped by PID however the test ends."""
    p = subprocess.Popen(["sleep", "300"], env=env)
    try:
        yield p
    finally:
        p.kill()
        p.wait()


# --- paths and mounts ---------------------------------------------------------------------------

def test_a_path_through_a_symlink_in_the_run_directory_is_left_alone(root, tmp_path, capsys):
    led = _run(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("mine")
    (led.dir / "evil").symlink_to(elsewhere)
    led.record("path", str(led.dir / "evil" / "keep"))
    assert_left_alone(capsys, led, "path", str(led.dir / "evil" / "keep"),
                      lambda: (elsewhere / "keep").read_text() == "mine")


def test_a_folder_named_after_the_run_elsewhere_is_left_alone(root, tmp_path, capsys):
    led = _run(root)
    foreign = tmp_path / "home" / f"perflab-{led.dir.name}" / "keep"
    foreign.mkdir(parents=True)
    led.record("path", str(foreign))
    assert_left_alone(capsys, led, "path", str(foreign), foreign.is_dir)


@needs_root
def test_a_mount_outside_the_runs_places_is_left_alone(root, tmp_path, capsys):
    from perflab.infra.ledger import is_mounted

    led = _run(root)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    subprocess.run(["mount", "--bind", str(theirs), str(theirs)], check=True)
    try:
        led.record("mount", str(theirs))
        assert_left_alone(capsys, led, "mount", str(theirs), lambda: is_mounted(str(theirs)))
    finally:
        subprocess.run(["umount", str(theirs)], capture_output=True)


def test_the_runs_own_places_are_still_cleaned(root, tmp_path, capsys):
    """Inside the run directory, under /dev/shm/perflab-<run> and under its --scratch directory (as
    its run.json records it): removed, and nothing is said to stay."""
    led = _run(root)
    scratch = tmp_path / "scratch"
    doc = json.loads((led.dir / "run.json").read_text())
    doc["provenance"]["scratch"] = {"path": str(scratch)}
    (led.dir / "run.json").write_text(json.dumps(doc))
    shm = Path("/dev/shm") / f"perflab-{led.dir.name}"
    made = [led.dir / "host" / "mnt", scratch / f"perflab-{led.dir.name}" / "vol", shm / "lab"]
    try:
        for p in made:
            p.mkdir(parents=True)
            (p / "f").write_text("x")
            led.record("path", str(p))
        led.record("path", str(shm))
        rc, text = clean(capsys, "--run", led.dir.name)
        assert rc == 0 and "left alone" not in text, text
        assert not any(p.exists() for p in made) and not shm.exists() and led.open_entries() == []
    finally:
        shutil.rmtree(shm, ignore_errors=True)


def test_run_names_only(root, capsys, tmp_path):
    for bad in ("../..", "/tmp", ".", "a/b"):
        rc, text = clean(capsys, "--run", bad)
        assert rc == 2 and repr(bad) in text and "not a run name" in text, text
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("mine")
    Ledger(victim).record("path", str(victim / "keep"))
    (root / "data" / "runs" / "linked").symlink_to(victim)
    rc, text = clean(capsys, "--run", "linked")
    assert rc == 1 and "a symbolic link, not a run directory" in text and (victim / "keep").exists(), text
    rc, text = clean(capsys)
    assert rc == 0 and (victim / "keep").exists(), text


def test_a_kind_nothing_records_is_left_alone(root, tmp_path, capsys):
    led = _run(root)
    cg = tmp_path / "cgroup"
    cg.mkdir()
    with open(led.path, "a") as f:
        f.write(json.dumps({"op": "create", "kind": "cgroup", "id": str(cg)}) + "\n")
    rc, text = clean(capsys, "--run", led.dir.name, "--force")
    assert rc == 1 and f"left alone: unknown kind: cgroup {cg}" in text and cg.is_dir(), text


# --- processes ----------------------------------------------------------------------------------

def test_a_process_without_a_start_time_is_left_alone(root, capsys):
    led = _run(root)
    with sleeper(led.child_env()) as p:
        led.record("process", str(p.pid), what="sleep")
        assert_left_alone(capsys, led, "process", str(p.pid), lambda: p.poll() is None)


def test_a_process_with_another_start_time_is_left_alone(root, capsys):
    led = _run(root)
    with sleeper(led.child_env()) as p:
        led.record("process", str(p.pid), start_time=proc_start_time(p.pid) + 1, what="sleep")
        assert_left_alone(capsys, led, "process", str(p.pid), lambda: p.poll() is None)


def test_a_process_not_started_for_the_run_is_left_alone(root, capsys):
    """The right PID and start time, but no marker of this run in its environment (or another run's)."""
    led = _run(root)
    other = _run(root, "heatmaps-20260101-000000-000000")
    for env in ({k: v for k, v in os.environ.items() if k != labels.RUN_DIR_ENV}, other.child_env()):
        with sleeper(env) as p:
            led.record_process(p.pid, "sleep")
            assert_left_alone(capsys, led, "process", str(p.pid), lambda: p.poll() is None)
            led.release("process", str(p.pid))


def test_a_process_started_for_the_run_is_stopped(root, capsys):
    led = _run(root)
    with sleeper(led.child_env()) as p:
        led.record_process(p.pid, "sleep")
        rc, text = clean(capsys, "--run", led.dir.name)
        assert rc == 0 and p.wait(5) is not None and led.open_entries() == [], text


def test_a_process_started_for_the_run_that_no_ledger_records_is_stopped(root, capsys):
    """A kernel its runner's SIGKILL left running before it recorded itself: its environment names the
    run, so --check lists it and clean stops it (recording it first); another run's is left running."""
    led = _run(root)
    other = _run(root, "heatmaps-20260101-000000-000000")
    with sleeper(led.child_env()) as p, sleeper(other.child_env()) as q:
        rc, text = clean(capsys, "--check")
        assert rc == 1 and f"process {p.pid} (run {led.dir.name})" in text \
            and f"process {q.pid} (run {other.dir.name})" in text, text
        rc, text = clean(capsys, "--run", led.dir.name)
        assert rc == 0 and p.wait(15) is not None and q.poll() is None, text
        stopped = [json.loads(x) for x in led.path.read_text().splitlines()]
        assert [(e["op"], e["id"], e.get("what")) for e in stopped] == [
            ("create", str(p.pid), "found by its run marker"), ("release", str(p.pid), None)]


def test_a_process_started_while_the_runs_processes_are_stopped_is_stopped_too(root, capsys):
    """One the run's process starts as it is being stopped (a child the next look finds)."""
    led = _run(root)
    script = "trap 'sleep 300 & echo $! > child; exit 0' TERM; sleep 300 & wait"
    p = subprocess.Popen(["bash", "-c", script], env=led.child_env(), cwd=led.dir)
    try:
        deadline = time.time() + 10
        while len(procs.marked_processes(led.dir)) < 2 and time.time() < deadline:
            time.sleep(0.05)   # bash and its first sleep
        rc, text = clean(capsys, "--run", led.dir.name)
        child = int((led.dir / "child").read_text())
        assert rc == 0 and p.wait(15) is not None and not procs.process_alive(child, None), text
        assert procs.marked_processes(led.dir) == [] and led.open_entries() == []
    finally:
        for pid in [p.pid, *procs.marked_processes(led.dir)]:   # the test's own, by PID
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)
        p.wait()


# --- loop and zram devices ----------------------------------------------------------------------

@contextlib.contextmanager
def loop_on(path: Path):
    """A loop device of the test's own on `path`, detached however the test ends."""
    with open(path, "wb") as f:
        f.truncate(4 << 20)
    dev = subprocess.run(["losetup", "-f", "--show", str(path)], capture_output=True, text=True,
                         check=True).stdout.strip()
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], capture_output=True)


def _bound(dev: str) -> bool:
    return Path(f"/sys/block/{Path(dev).name}/loop/backing_file").exists()


@needs_loop
def test_someone_elses_loop_device_is_left_alone(root, tmp_path, capsys):
    led = _run(root)
    with loop_on(tmp_path / "theirs.img") as dev:
        led.record("loop", dev)
        assert_left_alone(capsys, led, "loop", dev, lambda: _bound(dev))
        led.release("loop", dev)
        led.record("loop", dev, backing=str(tmp_path / "theirs.img"))   # the right file, not the run's
        assert_left_alone(capsys, led, "loop", dev, lambda: _bound(dev))


@needs_loop
def test_a_loop_device_on_the_runs_own_file_is_detached(root, capsys):
    led = _run(root)
    with loop_on(led.dir / "disk.img") as dev:
        led.record("loop", dev, backing=str(led.dir / "disk.img"))
        rc, text = clean(capsys, "--run", led.dir.name)
        assert rc == 0 and not _bound(dev) and led.open_entries() == [], text


@contextlib.contextmanager
def zram(size: int):
    """A zram device of the test's own of `size` bytes (0: never sized), removed however the test ends."""
    idx = int(Path("/sys/class/zram-control/hot_add").read_text().strip())
    try:
        if size:
            Path(f"/sys/block/zram{idx}/disksize").write_text(str(size))
        yield f"/dev/zram{idx}"
    finally:
        with contextlib.suppress(OSError):
            Path(f"/sys/block/zram{idx}/reset").write_text("1")
        with contextlib.suppress(OSError):
            Path("/sys/class/zram-control/hot_remove").write_text(str(idx))


def _zram_there(dev: str) -> bool:
    return Path("/sys/block", Path(dev).name).exists()


@needs_zram
def test_someone_elses_zram_device_is_left_alone(root, capsys):
    led = _run(root)
    with zram(8 << 20) as dev:
        led.record("zram", dev)                                       # no size recorded
        assert_left_alone(capsys, led, "zram", dev, lambda: _zram_there(dev))
        led.release("zram", dev)
        led.record("zram", dev, disksize=16 << 20)                    # another size
        assert_left_alone(capsys, led, "zram", dev, lambda: _zram_there(dev))
        led.release("zram", dev)
        led.record("zram", dev, disksize=8 << 20)                     # the size, but in use: open here
        fd = os.open(dev, os.O_RDONLY)
        try:
            assert_left_alone(capsys, led, "zram", dev, lambda: _zram_there(dev))
            rc, text = clean(capsys, "--run", led.dir.name)
            assert f"process {os.getpid()} has it open" in text, text
        finally:
            os.close(fd)


@needs_zram
def test_the_runs_own_zram_device_is_removed_in_run_and_by_clean(root, capsys):
    from perflab.infra import zfs

    led = _run(root)
    with zfs.zram_device(led, 8 << 20) as dev:
        assert _zram_there(dev)
    assert not _zram_there(dev) and led.open_entries() == []
    with zram(8 << 20) as dev:
        led.record("zram", dev, disksize=8 << 20)
        rc, text = clean(capsys, "--run", led.dir.name)
        assert rc == 0 and not _zram_there(dev) and led.open_entries() == [], text


# --- tc qdiscs ----------------------------------------------------------------------------------

def _sh(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), capture_output=True, text=True)


def _shaped(dev: str) -> bool:
    return " tbf " in _sh("tc", "qdisc", "show", "dev", dev).stdout


@pytest.fixture
def veth_in_netns():
    """A host-side veth whose peer is eth0 in a network namespace of its own (as a container's is),
    with a tbf on it: (host interface, its ifindex, the namespace's process). All removed afterwards."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("nsenter"):
        pytest.skip("needs root, unshare and nsenter")
    name = f"plo{os.getpid() % 100000}"
    ns = subprocess.Popen(["unshare", "--net", "sleep", "300"])
    try:
        if _sh("ip", "link", "add", name, "type", "veth", "peer", "name", name + "p").returncode:
            pytest.skip("no veth here")
        for cmd in (("ip", "link", "set", name + "p", "netns", str(ns.pid)),
                    ("nsenter", "-t", str(ns.pid), "-n", "ip", "link", "set", name + "p", "name", "eth0"),
                    ("tc", "qdisc", "replace", "dev", name, "root", "tbf", "rate", "8mbit", "burst", "64kb",
                     "latency", "50ms")):
            r = _sh(*cmd)
            assert r.returncode == 0, r.stderr
        yield name, int(Path(f"/sys/class/net/{name}/ifindex").read_text()), ns.pid
    finally:
        _sh("ip", "link", "del", name)
        ns.kill()
        ns.wait()


def test_a_qdisc_on_an_interface_perflab_did_not_shape_is_left_alone(root, veth_in_netns, capsys, monkeypatch):
    name, idx, pid = veth_in_netns
    led = _run(root)
    led.record("tc", name, qdisc="tbf")                                    # nothing that names a container
    assert_left_alone(capsys, led, "tc", name, lambda: _shaped(name))
    led.release("tc", name)
    led.record("tc", name, qdisc="tbf", container="c1", ifindex=idx)     # a container the engine does not show
    assert_left_alone(capsys, led, "tc", name, lambda: _shaped(name))
    other = SimpleNamespace(labels={labels.LABEL_RUN: "another-run"}, attrs={"State": {"Pid": pid}})
    monkeypatch.setattr(labels, "engine", lambda: Engine({"c1": other}))  # another run's container
    assert_left_alone(capsys, led, "tc", name, lambda: _shaped(name))
    ours = SimpleNamespace(labels={labels.LABEL_RUN: led.dir.name}, attrs={"State": {"Pid": os.getpid()}})
    monkeypatch.setattr(labels, "engine", lambda: Engine({"c1": ours}))   # the run's, but not its peer
    assert_left_alone(capsys, led, "tc", name, lambda: _shaped(name))


def test_the_qdisc_on_the_runs_own_containers_veth_is_removed(root, veth_in_netns, capsys, monkeypatch):
    name, idx, pid = veth_in_netns
    led = _run(root)
    mine = SimpleNamespace(labels={labels.LABEL_RUN: led.dir.name}, attrs={"State": {"Pid": pid}})
    monkeypatch.setattr(labels, "engine", lambda: Engine({"c1": mine}))
    led.record("tc", name, qdisc="tbf", container="c1", ifindex=idx)
    rc, text = clean(capsys, "--run", led.dir.name)
    assert rc == 0 and not _shaped(name) and led.open_entries() == [], text


# --- no engine ----------------------------------------------------------------------------------

def test_with_no_engine_clean_says_it_could_not_look(root, tmp_path):
    """`clean --check` never says "nothing left" when it could not look; `clean` still removes what
    the host alone proves the run's, then exits 3 naming the engine."""
    led = _run(root)
    (led.dir / "host").mkdir()
    led.record("path", str(led.dir / "host"))
    env = {**os.environ, "PERFLAB_ROOT": str(root), "DOCKER_HOST": "unix:///nonexistent.sock"}
    for args in (("clean", "--check"), ("clean",), ("clean", "--run", led.dir.name)):
        r = subprocess.run([str(REPO / "scripts" / "perflab"), *args], capture_output=True, text=True, env=env,
                           timeout=300)
        assert r.returncode == 3, r.stderr
        assert "DOCKER_HOST=unix:///nonexistent.sock" in r.stderr and "nothing left" not in r.stderr, r.stderr
    assert not (led.dir / "host").exists()
