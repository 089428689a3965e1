"""perflab.analysis.heatmap: bucketing, streaming from per-I/O logs, folding histogram logs, figure."""
import math
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from perflab.analysis import heatmap as H
from perflab.analysis.heatmap.plot import COLORSCALE
from perflab.fio.logs import FioLogError, fio_bin_edges_ns, read_hist_log, read_lat_log

DATA = Path(__file__).parent / "data"
LAT = DATA / "fio333_randread_clat.1.log"
HIST = DATA / "fio333_randread_clat_hist.1.log"
FIO = "/usr/bin/fio"


# ----------------------------------------------------------------- independent references

def ref_loglinear_bucket(x: int, sub: int, floor: int, ceil: int):
    """Bucket of latency x by integer arithmetic (bit_length), one value at a time."""
    if x < floor:
        return 0
    if x >= ceil:
        return None  # overflow
    g = x.bit_length() - 1                     # x in [2**g, 2**(g+1))
    k = ((x - (1 << g)) * sub) >> g            # linear sub-bucket inside the group
    return 1 + (g - (floor.bit_length() - 1)) * sub + k


def ref_loglinear_edges(sub: int, floor: int, ceil: int) -> list[int]:
    edges, g = [0], floor
    while g < ceil:
        edges += [g + k * g // sub for k in range(sub)]
        g *= 2
    return edges + [ceil]


def synth_values(rng, n: int, edges) -> np.ndarray:
    """Log-uniform latencies over 1 ns..2**35 ns, plus every edge, edge-1 and 0."""
    v = np.exp(rng.uniform(0, math.log(2 ** 35), n)).astype(np.int64)
    special = np.array([0, 1] + [e for e in edges] + [e - 1 for e in edges if e > 0], np.int64)
    return np.concatenate([v, special])


def write_lat_log(path: Path, t_ms, lat_ns, ddir=None, offset=True) -> None:
    n = len(t_ms)
    ddir = np.zeros(n, np.int64) if ddir is None else ddir
    cols = [t_ms, lat_ns, ddir, np.full(n, 4096)] + ([np.arange(n) * 4096] if offset else []) \
        + [np.zeros(n, np.int64)]
    path.write_text("".join(", ".join(str(int(c[i])) for c in cols) + "\n" for i in range(n)))


def expected_counts(t_ms, lat, col_ms, bucket_of):
    exp, over = Counter(), Counter()
    for t, x in zip(t_ms.tolist(), lat.tolist()):
        b = bucket_of(x)
        if b is None:
            over[t // col_ms] += 1
        else:
            exp[(t // col_ms, b)] += 1
    return exp, over


def as_counter(hm):
    c, b = np.nonzero(hm.counts)
    return Counter({(int(i), int(j)): int(hm.counts[i, j]) for i, j in zip(c, b)})


# ----------------------------------------------------------------- buckets

@pytest.mark.parametrize("sub", [1, 2, 4, 8, 16, 32, 64])
def test_loglinear_edges_and_fio_alignment(sub):
    bk = H.Buckets.loglinear(sub)
    assert bk.edges_ns.tolist() == ref_loglinear_edges(sub, 128, 2 ** 34)
    assert bk.n == 1 + 27 * sub
    # every bucket edge is a fio bin edge, so histogram logs fold exactly
    assert np.isin(bk.edges_ns, fio_bin_edges_ns()).all()


def test_bucket_index_matches_integer_reference():
    rng = np.random.default_rng(7)
    for sub, floor, ceil in [(8, 128, 2 ** 34), (64, 64, 2 ** 20), (1, 1024, 2 ** 40), (16, 256, 2 ** 30)]:
        bk = H.Buckets.loglinear(sub, floor, ceil)
        v = synth_values(rng, 20000, bk.edges_ns.tolist())
        got = bk.index(v)
        ref = [ref_loglinear_bucket(int(x), sub, floor, ceil) for x in v]
        ref = np.array([bk.n if r is None else r for r in ref])
        assert (got == ref).all(), (sub, floor, ceil)


def test_bucket_bad_arguments():
    with pytest.raises(ValueError):
        H.Buckets.loglinear(sub=3)
    with pytest.raises(ValueError):
        H.Buckets.loglinear(floor_ns=100)
    with pytest.raises(ValueError):
        H.Buckets.linear(0)


# ----------------------------------------------------------------- per-I/O logs

@pytest.mark.parametrize("offset", [True, False])
def test_from_lat_log_loglinear_against_reference(tmp_path, offset):
    rng = np.random.default_rng(1)
    edges = ref_loglinear_edges(8, 128, 2 ** 34)
    lat = synth_values(rng, 30000, edges)
    t = np.sort(rng.integers(0, 12_345, len(lat)))
    rng.shuffle(t[:500])                          # fio logs are only roughly time-ordered
    p = tmp_path / "a_clat.1.log"
    write_lat_log(p, t, lat, offset=offset)
    hm = H.from_lat_log(p, block_size=1 << 14)    # many small blocks
    exp, over = expected_counts(t, lat, 1000, lambda x: ref_loglinear_bucket(x, 8, 128, 2 ** 34))
    assert as_counter(hm) == exp
    assert hm.overflow.tolist() == [over[c] for c in range(hm.n_columns)]
    assert hm.total == len(lat) and hm.n_columns == 13
    assert hm.edges_ns.tolist() == edges


def test_from_lat_log_matches_histogram2d(tmp_path):
    rng = np.random.default_rng(2)
    n = 50000
    t = rng.integers(0, 60_000, n)
    lat = np.exp(rng.normal(11, 2, n)).astype(np.int64).clip(0, 2 ** 34 - 1)
    p = tmp_path / "b_clat.1.log"
    write_lat_log(p, t, lat)
    edges = np.array(ref_loglinear_edges(16, 128, 2 ** 34), np.float64)
    ref, _, _ = np.histogram2d(t, lat, bins=[np.arange(0, 60_001, 250), edges])
    hm = H.from_lat_log(p, col_s=0.25, sub=16)
    assert hm.counts.shape == ref.shape and (hm.counts == ref).all()


def test_from_lat_log_linear_against_reference(tmp_path):
    rng = np.random.default_rng(3)
    lat = rng.integers(0, 3_000_000, 20000)
    lat[:50] = np.arange(50) * 100_000            # exact edges
    lat[50:100] = np.arange(1, 51) * 100_000 - 1  # just below edges
    t = rng.integers(0, 5000, len(lat))
    p = tmp_path / "c_clat.1.log"
    write_lat_log(p, t, lat)
    # explicit maximum: 2 ms, so everything from 2 ms up is overflow
    hm = H.from_lat_log(p, linear_ns=100_000, linear_max_ns=2_000_000, block_size=1 << 14)
    exp, over = expected_counts(t, lat, 1000, lambda x: x // 100_000 if x < 2_000_000 else None)
    assert hm.scale == "linear" and hm.edges_ns.tolist() == list(range(0, 2_000_001, 100_000))
    assert as_counter(hm) == exp
    assert hm.overflow.tolist() == [over[c] for c in range(5)]
    # no maximum: buckets up to the data
    hm2 = H.from_lat_log(p, linear_ns=100_000)
    assert hm2.edges_ns[-1] == 5_000_000 and hm2.overflow.sum() == 0
    ref, _, _ = np.histogram2d(t, lat, bins=[np.arange(0, 5001, 1000), hm2.edges_ns.astype(float)])
    assert (hm2.counts == ref).all()


def test_several_logs_share_the_time_origin(tmp_path):
    rng = np.random.default_rng(4)
    paths, ts, ls = [], [], []
    for i, span in enumerate([3000, 7000]):
        t = rng.integers(0, span, 3000)
        lat = rng.integers(1000, 10 ** 7, 3000)
        paths.append(tmp_path / f"j{i}_clat.{i + 1}.log")
        write_lat_log(paths[-1], t, lat)
        ts.append(t), ls.append(lat)
    both = H.from_lat_log(paths)
    assert both.n_columns == 7 and both.total == 6000
    assert (both.counts == (H.from_lat_log(paths[0]) + H.from_lat_log(paths[1])).counts).all()
    exp, _ = expected_counts(np.concatenate(ts), np.concatenate(ls), 1000,
                             lambda x: ref_loglinear_bucket(x, 8, 128, 2 ** 34))
    assert as_counter(both) == exp
    assert both.sources == tuple(map(str, paths))


def test_ddir_filter(tmp_path):
    t = np.arange(100)
    lat = np.full(100, 5000)
    d = np.arange(100) % 2
    p = tmp_path / "rw_clat.1.log"
    write_lat_log(p, t, lat, ddir=d)
    assert H.from_lat_log(p, ddir="write").total == 50
    assert H.from_lat_log(p, ddir=0).total == 50
    assert H.from_lat_log(p).total == 100


def test_streaming_reports_damaged_line(tmp_path):
    lines = LAT.read_text().splitlines(keepends=True)
    p = tmp_path / "bad_clat.1.log"
    p.write_text("".join(lines[:300]) + "1500, 77\n" + "".join(lines[300:]))
    with pytest.raises(FioLogError, match=r"bad_clat\.1\.log:301: expected 6 fields"):
        H.from_lat_log(p, block_size=4096)
    p.write_text("".join(lines)[:-3])
    with pytest.raises(FioLogError, match=rf":{len(lines)}: truncated"):
        H.from_lat_log(p)


# ----------------------------------------------------------------- histogram logs

def write_hist_log(path: Path, lines) -> None:
    """lines: (time_ms, ddir, {fio_bin: count})."""
    out = []
    for t, d, bins in lines:
        c = np.zeros(1856, np.int64)
        for i, v in bins.items():
            c[i] = v
        out.append(", ".join(map(str, [t, d, 4096, *c.tolist()])) + "\n")
    path.write_text("".join(out))


def test_from_hist_log_known_counts(tmp_path):
    lines = [(1000, 0, {5: 7, 200: 3, 1855: 1, 127: 2}),
             (1000, 1, {900: 4}),
             (2000, 0, {128: 2, 1200: 5}),
             (4000, 0, {600: 1})]          # a long interval: (2000, 4000], midpoint in column 3
    p = tmp_path / "s_clat_hist.1.log"
    write_hist_log(p, lines)

    def lo_hi(i):  # fio's formula, independently
        if i < 128:
            return i, i + 1
        eb = (i >> 6) - 1
        base = 1 << (eb + 6)
        return base + (i % 64) * (1 << eb), base + (i % 64 + 1) * (1 << eb)

    edges = ref_loglinear_edges(8, 128, 2 ** 34)
    start = {0: 0, 1: 0}
    exp = Counter()
    for t, d, bins in lines:
        col = ((start[d] + t) / 2) // 1000
        start[d] = t
        for i, v in bins.items():
            if i == 1855:      # fio's top bin: every I/O at or above fio's limit, in no bucket (issue 43)
                continue
            lo, hi = lo_hi(i)
            b = ref_loglinear_bucket(lo, 8, 128, 2 ** 34)
            assert edges[b] <= lo and hi <= edges[b + 1]      # the fio bin fits the bucket
            exp[(int(col), b)] += v
    hm = H.from_hist_log(p)
    assert hm.kind == "hist" and hm.exact
    assert as_counter(hm) == exp
    cells = hm.cells()
    assert cells["count"].sum() == 24 and hm.total == 25
    assert cells[cells["lat_hi_ns"] == 2 ** 34].empty and hm.overflow.tolist()[0] == 1   # at or above fio's limit
    assert H.from_hist_log(p, ddir="write").total == 4
    # linear buckets: fio bins assigned by midpoint; here bin 1200 is wider than a bucket
    lin = H.from_hist_log(p, linear_ns=1000, linear_max_ns=10 ** 7)
    assert lin.total == 25 and not lin.exact and lin.notes
    assert lin.overflow.sum() == 1 + 5            # bin 1855 (~17 s) and bin 1200 (~25 ms)


def test_hist_and_per_io_logs_of_one_run_agree():
    h = read_hist_log(HIST)
    lat = read_lat_log(LAT)
    covered = lat[lat["time_ms"] <= h.time_ms[-1]]
    hm_h = H.from_hist_log(HIST, col_s=0.5)
    hm_l = H.from_lat_log(LAT, col_s=0.5)
    # same I/Os, same buckets: the distribution over the covered span is identical
    bk = H.Buckets.loglinear(8)
    per_io = np.bincount(bk.index(covered["lat_ns"].to_numpy()), minlength=bk.n + 1)[:-1]
    assert (hm_h.counts.sum(axis=0) == per_io).all()
    assert hm_h.total == len(covered)
    # per column they agree up to the I/Os that completed between a column's end and the
    # histogram's time stamp (fio stamps the interval a few ms late)
    n = hm_h.n_columns
    diff = np.abs(hm_h.column_totals() - hm_l.column_totals()[:n])
    assert (diff <= np.maximum(3, 0.02 * hm_l.column_totals()[:n])).all(), diff


@pytest.mark.skipif(shutil.which(FIO) is None, reason=f"{FIO} is not installed")
def test_hist_and_per_io_agree_on_a_live_randrw_run(tmp_path):
    subprocess.run([FIO, "--name=t", f"--filename={tmp_path / 'f'}", "--size=4m", "--bs=4k",
                    "--rw=randrw", "--rate_iops=400,200", "--runtime=2", "--time_based",
                    "--write_hist_log=t", "--log_hist_msec=500", "--write_lat_log=t",
                    "--log_avg_msec=0", "--output-format=json", f"--output={tmp_path / 'o.json'}"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=60)
    hist, lat = tmp_path / "t_clat_hist.1.log", tmp_path / "t_clat.1.log"
    h, df = read_hist_log(hist), read_lat_log(lat)
    for d in (0, 1):
        t_last = h.time_ms[h.ddir == d].max()
        covered = df[(df["ddir"] == d) & (df["time_ms"] <= t_last)]
        hm_h = H.from_hist_log(hist, col_s=0.5, ddir=d)
        hm_l = H.from_lat_log(lat, col_s=0.5, ddir=d)
        assert abs(hm_h.total - len(covered)) <= 2
        n = hm_h.n_columns
        diff = np.abs(hm_h.column_totals() - hm_l.column_totals()[:n])
        assert (diff <= np.maximum(4, 0.03 * hm_l.column_totals()[:n])).all(), (d, diff)


# ----------------------------------------------------------------- cells, csv, percentile, merge

def test_csv_columns_and_half_open_buckets(tmp_path):
    p = tmp_path / "e_clat.1.log"
    write_lat_log(p, np.array([0, 0, 0, 1500, 1500]), np.array([1024, 1023, 127, 128, 2 ** 34]))
    hm = H.from_lat_log(p)
    out = tmp_path / "cells.csv"
    hm.write_csv(out)
    df = pd.read_csv(out)
    assert list(df.columns) == ["second", "lat_lo_ns", "lat_hi_ns", "count"]
    assert df.values.tolist() == [[0, 0, 128, 1], [0, 960, 1024, 1], [0, 1024, 1152, 1],
                                  [1, 128, 144, 1]]
    assert hm.overflow.tolist() == [0, 1] and hm.total == 5
    # half-open convention on random data
    rng = np.random.default_rng(5)
    lat = rng.integers(0, 10 ** 6, 5000)
    write_lat_log(p, np.zeros(5000, np.int64), lat)
    cells = H.from_lat_log(p).cells()
    for lo, hi, c in cells[["lat_lo_ns", "lat_hi_ns", "count"]].values:
        assert ((lat >= lo) & (lat < hi)).sum() == c


def test_seconds_for_fractional_columns(tmp_path):
    p = tmp_path / "f_clat.1.log"
    write_lat_log(p, np.array([0, 250, 799]), np.array([5000, 5000, 5000]))
    hm = H.from_lat_log(p, col_s=0.1)
    assert hm.cells()["second"].tolist() == [0.0, 0.2, 0.7]
    with pytest.raises(ValueError):
        H.from_lat_log(p, col_s=0.0004)


def test_percentile_brackets_the_true_value(tmp_path):
    rng = np.random.default_rng(6)
    lat = np.exp(rng.normal(11, 1.5, 20000)).astype(np.int64)
    t = rng.integers(0, 10_000, len(lat))
    p = tmp_path / "p_clat.1.log"
    write_lat_log(p, t, lat)
    hm = H.from_lat_log(p)
    edges = hm.edges_ns

    def check(values, got, q):
        s = np.sort(values)
        true = s[max(1, math.ceil(q * len(s) / 100)) - 1]
        i = int(np.searchsorted(edges, got))
        assert edges[i] == got                      # an upper bucket edge
        assert edges[i - 1] <= true < got           # the true value's own bucket

    for q in (0, 1, 50, 90, 99, 99.9, 100):
        check(lat, hm.percentile(q), q)
        sel = (t >= 3000) & (t < 6000)
        check(lat[sel], hm.percentile(q, t_from=3, t_to=6), q)
    small = H.HeatMap(hm.edges_ns, np.zeros((1, hm.n_buckets), np.int64))
    assert math.isnan(small.percentile(50))
    dist = hm.distribution(3, 6)
    assert dist["count"].sum() == ((t >= 3000) & (t < 6000)).sum()
    assert dist["cum_pct"].iloc[-1] == pytest.approx(100)


def test_a_map_followed_by_another_keeps_both_apart_with_the_gap_empty():
    edges = np.array([0, 10, 100, 1000])
    a = H.HeatMap(edges, [[1, 0, 0], [2, 0, 0], [0, 0, 3]], t0_ms=5000, overflow=[0, 0, 1])
    b = H.HeatMap(edges, [[0, 4, 0], [0, 0, 5]], t0_ms=900_000, overflow=[2, 0])   # far later, on its own clock
    j = a.followed_by(b, gap_columns=2)
    assert j.t0_ms == a.t0_ms and j.n_columns == 3 + 2 + 2
    assert (j.counts[:3] == a.counts).all() and not j.counts[3:5].any() and (j.counts[5:] == b.counts).all()
    assert list(j.overflow) == [0, 0, 1, 0, 0, 2, 0] and j.total == a.total + b.total
    with pytest.raises(ValueError, match="columns of"):
        a.followed_by(H.HeatMap(edges, [[1, 0, 0]], col_s=2.0))


def test_percentile_in_overflow_is_inf(tmp_path):
    p = tmp_path / "o_clat.1.log"
    write_lat_log(p, np.array([0, 0]), np.array([1000, 10 ** 8]))
    hm = H.from_lat_log(p, linear_ns=1000, linear_max_ns=10_000)
    assert hm.percentile(50) == 2000 and hm.percentile(100) == math.inf


def test_merge(tmp_path):
    rng = np.random.default_rng(8)
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    write_lat_log(a, rng.integers(0, 4000, 1000), rng.integers(100, 10 ** 6, 1000))
    write_lat_log(b, rng.integers(2000, 9000, 1000), rng.integers(100, 10 ** 6, 1000))
    ha, hb = H.from_lat_log(a), H.from_lat_log(b)
    s = ha + hb
    assert (s.counts == H.from_lat_log([a, b]).counts).all() and s.total == 2000
    assert (H.merge([ha, hb]).counts == s.counts).all()
    # shifted origin: hb2's column 0 is ha's column 2
    hb2 = H.HeatMap(hb.edges_ns, hb.counts, t0_ms=2000, overflow=hb.overflow)
    m = ha + hb2
    assert m.t0_ms == 0 and m.n_columns == max(ha.n_columns, 2 + hb.n_columns)
    expect = np.zeros_like(m.counts)
    expect[:ha.n_columns] += ha.counts
    expect[2:2 + hb.n_columns] += hb.counts
    assert (m.counts == expect).all()
    assert (hb2 + ha).t0_ms == 0 and ((hb2 + ha).counts == expect).all()
    with pytest.raises(ValueError, match="whole number"):
        ha + H.HeatMap(hb.edges_ns, hb.counts, t0_ms=500)
    with pytest.raises(ValueError):
        ha + H.from_lat_log(b, sub=16)
    # columns of different widths: the finer map is re-binned to the wider one, exactly
    hb2s = H.from_lat_log(b, col_s=2)
    wide = ha + hb2s
    assert wide.col_ms == 2000 and wide.total == ha.total + hb2s.total
    assert (wide.counts == (ha.rebin(2000) + hb2s).counts).all()
    assert any("re-binned to 2 s" in n for n in wide.notes)
    with pytest.raises(ValueError, match="cannot merge maps with columns"):
        H.from_lat_log(a, col_s=2) + H.from_lat_log(b, col_s=3)
    # linear maps trimmed to different heights still add up
    la = H.from_lat_log(a, linear_ns=50_000)
    write_lat_log(b, np.array([0]), np.array([20_000]))
    short = H.from_lat_log(b, linear_ns=50_000)
    assert len(short.edges_ns) < len(la.edges_ns)
    assert (short + la).total == la.total + 1 and (la + short).counts[0, 0] == la.counts[0, 0] + 1


# ----------------------------------------------------------------- figure and render

def test_figure_structure():
    hm = H.from_lat_log(LAT, col_s=0.5)
    fig = H.figure(hm, title="fixture", t_range=(0.5, 1.5))
    heat, bar = fig.data
    assert heat.type == "heatmap" and bar.type == "bar"
    z = np.asarray(heat.z, dtype=float)
    rows = np.flatnonzero(hm.counts.any(axis=0))
    assert z.shape == (rows[-1] - rows[0] + 1, hm.n_columns)     # bounding box only
    block = hm.counts[:, rows[0]:rows[-1] + 1].T
    assert np.isnan(z[block == 0]).all()                          # empty cells not drawn
    assert np.allclose(z[block > 0], np.log10(block[block > 0]))
    assert heat.zmin == 0                                         # count 1 = lowest colour
    cd = np.asarray(heat.customdata)
    assert (cd[..., 0] == block).all() and cd[..., 1].max() <= 100.0001
    assert heat.colorbar.ticktext[0] == "1"
    assert list(heat.y) == H.bucket_labels(hm.edges_ns[rows[0]:rows[-1] + 2])
    sel = hm.distribution(0.5, 1.5)
    assert np.sum(bar.x) == sel["count"].sum()
    assert len(fig.to_json()) < 60_000
    lin_hm = H.from_lat_log(LAT, linear_ns=20_000)
    lin = H.figure(lin_hm, linear=True, unit="us")
    ys = np.asarray(lin.data[0].y)
    rows = np.flatnonzero(lin_hm.counts.any(axis=0))
    assert len(ys) == rows[-1] - rows[0] + 2 and ys[1] - ys[0] == 20   # edges, in us


def test_busiest_cells_darkest_and_count_one_visible():
    """The colour scale goes from light to dark: a single I/O is still visible on white and every
    step towards the busiest cell is darker, so on a light page the busiest cells stand out most
    (chapters/heatmaps.md; dark mode reverses the scale: tests/test_dark_figures.py)."""
    import plotly.colors as pc

    def lum(c):
        r, g, b = pc.hex_to_rgb(c)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    stops = [lum(c) for _, c in COLORSCALE]
    assert stops[0] < 210                          # count 1: visible against a white page
    assert all(a > b for a, b in zip(stops, stops[1:]))   # busier is darker, all the way
    assert stops[-1] < 60


def test_bucket_labels():
    labels = H.bucket_labels(H.Buckets.loglinear(64).edges_ns)
    assert len(set(labels)) == len(labels)
    assert labels[0] == "0-128 ns"
    assert "65.5-73.7 us" in H.bucket_labels(H.Buckets.loglinear(8).edges_ns)
    assert H.bucket_labels(np.array([0, 100_000, 200_000]), unit="ms") == ["0-0.1 ms", "0.1-0.2 ms"]


def test_render_writes_csv_and_offline_html(tmp_path):
    html, csv = tmp_path / "hm.html", tmp_path / "hm.csv"
    hm = H.render([LAT], html=html, csv=csv)
    assert hm.kind == "per-io" and hm.total == 400
    assert pd.read_csv(csv)["count"].sum() == 400
    page = html.read_text()
    assert "<script src=\"https://cdn" not in page and "Plotly.newPlot" in page
    assert len(page) > 1_000_000              # plotly.js inline: opens offline
    hh = H.render(HIST, csv=tmp_path / "h.csv")
    assert hh.kind == "hist" and hh.total == read_hist_log(HIST).total
    with pytest.raises(ValueError, match="cannot mix"):
        H.render([LAT, HIST])
    empty = tmp_path / "x_slat.1.log"
    empty.write_text("")
    assert H.from_lat_log(empty).total == 0                       # the library: an empty map
    with pytest.raises(ValueError, match="no I/O in"):            # the command: nothing to draw, nothing written
        H.render(empty, html=tmp_path / "e.html")
    assert not (tmp_path / "e.html").exists()
    assert H.render([empty, LAT], csv=tmp_path / "both.csv").total == 400   # an empty log beside others is skipped


def test_fraction_between(tmp_path):
    p = tmp_path / "fb_clat.1.log"
    lat = np.array([100, 1024, 1100, 1151, 2000, 5000, 10 ** 6, 10 ** 7])
    write_lat_log(p, np.zeros(len(lat), np.int64), lat)
    hm = H.from_lat_log(p)
    # [1024, 1152) is one whole bucket holding 3 of the 8 I/Os
    assert hm.fraction_between(1024, 1152) == pytest.approx(3 / 8)
    # half of that bucket: counted pro rata
    assert hm.fraction_between(1024, 1088) == pytest.approx(1.5 / 8)
    assert hm.fraction_between(0, math.inf) == pytest.approx(1.0)
    assert hm.fraction_between(0, 128) == pytest.approx(1 / 8)


def test_gzipped_logs_read_the_same(tmp_path):
    """Reference runs keep large logs gzipped; both log kinds read the same from .gz."""
    import gzip
    import shutil as _sh
    from pathlib import Path as _P

    data = _P(__file__).parent / "data"
    for name, fn in (("fio333_randread_clat.1.log", H.from_lat_log),
                     ("fio333_randread_clat_hist.1.log", H.from_hist_log)):
        gz = tmp_path / (name + ".gz")
        with open(data / name, "rb") as fi, gzip.open(gz, "wb") as fo:
            _sh.copyfileobj(fi, fo)
        a, b = fn([data / name]), fn([gz])
        assert a.total == b.total > 0 and (a.counts == b.counts).all()


def test_t0_aligns_epoch_stamped_logs(tmp_path):
    """With log_unix_epoch=1 fio stamps wall-clock ms; t0_ms makes the columns count from it, and
    events before it are dropped."""
    from pathlib import Path as _P

    src = _P(__file__).parent / "data" / "fio333_randread_clat.1.log"
    epoch = 1_795_000_000_000
    lines = src.read_text().splitlines()
    shifted = tmp_path / "epoch_clat.1.log"
    shifted.write_text("".join(f"{int(ln.split(',')[0]) + epoch},{ln.split(',', 1)[1]}\n" for ln in lines))
    a = H.from_lat_log([src])
    b = H.from_lat_log([shifted], t0_ms=epoch)
    assert b.t0_ms == epoch and (a.counts == b.counts).all()
    c = H.from_lat_log([shifted], t0_ms=epoch + 1000)  # the first second is dropped
    assert c.total == a.total - int(a.counts[0].sum()) - int(a.overflow[0])


# ----------------------------------------------------------------- time bases (epoch, order, gaps, cap)

EPOCH = 1_763_700_000_000   # a Unix-epoch millisecond stamp (log_unix_epoch=1), November 2025


def test_epoch_stamps_count_from_the_first_sample(tmp_path):
    p = tmp_path / "epoch_clat.1.log"
    t = np.array([EPOCH + 2500, EPOCH + 1200, EPOCH + 1999, EPOCH + 4000])   # out of order
    write_lat_log(p, t, np.array([1000, 2000, 3000, 4000]))
    hm = H.from_lat_log(p)
    assert hm.t0_ms == EPOCH + 1000            # column 0 holds the earliest event
    assert hm.n_columns == 4                    # 1, 2, (3: a gap, kept empty), 4 s
    assert hm.column_totals().tolist() == [2, 1, 0, 1]
    assert hm.notes == []


def test_epoch_logs_of_different_starts_share_one_clock(tmp_path):
    a, b = tmp_path / "a_clat.1.log", tmp_path / "b_clat.1.log"
    write_lat_log(a, np.array([EPOCH + 5000, EPOCH + 5100]), np.array([1000, 1000]))
    write_lat_log(b, np.array([EPOCH + 2000, EPOCH + 7000]), np.array([1000, 1000]))
    hm = H.from_lat_log([a, b])
    assert hm.t0_ms == EPOCH + 2000
    assert hm.column_totals().tolist() == [1, 0, 0, 2, 0, 1]
    # the same as the two maps built apart and merged on their origins
    merged = H.from_lat_log(a) + H.from_lat_log(b)
    assert merged.t0_ms == hm.t0_ms and (merged.counts == hm.counts).all()


def test_relative_stamps_count_from_the_job_start(tmp_path):
    p = tmp_path / "rel_clat.1.log"
    write_lat_log(p, np.array([3500, 1200, 9000]), np.array([1000, 1000, 1000]))
    hm = H.from_lat_log(p)
    assert hm.t0_ms == 0 and hm.n_columns == 10
    assert hm.column_totals()[[1, 3, 9]].tolist() == [1, 1, 1]


def test_fixed_origin_drops_and_says_how_many(tmp_path):
    p = tmp_path / "o_clat.1.log"
    write_lat_log(p, np.array([EPOCH + 100, EPOCH + 1500, EPOCH + 2500]), np.array([1000] * 3))
    hm = H.from_lat_log(p, t0_ms=EPOCH + 1000)
    assert hm.total == 2 and hm.column_totals().tolist() == [1, 1]
    assert any("1 I/Os from before t = 0" in n for n in hm.notes)


def test_a_long_span_rebins_time_within_the_memory_cap(tmp_path):
    p = tmp_path / "span_clat.1.log"
    # 10 days between two events: 864,000 one-second columns would not fit the cap below
    t = np.array([EPOCH, EPOCH + 10 * 86_400_000, EPOCH + 500])
    write_lat_log(p, t, np.array([1000, 2000, 3000]))
    cap = 1 << 20
    hm = H.from_lat_log(p, max_bytes=cap)
    assert hm.counts.nbytes + hm.overflow.nbytes <= cap
    assert hm.total == 3
    assert hm.col_ms > 1000 and (hm.col_ms // 1000) & (hm.col_ms // 1000 - 1) == 0   # 2**k s
    assert any("re-binned" in n for n in hm.notes)
    assert hm.column_totals()[0] == 2 and hm.column_totals()[-1] == 1


def test_epoch_histogram_log_places_its_first_interval(tmp_path):
    edges = fio_bin_edges_ns()
    p = tmp_path / "h_clat_hist.1.log"
    rows = []
    for k, t in enumerate([EPOCH + 1000, EPOCH + 2000, EPOCH + 3000]):
        c = np.zeros(len(edges) - 1, np.int64)
        c[500] = k + 1
        rows.append(f"{t}, 0, 4096, " + ", ".join(map(str, c)))
    p.write_text("\n".join(rows) + "\n")
    hm = H.from_hist_log(p)
    # intervals [0-1000], [1000-2000], [2000-3000] ms after EPOCH: midpoints in columns 0, 1, 2
    assert hm.t0_ms == EPOCH and hm.column_totals().tolist() == [1, 2, 3]


FIO_LOG = __import__("re").compile(r"_(clat|slat|lat|bw|iops)(_hist)?\.\d+\.log")


def test_every_reference_fio_log_renders():
    """Every fio log kept under data/reference/ makes a heat map whose time span is the run's,
    not the 1970-to-now span that epoch stamps once made (2.85 TiB for one Logzilla log); a log of
    fio's averages (log_avg_msec: bandwidth, IOPS, stepping's mean latencies) is refused in one line."""
    import json

    from perflab.fio.logs import FioLogError, averaged_log

    root = Path(__file__).resolve().parents[1] / "data" / "reference"
    logs = sorted(p for p in root.rglob("*") if p.is_file() and FIO_LOG.search(p.name))
    averaged = [p for p in logs if "_hist" not in p.name and averaged_log(p)]
    assert len(logs) >= 170 and len(logs) - len(averaged) >= 150
    for p in averaged:
        with pytest.raises(FioLogError, match="a log of fio's averages"):
            H.render([p])
    for p in sorted(set(logs) - set(averaged)):
        hm = H.render([p])
        lab_dir = p.relative_to(root).parts[0]
        run_s = json.loads((root / lab_dir / "run.json").read_text())["provenance"]["duration_s"]
        assert hm.total > 0, p
        assert hm.n_columns * hm.col_s <= run_s + 60, (p, hm.n_columns, run_s)


def test_saved_maps_merge_to_the_map_of_the_concatenated_input(tmp_path, capsys):
    """A map is a sum of partial maps: two logs' maps saved apart and merged equal, cell for cell,
    the map of the two logs read together (epoch stamps of different starts included)."""
    from perflab import cli

    rng = np.random.default_rng(7)
    a, b = tmp_path / "a_clat.1.log", tmp_path / "b_clat.1.log"
    write_lat_log(a, np.sort(rng.integers(EPOCH, EPOCH + 30_000, 2000)), rng.integers(1_000, 50_000_000, 2000))
    write_lat_log(b, np.sort(rng.integers(EPOCH + 12_000, EPOCH + 50_000, 3000)), rng.integers(1_000, 9_000_000, 3000))
    assert cli.main(["heatmap", str(a), "--save", str(tmp_path / "a.npz")]) == 0
    assert cli.main(["heatmap", str(b), "--save", str(tmp_path / "b.npz")]) == 0
    assert cli.main(["heatmap", "--merge", str(tmp_path / "a.npz"), str(tmp_path / "b.npz"),
                     "--save", str(tmp_path / "ab.npz"), "--html", str(tmp_path / "ab.html")]) == 0
    merged = H.HeatMap.load(tmp_path / "ab.npz")
    whole = H.from_lat_log([a, b])
    assert merged.t0_ms == whole.t0_ms and merged.total == 5000
    assert (merged.counts == whole.counts).all() and (merged.overflow == whole.overflow).all()
    assert (tmp_path / "ab.html").stat().st_size > 10_000
    # not a saved map, or a mix: refused in one line
    (tmp_path / "junk.npz").write_text("no")
    assert cli.main(["heatmap", str(tmp_path / "junk.npz")]) == 2
    assert cli.main(["heatmap", str(a), str(tmp_path / "a.npz")]) == 2
    assert cli.main(["heatmap", "--merge", str(a)]) == 2
    err = capsys.readouterr().err
    assert "not a heat map saved by perflab" in err and "Traceback" not in err
