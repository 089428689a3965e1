"""`perflab run LAB`: validate, make the run directory, execute the lab's notebook with papermill,
show progress, and always give back what the run created.

Order of work, and why:
1. Parameters are resolved and validated against book.toml; a refusal exits 2 before anything exists.
2. Requirements are checked (Docker engine, images; missing images are built).
3. The run directory gets owner.json, run.json (status incomplete) and the notebook's input.
4. papermill runs in its own session (Ctrl-C in the terminal reaches only this process). On SIGINT
   or SIGTERM the runner interrupts the kernel (the lab's context managers clean up), waits, then
   kills what is left by PID, and removes everything labelled or recorded for the run.
5. run.json gets its final status: complete, failed (the notebook raised), or incomplete
   (interrupted), and `failure` when the cause is known ({kind, where, message}: written by the
   kernel where the lab's run caught it, or here: a full disk, a lost engine, the notebook's time
   limit). The last line on stdout is the run directory.
Every wait has a limit: the notebook as a whole and each of its cells NOTEBOOK_MARGIN times the
plan's estimate plus NOTEBOOK_EXTRA_S (NOTEBOOK_TIMEOUT_S for a lab with no plan).
Exit codes: 0 complete with every check passed, 1 a check failed, 2 refused parameters or unmet
requirement, 3 the run failed, 130 interrupted.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from perflab.infra import images
from perflab.config import params as params_mod, values as values_mod
from perflab.infra import cleanup, containers, labels, ledger, lock, seccomp
from perflab.analysis import checks
from perflab.run import labcontract, progress, provenance
from perflab.config.manifest import SUITES, Lab, Manifest
from perflab.config.options import RunOptions
from perflab.run.record import RunRecord
from perflab.run.session import create_run

from perflab.errors import (EXIT_CHECK, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_REFUSED,  # noqa: F401
                            Failure, Refused, TimedOut, from_record)
KILL_GRACE_S = 60
#: the notebook's limit (papermill as a whole, and each cell): this times the plan's estimate plus
#: NOTEBOOK_EXTRA_S (images, container start-up, figures, a busy machine); a lab without a plan:
#: NOTEBOOK_TIMEOUT_S
NOTEBOOK_MARGIN, NOTEBOOK_EXTRA_S, NOTEBOOK_TIMEOUT_S = 3.0, 900.0, 6 * 3600.0


def notebook_limit(lab: Lab, values: dict) -> float:
    """How long the lab's notebook may run, in s, from the run's own plan (see NOTEBOOK_MARGIN)."""
    estimate = sum(t for _, t in labcontract.load(lab).plan(values))
    return NOTEBOOK_MARGIN * estimate + NOTEBOOK_EXTRA_S if estimate > 0 else NOTEBOOK_TIMEOUT_S




def validate(m: Manifest, lab: Lab, preset: str, overrides: list[str]) -> dict:
    labcontract.load(lab)   # a lab that lacks part of its contract is refused before anything is made
    try:
        return params_mod.resolve(lab, preset, overrides, m.budget,
                                  params_mod.free_space(cleanup.runs_root(m.root)))
    except params_mod.ParamError as e:
        raise Refused(str(e)) from None


def check_requirements(m: Manifest, lab: Lab) -> None:
    if "docker" in lab.requires and labels.docker_client() is None:
        raise Refused(f"lab {lab.name} needs a Docker engine: {labels.no_engine_reason()}")
    from perflab.infra.doctor import REQUIREMENTS   # each probed on the spot, before anything is made

    missing = []
    for r in lab.requires:
        ok, why = REQUIREMENTS[r]() if r in REQUIREMENTS else (True, "")
        if not ok:
            missing.append(f"{r}: {why}")
    if missing:
        raise Refused(f"lab {lab.name} needs what this machine lacks: {'; '.join(missing)}")


def notebook_input(m: Manifest, lab: Lab, run_dir: Path, source: Path | None = None) -> Path:
    import jupytext

    nb = jupytext.read(source or m.root / m.chapter(lab.chapter).file)
    dst = run_dir / "notebook.input.ipynb"
    jupytext.write(nb, dst)
    return dst


class _Interrupt:
    def __init__(self):
        self.signum = None

    def __call__(self, signum, frame):
        if self.signum is not None and signum == signal.SIGINT:
            print("\nperflab: second interrupt: stopping now", file=sys.stderr)
        self.signum = signum


def _kernel_pids(run_dir: Path) -> list[int]:
    """The notebook kernel's PID, once the kernel shows it is this run's (ledger.prove_process)."""
    run = ledger.Run(Path(run_dir))
    return [int(e["id"]) for e in ledger.Ledger(run_dir).open_entries()
            if e["kind"] == "process" and e.get("what") == "notebook kernel" and ledger.prove_process(e, run) is None]


def _stop(proc: subprocess.Popen, run_dir: Path, stop: _Interrupt) -> None:
    """Interrupt the kernel (KeyboardInterrupt in the running cell: the lab cleans up), then wait
    for papermill; past the grace period kill papermill and the kernel by PID."""
    for pid in _kernel_pids(run_dir):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGINT)
    t_end = time.time() + KILL_GRACE_S
    while proc.poll() is None and time.time() < t_end:
        time.sleep(0.2)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:   # SIGKILL cannot be refused; what is left, the ledger has
                print(f"perflab: papermill (pid {proc.pid}) still there 10 s after SIGKILL", file=sys.stderr)


def run(m: Manifest, lab_name: str, preset: str, overrides: list[str], record: bool = False,
        quiet: bool = False, variant=None, repeat: int | None = None, live: bool = False, port: int = 0,
        options: RunOptions | None = None) -> int:
    """Run a lab (validated, under the machine lock). `record`: keep a completed run with every
    check passed as the chapter's reference; with `repeat` = k (>= 2), keep any completed run as
    the reference's repeat k instead (data/reference/<lab>/repeats/<k>/), failed checks and all:
    a repeat is there to show the spread of the result, not to be chosen. `variant`: a student's
    mystery variant (perflab.teaching.variant.Variant): its preset, sealed values and notebook.
    `live`: serve the run's page on 127.0.0.1 (`port`, else any free one) while it goes
    (perflab.run.live); not with `record` (a reference run is not watched: its fio runs as it ships).
    `options`: --scratch, --cpus, --seccomp (perflab.config.options; the defaults when None), written
    into the run's run.json, from where the notebook's session reads them."""
    options = dataclasses.replace(options or RunOptions(), live=live)
    lab = m.lab(lab_name)
    if variant is not None:
        preset, overrides = _variant(lab, variant, overrides, record)
    values = validate(m, lab, preset, overrides)
    seccomp.check(m, lab.images, options)
    check_suite(m, lab)
    if record:
        check_recordable(m, lab, options)
        if live:
            raise Refused("--live with --record: a reference run is recorded as a run is made unwatched "
                          "(fio's reports once a second are what --live adds); drop one of them")
    if why := values_mod.port_refusal(port):
        raise Refused(why)
    if port and not live:
        raise Refused("--port is for --live (the page of a run as it goes)")
    check_requirements(m, lab)
    if record:
        from perflab.run.provenance import git_state

        if git_state(m.root)["git_dirty"] is not False:
            raise Refused("--record needs a clean tree (commit first): a reference run names the commit "
                          "it was recorded from, and the book's freshness test holds it to that")

    def waiting(holder):
        print(f"perflab: waiting for the lab that is running ({holder}); one lab at a time",
              file=sys.stderr)

    with lock.machine_lock(f"{lab.name} {preset}", None if quiet else waiting):
        return _run_locked(m, lab, preset, values, record, quiet, variant, repeat, port, options)


def _suite(m: Manifest, lab: Lab) -> str:
    return next((m.images[n].suite for n in lab.images), SUITES[0])


def check_suite(m: Manifest, lab: Lab) -> None:
    """Refuse a lab on a Debian release its images do not run on yet (book.toml `unsupported`)."""
    suite = _suite(m, lab)
    if suite in lab.unsupported:
        raise Refused(f"lab {lab.name} does not run on the {suite} images yet: {lab.unsupported[suite]}; "
                      f"allowed: --suite {SUITES[0]} (the default)")


def check_recordable(m: Manifest, lab: Lab, options: RunOptions) -> None:
    """Refuse to record a reference (or its repeats) under any choice but those every reference ran
    under: Docker's default seccomp filter, the lab images on the first Debian release."""
    if options.seccomp != "docker":
        raise Refused(f"--record runs under Docker's default seccomp filter, as every reference does "
                      f"(asked for: --seccomp {options.seccomp})")
    if _suite(m, lab) != SUITES[0]:
        raise Refused(f"--record runs on lab images built on {SUITES[0]}, as every reference does "
                      f"(asked for: --suite {_suite(m, lab)})")
    if options.cpus is not None:
        raise Refused(f"--record gives the lab's containers the CPUs every reference had (asked for: --cpus "
                      f"{options.cpus:g})")
    if options.scratch is not None:
        raise Refused(f"--record keeps the lab's volumes in Docker's own directory, as every reference does "
                      f"(asked for: --scratch {options.scratch})")


def dry_run(m: Manifest, lab_name: str, preset: str, overrides: list[str], variant=None,
            out=None, options: RunOptions | None = None) -> int:
    """`perflab run --dry-run`: validate everything a run would validate and print its plan (phases
    and their expected time, images, disk space, what the machine must have); create nothing.
    Returns 0, or raises Refused (exit 2) as the run itself would."""
    out = out or sys.stdout
    lab = m.lab(lab_name)
    if variant is not None:
        preset, overrides = _variant(lab, variant, overrides, False)
    options = options or RunOptions()
    values = validate(m, lab, preset, overrides)
    seccomp.check(m, lab.images, options)
    check_suite(m, lab)
    shown = params_mod.describe(values, lab)
    print(f"perflab run {lab.name} --preset {preset}: parameters accepted; nothing was created", file=out)
    for k, val in shown.items():
        print(f"  {k} = {'(sealed)' if variant is not None and k in variant.hidden else val}", file=out)
    phases = list(labcontract.load(lab).plan(values))
    if phases:
        total = sum(t for _, t in phases)
        print(f"  phases ({len(phases)}, about {params_mod.fmt_duration(round(total))} plus container start-up):", file=out)
        for name, t in phases:
            print(f"    {name}: ~{params_mod.fmt_duration(round(t, 1))}", file=out)
    if lab.disk:
        print(f"  disk space: {params_mod.fmt_size(params_mod.disk_need(lab, values))} "
              f"(under {cleanup.runs_root(m.root)})", file=out)
    print(f"  images: {', '.join(f'{m.images[n].tag} (on {m.images[n].base})' for n in lab.images) or '-'}",
          file=out)
    filters = seccomp.provenance(m, lab.images, options)
    print("  seccomp: " + (", ".join(f"{n} {f['profile'] if isinstance(f, dict) else f}" for n, f in filters.items())
                           or "-"), file=out)
    needs = ", ".join(lab.requires) or "-"
    have = "answers" if labels.docker_client() is not None else "does NOT answer (the run would be refused)"
    print(f"  needs: {needs}" + (f"; the Docker engine {have}" if "docker" in lab.requires else ""), file=out)
    return EXIT_OK


def _variant(lab: Lab, v, overrides: list[str], record: bool):
    """A mystery run's preset and parameters from its variant (a perflab.teaching.variant.Variant,
    opened by the CLI): the planted values may not be overridden, nor the run recorded."""
    if v.lab != lab.name:
        raise Refused(f"the variant file is for lab {v.lab}, not {lab.name}")
    if record:
        raise Refused("a mystery run cannot be recorded as the reference run (--record with --variant)")
    locked = set(v.hidden) | set(v.fixed)
    mine = [o for o in overrides if o.split("=", 1)[0].strip() in locked]
    if mine:
        raise Refused(f"{', '.join(mine)}: the variant sets {', '.join(sorted(locked))}; they cannot be overridden")
    return v.preset, v.overrides() + list(overrides)


def _run_locked(m: Manifest, lab: Lab, preset: str, values: dict, record: bool, quiet: bool,
                variant, repeat: int | None, port: int, options: RunOptions) -> int:
    missing = images.missing(m, lab.images)
    if missing:
        print(f"perflab: building missing or out-of-date images {', '.join(missing)}", file=sys.stderr)
        images.build(m, [n for n in lab.images if m.images[n].tag in missing])

    run_dir = create_run(m, lab, preset, values, variant=variant, options=options)
    rec = RunRecord(run_dir)
    rec.provenance(images={n: {"tag": m.images[n].tag, "id": images.image_id(m.images[n].tag),
                               "base": m.images[n].base} for n in lab.images})
    started = time.time()
    stop = _Interrupt()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    status, error, rc, failure = "failed", None, EXIT_FAILED, None
    proc = watched = None
    try:
        if options.live:
            from perflab.run.live import LiveRun

            watched = LiveRun(run_dir, lab.name, port)
            print(f"perflab: watch it at {watched.url} (127.0.0.1 only; the page stops with the run)",
                  file=sys.stderr, flush=True)
        limit = notebook_limit(lab, values)
        proc = _start_notebook(m, lab, preset, values, run_dir, variant, live=watched is not None, limit=limit)
        _watch(proc, lab, run_dir, started, stop, quiet, limit)
        if stop.signum is not None:
            status, rc, error = "incomplete", EXIT_INTERRUPTED, f"interrupted by {signal.Signals(stop.signum).name}"
        elif proc.returncode == 0:
            status, rc = "complete", EXIT_OK
        else:
            status, rc = "failed", EXIT_FAILED
            error = _failed_notebook(rec, run_dir)
    except BaseException as e:  # noqa: BLE001 - the record must say what happened
        status = "incomplete" if isinstance(e, KeyboardInterrupt) else "failed"
        rc = EXIT_INTERRUPTED if isinstance(e, KeyboardInterrupt) else EXIT_FAILED
        failure = containers.as_failure(e, f"the run of lab {lab.name}")
        error = str(failure) if failure else f"{type(e).__name__}: {e}"
        if proc is not None and proc.poll() is None:
            _stop(proc, run_dir, stop)
    finally:
        doc = _close(rec, run_dir, status, error, failure, started, variant)
        _step("restoring the signal handlers", lambda: [signal.signal(s, h) for s, h in old.items()])
        if watched is not None:   # the page says the run ended, links the notebook, then stops
            _step("stopping the run's page", watched.finish)
    (run_dir / cleanup.OWNER).unlink(missing_ok=True)
    failed_checks = [c["name"] for c in doc.get("checks", []) if checks.failed(c)]
    _summary(doc, run_dir, quiet)
    if rc == EXIT_OK and failed_checks:
        rc = EXIT_CHECK
    if record and repeat and rc in (EXIT_OK, EXIT_CHECK):
        dst = record_reference(m, lab, run_dir, slot=f"repeats/{repeat}")
        print(f"perflab: recorded as repeat {repeat} of the reference in {dst.relative_to(m.root)}", file=sys.stderr)
    elif rc == EXIT_OK and record:
        dst = record_reference(m, lab, run_dir)
        print(f"perflab: recorded as the reference run in {dst.relative_to(m.root)}", file=sys.stderr)
    print(run_dir)
    return rc


def _step(what: str, fn):
    """fn(), or None when it raised (said on stderr): one step of the end of a run, which must not
    keep the steps after it from running."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        print(f"perflab: {what} failed: {type(e).__name__}: {e}", file=sys.stderr)
        return None


def _close(rec: RunRecord, run_dir: Path, status: str, error: str | None, failure: Failure | None,
           started: float, variant) -> dict:
    """The end of a run, each step in its own try: remove what it made, scrub a mystery run, record
    its end, its failure and its status. The run's run.json as it now reads (or as it would)."""
    failed = _step("cleaning up", lambda: cleanup.clean_run(run_dir, labels.docker_client())) or []
    if variant is not None:  # however the run ended, the lab's raw files keep no planted value
        _step("scrubbing the planted values", lambda: variant.scrub(run_dir))
    if failed:
        error = (error + "; " if error else "") + "cleanup failed for: " + ", ".join(failed)
    _step("recording the run's end", lambda: rec.provenance(ended=provenance.now_iso(),
                                                             duration_s=round(time.time() - started, 1)))
    if failure is not None:
        _step("recording the failure", lambda: rec.failure(failure.record()))
    doc = _step("recording the run's status", lambda: rec.set_status(status, error))
    if doc is None:   # run.json could not be written (a full disk): say the run's end all the same
        doc = {**(_step("reading run.json", rec.read) or {}), "status": status, "error": error}
        doc.setdefault("lab", run_dir.name)
    return doc


def _start_notebook(m: Manifest, lab: Lab, preset: str, values: dict, run_dir: Path, variant,
                    live: bool = False, limit: float = NOTEBOOK_TIMEOUT_S) -> subprocess.Popen:
    """papermill on the lab's notebook, in its own session, recorded in the run's ledger; `live`:
    the lab's fio runs report once a second, listed in the run's live.jsonl (perflab.fio.jobs);
    `limit`: no cell may run longer (papermill's --execution-timeout)."""
    nb_in = notebook_input(m, lab, run_dir, variant.notebook if variant else None)
    nb_out = run_dir / "notebook.ipynb"
    pfile = run_dir / "papermill-params.json"
    # A mystery run passes no values: the notebook reads them, sealed, from run.json.
    shown = {} if variant is not None else params_mod.describe(values, lab)
    pfile.write_text(json.dumps({"run": preset, "params": shown, "run_dir": str(run_dir)}))
    cmd = [sys.executable, "-m", "papermill", str(nb_in), str(nb_out), "-f", str(pfile),
           "--cwd", str(run_dir), "--no-progress-bar", "--log-level", "ERROR",
           "--kernel", "python3", "--execution-timeout", str(int(limit))]
    with open(run_dir / "papermill.log", "w") as plog:
        proc = subprocess.Popen(cmd, stdout=plog, stderr=subprocess.STDOUT, start_new_session=True,
                                cwd=m.root, env={**os.environ, "PERFLAB_ROOT": str(m.root),
                                                 labels.RUN_DIR_ENV: str(run_dir)})
    ledger.Ledger(run_dir).record_process(proc.pid, "papermill")
    return proc


def _watch(proc: subprocess.Popen, lab: Lab, run_dir: Path, started: float, stop, quiet: bool,
           limit: float = NOTEBOOK_TIMEOUT_S) -> None:
    """Wait for the notebook, showing its progress (one updating line on a terminal, a line every
    15 s otherwise); on SIGINT or SIGTERM, stop it and return; past `limit` s from `started`, stop it
    and raise TimedOut."""
    tty = sys.stderr.isatty() and not quiet
    last_print = 0.0
    while proc.poll() is None:
        if stop.signum is not None:
            print(f"\nperflab: {signal.Signals(stop.signum).name}: interrupting the lab and "
                  "cleaning up", file=sys.stderr)
            _stop(proc, run_dir, stop)
            break
        now = time.time()
        if now - started > limit:
            _stop(proc, run_dir, stop)
            raise TimedOut(f"the notebook of lab {lab.name} (papermill)", limit)
        line = progress.status_line(progress.read(run_dir), started, now)
        if tty:
            print(f"\r\033[K{lab.name}: {line}", end="", file=sys.stderr, flush=True)
        elif not quiet and now - last_print >= 15:
            print(f"{lab.name}: {line}", file=sys.stderr, flush=True)
            last_print = now
        time.sleep(0.5)
    if tty:
        print(file=sys.stderr)


def _failed_notebook(rec: RunRecord, run_dir: Path) -> str:
    """Why the notebook failed: the cause the kernel recorded where it caught it (run.json's
    `failure`, perflab.run.session), else the exception it stopped on (_notebook_error)."""
    known = from_record((_step("reading run.json", rec.read) or {}).get("failure"))
    return str(known) if known else _notebook_error(run_dir)


def _notebook_error(run_dir: Path) -> str:
    """The exception the notebook raised (its last line in papermill's log), else the log's tail."""
    import re

    log = run_dir / "papermill.log"
    lines = [ln.rstrip() for ln in log.read_text(errors="replace").splitlines()] if log.exists() else []
    exc = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception|Failed|Interrupt|Exit)\b:?")
    for ln in reversed(lines):
        if exc.match(ln):
            return "notebook failed: " + ln[:500]
    tail = [ln for ln in lines if ln.strip()][-3:]
    return "notebook failed" + (": " + " | ".join(tail) if tail else "") + f" (see {log.name})"


def _summary(doc: dict, run_dir: Path, quiet: bool) -> None:
    """The run's end on stderr: its status (and error), metrics and checks; with `quiet`, only the
    status line of a run that did not complete (a failure is said however quiet the command)."""
    if quiet and doc["status"] == "complete":
        return
    out = sys.stderr
    print(f"{doc['lab']} ({doc.get('preset')}): {doc['status']}" + (f" - {doc['error']}" if doc.get("error") else ""),
          file=out)
    if quiet:
        return
    for k, v in doc.get("metrics", {}).items():
        print(f"  {k} = {v}", file=out)
    for c in doc.get("checks", []):
        why = f"; not shown here: {c['not_shown']}" if c.get("not_shown") else ""
        print(f"  [{checks.status(c)}] {c['name']}: {c['value']} (expected {c['expected']}{why})", file=out)


# Files a reference run keeps: the raw data the chapter recomputes everything from, compactly.
REFERENCE_SKIP = {"notebook.input.ipynb", "papermill-params.json", cleanup.OWNER, ".run.lock",
                  "papermill.log", "progress.jsonl", "live.log",   # the live page's own errors
                  "vs-reference.txt"}   # the run against the reference it is about to replace


def record_reference(m: Manifest, lab: Lab, run_dir: Path, slot: str | None = None) -> Path:
    """Copy a completed run to data/reference/<lab>/ (or its `slot`, e.g. repeats/2/): raw fio data
    and provenance, without the executed notebook and figures (the book regenerates them); large
    text logs are gzipped. Recording the reference itself drops its old repeats with it."""
    import gzip

    dst = m.root / "data" / "reference" / lab.name
    if slot:
        dst = dst / slot
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for src in sorted(run_dir.rglob("*")):
        rel = src.relative_to(run_dir)
        if src.is_dir() or rel.name in REFERENCE_SKIP or rel.parts[0] == "figures" or rel.name == "notebook.ipynb":
            continue
        out = tmp / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix == ".log" and src.stat().st_size > 64 * 1024:
            with open(src, "rb") as fi, gzip.open(str(out) + ".gz", "wb", compresslevel=9) as fo:
                shutil.copyfileobj(fi, fo)
        else:
            shutil.copy2(src, out)
    return _swap_in(tmp, dst)


def _swap_in(new: Path, dst: Path) -> Path:
    """Put the directory `new` at `dst`, the old one (if any) kept aside until the new one is in
    place: an interruption leaves either reference whole, never neither."""
    old = dst.with_name(dst.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if dst.exists():
        dst.rename(old)
    try:
        new.rename(dst)
    except BaseException:
        if old.exists() and not dst.exists():
            old.rename(dst)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return dst
