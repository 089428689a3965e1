"""Benchmark of the heat-map pipeline and of fio's logging overhead (prints figures; not a test).

Chapter: "Reading latency heat maps" (chapters/heatmaps.md) quotes these figures.

    .venv/bin/python benchmarks/bench_pipeline.py [--events 20000000] [--rounds 9]
                                                  [--fio-runtime 5] [--container IMAGE]
                                                  [--no-fio | --only-fio]

1. Writes a synthetic fio per-I/O latency log (6-field form, 60 s of I/O) of --events lines
   in a temporary directory.
2. perflab.analysis.heatmap.from_lat_log on it, best of 3: events/s and MB/s of log on disk
   (the file is in the page cache: this measures parsing and binning, not the disk), and
   the same for a naive pandas.read_csv + numpy.histogram2d baseline; both must produce
   the same counts.
3. Peak memory of the heat-map step relative to the log's size (method printed).
4. fio's capture overhead with the host's fio: one job (randread 4k, psync, 1 job, a
   256 MiB file kept in the page cache) without logging, with a histogram log
   (log_hist_msec=1000), with a per-I/O log (log_avg_msec=0) and, as an extra, with a
   per-I/O log of completion latency only (disable_lat=1, disable_slat=1), interleaved
   over --rounds rounds; and with --container IMAGE the same no-logging job in
   `docker run --rm IMAGE fio ...` three ways, in the same rounds: under Docker's default
   seccomp filter (container), under the profile book.toml names for IMAGE, the labs' allow-list
   containers/seccomp/fio.json (container-labprofile), and with no filter (container-noseccomp);
   then what one system call costs under each, and under a filter that allows everything in one
   rule (1-byte dd reads and writes in the container). Each ratio is the median of the rounds'
   ratios with a 95% bootstrap interval; a goal is met only when the whole interval is at or
   above it, and "not settled" when the interval spans it.
   --only-fio runs this part alone, --no-fio skips it.
Everything it writes goes to one temporary directory, removed at the end.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perflab.analysis import heatmap as H  # noqa: E402
from perflab.config import manifest  # noqa: E402
from perflab.fio.logs import FioOutputError, loads_fio_json  # noqa: E402
from perflab.infra import seccomp  # noqa: E402

FIO = shutil.which("fio") or "/usr/bin/fio"


def say(*a) -> None:
    print(*a, flush=True)


# --------------------------------------------------------------------------- synthetic log

def write_synthetic_log(path: Path, n: int, seconds: int = 60, seed: int = 1) -> None:
    """fio 3.33 per-I/O log lines 'time_ms, lat_ns, ddir, bs, offset, prio', formatted by Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    block = 2_000_000
    with open(path, "wb") as f:
        for s in range(0, n, block):
            m = min(block, n - s)
            t = np.arange(s, s + m, dtype=np.int64) * (seconds * 1000) // n
            # two bands (page-cache hits ~3 us, device reads ~120 us) and rare outliers
            hit = rng.random(m) < 0.7
            lat = np.where(hit, rng.lognormal(np.log(3_000), 0.3, m), rng.lognormal(np.log(120_000), 0.4, m))
            out = rng.random(m) < 1e-4
            lat[out] = rng.uniform(1e6, 5e7, out.sum())
            cols = [t, lat.astype(np.int64), np.zeros(m, np.int64), np.full(m, 4096, np.int64),
                    rng.integers(0, 65536, m) * 4096, np.zeros(m, np.int64)]
            strs = [pc.cast(pa.array(c), pa.string()) for c in cols]
            line = pc.binary_join_element_wise(*strs, ", ")
            line = pc.binary_join_element_wise(line, pa.scalar(""), "\n")   # append a newline
            offsets = np.frombuffer(line.buffers()[1], np.int32)[line.offset:line.offset + len(line) + 1]
            f.write(memoryview(line.buffers()[2])[offsets[0]:offsets[-1]])


# --------------------------------------------------------------------------- the two pipelines

def naive_counts(path: Path, col_s: float = 1.0, sub: int = 8) -> np.ndarray:
    """What one would write first: pandas.read_csv, then numpy.histogram2d on explicit edges."""
    import pandas as pd

    df = pd.read_csv(path, header=None, usecols=[0, 1],
                     names=["time_ms", "lat_ns", "ddir", "bs", "offset", "prio"])
    col = df["time_ms"].to_numpy() // round(col_s * 1000)
    edges = H.Buckets.loglinear(sub).edges_ns.astype(np.float64)
    counts, _, _ = np.histogram2d(col, df["lat_ns"].to_numpy(),
                                  bins=[np.arange(col.max() + 2), edges])
    return counts.astype(np.int64)


#: The commit whose heat-map pipeline (pyarrow's CSV reader on a second thread) the compiled scan replaced.
PREVIOUS = "ece5c92"


def previous_pipeline():
    """The previous pipeline's module, loaded from git at :data:`PREVIOUS` (None outside a clone)."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run(["git", "show", f"{PREVIOUS}:perflab/analysis/heatmap/ingest.py"], cwd=root,
                       capture_output=True, text=True)
    if r.returncode:
        say(f"previous pipeline: not available ({r.stderr.strip()[:100]})")
        return None
    with tempfile.TemporaryDirectory(prefix="perflab-prev-") as d:   # gone once the module is loaded
        path = Path(d) / "prev_ingest.py"
        path.write_text(r.stdout)
        spec = importlib.util.spec_from_file_location("prev_ingest", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    return mod


def bare_parse(path: Path):
    """pyarrow's CSV reader on the whole file, the two columns a heat map needs, nothing else."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = ["time_ms", "lat_ns", "ddir", "bs", "offset", "prio"]
    return pcsv.read_csv(path, read_options=pcsv.ReadOptions(column_names=names, use_threads=True),
                         convert_options=pcsv.ConvertOptions(include_columns=names[:2],
                                                             column_types={c: pa.int64() for c in names[:2]}))


def best_of(fn, n: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def child_peak_rss(mode: str, path: Path) -> int:
    """Peak RSS (bytes) of a fresh interpreter running only `mode` (see --_child)."""
    r = subprocess.run([sys.executable, __file__, "--_child", mode, str(path)],
                       capture_output=True, text=True, check=True)
    return int(r.stdout.split()[-1])


def run_child(mode: str, path: str) -> None:
    import pandas  # noqa: F401  (the baseline imports the same modules as the runs)
    import pyarrow.csv  # noqa: F401
    if mode == "heatmap":
        H.from_lat_log(path)
    elif mode == "naive":
        naive_counts(Path(path))
    print(peak_rss_bytes())


def peak_rss_bytes() -> int:
    """This process's peak RSS: VmHWM of /proc/self/status.

    Not ru_maxrss: on Linux ru_maxrss survives fork+exec (the kernel folds the parent's
    high-water mark into the child's at exec), so a child of a big parent would report the
    parent's peak.  VmHWM belongs to the process's own address space, new at exec.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # KiB on Linux


# --------------------------------------------------------------------------- fio overhead

def fio_args(data: Path, runtime: int, extra: list[str]) -> list[str]:
    # Pinned to CPU 1 (the container too): on 2 cores an unpinned job's IOPS wander by several %.
    return ["--name=bench", f"--filename={data}", "--size=256m", "--rw=randread", "--bs=4k",
            "--ioengine=psync", "--numjobs=1", "--direct=0", "--invalidate=0", f"--cpus_allowed={PIN_CPU}",
            f"--runtime={runtime}", "--time_based", "--randrepeat=0",
            "--output-format=json", *extra]


PIN_CPU = 1 if (os.cpu_count() or 1) > 1 else 0


def fio_iops(cmd: list[str], cwd: Path) -> float:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}...: exit {r.returncode}: {r.stderr.strip()[-400:]}")
    res = loads_fio_json(r.stdout, "fio stdout")
    return float(res["jobs"][0]["read"]["iops"])


def container_status(image: str) -> str | None:
    """None if `docker run IMAGE fio` can work here, else why not."""
    docker = shutil.which("docker")
    if docker is None:
        return "docker is not installed"
    try:
        r = subprocess.run([docker, "image", "inspect", image], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "docker did not answer within 60 s"
    if r.returncode != 0:
        msg = (r.stderr.strip().splitlines() or ["?"])[-1]
        return f"image {image} is not available locally ({msg})"
    r = subprocess.run([docker, "run", "--rm", "--network", "none", image, "fio", "--version"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return f"`docker run {image} fio --version` failed: {r.stderr.strip()[-300:]}"
    return None


def lab_profile(image: str) -> Path:
    """The seccomp profile the labs run `image` under (book.toml [images.X] seccomp), checked."""
    p = seccomp.by_tag(manifest.load(ROOT), "lab").get(image) or ROOT / "containers" / "seccomp" / "fio.json"
    seccomp.read(p)
    return p


#: The container runs: their docker --security-opt (the lab profile's is filled in by fio_overhead).
CONTAINER_RUNS = {"container": [],                                   # Docker's default filter
                  "container-labprofile": None,                      # the labs' allow-list
                  "container-noseccomp": ["--security-opt", "seccomp=unconfined"]}   # no filter


def fio_overhead(tmp: Path, rounds: int, runtime: int, image: str | None) -> None:
    say(f"\n== fio capture overhead: host {FIO} ({subprocess.run([FIO, '--version'], capture_output=True, text=True).stdout.strip()})")
    data = tmp / "fio-data"
    with open(data, "wb") as f:                      # 256 MiB, then read once: page cache
        chunk = os.urandom(1 << 20)
        for _ in range(256):
            f.write(chunk)
    with open(data, "rb") as f:
        while f.read(1 << 24):
            pass
    work = tmp / "fio-work"
    work.mkdir()
    configs = {
        "none": [],
        "hist": ["--write_hist_log=h", "--log_hist_msec=1000"],
        "perio": ["--write_lat_log=p", "--log_avg_msec=0"],
        # extra: per-I/O log of completion latency only (no lat/slat measurement or logs)
        "perio-clat": ["--write_lat_log=q", "--log_avg_msec=0", "--disable_lat=1", "--disable_slat=1"],
    }
    why_not, sec, profile = None, {}, None
    if image:
        why_not = container_status(image)
        if why_not is None:
            # The same no-logging job under Docker's default filter, the labs' profile, and none:
            # what a filter costs, and whether a shorter list costs less.
            profile = lab_profile(image)
            sec = {**CONTAINER_RUNS, "container-labprofile": ["--security-opt", f"seccomp={profile}"]}
            for name in sec:
                configs[name] = []
    say(f"job: randread bs=4k psync numjobs=1 on a cached 256 MiB file, {runtime} s each, "
        f"{rounds} rounds, order rotated every round; load average before: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    iops: dict[str, list[float]] = {k: [] for k in configs}
    names = list(configs)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        row = []
        for name in order:
            args = fio_args(data, runtime, configs[name])
            if name in sec:
                cmd = ["docker", "run", "--rm", "--network", "none", f"--cpuset-cpus={PIN_CPU}", *sec[name],
                       "-v", f"{tmp}:{tmp}", "-w", str(work), image, "fio", *args]
            else:
                cmd = [FIO, *args]
            v = fio_iops(cmd, work)
            iops[name].append(v)
            row.append(f"{name}={v:,.0f}")
            for p in work.iterdir():                  # logs can be large: drop them at once
                p.unlink()
        say(f"  round {r + 1}: " + "  ".join(row))
    med = {k: statistics.median(v) for k, v in iops.items()}
    say(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    say(f"{'capture':<21} {'median IOPS':>12}   {'min':>10} {'max':>10}")
    for k, v in iops.items():
        say(f"{k:<21} {med[k]:>12,.0f}   {min(v):>10,.0f} {max(v):>10,.0f}")
    spread = (max(iops["none"]) - min(iops["none"])) / med["none"]
    say(f"noise: the no-logging job alone varied by {100 * spread:.1f}% (max-min)/median across rounds")

    # A ratio is judged per round: the two runs of a round are seconds apart, while the machine's
    # speed drifts between rounds (the no-logging job alone varies by the spread above), so the
    # median of the rounds' ratios is the figure, and the ratio of the medians is shown beside it.
    say("ratios: the median of the per-round ratios (each round runs every configuration once, "
        "seconds apart); beside it the ratio of the medians, which also carries drift between rounds")

    def ratio(k: str, goal: str, at_least: float | None = None) -> None:
        paired = [a / b for a, b in zip(iops[k], iops["none"])]
        lo, hi = median_interval(paired)
        verdict = "" if at_least is None else f": {judge(lo, hi, at_least)}"
        say(f"{k + '/none':<26}= {statistics.median(paired):.3f} (95% interval {lo:.3f} to {hi:.3f}; per round "
            f"{', '.join(f'{x:.3f}' for x in paired)}; ratio of medians {med[k] / med['none']:.3f})   goal {goal}{verdict}")

    ratio("hist", ">= 0.99", 0.99)
    ratio("perio", ">= 0.95", 0.95)
    ratio("perio-clat", "(extra; no goal)")
    if image:
        if why_not is None:
            ratio("container", "(Docker's default filter; no goal)")
            ratio("container-labprofile", ">= 0.98", 0.98)
            ratio("container-noseccomp", "(no filter; no goal)")
            say(f"  (container = docker run --rm --network none {image} fio ..., same file bind-mounted, under "
                f"Docker's default seccomp filter; -labprofile adds --security-opt seccomp={profile.relative_to(ROOT)} "
                f"({len(seccomp.allowed_calls(profile))} calls allowed, sha256 {seccomp.sha256(profile)[:12]}); "
                "-noseccomp adds --security-opt seccomp=unconfined)")
            # and a filter that allows everything in one rule: the cost of having a filter at all
            allow_all = tmp / "allow-all.json"
            allow_all.write_text('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": []}')
            syscall_cost(image, {**sec, "container-allowall": ["--security-opt", f"seccomp={allow_all}"]}, rounds)
        else:
            say(f"container run skipped: {why_not}")


def median_interval(xs: list[float], n: int = 10_000, seed: int = 1) -> tuple[float, float]:
    """A 95% bootstrap interval of the median of `xs` (percentile method, `n` resamples): how far
    the figure could move with other rounds on the same machine."""
    rng = np.random.default_rng(seed)
    meds = np.median(rng.choice(np.asarray(xs, float), size=(n, len(xs)), replace=True), axis=1)
    return float(np.percentile(meds, 2.5)), float(np.percentile(meds, 97.5))


def judge(lo: float, hi: float, at_least: float) -> str:
    """A goal "at least `at_least`" against the interval: met only when the whole interval is at or
    above it, missed when all of it is below, else not settled by these rounds."""
    if lo >= at_least:
        return "met"
    if hi < at_least:
        return "MISSED"
    return f"not settled (the interval spans {at_least})"


def syscall_cost(image: str, sec: dict[str, list[str]], rounds: int, n: int = 2_000_000) -> None:
    """What one system call costs under each filter: `dd bs=1 count=n` (n reads and n writes of one
    byte, nothing else) in the container under each, interleaved like the fio runs; the time
    above the unfiltered run's, per call. Shows whether the cost is the filter's length or its
    being there at all (the kernel caches, per call number, the calls a filter always allows)."""
    say(f"\n== system-call cost under each filter: dd if=/dev/zero of=/dev/null bs=1 count={n:,} in {image}, "
        f"{rounds} rounds")
    secs: dict[str, list[float]] = {k: [] for k in sec}
    names = list(sec)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            out = subprocess.run(["docker", "run", "--rm", "--network", "none", f"--cpuset-cpus={PIN_CPU}",
                                  *sec[name], image, "dd", "if=/dev/zero", "of=/dev/null", "bs=1", f"count={n}"],
                                 capture_output=True, text=True, timeout=300)
            m = re.search(r", ([\d.]+) s, ", out.stderr)
            if out.returncode or not m:
                raise RuntimeError(f"dd under {name}: exit {out.returncode}: {out.stderr.strip()[-300:]}")
            secs[name].append(float(m.group(1)))
    med = {k: statistics.median(v) for k, v in secs.items()}
    base = med["container-noseccomp"]
    for k in names:
        say(f"  {k:<21} {med[k]:.3f} s (median; {', '.join(f'{x:.3f}' for x in secs[k])})   "
            f"{(med[k] - base) / (2 * n) * 1e9:+.1f} ns a call vs no filter")


# --------------------------------------------------------------------------- main

def fio_part(a, tmp: Path) -> int:
    if not os.path.exists(FIO):
        say(f"\nfio overhead: skipped: {FIO} not found")
    else:
        fio_overhead(tmp, a.rounds, a.fio_runtime, a.container)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=20_000_000, help="lines in the synthetic per-I/O log")
    ap.add_argument("--rounds", type=int, default=9, help="interleaved rounds of fio runs")
    ap.add_argument("--fio-runtime", type=int, default=5, help="seconds per fio run")
    ap.add_argument("--container", metavar="IMAGE", help="also run the no-logging job in this image")
    parts = ap.add_mutually_exclusive_group()
    parts.add_argument("--no-fio", action="store_true", help="skip the fio overhead part")
    parts.add_argument("--only-fio", action="store_true", help="only the fio overhead part (no heat-map figures)")
    ap.add_argument("--_child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a._child:
        run_child(*a._child)
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="perflab-bench-"))
    try:
        say(f"machine: {os.cpu_count()} CPUs, python {sys.version.split()[0]}, numpy {np.__version__}")
        if a.only_fio:
            return fio_part(a, tmp)
        log = tmp / "synthetic_clat.1.log"
        t = time.perf_counter()
        write_synthetic_log(log, a.events)
        size = log.stat().st_size
        mb = size / 1e6
        say(f"\n== synthetic per-I/O log: {a.events:,} lines, {mb:,.1f} MB "
            f"({time.perf_counter() - t:.1f} s to write; in the page cache)")

        prev = previous_pipeline()
        t_hm, hm = best_of(lambda: H.from_lat_log(log))
        say(f"from_lat_log (compiled scan on 2 threads + bincount), best of 3: {t_hm:.2f} s = "
            f"{a.events / t_hm / 1e6:.1f} M events/s, {mb / t_hm:,.0f} MB/s  (goal >= 1.5x the previous pipeline)")
        t_cells = time.perf_counter()
        cells = hm.cells()
        t_cells = time.perf_counter() - t_cells
        say(f"  -> {hm.n_columns} columns x {hm.n_buckets} buckets, {len(cells):,} non-empty cells "
            f"(cells() {t_cells * 1000:.0f} ms), total {hm.total:,}")
        if prev is not None:
            t_prev, hm_prev = best_of(lambda: prev.from_lat_log(log))
            same = bool((hm_prev.counts == hm.counts).all())
            say(f"previous pipeline ({PREVIOUS}: pyarrow.csv stream + bincount), best of 3: {t_prev:.2f} s = "
                f"{a.events / t_prev / 1e6:.1f} M events/s; now {t_prev / t_hm:.2f}x faster (goal >= 1.5x); "
                f"identical counts: {'yes' if same else 'NO'}")
        t_ar, _ = best_of(lambda: H.from_lat_log(log, engine="arrow"))
        say(f"from_lat_log engine='arrow' (the fallback where the scanner is not built), best of 3: {t_ar:.2f} s = "
            f"{a.events / t_ar / 1e6:.1f} M events/s")
        t_cat, _ = best_of(lambda: subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True))
        t_bare, _ = best_of(lambda: bare_parse(log))
        say(f"bounds on the same file: cat {t_cat:.2f} s ({mb / t_cat:,.0f} MB/s); bare pyarrow.csv.read_csv of "
            f"the two columns {t_bare:.2f} s ({a.events / t_bare / 1e6:.1f} M lines/s)")
        say(f"  the pipeline runs at {t_cat / t_hm:.2f} of cat's speed and {t_bare / t_hm:.2f}x a bare pyarrow parse")
        t_nv, ref = best_of(lambda: naive_counts(log))
        same = ref.shape == hm.counts.shape and bool((ref == hm.counts).all())
        say(f"naive pandas.read_csv + numpy.histogram2d, best of 3: {t_nv:.2f} s = "
            f"{a.events / t_nv / 1e6:.2f} M events/s, {mb / t_nv:,.0f} MB/s; "
            f"from_lat_log is {t_nv / t_hm:.1f}x faster; identical counts: {'yes' if same else 'NO'}")

        say("\n== peak memory (method: peak RSS (VmHWM) of a fresh interpreter that runs only the step,\n"
            "   minus that of a fresh interpreter that only imports numpy, pandas, pyarrow, perflab;\n"
            "   VmHWM, not ru_maxrss, which Linux carries over from the parent across fork+exec)")
        base = child_peak_rss("import", log)
        peak = child_peak_rss("heatmap", log)
        small = tmp / "small_clat.1.log"
        write_synthetic_log(small, a.events // 10)
        peak_small = child_peak_rss("heatmap", small)
        say(f"import-only baseline: {base / 1e6:,.0f} MB; from_lat_log: {peak / 1e6:,.0f} MB peak")
        say(f"from_lat_log peak - baseline = {(peak - base) / 1e6:,.0f} MB = "
            f"{(peak - base) / size:.3f} x the log's size ({peak / size:.3f} x counting the baseline; goal <= 1.5 x)")
        say(f"constant in the input's size: {a.events // 10:,} lines ({small.stat().st_size / 1e6:,.0f} MB): "
            f"{(peak_small - base) / 1e6:,.0f} MB above the baseline; {a.events:,} lines ({mb:,.0f} MB): "
            f"{(peak - base) / 1e6:,.0f} MB (10x the input, {(peak - base) / max(peak_small - base, 1):.2f}x the memory)")
        small.unlink()
        naive_peak = child_peak_rss("naive", log)
        say(f"naive baseline peak - baseline = {(naive_peak - base) / 1e6:,.0f} MB = "
            f"{(naive_peak - base) / size:.3f} x the log's size")
        log.unlink()

        if a.no_fio:
            say("\nfio overhead: skipped (--no-fio)")
        else:
            fio_part(a, tmp)
    except (FioOutputError, RuntimeError, subprocess.CalledProcessError) as e:
        say(f"benchmark failed: {e}")
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
