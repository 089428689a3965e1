"""Exercise solutions in the book: hidden (the default), shown, or stripped.

A chapter marks each solution cell with the tag `solution`: code cells as
`:tags: [hide-cell, solution]` (folded under "Show solution (code)" in the default build: the toggle's
words are set by perflab.book.sphinxext, not by the chapter), markdown cells with a
`+++ {"tags": ["solution"]}` marker, their text inside a `{dropdown}` so that it is folded too.

    perflab book                      # hide: solutions folded, one click away (readers, self-study)
    perflab book --solutions show     # show: solution code cells unfolded (instructors' copy)
    perflab book --solutions strip    # strip: no solution in the HTML at all (a copy for a class)

`show` and `strip` build from a staged copy of the book's sources (the chapters rewritten, every
other top-level entry linked), so the chapters in the repository never change.
"""
from __future__ import annotations

import shutil
from pathlib import Path

TAG = "solution"
MODES = ("hide", "show", "strip")
FOLDING = {"hide-cell", "hide-input", "hide-output"}


def is_solution(cell) -> bool:
    return TAG in cell.get("metadata", {}).get("tags", [])


def transform(nb, mode: str):
    """The notebook with its solution cells as `mode` wants them (a new object; nb is untouched)."""
    import copy

    if mode not in MODES:
        raise ValueError(f"solutions mode {mode!r}; allowed: {', '.join(MODES)}")
    nb = copy.deepcopy(nb)
    if mode == "strip":
        nb.cells = [c for c in nb.cells if not is_solution(c)]
    elif mode == "show":
        for c in nb.cells:
            if is_solution(c):
                c.metadata["tags"] = [t for t in c.metadata["tags"] if t not in FOLDING]
    return nb


def count(nb) -> int:
    return sum(is_solution(c) for c in nb.cells)


def stage(root: Path, chapter_files: list[Path], mode: str, dest: Path) -> Path:
    """A copy of the book's sources under `dest` with every chapter transformed; other top-level
    entries of `root` are symlinked (labs/ for literalinclude, _static/, data/ ...)."""
    import jupytext

    root, dest = Path(root), Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    skip = {"_build", ".git", "chapters"}
    for entry in root.iterdir():
        if entry.name not in skip:
            (dest / entry.name).symlink_to(entry.resolve())
    src_ch = root / "chapters"
    chapters = {Path(root / c).resolve() for c in chapter_files}
    for f in src_ch.rglob("*"):
        rel = f.relative_to(src_ch)
        out = dest / "chapters" / rel
        if f.is_dir():
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        nb = jupytext.read(f) if f.suffix == ".md" and f.resolve() in chapters else None
        if nb is not None and count(nb):
            jupytext.write(transform(nb, mode), out, fmt="md:myst")
        else:
            shutil.copy2(f, out)
    return dest
