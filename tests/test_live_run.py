"""`perflab run LAB --live` (perflab.run.live): fio's once-a-second reports read as fio writes them, a
report at a time, differenced into each second's latency histogram; a real smoke run watched in
Chromium, whose page grows while the run goes, marks the phases, says when the run ended and links
the notebook; the run's checks pass with the page open, its fio result is the one an unwatched run
writes, and nothing listens once the run has ended."""
import json
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from perflab.analysis.checks import failed
from perflab.analysis.heatmap.buckets import Buckets
from perflab.run.live import UNTIMED, FioStatus, LiveRun, cumulative_bins, job_bins


def report(t_ms: int, bins: dict, ddir: str = "read") -> dict:
    return {"fio version": "fio-3.33", "timestamp_ms": t_ms,
            "jobs": [{"jobname": "a", ddir: {"total_ios": sum(bins.values()),
                                             "clat_ns": {"bins": {str(k): v for k, v in bins.items()}}}}]}


def read_once(run_dir: Path, lab: str) -> dict:
    """The page's map.json for a run directory, read once, the page then closed."""
    live = LiveRun(run_dir, lab, 0)
    try:
        live.poll()
        return live.data()
    finally:
        live.finish(linger_s=0)


def test_reports_are_read_as_they_are_written_and_differenced(tmp_path):
    f = tmp_path / "x.status.json"
    r1 = json.dumps(report(1_795_000_001_000, {1000: 5, 2_000_000: 1}), indent=1)
    r2 = json.dumps(report(1_795_000_002_000, {1000: 9, 2_000_000: 1, 30_000: 4}), indent=1)
    src = FioStatus(f)
    assert src.poll() == []                       # not there yet
    f.write_text(r1 + "\n" + r2[:40])             # the second report half written
    assert src.poll() == [(1_795_000_001_000, {"a": {1000: 5, 2_000_000: 1}})]
    with open(f, "a") as fh:
        fh.write(r2[40:] + "\n")
    assert src.poll() == [(1_795_000_002_000, {"a": {1000: 4, 30_000: 4}})]
    assert src.poll() == []


def test_the_bins_of_every_job_and_direction_add_up():
    r = report(1, {1000: 2})
    r["jobs"].append({"jobname": "b", "write": {"clat_ns": {"bins": {"1000": 3, "5000": 1}}}})
    r["jobs"].append({"jobname": "b", "read": {"clat_ns": {"bins": {"5000": 2}}}})   # a clone (numjobs)
    assert job_bins(r) == {"a": {1000: 2}, "b": {1000: 3, 5000: 3}}
    assert cumulative_bins(r) == {1000: 5, 5000: 3}


def test_the_page_breaks_the_map_down_by_job(tmp_path):
    status = tmp_path / "job.status.json"
    (tmp_path / "live.jsonl").write_text(json.dumps({"kind": "fio-status", "path": str(status)}) + "\n")
    r1 = report(1_795_000_001_000, {1500: 10})
    r1["jobs"].append({"jobname": "slow", "read": {"clat_ns": {"bins": {"250000": 2}}}})
    r2 = report(1_795_000_003_000, {1500: 30})
    r2["jobs"].append({"jobname": "slow", "read": {"clat_ns": {"bins": {"250000": 2}}}})
    status.write_text(json.dumps(r1) + "\n" + json.dumps(r2) + "\n")
    d = read_once(tmp_path, "two")
    assert [b["label"] for b in d["by"]] == ["job a", "job slow"]
    assert d["totals"] == [12, 0, 20] and [b["totals"] for b in d["by"]] == [[10, 0, 20], [2, 0, 0]]
    for b in d["by"]:   # the whole map's rows and columns
        assert len(b["z"]) == len(d["y"]) and all(len(r) == d["columns"] for r in b["z"])
    assert np.array_equal(np.sum([b["z"] for b in d["by"]], axis=0), d["z"])


def test_a_run_directory_read_live_gives_one_column_a_report(tmp_path):
    (tmp_path / "fio").mkdir()
    status = tmp_path / "fio" / "job.status.json"
    (tmp_path / "live.jsonl").write_text(json.dumps({"kind": "fio-status", "path": str(status), "label": "job"}) + "\n")
    (tmp_path / "progress.jsonl").write_text(json.dumps({"t": 1_795_000_000.5, "event": "start", "phase": "fio"}) + "\n")
    cum, text = {}, ""
    for k in range(4):
        for lat in (1500, 250_000):
            cum[lat] = cum.get(lat, 0) + 10 * (k + 1)
        text += json.dumps(report(1_795_000_001_000 + 1000 * k, dict(cum)), indent=1) + "\n"
    status.write_text(text)
    live = LiveRun(tmp_path, "job", 0)
    try:
        live.poll()
        d = live.data()
        assert d["events"] == sum(cum.values()) == 200 and d["columns"] == 4
        assert d["totals"] == [20, 40, 60, 80]          # each second's own I/Os, not the running total
        b = Buckets.loglinear()
        assert len(d["y"]) == int(b.index(np.array([250_000]))[0]
                                                                          - b.index(np.array([1500]))[0] + 1)
        # the first report covers the second before its stamp: the map starts at 1_795_000_000 s
        assert d["phases"] == [{"name": "fio", "t_s": 0.5}] and d["phase"] == "fio" and not d["ended"]
    finally:
        live.finish(linger_s=0)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", int(live.url.rsplit(":", 1)[1].strip("/"))), timeout=2)


def test_jobs_that_measure_no_latency_are_drawn_as_ios_per_second(tmp_path):
    """ht's jobs disable fio's latency (they count work per CPU-second): no bins, no map; the page draws
    each report's I/Os per second instead, the jobs one after another on one line, and says why."""
    (tmp_path / "fio").mkdir()
    listed = []
    totals = {"one": [100, 300, 600], "two": [50, 250]}   # cumulative I/Os, a report a second
    t = 1_795_000_001_000
    for name, cums in totals.items():
        status = tmp_path / "fio" / f"{name}.status.json"
        docs = []
        for c in cums:
            docs.append({"fio version": "fio-3.33", "timestamp_ms": t, "jobs": [{"jobname": "read", "read": {"total_ios": c}}]})
            t += 1000
        status.write_text("".join(json.dumps(x) + "\n" for x in docs))
        listed.append({"kind": "fio-status", "path": str(status), "label": name})
    (tmp_path / "live.jsonl").write_text("".join(json.dumps(x) + "\n" for x in listed))
    d = read_once(tmp_path, "ht")
    assert d["events"] == 0 and "measure no latency" in d["source"]
    (panel,) = d["counters"]
    (series,) = panel["series"]
    assert series["y"] == [200.0, 300.0, 200.0]   # one: 100->300->600; two: 50->250 (its first report starts it)
    assert series["x"] == [0.0, 1.0, 3.0]


def test_the_emulated_disks_logs_are_drawn_disk_by_disk_on_the_wall_clock(tmp_path):
    """slowdisk's device logs (time from the mount, flushed a second at a time), listed by the mount
    (perflab.fio.live): one map a disk under fio's, on fio's clock, each equal to `perflab heatmap`
    of that disk's finished log once shifted by the mount's time 0; the wait logs are not drawn."""
    from perflab.analysis.heatmap import from_lat_log
    from perflab.fio import live as fio_live

    dev, status = tmp_path / "device", tmp_path / "job.status.json"
    dev.mkdir()
    lst = tmp_path / "live.jsonl"
    lst.write_text(json.dumps({"kind": "fio-status", "path": str(status), "label": "job"}) + "\n")
    epoch = 1_795_000_000_250                       # the mount's time 0, a quarter second into fio's second 0
    (dev / "mount.epoch_ms").write_text(f"{epoch}\n")
    status.write_text(json.dumps(report(1_795_000_001_000, {1500: 10})) + "\n"
                      + json.dumps(report(1_795_000_004_000, {1500: 40})) + "\n")
    rows = {"d0": [(100, 4_000_000), (900, 12_000_000), (1_800, 8_000_000)],
            "d1": [(500, 25_000_000), (2_700, 9_000_000)]}
    for d, r in rows.items():   # the first two lines now, the rest after the first look
        (dev / f"{d}.log").write_text("".join(f"{t}, {lat}, 1, 8192, 0, 0\n" for t, lat in r[:2]))
        (dev / f"{d}.wait.log").write_text("".join(f"{t}, 1, 1, 8192, 0, 0\n" for t, _ in r))
    live = LiveRun(tmp_path, "disks", 0)
    try:
        # as slowdisk.mounted lists a mount's log directory in a watched run
        assert fio_live.announce("device-logs", "pool disks", live=lst, dir=dev)
        live.poll()
        assert live.data()["by"][0]["totals"][:2] == [1, 1]
        for d, r in rows.items():
            with open(dev / f"{d}.log", "a") as fh:
                fh.write("".join(f"{t}, {lat}, 1, 8192, 0, 0\n" for t, lat in r[2:]))
        live.poll()
        d = live.data()
    finally:
        live.finish(linger_s=0)
    assert [b["label"] for b in d["by"]] == ["disk d0 (pool disks: service time)", "disk d1 (pool disks: service time)"]
    assert d["source"].endswith("fio's reports, once a second") and d["sources"] == 2
    assert d["totals"] == [10, 0, 0, 30]   # fio's second report holds its last 3 s, put in the last
    lo, hi = d["rows"]
    for b, disk in zip(d["by"], rows):
        whole = from_lat_log([dev / f"{disk}.log"])   # the finished log, on its own clock (from 0)
        assert whole.t0_ms == 0 and sum(map(sum, b["z"])) == whole.total == len(rows[disk])
        # the same cells, moved by the mount's time 0: (t + 250 ms) // 1000 s from fio's second 0
        exp = np.zeros((d["columns"], hi - lo), np.int64)
        for t, lat in rows[disk]:
            exp[(t + 250) // 1000, int(Buckets.loglinear().index(np.array([lat]))[0]) - lo] += 1
        assert np.array_equal(np.array(b["z"]).T, exp), disk
        assert np.array_equal(exp.sum(axis=0), whole.counts.sum(axis=0)[lo:hi])   # the same latency rows


def test_counters_are_drawn_as_each_keys_rate_on_the_run_s_clock(tmp_path):
    """A file of cumulative counters sampled once a second (the NFS server's per-client counters,
    listed by bad-cable as it starts its sampler): each key's rate between its samples, renamed and
    scaled as listed, on an axis from the first sample when no fio report is drawn; a counter that
    went down (statistics switched off and on) starts again; half a line waits for the next poll;
    the phase running when the axis starts is marked at 0."""
    from perflab.fio import live as fio_live

    ops, lst = tmp_path / "ops.log", tmp_path / "live.jsonl"
    (tmp_path / "progress.jsonl").write_text("".join(json.dumps({"t": t, "event": "start", "phase": ph}) + "\n"
                                                     for t, ph in ((99.0, "prepare"), (100.5, "bad cable"), (103.5, "off"))))
    assert fio_live.announce("counters", "reads by client", live=lst, path=ops, column=1, scale=2, unit="r/s",
                             names=json.dumps({"::ffff:10.0.0.2": "client1"}))
    lines = [(100.0, "::ffff:10.0.0.2", 0, 0), (100.0, "::ffff:10.0.0.3", 0, 0),
             (101.0, "::ffff:10.0.0.2", 9, 100), (101.0, "::ffff:10.0.0.3", 9, 40),
             (102.0, "::ffff:10.0.0.2", 9, 300), (102.0, "::ffff:10.0.0.3", 9, 80),
             (104.0, "::ffff:10.0.0.2", 9, 10)]   # switched off and on: from 10 again
    text = "".join(f"{t} {k} {a} {b} 0 0 0\n" for t, k, a, b in lines)
    ops.write_text(text[:-9])                   # the last line half written
    live = LiveRun(tmp_path, "cable", 0)
    try:
        live.poll()
        d = live.data()
        assert d["samples"] == 4 and d["columns"] == 0 and d["sources"] == 1
        with open(ops, "a") as fh:
            fh.write(text[-9:] + "105.0 ::ffff:10.0.0.2 9 30 0 0 0\n")
        live.poll()
        d = live.data()
    finally:
        live.finish(linger_s=0)
    assert d["source"] == "cable: reads by client"
    [panel] = d["counters"]
    assert panel["label"] == "reads by client" and panel["unit"] == "r/s"
    assert panel["series"] == [{"name": "::ffff:10.0.0.3", "x": [1.0, 2.0], "y": [80.0, 80.0]},
                               {"name": "client1", "x": [1.0, 2.0, 5.0], "y": [200.0, 400.0, 40.0]}]
    assert d["phases"] == [{"name": "prepare", "t_s": 0.0}, {"name": "bad cable", "t_s": 0.5},
                           {"name": "off", "t_s": 3.5}]


def test_a_servers_requests_are_counted_each_second_by_file_and_clients_files_share_a_panel(tmp_path):
    """A server's log of requests (elinks' SFTP server), its lines matched by a pattern and counted
    each second by file, the files with the most requests drawn, zero in the seconds a file had
    none; two clients' own counter files (no key column) listed with one label, one panel."""
    from perflab.fio import live as fio_live

    lst, log = tmp_path / "live.jsonl", tmp_path / "sftp.log"
    fio_live.announce("events", "requests by file", live=lst,
                      pattern=r'sftp\[\d+\]: [a-z]+(?: name| old)? "(?P<key>[^"]+)"', path=log, unit="requests/s")
    for j in (1, 2):
        fio_live.announce("counters", "bytes by desktop", live=lst, path=tmp_path / f"net{j}.log", key=f"desk{j}")
    log.write_text('100.2 <38> sftp[7]: open "/h/a" flags READ\n100.7 <38> sftp[7]: open "/h/a" flags READ\n'
                   '100.9 <38> sshd[3]: session opened\n101.1 <38> sftp[8]: lstat name "/h/b"\n'
                   '102.5 <38> sftp[7]: open "/h/a" flags READ\n')
    for j, (a, b) in {1: (10, 30), 2: (0, 500)}.items():
        (tmp_path / f"net{j}.log").write_text(f"100.0 {a} 0 0 0\n101.0 {b} 0 0 0\n")
    d = read_once(tmp_path, "desks")
    files, net = d["counters"]
    assert files["series"] == [{"name": "/h/a", "x": [1.0, 2.0, 3.0], "y": [2.0, 0.0, 1.0]},
                               {"name": "/h/b", "x": [1.0, 2.0, 3.0], "y": [0.0, 1.0, 0.0]}]
    assert net["label"] == "bytes by desktop" and net["series"] == [
        {"name": "desk1", "x": [1.0], "y": [20.0]}, {"name": "desk2", "x": [1.0], "y": [500.0]}]
    assert d["samples"] == 4 + 2 and d["sources"] == 3


def test_a_run_that_lists_nothing_says_so(tmp_path):
    d = read_once(tmp_path, "quiet")
    assert d["sources"] == 0 and d["columns"] == 0 and "by" not in d


def test_the_page_script_parses(tmp_path):
    """The page's JavaScript, as served, is valid (node --check): a broken script draws nothing,
    which only a browser would otherwise show."""
    import shutil

    from perflab.analysis.heatmap.live import LivePage

    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node command (make setup installs npm, and node with it)")
    with LivePage(lambda: {}, "t", 0) as page:
        html = _get(page.url).decode()
    js = tmp_path / "page.js"
    js.write_text(html.split("<script>")[1].split("</script>")[0])
    r = subprocess.run([node, "--check", str(js)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def _watched(lab: str) -> tuple[subprocess.Popen, list[str], str, int]:
    """`perflab run LAB --preset smoke --live` started: the process, what it said, the page's address
    and port (printed first, before the lab starts)."""
    p = subprocess.Popen([str(ROOT / "scripts" / "perflab"), "run", lab, "--preset", "smoke", "--live"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    said = []
    for line in p.stderr:
        said.append(line)
        if "watch it at " in line:
            break
    url = said[-1].split("watch it at ")[1].split()[0]
    assert url.startswith("http://127.0.0.1:"), said
    return p, said, url, int(url.rsplit(":", 1)[1].strip("/"))


def _seen(url: str, ready: str, shot: Path | None = None) -> dict:
    """What a browser sees of a run's page: the columns when `ready` holds and 4 s later, the phases
    marked and the breakdowns' titles then (a screenshot to `shot`), and once the run has ended the
    notebook's link, the state line, the last map.json and the notebook itself."""
    from support.browser import Chromium

    with Chromium() as b:
        page = b.new_page()
        page.goto(url)
        page.wait_for(ready, timeout=240)
        seen = {"first": int(page.evaluate("Number(document.body.dataset.columns)"))}
        time.sleep(4)
        seen["later"] = int(page.evaluate("Number(document.body.dataset.columns)"))
        seen["phases"] = page.evaluate("(document.getElementById('map').layout.annotations || []).map(a => a.text)")
        seen["by"] = page.evaluate("[...document.querySelectorAll('.by-map')].map(e => e.layout.title.text)")
        if shot is not None:
            page.screenshot(shot)
        page.wait_for("document.body.dataset.ended === 'true'", timeout=300)
        seen["link"] = page.evaluate("document.getElementById('notebook').getAttribute('href')")
        seen["state"] = page.evaluate("document.getElementById('state').textContent")
        seen["map"] = json.loads(_get(url + "map.json"))
        seen["notebook"] = _get(url + "notebook.ipynb")
        assert not page.problems, page.problems
        assert all(r.startswith(url) or r.startswith("data:") for r in page.requests), page.requests
    return seen


def _passed(p: subprocess.Popen, said: list[str], artifacts) -> Path:
    """The watched run's end: it exited 0 and every check passed; its run directory."""
    out, err = p.communicate(timeout=300)
    (artifacts / "run.txt").write_text("".join(said) + err + out)
    assert p.returncode == 0, err[-3000:]
    run_dir = Path(out.strip().splitlines()[-1])
    doc = json.loads((run_dir / "run.json").read_text())
    assert doc["status"] == "complete" and doc["checks"] and not [c for c in doc["checks"] if failed(c)]
    return run_dir


@pytest.mark.docker
@pytest.mark.slow
def test_a_watched_smoke_run_grows_in_a_browser_and_passes(docker_ok, artifacts):
    p, said, url, port = _watched("heatmaps")
    seen = _seen(url, "Number(document.body.dataset.columns || 0) >= 2")
    run_dir = _passed(p, said, artifacts)
    assert seen["later"] > seen["first"] >= 2        # it grew while the run went on
    assert "fio" in seen["phases"]                    # the phase, marked as it began
    assert seen["by"] == ["job cached", "job direct"]  # the chapter's breakdown: its two jobs
    assert seen["link"] == "/notebook.ipynb" and seen["state"].startswith("ended") and "notebook.ipynb" in seen["state"]
    assert json.loads(seen["notebook"])["cells"] and (run_dir / "notebook.ipynb").read_bytes() == seen["notebook"]
    result = json.loads((run_dir / "fio" / "two-bands.json").read_text())   # one report: fio's last
    total = sum(j[d]["total_ios"] for j in result["jobs"] for d in ("read", "write", "trim") if d in j)
    assert seen["map"]["events"] == total             # the page counted every I/O fio reported
    # the page's last map against the notebook's (the same run's latency logs, as the chapter reads them):
    # per job, the same I/Os in the same latency buckets (the columns differ: fio's reports and its logs
    # are stamped at different moments of a second)
    from perflab.analysis.heatmap import from_hist_log, from_lat_log

    lo, hi = seen["map"]["rows"]
    for job, by in zip(("cached", "direct"), seen["map"]["by"]):
        hist = sorted((run_dir / "fio").glob(f"{job}_clat_hist.*.log*"))
        nb = from_hist_log(hist) if hist else from_lat_log(sorted((run_dir / "fio").glob(f"{job}_clat.*.log*")))
        rows = nb.counts.sum(axis=0)
        assert rows[:lo].sum() == rows[hi:].sum() == nb.overflow.sum() == 0, job
        assert np.array(by["z"]).sum(axis=1).tolist() == rows[lo:hi].tolist(), job
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long
def test_a_watched_zfs_lab_draws_each_emulated_disk(docker_ok, artifacts):
    """Logzilla watched: fio's map grows with, under it, one map a pool disk from slowdisk's logs as
    they are flushed (the ZFS server's disks list their log directory); the run's checks pass."""
    from perflab.analysis.heatmap import from_lat_log

    p, said, url, port = _watched("logzilla")
    seen = _seen(url, "document.querySelectorAll('.by-map').length >= 4", artifacts / "logzilla-live.png")
    run_dir = _passed(p, said, artifacts)
    d = seen["map"]
    assert seen["later"] > seen["first"]
    assert seen["by"] == [f"disk d{i} (pool disks: service time)" for i in range(4)]
    assert d["source"] == "logzilla: fio's reports, once a second" and d["sources"] == 2
    # each disk's map holds every I/O its finished log holds (the page read the last flush too)
    for k, b in enumerate(d["by"]):
        assert sum(b["totals"]) == from_lat_log([run_dir / "device" / f"d{k}.log"]).total
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2)


def _watched_counters(lab: str, panels: int, artifacts) -> tuple[dict, dict, Path]:
    """A lab whose page draws counters and no latency map, watched in Chromium: what the page showed
    while the run went (samples then and 4 s later, the panels' titles, whether the map was hidden),
    the last map.json, and the run directory (its checks passed; nothing listens afterwards)."""
    from support.browser import Chromium

    p, said, url, port = _watched(lab)
    with Chromium() as b:
        page = b.new_page()
        page.goto(url)
        page.wait_for(f"document.querySelectorAll('.counter').length >= {panels} "
                      "&& Number(document.body.dataset.samples) > 8", timeout=240)
        seen = {"first": int(page.evaluate("Number(document.body.dataset.samples)"))}
        time.sleep(4)
        seen["later"] = int(page.evaluate("Number(document.body.dataset.samples)"))
        seen["titles"] = page.evaluate("[...document.querySelectorAll('.counter')].map(e => e.layout.title.text)")
        seen["map shown"] = page.evaluate("getComputedStyle(document.getElementById('map')).display") != "none"
        page.screenshot(artifacts / f"{lab}-live.png")
        page.wait_for("document.body.dataset.ended === 'true'", timeout=400)
        final = json.loads(_get(url + "map.json"))
        assert not page.problems, page.problems
    run_dir = _passed(p, said, artifacts)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
    assert seen["later"] > seen["first"] and not seen["map shown"]   # it grew; no map where fio reports none
    return seen, final, run_dir


def _means(panel: dict, lo: float, hi: float) -> dict[str, float]:
    """Each line's mean over the seconds ending in (lo, hi]."""
    return {s["name"]: float(np.mean([y for x, y in zip(s["x"], s["y"]) if lo < x <= hi])) for s in panel["series"]}


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long
def test_a_watched_bad_cable_run_draws_each_client_from_the_servers_counters(docker_ok, artifacts):
    """bad-cable watched (its fio runs as a client/server driver that reports only at the end): the
    page draws the NFS server's per-client read counters and the links' byte counters as lines, one a
    client, growing while the run goes, each phase marked; in the bad-cable phase the client the page
    shows lowest is the one the run's analysis names, at the rates it measured."""
    seen, final, run_dir = _watched_counters("bad-cable", 2, artifacts)
    assert seen["titles"] == ["NFS reads per second, by client (the server's counters)",
                              "Mbit/s sent to each client (its link's counters)"]
    doc = json.loads((run_dir / "run.json").read_text())
    k, m = doc["params"]["bad_client"], doc["metrics"]
    starts = {ph["name"]: ph["t_s"] for ph in final["phases"]}
    for panel, measured in zip(final["counters"], (m["outlier_ops_s"], m["outlier_mbit_s"])):
        mean = _means(panel, starts["bad cable"] + 5, starts["replaced"])   # the phase, past its first seconds
        assert min(mean, key=mean.get) == f"client{k}" == f"client{m['detected_outlier']}", (panel["label"], mean)
        assert 0.85 < mean[f"client{k}"] / measured < 1.15, (panel["label"], mean, measured)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long
def test_a_watched_elinks_run_draws_the_servers_requests_by_file(docker_ok, artifacts):
    """elinks watched (it runs no fio): the SFTP server's requests per second by file, from its log as
    it is written, and each desktop's received KiB/s; while the buggy program runs, the file with
    the most requests is the one the run's analysis names, at the rate it measured, and the desktop
    receiving the most is the buggy one; once it is fixed, that file's requests stop."""
    seen, final, run_dir = _watched_counters("elinks", 2, artifacts)
    assert seen["titles"] == ["SFTP requests per second, by file (the server's log)",
                              "KiB/s each desktop received (its interface's counters)"]
    m = json.loads((run_dir / "run.json").read_text())["metrics"]
    starts = {ph["name"]: ph["t_s"] for ph in final["phases"]}
    files, net = final["counters"]
    buggy = _means(files, starts["buggy"] + 3, starts["fixed"])
    assert max(buggy, key=buggy.get) == m["detected_file"], buggy
    assert 0.85 < buggy[m["detected_file"]] / m["detected_rate"] < 1.15, (buggy, m["detected_rate"])
    fixed = _means(files, starts["fixed"] + 3, starts["collect"])
    assert fixed[m["detected_file"]] < 0.1 * buggy[m["detected_file"]], fixed
    rx = _means(net, starts["buggy"] + 3, starts["fixed"])
    assert max(rx, key=rx.get) == f"desk{m['detected_client']}", rx


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("lab", ["durability", "ht", "streaming"])
def test_a_lab_that_keeps_fio_running_shows_every_job_live(lab, docker_ok, artifacts):
    """The labs that run fio in a client of their own (perflab.infra.fioservice: ht's and streaming's
    measurements one after another, durability's writers in the background) list every fio job for
    the page, and the page draws fio's reports: its map's source is fio, with I/Os counted."""
    p, said, url, _ = _watched(lab)
    drawn, t_end = None, time.time() + 900   # a smoke run's few minutes, with room; _passed then waits its own 300 s
    while p.poll() is None and time.time() < t_end:
        try:
            d = json.loads(_get(url + "map.json"))
        except OSError:   # a page slow to answer on a busy machine (ht loads both CPUs), or gone with the run
            time.sleep(1)
            continue
        untimed = [p for p in d.get("counters", []) if p["label"] == UNTIMED and p["series"][0]["x"]]
        if (d.get("events") and "fio's reports" in d.get("source", "")) or untimed:
            drawn = d   # fio's latency map, or where its jobs measure no latency (ht), their I/Os per second
        time.sleep(1)
    run_dir = _passed(p, said, artifacts)
    listed = {x["label"] for x in map(json.loads, (run_dir / "live.jsonl").read_text().splitlines())
              if x["kind"] == "fio-status"}
    results = {f.name[:-len(".json")] for f in (run_dir / "fio").glob("*.json") if not f.name.endswith(".status.json")}
    assert results and results <= listed, (results, listed)
    assert drawn is not None, f"{lab}: the page never drew fio's reports"
