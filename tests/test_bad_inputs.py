"""A corpus of bad input, through the real command line (`python -m perflab` in a subprocess, as a
user meets it; no perflab module is imported here).

For every case the documented contract (docs/commands.md "Exit statuses", perflab/errors.py) is held:

- the documented exit status (2: refused before anything was created);
- exactly one line on stderr, and no "Traceback" on stdout or stderr;
- the line names the bad thing (the parameter and value, the key, the file, the lab);
- nothing was created: the PERFLAB_ROOT tree (data/runs/ included), the repository's tree and the
  case's tmp_path list the same paths before and after (data/runs/perflab-errors.log aside, where
  the full text of a failure is documented to go). `run` cases all use --dry-run, so no case can
  reach Docker. So that a lab or a book build running beside the suite cannot fail a case, what
  such work writes is not counted: files added inside run directories that existed before the case,
  a new run directory whose owner.json names another process, test-artifacts/ and _build/, and
  Python sources appearing under perflab/ and tests/ (modules being moved).

The fast suite runs this module (no `docker` or `slow` marker: `make` runs it under
`-m "not docker and not slow"`); about 20 s for ~60 subprocesses.

A case that breaks the contract today is marked `broken(reason, *properties)`: a strict xfail that
expects exactly those properties to fail (KnownDefect). Every other property of the case is still
asserted as usual, so a new failure fails the test, and a fixed defect fails it too (XPASS strict)
until its mark is removed.

tests/test_errors.py drives perflab.cli.main in-process for a few similar cases; the ones here that
repeat one of them (through the subprocess, with every property above) say so ("# overlap").
"""
from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

ROOT = __import__("conftest").ROOT
DATA = ROOT / "tests" / "data"
ERROR_LOG = Path("data", "runs", "perflab-errors.log")   # documented: where a failure's full text goes
SKIP_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", "node_modules"}
NOT_WATCHED = (ROOT / "test-artifacts", ROOT / "_build")   # the tests' evidence, the book build's output

STATUS, ONE_LINE, NO_TRACEBACK, NAMES, NOTHING_CREATED = (
    "status", "one line", "no traceback", "names", "creates nothing")


class KnownDefect(AssertionError):
    """A property a case is marked `broken` for does not hold (the expected failure)."""


@dataclass(frozen=True)
class Case:
    argv: tuple                       # after `python -m perflab`; {placeholders} filled per test
    status: int                       # the documented exit status
    names: tuple                      # what the stderr line must contain ({placeholders} too)
    make: Callable | None = None      # make(ctx): writes the inputs under ctx["tmp"], adds placeholders
    book: Callable | None = None      # book(text, ctx) -> book.toml of a copied PERFLAB_ROOT (None: none)
    needs_class: bool = False         # uses the mystery-class fixture ({variant}, {key})
    broken: frozenset = frozenset()   # the properties that fail today (see `broken`)


def case(cid, argv, status, *names, make=None, book=None, defect=None):
    c = Case(tuple(argv.split()), status, names, make, book,
             needs_class=any(s in argv for s in ("{variant}", "{key}")) or make in VARIANT_MAKERS,
             broken=frozenset(defect[1:]) if defect else frozenset())
    marks = [pytest.mark.xfail(strict=True, raises=KnownDefect, reason=defect[0])] if defect else []
    return pytest.param(c, id=cid, marks=marks)


def broken(reason, *properties):
    assert properties and set(properties) <= {STATUS, ONE_LINE, NO_TRACEBACK, NAMES, NOTHING_CREATED}
    return (reason, *properties)


# ------------------------------------------------------------------ inputs (written under tmp_path)

def _fio_log_with(line: int, field: int, value: str):
    """The real fio 3.33 per-I/O log (tests/data) with one field of one line (1-based) replaced."""
    def make(ctx):
        lines = (DATA / "fio333_randread_clat.1.log").read_text().splitlines(keepends=True)
        fields = lines[line - 1].rstrip("\n").split(", ")
        fields[field] = value
        lines[line - 1] = ", ".join(fields) + "\n"
        (ctx["tmp"] / "bad_clat.1.log").write_text("".join(lines))
    return make


def _hist_log_with_text(ctx):
    lines = (DATA / "fio333_randread_clat_hist.1.log").read_text().splitlines(keepends=True)
    fields = lines[1].split(", ")
    fields[10] = "many"
    lines[1] = ", ".join(fields)
    (ctx["tmp"] / "bad_clat_hist.1.log").write_text("".join(lines))


def _fio_log_cut_mid_line(ctx):
    text = (DATA / "fio333_randread_clat.1.log").read_text()
    ctx["last"] = len(text.splitlines())
    (ctx["tmp"] / "bad_clat.1.log").write_text(text[:-7])


def _empty_log(ctx):
    (ctx["tmp"] / "bad_clat.1.log").write_bytes(b"")


def _binary_log(ctx):
    (ctx["tmp"] / "bad_clat.1.log").write_bytes(bytes(range(256)) * 8)


def _gzip_cut_short(ctx):
    whole = gzip.compress((DATA / "fio333_randread_clat.1.log").read_bytes())
    (ctx["tmp"] / "bad_clat.1.log.gz").write_bytes(whole[:len(whole) // 2])


def _directory(ctx):
    (ctx["tmp"] / "bad_clat.1.log").mkdir()


def _edited_variant(after: bytes, old: bytes | None = None, new: bytes | None = None, skip: int = 0):
    """alice's variant.json with one byte changed: the one `skip` bytes after `after` (which must be
    `old`, if given) becomes `new` (default: another base64 character)."""
    def make(ctx):
        data = bytearray(Path(ctx["variant"]).read_bytes())
        i = data.index(after) + len(after) + skip
        assert old is None or data[i:i + 1] == old, bytes(data)
        data[i:i + 1] = new or (b"B" if data[i:i + 1] == b"A" else b"A")
        out = ctx["tmp"] / "variant.json"
        out.write_bytes(bytes(data))
        ctx["edited"] = out
    return make


def _variant_not_json(ctx):
    out = ctx["tmp"] / "variant.json"
    out.write_text('lab = "bad-cable"\nstudent = "alice"\n')    # TOML, not JSON
    ctx["edited"] = out


_edited_sealed = _edited_variant(b'"sealed": "sealed1:', skip=40)   # inside the sealed text
_edited_fixed = _edited_variant(b'"clients": "', b"4", b"3")
_edited_student = _edited_variant(b'"student": "', b"a", b"o")
VARIANT_MAKERS = {_edited_sealed, _edited_fixed, _edited_student, _variant_not_json}


# ------------------------------------------------------------------ book.toml edits (in a copy)

def _table(text: str, header: str) -> tuple[int, int]:
    """Start and end offsets of the table `header` (its header line to the next table's)."""
    m = re.search(r"^" + re.escape(header) + r"[ \t]*$", text, re.M)
    assert m, f"book.toml has no {header} table any more: update this case"
    nxt = re.compile(r"^\[", re.M).search(text, m.end())
    return m.start(), nxt.start() if nxt else len(text)


def _in_table(header: str, pattern: str, repl: str):
    def edit(text, ctx):
        a, b = _table(text, header)
        part, n = re.subn(pattern, repl, text[a:b], count=1, flags=re.M)
        assert n == 1, f"{header} has no line matching {pattern!r} any more: update this case"
        return text[:a] + part + text[b:]
    return edit


def _without_params(text, ctx):
    """[labs.heatmaps.params] removed: every [labs.heatmaps.params.X] table."""
    out, n = re.subn(r"^\[labs\.heatmaps\.params\.[^\]]+\]\n(?:(?!\[).*\n)*", "", text, flags=re.M)
    assert n, "book.toml has no [labs.heatmaps.params.*] tables any more: update this case"
    return out


def _syntax_error(text, ctx):
    a, b = _table(text, "[labs.heatmaps]")
    m = re.compile(r'^title = "[^"\n]*(")', re.M).search(text, a, b)
    assert m, "[labs.heatmaps] has no title any more: update this case"
    ctx["line"] = text.count("\n", 0, m.start()) + 1
    return text[:m.start(1)] + text[m.end(1):]   # the closing quote of its title removed


def _no_book(text, ctx):
    return None


# ------------------------------------------------------------------ the corpus

HM = "run heatmaps --dry-run"
LOG = "heatmap {tmp}/bad_clat.1.log"

CASES = [
    # --- lab names
    case("run-unknown-lab", "run no-such-lab --dry-run", 2, "'no-such-lab'"),    # overlap: test_errors
    case("run-lab-typo", "run heatmap --dry-run", 2, "'heatmap'", "did you mean 'heatmaps'?"),
    case("labs-unknown-lab", "labs no-such-lab", 2, "no-such-lab"),
    case("labs-lab-typo", "labs heatmap", 2, "'heatmap'", "did you mean 'heatmaps'?"),
    case("references-check-unknown-lab", "references --check no-such-lab", 2, "'no-such-lab'"),
    case("references-check-lab-typo", "references --check heatmap", 2, "'heatmap'", "did you mean 'heatmaps'?"),

    # --- parameters, every type (book.toml [labs.X.params])
    case("param-duration-below-min", HM + " -p runtime=1s", 2, "runtime=1s", "minimum 5s"),
    case("param-duration-syntax", HM + " -p runtime=10parsecs", 2, "runtime='10parsecs'", "not a duration"),
    case("param-size-syntax", HM + " -p file_size=12XB", 2, "file_size='12XB'", "not a size"),
    case("param-size-not-multiple", HM + " -p bs=1000", 2, "bs=1000B", "multiple of 512B"),
    case("param-int-wrong-type", HM + " -p rate_iops=fast", 2, "rate_iops='fast'", "not a whole number"),
    case("param-int-given-a-fraction", HM + " -p rate_iops=2.5", 2, "rate_iops='2.5'"),
    case("param-float-wrong-type", HM + " -p direct_share=lots", 2, "direct_share='lots'", "not a number"),
    case("param-choice-typo", HM + " -p capture=perios", 2, "capture='perios'", "did you mean 'perio'?"),
    case("param-unknown-typo", HM + " -p runtme=30s", 2, "'runtme'", "did you mean 'runtime'?"),
    case("param-without-value", HM + " -p runtime", 2, "'runtime'", "key=value"),
    # --- a learner's machine's choices (perflab run --cpus, --scratch)
    case("cpus-zero", HM + " --cpus 0", 2, "--cpus 0", "from 0.01 to"),
    case("cpus-not-a-number", HM + " --cpus half", 2, "--cpus half", "from 0.01 to"),
    case("scratch-missing", HM + " --scratch {tmp}/no-such-dir", 2, "--scratch {tmp}/no-such-dir", "no such directory"),
    case("conditions-unknown", "conditions heatmaps --condition slow-dsik", 2, "slow-dsik", "slow-disk"),
    case("param-two-bad-at-once", HM + " -p rate_iops=2.5 -p runtime=1s", 2, "rate_iops", "runtime=1s"),
    case("preset-typo", HM + " --preset smok", 2, "'smok'", "did you mean 'smoke'?"),
    case("preset-unknown", "run jbod --preset quick --dry-run", 2, "'quick'", "jbod"),
    case("param-bool-wrong-type", "run ht -p neighbours=maybe --dry-run", 2, "neighbours='maybe'", "true/false"),
    case("param-intlist-syntax", "run ht -p block_sizes_kib=4,x --dry-run", 2, "block_sizes_kib='4,x'"),
    case("param-intlist-repeated", "run ht -p block_sizes_kib=4,4 --dry-run", 2, "block_sizes_kib=4,4", "twice"),
    case("param-size-above-max", "run ht -p dram_set=4GiB --dry-run", 2, "dram_set=4GiB", "maximum 2GiB"),
    case("param-below-another-param", "run ht -p cache_set=4KiB -p bs=8KiB --dry-run", 2, "cache_set=4KiB",
         "the value of bs"),
    case("param-intlist-above-another-param", "run jbod -p single_path=2,9 --dry-run", 2, "single_path=2,9",
         "the value of jbods"),
    case("param-int-above-another-param", "run bad-cable -p bad_client=7 --dry-run", 2, "bad_client=7",
         "the value of clients"),
    case("param-hosts-file-missing", "run bad-cable -p hosts={tmp}/hosts.list --dry-run", 2, "{tmp}/hosts.list"),

    # --- heat-map inputs
    case("log-non-numeric-time", LOG, 2, "{tmp}/bad_clat.1.log:8:", "not an unsigned integer", make=_fio_log_with(8, 0, "5ms")),
    case("log-non-numeric-ddir", LOG, 2, "{tmp}/bad_clat.1.log:8:", make=_fio_log_with(8, 2, "read")),
    case("hist-log-non-numeric-bin", "heatmap {tmp}/bad_clat_hist.1.log", 2, "{tmp}/bad_clat_hist.1.log:2:",
         make=_hist_log_with_text),
    case("log-truncated-last-line", LOG, 2, "{tmp}/bad_clat.1.log:{last}:", "truncated last line",
         make=_fio_log_cut_mid_line),
    case("log-empty", LOG, 2, "{tmp}/bad_clat.1.log", make=_empty_log),
    case("log-binary", LOG, 2, "{tmp}/bad_clat.1.log", make=_binary_log),
    case("log-gzip-cut-short", "heatmap {tmp}/bad_clat.1.log.gz", 2, "{tmp}/bad_clat.1.log.gz", make=_gzip_cut_short),
    case("log-missing", "heatmap {tmp}/gone_clat.1.log", 2, "{tmp}/gone_clat.1.log"),   # overlap: test_errors
    case("log-is-a-directory", LOG, 2, "{tmp}/bad_clat.1.log", make=_directory),
    case("html-unwritable", "heatmap {log} --html /proc/x.html", 2, "/proc/x.html"),
    case("csv-in-missing-directory", "heatmap {log} --csv {tmp}/no/such/c.csv", 2,   # overlap: test_errors
         "{tmp}/no/such"),
    case("csv-written-then-html-unwritable", "heatmap {log} --csv {tmp}/map.csv --html /proc/x.html", 2,
         "/proc/x.html"),
    case("save-written-then-csv-unwritable", "heatmap {log} --save {tmp}/map.npz --csv {tmp}/no/such/c.csv", 2,
         "{tmp}/no/such"),
    case("option-wrong-type", "heatmap {log} --col wide", 2, "--col", "'wide'"),
    case("linear-width-zero", "heatmap {log} --linear-us 0", 2, "linear"),

    # --- mystery variants (a one-student class made by `perflab assign bad-cable`: the fixture)
    case("variant-of-another-lab", "run jbod --variant {variant} --dry-run", 2, "{variant}", "bad-cable", "jbod"),
    case("variant-sealed-byte-changed", "run bad-cable --variant {edited} --dry-run", 2, "{edited}",
         make=_edited_sealed),
    case("variant-fixed-byte-changed", "run bad-cable --variant {edited} --dry-run", 2, "{edited}",
         make=_edited_fixed),
    case("variant-student-byte-changed", "run bad-cable --variant {edited} --dry-run", 2, "{edited}",
         make=_edited_student),
    case("variant-not-json", "run bad-cable --variant {edited} --dry-run", 2, "{edited}", make=_variant_not_json),

    # --- grade, clean
    case("grade-key-missing", "grade --key {tmp}/no-key.json {tmp}", 2, "{tmp}/no-key.json"),
    case("grade-key-not-a-key", "grade --key {variant} {tmp}", 2, "{variant}", "not a perflab answer key"),
    case("grade-submission-missing", "grade --key {key} {tmp}/no-such-run", 2, "{tmp}/no-such-run"),
    case("grade-class-dir-missing", "grade --key {key} --class {tmp}/no-such-class", 2, "{tmp}/no-such-class"),
    case("clean-unknown-run", "clean --run no-such-run", 2, "no-such-run"),

    # --- book.toml problems (a copy of book.toml, chapters/ and labs/ as PERFLAB_ROOT)
    case("book-missing-params-table", HM, 2, "book.toml", "labs.heatmaps.params", book=_without_params),
    case("book-string-for-integer", HM, 2, "book.toml", "labs.heatmaps.reference_runs", "'3'",
         book=_in_table("[labs.heatmaps]", r"^reference_runs = 3\b", 'reference_runs = "3"')),
    case("book-string-for-disk-factor", HM, 2, "book.toml", "disk", "file_size",
         book=_in_table("[labs.heatmaps]", r"^disk = \{ file_size = 1 \}", 'disk = { file_size = "one" }')),
    case("book-string-for-int-default", HM, 2, "book.toml", "rate_iops",
         book=_in_table("[labs.heatmaps.params.rate_iops]", r"^default = 2000$", 'default = "fast"')),
    case("lab-unsupported-on-suite", HM + " --suite trixie", 2, "lab heatmaps does not run on the trixie images yet",
         "a reason given for this test", "allowed: --suite bookworm",
         book=_in_table("[labs.heatmaps]", r"^requires =", 'unsupported = { trixie = "a reason given for this test" }\nrequires =')),
    case("book-key-typo", HM, 2, "book.toml", "[labs.heatmaps]", "'requries'", "did you mean 'requires'?",
         book=_in_table("[labs.heatmaps]", r"^requires =", "requries =")),
    case("book-toml-syntax", HM, 2, "book.toml", "not valid TOML", "line {line}", book=_syntax_error),
    case("book-missing", "labs", 2, "{root}/book.toml", book=_no_book),
]


# ------------------------------------------------------------------ the test

@pytest.fixture(scope="module")
def mystery_class(tmp_path_factory):
    """A one-student class for bad-cable, made by the real `perflab assign`."""
    d = tmp_path_factory.mktemp("class")
    (d / "roster.csv").write_text("id,name\nalice,Alice\n")
    r, _ = perflab(["assign", "bad-cable", "--students", str(d / "roster.csv"), "--seed", "bad inputs",
                    "--out", str(d / "out")], ROOT)
    assert r.returncode == 0, r.stderr
    variant, key = d / "out" / "alice" / "variant.json", d / "out" / "instructor" / "key.json"
    assert variant.is_file() and key.is_file(), r.stderr
    return {"variant": variant, "key": key}


def perflab(argv, root: Path):
    """The real command line; returns the finished process and its pid."""
    p = subprocess.Popen([sys.executable, "-m", "perflab", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env={**os.environ, "PERFLAB_ROOT": str(root)})
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise
    return subprocess.CompletedProcess(p.args, p.returncode, out, err), p.pid


def listing(top: Path) -> set[Path]:
    out = set()
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and Path(d, x) not in NOT_WATCHED]
        out.update(Path(d, x) for x in (*dirs, *files))
    return out


def _another_process_run(d: Path, pid: int) -> bool:
    try:
        return json.loads((d / "owner.json").read_text())["pid"] != pid
    except (OSError, ValueError, KeyError, TypeError):
        return False


def created(before: set[Path], after: set[Path], roots, pid: int) -> set[Path]:
    """New paths, but for the documented error log (and data/runs/ made to hold it), for what runs
    of other processes write (see the module's docstring), and for the repository's Python sources,
    which may be moving while this runs (perflab/, tests/)."""
    new = after - before
    for root in roots:
        runs = (root / ERROR_LOG).parent
        new -= {root / ERROR_LOG} | ({runs, runs.parent} if root / ERROR_LOG in after else set())
        others = {d for d in before if d.parent == runs and d.is_dir()}
        others |= {d for d in new if d.parent == runs and d.is_dir() and _another_process_run(d, pid)}
        new = {p for p in new if not any(o == p or o in p.parents for o in others)}
    moving = (ROOT / "perflab", ROOT / "tests")
    return {p for p in new if not (any(m in p.parents for m in moving) and (p.suffix == ".py" or p.is_dir()))}


def copy_root(c: Case, ctx) -> Path:
    root = ctx["tmp"] / "root"
    root.mkdir()
    text = c.book((ROOT / "book.toml").read_text(), ctx)
    if text is not None:
        for d in ("chapters", "labs", "containers/seccomp"):   # the files book.toml names
            shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
        (root / "book.toml").write_text(text)
    return root


@pytest.mark.parametrize("c", CASES)
def test_bad_input(c: Case, tmp_path, request):
    ctx = {"tmp": tmp_path, "log": tmp_path / "good_clat.1.log", "root": ROOT}
    shutil.copy(DATA / "fio333_randread_clat.1.log", ctx["log"])
    if c.needs_class:
        ctx.update(request.getfixturevalue("mystery_class"))
    if c.make:
        c.make(ctx)
    if c.book:
        ctx["root"] = copy_root(c, ctx)
    argv = [a.format(**ctx) for a in c.argv]
    names = [n.format(**ctx) for n in c.names]
    watched = (ROOT, tmp_path)
    before = set().union(*map(listing, watched))
    r, pid = perflab(argv, ctx["root"])
    made = created(before, set().union(*map(listing, watched)), {ROOT, ctx["root"]}, pid)

    lines = r.stderr.splitlines()
    failed = {
        STATUS: r.returncode != c.status,
        ONE_LINE: len(lines) != 1,
        NO_TRACEBACK: "Traceback" in r.stdout + r.stderr,
        NAMES: not all(n in r.stderr for n in names),
        NOTHING_CREATED: bool(made),
    }
    what = (f"perflab {' '.join(argv)}\n  exit {r.returncode} (documented: {c.status})\n"
            f"  stderr ({len(lines)} lines): {r.stderr!r}\n  stdout: {r.stdout[-600:]!r}\n"
            f"  must name: {names}\n  created: {sorted(map(str, made))}")
    unexpected = [p for p, bad in failed.items() if bad and p not in c.broken]
    assert not unexpected, f"{', '.join(unexpected)} failed:\n{what}"
    fixed = [p for p in c.broken if not failed[p]]
    if fixed and len(fixed) < len(c.broken):
        pytest.fail(f"{', '.join(fixed)} now hold: take them out of this case's broken(...):\n{what}")
    if c.broken and not fixed:
        raise KnownDefect(f"{', '.join(sorted(c.broken))} failed (the known defect):\n{what}")
