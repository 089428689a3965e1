"""Lab `logzilla` (chapter "Logzilla: synchronous writes and the separate intent log",
chapters/logzilla.md).

Topology: a ZFS server container (zfs-fuse; its disks are files on the slowdisk emulator, 2-way
mirrors) and a fio client container that sees the pool through an rshared bind of a host
directory. fio writes with O_DSYNC for `before` seconds; then the lab adds a separate intent-log
device (`log_device`: "ssd", a file on a second slowdisk mount with an SSD's model, a fixed
`ssd_ms` per write and no seek, rotation or flush cost, standing in for the Logzilla; "disk", the
same with the pool disks' model, a slow log; both without per-I/O logs;
"none", nothing: the mystery variant's control) and fio goes on for `after` seconds, so one heat
map shows the change. The 2009 post's untar (not with `untar_files = 0` or without a log device): a
tar of `untar_files` small files unpacked with NFS's stable creates and commits at close
(labs/logzilla/untar.py, in the fio image), once on the new pool before fio starts (no log device)
and once after fio ends (with it). The log device is never removed: zfs-fuse crashed at `zpool
remove` of a log device (a segfault, in a CI run on 2026-11-26 and in 2 of 3 runs on Debian 13).

Real: fio, ZFS (zfs-fuse: ZIL, txgs, the log device), containers. Emulated: the 7200 RPM disks
and the SSD (slowdisk's models). The SSD has a time of its own (it used to be a tmpfs file): with
none, the writes after the change ran as fast as the machine's CPUs allowed, and on a fast day
(5,400 writes/s) the pool's four emulated disks were written without a pause, so the data disks'
bursts, a shape the chapter checks, depended on the machine rather than on the pool.

Produces, under the run directory:
  fio/sync-writes.fio, fio/sync-writes.json, fio/*_clat*.log   fio's job, result and latency logs
  device/d<i>.log, device/mount.epoch_ms                        per-I/O service times of each disk
  device/iostat.txt, device/iostat.start                         `zpool iostat -v tank 1`
  untar/{with-log,no-log}.trace, .json    each untar's steps ("time_ns latency_ns op", op create or
                                          commit) and its summary (files, bytes, seconds)
  events.json        wall-clock times of the change (change_ms) and of each untar's start and end
                     (untar_no_log_start_ms, untar_no_log_end_ms, untar_with_log_...), and which log
                     device was added (log_device: sealed in a mystery run)
"""
from __future__ import annotations

import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import jobs as fio, logs as fiolog
from perflab.analysis import heatmap
from perflab.infra import zfs
from perflab.infra.containers import ContainerFailed, Topology, wait_until
from perflab.infra.slowdisk import DiskModel


#: For perflab.analysis.sanity: the rate changes on purpose during the run (peak-vs-average does not apply).
INTENT = {"*": {"phased": "a separate log device is added mid-run: the chapter measures before and after apart"}}

JOB = "sync-writes"
#: 2009 figures: Brendan Gregg's Logzilla screenshots post (2009): one client thread of NFS
#: synchronous writes to a 7410 with 46 disks, then with 2 Logzillas.
FIGURES_2009 = {"iops_before": 143, "iops_after": 1708, "lat_before": "2-9 ms (up to 8.93 ms)",
                "lat_after": "229-305 us", "iops_ratio": 12, "lat_ratio": ">20"}
#: The checks' thresholds by preset (the issue's acceptance: >= 5 in smoke, >= 10 in full).
IOPS_RATIO_MIN = {"smoke": 5.0, "full": 10.0}
P50_RATIO_MIN = {"full": 10.0}
DISK_BYTES = 1 << 30       # each emulated disk's backing file (sparse)
DISK_SPAN = 10 ** 12       # seek curve over a 1 TB disk: the data sits on its first GB
SLOG_MB = 512
HERE = Path(__file__).resolve().parent
UNTAR_SEED = 2009
UNTAR_RATIO_MIN = 5.0   # "several times": per file, two intent-log commits to the mirrors vs to the SSD
#: The emulated SSD's media rate (MB/s): a ZIL block of an 8 KiB write (about 12 KiB) takes ~60 us of it.
SSD_MBPS = 200.0
UNTARS = ("no-log", "with-log")    # in the order they run: fio's run, and the change, between them


def disk_model(p: dict) -> DiskModel:
    return DiskModel(rpm=float(p["rpm"]), capacity=DISK_SPAN, write_cache=bool(p["write_cache"]),
                     seed=1).validate()


def ssd_model(p: dict) -> DiskModel:
    """The log device's SSD: `ssd_ms` per command plus the transfer; no seek, no rotational delay, and
    a free cache flush (an SSD whose cache survives a power loss, as the Logzilla's did)."""
    return DiskModel(rpm=0, seek_min_ms=0, seek_max_ms=0, near_ms=0, overhead_ms=float(p["ssd_ms"]),
                     transfer_mbps=SSD_MBPS, flush_ms=0, seed=1).validate()


def untars(p: dict) -> bool:
    """Whether the run unpacks the archive: it needs files, and a log device to compare with none."""
    return p["untar_files"] > 0 and p["log_device"] != "none"


def plan(p: dict) -> list[tuple[str, float]]:
    # seconds per file measured here: about 0.02 without the log device, 0.002 with it (plus the archive)
    u = untars(p)
    return [("pool", 15.0), *([("untar-no-log", 3.0 + p["untar_files"] * 0.02)] if u else []),
            ("before", p["before"]), ("after", p["after"] + 5),
            *([("untar-with-log", 3.0 + p["untar_files"] * 0.002)] if u else []), ("collect", 10.0)]


def job_file(s) -> fio.JobFile:
    p = s.params
    jf = fio.JobFile.load(s.lab.jobs_dir / f"{JOB}.fio")
    jf.apply({"global": {"directory": f"{zfs.EXPORT}/{zfs.POOL}", "size": p["file_size"], "bs": p["bs"],
                         "numjobs": p["threads"], "runtime": int(p["before"] + p["after"])}})
    if p["capture"] == "hist":
        jf.apply({JOB: {"write_lat_log": None, "log_avg_msec": None, "write_hist_log": JOB,
                        "log_hist_msec": 1000}})
    return jf


def recordsize(bs: int) -> str:
    """ZFS record size matched to the I/O size (the posts' advice), within ZFS's 512 B-128 KiB."""
    return str(min(max(bs, 512), 128 * 1024))


def run(s) -> None:
    p = s.params
    lp = zfs.lab_paths(s)
    tags, out, dev, export = lp.tags, lp.out, lp.dev, lp.export
    job = job_file(s).write(out / f"{JOB}.fio")
    events: dict[str, int] = {}
    try:
        with zfs.shared_export(s.ledger, export) as exp, Topology(s.run_id, s.lab.name) as topo:
            with s.phase("pool"):
                s.provenance(fio_version=fio.version(topo, tags["fio"]))
                srv = zfs.ZfsServer.start(topo, tags["zfs"], exp, dev)
                model = disk_model(p)
                disks = srv.make_disks(2 * p["mirrors"], DISK_BYTES, model)
                layout = []
                for i in range(p["mirrors"]):
                    layout += ["mirror", disks[2 * i], disks[2 * i + 1]]
                srv.create_pool(layout, {"recordsize": recordsize(p["bs"]), "atime": "off",
                                         "compression": "off"})
                srv.start_iostat()
                s.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                             disk_model=model.to_options(), pool_layout=" ".join(layout))
            if untars(p):
                udir = s.path("untar")
                udir.mkdir(exist_ok=True)
                untar(topo, tags["fio"], exp, udir, "no-log", p["untar_files"], s, events)
            with s.phase("before"):
                fio_c = topo.container(
                    tags["fio"], "fio", ["fio", "--output-format=json", f"--output={JOB}.json", job.name],
                    volumes={str(out): {"bind": "/out", "mode": "rw"},
                             str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}},
                    working_dir="/out", network_mode="none")
                first = exp / zfs.POOL / "perflab-logzilla.0.dat"
                wait_until(lambda: first.exists() and first.stat().st_size > 0, 120, "fio's first write",
                           interval=0.02)
                events["fio_first_write_ms"] = int(time.time() * 1000)
                t_add = events["fio_first_write_ms"] / 1000 + p["before"]
                while time.time() < t_add:
                    fio_c.reload()
                    if fio_c.status != "running":
                        raise ContainerFailed("fio ended before the log device was added:\n"
                                              + fio_c.logs().decode(errors="replace")[-2000:])
                    time.sleep(min(0.5, max(0.0, t_add - time.time())))
            with s.phase("after"):
                events["log_device"] = p["log_device"]
                if p["log_device"] != "none":
                    srv.add_disk_log(SLOG_MB, ssd_model(p) if p["log_device"] == "ssd" else model)
                events["change_ms"] = int(time.time() * 1000)
                res = fio_c.wait(timeout=p["after"] + 300)
                events["fio_exit_ms"] = int(time.time() * 1000)
                if res.get("StatusCode") != 0:
                    raise ContainerFailed(f"fio: exit {res.get('StatusCode')}\n"
                                          + fio_c.logs().decode(errors="replace")[-2000:])
                (out / f"{JOB}.stdout.txt").write_bytes(fio_c.logs())
            if untars(p):
                untar(topo, tags["fio"], exp, udir, "with-log", p["untar_files"], s, events)
            with s.phase("collect"):
                (s.path("arcstats.json")).write_text(json.dumps(zfs.read_kstats(srv), indent=1))
                syscalls(topo, tags["fio"], exp, out, p["bs"])
                srv.stop()
    finally:
        (s.path("events.json")).write_text(json.dumps(events, indent=2))
    d = load(s.data_dir)
    s.metric(**summary(d, s.preset))


def untar(topo, image: str, exp: Path, udir: Path, name: str, files: int, s, events: dict) -> None:
    """Phase untar-`name`: make the archive in the container's /tmp (not timed), then unpack it onto
    the pool, a stable create and a commit at close per file (untar.py); the trace and summary land
    in udir, the phase's wall-clock start and end in `events`."""
    dest = f"{zfs.EXPORT}/{zfs.POOL}/untar-{name}"
    sh = (f"mkdir -p {dest} && python3 /lab/untar.py make --files {files} --seed {UNTAR_SEED} /tmp/tree.tar "
          f"> /dev/null && python3 /lab/untar.py extract /tmp/tree.tar {dest} --trace /out/{name}.trace "
          f"--summary /out/{name}.json > /dev/null")
    key = name.replace("-", "_")
    with s.phase(f"untar-{name}"):
        events[f"untar_{key}_start_ms"] = int(time.time() * 1000)
        topo.run(image, f"untar-{name}", ["sh", "-c", sh],
                 volumes={str(udir): {"bind": "/out", "mode": "rw"},
                          str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"},
                          str(HERE): {"bind": "/lab", "mode": "ro"}},
                 network_mode="none", timeout=600 + files)
        events[f"untar_{key}_end_ms"] = int(time.time() * 1000)


def load_untar(data_dir: Path) -> dict | None:
    """Each untar's summary and steps: {name: {"summary", "steps" (DataFrame t_ns, lat_ns, op)}}; None
    for a run without them."""
    udir = Path(data_dir) / "untar"
    if not all((udir / f"{n}.json").is_file() for n in UNTARS):
        return None
    out = {}
    for n in UNTARS:
        steps = pd.read_csv(udir / f"{n}.trace", sep=" ", comment="#", names=["t_ns", "lat_ns", "op"])
        out[n] = {"summary": json.loads((udir / f"{n}.json").read_text()), "steps": steps}
    return out


def untar_stats(u: dict) -> dict:
    """Seconds per untar and their ratio; each step's median (us); the share of the untar's time that
    its synchronous steps (create + commit) took."""
    out = {}
    for n in UNTARS:
        sm, st = u[n]["summary"], u[n]["steps"]
        key = n.replace("-", "_")
        out[f"untar_s_{key}"] = round(sm["seconds"], 2)
        out[f"untar_files_per_s_{key}"] = round(sm["files"] / sm["seconds"], 1)
        for op in ("create", "commit"):
            out[f"untar_{op}_p50_us_{key}"] = round(statistics.median(st.lat_ns[st.op == op]) / 1000, 1)
        out[f"untar_sync_share_{key}"] = round(float(st.lat_ns.sum()) / 1e9 / sm["seconds"], 3)
    out["untar_files"] = u["no-log"]["summary"]["files"]
    out["untar_bytes"] = u["no-log"]["summary"]["bytes"]
    out["untar_ratio"] = round(out["untar_s_no_log"] / out["untar_s_with_log"], 2)
    return out


PROBE_IOS = 97  # a prime: the count in the trace is checked against it


def syscalls(topo, image: str, exp: Path, out: Path, bs: int) -> None:
    """Trace a short run of the same job with strace: how fio opens the file (O_DSYNC) and which
    calls it makes per write (strace -c). Writes fio/strace-open.txt and fio/strace-count.txt."""
    args = ["fio", "--name=probe", f"--filename={zfs.EXPORT}/{zfs.POOL}/probe.dat", "--size=4m", f"--bs={bs}",
            "--rw=write", "--ioengine=psync", "--sync=dsync", f"--number_ios={PROBE_IOS}", "--minimal"]
    vols = {str(out): {"bind": "/out", "mode": "rw"}, str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}}
    topo.run(image, "strace-open", ["strace", "-f", "-qq", "-e", "trace=openat,fsync,fdatasync",
                                    "-o", "/out/strace-open.txt", *args], volumes=vols, network_mode="none",
             timeout=300)
    topo.run(image, "strace-count", ["strace", "-f", "-c", "-o", "/out/strace-count.txt", *args],
             volumes=vols, network_mode="none", timeout=300)


def trace_summary(data_dir: Path) -> dict:
    """The lines of the strace probe that matter: the open of the data file and the call counts."""
    fdir = Path(data_dir) / "fio"
    opens = [ln.split(None, 1)[-1] for ln in (fdir / "strace-open.txt").read_text().splitlines()
             if "probe.dat" in ln and "openat" in ln]
    counts = {}
    for ln in (fdir / "strace-count.txt").read_text().splitlines():
        parts = ln.split()
        if len(parts) >= 5 and parts[-1].isidentifier() and parts[3].isdigit():
            counts[parts[-1]] = int(parts[3])
    return {"opens": opens, "calls": counts, "probe_ios": PROBE_IOS}


# ------------------------------------------------------------------------------ analysis

def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    fdir, ddir = data_dir / "fio", data_dir / "device"
    result = fiolog.read_fio_json(fdir / f"{JOB}.json")
    events = json.loads((data_dir / "events.json").read_text())
    hist = bool(sorted(fdir.glob(f"{JOB}_clat_hist.*.log*")))
    logs = sorted(fdir.glob(f"{JOB}_clat_hist.*.log*" if hist else f"{JOB}_clat.*.log*"))
    t0 = fiolog.first_time_ms(logs, hist) // 1000 * 1000   # whole seconds: columns line up
    app = (heatmap.from_hist_log if hist else heatmap.from_lat_log)(logs, t0_ms=t0)
    mount_ms = int((ddir / "mount.epoch_ms").read_text())
    dev_logs = sorted(p for p in ddir.glob("d*.log*") if ".wait." not in p.name)
    device = heatmap.from_lat_log(dev_logs, t0_ms=t0 - mount_ms, ddir=None)
    n = app.n_columns
    if device.n_columns > n:   # fio's span only: what came after (the untar, the strace probe) is counted in a note
        later = int(device.counts[n:].sum() + device.overflow[n:].sum())
        device = replace(device, counts=device.counts[:n], overflow=device.overflow[:n],
                         notes=list(device.notes) + [f"{later:,} I/Os after fio's last second not shown"])
    per_disk = {p.name.split(".")[0]: fiolog.read_lat_log(p) for p in dev_logs}
    start_file = ddir / "iostat.start"
    text = (ddir / "iostat.txt").read_text()
    # a mystery run seals the file whole (it names the log device): then there is no iostat
    iostat = pd.DataFrame() if text.startswith("sealed1:") else \
        zfs.parse_iostat(text, int(start_file.read_text()) if start_file.exists() else None)
    if "t_epoch_ms" in iostat:
        iostat["t_s"] = (iostat["t_epoch_ms"] - t0) / 1000
    return {"app": app, "device": device, "per_disk": per_disk, "iostat": iostat, "t0_ms": t0,
            "t_add_s": (events["change_ms"] - t0) / 1000, "events": events,
            "jobs": fiolog.job_table(result), "capture": "hist" if hist else "perio",
            "fio_version": result.get("fio version"), "mount_ms": mount_ms, "untar": load_untar(data_dir)}


def windows(d: dict) -> dict[str, tuple[float, float]]:
    """The two steady phases in seconds from t0, leaving out the second of the change and the
    first and last seconds of the run (fio's start-up and its partial last second)."""
    end = d["app"].n_columns * d["app"].col_s
    t_add = d["t_add_s"]
    return {"before": (1.0, np.floor(t_add)), "after": (np.ceil(t_add) + 1.0, end - 1.0)}


def phase_stats(hm: heatmap.HeatMap, t_from: float, t_to: float) -> dict:
    n = int(hm.counts[int(t_from / hm.col_s):int(t_to / hm.col_s)].sum())
    dur = t_to - t_from
    return {"ios": n, "iops": n / dur if dur > 0 else float("nan"),
            "p50_us": hm.percentile(50, t_from, t_to) / 1000, "p99_us": hm.percentile(99, t_from, t_to) / 1000}


def picket_fence(hm: heatmap.HeatMap, t_from: float, t_to: float, factor: float = 100.0) -> dict:
    """Periodic stalls in a phase: seconds in which some I/O took `factor` x the phase's median or
    more (100x by default: well above the ordinary scatter). Returns how many such seconds and runs
    of them, their typical spacing and how regular it is (`spacing_cv`, the coefficient of
    variation of the gaps), and the share of I/O affected."""
    p50 = hm.percentile(50, t_from, t_to)
    c0, c1 = int(t_from / hm.col_s), int(t_to / hm.col_s)
    slow_b = hm.edges_ns[:-1] >= factor * p50
    slow = hm.counts[c0:c1][:, slow_b].sum(axis=1) + hm.overflow[c0:c1]
    total = hm.counts[c0:c1].sum()
    cols = np.flatnonzero(slow > 0)
    starts = cols[np.r_[True, np.diff(cols) > 1]] if len(cols) else cols   # runs of stalled seconds
    gaps = np.diff(starts) * hm.col_s
    rows = hm.counts[c0:c1]
    top = [float(hm.edges_ns[np.flatnonzero(r)[-1] + 1]) for r in rows if r.any()]   # slowest I/O's bucket top
    calm = [t for t, st in zip(top, slow[[r.any() for r in rows]]) if st == 0]
    slow_lo = hm.edges_ns[:-1][slow_b]
    stalled = [slow_lo[np.flatnonzero(r[slow_b])[0]] for r, st in zip(rows, slow) if st > 0 and r[slow_b].any()]
    period = float(np.median(gaps)) if len(starts) >= 3 else float("nan")
    cv = float(np.std(gaps) / np.mean(gaps)) if len(starts) >= 3 else float("nan")
    return {"stall_seconds": int(len(cols)), "stall_events": int(len(starts)),
            "period_s": period, "spacing_cv": cv, "fraction": float(slow.sum() / total) if total else float("nan"),
            "threshold_us": factor * p50 / 1000, "times_s": ((starts + c0) * hm.col_s).tolist(),
            # the slowest write of a second without a stall (upper bucket edge), and the fastest of the
            # slow writes in the stalled seconds (lower bucket edge), in us
            "calm_max_us": max(calm) / 1000 if calm else float("nan"),
            "stall_min_us": float(min(stalled)) / 1000 if stalled else float("nan")}


def vdev_ops(d: dict) -> pd.DataFrame:
    """Write operations per second by vdev kind (data disks, log device) for each phase."""
    io = d["iostat"]
    if io.empty:
        return pd.DataFrame()
    rows = []
    for name, (a, b) in windows(d).items():
        sel = io[(io.t_s > a + 1) & (io.t_s <= b - 1)]   # iostat's seconds end at t_s: trim the edges
        for kind in ("disk", "log"):
            k = sel[sel.kind == kind]
            per_s = k.groupby("t_s").write_ops.sum()
            rows.append({"phase": name, "vdev": "data disks" if kind == "disk" else "log device",
                         "write_ops_per_s": float(per_s.mean()) if len(per_s) else 0.0})
    return pd.DataFrame(rows)


def device_stats(d: dict) -> dict:
    """From the emulator's per-I/O logs, per phase: write and flush service times (p50, us), flushes
    per fio write; from zpool iostat: data-disk bytes per write op and the share of quiet seconds
    (data-disk write ops under a tenth of the phase's mean)."""
    df = pd.concat(d["per_disk"].values())
    t = (df.time_ms + d["mount_ms"] - d["t0_ms"]) / 1000
    io = d["iostat"]
    out = {}
    for name, (a, b) in windows(d).items():
        x = df[(t >= a) & (t < b)]
        writes, flushes = x[x.ddir == 1], x[x.ddir == 3]
        fio_ios = phase_stats(d["app"], a, b)["ios"]
        out[f"dev_write_p50_us_{name}"] = round(float(writes.lat_ns.median()) / 1000, 1) if len(writes) else None
        out[f"dev_flush_p50_us_{name}"] = round(float(flushes.lat_ns.median()) / 1000, 1) if len(flushes) else None
        out[f"flushes_per_write_{name}"] = round(len(flushes) / fio_ios, 2) if fio_ios else None
        if io.empty:
            continue
        k = io[(io.t_s > a + 1) & (io.t_s <= b - 1) & (io.kind == "disk")].groupby("t_s")[["write_ops", "write_bw"]].sum()
        ops = k.write_ops.sum()
        out[f"disk_kib_per_write_{name}"] = round(float(k.write_bw.sum() / ops / 1024), 1) if ops else None
        out[f"disk_quiet_share_{name}"] = round(float((k.write_ops < 0.1 * k.write_ops.mean()).mean()), 3) if len(k) else None
    return out


def detected_log(dev: dict, p50_after_us: float) -> str | None:
    """What the evidence says was added half-way, by the same run's own disks: "none" while the data
    disks still get at least half as many cache flushes per fio write as before (the intent log is
    still on them); else "disk" when a synchronous write after the change still takes at least half
    of one data-disk flush before it (the log commits wait on a disk's flush), "ssd" when less."""
    before, after, flush = (dev.get(k) for k in ("flushes_per_write_before", "flushes_per_write_after",
                                                 "dev_flush_p50_us_before"))
    if before is None or after is None or not flush:
        return None
    if after >= 0.5 * before:
        return "none"
    return "disk" if p50_after_us >= 0.5 * flush else "ssd"


def summary(d: dict, preset: str | None = None) -> dict:
    w = windows(d)
    b = phase_stats(d["app"], *w["before"])
    a = phase_stats(d["app"], *w["after"])
    ops = vdev_ops(d)

    def ops_of(phase, vdev):
        r = ops[(ops.phase == phase) & (ops.vdev == vdev)] if len(ops) else ops
        return round(float(r.write_ops_per_s.iloc[0]), 1) if len(r) else None

    pf = picket_fence(d["app"], *w["after"])
    return {
        "iops_before": round(float(b["iops"]), 1), "iops_after": round(float(a["iops"]), 1),
        "iops_ratio": round(float(a["iops"] / b["iops"]), 2),
        "p50_before_us": round(b["p50_us"], 1), "p50_after_us": round(a["p50_us"], 1),
        "p50_ratio": round(b["p50_us"] / a["p50_us"], 2),
        "p99_before_us": round(b["p99_us"], 1), "p99_after_us": round(a["p99_us"], 1),
        "log_write_ops_per_s_after": ops_of("after", "log device"),
        "disk_write_ops_per_s_before": ops_of("before", "data disks"),
        "disk_write_ops_per_s_after": ops_of("after", "data disks"),
        "picket_stall_events": pf["stall_events"], "picket_period_s": pf["period_s"],
        "picket_spacing_cv": None if pf["spacing_cv"] != pf["spacing_cv"] else round(pf["spacing_cv"], 2),
        "picket_fraction": round(pf["fraction"], 5),
        "picket_calm_max_us": None if pf["calm_max_us"] != pf["calm_max_us"] else round(pf["calm_max_us"], 1),
        "picket_stall_min_us": None if pf["stall_min_us"] != pf["stall_min_us"] else round(pf["stall_min_us"], 1),
        "t_add_s": round(d["t_add_s"], 2),
        **(dev := device_stats(d)),
        "detected_log": detected_log(dev, a["p50_us"]),
        **(untar_stats(d["untar"]) if d.get("untar") else {}),
    }
