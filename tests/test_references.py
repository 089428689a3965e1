"""The reference runs the book renders are the code that ships: each was recorded from a clean tree at
a commit whose labs/<lab>/ and lab images' inputs equal today's (perflab.run.reference). Re-record them
with `scripts/perflab references` (or one lab: `scripts/perflab references LAB`)."""
import pytest

from perflab.run import reference


def test_every_lab_has_a_fresh_reference(manifest):
    stale = {n: why for n, why in reference.check(manifest).items() if why}
    assert not stale, "stale references (re-record: scripts/perflab references " + " ".join(stale) + "):\n" + \
        "\n".join(f"  {n}: {'; '.join(w)}" for n, w in stale.items())


def test_staleness_names_what_changed(manifest, tmp_path, monkeypatch):
    """A reference recorded dirty, or at a commit whose lab differs, is reported with the reason."""
    import json
    import shutil

    lab = manifest.lab("heatmaps")
    src = manifest.root / "data" / "reference" / "heatmaps" / "run.json"
    doc = json.loads(src.read_text())
    fake_root = tmp_path / "root"
    (fake_root / "data" / "reference" / "heatmaps").mkdir(parents=True)
    doc["provenance"]["git_dirty"] = True
    doc["provenance"]["git_sha"] = "0" * 40
    (fake_root / "data" / "reference" / "heatmaps" / "run.json").write_text(json.dumps(doc))
    monkeypatch.setattr(manifest, "root", fake_root)
    why = reference.staleness(manifest, lab)
    assert any("uncommitted" in w for w in why) and any("does not have" in w for w in why), why
    shutil.rmtree(fake_root)
    assert reference.staleness(manifest, lab) == [f"no reference run (data/reference/heatmaps/run.json)"]


def test_repeats_are_part_of_the_reference(manifest, tmp_path, monkeypatch):
    """A lab with reference_runs = N is stale until N - 1 repeats are recorded, each held to the
    reference's rule (clean, from a commit where the lab is what ships); a dirty one is named."""
    import dataclasses
    import json
    import shutil

    lab = dataclasses.replace(manifest.lab("dedup"), reference_runs=3)
    src = manifest.root / "data" / "reference" / "dedup"
    fake = tmp_path / "root"
    shutil.copytree(src, fake / "data" / "reference" / "dedup")
    real = manifest.root
    git = reference._git
    monkeypatch.setattr(manifest, "root", fake)
    monkeypatch.setattr(reference, "_git", lambda root, *a: git(real, *a))   # the fake root has no .git
    monkeypatch.setattr(reference, "pathspecs", lambda m, lab: [f"labs/{lab.name}/"])
    sha = git(real, "rev-parse", "HEAD").stdout.strip()   # a commit whose labs/dedup/ is today's
    why = reference._repeat_staleness(manifest, lab)
    assert any("0 repeat run(s) recorded, book.toml asks for 2" in w for w in why), why
    for k, (dirty, at) in {2: (False, sha), 3: (True, sha)}.items():
        d = fake / "data" / "reference" / "dedup" / "repeats" / str(k)
        shutil.copytree(src, d)
        doc = json.loads((d / "run.json").read_text())
        doc["provenance"].update(git_dirty=dirty, git_sha=at)
        (d / "run.json").write_text(json.dumps(doc))
    why = reference._repeat_staleness(manifest, lab)
    assert why == ["repeat 3: recorded from a tree with uncommitted changes (git_dirty: True)"], why
    assert [d.name for d in reference.repeat_dirs(fake / "data" / "reference" / "dedup")] == ["2", "3"]


def test_compare_panel_shows_the_range_over_repeats():
    from perflab.analysis.compare import Row, spread

    runs = [{"r": 1.97}, {"r": 2.31}, {"r": 1.88}, {"r": None}]
    assert spread(runs, Row("gap", "r", "{:.2f}x")) == "1.88x - 2.31x (3 runs)"
    assert spread([{"r": 2.0}, {"r": 2.0}], Row("gap", "r", "{:.1f}x")) == "2.0x (2 runs)"
    assert spread([{"s": [2, 5]}, {"s": [2, 5]}, {"s": [3, 5]}], Row("found", "s")) == "[2, 5] / [3, 5] (3 runs)"
    assert spread([{}], Row("gap", "r")) == "-"


def test_a_changed_parameter_makes_a_reference_stale(manifest):
    """A default or preset changed in book.toml changes the run without touching labs/<lab>/."""
    import dataclasses
    import json

    lab = manifest.lab("dedup")
    recorded = json.loads((manifest.root / "data" / "reference" / "dedup" / "run.json").read_text())["params"]
    assert reference._param_drift(lab, recorded) == []
    params = dict(lab.params)
    params["threads"] = dataclasses.replace(params["threads"], default=params["threads"].default + 1)
    why = reference._param_drift(dataclasses.replace(lab, params=params), recorded)
    assert len(why) == 1 and why[0].startswith("recorded with other parameters: threads"), why


def test_a_new_reference_replaces_the_old_one_only_once_it_is_in_place(tmp_path):
    """record_reference swaps directories: the old reference is set aside, the new one renamed in, then
    the old one removed; if the new one cannot be put in place the old one stays whole (issue 27)."""
    from perflab.run.runner import _swap_in

    dst = tmp_path / "heatmaps"
    (dst / "fio").mkdir(parents=True)
    (dst / "run.json").write_text("old")
    new = tmp_path / "heatmaps.tmp"
    new.mkdir()
    (new / "run.json").write_text("new")
    assert _swap_in(new, dst) == dst
    assert (dst / "run.json").read_text() == "new" and not (dst / "fio").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heatmaps"]
    with pytest.raises(FileNotFoundError):
        _swap_in(tmp_path / "never-made", dst)
    assert (dst / "run.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heatmaps"]
