"""The benchmark's verdict on a goal: the median of the rounds' ratios with a bootstrap interval
(benchmarks/bench_pipeline.py median_interval and judge)."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_pipeline", ROOT / "benchmarks" / "bench_pipeline.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_interval_holds_the_median_and_narrows_with_agreeing_rounds(bench):
    wide = [0.82, 1.19, 0.99, 0.92, 1.10, 0.95, 1.04, 0.98, 0.97]
    lo, hi = bench.median_interval(wide)
    assert lo <= 0.98 <= hi and hi - lo > 0.05
    lo2, hi2 = bench.median_interval([0.991, 0.993, 0.995, 0.992, 0.994, 0.990, 0.996, 0.993, 0.992])
    assert 0.990 <= lo2 <= 0.993 <= hi2 <= 0.996
    assert bench.median_interval([1.0] * 5) == (1.0, 1.0)


def test_a_goal_is_met_only_when_the_whole_interval_clears_it(bench):
    assert bench.judge(0.985, 1.01, 0.98) == "met"
    assert bench.judge(0.98, 0.99, 0.98) == "met"
    assert bench.judge(0.90, 0.97, 0.98) == "MISSED"
    assert bench.judge(0.95, 1.02, 0.98).startswith("not settled")
