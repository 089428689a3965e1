"""perflab.fio.logs: fio's JSON report, per-I/O logs, histogram logs and bin edges."""
import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from perflab.fio.logs import FioLogError, FioOutputError, fio_bin_edges_ns, job_table, loads_fio_json, read_fio_json, read_hist_log, read_lat_log

DATA = Path(__file__).parent / "data"
FIO = "/usr/bin/fio"
needs_fio = pytest.mark.skipif(shutil.which(FIO) is None,
                               reason=f"{FIO} is not installed (apt-get install fio)")


def run_fio(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "out.json"
    subprocess.run([FIO, "--name=t", f"--filename={tmp_path / 'f'}", "--size=4m", "--bs=4k",
                    "--ioengine=psync", *args, "--output-format=json", f"--output={out}"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=60)
    return out


# ----------------------------------------------------------------- real fio runs

@needs_fio
@pytest.mark.parametrize("log_offset", [0, 1])
def test_per_io_log_has_one_line_per_io(tmp_path, log_offset):
    n = 997  # prime: an off-by-one or a lost/duplicated block cannot hide
    out = run_fio(tmp_path, "--rw=randread", f"--number_ios={n}", "--write_lat_log=t",
                  "--log_avg_msec=0", f"--log_offset={log_offset}")
    df = read_lat_log(tmp_path / "t_clat.1.log")
    assert len(df) == n
    assert list(df.columns) == ["time_ms", "lat_ns", "ddir", "bs", "offset"]
    assert [str(t) for t in df.dtypes] == ["int64", "int64", "int8", "int64", "int64"]
    assert (df["ddir"] == 0).all() and (df["bs"] == 4096).all() and (df["lat_ns"] > 0).all()
    if log_offset:
        assert df["offset"].between(0, 4 * 2 ** 20 - 4096).all()
        assert (df["offset"] % 4096 == 0).all()
    else:
        assert (df["offset"] == -1).all()
    jt = job_table(read_fio_json(out))
    assert jt[["job", "ddir", "total_ios"]].values.tolist() == [["t", "read", n]]


@needs_fio
def test_job_table_randrw(tmp_path):
    out = run_fio(tmp_path, "--rw=randrw", "--number_ios=500")
    jt = job_table(read_fio_json(out))
    assert set(jt["ddir"]) == {"read", "write"}
    assert jt["total_ios"].sum() == 500
    assert (jt["clat_p50_ns"] <= jt["clat_p99_ns"]).all()


# ----------------------------------------------------------------- JSON

def test_json_fixture_and_job_table():
    res = read_fio_json(DATA / "fio333_randread.json")
    assert res["fio version"] == "fio-3.33"
    jt = job_table(res)
    assert len(jt) == 1
    row = jt.iloc[0]
    assert (row["job"], row["ddir"], row["total_ios"]) == ("fio333_randread", "read", 400)
    clat = res["jobs"][0]["read"]["clat_ns"]
    assert row["clat_p99_9_ns"] == clat["percentile"]["99.900000"]
    assert row["clat_mean_ns"] == pytest.approx(clat["mean"])
    assert row["runtime_ms"] == res["jobs"][0]["read"]["runtime"]
    assert list(jt.columns) == ["job", "ddir", "iops", "bw_bytes", "total_ios", "runtime_ms",
                                "clat_mean_ns", "clat_p50_ns", "clat_p90_ns", "clat_p99_ns",
                                "clat_p99_9_ns"]


def test_text_before_json_is_skipped(tmp_path):
    body = (DATA / "fio333_randread.json").read_text()
    p = tmp_path / "warn.json"
    p.write_text("fio: this platform does not support process shared mutexes\n"
                 "hostname=box, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n"
                 "  {indented brace does not count}\n" + body + "\ntrailing text\n")
    assert read_fio_json(p) == json.loads(body)


def test_truncated_json_names_file_and_position(tmp_path):
    body = (DATA / "fio333_randread.json").read_text()
    p = tmp_path / "cut.json"
    p.write_text("a warning line\n" + body[:1000])
    with pytest.raises(FioOutputError) as ei:
        read_fio_json(p)
    msg = str(ei.value)
    text = p.read_text()
    assert str(p) in msg
    assert f"line {text.count(chr(10)) + 1} " in msg and "column" in msg
    assert isinstance(ei.value, ValueError)


def test_corrupt_json_position_points_at_the_damage(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('note\n{\n  "jobs" : [\n    {"jobname": "x",, }\n  ]\n}\n')
    with pytest.raises(FioOutputError, match=r"bad\.json.*line 4 column 21"):
        read_fio_json(p)


def test_no_json_at_all(tmp_path):
    p = tmp_path / "none.json"
    p.write_text("fio: failed to open file\n")
    with pytest.raises(FioOutputError, match="none.json"):
        read_fio_json(p)


def test_client_server_report():
    res = loads_fio_json('hostname=a\n{"client_stats": [{"jobname": "j", "hostname": "a", '
                         '"read": {"total_ios": 3, "iops": 1.5, "bw_bytes": 6144, "runtime": 2000,'
                         ' "clat_ns": {"mean": 10.0}}, "write": {"total_ios": 0}}]}')
    jt = job_table(res)
    assert jt[["job", "ddir", "total_ios", "hostname"]].values.tolist() == [["j", "read", 3, "a"]]
    assert math.isnan(jt["clat_p99_ns"].iloc[0])


# ----------------------------------------------------------------- per-I/O logs

def test_lat_log_fixture_6_fields():
    df = read_lat_log(DATA / "fio333_randread_clat.1.log")
    assert len(df) == 400
    assert df.iloc[0].tolist() == [0, 278109, 0, 4096, 249856]


def test_lat_log_5_fields(tmp_path):
    p = tmp_path / "x_clat.1.log"
    p.write_text("0, 192862, 0, 4096, 0\n3, 1000, 1, 8192, 2\n")
    df = read_lat_log(p)
    assert df.values.tolist() == [[0, 192862, 0, 4096, -1], [3, 1000, 1, 8192, -1]]


def test_empty_lat_log(tmp_path):
    p = tmp_path / "x_slat.1.log"
    p.write_text("")
    assert len(read_lat_log(p)) == 0


def test_truncated_lat_log_last_line(tmp_path):
    lines = (DATA / "fio333_randread_clat.1.log").read_text().splitlines(keepends=True)
    p = tmp_path / "cut_clat.1.log"
    p.write_text("".join(lines[:-1]) + lines[-1][:9])        # cut mid-line, no newline
    with pytest.raises(FioLogError, match=rf"cut_clat\.1\.log:{len(lines)}: truncated"):
        read_lat_log(p)
    p.write_text("".join(lines[:-1]) + lines[-1].rstrip("\n"))  # only the newline lost
    with pytest.raises(FioLogError, match=rf":{len(lines)}: truncated"):
        read_lat_log(p)


def test_lat_log_line_with_missing_fields(tmp_path):
    lines = (DATA / "fio333_randread_clat.1.log").read_text().splitlines(keepends=True)
    lines[122] = "612, 99\n"
    p = tmp_path / "bad_clat.1.log"
    p.write_text("".join(lines))
    with pytest.raises(FioLogError, match=r"bad_clat\.1\.log:123: expected 6 fields, found 2"):
        read_lat_log(p)


def test_lat_log_garbage_field(tmp_path):
    p = tmp_path / "g.log"
    p.write_text("0, 1, 0, 4096, 0\n1, x1, 0, 4096, 0\n")
    with pytest.raises(FioLogError, match=r"g\.log:2: not an unsigned integer"):
        read_lat_log(p)


def test_hist_log_is_not_a_lat_log():
    with pytest.raises(FioLogError, match="histogram log"):
        read_lat_log(DATA / "fio333_randread_clat_hist.1.log")


# ----------------------------------------------------------------- histogram logs

def test_hist_log_fixture():
    h = read_hist_log(DATA / "fio333_randread_clat_hist.1.log")
    assert h.counts.shape == (3, 1856) and h.counts.dtype == np.int64
    assert h.time_ms.tolist() == [502, 1002, 1502] or (np.diff(h.time_ms) > 0).all()
    assert h.ddir.dtype == np.int8 and (h.ddir == 0).all() and (h.bs == 4096).all()
    # the histogram counts exactly the I/Os of the per-I/O log up to the last stamp
    lat = read_lat_log(DATA / "fio333_randread_clat.1.log")
    starts = h.interval_start_ms()
    for t0, t1, row in zip(starts, h.time_ms, h.counts):
        sel = lat["lat_ns"][(lat["time_ms"] > (t0 if t0 else -1)) & (lat["time_ms"] <= t1)]
        assert row.sum() == len(sel)
        expect = np.bincount(np.searchsorted(fio_bin_edges_ns(), sel, side="right") - 1,
                             minlength=1856)
        assert (row == expect).all()


def test_truncated_hist_log(tmp_path):
    text = (DATA / "fio333_randread_clat_hist.1.log").read_text()
    p = tmp_path / "h_clat_hist.1.log"
    p.write_text(text[: len(text) - 700])
    with pytest.raises(FioLogError, match=r"h_clat_hist\.1\.log:3: truncated"):
        read_hist_log(p)


# ----------------------------------------------------------------- bin edges

def plat_idx_to_val(idx, edge=0.5, bits=6, val=64):
    """fio's tools/hist/fiologparser_hist.py, verbatim in substance."""
    if idx < (val << 1):
        return idx
    error_bits = (idx >> bits) - 1
    base = 1 << (error_bits + bits)
    k = idx % val
    return base + ((k + edge) * (1 << error_bits))


@pytest.mark.parametrize("i", [0, 1, 63, 64, 127, 128, 129, 191, 192, 255, 256, 777, 1000,
                               1791, 1792, 1854, 1855])
def test_bin_edges_match_fio_formula(i):
    e = fio_bin_edges_ns()
    assert e[i] == plat_idx_to_val(i, edge=0.0)
    assert e[i + 1] == (plat_idx_to_val(i, edge=1.0) if i >= 128 else i + 1)


def test_bin_edges_shape():
    e = fio_bin_edges_ns()
    assert e.dtype == np.int64 and len(e) == 1857
    assert e[0] == 0 and e[-1] == 2 ** 34 and (np.diff(e) > 0).all()
    # groups of 64 bins double in width
    assert e[1856 - 64] == 2 ** 33 and e[1857 - 1] - e[1857 - 2] == 2 ** 27
    c2 = fio_bin_edges_ns(2)
    assert len(c2) == 1856 // 4 + 1 and (c2 == e[::4]).all()


def test_empty_json_report(tmp_path):
    p = tmp_path / "empty.json"
    p.write_text("")
    with pytest.raises(FioOutputError, match=r"empty\.json: empty"):
        read_fio_json(p)


def test_a_log_of_averages_is_told_from_a_per_io_log_and_makes_no_heat_map(tmp_path):
    """fio writes an averaged sample (log_avg_msec > 0) with block size 0: stepping's reference logs a
    second's mean latency a line (825 lines, 50,726 reads); disk-model's logs each I/O."""
    from conftest import ROOT
    from perflab.analysis.heatmap.ingest import from_lat_log
    from perflab.fio.logs import FioLogError, averaged_log
    from perflab.run.comparison import latency_logs

    ref = ROOT / "data" / "reference"
    avg = ref / "stepping" / "fio" / "step_clat.1.log"
    assert averaged_log(avg) and not averaged_log(ref / "disk-model" / "fio" / "random_clat.1.log.gz")
    with pytest.raises(FioLogError, match="a log of fio's averages"):
        from_lat_log([avg])
    assert latency_logs(ref / "stepping") == {}          # nothing to compare I/O by I/O
    one_io = tmp_path / "x_clat.1.log"                    # one line of a real I/O among averages is per-I/O
    one_io.write_text("1000, 5000, 0, 0, 0\n2000, 6000, 0, 4096, 0\n")
    assert not averaged_log(one_io)
