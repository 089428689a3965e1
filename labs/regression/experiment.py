"""Lab `regression` (chapter "Change one thing: is the difference real?", chapters/regression.md).

The question asked after every change: did it make a difference, and is the difference larger
than what two runs of the same thing differ by? Two ZFS datasets in one pool are identical but for
one property (the `change` parameter; the default is the record size, 4 KiB before, 128 KiB after,
the regression a database meets when its dataset is re-created with ZFS's default). fio reads each
at random, 4 KiB at a time, at queue depth 1, in rounds that alternate between them (before,
after; after, before; ...), so that a drift of the machine during the lab falls on both sides. The
rounds on the "before" dataset measure the noise; `perflab.analysis.difference` says whether the
"after" reads differ by more, and which latency bands moved. Then the drill-down: the pool's one
device logs every I/O it serves, so what each fio read cost the device (reads, bytes, time) is
measured, not supposed.

Topology: the ZFS server container (zfs-fuse) with a pool on one emulated device (slowdisk with no
positioning costs: no seek, no rotation, only a transfer time at `device_mbps`, the disk model's
media rate by default), `primarycache=metadata` on both datasets (the ARC keeps no data: every read
reaches the device), and fio in a client container that sees the datasets through an rshared bind.

Real: ZFS (records, checksums, the ARC's policy), fio, the containers, FUSE. Emulated: the device's
transfer time (slowdisk); the result's size depends on `device_mbps`.

Produces under the run directory:
  fio/fill.{fio,json}, fio/warmup-<side>.{fio,json}, fio/<side>-<round>.{fio,json},
  fio/<side>-<round>_clat_hist.1.log      each measured run's latency histogram log (1 s, epoch ms)
  device/d0.log, device/mount.epoch_ms    the device's per-I/O log (slowdisk)
  device/rounds.jsonl                     per run: name, round, side, start and end (epoch ms)
  zfs/properties.txt                      `zfs get` of both datasets' record size, checksum, ...
"""
from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis import difference, heatmap
from perflab.config.values import parse_size
from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra import zfs
from perflab.infra.containers import Topology
from perflab.infra.slowdisk import DiskModel, read_device_log

KIB = 1024
SIDES = ("before", "after")
#: Both datasets' properties; the "after" one differs in the one property `change` names.
BASE_PROPS = {"recordsize": "4K", "checksum": "fletcher4", "compression": "off", "primarycache": "metadata",
              "atime": "off"}
#: The changes the lab offers (the `change` parameter's choices): property -> value after.
CHANGES = {"recordsize=128K": ("recordsize", "128K"), "checksum=sha256": ("checksum", "sha256"),
           "none": (None, None)}
READ_BS = 4 * KIB
#: The device's fixed cost per command (ms). Without it a 4 KiB transfer at 120 MB/s (34 us) is as
#: short as slowdisk's estimate of the host timer's lateness, which it takes off every wait: a trial
#: reference run logged 39 us per read in three rounds and 4.9 us in the fourth, noise that came from
#: the emulator, not from ZFS or the host. 0.1 ms is the low end of slowdisk/README.md's SSD recipe.
COMMAND_MS = 0.1
#: Model times of at least this many us are held to the model (several times the host timer's
#: usual lateness, ~25 us in slowdisk/README.md).
TIMED_MIN_US = 100
#: For perflab.analysis.sanity: the warm-up reads are set-up, deliberately short and not measured.
INTENT = {"warmup": "setup", "before": "setup", "after": "setup"}
#: The device holds both files and the pool's metadata.
DEVICE_SLACK = 256 << 20
PROPS_SHOWN = ("recordsize", "checksum", "compression", "primarycache")
#: Medians are read from maps with fio's own resolution (64 buckets per power of two: fio's
#: histogram bins fold into them exactly); the comparison uses the book's usual 8.
FINE_SUB = 64


def props(side: str, change: str) -> dict[str, str]:
    """The dataset properties of one side."""
    out = dict(BASE_PROPS)
    key, value = CHANGES[change]
    if side == "after" and key:
        out[key] = value
    return out


def record_bytes(side: str, change: str) -> int:
    return parse_size(props(side, change)["recordsize"])


def order(rounds: int) -> list[tuple[int, str]]:
    """(round, side) in the order they run: before, after; after, before; ... (round 1 first)."""
    out = []
    for r in range(1, rounds + 1):
        out += [(r, side) for side in (SIDES if r % 2 else SIDES[::-1])]
    return out


def run_name(side: str, rnd: int) -> str:
    return f"{side}-{rnd}"


def plan(p: dict) -> list[tuple[str, float]]:
    return [("pool", 6.0), ("fill", 2 + 2 * p["file_size"] / 150e6 + 2 * (p["phase"] + 2.5)),
            ("rounds", 2 * p["rounds"] * (p["phase"] + 2.5)), ("collect", 2.0)]


def _path(side: str) -> str:
    return f"{zfs.EXPORT}/{zfs.POOL}/{side}/data.dat"


def jobs(s) -> dict[str, fio.JobFile]:
    """The fill job, an unmeasured warm-up read of each dataset (as long as a round: the first
    reads after the fill are slower while the pool's metadata is read in), and one read job per
    (round, side), named as they run."""
    p = s.params
    fill = fio.JobFile.load(s.lab.jobs_dir / "fill.fio")
    fill.apply({"global": {"size": p["file_size"]}, **{side: {"filename": _path(side)} for side in SIDES}})
    out = {"fill": fill}
    reads = (s.lab.jobs_dir / "random-reads.fio").read_text()
    for side in SIDES:   # the same reads, as a job named "warmup" (set-up for the sanity rules), no log
        jf = fio.JobFile.parse(reads.replace("[reads]", "[warmup]"), f"warmup-{side}")
        jf.apply({"global": {"filename": _path(side), "size": p["file_size"], "runtime": int(p["phase"])}})
        jf.set("global", "write_hist_log", None)
        jf.set("global", "log_hist_msec", None)
        out[f"warmup-{side}"] = jf
    for rnd, side in order(p["rounds"]):
        jf = fio.JobFile.load(s.lab.jobs_dir / "random-reads.fio")
        name = run_name(side, rnd)
        jf.apply({"global": {"filename": _path(side), "size": p["file_size"], "runtime": int(p["phase"]),
                             "write_hist_log": name}})
        out[name] = jf
    return out


def device_model(p: dict) -> DiskModel:
    """The pool's device: a fixed cost per command plus the transfer (no seek, no rotational delay,
    no near-jump cost; slowdisk/README.md's recipe for an SSD-like device), at the run's
    `device_mbps`: a read costs it COMMAND_MS plus its size over the media rate."""
    return DiskModel(rpm=0, seek_min_ms=0, seek_max_ms=0, near_ms=0, overhead_ms=COMMAND_MS,
                     transfer_mbps=float(p["device_mbps"]), seed=1).validate()


def model_us(side: str, p: dict) -> float:
    """What the device model charges one read of a whole record on that side, in us."""
    return 1000 * COMMAND_MS + record_bytes(side, p["change"]) / p["device_mbps"]


def device_bytes(p: dict) -> int:
    return 2 * p["file_size"] + DEVICE_SLACK


def run(s) -> None:
    p = s.params
    lp = zfs.lab_paths(s, zfs_dir=True)
    tags, out, dev, export, zdir = lp.tags, lp.out, lp.dev, lp.export, lp.zdir
    files = {k: v.write(out / f"{k}.fio") for k, v in jobs(s).items()}
    vols = {str(export): {"bind": zfs.EXPORT, "mode": "rw,rslave"}}
    rounds_log = dev / "rounds.jsonl"
    with zfs.shared_export(s.ledger, export), Topology(s.run_id, s.lab.name) as topo:
        with s.phase("pool"):
            s.provenance(fio_version=fio.version(topo, tags["fio"]))
            srv = zfs.ZfsServer.start(topo, tags["zfs"], export, dev)
            disks = srv.make_disks(1, device_bytes(p), device_model(p))
            srv.create_pool(disks, {"atime": "off"})
            for side in SIDES:
                srv.exec(["zfs", "create", *sum((["-o", f"{k}={v}"] for k, v in props(side, p["change"]).items()),
                                                []), f"{zfs.POOL}/{side}"])
            (zdir / "properties.txt").write_text(srv.exec(
                ["zfs", "get", "-H", "-o", "name,property,value", ",".join(PROPS_SHOWN),
                 *(f"{zfs.POOL}/{x}" for x in SIDES)])[1])
            s.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                         disk_model=device_model(p).to_options(), datasets={side: props(side, p["change"]) for side in SIDES})
        with s.phase("fill"):
            fio.run_in_container(topo, tags["fio"], files["fill"], out, "fill", volumes=vols, timeout=1800)
            for side in SIDES:
                fio.run_in_container(topo, tags["fio"], files[f"warmup-{side}"], out, f"warmup-{side}",
                                     volumes=vols, timeout=300)
        with s.phase("rounds"):
            for rnd, side in order(p["rounds"]):
                name = run_name(side, rnd)
                t0 = int(time.time() * 1000)
                fio.run_in_container(topo, tags["fio"], files[name], out, name, volumes=vols,
                                     timeout=p["phase"] + 300)
                with rounds_log.open("a") as fh:
                    fh.write(json.dumps({"name": name, "round": rnd, "side": side, "start_ms": t0,
                                         "end_ms": int(time.time() * 1000)}) + "\n")
        with s.phase("collect"):
            srv.stop()
    s.metric(**summary(load(s.data_dir), p))


# ------------------------------------------------------------------------------ analysis

def load(data_dir: Path) -> dict:
    """Each measurement (one round on one side): fio's report, its latency map (columns from its
    own start), and what the device did meanwhile."""
    data_dir = Path(data_dir)
    fdir, ddir = data_dir / "fio", data_dir / "device"
    log = read_device_log(next(iter(sorted(ddir.glob("d0.log*"))), ddir / "d0.log"))   # .gz in a reference
    log_ms = log.time_ms.to_numpy() + int((ddir / "mount.epoch_ms").read_text())
    reads = (log.ddir == 0).to_numpy()
    runs = []
    for line in (data_dir / "device" / "rounds.jsonl").read_text().splitlines():
        r = json.loads(line)
        rep = fiolog.read_fio_json(fdir / f"{r['name']}.json")
        job = rep["jobs"][0]["read"]
        logs = sorted(fdir.glob(f"{r['name']}_clat_hist.*.log*"))
        t0 = fiolog.first_time_ms(logs, hist=True) // 1000 * 1000
        hm = replace(heatmap.from_hist_log(logs, t0_ms=t0), t0_ms=0)
        fine = replace(heatmap.from_hist_log(logs, t0_ms=t0, sub=FINE_SUB), t0_ms=0)
        sel = reads & (log_ms >= r["start_ms"]) & (log_ms <= r["end_ms"])
        runs.append({**r, "map": hm, "fine": fine, "fio_reads": int(job["total_ios"]), "iops": float(job["iops"]),
                     "mean_us": float(job["clat_ns"]["mean"]) / 1000, "device_reads": int(sel.sum()),
                     "device_bytes": int(log.bs.to_numpy()[sel].sum()),
                     "device_us": float(log.lat_ns.to_numpy()[sel].mean()) / 1000 if sel.any() else float("nan"),
                     "device_sizes": sorted({int(x) for x in log.bs.to_numpy()[sel]})})
    props_txt = (data_dir / "zfs" / "properties.txt").read_text()
    datasets: dict[str, dict] = {}
    for line in props_txt.splitlines():
        name, prop, value = line.split("\t")
        datasets.setdefault(name.rsplit("/", 1)[-1], {})[prop] = value
    return {"runs": runs, "datasets": datasets, "fio_version": rep.get("fio version", "")}


def side_runs(d: dict, side: str) -> list[dict]:
    return [r for r in d["runs"] if r["side"] == side]


def merged(d: dict, side: str, key: str = "map") -> heatmap.HeatMap:
    """All of one side's rounds in one map, each from its own start (key "fine": at fio's resolution)."""
    return heatmap.merge(r[key] for r in side_runs(d, side))


def compare(d: dict, p: dict) -> difference.Difference:
    """Every "after" read against every "before" read, the noise measured between the "before"
    rounds (each pair of them): merged sides have less sampling noise than one round, so a verdict
    of "differs" here is, if anything, harder to reach than round against round."""
    key, value = CHANGES[p["change"]]
    params = {key: (BASE_PROPS[key], value)} if key else {}
    return difference.compare(merged(d, "before"), merged(d, "after"), [r["map"] for r in side_runs(d, "before")],
                              names=("before", "after"), params=params)


def pair_distances(d: dict) -> list[tuple[int, int, difference.Distance]]:
    """(round, round, distance) for each pair of "before" rounds."""
    before = side_runs(d, "before")
    return [(a["round"], b["round"], difference.distance(*difference.common_buckets(a["map"], b["map"])))
            for i, a in enumerate(before) for b in before[i + 1:]]


def noise_table(d: dict) -> pd.DataFrame:
    """The distance between each pair of "before" rounds: the yardstick."""
    return pd.DataFrame([{"rounds": f"{a} and {b}", "KS": round(x.ks, 4), "W1 (octaves)": round(x.w1, 4)}
                         for a, b, x in pair_distances(d)])


def rounds_table(d: dict, p: dict) -> pd.DataFrame:
    """Run by run: IOPS, median and mean latency, and the device's bytes and time per fio read."""
    rows = []
    for r in d["runs"]:
        rows.append({"round": r["round"], "dataset": r["side"], "IOPS": round(r["iops"]),
                     "median us": round(r["fine"].percentile(50) / 1000, 1), "mean us": round(r["mean_us"], 1),
                     "device KiB/read": round(r["device_bytes"] / r["fio_reads"] / KIB, 2),
                     "device us/read": round(r["device_us"] * r["device_reads"] / r["fio_reads"], 1)})
    return pd.DataFrame(rows)


def _side_totals(d: dict, side: str) -> dict:
    rs = side_runs(d, side)
    reads = sum(r["fio_reads"] for r in rs)
    return {"reads": reads, "mean_us": sum(r["mean_us"] * r["fio_reads"] for r in rs) / reads,
            "iops": float(np.mean([r["iops"] for r in rs])),
            "device_reads_per_read": sum(r["device_reads"] for r in rs) / reads,
            "device_bytes_per_read": sum(r["device_bytes"] for r in rs) / reads,
            "device_us_per_read": sum(r["device_us"] * r["device_reads"] for r in rs) / reads,
            "median_us": merged(d, side, "fine").percentile(50) / 1000}


def summary(d: dict, p: dict) -> dict:
    diff = compare(d, p)
    b, a = _side_totals(d, "before"), _side_totals(d, "after")
    per_round = {}
    for r in d["runs"]:
        per_round.setdefault(r["round"], {})[r["side"]] = r["fine"].percentile(50) / 1000
    round_ratios = [v["after"] / v["before"] for _, v in sorted(per_round.items())]
    runs = d["runs"]
    extra_kib = (a["device_bytes_per_read"] - b["device_bytes_per_read"]) / KIB
    extra_us = a["mean_us"] - b["mean_us"]
    return {
        "rounds": len(per_round), "noise_runs": diff.noise_runs,
        "verdict": diff.verdict, "ks": round(diff.distance.ks, 4), "w1_octaves": round(diff.distance.w1, 4),
        "noise_ks": round(diff.noise.ks, 4), "noise_w1_octaves": round(diff.noise.w1, 4),
        "before_reads": b["reads"], "after_reads": a["reads"],
        "before_median_us": round(b["median_us"], 1), "after_median_us": round(a["median_us"], 1),
        "median_ratio": round(a["median_us"] / b["median_us"], 4),
        "before_mean_us": round(b["mean_us"], 1), "after_mean_us": round(a["mean_us"], 1),
        "mean_ratio": round(a["mean_us"] / b["mean_us"], 4),
        "before_iops": round(b["iops"], 1), "after_iops": round(a["iops"], 1),
        "iops_ratio": round(a["iops"] / b["iops"], 4),
        "round_median_ratios": [round(x, 4) for x in round_ratios],
        "rounds_slower": sum(x > 1 for x in round_ratios),
        "before_device_kib_per_read": round(b["device_bytes_per_read"] / KIB, 3),
        "after_device_kib_per_read": round(a["device_bytes_per_read"] / KIB, 3),
        "device_bytes_ratio": round(a["device_bytes_per_read"] / b["device_bytes_per_read"], 4),
        "expected_bytes_ratio": record_bytes("after", p["change"]) / record_bytes("before", p["change"]),
        "device_reads_per_read_min": round(min(r["device_reads"] / r["fio_reads"] for r in runs), 4),
        "device_reads_per_read_max": round(max(r["device_reads"] / r["fio_reads"] for r in runs), 4),
        "record_fill_min": round(min(r["device_bytes"] / r["device_reads"] / record_bytes(r["side"], p["change"])
                                     for r in runs), 4),
        "record_fill_max": round(max(r["device_bytes"] / r["device_reads"] / record_bytes(r["side"], p["change"])
                                     for r in runs), 4),
        "before_device_model_us": round(model_us("before", p), 1),
        "after_device_model_us": round(model_us("after", p), 1),
        "before_device_us_per_read": round(b["device_us_per_read"], 1),
        "after_device_us_per_read": round(a["device_us_per_read"], 1),
        "before_outside_us": round(b["mean_us"] - b["device_us_per_read"], 1),
        "after_outside_us": round(a["mean_us"] - a["device_us_per_read"], 1),
        "extra_us_per_read": round(extra_us, 1), "extra_kib_per_read": round(extra_kib, 1),
        "extra_device_us_per_read": round(a["device_us_per_read"] - b["device_us_per_read"], 1),
        "device_share_of_extra": round((a["device_us_per_read"] - b["device_us_per_read"]) / extra_us, 4)
        if extra_kib > 1 and extra_us > 0 else None,
        "bands": [b_.text() for b_ in diff.bands],
        # the noise without round 1, and the round in most of the largest pairs
        "noise_ks_without_round_1": round(max((x.ks for a_, b_, x in pair_distances(d) if 1 not in (a_, b_)),
                                              default=float("nan")), 4),
        "noise_w1_without_round_1": round(max((x.w1 for a_, b_, x in pair_distances(d) if 1 not in (a_, b_)),
                                              default=float("nan")), 4),
        "before_read_sizes": sorted({z for r in side_runs(d, "before") for z in r["device_sizes"]}),
        "after_read_sizes": sorted({z for r in side_runs(d, "after") for z in r["device_sizes"]}),
    }
