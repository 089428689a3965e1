"""perflab.infra.iostat: iostat -x read back by its own column names, a host without sysstat told
in the output file (the lab goes on), and the sampler's process recorded and gone afterwards."""
import json
import time
from pathlib import Path

import pytest

from perflab.infra import iostat
from perflab.infra.ledger import Ledger

DATA = Path(__file__).parent / "data" / "iostat"


def test_read_takes_each_interval_and_column_by_name():
    # real: iostat -x -y -t loop0 1 3 (sysstat 12.6.1) while dd wrote 3,000 4 KiB blocks with O_DIRECT
    df = iostat.read(DATA / "loop-writes.txt")
    assert list(df.device) == ["loop0"] * 3
    assert list(df["w/s"]) == [3000.0, 0.0, 0.0]
    assert df["wareq-sz"].iloc[0] == 4.0 and df["%util"].iloc[0] == 6.0
    assert list(df.t.diff().dropna()) == [1.0, 1.0]


def test_read_of_a_run_without_iostat_is_empty(tmp_path):
    (tmp_path / "iostat.txt").write_text(iostat.MISSING)
    assert iostat.read(tmp_path / "iostat.txt").empty


def test_no_iostat_is_said_in_the_file_and_the_block_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(iostat.shutil, "which", lambda name: None)
    with iostat.sampling(Ledger(tmp_path), ["/dev/loop0"], tmp_path / "iostat.txt") as ran:
        assert ran is False
    assert "not installed" in (tmp_path / "iostat.txt").read_text()


@pytest.mark.skipif(not iostat.available(), reason="iostat (sysstat) is not installed: make setup installs it")
def test_the_sampler_runs_for_the_block_and_is_gone_after_it(tmp_path):
    led, out = Ledger(tmp_path), tmp_path / "iostat.txt"
    with pytest.raises(RuntimeError):
        with iostat.sampling(led, ["/dev/loop0"], out) as ran:
            assert ran is True
            # the block lasts until iostat has written two intervals (one a second), then fails
            deadline = time.monotonic() + 15
            while len(set(iostat.read(out).get("t", []))) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            raise RuntimeError("the lab failed")
    entries = [json.loads(x) for x in (tmp_path / "resources.jsonl").read_text().splitlines()]
    assert [(e["op"], e["kind"]) for e in entries] == [("create", "process"), ("release", "process")]
    pid = int(entries[0]["id"])
    assert not Path(f"/proc/{pid}").exists() or "iostat" not in Path(f"/proc/{pid}/cmdline").read_text()
    assert len(set(iostat.read(out).t)) >= 2
