"""The `perflab` command (scripts/perflab from the repository root; no environment to activate).

    perflab labs                          the labs, their parameters and presets
    perflab run LAB [--preset P] [-p k=v] run a lab; the last line printed is the run directory
    perflab run LAB ... --dry-run         validate and print the plan; create nothing (exit 0 or 2)
    perflab run LAB --variant FILE        run a student's mystery variant (perflab assign)
    perflab assign LAB --students CSV --seed S --out DIR   a class's mystery labs and the answer key
    perflab grade --key KEY SUBMISSION | --class DIR       mark submissions against the key
    perflab heatmap LOG... [--html OUT] [--csv OUT] [--save OUT.npz]   (or MAP.npz... --merge)
                  [--trace bpftrace|biosnoop|blkparse] [--map latency|offset|subsecond] [--by DIM]
    perflab compare RUN_A RUN_B [--noise RUN...] [--html OUT]   did the latencies move beyond
                                          run-to-run noise? (exit 0 same within noise, 1 differs)
    perflab clean [--check] [--run ID]    remove what runs left behind (labelled or recorded only)
    perflab doctor                        what this machine can run
    perflab images [NAME...] [--suite S]  build the lab images (on bookworm, or --suite trixie)
    perflab book [--run PRESET] [--out DIR] [--solutions hide|show|strip]  build the HTML book
    perflab book-config [--check]         regenerate _config.yml and _toc.yml from book.toml
    perflab references [--check|--repeats] [LAB...] re-record the reference runs from a clean commit (full preset),
                                          or say which are stale (exit 1 if any)
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from perflab.config import manifest as manifest_mod
from perflab.config.manifest import SUITES
from perflab.errors import EXIT_FAILED, EXIT_INTERRUPTED, PerflabError, Refused

SUITE_HELP = (f"the Debian release the lab images are built on: {SUITES[0]} (the default; every reference "
              f"ran on it) or {', '.join(SUITES[1:])} (its images are tagged apart, e.g. perflab/fio:1-trixie); "
              "named in run.json's provenance")


def _labs(m, args) -> int:
    from perflab.config.params import allowed

    if args.lab:
        m.lab(args.lab)   # an unknown name is refused, with the nearest lab named
    for lab in m.labs.values():
        if args.lab and lab.name != args.lab:
            continue
        print(f"{lab.name}: {lab.title}")
        print(f"  chapter: {m.chapter(lab.chapter).file}   requires: {', '.join(lab.requires) or '-'}")
        print("  presets: " + "; ".join(f"{p} ({', '.join(f'{k}={v}' for k, v in kv.items()) or 'defaults'})"
                                        for p, kv in lab.presets.items()))
        print("  parameters:")
        for p in lab.params.values():
            print(f"    {p.name} (default {p.default}): {p.help}")
            print(f"        allowed: {allowed(p)}")
        print()
    return 0


@contextlib.contextmanager
def _choices(m, **env):
    """The command's choices that are read where they apply (the seccomp filter where containers
    are made, the suite where the manifest names the images), in the notebook's kernel too:
    through the environment, for this command only (put back afterwards for an in-process
    caller). Yields the manifest as these choices make it."""
    from perflab.config import manifest

    before = {k: os.environ.get(k) for k in env}
    os.environ.update({k: v for k, v in env.items() if v})
    try:
        yield manifest.load(m.root) if any(env.values()) else m
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _run(m, args) -> int:
    from perflab.config.manifest import SUITE_ENV
    from perflab.errors import Refused
    from perflab.infra import seccomp
    from perflab.run import runner

    with _choices(m, **{seccomp.ENV: args.seccomp, SUITE_ENV: args.suite}) as m:
        try:
            variant = None
            if args.variant:  # a student's mystery variant: opened (unsealed, checked) before anything runs
                from perflab.teaching import variant as variants

                variant = variants.load_variant(m, args.variant)
                if variant.lab != args.lab:
                    raise Refused(f"variant file {args.variant} is for lab {variant.lab}, not {args.lab}")
            if args.dry_run:
                return runner.dry_run(m, args.lab, args.preset, args.param or [], variant=variant)
            return runner.run(m, args.lab, args.preset, args.param or [], record=args.record, quiet=args.quiet,
                              variant=variant)
        except KeyboardInterrupt:   # while waiting for another lab: nothing was created yet
            print(f"perflab run {args.lab}: interrupted before it started, nothing was created", file=sys.stderr)
            return runner.EXIT_INTERRUPTED


def _references(m, args) -> int:
    from perflab.run import reference, rerecord, runner

    try:
        if args.check:
            stale = {n: why for n, why in reference.check(m, args.labs).items() if why}
            for n, why in stale.items():
                print(f"{n}: " + "; ".join(why))
            if not stale:
                print(f"every reference ({len(args.labs or m.labs)}) is fresh")
            return 1 if stale else 0
        return rerecord.record(m, args.labs, repeats_only=args.repeats)
    except KeyboardInterrupt:
        print("perflab references: interrupted", file=sys.stderr)
        return runner.EXIT_INTERRUPTED


def _assign(m, args) -> int:
    from perflab.teaching import assign

    a = assign.assign(m, args.lab, args.students, args.seed, args.out)
    for s in a.students:
        print(f"{s['id']}: {s['package']}")
    print(f"perflab assign: {len(a.students)} students, {a.space} distinct variants of {a.lab}"
          + (f"; the class is larger than that: variants repeat (at most {a.rounds} students each)"
             if a.rounds > 1 else "; every student has a different one"), file=sys.stderr)
    print(f"perflab assign: the answer key is {a.key_path}: keep it (and the seed) away from the students",
          file=sys.stderr)
    return 0


def _grade(m, args) -> int:
    import json

    from perflab.teaching import grade, gradebook

    from pathlib import Path

    key = grade.load_key(args.key)
    if args.format and not args.out:    # every refusal before anything is written
        raise gradebook.GradebookError(f"--format {args.format} needs --out (a file; for gradescope, a directory "
                                       f"for a class)")
    if args.items and not args.class_dir:
        raise gradebook.GradebookError("--items needs --class: an item analysis is of a class")
    if not (args.class_dir or args.submission):
        raise grade.GradeError("give a SUBMISSION or --class DIR")
    for given in (args.class_dir, args.submission):
        if given and not Path(given).exists():
            raise grade.GradeError(f"{given}: no such file or directory")
    if args.class_dir:
        if not Path(args.class_dir).is_dir():
            raise grade.GradeError(f"--class {args.class_dir}: not a directory (one folder per student id)")
        reports, unknown = grade.grade_class(key, args.class_dir)
        for u in unknown:
            print(f"perflab grade: {u}: not a student in the key, skipped", file=sys.stderr)
    else:
        reports = [grade.grade(key, grade.load_submission(args.submission), args.student)]
    for r in reports:
        print(grade.text(r))
    if args.csv:
        grade.write_csv(reports, args.csv)
    if args.out:
        fmt = args.format or "csv"
        if fmt == "csv":
            grade.write_csv(reports, args.out)
        elif fmt == "canvas":
            gradebook.write_canvas(reports, key, args.out, args.assignment)
        else:
            gradebook.write_gradescope(reports, args.out, one=not args.class_dir, visibility=args.visibility)
        print(f"perflab grade: {fmt} grades written to {args.out}", file=sys.stderr)
    if args.items:
        c, h = gradebook.write_item_analysis(reports, key, args.items)
        print(f"perflab grade: item analysis in {c} and {h}", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(reports if args.class_dir else reports[0], f, indent=2, default=str)
            f.write("\n")
    return 0


def _heatmap(m, args) -> int:
    from perflab.analysis import heatmap

    from perflab.errors import Refused

    if args.linear_us is not None and not args.linear_us > 0:
        raise Refused(f"--linear-us {args.linear_us:g}: the width of a linear latency bucket must be more than 0 us")
    if not args.col > 0:
        raise Refused(f"--col {args.col:g}: a column must last more than 0 s")
    try:
        if args.merge and not all(str(x).endswith(".npz") for x in args.logs):
            raise ValueError("--merge adds up maps saved with --save (.npz files): "
                             + ", ".join(x for x in args.logs if not x.endswith(".npz")))
        if args.row is not None and args.map == "latency":
            raise ValueError("--row sets the height of an offset map's rows (bytes) or a subsecond map's "
                             "rows (ms): a latency map's rows are its buckets (--linear-us, or log-linear)")
        row = None if args.row is None else (int(args.row) if args.map == "offset" else int(args.row * 1_000_000))
        out = heatmap.render(args.logs, html=args.html, csv=args.csv, col_s=args.col,
                             linear_ns=int(args.linear_us * 1000) if args.linear_us else None, title=args.title,
                             save=args.save, trace=args.trace, what=args.map, by=args.by, row=row)
    except (OSError, ValueError) as e:   # an input or output the user named: refused (exit 2)
        raise Refused(str(e)) from None
    for k, hm in (out.items() if isinstance(out, dict) else [("", out)]):
        rows = {"latency": "latency buckets", "offset": "offset rows", "subsecond": "subsecond rows"}[hm.y]
        print(f"{f'{args.by}={k}: ' if k else ''}{hm.total} I/Os in {hm.counts.shape[0]} columns x "
              f"{hm.counts.shape[1]} {rows}", file=sys.stderr)
    return 0


def _compare(m, args) -> int:
    from perflab.analysis import difference
    from perflab.errors import EXIT_CHECK, EXIT_OK
    from perflab.run import comparison, record

    if not args.col > 0:
        raise Refused(f"--col {args.col:g}: a column must last more than 0 s")
    d = comparison.compare_runs(m, args.run_a, args.run_b, noise=args.noise, col_s=args.col)
    if args.html:
        try:
            record.write_text_atomic(args.html, difference.page(d))
        except OSError as e:
            raise Refused(f"--html {args.html}: cannot write: {e.strerror or e}") from None
    print(d.text())
    return EXIT_CHECK if d.verdict == difference.DIFFERS else EXIT_OK


def _clean(m, args) -> int:
    from perflab.infra import cleanup

    if args.check:
        left = cleanup.leftovers(m.root, include_active=args.force)
        for x in left:
            print(x)
        if left:
            print(f"perflab clean --check: {len(left)} object(s) left behind; `scripts/perflab clean` removes them",
                  file=sys.stderr)
            return 1
        print("perflab clean --check: nothing left behind", file=sys.stderr)
        return 0
    if args.run and not (cleanup.runs_root(m.root) / args.run).is_dir():
        from perflab.errors import Refused

        raise Refused(f"no run {args.run} under {cleanup.runs_root(m.root)} (`perflab clean --check` lists "
                      "what runs left behind)")
    if args.run and not args.force and cleanup.run_active(cleanup.runs_root(m.root) / args.run):
        print(f"perflab clean: run {args.run} is still running (its runner is alive); nothing removed. "
              "--force removes its objects anyway", file=sys.stderr)
        return 1
    done, failed = cleanup.clean(m.root, args.run, force=args.force)
    for f in failed:
        print(f"could not remove: {f}", file=sys.stderr)
    print(f"perflab clean: {len(done)} run(s) checked" + (f", {len(failed)} failure(s)" if failed else ""),
          file=sys.stderr)
    return 1 if failed else 0


def _doctor(m, args) -> int:
    from perflab.infra import doctor

    found = doctor.probes()
    print("machine:")
    for p in found.values():
        print(f"  [{'ok' if p.ok else '--'}] {p.name}: {p.detail}")
    print("labs:")
    bad = 0
    for name, (ok, why) in doctor.lab_status(m, found).items():
        bad += not ok
        print(f"  [{'ok' if ok else 'no'}] {name}: {why}")
    return 1 if bad else 0


def _images(m, args) -> int:
    from perflab.config.manifest import SUITE_ENV
    from perflab.infra import images

    with _choices(m, **{SUITE_ENV: args.suite}) as m:
        unknown = [n for n in args.names if n not in m.images]
        if unknown:
            raise Refused(f"unknown image {', '.join(unknown)}; images: {', '.join(m.images)}")
        for name, iid in images.build(m, args.names or None).items():
            print(f"{name}: {m.images[name].tag} {iid}")
    return 0


def _book_config(m, args) -> int:
    from perflab.book import jbconfig

    if args.check:
        d = jbconfig.drift(m)
        if d:
            print(f"out of date with book.toml: {', '.join(d)} (run scripts/perflab book-config)", file=sys.stderr)
            return 1
        return 0
    for p in jbconfig.write(m):
        print(p.relative_to(m.root))
    return 0


def _book(m, args) -> int:
    import os
    import subprocess
    from pathlib import Path

    from perflab.book import jbconfig

    d = jbconfig.drift(m)
    if d:
        print(f"out of date with book.toml: {', '.join(d)} (run scripts/perflab book-config)", file=sys.stderr)
        return 1
    jbconfig.write(m)
    env = dict(os.environ, PERFLAB_ROOT=str(m.root))
    if args.run != "reference":
        env["PERFLAB_BOOK_RUN"] = args.run
    jb = Path(sys.executable).with_name("jupyter-book")
    src = m.root
    if args.solutions != "hide":   # build from a staged copy with the solutions shown or stripped
        from perflab.book import solutions

        src = solutions.stage(m.root, [c.file for c in m.chapters], args.solutions,
                              m.root / "_build" / f".stage-{args.solutions}")
    # --all: every page is rebuilt, because every page depends on files Sphinx does not see (the
    # reference runs, the labs' code, book.toml); an unchanged page would keep yesterday's numbers.
    cmd = [str(jb), "build", str(src), "--all", "--warningiserror", "--keep-going"]
    if args.out or src != m.root:
        cmd += ["--path-output", str(args.out or m.root)]
    r = subprocess.run(cmd, env=env, cwd=m.root)
    out = Path(args.out or m.root) / "_build" / "html" / "index.html"
    if r.returncode == 0:
        print(out)
    return r.returncode


class _Parser(argparse.ArgumentParser):
    """argparse, with its refusals in one line (the usage is one `--help` away) and exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="perflab", description="Runnable storage-performance labs.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("labs", help="list the labs and their parameters")
    p.add_argument("lab", nargs="?")
    p.set_defaults(fn=_labs)
    p = sub.add_parser("run", help="run a lab")
    p.add_argument("lab")
    p.add_argument("--preset", default="smoke", help="smoke (about a minute) or full (the real reproduction)")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE", help="override a parameter")
    p.add_argument("--record", action="store_true", help="keep this run as the chapter's reference run")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary on stderr")
    p.add_argument("--variant", metavar="FILE", help="a student's sealed mystery variant (variant.json from perflab assign)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate the parameters and print the plan (phases, time, images, disk); create nothing")
    p.add_argument("--seccomp", choices=["docker", "lab", "unconfined"],
                   help="the seccomp filter of the containers that run fio: docker (Docker's default; the "
                        "default), lab (the allow-list containers/seccomp/fio.json), unconfined (none); "
                        "named in run.json's provenance")
    p.add_argument("--suite", choices=SUITES, help=SUITE_HELP)
    p.set_defaults(fn=_run)
    p = sub.add_parser("assign", help="a class's mystery labs: a hidden variant per student, and the answer key")
    p.add_argument("lab")
    p.add_argument("--students", required=True, metavar="CSV", help="roster: a header line with an id column (and name)")
    p.add_argument("--seed", required=True, help="the class's secret seed (same seed and roster: same variants)")
    p.add_argument("--out", required=True, metavar="DIR", help="one package per student, and instructor/key.json")
    p.set_defaults(fn=_assign)
    p = sub.add_parser("grade", help="mark mystery-lab submissions against the answer key")
    p.add_argument("submission", nargs="?", help="a run directory, an executed notebook, or an answers file")
    p.add_argument("--key", required=True, help="instructor/key.json from perflab assign")
    p.add_argument("--student", help="whose submission this is (default: as the answers or the run say)")
    p.add_argument("--class", dest="class_dir", metavar="DIR", help="grade DIR/<student id>/ for every student")
    p.add_argument("--csv", help="write one row per student here (perflab's own table)")
    p.add_argument("--json", help="write the full report(s) here")
    p.add_argument("--format", choices=("csv", "canvas", "gradescope"),
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
    p.set_defaults(fn=_grade)
    p = sub.add_parser("heatmap", help="latency heat map from fio per-I/O or histogram logs, or saved maps")
    p.add_argument("logs", nargs="+", help="fio logs (epoch or job-relative stamps), or maps saved with --save")
    p.add_argument("--html")
    p.add_argument("--csv")
    p.add_argument("--save", metavar="OUT.npz", help="save the map's cells (maps saved so add up exactly)")
    p.add_argument("--merge", action="store_true", help="the inputs are saved maps (.npz): add them up")
    p.add_argument("--col", type=float, default=1.0, help="column width in seconds (default 1)")
    p.add_argument("--linear-us", type=float, help="linear latency buckets of this width (us) instead of log-linear")
    p.add_argument("--title")
    p.add_argument("--trace", choices=["bpftrace", "biosnoop", "blkparse"],
                   help="the inputs are tracer output of this form, not fio logs")
    p.add_argument("--map", choices=["latency", "offset", "subsecond"], default="latency",
                   help="rows: latency (default), disk offset (fio: log_offset=1), or time within the second")
    p.add_argument("--by", metavar="DIM", help="one map per value: op, job, client, file (fio); disk, op, comm, "
                   "pid (tracers); a bpftrace header's names")
    p.add_argument("--row", type=float, help="row height: bytes for --map offset (default: grown from 4 KiB to fit "
                   "256 rows), ms for --map subsecond (default 20)")
    p.set_defaults(fn=_heatmap)
    p = sub.add_parser("compare", help="two runs' latency distributions: do they differ beyond run-to-run noise? "
                       "(exit 0 same within noise, 1 differs, 2 refused)")
    p.add_argument("run_a", metavar="RUN_A", help="a run directory, a lab name (its reference) or a saved map (.npz)")
    p.add_argument("run_b", metavar="RUN_B", help="the same kinds; a run of the same lab")
    p.add_argument("--noise", nargs="+", metavar="RUN", help="runs of one setup that differ only by chance "
                   "(default: RUN_A's lab's reference and its recorded repeats)")
    p.add_argument("--html", metavar="OUT", help="a standalone page: both maps, the difference map, the metrics")
    p.add_argument("--col", type=float, default=1.0, help="column width in seconds (default 1)")
    p.set_defaults(fn=_compare)
    p = sub.add_parser("clean", help="remove what runs left behind")
    p.add_argument("--check", action="store_true", help="only list leftovers; exit 1 if any")
    p.add_argument("--run", help="only this run id")
    p.add_argument("--force", action="store_true", help="also runs whose runner is still alive")
    p.set_defaults(fn=_clean)
    p = sub.add_parser("doctor", help="what this machine can run")
    p.set_defaults(fn=_doctor)
    p = sub.add_parser("images", help="build the lab images")
    p.add_argument("names", nargs="*")
    p.add_argument("--suite", choices=SUITES, help=SUITE_HELP)
    p.set_defaults(fn=_images)
    p = sub.add_parser("book", help="build the HTML book (chapters render their reference runs)")
    p.add_argument("--run", default="reference", help="reference (default), or a preset to run every lab live")
    p.add_argument("--out", help="build under this directory instead of the repository root")
    p.add_argument("--solutions", choices=("hide", "show", "strip"), default="hide",
                   help="exercise solutions: folded (default), unfolded (instructors), or left out (a class's copy)")
    p.set_defaults(fn=_book)
    p = sub.add_parser("references", help="re-record the reference runs (or --check which are stale)")
    p.add_argument("labs", nargs="*", help="these labs only (default: all)")
    p.add_argument("--check", action="store_true", help="only say which references are stale; exit 1 if any")
    p.add_argument("--repeats", action="store_true",
                   help="keep each (fresh) reference and record only its repeats (book.toml reference_runs)")
    p.set_defaults(fn=_references)
    p = sub.add_parser("book-config", help="regenerate the Jupyter Book configuration from book.toml")
    p.add_argument("--check", action="store_true")
    p.set_defaults(fn=_book_config)
    return ap


def main(argv=None) -> int:
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `perflab labs | head` ends quietly
    args = parser().parse_args(argv)
    try:
        m = manifest_mod.load()
        return args.fn(m, args)
    except KeyboardInterrupt:
        print(f"perflab {args.cmd}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException as e:  # noqa: BLE001 - every failure ends as one line and an exit status
        if isinstance(e, SystemExit):
            raise
        return report(args.cmd, e)


#: Where the full text of a failure goes (the terminal gets one line): beside the runs.
ERROR_LOG = "data/runs/perflab-errors.log"


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
            from pathlib import Path

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
    what = (f"refused, nothing was created: {first}" if isinstance(e, Refused)
            else first if known else f"internal error: {type(e).__name__}: {first}")
    print(f"perflab {cmd}: {what}" + (f" (details: {log})" if log else ""), file=sys.stderr)
    return e.exit_status if known else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
