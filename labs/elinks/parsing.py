"""The elinks lab's raw files, parsed: the server's SFTP request log (through the syslog listener),
strace's openat() lines and stacks, bpftrace's JSON output and whether bpftrace ran, and the
desktops' interface counters. Each parser takes a file's lines; tests/test_elinks.py gives them
synthetic ones."""
from __future__ import annotations

import json
import re

import pandas as pd

FORMHIST = ".elinks/formhist"
# The frames of the 2009 stack that the stand-in keeps, outermost first.
CHAIN = ("main", "select_loop", "check_timers", "redraw_leds", "redraw_terminal", "refresh_view",
         "draw_forms", "get_form_history_value", "load_formhist_from_file")

_SYSLOG = re.compile(r"^(?P<t>\d+(?:\.\d+)?) <(?P<pri>\d+)>(?P<stamp>\w{3} [ \d]\d \d\d:\d\d:\d\d) "
                     r"(?P<ident>[^\s\[:]+)(?:\[(?P<pid>\d+)\])?: (?P<msg>.*)$")
_SESSION = re.compile(r"^session opened for local user (?P<user>\S+) from \[(?P<ip>[^\]]+)\]")
#: an SFTP request that names a path, as internal-sftp logs it at VERBOSE (also a watched run's page's pattern)
REQUEST_PATTERN = r'(?P<op>[a-z]+)(?: name| old)? "(?P<key>(?:[^"\\]|\\.)*)"'
_REQUEST = re.compile("^" + REQUEST_PATTERN)
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
                     "user": who.get("user"), "op": m["op"], "path": m["key"].replace('\\"', '"'),
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
