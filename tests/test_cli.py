"""The command line: labs listing, heat maps from fio logs (the one command between an example
input and its output), doctor, and the exit codes users script against."""
import csv
import re

from conftest import ROOT, perflab_cmd

DATA = ROOT / "tests" / "data"


def test_labs_lists_parameters_and_presets():
    r = perflab_cmd("labs")
    assert r.returncode == 0
    for words in ("heatmaps:", "presets: smoke", "full", "runtime", "allowed:"):
        assert words in r.stdout


def test_heatmap_from_per_io_log_writes_csv_and_html(tmp_path):
    out_csv, out_html = tmp_path / "cells.csv", tmp_path / "map.html"
    r = perflab_cmd("heatmap", str(DATA / "fio333_randread_clat.1.log"), "--csv", str(out_csv),
                    "--html", str(out_html))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(out_csv.open()))
    assert list(rows[0]) == ["second", "lat_lo_ns", "lat_hi_ns", "count"]
    assert sum(int(x["count"]) for x in rows) == sum(1 for _ in open(DATA / "fio333_randread_clat.1.log"))
    assert all(int(x["lat_lo_ns"]) < int(x["lat_hi_ns"]) and int(x["count"]) > 0 for x in rows)
    html = out_html.read_text()
    assert "plotly-graph-div" in html and "Plotly.newPlot" in html
    assert not re.findall(r'<script[^>]+src="(?:https?:)?//', html)  # plotly.js inline: works offline


def test_heatmap_from_histogram_log(tmp_path):
    out_csv = tmp_path / "cells.csv"
    r = perflab_cmd("heatmap", str(DATA / "fio333_randread_clat_hist.1.log"), "--csv", str(out_csv))
    assert r.returncode == 0, r.stderr
    assert sum(int(x["count"]) for x in csv.DictReader(out_csv.open())) > 0


def test_heatmap_bad_input_names_the_file(tmp_path):
    bad = tmp_path / "cut.log"
    bad.write_text("0, 1000, 0, 4096, 0\n5, 20")
    r = perflab_cmd("heatmap", str(bad), "--csv", str(tmp_path / "x.csv"))
    assert r.returncode == 2 and "cut.log" in r.stderr


def test_unknown_lab_exits_2_with_suggestion():
    r = perflab_cmd("run", "heatmap")
    assert r.returncode == 2 and "did you mean 'heatmaps'" in r.stderr


def test_doctor_reports_machine_and_labs():
    r = perflab_cmd("doctor")
    for words in ("machine:", "docker", "fio", "hw-counters", "[ok] log-scanner", "labs:", "heatmaps"):
        assert words in r.stdout
