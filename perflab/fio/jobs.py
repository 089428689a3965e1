"""fio job files: read the lab's shipped job files, apply parameters, and run them in a container.

The job files under labs/<lab>/jobs/ are real and run on their own (`fio labs/heatmaps/jobs/x.fio`,
with concrete values and a scratch path under /tmp). Parameters are applied here, by rewriting
options in named sections, never by fio's ${VAR} expansion (an undefined variable silently becomes
empty); a job file containing `${` is refused. Reading fio's output is perflab.fio.logs's job.
"""
from __future__ import annotations

from perflab.errors import DiskFull, Failed, Failure, Refused

import errno
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from perflab.fio.live import announce

_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*$")
_OPTION = re.compile(r"^\s*([A-Za-z0-9_]+)\s*(?:=\s*(.*?))?\s*$")


class JobFileError(Refused, ValueError):
    pass


@dataclass
class JobFile:
    """A fio job file as ordered sections of ordered options, keeping its header comment."""

    header: list[str] = field(default_factory=list)
    sections: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str, source: str = "<job>") -> "JobFile":
        jf = cls()
        cur = None
        for n, line in enumerate(text.splitlines(), 1):
            s = line.strip()
            if "${" in s and not (s and s[0] in ";#"):   # a comment may mention ${VAR}; an option may not
                raise JobFileError(f"{source}:{n}: uses ${{...}} expansion; perflab applies parameters "
                                   "itself (an undefined variable would silently become empty)")
            if not s or s[0] in ";#":
                if cur is None:
                    jf.header.append(line)
                continue
            m = _SECTION.match(s)
            if m:
                cur = m.group(1)
                if cur in jf.sections:
                    raise JobFileError(f"{source}:{n}: section [{cur}] appears twice")
                jf.sections[cur] = []
                continue
            m = _OPTION.match(s)
            if not m or cur is None:
                raise JobFileError(f"{source}:{n}: not an option or a [section]: {s!r}")
            jf.sections[cur].append((m.group(1), m.group(2)))
        return jf

    @classmethod
    def load(cls, path: Path) -> "JobFile":
        return cls.parse(Path(path).read_text(), str(path))

    def get(self, section: str, key: str, default=None):
        for k, v in self.sections.get(section, []):
            if k == key:
                return v
        return default

    def set(self, section: str, key: str, value) -> None:
        """Set an option (value True: a bare flag; False or None: remove it)."""
        if section not in self.sections:
            raise JobFileError(f"no section [{section}] (sections: {', '.join(self.sections)})")
        opts = [(k, v) for k, v in self.sections[section] if k != key]
        if value is True:
            opts.append((key, None))
        elif value not in (False, None):
            opts.append((key, str(value)))
        self.sections[section] = opts

    def apply(self, overrides: dict[str, dict]) -> "JobFile":
        for sec, kv in overrides.items():
            for k, v in kv.items():
                self.set(sec, k, v)
        return self

    def text(self) -> str:
        out = list(self.header)
        for sec, opts in self.sections.items():
            if out and out[-1].strip():
                out.append("")
            out.append(f"[{sec}]")
            out += [k if v is None else f"{k}={v}" for k, v in opts]
        return "\n".join(out) + "\n"

    def write(self, path: Path) -> Path:
        Path(path).write_text(self.text())
        return Path(path)

    def jobs(self) -> list[str]:
        return [s for s in self.sections if s != "global"]


# the container's own cpu.stat: cgroup v1 (Docker mounts the container's group at cpu/) or v2
CPU_STAT = "/sys/fs/cgroup/cpu/cpu.stat /sys/fs/cgroup/cpu.stat"


#: `fio --version` in a fresh container: start-up on a busy machine, not a measurement
VERSION_TIMEOUT_S = 120.0


def version(topo, image: str) -> str:
    """fio's version inside `image` ("fio-3.33"), for a run's provenance: the fio that did the I/O."""
    return topo.run(image, "fio-version", ["fio", "--version"], network_mode="none",
                    timeout=VERSION_TIMEOUT_S).strip()


_ERR = re.compile(r"\berr=\s*(\d+)")


def error_number(output: str) -> int | None:
    """The first non-zero error number fio reports for a job in its normal output: its own `err=N`
    field of the job's summary line (28: ENOSPC); None if every job reports 0 or none is found."""
    return next((int(n) for n in _ERR.findall(output or "") if int(n)), None)


def json_error_number(out_dir: Path, name: str) -> int | None:
    """The first non-zero `error` fio's JSON result NAME.json in `out_dir` gives a job (28: ENOSPC),
    or its last report NAME.status.json's in a watched run; None (no result, one fio did not finish,
    or every job's error is 0)."""
    for path in (Path(out_dir) / f"{name}.json", Path(out_dir) / f"{name}{STATUS_SUFFIX}"):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        docs = status_docs(text[text.find("{"):] if "{" in text else "")   # fio may write a line before it
        if docs:
            return next((int(j["error"]) for j in docs[-1].get("jobs", []) if isinstance(j, dict) and j.get("error")),
                        None)
    return None


def command(out_dir: Path, name: str, job: str, *extra_args: str, live: Path | None) -> list[str]:
    """fio's command line for the job file `job` (a path inside a container whose working directory
    /out is the host's `out_dir`) whose JSON result is to be NAME.json there. In a watched run
    (`live`: the run's live.jsonl, Topology.live_list) fio writes its report once a second instead,
    latency bins included (json+), to NAME.status.json, listed for the run's page; :func:`result`
    then makes NAME.json of its last. Every lab's fio starts from this line (perflab run --live)."""
    if not announce("fio-status", name, live=live, path=Path(out_dir).resolve() / f"{name}{STATUS_SUFFIX}"):
        return ["fio", "--output-format=json", f"--output={name}.json", *extra_args, job]
    return ["fio", "--output-format=json+", f"--status-interval={STATUS_INTERVAL_S}",
            f"--output={name}{STATUS_SUFFIX}", *extra_args, job]


def result(out_dir: Path, name: str, live: Path | None) -> Path:
    """After fio ran :func:`command`'s line with /out = `out_dir` (and the same `live`): the path of
    NAME.json, written from fio's last report when the run was watched (the result as an unwatched
    run writes it)."""
    out_dir = Path(out_dir)
    if live is not None:
        from perflab.fio.logs import FioLogError

        docs = status_docs((out_dir / f"{name}{STATUS_SUFFIX}").read_text())
        if not docs:
            raise FioLogError(f"{out_dir / (name + STATUS_SUFFIX)}: fio wrote no report")
        tmp = out_dir / f".{name}.json.tmp"
        tmp.write_text(json.dumps(docs[-1], indent=1))
        os.replace(tmp, out_dir / f"{name}.json")
    return out_dir / f"{name}.json"


def run_in_container(topo, image: str, job: Path, out_dir: Path, name: str, *, volumes=None,
                     timeout: float | None = None, extra_args=(), **kw) -> Path:
    """Run `fio job` in a container of `topo` with out_dir mounted as its working directory /out,
    so the JSON result (NAME.json) and every log land in out_dir. Returns the JSON's path.

    Under a CPU limit (`nano_cpus` or `cpu_quota`), the container's scheduler statistics are saved
    after fio as NAME.cpu.stat (cgroup v1 or v2 `cpu.stat`: periods, and periods the kernel held
    the container back), so that the sanity rule client-bound has the kernel's word beside fio's."""
    out_dir = Path(out_dir)
    rel = Path(job).resolve().relative_to(out_dir.resolve())
    vols = {str(out_dir.resolve()): {"bind": "/out", "mode": "rw"}, **(volumes or {})}
    live = getattr(topo, "live_list", None)   # the run's, from its options (a Topology)
    cmd = command(out_dir, name, str(rel), *extra_args, live=live)
    if kw.get("nano_cpus") or kw.get("cpu_quota"):
        cmd = ["sh", "-c", f'"$@"; rc=$?; cat {CPU_STAT} > {name}.cpu.stat 2>/dev/null; exit $rc', "fio", *cmd]
    try:
        output = topo.run(image, name, cmd, volumes=vols, working_dir="/out", timeout=timeout,
                          network_mode="none", **kw)
    except Failed as e:   # fio's own word on why (its JSON's error number), where there is one
        if not isinstance(e, Failure) and json_error_number(out_dir, name) == errno.ENOSPC:
            named = getattr(e, "disk_full", None)   # the container's, naming its fullest mount (infra)
            raise (named() if named else DiskFull(f"the files of fio job {name}")) from e
        raise
    (out_dir / f"{name}.stdout.txt").write_text(output)
    return result(out_dir, name, live)


STATUS_SUFFIX = ".status.json"   # fio's reports, one a second (--status-interval), then its last
STATUS_INTERVAL_S = 1


def status_docs(text: str) -> list[dict]:
    """fio's JSON reports as --status-interval writes them, one after another: the complete ones."""
    return read_status(text)[0]


def read_status(text: str) -> tuple[list[dict], int]:
    """The complete reports at the start of `text`, and how many characters they (and the blanks
    between them) take: a report fio is still writing is left for the next read."""
    dec, docs, i, end = json.JSONDecoder(), [], 0, 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs, end
        try:
            doc, i = dec.raw_decode(text, i)
        except json.JSONDecodeError:   # the report fio is writing now
            return docs, end
        docs.append(doc)
        end = i
