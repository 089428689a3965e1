"""The "your run vs reference vs 2009" panel: values come from the runs' metrics, missing ones
show as "-", and a live run adds its own column beside the reference."""
import json  # noqa: F401

from perflab.run import session
from perflab.analysis.compare import Row


def test_reference_panel_shows_recomputed_metrics_and_2009(manifest):
    """In the book the reference column shows what the chapter recomputed (s.metric), not run.json."""
    s = session.open("logzilla", run="reference", root=manifest.root)
    s.metric(iops_ratio=41.26)            # as the chapter's recomputation would set it
    p = s.compare([("IOPS gain", "iops_ratio", "{:.1f}x", "12x"), Row("not measured", "no_such_metric", "{}", "7")],
                  source='"Logzilla", 2009')
    t = p.table()
    ref_col = [c for c in p.columns if c.startswith("reference (")][0]
    assert t["IOPS gain"][ref_col] == "41.3x"
    assert t["IOPS gain"]["2009, published"] == "12x"
    assert t["not measured"][ref_col] == "-"
    assert not any(c.startswith("your run") for c in p.columns)
    assert 'class="perflab-compare"' in p._repr_html_()


def test_live_panel_adds_your_run(manifest, tmp_path):
    import shutil

    s = session.open("logzilla", run="reference", root=manifest.root)
    s.mode, s.preset = "live", "smoke"          # as a live run would be, without running anything
    s.data_dir = tmp_path / "run"               # a copy of the reference stands in for the run's data
    shutil.copytree(s.reference_dir(), s.data_dir)
    s.metrics = {"iops_ratio": 37.84}
    p = s.compare([("IOPS gain", "iops_ratio", "{:.1f}x", "12x")], source="x")
    assert p.table()["IOPS gain"]["your run (smoke)"] == "37.8x"
    # below the panel: the run against the reference, I/O by I/O (logzilla has no repeats: no verdict)
    assert 'class="perflab-difference"' in p.extras[0].data and "not weighed" in p.extras[0].data
    assert (s.data_dir / "vs-reference.txt").read_text().splitlines()[-1] == "verdict: no verdict (no runs to measure the noise)"
    assert (s.data_dir / "figures" / "vs-reference.html").is_file()
    assert sorted(p.name for p in s.reference_dir().iterdir()) == sorted(p.name for p in s.data_dir.iterdir()
                                                                        if p.name not in ("figures", "vs-reference.txt"))
