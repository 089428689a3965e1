"""Lab ht: the configurations a run measures, the host-side parsers (cgroup CPU time, /proc/PID/io,
perf stat, fincore, stress-ng), the hardware-counter probe (with stand-in perf programs: counting,
not supported, missing), and the numbers the chapter shows, from a small synthetic run directory
(no Docker)."""
import json
import stat

import pytest

from perflab.errors import Failed
from perflab.config import manifest as manifest_mod
from perflab.config import params as params_mod
from perflab.infra import cpuacct, perfstat

KiB, MiB, GiB = 1024, 1 << 20, 1 << 30


@pytest.fixture(scope="module")
def lab():
    return manifest_mod.load().lab("ht").load_module()


@pytest.fixture(scope="module")
def schema():
    return manifest_mod.load().lab("ht")


def resolved(schema, preset, **over):
    return params_mod.resolve(schema, preset, {k: str(v) for k, v in over.items()})


# ------------------------------------------------------------------ configurations

def test_sweep_runs_from_cache_set_to_dram_set_in_whole_blocks(lab, schema):
    p = resolved(schema, "full")
    sets = lab.sweep_sets(p)
    assert sets[0] == p["cache_set"] and sets[-1] == p["dram_set"] and len(sets) == p["sweep_points"]
    assert sets == sorted(sets) and all(x % p["bs"] == 0 and x % 4096 == 0 for x in sets)
    ratios = [b / a for a, b in zip(sets, sets[1:])]
    assert max(ratios) / min(ratios) < 1.2  # geometric spacing, give or take the rounding


def test_configurations_are_unique_skip_blocks_larger_than_the_file_and_follow_the_switches(lab, schema):
    p = resolved(schema, "smoke")
    confs = lab.configurations(p)
    names = [c["name"] for c in confs]
    assert len(names) == len(set(names))
    # 1 MiB blocks cannot be read from a 128 KiB file: only the DRAM-sized set gets them.
    big_blocks = [c for c in confs if c["bs"] == MiB]
    assert [c["set"] for c in big_blocks] == [p["dram_set"]]
    # The sweep's ends at bs are measured once, in the sweep, not again in the block-size phase.
    assert not [c for c in confs if c["phase"] == "block sizes" and c["bs"] == p["bs"]]
    assert {c["neighbour"] for c in confs} == {None, "stream", "cpu"}
    assert [c["set"] for c in confs if c["neighbour"] == "cpu"] == [p["dram_set"]]
    assert sorted(c["set"] for c in confs if c["ncpu"] == 2) == [p["cache_set"], p["dram_set"]]
    quiet = lab.configurations(resolved(schema, "smoke", neighbours="false", two_cpus="false"))
    assert {c["phase"] for c in quiet} == {"working sets", "block sizes"}


def test_smoke_plan_fits_two_minutes_and_full_a_few_minutes(lab, schema):
    """The smoke preset measures every configuration twice (the sweep's ordering check needs the run's
    own repeat spread), about 104 s planned; the full preset three times."""
    smoke = sum(t for _, t in lab.plan(resolved(schema, "smoke")))
    full = sum(t for _, t in lab.plan(resolved(schema, "full")))
    assert 30 <= smoke <= 120
    assert 2 * smoke < full <= 15 * 60


def test_files_include_a_second_copy_of_both_ends_for_two_cpus(lab, schema):
    p = resolved(schema, "smoke")
    files = dict((f, x) for x, f in lab.set_files(p))
    assert files["ws-128KiB-2.dat"] == p["cache_set"] and files["ws-256MiB-2.dat"] == p["dram_set"]
    assert not [f for f in dict((f, x) for x, f in lab.set_files(resolved(schema, "smoke", two_cpus="false")))
                if f.endswith("-2.dat")]


def test_bad_parameters_are_refused(schema):
    with pytest.raises(params_mod.ParamError) as e:
        params_mod.resolve(schema, "smoke", {"bs": "256KiB", "cache_set": "128KiB", "block_sizes_kib": "2,4,4"})
    text = str(e.value)
    assert "cache_set=128KiB: below the minimum 256KiB (the value of bs)" in text
    assert "block_sizes_kib" in text


def test_cpu_roles_need_two_cpus(lab):
    assert lab.cpu_roles([0, 1]) == (1, 0)
    assert lab.cpu_roles([3, 2, 5]) == (5, 2)
    with pytest.raises(Failed, match="two CPUs"):
        lab.cpu_roles([0])


class _S:
    """Just enough of a session for job_for."""

    def __init__(self, p):
        self.params = p
        self.lab = manifest_mod.load().lab("ht")


def test_job_files_pin_the_cpus_and_keep_the_cache(lab, schema):
    p = resolved(schema, "smoke")
    confs = {c["name"]: c for c in lab.configurations(p)}
    one = lab.job_for(_S(p), confs["ws256MiB-bs4KiB-alone-1cpu"], 1, 0)
    assert one.get("global", "invalidate") == "0" and one.get("global", "pre_read") is None
    assert one.get("global", "bs") == str(4 * KiB) and one.get("global", "filename") == "/data/ws-256MiB.dat"
    assert one.get("read", "cpus_allowed") == "1" and one.jobs() == ["read"]
    two = lab.job_for(_S(p), confs["ws128KiB-bs128KiB-alone-2cpu"], 1, 0)
    assert two.jobs() == ["read", "read2"]
    assert two.get("read2", "filename") == "/data/ws-128KiB-2.dat" and two.get("read2", "cpus_allowed") == "0"


def test_the_hidden_set_leaves_its_size_out_of_every_file(lab, schema):
    """The mystery's probe: a file named hidden.dat, a job without a size, records with set 0."""
    assert lab.probe_set(resolved(schema, "smoke")) is None
    assert "hidden set" not in {c["phase"] for c in lab.configurations(resolved(schema, "smoke"))}
    for probe, size in (("cache", 256 * KiB), ("dram", 128 * MiB)):
        p = resolved(schema, "smoke", probe=probe)
        assert lab.probe_set(p) == size
        hidden = [c for c in lab.configurations(p) if c["phase"] == "hidden set"]
        assert len(hidden) == 1 and hidden[0]["name"] == "hidden-bs128KiB-alone-1cpu"
        assert lab.public(hidden[0])["set"] == 0 and hidden[0]["set"] == size
        job = lab.job_for(_S(p), hidden[0], 1, 0)
        assert job.get("global", "filename") == "/data/hidden.dat" and job.get("global", "size") is None
        assert str(size) not in job.text() and params_mod.fmt_size(size) not in job.text()
        assert (size, "hidden.dat") in lab.set_files(p)
        assert dict(lab.plan(p))["hidden set"] > 0


def test_hidden_set_metrics_name_the_nearer_set_on_a_log_scale(lab):
    m = lab.hidden_set_metrics(18.0, 20.0, 8.0)
    assert m["detected_hidden"] == "cache" and m["hidden_vs_cache"] == 0.9 and m["hidden_vs_dram"] == 2.25
    assert lab.hidden_set_metrics(9.0, 20.0, 8.0)["detected_hidden"] == "dram"
    # 12.6 is the geometric mean of 20 and 8 (plus a little): nearer cache on a log scale, though
    # nearer dram on a linear one
    assert lab.hidden_set_metrics(12.7, 20.0, 8.0)["detected_hidden"] == "cache"


# ------------------------------------------------------------------ host-side parsers

def test_proc_cgroup_v1_and_v2(lab):
    v1 = "12:cpuset:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n0::/system.slice\n"
    g = cpuacct.parse_proc_cgroup(v1)
    assert g["cpuacct"] == g["cpu"] == "/docker/abc" and g[""] == "/system.slice"
    assert cpuacct.parse_proc_cgroup("0::/system.slice/docker-abc.scope\n") == {"": "/system.slice/docker-abc.scope"}


def test_cgroup_cpu_time_v1_per_cpu_and_v2(lab, tmp_path):
    f1 = tmp_path / "cpuacct.usage_percpu"
    f1.write_text("123 456789 \n")
    assert cpuacct.read_cpu_ns(f1, "v1") == [123, 456789]
    f2 = tmp_path / "cpu.stat"
    f2.write_text("usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n")
    assert cpuacct.read_cpu_ns(f2, "v2") == [2_500_000]


def test_proc_io(lab):
    text = "rchar: 30024901244\nwchar: 13606\nsyscr: 229254\nsyscw: 5\nread_bytes: 0\nwrite_bytes: 8192\n"
    io = lab.parse_proc_io(text)
    assert io["rchar"] == 30024901244 and io["syscr"] == 229254 and io["read_bytes"] == 0


def test_perf_csv_counting_and_not_supported(lab):
    ok = "# started on x\n\n8123456789,,cycles,2000000000,100.00,,\n1234567890,,instructions,2000000000,100.00,0.15,insn per cycle\n"
    ev = perfstat.parse_perf_csv(ok)
    assert ev["cycles"]["value"] == 8123456789 and ev["instructions"]["value"] == 1234567890
    assert perfstat.cpi_from_perf(ev) == pytest.approx(8123456789 / 1234567890, abs=1e-3)
    no = "<not supported>,,cycles,0,100.00,,\n<not supported>,,instructions,0,100.00,,\n"
    ev = perfstat.parse_perf_csv(no)
    assert ev["cycles"] == {"value": None, "raw": "<not supported>"}
    assert perfstat.cpi_from_perf(ev) is None
    # perf's event names may carry modifiers (cycles:u); the CPI still comes out.
    assert perfstat.cpi_from_perf(perfstat.parse_perf_csv("300,,cycles:u,1,100.00,,\n100,,instructions:u,1,100.00,,\n")) == 3.0


def _fake_perf(tmp_path, stderr_text, code=0):
    f = tmp_path / "perf"
    f.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'perf version 0.test'; exit 0; fi\n"
                 f"cat >&2 <<'EOF'\n{stderr_text}EOF\nexit {code}\n")
    f.chmod(f.stat().st_mode | stat.S_IEXEC)
    return str(f)


def test_counter_probe_says_why_not_in_perfs_words(lab, tmp_path):
    no = perfstat.probe_counters(_fake_perf(tmp_path, "<not supported>,,cycles,0,100.00,,\n<not supported>,,instructions,0,100.00,,\n"))
    assert no["supported"] is False
    assert no["message"] == ("not supported: perf stat -e cycles,instructions: <not supported> cycles, "
                             "<not supported> instructions")
    yes = perfstat.probe_counters(_fake_perf(tmp_path, "1000,,cycles,1,100.00,,\n900,,instructions,1,100.00,,\n"))
    assert yes["supported"] is True and yes["version"] == "perf version 0.test"
    err = perfstat.probe_counters(_fake_perf(tmp_path, "Error:\nNo permission to enable cycles event.\n", code=255))
    assert err["supported"] is False and err["message"].endswith("No permission to enable cycles event.")
    missing = perfstat.probe_counters(str(tmp_path / "no-such-perf"))
    assert missing["supported"] is False and missing["message"].startswith("not supported:")


def test_fincore_and_stress_ng(lab):
    fc = lab.parse_fincore("131072 131072 /data/ws-128KiB.dat\n5754880 5898240 /data/ws-5760KiB.dat\n")
    assert fc["ws-5760KiB.dat"] == {"res": 5754880, "size": 5898240}
    text = """stress-ng: info:  [8] stream: memory rate: 10734.37 MB read/sec, 7156.24 MB write/sec, 937.98 Mflop/sec (instance 0)
stress-ng: metrc: [7] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s
stress-ng: metrc: [7]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)
stress-ng: metrc: [7] stream               68      5.09      4.93      0.14        13.35          13.42
stress-ng: metrc: [7] stream             10734.37 memory read rate (MB per sec) (geometic mean of 1 instances)
"""
    assert lab.parse_stress_ng(text) == {"stream_mb_s": 10734.37, "stream": 13.35}


# ------------------------------------------------------------------ the numbers, from a synthetic run

def _fio_json(jobs):
    return {"fio version": "fio-3.33", "jobs": [
        {"jobname": f"read{i}", "usr_cpu": usr, "sys_cpu": sys_, "read": {
            "io_bytes": b, "total_ios": n, "runtime": 3000, "iops": n / 3, "bw_bytes": b / 3}}
        for i, (b, n, usr, sys_) in enumerate(jobs)]}


def synthetic_run(tmp_path, lab, counters=False, other_pct=0.0, throttled_pct=0.0):
    """Work per CPU-second: 20 GiB/s from the small file, 8 from the large one, both at ~99% CPU;
    the CPU hog halves CPU and throughput; the memory neighbour costs the large file 15%."""
    d = tmp_path / "run"
    (d / "fio").mkdir(parents=True)
    small, big, bs = 128 * KiB, 256 * MiB, 128 * KiB
    rows = [("working sets", small, bs, 1, None, [(20.0, 99.0)]),
            ("working sets", 8 * MiB, bs, 1, None, [(14.0, 99.0)]),
            ("working sets", big, bs, 1, None, [(8.0, 99.2)]),
            ("block sizes", small, 4 * KiB, 1, None, [(6.0, 99.0)]),
            ("block sizes", big, 4 * KiB, 1, None, [(4.5, 99.0)]),
            ("neighbours", small, bs, 1, "stream", [(19.6, 98.0)]),
            ("neighbours", big, bs, 1, "stream", [(6.8, 98.0)]),
            ("neighbours", big, bs, 1, "cpu", [(4.0, 49.6)]),
            ("two CPUs", small, bs, 2, None, [(20.0, 99.0), (12.0, 98.0)]),
            ("two CPUs", big, bs, 2, None, [(7.5, 99.0), (7.6, 99.0)])]
    with open(d / "measurements.jsonl", "w") as f:
        for phase, size, b, ncpu, nb, jobs in rows:
            c = {"phase": phase, "set": size, "bs": b, "ncpu": ncpu, "neighbour": nb}
            name = lab.config_name(c)
            fj = [(int(g * GiB * 3) // b * b, int(g * GiB * 3) // b, 5.0, pct - 5.0) for g, pct in jobs]
            (d / "fio" / f"{name}.json").write_text(json.dumps(_fio_json(fj)))
            rchar = sum(x[0] for x in fj) + 104_000
            (d / "fio" / f"{name}.io").write_text(f"rchar: {rchar}\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 0\n")
            if counters:
                cyc = 3_000_000_000 if size == big else 1_000_000_000
                (d / "fio" / f"{name}.perf.csv").write_text(f"{cyc},,cycles,1,100.00,,\n1000000000,,instructions,1,100.00,,\n")
            cg = int(3.1e9 * sum(p for _, p in jobs) / 100 / ncpu * ncpu)
            # fio's CPUs' busy time in all: fio's container's, plus other work's share of the 3.2 s window
            busy = cg + int(other_pct / 100 * 3.2e9 * ncpu) if nb is None else cg
            f.write(json.dumps({**c, "name": name, "config": name, "repeat": 1, "cpus": "1", "t0": 0.0, "t1": 3.2,
                                "cgroup_cpu_ns": [0, cg], "cgroup_kind": "v1",
                                "throttled_ns": int(throttled_pct / 100 * 3.2e9), "host_busy_ns": {"1": busy}}) + "\n")
    hw = {"supported": counters, "message": "supported" if counters else
          "not supported: perf stat -e cycles,instructions: <not supported> cycles, <not supported> instructions",
          "fio_cpu": 1, "other_cpu": 0, "caches": {"L1d": 32 * KiB, "L2": MiB, "L3": 32 * MiB}}
    (d / "hardware.json").write_text(json.dumps(hw))
    (d / "cache.json").write_text(json.dumps({"prepared": {"a": {"res": 10, "size": 10}},
                                              "end": {"a": {"res": 9, "size": 10}}}))
    (d / "neighbours").mkdir()
    (d / "neighbours" / "x.txt").write_text("stress-ng: info:  [8] stream: memory rate: 9000.5 MB read/sec, 1 MB write/sec\n")
    return d


def test_summary_from_a_synthetic_run(lab, tmp_path):
    d = lab.load(synthetic_run(tmp_path, lab))
    m = lab.summary(d)
    assert m["cache_set"] == "128KiB" and m["dram_set"] == "256MiB" and m["sweep_points"] == 3
    assert m["cache_cpu_pct"] == pytest.approx(99.0) and m["dram_cpu_pct"] == pytest.approx(99.2)
    assert m["work_ratio"] == pytest.approx((20.0 / 0.990) / (8.0 / 0.992), abs=0.01)
    assert m["sweep_min_cpu_pct"] == pytest.approx(99.0)
    assert m["ops_x_size_error_max"] < 1e-4 and m["disk_read_fraction_max"] == 0
    assert m["sanity_bs"] == "4KiB" and m["sanity_ops_x_size_gib_s"] == pytest.approx(4.5, abs=0.01)
    assert m["small_ops_ratio"] == pytest.approx((6.0 / 0.99) / (4.5 / 0.99), abs=0.01)
    assert m["cpu_dram_throughput_ratio"] == pytest.approx(0.5) and m["cpu_dram_work_ratio"] == pytest.approx(1.0, abs=0.01)
    assert m["stream_dram_throughput_ratio"] == pytest.approx(0.85) and m["stream_cache_throughput_ratio"] == pytest.approx(0.98)
    assert m["two_cpu_cache_scaling"] == pytest.approx(1.6) and m["two_cpu_cache_job_gib_s"] == [20.0, 12.0]
    assert m["cpi"] is None and m["hardware_counters"].startswith("not supported: perf stat")
    assert m["cached_fraction_min"] == 0.9 and m["stream_neighbour_read_mb_s"] == 9000.0
    json.dumps(m)  # run.json takes it as it is


def test_summary_reports_the_hidden_set_when_there_is_one(lab, tmp_path):
    d = synthetic_run(tmp_path, lab)
    c = {"phase": "hidden set", "set": 0, "bs": 128 * KiB, "ncpu": 1, "neighbour": None, "hidden": True}
    name = lab.config_name(c)
    fj = [(int(9.0 * GiB * 3) // c["bs"] * c["bs"], int(9.0 * GiB * 3) // c["bs"], 5.0, 94.0)]
    (d / "fio" / f"{name}.json").write_text(json.dumps(_fio_json(fj)))
    (d / "fio" / f"{name}.io").write_text(f"rchar: {fj[0][0] + 104_000}\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 0\n")
    with open(d / "measurements.jsonl", "a") as f:
        f.write(json.dumps({**c, "name": name, "config": name, "repeat": 1, "cpus": "1", "t0": 0.0, "t1": 3.2,
                            "cgroup_cpu_ns": [0, int(3.1e9 * 0.99)], "cgroup_kind": "v1"}) + "\n")
    m = lab.summary(lab.load(d))
    assert m["detected_hidden"] == "dram" and m["hidden_gib_per_cpu_s"] == pytest.approx(9.0 / 0.99, abs=0.01)
    assert m["cache_set"] == "128KiB" and m["sweep_points"] == 3   # the sweep is as it was
    assert "hidden_vs_cache" not in lab.summary(lab.load(synthetic_run(tmp_path / "plain", lab)))


def test_cpi_where_counters_count(lab, tmp_path):
    m = lab.summary(lab.load(synthetic_run(tmp_path, lab, counters=True)))
    assert m["cpi"] == 3.0 and m["cpi_cache_resident"] == 1.0 and m["hardware_counters"] == "supported"


def test_figures_build(lab, tmp_path):
    d = lab.load(synthetic_run(tmp_path, lab))
    for fig in (lab.fig_sweep(d), lab.fig_block_sizes(d), lab.fig_neighbours(d), lab.fig_two_cpus(d)):
        assert fig.data


def test_bar_figures_lie_flat_and_label_every_bar(lab, tmp_path):
    """The neighbours' and the second CPU's bars run along x, one row per set, so that their words lie
    flat at a phone's width: no text turned, every bar labelled, room past the longest bar for it."""
    d = lab.load(synthetic_run(tmp_path, lab))
    for fig in (lab.fig_neighbours(d), lab.fig_two_cpus(d)):
        bars = [tr for tr in fig.data if tr.type == "bar"]
        assert bars and all(tr.orientation == "h" and tr.textangle == 0 for tr in bars)
        assert all(len(tr.text) == len(tr.x) and all(tr.text) for tr in bars)
        assert all(y.endswith(("(cache-resident)", "(DRAM-sized)")) for tr in bars for y in tr.y)
        for axis in ("xaxis", "xaxis2"):
            longest = max(max(tr.x) for tr in bars if tr.xaxis == axis.replace("axis", ""))
            assert fig.layout[axis].range[1] >= 1.2 * longest
    # the hog is not run on the cache-resident set: the chart says so instead of drawing nothing
    hog = next(tr for tr in lab.fig_neighbours(d).data if tr.name.startswith("CPU hog") and tr.xaxis == "x")
    assert list(hog.text)[0] == "not measured" and list(hog.x)[0] == 0
    gains = next(tr for tr in lab.fig_two_cpus(d).data if tr.name == "2 CPUs" and tr.xaxis == "x")
    assert all(t.startswith("×") for t in gains.text)


def test_cpu_shared_with_other_work_and_a_cpu_limit_are_measured(lab, tmp_path):
    """The kernel's count of fio's CPU, beside the container's own, gives other work's share; the
    cgroup's throttled time gives the CPU limit's. A run without either measures none of both."""
    m = lab.summary(lab.load(synthetic_run(tmp_path / "quiet", lab)))
    assert m["sweep_other_cpu_pct_max"] == pytest.approx(0.0, abs=0.1) and m["sweep_throttled_pct_max"] == 0.0
    m = lab.summary(lab.load(synthetic_run(tmp_path / "shared", lab, other_pct=40.0, throttled_pct=25.0)))
    assert m["sweep_other_cpu_pct_max"] == pytest.approx(40.0, abs=0.2)
    assert m["sweep_throttled_pct_max"] == pytest.approx(25.0, abs=0.1) and m["dram_throttled_pct"] == pytest.approx(25.0, abs=0.1)
