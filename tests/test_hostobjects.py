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


needs_loop = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("losetup")
                                or not Path("/dev/loop-control").exists(), reason="needs root and loop devices")


def _backing(tmp_path, mib: int) -> Path:
    backing = tmp_path / "disk.img"
    with open(backing, "wb") as f:
        f.truncate(mib << 20)
    return backing


@needs_loop
def test_loop_device_is_bound_recorded_and_detached(tmp_path):
    led = Ledger(tmp_path)
    backing = _backing(tmp_path, 4)
    with hostobjects.loop_device(led, str(backing)) as dev:
        assert _kinds(led) == [("loop", dev)]
        shown = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True, text=True).stdout
        assert str(backing) in shown
    assert _kinds(led) == []
    assert str(backing) not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout


@needs_loop
def test_partitions_are_added_and_deleted_with_blkpg_and_the_ledger_deletes_them_too(tmp_path):
    from perflab.infra import partitions

    led = Ledger(tmp_path)
    with hostobjects.loop_device(led, str(_backing(tmp_path, 8))) as dev:
        name = Path(dev).name
        partitions.add(dev, 1, 1 << 20, 2 << 20)
        partitions.add(dev, 2, 3 << 20, 4 << 20)
        sys_p = {p.name: p for p in Path("/sys/block", name).glob(f"{name}p*")}
        assert sorted(sys_p) == [f"{name}p1", f"{name}p2"]
        assert int((sys_p[f"{name}p1"] / "start").read_text()) == 2048           # sectors of 512 bytes
        assert int((sys_p[f"{name}p2"] / "size").read_text()) == (4 << 20) // 512
        with pytest.raises(OSError):
            partitions.add(dev, 3, 2 << 20, 1 << 20)                            # overlaps partition 1
        partitions.delete(dev, 1)
        assert [p.name for p in Path("/sys/block", name).glob(f"{name}p*")] == [f"{name}p2"]
    # partition 2 was left: the loop device's removal (the ledger's) deletes it before detaching
    assert not list(Path("/sys/block").glob(f"{name}p*")) and _kinds(led) == []


@needs_loop
def test_partitions_back_to_back_replace_stale_ones(tmp_path):
    from perflab.infra import partitions

    led = Ledger(tmp_path)
    with hostobjects.loop_device(led, str(_backing(tmp_path, 16))) as dev:
        name = Path(dev).name
        partitions.add(dev, 5, 10 << 20, 1 << 20)                        # a stale one from an earlier user
        assert partitions.numbers(dev) == [5]
        paths = partitions.add_back_to_back(dev, [2 << 20, 3 << 20])
        assert paths == [f"{dev}p1", f"{dev}p2"] and partitions.numbers(dev) == [1, 2]
        assert int(Path("/sys/block", name, f"{name}p2", "start").read_text()) == 2048 + (2 << 20) // 512
        with pytest.raises(OSError, match=f"adding partition 1 to {dev}"):
            partitions.add_back_to_back(dev, [32 << 20])                 # larger than the device
    assert _kinds(led) == []


def test_a_live_run_of_another_clone_is_left_alone(tmp_path, monkeypatch):
    """Docker objects name their run directory; `perflab clean` in one clone does not remove the
    objects of a run another clone is running on the same machine (its runner is alive), and does
    remove them once that runner is gone."""
    import json

    from perflab.infra import cleanup, labels
    from perflab.infra.ledger import proc_start_time

    other = tmp_path / "other-clone" / "data" / "runs" / "heatmaps-1"
    other.mkdir(parents=True)
    monkeypatch.setenv(labels.RUN_DIR_ENV, str(other))
    assert labels.labels("heatmaps-1", "heatmaps")[labels.LABEL_RUN_DIR] == str(other)
    runner = subprocess.Popen(["sleep", "60"])
    try:
        (other / cleanup.OWNER).write_text(json.dumps({"pid": runner.pid, "start_time": proc_start_time(runner.pid)}))
        removed = []
        monkeypatch.setattr(cleanup, "run_dirs_by_run", lambda client: {"heatmaps-1": str(other)})
        monkeypatch.setattr(cleanup, "remove_docker_objects",
                            lambda client, run_id=None, skip_runs=(): removed.append(set(skip_runs)) or [])
        mine = tmp_path / "mine"
        (mine / "data" / "runs").mkdir(parents=True)
        cleanup.clean(mine, client="client")
        assert removed == [{"heatmaps-1"}]                 # skipped: its runner is alive
        runner.kill()
        runner.wait()
        removed.clear()
        cleanup.clean(mine, client="client")
        assert removed == [set()]                          # its runner is gone: it is perflab's to remove
    finally:
        runner.kill()
        runner.wait()


needs_zram = pytest.mark.skipif(os.geteuid() != 0 or not Path("/sys/class/zram-control/hot_add").exists(),
                                reason="needs root and zram")


@needs_zram
def test_a_zram_device_never_given_a_size_is_still_left_behind_and_removed(tmp_path):
    """A lab inside a container whose /sys is read-only hot-added a device and could not size it: the
    device is there all the same, so `perflab clean --check` must name it and `clean` remove it."""
    from perflab.infra.ledger import EXISTS, Run, remove_entry

    idx = int(Path("/sys/class/zram-control/hot_add").read_text().strip())
    e = {"kind": "zram", "id": f"/dev/zram{idx}"}
    try:
        assert int(Path(f"/sys/block/zram{idx}/disksize").read_text()) == 0
        assert EXISTS["zram"](e)
    finally:
        assert remove_entry(e, Run(tmp_path)) is None     # never sized (0), unused: the run's to remove
    assert not Path(f"/sys/block/zram{idx}").exists() and not EXISTS["zram"](e)
