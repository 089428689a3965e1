"""The elinks chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too):
- the drill-down (the top client, its busiest file) asks nothing of the machine's speed: the parameters
  decide it, open_rate against what a round of work_rate costs a working desktop (exercise 2 moves it);
- the rate the server and strace see asks that the machine answer a failed open, through sshfs, SSH
  and the server, in less than one redraw's time on average (1/open_rate: 16 ms at 63 a second). The
  stand-in redraws on an absolute schedule, so a busy or CPU-limited desktop makes up a delay of under a
  second; only opens slower than that lower its rate. Where the run's own strace -T times say the opens were
  that slow, the rate checks say "not shown here", with the mean time, and only when the lab did its
  part (the server logged what strace saw, for the right file). The rates are medians of whole seconds
  (a second in which a tracer held the program up is one second, not a lower mean); that the server saw
  every failed open is its own check, which asks nothing of the machine's speed: in strace's seconds the
  server logged the file's requests one for one with strace's failed opens;
- the stack asks for an strace that unwinds stacks (-k) in the desktop image, and the program's own
  frames, which it keeps (built with frame pointers and symbols);
- bpftrace's check asks for a kernel that lets bpftrace run in a container with SYS_ADMIN alone; where
  it cannot run, the check is not made (the chapter prints bpftrace's reason), and its rate asks what
  strace's does;
- "gone after the fix" is relative to the rate the same run measured before the fix.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .parsing import CHAIN, FORMHIST

RATE_PCT = 10          # "at that rate": within 10% of the set open_rate
ONE_FOR_ONE_PCT = 2    # "one for one": the server's requests within 2% of strace's failed opens (window edges)
GONE_SHARE = 0.01      # "gone": under 1% of the requests a second before the fix


def _formhist(m, p) -> str:
    return f"/home/desk{p['buggy_client']}/{FORMHIST}"


def _rate_band(m, p) -> tuple[float, float]:
    r = float(p["open_rate"])
    return r - RATE_PCT / 100 * r, r + RATE_PCT / 100 * r


def _agree(a, b) -> bool:
    """Two counts of the same opens agree: within RATE_PCT% of the second."""
    return a is not None and b is not None and b > 0 and abs(a - b) <= RATE_PCT / 100 * b


def _one_for_one(ratio) -> bool:
    return ratio is not None and abs(ratio - 1) <= ONE_FOR_ONE_PCT / 100


def _opens_too_slow(m, p) -> str | None:
    """The desktop's failed opens took so long here (their mean, timed by strace -T) that the stand-in,
    which waits for each before its next redraw, could not come within {RATE_PCT}% of its set rate; and
    the lab did its part: the server logged that file's requests at the rate strace saw, within {RATE_PCT}%."""
    mean_ms = m.get("client_open_mean_ms")
    if not mean_ms or mean_ms <= 0:
        return None
    cap, (lo, _) = 1000.0 / mean_ms, _rate_band(m, p)
    server, client = m.get("detected_median_rate"), m.get("client_enoent_rate")
    if cap >= lo or m.get("detected_file") != _formhist(m, p) or not _agree(server, client) \
            or not _one_for_one(m.get("server_per_strace_open")):
        return None
    return (f"the desktop's failed opens of the file took a mean {mean_ms:.1f} ms each on this machine (strace -T), "
            f"so the stand-in, which waits for each before its next redraw, could make at most {cap:.0f} a second, "
            f"under {lo:g} ({100 - RATE_PCT}% of the {float(p['open_rate']):g} set); the server counted {server:g}/s "
            f"and strace {client:g}/s: both saw what the program made")


def _bpftrace_opens_too_slow(m, p) -> str | None:
    """As for strace (the opens too slow for the set rate, the server and strace agreeing), when bpftrace
    counted the same rate as strace, within {RATE_PCT}%, and took its stack through the same chain."""
    if not m.get("bpftrace_stack_chain_ok") or not _agree(m.get("bpftrace_rate"), m.get("client_enoent_rate")):
        return None
    return _opens_too_slow(m, p)


def _bpftrace_rate(m, p):
    """bpftrace's rate, counted only when its stack runs through the same chain (else None: a fail)."""
    return m.get("bpftrace_rate") if m.get("bpftrace_stack_chain_ok") else None


def _bpftrace_shown(m, p):
    return m.get("bpftrace_rate") if m.get("bpftrace_stack_chain_ok") else f"{m.get('bpftrace_rate')}, another stack"


RATE_ASKS = ("a failed open answered (through sshfs, SSH and the server) in less than a redraw's time on average, "
             "1/open_rate: 16 ms at 63/s; the stand-in keeps an absolute schedule and makes up any delay under a "
             "second, so a busy or CPU-limited desktop need not lower its rate")

CHECKS = [
    Check("the top talker is the elinks desktop", "detected_client", "==", lambda m, p: p["buggy_client"],
          about="the drill-down's top client", bound_about="the desktop that runs the stand-in",
          asks="nothing of its speed: the parameters decide it (open_rate against what a round of work_rate costs "
               "a working desktop: exercise 2)"),
    Check("its busiest file is .elinks/formhist", "detected_file", "==", _formhist,
          about="the top client's busiest file", bound_about="its form-history file"),
    Check("the server sees the open rate", "detected_median_rate", "between", _rate_band, unit="requests/s",
          about="the server's median requests for that file a second", bound_about=f"open_rate ± {RATE_PCT}%",
          unless=_opens_too_slow, asks=RATE_ASKS),
    Check("the server logged every failed open strace saw", "server_per_strace_open", "between",
          lambda m, p: (1 - ONE_FOR_ONE_PCT / 100, 1 + ONE_FOR_ONE_PCT / 100),
          about="the server's requests for the file per failed open strace saw, in strace's seconds",
          bound_about=f"one for one, within {ONE_FOR_ONE_PCT}%",
          asks="nothing of its speed: a tracer that holds the program up holds both counts up alike"),
    Check("strace sees the failed opens at that rate", "client_enoent_rate", "between", _rate_band, unit="opens/s",
          about="strace's median failed opens of the file a second", bound_about=f"open_rate ± {RATE_PCT}%",
          unless=_opens_too_slow, asks=RATE_ASKS),
    Check("the stack runs from the LED timer to fopen", "stack_chain_ok", "==", True,
          about="strace -k's first stack passes through " + " > ".join(CHAIN) + ", in order",
          show=lambda m, p: "yes" if m["stack_chain_ok"] else m["stack"],
          asks="an strace that unwinds user stacks (-k) in the desktop image; the program keeps its own frames"),
    Check("bpftrace agrees on rate and stack", _bpftrace_rate, "between", _rate_band, unit="opens/s",
          about="bpftrace's median opens of the file a second, its stack through the same chain",
          bound_about=f"open_rate ± {RATE_PCT}%", show=_bpftrace_shown,
          only_if=lambda m, p: m.get("bpftrace") == "ran", unless=_bpftrace_opens_too_slow,
          asks="a kernel that lets bpftrace run in a container with SYS_ADMIN alone (else the check is not made "
               "and the chapter prints bpftrace's reason); its rate asks what strace's does"),
    Check("after the fix the requests are gone", "formhist_rate_after", "<",
          lambda m, p: GONE_SHARE * m["formhist_rate_before"], unit="requests/s",
          about="the server's requests a second for the file after the fix (before it: {formhist_rate_before})",
          bound_about=f"{GONE_SHARE:.0%} of the rate before the fix",
          asks="nothing of its speed: the bound is the run's own rate before the fix"),
]
