"""The notebook's handle on one lab run: what a chapter calls.

    s = session.open("heatmaps", run=run, params=params, run_dir=run_dir)
    s.execute()                      # live: runs the lab (containers, fio); reference: nothing
    hm = heatmap.from_lat_log(s.path("fio", "both_clat.1.log"))
    s.metric(p50_ratio=...); s.check("bands separated", ok, value, ">= 10")
    s.figure(fig, "heatmap")         # saved under figures/ and displayed
    s.compare([(label, metric, fmt, published_2009), ...], source)   # your run / reference / 2009
    s.finish()                       # check table; in reference mode a failed check fails the build

`run="reference"` reads the run recorded under data/reference/<lab>/ (no Docker needed); a preset
name runs the lab live. In both modes every figure and check is computed from the raw data.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from perflab.config import manifest as manifest_mod
from perflab.config import params as params_mod
from perflab.config.options import RunOptions
from perflab.run import progress, provenance
from perflab.infra import cleanup, containers, context, labels, ledger, scratch, seccomp
from perflab.run.record import RunRecord, write_json_atomic
from perflab.run.tables import table   # the book's tables; chapters import it from here too

REFERENCE = "reference"


from perflab.errors import CheckFailed, Failure, Refused  # noqa: E402,F401 - CheckFailed: the chapters' failed-check error


class Session:
    """A run as the chapter and the lab see it; to the infra floor, its LabContext
    (perflab.infra.context): run id, lab, manifest, directory, ledger, parameters, options, estimate."""

    def __init__(self, m: manifest_mod.Manifest, lab: manifest_mod.Lab, mode: str, preset: str | None,
                 values: dict, data_dir: Path, record: RunRecord | None, options: RunOptions | None = None):
        self.manifest = m
        self.lab = lab
        self.mode = mode  # "reference" or "live"
        self.preset = preset
        self.params = values
        self.data_dir = Path(data_dir)
        self.record = record
        self.checks: list[dict] = []
        self.units: dict[str, str] = {}   # a declared check's unit, by its name: the checks table's values
        self.metrics: dict = {}
        self.ledger = ledger.Ledger(self.data_dir) if mode == "live" else None
        self.run_id = self.data_dir.name
        self.options = options or RunOptions()
        self.estimate_s: float | None = None   # the plan's total, once execute() has it
        self._plan: list[tuple[str, float]] = []
        self._t0 = time.time()
        self.owns_run = False
        self.mystery = None  # a mystery run's perflab.teaching.variant.RunSeal (planted values sealed)
        import pandas as pd

        # The chapter's tables (checks, sanity findings) are read whole: pandas would cut their text
        # at 50 characters with "..."; the book's CSS wraps long cells instead.
        pd.set_option("display.max_colwidth", None)

    # -- where things are --
    @property
    def live(self) -> bool:
        return self.mode == "live"

    def path(self, *parts) -> Path:
        return self.data_dir.joinpath(*parts)

    def write_json(self, *parts, data) -> Path:
        """Write `data` as JSON to a file of the run, atomically (a reader, or a run stopped mid-write,
        sees the old file or the new one, never half of one)."""
        path = self.path(*parts)
        write_json_atomic(path, data)
        return path

    def run_doc(self) -> dict:
        """This run's run.json (parameters, provenance, metrics, checks as recorded)."""
        return RunRecord(self.data_dir).read()

    def reference_dir(self) -> Path:
        return self.manifest.root / "data" / "reference" / self.lab.name

    def reference(self) -> "Session | None":
        """The recorded reference run, for comparison beside a live run (None if not recorded)."""
        if not (self.reference_dir() / "run.json").exists():
            return None
        return open(self.lab.name, run=REFERENCE, root=self.manifest.root)

    def repeat_dirs(self) -> list[Path]:
        """The reference's recorded repeats (book.toml `reference_runs`): run directories of the same
        preset from the same commit, for the chapter to recompute its result from each."""
        from perflab.run.reference import repeat_dirs

        return repeat_dirs(self.reference_dir())

    def module(self):
        """The lab's module, checked against the lab contract (perflab.run.labcontract)."""
        from perflab.run import labcontract

        return labcontract.load(self.lab)

    # -- running --
    def execute(self) -> None:
        """Run the lab (live mode): the lab module's `run(ctx)` makes the raw files, then the session
        reads them back (`summary(load(data_dir))`, the "collect" phase) into the run's metrics."""
        if not self.live:
            return
        mod = self.module()
        self._plan = list(mod.plan(self.params))
        if self._plan:
            progress.append(self.data_dir, {"event": "plan", "plan": self._plan})
            # a container's wait with no limit of its own gets one from this (containers.default_timeout)
            self.estimate_s = sum(p[1] for p in self._plan)
            print(f"{self.lab.name} ({self.preset}): {len(self._plan)} phases, expected ~{self.estimate_s:.0f} s")
        try:
            mod.run(self)
            with self.phase("collect"):
                self.metric(**mod.summary(mod.load(self.data_dir)))
        except Exception as e:
            failure = self.failed(e)
            if failure is None or failure is e:
                raise
            raise failure from e

    def failed(self, e: BaseException) -> Failure | None:
        """Exception `e`, raised by the lab's run, named by its cause (containers.as_failure) and
        recorded as run.json's `failure`, for the runner in the other process; None if it has none."""
        failure = containers.as_failure(e, f"lab {self.lab.name}'s run")
        if failure is not None and self.record:
            try:
                self.record.failure(failure.record())
            except OSError as w:   # a full disk may refuse even this: the runner reads the notebook's error
                print(f"perflab: could not record the failure in run.json: {w}")
        return failure

    @contextlib.contextmanager
    def phase(self, name: str, expected_s: float | None = None):
        """Mark a phase: progress in the terminal (via perflab run) and in the notebook."""
        idx = next((i for i, p in enumerate(self._plan) if p[0] == name), None)
        if expected_s is None and idx is not None:
            expected_s = self._plan[idx][1]
        t = time.time()
        progress.append(self.data_dir, {"event": "start", "phase": name, "index": idx, "expected_s": expected_s})
        events = progress.read(self.data_dir)
        print(progress.status_line(events, self._t0, t), flush=True)
        if self.record:
            self.record.phase(name, t, None, expected_s)
        try:
            yield
        finally:
            t2 = time.time()
            progress.append(self.data_dir, {"event": "end", "phase": name})
            if self.record:
                self.record.phase(name, t, t2, expected_s)
            print(f"  {name}: done in {t2 - t:.1f} s", flush=True)

    def provenance(self, **kv) -> None:
        if self.record:
            self.record.provenance(**kv)

    # -- results --
    def metric(self, **kv) -> None:
        self.metrics.update(kv)
        if self.mystery is not None:  # answer-giving metrics go to run.json sealed
            kv = self.mystery.metric(self.record, kv)
        if self.record:
            self.record.metric(**kv)

    def check(self, name: str, passed: bool, value, expected: str) -> bool:
        """A check written out in the chapter (the older form; a lab's CHECKS declare them once)."""
        return self._add({"name": name, "passed": bool(passed), "value": value, "expected": expected})

    def verify(self, declared, metrics: dict | None = None) -> list[dict]:
        """Evaluate a lab's declared checks (perflab.analysis.checks.Check) on this run's metrics and
        parameters, record each, and return the outcomes. Call finish() to show them."""
        from perflab.analysis import checks

        declared = list(declared)
        outcomes = checks.evaluate(declared, self.metrics if metrics is None else metrics, self.params)
        self.units.update({c.name: c.unit for c in declared if c.unit})
        for o in outcomes:
            self._add(o)
        return outcomes

    def _add(self, item: dict) -> bool:
        self.checks = [c for c in self.checks if c["name"] != item["name"]] + [item]
        if self.record:
            self.record.check(item["name"], item["passed"], item["value"], item["expected"], item.get("not_shown"))
        return bool(item["passed"])

    def table(self, df, caption: str | None = None):
        """A table as the book shows its tables (the module's `table`)."""
        return table(df, caption)

    def figure(self, fig, name: str):
        """Save a plotly figure under figures/ (live runs) and return it for display."""
        if self.live:
            d = self.path("figures")
            d.mkdir(exist_ok=True)
            fig.write_html(d / f"{name}.html", include_plotlyjs="directory", full_html=True)
        from perflab.analysis.figures import show

        return show(fig)

    def compare(self, rows, source: str, year: int | str = 2009, repeats: list[dict] | None = None):
        """The "your run vs reference vs 2009" panel (perflab.analysis.compare): rows are compare.Row or
        (label, metric, fmt, published) tuples. `repeats`: the metrics recomputed from each of the
        reference's repeats (repeat_dirs()); the panel adds their range."""
        from perflab.analysis.compare import Row, panel

        from perflab.analysis.difference import event_by_event
        from perflab.run.comparison import events, latency_logs

        logs = latency_logs(self.reference_dir())
        # how a live run is compared with it, for the note ("I/O by I/O"); none: no such comparison
        latencies = event_by_event(events(logs)[0]) if logs else ""
        p = panel(self, [r if isinstance(r, Row) else Row(*r) for r in rows], source, year, repeats, latencies)
        if self.live and latencies and (self.reference_dir() / "run.json").is_file():
            p.extras = self.difference()
        return p

    def difference(self) -> list:
        """A live run against the reference, event by event (`perflab compare`): the verdict and the bands
        that moved (HTML), the difference map (figures/vs-reference.html) and the comparison's text
        (vs-reference.txt). Never fails the run: what cannot be compared is said instead."""
        from html import escape

        from IPython.display import HTML

        from perflab.analysis.figures import readable
        from perflab.run import comparison
        from perflab.run.record import write_text_atomic

        def said(text: str) -> list:
            return [HTML(f'<div class="perflab-difference"><p>{escape(text)}</p></div>')]

        if self.mystery is not None:
            return said("A mystery run is not compared with the reference here: the difference would "
                        "say what was planted.")
        try:
            d = comparison.against_reference(self.manifest, self.data_dir, self.lab.name)
        except Refused as e:
            return said(f"No difference map against the reference: {e}")
        except Exception as e:  # noqa: BLE001 - a comparison must never break a lab run
            return said(f"The comparison with the reference could not run: {type(e).__name__}: {e}")
        write_text_atomic(self.path("vs-reference.txt"), d.text() + "\n")
        fig = readable(d.figure(title=f"Your run minus the reference: each column's share of {d.events} per latency "
                                      f"bucket<br><sub>red: more of your run's {d.events} there, blue: fewer; {d.verdict}</sub>"))
        return [HTML(d.summary_html("Your run against the reference")), self.figure(fig, "vs-reference")]

    def sanity_findings(self) -> list:
        """The benchmarking-trap warnings of this run (perflab.analysis.sanity, chapters/benchmarking.md):
        recorded in run.json under "sanity" (live runs) and shown; never a failed check."""
        from perflab.analysis import sanity

        if getattr(self, "mystery", None) is not None:
            return []  # a mystery run: a warning could give away what was planted
        try:
            findings = sanity.review_session(self)
        except Exception as e:  # noqa: BLE001 - a warning must never break a lab run
            print(f"perflab: sanity rules could not run: {e}")
            return []
        if self.record:
            self.record.sanity([x.as_dict() for x in findings])
        if findings:
            from IPython.display import Markdown, display

            # prose, not printed output: a <pre> line would run past the page's edge
            display(Markdown("The sanity rules' warnings: traps this run may have fallen into (see "
                             "*Benchmarking without fooling yourself*). The checks follow them."))
            display(table(sanity.table(findings), f"Sanity warnings ({len(findings)})"))
        return findings

    def finish(self):
        """Show the checks; in reference mode a failed check raises (the book must not claim what
        its data does not show). In live mode the runner turns a failed check into its exit code."""
        from perflab.analysis import checks as checks_mod
        from perflab.run.tables import checks_table

        not_shown = [c for c in self.checks if checks_mod.status(c) == checks_mod.NOT_SHOWN]
        failed = [c["name"] for c in self.checks if checks_mod.failed(c)]
        self.sanity_findings()
        if self.ledger:
            # The kernel is about to finish: it is no longer a process to reclaim.
            self.ledger.release("process", str(os.getpid()))
        if self.owns_run:
            # Run from a notebook by hand: nobody else will close the record or clean up.
            self.record.provenance(ended=provenance.now_iso())
            self.record.set_status("complete")
            cleanup.clean_run(self.data_dir, labels.docker_client())
        if failed and not self.live:
            raise CheckFailed(f"reference run fails its checks: {', '.join(failed)}")
        if not self.live:
            drift = self.recorded_drift()
            if drift:
                raise CheckFailed("the reference's recorded checks differ from the ones recomputed from its "
                                  "raw data (re-record it: scripts/perflab references " + self.lab.name
                                  + "): " + "; ".join(drift))
        passed = len(self.checks) - len(failed) - len(not_shown)
        return checks_table(self.checks, self.units, f"Checks ({len(self.checks)}: {passed} passed"
                            + (f", {len(not_shown)} not shown on this machine" if not_shown else "") + ")")

    def recorded_drift(self) -> list[str]:
        """Reference mode: how the checks recomputed now differ from the ones recorded in run.json
        when the reference ran (a check added, dropped, passing differently, or with another value)."""
        from perflab.analysis import checks as checks_mod

        doc = json.loads((self.data_dir / "run.json").read_text())
        rec = {c["name"]: c for c in doc.get("checks", [])}
        now = {c["name"]: c for c in self.checks}
        out = [f"'{n}' is not in the recorded run" for n in now if n not in rec]
        out += [f"recorded '{n}' is no longer a check" for n in rec if n not in now]
        for n in now.keys() & rec.keys():
            a, b = now[n], rec[n]
            if checks_mod.status(a) != checks_mod.status(b):
                out.append(f"'{n}' is '{checks_mod.status(a)}' now, '{checks_mod.status(b)}' when recorded")
            elif not _same(a["value"], b["value"]):
                out.append(f"'{n}' is {a['value']!r} now, {b['value']!r} when recorded")
        return out


def _same(a, b, rel: float = 1e-6) -> bool:
    """Equal as run.json stores values (JSON round trip; floats to a relative tolerance)."""
    a, b = json.loads(json.dumps(a, default=str)), json.loads(json.dumps(b, default=str))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, rel) for x, y in zip(a, b))
    return a == b


def _new_run_dir(root: Path, lab: str) -> Path:
    base = cleanup.runs_root(root)
    base.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    d = base / f"{lab}-{stamp}-{os.urandom(3).hex()}"
    d.mkdir()
    return d


def create_run(m: manifest_mod.Manifest, lab: manifest_mod.Lab, preset: str, values: dict,
               owner: bool = True, variant=None, options: RunOptions | None = None) -> Path:
    """Make a run directory and its first run.json (status incomplete). Parameters are already valid.
    `variant` (perflab.teaching.variant.Variant): a mystery run, whose planted parameters run.json keeps sealed.
    `options`: the run's options, which run.json carries to the notebook's session (`options`)."""
    options = options or RunOptions()
    d = _new_run_dir(m.root, lab.name)
    if owner:
        cleanup.write_owner(d)
    doc = {
        "run_id": d.name, "lab": lab.name, "preset": preset, "params": values,
        "params_text": params_mod.describe(values, lab),
        "options": options.record(),
        # which seccomp filter each of the lab's images runs under (Topology applies the same)
        "provenance": {**provenance.collect(m.root), "seccomp": seccomp.provenance(m, lab.images, options),
                       "scratch": scratch.describe(options.scratch), "cpu_limit": options.cpus,
                       "started": provenance.now_iso()},
    }
    if variant is not None:
        doc = variant.mask_run_doc(doc)
    RunRecord(d).create(doc)
    return d


def open(lab: str, run: str = REFERENCE, params: dict | None = None, run_dir: str | None = None,
         root: Path | None = None, seal=None) -> Session:  # noqa: A001 - the chapters read `session.open(...)`
    """A chapter's session: the reference run, a run started by `perflab run` (`run_dir`), or a live
    run made here. `seal`: a mystery run's perflab.teaching.variant.RunSeal, which its student
    notebook passes (perflab.teaching.student.open_session); the planted values come from it."""
    m = manifest_mod.load(root)
    lb = m.lab(lab)
    if run == REFERENCE and not run_dir and os.environ.get("PERFLAB_BOOK_RUN"):
        run = os.environ["PERFLAB_BOOK_RUN"]  # `perflab book --run smoke`: every chapter live
    if run == REFERENCE:
        d = m.root / "data" / "reference" / lab
        if not (d / "run.json").exists():
            raise FileNotFoundError(f"no reference run for lab {lab} under {d}; record one with "
                                    f"`scripts/perflab run {lab} --preset full --record`")
        doc = json.loads((d / "run.json").read_text())
        values = params_mod.recorded(lb, doc.get("params_text", {}), str(d / "run.json"))
        return Session(m, lb, "reference", doc.get("preset"), values, d, None)
    if run_dir:  # started by `perflab run`: the run directory and run.json exist
        d = Path(run_dir)
        doc = RunRecord(d).read()
        if doc.get("mystery"):  # a mystery run: the planted values come from the sealed variant
            if seal is None:
                raise Refused(f"run {d} is a mystery run: its student notebook opens it "
                              "(perflab.teaching.student.open_session)")
            doc["params_text"] = {**doc["params_text"], **seal.hidden_text}
        values = params_mod.recorded(lb, doc["params_text"], str(d / "run.json"))   # `perflab run` validated them
        options = RunOptions.from_record(doc.get("options"))
    else:  # run live from a notebook by hand: validate here, then make a run directory
        values = params_mod.resolve(lb, run, params or {}, m.budget,
                                    params_mod.free_space(cleanup.runs_root(m.root)))
        options = RunOptions()
        d = create_run(m, lb, run, values, options=options)
        os.environ[labels.RUN_DIR_ENV] = str(d)   # this process makes the run's objects: they name it
    s = Session(m, lb, "live", run, values, d, RunRecord(d), options)
    s.owns_run = not run_dir
    if run_dir:
        s.mystery = seal if doc.get("mystery") else None
    s.ledger.record_process(os.getpid(), "notebook kernel")
    return s
