"""What a lab provides, in code: the runner and a chapter's session load a lab through `load`, which
names what is missing instead of finding out half-way through a run.

A lab (CONTRIBUTING.md "Adding a lab") is `labs/<name>/`, a small package whose `__init__.py` gives:

    plan(params) -> [(phase, expected seconds), ...]   what run() will do, for --dry-run and progress
    run(session)                                       the experiment: containers, fio, raw files
    load(run_dir) -> data                              the raw files read back (a live or reference run)
    summary(data) -> {metric: value}                   the numbers the chapter and the checks read
    CHECKS: [perflab.analysis.checks.Check, ...]       the chapter's claims, each declared once

and may give `validate(params)` (cross-parameter rules, before anything is created), `INTENT` and
`sanity_context` (perflab.analysis.sanity). A lab still written as one `lab.py` is held to the
first four; it declares its checks in its chapter until it becomes a package.
"""
from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any, Callable, Protocol, runtime_checkable

from perflab.analysis.checks import Check
from perflab.config.manifest import Lab, ManifestError

__all__ = ["LabModule", "REQUIRED", "problems", "load"]


@runtime_checkable
class LabModule(Protocol):
    CHECKS: list[Check]

    def plan(self, params: dict) -> list[tuple[str, float]]: ...
    def run(self, session: Any) -> None: ...
    def load(self, run_dir: Any) -> Any: ...
    def summary(self, data: Any) -> dict: ...


#: name -> how many positional arguments it must accept
REQUIRED: dict[str, int] = {"plan": 1, "run": 1, "load": 1, "summary": 1}
OPTIONAL: dict[str, int] = {"validate": 1, "sanity_context": 1}
#: a lab still written as one lab.py may take its parameters (or a setting) as summary's second argument;
#: a lab package reads what it needs from its run's own files, so that summary(data) is all a reader calls
LEGACY_SUMMARY = 2


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


def problems(mod: ModuleType, package: bool) -> list[str]:
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
        elif not _takes(fn, n) and not (name == "summary" and not package and _takes(fn, LEGACY_SUMMARY)):
            out.append(f"{name}() must take {n} argument{'s' if n > 1 else ''}, not {inspect.signature(fn)}")
    checks = getattr(mod, "CHECKS", None)
    if checks is None:
        if package:
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
    bad = problems(mod, lab.is_package)
    if bad:
        raise ManifestError(f"lab {lab.name} ({lab.module_path}) is not a complete lab: {'; '.join(bad)} "
                            f"(see perflab/run/labcontract.py)")
    return mod
