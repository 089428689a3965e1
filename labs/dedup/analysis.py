"""The dedup lab's reading of a run: the ratio fio plants, the lab's own signature count, zdb's DDT
histograms and `zpool list` parsed, the headline numbers (summary), and the three histograms side by
side. Reads a live run or the reference alike."""
from __future__ import annotations

import collections
import hashlib
import json
import re
from pathlib import Path

import pandas as pd

from perflab.fio import logs as fiolog

RECORD = 128 * 1024   # fio's block size and the pools' record size: one block is one record


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


def planted_job(result: dict) -> dict:
    """What fio ran for the planted set, from its JSON: how many threads wrote it (one job entry
    each) and the dedupe_percentage they wrote with."""
    jobs = [j for j in result.get("jobs", []) if j["jobname"] == "planted"]
    if not jobs:
        raise ValueError("fio's JSON has no 'planted' job")
    return {"threads": len(jobs), "dedupe_percentage": int(jobs[0]["job options"]["dedupe_percentage"])}


def load(data_dir: Path) -> dict:
    """zdb's and zpool's output, the lab's signature counts, fio's result (and what it planted) and
    the step times, from a run directory."""
    data_dir = Path(data_dir)
    zdir = data_dir / "zfs"
    result = fiolog.read_fio_json(data_dir / "fio" / "planted.json")
    return {"zdb_est": parse_zdb_ddt((zdir / "zdb-S-est.txt").read_text()),
            "zdb_ctl": parse_zdb_ddt((zdir / "zdb-S-ctl.txt").read_text()),
            "ddt": parse_zdb_ddt((zdir / "zdb-DD-ddp.txt").read_text()),
            "zpool": parse_zpool_list((zdir / "zpool-list.txt").read_text()),
            "sigs": json.loads((zdir / "signatures.json").read_text()),
            "fio": result, "planted": planted_job(result),
            "events": json.loads((data_dir / "events.json").read_text())}


def summary(d: dict) -> dict:
    """The headline numbers: the planted ratio, the two estimates and what dedup achieved, the
    control set's estimates, space allocated, the real DDT's size, how far the three histograms
    are apart, and how long each estimate took."""
    se, sc = d["sigs"]["est"], d["sigs"]["ctl"]
    planted = planted_ratio(se["blocks"] * RECORD, d["planted"]["threads"], d["planted"]["dedupe_percentage"])
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
        "histogram_max_diff": histogram_diff(histogram_table(d)),
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


def histogram_diff(h: pd.DataFrame) -> float:
    """How far zdb -S's and the real DDT's buckets are from the SHA-256 count's (histogram_table's
    first column): the largest difference in any bucket, over the SHA-256 count's largest bucket."""
    worst = max(abs(h.iloc[:, i] - h.iloc[:, 0]).max() / max(h.iloc[:, 0].max(), 1) for i in (1, 2))
    return round(float(worst), 4)
