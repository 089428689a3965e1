"""Shaped links (perflab.infra.links): a failed unshape or a sampler that dies is a failure of the run,
never silent (issue 27: bad-cable ignored both)."""
import contextlib
import os
import subprocess
import time
from types import SimpleNamespace

import pytest

from perflab.infra import links
from perflab.infra.ledger import Ledger


class FlakyLinks:
    """Counters that work `ok` times, then fail as a vanished veth does."""
    def __init__(self, ok):
        self.ok, self.calls = ok, 0

    def counters(self):
        self.calls += 1
        if self.calls > self.ok:
            raise links.LinkFailed("client 2's link vethX cannot be read")
        return {1: [10 * self.calls, 0, 1, 0], 2: [20 * self.calls, 0, 2, 0]}


def test_a_sampler_that_fails_stops_the_run_with_its_error(tmp_path):
    s = links.LinkSampler(FlakyLinks(3), tmp_path / "links.log", interval=0.02)
    s.start()
    t_end = time.time() + 5
    while s.is_alive() and time.time() < t_end:
        time.sleep(0.02)
    with pytest.raises(links.LinkFailed, match="the link sampler stopped, links.log ends there: client 2's link"):
        s.check()
    with pytest.raises(links.LinkFailed):
        s.stop()
    assert len((tmp_path / "links.log").read_text().splitlines()) == 6   # 3 samples x 2 clients, then the error


def test_a_sampler_that_works_stops_quietly(tmp_path):
    s = links.LinkSampler(FlakyLinks(10 ** 6), tmp_path / "links.log", interval=0.02)
    s.start()
    log = tmp_path / "links.log"
    end = time.monotonic() + 10
    while not (log.exists() and log.read_text().count("\n") >= 4):   # two samples of both clients
        assert time.monotonic() < end, "no samples within 10 s"
        time.sleep(0.01)
    s.stop()
    lines = log.read_text().splitlines()
    assert len(lines) >= 4 and all(len(ln.split()) == 6 for ln in lines)


def test_htb_class_counters():
    text = ("class htb 1:1 root prio 0 rate 10Mbit ceil 10Mbit\n Sent 123456 bytes 789 pkt (dropped 0)\n"
            "class htb 1:12 root prio 0 rate 1Mbit\n Sent 42 bytes 1 pkt\n")
    assert links.parse_htb_classes(text) == {1: (123456, 789), 12: (42, 1)}


@pytest.fixture
def veth():
    if os.geteuid() != 0:
        pytest.skip("makes a veth pair: needs root")
    name = f"plk{os.getpid() % 100000}"
    r = subprocess.run(["ip", "link", "add", name, "type", "veth", "peer", "name", name + "p"], capture_output=True)
    if r.returncode:
        pytest.skip(f"no veth here: {r.stderr.decode().strip()}")
    try:
        yield name
    finally:
        subprocess.run(["ip", "link", "del", name], capture_output=True)


def test_unshape_removes_the_tbf_and_says_when_it_could_not(veth, tmp_path, monkeypatch):
    with contextlib.ExitStack() as stack:
        vl = links.VethLinks(Ledger(tmp_path), stack)
        vl.devs[1] = veth
        no_container = SimpleNamespace(id="none", client=None)   # a bare veth pair: unshape removes its tbf
        stack.enter_context(links.hostobjects.tbf(vl.ledger, veth, "rate", "8000kbit", *links.TBF,
                                                  container=no_container))
        assert " tbf " in subprocess.run(["tc", "qdisc", "show", "dev", veth], capture_output=True, text=True).stdout
        real = links.hostcmd.run
        # a `tc qdisc del` that does nothing (as one refused is): the link stays shaped, and unshape says so
        monkeypatch.setattr(links.hostcmd, "run", lambda cmd, *a, **k: real(["true"], 5) if "del" in cmd
                            else real(cmd, *a, **k))
        with pytest.raises(links.LinkFailed, match=f"the links of {veth} are still shaped"):
            vl.unshape()
        monkeypatch.setattr(links.hostcmd, "run", real)
        vl.unshape()
        assert " tbf " not in subprocess.run(["tc", "qdisc", "show", "dev", veth], capture_output=True,
                                             text=True).stdout
    assert Ledger(tmp_path).open_entries() == []
