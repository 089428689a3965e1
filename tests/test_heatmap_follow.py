"""`perflab heatmap --follow` (perflab.analysis.heatmap.live): a file read as it is written, a line at
a time as its newline arrives, ends up as the same map `perflab heatmap` draws of the finished file,
cell for cell; the page is served on the loopback address alone, grows in a real browser while the
file grows, and says when it ended; nothing listens afterwards."""
import json
import socket
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from perflab.analysis import heatmap
from perflab.analysis.heatmap.live import Follower, LivePage, follow, map_json
from perflab.fio.logs import FioLogError

ROOT = Path(__file__).resolve().parent.parent


def fio_lines(n: int, t0_ms: int = 1_795_000_000_000, seed: int = 1) -> list[bytes]:
    """n lines of a per-I/O fio log (epoch ms, latency ns, read, 4 KiB), 50 a second."""
    rng = np.random.default_rng(seed)
    lat = rng.lognormal(np.log(200_000), 0.8, n).astype(int) + 1
    return [f"{t0_ms + 20 * i}, {lat[i]}, 0, 4096\n".encode() for i in range(n)]


def same(a, b) -> bool:
    return (a.t0_ms == b.t0_ms and a.col_s == b.col_s and np.array_equal(a.edges_ns, b.edges_ns)
            and np.array_equal(a.counts, b.counts))


def test_a_fio_log_followed_in_pieces_equals_the_finished_logs_map(tmp_path):
    log = tmp_path / "job_clat.1.log"
    lines = fio_lines(900)
    with Follower(log) as f:
        assert f.poll() == 0                       # not there yet
        log.write_bytes(b"".join(lines[:300]) + lines[300][:7])   # a line cut in the middle of a field
        assert f.poll() == 300
        with open(log, "ab") as fh:
            fh.write(lines[300][7:] + b"".join(lines[301:]))
        assert f.poll() == 600
        assert f.poll() == 0
        got = f.snapshot()
    want = heatmap.from_lat_log([log])
    assert same(got, want) and got.total == 900


def test_a_trace2heatmap_trace_keeps_its_header_units_across_pieces(tmp_path):
    trace = tmp_path / "out.lat_us"
    rows = [f"{1_000_000 + 1000 * i} {100 + (i * 37) % 900}\n".encode() for i in range(3000)]
    with Follower(trace, "trace2heatmap") as f:
        trace.write_bytes(b"TIMEus DELTAus\n" + b"".join(rows[:1000]))
        assert f.poll() == 1000
        with open(trace, "ab") as fh:
            fh.write(b"".join(rows[1000:]))
        assert f.poll() == 2000
        got = f.snapshot()
    want = heatmap.from_trace([trace], "trace2heatmap")
    assert same(got, want) and got.total == 3000


def test_what_cannot_be_followed_is_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="blkparse pairs lines"):
        Follower(tmp_path / "x", "blkparse")
    log = tmp_path / "job_clat.1.log"
    log.write_bytes(b"".join(fio_lines(100)))
    with Follower(log) as f:
        f.poll()
        log.write_bytes(b"".join(fio_lines(10)))
        with pytest.raises(FioLogError, match="shrank"):
            f.poll()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def until(get, want, timeout_s: float = 10.0, every_s: float = 0.05):
    """get() again until it returns `want` or `timeout_s` has passed: the last value it returned."""
    deadline = time.monotonic() + timeout_s
    while (got := get()) != want and time.monotonic() < deadline:
        time.sleep(every_s)
    return got


def test_the_page_listens_on_the_loopback_alone_and_stops(tmp_path):
    log = tmp_path / "job_clat.1.log"
    log.write_bytes(b"".join(fio_lines(200)))
    with Follower(log) as f:
        f.poll()
        with LivePage(lambda: map_json(f.snapshot(), f.events, False, str(log)), "t") as page:
            host, port = page.server.server_address
            assert host == "127.0.0.1" and page.url == f"http://127.0.0.1:{port}/"
            m = json.loads(_get(page.url + "map.json"))
            assert m["events"] == 200 and m["columns"] == 4 and not m["ended"]
            assert sum(map(sum, m["z"])) == 200 and len(m["z"]) == len(m["y"])
            assert b"/plotly.min.js" in _get(page.url) and len(_get(page.url + "plotly.min.js")) > 1_000_000
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2)


@pytest.mark.slow
def test_a_browser_sees_the_map_grow_and_end(tmp_path):
    """Chromium on the page while a writer appends a second of a fio log every 0.4 s: the page's
    columns grow while the file grows; stopped (as by Ctrl-C), it says the source ended; its final
    cells are the finished log's map."""
    from support.browser import Chromium

    log = tmp_path / "job_clat.1.log"
    lines = fio_lines(50 * 12)
    urls, served, stop = [], threading.Event(), threading.Event()
    result = {}

    def serve():
        result["map"] = follow(log, interval_s=0.25, on_url=lambda u: (urls.append(u), served.set()), stop=stop)

    log.write_bytes(b"".join(lines[:50]))
    t = threading.Thread(target=serve)
    with Chromium() as b:   # first: the page is followed from the moment it is served
        t.start()
        try:
            assert served.wait(20), "the page was not served within 20 s"
            page = b.new_page()
            page.goto(urls[0])
            page.wait_for("Number(document.body.dataset.columns || 0) >= 1", timeout=20)
            seen = [int(page.evaluate("Number(document.body.dataset.columns)"))]
            for k in range(1, 12):
                with open(log, "ab") as fh:
                    fh.write(b"".join(lines[50 * k:50 * (k + 1)]))
                time.sleep(0.4)
                seen.append(int(page.evaluate("Number(document.body.dataset.columns || 0)")))
            # the page shows the whole file before it is stopped
            columns = heatmap.from_lat_log([log]).n_columns
            page.wait_for(f"Number(document.body.dataset.columns || 0) >= {columns}", timeout=20)
            stop.set()   # as Ctrl-C does
            page.wait_for("document.body.dataset.ended === 'true'", timeout=20)
            state = page.evaluate("document.getElementById('state').textContent")
            drawn = page.evaluate("document.getElementById('map').data[0].z.length")
            assert not page.problems, page.problems
            # nothing but the page's own server (and plotly's inline images)
            assert all(r.startswith(urls[0]) or r.startswith("data:") for r in page.requests), page.requests
        finally:
            stop.set()
            t.join(timeout=30)
    assert seen[-1] > seen[0] >= 1 and seen == sorted(seen), seen   # it grew while the file grew
    assert state.startswith("ended") and "600 events" in state
    want = heatmap.from_lat_log([log])
    rows = np.flatnonzero(want.counts.any(axis=0))
    assert same(result["map"], want) and drawn == rows[-1] - rows[0] + 1


@pytest.mark.parametrize("extra,words", [
    (["--by", "op"], "--by do not apply"),
    (["--map", "offset"], "--map offset do not apply"),
    (["--idle", "0"], "--idle 0: seconds without growth"),
    (["--trace", "blkparse"], "blkparse pairs lines"),
])
def test_what_follow_cannot_do_is_refused_in_one_line(tmp_path, capsys, extra, words):
    from perflab import cli

    log = tmp_path / "job_clat.1.log"
    log.write_bytes(b"".join(fio_lines(10)))
    assert cli.main(["heatmap", str(log), "--follow", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_the_command_prints_the_page_serves_it_and_ends_when_the_file_stops_growing(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "job_clat.1.log"
    first = fio_lines(150)
    log.write_bytes(b"".join(first))
    out = tmp_path / "final.npz"
    p = subprocess.Popen([sys.executable, "-m", "perflab", "heatmap", str(log), "--follow", "--idle", "2",
                          "--save", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = p.stdout.readline()
    url = line.split(" at ")[1].split()[0]
    assert url.startswith("http://127.0.0.1:") and "until it has not grown for 2 s" in line
    more = fio_lines(100, t0_ms=1_795_000_003_000, seed=2)
    with open(log, "ab") as fh:
        fh.write(b"".join(more))
    # the page shows the new lines within the follower's poll, well before --idle ends it
    events = len(first) + len(more)
    assert until(lambda: json.loads(_get(url + "map.json"))["events"], events) == events
    rest, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    want = heatmap.from_lat_log([log])
    assert f"{events} I/Os in {want.n_columns} columns" in err
    assert same(heatmap.HeatMap.load(out), want)
    with pytest.raises(OSError):
        _get(url + "map.json")
