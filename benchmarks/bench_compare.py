"""Benchmark of `perflab compare` on the largest recorded reference with latency logs (prints figures;
not a test).

    .venv/bin/python benchmarks/bench_compare.py [--lab LAB] [--rounds 3]

LAB (default: the reference with the most bytes of fio latency logs) is compared with itself, its
reference standing in for all three runs (A, B and two noise runs), so each step runs on the same
input: reading the logs into maps (per run), the two distances, the bands, the difference map and
the standalone page. Best of --rounds for each step; the I/O count and the logs' size on disk put
the figures in proportion. Nothing is written outside a temporary directory, removed at the end.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perflab.analysis import difference  # noqa: E402
from perflab.config import manifest  # noqa: E402
from perflab.run import comparison  # noqa: E402


def best(fn, rounds: int):
    times, out = [], None
    for _ in range(rounds):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def largest(m) -> str:
    sizes = {lab: sum(p.stat().st_size for p in comparison.latency_logs(m.root / "data" / "reference" / lab).values())
             for lab in m.labs}
    return max(sizes, key=sizes.get)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    m = manifest.load(ROOT)
    lab = args.lab or largest(m)
    run = comparison.resolve(m, lab)
    size = sum(p.stat().st_size for p in run.logs.values())
    print(f"lab {lab}: {len(run.logs)} latency logs, {size / 1e6:.1f} MB on disk")
    t_map, hm = best(lambda: comparison.build_map(run, 1.0), args.rounds)
    print(f"map of one run: {t_map:.2f} s for {hm.total:,} I/Os ({hm.total / t_map / 1e6:.2f} M I/Os/s), "
          f"{hm.n_columns} columns x {hm.n_buckets} buckets")
    t_dist, _ = best(lambda: difference.distance(hm, hm), args.rounds)
    t_bands, _ = best(lambda: difference.bands(hm, hm), args.rounds)
    t_cmp, d = best(lambda: difference.compare(hm, hm, [hm, hm]), args.rounds)
    t_fig, _ = best(lambda: d.figure(), args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        t_page, text = best(lambda: difference.page(d), args.rounds)
        out = Path(tmp) / "page.html"
        out.write_text(text)
        page_mb = out.stat().st_size / 1e6
    print(f"distance (KS and W1): {1e3 * t_dist:.2f} ms; bands: {1e3 * t_bands:.2f} ms; "
          f"compare with 2 noise runs: {1e3 * t_cmp:.2f} ms")
    print(f"difference map figure: {1e3 * t_fig:.1f} ms; standalone page (3 figures): {t_page:.2f} s, {page_mb:.1f} MB")
    total = 4 * t_map + t_cmp + t_page
    print(f"perflab compare A B with 2 noise runs, all from logs: about {total:.1f} s "
          f"(maps {100 * 4 * t_map / total:.0f}%, statistics {100 * t_cmp / total:.1f}%, page {100 * t_page / total:.0f}%)")
    print(f"side by side: the statistics cost {t_cmp / t_map:.4f} x building one run's map; the whole comparison "
          f"{total / t_map:.1f} x one map (4 maps, so at least 4 x)")


if __name__ == "__main__":
    main()
