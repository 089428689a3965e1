"""scripts/setup-system.sh with stand-in commands (no package is installed, no engine started): it
uses a Docker engine that answers and installs none beside it, refuses to put docker.io over another
engine's `docker`, and installs docker.io only where there is no `docker` at all."""
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "setup-system.sh"


def _tool(bin_dir: Path, name: str, body: str) -> None:
    p = bin_dir / name
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(0o755)


@pytest.fixture
def box(tmp_path):
    """A PATH whose first directory holds stand-ins: dpkg-query (every package installed but
    docker.io), apt-get and dockerd (record their arguments), fio. Only coreutils, sh, grep, timeout
    and the like come from the system."""
    b = tmp_path / "bin"
    b.mkdir()
    calls = tmp_path / "calls.log"
    _tool(b, "dpkg-query", 'case "$*" in *docker.io*) echo "unknown ok not-installed"; exit 1;; '
                           '*) echo "install ok installed";; esac')
    _tool(b, "apt-get", f'echo "apt-get $*" >> {calls}')
    _tool(b, "dockerd", f'echo "dockerd $*" >> {calls}')
    _tool(b, "fio", 'echo fio-standin')
    # the system tools the script uses, and nothing else (no docker, dpkg-query or apt-get of the machine's)
    sys_bin = tmp_path / "sys"
    sys_bin.mkdir()
    for tool in ("sh", "grep", "id", "timeout", "pgrep", "seq", "sleep", "tail", "cat", "chmod", "printf", "readlink"):
        found = shutil.which(tool)
        assert found, tool
        (sys_bin / tool).symlink_to(found)
    env = {"PATH": f"{b}:{sys_bin}", "HOME": str(tmp_path), "LANG": "C"}
    return b, calls, env


def _run(env):
    return subprocess.run([shutil.which("bash"), str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120)


def _calls(calls: Path) -> str:
    return calls.read_text() if calls.exists() else ""


def test_an_engine_that_answers_is_used_and_none_installed(box):
    b, calls, env = box
    _tool(b, "docker", 'case "$1" in info) exit 0;; version) echo 99.0-standin;; esac')
    r = _run(env)
    assert r.returncode == 0, r.stderr
    assert "a Docker engine answers" in r.stdout and "99.0-standin" in r.stdout and "installing none" in r.stdout
    assert "docker.io" not in _calls(calls) and "dockerd" not in _calls(calls)


def test_another_engines_docker_that_does_not_answer_is_left_alone(box):
    b, calls, env = box
    _tool(b, "docker", "exit 1")    # e.g. Docker CE's CLI with its daemon stopped
    r = _run(env)
    assert r.returncode == 1
    assert "not Debian's docker.io" in r.stderr and "No second engine is installed" in r.stderr
    assert _calls(calls) == ""


def test_another_packages_docker_without_an_engine_is_left_alone(box):
    """Docker Desktop's or Docker CE's client package, its engine elsewhere and not answering:
    docker.io's /usr/bin/docker would conflict with it."""
    b, calls, env = box
    (b / "dockerd").unlink()
    _tool(b, "docker", "exit 1")
    _tool(b, "dpkg-query", f'case "$*" in -S*) echo "docker-ce-cli: {b}/docker";; *docker.io*) '
                           'echo "unknown ok not-installed"; exit 1;; *) echo "install ok installed";; esac')
    for tool in ("sed", "head"):
        (Path(env["PATH"].split(":")[1]) / tool).symlink_to(shutil.which(tool))
    r = _run(env)
    assert r.returncode == 1
    assert "from the package docker-ce-cli" in r.stderr and "No second engine is installed" in r.stderr
    assert _calls(calls) == ""


def test_the_snaps_docker_without_an_engine_is_left_alone(box, tmp_path):
    """Ubuntu's snap docker: no package of dpkg's owns it, but it is an engine of its own."""
    b, calls, env = box
    (b / "dockerd").unlink()
    snap = tmp_path / "snap" / "bin"
    snap.mkdir(parents=True)
    _tool(snap, "docker", "exit 1")
    for tool in ("sed", "head"):
        (Path(env["PATH"].split(":")[1]) / tool).symlink_to(shutil.which(tool))
    r = _run({**env, "PATH": f"{snap}:{env['PATH']}"})
    assert r.returncode == 1
    assert "the snap's docker" in r.stderr and "No second engine is installed" in r.stderr
    assert _calls(calls) == ""


def test_a_lone_client_without_an_engine_gets_docker_io_beside_it(box):
    """This project's machines ship a docker client in /usr/local/bin that no package owns and no
    engine answers: docker.io is installed beside it and its dockerd started (make setup on a fresh
    machine failed here before)."""
    b, calls, env = box
    (b / "dockerd").unlink()
    _tool(b, "docker", f'test -e {b}/engine-up || exit 1; case "$1" in version) echo 20.10-standin;; esac')
    _tool(b, "dpkg-query", 'case "$*" in -S*) echo "dpkg-query: no path found matching pattern" >&2; exit 1;; '
                           '*docker.io*) echo "unknown ok not-installed"; exit 1;; *) echo "install ok installed";; esac')
    _tool(b, "apt-get", f'echo "apt-get $*" >> {calls}; case "$*" in *docker.io*) '
                        f'printf "#!/bin/sh\\necho dockerd >> {calls}; touch {b}/engine-up\\n" > {b}/dockerd; '
                        f'chmod +x {b}/dockerd;; esac')
    for tool in ("sed", "head", "nohup", "touch"):
        (Path(env["PATH"].split(":")[1]) / tool).symlink_to(shutil.which(tool))
    (Path(env["PATH"].split(":")[1]) / "pgrep").unlink()
    _tool(b, "pgrep", "exit 1")     # the machine's own dockerd, if one runs, is not this box's
    r = _run({**env, "PERFLAB_DOCKERD_LOG": str(b.parent / "dockerd.log")})
    assert r.returncode == 0, r.stderr
    assert "a client with no engine on this machine" in r.stdout
    installs = [ln for ln in _calls(calls).splitlines() if " install " in ln]
    assert len(installs) == 1 and "docker.io" in installs[0].split()
    assert "dockerd" in _calls(calls).splitlines() and "system ready (docker 20.10-standin" in r.stdout


def test_without_any_docker_docker_io_is_installed(box):
    b, calls, env = box
    # the stand-in apt-get "installs" a docker that answers, as docker.io's would once dockerd runs
    _tool(b, "apt-get", f'echo "apt-get $*" >> {calls}; case "$*" in *docker.io*) '
                        f'printf "#!/bin/sh\\nexit 0\\n" > {b}/docker; chmod +x {b}/docker;; esac')
    r = _run(env)
    assert r.returncode == 0, r.stderr
    installs = [ln for ln in _calls(calls).splitlines() if " install " in ln]
    assert len(installs) == 1 and "docker.io" in installs[0].split()


def test_where_apt_get_is_missing_what_is_missing_is_named(box):
    b, calls, env = box
    (b / "apt-get").unlink()
    _tool(b, "docker", 'case "$1" in info) exit 0;; version) echo 99.0-standin;; esac')
    _tool(b, "dpkg-query", 'case "$*" in *zfs-fuse*) exit 1;; *) echo "install ok installed";; esac')
    r = _run(env)
    assert r.returncode == 1 and "missing: zfs-fuse" in r.stderr and "Debian or Ubuntu" in r.stderr


def test_an_image_build_installs_docker_io_without_starting_it_and_without_the_browser(box):
    """containers/lab-host's build: PERFLAB_NO_DOCKERD=1 PERFLAB_NO_BROWSER=1."""
    b, calls, env = box
    _tool(b, "dpkg-query", 'case "$*" in *docker.io*|*chromium*|*fonts-liberation*) echo "unknown ok not-installed"; '
                           'exit 1;; *) echo "install ok installed";; esac')
    _tool(b, "apt-get", f'echo "apt-get $*" >> {calls}; case "$*" in *docker.io*) '
                        f'printf "#!/bin/sh\\necho Docker version 20.10.24, build x\\n" > {b}/docker; chmod +x {b}/docker;; esac')
    for tool in ("cut", "tr"):
        (Path(env["PATH"].split(":")[1]) / tool).symlink_to(shutil.which(tool))
    r = _run({**env, "PERFLAB_NO_DOCKERD": "1", "PERFLAB_NO_BROWSER": "1"})
    assert r.returncode == 0, r.stderr
    installs = [ln for ln in _calls(calls).splitlines() if " install " in ln]
    assert len(installs) == 1 and "docker.io" in installs[0].split()
    assert "chromium" not in _calls(calls) and "dockerd" not in _calls(calls)
    assert "no dockerd started" in r.stdout


# ------------------------------------------------------------------ scripts/lab-host

LAB_HOST = ROOT / "scripts" / "lab-host"


def _lab_host(box, tmp_path, privileged_ok: bool, *args):
    b, calls, env = box
    _tool(b, "docker", f'echo "docker $*" >> {calls}; case "$*" in "image inspect"*) exit 0;; '
                       f'*"--privileged --entrypoint true"*) exit {0 if privileged_ok else 1};; esac')
    for tool in ("mkdir", "pwd", "dirname"):
        link = Path(env["PATH"].split(":")[1]) / tool
        if not link.exists():
            link.symlink_to(shutil.which(tool))
    return subprocess.run([shutil.which("bash"), str(LAB_HOST), *args], capture_output=True, text=True, timeout=60,
                          env={**env, "PERFLAB_LAB_RUNS": str(tmp_path / "runs")}, stdin=subprocess.DEVNULL)


def test_lab_host_runs_privileged_where_the_engine_allows_it(box, tmp_path):
    r = _lab_host(box, tmp_path, True, "run", "heatmaps", "--preset", "smoke")
    assert r.returncode == 0, r.stderr
    last = _calls(box[1]).splitlines()[-1]
    assert last.startswith("docker run --rm -v perflab-lab-docker:/var/lib/docker") and " --privileged " in last
    assert last.endswith("perflab/lab:trixie run heatmaps --preset smoke") and "--cap-add" not in last
    assert f"{tmp_path}/runs:/work/data/runs" in last and (tmp_path / "runs").is_dir()


def test_lab_host_falls_back_to_the_rights_one_by_one(box, tmp_path):
    r = _lab_host(box, tmp_path, False, "doctor")
    assert r.returncode == 0, r.stderr
    last = _calls(box[1]).splitlines()[-1]
    assert " --privileged " not in last and "--cap-add ALL --cap-drop SYS_RESOURCE" in last
    assert "seccomp=unconfined" in last and "-v /dev:/dev" in last and last.endswith("perflab/lab:trixie doctor")


def test_lab_host_without_the_image_says_how_to_build_it(box, tmp_path):
    b, calls, env = box
    _tool(b, "docker", "exit 1")
    r = subprocess.run([shutil.which("bash"), str(LAB_HOST), "labs"], capture_output=True, text=True, timeout=60,
                       env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "make lab-image" in r.stderr and r.stderr.count("\n") == 1
