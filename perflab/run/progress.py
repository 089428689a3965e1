"""Progress of a long run: phase, elapsed time, expected time remaining.

The lab declares its phases and their expected durations (`plan(params)` in its module); the
notebook kernel appends one JSON line per phase start and end to the run's `progress.jsonl` and
prints the same in the notebook, and `perflab run` reads that file to show a live line in the
terminal. Expected remaining = what is left of the current phase + the phases still to come.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

PROGRESS = "progress.jsonl"


def append(run_dir: Path, event: dict) -> None:
    with open(Path(run_dir) / PROGRESS, "a") as f:
        f.write(json.dumps({"t": time.time(), **event}) + "\n")
        f.flush()
        os.fsync(f.fileno())


def read(run_dir: Path) -> list[dict]:
    p = Path(run_dir) / PROGRESS
    if not p.exists():
        return []
    out = []
    for line in p.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return out


def status_line(events: list[dict], started: float, now: float | None = None) -> str:
    """'phase 2/3 fio: 12 s of ~20 s; elapsed 31 s; ~18 s remaining' from the events so far."""
    now = now or time.time()
    elapsed = max(0.0, now - started)
    plan = next((e["plan"] for e in events if e.get("event") == "plan"), None)
    cur = None
    for e in events:
        if e.get("event") == "start":
            cur = e
        elif e.get("event") == "end" and cur and e.get("phase") == cur.get("phase"):
            cur = None
    if cur is None:
        done = [e["phase"] for e in events if e.get("event") == "end"]
        return f"elapsed {elapsed:.0f} s" + (f"; {len(done)} phase(s) done" if done else "; starting")
    in_phase = max(0.0, now - cur["t"])   # the event may be stamped a moment after `now`
    exp = cur.get("expected_s") or 0
    rest = max(0.0, exp - in_phase)
    idx = cur.get("index")
    if plan and idx is not None:
        rest += sum(p[1] for p in plan[idx + 1:])
        head = f"phase {idx + 1}/{len(plan)} {cur['phase']}"
    else:
        head = f"phase {cur['phase']}"
    return (f"{head}: {in_phase:.0f} s of ~{exp:.0f} s; elapsed {elapsed:.0f} s; "
            f"~{rest:.0f} s remaining")
