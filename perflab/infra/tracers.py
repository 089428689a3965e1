"""Tracers that run beside a lab, in containers of their own (the lab's images carry the tools).

`Bpftrace`: a bpftrace script attached to one host process, in a container that shares the host's
PID namespace and has SYS_ADMIN alone (bpf(), perf_event_open(), and tracefs mounted in its own mount
namespace), for a fixed window; its JSON output and messages land in the lab's trace directory.
Nothing of it outlives the window: `timeout` stops bpftrace with SIGINT (it prints its maps and
detaches), and `finish` removes the container.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from perflab.errors import Failed

__all__ = ["Bpftrace", "TracerFailed"]


class TracerFailed(Failed, RuntimeError):
    pass


class Bpftrace:
    CAPS = ["SYS_ADMIN"]

    def __init__(self, topo, container, trace_dir: Path, output: str):
        self.topo, self.container, self.trace_dir, self.output = topo, container, Path(trace_dir), output

    @classmethod
    def start(cls, topo, image: str, trace_dir: Path, script: Path, host_pid: int, window: float,
              output: str = "bpftrace.json", name: str = "tracer") -> "Bpftrace":
        """bpftrace -p `host_pid` -f json running `script` (copied into `trace_dir`, given the pid as
        its first argument) for `window` seconds."""
        trace_dir = Path(trace_dir)
        shutil.copy(script, trace_dir / Path(script).name)
        sh = ("mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || echo 'tracefs: mount failed' >&2; "
              f"exec timeout --preserve-status -s INT {window:.1f} bpftrace -p {host_pid} -f json "
              f"-o /trace/{output} /trace/{Path(script).name} {host_pid}")
        c = topo.container(image, name, ["sh", "-c", sh], network_mode="none", pid_mode="host",
                           cap_drop=["ALL"], cap_add=cls.CAPS,
                           volumes={str(trace_dir): {"bind": "/trace", "mode": "rw"}})
        return cls(topo, c, trace_dir, output)

    def attached(self) -> bool:
        """Whether bpftrace has put its probes in place (it says so first thing in its output); a
        tracer that has ended without doing so raises, with its messages."""
        out = self.trace_dir / self.output
        if out.exists() and "attached_probes" in out.read_text(errors="replace")[:4096]:
            return True
        self.container.reload()
        if self.container.status == "exited":
            raise TracerFailed("bpftrace ended before its probes were attached: "
                               + self.container.logs().decode(errors="replace").strip()[-800:])
        return False

    def stop(self) -> None:
        """End the tracing window now: SIGINT, as at the window's end (bpftrace prints its maps and
        detaches); nothing if it has ended already."""
        try:
            self.container.kill(signal="SIGINT")
        except Exception:  # noqa: BLE001 - it may have ended (its window, or an error finish reports)
            pass

    def finish(self, timeout: float) -> tuple[int | None, str, list[str]]:
        """Wait for bpftrace (None: it did not end in time), keep its messages in bpftrace.stderr.txt,
        remove its container; (exit status, messages, output lines)."""
        try:
            code = self.container.wait(timeout=timeout).get("StatusCode", -1)
        except Exception:  # noqa: BLE001 - a tracer that hangs is reported by its caller, not fatal
            code = None
        err = self.container.logs(stdout=True, stderr=True).decode(errors="replace")
        (self.trace_dir / "bpftrace.stderr.txt").write_text(err)
        self.topo.remove(self.container)
        out = self.trace_dir / self.output
        return code, err, (out.read_text().splitlines() if out.exists() else [])
