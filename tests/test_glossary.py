"""The glossary (chapters/glossary.md) is in the book, has at least MIN_TERMS entries, and every chapter
links its terms there: a chapter that uses any name of a glossary entry in its prose has a {term}
link to that entry (the book's convention puts it on the first use). Needs no build and no Docker.

"Prose" is the chapter's narrative Markdown: not its front matter, code cells and other fenced code,
headings, admonition titles and options, inline code, the contents of roles (a {term} link's own text
included), the text of Markdown links (a term link cannot sit inside another link) or quotations and
quoted titles ("Networking Analytics Example" is a post's name, not a use of a term). A name "is
used" where it stands as a whole word, with an optional plural ending; a name with a capital letter
(ARC, IOPS, Little's law) must match its case exactly, an all-lowercase one may also start with a
capital (at the start of a sentence); a space in a name also matches a hyphen ("heat-map code")."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from perflab.config import manifest as manifest_mod

ROOT = Path(__file__).resolve().parent.parent
MIN_TERMS = 30
#: Directives whose body is prose (their title, on the opening line, and their options are not).
PROSE_DIRECTIVES = {"admonition", "note", "tip", "hint", "important", "warning", "caution", "attention",
                    "danger", "error", "seealso", "dropdown"}
#: (chapter id, glossary entry's first name) pairs exempt from the rule, with the reason. Empty: every
#: chapter links every term it uses.
ALLOWED: dict[tuple[str, str], str] = {}

ROLE = re.compile(r"\{[\w:+-]+\}(`+)(.*?)\1")
TERM = re.compile(r"\{term\}`([^`]*)`")
INLINE_CODE = re.compile(r"(`+).*?\1")
LINK = re.compile(r"!?\[[^\]]*\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
HTML = re.compile(r"<!--.*?-->|<[^>]+>")
QUOTE = re.compile(r'"[^"\n]*(?:\n[^"\n]*){0,3}"|\u201c[^\u201d]*\u201d')


def glossary_entries(text: str) -> list[list[str]]:
    """The entries of the page's {glossary} block, each as its list of names (a term line, or several
    consecutive ones, followed by an indented definition)."""
    lines = text.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if re.match(r"^(`{3,}|:{3,})\{glossary\}", ln))
    except StopIteration:
        return []
    fence = re.match(r"^(`{3,}|:{3,})", lines[start]).group(1)
    entries: list[list[str]] = []
    names: list[str] = []
    for ln in lines[start + 1:]:
        if ln.strip() == fence:
            break
        if not ln.strip() or ln.startswith(":"):
            continue
        if ln[0].isspace():
            if names:
                entries.append(names)
                names = []
        else:
            names.append(ln.strip())
    return entries


def _blank(s: str, pattern: re.Pattern) -> str:
    """s with every match of pattern replaced by spaces (columns kept)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), s)


def prose_lines(text: str) -> list[tuple[int, str, str]]:
    """(line number, the line as written, the line with everything that is not prose blanked out)
    for every line of narrative Markdown."""
    out = []
    lines = text.splitlines()
    i = 0
    if lines and lines[0].strip() == "---":   # front matter
        i = next((k for k in range(1, len(lines)) if lines[k].strip() == "---"), len(lines) - 1) + 1
    stack: list[tuple[str, int, bool]] = []   # open fences: (character, length, body is prose)
    in_options = False
    for n in range(i, len(lines)):
        ln = lines[n]
        m = re.match(r"^\s*(`{3,}|~{3,}|:{3,})(.*)$", ln)
        if stack and not stack[-1][2]:         # inside code: only its closing fence matters
            if m and m.group(1)[0] == stack[-1][0] and len(m.group(1)) >= stack[-1][1] and not m.group(2).strip():
                stack.pop()
            continue
        if m:
            ch, count, info = m.group(1)[0], len(m.group(1)), m.group(2).strip()
            if stack and not info and ch == stack[-1][0] and count >= stack[-1][1]:
                stack.pop()
                in_options = False
                continue
            name = re.match(r"^\{([\w:-]+)\}", info)
            prose = bool(name) and name.group(1) in PROSE_DIRECTIVES
            stack.append((ch, count, prose))
            in_options = prose
            continue
        if in_options and re.match(r"^\s*:[\w-]+:", ln):
            continue
        in_options = False
        s = ln.strip()
        if not s or s.startswith("#") or s.startswith("+++") or re.match(r"^\(.*\)=$", s):
            continue
        clean = _blank(_blank(_blank(_blank(ln, ROLE), INLINE_CODE), LINK), HTML)
        out.append((n + 1, ln, clean))
    # quotations and quoted titles are someone else's words: a paragraph's "..." spans are blanked
    joined = _blank("\n".join(c for _, _, c in out), QUOTE)
    return [(n, raw, clean) for (n, raw, _), clean in zip(out, joined.split("\n"))]


def name_pattern(name: str) -> re.Pattern:
    """A whole-word pattern for one name of a glossary entry (see the module's docstring)."""
    body = r"[ -]".join(re.escape(w) for w in name.split(" "))
    if name.endswith("y"):
        body = body[:-1] + r"(?:y|ies)"
    else:
        body += r"(?:s|es)?"
    if name == name.lower() and name[0].isalpha():
        body = f"[{name[0]}{name[0].upper()}]" + body[1:]
    return re.compile(rf"(?<![\w/.-]){body}(?![\w-])")


@dataclass
class Problem:
    chapter: str
    entry: str
    line: int
    text: str

    def __str__(self) -> str:
        return (f"{self.chapter}.md:{self.line}: '{self.text}' is used, and nothing links it to the glossary "
                f"({{term}}`{self.entry}`)")


def first_uses(text: str, entries: list[list[str]]) -> dict[str, tuple[int, str]]:
    """Entry (its first name) -> (line, text) of the first use in prose of any of its names."""
    found: dict[str, tuple[int, int, str]] = {}
    for n, _, clean in prose_lines(text):
        for names in entries:
            for name in names:
                m = name_pattern(name).search(clean)
                if m and (names[0] not in found or (n, m.start()) < found[names[0]][:2]):
                    found[names[0]] = (n, m.start(), m.group(0))
    return {k: (v[0], v[2]) for k, v in found.items()}


def linked_entries(text: str, entries: list[list[str]]) -> set[str]:
    """The entries (their first names) that the text's {term} links point to."""
    by_name = {n.lower(): names[0] for names in entries for n in names}
    return {by_name[t.strip().lower()] for t in map(_target, TERM.findall(text)) if t.strip().lower() in by_name}


def _target(inner: str) -> str:
    """A role's target: `text <target>` or `target`."""
    m = re.search(r"<([^<>]*)>\s*$", inner)
    return m.group(1) if m else inner


def check_chapter(text: str, entries: list[list[str]], chapter: str = "") -> list[Problem]:
    """Each glossary entry the chapter uses in prose without a {term} link to it anywhere."""
    linked = linked_entries(text, entries)
    return [Problem(chapter, entry, line, used) for entry, (line, used) in sorted(
        first_uses(text, entries).items(), key=lambda kv: kv[1]) if entry not in linked
        and (chapter, entry) not in ALLOWED]


def unknown_terms(text: str, entries: list[list[str]]) -> list[str]:
    """{term} targets that name no glossary entry (Sphinx would warn and draw no link)."""
    known = {n.lower() for names in entries for n in names}
    return [t for t in map(_target, TERM.findall(text)) if t.strip().lower() not in known]


def glossary_problems(text: str) -> list[str]:
    """What is wrong with the glossary page itself: too few entries, a name in two entries."""
    entries = glossary_entries(text)
    out = []
    if len(entries) < MIN_TERMS:
        out.append(f"the glossary has {len(entries)} entries, fewer than {MIN_TERMS}")
    names = [n.lower() for e in entries for n in e]
    out += [f"'{n}' names two glossary entries" for n in sorted({n for n in names if names.count(n) > 1})]
    return out


def test_the_glossary_is_in_the_book_with_enough_terms(manifest):
    assert "glossary" in [c.id for c in manifest.chapters], "book.toml lists no chapter 'glossary'"
    assert glossary_problems((ROOT / "chapters" / "glossary.md").read_text()) == []


@pytest.mark.parametrize("chapter", [c.id for c in manifest_mod.load(ROOT).chapters if c.id != "glossary"])
def test_every_chapter_links_the_terms_it_uses(manifest, chapter):
    entries = glossary_entries((ROOT / "chapters" / "glossary.md").read_text())
    text = (manifest.root / manifest.chapter(chapter).file).read_text()
    problems = check_chapter(text, entries, chapter)
    assert not problems, "\n".join(map(str, problems))


def test_every_term_link_names_a_glossary_entry(manifest):
    entries = glossary_entries((ROOT / "chapters" / "glossary.md").read_text())
    bad = {c.id: unknown_terms((manifest.root / c.file).read_text(), entries) for c in manifest.chapters}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"{{term}} links to no glossary entry: {bad}"


GLOSSARY_SAMPLE = """# Glossary

```{glossary}
:sorted:

ARC
adaptive replacement cache
  ZFS's read cache in DRAM.

heat map
  A distribution over time.
```
"""


def test_the_check_fails_on_what_it_exists_for():
    """An unlinked use fails; uses only in code, headings, link texts, roles, quotations or admonition
    titles are not uses; a link with another text counts; a small glossary is small."""
    entries = glossary_entries(GLOSSARY_SAMPLE)
    assert entries == [["ARC", "adaptive replacement cache"], ["heat map"]]
    assert glossary_problems(GLOSSARY_SAMPLE) == [f"the glossary has 2 entries, fewer than {MIN_TERMS}"]
    assert glossary_problems(GLOSSARY_SAMPLE.replace("heat map\n", "ARC\n")) == [
        f"the glossary has 2 entries, fewer than {MIN_TERMS}", "'arc' names two glossary entries"]
    linked = "# The ARC\n\nThe ARC answers; the {term}`ARC` again. {term}`Heat maps <heat map>` show it.\n"
    assert check_chapter(linked, entries) == []
    unlinked = "# Title\n\nThe adaptive replacement cache answers reads,\ndrawn as heat-maps.\n"
    assert [(p.entry, p.line, p.text) for p in check_chapter(unlinked, entries)] == [
        ("ARC", 3, "adaptive replacement cache"), ("heat map", 4, "heat-maps")]
    not_prose = ("---\njupytext: {}\n---\n\n# ARC\n\nText with `ARC` in code, [an ARC link](x.md), "
                 "{doc}`ARC`, \"ARC heat maps\" (a title).\n\n```{code-cell} ipython3\nprint('ARC heat map')\n```\n\n"
                 "```{admonition} ARC title\n:class: dropdown\nbody\n```\n")
    assert check_chapter(not_prose, entries) == []
    assert check_chapter("```{admonition} Solution\n:class: dropdown\nThe ARC.\n```\n", entries)[0].line == 3
    assert check_chapter("Not the L2ARC, nor arc, nor labs/ARC, nor ARC_SIZE.\n", entries) == []
    assert unknown_terms("{term}`ARC` {term}`the cache <adaptive replacement cache>` {term}`ZIL`", entries) == ["ZIL"]


def test_the_check_fails_on_a_modified_copy_of_a_chapter(manifest):
    """A real chapter with every link to one entry made plain text again."""
    entries = glossary_entries((ROOT / "chapters" / "glossary.md").read_text())
    chapter = (ROOT / "chapters" / "heatmaps.md").read_text()
    assert check_chapter(chapter, entries, "heatmaps") == []
    target = _target(TERM.search(chapter).group(1))

    def unlink(m):   # {term}`text <target>` -> text, for the one entry
        return m.group(0) if _target(m.group(1)) != target else re.sub(r"\s*<[^<>]*>\s*$", "", m.group(1))

    plain = TERM.sub(unlink, chapter)
    assert [p.entry.lower() for p in check_chapter(plain, entries, "heatmaps")] == [
        next(e[0] for e in entries if target.lower() in map(str.lower, e)).lower()]
