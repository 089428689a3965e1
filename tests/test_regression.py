"""Lab regression: its parameter refusals, the rounds' order, the datasets' properties, the job files
(no Docker); the analysis recomputed from the recorded reference agrees with what the reference
recorded, and attributes the device's log to the runs by their time windows."""
import json
from types import SimpleNamespace

import pytest

from conftest import ROOT
from perflab.config import params as params_mod

LAB = "regression"
REF = ROOT / "data" / "reference" / "regression"




@pytest.mark.parametrize("bad,words", [
    ("change=compression=lzjb", ["change='compression=lzjb'", "one of recordsize=128K, checksum=sha256, none"]),
    ("rounds=2", ["rounds=2", ">= 3"]),
    ("phase=1s", ["phase=1s", ">= 5s"]),
    ("device_mbps=5", ["device_mbps=5", ">= 10"]),
    ("file_size=1MiB", ["file_size=1MiB", ">= 32MiB"]),
])
def test_bad_parameters_are_refused(manifest, bad, words):
    with pytest.raises(params_mod.ParamError) as e:
        params_mod.resolve(manifest.lab("regression"), "smoke", [bad], budget={})
    for w in words:
        assert w in str(e.value), str(e.value)


def test_rounds_alternate_so_that_each_side_runs_first_as_often(lab):
    assert lab.order(4) == [(1, "before"), (1, "after"), (2, "after"), (2, "before"),
                            (3, "before"), (3, "after"), (4, "after"), (4, "before")]
    firsts = [lab.order(4)[i][1] for i in range(0, 8, 2)]
    assert firsts.count("before") == firsts.count("after")


@pytest.mark.parametrize("change,key,value", [("recordsize=128K", "recordsize", "128K"),
                                              ("checksum=sha256", "checksum", "sha256")])
def test_the_after_dataset_differs_in_exactly_one_property(lab, change, key, value):
    b, a = lab.props("before", change), lab.props("after", change)
    assert {k for k in b if b[k] != a[k]} == {key} and a[key] == value
    assert b["primarycache"] == a["primarycache"] == "metadata"


def test_change_none_makes_identical_datasets(lab):
    assert lab.props("before", "none") == lab.props("after", "none")
    assert lab.record_bytes("after", "recordsize=128K") == 128 * 1024 == 32 * lab.record_bytes("before", "none")


def test_job_files(lab, manifest):
    p = {"change": "recordsize=128K", "rounds": 3, "phase": 6.0, "file_size": 96 << 20, "device_mbps": 120.0}
    jobs = lab.jobs(SimpleNamespace(params=p, lab=manifest.lab("regression")))
    assert list(jobs) == ["fill", "warmup-before", "warmup-after", "before-1", "after-1", "after-2", "before-2",
                          "before-3", "after-3"]
    assert jobs["fill"].get("before", "filename").endswith("/tank/before/data.dat")
    assert jobs["fill"].get("global", "size") == str(96 << 20)
    r = jobs["after-2"]
    assert r.get("global", "filename").endswith("/tank/after/data.dat") and r.get("global", "runtime") == "6"
    assert r.get("global", "write_hist_log") == "after-2" and r.get("global", "bs") == "4k"
    assert r.get("global", "direct") == "1" and r.get("global", "rw") == "randread"
    assert jobs["warmup-before"].get("global", "write_hist_log") is None   # not measured, not compared


def test_device_model_charges_transfer_only(lab):
    m = lab.device_model({"device_mbps": 120.0})
    assert (m.rpm, m.seek_min_ms, m.seek_max_ms, m.near_ms, m.transfer_mbps) == (0, 0, 0, 0, 120.0)


# ------------------------------------------------------------------------------ the reference

@pytest.fixture(scope="module")
def ref(lab):
    doc = json.loads((REF / "run.json").read_text())
    return doc, lab.load(REF)


def test_reference_analysis_reproduces_its_recorded_metrics(lab, ref):
    doc, d = ref
    m = lab.summary(d)
    for k, v in doc["metrics"].items():
        if k in m:
            assert m[k] == v, k
    assert len(d["runs"]) == 2 * doc["params"]["rounds"]


def test_reference_device_log_is_split_between_the_runs(lab, ref):
    doc, d = ref
    from perflab.infra.slowdisk import read_device_log

    log = read_device_log(sorted((REF / "device").glob("d0.log*"))[0])
    total_reads = int((log.ddir == 0).sum())
    counted = sum(r["device_reads"] for r in d["runs"])
    # every run's reads are counted once; the rest are the fill's, the warm-up's and ZFS's own
    assert 0 < counted <= total_reads
    for r in d["runs"]:
        assert r["device_reads"] >= r["fio_reads"]


def test_reference_tables(lab, ref):
    doc, d = ref
    n = doc["params"]["rounds"]
    assert len(lab.noise_table(d)) == n * (n - 1) // 2
    t = lab.rounds_table(d)
    assert list(t["dataset"]) == [side for _, side in lab.order(n)]
    diff = lab.compare(d, doc["params"])
    assert diff.noise_runs == n and diff.verdict == doc["metrics"]["verdict"]
