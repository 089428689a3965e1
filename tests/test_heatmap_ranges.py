"""Heat maps that say what they show (issue 43, items 2 and 3): per-column percentiles exact to the
bucket over merged histogram logs, the overflow and fio's histogram limit counted and drawn as a row
of their own, the seconds without events, and ``perflab heatmap --percentiles``."""
import csv
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perflab import cli
from perflab.analysis import heatmap as H
from perflab.analysis.heatmap.model import HeatMap, percentiles_csv_path
from perflab.analysis.heatmap.plot import figure, overflow_label
from perflab.fio.logs import FIO_HIST_LIMIT_NS, FIO_IO_U_PLAT_NR, fio_bin_edges_ns, fio_hist_limit_ns

QS = (50, 99, 99.9)


# ----------------------------------------------------------------- writers and references

def write_hist_log(path: Path, lines, nbins: int = FIO_IO_U_PLAT_NR) -> None:
    """lines: (time_ms, ddir, {fio_bin: count}); fio's format: time_ms, ddir, bs, c0 .. c(nbins-1)."""
    out = []
    for t, d, bins in lines:
        c = np.zeros(nbins, np.int64)
        for i, v in bins.items():
            c[i] = v
        out.append(", ".join(map(str, [t, d, 4096, *c.tolist()])) + "\n")
    path.write_text("".join(out))


def write_lat_log(path: Path, t_ms, lat_ns) -> None:
    path.write_text("".join(f"{int(t)}, {int(x)}, 0, 4096, 0\n" for t, x in zip(t_ms, lat_ns)))


def ref_bucket(x: int, sub: int = 8, floor: int = 128, ceil: int = 2 ** 34):
    """Log-linear bucket of latency x by integer arithmetic; None at or above ceil."""
    if x < floor:
        return 0
    if x >= ceil:
        return None
    g = x.bit_length() - 1
    return 1 + (g - (floor.bit_length() - 1)) * sub + (((x - (1 << g)) * sub) >> g)


def ref_percentile(dist: list[int], over: int, edges, q) -> float:
    """The upper edge of the bucket holding the ceil(q/100 N)-th event, walked one bucket at a time."""
    n = sum(dist) + over
    if n == 0:
        return math.nan
    rank = max(1, math.ceil(Fraction(str(q)) * n / 100))
    seen = 0
    for b, c in enumerate(dist):
        seen += c
        if seen >= rank:
            return float(edges[b + 1])
    return math.inf


# ----------------------------------------------------------------- item 3: percentiles over time

def test_merged_percentiles_equal_those_of_the_union_of_buckets(tmp_path):
    """5 clients' histogram logs: the merged map's per-column p50/p99/p99.9 are those computed from
    the summed bucket counts, column by column (whichever way the maps are merged)."""
    rng = np.random.default_rng(43)
    fio_lo = fio_bin_edges_ns()
    n_lines, files = 8, []
    union: dict[int, list[int]] = {}
    over_ref = [0] * n_lines
    edges = H.Buckets.loglinear().edges_ns
    nb = len(edges) - 1
    for client in range(5):
        lines = []
        for k in range(n_lines):
            bins = {}
            if k != 3:                                     # second 3: no client has an I/O
                for i in rng.choice(np.arange(300, 1400), size=12, replace=False).tolist():
                    bins[i] = int(rng.integers(1, 40))
                if client == 2 and k in (5, 6):            # a slow client: many I/Os past fio's limit
                    bins[FIO_IO_U_PLAT_NR - 1] = 4000 if k == 5 else 1
            lines.append((1000 * (k + 1), 0, bins))
            for i, v in bins.items():
                if i == FIO_IO_U_PLAT_NR - 1:
                    over_ref[k] += v
                    continue
                b = ref_bucket(int(fio_lo[i]))
                assert ref_bucket(int(fio_lo[i + 1]) - 1) == b     # the fio bin fits the bucket
                union.setdefault(k, [0] * nb)[b] += v
        p = tmp_path / f"client{client}_clat_hist.1.log"
        write_hist_log(p, lines)
        files.append(p)

    hm = H.from_hist_log(files)
    assert hm.n_columns == n_lines and hm.overflow.tolist() == over_ref
    got = hm.column_percentiles(QS)
    assert got.shape == (n_lines, 3)
    for k in range(n_lines):
        for j, q in enumerate(QS):
            exp = ref_percentile(union.get(k, [0] * nb), over_ref[k], edges, q)
            assert (math.isnan(exp) and math.isnan(got[k, j])) or got[k, j] == exp, (k, q, got[k, j], exp)
    assert np.isnan(got[3]).all()                          # the empty second
    assert math.isinf(got[5, 2]) and math.isinf(got[5, 0])  # 4,000 of the second's I/Os past fio's limit
    # merged client by client: the same sums, the same percentiles; and the whole-map percentile agrees
    merged = H.merge(H.from_hist_log(p) for p in files)
    np.testing.assert_array_equal(merged.column_percentiles(QS), got)
    for k in (0, 5, 7):
        assert hm.percentile(99, k, k + 1) == got[k, 1] or (math.isnan(got[k, 1]))


def test_column_percentiles_upper_edge_nan_and_inf():
    edges = [0, 10, 20, 40]
    hm = HeatMap(edges, [[1, 1, 0], [0, 0, 0], [0, 0, 4], [1, 0, 0]], overflow=[0, 0, 0, 1])
    got = hm.column_percentiles((50, 100))
    assert got[0].tolist() == [10.0, 20.0]        # ranks 1 and 2 of 2: buckets 0 and 1, upper edges
    assert np.isnan(got[1]).all()
    assert got[2].tolist() == [40.0, 40.0]
    assert got[3, 0] == 10.0 and math.isinf(got[3, 1])    # the 2nd of 2 is in the overflow


# ----------------------------------------------------------------- item 2: what the map leaves out

def test_overflow_of_a_per_io_log_is_counted_exactly(tmp_path):
    ceil = 2 ** 20
    rng = np.random.default_rng(7)
    t = np.sort(rng.integers(0, 6000, 500))
    lat = rng.integers(1000, 4 * ceil, 500)
    lat[:3] = [ceil - 1, ceil, ceil + 1]
    p = tmp_path / "j_clat.1.log"
    write_lat_log(p, t, lat)
    hm = H.from_lat_log(p, ceil_ns=ceil)
    exp = np.bincount(t[lat >= ceil] // 1000, minlength=hm.n_columns)
    assert hm.overflow.tolist() == exp.tolist()
    assert hm.counts.sum() == int((lat < ceil).sum()) and hm.total == 500
    assert overflow_label(hm) == "≥ 1.05 ms" and hm.overflow_from_ns() == ceil


def test_fio_top_bin_is_at_or_above_the_limit_never_a_bucket(tmp_path):
    assert FIO_HIST_LIMIT_NS == 2 ** 34 - 2 ** 27 == fio_hist_limit_ns() == int(fio_bin_edges_ns()[-2])
    p = tmp_path / "s_clat_hist.1.log"
    write_hist_log(p, [(1000, 0, {FIO_IO_U_PLAT_NR - 1: 7, 1000: 2}), (2000, 0, {FIO_IO_U_PLAT_NR - 1: 1})])
    for kw in ({}, {"linear_ns": 20_000_000, "linear_max_ns": 1024 * 20_000_000}, {"sub": 64}):
        # log-linear, linear to 20.5 s (fio's top bin's midpoint would lie in a bucket), finer
        hm = H.from_hist_log(p, **kw)
        assert hm.overflow.tolist() == [7, 1], kw              # not in any bucket, whatever the buckets
        assert hm.counts.sum() == 2 and hm.total == 10
        assert hm.cap_ns == FIO_HIST_LIMIT_NS and hm.overflow_from_ns() == FIO_HIST_LIMIT_NS
        assert overflow_label(hm) == "at or above fio's histogram limit (17 s)"
        assert math.isinf(hm.percentile(99.9))
    # linear rows trimmed to the data: the overflow still holds fio's top bin (labelled by the top edge)
    assert H.from_hist_log(p, linear_ns=20_000_000).overflow.tolist() == [7, 1]
    # a ceiling under fio's limit: the overflow is that of the ceiling, labelled by it
    low = H.from_hist_log(p, ceil_ns=2 ** 30)
    assert low.cap_ns is None and low.overflow.tolist() == [7, 1] and overflow_label(low).startswith("≥ 1.07 s")
    # log_hist_coarseness=2: fio's top bin is the last 4 merged
    pc = tmp_path / "c_clat_hist.1.log"
    write_hist_log(pc, [(1000, 0, {FIO_IO_U_PLAT_NR // 4 - 1: 5, 10: 1})], nbins=FIO_IO_U_PLAT_NR // 4)
    hc = H.from_hist_log(pc)
    assert hc.overflow.tolist() == [5] and hc.cap_ns == fio_hist_limit_ns(2) == 2 ** 34 - 2 ** 29
    # the cap survives saving and merging
    hm = H.from_hist_log(p)
    hm.save(tmp_path / "m.npz")
    assert HeatMap.load(tmp_path / "m.npz").cap_ns == FIO_HIST_LIMIT_NS
    assert (hm + hc).cap_ns == min(FIO_HIST_LIMIT_NS, fio_hist_limit_ns(2))


def _heat(fig):
    return next(t for t in fig.data if t.type == "heatmap")


def test_figure_draws_the_overflow_row_exactly_when_there_is_overflow():
    edges = [0, 1000, 2000, 4000, 8000]
    counts = [[5, 1, 0, 0], [0, 3, 2, 0], [1, 0, 0, 0]]
    plain = figure(HeatMap(edges, counts))
    y = list(_heat(plain).y)
    assert y == ["0-1 us", "1-2 us", "2-4 us"] and not any(str(v).startswith("≥") for v in y)
    hm = HeatMap(edges, counts, overflow=[0, 4, 11])
    fig = figure(hm)
    h = _heat(fig)
    assert list(h.y) == ["0-1 us", "1-2 us", "2-4 us", "≥ 8 us"]
    assert list(fig.layout.yaxis.categoryarray)[-1] == "≥ 8 us"
    cd = np.asarray(h.customdata)
    assert cd[-1, :, 0].tolist() == [0, 4, 11]                   # its counts, per column
    z = np.asarray(h.z, dtype=float)
    assert np.isnan(z[-1, 0]) and z[-1, 2] == pytest.approx(math.log10(11))
    assert "the top row counts them" in fig.layout.title.text
    # a column with only overflow is drawn too
    only = figure(HeatMap(edges, [[1, 0, 0, 0], [0, 0, 0, 0]], overflow=[0, 2]))
    assert np.asarray(_heat(only).customdata)[-1, :, 0].tolist() == [0, 2]
    # every I/O in the overflow: the row is drawn over the (empty) top bucket, not "no I/Os"
    all_over = _heat(figure(HeatMap(edges, [[0, 0, 0, 0]], overflow=[6])))
    assert list(all_over.y) == ["4-8 us", "≥ 8 us"] and np.asarray(all_over.customdata)[:, 0, 0].tolist() == [0, 6]
    # linear layout: one more brick above the top edge
    lin = _heat(figure(hm, linear=True, unit="us"))
    assert len(lin.y) == 3 + 1 + 1 and lin.y[-2] == 4 and np.asarray(lin.customdata)[-1, :, 0].tolist() == [0, 4, 11]


def test_fio_limit_row_is_labelled_as_such(tmp_path):
    p = tmp_path / "s_clat_hist.1.log"
    write_hist_log(p, [(1000, 0, {FIO_IO_U_PLAT_NR - 1: 3, 700: 2})])
    fig = figure(H.from_hist_log(p))
    assert list(_heat(fig).y)[-1] == "at or above fio's histogram limit (17 s)"
    assert "at or above fio's histogram limit" in fig.layout.title.text
    # rows too many to label each: the overflow row's label is shown all the same, on two lines
    wide = {i: 1 for i in range(300, 1400, 7)}
    wide[FIO_IO_U_PLAT_NR - 1] = 2
    write_hist_log(p, [(1000, 0, wide)])
    ax = figure(H.from_hist_log(p)).layout.yaxis
    assert len(ax.tickvals) < len(ax.categoryarray)
    assert ax.tickvals[-1] == "at or above fio's histogram limit (17 s)"
    assert ax.ticktext[-1] == "at or above fio's<br>histogram limit (17 s)"


def test_gap_seconds_are_counted_and_said():
    edges = [0, 10, 20]
    cols = [[0, 0], [1, 0], [0, 0], [0, 0], [0, 2], [0, 0], [3, 0], [0, 0]]   # gaps: 2, 3, 5
    hm = HeatMap(edges, cols, col_s=0.5)
    assert hm.gap_columns() == 3
    assert "1.5 seconds without events" in figure(hm).layout.title.text
    over = HeatMap(edges, cols, col_s=1.0, overflow=[0, 0, 1, 0, 0, 0, 0, 0])    # overflow is an event
    assert over.gap_columns() == 2 and "2 seconds without events" in figure(over).layout.title.text
    assert HeatMap(edges, [[0, 0], [1, 0], [2, 0]]).gap_columns() == 0
    assert "without events" not in figure(HeatMap(edges, [[0, 0], [1, 0], [2, 0]])).layout.title.text


def test_percentile_lines_sit_at_their_buckets_rows():
    edges = [0, 1000, 2000, 4000, 8000]
    # column 0: 100 I/Os in 0-1 us, 1 in 4-8 us (p50 row 0, p99 row 0, p99.9 row 3);
    # column 1: nothing; column 2: 10 in 1-2 us and 1 overflow (p99 and p99.9 in the overflow row)
    hm = HeatMap(edges, [[100, 0, 0, 1], [0, 0, 0, 0], [0, 10, 0, 0]], overflow=[0, 0, 1])
    fig = figure(hm, percentiles=QS)
    lines = {t.name: t for t in fig.data if t.type == "scatter"}
    assert list(lines) == ["p50", "p99", "p99.9"]
    assert len({t.line.dash for t in lines.values()}) == 3 and all(t.showlegend for t in lines.values())
    assert list(lines["p50"].x) == [0.5, 1.5, 2.5]
    assert list(lines["p50"].y) == ["0-1 us", None, "1-2 us"]
    assert list(lines["p99"].y) == ["0-1 us", None, "≥ 8 us"]
    assert list(lines["p99.9"].y) == ["4-8 us", None, "≥ 8 us"]
    assert fig.layout.legend.font.size >= 10
    # the legend lies under the colour bar (not over the title's lines: tests/support/layout.js found
    # them colliding there at 390 px), the figure taller by its row
    assert fig.layout.legend.yanchor == "top" and fig.layout.legend.y < _heat(fig).colorbar.y - 0.05
    assert fig.layout.margin.b == figure(hm).layout.margin.b + 28
    lin = figure(hm, percentiles=QS, linear=True, unit="us")
    ll = {t.name: t for t in lin.data if t.type == "scatter"}
    assert list(ll["p50"].y) == [1.0, None, 2.0] and ll["p99.9"].y[0] == 8.0
    assert ll["p99"].y[2] == pytest.approx(10.0)       # the middle of the overflow brick, 8-12 us
    assert not any(t.type == "scatter" for t in figure(hm).data)    # no lines unless asked


def test_cli_percentiles_csv(tmp_path, capsys):
    p = tmp_path / "s_clat_hist.1.log"
    write_hist_log(p, [(1000, 0, {700: 98, 900: 1, 1200: 1}), (2000, 0, {}),
                       (3000, 0, {500: 3, FIO_IO_U_PLAT_NR - 1: 1})])
    out = tmp_path / "m.csv"
    assert cli.main(["heatmap", str(p), "--csv", str(out)]) == 0
    assert not percentiles_csv_path(out).exists()          # off by default
    html = tmp_path / "m.html"
    assert cli.main(["heatmap", str(p), "--csv", str(out), "--html", str(html), "--percentiles"]) == 0
    pc = tmp_path / "m.percentiles.csv"
    assert percentiles_csv_path(out) == pc and pc.exists() and out.exists()
    rows = list(csv.DictReader(pc.open()))
    hm = H.from_hist_log(p)
    exp = hm.column_percentiles(QS)
    assert [r["second"] for r in rows] == ["0", "1", "2"]
    assert list(rows[0]) == ["second", "events", "overflow", "p50_ns", "p99_ns", "p99_9_ns"]
    assert [r["events"] for r in rows] == ["100", "0", "4"] and [r["overflow"] for r in rows] == ["0", "0", "1"]
    assert [int(rows[0][k]) for k in ("p50_ns", "p99_ns", "p99_9_ns")] == exp[0].astype(int).tolist()
    assert [rows[1][k] for k in ("p50_ns", "p99_ns", "p99_9_ns")] == ["", "", ""]
    assert rows[2]["p99_ns"] == "inf" and int(rows[2]["p50_ns"]) == int(exp[2, 0])
    page = html.read_text()
    assert '"name":"p99.9"' in page and "at or above fio's histogram limit" in page
    assert cli.main(["heatmap", str(p), "--percentiles", "--summary"]) == 2


def test_summary_names_fios_limit_for_the_top_bin(tmp_path, capsys):
    p = tmp_path / "s_clat_hist.1.log"
    write_hist_log(p, [(1000, 0, {700: 60, FIO_IO_U_PLAT_NR - 1: 3})])
    assert cli.main(["heatmap", str(p), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "3 I/Os at or above fio's histogram limit, 17 s, are in no mode" in out and "top bucket's edge" not in out


def test_refusals_a_reviewer_found(tmp_path, capsys):
    """--percentiles of a saved map whose rows are no latencies; --linear-us under 1 ns (it was read as 0, so
    log-linear, in silence); --follow of a log of fio's averages (the plain command refuses it too)."""
    lat = tmp_path / "a_clat.1.log"
    write_lat_log(lat, np.arange(1000, 3000, 10), np.full(200, 50_000))
    saved = tmp_path / "sub.npz"
    assert cli.main(["heatmap", str(lat), "--map", "subsecond", "--save", str(saved)]) == 0
    capsys.readouterr()
    assert cli.main(["heatmap", str(saved), "--percentiles", "--csv", str(tmp_path / "x.csv")]) == 2
    assert "rows are subsecond" in capsys.readouterr().err and not (tmp_path / "x.percentiles.csv").exists()
    assert cli.main(["heatmap", str(lat), "--linear-us", "0.0001"]) == 2
    assert "at least 1 ns" in capsys.readouterr().err
    avg = tmp_path / "b_clat.1.log"
    avg.write_text("".join(f"{1000 * i}, 150000, 0, 0, 0\n" for i in range(1, 20)))
    for extra in ([], ["--follow", "--idle", "1"]):
        assert cli.main(["heatmap", str(avg), *extra]) == 2
        assert "a log of fio's averages" in capsys.readouterr().err
