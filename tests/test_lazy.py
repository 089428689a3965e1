"""perflab.lazy: a module named now and loaded on first use; and what `perflab heatmap` leaves
unloaded on a small histogram log (pandas, pyarrow and jsonschema cost most of its start-up, and
perflab's own plotting, tracer readers, manifest and gradebook more than parsing such a log:
benchmarks/bench_startup.py measures it)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from perflab.lazy import lazy

HEAVY = ("pandas", "pyarrow", "jsonschema", "plotly", "perflab.analysis.heatmap.plot",
         "perflab.analysis.heatmap.sources", "perflab.analysis.heatmap.traces", "perflab.config.manifest",
         "perflab.run.record")


def test_an_imported_module_is_returned_as_it_is():
    assert lazy("json") is json


def test_a_lazy_module_loads_on_first_use():
    code = ("import sys; from perflab.lazy import lazy; m = lazy('xml.dom.minidom'); "
            "loaded = lambda: 'xml.dom.minidom' in sys.modules; "
            "a = loaded(); m.parseString('<a/>'); print(a, loaded())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.split()
    assert out == ["False", "True"]


def test_a_missing_module_is_refused_at_once():
    with pytest.raises(ModuleNotFoundError, match="no_such_module_here"):
        lazy("no_such_module_here")


@pytest.mark.parametrize("args", [["--save", "{tmp}/m.npz"], ["--summary"]], ids=["save", "summary"])
def test_the_heatmap_command_on_a_small_histogram_log_loads_none_of_the_heavy_modules(tmp_path, args):
    """Saving the map, or printing its modes (--summary, without --html or --csv)."""
    log = ROOT / "data" / "reference" / "heatmaps" / "fio" / "cached_clat_hist.1.log.gz"
    code = ("import sys; from perflab.cli import main; rc = main(['heatmap', *sys.argv[1:]]); "
            f"print(rc, [m for m in {HEAVY!r} if m in sys.modules])")
    r = subprocess.run([sys.executable, "-c", code, str(log), *(a.format(tmp=tmp_path) for a in args)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[-2] == "0 []", r.stdout
