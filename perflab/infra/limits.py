"""A CPU limit for every container a lab starts (`perflab run --cpus N`): a learner's laptop gives a
lab less CPU than this project's machine does, and the machine-conditions harness asks for that on
purpose. A container whose lab sets a CPU limit of its own keeps that one. The limit reaches infra in the run's options (perflab.config.options.RunOptions, read from run.json);
run.json's provenance names it.
"""
from __future__ import annotations

import os

from perflab.errors import Refused

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


def container_kwargs(kw: dict, limit: float | None) -> dict:
    """`kw` for docker's containers.run/create, with the run's CPU limit (None: none) unless the lab set one."""
    if limit is None or any(k in kw for k in ("nano_cpus", "cpu_quota", "cpu_period")):
        return kw
    return {**kw, "nano_cpus": int(limit * 1e9)}
