"""Sanity rules: benchmarking traps, flagged in any lab run from fio's JSON reports.

The chapter "Benchmarking without fooling yourself" (chapters/benchmarking.md) plants each trap and
shows the rule firing on it and staying quiet on the run done right. Everywhere else the findings
are warnings for the reader: `Session.finish()` runs `review_session`, records the findings in
run.json under "sanity" and shows them under the check table. They never fail a run.

Each rule looks at one job (one data direction) of one fio report and, when it fires, says what it
saw (numbers) and why that matters:

    disk-read-from-cache  a job declared to read from the disk was answered by memory: latency below
                          any disk, a rate above the device's limit, or a buffered working set that
                          fits in memory
    cache-read-from-disk  a job declared to read from a cache waited like a disk
    client-bound          fio used (nearly) all the CPU it had, or the kernel held its container back
                          in most scheduler periods (NAME.cpu.stat beside the report, written by
                          perflab.fio.jobs under a CPU limit): the client, not the target, set the pace
    too-short             a measured interval under MIN_RUNTIME_S seconds or MIN_IOS I/Os
    peak-vs-average       the busiest second (or fio sample) was PEAK_RATIO x the run's average rate
    no-latency            IOPS without latency: fio recorded no completion latency
    tiny-io               I/Os smaller than TINY_BS bytes: an upper bound, not a workload

Intent is declared, never guessed. A lab module may define `INTENT = {job: "disk" | "cache" |
"setup" | ...}` and `sanity_context(params) -> {job or "*": {"cpus", "memory_bytes", "device_iops",
"device_bps", "intent"}}`; a job file may carry a header line `; perflab-intent: job=disk job2=cache`.
Jobs without intent get the generic rules only; jobs with intent "setup" get none; jobs with intent
"cpu" measure the CPU's own path on purpose (the HT chapter's cached reads), so client-bound and
no-latency do not apply to them. A job whose rate changes on purpose (a log device added mid-run, a
cable replaced, readers added step by step, a cache warming) is declared with `"phased": "why"`
in its context: peak-vs-average then says nothing about it, since its chapter measures each phase
on its own. The timing rules
(too-short, peak-vs-average) apply to measurements: jobs with a declared intent, or with a runtime.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from perflab.fio import logs as fiolog

DISK_FLOOR_NS = 20_000      # no disk, even a fast SSD, answers a random read in under 20 us
CACHE_CEILING_NS = 1_000_000  # a cache hit that takes over 1 ms was not a cache hit
CPU_BOUND = 0.8             # share of the CPU fio could have used
THROTTLED = 0.5             # share of scheduler periods in which the kernel held fio's container back
MIN_RUNTIME_S = 5.0
MIN_IOS = 100
PEAK_RATIO = 1.5
TINY_BS = 512
OVER_LIMIT = 1.1            # a rate this far above a declared device limit did not come from the device

INTENT_LINE = re.compile(r"^\s*[;#]\s*perflab-intent:\s*(.*)$")
RULES = ("disk-read-from-cache", "cache-read-from-disk", "client-bound", "too-short",
         "peak-vs-average", "no-latency", "tiny-io")


@dataclass
class Finding:
    rule: str
    source: str      # the fio report, relative to the run directory
    job: str
    ddir: str
    saw: dict        # the numbers the rule looked at
    message: str     # what it saw, in words
    why: str         # why it matters

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class JobContext:
    intent: str | None = None
    cpus: float | None = None          # CPUs fio could use (docker --cpus); default: the machine's
    memory_bytes: int | None = None    # memory the page cache can use; default: the machine's
    device_iops: float | None = None   # the device's limit, when the lab knows it
    device_bps: float | None = None
    phased: str | None = None          # the job's rate changes on purpose (the lab says why): no peak rule
    extra: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- reading

def _ms(text) -> float:
    """A fio time option in milliseconds (a bare number is ms for bw_avg_time)."""
    t = str(text).strip().lower()
    for suffix, f in (("ms", 1.0), ("us", 1e-3), ("s", 1000.0)):
        if t.endswith(suffix):
            return float(t[: -len(suffix)]) * f
    return float(t)


def _size(text) -> int | None:
    """A fio size option ("4k", "8192", "1m", "4k-8k", "4k,8k") in bytes (the first value); fio's
    k/m/g are powers of 1024."""
    if text is None:
        return None
    t = str(text).split(",")[0].split("-")[0].split(":")[0].strip().lower()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?", t)
    if not m:
        return None
    return int(float(m.group(1)) * 1024 ** "bkmgt".index(m.group(2) or "b"))


def job_stats(result: dict) -> list[dict]:
    """One dict per (job, data direction) that did I/O, with what the rules need."""
    glob_opts = result.get("global options", {}) or {}
    rows = []
    for job in result.get("jobs") or result.get("client_stats") or []:
        opts = {**glob_opts, **(job.get("job options") or {})}
        for ddir in ("read", "write", "trim"):
            d = job.get(ddir)
            if not isinstance(d, dict) or not d.get("total_ios"):
                continue
            clat = d.get("clat_ns") or {}
            lat = d.get("lat_ns") or {}
            pct = clat.get("percentile") or lat.get("percentile") or {}
            runtime_ms = float(d.get("runtime") or 0)
            rows.append({
                "job": job.get("jobname", ""), "ddir": ddir, "options": opts,
                "runtime_s": runtime_ms / 1000, "total_ios": int(d["total_ios"]),
                "iops": float(d.get("iops", 0)), "bw_bytes": float(d.get("bw_bytes", 0)),
                "io_bytes": int(d.get("io_bytes", 0)),
                "bw_max_bytes": float(d.get("bw_max", 0)) * 1024,   # fio's bw samples are KiB/s
                "bw_samples": int(d.get("bw_samples", 0)),
                "lat_n": int(clat.get("N", 0) or 0) + int(lat.get("N", 0) or 0),
                "p50_ns": float(pct["50.000000"]) if "50.000000" in pct else math.nan,
                "cpu_pct": float(job.get("usr_cpu", 0)) + float(job.get("sys_cpu", 0)),
                "bs": _size(opts.get("bs") or opts.get("blocksize")) or 4096,
                "size": _size(opts.get("size")),
                "direct": str(opts.get("direct", "0")) in ("1", "true"),
                "timed": "runtime" in opts,
            })
    return rows


def throttled_share(path: Path) -> float | None:
    """From a cgroup `cpu.stat` (v1 or v2: `nr_periods N`, `nr_throttled N` lines): the share of the
    container's scheduler periods in which it hit its CPU quota. None without the file or periods."""
    try:
        lines = Path(path).read_text().split("\n")
    except OSError:
        return None
    d = dict(ln.split()[:2] for ln in lines if len(ln.split()) == 2 and ln.split()[1].isdigit())
    periods = int(d.get("nr_periods", 0))
    return int(d.get("nr_throttled", 0)) / periods if periods else None


def intents_from_jobfile(path: Path) -> dict[str, str]:
    """`; perflab-intent: a=disk b=cache` header lines of a fio job file."""
    out = {}
    if not Path(path).exists():
        return out
    for line in Path(path).read_text(errors="replace").splitlines():
        m = INTENT_LINE.match(line)
        if m:
            for pair in m.group(1).replace(",", " ").split():
                if "=" in pair:
                    k, v = pair.split("=", 1)
                    out[k.strip()] = v.strip()
    return out


def per_second_bw(log_dir: Path, stats: dict) -> list[float] | None:
    """Bytes/s per logged interval: from the job's bw log (write_bw_log=NAME, log_avg_msec>0), else
    per whole second from its per-I/O latency log (write_lat_log=NAME, log_avg_msec=0: every I/O's
    completion time and size). None when the job kept neither."""
    opts = stats["options"]
    avg = str(opts.get("log_avg_msec", "0"))
    code = {"read": 0, "write": 1, "trim": 2}[stats["ddir"]]
    name = opts.get("write_bw_log")
    if name and avg != "0":
        paths = sorted(Path(log_dir).glob(f"{name}_bw.*.log*"))
        vals = []
        for p in paths:
            df = fiolog.read_lat_log(p)  # same layout as a latency log: time, value (KiB/s), ddir, bs
            vals += [float(v) * 1024 for v in df.loc[df["ddir"] == code, "lat_ns"]]
        return vals or None
    name = opts.get("write_lat_log")
    if name and avg == "0":
        paths = sorted(Path(log_dir).glob(f"{name}_clat.*.log*")) or sorted(Path(log_dir).glob(f"{name}_lat.*.log*"))
        if not paths:
            return None
        df = fiolog.read_lat_log(paths[0])
        df = df[df["ddir"] == code]
        if len(df) == 0:
            return None
        sec = (df["time_ms"] - df["time_ms"].min()) // 1000
        per = df.groupby(sec)["bs"].sum()
        per = per.iloc[1:-1] if len(per) > 2 else per   # the first and last seconds are partial
        return [float(v) for v in per] or None
    return None


# --------------------------------------------------------------------------- rules

def _f(rule, src, st, saw, message, why) -> Finding:
    return Finding(rule, src, st["job"], st["ddir"], saw, message, why)


def check_job(st: dict, ctx: JobContext, src: str, log_dir: Path | None = None) -> list[Finding]:
    """Every rule on one job; the findings that fire."""
    if ctx.intent == "setup":
        return []
    found = [rule(st, ctx, src, log_dir) for rule in RULES]
    return [f for f in found if f is not None]


def _disk_read_from_cache(st, ctx, src, log_dir) -> Finding | None:
    if not (ctx.intent == "disk" and st["ddir"] == "read"):
        return None
    p50 = st["p50_ns"]
    saw, why = {}, []
    if p50 == p50 and p50 < DISK_FLOOR_NS:
        saw["p50_us"] = round(p50 / 1000, 2)
        why.append(f"median latency {p50 / 1000:.1f} µs, below any disk ({DISK_FLOOR_NS // 1000} µs)")
    if ctx.device_iops and st["iops"] > OVER_LIMIT * ctx.device_iops:
        saw.update(iops=round(st["iops"]), device_iops=ctx.device_iops)
        why.append(f"{st['iops']:,.0f} IOPS, {st['iops'] / ctx.device_iops:.0f}x the device's limit "
                   f"of {ctx.device_iops:,.0f}")
    if ctx.device_bps and st["bw_bytes"] > OVER_LIMIT * ctx.device_bps:
        saw.update(bw_MBps=round(st["bw_bytes"] / 1e6, 1), device_MBps=round(ctx.device_bps / 1e6, 1))
        why.append(f"{st['bw_bytes'] / 1e6:,.1f} MB/s, above the device's {ctx.device_bps / 1e6:,.1f} MB/s")
    mem = ctx.memory_bytes
    if not st["direct"] and st["size"] and mem and st["size"] <= mem:
        saw.update(working_set_MiB=round(st["size"] / 2**20), memory_MiB=round(mem / 2**20))
        why.append(f"buffered reads of a {st['size'] / 2**20:,.0f} MiB working set that fits in "
                   f"{mem / 2**20:,.0f} MiB of memory")
    if not why:
        return None
    return _f("disk-read-from-cache", src, st, saw, "; ".join(why),
              "the job was declared to measure the disk, but memory answered (some of) its "
              "reads: the result describes the cache, not the disk. Use O_DIRECT or a working "
              "set well beyond the memory in front of the disk.")


def _cache_read_from_disk(st, ctx, src, log_dir) -> Finding | None:
    p50 = st["p50_ns"]
    if not (ctx.intent == "cache" and st["ddir"] == "read" and p50 == p50 and p50 > CACHE_CEILING_NS):
        return None
    return _f("cache-read-from-disk", src, st, {"p50_us": round(p50 / 1000, 1)},
              f"median latency {p50 / 1000:,.0f} µs, above {CACHE_CEILING_NS // 1000} µs",
              "the job was declared to read from a cache, but it waited like a disk: the cache "
              "was cold, too small, or bypassed.")


def _client_bound(st, ctx, src, log_dir) -> Finding | None:
    cpus = ctx.cpus or os.cpu_count() or 1
    share = min(1.0, cpus)  # one fio job is one thread: at most one CPU
    frac = st["cpu_pct"] / 100 / share
    held = st.get("throttled_share")
    if ctx.intent == "cpu" or (frac < CPU_BOUND and (held is None or held < THROTTLED)):
        return None
    saw = {"cpu_pct": round(st["cpu_pct"], 1), "cpus": cpus, "share_used": round(frac, 2)}
    extra = ""
    if held is not None:
        saw["throttled_share"] = round(held, 2)
        extra = f"; the kernel held its container at the CPU limit in {100 * held:.0f}% of scheduler periods"
    if ctx.device_iops and st["iops"] <= OVER_LIMIT * ctx.device_iops:  # else memory served it
        saw["device_busy"] = round(st["iops"] / ctx.device_iops, 2)
        extra += f"; the device ran at {100 * st['iops'] / ctx.device_iops:.0f}% of its limit"
    return _f("client-bound", src, st, saw,
              f"fio used {st['cpu_pct']:.1f}% of a CPU, {100 * frac:.0f}% of the "
              f"{share:g} CPU it could use{extra}",
              "the load generator ran out of CPU: the result measures the client as much as the "
              "target. Add clients or threads (or CPU) and see whether the rate still rises.")


def _measured(st, ctx) -> bool:
    """A job whose numbers are results (declared, or timed): the rules about rates apply to it."""
    return ctx.intent is not None or st["timed"]


def _too_short(st, ctx, src, log_dir) -> Finding | None:
    if not (_measured(st, ctx) and (st["runtime_s"] < 0.98 * MIN_RUNTIME_S or st["total_ios"] < MIN_IOS)):
        return None
    return _f("too-short", src, st, {"runtime_s": round(st["runtime_s"], 2), "ios": st["total_ios"]},
              f"{st['runtime_s']:.1f} s and {st['total_ios']:,} I/Os (minimum {MIN_RUNTIME_S:g} s "
              f"and {MIN_IOS} I/Os)",
              "a tiny interval can show a rate that cannot be sustained (a burst, a warm cache, a "
              "throttle's first slice); measure for long enough to see it repeat.")


def _peak_vs_average(st, ctx, src, log_dir) -> Finding | None:
    if not (_measured(st, ctx) and st["bw_bytes"] > 0 and not ctx.phased):
        return None
    per_s = per_second_bw(log_dir, st) if log_dir is not None else None
    # Without a log of whole seconds, fio's largest bandwidth sample stands in, but only when its
    # samples are a second or longer (bw_avg_time; fio's default is 500 ms): shorter samples swing
    # with a throttle's slices or a CPU quota's periods while every second carries the same bytes.
    sample_ms = _ms(st["options"].get("bw_avg_time", "500"))
    peak = max(per_s) if per_s else (st["bw_max_bytes"] if sample_ms >= 1000 else None)
    basis = "busiest logged interval" if per_s else f"largest fio bandwidth sample ({sample_ms:g} ms)"
    ratio = peak / st["bw_bytes"] if peak is not None else 0.0
    if ratio < PEAK_RATIO:
        return None
    return _f("peak-vs-average", src, st,
              {"peak_MBps": round(peak / 1e6, 2), "average_MBps": round(st["bw_bytes"] / 1e6, 2),
               "ratio": round(ratio, 2)},
              f"{basis} {peak / 1e6:,.1f} MB/s vs {st['bw_bytes'] / 1e6:,.1f} MB/s on average "
              f"({ratio:.1f}x)",
              "the rate changed during the run: quote the average over the interval (or over "
              "one steady phase, named), not the peak.")


def _no_latency(st, ctx, src, log_dir) -> Finding | None:
    if st["lat_n"] != 0 or ctx.intent == "cpu":
        return None
    return _f("no-latency", src, st, {"iops": round(st["iops"]), "latency_samples": 0},
              f"{st['iops']:,.0f} IOPS and no latency recorded",
              "IOPS alone do not say whether the I/Os were fast enough to be useful: piling on "
              "threads raises IOPS while latency becomes impractical. Report latency beside IOPS.")


def _tiny_io(st, ctx, src, log_dir) -> Finding | None:
    if st["bs"] >= TINY_BS:
        return None
    return _f("tiny-io", src, st, {"bs": st["bs"], "iops": round(st["iops"])},
              f"{st['bs']}-byte I/Os, {st['iops']:,.0f} IOPS",
              "an I/O this small measures the fixed cost per request: an upper bound for IOPS. "
              "Compare with the I/O size your workload really uses.")


#: The rules, in the order their findings are listed (one function each: (job stats, context,
#: source, log directory) -> a Finding or None).
RULES = (_disk_read_from_cache, _cache_read_from_disk, _client_bound, _too_short, _peak_vs_average,
         _no_latency, _tiny_io)


# --------------------------------------------------------------------------- runs

def fio_reports(run_dir: Path) -> list[Path]:
    """The fio JSON reports of a run directory (any *.json that is one), not those of the runs a
    reference keeps beside it (repeats/<k>/: each is a run of its own, reviewed on its own), nor a
    watched run's reports once a second (NAME.status.json: its last one is NAME.json)."""
    from perflab.fio.jobs import STATUS_SUFFIX

    out = []
    run_dir = Path(run_dir)
    for p in sorted(run_dir.rglob("*.json")):
        if p.name == "run.json" or p.name.endswith(STATUS_SUFFIX) or p.stat().st_size > 50_000_000:
            continue
        if p.relative_to(run_dir).parts[0] == "repeats":
            continue
        try:
            head = p.read_text(errors="replace")[:4000]
        except OSError:
            continue
        if '"fio version"' in head or '"client_stats"' in head:
            out.append(p)
    return out


def _contexts(declared: dict | None, jobfile_intents: dict) -> tuple[dict, JobContext]:
    declared = {k: {"intent": v} if isinstance(v, str) else (v or {}) for k, v in (declared or {}).items()}
    base = JobContext(**{k: v for k, v in declared.get("*", {}).items() if k in JobContext.__annotations__})
    per_job = {}
    names = set(declared) | set(jobfile_intents)
    for name in names - {"*"}:
        d = declared.get(name, {})
        kw = {**asdict(base), **{k: v for k, v in d.items() if k in JobContext.__annotations__}}
        if kw.get("intent") is None and name in jobfile_intents:
            kw["intent"] = jobfile_intents[name]
        per_job[name] = JobContext(**kw)
    return per_job, base


def review(run_dir: Path, declared: dict | None = None, memory_bytes: int | None = None,
           cpus: float | None = None) -> list[Finding]:
    """Every rule on every job of every fio report under run_dir. `declared`: {job or "*": intent
    string or dict of JobContext fields}; memory_bytes and cpus: the machine's (defaults)."""
    run_dir = Path(run_dir)
    findings: list[Finding] = []
    for rep in fio_reports(run_dir):
        try:
            result = fiolog.read_fio_json(rep)
        except fiolog.FioOutputError:
            continue
        per_job, base = _contexts(declared, intents_from_jobfile(rep.with_suffix(".fio")))
        held = throttled_share(rep.with_suffix(".cpu.stat"))
        for st in job_stats(result):
            st["throttled_share"] = held
            ctx = per_job.get(st["job"], base)
            if ctx.memory_bytes is None or ctx.cpus is None:
                ctx = JobContext(**{**asdict(ctx), "memory_bytes": ctx.memory_bytes or memory_bytes,
                                    "cpus": ctx.cpus or cpus})
            findings += check_job(st, ctx, str(rep.relative_to(run_dir)), rep.parent)
    return findings


def declared_for(module, params: dict) -> dict:
    """What a lab module declares: INTENT and sanity_context(params), merged."""
    out: dict = {}
    for job, intent in (getattr(module, "INTENT", None) or {}).items():
        out[job] = {"intent": intent} if isinstance(intent, str) else dict(intent)
    fn = getattr(module, "sanity_context", None)
    if callable(fn):
        for job, d in (fn(params) or {}).items():
            out[job] = {**out.get(job, {}), **({"intent": d} if isinstance(d, str) else d)}
    return out


def review_session(s) -> list[Finding]:
    """The findings of a session's run (live or reference): machine figures from its provenance."""
    prov = {}
    with_json = s.path("run.json")
    if with_json.exists():
        prov = json.loads(with_json.read_text()).get("provenance", {})
    return review(s.data_dir, declared_for(s.module(), s.params), prov.get("memory_bytes"), prov.get("cpus"))


def table(findings: list[Finding]):
    """One row per rule and reason: the jobs it fired on (and where) grouped, with the first
    finding's numbers as the example. Long texts wrap in the book (perflab.css)."""
    import pandas as pd

    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.rule, f.why), []).append(f)
    rows = []
    for (rule, why), fs in groups.items():
        jobs = sorted({f.job for f in fs})
        reports = sorted({f.source for f in fs})
        saw = fs[0].message + (f" (and {len(fs) - 1} more like it)" if len(fs) > 1 else "")
        rows.append({"rule": rule, "jobs": ", ".join(jobs[:8]) + (f" +{len(jobs) - 8}" if len(jobs) > 8 else ""),
                     "reports": len(reports), "saw": saw, "why": why})
    return pd.DataFrame(rows, columns=["rule", "jobs", "reports", "saw", "why"])


def fired(findings: list[Finding], rule: str, job: str) -> bool:
    return any(f.rule == rule and f.job == job for f in findings)
