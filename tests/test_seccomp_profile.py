"""The seccomp profile of the fio containers (containers/seccomp/fio.json, README beside it): shaped
as Docker reads it, made of real x86_64 system calls, restricted where Docker's default filter
restricts, applied by Topology to the images that run fio when the user chooses it (perflab run
--seccomp lab) and named in a run's provenance; and, live, fio runs under it while a call outside
it fails with EPERM."""
import json
import os
import re
from pathlib import Path

import pytest

from conftest import ROOT
from perflab.config.options import RunOptions
from perflab.infra import seccomp
from perflab.infra.containers import Topology

PROFILE = ROOT / "containers" / "seccomp" / "fio.json"
UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
ACTIONS = {"SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", "SCMP_ACT_LOG", "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS",
           "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP", "SCMP_ACT_TRACE"}


@pytest.fixture(scope="module")
def doc():
    return json.loads(seccomp.read(PROFILE))


def test_profile_is_shaped_as_docker_reads_it(doc):
    assert doc["defaultAction"] == "SCMP_ACT_ERRNO" and doc["defaultErrnoRet"] == 1
    arches = {a["architecture"]: a["subArchitectures"] for a in doc["archMap"]}
    assert set(arches) == {"SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"}
    for r in doc["syscalls"]:
        assert r["action"] in ACTIONS
        assert r["names"] and all(isinstance(n, str) and re.fullmatch(r"[a-z0-9_]+", n) for n in r["names"])
        assert set(r) <= {"names", "action", "args", "includes", "excludes", "errnoRet", "comment"}
    plain = [r for r in doc["syscalls"] if r["action"] == "SCMP_ACT_ALLOW" and not r.get("args") and not r.get("includes")]
    assert len(plain) == 1, "one allow rule for the calls without conditions"
    names = [n for r in doc["syscalls"] for n in r["names"]]
    assert len(plain[0]["names"]) == len(set(plain[0]["names"])) and plain[0]["names"] == sorted(plain[0]["names"])
    assert not set(plain[0]["names"]) & (set(names) - set(plain[0]["names"])), "a call both plain and conditional"


def test_every_name_is_an_x86_64_system_call(doc):
    if not UNISTD.exists():
        pytest.skip(f"{UNISTD} is not here (Debian's linux-libc-dev installs it) to name the x86_64 calls")
    known = set(re.findall(r"#define __NR_(\w+)\s+\d+", UNISTD.read_text()))
    assert len(known) > 300
    x86 = [n for r in doc["syscalls"] if "amd64" in r.get("includes", {}).get("arches", ["amd64"]) for n in r["names"]]
    assert sorted(set(x86) - known) == []


def test_what_docker_restricts_stays_restricted(doc):
    """No call that Docker's default filter refuses without capabilities the fio containers lack,
    and its checks on arguments kept: clone without CLONE_NEW*, socket not AF_VSOCK, ptrace only
    from kernel 4.8, clone3 answered ENOSYS (so that glibc uses clone)."""
    allowed = seccomp.allowed_calls(PROFILE)
    refused_by_docker = {"mount", "umount2", "unshare", "setns", "pivot_root", "chroot", "bpf", "perf_event_open",
                         "keyctl", "add_key", "request_key", "init_module", "finit_module", "delete_module",
                         "kexec_load", "reboot", "swapon", "swapoff", "syslog", "open_by_handle_at",
                         "quotactl", "acct", "settimeofday", "clock_settime", "iopl",
                         "ioperm", "mbind", "set_mempolicy", "get_mempolicy", "lookup_dcookie", "vhangup",
                         "fsopen", "fsmount", "move_mount", "open_tree", "kcmp", "pidfd_getfd", "userfaultfd"}
    assert sorted(allowed & refused_by_docker) == []
    rules = {n: [r for r in doc["syscalls"] if n in r["names"]] for n in ("clone", "clone3", "socket", "ptrace",
                                                                          "personality")}
    assert [r.get("args") for r in rules["clone"]] == [[{"index": 0, "value": 0x7E020000, "op": "SCMP_CMP_MASKED_EQ"}]]
    assert [(r["action"], r.get("errnoRet")) for r in rules["clone3"]] == [("SCMP_ACT_ERRNO", 38)]
    assert [r.get("args") for r in rules["socket"]] == [[{"index": 0, "value": 40, "op": "SCMP_CMP_NE"}]]
    assert all(r.get("includes", {}).get("minKernel") == "4.8" for r in rules["ptrace"]) and rules["ptrace"]
    assert all(r.get("args") for r in rules["personality"])


def test_the_images_that_run_fio_name_the_profile(manifest):
    named = {n for n, im in manifest.images.items() if im.seccomp is not None}
    assert named == {"fio", "ht", "nfsfio"}
    assert {manifest.images[n].seccomp for n in named} == {PROFILE}
    for lab in manifest.labs.values():   # every lab that runs fio runs it in a profiled image
        if lab.jobs_dir is not None and list(lab.jobs_dir.glob("*.fio")):
            assert set(lab.images) & named, lab.name


class _Create:
    """A Docker client whose create() only records its keyword arguments."""

    def __init__(self):
        self.calls = []
        self.containers = self

    def create(self, image, command, **kw):
        self.calls.append((image, kw.get("security_opt")))
        raise _Stop


class _Stop(Exception):
    pass


@pytest.mark.parametrize("choice", ["docker", "lab", "unconfined"])
def test_topology_applies_the_chosen_filter_to_the_images_that_name_a_profile(choice, manifest, tmp_path):
    from support.labctx import ctx

    client = _Create()
    # profiles from book.toml, filters as the run's options choose
    topo = Topology(ctx(manifest, tmp_path, options=RunOptions(seccomp=choice)), client=client)
    cases = [("perflab/fio:1", {}), ("perflab/ht:1", {}), ("perflab/nfsfio:1", {}), ("perflab/zfs:1", {}),
             ("perflab/fio:1", {"seccomp": None}), ("perflab/fio:1", {"seccomp": seccomp.UNCONFINED}),
             ("perflab/zfs:1", {"seccomp": PROFILE}),
             ("perflab/fio:1", {"security_opt": ["seccomp=unconfined", "no-new-privileges"]})]
    for image, kw in cases:
        with pytest.raises(_Stop):
            topo.container(image, "x", **kw)
    text = PROFILE.read_text()
    chosen = {"docker": None, "lab": ["seccomp=" + text], "unconfined": ["seccomp=unconfined"]}[choice]
    assert [opt for _, opt in client.calls] == [
        chosen, chosen, chosen, None,     # fio, ht, nfsfio as chosen; zfs names no profile: Docker's default
        None, ["seccomp=unconfined"], ["seccomp=" + text], ["seccomp=unconfined", "no-new-privileges"]]


def test_a_bad_choice_is_refused_naming_what_is_allowed():
    from perflab.errors import Refused

    with pytest.raises(Refused, match=r"PERFLAB_SECCOMP='strict' is not a seccomp choice; allowed: docker .*lab .*unconfined"):
        seccomp.choice("strict")
    assert seccomp.choice(None) == "docker"     # none given: Docker's default filter
    with pytest.raises(ValueError, match="seccomp 'strict': allowed: docker, lab, unconfined"):
        RunOptions(seccomp="strict")


def test_the_run_command_takes_the_choice_and_refuses_a_reference_under_another(tmp_path):
    """`perflab run --seccomp`: argparse names the allowed values; a reference is recorded under
    Docker's default filter only; --dry-run shows the filter of each image. Nothing is created."""
    from conftest import perflab_cmd

    def cli(*args, **env):
        return perflab_cmd(*args, timeout=120, env={**os.environ, **env})

    r = cli("run", "heatmaps", "--seccomp", "strict")
    assert r.returncode == 2 and "invalid choice: 'strict'" in r.stderr and "'lab'" in r.stderr
    r = cli("run", "heatmaps", "--record", "--seccomp", "lab")
    assert r.returncode == 2 and "--record runs under Docker's default seccomp filter" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    r = cli("run", "logzilla", "--dry-run", "--seccomp", "lab")
    assert r.returncode == 0 and "seccomp: fio containers/seccomp/fio.json, zfs docker default" in r.stdout, r.stdout
    r = cli("run", "logzilla", "--dry-run", PERFLAB_SECCOMP="unconfined")
    assert r.returncode == 0 and "seccomp: fio unconfined, zfs docker default" in r.stdout, r.stdout
    r = cli("run", "logzilla", "--dry-run", PERFLAB_SECCOMP="nonsense")
    assert r.returncode == 2 and "PERFLAB_SECCOMP='nonsense' is not a seccomp choice" in r.stderr, r.stderr


def test_the_choice_lasts_one_command_in_process(monkeypatch, capsys):
    """perflab.cli.main called in-process (as the chapter-command tests do) with --seccomp leaves the
    environment as it was (the choice travels in the run's options, not the environment): a later
    command in the same process gets Docker's default filter; --seccomp wins over PERFLAB_SECCOMP."""
    from perflab import cli

    monkeypatch.delenv(seccomp.ENV, raising=False)
    assert cli.main(["run", "logzilla", "--dry-run", "--seccomp", "lab"]) == 0
    assert "seccomp: fio containers/seccomp/fio.json" in capsys.readouterr().out
    assert seccomp.ENV not in os.environ
    assert cli.main(["run", "logzilla", "--dry-run"]) == 0
    assert "seccomp: fio docker default" in capsys.readouterr().out
    monkeypatch.setenv(seccomp.ENV, "unconfined")
    assert cli.main(["run", "logzilla", "--dry-run", "--seccomp", "lab"]) == 0
    assert "seccomp: fio containers/seccomp/fio.json" in capsys.readouterr().out
    assert os.environ[seccomp.ENV] == "unconfined"


def test_a_run_names_its_filter_in_provenance(manifest, tmp_path, monkeypatch):
    from perflab.config.params import resolve
    from perflab.run import session

    monkeypatch.setattr(session.cleanup, "runs_root", lambda root: tmp_path / "runs")
    lab = manifest.lab("logzilla")    # images fio (names the profile) and zfs (names none)
    sha = seccomp.sha256(PROFILE)
    for choice, fio in (("docker", seccomp.DOCKER_DEFAULT), ("unconfined", seccomp.UNCONFINED),
                        ("lab", {"profile": "containers/seccomp/fio.json", "sha256": sha})):
        options = RunOptions(seccomp=choice)
        run_dir = session.create_run(manifest, lab, "smoke", resolve(lab, "smoke"), owner=False, options=options)
        doc = json.loads((run_dir / "run.json").read_text())
        assert doc["provenance"]["seccomp"] == {"fio": fio, "zfs": seccomp.DOCKER_DEFAULT}, choice
        assert RunOptions.from_record(doc["options"]) == options   # what the notebook's session reads


def test_a_profile_book_toml_names_must_exist(manifest, tmp_path):
    import shutil

    from perflab.config import manifest as manifest_mod

    for d in ("chapters", "labs"):
        shutil.copytree(manifest.root / d, tmp_path / d)
    shutil.copy(manifest.root / "book.toml", tmp_path / "book.toml")
    with pytest.raises(manifest_mod.ManifestError, match="image fio: seccomp profile containers/seccomp/fio.json does not exist"):
        manifest_mod.load(tmp_path)


def test_a_broken_profile_is_refused_with_its_reason(tmp_path):
    bad = tmp_path / "bad.json"
    for text, words in (("{", "not valid JSON"), ('{"syscalls": []}', "needs a defaultAction"),
                        ('{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"action": "SCMP_ACT_ALLOW"}]}',
                         "syscalls[0] needs names")):
        bad.write_text(text)
        with pytest.raises(seccomp.ProfileError, match=re.escape(words)):
            seccomp.security_opt(bad)


# ------------------------------------------------------------------------------------- live

JOB = """\
[global]
filename=/data/seccomp-test.dat
size=8m
time_based
runtime=1
disable_lat=1
disable_slat=1
log_unix_epoch=1
[cached]
ioengine=psync
rw=randread
bs=4k
invalidate=0
write_lat_log=cached
log_avg_msec=0
[direct]
ioengine=libaio
iodepth=4
direct=1
rw=randread
bs=4k
write_hist_log=direct
log_hist_msec=1000
[dsync]
stonewall
ioengine=psync
rw=write
bs=8k
sync=dsync
numjobs=2
filename_format=seccomp-test.$jobnum.dat
directory=/data
end_fsync=1
write_bw_log=dsync
log_avg_msec=1000
"""


@pytest.mark.docker
def test_fio_runs_under_the_profile_and_other_calls_fail(docker_ok, manifest, tmp_path, artifacts, monkeypatch):
    """fio with the labs' options (psync, libaio with O_DIRECT, O_DSYNC, numjobs, end_fsync, the
    latency, histogram and bandwidth logs) runs to completion under the profile, which Topology
    applied because the image names it; mkfifo (mknodat, which Docker's default filter allows) and
    unshare fail with EPERM under it, and mkfifo works under Docker's default filter."""
    from perflab.fio import jobs

    from support.labctx import ctx

    tag = manifest.images["fio"].tag
    (tmp_path / "job.fio").write_text(JOB)
    lab_ctx = ctx(manifest, tmp_path / "run", run_id=f"test-seccomp-{os.getpid()}", options=RunOptions(seccomp="lab"))
    with Topology(lab_ctx, "test") as topo:
        vol = topo.volume("data")
        data = {vol.name: {"bind": "/data", "mode": "rw"}}
        result = jobs.run_in_container(topo, tag, tmp_path / "job.fio", tmp_path, "job", volumes=data, timeout=120)
        doc = json.loads(result.read_text())
        (artifacts / "fio.json").write_text(result.read_text())
        ios = {j["jobname"]: j["read"]["total_ios"] + j["write"]["total_ios"] for j in doc["jobs"]}
        assert set(ios) == {"cached", "direct", "dsync"} and all(ios.values()), ios
        assert sorted(p.name for p in tmp_path.glob("*.log")) == [
            "cached_clat.1.log", "direct_clat_hist.2.log", "dsync_bw.3.log", "dsync_bw.4.log"]

        c = topo.container(tag, "probe", ["sleep", "infinity"], network_mode="none")
        c.reload()
        assert c.attrs["HostConfig"]["SecurityOpt"] == ["seccomp=" + PROFILE.read_text()]
        outputs = {}
        for what, cmd in (("mkfifo", ["mkfifo", "/tmp/fifo"]), ("unshare", ["unshare", "--uts", "true"]),
                          ("fio", ["fio", "--version"])):
            r = c.exec_run(cmd)
            outputs[what] = (r.exit_code, r.output.decode(errors="replace"))
        (artifacts / "probes.txt").write_text(json.dumps(outputs, indent=1))
        assert outputs["fio"][0] == 0
        for what in ("mkfifo", "unshare"):
            code, out = outputs[what]
            assert code != 0 and "Operation not permitted" in out, (what, code, out)

        d = topo.container(tag, "default-filter", ["sleep", "infinity"], network_mode="none", seccomp=None)
        d.reload()
        assert not d.attrs["HostConfig"].get("SecurityOpt")
        r = d.exec_run(["mkfifo", "/tmp/fifo"])
        assert r.exit_code == 0, r.output    # the test tells the two filters apart
