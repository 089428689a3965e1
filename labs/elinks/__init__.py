"""Lab `elinks` (chapter "Finding unnecessary work: the elinks bug", chapters/elinks.md).

Topology: one labelled, internal Docker network; on it a home-directory server (sshd serving SFTP,
every request logged through syslog to a listener that timestamps each line) and `clients`
desktops that mount their home directories from it with sshfs. The other desktops do modest
work (save a note, read a document back, `work_rate` times a second); desktop `buggy_client`
sits idle except for elinks-standin (labs/elinks/src/elinks_standin.c), which redraws its status
LEDs `open_rate` times a second and, on every redraw, tries to open ~/.elinks/formhist, a file
that does not exist.

Phases: `buggy` (`phase` seconds): the old program runs. One second in, strace attaches to count
its openat() calls and how long each took (`strace -f -ttt -T -e trace=openat -p PID`) and, in a separate tracer container,
bpftrace counts them by file name and takes the user stack at load_formhist_from_file
(labs/elinks/formhist.bt); near the end, `strace -k` records the stacks of a few calls. `fixed`
(`phase` seconds): the desktop runs the fixed program (`--fixed`: it remembers the file is
missing), started under strace.

Capabilities: the server keeps only what sshd uses (SERVER_CAPS); a desktop only SYS_ADMIN and
/dev/fuse, for its sshfs mount (strace needs nothing more: same user, same container); the tracer
only SYS_ADMIN (bpf, perf events and its own tracefs mount, in its own mount namespace) and the
host's PID namespace, which bpftrace needs to name the frames of a stack. Nothing is mounted on
the host and nothing runs privileged.

Files under the run directory:
  server/sftp.log                 every syslog line of the server: "<receive time> <syslog line>"
  clients/deskN/net.log           the desktop's eth0 counters each second (nicstat-like)
  clients/deskK/strace-openat.log openat() calls of the buggy program (strace -ttt -T: start, duration)
  clients/deskK/strace-stacks.log a few of them with their stacks (strace -k)
  clients/deskK/strace-fixed.log  openat() calls of the fixed program, from its start
  clients/deskK/bpftrace.json     bpftrace's output (-f json), bpftrace.stderr.txt its messages
  clients/deskK/elinks-standin.txt the programs' own summary lines (redraws, fopen calls)
  timeline.json                   clients (number, host, IP), phase times, tracing windows, status
  latency/openat.trace            the buggy program's openat() calls as "time_ns latency_ns" lines (the
                                  bpftrace trace form): what `perflab compare` maps against the reference
load() reads them back, from a live run or the reference run.

    experiment.py   plan(), run(): the server, the desktops, the stand-in under strace and bpftrace (the tool)
    parsing.py      the parsers of those files, and bpftrace_status (did bpftrace give what the chapter needs)
    analysis.py     load(), the drill-down, summary(): the numbers
    figures.py      the chapter's figures, and stacks printed as DTrace printed them
    checks.py       CHECKS: the chapter's claims, each declared once

The parsers and the drill-down are tested on synthetic lines in tests/test_elinks.py, the checks in
tests/test_elinks_checks.py.
"""

from .analysis import (SETTLE_S, counts_per_second, drill_down, load, net_rates, per_second, summary, window,
                       windows)
from .checks import CHECKS
from .experiment import DESKTOP_CAPS, SERVER_CAPS, STACK_SAMPLE_S, plan, run
from .figures import (client_opens_per_second, fig_bars, fig_client_opens, fig_network, fig_requests_per_second,
                      stack_text)
from .parsing import (CHAIN, FORMHIST, bpftrace_status, chain_in_order, function_names, openat_trace, parse_bpftrace,
                      parse_net, parse_sftp_log, parse_strace, parse_strace_stacks, parse_syslog_line)

__all__ = ["CHAIN", "CHECKS", "DESKTOP_CAPS", "FORMHIST", "SERVER_CAPS", "SETTLE_S", "STACK_SAMPLE_S",
           "bpftrace_status", "chain_in_order", "client_opens_per_second", "counts_per_second", "drill_down",
           "fig_bars", "fig_client_opens",
           "fig_network", "fig_requests_per_second", "function_names", "load", "net_rates", "openat_trace",
           "parse_bpftrace", "parse_net", "parse_sftp_log", "parse_strace", "parse_strace_stacks",
           "parse_syslog_line", "per_second", "plan", "run", "stack_text", "summary", "window", "windows"]
