"""perflab.analysis.sanity: each rule fires on the trap it names and stays quiet on a clean job, on synthetic
fio 3.33 JSON (--output-format=json); the recorded reference runs raise only the findings the
chapters know to be true."""
import json

import pytest

from conftest import ROOT
from perflab.analysis import sanity


def report(jobs, global_opts=None):
    return {"fio version": "fio-3.33", "global options": global_opts or {"ioengine": "psync"}, "jobs": jobs}


def job(name, *, iops=500.0, bw=2_048_000, runtime_ms=10_000, ios=5000, p50=100_000, n=None, cpu=(0.5, 1.0),
        bw_max_kib=2000, opts=None):
    clat = {"min": 1, "max": 2, "mean": p50, "N": ios if n is None else n,
            "percentile": {"50.000000": p50, "99.000000": p50 * 2}} if (n is None or n) else {"N": 0}
    empty = {"io_bytes": 0, "bw_bytes": 0, "iops": 0, "runtime": 0, "total_ios": 0}
    return {"jobname": name, "job options": {"rw": "randread", "bs": "4k", "runtime": "10", **(opts or {})},
            "read": {"io_bytes": bw * runtime_ms // 1000, "bw_bytes": bw, "iops": iops, "runtime": runtime_ms,
                     "total_ios": ios, "bw_max": bw_max_kib, "bw_mean": bw / 1024, "bw_samples": 20,
                     "clat_ns": clat, "lat_ns": {"N": 0}},
            "write": empty, "trim": empty, "usr_cpu": cpu[0], "sys_cpu": cpu[1], "elapsed": 11}


def findings(tmp_path, jobs, declared=None, jobfile=None, memory=8 << 30, cpus=2):
    (tmp_path / "fio").mkdir(exist_ok=True)
    (tmp_path / "fio" / "x.json").write_text("fio: a warning line\n" + json.dumps(report(jobs)))
    if jobfile:
        (tmp_path / "fio" / "x.fio").write_text(jobfile)
    return sanity.review(tmp_path, declared, memory, cpus)


def rules(fs, name):
    return sorted(f.rule for f in fs if f.job == name)


CLEAN = dict(opts={"direct": "1", "size": "1g"})


def test_clean_disk_job_raises_nothing(tmp_path):
    fs = findings(tmp_path, [job("ok", **CLEAN)], {"ok": {"intent": "disk", "device_iops": 500}})
    assert fs == []


def test_disk_read_from_cache_by_latency_rate_and_working_set(tmp_path):
    fs = findings(tmp_path, [job("lat", p50=1500, opts={"direct": "1"}),
                             job("rate", iops=5000, opts={"direct": "1"}),
                             job("ws", opts={"size": "128m"}),
                             job("big", opts={"size": "64g"})],
                  {"*": {"intent": "disk", "device_iops": 1000}})
    assert rules(fs, "lat") == ["disk-read-from-cache"] and "1.5 µs" in fs[0].message
    assert rules(fs, "rate") == ["disk-read-from-cache"]
    assert rules(fs, "ws") == ["disk-read-from-cache"]
    assert rules(fs, "big") == []   # buffered, but larger than memory, and slow: a disk
    ws = next(f for f in fs if f.job == "ws")
    assert ws.saw == {"working_set_MiB": 128, "memory_MiB": 8192}


def test_intent_comes_from_the_job_file_header(tmp_path):
    hdr = "; a job file\n; perflab-intent: a=disk, b=setup\n[a]\nrw=randread\n"
    fs = findings(tmp_path, [job("a", p50=900), job("b", p50=900, runtime_ms=100, ios=3), job("c", p50=900)],
                  jobfile=hdr)
    assert rules(fs, "a") == ["disk-read-from-cache"]
    assert rules(fs, "b") == []      # setup: no rule at all
    assert rules(fs, "c") == []      # no intent: only generic rules, none of which fire here


def test_cache_read_from_disk(tmp_path):
    fs = findings(tmp_path, [job("c", p50=4_000_000), job("ok", p50=3000)], {"*": "cache"})
    assert rules(fs, "c") == ["cache-read-from-disk"] and rules(fs, "ok") == []


def test_client_bound_uses_the_cpu_share(tmp_path):
    fs = findings(tmp_path, [job("tiny", cpu=(1.0, 2.0), **CLEAN), job("free", cpu=(1.0, 2.0), **CLEAN),
                             job("flat-out", cpu=(20.0, 70.0), **CLEAN)],
                  {"tiny": {"cpus": 0.03, "device_iops": 1000}})
    assert rules(fs, "tiny") == ["client-bound"]
    assert rules(fs, "free") == []
    assert rules(fs, "flat-out") == ["client-bound"]   # one thread keeps a whole CPU busy
    tiny = next(f for f in fs if f.job == "tiny")
    assert tiny.saw["share_used"] == 1.0 and tiny.saw["device_busy"] == 0.5


def test_client_bound_takes_the_kernels_throttle_count(tmp_path):
    # Measured here (cpus=0.012, the host busy with two spinning loops): fio's own CPU figure was
    # 0.72-0.77 of its share while the container's cpu.stat said it was held back in 98-99% of periods.
    (tmp_path / "fio").mkdir()
    held = "nr_periods 185\nnr_throttled 183\nthrottled_time 2723623342\n"
    (tmp_path / "fio" / "x.cpu.stat").write_text(held)
    fs = findings(tmp_path, [job("capped", cpu=(0.3, 0.6), **CLEAN)], {"*": {"cpus": 0.012, "device_iops": 2000}})
    assert rules(fs, "capped") == ["client-bound"]
    assert fs[0].saw["share_used"] == 0.75 and fs[0].saw["throttled_share"] == 0.99
    assert "99% of scheduler periods" in fs[0].message
    (tmp_path / "fio" / "x.cpu.stat").write_text("nr_periods 56\nnr_throttled 6\nthrottled_time 1\n")
    assert findings(tmp_path, [job("capped", cpu=(0.3, 0.6), **CLEAN)], {"*": {"cpus": 0.012}}) == []
    (tmp_path / "fio" / "x.cpu.stat").write_text("nr_periods 0\nnr_throttled 0\n")   # no quota: no word
    assert sanity.throttled_share(tmp_path / "fio" / "x.cpu.stat") is None


def test_too_short_applies_to_measurements_only(tmp_path):
    untimed = {"direct": "1", "size": "1g"}
    fs = findings(tmp_path, [job("short", runtime_ms=1000, **CLEAN), job("few", ios=20, **CLEAN),
                             {**job("fill", runtime_ms=900), "job options": untimed}])
    assert rules(fs, "short") == ["too-short"] and rules(fs, "few") == ["too-short"]
    assert rules(fs, "fill") == []


def test_peak_vs_average_from_samples_and_from_the_bw_log(tmp_path):
    SECOND = dict(opts={"direct": "1", "size": "1g", "bw_avg_time": "1000"})   # fio samples of 1 s
    fs = findings(tmp_path, [job("spiky", bw=1_024_000, bw_max_kib=2000, **SECOND),
                             job("flat", bw=1_024_000, bw_max_kib=1100, **SECOND),
                             job("half-second", bw=1_024_000, bw_max_kib=2000, **CLEAN)])
    assert rules(fs, "spiky") == ["peak-vs-average"] and rules(fs, "flat") == []
    assert rules(fs, "half-second") == []    # fio's default 500 ms samples say nothing about seconds
    # with a per-second log the rule uses the busiest logged second instead
    (tmp_path / "fio" / "lg_bw.1.log").write_text("1000, 3000, 0, 0, 0\n2000, 1000, 0, 0, 0\n")
    fs = findings(tmp_path, [job("lg", bw=1_024_000, bw_max_kib=1000,
                                 opts={"direct": "1", "write_bw_log": "lg", "log_avg_msec": "1000"})])
    assert rules(fs, "lg") == ["peak-vs-average"] and fs[0].saw["ratio"] == 3.0


def test_no_latency_and_tiny_io(tmp_path):
    fs = findings(tmp_path, [job("one-byte", n=0, opts={"bs": "1", "direct": "1", "size": "1g"}),
                             job("eight-k", opts={"bs": "8k", "direct": "1", "size": "1g"})])
    assert rules(fs, "one-byte") == ["no-latency", "tiny-io"]
    assert rules(fs, "eight-k") == []


@pytest.mark.parametrize("text,expected", [("4k", 4096), ("8192", 8192), ("1", 1), ("1m", 1 << 20),
                                           ("4k-8k", 4096), ("4k,8k", 4096), ("bogus", None)])
def test_fio_sizes(text, expected):
    assert sanity._size(text) == expected


# Findings on the reference runs of the other labs. Each is true: these labs change their rate on
# purpose mid-run (a log device added, a cache warming, a cable replaced), so their busiest second is
# well above their average; in stepping, the readers that started while the disk had room were
# squeezed as more joined. Nothing else fires.
# Labs whose rate changes on purpose declare it ("phased"); what else may fire is listed here, true
# and explained in the chapter: ht's second job in a two-CPU configuration starts a moment after the
# first, so at the full preset's 5 s its interval can fall just under MIN_RUNTIME_S (chapters/ht.md,
# "Checks"; each configuration is the median of `repeats` measurements).
KNOWN_TRUE: dict = {"ht": {"too-short"}}


@pytest.mark.parametrize("lab", ["heatmaps", "logzilla", "l2arc", "elinks", "bad-cable", "stepping", "dedup",
                                 "latency-art", "streaming", "ht"])
def test_reference_runs_raise_only_true_findings(lab):
    from perflab.run import session

    if not (ROOT / "data" / "reference" / lab / "run.json").exists():
        pytest.skip(f"no reference run for {lab}")
    s = session.open(lab)
    got = {f.rule for f in sanity.review_session(s)}
    assert got <= KNOWN_TRUE.get(lab, set()), got


def test_cpu_intent_is_not_client_bound_or_missing_latency():
    """A job declared to measure the CPU path (the HT lab) is CPU-bound and latency-free on purpose."""
    from perflab.run import session

    s = session.open("ht", run="reference")
    rules = {f.rule for f in sanity.review_session(s)}
    assert not rules & {"client-bound", "no-latency"}
    undeclared = {f.rule for f in sanity.review(s.data_dir)}
    assert {"client-bound", "no-latency"} <= undeclared   # the same data without the declaration


def test_a_phased_job_raises_no_peak_finding(tmp_path):
    spiky = job("spiky", bw=1_024_000, bw_max_kib=2000, opts={"direct": "1", "bw_avg_time": "1s"})
    assert rules(findings(tmp_path, [spiky]), "spiky") == ["peak-vs-average"]
    fs = findings(tmp_path, [spiky], declared={"*": {"phased": "a log device is added mid-run"}})
    assert rules(fs, "spiky") == []


def test_table_groups_repeated_findings():
    f = [sanity.Finding("peak-vs-average", f"fio/p{k}.json", f"j{k}", "write", {}, f"{k} MB/s", "same why")
         for k in range(26)] + [sanity.Finding("too-short", "fio/x.json", "x", "read", {}, "1 s", "short")]
    t = sanity.table(f)
    assert len(t) == 2
    row = t[t.rule == "peak-vs-average"].iloc[0]
    assert row.reports == 26 and "25 more" in row.saw and row.jobs.endswith("+18")


def test_peak_rule_counts_whole_seconds_from_a_per_io_log(tmp_path):
    """fio's own bw samples of a throttled disk swing (the throttle releases writes in slices) while
    each second carries the same bytes: with a per-I/O log the rule judges whole seconds."""
    opts = {"direct": "1", "write_lat_log": "d", "log_avg_msec": "0"}
    (tmp_path / "fio").mkdir(exist_ok=True)
    steady = "".join(f"{t * 1000 + k * 100}, 500000, 0, 4096, 0\n" for t in range(10) for k in range(10))
    (tmp_path / "fio" / "d_clat.1.log").write_text(steady)
    fs = findings(tmp_path, [job("d", bw=40_960, bw_max_kib=80, opts=opts)])
    assert rules(fs, "d") == []          # bw_max alone (2x) would have fired
    burst = steady + "".join(f"{5000 + k}, 500000, 0, 4096, 0\n" for k in range(60))
    (tmp_path / "fio" / "d_clat.1.log").write_text("".join(sorted(burst.splitlines(True), key=lambda x: int(x.split(",")[0]))))
    fs = findings(tmp_path, [job("d", bw=40_960, bw_max_kib=80, opts=opts)])
    assert rules(fs, "d") == ["peak-vs-average"] and "busiest logged interval" in fs[0].message


def test_a_reference_is_reviewed_without_its_repeats():
    """data/reference/<lab>/repeats/<k>/ are runs of their own: a reference's findings are its own
    (the benchmarking chapter once listed every finding three times)."""
    ref = ROOT / "data" / "reference" / "benchmarking"
    assert any(ref.glob("repeats/*/fio/*.json"))
    found = sanity.fio_reports(ref)
    assert found and not any("repeats" in p.relative_to(ref).parts for p in found)
