"""run.json is written atomically and survives concurrent writers; resources are released."""
import json
import multiprocessing
import subprocess
import sys
import time

from perflab.run import progress
from perflab.infra import cleanup, ledger
from perflab.run.record import RunRecord


def _writer(d, i):
    r = RunRecord(d)
    for k in range(20):
        r.metric(**{f"w{i}_{k}": k})


def test_concurrent_updates_are_not_lost(tmp_path):
    r = RunRecord(tmp_path)
    r.create({"run_id": "x", "lab": "t"})
    ps = [multiprocessing.Process(target=_writer, args=(tmp_path, i)) for i in range(3)]
    [p.start() for p in ps]
    [p.join() for p in ps]
    doc = r.read()
    assert len(doc["metrics"]) == 60 and doc["status"] == "incomplete"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".run.json.")]


def test_nan_is_stored_as_null_and_checks_replace(tmp_path):
    r = RunRecord(tmp_path)
    r.create({"run_id": "x"})
    r.metric(a=float("nan"))
    r.check("c", False, 1, "> 2")
    r.check("c", True, 3, "> 2")
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["metrics"]["a"] is None and doc["checks"] == [{"name": "c", "passed": True, "value": 3, "expected": "> 2"}]


def test_killed_writer_leaves_a_complete_file(tmp_path):
    """SIGKILL a process that rewrites run.json in a loop; the file always parses."""
    r = RunRecord(tmp_path)
    r.create({"run_id": "x", "big": "y" * 200000})
    code = ("import sys; from perflab.run.record import RunRecord; r=RunRecord(sys.argv[1]);\n"
            "i=0\nwhile True:\n  i+=1; r.metric(i=i)\n")
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)])
    t_end = time.time() + 60            # wait for the writer to be writing (a loaded machine starts it late)
    while r.read().get("metrics", {}).get("i", 0) < 50:
        assert time.time() < t_end and p.poll() is None, "the writer never wrote"
        time.sleep(0.05)
    p.kill()                            # mid-write, most likely: it does nothing else
    p.wait()
    doc = r.read()
    assert doc["metrics"]["i"] > 0 and doc["big"] == "y" * 200000


def test_ledger_process_and_path(tmp_path):
    led = ledger.Ledger(tmp_path)
    scratch = tmp_path / "scratch"
    led.record("path", str(scratch))
    scratch.mkdir()
    p = subprocess.Popen(["sleep", "300"], env=led.child_env())   # started for the run: it carries the marker
    led.record_process(p.pid, "test sleeper")
    assert {e["kind"] for e in led.open_entries()} == {"path", "process"}
    assert cleanup.clean_run(tmp_path, None) == []
    assert p.wait(5) is not None and not scratch.exists()
    assert led.open_entries() == []


def test_ledger_does_not_kill_a_reused_pid(tmp_path):
    """A recorded PID whose start time differs is some other process: left alone."""
    p = subprocess.Popen(["sleep", "300"])
    try:
        led = ledger.Ledger(tmp_path)
        led.record("process", str(p.pid), start_time=1, what="not this one")
        assert "left alone: not perflab's" in cleanup.clean_run(tmp_path, None)[0]
        assert p.poll() is None
    finally:
        p.kill()
        p.wait()


def test_progress_line():
    t0 = 1000.0
    ev = [{"t": t0, "event": "plan", "plan": [["prepare", 5], ["fio", 20], ["collect", 2]]},
          {"t": t0, "event": "start", "phase": "prepare", "index": 0, "expected_s": 5},
          {"t": t0 + 4, "event": "end", "phase": "prepare"},
          {"t": t0 + 4, "event": "start", "phase": "fio", "index": 1, "expected_s": 20}]
    line = progress.status_line(ev, t0, t0 + 14)
    assert line == "phase 2/3 fio: 10 s of ~20 s; elapsed 14 s; ~12 s remaining"


def test_clean_removes_only_paths_perflab_makes(tmp_path):
    """A run directory copied from elsewhere (a student's hand-in) may name any path in its ledger:
    `perflab clean` removes paths only inside the run directory, /run/perflab/<run>, /dev/shm/perflab-<run>
    or the run's own --scratch directory <scratch>/perflab-<run> (from its run.json), and names what it
    left alone (issues 27, 40; tests/test_clean_ownership.py has the rest)."""
    import json

    from perflab.infra import cleanup
    from perflab.infra.ledger import Ledger, Run, prove_path

    run = tmp_path / "runs" / "20261126-heatmaps-abc"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"provenance": {"scratch": {"path": str(tmp_path / "disk")}}}))
    victim = tmp_path / "home" / "notes"
    victim.mkdir(parents=True)
    (victim / "thesis.txt").write_text("years of work")
    scratch = tmp_path / "disk" / f"perflab-{run.name}" / "vol"
    scratch.mkdir(parents=True)
    inside = run / "host" / "mnt"
    inside.mkdir(parents=True)
    led = Ledger(run)
    for p in (victim, scratch, inside, tmp_path / "disk" / f"perflab-{run.name}" / ".." / ".." / "home"):
        led.record("path", str(p))
    failed = cleanup.clean_run(run)
    assert (victim / "thesis.txt").read_text() == "years of work"
    assert not scratch.exists() and not inside.exists()
    assert len(failed) == 2, failed
    assert all("left alone: not perflab's" in f and "not in a place perflab makes" in f for f in failed), failed
    r = Run(run)
    assert prove_path(f"/run/perflab/{run.name}", r) is None
    assert prove_path(f"/dev/shm/perflab-{run.name}/ht/d0", r) is None
    assert prove_path(f"/run/perflab/{run.name}/../other", r) and prove_path("/etc", r)
    assert prove_path(f"/dev/shm/perflab-{run.name}x/d0", r) and prove_path(str(run), r)
