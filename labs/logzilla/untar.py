#!/usr/bin/env python3
"""Unpack a tar of many small files the way an NFS server must (the logzilla lab's untar).

In 2009 the Logzilla post unpacked a source tarball of 43,000 small files onto an NFS share: about
20 minutes without log devices, 2 with. Over NFS the writing of a file's contents is asynchronous,
but creating it is not: the server must have the new directory entry on stable storage before it
answers the CREATE, and the client asks for a COMMIT when it closes a file it wrote (close-to-open
consistency). This machine has no NFS client, so this program plays both ends on the server's file
system, one file at a time, as a single-threaded `tar xf` over NFS would make the server do:

    open(O_CREAT|O_EXCL) + fsync     the CREATE, made stable (ZFS commits its intent-log record)
    write(contents) + fsync + close  the COMMIT at close

Directories are made with mkdir (their records reach stable storage with the next commit).

    untar.py make    --files N --seed S ARCHIVE
    untar.py extract ARCHIVE DEST --trace FILE --summary FILE

`make` writes a deterministic archive: a tree of directories holding 5-40 files each, sizes drawn
from a log-normal distribution around 3 KiB (most files of a source tree are small), capped at
128 KiB, contents pseudo-random bytes. `extract` writes one trace line per step,
"time_ns latency_ns op" with op `create` or `commit` (the bpftrace form that `perflab heatmap
--trace bpftrace` reads), and a JSON summary. Python's standard library only: it runs in the lab's
fio image.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tarfile
import time


def make(path: str, files: int, seed: int) -> dict:
    rng = random.Random(seed)
    made, total, dirs = 0, 0, 0
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        def add_dir(name):
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 1_230_000_000
            tar.addfile(info)

        add_dir("tree")
        top = 0
        while made < files:
            top += 1
            parent = f"tree/m{top:03d}"
            add_dir(parent)
            dirs += 1
            for sub in range(rng.randint(1, 6)):
                d = f"{parent}/s{sub:02d}"
                add_dir(d)
                dirs += 1
                for _ in range(min(rng.randint(5, 40), files - made)):
                    size = min(int(rng.lognormvariate(8.0, 1.3)), 128 * 1024)
                    info = tarfile.TarInfo(f"{d}/f{made:06d}.c")
                    info.size, info.mode, info.mtime = size, 0o644, 1_230_000_000
                    tar.addfile(info, _Bytes(rng.randbytes(size)))
                    made += 1
                    total += size
                if made >= files:
                    break
    return {"files": made, "bytes": total, "dirs": dirs + 1}


class _Bytes:
    def __init__(self, b: bytes):
        self.b, self.pos = b, 0

    def read(self, n: int = -1) -> bytes:
        out = self.b[self.pos:] if n < 0 else self.b[self.pos:self.pos + n]
        self.pos += len(out)
        return out


def extract(archive: str, dest: str, trace: str, summary: str) -> dict:
    files = dirs = nbytes = 0
    t_begin = time.time_ns()
    with tarfile.open(archive) as tar, open(trace, "w") as tr:
        tr.write("# time_ns latency_ns op\n")
        for m in tar:
            path = os.path.join(dest, m.name)
            if m.isdir():
                os.makedirs(path, exist_ok=True)
                dirs += 1
                continue
            data = tar.extractfile(m).read()
            t0 = time.time_ns()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.fsync(fd)                       # CREATE: on stable storage before the reply
            t1 = time.time_ns()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)                       # COMMIT at close
            os.close(fd)
            t2 = time.time_ns()
            tr.write(f"{t0} {t1 - t0} create\n{t1} {t2 - t1} commit\n")
            files += 1
            nbytes += len(data)
    out = {"files": files, "dirs": dirs, "bytes": nbytes, "start_ns": t_begin, "end_ns": time.time_ns()}
    out["seconds"] = (out["end_ns"] - t_begin) / 1e9
    with open(summary + ".tmp", "w") as f:
        json.dump(out, f, indent=1)
    os.replace(summary + ".tmp", summary)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("archive")
    m.add_argument("--files", type=int, required=True)
    m.add_argument("--seed", type=int, default=2009)
    x = sub.add_parser("extract")
    x.add_argument("archive")
    x.add_argument("dest")
    x.add_argument("--trace", required=True)
    x.add_argument("--summary", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "make":
        print(json.dumps(make(a.archive, a.files, a.seed)))
    else:
        print(json.dumps(extract(a.archive, a.dest, a.trace, a.summary)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
