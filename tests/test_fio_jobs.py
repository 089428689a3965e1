"""fio job files: the shipped ones run on their own, parameters are applied by rewriting options
(never ${VAR}), and the rendering keeps the file valid for fio."""
import shutil
import subprocess
from pathlib import Path

import pytest

from perflab.fio import jobs as fio

ROOT = Path(__file__).resolve().parent.parent
JOBS = sorted(ROOT.glob("labs/*/jobs/*.fio"))


def test_there_are_job_files():
    assert JOBS


@pytest.mark.parametrize("path", JOBS, ids=[p.name for p in JOBS])
def test_job_file_header_and_no_expansion(path):
    text = path.read_text()
    assert "${" not in text
    header = [ln for ln in text.splitlines() if ln.startswith(";")]
    assert len(header) >= 2, "a job file starts with a comment saying what it does"
    assert fio.JobFile.parse(text).jobs()


NFS_IMAGE = "perflab/nfsfio:1"  # Debian's fio has no NFS engine; the bad-cable lab's image has


def _has_image(tag):
    docker = shutil.which("docker")
    return docker is not None and subprocess.run([docker, "image", "inspect", tag], capture_output=True).returncode == 0


@pytest.mark.parametrize("path", JOBS, ids=[p.name for p in JOBS])
def test_job_file_parses_in_fio(path):
    if fio.JobFile.load(path).get("global", "ioengine") == "nfs":
        if not _has_image(NFS_IMAGE):
            pytest.skip(f"ioengine=nfs needs fio built with libnfs: image {NFS_IMAGE} (make images)")
        cmd = ["docker", "run", "--rm", "--network", "none", "--label", "org.perflab.owner=perflab",
               "--label", "org.perflab.run=probe", "-v", f"{path.parent}:/jobs:ro", NFS_IMAGE,
               "fio", "--parse-only", f"/jobs/{path.name}"]
    elif shutil.which("fio") is None:
        pytest.skip("needs fio on the host")
    else:
        cmd = ["fio", "--parse-only", str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_dollar_expansion_refused():
    with pytest.raises(fio.JobFileError, match="x.fio:3.*expansion"):
        fio.JobFile.parse("[global]\nrw=read\nsize=${SIZE}\n[a]\n", "x.fio")


def test_apply_and_render(tmp_path):
    jf = fio.JobFile.parse("; header\n[global]\nbs=4k\ntime_based\n[a]\nwrite_lat_log=a\n[b]\ndirect=1\n")
    jf.apply({"global": {"bs": 8192, "time_based": False, "runtime": 5}, "a": {"write_lat_log": None,
                                                                                "write_hist_log": "a"}})
    text = jf.text()
    assert "bs=8192" in text and "time_based" not in text and "runtime=5" in text
    assert "write_lat_log" not in text and "write_hist_log=a" in text
    assert text.startswith("; header\n")
    again = fio.JobFile.parse(text)
    assert again.get("global", "bs") == "8192" and again.jobs() == ["a", "b"]
    with pytest.raises(fio.JobFileError, match="no section"):
        jf.set("c", "bs", 1)


def test_garbage_line_refused():
    with pytest.raises(fio.JobFileError, match="x.fio:2"):
        fio.JobFile.parse("[global]\n= nothing\n", "x.fio")
