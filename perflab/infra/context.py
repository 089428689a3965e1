"""What a lab's run hands the infra floor: one typed contract instead of the session object.

The run floor's session (perflab.run.session.Session) implements it; the infra functions that make
a run's objects (containers.Topology, zfs.lab_containers, labdirs.device_lab, ...) take it, and a
lab's `run(ctx)` receives it. Every run option reaches infra through `ctx.options`
(perflab.config.options.RunOptions), read once from the run's run.json: none through the
environment. A test may pass any object with these attributes (tests/test_context.py).
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol, runtime_checkable

from perflab.config.manifest import Lab, Manifest
from perflab.config.options import RunOptions

if TYPE_CHECKING:   # a type only: infra.ledger imports nothing from here
    from perflab.infra.ledger import Ledger

__all__ = ["LabContext", "image_tag", "opening", "opened"]


@runtime_checkable
class LabContext(Protocol):
    #: the run's id: its directory's name, and the label on every object the run makes
    run_id: str
    #: the lab, as book.toml declares it (name, jobs_dir, images)
    lab: Lab
    #: the project's manifest (image tags, budgets)
    manifest: Manifest
    #: the run's directory, where every raw file of the run is written
    data_dir: Path
    #: the run's ledger of host objects (None when reading a recorded run)
    ledger: "Ledger | None"
    #: the lab's parameters, validated once against book.toml (perflab.config.params)
    params: Mapping[str, Any]
    #: the run's options (--scratch, --cpus, --seccomp, --live)
    options: RunOptions
    #: the run's expected seconds (its plan's total), None before the plan is known
    estimate_s: float | None

    def path(self, *parts: str) -> Path: ...

    def provenance(self, **kv: Any) -> None: ...

    def write_json(self, *parts: str, data: Any) -> Path: ...   # a file of the run, written atomically

    def phase(self, name: str, expected_s: float | None = None) -> contextlib.AbstractContextManager: ...


def image_tag(ctx: LabContext, name: str) -> str:
    """The tag of the lab image `name` (book.toml [images.NAME]) as this run builds it."""
    return ctx.manifest.images[name].tag
