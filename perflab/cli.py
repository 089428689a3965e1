"""The `perflab` command line (scripts/perflab from the repository root; no environment to activate);
the commands themselves are perflab.commands.

    perflab labs                          the labs, their parameters and presets
    perflab run LAB [--preset P] [-p k=v] run a lab; the last line printed is the run directory
    perflab run LAB ... --dry-run         validate and print the plan; create nothing (exit 0 or 2)
    perflab run LAB ... --live            and watch it on a page at 127.0.0.1 as it goes
    perflab run LAB --variant FILE        run a student's mystery variant (perflab assign)
    perflab assign LAB --students CSV --seed S --out DIR   a class's mystery labs and the answer key
    perflab grade --key KEY SUBMISSION | --class DIR       mark submissions against the key
    perflab heatmap LOG... [--html OUT] [--csv OUT] [--save OUT.npz]   (or MAP.npz... --merge)
                  [--trace bpftrace|biosnoop|blkparse|trace2heatmap] [--units-time U] [--units-latency U]
                  [--map latency|offset|subsecond] [--by DIM] [--summary [--window A:B]...]
    perflab heatmap LOG --follow [--trace T] [--idle S] [--port N]   the map of a file still being
                                          written, on a page at 127.0.0.1 that grows as the file does
    perflab compare RUN_A RUN_B [--noise RUN...] [--html OUT]   did the latencies move beyond
                                          run-to-run noise? (exit 0 same within noise, 1 differs)
    perflab clean [--check] [--run ID]    remove what runs left behind: labelled, or recorded and proven the
                                          run's by the kernel or the engine (exit 1 if anything stays or is
                                          left alone as not perflab's, 3 if no Docker engine answers)
    perflab doctor                        what this machine can run
    perflab conditions [LAB...] [--condition C]   the labs under a learner's machine's conditions (matrix)
    perflab images [NAME...] [--suite S]  build the lab images (on bookworm, or --suite trixie)
    perflab book [--run PRESET] [--out DIR] [--solutions hide|show|strip]  build the HTML book
    perflab book-config [--check]         regenerate _config.yml and _toc.yml from book.toml
    perflab references [--check|--repeats] [LAB...] re-record the reference runs from a clean commit (full preset),
                                          or say which are stale (exit 1 if any)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from perflab import commands
from perflab.config.suites import SUITES
from perflab.errors import EXIT_FAILED, EXIT_INTERRUPTED, PerflabError, Refused
from perflab.lazy import lazy

# read when a command needs them, not on every start (`perflab heatmap` of a small log: issue 29)
manifest_mod = lazy("perflab.config.manifest")
gradebook = lazy("perflab.teaching.gradebook")


class _Parser(argparse.ArgumentParser):
    """argparse, with its refusals in one line (the usage is one `--help` away) and exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="perflab", description="Runnable storage-performance labs.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("labs", help="list the labs and their parameters")
    p.add_argument("lab", nargs="?")
    p.set_defaults(fn=commands.cmd_labs)
    p = sub.add_parser("run", help="run a lab")
    p.add_argument("lab")
    p.add_argument("--preset", default="smoke", help="smoke (about a minute) or full (the real reproduction)")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE", help="override a parameter")
    p.add_argument("--record", action="store_true", help="keep this run as the chapter's reference run")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary on stderr (a run that fails still says so, in one line)")
    p.add_argument("--live", action="store_true", help="watch it as it goes: the lab's latency heat map and "
                   "throughput, growing a column a second, on a page at 127.0.0.1 (its address is printed first)")
    p.add_argument("--port", type=int, default=0, help="with --live: the page's port (default: any free one)")
    p.add_argument("--variant", metavar="FILE", help="a student's sealed mystery variant (variant.json from perflab assign)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate the parameters and print the plan (phases, time, images, disk); create nothing")
    p.add_argument("--seccomp", choices=["docker", "lab", "unconfined"],
                   help="the seccomp filter of the containers that run fio: docker (Docker's default; the "
                        "default), lab (the allow-list containers/seccomp/fio.json), unconfined (none); "
                        "named in run.json's provenance")
    p.add_argument("--suite", choices=SUITES, help=commands.SUITE_HELP)
    p.add_argument("--scratch", metavar="DIR", help="put the lab's Docker volumes under DIR (another disk; "
                   "default: Docker's own volume directory); named in run.json's provenance")
    p.add_argument("--cpus", metavar="N", help="hold every container of the lab to N CPUs (e.g. 0.5), as a "
                   "smaller machine would; a container the lab limits itself keeps its own; in run.json's provenance")
    p.set_defaults(fn=commands.cmd_run)
    p = sub.add_parser("assign", help="a class's mystery labs: a hidden variant per student, and the answer key")
    p.add_argument("lab")
    p.add_argument("--students", required=True, metavar="CSV", help="roster: a header line with an id column (and name)")
    p.add_argument("--seed", required=True, help="the class's secret seed (same seed and roster: same variants)")
    p.add_argument("--out", required=True, metavar="DIR", help="one package per student, and instructor/key.json")
    p.set_defaults(fn=commands.cmd_assign)
    p = sub.add_parser("grade", help="mark mystery-lab submissions against the answer key")
    p.add_argument("submission", nargs="?", help="a run directory, an executed notebook, or an answers file")
    p.add_argument("--key", required=True, help="instructor/key.json from perflab assign")
    p.add_argument("--student", help="whose submission this is (default: as the answers or the run say)")
    p.add_argument("--class", dest="class_dir", metavar="DIR", help="grade DIR/<student id>/ for every student")
    p.add_argument("--csv", help="write one row per student here (perflab's own table)")
    p.add_argument("--json", help="write the full report(s) here")
    p.add_argument("--format", choices=gradebook.FORMATS,
                   help="grades for an LMS, written to --out: csv (perflab's table), canvas (gradebook import CSV), "
                        "gradescope (results.json per student)")
    p.add_argument("--out", metavar="PATH", help="where --format writes (a directory of <id>/results.json for "
                                                 "gradescope and a class)")
    p.add_argument("--assignment", help="canvas: the assignment column's name (default: '<lab> mystery')")
    p.add_argument("--visibility", default="after_published", choices=("hidden", "after_due_date", "after_published",
                                                                       "visible"),
                   help="gradescope: when students see each question's result (default after_published)")
    p.add_argument("--items", metavar="PREFIX", help="with --class: item analysis to PREFIX.csv and PREFIX.html "
                                                     "(per question: right, wrong, the most common wrong answer)")
    p.set_defaults(fn=commands.cmd_grade)
    p = sub.add_parser("heatmap", help="latency heat map from fio per-I/O or histogram logs, or saved maps")
    p.add_argument("logs", nargs="+", help="fio logs (epoch or job-relative stamps), or maps saved with --save")
    p.add_argument("--html")
    p.add_argument("--csv")
    p.add_argument("--save", metavar="OUT.npz", help="save the map's cells (maps saved so add up exactly)")
    p.add_argument("--merge", action="store_true", help="the inputs are saved maps (.npz): add them up")
    p.add_argument("--col", type=float, default=1.0, help="column width in seconds (default 1)")
    p.add_argument("--linear-us", type=float, help="linear latency buckets of this width (us) instead of log-linear")
    p.add_argument("--title")
    p.add_argument("--trace", choices=["bpftrace", "biosnoop", "blkparse", "trace2heatmap"],
                   help="the inputs are tracer output of this form, not fio logs (trace2heatmap: trace2heatmap.pl's "
                        "two columns, time and latency)")
    p.add_argument("--units-time", choices=["s", "ms", "us", "ns"],
                   help="trace2heatmap: the time column's units (default: the header's, else s)")
    p.add_argument("--units-latency", choices=["s", "ms", "us", "ns"],
                   help="trace2heatmap: the latency column's units (default: the header's, as in TIMEus DELTAus)")
    p.add_argument("--map", choices=["latency", "offset", "subsecond"], default="latency",
                   help="rows: latency (default), disk offset (fio: log_offset=1), or time within the second")
    p.add_argument("--by", metavar="DIM", help="one map per value: op, job, client, file (fio); disk, op, comm, "
                   "pid (tracers); a bpftrace header's names")
    p.add_argument("--row", type=float, help="row height: bytes for --map offset (default: grown from 4 KiB to fit "
                   "256 rows), ms for --map subsecond (default 20)")
    p.add_argument("--follow", action="store_true", help="read one file as it is written (a fio per-I/O log, or "
                   "bpftrace, biosnoop or trace2heatmap output) and serve its map on a page at 127.0.0.1 that grows "
                   "with it, until Ctrl-C or --idle; --html, --csv and --save get the final map")
    p.add_argument("--idle", type=float, metavar="S", help="with --follow: end once the file has not grown for S "
                   "seconds (default: at Ctrl-C)")
    p.add_argument("--port", type=int, default=0, help="with --follow: the page's port on 127.0.0.1 (default: "
                   "any free one)")
    p.add_argument("--summary", action="store_true", help="also print, per map (and per --by value), the modes of "
                   "its latency histogram (share, median, bounds), where the mean falls, Gregg's mvalue, and how "
                   "many columns have two modes or more; with --csv, the per-column modes go to <csv stem>.modes.csv")
    p.add_argument("--window", action="append", metavar="A:B", help="with --summary: also summarise the columns "
                   "that start from A to B seconds (repeatable)")
    p.add_argument("--percentiles", action="store_true", help="draw each column's p50, p99 and p99.9 over the map "
                   "(--html; exact to the bucket), and with --csv write them per column to <csv stem>.percentiles.csv")
    p.set_defaults(fn=commands.cmd_heatmap)
    p = sub.add_parser("compare", help="two runs' latency distributions: do they differ beyond run-to-run noise? "
                       "(exit 0 same within noise, 1 differs, 2 refused)")
    p.add_argument("run_a", metavar="RUN_A", help="a run directory, a lab name (its reference) or a saved map (.npz)")
    p.add_argument("run_b", metavar="RUN_B", help="the same kinds; a run of the same lab")
    p.add_argument("--noise", nargs="+", metavar="RUN", help="runs of one setup that differ only by chance "
                   "(default: RUN_A's lab's reference and its recorded repeats)")
    p.add_argument("--html", metavar="OUT", help="a standalone page: both maps, the difference map, the metrics")
    p.add_argument("--col", type=float, default=1.0, help="column width in seconds (default 1)")
    p.set_defaults(fn=commands.cmd_compare)
    p = sub.add_parser("conditions", help="run labs' smoke presets under a learner's machine's conditions "
                                          "(busy CPU, slow disk, less CPU, Debian 13): the status page's matrix")
    p.add_argument("lab", nargs="*", help="labs (default: all)")
    p.add_argument("--condition", action="append", help="busy-cpu, slow-disk, less-cpu, trixie (default: all)")
    p.add_argument("--preset", default="smoke")
    p.set_defaults(fn=commands.cmd_conditions)
    p = sub.add_parser("clean", help="remove what runs left behind (only what is proven the run's); exit 1 if "
                                     "anything stays or is left alone, 3 if no Docker engine answers")
    p.add_argument("--check", action="store_true", help="only list leftovers; exit 1 if any")
    p.add_argument("--run", help="only this run (its id, the name of its directory under data/runs; never a path)")
    p.add_argument("--force", action="store_true", help="also runs whose runner is still alive (never skips a proof)")
    p.set_defaults(fn=commands.cmd_clean)
    p = sub.add_parser("doctor", help="what this machine can run, and what it may not show")
    p.add_argument("--quick", action="store_true", help="skip the disk probe (a few hundred O_DIRECT reads of a "
                   "64 MiB file under the labs' volume directory or --scratch)")
    p.add_argument("--scratch", metavar="DIR", help="probe this directory's disk instead of Docker's volumes'")
    p.set_defaults(fn=commands.cmd_doctor)
    p = sub.add_parser("images", help="build the lab images")
    p.add_argument("names", nargs="*")
    p.add_argument("--suite", choices=SUITES, help=commands.SUITE_HELP)
    p.set_defaults(fn=commands.cmd_images)
    p = sub.add_parser("book", help="build the HTML book (chapters render their reference runs)")
    p.add_argument("--run", default="reference", help="reference (default), or a preset to run every lab live")
    p.add_argument("--out", help="build under this directory instead of the repository root")
    p.add_argument("--solutions", choices=("hide", "show", "strip"), default="hide",
                   help="exercise solutions: folded (default), unfolded (instructors), or left out (a class's copy)")
    p.set_defaults(fn=commands.cmd_book)
    p = sub.add_parser("references", help="re-record the reference runs (or --check which are stale)")
    p.add_argument("labs", nargs="*", help="these labs only (default: all)")
    p.add_argument("--check", action="store_true", help="only say which references are stale; exit 1 if any")
    p.add_argument("--repeats", action="store_true",
                   help="keep each (fresh) reference and record only its repeats (book.toml reference_runs)")
    p.set_defaults(fn=commands.cmd_references)
    p = sub.add_parser("book-config", help="regenerate the Jupyter Book configuration from book.toml")
    p.add_argument("--check", action="store_true")
    p.set_defaults(fn=commands.cmd_book_config)
    return ap


def main(argv=None) -> int:
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `perflab labs | head` ends quietly
    args = parser().parse_args(argv)
    try:
        return args.fn(_manifest(args.cmd), args)
    except KeyboardInterrupt:
        print(f"perflab {args.cmd}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException as e:  # noqa: BLE001 - every failure ends as one line and an exit status
        if isinstance(e, SystemExit):
            raise
        return report(args.cmd, e)


#: The commands that work on a user's own files with no repository around (an installed wheel):
#: they get no manifest when there is none, and refuse only what needs one (a lab's reference).
STANDALONE = ("heatmap", "compare")
#: ... and those that never read it: not loaded (nor checked against its schema) even in a checkout
NO_MANIFEST = ("heatmap",)


def _manifest(cmd: str):
    """book.toml, for the commands that need the repository; None for a standalone command where
    there is none. A command that needs it, run outside a checkout, is refused in one line."""
    if cmd in NO_MANIFEST:
        return None
    try:
        return manifest_mod.load()
    except manifest_mod.ManifestError as e:
        if not str(e).startswith(f"no {manifest_mod.MANIFEST} in"):
            raise   # a book.toml that is there and wrong is the user's to fix
        if cmd in STANDALONE:
            return None
        raise manifest_mod.ManifestError(
            f"`perflab {cmd}` needs the perflab repository (its {manifest_mod.MANIFEST}, labs and chapters), and "
            f"there is none in {Path.cwd()} or its parents: run it from a clone of the repository, or set "
            f"PERFLAB_ROOT to one (`perflab heatmap` and `perflab compare` work anywhere)") from None


#: Where the full text of a failure goes (the terminal gets one line): beside the runs.
ERROR_LOG = "data/runs/perflab-errors.log"


def _cause(e: BaseException, cmd: str) -> str | None:
    """An unexpected exception's cause a user can act on, named by its class (a full disk: OSError
    ENOSPC; the Docker engine gone: a connection error), as one line; or None."""
    from perflab.infra.containers import as_failure

    try:
        failure = as_failure(e, f"perflab {cmd}")
    except ImportError:   # no docker SDK: only the full disk can be named
        from perflab.errors import disk_full

        failure = disk_full(e)
    return str(failure) if failure is not None else None


def report(cmd: str, e: BaseException) -> int:
    """One line on stderr for any failure, its exit status (perflab.errors); the whole message and,
    for an unexpected error, the traceback in ERROR_LOG."""
    import time
    import traceback

    known = isinstance(e, PerflabError)
    text = str(e) or type(e).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # a refusal names everything that was wrong (two bad parameters: both), on one line
    first = "; ".join(lines) if isinstance(e, Refused) else (lines[0] if lines else type(e).__name__)
    log = None
    if not known or ("\n" in text.strip() and not isinstance(e, Refused)):   # a refusal's line holds it all
        try:
            root = manifest_mod.project_root()
        except Exception:  # noqa: BLE001 - no project: the current directory
            root = Path.cwd()
        log = root / ERROR_LOG
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            with open(log, "a") as f:
                f.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} perflab {cmd}\n{text}\n")
                if not known:
                    f.write("".join(traceback.format_exception(type(e), e, e.__traceback__)))
        except OSError:
            log = None
    cause = None if known else _cause(e, cmd)
    what = (f"refused, nothing was created: {first}" if isinstance(e, Refused)
            else f"{cause} ({first})" if cause and not known
            else first if known else f"internal error: {type(e).__name__}: {first}")
    print(f"perflab {cmd}: {what}" + (f" (details: {log})" if log else ""), file=sys.stderr)
    return e.exit_status if known else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
