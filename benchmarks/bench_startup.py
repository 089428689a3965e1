"""Benchmark of `perflab heatmap` as a whole command: start-up on a small input, and the whole process
on a large one against a naive script (prints figures; not a test).

    .venv/bin/python benchmarks/bench_startup.py [--events 5000000] [--rounds 5]

1. Small input: `perflab heatmap LOG` on the heatmaps reference's cached-read histogram log (24 KB
   compressed, 119 one-second lines), a new process each time: the median wall time over --rounds,
   against the goal of 0.3 s; the modules the command imported that it does not need for this
   input (pandas, pyarrow, plotly: each costs start-up time) from `python -X importtime`; and the
   floor under it, a Python that only imports numpy.
2. Large input: a synthetic fio per-I/O log of --events lines (bench_pipeline.py's generator);
   `perflab heatmap LOG --save OUT.npz` against a naive script (`python -c`: pandas.read_csv and
   numpy.histogram2d on the same buckets), both as whole processes, interleaved over --rounds rounds
   with the order alternated: the median of the per-round ratios, against the goal of 2.5x. Both
   produce the same counts (checked once).

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
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pipeline import write_synthetic_log  # noqa: E402

PY = sys.executable
SMALL = ROOT / "data" / "reference" / "heatmaps" / "fio" / "cached_clat_hist.1.log.gz"
NAIVE = """
import sys
import numpy as np, pandas as pd
from perflab.analysis.heatmap.buckets import Buckets
df = pd.read_csv(sys.argv[1], header=None, usecols=[0, 1], names=["time_ms", "lat_ns", "ddir", "bs", "offset", "prio"])
col = df["time_ms"].to_numpy() // 1000
edges = Buckets.loglinear(8).edges_ns.astype(np.float64)
counts, _, _ = np.histogram2d(col, df["lat_ns"].to_numpy(), bins=[np.arange(col.max() + 2), edges])
np.save(sys.argv[2], counts.astype(np.int64))
"""


def say(*a) -> None:
    print(*a, flush=True)


#: As scripts/perflab runs the command on a learner's machine: `python -m perflab` from the
#: repository's root (whose perflab is then the one imported, as for the naive script's `-c`), with
#: no PYTHONPATH (each entry on it is searched by every top-level import) and with Python's bytecode
#: cache (PYTHONDONTWRITEBYTECODE, set in this project's own shells, made every run compile perflab's
#: modules again: about 40 ms of the small command). The first, untimed run writes the cache.
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=ENV, cwd=ROOT)
    return time.perf_counter() - t


def heatmap_cmd(*args: str) -> list[str]:
    return [PY, "-m", "perflab", "heatmap", *args]


def unneeded_imports(log: Path) -> list[str]:
    r = subprocess.run([PY, "-X", "importtime", "-m", "perflab", "heatmap", str(log)], capture_output=True,
                       text=True, env=ENV, cwd=ROOT, check=True)
    names = {ln.split("|")[-1].strip() for ln in r.stderr.splitlines() if ln.startswith("import time:")}
    return sorted(n for n in ("pandas", "pyarrow", "numba", "jsonschema", "plotly") if n in names)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=5_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)

    say(f"1. small input: perflab heatmap {SMALL.relative_to(ROOT)} ({SMALL.stat().st_size:,} bytes), "
        f"{a.rounds} runs")
    wall(heatmap_cmd(str(SMALL)))   # warm the page cache and Python's bytecode cache
    floor_cmd = [PY, "-c", "import numpy"]
    ts, fl = [], []
    for _ in range(a.rounds):   # the command and its floor in turn: the machine's speed moves both
        ts.append(wall(heatmap_cmd(str(SMALL))))
        fl.append(wall(floor_cmd))
    med, floor = statistics.median(ts), statistics.median(fl)
    own = statistics.median(t - f for t, f in zip(ts, fl))
    say(f"   wall time: median {med:.3f} s (min {min(ts):.3f}, max {max(ts):.3f}); goal < 0.3 s: "
        f"{'met' if med < 0.3 else 'NOT met'}")
    say(f"   the floor, a python that only imports numpy, in the same rounds: median {floor:.3f} s "
        f"(min {min(fl):.3f}, max {max(fl):.3f}); the command above it: median {own:.3f} s a round")
    say(f"   heavy modules it imported: {', '.join(unneeded_imports(SMALL)) or 'none'}")

    with tempfile.TemporaryDirectory(prefix="perflab-bench-") as tmp:
        tmp = Path(tmp)
        log = tmp / "big_clat.1.log"
        write_synthetic_log(log, a.events)
        say(f"2. large input: a synthetic per-I/O log of {a.events:,} lines ({log.stat().st_size / 1e6:,.0f} MB)")
        ours, naive = [tmp / "ours.npz", tmp / "naive.npy"], None
        cmd_ours = heatmap_cmd(str(log), "--save", str(ours[0]))
        cmd_naive = [PY, "-c", NAIVE, str(log), str(tmp / "naive.npy")]
        wall(cmd_ours)
        wall(cmd_naive)
        from perflab.analysis.heatmap import HeatMap

        hm, naive = HeatMap.load(ours[0]), np.load(tmp / "naive.npy")
        n = min(len(hm.counts), len(naive))
        same = np.array_equal(hm.counts[:n], naive[:n, :hm.counts.shape[1]]) and hm.total == int(naive.sum())
        say(f"   the same counts: {'yes' if same else 'NO'}")
        t_o, t_n, ratios = [], [], []
        for r in range(a.rounds):
            pair = [("ours", cmd_ours), ("naive", cmd_naive)]
            res = {}
            for name, cmd in (pair if r % 2 == 0 else pair[::-1]):
                res[name] = wall(cmd)
            t_o.append(res["ours"])
            t_n.append(res["naive"])
            ratios.append(res["naive"] / res["ours"])
        ratio = statistics.median(ratios)
        say(f"   perflab heatmap --save: median {statistics.median(t_o):.2f} s "
            f"({a.events / statistics.median(t_o) / 1e6:.1f} M events/s, whole process)")
        say(f"   naive pandas + numpy.histogram2d script: median {statistics.median(t_n):.2f} s")
        say(f"   ratio (median of the {a.rounds} rounds' ratios): {ratio:.2f}x; goal >= 2.5x: "
            f"{'met' if ratio >= 2.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
