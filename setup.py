"""The one thing pyproject.toml cannot say yet: the compiled scanner of fio's per-I/O logs.

Optional: where no C compiler or Python headers are at hand the package installs without it and
reads per-I/O logs with pyarrow's CSV reader instead (slower; `perflab doctor` says which is used).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("perflab.fio._scan", ["perflab/fio/_scan.c"],
                             extra_compile_args=["-O3"], optional=True)])
