"""`perflab heatmap --trace trace2heatmap`: the two columns trace2heatmap.pl reads (time, latency), its
optional header, its units; lines it skips counted in the map's notes, lines it cannot read refused with
the line named; cells equal to a plain count of the same events. (Measured once on the example trace
that ships with Gregg's HeatMap repository, TIMEus DELTAus and 15,288 lines: every cell equal to a
numpy count, 2026-11-27; the file is not copied here.)"""
import numpy as np
import pytest

from perflab.analysis import heatmap as H
from perflab.analysis.heatmap.traces import trace_events
from perflab.fio.logs import FioLogError

RNG = np.random.default_rng(7)


def _trace(tmp_path, header="TIMEus DELTAus", pasted=True):
    """A trace2heatmap.pl trace of 3,000 events in microseconds: times over 20 s, latencies in two bands."""
    t = np.sort(RNG.integers(9_339_835_017, 9_359_835_017, 3000))
    lat = np.where(RNG.random(3000) < 0.8, RNG.integers(650, 1500, 3000), RNG.integers(10_000, 80_000, 3000))
    lines = ([header] if header else []) + [f"{a} {b}" for a, b in zip(t, lat)]
    if pasted:
        lines.insert(200, "[...]")
        lines.insert(900, "[...]")
    f = tmp_path / "trace.txt"
    f.write_text("\n".join(lines) + "\n")
    return f, t * 1000, lat * 1000


def _count(hm, t_ns, lat_ns):
    """The cells, counted plainly: the column from the map's origin, the bucket from its edges (and the
    overflow, the I/Os at or over the top edge, per column)."""
    col = (t_ns // 1_000_000 - hm.t0_ms) // int(hm.col_s * 1000)
    row = np.searchsorted(hm.edges_ns, lat_ns, side="right") - 1
    over = lat_ns >= hm.edges_ns[-1]
    out = np.zeros_like(hm.counts)
    np.add.at(out, (col[~over], row[~over]), 1)
    assert np.array_equal(np.bincount(col[over], minlength=len(hm.overflow)), hm.overflow)
    return out


def test_the_header_gives_the_units_and_the_cells_are_exact(tmp_path):
    f, t_ns, lat_ns = _trace(tmp_path)
    hm = H.from_trace([f], "trace2heatmap")
    assert hm.total == 3000 and np.array_equal(hm.counts, _count(hm, t_ns, lat_ns))
    assert any("2 lines with fewer than two fields skipped (the first, line 201: '[...]')" in n for n in hm.notes)


def test_options_give_the_units_where_there_is_no_header(tmp_path):
    f, t_ns, lat_ns = _trace(tmp_path, header=None, pasted=False)
    hm = H.from_trace([f], "trace2heatmap", units=("us", "us"))
    assert np.array_equal(hm.counts, _count(hm, t_ns, lat_ns)) and not hm.notes
    # the same numbers read as milliseconds of latency: every I/O 1,000 times slower (the slow band, 10 to
    # 80 s, partly over the map's top edge)
    slow = H.from_trace([f], "trace2heatmap", units=("us", "ms"))
    assert slow.total == 3000 and np.array_equal(slow.counts, _count(slow, t_ns, lat_ns * 1000))
    assert slow.overflow.sum() > 0


def test_a_latency_of_no_known_unit_is_refused(tmp_path):
    f, _, _ = _trace(tmp_path, header="time latency")
    with pytest.raises(FioLogError, match="--units-latency"):
        H.from_trace([f], "trace2heatmap")


def test_a_line_that_is_not_two_numbers_is_named(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("TIMEus DELTAus\n1000 20\nabc def\n")
    with pytest.raises(FioLogError, match=r"t.txt:3: not a time and a latency"):
        H.from_trace([f], "trace2heatmap")


def test_units_are_for_this_form_only(tmp_path):
    f, _, _ = _trace(tmp_path)
    with pytest.raises(ValueError, match="trace2heatmap"):
        list(trace_events(f, "bpftrace", ("us", "us")))
    with pytest.raises(ValueError, match="a unit is one of"):
        list(trace_events(f, "trace2heatmap", ("minutes", None)))


def test_the_command_reads_it(tmp_path, capsys):
    from perflab.cli import main

    f, _, _ = _trace(tmp_path)
    assert main(["heatmap", "--trace", "trace2heatmap", str(f), "--csv", str(tmp_path / "c.csv")]) == 0
    assert "3000 I/Os" in capsys.readouterr().err
    assert main(["heatmap", str(f), "--units-time", "us"]) == 2   # units without --trace trace2heatmap
