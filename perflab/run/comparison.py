"""`perflab compare RUN_A RUN_B`: two runs of one lab, their latency maps, and the noise yardstick.

A run is named by its directory (data/runs/<run id>, anything with a run.json), by a lab's name
(its reference, data/reference/<lab>), or by a map saved with `perflab heatmap --save` (.npz). Its
latency map is built from the fio latency logs under the run's `fio/` directory: per job, the
histogram log (`*_clat_hist.*`) if there is one, else the per-I/O completion-latency log
(`*_clat.*`), else the total-latency log (`*_lat.*`), so that no I/O is counted twice. Logs that
`fio --client` brought back carry their host's address (`NAME_clat_hist.1.log.172.21.0.3`); they
are keyed by the host's rank, not its address, so that a run on another network still compares.
A lab whose latencies are not fio's writes them as traces in the ``bpftrace`` form
(:mod:`perflab.analysis.heatmap.traces`: `time_ns latency_ns`), `latency/NAME.trace`: the elinks
lab's openat() calls timed by strace, for example.

Two runs must be of the same lab and have logs of the same jobs; noise runs (``--noise``, by default
the first run's lab's reference and its repeats) must too. The statistics are
:mod:`perflab.analysis.difference`'s. Refusals are :class:`perflab.errors.Refused` (exit 2), so
that the exit status of `perflab compare` means: 0 same within noise, 1 differs, 2 refused.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from perflab.analysis import difference
from perflab.analysis.heatmap import HeatMap, from_hist_log, from_lat_log, from_trace, merge
from perflab.config.manifest import Manifest
from perflab.errors import Refused
from perflab.fio.logs import FioLogError, averaged_log
from perflab.run.reference import repeat_dirs

__all__ = ["Run", "resolve", "latency_logs", "events", "build_map", "compare_runs", "against_reference"]

#: fio's latency logs: NAME_clat_hist.N.log, NAME_clat.N.log, NAME_lat.N.log (+ .gz, + a --client host)
LOG_NAME = re.compile(r"^(?P<job>.+?)_(?P<kind>clat_hist|clat|lat)\.(?P<n>\d+)\.log(?P<rest>.*)$")
PREFERENCE = ("clat_hist", "clat", "lat")
#: a lab's own latency traces (bpftrace form): run_dir/latency/NAME.trace
TRACE_DIR, TRACE_SUFFIX = "latency", ".trace"


@dataclass
class Run:
    name: str                 # as the user gave it
    path: Path
    lab: str | None           # None for a saved map
    metrics: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    preset: str | None = None
    logs: dict = field(default_factory=dict)    # {job key: Path}
    map: HeatMap | None = None


def latency_logs(run_dir: Path) -> dict[str, Path]:
    """{job key: log} for the fio latency logs under run_dir/fio, one kind per job (see above), and
    the lab's traces under run_dir/latency. A fio key is the log's path relative to fio/ without its
    kind and compression, e.g. "as-cabled/j1d1.3"; a --client host's log gets "@hostN" (N: the
    host's rank among that job's hosts); a trace's key is "latency/NAME"."""
    found: dict[str, dict[str, Path]] = {}
    hosts: dict[str, set[str]] = {}
    root = Path(run_dir) / "fio"
    for p in sorted(root.rglob("*.log*")) if root.is_dir() else []:
        m = LOG_NAME.match(p.name)
        if not m or not p.is_file() or (m["kind"] != "clat_hist" and averaged_log(p)):
            continue   # a log of fio's averages holds no I/O's latency
        host = m["rest"].removesuffix(".gz").removeprefix(".")
        job = str((p.parent.relative_to(root) / f"{m['job']}.{m['n']}").as_posix())
        found.setdefault((job, host), {})[m["kind"]] = p
        hosts.setdefault(job, set()).add(host)
    rank = {(job, h): i for job, hs in hosts.items() for i, h in enumerate(sorted(hs, key=_host_order), 1)}
    out = {(job if not host else f"{job}@host{rank[job, host]}"): next(v[kind] for kind in PREFERENCE if kind in v)
           for (job, host), v in found.items()}
    tdir = Path(run_dir) / TRACE_DIR
    for p in sorted(tdir.glob(f"*{TRACE_SUFFIX}*")) if tdir.is_dir() else []:
        if p.is_file():
            out[f"{TRACE_DIR}/{p.name.split(TRACE_SUFFIX)[0]}"] = p
    return dict(sorted(out.items()))


def events(logs: dict[str, Path]) -> tuple[str, str]:
    """What the events of these logs (latency_logs' answer) are, for prose: ("I/O", "I/Os") where
    fio logged I/Os, else the traced calls, e.g. ("openat() call", "openat() calls")."""
    traces = [k.split("/", 1)[1] for k in logs if k.startswith(TRACE_DIR + "/")]
    if len(traces) < len(logs) or not traces:
        return "I/O", "I/Os"
    name = "/".join(f"{t}()" for t in traces)
    return f"{name} call", f"{name} calls"




def _host_order(host: str):
    """IPv4 addresses in numeric order (172.21.0.10 after .9), names after them."""
    parts = host.split(".")
    return (0, tuple(int(x) for x in parts), "") if len(parts) == 4 and all(x.isdigit() for x in parts) \
        else (1, (), host)


def _read_run(name: str, path: Path) -> Run:
    try:
        doc = json.loads((path / "run.json").read_text())
    except (OSError, ValueError) as e:
        raise Refused(f"{name}: cannot read {path / 'run.json'}: {e}") from None
    return Run(name, path, doc.get("lab"), doc.get("metrics") or {}, doc.get("params") or {}, doc.get("preset"),
               latency_logs(path))


def resolve(m: Manifest | None, arg: str) -> Run:
    """A run directory, a lab's name (its reference) or a saved map; refuses anything else."""
    p = Path(arg)
    if arg.endswith(".npz"):
        if not p.is_file():
            raise Refused(f"{arg}: no such saved map")
        try:
            return Run(arg, p, None, map=HeatMap.load(p))
        except FioLogError as e:
            raise Refused(str(e)) from None
    if p.is_dir():
        if not (p / "run.json").is_file():
            raise Refused(f"{arg}: a directory without run.json, not a perflab run")
        return _read_run(arg, p)
    if m is None:   # no repository (an installed perflab): no lab references to name
        raise Refused(f"{arg}: not a run directory (with run.json) or a map saved with perflab heatmap --save "
                      f"(.npz); a lab's name (its reference) needs the perflab repository")
    if arg in m.labs:
        ref = m.root / "data" / "reference" / arg
        if not (ref / "run.json").is_file():
            raise Refused(f"{arg}: the lab has no recorded reference run (data/reference/{arg})")
        return _read_run(f"{arg} reference", ref)
    raise Refused(f"{arg}: not a run directory (with run.json), a lab name (its reference: "
                  f"{', '.join(sorted(m.labs))}) or a map saved with perflab heatmap --save (.npz)")


def build_map(run: Run, col_s: float) -> HeatMap:
    if run.map is not None:
        return run.map
    if not run.logs:
        raise Refused(f"{run.name}: no fio latency log under {run.path / 'fio'} (*_clat_hist.*, *_clat.*, "
                      f"*_lat.*) and no trace under {run.path / TRACE_DIR}: lab {run.lab} keeps none, so there is "
                      f"no distribution to compare")
    traces = [p for k, p in run.logs.items() if k.startswith(f"{TRACE_DIR}/")]
    hist = [p for p in run.logs.values() if "_clat_hist." in p.name and p not in traces]
    per_io = [p for p in run.logs.values() if p not in hist and p not in traces]
    try:
        maps = ([from_hist_log(hist, col_s=col_s)] if hist else []) + \
               ([from_lat_log(per_io, col_s=col_s)] if per_io else []) + \
               ([from_trace(traces, "bpftrace", col_s=col_s)] if traces else [])
    except (FioLogError, OSError, ValueError) as e:
        raise Refused(f"{run.name}: {e}") from None
    return merge(maps)


def _same_setup(first: Run, other: Run, role: str) -> None:
    if first.lab is None or other.lab is None:
        return
    if first.lab != other.lab:
        raise Refused(f"{other.name} is a run of {other.lab}, {first.name} of {first.lab}: compare runs of one lab")
    if set(first.logs) != set(other.logs):
        only_a, only_b = sorted(set(first.logs) - set(other.logs)), sorted(set(other.logs) - set(first.logs))
        raise Refused(f"{role} {other.name} logged other jobs than {first.name} (only in {first.name}: "
                      f"{', '.join(only_a) or 'none'}; only in {other.name}: {', '.join(only_b) or 'none'})")


def _noise_runs(m: Manifest | None, a: Run, noise: list[str] | None, required: bool = True) -> list[Run]:
    if noise:
        runs = [resolve(m, x) for x in noise]
    else:
        if a.lab is None:
            raise Refused("saved maps carry no lab: name the runs that measure the noise with --noise")
        if m is None:
            raise Refused(f"{a.name}: with no perflab repository there is no reference to measure the noise "
                          f"from: name two or more runs of the same setup with --noise")
        ref = m.root / "data" / "reference" / a.lab
        dirs = [ref] + repeat_dirs(ref) if (ref / "run.json").is_file() else []
        if len(dirs) < 2 and not required:
            return []
        if len(dirs) < 2:
            raise Refused(f"lab {a.lab} has no recorded repeats to measure run-to-run noise from: name two or "
                          f"more runs of the same setup with --noise, or record repeats (reference_runs in "
                          f"book.toml, then scripts/perflab references --repeats {a.lab})")
        runs = [_read_run(f"{a.lab} reference" if d == ref else f"{a.lab} repeat {d.name}", d) for d in dirs]
    if len(runs) < 2:
        raise Refused(f"--noise needs at least two runs of the same setup, not {len(runs)}")
    return runs


def compare_runs(m: Manifest | None, a_arg: str, b_arg: str, noise: list[str] | None = None,
                 col_s: float = 1.0, require_noise: bool = True,
                 names: tuple[str, str] | None = None) -> difference.Difference:
    """Resolve, check and compare; every refusal names the run and what was wrong. Without
    ``require_noise``, a lab with no recorded repeats gives the distances without a verdict."""
    a, b = resolve(m, a_arg), resolve(m, b_arg)
    if names:
        a.name, b.name = names
    _same_setup(a, b, "B")
    noise_runs = _noise_runs(m, a, noise, require_noise)
    for r in noise_runs:
        _same_setup(a, r, "noise run")
    maps = {id(r): build_map(r, col_s) for r in (a, b, *noise_runs)}
    params = {k: (a.params.get(k), b.params.get(k)) for k in sorted(set(a.params) | set(b.params))
              if a.params.get(k) != b.params.get(k)}
    notes = []
    presets = {r.preset for r in noise_runs} - {None}
    if presets and {a.preset, b.preset} - {None} - presets:
        notes.append(f"note: the noise comes from {'/'.join(sorted(presets))} runs; A is {a.preset}, B is "
                     f"{b.preset} (a shorter run has more sampling noise than its yardstick shows)")
    try:
        return difference.compare(maps[id(a)], maps[id(b)], [maps[id(r)] for r in noise_runs],
                                  names=(a.name, b.name), metrics_a=a.metrics, metrics_b=b.metrics,
                                  noise_metrics=[r.metrics for r in noise_runs], params=params, notes=notes,
                                  events=events(a.logs))
    except ValueError as e:   # SchemeMismatch, a map without I/Os
        raise Refused(str(e)) from None


def against_reference(m: Manifest, run_dir: Path, lab: str, col_s: float = 1.0) -> difference.Difference:
    """A run of ``lab`` (B, "your run") against the lab's reference (A), the noise measured by the
    reference and its recorded repeats (none recorded: the distances without a verdict). What a
    chapter run live shows under its comparison panel; refusals as in :func:`compare_runs`."""
    return compare_runs(m, lab, str(run_dir), col_s=col_s, require_noise=False,
                        names=("the reference", "your run"))
