"""Every parameter key a lab's code reads, found in its source (tests/test_lab_params_schema.py).

A lab reads its parameters from a dict it gets in one of these ways; the finder follows each:

- `s.params` (the session's, or any `<x>.params`), `self.p` once a method set `self.p = s.params`;
- the run's record read back: `params_of(run_dir)`, `d["params"]`, `doc.get("params", {})`, `dict(...)` of one;
- a name bound only to one of those (`p = s.params`; `p, fdir = s.params, s.path("fio")`);
- a function argument named `p` or `params` (the labs' convention; not when annotated as another
  type), the first argument of plan/validate/sanity_context, the second of a check's callable
  (`Check(..., lambda m, p: ...)`, `unless=fn`): the framework passes the parameters there;
- any argument of a lab function that some call passes one of the above (`disk_model(p)` makes
  `def disk_model(cfg)`'s `cfg` one), followed until nothing new is found.

A read is `P["key"]` (also as an assignment target), `P.get("key")` / `.pop` / `.setdefault`,
`"key" in P`, or `P.key` (a typed parameter object; a dict's own methods, `P.items()` and the like,
are not keys). `P[expr]` with a computed key is a read the finder cannot name: it is returned with
key None so that a test can refuse it rather than miss it.

A name bound once to a parameter dict and once to something else (a loop variable `p` over paths)
is not taken for one: the finder would rather miss such a read than invent one.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

#: the names the labs give their parameter dicts (`def plan(p: dict)`, `p = s.params`)
PARAM_NAMES = frozenset({"p", "params"})
#: annotations under which an argument named p is still the parameters
DICT_ANNOTATIONS = frozenset({"dict", "Mapping", "dict[str, object]", "dict[str, Any]", "Params"})
#: {function the framework calls: position of the parameters}; labcontract.py documents them
ENTRY_POINTS = {"plan": 0, "validate": 0, "sanity_context": 0}
#: a Check's value, bound and `only_if`/`unless` callables take (metrics, params)
CHECK_ARG = 1
KEY_METHODS = frozenset({"get", "pop", "setdefault"})
#: attributes of a parameter dict that are not parameters
DICT_ATTRS = frozenset(dir(dict))
SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Read:
    file: str
    line: int
    key: str | None   # None: a computed key
    text: str         # the expression, as written


@dataclass
class _Scope:
    node: ast.AST
    parent: "_Scope | None"
    bindings: dict[str, list] = field(default_factory=dict)   # name -> [bool (an argument) | ast.expr value | None]
    params: set[str] = field(default_factory=set)


def _const_str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_name(func: ast.AST) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


class _Finder:
    def __init__(self, trees: dict[str, ast.Module]):
        self.trees = trees
        self.defs: dict[str, list[ast.AST]] = {}
        for tree in trees.values():
            for n in ast.walk(tree):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.defs.setdefault(n.name, []).append(n)
        #: (function node) -> positions of its arguments that receive the parameters
        self.marked: dict[ast.AST, set[int]] = {}
        for name, pos in ENTRY_POINTS.items():
            for d in self.defs.get(name, []):
                self.marked.setdefault(d, set()).add(pos)
        for tree in trees.values():
            for n in ast.walk(tree):
                if isinstance(n, ast.Call) and _call_name(n.func) == "Check":
                    for a in [*n.args, *(k.value for k in n.keywords)]:
                        for fn in ([a] if isinstance(a, ast.Lambda) else self.defs.get(_call_name(a) or "", [])):
                            self.marked.setdefault(fn, set()).add(CHECK_ARG)
        self.self_attrs: dict[ast.ClassDef, set[str]] = {}

    # -- scopes -------------------------------------------------------------------------------
    def _args(self, fn: ast.AST) -> list[ast.arg]:
        a = fn.args
        return [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
                *([a.kwarg] if a.kwarg else [])]

    def _arg_is_params(self, fn: ast.AST, i: int, arg: ast.arg) -> bool:
        ann = ast.unparse(arg.annotation) if arg.annotation is not None else None
        if arg.arg in PARAM_NAMES and (ann is None or ann in DICT_ANNOTATIONS):
            return True
        return i in self.marked.get(fn, set())

    def _bind(self, scope: _Scope, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            scope.bindings.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            pair = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            for k, t in enumerate(target.elts):
                self._bind(scope, t, value.elts[k] if pair else None)
        elif isinstance(target, ast.Starred):
            self._bind(scope, target.value, None)

    def _collect(self, scope: _Scope) -> None:
        node = scope.node
        if isinstance(node, FUNCS):
            for i, a in enumerate(self._args(node)):
                scope.bindings.setdefault(a.arg, []).append(self._arg_is_params(node, i, a))
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for g in node.generators:
                self._bind(scope, g.target, None)
        todo = list(ast.iter_child_nodes(node))
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scope.bindings.setdefault(n.name, []).append(None)
                continue   # its body is a scope of its own (a class body: names nothing nested sees)
            if isinstance(n, SCOPES):
                continue
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    self._bind(scope, t, n.value)
            elif isinstance(n, (ast.AnnAssign, ast.NamedExpr)):
                self._bind(scope, n.target, n.value)
            elif isinstance(n, (ast.AugAssign, ast.For, ast.AsyncFor)):
                self._bind(scope, n.target, None)
            elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                self._bind(scope, n.optional_vars, None)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    scope.bindings.setdefault((a.asname or a.name).split(".")[0], []).append(None)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                scope.bindings.setdefault(n.name, []).append(None)
            todo.extend(ast.iter_child_nodes(n))

    def _resolve(self, scope: _Scope, cls: ast.ClassDef | None) -> None:
        """Which of the scope's names are parameter dicts: those whose every binding is one."""
        while True:
            now = {name for name, bs in scope.bindings.items()
                   if bs and all(b is True or (isinstance(b, ast.AST) and self.is_params(b, scope, cls)) for b in bs)}
            if now == scope.params:
                return
            scope.params = now

    # -- expressions --------------------------------------------------------------------------
    def _lookup(self, name: str, scope: _Scope | None) -> bool:
        while scope is not None:
            if name in scope.bindings:
                return name in scope.params
            scope = scope.parent
        return False

    def is_params(self, e: ast.AST, scope: _Scope, cls: ast.ClassDef | None) -> bool:
        if isinstance(e, ast.Name):
            return self._lookup(e.id, scope)
        if isinstance(e, ast.Attribute):
            if e.attr == "params":
                return True
            return (isinstance(e.value, ast.Name) and e.value.id == "self" and cls is not None
                    and e.attr in self.self_attrs.get(cls, set()))
        if isinstance(e, ast.Subscript):
            return _const_str(e.slice) == "params"
        if isinstance(e, ast.Call):
            name = _call_name(e.func)
            if name == "params_of":
                return True
            if name == "get" and e.args and _const_str(e.args[0]) == "params":
                return True
            return name == "dict" and len(e.args) == 1 and self.is_params(e.args[0], scope, cls)
        if isinstance(e, ast.BoolOp):
            return any(self.is_params(v, scope, cls) for v in e.values)
        return False

    # -- the walk -----------------------------------------------------------------------------
    def walk(self) -> tuple[list[Read], bool]:
        """(the reads, whether a call marked a function argument that was not marked before)."""
        reads: list[Read] = []
        grew = False
        for fname, tree in self.trees.items():
            self._classes(tree)
            stack: list[tuple[ast.AST, _Scope | None, ast.ClassDef | None]] = [(tree, None, None)]
            while stack:
                node, parent, cls = stack.pop()
                scope = _Scope(node, parent)
                self._collect(scope)
                self._resolve(scope, cls)
                for n in self._own_nodes(node):
                    if isinstance(n, ast.ClassDef):
                        stack += [(b, scope, n) for b in n.body if isinstance(b, FUNCS)]
                        continue
                    if isinstance(n, SCOPES) and n is not node:
                        stack.append((n, scope, cls))   # a nested function still sees the method's self
                        continue
                    r = self._read(fname, n, scope, cls)
                    if r:
                        reads.append(r)
                    if isinstance(n, ast.Call):
                        grew |= self._mark(n, scope, cls)
        return reads, grew

    def _own_nodes(self, node: ast.AST):
        """The nodes of this scope, and the roots of the scopes nested in it (not their insides)."""
        todo = list(ast.iter_child_nodes(node))
        while todo:
            n = todo.pop()
            yield n
            if not isinstance(n, (*SCOPES, ast.ClassDef)):
                todo.extend(ast.iter_child_nodes(n))

    def _classes(self, tree: ast.Module) -> None:
        """`self.X = <parameters>` in any method makes `self.X` the parameters in all of them."""
        for c in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            attrs = self.self_attrs.setdefault(c, set())
            for n in ast.walk(c):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        both = isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple)
                        for tt, v in (zip(t.elts, n.value.elts) if both else [(t, n.value)]):
                            if (isinstance(tt, ast.Attribute) and isinstance(tt.value, ast.Name)
                                    and tt.value.id == "self" and self.is_params(v, _Scope(c, None), c)):
                                attrs.add(tt.attr)

    def _read(self, fname: str, n: ast.AST, scope: _Scope, cls) -> Read | None:
        if isinstance(n, ast.Subscript) and self.is_params(n.value, scope, cls):
            return Read(fname, n.lineno, _const_str(n.slice), ast.unparse(n))
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in KEY_METHODS
                and n.args and self.is_params(n.func.value, scope, cls)):
            return Read(fname, n.lineno, _const_str(n.args[0]), ast.unparse(n))
        if (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn))
                and self.is_params(n.comparators[0], scope, cls)):
            return Read(fname, n.lineno, _const_str(n.left), ast.unparse(n))
        if (isinstance(n, ast.Attribute) and n.attr not in DICT_ATTRS and not n.attr.startswith("_")
                and self.is_params(n.value, scope, cls)):
            return Read(fname, n.lineno, n.attr, ast.unparse(n))
        return None

    def _mark(self, call: ast.Call, scope: _Scope, cls) -> bool:
        """A call of a lab function with the parameters as an argument marks that argument."""
        grew = False
        for fn in self.defs.get(_call_name(call.func) or "", []):
            args = [a.arg for a in self._args(fn)]
            shift = 1 if args[:1] == ["self"] and isinstance(call.func, ast.Attribute) else 0
            for i, a in enumerate(call.args):
                if not isinstance(a, ast.Starred) and self.is_params(a, scope, cls) and i + shift < len(args):
                    grew |= (i + shift) not in self.marked.setdefault(fn, set())
                    self.marked[fn].add(i + shift)
            for k in call.keywords:
                if k.arg in args and self.is_params(k.value, scope, cls):
                    grew |= args.index(k.arg) not in self.marked.setdefault(fn, set())
                    self.marked[fn].add(args.index(k.arg))
        return grew


def param_reads(sources: dict[str, str]) -> list[Read]:
    """Every parameter read in one lab's modules, {file name: source text}, in file and line order."""
    finder = _Finder({name: ast.parse(text, filename=name) for name, text in sources.items()})
    while True:   # a newly marked argument can make further calls pass the parameters on
        reads, grew = finder.walk()
        if not grew:
            return sorted(set(reads), key=lambda r: (r.file, r.line, r.key or "", r.text))


def unknown_keys(lab: str, sources: dict[str, str], schema: set[str]) -> list[str]:
    """'labs/<lab>/<file>:<line>: ...' for every read of a key the schema lacks, or that no one can name."""
    out = []
    for r in param_reads(sources):
        if r.key is None:
            out.append(f"labs/{lab}/{r.file}:{r.line}: a computed key ({r.text}): name the parameter")
        elif r.key not in schema:
            out.append(f"labs/{lab}/{r.file}:{r.line}: '{r.key}' is not a parameter of {lab} ({r.text})")
    return out
