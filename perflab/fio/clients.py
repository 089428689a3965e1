"""Driving many load generators at once with fio's client/server mode.

Each load generator (a container of the lab, or a real host of a class) runs `fio --server`; one
driver runs `fio --client=HOSTS job.fio` and every host runs the same job at the same time. The
results come back to the driver: one JSON document whose `client_stats` has a row per host and
job (plus an "All clients" row), and each host's logs, named `<log>.<host>` (e.g.
`client_bw.1.log.172.18.0.3`).

Four traps, each handled here:
- `fio --client=a --client=b job.fio` runs the job on b only: a job file binds to the `--client`
  before it. One hosts file (`--client=FILE`) sends the same job to all of them.
- Job options given on the driver's command line (`--runtime=30`) are not sent to the servers: every
  job option must be in the job file. `client_command` passes only the driver's own options.
- The driver prints lines ("<host>: ...") before the JSON, also with `--output`: `read_results`
  (through fiolog.read_fio_json) starts at the first line that opens the JSON object.
- A host's histogram log (`write_hist_log`) as fio 3.33's driver writes it is cumulative: each line
  holds the counts since the job's start of every other line (lines 1, 3, 5, ... add up one series,
  2, 4, 6, ... another). Measured on the bad-cable lab's reference: over 168 lines no bucket's count
  is ever below the one two lines before, and the last two lines add up to fio's own read count for
  the host to within its last, unlogged interval (273,431 against 273,434 on one host).
  `per_interval_hist` gives each line its own interval back, when a log is cumulative that way.

Hosts file, as a lab parameter (`hosts=path`): one host per line, `name-or-address` or
`name-or-address,port` (fio's own syntax; port 8765 by default), `#` starts a comment, blank lines
are ignored. `parse_hosts` refuses anything else, naming the line.
"""
from __future__ import annotations

from perflab.errors import Refused

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path

PORT = 8765  # fio's default server port
_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$")


class HostsError(Refused, ValueError):
    pass


@dataclass(frozen=True)
class Host:
    name: str
    port: int = PORT

    def __str__(self) -> str:
        return self.name if self.port == PORT else f"{self.name},{self.port}"


def parse_hosts(text: str, source: str = "hosts file") -> list[Host]:
    """The hosts of a hosts file (see the module docstring); HostsError names each bad line."""
    hosts, problems = [], []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, port = (x.strip() for x in line.partition(","))
        ok_name = bool(_NAME.match(name))
        if not ok_name:
            try:
                ipaddress.ip_address(name)
                ok_name = True
            except ValueError:
                pass
        if not ok_name:
            problems.append(f"{source} line {n}: {raw.strip()!r} is not a host name or address")
            continue
        if port and not (port.isdigit() and 0 < int(port) < 65536):
            problems.append(f"{source} line {n}: port {port!r} is not a number from 1 to 65535")
            continue
        h = Host(name, int(port) if port else PORT)
        if h in hosts:
            problems.append(f"{source} line {n}: {h} is listed twice")
            continue
        hosts.append(h)
    if problems:
        raise HostsError("; ".join(problems))
    if not hosts:
        raise HostsError(f"{source} lists no hosts (one per line: name or address, optionally ',port')")
    return hosts


def read_hosts(path) -> list[Host]:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise HostsError(f"cannot read the hosts file {p}: {e.strerror}") from None
    return parse_hosts(text, str(p))


def write_hosts(hosts: list[Host], path) -> Path:
    """The hosts list as fio reads it (no comments: fio's own parser does not know them)."""
    p = Path(path)
    p.write_text("".join(f"{h}\n" for h in hosts))
    return p


def server_command(stagger: int = 0) -> list[str]:
    """The command a load-generator container runs. `stagger` throw-away processes first make its
    PIDs differ from the other containers' (libnfs names its NFSv4 client by PID and time, "Libnfs
    pid:%d %d"; equal names make the server refuse all but one, NFS4ERR_CLID_INUSE). fio's threads
    take PIDs too, so the containers' staggers should differ by more than a job's threads."""
    pre = f"for i in $(seq {stagger}); do /bin/true; done; " if stagger else ""
    return ["sh", "-c", pre + "exec fio --server"]


LISTENING = "grep -qi ':%04X 00000000:0000 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null" % PORT


def client_command(hosts_file: str, job_file: str, output: str) -> list[str]:
    """The driver's command: only driver options on the command line (see the traps above)."""
    return ["fio", f"--client={hosts_file}", job_file, "--output-format=json", f"--output={output}"]


def read_results(path) -> dict[str, list[dict]]:
    """{host: [job stats, ...]} from the driver's JSON output (fiolog skips the text before the
    JSON); the "All clients" aggregate is left out."""
    from perflab.fio.logs import read_fio_json

    out: dict[str, list[dict]] = {}
    for row in read_fio_json(path).get("client_stats", []):
        if row.get("jobname") == "All clients":
            continue
        out.setdefault(row.get("hostname", "?"), []).append(row)
    return out


def log_path(directory, log_name: str, host) -> Path:
    """Where the driver wrote a host's log: e.g. log_path(d, 'client_bw.1.log', '172.18.0.3')."""
    return Path(directory) / f"{log_name}.{getattr(host, 'name', host)}"


#: the lag of a driver's cumulative histogram log (see the module docstring), and the fewest lines of one
#: direction that show it (fewer prove nothing: a short log of a rising load can grow line by line)
CUMULATIVE_LAG = 2
CUMULATIVE_MIN_LINES = 3 * CUMULATIVE_LAG
#: a log the driver wrote for one host: fio appends ".<host>" to the job's log name
_HOST_LOG = re.compile(r"\.log\.[^/]+$")


def host_log(path) -> bool:
    """Is `path` a log fio's driver wrote for one host (`<log>.<host>`, gzipped or not)?"""
    name = Path(path).name.removesuffix(".gz")
    return bool(_HOST_LOG.search(name))


def per_interval_hist(h):
    """`h` (perflab.fio.logs.HistLog) with each line's own interval's counts, and whether it had to be
    undone: the lines of each direction differenced with the line CUMULATIVE_LAG before (the first
    CUMULATIVE_LAG as they are), when they are cumulative that way (CUMULATIVE_MIN_LINES lines or more,
    no bucket ever below the one CUMULATIVE_LAG lines before, and the totals growing); else `h` as it is."""
    import numpy as np
    from dataclasses import replace

    counts, undone = h.counts.copy(), False
    for d in np.unique(h.ddir):
        rows = np.flatnonzero(h.ddir == d)
        c = h.counts[rows]
        if len(rows) < CUMULATIVE_MIN_LINES:
            continue
        lagged = c[CUMULATIVE_LAG:] - c[:-CUMULATIVE_LAG]
        grows = lagged.sum(axis=1) > 0
        if (lagged < 0).any() or grows.mean() < 0.5:
            continue
        counts[rows[CUMULATIVE_LAG:]] = lagged
        undone = True
    return (replace(h, counts=counts) if undone else h), undone

