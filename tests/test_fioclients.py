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
