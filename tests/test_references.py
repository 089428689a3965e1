"""The reference runs the book renders are the code that ships: each was recorded from a clean tree at
a commit whose labs/<lab>/ and lab images' inputs equal today's (perflab.reference). Re-record them
with `scripts/perflab references` (or one lab: `scripts/perflab references LAB`)."""
import pytest

from perflab import reference


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
