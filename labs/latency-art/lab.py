"""Lab `latency-art` (chapter "Latency art: the icy lake and the rainbow pterodactyl",
chapters/latency-art.md).

Two experiments on emulated mechanical disks (slowdisk, mounted on the host; fio in a container
sees the mounts through bind mounts):

* **Icy lake.** One fio thread writes 8 KiB O_DSYNC blocks sequentially, round robin over two
  disks (`file_service_type=roundrobin`), as ZFS's intent log spreads successive log blocks over
  the pool's disks. Each disk is its own slowdisk mount so that its spindle can turn at its own
  speed (`icy_rpm` and `icy_rpm + rpm_offset`). slowdisk makes a sequential synchronous write wait
  for its sector to come round: `rotation - (idle mod rotation)`, idle being the time since the
  disk's previous write ended. With two disks in turn, each disk's idle time is the other disk's
  service time, so the two waits add up to about one rotation; when the rotations differ by dT,
  one disk's wait grows by dT per round and the other's shrinks: two diagonals crossing (an X),
  wrapping round every rotation / dT rounds (a sawtooth).
* **Rainbow pterodactyl.** `disks` emulated disks sit in `ports` JBODs, one slowdisk mount each;
  the disks alternate between them. Each JBOD's port has `lanes` lanes and a lane carries one
  disk I/O at a time: emulated by capping the mount's FUSE worker threads at `lanes` (an I/O that
  finds every lane busy waits in the kernel's FUSE queue). fio lights the disks up one by one with
  128 KiB sequential reads, a phase of `phase` seconds per disk count. Throughput rises with each
  disk until ports x lanes disks are streaming (the knee), then stays flat while latency rises.

Real: fio, the containers, the FUSE request path and its queueing, the host's threads and timers.
The disks' backing files and the mount points live on tmpfs (/dev/shm/perflab-RUN/), recorded in
the run's ledger, so that the host's own disk adds no delays of its own.
Emulated: the disks (slowdisk's model), the spindle speeds, the SAS ports (a cap on FUSE threads).

Produces, under the run directory:
  fio/icy-lake.{fio,json}, fio/icy-lake_clat.1.log            the icy lake (per-I/O, epoch ms)
  fio/pterodactyl.{fio,json}, fio/pterodactyl_clat.N.log     one log per disk (job N = disk N-1)
  device/icy-d<i>/d<i>.log, mount.epoch_ms                    service times of each icy-lake disk
  device/jbod<j>/d<i>.log, mount.epoch_ms                     service times of each streaming disk
  events.json                                                 wall-clock start of the pterodactyl
"""
from __future__ import annotations

import json
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import jobs as fio, logs as fiolog
from perflab.analysis import heatmap
from perflab.infra import slowdisk
from perflab.infra.containers import Topology
from perflab.infra.hostobjects import scratch_dir
from perflab.infra.labdirs import device_lab

ICY, PTERO = "icy-lake", "pterodactyl"
#: 2009 figures (Brendan Gregg): the icy lake (one NFS client thread of 8 KB O_DSYNC sequential
#: writes to a Sun Storage 7000 with 2 JBODs (48 x 7200 RPM disks), mirrored: latency 0-10 ms, diagonal lines and
#: X's); the rainbow pterodactyl ("Latency Art: Rainbow Pterodactyl", 12 March 2009: disks lit one
#: by one with 128 KB streaming reads of their raw devices; throughput knee at 1.13 GB/s, disk count
#: not given; port contention from the 9th disk (the beak ends at 8 disks, two x4 SAS ports);
#: 2.23 GB/s with two paths per JBOD). "knee_disks" below is that 8: where contention begins.
FIGURES_2009 = {"knee_disks": 8, "knee_gbps": 1.13, "knee_gbps_dual": 2.23, "ports": 2, "lanes": 4,
                "icy_range_ms": "0-10"}
ICY_DISK_BYTES = 256 << 20     # each icy-lake disk file (sparse; the writes fill part of it)
STREAM_DISK_BYTES = 1 << 30    # each streaming disk file (sparse: reads of holes cost no host I/O)
LINEAR_NS = 100_000            # linear heat-map rows of 100 us
LINEAR_MAX_NS = 20_000_000     # up to 20 ms (rarer, slower I/Os are counted above the top row)
TRIM_S = (0.6, 0.3)            # left out at the start and end of each pterodactyl phase


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


def validate(p: dict) -> list[str]:
    """What the schema cannot say: there must be disks beyond the knee to see it."""
    knee = p["ports"] * p["lanes"]
    if p["disks"] < knee + 2:
        return [f"parameter disks={p['disks']}: the knee is expected at ports x lanes = {knee} disks; "
                f"allowed: at least {knee + 2} disks (two phases beyond the knee)"]
    return []


def plan(p: dict) -> list[tuple[str, float]]:
    return [("disks", 3.0), (ICY, p["icy_time"] + 4), (PTERO, p["disks"] * p["phase"] + 4), ("collect", 3.0)]


def icy_model(p: dict, i: int) -> slowdisk.DiskModel:
    rpm = float(p["icy_rpm"]) + (float(p["rpm_offset"]) if i else 0.0)
    return slowdisk.DiskModel(rpm=rpm, seed=1 + i).validate()


def stream_model(p: dict) -> slowdisk.DiskModel:
    return slowdisk.DiskModel(transfer_mbps=float(p["stream_mbps"]), seed=1).validate()


def jbod_of(i: int, ports: int) -> int:
    """Disks alternate between the JBODs (ports): disk 0 on port 0, disk 1 on port 1, ..."""
    return i % ports


def icy_job(s) -> fio.JobFile:
    p = s.params
    jf = fio.JobFile.load(s.lab.jobs_dir / f"{ICY}.fio")
    jf.apply({"global": {"bs": p["icy_bs"], "runtime": int(p["icy_time"]), "size": 2 * ICY_DISK_BYTES},
              ICY: {"filename": "/icy0/d0:/icy1/d1"}})
    return jf


def sanity_context(p: dict) -> dict:
    """For perflab.analysis.sanity: each pterodactyl disk streams at its own rate until the ports fill, then
    shares them with every disk lit after it: its rate changes on purpose."""
    why = "disks light up one by one; past the ports' knee each disk's share falls as others join"
    return {f"disk{i}": {"phased": why} for i in range(p["disks"])}


def ptero_job(s) -> fio.JobFile:
    p = s.params
    jf = fio.JobFile.load(s.lab.jobs_dir / f"{PTERO}.fio")
    model = dict(jf.sections.pop("disk0"))
    phase, n = p["phase"], p["disks"]
    for i in range(n):
        sec = f"disk{i}"
        jf.sections[sec] = [(k, v) for k, v in model.items() if k not in ("filename", "startdelay", "runtime")]
        jf.apply({sec: {"filename": f"/jbod{jbod_of(i, p['ports'])}/d{i}",
                        "startdelay": f"{int(round(i * phase * 1000))}ms",
                        "runtime": f"{int(round((n - i) * phase * 1000))}ms"}})
    jf.set("global", "size", STREAM_DISK_BYTES)
    return jf


def run(s) -> None:
    p = s.params
    d = device_lab(s)
    tag, out, dev, host = d.tag, d.out, d.dev, d.shm
    icy = icy_job(s).write(out / f"{ICY}.fio")
    ptero = ptero_job(s).write(out / f"{PTERO}.fio")
    # Backing files and mount points on tmpfs: reading a sparse file on this VM's disk stalls
    # ~18 ms at every 8 MiB (measured), which would draw dots the disk model never made.
    events: dict[str, int] = {}
    try:
        with ExitStack() as stack, Topology(s.run_id, s.lab.name) as topo:
            stack.enter_context(scratch_dir(s.ledger, host.parent))
            with s.phase("disks"):
                s.provenance(fio_version=fio.version(topo, tag))
                icy_vols, jbod_vols = {}, {}
                for i in range(2):
                    b = host / f"icy{i}"
                    b.mkdir(parents=True)
                    subprocess.run(["truncate", "-s", str(ICY_DISK_BYTES), str(b / f"d{i}")], check=True)
                    m = stack.enter_context(slowdisk.recorded(s.ledger, b, host / f"icy{i}-mnt", icy_model(p, i),
                                                             log_dir=dev / f"icy-d{i}"))
                    icy_vols[str(m.mountpoint)] = {"bind": f"/icy{i}", "mode": "rw"}
                for j in range(p["ports"]):
                    b = host / f"jbod{j}"
                    b.mkdir(parents=True)
                    for i in range(p["disks"]):
                        if jbod_of(i, p["ports"]) == j:
                            subprocess.run(["truncate", "-s", str(STREAM_DISK_BYTES), str(b / f"d{i}")], check=True)
                    m = stack.enter_context(slowdisk.recorded(s.ledger, b, host / f"jbod{j}-mnt", stream_model(p),
                                                              log_dir=dev / f"jbod{j}",
                                                              extra_options=(f"max_threads={p['lanes']}",)))
                    jbod_vols[str(m.mountpoint)] = {"bind": f"/jbod{j}", "mode": "ro"}
                s.provenance(icy_disk_models=[icy_model(p, i).to_options() for i in range(2)],
                             stream_disk_model=stream_model(p).to_options() + [f"max_threads={p['lanes']}"])
            with s.phase(ICY):
                fio.run_in_container(topo, tag, icy, out, ICY, volumes=icy_vols, timeout=p["icy_time"] + 300)
            with s.phase(PTERO):
                events["pterodactyl_start_ms"] = int(time.time() * 1000)
                fio.run_in_container(topo, tag, ptero, out, PTERO, volumes=jbod_vols,
                                     timeout=p["disks"] * p["phase"] + 300)
                events["pterodactyl_end_ms"] = int(time.time() * 1000)
            for extra in list(out.glob("*_lat.*.log")) + list(out.glob("*_slat.*.log")):
                extra.unlink()   # fio writes them beside the clat logs; the chapter uses clat only
    finally:
        (s.path("events.json")).write_text(json.dumps(events, indent=2))
    with s.phase("collect"):
        d = load(s.data_dir)
        s.metric(**summary(d, s.params))


# ------------------------------------------------------------------------------ analysis

def _logs(fdir: Path, job: str) -> list[Path]:
    logs = sorted(fdir.glob(f"{job}_clat.*.log*"), key=lambda q: int(q.name.split(".")[1]))
    return logs


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


def count_wraps(svc_ms: np.ndarray, t_s: np.ndarray, rot_ms: float, gap_s: float = 1.0) -> int:
    """How many times a disk's line wraps round the rotation: jumps of more than half a rotation
    between successive writes, those less than `gap_s` apart counted once (near the edge the
    line can cross back and forth a few times in one wrap)."""
    jumps = np.flatnonzero(np.abs(np.diff(np.asarray(svc_ms, float))) > rot_ms / 2)
    if not len(jumps):
        return 0
    tj = np.asarray(t_s, float)[jumps + 1]
    return int(1 + np.sum(np.diff(tj) > gap_s))


#: A step from one write to the next counts as creeping when the service time moves by less than this
#: share of a rotation (wrap-rounds folded back). Creep moves it by about 12 us of 8.3 ms (0.15%); a
#: random rotation puts it anywhere in [-1/2, 1/2] of a rotation, so a tenth of its steps pass.
CREEP_STEP = 0.05


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


def icy_stats(disks: dict[str, pd.DataFrame], p: dict) -> dict:
    rpm = [float(p["icy_rpm"]), float(p["icy_rpm"]) + float(p["rpm_offset"])]
    rot = [60_000.0 / r for r in rpm]
    pred = (rot[0] - rot[1]) * 1000          # us per round: disk 0 up, disk 1 down
    r = {"icy_predicted_drift_us": round(pred, 2)}
    for i, (name, df) in enumerate(disks.items()):
        x = df.svc_ms.to_numpy()
        # trim the first and last second (fio's start and a partial last round)
        keep = (df.t_s >= 1) & (df.t_s <= df.t_s.max() - 1)
        x, t = x[keep.to_numpy()], df.t_s.to_numpy()[keep.to_numpy()]
        r[f"icy_{name}_writes"] = int(len(x))
        r[f"icy_{name}_lag1"] = round(lag1(x), 3)
        r[f"icy_{name}_creep_share"] = round(creep_share(x, rot[i]), 3)
        r[f"icy_{name}_drift_us"] = round(drift_per_visit_us(x, rot[i]), 2)
        r[f"icy_{name}_p50_ms"] = round(float(np.median(x)), 3)
        r[f"icy_{name}_wraps"] = count_wraps(x, t, rot[i])
    # the two waits share one rotation: mean service of d0 + d1 is about one rotation
    r["icy_sum_ms"] = round(sum(float(df.svc_ms.mean()) for df in disks.values()), 3)
    r["icy_rotation_ms"] = round(rot[0], 3)
    span = max(df.t_s.max() for df in disks.values()) - 2
    r["icy_rounds_per_s"] = round(min(r["icy_d0_writes"], r["icy_d1_writes"]) / span, 1) if span > 0 else None
    if pred:
        rounds = abs(rot[0] / pred * 1000)
        r["icy_predicted_period_s"] = round(rounds / r["icy_rounds_per_s"], 2) if r["icy_rounds_per_s"] else None
    return r


def phase_windows(t0_ms: float, p: dict):
    """(disks lit, start ms, end ms) of each pterodactyl phase, without its first and last moments."""
    phase_ms = p["phase"] * 1000
    for k in range(1, p["disks"] + 1):
        yield k, t0_ms + (k - 1) * phase_ms + TRIM_S[0] * 1000, t0_ms + k * phase_ms - TRIM_S[1] * 1000


def ptero_phases(d: dict, p: dict) -> pd.DataFrame:
    """One row per disk count: throughput (MB/s), latency percentiles of the reads completed in
    that phase, from fio's per-I/O logs (the phase's first and last moments left out), and the
    share of reads that took 1.75 transfer times or more (near a second transfer: a read that
    waited for a whole transfer in front of it)."""
    io = d["ptero_io"]
    transfer_ms = 131072 / (p["stream_mbps"] * 1e3)
    rows = []
    for k, a, b in phase_windows(d["ptero_t0_ms"], p):
        sel = io[(io.time_ms >= a) & (io.time_ms < b)]
        dur = (b - a) / 1000
        lat = sel.lat_ns.to_numpy() / 1e6
        pct = np.percentile(lat, [10, 50, 90, 99]) if len(lat) else [np.nan] * 4
        rows.append({"disks": k, "mb_s": sel.bs.sum() / dur / 1e6, "reads": len(sel),
                     "p10_ms": pct[0], "p50_ms": pct[1], "p90_ms": pct[2], "p99_ms": pct[3],
                     "mean_ms": float(lat.mean()) if len(lat) else np.nan,
                     "two_transfer_share": float((lat >= 1.75 * transfer_ms).mean()) if len(lat) else np.nan})
    return pd.DataFrame(rows)


def find_knee(n: np.ndarray, mb_s: np.ndarray, step: float = 0.05) -> tuple[float, float]:
    """The knee of a throughput-vs-disks curve: the k that best fits `rate * min(n, k)` (a line
    through the origin, then flat), least squares over k in [1, max(n)]. Returns (k, rate)."""
    n, y = np.asarray(n, float), np.asarray(mb_s, float)
    best = (float("nan"), float("nan"), np.inf)
    for k in np.arange(1.0, n.max() + step / 2, step):
        x = np.minimum(n, k)
        a = float((x * y).sum() / (x * x).sum())
        sse = float(((y - a * x) ** 2).sum())
        if sse < best[2]:
            best = (float(k), a, sse)
    return best[0], best[1]


def device_phases(d: dict, p: dict) -> pd.DataFrame:
    """Median service time of the streaming disks' reads per phase, from slowdisk's device logs
    (the disks' own view: no time waiting for a lane)."""
    dev = d["ptero_device"]
    rows = []
    for k, a, b in phase_windows(d["ptero_t0_ms"], p):
        sel = dev[(dev.epoch_ms >= a) & (dev.epoch_ms < b)]
        rows.append({"disks": k, "device_p50_ms": float(np.median(sel.lat_ns)) / 1e6 if len(sel) else np.nan})
    return pd.DataFrame(rows)


def ptero_stats(ph: pd.DataFrame, p: dict) -> dict:
    knee, rate = find_knee(ph.disks.to_numpy(), ph.mb_s.to_numpy())
    expected = p["ports"] * p["lanes"]
    before = ph[ph.disks < min(knee, expected)]
    last = ph.iloc[-1]
    p50_before = float(before.p50_ms.median()) if len(before) else float(ph.p50_ms.iloc[0])
    at_knee = ph[ph.disks == int(round(knee))]
    return {
        "knee_disks": round(knee, 2), "knee_expected": expected, "per_disk_mb_s": round(rate, 1),
        "one_disk_mb_s": round(float(ph.mb_s.iloc[0]), 1),
        "knee_mb_s": round(float(at_knee.mb_s.iloc[0]), 1) if len(at_knee) else None,
        "max_mb_s": round(float(ph.mb_s.max()), 1), "last_mb_s": round(float(last.mb_s), 1),
        "flat_ratio": round(float(last.mb_s / ph[ph.disks == expected].mb_s.iloc[0]), 3),
        "linear_ratio": round(float(ph[ph.disks == expected].mb_s.iloc[0] / (expected * ph.mb_s.iloc[0])), 3),
        "p50_before_knee_ms": round(p50_before, 3), "p50_last_ms": round(float(last.p50_ms), 3),
        "p90_last_ms": round(float(last.p90_ms), 3),
        "latency_rise": round(float(last.p50_ms) / p50_before, 3),
        "latency_rise_expected": round(p["disks"] / expected, 3),
        "flat_before_knee": round(float(ph[ph.disks == expected].p50_ms.iloc[0]) / float(ph.p50_ms.iloc[0]), 3),
        "transfer_ms": round(131072 / (p["stream_mbps"] * 1e3), 3),
        "second_band": round(float(last.p90_ms) / p50_before, 3),
    }


def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    fdir = data_dir / "fio"
    icy_logs = _logs(fdir, ICY)
    t_icy = fiolog.first_time_ms(icy_logs) // 1000 * 1000
    icy_app = heatmap.from_lat_log(icy_logs, col_s=0.5, linear_ns=LINEAR_NS, linear_max_ns=LINEAR_MAX_NS, t0_ms=t_icy)
    plogs = _logs(fdir, PTERO)
    frames = []
    for i, lp in enumerate(plogs):
        df = fiolog.read_lat_log(lp)
        df["disk"] = i
        frames.append(df)
    io = pd.concat(frames, ignore_index=True)
    first = frames[0]
    t0 = int(first.time_ms.min() - first.lat_ns.iloc[0] / 1e6)     # disk 0's first read was issued
    ptero_app = heatmap.from_lat_log(plogs, col_s=1.0, linear_ns=LINEAR_NS, linear_max_ns=LINEAR_MAX_NS,
                                       t0_ms=t0 // 1000 * 1000)
    devs = []
    for sub in sorted((data_dir / "device").glob("jbod*")):
        epoch = int((sub / "mount.epoch_ms").read_text())
        for lp in sorted(sub.glob("d*.log*")):
            df = slowdisk.read_device_log(lp)
            df = df[df.ddir == 0]
            devs.append(pd.DataFrame({"epoch_ms": df.time_ms.to_numpy() + epoch, "lat_ns": df.lat_ns.to_numpy()}))
    device = pd.concat(devs, ignore_index=True) if devs else pd.DataFrame(columns=["epoch_ms", "lat_ns"])
    return {"icy_app": icy_app, "icy_disks": icy_disks(data_dir), "icy_t0_ms": t_icy,
            "ptero_device": device,
            "ptero_app": ptero_app, "ptero_io": io, "ptero_t0_ms": t0,
            "ptero_hm_t0_ms": t0 // 1000 * 1000,
            "icy_jobs": fiolog.job_table(fiolog.read_fio_json(fdir / f"{ICY}.json")),
            "fio_version": fiolog.read_fio_json(fdir / f"{PTERO}.json").get("fio version")}


def per_disk_rates(d: dict, p: dict, col_s: float = 1.0) -> pd.DataFrame:
    """MB/s of each disk per `col_s` seconds since the pterodactyl began: the rainbow."""
    io = d["ptero_io"]
    t = ((io.time_ms - d["ptero_t0_ms"]) // int(col_s * 1000)).astype(int)
    tab = io.assign(col=t).groupby(["col", "disk"]).bs.sum().unstack(fill_value=0) / col_s / 1e6
    tab.index = tab.index * col_s
    return tab


def summary(d: dict, p: dict) -> dict:
    m = icy_stats(d["icy_disks"], p)
    m.update(ptero_stats(ptero_phases(d, p), p))
    dv = device_phases(d, p)
    m["device_p50_first_ms"] = round(float(dv.device_p50_ms.iloc[0]), 3)
    m["device_p50_last_ms"] = round(float(dv.device_p50_ms.iloc[-1]), 3)
    m["device_p50_ratio"] = round(m["device_p50_last_ms"] / m["device_p50_first_ms"], 3)
    return m
