"""run.json: one run's record, updated atomically by the runner and by the lab's notebook kernel.

Every update takes an exclusive lock on the run directory, reads run.json, changes it and replaces it
with os.replace (write to a temporary file, fsync, rename): a reader never sees half a file, and a
run killed at any moment leaves the last complete record, whose status stays "incomplete" until the
runner says otherwise. Schema (front page, "What a run leaves"):

    status      incomplete | complete | failed
    lab, preset, run_id
    params      typed values; params_text: the same as written by a user (sizes with units)
    provenance  git SHA and dirty flag, fio version inside the image, image ids, kernel, CPU, times
    metrics     headline numbers, by name
    checks      [{name, passed, value, expected}]
    phases      [{name, started, ended, expected_s}]
    sanity      [{rule, source, job, ddir, saw, message, why}]: benchmarking-trap warnings (perflab.analysis.sanity)
    error       the one line that says why a run did not complete (null if it did)
    failure     why it stopped, named by its cause where it was caught (perflab.errors.Failure):
                {kind: disk-full | engine-lost | oom-killed | timeout, where, message}; absent otherwise
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import tempfile
from pathlib import Path

RUN_JSON = "run.json"
STATUSES = ("incomplete", "complete", "failed")


def write_json_atomic(path: Path, data) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False, default=_jsonable) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """`text` to `path` all or nothing: a temporary file beside it, synced, renamed into place."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _jsonable(o):
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if not math.isfinite(float(o)) else float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


def _clean(v):
    """NaN and infinity are not JSON: store them as null."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def as_stored(v):
    """A value as it reads back from run.json (numpy scalars to Python, NaN and infinity to null)."""
    return json.loads(json.dumps(_clean(v), default=_jsonable))


def read_lines(path) -> list[str]:
    """A run file's lines, or those of PATH.gz (reference runs keep large files gzipped); [] if
    neither exists."""
    import gzip

    path = Path(path)
    if path.exists():
        return path.read_text(errors="replace").splitlines()
    gz = path.with_name(path.name + ".gz")
    if gz.exists():
        with gzip.open(gz, "rt", errors="replace") as f:
            return f.read().splitlines()
    return []


def params_of(run_dir) -> dict:
    """The parameters a run was made with, as its run.json keeps them: a lab's `load` reads them from
    the run itself, so that `summary(data)` needs nothing else (perflab.run.labcontract)."""
    return RunRecord(run_dir).read().get("params", {})


class RunRecord:
    """The run.json of one run directory."""

    def __init__(self, run_dir: Path):
        self.dir = Path(run_dir)
        self.path = self.dir / RUN_JSON

    @contextlib.contextmanager
    def _locked(self):
        with open(self.dir / ".run.lock", "a") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lk, fcntl.LOCK_UN)

    def read(self) -> dict:
        with open(self.path) as f:
            return json.load(f)

    def create(self, doc: dict) -> None:
        base = {"schema": 1, "status": "incomplete", "metrics": {}, "checks": [], "phases": [],
                "provenance": {}, "error": None}
        base.update(doc)
        with self._locked():
            write_json_atomic(self.path, _clean(base))

    def update(self, fn) -> dict:
        """Apply fn(doc) -> None under the lock and write the result atomically."""
        with self._locked():
            doc = self.read()
            fn(doc)
            write_json_atomic(self.path, _clean(doc))
            return doc

    # The operations the runner and the notebook need.
    def set_status(self, status: str, error: str | None = None) -> dict:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}")

        def f(d):
            d["status"] = status
            if error:
                d["error"] = error
        return self.update(f)

    def failure(self, failure: dict) -> dict:
        """Why the run stopped, named by its cause (perflab.errors.Failure.record()); the first one
        recorded stays (a later failure is what the first one caused)."""
        def f(d):
            if not d.get("failure"):
                d["failure"] = failure
        return self.update(f)

    def provenance(self, **kv) -> dict:
        return self.update(lambda d: d["provenance"].update(kv))

    def metric(self, **kv) -> dict:
        return self.update(lambda d: d["metrics"].update(kv))

    def check(self, name: str, passed: bool | None, value, expected: str, not_shown: str | None = None) -> dict:
        """A check's outcome (perflab.analysis.checks): passed None with its reason is "not shown here"."""
        item = {"name": name, "passed": None if passed is None else bool(passed), "value": value, "expected": expected}
        if not_shown:
            item["not_shown"] = not_shown

        def f(d):
            d["checks"] = [c for c in d["checks"] if c["name"] != name] + [item]
        return self.update(f)

    def sanity(self, findings: list[dict]) -> dict:
        """The sanity rules' findings (perflab.analysis.sanity): warnings, not checks."""
        return self.update(lambda d: d.__setitem__("sanity", findings))

    def phase(self, name: str, started: float, ended: float | None, expected_s: float | None) -> dict:
        def f(d):
            for p in d["phases"]:
                if p["name"] == name:
                    p.update(started=started, ended=ended, expected_s=expected_s)
                    return
            d["phases"].append({"name": name, "started": started, "ended": ended, "expected_s": expected_s})
        return self.update(f)
