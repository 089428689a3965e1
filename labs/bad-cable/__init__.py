"""Lab `bad-cable` (chapter "A bad cable: one slow client among identical ones", chapters/bad-cable.md).

Topology: one labelled, internal Docker network; on it an NFS server (NFS-Ganesha, NFSv4, export on
a Docker volume; perflab.infra.nfsserver: capabilities SYS_ADMIN, DAC_READ_SEARCH, SETUID and SETGID
only) and the load generators. Each load generator runs `fio --server`; a driver container runs `fio --client=hosts.list clients.fio`
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
negotiated 100 Mbit/s instead of 1 Gbit/s. Both kinds of link, and the thread that reads their
counters, are perflab.infra.links': unshaping is checked (a link still shaped stops the run), and a
sampler that fails stops the run at the end of the phase it failed in.

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
load() reads them back.

    experiment.py   plan(), validate(), job_for(), run(): the server, the load generators, the shaped
                    links (perflab.infra.links) and the phases (the tool)
    analysis.py     load(), summary(): the counters and logs read back, rates, the call-out, the
                    gain, the cost of collection
    figures.py      the chapter's figures (fig_*)
    checks.py       CHECKS: the chapter's claims, each declared once

The parsing and analysis are tested in tests/test_bad_cable.py, the checks in tests/test_bad_cable_checks.py.
"""
from .analysis import (SETTLE_S, cost, counter_rate, expected_gain, find_outlier, fio_total, load, net_per_second,
                       ops_per_second, parse_bw_log, parse_links, parse_ops, rates, summary, windows)
from .checks import CHECKS
from .experiment import (COST_ORDER, DATA_FILE, HERE, INTENT, JOB, SERVER_CAPS, START_S, job_for, plan, run,
                         validate)
from .figures import BAD_COLOUR, fig_cost, fig_network, fig_ops, fig_throughput

__all__ = ["BAD_COLOUR", "CHECKS", "COST_ORDER", "DATA_FILE", "HERE", "INTENT", "JOB", "SERVER_CAPS", "SETTLE_S",
           "START_S", "cost", "counter_rate", "expected_gain", "fig_cost", "fig_network", "fig_ops", "fig_throughput",
           "find_outlier", "fio_total", "job_for", "load", "net_per_second", "ops_per_second", "parse_bw_log",
           "parse_links", "parse_ops", "plan", "rates", "run", "summary", "validate", "windows"]
