"""The regression experiment: the two datasets' properties, the rounds' order, the job files, the
pool's emulated device, and the run (a ZFS server container, fio in a client container)."""
from __future__ import annotations

import json
import time

from perflab.config.values import parse_size
from perflab.fio import jobs as fio
from perflab.infra import zfs
from perflab.infra.containers import Topology
from perflab.infra.context import LabContext
from perflab.infra.slowdisk import DiskModel

SIDES = ("before", "after")
#: Both datasets' properties; the "after" one differs in the one property `change` names.
BASE_PROPS = {"recordsize": "4K", "checksum": "fletcher4", "compression": "off", "primarycache": "metadata",
              "atime": "off"}
#: The changes the lab offers (the `change` parameter's choices): property -> value after.
CHANGES = {"recordsize=128K": ("recordsize", "128K"), "checksum=sha256": ("checksum", "sha256"),
           "none": (None, None)}
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
            ("rounds", 2 * p["rounds"] * (p["phase"] + 2.5)), ("stop", 1.0), ("collect", 1.0)]


def _path(side: str) -> str:
    return f"{zfs.EXPORT}/{zfs.POOL}/{side}/data.dat"


def jobs(ctx: LabContext) -> dict[str, fio.JobFile]:
    """The fill job, an unmeasured warm-up read of each dataset (as long as a round: the first
    reads after the fill are slower while the pool's metadata is read in), and one read job per
    (round, side), named as they run."""
    p = ctx.params
    fill = fio.JobFile.load(ctx.lab.jobs_dir / "fill.fio")
    fill.apply({"global": {"size": p["file_size"]}, **{side: {"filename": _path(side)} for side in SIDES}})
    out = {"fill": fill}
    reads = (ctx.lab.jobs_dir / "random-reads.fio").read_text()
    for side in SIDES:   # the same reads, as a job named "warmup" (set-up for the sanity rules), no log
        jf = fio.JobFile.parse(reads.replace("[reads]", "[warmup]"), f"warmup-{side}")
        jf.apply({"global": {"filename": _path(side), "size": p["file_size"], "runtime": int(p["phase"])}})
        jf.set("global", "write_hist_log", None)
        jf.set("global", "log_hist_msec", None)
        out[f"warmup-{side}"] = jf
    for rnd, side in order(p["rounds"]):
        jf = fio.JobFile.load(ctx.lab.jobs_dir / "random-reads.fio")
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


def run(ctx: LabContext) -> None:
    """The pool with its two datasets, filled and warmed, then the rounds side by side: the raw files
    under the run's fio/, device/ and zfs/ (the session then reads them back)."""
    p = ctx.params
    lp = zfs.lab_paths(ctx, zfs_dir=True)
    tags, out, dev, export, zdir = lp.tags, lp.out, lp.dev, lp.export, lp.zdir
    files = {k: v.write(out / f"{k}.fio") for k, v in jobs(ctx).items()}
    vols = {str(export): {"bind": zfs.EXPORT, "mode": "rw,rslave"}}
    rounds_log = dev / "rounds.jsonl"
    with zfs.shared_export(ctx.ledger, export), Topology(ctx) as topo:
        with ctx.phase("pool"):
            ctx.provenance(fio_version=fio.version(topo, tags["fio"]))
            srv = zfs.ZfsServer.start(topo, tags["zfs"], export, dev)
            disks = srv.make_disks(1, device_bytes(p), device_model(p))
            srv.create_pool(disks, {"atime": "off"})
            for side in SIDES:
                srv.exec(["zfs", "create", *sum((["-o", f"{k}={v}"] for k, v in props(side, p["change"]).items()),
                                                []), f"{zfs.POOL}/{side}"])
            (zdir / "properties.txt").write_text(srv.exec(
                ["zfs", "get", "-H", "-o", "name,property,value", ",".join(PROPS_SHOWN),
                 *(f"{zfs.POOL}/{x}" for x in SIDES)])[1])
            ctx.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                         disk_model=device_model(p).to_options(), datasets={side: props(side, p["change"]) for side in SIDES})
        with ctx.phase("fill"):
            fio.run_in_container(topo, tags["fio"], files["fill"], out, "fill", volumes=vols, timeout=1800)
            for side in SIDES:
                fio.run_in_container(topo, tags["fio"], files[f"warmup-{side}"], out, f"warmup-{side}",
                                     volumes=vols, timeout=300)
        with ctx.phase("rounds"):
            for rnd, side in order(p["rounds"]):
                name = run_name(side, rnd)
                t0 = int(time.time() * 1000)
                fio.run_in_container(topo, tags["fio"], files[name], out, name, volumes=vols,
                                     timeout=p["phase"] + 300)
                with rounds_log.open("a") as fh:
                    fh.write(json.dumps({"name": name, "round": rnd, "side": side, "start_ms": t0,
                                         "end_ms": int(time.time() * 1000)}) + "\n")
        with ctx.phase("stop"):
            srv.stop()
