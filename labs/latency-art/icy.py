"""The icy lake's numbers: each disk's service times from slowdisk's logs, how they creep (the share
of small steps, the correlation of successive writes), their slope and wrap-rounds against the
prediction from the two spindle speeds, the disks' write-cache setting as the run recorded it, and
the host's own time in each write (fio's latency less the disk's service time)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.infra import slowdisk

#: A step from one write to the next counts as creeping when the service time moves by less than this
#: share of a rotation (wrap-rounds folded back). Creep moves it by about 12 us of 8.3 ms (0.15%); a
#: random rotation puts it anywhere in [-1/2, 1/2] of a rotation, so a tenth of its steps pass.
CREEP_STEP = 0.05
#: the two disks' waits add up to one rotation within this band (mean of d0 + d1; each round's)
SUM_BAND = (0.85, 1.2)


def icy_write_cache(data_dir: Path) -> list[bool] | None:
    """Whether each icy-lake disk ran with its write cache on, from the disk models the run recorded
    (run.json, provenance.icy_disk_models); None when the run recorded none."""
    rj = Path(data_dir) / "run.json"
    if not rj.exists():
        return None
    models = json.loads(rj.read_text()).get("provenance", {}).get("icy_disk_models")
    if not models:
        return None
    return ["write_cache=on" in (m if isinstance(m, str) else " ".join(map(str, m))) for m in models]


def icy_disks(data_dir: Path) -> dict[str, pd.DataFrame]:
    """Each icy-lake disk's device log, with `t_s` (seconds since the first write) and `svc_ms`."""
    ddir = Path(data_dir) / "device"
    out, t0 = {}, None
    for i in range(2):
        sub = ddir / f"icy-d{i}"
        log = next(iter(sorted(sub.glob(f"d{i}.log*"))))
        df = slowdisk.read_device_log(log)
        df = df[df.ddir == 1].copy()
        df["epoch_ms"] = df.time_ms + int((sub / "mount.epoch_ms").read_text())
        out[f"d{i}"] = df
        t0 = df.epoch_ms.min() if t0 is None else min(t0, df.epoch_ms.min())
    for df in out.values():
        df["t_s"] = (df.epoch_ms - t0) / 1000
        df["svc_ms"] = df.lat_ns / 1e6
    return out


def drift_per_visit_us(svc_ms: np.ndarray, rot_ms: float) -> float:
    """The median change of a disk's service time from one write to its next, in us, with jumps
    of about a rotation (the sawtooth wrapping round) folded back: the slope of its diagonal."""
    d = np.diff(np.asarray(svc_ms, float))
    d = d - rot_ms * np.round(d / rot_ms)
    return float(np.median(d) * 1000) if len(d) else float("nan")


def net_line(svc_ms: np.ndarray, t_s: np.ndarray, rot_ms: float) -> dict:
    """A disk's line unwrapped: each step from one write to the next folded back by whole rotations and
    summed. A write held off its line adds a step out and one back that cancel in the sum, so unlike
    the median step (drift_per_visit_us, skewed on a line with many large steps) the net slope is the
    line's own. Returns the mean step in us per write (`us`), a least-squares slope against time in
    ms per second (`ms_s`), the net wrap-rounds (`wraps`: jumps of more than half a rotation, signed,
    net of jumps back, so a line that hovers at the edge and crosses it back and forth counts once) and
    all the jumps (`jumps`)."""
    x, t = np.asarray(svc_ms, float), np.asarray(t_s, float)
    d = np.diff(x)
    if len(d) < 2:
        return {"us": float("nan"), "ms_s": float("nan"), "wraps": 0, "jumps": 0}
    step = d - rot_ms * np.round(d / rot_ms)
    jumps = d[np.abs(d) > rot_ms / 2]
    return {"us": float(1000 * step.mean()), "ms_s": float(np.polyfit(t[1:], np.cumsum(step), 1)[0]),
            "wraps": abs(int(np.sign(jumps).sum())), "jumps": int(len(jumps))}


def round_share(d0: pd.DataFrame, d1: pd.DataFrame, rot_ms: float, band: tuple = SUM_BAND) -> float:
    """The share of rounds (a write to d0, then the write to d1 after it: one thread writes the disks in
    turn) whose two waits add up to one rotation, within `band` of it: what one disk's wait gains, the
    other's loses, round by round. Unlike the lines' net slopes, a run of held-up writes spoils only
    its own rounds. NaN without rounds."""
    t1 = d1.t_s.to_numpy()
    j = np.searchsorted(t1, d0.t_s.to_numpy(), side="right")
    ok = j < len(t1)
    if not ok.any():
        return float("nan")
    r = (d0.svc_ms.to_numpy()[ok] + d1.svc_ms.to_numpy()[j[ok]]) / rot_ms
    return float(np.mean((r >= band[0]) & (r <= band[1])))


def creep_share(svc_ms: np.ndarray, rot_ms: float, within: float = CREEP_STEP) -> float:
    """The share of successive writes whose service time changes by less than `within` of a rotation
    (a jump of about a rotation, the sawtooth wrapping round, folded back): near 1 when latency
    creeps, about 2 x `within` when the rotation is random. Unlike the correlation (`lag1`), a few
    writes served late on a busy machine lower it by at most two steps each (none when late by a
    whole rotation: the same place on the platter), not by the square of their distance from the line."""
    d = np.diff(np.asarray(svc_ms, float))
    if not len(d):
        return float("nan")
    d = d - rot_ms * np.round(d / rot_ms)
    return float(np.mean(np.abs(d) < within * rot_ms))


def lag1(x: np.ndarray) -> float:
    """Correlation of successive values: near 1 when latency creeps, near 0 when it is random."""
    x = np.asarray(x, float)
    if len(x) < 3 or np.std(x) == 0:
        return float("nan")
    return float(np.corrcoef(x[:-1], x[1:])[0, 1])


def rotations_ms(p: dict) -> list[float]:
    """Each icy-lake disk's rotation time (ms), from its spindle speed."""
    return [60_000.0 / r for r in (float(p["icy_rpm"]), float(p["icy_rpm"]) + float(p["rpm_offset"]))]


def _kept(df: pd.DataFrame) -> np.ndarray:
    """The writes icy_stats measures: the first and last second left out (fio's start and a partial
    last round)."""
    return ((df.t_s >= 1) & (df.t_s <= df.t_s.max() - 1)).to_numpy()


def icy_stats(disks: dict[str, pd.DataFrame], p: dict) -> dict:
    rot = rotations_ms(p)
    pred = (rot[0] - rot[1]) * 1000          # us per round: disk 0 up, disk 1 down
    r = {"icy_predicted_drift_us": round(pred, 2)}
    for i, (name, df) in enumerate(disks.items()):
        keep = _kept(df)
        x, t = df.svc_ms.to_numpy()[keep], df.t_s.to_numpy()[keep]
        r[f"icy_{name}_writes"] = int(len(x))
        r[f"icy_{name}_lag1"] = round(lag1(x), 3)
        r[f"icy_{name}_creep_share"] = round(creep_share(x, rot[i]), 3)
        r[f"icy_{name}_drift_us"] = round(drift_per_visit_us(x, rot[i]), 2)
        r[f"icy_{name}_p50_ms"] = round(float(np.median(x)), 3)
        net = net_line(x, t, rot[i])
        r[f"icy_{name}_net_us"] = round(net["us"], 2)
        r[f"icy_{name}_net_ms_s"] = round(net["ms_s"], 4)
        r[f"icy_{name}_net_wraps"] = net["wraps"]
        r[f"icy_{name}_jumps"] = net["jumps"]
    # the two waits share one rotation: mean service of d0 + d1 is about one rotation, and round by round
    if len(disks) == 2:
        (_, a), (_, b) = disks.items()
        r["icy_round_share"] = round(round_share(a[_kept(a)], b[_kept(b)], rot[0]), 3)
    r["icy_sum_ms"] = round(sum(float(df.svc_ms.mean()) for df in disks.values()), 3)
    r["icy_rotation_ms"] = round(rot[0], 3)
    span = max(df.t_s.max() for df in disks.values()) - 2
    r["icy_rounds_per_s"] = round(min(r["icy_d0_writes"], r["icy_d1_writes"]) / span, 1) if span > 0 else None
    if pred:
        rounds = abs(rot[0] / pred * 1000)
        r["icy_predicted_period_s"] = round(rounds / r["icy_rounds_per_s"], 2) if r["icy_rounds_per_s"] else None
    return r


def icy_host(app: pd.DataFrame, disks: dict[str, pd.DataFrame], p: dict) -> dict:
    """What the machine added to each icy-lake write, and whether the writes were what the disks'
    sequential-write rule needs. One thread writes the disks in turn and fio logs each write as it
    completes, so fio's log (`app`) pairs write for write with the disks' logs (d0, d1, d0, ...):
    the offsets must agree, and fio's latency exceed the disk's service time. A write's host time
    is fio's latency less the disk's service time: the request's way through the container, the
    kernel's FUSE queue and slowdisk's thread, and back (the disk's own timer wake-up is inside its
    service time, not here).

    icy_host_p50_us       median host time of a write
    icy_host_round_ms     mean host time of one write to each disk (a round), summed
    icy_host_held_share   the larger of the two disks' shares of writes the host held up by CREEP_STEP
                          of a rotation or more beyond its median (folded by whole rotations, which
                          leave a write at the same place on the platter), over the writes icy_stats
                          measures
    icy_sequential_share  the smaller of the disks' shares of writes that began where the one before ended
    The host's numbers are None where the logs do not pair."""
    rot = rotations_ms(p)
    seq, host, held = [], [], []
    for i, df in enumerate(disks.values()):
        off, bs = df.offset.to_numpy(), df.bs.to_numpy()
        seq.append(float(np.mean(off[1:] == off[:-1] + bs[:-1])) if len(off) > 1 else float("nan"))
        f = app.iloc[i::2]
        n = min(len(f), len(df))
        h = (f.lat_ns.to_numpy()[:n] - df.lat_ns.to_numpy()[:n]) / 1e6
        # the same offsets, and fio never faster than the disk: otherwise the logs do not pair
        if n and np.array_equal(f.offset.to_numpy()[:n], off[:n]) and (h > 0).all():
            h = h[_kept(df)[:n]]
            dev = h - np.median(h)
            dev = dev - rot[i] * np.round(dev / rot[i])
            host.append(h)
            held.append(float(np.mean(np.abs(dev) >= CREEP_STEP * rot[i])))
    out = {"icy_sequential_share": round(min(seq), 4),
           "icy_host_p50_us": None, "icy_host_round_ms": None, "icy_host_held_share": None}
    if len(host) == len(disks):
        out.update({"icy_host_p50_us": round(float(np.median(np.concatenate(host))) * 1000, 1),
                    "icy_host_round_ms": round(sum(float(h.mean()) for h in host), 3),
                    "icy_host_held_share": round(max(held), 4)})
    return out
