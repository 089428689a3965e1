"""The cabling model: what each disk and the mirrored pool can write when a JBOD gets what its paths
carry and a chain's HBA is shared max-min fairly; which chains are asked for more than they carry.
It reads a run's timeline (or `layout(params)`, the same fields made from the parameters)."""
from __future__ import annotations

import pandas as pd

from .experiment import cabling, job_name

MiB = 1 << 20


def layout(p: dict) -> dict:
    """The timeline's fields that chain_needs and model_disk_mib_s read, made from the parameters as
    run() records them (the checks have a run's metrics and parameters, not its timeline)."""
    return {"disks_per_jbod": p["disks_per_jbod"], "disk_rate": p["disk_rate"], "path_bw": p["path_bw"],
            "chain_bw": p["chain_bw"],
            "phases": {ph: {"chains": c["chains"], "paths": {str(j): n for j, n in c["paths"].items()}}
                       for ph, c in cabling(p).items()}}


def model_disk_mib_s(tl: dict, phase: str, free_mib_s: float | None = None) -> dict[int, float]:
    """The cabling model: each disk's write rate (MiB/s) that the limits allow in a phase. A JBOD
    asks for disks x disk_rate, or what its paths carry if less; a chain's HBA shares chain_bw
    max-min fairly among its JBODs (a JBOD that asks for less than an equal share keeps what it
    asks, the rest is split among the others, as the blkio throttle of the shared chain device
    serves the writers queued on it). `free_mib_s`: what a disk that no limit holds back writes,
    if not the set disk_rate (free_disk_mib_s: fio's paced writers fall a little short of it)."""
    ph = tl["phases"][phase]
    D = tl["disks_per_jbod"]
    rate = tl["disk_rate"] if free_mib_s is None else min(tl["disk_rate"], free_mib_s * MiB)
    want = {int(j): min(D * rate, ph["paths"][str(j)] * tl["path_bw"]) for j in ph["paths"]}
    out = {}
    for chain in ph["chains"]:
        left, todo = float(tl["chain_bw"]), sorted(chain, key=lambda j: want[j])
        while todo:
            share = left / len(todo)
            j = todo.pop(0)
            got = min(want[j], share)
            out[j] = got / D / MiB
            left -= got
    return out


def free_disk_mib_s(disks: pd.DataFrame, tl: dict, phase: str) -> float | None:
    """The median write rate (MiB/s) the phase's free disks reached: those on JBODs that no path or
    chain limit holds below the set rate. fio paces each disk at disk_rate, and on a busy 2-core
    machine a paced writer falls a few percent short of it; the model takes that from the same run
    rather than assume the set rate. None when every disk is held back by a limit."""
    set_rate = tl["disk_rate"] / MiB
    free = [j for j, r in model_disk_mib_s(tl, phase).items() if r >= set_rate * (1 - 1e-9)]
    rates = disks[disks["jbod"].isin(free)]["mib_s"]
    return float(rates.median()) if len(rates) else None


def model_pool_mib_s(tl: dict, phase: str, free_mib_s: float | None = None) -> float:
    """The pool's write rate the cabling model predicts: each mirror at its slower side's rate."""
    rate = model_disk_mib_s(tl, phase, free_mib_s)
    jbod = {job_name(j, x): j for j in rate for x in range(1, tl["disks_per_jbod"] + 1)}
    return float(sum(min(rate[jbod[d]] for d in m) for m in tl["mirrors"]))


def chain_needs(tl: dict, phase: str, pace: float = 1.0) -> list[float]:
    """What each chain of the phase is asked for (bytes/s): each JBOD asks for disks x disk_rate, or
    less when its paths carry less. `pace`: the share of disk_rate the writers keep (1: the set rate;
    a run's free_disk_reached_*: the pace they kept)."""
    ph = tl["phases"][phase]
    per_jbod = pace * tl["disks_per_jbod"] * tl["disk_rate"]
    return [sum(min(per_jbod, ph["paths"][str(j)] * tl["path_bw"]) for j in chain) for chain in ph["chains"]]


def oversubscribed_jbods(tl: dict, phase: str, pace: float = 1.0) -> list[int]:
    """The JBODs on chains that the model says are asked for more than their HBA carries."""
    chains = tl["phases"][phase]["chains"]
    return sorted(j for chain, need in zip(chains, chain_needs(tl, phase, pace)) if need > tl["chain_bw"]
                  for j in chain)


def chain_oversubscribed(tl: dict, phase: str, pace: float = 1.0) -> bool:
    """The model's prediction: some chain in this phase is asked for more than its HBA carries."""
    return bool(oversubscribed_jbods(tl, phase, pace))
