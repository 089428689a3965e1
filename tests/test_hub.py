"""A class on a real JupyterHub (issue 31): JupyterHub and DockerSpawner installed from PyPI and
configurable-http-proxy from npm, a hub started from examples/class/jupyterhub/jupyterhub_config.py
on the loopback address, two students' servers spawned from the lab-hub image (the lab-host image
with a single-user server, examples/class/jupyterhub/Dockerfile). Each student gets a bad-cable
mystery package from `perflab assign` (uploaded through their server's contents API), runs it
from a kernel as their notebook would, and answers from the evidence the executed notebook shows;
the instructor collects both run directories from the students' containers and grades them with
`perflab grade`. The two runs start together and queue behind the machine's lab lock, bound into
both containers. Afterwards the hub, its proxy, both containers and their volumes are gone and
this machine has nothing new.

The test adds to the example config only what a test needs: its own ports, a login-free
authenticator and an API token for itself (a department sets its own authenticator).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import io
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import ROOT, perflab_cmd
from support import hoststate
from support.jupyter import Hub, JupyterError, Server
from support.mystery import bad_cable_answers
from perflab.infra import labels

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.long]

EXAMPLE = ROOT / "examples" / "class" / "jupyterhub"
HUB_PACKAGES = ("jupyterhub==6.1.1", "dockerspawner==14.0.0")
PROXY_PACKAGE = "configurable-http-proxy@5.3.0"
IMAGE = "perflab/lab-hub:trixie"
LAB = "bad-cable"
STUDENTS = ("hubtest-alice", "hubtest-bob")
WAITS = "waiting for the lab that is running"


def sh(*cmd, timeout=600, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)


def free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def listening(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex((host, port)) == 0


def rights_as_host_config(options: list[str]) -> dict:
    """scripts/lab-host --rights (docker run options, one a line) as the container's HostConfig shows them."""
    out = {"CapAdd": [], "CapDrop": [], "SecurityOpt": [], "DeviceCgroupRules": [], "Binds": [],
           "Privileged": False, "PidMode": ""}
    it = iter(options)
    for o in it:
        if o == "--privileged":
            out["Privileged"] = True
        elif o.startswith("--pid="):
            out["PidMode"] = o.split("=", 1)[1]
        elif o == "-e":
            next(it)    # the environment: compared apart
        else:
            field = {"--cap-add": "CapAdd", "--cap-drop": "CapDrop", "--security-opt": "SecurityOpt",
                     "--device-cgroup-rule": "DeviceCgroupRules", "-v": "Binds"}[o]
            out[field].append(next(it))
    return out


def students_containers(client) -> dict:
    """The students' containers (DockerSpawner escapes the names; each container's environment names its user)."""
    out = {}
    for c in client.containers.list(all=True, filters={"ancestor": IMAGE}):
        env = dict(e.split("=", 1) for e in c.attrs["Config"]["Env"] or [] if "=" in e)
        if env.get("JUPYTERHUB_USER") in STUDENTS:
            out[env["JUPYTERHUB_USER"]] = c
    return out


def student_cell(package: str) -> str:
    """What a student's notebook cell runs: the command their package's README gives."""
    return f"""import json, subprocess
r = subprocess.run(["scripts/perflab", "run", "{LAB}", "--variant", "{package}/variant.json"],
                   cwd="/work", capture_output=True, text=True)
print(json.dumps({{"rc": r.returncode, "stdout": r.stdout, "stderr": r.stderr}}))
"""


@pytest.fixture(scope="module")
def installed(docker_ok, manifest, tmp_path_factory):
    """The lab-hub image built from this tree; the hub and its proxy installed from the registries;
    the lab's images saved for the students' engines."""
    r = sh("bash", ROOT / "scripts" / "build-lab-image.sh", "trixie", timeout=2400, cwd=ROOT)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    r = sh("docker", "build", "-q", "-t", IMAGE, EXAMPLE, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    tools = tmp_path_factory.mktemp("hub-tools")
    r = sh(sys.executable, "-m", "venv", tools / "venv")
    assert r.returncode == 0, r.stderr
    r = sh(tools / "venv" / "bin" / "pip", "install", "-q", "--disable-pip-version-check", *HUB_PACKAGES, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    r = sh("npm", "install", "--prefix", tools / "proxy", "--no-audit", "--no-fund", PROXY_PACKAGE, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    images = tmp_path_factory.mktemp("hub-images")
    tags = sorted({manifest.images[n].tag for n in manifest.lab(LAB).images} | {"debian:bookworm-slim"})
    r = sh("docker", "save", "-o", images / "labs.tar", *tags, timeout=900)
    assert r.returncode == 0, r.stderr
    yield tools, images
    (images / "labs.tar").unlink(missing_ok=True)


def test_a_hub_spawns_two_students_who_run_their_mystery_labs_and_are_graded(installed, tmp_path, artifacts):
    tools, images = installed
    client = labels.docker_client()
    gateway = client.networks.get("bridge").attrs["IPAM"]["Config"][0]["Gateway"]
    public, proxy_api, hub_port = free_port("127.0.0.1"), free_port("127.0.0.1"), free_port(gateway)
    token = os.urandom(16).hex()
    (tmp_path / "test_config.py").write_text(f"""
c = get_config()  # noqa: F821
load_subconfig({str(EXAMPLE / "jupyterhub_config.py")!r})  # noqa: F821
c.JupyterHub.authenticator_class = "null"      # the test logs in with its API token only
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api}"
c.JupyterHub.services = [{{"name": "perflab-test", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "perflab-test", "services": ["perflab-test"],
                             "scopes": ["admin:users", "admin:servers", "access:servers"]}}]
""")
    # the instructor's class: one mystery package per student, and the key
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\n" + "".join(f"{s},{s.split('-')[1].title()}\n" for s in STUDENTS))
    r = perflab_cmd("assign", LAB, "--students", str(roster), "--seed", "hub-test", "--out", str(tmp_path / "class"))
    assert r.returncode == 0, r.stderr
    volumes = set()
    before = hoststate.outer_state()
    env = {**os.environ, "PATH": f"{tools / 'proxy' / 'node_modules' / '.bin'}:{os.environ['PATH']}",
           "PERFLAB_HUB_URL": f"http://127.0.0.1:{public}", "PERFLAB_HUB_IMAGES": str(images)}
    log = open(artifacts / "hub.log", "w")
    proc = subprocess.Popen([str(tools / "venv" / "bin" / "jupyterhub"), "-f", str(tmp_path / "test_config.py")],
                            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    hub = Hub(f"http://127.0.0.1:{public}/hub/api", token)
    try:
        for _ in range(120):
            assert proc.poll() is None, (artifacts / "hub.log").read_text()[-3000:]
            try:
                hub.call("GET", "", timeout=5)
                break
            except (OSError, JupyterError):   # not listening yet, or the proxy up before the hub's route
                time.sleep(1)
        else:
            pytest.fail("the hub did not answer in 120 s:\n" + (artifacts / "hub.log").read_text()[-3000:])
        # only this machine reaches it: the public side on the loopback, the API on the Docker bridge
        assert not listening(gateway, public) and listening("127.0.0.1", public)
        hub.add_users(*STUDENTS)
        t0 = time.monotonic()
        for s in STUDENTS:
            hub.spawn(s)
        for s in STUDENTS:
            hub.wait_ready(s)
        spawned = time.monotonic() - t0
        servers = {s: Server(f"http://127.0.0.1:{public}/user/{s}", token) for s in STUDENTS}
        containers = students_containers(client)
        assert set(containers) == set(STUDENTS), containers
        # each student's engine data and runs in volumes of their own, the machine's lab lock and the images bound
        for s, c in containers.items():
            mounts = {m["Destination"]: m for m in c.attrs["Mounts"]}
            volumes |= {m["Name"] for m in mounts.values() if m["Type"] == "volume"}
            assert all(mounts[d]["Type"] == "volume" and s.replace("-", "") in mounts[d]["Name"].replace("-2d", "")
                       for d in ("/var/lib/docker", "/work/data/runs")), mounts
            assert mounts["/run/perflab/labs.lock"]["Source"] == "/run/perflab/labs.lock"
            assert mounts["/images"]["Source"] == str(images) and not mounts["/images"]["RW"]
        # each container has the rights scripts/lab-host gives on this machine
        rights = sh(ROOT / "scripts" / "lab-host", "--rights", cwd=ROOT).stdout.splitlines()
        want = rights_as_host_config(rights)
        for s, c in containers.items():   # (DockerSpawner adds label=disable, SELinux's; binds are rw unless said)
            got = c.attrs["HostConfig"]
            for field, v in want.items():
                if isinstance(v, list):
                    norm = (lambda xs: {x.removesuffix(":rw") for x in xs}) if field == "Binds" else set
                    assert norm(v) <= norm(got[field] or []), (field, v, got[field])
                else:
                    assert got[field] == v, (field, v, got[field])
            assert "TINI_SUBREAPER=1" in c.attrs["Config"]["Env"]
        # the students get their packages through their servers, and run them at once from a kernel
        for s, srv in servers.items():
            srv.mkdir("assignment")
            for f in sorted((tmp_path / "class" / s).iterdir()):
                srv.put_text(f"assignment/{f.name}", f.read_text())
        t0 = time.monotonic()
        with ThreadPoolExecutor(len(STUDENTS)) as pool:
            done = dict(zip(STUDENTS, pool.map(lambda s: servers[s].execute(student_cell("assignment")), STUDENTS)))
        ran = time.monotonic() - t0
        results = {}
        for s, (status, printed) in done.items():
            (artifacts / f"{s}-cell.txt").write_text(printed)
            assert status == "ok", printed[-3000:]
            results[s] = json.loads(printed.strip().splitlines()[-1])
            assert results[s]["rc"] == 0, results[s]["stderr"][-3000:]
        # one lab at a time on the machine: one of the two waited for the other's run
        assert sum(WAITS in r["stderr"] for r in results.values()) == 1, [r["stderr"][-800:] for r in results.values()]
        # each answers from their executed notebook and saves the answers beside it, through their server
        collected = tmp_path / "collected"
        for s, srv in servers.items():
            run_dir = results[s]["stdout"].strip().splitlines()[-1]          # /work/data/runs/<name>
            rel = os.path.relpath(run_dir, "/work")
            answers = bad_cable_answers(json.loads(srv.get_text(f"{rel}/notebook.ipynb")))
            srv.put_text(f"{rel}/answers.json", json.dumps({"student": s, **answers}))
            # the instructor collects the run directory from the student's container
            stream, _ = containers[s].get_archive(run_dir)
            (collected / s).mkdir(parents=True)
            with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
                tar.extractall(collected / s, filter="data")
        r = perflab_cmd("grade", "--key", str(tmp_path / "class" / "instructor" / "key.json"), "--class",
                        str(collected), "--json", str(tmp_path / "grades.json"), "--csv", str(tmp_path / "grades.csv"))
        (artifacts / "grade.txt").write_text(r.stdout + r.stderr)
        assert r.returncode == 0, r.stderr
        reports = {x["student"]: x for x in json.loads((tmp_path / "grades.json").read_text())}
        assert set(reports) == set(STUDENTS)
        for s, rep in reports.items():
            assert rep["integrity"]["ok"] and rep["integrity"]["rederived"] is True, rep["integrity"]
            assert rep["score"] == rep["max"], r.stdout
        (artifacts / "times.txt").write_text(f"spawn both: {spawned:.0f} s\nrun both: {ran:.0f} s\n")
        for s in STUDENTS:
            hub.stop(s)
        for s in STUDENTS:
            for _ in range(120):
                if s not in students_containers(client):
                    break
                time.sleep(1)
            else:
                pytest.fail(f"{s}'s container is still there 120 s after the hub stopped the server")
    finally:
        proc.send_signal(signal.SIGINT)   # the hub stops the servers it started and its proxy
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        for c in students_containers(client).values():
            c.remove(force=True, v=True)
        for v in volumes | {v.name for v in client.volumes.list() if v.name.startswith("perflab-hubtest-")}:
            sh("docker", "volume", "rm", "-f", v)
    assert proc.returncode == 0, (artifacts / "hub.log").read_text()[-3000:]
    # nothing of the hub's is left: no process in its session, no port, no container, no volume
    left = sh("pgrep", "-s", proc.pid).stdout.split()
    assert not left, left
    assert not listening("127.0.0.1", public) and not listening("127.0.0.1", proxy_api)
    assert not listening(gateway, hub_port)
    after = hoststate.outer_state()
    assert hoststate.differences(before, after) == {}, hoststate.differences(before, after)
