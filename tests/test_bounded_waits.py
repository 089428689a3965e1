"""Every wait has a limit (issue 40): a wait without one turns a hung engine, mirror or child into a run
that never ends. This walks the syntax of perflab/ and labs/ and fails on a new unbounded wait:

    subprocess.run/call/check_call/check_output without timeout=
    .wait() / .join() / .get() with no argument, .communicate() or .wait(timeout=None) without a limit
    requests.get/post/... and urlopen without a timeout
    a Docker client's containers.run(...) that is not detach=True (it waits for the container's end)
    fcntl.flock(fd, LOCK_EX) without LOCK_NB (a queue behind whoever holds it)
    `while True:` that sleeps and never reads a clock (no deadline)

ALLOWED lists the few legitimate ones, each with its reason; an entry that no longer matches fails too,
so the list stays the list of the waits there are.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SUBPROCESS = {"run", "call", "check_call", "check_output"}
REQUESTS = {"get", "post", "put", "delete", "head", "patch", "request"}
CLOCKS = {"time", "monotonic", "perf_counter", "monotonic_ns", "time_ns"}

#: (file, text on the line, rule): why this wait needs no limit of its own
ALLOWED = {
    ("perflab/infra/lock.py", "fcntl.flock(fd, fcntl.LOCK_EX)", "flock"):
        "the machine's lab lock: a queue behind the lab that is running, itself bounded by its own limits "
        "(the notebook's, each container's); the waiting user is told who holds it and can Ctrl-C",
    ("perflab/run/record.py", "fcntl.flock(lk, fcntl.LOCK_EX)", "flock"):
        "run.json's lock: held only for one read-change-write of a small file",
    ("perflab/infra/hostobjects.py", "proc.wait()", "wait"):
        "after SIGKILL to a process perflab started: the kernel ends it",
    ("perflab/analysis/heatmap/sources.py", "item, exc = q.get()", "get"):
        "prefetch's consumer: its producer thread always ends with a last item (or its exception), so the "
        "wait lasts as long as reading the next piece of the file the caller iterates",
    ("perflab/run/conditions.py", "out, err = proc.communicate()", "communicate"):
        "after the child was killed: collects what it wrote",
}


def _name(node: ast.AST) -> str:
    """The dotted name of a call's function, as far as it is names ("subprocess.run", "c.wait")."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return "?"


def _kw(call: ast.Call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _none(v) -> bool:
    return isinstance(v, ast.Constant) and v.value is None


def call_rule(call: ast.Call, subprocess_names: set[str]) -> str | None:
    """The rule an unbounded call breaks, or None."""
    f = call.func
    name = _name(f)
    attr = f.attr if isinstance(f, ast.Attribute) else name
    timeout = _kw(call, "timeout")
    has_timeout = timeout is not None and not _none(timeout)
    starred = any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
    if starred:
        return None
    if (name in {f"subprocess.{n}" for n in SUBPROCESS} or name in subprocess_names) and not has_timeout:
        return "subprocess"
    if attr == "wait" and isinstance(f, ast.Attribute) and (not call.args and not has_timeout or _none(timeout)):
        return "wait"
    if attr == "communicate" and isinstance(f, ast.Attribute) and len(call.args) < 2 and not has_timeout:
        return "communicate"
    if attr == "join" and isinstance(f, ast.Attribute) and not call.args and not has_timeout:
        return "join"
    if attr == "get" and isinstance(f, ast.Attribute) and not call.args and not call.keywords:
        return "get"
    if name.startswith("requests.") and attr in REQUESTS and not has_timeout:
        return "requests"
    if attr == "urlopen" and len(call.args) < 3 and not has_timeout:
        return "urlopen"
    if name.endswith("containers.run"):
        detach = _kw(call, "detach")
        if not (isinstance(detach, ast.Constant) and detach.value is True):
            return "containers.run"
    if attr == "flock" and len(call.args) >= 2 and "LOCK_EX" in ast.unparse(call.args[1]) \
            and "LOCK_NB" not in ast.unparse(call.args[1]):
        return "flock"
    return None


def _endless_sleep(loop: ast.While) -> bool:
    """`while True:` whose body sleeps and reads no clock (nothing it could compare with a deadline)."""
    if not (isinstance(loop.test, ast.Constant) and loop.test.value is True):
        return False
    calls = [_name(n.func).rsplit(".", 1)[-1] for n in ast.walk(loop) if isinstance(n, ast.Call)]
    names = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name)}
    deadline = any(c in CLOCKS for c in calls) or any(w in n for n in names for w in ("deadline", "t_end", "until"))
    return "sleep" in calls and not deadline


def unbounded(source: str, path: str = "<snippet>") -> list[tuple[str, int, str, str]]:
    """(path, line, rule, the line's text) for every unbounded wait in `source`."""
    tree = ast.parse(source)
    lines = source.splitlines()
    subprocess_names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                        and n.module == "subprocess" for a in n.names if a.name in SUBPROCESS}
    out = []
    for node in ast.walk(tree):
        rule = None
        if isinstance(node, ast.Call):
            rule = call_rule(node, subprocess_names)
        elif isinstance(node, ast.While) and _endless_sleep(node):
            rule = "endless-sleep"
        if rule:
            out.append((path, node.lineno, rule, lines[node.lineno - 1].strip()))
    return out


def files() -> list[Path]:
    return sorted(p for d in ("perflab", "labs") for p in (ROOT / d).rglob("*.py"))


def found() -> list[tuple[str, int, str, str]]:
    return [w for p in files() for w in unbounded(p.read_text(), str(p.relative_to(ROOT)))]


def _allowed(w) -> tuple | None:
    path, _, rule, text = w
    return next((k for k in ALLOWED if k[0] == path and k[2] == rule and k[1] in text), None)


def test_every_wait_has_a_limit():
    bad = [f"{p}:{n}: {rule}: {text}" for p, n, rule, text in found() if _allowed((p, n, rule, text)) is None]
    assert not bad, "waits without a limit (give each one, or allow it in ALLOWED with the reason):\n" + "\n".join(bad)


def test_every_allowed_wait_is_still_there():
    used = {_allowed(w) for w in found()}
    assert not [k for k in ALLOWED if k not in used], "ALLOWED names waits that are gone: drop them"


@pytest.mark.parametrize("snippet,rule", [
    ("import subprocess\nsubprocess.run(['jupyter-book', 'build'])", "subprocess"),
    ("from subprocess import check_output\ncheck_output(['git', 'log'])", "subprocess"),
    ("res = c.wait()", "wait"),
    ("res = c.wait(timeout=None)", "wait"),
    ("out, err = proc.communicate(b'x')", "communicate"),
    ("t.join()", "join"),
    ("item = q.get()", "get"),
    ("import requests\nrequests.get('http://x')", "requests"),
    ("from urllib.request import urlopen\nurlopen('http://x')", "urlopen"),
    ("client.containers.run('debian', ['sleep', '9'])", "containers.run"),
    ("fcntl.flock(fd, fcntl.LOCK_EX)", "flock"),
    ("import time\nwhile True:\n    if done():\n        break\n    time.sleep(1)", "endless-sleep"),
])
def test_a_planted_unbounded_wait_is_found(snippet, rule):
    assert [w[2] for w in unbounded(snippet)] == [rule]


@pytest.mark.parametrize("snippet", [
    "import subprocess\nsubprocess.run(['true'], timeout=10)",
    "res = c.wait(timeout=60)",
    "proc.wait(10)",
    "out, err = proc.communicate(timeout=5)",
    "t.join(timeout=5)",
    "' '.join(parts)",
    "d.get('k')",
    "client.containers.run('debian', ['true'], detach=True)",
    "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)",
    "import time\nt_end = time.time() + 5\nwhile True:\n    if time.time() > t_end:\n        break\n    time.sleep(1)",
])
def test_a_bounded_wait_is_not_flagged(snippet):
    assert unbounded(snippet) == []
