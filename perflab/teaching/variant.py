"""Variants: who gets which planted values (the deterministic draw), the sealed variant file a
student runs, and the run side of a mystery run (planted parameters masked in run.json, the
answer-giving metrics and raw-file fields sealed, what the run measured signed).

The run layer (perflab.run) knows none of this: `perflab run --variant` opens a `Variant` here and
hands it to the runner, which calls its `mask_run_doc` and `scrub`; the student notebook's session
gets its `RunSeal` from perflab.teaching.student."""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

from perflab.config import params as params_mod
from perflab.config.manifest import Lab, Manifest
from perflab.run.record import as_stored, write_json_atomic, write_text_atomic
from perflab.teaching.sealing import MysteryError, canonical, draw, seal, sign, unseal
from perflab.teaching.spec import FORMAT, SEALED, STAMP_PREFIX, Spec, spec


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
    plain = {"format": FORMAT, "lab": s.lab.name, "student": student,
             "variant_id": variant_id(seed, s.lab.name, student), "preset": s.preset,
             "fixed": {k: str(v) for k, v in s.fixed.items()}}
    # the plain fields are sealed too, so that an edit to any of them is seen (load_variant)
    secret = {"hidden": text_values(s, hidden_values), "sign_key": sign_key(seed, s.lab.name, student),
              "plain": plain}
    return {**plain, "sealed": seal(secret, s.lab.name)}


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

    scrub_items: tuple = ()

    def overrides(self) -> list[str]:
        return [f"{k}={v}" for k, v in {**self.fixed, **self.hidden}.items()]

    def mask_run_doc(self, doc: dict) -> dict:
        """run.json's first version for this variant's run: planted values masked, the variant sealed."""
        d = dict(doc)
        d["params"] = {k: (SEALED if k in self.hidden else x) for k, x in doc["params"].items()}
        d["params_text"] = {k: (SEALED if k in self.hidden else x) for k, x in doc["params_text"].items()}
        d["mystery"] = {"format": FORMAT, "student": self.student, "variant_id": self.variant_id,
                        "variant": self.sealed}
        return d

    def scrub(self, run_dir: Path) -> list[str]:
        """However the run ended, the lab's raw files keep no planted value (book.toml `scrub`)."""
        return scrub_files(run_dir, self.scrub_items, self.lab)


def load_variant(m: Manifest, path) -> Variant:
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise MysteryError(f"variant file {path}: cannot read it ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise MysteryError(f"variant file {path}: not a perflab variant ({FORMAT})")
    s = spec(m, doc.get("lab", "?"))
    try:
        secret = unseal(doc.get("sealed"), s.lab.name)
    except MysteryError as e:
        raise MysteryError(f"variant file {path}: {e}") from None
    edited = sorted(k for k, v in secret.get("plain", {}).items() if doc.get(k) != v)
    if "plain" not in secret or edited:
        raise MysteryError(f"variant file {path}: edited ({', '.join(edited) or 'made by another version'} "
                           "differs from what its seal says): ask for the file again")
    if set(secret.get("hidden", {})) != set(s.hidden):
        raise MysteryError(f"variant file {path}: its hidden parameters do not match the lab's mystery spec")
    nb = path.parent / f"{s.lab.name}-mystery.md"
    return Variant(s.lab.name, doc["student"], doc["variant_id"], doc["preset"], doc.get("fixed", {}),
                   secret["hidden"], secret["sign_key"], doc["sealed"], nb if nb.is_file() else s.notebook,
                   tuple(s.scrub))



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
        hide = {k: as_stored(v) for k, v in kv.items() if k in self.sealed_names}
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


def _sealed(v) -> bool:
    return isinstance(v, str) and v.startswith("sealed1:")


def _rewrite_items(data_dir: Path, items, whole, value) -> list[str]:
    """Apply `value` to every FILE:KEY.PATH value of `items` (JSON files of the run; '*' matches every
    key), and `whole` to the text of every item that is only FILE (None: leave the file). Returns the
    files changed."""
    changed = []
    by_file: dict[str, list[str]] = {}
    for item in items:
        f, colon, path = item.partition(":")
        by_file.setdefault(f, []).append(path if colon else "")
    for f, paths in by_file.items():
        p = Path(data_dir) / f
        if not p.is_file():
            continue
        if "" in paths:
            text = whole(p.read_text())
            if text is not None:
                write_text_atomic(p, text)
                changed.append(f)
            continue
        doc = json.loads(p.read_text())
        for path in paths:
            doc = _scrub_obj(doc, path.split("."), value)
        write_json_atomic(p, doc)
        changed.append(f)
    return changed


def scrub_files(data_dir: Path, items, context: str) -> list[str]:
    """Replace FILE:KEY.PATH values (JSON files of the run; '*' matches every key) with sealed
    text; an item that is only FILE (no ':') seals that file whole (a text file that names a
    planted value, such as `zpool iostat -v` naming the log device). Idempotent: sealed text is
    left as it is. Returns the files changed."""
    return _rewrite_items(data_dir, items, lambda text: None if _sealed(text) else seal(text, context) + "\n",
                          lambda v: v if _sealed(v) else seal(v, context))


def unscrub_files(data_dir: Path, items, context: str) -> list[str]:
    """scrub_files undone, for the grader's copy of a run: every sealed value (or whole sealed file) of
    `items` back in plain text, so that the lab's own load() reads the run as it was made. Returns
    the files changed."""
    return _rewrite_items(data_dir, items, lambda text: unseal(text.strip(), context) if _sealed(text) else None,
                          lambda v: unseal(v, context) if _sealed(v) else v)


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
