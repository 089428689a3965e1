"""Host objects that record themselves (perflab.infra.hostobjects): in the run's ledger before they
exist, given back and released on the way out, also when the block fails."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perflab.infra import hostobjects
from perflab.infra.ledger import Ledger


def _kinds(led: Ledger) -> list[tuple[str, str]]:
    return [(e["kind"], e["id"]) for e in led.open_entries()]


def test_scratch_dir_is_recorded_before_it_exists_and_removed_on_failure(tmp_path):
    led = Ledger(tmp_path)
    d = tmp_path / "scratch" / "deep"
    with pytest.raises(ZeroDivisionError):
        with hostobjects.scratch_dir(led, d) as got:
            assert got == d and d.is_dir()
            assert _kinds(led) == [("path", str(d))]
            (d / "f").write_text("x")
            1 / 0
    assert not d.exists() and _kinds(led) == []


def test_process_is_recorded_while_it_runs_and_killed_if_it_outlives_the_block(tmp_path):
    led = Ledger(tmp_path)
    with hostobjects.process(led, [sys.executable, "-c", "import time; time.sleep(60)"], "sleeper",
                             stop_timeout=0.2) as proc:
        assert _kinds(led) == [("process", str(proc.pid))]
    assert proc.returncode is not None and _kinds(led) == []
    with hostobjects.process(led, ["true"], "quick") as proc:
        pass
    assert proc.returncode == 0 and _kinds(led) == []


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("losetup") or not Path("/dev/loop-control").exists(),
                    reason="needs root and loop devices")
def test_loop_device_is_bound_recorded_and_detached(tmp_path):
    led = Ledger(tmp_path)
    backing = tmp_path / "disk.img"
    with open(backing, "wb") as f:
        f.truncate(4 << 20)
    with hostobjects.loop_device(led, str(backing)) as dev:
        assert _kinds(led) == [("loop", dev)]
        shown = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True, text=True).stdout
        assert str(backing) in shown
    assert _kinds(led) == []
    assert str(backing) not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
