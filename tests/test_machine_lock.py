"""One lab at a time per machine: a second holder of the lab lock waits, says for whom, and gets
the lock when the first lets go (also when the first is killed)."""
import subprocess
import sys
import time

from perflab.infra.lock import machine_lock

HOLD = """
import sys, time
from pathlib import Path
from perflab.infra.lock import machine_lock
with machine_lock("first-lab smoke", path=Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _holder(path, seconds):
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_second_run_waits_names_the_holder_and_then_runs(tmp_path):
    lock = tmp_path / "labs.lock"
    first = _holder(lock, 1.5)
    notes, t0 = [], time.time()
    with machine_lock("second-lab smoke", notes.append, path=lock):
        waited = time.time() - t0
        assert "second-lab smoke pid" in lock.read_text()
    first.wait()
    assert waited >= 1.0 and notes and notes[0].startswith("first-lab smoke pid")


def test_a_killed_holder_releases_the_lock(tmp_path):
    lock = tmp_path / "labs.lock"
    first = _holder(lock, 60)
    first.kill()
    first.wait()
    notes = []
    with machine_lock("next", notes.append, path=lock):
        assert notes == []   # free at once: nobody to wait for
