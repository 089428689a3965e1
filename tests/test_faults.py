"""Faults injected for real, mid-run: each ends in one line naming its cause, exit 3, the cause in
run.json (`failure.kind`), and nothing left behind once `perflab clean` has run (issue 40).

- A disk that fills up: the run's Docker volumes on a small tmpfs (`--scratch`), filled by this test
  as soon as the run's volume appears there, before fio lays out its file.
- The Docker engine stopped mid-run (SIGTERM to dockerd by the PID in its pid file), then started
  again as `make setup` starts it; marked long (it takes the engine away from everything else).
"""
import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, perflab_cmd
from test_lab_runs import _start, _wait_for_containers, assert_nothing_left, keep, run_dirs

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _fill(directory: Path, leave_bytes: int) -> None:
    """Take all the free space of the file system holding `directory` but `leave_bytes`."""
    st = os.statvfs(directory)
    free = st.f_bavail * st.f_frsize - leave_bytes
    with open(directory / "filler", "wb") as f:
        chunk = b"\0" * (1 << 20)
        while free > 0:
            f.write(chunk[:min(len(chunk), free)])
            free -= len(chunk)


def _finished(p: subprocess.Popen, artifacts: Path, name: str, timeout: float = 300) -> tuple[str, str]:
    out, err = p.communicate(timeout=timeout)
    keep(artifacts, name, f"exit {p.returncode}\n--- stdout\n{out}\n--- stderr\n{err}")
    return out, err


def _failure_line(err: str) -> str:
    """The runner's one line about the failure (the last line on stderr that says `failed`)."""
    return next((ln for ln in reversed(err.splitlines()) if "failed" in ln), "")


def test_a_scratch_disk_that_fills_mid_run_ends_in_one_line_naming_it(docker_ok, artifacts):
    tmp = Path(tempfile.mkdtemp(prefix="perflab-test-fill-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160m", "tmpfs", str(tmp)], check=True, timeout=30)
    try:
        before = {d.name for d in run_dirs()}
        p = _start("heatmaps", "--scratch", str(tmp))
        t_end, volume = time.time() + 180, None
        while volume is None and time.time() < t_end and p.poll() is None:
            volume = next(iter(tmp.glob("perflab-*/data")), None)
            time.sleep(0.01)
        assert volume is not None, "the run's volume never appeared under --scratch"
        _fill(tmp, 4 << 20)   # 4 MiB left: fio's 64 MiB file cannot be laid out
        out, err = _finished(p, artifacts, "disk-full.txt")
        assert p.returncode == 3, err[-2000:]
        run_dir = Path(out.strip().splitlines()[-1])
        assert run_dir.name not in before
        doc = json.loads((run_dir / "run.json").read_text())
        assert doc["status"] == "failed"
        assert doc["failure"]["kind"] == "disk-full", doc.get("failure")
        line = _failure_line(err)
        assert "filled up" in line and "perflab clean" in line, err[-2000:]
        assert "Traceback" not in err
    finally:
        with __import__("contextlib").suppress(FileNotFoundError):
            (tmp / "filler").unlink()
        subprocess.run(["umount", str(tmp)], timeout=60)
        tmp.rmdir()
    r = perflab_cmd("clean")
    keep(artifacts, "clean.txt", r)
    assert r.returncode == 0, r.stderr
    assert_nothing_left(artifacts)


def _dockerd_pid() -> int:
    return int(Path("/var/run/docker.pid").read_text())


def _start_dockerd(timeout: float = 60) -> None:
    """dockerd as `make setup` starts it (scripts/setup-system.sh), until it answers."""
    subprocess.run(["sh", "-c", "nohup dockerd >>/var/log/perflab-dockerd.log 2>&1 &"], check=True, timeout=30)
    t_end = time.time() + timeout
    while time.time() < t_end:
        if subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0:
            return
        time.sleep(1)
    raise AssertionError("dockerd did not come back (see /var/log/perflab-dockerd.log)")


@pytest.mark.long
def test_an_engine_stopped_mid_run_ends_in_one_line_naming_it(docker_ok, artifacts):
    before = {d.name for d in run_dirs()}
    p = _start("heatmaps", "-p", "runtime=120s")
    run_id = _wait_for_containers(before)
    time.sleep(5)
    pid = _dockerd_pid()
    os.kill(pid, signal.SIGTERM)
    try:
        t_end = time.time() + 120
        while time.time() < t_end and Path(f"/proc/{pid}").exists():
            time.sleep(0.5)
        out, err = _finished(p, artifacts, "engine-lost.txt")
        assert p.returncode == 3, err[-2000:]
        doc = json.loads((ROOT / "data" / "runs" / run_id / "run.json").read_text())
        assert doc["failure"]["kind"] == "engine-lost", doc.get("failure")
        line = _failure_line(err)
        assert "Docker engine stopped answering" in line, err[-2000:]
        check = perflab_cmd("clean", "--check")   # no engine: it cannot look, and says so
        keep(artifacts, "check-without-engine.txt", check)
        assert check.returncode == 3 and "nothing left" not in check.stderr, check.stderr
    finally:
        if not Path(f"/proc/{pid}").exists():
            _start_dockerd()
    r = perflab_cmd("clean")
    keep(artifacts, "clean.txt", r)
    assert r.returncode == 0, r.stderr
    assert_nothing_left(artifacts)
