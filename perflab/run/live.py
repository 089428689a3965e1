"""`perflab run LAB --live`: the lab's latency heat map and throughput while the run goes, on a page at
127.0.0.1 (perflab.analysis.heatmap.live's page), each phase marked as it begins, and below it the
breakdowns: one map a fio job, one map an emulated disk.

Its data are what the run writes as it goes, listed in the run's live.jsonl (perflab.fio.live): fio's
reports, once a second, which a watched run asks fio for (perflab.fio.jobs: --status-interval with
json+, whose cumulative latency bins, differenced, are each second's histogram), the emulated disks'
per-I/O logs, which slowdisk flushes once a second (each disk's service times, put on the wall clock
by the mount's time 0), and the run's phases (progress.jsonl). The lab itself does nothing else for
it. The page is served from the process that runs the notebook, so it stops with the run,
interrupted or not, once the page has had LINGER_S to show the end and the link to the finished
notebook.
"""
from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import numpy as np

from perflab.analysis.heatmap.buckets import Buckets
from perflab.analysis.heatmap.ingest import MapBuilder
from perflab.analysis.heatmap.live import LINGER_S, Follower, LivePage, cells, map_json, rows_of
from perflab.analysis.heatmap.model import HeatMap, aligned, merge
from perflab.fio.jobs import read_status

__all__ = ["Counters", "DeviceLogs", "Events", "FioStatus", "LiveRun", "LIVE_LIST", "cumulative_bins", "job_bins"]

LIVE_LIST = "live.jsonl"   # the run's list of what the page reads (perflab.fio.jobs appends to it)
DDIRS = ("read", "write", "trim")


def job_bins(report: dict) -> dict[str, dict[int, int]]:
    """fio's completion-latency bins of one json+ report (latency in ns: I/Os since the job began), per
    job name (a job's clones, numjobs, together), summed over the data directions."""
    out: dict[str, dict[int, int]] = {}
    for job in report.get("jobs", []):
        mine = out.setdefault(str(job.get("jobname", "")), {})
        for ddir in DDIRS:
            for k, v in ((job.get(ddir) or {}).get("clat_ns") or {}).get("bins", {}).items():
                mine[int(k)] = mine.get(int(k), 0) + int(v)
    return out


def cumulative_bins(report: dict) -> dict[int, int]:
    """The same bins summed over the report's jobs."""
    out: dict[int, int] = {}
    for bins in job_bins(report).values():
        for k, v in bins.items():
            out[k] = out.get(k, 0) + v
    return out


def _read_from(path: Path, offset: int) -> bytes:
    """What a file being written holds past `offset` (nothing while it does not exist)."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read()
    except FileNotFoundError:
        return b""


class FioStatus:
    """One fio status file, read as it grows: each new report becomes (its time, epoch ms; per job, the
    latency bins' counts since the report before)."""

    def __init__(self, path: Path):
        self.path, self.offset, self.prev = Path(path), 0, {}

    def poll(self) -> list[tuple[int, dict[str, dict[int, int]]]]:
        text = _read_from(self.path, self.offset).decode(errors="replace")
        docs, end = read_status(text)
        if not docs:
            return []
        self.offset += len(text[:end].encode())
        out = []
        for doc in docs:
            cum = job_bins(doc)
            diff = {}
            for job, bins in cum.items():
                before = self.prev.get(job, {})
                d = {k: v - before.get(k, 0) for k, v in bins.items() if v > before.get(k, 0)}
                if d:
                    diff[job] = d
            self.prev = cum
            out.append((int(doc.get("timestamp_ms", time.time() * 1000)), diff))
        return out


class DeviceLogs:
    """One directory of slowdisk's device logs read as they are flushed: a map a disk (``<disk>.log``;
    its ``.wait.log`` is not drawn), on the wall clock from the directory's ``mount.epoch_ms``."""

    def __init__(self, path: Path, label: str):
        self.dir, self.label = Path(path), label
        self.disks: dict[str, Follower] = {}

    def poll(self) -> int:
        try:
            epoch = int((self.dir / "mount.epoch_ms").read_text().strip())
        except (OSError, ValueError):   # not mounted yet, or the line being written
            return 0
        n = 0
        for p in sorted(self.dir.glob("*.log")):
            if p.name.endswith(".wait.log"):
                continue
            if p.stem not in self.disks:
                self.disks[p.stem] = Follower(p, "fio", offset_ms=epoch)
            n += self.disks[p.stem].poll()
        return n

    def maps(self) -> dict[str, HeatMap]:
        """Each disk's map so far (the disks with I/O)."""
        out = {d: f.snapshot() for d, f in self.disks.items()}
        return {d: m for d, m in out.items() if m.n_columns}

    def close(self) -> None:
        for f in self.disks.values():
            f.close()


class _Lines:
    """A text file read as it grows, whole lines only (the line being written waits for the next poll)."""

    def __init__(self, path: Path, label: str, unit: str):
        self.path, self.label, self.unit = Path(path), label, unit
        self.offset, self.t_first = 0, None

    def _new_lines(self) -> list[str]:
        data = _read_from(self.path, self.offset)
        whole = data[:data.rfind(b"\n") + 1]
        self.offset += len(whole)
        return whole.decode(errors="replace").splitlines()

    def _seen(self, t: float) -> None:
        self.t_first = t if self.t_first is None else min(self.t_first, t)

    def first_s(self) -> float | None:
        """The first line's time (a second's value is drawn at its end, as fio stamps its reports)."""
        return self.t_first if self.series else None

    def data(self, t0_s: float) -> dict:
        """The panel: each key's values at their times (s from ``t0_s``), keys in name order."""
        return {"label": self.label, "unit": self.unit,
                "series": [{"name": name, "x": [round(t - t0_s, 3) for t, _ in pts], "y": [round(v, 3) for _, v in pts]}
                           for name, pts in sorted(self.series.items())]}


class Counters(_Lines):
    """One file of cumulative counters sampled once a second (perflab.fio.live's ``counters``), read as
    it grows: each key's rate of one value between its samples, times ``scale`` (a counter that went
    down, as when a server's statistics are switched off and on, starts again from its new value).
    A file of one key's samples (``<epoch s> <value> ...``) is read with that ``key`` given."""

    def __init__(self, path: Path, label: str, column: int = 0, scale: float = 1.0, unit: str = "per second",
                 names: dict | None = None, key: str | None = None):
        super().__init__(path, label, unit)
        self.column, self.scale, self.names, self.key = column, scale, names or {}, key
        self.last: dict[str, tuple[float, float]] = {}
        self.series: dict[str, list[tuple[float, float]]] = {}

    def poll(self) -> int:
        n = 0
        for line in self._new_lines():
            f = line.split()
            if self.key is not None:
                f.insert(1, self.key)
            try:
                t, key, v = float(f[0]), f[1], float(f[2 + self.column])
            except (IndexError, ValueError):
                continue
            before = self.last.get(key)
            self.last[key] = (t, v)
            self._seen(t)
            if before and t > before[0] and v >= before[1]:
                name = self.names.get(key, key)
                self.series.setdefault(name, []).append((t, (v - before[1]) / (t - before[0]) * self.scale))
                n += 1
        return n


class Events(_Lines):
    """One log of events, a line each beginning with its time (epoch s), read as it grows
    (perflab.fio.live's ``events``): the lines ``pattern`` matches, counted a second at a time by
    the pattern's ``key`` group (a server's requests by file name), the ``top`` keys with the most
    lines drawn (every second between the first and the last line, zero where a key had none)."""

    def __init__(self, path: Path, label: str, pattern: str, unit: str = "per second", top: int = 8):
        super().__init__(path, label, unit)
        self.pattern, self.top = re.compile(pattern), top
        self.counts: dict[str, dict[int, int]] = {}

    def poll(self) -> int:
        n = 0
        for line in self._new_lines():
            m = self.pattern.search(line)
            if not m:
                continue
            try:
                t = float(line.split(None, 1)[0])
            except (IndexError, ValueError):
                continue
            self._seen(t)
            sec = self.counts.setdefault(m["key"], {})
            sec[int(t)] = sec.get(int(t), 0) + 1
            n += 1
        return n

    @property
    def series(self) -> dict[str, list[tuple[float, float]]]:
        if not self.counts:
            return {}
        lo = min(min(c) for c in self.counts.values())
        hi = max(max(c) for c in self.counts.values())
        top = sorted(self.counts, key=lambda k: -sum(self.counts[k].values()))[:self.top]
        return {k: [(sec + 1, float(self.counts[k].get(sec, 0))) for sec in range(lo, hi + 1)] for k in top}


class LiveRun:
    """The page of one run, from `start()` until `finish()`: polls the run's sources twice a second."""

    def __init__(self, run_dir: Path, lab: str, port: int = 0):
        self.run_dir, self.lab = Path(run_dir), lab
        self.buckets = Buckets.loglinear()
        self.builder = MapBuilder(buckets=self.buckets)
        self.jobs: dict[str, MapBuilder] = {}   # the same, one map per fio job (the page's breakdown)
        self.sources: dict[str, FioStatus] = {}
        self.devices: dict[str, DeviceLogs] = {}   # by directory
        self.counters: dict[str, Counters] = {}    # by file
        self.events, self.samples, self.ended, self.listed = 0, 0, False, 0
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self.page = LivePage(self.data, f"perflab run {lab} (live)", port,
                             extra={"/notebook.ipynb": self._notebook})
        self.url = self.page.url
        self._thread = threading.Thread(target=self._loop, name="perflab-live-poll", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            self.poll()

    def poll(self) -> None:
        lst = self.run_dir / LIVE_LIST
        if lst.exists():
            lines = lst.read_text().splitlines()
            for line in lines[self.listed:]:
                src = json.loads(line)
                if src.get("kind") == "fio-status":
                    self.sources.setdefault(src["path"], FioStatus(Path(src["path"])))
                elif src.get("kind") == "device-logs" and src["dir"] not in self.devices:
                    self.devices[src["dir"]] = DeviceLogs(Path(src["dir"]), src.get("label", "disks"))
                elif src.get("kind") == "counters" and src["path"] not in self.counters:
                    self.counters[src["path"]] = Counters(
                        Path(src["path"]), src.get("label", "counters"), int(src.get("column", 0)),
                        float(src.get("scale", 1.0)), src.get("unit", "per second"), json.loads(src.get("names", "{}")),
                        src.get("key"))
                elif src.get("kind") == "events" and src["path"] not in self.counters:
                    self.counters[src["path"]] = Events(Path(src["path"]), src.get("label", "events"), src["pattern"],
                                                        src.get("unit", "per second"))
            self.listed = len(lines)
        with self.lock:
            for dev in self.devices.values():
                dev.poll()
            for c in self.counters.values():
                self.samples += c.poll()
            for src in self.sources.values():
                for t_ms, per_job in src.poll():
                    for job, diff in per_job.items():
                        rows = np.zeros(self.buckets.n + 1, np.int64)
                        np.add.at(rows, self.buckets.index(np.fromiter(diff, np.int64, len(diff))),
                                  np.fromiter(diff.values(), np.int64, len(diff)))
                        at = np.array([t_ms - 1], np.int64)
                        self.builder.add_rows(at, rows[None, :])
                        self.jobs.setdefault(job, MapBuilder(buckets=self.buckets)).add_rows(at, rows[None, :])
                        self.events += int(rows.sum())

    def phases(self) -> list[tuple[str, float]]:
        """(phase, its start on the wall clock, s) in the order the run began them (progress.jsonl)."""
        f = self.run_dir / "progress.jsonl"
        if not f.exists():
            return []
        out = []
        for line in f.read_text().splitlines():
            try:
                e = json.loads(line)
            except ValueError:   # the line being written
                continue
            if e.get("event") == "start":
                out.append((e["phase"], float(e["t"])))
        return out

    def data(self) -> dict:
        with self.lock:
            hm = self.builder.result(kind="fio-status", sources=list(self.sources))
            jobs = {j: b.result(kind="fio-status") for j, b in self.jobs.items()}
            disks = {f"disk {d} ({dev.label}: service time)": m for dev in self.devices.values()
                     for d, m in dev.maps().items()}
            events = self.events
        source = f"{self.lab}: fio's reports, once a second"
        if not hm.n_columns and disks:   # no fio report (yet): the disks' maps, summed
            hm, events = merge(disks.values()), sum(m.total for m in disks.values())
            source = f"{self.lab}: the emulated disks' service times (slowdisk's logs, flushed once a second)"
        by = {f"job {j}": m for j, m in jobs.items() if m.n_columns} if len(jobs) > 1 else {}
        by.update(disks)
        if by and hm.n_columns:   # every map on the whole map's columns and rows
            whole = aligned({"": hm, **by})
            hm = whole[""]
        spans = [rows_of(m) for m in ([hm] + ([whole[k] for k in by] if by and hm.n_columns else [])) if m.counts.any()]
        span = (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None
        d = map_json(hm, events, self.ended, source, span)
        if by and hm.n_columns:
            d["by"] = [{"label": k, **cells(whole[k], d["rows"])} for k in by]   # jobs as they began, then disks
        d["sources"] = len(self.sources) + len(self.devices) + len(self.counters)
        ph = self.phases()
        with self.lock:
            firsts = [f for f in (c.first_s() for c in self.counters.values()) if f is not None]
            # the time axis: the map's, or where there is no map (yet), the counters' first sample
            t0 = d["t0_ms"] / 1000 if hm.n_columns else (min(firsts) if firsts else None)
            panels: dict[str, dict] = {}   # the sources listed with one label share a panel
            for c in self.counters.values() if t0 is not None else []:
                p = c.data(t0)
                panels.setdefault(p["label"], {**p, "series": []})["series"] += p["series"]
            d["counters"] = list(panels.values())
            d["samples"] = self.samples
        if not hm.n_columns and firsts:
            d["source"] = f"{self.lab}: " + ", ".join(dict.fromkeys(c.label for c in self.counters.values()))
        # phases that began before the axis's 0: the last of them is marked at 0
        early = [(n, t) for n, t in ph if t0 is not None and t < t0][-1:]
        d["phases"] = ([{"name": n, "t_s": 0.0} for n, _ in early]
                       + [{"name": n, "t_s": round(t - t0, 3)} for n, t in ph if t0 is not None and t >= t0])
        d["phase"] = ph[-1][0] if ph else None
        if self.ended:
            d["notebook"] = str(self.run_dir / "notebook.ipynb")
            d["notebook_url"] = "/notebook.ipynb" if (self.run_dir / "notebook.ipynb").exists() else None
        return d

    def _notebook(self):
        f = self.run_dir / "notebook.ipynb"
        return (f.read_bytes(), "application/x-ipynb+json") if self.ended and f.exists() else None

    def finish(self, linger_s: float = LINGER_S) -> None:
        """The run has ended: read what is left, say so on the page, keep it up `linger_s`, stop."""
        self._stop.set()
        self._thread.join(timeout=5)
        self.poll()
        self.ended = True
        try:
            time.sleep(linger_s)
        finally:
            self.page.close()
            for dev in self.devices.values():
                dev.close()
