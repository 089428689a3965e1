"""The bad-cable run read back and its numbers: the server's per-client counters (nfs-client-stats),
the links' counters (links.log), fio's bandwidth logs and its results; per-second and per-phase
rates, the automatic call-out of the slowest client, the gain from the new cable, the cost of
per-client collection on unshaped links, and summary() (the metrics in run.json)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from perflab.fio import clients as fioclients
from perflab.run.record import read_lines

SETTLE_S = 3.0    # the first seconds of each phase (fio starting, TCP adjusting to a new rate) are left out


def expected_gain(n: int, ratio: float) -> float:
    """Throughput gain from the new cable if every link runs at its shaped rate: N-1 good links plus
    one at `ratio`, then N good links."""
    return (1 - ratio) / (n - 1 + ratio)


# ---------------------------------------------------------------------------------- parsing


def parse_ops(lines, ip_to_client: dict[str, int]) -> pd.DataFrame:
    """nfs-client-stats lines -> t, client, reads, read_bytes, writes, write_bytes, other (cumulative).
    Addresses are matched with or without the ::ffff: prefix; unknown addresses are dropped."""
    rows = []
    for line in lines:
        f = line.split()
        if len(f) != 7:
            continue
        ip = f[1].removeprefix("::ffff:")
        if ip not in ip_to_client:
            continue
        try:
            rows.append([float(f[0]), ip_to_client[ip]] + [int(x) for x in f[2:]])
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["t", "client", "reads", "read_bytes", "writes", "write_bytes", "other"])


def parse_links(lines) -> pd.DataFrame:
    """links.log lines -> t, client, tx_bytes, rx_bytes, tx_packets, rx_packets (cumulative; tx is
    toward the client; from HTB classes, rx is not known and is 0)."""
    rows = []
    for line in lines:
        f = line.split()
        if len(f) != 6:
            continue
        try:
            rows.append([float(f[0]), int(f[1])] + [int(x) for x in f[2:]])
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["t", "client", "tx_bytes", "rx_bytes", "tx_packets", "rx_packets"])


def parse_bw_log(lines) -> pd.DataFrame:
    """fio bandwidth log with log_unix_epoch: 'ms, KiB/s, ddir, bs, offset' -> t (s), bytes_s."""
    rows = []
    for line in lines:
        f = [x.strip() for x in line.split(",")]
        if len(f) < 3:
            continue
        try:
            rows.append([int(f[0]) / 1000.0, int(f[1]) * 1024.0])
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["t", "bytes_s"])


# ---------------------------------------------------------------------------------- analysis

def rates(counters: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per-second rates of a cumulative counter, one column per client, indexed by sample time
    (the time of the later sample of each pair). A counter that goes backwards (statistics reset)
    gives no rate for that pair."""
    out = {}
    for j, g in counters.sort_values("t").groupby("client"):
        dt = g["t"].diff()
        dv = g[column].diff()
        r = (dv / dt).where(dv >= 0)
        out[int(j)] = pd.Series(r.values, index=g["t"].round(0).values)
    df = pd.DataFrame(out)
    df = df[~df.index.duplicated()].sort_index()
    return df.iloc[1:] if len(df) else df


def counter_rate(counters: pd.DataFrame, column: str, t0: float, t1: float) -> pd.Series:
    """Each client's average rate of a cumulative counter over [t0, t1]: (last - first) / elapsed,
    from the samples inside the window (robust to a missed sample)."""
    out = {}
    for j, g in counters.groupby("client"):
        w = g[(g["t"] >= t0) & (g["t"] <= t1)].sort_values("t")
        if len(w) >= 2 and w["t"].iloc[-1] > w["t"].iloc[0]:
            out[int(j)] = (w[column].iloc[-1] - w[column].iloc[0]) / (w["t"].iloc[-1] - w["t"].iloc[0])
    return pd.Series(out, dtype=float).sort_index()


def find_outlier(per_client: pd.Series, threshold: float = 0.5) -> dict:
    """The automatic call-out: the client furthest below the others. Returns the client with the
    lowest rate, its rate, the median of the others, their ratio, and whether it is an outlier
    (ratio below `threshold`). With fewer than two clients there is nothing to compare."""
    pc = per_client.dropna()
    if len(pc) < 2:
        return {"client": None, "rate": None, "others_median": None, "ratio": None, "outlier": False}
    j = int(pc.idxmin())
    others = float(pc.drop(j).median())
    ratio = float(pc[j] / others) if others > 0 else None
    return {"client": j, "rate": float(pc[j]), "others_median": others, "ratio": ratio,
            "outlier": ratio is not None and ratio < threshold}


def windows(tl: dict) -> dict:
    """The steady part of each phase (without its first SETTLE_S seconds) and the cost windows."""
    st = tl.get("settle_s", SETTLE_S)
    w = {name: (a + st, b) for name, (a, b) in tl["phases"].items()}
    return w


def cost(links: pd.DataFrame, tl: dict) -> dict:
    """Throughput of all clients together (bytes/s the server sent, on the links) in each cost
    window; the cost of per-client collection = 1 - mean(on) / mean(off)."""
    rows = []
    for cw in tl.get("cost_windows", []):
        a, b = cw["t"]
        total = float(counter_rate(links, "tx_bytes", a, b).sum())
        rows.append({"collection": "on" if cw["collection"] else "off", "start": a, "bytes_s": total})
    df = pd.DataFrame(rows, columns=["collection", "start", "bytes_s"])
    if df.empty or not (df["collection"] == "on").any() or not (df["collection"] == "off").any():
        return {"windows": df, "cost": None, "spread": None}
    on = df[df["collection"] == "on"]["bytes_s"]
    off = df[df["collection"] == "off"]["bytes_s"]
    # the noise: how much windows of the same kind differ, relative to their mean
    spread = float(max(on.max() - on.min(), off.max() - off.min()) / df["bytes_s"].mean())
    return {"windows": df, "cost": float(1 - on.mean() / off.mean()), "spread": spread}


# ---------------------------------------------------------------------------------- loading

def load(data_dir: Path) -> dict:
    data_dir = Path(data_dir)
    tl = json.loads((data_dir / "timeline.json").read_text())
    ip_to_client = {c["ip"]: int(j) for j, c in tl["clients"].items()}
    ops = parse_ops(read_lines(data_dir / "server" / "ops.log"), ip_to_client)
    links = parse_links(read_lines(data_dir / "net" / "links.log"))
    bw = {int(j): parse_bw_log(read_lines(fioclients.log_path(data_dir / "fio", "client_bw.1.log", c["fio_host"])))
          for j, c in tl["clients"].items()}
    results = data_dir / "fio" / "clients.json"
    by_host = fioclients.read_results(results) if results.exists() else {}
    fio_json = {int(j): by_host[c["fio_host"]] for j, c in tl["clients"].items() if c["fio_host"] in by_host}
    return {"timeline": tl, "ops": ops, "links": links, "bw": bw, "fio": fio_json}


def ops_per_second(d: dict) -> pd.DataFrame:
    """Server-side NFS reads per second, by client (the Analytics statistic 'NFS operations by client')."""
    return rates(d["ops"], "reads")


def net_per_second(d: dict) -> pd.DataFrame:
    """Bytes per second the server sent to each client, on its link (host-side veth or HTB class)."""
    return rates(d["links"], "tx_bytes")


def summary(d: dict) -> dict:
    """The headline numbers of a run (the metrics in run.json)."""
    tl = d["timeline"]
    k, n, good, ratio = tl["bad_client"], len(tl["clients"]), tl["link_mbit"], tl["bad_ratio"]
    w = windows(tl)
    ops_bad = counter_rate(d["ops"], "reads", *w["bad cable"])
    ops_rep = counter_rate(d["ops"], "reads", *w["replaced"])
    net_bad = counter_rate(d["links"], "tx_bytes", *w["bad cable"])
    net_rep = counter_rate(d["links"], "tx_bytes", *w["replaced"])
    out = find_outlier(ops_bad)
    after = find_outlier(ops_rep)
    others = [j for j in net_bad.index if j != k]
    # how flat the outlier's rate is: the spread of its 1 s rates over the steady bad-cable window
    per_s = net_per_second(d)
    a, b = w["bad cable"]
    ks = per_s[(per_s.index > a) & (per_s.index <= b)].get(k)
    cv = float(ks.std() / ks.mean()) if ks is not None and len(ks.dropna()) >= 3 and ks.mean() > 0 else None
    rep_others = net_rep.median()
    net_rep_min = float(net_rep.min() / rep_others) if len(net_rep) >= 2 and rep_others > 0 else None
    net_ratio = float(net_bad[k] / net_bad[others].median()) if others and k in net_bad.index else None
    tot_bad, tot_rep = float(net_bad.sum()), float(net_rep.sum())
    fio_bad, fio_rep = fio_total(d["bw"], *w["bad cable"]), fio_total(d["bw"], *w["replaced"])
    c = cost(d["links"], tl)
    pks = [float(counter_rate(d["links"], "tx_packets", *cw["t"]).sum()) for cw in tl.get("cost_windows", [])]
    pk = float(np.mean(pks)) if pks else None
    return {
        "detected_outlier": out["client"],
        "outlier_ops_s": round(out["rate"], 1) if out["rate"] is not None else None,
        "others_median_ops_s": round(out["others_median"], 1) if out["others_median"] is not None else None,
        "outlier_ops_ratio": round(out["ratio"], 3) if out["ratio"] is not None else None,
        "replaced_min_ops_ratio": round(after["ratio"], 3) if after["ratio"] is not None else None,
        "outlier_mbit_s": round(float(net_bad[k]) * 8 / 1e6, 2) if k in net_bad.index else None,
        "outlier_link_mbit": round(good * ratio, 2),
        "others_median_mbit_s": round(float(net_bad[others].median()) * 8 / 1e6, 2) if others else None,
        "net_ratio": round(net_ratio, 3) if net_ratio is not None else None,
        "outlier_mbit_cv": round(cv, 4) if cv is not None else None,
        "replaced_min_net_ratio": round(net_rep_min, 3) if net_rep_min is not None else None,
        "total_mb_s_bad": round(tot_bad / 1e6, 2),
        "total_mb_s_replaced": round(tot_rep / 1e6, 2),
        "gain": round(tot_rep / tot_bad - 1, 4) if tot_bad else None,
        "gain_fio": round(fio_rep / fio_bad - 1, 4) if fio_bad else None,
        "expected_gain": round(expected_gain(n, ratio), 4),
        "one_over_n": round(1 / n, 4),
        "cost_total_mb_s_off": round(float(c["windows"][c["windows"]["collection"] == "off"]["bytes_s"].mean()) / 1e6, 1)
        if c["cost"] is not None else None,
        "cost_total_mb_s_on": round(float(c["windows"][c["windows"]["collection"] == "on"]["bytes_s"].mean()) / 1e6, 1)
        if c["cost"] is not None else None,
        "collection_cost": round(c["cost"], 4) if c["cost"] is not None else None,
        "collection_cost_spread": round(c["spread"], 4) if c["spread"] is not None else None,
        "cost_packets_s": round(float(pk)) if pk is not None else None,
    }


def fio_total(bw: dict, t0: float, t1: float) -> float:
    """All clients together by fio's own account: the sum over clients of the mean of each client's
    1 s bandwidth samples stamped inside (t0, t1]."""
    total = 0.0
    for df in bw.values():
        w = df[(df["t"] > t0) & (df["t"] <= t1)]
        if len(w):
            total += float(w["bytes_s"].mean())
    return total
