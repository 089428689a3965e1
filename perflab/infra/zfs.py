"""A ZFS storage server in a container: zfs-fuse as its main process, pools built from files on
the slow-disk emulator, an optional separate intent-log device, per-vdev statistics, kstats.

Used by the Logzilla chapter (chapters/logzilla.md) and the cache chapters. The pool is shared with
fio in another container the way CASE-STUDIES.md describes: a host directory bind-mounted onto
itself and made rshared; the server mounts the pool below it (rshared) and clients see it (rslave).
The host directory and its mount are recorded in the run's ledger before they are made.
"""
from __future__ import annotations

from perflab.errors import Failed

import contextlib
import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from perflab.fio.live import announce
from perflab.infra import containers, hostcmd
from perflab.infra.containers import Topology, wait_until
from perflab.infra.context import LabContext, image_tag
from perflab.infra.hostobjects import give_back
from perflab.infra.labdirs import made_dirs
from perflab.infra.ledger import Ledger
from perflab.infra.slowdisk import DiskModel

log = logging.getLogger(__name__)

POOL = "tank"
EXPORT = "/export"   # inside the containers
DISKS = "/disks"     # slowdisk mount inside the server
BACKING = "/backing"
DEVLOG = "/devlog"
SLOW_LOG_BACKING = "/backing-log"   # a slow log device's file (ZfsServer.add_disk_log) ...
SLOW_LOG_DIR = "/slowlog"           # ... served by its own slowdisk mount
#: the ARC's counters ZfsServer.start_kstat_sampler samples unless told others
ARC_COUNTERS = ("hits", "misses", "l2_hits", "l2_misses", "l2_size", "size", "c", "l2_feeds", "l2_write_bytes")


@dataclass
class LabPaths:
    """Where a ZFS lab keeps things: image tags, fio's and the devices' output directories (made
    here; also zfs/ with `zfs_dir`), and the host directory the pool is shared through."""

    tags: dict
    out: Path
    dev: Path
    export: Path
    zdir: Path | None = None   # the run's zfs/ (zpool and zfs output), when asked for


def lab_paths(ctx: LabContext, zfs_dir: bool = False) -> LabPaths:
    tags = {n: image_tag(ctx, n) for n in ("fio", "zfs")}
    dirs = made_dirs(ctx, "fio", "device", *(["zfs"] if zfs_dir else []))
    return LabPaths(tags, dirs[0], dirs[1], Path("/run/perflab") / ctx.run_id / "export",
                    dirs[2] if zfs_dir else None)


@contextlib.contextmanager
def shared_export(ledger: Ledger, path: Path):
    """A host directory bind-mounted onto itself and made rshared, removed afterwards (with any
    mount that propagated below it)."""
    path = Path(path)
    ledger.record("path", str(path.parent))
    path.mkdir(parents=True, exist_ok=True)
    ledger.record("mount", str(path))
    hostcmd.run(["mount", "--bind", str(path), str(path)], timeout=60)
    hostcmd.run(["mount", "--make-rshared", str(path)], timeout=60)
    try:
        yield path
    finally:
        for kind, ident in (("mount", str(path)), ("path", str(path.parent))):
            give_back(ledger, {"kind": kind, "id": ident})


@contextlib.contextmanager
def lab_containers(ctx: LabContext, lp: LabPaths, zram_bytes: int | None = None):
    """A ZFS lab's host objects and containers, made in the order they must be unmade: the shared
    export, a zram cache device of `zram_bytes` when asked for, then the run's Topology; fio's
    version goes into the run's provenance. Yields (topo, the zram device's path or None)."""
    from perflab.fio import jobs as fio

    with contextlib.ExitStack() as stack:
        stack.enter_context(shared_export(ctx.ledger, lp.export))
        zram = stack.enter_context(zram_device(ctx.ledger, zram_bytes)) if zram_bytes else None
        topo = stack.enter_context(Topology(ctx))
        ctx.provenance(fio_version=fio.version(topo, lp.tags["fio"]))
        yield topo, zram


@contextlib.contextmanager
def zram_device(ledger: Ledger, size_bytes: int):
    """A fresh zram block device of `size_bytes` (RAM-backed: an SSD-like cache tier), removed
    afterwards. The kernel picks its number at hot_add, so it is recorded right after that with the
    size it is about to be given (what proves it the run's when it is removed), before it is used."""
    ctl = Path("/sys/class/zram-control/hot_add")
    if not ctl.exists():
        raise ExecFailed("no zram in this kernel (/sys/class/zram-control missing)")
    idx = int(ctl.read_text().strip())
    dev = f"/dev/zram{idx}"
    ledger.record("zram", dev, disksize=int(size_bytes))
    try:
        Path(f"/sys/block/zram{idx}/disksize").write_text(str(size_bytes))
        yield dev
    finally:
        give_back(ledger, {"kind": "zram", "id": dev, "disksize": int(size_bytes)})


def mirrored_server(ctx: LabContext, topo: Topology, lp: LabPaths, model: DiskModel, mirrors: int, disk_bytes: int,
                    props: dict[str, str]) -> "ZfsServer":
    """The ZFS server of a lab whose pool is `mirrors` two-way mirrors of emulated disks of `model`:
    started, its pool made, and zfs-fuse's version, the disk model and the layout in the run's
    provenance."""
    srv = ZfsServer.start(topo, lp.tags["zfs"], lp.export, lp.dev)
    layout = srv.create_mirrored_pool(mirrors, disk_bytes, model, props)
    ctx.provenance(zfs_fuse=srv.sh("dpkg-query -W -f '${Version}' zfs-fuse").strip(),
                 disk_model=model.to_options(), pool_layout=" ".join(layout))
    return srv


def drop_mounts_below(export: Path) -> list[str]:
    """Lazily unmount every mount strictly below `export` (deepest first): the datasets of a
    server that was killed, which the host still lists but nobody answers for. Returns them."""
    export = str(Path(export))
    below = []
    with open("/proc/self/mounts") as fh:
        for line in fh:
            mp = line.split()[1].replace("\\040", " ")
            if mp.startswith(export + "/"):
                below.append(mp)
    for mp in sorted(below, key=len, reverse=True):
        hostcmd.ok(["umount", "-l", mp], timeout=60)
    return below


class ExecFailed(Failed, RuntimeError):
    pass


@dataclass
class ZfsServer:
    """Handle on the server container; `exec` runs a command in it."""

    topo: Topology
    container: object
    export: Path  # host side of /export
    volume: object = None   # the volume that holds the pool's files (/backing)
    devlog: Path | None = None   # host side of /devlog (the emulated disks' per-I/O logs)
    disks_mount: list | None = None   # the slowdisk command that serves /disks (make_disks)
    restarts: list | None = None      # the times zfs-fuse stopped and was started again (create_pool)

    @classmethod
    def start(cls, topo: Topology, image: str, export: Path, devlog: Path, zfs_fuse_args: str = "",
              devices: tuple = (), name: str = "zfs", volume=None) -> "ZfsServer":
        """The server container `name`, its pool files on a new volume, or on `volume` (another
        server's: a server started again over the pool a killed one left)."""
        vol = volume or topo.volume("backing")
        c = topo.container(
            image, name, network_mode="none",
            devices=["/dev/fuse:/dev/fuse:rwm", *(f"{d}:{d}:rwm" for d in devices)], cap_add=["SYS_ADMIN"],
            volumes={vol.name: {"bind": BACKING, "mode": "rw"},
                     str(devlog): {"bind": DEVLOG, "mode": "rw"},
                     str(export): {"bind": EXPORT, "mode": "rw,rshared"}},
            environment={"ZFS_FUSE_ARGS": zfs_fuse_args})
        srv = cls(topo, c, Path(export), vol, Path(devlog))
        wait_until(lambda: srv.exec(["zpool", "list"], check=False)[0] == 0, 30, "zfs-fuse")
        return srv

    def exec(self, cmd, check: bool = True, detach: bool = False,
             timeout: float = containers.EXEC_TIMEOUT_S) -> tuple[int, str]:
        """Run `cmd` in the server (containers.exec_sh: stopped after `timeout` s); a non-zero exit raises
        ExecFailed when `check`. `detach`: start it and return at once (a daemon such as slowdisk)."""
        if detach:
            self.container.exec_run(cmd, detach=True)
            return 0, ""
        code, text = containers.exec_sh(self.container, cmd, timeout)
        if check and code != 0:
            raise ExecFailed(f"{' '.join(cmd) if isinstance(cmd, list) else cmd}: exit {code}: {text.strip()[-800:]}")
        return code, text

    def sh(self, script: str, check: bool = True) -> str:
        return self.exec(["sh", "-c", script], check=check)[1]

    # -- disks and pools --
    def make_disks(self, n: int, size: int, model: DiskModel) -> list[str]:
        """n backing files (sparse) of `size` bytes, served as emulated disks under /disks."""
        names = [f"d{i}" for i in range(n)]
        self.sh(" && ".join([f"truncate -s {size} {BACKING}/{d}" for d in names] + [f"mkdir -p {DISKS}"]))
        opts = ",".join(model.to_options() + [f"log_dir={DEVLOG}"])
        self.disks_mount = ["slowdisk", BACKING, DISKS, "-f", "-o", opts]
        self._mount_disks()
        if self.devlog is not None:   # a watched run's page draws each disk's log as it is flushed
            announce("device-logs", "pool disks", live=self.topo.live_list, dir=self.devlog)
        return [f"{DISKS}/{d}" for d in names]

    def create_mirrored_pool(self, mirrors: int, size: int, model: DiskModel, props: dict[str, str]) -> list[str]:
        """A pool of `mirrors` two-way mirrors of emulated disks (make_disks, then create_pool);
        returns the layout as `zpool create` was given it."""
        disks = self.make_disks(2 * mirrors, size, model)
        layout = []
        for i in range(mirrors):
            layout += ["mirror", disks[2 * i], disks[2 * i + 1]]
        self.create_pool(layout, props)
        return layout

    def _mount_disks(self) -> None:
        self.exec(self.disks_mount, detach=True)
        wait_until(lambda: " fuse.slowdisk " in self.sh("cat /proc/mounts"), 20, "slowdisk mount")

    def create_pool(self, layout: list[str], props: dict[str, str], name: str = POOL) -> None:
        """`zpool create -f` (also over the disks of an exported pool), mounted at /export/<name>.

        zfs-fuse, the container's main process, has crashed during `zpool create` (a segfault, in a CI
        run on 2026-11-29; the container stopped and zpool was killed, exit 137). A pool being created
        holds no data yet, so then, and only then, the server is started again once over the same
        disk files (restart_after_crash) and the pool created again: the run's provenance says so
        (zfs_fuse_restarts). Any other failure, or a second crash, raises ExecFailed."""
        cmd = create_pool_cmd(layout, props, name)
        code, text = self.exec(cmd, check=False)
        if code == 0:
            return
        if code != 137 or self.restarts or not self.stopped(within_s=10):
            raise ExecFailed(f"{' '.join(cmd)}: exit {code}: {text.strip()[-800:]}")
        self.restart_after_crash(f"zpool create {name}")
        self.exec(cmd)

    def stopped(self, within_s: float) -> bool:
        """Whether the container stops within `within_s` s: Docker still called it running for a moment
        after an exec in it was killed by its main process's end (0.1 s, on 2026-11-29)."""
        deadline = time.monotonic() + within_s
        while True:
            with containers.engine_call(f"inspecting container {self.container.name}"):
                self.container.reload()
            if self.container.status != "running":
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)

    def restart_after_crash(self, during: str) -> None:
        """The stopped server started again: the dead pool mounts the host still lists below the
        export dropped, zfs-fuse answering, /disks served again as make_disks served it. Recorded in
        self.restarts and in the run's provenance, and told on stderr."""
        state = self.container.attrs.get("State") or {}
        event = {"during": during, "exit_code": state.get("ExitCode"), "finished_at": state.get("FinishedAt")}
        log.warning("zfs-fuse stopped (container exit %s) during %s; starting the server again over the same "
                    "disk files (recorded in run.json, provenance.zfs_fuse_restarts)", event["exit_code"], during)
        event["dropped_mounts"] = drop_mounts_below(self.export)
        with containers.engine_call(f"starting container {self.container.name} again"):
            self.container.start()
        wait_until(lambda: self.exec(["zpool", "list"], check=False)[0] == 0, 30, "zfs-fuse (started again)")
        if self.disks_mount:
            self._mount_disks()
        self.restarts = [*(self.restarts or []), event]
        if self.topo.ctx is not None:
            self.topo.ctx.provenance(zfs_fuse_restarts=self.restarts)

    def add_disk_log(self, size_mb: int, model: DiskModel, log_subdir: str | None = None) -> str:
        """A log device on an emulated disk of `model` (a second slowdisk mount). Its per-I/O log goes
        to the subdirectory `log_subdir` of the device logs when given, and nowhere otherwise (so that
        the device logs' top level stays the pool's data disks')."""
        dev = f"{SLOW_LOG_DIR}/slog"
        opts = ",".join(model.to_options() + ([f"log_dir={DEVLOG}/{log_subdir}"] if log_subdir else []))
        mk = f" {DEVLOG}/{log_subdir}" if log_subdir else ""
        self.sh(f"mkdir -p {SLOW_LOG_BACKING} {SLOW_LOG_DIR}{mk} && truncate -s {size_mb}M {SLOW_LOG_BACKING}/slog")
        self.exec(["slowdisk", SLOW_LOG_BACKING, SLOW_LOG_DIR, "-f", "-o", opts], detach=True)
        wait_until(lambda: f" {SLOW_LOG_DIR} fuse.slowdisk " in self.sh("cat /proc/mounts"), 20, "slowdisk mount (log)")
        if log_subdir and self.devlog is not None:
            announce("device-logs", "log device", live=self.topo.live_list, dir=self.devlog / log_subdir)
        self.exec(["zpool", "add", "-f", POOL, "log", dev])
        return dev

    def add_cache(self, dev: str) -> None:
        self.exec(["zpool", "add", "-f", POOL, "cache", dev])

    def remove_device(self, dev: str) -> None:
        """Take a cache device out of the pool; what the ARC holds stays. (Not a log device: zfs-fuse
        crashed at `zpool remove` of one, in a CI run on 2026-11-26 and in 2 of 3 runs on Debian 13.)"""
        self.exec(["zpool", "remove", POOL, dev])

    def export_pool(self, name: str = POOL, within_s: float = 60.0) -> None:
        """`zpool export name`, tried again while ZFS says the pool is busy: a fio container that has
        just ended may still hold its mount for a moment (seen on a slow scratch disk, where Docker
        takes longer to tear a container down). Any other failure, or busy for `within_s`, raises."""
        deadline = time.monotonic() + within_s
        while True:
            code, text = self.exec(["zpool", "export", name], check=False)
            if code == 0:
                return
            if "busy" not in text or time.monotonic() > deadline:
                raise ExecFailed(f"zpool export {name}: exit {code}: {text.strip()[-800:]}")
            time.sleep(0.5)

    def reimport(self, dirs=(DISKS, "/dev")) -> None:
        """Export and import the pool: the ARC and the (non-persistent) L2ARC start cold."""
        self.export_pool(POOL)
        self.exec(["zpool", "import", *sum((["-d", d] for d in dirs), []), POOL])

    def start_kstat_sampler(self, names=ARC_COUNTERS, interval_s: float = 1.0) -> None:
        """Append one line per interval to /devlog/arcstats.csv: epoch ms, then the counters."""
        cols = " ".join(names)
        script = (f"cd /zfs-kstat/zfs/arcstats && echo \"t_ms {cols}\" > {DEVLOG}/arcstats.txt && "
                  f"while :; do echo \"$(date +%s%3N) $(cat {cols} | awk '{{printf \"%s \", $NF}}')\" "
                  f">> {DEVLOG}/arcstats.txt; sleep {interval_s}; done")
        self.exec(["sh", "-c", script], detach=True)

    def start_iostat(self, interval_s: int = 1) -> None:
        """`zpool iostat -v` every second into /devlog/iostat.txt, line-buffered, its start time
        beside it (the first block is the average since import; each later one, one interval)."""
        self.exec(["sh", "-c", f"date +%s%3N > {DEVLOG}/iostat.start && exec stdbuf -oL "
                   f"zpool iostat -v {POOL} {interval_s} > {DEVLOG}/iostat.txt 2>&1"], detach=True)

    def stop(self) -> None:
        """Orderly end: stop iostat, export the pool, unmount slowdisk (it flushes its logs)."""
        self.sh("pkill -x zpool; pkill -f arcstats; true", check=False)
        self.exec(["zpool", "export", "-f", POOL], check=False)
        self.sh(f"for m in {DISKS} {SLOW_LOG_DIR}; do grep -q \" $m \" /proc/mounts && "
                f"{{ fusermount3 -u $m || umount -l $m; }}; done; true", check=False)
        t_end = time.time() + 15
        while time.time() < t_end and "slowdisk" in self.sh("ps -eo comm", check=False):
            time.sleep(0.2)


def create_pool_cmd(layout: list[str], props: dict[str, str], name: str = POOL) -> list[str]:
    opts = sum((["-O", f"{k}={v}"] for k, v in props.items()), [])
    return ["zpool", "create", "-f", "-m", f"{EXPORT}/{name}", *opts, name, *layout]


_UNIT = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _num(tok: str) -> float:
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)", tok)
    return float(m.group(1)) * _UNIT[m.group(2)] if m else float("nan")


def parse_iostat(text: str, start_ms: int | None = None, interval_s: float = 1.0) -> pd.DataFrame:
    """`zpool iostat -v POOL 1` output -> rows (block, t_s, vdev, kind, read_ops, write_ops,
    read_bw, write_bw). Block 0 (the average since import) is dropped; block k covers the k-th
    interval, so its time is k * interval from the start. `kind` is pool, mirror, disk or log."""
    rows = []
    block = -1
    in_logs = False
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("capacity") or s.startswith("pool ") or s.startswith("----"):
            if s.startswith("capacity"):
                block += 1
                in_logs = False
            continue
        parts = s.split()
        if parts[0] == "logs" and len(parts) < 3:
            in_logs = True
            continue
        if len(parts) < 7:
            continue
        name = parts[0]
        indent = len(line) - len(line.lstrip())
        if name == POOL and indent == 0:
            kind = "pool"
        elif name.startswith("mirror") or name.startswith("raidz"):
            kind = "mirror"
        elif in_logs or name.startswith("/fast/") or name.startswith(SLOW_LOG_DIR + "/"):
            # zfs-fuse prints no "logs" heading: a log device is known by where it was put (add_disk_log:
            # SLOW_LOG_DIR; /fast: the tmpfs file logzilla used before 2026-11-26, in older runs' iostat)
            kind = "log"
        else:
            kind = "disk"
        rows.append({"block": block, "vdev": name, "kind": kind, "read_ops": _num(parts[3]),
                     "write_ops": _num(parts[4]), "read_bw": _num(parts[5]), "write_bw": _num(parts[6])})
    df = pd.DataFrame(rows, columns=["block", "vdev", "kind", "read_ops", "write_ops", "read_bw", "write_bw"])
    df = df[df.block >= 1].copy()
    df["t_s"] = df.block * interval_s
    if start_ms is not None:
        df["t_epoch_ms"] = start_ms + (df.block * interval_s * 1000).astype("int64")
    return df.reset_index(drop=True)


def read_arcstats_series(path: Path) -> pd.DataFrame:
    """/devlog/arcstats.txt (written by start_kstat_sampler) as a frame indexed by epoch ms."""
    df = pd.read_csv(path, sep=r"\s+")
    return df.set_index("t_ms")


def read_kstats(srv: ZfsServer, name: str = "arcstats") -> dict[str, int]:
    """/zfs-kstat/zfs/<name>/* (one file per counter) as a dict."""
    out = srv.sh(f"cd /zfs-kstat/zfs/{name} 2>/dev/null && grep -H . * 2>/dev/null", check=False)
    d = {}
    for line in out.splitlines():
        k, _, v = line.partition(":")
        with contextlib.suppress(ValueError):
            d[k] = int(v.split()[-1])
    return d
