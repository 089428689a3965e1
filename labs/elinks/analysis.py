"""The elinks lab's numbers: the run's files read back (load), the server-side drill-down (by client,
operation, file), per-second counts, the desktop's network rates, and summary(), the metrics the
chapter and its checks read."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from perflab.run.record import read_lines

from .parsing import (FORMHIST, chain_in_order, function_names, parse_bpftrace, parse_net, parse_sftp_log,
                      parse_strace, parse_strace_stacks)

SETTLE_S = 2.0  # a phase's first seconds (start-up, the fixed program's one look) are left out


def window(req: pd.DataFrame, t0: float, t1: float) -> pd.DataFrame:
    return req[(req["t"] >= t0) & (req["t"] < t1)]


def drill_down(req: pd.DataFrame, t0: float, t1: float) -> dict:
    """The Analytics drill-down on the server's requests in [t0, t1): requests by client, the top
    talker; its requests by operation, the top one; that operation's requests by file, the top
    file; and the top file's rate: requests per second over the window (`rate`, as Analytics reads it) and
    the median of its whole seconds (`median_rate`: the statistic strace's and bpftrace's rates are, so the
    three vantage points are compared like for like: a second in which a tracer held the program up counts
    as one second, not as a lower mean; measured at 783199c on a machine short of memory, the stand-in
    made 29, 0, 0, 31 and 33 opens in five seconds against 63, and the window's mean fell to 52.6)."""
    w = window(req, t0, t1)
    dur = max(t1 - t0, 1e-9)
    by_client = w.groupby("client").size().sort_values(ascending=False)
    out = {"by_client": by_client, "seconds": dur, "client": None, "op": None, "file": None, "rate": 0.0,
           "median_rate": 0.0,
           "by_op": pd.Series(dtype=int), "by_file": pd.Series(dtype=int), "share": 0.0}
    if by_client.empty:
        return out
    top = int(by_client.index[0])
    mine = w[w["client"] == top]
    by_op = mine.groupby("op").size().sort_values(ascending=False)
    op = str(by_op.index[0])
    by_file = mine[mine["op"] == op].groupby("path").size().sort_values(ascending=False)
    path = str(by_file.index[0])
    n_file = int((mine["path"] == path).sum())
    per_s = counts_per_second(mine[mine["path"] == path]["t"], t0, t1)
    out.update(client=top, op=op, file=path, by_op=by_op, by_file=by_file, rate=n_file / dur,
               median_rate=float(per_s.median()) if len(per_s) else 0.0,
               share=float(by_client.iloc[0] / by_client.sum()))
    return out


def per_second(req: pd.DataFrame, t0: float) -> pd.DataFrame:
    """Requests per whole second since t0, one column per client (missing seconds are zero)."""
    if req.empty:
        return pd.DataFrame()
    sec = ((req["t"] - t0) // 1).astype(int)
    tab = req.assign(second=sec).groupby(["second", "client"]).size().unstack(fill_value=0)
    full = range(int(sec.min()), int(sec.max()) + 1)
    return tab.reindex(full, fill_value=0)


def counts_per_second(t: pd.Series, t0: float, t1: float) -> pd.Series:
    """Events per whole second of [t0, t1) (seconds with none count zero; a last partial second
    is left out)."""
    n = int((t1 - t0) // 1)
    sec = ((t[(t >= t0) & (t < t0 + n)] - t0) // 1).astype(int)
    return sec.value_counts().reindex(range(n), fill_value=0).sort_index()


def net_rates(net: pd.DataFrame, t0: float, t1: float) -> dict:
    """nicstat's columns over [t0, t1]: KiB/s read (received) and written (sent), packets/s."""
    w = net[(net["t"] >= t0) & (net["t"] <= t1)]
    if len(w) < 2:
        return {"rkib_s": None, "wkib_s": None, "rpk_s": None, "wpk_s": None}
    a, b = w.iloc[0], w.iloc[-1]
    dt = b["t"] - a["t"]
    return {"rkib_s": (b["rx_bytes"] - a["rx_bytes"]) / dt / 1024,
            "wkib_s": (b["tx_bytes"] - a["tx_bytes"]) / dt / 1024,
            "rpk_s": (b["rx_packets"] - a["rx_packets"]) / dt, "wpk_s": (b["tx_packets"] - a["tx_packets"]) / dt}


def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    tl = json.loads((data_dir / "timeline.json").read_text())
    k = tl["buggy_client"]
    cdir = data_dir / "clients" / f"desk{k}"
    req = parse_sftp_log(read_lines(data_dir / "server" / "sftp.log"), tl["clients"])
    bpf_lines = read_lines(cdir / "bpftrace.json")
    return {
        "timeline": tl,
        "requests": req,
        "strace": parse_strace(read_lines(cdir / "strace-openat.log")),
        "strace_fixed": parse_strace(read_lines(cdir / "strace-fixed.log")),
        "stacks": parse_strace_stacks(read_lines(cdir / "strace-stacks.log")),
        "bpftrace": parse_bpftrace(bpf_lines) if bpf_lines else None,
        "bpftrace_status": tl.get("tracing", {}).get("bpftrace", {}).get("status") or "not run",
        "net": {int(j): parse_net(read_lines(data_dir / "clients" / f"desk{j}" / "net.log")) for j in tl["clients"]},
        "program": read_lines(cdir / "elinks-standin.txt"),
    }


def windows(tl: dict) -> dict:
    """The steady parts of the two phases: each phase without its first SETTLE_S seconds."""
    (b0, b1), (f0, f1) = tl["phases"]["buggy"], tl["phases"]["fixed"]
    st = tl.get("settle_s", SETTLE_S)
    return {"buggy": (b0 + st, b1), "fixed": (f0 + st, f1)}


def summary(d: dict) -> dict:
    """The headline numbers of a run (the metrics in run.json)."""
    tl, req = d["timeline"], d["requests"]
    k = tl["buggy_client"]
    w = windows(tl)
    dd = drill_down(req, *w["buggy"])
    # before and after the fix: the buggy desktop's requests for its form-history file
    fh = req[(req["client"] == k) & (req["path"] == tl["formhist"])]
    before_rate = len(window(fh, *w["buggy"])) / (w["buggy"][1] - w["buggy"][0])
    after_rate = len(window(fh, *w["fixed"])) / (w["fixed"][1] - w["fixed"][0])
    fixed_phase_total = len(window(fh, *tl["phases"]["fixed"]))
    others = [j for j in map(int, tl["clients"]) if j != k]
    wb = window(req, *w["buggy"])
    other_rate = (float(wb[wb["client"].isin(others)].groupby("client").size().mean() / dd["seconds"])
                  if others and not wb.empty else 0.0)
    # client side: strace's failed opens of the form-history file, per second
    st = d["strace"]
    ta, tb = tl["tracing"]["strace_openat"]
    enoent = st[(st["err"] == "ENOENT") & st["path"].str.endswith(FORMHIST)] if not st.empty else st
    per_s = counts_per_second(enoent["t"], ta + 0.5, tb - 0.5) if not st.empty else pd.Series(dtype=int)
    # the server's requests for the file in strace's own seconds, one for one with strace's failed opens: a
    # tracer that holds the program up holds both up alike; a server that lost requests shows here
    n_strace = int(((enoent["t"] >= ta + 0.5) & (enoent["t"] < tb - 0.5)).sum()) if not st.empty else 0
    n_server = len(window(fh, ta + 0.5, tb - 0.5))
    # how long each of those opens took (strace -T): the machine's answer time, which caps the rate of a
    # program that waits for each open before its next redraw
    open_s = enoent["dur"].dropna() if not st.empty else pd.Series(dtype=float)
    sf = d["strace_fixed"]
    fixed_enoent = sf[(sf["err"] == "ENOENT") & sf["path"].str.endswith(FORMHIST)] if not sf.empty else sf
    stack = d["stacks"][0]["frames"] if d["stacks"] else []
    m = {
        "detected_client": dd["client"],
        "detected_op": dd["op"],
        "detected_file": dd["file"],
        "detected_rate": round(dd["rate"], 2),
        "detected_median_rate": round(dd["median_rate"], 1),
        "server_per_strace_open": round(n_server / n_strace, 4) if n_strace else None,
        "top_client_share": round(dd["share"], 3),
        "other_clients_rate": round(other_rate, 2),
        # requests per round of desktop work (save a note, read a document back): other_rate / work_rate
        "other_requests_per_work": round(other_rate / float(tl.get("work_rate", 1.0)), 2),
        "formhist_rate_before": round(before_rate, 2),
        "formhist_rate_after": round(after_rate, 3),
        "formhist_requests_fixed_phase": int(fixed_phase_total),
        "after_before_ratio": round(after_rate / before_rate, 5) if before_rate else None,
        "client_enoent_rate": round(float(per_s.median()), 1) if len(per_s) else None,
        "client_open_mean_ms": round(1000 * float(open_s.mean()), 3) if len(open_s) else None,
        "client_enoent_fixed_total": int(len(fixed_enoent)),
        "stack": " > ".join(reversed(function_names(stack))) if stack else None,
        "stack_chain_ok": chain_in_order(stack) if stack else False,
        "bpftrace": d["bpftrace_status"],
    }
    b = d["bpftrace"]
    if d["bpftrace_status"] == "ran" and b is not None:
        ps = b["per_second"]
        fh = ps[ps["path"].fillna("").str.endswith(FORMHIST)]
        m["bpftrace_rate"] = round(float(fh["count"].median()), 1) if len(fh) else None
        m["bpftrace_stack_chain_ok"] = bool(b["stacks"]) and chain_in_order(b["stacks"][0]["frames"])
    for phase in ("buggy", "fixed"):
        r = net_rates(d["net"][k], *w[phase])
        for key, v in r.items():
            m[f"net_{key}_{phase}"] = None if v is None else round(float(v), 2)
    return m
