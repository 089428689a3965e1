"""Hardware counters through `perf stat`, where the machine has them (this project's VM does not): a
probe that says, in perf's own words, why not; `perf stat` on a set of CPUs for a measurement (a
host process in the run's ledger); its CSV; CPI. And the CPU caches' sizes (sysfs), which a lab sets
its working sets against.
"""
from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
from pathlib import Path

from perflab.infra import hostobjects
from perflab.infra.ledger import Ledger

PERF_EVENTS = "cycles,instructions"


def parse_perf_csv(text: str) -> dict[str, dict]:
    """`perf stat -x,` output: {event: {"value": int or None, "raw": the counter field}}. perf
    writes '<not supported>' or '<not counted>' in place of a number it could not get."""
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split(",")
        if len(f) < 3:
            continue
        event = f[2].strip().split(":")[0]
        if not event:
            continue
        raw = f[0].strip()
        out[event] = {"value": int(float(raw)) if re.fullmatch(r"[0-9.]+", raw) else None, "raw": raw}
    return out


def cpi_from_perf(events: dict) -> float | None:
    cyc, ins = (events.get(k, {}).get("value") for k in ("cycles", "instructions"))
    return round(cyc / ins, 3) if cyc and ins else None


def probe_counters(perf: str | None = None) -> dict:
    """Does `perf stat -e cycles,instructions` count on this machine? {"supported", "message",
    "perf"}: the message is perf's own words when it cannot (what run.json and the chapter show)."""
    perf = perf or shutil.which("perf")
    if not perf:
        return {"supported": False, "perf": None,
                "message": "not supported: perf is not installed (Debian package linux-perf)"}
    try:
        r = subprocess.run([perf, "stat", "-x,", "-e", PERF_EVENTS, "--", "true"], capture_output=True,
                           text=True, timeout=30)
        version = subprocess.run([perf, "--version"], capture_output=True, text=True, timeout=30).stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"supported": False, "perf": perf, "message": f"not supported: perf stat failed to run ({e})"}
    events = parse_perf_csv(r.stderr)
    if r.returncode == 0 and events and all(events.get(e, {}).get("value") is not None for e in ("cycles", "instructions")):
        return {"supported": True, "perf": perf, "version": version, "message": "supported"}
    if events:
        said = ", ".join(f"{v['raw']} {k}" for k, v in events.items())
    else:
        said = (r.stderr.strip().splitlines() or [f"exit code {r.returncode}"])[-1]
    return {"supported": False, "perf": perf, "version": version,
            "message": f"not supported: perf stat -e {PERF_EVENTS}: {said}"}


def counting(ledger: Ledger, hw: dict, cpus: str, seconds: float, out: Path):
    """`perf stat` on `cpus` for `seconds`, into `out` (a host process in the run's ledger, given 30 s
    to end by itself once the block is over); nothing where `hw` (probe_counters) says no counters."""
    if not hw["supported"]:
        return contextlib.nullcontext()
    return hostobjects.process(ledger, [hw["perf"], "stat", "-x,", "-o", str(out), "-e", PERF_EVENTS, "-C", cpus,
                                        "--", "sleep", f"{seconds:g}"], "perf stat",
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cache_sizes(root: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> dict[str, int]:
    """The CPU caches of CPU 0 (sysfs): {"L1d": bytes, "L2": ..., "L3": ...}."""
    out = {}
    for d in sorted(root.glob("index*")):
        try:
            level = (d / "level").read_text().strip()
            kind = (d / "type").read_text().strip()
            size = (d / "size").read_text().strip()
        except OSError:
            continue
        if kind == "Instruction":
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", size)
        if m:
            out[f"L{level}" + ("d" if kind == "Data" else "")] = int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20,
                                                                                    "G": 1 << 30}[m.group(2)]
    return out
