"""Runs and what they leave: who owns a run directory (its runner's PID and start time), and
giving back everything a run recorded in its ledger or labelled in Docker. `perflab clean` removes
only what the kernel or the engine shows is the run's (perflab.infra.ledger's proofs; a ledger is
untrusted input), says what it left alone and why, and leaves a run whose runner is still alive
alone unless --force is given; `perflab clean --check` lists what is left.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from perflab.errors import Refused
from perflab.infra.labels import docker_objects, remove_docker_objects, run_dirs_by_run
from perflab.infra.ledger import Ledger, Run, exists, refusal
from perflab.infra.procs import marked_processes, proc_start_time, process_alive

OWNER = "owner.json"
#: looks for a run's processes when stopping them: one being stopped may just have started another
#: (whose environment names the run too), which the next look finds
STOP_ROUNDS = 5
#: what a run name is (perflab's run ids: `<lab>-<UTC stamp>-<hex>`, `conditions-<stamp>`): never a path
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,199}")


def write_owner(run_dir: Path) -> None:
    pid = os.getpid()
    (Path(run_dir) / OWNER).write_text(json.dumps({"pid": pid, "start_time": proc_start_time(pid)}))


def run_active(run_dir: Path) -> bool:
    try:
        o = json.loads((Path(run_dir) / OWNER).read_text())
    except (OSError, ValueError):
        return False
    pid = o.get("pid") if isinstance(o, dict) else None
    return isinstance(pid, int) and pid != os.getpid() and process_alive(pid, o.get("start_time"))


def runs_root(root: Path) -> Path:
    return Path(root) / "data" / "runs"


def run_name(value: str) -> str:
    """`value` as a run name (`perflab clean --run`); Refused (exit 2) when it is anything else."""
    if not RUN_NAME.fullmatch(value or ""):
        raise Refused(f"--run {value!r}: not a run name (a run id under data/runs: letters, digits, '-' and '_', "
                      "starting with a letter or digit; never a path)")
    return value


def run_dirs(root: Path, run_id: str | None = None) -> tuple[list[Path], list[str]]:
    """The run directories to clean (all, or the one named) and, for a named one that is a symbolic link,
    the line saying it is left alone. Only real directories directly under data/runs are runs."""
    base = runs_root(root)
    if run_id:
        d = base / run_name(run_id)
        return ([], [f"left alone: {d}: a symbolic link, not a run directory under {base}"]) if d.is_symlink() \
            else ([d] if d.is_dir() else [], [])
    return sorted(d for d in base.glob("*") if d.is_dir() and not d.is_symlink()) if base.is_dir() else [], []


@dataclass
class Leftover:
    run_id: str
    kind: str
    ident: str
    why: str | None = None   # set when it is there but not proven perflab's ("left alone: ...")

    def __str__(self):
        return f"{self.why} (run {self.run_id})" if self.why else f"{self.kind} {self.ident} (run {self.run_id})"


def clean_run(run_dir: Path, client=None) -> list[str]:
    """Remove what one run recorded or labelled, each host object only once proven the run's; return
    what stays, one line each ("could not remove: ..." or "left alone: ..."). Processes go first (so
    nothing creates more objects meanwhile; also those no ledger recorded, found by the run named in
    their environment), then Docker objects, then the other host objects.
    `client`: a Docker client, None when no engine answers."""
    led = Ledger(run_dir)
    stays = _stop_processes(led, client)
    stays += [f"could not remove: {f}" for f in remove_docker_objects(client, led.dir.name)]
    for e in [e for e in led.open_entries() if e.get("kind") != "process"]:
        stays += filter(None, [led.give_back(e, client)])
    return stays


def _open_processes(led: Ledger) -> list[dict]:
    return [e for e in led.open_entries() if e.get("kind") == "process"]


def _stop_processes(led: Ledger, client) -> list[str]:
    """Stop the run's processes: those its ledger records and those whose environment names the run
    (a kernel its runner's SIGKILL left running before it recorded itself), each recorded first so
    the ledger says what was stopped, and each proven the run's when it is stopped. Look again until
    a look finds nothing new (at most STOP_ROUNDS). What stays, one line each."""
    tried, stays = set(), []
    for _ in range(STOP_ROUNDS):
        recorded = {e["id"] for e in _open_processes(led)}
        for pid in marked_processes(led.dir):
            if str(pid) not in recorded:
                led.record_process(pid, "found by its run marker")
        todo = [e for e in _open_processes(led) if (e["id"], e.get("start_time")) not in tried]
        if not todo:
            break
        for e in todo:
            tried.add((e["id"], e.get("start_time")))
            stays += filter(None, [led.give_back(e, client)])
    return stays


def _active(dirs: list[Path], client) -> set[str]:
    """Run ids whose runner is alive: runs of this checkout, and runs whose Docker objects name a
    run directory elsewhere (another clone on the same machine) whose runner is alive."""
    active = {d.name for d in dirs if run_active(d)}
    mine = {d.name for d in dirs}
    active |= {r for r, d in run_dirs_by_run(client).items() if r not in mine and run_active(Path(d))}
    return active


def clean(root: Path, run_id: str | None = None, force: bool = False, client=None) -> tuple[list[str], list[str]]:
    """Clean every run (or the one named). Returns (cleaned run ids, what stays: one line each).
    `client`: a Docker client; None when no engine answers (then only host objects are given back,
    each as far as the host alone proves it the run's)."""
    dirs, stays = run_dirs(root, run_id)
    active = _active(dirs, client) if not force else set()
    done = []
    for d in dirs:
        if d.name in active:
            continue
        stays += clean_run(d, client)
        done.append(d.name)
    # Labelled objects whose run directory is gone (deleted by hand) are still perflab's.
    if run_id is None:
        stays += [f"could not remove: {f}" for f in remove_docker_objects(client, None, skip_runs=active)]
    elif run_id not in active:   # a live run's objects are its runner's until it ends (or --force)
        stays += [f"could not remove: {f}" for f in remove_docker_objects(client, run_id)]
    return done, stays


def leftovers(root: Path, include_active: bool = False, client=None) -> list[Leftover]:
    """What runs left: labelled Docker objects (with `client`), recorded host objects still there
    (those not proven the run's with the line saying why, `why`), and processes whose environment
    names the run."""
    dirs, _ = run_dirs(root)
    active = set() if include_active else _active(dirs, client)
    out = [Leftover(r, k, n) for k, n, r in docker_objects(client) if r not in active]
    for d in dirs:
        if d.name in active:
            continue
        led = Ledger(d)
        run, entries = Run(led.dir, client), led.open_entries()
        for e in entries:
            if exists(e):
                out.append(Leftover(d.name, str(e.get("kind")), str(e.get("id")), refusal(e, run)))
        recorded = {e["id"] for e in entries if e.get("kind") == "process"}
        out += [Leftover(d.name, "process", str(pid)) for pid in marked_processes(led.dir) if str(pid) not in recorded]
    return out
