"""Generate the Jupyter Book (1.x) configuration, _config.yml and _toc.yml, from book.toml.

The two files are committed so that `jupyter-book build .` works on its own, and
tests/test_manifest.py fails when they drift from book.toml (`scripts/perflab book-config` rewrites them).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from .manifest import Manifest

HEADER = "# Generated from book.toml by `scripts/perflab book-config`: do not edit by hand.\n"
EXCLUDE = [".venv/**", ".pytest_cache/**", ".git/**", ".ci/**", "perflab/**", "perflab.egg-info/**", "_build/**", "data/**", "labs/**", "containers/**", "tests/**",
           "benchmarks/**", "scripts/**", "slowdisk/**", "README.md", "test-artifacts/**", "**.ipynb_checkpoints"]


def _yaml(obj, indent=0) -> str:
    """A small YAML emitter for the plain dicts/lists/scalars below (JSON scalars are valid YAML)."""
    pad = "  " * indent
    lines = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{k}:")
                lines.append(_yaml(v, indent + 1))
            else:
                lines.append(f"{pad}{k}: {json.dumps(v) if v != {} else '{}'}")
    elif isinstance(obj, list):
        for v in obj:
            if isinstance(v, dict):
                inner = _yaml(v, indent + 1).splitlines()
                lines.append(f"{pad}- {inner[0].strip()}")
                lines += inner[1:]
            else:
                lines.append(f"{pad}- {json.dumps(v)}")
    return "\n".join(lines)


def config(m: Manifest) -> dict:
    b = m.book
    return {
        "title": b["title"],
        "author": b["author"],
        "copyright": str(b.get("copyright", "")),
        "only_build_toc_files": True,
        "exclude_patterns": EXCLUDE,
        "execute": {
            "execute_notebooks": "force",
            "timeout": int(b.get("execute_timeout_s", 600)),
            "allow_errors": False,
            "stderr_output": "show",
        },
        "parse": {"myst_enable_extensions": ["colon_fence", "deflist", "substitution"]},
        "html": {"use_search_button": True, "home_page_in_navbar": True},
        "launch_buttons": {"notebook_interface": "classic"},
        "sphinx": {
            "config": {
                "html_static_path": ["_static"],
                "html_js_files": ["plotly.min.js"],
                "html_show_sourcelink": False,
                "nb_merge_streams": True,
                "suppress_warnings": ["mystnb.unknown_mime_type"],
            }
        },
    }


def toc(m: Manifest) -> dict:
    root, *rest = m.chapters
    t: dict = {"format": "jb-book", "root": str(root.file.with_suffix(""))}
    if rest:
        t["chapters"] = [{"file": str(c.file.with_suffix(""))} for c in rest]
    return t


def render(m: Manifest) -> dict[str, str]:
    return {"_config.yml": HEADER + _yaml(config(m)) + "\n", "_toc.yml": HEADER + _yaml(toc(m)) + "\n"}


def drift(m: Manifest) -> list[str]:
    """Names of generated files that differ from what book.toml says."""
    out = []
    for name, text in render(m).items():
        p = m.root / name
        if not p.exists() or p.read_text() != text:
            out.append(name)
    return out


def write(m: Manifest) -> list[Path]:
    from .figures import plotly_js_path

    paths = []
    for name, text in render(m).items():
        p = m.root / name
        p.write_text(text)
        paths.append(p)
    static = m.root / "_static"
    static.mkdir(exist_ok=True)
    with plotly_js_path().open("rb") as src, open(static / "plotly.min.js", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return paths
