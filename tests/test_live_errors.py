"""`perflab run LAB --live` when something cannot be read (perflab.run.live): a source that fails costs
only itself (the others go on advancing), the page's map.json names it in `errors` until it reads
well again, the run's live.log says it once when it begins and once when it ends (not each tick); a
bad line in the run's list of sources, a failing whole tick and a failing page close neither stop
the poller nor escape `finish()`."""
import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from perflab.analysis.heatmap.live import LivePage
from perflab.run.live import LIVE_LOG, FioStatus, LiveRun


def report(t_ms: int, n: int, job: str = "a") -> str:
    """fio's status report at `t_ms` with `n` I/Os of 1.5 us since the job began (a line)."""
    job_doc = {"jobname": job, "read": {"clat_ns": {"bins": {"1500": n}}}}
    return json.dumps({"timestamp_ms": t_ms, "jobs": [job_doc]}) + "\n"


def listed(run_dir: Path, *lines: str) -> None:
    with open(run_dir / "live.jsonl", "a") as f:
        f.write("".join(line + "\n" for line in lines))


def log_lines(run_dir: Path) -> list[str]:
    f = run_dir / LIVE_LOG
    return [line.split(" ", 1)[1] for line in f.read_text().splitlines()] if f.exists() else []


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def wait_for(cond, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


@pytest.fixture
def live(tmp_path):
    """A LiveRun on tmp_path whose own thread stays out of the way (the tests poll it themselves)."""
    runs = []

    def make(interval_s: float = 3600.0) -> LiveRun:
        runs.append(LiveRun(tmp_path, "lab", 0, interval_s=interval_s))
        return runs[-1]

    yield make
    for r in runs:
        r.finish(linger_s=0)


def test_a_source_that_fails_costs_only_itself_and_is_shown_until_it_reads_well(tmp_path, live, monkeypatch):
    good, bad = tmp_path / "good.status.json", tmp_path / "fio" / "bad.status.json"
    bad.parent.mkdir()
    listed(tmp_path, *(json.dumps({"kind": "fio-status", "path": str(p)}) for p in (bad, good)))
    broken = {"on": True}
    poll = FioStatus.poll

    def failing(self):
        if self.path == bad and broken["on"]:
            raise ValueError("line 3 is not JSON")
        return poll(self)

    monkeypatch.setattr(FioStatus, "poll", failing)
    run = live()
    seen = []
    for k in range(3):   # three ticks: the good source advances each time, the bad one fails each time
        with open(good, "a") as f:
            f.write(report(1_795_000_001_000 + 1000 * k, 10 * (k + 1)))
        run.poll()
        seen.append(run.data()["events"])
    assert seen == [10, 20, 30]
    status, page = get(run.url + "map.json")   # what the page reads
    assert status == 200 and page["errors"] == ["could not read fio/bad.status.json: ValueError: line 3 is not JSON"]
    assert log_lines(tmp_path) == ["could not read fio/bad.status.json: ValueError: line 3 is not JSON"]

    broken["on"] = False   # fixed: an empty read proves nothing, a report read clears the error
    run.poll()
    assert run.data()["errors"] == [page["errors"][0]]
    bad.write_text(report(1_795_000_004_000, 5, "b"))
    run.poll()
    d = run.data()
    assert d["errors"] == [] and d["events"] == 35
    assert log_lines(tmp_path)[1:] == ["fio/bad.status.json: reads well again"]


def test_a_damaged_disk_log_stops_only_its_own_map(tmp_path, live):
    """slowdisk's logs read with fio's log reader, which refuses a damaged line: that disk's error is
    shown, the other disk's map goes on growing, and the damaged disk's next good lines clear it."""
    dev = tmp_path / "device"
    dev.mkdir()
    (dev / "mount.epoch_ms").write_text("1795000000000\n")
    listed(tmp_path, json.dumps({"kind": "device-logs", "label": "pool disks", "dir": str(dev)}))
    (dev / "d0.log").write_text("100, 4000000, 1, 8192, 0, 0\nabc, 1, 1, 8192, 0, 0\n")
    (dev / "d1.log").write_text("200, 9000000, 1, 8192, 0, 0\n")
    run = live()
    run.poll()
    d = run.data()
    [err] = d["errors"]
    assert err.startswith("could not read device/d0.log: FioLogError: ") and "not an unsigned integer: 'abc'" in err
    assert d["events"] == 1                                     # d1's I/O
    with open(dev / "d1.log", "a") as f:
        f.write("1200, 9000000, 1, 8192, 0, 0\n")
    run.poll()
    assert run.data()["events"] == 2 and run.data()["errors"] == [err]
    with open(dev / "d0.log", "a") as f:
        f.write("2100, 4000000, 1, 8192, 0, 0\n")
    run.poll()
    d = run.data()
    assert d["errors"] == [] and d["events"] == 3
    assert log_lines(tmp_path) == [err, "device/d0.log: reads well again"]


def test_a_bad_line_in_the_list_of_sources_is_shown_and_the_next_ones_are_read(tmp_path, live):
    status = tmp_path / "x.status.json"
    status.write_text(report(1_795_000_001_000, 7))
    listed(tmp_path, '{"kind": "fio-status", "pa', json.dumps({"kind": "fio-status", "path": str(status)}))
    with open(tmp_path / "live.jsonl", "a") as f:
        f.write('{"kind": "counters", ')            # a line still being written: not read (yet)
    run = live()
    run.poll()
    d = run.data()
    assert d["events"] == 7 and d["sources"] == 1
    assert [e.split(":")[0] for e in d["errors"]] == ["could not read live.jsonl line 1"]
    assert "JSONDecodeError" in d["errors"][0]


def test_the_poller_lives_through_a_failing_tick_and_says_so_once(tmp_path, live):
    run = live(interval_s=0.02)

    ticks = []

    def boom() -> None:
        ticks.append(1)
        raise RuntimeError("boom")

    run.poll = boom   # every tick fails as a whole
    wait_for(lambda: len(ticks) >= 15)
    assert run._thread.is_alive()
    wait_for(lambda: run.data()["errors"])
    assert run.data()["errors"] == ["could not read the run's sources: RuntimeError: boom"]
    assert log_lines(tmp_path) == ["could not read the run's sources: RuntimeError: boom"]
    del run.poll      # the class's poll again: the next tick reads well
    wait_for(lambda: not run.data()["errors"])
    assert run._thread.is_alive()
    assert log_lines(tmp_path)[1:] == ["the run's sources: reads well again"]


def test_finish_raises_nothing_and_runs_once(tmp_path, live):
    run = live()
    close = run.page.close

    def broken_close() -> None:
        raise OSError("socket already gone")

    run.page.close = broken_close
    run.finish(linger_s=0)
    run.finish(linger_s=0)
    assert log_lines(tmp_path) == ["could not close the page: OSError: socket already gone"]
    assert run.ended and not run._thread.is_alive()
    close()


def test_the_page_shows_the_errors_and_a_failing_data_as_a_status(tmp_path):
    """map.json answers a `data()` that raises with a 500 naming the error (the page shows it and asks
    again); the page has the status element its script writes the errors into."""
    calls = []

    def data() -> dict:
        calls.append(1)
        raise KeyError("phase")

    with LivePage(data, "t", 0) as page:
        status, body = get(page.url + "map.json")
        with urllib.request.urlopen(page.url, timeout=10) as r:
            html = r.read().decode()
    assert status == 500 and body == {"error": "KeyError: 'phase'"} and calls
    assert '<div id="errors" role="status" aria-live="polite" hidden></div>' in html
    assert "m.errors" in html and "could not draw the page: " in html
