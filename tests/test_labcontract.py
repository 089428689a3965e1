"""The lab contract in code (perflab.run.labcontract): a lab that lacks part of it is refused, naming
every missing or wrong name, before anything is created; every lab of book.toml conforms.

The refusals are planted: a lab package written here, each time with one part of the contract (as
labcontract.py's docstring states it) missing or wrong, and the refusal must name that part."""
from pathlib import Path

import pytest

from perflab.config import manifest as manifest_mod
from perflab.errors import Refused
from perflab.run import labcontract

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", list(manifest_mod.load(ROOT).labs))
def test_every_lab_conforms(manifest, name):
    # load refuses a lab that lacks a part; an empty CHECKS passes it, but a chapter must claim something
    assert labcontract.load(manifest.lab(name)).CHECKS, f"lab {name} declares no CHECKS"


def _fake_lab(tmp_path, manifest, files: dict, module: str = "__init__.py"):
    d = tmp_path / "labs" / "fake"
    d.mkdir(parents=True)
    for name, text in files.items():
        (d / name).write_text(text)
    lab = manifest.lab("heatmaps")
    return manifest_mod.Lab(**{**lab.__dict__, "name": "fake", "module_path": d / module})


GOOD = {
    "__init__.py": "from .experiment import plan, run\nfrom .analysis import load, summary\nfrom .checks import CHECKS\n",
    "experiment.py": "def plan(p):\n    return [('x', 1.0)]\n\ndef run(s):\n    pass\n",
    "analysis.py": "def load(d):\n    return {}\n\ndef summary(d):\n    return {'x': 1}\n",
    "checks.py": "from perflab.analysis.checks import Check\nCHECKS = [Check('x is one', 'x', '==', 1)]\n",
}

#: the contract's functions, each as a conforming lab writes it (one argument each)
FUNCTIONS = {
    "plan": "def plan(p):\n    return [('x', 1.0)]\n",
    "run": "def run(s):\n    pass\n",
    "load": "def load(d):\n    return {}\n",
    "summary": "def summary(d):\n    return {'x': 1}\n",
}
IMPORT_CHECK = "from perflab.analysis.checks import Check\n"
CHECKS = "CHECKS = [Check('x is one', 'x', '==', 1)]\n"


def _planted(tmp_path, manifest, functions: dict = FUNCTIONS, checks: str = CHECKS):
    """A one-module lab package: these functions and this CHECKS line in its __init__.py."""
    return _fake_lab(tmp_path, manifest, {"__init__.py": IMPORT_CHECK + "\n".join(functions.values()) + checks})


def _refusal(lab) -> str:
    with pytest.raises(Refused, match="lab fake") as e:
        labcontract.load(lab)
    return str(e.value)


def test_a_lab_package_loads_with_its_relative_imports(tmp_path, manifest):
    mod = labcontract.load(_fake_lab(tmp_path, manifest, GOOD))
    assert mod.plan({}) == [("x", 1.0)] and mod.CHECKS[0].name == "x is one"


def test_the_planted_lab_conforms_as_written(tmp_path, manifest):
    """The refusals below each change one part of this lab: as written, it is accepted."""
    mod = labcontract.load(_planted(tmp_path, manifest))
    assert mod.summary(mod.load(tmp_path)) == {"x": 1} and [c.name for c in mod.CHECKS] == ["x is one"]


@pytest.mark.parametrize("missing", list(FUNCTIONS))
def test_a_lab_missing_a_function_is_refused_naming_it(tmp_path, manifest, missing):
    lab = _planted(tmp_path, manifest, {k: v for k, v in FUNCTIONS.items() if k != missing})
    said = _refusal(lab)
    assert f"no {missing}()" in said
    assert not any(f"no {other}()" in said for other in FUNCTIONS if other != missing), said


@pytest.mark.parametrize("name,signature", [
    ("plan", "()"), ("run", "(s, t)"), ("load", "()"), ("summary", "(d, p)"),
    # the optional ones, when a lab gives them, are held to one argument too
    ("validate", "(p, q)"), ("sanity_context", "()"),
])
def test_a_function_with_a_wrong_signature_is_refused_naming_it(tmp_path, manifest, name, signature):
    lab = _planted(tmp_path, manifest, {**FUNCTIONS, name: f"def {name}{signature}:\n    return None\n"})
    said = _refusal(lab)
    assert f"{name}() must take 1 argument" in said and signature in said, said


def test_checks_declared_twice_are_refused_naming_them(tmp_path, manifest):
    twice = "CHECKS = [Check('x is one', 'x', '==', 1), Check('y is two', 'y', '==', 2), Check('x is one', 'z', '<', 3)]\n"
    said = _refusal(_planted(tmp_path, manifest, checks=twice))
    assert "CHECKS declares twice: x is one" in said and "y is two" not in said, said


@pytest.mark.parametrize("checks,said", [
    ("", "no CHECKS"),
    ("CHECKS = None\n", "no CHECKS"),
    ("CHECKS = [1]\n", "CHECKS must be a list of perflab.analysis.checks.Check"),
    ("CHECKS = Check('x is one', 'x', '==', 1)\n", "CHECKS must be a list of perflab.analysis.checks.Check"),
])
def test_checks_that_are_not_a_list_of_checks_are_refused(tmp_path, manifest, checks, said):
    assert said in _refusal(_planted(tmp_path, manifest, checks=checks))


def test_a_name_that_is_not_a_function_is_refused(tmp_path, manifest):
    said = _refusal(_planted(tmp_path, manifest, {**FUNCTIONS, "plan": "plan = 3\n"}))
    assert "plan is not a function" in said, said


def test_every_problem_is_named_in_one_refusal(tmp_path, manifest):
    lab = _planted(tmp_path, manifest, {"plan": FUNCTIONS["plan"], "load": "def load():\n    return {}\n",
                                        "summary": FUNCTIONS["summary"]}, checks="")
    said = _refusal(lab)
    for part in ("no run()", "load() must take 1 argument", "no CHECKS"):
        assert part in said, (part, said)


def test_a_module_that_does_not_import_is_refused_naming_the_error(tmp_path, manifest):
    lab = _fake_lab(tmp_path, manifest, {**GOOD, "analysis.py": "def load(d):\n    return {}\n"})
    assert "ImportError: cannot import name 'summary'" in _refusal(lab)


def test_a_module_that_is_not_a_package_is_refused(tmp_path, manifest):
    """Every lab is labs/<name>/__init__.py and its modules: a single lab.py is not imported."""
    lab = _fake_lab(tmp_path, manifest, {"lab.py": IMPORT_CHECK + "\n".join(FUNCTIONS.values()) + CHECKS},
                    module="lab.py")
    assert "is not a lab package" in _refusal(lab)


def test_a_lab_changed_on_disk_is_loaded_again(tmp_path, manifest):
    import os

    lab = _fake_lab(tmp_path, manifest, GOOD)
    assert labcontract.load(lab).summary({}) == {"x": 1}
    f = lab.module_path.parent / "analysis.py"
    f.write_text("def load(d):\n    return {}\n\ndef summary(d):\n    return {'x': 2}\n")
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert labcontract.load(lab).summary({}) == {"x": 2}
