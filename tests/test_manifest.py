"""book.toml is the single manifest: the Jupyter Book files are generated from it and must not drift;
every lab's parameter cell and files agree with it."""
import re
from pathlib import Path

import jupytext
import pytest

from perflab.book import jbconfig
from perflab.config import manifest as manifest_mod


def test_jupyter_book_config_matches_book_toml(manifest):
    drift = jbconfig.drift(manifest)
    assert not drift, f"{drift} out of date with book.toml: run scripts/perflab book-config"


def test_drift_is_detected(manifest, tmp_path):
    import shutil

    for name in ("book.toml", "_config.yml", "_toc.yml"):
        shutil.copy(manifest.root / name, tmp_path / name)
    shutil.copytree(manifest.root / "chapters", tmp_path / "chapters")
    shutil.copytree(manifest.root / "labs", tmp_path / "labs")
    shutil.copytree(manifest.root / "containers" / "seccomp", tmp_path / "containers" / "seccomp")
    m = manifest_mod.load(tmp_path)
    assert jbconfig.drift(m) == []
    (tmp_path / "book.toml").write_text((tmp_path / "book.toml").read_text().replace(
        'title = "Reading latency heat maps"', 'title = "Heat maps"', 1))
    (tmp_path / "chapters" / "extra.md").write_text("# Extra\n")
    with open(tmp_path / "book.toml", "a") as f:
        f.write('\n[[chapters]]\nid = "extra"\ntitle = "Extra"\nfile = "chapters/extra.md"\n')
    assert "_toc.yml" in jbconfig.drift(manifest_mod.load(tmp_path))


def test_toc_lists_every_chapter_in_order(manifest):
    import yaml

    toc = yaml.safe_load((manifest.root / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for c in toc.get("chapters", [])]
    assert files == [str(c.file.with_suffix("")) for c in manifest.chapters]


@pytest.mark.parametrize("lab", list(manifest_mod.load(Path(__file__).resolve().parent.parent).labs))
def test_lab_files_and_parameter_cell(manifest, lab):
    lb = manifest.lab(lab)
    assert lb.module_path.is_file()
    assert hasattr(lb.load_module(), "run")
    nb = jupytext.read(manifest.root / manifest.chapter(lb.chapter).file)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, "exactly one cell tagged parameters"
    names = set(re.findall(r"^(\w+)\s*=", cells[0].source, re.M))
    assert names == {"run", "params", "run_dir"}


def test_notebook_sources_have_no_outputs(manifest):
    """Chapters are MyST Markdown; no .ipynb with outputs is committed anywhere."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=manifest.root, capture_output=True,
                             text=True).stdout.split()
    assert tracked == []
    for c in manifest.chapters:
        assert c.file.suffix == ".md"


def test_unknown_lab_suggests(manifest):
    with pytest.raises(manifest_mod.ManifestError, match="did you mean 'heatmaps'"):
        manifest.lab("heatmap")


def test_a_typo_in_a_table_is_refused_with_the_nearest_key(tmp_path):
    import shutil

    from perflab.config import manifest as mm

    root = Path(__file__).resolve().parents[1]
    shutil.copy(root / "book.toml", tmp_path / "book.toml")
    text = (tmp_path / "book.toml").read_text()
    (tmp_path / "book.toml").write_text(text.replace('requires = ["docker"]', 'requries = ["docker"]', 1))
    with pytest.raises(mm.ManifestError) as e:
        mm.load(tmp_path)
    assert "'requries' (did you mean 'requires'?)" in str(e.value) and "[labs." in str(e.value)
    (tmp_path / "book.toml").write_text("[book\ntitle = 1\n")
    with pytest.raises(mm.ManifestError, match="not valid TOML"):
        mm.load(tmp_path)
