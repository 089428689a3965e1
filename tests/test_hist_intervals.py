"""Which second each line of a fio histogram log lands in, checked against fio's own rule.

fio's ``tools/hist/fiologparser_hist.py`` (its default, weighted mode; documented in its
``weights()`` docstring and its man page) reads a line stamped ``T`` as I/Os that completed, on
average, half an interval before ``T``: an I/O of latency ``L`` is taken to have started at
``T - interval/2 - L`` and is spread evenly from there to ``T``; an output interval
``[s, s + interval)`` gets the share of that span inside it. fio's parser cannot be fetched at test
time, so the expected seconds below are worked out by hand from that rule (interval 1000 ms, the
logs' log_hist_msec), and :func:`fio_rule` restates the rule in a few lines to check the hand
figures. Our heat map counts each line whole in one column (perflab.analysis.heatmap.ingest.
hist_line_times); it must be the second fio's rule gives most of the line, the I/O count must be
kept, and no second between the first and the last may be left empty unless nothing completed in it.

The real logs under tests/data/hist/ are the first lines of two reference runs' logs (benchmarking,
repeat 3): ``client-bound`` (fio starved of CPU: its first line comes at 1,699 ms, the ones after at
2,599, 3,599 ... ms; the issue-41 log) and ``disk-direct`` (an ordinary log: 1,001, 2,001 ... ms).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perflab.analysis.heatmap import from_hist_log
from perflab.analysis.heatmap.ingest import DEFAULT_HIST_PERIOD_MS, hist_line_times, hist_period_ms
from perflab.fio.logs import FIO_IO_U_PLAT_NR, fio_bin_edges_ns, read_hist_log

DATA = Path(__file__).parent / "data" / "hist"
LATE = DATA / "client-bound_clat_hist.1.log.gz"
ORDINARY = DATA / "disk-direct_clat_hist.4.log.gz"
FAST_BIN = 900            # fio bin 900: 557,056-565,248 ns, about 0.56 ms: short against a second
EPOCH = 1_795_781_948_000  # a log_unix_epoch=1 stamp (ms), a whole second


def write_log(path: Path, lines: list[tuple[int, int, int]], ddir: int = 0) -> Path:
    """A histogram log whose line ``(stamp_ms, n, bin)`` holds n I/Os in fio bin ``bin``."""
    out = []
    for t, n, b in lines:
        c = np.zeros(FIO_IO_U_PLAT_NR, np.int64)
        c[b] = n
        out.append(", ".join(map(str, [t, ddir, 4096, *c.tolist()])) + "\n")
    path.write_text("".join(out))
    return path


def per_second(hm) -> dict[int, int]:
    """A map's I/O count per second (the map's own origin: 0 for job-relative logs)."""
    base = hm.t0_ms // 1000
    tot = hm.column_totals() + hm.overflow
    return {base + i: int(n) for i, n in enumerate(tot) if n}


def fio_rule(path: Path, interval: int = 1000) -> list[dict[int, float]]:
    """For each line (in file order), the I/Os fio's parser's rule gives each second."""
    h = read_hist_log(path)
    e = fio_bin_edges_ns(h.coarseness).astype(np.float64)
    lat_ms = (e[:-1] + e[1:]) / 2 / 1e6          # it takes each bin at its middle
    out = []
    for t, row in zip(h.time_ms, h.counts):
        share: dict[int, float] = {}
        for b in np.flatnonzero(row):
            lo, hi = t - interval / 2 - lat_ms[b], float(t)
            for s in range(int(lo // interval), int(hi // interval) + 1):
                part = min(hi, (s + 1) * interval) - max(lo, s * interval)
                if part > 0:
                    share[s] = share.get(s, 0.0) + row[b] * part / (hi - lo)
        out.append(share)
    return out


def line_seconds(path: Path) -> list[int]:
    """The second our rule counts each line in (file order)."""
    return (hist_line_times(read_hist_log(path)) // 1000).tolist()


def no_gap(sec: dict[int, int]) -> bool:
    return all(s in sec for s in range(min(sec), max(sec) + 1))


# ----------------------------------------------------------------- the real logs

def test_late_first_line_lands_where_fio_puts_it():
    h = read_hist_log(LATE)
    assert h.time_ms.tolist() == [1699, 2599, 3599, 4599, 5599, 6599, 7599, 8699, 9599, 10599]
    # By hand: a line at T covers [T - 500 - L, T]; 699 and 599 ms into a second, [T - 500, T] lies
    # inside T's own second, so every line goes whole to the second of its stamp (all but the few
    # I/Os slower than 99-199 ms, which fio's parser spreads a little into the second before).
    # The first line, at 1,699 ms, belongs to second 1, not second 0; second 0 holds nothing.
    expected = {1: 264, 2: 316, 3: 301, 4: 303, 5: 257, 6: 226, 7: 310, 8: 263, 9: 206, 10: 384}
    hm = from_hist_log(LATE)
    assert per_second(hm) == expected
    assert hm.total == h.total == sum(expected.values()) == 2830
    assert no_gap(per_second(hm)) and hm.column_totals()[0] == 0
    fio = fio_rule(LATE)
    assert line_seconds(LATE) == [max(f, key=f.get) for f in fio]
    for sec, share in zip(line_seconds(LATE), fio):   # what fio's rule puts elsewhere is the slow I/Os'
        assert share[sec] >= 0.99 * sum(share.values())


def test_ordinary_log_lands_where_fio_puts_it():
    h = read_hist_log(ORDINARY)
    assert h.time_ms.tolist() == [1001, 2001, 3001, 4001, 5001, 6001]
    # By hand: a line at k,001 ms covers [k,001 - 500 - L, k,001]: 499 of its 500 ms lie in second
    # k - 1 (1 ms in second k), so each line goes to the second before its stamp's.
    expected = {0: 2005, 1: 1999, 2: 2009, 3: 1992, 4: 2001, 5: 2000}
    hm = from_hist_log(ORDINARY)
    assert per_second(hm) == expected and hm.total == h.total == 12006
    assert line_seconds(ORDINARY) == [max(f, key=f.get) for f in fio_rule(ORDINARY)]


def test_the_period_is_read_off_the_stamps():
    assert hist_period_ms(read_hist_log(LATE)) == {0: pytest.approx((10599 - 1699) / 9)}
    assert hist_period_ms(read_hist_log(ORDINARY)) == {0: 1000.0}
    # told the period (fio's log_hist_msec), the same seconds
    assert per_second(from_hist_log(LATE, period_ms=1000)) == per_second(from_hist_log(LATE))


# ----------------------------------------------------------------- small logs, by hand

@pytest.mark.parametrize("name, stamps, seconds", [
    # the shape: the first line late (fio started its first period at its first completion)
    ("late-first", [1699, 2599, 3599, 4599], [1, 2, 3, 4]),
    # 299 ms into a second: fio's rule gives 299 of a line's 500 ms to the stamp's second
    ("late-first-299", [1299, 2299, 3299, 4299], [1, 2, 3, 4]),
    # ordinary logs: stamps on, or a few ms after, each whole second
    ("on-the-second", [1000, 2000, 3000, 4000], [0, 1, 2, 3]),
    ("a-little-late", [1002, 2003, 3002, 4004], [0, 1, 2, 3]),
])
def test_hand_logs(tmp_path, name, stamps, seconds):
    counts = [10 * (i + 1) for i in range(len(stamps))]
    for base in (0, EPOCH):          # job-relative stamps, and log_unix_epoch=1 stamps
        p = write_log(tmp_path / f"{name}-{base}_clat_hist.1.log", [(base + t, n, FAST_BIN) for t, n in zip(stamps, counts)])
        expected = {base // 1000 + s: n for s, n in zip(seconds, counts)}
        assert per_second(from_hist_log(p)) == expected, (name, base)
        assert [s - base // 1000 for s in line_seconds(p)] == seconds
        assert [max(f, key=f.get) - base // 1000 for f in fio_rule(p)] == seconds   # the hand figures are fio's


def test_a_line_stamped_late_after_a_stall_keeps_its_second(tmp_path):
    # fio moves a period's start on by exactly one period (stat.c), not to the late stamp: the line
    # at 3,282 ms closed the period that ended at about 3,019 ms, and the next line is on time again
    # (logzilla's log after the change has this shape). By fio's writer the 3,282 line's I/Os
    # completed in second 2. fio's parser gives second 2 only 218/500 of it and second 3 the rest
    # plus the whole 4,019 line, so counting lines whole by its majority would leave second 2 empty
    # though I/Os completed in it: here our rule keeps the writer's second.
    p = write_log(tmp_path / "stall_clat_hist.1.log",
                  [(1019, 100, FAST_BIN), (2019, 100, FAST_BIN), (3282, 80, FAST_BIN), (4019, 120, FAST_BIN),
                   (5019, 100, FAST_BIN)])
    assert per_second(from_hist_log(p)) == {0: 100, 1: 100, 2: 80, 3: 120, 4: 100}
    fio = fio_rule(p)
    assert fio[2][2] == pytest.approx(80 * 218 / 500, rel=0.01) and fio[2][3] == pytest.approx(80 * 282 / 500, rel=0.01)
    assert 3 == max(fio[2], key=fio[2].get) and 2 not in fio[3]


def test_seconds_in_which_nothing_completed_stay_empty(tmp_path):
    # A 2.5 s stall: the line at 4,500 ms closed the period that ended at 3,000 ms (all its I/Os
    # but the one that completed at 4,500 came before 3,000: a later one would have been stamped
    # earlier); at 4,501 fio writes the period it missed (one I/O, a catch-up line), then goes on.
    # Nothing completed in second 3: that gap is the data's, and the map keeps it. fio's parser,
    # which reads every line as the half second before its stamp, puts the 4,500 line in second 4
    # and leaves seconds 2 and 3 empty: here we differ from it on purpose.
    p = write_log(tmp_path / "gap_clat_hist.1.log",
                  [(1000, 50, FAST_BIN), (2000, 50, FAST_BIN), (4500, 40, FAST_BIN), (4501, 1, FAST_BIN),
                   (5000, 50, FAST_BIN)])
    assert hist_period_ms(read_hist_log(p)) == {0: 1000.0}   # one line a period, the catch-up included
    assert per_second(from_hist_log(p)) == {0: 50, 1: 50, 2: 40, 4: 51}
    assert max(fio_rule(p)[2], key=fio_rule(p)[2].get) == 4


def test_each_direction_by_its_own_lines(tmp_path):
    # a randrw log: reads and writes each have their own lines (fio keeps a period per direction)
    reads = [(1699, 30, FAST_BIN), (2599, 31, FAST_BIN), (3599, 32, FAST_BIN)]
    writes = [(1702, 7, FAST_BIN), (2702, 8, FAST_BIN), (3702, 9, FAST_BIN)]
    text = write_log(tmp_path / "r.log", reads, 0).read_text() + write_log(tmp_path / "w.log", writes, 1).read_text()
    p = tmp_path / "rw_clat_hist.1.log"
    p.write_text(text)
    assert per_second(from_hist_log(p, ddir="read")) == {1: 30, 2: 31, 3: 32}
    assert per_second(from_hist_log(p, ddir="write")) == {1: 7, 2: 8, 3: 9}
    assert per_second(from_hist_log(p)) == {1: 37, 2: 39, 3: 41}


def test_one_line_takes_the_default_period(tmp_path):
    # one line says nothing of the period: fio's parser's default interval (and every lab's
    # log_hist_msec), 1000 ms; [1,199, 1,699] lies in second 1
    p = write_log(tmp_path / "one_clat_hist.1.log", [(1699, 5, FAST_BIN)])
    assert hist_period_ms(read_hist_log(p)) == {0: DEFAULT_HIST_PERIOD_MS}
    assert per_second(from_hist_log(p)) == {1: 5}
    with pytest.raises(ValueError, match="period"):
        from_hist_log(p, period_ms=0)
