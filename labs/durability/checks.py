"""The durability chapter's claims, each declared once (perflab.analysis.checks).

What each asks of the machine (the chapter's "What each check asks of the machine" table says it too):
- the losses, the survivors, the files' ends and the scrub ask nothing of its speed: which acknowledged
  writes the import found follows from how ZFS writes (transaction groups, the intent log and its
  replay at import), not from how fast the machine is;
- the latency check compares the two writers' medians from the same run: a slower disk or a busier
  CPU slows both, and an O_DSYNC write still waits for the log device on top of an ordinary write's work;
- timing: the kill must come while both writers are writing, each writer's last acknowledged write
  at most KILL_GAP_S before it. A machine that held a write back that long just before the kill (a
  stalled disk, a container starved of CPU) fails it. The run does not record the write in flight at
  the kill (fio logs a write when it completes), so it cannot tell a held-up write from writers that
  had stopped, and this check has no "not shown here". No other check has one either: none depends
  on the machine's speed.
"""
from __future__ import annotations

from perflab.analysis.checks import Check

from .experiment import BS, JOBS

KILL_GAP_S = 1.0    # each writer's last acknowledged write at most this long before the kill
SYNC_COST = 1       # the median O_DSYNC write over the median ordinary one: more than this


def _kill_gaps(m) -> list[float]:
    """Seconds from each writer's last acknowledged write to the kill."""
    return [m["kill_s"] - m[f"{j}_last_ack_s"] for j in JOBS]


CHECKS = [
    Check("the kill came while both writers were writing", lambda m, p: max(_kill_gaps(m)), "<=", KILL_GAP_S,
          unit="s", about="the longer of the two writers' times from its last acknowledged write to the kill",
          show=lambda m, p: [round(g, 3) for g in _kill_gaps(m)],
          asks=f"timing: each writer's writes still completing within {KILL_GAP_S:g} s of the kill "
               "(a write held up longer than that just before the kill fails it)"),
    Check("ordinary writes: some acknowledged writes are lost", "async_lost", ">", 0,
          about="ordinary writes acknowledged, then not found after the import",
          asks="nothing of its speed: writers still writing at the kill (the check above), so that some "
               "writes were acknowledged after the last transaction group that reached the pool's files"),
    Check("ordinary writes: the lost ones are the newest, and the file ends where the survivors end",
          lambda m, p: bool(m["async_lost_are_newest"] and m["async_file_is_survivors"]), "==", True,
          about=f"both: every lost write acknowledged after every survivor; file size = survivors x {BS // 1024} KiB",
          show=lambda m, p: [m["async_lost_are_newest"], m["async_file_is_survivors"]]),
    Check("O_DSYNC writes with a log device: none lost", "dsync_lost", "==", 0,
          about="O_DSYNC writes acknowledged, then not found after the import"),
    # the chapter says each file ends where its surviving writes end: the O_DSYNC file too, but for
    # one write: the one in flight when the kill came may be in the log and replayed though fio never
    # heard back (nothing wrong then, so the check allows it)
    Check("O_DSYNC writes: the file ends where the survivors end, or one write past them",
          lambda m, p: 0 <= m["dsync_blocks_past_survivors"] <= 1, "==", True,
          about=f"file size after the import - surviving O_DSYNC writes x {BS // 1024} KiB = 0 or one write "
                "(the one in flight at the kill, if the log held it)",
          show=lambda m, p: m["dsync_blocks_past_survivors"]),
    Check("O_DSYNC writes after the last transaction group came back (the intent log was replayed)",
          lambda m, p: m["dsync_after_last_txg"] > 0
          and m["dsync_after_last_txg_survived"] == m["dsync_after_last_txg"], "==", True,
          about="both: some O_DSYNC writes issued after the first lost ordinary write was (so after the last "
                "transaction group closed); all of them found",
          show=lambda m, p: [m["dsync_after_last_txg"], m["dsync_after_last_txg_survived"]]),
    Check("the pool is consistent after the import: a scrub finds no errors",
          lambda m, p: bool(m["scrub_clean"] and m["pool_errors_none"]), "==", True,
          about="both: zpool scrub completed with 0 errors; no known data errors",
          show=lambda m, p: [m["scrub_clean"], m["pool_errors_none"]]),
    Check("the synchronous writes cost more latency", "latency_ratio", ">", SYNC_COST, unit="x",
          about="median O_DSYNC write / median ordinary write",
          asks="nothing of its speed: both medians come from the same run, and an O_DSYNC write waits for "
               "the log device on top of an ordinary write's work"),
]
