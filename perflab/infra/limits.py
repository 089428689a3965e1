"""A CPU limit for every container a lab starts (`perflab run --cpus N`): a learner's laptop gives a
lab less CPU than this project's machine does, and the machine-conditions harness asks for that on
purpose. The limit reaches the notebook's kernel through the environment (CPUS_ENV), as the seccomp
filter and the scratch directory do; a container whose lab sets a CPU limit of its own keeps that
one. run.json's provenance names it.
"""
from __future__ import annotations

import os

from perflab.errors import Refused

CPUS_ENV = "PERFLAB_CPUS"


def cpus() -> float | None:
    """The CPUs (a fraction allowed) each lab container may use, or None (no limit)."""
    v = os.environ.get(CPUS_ENV)
    return float(v) if v else None


def check(value: str) -> float:
    """`--cpus VALUE`: a number of CPUs above 0 and at most this machine's; refused otherwise."""
    n = os.cpu_count() or 1
    try:
        x = float(value)
    except ValueError:
        x = float("nan")
    if not 0.01 <= x <= n:
        raise Refused(f"--cpus {value}: allowed: a number of CPUs from 0.01 to {n} (this machine's)")
    return x


def container_kwargs(kw: dict) -> dict:
    """`kw` for docker's containers.run/create, with the chosen limit unless the lab set one."""
    limit = cpus()
    if limit is None or any(k in kw for k in ("nano_cpus", "cpu_quota", "cpu_period")):
        return kw
    return {**kw, "nano_cpus": int(limit * 1e9)}
