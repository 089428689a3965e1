"""`perflab references`: re-record the labs' reference runs from a clean commit, one lab after
another, with the repeats book.toml asks for (`reference_runs`); what makes a reference fresh is
perflab.run.reference's job.

Re-recording refuses a dirty tree (changes under data/reference/ aside: the references being
written are the command's own output), runs one lab after another (one lab at a time per machine)
and says how long each took.
"""
from __future__ import annotations

import shutil
import sys
import time

from perflab.config.manifest import Manifest
from perflab.errors import Refused
from perflab.config.options import RunOptions
from perflab.run import runner
from perflab.run.provenance import git_state
from perflab.run.reference import PRESET, staleness


def record(m: Manifest, labs: list[str] | None = None, out=sys.stderr, repeats_only: bool = False) -> int:
    """Re-record the references of `labs` (default: every lab) with the full preset, one after
    another. A lab that does not complete with every check passed keeps its old reference, and the
    others go on. Returns the exit status of the first such lab, else 0. `repeats_only`: keep each
    reference, and record its repeats anew (a reference that is not fresh is refused: its repeats
    would describe other code)."""
    names = labs or list(m.labs)
    for n in names:
        # an unknown name, or a choice no reference runs under (PERFLAB_SUITE), is refused before
        # anything runs or is removed; references run under the default options (runner.run's)
        runner.check_recordable(m, m.lab(n), RunOptions())
    if git_state(m.root)["git_dirty"] is not False:
        raise Refused("re-recording references needs a clean tree (commit first): a reference "
                             "names the commit it was recorded from")
    if repeats_only:
        for n in names:
            main = [w for w in staleness(m, m.lab(n)) if not w.startswith("repeat") and "repeat run(s)" not in w]
            if main:
                raise Refused(f"{n}: the reference itself is not fresh ({'; '.join(main)}): "
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
