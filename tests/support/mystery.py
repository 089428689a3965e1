"""A student's answers to a mystery lab, read from the evidence the executed notebook shows."""
from __future__ import annotations


def bad_cable_answers(nb: dict) -> dict:
    """bad-cable: the per-client table (its text output): the client with the fewest NFS reads/s is
    behind the bad cable; its Mbit/s against the other clients' median is the link's fraction."""
    table = next(o["data"]["text/plain"] for c in nb["cells"] for o in c.get("outputs", [])
                 if "NFS reads/s" in "".join(o.get("data", {}).get("text/plain", "")))
    rows = [ln.split() for ln in "".join(table).splitlines()[1:] if ln.startswith("client")]
    reads = {int(x[0].removeprefix("client")): float(x[1]) for x in rows}
    mbit = {int(x[0].removeprefix("client")): float(x[2]) for x in rows}
    bad = min(reads, key=reads.get)
    others = sorted(v for j, v in mbit.items() if j != bad)
    return {"bad_client": bad, "bad_client_reads_s": reads[bad], "bad_client_mbit_s": mbit[bad],
            "bad_link_fraction": round(mbit[bad] / others[len(others) // 2], 2)}
