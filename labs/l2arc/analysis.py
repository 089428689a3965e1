"""The l2arc lab's reading of a run: fio's latency logs as heat maps, the ARC's kstats as rates per
tier, the emulated disks' service times, and from them the warm-up curve, its prediction from first
principles, the reads with the cache device removed, and the headline numbers (summary). Reads a live
run or the reference alike; the parameters and the preset come from the run's own run.json."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.analysis import heatmap
from perflab.fio import logs as fiolog
from perflab.fio.jobs import JobFile
from perflab.infra import zfs
from perflab.run.record import RunRecord

from .experiment import RECORD

#: 2009 figures: "L2ARC Screenshots" and "DRAM latency" posts (Brendan Gregg, 2009) and the Hybrid
#: Storage Pool top-speeds post: a 7410 with 128 GB DRAM, 6 x 100 GB read SSDs, 140 disks.
FIGURES_2009 = {"arc_warmup_min": 92, "disk_rate": "< 20 MB/s of random reads",
                "l2arc_warmup": "over a day (half of it fills quickly)", "iops_gain": "> 5x (40x on RAID-Z2)",
                "dram_us": "0-21 us", "l2arc_band_start": "~300 us (where the band begins)",
                "l2arc_best": "128-260 us (best case)", "disk_band_low": "2 ms (band's lower edge)",
                "disk_band_high": "10 ms (band's upper edge)", "hdr_dram_gb": 15, "hdr_l2arc_gb": 600}

#: The least warm / cold IOPS ratio the check "warm IOPS well above cold" asks, by the run's preset
#: (any other: WARM_IOPS_MIN_OTHER); summary() gives it as the metric warm_cold_ratio_min.
WARM_IOPS_MIN = {"full": 5.0, "smoke": 3.0}
WARM_IOPS_MIN_OTHER = 3.0
OFF_SETTLE_S = 5.0   # the first seconds without the cache device are left out of its statistics
KEPT_S = 5.0         # the ARC's hit share right after the removal: over its first seconds


def load(data_dir: Path) -> dict:
    """The run read back: heat maps of fio's reads (warm-up, and without the cache device) and of the
    disks' service times, the ARC's kstats and their rates, fio's summaries, and the parameters and
    preset the run was made with (its run.json)."""
    data_dir = Path(data_dir)
    doc = RunRecord(data_dir).read()
    fdir, ddir = data_dir / "fio", data_dir / "device"
    logs = sorted(fdir.glob("warmup_clat_hist.*.log*"))
    t0 = fiolog.first_time_ms(logs, hist=True) // 1000 * 1000
    app = heatmap.from_hist_log(logs, t0_ms=t0)
    mount_ms = int((ddir / "mount.epoch_ms").read_text())
    dev_logs = sorted(p for p in ddir.glob("d*.log*") if ".wait." not in p.name)
    device = heatmap.from_lat_log(dev_logs, t0_ms=t0 - mount_ms)
    ks_all = zfs.read_arcstats_series(ddir / "arcstats.txt")
    events = json.loads((data_dir / "events.json").read_text())
    ks = ks_all[ks_all.index <= events["warm_end_ms"]] if "warm_end_ms" in events else ks_all
    ks.index = (ks.index - t0) / 1000.0    # the sampler runs on after the warm-up: ks is the warm-up only
    rates = ks.diff().div(pd.Series(ks.index, index=ks.index).diff(), axis=0).iloc[1:]
    warm = fiolog.read_fio_json(fdir / "random-reads.json")
    probe = fiolog.job_table(fiolog.read_fio_json(fdir / "arc-probe.json")).set_index("job")
    off_logs = sorted(fdir.glob("off_clat_hist.*.log*"))
    off = None
    if off_logs and "off_start_ms" in events:   # the L2ARC removed, the same reads on, on the warm-up's clock
        off_ks = ks_all[(ks_all.index >= events["warm_end_ms"]) & (ks_all.index <= events["off_end_ms"])]
        off_ks.index = (off_ks.index - t0) / 1000.0
        off = {"app": heatmap.from_hist_log(off_logs, t0_ms=t0),
               "rates": off_ks.diff().div(pd.Series(off_ks.index, index=off_ks.index).diff(), axis=0).iloc[1:],
               "start_s": (events["off_start_ms"] - t0) / 1000.0, "end_s": (events["off_end_ms"] - t0) / 1000.0}
    params = dict(doc.get("params", {}))
    # the working set as fio read it: a mystery run keeps it sealed in run.json (the job file has it)
    params["working_set"] = int(JobFile.load(fdir / "random-reads.fio").get("global", "size"))
    return {"app": app, "device": device, "kstats": ks, "rates": rates, "t0_ms": t0, "off": off,
            "jobs": fiolog.job_table(warm), "probe": probe, "fio_version": warm.get("fio version"),
            "params": params, "preset": doc.get("preset")}


def iops_series(d: dict, window_s: int = 5) -> pd.Series:
    app = d["app"]
    tot = pd.Series(app.column_totals(), index=app.seconds()) / app.col_s
    return tot.rolling(window_s, min_periods=1).mean()


def tier_rates(d: dict) -> pd.DataFrame:
    """Reads per second answered by each tier, from the ARC's counters: DRAM (ARC hits), L2ARC
    (l2_hits) and disk (ARC misses that the L2ARC missed too). ``d``: load()'s, or its "off"."""
    r = d["rates"]
    return pd.DataFrame({"DRAM (ARC)": r["hits"], "L2ARC": r["l2_hits"], "disk": r["l2_misses"]}).clip(lower=0)


def warmup_time(d: dict, level: float = 0.9) -> float:
    """Seconds until the caches (ARC + L2ARC) answer `level` of the reads, over 5 s windows."""
    t = tier_rates(d).rolling(5, min_periods=1).mean()
    share = (t["DRAM (ARC)"] + t["L2ARC"]) / t.sum(axis=1)
    hit = share[share >= level]
    return float(hit.index[0]) if len(hit) else float("nan")


def in_flight(p: dict) -> int:
    """Disk reads in flight at once: one per thread, but no more than the disks can serve."""
    return min(p["threads"], p["disks"])


def disk_bound_s(p: dict, cold_latency_us: float, level: float = 0.9) -> float:
    """T = level x (working set / record) x cold latency / min(threads, disks)."""
    return level * p["working_set"] / RECORD * cold_latency_us / 1e6 / in_flight(p)


def predicted_warmup(d: dict, p: dict, level: float = 0.9) -> dict:
    """First principles: every record must be read from disk once, one miss at a time per thread
    and per disk, and the L2ARC feed thread must keep up."""
    cold = phase_stats(d, "cold")
    records = p["working_set"] / RECORD
    disk_bound = disk_bound_s(p, cold["p50_us"], level)
    feed_bound = level * p["working_set"] / (16 * 2 ** 20)   # l2arc_write_max 8 MiB x boost 2, per second
    return {"records": int(records), "cold_latency_us": cold["p50_us"], "disk_bound_s": disk_bound,
            "feed_bound_s": feed_bound, "predicted_s": max(disk_bound, feed_bound)}


def phase_stats(d: dict, which: str) -> dict:
    app = d["app"]
    end = app.n_columns * app.col_s
    span = max(5.0, round(0.1 * end))
    a, b = (1.0, 1.0 + span) if which == "cold" else (end - 1.0 - span, end - 1.0)
    n = int(app.counts[int(a):int(b)].sum())
    return {"from_s": a, "to_s": b, "iops": n / (b - a), "p50_us": app.percentile(50, a, b) / 1000}


def fill_rate_mib_s(ks: pd.DataFrame) -> float | None:
    """L2ARC fill rate while it fills: from its smallest size to 90% of its final size."""
    l2 = ks["l2_size"]
    t_lo = l2.idxmin()
    after = l2[l2.index > t_lo]
    reached = after[after >= 0.9 * l2.iloc[-1]]
    if l2.iloc[-1] <= l2.min() or reached.empty or reached.index[0] <= t_lo:
        return None
    t_hi = reached.index[0]
    return round(float(l2[t_hi] - l2[t_lo]) / (t_hi - t_lo) / 2 ** 20, 2)


def _tier_shares(d: dict, a: float, b: float) -> dict:
    """Share of the reads each tier answered, and DRAM hits per second, over [a, b) seconds."""
    t = tier_rates(d)
    t = t[(t.index >= a) & (t.index < b)]
    tot = t.sum()
    return {"dram_share": float(tot["DRAM (ARC)"] / tot.sum()), "l2_share": float(tot["L2ARC"] / tot.sum()),
            "dram_per_s": float(t["DRAM (ARC)"].mean())}


def band_edges(app, a: float, b: float, below: float, share: float, q=(0.05, 0.95)) -> tuple[float, ...]:
    """The `q` quantiles (us) of one tier's band in fio's heat map over [a, b) s: the band that holds
    `share` of the reads, above the fastest `below` of them (the faster tiers' share, by the ARC's
    counters). 2009's figures are bands' edges ("begins returning data at 300 us", "2-10 ms"): these
    are what compares with them, not the phase's median over every tier."""
    if share <= 0:
        return tuple(float("nan") for _ in q)
    return tuple(app.percentile(100 * min(1.0, below + x * share), a, b) / 1000 for x in q)


def header_memory(ks: pd.DataFrame) -> dict:
    """The L2ARC headers' DRAM at its largest while the cache device was there (l2_hdr_size), with
    the L2ARC's size at that moment; None where the run did not sample l2_hdr_size."""
    if "l2_hdr_size" not in ks.columns or ks.empty:
        return {"l2_hdr_peak_bytes": None, "l2_size_at_hdr_peak_mib": None, "hdr_size_at_hdr_peak_bytes": None}
    t = ks["l2_hdr_size"].idxmax()
    return {"l2_hdr_peak_bytes": int(ks["l2_hdr_size"][t]),
            "l2_size_at_hdr_peak_mib": round(float(ks["l2_size"][t]) / 2 ** 20, 1),
            "hdr_size_at_hdr_peak_bytes": int(ks["hdr_size"][t]) if "hdr_size" in ks.columns else None}


def fill_window(ks: pd.DataFrame) -> tuple[float, float] | None:
    """From the L2ARC's smallest size to 90% of its final size (seconds)."""
    l2 = ks["l2_size"]
    t_lo = l2.idxmin()
    reached = l2[(l2.index > t_lo) & (l2 >= 0.9 * l2.iloc[-1])]
    if l2.iloc[-1] <= l2.min() or reached.empty:
        return None
    return float(t_lo), float(reached.index[0])


def fill_shape(d: dict) -> dict:
    """How the L2ARC filled: its fill rate against the disks' read rate over the same window (both
    in MiB/s), and how straight the fill is (R^2 of a straight line through l2_size)."""
    w = fill_window(d["kstats"])
    if w is None:
        return {"disk_read_mib_s": None, "fill_over_disk": None, "fill_r2": None}
    l2 = d["kstats"]["l2_size"]
    l2 = l2[(l2.index >= w[0]) & (l2.index <= w[1])]
    r = tier_rates(d)["disk"]
    disk = float(r[(r.index > w[0]) & (r.index <= w[1])].mean()) * RECORD / 2 ** 20
    x, y = l2.index.to_numpy(float), l2.to_numpy(float)
    fit = np.polyval(np.polyfit(x, y, 1), x)
    r2 = 1 - ((y - fit) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    fill = fill_rate_mib_s(d["kstats"])
    return {"disk_read_mib_s": round(disk, 2), "fill_over_disk": round(fill / disk, 2) if fill and disk else None,
            "fill_r2": round(float(r2), 4)}


def off_stats(d: dict, p: dict) -> dict:
    """The reads after the cache device was removed (without its first OFF_SETTLE_S seconds and its
    last, partial second): IOPS and median from fio's log; the ARC's hit share, its hits per second and
    any L2ARC hit from the ARC's counters (without a cache device ZFS counts no l2_misses: the disks
    get the ARC's misses); and the IOPS the disks allow at that hit share, one read in flight per
    thread and per disk, each miss taking the cold phase's median: min(threads, disks) / ((1 - h) x
    cold latency)."""
    o = d["off"]
    app = o["app"]
    a = np.ceil(o["start_s"]) + OFF_SETTLE_S
    b = min(app.n_columns * app.col_s, np.floor(o["end_s"])) - 1.0
    r = o["rates"]
    r = r[(r.index > a) & (r.index <= b)]
    hits, misses = float(r["hits"].clip(lower=0).sum()), float(r["misses"].clip(lower=0).sum())
    h = hits / (hits + misses) if hits + misses else float("nan")
    cold_s = phase_stats(d, "cold")["p50_us"] / 1e6
    return {"from_s": a, "to_s": b, "iops": int(app.counts[int(a):int(b)].sum()) / (b - a),
            "p50_us": app.percentile(50, a, b) / 1000,
            "ms_share": float(app.fraction_between(1e6, float("inf"), a, b)),
            "dram_share": h, "dram_per_s": float(r["hits"].clip(lower=0).mean()),
            "l2_hits": int(r["l2_hits"].clip(lower=0).sum()),
            "predicted_iops": in_flight(p) / ((1 - h) * cold_s) if h == h and h < 1 else float("nan")}


def kept_share(d: dict) -> float:
    """The ARC's hit share over the first KEPT_S seconds without the cache device (0 when it counted
    no read): an ARC emptied by the removal would start near 0."""
    o = d["off"]
    r = o["rates"]
    first = r[(r.index > o["start_s"]) & (r.index <= o["start_s"] + KEPT_S)].clip(lower=0).sum()
    n = first["hits"] + first["misses"]
    return float(first["hits"] / n) if n else 0.0


def summary(d: dict) -> dict:
    """The headline numbers, with the parameters and the preset load() read from the run."""
    p = d["params"]
    cold, warm = phase_stats(d, "cold"), phase_stats(d, "warm")
    tc, tw = _tier_shares(d, cold["from_s"], cold["to_s"]), _tier_shares(d, warm["from_s"], warm["to_s"])
    app, dev = d["app"], d["device"]
    fs = fill_shape(d)
    pred = predicted_warmup(d, p)
    meas = warmup_time(d)
    ks = d["kstats"]
    arc_p50 = float(d["probe"].loc["read", "clat_p50_ns"]) / 1000
    off = off_stats(d, p) if d.get("off") else None
    off_metrics = {} if off is None else {
        # the L2ARC off, the ARC warm: what the 2009 post's "over 5x" compares
        "off_iops": round(off["iops"], 1), "on_off_ratio": round(warm["iops"] / off["iops"], 2),
        "off_p50_us": round(off["p50_us"], 1), "off_ms_share": round(off["ms_share"], 4),
        "dram_share_off": round(off["dram_share"], 3), "dram_hits_per_s_off": round(off["dram_per_s"], 1),
        "l2_hits_off": off["l2_hits"], "off_iops_predicted": round(off["predicted_iops"], 1),
        "dram_share_off_start": round(kept_share(d), 3),
    }
    # the tiers' bands: the L2ARC's above the DRAM hits (warm), the disks' above both caches (cold)
    l2_lo, l2_hi = band_edges(app, warm["from_s"], warm["to_s"], tw["dram_share"], tw["l2_share"])
    disk_share = 1 - tc["dram_share"] - tc["l2_share"]
    disk_lo, disk_hi = band_edges(app, cold["from_s"], cold["to_s"], 1 - disk_share, disk_share)
    return off_metrics | header_memory(ks) | {
        "warm_l2_band_p05_us": round(l2_lo, 1), "warm_l2_band_p95_us": round(l2_hi, 1),
        "cold_disk_band_p05_us": round(disk_lo, 1), "cold_disk_band_p95_us": round(disk_hi, 1),
        "l2_share_warm": round(tw["l2_share"], 3), "disk_share_cold": round(disk_share, 3),
        "disk_share_warm": round(1 - tw["dram_share"] - tw["l2_share"], 4),
        # each thread waits for its read: by Little's law a read's mean time is threads / IOPS
        "warm_mean_us": round(1e6 * p["threads"] / warm["iops"], 1),
        "cold_iops": round(cold["iops"], 1), "warm_iops": round(warm["iops"], 1),
        "warm_cold_ratio": round(warm["iops"] / cold["iops"], 2),
        "warm_cold_ratio_min": WARM_IOPS_MIN.get(d["preset"], WARM_IOPS_MIN_OTHER),
        "cold_p50_us": round(cold["p50_us"], 1), "warm_p50_us": round(warm["p50_us"], 1),
        "arc_p50_us": round(arc_p50, 1),
        "warmup_measured_s": round(meas, 1), "warmup_predicted_s": round(pred["predicted_s"], 1),
        "warmup_disk_bound_s": round(pred["disk_bound_s"], 1), "warmup_feed_bound_s": round(pred["feed_bound_s"], 1),
        "l2_size_final_mib": round(float(ks["l2_size"].iloc[-1]) / 2 ** 20, 1),
        "l2_fill_rate_mib_s": fill_rate_mib_s(ks),
        "arc_size_mib": round(float(ks["size"].iloc[-1]) / 2 ** 20, 1),
        # the closed loop: IOPS gain against the ratio of the two tiers' median latencies
        "latency_ratio": round(cold["p50_us"] / warm["p50_us"], 2),
        "gain_over_latency_ratio": round((warm["iops"] / cold["iops"]) / (cold["p50_us"] / warm["p50_us"]), 2),
        # the warm-up curve: how the L2ARC filled, and IOPS halfway through the warm-up (/ warm IOPS)
        "l2_fill_over_disk_rate": fs["fill_over_disk"], "disk_read_mib_s_fill": fs["disk_read_mib_s"],
        "l2_fill_r2": fs["fill_r2"],
        "iops_half_warmup_share": round(float(iops_series(d).asof(meas / 2)) / warm["iops"], 3) if meas == meas else None,
        # the heat maps: DRAM hits cold and warm, reads slower than 1 ms, device I/O faster than 500 us
        "dram_share_cold": round(tc["dram_share"], 3), "dram_share_warm": round(tw["dram_share"], 3),
        "dram_hits_per_s_cold": round(tc["dram_per_s"], 1), "dram_hits_per_s_warm": round(tw["dram_per_s"], 1),
        "app_ms_share_cold": round(float(app.fraction_between(1e6, float("inf"), cold["from_s"], cold["to_s"])), 4),
        "app_ms_share_warm": round(float(app.fraction_between(1e6, float("inf"), warm["from_s"], warm["to_s"])), 4),
        "device_sub500us_share": round(float(dev.fraction_between(0, 500e3)), 4),
    }
