"""A class's time budget from measured run times: how long one student's mystery run (or a lab's
smoke run) took on a machine, recorded in `data/timings/class.json` by `benchmarks/class_times.py`, and
what that means for a class of N students on M machines.

The figures are what was measured, on the machine named in the file; the plan computed from them
is arithmetic on those figures (whole students per slot, machines rounded up), nothing more: it
assumes, as the labs require, one lab at a time per machine (labs emulate time; two at once
distort each other's results).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from perflab.errors import Refused

FORMAT = "perflab-class-times/1"
TIMINGS = Path("data") / "timings" / "class.json"


class TimingsError(Refused, ValueError):
    """The class timings file is missing or not in its format."""


@dataclass(frozen=True)
class Timings:
    measured: str           # UTC date and time of the measurement
    git_sha: str
    git_dirty: bool
    machine: dict           # cpus, cpu, memory_bytes, kernel
    labs: dict              # lab -> {"kind": "mystery"|"smoke", "wall_s": float, "run_id": str, "preset": str}

    def minutes(self, lab: str) -> float:
        return self.labs[lab]["wall_s"] / 60


def load(root: Path) -> Timings:
    f = Path(root) / TIMINGS
    try:
        doc = json.loads(f.read_text())
    except (OSError, ValueError) as e:
        raise TimingsError(f"{f}: cannot read the class timings ({e}); record them with benchmarks/class_times.py") from None
    if doc.get("format") != FORMAT:
        raise TimingsError(f"{f}: not a {FORMAT} file")
    return Timings(doc["measured"], doc["git_sha"], doc["git_dirty"], doc["machine"], doc["labs"])


def shown_minutes(t: Timings, lab: str) -> float:
    """A lab's measured minutes, rounded up to the tenth: the figure a page shows and plans from."""
    return math.ceil(round(t.minutes(lab) * 10, 6)) / 10


def students_per_machine(slot_min: float, run_min: float) -> int:
    """Students whose runs fit one after another in a slot on one machine (whole runs only)."""
    if run_min <= 0:
        raise ValueError("a run takes some time")
    return int(slot_min // run_min)


def machines_for(students: int, slot_min: float, run_min: float) -> int | None:
    """Machines needed so that every student's run fits in the slot (None: not even one fits)."""
    per = students_per_machine(slot_min, run_min)
    return math.ceil(students / per) if per else None


def plan_rows(t: Timings, labs: list[str], students: int, slot_min: float) -> list[dict]:
    """Per lab: the measured minutes of one run (rounded up to the tenth shown; the counts are
    computed from that figure), students per machine in the slot, machines for the class, and
    machine-hours the class uses (runs only)."""
    rows = []
    for lab in labs:
        if lab not in t.labs:
            continue
        mins = shown_minutes(t, lab)
        rows.append({"lab": lab, "run (min)": round(mins, 1), "per machine": students_per_machine(slot_min, mins),
                     "machines": machines_for(students, slot_min, mins),
                     "machine-hours": round(students * mins / 60, 1)})
    return rows
