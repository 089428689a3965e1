"""One error model for everything perflab reports to a user (the bottom layer: imports nothing).

Every failure a user can meet is a `PerflabError`: its message is what the user reads (the first
line on the terminal, the whole of it in the log), and its class says the documented exit status:

    0    complete, every check passed
    1    a check failed (CheckFailed)
    2    refused before anything was created: a bad parameter, lab, book.toml table, input file (Refused)
    3    the run (or the command) failed: a container, an image build, the engine (Failed)
    130  interrupted (cleaned up; a run's run.json marked incomplete)

`perflab.cli` maps every exception to one of these with one line on stderr and never a traceback;
tracebacks and long messages go to the run's log or to data/runs/perflab-errors.log.
"""
from __future__ import annotations

EXIT_OK, EXIT_CHECK, EXIT_REFUSED, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class PerflabError(Exception):
    """Base of every error perflab reports to a user."""
    exit_status = EXIT_FAILED


class Refused(PerflabError):
    """Refused before anything was created (parameters, names, inputs, book.toml): exit 2."""
    exit_status = EXIT_REFUSED


class Failed(PerflabError):
    """Something perflab started did not work (a container, an image build, the engine): exit 3."""
    exit_status = EXIT_FAILED


class CheckFailed(PerflabError, AssertionError):
    """A check of a run does not hold (in the book: a reference run's; the build fails): exit 1."""
    exit_status = EXIT_CHECK


class Failure(Failed):
    """A failure named by its cause, where it was caught (never guessed from a message's text): its
    `kind`, `where` it happened, and the one line a user reads (what happened, then what to do).
    It crosses the process boundary as run.json's `failure` ({"kind", "where", "message"})."""
    kind = "failed"

    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.where = where

    def record(self) -> dict:
        """run.json's `failure` field."""
        return {"kind": self.kind, "where": self.where, "message": str(self)}


class DiskFull(Failure):
    """A disk filled up: OSError ENOSPC on the host, or fio's error 28 (ENOSPC) in a container."""
    kind = "disk-full"

    def __init__(self, where: str, free_mib: int | None = None):
        free = f" ({free_mib:,} MiB free)" if free_mib is not None else ""
        super().__init__(where, f"the disk holding {where} filled up{free}: free space on it, then `perflab clean`")


class EngineLost(Failure):
    """The Docker engine went away or hung mid-request (a connection error, a reply cut short)."""
    kind = "engine-lost"

    def __init__(self, where: str, detail: str = ""):
        why = f" ({detail[:200]})" if detail else ""
        super().__init__(where, f"the Docker engine stopped answering during {where}{why}: start it again "
                                "(`make setup` starts dockerd), then `perflab clean`")


class OomKilled(Failure):
    """A container ran out of memory and the kernel killed it (Docker's State.OOMKilled)."""
    kind = "oom-killed"

    def __init__(self, where: str):
        super().__init__(where, f"container {where} ran out of memory and was killed (OOMKilled): close "
                                "what else uses memory, or choose a smaller preset, then run it again")


class TimedOut(Failure):
    """A wait went past its limit: the message names what was waited for and the limit."""
    kind = "timeout"

    def __init__(self, where: str, limit_s: float | None, detail: str = ""):
        why = f" ({detail[:200]})" if detail else ""
        after = f"after {limit_s:g} s" if limit_s is not None else "at its time limit"
        super().__init__(where, f"gave up waiting for {where} {after}{why}: see the run's "
                                "papermill.log for where it stopped, then `perflab clean`")
        self.limit_s = limit_s


def disk_full(e: BaseException) -> DiskFull | None:
    """The DiskFull an OSError with errno ENOSPC (28) on the host means, naming the file's directory
    and its free space; None for any other exception."""
    import errno
    import os

    if not isinstance(e, OSError) or e.errno != errno.ENOSPC:
        return None
    where = os.path.dirname(os.path.abspath(os.fsdecode(e.filename))) if e.filename else os.getcwd()
    on = where
    while not os.path.isdir(on) and os.path.dirname(on) != on:   # the file's directory may not exist yet
        on = os.path.dirname(on)
    try:
        st = os.statvfs(on)
        free = st.f_bavail * st.f_frsize // 2**20
    except OSError:
        free = None
    return DiskFull(where, free)


def from_record(doc: dict | None) -> Failure | None:
    """The failure a run.json's `failure` field records (written by another process), or None."""
    if not isinstance(doc, dict) or not doc.get("message"):
        return None
    f = Failure(str(doc.get("where", "")), str(doc["message"]))
    f.kind = str(doc.get("kind", Failure.kind))
    return f
