"""The disk-model lab's reading of a run: the model's parts (jumps, the seek curve, the rotational
delay left once seek and transfer are taken out, a band's width, the KS distance to a uniform band,
the FUSE round trip I/O by I/O), the run's logs read back (load), the headline numbers (summary)
and the table of the model's parts. Reads a live run or the reference alike."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import logs as fiolog
from perflab.infra import slowdisk
from perflab.run.record import params_of

from .experiment import JOB, PHASES, RANDOM_BS, SEQ_BS, SLICE_CAPACITY, WRITE_BS, disk_model

#: The textbook's figure for a 7200 RPM disk, QD1 random small reads (the issue that asked for this
#: lab: "about 75-90 IOPS"), and the average seeks that give it: 1000 / (seek + half a revolution).
TEXTBOOK_IOPS = (75.0, 90.0)
TEXTBOOK_SEEK_MS = (7.0, 9.0)
LATE_OVER = 1.1   # a sequential transfer "held up": over 1.1 x the median transfer time


# ------------------------------------------------------------------------------ the model's parts

def jumps(offset, bs) -> np.ndarray:
    """Each I/O's signed distance (bytes) from where the head is: the end of the previous I/O on
    the same disk (0 at mount), as slowdisk measures it. 0 = sequential."""
    off = np.asarray(offset, np.int64)
    end = off + np.asarray(bs, np.int64)
    return off - np.r_[0, end[:-1]]


def seek_ms(m: slowdisk.DiskModel, dist, capacity: int) -> np.ndarray:
    """The seek curve: track-to-track + (full stroke - track-to-track) x sqrt(distance / capacity)."""
    frac = np.minimum(np.abs(np.asarray(dist, float)) / capacity, 1.0)
    return m.seek_min_ms + (m.full_stroke_ms - m.seek_min_ms) * np.sqrt(frac)


def far(m: slowdisk.DiskModel, dist) -> np.ndarray:
    """Jumps longer than `near_bytes`: a seek plus a rotational delay (shorter ones cost at most near_ms)."""
    return np.abs(np.asarray(dist)) > m.near_bytes


def rotational_ms(m: slowdisk.DiskModel, lat_ms, dist, bs, capacity: int) -> np.ndarray:
    """What is left of each far I/O's time once the seek curve and the transfer are taken out: the
    rotational delay (plus, from fio's side, the FUSE round trip)."""
    sel = far(m, dist)
    return (np.asarray(lat_ms, float)[sel] - seek_ms(m, np.asarray(dist)[sel], capacity)
            - np.asarray(bs, float)[sel] / (m.transfer_mbps * 1e3))


def band_width(x) -> float:
    """The width of a uniform band estimated from its middle: (90th - 10th percentile) / 0.8, which
    the band's rare stragglers (a late timer wake-up) do not move."""
    x = np.asarray(x, float)
    if len(x) < 10:
        return float("nan")
    lo, hi = np.percentile(x, [10, 90])
    return float((hi - lo) / 0.8)


def ks_uniform(x, width: float) -> float:
    """Kolmogorov-Smirnov distance between the values and a uniform distribution on [0, width)."""
    u = np.sort(np.asarray(x, float) / width)
    n = len(u)
    if not n:
        return float("nan")
    c = np.clip(u, 0.0, 1.0)
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - c), np.max(c - (i - 1) / n)))


def fuse_overhead_us(app: pd.DataFrame, dev: pd.DataFrame) -> np.ndarray:
    """fio's latency minus the disk's own service time, I/O by I/O (queue depth 1: the two logs list
    the same I/Os in the same order), for the I/Os whose offsets agree: the FUSE round trip."""
    n = min(len(app), len(dev))
    a, b = app.iloc[:n], dev.iloc[:n]
    same = a.offset.to_numpy() == b.offset.to_numpy()
    return (a.lat_ns.to_numpy()[same] - b.lat_ns.to_numpy()[same]) / 1e3


# ------------------------------------------------------------------------------ loading

def _fio_logs(fdir: Path, ph: str) -> list[Path]:
    return sorted(fdir.glob(f"{ph}_clat.*.log*"), key=lambda q: int(q.name.split(".")[1]))


def load(data_dir: Path) -> dict:
    """fio's per-I/O logs and each disk's device log, per experiment, on one clock (epoch ms), fio's
    report, and the parameters the run was made with (its run.json: the disks' models follow from them)."""
    data_dir = Path(data_dir)
    fdir, ddir = data_dir / "fio", data_dir / "device"
    app, dev, logs = {}, {}, {}
    for ph, (mount, _) in PHASES.items():
        logs[ph] = _fio_logs(fdir, ph)
        app[ph] = pd.concat([fiolog.read_lat_log(q) for q in logs[ph]], ignore_index=True)
        sub = ddir / mount
        dv = slowdisk.read_device_log(next(iter(sorted(sub.glob(f"{ph}.log*")))))
        dv["epoch_ms"] = dv.time_ms + int((sub / "mount.epoch_ms").read_text())
        dev[ph] = dv
    report = fiolog.read_fio_json(fdir / f"{JOB}.json")
    return {"app": app, "dev": dev, "logs": logs, "jobs": fiolog.job_table(report), "report": report,
            "fio_version": report.get("fio version"), "params": params_of(data_dir)}


def sync_latency_ms(d: dict, name: str) -> float:
    """The mean latency of a job's fsync/fdatasync calls, from fio's report (its "sync" section: fio 3.33
    leaves total_ios 0 there and counts the calls in lat_ns.N); NaN when the report has none."""
    for job in d["report"].get("jobs", []):
        lat = (job.get("sync") or {}).get("lat_ns") or {}
        if job.get("jobname") == name and lat.get("N"):
            return float(lat["mean"]) / 1e6
    return float("nan")


def _job(d: dict, name: str, ddir: str):
    j = d["jobs"]
    row = j[(j.job == name) & (j.ddir == ddir)]
    return row.iloc[0] if len(row) else None


# ------------------------------------------------------------------------------ analysis

def random_parts(d: dict, p: dict) -> pd.DataFrame:
    """The whole-disk random reads as the disk served them: per I/O its jump, the seek the curve
    gives for it, the service time and what is left for the rotational delay (far jumps only)."""
    m, cap = disk_model(p), PHASES["random"][1]
    dv = d["dev"]["random"]
    dv = dv[dv.ddir == 0]
    j = jumps(dv.offset, dv.bs)
    sel = far(m, j)
    svc = dv.lat_ns.to_numpy()[sel] / 1e6
    sk = seek_ms(m, j[sel], cap)
    return pd.DataFrame({"dist_frac": np.abs(j[sel]) / cap, "seek_ms": sk, "svc_ms": svc,
                         "rot_ms": svc - sk - dv.bs.to_numpy()[sel] / (m.transfer_mbps * 1e3)})


def summary(d: dict) -> dict:
    """The headline numbers, for the disk models of the run's own parameters (d["params"]): the
    random reads against the model's prediction and the textbook's figure, the seek curve fitted to
    them, the short-stroked reads' rotational band, the sequential reads' rate (on the disk and in
    fio), the FUSE round trip, and the writes with the write cache off and on."""
    p = d["params"]
    m = disk_model(p)
    rot = m.rotation_ms
    out: dict = {"rotation_ms": round(rot, 4), "mean_seek_ms": round(m.mean_seek_ms, 3),
                 "full_stroke_ms": round(m.full_stroke_ms, 3)}
    # random reads over the whole disk: IOPS against the model's prediction and the textbook's
    r = _job(d, "random", "read")
    pred = slowdisk.expected_service_ms(m, "randread", RANDOM_BS, file_size=PHASES["random"][1])
    out.update(random_iops=round(float(r.iops), 2), random_predicted_ms=round(pred, 3),
               random_predicted_iops=round(1000 / pred, 2), random_iops_ratio=round(float(r.iops) * pred / 1000, 4),
               random_mean_ms=round(float(r.clat_mean_ns) / 1e6, 3),
               random_p50_ms=round(float(r.clat_p50_ns) / 1e6, 3),
               textbook_disk=bool(float(p["rpm"]) == 7200 and TEXTBOOK_SEEK_MS[0] <= m.mean_seek_ms <= TEXTBOOK_SEEK_MS[1]))
    rp = random_parts(d, p)
    # the seek curve fitted to the service times: svc - transfer - half a revolution = a + b sqrt(d/capacity)
    y = rp.svc_ms - RANDOM_BS / (m.transfer_mbps * 1e3) - rot / 2
    b, a = np.polyfit(np.sqrt(np.minimum(rp.dist_frac, 1.0)), y, 1)
    out.update(random_far=int(len(rp)), seek_fit_track_ms=round(float(a), 3), seek_fit_full_ms=round(float(a + b), 3),
               seek_fit_ratio=round(float((a + b) / m.full_stroke_ms), 4),
               random_rot_mean_ms=round(float(rp.rot_ms.mean()), 3))
    # short-stroked reads: the rotational band, from fio's side and from the disk's
    sm = disk_model(p, "slice")
    app = d["app"]["stroke"]
    a_rot = rotational_ms(sm, app.lat_ns / 1e6, jumps(app.offset, app.bs), app.bs, SLICE_CAPACITY)
    dv = d["dev"]["stroke"]
    dv = dv[dv.ddir == 0]
    d_rot = rotational_ms(sm, dv.lat_ns / 1e6, jumps(dv.offset, dv.bs), dv.bs, SLICE_CAPACITY)
    lat = app.lat_ns.to_numpy() / 1e6
    out.update(stroke_ios=int(len(app)), stroke_far=int(len(a_rot)),
               stroke_p1_ms=round(float(np.percentile(lat, 1)), 3), stroke_p99_ms=round(float(np.percentile(lat, 99)), 3),
               stroke_band_ms=round(band_width(a_rot), 3), stroke_band_ratio=round(band_width(a_rot) / rot, 4),
               stroke_device_band_ratio=round(band_width(d_rot) / rot, 4),
               stroke_rot_mean_ms=round(float(np.mean(d_rot)), 3),
               stroke_ks=round(ks_uniform(d_rot, rot), 4),
               stroke_ks_limit=round(1.63 / np.sqrt(max(len(d_rot), 1)) + 0.01, 4))
    # sequential reads: the media rate, on the disk and as fio saw it
    dv = d["dev"]["seq"]
    dv = dv[dv.ddir == 0]
    seq = jumps(dv.offset, dv.bs) == 0
    dev_mbps = float(dv.bs[seq].sum() / (dv.lat_ns[seq].sum() / 1e9) / 1e6)
    # the typical transfer (its median time) and the share held up past it: a model streaming at
    # the wrong rate moves them all, a machine whose timers wake late now and then only the tail
    med_ns = float(np.median(dv.lat_ns[seq])) if seq.any() else float("nan")
    typical_mbps = float(np.median(dv.bs[seq]) / (med_ns / 1e9) / 1e6) if seq.any() else float("nan")
    late_share = float(np.mean(dv.lat_ns[seq] > LATE_OVER * med_ns)) if seq.any() else float("nan")
    fio_mbps = float(_job(d, "seq", "read").bw_bytes) / 1e6
    p10, p90 = np.percentile(d["app"]["seq"].lat_ns, [10, 90])
    over_seq = fuse_overhead_us(d["app"]["seq"], dv)
    over_rand = fuse_overhead_us(d["app"]["random"], d["dev"]["random"][d["dev"]["random"].ddir == 0])
    out.update(seq_device_typical_ratio=round(typical_mbps / m.transfer_mbps, 4),
               seq_device_late_share=round(late_share, 4))
    out.update(seq_device_mbps=round(dev_mbps, 2), seq_device_ratio=round(dev_mbps / m.transfer_mbps, 4),
               seq_fio_mbps=round(fio_mbps, 2), seq_spread=round(float(p90 / p10), 4), seq_fio_ratio=round(fio_mbps / m.transfer_mbps, 4),
               seq_transfer_ms=round(SEQ_BS / (m.transfer_mbps * 1e3), 4),
               fuse_p50_us=round(float(np.median(over_seq)), 1), fuse_p99_us=round(float(np.percentile(over_seq, 99)), 1),
               fuse_random_p50_us=round(float(np.median(over_rand)), 1),
               fuse_paired=int(len(over_seq) + len(over_rand)),
               fuse_unpaired=int(len(d["app"]["seq"]) + len(d["app"]["random"]) - len(over_seq) - len(over_rand)),
               fuse_negative_share=round(float(np.mean(np.r_[over_seq, over_rand] < 0)), 5))
    out["fuse_share_of_seq"] = round(out["fuse_p50_us"] / 1000 / out["seq_transfer_ms"], 4)
    # writes: the write cache off and on, O_DSYNC with it on, and write + fdatasync with it on
    for ph in ("write-off", "write-on", "dsync-on", "flush-on"):
        key = ph.split("-")[0] + "_" + ph.split("-")[1]            # write_off, write_on, dsync_on, flush_on
        dv = d["dev"][ph]
        w, f = dv[dv.ddir == 1], dv[dv.ddir == 3]
        wr = _job(d, ph, "write")
        out.update({f"{key}_dev_ms": round(float(np.median(w.lat_ns)) / 1e6, 4),
                    f"{key}_writes": int(len(w)), f"{key}_flushes": int(len(f)),
                    f"{key}_ms": round(float(wr.clat_mean_ns) / 1e6, 4),
                    f"{key}_writes_per_s": round(float(wr.iops), 1)})
        if ph == "flush-on":
            sync_ms = sync_latency_ms(d, ph)    # fio's report has the fdatasync calls (its per-I/O log has not)
            out.update(flush_on_dev_flush_ms=round(float(np.median(f.lat_ns)) / 1e6, 4) if len(f) else float("nan"),
                       flush_on_sync_ms=round(sync_ms, 4), flush_on_durable_ms=round(out["flush_on_ms"] + sync_ms, 4))
    out["cache_gain_ms"] = round(out["write_off_ms"] - out["write_on_ms"], 4)
    out["cache_gain_rev"] = round(out["cache_gain_ms"] / rot, 4)
    return out


def components(mt: dict, p: dict) -> pd.DataFrame:
    """One row per part of the model: the setting, what the model says, what the disk's log and fio
    measured (a run's metrics)."""
    m = disk_model(p)
    rows = [
        ("seek", f"seek_min_ms={m.seek_min_ms:g}, seek_max_ms={m.full_stroke_ms:g}",
         f"{m.seek_min_ms:g}-{m.full_stroke_ms:g} ms, mean {m.mean_seek_ms:.2f} ms over the whole disk",
         f"fitted curve {mt['seek_fit_track_ms']:.2f}-{mt['seek_fit_full_ms']:.2f} ms", "-"),
        ("rotational delay", f"rpm={p['rpm']:g}",
         f"uniform 0-{m.rotation_ms:.2f} ms, mean {m.rotation_ms / 2:.2f} ms",
         f"band {mt['stroke_device_band_ratio'] * m.rotation_ms:.2f} ms wide, mean {mt['stroke_rot_mean_ms']:.2f} ms",
         f"band {mt['stroke_band_ms']:.2f} ms wide"),
        ("transfer", f"transfer_mbps={m.transfer_mbps:g}",
         f"{m.transfer_mbps:g} MB/s ({mt['seq_transfer_ms']:.3f} ms per 128 KiB)",
         f"{mt['seq_device_mbps']:.1f} MB/s", f"{mt['seq_fio_mbps']:.1f} MB/s"),
        ("write, cache off", "write_cache=off",
         f"a sequential write waits for its sector: about one revolution ({m.rotation_ms:.2f} ms)",
         f"{mt['write_off_dev_ms']:.2f} ms", f"{mt['write_off_ms']:.2f} ms"),
        ("write, cache on", "write_cache=on, cache_mbps=300",
         f"acknowledged from the cache: {WRITE_BS / 300e3 * 1000:.0f} us",
         f"{mt['write_on_dev_ms'] * 1000:.0f} us", f"{mt['write_on_ms'] * 1000:.0f} us"),
        ("O_DSYNC write, cache on", "write_cache=on",
         "forced unit access: as with the cache off", f"{mt['dsync_on_dev_ms']:.2f} ms", f"{mt['dsync_on_ms']:.2f} ms"),
        ("flush (fdatasync)", f"flush_ms={m.flush_ms:g}", f"{m.flush_ms:g} ms after any writing out",
         f"{mt['flush_on_dev_flush_ms']:.2f} ms", f"{mt['flush_on_sync_ms']:.2f} ms"),
        ("FUSE round trip", "(real: not modelled)", "-", "-",
         f"{mt['fuse_p50_us']:.0f} us median (99th percentile {mt['fuse_p99_us']:.0f} us)"),
    ]
    return pd.DataFrame(rows, columns=["part", "setting", "the model", "the disk's log", "fio"]).set_index("part")
