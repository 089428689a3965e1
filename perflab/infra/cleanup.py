"""Runs and what they leave: who owns a run directory (its runner's PID and start time), and
giving back everything a run recorded in its ledger or labelled in Docker. `perflab clean` removes
exactly that and nothing else, and leaves a run whose runner is still alive alone unless --force
is given; `perflab clean --check` lists what is left.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from perflab.infra.labels import docker_client, docker_objects, remove_docker_objects, run_dirs_by_run
from perflab.infra.ledger import EXISTS, PATH_KINDS, Ledger, ours, process_alive, proc_start_time, remove_entry

OWNER = "owner.json"


def write_owner(run_dir: Path) -> None:
    pid = os.getpid()
    (Path(run_dir) / OWNER).write_text(json.dumps({"pid": pid, "start_time": proc_start_time(pid)}))


def run_active(run_dir: Path) -> bool:
    try:
        o = json.loads((Path(run_dir) / OWNER).read_text())
    except (OSError, ValueError):
        return False
    return o.get("pid") != os.getpid() and process_alive(o["pid"], o.get("start_time"))


def runs_root(root: Path) -> Path:
    return Path(root) / "data" / "runs"


@dataclass
class Leftover:
    run_id: str
    kind: str
    ident: str

    def __str__(self):
        return f"{self.kind} {self.ident} (run {self.run_id})"


def clean_run(run_dir: Path, client=None) -> list[str]:
    """Remove what one run recorded or labelled; return what failed. Processes go first (so
    nothing creates more objects meanwhile), then Docker objects, then the other host objects."""
    run_dir = Path(run_dir)
    led = Ledger(run_dir)
    failed = []

    def remove(entries):
        for e in entries:
            if e["kind"] in PATH_KINDS and not ours(e["id"], run_dir):
                failed.append(f"{e['kind']} {e['id']}: not a place perflab makes for run {run_dir.name}, left alone")
                continue
            if remove_entry(e):
                led.release(e["kind"], e["id"])
            else:
                failed.append(f"{e['kind']} {e['id']}")

    remove([e for e in led.open_entries() if e["kind"] == "process"])
    failed += remove_docker_objects(client, run_dir.name)
    remove([e for e in led.open_entries() if e["kind"] != "process"])
    return failed


def _active(dirs: list[Path], client) -> set[str]:
    """Run ids whose runner is alive: runs of this checkout, and runs whose Docker objects name a
    run directory elsewhere (another clone on the same machine) whose runner is alive."""
    active = {d.name for d in dirs if run_active(d)}
    mine = {d.name for d in dirs}
    active |= {r for r, d in run_dirs_by_run(client).items() if r not in mine and run_active(Path(d))}
    return active


def clean(root: Path, run_id: str | None = None, force: bool = False) -> tuple[list[str], list[str]]:
    """Clean every run (or one). Returns (cleaned run ids, failures)."""
    client = docker_client()
    base = runs_root(root)
    dirs = [base / run_id] if run_id else sorted(p for p in base.glob("*") if p.is_dir()) if base.exists() else []
    active = _active(dirs, client) if not force else set()
    done, failed = [], []
    for d in dirs:
        if d.name in active:
            continue
        if d.exists():
            failed += clean_run(d, client)
            done.append(d.name)
    # Labelled objects whose run directory is gone (deleted by hand) are still perflab's.
    if run_id is None:
        failed += remove_docker_objects(client, None, skip_runs=active)
    elif run_id not in active:   # a live run's objects are its runner's until it ends (or --force)
        failed += remove_docker_objects(client, run_id)
    return done, failed


def leftovers(root: Path, include_active: bool = False) -> list[Leftover]:
    client = docker_client()
    base = runs_root(root)
    dirs = sorted(p for p in base.glob("*") if p.is_dir()) if base.exists() else []
    active = set() if include_active else _active(dirs, client)
    out = [Leftover(r, k, n) for k, n, r in docker_objects(client) if r not in active]
    for d in dirs:
        if d.name in active:
            continue
        for e in Ledger(d).open_entries():
            if e["kind"] in PATH_KINDS and not ours(e["id"], d):
                continue    # not perflab's to remove (clean_run says so when asked to)
            if EXISTS[e["kind"]](e):
                out.append(Leftover(d.name, e["kind"], e["id"]))
    return out
