"""What watching a run costs it: a lab's smoke preset run without and with `--live` (fio's reports
once a second, json+ with its latency bins, and for a ZFS lab the emulated disks' per-I/O logs,
read by the page's server in the perflab process), interleaved (off, on, on, off, ...), and the lab's own results side by side
(prints figures; not a test).

    .venv/bin/python benchmarks/bench_live.py [--rounds 2] [--lab heatmaps]

For each metric: the median over the runs without and with the page, and their ratio (with / without).
The heatmaps lab's reads are rate-limited (its IOPS are set, not measured), so its latencies and
its calibration (the O_DIRECT reads' IOPS at queue depth 1) are what could move; logzilla's
synchronous writes are not, so its IOPS before and after the log device could move too. The runs' directories
are removed afterwards. No browser is attached: the page's server still reads every report.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METRICS = {"heatmaps": ["cached_p50_us", "direct_p50_us", "p99_all_us", "cached_mean_us", "direct_mean_us",
                        "direct_qd1_max_iops", "ios"],
           # ZFS on emulated disks (zfs-fuse; the slow disks' per-I/O logs feed the page's by-disk maps)
           "logzilla": ["iops_before", "iops_after", "iops_ratio", "p50_before_us", "p50_after_us",
                        "p99_before_us", "p99_after_us", "log_write_ops_per_s_after"]}


def one(lab: str, live: bool) -> dict:
    cmd = [str(ROOT / "scripts" / "perflab"), "run", lab, "--preset", "smoke", "-q", *(["--live"] if live else [])]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:   # the run directory is kept, to be read
        lines = r.stdout.strip().splitlines()
        failed = []
        if lines and (Path(lines[-1]) / "run.json").exists():
            doc = json.loads((Path(lines[-1]) / "run.json").read_text())
            failed = [f"{c['name']} = {c.get('value')} (expected {c.get('expected')})"
                      for c in doc.get("checks", []) if not c.get("passed") and not c.get("not_shown")]
        sys.exit(f"bench_live: {' '.join(cmd)} exited {r.returncode}"
                 + (f"; failed: {'; '.join(failed)}; kept {lines[-1]}" if failed else f": {r.stderr.strip()[-500:]}"))
    run_dir = Path(r.stdout.strip().splitlines()[-1])
    doc = json.loads((run_dir / "run.json").read_text())
    shutil.rmtree(run_dir, ignore_errors=True)
    return {**doc["metrics"], "duration_s": doc["provenance"].get("duration_s")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="pairs of runs (each pair: one without, one with)")
    ap.add_argument("--lab", default="heatmaps", choices=sorted(METRICS))
    a = ap.parse_args()
    runs = {False: [], True: []}
    order = [flag for k in range(a.rounds) for flag in ((False, True) if k % 2 == 0 else (True, False))]
    for i, live in enumerate(order, 1):
        runs[live].append(one(a.lab, live))
        print(f"run {i}/{len(order)}: {'with' if live else 'without'} --live", file=sys.stderr)
    print(f"{a.lab} smoke, {a.rounds} runs each, interleaved; median without | with | with / without"
          "   [each side's runs, lowest-highest]")
    for k in METRICS[a.lab] + ["duration_s"]:
        if any(r.get(k) is None for r in runs[False] + runs[True]):
            print(f"  {k:<22} (not recorded by every run)")
            continue
        off = statistics.median(r[k] for r in runs[False])
        on = statistics.median(r[k] for r in runs[True])
        span = " ".join(f"{min(r[k] for r in runs[x]):,.1f}-{max(r[k] for r in runs[x]):,.1f}" for x in (False, True))
        print(f"  {k:<22} {off:>12,.2f} | {on:>12,.2f} | {on / off:6.3f}   [{span.replace(' ', ' | ')}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
