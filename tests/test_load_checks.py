"""The load chapter's declared checks (labs/load/checks.py) on made-up metrics: the recorded reference
passes; both sides of every bound; disks slower than the model say "not shown here" with their
measured service time; a broken run fails, whatever the machine. And the lab's own rules: the knee
the model predicts, and the sweeps it refuses before anything is created."""
import json

import pytest

from conftest import ROOT
from perflab.analysis import checks

LAB = "load"

REF = json.loads((ROOT / "data" / "reference" / LAB / "run.json").read_text())
OURS, P = REF["metrics"], REF["params"]
MODEL_CHECKS = {"the plateau is the disks' capacity, as the model predicts", "the knee is where the disk model puts it",
                "at the top step, the mean latency is near the model's bound N S / K - Z"}


def statuses(lab, m, p):
    return checks.statuses(lab.CHECKS, m, p)


def slow(m: dict, factor: float) -> dict:
    """The same run on a machine whose emulated disks served reads `factor` x slower than modelled:
    the plateau and the measured knee lower in proportion."""
    return {**m, "svc_ms_measured": m["service_ms_model"] * factor, "iops_top": m["iops_top"] / factor,
            "capacity_share": m["capacity_share"] / factor, "knee_ratio": m["knee_ratio"] / factor,
            "mean_vs_bound_top": m["mean_vs_bound_top"] * factor}


def test_the_recorded_reference_passes_with_its_recorded_values(lab):
    got = checks.outcomes(lab.CHECKS, OURS, P)
    assert {n: checks.status(o) for n, o in got.items()} == {c["name"]: checks.PASS for c in REF["checks"]}
    assert {n: o["value"] for n, o in got.items()} == {c["name"]: c["value"] for c in REF["checks"]}


def test_summary_recomputes_every_recorded_metric_from_the_run(lab):
    m = lab.summary(lab.load(ROOT / "data" / "reference" / LAB))
    assert {k: m[k] for k in OURS} == OURS


def test_every_bound_fails_on_its_wrong_side(lab):
    assert not checks.wrong_sides(lab.CHECKS, OURS, P, nothing_excuses=True)


def test_disks_slower_than_the_model_excuse_only_the_models_checks(lab):
    m = slow(OURS, 1.4)
    s = statuses(lab, m, P)
    assert {n for n, v in s.items() if v == checks.NOT_SHOWN} == MODEL_CHECKS, s
    assert {v for n, v in s.items() if n not in MODEL_CHECKS} == {checks.PASS}
    why = checks.outcomes(lab.CHECKS, m, P)["the knee is where the disk model puts it"]["not_shown"]
    assert f"{m['svc_ms_measured']:.2f} ms" in why and "slower than the model's" in why


def test_disks_as_modelled_and_a_low_plateau_fail(lab):
    # the disks kept the model's time (their own logs), and the sweep still stopped well short of K / S:
    # the lab broke (a client stuck, a disk never read), not the machine
    m = {**OURS, "iops_top": 0.6 * OURS["capacity_iops_model"], "knee_ratio": 0.6, "mean_vs_bound_top": 1.6}
    s = statuses(lab, m, P)
    assert {s[n] for n in MODEL_CHECKS} == {checks.FAIL}, s
    # disks 4% slow are within the model's budget: no excuse either
    s = statuses(lab, {**slow(OURS, 1.04), "iops_top": 0.6 * OURS["capacity_iops_model"], "knee_ratio": 0.6,
                       "mean_vs_bound_top": 1.6}, P)
    assert {s[n] for n in MODEL_CHECKS} == {checks.FAIL}


def test_a_run_without_the_zfs_sweep_has_no_sync_checks(lab):
    m = {k: v for k, v in OURS.items() if not k.startswith("sync_")}
    names = set(statuses(lab, m, {**P, "sync_threads": []}))
    zfs_words = ("synchronous", "ZIL", "log device")
    assert names == {c.name for c in lab.CHECKS if not any(w in c.name for w in zfs_words)}
    assert len(names) < len(lab.CHECKS)


def test_the_knee_follows_from_the_model(lab):
    p = {**P, "disks": 4, "think_ms": 10.0, "seek_max_ms": 15.0}
    s = lab.service_ms(p)
    assert lab.predicted_knee(p) == pytest.approx(4 * (s + 10) / s)
    assert lab.predicted_knee({**p, "disks": 8}) == pytest.approx(2 * lab.predicted_knee(p))
    assert lab.predicted_knee({**p, "think_ms": 0.0}) == pytest.approx(4)


@pytest.mark.parametrize("change,needle", [
    ({"clients": [2, 4, 16]}, "starting at 1"),
    ({"clients": [1, 4, 2, 16]}, "increasing"),
    ({"clients": [1, 2, 4, 8]}, "a largest step of at least"),
    ({"sync_threads": [1]}, "at least two increasing thread counts"),
])
def test_a_sweep_the_lab_cannot_read_is_refused_with_its_parameter(lab, change, needle):
    out = lab.validate({**P, **change})
    assert len(out) == 1 and needle in out[0]
    assert out[0].startswith(f"parameter {next(iter(change))}=")


def test_the_presets_sweeps_are_accepted(lab, manifest):
    from perflab.config import params

    for preset in ("smoke", "full"):
        assert lab.validate(params.resolve(manifest.lab(LAB), preset)) == [], preset
    assert lab.validate({**P, "sync_threads": []}) == []


def test_the_audit_table_names_what_each_check_asks(lab):
    rows = checks.audit(lab.CHECKS)
    assert len(rows) == len(lab.CHECKS) and all(r["asks of the machine"] for r in rows)
    assert sum(not r["not shown here when"].startswith("never") for r in rows) == len(MODEL_CHECKS)
