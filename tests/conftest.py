"""Shared fixtures. Tests that need Docker are marked `docker` and skip, saying why, when no engine
answers; `make test` sets the engine up first, so in CI they run."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="session")
def manifest():
    from perflab.config import manifest as m

    return m.load(ROOT)


@pytest.fixture(scope="module")
def lab(request, manifest):
    """The lab module named by the test module's LAB (a test module may define its own `lab`)."""
    return manifest.lab(request.module.LAB).load_module()


@pytest.fixture(scope="session")
def docker_ok():
    from perflab.infra import labels

    if labels.docker_client() is None:
        pytest.skip("needs a Docker engine (make setup starts one)")
    return True


@pytest.fixture
def artifacts(request):
    """A per-test directory that keeps evidence (commands, outputs) after the test."""
    d = ARTIFACTS / request.node.name.replace("/", "_").replace("[", "-").replace("]", "")
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return d


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """The HTML book, built once per test session from the working tree (reference runs, no Docker),
    under the machine's lab lock (the build is CPU-heavy); tests/test_book.py and test_browser.py share it."""
    from perflab.infra import lock

    out = tmp_path_factory.mktemp("book")
    with lock.machine_lock("book build (tests)"):
        r = perflab_cmd("book", "--out", str(out), timeout=1800)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    return out / "_build" / "html"


def perflab_cmd(*args, timeout=900, **kw):
    return subprocess.run([str(ROOT / "scripts" / "perflab"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kw)
