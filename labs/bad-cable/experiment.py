"""The bad-cable experiment: its phases, its parameters' cross-checks, the one job every client runs,
and the run (the NFS server, the load generators, the shaped links, the phases and their timeline).
The links and their sampler are perflab.infra.links'."""
from __future__ import annotations

import contextlib
import json
import socket
import time
from pathlib import Path

import numpy as np

from perflab.fio import jobs as fio, clients as fioclients
from perflab.fio.live import announce
from perflab.infra.containers import ContainerFailed, Topology, exec_sh, finished, network_names, wait_until
from perflab.infra.context import LabContext, image_tag
from perflab.infra.labdirs import made_dirs
from perflab.infra.links import LinkFailed, LinkSampler, ServerLinks, VethLinks, iface_with
from perflab.infra.nfsserver import CAPS as SERVER_CAPS, NfsServer

from .analysis import SETTLE_S

#: For perflab.analysis.sanity: the rate changes on purpose during the run (peak-vs-average does not apply).
INTENT = {"*": {"phased": "the bad cable is replaced mid-run: the chapter measures each phase apart"}}

HERE = Path(__file__).resolve().parent
JOB = "cached-read"
DATA_FILE = "cached.dat"   # one file on the server; every client reads it (the same job runs on all)
START_S = 2.0     # from the fio containers' start to the first phase
COST_ORDER = (False, True, True, False)  # per-client collection off/on: ABBA cancels a linear drift
DRIVER_END_S = 90.0   # the longest wait for the fio driver's end after the last phase (its job ends 3 s after)


def plan(p: dict) -> list[tuple[str, float]]:
    return [("prepare", 6.0 + 0.6 * p["clients"]), ("bad cable", p["phase"] + START_S),
            ("replaced", p["phase"]), ("collection cost", 4 * (p["cost_window"] + 1.0)), ("driver", 3.0),
            ("collect", 2.0)]


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
        names = network_names()   # None: no engine answers (the run then says so itself)
        if names is not None and p["hosts_network"] not in names:
            out.append(f"parameter hosts_network={p['hosts_network']}: no such Docker network; allowed: one of "
                       f"{', '.join(sorted(names))}")
    return out


def _sleep_until(t: float) -> None:
    d = t - time.time()
    if d > 0:
        time.sleep(d)


def _every_client_read(fdir: Path, clients: dict, said: str) -> None:
    """The driver exits 0 when a client's job never started (fio's NFS engine failing to mount, as
    libnfs does when two clients present the same NFSv4 client name): a client that read nothing
    fails the run, with what the driver said of it, rather than showing as the slowest client."""
    by_host = fioclients.read_results(fdir / "clients.json")
    for j, c in sorted(clients.items(), key=lambda x: int(x[0])):
        rows = by_host.get(c["fio_host"], [])
        if not sum(int((r.get("read") or {}).get("io_bytes", 0)) for r in rows):
            lines = [ln for ln in said.splitlines() if ln.startswith(f"<{c['host']}>") or ln.startswith(f"<{c['fio_host']}>")]
            raise ContainerFailed(f"client {j} ({c['fio_host']}) read nothing: " + ("; ".join(lines[:3]) or
                                  "the driver said nothing of it") + ". Run the lab again; if it recurs, say so in an issue")


def job_for(ctx: LabContext, server: str) -> fio.JobFile:
    """The one job every client runs (fio client/server mode sends the same job file to all)."""
    p = ctx.params
    total = START_S + 2 * p["phase"] + 4 * (p["cost_window"] + 1.0) + 3.0
    jf = fio.JobFile.load(ctx.lab.jobs_dir / f"{JOB}.fio")
    jf.apply({"global": {"size": p["file_size"], "runtime": int(np.ceil(total)), "write_bw_log": "client",
                         "nfs_url": f"nfs://{server}/export?version=4"},
              "read": {"filename": DATA_FILE}})
    return jf


def run(ctx: LabContext) -> None:
    """An NFS server and its load generators (the lab's containers, or the hosts file's hosts) reading
    one cached file through shaped links: one link bad, then replaced, then per-client collection off
    and on. The raw files under the run's server/, net/ and fio/, and timeline.json (the session then
    reads them back)."""
    p = ctx.params
    k, good, ratio, T, W = p["bad_client"], p["link_mbit"], p["bad_ratio"], p["phase"], p["cost_window"]
    bad = good * ratio
    tags = {name: image_tag(ctx, name) for name in ("ganesha", "nfsfio")}
    sdir, ndir, fdir = made_dirs(ctx, "server", "net", "fio")
    (fdir / f"{JOB}.fio").write_text((ctx.lab.jobs_dir / f"{JOB}.fio").read_text())
    own = not p["hosts"]
    hosts = None if own else fioclients.read_hosts(p["hosts"])
    n = p["clients"] if own else len(hosts)
    tl: dict = {"clients": {}, "bad_client": k, "link_mbit": good, "bad_ratio": ratio, "phase_s": T,
                "cost_window_s": W, "settle_s": SETTLE_S, "phases": {}, "cost_windows": [],
                "load_generators": "containers of the lab" if own else f"hosts file {p['hosts']}",
                "links": "tbf on each client's host-side veth" if own else "HTB classes on the server's interface"}

    def save():
        ctx.write_json("timeline.json", data=tl)

    sampler = None
    with Topology(ctx) as topo, contextlib.ExitStack() as shaping:
        try:
            with ctx.phase("prepare"):
                net = topo.network("lan", internal=True)
                export = topo.volume("export")
                srv = NfsServer.start(topo, tags["ganesha"], network=net, export={export.name: "rw"}, log_dir=sdir,
                                      also_on=None if own else p["hosts_network"])
                mib = int(p["file_size"] // (1 << 20))
                code, out = srv.sh(f"dd if=/dev/zero of=/export/{DATA_FILE} bs=1M count={mib} status=none && sync")
                if code:
                    raise ContainerFailed(f"writing the clients' file on the server failed: {out}")
                ctx.provenance(fio_version=fio.version(topo, tags["nfsfio"]), tools={"nfs-ganesha": srv.version()})
                ips, fio_hosts = {}, []
                if own:
                    links = VethLinks(ctx.ledger, shaping)
                    clients = {}
                    for j in range(1, n + 1):
                        clients[j] = topo.container(tags["nfsfio"], f"client{j}", fioclients.server_command(64 * j),
                                                    network=net, hostname=f"client{j}", cap_drop=["ALL"])
                    for j, c in clients.items():
                        ips[j] = topo.address(c, net.name)
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
                    server_addr, driver_net = srv.address(p["hosts_network"]), p["hosts_network"]
                    pid = srv.container.attrs["State"]["Pid"]   # as srv.address has just read them
                    links = ServerLinks(pid, iface_with(pid, server_addr))
                    for j, h in enumerate(hosts, 1):
                        ips[j] = socket.gethostbyname(h.name)
                        fio_hosts.append(h)
                        links.add(j, ips[j], bad if j == k else good)
                        tl["clients"][str(j)] = {"host": h.name, "fio_host": h.name, "ip": ips[j], "veth": None,
                                                 "mbit_bad": bad if j == k else good, "mbit_replaced": good}
                job_for(ctx, server_addr).write(fdir / "clients.fio")
                fioclients.write_hosts(fio_hosts, fdir / "hosts.list")
                save()
                stat_ips = [f"::ffff:{ips[j]}" for j in sorted(ips)]
                srv.stats(True, stat_ips)
                sampler = LinkSampler(links, ndir / "links.log")
                sampler.start()
                # a watched run's page: the server's per-client counters and the links', once a second. Not
                # fio's reports: fio 3.33's driver (fio --client) writes its JSON, status reports included,
                # only when the job ends (measured 2026-11-29: 0 bytes after 6 s of a 6 s job, 130 kB after)
                announce("counters", "NFS reads per second, by client (the server's counters)", live=topo.live_list,
                         path=sdir / "ops.log",
                         column=0, unit="reads/s", names=json.dumps({f"::ffff:{ips[j]}": f"client{j}" for j in ips}))
                announce("counters", "Mbit/s sent to each client (its link's counters)", live=topo.live_list,
                         path=ndir / "links.log",
                         column=0, scale=8e-6, unit="Mbit/s", names=json.dumps({str(j): f"client{j}" for j in ips}))
                sampler.check()

            with ctx.phase("bad cable"):
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
                sampler.check()

            with ctx.phase("replaced"):
                links.set_rate(k, good)
                _sleep_until(t1 + T)
                t2 = time.time()
                tl["phases"]["replaced"] = [t1, t2]
                save()
                sampler.check()

            with ctx.phase("collection cost"):
                links.unshape()
                on_now = True
                t = time.time()
                for on in COST_ORDER:
                    if on != on_now:
                        srv.stats(on, stat_ips)
                        on_now = on
                    t = max(t + 1.0, time.time())
                    _sleep_until(t)
                    tl["cost_windows"].append({"collection": on, "t": [t, t + W]})
                    t += W
                    _sleep_until(t)
                save()
                sampler.check()

            with ctx.phase("driver"):
                said = finished(driver, "the fio driver (fio --client)", DRIVER_END_S)
                (fdir / "driver.txt").write_text(said)
                _every_client_read(fdir, tl["clients"], said)
                tl["fio_ended"] = time.time()
                save()
                sampler.stop()      # raises the sampler's error, if it had one: links.log would end early
        except BaseException:
            if sampler is not None:
                with contextlib.suppress(LinkFailed):   # the run's own error is the one to report
                    sampler.stop()
            raise
