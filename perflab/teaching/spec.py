"""The mystery spec of a lab: book.toml `[labs.X.mystery]` read, checked and expanded into its
variant space (every variant validated against the lab's parameter schema before anything is
written). The table's form is in perflab.teaching's docstring."""
from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from perflab.config import params as params_mod
from perflab.config.manifest import Lab, Manifest
from perflab.teaching.sealing import MysteryError

FORMAT = "perflab-mystery/1"
SEALED = "sealed"  # what a masked parameter shows in run.json
STAMP_PREFIX = "PERFLAB-STAMP "
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_DRAWS = ("choice", "subset", "bool")
_QTYPES = ("int", "float", "str", "path", "bool", "intlist")
_SPEC_KEYS = {"notebook", "preset", "fixed", "sealed_metrics", "scrub", "hidden", "questions"}
_Q_KEYS = {"id", "ask", "type", "truth", "evidence", "tolerance", "points"}


@dataclass(frozen=True)
class Hidden:
    name: str
    draw: str
    values: tuple = ()
    k: int | None = None

    def candidates(self) -> list:
        if self.draw == "bool":
            return [False, True]
        if self.draw == "subset":
            return [list(c) for c in itertools.combinations(self.values, self.k)]
        return list(self.values)


@dataclass(frozen=True)
class Question:
    id: str
    ask: str
    type: str
    truth: str  # "param:NAME" or "metric:NAME"
    evidence: str | None = None
    tolerance: float = 0.0
    points: float = 1.0

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("id", "ask", "type", "truth", "evidence", "tolerance", "points")}


@dataclass
class Spec:
    lab: Lab
    notebook: Path
    preset: str
    fixed: dict
    hidden: dict[str, Hidden]
    questions: list[Question]
    sealed_metrics: tuple = ()
    scrub: tuple = ()
    space: list[dict] = field(default_factory=list)

    def overrides(self, hidden_values: dict) -> dict:
        return {**self.fixed, **hidden_values}

    def validate(self, hidden_values: dict) -> dict:
        """The variant's full parameter values, validated like any run's (book.toml schema)."""
        try:
            return params_mod.resolve(self.lab, self.preset, self.overrides(hidden_values))
        except params_mod.ParamError as e:
            raise MysteryError(f"lab {self.lab.name}: mystery variant {hidden_values} is refused:\n{e}") from None


def raw_specs(m: Manifest) -> dict:
    with open(m.root / "book.toml", "rb") as f:
        raw = tomllib.load(f)
    return {name: lb["mystery"] for name, lb in raw.get("labs", {}).items() if "mystery" in lb}


def labs_with_mystery(m: Manifest) -> list[str]:
    return sorted(raw_specs(m))


def _keys(table: dict, allowed: set, required: tuple, where: str) -> None:
    extra = set(table) - allowed
    if extra:
        raise MysteryError(f"{where}: unknown keys {sorted(extra)}")
    for key in required:
        if key not in table:
            raise MysteryError(f"{where}: needs '{key}'")


def spec(m: Manifest, lab_name: str) -> Spec:
    """Read and check [labs.LAB.mystery]; every variant of the space is validated against the
    lab's parameter schema before anything is written."""
    lab = m.lab(lab_name)
    specs = raw_specs(m)
    if lab_name not in specs:
        raise MysteryError(f"lab {lab_name} has no mystery ([labs.{lab_name}.mystery] in book.toml); labs "
                           f"with one: {', '.join(sorted(specs)) or 'none'}")
    r = specs[lab_name]
    where = f"[labs.{lab_name}.mystery]"
    _keys(r, _SPEC_KEYS, ("notebook", "preset", "hidden", "questions"), where)
    if r["preset"] not in lab.presets:
        raise MysteryError(f"{where}: preset {r['preset']} is not a preset of the lab")
    nb = m.root / r["notebook"]
    if not nb.is_file():
        raise MysteryError(f"{where}: notebook {r['notebook']} does not exist")
    hidden = {}
    for name, h in r["hidden"].items():
        if name not in lab.params:
            raise MysteryError(f"{where}: hidden parameter {name} is not a parameter of the lab")
        d = h.get("draw")
        if d not in _DRAWS:
            raise MysteryError(f"{where}.hidden.{name}: draw must be one of {', '.join(_DRAWS)}")
        vals = tuple(h.get("values", ()))
        if d in ("choice", "subset") and len(vals) < 2 and not (d == "subset" and vals):
            raise MysteryError(f"{where}.hidden.{name}: needs values (at least two to choose from)")
        if len(set(map(str, vals))) != len(vals):
            raise MysteryError(f"{where}.hidden.{name}: a value is listed twice")
        k = h.get("k")
        if d == "subset" and not (isinstance(k, int) and 1 <= k <= len(vals)):
            raise MysteryError(f"{where}.hidden.{name}: subset needs k between 1 and {len(vals)}")
        want = {"choice": None, "subset": "intlist", "bool": "bool"}[d]
        if want and lab.params[name].type != want:
            raise MysteryError(f"{where}.hidden.{name}: draw {d} needs a {want} parameter, "
                               f"{name} is {lab.params[name].type}")
        hidden[name] = Hidden(name, d, vals, k)
    fixed = dict(r.get("fixed", {}))
    clash = set(fixed) & set(hidden)
    if clash:
        raise MysteryError(f"{where}: {sorted(clash)} both fixed and hidden")
    questions, seen = [], set()
    for q in r["questions"]:
        _keys(q, _Q_KEYS, ("id", "ask", "type", "truth"), f"{where} question {q.get('id')}")
        if q["id"] in seen or q["id"] == "student":
            raise MysteryError(f"{where}: question id {q['id']} is used twice or reserved")
        seen.add(q["id"])
        if q["type"] not in _QTYPES:
            raise MysteryError(f"{where} question {q['id']}: type must be one of {', '.join(_QTYPES)}")
        for key in ("truth", "evidence"):
            ref = q.get(key)
            if ref is None:
                continue
            kind, _, name = str(ref).partition(":")
            if kind == "param" and name not in hidden:
                raise MysteryError(f"{where} question {q['id']}: {key} {ref} names no hidden parameter")
            if kind == "metric" and name not in r.get("sealed_metrics", ()):
                raise MysteryError(f"{where} question {q['id']}: {key} {ref} must be one of sealed_metrics "
                                   "(a number the student cites is read from the evidence, not from run.json)")
            if kind not in ("param", "metric"):
                raise MysteryError(f"{where} question {q['id']}: {key} must be param:NAME or metric:NAME")
        questions.append(Question(q["id"], q["ask"], q["type"], q["truth"], q.get("evidence"),
                                  float(q.get("tolerance", 0.0)), float(q.get("points", 1.0))))
    for item in r.get("scrub", ()):
        f, colon, path = str(item).partition(":")
        if not f or (colon and not path) or f.startswith("/") or ".." in Path(f).parts:
            raise MysteryError(f"{where}: scrub entries are FILE:KEY.PATH or FILE (a whole file), FILE "
                               f"inside the run directory (got {item})")
    s = Spec(lab, nb, r["preset"], fixed, hidden, questions, tuple(r.get("sealed_metrics", ())),
             tuple(r.get("scrub", ())))
    names = list(hidden)
    s.space = [dict(zip(names, combo)) for combo in itertools.product(*(hidden[n].candidates() for n in names))]
    for v in s.space:
        s.validate(v)
    return s
