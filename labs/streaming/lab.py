"""Lab `streaming` (chapter "Streaming limits: bytes, elapsed time and the cost of redundancy",
chapters/streaming.md).

Topology: a ZFS server container (zfs-fuse, a 64 MiB ARC) whose disks are files on the slowdisk
emulator, and a fio client container that sees the pool through an rshared bind of a host
directory. The same 2 x `mirrors` disks are laid out twice, one after the other: first as
`mirrors` two-way mirrors, then as one RAID-Z2 across all of them. For each layout fio writes
`threads` files of `file_size` sequentially (128 KiB, one fsync at the end); the pool is exported
and imported (every byte on disk, a cold ARC), and, with `read`, fio reads the files back.

Front end: fio's byte counts and the lab's wall clock around each fio run. Back end: every I/O
each emulated disk served (slowdisk's per-I/O device logs), so the bytes per disk are exact.

Real: ZFS (mirrors, RAID-Z2 parity, metadata, txgs), fio, containers. Emulated: the disks
(slowdisk; by default "streaming" disks whose limit is their media rate, scaled down so that six
of them are slower than zfs-fuse on two cores).

Produces, under the run directory:
  fio/<layout>-write.json, fio/<layout>-read.json, fio/*_bw.*.log   fio's results, 1 s bandwidth
  fio/*_clat_hist.*.log                                           1 s latency histograms (perflab compare)
  device/d<i>.log, device/mount.epoch_ms                          per-I/O log of each disk
  events.json                                                     wall-clock times of each step
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import jobs as fio, logs as fiolog
from perflab.infra import slowdisk, zfs
from perflab.infra.containers import ContainerFailed, Topology
from perflab.infra.slowdisk import DiskModel

LAYOUTS = ("mirror", "raidz2")
#: 2009 figures: "1 Gbyte/sec NFS, streaming from disk" (Brendan Gregg, 9 January 2009), a 7410
#: writing 1 TB over NFS: mirrored 563 MB/s payload, 1.38 GB/s to disk; RAID-Z2 514 MB/s payload,
#: 720 MB/s to disk; streaming read 1 TB in 16:23 = 1.04 GB/s (1.07 GB/s average on the disks).
FIGURES_2009 = {"mirror_front_mbps": 563, "mirror_disk_mbps": 1380, "raidz2_front_mbps": 514,
                "raidz2_disk_mbps": 720, "read_front_mbps": 1066, "read_disk_mbps": 1070}
FIGURES_2009["mirror_amp"] = FIGURES_2009["mirror_disk_mbps"] / FIGURES_2009["mirror_front_mbps"]
FIGURES_2009["raidz2_amp"] = FIGURES_2009["raidz2_disk_mbps"] / FIGURES_2009["raidz2_front_mbps"]
DISK_BYTES = 2 << 30        # each emulated disk's backing file (sparse)
RECORD = 128 * 1024
ARC_MB = 64
#: the slack the checks allow above the ideal back-end/front-end ratio for ZFS metadata (indirect
#: blocks, space maps, uberblocks: a few percent at 128 KiB records) and below it (rounding).
META_HIGH, META_LOW = 0.20, 0.03
#: fixed costs the lab's clock counts and fio's does not (docker exec, fio's start-up and file
#: layout): about a third of a second in the reference; the check on bytes / elapsed allows 1 s.
STARTUP_ALLOWANCE_S = 1.0


def raidz2_lead_floor(n_disks: int) -> float | None:
    """The least RAID-Z2 / mirror payload ratio to call a lead when the disks are the limit: half
    of the ideal lead 2 (n-2) / n - 1 (metadata, which RAID-Z2 pays three times per small block,
    and unequal busy fractions take part of it). None for 4 disks, where the ideal is no lead."""
    ideal = 2.0 / expected_amplification("raidz2", n_disks)
    return None if ideal <= 1.0 else 1.0 + (ideal - 1.0) / 2


def disk_model(p: dict) -> DiskModel:
    """`streaming`: a disk whose cost is its media rate (no rotational delay, short seeks);
    `7200rpm`: slowdisk's 7200 RPM defaults at the same media rate."""
    if p["disk"] == "streaming":
        return DiskModel(rpm=0, seek_min_ms=0.1, seek_max_ms=2.0, transfer_mbps=float(p["disk_mbps"]),
                         seed=3).validate()
    return DiskModel(transfer_mbps=float(p["disk_mbps"]), seed=3).validate()


def layout_vdevs(layout: str, disks: list[str]) -> list[str]:
    """zpool create's vdev arguments: two-way mirrors of consecutive disks, or one RAID-Z2."""
    if layout == "mirror":
        if len(disks) % 2:
            raise ValueError(f"mirrors need an even number of disks, got {len(disks)}")
        return sum((["mirror", disks[i], disks[i + 1]] for i in range(0, len(disks), 2)), [])
    if layout == "raidz2":
        if len(disks) < 4:
            raise ValueError(f"RAID-Z2 needs at least 4 disks, got {len(disks)}")
        return ["raidz2", *disks]
    raise ValueError(f"unknown layout {layout!r} (mirror, raidz2)")


def expected_amplification(layout: str, n_disks: int) -> float:
    """Bytes written to the disks per byte of payload, before metadata: 2 for two-way mirrors,
    n/(n-2) for RAID-Z2 over n disks (each full stripe of n-2 data columns gains 2 parity)."""
    if layout == "mirror":
        return 2.0
    if layout == "raidz2":
        return n_disks / (n_disks - 2)
    raise ValueError(layout)


def predicted_front_mbps(back_mbps: float, layout: str, n_disks: int) -> float:
    """The payload rate the disks allow when they are the bottleneck: what they move, divided by
    the layout's amplification."""
    return back_mbps / expected_amplification(layout, n_disks)


def plan(p: dict) -> list[tuple[str, float]]:
    n = 2 * p["mirrors"]
    total = p["threads"] * p["file_size"]
    back_rate = 0.6 * n * p["disk_mbps"] * 1e6        # what the disks deliver under ZFS (about 60%)
    steps = [("pool", 12.0)]
    for lay in LAYOUTS:
        steps.append((f"{lay}-write", 3 + total * expected_amplification(lay, n) / back_rate))
        if p["read"]:
            steps.append((f"{lay}-read", 4 + total / back_rate))
    return steps + [("collect", 5.0)]


def job_files(s) -> dict[str, fio.JobFile]:
    p = s.params
    out = {}
    for kind in ("write", "read"):
        jf = fio.JobFile.load(s.lab.jobs_dir / f"stream-{kind}.fio")
        jf.apply({"global": {"directory": f"{zfs.EXPORT}/{zfs.POOL}", "size": p["file_size"],
                             "numjobs": p["threads"]}})
        out[kind] = jf
    return out


def run(s) -> None:
    p = s.params
    lp = zfs.lab_paths(s)
    tags, out, dev, export = lp.tags, lp.out, lp.dev, lp.export
    jobs = job_files(s)
    events: dict[str, dict] = {}
    n = 2 * p["mirrors"]
    try:
        with zfs.shared_export(s.ledger, export) as exp, Topology(s.run_id, s.lab.name) as topo:
            with s.phase("pool"):
                s.provenance(fio_version=fio.version(topo, tags["fio"]))
                srv = zfs.ZfsServer.start(topo, tags["zfs"], exp, dev, zfs_fuse_args=f"-m {ARC_MB}")
                model = disk_model(p)
                disks = srv.make_disks(n, DISK_BYTES, model)
                s.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                             disk_model=model.to_options())
                client = topo.container(tags["fio"], "fio", ["sleep", "infinity"],
                                        volumes={str(out): {"bind": "/out", "mode": "rw"},
                                                 str(exp): {"bind": zfs.EXPORT, "mode": "rw,rslave"}},
                                        working_dir="/out", network_mode="none")
            for lay in LAYOUTS:
                ev = events.setdefault(lay, {})
                with s.phase(f"{lay}-write"):
                    srv.create_pool(layout_vdevs(lay, disks), {"recordsize": str(RECORD), "atime": "off",
                                                               "compression": "off"})
                    jobs["write"].apply({"stream-write": {"write_bw_log": f"{lay}-write", "write_hist_log": f"{lay}-write"}})
                    job = jobs["write"].write(out / f"{lay}-write.fio")
                    ev["write"] = _fio(client, job.name, f"{lay}-write")
                    srv.exec(["zpool", "export", zfs.POOL])       # the last txg reaches the disks
                    ev["write_synced_ms"] = int(time.time() * 1000)
                    srv.exec(["zpool", "import", "-d", zfs.DISKS, zfs.POOL])   # and the ARC is cold
                    ev["imported_ms"] = int(time.time() * 1000)
                    ev["layout"] = " ".join(layout_vdevs(lay, [d.rsplit("/", 1)[-1] for d in disks]))
                if p["read"]:
                    with s.phase(f"{lay}-read"):
                        jobs["read"].apply({"stream-read": {"write_bw_log": f"{lay}-read", "write_hist_log": f"{lay}-read"}})
                        job = jobs["read"].write(out / f"{lay}-read.fio")
                        ev["read"] = _fio(client, job.name, f"{lay}-read")
                srv.exec(["zpool", "export", zfs.POOL])
                ev["exported_ms"] = int(time.time() * 1000)
            with s.phase("collect"):
                srv.stop()
    finally:
        (s.path("events.json")).write_text(json.dumps(events, indent=2))
    d = load(s.data_dir)
    s.metric(**summary(d))


def _fio(client, job: str, name: str) -> dict:
    """Run fio in the (already running) client container; the lab's own clock around it."""
    t0 = time.time()
    code, output = client.exec_run(["fio", "--output-format=json", f"--output={name}.json", job],
                                   workdir="/out")
    t1 = time.time()
    if code != 0:
        raise ContainerFailed(f"fio {job}: exit {code}\n{output.decode(errors='replace')[-2000:]}")
    return {"start_ms": int(t0 * 1000), "end_ms": int(t1 * 1000)}


# ------------------------------------------------------------------------------ analysis

def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    fdir, ddir = data_dir / "fio", data_dir / "device"
    events = json.loads((data_dir / "events.json").read_text())
    mount_ms = int((ddir / "mount.epoch_ms").read_text())
    dev = _read_disk_logs(ddir)
    dev["t_epoch_ms"] = dev.time_ms + mount_ms
    fio_res, bw = {}, {}
    for lay in LAYOUTS:
        for kind in ("write", "read"):
            f = fdir / f"{lay}-{kind}.json"
            if f.exists():
                fio_res[(lay, kind)] = fiolog.read_fio_json(f)
                bw[(lay, kind)] = _bw_series(sorted(fdir.glob(f"{lay}-{kind}_bw.*.log*")))
    return {"events": events, "device": dev, "fio": fio_res, "bw": bw,
            "n_disks": int(dev.disk.nunique()), "mount_ms": mount_ms}


def _read_disk_logs(ddir: Path) -> pd.DataFrame:
    """Every disk's per-I/O log (slowdisk.read_device_log), plain or gzipped as in a reference."""
    frames = []
    for pth in sorted(ddir.glob("d*.log*")):
        if ".wait." in pth.name:
            continue
        df = slowdisk.read_device_log(pth)
        df.insert(0, "disk", pth.name.split(".")[0])
        frames.append(df)
    return pd.concat(frames, ignore_index=True).sort_values("time_ms", kind="stable", ignore_index=True)


def _bw_series(paths) -> pd.Series:
    """fio's 1 s bandwidth logs (one per thread, epoch-stamped) summed per second: bytes/s."""
    if not paths:
        return pd.Series(dtype=float)
    parts = []
    for pth in paths:
        df = fiolog.read_lat_log(pth)   # same columns: time_ms, value (KiB/s), ddir, bs, offset
        parts.append(pd.Series(df.lat_ns.to_numpy() * 1024.0, index=(df.time_ms // 1000).to_numpy()))
    s = pd.concat(parts).groupby(level=0).sum()
    return s.sort_index()


def backend(dev: pd.DataFrame, t0_ms: int, t1_ms: int, ddir: int) -> pd.DataFrame:
    """Per disk, in the window [t0, t1) (epoch ms): I/Os and bytes of one direction (0 read, 1
    write), and how busy the disk was (sum of service times / window)."""
    sel = dev[(dev.t_epoch_ms >= t0_ms) & (dev.t_epoch_ms < t1_ms) & (dev.ddir == ddir)]
    g = sel.groupby("disk")
    span_s = max((t1_ms - t0_ms) / 1000, 1e-9)
    out = pd.DataFrame({"ios": g.size(), "bytes": g.bs.sum(), "busy": g.lat_ns.sum() / 1e9 / span_s})
    disks = sorted(dev.disk.unique())
    return out.reindex(disks, fill_value=0)


def front(result: dict, ddir: str) -> dict:
    """fio's own figures for one direction, all threads: bytes moved, and the bandwidth fio
    reports (its bytes over the longest thread's runtime)."""
    jobs = result["jobs"]
    io_bytes = sum(j[ddir]["io_bytes"] for j in jobs)
    runtime_ms = max(j[ddir]["runtime"] for j in jobs)
    return {"bytes": io_bytes, "fio_bw": sum(j[ddir]["bw_bytes"] for j in jobs),
            "fio_runtime_s": runtime_ms / 1000, "fio_bw_total": io_bytes / (runtime_ms / 1000)}


def layout_stats(d: dict, lay: str) -> dict:
    ev = d["events"][lay]
    n = d["n_disks"]
    w = ev["write"]
    fw = front(d["fio"][(lay, "write")], "write")
    elapsed = (w["end_ms"] - w["start_ms"]) / 1000
    during = backend(d["device"], w["start_ms"], w["end_ms"], 1)
    synced = backend(d["device"], w["start_ms"], ev["write_synced_ms"], 1)
    back_mbps = during.bytes.sum() / elapsed / 1e6
    st = {
        "write_bytes": fw["bytes"], "write_elapsed_s": elapsed,
        "write_mbps": fw["bytes"] / elapsed / 1e6,             # bytes / elapsed: the sanity check
        "write_fio_mbps": fw["fio_bw_total"] / 1e6,            # what fio reports
        "write_back_bytes": int(synced.bytes.sum()),
        "write_amp": synced.bytes.sum() / fw["bytes"],
        "write_amp_expected": expected_amplification(lay, n),
        "write_back_mbps": back_mbps,
        "write_back_mbps_per_disk": back_mbps / n,
        "write_busy": float(during.busy.mean()),
        "write_predicted_mbps": predicted_front_mbps(back_mbps, lay, n),
        "write_disk_kib": float(during.bytes.sum() / max(during.ios.sum(), 1) / 1024),
        "per_disk_write_bytes": during.bytes.to_dict(),
    }
    if (lay, "read") in d["fio"]:
        r = ev["read"]
        fr = front(d["fio"][(lay, "read")], "read")
        el = (r["end_ms"] - r["start_ms"]) / 1000
        rb = backend(d["device"], r["start_ms"], r["end_ms"], 0)
        st.update({"read_bytes": fr["bytes"], "read_elapsed_s": el, "read_mbps": fr["bytes"] / el / 1e6,
                   "read_fio_mbps": fr["fio_bw_total"] / 1e6, "read_back_bytes": int(rb.bytes.sum()),
                   "read_amp": rb.bytes.sum() / fr["bytes"], "read_back_mbps": rb.bytes.sum() / el / 1e6,
                   "read_busy": float(rb.busy.mean())})
    return st


def summary(d: dict) -> dict:
    out = {"n_disks": d["n_disks"]}
    st = {lay: layout_stats(d, lay) for lay in LAYOUTS}
    for lay, x in st.items():
        for k, v in x.items():
            if isinstance(v, dict):
                continue
            out[f"{lay}_{k}"] = round(float(v), 4) if isinstance(v, (float, np.floating)) else v
    out["raidz2_over_mirror_write"] = round(st["raidz2"]["write_mbps"] / st["mirror"]["write_mbps"], 3)
    out["raidz2_over_mirror_expected"] = round(2.0 / expected_amplification("raidz2", d["n_disks"]), 3)
    out["back_rate_ratio"] = round(st["raidz2"]["write_back_mbps"] / st["mirror"]["write_back_mbps"], 3)
    for lay, x in st.items():
        out[f"{lay}_meta_share"] = round(x["write_amp"] / x["write_amp_expected"] - 1, 4)
    writes = d["device"][d["device"].ddir == 1]
    out["disk_write_min_kib"] = round(float(writes.bs.min()) / 1024, 1) if len(writes) else None
    out["disk_busy_ratio"] = round(st["raidz2"]["write_busy"] / st["mirror"]["write_busy"], 3)
    if "read_mbps" in st["mirror"]:
        m = st["mirror"]
        out["mirror_read_over_write"] = round(m["read_mbps"] / m["write_mbps"], 3)
        # Payload rate = disks' rate / amplification, and a disk's rate follows how busy it is: the
        # read/write ratio the busy fractions and the measured amplifications predict.
        out["mirror_read_over_write_model"] = round(m["read_busy"] / m["write_busy"] * m["write_amp"] / m["read_amp"], 3)
    return out


def table(d: dict) -> pd.DataFrame:
    """One row per layout: the front end, the back end, their ratio, and the prediction."""
    rows = []
    for lay in LAYOUTS:
        x = layout_stats(d, lay)
        rows.append({"layout": d["events"][lay].get("layout", lay),
                     "payload (MB)": x["write_bytes"] / 1e6, "elapsed (s)": x["write_elapsed_s"],
                     "bytes/elapsed (MB/s)": x["write_mbps"], "fio reports (MB/s)": x["write_fio_mbps"],
                     "to disks (MB)": x["write_back_bytes"] / 1e6,
                     "disk/payload": x["write_amp"], "ideal": x["write_amp_expected"],
                     "disks' rate (MB/s)": x["write_back_mbps"], "disk busy": x["write_busy"],
                     "predicted payload (MB/s)": x["write_predicted_mbps"]})
    return pd.DataFrame(rows).set_index("layout")


def timeline(d: dict) -> pd.DataFrame:
    """Per second of each write and read: fio's payload rate and the disks' rate (from the device
    logs), in MB/s, with t in seconds from the start of that step."""
    rows = []
    dev = d["device"]
    for lay in LAYOUTS:
        for kind, ddir in (("write", 1), ("read", 0)):
            w = d["events"][lay].get(kind)
            if not w or (lay, kind) not in d["bw"]:
                continue
            sel = dev[(dev.t_epoch_ms >= w["start_ms"]) & (dev.t_epoch_ms < w["end_ms"]) & (dev.ddir == ddir)]
            back = sel.groupby((sel.t_epoch_ms - w["start_ms"]) // 1000).bs.sum()
            fb = d["bw"][(lay, kind)].copy()
            fb.index = fb.index - w["start_ms"] // 1000
            for t in range(int((w["end_ms"] - w["start_ms"]) // 1000)):
                rows.append({"layout": lay, "step": kind, "t_s": t, "payload_mbps": float(fb.get(t, 0)) / 1e6,
                             "disks_mbps": float(back.get(t, 0)) / 1e6})
    return pd.DataFrame(rows)
