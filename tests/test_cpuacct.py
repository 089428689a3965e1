"""perflab.infra.cpuacct: the kernel's CPU counts, parsed (a container's cgroup, the host's CPUs)."""
from perflab.infra import cpuacct

STAT = """cpu  100 0 50 1000 10 0 5 0 0 0
cpu0 60 0 20 500 5 0 3 0 0 0
cpu1 40 0 30 500 5 0 2 7 0 0
intr 12345
"""


def test_proc_stat_busy_is_all_but_idle_and_iowait():
    assert cpuacct.parse_proc_stat(STAT) == {0: (83, 588), 1: (79, 584)}
    ns = cpuacct.host_busy_ns([1, 5], STAT)
    assert list(ns) == [1] and ns[1] > 0


def test_throttled_time_v1_and_v2(tmp_path):
    v1 = tmp_path / "v1.stat"
    v1.write_text("nr_periods 10\nnr_throttled 4\nthrottled_time 123456789\n")
    v2 = tmp_path / "v2.stat"
    v2.write_text("usage_usec 5\nnr_throttled 4\nthrottled_usec 2500\n")
    assert cpuacct.read_throttled_ns(v1, "v1") == 123456789
    assert cpuacct.read_throttled_ns(v2, "v2") == 2_500_000


def test_samples_subtract():
    a, b = cpuacct.Sample([5, 10], 3), cpuacct.Sample([7, 15], 10)
    assert (b - a) == cpuacct.Sample([2, 5], 7)


def test_host_busy_counts_the_running_machine():
    import os

    cpus = sorted(os.sched_getaffinity(0))
    assert set(cpuacct.host_busy_ns(cpus)) == set(cpus)
