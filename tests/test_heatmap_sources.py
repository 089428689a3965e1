"""Heat maps from every source and of every kind, on real samples, cell for cell.

Samples: tests/data/traces/ (README.md there says which are real and how each was made), fio logs
written by a real fio run here, and the fio logs kept under data/reference/.  Expected cells come
from hand-worked values (small samples) or from a plain-Python reference computed from the lines.
"""
from __future__ import annotations

import collections
import gzip
import subprocess
import shutil
from pathlib import Path

import numpy as np
import pytest

from perflab.analysis import heatmap as H
from perflab.fio.logs import FioLogError, read_hist_log

DATA = Path(__file__).resolve().parent / "data" / "traces"
REF = Path(__file__).resolve().parents[1] / "data" / "reference"


def bucket_ref(x: int, sub: int = 8, floor: int = 128) -> int:
    """Log-linear bucket number, by integers only (the definition in perflab.analysis.heatmap)."""
    if x < floor:
        return 0
    g = x.bit_length() - 1
    return (g - (floor.bit_length() - 1)) * sub + (x >> (g - sub.bit_length() + 1)) - sub + 1


def cells(hm) -> dict:
    c = hm.cells()
    return {(float(s), int(lo)): int(n) for s, lo, n in zip(c["second"], c.iloc[:, 1], c["count"])}


# ----------------------------------------------------------------------------- tracers

def test_biosnoop_real_sample_cells_by_hand():
    """bcc's own example output: 15 writes in 3 seconds; each cell worked out by hand from LAT(ms)."""
    hm = H.from_trace(DATA / "biosnoop-bcc-example.txt", "biosnoop")
    assert cells(hm) == {
        (0, 589824): 1, (0, 720896): 1, (0, 1048576): 1, (0, 1179648): 1,      # 0.61 0.74 1.09 1.24 ms
        (1, 589824): 1, (1, 786432): 1, (1, 917504): 2,                      # 0.60 0.79 0.93 0.98
        (2, 229376): 1, (2, 245760): 1, (2, 327680): 3, (2, 524288): 1, (2, 589824): 1,  # .23 .25 .34-.36 .58 .65
    }
    assert hm.percentile(100) == 1310720 and hm.total == 15    # 1.24 ms: in [1179648, 1310720)
    by = H.from_trace(DATA / "biosnoop-bcc-example.txt", "biosnoop", by="disk")
    assert {k: m.total for k, m in by.items()} == {"xvda1": 10, "xvdb": 4, "xvdc": 1}
    assert list(by) == ["xvda1", "xvdb", "xvdc"]                            # largest first
    assert len({m.n_columns for m in by.values()}) == 1                     # one time axis
    comm = H.from_trace(DATA / "biosnoop-bcc-example.txt", "biosnoop", by="comm")
    assert {k: m.total for k, m in comm.items()} == {"supervise": 10, "xfsaild/md0": 4, "kworker/0:3": 1}
    off = H.from_trace(DATA / "biosnoop-bcc-example.txt", "biosnoop", what="offset")
    assert off.total == 15 and off.edges_ns[-1] > 63542016 * 512           # SECTOR * 512 fits


def test_biosnoop_name_with_blanks_and_damaged_lines(tmp_path):
    p = tmp_path / "b.txt"
    head = "TIME(s)     COMM           PID    DISK    T SECTOR     BYTES  QUE(ms) LAT(ms)\n"
    p.write_text(head + "0.5  Web Content  77  sda  R 2048  4096  0.01  2.50\n")
    by = H.from_trace(p, "biosnoop", by="comm")
    assert list(by) == ["Web Content"] and cells(by["Web Content"]) == {(0, 2359296): 1}
    p.write_text(head + "0.5  fio  77  sda  R 2048  4096  0.01  fast\n")
    with pytest.raises(FioLogError, match=r"b\.txt:2: .*not a number"):
        H.from_trace(p, "biosnoop")
    p.write_text("0.5 fio 77 sda R 2048 4096 2.5\n")
    with pytest.raises(FioLogError, match="no biosnoop header"):
        H.from_trace(p, "biosnoop")


def test_blkparse_pairs_issue_and_completion_by_hand():
    """D (to the driver) and C (done) of one device and sector make one I/O; Q, G, I, P, U and the
    closing summary are skipped.  Latencies: 185.2 us, 2.5 ms, 40 us, 31 ms."""
    hm = H.from_trace(DATA / "blkparse-default.txt", "blkparse")
    assert cells(hm) == {(0, 180224): 1, (0, 2359296): 1, (1, 36864): 1, (1, 29360128): 1}
    by = H.from_trace(DATA / "blkparse-default.txt", "blkparse", by="op")
    assert {k: m.total for k, m in by.items()} == {"R": 2, "WS": 2}


def test_tracer_pieces_of_any_size_give_the_same_map(monkeypatch):
    """The readers hand on pieces of PIECE_LINES I/Os: pieces of 3 give the whole file's cells."""
    from perflab.analysis.heatmap import traces
    whole = {f: cells(H.from_trace(DATA / n, f)) for f, n in (("bpftrace", "bpftrace-block.txt"),
                                                          ("biosnoop", "biosnoop-bcc-example.txt"),
                                                          ("blkparse", "blkparse-default.txt"))}
    monkeypatch.setattr(traces, "PIECE_LINES", 3)
    for f, n in (("bpftrace", "bpftrace-block.txt"), ("biosnoop", "biosnoop-bcc-example.txt"),
                 ("blkparse", "blkparse-default.txt")):
        assert len(list(traces.trace_events(DATA / n, f))) > 1, f
        assert cells(H.from_trace(DATA / n, f)) == whole[f], f


def test_blkparse_refuses_what_is_not_blkparse(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("this is not blkparse output\n")
    with pytest.raises(FioLogError, match=r"x\.txt:1: not a blkparse line"):
        H.from_trace(p, "blkparse")


def _bpftrace_lines():
    rows = [ln.split() for ln in (DATA / "bpftrace-block.txt").read_text().splitlines()
            if ln and ln[0].isdigit()]
    return [(int(r[0]), int(r[1]), r[3], int(r[4])) for r in rows]


def test_bpftrace_real_sample_every_map_against_a_reference():
    """The real block trace (600 I/Os): latency, offset and subsecond maps, and a drill-down by op,
    each cell equal to a plain-Python count of the lines."""
    lines = _bpftrace_lines()
    assert len(lines) == 600
    first_s = min(t for t, *_ in lines) // 1_000_000 // 1000
    lat = H.from_trace(DATA / "bpftrace-block.txt", "bpftrace")
    exp = collections.Counter((t // 1_000_000 // 1000 - first_s, H.Buckets.loglinear().edges_ns[bucket_ref(x)])
                              for t, x, _, _ in lines)
    assert cells(lat) == {(float(s), int(lo)): n for (s, lo), n in exp.items()}
    # offsets: rows grow from 4 KiB by doubling until the largest offset fits in 256 rows
    off = H.from_trace(DATA / "bpftrace-block.txt", "bpftrace", what="offset")
    top = max(o for *_, o in lines)
    row = 4096
    while top // row >= H.OFFSET_ROWS:
        row *= 2
    assert off.edges_ns[1] == row and off.y == "offset"
    exp = collections.Counter((t // 1_000_000 // 1000 - first_s, o // row * row) for t, _, _, o in lines)
    assert cells(off) == {(float(s), int(lo)): n for (s, lo), n in exp.items()}
    assert list(off.cells().columns) == ["second", "offset_lo", "offset_hi", "count"]
    # subsecond: the millisecond within the second, rows of 50 ms
    sub = H.from_trace(DATA / "bpftrace-block.txt", "bpftrace", what="subsecond", row=50_000_000)
    exp = collections.Counter((t // 1_000_000 // 1000 - first_s, (t // 1_000_000 % 1000) // 50 * 50_000_000)
                              for t, *_ in lines)
    assert sub.n_buckets == 20 and cells(sub) == {(float(s), int(lo)): n for (s, lo), n in exp.items()}
    by = H.from_trace(DATA / "bpftrace-block.txt", "bpftrace", by="op")
    assert {k: m.total for k, m in by.items()} == dict(collections.Counter(op for *_, op, _ in lines))
    assert (sum(m.counts for m in by.values()) == lat.counts).all()          # the parts add up to the whole


def test_bpftrace_form_errors(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("# time_ns latency_ns disk\n100 200 sda\n100 200\n")
    with pytest.raises(FioLogError, match=r"t\.txt:3: 2 fields, the header names 3"):
        H.from_trace(p, "bpftrace")
    p.write_text("100 -5\n")
    with pytest.raises(FioLogError, match=r"t\.txt:1: "):
        H.from_trace(p, "bpftrace")
    with pytest.raises(ValueError, match="cannot drill down by 'comm'"):
        p.write_text("1000000000 5000 sda\n")
        H.from_trace(p, "bpftrace", by="comm")


# ----------------------------------------------------------------------------- fio logs

@pytest.fixture(scope="module")
def fio_offset_logs(tmp_path_factory):
    """A real fio run here: two jobs of random 4 KiB reads and writes, per-I/O logs with offsets."""
    if not shutil.which("fio"):
        pytest.skip("fio is not installed (make setup installs it)")
    d = tmp_path_factory.mktemp("fio")
    subprocess.run(["fio", "--name=mix", f"--directory={d}", "--size=16m", "--rw=randrw", "--bs=4k",
                    "--numjobs=2", "--number_ios=1500", "--ioengine=psync", "--write_lat_log=mix",
                    "--log_offset=1", "--disable_lat=1", "--disable_slat=1", "--output=/dev/null"],
                   cwd=d, check=True, timeout=120)
    logs = sorted(d.glob("mix_clat.*.log"))
    assert len(logs) == 2
    return logs


def _fio_lines(paths):
    out = []
    for p in paths:
        for ln in p.read_text().splitlines():
            t, lat, ddir, bs, off, prio = (int(x) for x in ln.split(","))
            out.append((p.name, t, lat, ddir, off))
    return out


def test_fio_offset_and_subsecond_maps_and_drill_downs(fio_offset_logs):
    lines = _fio_lines(fio_offset_logs)
    assert len(lines) == 3000
    row = 1 << 20
    off = H.from_lat_log(fio_offset_logs, what="offset", row=row)
    exp = collections.Counter((t // 1000, o // row * row) for _, t, _, _, o in lines)
    assert cells(off) == {(float(s), int(lo)): n for (s, lo), n in exp.items()}
    sub = H.from_lat_log(fio_offset_logs, what="subsecond", col_s=1, row=10_000_000)
    exp = collections.Counter((t // 1000, t % 1000 // 10 * 10_000_000) for _, t, *_ in lines)
    assert cells(sub) == {(float(s), int(lo)): n for (s, lo), n in exp.items()}
    for dim, key in (("op", lambda r: {0: "read", 1: "write"}[r[3]]), ("job", lambda r: r[0].replace("_clat", "")
                                                                       .removesuffix(".log"))):
        by = H.from_lat_log(fio_offset_logs, by=dim)
        assert {k: m.total for k, m in by.items()} == dict(collections.Counter(key(r) for r in lines)), dim
    by = H.from_lat_log(fio_offset_logs, by="client")
    assert list(by) == ["local"]
    no_offsets = REF / "jbod" / "fio" / "balanced" / "j1d1_clat.1.log.gz"   # 5 fields: no log_offset
    with pytest.raises(FioLogError, match="log_offset=1"):
        H.from_lat_log(no_offsets, what="offset")


def test_compiled_and_arrow_engines_give_the_same_cells(tmp_path):
    from test_heatmap import write_lat_log
    rng = np.random.default_rng(3)
    p = tmp_path / "e_clat.1.log"
    n = 50_000
    write_lat_log(p, np.sort(rng.integers(0, 20_000, n)), rng.integers(0, 2 ** 36, n), rng.integers(0, 3, n))
    for kw in ({}, {"linear_ns": 1_000_000, "linear_max_ns": 10 ** 9}, {"ddir": "write"}, {"sub": 64}):
        a = H.from_lat_log(p, engine="compiled", block_size=64 << 10, **kw)
        b = H.from_lat_log(p, engine="arrow", block_size=64 << 10, **kw)
        assert (a.counts == b.counts).all() and (a.overflow == b.overflow).all() and a.total == b.total, kw


def test_hist_logs_merge_exactly_across_jobs_and_client_hosts(tmp_path):
    """Histogram logs of two jobs (heatmaps reference) and of two `fio --client` hosts (the Logzilla
    reference's epoch-stamped log, its intervals split between two host files): the merged map's
    cells are the sums of the parts' (counts added, never percentiles averaged)."""
    jobs = [REF / "heatmaps" / "fio" / n for n in ("cached_clat_hist.1.log.gz", "direct_clat_hist.2.log.gz")]
    both = H.from_hist_log(jobs)
    parts = [H.from_hist_log([j]) for j in jobs]
    assert both.total == sum(p.total for p in parts) > 0
    assert (both.counts == H.merge(parts).counts).all()
    src = REF / "logzilla" / "fio" / "sync-writes_clat_hist.1.log.gz"
    lines = gzip.open(src, "rt").read().splitlines()
    a, b = tmp_path / "sync_clat_hist.1.log.hostA", tmp_path / "sync_clat_hist.1.log.hostB"
    a.write_text("".join(ln + "\n" for ln in lines))
    # host B ran the same job 3 s later: its stamps (epoch ms, one clock) are 3000 ms on
    b.write_text("".join(f"{int(ln.split(',', 1)[0]) + 3000},{ln.split(',', 1)[1]}\n" for ln in lines))
    whole, merged = H.from_hist_log([src]), H.from_hist_log([a, b])
    assert whole.t0_ms > 10 ** 12 and merged.t0_ms == whole.t0_ms
    assert merged.total == 2 * whole.total == 2 * read_hist_log(src).counts.sum()
    expect = np.zeros((whole.n_columns + 3, whole.n_buckets), np.int64)
    expect[:whole.n_columns] += whole.counts
    expect[3:] += whole.counts
    assert (merged.counts == expect).all()


# ----------------------------------------------------------------------------- any size

def test_page_is_capped_and_says_so(tmp_path):
    from test_heatmap import write_lat_log
    p = tmp_path / "long_clat.1.log"
    t = np.arange(0, 5000 * 1000, 1000)                        # 5000 one-second columns
    write_lat_log(p, t, np.full(len(t), 10_000))
    hm = H.from_lat_log(p)
    fig = H.figure(hm)
    heat = [tr for tr in fig.data if tr.type == "heatmap"][0]
    assert len(heat.x) - 1 <= 1200 and "re-binned to 8 s columns for the page" in fig.layout.title.text
    assert hm.n_columns == 5000                                 # the map itself keeps its columns


def test_dask_cluster_gives_the_local_cells(tmp_path):
    """Partial maps binned on a local Dask cluster (two worker processes) and added up equal the
    local path's map of the same files, cell for cell."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster
    from perflab.analysis.heatmap import distributed as D
    from test_heatmap import EPOCH, write_lat_log
    rng = np.random.default_rng(11)
    files = []
    for i in range(5):
        p = tmp_path / f"h{i}_clat.1.log"
        start = EPOCH + int(rng.integers(0, 40_000))
        write_lat_log(p, np.sort(rng.integers(start, start + 30_000, 3000)), rng.integers(500, 10 ** 8, 3000))
        files.append(p)
    local = H.from_lat_log(files)
    import dask

    # the workers' scratch space in the test's own directory (by default /tmp/dask-scratch-space stays)
    with dask.config.set({"temporary-directory": str(tmp_path / "dask")}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl):
        remote = D.from_files(files, split_every=2)
    assert remote.t0_ms == local.t0_ms and remote.total == local.total == 15_000
    assert (remote.counts == local.counts).all() and (remote.overflow == local.overflow).all()
