"""Every parameter a lab reads is declared in its book.toml schema (issue 42, item 1).

`perflab run` validates the parameters against `[labs.<lab>.params]` before anything is created, but
a lab reading `p["runtim"]` would only fail half-way through a run with a KeyError, and a reference
run records the parameters the schema knew. tests/support/labparams.py finds the reads in the lab's
source (every way the labs get at their parameters: `s.params`, `self.p`, `params_of(run_dir)`,
`d["params"]`, a `p` argument, a helper called with them); this module holds each lab to its schema
and proves the finder sees each of those ways.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from support.labparams import param_reads, unknown_keys

ROOT = Path(__file__).resolve().parents[1]


def _labs():
    from perflab.config import manifest

    return sorted(manifest.load(ROOT).labs.values(), key=lambda lab: lab.name)


def sources(lab) -> dict[str, str]:
    """{file name: text} of the lab package's modules."""
    return {p.name: p.read_text() for p in sorted(lab.module_path.parent.glob("*.py"))}


LABS = _labs()


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.name)
def test_a_lab_reads_only_parameters_its_schema_declares(lab):
    bad = unknown_keys(lab.name, sources(lab), set(lab.params))
    assert not bad, (f"labs/{lab.name} reads parameters that book.toml [labs.{lab.name}.params] does not "
                     "declare:\n" + "\n".join(bad))


@pytest.mark.parametrize("lab", [lab for lab in LABS if lab.params], ids=lambda lab: lab.name)
def test_the_finder_sees_the_lab_read_every_declared_parameter(lab):
    """Not vacuous: a lab with parameters reads some, and the finder sees each declared one read
    somewhere (a parameter nothing reads is dead, or read in a way the finder misses: teach it)."""
    keys = {r.key for r in param_reads(sources(lab))}
    assert keys, f"labs/{lab.name}: no parameter read found, but book.toml declares {sorted(lab.params)}"
    unread = sorted(set(lab.params) - keys)
    assert not unread, (f"labs/{lab.name}: book.toml declares {unread}, which no read in the lab's code names "
                        "(drop the parameter, or teach tests/support/labparams.py how the lab reads it)")


# -- the finder can fail: a small fake lab, one way of reading per case ---------------------------------

PLANTED = {
    "session": """
        def run(s):
            p = s.params
            return p["runtime"], p["bogus"]
        """,
    "tuple unpacking": """
        def run(s):
            p, out = s.params, s.path("fio")
            return p["bogus"]
        """,
    "get and in": """
        def validate(p):
            return p.get("bogus") or "bogus" in p
        """,
    "plan's argument, whatever its name": """
        def plan(cfg: dict):
            return [("x", cfg["bogus"])]
        """,
    "a check's callable": """
        from perflab.analysis.checks import Check
        CHECKS = [Check("c", "metric", ">=", lambda m, q: q["bogus"])]
        """,
    "a helper passed them": """
        def disk_model(cfg):
            return cfg["bogus"]
        def run(s):
            return disk_model(s.params)
        """,
    "self.p": """
        class Rig:
            def __init__(self, s):
                self.s, self.p = s, s.params
            def go(self):
                return self.p["bogus"]
        """,
    "the run's record": """
        from perflab.run.record import params_of
        def load(run_dir):
            return {"params": params_of(run_dir), "x": params_of(run_dir)["bogus"]}
        def summary(d):
            p = d["params"]
            return {"x": p["runtime"] + p["bogus"]}
        """,
    "run.json read back": """
        def load(doc):
            params = dict(doc.get("params", {}))
            return params["bogus"]
        """,
    "a typed parameter object": """
        def run(s):
            return s.params.runtime + s.params.bogus
        """,
    "a closure": """
        def run(s):
            p = s.params
            return sorted([1, 2], key=lambda x: p["bogus"])
        """,
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_a_planted_unknown_key_is_named_with_its_file_and_line(case):
    text = textwrap.dedent(PLANTED[case]).lstrip()
    lines = [i for i, line in enumerate(text.splitlines(), 1) if "bogus" in line]
    bad = unknown_keys("fake", {"experiment.py": text}, {"runtime"})
    assert bad, f"{case}: the unknown key 'bogus' was not found in\n{text}"
    assert all(" 'bogus' is not a parameter of fake " in b for b in bad), bad   # runtime is declared
    for n in lines:
        assert any(b.startswith(f"labs/fake/experiment.py:{n}: ") for b in bad), f"{case}: line {n} not named in {bad}"


def test_a_computed_key_is_refused_and_a_name_bound_to_something_else_is_not_taken():
    text = textwrap.dedent("""
        def run(s):
            p = s.params
            k = "runtime"
            return p[k]
        def summary(d, paths):
            for p in paths:        # p: a path here, not the parameters
                d[p.name] = p["bogus"]
            p = {"bogus": 1}       # a dict the lab builds itself
            return p["bogus"]
        """).lstrip()
    bad = unknown_keys("fake", {"analysis.py": text}, {"runtime"})
    assert bad == ["labs/fake/analysis.py:4: a computed key (p[k]): name the parameter"]
