"""What a lab (or a hub, or a dev container) could leave on this machine, taken before and after."""
from __future__ import annotations

import subprocess
from pathlib import Path

from perflab.infra import labels


def _lines(*cmd) -> set[str]:
    return set(subprocess.run(list(cmd), capture_output=True, text=True, timeout=60).stdout.splitlines())


def outer_state(keep_volumes=()) -> dict:
    """The machine's containers, networks, volumes (less a test's own), loop and zram devices,
    mounts and qdiscs, as sets."""
    c = labels.docker_client()
    return {"containers": {x.id for x in c.containers.list(all=True)},
            "networks": {n.id for n in c.networks.list()},
            "volumes": {v.name for v in c.volumes.list()} - set(keep_volumes),
            "loop devices": _lines("losetup", "-a"),
            "zram devices": {p.name for p in Path("/sys/block").glob("zram*")},
            "mounts": {ln.split()[1] for ln in open("/proc/self/mounts")},
            "qdiscs": _lines("tc", "qdisc", "show")}


def differences(before: dict, after: dict) -> dict:
    return {k: {"new": sorted(after[k] - before[k])[:5], "gone": sorted(before[k] - after[k])[:5]}
            for k in before if after[k] != before[k]}
