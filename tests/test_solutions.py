"""Exercises and their solutions: every chapter with a lab has exercises with solution cells, and the
book's switch folds (default), shows or strips them without touching the chapters themselves."""
import jupytext
import pytest

from perflab.book import solutions
from support.chapters import MYST_HEADER

NB = MYST_HEADER + """# A chapter

## Exercises

1. Predict the answer.

```{code-cell} ipython3
:tags: [hide-cell, solution]

print("THE-CODE-ANSWER")
```

+++ {"tags": ["solution"]}

```{dropdown} Solution
THE-PROSE-ANSWER
```

+++

Text after the solutions.
"""


def test_transform_modes():
    nb = jupytext.reads(NB, fmt="md:myst")
    assert solutions.count(nb) == 2
    strip = solutions.transform(nb, "strip")
    text = jupytext.writes(strip, fmt="md:myst")
    assert "ANSWER" not in text and "Predict the answer" in text and "Text after the solutions" in text
    show = solutions.transform(nb, "show")
    code = [c for c in show.cells if c.cell_type == "code"][0]
    assert code.metadata["tags"] == ["solution"]
    assert solutions.count(nb) == 2 and "hide-cell" in nb.cells[[c.cell_type for c in nb.cells].index("code")].metadata["tags"]
    with pytest.raises(ValueError, match="allowed: hide, show, strip"):
        solutions.transform(nb, "reveal")


def test_stage_rewrites_only_chapters_with_solutions(tmp_path):
    root = tmp_path / "book"
    (root / "chapters").mkdir(parents=True)
    (root / "labs").mkdir()
    (root / "chapters" / "lab.md").write_text(NB)
    (root / "chapters" / "plain.md").write_text("# Plain page\n\nNo exercises.\n")
    (root / "_config.yml").write_text("title: x\n")
    dest = solutions.stage(root, ["chapters/lab.md", "chapters/plain.md"], "strip", tmp_path / "stage")
    assert "ANSWER" not in (dest / "chapters" / "lab.md").read_text()
    assert (dest / "chapters" / "plain.md").read_text() == "# Plain page\n\nNo exercises.\n"
    assert (dest / "labs").is_symlink() and (dest / "_config.yml").read_text() == "title: x\n"
    assert "THE-CODE-ANSWER" in (root / "chapters" / "lab.md").read_text()   # the source is untouched


def test_every_lab_chapter_has_exercises_with_solutions(manifest):
    missing = []
    for lab in manifest.labs.values():
        f = manifest.root / manifest.chapter(lab.chapter).file
        nb = jupytext.read(f)
        heads = [c.source for c in nb.cells if c.cell_type == "markdown"]
        if not any("## Exercises" in h for h in heads) or solutions.count(nb) == 0:
            missing.append(str(f.relative_to(manifest.root)))
    assert missing == []


@pytest.mark.slow
@pytest.mark.long      # a second whole book build (87 s); the stripping itself is unit-tested above
def test_stripped_book_has_exercises_but_no_solutions(manifest, tmp_path):
    """`perflab book --solutions strip`: the class's copy of the book keeps the questions only."""
    from conftest import perflab_cmd
    from perflab.infra import lock

    with lock.machine_lock("book build (tests)"):
        r = perflab_cmd("book", "--solutions", "strip", "--out", str(tmp_path), timeout=1800)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    html = tmp_path / "_build" / "html"
    for lab in manifest.labs.values():
        page = (html / manifest.chapter(lab.chapter).file.with_suffix(".html")).read_text()
        assert "Exercises" in page, lab.name
        assert "Solution" not in page, lab.name
    assert not (manifest.root / "_build" / ".stage-strip" / "chapters").samefile(manifest.root / "chapters")
