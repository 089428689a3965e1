"""perflab compare's modes block (issue 43, item 4): which modes of A appeared, vanished or moved in B,
a move judged against the noise runs' own. On data whose answer is known: maps of seeded lognormal
clusters on the log-linear buckets (each cluster's true share and median are those of the sample's own
labels), 20,000 I/Os a map, and hand-made modes for the pairing rule."""
import re

import numpy as np
import pytest

from perflab import cli
from perflab.analysis import difference
from perflab.analysis import modeshift as S
from perflab.analysis.heatmap import Buckets, HeatMap
from perflab.analysis.heatmap.modes import Mode, Modes

BK = Buckets.loglinear(8)
EDGES = BK.edges_ns
FAST, SLOW, NEW = (5_000, 0.25), (200_000, 0.3), (5_000_000, 0.3)   # median ns, sigma of ln latency


def sample(seed: int, clusters, n: int = 20_000, cols: int = 4):
    """A map of ``n`` latencies from lognormal ``clusters`` [(share, (median ns, sigma))], spread over
    ``cols`` columns; and each cluster's true share and median in the sample."""
    rng = np.random.default_rng(seed)
    p = np.array([c[0] for c in clusters], np.float64)
    k = rng.choice(len(clusters), n, p=p / p.sum())
    med = np.log([c[1][0] for c in clusters])[k]
    sig = np.array([c[1][1] for c in clusters])[k]
    lat = np.exp(rng.normal(med, sig))
    counts = np.zeros((cols, BK.n), np.int64)
    np.add.at(counts, (rng.integers(0, cols, n), BK.index(lat)), 1)
    truth = [((k == i).mean(), float(np.median(lat[k == i]))) for i in range(len(clusters))]
    return HeatMap(EDGES, counts), truth


def width_at(x: float) -> float:
    b = int(np.searchsorted(EDGES, x, side="right")) - 1
    return float(EDGES[b + 1] - EDGES[b])


A_CLUSTERS = [(0.7, FAST), (0.3, SLOW)]


@pytest.fixture(scope="module")
def runs():
    """A, and two noise runs of A's setup (other seeds)."""
    return {name: sample(seed, A_CLUSTERS) for name, seed in (("A", 1), ("N1", 2), ("N2", 3))}


def shift(runs, b: HeatMap, noise=("N1", "N2")) -> S.ModeShift:
    d = difference.compare(runs["A"][0], b, [runs[k][0] for k in noise])
    assert d.modes is not None
    return d.modes


def kinds(sh: S.ModeShift) -> list[str]:
    return [c.kind for c in sh.changes]


def test_the_slow_mode_moved_twice_as_slow(runs):
    b, truth_b = sample(4, [(0.7, FAST), (0.3, (2 * SLOW[0], SLOW[1]))])
    sh = shift(runs, b)
    assert kinds(sh) == [S.STAYED, S.MOVED] and sh.noise_runs == 2
    (moved,) = sh.named()
    (_, med_a), (share_b, med_b) = runs["A"][1][1], truth_b[1]
    share_a = runs["A"][1][1][0]
    assert abs(moved.a.median_ns - med_a) <= width_at(med_a)
    assert abs(moved.b.median_ns - med_b) <= width_at(med_b)
    assert moved.ratio == pytest.approx(2.0, rel=0.06)
    assert abs(moved.a.share - share_a) <= 0.01 and abs(moved.b.share - share_b) <= 0.01
    assert moved.share_points == pytest.approx(100 * (moved.b.share - moved.a.share))
    assert moved.ratio > moved.yardstick
    line = S.describe(moved)
    assert line.startswith("the mode at 2") and " moved to 4" in line and f"x{moved.ratio:.2f}" in line
    assert f"{100 * moved.a.share:.1f}% -> {100 * moved.b.share:.1f}%" in line


def test_a_lost_slow_mode_vanished_with_its_share_of_a(runs):
    b, _ = sample(5, [(1.0, FAST)])
    sh = shift(runs, b)
    assert kinds(sh) == [S.STAYED, S.VANISHED]
    gone = sh.named()[0]
    share_a, med_a = runs["A"][1][1]
    assert gone.b is None and abs(gone.a.share - share_a) <= 0.01 and abs(gone.a.median_ns - med_a) <= width_at(med_a)
    said = re.fullmatch(r"the mode at (2\d\d) us vanished \((\d+\.\d)% of A's I/Os\)", S.describe(gone))
    assert said and abs(float(said[1]) * 1000 - med_a) <= width_at(med_a) and abs(float(said[2]) - 100 * share_a) <= 1


def test_a_new_mode_appeared_with_its_share_of_b(runs):
    b, truth_b = sample(6, [(0.6, FAST), (0.25, SLOW), (0.15, NEW)])
    sh = shift(runs, b)
    assert kinds(sh) == [S.STAYED, S.STAYED, S.APPEARED]
    new = sh.named()[0]
    share_b, med_b = truth_b[2]
    assert new.a is None and abs(new.b.share - share_b) <= 0.01 and abs(new.b.median_ns - med_b) <= width_at(med_b)
    said = re.fullmatch(r"a mode at (\d+(?:\.\d+)?) ms appeared \((\d+\.\d)% of B's I/Os\)", S.describe(new))
    assert said and abs(float(said[1]) * 1e6 - med_b) <= width_at(med_b) and abs(float(said[2]) - 100 * share_b) <= 1


@pytest.mark.parametrize("seed", range(20, 26))
def test_same_setup_other_seeds_names_nothing(runs, seed):
    b, _ = sample(seed, A_CLUSTERS)
    sh = shift(runs, b)
    assert kinds(sh) == [S.STAYED, S.STAYED] and sh.named() == []
    assert sh.lines()[1:] == ["  none appeared, vanished or moved"]


def test_a_move_within_the_noise_runs_spread_is_not_a_move(runs):
    """The noise runs' slow mode lies at x1.25 and x0.9 of A's: B's x1.15 is beyond one bucket's width
    (x1.08 there) but within the noise, so it is not named; without the noise runs it is."""
    n1, _ = sample(8, [(0.7, FAST), (0.3, (1.25 * SLOW[0], SLOW[1]))])
    n2, _ = sample(9, [(0.7, FAST), (0.3, (0.9 * SLOW[0], SLOW[1]))])
    b, _ = sample(10, [(0.7, FAST), (0.3, (1.15 * SLOW[0], SLOW[1]))])
    a = runs["A"][0]
    sh = difference.compare(a, b, [n1, n2]).modes
    slow = sh.changes[1]
    assert kinds(sh) == [S.STAYED, S.STAYED] and slow.by == "noise"
    assert 1.1 < slow.ratio < slow.yardstick and slow.yardstick == pytest.approx(1.25 / 0.9, rel=0.05)
    alone = difference.compare(a, b, []).modes
    assert kinds(alone) == [S.STAYED, S.MOVED] and alone.changes[1].by == "one bucket"
    assert alone.lines()[0].endswith(S.BUCKET_YARDSTICK)


def mode(lo: int, hi: int, median: float, share: float = 0.5) -> Mode:
    return Mode(share=share, events=int(1000 * share), median_ns=median, lo_ns=lo, hi_ns=hi, peak_ns=median)


def modes(*ms: Mode) -> Modes:
    return Modes(2000, ms, (), 1e5, None, None, 4.0, False)


FAST_M, SLOW_M = (1_000, 20_000), (20_000, 2_000_000)   # the bounds of the hand-made modes below


def test_each_mode_is_held_to_its_own_noise_between_the_noise_runs_and_a():
    """A's slow mode at 200 us is at 240 and 250 us in the noise runs: x1.25 from A, x1.04 between
    themselves; the fast mode does not move in them, so its yardstick is one bucket (x1.11 at 5 us)."""
    a = modes(mode(*FAST_M, 5_000), mode(*SLOW_M, 200_000))
    noise = [modes(mode(*FAST_M, 5_000), mode(*SLOW_M, m)) for m in (240_000, 250_000)]
    b = modes(mode(*FAST_M, 6_000), mode(*SLOW_M, 230_000))      # x1.2 and x1.15
    sh = S.mode_shift(a, b, noise, EDGES)
    fast, slow = sh.changes
    assert (fast.kind, fast.by, slow.kind, slow.by) == (S.MOVED, "one bucket", S.STAYED, "noise")
    assert fast.yardstick == pytest.approx(1.25 / 1.125) and slow.yardstick == pytest.approx(1.25)


def test_a_mode_the_noise_runs_lack_is_held_to_the_largest_noise_of_the_others():
    a = modes(mode(*FAST_M, 5_000), mode(*SLOW_M, 200_000))
    noise = [modes(mode(*FAST_M, 6_500)), modes(mode(*FAST_M, 5_000))]   # the fast mode at x1.3; no slow one
    sh = S.mode_shift(a, modes(mode(*FAST_M, 5_000), mode(*SLOW_M, 240_000)), noise, EDGES)   # slow x1.2
    assert [(c.kind, c.by) for c in sh.changes] == [(S.STAYED, "noise"), (S.STAYED, "noise")]
    assert sh.changes[1].yardstick == pytest.approx(1.3) and sh.noise_runs == 2


def test_pairing_needs_each_median_within_the_others_bounds():
    a = (mode(1_000, 20_000, 5_000), mode(20_000, 2_000_000, 200_000))
    # B's slow mode's median (1.5 ms) lies within A's slow mode, but A's (200 us) not within B's (1-4 ms)
    b = (mode(1_000, 20_000, 5_500), mode(1_000_000, 4_000_000, 1_500_000))
    assert S.pair_modes(a, b) == {0: 0}
    sh = S.mode_shift(modes(*a), modes(*b), edges_ns=EDGES)
    assert kinds(sh) == [S.STAYED, S.VANISHED, S.APPEARED]
    b2 = (b[0], mode(150_000, 4_000_000, 1_500_000))     # now each median is within the other's bounds
    assert S.pair_modes(a, b2) == {0: 0, 1: 1}


def test_too_few_to_say_names_nothing(runs):
    b, _ = sample(11, A_CLUSTERS, n=30)
    sh = shift(runs, b)
    assert sh.too_few == ("B",) and sh.changes == ()
    assert sh.lines(("base", "new")) == ["modes: too few to say (B (new) has 30 I/Os; a histogram needs 50 or more)"]


def test_compare_prints_the_modes_and_the_page_lists_them(runs, tmp_path, capsys):
    paths = {}
    b, _ = sample(4, [(0.7, FAST), (0.3, (2 * SLOW[0], SLOW[1]))])
    for name, hm in (("A", runs["A"][0]), ("N1", runs["N1"][0]), ("N2", runs["N2"][0]), ("B", b)):
        paths[name] = str(tmp_path / f"{name}.npz")
        hm.save(paths[name])
    html = tmp_path / "diff.html"
    rc = cli.main(["compare", paths["A"], paths["B"], "--noise", paths["N1"], paths["N2"], "--html", str(html)])
    out = capsys.readouterr().out.splitlines()
    assert rc == 1 and out[-1] == "verdict: differs"
    at = out.index("modes: A has 2, B has 2; moves judged against 2 noise runs, and at least one bucket's width")
    moved = out[at + 1]
    assert moved.startswith("  the mode at 2") and " moved to 4" in moved and out[at + 2] == out[-1]
    page = html.read_text()
    assert page.index("<h2>Modes</h2>") > page.index("<h2>Metrics</h2>")
    assert f"<li>{moved.strip()}</li>".replace("->", "-&gt;") in page
