"""The commands of `perflab` (perflab.cli parses the command line and calls one of these): each takes
the manifest (None for a standalone command outside the repository) and the parsed arguments, and
returns the exit status; failures are perflab.errors exceptions, which perflab.cli reports in one line.
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from perflab.config.suites import SUITES
from perflab.config.values import port_refusal
from perflab.errors import EXIT_FAILED, Refused, TimedOut

SUITE_HELP = (f"the Debian release the lab images are built on: {SUITES[0]} (the default; every reference "
              f"ran on it) or {', '.join(SUITES[1:])} (its images are tagged apart, e.g. perflab/fio:1-trixie); "
              "named in run.json's provenance")


def cmd_labs(m, args) -> int:
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
def choices(m, **env):
    """The command's choice of Debian release (--suite), read where the manifest names the images,
    in the notebook's kernel too: through the environment, for this command only (put back afterwards for an in-process
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


def cmd_run(m, args) -> int:
    from perflab.config.suites import SUITE_ENV
    from perflab.errors import Refused
    from perflab.config.options import RunOptions
    from perflab.infra import limits, scratch, seccomp
    from perflab.run import runner

    # every option validated here, before anything is made; they travel in the run's run.json
    profile = os.environ.get(seccomp.PROFILE_ENV)   # scripts/seccomp-profile's logging copy
    options = RunOptions(scratch=scratch.check(args.scratch) if args.scratch else None,
                         cpus=limits.check(args.cpus) if args.cpus else None,
                         seccomp=seccomp.choice(args.seccomp or os.environ.get(seccomp.ENV)),
                         seccomp_profile=Path(profile) if profile else None)
    with choices(m, **{SUITE_ENV: args.suite}) as m:
        try:
            variant = None
            if args.variant:  # a student's mystery variant: opened (unsealed, checked) before anything runs
                from perflab.teaching import variant as variants

                variant = variants.load_variant(m, args.variant)
                if variant.lab != args.lab:
                    raise Refused(f"variant file {args.variant} is for lab {variant.lab}, not {args.lab}")
            if args.dry_run:
                return runner.dry_run(m, args.lab, args.preset, args.param or [], variant=variant, options=options)
            return runner.run(m, args.lab, args.preset, args.param or [], record=args.record, quiet=args.quiet,
                              variant=variant, live=args.live, port=args.port, options=options)
        except KeyboardInterrupt:   # while waiting for another lab: nothing was created yet
            print(f"perflab run {args.lab}: interrupted before it started, nothing was created", file=sys.stderr)
            return runner.EXIT_INTERRUPTED


def cmd_references(m, args) -> int:
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


def cmd_assign(m, args) -> int:
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


def cmd_grade(m, args) -> int:
    import json

    from perflab.teaching import grade, gradebook


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


def cmd_heatmap(m, args) -> int:
    from perflab.analysis import heatmap

    from perflab.errors import Refused

    if args.linear_us is not None and not args.linear_us > 0:
        raise Refused(f"--linear-us {args.linear_us:g}: the width of a linear latency bucket must be more than 0 us")
    if not args.col > 0:
        raise Refused(f"--col {args.col:g}: a column must last more than 0 s")
    if args.follow:
        return _heatmap_follow(args)
    if args.idle is not None or args.port:
        raise Refused("--idle and --port are for --follow (a file followed as it is written)")
    if args.window and not args.summary:
        raise Refused("--window says which seconds --summary summarises: add --summary")
    if args.summary and args.map != "latency":
        raise Refused(f"--summary finds the modes of latency: leave out --map {args.map}")
    windows = tuple(_window(w) for w in args.window or ())
    try:
        if args.merge and not all(str(x).endswith(".npz") for x in args.logs):
            raise ValueError("--merge adds up maps saved with --save (.npz files): "
                             + ", ".join(x for x in args.logs if not x.endswith(".npz")))
        if args.row is not None and args.map == "latency":
            raise ValueError("--row sets the height of an offset map's rows (bytes) or a subsecond map's "
                             "rows (ms): a latency map's rows are its buckets (--linear-us, or log-linear)")
        row = None if args.row is None else (int(args.row) if args.map == "offset" else int(args.row * 1_000_000))
        if args.linear_us is not None and not args.linear_us * 1000 >= 1:
            raise ValueError(f"--linear-us {args.linear_us:g}: a row at least 1 ns (0.001 us) wide")
        linear_ns = int(args.linear_us * 1000) if args.linear_us else None
        pcts = getattr(args, "percentiles", False)
        if pcts and (args.summary or args.map != "latency"):
            raise ValueError("--percentiles draws latency percentiles: leave out "
                             + ("--summary" if args.summary else f"--map {args.map}"))
        if pcts:
            out = _heatmap_percentiles(args, linear_ns, row)
        elif args.summary:
            from perflab.analysis.heatmap import command

            built, found = command.summarise(args.logs, html=args.html, csv=args.csv, col_s=args.col,
                                             linear_ns=linear_ns, title=args.title, save=args.save,
                                             trace=args.trace, by=args.by,
                                             units=(args.units_time, args.units_latency), windows=windows)
            out = built.out
        else:
            out = heatmap.render(args.logs, html=args.html, csv=args.csv, col_s=args.col, linear_ns=linear_ns,
                                 title=args.title, save=args.save, trace=args.trace, what=args.map, by=args.by,
                                 row=row, units=(args.units_time, args.units_latency))
    except (OSError, ValueError) as e:   # an input or output the user named: refused (exit 2)
        raise Refused(str(e)) from None
    if args.summary:
        print(command.summary_text(built, found))
    for k, hm in (out.items() if isinstance(out, dict) else [("", out)]):
        rows = {"latency": "latency buckets", "offset": "offset rows", "subsecond": "subsecond rows"}[hm.y]
        print(f"{f'{args.by}={k}: ' if k else ''}{hm.total} I/Os in {hm.counts.shape[0]} columns x "
              f"{hm.counts.shape[1]} {rows}", file=sys.stderr)
    return 0


def _heatmap_percentiles(args, linear_ns, row):
    """`perflab heatmap --percentiles`: the map(s) with p50/p99/p99.9 lines on the page and, with --csv,
    the per-column percentiles in <csv stem>.percentiles.csv, written with the other outputs (all or none)."""
    from perflab.analysis.heatmap import command, model

    b = command.build(args.logs, linear_ns=linear_ns, col_s=args.col, save=args.save, trace=args.trace,
                      what=args.map, by=args.by, row=row, units=(args.units_time, args.units_latency))
    not_latency = sorted({m.y for m in b.maps.values()} - {"latency"})
    if not_latency:   # a saved map of another kind: its rows are no latencies
        raise ValueError(f"--percentiles draws latency percentiles: these maps' rows are {', '.join(not_latency)}")
    extra = {}
    if args.csv is not None:
        extra[model.percentiles_csv_path(args.csv)] = lambda tmp: model.write_percentiles_csv(tmp, b.maps, b.by)
    command.write_outputs(b.maps, b.files, args.html, args.csv, args.save, args.title, linear=b.linear, by=b.by,
                          extra=extra, percentiles=model.PERCENTILES)
    return b.out


def _window(text: str) -> tuple[float, float]:
    """``--window A:B``: the seconds from A to B (0 <= A < B), or Refused in one line."""
    a, sep, b = text.partition(":")
    try:
        lo, hi = float(a), float(b)
    except ValueError:
        lo = hi = float("nan")
    if not sep or not 0 <= lo < hi < float("inf"):
        raise Refused(f"--window {text}: seconds from A to B as A:B, 0 <= A < B (e.g. --window 10:20)")
    return lo, hi


def _heatmap_follow(args) -> int:
    """`perflab heatmap FILE --follow`: the page's address first (stdout), the final map's size at the end."""
    from perflab.analysis.heatmap import command, live
    from perflab.fio.logs import averaged_log

    from perflab.errors import Refused

    given = [f"--{k.replace('_', '-')}" for k in ("merge", "by", "linear_us", "row", "summary", "window",
                                                  "percentiles")
             if getattr(args, k, None)]
    given += ["--map " + args.map] if args.map != "latency" else []
    if given:
        raise Refused(f"--follow draws one latency map with log-linear rows: {', '.join(given)} do not apply; "
                      "draw the finished file without --follow for those")
    if len(args.logs) != 1:
        raise Refused(f"--follow reads one file as it grows, not {len(args.logs)}: {' '.join(args.logs)}")
    if args.idle is not None and not args.idle > 0:
        raise Refused(f"--idle {args.idle:g}: seconds without growth before the end, more than 0")
    if why := port_refusal(args.port):
        raise Refused(why)
    path = Path(args.logs[0])
    if path.exists() and not path.is_file():
        raise Refused(f"{path}: not a file")
    if not path.parent.is_dir():
        raise Refused(f"{path}: its directory does not exist")
    if not args.trace and path.is_file() and averaged_log(path):   # one written so far (an empty one cannot tell)
        raise Refused(f"{path}: a log of fio's averages (log_avg_msec; block size 0 on every line): each line is an "
                      "interval's mean, not one I/O's, so it makes no heat map")

    def said(url):
        print(f"perflab heatmap: following {path} at {url} "
              f"({'until it has not grown for %g s' % args.idle if args.idle else 'Ctrl-C ends'})", flush=True)
    try:
        hm = live.follow(path, args.trace or "fio", idle_s=args.idle, port=args.port, col_s=args.col,
                         units=(args.units_time, args.units_latency), on_url=said)
        if args.html or args.csv or args.save:
            command.write_outputs({"": hm}, [path], args.html, args.csv, args.save, args.title, linear=False, by=None)
    except (OSError, ValueError) as e:   # the file, a port in use, an output: refused (exit 2)
        raise Refused(str(e)) from None
    print(f"{hm.total} I/Os in {hm.counts.shape[0]} columns x {hm.counts.shape[1]} latency buckets", file=sys.stderr)
    return 0


def cmd_compare(m, args) -> int:
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
    print(d.text(modes=True))   # with the modes that appeared, vanished or moved
    return EXIT_CHECK if d.verdict == difference.DIFFERS else EXIT_OK


def cmd_conditions(m, args) -> int:
    from perflab.run import conditions

    labs = args.lab or list(m.labs)
    mx = conditions.run(m, labs, args.condition or list(conditions.CONDITIONS), preset=args.preset,
                        out=lambda line: print(line, file=sys.stderr, flush=True))
    cells = [mx["cells"][lab][c] for lab in labs for c in (args.condition or conditions.CONDITIONS)]
    print(m.root / conditions.MATRIX)
    return EXIT_FAILED if any(c["status"] in ("FAIL", "error") for c in cells) else 0


def cmd_clean(m, args) -> int:
    """Exit 0 nothing left, 1 something stays (could not be removed, or left alone: not proven
    perflab's), 2 a --run that is not a run's name, 3 no Docker engine answers (after what the host
    alone shows)."""
    from perflab.infra import cleanup, labels

    run = cleanup.run_name(args.run) if args.run else None
    if run and not (cleanup.runs_root(m.root) / run).is_dir():
        raise Refused(f"no run {run} under {cleanup.runs_root(m.root)} (`perflab clean --check` lists "
                      "what runs left behind)")
    if run and not args.check and not args.force and cleanup.run_active(cleanup.runs_root(m.root) / run):
        print(f"perflab clean: run {run} is still running (its runner is alive); nothing removed. "
              "--force removes its objects anyway", file=sys.stderr)
        return 1
    try:
        client, no_engine = labels.engine(), None
    except labels.NoEngine as e:
        client, no_engine = None, e
    if args.check:
        left = cleanup.leftovers(m.root, include_active=args.force, client=client)
        for x in left:
            print(x)
        if no_engine:
            raise no_engine
        if left:
            print(f"perflab clean --check: {len(left)} object(s) left behind; `scripts/perflab clean` removes "
                  "those proven perflab's", file=sys.stderr)
            return 1
        print("perflab clean --check: nothing left behind", file=sys.stderr)
        return 0
    done, stays = cleanup.clean(m.root, run, force=args.force, client=client)
    for line in stays:
        print(line, file=sys.stderr)
    print(f"perflab clean: {len(done)} run(s) checked" + (f", {len(stays)} object(s) stay" if stays else ""),
          file=sys.stderr)
    if no_engine:
        raise no_engine
    return 1 if stays else 0


def cmd_doctor(m, args) -> int:
    from perflab.infra import doctor, scratch

    # the disk probe measures this directory's disk (as perflab run --scratch would use it)
    where = scratch.check(args.scratch) if args.scratch else None

    found = doctor.probes()
    print("machine:")
    for p in found.values():
        print(f"  [{'ok' if p.ok else '--'}] {p.name}: {p.detail}")
    print("labs:")
    bad = 0
    for name, (ok, why) in doctor.lab_status(m, found).items():
        bad += not ok
        print(f"  [{'ok' if ok else 'no'}] {name}: {why}")
    from perflab.infra import machinefacts

    facts = machinefacts.gather(disk=not args.quick, scratch=where)
    print("measured (what a lab's checks compare against):")
    for f in facts.values():
        print(f"  {f.name}: {f.detail}")
    said = machinefacts.predict(facts)
    print("what this machine may not show (a check says 'not shown here' with the reason it measures):")
    for line in said or ["nothing: every check can be shown here"]:
        print(f"  {line}")
    return 1 if bad else 0


def cmd_images(m, args) -> int:
    from perflab.config.suites import SUITE_ENV
    from perflab.infra import images

    with choices(m, **{SUITE_ENV: args.suite}) as m:
        unknown = [n for n in args.names if n not in m.images]
        if unknown:
            raise Refused(f"unknown image {', '.join(unknown)}; images: {', '.join(m.images)}")
        for name, iid in images.build(m, args.names or None).items():
            print(f"{name}: {m.images[name].tag} {iid}")
    return 0


def cmd_book_config(m, args) -> int:
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


#: jupyter-book's build: from the reference runs (every chapter executed, no lab run), or with
#: `--run PRESET`, every lab run live as well (the sum of their presets, with room for a busy machine)
BOOK_TIMEOUT_S, BOOK_LIVE_TIMEOUT_S = 2 * 3600.0, 8 * 3600.0


def cmd_book(m, args) -> int:
    import os
    import subprocess

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
    limit = BOOK_TIMEOUT_S if args.run == "reference" else BOOK_LIVE_TIMEOUT_S
    try:
        r = subprocess.run(cmd, env=env, cwd=m.root, timeout=limit)
    except subprocess.TimeoutExpired:
        raise TimedOut("jupyter-book's build of the book", limit) from None
    out = Path(args.out or m.root) / "_build" / "html" / "index.html"
    if r.returncode == 0:
        print(out)
    return r.returncode
