"""The bad-cable chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too):
- the call-out, the bad cable's share of the bytes and the gain from the new cable need the links, not
  the machine, to set the clients' rates: a server and clients that fill every good link (100 Mbit/s
  each by default). A busy CPU or a CPU limit on the containers can hold the good clients below their
  links; the bad client, a tenth of the rate, still fills its own. The run measures what the machine
  serves with no link limit at all (the cost windows, on the same link counters), so where the good
  clients got under LINKS_FULL of their links yet at least MACHINE_SHARE of what the machine served a
  client unshaped, these checks say "not shown here", with both rates, and only when the lab did its
  part: the bad cable held its client at its link's rate (and, for the gain, after the new cable no
  client's bytes stood out);
- the bad client's flat rate asks for its link's few Mbit/s and link counters read once a second; the
  run does not measure how late the sampler read them, so it has no "not shown here";
- "no client stands out" after the new cable asks the server to share evenly among equal clients; the
  run does not measure what would make it uneven (each client's CPU time), so it has no "not shown here".
None asks anything of the disk: the clients read one file from the server's page cache. The server's
per-client counters come from the ganesha image (nfs-client-stats over D-Bus): an image whose ganesha
answers otherwise (a Debian 13 image has Ganesha 6) leaves the operations uncounted, and the checks
that read them fail: the lab, not the machine, did not do its part.
The collection cost is shown beside its noise in the chapter and not checked.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

OUTLIER_BELOW = 0.5        # the call-out: the slowest client under half the others' median
NET_RANGE = (0.5, 1.5)     # the bad client's bytes / the others', in units of bad_ratio
GAIN_RANGE = (0.5, 2)      # the new cable's gain, in units of 1/N
AT_LIMIT = (0.8, 1.02)     # "just under its link's limit": the bad client's rate / its link's
FLAT_CV = 0.1              # "flat": its 1 s rates' standard deviation / mean
EVEN_MIN = 0.75            # "no client stands out": the slowest at least this share of the others' median
LINKS_FULL = 0.9           # links are "full" at this share of their rate
MACHINE_SHARE = 0.8        # clients got "what the machine serves" at this share of its unshaped rate


def _clients(m) -> int:
    """N, from the run's 1/N (rounded to 4 places: exact below 100 clients)."""
    return round(1 / m["one_over_n"])


def _at_limit(m) -> float | None:
    v, lim = m.get("outlier_mbit_s"), m.get("outlier_link_mbit")
    return v / lim if v is not None and lim else None


def _bad_cable_held(m) -> bool:
    """The lab did its part: the bad cable held its client at its link's rate (AT_LIMIT of it)."""
    x = _at_limit(m)
    return x is not None and AT_LIMIT[0] <= x <= AT_LIMIT[1]


def _machine_mbit(m) -> float | None:
    """All clients together with no link limit (the cost windows' link counters), in Mbit/s: the larger
    of the means with per-client collection off and on."""
    got = [v for v in (m.get("cost_total_mb_s_off"), m.get("cost_total_mb_s_on")) if v is not None]
    return max(got) * 8 if got else None


def _machine_held_the_good_clients(m, p) -> str | None:
    """The good clients received under {LINKS_FULL:.0%} of their links' rate in the bad-cable phase, yet at least
    {MACHINE_SHARE:.0%} of what this machine served a client with no link limit (the cost windows): the machine, not
    the links, set their rate (and the lab did its part: the bad cable held its client at its link's rate)."""
    mach, others = _machine_mbit(m), m.get("others_median_mbit_s")
    if not _bad_cable_held(m) or mach is None or others is None:
        return None
    link, per_client = p["link_mbit"], mach / _clients(m)
    if others >= LINKS_FULL * link or others < MACHINE_SHARE * per_client:
        return None
    return (f"the good clients received a median {others:,.1f} Mbit/s of their {link:g} Mbit/s links "
            f"({others / link:.0%}), while the bad client filled its {m['outlier_link_mbit']:g} Mbit/s; with no link "
            f"limit at all this machine served {per_client:,.1f} Mbit/s a client: the machine, not the links, held "
            f"the good clients, so the bad cable's share is not the links' ratio")


def _machine_held_the_named_client(m, p) -> str | None:
    """The good clients received under {LINKS_FULL:.0%} of their links' rate in the bad-cable phase, yet at least
    {MACHINE_SHARE:.0%} of what this machine served a client with no link limit (the cost windows): the machine, not
    the links, set their rate (and the lab did its part: the bad cable held its client at its link's rate, and
    the call-out named that client, only not under {OUTLIER_BELOW:.0%} of the others)."""
    return _machine_held_the_good_clients(m, p) if m.get("detected_outlier") == p["bad_client"] else None


def _machine_capped_the_total(m, p) -> str | None:
    """After the new cable the clients together received under {LINKS_FULL:.0%} of their links' rate, yet at least
    {MACHINE_SHARE:.0%} of what this machine served them with no link limit (the cost windows): the machine capped
    the total, not the links (and the lab did its part: the bad cable held its client at its link's rate, and
    after the new cable no client's bytes stood out)."""
    mach, total = _machine_mbit(m), m.get("total_mb_s_replaced")
    even = m.get("replaced_min_net_ratio")
    if not _bad_cable_held(m) or even is None or even < EVEN_MIN or mach is None or total is None:
        return None
    n, link, got = _clients(m), p["link_mbit"], total * 8
    if got >= LINKS_FULL * n * link or got < MACHINE_SHARE * mach:
        return None
    return (f"after the new cable the {n} clients received {got:,.0f} Mbit/s in all, {got / (n * link):.0%} of their "
            f"{n} x {link:g} Mbit/s links, and with no link limit at all this machine served {mach:,.0f} Mbit/s: the "
            f"machine, not the links, capped the total, so the new cable could not add its link's worth")


def _called_out(m, p) -> bool:
    r = m.get("outlier_ops_ratio")
    return m.get("detected_outlier") == p["bad_client"] and r is not None and r < OUTLIER_BELOW


def _flat_at_limit(m, p) -> bool:
    x, cv = _at_limit(m), m.get("outlier_mbit_cv")
    return x is not None and cv is not None and AT_LIMIT[0] <= x <= AT_LIMIT[1] and cv <= FLAT_CV


def _show_call_out(m, p) -> str:
    r = m.get("outlier_ops_ratio")
    return f"{m.get('detected_outlier')} at {r:.0%} of the others" if r is not None else "no client to compare"


def _show_flat(m, p) -> str:
    x, cv = _at_limit(m), m.get("outlier_mbit_cv")
    if x is None or cv is None:
        return "not measured"
    return f"{x:.3f} of the limit, varying {cv:.1%}"


LINKS = ("a server and clients that fill every good link (link_mbit each), not held below it by a busy CPU or a "
         "CPU limit")

CHECKS = [
    Check("the automatic call-out names the bad client", _called_out, "==", True,
          about=f"the slowest client by NFS reads in the bad-cable phase is bad_client, under {OUTLIER_BELOW:.0%} of "
                "the others' median",
          show=_show_call_out, unless=_machine_held_the_named_client,
          asks="a server and clients that serve each good client at least twice the bad link's rate "
               "(bad_ratio x link_mbit), not held below it by a busy CPU or a CPU limit"),
    Check("the outlier's network rate is about bad_ratio of the others'", "net_ratio", "between",
          lambda m, p: (NET_RANGE[0] * p["bad_ratio"], NET_RANGE[1] * p["bad_ratio"]),
          about="the bad client's Mbit/s / the others' median",
          bound_about=f"{NET_RANGE[0]:g} to {NET_RANGE[1]:g} x bad_ratio", unless=_machine_held_the_good_clients,
          asks=LINKS),
    Check("the new cable's gain is about 1/N", "gain", "between",
          lambda m, p: (GAIN_RANGE[0] / _clients(m), GAIN_RANGE[1] / _clients(m)),
          about="total after the new cable / before, less 1 (link counters)",
          bound_about=f"{GAIN_RANGE[0]:g}/N to {GAIN_RANGE[1]:g}/N", unless=_machine_capped_the_total,
          asks="a server and clients that fill every link after the new cable (N x link_mbit in all), not held "
               "below them by a busy CPU or a CPU limit"),
    Check("the outlier's network rate sits flat just under its link's limit", _flat_at_limit, "==", True,
          about=f"the bad client's Mbit/s between {AT_LIMIT[0]:g} and {AT_LIMIT[1]:g} of its link's rate, its "
                f"1 s rates within {FLAT_CV:.0%} (std / mean)",
          show=_show_flat,
          asks="the bad link's rate (bad_ratio x link_mbit) from the server, and the link counters read once a "
               "second: a sampler held up between its time stamp and its reading blurs the 1 s rates"),
    Check("after the new cable no client stands out", "replaced_min_ops_ratio", ">=", EVEN_MIN,
          about="the slowest client's NFS reads / the others' median, after the new cable",
          asks="a server that shares its reads evenly among equal clients (on full links the links do it)"),
    Check("after the new cable no client's bytes stand out", "replaced_min_net_ratio", ">=", EVEN_MIN,
          about="the slowest client's Mbit/s / the others' median, after the new cable",
          asks="a server that shares its bytes evenly among equal clients, as above"),
]
