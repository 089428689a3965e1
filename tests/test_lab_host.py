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
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from perflab.infra import labels, lock

SUITE = "trixie"
IMAGE = f"perflab/lab:{SUITE}"
VOLUME = "perflab-lab-test"
LABS = ("heatmaps", "logzilla", "bad-cable", "jbod")

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def sh(*cmd, timeout=120, **kw):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, **kw)


def outer_state() -> dict:
    """What a lab could leave on this machine, as sets (the test's own inner-engine volume aside)."""
    c = labels.docker_client()
    zram = sorted(p.name for p in Path("/sys/block").glob("zram*"))
    return {"containers": {x.id for x in c.containers.list(all=True)},
            "networks": {n.id for n in c.networks.list()},
            "volumes": {v.name for v in c.volumes.list()} - {VOLUME},
            "loop devices": set(sh("losetup", "-a").stdout.splitlines()),
            "zram devices": set(zram),
            "mounts": {ln.split()[1] for ln in open("/proc/self/mounts")},
            "qdiscs": set(sh("tc", "qdisc", "show").stdout.splitlines())}


def differences(before: dict, after: dict) -> dict:
    return {k: {"new": sorted(after[k] - before[k])[:5], "gone": sorted(before[k] - after[k])[:5]}
            for k in before if after[k] != before[k]}


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

    def run(*args, timeout=1500):
        with lock.machine_lock("lab-host test"):   # the inner perflab cannot see this machine's lock
            return sh(str(ROOT / "scripts" / "lab-host"), *args, timeout=timeout, env=env, cwd=ROOT)

    yield run, runs
    sh("docker", "volume", "rm", "-f", VOLUME)
    (images / "labs.tar").unlink(missing_ok=True)


def test_the_image_is_debian_13_with_perflab_as_its_entry_point(lab_host):
    run, _ = lab_host
    r = sh("docker", "run", "--rm", "--entrypoint", "cat", IMAGE, "/etc/os-release")
    assert 'VERSION_CODENAME=trixie' in r.stdout and 'VERSION_ID="13"' in r.stdout
    r = run("labs")
    assert r.returncode == 0, r.stderr[-2000:]
    assert all(lab in r.stdout for lab in LABS)


def test_doctor_inside_names_every_lab_ready_or_why_not(lab_host, manifest, artifacts):
    run, _ = lab_host
    r = run("doctor")
    (artifacts / "doctor.txt").write_text(r.stdout + r.stderr)
    lines = {ln.split("]", 1)[1].split(":", 1)[0].strip(): ln for ln in r.stdout.splitlines()
             if ln.strip().startswith("[") and "]" in ln}
    for lab in manifest.labs:
        assert lab in lines, f"doctor says nothing of {lab}:\n{r.stdout}"
        state, said = lines[lab].split("]", 1)[0].strip() + "]", lines[lab].split(":", 1)[1].strip()
        assert state in ("[ok]", "[no]") and said, lines[lab]          # ready, or what stands in the way
        assert state == "[ok]" or len(said) > 10, lines[lab]
    # the labs whose images were handed in are ready; the others' images are built on their first run
    assert all(lines[lab].split(":", 1)[1].strip() == "ready" for lab in LABS), r.stdout


@pytest.mark.parametrize("lab", LABS)
def test_a_smoke_run_inside_passes_and_leaves_only_its_run_directory(lab_host, lab, artifacts):
    run, runs = lab_host
    before = outer_state()
    r = run("run", lab, "--preset", "smoke")
    (artifacts / "run.txt").write_text(r.stdout + "\n" + r.stderr)
    after = outer_state()
    assert r.returncode == 0, r.stderr[-3000:]
    run_dir = runs / Path(r.stdout.strip().splitlines()[-1]).name   # printed as the container sees it
    doc = json.loads((run_dir / "run.json").read_text())
    assert doc["status"] == "complete" and doc["lab"] == lab
    failed = [c for c in doc.get("checks", []) if not c.get("passed")]
    assert doc.get("checks") and not failed, failed
    assert doc["provenance"]["kernel"].split()[-1] == os.uname().release   # the same kernel: only the userland differs
    assert differences(before, after) == {}, differences(before, after)
