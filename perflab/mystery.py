"""Mystery labs: a lab variant whose planted fault is hidden from the student who runs it.

This module holds what the three parties share: the mystery *spec* of a lab (book.toml
`[labs.X.mystery]`), the *variant space* and the deterministic draw, *sealing* (so that planted
values are not readable in plain text), and the *run side* of a mystery run: masking the planted
parameters in run.json, sealing the metrics that would give the answer away, scrubbing the lab's
raw files, and signing what the run measured. `perflab.assign` writes the class's packages and the
answer key from it; `perflab.grade` marks submissions against that key.

The spec, as data in book.toml (adding a lab's mystery needs no code, only a thin student notebook):

    [labs.bad-cable.mystery]
    notebook = "chapters/mystery/bad-cable.md"   # the student notebook (MyST), copied into each package
    preset = "smoke"                              # every variant runs this preset ...
    fixed = { clients = 4 }                       # ... with these values, the same for every student
    sealed_metrics = ["detected_outlier", ...]    # run.json metrics that would reveal the answer
    scrub = ["timeline.json:bad_client", "timeline.json:clients.*.mbit_bad"]  # raw-file fields sealed after the run
    [labs.bad-cable.mystery.hidden.bad_client]    # one table per hidden parameter
    draw = "choice"                               # choice (one of values) | subset (k of values) | bool
    values = [1, 2, 3, 4]
    [[labs.bad-cable.mystery.questions]]
    id = "bad_client"; ask = "..."; type = "int"  # int | float | str | path | bool | intlist
    truth = "param:bad_client"                    # the planted value, or "metric:NAME" (what the run measured)
    evidence = "metric:detected_outlier"          # optional: the run metric that backs the answer
    tolerance = 0.15                              # floats: relative tolerance; points = 1 by default

Determinism. Every draw is HMAC-SHA256 keyed by the instructor's seed over "purpose|lab|student"
(UTF-8), read as a big-endian integer: the same on every machine and Python version (no `random`,
no `hash()`). The variant space is the product of the hidden parameters' candidates, in a fixed
order (values as listed; subsets as itertools.combinations of the listed values; bool False, True).
A student's preferred variant is draw("variant") modulo the size of the space. Students are taken
in roster order; one whose preferred variant is already taken in this round gets the next free one
(wrapping), so a class no larger than the space gets distinct variants, and appending students to
a roster never changes the variants of those already on it. A class larger than the space is
served in rounds: once every variant is taken, the next student starts a new round, so each variant
is used at most ceil(class / space) times (assign says so). Students sharing a variant still have
their own signing keys and variant ids, so one cannot hand in another's run.

Hiding, honestly. Sealed text is a keyed stream cipher (HMAC-SHA256 in counter mode) with an
authentication tag; its key derives from a constant in this file and the lab name. It keeps the
planted values out of plain sight (variant file, run.json, notebook, raw files the lab writes), and
it detects edits; it is not secrecy: a student who reads this code can unseal their own variant.
The grade's integrity check is of the same kind: the signing key travels, sealed, with the variant.
What is *not* hidden: the evidence itself (the per-client counters are the point of the exercise),
and structure a lab's raw files may show (the elinks lab writes its tracing files only under the
buggy desktop's directory).
"""
from __future__ import annotations

from .errors import Refused

import base64
import hashlib
import hmac
import itertools
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import params as params_mod
from .manifest import Lab, Manifest

FORMAT = "perflab-mystery/1"
SEALED = "sealed"  # what a masked parameter shows in run.json
STAMP_PREFIX = "PERFLAB-STAMP "
_PEPPER = b"perflab mystery labs: sealed, not secret"
_DRAWS = ("choice", "subset", "bool")
_QTYPES = ("int", "float", "str", "path", "bool", "intlist")
_SPEC_KEYS = {"notebook", "preset", "fixed", "sealed_metrics", "scrub", "hidden", "questions"}
_Q_KEYS = {"id", "ask", "type", "truth", "evidence", "tolerance", "points"}
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class MysteryError(Refused, ValueError):
    """A mystery spec, variant file or sealed text is missing, malformed or does not fit."""


# ------------------------------------------------------------------------------ sealing

def canonical(obj) -> bytes:
    """The one byte string a JSON value signs as: sorted keys, no spaces, ASCII."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _stream(key: bytes, nonce: bytes, n: int) -> bytes:
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hmac.new(key, nonce + i.to_bytes(8, "big"), hashlib.sha256).digest()
        i += 1
    return bytes(out[:n])


def _seal_key(context: str) -> bytes:
    return hmac.new(_PEPPER, b"seal|" + context.encode(), hashlib.sha256).digest()


def seal(obj, context: str) -> str:
    """JSON value -> "sealed1:<base64>" (not readable in plain text; any edit is detected)."""
    key, data = _seal_key(context), canonical(obj)
    nonce = hmac.new(key, b"nonce|" + data, hashlib.sha256).digest()[:16]  # deterministic output
    ct = bytes(a ^ b for a, b in zip(data, _stream(key, nonce, len(data))))
    tag = hmac.new(key, nonce + ct, hashlib.sha256).digest()[:16]
    return "sealed1:" + base64.b64encode(nonce + tag + ct).decode()


def unseal(text: str, context: str):
    if not isinstance(text, str) or not text.startswith("sealed1:"):
        raise MysteryError("not sealed text")
    try:
        raw = base64.b64decode(text[8:], validate=True)
    except ValueError:
        raise MysteryError("sealed text is damaged (not base64)") from None
    key = _seal_key(context)
    nonce, tag, ct = raw[:16], raw[16:32], raw[32:]
    if not hmac.compare_digest(tag, hmac.new(key, nonce + ct, hashlib.sha256).digest()[:16]):
        raise MysteryError("sealed text was edited or belongs to another lab")
    return json.loads(bytes(a ^ b for a, b in zip(ct, _stream(key, nonce, len(ct)))))


def sign(obj, key_hex: str) -> str:
    return hmac.new(bytes.fromhex(key_hex), canonical(obj), hashlib.sha256).hexdigest()


def verify(obj, key_hex: str, signature: str) -> bool:
    return isinstance(signature, str) and hmac.compare_digest(sign(obj, key_hex), signature)


def draw(seed: str, *parts: str) -> int:
    """A 256-bit integer from the seed and a purpose/lab/student path: stable everywhere."""
    return int.from_bytes(hmac.new(seed.encode(), "|".join(parts).encode(), hashlib.sha256).digest(), "big")


def jsonable(v):
    """A value as it reads back from run.json (numpy scalars to Python, NaN to null)."""
    from .record import _clean, _jsonable

    return json.loads(json.dumps(_clean(v), default=_jsonable))


# ------------------------------------------------------------------------------ the spec

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
        if ":" not in item:
            raise MysteryError(f"{where}: scrub entries are FILE:KEY.PATH (got {item})")
    s = Spec(lab, nb, r["preset"], fixed, hidden, questions, tuple(r.get("sealed_metrics", ())),
             tuple(r.get("scrub", ())))
    names = list(hidden)
    s.space = [dict(zip(names, combo)) for combo in itertools.product(*(hidden[n].candidates() for n in names))]
    for v in s.space:
        s.validate(v)
    return s


# ------------------------------------------------------------------------------ variants

def assign_variants(s: Spec, seed: str, students: list[str]) -> dict[str, dict]:
    """Hidden values per student (see the module docstring: preferred draw, next free, rounds)."""
    size = len(s.space)
    used: set[int] = set()
    out = {}
    for sid in students:
        if len(used) == size:
            used = set()  # every variant is taken: a new round
        i = draw(seed, "variant", s.lab.name, sid) % size
        while i in used:
            i = (i + 1) % size
        used.add(i)
        out[sid] = dict(s.space[i])
    return out


def sign_key(seed: str, lab: str, student: str) -> str:
    return (draw(seed, "sign", lab, student).to_bytes(32, "big")).hex()


def variant_id(seed: str, lab: str, student: str) -> str:
    return f"{draw(seed, 'variant-id', lab, student):064x}"[:16]


def text_values(s: Spec, hidden_values: dict) -> dict:
    """Hidden values as a user writes them (book.toml units), for run.json and the key."""
    values = s.validate(hidden_values)
    return {k: params_mod.describe(values, s.lab)[k] for k in hidden_values}


def variant_doc(s: Spec, seed: str, student: str, hidden_values: dict) -> dict:
    """The student's sealed variant file: what `perflab run LAB --variant FILE` needs."""
    secret = {"hidden": text_values(s, hidden_values), "sign_key": sign_key(seed, s.lab.name, student)}
    return {"format": FORMAT, "lab": s.lab.name, "student": student,
            "variant_id": variant_id(seed, s.lab.name, student), "preset": s.preset,
            "fixed": {k: str(v) for k, v in s.fixed.items()}, "sealed": seal(secret, s.lab.name)}


@dataclass
class Variant:
    """An opened variant file (runner side)."""
    lab: str
    student: str
    variant_id: str
    preset: str
    fixed: dict
    hidden: dict  # text values
    sign_key: str
    sealed: str
    notebook: Path

    def overrides(self) -> list[str]:
        return [f"{k}={v}" for k, v in {**self.fixed, **self.hidden}.items()]


def load_variant(m: Manifest, path) -> Variant:
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise MysteryError(f"variant file {path}: cannot read it ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise MysteryError(f"variant file {path}: not a perflab variant ({FORMAT})")
    s = spec(m, doc.get("lab", "?"))
    secret = unseal(doc.get("sealed"), s.lab.name)
    if set(secret.get("hidden", {})) != set(s.hidden):
        raise MysteryError(f"variant file {path}: its hidden parameters do not match the lab's mystery spec")
    nb = path.parent / f"{s.lab.name}-mystery.md"
    return Variant(s.lab.name, doc["student"], doc["variant_id"], doc["preset"], doc.get("fixed", {}),
                   secret["hidden"], secret["sign_key"], doc["sealed"], nb if nb.is_file() else s.notebook)


# ------------------------------------------------------------------------------ the run side

def mask_run_doc(doc: dict, v: Variant) -> dict:
    """run.json's first version for a mystery run: planted values masked, the variant sealed."""
    d = dict(doc)
    d["params"] = {k: (SEALED if k in v.hidden else x) for k, x in doc["params"].items()}
    d["params_text"] = {k: (SEALED if k in v.hidden else x) for k, x in doc["params_text"].items()}
    d["mystery"] = {"format": FORMAT, "student": v.student, "variant_id": v.variant_id, "variant": v.sealed}
    return d


class RunSeal:
    """The mystery part of a live session: unseals the variant, seals the answer-giving metrics,
    scrubs the raw files, signs the record."""

    def __init__(self, lab: Lab, section: dict, sealed_metrics=(), scrub=()):
        self.lab, self.section = lab, section
        secret = unseal(section["variant"], lab.name)
        self.hidden_text: dict = secret["hidden"]
        self._key: str = secret["sign_key"]
        self.sealed_names = set(sealed_metrics)
        self.scrub_items = tuple(scrub)

    @classmethod
    def from_doc(cls, m: Manifest, lab: Lab, doc: dict) -> "RunSeal":
        s = spec(m, lab.name)
        return cls(lab, doc["mystery"], s.sealed_metrics, s.scrub)

    def metric(self, record, kv: dict) -> dict:
        """Seal the answer-giving metrics into run.json's mystery section; return the others."""
        hide = {k: jsonable(v) for k, v in kv.items() if k in self.sealed_names}
        if hide and record is not None:
            def f(d):
                cur = unseal(d["mystery"]["sealed_metrics"], self.lab.name) if d["mystery"].get("sealed_metrics") else {}
                d["mystery"]["sealed_metrics"] = seal({**cur, **hide}, self.lab.name)
            record.update(f)
        return {k: v for k, v in kv.items() if k not in self.sealed_names}

    def stamp(self, doc: dict) -> dict:
        """What the run measured, signed: plain metrics, the sealed ones (as sealed), the variant."""
        body = {"format": FORMAT, "lab": doc["lab"], "run_id": doc["run_id"], "preset": doc.get("preset"),
                "student": self.section["student"], "variant_id": self.section["variant_id"],
                "params_text": doc["params_text"], "metrics": doc.get("metrics", {}),
                "sealed_metrics": doc["mystery"].get("sealed_metrics")}
        return {**body, "signature": sign(body, self._key)}

    def finish(self, record, data_dir: Path) -> str:
        """Scrub the raw files, sign, store the stamp in run.json; return the stamp line the
        notebook prints (a submission that is only the notebook still carries its evidence)."""
        scrub_files(data_dir, self.scrub_items, self.lab.name)
        st = self.stamp(record.read())
        record.update(lambda d: d["mystery"].update(stamp=st))
        return STAMP_PREFIX + base64.b64encode(canonical(st)).decode()


def _scrub_obj(obj, keys: list[str], sealer):
    if not keys:
        return sealer(obj)
    k, rest = keys[0], keys[1:]
    if isinstance(obj, dict):
        for name in (list(obj) if k == "*" else [k]):
            if name in obj:
                obj[name] = _scrub_obj(obj[name], rest, sealer)
    return obj


def scrub_files(data_dir: Path, items, context: str) -> list[str]:
    """Replace FILE:KEY.PATH values (JSON files of the run; '*' matches every key) with sealed
    text. Idempotent: sealed text is left as it is. Returns the files changed."""
    from .record import write_json_atomic

    changed = []
    by_file: dict[str, list[str]] = {}
    for item in items:
        f, _, path = item.partition(":")
        by_file.setdefault(f, []).append(path)
    for f, paths in by_file.items():
        p = Path(data_dir) / f
        if not p.is_file():
            continue
        doc = json.loads(p.read_text())
        for path in paths:
            doc = _scrub_obj(doc, path.split("."),
                             lambda v: v if isinstance(v, str) and v.startswith("sealed1:") else seal(v, context))
        write_json_atomic(p, doc)
        changed.append(f)
    return changed


def parse_stamp_line(text: str) -> dict | None:
    """The last stamp line in a text (a notebook's outputs), decoded; None if there is none."""
    found = None
    for line in text.splitlines():
        line = line.strip().strip('"').strip()
        if line.startswith(STAMP_PREFIX):
            try:
                found = json.loads(base64.b64decode(line[len(STAMP_PREFIX):].strip(), validate=True))
            except ValueError:
                found = {"damaged": True}
    return found


# ------------------------------------------------------------------------------ the student notebook

def open_session(lab: str, run: str = "smoke", params: dict | None = None, run_dir: str | None = None):
    """The student notebook's session: a mystery run exists only as started by
    `perflab run LAB --variant FILE` (which seals the planted values into run.json)."""
    from . import session

    if run == session.REFERENCE or not run_dir:
        raise MysteryError("a mystery notebook runs through `scripts/perflab run LAB --variant variant.json` "
                           "(it needs the run directory that command makes)")
    s = session.open(lab, run=run, params=params, run_dir=run_dir)
    if getattr(s, "mystery", None) is None:
        raise MysteryError(f"run {run_dir} is not a mystery run (no sealed variant in its run.json)")
    return s


def finish(s) -> None:
    """The last cell of a student notebook: scrub, sign, print the stamp, close the session."""
    print(s.mystery.finish(s.record, s.data_dir))
    s.finish()


def per_entity_figure(df, title: str, y_title: str, names: dict | None = None, scale: float = 1.0,
                      t0: float | None = None, vline: tuple[float, str] | None = None):
    """Lines, one per column, all drawn alike (a mystery figure must not single anything out)."""
    import plotly.graph_objects as go

    t0 = df.index.min() if t0 is None else t0
    fig = go.Figure()
    for c in sorted(df.columns):
        fig.add_scatter(x=df.index - t0, y=df[c] * scale, mode="lines", name=(names or {}).get(c, str(c)),
                        line={"width": 1.5})
    if vline:
        fig.add_vline(x=vline[0] - t0, line_dash="dash", line_color="black")
        fig.add_annotation(x=vline[0] - t0, y=1, yref="paper", text=vline[1], showarrow=False, xanchor="left",
                           yanchor="bottom")
    fig.update_layout(title=title, xaxis_title="time (s)", yaxis_title=y_title, height=380)
    return fig
