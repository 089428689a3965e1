"""fio client/server mode: the hosts file a lab takes as a parameter, the driver's command (only
driver options: job options must be in the job file), and its JSON (text before it, one row per
host, the "All clients" sum left out)."""
import json

import pytest

from perflab.fio import clients as fioclients
from perflab.fio.clients import Host, HostsError


def test_hosts_file_with_comments_ports_and_addresses():
    hosts = fioclients.parse_hosts("# the class's machines\nlab-01\n\n10.0.0.7,8766  # a second fio server\n"
                                   "fe80::1\n")
    assert hosts == [Host("lab-01"), Host("10.0.0.7", 8766), Host("fe80::1")]
    assert [str(h) for h in hosts] == ["lab-01", "10.0.0.7,8766", "fe80::1"]


@pytest.mark.parametrize("text,words", [
    ("", "lists no hosts"),
    ("# only a comment\n", "lists no hosts"),
    ("good\nbad host\n", "line 2: 'bad host' is not a host name or address"),
    ("a,99999\n", "line 1: port '99999' is not a number from 1 to 65535"),
    ("a\nb\na\n", "line 3: a is listed twice"),
])
def test_bad_hosts_files_are_refused_naming_the_line(text, words):
    with pytest.raises(HostsError, match=words.replace("(", r"\(")):
        fioclients.parse_hosts(text)


def test_missing_hosts_file(tmp_path):
    with pytest.raises(HostsError, match="cannot read the hosts file"):
        fioclients.read_hosts(tmp_path / "nope")


def test_written_list_is_what_fio_reads(tmp_path):
    p = fioclients.write_hosts([Host("a"), Host("b", 9000)], tmp_path / "hosts.list")
    assert p.read_text() == "a\nb,9000\n"
    assert fioclients.read_hosts(p) == [Host("a"), Host("b", 9000)]


def test_driver_command_carries_no_job_options():
    cmd = fioclients.client_command("hosts.list", "job.fio", "out.json")
    assert cmd == ["fio", "--client=hosts.list", "job.fio", "--output-format=json", "--output=out.json"]
    assert fioclients.server_command(3)[-1].endswith("exec fio --server")
    assert "seq 3" in fioclients.server_command(3)[-1] and "seq" not in fioclients.server_command()[-1]


def test_results_by_host_skip_preamble_and_aggregate(tmp_path):
    rows = [{"jobname": "read", "hostname": "172.18.0.2", "read": {"bw_bytes": 10}},
            {"jobname": "read", "hostname": "172.18.0.3", "read": {"bw_bytes": 20}},
            {"jobname": "All clients", "hostname": "172.18.0.3", "read": {"bw_bytes": 30}}]
    p = tmp_path / "clients.json"
    p.write_text("hostname=172.18.0.2, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n"
                 + json.dumps({"fio version": "fio-3.33", "client_stats": rows}))
    res = fioclients.read_results(p)
    assert set(res) == {"172.18.0.2", "172.18.0.3"}
    assert [r["read"]["bw_bytes"] for r in res["172.18.0.3"]] == [20]
    assert fioclients.log_path(tmp_path, "client_bw.1.log", Host("172.18.0.2")).name == "client_bw.1.log.172.18.0.2"


# --- a driver's histogram logs (fio 3.33: cumulative, every other line) ------------------------------

def _hist(counts, ddir=None):
    import numpy as np

    from perflab.fio.logs import HistLog

    c = np.asarray(counts, np.int64)
    n = len(c)
    return HistLog(time_ms=np.arange(1, n + 1) * 1000, ddir=np.zeros(n, np.int8) if ddir is None else
                   np.asarray(ddir, np.int8), bs=np.full(n, 4096), counts=c)


def test_a_log_cumulative_every_other_line_gets_its_intervals_back():
    import numpy as np

    rng = np.random.default_rng(7)
    own = rng.poisson(50, size=(12, 6))          # each second's own counts
    cum = own.copy()
    for k in range(2, 12):                        # lines 1, 3, 5, ... add up one series; 2, 4, 6, ... another
        cum[k] = cum[k - 2] + own[k]
    h, undone = fioclients.per_interval_hist(_hist(cum))
    assert undone and (h.counts == own).all()


def test_a_log_of_each_intervals_own_counts_is_left_as_it_is():
    import numpy as np

    own = np.random.default_rng(8).poisson(50, size=(12, 6))
    h, undone = fioclients.per_interval_hist(_hist(own))
    assert not undone and (h.counts == own).all()
    short = own[:5].cumsum(axis=0)                # too few lines to tell a rising load from a cumulative log
    assert not fioclients.per_interval_hist(_hist(short))[1]


def test_only_a_hosts_log_is_taken_for_the_drivers():
    assert fioclients.host_log("fio/client_clat_hist.1.log.172.24.0.3")
    assert fioclients.host_log("fio/client_clat_hist.1.log.desk1.gz")
    assert not fioclients.host_log("fio/direct_clat_hist.2.log.gz") and not fioclients.host_log("a_clat_hist.1.log")


def test_the_bad_cable_references_driver_logs_add_up_to_fios_own_counts():
    """Read back per interval, each host's log adds up to fio's own read count for that host, less what
    its unlogged end held: the seconds of fio's runtime the log has no line for, and the last, partial
    one (each at most the largest count a logged second holds). As written, it holds far more."""
    from conftest import ROOT
    from perflab.fio.logs import read_hist_log

    fdir = ROOT / "data" / "reference" / "bad-cable" / "fio"
    res = fioclients.read_results(fdir / "clients.json")
    ios = {h: rows[0]["read"]["total_ios"] for h, rows in res.items()}
    seconds = {h: rows[0]["read"]["runtime"] // 1000 for h, rows in res.items()}
    for path in sorted(fdir.glob("client_clat_hist.1.log.*")):
        raw = read_hist_log(path)
        h, undone = fioclients.per_interval_hist(raw)
        host = path.name.removeprefix("client_clat_hist.1.log.")
        per_line = h.counts.sum(axis=1)
        assert undone and raw.counts.sum() > 10 * ios[host]      # as written: far more than fio counted
        unlogged = seconds[host] - len(per_line) + 1
        assert 0 <= ios[host] - per_line.sum() <= unlogged * per_line.max(), (host, ios[host], per_line.sum())


def test_the_heat_map_of_a_drivers_logs_counts_each_second_once_and_says_so():
    from conftest import ROOT
    from perflab.analysis.heatmap.ingest import from_hist_log

    fdir = ROOT / "data" / "reference" / "bad-cable" / "fio"
    res = fioclients.read_results(fdir / "clients.json")
    fio_total = sum(rows[0]["read"]["total_ios"] for rows in res.values())
    hm = from_hist_log(sorted(fdir.glob("client_clat_hist.1.log.*")))
    assert 0.97 * fio_total <= hm.total <= fio_total       # as written, the map held 18 times fio's count
    assert any(n.startswith("5 logs of fio --client") and "difference from the line two before" in n for n in hm.notes)
