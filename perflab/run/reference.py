"""Reference runs: the recorded runs the book renders, and whether they still are the code that ships.

A reference is fresh when its run.json says it completed from a clean tree (`git_dirty: false`) at
a commit whose lab directory (`labs/<lab>/`) and lab images' build inputs (book.toml `[images.X]`:
the Dockerfile and `inputs`) equal today's, with the parameters that the full preset resolves to
today, the way an execution cache is keyed by content. The
package's analysis code is not part of the key on purpose: the book recomputes every metric and
check from the reference's raw data with today's code and fails when a recomputed check differs
from the recorded one (perflab.run.session), which catches a change there that matters.

    scripts/perflab references --check          # which references are stale, and why (exit 1 if any)
    scripts/perflab references                  # re-record every lab's reference (full preset)
    scripts/perflab references logzilla l2arc   # ... or these
    scripts/perflab references --repeats ht     # keep ht's reference, record its repeats anew
    (re-recording is perflab.run.rerecord's job)

A lab whose book.toml sets `reference_runs = N` gets N - 1 more runs of the same preset from the
same commit under data/reference/<lab>/repeats/<k>/, kept whatever their checks say, so that its
chapter can show the spread of its own result (Session.repeat_dirs and the compare panel's
`repeats`).

"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from perflab.config.manifest import Lab, Manifest

PRESET = "full"


def pathspecs(m: Manifest, lab: Lab) -> list[str]:
    """What a lab's reference depends on, as git pathspecs (relative to the project root): its
    images as built on the first Debian release, where every reference runs (--suite aside)."""
    specs = [f"labs/{lab.name}/"]
    for name in lab.images:
        im = m.images[name]
        specs.append(str((im.default_dockerfile or im.dockerfile).relative_to(m.root)))
        specs += [f":(glob){g}" for g in im.inputs]
    return specs


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60)


def staleness(m: Manifest, lab: Lab) -> list[str]:
    """Why the lab's reference is not the code that ships (empty: it is)."""
    f = m.root / "data" / "reference" / lab.name / "run.json"
    if not f.exists():
        return [f"no reference run ({f.relative_to(m.root)})"]
    return _run_staleness(m, lab, f) + _repeat_staleness(m, lab)


def _run_staleness(m: Manifest, lab: Lab, f: Path, what: str = "") -> list[str]:
    """Why one recorded run (its run.json) is not the code that ships: not complete, recorded dirty,
    or at a commit whose lab directory or images differ from today's."""
    doc = json.loads(f.read_text())
    prov = doc.get("provenance", {})
    out = []
    if doc.get("status") != "complete":
        out.append(f"{what}status {doc.get('status')!r}, not 'complete'")
    if prov.get("git_dirty") is not False:
        out.append(f"{what}recorded from a tree with uncommitted changes (git_dirty: {prov.get('git_dirty')})")
    out += _param_drift(lab, doc.get("params", {}), what)
    sha = prov.get("git_sha")
    if not sha or _git(m.root, "cat-file", "-e", f"{sha}^{{commit}}").returncode:
        out.append(f"{what}recorded at commit {sha}, which this repository does not have")
        return out
    diff = _git(m.root, "diff", "--name-only", sha, "--", *pathspecs(m, lab))
    if diff.returncode:
        out.append(f"{what}git diff failed: {diff.stderr.strip()}")
    elif diff.stdout.strip():
        files = diff.stdout.split()
        out.append(f"{what}changed since {sha[:10]}: {', '.join(files[:6])}" + (" ..." if len(files) > 6 else ""))
    return out


def _param_drift(lab: Lab, recorded: dict, what: str = "") -> list[str]:
    """A reference ran with the full preset's parameters as book.toml gives them today (a default
    or a preset changed there changes the run without touching labs/<lab>/)."""
    from perflab.config.params import resolve

    now = json.loads(json.dumps(resolve(lab, PRESET)))   # as run.json stores them
    diff = [f"{k} {recorded.get(k)!r} (now {now.get(k)!r})" for k in sorted(set(now) | set(recorded))
            if recorded.get(k) != now.get(k)]
    return [f"{what}recorded with other parameters: {', '.join(diff)}"] if diff else []


def repeat_dirs(reference_dir: Path) -> list[Path]:
    """The recorded repeats of a reference (data/reference/<lab>/repeats/<k>/), in order of k."""
    root = Path(reference_dir) / "repeats"
    found = [d for d in root.iterdir() if d.is_dir() and d.name.isdigit()] if root.is_dir() else []
    return sorted(found, key=lambda d: int(d.name))


def _repeat_staleness(m: Manifest, lab: Lab) -> list[str]:
    """A repeat is held to the same rule as the reference (keyed by content, not by the commit: a
    repeat may be recorded later than its reference, from a commit where the lab is the same)."""
    want = lab.reference_runs - 1
    reps = repeat_dirs(m.root / "data" / "reference" / lab.name)
    out = []
    if len(reps) != want:
        out.append(f"{len(reps)} repeat run(s) recorded, book.toml asks for {want} (reference_runs = "
                   f"{lab.reference_runs})")
    for d in reps:
        f = d / "run.json"
        out += _run_staleness(m, lab, f, f"repeat {d.name}: ") if f.exists() else [f"repeat {d.name}: no run.json"]
    return out


def check(m: Manifest, labs: list[str] | None = None) -> dict[str, list[str]]:
    names = labs or list(m.labs)
    return {n: staleness(m, m.lab(n)) for n in names}
