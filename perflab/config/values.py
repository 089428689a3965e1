"""Values of lab parameters: sizes and durations as people write them (4KiB, 500ms), and a raw
value converted to a parameter's type. The bottom of the config layer: book.toml's defaults are
checked with it when the manifest is read (perflab.config.manifest), and every value a user gives
when a run is resolved (perflab.config.params).
"""
from __future__ import annotations

import difflib
import re

_SIZE_UNITS = {
    "": 1, "b": 1,
    "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2, "g": 1024**3, "gib": 1024**3,
    "t": 1024**4, "tib": 1024**4,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
}
_DUR_UNITS = {"": 1.0, "s": 1.0, "us": 1e-6, "ms": 1e-3, "m": 60.0, "min": 60.0, "h": 3600.0}
_NUM = r"([0-9]+(?:\.[0-9]+)?)"


def parse_size(text) -> int:
    if isinstance(text, bool):
        raise ValueError("not a size")
    if isinstance(text, (int, float)):
        if text < 0 or int(text) != text:
            raise ValueError("not a whole number of bytes")
        return int(text)
    m = re.fullmatch(_NUM + r"\s*([A-Za-z]*)", str(text).strip())
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise ValueError("not a size (examples: 4096, 4KiB, 64MiB, 1GiB, 4k)")
    v = float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]
    if v != int(v):
        raise ValueError("not a whole number of bytes")
    return int(v)


def parse_duration(text) -> float:
    if isinstance(text, bool):
        raise ValueError("not a duration")
    if isinstance(text, (int, float)):
        return float(text)
    m = re.fullmatch(_NUM + r"\s*([A-Za-z]*)", str(text).strip())
    if not m or m.group(2).lower() not in _DUR_UNITS:
        raise ValueError("not a duration (examples: 30s, 500ms, 2m)")
    return float(m.group(1)) * _DUR_UNITS[m.group(2).lower()]


def fmt_size(n: int) -> str:
    """Exact and short: the largest binary unit that divides n (4096 -> 4KiB, 1.5 GiB -> 1536MiB)."""
    for unit, f in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n and n % f == 0:
            return f"{n // f}{unit}"
    return f"{n}B"


def fmt_duration(s: float) -> str:
    if s >= 3600 and s % 3600 == 0:
        return f"{s / 3600:g}h"
    if s >= 60 and s % 60 == 0:
        return f"{s / 60:g}m"
    if s < 1:
        return f"{s * 1000:g}ms"
    return f"{s:g}s"


def convert(p, raw):
    """A parameter's value from what a user or book.toml gave (`p`: a perflab.config.manifest.Param,
    read for its type and choices only); ValueError says why it is not one."""
    t = p.type
    if t == "size":
        return parse_size(raw)
    if t == "duration":
        return parse_duration(raw)
    if t == "int":
        if isinstance(raw, bool):
            raise ValueError("not a whole number")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str) and re.fullmatch(r"[+-]?[0-9]+", raw.strip()):
            return int(raw)
        raise ValueError("not a whole number")
    if t == "float":
        if isinstance(raw, bool):
            raise ValueError("not a number")
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise ValueError("not a number") from None
    if t == "bool":
        if isinstance(raw, bool):
            return raw
        s = str(raw).strip().lower()
        if s in ("1", "true", "yes", "on"):
            return True
        if s in ("0", "false", "no", "off"):
            return False
        raise ValueError("not a boolean (true/false)")
    if t == "choice":
        s = str(raw)
        if s not in p.choices:
            near = difflib.get_close_matches(s, list(p.choices), n=1)
            raise ValueError("not one of the choices" + (f"; did you mean '{near[0]}'?" if near else ""))
        return s
    if t == "intlist":
        if isinstance(raw, list):
            items = raw
        else:
            items = [x for x in str(raw).replace(" ", "").split(",") if x != ""]
        out = []
        for x in items:
            if isinstance(x, bool) or not re.fullmatch(r"[0-9]+", str(x)):
                raise ValueError("not a comma-separated list of whole numbers (example: 1,3)")
            out.append(int(x))
        return out
    return str(raw)


def port_refusal(port: int) -> str | None:
    """Why a page's --port is refused (None when it is a TCP port, or 0: any free one)."""
    return None if 0 <= port <= 65535 else f"--port {port}: a TCP port, 0 (any free one) to 65535"
