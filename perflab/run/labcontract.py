"""What a lab provides, in code: the runner and a chapter's session load a lab through `load`, which
names what is missing instead of finding out half-way through a run.

A lab (CONTRIBUTING.md "Adding a lab") is `labs/<name>/`, a small package whose `__init__.py` gives:

    plan(params) -> [(phase, expected seconds), ...]   what run() will do, for --dry-run and progress
    run(ctx)                                           the experiment: containers, fio, raw files
    load(run_dir) -> data                              the raw files read back (a live or reference run)
    summary(data) -> {metric: value}                   the numbers the chapter and the checks read
    CHECKS: [perflab.analysis.checks.Check, ...]       the chapter's claims, each declared once

and may give `validate(params)` (cross-parameter rules, before anything is created), `INTENT` and
`sanity_context` (perflab.analysis.sanity).

`run(ctx)` gets the run's perflab.infra.context.LabContext (the session) and makes the raw files
only: the session then reads them back, `summary(load(run_dir))`, into the run's metrics (the
"collect" phase), the same way a chapter reads a recorded run.
"""
from __future__ import annotations

import inspect
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from perflab.analysis.checks import Check
from perflab.config.manifest import Lab, ManifestError
from perflab.infra.context import LabContext

__all__ = ["LabModule", "REQUIRED", "problems", "load"]


@runtime_checkable
class LabModule(Protocol):
    CHECKS: list[Check]

    def plan(self, params: Mapping[str, Any]) -> list[tuple[str, float]]: ...
    def run(self, ctx: LabContext) -> None: ...
    def load(self, run_dir: Path) -> Any: ...    # the lab's own shape of its raw data
    def summary(self, data: Any) -> dict[str, Any]: ...


#: name -> how many positional arguments it must accept
REQUIRED: dict[str, int] = {"plan": 1, "run": 1, "load": 1, "summary": 1}
OPTIONAL: dict[str, int] = {"validate": 1, "sanity_context": 1}


def _takes(fn: Callable, n: int) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    params = list(sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    return len(required) <= n <= len(positional)


def problems(mod: ModuleType) -> list[str]:
    """What `mod` lacks or gets wrong as a lab (empty: it conforms)."""
    out = []
    for name, n in {**REQUIRED, **OPTIONAL}.items():
        fn = getattr(mod, name, None)
        if fn is None:
            if name in REQUIRED:
                out.append(f"no {name}()")
            continue
        if not callable(fn):
            out.append(f"{name} is not a function")
        elif not _takes(fn, n):
            out.append(f"{name}() must take {n} argument{'s' if n > 1 else ''}, not {inspect.signature(fn)}")
    checks = getattr(mod, "CHECKS", None)
    if checks is None:
        out.append("no CHECKS (the chapter's claims, perflab.analysis.checks.Check)")
    elif not isinstance(checks, (list, tuple)) or not all(isinstance(c, Check) for c in checks):
        out.append("CHECKS must be a list of perflab.analysis.checks.Check")
    else:
        names = [c.name for c in checks]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            out.append(f"CHECKS declares twice: {', '.join(dup)}")
    return out


def load(lab: Lab) -> ModuleType:
    """The lab's module, checked against the contract; a lab that does not conform is refused with
    every missing or wrong name (exit 2, before anything is created)."""
    mod = lab.load_module()
    bad = problems(mod)
    if bad:
        raise ManifestError(f"lab {lab.name} ({lab.module_path}) is not a complete lab: {'; '.join(bad)} "
                            f"(see perflab/run/labcontract.py)")
    return mod
