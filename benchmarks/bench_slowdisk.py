"""How much CPU does slowdisk spend per emulated I/O, and what does the emulated disk deliver?

    .venv/bin/python benchmarks/bench_slowdisk.py [--seconds 3]

Mounts slowdisk on sparse backing files in a temporary directory, runs the host's fio
against it, and reads the slowdisk process's utime + stime (/proc/PID/stat, all its
threads, in clock ticks of 1/CLK_TCK s) before and after each run.  Prints:

* CPU microseconds per I/O with every delay off (``nodelay``: the pass-through and
  bookkeeping cost alone), with the per-I/O log on, and at the default model (where each
  I/O also sleeps to its deadline); the default-model I/O counts are small, so those runs
  spread over several disks to get enough I/Os for the tick resolution;
* that cost as a fraction of the emulated mean service time;
* random 8 KiB IOPS / p50 / p99 and sequential 128 KiB MB/s at the defaults, next to
  :func:`perflab.infra.slowdisk.expected_service_ms`.

The "plain pass-through baseline" is ``nodelay``: the same FUSE file system with the
model's delays off (no other pass-through file system is installed here to compare with).
Needs /dev/fuse and fio; takes about 8 x --seconds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perflab.infra import slowdisk as sd  # noqa: E402
from perflab.fio.logs import loads_fio_json  # noqa: E402

FIO = shutil.which("fio") or "/usr/bin/fio"
DISK = 256 << 20


def make_disks(backing: Path, n: int) -> list[str]:
    names = [f"d{i}" for i in range(n)]
    for name in names:
        p = backing / name
        if not p.exists():
            with open(p, "wb") as f:
                f.truncate(DISK)
            with open(p, "rb", buffering=0) as f:   # into the page cache: see the tests
                while f.read(1 << 20):
                    pass
    return names


def run(mount: sd.SlowdiskMount, disks: list[str], rw: str, bs: str, seconds: float) -> dict:
    """fio, one QD-1 job per disk; returns fio's merged read stats plus the CPU used."""
    args = [FIO, "--output-format=json", "--group_reporting=1", "--direct=1", "--ioengine=psync",
            f"--rw={rw}", f"--bs={bs}", f"--size={DISK}", f"--runtime={seconds}", "--time_based"]
    for d in disks:
        args += [f"--name={d}", f"--filename={mount.disk(d)}"]
    cpu0 = mount.cpu_seconds()
    r = subprocess.run(args, capture_output=True, text=True, timeout=seconds * 4 + 60)
    cpu1 = mount.cpu_seconds()
    if r.returncode:
        raise SystemExit(f"fio failed:\n{r.stdout}\n{r.stderr}")
    st = loads_fio_json(r.stdout)["jobs"][0]["read"]
    ios = st["total_ios"]
    return {"ios": ios, "iops": st["iops"], "mbps": st["bw_bytes"] / 1e6,
            "p50_ms": st["clat_ns"]["percentile"]["50.000000"] / 1e6,
            "p99_ms": st["clat_ns"]["percentile"]["99.000000"] / 1e6,
            "mean_ms": st["clat_ns"]["mean"] / 1e6, "cpu_s": cpu1 - cpu0,
            "cpu_us_per_io": (cpu1 - cpu0) / ios * 1e6 if ios else float("nan"),
            "tick_us_per_io": 1e6 / os.sysconf("SC_CLK_TCK") / ios if ios else float("nan")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="length of each fio run [3]")
    a = ap.parse_args()
    why = sd.fuse_available()
    if why:
        print(f"bench_slowdisk: cannot run: {why}")
        return 1
    binary = sd.find_binary()
    t = a.seconds
    tmp = Path(tempfile.mkdtemp(prefix="bench-slowdisk-"))
    try:
        backing = tmp / "backing"
        backing.mkdir()
        many = make_disks(backing, 8)
        one = many[:1]
        rows = []
        defaults = sd.DiskModel()
        short = sd.DiskModel(capacity=64 << 30)
        e_rand = sd.expected_service_ms(defaults, "randread", 8192, file_size=DISK)
        e_short = sd.expected_service_ms(short, "randread", 8192, file_size=DISK)
        e_seq = sd.expected_service_ms(defaults, "read", 131072)

        with sd.mounted(backing, tmp / "mnt", sd.DiskModel(nodelay=True)) as m:
            rows.append(("nodelay, randread 8k, 1 disk", run(m, one, "randread", "8k", t), None))
            rows.append(("nodelay, read 128k, 1 disk", run(m, one, "read", "128k", t), None))
        with sd.mounted(backing, tmp / "mnt", sd.DiskModel(nodelay=True), log_dir=tmp / "logs",
                        log_wait=True) as m:
            rows.append(("nodelay + log + wait log, randread 8k", run(m, one, "randread", "8k", t),
                         None))
        with sd.mounted(backing, tmp / "mnt", defaults, log_dir=tmp / "logs2") as m:
            rand1 = run(m, one, "randread", "8k", t)
            rows.append(("defaults, randread 8k, 1 disk", rand1, e_rand))
            seq1 = run(m, one, "read", "128k", t)
            rows.append(("defaults, read 128k, 1 disk", seq1, e_seq))
            rows.append(("defaults, randread 8k, 8 disks", run(m, many, "randread", "8k", t),
                         e_rand))
        with sd.mounted(backing, tmp / "mnt", short, log_dir=tmp / "logs3") as m:
            rows.append(("capacity=64G, randread 8k, 8 disks", run(m, many, "randread", "8k", t),
                         e_short))

        print(f"slowdisk {binary}  (fio runs of {t:g} s, QD 1 per disk, 2-core VM; "
              f"CPU = slowdisk's utime+stime, tick {1e6 / os.sysconf('SC_CLK_TCK'):.0f} us)\n")
        hdr = (f"{'run':40} {'I/Os':>7} {'IOPS':>8} {'MB/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
               f"{'CPU us/IO':>10} {'+-tick':>7} {'model ms':>9} {'CPU/svc':>8}")
        print(hdr)
        print("-" * len(hdr))
        for name, r, model_ms in rows:
            if r["cpu_s"] > 0:
                cpu = f"{r['cpu_us_per_io']:10.1f}"
                ratio = f"{r['cpu_us_per_io'] / (model_ms * 1e3):8.2%}" if model_ms else f"{'':8}"
            else:   # not one clock tick in the whole run: below the resolution
                cpu = f"{'<' + format(r['tick_us_per_io'], '.0f'):>10}"
                ratio = f"{'<' + format(r['tick_us_per_io'] / (model_ms * 1e3), '.2%'):>8}" \
                    if model_ms else f"{'':8}"
            mm = f"{model_ms:9.3f}" if model_ms else f"{'':9}"
            print(f"{name:40} {r['ios']:7d} {r['iops']:8.0f} {r['mbps']:7.1f} {r['p50_ms']:7.3f} "
                  f"{r['p99_ms']:7.3f} {cpu} {r['tick_us_per_io']:7.1f} {mm} {ratio}")
        print("\n+-tick: one clock tick of CPU time spread over the run's I/Os (the resolution); "
              "CPU/svc: CPU per I/O / modelled service time")
        print()
        print(f"defaults, random 8 KiB reads, one disk: {rand1['iops']:.0f} IOPS "
              f"(model {1000 / e_rand:.0f}), p50 {rand1['p50_ms']:.2f} ms, p99 "
              f"{rand1['p99_ms']:.2f} ms, mean {rand1['mean_ms']:.2f} ms (model {e_rand:.2f} ms)")
        print(f"defaults, sequential 128 KiB reads, one disk: {seq1['mbps']:.1f} MB/s "
              f"(model {131072 / e_seq / 1e3:.1f} MB/s)")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
