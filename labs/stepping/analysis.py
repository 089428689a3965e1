"""The stepping lab's reading of a run: per-second totals, the steps, the saturation detector and
its prediction, and the headline numbers (summary). Reads a live run or the reference alike; the
limit and the think time come from the run's own run.json."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra import iostat
from perflab.run.record import params_of

from .spec import JOB

GAIN_FRACTION = 0.5  # a step that adds less than half of one reader's rate adds no capacity
CLEAR_SHARE = 0.9    # steps whose readers, at one reader's rate, ask for at most this share of the limit


def demand_iops(p: dict) -> float:
    """What one reader asks for alone: one read per think time (plus the read itself, ~0.1 ms here)."""
    return 1.0 / p["think"]


def predicted_step(limit: float, per_reader: float, threshold: float | None = None) -> int:
    """The first step whose new reader finds less room than `threshold` reads/s (the detector's: half
    of one reader's rate; by default half of `per_reader`): the first k with limit - (k - 1) x demand
    under it."""
    threshold = GAIN_FRACTION * per_reader if threshold is None else threshold
    return int(math.floor((limit - threshold) / per_reader)) + 2


def reader_demand(st: pd.DataFrame, one: float, limit: float) -> float:
    """What each reader asked for while there was clearly room (steps whose readers, at one reader's
    rate, ask for at most CLEAR_SHARE of the limit): throughput over readers, all those steps together.
    One reader alone is the first of them; readers in company may ask for more or less than it did (a
    busy CPU stretches a lone reader's think time more than it stretches several), and the prediction
    uses what they asked for."""
    clear = st[st["readers"] * one <= CLEAR_SHARE * limit]
    if clear.empty:
        return one
    return float(clear["iops"].sum() / clear["readers"].sum())


def _job_logs(data_dir: Path) -> dict[int, tuple[pd.DataFrame, pd.DataFrame | None]]:
    """Reader number -> (its per-second IOPS log, its per-second mean clat log)."""
    fdir = Path(data_dir) / "fio"
    out = {}
    for path in sorted(fdir.glob("step_iops.*.log*")):
        k = int(path.name.split(".")[1])
        lat = sorted(fdir.glob(f"step_clat.{k}.log*"))
        out[k] = (fiolog.read_lat_log(path), fiolog.read_lat_log(lat[0]) if lat else None)
    if not out:
        raise FileNotFoundError(f"no step_iops logs under {fdir}")
    return out


def _t0(logs) -> int:
    """When the first reader started: its first stamp ends its first one-second interval."""
    return int(min(io["time_ms"].min() for io, _ in logs.values())) - 1000


def per_second(data_dir: Path) -> pd.DataFrame:
    """One row per second since the first reader started: readers logging, total IOPS, mean
    completion latency (us). Each reader's stamps are its own; they are put on the nearest second."""
    logs = _job_logs(data_dir)
    t0 = _t0(logs)
    rows = []
    for k, (io, lat) in logs.items():
        df = pd.DataFrame({"second": ((io["time_ms"] - t0) / 1000).round().astype(int), "iops": io["lat_ns"].astype(float)})
        df["reader"] = k
        if lat is not None and len(lat):
            ls = pd.Series(lat["lat_ns"].to_numpy(float), index=((lat["time_ms"] - t0) / 1000).round().astype(int))
            df["clat_ns"] = ls.groupby(level=0).mean().reindex(df["second"]).to_numpy()
        else:
            df["clat_ns"] = np.nan
        rows.append(df)
    a = pd.concat(rows)
    a["w"] = a["iops"] * a["clat_ns"]
    g = a.groupby("second").agg(readers=("reader", "nunique"), iops=("iops", "sum"), w=("w", "sum"))
    g["clat_us"] = g["w"] / g["iops"].where(g["iops"] > 0) / 1000
    return g.drop(columns="w").reset_index()


def steps(data_dir: Path, step_s: float, threads: int) -> pd.DataFrame:
    """Per step (readers active): each reader's mean IOPS and clat over the step's window, leaving
    out its first second (a reader starting) and its last (the next one starting), summed (IOPS) or
    IOPS-weighted (latency) over the readers."""
    logs = _job_logs(data_dir)
    t0 = _t0(logs)
    out = []
    for n in range(1, threads + 1):
        lo, hi = t0 + ((n - 1) * step_s + 1.5) * 1000, t0 + (n * step_s - 0.5) * 1000
        iops, w, secs = 0.0, 0.0, 0
        for k, (io, lat) in logs.items():
            if k > n:
                continue
            sel = io[(io["time_ms"] > lo) & (io["time_ms"] <= hi)]["lat_ns"].astype(float)
            r = float(sel.mean()) if len(sel) else 0.0
            secs = max(secs, len(sel))
            iops += r
            if lat is not None:
                ls = lat[(lat["time_ms"] > lo) & (lat["time_ms"] <= hi)]["lat_ns"].astype(float)
                if len(ls):
                    w += r * float(ls.mean())
        out.append({"readers": n, "iops": iops, "clat_us": w / iops / 1000 if iops else np.nan, "seconds": secs})
    return pd.DataFrame(out)


def detect_saturation(st: pd.DataFrame, fraction: float = GAIN_FRACTION) -> dict:
    """The first step (readers) whose added reader raised throughput by less than `fraction` of what
    one reader delivers alone, while latency rose. None when throughput kept rising."""
    st = st.sort_values("readers").reset_index(drop=True)
    one = float(st.loc[0, "iops"])
    for i in range(1, len(st)):
        gain = float(st.loc[i, "iops"] - st.loc[i - 1, "iops"])
        if gain < fraction * one and st.loc[i, "clat_us"] > st.loc[i - 1, "clat_us"]:
            return {"step": int(st.loc[i, "readers"]), "gain": gain, "one_reader": one,
                    "plateau_iops": float(st.loc[i:, "iops"].mean())}
    return {"step": None, "gain": None, "one_reader": one, "plateau_iops": None}


def load(data_dir: Path) -> dict:
    """Per-second totals, the steps and the detected saturation from fio's logs; fio's summary; and
    the limit and think time the run was made with (its run.json)."""
    data_dir = Path(data_dir)
    params = params_of(data_dir)
    sec = per_second(data_dir)
    jf = fio.JobFile.load(data_dir / "fio" / f"{JOB}.fio")
    threads = len(jf.jobs())
    step_s = float(jf.get("t2", "startdelay"))
    st = steps(data_dir, step_s, threads)
    t0_s = _t0(_job_logs(data_dir)) / 1000
    io = data_dir / "iostat.txt"
    return {"seconds": sec, "steps": st, "saturation": detect_saturation(st),
            "jobs": fiolog.job_table(fiolog.read_fio_json(data_dir / "fio" / f"{JOB}.json")),
            "iostat": iostat.read(io) if io.is_file() else None, "t0_s": t0_s, "step_s": step_s,
            "limit_iops": params["limit_iops"], "think": params["think"]}


def iostat_window(d: dict, first_step: int, last_step: int | None = None) -> pd.DataFrame | None:
    """iostat's seconds from the start of step `first_step` to the end of `last_step` (default: the
    last), leaving out each end's first and last second as steps() does (iostat stamps the end of
    its second; the steps start (k - 1) x step after the first reader, on the same clock). None where
    the run has no iostat, or iostat printed no second there."""
    io = d.get("iostat")
    if io is None or io.empty:
        return None
    n = int(d["steps"]["readers"].max())
    lo = d["t0_s"] + (first_step - 1) * d["step_s"] + 1.5
    hi = d["t0_s"] + (last_step or n) * d["step_s"] - 0.5
    on = io[(io["t"] > lo) & (io["t"] <= hi + 1)]
    return on if len(on) else None


def iostat_view(d: dict) -> dict:
    """What iostat -x said of the disk: at the plateau (from the detected step on), the medians of its
    reads a second, r_await and aqu-sz, and %util's range; at the last step, its mean r_await, and
    fio's mean latency there over it (the same step, the same kind of mean)."""
    k = d["saturation"]["step"]
    keys = ("iostat_seconds_plateau", "iostat_rps_plateau", "iostat_r_await_ms_plateau", "iostat_aqu_plateau",
            "iostat_util_min_plateau", "iostat_util_max_plateau", "iostat_r_await_ms_last", "fio_over_iostat_await")
    on = iostat_window(d, k) if k else None
    last = iostat_window(d, int(d["steps"]["readers"].max()))
    if on is None or last is None:
        return dict.fromkeys(keys)
    await_last = float(last["r_await"].mean())
    last_us = float(d["steps"]["clat_us"].iloc[-1])
    return dict(zip(keys, (len(on), round(float(on["r/s"].median()), 1), round(float(on["r_await"].median()), 3),
                           round(float(on["aqu-sz"].median()), 3), round(float(on["%util"].min()), 1),
                           round(float(on["%util"].max()), 1), round(await_last, 3),
                           round(last_us / 1000 / await_last, 1) if await_last > 0 else None)))


def summary(d: dict) -> dict:
    """The headline numbers: one reader alone, the predicted and the detected saturation step, the
    plateau, latency at the first and the last step, how close the steps below saturation come to
    one reader's rate times the readers, and the plateau's shape (_plateau)."""
    p = {"limit_iops": d["limit_iops"], "think": d["think"]}
    st, sat = d["steps"], d["saturation"]
    one = sat["one_reader"]
    below = st[st["readers"] < (sat["step"] or 10**9)]
    return {
        "one_reader_iops": round(one, 1),
        "reader_demand_iops": round(reader_demand(st, one, p["limit_iops"]), 1),
        "predicted_step": predicted_step(p["limit_iops"], reader_demand(st, one, p["limit_iops"]), GAIN_FRACTION * one),
        "detected_step": sat["step"],
        "plateau_iops": None if sat["plateau_iops"] is None else round(sat["plateau_iops"], 1),
        "plateau_vs_limit": None if sat["plateau_iops"] is None else round(sat["plateau_iops"] / p["limit_iops"], 3),
        "clat_us_first": round(float(st["clat_us"].iloc[0]), 1),
        "clat_us_last": round(float(st["clat_us"].iloc[-1]), 1),
        "clat_rise": round(float(st["clat_us"].iloc[-1] / st["clat_us"].iloc[0]), 1),
        "max_readers": int(st["readers"].max()),
        "linear_fit": round(float((below["iops"] / (below["readers"] * one)).min()), 3) if len(below) else None,
        **_plateau(st, sat, p),
        **iostat_view(d),
    }


def _plateau(st: pd.DataFrame, sat: dict, p: dict) -> dict:
    """The shape of the staircase around saturation: latency before it (relative to one reader
    alone), how flat the plateau is, whether latency rose at every step from saturation on, and the
    last step's latency against Little's law (each reader cycles through one read and one think, so
    with N readers sharing `limit` reads a second a read waits about N / limit - think)."""
    st = st.sort_values("readers").reset_index(drop=True)
    k = sat["step"]
    if k is None:
        return {"clat_before_vs_one": None, "plateau_flatness": None, "clat_rises_each_step": None,
                "clat_model_last_us": None, "clat_last_vs_model": None}
    before = st[st["readers"] < k]
    after = st[st["readers"] >= k - 1]  # from the last step with room to the end
    on = st[st["readers"] >= k]
    n = int(st["readers"].iloc[-1])
    model = (n / p["limit_iops"] - p["think"]) * 1e6
    return {
        "clat_before_vs_one": round(float(before["clat_us"].max() / st["clat_us"].iloc[0]), 2),
        "plateau_flatness": round(float(on["iops"].min() / on["iops"].max()), 3),
        "clat_rises_each_step": bool((after["clat_us"].diff().dropna() > 0).all()),
        "clat_model_last_us": round(model, 1),
        "clat_last_vs_model": round(float(st["clat_us"].iloc[-1]) / model, 3) if model > 0 else None,
    }
