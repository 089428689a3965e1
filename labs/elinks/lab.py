"""Lab `elinks` (chapter "Finding unnecessary work: the elinks bug", chapters/elinks.md).

Topology: one labelled, internal Docker network; on it a home-directory server (sshd serving SFTP,
every request logged through syslog to a listener that timestamps each line) and `clients`
desktops that mount their home directories from it with sshfs. The other desktops do modest
work (save a note, read a document back, `work_rate` times a second); desktop `buggy_client`
sits idle except for elinks-standin (labs/elinks/src/elinks_standin.c), which redraws its status
LEDs `open_rate` times a second and, on every redraw, tries to open ~/.elinks/formhist, a file
that does not exist.

Phases: `buggy` (`phase` seconds): the old program runs. One second in, strace attaches to count
its openat() calls and how long each took (`strace -f -ttt -T -e trace=openat -p PID`) and, in a separate tracer container,
bpftrace counts them by file name and takes the user stack at load_formhist_from_file
(labs/elinks/formhist.bt); near the end, `strace -k` records the stacks of a few calls. `fixed`
(`phase` seconds): the desktop runs the fixed program (`--fixed`: it remembers the file is
missing), started under strace.

Capabilities: the server keeps only what sshd uses (SERVER_CAPS); a desktop only SYS_ADMIN and
/dev/fuse, for its sshfs mount (strace needs nothing more: same user, same container); the tracer
only SYS_ADMIN (bpf, perf events and its own tracefs mount, in its own mount namespace) and the
host's PID namespace, which bpftrace needs to name the frames of a stack. Nothing is mounted on
the host and nothing runs privileged.

Files under the run directory:
  server/sftp.log                 every syslog line of the server: "<receive time> <syslog line>"
  clients/deskN/net.log           the desktop's eth0 counters each second (nicstat-like)
  clients/deskK/strace-openat.log openat() calls of the buggy program (strace -ttt -T: start, duration)
  clients/deskK/strace-stacks.log a few of them with their stacks (strace -k)
  clients/deskK/strace-fixed.log  openat() calls of the fixed program, from its start
  clients/deskK/bpftrace.json     bpftrace's output (-f json), bpftrace.stderr.txt its messages
  clients/deskK/elinks-standin.txt the programs' own summary lines (redraws, fopen calls)
  timeline.json                   clients (number, host, IP), phase times, tracing windows, status
  latency/openat.trace            the buggy program's openat() calls as "time_ns latency_ns" lines (the
                                  bpftrace trace form): what `perflab compare` maps against the reference
load() reads them back (from a live run or the reference run); drill_down() and the parse_*
functions are the analysis, tested on synthetic lines in tests/test_elinks.py.
"""
from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pandas as pd

from perflab.run.record import read_lines, write_text_atomic
from perflab.infra.containers import Topology, exec_sh, wait_for_file, wait_until

HERE = Path(__file__).resolve().parent
FORMHIST = ".elinks/formhist"
# The frames of the 2009 stack that the stand-in keeps, outermost first.
CHAIN = ("main", "select_loop", "check_timers", "redraw_leds", "redraw_terminal", "refresh_view",
         "draw_forms", "get_form_history_value", "load_formhist_from_file")
# sshd: switch to the user (SETUID, SETGID), privilege separation (SYS_CHROOT), port 22
# (NET_BIND_SERVICE), signal its session processes (KILL); the start script gives the home
# directories to their users (CHOWN).
SERVER_CAPS = ["SETUID", "SETGID", "SYS_CHROOT", "NET_BIND_SERVICE", "KILL", "CHOWN"]
DESKTOP_CAPS = ["SYS_ADMIN"]  # the FUSE mount of sshfs
TRACER_CAPS = ["SYS_ADMIN"]  # bpf(), perf_event_open() and mounting tracefs in its own namespace
SETTLE_S = 2.0  # a phase's first seconds (start-up, the fixed program's one look) are left out
STACK_SAMPLE_S = 0.5  # how long strace -k watches


def plan(p: dict) -> list[tuple[str, float]]:
    return [("prepare", 8.0 + 0.8 * p["clients"]), ("buggy", p["phase"] + 1.0),
            ("fixed", p["phase"] + 1.0), ("collect", 3.0)]


# ---------------------------------------------------------------------------------- running

def _exec_bg(c, cmd: list[str]) -> str:
    """Start a command in a running container without waiting; returns the exec id."""
    api = c.client.api
    eid = api.exec_create(c.id, cmd)["Id"]
    api.exec_start(eid, detach=True)
    return eid


def _exec_wait(c, eid: str, timeout: float) -> int | None:
    api = c.client.api
    wait_until(lambda: not api.exec_inspect(eid)["Running"], timeout, f"exec in {c.name}")
    return api.exec_inspect(eid)["ExitCode"]




def _read_pid(c, pidfile: str) -> int:
    wait_for_file(c, pidfile, 10, f"{pidfile} in {c.name}")
    return int(exec_sh(c, ["cat", pidfile])[1].strip())


def _host_pid(c, ns_pid: int) -> int | None:
    """The host's id of the process that container c knows as ns_pid (from NSpid in /proc)."""
    top = c.top()
    col = top["Titles"].index("PID")
    for row in top["Processes"]:
        try:
            for line in Path(f"/proc/{row[col]}/status").read_text().splitlines():
                if line.startswith("NSpid:") and int(line.split()[-1]) == ns_pid:
                    return int(row[col])
        except (OSError, ValueError):
            continue
    return None


def _stop(c, pid: int, timeout: float = 10.0) -> None:
    """SIGTERM one process of container c by its id, and wait until it is gone."""
    exec_sh(c, ["kill", "-TERM", str(pid)])
    wait_until(lambda: exec_sh(c, ["kill", "-0", str(pid)])[0] != 0, timeout, f"pid {pid} in {c.name} to exit")


def _sleep_until(t: float) -> None:
    d = t - time.time()
    if d > 0:
        time.sleep(d)


def _start_tracer(topo, tag: str, trace_dir: Path, host_pid: int, window: float):
    """bpftrace in its own container (host PID namespace, SYS_ADMIN only), for `window` seconds."""
    shutil.copy(HERE / "formhist.bt", trace_dir / "formhist.bt")
    script = ("mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || echo 'tracefs: mount failed' >&2; "
              f"exec timeout --preserve-status -s INT {window:.1f} bpftrace -p {host_pid} -f json "
              f"-o /trace/bpftrace.json /trace/formhist.bt {host_pid}")
    return topo.container(tag, "tracer", ["sh", "-c", script], network_mode="none", pid_mode="host",
                          cap_drop=["ALL"], cap_add=TRACER_CAPS,
                          volumes={str(trace_dir): {"bind": "/trace", "mode": "rw"}})


def _finish_tracer(topo, tracer, trace_dir: Path, timeout: float) -> str:
    """Wait for bpftrace, keep its messages, and say whether it produced what the chapter needs."""
    try:
        code = tracer.wait(timeout=timeout).get("StatusCode", -1)
    except Exception:  # noqa: BLE001 - a tracer that hangs is reported, not fatal
        code = None
    err = tracer.logs(stdout=True, stderr=True).decode(errors="replace")
    (trace_dir / "bpftrace.stderr.txt").write_text(err)
    topo.remove(tracer)
    out = trace_dir / "bpftrace.json"
    return bpftrace_status(out.read_text().splitlines() if out.exists() else [], err, code)


def bpftrace_status(out_lines: list[str], stderr: str, code: int | None) -> str:
    """'ran' when bpftrace printed per-second counts and at least one stack; otherwise
    'unavailable: <the reason bpftrace gave>'."""
    parsed = parse_bpftrace(out_lines) if out_lines else None
    if parsed is not None and len(parsed["per_second"]) and parsed["stacks"]:
        return "ran"
    # bpftrace always complains about RLIMIT_MEMLOCK in a container (harmless: the kernel accounts
    # BPF memory to the cgroup) and about detaching uprobes without uprobe_events: not reasons.
    noise = ("RLIMIT_MEMLOCK", "failed to detach", "uprobe_events")
    problems = [ln.strip() for ln in stderr.splitlines()
                if ("ERROR" in ln or "failed" in ln) and not any(x in ln for x in noise)]
    if problems:
        return f"unavailable: {problems[-1]}"
    if code is None:
        return "unavailable: bpftrace did not finish in time"
    return f"unavailable: exit status {code}, " + ("no stack recorded" if parsed else "no output")


def run(s) -> None:
    p = s.params
    n, k, rate, work, T = p["clients"], p["buggy_client"], p["open_rate"], p["work_rate"], p["phase"]
    tags = {name: s.manifest.images[name].tag for name in ("sftp", "desktop")}
    server_dir = s.path("server")
    server_dir.mkdir(exist_ok=True)
    cdirs = {j: s.path("clients", f"desk{j}") for j in range(1, n + 1)}
    for d in cdirs.values():
        d.mkdir(parents=True, exist_ok=True)
    tdir = cdirs[k]
    tl: dict = {"buggy_client": k, "open_rate": rate, "work_rate": work, "phase_s": T, "settle_s": SETTLE_S,
                "formhist": f"/home/desk{k}/{FORMHIST}", "clients": {}, "phases": {}, "tracing": {}}

    def save():
        (s.path("timeline.json")).write_text(json.dumps(tl, indent=2) + "\n")

    with Topology(s.run_id, s.lab.name) as topo:
        with s.phase("prepare"):
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
                c.reload()
                tl["clients"][str(j)] = {"host": f"desk{j}", "user": f"desk{j}",
                                         "ip": c.attrs["NetworkSettings"]["Networks"][net.name]["IPAddress"]}
            save()
            for j, c in desks.items():
                _exec_bg(c, ["nicsample", "eth0", "/trace/net.log"])
                if j != k:
                    _exec_bg(c, ["desktop-work", f"{work:g}"])
            desk = desks[k]
            s.provenance(tools={
                "strace": exec_sh(desk, ["strace", "-V"])[1].splitlines()[0],
                "bpftrace": exec_sh(desk, ["bpftrace", "--version"])[1].strip(),
                "sshfs": next((ln for ln in exec_sh(desk, ["sshfs", "--version"])[1].splitlines()
                               if ln.startswith("SSHFS")), None),
                "openssh": exec_sh(srv, ["sh", "-c", "ssh -V 2>&1"])[1].strip()})
            time.sleep(1.0)

        with s.phase("buggy"):
            t0 = time.time()
            _exec_bg(desk, ["sh", "-c", f"exec elinks-standin --rate {rate:g} --pidfile /run/elinks.pid "
                                        "2>>/trace/elinks-standin.txt"])
            pid = _read_pid(desk, "/run/elinks.pid")
            host_pid = _host_pid(desk, pid)
            tl["phases"]["buggy"] = [t0, None]
            _sleep_until(t0 + 1.0)
            window = max(3.0, T - 4.0)
            ta = time.time()
            st = _exec_bg(desk, ["timeout", "-s", "INT", f"{window:.1f}", "strace", "-f", "-ttt", "-T", "-e", "trace=openat",
                                 "-p", str(pid), "-o", "/trace/strace-openat.log"])
            tracer, bpf_status = None, None
            if host_pid is None:
                bpf_status = "unavailable: the program's host process id was not found"
            else:
                try:
                    tracer = _start_tracer(topo, tags["desktop"], tdir, host_pid, window)
                except Exception as e:  # noqa: BLE001 - bpftrace is optional; strace carries the chapter
                    bpf_status = f"unavailable: the tracer container did not start ({e})"
            _exec_wait(desk, st, window + 20)
            tl["tracing"]["strace_openat"] = [ta, time.time()]
            tb = time.time()
            exec_sh(desk, ["timeout", "-s", "INT", f"{STACK_SAMPLE_S}", "strace", "-f", "-k", "-ttt", "-e", "trace=openat",
                       "-p", str(pid), "-o", "/trace/strace-stacks.log"])
            tl["tracing"]["strace_stacks"] = [tb, time.time()]
            if tracer is not None:
                bpf_status = _finish_tracer(topo, tracer, tdir, window + 30)
            tl["tracing"]["bpftrace"] = {"status": bpf_status, "window": [ta, ta + window], "host_pid": host_pid,
                                         "pid_in_desktop": pid}
            _sleep_until(t0 + T)
            t_switch = time.time()
            tl["phases"]["buggy"] = [t0, t_switch]
            _stop(desk, pid)
            save()

        with s.phase("fixed"):
            t1 = time.time()
            _exec_bg(desk, ["sh", "-c", "exec strace -f -ttt -T -e trace=openat -o /trace/strace-fixed.log "
                                        f"elinks-standin --fixed --rate {rate:g} --pidfile /run/elinks-fixed.pid "
                                        "2>>/trace/elinks-standin.txt"])
            pid2 = _read_pid(desk, "/run/elinks-fixed.pid")
            _sleep_until(t1 + T)
            t2 = time.time()
            tl["phases"]["fixed"] = [t1, t2]
            _stop(desk, pid2)
            time.sleep(0.5)  # the last log lines reach the listener
            save()

    with s.phase("collect"):
        d = load(s.data_dir)
        s.path("latency").mkdir(exist_ok=True)
        write_text_atomic(s.path("latency", "openat.trace"), openat_trace(d["strace"]))
        s.metric(**summary(d))


# ---------------------------------------------------------------------------------- parsing

_SYSLOG = re.compile(r"^(?P<t>\d+(?:\.\d+)?) <(?P<pri>\d+)>(?P<stamp>\w{3} [ \d]\d \d\d:\d\d:\d\d) "
                     r"(?P<ident>[^\s\[:]+)(?:\[(?P<pid>\d+)\])?: (?P<msg>.*)$")
_SESSION = re.compile(r"^session opened for local user (?P<user>\S+) from \[(?P<ip>[^\]]+)\]")
_REQUEST = re.compile(r'^(?P<op>[a-z]+)(?: name| old)? "(?P<path>(?:[^"\\]|\\.)*)"')
_STATUS = re.compile(r"^sent status (?P<status>.+)$")


def parse_syslog_line(line: str) -> dict | None:
    """'<time> <PRI>Mmm dd hh:mm:ss ident[pid]: message' (as the listener writes it), else None."""
    m = _SYSLOG.match(line.rstrip("\n"))
    if not m:
        return None
    return {"t": float(m["t"]), "ident": m["ident"], "pid": int(m["pid"]) if m["pid"] else None, "msg": m["msg"]}


def parse_sftp_log(lines, clients: dict) -> pd.DataFrame:
    """One row per SFTP request that internal-sftp logged at VERBOSE (every request that names a
    path: open, close, lstat, stat, opendir, remove, rename, ...), attributed to a desktop through
    its session: the 'session opened for local user U from [IP]' line of the same sshd process.
    `clients` maps the client number (1-based, as a string or int) to {"ip": ...}.
    A 'sent status' line belongs to the request before it in the same session (requests of one
    session are served in order). Columns: t, session, client, ip, user, op, path, status."""
    by_ip = {str(v["ip"]): int(j) for j, v in clients.items()}
    sessions: dict[int, dict] = {}
    rows: list[dict] = []
    last: dict[int, int] = {}
    for line in lines:
        e = parse_syslog_line(line)
        if e is None or e["pid"] is None or e["ident"] not in ("internal-sftp", "sftp-server"):
            continue
        msg, sid = e["msg"], e["pid"]
        m = _SESSION.match(msg)
        if m:
            sessions[sid] = {"user": m["user"], "ip": m["ip"], "client": by_ip.get(m["ip"])}
            continue
        m = _STATUS.match(msg)
        if m:
            if sid in last:
                rows[last[sid]]["status"] = m["status"]
            continue
        m = _REQUEST.match(msg)
        if not m:
            continue
        who = sessions.get(sid, {})
        last[sid] = len(rows)
        rows.append({"t": e["t"], "session": sid, "client": who.get("client"), "ip": who.get("ip"),
                     "user": who.get("user"), "op": m["op"], "path": m["path"].replace('\\"', '"'),
                     "status": None})
    df = pd.DataFrame(rows, columns=["t", "session", "client", "ip", "user", "op", "path", "status"])
    df["client"] = df["client"].astype("Int64")
    return df


_STRACE = re.compile(r'^(?:(?P<pid>\d+)\s+)?(?P<t>\d+\.\d+) openat\((?P<dirfd>[^,]+), "(?P<path>(?:[^"\\]|\\.)*)"'
                     r'(?P<args>[^)]*)\) = (?P<ret>-?\d+)(?: (?P<err>E[A-Z0-9]+))?(?:.*<(?P<dur>\d+\.\d+)>)?')


def parse_strace(lines) -> pd.DataFrame:
    """openat() lines of `strace -ttt [-T] -e trace=openat` (with or without -f's pid column).
    Columns: t, path, ret, err (errno name, e.g. ENOENT, or None), dur (seconds in the call, from
    -T's "<0.000123>"; NaN without -T)."""
    rows = []
    for line in lines:
        m = _STRACE.match(line)
        if m:
            rows.append({"t": float(m["t"]), "path": m["path"], "ret": int(m["ret"]), "err": m["err"],
                         "dur": float(m["dur"]) if m["dur"] else float("nan")})
    return pd.DataFrame(rows, columns=["t", "path", "ret", "err", "dur"])


def openat_trace(strace: pd.DataFrame) -> str:
    """The timed openat() calls (parse_strace with -T) in the trace form `perflab heatmap --trace
    bpftrace` and `perflab compare` read: "time_ns latency_ns", one call a line."""
    timed = strace.dropna(subset=["dur"])   # strace's times are whole microseconds
    return "# time_ns latency_ns\n" + "".join(f"{round(t * 1e6) * 1000} {max(1, round(d * 1e6)) * 1000}\n"
                                             for t, d in zip(timed.t, timed.dur))


_FRAME = re.compile(r"^ > (?P<obj>[^(\s]+)\((?P<fn>[^+)]*)(?:\+(?P<off>0x[0-9a-f]+))?\) \[(?P<addr>0x[0-9a-f]+)\]")


def parse_strace_stacks(lines) -> list[dict]:
    """`strace -k` output: each traced call with its stack, innermost frame first.
    Returns [{"call": first line, "frames": [{"object", "function", "offset"}]}]."""
    out: list[dict] = []
    for line in lines:
        m = _FRAME.match(line)
        if m:
            if out:
                out[-1]["frames"].append({"object": m["obj"], "function": m["fn"] or None, "offset": m["off"]})
        elif line.startswith(" > "):
            if out:
                out[-1]["frames"].append({"object": line[3:].strip(), "function": None, "offset": None})
        elif _STRACE.match(line):
            out.append({"call": line.rstrip("\n"), "frames": []})
    return out


def parse_bpftrace(lines) -> dict:
    """bpftrace -f json output of formhist.bt: per-second open counts by file (each 'time' record
    stamps the map printed after it) and the stacks with their counts (innermost first)."""
    per_second, stacks = [], []
    stamp = None
    for line in lines:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind, data = rec.get("type"), rec.get("data")
        if kind == "time":
            stamp = float(str(data).strip())
        elif kind == "map" and isinstance(data, dict):
            for name, values in data.items():
                if name == "@opens" and stamp is not None:
                    if not values:
                        per_second.append({"t": stamp, "path": None, "count": 0})
                    for path, count in values.items():
                        per_second.append({"t": stamp, "path": path, "count": int(count)})
                elif name == "@stacks":
                    for stack, count in values.items():
                        # bpftrace 0.17 (Debian 12) keys a stack by its lines; 0.23 (Debian 13)
                        # by the same lines with each newline written as the two characters \n
                        frames = [ln.strip() for ln in stack.replace("\\n", "\n").splitlines() if ln.strip()]
                        stacks.append({"frames": frames, "count": int(count)})
    stacks.sort(key=lambda x: -x["count"])
    return {"per_second": pd.DataFrame(per_second, columns=["t", "path", "count"]), "stacks": stacks}


def parse_net(lines) -> pd.DataFrame:
    """nicsample lines: 'epoch rx_bytes tx_bytes rx_packets tx_packets'."""
    rows = []
    for line in lines:
        f = line.split()
        if len(f) == 5:
            try:
                rows.append([float(f[0])] + [int(x) for x in f[1:]])
            except ValueError:
                continue
    return pd.DataFrame(rows, columns=["t", "rx_bytes", "tx_bytes", "rx_packets", "tx_packets"])


def function_names(frames: list) -> list[str]:
    """Function names of a stack (strace -k frame dicts or bpftrace 'name+off' strings)."""
    out = []
    for f in frames:
        name = f.get("function") if isinstance(f, dict) else f.split("+", 1)[0]
        if name:
            out.append(name)
    return out


def chain_in_order(frames: list, chain=CHAIN) -> bool:
    """Does the stack (innermost first) pass through `chain` (outermost first), in that order?"""
    names = list(reversed(function_names(frames)))
    i = 0
    for name in names:
        if i < len(chain) and name == chain[i]:
            i += 1
    return i == len(chain)


# ---------------------------------------------------------------------------------- analysis

def window(req: pd.DataFrame, t0: float, t1: float) -> pd.DataFrame:
    return req[(req["t"] >= t0) & (req["t"] < t1)]


def drill_down(req: pd.DataFrame, t0: float, t1: float) -> dict:
    """The Analytics drill-down on the server's requests in [t0, t1): requests by client, the top
    talker; its requests by operation, the top one; that operation's requests by file, the top
    file; and the top file's rate (requests per second over the window)."""
    w = window(req, t0, t1)
    dur = max(t1 - t0, 1e-9)
    by_client = w.groupby("client").size().sort_values(ascending=False)
    out = {"by_client": by_client, "seconds": dur, "client": None, "op": None, "file": None, "rate": 0.0,
           "by_op": pd.Series(dtype=int), "by_file": pd.Series(dtype=int), "share": 0.0}
    if by_client.empty:
        return out
    top = int(by_client.index[0])
    mine = w[w["client"] == top]
    by_op = mine.groupby("op").size().sort_values(ascending=False)
    op = str(by_op.index[0])
    by_file = mine[mine["op"] == op].groupby("path").size().sort_values(ascending=False)
    path = str(by_file.index[0])
    n_file = int((mine["path"] == path).sum())
    out.update(client=top, op=op, file=path, by_op=by_op, by_file=by_file, rate=n_file / dur,
               share=float(by_client.iloc[0] / by_client.sum()))
    return out


def per_second(req: pd.DataFrame, t0: float) -> pd.DataFrame:
    """Requests per whole second since t0, one column per client (missing seconds are zero)."""
    if req.empty:
        return pd.DataFrame()
    sec = ((req["t"] - t0) // 1).astype(int)
    tab = req.assign(second=sec).groupby(["second", "client"]).size().unstack(fill_value=0)
    full = range(int(sec.min()), int(sec.max()) + 1)
    return tab.reindex(full, fill_value=0)


def counts_per_second(t: pd.Series, t0: float, t1: float) -> pd.Series:
    """Events per whole second of [t0, t1) (seconds with none count zero; a last partial second
    is left out)."""
    n = int((t1 - t0) // 1)
    sec = ((t[(t >= t0) & (t < t0 + n)] - t0) // 1).astype(int)
    return sec.value_counts().reindex(range(n), fill_value=0).sort_index()


def net_rates(net: pd.DataFrame, t0: float, t1: float) -> dict:
    """nicstat's columns over [t0, t1]: KiB/s read (received) and written (sent), packets/s."""
    w = net[(net["t"] >= t0) & (net["t"] <= t1)]
    if len(w) < 2:
        return {"rkib_s": None, "wkib_s": None, "rpk_s": None, "wpk_s": None}
    a, b = w.iloc[0], w.iloc[-1]
    dt = b["t"] - a["t"]
    return {"rkib_s": (b["rx_bytes"] - a["rx_bytes"]) / dt / 1024,
            "wkib_s": (b["tx_bytes"] - a["tx_bytes"]) / dt / 1024,
            "rpk_s": (b["rx_packets"] - a["rx_packets"]) / dt, "wpk_s": (b["tx_packets"] - a["tx_packets"]) / dt}


# ---------------------------------------------------------------------------------- loading


def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    tl = json.loads((data_dir / "timeline.json").read_text())
    k = tl["buggy_client"]
    cdir = data_dir / "clients" / f"desk{k}"
    req = parse_sftp_log(read_lines(data_dir / "server" / "sftp.log"), tl["clients"])
    bpf_lines = read_lines(cdir / "bpftrace.json")
    return {
        "timeline": tl,
        "requests": req,
        "strace": parse_strace(read_lines(cdir / "strace-openat.log")),
        "strace_fixed": parse_strace(read_lines(cdir / "strace-fixed.log")),
        "stacks": parse_strace_stacks(read_lines(cdir / "strace-stacks.log")),
        "bpftrace": parse_bpftrace(bpf_lines) if bpf_lines else None,
        "bpftrace_status": tl.get("tracing", {}).get("bpftrace", {}).get("status") or "not run",
        "net": {int(j): parse_net(read_lines(data_dir / "clients" / f"desk{j}" / "net.log")) for j in tl["clients"]},
        "program": read_lines(cdir / "elinks-standin.txt"),
    }


def windows(tl: dict) -> dict:
    """The steady parts of the two phases: each phase without its first SETTLE_S seconds."""
    (b0, b1), (f0, f1) = tl["phases"]["buggy"], tl["phases"]["fixed"]
    st = tl.get("settle_s", SETTLE_S)
    return {"buggy": (b0 + st, b1), "fixed": (f0 + st, f1)}


def summary(d: dict) -> dict:
    """The headline numbers of a run (the metrics in run.json)."""
    tl, req = d["timeline"], d["requests"]
    k = tl["buggy_client"]
    w = windows(tl)
    dd = drill_down(req, *w["buggy"])
    # before and after the fix: the buggy desktop's requests for its form-history file
    fh = req[(req["client"] == k) & (req["path"] == tl["formhist"])]
    before_rate = len(window(fh, *w["buggy"])) / (w["buggy"][1] - w["buggy"][0])
    after_rate = len(window(fh, *w["fixed"])) / (w["fixed"][1] - w["fixed"][0])
    fixed_phase_total = len(window(fh, *tl["phases"]["fixed"]))
    others = [j for j in map(int, tl["clients"]) if j != k]
    wb = window(req, *w["buggy"])
    other_rate = (float(wb[wb["client"].isin(others)].groupby("client").size().mean() / dd["seconds"])
                  if others and not wb.empty else 0.0)
    # client side: strace's failed opens of the form-history file, per second
    st = d["strace"]
    ta, tb = tl["tracing"]["strace_openat"]
    enoent = st[(st["err"] == "ENOENT") & st["path"].str.endswith(FORMHIST)] if not st.empty else st
    per_s = counts_per_second(enoent["t"], ta + 0.5, tb - 0.5) if not st.empty else pd.Series(dtype=int)
    sf = d["strace_fixed"]
    fixed_enoent = sf[(sf["err"] == "ENOENT") & sf["path"].str.endswith(FORMHIST)] if not sf.empty else sf
    stack = d["stacks"][0]["frames"] if d["stacks"] else []
    m = {
        "detected_client": dd["client"],
        "detected_op": dd["op"],
        "detected_file": dd["file"],
        "detected_rate": round(dd["rate"], 2),
        "top_client_share": round(dd["share"], 3),
        "other_clients_rate": round(other_rate, 2),
        # requests per round of desktop work (save a note, read a document back): other_rate / work_rate
        "other_requests_per_work": round(other_rate / float(tl.get("work_rate", 1.0)), 2),
        "formhist_rate_before": round(before_rate, 2),
        "formhist_rate_after": round(after_rate, 3),
        "formhist_requests_fixed_phase": int(fixed_phase_total),
        "after_before_ratio": round(after_rate / before_rate, 5) if before_rate else None,
        "client_enoent_rate": round(float(per_s.median()), 1) if len(per_s) else None,
        "client_enoent_fixed_total": int(len(fixed_enoent)),
        "stack": " > ".join(reversed(function_names(stack))) if stack else None,
        "stack_chain_ok": chain_in_order(stack) if stack else False,
        "bpftrace": d["bpftrace_status"],
    }
    b = d["bpftrace"]
    if d["bpftrace_status"] == "ran" and b is not None:
        ps = b["per_second"]
        fh = ps[ps["path"].fillna("").str.endswith(FORMHIST)]
        m["bpftrace_rate"] = round(float(fh["count"].median()), 1) if len(fh) else None
        m["bpftrace_stack_chain_ok"] = bool(b["stacks"]) and chain_in_order(b["stacks"][0]["frames"])
    for phase in ("buggy", "fixed"):
        r = net_rates(d["net"][k], *w[phase])
        for key, v in r.items():
            m[f"net_{key}_{phase}"] = None if v is None else round(float(v), 2)
    return m


# ---------------------------------------------------------------------------------- figures

BUGGY_COLOUR, OTHER_COLOUR = "#d62728", "#7f7f7f"


def _switch_line(fig, tl: dict, t0: float) -> None:
    x = tl["phases"]["fixed"][0] - t0
    fig.add_vline(x=x, line_dash="dash", line_color="black")
    fig.add_annotation(x=x, y=1, yref="paper", text="fixed program starts", showarrow=False,
                       xanchor="left", yanchor="bottom")


def fig_requests_per_second(d: dict):
    """Requests per second at the server, one line per desktop, over both phases."""
    import plotly.graph_objects as go

    tl, req = d["timeline"], d["requests"]
    t0, t_end = tl["phases"]["buggy"][0], tl["phases"]["fixed"][1]
    tab = per_second(window(req, t0, t_end), t0)
    k = tl["buggy_client"]
    fig = go.Figure()
    for j in sorted(map(int, tl["clients"])):
        y = tab[j] if j in tab.columns else pd.Series(0, index=tab.index)
        fig.add_scatter(x=tab.index, y=y, mode="lines", name=f"desk{j}" + (" (elinks)" if j == k else ""),
                        line={"color": BUGGY_COLOUR if j == k else OTHER_COLOUR, "width": 3 if j == k else 1.2})
    _switch_line(fig, tl, t0)
    fig.update_layout(title="Server: requests per second, by desktop", xaxis_title="time (s)",
                      yaxis_title="requests/s", height=380)
    return fig


def fig_bars(counts: pd.Series, seconds: float, title: str, label: str, highlight=None, top: int = 10):
    """A drill-down step as Analytics drew it: a horizontal bar per item, busiest on top (per second)."""
    import plotly.graph_objects as go

    c = counts.head(top)[::-1]
    names = [str(x) for x in c.index]
    colours = [BUGGY_COLOUR if highlight is not None and str(x) == str(highlight) else OTHER_COLOUR for x in c.index]
    fig = go.Figure(go.Bar(x=c.values / seconds, y=names, orientation="h", marker_color=colours,
                           hovertemplate="%{y}: %{x:.1f} requests/s<extra></extra>"))
    fig.update_layout(title=title, xaxis_title="requests/s", yaxis_title=label,
                      height=max(280, 160 + 28 * len(c)), margin={"l": 10})
    return fig


def fig_client_opens(d: dict):
    """Client side: failed opens of the form-history file per second, by strace and by bpftrace."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    t0 = tl["phases"]["buggy"][0]
    ta, tb = tl["tracing"]["strace_openat"]
    st = d["strace"]
    fig = go.Figure()
    if not st.empty:
        e = st[(st["err"] == "ENOENT") & st["path"].str.endswith(FORMHIST)]
        ps = counts_per_second(e["t"], ta + 0.5, tb - 0.5)
        fig.add_bar(x=ps.index + (ta + 0.5 - t0) + 0.5, y=ps.values, name="strace: openat() = -1 ENOENT",
                    marker_color=BUGGY_COLOUR, opacity=0.7)
    b = d["bpftrace"]
    if d["bpftrace_status"] == "ran" and b is not None and not b["per_second"].empty:
        ps = b["per_second"][b["per_second"]["path"].fillna("").str.endswith(FORMHIST)]
        # each count covers the second that ends at its time stamp
        fig.add_scatter(x=ps["t"] - t0 - 0.5, y=ps["count"], mode="markers", name="bpftrace: openat() by file",
                        marker={"color": "black", "size": 7, "symbol": "x-thin", "line": {"width": 2}})
    fig.add_hline(y=tl["open_rate"], line_dash="dot", annotation_text=f"open_rate = {tl['open_rate']:g}/s")
    fig.update_layout(title="Desktop: opens of .elinks/formhist per second", xaxis_title="time (s)",
                      yaxis_title="opens/s", height=360, barmode="overlay")
    return fig


def fig_network(d: dict):
    """nicstat on the elinks desktop: packets per second each way, over both phases."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    k, t0 = tl["buggy_client"], tl["phases"]["buggy"][0]
    net = d["net"][k]
    dt = net["t"].diff()
    fig = go.Figure()
    # The two directions nearly coincide (a request out, a reply in): solid vs dashed keeps both visible.
    for col, name, style in (("rx_packets", "read (received)", dict(width=3)),
                             ("tx_packets", "write (sent)", dict(width=2, dash="dash"))):
        fig.add_scatter(x=net["t"] - t0, y=net[col].diff() / dt, mode="lines", line=style, name=f"{name} packets/s")
    _switch_line(fig, tl, t0)
    fig.update_layout(title=f"desk{k}: network packets per second (nicstat's rPk/s, wPk/s)", xaxis_title="time (s)",
                      yaxis_title="packets/s", height=340)
    return fig


def stack_text(frames: list, limit: int = 24) -> str:
    """A stack as DTrace printed it: innermost frame first, `object`function+offset."""
    out = []
    for f in frames[:limit]:
        if isinstance(f, dict):
            obj = Path(f["object"]).name if f["object"] else "?"
            out.append(f"  {obj}`{f['function'] or '?'}" + (f"+{f['offset']}" if f["offset"] else ""))
        else:
            out.append(f"  {f}")
    return "\n".join(out)
