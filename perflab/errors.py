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


#: causes a user can act on, recognised in any error's text: (pattern, what happened, what to do)
_CAUSES = (
    (r"\[Errno 28\]|No space left on device|ENOSPC",
     "a disk filled up", "free space on the disk holding data/runs (or the run's --scratch), then `perflab clean`"),
    (r"Error while fetching server API version|Connection aborted.*(FileNotFoundError|ConnectionRefused)"
     r"|docker\.sock.*(No such file|Connection refused)|Cannot connect to the Docker daemon",
     "the Docker engine stopped answering", "start it again (`make setup` starts dockerd), then `perflab clean`"),
)


def explain(text: str) -> str | None:
    """What happened and what to do next, for an error whose text shows a cause a user can act on
    (a full disk, a Docker engine that went away mid-run), or None."""
    import re

    for pattern, what, todo in _CAUSES:
        if re.search(pattern, text or ""):
            return f"{what}: {todo}"
    return None
