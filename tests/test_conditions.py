"""The machine-conditions harness (perflab.run.conditions): a cell is the run's own verdict, "not shown
here" only where the run said so with its reasons; the status page's table reads the matrix."""
import json

import pytest

from perflab.run import conditions


def _run(tmp_path, status="complete", checks=(), ledger=""):
    d = tmp_path / "run-1"
    d.mkdir()
    (d / "run.json").write_text(json.dumps({"run_id": d.name, "status": status, "checks": list(checks),
                                            "error": None if status == "complete" else "fio exited 1",
                                            "provenance": {"duration_s": 31.0}}))
    (d / "resources.jsonl").write_text(ledger)
    return d


PASS = {"name": "a", "passed": True, "value": 1, "expected": ">= 1"}
NOT_SHOWN = {"name": "b", "passed": None, "value": 128, "expected": ">= 180", "not_shown": "the disk took 7.8 ms"}
FAIL = {"name": "c", "passed": False, "value": 0, "expected": "> 0"}


def test_cells_are_the_runs_own_verdicts(tmp_path):
    assert conditions.judge(_run(tmp_path, checks=[PASS]), 0, "", None)["status"] == "pass"


def test_not_shown_carries_the_runs_reasons(tmp_path):
    cell = conditions.judge(_run(tmp_path, checks=[PASS, NOT_SHOWN]), 0, "", None)
    assert cell["status"] == "not shown here" and cell["not_shown"] == {"b": "the disk took 7.8 ms"}
    assert cell["checks"] == "1/2 passed"


def test_a_failed_check_wins_over_not_shown(tmp_path):
    cell = conditions.judge(_run(tmp_path, checks=[NOT_SHOWN, FAIL]), 1, "", None)
    assert cell["status"] == "FAIL" and cell["failed"] == ["c"]


def test_a_run_that_did_not_complete_is_an_error(tmp_path):
    cell = conditions.judge(_run(tmp_path, status="failed"), 3, "", None)
    assert cell == {"status": "error", "error": "fio exited 1", "exit": 3, "run": "run-1"}
    assert conditions.judge(None, 2, "perflab run: refused, nothing was created: x\n", None)["error"].endswith(": x")


def test_slow_disk_cells_say_whether_the_lab_used_the_disk(tmp_path):
    scratch = tmp_path / "scratch"
    used = _run(tmp_path, checks=[PASS], ledger=json.dumps({"kind": "path", "id": f"{scratch}/perflab-run-1"}))
    assert conditions.judge(used, 0, "", scratch)["used_condition"] is True
    (used / "resources.jsonl").write_text("")
    assert conditions.judge(used, 0, "", scratch)["used_condition"] is False


def test_unknown_conditions_are_refused_before_anything_runs(manifest):
    from perflab.errors import Refused

    with pytest.raises(Refused, match="slow-dsik.*allowed: busy-cpu"):
        conditions.run(manifest, ["heatmaps"], ["slow-dsik"])


def test_the_status_page_table(manifest, tmp_path, monkeypatch):
    from perflab.book import status

    m = type(manifest)(**{**manifest.__dict__, "root": tmp_path})
    (tmp_path / conditions.MATRIX).parent.mkdir(parents=True)
    cell = {"measured_at": "2026-11-26T19:00:00+00:00", "commit": "0123456789", "dirty": False}
    (tmp_path / conditions.MATRIX).write_text(json.dumps({"cells": {"heatmaps": {
        "slow-disk": {**cell, "status": "not shown here", "checks": "6/7 passed", "not_shown": {"b": "the disk took 7.8 ms"},
                      "condition": {"random_4k_read_ms": 12.3}},
        "busy-cpu": {**cell, "status": "not shown here", "checks": "5/7 passed",
                     "not_shown": {"c": "other work took 30%", "d": "other work took 28%"}},
        "less-cpu": {**cell, "status": "FAIL", "failed": ["c"]}}}}))
    df, reasons, notes = status.conditions_table(m)
    row = df.set_index("lab").loc["heatmaps"]
    assert row["busy-cpu"] == "pass (5/7 passed); 2 not shown here (1, 2)"
    assert row["slow-disk"] == "pass (6/7 passed); 1 not shown here (3)"
    assert reasons == ["(1) heatmaps, busy-cpu: *c*: other work took 30%", "(2) heatmaps, busy-cpu: *d*: other work took 28%",
                       "(3) heatmaps, slow-disk: *b*: the disk took 7.8 ms"]
    assert row["less-cpu"] == "FAIL: c" and row["trixie"] == "not measured yet"
    assert df.set_index("lab").loc["ht", "busy-cpu"] == "not measured yet"
    assert any("random 4k read ms 12.3" in n for n in notes) and "at commit 0123456" in notes[-1]


@pytest.mark.docker
@pytest.mark.slow
def test_an_interrupted_harness_leaves_nothing_behind(docker_ok, tmp_path):
    """SIGTERM while a lab runs on the emulated slow disk: the lab's run cleans up after its SIGINT, then
    the harness gives back its file system, loop device, slowdisk mount and directories; exit 130."""
    import os
    import signal
    import subprocess
    import time

    from conftest import ROOT, perflab_cmd

    matrix = ROOT / conditions.MATRIX
    before = matrix.read_bytes() if matrix.exists() else None
    p = subprocess.Popen([str(ROOT / "scripts" / "perflab"), "conditions", "heatmaps", "--condition", "slow-disk"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 300
        runs = ROOT / "data" / "runs"
        while time.time() < deadline:   # wait until the lab's fio container runs on the slow disk
            r = subprocess.run(["docker", "ps", "--format", "{{.Names}}"], capture_output=True, text=True)
            if any(n.startswith("perflab-heatmaps-") for n in r.stdout.split()):
                break
            assert p.poll() is None, p.communicate()
            time.sleep(0.5)
        os.kill(p.pid, signal.SIGTERM)
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "interrupted" in err.splitlines()[-1]
    assert perflab_cmd("clean", "--check").returncode == 0
    assert not [d for d in runs.glob("conditions-*")]
    assert "/scratch" not in open("/proc/mounts").read()
    if before is not None:   # the interrupted cell is not written; the others are as they were
        assert json.loads(matrix.read_text())["cells"].get("heatmaps", {}).get("slow-disk") == \
            json.loads(before)["cells"].get("heatmaps", {}).get("slow-disk")
