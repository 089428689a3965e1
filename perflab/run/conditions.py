"""`perflab conditions`: the labs on machines unlike the project's, made here on purpose.

A learner's machine is busier, has another disk, fewer CPUs, another Debian. Each condition below
makes one of those on this machine, around real `perflab run LAB --preset smoke` runs:

    busy-cpu    one CPU about half busy with other work (a process of the harness's, pinned to the last
                CPU, where labs pin fio; busy half of every 20 ms); its measured share is kept
    slow-disk   the lab's Docker volumes (`--scratch`) on ext4 on a loop device over an emulated 7200 RPM
                disk (slowdisk); whether the lab put a volume there is read from its ledger
    less-cpu    every container of the lab held to half a CPU (`--cpus 0.5`)
    trixie      the lab images built on Debian 13 (`--suite trixie`)

Each cell of the matrix (lab x condition) is the run's verdict: pass (every check passed), not shown
here (no check failed; the reasons are the run's own), FAIL (the checks that failed), or error (the run
did not complete: its error). data/conditions/matrix.json keeps each cell with the commit, the date
and the run it was measured by; the book's status page shows it. The harness's host objects (the
load process, the mounts, the loop device) are written to its own ledger under data/runs/, so
`perflab clean` gives them back if it is killed.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from perflab.analysis import checks
from perflab.config.manifest import Manifest
from perflab.errors import Refused
from perflab.infra import cleanup, hostobjects, slowdisk
from perflab.infra.ledger import Ledger
from perflab.run import provenance
from perflab.run.record import write_json_atomic

MATRIX = Path("data") / "conditions" / "matrix.json"
#: a half-busy CPU: busy, then idle, for these many seconds each, pinned to one CPU: the last one, where
#: labs that pin fio put it (the first is where the system's own work tends to land), the worst case
BUSY_S, IDLE_S = 0.010, 0.010
LOAD = ("import os, sys, time\n"
        "os.sched_setaffinity(0, {int(sys.argv[1])})\n"
        "busy, idle = float(sys.argv[2]), float(sys.argv[3])\n"
        "while True:\n"
        "    t = time.perf_counter() + busy\n"
        "    while time.perf_counter() < t: pass\n"
        "    time.sleep(idle)\n")
SLOW_DISK_BYTES = 2 << 30
LESS_CPU = 0.5


@dataclass
class Setting:
    """What a condition gives each run: `perflab run` arguments, and what was measured of it."""
    args: list[str]
    measured: dict
    ledger_dir: Path | None = None   # for slow-disk: where the scratch disk is, to see if a run used it


@contextlib.contextmanager
def busy_cpu(ledger: Ledger, work: Path) -> Iterator[Setting]:
    cpu = max(os.sched_getaffinity(0))
    argv = [sys.executable, "-c", LOAD, str(cpu), str(BUSY_S), str(IDLE_S)]
    with hostobjects.process(ledger, argv, "half-busy CPU load", stop_timeout=0) as proc:
        t0 = time.monotonic()
        setting = Setting([], {"cpu": cpu})
        yield setting
        setting.measured["busy_share"] = round(slowdisk.process_cpu_seconds(proc.pid) / (time.monotonic() - t0), 2)


@contextlib.contextmanager
def slow_disk(ledger: Ledger, work: Path) -> Iterator[Setting]:
    model = slowdisk.DiskModel()
    backing = work / "slowdisk-backing"
    backing.mkdir()
    with open(backing / "disk.img", "wb") as f:
        f.truncate(SLOW_DISK_BYTES)
    with slowdisk.recorded(ledger, backing, work / "slowdisk", model) as sd:
        with hostobjects.loop_device(ledger, str(sd.disk("disk.img"))) as dev:
            mkfs = ["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"]
            with hostobjects.filesystem(ledger, dev, work / "scratch", mkfs) as mnt:
                rnd = slowdisk.expected_service_ms(model, "randread", bs=4096, file_size=SLOW_DISK_BYTES)
                yield Setting(["--scratch", str(mnt)], {"model": "7200 RPM (slowdisk defaults)",
                                                         "random_4k_read_ms": round(rnd, 2)}, mnt)


@contextlib.contextmanager
def less_cpu(ledger: Ledger, work: Path) -> Iterator[Setting]:
    yield Setting(["--cpus", f"{LESS_CPU:g}"], {"cpus_per_container": LESS_CPU})


@contextlib.contextmanager
def trixie(ledger: Ledger, work: Path) -> Iterator[Setting]:
    yield Setting(["--suite", "trixie"], {})


@dataclass(frozen=True)
class Condition:
    name: str
    says: str
    make: Callable


CONDITIONS = {c.name: c for c in (
    Condition("busy-cpu", "one CPU about half busy with other work", busy_cpu),
    Condition("slow-disk", "the lab's volumes on an emulated 7200 RPM disk", slow_disk),
    Condition("less-cpu", f"each container held to {LESS_CPU:g} CPU", less_cpu),
    Condition("trixie", "the lab images on Debian 13", trixie),
)}


def judge(run_dir: Path | None, rc: int, stderr: str, scratch: Path | None) -> dict:
    """A cell: the run's verdict from its run.json (status and checks)."""
    try:
        doc = json.loads((Path(run_dir) / "run.json").read_text()) if run_dir else None
    except (OSError, ValueError):
        doc = None
    if doc is None or doc.get("status") != "complete":
        why = (doc or {}).get("error") or (stderr.strip().splitlines() or [f"exit {rc}"])[-1]
        return {"status": "error", "error": why[:400], "exit": rc, "run": Path(run_dir).name if run_dir else None}
    outs = doc.get("checks", [])
    failed = [c["name"] for c in outs if checks.failed(c)]
    shown = {c["name"]: c["not_shown"] for c in outs if checks.status(c) == checks.NOT_SHOWN}
    prov = doc.get("provenance") or {}
    cell = {"status": "FAIL" if failed else "not shown here" if shown else "pass", "exit": rc, "run": doc["run_id"],
            "commit": prov.get("git_sha"), "dirty": prov.get("git_dirty"),   # the run's own word
            "checks": f"{sum(c['passed'] is True for c in outs)}/{len(outs)} passed", "failed": failed,
            "not_shown": shown, "duration_s": (doc.get("provenance") or {}).get("duration_s")}
    if scratch is not None:   # did the lab put anything on the slow disk? Its ledger says
        led = Path(run_dir) / "resources.jsonl"
        used = led.is_file() and str(scratch) in led.read_text()
        cell["used_condition"] = used
    return cell


def _run_lab(argv: list[str], cwd: Path, timeout: float) -> tuple[int, str, str]:
    """`perflab run ...` to its end. Interrupted (or past `timeout`), it gets SIGINT, as from a
    terminal, and up to STOP_WAIT_S to clean up after itself (it marks its run.json incomplete and
    gives back what it made) before the harness goes on unwinding; only then is it killed."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except BaseException as e:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        if isinstance(e, subprocess.TimeoutExpired):
            return proc.returncode, out, (err or "") + f"\nstopped after {timeout:g} s"
        raise


STOP_WAIT_S = 120


def _stop_on_term(signum, frame):
    raise KeyboardInterrupt


def run(m: Manifest, labs: list[str], names: list[str], preset: str = "smoke", timeout: float = 1800,
        out: Callable[[str], None] = print) -> dict:
    """Run every lab under every named condition; returns the matrix as written."""
    unknown = [n for n in names if n not in CONDITIONS]
    if unknown:
        raise Refused(f"unknown condition {', '.join(unknown)} (allowed: {', '.join(CONDITIONS)})")
    for lab in labs:
        m.lab(lab)   # an unknown lab is refused with the nearest name
    if "slow-disk" in names and os.geteuid() != 0:
        raise Refused("the slow-disk condition makes a loop device and a file system: run it as root")
    path = m.root / MATRIX
    matrix = json.loads(path.read_text()) if path.is_file() else {"conditions": {}, "cells": {}}
    matrix["conditions"] = {c.name: c.says for c in CONDITIONS.values()}
    path.parent.mkdir(parents=True, exist_ok=True)
    state = provenance.git_state(m.root)
    work = cleanup.runs_root(m.root) / f"conditions-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    work.mkdir(parents=True)
    cleanup.write_owner(work)
    ledger = Ledger(work)
    old = signal.signal(signal.SIGTERM, _stop_on_term)
    try:
        with hostobjects.scratch_dir(ledger, work / "host"):
            for name in names:
                with CONDITIONS[name].make(ledger, work / "host") as setting:
                    for lab in labs:
                        out(f"perflab conditions: {lab} under {name} ...")
                        t0 = time.time()
                        rc, stdout, stderr = _run_lab([str(m.root / "scripts" / "perflab"), "run", lab, "--preset",
                                                       preset, *setting.args], m.root, timeout)
                        lines = stdout.strip().splitlines()
                        run_dir = Path(lines[-1]) if lines and Path(lines[-1]).is_dir() else None
                        cell = judge(run_dir, rc, stderr, setting.ledger_dir)
                        cell.setdefault("commit", state.get("git_sha"))   # a run that left no run.json
                        cell.setdefault("dirty", state.get("git_dirty"))
                        cell.update(measured_at=provenance.now_iso(), wall_s=round(time.time() - t0, 1))
                        cell["condition"] = dict(setting.measured)
                        matrix["cells"].setdefault(lab, {})[name] = cell
                        write_json_atomic(path, matrix)
                        out(f"perflab conditions: {lab} under {name}: {cell['status']}"
                            + (f" ({', '.join(cell.get('failed') or [])})" if cell.get("failed") else "")
                            + (f" ({cell['error']})" if cell["status"] == "error" else ""))
                # measured once the condition is over (the load's CPU share): into this condition's cells
                for lab in labs:
                    matrix["cells"][lab][name]["condition"] = dict(setting.measured)
                write_json_atomic(path, matrix)
    finally:
        signal.signal(signal.SIGTERM, old)
        failed = cleanup.clean_run(work)
        if not failed:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    return matrix
