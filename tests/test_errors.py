"""One error model (perflab.errors): bad input of every kind gets its documented exit status and one
line on stderr, never a traceback, and creates nothing."""
from pathlib import Path

import pytest

from perflab import cli, errors
from perflab.infra import labels


ROOT = __import__("conftest").ROOT


def run(capsys, *argv):
    before = set((ROOT / "data" / "runs").glob("*")) if (ROOT / "data" / "runs").exists() else set()
    rc = cli.main(list(argv))
    err = capsys.readouterr().err
    after = set((ROOT / "data" / "runs").glob("*")) if (ROOT / "data" / "runs").exists() else set()
    made = {p for p in after - before if p.name != "perflab-errors.log"}
    return rc, err, made


@pytest.mark.parametrize("argv,status,words", [
    (["run", "no-such-lab", "--dry-run"], 2, "unknown lab"),
    (["run", "jbod", "-p", "hbas=9", "--dry-run"], 2, "hbas=9"),
    (["run", "jbod", "-p", "nonsense=1", "--dry-run"], 2, "nonsense"),
    (["run", "heatmaps", "--preset", "huge", "--dry-run"], 2, "huge"),
    (["heatmap", "/nonexistent/x_clat.1.log"], 2, "nonexistent"),
])
def test_bad_input_is_refused_in_one_line(capsys, argv, status, words):
    rc, err, made = run(capsys, *argv)
    assert rc == status, err
    assert words in err and "Traceback" not in err
    assert not made


def test_corrupt_and_truncated_logs(capsys, tmp_path):
    bad = tmp_path / "bad_clat.1.log"
    bad.write_text("1, 100, 0, 4096, 0\n2, x, 0, 4096, 0\n")
    cut = tmp_path / "cut_clat.1.log"
    cut.write_text("1, 100, 0, 4096, 0\n2, 10")
    for f, words in ((bad, ":2: not an unsigned integer"), (cut, "truncated last line")):
        rc, err, _ = run(capsys, "heatmap", str(f))
        assert rc == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_unwritable_output(capsys, tmp_path):
    log = tmp_path / "a_clat.1.log"
    log.write_text("1, 100, 0, 4096, 0\n")
    rc, err, _ = run(capsys, "heatmap", str(log), "--csv", str(tmp_path / "no" / "such" / "dir" / "c.csv"))
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_no_docker_engine_is_refused(capsys, monkeypatch):
    monkeypatch.setattr(labels, "docker_client", lambda: None)
    rc, err, made = run(capsys, "run", "heatmaps", "--preset", "smoke")
    assert rc == 2 and "needs a Docker engine" in err and not made


def test_a_lab_that_needs_zram_is_refused_where_it_cannot_be_sized(capsys, monkeypatch):
    """Under a read-only /sys (a container without --privileged) a device could be made, never sized
    nor removed: the l2arc lab is refused before anything is made, and says why."""
    import os

    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: False if str(p).startswith("/sys/class/zram")
                        else real(p, mode, *a, **k))
    monkeypatch.setattr(labels, "docker_client", lambda: object())   # an engine answers (or not): not the point here
    before = sorted(p.name for p in Path("/sys/block").glob("zram*"))
    rc, err, made = run(capsys, "run", "l2arc", "--preset", "smoke")
    assert rc == 2 and "lacks: zram:" in err and "/sys is read-only" in err and not made, err
    assert sorted(p.name for p in Path("/sys/block").glob("zram*")) == before


def test_an_unexpected_error_is_one_line_and_the_traceback_goes_to_the_log(capsys, monkeypatch):
    from perflab import cli as c

    def boom(m, args):
        raise KeyError("surprise")

    monkeypatch.setattr(c.commands, "cmd_labs", boom)
    rc, err, _ = run(capsys, "labs")
    assert rc == errors.EXIT_FAILED
    assert err.count("\n") == 1 and "internal error: KeyError" in err and "details:" in err
    log = ROOT / cli.ERROR_LOG
    assert "Traceback" in log.read_text()


def test_every_user_facing_error_has_a_documented_status():
    """Every exception class defined anywhere in the package derives from PerflabError and carries
    one of the documented exit statuses (every module is imported, so a new one is covered)."""
    import importlib
    import inspect
    import pkgutil

    import perflab

    names = [m.name for m in pkgutil.walk_packages(perflab.__path__, "perflab.") if not m.name.endswith("__main__")]
    assert "perflab.teaching.sealing" in names and "perflab.fio.logs" in names
    for name in names:
        mod = importlib.import_module(name)
        for cname, obj in inspect.getmembers(mod, inspect.isclass):
            if issubclass(obj, Exception) and obj.__module__ == mod.__name__:
                assert issubclass(obj, errors.PerflabError), f"{mod.__name__}.{cname}"
                assert obj.exit_status in (1, 2, 3)


def test_clean_run_leaves_a_live_run_alone(tmp_path, monkeypatch, capsys):
    """`perflab clean --run ID` on a run whose runner is alive removes nothing (its docker objects
    included) unless --force."""
    import json
    import subprocess

    from perflab.infra import cleanup, ledger

    calls = []
    monkeypatch.setattr(cleanup, "remove_docker_objects", lambda client, run_id=None, skip_runs=(): calls.append(run_id) or [])
    runs = ROOT / "data" / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    d = runs / "test-live-run-000000"
    d.mkdir(exist_ok=True)
    owner = subprocess.Popen(["sleep", "30"])
    try:
        (d / cleanup.OWNER).write_text(json.dumps({"pid": owner.pid, "start_time": ledger.proc_start_time(owner.pid)}))
        assert cli.main(["clean", "--run", d.name]) == 1
        assert "still running" in capsys.readouterr().err and calls == [] and d.exists()
        done, failed = cleanup.clean(ROOT, d.name)
        assert calls == [] and done == []
    finally:
        owner.kill()
        owner.wait()
        import shutil

        shutil.rmtree(d, ignore_errors=True)


def test_a_quiet_run_that_failed_still_says_so_in_one_line(capsys, tmp_path):
    """`perflab run -q` prints only the run directory when the run completes; a run that failed says
    its status and error however quiet (a watched logzilla run in the benchmark exited 3 saying nothing)."""
    from perflab.run import runner

    doc = {"lab": "logzilla", "preset": "smoke", "status": "failed", "error": "ContainerFailed: the pool did not import",
           "metrics": {"iops": 1}, "checks": []}
    runner._summary(doc, tmp_path, quiet=True)
    assert capsys.readouterr().err.splitlines() == ["logzilla (smoke): failed - ContainerFailed: the pool did not import"]
    runner._summary({**doc, "status": "complete", "error": None}, tmp_path, quiet=True)
    assert capsys.readouterr().err == ""
