"""The lab-host image (containers/lab-host, `make lab-image`, scripts/lab-host): perflab with an
engine of its own (Docker-in-Docker) on Debian 13. Built here, then, inside it: `perflab doctor`
names every lab as ready or says why not, and smoke runs of labs that need FUSE and ZFS (logzilla),
tc and NFS (bad-cable) and loop devices (jbod) pass their checks, leave their run directories on
this machine and nothing else: after each, the outer host has the same containers, networks,
volumes, loop and zram devices, mounts and qdiscs as before.

The lab images are handed in as archives (docker save of this machine's, scripts/lab-host's
PERFLAB_LAB_IMAGES) so that the inner engine loads instead of rebuilding them; the test's inner
engine volume is its own and is removed at the end.
"""
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT
from support import hoststate
from support.hoststate import differences
from perflab.infra import lock
from perflab.analysis.checks import failed

SUITE = "trixie"
IMAGE = f"perflab/lab:{SUITE}"
VOLUME = "perflab-lab-test"
#: the labs whose images the fixture hands in at once (those the default run's tests run inside: jbod, and
#: heatmaps in the dev container); every other lab's images are saved when a test first needs them
LABS = ("heatmaps", "jbod")

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def sh(*cmd, timeout=120, **kw):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, **kw)


def outer_state() -> dict:
    return hoststate.outer_state(keep_volumes={VOLUME})


@pytest.fixture(scope="module")
def lab_host(docker_ok, manifest, tmp_path_factory):
    """The image built from this tree, the lab images saved for the inner engine, and a runner."""
    r = sh("bash", str(ROOT / "scripts" / "build-lab-image.sh"), SUITE, timeout=2400, cwd=ROOT)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    images = tmp_path_factory.mktemp("images")
    tags = sorted({manifest.images[n].tag for lab in LABS for n in manifest.lab(lab).images} | {"debian:bookworm-slim"})
    r = sh("docker", "save", "-o", str(images / "labs.tar"), *tags, timeout=900)
    assert r.returncode == 0, r.stderr
    runs = tmp_path_factory.mktemp("runs")
    env = {**os.environ, "PERFLAB_LAB_IMAGE": IMAGE, "PERFLAB_LAB_VOLUME": VOLUME, "PERFLAB_LAB_RUNS": str(runs),
           "PERFLAB_LAB_IMAGES": str(images)}

    def run(*args, timeout=1500):   # the inner perflab takes this machine's lab lock itself (bound in)
        return sh(str(ROOT / "scripts" / "lab-host"), *args, timeout=timeout, env=env, cwd=ROOT)

    def start(*args):
        return subprocess.Popen([str(ROOT / "scripts" / "lab-host"), *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    run.images, run.runs, run.start = images, runs, start
    yield run, runs
    sh("docker", "volume", "rm", "-f", VOLUME)
    (images / "labs.tar").unlink(missing_ok=True)


@pytest.fixture(scope="module")
def doctor_inside(lab_host) -> tuple[dict[str, str], str]:
    """What `lab-host doctor` says of each probe and lab (its line: [ok] or [no] and why), and its text."""
    run, _ = lab_host
    r = run("doctor")
    assert r.returncode == 0, r.stderr[-2000:]
    return ({ln.split("]", 1)[1].split(":", 1)[0].strip(): ln.strip() for ln in r.stdout.splitlines()
             if ln.strip().startswith("[") and "]" in ln}, r.stdout + r.stderr)


def test_the_image_is_debian_13_with_perflab_as_its_entry_point(lab_host):
    run, _ = lab_host
    r = sh("docker", "run", "--rm", "--entrypoint", "cat", IMAGE, "/etc/os-release")
    assert 'VERSION_CODENAME=trixie' in r.stdout and 'VERSION_ID="13"' in r.stdout
    r = run("labs")
    assert r.returncode == 0, r.stderr[-2000:]
    assert all(lab in r.stdout for lab in LABS)


def test_doctor_inside_names_every_lab_ready_or_why_not(lab_host, manifest, doctor_inside, artifacts):
    lines, text = doctor_inside
    (artifacts / "doctor.txt").write_text(text)
    for lab in manifest.labs:
        assert lab in lines, f"doctor says nothing of {lab}:\n{text}"
        state, said = lines[lab].split("]", 1)[0].strip() + "]", lines[lab].split(":", 1)[1].strip()
        assert state in ("[ok]", "[no]") and said, lines[lab]          # ready, or what stands in the way
        assert state == "[ok]" or len(said) > 10, lines[lab]
    # the labs whose images were handed in are ready; the others' images are built on their first run
    assert all(lines[lab].split(":", 1)[1].strip() == "ready" for lab in LABS), text
    # the machine as the labs inside see it: zram usable (the launcher gives the host's /sys, writable)
    assert lines["zram"].startswith("[ok]"), lines["zram"]


def _every_lab() -> list[str]:
    from perflab.config.manifest import load

    return list(load().labs)


#: inside the lab-host image, jbod (loop devices and partitions, inside) runs by default, and heatmaps in the
#: dev container below; every other lab's smoke preset (logzilla's ZFS, bad-cable's tc on veths, l2arc's
#: zram, ...) runs with make test-long (issue 31: every lab in the image)
INSIDE = [pytest.param(lab, marks=[pytest.mark.long] if lab != "jbod" else []) for lab in _every_lab()]


def images_for(run, manifest, lab: str) -> None:
    """The lab's images handed to the inner engine: one archive an image (the engine loads an archive
    only when it lacks one of its images), saved from this machine's the first time a lab needs it."""
    for tag in sorted({manifest.images[n].tag for n in manifest.lab(lab).images} | {"debian:bookworm-slim"}):
        tar = run.images / (tag.replace("/", "_").replace(":", "_") + ".tar")
        if lab in LABS or tar.exists():
            continue
        r = sh("docker", "save", "-o", str(tar), tag, timeout=900)
        assert r.returncode == 0, r.stderr




@pytest.mark.parametrize("lab", INSIDE)
def test_a_smoke_run_inside_passes_and_leaves_only_its_run_directory(lab_host, lab, manifest, doctor_inside,
                                                                     artifacts):
    """... after queueing behind the host's lab lock (one lab at a time per kernel: the lock is bound
    into every lab-host container), which the test holds for the run's first seconds; and doctor,
    asked inside beforehand, said it was ready."""
    run, runs = lab_host
    images_for(run, manifest, lab)
    said = doctor_inside[0][lab]
    assert said.startswith("[ok]"), said   # doctor, asked inside, said it would run
    before = outer_state()
    waits = "waiting for the lab that is running (lab-host test holding the host's lock"
    with lock.machine_lock("lab-host test holding the host's lock"):
        p = run.start("run", lab, "--preset", "smoke")
        watchdog = threading.Timer(900, p.kill)   # a run that never says it waits must not hang the test
        watchdog.start()
        said = []
        for line in p.stderr:   # the inner engine loads the lab images first; then the lab asks for the lock
            said.append(line)
            if waits in line:
                break
        time.sleep(3)
        assert p.poll() is None, "".join(said)[-3000:]   # it waits: the lab has not run
    watchdog.cancel()
    out, err = p.communicate(timeout=1500)
    r = subprocess.CompletedProcess(p.args, p.returncode, out, "".join(said) + err)
    (artifacts / "run.txt").write_text(r.stdout + "\n" + r.stderr)
    after = outer_state()
    assert r.returncode == 0, r.stderr[-3000:]
    assert waits in r.stderr
    run_dir = runs / Path(r.stdout.strip().splitlines()[-1]).name   # printed as the container sees it
    doc = json.loads((run_dir / "run.json").read_text())
    assert doc["status"] == "complete" and doc["lab"] == lab
    bad = [c for c in doc.get("checks", []) if failed(c)]
    assert doc.get("checks") and not bad, bad
    assert doc["provenance"]["kernel"].split()[-1] == os.uname().release   # the same kernel: only the userland differs
    assert differences(before, after) == {}, differences(before, after)


# ----------------------------------------------------------------------------- the dev container

DEVCONTAINER_CLI = "@devcontainers/cli@0.80.0"   # the reference implementation of devcontainer.json (Node >= 18)
DC_VOLUME = "perflab-devcontainer-test"


def jsonc(path: Path) -> dict:
    """devcontainer.json: JSON with // comment lines."""
    return json.loads("\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//")))


@pytest.mark.long   # make test-long: the image itself runs a lab by default (jbod, above)
def test_the_dev_container_runs_a_lab_and_opens_a_chapter(lab_host, tmp_path, artifacts):
    """.devcontainer/devcontainer.json brought up by the Dev Containers CLI as VS Code would (its
    initializeCommand builds the image, its postStartCommand starts the inner engine), with two
    changes a test needs: the rights scripts/lab-host gives where --privileged is refused, and the
    lab images handed in at /images and a volume of its own. Inside, on the repository mounted at
    /work: a chapter opens as a notebook (jupytext) on the image's environment, and a lab's smoke
    run executes its notebook, passes its checks and leaves its run directory in the repository;
    once the container and its volume are removed, the outer host has nothing new."""
    run, _ = lab_host
    r = sh("npm", "install", "--prefix", str(tmp_path / "cli"), "--no-audit", "--no-fund", DEVCONTAINER_CLI, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    cli = str(tmp_path / "cli" / "node_modules" / ".bin" / "devcontainer")
    config = jsonc(ROOT / ".devcontainer" / "devcontainer.json")
    rights = sh(str(ROOT / "scripts" / "lab-host"), "--rights", cwd=ROOT).stdout.splitlines()
    assert rights, "scripts/lab-host --rights printed nothing"
    # privileged, with the host's process ids as scripts/lab-host gives them (nfs-layers' tracer)
    assert config["runArgs"] == ["--privileged", "--pid=host", "-e", "TINI_SUBREAPER=1"] and config["image"] == IMAGE
    assert {"--pid=host", "TINI_SUBREAPER=1"} <= set(rights)
    override = {**config, "runArgs": rights,
                "mounts": [f"source={DC_VOLUME},target=/var/lib/docker,type=volume",
                           f"source={run.images},target=/images,type=bind,readonly"]}
    (tmp_path / "override.json").write_text(json.dumps(override, indent=1))
    label = f"perflab.devcontainer-test={os.getpid()}"
    base = ["--workspace-folder", str(ROOT), "--id-label", label]
    before = outer_state()
    cid = None
    try:
        up = sh(cli, "up", *base, "--override-config", str(tmp_path / "override.json"),
                "--remove-existing-container", timeout=1200, cwd=ROOT)
        (artifacts / "up.txt").write_text(up.stdout + up.stderr)
        assert up.returncode == 0, (up.stdout + up.stderr)[-3000:]
        result = json.loads(up.stdout.strip().splitlines()[-1])
        assert result["outcome"] == "success", result
        cid = result["containerId"]

        def inside(*cmd, timeout=300):
            with lock.machine_lock("dev container test"):   # the inner perflab cannot see this machine's lock
                r = sh(cli, "exec", *base, *cmd, timeout=timeout, cwd=ROOT)
            name = "-".join(c.rsplit("/", 1)[-1] for c in cmd[:2])
            (artifacts / f"{name}.txt").write_text(r.stdout + r.stderr)
            return r

        r = inside("cat", "/etc/os-release")
        assert "VERSION_CODENAME=trixie" in r.stdout
        r = inside("sh", "-c", "echo $PERFLAB_VENV; docker info --format '{{.ServerVersion}}'")
        assert r.returncode == 0 and r.stdout.split()[0] == "/opt/perflab-venv", r.stdout + r.stderr   # the engine answers
        r = inside("/opt/perflab-venv/bin/jupytext", "--to", "ipynb", "--output", "-", "chapters/heatmaps.md")
        assert r.returncode == 0, r.stderr[-2000:]
        nb = json.loads(r.stdout)
        assert nb["metadata"]["kernelspec"]["name"] == "python3" and len(nb["cells"]) > 10
        r = inside("scripts/perflab", "run", "heatmaps", "--preset", "smoke", timeout=900)
        assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
        run_dir = ROOT / "data" / "runs" / Path(r.stdout.strip().splitlines()[-1]).name   # /work is this repository
        try:
            doc = json.loads((run_dir / "run.json").read_text())
            assert doc["status"] == "complete" and doc["checks"] and not any(failed(c) for c in doc["checks"])
            assert doc["provenance"]["python"].startswith("3.13.")   # the image's environment (Debian 13), not this machine's
            executed = json.loads((run_dir / "notebook.ipynb").read_text())
            assert any(c.get("outputs") for c in executed["cells"] if c["cell_type"] == "code")
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
    finally:
        if cid:
            sh("docker", "rm", "-f", "-v", cid)
        sh("docker", "volume", "rm", "-f", DC_VOLUME)
    after = outer_state()
    assert differences(before, after) == {}, differences(before, after)
