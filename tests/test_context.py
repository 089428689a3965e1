"""The run's contract with infra (perflab.infra.context.LabContext) and its options
(perflab.config.options.RunOptions): they travel in run.json, reach Topology through the context, and
nothing between the floors reads them from the environment; the session collects a lab's metrics."""
import json
import types
from pathlib import Path

import pytest

from perflab.config.options import RunOptions
from perflab.fio import jobs
from perflab.infra import containers, context
from perflab.run import session
from support.labctx import Ctx, ctx


class _Created(Exception):
    pass


class _Client:
    """Docker's client as far as Topology.container and .volume go: records what it was asked."""

    def __init__(self):
        self.created, self.volumes_made = [], []
        self.containers = types.SimpleNamespace(create=self._create)
        self.volumes = types.SimpleNamespace(create=self._volume)

    def _create(self, image, command, **kw):
        self.created.append(kw)
        raise _Created

    def _volume(self, name, **kw):
        self.volumes_made.append(kw)
        return types.SimpleNamespace(name=name, remove=lambda **k: None)


def test_options_survive_run_json(tmp_path):
    opts = RunOptions(scratch=tmp_path, cpus=0.5, seccomp="lab", seccomp_profile=tmp_path / "p.json", live=True)
    back = RunOptions.from_record(json.loads(json.dumps(opts.record())))
    assert back == opts and back.source == "run.json"
    assert RunOptions.from_record(None) == RunOptions() and RunOptions().default and not opts.default
    with pytest.raises(ValueError, match="cpus 0: allowed: a number above 0"):
        RunOptions(cpus=0)


def test_a_session_is_a_lab_context(manifest, tmp_path):
    s = session.Session(manifest, manifest.lab("heatmaps"), "live", "smoke", {}, tmp_path / "r", None,
                        RunOptions(cpus=1.0))
    assert isinstance(s, context.LabContext) and s.options.cpus == 1.0 and s.estimate_s is None
    assert isinstance(ctx(manifest, tmp_path), context.LabContext)


def test_topology_takes_every_option_from_the_context(manifest, tmp_path, monkeypatch):
    """--cpus becomes the container's nano_cpus, --scratch the volume's bind under DIR/perflab-<run>,
    recorded in the run's ledger; whatever the environment says."""
    for name in ("PERFLAB_CPUS", "PERFLAB_SCRATCH", "PERFLAB_SECCOMP"):
        monkeypatch.setenv(name, "nonsense")   # the old way in: must be ignored
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    recorded = []
    ledger = types.SimpleNamespace(record=lambda kind, ident, **kw: recorded.append((kind, ident)),
                                   release=lambda kind, ident: None)
    c = ctx(manifest, tmp_path, run_id="r7", ledger=ledger, options=RunOptions(scratch=scratch, cpus=0.25))
    client = _Client()
    topo = containers.Topology(c, client=client, profiles={})
    with pytest.raises(_Created):
        topo.container("perflab/fio:1", "x")
    assert client.created[0]["nano_cpus"] == int(0.25 * 1e9)
    assert client.created[0]["labels"][containers.labels.LABEL_RUN_DIR] == str(c.data_dir)
    topo.volume("data")
    assert client.volumes_made[0]["driver_opts"]["device"] == str(scratch / "perflab-r7" / "data")
    assert any(ident == str(scratch / "perflab-r7") for _, ident in recorded), recorded
    topo.close()


def test_a_bare_run_id_gets_the_default_options(manifest, tmp_path):
    topo = containers.Topology("r8", "heatmaps")
    assert topo.options == RunOptions() and topo.live_list is None and topo.ctx is None


def test_a_containers_limit_follows_the_runs_estimate(manifest, tmp_path):
    topo = containers.Topology(ctx(manifest, tmp_path, estimate_s=40.0))
    assert containers.default_timeout(topo.estimate_s) == containers.RUN_MARGIN * 40 + containers.RUN_EXTRA_S


def test_fio_reports_to_the_page_the_topology_names(manifest, tmp_path):
    watched = containers.Topology(ctx(manifest, tmp_path, options=RunOptions(live=True)))
    cmd = jobs.command(tmp_path, "job", "job.fio", live=watched.live_list)
    assert "--status-interval=1" in " ".join(cmd)
    listed = [json.loads(x) for x in watched.live_list.read_text().splitlines()]
    assert listed == [{"kind": "fio-status", "label": "job", "path": str(tmp_path.resolve() / "job.status.json")}]
    unwatched = containers.Topology(ctx(manifest, tmp_path / "u"))
    assert unwatched.live_list is None
    assert jobs.command(tmp_path, "job", "job.fio", live=None) == [
        "fio", "--output-format=json", "--output=job.json", "job.fio"]


def _fake_lab():
    def run(c):
        Path(c.data_dir, "raw.txt").write_text("3 4")

    return types.SimpleNamespace(plan=lambda p: [("work", 1.0), ("collect", 1.0)], run=run,
                                 load=lambda d: [int(x) for x in Path(d, "raw.txt").read_text().split()],
                                 summary=lambda xs: {"sum": sum(xs), "n": len(xs)})


def test_the_session_collects_what_run_made(manifest, tmp_path, monkeypatch):
    """run() makes raw files; the session reads them back (summary(load())) as the "collect" phase."""
    d = tmp_path / "run"
    d.mkdir()
    s = session.Session(manifest, manifest.lab("heatmaps"), "live", "smoke", {}, d, None)
    monkeypatch.setattr(s, "module", _fake_lab)
    s.execute()
    assert s.metrics == {"sum": 7, "n": 2} and s.estimate_s == 2.0
    phases = [json.loads(x) for x in (d / "progress.jsonl").read_text().splitlines()]
    assert [p["phase"] for p in phases if p["event"] == "start"] == ["collect"]


def test_the_contract_is_a_protocol_tests_can_meet(manifest, tmp_path):
    c = Ctx("r9", manifest.lab("heatmaps"), manifest, tmp_path)
    assert context.image_tag(c, "fio") == manifest.images["fio"].tag


def test_a_runs_parameters_are_validated_once(manifest, tmp_path, monkeypatch):
    """`perflab run` validates the parameters (params.resolve, the lab's validate); the notebook's
    session reads run.json's values back converted, not validated again; a value that does not
    convert (run.json edited by hand) is refused, naming the file and the parameter."""
    from perflab.config import params
    from perflab.run.record import RunRecord

    lab = manifest.lab("bad-cable")
    values = params.resolve(lab, "smoke")
    d = tmp_path / "bad-cable-run"
    d.mkdir()
    RunRecord(d).create({"run_id": d.name, "lab": lab.name, "preset": "smoke", "params": values,
                         "params_text": params.describe(values, lab), "options": RunOptions().record()})

    def again(*a, **kw):
        raise AssertionError("validated a second time")
    monkeypatch.setattr(params, "resolve", again)
    monkeypatch.setattr(lab.load_module(), "validate", again)
    assert session.open("bad-cable", run="smoke", run_dir=str(d)).params == values
    assert session.open("bad-cable").params == params.recorded(
        lab, json.loads((manifest.root / "data" / "reference" / "bad-cable" / "run.json").read_text())["params_text"])

    doc = json.loads((d / "run.json").read_text())
    doc["params_text"]["clients"] = "five"
    (d / "run.json").write_text(json.dumps(doc))
    with pytest.raises(params.ParamError, match=r"run.json: parameter clients='five'"):
        session.open("bad-cable", run="smoke", run_dir=str(d))
