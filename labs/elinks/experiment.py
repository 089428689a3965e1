"""The elinks experiment: its phases and its run (the home-directory server, the desktops, the
stand-in under strace and bpftrace, then the fixed stand-in)."""
from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from perflab.fio.live import announce
from perflab.infra.containers import Topology, exec_sh, wait_for_file
from perflab.infra.context import LabContext, image_tag
from perflab.infra.inside import Background, host_pid, read_pidfile, stop_pid
from perflab.infra.tracers import Bpftrace
from perflab.run.record import write_text_atomic

from .analysis import SETTLE_S, load
from .parsing import FORMHIST, REQUEST_PATTERN, bpftrace_status, openat_trace

HERE = Path(__file__).resolve().parent
# sshd: switch to the user (SETUID, SETGID), privilege separation (SYS_CHROOT), port 22
# (NET_BIND_SERVICE), signal its session processes (KILL); the start script gives the home
# directories to their users (CHOWN).
SERVER_CAPS = ["SETUID", "SETGID", "SYS_CHROOT", "NET_BIND_SERVICE", "KILL", "CHOWN"]
DESKTOP_CAPS = ["SYS_ADMIN"]  # the FUSE mount of sshfs
STACK_SAMPLE_S = 0.5  # how long strace -k watches


def plan(p: Mapping) -> list[tuple[str, float]]:
    return [("prepare", 8.0 + 0.8 * p["clients"]), ("buggy", p["phase"] + 1.0),
            ("fixed", p["phase"] + 1.0), ("trace", 1.5), ("collect", 1.5)]


def _sleep_until(t: float) -> None:
    d = t - time.time()
    if d > 0:
        time.sleep(d)


def run(ctx: LabContext) -> None:
    """The home-directory server and the desktops, the buggy browser traced with strace and bpftrace, then
    the fixed one: the raw files under the run's server/ and clients/, timeline.json, and the traced
    opens as latency/openat.trace (the session then reads them back). No fio here: a watched run's page
    shows the server's requests by file and each desktop's interface counters instead."""
    p = ctx.params
    n, k, rate, work, T = p["clients"], p["buggy_client"], p["open_rate"], p["work_rate"], p["phase"]
    tags = {name: image_tag(ctx, name) for name in ("sftp", "desktop")}
    server_dir = ctx.path("server")
    server_dir.mkdir(exist_ok=True)
    cdirs = {j: ctx.path("clients", f"desk{j}") for j in range(1, n + 1)}
    for d in cdirs.values():
        d.mkdir(parents=True, exist_ok=True)
    tdir = cdirs[k]
    tl: dict = {"buggy_client": k, "open_rate": rate, "work_rate": work, "phase_s": T, "settle_s": SETTLE_S,
                "formhist": f"/home/desk{k}/{FORMHIST}", "clients": {}, "phases": {}, "tracing": {}}

    def save():
        ctx.write_json("timeline.json", data=tl)

    with Topology(ctx) as topo:
        with ctx.phase("prepare"):
            net = topo.network("lan", internal=True)
            keys, homes = topo.volume("keys"), topo.volume("homes")
            srv = topo.container(
                tags["sftp"], "server", network=net, hostname="server", environment={"CLIENTS": str(n)},
                cap_drop=["ALL"], cap_add=SERVER_CAPS,
                volumes={keys.name: {"bind": "/keys", "mode": "rw"}, homes.name: {"bind": "/home", "mode": "rw"},
                         str(server_dir): {"bind": "/log", "mode": "rw"}})
            wait_for_file(srv, "/keys/ready", 60, "the home-directory server")
            desks = {}
            for j in range(1, n + 1):
                desks[j] = topo.container(
                    tags["desktop"], f"desk{j}", network=net, hostname=f"desk{j}",
                    environment={"DESK_USER": f"desk{j}", "HOME": f"/home/desk{j}"},
                    cap_drop=["ALL"], cap_add=DESKTOP_CAPS, devices=["/dev/fuse:/dev/fuse:rwm"],
                    volumes={keys.name: {"bind": "/keys", "mode": "ro"},
                             str(cdirs[j]): {"bind": "/trace", "mode": "rw"}})
            for j, c in desks.items():
                wait_for_file(c, "/run/desktop-ready", 60, f"desktop {j} (sshfs mount)")
                tl["clients"][str(j)] = {"host": f"desk{j}", "user": f"desk{j}", "ip": topo.address(c, net.name)}
            save()
            # a watched run's page: the server's requests by file, and each desktop's interface counters
            announce("events", "SFTP requests per second, by file (the server's log)", live=topo.live_list,
                     path=server_dir / "sftp.log",
                     pattern=r'(?:internal-sftp|sftp-server)\[\d+\]: ' + REQUEST_PATTERN, unit="requests/s")
            for j, c in desks.items():
                Background(c, ["nicsample", "eth0", "/trace/net.log"])
                announce("counters", "KiB/s each desktop received (its interface's counters)", live=topo.live_list,
                         path=cdirs[j] / "net.log", key=f"desk{j}", scale=1 / 1024, unit="KiB/s")
                if j != k:
                    Background(c, ["desktop-work", f"{work:g}"])
            desk = desks[k]
            ctx.provenance(tools={
                "strace": exec_sh(desk, ["strace", "-V"])[1].splitlines()[0],
                "bpftrace": exec_sh(desk, ["bpftrace", "--version"])[1].strip(),
                "sshfs": next((ln for ln in exec_sh(desk, ["sshfs", "--version"])[1].splitlines()
                               if ln.startswith("SSHFS")), None),
                "openssh": exec_sh(srv, ["sh", "-c", "ssh -V 2>&1"])[1].strip()})
            time.sleep(1.0)

        with ctx.phase("buggy"):
            t0 = time.time()
            Background(desk, ["sh", "-c", f"exec elinks-standin --rate {rate:g} --pidfile /run/elinks.pid "
                                          "2>>/trace/elinks-standin.txt"])
            pid = read_pidfile(desk, "/run/elinks.pid")
            hpid = host_pid(desk, pid)
            tl["phases"]["buggy"] = [t0, None]
            _sleep_until(t0 + 1.0)
            window = max(3.0, T - 4.0)
            ta = time.time()
            st = Background(desk, ["timeout", "-s", "INT", f"{window:.1f}", "strace", "-f", "-ttt", "-T",
                                   "-e", "trace=openat", "-p", str(pid), "-o", "/trace/strace-openat.log"])
            tracer, bpf_status = None, None
            if hpid is None:
                bpf_status = "unavailable: the program's host process id was not found"
            else:
                try:
                    tracer = Bpftrace.start(topo, tags["desktop"], tdir, HERE / "formhist.bt", hpid, window)
                except Exception as e:  # noqa: BLE001 - bpftrace is optional; strace carries the chapter
                    bpf_status = f"unavailable: the tracer container did not start ({e})"
            st.wait(window + 20)
            tl["tracing"]["strace_openat"] = [ta, time.time()]
            tb = time.time()
            exec_sh(desk, ["timeout", "-s", "INT", f"{STACK_SAMPLE_S}", "strace", "-f", "-k", "-ttt", "-e", "trace=openat",
                       "-p", str(pid), "-o", "/trace/strace-stacks.log"])
            tl["tracing"]["strace_stacks"] = [tb, time.time()]
            if tracer is not None:
                code, err, out = tracer.finish(window + 30)
                bpf_status = bpftrace_status(out, err, code)
            tl["tracing"]["bpftrace"] = {"status": bpf_status, "window": [ta, ta + window], "host_pid": hpid,
                                         "pid_in_desktop": pid}
            _sleep_until(t0 + T)
            t_switch = time.time()
            tl["phases"]["buggy"] = [t0, t_switch]
            stop_pid(desk, pid)
            save()

        with ctx.phase("fixed"):
            t1 = time.time()
            Background(desk, ["sh", "-c", "exec strace -f -ttt -T -e trace=openat -o /trace/strace-fixed.log "
                                          f"elinks-standin --fixed --rate {rate:g} --pidfile /run/elinks-fixed.pid "
                                          "2>>/trace/elinks-standin.txt"])
            pid2 = read_pidfile(desk, "/run/elinks-fixed.pid")
            _sleep_until(t1 + T)
            t2 = time.time()
            tl["phases"]["fixed"] = [t1, t2]
            stop_pid(desk, pid2)
            time.sleep(0.5)  # the last log lines reach the listener
            save()

    with ctx.phase("trace"):   # the traced opens as trace2heatmap's input (latency/openat.trace), for the chapter
        d = load(ctx.data_dir)
        ctx.path("latency").mkdir(exist_ok=True)
        write_text_atomic(ctx.path("latency", "openat.trace"), openat_trace(d["strace"]))
