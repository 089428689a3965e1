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


def _writes(t_s, lat_us, survived):
    import pandas as pd

    return pd.DataFrame({"t_s": t_s, "lat_us": lat_us, "survived": survived})


def _run(aw, dw):
    ev = {"fio_started_ms": 0, "killed_ms": 2000}
    surv = {j: {"file_bytes": int(w.survived.sum()) * 4096} for j, w in (("async", aw), ("dsync", dw))}
    return {"writes": {"async": aw, "dsync": dw}, "survival": surv, "events": ev, "status": "", "sync_property": ""}


def test_the_intent_logs_writes_are_those_issued_after_the_last_group_closed(lab):
    # the last group closed between the issue of the last ordinary write it kept (1.000 s) and that of
    # the first it lost (1.010 s). An O_DSYNC write issued at 1.004 s and acknowledged at 1.012 s, after
    # the last survivor, may be in that group: it is not counted; the one issued at 1.011 s is
    aw = _writes([1.0002, 1.0102, 1.0202], [200, 200, 200], [True, False, False])
    dw = _writes([0.9, 1.012, 1.013], [1000, 8000, 2000], [True, True, True])
    m = lab.summary(_run(aw, dw))
    assert (m["dsync_after_last_txg"], m["dsync_after_last_txg_survived"]) == (1, 1)
    # no ordinary write lost: no group to be after
    m = lab.summary(_run(aw.assign(survived=True), dw))
    assert m["dsync_after_last_txg"] == 0


def test_the_reference_counts_by_issue_no_more_than_by_acknowledgement(lab):
    # bounded by the first lost ordinary write's issue, not the last survivor's acknowledgement: an
    # O_DSYNC write issued while the last group was closing is left out (the recording of r3's review
    # had one: 2,944 by acknowledgement, 2,943 by issue)
    d = lab.load(REF)
    m = lab.summary(d)
    dw = d["writes"]["dsync"]
    assert 0 < m["dsync_after_last_txg"] <= int((dw.t_s > m["async_last_survivor_s"]).sum())
