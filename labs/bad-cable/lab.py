"""Lab `bad-cable` (chapter "A bad cable: one slow client among identical ones", chapters/bad-cable.md).

Topology: one labelled, internal Docker network; on it an NFS server (NFS-Ganesha, NFSv4, export on
a Docker volume; capabilities SYS_ADMIN and DAC_READ_SEARCH only) and the load generators. Each
load generator runs `fio --server`; a driver container runs `fio --client=hosts.list clients.fio`
(perflab.fio.clients), so every client runs the same job at the same moment: sequential reads, with
fio's NFS engine (libnfs; no mount, no capabilities), of one file written on the server first, so
every read is served from the server's page cache: the 2009 "cached DRAM read workload".

Load generators: by default `clients` containers of the lab. With `hosts=FILE` (one host per line,
see perflab.fio.clients) they are hosts the lab does not own, each already running `fio --server`
(a class's machines, or containers): the server and the driver then join `hosts_network` (a Docker
network those hosts are reachable on, e.g. a macvlan network for real hosts) and nothing is created
on the hosts.

The network links. Own containers: each client's host-side veth (found from the container's
/sys/class/net/eth0/iflink) gets a token-bucket filter (`tc qdisc replace dev VETH root tbf rate R
burst 64kb latency 50ms`), which limits what the server sends to that client; every qdisc is
recorded in the run's ledger before it is made and removed and released at the end (perflab clean
removes it after a crash). Hosts from a file: one HTB on the server's interface toward them, inside
the server container's network namespace, one class per client matched on its address. Either way
the good clients get `link_mbit` and client `bad_client` gets `bad_ratio` of it: the port that
negotiated 100 Mbit/s instead of 1 Gbit/s.

Phases: `bad cable` (`phase` s), `replaced` (`phase` s: the bad client's link gets the good rate),
then `collection cost`: the links unshaped (so that the server and clients are CPU-bound), four
windows of `cost_window` s in the order off, on, on, off. "On" means the server keeps per-client
statistics (ganesha's EnableStats) and a sampler reads them over D-Bus every second; "off" means
the statistics are disabled and the sampler stopped.

Collected at 1 Hz:
  server/ops.log          per-client NFS counters from ganesha over D-Bus (nfs-client-stats):
                          "<epoch> <client ip> <reads> <read bytes> <writes> <write bytes> <other ops>"
  net/links.log           each client's link counters (tx = bytes to the client):
                          "<epoch> <client> <tx_bytes> <rx_bytes> <tx_packets> <rx_packets>"
  fio/clients.json        the driver's result: a row per host (client_stats)
  fio/client_bw.1.log.<host>  each host's 1 s bandwidth log, sent back to the driver
  fio/client_clat_hist.1.log.<host>  and its 1 s latency histograms (perflab compare)
  fio/cached-read.fio     the job file as shipped; fio/clients.fio as run; fio/hosts.list
  timeline.json           clients (host, ip, veth, rates), phases, cost windows
load() reads them back; the parse_* and analysis functions are tested in tests/test_bad_cable.py.
"""
from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.errors import Failed
from perflab.fio import jobs as fio, clients as fioclients
from perflab.run.record import read_lines
from perflab.infra import hostobjects
from perflab.infra.containers import ContainerFailed, Topology, exec_sh, wait_for_file, wait_until


#: For perflab.analysis.sanity: the rate changes on purpose during the run (peak-vs-average does not apply).
INTENT = {"*": {"phased": "the bad cable is replaced mid-run: the chapter measures each phase apart"}}

HERE = Path(__file__).resolve().parent
JOB = "cached-read"
DATA_FILE = "cached.dat"   # one file on the server; every client reads it (the same job runs on all)
SERVER_CAPS = ["SYS_ADMIN", "DAC_READ_SEARCH"]  # ganesha's VFS back end: name_to_handle_at/open_by_handle_at
SETTLE_S = 3.0    # the first seconds of each phase (fio starting, TCP adjusting to a new rate) are left out
START_S = 2.0     # from the fio containers' start to the first phase
TBF = ["burst", "64kb", "latency", "50ms"]
COST_ORDER = (False, True, True, False)  # per-client collection off/on: ABBA cancels a linear drift


def plan(p: dict) -> list[tuple[str, float]]:
    return [("prepare", 6.0 + 0.6 * p["clients"]), ("bad cable", p["phase"] + START_S),
            ("replaced", p["phase"]), ("collection cost", 4 * (p["cost_window"] + 1.0)), ("collect", 4.0)]


def expected_gain(n: int, ratio: float) -> float:
    """Throughput gain from the new cable if every link runs at its shaped rate: N-1 good links plus
    one at `ratio`, then N good links."""
    return (1 - ratio) / (n - 1 + ratio)


# ---------------------------------------------------------------------------------- the links

def host_veth(c) -> str:
    """The host-side name of container c's eth0: the interface whose ifindex is eth0's iflink."""
    r = c.exec_run(["cat", "/sys/class/net/eth0/iflink"])
    idx = r.output.decode().strip()
    for d in Path("/sys/class/net").iterdir():
        with contextlib.suppress(OSError):
            if (d / "ifindex").read_text().strip() == idx:
                return d.name
    raise Failed(f"no host interface with ifindex {idx} (container {c.name})")


def _kbit(mbit: float) -> str:
    return f"{mbit * 1000:.0f}kbit"


def _tc(cmd: list[str], prefix: tuple = ()) -> None:
    r = subprocess.run([*prefix, "tc", *cmd], capture_output=True, text=True)
    if r.returncode:
        raise Failed(f"tc {' '.join(cmd)}: {r.stderr.strip()}")


class VethLinks:
    """The lab's own client containers: a tbf on each client's host-side veth (host egress = what
    the server sends to that client), recorded in the run's ledger; counters from the veth."""

    def __init__(self, ledger, stack: contextlib.ExitStack):
        self.ledger, self.stack, self.devs = ledger, stack, {}

    def add(self, j: int, container, mbit: float) -> None:
        self.devs[j] = host_veth(container)
        self.stack.enter_context(hostobjects.tbf(self.ledger, self.devs[j], "rate", _kbit(mbit), *TBF))

    def set_rate(self, j: int, mbit: float) -> None:
        _tc(["qdisc", "replace", "dev", self.devs[j], "root", "tbf", "rate", _kbit(mbit), *TBF])

    def unshape(self) -> None:
        for dev in self.devs.values():
            subprocess.run(["tc", "qdisc", "del", "dev", dev, "root"], capture_output=True)

    def counters(self) -> dict[int, list[int]]:
        out = {}
        for j, dev in self.devs.items():
            base = Path("/sys/class/net", dev, "statistics")
            with contextlib.suppress(OSError, ValueError):
                out[j] = [int((base / k).read_text()) for k in ("tx_bytes", "rx_bytes", "tx_packets", "rx_packets")]
        return out


UNSHAPED_MBIT = 10_000  # "no limit" for an HTB class: far above what 2 cores can send


class ServerLinks:
    """Hosts the lab does not own (a hosts file): one HTB on the server's interface toward them,
    inside the server container's network namespace, a class per client matched on its address
    (u32 dst); counters are the classes' sent bytes and packets. The qdisc lives and dies with the
    container's namespace: nothing on the host to record."""

    def __init__(self, server_pid: int, dev: str):
        self.ns, self.dev, self.ips = ("nsenter", "-t", str(server_pid), "-n"), dev, {}
        _tc(["qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "999"], self.ns)
        _tc(["class", "add", "dev", dev, "parent", "1:", "classid", "1:999", "htb", "rate", _kbit(UNSHAPED_MBIT)],
            self.ns)

    def add(self, j: int, ip: str, mbit: float) -> None:
        self.ips[j] = ip
        _tc(["class", "add", "dev", self.dev, "parent", "1:", "classid", f"1:{j}", "htb", "rate", _kbit(mbit),
             "ceil", _kbit(mbit), "burst", "64k"], self.ns)
        _tc(["filter", "add", "dev", self.dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip",
             "dst", f"{ip}/32", "flowid", f"1:{j}"], self.ns)

    def set_rate(self, j: int, mbit: float) -> None:
        _tc(["class", "change", "dev", self.dev, "parent", "1:", "classid", f"1:{j}", "htb", "rate", _kbit(mbit),
             "ceil", _kbit(mbit), "burst", "64k"], self.ns)

    def unshape(self) -> None:
        for j in self.ips:
            self.set_rate(j, UNSHAPED_MBIT)

    def counters(self) -> dict[int, list[int]]:
        r = subprocess.run([*self.ns, "tc", "-s", "class", "show", "dev", self.dev], capture_output=True, text=True)
        return {j: [b, 0, pk, 0] for j, (b, pk) in parse_htb_classes(r.stdout).items() if j in self.ips}


def parse_htb_classes(text: str) -> dict[int, tuple[int, int]]:
    """`tc -s class show` of an HTB -> {minor class id: (sent bytes, sent packets)}."""
    out, cls = {}, None
    for line in text.splitlines():
        m = re.match(r"class htb 1:(\d+) ", line)
        if m:
            cls = int(m.group(1))
            continue
        m = re.match(r"\s*Sent (\d+) bytes (\d+) pkt", line)
        if m and cls is not None:
            out[cls] = (int(m.group(1)), int(m.group(2)))
            cls = None
    return out


class LinkSampler(threading.Thread):
    """Reads each client's link counters once a second into a file (a thread of the run)."""

    def __init__(self, links, path: Path):
        super().__init__(daemon=True)
        self.links, self.path, self.stop_evt = links, path, threading.Event()

    def run(self):
        nxt = time.time()
        with open(self.path, "a", buffering=1) as f:
            while not self.stop_evt.is_set():
                t = time.time()
                for j, v in sorted(self.links.counters().items()):
                    f.write(f"{t:.3f} {j} " + " ".join(map(str, v)) + "\n")
                nxt += 1.0
                self.stop_evt.wait(max(0.0, nxt - time.time()))

    def stop(self):
        self.stop_evt.set()
        self.join(timeout=5)


# ---------------------------------------------------------------------------------- parameters

def validate(p: dict) -> list[str]:
    """Refusals the schema cannot express: the hosts file (parameter hosts) and its network."""
    if not p.get("hosts"):
        return [f"parameter hosts_network={p['hosts_network']}: only used with a hosts file; allowed: empty "
                "unless hosts is given"] if p.get("hosts_network") else []
    try:
        hosts = fioclients.read_hosts(p["hosts"])
    except fioclients.HostsError as e:
        return [f"parameter hosts={p['hosts']}: {e}; allowed: a file with one host per line running "
                "`fio --server` (name or address, optionally ',port')"]
    out = []
    if len(hosts) < 2:
        out.append(f"parameter hosts={p['hosts']}: lists {len(hosts)} host; allowed: at least 2 (one of them "
                   "gets the bad cable)")
    if p["bad_client"] > len(hosts):
        out.append(f"parameter bad_client={p['bad_client']}: the hosts file lists {len(hosts)} hosts; allowed: "
                   f"1 to {len(hosts)}")
    if not p.get("hosts_network"):
        out.append("parameter hosts_network='': with a hosts file, the Docker network on which the NFS server "
                   "and the fio driver reach those hosts; allowed: the name of an existing Docker network "
                   "(a macvlan network for real hosts, see the chapter)")
    else:
        from perflab.infra import labels
        client = labels.docker_client()
        names = {n.name for n in client.networks.list()} if client else set()
        if client and p["hosts_network"] not in names:
            out.append(f"parameter hosts_network={p['hosts_network']}: no such Docker network; allowed: one of "
                       f"{', '.join(sorted(names))}")
    return out


# ---------------------------------------------------------------------------------- running

def _sleep_until(t: float) -> None:
    d = t - time.time()
    if d > 0:
        time.sleep(d)


def _collection(srv, on: bool, ips: list[str]) -> None:
    """Per-client collection on the server: statistics enabled and the 1 Hz sampler running, or neither."""
    if on:
        code, out = exec_sh(srv, ["nfs-client-stats", "--enable"])
        if code:
            raise ContainerFailed(f"enabling the server's statistics failed: {out}")
        srv.client.api.exec_start(srv.client.api.exec_create(srv.id, [
            "sh", "-c", "echo $$ > /run/sampler.pid; exec nfs-client-stats /log/ops.log " + " ".join(ips)])["Id"],
            detach=True)
        wait_until(lambda: exec_sh(srv, ["test", "-s", "/run/sampler.pid"])[0] == 0, 10, "the server's sampler")
    else:
        exec_sh(srv, ["sh", "-c", "kill $(cat /run/sampler.pid) && rm -f /run/sampler.pid"])
        code, out = exec_sh(srv, ["nfs-client-stats", "--disable"])
        if code:
            raise ContainerFailed(f"disabling the server's statistics failed: {out}")


def job_for(s, server: str) -> fio.JobFile:
    """The one job every client runs (fio client/server mode sends the same job file to all)."""
    p = s.params
    total = START_S + 2 * p["phase"] + 4 * (p["cost_window"] + 1.0) + 3.0
    jf = fio.JobFile.load(s.lab.jobs_dir / f"{JOB}.fio")
    jf.apply({"global": {"size": p["file_size"], "runtime": int(np.ceil(total)), "write_bw_log": "client",
                         "nfs_url": f"nfs://{server}/export?version=4"},
              "read": {"filename": DATA_FILE}})
    return jf


def _ip(c, network: str) -> str:
    c.reload()
    return c.attrs["NetworkSettings"]["Networks"][network]["IPAddress"]


def _iface_with(pid: int, ip: str) -> str:
    r = subprocess.run(["nsenter", "-t", str(pid), "-n", "ip", "-o", "-4", "addr", "show"], capture_output=True,
                       text=True, check=True)
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) > 3 and f[3].split("/")[0] == ip:
            return f[1].split("@")[0]
    raise Failed(f"the server has no interface with address {ip}")


def run(s) -> None:
    p = s.params
    k, good, ratio, T, W = p["bad_client"], p["link_mbit"], p["bad_ratio"], p["phase"], p["cost_window"]
    bad = good * ratio
    tags = {name: s.manifest.images[name].tag for name in ("ganesha", "nfsfio")}
    sdir, ndir, fdir = s.path("server"), s.path("net"), s.path("fio")
    for d in (sdir, ndir, fdir):
        d.mkdir(exist_ok=True)
    (fdir / f"{JOB}.fio").write_text((s.lab.jobs_dir / f"{JOB}.fio").read_text())
    own = not p["hosts"]
    hosts = None if own else fioclients.read_hosts(p["hosts"])
    n = p["clients"] if own else len(hosts)
    tl: dict = {"clients": {}, "bad_client": k, "link_mbit": good, "bad_ratio": ratio, "phase_s": T,
                "cost_window_s": W, "settle_s": SETTLE_S, "phases": {}, "cost_windows": [],
                "load_generators": "containers of the lab" if own else f"hosts file {p['hosts']}",
                "links": "tbf on each client's host-side veth" if own else "HTB classes on the server's interface"}

    def save():
        s.path("timeline.json").write_text(json.dumps(tl, indent=2) + "\n")

    sampler = None
    with Topology(s.run_id, s.lab.name) as topo, contextlib.ExitStack() as shaping:
        try:
            with s.phase("prepare"):
                net = topo.network("lan", internal=True)
                export = topo.volume("export")
                srv = topo.container(tags["ganesha"], "server", network=net, hostname="server",
                                     cap_drop=["ALL"], cap_add=SERVER_CAPS,
                                     volumes={export.name: {"bind": "/export", "mode": "rw"},
                                              str(sdir): {"bind": "/log", "mode": "rw"}})
                if not own:
                    topo.client.networks.get(p["hosts_network"]).connect(srv)
                wait_for_file(srv, "/run/ganesha-ready", 60, "the NFS server (ganesha)")
                mib = int(p["file_size"] // (1 << 20))
                code, out = exec_sh(srv, ["sh", "-c", f"dd if=/dev/zero of=/export/{DATA_FILE} bs=1M count={mib} "
                                                      "status=none && sync"])
                if code:
                    raise ContainerFailed(f"writing the clients' file on the server failed: {out}")
                version = fio.version(topo, tags["nfsfio"])
                s.provenance(fio_version=version, tools={
                    "nfs-ganesha": exec_sh(srv, ["dpkg-query", "-W", "-f", "${Version}", "nfs-ganesha"])[1].strip()})
                ips, fio_hosts = {}, []
                if own:
                    links = VethLinks(s.ledger, shaping)
                    clients = {}
                    for j in range(1, n + 1):
                        clients[j] = topo.container(tags["nfsfio"], f"client{j}", fioclients.server_command(4 * j),
                                                    network=net, hostname=f"client{j}", cap_drop=["ALL"])
                    for j, c in clients.items():
                        ips[j] = _ip(c, net.name)
                        fio_hosts.append(fioclients.Host(ips[j]))
                        links.add(j, c, bad if j == k else good)
                        tl["clients"][str(j)] = {"host": f"client{j}", "fio_host": ips[j], "ip": ips[j],
                                                 "veth": links.devs[j], "mbit_bad": bad if j == k else good,
                                                 "mbit_replaced": good}
                    for j, c in clients.items():
                        wait_until(lambda c=c: exec_sh(c, ["sh", "-c", fioclients.LISTENING])[0] == 0, 30,
                                   f"fio --server on client{j}")
                    server_addr, driver_net = "server", net.name
                else:
                    server_addr, driver_net = _ip(srv, p["hosts_network"]), p["hosts_network"]
                    links = ServerLinks(srv.attrs["State"]["Pid"], _iface_with(srv.attrs["State"]["Pid"], server_addr))
                    for j, h in enumerate(hosts, 1):
                        ips[j] = socket.gethostbyname(h.name)
                        fio_hosts.append(h)
                        links.add(j, ips[j], bad if j == k else good)
                        tl["clients"][str(j)] = {"host": h.name, "fio_host": h.name, "ip": ips[j], "veth": None,
                                                 "mbit_bad": bad if j == k else good, "mbit_replaced": good}
                job_for(s, server_addr).write(fdir / "clients.fio")
                fioclients.write_hosts(fio_hosts, fdir / "hosts.list")
                save()
                stat_ips = [f"::ffff:{ips[j]}" for j in sorted(ips)]
                _collection(srv, True, stat_ips)
                sampler = LinkSampler(links, ndir / "links.log")
                sampler.start()

            with s.phase("bad cable"):
                # The driver: fio --client sends the job to every host's fio --server and gathers
                # their results (clients.json) and bandwidth logs (client_bw.1.log.<host>) here.
                driver = topo.container(tags["nfsfio"], "driver", fioclients.client_command(
                    "hosts.list", "clients.fio", "clients.json"), network=driver_net, cap_drop=["ALL"],
                    volumes={str(fdir): {"bind": "/out", "mode": "rw"}}, working_dir="/out")
                tl["fio_started"] = time.time()
                t0 = tl["fio_started"] + START_S
                _sleep_until(t0 + T)
                t1 = time.time()
                tl["phases"]["bad cable"] = [t0, t1]
                save()

            with s.phase("replaced"):
                links.set_rate(k, good)
                _sleep_until(t1 + T)
                t2 = time.time()
                tl["phases"]["replaced"] = [t1, t2]
                save()

            with s.phase("collection cost"):
                links.unshape()
                on_now = True
                t = time.time()
                for on in COST_ORDER:
                    if on != on_now:
                        _collection(srv, on, stat_ips)
                        on_now = on
                    t = max(t + 1.0, time.time())
                    _sleep_until(t)
                    tl["cost_windows"].append({"collection": on, "t": [t, t + W]})
                    t += W
                    _sleep_until(t)
                save()

            with s.phase("collect"):
                code = driver.wait(timeout=90).get("StatusCode", -1)
                (fdir / "driver.txt").write_bytes(driver.logs())
                if code:
                    raise ContainerFailed(f"the fio driver (fio --client) exited with {code}:\n"
                                          + driver.logs(tail=20).decode(errors="replace"))
                tl["fio_ended"] = time.time()
                save()
        finally:
            if sampler is not None:
                sampler.stop()
    s.metric(**summary(load(s.data_dir)))


# ---------------------------------------------------------------------------------- parsing


def parse_ops(lines, ip_to_client: dict[str, int]) -> pd.DataFrame:
    """nfs-client-stats lines -> t, client, reads, read_bytes, writes, write_bytes, other (cumulative).
    Addresses are matched with or without the ::ffff: prefix; unknown addresses are dropped."""
    rows = []
    for line in lines:
        f = line.split()
        if len(f) != 7:
            continue
        ip = f[1].removeprefix("::ffff:")
        if ip not in ip_to_client:
            continue
        try:
            rows.append([float(f[0]), ip_to_client[ip]] + [int(x) for x in f[2:]])
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["t", "client", "reads", "read_bytes", "writes", "write_bytes", "other"])


def parse_links(lines) -> pd.DataFrame:
    """links.log lines -> t, client, tx_bytes, rx_bytes, tx_packets, rx_packets (cumulative; tx is
    toward the client; from HTB classes, rx is not known and is 0)."""
    rows = []
    for line in lines:
        f = line.split()
        if len(f) != 6:
            continue
        try:
            rows.append([float(f[0]), int(f[1])] + [int(x) for x in f[2:]])
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["t", "client", "tx_bytes", "rx_bytes", "tx_packets", "rx_packets"])


def parse_bw_log(lines) -> pd.DataFrame:
    """fio bandwidth log with log_unix_epoch: 'ms, KiB/s, ddir, bs, offset' -> t (s), bytes_s."""
    rows = []
    for line in lines:
        f = [x.strip() for x in line.split(",")]
        if len(f) < 3:
            continue
        try:
            rows.append([int(f[0]) / 1000.0, int(f[1]) * 1024.0])
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["t", "bytes_s"])


# ---------------------------------------------------------------------------------- analysis

def rates(counters: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per-second rates of a cumulative counter, one column per client, indexed by sample time
    (the time of the later sample of each pair). A counter that goes backwards (statistics reset)
    gives no rate for that pair."""
    out = {}
    for j, g in counters.sort_values("t").groupby("client"):
        dt = g["t"].diff()
        dv = g[column].diff()
        r = (dv / dt).where(dv >= 0)
        out[int(j)] = pd.Series(r.values, index=g["t"].round(0).values)
    df = pd.DataFrame(out)
    df = df[~df.index.duplicated()].sort_index()
    return df.iloc[1:] if len(df) else df


def counter_rate(counters: pd.DataFrame, column: str, t0: float, t1: float) -> pd.Series:
    """Each client's average rate of a cumulative counter over [t0, t1]: (last - first) / elapsed,
    from the samples inside the window (robust to a missed sample)."""
    out = {}
    for j, g in counters.groupby("client"):
        w = g[(g["t"] >= t0) & (g["t"] <= t1)].sort_values("t")
        if len(w) >= 2 and w["t"].iloc[-1] > w["t"].iloc[0]:
            out[int(j)] = (w[column].iloc[-1] - w[column].iloc[0]) / (w["t"].iloc[-1] - w["t"].iloc[0])
    return pd.Series(out, dtype=float).sort_index()


def find_outlier(per_client: pd.Series, threshold: float = 0.5) -> dict:
    """The automatic call-out: the client furthest below the others. Returns the client with the
    lowest rate, its rate, the median of the others, their ratio, and whether it is an outlier
    (ratio below `threshold`). With fewer than two clients there is nothing to compare."""
    pc = per_client.dropna()
    if len(pc) < 2:
        return {"client": None, "rate": None, "others_median": None, "ratio": None, "outlier": False}
    j = int(pc.idxmin())
    others = float(pc.drop(j).median())
    ratio = float(pc[j] / others) if others > 0 else None
    return {"client": j, "rate": float(pc[j]), "others_median": others, "ratio": ratio,
            "outlier": ratio is not None and ratio < threshold}


def windows(tl: dict) -> dict:
    """The steady part of each phase (without its first SETTLE_S seconds) and the cost windows."""
    st = tl.get("settle_s", SETTLE_S)
    w = {name: (a + st, b) for name, (a, b) in tl["phases"].items()}
    return w


def cost(links: pd.DataFrame, tl: dict) -> dict:
    """Throughput of all clients together (bytes/s the server sent, on the links) in each cost
    window; the cost of per-client collection = 1 - mean(on) / mean(off)."""
    rows = []
    for cw in tl.get("cost_windows", []):
        a, b = cw["t"]
        total = float(counter_rate(links, "tx_bytes", a, b).sum())
        rows.append({"collection": "on" if cw["collection"] else "off", "start": a, "bytes_s": total})
    df = pd.DataFrame(rows, columns=["collection", "start", "bytes_s"])
    if df.empty or not (df["collection"] == "on").any() or not (df["collection"] == "off").any():
        return {"windows": df, "cost": None, "spread": None}
    on = df[df["collection"] == "on"]["bytes_s"]
    off = df[df["collection"] == "off"]["bytes_s"]
    # the noise: how much windows of the same kind differ, relative to their mean
    spread = float(max(on.max() - on.min(), off.max() - off.min()) / df["bytes_s"].mean())
    return {"windows": df, "cost": float(1 - on.mean() / off.mean()), "spread": spread}


# ---------------------------------------------------------------------------------- loading

def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    tl = json.loads((data_dir / "timeline.json").read_text())
    ip_to_client = {c["ip"]: int(j) for j, c in tl["clients"].items()}
    ops = parse_ops(read_lines(data_dir / "server" / "ops.log"), ip_to_client)
    links = parse_links(read_lines(data_dir / "net" / "links.log"))
    bw = {int(j): parse_bw_log(read_lines(fioclients.log_path(data_dir / "fio", "client_bw.1.log", c["fio_host"])))
          for j, c in tl["clients"].items()}
    results = data_dir / "fio" / "clients.json"
    by_host = fioclients.read_results(results) if results.exists() else {}
    fio_json = {int(j): by_host[c["fio_host"]] for j, c in tl["clients"].items() if c["fio_host"] in by_host}
    return {"timeline": tl, "ops": ops, "links": links, "bw": bw, "fio": fio_json}


def ops_per_second(d: dict) -> pd.DataFrame:
    """Server-side NFS reads per second, by client (the Analytics statistic 'NFS operations by client')."""
    return rates(d["ops"], "reads")


def net_per_second(d: dict) -> pd.DataFrame:
    """Bytes per second the server sent to each client, on its link (host-side veth or HTB class)."""
    return rates(d["links"], "tx_bytes")


def summary(d: dict) -> dict:
    """The headline numbers of a run (the metrics in run.json)."""
    tl = d["timeline"]
    k, n, good, ratio = tl["bad_client"], len(tl["clients"]), tl["link_mbit"], tl["bad_ratio"]
    w = windows(tl)
    ops_bad = counter_rate(d["ops"], "reads", *w["bad cable"])
    ops_rep = counter_rate(d["ops"], "reads", *w["replaced"])
    net_bad = counter_rate(d["links"], "tx_bytes", *w["bad cable"])
    net_rep = counter_rate(d["links"], "tx_bytes", *w["replaced"])
    out = find_outlier(ops_bad)
    after = find_outlier(ops_rep)
    others = [j for j in net_bad.index if j != k]
    # how flat the outlier's rate is: the spread of its 1 s rates over the steady bad-cable window
    per_s = net_per_second(d)
    a, b = w["bad cable"]
    ks = per_s[(per_s.index > a) & (per_s.index <= b)].get(k)
    cv = float(ks.std() / ks.mean()) if ks is not None and len(ks.dropna()) >= 3 and ks.mean() > 0 else None
    rep_others = net_rep.median()
    net_rep_min = float(net_rep.min() / rep_others) if len(net_rep) >= 2 and rep_others > 0 else None
    net_ratio = float(net_bad[k] / net_bad[others].median()) if others and k in net_bad.index else None
    tot_bad, tot_rep = float(net_bad.sum()), float(net_rep.sum())
    fio_bad, fio_rep = fio_total(d["bw"], *w["bad cable"]), fio_total(d["bw"], *w["replaced"])
    c = cost(d["links"], tl)
    pks = [float(counter_rate(d["links"], "tx_packets", *cw["t"]).sum()) for cw in tl.get("cost_windows", [])]
    pk = float(np.mean(pks)) if pks else None
    return {
        "detected_outlier": out["client"],
        "outlier_ops_s": round(out["rate"], 1) if out["rate"] is not None else None,
        "others_median_ops_s": round(out["others_median"], 1) if out["others_median"] is not None else None,
        "outlier_ops_ratio": round(out["ratio"], 3) if out["ratio"] is not None else None,
        "replaced_min_ops_ratio": round(after["ratio"], 3) if after["ratio"] is not None else None,
        "outlier_mbit_s": round(float(net_bad[k]) * 8 / 1e6, 2) if k in net_bad.index else None,
        "outlier_link_mbit": round(good * ratio, 2),
        "others_median_mbit_s": round(float(net_bad[others].median()) * 8 / 1e6, 2) if others else None,
        "net_ratio": round(net_ratio, 3) if net_ratio is not None else None,
        "outlier_mbit_cv": round(cv, 4) if cv is not None else None,
        "replaced_min_net_ratio": round(net_rep_min, 3) if net_rep_min is not None else None,
        "total_mb_s_bad": round(tot_bad / 1e6, 2),
        "total_mb_s_replaced": round(tot_rep / 1e6, 2),
        "gain": round(tot_rep / tot_bad - 1, 4) if tot_bad else None,
        "gain_fio": round(fio_rep / fio_bad - 1, 4) if fio_bad else None,
        "expected_gain": round(expected_gain(n, ratio), 4),
        "one_over_n": round(1 / n, 4),
        "cost_total_mb_s_off": round(float(c["windows"][c["windows"]["collection"] == "off"]["bytes_s"].mean()) / 1e6, 1)
        if c["cost"] is not None else None,
        "cost_total_mb_s_on": round(float(c["windows"][c["windows"]["collection"] == "on"]["bytes_s"].mean()) / 1e6, 1)
        if c["cost"] is not None else None,
        "collection_cost": round(c["cost"], 4) if c["cost"] is not None else None,
        "collection_cost_spread": round(c["spread"], 4) if c["spread"] is not None else None,
        "cost_packets_s": round(float(pk)) if pk is not None else None,
    }


def fio_total(bw: dict, t0: float, t1: float) -> float:
    """All clients together by fio's own account: the sum over clients of the mean of each client's
    1 s bandwidth samples stamped inside (t0, t1]."""
    total = 0.0
    for df in bw.values():
        w = df[(df["t"] > t0) & (df["t"] <= t1)]
        if len(w):
            total += float(w["bytes_s"].mean())
    return total


# ---------------------------------------------------------------------------------- figures

BAD_COLOUR = "#d62728"


def _palette(n: int) -> list[str]:
    import plotly.express as px
    return (px.colors.qualitative.Plotly * 2)[:n]


def _phase_line(fig, tl: dict, t0: float) -> None:
    x = tl["phases"]["replaced"][0] - t0
    fig.add_vline(x=x, line_dash="dash", line_color="black")
    fig.add_annotation(x=x, y=1, yref="paper", text="cable replaced", showarrow=False, xanchor="left",
                       yanchor="bottom")


def _span(df: pd.DataFrame, tl: dict) -> tuple[pd.DataFrame, float]:
    t0 = tl["phases"]["bad cable"][0]
    t1 = tl["phases"]["replaced"][1]
    return df[(df.index >= t0) & (df.index <= t1)], t0


def fig_ops(d: dict, stacked: bool):
    """NFS reads per second by client: stacked areas (as Analytics drew them by default) or lines.
    Clients are ordered by their rate in the bad-cable phase, busiest first (at the bottom of a stack)."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    ops, t0 = _span(ops_per_second(d), tl)
    order = list(ops.mean().sort_values(ascending=False).index)
    colours = dict(zip(sorted(ops.columns), _palette(len(ops.columns))))
    fig = go.Figure()
    k = tl["bad_client"]
    for j in order:
        # As lines the good clients overlap by design (they read alike): the bad one is drawn thick, in front.
        kw = {"stackgroup": "ops", "line": {"width": 0.5, "color": colours[j]}} if stacked else \
             {"line": {"width": 3 if j == k else 1.2, "color": colours[j]}, "opacity": 1 if j == k else 0.75}
        fig.add_scatter(x=ops.index - t0, y=ops[j], mode="lines", name=tl["clients"][str(j)]["host"], **kw)
    _phase_line(fig, tl, t0)
    fig.update_layout(title="NFS reads per second by client" + (" (stacked)" if stacked else " (lines)"),
                      xaxis_title="time (s)", yaxis_title="reads/s", height=380)
    return fig


def fig_network(d: dict):
    """Bytes per second to each client (its link), in Mbit/s, with the link rates as dotted lines."""
    import plotly.graph_objects as go

    tl = d["timeline"]
    net, t0 = _span(net_per_second(d), tl)
    k = tl["bad_client"]
    fig = go.Figure()
    for j in sorted(net.columns):
        fig.add_scatter(x=net.index - t0, y=net[j] * 8 / 1e6, mode="lines", name=tl["clients"][str(j)]["host"],
                        line={"color": BAD_COLOUR if j == k else "#7f7f7f", "width": 3 if j == k else 1.2})
    fig.add_hline(y=tl["link_mbit"], line_dash="dot", annotation_text=f"good link {tl['link_mbit']:g} Mbit/s")
    fig.add_hline(y=tl["link_mbit"] * tl["bad_ratio"], line_dash="dot", line_color=BAD_COLOUR,
                  annotation_text=f"bad cable {tl['link_mbit'] * tl['bad_ratio']:g} Mbit/s",
                  annotation_position="bottom right")
    _phase_line(fig, tl, t0)
    fig.update_layout(title=f"Network: Mbit/s sent to each client ({tl.get('links', 'host-side veth')})",
                      xaxis_title="time (s)",
                      yaxis_title="Mbit/s", height=380)
    return fig


def fig_throughput(m: dict):
    """Total throughput before and after the new cable, with the gain and its expectation."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Bar(x=["bad cable", "replaced"], y=[m["total_mb_s_bad"], m["total_mb_s_replaced"]],
                           marker_color=[BAD_COLOUR, "#2ca02c"], text=[f"{m['total_mb_s_bad']:.1f} MB/s",
                                                                       f"{m['total_mb_s_replaced']:.1f} MB/s"],
                           textposition="auto"))
    fig.update_layout(title=f"All clients together: +{m['gain']:.1%} after the fix (1/N = {m['one_over_n']:.1%})",
                      yaxis_title="MB/s (10^6 bytes/s)", height=320)
    return fig


def fig_cost(c: dict):
    import plotly.graph_objects as go

    w = c["windows"]
    mb_s = w["bytes_s"] / 1e6
    fig = go.Figure(go.Bar(x=[f"{i + 1}: {x}" for i, x in enumerate(w["collection"])], y=mb_s,
                           text=[f"{v:,.0f}" for v in mb_s], textposition="auto",
                           marker_color=["#1f77b4" if x == "on" else "#aec7e8" for x in w["collection"]]))
    fig.update_layout(title="Unshaped links: throughput with per-client collection off and on",
                      xaxis_title="window: per-client collection", yaxis_title="MB/s", height=360)
    return fig
