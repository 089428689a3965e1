"""The Debian releases the lab images can be built on (a module of its own so that the command
line names them without reading book.toml's machinery).

Their Dockerfiles name the first; another is chosen with `perflab run/images --suite` (environment:
PERFLAB_SUITE), and its images are tagged apart (perflab/fio:1-trixie), so that both can be on one
engine. References run on the first.
"""
from __future__ import annotations

SUITES = ("bookworm", "trixie")
SUITE_ENV = "PERFLAB_SUITE"
