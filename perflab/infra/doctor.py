"""`perflab doctor`: what this machine can run, and for each lab whether it can run and why not.

Each probe is small, has no side effects beyond a moment's test object that it removes, and says
what it found in a word and a reason.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from perflab.infra import images
from perflab.infra import labels
from perflab.infra.inside import kernel_pids
from perflab.config.manifest import Manifest


@dataclass
class Probe:
    name: str
    ok: bool
    detail: str


def _cmd(args: list[str], timeout: float = 10) -> tuple[int, str]:
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        return r.returncode, (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, str(e)


def zram_usable() -> tuple[bool, str]:
    """Can a lab make, size and remove a zram device here? A device is made by reading hot_add but
    sized (and removed) by writing /sys: a container whose /sys is read-only (Docker's, without
    --privileged) would make one and leave it unsized."""
    if not Path("/sys/class/zram-control/hot_add").exists():
        return False, "no zram in this kernel"
    if not os.access("/sys/class/zram-control/hot_remove", os.W_OK):
        return False, ("zram is in this kernel but /sys is read-only here (a container without --privileged: "
                       "scripts/lab-host gives the zram part of the host's /sys)")
    return True, "zram available (/sys/class/zram-control)"


def _fuse() -> tuple[bool, str]:
    ok = Path("/dev/fuse").exists()
    return ok, "/dev/fuse present" if ok else "/dev/fuse missing"


def _loop() -> tuple[bool, str]:
    ok = Path("/dev/loop-control").exists()
    return ok, "/dev/loop-control present" if ok else "no loop devices"


def _tbf() -> tuple[bool, str]:
    # tried on the loopback of a network namespace of its own (gone when tc exits): the machine's
    # interfaces, and a lab that may be shaping them, are never touched
    ok = _cmd(["unshare", "--net", "tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "tbf",
               "rate", "1gbit", "burst", "64kb", "latency", "50ms"])[0] == 0
    return ok, "tc tbf works" if ok else "tc tbf not available (or not root)"


def _root() -> tuple[bool, str]:
    ok = os.geteuid() == 0
    return ok, "running as root" if ok else "not root: labs that make devices need root"


def _host_pids() -> tuple[bool, str]:
    ok = kernel_pids()
    return ok, ("process ids as the kernel numbers them (what a tracer's pid is)" if ok else
                "perflab runs in a PID namespace of its own (a container without --pid=host): a tracer that "
                "filters on a lab's process id would see none of it (scripts/lab-host gives the host's)")


#: The requirements a lab can name in book.toml that are probed on the spot (docker is asked apart):
#: `perflab run` refuses a lab whose requirement fails here before it creates anything.
REQUIREMENTS = {"fuse": _fuse, "loop": _loop, "zram": zram_usable, "tc-tbf": _tbf, "root": _root,
                "host-pids": _host_pids}


def probes() -> dict[str, Probe]:
    out: dict[str, Probe] = {}

    def add(name, ok, detail):
        out[name] = Probe(name, bool(ok), detail)

    client = labels.docker_client()
    if client is None:
        add("docker", False, labels.no_engine_reason())
    else:
        v = client.version()
        add("docker", True, f"engine {v.get('Version')}, {client.info().get('Driver')} storage")
    rc, txt = _cmd(["fio", "--version"])
    add("fio", rc == 0, txt if rc == 0 else "fio not installed on the host (labs run it in containers)")
    add("fuse", *_fuse())
    zf = shutil.which("zfs-fuse")
    add("zfs-fuse", zf is not None, zf or "zfs-fuse not installed on the host (the ZFS image installs it)")
    add("loop", *_loop())
    add("zram", *zram_usable())
    add("tc-tbf", *_tbf())
    add("netem", _cmd(["modprobe", "-n", "sch_netem"])[0] == 0, "sch_netem module" if
        _cmd(["modprobe", "-n", "sch_netem"])[0] == 0 else "no netem in this kernel (labs shape with tbf/htb)")
    tr = Path("/sys/kernel/tracing/events").exists() or Path("/sys/kernel/debug/tracing/events").exists()
    add("tracefs", tr, "tracefs mounted" if tr else "tracefs not mounted (mount -t tracefs nodev /sys/kernel/tracing)")
    add("host-pids", *_host_pids())
    rc, txt = _cmd(["perf", "stat", "-e", "instructions", "true"])
    hw = rc == 0 and "not supported" not in txt and "<not counted>" not in txt
    add("hw-counters", hw, "perf stat counts instructions" if hw else
        ("perf not installed" if rc == 127 else "hardware counters not supported on this machine"))
    io = shutil.which("iostat")
    add("iostat", io is not None, f"{io}: the stepping and jbod chapters show its view beside fio's" if io else
        "iostat not installed (Debian: sysstat; make setup installs it): those chapters say 'not shown here'")
    from perflab.fio.scan import HAVE_SCANNER

    add("log-scanner", HAVE_SCANNER, "perflab's compiled scanner reads fio's logs" if HAVE_SCANNER else
        "perflab was installed without its compiled log scanner (no C compiler or Python headers then): "
        "heat maps of per-I/O logs are read with pyarrow, slower (benchmarks/RESULTS.md measures both)")
    add("root", *_root())
    return out


def lab_status(m: Manifest, found: dict[str, Probe]) -> dict[str, tuple[bool, str]]:
    out = {}
    for name, lab in m.labs.items():
        why = [f"{r}: {found[r].detail}" for r in lab.requires if r in found and not found[r].ok]
        unknown = [r for r in lab.requires if r not in found]
        why += [f"{r}: no probe for this requirement" for r in unknown]
        if not why and "docker" in lab.requires:
            miss = images.missing(m, lab.images)
            if miss:
                why.append(f"images not built yet: {', '.join(miss)} (make images; built on first run)")
                out[name] = (True, "; ".join(why))
                continue
        out[name] = (not why, "; ".join(why) if why else "ready")
    return out
