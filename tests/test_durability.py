"""Lab durability: parameter refusals, the job file, the survival bookkeeping (run-length coding, the
block check) on real bytes, and the analysis recomputed from the recorded reference (no Docker)."""
import importlib
import json
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROOT
from perflab.config import params as params_mod

LAB = "durability"
REF = ROOT / "data" / "reference" / "durability"




@pytest.mark.parametrize("bad,words", [("kill_after=5s", ["kill_after=5s", ">= 10s"]),
                                       ("rate_iops=0", ["rate_iops=0", ">= 10"]),
                                       ("sync=disabled", ["unknown parameter 'sync'"])])
def test_bad_parameters_are_refused(manifest, bad, words):
    with pytest.raises(params_mod.ParamError) as e:
        params_mod.resolve(manifest.lab("durability"), "smoke", [bad], budget={})
    for w in words:
        assert w in str(e.value), str(e.value)


def test_job_file(lab, manifest):
    jf = lab.job_file(SimpleNamespace(params={"kill_after": 40.0, "rate_iops": 150}, lab=manifest.lab("durability")))
    assert jf.jobs() == ["async", "dsync"]
    assert jf.get("dsync", "sync") == "dsync" and jf.get("async", "sync") is None
    assert jf.get("global", "rate_iops") == "150" and int(jf.get("global", "runtime")) > 40   # the kill ends it
    assert jf.get("async", "filename").endswith("/tank/async/log.dat") and jf.get("global", "log_offset") == "1"


def test_run_length_coding_round_trips(lab):
    # written by the experiment (survival.json), read back by the analysis
    rle = importlib.import_module(lab.__name__ + ".experiment")._rle
    unrle = importlib.import_module(lab.__name__ + ".analysis")._unrle
    flags = [True] * 5 + [False] * 3 + [True]
    assert rle(flags) == [[1, 5], [0, 3], [1, 1]]
    assert unrle(rle(flags)).tolist() == flags
    assert unrle([]).tolist() == []


def test_survivors_finds_whole_pattern_blocks_only(lab, tmp_path):
    f = tmp_path / "log.dat"
    torn = lab.PATTERN[:100] + bytes(lab.BS - 100)
    f.write_bytes(lab.PATTERN + bytes(lab.BS) + torn + lab.PATTERN)
    size, flags = lab.survivors(f, np.array([0, 4096, 8192, 12288, 16384]))
    assert size == 4 * lab.BS and flags == [True, False, False, True, False]
    assert lab.survivors(tmp_path / "missing.dat", np.array([0, 4096])) == (0, [False, False])


def test_reference_analysis_reproduces_its_recorded_metrics(lab):
    doc = json.loads((REF / "run.json").read_text())
    d = lab.load(REF)
    m = lab.summary(d)
    for k, v in doc["metrics"].items():
        assert m.get(k) == v, k
    assert m["async_acknowledged"] == len(d["writes"]["async"]) > 0
    ps = lab.per_second(d)
    assert ps.writes.sum() == m["async_acknowledged"] + m["dsync_acknowledged"]
