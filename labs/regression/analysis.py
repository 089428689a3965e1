"""The regression lab's reading of a run: each measurement's latency maps and the device's share of
its log (load), the comparison of the two sides against the noise of the unchanged one, the tables,
and the headline numbers (summary). Reads a live run or the reference alike; the parameters come from
the run's own run.json."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis import difference, heatmap
from perflab.fio import logs as fiolog
from perflab.infra.slowdisk import read_device_log
from perflab.run.record import params_of

from .experiment import BASE_PROPS, CHANGES, model_us, record_bytes

KIB = 1024
#: Medians are read from maps with fio's own resolution (64 buckets per power of two: fio's
#: histogram bins fold into them exactly); the comparison uses the book's usual 8.
FINE_SUB = 64


def load(data_dir: Path) -> dict:
    """Each measurement (one round on one side): fio's report, its latency map (columns from its
    own start), and what the device did meanwhile; the datasets' properties as ZFS reported them,
    and the run's parameters (its run.json)."""
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
                     "device_lat_us": log.lat_ns.to_numpy()[sel] / 1000,
                     "device_sizes": sorted({int(x) for x in log.bs.to_numpy()[sel]})})
    props_txt = (data_dir / "zfs" / "properties.txt").read_text()
    datasets: dict[str, dict] = {}
    for line in props_txt.splitlines():
        name, prop, value = line.split("\t")
        datasets.setdefault(name.rsplit("/", 1)[-1], {})[prop] = value
    return {"runs": runs, "datasets": datasets, "fio_version": rep.get("fio version", ""),
            "params": params_of(data_dir)}


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


def rounds_table(d: dict) -> pd.DataFrame:
    """Run by run: what each fio read cost the device (bytes and time: the drill-down quotes them, so
    they come first and stay in view on a phone), then median and mean latency and IOPS. One format
    per column: whole microseconds and IOPS; KiB to one decimal unless every run's is whole."""
    kib = [r["device_bytes"] / r["fio_reads"] / KIB for r in d["runs"]]
    whole = all(abs(x - round(x)) < 0.05 for x in kib)
    rows = []
    for r, k in zip(d["runs"], kib):
        rows.append({"round": r["round"], "dataset": r["side"],
                     "device KiB/read": round(k) if whole else f"{k:,.1f}",
                     "device us/read": round(r["device_us"] * r["device_reads"] / r["fio_reads"]),
                     "median us": round(r["fine"].percentile(50) / 1000), "mean us": round(r["mean_us"]),
                     "IOPS": round(r["iops"])})
    return pd.DataFrame(rows)


def _side_totals(d: dict, side: str) -> dict:
    rs = side_runs(d, side)
    reads = sum(r["fio_reads"] for r in rs)
    return {"reads": reads, "mean_us": sum(r["mean_us"] * r["fio_reads"] for r in rs) / reads,
            "iops": float(np.mean([r["iops"] for r in rs])),
            "device_reads_per_read": sum(r["device_reads"] for r in rs) / reads,
            "device_bytes_per_read": sum(r["device_bytes"] for r in rs) / reads,
            "device_us_per_read": sum(r["device_us"] * r["device_reads"] for r in rs) / reads,
            **_typical(np.concatenate([r["device_lat_us"] for r in rs])),
            "median_us": merged(d, side, "fine").percentile(50) / 1000}


LATE_OVER = 1.1   # a device read "held up": over 1.1 x the side's median device time


def _typical(lat_us: np.ndarray) -> dict:
    """The side's typical device read (its median time) and the share held up past LATE_OVER x it: a
    model at the wrong time moves them all, a machine whose timers wake late now and then only the tail."""
    if not len(lat_us):
        return {"device_us_median": float("nan"), "device_late_share": float("nan")}
    med = float(np.median(lat_us))
    return {"device_us_median": med, "device_late_share": float(np.mean(lat_us > LATE_OVER * med))}


def summary(d: dict) -> dict:
    """The chapter's numbers, from a run's data alone (its parameters are in it: load)."""
    p = d["params"]
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
        "before_device_us_median": round(b["device_us_median"], 1),
        "after_device_us_median": round(a["device_us_median"], 1),
        "before_device_late_share": round(b["device_late_share"], 4),
        "after_device_late_share": round(a["device_late_share"], 4),
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
