"""Reference runs: the recorded runs the book renders, and whether they still are the code that ships.

A reference is fresh when its run.json says it completed from a clean tree (`git_dirty: false`) at
a commit whose lab directory (`labs/<lab>/`) and lab images' build inputs (book.toml `[images.X]`:
the Dockerfile and `inputs`) equal today's, with the parameters that the full preset resolves to
today, the way an execution cache is keyed by content. The
package's analysis code is not part of the key on purpose: the book recomputes every metric and
check from the reference's raw data with today's code and fails when a recomputed check differs
from the recorded one (perflab.session), which catches a change there that matters.

    scripts/perflab references --check          # which references are stale, and why (exit 1 if any)
    scripts/perflab references                  # re-record every lab's reference (full preset)
    scripts/perflab references logzilla l2arc   # ... or these
    scripts/perflab references --repeats ht     # keep ht's reference, record its repeats anew

A lab whose book.toml sets `reference_runs = N` gets N - 1 more runs of the same preset from the
same commit under data/reference/<lab>/repeats/<k>/, kept whatever their checks say, so that its
chapter can show the spread of its own result (Session.repeat_dirs and the compare panel's
`repeats`).

Re-recording refuses a dirty tree (changes under data/reference/ aside: the references being
written are the command's own output), runs one lab after another (one lab at a time per machine)
and says how long each took.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .manifest import Lab, Manifest
from .provenance import git_state

PRESET = "full"


def pathspecs(m: Manifest, lab: Lab) -> list[str]:
    """What a lab's reference depends on, as git pathspecs (relative to the project root)."""
    specs = [f"labs/{lab.name}/"]
    for name in lab.images:
        im = m.images[name]
        specs.append(str(im.dockerfile.relative_to(m.root)))
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
    from .params import resolve

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


def record(m: Manifest, labs: list[str] | None = None, out=sys.stderr, repeats_only: bool = False) -> int:
    """Re-record the references of `labs` (default: every lab) with the full preset, one after
    another. A lab that does not complete with every check passed keeps its old reference, and the
    others go on. Returns the exit status of the first such lab, else 0. `repeats_only`: keep each
    reference, and record its repeats anew (a reference that is not fresh is refused: its repeats
    would describe other code)."""
    from . import runner

    names = labs or list(m.labs)
    for n in names:
        m.lab(n)  # an unknown name is refused before anything runs
    if git_state(m.root)["git_dirty"] is not False:
        raise runner.Refused("re-recording references needs a clean tree (commit first): a reference "
                             "names the commit it was recorded from")
    if repeats_only:
        for n in names:
            main = [w for w in staleness(m, m.lab(n)) if not w.startswith("repeat") and "repeat run(s)" not in w]
            if main:
                raise runner.Refused(f"{n}: the reference itself is not fresh ({'; '.join(main)}): "
                                     "re-record it, repeats and all, without --repeats")
    times, failed = {}, {}
    t_all = time.time()
    for i, n in enumerate(names, 1):
        print(f"perflab references: {i}/{len(names)} {n} ({PRESET}{', repeats' if repeats_only else ''})",
              file=out, flush=True)
        t = time.time()
        if repeats_only:
            shutil.rmtree(m.root / "data" / "reference" / n / "repeats", ignore_errors=True)
            rc = 0
        else:
            rc = runner.run(m, n, PRESET, [], record=True, quiet=True)
            print(f"perflab references: {n}: exit {rc} in {time.time() - t:.0f} s"
                  + ("" if rc == 0 else " (not recorded; its run directory is the line above)"), file=out,
                  flush=True)
        # the repeats: the same preset from the same commit, kept whatever their checks say
        runs = m.lab(n).reference_runs if rc == 0 else 1
        for k in range(2, runs + 1):
            t_k = time.time()
            rc_k = runner.run(m, n, PRESET, [], record=True, quiet=True, repeat=k)
            print(f"perflab references: {n}: repeat {k}/{runs}: exit {rc_k} in {time.time() - t_k:.0f} s"
                  + (" (not recorded)" if rc_k not in (0, runner.EXIT_CHECK) else ""), file=out, flush=True)
            if rc_k not in (0, runner.EXIT_CHECK):
                rc = rc_k
                break
        times[n] = time.time() - t
        if rc == runner.EXIT_INTERRUPTED:
            return rc
        if rc != 0:
            failed[n] = rc
    total = time.time() - t_all
    print("perflab references: " + ", ".join(f"{n} {t:.0f} s" for n, t in times.items())
          + f"; total {total / 60:.1f} min"
          + (f"; not recorded: {', '.join(failed)}" if failed else ""), file=out)
    return next(iter(failed.values()), 0)
