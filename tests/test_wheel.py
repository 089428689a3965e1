"""The package installs: a wheel built from a clean clone, installed in a clean venv (no repository
around, no PERFLAB_ROOT), imports every module, draws a heat map of a reference log, compares two
saved maps, and refuses `perflab run` in one line with exit 2 (issue 27, item 6)."""
import os
import pkgutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


def _sh(cmd, cwd, timeout=900, env=None):
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    return r


def _modules() -> set[str]:
    """Every module of the package as the source tree has it."""
    import perflab

    names = {"perflab"}
    for info in pkgutil.walk_packages(perflab.__path__, "perflab."):
        names.add(info.name)
    return names


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    clone = tmp / "clone"
    r = _sh(["git", "clone", "-q", ROOT, clone], tmp)
    assert r.returncode == 0, r.stderr
    # the working tree's package files over the clone's, so that the test judges the tree being tested
    r = _sh(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "perflab", "pyproject.toml", "setup.py"],
            tmp)
    for rel in r.stdout.split():
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_bytes((ROOT / rel).read_bytes())
    dist = tmp / "dist"
    r = _sh([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, clone], tmp)
    assert r.returncode == 0, r.stdout + r.stderr
    wheel = next(dist.glob("perflab-*.whl"))
    venv = tmp / "venv"
    r = _sh([sys.executable, "-m", "venv", venv], tmp)
    assert r.returncode == 0, r.stderr
    # the lock's versions, from pip's cache where `make setup` filled it
    r = _sh([venv / "bin" / "pip", "install", "-q", "-c", ROOT / "requirements.lock", wheel], tmp, timeout=1500)
    assert r.returncode == 0, r.stdout + r.stderr
    work = tmp / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PERFLAB_ROOT", "PYTHONPATH", "VIRTUAL_ENV")}
    return {"wheel": wheel, "venv": venv, "cwd": work, "env": env}


def test_wheel_holds_every_module(installed):
    with zipfile.ZipFile(installed["wheel"]) as z:
        held = {n[:-3].replace("/", ".").removesuffix(".__init__") for n in z.namelist() if n.endswith(".py")}
        # compiled modules: perflab/fio/_scan.cpython-311-x86_64-linux-gnu.so
        held |= {n.split(".", 1)[0].replace("/", ".") for n in z.namelist() if n.endswith(".so")}
    assert "perflab.fio._scan" in held   # the log scanner, built with the wheel
    assert _modules() - held == set()


def test_the_installed_package_reads_per_io_logs_with_its_compiled_scanner(installed):
    code = ("from perflab.fio.scan import HAVE_SCANNER\n"
            "from perflab.fio import _scan\n"
            "assert HAVE_SCANNER and 'site-packages' in _scan.__file__, _scan.__file__\n")
    r = _sh([installed["venv"] / "bin" / "python", "-c", code], installed["cwd"], env=installed["env"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_module_imports_from_the_installed_wheel(installed):
    code = ("import importlib, pkgutil, perflab, sys\n"
            "assert 'site-packages' in perflab.__file__, perflab.__file__\n"
            "bad = []\n"
            "for i in pkgutil.walk_packages(perflab.__path__, 'perflab.'):\n"
            "    if i.name == 'perflab.__main__': continue   # `python -m perflab`: it runs the command\n"
            "    try: importlib.import_module(i.name)\n"
            "    except ImportError as e: bad.append(f'{i.name}: {e}')\n"
            "print('\\n'.join(bad)); sys.exit(1 if bad else 0)\n")
    r = _sh([installed["venv"] / "bin" / "python", "-c", code], installed["cwd"], env=installed["env"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_heatmap_and_compare_work_without_the_repository(installed):
    exe, cwd, env = installed["venv"] / "bin" / "perflab", installed["cwd"], installed["env"]
    ref = ROOT / "data" / "reference" / "heatmaps"
    runs = {"ref": ref, "rep2": ref / "repeats" / "2", "rep3": ref / "repeats" / "3"}
    for name, d in runs.items():
        logs = sorted((d / "fio").glob("*_clat_hist.*.log*"))
        assert logs, d
        r = _sh([exe, "heatmap", *logs, "--html", f"{name}.html", "--save", f"{name}.npz"], cwd, env=env)
        assert r.returncode == 0, r.stderr
        assert "I/Os in" in r.stderr
    assert "plotly" in (cwd / "ref.html").read_text()[:200_000].lower()
    logs = sorted((ref / "fio").glob("*_clat_hist.*.log*"))
    r = _sh([exe, "heatmap", *logs, "--summary"], cwd, env=env)   # the mode pass, from the wheel alone
    assert r.returncode == 0 and "2 modes" in r.stdout and "lies in neither mode" in r.stdout, r.stdout + r.stderr
    r = _sh([exe, "heatmap", *logs, "--percentiles", "--csv", "p.csv"], cwd, env=env)
    assert r.returncode == 0 and (cwd / "p.percentiles.csv").read_text().startswith("second,events,overflow,p50_ns")
    r = _sh([exe, "compare", "ref.npz", "rep2.npz", "--noise", "ref.npz", "rep2.npz", "rep3.npz"], cwd, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "same within noise" in r.stdout and "modes: A has 2, B has 2" in r.stdout
    # a lab's name means its reference, which only the repository has: refused in one line
    r = _sh([exe, "compare", "heatmaps", "rep2.npz"], cwd, env=env)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_run_outside_the_repository_is_refused_in_one_line(installed):
    r = _sh([installed["venv"] / "bin" / "perflab", "run", "heatmaps", "--preset", "smoke"], installed["cwd"],
            env=installed["env"])
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs the perflab repository" in lines[0] and "PERFLAB_ROOT" in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert not (installed["cwd"] / "data").exists()   # nothing was created
