"""perflab.analysis.intervals.covered_s: the union of intervals, overlaps counted once."""
import numpy as np

from perflab.analysis.intervals import covered_s


def test_intervals_one_after_another_cover_their_sum():
    assert covered_s(np.array([0.0, 4.0]), np.array([4.0, 8.0])) == 8.0


def test_intervals_side_by_side_cover_the_longest_once():
    assert covered_s(np.array([0.0, 0.0, 1.0]), np.array([4.0, 4.0, 3.0])) == 4.0


def test_partial_overlaps_and_gaps():
    # [0, 3) and [2, 5) overlap by 1; [7, 8) stands alone: 5 + 1, in any order
    assert covered_s(np.array([7.0, 2.0, 0.0]), np.array([8.0, 5.0, 3.0])) == 6.0
    assert covered_s(np.array([]), np.array([])) == 0.0
