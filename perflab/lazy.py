"""Modules imported when first used, not when a module that names them is imported.

`perflab heatmap` on a small log spent most of its time importing pandas, pyarrow and numba, which
it may not need at all (a histogram log is read without any of them). A module-level
``pd = lazy("pandas")`` keeps the name and defers the import to the first attribute looked up on it;
a submodule (``lazy("pyarrow.csv")``) defers its parent's import too. A module already imported is
returned as it is.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

__all__ = ["LazyModule", "lazy"]


class LazyModule:
    """A stand-in for the module `name`: each attribute looked up on it is the module's (imported
    the first time; later, Python's module cache answers)."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy(name: str) -> ModuleType | LazyModule:
    """The module `name` if it is imported already, else a stand-in that imports it on first use.
    A module whose top-level package is not installed is refused now, not at first use."""
    if name in sys.modules:
        return sys.modules[name]
    top = name.split(".")[0]
    if top not in sys.modules and importlib.util.find_spec(top) is None:
        raise ModuleNotFoundError(f"No module named {top!r}", name=top)
    return LazyModule(name)
