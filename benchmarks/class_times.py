"""How long one student's run takes, per lab: the figures the instructor guide plans a class from
(prints them; writes data/timings/class.json). Not a test.

    .venv/bin/python benchmarks/class_times.py [LAB ...] [--smoke LAB ...] [--keep]

For each LAB with a mystery variant (default: all of them), a one-student class is assigned (seed
"class-times") and that student's variant is run with `scripts/perflab run LAB --variant`, as a
student would; for each `--smoke` LAB, `scripts/perflab run LAB --preset smoke`. The wall time
of each command (containers, the lab, the notebook) is what is recorded, with the run's id, the
commit and the machine. Labs run one after another (one lab at a time per machine, as in class).
The runs' directories are removed afterwards unless --keep; the class goes to a temporary
directory, removed at the end.
"""
from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perflab.config import manifest  # noqa: E402
from perflab.run import provenance  # noqa: E402
from perflab.run.record import write_json_atomic  # noqa: E402
from perflab.teaching import classplan, spec as specs  # noqa: E402

PERFLAB = str(ROOT / "scripts" / "perflab")


def timed(cmd: list[str]) -> tuple[float, str]:
    """Wall seconds of a perflab command and the run directory it printed last."""
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t
    if r.returncode != 0:
        sys.exit(f"class_times: {' '.join(cmd[1:])}: exit {r.returncode}\n{r.stderr[-1500:]}")
    return wall, r.stdout.strip().splitlines()[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("labs", nargs="*", help="labs with a mystery variant (default: all)")
    ap.add_argument("--smoke", nargs="*", default=[], help="labs timed with their smoke preset")
    ap.add_argument("--keep", action="store_true", help="keep the runs' directories")
    a = ap.parse_args()
    m = manifest.load()
    mystery = a.labs or specs.labs_with_mystery(m)
    for lab in mystery:
        specs.spec(m, lab)   # refuses a lab without a mystery before anything runs
    for lab in a.smoke:
        m.lab(lab)
    git = provenance.git_state(m.root)
    out = {"format": classplan.FORMAT,
           "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "git_sha": git["git_sha"], "git_dirty": git["git_dirty"],
           "machine": {k: provenance.host()[k] for k in ("cpus", "cpu", "memory_bytes", "kernel")},
           "labs": {}}
    runs = []
    with tempfile.TemporaryDirectory(prefix="perflab-class-times-") as tmp:
        roster = Path(tmp) / "roster.csv"
        roster.write_text("id,name\nt1,Timing\n")
        for lab in mystery:
            cls = Path(tmp) / lab
            timed([PERFLAB, "assign", lab, "--students", str(roster), "--seed", "class-times", "--out", str(cls)])
            wall, run_dir = timed([PERFLAB, "run", lab, "--variant", str(cls / "t1" / "variant.json")])
            runs.append(run_dir)
            out["labs"][lab] = {"kind": "mystery", "preset": specs.spec(m, lab).preset, "wall_s": round(wall, 1),
                                "run_id": Path(run_dir).name}
            print(f"{lab:12s} mystery  {wall / 60:5.2f} min  ({Path(run_dir).name})", flush=True)
        for lab in a.smoke:
            wall, run_dir = timed([PERFLAB, "run", lab, "--preset", "smoke"])
            runs.append(run_dir)
            out["labs"][lab] = {"kind": "smoke", "preset": "smoke", "wall_s": round(wall, 1),
                                "run_id": Path(run_dir).name}
            print(f"{lab:12s} smoke    {wall / 60:5.2f} min  ({Path(run_dir).name})", flush=True)
    target = m.root / classplan.TIMINGS
    target.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(target, out)
    print(f"class_times: wrote {target.relative_to(m.root)} (commit {out['git_sha'][:10]}"
          f"{', dirty' if out['git_dirty'] else ''})")
    if not a.keep:
        for d in runs:
            shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
