"""Read book.toml, the project's single manifest: book metadata, chapters, labs, images.

Everything else (the Jupyter Book configuration, `perflab labs`, parameter validation, image
builds) is derived from what this module returns. Explained in the book's front page
(chapters/index.md, "How the book is built").
"""
from __future__ import annotations

from perflab.errors import Refused

import importlib.util
import os
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from perflab.config.values import convert

MANIFEST = "book.toml"

from perflab.config.suites import SUITE_ENV, SUITES  # noqa: E402,F401 - named here too, as before


def suite_choice() -> str:
    """The Debian release the lab images are built on for this process: PERFLAB_SUITE, else bookworm."""
    value = os.environ.get(SUITE_ENV) or SUITES[0]
    if value not in SUITES:
        raise Refused(f"{SUITE_ENV}={value!r} is not a Debian release the lab images are built on; "
                      f"allowed: {', '.join(SUITES)}")
    return value


class ManifestError(Refused, ValueError):
    """book.toml is missing something or contradicts itself."""


def project_root(start: Path | None = None) -> Path:
    """The directory holding book.toml: $PERFLAB_ROOT, else the first parent of `start`
    (default: the working directory), else the checkout this package was loaded from."""
    env = os.environ.get("PERFLAB_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / MANIFEST).is_file():
            return d
    pkg_parent = Path(__file__).resolve().parents[2]   # perflab/config/manifest.py -> the checkout
    if (pkg_parent / MANIFEST).is_file():
        return pkg_parent
    raise ManifestError(f"no {MANIFEST} in {here} or its parents; set PERFLAB_ROOT")


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # int, float, bool, choice, size, duration, intlist, str
    default: object
    help: str = ""
    min: object = None  # literal (same type) or the name of another parameter
    max: object = None
    choices: tuple = ()
    multiple_of: object = None


@dataclass(frozen=True)
class Image:
    name: str
    tag: str
    context: Path
    dockerfile: Path
    description: str = ""
    inputs: tuple = ()  # globs (from the project root) whose content the image is built from
    seccomp: Path | None = None  # its allow-list, for `perflab run --seccomp lab` (perflab.infra.seccomp)
    suite: str = SUITES[0]  # the Debian release it is built on; `tag` names it unless it is the first
    # its Dockerfile on the first release (what a reference depends on, whichever suite is chosen)
    default_dockerfile: Path | None = None

    @property
    def base(self) -> str:
        """The base image its Dockerfile starts FROM, for this suite."""
        return f"debian:{self.suite}-slim"


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    file: Path
    lab: str | None = None
    # A case study (a post of 2008-2009 reproduced): its page must show the "your run vs reference
    # vs 2009" panel (perflab.analysis.compare); tests/test_browser.py checks the built page for it.
    case_study: bool = False


@dataclass
class Lab:
    name: str
    title: str
    chapter: str
    module_path: Path
    jobs_dir: Path | None
    images: list[str]
    requires: list[str]
    description: str
    params: dict[str, Param]
    presets: dict[str, dict[str, object]]
    disk: dict[str, float] = field(default_factory=dict)
    # how many runs of the full preset `perflab references` records (the first is the chapter's
    # reference; the others, under repeats/, let the chapter show the spread of its own result)
    reference_runs: int = 1
    # {suite: why}: the Debian releases (other than the first) whose lab images this lab does not
    # run on yet, and why; `perflab run --suite` refuses it there before anything is created
    unsupported: dict[str, str] = field(default_factory=dict)

    def source_files(self) -> list[Path]:
        """The lab package's modules: a change to any of them imports the lab again."""
        return sorted(self.module_path.parent.glob("*.py"))

    def load_module(self) -> ModuleType:
        """Import the lab package labs/<name>/__init__.py under the name `perflab_lab_<name>`, once per
        process and again only when one of its files changed on disk. perflab.run.labcontract checks
        what it provides."""
        if self.module_path.name != "__init__.py":
            raise ManifestError(f"lab {self.name}: module {self.module_path} is not a lab package; a lab is "
                                f"labs/<name>/__init__.py and its modules (CONTRIBUTING.md)")
        modname = "perflab_lab_" + self.name.replace("-", "_")
        stamp = tuple(p.stat().st_mtime_ns for p in self.source_files())
        cached = _MODULES.get(self.module_path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        spec = importlib.util.spec_from_file_location(modname, self.module_path,
                                                      submodule_search_locations=[str(self.module_path.parent)])
        if spec is None or spec.loader is None:
            raise ManifestError(f"lab {self.name}: cannot import {self.module_path}")
        mod = importlib.util.module_from_spec(spec)
        # its modules import one another relatively: the package must be known by name, and a copy
        # imported before a change must not lend the new one its old modules
        for k in [k for k in sys.modules if k == modname or k.startswith(modname + ".")]:
            del sys.modules[k]
        sys.modules[modname] = mod
        try:
            spec.loader.exec_module(mod)
        except Exception as e:   # a lab that does not import is refused in one line, naming its error
            sys.modules.pop(modname, None)
            raise ManifestError(f"lab {self.name}: cannot import {self.module_path}: {type(e).__name__}: {e}") from e
        _MODULES[self.module_path] = (stamp, mod)
        return mod


#: Lab modules already imported in this process: {path: (mtime_ns, module)}.
_MODULES: dict = {}


@dataclass
class Manifest:
    root: Path
    book: dict
    budget: dict
    chapters: list[Chapter]
    labs: dict[str, Lab]
    images: dict[str, Image]

    def lab(self, name: str) -> Lab:
        if name not in self.labs:
            import difflib

            near = difflib.get_close_matches(name, list(self.labs), n=1)
            hint = f"; did you mean '{near[0]}'?" if near else ""
            raise ManifestError(f"unknown lab '{name}'{hint} (labs: {', '.join(sorted(self.labs))})")
        return self.labs[name]

    def chapter(self, cid: str) -> Chapter:
        for c in self.chapters:
            if c.id == cid:
                return c
        raise ManifestError(f"unknown chapter '{cid}'")


_PARAM_KEYS = {"type", "default", "help", "min", "max", "choices", "multiple_of"}


def _table(required: list[str], keys: list[str], extra: dict | None = None) -> dict:
    """A JSON-schema object: these keys and no others (a typo is refused, not ignored)."""
    props = {k: {} for k in keys}
    props.update(extra or {})
    return {"type": "object", "required": required, "properties": props, "additionalProperties": False}


#: The shape of book.toml (checked with jsonschema before anything reads it). The mystery table has
#: its own checks in perflab.mystery; a parameter's keys are checked below with their meaning.
SCHEMA = _table(["book"], ["book", "budget", "chapters", "images", "labs"], {
    "book": _table(["title", "author"], ["title", "author", "copyright", "description", "execute_timeout_s",
                                         "repository"]),
    "budget": _table([], ["disk", "reserve"]),
    "chapters": {"type": "array", "items": _table(["id", "title", "file"], ["id", "title", "file", "lab",
                                                                             "case_study"])},
    "images": {"type": "object", "additionalProperties": _table(["tag", "context"], [
        "tag", "context", "dockerfile", "inputs", "description"], {
            "seccomp": {"type": "string"},
            "suites": {"type": "object", "propertyNames": {"enum": list(SUITES[1:])},
                       "additionalProperties": {"type": "string"}}})},
    "labs": {"type": "object", "additionalProperties": _table(["chapter", "module", "presets"], [
        "title", "chapter", "module", "jobs", "images", "requires", "description", "disk", "params",
        "presets", "mystery", "reference_runs"], {
            "unsupported": {"type": "object", "propertyNames": {"enum": list(SUITES[1:])},
                            "additionalProperties": {"type": "string"}},
            "params": {"type": "object", "additionalProperties": _table(["type", "default"], sorted(_PARAM_KEYS))},
            "disk": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0}},
            "reference_runs": {"type": "integer", "minimum": 1, "maximum": 10}})},
})


def validate_raw(raw: dict, path) -> None:
    """Refuse a book.toml that does not fit SCHEMA, naming the table, the key and the nearest
    known key."""
    import difflib

    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(raw), key=lambda e: list(e.path))
    if not errors:
        return
    e = errors[0]
    where = ".".join(str(x) for x in e.path) or "(top level)"
    if e.validator == "additionalProperties":
        known = sorted(e.schema.get("properties", {}))
        bad = sorted(set(e.instance) - set(known))
        hints = []
        for k in bad:
            near = difflib.get_close_matches(k, known, n=1)
            hints.append(f"'{k}'" + (f" (did you mean '{near[0]}'?)" if near else ""))
        raise ManifestError(f"{path}: [{where}] has unknown key {', '.join(hints)}; allowed: {', '.join(known)}")
    raise ManifestError(f"{path}: [{where}]: {e.message}")
_TYPES = {"int", "float", "bool", "choice", "size", "duration", "intlist", "str"}


def load(root: Path | None = None) -> Manifest:
    root = root or project_root()
    path = root / MANIFEST
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{path}: not valid TOML: {e}") from None
    except OSError as e:
        raise ManifestError(f"{path}: cannot read: {e.strerror}") from None
    validate_raw(raw, path)
    book = raw.get("book", {})
    for key in ("title", "author"):
        if key not in book:
            raise ManifestError(f"{path}: [book] needs '{key}'")
    images = {}
    suite = suite_choice()
    for name, im in raw.get("images", {}).items():
        ctx = root / im["context"]
        default_inputs = (str((ctx.relative_to(root) / "**" / "*").as_posix()),)
        tag = im["tag"] if suite == SUITES[0] else f"{im['tag']}-{suite}"
        default = root / im["dockerfile"] if "dockerfile" in im else ctx / "Dockerfile"
        # a Dockerfile of its own on a release where the first release's recipe does not hold
        own = im.get("suites", {}).get(suite)
        images[name] = Image(name, tag, ctx, root / own if own else default, im.get("description", ""),
                             tuple(im.get("inputs", default_inputs)),
                             root / im["seccomp"] if "seccomp" in im else None, suite, default)
    chapters = []
    for c in raw.get("chapters", []):
        chapters.append(Chapter(c["id"], c["title"], Path(c["file"]), c.get("lab"), bool(c.get("case_study", False))))
    labs = {}
    for name, lb in raw.get("labs", {}).items():
        params = {}
        for pname, p in lb.get("params", {}).items():
            extra = set(p) - _PARAM_KEYS
            if extra:
                raise ManifestError(f"lab {name} parameter {pname}: unknown keys {sorted(extra)}")
            if p.get("type") not in _TYPES:
                raise ManifestError(f"lab {name} parameter {pname}: type must be one of {sorted(_TYPES)}")
            if "default" not in p:
                raise ManifestError(f"lab {name} parameter {pname}: needs a default")
            params[pname] = Param(pname, p["type"], p["default"], p.get("help", ""), p.get("min"),
                                  p.get("max"), tuple(p.get("choices", ())), p.get("multiple_of"))
            try:
                convert(params[pname], p["default"])
            except ValueError as e:
                raise ManifestError(f"{path}: [labs.{name}.params.{pname}] default {p['default']!r}: {e}") from None
        presets = {k: dict(v) for k, v in lb.get("presets", {}).items()}
        for req in ("smoke", "full"):
            if req not in presets:
                raise ManifestError(f"lab {name}: needs a '{req}' preset")
        labs[name] = Lab(
            name=name, title=lb.get("title", name), chapter=lb["chapter"],
            module_path=root / lb["module"], jobs_dir=(root / lb["jobs"]) if "jobs" in lb else None,
            images=list(lb.get("images", [])), requires=list(lb.get("requires", [])),
            description=lb.get("description", ""), params=params, presets=presets,
            disk={k: float(v) for k, v in lb.get("disk", {}).items()},
            reference_runs=int(lb.get("reference_runs", 1)),
            unsupported=dict(lb.get("unsupported", {})),
        )
    m = Manifest(root, book, raw.get("budget", {}), chapters, labs, images)
    _check(m)
    return m


def _check(m: Manifest) -> None:
    ids = [c.id for c in m.chapters]
    if len(set(ids)) != len(ids):
        raise ManifestError("chapter ids must be unique")
    for c in m.chapters:
        if not (m.root / c.file).is_file():
            raise ManifestError(f"chapter {c.id}: {c.file} does not exist")
        if c.lab and c.lab not in m.labs:
            raise ManifestError(f"chapter {c.id}: lab {c.lab} is not defined")
        if c.case_study and not c.lab:
            raise ManifestError(f"chapter {c.id}: case_study = true needs a lab")
    for im in m.images.values():
        if im.seccomp is not None and not im.seccomp.is_file():
            raise ManifestError(f"image {im.name}: seccomp profile {im.seccomp.relative_to(m.root)} does not exist")
    for lab in m.labs.values():
        if lab.chapter not in ids:
            raise ManifestError(f"lab {lab.name}: chapter {lab.chapter} is not in [[chapters]]")
        for im in lab.images:
            if im not in m.images:
                raise ManifestError(f"lab {lab.name}: image {im} is not defined in [images]")
        for p in lab.disk:
            if p not in lab.params:
                raise ManifestError(f"{m.root / MANIFEST}: [labs.{lab.name}] disk names parameter {p}, which "
                                    f"has no [labs.{lab.name}.params.{p}] table")
        for pname, preset in lab.presets.items():
            for k in preset:
                if k not in lab.params:
                    raise ManifestError(f"{m.root / MANIFEST}: [labs.{lab.name}.presets.{pname}] sets parameter {k}, "
                                        f"which has no [labs.{lab.name}.params.{k}] table")
