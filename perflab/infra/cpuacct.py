"""CPU time, as the kernel counts it: a container's cgroup (its CPU time per CPU, and the time its CPU
limit held it back) and the host's CPUs (/proc/stat: how busy each CPU was, whoever ran on it).

A lab that asks "how busy was fio" reads its container's cgroup; a lab that must tell "fio was not
busy" from "fio shared its CPU with other work" also reads how busy the CPU itself was over the same
window: the difference is the other work's (a learner's browser, the machine-conditions harness).

    acct = ContainerCpu.of(container_pid)      # the files, found once
    before = acct.sample(); ...; after = acct.sample()
    used = after - before                       # .cpu_ns (per CPU, v1), .throttled_ns
    host = host_busy_ns([3])                    # {3: ns busy since boot}
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from perflab.errors import Failed

CGROUP_ROOT = Path("/sys/fs/cgroup")


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """/proc/<pid>/cgroup as {controller: path}; cgroup v2's single line is under ""."""
    out = {}
    for line in text.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) != 3:
            continue
        for ctl in parts[1].split(",") if parts[1] else [""]:
            out[ctl] = parts[2]
    return out


def _cgroup_file(pid: int, root: Path, ctl: str, mounts: tuple[str, ...], v1_name: str) -> tuple[Path, str] | None:
    """pid's cgroup file: v1's `v1_name` under controller `ctl` (mounted at one of `mounts`), else
    v2's unified cpu.stat; with its kind ("v1" or "v2"), or None."""
    groups = parse_proc_cgroup(Path(f"/proc/{pid}/cgroup").read_text())
    if ctl in groups:
        rel = groups[ctl].lstrip("/")
        for mnt in mounts:
            if (root / mnt / rel / v1_name).exists():
                return root / mnt / rel / v1_name, "v1"
    if "" in groups and (root / groups[""].lstrip("/") / "cpu.stat").exists():
        return root / groups[""].lstrip("/") / "cpu.stat", "v2"
    return None


def cgroup_cpu_files(pid: int, root: Path = CGROUP_ROOT) -> tuple[Path, str]:
    """The file holding the CPU time of pid's cgroup, and its kind: cgroup v1 cpuacct.usage_percpu
    (ns per CPU) or cgroup v2 cpu.stat (usage_usec, no per-CPU split)."""
    found = _cgroup_file(pid, root, "cpuacct", ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"), "cpuacct.usage_percpu")
    if found is None:
        raise Failed(f"no cgroup CPU accounting found for pid {pid} "
                     f"({parse_proc_cgroup(Path(f'/proc/{pid}/cgroup').read_text())})")
    return found


def cgroup_throttle_file(pid: int, root: Path = CGROUP_ROOT) -> tuple[Path, str] | None:
    """cpu.stat of pid's cgroup, where the kernel counts the time a CPU limit held it back (v1:
    throttled_time in ns; v2: throttled_usec); None where there is none."""
    return _cgroup_file(pid, root, "cpu", ("cpu", "cpu,cpuacct", "cpuacct,cpu"), "cpu.stat")


def read_cpu_ns(f: Path, kind: str) -> list[int]:
    """CPU time of a cgroup in ns: one value per CPU (v1), or one value in all (v2)."""
    text = f.read_text()
    if kind == "v1":
        return [int(x) for x in text.split()]
    m = re.search(r"^usage_usec\s+(\d+)", text, re.M)
    return [int(m.group(1)) * 1000] if m else []


def read_throttled_ns(f: Path, kind: str) -> int:
    """Time a cgroup's CPU limit held it back, in ns (0 when it has none)."""
    text = f.read_text()
    key, scale = ("throttled_time", 1) if kind == "v1" else ("throttled_usec", 1000)
    m = re.search(rf"^{key}\s+(\d+)", text, re.M)
    return int(m.group(1)) * scale if m else 0


@dataclass
class Sample:
    cpu_ns: list[int]
    throttled_ns: int = 0

    def __sub__(self, other: "Sample") -> "Sample":
        return Sample([a - b for a, b in zip(self.cpu_ns, other.cpu_ns)], self.throttled_ns - other.throttled_ns)


@dataclass
class ContainerCpu:
    """A container's CPU accounting files, found from its main process."""
    usage: tuple[Path, str]
    throttle: tuple[Path, str] | None = field(default=None)

    @classmethod
    def of(cls, pid: int, root: Path = CGROUP_ROOT) -> "ContainerCpu":
        return cls(cgroup_cpu_files(pid, root), cgroup_throttle_file(pid, root))

    @property
    def kind(self) -> str:
        return self.usage[1]

    def sample(self) -> Sample:
        return Sample(read_cpu_ns(*self.usage), read_throttled_ns(*self.throttle) if self.throttle else 0)


def parse_proc_stat(text: str) -> dict[int, tuple[int, int]]:
    """/proc/stat's per-CPU lines: {cpu: (busy ticks, all ticks)}; busy is all but idle and iowait."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"cpu(\d+)\s+(.*)", line)
        if not m:
            continue
        v = [int(x) for x in m.group(2).split()]
        total = sum(v[:8])   # user nice system idle iowait irq softirq steal (guest is inside user)
        out[int(m.group(1))] = (total - v[3] - v[4], total)
    return out


def host_busy_ns(cpus: list[int], text: str | None = None) -> dict[int, int]:
    """How long each of `cpus` has been busy since boot (ns, at the kernel's tick resolution)."""
    stat = parse_proc_stat(text if text is not None else Path("/proc/stat").read_text())
    tick_ns = 1e9 / os.sysconf("SC_CLK_TCK")
    return {c: int(stat[c][0] * tick_ns) for c in cpus if c in stat}
