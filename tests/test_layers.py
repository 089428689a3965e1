"""The package's architecture, checked: layers that import one way, no import circle, no private
name used across modules, no module over 500 lines (CONTRIBUTING.md draws the same layers).

Every import counts, also the ones inside functions (a function-level import hides a circle from
Python, not from a reader). A module belongs to the layer of its sub-package (perflab/<layer>/);
only the error model and the command line stand outside them.
"""
import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "perflab"

#: bottom to top: a module may import from its own layer or a lower one, never a higher one.
LAYERS = ["base", "config", "fio", "infra", "analysis", "run", "teaching/book", "cli"]
LAYER_OF_PACKAGE = {"config": "config", "fio": "fio", "infra": "infra", "analysis": "analysis", "run": "run",
                    "teaching": "teaching/book", "book": "teaching/book"}
#: the modules outside the sub-packages: the error model at the bottom, the command line on top
LAYER_OF_MODULE = {"perflab": "base", "perflab.errors": "base", "perflab.lazy": "base", "perflab.cli": "cli", "perflab.commands": "cli",
                   "perflab.__main__": "cli"}
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def lab_files() -> list[Path]:
    """Every Python file of every lab: a lab package's modules, or a lab's one lab.py."""
    return sorted(p for p in (ROOT / "labs").glob("*/*.py"))


def lab_packages() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "labs").glob("*/__init__.py"))


#: a lab package's modules are small: one job each (plan and run, analysis, checks, figures)
MAX_LAB_LINES = 300


def layer(mod: str) -> str:
    if mod in LAYER_OF_MODULE:
        return LAYER_OF_MODULE[mod]
    parts = mod.split(".")
    if len(parts) > 1 and parts[1] in LAYER_OF_PACKAGE:
        return LAYER_OF_PACKAGE[parts[1]]
    raise AssertionError(f"{mod}: no layer (put it in a sub-package, or name it in LAYER_OF_MODULE)")


def imports(mod: str, path: Path, known: set[str]) -> list[tuple[str, int, list[str]]]:
    """(imported perflab module, line, names imported from it) for every import in the file."""
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, []) for a in node.names if a.name.split(".")[0] == "perflab"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "perflab":
                continue
            for a in node.names:   # `from perflab.run import session` imports a module
                sub = f"{target}.{a.name}"
                if sub in known:
                    out.append((sub, node.lineno, []))
                else:
                    out.append((target, node.lineno, [a.name]))
    return out


def graph():
    mods = modules()
    known = set(mods)
    return mods, {m: imports(m, p, known) for m, p in mods.items()}


def test_every_module_has_a_layer():
    for m in modules():
        assert layer(m) in LAYERS


def test_imports_flow_down_the_layers():
    mods, g = graph()
    bad = []
    for m, edges in g.items():
        for target, line, _ in edges:
            if target not in mods:   # a name that is not a module of ours: its package's __init__
                target = target.rsplit(".", 1)[0] if target.rsplit(".", 1)[0] in mods else target
            if target in mods and LAYERS.index(layer(target)) > LAYERS.index(layer(m)):
                bad.append(f"{mods[m].relative_to(ROOT)}:{line}: {m} ({layer(m)}) imports {target} ({layer(target)})")
    assert not bad, "imports that go up the layers:\n" + "\n".join(bad)


def test_no_import_circle():
    mods, g = graph()
    adj = {m: sorted({t for t, _, _ in edges if t in mods and t != m}) for m, edges in g.items()}
    # a package's __init__ importing its own modules is how it shows its public names, not a circle
    for m in adj:
        adj[m] = [t for t in adj[m] if not t.startswith(m + ".")]
    state, stack, circles = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in adj[m]:
            if state.get(t) == "open":
                circles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in adj:
        if m not in state:
            visit(m)
    assert not circles, "import circles:\n" + "\n".join(circles)


def _private_uses(path: Path, mod: str, known: set[str]) -> list[str]:
    """`from x import _name`, or `x._name` on an imported perflab module, where x is not this module."""
    tree = ast.parse(path.read_text())
    bad = []
    aliases = {}
    for target, line, names in imports(mod, path, known):
        bad += [f"{path.relative_to(ROOT)}:{line}: {target}.{n}" for n in names
                if n.startswith("_") and not n.startswith("__") and target != mod]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("perflab"):
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("perflab"):
                    aliases[a.asname or a.name.split(".")[0]] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name) and node.value.id in aliases
                and aliases[node.value.id] in known and aliases[node.value.id] != mod):
            bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return bad


def test_no_private_name_is_used_across_modules():
    mods = modules()
    known = set(mods)
    bad = []
    for m, p in mods.items():
        bad += _private_uses(p, m, known)
    for p in lab_files():   # labs use the package's public names only
        bad += _private_uses(p, "lab", known)
    assert not bad, "private names used from another module:\n" + "\n".join(bad)


@pytest.mark.parametrize("mod", sorted(modules()))
def test_module_size(mod):
    n = len(modules()[mod].read_text().splitlines())
    assert n <= MAX_LINES, f"{mod}: {n} lines (at most {MAX_LINES}: split it by job)"


def test_the_checker_sees_a_circle_and_an_upward_import(tmp_path, monkeypatch):
    """The rules above can fail: a fake package with a circle and an upward import is caught."""
    pkg = tmp_path / "perflab"
    (pkg / "run").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("from perflab.run import session\n")
    (pkg / "run" / "__init__.py").write_text("")
    (pkg / "run" / "session.py").write_text("def f():\n    from perflab import errors\n    return errors._x\n")
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "ROOT", tmp_path)
    monkeypatch.setattr(here, "PKG", pkg)
    with pytest.raises(AssertionError, match="errors .base. imports perflab.run.session"):
        test_imports_flow_down_the_layers()
    with pytest.raises(AssertionError, match="perflab.errors -> perflab.run.session -> perflab.errors"):
        test_no_import_circle()
    with pytest.raises(AssertionError, match="perflab.errors._x"):
        test_no_private_name_is_used_across_modules()


def test_labs_make_host_objects_through_primitives_that_record_themselves():
    """A lab asks perflab.infra for a host object (hostobjects, slowdisk.recorded, zfs) and never
    writes the ledger itself, so it cannot forget to: no lab calls a ledger's record/release/holding
    or removes an entry by hand."""
    bad = []
    for p in lab_files():
        for node in ast.walk(ast.parse(p.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("record", "release", "holding", "record_process")
                    and "ledger" in ast.unparse(node.func.value)):
                bad.append(f"{p.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node.func)}(...)")
            if isinstance(node, ast.ImportFrom) and any(a.name == "remove_entry" for a in node.names):
                bad.append(f"{p.relative_to(ROOT)}:{node.lineno}: imports remove_entry")
    assert not bad, "labs that keep the ledger by hand:\n" + "\n".join(bad)


def test_paths_the_package_derives_from_its_own_location_exist(monkeypatch):
    """Modules that find the checkout from their own file (slowdisk's source, the manifest's
    fallback root) still find it after a move."""
    from perflab.config import manifest
    from perflab.infra import slowdisk

    assert (slowdisk.SOURCE_DIR / "Makefile").is_file(), slowdisk.SOURCE_DIR
    monkeypatch.delenv("PERFLAB_ROOT", raising=False)
    assert manifest.project_root(Path("/")) == ROOT


@pytest.mark.parametrize("pkg", lab_packages(), ids=lambda p: p.name)
def test_lab_packages_are_small(pkg):
    """A lab that is a package: no module over MAX_LAB_LINES. That it leaves host and Docker plumbing
    to perflab.infra, and that its modules import one another without a circle (also inside
    functions), is tests/test_lab_plumbing.py's."""
    bad = []
    for p in sorted(pkg.glob("*.py")):
        n = len(p.read_text().splitlines())
        if n > MAX_LAB_LINES:
            bad.append(f"{p.relative_to(ROOT)}: {n} lines (at most {MAX_LAB_LINES})")
    assert not bad, "\n".join(bad)

# -- import circles inside a lab package ------------------------------------------------------------
# Every relative import counts, also one inside a function (a function-level import hides a circle from
# Python, not from a reader): the names both sides need live in one module they import (spec.py).


def import_edges(modules: dict[str, str], inside_functions: bool = True) -> list[tuple[str, str, int, str]]:
    """(importer, imported, line, the function it is in or '') for each relative import between the
    modules of one package, {module stem: source}; `from . import x` of a name that is not a module
    imports the package's __init__."""
    edges = []
    for mod, text in modules.items():
        tree = ast.parse(text)
        owner = {}
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                for n in ast.walk(fn):
                    owner.setdefault(id(n), getattr(fn, "name", "<lambda>"))
        for n in ast.walk(tree):
            if not (isinstance(n, ast.ImportFrom) and n.level == 1):
                continue
            fn = owner.get(id(n), "")
            if fn and not inside_functions:
                continue
            targets = ([n.module.split(".")[0]] if n.module
                       else [a.name if a.name in modules else "__init__" for a in n.names])
            edges += [(mod, t, n.lineno, fn) for t in targets if t in modules]
    return edges


def circles(modules: dict[str, str], inside_functions: bool = True) -> list[str]:
    """Each group of modules that import one another in a circle, with the imports that close it."""
    edges = import_edges(modules, inside_functions)
    adj = {m: sorted({t for a, t, _, _ in edges if a == m}) for m in modules}

    def reach(start: str) -> set[str]:
        seen, todo = set(), list(adj[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo += adj[m]
        return seen

    reached = {m: reach(m) for m in modules}
    groups = {frozenset({m} | {o for o in reached[m] if m in reached[o]}) for m in modules if m in reached[m]}
    out = []
    for g in sorted(groups, key=sorted):
        how = [f"{a}.py:{line}{f' (in {fn}())' if fn else ''} imports .{t}"
               for a, t, line, fn in sorted(edges, key=lambda e: (e[0], e[2])) if a in g and t in g]
        out.append(" <-> ".join(sorted(g)) + ": " + "; ".join(how))
    return out


def package_modules(pkg: Path) -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted(pkg.glob("*.py"))}


@pytest.mark.parametrize("pkg", lab_packages(), ids=lambda p: p.name)
def test_a_lab_package_has_no_import_circle_counting_imports_inside_functions(pkg):
    found = circles(package_modules(pkg))
    assert not found, f"labs/{pkg.name}: import circles:\n" + "\n".join(found)


@pytest.mark.parametrize("pkg", lab_packages(), ids=lambda p: p.name)
def test_a_lab_package_has_no_import_circle_at_module_level(pkg):
    """Held for every lab, listed or not: a circle at module level breaks the import itself."""
    found = circles(package_modules(pkg), inside_functions=False)
    assert not found, f"labs/{pkg.name}: import circles at module level:\n" + "\n".join(found)


def test_a_planted_circle_through_a_function_level_import_is_found(tmp_path):
    pkg = tmp_path / "fakelab"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .experiment import run\nfrom .analysis import load\n")
    (pkg / "experiment.py").write_text("JOB = 'x'\n\ndef run(s):\n    from .analysis import load\n    return load(s)\n")
    (pkg / "analysis.py").write_text("from .experiment import JOB\n\ndef load(d):\n    return JOB\n")
    (pkg / "checks.py").write_text("from .analysis import load\n")
    found = circles(package_modules(pkg))
    assert found == ["analysis <-> experiment: analysis.py:1 imports .experiment; "
                     "experiment.py:4 (in run()) imports .analysis"]
    assert circles(package_modules(pkg), inside_functions=False) == []
    (pkg / "experiment.py").write_text("from . import JOBS\n")   # a name of the package's __init__
    (pkg / "__init__.py").write_text("from .experiment import run\nJOBS = ()\n")
    assert circles(package_modules(pkg), inside_functions=False) == [
        "__init__ <-> experiment: __init__.py:1 imports .experiment; experiment.py:1 imports .__init__"]
