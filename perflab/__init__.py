"""perflab: the package behind the book's runnable labs.

Each module has one job; the chapter that explains a module is named in its docstring.
"""
__version__ = "0.1.0"
