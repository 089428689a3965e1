"""The README and the pages it links (docs/, issue 42): every relative link of theirs and of
CONTRIBUTING.md reaches a file, and a heading where it names one; every docs page is reachable from
the README; the command-line page documents every command, every `perflab run` option, every exit
status and every failure kind the code has (read from perflab.cli and perflab.errors, so a new one
fails here until it is written up)."""
from __future__ import annotations

import argparse
import re
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from perflab import cli, errors
from conftest import ROOT

DOCS = ROOT / "docs"
COMMANDS = DOCS / "commands.md"
#: Issue 42: a README a newcomer reads in two minutes; the reference material lives in docs/.
README_MAX_LINES = 60


def _md() -> MarkdownIt:
    # GitHub's heading ids (lower case, punctuation dropped, spaces to hyphens, -1 for a repeat),
    # which is what a reader's browser follows on the repository's pages.
    return MarkdownIt("commonmark").enable("table").use(anchors_plugin, max_level=6)


def _tokens(text: str):
    for tok in _md().parse(text):
        yield tok
        yield from tok.children or ()


def anchors(path: Path) -> set[str]:
    return {t.attrs["id"] for t in _tokens(path.read_text()) if t.type == "heading_open" and "id" in t.attrs}


def links(path: Path) -> list[str]:
    return [str(t.attrs["href"]) for t in _tokens(path.read_text()) if t.type == "link_open"]


def link_problems(files: list[Path]) -> list[str]:
    """Each relative link of `files` whose file or heading does not exist, as 'file: href (why)'."""
    out = []
    for f in files:
        for href in links(f):
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):   # https:, mailto:: not this test's
                continue
            target, _, anchor = href.partition("#")
            dest = (f.parent / unquote(target)).resolve() if target else f
            if not dest.exists():
                out.append(f"{f.name}: {href} (no such file)")
            elif anchor and dest.suffix == ".md" and unquote(anchor) not in anchors(dest):
                out.append(f"{f.name}: {href} (no such heading in {dest.name})")
    return out


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_every_relative_link_reaches_a_file_and_heading():
    assert len(pages()) > 1
    assert link_problems([*pages(), ROOT / "CONTRIBUTING.md"]) == []


def test_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n## Some `code` here\n\n[ok](b.md#b-part) [self](#some-code-here)\n"
                                   "[gone](c.md) [wrong](b.md#nowhere) [web](https://example.org/x.md)\n")
    (tmp_path / "b.md").write_text("# B\n\n## B part\n")
    assert link_problems([tmp_path / "a.md"]) == ["a.md: c.md (no such file)",
                                                  "a.md: b.md#nowhere (no such heading in b.md)"]


def test_readme_is_short_and_links_every_docs_page():
    readme = ROOT / "README.md"
    assert len(readme.read_text().splitlines()) <= README_MAX_LINES
    linked = {(readme.parent / h.partition("#")[0]).resolve() for h in links(readme)}
    orphans = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert not orphans, f"docs pages the README does not link: {orphans}"


def test_readme_gives_the_two_commands():
    text = (ROOT / "README.md").read_text()
    block = re.search(r"^## The two commands\n(.*?)^## ", text, re.S | re.M).group(1)
    for cmd in ("make book", "make test"):
        assert re.search(rf"^{cmd}\s+#", block, re.M), cmd
    assert "`.ci/run`" in block and "make test" in (ROOT / ".ci" / "run").read_text()


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_command_and_run_option_is_documented():
    text = COMMANDS.read_text()
    table = _section(text, "The commands")
    missing = [n for n in _subcommands() if not re.search(rf"^\| `perflab {re.escape(n)}[ `]", table, re.M)]
    assert not missing, f"commands not in docs/commands.md: {missing}"
    options = _section(text, "Options of `perflab run`")
    run = _subcommands()["run"]
    flags = [o for a in run._actions for o in a.option_strings if o not in ("-h", "--help")]
    assert "--dry-run" in flags
    assert [o for o in flags if f"`{o}" not in options] == []


def test_every_exit_status_and_failure_kind_is_documented():
    text = COMMANDS.read_text()
    statuses = {v for k, v in vars(errors).items() if k.startswith("EXIT_")}
    rows = set(re.findall(r"^\| (\d+) \|", _section(text, "Exit statuses"), re.M))
    assert statuses and {str(s) for s in statuses} <= rows, statuses

    def kinds(cls):
        for c in cls.__subclasses__():
            yield c.kind
            yield from kinds(c)

    documented = set(re.findall(r"^\| `([a-z-]+)` \|", _section(text, "Failures"), re.M))
    found = set(kinds(errors.Failure))
    assert found and found <= documented, found - documented
