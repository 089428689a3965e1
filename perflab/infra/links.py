"""Shaped network links and their counters: what a lab needs to make one client's cable bad.

Two ways to shape the link from a server to each client (chapters/bad-cable.md):

- `VethLinks`: the lab's own client containers. A tbf on each client's host-side veth (the host's
  egress on it is what the server sends to that client), recorded in the run's ledger so that
  `perflab clean` removes it after a crash; counters from the veth's statistics.
- `ServerLinks`: hosts the lab does not own. One HTB on the server container's interface, inside its
  network namespace, a class per client matched on its address (u32 dst); counters are the classes'
  sent bytes and packets. The qdisc lives and dies with the container's namespace.

Both give `add`, `set_rate`, `unshape` (checked: a link still shaped afterwards is a failure, or the
next phase would be measured on it) and `counters`. `LinkSampler` reads the counters once a second
into a file; a sampler that fails stops the run with its error instead of leaving a short file.
"""
from __future__ import annotations

import contextlib
import re
import threading
import time
from pathlib import Path

from perflab.errors import Failed
from perflab.infra import hostcmd, hostobjects
from perflab.infra.containers import exec_sh

__all__ = ["LinkFailed", "TBF", "UNSHAPED_MBIT", "VethLinks", "ServerLinks", "LinkSampler", "host_veth",
           "iface_with", "parse_htb_classes"]

#: tbf's burst and queue: 64 KiB bursts, at most 50 ms of queue
TBF = ["burst", "64kb", "latency", "50ms"]
#: "no limit" for an HTB class: far above what a small machine can send
UNSHAPED_MBIT = 10_000
TC_TIMEOUT_S = 30


class LinkFailed(Failed, RuntimeError):
    """A link could not be shaped, unshaped or read."""


def _kbit(mbit: float) -> str:
    return f"{mbit * 1000:.0f}kbit"


def _tc(cmd: list[str], prefix: tuple = ()) -> str:
    return hostcmd.run(["tc", *cmd], timeout=TC_TIMEOUT_S, prefix=prefix).stdout


def host_veth(c) -> str:
    """The host-side name of container c's eth0: the interface whose ifindex is eth0's iflink."""
    code, out = exec_sh(c, ["cat", "/sys/class/net/eth0/iflink"], timeout=30)
    idx = out.strip()
    for d in Path("/sys/class/net").iterdir():
        with contextlib.suppress(OSError):
            if (d / "ifindex").read_text().strip() == idx:
                return d.name
    raise LinkFailed(f"no host interface with ifindex {idx} (container {c.name})")


def iface_with(pid: int, ip: str) -> str:
    """The interface holding address `ip` in the network namespace of process `pid`."""
    out = hostcmd.run(["ip", "-o", "-4", "addr", "show"], timeout=TC_TIMEOUT_S,
                      prefix=("nsenter", "-t", str(pid), "-n")).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) > 3 and f[3].split("/")[0] == ip:
            return f[1].split("@")[0]
    raise LinkFailed(f"the server has no interface with address {ip}")


class VethLinks:
    """The lab's own client containers: a tbf on each client's host-side veth, in the run's ledger."""

    def __init__(self, ledger, stack: contextlib.ExitStack):
        self.ledger, self.stack, self.devs = ledger, stack, {}

    def add(self, j: int, container, mbit: float) -> None:
        self.devs[j] = host_veth(container)
        self.stack.enter_context(hostobjects.tbf(self.ledger, self.devs[j], "rate", _kbit(mbit), *TBF,
                                                 container=container))

    def set_rate(self, j: int, mbit: float) -> None:
        _tc(["qdisc", "replace", "dev", self.devs[j], "root", "tbf", "rate", _kbit(mbit), *TBF])

    def unshape(self) -> None:
        """Every client's tbf removed, and checked gone."""
        for dev in self.devs.values():
            hostcmd.run(["tc", "qdisc", "del", "dev", dev, "root"], timeout=TC_TIMEOUT_S, check=False)
        still = [dev for dev in self.devs.values() if " tbf " in _tc(["qdisc", "show", "dev", dev])]
        if still:
            raise LinkFailed(f"the links of {', '.join(still)} are still shaped after 'tc qdisc del': the next "
                             "phase would be measured on shaped links")

    def counters(self) -> dict[int, list[int]]:
        """{client: [tx_bytes, rx_bytes, tx_packets, rx_packets]} of each veth."""
        out = {}
        for j, dev in self.devs.items():
            base = Path("/sys/class/net", dev, "statistics")
            try:
                out[j] = [int((base / k).read_text()) for k in ("tx_bytes", "rx_bytes", "tx_packets", "rx_packets")]
            except (OSError, ValueError) as e:
                raise LinkFailed(f"client {j}'s link {dev} cannot be read ({e}): did its container stop?") from None
        return out


class ServerLinks:
    """Hosts the lab does not own: an HTB on the server's interface toward them, in its namespace."""

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
            self.set_rate(j, UNSHAPED_MBIT)     # _tc raises if a class cannot be changed

    def counters(self) -> dict[int, list[int]]:
        got = parse_htb_classes(_tc(["-s", "class", "show", "dev", self.dev], self.ns))
        missing = [j for j in self.ips if j not in got]
        if missing:
            raise LinkFailed(f"the server's HTB has no class for client(s) {missing}")
        return {j: [b, 0, pk, 0] for j, (b, pk) in got.items() if j in self.ips}


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
    """Reads each client's link counters once a second into a file (a thread of the run). If reading
    fails, the thread ends and keeps the error: `check()` (call it between phases) and `stop()`
    raise it, so a run never ends with a links file cut short and nobody told."""

    def __init__(self, links, path: Path, interval: float = 1.0):
        super().__init__(daemon=True, name="link-sampler")
        self.links, self.path, self.interval = links, Path(path), interval
        self.stop_evt, self.error = threading.Event(), None

    def run(self):
        nxt = time.time()
        try:
            with open(self.path, "a", buffering=1) as f:
                while not self.stop_evt.is_set():
                    t = time.time()
                    for j, v in sorted(self.links.counters().items()):
                        f.write(f"{t:.3f} {j} " + " ".join(map(str, v)) + "\n")
                    nxt += self.interval
                    self.stop_evt.wait(max(0.0, nxt - time.time()))
        except Exception as e:  # noqa: BLE001 - kept for the run's thread to raise
            self.error = e

    def check(self) -> None:
        if self.error is not None:
            raise LinkFailed(f"the link sampler stopped, {self.path.name} ends there: {self.error}") from None

    def stop(self) -> None:
        self.stop_evt.set()
        self.join(timeout=5)
        self.check()
