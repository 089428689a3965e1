"""perflab doctor's "what this machine may not show" (perflab.infra.machinefacts): predictions from
measured facts, with the thresholds the labs' checks declare; the disk probe leaves nothing behind."""
from perflab.infra import machinefacts as mf


def facts(cpus=2, load=None, counters=False, disk=None):
    out = {"cpus": mf.Fact("cpus", cpus, ""), "cpu load": mf.Fact("cpu load", load or {0: 2.0, 1: 1.0}, ""),
           "hardware counters": mf.Fact("hardware counters", counters, "")}
    if disk is not None:
        out["volume disk"] = mf.Fact("volume disk", disk, "")
    return out


def test_a_quiet_two_cpu_machine_with_an_ordinary_disk_predicts_only_the_missing_counters():
    assert mf.predict(facts(disk={"median_us": 97.0, "mean_us": 110.0, "reads": 400})) == [
        "ht: no CPI (no hardware counters); the chapter says so, no check fails"]
    assert mf.predict(facts(counters=True, disk={"median_us": 97.0, "mean_us": 110.0, "reads": 400})) == []


def test_one_cpu_a_busy_cpu_a_slow_disk_and_a_fast_disk():
    said = mf.predict(facts(cpus=1, load={0: 45.0}, disk={"median_us": 6300.0, "mean_us": 7800.0, "reads": 380}))
    assert any(s.startswith("ht: cannot run") for s in said)
    assert any("CPU 0 is already 45% busy" in s for s in said)
    assert any("at 7,800 us a read can do 128 reads/s, under the 200 set" in s for s in said)
    fast = mf.predict(facts(counters=True, disk={"median_us": 15.0, "mean_us": 16.0, "reads": 400}))
    assert fast == ["heatmaps: the two bands may say 'not shown here': the disk's O_DIRECT reads take a median 15 us, "
                    "under 10x a page-cache read (~3 us)"]


def test_the_disk_probe_measures_and_leaves_nothing(tmp_path):
    f = mf.disk_reads(tmp_path)
    assert list(tmp_path.iterdir()) == []
    if f.value is None:   # a file system without O_DIRECT (tmpfs): the reason, not a crash
        assert "could not measure" in f.detail
    else:
        assert f.value["reads"] > 0 and f.value["median_us"] > 0


def test_cpu_load_covers_every_usable_cpu():
    import os

    assert set(mf.cpu_load(0.1).value) == set(os.sched_getaffinity(0))
