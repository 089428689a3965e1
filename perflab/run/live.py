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

A source that cannot be read (a damaged line, a file that shrank, a reader's bug) costs only itself:
the poller goes on with the others and the next tick; the page shows "could not read <source>:
<error>" until that source reads well again, and the run's ``live.log`` says so once when it
begins, changes or ends (the poller itself failing as a whole is caught, shown and logged alike).
"""
from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np

from perflab.analysis.heatmap.buckets import Buckets
from perflab.analysis.heatmap.ingest import MapBuilder
from perflab.analysis.heatmap.live import LINGER_S, Follower, LivePage, cells, map_json, rows_of
from perflab.analysis.heatmap.model import HeatMap, aligned, merge
from perflab.fio.jobs import read_status

__all__ = ["Counters", "DeviceLogs", "Events", "FioStatus", "LiveRun", "LIVE_LIST", "cumulative_bins", "job_bins"]

LIVE_LIST = "live.jsonl"   # the run's list of what the page reads (perflab.fio.jobs appends to it)
LIVE_LOG = "live.log"     # what went wrong in the page's poller, a line when it begins, changes or ends
TICK = "the run's sources"   # the key of an error of a whole tick (not one source's)
#: the panel of fio's jobs that measure no latency (no heat map to draw: their I/Os per second instead)
UNTIMED = "fio's reports, once a second: I/Os per second (these jobs measure no latency)"
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


def total_ios(report: dict) -> int:
    """The I/Os a json+ report counts since its jobs began, every job and data direction."""
    return sum(int((job.get(ddir) or {}).get("total_ios", 0)) for job in report.get("jobs", []) for ddir in DDIRS)


class FioStatus:
    """One fio status file, read as it grows: each new report becomes (its time, epoch ms; per job, the
    latency bins' counts since the report before). A job that measures no latency (ht's: disable_clat,
    its chapter counts work per CPU-second) has no bins: its reports still give I/Os per second
    (`rates`: (epoch s, I/Os a second since the report before))."""

    def __init__(self, path: Path):
        self.path, self.offset, self.prev = Path(path), 0, {}
        self.rates: list[tuple[float, float]] = []
        self.binned = False
        self._last: tuple[float, int] | None = None   # the report before: its time (s), its I/Os

    def poll(self) -> list[tuple[int, dict[str, dict[int, int]]]]:
        text = _read_from(self.path, self.offset).decode(errors="replace")
        docs, end = read_status(text)
        if not docs:
            return []
        self.offset += len(text[:end].encode())
        out = []
        for doc in docs:
            t_s, ios = int(doc.get("timestamp_ms", time.time() * 1000)) / 1000, total_ios(doc)
            if self._last is not None and t_s > self._last[0] and ios >= self._last[1]:
                self.rates.append((t_s, (ios - self._last[1]) / (t_s - self._last[0])))
            self._last = (t_s, ios)
            cum = job_bins(doc)
            self.binned = self.binned or any(cum.values())
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

    def followers(self) -> dict[str, Follower]:
        """Each disk's reader, by disk (none before the mount has written its time 0)."""
        try:
            epoch = int((self.dir / "mount.epoch_ms").read_text().strip())
        except (OSError, ValueError):   # not mounted yet, or the line being written
            return {}
        for p in sorted(self.dir.glob("*.log")):
            if not p.name.endswith(".wait.log") and p.stem not in self.disks:
                self.disks[p.stem] = Follower(p, "fio", offset_ms=epoch)
        return self.disks

    def poll(self) -> int:
        return sum(f.poll() for f in self.followers().values())

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
    """The page of one run, from its making until `finish()`: polls the run's sources twice a second
    (`interval_s`); what it could not read is in `errors` (source -> the line the page shows)."""

    def __init__(self, run_dir: Path, lab: str, port: int = 0, interval_s: float = 0.5):
        self.run_dir, self.lab, self.interval_s = Path(run_dir), lab, interval_s
        self.buckets = Buckets.loglinear()
        self.builder = MapBuilder(buckets=self.buckets)
        self.jobs: dict[str, MapBuilder] = {}   # the same, one map per fio job (the page's breakdown)
        self.sources: dict[str, FioStatus] = {}
        self.devices: dict[str, DeviceLogs] = {}   # by directory
        self.counters: dict[str, Counters] = {}    # by file
        self.events, self.samples, self.ended, self.listed, self.list_offset = 0, 0, False, 0, 0
        self.errors: dict[str, str] = {}
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._finished = False
        self.page = LivePage(self.data, f"perflab run {lab} (live)", port,
                             extra={"/notebook.ipynb": self._notebook})
        self.url = self.page.url
        self._thread = threading.Thread(target=self._loop, name="perflab-live-poll", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._tick()

    def _tick(self) -> None:
        """One poll, whatever it raises caught, shown and logged: the poller tries again next tick."""
        try:
            self.poll()
        except Exception as e:  # noqa: BLE001 - the page says it and goes on
            self._note(TICK, e)
        else:
            self._note(TICK, None)

    def _say(self, text: str) -> None:
        """A line in the run's live.log (a log that cannot be written is not worth stopping the page)."""
        try:
            with open(self.run_dir / LIVE_LOG, "a") as f:
                f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {text}\n")
        except OSError:
            pass

    def _note(self, key: str, error: BaseException | None) -> None:
        """`key`'s error now (None: it read well): kept for the page, logged when it begins, changes or ends."""
        with self.lock:
            was = self.errors.get(key)
            if error is None:
                if was is not None:
                    del self.errors[key]
                    self._say(f"{key}: reads well again")
                return
            what = f"could not read {key}: {type(error).__name__}: {error}"[:500]
            if what != was:
                self.errors[key] = what
                self._say(what)

    def _name(self, path: str | Path) -> str:
        """A source as the page names it: its path in the run directory, else as listed."""
        try:
            return str(Path(path).relative_to(self.run_dir))
        except ValueError:
            return str(path)

    def _read(self, path: str, poll: Callable[[], int]) -> int:
        """`poll()` of one source, its error caught; the error is cleared once it reads something."""
        try:
            n = poll()
        except Exception as e:  # noqa: BLE001 - one source's failure is that source's only
            self._note(self._name(path), e)
            return 0
        if n:
            self._note(self._name(path), None)
        return n

    def _list(self) -> None:
        """The sources the run listed since the last look (whole lines; a bad line is shown, and skipped)."""
        data = _read_from(self.run_dir / LIVE_LIST, self.list_offset)
        whole = data[:data.rfind(b"\n") + 1]
        self.list_offset += len(whole)
        for line in whole.decode(errors="replace").splitlines():
            self.listed += 1
            try:
                if line.strip():
                    self._add(json.loads(line))
            except Exception as e:  # noqa: BLE001 - that line's source only (it stays on the page)
                self._note(f"{LIVE_LIST} line {self.listed}", e)

    def _add(self, src: dict) -> None:
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

    def _reports(self, reports: list[tuple[int, dict[str, dict[int, int]]]]) -> int:
        """fio's reports counted into the map and each job's; how many there were."""
        for t_ms, per_job in reports:
            for job, diff in per_job.items():
                rows = np.zeros(self.buckets.n + 1, np.int64)
                np.add.at(rows, self.buckets.index(np.fromiter(diff, np.int64, len(diff))),
                          np.fromiter(diff.values(), np.int64, len(diff)))
                at = np.array([t_ms - 1], np.int64)
                self.builder.add_rows(at, rows[None, :])
                self.jobs.setdefault(job, MapBuilder(buckets=self.buckets)).add_rows(at, rows[None, :])
                self.events += int(rows.sum())
        return len(reports)

    def poll(self) -> None:
        """Read what each source gained; a source that fails is noted (`errors`), the others go on."""
        with self.lock:
            self._list()
            for d, dev in self.devices.items():   # a disk at a time: a damaged log stops only its own map
                try:
                    disks = dev.followers()
                except Exception as e:  # noqa: BLE001 - that directory's only
                    self._note(self._name(d), e)
                    continue
                self._note(self._name(d), None)
                for f in disks.values():
                    self._read(str(f.path), f.poll)
            for f, c in self.counters.items():
                self.samples += self._read(f, c.poll)
            for f, src in self.sources.items():
                self._read(f, lambda src=src: self._reports(src.poll()))

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
        """What /map.json answers: the maps, the counters, the phases, and `errors` (the lines the page
        shows of what could not be read); its own failure is noted as well, then raised (an error 500)."""
        try:
            d = self._data()
        except Exception as e:  # noqa: BLE001 - said on the page (LivePage answers it) and in the log
            self._note("the page's data", e)
            raise
        self._note("the page's data", None)
        with self.lock:
            d["errors"] = list(self.errors.values())
        return d

    def _data(self) -> dict:
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
            # fio's jobs that measure no latency: their I/Os per second, every such job one after another
            rates = sorted(r for src in self.sources.values() if not src.binned for r in src.rates)
            if t0 is None and rates:
                t0 = min(firsts + [rates[0][0]])
            panels: dict[str, dict] = {}   # the sources listed with one label share a panel
            for c in self.counters.values() if t0 is not None else []:
                p = c.data(t0)
                panels.setdefault(p["label"], {**p, "series": []})["series"] += p["series"]
            if rates:
                panels[UNTIMED] = {"label": UNTIMED, "unit": "I/Os per second", "series": [
                    {"name": "fio", "x": [round(t - t0, 3) for t, _ in rates], "y": [round(v, 3) for _, v in rates]}]}
            d["counters"] = list(panels.values())
            d["samples"] = self.samples
        if not hm.n_columns and (firsts or rates):
            d["source"] = f"{self.lab}: " + ", ".join(dict.fromkeys(
                [c.label for c in self.counters.values()] + ([UNTIMED] if rates else [])))
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
        """The run has ended: read what is left, say so on the page, keep it up `linger_s` (Ctrl-C ends
        that early), stop. Raises nothing (what fails is logged in live.log); a second call does nothing."""
        if self._finished:
            return
        self._finished = True
        self._stop.set()
        self._thread.join(timeout=5)
        if self._thread.is_alive():   # a poll stuck on a source: the page keeps what it has
            self._say("the poller did not stop within 5 s: the page shows what it had read")
        else:
            self._tick()
        self.ended = True
        try:
            time.sleep(linger_s)
        except KeyboardInterrupt:
            pass
        closes = [("the page", self.page.close)] + [(self._name(d), v.close) for d, v in self.devices.items()]
        for what, close in closes:
            try:
                close()
            except Exception as e:  # noqa: BLE001 - the run's end goes on
                self._say(f"could not close {what}: {type(e).__name__}: {e}")
