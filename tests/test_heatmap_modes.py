"""perflab.analysis.heatmap.modes and `perflab heatmap --summary`: the modes of latency histograms,
on data whose answer is known: samples of lognormal clusters drawn with a seeded generator (the true
share and median of each cluster are those of the sample's own labels), histograms of expected counts
(no chance at all), hand-made histograms, and the heatmaps lab's reference run (two jobs at set rates:
page-cache reads and O_DIRECT disk reads, a tenth of the reads on the disk)."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

from perflab import cli
from perflab.analysis import heatmap as H
from perflab.analysis.figures import MIN_FONT_PX
from perflab.analysis.heatmap import command, plot
from perflab.analysis.heatmap.buckets import format_ns
from perflab.analysis.heatmap import modes as M

REF = Path(__file__).resolve().parents[1] / "data" / "reference" / "heatmaps"
REF_LOGS = sorted((REF / "fio").glob("*_clat_hist.*.log.gz"))


def buckets(sub: int = 8) -> H.Buckets:
    return H.Buckets.loglinear(sub)


def hist(lat_ns: np.ndarray, sub: int = 8) -> np.ndarray:
    bk = buckets(sub)
    return np.bincount(bk.index(lat_ns), minlength=bk.n + 1)[:bk.n]


def two_clusters(seed: int, n: int, share_slow: float, fast=(5_000, 0.25), slow=(200_000, 0.3)):
    """``n`` latencies (ns): a share ``share_slow`` lognormal around ``slow`` (median ns, sigma of
    ln), the rest around ``fast``; and which were slow."""
    rng = np.random.default_rng(seed)
    is_slow = rng.random(n) < share_slow
    lat = np.where(is_slow, rng.lognormal(math.log(slow[0]), slow[1], n), rng.lognormal(math.log(fast[0]), fast[1], n))
    return lat, is_slow


def bucket_width_at(edges: np.ndarray, x: float) -> float:
    b = int(np.searchsorted(edges, x, side="right")) - 1
    return float(edges[b + 1] - edges[b])


def expected_counts(total: int, centres_log2, sigma_log2: float, sub: int = 8) -> np.ndarray:
    """Counts per bucket of ``total`` events from equal Gaussian clusters in log2-latency, rounded:
    a histogram with the shape and none of the chance."""
    edges = np.log2(np.maximum(buckets(sub).edges_ns, 1).astype(np.float64))
    cdf = np.vectorize(lambda x, mu: 0.5 * (1 + math.erf((x - mu) / (sigma_log2 * math.sqrt(2)))))
    p = sum(np.diff(cdf(edges, mu)) for mu in centres_log2) / len(centres_log2)
    return np.round(p * total).astype(np.int64)


# ----------------------------------------------------------------------------- known answers

def test_two_lognormal_clusters_two_modes_their_shares_and_medians():
    lat, is_slow = two_clusters(seed=11, n=20_000, share_slow=0.3)
    counts = hist(lat)
    edges = buckets().edges_ns
    m = M.find_modes(counts, edges)
    assert m.count == 2 and len(m.valleys) == 1
    fast, slow = m.modes
    valley_bucket = int(np.searchsorted(edges, m.valleys[0].at_ns))
    one_bucket = counts[valley_bucket - 1:valley_bucket + 1].max() / counts.sum()   # the events either side could take
    assert abs(slow.share - is_slow.mean()) <= one_bucket
    assert abs(fast.share - (1 - is_slow.mean())) <= one_bucket
    assert fast.share + slow.share == pytest.approx(1.0)
    for mode, true in ((fast, np.median(lat[~is_slow])), (slow, np.median(lat[is_slow]))):
        assert abs(mode.median_ns - true) <= bucket_width_at(edges, true)
    nz = np.flatnonzero(counts)   # bounds: the histogram's ends and the valley between
    assert (fast.lo_ns, fast.hi_ns, slow.lo_ns, slow.hi_ns) == (edges[nz[0]], m.valleys[0].at_ns,
                                                                 m.valleys[0].at_ns, edges[nz[-1] + 1])
    # the mean (0.7 x 5 us + 0.3 x 209 us = 66 us) lies between the bands, where almost nothing is
    assert fast.median_ns < m.mean_ns < slow.median_ns and m.mean_in_neither and m.mean_mode is None
    assert m.mean_valley == 0 and m.mean_tail is None and fast.core_hi_ns < m.mean_ns < slow.core_lo_ns
    assert m.valleys[0].lo_ns <= m.mean_ns < m.valleys[0].hi_ns and m.valleys[0].share < M.MIN_MODE_SHARE
    assert m.mean_near_share < 0.01
    # each mode's central range is its own cluster's 10th to 90th percentiles, within a bucket
    for mode, own in ((fast, lat[~is_slow]), (slow, lat[is_slow])):
        for got, true in zip((mode.core_lo_ns, mode.core_hi_ns), np.percentile(own, [10, 90])):
            assert abs(got - true) <= bucket_width_at(edges, true)


def test_a_mean_near_the_main_band_lies_in_it():
    """Bands two octaves apart, 94% and 6%: the mean is lifted (19.9 us against the main band's 16
    us) but stays inside the main band's own central 80% (12.7-21.4 us): in mode 1, not "neither".
    With 10% in the minor band the mean, 21.9 us, passes the main band's 90th percentile (21.4 us):
    in neither mode (the modes' bounds, valley to valley, put it in mode 1), yet not a latency
    almost no I/O had: over a tenth of them lie within 9% of it, and that figure says so."""
    lat, _ = two_clusters(seed=3, n=20_000, share_slow=0.06, fast=(16_384, 0.2), slow=(65_536, 0.2))
    m = M.find_modes(hist(lat), buckets().edges_ns)
    assert m.count == 2
    assert m.mean_mode == 0 and not m.mean_in_neither and m.mean_valley is None and m.mean_tail is None
    assert m.modes[0].median_ns * 1.15 < m.mean_ns < m.modes[0].core_hi_ns
    lat, _ = two_clusters(seed=3, n=20_000, share_slow=0.1, fast=(16_384, 0.2), slow=(65_536, 0.2))
    m = M.find_modes(hist(lat), buckets().edges_ns)
    assert m.count == 2 and m.modes[0].lo_ns <= m.mean_ns < m.modes[0].hi_ns
    assert m.mean_in_neither and m.mean_valley == 0 and m.modes[0].core_hi_ns < m.mean_ns
    assert m.mean_near_share > 0.1


def test_one_lognormal_cluster_is_one_mode():
    rng = np.random.default_rng(5)
    lat = rng.lognormal(math.log(100_000), 0.4, 20_000)
    m = M.find_modes(hist(lat), buckets().edges_ns)
    assert m.count == 1 and m.valleys == () and m.modes[0].share == 1.0
    assert m.mean_mode == 0 and not m.mean_in_neither
    assert abs(m.modes[0].median_ns - np.median(lat)) <= bucket_width_at(buckets().edges_ns, np.median(lat))


# ----------------------------------------------------------------------------- where the mean lies

def test_two_equal_bands_far_apart_have_their_mean_in_neither():
    """Equal bands at 5 us and 200 us, expected counts (no chance): the mean, 104 us, lies inside
    mode 2's bounds (valley to valley, they take in the band's lower flank) but far below its own
    central 80% (151-260 us) and far above mode 1's (to 6.6 us): in neither.  The mean's bucket holds
    1 I/O in 2,000, and 0.2% of them lie within 9% of the mean."""
    counts = expected_counts(20_000, (12.3, 17.6), 0.3)
    edges = buckets().edges_ns
    m = M.find_modes(counts, edges)
    assert m.count == 2 and [round(x.share, 2) for x in m.modes] == [0.5, 0.5]
    assert m.mean_ns == pytest.approx(104_200, rel=0.01)
    assert m.modes[1].lo_ns <= m.mean_ns < m.modes[1].hi_ns          # where the old rule put it: "in mode 2"
    assert m.mean_in_neither and m.mean_mode is None and m.mean_valley == 0 and m.mean_tail is None
    assert m.modes[0].core_hi_ns < 7_000 and m.modes[1].core_lo_ns > 150_000
    b = int(np.searchsorted(edges, m.mean_ns, side="right")) - 1
    assert counts[b] / counts.sum() < 1 / 1500
    assert 0.001 < m.mean_near_share < 0.003


def test_heatmaps_like_bands_ninety_ten_have_their_mean_in_neither():
    """The heatmaps lab's shape: 90% at 5 us, 10% at 200 us: the mean, 26 us, is five times the main
    band's median and above its central 80%, far below the minor band's: in neither, with no I/O
    within 9% of it."""
    lat, is_slow = two_clusters(seed=1, n=20_000, share_slow=0.1)
    m = M.find_modes(hist(lat), buckets().edges_ns)
    assert m.count == 2 and m.modes[1].share == pytest.approx(is_slow.mean(), abs=0.005)
    assert m.mean_in_neither and m.mean_valley == 0 and m.mean_tail is None
    assert m.modes[0].core_hi_ns < m.mean_ns < m.modes[1].core_lo_ns
    # the central ranges are the bands' own (within a factor of 1.5 of their medians), not their bounds
    assert m.modes[0].core_hi_ns < 1.5 * m.modes[0].median_ns and m.modes[1].core_lo_ns > m.modes[1].median_ns / 1.5
    assert m.mean_near_share < 0.001


def test_one_lognormal_band_has_its_mean_in_it():
    """One lognormal band (sigma 0.4 of ln latency): its mean, exp(0.08) = 1.08 times its median,
    lies within its central 80%, which is the sample's own 10th to 90th percentiles within a bucket."""
    rng = np.random.default_rng(5)
    lat = rng.lognormal(math.log(100_000), 0.4, 20_000)
    edges = buckets().edges_ns
    m = M.find_modes(hist(lat), edges)
    (mode,) = m.modes
    assert m.mean_mode == 0 and not m.mean_in_tail and not m.mean_in_neither and m.mean_tail is None
    for got, true in zip((mode.core_lo_ns, mode.core_hi_ns), np.percentile(lat, [10, 90])):
        assert abs(got - true) <= bucket_width_at(edges, true)
    assert mode.core_lo_ns < mode.median_ns < m.mean_ns < mode.core_hi_ns
    assert command._mean_lines(m) == [f"the mean, {format_ns(round(m.mean_ns))}, lies in the only mode: within its "
                                      f"central 80%, {format_ns(round(mode.core_lo_ns))} to "
                                      f"{format_ns(round(mode.core_hi_ns))} (its 10th to 90th percentiles)"]


def test_one_band_with_a_long_right_tail_has_its_mean_in_the_tail_above():
    """96% of the I/Os around 100 us, 4% spread evenly over 1-100 ms (log-uniform: no band, and under
    MIN_MODE_SHARE anyway): one mode, whose mean (917 us) the tail lifts far above its 90th
    percentile (159 us): "in the mode's upper tail", not "in neither" (there is no other mode)."""
    rng = np.random.default_rng(6)
    n = 20_000
    tail = rng.random(n) < 0.04
    lat = np.where(tail, 2 ** rng.uniform(math.log2(1e6), math.log2(1e8), n), rng.lognormal(math.log(100_000), 0.3, n))
    m = M.find_modes(hist(lat), buckets().edges_ns)
    assert m.count == 1 and m.mean_ns == pytest.approx(lat.mean(), rel=0.02)
    assert m.modes[0].lo_ns <= m.mean_ns < m.modes[0].hi_ns          # where the old rule put it: "in the only mode"
    assert np.percentile(lat, 90) < m.mean_ns and m.modes[0].core_hi_ns < m.mean_ns
    assert m.mean_in_tail and m.mean_tail == "above" and m.mean_mode is None and not m.mean_in_neither
    assert m.mean_near_share < 0.001
    lines = command._mean_lines(m)
    assert lines[0] == (f"the mean, {format_ns(round(m.mean_ns))}, lies in the only mode's upper tail: above its "
                        f"central 80% (to {format_ns(round(m.modes[0].core_hi_ns))})")
    assert lines[1].startswith(f"{100 * m.mean_near_share:.2g}% of the I/Os lie within 9% of the mean (")


def hand_modes(mean_ns: float, cores, mean_mode=None, mean_valley=None, mean_tail=None) -> M.Modes:
    modes = tuple(M.Mode(share=1 / len(cores), events=1000, median_ns=(lo + hi) / 2, lo_ns=int(lo / 2),
                         hi_ns=int(hi * 2), peak_ns=(lo + hi) / 2, core_lo_ns=lo, core_hi_ns=hi) for lo, hi in cores)
    return M.Modes(1000 * len(cores), modes, (), mean_ns, mean_mode, mean_valley, 4.0, False,
                   mean_tail=mean_tail, mean_near_share=0.0123)


def test_the_mean_line_words_each_place_the_mean_can_be():
    """The summary's words for each answer (hand-made results: the places real histograms rarely
    reach: below the first mode, above the last of two, a single mode's lower tail)."""
    cores = [(4_000, 7_000), (150_000, 260_000)]
    assert command._mean_lines(hand_modes(104_000, cores, mean_valley=0)) == [
        "the mean, 104 us, lies in neither mode: between mode 1's central 80% (to 7 us) and mode 2's (from 150 us)",
        "1.2% of the I/Os lie within 9% of the mean (95.4 us to 113 us)"]
    assert command._mean_lines(hand_modes(300_000, cores, mean_tail="above"))[0] == (
        "the mean, 300 us, lies in neither mode: above mode 2's central 80% (to 260 us)")
    assert command._mean_lines(hand_modes(3_000, cores, mean_tail="below"))[0] == (
        "the mean, 3 us, lies in neither mode: below mode 1's central 80% (from 4 us)")
    assert command._mean_lines(hand_modes(3_000, cores[:1], mean_tail="below"))[0] == (
        "the mean, 3 us, lies in the only mode's lower tail: below its central 80% (from 4 us)")
    assert command._mean_lines(hand_modes(200_000, cores, mean_mode=1)) == [
        "the mean, 200 us, lies in mode 2: within its central 80%, 150 us to 260 us (its 10th to 90th percentiles)"]
    # figures are rounded to 3 before their unit is chosen: 999,700 ns is 1 ms, not "1e+03 us"
    assert command._mean_lines(hand_modes(999_700, [(400_000, 600_000)], mean_tail="above"))[0] == (
        "the mean, 1 ms, lies in the only mode's upper tail: above its central 80% (to 600 us)")


def test_where_the_mean_lies_follows_the_modes_central_ranges():
    """The rule itself, on hand-made modes: both ends of a central range are in it; between two
    ranges is "neither" with the valley between them; past the ends is a tail."""
    modes = [M.Mode(0.5, 100, 5.0, 1, 10, 5.0, core_lo_ns=4.0, core_hi_ns=6.0),
             M.Mode(0.3, 60, 50.0, 10, 100, 50.0, core_lo_ns=40.0, core_hi_ns=60.0),
             M.Mode(0.2, 40, 500.0, 100, 1000, 500.0, core_lo_ns=400.0, core_hi_ns=600.0)]
    assert [M._where_mean(x, modes) for x in (4.0, 6.0, 40.0, 600.0)] == [(0, None, None), (0, None, None),
                                                                           (1, None, None), (2, None, None)]
    assert [M._where_mean(x, modes) for x in (6.5, 39.0, 61.0, 399.0)] == [(None, 0, None), (None, 0, None),
                                                                             (None, 1, None), (None, 1, None)]
    assert M._where_mean(3.0, modes) == (None, None, "below") and M._where_mean(601.0, modes) == (None, None, "above")


@pytest.mark.parametrize("sigma", [1.0, 2.0])
def test_no_false_second_mode_in_200_unimodal_samples_of_500_events(sigma):
    """Lognormal latencies spread over a few octaves (sigma 1) and over a dozen (sigma 2, where the
    events per bucket are fewest): 500 events, 200 seeds, never two modes."""
    found = [M.find_modes(hist(np.random.default_rng(seed).lognormal(math.log(100_000), sigma, 500)),
                          buckets().edges_ns).count for seed in range(200)]
    assert found == [1] * 200, {k: found.count(k) for k in set(found)}


@pytest.mark.parametrize("n, octaves", [(500, 4), (150, 3), (100, 8)])
def test_flat_low_count_histograms_never_show_two_modes(n, octaves):
    """Log-uniform latencies (a flat density per octave) of a few hundred events: noise, with many
    chance dips and bumps: one mode or "too few", never two spurious ones."""
    found = [M.find_modes(hist(2 ** np.random.default_rng(seed).uniform(12, 12 + octaves, n)),
                          buckets().edges_ns).count for seed in range(200)]
    assert set(found) <= {None, 1}, {k: found.count(k) for k in set(found)}


def test_too_few_events_is_too_few_to_say_never_one_mode():
    lat = np.random.default_rng(1).lognormal(math.log(100_000), 0.3, M.MIN_EVENTS)
    few = M.find_modes(hist(lat[:-1]), buckets().edges_ns)
    assert few.too_few and few.count is None and few.modes == () and few.mean_mode is None
    assert not few.mean_in_neither and few.events == M.MIN_EVENTS - 1 and few.mean_ns > 0
    assert M.find_modes(hist(lat), buckets().edges_ns).count == 1
    empty = M.find_modes(np.zeros(buckets().n, np.int64), buckets().edges_ns)
    assert empty.too_few and empty.events == 0 and math.isnan(empty.mean_ns) and math.isnan(empty.mvalue)


def test_a_shallow_dip_is_one_mode_however_many_events():
    """Two equal clusters 3 sigma apart: the density dips to about 0.8 of the peaks (smoothed), far
    beyond chance with a million events, but not the clear valley VALLEY_RATIO asks for."""
    rng = np.random.default_rng(2)
    n = 1_000_000
    log2 = np.where(rng.random(n) < 0.5, rng.normal(16, 0.5, n), rng.normal(17.5, 0.5, n))
    assert M.find_modes(hist(2 ** log2), buckets().edges_ns).count == 1


def test_the_same_dip_is_a_valley_only_with_events_enough_to_show_it():
    """One shape (two clusters 1.4 octaves apart, the valley at about 0.42 of the peaks), no chance in
    it: with 100 events the dip is within what Poisson noise makes (3.3 sigma), with 1,000 it is not."""
    shape = dict(centres_log2=(14, 15.4), sigma_log2=0.3)
    small = M.find_modes(expected_counts(100, **shape), buckets().edges_ns)
    large = M.find_modes(expected_counts(1000, **shape), buckets().edges_ns)
    assert small.count == 1
    assert large.count == 2 and large.valleys[0].depth <= M.VALLEY_RATIO
    assert large.valleys[0].sigmas > M.VALLEY_SIGMAS


def test_a_cluster_below_the_minimum_share_is_not_a_mode():
    """A band of 3% of the I/O, far from the rest and far beyond chance at 100,000 events: a tail, not
    a mode (it joins its neighbour); at 8% it is one."""
    lat, _ = two_clusters(seed=4, n=100_000, share_slow=0.03)
    m = M.find_modes(hist(lat), buckets().edges_ns)
    assert m.count == 1 and m.modes[0].share == 1.0
    lat, is_slow = two_clusters(seed=4, n=100_000, share_slow=0.08)
    m = M.find_modes(hist(lat), buckets().edges_ns)
    assert m.count == 2 and m.modes[1].share == pytest.approx(is_slow.mean(), abs=0.005)


def test_a_minor_band_of_fifty_events_is_found():
    """10% of 500 events five octaves above the main band: found in every one of 100 samples (the
    smoothing pools the band's few events per bucket)."""
    found = [M.find_modes(hist(two_clusters(seed, 500, 0.1, fast=(3_000, 0.3), slow=(120_000, 0.4))[0]),
                          buckets().edges_ns).count for seed in range(100)]
    assert found == [2] * 100, {k: found.count(k) for k in set(found)}


@pytest.mark.parametrize("sub", [2, 8, 64])
def test_an_octave_split_any_way_gives_the_same_modes(sub):
    """The same sample on buckets of 2, 8 or 64 to the octave: two modes, the same shares within one
    bucket's worth, the same medians within one bucket (the density is per octave, the smoothing a
    width in octaves, not in buckets)."""
    rng = np.random.default_rng(7)
    n = 200_000
    is_slow = rng.random(n) < 0.4
    lat = 2 ** np.where(is_slow, rng.normal(16, 0.3, n), rng.normal(14, 0.3, n))
    counts, edges = hist(lat, sub), buckets(sub).edges_ns
    m = M.find_modes(counts, edges)
    assert m.count == 2
    v = int(np.searchsorted(edges, m.valleys[0].at_ns))
    one_bucket = counts[v - 1:v + 1].max() / n
    assert abs(m.modes[1].share - is_slow.mean()) <= one_bucket
    for mode, true in zip(m.modes, (np.median(lat[~is_slow]), np.median(lat[is_slow]))):
        assert abs(mode.median_ns - true) <= bucket_width_at(edges, true)


def test_the_density_is_per_octave_so_a_lognormal_peaks_at_its_median():
    """The density of a lognormal per unit of log-latency peaks at its median, whatever the buckets;
    counts per linear bucket peak lower, at exp(mu - sigma**2) (0.61x the median for sigma 0.7), and
    log-linear buckets' widths jump at each power of two."""
    rng = np.random.default_rng(8)
    lat = rng.lognormal(math.log(1e6), 0.7, 200_000)
    linear = np.arange(0, 20_000_001, 20_000)
    for counts, edges in ((np.histogram(lat, bins=linear)[0], linear), (hist(lat), buckets().edges_ns)):
        m = M.find_modes(counts, edges)
        assert m.count == 1
        assert abs(math.log2(m.modes[0].peak_ns / 1e6)) < 0.1


def test_the_median_is_interpolated_within_its_bucket():
    edges = np.array([0, 1024, 1152, 1280, 1408], np.int64)
    assert M.find_modes([0, 100, 0, 0], edges).modes[0].median_ns == 1088.0        # the middle of its bucket
    assert M.find_modes([0, 60, 40, 0], edges).modes[0].median_ns == pytest.approx(1024 + 128 * 50 / 60)


def test_rows_too_fine_for_the_smoothing_are_refused_in_one_line():
    edges = np.arange(0, 10_000 * (M.MAX_BUCKETS + 500) + 1, 10_000)     # 10 us linear rows
    counts = np.ones(len(edges) - 1, np.int64)
    with pytest.raises(ValueError, match=f"too many latency rows for the mode pass: .*at most {M.MAX_BUCKETS:,}"):
        M.find_modes(counts, edges)


def test_mvalue_is_greggs_exactly():
    assert M.mvalue([0, 5, 0]) == 2.0                    # one peak: up 5, down 5, over 5
    assert M.mvalue([3]) == 2.0                          # the rise from and fall to zero count
    assert M.mvalue([1, 0, 1]) == 4.0                    # two peaks
    assert M.mvalue([2, 1, 2]) == 3.0                    # (2 + 1 + 1 + 2) / 2
    assert M.mvalue([4, 0, 0, 2]) == 3.0                 # a second peak half as high adds 1
    assert math.isnan(M.mvalue([0, 0])) and math.isnan(M.mvalue([]))


def test_mvalue_grows_with_noise_where_the_mode_test_does_not():
    """Why the test is not the mvalue: unimodal samples of 500 events score up to about 3 from noise
    alone, more than two clear bands (70% and 30%) of 20,000, which score below 3."""
    uni = [hist(np.random.default_rng(s).lognormal(math.log(100_000), 0.3, 500)) for s in range(5)]
    bi = hist(two_clusters(seed=1, n=20_000, share_slow=0.3)[0])
    assert max(M.mvalue(u) for u in uni) > M.mvalue(bi)
    assert [M.find_modes(u, buckets().edges_ns).count for u in uni] == [1] * 5
    assert M.find_modes(bi, buckets().edges_ns).count == 2


def test_columns_and_windows():
    """Five one-mode columns, then five two-mode ones, then one of 20 events: a window picks the
    columns that start in it, and counts those with two modes among those with events enough."""
    bk = buckets()
    rows = [hist(np.random.default_rng(c).lognormal(math.log(5_000), 0.25, 2000)) for c in range(5)]
    rows += [hist(two_clusters(c, 2000, 0.4)[0]) for c in range(5)]
    rows.append(hist(np.random.default_rng(99).lognormal(math.log(5_000), 0.25, 20)))
    hm = H.HeatMap(bk.edges_ns, np.array(rows), col_s=1.0)
    cols = M.column_modes(hm)
    assert [c.count for c in cols] == [1] * 5 + [2] * 5 + [None]
    for c, row in zip(cols, rows):   # each column's answer is that of its histogram alone
        alone = M.find_modes(row, bk.edges_ns)
        assert [(x.lo_ns, x.hi_ns, x.events) for x in c.modes] == [(x.lo_ns, x.hi_ns, x.events) for x in alone.modes]
        assert (c.events, c.mean_mode, c.too_few) == (alone.events, alone.mean_mode, alone.too_few)
    first = M.window_modes(hm, 0, 5)
    assert (first.modes.count, first.columns, first.columns_enough, first.columns_multimodal) == (1, 5, 5, 0)
    second = M.window_modes(hm, 5, 11, columns=cols)
    assert (second.modes.count, second.columns, second.columns_enough, second.columns_multimodal) == (2, 6, 5, 5)
    whole = M.map_modes(hm, windows=[(0, 5), (5, 11)])
    assert whole.whole.columns == 11 and whole.whole.columns_multimodal == 5 and whole.windows == (first, second)
    with pytest.raises(ValueError, match="empty"):
        M.window_modes(hm, 5, 5)


# ----------------------------------------------------------------------------- the figure's row of markers

UNI, BI = (12.3,), (12.3, 17.6)          # log2 ns: one band at 5 us; or it and one at 200 us, half each


def marked_map(kinds: str, per_column: int = 2000) -> H.HeatMap:
    """A map of expected counts (no chance), one column per letter of ``kinds``: "1" one band, "2"
    two bands, "f" a few I/Os (20: too few to say), "0" none."""
    rows = {"1": expected_counts(per_column, UNI, 0.3), "2": expected_counts(per_column, BI, 0.3),
            "f": expected_counts(20, UNI, 0.3), "0": np.zeros(buckets().n, np.int64)}
    return H.HeatMap(buckets().edges_ns, np.array([rows[k] for k in kinds]), col_s=1.0)


def modes_traces(fig):
    """The figure's traces on the row above the map: {name: trace}."""
    return {t.name: t for t in fig.data if t.type == "scatter"}


def test_the_figure_marks_exactly_the_columns_with_two_modes():
    """A triangle above each column with two modes, at the column's middle (the map starts with an
    empty column, which is not drawn: positions are the columns' own seconds); a small open circle
    above each column with I/Os too few to say; nothing above a one-mode or an empty column.  The row
    lies above the map's (and the side panel's) latency axis, labelled at its left."""
    kinds = "0112221f10221"
    hm = marked_map(kinds)
    cols = M.column_modes(hm)
    assert [c.count for c in cols] == [{"0": None, "f": None, "1": 1, "2": 2}[k] for k in kinds]
    fig = H.figure(hm, title="marked", modes=cols)
    tr = modes_traces(fig)
    assert set(tr) == {"two modes or more in this second", "too few I/Os to say"}
    many, few = tr["two modes or more in this second"], tr["too few I/Os to say"]
    assert list(many.x) == [c + 0.5 for c, k in enumerate(kinds) if k == "2"] == [3.5, 4.5, 5.5, 10.5, 11.5]
    assert list(few.x) == [c + 0.5 for c, k in enumerate(kinds) if k == "f"] == [7.5]
    assert many.marker.symbol == "triangle-down" and few.marker.symbol == "circle-open"
    # at least the 2 px under which the book's layout check calls a mark too thin (layout.js minMarkPx)
    assert min(many.marker.size, few.marker.size) >= 2
    first = cols[3]     # the hover: the column, its modes' shares and medians, where its mean lies
    assert many.hovertext[0] == (f"3-4 s: {first.events:,} I/Os<br>2 modes in this second:<br>"
                                 f"50% around 5.04 us (median)<br>50% around 199 us (median)<br>"
                                 f"the mean, 104 us, in neither mode")   # not "in mode 2": its bounds, not its I/Os
    assert first.mean_in_neither
    assert "too few to say" in few.hovertext[0]
    row = fig.layout[many.yaxis.replace("y", "yaxis")]
    assert many.xaxis == "x" and many.yaxis == few.yaxis not in ("y", "y2")
    assert fig.layout.yaxis.domain[1] < row.domain[0] and fig.layout.yaxis2.domain == fig.layout.yaxis.domain
    assert list(row.ticktext) == [plot.MODES_ROW_LABEL] and row.tickfont.size >= MIN_FONT_PX
    plain = H.figure(hm, title="marked")
    assert fig.layout.height - plain.layout.height == plot.MODES_ROW_PX + plot.MODES_GAP_PX   # the map keeps its size
    # a two-minute map of 3 s columns says so
    assert "in this 3 s column" in modes_traces(H.figure(hm.rebin(3000), modes=M.column_modes(hm.rebin(3000))))[
        "two modes or more in this 3 s column"].name


def test_without_modes_the_figure_has_no_row_of_markers():
    hm = marked_map("0112221f10221")
    for fig in (H.figure(hm, title="plain"), H.figure(hm, companion=False), H.figure(hm, linear=False, modes=None)):
        assert modes_traces(fig) == {} and [t.type for t in fig.data][0] == "heatmap"
        axes = [k for k in fig.layout.to_plotly_json() if k.startswith("yaxis")]
        assert all(fig.layout[k].domain in (None, (0, 1)) for k in axes) and "yaxis3" not in axes
        assert plot.MODES_ROW_LABEL not in fig.to_json()


def test_the_row_needs_one_result_per_column_of_a_latency_map():
    hm = marked_map("1122")
    with pytest.raises(ValueError, match="4 columns, modes were given for 3"):
        H.figure(hm, modes=M.column_modes(hm)[:3])
    off = H.HeatMap(np.array([0, 1 << 20, 2 << 20], np.int64), np.ones((2, 2), np.int64), col_s=1.0, y="offset")
    with pytest.raises(ValueError, match="modes are those of latency"):
        H.figure(off, modes=M.column_modes(hm)[:2])


def test_a_map_rebinned_for_the_page_is_marked_by_its_drawn_columns():
    """2,600 one-second columns, two bands in seconds 1,000-1,199 only: the page draws 4 s columns
    (at most plot.MAX_DRAWN_COLUMNS), and marks the 50 of them that hold those seconds."""
    kinds = ["1"] * 2600
    kinds[1000:1200] = ["2"] * 200
    hm = marked_map(kinds, per_column=200)
    fig = H.figure(hm, modes=M.column_modes(hm))
    assert fig.data[0].x[1] - fig.data[0].x[0] == 4                # re-binned: 4 s columns
    assert list(modes_traces(fig)["two modes or more in this 4 s column"].x) == [1002 + 4 * i for i in range(50)]


def test_summary_page_draws_the_markers_and_the_plain_page_does_not(tmp_path, capsys):
    with_modes, plain = tmp_path / "modes.html", tmp_path / "plain.html"
    assert cli.main(["heatmap", *map(str, REF_LOGS), "--summary", "--html", str(with_modes)]) == 0
    assert cli.main(["heatmap", *map(str, REF_LOGS), "--html", str(plain)]) == 0
    page = with_modes.read_text()
    # two modes in every one of the 119 columns (test_summary_on_the_reference_...): 119 markers, each
    # with its hover
    assert page.count("two modes or more in this second") == 1 and '"2+ modes"' in page
    assert page.count("2 modes in this second:") == 119
    assert "two modes or more" not in plain.read_text() and '"2+ modes"' not in plain.read_text()


# ----------------------------------------------------------------------------- the reference run

@pytest.fixture(scope="module")
def reference():
    return H.from_hist_log(REF_LOGS), json.loads((REF / "run.json").read_text())["metrics"]


def test_reference_run_two_modes_in_most_columns_and_the_mean_in_neither(reference):
    hm, metrics = reference
    assert len(REF_LOGS) == 2
    cols = M.column_modes(hm)
    enough = [c for c in cols if not c.too_few]
    assert len(enough) >= 0.9 * hm.n_columns
    assert sum(c.count == 2 for c in enough) >= 0.9 * len(enough)
    whole = M.window_modes(hm, columns=cols).modes
    assert whole.count == 2 and whole.mean_in_neither
    cached, direct = whole.modes
    # between the cached reads' central 80% and the disk reads', where 0.2% of the reads are
    assert whole.mean_valley == 0 and cached.core_hi_ns < whole.mean_ns < direct.core_lo_ns
    assert whole.mean_near_share < 0.005
    # what the lab measured apart, per job (run.json): the disk's share, each band's median, the mean
    assert direct.share == pytest.approx(metrics["direct_share_measured"], abs=0.01)
    edges = hm.edges_ns
    for mode, us in ((cached, metrics["cached_p50_us"]), (direct, metrics["direct_p50_us"])):
        assert abs(mode.median_ns - us * 1000) <= bucket_width_at(edges, us * 1000)
    assert whole.mean_ns == pytest.approx(metrics["mean_all_us"] * 1000, rel=0.01)
    assert 2 * cached.median_ns <= whole.mean_ns <= direct.median_ns / 2   # the lab's own check (MEAN_AWAY)


# ----------------------------------------------------------------------------- the command

def test_summary_on_the_reference_says_two_modes_and_the_mean_in_neither(capsys):
    assert cli.main(["heatmap", *map(str, REF_LOGS), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "238,005 I/Os in 119 columns of 1 s" in out
    assert "whole map, 0 to 119 s: 238,005 I/Os, 2 modes" in out
    assert ("the mean, 21.3 us, lies in neither mode: between mode 1's central 80% (to 6.79 us) and mode 2's "
            "(from 84.2 us)\n") in out
    assert "0.2% of the I/Os lie within 9% of the mean (19.6 us to 23.3 us)" in out
    assert "mvalue 3.32" in out
    assert "columns with two modes or more: 119 of the 119 with 50 I/Os or more" in out
    table = [ln.split() for ln in out.splitlines() if ln.strip()[:1] in ("1", "2") and "%" in ln]
    assert [r[:2] for r in table] == [["1", "89.9%"], ["2", "10.1%"]]


def test_summary_windows_wider_columns_and_the_modes_csv(tmp_path, capsys):
    out_csv = tmp_path / "ref.csv"
    assert cli.main(["heatmap", *map(str, REF_LOGS), "--summary", "--col", "2", "--csv", str(out_csv),
                     "--window", "10:20", "--window", "50:60"]) == 0
    out = capsys.readouterr().out
    assert "in 60 columns of 2 s" in out and "window [10, 20) s" in out and "window [50, 60) s" in out
    assert "columns with two modes or more: 5 of the 5 with 50 I/Os or more (5 columns of 2 s)" in out
    assert out_csv.exists()
    modes_csv = tmp_path / "ref.modes.csv"
    lines = modes_csv.read_text().splitlines()
    assert lines[0] == ("second,events,modes,share_1,median_1_ns,share_2,median_2_ns,share_3,median_3_ns,"
                        "mvalue")
    rows = [ln.split(",") for ln in lines[1:]]
    assert len(rows) == 60 and [r[0] for r in rows[:3]] == ["0", "2", "4"]
    assert all(r[2] == "2" and r[7:9] == ["", ""] for r in rows)
    assert sum(int(r[1]) for r in rows) == 238_005
    for r in rows:
        assert float(r[3]) + float(r[5]) == pytest.approx(1.0, abs=2e-4) and int(r[4]) < int(r[6])


def test_summary_outputs_are_written_all_or_none(tmp_path, capsys, monkeypatch):
    def broken(*a, **k):
        raise OSError("disk on fire")

    monkeypatch.setattr(command, "write_modes_csv", broken)
    out_csv = tmp_path / "ref.csv"
    assert cli.main(["heatmap", *map(str, REF_LOGS), "--summary", "--csv", str(out_csv),
                     "--save", str(tmp_path / "ref.npz")]) == 2
    assert list(tmp_path.iterdir()) == []
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["perflab heatmap: refused, nothing was created: disk on fire"]


@pytest.mark.parametrize("extra, words", [
    (["--window", "10:20"], "--window says which seconds --summary summarises"),
    (["--summary", "--window", "20:10"], "--window 20:10: seconds from A to B"),
    (["--summary", "--window", "10"], "--window 10: seconds from A to B"),
])
def test_summary_refusals_are_one_line(capsys, extra, words):
    assert cli.main(["heatmap", str(REF_LOGS[0]), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


def test_a_latency_that_rounds_up_to_the_next_unit_is_given_in_it():
    assert [format_ns(v) for v in (999, 1000, 65_536, 999_700, 999_999_999, 1_234_567)] == \
        ["999 ns", "1 us", "65.5 us", "1 ms", "1 s", "1.23 ms"]
