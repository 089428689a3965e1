"""What the book tells a reader to type works: every `scripts/perflab run ...` command written in a
chapter, the README or its docs/ pages passes `perflab run --dry-run` (parameters validated, plan
printed, nothing created), and every exercise solution is folded in the default build."""
import re
import shlex

import jupytext
import pytest

from perflab import cli
from perflab.book import solutions

INLINE = re.compile(r"`([^`]+)`")
#: Commands that need a file the reader makes first (a hosts file, a student's variant package):
#: their parameters are tested where those files are made (test_bad_cable, test_assign).
NEEDS_A_FILE = ("--variant", "hosts=")


def commands(root):
    out = []
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md")),
             *sorted((root / "chapters").rglob("*.md"))]
    for f in pages:
        text = f.read_text()
        fenced = re.compile(r"^\s*(```|~~~)[^\n]*\n.*?^\s*\1\s*$", re.S | re.M)
        spans = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("scripts/perflab run ")]
        spans += [" ".join(s.split()) for s in INLINE.findall(fenced.sub("", text))]
        for sp in spans:
            if sp.startswith("scripts/perflab run "):
                cmd = sp.split("#", 1)[0].strip()
                out.append((f.relative_to(root).as_posix(), cmd))
    return sorted(set(out))


def test_the_book_has_commands_to_check(manifest):
    cmds = commands(manifest.root)
    labs = {shlex.split(c)[2] for _, c in cmds}
    assert len(cmds) >= 20 and len(labs) >= 8, cmds


@pytest.mark.parametrize("where,cmd", commands(__import__("conftest").ROOT))
def test_chapter_command_passes_dry_run(where, cmd, capsys):
    if any(x in cmd for x in NEEDS_A_FILE):
        pytest.skip(f"needs a file the reader makes first: {cmd}")
    argv = shlex.split(cmd)[1:] + ["--dry-run"]
    rc = cli.main(argv)
    out = capsys.readouterr()
    assert rc == 0, f"{where}: `{cmd}` is refused:\n{out.err}"
    assert "nothing was created" in out.out


def test_dry_run_refuses_a_bad_value_naming_it(capsys):
    assert cli.main(["run", "jbod", "-p", "hbas=9", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "hbas=9" in err and "<= 4" in err


def test_every_solution_is_folded(manifest):
    """A solution cell is folded in the default build: a code cell hidden (hide-cell / hide-input),
    a markdown cell inside a dropdown. Every chapter with exercises has solutions."""
    unfolded, without = [], []
    for c in manifest.chapters:
        nb = jupytext.read(manifest.root / c.file)
        text = (manifest.root / c.file).read_text()
        if "## Exercises" in text and not solutions.count(nb):
            without.append(c.id)
        for i, cell in enumerate(nb.cells):
            if not solutions.is_solution(cell):
                continue
            tags = set(cell.metadata.get("tags", []))
            if cell.cell_type == "code":
                ok = bool(tags & {"hide-cell", "hide-input"})
            else:
                src = cell.source.lstrip()
                ok = (src.startswith("```{dropdown}") or src.startswith(":::{dropdown}")
                      or (src.startswith(("```{admonition}", ":::{admonition}")) and ":class: dropdown" in src))
            if not ok:
                unfolded.append(f"{c.id} cell {i}: {cell.source[:60]!r}")
    assert not without, f"chapters with exercises and no solution cells: {without}"
    assert not unfolded, "solutions not folded:\n" + "\n".join(unfolded)
