"""When no Docker engine answers, the user is told why in words they can act on (issue 27): permission
on the socket, a DOCKER_HOST that names nothing, or no engine running; not "none answers" for all three."""
import os
import subprocess
import sys

from perflab.infra import labels

PERMISSION = ("Error while fetching server API version: ('Connection aborted.', "
              "PermissionError(13, 'Permission denied'))")
REFUSED = "Error while fetching server API version: ('Connection aborted.', FileNotFoundError(2, 'No such file'))"


def test_permission_denied_says_root_or_the_docker_group(monkeypatch):
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    r = labels.no_engine_reason(PERMISSION)
    assert "permission denied on the Docker socket (unix:///var/run/docker.sock)" in r and "'docker' group" in r


def test_a_docker_host_that_names_nothing_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    r = labels.no_engine_reason()      # asks the client: it cannot connect
    assert r.startswith(f"DOCKER_HOST=unix://{tmp_path}/nothing.sock does not answer") and "unset DOCKER_HOST" in r


def test_no_socket_says_no_engine_is_running(monkeypatch, tmp_path):
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(labels, "DEFAULT_SOCKET", str(tmp_path / "docker.sock"))
    assert labels.no_engine_reason(REFUSED).startswith("no Docker engine is running")
    (tmp_path / "docker.sock").touch()
    assert "does not answer: start it" in labels.no_engine_reason(REFUSED)


def test_a_run_refused_for_a_wrong_docker_host_says_so_in_one_line(tmp_path):
    env = dict(os.environ, DOCKER_HOST=f"unix://{tmp_path}/nothing.sock")
    r = subprocess.run([sys.executable, "-m", "perflab.cli", "run", "heatmaps", "--preset", "smoke"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "DOCKER_HOST=" in lines[0] and "Traceback" not in r.stderr, r.stderr
