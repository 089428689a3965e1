"""Publishing (issue 16): the GitHub Actions workflow that builds the book and deploys it to Pages
runs the same book build and checks as .ci/run; the status page says which references are stale;
every page's footer names the commit it was built from."""
import re
import subprocess

import pytest
import yaml

from perflab.book import sphinxext, status
from conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


@pytest.fixture(scope="module")
def wf():
    return yaml.safe_load(WORKFLOW.read_text())


def _runs(job) -> list[str]:
    return [s["run"] for s in job["steps"] if "run" in s]


def test_workflow_builds_on_push_to_main_and_deploys_to_pages(wf):
    on = wf.get("on", wf.get(True))    # YAML 1.1 reads a bare `on` as true
    assert on["push"]["branches"] == ["main"]
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    upload = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert len(upload) == 1 and upload[0]["with"]["path"] == "_build/html"
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


def test_workflow_runs_the_ci_book_build_and_browser_check(wf):
    """The book part of .ci/run (make test = every test, the book's included) is what the workflow
    runs: the README's book command, then the book and browser tests, which exist and are slow
    tests that make test runs."""
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    make = (ROOT / "Makefile").read_text()
    assert re.search(r"^book:", make, re.M) and re.search(r"^test:.*\n\t\$\(VENV\)/bin/pytest", make, re.M)
    runs = "\n".join(_runs(wf["jobs"]["build"]))
    assert "make book" in runs and "make venv" in runs
    pytest_line = next(line for line in runs.splitlines() if "pytest" in line)
    for t in ("tests/test_book.py", "tests/test_browser.py"):
        assert t in pytest_line and (ROOT / t).is_file()
    assert "chromium --version" in runs   # a missing browser fails the job instead of skipping its test


def test_workflow_installs_git_before_checkout_and_keeps_history(wf):
    steps = wf["jobs"]["build"]["steps"]
    first_checkout = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/checkout@"))
    installs = [i for i, s in enumerate(steps) if "apt-get install" in s.get("run", "")]
    assert installs and installs[0] < first_checkout
    pkgs = steps[installs[0]]["run"]
    for pkg in ("git", "python3-venv", "chromium", "make"):
        assert re.search(rf"(?<![\w-]){pkg}(?![\w-])", pkgs), pkg
    assert steps[first_checkout]["with"]["fetch-depth"] == 0


def test_status_page_says_fresh_or_stale_as_references_check_does(manifest, monkeypatch):
    df = status.chapter_status(manifest)
    labs = [c.lab for c in manifest.chapters if c.lab]
    assert list(df.lab) == labs
    fresh = set(df.lab[df.reference == "fresh"])
    assert all(v == "fresh" or v.startswith("STALE: ") or v == "none recorded" for v in df.reference)
    # make one lab stale the way staleness reports it, and see the page say so with the reason
    lab = sorted(fresh)[0] if fresh else labs[0]
    real = status.staleness
    monkeypatch.setattr(status, "staleness", lambda m, x: (["changed since 0123456789: labs/x/lab.py"]
                                                            if x.name == lab else real(m, x)))
    row = status.chapter_status(manifest).set_index("lab").loc[lab]
    assert row.reference == "STALE: changed since 0123456789: labs/x/lab.py"
    assert re.fullmatch(r"\d+/\d+ passed", row.checks) and row.chapter.startswith("[")


def test_footer_names_the_commit_and_the_state_of_the_tree():
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    html = sphinxext.footer_html(ROOT)
    assert f"<code>{sha[:7]}</code>" in html and "(UTC)" in html and 'href="build-status.html"' in html


def test_feature_table_matches_the_labs_requires(manifest):
    """docs/machines.md (what runs where, linked from the README): each kernel feature's row names
    exactly the labs whose book.toml `requires` has it (docker: all)."""
    text = (ROOT / "docs" / "machines.md").read_text()
    text = text.split("\n## The kernel features the labs need\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("feature", "---"):
            rows[cells[0]] = cells[1]
    feature_of = {"docker": "a Docker engine", "fuse": "FUSE", "zram": "zram", "loop": "loop devices",
                  "root": "loop devices", "tc-tbf": "tc `tbf`", "host-pids": "the kernel's process ids"}
    want: dict[str, set] = {}
    for name, lab in manifest.labs.items():
        for req in lab.requires:
            want.setdefault(next(k for k in rows if k.startswith(feature_of[req])), set()).add(name)
    for row, labs in want.items():
        listed = rows[row]
        if listed == "all":
            assert labs == set(manifest.labs), row
        else:
            assert {x.strip() for x in listed.split("(")[0].split(",")} == labs, row


def test_execution_table_marks_become_words():
    """myst-nb's nb-exec-table marks (an emoji a machine without an emoji font draws as a box)."""
    from docutils import nodes

    table = nodes.table("", nodes.tgroup("", nodes.tbody("", nodes.row("", nodes.entry("", nodes.paragraph(text="\u2705")),
                                                                         nodes.entry("", nodes.paragraph(text="\u274c"))))))
    doc = nodes.document(None, None)
    doc += table
    sphinxext._status_words(None, doc, "x")
    assert [t.astext() for t in doc.findall(nodes.Text)] == ["ran", "failed"]
