"""Lab `dedup` (chapter "How dedupalicious is your pool?", chapters/dedup.md).

Topology: a ZFS server container (zfs-fuse, pool version 23, which has dedup) with three pools, each
on one file of a Docker volume, and a fio client container that sees them through an rshared bind
of a host directory:

  est  dedup off, checksum sha256: fio writes a data set with planted duplication into it
  ctl  dedup off: fio writes a control data set with no duplicate blocks
  ddp  dedup on: the lab copies est's files into it

The dedup ratio is estimated before any dedup happens, the way Eric Kustarz's 2008 post did it:
from block signatures. Twice: by zdb -S (zdb's "simulated DDT", which counts the block pointers'
checksums; the descendant of the post's `zdb -S user:all` listing plus its perl script) and by the
lab itself (the files read back in 128 KiB blocks, SHA-256 of each, identical signatures counted).
Then dedup is done for real (ddp) and `zpool list` reports the ratio it got.

Real: ZFS (checksums, the DDT, dedup, zdb), fio, containers. Nothing is emulated; the pools sit on
plain files (the disks' speed plays no part here).

Produces, under the run directory:
  fio/planted.fio, fio/planted.json            fio's job and result
  fio/{planted,control}_clat_hist.N.log        each writer's 1 s latency histograms (perflab compare)
  zfs/zdb-S-est.txt, zfs/zdb-S-ctl.txt         zdb -S (simulated DDT histogram) of each pool
  zfs/zdb-DD-ddp.txt                           zdb -DD of the dedup pool (the real DDT)
  zfs/zpool-list.txt                           zpool list -H -o name,size,alloc,dedupratio
  zfs/signatures.json                          the lab's own SHA-256 signature counts
  events.json                                  wall-clock times of each step
"""
from __future__ import annotations

import collections
import hashlib
import json
import re
import time
from pathlib import Path

import pandas as pd

from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra import zfs
from perflab.infra.containers import Topology

RECORD = 128 * 1024
POOLS = {"est": {"checksum": "sha256"}, "ctl": {"checksum": "sha256"}, "ddp": {"dedup": "on"}}
POOL_FILE_BYTES = 4 << 30   # each pool's backing file (sparse)
#: Eric Kustarz, "how dedupalicious is your pool?" (19 March 2008): two toy pools.
FIGURES_2008 = {"zero_pct": 87.4269005847953, "random_pct": 14.2857142857143}
#: the checks' bands (justified in the chapter): the estimate vs the planted ratio, and the
#: estimate vs what ZFS achieved.
PLANTED_BAND = 0.15
ACTUAL_BAND = 0.03
CONTROL_MAX = 1.01


def planted_ratio(total_bytes: int, threads: int, pct: int, bs: int = RECORD) -> float:
    """The dedup ratio fio's dedupe_percentage plants, in expectation: each thread writes n
    blocks; its first is new, each later one repeats the block before with probability pct/100,
    so it has 1 + (n - 1)(1 - p) distinct blocks. Ratio = all blocks / distinct blocks."""
    n = total_bytes // threads // bs
    if n <= 0:
        raise ValueError("data set smaller than one block per thread")
    p = pct / 100.0
    return (threads * n) / (threads * (1 + (n - 1) * (1 - p)))


def block_signatures(paths, bs: int = RECORD) -> collections.Counter:
    """SHA-256 of every bs-sized block of the files (a short last block is hashed as it is):
    signature -> how many blocks have it. The same signature counting as the post's sorted zdb
    listing and perl script, done on the data rather than on the block pointers."""
    c = collections.Counter()
    for p in paths:
        with open(p, "rb") as fh:
            while True:
                b = fh.read(bs)
                if not b:
                    break
                c[hashlib.sha256(b).digest()] += 1
    return c


def signature_summary(c: collections.Counter, bs: int = RECORD) -> dict:
    """Totals the post printed (total, unique, dedupable share) plus the ratio and a histogram
    by reference count (as zdb's DDT histograms show it)."""
    total = sum(c.values())
    unique = len(c)
    hist = collections.Counter(c.values())
    return {"blocks": total, "unique": unique, "ratio": total / unique if unique else float("nan"),
            "dedupable_pct": 100.0 * (total - unique) / total if total else float("nan"),
            "histogram": {str(k): hist[k] for k in sorted(hist)}, "bs": bs}


_DEDUP_LINE = re.compile(r"dedup\s*=\s*([0-9.]+),\s*compress\s*=\s*([0-9.]+)")
_ENTRIES = re.compile(r"^(DDT-\S+):\s+(\d+) entries, size (\d+) on disk, (\d+) in core", re.M)
_SIZE = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}


def _size(tok: str) -> float:
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)", tok)
    return float(m.group(1)) * _SIZE[m.group(2)] if m else float("nan")


def parse_zdb_ddt(text: str) -> dict:
    """zdb -S (simulated) or zdb -DD (real) output: the DDT histogram rows (refcnt, allocated
    blocks, referenced blocks), the totals, the `dedup = X` line, and the per-DDT entry counts
    and sizes (bytes per entry on disk and in core, as zdb prints them)."""
    rows, total = [], None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 9 and (parts[0].isdigit() or parts[0] == "Total"):
            row = {"refcnt": parts[0], "blocks": _size(parts[1]), "lsize": _size(parts[2]),
                   "ref_blocks": _size(parts[5]), "ref_lsize": _size(parts[6])}
            if parts[0] == "Total":
                total = row
            else:
                rows.append(row)
    m = _DEDUP_LINE.search(text)
    ddts = [{"name": e[0], "entries": int(e[1]), "disk_bytes_per_entry": int(e[2]),
             "core_bytes_per_entry": int(e[3])} for e in _ENTRIES.findall(text)]
    return {"rows": rows, "total": total, "dedup": float(m.group(1)) if m else float("nan"),
            "compress": float(m.group(2)) if m else float("nan"), "ddts": ddts}


def parse_zpool_list(text: str) -> dict:
    """`zpool list -H -o name,size,alloc,dedupratio` -> {pool: {size, alloc, dedup}}."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 4:
            out[parts[0]] = {"size": _size(parts[1]), "alloc": _size(parts[2]),
                             "dedup": float(parts[3].rstrip("x"))}
    return out


def plan(p: dict) -> list[tuple[str, float]]:
    # Fitted to the full reference on the project's 2-core machine (402 MB: pools 1.6 s, write 3.5 s,
    # estimate 6.6 s, dedup 4.0 s, collect 0.8 s), with a little room.
    mb = p["data_size"] / 1e6
    return [("pools", 2.0), ("write", 1 + mb / 150), ("estimate", 2 + mb / 90), ("dedup", 1 + mb / 130),
            ("collect", 1.0)]


def job_file(s) -> fio.JobFile:
    p = s.params
    jf = fio.JobFile.load(s.lab.jobs_dir / "planted.fio")
    per_thread = p["data_size"] // p["threads"] // RECORD * RECORD
    jf.apply({"global": {"size": per_thread, "numjobs": p["threads"]},
              "planted": {"directory": f"{zfs.EXPORT}/est", "dedupe_percentage": p["dedupe_percentage"]},
              "control": {"directory": f"{zfs.EXPORT}/ctl"}})
    return jf


def run(s) -> None:
    p = s.params
    lp = zfs.lab_paths(s)
    tags, out, dev, export = lp.tags, lp.out, lp.dev, lp.export
    zdir = s.path("zfs")
    zdir.mkdir(exist_ok=True)
    job = job_file(s).write(out / "planted.fio")
    events: dict[str, int] = {}
    try:
        with zfs.shared_export(s.ledger, export) as exp, Topology(s.run_id, s.lab.name) as topo:
            with s.phase("pools"):
                s.provenance(fio_version=fio.version(topo, tags["fio"]))
                srv = zfs.ZfsServer.start(topo, tags["zfs"], exp, dev)
                for name, props in POOLS.items():
                    srv.sh(f"truncate -s {POOL_FILE_BYTES} {zfs.BACKING}/{name}")
                    srv.create_pool([f"{zfs.BACKING}/{name}"], {"recordsize": str(RECORD), "atime": "off",
                                                                 "compression": "off", **props}, name=name)
                s.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                             pool_version=srv.sh("zpool get version est").split()[-2])
            with s.phase("write"):
                fio.run_in_container(topo, tags["fio"], job, out, "planted",
                                     volumes={str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}},
                                     timeout=600)
                events["written_ms"] = int(time.time() * 1000)
            with s.phase("estimate"):
                for name in ("est", "ctl"):   # export and import: every block is on disk for zdb
                    srv.exec(["zpool", "export", name])
                    srv.exec(["zpool", "import", "-d", zfs.BACKING, name])
                    t = time.time()
                    (zdir / f"zdb-S-{name}.txt").write_text(srv.exec(["zdb", "-S", name])[1])
                    events[f"zdb_S_{name}_s"] = round(time.time() - t, 3)
                sigs = {}
                for name in ("est", "ctl"):
                    t = time.time()
                    files = sorted(f for f in (exp / name).iterdir() if f.is_file())
                    sigs[name] = {**signature_summary(block_signatures(files)),
                                  "files": [f.name for f in files], "seconds": round(time.time() - t, 3)}
                (zdir / "signatures.json").write_text(json.dumps(sigs, indent=1))
            with s.phase("dedup"):
                t = time.time()
                srv.sh(f"cp {zfs.EXPORT}/est/* {zfs.EXPORT}/ddp/")
                srv.exec(["zpool", "export", "ddp"])
                srv.exec(["zpool", "import", "-d", zfs.BACKING, "ddp"])
                events["copy_s"] = round(time.time() - t, 3)
                (zdir / "zpool-list.txt").write_text(
                    srv.exec(["zpool", "list", "-H", "-o", "name,size,alloc,dedupratio"])[1])
                (zdir / "zdb-DD-ddp.txt").write_text(srv.exec(["zdb", "-DD", "ddp"])[1])
            with s.phase("collect"):
                for name in POOLS:
                    srv.exec(["zpool", "export", name], check=False)
                srv.stop()
    finally:
        (s.path("events.json")).write_text(json.dumps(events, indent=2))
    s.metric(**summary(load(s.data_dir), p))


# ------------------------------------------------------------------------------ analysis

def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    zdir = data_dir / "zfs"
    return {"zdb_est": parse_zdb_ddt((zdir / "zdb-S-est.txt").read_text()),
            "zdb_ctl": parse_zdb_ddt((zdir / "zdb-S-ctl.txt").read_text()),
            "ddt": parse_zdb_ddt((zdir / "zdb-DD-ddp.txt").read_text()),
            "zpool": parse_zpool_list((zdir / "zpool-list.txt").read_text()),
            "sigs": json.loads((zdir / "signatures.json").read_text()),
            "fio": fiolog.read_fio_json(data_dir / "fio" / "planted.json"),
            "events": json.loads((data_dir / "events.json").read_text())}


def summary(d: dict, p: dict) -> dict:
    se, sc = d["sigs"]["est"], d["sigs"]["ctl"]
    planted = planted_ratio(se["blocks"] * RECORD, p["threads"], p["dedupe_percentage"])
    entries = sum(x["entries"] for x in d["ddt"]["ddts"])
    core = sum(x["entries"] * x["core_bytes_per_entry"] for x in d["ddt"]["ddts"])
    disk = sum(x["entries"] * x["disk_bytes_per_entry"] for x in d["ddt"]["ddts"])
    return {
        "blocks": se["blocks"], "unique": se["unique"],
        "planted_ratio": round(planted, 3),
        "sig_ratio": round(se["ratio"], 3), "sig_dedupable_pct": round(se["dedupable_pct"], 2),
        "zdb_ratio": d["zdb_est"]["dedup"], "zdb_blocks": d["zdb_est"]["total"]["ref_blocks"],
        "zdb_unique": d["zdb_est"]["total"]["blocks"],
        "actual_ratio": d["zpool"]["ddp"]["dedup"],
        "alloc_est_mib": round(d["zpool"]["est"]["alloc"] / 2 ** 20, 1),
        "alloc_ddp_mib": round(d["zpool"]["ddp"]["alloc"] / 2 ** 20, 1),
        "control_sig_ratio": round(sc["ratio"], 4), "control_zdb_ratio": d["zdb_ctl"]["dedup"],
        "ddt_entries": entries, "ddt_core_bytes": core, "ddt_disk_bytes": disk,
        "ddt_core_bytes_per_entry": round(core / entries, 1) if entries else None,
        "sig_seconds": se["seconds"], "zdb_seconds": d["events"].get("zdb_S_est_s"),
    }


def pow2_buckets(hist: dict) -> dict[int, int]:
    """{reference count: distinct blocks} into zdb's buckets: bucket k holds counts k..2k-1
    (k = 1, 2, 4, 8, ...)."""
    out: dict[int, int] = collections.Counter()
    for refs, n in hist.items():
        out[1 << (int(refs).bit_length() - 1)] += n
    return dict(sorted(out.items()))


def histogram_table(d: dict) -> pd.DataFrame:
    """Distinct blocks by how many times their content occurs, in zdb's power-of-two buckets: the
    lab's signature count beside zdb -S's simulated DDT and the dedup pool's real DDT."""
    sig = pow2_buckets(d["sigs"]["est"]["histogram"])
    zs = {int(r["refcnt"]): r for r in d["zdb_est"]["rows"]}
    dd = {int(r["refcnt"]): r for r in d["ddt"]["rows"]}
    rows = []
    for k in sorted(set(sig) | set(zs) | set(dd)):
        rows.append({"times each content occurs": f"{k}-{2 * k - 1}" if k > 1 else "1",
                     "distinct blocks (SHA-256 count)": sig.get(k, 0),
                     "zdb -S bucket (allocated blocks)": zs[k]["blocks"] if k in zs else 0,
                     "real DDT bucket (allocated blocks)": dd[k]["blocks"] if k in dd else 0})
    return pd.DataFrame(rows).set_index("times each content occurs")
