"""The jbod lab's reading of a run: every write per disk and phase (load), Little's-law queues and
outliers per disk and JBOD, the single-path JBODs found from the data alone, the mirrored pool's
throughput, the chain effect, and the headline numbers (summary). Reads a live run or the reference
alike: the outlier threshold is the run's own `outlier_ms` (run.json)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from perflab.fio import logs as fiolog
from perflab.infra import iostat
from perflab.run.record import params_of

from .experiment import KEYS, PHASES, SETTLE_S
from .model import MiB, free_disk_mib_s, model_pool_mib_s

FELL_BEHIND = 0.85    # a JBOD whose disks wrote less than this share of their set rate could not keep up


def load(data_dir: Path) -> dict:
    """The timeline, the run's outlier threshold (its parameter outlier_ms, from run.json) and, per
    phase, every completed write: phase, job, t (epoch s), lat_ms."""
    data_dir = Path(data_dir)
    tl = json.loads((data_dir / "timeline.json").read_text())
    frames = []
    for ph in tl["phases"]:
        base = data_dir / "fio" / KEYS[ph]
        for job in tl["disks"]:
            for f in sorted(base.glob(f"{job}_clat.*.log*")):
                df = fiolog.read_lat_log(f)
                frames.append(pd.DataFrame({"phase": ph, "job": job, "t": df["time_ms"].to_numpy() / 1000.0,
                                            "lat_ms": df["lat_ns"].to_numpy() / 1e6}))
    ios = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["phase", "job", "t", "lat_ms"])
    return {"timeline": tl, "ios": ios, "data_dir": data_dir, "outlier_ms": float(params_of(data_dir)["outlier_ms"])}


def windows(ios: pd.DataFrame, settle_s: float = SETTLE_S) -> dict[str, tuple[float, float]]:
    """Each phase's steady window: from its first completion plus settle_s to its last completion."""
    out = {}
    for ph, g in ios.groupby("phase", sort=False):
        out[ph] = (float(g["t"].min()) + settle_s, float(g["t"].max()))
    return out




def disk_stats(d: dict, phase: str, outlier_ms: float) -> pd.DataFrame:
    """Per disk over the phase's steady window: writes/s, MiB/s, mean latency, the average number
    of writes active or queued (Little's law: rate x mean latency, what Analytics called 'average
    I/O operations'), and the writes slower than outlier_ms."""
    tl, ios = d["timeline"], d["ios"]
    t0, t1 = windows(ios, tl.get("settle_s", SETTLE_S))[phase]
    w = ios[(ios["phase"] == phase) & (ios["t"] >= t0) & (ios["t"] <= t1)]
    span = max(t1 - t0, 1e-9)
    rows = []
    for job, info in tl["disks"].items():
        g = w[w["job"] == job]
        n = len(g)
        mean_ms = float(g["lat_ms"].mean()) if n else float("nan")
        rows.append({"job": job, "jbod": info["jbod"], "slot": info["slot"], "disk": info["name"], "writes": n,
                     "iops": n / span, "mib_s": n * tl["bs"] / span / MiB, "mean_ms": mean_ms,
                     "queue": (n / span) * mean_ms / 1000 if n else 0.0,
                     "outliers": int((g["lat_ms"] > outlier_ms).sum())})
    df = pd.DataFrame(rows)
    df["set_mib_s"] = tl["disk_rate"] / MiB
    df["paths"] = df["jbod"].map(lambda j: tl["phases"][phase]["paths"][str(j)])
    df["chain"] = df["jbod"].map(lambda j: chain_of(tl["phases"][phase]["chains"], j))
    df["chain_len"] = df["chain"].map(lambda k: len(tl["phases"][phase]["chains"][k - 1]))
    return df


def phase_writes(d: dict, phase: str) -> pd.DataFrame:
    """Every write of the phase's steady window (the same window as disk_stats), with its JBOD."""
    tl, ios = d["timeline"], d["ios"]
    t0, t1 = windows(ios, tl.get("settle_s", SETTLE_S))[phase]
    w = ios[(ios["phase"] == phase) & (ios["t"] >= t0) & (ios["t"] <= t1)].copy()
    w["jbod"] = w["job"].map(lambda job: tl["disks"][job]["jbod"])
    return w


def slow_band(d: dict, phase: str, outlier_ms: float) -> dict:
    """The heat map's slow band in one phase: the writes slower than outlier_ms, their share of the
    phase's writes, their median latency, the JBODs they came from; and the share of writes that
    finished within 1 ms, and the slowest write."""
    w = phase_writes(d, phase)
    b = w[w["lat_ms"] > outlier_ms]
    n = len(w)
    return {"writes": n, "band": len(b), "share": len(b) / n if n else None,
            "median_ms": float(b["lat_ms"].median()) if len(b) else None,
            "jbods": sorted(int(j) for j in b["jbod"].unique()),
            "under_1ms": float((w["lat_ms"] < 1.0).mean()) if n else None,
            "max_ms": float(w["lat_ms"].max()) if n else None}


def iostat_by_jbod(d: dict, phase: str) -> pd.DataFrame | None:
    """What iostat -x said of each JBOD's device and each chain's over the phase's steady window
    (medians of its seconds there): w/s, wkB/s, wareq-sz, w_await and aqu-sz (not %util: on these loop
    devices it read 0 for JBODs writing 20 MiB/s), one row per device named
    "JBOD j" or "chain k". None where the run has no iostat output for the phase (recorded before the
    lab ran iostat, or no sysstat on the machine) or iostat printed no second in the window."""
    tl = d["timeline"]
    f = d["data_dir"] / "fio" / KEYS[phase] / "iostat.txt"
    io = iostat.read(f) if f.is_file() else pd.DataFrame()
    if io.empty:
        return None
    t0, t1 = windows(d["ios"], tl.get("settle_s", SETTLE_S))[phase]
    io = io[(io["t"] > t0 + 1) & (io["t"] <= t1)]
    devs = tl["phases"][phase]["devices"]
    names = {Path(v).name: f"JBOD {j}" for j, v in devs["jbods"].items()}
    names |= {Path(v).name: f"chain {k}" for k, v in enumerate(devs["chains"], 1)}
    io = io[io["device"].isin(names)]
    if io.empty:
        return None
    cols = ["w/s", "wkB/s", "wareq-sz", "w_await", "aqu-sz"]
    out = io.groupby("device")[cols].median()
    out.index = out.index.map(names)
    out.index.name = "device"
    return out.sort_index(key=lambda ix: ix.map(lambda n: (n.split()[0] != "JBOD", int(n.split()[1]))))


def iostat_view(d: dict, det: list[int], jb: pd.DataFrame) -> dict:
    """iostat against fio, as cabled: the slow JBODs (det, found from fio's rates) by iostat's write
    rate and by its w_await; fio's mean latency on their disks over iostat's w_await of their devices;
    and the size of the requests their devices received against the others' (KiB, medians)."""
    io = iostat_by_jbod(d, "as cabled")
    keys = ("iostat_slow_by_rate", "iostat_slow_by_await", "fio_over_iostat_await_slow", "iostat_wareq_kib_slow",
            "iostat_wareq_kib_others")
    if io is None or not det:
        return dict.fromkeys(keys)
    jio = io[io.index.str.startswith("JBOD")]
    jio.index = [int(n.split()[1]) for n in jio.index]
    k = len(det)
    by_rate = sorted(int(j) for j in jio["wkB/s"].nsmallest(k).index)
    by_await = sorted(int(j) for j in jio["w_await"].nlargest(k).index)
    aw = float(jio.loc[det, "w_await"].mean())
    others = [j for j in jio.index if j not in det]
    return dict(zip(keys, (by_rate, by_await, round(float(jb.loc[det, "mean_ms"].mean()) / aw, 1) if aw > 0 else None,
                           round(float(jio.loc[det, "wareq-sz"].median()), 1),
                           round(float(jio.loc[others, "wareq-sz"].median()), 1) if others else None)))


def chain_of(chains: list[list[int]], j: int) -> int:
    return next(k for k, c in enumerate(chains, 1) if j in c)


def jbod_stats(disks: pd.DataFrame) -> pd.DataFrame:
    """Per JBOD: the disks' average queue (active + queued writes per disk), their total, MiB/s,
    the share of the set rate reached, and the outliers."""
    g = disks.groupby("jbod")
    out = pd.DataFrame({
        "queue_per_disk": g["queue"].mean(), "queue": g["queue"].sum(), "mib_s": g["mib_s"].sum(),
        "reached": g["mib_s"].sum() / g["set_mib_s"].sum(), "mean_ms": g["mean_ms"].mean(),
        "outliers": g["outliers"].sum(), "paths": g["paths"].first(), "chain": g["chain"].first(),
        "chain_len": g["chain_len"].first()})
    out.index.name = "jbod"
    return out


def detect_slow_jbods(jb: pd.DataFrame, fell_behind: float = FELL_BEHIND) -> list[int]:
    """The JBODs that could not carry their load, found from the measurements alone: those whose
    disks wrote less than `fell_behind` of the rate they were asked for. (A JBOD on a chain that is
    a little oversubscribed loses a few percent; one that lost a path loses a third or more.)"""
    if jb.empty:
        return []
    return sorted(int(j) for j in jb.index[jb["reached"] < fell_behind])


def pool_mib_s(disks: pd.DataFrame, mirrors: list[list[str]]) -> float:
    """The mirrored pool's write throughput: a block is in the pool once every side of its mirror
    has written it, so each mirror counts at its slowest side's rate."""
    rate = disks.set_index("job")["mib_s"]
    return float(sum(min(rate[j] for j in m) for m in mirrors))




def outliers_by_disk(disks: pd.DataFrame) -> pd.DataFrame:
    """The flat list: every disk and its outliers, most first (what Analytics listed by disk)."""
    return disks[["disk", "outliers", "jbod"]].sort_values(["outliers", "disk"], ascending=[False, True])


def share_by_jbod(disks: pd.DataFrame) -> pd.Series:
    """Each JBOD's share of all outliers (the pie's wedges)."""
    tot = disks["outliers"].sum()
    s = disks.groupby("jbod")["outliers"].sum()
    return s / tot if tot else s * 0.0


def chain_effect(jb: pd.DataFrame) -> dict:
    """Second order: with every JBOD dual-pathed, the average queue per disk of the JBODs on the
    shortest chain against those on the longest. None when all chains are as long."""
    lens = jb["chain_len"]
    if lens.min() == lens.max():
        return {"short_len": int(lens.min()), "long_len": int(lens.max()), "short_queue": None,
                "long_queue": None, "ratio": None}
    short = jb[lens == lens.min()]["queue_per_disk"].mean()
    long = jb[lens == lens.max()]["queue_per_disk"].mean()
    return {"short_len": int(lens.min()), "long_len": int(lens.max()), "short_queue": float(short),
            "long_queue": float(long), "ratio": float(long / short) if short > 0 else None}


def spread(jb: pd.DataFrame) -> float:
    """How unequal the JBODs are: highest over lowest average queue per disk."""
    q = jb["queue_per_disk"]
    return float(q.max() / q.min()) if q.min() > 0 else float("inf")


def summary(d: dict) -> dict:
    """The headline numbers of a run, with writes slower than d["outlier_ms"] counted as outliers."""
    tl, outlier_ms = d["timeline"], d["outlier_ms"]
    out: dict = {"outlier_ms": outlier_ms}
    per = {}
    for ph in PHASES:
        if ph not in tl["phases"] or ph not in set(d["ios"]["phase"]):
            continue
        ds = disk_stats(d, ph, outlier_ms)
        per[ph] = (ds, jbod_stats(ds))
    key = {"as cabled": "cabled", "second path": "dual", "balanced": "balanced"}
    for ph, (ds, jb) in per.items():
        k = key[ph]
        out[f"pool_mib_s_{k}"] = round(pool_mib_s(ds, tl["mirrors"]), 2)
        free = free_disk_mib_s(ds, tl, ph)
        out[f"free_disk_reached_{k}"] = round(free / (tl["disk_rate"] / MiB), 4) if free is not None else None
        out[f"pool_model_mib_s_{k}"] = round(model_pool_mib_s(tl, ph, free), 2)
        out[f"disks_mib_s_{k}"] = round(float(ds["mib_s"].sum()), 2)
        out[f"jbod_spread_{k}"] = round(spread(jb), 3)
        out[f"outliers_{k}"] = int(ds["outliers"].sum())
        band = slow_band(d, ph, outlier_ms)
        out[f"outlier_share_{k}"] = round(band["share"], 4) if band["share"] is not None else None
        out[f"band_ms_{k}"] = round(band["median_ms"], 1) if band["median_ms"] is not None else None
        out[f"outlier_jbods_{k}"] = band["jbods"]
        out[f"under_1ms_{k}"] = round(band["under_1ms"], 4) if band["under_1ms"] is not None else None
        out[f"max_ms_{k}"] = round(band["max_ms"], 1) if band["max_ms"] is not None else None
        # Little's law for a disk whose queue is full: latency = iodepth / the disk's completion rate
        bd = ds[ds["jbod"].isin(band["jbods"])]
        out[f"band_little_ms_{k}"] = round(1000 * tl["iodepth"] / float(bd["iops"].mean()), 1) \
            if band["jbods"] and "iodepth" in tl and bd["iops"].mean() > 0 else None
    if "as cabled" in per:
        ds, jb = per["as cabled"]
        det = detect_slow_jbods(jb)
        out["detected_single_path"] = det
        others = jb.drop(index=det)
        if det and len(others):
            out["slow_queue_ratio"] = round(float(jb.loc[det, "queue_per_disk"].mean() / others["queue_per_disk"].mean()), 2)
            out["slow_outlier_share"] = round(float(share_by_jbod(ds).loc[det].sum()), 3)
        else:
            out["slow_queue_ratio"] = None
            out["slow_outlier_share"] = None
        out["slow_reached"] = round(float(jb.loc[det, "reached"].mean()), 3) if det else None
        out["disks_with_outliers"] = int((ds["outliers"] > 0).sum())
        out |= iostat_view(d, det, jb)
    if "as cabled" in per and "second path" in per:
        a, b = out["pool_mib_s_cabled"], out["pool_mib_s_dual"]
        out["recable_gain"] = round(b / a - 1, 4) if a else None
        ma, mb = out["pool_model_mib_s_cabled"], out["pool_model_mib_s_dual"]
        out["recable_gain_model"] = round(mb / ma - 1, 4) if ma else None
    if "second path" in per:
        ce = chain_effect(per["second path"][1])
        out["chain_short_len"], out["chain_long_len"] = ce["short_len"], ce["long_len"]
        out["chain_queue_short"] = round(ce["short_queue"], 4) if ce["short_queue"] is not None else None
        out["chain_queue_long"] = round(ce["long_queue"], 4) if ce["long_queue"] is not None else None
        out["chain_queue_ratio"] = round(ce["ratio"], 3) if ce["ratio"] is not None else None
        jb = per["second path"][1]
        lens = jb["chain_len"]
        out["chain_long_jbods"] = sorted(int(j) for j in jb.index[lens == lens.max()]) if lens.nunique() > 1 else []
        out["chain_long_reached"] = round(float(jb[lens == lens.max()]["reached"].mean()), 3) \
            if lens.nunique() > 1 else None
        out["chain_short_reached"] = round(float(jb[lens == lens.min()]["reached"].mean()), 3) \
            if lens.nunique() > 1 else None
    if "balanced" in per:
        ce = chain_effect(per["balanced"][1])
        out["balanced_chain_lens"] = sorted({len(c) for c in tl["phases"]["balanced"]["chains"]})
        out["balanced_queue_ratio"] = round(ce["ratio"], 3) if ce["ratio"] is not None else None
    return out


