"""Labs run for real (fio in Docker, through papermill), refuse bad parameters before creating
anything, and leave nothing behind: after success, after SIGTERM or SIGINT, and after SIGKILL
followed by `perflab clean`. Evidence (commands, outputs) is kept under test-artifacts/."""
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, perflab_cmd
from perflab.config import manifest as manifest_mod
from perflab.infra import cleanup, labels, ledger, procs, seccomp
from perflab.analysis.checks import failed

pytestmark = [pytest.mark.docker, pytest.mark.slow]
LABS = list(manifest_mod.load(ROOT).labs)   # every lab's smoke preset runs live


def run_dirs():
    base = ROOT / "data" / "runs"
    return set(base.iterdir()) if base.exists() else set()


def labelled():
    return labels.docker_objects(labels.docker_client())


def keep(artifacts, name, proc_or_text):
    text = proc_or_text if isinstance(proc_or_text, str) else (
        f"$ {' '.join(map(str, proc_or_text.args))}\nexit {proc_or_text.returncode}\n"
        f"--- stdout\n{proc_or_text.stdout}\n--- stderr\n{proc_or_text.stderr}")
    (artifacts / name).write_text(text)


def zram_in_use():
    """Every zram device, sized or not (one hot-added and never sized is left behind all the same)."""
    return {d.name for d in Path("/sys/block").glob("zram*")}


ZRAM_BEFORE = zram_in_use()   # the machine's own (e.g. zram swap) are not ours


def assert_nothing_left(artifacts, how: str = ""):
    """`how`: what the test did, for the failure message (CI keeps only its log)."""
    r = perflab_cmd("clean", "--check")
    keep(artifacts, "clean-check.txt", r)
    assert r.returncode == 0, how + r.stdout + r.stderr
    assert labelled() == []
    mounts = [ln for ln in open("/proc/self/mounts") if "/run/perflab" in ln or " fuse.zfs " in ln
              or " fuse.slowdisk " in ln]
    assert mounts == []
    assert zram_in_use() <= ZRAM_BEFORE


def test_bad_parameter_refused_before_anything_exists(docker_ok, artifacts):
    before, objs = run_dirs(), labelled()
    r = perflab_cmd("run", "heatmaps", "--preset", "smoke", "-p", "runtime=2h", "-p", "bs=1000", "-p", "colour=red")
    keep(artifacts, "refused.txt", r)
    assert r.returncode == 2
    for words in ("runtime=2h", "above the maximum 30m", "bs=1000B", "multiple of 512B", "unknown parameter 'colour'",
                  "nothing was created"):
        assert words in r.stderr
    assert run_dirs() == before and labelled() == objs


@pytest.mark.parametrize("lab", LABS)
def test_smoke_run_completes_with_checks_and_provenance(docker_ok, artifacts, manifest, lab):
    uses_fio = "fio" in manifest.lab(lab).images
    r = perflab_cmd("run", lab, "--preset", "smoke")
    keep(artifacts, "run.txt", r)
    run_dir = Path(r.stdout.strip().splitlines()[-1])
    doc = json.loads((run_dir / "run.json").read_text())
    keep(artifacts, "run.json", json.dumps(doc, indent=2))
    assert r.returncode == 0, r.stderr
    assert doc["status"] == "complete" and doc["lab"] == lab and doc["preset"] == "smoke"
    assert doc["checks"] and not any(failed(c) for c in doc["checks"]), doc["checks"]
    # a check is a pass or a fail, or "not shown here" (passed None) with the reason the run measured
    assert all(set(c) == {"name", "passed", "value", "expected"} | ({"not_shown"} if c["passed"] is None else set())
               for c in doc["checks"])
    prov = doc["provenance"]
    keys = ("git_sha", "git_dirty", "images", "kernel", "cpu", "started", "ended") + (("fio_version",) if uses_fio else ())
    for key in keys:
        assert prov.get(key) is not None, key
    if uses_fio:
        assert prov["fio_version"].startswith("fio-")
    assert all(v["id"].startswith("sha256:") for v in prov["images"].values())
    assert prov["seccomp"] == {n: seccomp.DOCKER_DEFAULT for n in manifest.lab(lab).images}   # the filter it ran under
    assert doc["metrics"]
    assert (run_dir / "notebook.ipynb").is_file() and list((run_dir / "figures").glob("*.html"))
    if uses_fio:
        assert list((run_dir / "fio").rglob("*.fio")) and list((run_dir / "fio").rglob("*.json"))
    assert not (run_dir / cleanup.OWNER).exists()
    assert_nothing_left(artifacts)


def _start(lab, *extra):
    return subprocess.Popen([str(ROOT / "scripts" / "perflab"), "run", lab, "--preset", "smoke", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


#: The container whose appearance means a lab is mid-run (its main fio job has started).
MID_RUN = {"heatmaps": "", "logzilla": "-sync-writes", "l2arc": "-random-reads", "elinks": "-tracer",
           "bad-cable": "-client1", "jbod": "-fio-phase1", "latency-art": "-icy-lake", "benchmarking": "-traps",
           "stepping": "-stepped", "ht": "-fio-2cpu", "streaming": "-fio", "dedup": "-planted",
           # regression: the first warm-up read (as long as a round: -p phase=60s); the first round
           # comes after both warm-ups, two minutes later
           "disk-model": "-components", "regression": "-warmup-before",
           "durability": "-writers", "load": "-clients", "nfs-layers": "-nfs-sync-writes"}


def _wait_for_containers(run_ids_before, timeout=240, suffix=""):
    """Until a container of a new run is up (the lab is mid-run)."""
    t_end = time.time() + timeout
    while time.time() < t_end:
        new = [o for o in labelled() if o[0] == "container" and o[2] and o[2] not in run_ids_before
               and o[1].endswith(suffix)]
        if new:
            return new[0][2]
        time.sleep(0.5)
    raise AssertionError("no lab container appeared")


#: one lab for each kind of thing a run makes (a volume, a ZFS server and its mounts, a tracer and processes
#: in containers, tc on veths, loop devices and partitions, slowdisk mounts on tmpfs, a blkio throttle,
#: cgroups and perf processes) runs by default; the others take one of those paths (make test-long)
INTERRUPTS = [
    ("heatmaps", signal.SIGTERM, ["-p", "runtime=120s"]),
    ("heatmaps", signal.SIGINT, ["-p", "runtime=120s"]),
    ("logzilla", signal.SIGTERM, ["-p", "before=120s"]),
    ("l2arc", signal.SIGTERM, ["-p", "warm_time=300s"]),
    ("elinks", signal.SIGTERM, ["-p", "phase=60s"]),
    ("bad-cable", signal.SIGTERM, ["-p", "phase=60s"]),
    ("jbod", signal.SIGTERM, ["-p", "phase=60s"]),
    ("latency-art", signal.SIGTERM, ["-p", "icy_time=120s"]),
    ("benchmarking", signal.SIGTERM, ["-p", "runtime=60s"]),
    ("stepping", signal.SIGTERM, ["-p", "step=60s"]),
    ("ht", signal.SIGTERM, ["-p", "runtime=30s"]),
    ("streaming", signal.SIGTERM, ["-p", "file_size=256MiB"]),
    ("dedup", signal.SIGTERM, ["-p", "data_size=1GiB"]),
    ("disk-model", signal.SIGTERM, ["-p", "phase=60s"]),
    ("regression", signal.SIGTERM, ["-p", "phase=60s"]),
    ("durability", signal.SIGTERM, ["-p", "kill_after=120s"]),
    ("load", signal.SIGTERM, ["-p", "step=60s"]),
    ("nfs-layers", signal.SIGTERM, ["-p", "before=120s"]),
]
#: heatmaps' volume is interrupted in the default run by the random-moment SIGINT and the SIGKILL tests below
LONG_INTERRUPTS = {"l2arc", "benchmarking", "streaming", "dedup", "disk-model", "regression", "durability", "load",
                   "nfs-layers", "heatmaps"}


@pytest.mark.parametrize("lab,sig,extra", [
    pytest.param(lab, sig, extra, id=f"{lab}-{sig.name}",
                 marks=[pytest.mark.long] if lab in LONG_INTERRUPTS else [])
    for lab, sig, extra in INTERRUPTS])
def test_interrupted_run_cleans_up_and_is_marked_incomplete(docker_ok, artifacts, lab, sig, extra):
    before = {p.name for p in run_dirs()}
    p = _start(lab, *extra)
    run_id = _wait_for_containers(before, suffix=MID_RUN[lab])
    time.sleep(2)
    p.send_signal(sig)
    out, err = p.communicate(timeout=180)
    keep(artifacts, "interrupted.txt", f"exit {p.returncode}\n--- stdout\n{out}\n--- stderr\n{err}")
    assert p.returncode == 130
    run_dir = ROOT / "data" / "runs" / run_id
    assert out.strip().splitlines()[-1] == str(run_dir)
    doc = json.loads((run_dir / "run.json").read_text())
    assert doc["status"] == "incomplete" and "interrupted" in doc["error"]
    assert doc["phases"]  # it kept what it had collected
    assert [e for e in ledger.Ledger(run_dir).open_entries()] == []
    assert_nothing_left(artifacts)


def test_sigkill_then_clean_removes_what_is_labelled_or_recorded(docker_ok, artifacts):
    before = {p.name for p in run_dirs()}
    p = _start("heatmaps", "-p", "runtime=120s")
    run_id = _wait_for_containers(before)
    p.kill()
    p.communicate(timeout=30)
    check = perflab_cmd("clean", "--check")
    keep(artifacts, "check-before-clean.txt", check)
    assert check.returncode == 1 and run_id in check.stdout  # the leftovers are seen
    r = perflab_cmd("clean")
    keep(artifacts, "clean.txt", r)
    assert r.returncode == 0, r.stderr
    run_dir = ROOT / "data" / "runs" / run_id
    for e in [json.loads(x) for x in (run_dir / "resources.jsonl").read_text().splitlines()]:
        if e["kind"] == "process" and e["op"] == "create":
            assert not procs.process_alive(int(e["id"]), e.get("start_time"))
    assert json.loads((run_dir / "run.json").read_text())["status"] == "incomplete"
    assert_nothing_left(artifacts)


def test_sigkill_as_the_notebook_kernel_starts_then_clean_leaves_nothing(docker_ok, artifacts):
    """The runner killed while its notebook's kernel starts, before the kernel has recorded itself: the
    kernel goes on making the run's objects unless clean finds it by the run its environment names
    (53836bb's CI: jbod's loop devices and a container left after `perflab clean`)."""
    before = {p.name for p in run_dirs()}
    p = _start("jbod")
    t_end, kernel = time.time() + 60, None
    while kernel is None and time.time() < t_end and p.poll() is None:
        new = [d for d in run_dirs() if d.name not in before]
        kernel = next((pid for d in new for pid in procs.marked_processes(d)
                       if "ipykernel" in procs.command_line(pid)), None)
        time.sleep(0.02)
    p.kill()
    p.communicate(timeout=30)
    assert kernel is not None, "no notebook kernel of the run appeared within 60 s"
    r = perflab_cmd("clean")
    keep(artifacts, "clean.txt", r)
    assert r.returncode == 0, r.stderr
    time.sleep(3)   # what a kernel left running would make meanwhile
    assert not procs.process_alive(kernel, None)
    assert_nothing_left(artifacts)


# A signal at a random moment of a run (before its containers exist, while they start, mid-run, while it
# cleans up): whatever the moment, nothing is left behind and the run is never marked complete. The
# moment is drawn from PERFLAB_TEST_SEED (default: the clock) and written to the artifacts, so that
# a failure can be replayed.
RANDOM_CASES = [("heatmaps", signal.SIGINT), ("logzilla", signal.SIGTERM), ("l2arc", signal.SIGTERM),
                ("jbod", signal.SIGKILL)]


@pytest.mark.parametrize("lab,sig", [pytest.param(lab, sig, id=f"{lab}-{sig.name}",
                                                 marks=[pytest.mark.long] if lab in ("logzilla", "l2arc") else [])
                                    for lab, sig in RANDOM_CASES])
def test_interrupted_at_a_random_moment_leaves_nothing(docker_ok, artifacts, lab, sig):
    import os
    import random

    seed = int(os.environ.get("PERFLAB_TEST_SEED") or time.time_ns() % 10**9)
    delay = random.Random(f"{seed}-{lab}").uniform(0.2, 25.0)
    before = {p.name for p in run_dirs()}
    p = _start(lab)
    time.sleep(delay)
    p.send_signal(sig)
    out, err = p.communicate(timeout=240)
    how = f"PERFLAB_TEST_SEED={seed}: {sig.name} after {delay:.2f} s\n"
    keep(artifacts, "interrupted-random.txt", f"{how}exit {p.returncode}\n--- stdout\n{out}\n--- stderr\n{err}")
    if sig == signal.SIGKILL:
        r = perflab_cmd("clean")
        keep(artifacts, "clean.txt", r)
        assert r.returncode == 0, how + r.stderr
    else:
        # interrupted (130), or finished just before the signal landed (0)
        assert p.returncode in (0, 130), (how, p.returncode, err[-2000:])
    new = [d for d in run_dirs() if d.name not in before]
    for d in new:
        f = d / "run.json"
        if f.exists():
            status = json.loads(f.read_text())["status"]
            assert status == ("complete" if p.returncode == 0 else "incomplete"), (how, d.name, status)
    assert_nothing_left(artifacts, how)


def test_clean_leaves_unlabelled_objects_alone(docker_ok, artifacts):
    """`perflab clean` removes only what is perflab's: a volume without our labels survives."""
    client = labels.docker_client()
    v = client.volumes.create("perflab-test-not-ours")
    try:
        r = perflab_cmd("clean")
        assert r.returncode == 0
        assert client.volumes.get("perflab-test-not-ours")
    finally:
        v.remove(force=True)
