"""The lab contract in code (perflab.run.labcontract): a lab that lacks part of it is refused, naming
every missing or wrong name, before anything is created; every lab of book.toml conforms."""
import pytest

from perflab.config import manifest as manifest_mod
from perflab.run import labcontract


def test_every_lab_conforms(manifest):
    for lab in manifest.labs.values():
        mod = labcontract.load(lab)
        if lab.is_package:
            assert isinstance(mod, labcontract.LabModule) and mod.CHECKS, lab.name


def _fake_lab(tmp_path, manifest, files: dict):
    d = tmp_path / "labs" / "fake"
    d.mkdir(parents=True)
    for name, text in files.items():
        (d / name).write_text(text)
    lab = manifest.lab("heatmaps")
    return manifest_mod.Lab(**{**lab.__dict__, "name": "fake", "module_path": d / "__init__.py"})


GOOD = {
    "__init__.py": "from .experiment import plan, run\nfrom .analysis import load, summary\nfrom .checks import CHECKS\n",
    "experiment.py": "def plan(p):\n    return [('x', 1.0)]\n\ndef run(s):\n    pass\n",
    "analysis.py": "def load(d):\n    return {}\n\ndef summary(d):\n    return {'x': 1}\n",
    "checks.py": "from perflab.analysis.checks import Check\nCHECKS = [Check('x is one', 'x', '==', 1)]\n",
}


def test_a_lab_package_loads_with_its_relative_imports(tmp_path, manifest):
    mod = labcontract.load(_fake_lab(tmp_path, manifest, GOOD))
    assert mod.plan({}) == [("x", 1.0)] and mod.CHECKS[0].name == "x is one"


@pytest.mark.parametrize("change,said", [
    ({"__init__.py": GOOD["__init__.py"].replace(", summary", "")}, "no summary()"),
    ({"analysis.py": "def load(d):\n    return {}\n"}, "cannot import .*: ImportError: cannot import name 'summary'"),
    ({"analysis.py": "def load(d):\n    return {}\n\ndef summary(d, p):\n    return {}\n"}, "summary() must take 1 argument"),
    ({"checks.py": "CHECKS = None\n"}, "no CHECKS"),
    ({"checks.py": "CHECKS = [1]\n"}, "CHECKS must be a list of perflab.analysis.checks.Check"),
    ({"experiment.py": "plan = 3\n\ndef run(s):\n    pass\n"}, "plan is not a function"),
])
def test_a_lab_that_lacks_part_of_the_contract_is_refused(tmp_path, manifest, change, said):
    from perflab.errors import Refused

    lab = _fake_lab(tmp_path, manifest, {**GOOD, **change})
    with pytest.raises(Refused, match="lab fake.*" + said.replace("()", r"\(\)").replace("1 arg", r"1 arg")):
        labcontract.load(lab)


def test_a_lab_changed_on_disk_is_loaded_again(tmp_path, manifest):
    import os

    lab = _fake_lab(tmp_path, manifest, GOOD)
    assert labcontract.load(lab).summary({}) == {"x": 1}
    f = lab.module_path.parent / "analysis.py"
    f.write_text("def load(d):\n    return {}\n\ndef summary(d):\n    return {'x': 2}\n")
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert labcontract.load(lab).summary({}) == {"x": 2}
