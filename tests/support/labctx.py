"""A LabContext for tests (perflab.infra.context): what a lab's session hands infra, without a run."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perflab.config.manifest import Lab, Manifest
from perflab.config.options import RunOptions


@dataclass
class Ctx:
    run_id: str
    lab: Lab
    manifest: Manifest
    data_dir: Path
    ledger: Any = None
    params: dict = field(default_factory=dict)
    options: RunOptions = field(default_factory=RunOptions)
    estimate_s: float | None = None
    recorded: dict = field(default_factory=dict)

    def path(self, *parts: str) -> Path:
        return self.data_dir.joinpath(*parts)

    def write_json(self, *parts: str, data) -> Path:
        import json

        path = self.path(*parts)
        path.write_text(json.dumps(data))
        return path

    def provenance(self, **kv) -> None:
        self.recorded.update(kv)

    @contextlib.contextmanager
    def phase(self, name: str, expected_s: float | None = None):
        yield


def ctx(manifest: Manifest, tmp_path: Path, lab: str = "heatmaps", run_id: str = "unit", **kw) -> Ctx:
    d = tmp_path / run_id
    d.mkdir(parents=True, exist_ok=True)
    return Ctx(run_id, manifest.lab(lab), manifest, d, **kw)
