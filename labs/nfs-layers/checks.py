"""The nfs-layers chapter's claims, each declared once (perflab.analysis.checks).

What they ask of the machine (the chapter's audit table says it too):
- nothing of its speed, for the counts: one fsync per write at the server, the server's writes one for
  one with the client's, the flushes and log writes per write (where ZFS sends its commits);
- CPU, for the share of the client's time outside the server's file system: the network between the
  containers is a veth pair on one host, and the time outside is the CPUs' (libnfs, the kernel's TCP,
  NFS-Ganesha's RPC handling), not a wire's. Before the log device the file system takes milliseconds
  (the emulated disks' flushes) and that time is small beside it; after it, the file system takes a
  fraction of a millisecond and the time outside weighs more. A slow or busy machine makes the time
  outside longer in both phases; the checks ask that it stay under a fifth of the "before" median, that
  its share grow, and that it be shorter at the "after" phase's higher rate (measured here under every
  condition of `perflab conditions`: a third of the "before" time or less; why was not measured);
- timing precision: slowdisk woken on time at the end of each flush (the server's time against the
  flushes it waits for).
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .analysis import SLOW_MS

SAME = (0.97, 1.03)          # the server's writes per client write, in each phase (a window's edges)
STABLE = (0.99, 1.01)        # the server's fsyncs per write
INSIDE_BEFORE = 0.8          # before: the server's file system's share of the client's median, at least
GROWTH = 2.0                 # the share outside the file system, after over before: at least
FLUSHES_BEFORE = (1.8, 2.5)  # before: data-disk cache flushes per write (one per side of a mirror, and the txgs')
SERIAL = (0.9, 1.5)          # before: the server's median over (flushes per write x a flush's median)
LOG_WRITES = (0.8, 1.5)      # after: log-device writes per write (the logzilla lab's band)
FLUSHES_AFTER = 0.1          # after: data-disk cache flushes per write, at most
GAIN_SERVER = 5.0            # the server's median, before over after: at least
GAIN_CLIENT = 5.0            # fio's median, before over after: at least
SLOW_MATCHED = 0.8           # the share of fio's stalls (writes of SLOW_MS or more) during which one of the
#                              server's ran: at least
SLOW_AT_FLUSH = 0.8          # after the log device, the share of the server's stalls that waited with a
#                              data-disk flush: at least (before it every write waits for two: no test there)
CHANCE_X = 3.0               # ... and at least this many times the share an interval as long, placed at random
#                              in the window, would have: the commits' flushes must explain the stalls, not
#                              merely fall in them (long stalls catch a flush more often by chance)
SLOW_N = 3                   # ... checked where the run had at least this many

CPU = "CPU: "
CHECKS = [
    Check("the writes are stable: the server fsyncs each one before it answers", "fsyncs_per_write", "between",
          STABLE, about="fsync calls per pwritev call of the NFS server, over the whole run (the tracer's counts)"),
    Check("the server's file system served the client's writes one for one, before the log device",
          "server_per_client_before", "between", SAME,
          about="writes the tracer saw end at the server per write fio completed, in the same window"),
    Check("... and after it, one for one too", "server_per_client_after", "between", SAME,
          about="as before, in the window after the log device was added"),
    Check("the client waits longer than the server's file system, before the log device", "outside_us_before", ">", 0,
          unit="us", about="fio's median write minus the server's median stable write (us)"),
    Check("... and after it, longer too", "outside_us_after", ">", 0, unit="us",
          about="as before, after the log device was added (us)"),
    Check("before the log device, the client's time is the server's file system's",
          lambda m, p: round(1 - m["outside_share_before"], 3), ">=", INSIDE_BEFORE,
          about="the server's median stable write over fio's median write, before",
          asks=CPU + "the time outside the file system (libnfs, TCP over a veth, the server's RPC handling) "
                     f"under {1 - INSIDE_BEFORE:.0%} of the milliseconds the emulated disks' flushes take"),
    Check("with the log device, the time outside the file system weighs more", "outside_growth", ">=", GROWTH,
          unit="x", about="the share of fio's median spent outside the server's file system, after over before",
          asks=CPU + "the time outside the file system no longer in proportion to the file system's; a CPU "
                     "limit that stretched both alike would fail it"),
    Check("the time outside the file system is shorter at the higher rate, with the log device",
          "outside_us_after", "<", "outside_us_before", unit="us",
          about="fio's median write minus the server's median stable write, after (us)",
          bound_about="the same before the log device (outside_us_before)",
          asks=CPU + "the client's and the server's threads served sooner when the writes come faster (why was "
                     "not measured): a machine whose CPUs answer a rare request as fast as a frequent one would "
                     "not show it"),
    Check("fio's median write falls several times with the log device", "gain_client", ">=", GAIN_CLIENT, unit="x",
          about="fio's median write, before over after",
          asks=CPU + "the time outside the file system (a fraction of a millisecond) small beside the flushes "
                     "the log device saves"),
    Check("the server's file system gains several times from the log device", "gain_server", ">=", GAIN_SERVER,
          unit="x", about="the server's median stable write, before over after",
          asks=CPU + "zfs-fuse's work for a commit (a fraction of a millisecond here) small beside the flushes "
                     "it saves"),
    Check("before the log device, each write costs the data disks two cache flushes, one per side of a mirror",
          "disk_flushes_per_write_before", "between", FLUSHES_BEFORE,
          about="cache flushes the data disks received per write fio completed, before"),
    Check("before the log device, the server's time is the disks' flushes, one after another",
          "server_vs_flushes_before", "between", SERIAL,
          about="the server's median stable write over (flushes per write x a flush's median), before",
          asks="timing precision: slowdisk woken on time at each flush's end; a flush's time is the model's"),
    Check("after it, the log device takes the commits: about one log write per write",
          "log_writes_per_write_after", "between", LOG_WRITES,
          about="writes the log device received per write fio completed, after"),
    Check("after it, the data disks are almost never flushed for a write", "disk_flushes_per_write_after", "<=",
          FLUSHES_AFTER, about="cache flushes the data disks received per write fio completed, after"),
    Check("the client's stalls are the server file system's", "slow_matched", ">=", SLOW_MATCHED,
          about=f"the share of fio's writes of {SLOW_MS:g} ms or more, both windows, during which one of the "
                f"server's stable writes of {SLOW_MS:g} ms or more ran",
          show=lambda m, p: f"{round(m['slow_matched'] * m['slow_client'])} of {m['slow_client']}",
          only_if=lambda m, p: m["slow_client"] >= SLOW_N),
    Check("after the log device, the server's stalls waited with a transaction group's flushes",
          "slow_at_flush_after", ">=", lambda m, p: max(SLOW_AT_FLUSH, CHANCE_X * m["flush_chance_after"]),
          about=f"the share of the server's stable writes of {SLOW_MS:g} ms or more, after the log device was "
                "added, during which a data disk's cache flush ended (before it, every write waits for flushes)",
          bound_about=f"the higher of {SLOW_AT_FLUSH:g} and {CHANCE_X:g} x flush_chance_after, the share an interval "
                      "as long as a stall, placed at random in the window, would have",
          show=lambda m, p: (f"{round(m['slow_at_flush_after'] * m['slow_server_after'])} of "
                             f"{m['slow_server_after']} stalls (by chance: {100 * m['flush_chance_after']:.0f}%)"),
          only_if=lambda m, p: m["slow_server_after"] >= SLOW_N),
]
