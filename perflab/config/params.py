"""Parse and validate a lab's parameters against its schema in book.toml, before anything is created.

Units follow fio where fio has a convention and say so where they differ:
sizes take B, KiB/MiB/GiB/TiB (binary), KB/MB/GB/TB (decimal), and fio's bare k/m/g (binary, as
fio's default kb_base=1024); durations take us, ms, s, m, h (a bare number is seconds).
Every refusal names the parameter, the value and what is allowed (front page, "Running a lab").
"""
from __future__ import annotations

from perflab.errors import Refused

import difflib
import shutil
from pathlib import Path

from perflab.config.manifest import Lab, Param
from perflab.config.values import convert, fmt_duration, fmt_size, parse_size  # noqa: F401 - the ht lab formats sizes with fmt_size

class ParamError(Refused, ValueError):
    """One or more parameters were refused; `problems` holds one message per parameter."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def _show(p: Param, v) -> str:
    if p.type == "size":
        return fmt_size(v)
    if p.type == "duration":
        return fmt_duration(v)
    if p.type == "intlist":
        return ",".join(map(str, v))
    return str(v)


def allowed(p: Param) -> str:
    """What the schema allows, in words, for messages and `perflab labs`."""
    if p.type == "choice":
        return "one of " + ", ".join(p.choices)
    kinds = {"int": "a whole number", "float": "a number", "bool": "true or false",
             "size": "a size (B, KiB, MiB, GiB; KB, MB, GB; fio's k, m, g)",
             "duration": "a duration (us, ms, s, m, h)", "intlist": "comma-separated whole numbers",
             "str": "text"}
    s = kinds[p.type]
    rng = []
    if p.min is not None:
        rng.append(f">= {p.min}")
    if p.max is not None:
        rng.append(f"<= {p.max}")
    if p.multiple_of is not None:
        rng.append(f"a multiple of {p.multiple_of}")
    return s + (" " + " and ".join(rng) if rng else "")


def _bound(p: Param, b, values: dict):
    """A bound is a literal of the parameter's type or the name of another parameter."""
    if isinstance(b, str) and b in values:
        return values[b], b
    elem = "int" if p.type == "intlist" else p.type
    return convert(Param(p.name, elem, None), b), None


def resolve(lab: Lab, preset: str | None = "smoke", overrides: dict | list | None = None,
            budget: dict | None = None, free_bytes: int | None = None) -> dict:
    """Defaults, then the preset, then `overrides` (a dict, or a list of "key=value" strings from
    the command line). Returns typed values; raises ParamError listing every refused parameter."""
    problems: list[str] = []
    if preset is not None and preset not in lab.presets:
        near = difflib.get_close_matches(preset, list(lab.presets), n=1)
        problems.append(f"preset '{preset}' is not defined for lab {lab.name}"
                        + (f"; did you mean '{near[0]}'?" if near else "")
                        + f" (presets: {', '.join(lab.presets)})")
        raise ParamError(problems)
    raw: dict[str, object] = {k: p.default for k, p in lab.params.items()}
    if preset is not None:
        raw.update(lab.presets[preset])
    ov: dict[str, object] = {}
    if isinstance(overrides, dict):
        ov = dict(overrides)
    else:
        for item in overrides or []:
            if "=" not in item:
                problems.append(f"'{item}': a parameter is given as key=value (example: -p runtime=30s)")
                continue
            k, v = item.split("=", 1)
            ov[k.strip()] = v.strip()
    for k in ov:
        if k not in lab.params:
            near = difflib.get_close_matches(k, list(lab.params), n=1)
            problems.append(f"unknown parameter '{k}' for lab {lab.name}"
                            + (f"; did you mean '{near[0]}'?" if near else "")
                            + f" (parameters: {', '.join(lab.params)})")
    raw.update({k: v for k, v in ov.items() if k in lab.params})
    values = _converted(lab, raw, problems)
    for name, p in lab.params.items():
        if name not in values:
            continue
        v = values[name]
        items = v if p.type == "intlist" else [v]
        try:
            lo = _bound(p, p.min, values) if p.min is not None else None
            hi = _bound(p, p.max, values) if p.max is not None else None
            mult = convert(Param(name, p.type, None), p.multiple_of) if p.multiple_of is not None else None
        except ValueError:
            continue  # a bound naming a refused parameter: that one is reported already
        for x in items:
            if lo is not None and x < lo[0]:
                problems.append(f"parameter {name}={_show(p, v)}: below the minimum "
                                f"{_show(p, lo[0]) if p.type != 'intlist' else lo[0]}"
                                + (f" (the value of {lo[1]})" if lo[1] else "") + f"; allowed: {allowed(p)}")
                break
            if hi is not None and x > hi[0]:
                problems.append(f"parameter {name}={_show(p, v)}: above the maximum "
                                f"{_show(p, hi[0]) if p.type != 'intlist' else hi[0]}"
                                + (f" (the value of {hi[1]})" if hi[1] else "") + f"; allowed: {allowed(p)}")
                break
            if mult and x % mult:
                problems.append(f"parameter {name}={_show(p, v)}: not a multiple of {p.multiple_of}; "
                                f"allowed: {allowed(p)}")
                break
        if p.type == "intlist" and len(set(items)) != len(items):
            problems.append(f"parameter {name}={_show(p, v)}: lists a number twice; allowed: {allowed(p)}")
    if not problems and lab.disk:
        problems += _check_disk(lab, values, budget or {}, free_bytes)
    if not problems:
        # What a schema cannot say (a hosts file that must exist and list enough hosts): the lab
        # module's validate(values) returns its refusals, in the same words as the ones above.
        hook = getattr(lab.load_module(), "validate", None) if lab.module_path else None
        problems += list(hook(values)) if hook else []
    if problems:
        raise ParamError(problems)
    return values


def _converted(lab: Lab, raw: dict, problems: list[str], prefix: str = "") -> dict:
    """Each of the lab's parameters converted from `raw` (every one present); a value that does not
    convert is left out and said in `problems`."""
    values: dict[str, object] = {}
    for name, p in lab.params.items():
        try:
            values[name] = convert(p, raw[name])
        except ValueError as e:
            problems.append(f"{prefix}parameter {name}={raw[name]!r}: {e}; allowed: {allowed(p)}")
    return values


def recorded(lab: Lab, text: dict, where: str = "run.json") -> dict:
    """The typed values of a run `resolve` validated when it was made (`perflab run`: run.json's
    params_text): converted, not validated again, so a run's parameters are validated once (its
    hosts file read once, its Docker network looked up once). A parameter the lab has gained since
    takes its default; one it no longer has is left out. A value that does not convert (a file
    edited by hand) is refused with its name, as `resolve` refuses it."""
    problems: list[str] = []
    values = _converted(lab, {k: text.get(k, p.default) for k, p in lab.params.items()}, problems, f"{where}: ")
    if problems:
        raise ParamError(problems)
    return values


def disk_need(lab: Lab, values: dict) -> int:
    return int(sum(values[k] * f for k, f in lab.disk.items()))


def free_space(path: Path) -> int:
    p = Path(path)
    while not p.exists():
        p = p.parent
    return shutil.disk_usage(p).free


def _check_disk(lab: Lab, values: dict, budget: dict, free_bytes: int | None) -> list[str]:
    need = disk_need(lab, values)
    cap = parse_size(budget.get("disk", "8GiB"))
    reserve = parse_size(budget.get("reserve", "1GiB"))
    who = ", ".join(f"{k}={fmt_size(values[k])}" + (f" x{f:g}" if f != 1 else "") for k, f in lab.disk.items())
    out = []
    if need > cap:
        out.append(f"parameter {who}: needs {fmt_size(need)} of disk, over the budget of {fmt_size(cap)} "
                   f"per run (book.toml [budget] disk); allowed: at most {fmt_size(cap)} in all")
    elif free_bytes is not None and need > free_bytes - reserve:
        out.append(f"parameter {who}: needs {fmt_size(need)} of disk but only "
                   f"{fmt_size(max(0, free_bytes - reserve))} is free after keeping {fmt_size(reserve)} "
                   f"in reserve; allowed: at most {fmt_size(max(0, free_bytes - reserve))}")
    return out


def describe(values: dict, lab: Lab) -> dict:
    """Values as the user writes them (sizes with units): for run.json and messages."""
    return {k: _show(lab.params[k], v) for k, v in values.items()}
