"""Benchmark of `perflab heatmap --summary`: what the mode pass (perflab/analysis/heatmap/modes.py)
adds to the command, on the heatmaps lab's reference (prints figures; not a test).

    .venv/bin/python benchmarks/bench_modes.py [--rounds 9] [--repeat 20]

1. Whole command, side by side: `perflab heatmap LOGS --csv X` (the map from the reference's two
   histogram logs, its cells to a CSV) and `perflab heatmap LOGS --csv X --summary` (the same, and
   the modes of every column and of the whole map, printed, their per-column figures to
   X.modes.csv), each a new process as scripts/perflab runs it, interleaved over --rounds rounds
   with the order alternated: the median wall time of each, and the median of the rounds'
   differences (what --summary adds).
2. In one process: building the map (`from_hist_log` on the two logs) and the mode pass alone
   (`modes.map_modes`: every column, then the whole map), best of --repeat each; the mode pass's
   cost per million events of the map, and per column. The pass's work grows with the columns
   and the buckets that hold events, not with the events: the same map with every count x100
   (100x the events, the same columns) is timed too, to show it.

Ratios are measured side by side in one run; the machine's load moves both.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perflab.analysis import heatmap as H  # noqa: E402
from perflab.analysis.heatmap import modes  # noqa: E402
from bench_pipeline import best_of  # noqa: E402  (this folder: sys.path[0] when run as a script)

PY = sys.executable
LOGS = sorted((ROOT / "data" / "reference" / "heatmaps" / "fio").glob("*_clat_hist.*.log.gz"))
#: As bench_startup.py runs the command: `python -m perflab` from the repository's root, no
#: PYTHONPATH, with Python's bytecode cache (the first, untimed run writes it).
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}


def say(*a) -> None:
    print(*a, flush=True)


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=ENV, cwd=ROOT)
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9, help="interleaved rounds of the two whole commands")
    ap.add_argument("--repeat", type=int, default=20, help="in-process timings: best of this many")
    a = ap.parse_args(argv)
    if len(LOGS) != 2:
        say(f"expected the heatmaps reference's two histogram logs, found {len(LOGS)}: {LOGS}")
        return 1
    names = " ".join(str(p.relative_to(ROOT)) for p in LOGS)
    say(f"machine: {os.cpu_count()} CPUs, python {sys.version.split()[0]}; logs: {names} "
        f"({sum(p.stat().st_size for p in LOGS):,} bytes)")

    with tempfile.TemporaryDirectory(prefix="perflab-bench-") as tmp:
        csv = Path(tmp) / "cells.csv"
        base = [PY, "-m", "perflab", "heatmap", *map(str, LOGS), "--csv", str(csv)]
        cmds = {"--csv": base, "--csv --summary": base + ["--summary"]}
        for cmd in cmds.values():   # warm the page cache and the bytecode cache
            wall(cmd)
        if not (Path(tmp) / "cells.modes.csv").exists():
            say("--summary wrote no cells.modes.csv")
            return 1
        times: dict[str, list[float]] = {k: [] for k in cmds}
        for r in range(a.rounds):
            order = list(cmds) if r % 2 == 0 else list(cmds)[::-1]
            for k in order:
                times[k].append(wall(cmds[k]))
        diffs = [s - p for s, p in zip(times["--csv --summary"], times["--csv"])]
        ratios = [s / p for s, p in zip(times["--csv --summary"], times["--csv"])]
        say(f"1. whole command, {a.rounds} interleaved rounds:")
        for k, ts in times.items():
            say(f"   perflab heatmap LOGS {k:<16} median {statistics.median(ts):.3f} s "
                f"(min {min(ts):.3f}, max {max(ts):.3f})")
        say(f"   --summary adds: median of the rounds' differences {1000 * statistics.median(diffs):+.0f} ms "
            f"(min {1000 * min(diffs):+.0f}, max {1000 * max(diffs):+.0f}); median ratio {statistics.median(ratios):.2f}x")

    t_build, hm = best_of(lambda: H.from_hist_log(LOGS), a.repeat)
    t_modes, found = best_of(lambda: modes.map_modes(hm), a.repeat)
    n_buckets = int(hm.counts.any(axis=0).sum())
    say(f"2. in one process, best of {a.repeat}: {hm.total:,} events, {hm.n_columns} columns x {hm.n_buckets} "
        f"buckets ({n_buckets} hold events)")
    say(f"   build the map (from_hist_log): {1000 * t_build:.1f} ms; mode pass (map_modes): {1000 * t_modes:.1f} ms "
        f"= {100 * t_modes / t_build:.0f}% of the build")
    say(f"   mode pass: {1000 * t_modes / (hm.total / 1e6):.0f} ms per million events of this map, "
        f"{1e6 * t_modes / hm.n_columns:.0f} us per column; whole map: {found.whole.modes.count} modes, "
        f"{found.whole.columns_multimodal} of {found.whole.columns_enough} columns with two or more")
    big = replace(hm, counts=hm.counts * 100, overflow=hm.overflow * 100)
    t_big, found_big = best_of(lambda: modes.map_modes(big), a.repeat)
    say(f"   the same map with every count x100 ({big.total:,} events, the same columns): {1000 * t_big:.1f} ms "
        f"= {1000 * t_big / (big.total / 1e6):.1f} ms per million events; {found_big.whole.modes.count} modes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
