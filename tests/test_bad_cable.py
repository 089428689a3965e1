"""Lab bad-cable: parsing the server's per-client counters (nfs-client-stats), the host veth samples
and fio's bandwidth logs, and the analysis (rates, the outlier call-out, the gain, the cost of
collection), on small synthetic data (no Docker)."""
import json
from pathlib import Path

import pandas as pd
import pytest

from perflab.config import manifest as manifest_mod
from perflab.analysis.checks import failed

T0 = 1_795_000_000.0
IPS = {"192.168.64.3": 1, "192.168.64.4": 2, "192.168.64.5": 3, "192.168.64.6": 4}


@pytest.fixture(scope="module")
def lab():
    return manifest_mod.load().lab("bad-cable").load_module()


def ops_lines(rates: dict[int, float], seconds: int, t0: float = T0, bs: int = 32768):
    """nfs-client-stats output: cumulative reads per client at 1 Hz, each client at its rate."""
    out = []
    for i in range(seconds + 1):
        t = t0 + i + 0.137
        for ip, j in IPS.items():
            reads = int(rates[j] * i)
            out.append(f"{t:.3f} ::ffff:{ip} {reads} {reads * bs} 0 0 {2 * reads}")
    return out


def veth_lines(bytes_s: dict[int, float], seconds: int, t0: float = T0):
    out = []
    for i in range(seconds + 1):
        t = t0 + i + 0.5
        for j, r in bytes_s.items():
            b = int(r * i)
            out.append(f"{t:.3f} {j} {b} {b // 50} {b // 1500} {b // 3000}")
    return out


def test_parse_ops_maps_addresses_and_drops_junk(lab):
    lines = ops_lines({1: 300, 2: 30, 3: 300, 4: 300}, 2)
    lines += ["garbage", "1795000000.0 ::ffff:10.9.9.9 1 2 3 4 5", "1795000000.0 192.168.64.3 x 0 0 0 0"]
    df = lab.parse_ops(lines, IPS)
    assert list(df.columns) == ["t", "client", "reads", "read_bytes", "writes", "write_bytes", "other"]
    assert len(df) == 12 and set(df["client"]) == {1, 2, 3, 4}
    assert df[df["client"] == 2]["reads"].max() == 60
    # an address written without the IPv4-mapped prefix is matched too
    plain = lab.parse_ops(["1795000000.0 192.168.64.5 7 8 0 0 1"], IPS)
    assert plain.iloc[0]["client"] == 3 and plain.iloc[0]["reads"] == 7


def test_parse_links_and_bw_log(lab):
    v = lab.parse_links(veth_lines({1: 1e6, 2: 1e5}, 3) + ["1 2 3", "x 1 2 3 4 5"])
    assert len(v) == 8 and v["tx_bytes"].max() == 3_000_000
    bw = lab.parse_bw_log(["1795000001137, 11718, 0, 32768, 0", "1795000002137, 1171, 0, 32768, 0", "bad, line"])
    assert list(bw["t"]) == [1795000001.137, 1795000002.137]
    assert bw["bytes_s"].iloc[0] == 11718 * 1024


def test_rates_and_counter_rate(lab):
    df = lab.parse_ops(ops_lines({1: 300, 2: 30, 3: 300, 4: 300}, 10), IPS)
    per_s = lab.rates(df, "reads")
    assert sorted(per_s.columns) == [1, 2, 3, 4]
    assert per_s[2].median() == pytest.approx(30, abs=1) and per_s[1].median() == pytest.approx(300, abs=1)
    avg = lab.counter_rate(df, "reads", T0 + 2, T0 + 9)
    assert avg[2] == pytest.approx(30, rel=0.02) and avg[4] == pytest.approx(300, rel=0.01)


def test_counter_reset_gives_no_negative_rate(lab):
    df = pd.DataFrame({"t": [T0, T0 + 1, T0 + 2, T0 + 3], "client": [1] * 4, "reads": [0, 100, 5, 105]})
    r = lab.rates(df, "reads")[1].dropna()
    assert (r >= 0).all() and len(r) == 2


@pytest.mark.parametrize("bad", [1, 2, 4])
def test_find_outlier_names_the_slow_client(lab, bad):
    rates = pd.Series({j: (36.0 if j == bad else 360.0 + j) for j in range(1, 5)})
    o = lab.find_outlier(rates)
    assert o["client"] == bad and o["outlier"] and o["ratio"] == pytest.approx(0.1, abs=0.01)


def test_find_outlier_calls_nothing_when_clients_agree(lab):
    o = lab.find_outlier(pd.Series({1: 360.0, 2: 350.0, 3: 365.0}))
    assert o["client"] == 2 and not o["outlier"] and o["ratio"] > 0.9
    assert lab.find_outlier(pd.Series({1: 5.0}))["client"] is None


def test_expected_gain_is_near_one_over_n(lab):
    assert lab.expected_gain(10, 0.1) == pytest.approx(0.9 / 9.1)  # 2009: ten clients, ~9% (0.099)
    assert lab.expected_gain(5, 0.1) == pytest.approx(0.9 / 4.1)
    # the chapter's band 0.5/N..2/N holds the model's value at every allowed parameter
    for n in range(2, 9):
        for r in (0.02, 0.1, 0.4):
            assert 0.5 / n <= lab.expected_gain(n, r) <= 2 / n


def synthetic_run(tmp_path, bad=3, n=4, good_b=12e6, ratio=0.1, phase=20):
    """A run directory with the files load() reads: bad phase, replaced phase, four cost windows."""
    t_bad, t_rep, t_cost = T0, T0 + phase, T0 + 2 * phase
    clients = {str(j): {"host": f"client{j}", "fio_host": ip, "ip": ip, "veth": f"veth{j}"}
               for ip, j in IPS.items() if j <= n}
    windows = [{"collection": on, "t": [t_cost + 1 + i * 6, t_cost + 6 + i * 6]}
               for i, on in enumerate((False, True, True, False))]
    tl = {"clients": clients, "bad_client": bad, "link_mbit": 100, "bad_ratio": ratio, "phase_s": phase,
          "cost_window_s": 5, "settle_s": 3.0, "phases": {"bad cable": [t_bad, t_rep], "replaced": [t_rep, t_cost]},
          "cost_windows": windows}
    (tmp_path / "timeline.json").write_text(json.dumps(tl))
    ops, veth, cum_ops, cum_b = [], [], {j: 0.0 for j in range(1, n + 1)}, {j: 0.0 for j in range(1, n + 1)}
    for i in range(2 * phase + 26):
        t = T0 + i
        mid = t - 0.5  # the counters at t count the bytes of the second that ends at t
        for ip, j in IPS.items():
            if j > n:
                continue
            if mid < t_cost:
                b = good_b * (ratio if (j == bad and mid < t_rep) else 1.0)
            else:  # unshaped: "on" windows 2% slower
                on = any(w["collection"] and w["t"][0] <= mid <= w["t"][1] for w in windows)
                b = 100e6 * (0.98 if on else 1.0)
            cum_b[j] += b
            cum_ops[j] += b / 32768
            ops.append(f"{t + 0.1:.3f} ::ffff:{ip} {int(cum_ops[j])} {int(cum_b[j])} 0 0 0")
            veth.append(f"{t:.3f} {j} {int(cum_b[j])} 0 {int(cum_b[j] / 1500)} 0")
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "ops.log").write_text("\n".join(ops) + "\n")
    (tmp_path / "net").mkdir()
    (tmp_path / "net" / "links.log").write_text("\n".join(veth) + "\n")
    (tmp_path / "fio").mkdir()
    for ip, j in IPS.items():
        if j > n:
            continue
        lines = [f"{int((T0 + i) * 1000)}, {int(good_b * (ratio if (j == bad and i <= phase) else 1) / 1024)}, 0, 32768, 0"
                 for i in range(2 * phase)]  # a sample covers the second before it
        (tmp_path / "fio" / f"client_bw.1.log.{ip}").write_text("\n".join(lines) + "\n")
    return tl


def test_summary_on_a_synthetic_run(lab, tmp_path):
    synthetic_run(tmp_path, bad=3)
    m = lab.summary(lab.load(tmp_path))
    assert m["detected_outlier"] == 3
    assert m["outlier_ops_ratio"] == pytest.approx(0.1, abs=0.01)
    assert m["net_ratio"] == pytest.approx(0.1, abs=0.01)
    assert m["replaced_min_ops_ratio"] == pytest.approx(1.0, abs=0.01)
    assert m["gain"] == pytest.approx(lab.expected_gain(4, 0.1), rel=0.05)
    assert m["gain_fio"] == pytest.approx(lab.expected_gain(4, 0.1), rel=0.05)
    assert m["outlier_mbit_s"] == pytest.approx(9.6, rel=0.02)
    assert m["collection_cost"] == pytest.approx(0.02, abs=0.005)
    assert m["collection_cost_spread"] == pytest.approx(0.0, abs=0.005)


def test_summary_reads_gzipped_logs(lab, tmp_path):
    import gzip

    synthetic_run(tmp_path, bad=1)
    for rel in ("server/ops.log", "net/links.log"):
        p = tmp_path / rel
        with gzip.open(str(p) + ".gz", "wt") as f:
            f.write(p.read_text())
        p.unlink()
    assert lab.summary(lab.load(tmp_path))["detected_outlier"] == 1


def test_job_file_is_a_plain_fio_job(lab):
    from perflab.fio import jobs as fio

    jf = fio.JobFile.load(lab.HERE / "jobs" / "cached-read.fio")
    assert jf.get("global", "ioengine") == "nfs" and jf.get("global", "log_unix_epoch") == "1"
    assert jf.jobs() == ["read"]


def test_htb_class_counters():
    """The HTB counters the lab reads for hosts it does not own (perflab.infra.links)."""
    from perflab.infra.links import parse_htb_classes

    text = ("class htb 1:1 root prio 0 rate 100Mbit ceil 100Mbit burst 64Kb cburst 1600b \n"
            " Sent 123456 bytes 789 pkt (dropped 0, overlimits 3 requeues 0) \n backlog 0b 0p requeues 0\n"
            " lended: 12 borrowed: 0 giants: 0\n tokens: 81250 ctokens: 1875\n\n"
            "class htb 1:12 root prio 0 rate 10Mbit ceil 10Mbit burst 64Kb cburst 1600b \n"
            " Sent 42 bytes 1 pkt (dropped 0, overlimits 0 requeues 0) \n")
    assert parse_htb_classes(text) == {1: (123456, 789), 12: (42, 1)}


def _params(lab, **kw):
    return {"bad_client": 2, "hosts": "", "hosts_network": "", **kw}


def test_hosts_parameters_are_checked_before_anything_runs(lab, tmp_path):
    assert lab.validate(_params(lab)) == []
    assert "only used with a hosts file" in lab.validate(_params(lab, hosts_network="net"))[0]
    assert "cannot read the hosts file" in lab.validate(_params(lab, hosts=str(tmp_path / "nope")))[0]
    one = tmp_path / "one"
    one.write_text("a\n")
    msgs = " | ".join(lab.validate(_params(lab, hosts=str(one), hosts_network="x")))
    assert "lists 1 host; allowed: at least 2" in msgs and "bad_client=2: the hosts file lists 1 hosts" in msgs
    two = tmp_path / "two"
    two.write_text("a\nb\n")
    assert "the Docker network on which" in lab.validate(_params(lab, hosts=str(two)))[0]


def _run_on_hosts(ips: list[str], network: str, artifacts, tmp_path) -> dict:
    """Run the lab's smoke preset on hosts it does not own (a hosts file of `ips` on `network`),
    bad cable on the second: the outlier found, every check passing, the lab's own objects gone."""
    from conftest import ROOT, perflab_cmd
    from perflab.infra import cleanup, labels

    hf = tmp_path / "hosts.txt"
    hf.write_text("# the room\n" + "".join(f"{ip}\n" for ip in ips))
    r = perflab_cmd("run", "bad-cable", "--preset", "smoke", "-p", f"hosts={hf}", "-p", f"hosts_network={network}",
                    "-p", "bad_client=2")
    (artifacts / "run.txt").write_text(f"exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    run_dir = Path(r.stdout.strip().splitlines()[-1])
    doc = json.loads((run_dir / "run.json").read_text())
    assert r.returncode == 0, r.stderr
    assert doc["metrics"]["detected_outlier"] == 2
    assert not any(failed(c) for c in doc["checks"]), doc["checks"]
    tl = json.loads((run_dir / "timeline.json").read_text())
    assert [tl["clients"][str(j)]["ip"] for j in range(1, len(ips) + 1)] == ips
    assert (run_dir / "fio" / "hosts.list").read_text() == "".join(f"{ip}\n" for ip in ips)
    assert labels.docker_objects(labels.docker_client(), doc["run_id"]) == []   # the lab's own objects are gone
    assert [x for x in cleanup.leftovers(ROOT, client=labels.docker_client()) if x.run_id == doc["run_id"]] == []
    return doc


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long   # 81 s in the default run (2026-11-27): fio's client mode is there already, in the lab's own smoke run
def test_hosts_file_drives_hosts_the_lab_does_not_own(docker_ok, artifacts, tmp_path):
    """Containers stand in for a class's machines: each runs `fio --server` on a network of its own;
    the lab gets their addresses in a hosts file, plants the bad cable on the second, finds it, and
    leaves the hosts running and untouched."""
    import time

    from conftest import ROOT
    from perflab.fio import clients as fioclients
    from perflab.infra import labels
    from perflab.config import manifest

    client = labels.docker_client()
    run_id = f"test-hosts-{int(time.time())}"
    room_labels = labels.labels(run_id, "test")
    image = manifest.load(ROOT).images["nfsfio"].tag
    net = client.networks.create(f"perflab-{run_id}-room", driver="bridge", labels=room_labels)
    hosts = []
    try:
        for j in range(1, 4):
            hosts.append(client.containers.run(image, fioclients.server_command(64 * j), name=f"perflab-{run_id}-pc{j}",
                                               network=net.name, labels=room_labels, detach=True, init=True,
                                               cap_drop=["ALL"]))
        ips = []
        for c in hosts:
            c.reload()
            ips.append(c.attrs["NetworkSettings"]["Networks"][net.name]["IPAddress"])
            t_end = time.time() + 30
            while c.exec_run(["sh", "-c", fioclients.LISTENING]).exit_code != 0:
                assert time.time() < t_end, "fio --server did not start"
                time.sleep(0.3)
        _run_on_hosts(ips, net.name, artifacts, tmp_path)
        for c in hosts:                                                 # the hosts are not the lab's
            c.reload()
            assert c.status == "running"
    finally:
        for c in hosts:
            c.remove(force=True)
        net.remove()


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.long      # the hosts-file path runs by default (test_hosts_file_drives_hosts_the_lab_does_not_own)
def test_hosts_file_drives_fio_servers_in_network_namespaces(docker_ok, artifacts, tmp_path):
    """The way a user's machines are reached: `fio --server` as plain processes, each in a network
    namespace the test makes (a veth pair, an address on a Docker bridge network's subnet outside the
    range Docker hands out, the host end on that network's bridge), driven by IP from a hosts file.
    The lab shapes one path (the bad cable, on the server's side) and finds it as with containers.
    fio is the nfsfio image's (this host's fio has no NFS engine), run from the image's exported files
    with their own loader. Afterwards no namespace, veth or qdisc of the test's is left, and its fio
    processes (stopped by PID) are gone."""
    import ipaddress
    import os
    import subprocess
    import tarfile
    import time

    import docker

    from conftest import ROOT
    from perflab.fio import clients as fioclients
    from perflab.infra import labels
    from perflab.config import manifest

    def ip(*args, ns=None, check=True):
        cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert not check or r.returncode == 0, f"{' '.join(cmd)}: {r.stderr}"
        return r

    client = labels.docker_client()
    tag = f"{os.getpid() % 10000}"
    run_id = f"test-ns-hosts-{int(time.time())}"
    room_labels = labels.labels(run_id, "test")
    # fio with libnfs, from the nfsfio image's files
    root = tmp_path / "nfsfio-root"
    c = client.containers.create(manifest.load(ROOT).images["nfsfio"].tag, ["true"], labels=room_labels)
    try:
        with open(tmp_path / "rootfs.tar", "wb") as f:
            for chunk in c.export():
                f.write(chunk)
    finally:
        c.remove(force=True)
    with tarfile.open(tmp_path / "rootfs.tar") as t:
        t.extractall(root, members=[m for m in t.getmembers() if m.name.startswith(("usr/", "lib", "etc/"))
                                    and not m.isdev()], filter="tar")
    (tmp_path / "rootfs.tar").unlink()
    libs = f"{root}/usr/lib/x86_64-linux-gnu:{root}/lib/x86_64-linux-gnu"
    fio = [str(root / "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"), "--library-path", libs,
           str(root / "usr/local/bin/fio")]
    assert subprocess.run([*fio, "--enghelp=nfs"], capture_output=True).returncode == 0
    subnet = ipaddress.ip_network("10.213.77.0/24")
    pool = docker.types.IPAMPool(subnet=str(subnet), iprange="10.213.77.0/25", gateway="10.213.77.1")
    net = client.networks.create(f"perflab-{run_id}-room", driver="bridge", labels=room_labels,
                                 ipam=docker.types.IPAMConfig(pool_configs=[pool]))
    bridge = f"br-{net.id[:12]}"
    names, procs, ips = [], [], []
    try:
        for j in range(1, 4):
            ns, host_end, ns_end = f"perflab-h{j}-{tag}", f"plh{j}{tag}", f"pln{j}{tag}"
            addr = str(subnet[200 + j])
            ip("ip", "netns", "add", ns)
            names.append((ns, host_end))
            ip("ip", "link", "add", host_end, "type", "veth", "peer", "name", ns_end)
            ip("ip", "link", "set", ns_end, "netns", ns)
            ip("ip", "addr", "add", f"{addr}/{subnet.prefixlen}", "dev", ns_end, ns=ns)
            ip("ip", "link", "set", ns_end, "up", ns=ns)
            ip("ip", "link", "set", "lo", "up", ns=ns)
            ip("ip", "link", "set", host_end, "master", bridge, "up")
            procs.append(subprocess.Popen(["ip", "netns", "exec", ns, *fio, f"--server=ip:{addr}"],
                                          stdout=subprocess.DEVNULL, stderr=open(tmp_path / f"fio{j}.err", "w"),
                                          cwd=tmp_path))
            ips.append(addr)
            t_end = time.time() + 30
            while ip("sh", "-c", fioclients.LISTENING, ns=ns, check=False).returncode != 0:
                assert procs[-1].poll() is None, (tmp_path / f"fio{j}.err").read_text()
                assert time.time() < t_end, "fio --server did not start"
                time.sleep(0.3)
        _run_on_hosts(ips, net.name, artifacts, tmp_path)
        assert all(p.poll() is None for p in procs)                     # the hosts are not the lab's
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for ns, host_end in names:
            ip("ip", "netns", "del", ns, check=False)               # its veth end goes with it, and the pair
            ip("ip", "link", "del", host_end, check=False)
        net.remove()
    left = ip("ip", "netns", "list").stdout + ip("ip", "-o", "link").stdout + ip("tc", "qdisc", "show").stdout
    assert not [n for n, h in names if n in left or h in left], left


def test_a_client_that_read_nothing_fails_the_run_with_what_the_driver_said(lab, tmp_path):
    """Seen on a hub (two lab-host containers, one lab at a time): client 4's NFS mount was refused
    (NFS4ERR_CLID_INUSE), the driver still exited 0, and the run showed client 4 as the slowest, which a
    mystery run's student would have named as the bad client. Such a run now fails, naming the client."""
    from perflab.infra.containers import ContainerFailed

    exp = __import__(lab.__name__ + ".experiment", fromlist=["_every_client_read"])
    clients = {str(j): {"host": f"client{j}", "fio_host": f"172.19.0.{j + 2}"} for j in (1, 2)}
    rows = [{"jobname": "read", "hostname": "172.19.0.3", "error": 0, "read": {"io_bytes": 4096}},
            {"jobname": "read", "hostname": "172.19.0.4", "error": 0, "read": {"io_bytes": 0}}]
    (tmp_path / "clients.json").write_text(json.dumps({"fio version": "fio-3.33", "client_stats": rows}))
    said = ("<client2> nfs: Failed to mount nfs://server/export?version=4 with code -34: mount_cb: NFS4: "
            "SETCLIENTID (path /export) failed with NFS4ERR_CLID_INUSE(-5)\n<client1> ok\n")
    with pytest.raises(ContainerFailed, match=r"client 2 \(172.19.0.4\) read nothing: <client2> nfs: Failed to mount"):
        exp._every_client_read(tmp_path, clients, said)
    rows[1]["read"]["io_bytes"] = 8192
    (tmp_path / "clients.json").write_text(json.dumps({"fio version": "fio-3.33", "client_stats": rows}))
    exp._every_client_read(tmp_path, clients, said)   # every client read: nothing said


def test_the_chapter_names_the_servers_capabilities_as_the_code_grants_them(lab):
    """chapters/bad-cable.md lists the NFS server's capabilities in its prose: exactly the ones
    perflab.infra.nfsserver grants (lab.SERVER_CAPS), each once."""
    import re

    from conftest import ROOT

    text = (ROOT / "chapters" / "bad-cable.md").read_text()
    sentence = next(p for p in text.split("\n\n") if p.startswith("The server container keeps only"))
    named = re.findall(r"`([A-Z_]+)`", sentence.split(";")[0])
    assert sorted(named) == sorted(lab.SERVER_CAPS) and len(set(named)) == len(named), named
